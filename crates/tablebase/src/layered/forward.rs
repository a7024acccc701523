//! The forward pass: marks the positions reachable from the start, layer by layer.

use super::{BitSet, LayeredGame};
use crate::progress::Progress;
use crate::table::Words;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Walks the members of `layer` (given by their words): marks every child in `next` when there
/// is one, and returns the number of positions the members stand for (their weights).
pub(crate) fn expand<G: LayeredGame>(
    game: &G,
    layer: u32,
    members: &impl Words,
    next: Option<&BitSet>,
    progress: &Progress,
) -> u64 {
    let weight = AtomicU64::new(0);
    progress.step(&format!("forward {} {layer}", game.layer_word()), members.word_count() as u64);
    super::bitset::par_for_each_member(
        members,
        || (G::Walker::default(), 0u64),
        |(walker, sum), index| {
            let position = game.position(layer, walker, index);
            *sum += game.weight(layer, &position);
            if let Some(next) = next {
                game.for_each_child(layer, &position, |child| next.insert(child));
            }
        },
        |(_, sum), words| {
            weight.fetch_add(sum, Relaxed);
            progress.advance(words);
        },
    );
    weight.into_inner()
}

/// The set of layer 0: the start positions.
pub(crate) fn start_set<G: LayeredGame>(game: &G) -> BitSet {
    let set = BitSet::new(game.index_size(0));
    for index in game.start() {
        set.insert(index);
    }
    set
}

/// The forward pass in memory, without files, up to `last_layer`: calls `layer_done(layer,
/// positions)` with the reachable positions of each layer, weighted as the references count
/// them. Two layers are in memory at a time.
pub fn reachable_counts<G: LayeredGame, E>(
    game: &G,
    last_layer: u32,
    progress: &Progress,
    mut layer_done: impl FnMut(u32, u64) -> Result<(), E>,
) -> Result<(), E> {
    let last_layer = last_layer.min(game.layers().saturating_sub(1));
    let mut current = start_set(game);
    for layer in 0..=last_layer {
        let next = (layer < last_layer).then(|| BitSet::new(game.index_size(layer + 1)));
        let positions = expand(game, layer, &current, next.as_ref(), progress);
        layer_done(layer, positions)?;
        match next {
            Some(next) => current = next,
            None => break,
        }
    }
    Ok(())
}

/// The reachable set of `layer`, by the forward pass in memory from the start (two layers'
/// sets at a time).
pub fn reachable_set<G: LayeredGame>(game: &G, layer: u32, progress: &Progress) -> BitSet {
    let mut current = start_set(game);
    for l in 0..layer.min(game.layers().saturating_sub(1)) {
        let next = BitSet::new(game.index_size(l + 1));
        expand(game, l, &current, Some(&next), progress);
        current = next;
    }
    current
}
