//! Helpers shared by the integration tests.
#![allow(dead_code)]

use tablebase::rng::SplitMix64;

/// Calls `f(set)` for every set of `count` points among `free`, in increasing order of the
/// compressed bit pattern.
pub fn for_each_subset(free: u32, count: u32, mut f: impl FnMut(u32)) {
    let spots: Vec<u32> = (0..32).filter(|b| free & (1 << b) != 0).collect();
    let n = spots.len() as u32;
    if count > n {
        return;
    }
    if count == 0 {
        f(0);
        return;
    }
    let mut combo: u64 = (1 << count) - 1;
    while combo < (1u64 << n) {
        let mut set = 0;
        let mut bits = combo;
        while bits != 0 {
            set |= 1 << spots[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        f(set);
        // Gosper's hack: the next larger number with the same number of bits.
        let low = combo & combo.wrapping_neg();
        let ripple = combo + low;
        combo = (((ripple ^ combo) >> 2) / low) | ripple;
    }
}

/// Calls `f(mover, other)` for every placement of a moving-phase class.
pub fn for_each_placement(mover: u32, other: u32, mut f: impl FnMut(u32, u32)) {
    let all = (1u32 << 24) - 1;
    for_each_subset(all, mover, |m| for_each_subset(all & !m, other, |o| f(m, o)));
}

/// A uniformly random placement of a moving-phase class.
pub fn random_placement(rng: &mut SplitMix64, mover: u32, other: u32) -> (u32, u32) {
    let all = (1u32 << 24) - 1;
    let m = rng.subset(all, mover);
    (m, rng.subset(all & !m, other))
}

pub fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Runs the `tablebase` binary with `stdin` as its standard input.
pub fn tablebase_with_input(binary: &str, args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("the binary finishes")
}

/// Checks every file of `dir` whose name starts with `prefix` against the SHA-256 pinned in
/// tests/data/pinned-sha256.txt, and that the directory holds exactly the pinned files: the
/// table bytes do not change unless the format changes on purpose.
pub fn assert_pinned(dir: &std::path::Path, prefix: &str) {
    use sha2::{Digest, Sha256};
    let pins = include_str!("../data/pinned-sha256.txt");
    let mut expected: Vec<(String, String)> = pins
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once("  "))
        .filter(|(_, name)| name.starts_with(prefix))
        .map(|(hash, name)| (name.to_string(), hash.to_string()))
        .collect();
    expected.sort();
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .map(|p| {
            let hash: String =
                Sha256::digest(std::fs::read(&p).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
            (p.file_name().unwrap().to_string_lossy().into_owned(), hash)
        })
        .collect();
    found.sort();
    assert!(!expected.is_empty());
    assert_eq!(found, expected, "files of {prefix} differ from the pinned bytes");
}

/// The reports of `verify` over every table of `catalogue`, which must all be there.
pub fn verified(
    catalogue: &impl tablebase::Catalogue,
    dir: &std::path::Path,
    quick: bool,
) -> Vec<tablebase::catalogue::TableReport> {
    use tablebase::catalogue::TableOutcome;
    let mut reports = Vec::new();
    tablebase::verify(catalogue, dir, quick, &tablebase::Progress::hidden(), |outcome| {
        match outcome {
            TableOutcome::Checked(report) => reports.push(report),
            other => return Err(format!("{other:?}")),
        }
        Ok(())
    })
    .unwrap();
    reports
}
