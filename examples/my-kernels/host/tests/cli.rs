//! The program's errors on a machine without a GPU or with bad arguments: one line, status 1.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_my-kernels")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let (code, err) = run(&["--rows", "x"]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("my-kernels: --rows: `x` is not a positive 32-bit integer"), "{err}");
}

#[test]
fn no_gpu_is_a_one_line_error() {
    // This machine (CI's) has no NVIDIA driver: the program says so instead of failing later.
    if std::path::Path::new("/dev/nvidiactl").exists() {
        return; // a GPU machine: the error path is not reachable here
    }
    let (code, err) = run(&["--check-only"]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no CUDA driver"), "{err}");
}
