//! The laws of the layout algebra checked on generated inputs: property tests on both paths,
//! issue 16's random differential against brute force, the inverses against exhaustive searches,
//! and printed values that read back. One test binary for all of them; `cargo test --test laws
//! MODULE` runs one module.

mod algebra_properties;
mod inverse_gaps;
mod properties;
mod random_differential;
mod round_trip;
