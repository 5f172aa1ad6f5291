//! `my-kernels`: the example kernel crate's host program. It loads the PTX that `build.rs` built
//! and embedded, launches each kernel by its `Entry` with typed, checked arguments
//! (`const-layout-launch`), checks every result against the CPU, and times the kernels against a
//! device-to-device copy of the same bytes.
//!
//! ```text
//! my-kernels [--rows R] [--batch B --m M --n N] [--runs K] [--check-only] [--report]
//! ```
//!
//! Errors (no GPU, no embedded PTX, a CUDA error, a failed check) are one line on stderr and exit
//! status 1.

use const_layout::{C, make_layout};
use const_layout_device::LaunchConfig;
use const_layout_launch::cudarc::driver::sys::CUevent_flags;
use const_layout_launch::cudarc::driver::{CudaSlice, CudaStream};
use const_layout_launch::{InArg, Module, OutArg};
use my_kernels::{LAYERNORM_F32, SOFTMAX_F32, TRANSPOSE_BATCHED_F32, softmax, transpose};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

include!(concat!(env!("OUT_DIR"), "/my_kernels_ptx.rs"));

/// The command's options.
#[derive(Debug, PartialEq)]
struct Options {
    rows: u32,
    batch: u32,
    m: u32,
    n: u32,
    runs: u32,
    check_only: bool,
    /// Print the PTX build's report (entry points, launch bounds, registers) and stop.
    report: bool,
}

const USAGE: &str =
    "usage: my-kernels [--rows R] [--batch B --m M --n N] [--runs K] [--check-only] [--report]";

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o =
        Options { rows: 16384, batch: 64, m: 2048, n: 2048, runs: 20, check_only: false, report: false };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |name: &str| -> Result<u32, String> {
            let v = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            v.parse::<u32>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("{name}: `{v}` is not a positive 32-bit integer"))
        };
        match a.as_str() {
            "--rows" => o.rows = number("--rows")?,
            "--batch" => o.batch = number("--batch")?,
            "--m" => o.m = number("--m")?,
            "--n" => o.n = number("--n")?,
            "--runs" => o.runs = number("--runs")?,
            "--check-only" => o.check_only = true,
            "--report" => o.report = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}` ({USAGE})")),
        }
    }
    if transpose::grid(o.batch, o.m, o.n).is_none() {
        return Err(format!(
            "the transpose covers whole tiles only: m and n multiples of {}, a batch of at least 1 ({} x {} x {})",
            transpose::TILE,
            o.batch,
            o.m,
            o.n
        ));
    }
    Ok(o)
}

/// Deterministic values in (-scale, scale).
fn values(seed: u64, len: usize, scale: f32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            scale * (2.0 * ((x >> 40) as f32 + 0.5) / (1u64 << 24) as f32 - 1.0)
        })
        .collect()
}

type Error = Box<dyn std::error::Error>;

/// The median time of `runs` calls of `op` (after 3 warm-ups), by CUDA events on `stream`.
fn time(
    stream: &Arc<CudaStream>,
    runs: u32,
    mut op: impl FnMut() -> Result<(), Error>,
) -> Result<Duration, Error> {
    for _ in 0..3 {
        op()?;
    }
    let ctx = stream.context();
    let mut ms = Vec::new();
    for _ in 0..runs {
        // Timing events: cudarc's default (`None`) disables timing.
        let timed = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        let (a, b) = (timed()?, timed()?);
        a.record(stream)?;
        op()?;
        b.record(stream)?;
        stream.synchronize()?;
        ms.push(a.elapsed_ms(&b)? as f64);
    }
    ms.sort_by(f64::total_cmp);
    Ok(Duration::from_secs_f64(ms[ms.len() / 2] / 1e3))
}

/// One table row: the kernel, its size, its time and bandwidth, and the copy's.
fn row(name: &str, size: &str, bytes: f64, t: Duration, copy: Duration) -> String {
    let gbs = |t: Duration| bytes / t.as_secs_f64() / 1e9;
    format!(
        "| {name} | {size} | {:.3} ms | {:.0} GB/s | {:.0} GB/s | {:.3} |",
        t.as_secs_f64() * 1e3,
        gbs(t),
        gbs(copy),
        gbs(t) / gbs(copy)
    )
}

fn run(o: &Options) -> Result<(), Error> {
    let ctx = const_layout_launch::context(0)?;
    let module = Module::load_embedded(&ctx, PTX)?;
    let stream = ctx.default_stream();
    let sms = ctx.attribute(
        const_layout_launch::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    )? as u32;
    println!("device: {} ({sms} multiprocessors)", ctx.name()?);
    println!("| kernel | size | time | ours | cuMemcpyDtoD | ours / copy |\n|---|---|---|---|---|---|");

    // Row softmax and LayerNorm over rows x 4096.
    let (rows, cols) = (o.rows, softmax::COLS);
    let len = rows as usize * cols;
    let xh = values(1, len, 8.0);
    let x = stream.clone_htod(&xh)?;
    let mut y: CudaSlice<f32> = stream.alloc_zeros(len)?;
    let mut scratch: CudaSlice<f32> = stream.alloc_zeros(len)?;
    let l = make_layout((rows, C::<4096>), (cols as u32, C::<1>))?;
    let cfg = LaunchConfig { grid: softmax::grid(rows), block: softmax::block(), dynamic_smem_bytes: 0 };
    let copy_time = |stream: &Arc<CudaStream>, x: &CudaSlice<f32>, s: &mut CudaSlice<f32>| {
        time(stream, o.runs, || Ok(stream.memcpy_dtod(x, s)?))
    };

    let softmax_k = module.kernel(SOFTMAX_F32)?;
    softmax_k.launch(&stream, &cfg, (InArg::new(&x, &l)?, OutArg::new(&mut y, &l)?))?;
    let yh = stream.clone_dtoh(&y)?;
    for r in (0..rows as usize).step_by((rows as usize / 64).max(1)) {
        let xr = &xh[r * cols..(r + 1) * cols];
        let m = xr.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = xr.iter().map(|&v| (v as f64 - m).exp()).sum();
        for j in 0..cols {
            let want = (xr[j] as f64 - m).exp() / s;
            let got = yh[r * cols + j] as f64;
            if (got - want).abs() > 1e-5 * want + 1e-12 {
                return Err(format!("softmax: row {r} column {j}: {got} where {want}").into());
            }
        }
    }
    let gamma_h = values(2, cols, 1.0);
    let beta_h = values(3, cols, 0.5);
    let (gamma, beta) = (stream.clone_htod(&gamma_h)?, stream.clone_htod(&beta_h)?);
    let w = make_layout((C::<1>, C::<4096>), (C::<0>, C::<1>))?;
    let layernorm_k = module.kernel(LAYERNORM_F32)?;
    let eps = 1e-5f32;
    layernorm_k.launch(
        &stream,
        &cfg,
        (InArg::new(&x, &l)?, InArg::new(&gamma, &w)?, InArg::new(&beta, &w)?, OutArg::new(&mut y, &l)?, eps),
    )?;
    let yh = stream.clone_dtoh(&y)?;
    for r in (0..rows as usize).step_by((rows as usize / 64).max(1)) {
        let xr = &xh[r * cols..(r + 1) * cols];
        let mean = xr.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
        let var = xr.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + eps as f64).sqrt();
        for j in 0..cols {
            let want = (xr[j] as f64 - mean) * rstd * gamma_h[j] as f64 + beta_h[j] as f64;
            let got = yh[r * cols + j] as f64;
            if (got - want).abs() > 2e-5 * (1.0 + want.abs()) {
                return Err(format!("layernorm: row {r} column {j}: {got} where {want}").into());
            }
        }
    }
    if !o.check_only {
        let bytes = 2.0 * len as f64 * 4.0;
        let copy = copy_time(&stream, &x, &mut scratch)?;
        let t = time(&stream, o.runs, || {
            Ok(softmax_k.launch(&stream, &cfg, (InArg::new(&x, &l)?, OutArg::new(&mut y, &l)?))?)
        })?;
        println!("{}", row("softmax_f32", &format!("{rows} x {cols}"), bytes, t, copy));
        let t = time(&stream, o.runs, || {
            let args = (
                InArg::new(&x, &l)?,
                InArg::new(&gamma, &w)?,
                InArg::new(&beta, &w)?,
                OutArg::new(&mut y, &l)?,
                eps,
            );
            Ok(layernorm_k.launch(&stream, &cfg, args)?)
        })?;
        println!("{}", row("layernorm_f32", &format!("{rows} x {cols}"), bytes, t, copy));
    }
    drop((x, y, scratch));

    // The batched transpose: batch x m x n, dst[b, j, i] = src[b, i, j].
    let (b, m, n) = (o.batch, o.m, o.n);
    let len = b as usize * m as usize * n as usize;
    let sh: Vec<f32> = (0..len).map(|i| i as f32).collect();
    let src = stream.clone_htod(&sh)?;
    let mut dst: CudaSlice<f32> = stream.alloc_zeros(len)?;
    let mut scratch: CudaSlice<f32> = stream.alloc_zeros(len)?;
    let ls = make_layout((b, m, n), (m * n, n, C::<1>))?;
    let ld = make_layout((b, m, n), (m * n, C::<1>, m))?;
    let grid = transpose::grid(b, m, n).ok_or("the transpose's grid")?;
    let tcfg = LaunchConfig { grid, block: transpose::block(), dynamic_smem_bytes: 0 };
    let transpose_k = module.kernel(TRANSPOSE_BATCHED_F32)?;
    transpose_k.launch(&stream, &tcfg, (InArg::new(&src, &ls)?, OutArg::new(&mut dst, &ld)?))?;
    let dh = stream.clone_dtoh(&dst)?;
    let (mm, nn) = (m as usize, n as usize);
    for k in (0..len).step_by(len / 4096 + 1) {
        let (bb, i, j) = (k / (mm * nn), k / nn % mm, k % nn);
        let got = dh[bb * mm * nn + j * mm + i];
        if got != sh[k] {
            return Err(format!("transpose: ({bb}, {i}, {j}) is {got} where {}", sh[k]).into());
        }
    }
    if !o.check_only {
        let copy = copy_time(&stream, &src, &mut scratch)?;
        let t = time(&stream, o.runs, || {
            Ok(transpose_k.launch(&stream, &tcfg, (InArg::new(&src, &ls)?, OutArg::new(&mut dst, &ld)?))?)
        })?;
        println!(
            "{}",
            row("transpose_batched_f32", &format!("{b} x {m} x {n}"), 2.0 * len as f64 * 4.0, t, copy)
        );
    }
    println!(
        "checks: softmax and layernorm on {} rows against f64, the transpose on {} elements: all passed",
        rows.div_ceil((rows / 64).max(1)),
        len.div_ceil(len / 4096 + 1)
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = parse(&args).map_err(Error::from).and_then(|o| {
        if o.report {
            // The builder's report, embedded by build.rs: no GPU needed.
            print!(
                "{}",
                PTX_REPORT.ok_or("the PTX module was not built (no PTX toolchain when this was compiled)")?
            );
            return Ok(());
        }
        if !const_layout_launch::driver_present() {
            return Err(
                "no CUDA driver: libcuda.so could not be loaded (this machine has no NVIDIA driver or GPU)"
                    .into(),
            );
        }
        run(&o)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("my-kernels: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let a = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(parse(&a("--rows 4096 --runs 5")).unwrap().rows, 4096);
        assert!(parse(&a("--rows 0")).unwrap_err().contains("not a positive"));
        assert!(parse(&a("--rows")).unwrap_err().contains("needs a value"));
        assert!(parse(&a("--m 100")).unwrap_err().contains("whole tiles"));
        assert!(parse(&a("--bogus")).unwrap_err().contains("unknown argument"));
    }
}
