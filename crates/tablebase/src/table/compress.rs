//! Compressing a complete raw value table or set in place (format version 4, docs/FORMAT.md):
//! what `generate` does to each file once no later job reads it raw.

use super::atomic::Pending;
use super::blocks::{block_checksums, checksum_area, checksum_area_len, combined_checksum};
use super::error::TableError;
use super::format::{HEADER_SIZE, PACKED_VERSION};
use super::header::{Check, FileKind, FileSpec, Header};
use super::layout::Packing;
use super::packed::{decode_blocks, rank_records};
use super::pairs::{EncodedBlocks, MAX_BLOCK_ENTRIES, PairCode, RecordBuilder};
use super::set::SetFile;
use super::values::TableFile;
use memmap2::Mmap;
use rayon::prelude::*;
use std::os::unix::fs::FileExt;

/// Bits a compressed block is made to hold, about: one cache line, so that a lookup reads one or
/// two lines of its block and decodes half of that (docs/BENCHMARKS.md, "Compressed tables").
const BLOCK_BITS: f64 = 512.0;
/// Entries of a block at least: below, the records (64 bytes per 28 blocks) and the padding
/// of each block to a byte cost more than the shorter decoding saves.
const FEWEST_BLOCK_ENTRIES: u64 = 64;
/// The rules are learnt from runs of this many entries spread over the body ...
const SAMPLE_RUN: usize = 64 << 10;
/// ... up to this many entries in all (a body this small is learnt from whole).
const SAMPLE_BYTES: usize = 16 << 20;

/// Memory that compressing a table beside the jobs holds, for the estimates of a run, where
/// the largest file compressed holds `entries`: the rules learnt from a sample of at most
/// `SAMPLE_BYTES` entries as 16-bit symbols, a few copies of it (measured: about 90 MB beside
/// the Lasker 5-stone jobs, compressing the 31 MB class 5-5), and one batch of encoded blocks,
/// at most as many bytes as the 64 MiB of entries they stand for (a file that does not get
/// smaller is left raw). A smaller body is its own sample and its own batch, so a run of small
/// tables holds a few megabytes, not 200. A set's rank records come on top, 64 bytes per 28
/// blocks (about 45 MB for a set of 10 GB); the rest goes to the file as it is made.
pub fn packing_memory(entries: u64) -> u64 {
    8 * entries.min(SAMPLE_BYTES as u64) + entries.min(super::pairs::BATCH_ENTRIES as u64)
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
/// raw body before it is written, the file written under the temporary name and renamed, so an
/// interruption or an error leaves the raw table as it was. A table compressed already is left
/// alone, and so is one that compressing would not make smaller. Returns the header of the file
/// now there.
pub fn pack(spec: &FileSpec, index_size: u64) -> Result<Header, TableError> {
    let table = TableFile::open(spec, index_size, Check::Checksum)?;
    let raw = table.header().clone();
    if raw.packing.is_some() {
        return Ok(raw);
    }
    let (body, overflow) = table.raw_data().expect("a raw table checked whole");
    let written = write_packed(spec, FileKind::Table, &raw, body, overflow)?;
    drop(table);
    written.commit()
}

/// Compresses the complete raw set `spec` in place (format version 4): its words, as bytes, in
/// blocks of the pair code, with rank records; otherwise as [`pack`] does a table.
pub fn pack_set(spec: &FileSpec) -> Result<Header, TableError> {
    let set = SetFile::open(spec, Check::Checksum)?;
    let raw = set.header().clone();
    if raw.packing.is_some() {
        return Ok(raw);
    }
    let words = set.checked_word_bytes().expect("a raw set checked whole");
    let written = write_packed(spec, FileKind::Set, &raw, words, &[])?;
    drop(set);
    written.commit()
}

/// A compressed file written under its temporary name, and its header: [`Written::commit`]
/// renames it over the raw file once that is closed. A file that compressing would not make
/// smaller is not written, and the raw file's header is kept.
enum Written {
    Pending(Pending, Header),
    LeftRaw(Header),
}

impl Written {
    fn commit(self) -> Result<Header, TableError> {
        match self {
            Written::Pending(pending, header) => pending.commit().map(|()| header),
            Written::LeftRaw(header) => Ok(header),
        }
    }
}

/// Learns a code from the body of the raw file `raw` of `kind` (a table's bytes, or a set's
/// words), encodes it, checks that every block decodes to the body, and writes the compressed
/// file under the temporary name: the code, the block records, a set's rank records, the
/// blocks and a table's `overflow` area, then the block checksums and the header.
///
/// The blocks go to the file a batch at a time, each batch checked before it is written, so
/// compressing holds one batch and the records, not the compressed file: a set of 10 GB
/// compressed beside the forward pass of Connect Four 7x5 held 1.5 GB of blocks, twice over,
/// before this. Where the blocks start does not depend on their length (the code and the
/// records come first), so they can be written before their length is known.
fn write_packed(
    spec: &FileSpec,
    kind: FileKind,
    raw: &Header,
    body: &[u8],
    overflow: &[u8],
) -> Result<Written, TableError> {
    let (code, bits_an_entry) = PairCode::learn_estimating(&sample_of(body, SAMPLE_BYTES), MAX_BLOCK_ENTRIES);
    let block_entries = block_entries_for(bits_an_entry);
    let code_bytes = code.to_bytes();
    let header_for = |blocks_len: u64| Header {
        version: PACKED_VERSION,
        packing: Some(Packing {
            block_entries: block_entries as u32,
            code_len: code_bytes.len() as u32,
            blocks_len,
            raw_checksum: raw.checksum,
        }),
        ..raw.clone()
    };
    let layout_for =
        |header: &Header| super::packed::layout_of(header, kind).expect("the layout of a file being encoded");
    // The shortest the blocks can be (a byte each) places them as well as their real length.
    let blocks = (body.len() as u64).div_ceil(block_entries);
    let placed = layout_for(&header_for(blocks));
    let blocks_at = placed.blocks_at;
    let raw_len = raw.file_length(kind);
    let pending = Pending::create(&spec.path)?;
    let mut records = FileRegion::new(&pending, placed.records_at);
    let mut blocks_out = FileRegion::new(&pending, blocks_at);
    let mut builder = RecordBuilder::default();
    let (mut blocks_len, mut blocks_written, mut entries_done) = (0u64, 0u64, 0u64);
    let streamed = code.encode_batches(body, block_entries, |batch| {
        let kept = batch.par_iter().all(|(chunk, part)| decodes_to(&code, part, block_entries, chunk));
        if !kept {
            return Err(Stop::Failed(TableError::Code {
                path: spec.path.clone(),
                why: "compressing did not keep the data",
            }));
        }
        for (chunk, part) in &batch {
            blocks_out.write(&part.bytes).map_err(Stop::Failed)?;
            for &end in &part.ends {
                if let Some(record) = builder.push(blocks_len + end) {
                    records.write(&record).map_err(Stop::Failed)?;
                }
            }
            blocks_len += part.bytes.len() as u64;
            blocks_written += part.ends.len() as u64;
            entries_done += chunk.len() as u64;
        }
        // A tiny or incompressible file: the code and the index would outweigh what they save.
        if HEADER_SIZE as u64 + blocks_at + blocks_len >= raw_len {
            return Err(Stop::NotSmaller);
        }
        Ok(())
    });
    let needed = || {
        // Where the disk filled up: the file's length as far as the blocks written tell.
        let share = entries_done.max(1) as f64 / body.len().max(1) as f64;
        let blocks_len = (blocks_len as f64 / share) as u64;
        let data_len = layout_for(&header_for(blocks_len.max(blocks))).data_len;
        HEADER_SIZE as u64 + data_len + checksum_area_len(data_len)
    };
    match streamed {
        Ok(()) => {}
        Err(Stop::NotSmaller) => return Ok(Written::LeftRaw(raw.clone())),
        Err(Stop::Failed(e)) => return Err(no_space_as_such(e, needed())),
    }
    let mut header = header_for(blocks_len);
    let layout = layout_for(&header);
    let packed_len = HEADER_SIZE as u64 + layout.data_len + checksum_area_len(layout.data_len);
    if packed_len >= raw_len {
        return Ok(Written::LeftRaw(raw.clone()));
    }
    if layout.blocks != blocks_written {
        return Err(TableError::Code { path: spec.path.clone(), why: "compressing did not keep the data" });
    }
    let finish = || -> Result<(), TableError> {
        if let Some(record) = builder.finish() {
            records.write(&record)?;
        }
        records.flush()?;
        blocks_out.flush()?;
        write_data_at(&pending, layout.overflow_at, overflow)?;
        if kind == FileKind::Set {
            write_data_at(&pending, layout.ranks_at, &rank_records(body, layout.block_shift))?;
        }
        write_data_at(&pending, 0, &code_bytes)?;
        // Zeros to the end of the checksum area: the records' padding and the file's length.
        pending.file.set_len(packed_len).map_err(pending.error())?;
        // SAFETY: the temporary file is ours alone until it is renamed; only read here.
        let map = unsafe { Mmap::map(&pending.file) }.map_err(pending.error())?;
        let data_end = HEADER_SIZE + layout.data_len as usize;
        let block_sums = block_checksums(&map[HEADER_SIZE..data_end]);
        drop(map);
        write_data_at(&pending, layout.data_len, &checksum_area(&block_sums))?;
        header.checksum = combined_checksum(&block_sums, layout.data_len);
        pending.file.write_all_at(&header.encode_as(kind), 0).map_err(pending.error())
    };
    finish().map_err(|e| no_space_as_such(e, packed_len))?;
    Ok(Written::Pending(pending, header))
}

/// Why streaming the blocks stopped.
enum Stop {
    /// The compressed file would be no smaller than the raw one.
    NotSmaller,
    Failed(TableError),
}

/// A full disk met while writing a compressed file, as [`TableError::NoSpace`] with the bytes
/// the file needs (`needed`); any other error as it is.
fn no_space_as_such(error: TableError, needed: u64) -> TableError {
    match error {
        TableError::Io { path, source } if source.kind() == std::io::ErrorKind::StorageFull => {
            super::atomic::no_space(&path, needed)
        }
        e => e,
    }
}

/// A part of the data of a file being written, written in order from its start through a
/// buffer: the records and the blocks are made together and lie apart.
struct FileRegion<'a> {
    pending: &'a Pending,
    /// Where the next byte goes, from the start of the data.
    at: u64,
    buffer: Vec<u8>,
}

impl<'a> FileRegion<'a> {
    /// Bytes buffered before they are written.
    const BUFFER: usize = 1 << 20;

    fn new(pending: &'a Pending, at: u64) -> FileRegion<'a> {
        FileRegion { pending, at, buffer: Vec::with_capacity(Self::BUFFER) }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), TableError> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= Self::BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), TableError> {
        write_data_at(self.pending, self.at, &self.buffer)?;
        self.at += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }
}

/// Writes `bytes` at data offset `at` of the file being written.
fn write_data_at(pending: &Pending, at: u64, bytes: &[u8]) -> Result<(), TableError> {
    pending.file.write_all_at(bytes, HEADER_SIZE as u64 + at).map_err(pending.error())
}

/// Whether the blocks of `part` decode to `chunk`, the entries they were made from: each batch
/// is checked before a byte of it is written.
fn decodes_to(code: &PairCode, part: &EncodedBlocks, block_entries: u64, chunk: &[u8]) -> bool {
    let mut out = vec![0u8; chunk.len()];
    let shift = block_entries.trailing_zeros();
    part.ends.len() as u64 == (chunk.len() as u64).div_ceil(block_entries)
        && decode_blocks(code, &part.bytes, &part.ends, 0, shift, &mut out).is_ok()
        && out == chunk
}

/// The entries of a block for a code of `bits_an_entry` bits an entry: the power of two that
/// makes the block nearest [`BLOCK_BITS`], from [`FEWEST_BLOCK_ENTRIES`] to [`MAX_BLOCK_ENTRIES`].
fn block_entries_for(bits_an_entry: f64) -> u64 {
    let ideal = BLOCK_BITS / bits_an_entry.max(f64::MIN_POSITIVE);
    let power =
        ideal.log2().round().clamp(FEWEST_BLOCK_ENTRIES.ilog2() as f64, MAX_BLOCK_ENTRIES.ilog2() as f64);
    1 << power as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use crate::table::format::HEADER_SIZE;
    use crate::table::header::check_file;
    use crate::table::set::Words;
    use crate::table::values::write_table;
    use crate::value::Value;
    use std::path::Path;

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
        // Decoded into a scratch file, as a large table is: the same values.
        let in_scratch =
            crate::table::scratch::with_scratch_above(0, || TableFile::open(&spec, size, Check::Checksum))
                .unwrap();
        assert!(in_scratch.is_decoded_in_scratch() && !table.is_decoded_in_scratch());
        assert_eq!(in_scratch.raw_file_checksum(), Some(raw_file));
        assert_eq!(in_scratch.checked_codes(), Some(codes));
        // Opened for probing, a table this small is read block by block until it has been read
        // once for every 128 entries, then decoded whole: the same values before and after.
        let probing = TableFile::open(&spec, size, Check::Probing).unwrap();
        for (read, i) in (0..size).step_by(61).enumerate() {
            assert_eq!(probing.checked_codes().is_some(), read as u64 >= size / 128, "read {read}");
            assert_eq!(probing.value(i).unwrap(), value_of(i), "entry {i}");
        }
        assert_eq!(probing.checked_codes(), Some(codes));
    }

    #[test]
    fn damage_to_a_compressed_table_is_an_error_never_a_value() {
        let scratch = tempfile::tempdir().unwrap();
        let size = 400_000;
        let (spec, _, _) = raw_table(scratch.path(), size);
        let header = pack(&spec, size).unwrap();
        let layout = super::super::packed::layout_of(&header, FileKind::Table).unwrap();
        let clean = std::fs::read(&spec.path).unwrap();
        let data_len = layout.data_len as usize;
        // A byte of a block, of a record's block end, of a record's offset, of the code: each
        // caught by its checksum block; entries in other checksum blocks still answer.
        for at in [layout.blocks_at + 5 * 64 + 3, layout.records_at + 64 + 9, layout.records_at + 1, 4] {
            let mut bytes = clean.clone();
            bytes[HEADER_SIZE + at as usize] ^= 0x10;
            std::fs::write(&spec.path, &bytes).unwrap();
            assert!(TableFile::open(&spec, size, Check::Checksum).is_err(), "byte {at}");
            // Opened for probing, a table this small is decoded whole once read often: where a
            // block fails, it goes on block by block, as with `Check::Header`.
            for check in [Check::Probing, Check::Header] {
                let Ok(table) = TableFile::open(&spec, size, check) else { continue };
                let mut answered = 0;
                for i in (0..size).step_by(13) {
                    match table.value(i) {
                        Ok(value) => assert_eq!(value, value_of(i), "entry {i}, byte {at} damaged"),
                        Err(e) => assert!(e.is_damage(), "{e}"),
                    }
                    answered += usize::from(table.value(i).is_ok());
                }
                assert!(answered > 0, "byte {at}: nothing answered with {check:?}");
                assert!(table.checked_codes().is_none(), "byte {at}: not decoded whole");
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
        // Read for probing, it is refused from the read that decodes it whole on.
        let probing = TableFile::open(&spec, size, Check::Probing).unwrap();
        let refused = (0..size).position(|i| probing.value(i).is_err_and(|e| e.is_damage())).unwrap();
        assert!(refused as u64 >= size / 128 - 1, "refused at read {refused}");
        assert!((0..size).step_by(7).all(|i| probing.value(i).is_err()));
        // So is a record that moves its blocks, or makes one empty: lookups give an error or a
        // value, never a panic.
        for (at, change) in [(8 + 2 * 3, 1u8), (0, 16), (8 + 2 * 5, 0xff)] {
            let mut bytes = clean.clone();
            bytes[HEADER_SIZE + layout.records_at as usize + 64 * 2 + at] ^= change;
            crate::table::blocks::reseal(&mut bytes, data_len);
            std::fs::write(&spec.path, &bytes).unwrap();
            assert!(TableFile::open(&spec, size, Check::Checksum).is_err(), "record byte {at}");
            let table = TableFile::open(&spec, size, Check::Header).unwrap();
            for i in (0..size).step_by(11) {
                let _ = table.value(i);
            }
        }
        // A header whose code length runs past the data: refused before anything is read.
        let mut bytes = clean.clone();
        bytes[132..136].copy_from_slice(&u32::MAX.to_le_bytes());
        let sum = crc32fast::hash(&bytes[..HEADER_SIZE - 4]);
        bytes[HEADER_SIZE - 4..HEADER_SIZE].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(TableFile::open(&spec, size, Check::Header).is_err());
    }

    #[test]
    fn every_entry_answers_block_by_block_without_an_overflow_area() {
        // The data ends with the last block: a lookup there must not read past it.
        let scratch = tempfile::tempdir().unwrap();
        let spec = FileSpec::table(scratch.path().join("n.tbl"), "test", "n".into());
        let value =
            |i: u64| if (i / 7).is_multiple_of(3) { Value::Draw } else { Value::Loss(2 * (i % 5) as u32) };
        for size in [5_000u64, 77_777] {
            write_table::<_, TableError>(&spec, size, &Progress::hidden(), || (), |_, i| Ok((value(i), 1)))
                .unwrap();
            let header = pack(&spec, size).unwrap();
            assert!(header.packing.is_some() && header.overflow_count == 0);
            let table = TableFile::open(&spec, size, Check::Header).unwrap();
            for i in 0..size {
                assert_eq!(table.value(i).unwrap(), value(i), "entry {i} of {size}");
            }
        }
    }

    #[test]
    fn a_table_that_would_not_get_smaller_stays_raw() {
        let scratch = tempfile::tempdir().unwrap();
        // Distances spread evenly over 253 codes, at random: 8 bits an entry in any code, and
        // the code and the records on top. Three chunks, so three batches in a unit test, each
        // written to the temporary file before the whole is found no smaller.
        let size = 3 << 20;
        let spec = FileSpec::table(scratch.path().join("t.tbl"), "test", "t".into());
        let random = |i: u64| {
            let n = crate::rng::SplitMix64::new(i).below(253) as u32;
            if n % 2 == 1 { Value::Win(n) } else { Value::Loss(n) }
        };
        write_table::<_, TableError>(&spec, size, &Progress::hidden(), || (), |_, i| Ok((random(i), 1)))
            .unwrap();
        let raw = std::fs::read(&spec.path).unwrap();
        let header = pack(&spec, size).unwrap();
        assert_eq!((header.version, header.packing), (3, None));
        assert_eq!(std::fs::read(&spec.path).unwrap(), raw, "the raw file as it was");
        let names: Vec<_> =
            std::fs::read_dir(scratch.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["t.tbl"], "no temporary file left");
        let table = TableFile::open(&spec, size, Check::Checksum).unwrap();
        for i in (0..size).step_by(4099) {
            assert_eq!(table.value(i).unwrap(), random(i));
        }
    }

    /// A set with stretches empty, full, dense and sparse, and its members in order.
    fn raw_set(dir: &Path, capacity: u64) -> (FileSpec, Vec<u64>) {
        let spec = FileSpec::set(dir.join("s.set"), "test", "s".into());
        let members = crate::layered::BitSet::new(capacity);
        let mut list = Vec::new();
        for i in 0..capacity {
            let member = match (i / 50_000) % 7 {
                0 => false,
                1 => true,
                2 => (i * 2_654_435_761) % 13 < 3,
                3 => (i % 700) < 9 || (i / 64) % 5 == 1,
                4 => (i * 40_503) % 1_000 == 0,
                _ => (i % 3 == 0) != ((i / 333) % 2 == 0),
            };
            if member {
                members.insert(i);
                list.push(i);
            }
        }
        crate::table::set::write_set(&spec, capacity, &members).unwrap();
        (spec, list)
    }

    #[test]
    fn a_compressed_set_ranks_as_the_raw_one() {
        let scratch = tempfile::tempdir().unwrap();
        let capacity = 1_234_567;
        let (spec, members) = raw_set(scratch.path(), capacity);
        let raw_len = std::fs::metadata(&spec.path).unwrap().len();
        let (raw, raw_file) = check_file(&spec).unwrap();
        let packed = pack_set(&spec).unwrap();
        assert_eq!(packed.version, PACKED_VERSION);
        assert_eq!((packed.counts, packed.index_size), (raw.counts, raw.index_size));
        assert_eq!(packed.packing.unwrap().raw_checksum, raw.checksum);
        let len = std::fs::metadata(&spec.path).unwrap().len();
        assert!(len * 2 < raw_len, "{len} bytes compressed, {raw_len} raw");
        assert_eq!(pack_set(&spec).unwrap(), packed, "compressing again changes nothing");
        assert_eq!(packed.raw_form(FileKind::Set), (raw.encode_as(FileKind::Set), raw_len));

        // Index by index, as a probe reads: rank from the rank records and one block.
        let set = SetFile::open(&spec, Check::Header).unwrap();
        assert!(set.is_packed() && set.checked_ranks().is_none());
        let mut next = 0usize;
        for i in 0..capacity + 70 {
            let expected = (members.get(next) == Some(&i)).then_some(next as u64);
            assert_eq!(set.rank(i).unwrap(), expected, "index {i}");
            next += usize::from(expected.is_some());
        }
        assert_eq!(next, members.len());
        assert_eq!(set.len(), members.len() as u64);
        // Select and the walk to the next member decode the set whole on first use.
        for &rank in &[0u64, 1, 77_777, members.len() as u64 - 1] {
            assert_eq!(set.select(rank).unwrap(), Some(members[rank as usize]));
        }
        assert_eq!(set.select(members.len() as u64).unwrap(), None);
        assert_eq!(set.next_member(members[500] + 1).unwrap(), Some(members[501]));
        // Whole, as a solver or verify reads: the raw data and the raw file's checksum.
        let set = SetFile::open(&spec, Check::Checksum).unwrap();
        assert_eq!(set.raw_file_checksum(), Some(raw_file));
        let ranks = set.checked_ranks().unwrap();
        let words = set.words().unwrap();
        for &m in members.iter().step_by(101) {
            assert_eq!(words.word((m / 64) as usize) >> (m % 64) & 1, 1);
            assert_eq!(ranks.rank(m), set.rank(m).unwrap());
        }
        // Decoded into a scratch file, as a large set is: the same data.
        let in_scratch =
            crate::table::scratch::with_scratch_above(0, || SetFile::open(&spec, Check::Checksum)).unwrap();
        assert!(in_scratch.is_decoded_in_scratch() && !set.is_decoded_in_scratch());
        assert_eq!(in_scratch.raw_file_checksum(), Some(raw_file));
        assert_eq!(in_scratch.checked_word_bytes(), set.checked_word_bytes());
        // Opened for probing, a set this small is decoded whole once read often: the same ranks.
        let probing = SetFile::open(&spec, Check::Probing).unwrap();
        assert!(probing.checked_word_bytes().is_none());
        for i in (0..capacity).step_by(3) {
            assert_eq!(probing.rank(i).unwrap(), set.rank(i).unwrap(), "index {i}");
        }
        assert_eq!(probing.checked_word_bytes(), set.checked_word_bytes());
        for &m in members.iter().step_by(97) {
            assert_eq!(in_scratch.rank(m).unwrap(), set.rank(m).unwrap());
        }
    }

    #[test]
    fn damage_to_a_compressed_set_is_an_error_never_a_rank() {
        let scratch = tempfile::tempdir().unwrap();
        let capacity = 700_001;
        let (spec, members) = raw_set(scratch.path(), capacity);
        let header = pack_set(&spec).unwrap();
        let layout = super::super::packed::layout_of(&header, FileKind::Set).unwrap();
        let clean = std::fs::read(&spec.path).unwrap();
        let rank_of = |i: u64| members.binary_search(&i).ok().map(|r| r as u64);
        // A byte of a block, of a block record, of a rank record, of the code: each caught by
        // its checksum block; indices in other checksum blocks still answer right.
        for at in [layout.blocks_at + 9 * 64 + 5, layout.records_at + 64 + 9, layout.ranks_at + 64 + 3, 4] {
            let mut bytes = clean.clone();
            bytes[HEADER_SIZE + at as usize] ^= 0x10;
            std::fs::write(&spec.path, &bytes).unwrap();
            assert!(SetFile::open(&spec, Check::Checksum).is_err(), "byte {at}");
            // Read for probing, often enough to be decoded whole were it sound: block by block,
            // answering what a set opened with `Check::Header` answers.
            if let (Ok(probing), Ok(header)) = (SetFile::open(&spec, Check::Probing), SetFile::open(&spec, Check::Header)) {
                for i in (0..capacity).step_by(7) {
                    match probing.rank(i) {
                        Ok(rank) => assert_eq!(rank, rank_of(i), "index {i}, byte {at} damaged"),
                        Err(e) => assert!(e.is_damage(), "{e}"),
                    }
                    assert_eq!(probing.rank(i).ok(), header.rank(i).ok(), "index {i}, byte {at} damaged");
                }
                assert!(probing.checked_word_bytes().is_none(), "byte {at}: not decoded whole");
            }
        }
        // Rank records that miscount, under checksums made to match: decoding whole finds it,
        // and a set read for probing is refused from the read that decodes it on.
        let mut bytes = clean.clone();
        bytes[HEADER_SIZE + layout.ranks_at as usize + 64 + 10] ^= 1;
        crate::table::blocks::reseal(&mut bytes, layout.data_len as usize);
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(SetFile::open(&spec, Check::Checksum).is_err());
        let probing = SetFile::open(&spec, Check::Probing).unwrap();
        let refused = (0..capacity).position(|i| probing.rank(i).is_err_and(|e| e.is_damage())).unwrap();
        assert!(refused as u64 >= crate::table::format::set_data_len(capacity) / 128 - 1, "refused at read {refused}");
        assert!((0..capacity).step_by(7).all(|i| probing.rank(i).is_err()));
    }

    /// Bytes of `clean` (a compressed file whose data is `data_len` bytes, the code first, up to
    /// `records_at`) changed at random, a few at a time, and every checksum made to match, as a
    /// hostile writer would: `check` is given each such file.
    fn forge_each(clean: &[u8], data_len: usize, records_at: usize, seed: u64, mut check: impl FnMut(&[u8])) {
        let mut rng = crate::rng::SplitMix64::new(seed);
        for _ in 0..150 {
            let mut bytes = clean.to_vec();
            for _ in 0..1 + rng.below(3) {
                // Half of the changes in the code, which everything else is read through.
                let at = match rng.below(2) {
                    0 => rng.below(records_at as u64),
                    _ => rng.below(data_len as u64),
                } as usize;
                bytes[HEADER_SIZE + at] ^= 1 + rng.below(255) as u8;
            }
            crate::table::blocks::reseal(&mut bytes, data_len);
            check(&bytes);
        }
    }

    #[test]
    fn forged_damage_is_never_a_panic_nor_a_wrong_table_decoded_whole() {
        let scratch = tempfile::tempdir().unwrap();
        let size = 60_000;
        let (spec, _, _) = raw_table(scratch.path(), size);
        let header = pack(&spec, size).unwrap();
        let layout = super::super::packed::layout_of(&header, FileKind::Table).unwrap();
        let clean = std::fs::read(&spec.path).unwrap();
        let (mut refused, mut opened) = (0, 0);
        forge_each(&clean, layout.data_len as usize, layout.records_at as usize, 11, |bytes| {
            std::fs::write(&spec.path, bytes).unwrap();
            // A lookup may read a forged block's bits as other values: only decoding whole
            // compares them with the raw checksum. It must not panic or loop.
            if let Ok(table) = TableFile::open(&spec, size, Check::Header) {
                for i in (0..size).step_by(37) {
                    let _ = table.value(i);
                }
            }
            match TableFile::open(&spec, size, Check::Checksum) {
                Ok(table) => {
                    opened += 1;
                    for i in (0..size).step_by(7) {
                        assert_eq!(table.value(i).unwrap(), value_of(i), "entry {i} of a table that opened");
                    }
                }
                Err(e) => {
                    refused += 1;
                    assert!(e.is_damage(), "{e}");
                }
            }
        });
        // Most changes alter what the file decodes to; a few fall in padding or unused lengths.
        assert!(refused > 100, "{refused} refused, {opened} opened");

        let capacity = 200_001;
        let (spec, members) = raw_set(scratch.path(), capacity);
        let header = pack_set(&spec).unwrap();
        let layout = super::super::packed::layout_of(&header, FileKind::Set).unwrap();
        let clean = std::fs::read(&spec.path).unwrap();
        let rank_of = |i: u64| members.binary_search(&i).ok().map(|r| r as u64);
        let mut refused = 0;
        forge_each(&clean, layout.data_len as usize, layout.records_at as usize, 12, |bytes| {
            std::fs::write(&spec.path, bytes).unwrap();
            if let Ok(set) = SetFile::open(&spec, Check::Header) {
                for i in (0..capacity).step_by(41) {
                    let _ = set.rank(i);
                }
            }
            match SetFile::open(&spec, Check::Checksum) {
                Ok(set) => {
                    for i in (0..capacity).step_by(13) {
                        assert_eq!(set.rank(i).unwrap(), rank_of(i), "index {i} of a set that opened");
                    }
                }
                Err(e) => {
                    refused += 1;
                    assert!(e.is_damage(), "{e}");
                }
            }
        });
        assert!(refused > 100, "{refused} refused");
    }

    #[test]
    fn blocks_are_made_about_a_cache_line() {
        let chosen: Vec<u64> = [0.0, 0.5, 1.0, 2.0, 2.8, 2.9, 4.0, 8.0, 16.0]
            .iter()
            .map(|&bits| block_entries_for(bits))
            .collect();
        assert_eq!(chosen, [512, 512, 512, 256, 256, 128, 128, 64, 64]);
    }

    #[test]
    fn a_table_too_small_to_gain_stays_raw() {
        let scratch = tempfile::tempdir().unwrap();
        let spec = FileSpec::table(scratch.path().join("e.tbl"), "test", "e".into());
        write_table::<_, TableError>(&spec, 0, &Progress::hidden(), || (), |_, _| Ok((Value::Draw, 1)))
            .unwrap();
        let raw = std::fs::read(&spec.path).unwrap();
        let header = pack(&spec, 0).unwrap();
        assert!(header.packing.is_none());
        assert_eq!(std::fs::read(&spec.path).unwrap(), raw, "left as it was");
        let table = TableFile::open(&spec, 0, Check::Checksum).unwrap();
        assert!(table.value(0).is_err());
        assert_eq!(table.checked_codes(), Some(&[][..]));
    }
}
