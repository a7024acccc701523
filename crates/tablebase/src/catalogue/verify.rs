//! `verify`, once for every game: headers, checksums, reference counts and every value
//! recomputed, for every table asked about, carrying on past missing and damaged ones.

use super::{Catalogue, Journal, TableParts, Variant};
use crate::progress::Progress;
use crate::solve::CheckedParts;
use crate::table::{
    Check, Counts, FileKind, FileSpec, Header, SetFile, Status, TableError, TableFile, check_file,
};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What `verify` found for one table that is on disk. Serialized as one object of `verify
/// --json` (docs/CLI.md, "JSON"): a table whose files fail their checksums is `damaged`, its
/// counts null, for the counts in a header beside damaged bytes are not to be reported as the
/// table's.
#[derive(Clone, Debug, Serialize)]
#[serde(into = "VerifyLine")]
pub struct TableReport {
    /// The game, `morris`.
    pub game: &'static str,
    /// The variant whose table it is: its settings tell rows of different variants apart.
    pub variant: Variant,
    /// The class (`8-7`) or layer (`ply 12`).
    pub table: String,
    /// The counts in its header.
    pub counts: Counts,
    /// Whether its file (and its set, for a layer) has the checksum its header says.
    pub checksum_ok: bool,
    /// `None` when values were not recomputed (`--quick`, a bad checksum, a table it depends
    /// on missing).
    pub consistent: Option<bool>,
    /// The values were recomputed by an earlier verify of the same files (`--resume`), not
    /// by this one.
    pub from_journal: bool,
    /// `None` when the reference has no figures for the table.
    pub reference_match: Option<bool>,
    /// Whether its files' checksums equal those the project publishes
    /// (tables/reference/published-checksums.tsv); `None` where they are not listed.
    pub published: Option<bool>,
    /// Recomputing the values failed (a damaged table it reads, a position without its
    /// successor): the table is not shown to be right.
    pub recompute_failed: bool,
    /// What is wrong, one line each, for standard error.
    pub problems: Vec<String>,
}

/// `match`, `mismatch` or `none`.
fn match_word(matched: Option<bool>) -> &'static str {
    match matched {
        Some(true) => "match",
        Some(false) => "mismatch",
        None => "none",
    }
}

/// The longest win and loss of a header's counts, `None` where there is none or none is known.
/// A win takes at least a ply, so wins counted with a longest win of 0 are wins whose distances
/// are all unknown (an opening book's proved outcomes); a loss can take 0 plies (the game is
/// over), so only a table without losses has no longest loss.
pub(crate) fn longest(counts: &Counts) -> (Option<u32>, Option<u32>) {
    let win = (counts.win > 0 && counts.max_win > 0).then_some(counts.max_win);
    let loss = (counts.loss > 0).then_some(counts.max_loss);
    (win, loss)
}

/// The longest distances for people, as `info` and `verify` write them (`longest win 17 loss
/// 16`): `?` for wins counted whose distances are all unknown, `-` where there are none (JSON's
/// null), so that a real 0 (a loss at once) reads apart from none.
pub(crate) fn longest_text(counts: &Counts) -> (String, String) {
    let (win, loss) = longest(counts);
    let win = match win {
        Some(plies) => plies.to_string(),
        None if counts.win > 0 => "?".to_string(),
        None => "-".to_string(),
    };
    (win, loss.map_or("-".to_string(), |plies| plies.to_string()))
}

impl TableReport {
    /// Whether the table failed a check: exit 3.
    pub fn failed(&self) -> bool {
        !self.checksum_ok
            || self.consistent == Some(false)
            || self.reference_match == Some(false)
            || self.published == Some(false)
            || self.recompute_failed
    }

    fn checksum_word(&self) -> &'static str {
        if self.checksum_ok { "ok" } else { "bad" }
    }

    fn reference_word(&self) -> &'static str {
        match_word(self.reference_match)
    }

    /// One line for people.
    pub fn text(&self) -> String {
        if !self.checksum_ok {
            return format!("{:<16} DAMAGED", self.table);
        }
        let c = &self.counts;
        let consistent = match self.consistent {
            Some(true) if self.from_journal => "consistent (journal)",
            Some(true) => "consistent",
            Some(false) => "INCONSISTENT",
            None => "not recomputed",
        };
        let (max_win, max_loss) = longest_text(c);
        format!(
            "{:<16} {:>11} positions  win {:>11} loss {:>11} draw {:>11}  longest win {max_win:>3} loss {max_loss:>3}  checksum {}  {consistent}  reference {}  published {}",
            self.table,
            c.positions(),
            c.win,
            c.loss,
            c.draw,
            self.checksum_word(),
            self.reference_word(),
            match_word(self.published)
        )
    }
}

/// What `verify` says about one table. Serialized as one object of `verify --json`: for a
/// table that is not there or cannot be read, its counts are `null` and `status` says why.
#[derive(Clone, Debug, Serialize)]
#[serde(into = "VerifyLine")]
pub enum TableOutcome {
    /// The table is there and was checked.
    Checked(TableReport),
    /// The file (or its set) is not there, or only partly written.
    Missing {
        /// The game, `morris`.
        game: &'static str,
        /// The variant whose table it is.
        variant: Variant,
        /// The table, `8-7` or `ply 12`.
        table: String,
        /// The file that is missing.
        path: PathBuf,
        /// Whether a run of `generate` started it (status `partial`) rather than none (`missing`).
        partial: bool,
    },
    /// The file is complete but written by an older format version: `generate` upgrades it.
    NeedsUpgrade {
        /// The game, `morris`.
        game: &'static str,
        /// The variant whose table it is.
        variant: Variant,
        /// The table, `8-7` or `ply 12`.
        table: String,
        /// The file.
        path: PathBuf,
        /// Its format version.
        version: u32,
    },
    /// The file is there but cannot be read as the table.
    Unusable {
        /// The game, `morris`.
        game: &'static str,
        /// The variant whose table it is.
        variant: Variant,
        /// The table, `8-7` or `ply 12`.
        table: String,
        /// Why, naming the file.
        why: std::sync::Arc<TableError>,
    },
}

impl TableOutcome {
    /// One line for people.
    pub fn text(&self) -> String {
        match self {
            TableOutcome::Checked(report) => report.text(),
            TableOutcome::Missing { table, partial: false, .. } => format!("{table:<16} missing"),
            TableOutcome::Missing { table, partial: true, .. } => format!("{table:<16} partial"),
            TableOutcome::NeedsUpgrade { table, version, .. } => {
                format!("{table:<16} format version {version}: run generate to upgrade it")
            }
            TableOutcome::Unusable { table, .. } => format!("{table:<16} DAMAGED"),
        }
    }

    /// Whether the table failed a check (exit 3): damaged, or checked and found wrong.
    pub fn failed(&self) -> bool {
        match self {
            TableOutcome::Checked(report) => report.failed(),
            TableOutcome::Missing { .. } | TableOutcome::NeedsUpgrade { .. } => false,
            TableOutcome::Unusable { .. } => true,
        }
    }
}

/// Checks every table of `catalogue` in `dir`, handing what it finds for each to `report` as it
/// goes: headers and checksums, counts against the reference, and unless `quick` every value
/// recomputed from its successors. With a `journal`, a table it lists is not recomputed again
/// (its files are still checked), and each table found consistent is added to it.
pub fn verify<C: Catalogue, E>(
    catalogue: &C,
    dir: &Path,
    quick: bool,
    mut journal: Option<&mut Journal>,
    progress: &Progress,
    mut report: impl FnMut(TableOutcome) -> Result<(), E>,
) -> Result<(), E> {
    let name = catalogue.name();
    let tables_variant = catalogue.variant();
    for key in catalogue.keys() {
        let files: Vec<_> = catalogue.set(dir, key).into_iter().chain([catalogue.table(dir, key)]).collect();
        let (game, table, variant) = (catalogue.game(), key.to_string(), tables_variant.clone());
        let (status, decides) = Status::of_files(&files);
        let path = files[decides].path.clone();
        let not_checked = match status {
            Status::Complete(_) => None,
            Status::Damaged(why) => Some(TableOutcome::Unusable { game, variant, table, why }),
            Status::NeedsUpgrade(header) => {
                Some(TableOutcome::NeedsUpgrade { game, variant, table, path, version: header.version })
            }
            Status::Missing => Some(TableOutcome::Missing { game, variant, table, path, partial: false }),
            Status::Partial => Some(TableOutcome::Missing { game, variant, table, path, partial: true }),
        };
        if let Some(outcome) = not_checked {
            report(outcome)?;
            continue;
        }
        progress.task(&format!("verify {name} {key}"));
        let mut problems = Vec::new();
        let mut counts = Counts::default();
        let mut checksum_ok = true;
        // Published for every file of the table: all match, any differs, or not every file is listed.
        let mut published = Some(true);
        for spec in &files {
            match check_file(spec) {
                Ok((header, file_checksum)) => {
                    counts = header.counts;
                    let name =
                        spec.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    match published_checksums(spec, &header, file_checksum, &name) {
                        Ok(pairs) if pairs.is_empty() => published = published.filter(|&p| !p),
                        Ok(pairs) => {
                            for (found, listed, form) in pairs.into_iter().filter(|(f, l, _)| f != l) {
                                published = Some(false);
                                problems.push(format!(
                                    "{}: {form}checksum {found:08x}, the project publishes {listed:08x}",
                                    spec.path.display()
                                ));
                            }
                        }
                        Err(e) => {
                            checksum_ok = false;
                            problems.push(e.to_string());
                        }
                    }
                }
                Err(TableError::Checksum { path, .. }) => {
                    checksum_ok = false;
                    problems.push(format!("{}: checksum does not match the header", path.display()));
                }
                Err(e) => {
                    checksum_ok = false;
                    problems.push(e.to_string());
                }
            }
        }
        // Counts read beside bytes that fail their checksums are not compared: unknown, not
        // a second fault to report.
        let reference_match = checksum_ok.then(|| catalogue.reference_match(dir, key, &counts)).flatten();
        if reference_match == Some(false) {
            problems.push(format!("{name} {key}: counts differ from the reference"));
        }
        let (mut consistent, mut recompute_failed) = (None, false);
        let table = key.to_string();
        let from_journal = !quick && checksum_ok && journal.as_ref().is_some_and(|j| j.holds(&table));
        if from_journal {
            consistent = Some(true);
        } else if !quick && checksum_ok {
            let found = {
                let parts = journal.as_deref_mut().map(|journal| TableParts::new(journal, &table));
                catalogue.check(dir, key, parts.as_ref().map(|p| p as &dyn CheckedParts), progress)
            };
            match found {
                Ok(Some(found)) => {
                    consistent = Some(found.is_consistent());
                    if found.set_mismatches > 0 {
                        problems.push(format!(
                            "{name} {key}: {} positions of the set differ from the forward pass",
                            found.set_mismatches
                        ));
                    }
                    problems.extend(found.set_examples.iter().map(|e| format!("{name} {key}: {e}")));
                    if found.mismatches > 0 {
                        problems.push(format!(
                            "{name} {key}: {} positions differ from their moves",
                            found.mismatches
                        ));
                    }
                    for m in &found.examples {
                        problems.push(format!(
                            "{name} {key}: position {} stored {} but its moves give {}",
                            catalogue.describe(dir, key, m.index),
                            m.stored,
                            m.recomputed
                        ));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    recompute_failed = true;
                    problems.push(format!("{name} {key}: not recomputed: {e}"));
                }
            }
        }
        if let Some(journal) = journal.as_deref_mut()
            && consistent == Some(true)
            && !from_journal
            && let Err(e) = journal.record(&table)
        {
            problems.push(format!("{name} {key}: not recorded in the journal: {e}"));
        }
        progress.clear();
        report(TableOutcome::Checked(TableReport {
            game: catalogue.game(),
            variant: tables_variant.clone(),
            table,
            counts,
            checksum_ok,
            consistent,
            from_journal,
            reference_match,
            published: if checksum_ok { published } else { None },
            recompute_failed,
            problems,
        }))?;
    }
    Ok(())
}

/// The checksums of a file that the project publishes, as (found, published, which): the file's
/// own where its version's list has it, and for a compressed table or set also the checksum of
/// the same file raw (its data decoded and checked end to end), against the raw list. Empty where
/// neither list has the file.
fn published_checksums(
    spec: &FileSpec,
    header: &Header,
    file_checksum: u32,
    name: &str,
) -> Result<Vec<(u32, u32, &'static str)>, TableError> {
    use crate::reference::{published_checksum, published_packed_checksum};
    if header.packing.is_none() {
        return Ok(published_checksum(name).map(|listed| (file_checksum, listed, "")).into_iter().collect());
    }
    let mut pairs: Vec<_> =
        published_packed_checksum(name).map(|listed| (file_checksum, listed, "")).into_iter().collect();
    if let Some(listed) = published_checksum(name) {
        let raw = match spec.kind {
            FileKind::Table => TableFile::open(spec, header.index_size, Check::Checksum)?.raw_file_checksum(),
            FileKind::Set => SetFile::open(spec, Check::Checksum)?.raw_file_checksum(),
        };
        let raw = raw.ok_or_else(|| TableError::Entry { path: spec.path.clone(), index: 0 })?;
        pairs.push((raw, listed, "raw form's "));
    }
    Ok(pairs)
}

/// The JSON object of a [`TableOutcome`] or a [`TableReport`], field by field in the order
/// printed.
#[derive(Serialize)]
struct VerifyLine {
    game: &'static str,
    #[serde(serialize_with = "Variant::serialize_settings")]
    settings: Variant,
    table: String,
    status: &'static str,
    positions: Option<u64>,
    win: Option<u64>,
    loss: Option<u64>,
    draw: Option<u64>,
    max_win: Option<u32>,
    max_loss: Option<u32>,
    checksum: Option<&'static str>,
    consistent: Option<bool>,
    reference: &'static str,
    published: &'static str,
}

impl VerifyLine {
    /// A table whose counts cannot be read.
    fn without_counts(
        game: &'static str,
        settings: Variant,
        table: String,
        status: &'static str,
        checksum: Option<&'static str>,
    ) -> VerifyLine {
        VerifyLine {
            game,
            settings,
            table,
            status,
            positions: None,
            win: None,
            loss: None,
            draw: None,
            max_win: None,
            max_loss: None,
            checksum,
            consistent: None,
            reference: "none",
            published: "none",
        }
    }
}

impl From<TableReport> for VerifyLine {
    fn from(report: TableReport) -> VerifyLine {
        if !report.checksum_ok {
            return VerifyLine::without_counts(
                report.game,
                report.variant,
                report.table,
                "damaged",
                Some("bad"),
            );
        }
        let c = &report.counts;
        let (max_win, max_loss) = longest(c);
        VerifyLine {
            game: report.game,
            status: "complete",
            positions: Some(c.positions()),
            win: Some(c.win),
            loss: Some(c.loss),
            draw: Some(c.draw),
            max_win,
            max_loss,
            checksum: Some(report.checksum_word()),
            consistent: report.consistent,
            reference: report.reference_word(),
            published: match_word(report.published),
            settings: report.variant,
            table: report.table,
        }
    }
}

impl From<TableOutcome> for VerifyLine {
    fn from(outcome: TableOutcome) -> VerifyLine {
        match outcome {
            TableOutcome::Checked(report) => report.into(),
            TableOutcome::Missing { game, variant, table, partial, .. } => VerifyLine::without_counts(
                game,
                variant,
                table,
                if partial { "partial" } else { "missing" },
                None,
            ),
            TableOutcome::NeedsUpgrade { game, variant, table, .. } => {
                VerifyLine::without_counts(game, variant, table, "outdated", None)
            }
            TableOutcome::Unusable { game, variant, table, .. } => {
                VerifyLine::without_counts(game, variant, table, "damaged", Some("bad"))
            }
        }
    }
}
