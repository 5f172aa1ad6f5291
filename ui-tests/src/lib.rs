//! The compile errors of const-layout, as trybuild cases: `fail/*.rs` must fail to compile with
//! exactly the checked-in `.stderr`, `pass/*.rs` must build (a full build, so compile-time
//! assertions are evaluated). The test is `tests/ui.rs`; this library is empty.
#![no_std]
