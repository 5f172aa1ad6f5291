//! CK Tile's transforms and descriptors and rocRoller's coordinate graph, on the references' own
//! runs and against the layout algebra. One test binary for all of them; `cargo test --test
//! transform MODULE` runs one module.

#[path = "../common/graphs.rs"]
mod graphs;
#[path = "../common/rng.rs"]
mod rng;

mod ck_text;
mod descriptors;
mod graph;
mod graph_expr;
mod graph_text;
mod transforms;
