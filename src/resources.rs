//! CPU time and peak memory of this process, for generation logs and benchmarks (Linux /proc;
//! `None` elsewhere).

/// Peak resident memory in bytes so far (`VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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

#[cfg(test)]
mod tests {
    #[test]
    fn readings_are_plausible_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(super::peak_memory().unwrap() > 1 << 20);
            assert!(super::cpu_seconds().unwrap() >= 0.0);
        }
    }
}
