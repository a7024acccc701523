//! `info`, once for every game: every table with its index size, positions and status, from
//! headers only.

use super::{Catalogue, Variant};
use crate::table::{Counts, Status, checkpoint_progress};
use serde::Serialize;
use serde::ser::Serializer;
use std::path::Path;

/// One table as `info` lists it. Serialized as one object of `info --json` (docs/CLI.md,
/// "JSON"): the counts only for a complete table.
#[derive(Clone, Debug, Serialize)]
pub struct InfoRow {
    /// The game, `morris`.
    pub game: &'static str,
    /// The variant whose table it is: its settings tell rows of different variants apart.
    #[serde(rename = "settings", serialize_with = "Variant::serialize_settings")]
    pub variant: Variant,
    /// The table, `8-7` or `ply 12`.
    pub table: String,
    /// The size of its index space.
    pub index_size: u64,
    /// Its distinct positions: from the header when complete, else from the reference, if any.
    pub positions: Option<u64>,
    /// What is on disk.
    #[serde(flatten, serialize_with = "status_fields")]
    pub status: Status,
    /// The part of the catalogue it belongs to ([`Catalogue::section`]).
    #[serde(skip)]
    pub section: String,
    /// For a partial table written in checkpointed chunks (an opening book's searched ply): the
    /// chunks recorded and the chunks in all.
    #[serde(skip)]
    pub chunks: Option<(usize, usize)>,
}

/// The `status` of an [`InfoRow`], and the counts of a complete table.
#[derive(Serialize)]
struct StatusFields {
    status: &'static str,
    #[serde(flatten)]
    counts: Option<CountFields>,
}

/// A complete table's counts in `info --json`.
#[derive(Serialize)]
struct CountFields {
    win: u64,
    loss: u64,
    draw: u64,
    max_win: Option<u32>,
    max_loss: Option<u32>,
}

fn status_fields<S: Serializer>(status: &Status, serializer: S) -> Result<S::Ok, S::Error> {
    let counts = match status {
        Status::Complete(header) => {
            let counts = &header.counts;
            let (max_win, max_loss) = super::verify::longest(counts);
            Some(CountFields { win: counts.win, loss: counts.loss, draw: counts.draw, max_win, max_loss })
        }
        _ => None,
    };
    StatusFields { status: status.word(), counts }.serialize(serializer)
}

impl InfoRow {
    /// The counts of a complete table.
    pub fn counts(&self) -> Option<&Counts> {
        match &self.status {
            Status::Complete(header) => Some(&header.counts),
            _ => None,
        }
    }

    /// The column names of [`InfoRow::text`].
    pub fn text_heading() -> String {
        format!(
            "{:<16} {:>14} {:>14}  {:<9} {:>13} {:>13} {:>13}",
            "table", "index_size", "positions", "status", "win", "loss", "draw"
        )
    }

    /// One line for people.
    pub fn text(&self) -> String {
        let positions = self.positions.map_or("-".to_string(), |p| p.to_string());
        let detail = match &self.status {
            Status::Complete(h) => {
                let c = &h.counts;
                let (max_win, max_loss) = super::verify::longest_text(c);
                // In the words of `verify`'s line.
                format!(
                    "{:>13} {:>13} {:>13}  longest win {max_win:>3} loss {max_loss:>3}",
                    c.win, c.loss, c.draw
                )
            }
            Status::Damaged(why) => why.to_string(),
            Status::Partial => {
                self.chunks.map_or(String::new(), |(done, all)| format!("{done} of {all} chunks written"))
            }
            _ => String::new(),
        };
        format!(
            "{:<16} {:>14} {positions:>14}  {:<9} {detail}",
            self.table,
            self.index_size,
            self.status.word()
        )
        .trim_end()
        .to_string()
    }
}

/// Every table `catalogue` has, whether or not it is on disk yet. A file that holds another
/// table than its name says is damaged.
pub fn info<C: Catalogue>(catalogue: &C, dir: &Path) -> Vec<InfoRow> {
    let variant = catalogue.variant();
    catalogue
        .keys()
        .into_iter()
        .map(|key| {
            // A layer's table is usable only with the set that numbers its entries.
            let files: Vec<_> =
                catalogue.set(dir, key).into_iter().chain([catalogue.table(dir, key)]).collect();
            let (status, _) = Status::of_files(&files);
            let positions = match &status {
                Status::Complete(h) => Some(h.counts.positions()),
                _ => catalogue.reference(key).positions,
            };
            InfoRow {
                section: catalogue.section(key),
                game: catalogue.game(),
                variant: variant.clone(),
                table: key.to_string(),
                index_size: catalogue.index_size(key),
                positions,
                chunks: matches!(status, Status::Partial)
                    .then(|| checkpoint_progress(&catalogue.table(dir, key).path))
                    .flatten(),
                status,
            }
        })
        .collect()
}
