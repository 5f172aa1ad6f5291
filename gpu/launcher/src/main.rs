//! `gpu-bench`: the host launcher of const-layout's GPU kernels. It loads the PTX module built
//! from `gpu/ptx` (`tools/gpu/build-ptx.sh`) and launches every entry point through
//! `const-layout-launch`, by the `Entry` declarations of the kernel crate (`const_layout_ptx`):
//! each launch's arguments are typed and checked (`InArg`/`OutArg` from buffers and layouts, TMA
//! maps encoded from Rust), the entry points' parameters are compared with the PTX at load. It
//! checks every kernel against a CPU reference, times it with CUDA events and compares it with
//! anchors measured in the same process on the same GPU (cuMemcpyDtoD, cuBLAS) and given by other
//! programs (`--anchors`).
//!
//! ```text
//! gpu-bench [--ptx PATH] [--anchors FILE]... [--size-copy M N] [--size-gemm M N K]
//!           [--size-hgemm M N K] [--size-attention B H HKV S D]
//!           [--only copy|transpose|sgemm|hgemm|hgemm_sm90|attention] [--runs R] [--check-only]
//! ```
//!
//! - `--ptx PATH`: the PTX module (default `target/ptx/const_layout_kernels.ptx`, relative to the
//!   current directory).
//! - `--anchors FILE` (any number of times, read as one list, each key once): one figure a line,
//!   `key<TAB>value<TAB>unit` (GB/s, TB/s, GFLOP/s, TFLOP/s); blank lines and `#` comments are
//!   skipped. `cute_copy` and `torch_copy` are
//!   compared with `copy_f32`, `cute_sgemm_nt`/`torch_cublas_sgemm_nt` with `sgemm_nt_f32`,
//!   `cute_sgemm_tn`/`torch_cublas_sgemm_tn` with `sgemm_tn_f32`, `cute_sgemm_sm80` (CuTe's
//!   `sgemm_sm80`, TN, f16 in and out, f16 accumulators) with `hgemm_tn_f16`,
//!   `cute_wgmma_tma_sm90` with `hgemm_sm90_tn_f16`; `attn_cudnn_SHAPE`, `attn_fa2_SHAPE` and
//!   `attn_cutlass88_SHAPE` (`tools/gpu/attention_anchors.py`'s `attention_anchors.tsv`, `SHAPE`
//!   `d{D}_h{H}_b{B}_s{S}_{causal,full}_{fp16,bf16}`) with the attention row of that shape, type
//!   and mask (none of another shape is listed); `torch_cublas_sgemm` and unknown keys are listed
//!   as extra rows. `tools/gpu/run.sh` writes the others.
//! - `--size-copy M N` (default 8192 8192): `copy_f32` and `transpose_f32`;
//!   `--size-gemm M N K` (default 5120 5120 4096): `sgemm_nt_f32` and `sgemm_tn_f32`;
//!   `--size-hgemm M N K` (default 5120 5120 4096, multiples of 8): the tensor-core GEMMs;
//!   `--size-attention B H HKV S D` (default 4 16 16 4096 128): attention of `B` sequences of `S`
//!   queries and keys, `H` query heads, `HKV` key/value heads (dividing `H`), head dim `D` (64,
//!   128 or 256).
//! - `--only copy|transpose|sgemm|hgemm|hgemm_sm90|attention`, `--runs R` (default 20),
//!   `--check-only` (no timing).
//!
//! For each kernel: inputs of random non-zero values, outputs poisoned with NaN, one launch, the
//! result checked: copy and transpose bit for bit; SGEMM every element finite, 2048 sampled
//! elements and the last row and column against `f64` dot products and, with cuBLAS, every element
//! against cuBLAS, within 1e-5 of `sum_k |a_ik b_jk|`. The tensor-core GEMMs (`hgemm_{tn,nt}_{f32,f16}`,
//! `hgemm_sm90_tn_{f32,f16}`, f16 and bf16 inputs where they take them) as `hgemm`'s module says:
//! first at four sizes with residues in m, n and k, then at the HGEMM size, against `f64` samples
//! and every element against `cublasGemmEx`; the Hopper kernels' boxes, threads and shared memory
//! as `hgemm_sm90_config` reports them. The attention forward (`attention_sm90_d{64,128}`, f16
//! and bf16, causal and not) as `attention`'s module says: its box, threads and shared memory as
//! `attention_sm90_config` reports them, then every element of `O` and the log-sum-exp at seven
//! small shapes with residues (GQA and MQA among them) against an `f64` reference on the same
//! halves (`O` within 4e-3 for f16, 2e-2 for bf16, the log-sum-exp within 1e-3), then at the
//! attention size every element written and finite and 64 rows against the reference. A failed
//! check ends the program with status 1 before any timing of that kernel. Then 3 warm-up launches
//! and `R` launches each between two events; the median is reported (min and max on stderr): GB/s
//! of bytes read and written for copy and transpose, TFLOP/s of `2 m n k` for the GEMMs and of
//! `4 b h s_q s_k d` (halved for causal) for attention. The anchors are timed the same way:
//! cuMemcpyDtoD of the copy size, `cublasSgemm` in the matching form (NT: `('N','T')`, TN:
//! `('T','N')`, default math mode, no TF32), `cublasGemmEx` of f16 or bf16 with f32 accumulation
//! into the inputs' type; or `n/a (libcublas not found)`. stdout gets the device, the driver and
//! one markdown table, `| kernel | size | ours | anchor | anchor figure | ours / anchor | check |`;
//! stderr the progress.
//!
//! Errors (bad arguments, sizes whose buffers overflow or exceed 2^34 bytes or whose strides exceed
//! 32 bits, a head dim other than 64, 128 or 256, query heads not a multiple of the key/value heads, a
//! missing PTX file or kernel, an entry point whose parameters differ from its `Entry`, no driver
//! or GPU, any CUDA error by name, a refused argument or launch or tensor map, a failed check) are
//! one line on stderr, `gpu-bench: ...`, and status 1; the program does not panic (a library's
//! panic is caught and reported the same way).
//!
//! # The ABI contract
//!
//! The PTX entry points turn their parameters into tensors without a check; their safety rests on
//! what a typed launch guarantees, which `const_layout_launch::Kernel::launch` keeps: parameters of
//! the entry point's declared types (compared with the PTX at load), tensors checked by
//! `TensorParam::new` for buffers the arguments borrow (inputs shared, outputs exclusively and
//! overlapping nothing), tensor maps encoded for inputs of the launch with the boxes the kernel
//! crate gives (and the module reports), the geometry within the device's limits. The geometry
//! itself (grid, block, shared memory) is the kernel crate's for the output's extents (`kernels`).
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
// An entry point's parameter list is its ABI: spelled out in full where a kernel is held.
#![allow(clippy::type_complexity)]

mod anchors;
mod args;
mod attention;
mod bench;
mod blas;
mod check;
mod error;
mod gpu;
mod hgemm;
mod kernels;
mod report;
mod rng;

use crate::args::{Command, Options};
use crate::error::{Error, guard};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// A progress line on stderr (best effort: a closed stderr is not an error).
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn main() -> ExitCode {
    // Panics are caught by `guard` and reported as one line; the default hook would print more.
    std::panic::set_hook(Box::new(|_| {}));
    match guard("internal error", run) {
        Ok(code) => code,
        Err(e) => {
            note(&format!("gpu-bench: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// The program; its error is printed by `main`.
fn run() -> Result<ExitCode, Error> {
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().map_err(|a| Error::new(format!("the argument {a:?} is not UTF-8"))))
        .collect::<Result<Vec<String>, Error>>()?;
    let opts = match args::parse(&args)? {
        Command::Help => {
            print_stdout(args::USAGE)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Run(opts) => opts,
    };
    let anchors = anchors::read_all(&opts.anchors)?;
    let ptx = read_ptx(&opts.ptx)?;
    let gpu = gpu::Gpu::open(&ptx, &opts.ptx.display().to_string())?;
    let device = gpu.describe()?;
    let cublas = blas::Blas::open(gpu.stream());
    let cublas_line = cublas.as_ref().map_or_else(|why| format!("n/a ({why})"), |b| b.version());
    note(&format!("device: {device}; cuBLAS {cublas_line}"));
    let rows = bench::run(&gpu, cublas, &opts, &anchors)?;
    print_stdout(&format!("{}\n{}", header(&opts, &device, &cublas_line), report::table(&rows)))?;
    Ok(ExitCode::SUCCESS)
}

/// The lines above the table.
fn header(opts: &Options, device: &str, cublas: &str) -> String {
    let timing = if opts.check_only {
        "none (--check-only)".to_string()
    } else {
        format!("CUDA events, median of {} launches after {} warm-ups", opts.runs, gpu::WARMUPS)
    };
    format!("device: {device}\ncuBLAS: {cublas}\nPTX: {}\ntiming: {timing}\n", opts.ptx.display())
}

/// The PTX module's text.
fn read_ptx(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(format!("cannot read the PTX file {}: {e}", path.display())))?;
    String::from_utf8(bytes)
        .map_err(|_| Error::new(format!("the PTX file {} is not UTF-8 text", path.display())))
}

/// Writes `text` to stdout (a closed stdout is an error, not a panic).
fn print_stdout(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::new(format!("writing to stdout: {e}")))
}
