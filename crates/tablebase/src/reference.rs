//! Reference data shipped with the program (copied from `tables/reference/`, sources named in
//! each file's header): the checksums the project publishes for its table files, and the reader
//! of the tab-separated files in which each game keeps its published figures.

const PUBLISHED_CHECKSUMS: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/published-checksums.tsv"));

/// The CRC-32 of the whole file that the project publishes for the table file `name`
/// (`morris-8-7.tbl`): generation is deterministic, so every run writes these bytes.
pub(crate) fn published_checksum(name: &str) -> Option<u32> {
    rows(PUBLISHED_CHECKSUMS).find(|r| r[0] == name).and_then(|r| u32::from_str_radix(r[1].trim(), 16).ok())
}

const PUBLISHED_PACKED_CHECKSUMS: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/published-checksums-v4.tsv"));

/// The CRC-32 the project publishes for the compressed table file `name` (format version 4),
/// computed as for [`published_checksum`]: compressing is deterministic too.
pub(crate) fn published_packed_checksum(name: &str) -> Option<u32> {
    rows(PUBLISHED_PACKED_CHECKSUMS)
        .find(|r| r[0] == name)
        .and_then(|r| u32::from_str_radix(r[1].trim(), 16).ok())
}

/// Rows of a tab-separated reference file, comments and the header skipped.
pub(crate) fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .skip(1)
        .map(|line| line.split('\t').collect())
}

pub(crate) fn number(field: &str) -> u64 {
    field.trim().parse().expect("reference files hold plain numbers")
}
