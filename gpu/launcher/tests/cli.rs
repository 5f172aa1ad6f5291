//! `gpu-bench` on bad input and without a GPU (this test runs where there is none): exit status 1,
//! exactly one line on stderr starting with `gpu-bench: `, no panic.

use std::path::PathBuf;
use std::process::{Command, Output};

fn gpu_bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-bench")).args(args).output().expect("gpu-bench runs")
}

/// Asserts the one-line error and returns it.
fn fails(args: &[&str]) -> String {
    let out = gpu_bench(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
    assert!(lines[0].starts_with("gpu-bench: "), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    lines[0].to_string()
}

/// A small PTX module with the entry points' names (empty bodies, no parameters: a GPU would refuse
/// them against their `Entry`s), written to a fresh directory of the test `test`.
fn small_ptx(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpu-bench-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ptx = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    for name in
        ["copy_f32", "transpose_f32", "sgemm_nt_f32", "sgemm_tn_f32", "hgemm_tn_f32", "hgemm_sm90_config"]
    {
        ptx += &format!(".visible .entry {name}()\n{{\n\tret;\n}}\n");
    }
    let path = dir.join("kernels.ptx");
    std::fs::write(&path, ptx).unwrap();
    path
}

#[test]
fn bad_sizes() {
    assert!(fails(&["--size-copy", "0", "64"]).contains("is zero"));
    assert!(fails(&["--size-gemm", "70000", "70000", "70000"]).contains("larger than the limit"));
    assert!(fails(&["--size-gemm", "64", "64", "4294967296"]).contains("at most 2147483647"));
    assert!(fails(&["--size-copy", "64", "sixty"]).contains("is not a size"));
    assert!(fails(&["--size-copy", "64"]).contains("needs 2 values"));
}

#[test]
fn bad_flags() {
    assert!(fails(&["--fast"]).contains("unknown argument `--fast`"));
    assert!(fails(&["--only", "gemm"]).contains("not one of"));
    assert!(fails(&["--runs", "0"]).contains("runs"));
}

#[test]
fn missing_files() {
    let e = fails(&["--ptx", "/nonexistent/kernels.ptx", "--size-copy", "64", "64"]);
    assert!(e.contains("cannot read the PTX file /nonexistent/kernels.ptx"), "{e}");
    let e = fails(&["--anchors", "/nonexistent/anchors.tsv"]);
    assert!(e.contains("anchors file"), "{e}");
}

#[test]
fn malformed_anchors() {
    let ptx = small_ptx("anchors");
    let anchors = ptx.with_file_name("anchors.tsv");
    std::fs::write(&anchors, "cute_copy\t2841\tGB/s\ncute_sgemm_nt 44213.2 GFLOP/s\n").unwrap();
    let e = fails(&["--ptx", ptx.to_str().unwrap(), "--anchors", anchors.to_str().unwrap()]);
    assert!(e.contains("line 2: expected key<TAB>value<TAB>unit"), "{e}");
    std::fs::remove_dir_all(ptx.parent().unwrap()).unwrap();
}

#[test]
fn no_gpu() {
    let ptx = small_ptx("no-gpu");
    let e = fails(&[
        "--ptx",
        ptx.to_str().unwrap(),
        "--size-copy",
        "256",
        "128",
        "--size-gemm",
        "128",
        "128",
        "64",
    ]);
    assert!(e.contains("driver") || e.contains("GPU"), "{e}");
    std::fs::remove_dir_all(ptx.parent().unwrap()).unwrap();
}

#[test]
fn help() {
    let out = gpu_bench(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: gpu-bench"));
    assert!(out.stderr.is_empty());
}

#[test]
fn tensor_core_options() {
    assert!(fails(&["--size-hgemm", "100", "64", "64"]).contains("multiples of 8"));
    assert!(fails(&["--size-hgemm", "64", "64"]).contains("needs 3 values"));
    assert!(fails(&["--size-hgemm", "16", "8", "1073741824"]).contains("larger than the limit"));
    assert!(fails(&["--only", "wgmma"]).contains("not one of copy, transpose, sgemm, hgemm, hgemm_sm90"));
    let out = gpu_bench(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--size-hgemm") && help.contains("hgemm_sm90"), "{help}");
}

#[test]
fn no_gpu_for_the_tensor_core_kernels() {
    let ptx = small_ptx("no-gpu-hgemm");
    for only in ["hgemm", "hgemm_sm90"] {
        let e = fails(&["--ptx", ptx.to_str().unwrap(), "--only", only, "--size-hgemm", "128", "128", "64"]);
        assert!(e.contains("driver") || e.contains("GPU"), "{e}");
    }
    std::fs::remove_dir_all(ptx.parent().unwrap()).unwrap();
}

#[test]
fn a_missing_ptx_file_is_named() {
    let e = fails(&["--ptx", "/nonexistent/kernels.ptx", "--only", "hgemm_sm90"]);
    assert_eq!(
        e,
        "gpu-bench: cannot read the PTX file /nonexistent/kernels.ptx: No such file or directory (os error 2)"
    );
}

#[test]
fn attention_options() {
    let e = fails(&["--size-attention", "4", "16", "16", "4096", "96"]);
    assert_eq!(
        e,
        "gpu-bench: --size-attention 4 16 16 4096 96: attention_sm90 takes a head dim 64, 128 or 256, not 96"
    );
    assert!(
        fails(&["--size-attention", "4", "16", "6", "4096", "128"]).contains("multiple of the key/value")
    );
    assert!(fails(&["--size-attention", "4", "16", "16", "4096"]).contains("needs 5 values"));
    assert!(fails(&["--size-attention", "64", "64", "64", "65536", "128"]).contains("larger than the limit"));
    assert!(fails(&["--only", "flash"]).contains("hgemm_sm90, attention"));
    let out = gpu_bench(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--size-attention B H HKV S D") && help.contains("attention_sm90_d{64,128}"),
        "{help}"
    );
}

#[test]
fn no_gpu_for_attention() {
    let ptx = small_ptx("no-gpu-attention");
    let anchors = ptx.with_file_name("attention_anchors.tsv");
    std::fs::write(&anchors, "attn_fa2_d64_h4_b1_s256_causal_fp16\t300.0\tTFLOP/s\n").unwrap();
    let (ptx_arg, anchors_arg) = (ptx.to_str().unwrap(), anchors.to_str().unwrap());
    let args = ["--ptx", ptx_arg, "--anchors", anchors_arg, "--only", "attention"];
    let e = fails(&[&args[..], &["--size-attention", "1", "4", "2", "256", "64"]].concat());
    assert!(e.contains("driver") || e.contains("GPU"), "{e}");
    // The same anchors file twice: its keys twice.
    let e = fails(&["--ptx", ptx_arg, "--anchors", anchors_arg, "--anchors", anchors_arg]);
    assert!(e.contains("given in an earlier anchors file"), "{e}");
    std::fs::remove_dir_all(ptx.parent().unwrap()).unwrap();
}
