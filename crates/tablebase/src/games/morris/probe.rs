//! Probing the positions of a Morris variant: the moving-phase classes and the placement layers.

use super::board::{POINT_COUNT, POINT_NAMES, point_from_name, points};
use super::catalogue::Class;
use super::lasker::Sectors;
use super::notation::{PositionText, parse_position_in};
use super::opening::Opening;
use super::sector::{Sector, SolvedClass};
use super::position::{Color, Move, Position};
use super::rules::{for_each_move, for_each_unmove};
use super::variant::{MorrisRules, MorrisVariant, Standard};
use crate::catalogue::{Catalogue, Variant};
use crate::layered::{Layered, LayeredGame, SolvedLayer};
use crate::prefetch::in_turn;
use crate::probe::{LazyTables, Outcome, Probe, ProbeError, Probed};
use crate::table::Check;
use crate::value::Value;
use std::path::{Path, PathBuf};

/// Where a position's value comes from, found before any table is read.
#[derive(Clone, Copy)]
enum Lookup<'a> {
    Table(&'a SolvedClass, u64),
    /// A placement layer and the position's index there, before its rank in the layer's set
    /// (its entry in the table) is known; the stones a side of the game, for the error of a
    /// position that is not in the set.
    Placed(&'a SolvedLayer, u64, u8),
    /// A placement layer and the position's entry in its table.
    Layer(&'a SolvedLayer, u64),
    Known(Value),
}

impl Lookup<'_> {
    #[inline]
    fn read(self) -> Result<Value, ProbeError> {
        match self {
            Lookup::Table(solved, index) => Ok(solved.file.value(index)?),
            Lookup::Layer(solved, dense) => Ok(solved.table.value(dense)?),
            Lookup::Placed(..) => self.ranked()?.read(),
            Lookup::Known(value) => Ok(value),
        }
    }

    /// A placement position's entry in its layer's table, from its rank in the layer's set;
    /// any other lookup as it is.
    #[inline]
    fn ranked(self) -> Result<Self, ProbeError> {
        match self {
            Lookup::Placed(solved, index, stones) => match solved.set.rank(index)? {
                Some(dense) => Ok(Lookup::Layer(solved, dense)),
                None => Err(unreachable_in(stones)),
            },
            done => Ok(done),
        }
    }

    /// What a rank reads first, for a batch: see [`Lookup::prefetch_record`].
    #[inline]
    fn prefetch_rank_record(&self) {
        if let Lookup::Placed(solved, index, _) = *self {
            solved.set.prefetch_record(index);
        }
    }

    #[inline]
    fn prefetch_rank_block(&self) {
        if let Lookup::Placed(solved, index, _) = *self {
            solved.set.prefetch_block(index);
        }
    }

    #[inline]
    fn prefetch_record(&self) {
        match *self {
            Lookup::Table(solved, index) => solved.file.prefetch_record(index),
            Lookup::Layer(solved, dense) => solved.table.prefetch_record(dense),
            Lookup::Placed(..) | Lookup::Known(_) => {}
        }
    }

    #[inline]
    fn prefetch_block(&self) {
        match *self {
            Lookup::Table(solved, index) => solved.file.prefetch_block(index),
            Lookup::Layer(solved, dense) => solved.table.prefetch_block(dense),
            Lookup::Placed(..) | Lookup::Known(_) => {}
        }
    }
}

/// The tables of a Morris variant in a directory, each mapped on first use (read-only, shared
/// by threads).
pub struct MorrisTablebase<V = Standard> {
    dir: PathBuf,
    stones_per_side: u8,
    classes: LazyTables<SolvedClass>,
    placement: Placement<V>,
}

impl<V> std::fmt::Debug for MorrisTablebase<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MorrisTablebase")
            .field("dir", &self.dir)
            .field("stones_per_side", &self.stones_per_side)
            .finish_non_exhaustive()
    }
}

/// Where the positions with stones in hand are.
enum Placement<V> {
    /// Placements alternate: the opening's layers, reachable positions only.
    Layers { opening: Layered<Opening<V>>, layers: LazyTables<SolvedLayer> },
    /// A side may slide while it holds stones: whole sectors, in a slot per sector (the
    /// moving-phase classes among them).
    Sectors(LazyTables<SolvedClass>),
}

impl<V: MorrisVariant> MorrisTablebase<V> {
    /// Tables in `dir` for a game with `stones_per_side` stones each, 3 up to the variant's own
    /// number (the whole game). Nothing is read until a position needs it; with a number outside
    /// that range, every probe is refused ([`ProbeError::Illegal`], naming the range).
    pub fn open(dir: impl Into<PathBuf>, stones_per_side: u8) -> MorrisTablebase<V> {
        let classes = LazyTables::new(Class::all(V::RULES.stones).count());
        let placement = if V::RULES.moves_while_placing {
            Placement::Sectors(LazyTables::new((V::RULES.stones as usize + 1).pow(4)))
        } else {
            let opening = Opening::tables(u32::from(stones_per_side));
            let layers = LazyTables::new(opening.game().layers() as usize);
            Placement::Layers { opening, layers }
        };
        MorrisTablebase { dir: dir.into(), stones_per_side, classes, placement }
    }

    /// Refuses a game of a number of stones the variant does not have.
    fn check_stones(&self) -> Result<(), ProbeError> {
        let (least, most) = (super::variant::MIN_STONES, V::RULES.stones);
        match (least..=most).contains(&u32::from(self.stones_per_side)) {
            true => Ok(()),
            false => Err(ProbeError::Illegal(format!(
                "{} has games of {least} to {most} stones a side, not {}",
                V::RULES.name,
                self.stones_per_side
            ))),
        }
    }

    /// The directory of the tables.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The value of `position` and every legal move with its outcome, best first.
    pub fn probe(&self, position: &Position) -> Result<Probed<Move>, ProbeError> {
        crate::probe::probe(self, position)
    }

    /// Optimal moves to the end of the game, or for a draw until a position repeats.
    pub fn best_line(&self, position: &Position) -> Result<Vec<Move>, ProbeError> {
        crate::probe::best_line(self, position)
    }

    fn class(&self, class: Class) -> Result<&SolvedClass, ProbeError> {
        let rules = &V::RULES;
        let slot = ((class.mover - 3) * (rules.stones - 2) + (class.other - 3)) as usize;
        self.classes.get(
            slot,
            || SolvedClass::open(&self.dir, rules, class, Check::Probing),
            || Variant::of(rules.key).switch("no-opening").with("up-to", class),
        )
    }

    /// Where the value of `position` comes from, without reading any table's values yet.
    fn locate(&self, position: &Position) -> Result<Lookup<'_>, ProbeError> {
        self.check_stones()?;
        if let Placement::Sectors(sectors) = &self.placement {
            return self.locate_in_sector(sectors, position);
        }
        if !position.is_moving_phase() {
            return self.locate_placement(position);
        }
        if position.material(position.to_move) < 3 {
            return Ok(Lookup::Known(Value::Loss(0)));
        }
        let (mover, other) = (position.mover_stones(), position.other_stones());
        let (a, b) = (mover.count_ones(), other.count_ones());
        let class = Class::new(a, b).filter(|_| V::RULES.has_class(a, b)).ok_or_else(|| {
            ProbeError::Illegal(format!("more than {} stones on a side", V::RULES.stones))
        })?;
        let solved = self.class(class)?;
        Ok(Lookup::Table(solved, solved.index.index(mover, other)))
    }

    /// A position of a game solved in sectors: its sector's table and its entry there.
    fn locate_in_sector<'a>(
        &'a self,
        sectors: &'a LazyTables<SolvedClass>,
        position: &Position,
    ) -> Result<Lookup<'a>, ProbeError> {
        if position.material(position.to_move) < 3 {
            return Ok(Lookup::Known(Value::Loss(0)));
        }
        let k = u32::from(self.stones_per_side);
        let sector = Sector::of(position);
        if !Sectors::<V>::new(k).contains(sector) {
            return Err(ProbeError::Illegal(format!("more than {k} stones on the board and in hand on a side")));
        }
        let slot = sector_slot(V::RULES.stones, [sector.mover, sector.other, sector.mover_hand, sector.other_hand]);
        let solved = sectors.get(
            slot,
            || Sectors::<V>::open(&self.dir, sector, Check::Probing),
            || Variant::of(V::RULES.key).with("stones", k),
        )?;
        Ok(Lookup::Table(solved, solved.index.index(position.mover_stones(), position.other_stones())))
    }

    /// The opening's tables, which only a game of alternate placements has (`locate` sends the
    /// positions of a game solved in sectors elsewhere).
    fn opening(&self) -> (&Layered<Opening<V>>, &LazyTables<SolvedLayer>) {
        match &self.placement {
            Placement::Layers { opening, layers } => (opening, layers),
            Placement::Sectors(_) => unreachable!("placement layers in a game solved in sectors"),
        }
    }

    /// A position with stones in hand: its placement layer and its entry there.
    fn locate_placement(&self, position: &Position) -> Result<Lookup<'_>, ProbeError> {
        let (opening, _) = self.opening();
        let k = self.stones_per_side;
        let unreachable = || unreachable_in(k);
        let layer = opening.game().layer_of(position).ok_or_else(unreachable)?;
        if position.material(position.to_move) < 3 {
            // Lost at once, and stored nowhere: reachable when a reachable position of the
            // layer before leads to it.
            return match layer > 0 && self.has_reachable_parent(layer, position)? {
                true => Ok(Lookup::Known(Value::Loss(0))),
                false => Err(unreachable()),
            };
        }
        let index = opening.game().index(layer, position).ok_or_else(unreachable)?;
        Ok(Lookup::Placed(self.placement_layer(layer)?, index, k))
    }

    fn placement_layer(&self, layer: u32) -> Result<&SolvedLayer, ProbeError> {
        let (opening, layers) = self.opening();
        layers.get(
            layer as usize,
            || opening.open_layer(&self.dir, layer, |_| Check::Probing),
            || opening.variant(),
        )
    }

    /// Whether a placement that removes a stone leads to `position` (of `layer > 0`) from a
    /// reachable position of the layer before.
    fn has_reachable_parent(&self, layer: u32, position: &Position) -> Result<bool, ProbeError> {
        let before = self.placement_layer(layer - 1)?;
        let (opening, _) = self.opening();
        let mut found = Ok(false);
        for_each_unmove::<V>(position, self.stones_per_side, |parent| {
            if let (Ok(false), Some(index)) = (&found, opening.game().index(layer - 1, &parent)) {
                found = before.set.rank(index).map(|dense| dense.is_some());
            }
        });
        Ok(found?)
    }
}

impl<V: MorrisVariant> Probe for MorrisTablebase<V> {
    type Position = Position;
    type Move = Move;

    fn unchanged(&self, since: crate::probe::Reads) -> Result<(), ProbeError> {
        self.classes.unchanged(since)?;
        match &self.placement {
            Placement::Layers { layers, .. } => layers.unchanged(since),
            Placement::Sectors(sectors) => sectors.unchanged(since),
        }
    }

    fn parse(&self, text: &str) -> Result<Position, ProbeError> {
        self.check_stones()?;
        parse_position_in::<V>(text, self.stones_per_side).map_err(|e| ProbeError::Illegal(e.to_string()))
    }

    fn notation(&self, position: &Position) -> String {
        PositionText(position).to_string()
    }

    fn value(&self, position: &Position) -> Result<Value, ProbeError> {
        self.locate(position)?.read()
    }

    fn values(&self, positions: &[Position]) -> Vec<Result<Value, ProbeError>> {
        // Pass 1: which table and index each position needs (no table reads).
        let mut located: Vec<Result<Lookup, ProbeError>> = positions.iter().map(|p| self.locate(p)).collect();
        // Pass 2: a placement position's entry, its rank in its layer's set. Pass 3: the
        // values. Each read is announced some reads ahead, so that the processor loads several
        // blocks at once instead of waiting for each in turn.
        if located.iter().any(|found| matches!(found, Ok(Lookup::Placed(..)))) {
            in_turn(
                &mut located,
                |found| found.iter().for_each(Lookup::prefetch_rank_record),
                |found| found.iter().for_each(Lookup::prefetch_rank_block),
                |found| {
                    if let Ok(lookup) = *found {
                        *found = lookup.ranked();
                    }
                },
            );
        }
        in_turn(
            &mut located,
            |found| found.iter().for_each(Lookup::prefetch_record),
            |found| found.iter().for_each(Lookup::prefetch_block),
            |found| {
                if let Ok(lookup) = *found {
                    *found = lookup.read().map(Lookup::Known);
                }
            },
        );
        located.into_iter().map(|found| found?.read()).collect()
    }

    fn moves(&self, position: &Position) -> Result<Vec<Outcome<Self>>, ProbeError> {
        let mut successors = Vec::with_capacity(64);
        for_each_move::<V>(position, |mv, next| successors.push((mv, next)));
        successors
            .into_iter()
            .map(|(mv, next)| {
                let value = self.locate(&next)?.read()?;
                Ok(Outcome { mv, next, value: value.for_mover() })
            })
            .collect()
    }

    fn describe(&self, position: &Position, value: Option<Value>) -> String {
        let mut out = diagram(position, &V::RULES);
        out.push_str(&crate::text::verdict_or_unknown(position.to_move.name(), value));
        out.push('\n');
        out
    }
}

/// The error for a position with stones in hand that no game from the start reaches.
fn unreachable_in(stones: u8) -> ProbeError {
    let k = stones;
    ProbeError::Illegal(format!("not reachable from the start of the {k}-stone game (W: B: w {k} {k})"))
}

/// The slot of sector `[mover, other, mover_hand, other_hand]` among those of a variant with up
/// to `max` stones a side.
fn sector_slot(max: u32, sector: [u32; 4]) -> usize {
    let n = max as usize + 1;
    sector.iter().fold(0, |slot, &count| slot * n + count as usize)
}

const BOARD: [&str; 13] = [
    "o-----------o-----------o",
    "|           |           |",
    "|   o-------o-------o   |",
    "|   |       |       |   |",
    "|   |   o---o---o   |   |",
    "|   |   |       |   |   |",
    "o---o---o       o---o---o",
    "|   |   |       |   |   |",
    "|   |   o---o---o   |   |",
    "|   |       |       |   |",
    "|   o-------o-------o   |",
    "|           |           |",
    "o-----------o-----------o",
];

/// The board of variant `rules` with `W`, `B` and `.` on the points, ranks and files labelled.
pub fn diagram(position: &Position, rules: &MorrisRules) -> String {
    let mut board = BOARD.map(|line| line.as_bytes().to_vec());
    for (p, q) in diagonal_lines(rules) {
        let (x, row) = text_cell(p);
        let (qx, q_row) = text_cell(q);
        board[(row + q_row) / 2][(x + qx) / 2] = if (qx > x) == (q_row > row) { b'\\' } else { b'/' };
    }
    let mut out = String::new();
    for (row, line) in board.iter().map(|l| String::from_utf8_lossy(l).into_owned()).enumerate() {
        let rank = 7 - row / 2;
        out.push_str(if row % 2 == 0 { &"7654321"[7 - rank..8 - rank] } else { " " });
        out.push_str("  ");
        for (x, ch) in line.chars().enumerate() {
            if ch == 'o' {
                let name = format!("{}{rank}", (b'a' + (x / 4) as u8) as char);
                let p = point_from_name(&name).expect("the diagram's points are the board's");
                let bit = 1 << p;
                out.push(if position.stones[Color::White.index()] & bit != 0 {
                    'W'
                } else if position.stones[Color::Black.index()] & bit != 0 {
                    'B'
                } else {
                    '.'
                });
            } else {
                out.push(ch);
            }
        }
        out.push('\n');
    }
    out.push_str("   a   b   c   d   e   f   g\n");
    if !position.is_moving_phase() {
        out.push_str(&format!("in hand: White {}, Black {}\n", position.hand[0], position.hand[1]));
    }
    out
}

/// Where point `p` is in [`BOARD`]: its column and row.
fn text_cell(p: usize) -> (usize, usize) {
    let name = POINT_NAMES[p].as_bytes();
    (4 * usize::from(name[0] - b'a'), 2 * usize::from(b'7' - name[1]))
}

/// The lines of `rules` that join points on different files and ranks: the diagonals, each
/// once.
fn diagonal_lines(rules: &MorrisRules) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..POINT_COUNT).flat_map(move |p| {
        points(rules.adjacent[p]).filter(move |&q| {
            let (a, b) = (POINT_NAMES[p].as_bytes(), POINT_NAMES[q].as_bytes());
            p < q && a[0] != b[0] && a[1] != b[1]
        })
        .map(move |q| (p, q))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::variant::Morabaraba;
    use crate::probe::Probe;

    /// A tablebase opened for a number of stones the variant has no game of refuses every
    /// probe, naming the range, before any table is looked for.
    #[test]
    fn a_game_of_stones_the_variant_lacks_is_refused_by_its_range() {
        let refusal = |result: Result<_, ProbeError>| match result {
            Err(ProbeError::Illegal(why)) => why,
            other => panic!("not refused: {other:?}"),
        };
        for stones in [0, 2, 10, 255] {
            let tablebase = MorrisTablebase::<Standard>::open("no-such-dir", stones);
            let why = refusal(tablebase.parse("W: B: w 3 3"));
            assert_eq!(why, format!("Nine Men's Morris has games of 3 to 9 stones a side, not {stones}"));
            let position = Position::moving(0b111, 0b111 << 8);
            assert!(matches!(tablebase.value(&position), Err(ProbeError::Illegal(_))));
        }
        let tablebase = MorrisTablebase::<Morabaraba>::open("no-such-dir", 13);
        assert_eq!(refusal(tablebase.parse("W: B: w 3 3")), "Morabaraba has games of 3 to 12 stones a side, not 13");
        // In range, the position is read and its table looked for.
        let tablebase = MorrisTablebase::<Standard>::open("no-such-dir", 3);
        assert!(matches!(tablebase.value(&Position::moving(0b111, 0b111 << 8)), Err(ProbeError::NotGenerated { .. })));
    }
}
