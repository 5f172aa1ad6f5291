//! The measurements. For each kernel: random non-zero inputs, the output poisoned with NaN, one
//! checked run (a failed check ends the program before any timing), then the timed runs and the
//! anchors measured here (cuMemcpyDtoD, cuBLAS), and the table's rows with the anchors of the file.

use crate::anchors::{Anchor, Target};
use crate::args::{Only, Options};
use crate::blas::Blas;
use crate::check::{self, GemmReference};
use crate::error::Error;
use crate::gpu::{Entry, Gpu};
use crate::kernels::{Abi, COPY, ColMajor, CopyArgs, CopyLike, Gemm, GemmArgs, Input, Kernel, Matrix};
use crate::kernels::{Output, RowMajor, TRANSPOSE};
use crate::note;
use crate::report::{Cell, Rate, Row};
use crate::rng::SplitMix64;
use cudarc::driver::{CudaSlice, CudaStream};
use std::marker::PhantomData;

/// Elements of each SGEMM result checked against an `f64` dot product.
pub const SAMPLES: usize = 2048;
/// The seed of the test data (fixed: a failure can be reproduced).
const SEED: u64 = 0x6770_752d_6265_6e63;

/// One kernel's results: its figure, its check and the anchors measured with it.
struct Measured {
    kernel: &'static str,
    size: String,
    ours: Cell,
    check: String,
    anchors: Vec<(String, Cell)>,
}

impl Measured {
    /// A kernel checked by `check`, not timed yet.
    fn new(kernel: &'static str, size: String, check: String) -> Self {
        Measured { kernel, size, ours: Cell::none(), check, anchors: Vec::new() }
    }
}

/// The state of a run.
struct Bench<'g> {
    gpu: &'g Gpu,
    blas: Result<Blas, String>,
    opts: &'g Options,
    anchors: &'g [Anchor],
    rng: SplitMix64,
    dtod: Option<Cell>,
    rows: Vec<Row>,
}

/// Runs the kernels `opts` selects on `gpu` and returns the table's rows; `cublas` is cuBLAS or
/// why it is not available.
pub fn run(
    gpu: &Gpu,
    cublas: Result<Blas, String>,
    opts: &Options,
    anchors: &[Anchor],
) -> Result<Vec<Row>, Error> {
    let mut b =
        Bench { gpu, blas: cublas, opts, anchors, rng: SplitMix64::new(SEED), dtod: None, rows: Vec::new() };
    if opts.runs(Only::Copy) {
        let m = b.copy_like(&COPY)?;
        b.push_rows(m, Some(Target::Copy));
    }
    if opts.runs(Only::Transpose) {
        let m = b.copy_like(&TRANSPOSE)?;
        b.push_rows(m, None);
    }
    if opts.runs(Only::Sgemm) {
        let m = b.sgemm::<ColMajor>()?;
        b.push_rows(m, Some(Target::SgemmNt));
        let m = b.sgemm::<RowMajor>()?;
        b.push_rows(m, Some(Target::SgemmTn));
    }
    b.push_extra_rows();
    Ok(b.rows)
}

/// The arguments of a copy-like kernel: `src` as `S` and `dst` column-major, both `m x n`.
fn copy_args<'a, S: Matrix>(
    src: &'a CudaSlice<f32>,
    dst: &'a mut CudaSlice<f32>,
    (m, n): (u32, u32),
    stream: &CudaStream,
) -> Result<CopyArgs<'a, S>, Error> {
    Ok(CopyArgs { src: Input::new(src, m, n, stream)?, dst: Output::new(dst, m, n, stream)? })
}

/// The arguments of a GEMM kernel, `c = a * b^T` (alpha 1, beta 0).
fn gemm_args<'a, P: Matrix>(
    (a, b): (&'a CudaSlice<f32>, &'a CudaSlice<f32>),
    c: &'a mut CudaSlice<f32>,
    (m, n, k): (u32, u32, u32),
    stream: &CudaStream,
) -> Result<GemmArgs<'a, P>, Error> {
    let (a, b) = (Input::new(a, m, k, stream)?, Input::new(b, n, k, stream)?);
    Ok(GemmArgs { a, b, c: Output::new(c, m, n, stream)?, alpha: 1.0, beta: 0.0 })
}

/// The cell of a file's anchor: its rate, or its value and unit as written.
fn anchor_cell(a: &Anchor) -> Cell {
    a.rate.map_or_else(|| Cell::Text(format!("{} {}", a.value, a.unit)), Cell::Rate)
}

impl Bench<'_> {
    /// A buffer of `host`'s values and an output buffer of as many NaNs.
    fn input_and_poisoned_output(
        &self,
        host: &[f32],
        out_len: usize,
    ) -> Result<(CudaSlice<f32>, CudaSlice<f32>), Error> {
        let input = self.gpu.upload(host)?;
        let mut output = self.gpu.zeros(out_len)?;
        self.gpu.poison(&mut output)?;
        Ok((input, output))
    }

    /// Times `op`, reports the timing on stderr, and returns the rate of `amount` per median run.
    fn measure(
        &self,
        what: &str,
        kind: fn(f64) -> Rate,
        amount: f64,
        op: impl FnMut() -> Result<(), Error>,
    ) -> Result<Cell, Error> {
        let t = self.gpu.time(self.opts.runs, op)?;
        let cell = Cell::rate_or(Rate::of(kind, amount, t.median_ms), "below the timer's resolution");
        note(&format!(
            "{what}: median {:.4} ms (min {:.4}, max {:.4}; {} runs): {cell}",
            t.median_ms, t.min_ms, t.max_ms, self.opts.runs
        ));
        Ok(cell)
    }

    /// Launches `entry` once with `args` and waits for it.
    fn checked_run<A: Abi>(&self, entry: &Entry<A>, size: &str, args: A::Args<'_>) -> Result<(), Error> {
        note(&format!("{} {size}: checked run", entry.name()));
        self.gpu.launch(entry, &args)?;
        self.gpu.sync(&format!("{} (checked run)", entry.name()))
    }

    /// `copy_f32` or `transpose_f32` on the copy size, checked exactly.
    fn copy_like<S: Matrix>(&mut self, kernel: &Kernel<CopyLike<S>>) -> Result<Measured, Error> {
        let ((m, n), gpu) = (self.opts.copy, self.gpu);
        let (mu, nu) = (m as usize, n as usize);
        let host = self.rng.nonzero_vec(mu * nu);
        let (src, mut dst) = self.input_and_poisoned_output(&host, mu * nu)?;
        let entry = gpu.entry(kernel)?;
        let size = format!("{m}x{n}");
        self.checked_run(&entry, &size, copy_args::<S>(&src, &mut dst, (m, n), gpu.stream())?)?;
        let got = gpu.download(&dst)?;
        let (got_at, want_at) =
            (|i, j| got[ColMajor::offset(mu, nu, i, j)], |i, j| host[S::offset(mu, nu, i, j)]);
        check::exact(kernel.name, (mu, nu), got_at, want_at)?;
        let mut measured = Measured::new(kernel.name, size, "exact, every element".into());
        if !self.opts.check_only {
            self.time_copy(&mut measured, &entry, &src, &mut dst)?;
        }
        Ok(measured)
    }

    /// Times a copy-like kernel and cuMemcpyDtoD of as many bytes (measured once for both).
    fn time_copy<S: Matrix>(
        &mut self,
        measured: &mut Measured,
        entry: &Entry<CopyLike<S>>,
        src: &CudaSlice<f32>,
        dst: &mut CudaSlice<f32>,
    ) -> Result<(), Error> {
        let (gpu, (m, n)) = (self.gpu, self.opts.copy);
        let bytes = 2.0 * 4.0 * f64::from(m) * f64::from(n);
        measured.ours = {
            let args = copy_args::<S>(src, dst, (m, n), gpu.stream())?;
            let what = format!("{} {}", entry.name(), measured.size);
            self.measure(&what, Rate::Bytes, bytes, || gpu.launch(entry, &args))?
        };
        let dtod = match self.dtod.clone() {
            Some(cell) => cell,
            None => {
                let what = format!("cuMemcpyDtoD {}", measured.size);
                self.measure(&what, Rate::Bytes, bytes, || gpu.copy_dtod(src, dst))?
            }
        };
        self.dtod = Some(dtod.clone());
        measured.anchors.push(("cuMemcpyDtoD".into(), dtod));
        Ok(())
    }

    /// The SGEMM of `P`'s form on the GEMM size, checked by [`check_gemm`](Self::check_gemm).
    fn sgemm<P: Matrix>(&mut self) -> Result<Measured, Error> {
        let (kernel, dims, gpu) = (P::GEMM, self.opts.gemm, self.gpu);
        let (m, n, k) = (dims.0 as usize, dims.1 as usize, dims.2 as usize);
        let (a_host, b_host) = (self.rng.nonzero_vec(m * k), self.rng.nonzero_vec(n * k));
        let (a, mut c) = self.input_and_poisoned_output(&a_host, m * n)?;
        let b = gpu.upload(&b_host)?;
        let entry = gpu.entry(&kernel)?;
        let size = format!("{}x{}x{}", dims.0, dims.1, dims.2);
        self.checked_run(&entry, &size, gemm_args::<P>((&a, &b), &mut c, dims, gpu.stream())?)?;
        let c_host = gpu.download(&c)?;
        let (check, c_ref) = self.check_gemm::<P>((&a, &b), (&a_host, &b_host), &c_host)?;
        let mut measured = Measured::new(kernel.name, size, check);
        if !self.opts.check_only {
            self.time_gemm(&mut measured, &entry, (&a, &b), &mut c, c_ref)?;
        }
        Ok(measured)
    }

    /// Checks an SGEMM result: every element finite, sampled `f64` dot products, and with cuBLAS
    /// every element. Returns the check's summary and cuBLAS's result buffer, if any.
    fn check_gemm<P: Matrix>(
        &mut self,
        operands: (&CudaSlice<f32>, &CudaSlice<f32>),
        (a, b): (&[f32], &[f32]),
        c_host: &[f32],
    ) -> Result<(String, Option<CudaSlice<f32>>), Error> {
        let (m, n, k) = self.opts.gemm;
        let reference =
            GemmReference::<P> { dims: (m as usize, n as usize, k as usize), a, b, storage: PhantomData };
        let sampled = reference.check(P::GEMM.name, c_host, SAMPLES, &mut self.rng)?;
        let mut summary = format!("finite; rel. err. <= {sampled:.1e} ({SAMPLES} f64 samples)");
        let mut c_ref = None;
        if let Ok(blas) = &self.blas {
            let (worst, c) = self.against_cublas::<P>(blas, operands, (a, b), c_host)?;
            summary += &format!(", <= {worst:.1e} (all, vs cuBLAS)");
            c_ref = Some(c);
        }
        Ok((summary, c_ref))
    }

    /// Times an SGEMM kernel and `cublasSgemm` of the same form (into `c_ref`, cuBLAS's result).
    fn time_gemm<P: Matrix>(
        &self,
        measured: &mut Measured,
        entry: &Entry<Gemm<P>>,
        operands: (&CudaSlice<f32>, &CudaSlice<f32>),
        c: &mut CudaSlice<f32>,
        c_ref: Option<CudaSlice<f32>>,
    ) -> Result<(), Error> {
        let (gpu, dims) = (self.gpu, self.opts.gemm);
        let flops = 2.0 * f64::from(dims.0) * f64::from(dims.1) * f64::from(dims.2);
        let args = gemm_args::<P>(operands, c, dims, gpu.stream())?;
        let what = format!("{} {}", entry.name(), measured.size);
        measured.ours = self.measure(&what, Rate::Flops, flops, || gpu.launch(entry, &args))?;
        let anchor = match (&self.blas, c_ref) {
            (Ok(blas), Some(mut c_ref)) => {
                let what = format!("cublasSgemm {}", measured.size);
                let form = P::GEMM_FORM;
                self.measure(&what, Rate::Flops, flops, || {
                    blas.sgemm(gpu.stream(), form, dims, operands, &mut c_ref)
                })?
            }
            (Err(why), _) => Cell::Text(format!("n/a ({why})")),
            (Ok(_), None) => Cell::none(),
        };
        measured.anchors.push((P::GEMM_FORM.cublas_call().into(), anchor));
        Ok(())
    }

    /// cuBLAS's product of the same operands, and the largest difference of ours from it relative
    /// to `sum_k |a_ik b_jk|` (itself computed by cuBLAS from `|A|` and `|B|`). Returns that error
    /// and cuBLAS's result buffer (reused to time cuBLAS).
    fn against_cublas<P: Matrix>(
        &self,
        blas: &Blas,
        operands: (&CudaSlice<f32>, &CudaSlice<f32>),
        (a_host, b_host): (&[f32], &[f32]),
        c_host: &[f32],
    ) -> Result<(f64, CudaSlice<f32>), Error> {
        let (gpu, dims) = (self.gpu, self.opts.gemm);
        let len = c_host.len();
        let product = |operands: (&CudaSlice<f32>, &CudaSlice<f32>)| -> Result<CudaSlice<f32>, Error> {
            let mut out = gpu.zeros(len)?;
            blas.sgemm(gpu.stream(), P::GEMM_FORM, dims, operands, &mut out)?;
            Ok(out)
        };
        let c_ref = product(operands)?;
        let abs = |h: &[f32]| gpu.upload(&h.iter().map(|v| v.abs()).collect::<Vec<f32>>());
        let scale = product((&abs(a_host)?, &abs(b_host)?))?;
        let what = format!("{} against cuBLAS", P::GEMM.name);
        let worst =
            check::compare(&what, dims.0 as usize, c_host, &gpu.download(&c_ref)?, &gpu.download(&scale)?)?;
        Ok((worst, c_ref))
    }

    /// The rows of one kernel: one per anchor (measured here, then the file's for `target`),
    /// or one without an anchor.
    fn push_rows(&mut self, m: Measured, target: Option<Target>) {
        let from_file = self.anchors.iter().filter(|a| Some(a.target) == target && !self.opts.check_only);
        let mut pairs = m.anchors;
        pairs.extend(from_file.map(|a| (a.key.clone(), anchor_cell(a))));
        if pairs.is_empty() {
            pairs.push(("-".into(), Cell::none()));
        }
        for (anchor, anchor_figure) in pairs {
            let (kernel, size, ours, check) =
                (m.kernel.to_string(), m.size.clone(), m.ours.clone(), m.check.clone());
            self.rows.push(Row { kernel, size, ours, anchor, anchor_figure, check });
        }
    }

    /// The file's anchors of no kernel, one row each.
    fn push_extra_rows(&mut self) {
        for a in self.anchors.iter().filter(|a| a.target == Target::Extra) {
            let dash = || "-".to_string();
            let row = Row {
                kernel: dash(),
                size: dash(),
                ours: Cell::none(),
                anchor: a.key.clone(),
                anchor_figure: anchor_cell(a),
                check: dash(),
            };
            self.rows.push(row);
        }
    }
}
