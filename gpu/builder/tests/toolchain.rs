//! The builder with the real PTX toolchain: builds the fixture kernel crate
//! (tests/fixtures/kernels) with the library, the tool and a host crate's build script
//! (tests/fixtures/host), and checks the modules and reports.
//!
//! Ignored by default (a machine without the toolchain cannot run them); CI installs the
//! toolchain (`bash tools/gpu/build-ptx.sh`) and runs them with `--ignored` and
//! `CONST_LAYOUT_PTX=require`, under which a missing toolchain fails them. Without it they say
//! so on standard error and check nothing.

use const_layout_builder::{
    BuildError, Builder, ParamsCheck, Ptx, Ptxas, SourceAbi, apply_launch_bounds, check,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const IGNORED: &str = "needs the PTX toolchain: run with --ignored after tools/gpu/ptx-toolchain.sh";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// One target directory for every build of the fixture kernels: core is built once.
fn kernels_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-kernels")
}

/// The fixture built by the library, or `None` where there is no toolchain (which is a failure
/// under `CONST_LAYOUT_PTX=require`).
fn build_fixture() -> Option<Ptx> {
    match Builder::new(fixture("kernels")).target_dir(kernels_target()).locked(true).build() {
        Ok(ptx) => Some(ptx),
        Err(BuildError::Toolchain(e)) if std::env::var("CONST_LAYOUT_PTX").as_deref() != Ok("require") => {
            eprintln!("NOT CHECKED ({IGNORED}): {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
#[ignore = "needs the PTX toolchain: run with --ignored after tools/gpu/ptx-toolchain.sh"]
fn builds_and_checks_a_kernel_crate() {
    let Some(ptx) = build_fixture() else { return };
    assert_eq!(std::fs::read_to_string(&ptx.path).unwrap(), ptx.text);
    assert_eq!(ptx.path, kernels_target().join("fixture_kernels.ptx"));
    let r = &ptx.report;
    assert!(r.checks_passed);
    assert_eq!((r.version.as_deref(), r.target.as_deref()), (Some("8.3"), Some("sm_90a")));
    let names: Vec<&str> = r.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["fill_f64", "fill_u32", "mixed", "scale"]);
    let entry = |name: &str| r.entries.iter().find(|e| e.name == name).unwrap();
    let decls = |name: &str| entry(name).params.iter().map(|p| p.to_string()).collect::<Vec<_>>();

    // What rustc declares for each Rust type, as the source reader predicts it.
    assert_eq!(
        decls("mixed"),
        [
            ".param .u64 .ptr .align 1", // *mut u64
            ".param .align 4 .b8 [16]",  // [f32; 4] (through an alias)
            ".param .align 8 .b8 [16]",  // #[repr(C)] { u32, f32, u64 }
            ".param .align 4 .b8 [8]",   // #[repr(C)] { u32, u32 }
            ".param .f64",               // f64
            ".param .u64",               // #[repr(transparent)] over u64
            ".param .u64",               // i64
        ]
    );
    let src = |s: &str| ParamsCheck::Checked { origins: vec![s.to_string()], unchecked: vec![] };
    assert_eq!(entry("mixed").params_check, src("src/lib.rs: fn mixed"));
    assert_eq!(entry("scale").params_check, src("src/lib.rs: fn scale"));
    // A macro_rules! entry point: through its `Entry` declaration, or not checked without one.
    assert_eq!(entry("fill_f64").params_check, src("src/lib.rs: const FILL_F64"));
    assert_eq!(entry("fill_u32").params_check, ParamsCheck::NotInSource);
    assert_eq!(decls("fill_u32"), [".param .u64 .ptr .align 1", ".param .u32", ".param .u32"]);

    // The launch-bounds marker became the entry's directives, once.
    let b = entry("scale").launch_bounds.as_ref().unwrap();
    assert_eq!((b.max_threads, b.min_blocks), (128, 4));
    assert_eq!(ptx.text.matches(".maxntid 128, 1, 1\n.minnctapersm 4\n{").count(), 1);
    assert_eq!(entry("mixed").launch_bounds, None);
    assert_eq!(apply_launch_bounds(&ptx.text).unwrap(), ptx.text);
    assert!(entry("scale").instructions > 5, "{}", r);

    // The same module against a source that declares `mixed`'s last parameter an f64: an error
    // naming the parameter and its PTX line.
    let lib = std::fs::read_to_string(fixture("kernels/src/lib.rs")).unwrap();
    let abi = std::fs::read_to_string(fixture("kernels/src/abi.rs")).unwrap();
    let wrong = lib.replace("k: i64", "k: f64");
    assert_ne!(wrong, lib);
    let err = check(
        &ptx.text,
        Some(&SourceAbi::from_sources([("src/lib.rs", wrong.as_str()), ("src/abi.rs", abi.as_str())])),
    )
    .unwrap_err();
    let line = ptx.text.lines().position(|l| l.contains("mixed_param_6")).unwrap() + 1;
    assert_eq!(
        err.to_string(),
        format!(
            "line {line}: mixed: parameter 7 is `.param .u64` in the PTX, but `k: f64` (src/lib.rs: fn mixed) needs `.param .f64`"
        )
    );

    // ptxas measured it where it is installed.
    match &r.ptxas {
        Ptxas::Ran { .. } => assert!(r.entries.iter().all(|e| e.resources.is_some_and(|x| x.registers > 0))),
        Ptxas::NotFound => assert!(r.entries.iter().all(|e| e.resources.is_none())),
        other => panic!("{other}"),
    }
}

#[test]
#[ignore = "needs the PTX toolchain: run with --ignored after tools/gpu/ptx-toolchain.sh"]
fn the_tool_builds_a_kernel_crate() {
    if build_fixture().is_none() {
        return;
    }
    let out_file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tool/kernels.ptx");
    let out = Command::new(env!("CARGO_BIN_EXE_const-layout-ptx"))
        .args(["build", "--locked", "--no-ptxas", "--target-dir"])
        .arg(kernels_target())
        .arg("-o")
        .arg(&out_file)
        .arg(fixture("kernels"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with(&format!("{}: built by ", out_file.display())), "{stdout}");
    assert_eq!(
        lines[1],
        "PTX 8.3 for sm_90a: 4 entry points; no integer division or remainder, no local memory, no call"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("  scale: ")
            && l.contains(
                "; launch bounds 128 threads, 4 blocks/SM; parameters checked (src/lib.rs: fn scale)"
            )),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"ptxas not run"));
    assert!(std::fs::read_to_string(&out_file).unwrap().contains(".minnctapersm 4"));
}

#[test]
#[ignore = "needs the PTX toolchain: run with --ignored after tools/gpu/ptx-toolchain.sh"]
fn a_build_script_includes_the_checked_module() {
    if build_fixture().is_none() {
        return;
    }
    // The host crate's build, as a user runs it: its own cargo (the outer one), whose build
    // variables must not reach the nested build. RUSTFLAGS, which cargo hands the build script as
    // CARGO_ENCODED_RUSTFLAGS, would fail the kernels (`fixture_leak`; checked by letting that one
    // through: the build fails); CARGO_TARGET_DIR would make the nested build wait on the outer
    // one's lock.
    let host_target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-host");
    let mut cmd = Command::new(env!("CARGO"));
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(|k| k.starts_with("CARGO_") && k != "CARGO_HOME") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .args(["run", "--offline", "--locked", "--manifest-path"])
        .arg(fixture("host/Cargo.toml"))
        .env("CARGO_TARGET_DIR", &host_target)
        .env("RUSTFLAGS", "--cfg fixture_leak")
        .env("CONST_LAYOUT_PTX", "require")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("PTX ") && lines[0].ends_with("/out/fixture_kernels.ptx"), "{stdout}");
    assert_eq!(lines[1..], ["entry fill_f64", "entry fill_u32", "entry mixed", "entry scale"]);
    // The nested build's own target directory, in the host's: the same for every host profile.
    let nested =
        host_target.join("const-layout-ptx/fixture_kernels/nvptx64-nvidia-cuda/release/fixture_kernels.ptx");
    assert!(nested.is_file(), "{}", nested.display());
}
