//! The placement phase (the opening) of a Morris variant's K-stone game as a layered game.
//!
//! Layer `p` holds the positions after `p` placements, `p = 0 .. 2K - 1`; layer 0 is the start.
//! Sides alternate strictly, White first, so `p` fixes the side to move and both hands: the side
//! to move has placed `p / 2` stones, the other `p - p / 2`. A placement always leads to layer
//! `p + 1`, and the last placement into the moving phase, whose class tables are solved before:
//! every layer is settled from the next one in one pass.
//!
//! A layer's index is the concatenation of its *sectors*: the positions with `a` stones of the
//! side to move and `b` of the other on the board (fewer than placed where stones were
//! removed), each numbered by the ordinary class index `ClassIndex::new(a, b)`, since hands do
//! not move under the board's symmetries (as in Malom). Sectors are in the order of `(a, b)`,
//! and only those where both sides still have 3 stones on the board and in hand are there: a
//! side with fewer has lost.

use super::catalogue::Class;
use super::sector::SolvedClass;
use super::index::{ClassIndex, Cursor, INDEX_MAX_STONES};
use super::notation::PositionText;
use super::position::{Color, Position};
use super::rules::for_each_move;
use super::variant::MorrisVariant;
use crate::catalogue::{Rate, Variant};
use crate::layered::{Layered, LayeredGame, Step};
use crate::table::{Check, FileSpec, TableError};
use crate::value::Value;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::OnceLock;

/// Sectors of a layer: `a` and `b` in `0..=12`.
const SIDE: usize = INDEX_MAX_STONES as usize + 1;
const NO_SECTOR: u16 = u16::MAX;

/// One sector of a layer: positions with `mover` and `other` stones on the board.
struct Sector {
    offset: u64,
    index: ClassIndex,
}

/// The index of one placement layer.
struct PlacementLayer {
    sectors: Vec<Sector>,
    /// `slot[a][b]`: the sector with `a` stones of the side to move and `b` of the other.
    slot: [[u16; SIDE]; SIDE],
    size: u64,
    to_move: Color,
    /// Stones still in hand: of White, of Black.
    hand: [u8; 2],
}

impl PlacementLayer {
    fn new(stones: u32, layer: u32) -> PlacementLayer {
        let to_move = if layer.is_multiple_of(2) { Color::White } else { Color::Black };
        let (mover_placed, other_placed) = (layer / 2, layer - layer / 2);
        let (mover_hand, other_hand) = (stones - mover_placed, stones - other_placed);
        let mut hand = [0u8; 2];
        hand[to_move.index()] = mover_hand as u8;
        hand[to_move.other().index()] = other_hand as u8;
        let mut sectors = Vec::new();
        let mut slot = [[NO_SECTOR; SIDE]; SIDE];
        let mut size = 0;
        for a in 0..=mover_placed {
            for b in 0..=other_placed {
                if a + mover_hand < 3 || b + other_hand < 3 {
                    continue; // a side with fewer than 3 stones has lost: not stored
                }
                let index = ClassIndex::new(a, b);
                slot[a as usize][b as usize] = sectors.len() as u16;
                sectors.push(Sector { offset: size, index });
                size += index.size();
            }
        }
        PlacementLayer { sectors, slot, size, to_move, hand }
    }

    /// The index of a position of this layer (its hands and side to move are the layer's).
    #[inline]
    fn index(&self, position: &Position) -> Option<u64> {
        let (mover, other) = (position.mover_stones(), position.other_stones());
        let (a, b) = (mover.count_ones() as usize, other.count_ones() as usize);
        let slot = *self.slot.get(a)?.get(b)?;
        let sector = self.sectors.get(usize::from(slot))?;
        Some(sector.offset + sector.index.index(mover, other))
    }

    /// The canonical position with index `index` (< size), decoded from the one `cursor`
    /// decoded last where it can.
    #[inline]
    fn position(&self, index: u64, cursor: &mut PlacementCursor) -> Position {
        let in_sector = |k: usize| {
            self.sectors.get(k).is_some_and(|s| s.offset <= index && index < s.offset + s.index.size())
        };
        if !in_sector(cursor.sector) {
            let k = self.sectors.partition_point(|s| s.offset <= index) - 1;
            *cursor = PlacementCursor { sector: k, within: Cursor::default() };
        }
        let sector = &self.sectors[cursor.sector];
        let (mover, other) = sector.index.position_after(index - sector.offset, &mut cursor.within);
        let mut stones = [0; 2];
        stones[self.to_move.index()] = mover;
        stones[self.to_move.other().index()] = other;
        Position { stones, hand: self.hand, to_move: self.to_move }
    }
}

/// Where a thread is in a placement layer: the sector of the position decoded last, and where
/// it was in that sector's class index. The passes visit a layer's members in increasing order.
#[derive(Clone, Copy, Default)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct PlacementCursor {
    /// Where a fresh cursor starts: sector 0, with nothing decoded in it yet.
    sector: usize,
    within: Cursor,
}

impl std::fmt::Debug for PlacementCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlacementCursor").finish_non_exhaustive()
    }
}

/// The placement phase of the game with `stones` per side, for the layered pipeline. Its last
/// layer's moves lead into the moving phase, whose class tables it opens when that layer is
/// solved or checked ([`LayeredGame::prepare`]).
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct Opening<V> {
    stones: u32,
    layers: Vec<PlacementLayer>,
    /// The moving-phase classes `3-3 .. K-K`, by `(mover - 3) * (K - 2) + (other - 3)`, once
    /// opened.
    classes: OnceLock<Vec<SolvedClass>>,
    variant: PhantomData<V>,
}

impl<V> std::fmt::Debug for Opening<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opening").finish_non_exhaustive()
    }
}

impl<V: MorrisVariant> Opening<V> {
    /// The opening of the game with `stones` per side (3 up to the variant's), without its
    /// moving-phase tables: enough for `info` and the index.
    pub fn new(stones: u32) -> Opening<V> {
        let stones = stones.clamp(3, V::RULES.stones);
        let layers = (0..2 * stones).map(|layer| PlacementLayer::new(stones, layer)).collect();
        Opening { stones, layers, classes: OnceLock::new(), variant: PhantomData }
    }

    /// The same with the moving-phase classes `3-3 .. K-K` in `dir` open (checked as `check`
    /// says), for a program that probes the last layer's steps itself.
    pub fn with_classes(self, dir: &Path, check: Check) -> Result<Opening<V>, TableError> {
        self.open_classes(dir, &|_| check)?;
        Ok(self)
    }

    /// Opens the moving-phase classes `3-3 .. K-K` in `dir`, once.
    fn open_classes(&self, dir: &Path, check: &dyn Fn(&FileSpec) -> Check) -> Result<(), TableError> {
        if self.classes.get().is_some() {
            return Ok(());
        }
        let classes = self
            .classes()
            .map(|class| SolvedClass::open(dir, &V::RULES, class, check(&class.spec(dir, &V::RULES))))
            .collect::<Result<_, _>>()?;
        let _ = self.classes.set(classes);
        Ok(())
    }

    /// The moving-phase classes the last placement leads into: `3-3` to `K-K`.
    fn classes(&self) -> impl Iterator<Item = Class> {
        let k = self.stones;
        (3..=k).flat_map(move |mover| (3..=k).filter_map(move |other| Class::new(mover, other)))
    }

    /// The tables of the opening with `stones` per side.
    pub fn tables(stones: u32) -> Layered<Opening<V>> {
        Layered::new(Opening::new(stones))
    }

    /// Stones per side.
    pub fn stones(&self) -> u32 {
        self.stones
    }

    /// The layer of a position with stones in hand: the placements made so far, or `None`
    /// when its hands cannot arise in this game.
    pub fn layer_of(&self, position: &Position) -> Option<u32> {
        let placed =
            (2 * self.stones).checked_sub(u32::from(position.hand[0]) + u32::from(position.hand[1]))?;
        let layer = self.layers.get(placed as usize)?;
        (layer.hand == position.hand && layer.to_move == position.to_move).then_some(placed)
    }

    /// The index of a position in its layer, `None` when no sector holds it.
    pub fn index(&self, layer: u32, position: &Position) -> Option<u64> {
        self.layers.get(layer as usize)?.index(position)
    }

    /// The value of a moving-phase position reached by the last placement.
    fn moving_value(&self, position: &Position) -> Result<Value, TableError> {
        let (mover, other) = (position.mover_stones(), position.other_stones());
        let (a, b) = (mover.count_ones(), other.count_ones());
        let k = self.stones;
        let slot = (a.saturating_sub(3) * (k - 2) + b.saturating_sub(3)) as usize;
        match self.classes.get().and_then(|classes| classes.get(slot)) {
            Some(solved) if (3..=k).contains(&a) && (3..=k).contains(&b) => solved.value(mover, other),
            _ => Err(TableError::Missing {
                path: Class::new(a.clamp(3, k), b.clamp(3, k))
                    .expect("3..=K")
                    .spec(Path::new(""), &V::RULES)
                    .path,
            }),
        }
    }
}

impl<V: MorrisVariant> LayeredGame for Opening<V> {
    type Position = Position;
    type Walker = PlacementCursor;


    fn name(&self) -> String {
        format!("{} opening ({} stones)", V::RULES.key, self.stones)
    }

    fn title(&self) -> String {
        format!(
            "{} with {} stones, placement phase (layers: placements made, up to symmetry)",
            V::RULES.name,
            self.stones
        )
    }

    fn layers(&self) -> u32 {
        2 * self.stones
    }

    fn layer_word(&self) -> &'static str {
        "placement ply"
    }

    fn table_name(&self, layer: u32) -> String {
        format!("{} stones placement ply {layer}", self.stones)
    }

    fn file_stem(&self, layer: u32) -> String {
        format!("{}-opening{}-ply{layer:02}", V::RULES.key, self.stones)
    }

    fn index_size(&self, layer: u32) -> u64 {
        self.layers[layer as usize].size
    }

    fn prepare(&self, dir: &Path, layer: u32, check: &dyn Fn(&FileSpec) -> Check) -> Result<(), TableError> {
        match layer + 1 == self.layers() {
            true => self.open_classes(dir, check),
            false => Ok(()),
        }
    }

    fn rates(&self, _layer: u32) -> (Option<Rate>, Option<Rate>) {
        (V::PLACEMENT_FORWARD_RATE, V::PLACEMENT_SOLVE_RATE)
    }

    fn reads(&self, dir: &Path, layer: u32) -> Vec<FileSpec> {
        match layer + 1 == self.layers() {
            true => self.classes().map(|class| class.spec(dir, &V::RULES)).collect(),
            false => Vec::new(),
        }
    }

    fn start(&self) -> Vec<u64> {
        vec![0] // the empty board: sector 0-0 of layer 0 holds it alone
    }

    #[inline]
    fn position(&self, layer: u32, walker: &mut PlacementCursor, index: u64) -> Position {
        // A walker belongs to one layer: the passes make one per layer and thread.
        self.layers[layer as usize].position(index, walker)
    }

    #[inline]
    fn for_each_child(&self, layer: u32, position: &Position, mut f: impl FnMut(u64)) {
        let Some(next) = self.layers.get(layer as usize + 1) else {
            return; // the last placement leads into the moving phase
        };
        for_each_move::<V>(position, |_, child| {
            if child.material(child.to_move) >= 3
                && let Some(index) = next.index(&child)
            {
                f(index);
            }
        });
    }

    #[inline]
    fn for_each_step(
        &self,
        layer: u32,
        position: &Position,
        mut f: impl FnMut(Step),
    ) -> Result<(), TableError> {
        let next = self.layers.get(layer as usize + 1);
        let mut failed = None;
        for_each_move::<V>(position, |_, child| {
            if child.material(child.to_move) < 3 {
                f(Step::Done(Value::Win(1))); // the removal leaves the opponent two stones
                return;
            }
            match next {
                // Every child with 3 stones on each side lies in a sector of the next layer.
                Some(next) => next.index(&child).into_iter().for_each(|index| f(Step::Child(index))),
                None => match self.moving_value(&child) {
                    Ok(value) => f(Step::Done(value.for_mover())),
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                },
            }
        });
        failed.map_or(Ok(()), Err)
    }

    fn notation(&self, _layer: u32, position: &Position) -> String {
        PositionText(position).to_string()
    }

    fn reference_positions(&self, layer: u32) -> Option<u64> {
        super::reference::placement_positions(V::RULES.key, self.stones, layer)
    }

    fn variant(&self) -> Variant {
        Variant::of(V::RULES.key).with("stones", self.stones)
    }
}
