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

#[test]
fn the_report_is_the_builds_or_a_one_line_error() {
    // Embedded by build.rs where a PTX toolchain was found; no GPU needed either way.
    let out = Command::new(env!("CARGO_BIN_EXE_my-kernels")).arg("--report").output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        for entry in ["softmax_f32", "layernorm_f32", "transpose_batched_f32"] {
            assert!(stdout.contains(&format!("  {entry}: ")), "{stdout}");
        }
        assert!(stdout.contains("launch bounds 256 threads, 4 blocks/SM"), "{stdout}");
        assert!(stdout.contains("no integer division or remainder, no local memory, no call"), "{stdout}");
    } else {
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("my-kernels: the PTX module was not built"), "{stderr}");
    }
}
