//! A strategy for Qubic's first player: the moves that lead a proof of White's win from the
//! empty cube, where the prover alone would try many moves before it found a winning one.
//!
//! Each entry is a position after one of White's moves. White opens on a corner, and against
//! each of Black's twelve kinds of reply (the cells that the symmetries fixing that corner do
//! not map onto one another) takes a second corner. Eleven of the twelve are the moves of
//! Patashnik's winning strategy (1980, "Qubic: 4x4x4 Tic-Tac-Toe", Mathematics Magazine 53),
//! a corner sharing with the first a line free of Black's stone; against the inner cell b22
//! that corner (a14) resisted the prover for 900 s, and the one found by the prover itself
//! (d41, across a face diagonal) is proved in about a minute. The proofs after them are this
//! program's. A proof that follows the strategy is a proof, whatever the source of its moves;
//! one that fails proves nothing, and the solver then searches without it.

/// White's moves: the positions after them, in the notation of `probe qubic`.
pub const QUBIC_STRATEGY: [&str; 13] = [
    "a11",
    "a11 b11 a41",
    "a11 d11 a41",
    "a11 b21 a14",
    "a11 c21 a14",
    "a11 d21 d11",
    "a11 d41 a41",
    "a11 b22 d41",
    "a11 c22 d11",
    "a11 d22 d11",
    "a11 d32 d11",
    "a11 d42 a14",
    "a11 d44 a14",
];

/// White's second moves after the weak first move b11 (a cell on 4 lines), against the kinds
/// of Black's reply (23 under the symmetries that keep b11) for which one was found: each is
/// the move a proof of White's win from the reply found, or the one of a few tried that a proof
/// of the position after it settled soonest (docs/BENCHMARKS.md). Against a reply not listed
/// the prover looks for White's move itself. No published strategy starts on a weak cell.
pub const QUBIC_WEAK_OPENING: &[&str] = &[
    "b11",
    "b11 a21 a11",
    "b11 b21 a11",
    "b11 c21 b22",
    "b11 d21 d11",
    "b11 b41 a11",
    "b11 c41 b22",
    "b11 a42 b21",
    "b11 b42 d11",
    "b11 c42 d11",
    "b11 d42 d11",
    "b11 b44 a11",
    "b11 c44 b21",
    "b11 a22 a11",
    "b11 d22 a11",
    "b11 a32 d11",
    "b11 c11 b33",
];
