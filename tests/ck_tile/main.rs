//! CK Tile's transforms, adaptors and descriptors, on CK's own runs and against the layout
//! algebra, and their text form. `cargo test --test ck_tile MODULE` runs one module.

#[path = "../common/rng.rs"]
mod rng;

mod descriptors;
mod text;
mod transforms;
