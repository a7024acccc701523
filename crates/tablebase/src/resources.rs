//! CPU time and peak memory of this process, for generation logs and benchmarks, and the
//! memory the machine has free (Linux /proc; `None` elsewhere).

/// Peak resident memory in bytes so far (`VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Memory this process can still be given, in bytes: the least of what the machine can give
/// without swapping (`MemAvailable`), what the process's own address-space limit leaves
/// (`ulimit -v`, RLIMIT_AS, less what it has mapped already) and what its control group's
/// limit leaves (`memory.max` less `memory.current`, of its group and every group above). A
/// batch system or a container sets the latter two; a check against the machine alone would
/// let an allocation fail half-way instead.
pub fn available_memory() -> Option<u64> {
    [machine_available(), address_space_left(), cgroup_left()].into_iter().flatten().min()
}

/// `MemAvailable`, in bytes.
fn machine_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&info, "MemAvailable:")
}

/// A `Name:  N kB` field of a /proc file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Under an address-space limit (`ulimit -v`), lets the allocator keep one pool of memory
/// (arena) for all threads; to be called before the process starts any thread.
///
/// glibc gives each thread that allocates an arena of its own, up to eight a processor, and
/// each reserves 64 MB of address space however little it holds: under a limit of 400 MB a
/// run's two threads took 128 MB of it, and whether they had done so yet when a run compared
/// its estimate with what is left ([`available_memory`]) decided whether it was refused at once
/// or ran out of memory later (the same command, on the same machine, both ways). One arena
/// gives that space to the tables; the solvers' loops do not allocate, so they do not wait on
/// its lock (`generate morris --stones 5`: 12.7 s against 14.2 s with an arena a thread).
/// Nothing changes without a limit, or with a C library other than glibc.
pub fn one_allocator_arena_under_an_address_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if address_space_limit().is_some() {
        // SAFETY: mallopt changes a setting of the allocator; called before any other thread.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) };
    }
}

/// RLIMIT_AS in bytes, where it is set (`ulimit -v`).
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit fills the struct it is given.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// What RLIMIT_AS leaves of the address space, where it is set.
fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// What the memory limits of this process's control group and those above it leave (cgroup
/// v2, or v1's memory controller), where one is set.
fn cgroup_left() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let number =
        |path: &std::path::Path| -> Option<u64> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    let mut least: Option<u64> = None;
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next(), fields.next()?, fields.next()?);
        let (root, limit, usage) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max", "memory.current"),
            c if c.split(',').any(|c| c == "memory") => {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
            }
            _ => continue,
        };
        let mut group = std::path::Path::new(root).join(path.trim_start_matches('/'));
        loop {
            // "max" (v2) does not parse, and v1 says "no limit" with a huge number.
            if let Some(max) = number(&group.join(limit)).filter(|&m| m < 1 << 60) {
                let left = max.saturating_sub(number(&group.join(usage)).unwrap_or(0));
                least = Some(least.map_or(left, |l| l.min(left)));
            }
            if group.as_os_str().len() <= root.len() || !group.pop() {
                break;
            }
        }
    }
    least
}

/// User plus system CPU time of all threads so far, in seconds. Linux reports it in clock
/// ticks, 100 per second on every mainstream configuration.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name, which may itself contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some((user + system) as f64 / 100.0)
}

/// A number of bytes for people, in the decimal unit that fits, to three significant digits:
/// `512 bytes`, `3.07 MB`, `81.0 TB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1000 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    // 999.95 KB rounds to "1000 KB" at three digits: such a value is the next unit's 1.00.
    while value >= 999.5 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    let digits = match value {
        v if v < 9.995 => 2,
        v if v < 99.95 => 1,
        _ => 0,
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_are_said_in_the_unit_that_fits() {
        use super::bytes;
        assert_eq!(bytes(0), "0 bytes");
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(bytes(1000), "1.00 KB");
        assert_eq!(bytes(12_345), "12.3 KB");
        assert_eq!(bytes(999_499), "999 KB");
        assert_eq!(bytes(999_500), "1.00 MB");
        assert_eq!(bytes(3_070_000), "3.07 MB");
        assert_eq!(bytes(8_900_000_000), "8.90 GB");
        assert_eq!(bytes(81_000_000_000_000), "81.0 TB");
        assert_eq!(bytes(u64::MAX), "18.4 EB");
    }

    #[test]
    fn readings_are_plausible_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(super::peak_memory().unwrap() > 1 << 20);
            assert!(super::cpu_seconds().unwrap() >= 0.0);
        }
    }
}
