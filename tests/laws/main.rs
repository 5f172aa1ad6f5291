//! The laws of the layout algebra checked on generated inputs: property tests on both paths,
//! a random differential against brute force, the inverses against exhaustive searches,
//! and printed values that read back. One test binary for all of them; `cargo test --test laws
//! MODULE` runs one module.

// The shared helpers, compiled once for all the modules below (each imports what it uses).
#[path = "../common/complement.rs"]
mod complement;
#[path = "../common/layout_oracle.rs"]
mod layout_oracle;
#[path = "../common/layouts.rs"]
mod layouts;
#[path = "../common/rng.rs"]
mod rng;

mod algebra_properties;
mod bank;
mod composed;
mod inverse_gaps;
mod linear;
mod properties;
mod random_differential;
mod round_trip;
mod synthesis;
