//! What the integration tests and `tablebase bench` reach beyond the public API: the file
//! format's internals, the parts of a forward pass, a deterministic generator. Hidden from the
//! documentation and not part of the API: it changes with the code.

pub use crate::layered::bitset::BitSet;
pub use crate::layered::forward::{reachable_counts, reachable_set};
pub use crate::rng::SplitMix64;
pub use crate::solve::check::PART_LEN;
pub use crate::table::compress::sample_of;
pub use crate::table::format::HEADER_SIZE;
pub use crate::table::header::{Header, checksum};
pub use crate::table::pairs::{BadCode, BlockIndex, EncodedBlocks, GROUP_BLOCKS, PairCode, RECORD_BYTES};
pub use crate::table::set::write_set;

/// Nine Men's Morris: the per-class index, un-moves, published figures.
pub mod morris {
    pub use crate::games::morris::index::ClassIndex;
    pub use crate::games::morris::reference::{morris_class_size, morris_class_wdl, placement_positions};
    pub use crate::games::morris::rules::{for_each_unmove, for_each_unslide, hands_alternate};
}

/// Connect Four: the per-ply index, the searcher, published figures.
pub mod connect4 {
    pub use crate::games::connect4::index::PlyIndex;
    pub use crate::games::connect4::reference::{
        connect4_7x6_positions, connect4_board, connect4_ply_positions,
    };
    pub use crate::games::connect4::search::{DEFAULT_TABLE_BYTES, Searcher, value_of_score};
}
