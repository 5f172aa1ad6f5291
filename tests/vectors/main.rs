//! The runtime-structured path (`dynamic`) against CuTe C++: the vectors in `tests/data/` that
//! CuTe itself printed (`tools/oracle/`), the documented examples of CuTe, FLIR and Fly, and the
//! algebra's gaps next to CuTe's answers. One test binary (one build and link) for all of them;
//! `cargo test --test vectors MODULE` runs one module.

// The shared helpers, compiled once for all the modules below (each imports what it uses).
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/complement.rs"]
mod complement;
#[path = "../common/layouts.rs"]
mod layouts;
#[path = "../common/rng.rs"]
mod rng;

mod algebra_examples;
mod algebra_vectors;
mod composition_gaps;
mod cute_vectors;
mod identity_vectors;
mod product_modes;
mod swizzle_slice_vectors;
