//! Compile errors are part of the API: every diagnostic has a case in `ui-tests/` with its expected
//! `.stderr`. The cases that must compile make trybuild run a full build, so that compile-time
//! assertions (which `cargo check` does not evaluate) are exercised too.
//!
//! The `.stderr` files are rustc 1.95's output; regenerate them with `TRYBUILD=overwrite cargo test
//! --test ui` after a toolchain change and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/pass/*.rs");
    t.compile_fail("ui-tests/fail/*.rs");
}
