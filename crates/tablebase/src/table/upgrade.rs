//! Upgrading a complete file of an older format version in place, and setting a damaged one
//! aside: what `generate` does with files it finds, so that users keep their overnight tables.

use super::atomic::Pending;
use super::blocks::{block_checksums, checksum_area, checksum_area_len};
use super::error::TableError;
use super::format::{FORMAT_VERSION, HEADER_SIZE};
use super::header::{FileSpec, Header, MappedFile, check_data_checksum, map_any_version};
use memmap2::MmapMut;
use std::path::{Path, PathBuf};

/// Rewrites the complete file `spec` of format version 1 or 2 as the current version, after
/// checking the checksum of all its data: the same data and counts, with the block checksums
/// and the header checksum added. Written under the temporary name and renamed like every
/// table, so an interruption leaves the old file as it was. Returns the new header.
pub fn upgrade(spec: &FileSpec) -> Result<Header, TableError> {
    let MappedFile { header: old, map, data_len, .. } = map_any_version(spec)?;
    if old.version >= FORMAT_VERSION {
        return Ok(old);
    }
    let data = &map[HEADER_SIZE..HEADER_SIZE + data_len as usize];
    check_data_checksum(&spec.path, &old, data)?;
    let pending = Pending::create(&spec.path)?;
    let length = HEADER_SIZE as u64 + data_len + checksum_area_len(data_len);
    pending.reserve(length)?;
    // SAFETY: the temporary file is ours alone until it is renamed.
    let mut out = unsafe { MmapMut::map_mut(&pending.file) }.map_err(pending.error())?;
    let data_end = HEADER_SIZE + data_len as usize;
    out[HEADER_SIZE..data_end].copy_from_slice(data);
    let blocks = block_checksums(&out[HEADER_SIZE..data_end]);
    out[data_end..].copy_from_slice(&checksum_area(&blocks));
    // Same data, so the checksum of all of it is the old one.
    let header = Header { version: FORMAT_VERSION, packing: None, ..old };
    out[..HEADER_SIZE].copy_from_slice(&header.encode_as(spec.kind));
    out.flush().map_err(pending.error())?;
    drop(out);
    drop(map);
    pending.commit()?;
    Ok(header)
}

/// Renames a damaged file out of the way, to `NAME.damaged` (or `NAME.damaged.2`, ...), so that
/// it can be rebuilt without destroying what a person may want to look at. Returns the new name.
pub(crate) fn set_aside(path: &Path) -> Result<PathBuf, TableError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let aside = (1..)
        .map(|n| match n {
            1 => path.with_file_name(format!("{name}.damaged")),
            n => path.with_file_name(format!("{name}.damaged.{n}")),
        })
        .find(|candidate| !candidate.exists())
        .expect("an unused name");
    std::fs::rename(path, &aside).map_err(TableError::io(path))?;
    Ok(aside)
}
