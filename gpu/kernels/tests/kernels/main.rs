//! The kernels on the CPU emulator against plain loops. One test binary (one build and link) for
//! all of them; `cargo test -p const-layout-kernels --test kernels MODULE` runs one module.

// The shared helpers, compiled once for all the modules below (each imports what it uses).
#[path = "../common/mod.rs"]
mod common;

mod attention_sm90;
mod copy;
mod hgemm;
mod hgemm_sm90;
mod sgemm;
mod transpose;
