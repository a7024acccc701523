//! CPU time and peak memory of this process, for generation logs and benchmarks, and the
//! memory the machine has free (Linux /proc; `None` elsewhere).

/// Peak resident memory in bytes so far (`VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Memory the machine can give without swapping, in bytes (`MemAvailable`).
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
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
