//! Proofs by parts: a position's win proved move by move, each reply of the other side a part
//! searched on its own by rounds of doubling length, parts that resist split into proofs by
//! parts of their own, and what is proved kept in a journal from one run to the next.

use super::board::{move_name, Position};
use super::search::CubeLines;
use super::journal::{Creation, JournalError, JournalFile};
use super::solver::{new_prover, on_threads};
use crate::search::{LineGame, Prover, SearchError, Work};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What proofs by parts have shown, kept from one run to the next: a proof of hours stopped
/// (a session's end, a time limit) goes on where it stopped, and a later proof that meets a
/// position shown (under any symmetry) takes its outcome at once.
///
/// A line is `OUTCOME MOVE...`: `wins` (the side to move wins) or `cannot-win` (it does not),
/// then the moves from the empty cube to the position, in the game's notation (`b11 c32` in
/// Qubic, `b2 c3` in Sogo), so that each line can be re-proved on its own:
/// `tablebase bench cube-prove qubic "b11 c32" --parts 2`. A line is written (and synced) when a
/// search of a part settled it after at least [`JOURNAL_SECONDS`], when a part's every move is
/// refuted, when a split part is settled, and when the whole proof ends.
pub struct PartsJournal<const GRAVITY: bool> {
    file: JournalFile,
    /// The side to move's outcome by the position's key under the game's symmetries.
    outcomes: Mutex<HashMap<u128, bool>>,
    /// The position of each win read from the file, as its first record has it: of a
    /// position's images, the one a proof by parts was seen to settle (its cost differs from
    /// image to image: `a11 c22` 5 s, `a14 b22` 175 s).
    wins_as_recorded: HashMap<u128, Position>,
    game: CubeLines<GRAVITY>,
    /// Set when a record could not be written: the proof goes on without recording, warned
    /// once.
    failed: AtomicBool,
}

/// The fewest seconds of a search whose part the journal records: a part settled faster is
/// settled as fast again.
pub const JOURNAL_SECONDS: f64 = 1.0;

impl<const GRAVITY: bool> PartsJournal<GRAVITY> {
    /// Opens the journal at `path` (made if missing; never through a link), with the outcomes
    /// it holds.
    pub fn open(path: &Path) -> Result<PartsJournal<GRAVITY>, JournalError> {
        PartsJournal::opened(path, Creation::Now)
    }

    /// Opens the journal at `path` for its outcomes only: one that is missing holds none, the
    /// file is never written (a probe answers from what proofs recorded, and records nothing:
    /// the directory may be read-only), and a last line without its newline, a record that a
    /// proof beside is writing, is left out.
    pub fn read(path: &Path) -> Result<PartsJournal<GRAVITY>, JournalError> {
        PartsJournal::opened(path, Creation::Never)
    }

    fn opened(path: &Path, creation: Creation) -> Result<PartsJournal<GRAVITY>, JournalError> {
        let (file, records) = JournalFile::open(path, creation, parse_record::<GRAVITY>)?;
        let game = CubeLines::<GRAVITY>::new();
        let mut wins_as_recorded = HashMap::new();
        for (_, (position, wins)) in &records {
            if *wins {
                wins_as_recorded.entry(game.canonical_key(position)).or_insert(*position);
            }
        }
        let outcomes = file.outcomes(records, |(position, _)| game.canonical_key(position), |r| r.1)?;
        let outcomes = Mutex::new(outcomes);
        Ok(PartsJournal { file, outcomes, wins_as_recorded, game, failed: AtomicBool::new(false) })
    }

    /// The image of `position` that the file records as won by the side to move, where it does.
    pub fn win_as_recorded(&self, position: &Position) -> Option<Position> {
        self.wins_as_recorded.get(&self.game.canonical_key(position)).copied()
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Positions recorded (up to symmetry).
    pub fn len(&self) -> usize {
        self.outcomes.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether it records nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the side to move wins `position`, where recorded.
    pub fn get(&self, position: &Position) -> Option<bool> {
        let key = self.game.canonical_key(position);
        self.outcomes.lock().unwrap_or_else(PoisonError::into_inner).get(&key).copied()
    }

    /// Records whether the side to move wins the position after `moves` (cells from the empty
    /// cube), synced before it counts.
    pub fn record(&self, moves: &[u32], wins: bool) -> Result<(), JournalError> {
        self.write(self.key_after(moves), moves, wins)
    }

    /// The key under the game's symmetries of the position after `moves`.
    fn key_after(&self, moves: &[u32]) -> u128 {
        let position = moves.iter().fold(Position::EMPTY, |position, &cell| position.play(1 << cell));
        self.game.canonical_key(&position)
    }

    /// Appends the record of `moves` (whose position's key is `key`) and takes it in.
    fn write(&self, key: u128, moves: &[u32], wins: bool) -> Result<(), JournalError> {
        let mut line = String::from(if wins { "wins" } else { "cannot-win" });
        for &cell in moves {
            line.push(' ');
            line.push_str(&move_name::<GRAVITY>(cell));
        }
        line.push('\n');
        self.file.append(&line)?;
        self.outcomes.lock().unwrap_or_else(PoisonError::into_inner).insert(key, wins);
        Ok(())
    }

    /// [`PartsJournal::record`] where the journal does not hold the outcome yet (under any
    /// symmetry), a failure warned of once and then no more records tried: a journal that
    /// cannot be written (a full disk) costs the next run the proofs it would have kept, not
    /// this proof.
    fn keep(&self, moves: &[u32], wins: bool) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let key = self.key_after(moves);
        if self.outcomes.lock().unwrap_or_else(PoisonError::into_inner).get(&key) == Some(&wins) {
            return;
        }
        if let Err(e) = self.write(key, moves, wins)
            && !self.failed.swap(true, Ordering::Relaxed)
        {
            eprintln!("tablebase: warning: {e}; the proof goes on without recording");
        }
    }
}

/// A journal line's position and whether its side to move wins.
fn parse_record<const GRAVITY: bool>(text: &str) -> Option<(Position, bool)> {
    let (outcome, moves) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
    let wins = match outcome {
        "wins" => true,
        "cannot-win" => false,
        _ => return None,
    };
    let position = if GRAVITY { super::board::parse_sogo(moves) } else { super::board::parse_qubic(moves) };
    position.ok().filter(|position| !position.is_won_by_previous()).map(|position| (position, wins))
}

/// Where a proof by parts keeps what it shows: its journal, and the cells played from the
/// empty cube to the position proved (the journal names positions by their moves).
#[derive(Clone, Copy)]
pub struct JournalAt<'a, const GRAVITY: bool> {
    /// The journal.
    pub journal: &'a PartsJournal<GRAVITY>,
    /// The cells from the empty cube to the position proved, in order.
    pub moves: &'a [u32],
}

impl<const GRAVITY: bool> JournalAt<'_, GRAVITY> {
    /// Records the outcome of the position `path` (cells from the position proved) leads to.
    fn keep(&self, path: &[u32], wins: bool) {
        self.journal.keep(&[self.moves, path].concat(), wins);
    }
}

/// How long each search of a part's first round runs in a proof by parts ([`prove_by_parts`]):
/// the prover alone, then each of the most promising moves alone. Each round doubles it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoundLength {
    /// Seconds: what a benchmark or a user sets.
    Seconds(f64),
    /// Nodes of search: the same cuts on every machine and run, which a test can count on.
    Nodes(u64),
}

impl RoundLength {
    /// The first round's length by default. Most of the replies to Qubic's corner are proved by
    /// the prover alone in 30 to 40 s; with 8 s a round, the restarts cost more than the moves
    /// they found (docs/BENCHMARKS.md).
    pub const DEFAULT: RoundLength = RoundLength::Seconds(40.0);

    /// The length of round `round` (0 the first): this one doubled `round` times.
    fn of_round(self, round: usize) -> RoundLength {
        let doublings = round.min(40) as u32;
        match self {
            RoundLength::Seconds(seconds) => RoundLength::Seconds(seconds * 2f64.powi(doublings as i32)),
            RoundLength::Nodes(nodes) => RoundLength::Nodes(nodes.saturating_mul(1u64 << doublings)),
        }
    }
}
/// The attacker's moves a round of a part tries alone, the most promising first.
const PART_MOVES_TRIED: usize = 3;
/// Searches in a round of a part: the prover alone, then each move tried.
const PART_ROUND: usize = 1 + PART_MOVES_TRIED;
/// Rounds a part may take in the first pass over the first moves; each later pass allows one
/// more. Three rounds (40, 80 and 160 s a search) prove every part of Qubic's corner, so the
/// empty cube is proved in the first pass; a first move with a part that resists them waits
/// while the next ones are tried (`b11 a11`: White's b22 was held 19 minutes by Black's b33).
const PART_ROUNDS_FIRST_PASS: usize = 3;

/// Told of each search of a part of a proof by parts ([`prove_by_parts`]) as it ends: the part
/// (the cells played from the position proved, in order), the part's move searched alone
/// (`None`: the part itself, by the prover alone), the outcome (`None`: out of the round's
/// time) and the seconds.
pub type PartReport<'a> = dyn Fn(&[u32], Option<u32>, Option<bool>, f64) + Sync + 'a;

/// Told at the end of each pass of a proof by parts ([`prove_by_parts`]) that leaves it open,
/// and once more when its time runs out: the pass (1 the first), the first moves not tried yet,
/// and the moves tried and still open, each followed by the open moves of its split replies.
pub type PassReport<'a> = dyn Fn(usize, usize, &[OpenMove]) + Sync + 'a;

/// A move of a proof by parts not settled yet ([`PassReport`]): some of its replies (its
/// parts) not proved, none shown lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenMove {
    /// The cells played from the position proved, in order, the move last.
    pub path: Vec<u32>,
    /// Its replies, up to symmetry.
    pub parts: usize,
    /// Of those, the ones proved won.
    pub proved: usize,
    /// The replies not proved.
    pub open: Vec<OpenReply>,
}

/// A reply not proved yet to an open move ([`OpenMove`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenReply {
    /// Its cell.
    pub cell: u32,
    /// Where the reply was split into a proof by parts of its own: how many of its moves are
    /// not tried yet (its moves tried and still open follow in the report).
    pub split_untried: Option<usize>,
}

/// What a proof by parts found, and what it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartsProof {
    /// Whether the side to move wins.
    pub wins: bool,
    /// The first move whose every reply was proved won (a cell), if the side to move wins.
    pub first_move: Option<u32>,
    /// The first moves tried (up to symmetry).
    pub first_moves_tried: usize,
    /// The replies, up to symmetry, to the first move proved, or else to the last one tried.
    pub parts: usize,
    /// Passes over the first moves: the first allows each part
    /// `PART_ROUNDS_FIRST_PASS` rounds, each later one a round more.
    pub passes: usize,
    /// Searches of parts that ended, after every first move tried.
    pub searches: usize,
    /// Of those, the searches cut short by their round's length.
    pub cut_short: usize,
    /// Times a thread, finding every part taken, joined a part another thread was searching.
    pub joins: usize,
    /// Searches stopped because another thread proved their part or failed the proof.
    pub stopped: usize,
    /// Parts split into proofs by parts of their own ([`PartsSettings::split_depth`]).
    pub splits: usize,
    /// Parts whose outcome was taken from the journal ([`PartsJournal`]).
    pub from_journal: usize,
}

/// How a proof by parts ([`prove_by_parts`]) searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartsSettings {
    /// Threads, each with a prover of its own.
    pub threads: usize,
    /// Bytes of each prover's tables.
    pub table_bytes: usize,
    /// Seconds for the whole proof (`None`: no limit).
    pub max_time: Option<f64>,
    /// How long each search of a part's first round runs.
    pub first_round: RoundLength,
    /// Levels of splitting: a part still open after a pass, where at most `split_open_parts`
    /// of its first move's parts are, becomes a proof by parts of its own (its moves, each with
    /// every reply a part), and so on down to this many levels; 0 never.
    pub split_depth: usize,
    /// Parts of one first move still open after a pass, at most, for them to be split
    /// ([`SPLIT_OPEN_PARTS`] by default): where more are open the first move is weak, not held
    /// up by a few hard replies.
    pub split_open_parts: usize,
}

impl Default for PartsSettings {
    /// Two threads with tables of 1 GB each, no time limit, the default round length, no
    /// splitting.
    fn default() -> PartsSettings {
        PartsSettings {
            threads: 2,
            table_bytes: 1 << 30,
            max_time: None,
            first_round: RoundLength::DEFAULT,
            split_depth: 0,
            split_open_parts: SPLIT_OPEN_PARTS,
        }
    }
}

/// Parts of one first move still open after a pass, at most, for them to be split by default
/// ([`PartsSettings::split_open_parts`]): where more are open the first move is weak, not held
/// up by one hard reply (`b11 a44`: 36 of White's a11's 37 parts proved, Black's d11 open).
pub const SPLIT_OPEN_PARTS: usize = 2;

/// New moves a pass of a split part leaves open, and of the root where parts are split: the
/// most promising first, one more each pass, so that a split part costs its first move's pass
/// about one move's parts, not all its moves'. A new move shown not to win in its first pass
/// does not count: the next is tried in the same pass (`b11 c32 b22 b33`: White's a11 and c22
/// each refuted in under half a minute, then a whole pass of the root before the next move).
const SPLIT_NEW_MOVES_PER_PASS: usize = 1;

/// Rounds a part of a split part may take in its first pass (one more each later pass): one,
/// not the root's three, since a part that resists a round is split again, and that costs less
/// than longer searches of it whole (`b11 a44 a11 d11 b33 b22`: proved by parts in 62 s, where
/// White's best move alone was cut at 40 and 80 s).
const SPLIT_ROUNDS_FIRST_PASS: usize = 1;

/// Whether the side to move wins `position` (Qubic's empty cube, say) by search alone, in
/// parts: its moves up to symmetry are tried in order of promise, and after each, every reply
/// of the other side (up to symmetry) is a part, proved by `settings.threads` provers with
/// tables of `settings.table_bytes`. A part is searched by rounds: the prover alone for a
/// while (`settings.first_round`), then each of the side to move's most promising moves alone
/// for as long, then the same again with twice the time. A single search of such a position
/// takes turns among its parts, which evict one another from the tables, and in a part it can
/// sink minutes into a move that does not win before it tries the one that does (`a11 b21`:
/// not in 300 s alone, 11 s with White's move a14 given); rounds of doubling time bound what
/// a wrong move costs. Each thread takes the next part no thread has taken; when none is left
/// it joins the open part with the fewest threads, taking the next search of its rounds, so
/// that the last, hardest part is not left to one thread.
///
/// The first moves are searched in passes, so that one whose part resists does not hold up
/// the rest: in the first pass a part gets three rounds, and a first move with a part still
/// open then waits while the next is tried; each later pass goes back to the first moves
/// still open, in order, with one round more. A first move with a part shown lost is dropped.
/// With `settings.split_depth`, a pass tries new first moves after those still open until one
/// of them stays open, and a first move held up by at most `settings.split_open_parts` parts
/// (two by default) has them split: each
/// becomes a proof by parts of its own, one pass of it in each pass of the first move, its
/// moves tried the same way and its parts given one round in its first pass; a split part is
/// won when one of its moves has every reply proved, lost when every move has a reply shown
/// lost. No knowledge of the game
/// beyond the prover's: no strategy is followed.
///
/// With a `journal` ([`JournalAt`]: the journal and the moves from the empty cube to
/// `position`), a part the journal records is settled without a search, and what the proof
/// shows is recorded there ([`PartsJournal`]), so that a proof stopped goes on where it stopped.
/// A `position` the journal records as not won by the side to move is answered at once; one
/// recorded won is proved again by its parts (mostly from the journal), since the record does
/// not name the winning move.
///
/// `report` is told of each search of a part as it ends: the part (the cells played to it, in
/// order), the move searched alone (`None`: the part itself), the outcome (`None`: out of the
/// round's time) and the seconds. `report_pass` is told what is open after each pass that
/// leaves the proof open, and when the time runs out.
pub fn prove_by_parts<const GRAVITY: bool>(
    position: &Position,
    settings: &PartsSettings,
    journal: Option<JournalAt<'_, GRAVITY>>,
    report: &PartReport<'_>,
    report_pass: &PassReport<'_>,
) -> Result<PartsProof, SearchError> {
    if journal.as_ref().is_some_and(|at| at.journal.get(position) == Some(false)) {
        return Ok(PartsProof { from_journal: 1, ..PartsProof::default() });
    }
    let game = CubeLines::<GRAVITY>::new();
    let deadline = settings.max_time.map(|t| Instant::now() + Duration::from_secs_f64(t));
    let mut provers: Vec<Prover<CubeLines<GRAVITY>>> =
        (0..settings.threads.max(1)).map(|_| new_prover(&game, settings.table_bytes, true)).collect();
    let counts = SearchCounts::default();
    let context = PassContext {
        game: &game,
        deadline,
        max_time: settings.max_time,
        first_round: settings.first_round,
        split_open_parts: settings.split_open_parts,
        counts: &counts,
        report,
        journal,
    };
    // Split parts deepen each pass, so the first moves open are worth coming back to before
    // weaker ones are tried (`b11 a44`: after White's a11, the first pass went on to d11 and
    // the rest, ten minutes a move).
    let new_per_pass = (settings.split_depth > 0).then_some(SPLIT_NEW_MOVES_PER_PASS);
    let mut root = Node::new(&game, position, Vec::new(), PART_ROUNDS_FIRST_PASS, new_per_pass);
    let mut proof = PartsProof::default();
    loop {
        proof.passes += 1;
        let outcome = root.pass(&context, &mut provers, settings.split_depth);
        proof.first_moves_tried = root.tried;
        proof.parts = root.parts;
        let first_move = match outcome {
            Ok(Settled::Won) => {
                context.keep(&[], true);
                root.won
            }
            Ok(Settled::Lost) => {
                context.keep(&[], false);
                None
            }
            Ok(Settled::Open) => {
                report_pass(proof.passes, root.untried.len(), &root.open_moves());
                continue;
            }
            Err(error) => {
                if matches!(error, SearchError::TimeLimit { .. }) {
                    report_pass(proof.passes, root.untried.len(), &root.open_moves());
                }
                return Err(error);
            }
        };
        return Ok(PartsProof {
            wins: first_move.is_some(),
            first_move,
            searches: counts.searches.load(Ordering::Relaxed),
            cut_short: counts.cut_short.load(Ordering::Relaxed),
            joins: counts.joins.load(Ordering::Relaxed),
            stopped: counts.stopped.load(Ordering::Relaxed),
            splits: counts.splits.load(Ordering::Relaxed),
            from_journal: counts.from_journal.load(Ordering::Relaxed),
            ..proof
        });
    }
}

/// What every pass of a proof by parts shares: the game, the time, and where it reports.
struct PassContext<'a, const GRAVITY: bool> {
    game: &'a CubeLines<GRAVITY>,
    deadline: Option<Instant>,
    max_time: Option<f64>,
    first_round: RoundLength,
    /// [`PartsSettings::split_open_parts`].
    split_open_parts: usize,
    counts: &'a SearchCounts,
    report: &'a PartReport<'a>,
    journal: Option<JournalAt<'a, GRAVITY>>,
}

impl<const GRAVITY: bool> PassContext<'_, GRAVITY> {
    /// Records in the journal, if there is one, whether the side to move wins the position
    /// `path` leads to.
    fn keep(&self, path: &[u32], wins: bool) {
        if let Some(journal) = &self.journal {
            journal.keep(path, wins);
        }
    }
}

/// A position whose side to move is to be proved to win by parts: the root of a proof by
/// parts, or a part split. Its moves are tried in order of promise, each with every reply a
/// part, over passes.
struct Node {
    /// The cells played from the position proved to this one, in order.
    path: Vec<u32>,
    /// Moves not tried yet, with the positions after them, the most promising first.
    untried: std::vec::IntoIter<(u32, Position)>,
    /// Moves tried.
    tried: usize,
    /// Moves tried and not settled, in order of promise.
    unsettled: Vec<TriedMove>,
    /// The replies to the move proved, or else to the last one tried.
    parts: usize,
    /// The move whose every reply was proved, once one is.
    won: Option<u32>,
    /// Rounds a move's parts may take in the pass that tries it; each later pass allows one
    /// more.
    first_rounds: usize,
    /// New moves a pass may leave open (`None`: all of them are tried); a new move shown not
    /// to win in its first pass does not count.
    new_per_pass: Option<usize>,
}

/// A move of a [`Node`] tried and not settled.
struct TriedMove {
    cell: u32,
    /// The replies to it, each a part.
    parts: Vec<Part>,
    /// Rounds its parts may take in its next pass. Counted by the move, not the node: a move
    /// first tried in a later pass starts at the node's first rounds, not at the rounds the
    /// moves before it have reached (`b11 c32`: White's a11, tried in the second pass, got four
    /// rounds, up to 320 s a search, while the split reply that held up the first move waited).
    rounds: usize,
}

impl Node {
    fn new<const GRAVITY: bool>(
        game: &CubeLines<GRAVITY>,
        position: &Position,
        path: Vec<u32>,
        first_rounds: usize,
        new_per_pass: Option<usize>,
    ) -> Node {
        Node {
            path,
            untried: moves_by_promise(game, position).into_iter(),
            tried: 0,
            unsettled: Vec::new(),
            parts: 0,
            won: None,
            first_rounds,
            new_per_pass,
        }
    }

    /// One pass over the moves: those still open, in order, each with its parts searched for
    /// up to its rounds, then new ones until as many stay open as `self.new_per_pass` allows
    /// or one is proved. Won when a move's every reply is proved (the move in `self.won`), lost
    /// when every move has a reply shown lost; parts held open split down to `split_depth`
    /// levels.
    fn pass<const GRAVITY: bool>(
        &mut self,
        context: &PassContext<'_, GRAVITY>,
        provers: &mut [Prover<CubeLines<GRAVITY>>],
        split_depth: usize,
    ) -> Result<Settled, SearchError> {
        let mut index = 0;
        // New moves tried in this pass and still open after it.
        let mut new_open = 0;
        loop {
            if index == self.unsettled.len() {
                if self.new_per_pass.is_some_and(|most| new_open >= most) {
                    break;
                }
                let Some((cell, child)) = self.untried.next() else { break };
                self.tried += 1;
                if child.is_won_by_previous() {
                    self.parts = 0;
                    self.won = Some(cell);
                    return Ok(Settled::Won);
                }
                let replies = moves_by_promise(context.game, &child);
                self.parts = replies.len();
                if replies.is_empty() {
                    continue; // a full cube: a draw
                }
                let parts = replies.iter().map(|&(reply_cell, reply)| {
                    Part::new(context, &reply, [self.path.as_slice(), &[cell, reply_cell]].concat())
                });
                self.unsettled.push(TriedMove { cell, parts: parts.collect(), rounds: self.first_rounds });
            }
            let tried = &mut self.unsettled[index];
            let search = PartSearch { parts: &tried.parts, rounds: tried.rounds, context };
            let mut settled = search.settle(provers)?;
            if matches!(settled, Settled::Open) && split_depth > 0 {
                settled = split_open_parts(&mut tried.parts, context, provers, split_depth - 1)?;
            }
            match settled {
                Settled::Won => {
                    self.parts = tried.parts.len();
                    self.won = Some(tried.cell);
                    return Ok(Settled::Won);
                }
                Settled::Lost => _ = self.unsettled.remove(index),
                Settled::Open => {
                    new_open += usize::from(tried.rounds == self.first_rounds);
                    tried.rounds += 1;
                    index += 1;
                }
            }
        }
        let lost = self.unsettled.is_empty() && self.untried.len() == 0;
        Ok(if lost { Settled::Lost } else { Settled::Open })
    }

    /// Its moves tried and not settled, each followed by the open moves of its split replies
    /// ([`PassReport`]).
    fn open_moves(&self) -> Vec<OpenMove> {
        let mut open = Vec::new();
        self.collect_open_moves(&mut open);
        open
    }

    /// Appends [`Node::open_moves`] to `open`, depth first, so that a split reply's moves come
    /// right after the move it answers.
    fn collect_open_moves(&self, open: &mut Vec<OpenMove>) {
        for TriedMove { cell, parts, .. } in &self.unsettled {
            let unproved: Vec<&Part> = parts.iter().filter(|part| !part.is_proved()).collect();
            let reply = |part: &&Part| OpenReply {
                cell: *part.path.last().expect("a part's path ends with its reply"),
                split_untried: part.split.as_ref().map(|node| node.untried.len()),
            };
            open.push(OpenMove {
                path: [self.path.as_slice(), &[*cell]].concat(),
                parts: parts.len(),
                proved: parts.len() - unproved.len(),
                open: unproved.iter().map(reply).collect(),
            });
            for node in unproved.iter().filter_map(|part| part.split.as_deref()) {
                node.collect_open_moves(open);
            }
        }
    }
}

/// The parts of one move still open after its pass, split where at most
/// [`PartsSettings::split_open_parts`] are: each a node of its own, given one pass (with
/// `split_depth` levels left below it).
/// Won when every part is proved, lost when a split part is.
fn split_open_parts<const GRAVITY: bool>(
    parts: &mut [Part],
    context: &PassContext<'_, GRAVITY>,
    provers: &mut [Prover<CubeLines<GRAVITY>>],
    split_depth: usize,
) -> Result<Settled, SearchError> {
    if parts.iter().filter(|part| !part.is_proved()).count() > context.split_open_parts {
        return Ok(Settled::Open);
    }
    for part in parts.iter_mut().filter(|part| !part.is_proved()) {
        let (position, path) = (part.position, &part.path);
        let node = part.split.get_or_insert_with(|| {
            context.counts.splits.fetch_add(1, Ordering::Relaxed);
            let rounds = SPLIT_ROUNDS_FIRST_PASS;
            Box::new(Node::new(context.game, &position, path.clone(), rounds, Some(SPLIT_NEW_MOVES_PER_PASS)))
        });
        match node.pass(context, provers, split_depth)? {
            Settled::Won => {
                part.proved.store(true, Ordering::Relaxed);
                context.keep(&part.path, true);
            }
            Settled::Lost => {
                context.keep(&part.path, false);
                return Ok(Settled::Lost);
            }
            Settled::Open => {}
        }
    }
    let proved = parts.iter().all(Part::is_proved);
    Ok(if proved { Settled::Won } else { Settled::Open })
}

/// What a proof by parts's searches did, over all its first moves.
#[derive(Default)]
struct SearchCounts {
    searches: AtomicUsize,
    cut_short: AtomicUsize,
    joins: AtomicUsize,
    stopped: AtomicUsize,
    splits: AtomicUsize,
    from_journal: AtomicUsize,
}

/// A part of a proof by parts ([`prove_by_parts`]): a position whose side to move must be
/// proved to win, with what the threads searching it share.
struct Part {
    position: Position,
    /// The cells played from the position proved to this one, in order.
    path: Vec<u32>,
    /// The side to move's moves (cells), with the positions after them, the most promising
    /// first.
    moves: Vec<(u32, Position)>,
    /// Moves shown not to win, a bit each by their index in `moves`.
    refuted: AtomicU64,
    /// The next of its searches to be taken: search `i` is round `i / PART_ROUND`'s
    /// `i % PART_ROUND`th.
    next_search: AtomicUsize,
    /// Threads searching it now.
    searchers: AtomicUsize,
    /// Proved won.
    proved: AtomicBool,
    /// Shown not won by an earlier proof (its journal).
    lost: bool,
    /// Its searches' work, stopped when it is proved or the proof fails, so that the searches
    /// still running on it end.
    work: Arc<Work>,
    /// The proof by parts it was split into, if it was: its own searches then end.
    split: Option<Box<Node>>,
}

impl Part {
    /// The part `path` leads to, settled at once where the context's journal records it.
    fn new<const GRAVITY: bool>(context: &PassContext<'_, GRAVITY>, position: &Position, path: Vec<u32>) -> Part {
        let recorded = context.journal.and_then(|at| at.journal.get(position));
        if recorded.is_some() {
            context.counts.from_journal.fetch_add(1, Ordering::Relaxed);
        }
        Part {
            position: *position,
            path,
            moves: moves_by_promise(context.game, position),
            refuted: AtomicU64::new(0),
            next_search: AtomicUsize::new(0),
            searchers: AtomicUsize::new(0),
            proved: AtomicBool::new(recorded == Some(true)),
            lost: recorded == Some(false),
            work: Work::new(None),
            split: None,
        }
    }

    fn is_proved(&self) -> bool {
        self.proved.load(Ordering::Relaxed)
    }

    /// Whether it is to be searched: neither proved, nor split, nor through `rounds` rounds of
    /// searches.
    fn is_open(&self, rounds: usize) -> bool {
        !self.is_proved() && self.split.is_none() && self.next_search.load(Ordering::Relaxed) < rounds * PART_ROUND
    }

    /// The `nth` move not yet refuted (0 the first), `None` when fewer are left.
    fn unrefuted(&self, nth: usize) -> Option<usize> {
        let refuted = self.refuted.load(Ordering::Relaxed);
        (0..self.moves.len()).filter(|&i| refuted >> i & 1 == 0).nth(nth)
    }
}

/// The parts after one first move, searched by a proof by parts's threads in one pass.
struct PartSearch<'a, const GRAVITY: bool> {
    parts: &'a [Part],
    /// Rounds a part may take in this pass.
    rounds: usize,
    context: &'a PassContext<'a, GRAVITY>,
}

/// What a pass over one first move's parts found.
#[derive(Debug)]
enum Settled {
    /// Every part proved won.
    Won,
    /// A part shown not won: the first move does not win.
    Lost,
    /// Neither, within the pass's rounds.
    Open,
}

impl<const GRAVITY: bool> PartSearch<'_, GRAVITY> {
    /// Whether the side to move wins every part, by as many threads as `provers`, each part
    /// searched in at most `self.rounds` rounds.
    fn settle(&self, provers: &mut [Prover<CubeLines<GRAVITY>>]) -> Result<Settled, SearchError> {
        if self.parts.iter().any(|part| part.lost || part.position.is_won_by_previous()) {
            return Ok(Settled::Lost);
        }
        let next_part = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let fail = || {
            failed.store(true, Ordering::Relaxed);
            self.parts.iter().for_each(|part| part.work.stop());
        };
        let prove_some = |prover: &mut Prover<CubeLines<GRAVITY>>| -> Result<bool, SearchError> {
            // The part whose first-round searches this prover's tables hold, if any.
            let mut holds = None;
            while !failed.load(Ordering::Relaxed) {
                let taken = next_part.fetch_add(1, Ordering::Relaxed);
                let index = if taken < self.parts.len() {
                    if !self.parts[taken].is_open(self.rounds) {
                        continue;
                    }
                    taken
                } else {
                    // Every part taken: join the open one with the fewest threads.
                    let open = (0..self.parts.len()).filter(|&i| self.parts[i].is_open(self.rounds));
                    match open.min_by_key(|&i| self.parts[i].searchers.load(Ordering::Relaxed)) {
                        Some(index) => {
                            if self.parts[index].searchers.load(Ordering::Relaxed) > 0 {
                                self.context.counts.joins.fetch_add(1, Ordering::Relaxed);
                            }
                            index
                        }
                        None => break,
                    }
                };
                let part = &self.parts[index];
                part.searchers.fetch_add(1, Ordering::Relaxed);
                let outcome = Work::run(Some(&part.work), || self.search_part(prover, index, &mut holds));
                part.searchers.fetch_sub(1, Ordering::Relaxed);
                match outcome {
                    Ok(Some(true)) => {
                        part.proved.store(true, Ordering::Relaxed);
                        part.work.stop();
                    }
                    Ok(Some(false)) => {
                        fail();
                        return Ok(false);
                    }
                    // Through its rounds for this pass.
                    Ok(None) => {}
                    // Another thread proved the part, or failed the proof.
                    Err(SearchError::Stopped)
                        if part.proved.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) =>
                    {
                        self.context.counts.stopped.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        fail();
                        return Err(e);
                    }
                }
            }
            // Stopped by another thread's failure or error, this one has none to report: that
            // thread reports it (a `false` here would turn the other's time limit into a lost
            // part, and the first move would be dropped as not winning).
            Ok(true)
        };
        // Each part's work is within this thread's, which its threads run as part of.
        if !on_threads(provers, prove_some)? {
            return Ok(Settled::Lost);
        }
        let proved = self.parts.iter().all(|part| part.proved.load(Ordering::Relaxed));
        Ok(if proved { Settled::Won } else { Settled::Open })
    }

    /// Whether the side to move wins part `index`, by taking the next of its searches until
    /// one settles it (`None`: none did within the pass's rounds). `holds` is the part whose
    /// first-round searches `prover`'s tables hold: the searches of a part's first round share
    /// the tables (a move's search goes on from what the prover alone found below it), later
    /// ones start empty (what earlier rounds stored then misleads more than it saves:
    /// `a11 c22 d11`, 88 s on empty tables, not proved in 160 s after the rounds before;
    /// docs/BENCHMARKS.md).
    fn search_part(
        &self,
        prover: &mut Prover<CubeLines<GRAVITY>>,
        index: usize,
        holds: &mut Option<usize>,
    ) -> Result<Option<bool>, SearchError> {
        let part = &self.parts[index];
        if part.moves.iter().any(|(_, child)| child.is_won_by_previous()) {
            return Ok(Some(true));
        }
        loop {
            if part.refuted.load(Ordering::Relaxed).count_ones() as usize == part.moves.len() {
                self.context.keep(&part.path, false);
                return Ok(Some(false));
            }
            let taken = part.next_search.load(Ordering::Relaxed);
            if taken >= self.rounds * PART_ROUND {
                return Ok(None);
            }
            if part.next_search.compare_exchange(taken, taken + 1, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                continue; // another thread took it
            }
            let (round, slot) = (taken / PART_ROUND, taken % PART_ROUND);
            let length = self.context.first_round.of_round(round);
            let (searched, attacker_to_move, move_index) = match slot {
                0 => (part.position, true, None),
                nth => match part.unrefuted(nth - 1) {
                    Some(i) => (part.moves[i].1, false, Some(i)),
                    None => continue,
                },
            };
            if round > 0 || *holds != Some(index) {
                prover.clear();
            }
            *holds = (round == 0).then_some(index);
            let left = self.context.deadline.map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64());
            let start = Instant::now();
            let proof = match length {
                RoundLength::Seconds(seconds) => {
                    prover.set_time_limit(Some(left.map_or(seconds, |left| left.min(seconds))));
                    prover.prove(&searched, attacker_to_move)
                }
                RoundLength::Nodes(nodes) => {
                    prover.set_time_limit(left);
                    prover.prove_within(&searched, attacker_to_move, nodes)
                }
            };
            let outcome = proof.as_ref().ok().map(|proof| proof.attacker_wins);
            if !matches!(proof, Err(SearchError::Stopped)) {
                self.context.counts.searches.fetch_add(1, Ordering::Relaxed);
                self.context.counts.cut_short.fetch_add(usize::from(outcome.is_none()), Ordering::Relaxed);
                let alone = move_index.map(|i| part.moves[i].0);
                (self.context.report)(&part.path, alone, outcome, start.elapsed().as_secs_f64());
            }
            // Parts settled in under a second are settled as fast again: the journal keeps the
            // rest (of a split part's refuted moves, 130 of 152 parts shown lost took 0.0 s).
            let worth_keeping = start.elapsed().as_secs_f64() >= JOURNAL_SECONDS;
            match proof {
                Ok(proof) if proof.attacker_wins => {
                    if worth_keeping {
                        self.context.keep(&part.path, true);
                    }
                    return Ok(Some(true));
                }
                Ok(_) => match move_index {
                    None => {
                        if worth_keeping {
                            self.context.keep(&part.path, false);
                        }
                        return Ok(Some(false));
                    }
                    Some(i) => _ = part.refuted.fetch_or(1 << i, Ordering::Relaxed),
                },
                Err(SearchError::TimeLimit { nodes, .. }) if self.context.deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Err(SearchError::TimeLimit { seconds: self.context.max_time.unwrap_or(0.0), nodes });
                }
                Err(SearchError::TimeLimit { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The positions after each move of the side to move, one per class of images under the
/// game's symmetries, the most promising move first ([`LineGame::promise`]), with its cell.
fn moves_by_promise<const GRAVITY: bool>(game: &CubeLines<GRAVITY>, position: &Position) -> Vec<(u32, Position)> {
    let theirs = position.mask ^ position.current;
    let mut seen = HashSet::new();
    let mut moves = Vec::new();
    let mut cells = super::board::playable(position.mask, GRAVITY);
    while cells != 0 {
        let cell = cells & cells.wrapping_neg();
        cells &= cells - 1;
        let child = position.play(cell);
        if seen.insert(game.canonical_key(&child)) {
            moves.push((std::cmp::Reverse(game.promise(position.current, theirs, cell)), cell.trailing_zeros(), child));
        }
    }
    moves.sort_by_key(|&(promise, cell, _)| (promise, cell));
    moves.into_iter().map(|(_, cell, child)| (cell, child)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cube::board::parse_qubic;

    /// A part the side to move wins, but whose searches, unbounded, run far past the seconds a
    /// test allows: the empty cube.
    fn endless() -> Position {
        parse_qubic("").unwrap()
    }

    /// The searches of one pass over `positions` as parts (the path of each its index), by two
    /// threads, each search unbounded but the whole within `seconds`, each told to `report` as
    /// it ends, with what they counted and each part's searches taken.
    fn settle(
        positions: &[Position],
        seconds: f64,
        report: &PartReport<'_>,
    ) -> (Result<Settled, SearchError>, SearchCounts, Vec<usize>) {
        let game = CubeLines::<false>::new();
        let counts = SearchCounts::default();
        let context = PassContext {
            game: &game,
            deadline: Some(Instant::now() + Duration::from_secs_f64(seconds)),
            max_time: Some(seconds),
            first_round: RoundLength::Nodes(u64::MAX),
            split_open_parts: SPLIT_OPEN_PARTS,
            counts: &counts,
            report,
            journal: None,
        };
        let parts: Vec<Part> =
            positions.iter().zip(0..).map(|(position, i)| Part::new(&context, position, vec![i])).collect();
        let search = PartSearch { parts: &parts, rounds: 1, context: &context };
        let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
        let settled = search.settle(&mut provers);
        let taken = parts.iter().map(|part| part.next_search.load(Ordering::Relaxed)).collect();
        (settled, counts, taken)
    }

    /// A pass's context without a time limit, each search of a first round 64 nodes (too few
    /// to settle a part of the early cube), nothing reported.
    fn searches_of_64_nodes<'a>(
        game: &'a CubeLines<false>,
        counts: &'a SearchCounts,
        split_open_parts: usize,
    ) -> PassContext<'a, false> {
        fn no_report(_: &[u32], _: Option<u32>, _: Option<bool>, _: f64) {}
        PassContext {
            game,
            deadline: None,
            max_time: None,
            first_round: RoundLength::Nodes(64),
            split_open_parts,
            counts,
            report: &no_report,
            journal: None,
        }
    }

    /// A move's open parts are split where no more of them are open than the settings allow:
    /// after `a11 d44`, White's first move leaves most of its 60-odd parts open in searches of
    /// 64 nodes, which two allowed leaves whole and 63 splits.
    #[test]
    fn parts_split_where_no_more_than_the_settings_open_parts_are() {
        let game = CubeLines::<false>::new();
        for (split_open_parts, splits) in [(2, false), (63, true)] {
            let counts = SearchCounts::default();
            let context = searches_of_64_nodes(&game, &counts, split_open_parts);
            let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
            let mut node = Node::new(&game, &parse_qubic("a11 d44").unwrap(), Vec::new(), 1, Some(1));
            assert!(matches!(node.pass(&context, &mut provers, 1), Ok(Settled::Open)));
            let open = node.unsettled[0].parts.iter().filter(|part| !part.is_proved()).count();
            assert!(open > 2, "{open} parts open");
            assert_eq!(counts.splits.load(Ordering::Relaxed) > 0, splits, "{split_open_parts} open parts allowed");
        }
    }

    /// A move first tried in a later pass gets the node's first rounds, one more each pass
    /// after, whatever rounds the moves tried before it have reached: here one new move a
    /// pass, one round at first, each search 64 nodes, so that no part of the early cube
    /// settles.
    #[test]
    fn a_move_tried_in_a_later_pass_starts_at_the_first_rounds() {
        let game = CubeLines::<false>::new();
        let counts = SearchCounts::default();
        let context = searches_of_64_nodes(&game, &counts, SPLIT_OPEN_PARTS);
        let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
        let mut node = Node::new(&game, &parse_qubic("a11 d44").unwrap(), Vec::new(), 1, Some(1));
        for _ in 0..3 {
            assert!(matches!(node.pass(&context, &mut provers, 0), Ok(Settled::Open)));
        }
        let rounds: Vec<usize> = node.unsettled.iter().map(|tried| tried.rounds).collect();
        assert_eq!(rounds, [4, 3, 2], "rounds of the next pass, by the pass each move was tried in");
        for tried in &node.unsettled {
            for part in &tried.parts {
                let searches = part.next_search.load(Ordering::Relaxed);
                assert!(searches <= (tried.rounds - 1) * PART_ROUND, "{searches} searches of a part of move {}", tried.cell);
            }
        }
    }

    /// The thread that takes the endless part is still in its first search when the other shows
    /// its part lost (White to move, Black's a1- and -31 lines each a stone short), and that
    /// stops it: the pass ends lost, long before its time.
    #[test]
    fn a_part_shown_lost_stops_the_search_of_another() {
        let lost = parse_qubic("d44 a11 c43 a12 b24 a13 d12 b31 c14 c31 d23 d31").unwrap();
        let start = Instant::now();
        let (settled, counts, _) = settle(&[endless(), lost], 60.0, &|_, _, _, _| {});
        assert!(matches!(settled, Ok(Settled::Lost)), "{:?}", settled.err());
        assert_eq!(counts.stopped.load(Ordering::Relaxed), 1);
        assert!(start.elapsed() < Duration::from_secs(50), "the endless search ran to the deadline");
    }

    /// The thread whose part is won at once (White's a14 completes a line) finds every part
    /// taken and joins the endless one, taking its second search, until the pass's time is up.
    #[test]
    fn a_thread_with_no_part_left_joins_an_open_one() {
        let won = parse_qubic("a11 d44 a12 c43 a13 b42").unwrap();
        let (settled, counts, taken) = settle(&[endless(), won], 2.0, &|_, _, _, _| {});
        assert!(matches!(settled, Err(SearchError::TimeLimit { .. })), "{settled:?}");
        assert_eq!(taken[0], 2, "searches of the endless part");
        assert!(counts.joins.load(Ordering::Relaxed) <= 1);
    }

    /// A pass out of time is out of time, not lost, whichever thread it stops first: here the
    /// endless part's search runs out while the other thread, its part proved (White's a11 makes
    /// two lines of three), is held in the report of that proof until the failure is in; that
    /// thread then has no failure of its own to report. (Its `false` once made the pass lost, so
    /// a proof by parts out of time dropped the first move as not winning.)
    #[test]
    fn a_pass_out_of_time_is_not_lost() {
        let won_in_three = parse_qubic("a12 d44 a13 c42 b11 b23 c11 d32").unwrap();
        let seconds = 1.0;
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        // The parts' paths are their indexes ([`settle`]): the second is won in three.
        let hold = |part: &[u32], _: Option<u32>, _: Option<bool>, _: f64| {
            if part == [1] {
                std::thread::sleep(deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1));
            }
        };
        let (settled, _, _) = settle(&[endless(), won_in_three], seconds, &hold);
        assert!(matches!(settled, Err(SearchError::TimeLimit { .. })), "{settled:?}");
    }

    /// The cells of `text`'s Qubic moves, in order.
    fn cells(text: &str) -> Vec<u32> {
        super::super::board::play_qubic(text).unwrap().1
    }

    /// A journal reads back what it recorded, under any of the cube's symmetries, writes a
    /// position once, and refuses a damaged line (naming the file and the line) and a link.
    #[test]
    fn the_parts_journal_reads_back_its_records_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("qubic-parts.journal");
        {
            let journal = PartsJournal::<false>::open(&path).unwrap();
            assert!(journal.is_empty());
            journal.keep(&cells("a11 d44"), true);
            journal.keep(&cells("a11 d44"), true);
            journal.keep(&cells("b11 c32 b22"), false);
            journal.keep(&[], true);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "wins a11 d44\ncannot-win b11 c32 b22\nwins\n");
        let journal = PartsJournal::<false>::open(&path).unwrap();
        assert_eq!(journal.len(), 3);
        // The mirror image across the a-d axis, and the same stones played in another order.
        assert_eq!(journal.get(&parse_qubic("d11 a44").unwrap()), Some(true));
        assert_eq!(journal.get(&parse_qubic("b22 c32 b11").unwrap()), Some(false));
        assert_eq!(journal.get(&parse_qubic("a11").unwrap()), None);
        assert_eq!(journal.get(&parse_qubic("").unwrap()), Some(true));

        for (bad, line) in [
            ("wins a11 d44\nwins a11 a11\n", 2), // a cell taken twice
            ("win a11\n", 1),
            ("wins a11 d44 e11\n", 1),
            ("wins a11\n\nwins a11 d44 a12 d43 a13 d42 a14\n", 3), // a line finished
        ] {
            std::fs::write(&path, bad).unwrap();
            let error = PartsJournal::<false>::open(&path).err().unwrap().to_string();
            assert!(error.contains("qubic-parts.journal") && error.contains(&format!("line {line} ")), "{error}");
        }
        // Sogo's moves are columns.
        std::fs::write(&path, "wins b2 b2 c3\n").unwrap();
        let journal = PartsJournal::<true>::open(&path).unwrap();
        assert_eq!(journal.get(&super::super::board::parse_sogo("b2 b2 c3").unwrap()), Some(true));
        assert!(PartsJournal::<false>::open(&path).is_err());

        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "kept").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(PartsJournal::<false>::open(&path).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    }

    /// A proof by parts takes what its journal records without searching: a first move with a
    /// part recorded not won is dropped at once, one whose every part is recorded won is
    /// proved, and the proof's own outcome is recorded at its end. (The records here are made
    /// up: rounds of 64 nodes prove nothing of this position, so every outcome is the
    /// journal's.)
    #[test]
    fn a_proof_by_parts_takes_its_journals_outcomes_and_records_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("qubic-parts.journal");
        let game = CubeLines::<false>::new();
        let root_moves = cells("a11 d44");
        let root = parse_qubic("a11 d44").unwrap();
        let moves = moves_by_promise(&game, &root);
        let (first, second) = (moves[0], moves[1]);
        {
            let journal = PartsJournal::<false>::open(&path).unwrap();
            let reply = moves_by_promise(&game, &first.1)[0].0;
            journal.record(&[root_moves.as_slice(), &[first.0, reply]].concat(), false).unwrap();
            for (reply, _) in moves_by_promise(&game, &second.1) {
                journal.record(&[root_moves.as_slice(), &[second.0, reply]].concat(), true).unwrap();
            }
        }
        let journal = PartsJournal::<false>::open(&path).unwrap();
        let recorded = journal.len();
        let settings = PartsSettings {
            table_bytes: 1 << 22,
            max_time: Some(60.0),
            first_round: RoundLength::Nodes(64),
            ..PartsSettings::default()
        };
        let at = JournalAt { journal: &journal, moves: &root_moves };
        let proof = prove_by_parts::<false>(&root, &settings, Some(at), &|_, _, _, _| {}, &|_, _, _| {}).unwrap();
        assert!(proof.wins);
        assert_eq!(proof.first_move, Some(second.0));
        assert_eq!((proof.first_moves_tried, proof.searches), (2, 0));
        let replies = moves_by_promise(&game, &first.1).len() + moves_by_promise(&game, &second.1).len();
        assert_eq!(proof.from_journal, 1 + moves_by_promise(&game, &second.1).len(), "of {replies} parts");
        drop(journal);
        let journal = PartsJournal::<false>::open(&path).unwrap();
        assert_eq!(journal.len(), recorded + 1);
        assert_eq!(journal.get(&root), Some(true));
    }
}
