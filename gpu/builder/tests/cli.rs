//! `const-layout-ptx` on bad input (exit status 1, one line on standard error starting with
//! `const-layout-ptx: `, never a panic) and `check` on modules written here. Building with the real
//! toolchain is tests/toolchain.rs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_const-layout-ptx")).args(args).output().expect("const-layout-ptx runs")
}

/// Asserts the one-line error and returns it.
fn fails(args: &[&str]) -> String {
    let out = tool(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
    assert!(lines[0].starts_with("const-layout-ptx: "), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    lines[0].to_string()
}

/// A fresh directory for the test `name`.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kernels").display().to_string()
}

const GOOD: &str = ".version 8.3\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .f32 k_param_1\n)\n{\n\tret;\n}\n";

#[test]
fn commands_and_help() {
    assert_eq!(
        fails(&[]),
        "const-layout-ptx: no command (build, check or install-toolchain; --help says more)"
    );
    assert_eq!(
        fails(&["make"]),
        "const-layout-ptx: unknown command `make` (build, check or install-toolchain; --help says more)"
    );
    for args in [&["--help"][..], &["build", "--help"], &["check", "-h"], &["install-toolchain", "--help"]] {
        let out = tool(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("const-layout-ptx build [OPTIONS] CRATE_DIR") && text.contains("--toolchain T"),
            "{text}"
        );
    }
}

#[test]
fn install_toolchain() {
    // The script it runs, printed: what a user can read (or run by hand) first.
    let out = tool(&["install-toolchain", "--print"]);
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(script.starts_with("#!/usr/bin/env bash") && script.contains("llvm-bitcode-linker"), "{script}");
    assert_eq!(fails(&["install-toolchain", "a", "b"]), "const-layout-ptx: one directory at most: `b`");
    assert_eq!(
        fails(&["install-toolchain", "--prefix"]),
        "const-layout-ptx: unknown option `--prefix` (--help says more)"
    );
}

#[test]
fn build_bad_input() {
    let f = fixture();
    assert_eq!(fails(&["build"]), "const-layout-ptx: build needs the kernel crate's directory");
    assert_eq!(
        fails(&["build", "--frobnicate", &f]),
        "const-layout-ptx: unknown option `--frobnicate` of build (--help says more)"
    );
    assert_eq!(fails(&["build", &f, "--target-cpu"]), "const-layout-ptx: --target-cpu needs a value");
    assert_eq!(fails(&["build", &f, "a", "b"]), "const-layout-ptx: one crate directory, and `a` is a second");
    assert_eq!(
        fails(&["build", "--toolchain", "gcc", &f]),
        "const-layout-ptx: unknown toolchain `gcc` (auto, debian, debian:RUSTC, rustup or rustup:CHANNEL)"
    );
    let missing = dir("build-missing").join("nothing");
    assert_eq!(
        fails(&["build", missing.to_str().unwrap()]),
        format!(
            "const-layout-ptx: {}: no Cargo.toml (build takes the kernel crate's directory)",
            missing.display()
        )
    );
    assert_eq!(
        fails(&["build", "--target-cpu=sm 90", &f]),
        "const-layout-ptx: target CPU `sm 90`: expected a name like sm_90a"
    );
    // A toolchain that is not there: what is missing and how to install it, one line.
    let e = fails(&["build", "--toolchain=debian:/nonexistent/rustc", &f]);
    assert!(
        e.starts_with("const-layout-ptx: no PTX toolchain: Debian's route: `/nonexistent/rustc` not found; install: const-layout-ptx install-toolchain"),
        "{e}"
    );
    let e = fails(&["build", "--toolchain", "rustup:no-such-toolchain-here", &f]);
    assert!(
        e.starts_with("const-layout-ptx: no PTX toolchain: rustup's route (no-such-toolchain-here): "),
        "{e}"
    );
    assert!(e.ends_with("install: rustup toolchain install no-such-toolchain-here -c rust-src -c llvm-tools -c llvm-bitcode-linker"), "{e}");
}

#[test]
fn check_bad_input() {
    assert_eq!(fails(&["check"]), "const-layout-ptx: check needs a PTX file");
    assert_eq!(
        fails(&["check", "--bogus", "x.ptx"]),
        "const-layout-ptx: unknown option `--bogus` of check (--help says more)"
    );
    let d = dir("check-bad");
    let missing = d.join("missing.ptx");
    let e = fails(&["check", missing.to_str().unwrap()]);
    assert!(e.starts_with(&format!("const-layout-ptx: {}: ", missing.display())), "{e}");
    let good = d.join("good.ptx");
    std::fs::write(&good, GOOD).unwrap();
    assert_eq!(
        fails(&["check", good.to_str().unwrap(), "--source"]),
        "const-layout-ptx: --source needs a value"
    );
    assert_eq!(
        fails(&["check", good.to_str().unwrap(), "--source", d.to_str().unwrap()]),
        format!(
            "const-layout-ptx: {}: no src directory (--source takes the kernel crate's directory)",
            d.display()
        )
    );
    // Not PTX at all: no entry point.
    let junk = d.join("junk.ptx");
    std::fs::write(&junk, [0xff, 0xfe, b'\n']).unwrap();
    let e = fails(&["check", junk.to_str().unwrap()]);
    assert!(e.contains("stream did not contain valid UTF-8"), "{e}");
    std::fs::write(&junk, "hello\n").unwrap();
    assert_eq!(
        fails(&["check", junk.to_str().unwrap()]),
        format!("const-layout-ptx: {}: no entry point in the module", junk.display())
    );
}

#[test]
fn check_a_module() {
    let d = dir("check");
    let good = d.join("good.ptx");
    std::fs::write(&good, GOOD).unwrap();
    let out = tool(&["check", good.to_str().unwrap()]);
    assert!(out.status.success());
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.starts_with(
            "PTX 8.3 for sm_90a: 1 entry point; no integer division or remainder, no local memory, no call\n"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "  k: 1 instructions; parameters not checked (no source given)\n      .param .u32, .param .f32\n"
        ),
        "{report}"
    );

    // Against a source: matching, then not.
    let src = d.join("kernels");
    std::fs::create_dir_all(src.join("src")).unwrap();
    std::fs::write(
        src.join("src/lib.rs"),
        "#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn k(n: u32, x: f32) {}",
    )
    .unwrap();
    let out = tool(&["check", good.to_str().unwrap(), "--source", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("k: 1 instructions; parameters checked (src/lib.rs: fn k)")
    );
    std::fs::write(
        src.join("src/lib.rs"),
        "#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn k(n: u32, x: f64) {}",
    )
    .unwrap();
    assert_eq!(
        fails(&["check", good.to_str().unwrap(), &format!("--source={}", src.display())]),
        format!(
            "const-layout-ptx: {}:7: k: parameter 2 is `.param .f32` in the PTX, but `x: f64` (src/lib.rs: fn k) needs `.param .f64`",
            good.display()
        )
    );
}

#[test]
fn check_failures_one_line_each() {
    let d = dir("check-failures");
    let bad = d.join("bad.ptx");
    std::fs::write(
        &bad,
        "// const-layout: launch_bounds gone 64 1\n.visible .entry k()\n{\n\t.local .align 4 .b8 __local_depot0[8];\n\tdiv.u32 %r1, %r2, %r3;\n\tcall.uni f, ();\n}\n",
    )
    .unwrap();
    let out = tool(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let p = bad.display();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!("const-layout-ptx: {p}:4: k: local memory: .local .align 4 .b8 __local_depot0[8];"),
            format!("const-layout-ptx: {p}:5: k: an integer division or remainder: div.u32 %r1, %r2, %r3"),
            format!("const-layout-ptx: {p}:6: k: a call: call.uni f, ()"),
            format!(
                "const-layout-ptx: {p}:1: gone: launch bounds for `gone`, which is not an entry point of the module"
            ),
        ]
    );
}
