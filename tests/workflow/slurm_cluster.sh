#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the workflow test, with accounting (the
# Snakemake Slurm plugin asks `sacct` for the state of its jobs):
#   slurm_cluster.sh start STATE   configures and starts munged, MariaDB, slurmdbd, slurmctld and
#                                  slurmd, everything kept under STATE, and prints the
#                                  environment to use it (SLURM_CONF=...);
#   slurm_cluster.sh stop STATE    stops every daemon that `start` started, by its pid.
# Needs root and Debian's packages slurm-wlm, slurmdbd, munge and mariadb-server. Outside STATE
# it writes only /etc/slurm/slurm.conf, a link to STATE's configuration that `stop` removes (the
# Snakemake plugin clears SLURM_CONF inside a job, so a job's own srun reads the default path),
# and refuses to start where that file is there already; every daemon listens on loopback.
set -euo pipefail

command=${1:-}
state=${2:-}
[ -n "$command" ] && [ -n "$state" ] || { sed -n '2,9p' "$0" | sed 's/^# *//' >&2; exit 2; }

# Ports of our own, so that a cluster already on the machine is neither used nor disturbed.
DB_PORT=23306
CTLD_PORT=26817
SLURMD_PORT=26818
DBD_PORT=26819
CLUSTER=tablebase
ACCOUNT=tablebase
PARTITION=test

stop() {
    if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$state/etc/slurm.conf" ]; then
        rm -f /etc/slurm/slurm.conf
    fi
    local pidfile
    for pidfile in slurmd slurmctld slurmdbd mariadb munged; do
        pidfile="$state/run/$pidfile.pid"
        [ -s "$pidfile" ] || continue
        local pid
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
}

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    while [ $SECONDS -lt $deadline ]; do
        timeout 5 "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "slurm_cluster.sh: timed out waiting for: $*" >&2
    return 1
}

start() {
    if [ -e /etc/slurm/slurm.conf ]; then
        echo "slurm_cluster.sh: /etc/slurm/slurm.conf exists: this machine has a Slurm configuration of its own" >&2
        return 3
    fi
    mkdir -p "$state"/{etc,run,log,spool/ctld,spool/d,munge,db,mysql}
    state=$(cd "$state" && pwd)
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    # Leave the system and the page cache some room: what Slurm may hand to jobs.
    memory=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)

    # 1. munge, with the package's key, at its usual socket (Slurm's clients do not all take
    #    another); one already answering there is used as it is.
    if ! (munge -n | unmunge) >/dev/null 2>&1; then
        mkdir -p /run/munge
        chown munge:munge /run/munge "$state/munge"
        su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=$state/munge/munged.pid \
            --log-file=$state/munge/munged.log --seed-file=$state/munge/munged.seed"
        wait_for 10 test -s "$state/munge/munged.pid"
        cp "$state/munge/munged.pid" "$state/run/munged.pid"
        wait_for 10 sh -c "munge -n | unmunge"
    fi

    # 2. MariaDB, its own data directory, on loopback.
    chown mysql:mysql "$state/db" "$state/mysql"
    mariadb-install-db --user=mysql --datadir="$state/db" --auth-root-authentication-method=normal \
        >"$state/log/mariadb-install.log" 2>&1
    /usr/sbin/mariadbd --user=mysql --datadir="$state/db" --port=$DB_PORT --bind-address=127.0.0.1 \
        --socket="$state/mysql/mariadb.sock" --pid-file="$state/mysql/mariadb.pid" \
        --log-error="$state/mysql/mariadb.log" >/dev/null 2>&1 &
    wait_for 30 mariadb --socket="$state/mysql/mariadb.sock" -u root -e "select 1"
    cp "$state/mysql/mariadb.pid" "$state/run/mariadb.pid"
    mariadb --socket="$state/mysql/mariadb.sock" -u root <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL

    # 3. slurmdbd: it reads slurmdbd.conf beside SLURM_CONF.
    export SLURM_CONF="$state/etc/slurm.conf"
    cat >"$state/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
LogFile=$state/log/slurmdbd.log
PidFile=$state/run/slurmdbd.pid
EOF
    chmod 600 "$state/etc/slurmdbd.conf"

    # 4. slurm.conf: one node, this machine, no cgroups.
    cat >"$SLURM_CONF" <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$state/spool/d
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStorageEnforce=associations
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=1
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    mkdir -p /etc/slurm
    ln -s "$SLURM_CONF" /etc/slurm/slurm.conf
    /usr/sbin/slurmdbd
    wait_for 30 sacctmgr -n list cluster
    sacctmgr -i add cluster $CLUSTER >/dev/null
    sacctmgr -i add account $ACCOUNT Cluster=$CLUSTER >/dev/null
    sacctmgr -i add user root Account=$ACCOUNT Cluster=$CLUSTER >/dev/null

    # 5. the controller, then the node.
    /usr/sbin/slurmctld
    wait_for 30 scontrol ping
    /usr/sbin/slurmd
    wait_for 60 sh -c "sinfo -h -o %T | grep -q idle"
    echo "SLURM_CONF=$SLURM_CONF"
    echo "SLURM_ACCOUNT=$ACCOUNT"
    echo "SLURM_PARTITION=$PARTITION"
}

[ "$command" = stop ] && [ -d "$state" ] && state=$(cd "$state" && pwd)
case $command in
    start)
        trap 'stop' EXIT # a start that fails half-way leaves nothing running
        start
        trap - EXIT
        ;;
    stop) stop ;;
    *) echo "slurm_cluster.sh: start or stop, not $command" >&2; exit 2 ;;
esac
