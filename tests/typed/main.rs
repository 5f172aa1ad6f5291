//! The typed and static paths (`Layout<S, D>`, `layout!`, `algebra::computed`, `algebra::tiling`)
//! against CuTe C++'s vectors and anchor, and against the runtime algebra. One test binary for all
//! of them; `cargo test --test typed MODULE` runs one module.

mod anchor_ops;
mod atoms;
mod computed_vectors;
mod layout_methods;
mod ordered_vectors;
mod static_suite;
mod tiling;
mod typed_vectors;
