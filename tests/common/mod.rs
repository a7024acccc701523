//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod brute;

use tablebase::testing::SplitMix64;

/// What `probe --brief` answers for a position of Pascal Pons's Connect Four test sets after
/// `played` stones, from its score: a win on the winner's own stone `k` scores `22 - k`.
pub fn pons_answer(played: usize, score: i32) -> String {
    let (own, theirs) = (played / 2, played - played / 2);
    match score {
        0 => "draw\t-".to_string(),
        s if s > 0 => format!("win\t{}", 2 * (22 - s as usize - own) - 1),
        s => format!("loss\t{}", 2 * (22 - (-s) as usize - theirs)),
    }
}

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
    // Written from another thread: a long input fills the pipes both ways otherwise.
    let mut input = child.stdin.take().expect("stdin");
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let output = child.wait_with_output().expect("the binary finishes");
    // A program that stops reading early (a usage error) closes the pipe: its output tells.
    let _ = writer.join();
    output
}

/// The file a compressed table or set (format version 4) is raw (version 3), decoded by a
/// reader written here from docs/FORMAT.md alone: the header with version 3, the raw checksum
/// at 120 and offsets 128..252 zero; the body decoded block by block, then a table's overflow
/// area or a set's rank directory (its rank records checked against the words); a CRC-32 per
/// 1024 bytes of that data. Any other file as it is.
pub fn raw_of(bytes: &[u8]) -> Vec<u8> {
    use std::collections::HashMap;
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    if u32_at(8) != 4 {
        return bytes.to_vec();
    }
    let is_set = u32_at(72) == 2;
    // A set's body is its words as bytes.
    let entries = if is_set { 8 * u64_at(64).div_ceil(64) as usize } else { u64_at(64) as usize };
    let overflow = u64_at(80) as usize;
    let (block_entries, code_len, blocks_len) =
        (u32_at(128) as usize, u32_at(132) as usize, u64_at(136) as usize);
    let data = &bytes[256..];
    // The code: rounds, rules, lengths; canonical codes by (length, symbol).
    let rounds = u16_at(data, 0) as usize;
    let rule_count: usize = (0..rounds).map(|k| u16_at(data, 2 + 2 * k) as usize).sum();
    let rules_at = 2 + 2 * rounds;
    let rules: Vec<(u16, u16)> = (0..rule_count)
        .map(|r| (u16_at(data, rules_at + 4 * r), u16_at(data, rules_at + 4 * r + 2)))
        .collect();
    let lengths = &data[rules_at + 4 * rule_count..code_len];
    assert_eq!(lengths.len(), 256 + rule_count);
    let mut by_code: HashMap<(u8, u32), u16> = HashMap::new();
    let mut code = 0u32;
    for length in 1..=24u8 {
        for symbol in (0..lengths.len()).filter(|&s| lengths[s] == length) {
            by_code.insert((length, code), symbol as u16);
            code += 1;
        }
        code <<= 1;
    }
    fn expand(symbol: u16, rules: &[(u16, u16)], out: &mut Vec<u8>) {
        match symbol {
            0..=255 => out.push(symbol as u8),
            _ => {
                let (left, right) = rules[symbol as usize - 256];
                expand(left, rules, out);
                expand(right, rules, out);
            }
        }
    }
    let blocks = entries.div_ceil(block_entries);
    let records_at = code_len.next_multiple_of(64);
    let ranks_at = records_at + 64 * blocks.div_ceil(28);
    let blocks_at = if is_set { ranks_at + 64 * blocks.div_ceil(28) } else { ranks_at };
    let mut body = Vec::with_capacity(entries);
    let mut next_start = 0;
    for b in 0..blocks {
        let record = records_at + 64 * (b / 28);
        let base = u64::from_le_bytes(data[record..record + 8].try_into().unwrap()) as usize;
        let end_at = |k: usize| u16_at(data, record + 8 + 2 * k) as usize;
        let (from, to) = (base + if b % 28 == 0 { 0 } else { end_at(b % 28 - 1) }, base + end_at(b % 28));
        assert_eq!(from, next_start, "block {b} starts where the one before ended");
        assert!(from < to, "block {b} has bytes");
        next_start = to;
        let size = block_entries.min(entries - b * block_entries);
        let block = &data[blocks_at + from..blocks_at + to];
        let (start, mut bit) = (body.len(), 0usize);
        while body.len() < start + size {
            let (mut length, mut code) = (0u8, 0u32);
            let symbol = loop {
                code = code << 1 | u32::from(block[bit / 8] >> (7 - bit % 8) & 1);
                (length, bit) = (length + 1, bit + 1);
                if let Some(&symbol) = by_code.get(&(length, code)) {
                    break symbol;
                }
            };
            expand(symbol, &rules, &mut body);
        }
        assert_eq!(body.len(), start + size, "block {b} decodes to its entries");
    }
    assert_eq!(body.len(), entries);
    assert_eq!(next_start, blocks_len, "the blocks end at the overflow area");
    let overflow_at = blocks_at + blocks_len;
    if is_set {
        // Rank records: members before each group of 28 blocks, then in each of its blocks.
        let mut before = 0u64;
        for (g, group) in body.chunks(28 * block_entries).enumerate() {
            let record = ranks_at + 64 * g;
            assert_eq!(u64::from_le_bytes(data[record..record + 8].try_into().unwrap()), before, "group {g}");
            for (k, block) in group.chunks(block_entries).enumerate() {
                let members: u32 = block.iter().map(|b| b.count_ones()).sum();
                assert_eq!(u32::from(u16_at(data, record + 8 + 2 * k)), members, "group {g} block {k}");
                before += u64::from(members);
            }
        }
        assert_eq!(before, u64_at(88), "the members counted in the header");
        assert_eq!(data.len(), overflow_at + 4 * overflow_at.div_ceil(1024), "no data after the blocks");
        // The rank directory of a raw set: members before each 8 words, then the total.
        let mut directory = Vec::new();
        let mut before = 0u64;
        for words in body.chunks(64) {
            directory.extend_from_slice(&before.to_le_bytes());
            before += words.iter().map(|b| u64::from(b.count_ones())).sum::<u64>();
        }
        directory.extend_from_slice(&before.to_le_bytes());
        body.extend_from_slice(&directory);
    } else {
        body.extend_from_slice(&data[overflow_at..overflow_at + 12 * overflow]);
    }
    assert_eq!(crc32fast::hash(&body), u32_at(144), "the decoded data has the raw checksum");
    let mut raw = bytes[..256].to_vec();
    raw[8..12].copy_from_slice(&3u32.to_le_bytes());
    raw[120..124].copy_from_slice(&u32_at(144).to_le_bytes());
    raw[128..252].fill(0);
    let header = crc32fast::hash(&raw[..252]);
    raw[252..256].copy_from_slice(&header.to_le_bytes());
    let checksums: Vec<u8> = body.chunks(1024).flat_map(|b| crc32fast::hash(b).to_le_bytes()).collect();
    raw.extend_from_slice(&body);
    raw.extend_from_slice(&checksums);
    raw
}

/// The files of `dir` that `chosen` names, with the SHA-256 of their bytes as they are, of their
/// bytes raw (format version 3) and in format version 2.
fn hashes(dir: &std::path::Path, chosen: &dyn Fn(&str) -> bool) -> Vec<(String, String, String, String)> {
    use sha2::{Digest, Sha256};
    let hex = |bytes: &[u8]| -> String { Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect() };
    let mut found: Vec<(String, String, String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| chosen(&p.file_name().unwrap().to_string_lossy()))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let raw = raw_of(&bytes);
            (name, hex(&bytes), hex(&raw), hex(&as_version_2(&bytes)))
        })
        .collect();
    found.sort();
    found
}

/// The number of data bytes of a table or set file by its header (docs/FORMAT.md): values and
/// overflow area, or words and rank directory; for a compressed table (version 4) its code,
/// index, blocks and overflow area.
pub fn data_len(bytes: &[u8]) -> usize {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let u32_at = |at: usize| u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()));
    let index_size = u64_at(64);
    if u32_at(8) == 4 {
        // A compressed table: code, records, blocks, overflow area; a compressed set: code,
        // block records, rank records, blocks (of its words as bytes).
        let (block_entries, code, blocks_len) = (u32_at(128), u32_at(132), u64_at(136));
        if bytes[72] == 2 {
            let records = (8 * index_size.div_ceil(64)).div_ceil(block_entries).div_ceil(28);
            return (code.next_multiple_of(64) + 128 * records + blocks_len) as usize;
        }
        let records = index_size.div_ceil(block_entries).div_ceil(28);
        return (code.next_multiple_of(64) + 64 * records + blocks_len + 12 * u64_at(80)) as usize;
    }
    let len = match bytes[72] {
        1 => index_size + 12 * u64_at(80),
        _ => {
            let words = index_size.div_ceil(64);
            8 * (words + words.div_ceil(8) + 1)
        }
    };
    len as usize
}

/// The data of a table or set file: what its header's checksum covers.
pub fn data(bytes: &[u8]) -> &[u8] {
    &bytes[256..256 + data_len(bytes)]
}

/// Makes the checksums of a format-3 file match its bytes again, written here from
/// docs/FORMAT.md alone: a CRC-32 per 1024-byte block of data after the data, the CRC-32 of all
/// the data at offset 120, the header's own CRC-32 at offset 252. For tests that need a wrong
/// value under valid checksums.
pub fn reseal(bytes: &mut [u8]) {
    let len = data_len(bytes);
    let all = crc32fast::hash(&bytes[256..256 + len]);
    let blocks: Vec<u8> =
        bytes[256..256 + len].chunks(1024).flat_map(|b| crc32fast::hash(b).to_le_bytes()).collect();
    bytes[256 + len..].copy_from_slice(&blocks);
    bytes[120..124].copy_from_slice(&all.to_le_bytes());
    let header = crc32fast::hash(&bytes[..252]);
    bytes[252..256].copy_from_slice(&header.to_le_bytes());
}

/// A file of format version 3 (or 4, raw first) as version 2 wrote it: the same data, without the block checksums
/// after it and without the header's block size and own checksum (docs/FORMAT.md).
pub fn as_version_2(bytes: &[u8]) -> Vec<u8> {
    let raw = raw_of(bytes);
    let mut old = raw[..256 + data_len(&raw)].to_vec();
    old[8..12].copy_from_slice(&2u32.to_le_bytes());
    old[124..256].fill(0);
    old
}

fn pins(text: &str, chosen: &dyn Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut pins: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once("  "))
        .filter(|(_, name)| chosen(name))
        .map(|(hash, name)| (name.to_string(), hash.to_string()))
        .collect();
    pins.sort();
    assert!(!pins.is_empty());
    pins
}

/// Checks every file of `dir` whose name starts with `prefix` against the SHA-256 pinned in
/// tests/data/pinned-sha256.txt, and that the directory holds exactly the pinned files: the
/// table bytes do not change unless the format changes on purpose. The same files as format
/// version 2 wrote them are checked against the pins of that version
/// (tests/data/pinned-sha256-v2.txt): version 3 added checksums and changed no value.
pub fn assert_pinned(dir: &std::path::Path, prefix: &str) {
    assert_pinned_files(dir, prefix, &|name| name.starts_with(prefix));
}

/// [`assert_pinned`] for the files `chosen` names (among the directory's and the pins'), which
/// the messages call `what`.
pub fn assert_pinned_files(dir: &std::path::Path, what: &str, chosen: &dyn Fn(&str) -> bool) {
    let found = hashes(dir, chosen);
    // Compressed tables against the pins of their compressed bytes; every file, raw, against
    // the pins of version 3.
    let compressed: Vec<(String, String)> =
        found.iter().filter(|(_, h, r, _)| h != r).map(|(n, h, _, _)| (n.clone(), h.clone())).collect();
    if !compressed.is_empty() {
        let pinned = pins(include_str!("../data/pinned-sha256-v4.txt"), chosen);
        let pinned: Vec<_> =
            pinned.into_iter().filter(|(n, _)| compressed.iter().any(|(c, _)| c == n)).collect();
        assert_eq!(compressed, pinned, "compressed files of {what} differ from the pinned bytes");
    }
    let now: Vec<(String, String)> = found.iter().map(|(n, _, r, _)| (n.clone(), r.clone())).collect();
    assert_eq!(
        now,
        pins(include_str!("../data/pinned-sha256.txt"), chosen),
        "files of {what} differ from the pinned bytes"
    );
    let before: Vec<(String, String)> = found.iter().map(|(n, _, _, h)| (n.clone(), h.clone())).collect();
    let pinned = pins(include_str!("../data/pinned-sha256-v2.txt"), chosen);
    assert_eq!(before, pinned, "files of {what} hold other data than format version 2 did");
}

/// The reports of `verify` over every table of `catalogue`, which must all be there.
pub fn verified(
    catalogue: &impl tablebase::Catalogue,
    dir: &std::path::Path,
    quick: bool,
) -> Vec<tablebase::catalogue::TableReport> {
    use tablebase::catalogue::TableOutcome;
    let mut reports = Vec::new();
    tablebase::verify(catalogue, dir, quick, None, &tablebase::Progress::hidden(), |outcome| {
        match outcome {
            TableOutcome::Checked(report) => reports.push(report),
            other => return Err(format!("{other:?}")),
        }
        Ok(())
    })
    .unwrap();
    reports
}

/// A directory of one test's own, removed when dropped: at the end of the test, and also when
/// the test fails, since a failing assertion unwinds through it.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// A new empty directory named after the test, under the system's temporary directory.
pub fn scratch(name: &str) -> Scratch {
    let dir = tempfile::Builder::new().prefix(&format!("tablebase-{name}-")).tempdir();
    Scratch(dir.expect("a temporary directory"))
}

/// A directory shared by every test of one test binary (tables generated once), removed when the
/// binary exits. A static is never dropped, so the removal is left to `atexit`, which runs also
/// after failed tests: the harness reports them and leaves through `exit`.
pub fn shared_scratch(name: &str) -> std::path::PathBuf {
    use std::sync::Mutex;
    static SHARED: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());
    extern "C" fn remove_shared() {
        let dirs = SHARED.lock().map(|d| d.clone()).unwrap_or_default();
        for dir in dirs {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    let dir = tempfile::Builder::new().prefix(&format!("tablebase-{name}-")).tempdir();
    let dir = dir.expect("a temporary directory").keep();
    let mut shared = SHARED.lock().unwrap();
    if shared.is_empty() {
        // SAFETY: registers a plain function with no arguments, once per process.
        unsafe { libc::atexit(remove_shared) };
    }
    shared.push(dir.clone());
    dir
}

/// Tables that tests share: `generate` writes them into the directory it is given, once for
/// every test process of the same binaries (cargo test runs the tests as threads of one
/// process, nextest each in a process of its own), into a cache under the target directory's
/// scratch space; each call gets a copy of its own, a [`shared_scratch`] directory, so that what
/// one test writes beside the tables no other sees.
pub fn shared_tables(name: &str, generate: impl FnOnce(&std::path::Path)) -> std::path::PathBuf {
    let cache = cached_tables(name, generate);
    let dir = shared_scratch(name);
    copy_tree(&cache, &dir);
    dir
}

/// The whole 5-stone game of the standard rules as the command line makes it (the moving-phase
/// classes up to 5-5, then the 10 placement plies), for the tests that read it, each in a copy
/// of its own: made and verified in full once per build, where it is made, since they are the
/// heaviest work of those tests. The verify recomputes every value of the 19 tables from its
/// successors and compares every table's counts with the reference.
pub fn verified_five_stone_game() -> std::path::PathBuf {
    shared_tables("morris-five-stones", |dir| {
        let d = dir.to_str().unwrap();
        let binary = env!("CARGO_BIN_EXE_tablebase");
        let made = tablebase_with_input(binary, &["generate", "morris", "--stones", "5", "--dir", d], "");
        assert!(made.status.success(), "generate: {}", String::from_utf8_lossy(&made.stderr));
        let verify =
            tablebase_with_input(binary, &["verify", "morris", "--stones", "5", "--json", "--dir", d], "");
        assert_eq!(verify.status.code(), Some(0), "verify: {}", String::from_utf8_lossy(&verify.stderr));
        let reports: Vec<serde_json::Value> = String::from_utf8(verify.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let tables: Vec<&str> = reports.iter().map(|r| r["table"].as_str().unwrap()).collect();
        let classes = ["3-3", "3-4", "3-5", "4-3", "4-4", "4-5", "5-3", "5-4", "5-5"].map(String::from);
        let expected: Vec<String> =
            classes.into_iter().chain((0..10).map(|ply| format!("placement ply {ply}"))).collect();
        assert_eq!(tables, expected);
        for report in &reports {
            assert_eq!(report["checksum"], "ok", "{report}");
            assert_eq!(report["consistent"], true, "{report}");
            assert_eq!(report["reference"], "match", "{report}");
        }
    })
}

/// The cache of [`shared_tables`]: one directory per name, for the test binary and the
/// `tablebase` binary that made it (their sizes and times), generated under a lock, under a
/// temporary name renamed when complete, so that a test killed half-way leaves no half cache.
fn cached_tables(name: &str, generate: impl FnOnce(&std::path::Path)) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("shared-tables");
    std::fs::create_dir_all(&root).expect("the cache's directory");
    // SipHash with fixed keys: the same stamp in every process.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let binaries =
        [std::env::current_exe().expect("the test binary"), env!("CARGO_BIN_EXE_tablebase").into()];
    for binary in binaries {
        let metadata = std::fs::metadata(&binary).expect("a binary's metadata");
        (metadata.len(), metadata.modified().ok()).hash(&mut hasher);
    }
    let stamped = format!("{name}-{:016x}", hasher.finish());
    let cache = root.join(&stamped);
    let lock = std::fs::File::create(root.join(format!("{name}.lock"))).expect("the cache's lock file");
    lock.lock().expect("the cache's lock");
    if !cache.is_dir() {
        // Caches of older binaries, and a generation that did not finish.
        for entry in std::fs::read_dir(&root).expect("the cache's directory").flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let made_by_others = file_name.strip_prefix(name).is_some_and(|rest| rest.starts_with('-'));
            if made_by_others && entry.path().is_dir() {
                std::fs::remove_dir_all(entry.path()).expect("an old cache removed");
            }
        }
        let partial = root.join(format!("{stamped}-partial"));
        std::fs::create_dir_all(&partial).expect("the cache's directory");
        generate(&partial);
        std::fs::rename(&partial, &cache).expect("the cache complete");
    }
    cache
}

/// Copies the files under `from` to `to`, which exists.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).expect("a directory to copy").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).expect("a directory copied");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a file copied");
        }
    }
}

/// `tablebase serve` on a free port of this machine, stopped when dropped (at the end of the
/// test, also when it fails).
pub struct Served {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
}

impl Served {
    /// Starts `binary serve` on the tables of `dir`, and reads the port from its first line.
    pub fn start(binary: &str, dir: &std::path::Path) -> Served {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mut child = Command::new(binary)
            .args(["serve", "--port", "0", "--dir", dir.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.split("127.0.0.1:").nth(1).and_then(|rest| rest.split('/').next()?.parse().ok());
        let port = port.unwrap_or_else(|| panic!("no address in {line:?}"));
        Served { child, port }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reachable positions of Connect Four `ply` of board `g` (one of each mirror pair, as
/// stored) are searched and compared with its table in `dir`: the search solver agrees with the
/// tables; returns how many were compared. Every one where the ply holds at most `at_most`,
/// else `at_most` or fewer spread evenly over the ply's index (every n-th member, by rank).
pub fn search_agrees_with_ply(
    dir: &std::path::Path,
    g: tablebase::games::connect4::Geometry,
    ply: u32,
    searcher: &mut tablebase::testing::connect4::Searcher,
    at_most: u64,
) -> u64 {
    use tablebase::games::connect4::Connect4;
    use tablebase::table::Check;
    use tablebase::{LayeredGame, Value};
    let tables = Connect4::tables(g);
    assert!(at_most > 0);
    let layer = tables.open_layer(dir, ply, |_| Check::Checksum).unwrap();
    let members = layer.set.len();
    let every = members.div_ceil(at_most).max(1);
    let mut walker = Default::default();
    let mut compared = 0;
    for rank in (0..members).step_by(every as usize) {
        let index = layer.set.select(rank).unwrap().expect("a member of every rank below the count");
        let position = tables.game().position(ply, &mut walker, index);
        let stored: Value = layer.value_at(index).unwrap().expect("a member has a value");
        assert_eq!(searcher.value(&position).unwrap(), stored, "{g} ply {ply} index {index}");
        compared += 1;
    }
    compared
}
