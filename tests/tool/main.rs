//! What a user sees: the `layout` tool run as a user runs it, and the pictures (`picture`)
//! against CuTe's `print_latex` and the SVG golden files. One test binary for both; `cargo test
//! --test tool MODULE` runs one module.

mod ck_tile;
mod cli;
mod picture;
mod rocroller;
// SplitMix64, shared with the other test binaries: the random descriptors and graphs.
#[path = "../common/rng.rs"]
mod rng;
