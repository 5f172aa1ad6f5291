//! rocRoller's coordinate graph, on rocRoller's own test expectations and against the layout
//! algebra, its expressions and its text form. `cargo test --test rocroller MODULE` runs one
//! module.

#[path = "../common/graphs.rs"]
mod graphs;
#[path = "../common/rng.rs"]
mod rng;

mod expr;
mod graph;
mod text;
