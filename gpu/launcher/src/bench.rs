//! The measurements. For each kernel: random non-zero inputs, the output poisoned with NaN, one
//! checked run (a failed check ends the program before any timing), then the timed runs and the
//! anchors measured here (cuMemcpyDtoD, cuBLAS), and the table's rows with the anchors of the file.
//! Every launch goes through `const-layout-launch` by the entry point's `Entry` (`const_layout_ptx`).

use crate::anchors::{Anchor, Target};
use crate::args::{Only, Options};
use crate::blas::Blas;
use crate::check::{self, GemmReference, Tolerance};
use crate::error::Error;
use crate::gpu::Gpu;
use crate::kernels::{ColLayout, GemmForm, Geometry, col_major, row_major};
use crate::note;
use crate::report::{Cell, Rate, Row};
use crate::rng::SplitMix64;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::LayoutShape;
use const_layout::{C, Layout, LayoutError};
use const_layout_device::TensorParam;
use const_layout_device::abi::{Entry, In, Out};
use const_layout_launch::{InArg, OutArg};
use const_layout_ptx as ptx;
use cudarc::driver::CudaSlice;

/// Elements of each GEMM result checked against an `f64` dot product (and the last row and column).
pub const SAMPLES: usize = 2048;
/// The seed of the test data (fixed: a failure can be reproduced).
const SEED: u64 = 0x6770_752d_6265_6e63;

/// How an operand is stored: column-major (`(C<1>, u32)`, CuTe's N) or row-major (`(u32, C<1>)`,
/// T), with its compact layout.
pub trait Storage: IntTuple + 'static
where
    (u32, u32): LayoutShape<Self>,
{
    /// The GEMM form whose operands are stored this way.
    const FORM: GemmForm;
    /// The compact `rows x cols` layout.
    fn layout(rows: u32, cols: u32) -> Result<Layout<(u32, u32), Self>, LayoutError>;
}

impl Storage for (C<1>, u32) {
    const FORM: GemmForm = GemmForm::Nt;
    fn layout(rows: u32, cols: u32) -> Result<ColLayout, LayoutError> {
        col_major(rows, cols)
    }
}

impl Storage for (u32, C<1>) {
    const FORM: GemmForm = GemmForm::Tn;
    fn layout(rows: u32, cols: u32) -> Result<Layout<(u32, u32), (u32, C<1>)>, LayoutError> {
        row_major(rows, cols)
    }
}

/// A layout the launcher computed that `make_layout` refused (sizes are checked before, so this
/// names a bug).
pub fn layout_error(what: &str, e: LayoutError) -> Error {
    Error::new(format!("{what}: the layout was refused: {e}"))
}

/// One kernel's results: its figure, its check and the anchors measured with it.
pub struct Measured {
    /// The kernel, as the table names it.
    pub kernel: String,
    /// The problem size.
    pub size: String,
    /// Its figure.
    pub ours: Cell,
    /// The check it passed.
    pub check: String,
    /// The anchors measured in this process, `(name, figure)`.
    pub anchors: Vec<(String, Cell)>,
}

impl Measured {
    /// A kernel checked by `check`, not timed yet.
    pub fn new(kernel: impl Into<String>, size: String, check: String) -> Self {
        Measured { kernel: kernel.into(), size, ours: Cell::none(), check, anchors: Vec::new() }
    }
}

/// The state of a run.
pub struct Bench<'g> {
    /// The GPU.
    pub gpu: &'g Gpu,
    /// cuBLAS, or why it is not available.
    pub blas: Result<Blas, String>,
    /// The options.
    pub opts: &'g Options,
    anchors: &'g [Anchor],
    /// The test data's generator.
    pub rng: SplitMix64,
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
        let m = b.copy_like(ptx::COPY_F32, Geometry::Copy)?;
        b.push_rows(m, Some(Target::Copy));
    }
    if opts.runs(Only::Transpose) {
        let m = b.copy_like(ptx::TRANSPOSE_F32, Geometry::Transpose)?;
        b.push_rows(m, None);
    }
    if opts.runs(Only::Sgemm) {
        let m = b.sgemm(ptx::SGEMM_NT_F32)?;
        b.push_rows(m, Some(Target::SgemmNt));
        let m = b.sgemm(ptx::SGEMM_TN_F32)?;
        b.push_rows(m, Some(Target::SgemmTn));
    }
    if opts.runs(Only::Hgemm) {
        b.tensor_core(false)?;
    }
    if opts.runs(Only::HgemmSm90) {
        b.tensor_core(true)?;
    }
    if opts.runs(Only::Attention) {
        b.attention()?;
    }
    b.push_extra_rows();
    Ok(b.rows)
}

/// The cell of a file's anchor: its rate, or its value and unit as written.
fn anchor_cell(a: &Anchor) -> Cell {
    a.rate.map_or_else(|| Cell::Text(format!("{} {}", a.value, a.unit)), Cell::Rate)
}

/// The parameter type of an `f32` matrix stored as `D`.
type Matrix<D> = TensorParam<f32, (u32, u32), D>;
/// `ColMajor`.
type ColMajor = Matrix<(C<1>, u32)>;

impl Bench<'_> {
    /// Times `op`, reports the timing on stderr, and returns the rate of `amount` per median run.
    pub fn measure(
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

    /// `copy_f32` or `transpose_f32` on the copy size, checked exactly: `src` stored as `D`, `dst`
    /// column-major.
    fn copy_like<D: Storage>(
        &mut self,
        entry: Entry<(In<Matrix<D>>, Out<ColMajor>)>,
        geometry: Geometry,
    ) -> Result<Measured, Error>
    where
        (u32, u32): LayoutShape<D>,
    {
        let ((m, n), gpu, name) = (self.opts.copy, self.gpu, entry.name());
        let (mu, nu) = (m as usize, n as usize);
        let host = self.rng.nonzero_vec(mu * nu);
        let src = gpu.upload(&host)?;
        let mut dst = gpu.poisoned::<f32>(mu * nu)?;
        let kernel = gpu.kernel(entry)?;
        let cfg = geometry.config(kernel.limits(), m, n);
        let (src_layout, dst_layout) = (
            D::layout(m, n).map_err(|e| layout_error(name, e))?,
            col_major(m, n).map_err(|e| layout_error(name, e))?,
        );
        let size = format!("{m}x{n}");
        note(&format!("{name} {size}: checked run"));
        let src_arg = InArg::new(&src, &src_layout)?;
        kernel.launch(gpu.stream(), &cfg, (src_arg, OutArg::new(&mut dst, &dst_layout)?))?;
        gpu.sync(&format!("{name} (checked run)"))?;
        let got = gpu.download(&dst)?;
        let (got_at, want_at) =
            (|i, j| got[GemmForm::Nt.offset(mu, nu, i, j)], |i, j| host[D::FORM.offset(mu, nu, i, j)]);
        check::exact(name, (mu, nu), got_at, want_at)?;
        let mut measured = Measured::new(name, size, "exact, every element".into());
        if !self.opts.check_only {
            let bytes = 2.0 * 4.0 * f64::from(m) * f64::from(n);
            measured.ours = {
                let mut out = OutArg::new(&mut dst, &dst_layout)?;
                let what = format!("{name} {}", measured.size);
                self.measure(&what, Rate::Bytes, bytes, || {
                    Ok(kernel.launch(gpu.stream(), &cfg, (src_arg, out.reborrow()))?)
                })?
            };
            let dtod = match self.dtod.clone() {
                Some(cell) => cell,
                None => {
                    let what = format!("cuMemcpyDtoD {}", measured.size);
                    self.measure(&what, Rate::Bytes, bytes, || gpu.copy_dtod(&src, &mut dst))?
                }
            };
            self.dtod = Some(dtod.clone());
            measured.anchors.push(("cuMemcpyDtoD".into(), dtod));
        }
        Ok(measured)
    }

    /// The SGEMM of `D`'s form on the GEMM size: every element finite, sampled `f64` dot products
    /// and, with cuBLAS, every element against cuBLAS; then timed next to `cublasSgemm`.
    fn sgemm<D: Storage>(
        &mut self,
        entry: Entry<(In<Matrix<D>>, In<Matrix<D>>, Out<ColMajor>, f32, f32)>,
    ) -> Result<Measured, Error>
    where
        (u32, u32): LayoutShape<D>,
    {
        let (dims, gpu, name) = (self.opts.gemm, self.gpu, entry.name());
        let (m, n, k) = (dims.0 as usize, dims.1 as usize, dims.2 as usize);
        let (a_host, b_host) = (self.rng.nonzero_vec(m * k), self.rng.nonzero_vec(n * k));
        let (a, b) = (gpu.upload(&a_host)?, gpu.upload(&b_host)?);
        let mut c = gpu.poisoned::<f32>(m * n)?;
        let kernel = gpu.kernel(entry)?;
        let cfg = Geometry::Sgemm.config(kernel.limits(), dims.0, dims.1);
        let layout = |rows, cols| D::layout(rows, cols).map_err(|e| layout_error(name, e));
        let (la, lb, lc) = (
            layout(dims.0, dims.2)?,
            layout(dims.1, dims.2)?,
            col_major(dims.0, dims.1).map_err(|e| layout_error(name, e))?,
        );
        let (a_arg, b_arg) = (InArg::new(&a, &la)?, InArg::new(&b, &lb)?);
        let size = format!("{}x{}x{}", dims.0, dims.1, dims.2);
        note(&format!("{name} {size}: checked run"));
        kernel.launch(gpu.stream(), &cfg, (a_arg, b_arg, OutArg::new(&mut c, &lc)?, 1.0, 0.0))?;
        gpu.sync(&format!("{name} (checked run)"))?;
        let c_host = gpu.download(&c)?;
        let reference = GemmReference { dims: (m, n, k), form: D::FORM, a: &a_host, b: &b_host };
        let at = reference.positions(SAMPLES, &mut self.rng);
        let tolerance = Tolerance::PerElement(check::GEMM_TOLERANCE);
        let sampled = reference.check(name, |i, j| f64::from(c_host[i + j * m]), &at, tolerance)?;
        let mut summary =
            format!("finite; rel. err. <= {sampled:.1e} ({SAMPLES} f64 samples, last row and column)");
        let mut c_ref = None;
        if let Ok(blas) = &self.blas {
            let product = |x: &CudaSlice<f32>, y: &CudaSlice<f32>| -> Result<CudaSlice<f32>, Error> {
                let mut out = gpu.zeros(m * n)?;
                blas.sgemm(gpu.stream(), D::FORM, dims, (x, y), &mut out)?;
                Ok(out)
            };
            let theirs = product(&a, &b)?;
            let abs = |h: &[f32]| gpu.upload(&h.iter().map(|v| v.abs()).collect::<Vec<f32>>());
            let scale = product(&abs(&a_host)?, &abs(&b_host)?)?;
            let what = format!("{name} against cuBLAS");
            let c_at = |i: usize, j: usize| f64::from(c_host[i + j * m]);
            let worst = check::compare(
                &what,
                (m, n),
                c_at,
                &gpu.download(&theirs)?,
                &gpu.download(&scale)?,
                tolerance,
            )?;
            summary += &format!(", <= {worst:.1e} (all, vs cuBLAS)");
            c_ref = Some(theirs);
        }
        let mut measured = Measured::new(name, size, summary);
        if !self.opts.check_only {
            let flops = 2.0 * m as f64 * n as f64 * k as f64;
            let mut out = OutArg::new(&mut c, &lc)?;
            let what = format!("{name} {}", measured.size);
            measured.ours = self.measure(&what, Rate::Flops, flops, || {
                Ok(kernel.launch(gpu.stream(), &cfg, (a_arg, b_arg, out.reborrow(), 1.0, 0.0))?)
            })?;
            let cublas_call =
                format!("cublasSgemm ({})", if D::FORM == GemmForm::Nt { "N,T" } else { "T,N" });
            let anchor = match (&self.blas, c_ref) {
                (Ok(blas), Some(mut theirs)) => {
                    let what = format!("{cublas_call} {}", measured.size);
                    self.measure(&what, Rate::Flops, flops, || {
                        blas.sgemm(gpu.stream(), D::FORM, dims, (&a, &b), &mut theirs)
                    })?
                }
                (Err(why), _) => Cell::Text(format!("n/a ({why})")),
                (Ok(_), None) => Cell::none(),
            };
            measured.anchors.push((cublas_call, anchor));
        }
        Ok(measured)
    }

    /// The rows of one kernel: one per anchor (measured here, then the file's for `target`),
    /// or one without an anchor.
    pub fn push_rows(&mut self, m: Measured, target: Option<Target>) {
        self.push_rows_with(m, |a| Some(a.target) == target);
    }

    /// Adds the rows of an attention kernel: its measured anchors and those of the file of the
    /// same shape (`shape`: [`Shape::anchor_key`](crate::attention::Shape::anchor_key); none when
    /// `None`).
    pub fn push_attention_rows(&mut self, m: Measured, shape: Option<String>) {
        self.push_rows_with(m, |a| {
            a.target == Target::Attention
                && shape.as_deref().is_some_and(|s| crate::anchors::attention_shape(&a.key) == Some(s))
        });
    }

    /// Adds the rows of `m`: its measured anchors and the file's anchors `of_file` accepts (none
    /// with `--check-only`), or one row without an anchor.
    fn push_rows_with(&mut self, m: Measured, of_file: impl Fn(&Anchor) -> bool) {
        let from_file = self.anchors.iter().filter(|a| of_file(a) && !self.opts.check_only);
        let mut pairs = m.anchors;
        pairs.extend(from_file.map(|a| (a.key.clone(), anchor_cell(a))));
        if pairs.is_empty() {
            pairs.push(("-".into(), Cell::none()));
        }
        for (anchor, anchor_figure) in pairs {
            let (kernel, size, ours, check) =
                (m.kernel.clone(), m.size.clone(), m.ours.clone(), m.check.clone());
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
