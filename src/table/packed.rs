//! Compressed value tables (format version 4, docs/FORMAT.md): the body of a raw table (one
//! code byte per index) in blocks of a pair code ([`super::pairs`]), with the index that finds
//! an entry's block, the raw table's overflow area unchanged, and the same block checksums over
//! all of it. A table is compressed whole once it is complete, and decoded whole (checked end to
//! end against the raw checksum kept in its header) when a solver or verify reads all of it; a
//! probe decodes the one block it needs.

use super::atomic::Pending;
use super::blocks::{CheckedMap, block_checksums, checksum_area, checksum_area_len, combined_checksum};
use super::error::TableError;
use super::format::{HEADER_SIZE, PACKED_VERSION};
use super::header::{Check, FileKind, FileSpec, Header, Packing, checksum};
use super::pairs::{BlockIndex, MAX_BLOCK_ENTRIES, PairCode, SPAN};
use super::values::TableFile;
use memmap2::MmapMut;
use rayon::prelude::*;
use std::path::Path;

/// Bytes of a compressed block: measured best for a single lookup at a size close to the best
/// (docs/BENCHMARKS.md, "Compressed tables").
pub(crate) const BLOCK_BYTES: u32 = 64;
/// The largest block a reader accepts: a block never crosses a checksum block.
const MAX_BLOCK_BYTES: usize = super::blocks::BLOCK_SIZE;
/// The longest stored code: the rounds, 3,840 rules and 4,096 code lengths fit well within it.
const MAX_CODE_BYTES: u32 = 1 << 15;
/// The rules are learnt from runs of this many entries spread over the body ...
const SAMPLE_RUN: usize = 64 << 10;
/// ... up to this many entries in all (a body this small is learnt from whole).
const SAMPLE_BYTES: usize = 16 << 20;
/// Blocks decoded as one unit of parallel work.
const GROUP: usize = 4096;

/// Where the parts of a compressed table's data lie, from its header (all offsets from the
/// start of the data, after the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The sparse index: for every `SPAN`-th entry, its block and offset (u32 each).
    pub sparse_at: u64,
    /// Entries of each block less one, a u16 each.
    pub sizes_at: u64,
    /// The compressed blocks, from a multiple of the checksum block size.
    pub blocks_at: u64,
    /// The overflow area, as a raw table has it.
    pub overflow_at: u64,
    /// All the data.
    pub data_len: u64,
    /// Bytes of each block.
    pub block_bytes: usize,
    /// The number of blocks.
    pub blocks: u64,
}

impl Layout {
    /// The layout a version-4 header describes; `None` for numbers no writer makes (a damaged
    /// header).
    pub fn of(header: &Header) -> Option<Layout> {
        let packing = header.packing?;
        let (entries, blocks) = (header.index_size, packing.blocks);
        let block_bytes = packing.block_bytes as usize;
        let sane = block_bytes.is_power_of_two()
            && (8..=MAX_BLOCK_BYTES).contains(&block_bytes)
            && (1..=MAX_CODE_BYTES).contains(&packing.code_len)
            && blocks <= entries
            && blocks >= entries.div_ceil(MAX_BLOCK_ENTRIES);
        if !sane {
            return None;
        }
        let sparse_at = u64::from(packing.code_len).next_multiple_of(8);
        let sizes_at = sparse_at + 8 * entries.div_ceil(SPAN);
        let blocks_at = (sizes_at + 2 * blocks).next_multiple_of(super::blocks::BLOCK_SIZE as u64);
        let overflow_at = blocks.checked_mul(block_bytes as u64)?.checked_add(blocks_at)?;
        let data_len = header.overflow_count.checked_mul(12)?.checked_add(overflow_at)?;
        Some(Layout { sparse_at, sizes_at, blocks_at, overflow_at, data_len, block_bytes, blocks })
    }
}

/// The reading side of a compressed table: its code and layout.
pub(crate) struct Packed {
    code: PairCode,
    layout: Layout,
}

impl Packed {
    /// Reads the code of the compressed table whose header is `header` (its block checked).
    pub fn open(path: &Path, header: &Header, data: &CheckedMap) -> Result<Packed, TableError> {
        let layout = Layout::of(header).ok_or_else(|| TableError::Header { path: path.to_path_buf() })?;
        let code_len = header.packing.map_or(0, |p| p.code_len) as usize;
        let code = PairCode::from_bytes(data.bytes(0, code_len)?)
            .map_err(|bad| TableError::Code { path: path.to_path_buf(), why: bad.0 })?;
        Ok(Packed { code, layout })
    }

    /// Where the overflow area starts in the data.
    pub fn overflow_at(&self) -> u64 {
        self.layout.overflow_at
    }

    /// The code byte of entry `index` (below the table's size): its block found from the sparse
    /// index and the block sizes, then decoded up to the entry.
    #[inline]
    pub fn entry(&self, path: &Path, data: &CheckedMap, index: u64) -> Result<u8, TableError> {
        let layout = &self.layout;
        let damaged = || TableError::Entry { path: path.to_path_buf(), index };
        let start = data.u64_at(layout.sparse_at + 8 * (index / SPAN))?;
        let (mut block, mut offset) = (start & 0xffff_ffff, (start >> 32) + index % SPAN);
        loop {
            if block >= layout.blocks {
                return Err(damaged());
            }
            let size = data.bytes(layout.sizes_at + 2 * block, 2)?;
            let size = u64::from(u16::from_le_bytes([size[0], size[1]])) + 1;
            if offset < size {
                break;
            }
            offset -= size;
            block += 1;
        }
        let bytes = data.bytes(layout.blocks_at + block * layout.block_bytes as u64, layout.block_bytes)?;
        let entry = if bytes.len() <= 64 {
            let mut padded = [0u8; 64 + 7];
            padded[..bytes.len()].copy_from_slice(bytes);
            self.code.entry_in_block(&padded[..bytes.len() + 7], offset)
        } else {
            let mut padded = [0u8; MAX_BLOCK_BYTES + 7];
            padded[..bytes.len()].copy_from_slice(bytes);
            self.code.entry_in_block(&padded[..bytes.len() + 7], offset)
        };
        entry.ok_or_else(damaged)
    }

    /// Starts loading what a lookup of `index` reads first. Only a hint.
    #[inline]
    pub fn prefetch(&self, data: &CheckedMap, index: u64) {
        data.prefetch(self.layout.sparse_at + 8 * (index / SPAN));
    }

    /// Decodes the whole body of a table of `entries` entries whose data has been checked, and
    /// checks it end to end: block sizes that add up, a sparse index that agrees with them,
    /// blocks that decode to exactly their entries, and the raw checksum of the header over the
    /// decoded body and the overflow area.
    pub fn decode_all(
        &self,
        path: &Path,
        header: &Header,
        data: &CheckedMap,
    ) -> Result<Box<[u8]>, TableError> {
        let layout = &self.layout;
        let entries = header.index_size;
        let damaged = |index| TableError::Entry { path: path.to_path_buf(), index };
        let sizes: Vec<u64> = match layout.blocks {
            0 => Vec::new(),
            blocks => data
                .bytes(layout.sizes_at, 2 * blocks as usize)?
                .chunks_exact(2)
                .map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])) + 1)
                .collect(),
        };
        if sizes.iter().sum::<u64>() != entries {
            return Err(damaged(entries));
        }
        let sparse_len = 8 * entries.div_ceil(SPAN) as usize;
        let sparse = if sparse_len == 0 { &[][..] } else { data.bytes(layout.sparse_at, sparse_len)? };
        if sparse != BlockIndex::new(&sizes).sparse_bytes().as_slice() {
            return Err(damaged(0));
        }
        let blocks = match layout.blocks {
            0 => &[][..],
            n => data.bytes(layout.blocks_at, n as usize * layout.block_bytes)?,
        };
        let mut body = vec![0u8; entries as usize].into_boxed_slice();
        let mut rest: &mut [u8] = &mut body;
        let mut groups = Vec::new();
        for (g, group) in sizes.chunks(GROUP).enumerate() {
            let (this, after) = rest.split_at_mut(group.iter().sum::<u64>() as usize);
            groups.push((g * GROUP, group, this));
            rest = after;
        }
        groups.into_par_iter().try_for_each(|(first, group, out)| {
            decode_group(&self.code, blocks, layout.block_bytes, first, group, out)
                .map_err(|block| damaged(block as u64))
        })?;
        let overflow = match header.overflow_count {
            0 => &[][..],
            n => data.bytes(layout.overflow_at, 12 * n as usize)?,
        };
        let raw = raw_checksum(&body, overflow);
        let expected = header.packing.map_or(0, |p| p.raw_checksum);
        if raw != expected {
            return Err(TableError::Checksum { path: path.to_path_buf(), expected, found: raw });
        }
        Ok(body)
    }
}

/// Decodes the blocks `first..first + sizes.len()` of `blocks` into `out` (their entries, one
/// after another); the first block that does not decode to its entries is the error.
fn decode_group(
    code: &PairCode,
    blocks: &[u8],
    block_bytes: usize,
    first: usize,
    sizes: &[u64],
    out: &mut [u8],
) -> Result<(), usize> {
    let mut padded = vec![0u8; block_bytes + 7];
    let mut at = 0usize;
    for (k, &size) in sizes.iter().enumerate() {
        let block = first + k;
        padded[..block_bytes].copy_from_slice(&blocks[block * block_bytes..(block + 1) * block_bytes]);
        code.decode_block(&padded, &mut out[at..at + size as usize]).ok_or(block)?;
        at += size as usize;
    }
    Ok(())
}

/// The CRC-32 of a raw table's data: its body, then its overflow area.
fn raw_checksum(body: &[u8], overflow: &[u8]) -> u32 {
    let mut all = crc32fast::Hasher::new();
    all.combine(&crc32fast::Hasher::new_with_initial_len(checksum(body), body.len() as u64));
    all.update(overflow);
    all.finalize()
}

/// What the rules of a body are learnt from: all of a small body; of a large one, runs of
/// `SAMPLE_RUN` entries evenly spread, up to `SAMPLE_BYTES` in all. The same body gives the same
/// sample, so compressing a table twice gives the same bytes.
pub fn sample_of(body: &[u8], sample_bytes: usize) -> std::borrow::Cow<'_, [u8]> {
    if body.len() <= sample_bytes {
        return std::borrow::Cow::Borrowed(body);
    }
    let runs = body.len().div_ceil(SAMPLE_RUN);
    let step = (runs / sample_bytes.div_ceil(SAMPLE_RUN)).max(1);
    std::borrow::Cow::Owned(
        (0..runs)
            .step_by(step)
            .flat_map(|run| body[run * SAMPLE_RUN..((run + 1) * SAMPLE_RUN).min(body.len())].iter().copied())
            .collect(),
    )
}

/// Compresses the complete raw table `spec` of `index_size` entries in place (format version
/// 4): the whole table checked first, every block of the result decoded and compared with the
/// raw body before anything is written, written under the temporary name and renamed, so an
/// interruption leaves the raw table as it was. A table compressed already is left alone.
/// Returns the new header.
pub fn pack(spec: &FileSpec, index_size: u64) -> Result<Header, TableError> {
    let table = TableFile::open(spec, index_size, Check::Checksum)?;
    let raw = table.header().clone();
    if raw.packing.is_some() {
        return Ok(raw);
    }
    let (body, overflow) = table.raw_data().expect("a raw table checked whole");
    let code = PairCode::learn(&sample_of(body, SAMPLE_BYTES));
    let encoded = code.encode(body, BLOCK_BYTES as usize);
    let code_bytes = code.to_bytes();
    let mut header = Header {
        version: PACKED_VERSION,
        packing: Some(Packing {
            block_bytes: BLOCK_BYTES,
            code_len: code_bytes.len() as u32,
            blocks: encoded.entries.len() as u64,
            raw_checksum: raw.checksum,
        }),
        ..raw.clone()
    };
    let layout = Layout::of(&header).expect("the layout of a table just encoded");
    // Every block decodes to the raw body, before a byte is written.
    let mut first = 0u64;
    let mut groups = Vec::new();
    for (g, sizes) in encoded.entries.chunks(GROUP).enumerate() {
        let len = sizes.iter().sum::<u64>();
        groups.push((g * GROUP, sizes, &body[first as usize..(first + len) as usize]));
        first += len;
    }
    let faithful = first == index_size
        && groups.into_par_iter().all(|(g, sizes, expected)| {
            let mut out = vec![0u8; expected.len()];
            decode_group(&code, &encoded.bytes, BLOCK_BYTES as usize, g, sizes, &mut out).is_ok()
                && out == expected
        });
    if !faithful {
        return Err(TableError::Code { path: spec.path.clone(), why: "compressing did not keep the values" });
    }
    let index = BlockIndex::new(&encoded.entries);
    let pending = Pending::create(&spec.path)?;
    let data_len = layout.data_len;
    pending.reserve(HEADER_SIZE as u64 + data_len + checksum_area_len(data_len))?;
    // SAFETY: the temporary file is ours alone until it is renamed.
    let mut map = unsafe { MmapMut::map_mut(&pending.file) }.map_err(pending.error())?;
    {
        let data = &mut map[HEADER_SIZE..HEADER_SIZE + data_len as usize];
        let mut put =
            |at: u64, bytes: &[u8]| data[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
        put(0, &code_bytes);
        put(layout.sparse_at, &index.sparse_bytes());
        put(layout.sizes_at, &index.size_bytes());
        put(layout.blocks_at, &encoded.bytes);
        put(layout.overflow_at, overflow);
    }
    let data_end = HEADER_SIZE + data_len as usize;
    let blocks = block_checksums(&map[HEADER_SIZE..data_end]);
    map[data_end..].copy_from_slice(&checksum_area(&blocks));
    header.checksum = combined_checksum(&blocks, data_len);
    map[..HEADER_SIZE].copy_from_slice(&header.encode_as(FileKind::Table));
    map.flush().map_err(pending.error())?;
    drop(map);
    drop(table);
    pending.commit()?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use crate::table::blocks::BLOCK_SIZE;
    use crate::table::header::check_file;
    use crate::table::values::write_table;
    use crate::value::Value;

    /// Values with runs, a skewed distribution, long distances in the overflow area and proved
    /// outcomes of unknown distance.
    fn value_of(i: u64) -> Value {
        match (i / 37) % 11 {
            0..=3 => Value::Draw,
            4 | 5 => Value::Loss(2 * ((i / 500) % 4) as u32),
            6 => Value::Win(1 + 2 * (i % 3) as u32),
            7 => Value::Win((i % 400) as u32 | 1),
            8 if i.is_multiple_of(5) => Value::WinUnknown,
            9 if i.is_multiple_of(5) => Value::LossUnknown,
            _ => Value::Loss(0),
        }
    }

    fn raw_table(dir: &Path, size: u64) -> (FileSpec, Header, u32) {
        let spec = FileSpec::table(dir.join("t.tbl"), "test", "t".into());
        write_table::<_, TableError>(&spec, size, &Progress::hidden(), || (), |_, i| Ok((value_of(i), 1)))
            .unwrap();
        let (header, file_checksum) = check_file(&spec).unwrap();
        assert!(header.overflow_count > 0 && header.packing.is_none());
        (spec, header, file_checksum)
    }

    #[test]
    fn a_compressed_table_answers_as_the_raw_one() {
        let scratch = tempfile::tempdir().unwrap();
        let size = 2_500_001;
        let (spec, raw, raw_file) = raw_table(scratch.path(), size);
        let raw_len = std::fs::metadata(&spec.path).unwrap().len();
        let packed = pack(&spec, size).unwrap();
        assert_eq!(packed.version, PACKED_VERSION);
        assert_eq!((packed.counts, packed.overflow_count), (raw.counts, raw.overflow_count));
        assert_eq!(packed.packing.unwrap().raw_checksum, raw.checksum);
        let len = std::fs::metadata(&spec.path).unwrap().len();
        assert!(len * 2 < raw_len, "{len} bytes compressed, {raw_len} raw");
        // Compressing again changes nothing; the raw form is the raw file's header and length.
        assert_eq!(pack(&spec, size).unwrap(), packed);
        let (raw_header, length) = packed.raw_form(FileKind::Table);
        assert_eq!((raw_header, length), (raw.encode_as(FileKind::Table), raw_len));

        // Block by block, as a probe reads.
        let table = TableFile::open(&spec, size, Check::Header).unwrap();
        assert!(table.is_packed() && table.checked_codes().is_none());
        for i in (0..size).step_by(97).chain([0, 1, size - 1]) {
            assert_eq!(table.value(i).unwrap(), value_of(i), "entry {i}");
        }
        assert!(matches!(table.value(size), Err(TableError::Entry { .. })));
        // Whole, as a solver or verify reads: the raw file's checksum from the decoded values.
        table.check_checksum().unwrap();
        assert_eq!(table.raw_file_checksum(), Some(raw_file));
        let codes = table.checked_codes().unwrap();
        assert_eq!(codes.len() as u64, size);
        for i in 0..size {
            assert_eq!(table.value_of_code(i, codes[i as usize]).unwrap(), value_of(i));
        }
        let distances = table.distances().unwrap();
        assert_eq!(distances.draws, (0..size).filter(|&i| value_of(i) == Value::Draw).count() as u64);
    }

    #[test]
    fn damage_to_a_compressed_table_is_an_error_never_a_value() {
        let scratch = tempfile::tempdir().unwrap();
        let size = 400_000;
        let (spec, _, _) = raw_table(scratch.path(), size);
        let header = pack(&spec, size).unwrap();
        let layout = Layout::of(&header).unwrap();
        let clean = std::fs::read(&spec.path).unwrap();
        let data_len = layout.data_len as usize;
        // A byte of a block, of the block sizes, of the sparse index, of the code: each caught
        // by its checksum block; entries in other checksum blocks still answer.
        for at in [layout.blocks_at + 5 * 64 + 3, layout.sizes_at + 1, layout.sparse_at + 9, 4] {
            let mut bytes = clean.clone();
            bytes[HEADER_SIZE + at as usize] ^= 0x10;
            std::fs::write(&spec.path, &bytes).unwrap();
            assert!(TableFile::open(&spec, size, Check::Checksum).is_err(), "byte {at}");
            if let Ok(table) = TableFile::open(&spec, size, Check::Header) {
                for i in (0..size).step_by(13) {
                    match table.value(i) {
                        Ok(value) => assert_eq!(value, value_of(i), "entry {i}, byte {at} damaged"),
                        Err(e) => assert!(e.is_damage(), "{e}"),
                    }
                }
            }
        }
        // Damage under valid checksums (a block's bits changed and every checksum made to
        // match, the raw checksum left): decoding whole finds it.
        let mut bytes = clean.clone();
        let block = HEADER_SIZE + layout.blocks_at as usize + 64 * 7;
        bytes[block..block + 64].fill(0xff);
        crate::table::blocks::reseal(&mut bytes, data_len);
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(TableFile::open(&spec, size, Check::Checksum).is_err());
        // A header whose code length runs past the data: refused before anything is read.
        let mut bytes = clean.clone();
        bytes[132..136].copy_from_slice(&u32::MAX.to_le_bytes());
        let sum = crc32fast::hash(&bytes[..HEADER_SIZE - 4]);
        bytes[HEADER_SIZE - 4..HEADER_SIZE].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(TableFile::open(&spec, size, Check::Header).is_err());
        assert_eq!(BLOCK_SIZE % BLOCK_BYTES as usize, 0, "a block never crosses a checksum block");
    }

    #[test]
    fn an_empty_table_compresses() {
        let scratch = tempfile::tempdir().unwrap();
        let spec = FileSpec::table(scratch.path().join("e.tbl"), "test", "e".into());
        write_table::<_, TableError>(&spec, 0, &Progress::hidden(), || (), |_, _| Ok((Value::Draw, 1)))
            .unwrap();
        let header = pack(&spec, 0).unwrap();
        assert_eq!(header.packing.unwrap().blocks, 0);
        let table = TableFile::open(&spec, 0, Check::Checksum).unwrap();
        assert!(table.value(0).is_err());
        assert_eq!(table.checked_codes(), Some(&[][..]));
    }
}
