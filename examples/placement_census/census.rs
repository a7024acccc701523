//! An independent census of the placement phase of Morris games: the positions reachable from
//! the start after each number of placements, counted up to the 16 symmetries of the board.
//!
//! It shares no code with the library. Its points are numbered in its own order, its lines are
//! written out by hand, its symmetries come from coordinates, and its positions are stored by
//! their own index: per number of White and Black stones on the board (a sector), the rank of
//! the least image of the White stones among such sets, times the rank of the Black stones among
//! the subsets of the empty points. The placement rules are those of docs/RULES.md: sides place
//! in turn, White first; a placement that closes a mill removes one stone of the other side (one
//! in no mill, unless all are in mills); a side with fewer than three stones on the board and in
//! hand has lost, and such positions end the game (they are not counted).

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The points in this census's order: by file, then by rank.
pub const NAMES: [&str; 24] = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", //
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
];

/// The lines of Nine Men's Morris: the sides of the three squares and the four lines across.
pub const STANDARD_LINES: [[&str; 3]; 16] = [
    ["a1", "d1", "g1"],
    ["b2", "d2", "f2"],
    ["c3", "d3", "e3"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c5", "d5", "e5"],
    ["b6", "d6", "f6"],
    ["a7", "d7", "g7"],
    ["a1", "a4", "a7"],
    ["b2", "b4", "b6"],
    ["c3", "c4", "c5"],
    ["d1", "d2", "d3"],
    ["d5", "d6", "d7"],
    ["e3", "e4", "e5"],
    ["f2", "f4", "f6"],
    ["g1", "g4", "g7"],
];

/// Morabaraba's four more lines: the diagonals through the squares' corners.
pub const DIAGONALS: [[&str; 3]; 4] =
    [["a1", "b2", "c3"], ["g1", "f2", "e3"], ["a7", "b6", "c5"], ["g7", "f6", "e5"]];

const ALL: u32 = (1 << 24) - 1;

fn point(name: &str) -> usize {
    NAMES.iter().position(|&n| n == name).expect("a point of the board")
}

fn bits(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let p = set.trailing_zeros() as usize;
            set &= set - 1;
            p
        })
    })
}

/// Binomial coefficients up to 24.
struct Binomials([[u64; 25]; 25]);

impl Binomials {
    fn new() -> Binomials {
        let mut c = [[0u64; 25]; 25];
        for n in 0..25 {
            c[n][0] = 1;
            for k in 1..=n {
                c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            }
        }
        Binomials(c)
    }

    fn choose(&self, n: usize, k: usize) -> u64 {
        if k > n { 0 } else { self.0[n][k] }
    }
}

/// The board of one game: its mills and its symmetries, and the tables of its index.
pub struct Census {
    mills: Vec<u32>,
    /// Per symmetry, the image of each byte of a set, by the byte's place.
    images: Vec<[[u32; 256]; 3]>,
    binomials: Binomials,
    /// Per number of stones, the sets that are their own least image, in increasing order.
    least_sets: Vec<Vec<u32>>,
    /// The rank of a least set in its list (only least sets are looked up).
    rank_of_least: Vec<u32>,
    /// Per number of stones `k`, the sets of `k` points in increasing order: the first
    /// `C(n, k)` of them are the subsets of the first `n` points, in the order they are ranked.
    subsets: Vec<Vec<u32>>,
}

impl Census {
    /// The board whose lines are `lines` (each is a mill).
    pub fn new(lines: &[[&str; 3]]) -> Census {
        let mills = lines.iter().map(|line| line.iter().map(|&n| 1u32 << point(n)).sum()).collect();
        // Coordinates from the centre d4. A symmetry turns and reflects them, and may exchange
        // the outer square (3 from the centre) with the inner one (1 from it).
        let coords = |p: usize| {
            let b = NAMES[p].as_bytes();
            (i32::from(b[0]) - i32::from(b'a') - 3, i32::from(b[1]) - i32::from(b'1') - 3)
        };
        let mut images = Vec::new();
        for exchange in [false, true] {
            for turn in 0..4 {
                for mirror in [false, true] {
                    let map = |p: usize| {
                        let (mut x, mut y) = coords(p);
                        if mirror {
                            x = -x;
                        }
                        for _ in 0..turn {
                            (x, y) = (-y, x);
                        }
                        if exchange {
                            let d = x.abs().max(y.abs());
                            (x, y) = (x / d * (4 - d), y / d * (4 - d));
                        }
                        let name = format!("{}{}", char::from(b'a' + (x + 3) as u8), y + 4);
                        point(&name)
                    };
                    let mut table = [[0u32; 256]; 3];
                    for (place, bytes) in table.iter_mut().enumerate() {
                        for (v, set) in bytes.iter_mut().enumerate() {
                            for bit in (0..8).filter(|bit| v >> bit & 1 == 1) {
                                *set |= 1 << map(place * 8 + bit);
                            }
                        }
                    }
                    images.push(table);
                }
            }
        }
        let mut census = Census {
            mills,
            images,
            binomials: Binomials::new(),
            least_sets: vec![Vec::new(); 25],
            rank_of_least: vec![u32::MAX; 1 << 24],
            subsets: vec![Vec::new(); 25],
        };
        for set in 0..=ALL {
            let k = set.count_ones() as usize;
            census.subsets[k].push(set);
            if census.least(set) == set {
                census.rank_of_least[set as usize] = census.least_sets[k].len() as u32;
                census.least_sets[k].push(set);
            }
        }
        census
    }

    fn image(&self, sym: usize, set: u32) -> u32 {
        let t = &self.images[sym];
        t[0][(set & 255) as usize] | t[1][(set >> 8 & 255) as usize] | t[2][(set >> 16) as usize]
    }

    fn least(&self, set: u32) -> u32 {
        (0..16).map(|sym| self.image(sym, set)).min().expect("16 symmetries")
    }

    /// Whether the 16 maps are distinct symmetries that keep the lines: checked by the tests.
    pub fn symmetries_keep_the_lines(&self) -> bool {
        let mut distinct = std::collections::HashSet::new();
        (0..16).all(|sym| {
            distinct.insert((0..24).map(|p| self.image(sym, 1 << p)).collect::<Vec<_>>());
            let mut mapped: Vec<u32> = self.mills.iter().map(|&m| self.image(sym, m)).collect();
            let mut mills = self.mills.clone();
            mapped.sort();
            mills.sort();
            mapped == mills
        }) && distinct.len() == 16
    }

    /// Positions in a sector of `white` and `black` stones on the board, least White images
    /// only: its index's size.
    fn sector_size(&self, white: usize, black: usize) -> u64 {
        if white + black > 24 {
            return 0;
        }
        self.least_sets[white].len() as u64 * self.binomials.choose(24 - white, black)
    }

    /// The index of the position (`white`, `black`) in its sector: of its 16 images, the one
    /// whose White stones are least, and among those, whose Black stones are.
    fn index(&self, white: u32, black: u32) -> u64 {
        let (mut least_white, mut least_black) = (u32::MAX, u32::MAX);
        for sym in 0..16 {
            let w = self.image(sym, white);
            if w < least_white {
                (least_white, least_black) = (w, self.image(sym, black));
            } else if w == least_white {
                least_black = least_black.min(self.image(sym, black));
            }
        }
        self.index_of_least(least_white, least_black)
    }

    /// The same where `white` is already its least image and `keeping` lists the symmetries
    /// that keep it (bit `s` for symmetry `s`; the identity, bit 0, always).
    fn index_with_least_white(&self, white: u32, keeping: u16, black: u32) -> u64 {
        let mut least_black = black;
        let mut others = keeping & !1;
        while others != 0 {
            let sym = others.trailing_zeros() as usize;
            others &= others - 1;
            least_black = least_black.min(self.image(sym, black));
        }
        self.index_of_least(white, least_black)
    }

    /// The symmetries that keep `set`, as a mask.
    fn keeping(&self, set: u32) -> u16 {
        (0..16).filter(|&sym| self.image(sym, set) == set).fold(0, |mask, sym| mask | 1 << sym)
    }

    fn index_of_least(&self, least_white: u32, least_black: u32) -> u64 {
        let empty = ALL & !least_white;
        let n = empty.count_ones() as usize;
        let k = least_black.count_ones() as usize;
        // The Black stones as a subset of the empty points, numbered 0..n, ranked in the order
        // of `subsets` (increasing sets of k of them): the sum of C(position, j + 1) over
        // its j-th point.
        let mut rank = 0;
        for (j, q) in bits(least_black).enumerate() {
            let position = (empty & ((1 << q) - 1)).count_ones() as usize;
            rank += self.binomials.choose(position, j + 1);
        }
        let white_rank = u64::from(self.rank_of_least[least_white as usize]);
        white_rank * self.binomials.choose(n, k) + rank
    }

    /// The position at `index` of sector (`white`, `black`): White's and Black's stones.
    fn position(&self, white: usize, black: usize, index: u64) -> (u32, u32) {
        let per_white = self.binomials.choose(24 - white, black);
        let w = self.least_sets[white][(index / per_white) as usize];
        let packed = self.subsets[black][(index % per_white) as usize];
        let mut empty = [0u8; 24];
        for (j, p) in bits(ALL & !w).enumerate() {
            empty[j] = p as u8;
        }
        (w, bits(packed).map(|j| 1u32 << empty[j]).sum())
    }

    fn closes_mill(&self, stones: u32, to: usize) -> bool {
        self.mills.iter().any(|&m| m & (1 << to) != 0 && stones & m == m)
    }

    /// The stones an opponent who has closed a mill may remove: those in no mill, or any if
    /// every one is in a mill.
    fn removable(&self, stones: u32) -> u32 {
        let in_mills = self.mills.iter().filter(|&&m| stones & m == m).fold(0, |all, &m| all | m);
        if stones & !in_mills != 0 { stones & !in_mills } else { stones }
    }
}

/// One number of placements: a bit per position of each sector, set where it is reachable.
pub struct Ply {
    /// `sectors[w][b]`: White and Black stones on the board.
    sectors: Vec<Vec<Vec<AtomicU64>>>,
}

impl Ply {
    /// An empty ply after `placed` placements of the game with `stones` a side.
    pub fn new(census: &Census, stones: usize, placed: usize) -> Ply {
        let (white_placed, black_placed) = (placed.div_ceil(2), placed / 2);
        let (white_hand, black_hand) = (stones - white_placed, stones - black_placed);
        let sectors = (0..=white_placed)
            .map(|w| {
                (0..=black_placed)
                    .map(|b| {
                        // A side with fewer than three stones on the board and in hand has lost:
                        // the game is over, and its positions are not in the placement phase.
                        let live = w + white_hand >= 3 && b + black_hand >= 3;
                        let words = if live { census.sector_size(w, b).div_ceil(64) } else { 0 };
                        (0..words).map(|_| AtomicU64::new(0)).collect()
                    })
                    .collect()
            })
            .collect();
        Ply { sectors }
    }

    fn mark(&self, census: &Census, white: u32, black: u32) {
        self.set(white, black, census.index(white, black));
    }

    fn set(&self, white: u32, black: u32, index: u64) {
        let sector = &self.sectors[white.count_ones() as usize][black.count_ones() as usize];
        let (word, bit) = (&sector[(index / 64) as usize], 1u64 << (index % 64));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Its reachable positions.
    pub fn count(&self) -> u64 {
        self.sectors.iter().flatten().flatten().map(|w| u64::from(w.load(Relaxed).count_ones())).sum()
    }

    /// Its bits, sector after sector, as little-endian words (to resume a long census).
    pub fn write(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for sector in self.sectors.iter().flatten() {
            for chunk in sector.chunks(1 << 16) {
                let bytes: Vec<u8> = chunk.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()).collect();
                out.write_all(&bytes)?;
            }
        }
        Ok(())
    }

    /// Reads what [`Ply::write`] wrote into this (empty) ply of the same shape.
    pub fn read(&self, input: &mut impl std::io::Read) -> std::io::Result<()> {
        let mut bytes = vec![0u8; 8 << 16];
        for sector in self.sectors.iter().flatten() {
            for chunk in sector.chunks(1 << 16) {
                input.read_exact(&mut bytes[..8 * chunk.len()])?;
                for (word, b) in chunk.iter().zip(bytes.chunks_exact(8)) {
                    word.store(u64::from_le_bytes(b.try_into().expect("8 bytes")), Relaxed);
                }
            }
        }
        Ok(())
    }
}

/// The positions reachable after each number of placements `0 ..= 2K - 1` of the game with
/// `stones` a side (K), in order, from the start or from a ply already counted (`from`: the
/// placements made and the ply); `done(placed, ply)` is called as each is complete.
pub fn census(census: &Census, stones: usize, from: Option<(usize, Ply)>, mut done: impl FnMut(usize, &Ply)) {
    let (first, mut ply) = from.unwrap_or_else(|| {
        let start = Ply::new(census, stones, 0);
        start.mark(census, 0, 0);
        (0, start)
    });
    for placed in first..2 * stones {
        done(placed, &ply);
        if placed + 1 == 2 * stones {
            break;
        }
        let next = Ply::new(census, stones, placed + 1);
        let white_moves = placed % 2 == 0;
        // The opponent's hand after this placement, for the three-stone rule.
        let opponent_hand = if white_moves { stones - placed / 2 } else { stones - placed.div_ceil(2) };
        for (w, row) in ply.sectors.iter().enumerate() {
            for (b, sector) in row.iter().enumerate() {
                sector.par_iter().enumerate().for_each_init(
                    || (u32::MAX, 0u16),
                    |(last_white, keeping), (k, word)| {
                        let mut bits_left = word.load(Relaxed);
                        while bits_left != 0 {
                            let index = k as u64 * 64 + u64::from(bits_left.trailing_zeros());
                            bits_left &= bits_left - 1;
                            let (white, black) = census.position(w, b, index);
                            if white != *last_white {
                                (*last_white, *keeping) = (white, census.keeping(white));
                            }
                            let (mine, theirs) = if white_moves { (white, black) } else { (black, white) };
                            for to in bits(ALL & !(white | black)) {
                                let mine = mine | (1 << to);
                                let emit = |theirs: u32| {
                                    if theirs.count_ones() as usize + opponent_hand >= 3 {
                                        if white_moves {
                                            next.mark(census, mine, theirs);
                                        } else if theirs == white {
                                            // Black placed without taking a White stone: White's
                                            // stones are still their least image.
                                            next.set(
                                                white,
                                                mine,
                                                census.index_with_least_white(white, *keeping, mine),
                                            );
                                        } else {
                                            next.mark(census, theirs, mine);
                                        }
                                    }
                                };
                                if census.closes_mill(mine, to) {
                                    for r in bits(census.removable(theirs)) {
                                        emit(theirs & !(1 << r));
                                    }
                                } else {
                                    emit(theirs);
                                }
                            }
                        }
                    },
                );
            }
        }
        ply = next;
    }
}
