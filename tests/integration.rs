//! The integration tests: one module per concern, in one test binary, so that the library's
//! generic solvers are compiled once for all of them. Each runs the `tablebase` binary or the
//! library as a user would; nextest runs every test in its own process.
//!
//! One module's tests: `cargo test --release --test integration cube_search::`.

mod common;

mod cli;
mod connect4_cli;
mod connect4_reach;
mod connect4_search;
mod connect4_solve;
mod cube_search;
mod damage;
mod docs;
mod estimates;
mod fuzz_input;
mod golden;
mod hostile_cli;
mod job_graph;
mod lasker_reference;
mod morabaraba_reference;
mod morris_index;
mod morris_notation;
mod morris_opening;
mod morris_probe;
mod morris_rules;
mod morris_solve;
mod outside_truth;
mod pictures_and_play;
mod placement_census;
mod readme;
mod serve;
mod structure;
mod tictactoe;
