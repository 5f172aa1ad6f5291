//! The runtime-structured path (`dynamic`) against CuTe C++: the vectors in `tests/data/` that
//! CuTe itself printed (`tools/oracle/`), the documented examples of CuTe, FLIR and Fly, and the
//! algebra's gaps next to CuTe's answers. One test binary (one build and link) for all of them;
//! `cargo test --test vectors MODULE` runs one module.

mod algebra_examples;
mod algebra_vectors;
mod composition_gaps;
mod cute_vectors;
mod identity_vectors;
mod product_modes;
mod swizzle_slice_vectors;
