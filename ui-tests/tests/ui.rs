//! Compile errors are part of the API: every diagnostic has a case in `ui-tests/` with its expected
//! `.stderr`. The cases that must compile make trybuild run a full build, so that compile-time
//! assertions (which `cargo check` does not evaluate) are exercised too.
//!
//! The `.stderr` files are rustc 1.95's output (rust-toolchain.toml); regenerate them with
//! `TRYBUILD=overwrite cargo test -p const-layout-ui-tests` after a toolchain change and review the
//! diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    t.compile_fail("fail/*.rs");
}
