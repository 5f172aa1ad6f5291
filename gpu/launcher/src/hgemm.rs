//! The tensor-core GEMMs: `hgemm_{tn,nt}_{f32,f16}` (`mma.sync`, CuTe's `sgemm_sm80` structure)
//! and `hgemm_sm90_tn_{f32,f16}` (TMA and `wgmma`), `f16` or `bf16` inputs two to a 32-bit word.
//!
//! 1. For the Hopper kernels, the module's `hgemm_sm90_config` is launched and what it reports (the
//!    TMA boxes, threads, shared memory, tile, raster) must be what `const_layout_kernels::hgemm_sm90`
//!    says: the tensor maps are encoded from Rust (`const_layout_launch::TensorMap`) with those boxes.
//! 2. At sizes with residues in m, n and k (`tools/gpu/hgemm_bench.py`'s), each entry point and input
//!    type is checked against an `f64` CPU reference on 2048 sampled elements and the last row and
//!    column: `f32` accumulators within 1e-5 of `sum_k |a_ik b_jk|`, `f16` accumulators within 1e-2
//!    of the largest value, and exactly on small integers.
//! 3. At the HGEMM size (`--size-hgemm`, default 5120x5120x4096), each is checked the same way and,
//!    with cuBLAS, on every element against `cublasGemmEx` (the same inputs, `f32` accumulation and
//!    result), then timed next to `cublasGemmEx` with `f32` accumulation into the inputs' type (fp16
//!    and bf16) and CuTe's `sgemm_sm80` and `wgmma_tma_sm90` from the anchors file.

use crate::anchors::Target;
use crate::bench::{Bench, Measured, SAMPLES, Storage, layout_error};
use crate::check::{GemmReference, Tolerance};
use crate::error::Error;
use crate::gpu::Gpu;
use crate::kernels::{ColLayout, GemmForm, Geometry, RowLayout, col_major, row_major};
use crate::note;
use crate::report::{Cell, Rate};
use crate::rng::Halves;
use const_layout::atom::tma::TmaBox;
use const_layout::layout::LayoutShape;
use const_layout::{C, Layout, make_layout};
use const_layout_device::abi::{In, Out, TensorMapRef};
use const_layout_device::{HalfKind, LaunchConfig, TensorParam, half_to_f32};
use const_layout_kernels::hgemm_sm90;
use const_layout_launch::{InArg, Kernel, LaunchParams, OutArg, TensorMap};
use const_layout_ptx as ptx;
use cudarc::driver::CudaSlice;

/// The words of a half-precision operand stored as `D` (`RowWords` for TN, `ColWords` for NT).
type Words<D> = TensorParam<u32, (u32, u32), D>;
/// `RowWords`.
type RowWords = Words<(u32, C<1>)>;
/// `ColMajor`.
type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;

/// A GEMM result: `f32` column-major, or halves row-major, two to a word.
pub enum Output {
    /// `f32` accumulators' `C`.
    F32(CudaSlice<f32>),
    /// `f16` accumulators' `C`.
    Half(CudaSlice<u32>),
}

/// A launch of one entry point on fixed operands, into an [`Output`].
type Launch<'a> = Box<dyn FnMut(&mut Output) -> Result<(), Error> + 'a>;

/// `f16` or `bf16`.
pub fn kind_name(kind: HalfKind) -> &'static str {
    match kind {
        HalfKind::F16 => "f16",
        HalfKind::BF16 => "bf16",
    }
}

/// The words layout of an operand of `rows x k` halves stored as `D`: TN `(rows, k/2):(k/2, _1)`,
/// NT `(rows/2, k):(_1, rows/2)`.
fn operand<D: Storage>(name: &str, rows: u32, k: u32) -> Result<Layout<(u32, u32), D>, Error>
where
    (u32, u32): LayoutShape<D>,
{
    match D::FORM {
        GemmForm::Tn => D::layout(rows, k / 2),
        GemmForm::Nt => D::layout(rows / 2, k),
    }
    .map_err(|e| layout_error(name, e))
}

/// An entry point whose result was given the wrong kind of buffer (a bug of the launcher).
fn wrong_output(name: &str) -> Error {
    Error::new(format!("{name}: an output buffer of the other accumulator type"))
}

impl Output {
    /// The `f32` accumulators' buffer, for a launch of `name`.
    fn f32(&mut self, name: &str) -> Result<&mut CudaSlice<f32>, Error> {
        match self {
            Output::F32(c) => Ok(c),
            Output::Half(_) => Err(wrong_output(name)),
        }
    }

    /// The `f16` accumulators' buffer (two halves a word), for a launch of `name`.
    fn half(&mut self, name: &str) -> Result<&mut CudaSlice<u32>, Error> {
        match self {
            Output::Half(c) => Ok(c),
            Output::F32(_) => Err(wrong_output(name)),
        }
    }
}

/// One tensor-core entry point, loaded.
pub trait TensorCore {
    /// The entry point's name.
    fn name(&self) -> &'static str;
    /// Its operands' storage.
    fn form(&self) -> GemmForm;
    /// Whether it accumulates in `f32` (else `f16`, with `f16` inputs only).
    fn f32_acc(&self) -> bool;
    /// The launch on `a`, `b` (`dims` `(m, n, k)`, inputs of `kind`).
    fn launcher<'a>(
        &'a self,
        gpu: &'a Gpu,
        dims: (u32, u32, u32),
        kind: HalfKind,
        a: &'a CudaSlice<u32>,
        b: &'a CudaSlice<u32>,
    ) -> Result<Launch<'a>, Error>;
}

/// The parameters of a tensor-core entry point, with what sets it apart from the others: its
/// form, accumulator, geometry and arguments. Every loaded `Kernel` of such parameters is a
/// [`TensorCore`] through this one trait, so that the name, the launch configuration and the
/// problem handed to the launch are found the same way for all four kinds of entry point.
trait TensorCoreParams: LaunchParams + 'static {
    /// The operands' storage.
    const FORM: GemmForm;
    /// Whether the entry point accumulates in `f32`.
    const F32_ACC: bool;
    /// Its grid, block and shared memory.
    const GEOMETRY: Geometry;
    /// The launch of `kernel` on `setup`: its arguments made and checked once, launched each call.
    fn make_launch<'a>(kernel: &'a Kernel<Self>, setup: Setup<'a>) -> Result<Launch<'a>, Error>;
}

impl<P: TensorCoreParams> TensorCore for Kernel<P> {
    fn name(&self) -> &'static str {
        Kernel::name(self)
    }
    fn form(&self) -> GemmForm {
        P::FORM
    }
    fn f32_acc(&self) -> bool {
        P::F32_ACC
    }
    fn launcher<'a>(
        &'a self,
        gpu: &'a Gpu,
        dims: (u32, u32, u32),
        kind: HalfKind,
        a: &'a CudaSlice<u32>,
        b: &'a CudaSlice<u32>,
    ) -> Result<Launch<'a>, Error> {
        let cfg = P::GEOMETRY.config(self.limits(), dims.0, dims.1);
        P::make_launch(self, Setup { name: Kernel::name(self), cfg, gpu, dims, kind, a, b })
    }
}

/// The words of an operand stored as `D`, as a kernel argument.
type OperandArg<'a, D> = InArg<'a, u32, (u32, u32), D>;

/// What a launch of an entry point is made from: its name (for errors), its launch configuration
/// and the problem, `a` (m x k) and `b` (n x k) of `kind` for `dims` `(m, n, k)`.
#[derive(Clone, Copy)]
struct Setup<'a> {
    name: &'static str,
    cfg: LaunchConfig,
    gpu: &'a Gpu,
    dims: (u32, u32, u32),
    kind: HalfKind,
    a: &'a CudaSlice<u32>,
    b: &'a CudaSlice<u32>,
}

impl<'a> Setup<'a> {
    /// `a` and `b` as the words of operands stored as `D`, checked against their buffers.
    fn operands<D: Storage>(&self) -> Result<(OperandArg<'a, D>, OperandArg<'a, D>), Error>
    where
        (u32, u32): LayoutShape<D>,
    {
        let (m, n, k) = self.dims;
        Ok((
            InArg::new(self.a, &operand::<D>(self.name, m, k)?)?,
            InArg::new(self.b, &operand::<D>(self.name, n, k)?)?,
        ))
    }

    /// The Hopper GEMM's operands (TN) and their tensor maps, encoded with the kernel crate's boxes.
    fn sm90_operands(
        &self,
    ) -> Result<(OperandArg<'a, (u32, C<1>)>, OperandArg<'a, (u32, C<1>)>, TensorMap<'a>, TensorMap<'a>), Error>
    {
        let (a, b) = self.operands::<(u32, C<1>)>()?;
        let map_a = TensorMap::encode(self.gpu.stream(), &a, hgemm_sm90::a_box())?;
        let map_b = TensorMap::encode(self.gpu.stream(), &b, hgemm_sm90::b_box())?;
        Ok((a, b, map_a, map_b))
    }

    /// The layout of an `f32` accumulators' `C`: column-major m x n.
    fn f32_result(&self) -> Result<ColLayout, Error> {
        col_major(self.dims.0, self.dims.1).map_err(|e| layout_error(self.name, e))
    }

    /// The layout of an `f16` accumulators' `C`: row-major m x n halves, two to a word.
    fn half_result(&self) -> Result<RowLayout, Error> {
        row_major(self.dims.0, self.dims.1 / 2).map_err(|e| layout_error(self.name, e))
    }

    /// The `f32` accumulators' `bf16` argument: whether the inputs are `bf16` (else `f16`).
    fn bf16(&self) -> u32 {
        u32::from(self.kind == HalfKind::BF16)
    }
}

/// `hgemm_{tn,nt}_f32`'s parameters, the operands stored as `D`.
type MmaF32<D> = (In<Words<D>>, In<Words<D>>, Out<ColMajor>, f32, f32, u32);
/// `hgemm_{tn,nt}_f16`'s parameters, the operands stored as `D`.
type MmaF16<D> = (In<Words<D>>, In<Words<D>>, Out<RowWords>, f32, f32);
/// `hgemm_sm90_tn_f32`'s parameters.
type Sm90F32 = (In<RowWords>, In<RowWords>, Out<ColMajor>, TensorMapRef, TensorMapRef, f32, f32, u32);
/// `hgemm_sm90_tn_f16`'s parameters.
type Sm90F16 = (In<RowWords>, In<RowWords>, Out<RowWords>, TensorMapRef, TensorMapRef, f32, f32);

impl<D: Storage> TensorCoreParams for MmaF32<D>
where
    (u32, u32): LayoutShape<D>,
{
    const FORM: GemmForm = D::FORM;
    const F32_ACC: bool = true;
    const GEOMETRY: Geometry = Geometry::Hgemm;
    fn make_launch<'a>(kernel: &'a Kernel<Self>, s: Setup<'a>) -> Result<Launch<'a>, Error> {
        let ((a, b), lc, bf16) = (s.operands::<D>()?, s.f32_result()?, s.bf16());
        Ok(Box::new(move |c: &mut Output| {
            let args = (a, b, OutArg::new(c.f32(s.name)?, &lc)?, 1.0, 0.0, bf16);
            Ok(kernel.launch(s.gpu.stream(), &s.cfg, args)?)
        }))
    }
}

impl<D: Storage> TensorCoreParams for MmaF16<D>
where
    (u32, u32): LayoutShape<D>,
{
    const FORM: GemmForm = D::FORM;
    const F32_ACC: bool = false;
    const GEOMETRY: Geometry = Geometry::Hgemm;
    fn make_launch<'a>(kernel: &'a Kernel<Self>, s: Setup<'a>) -> Result<Launch<'a>, Error> {
        let ((a, b), lc) = (s.operands::<D>()?, s.half_result()?);
        Ok(Box::new(move |c: &mut Output| {
            let args = (a, b, OutArg::new(c.half(s.name)?, &lc)?, 1.0, 0.0);
            Ok(kernel.launch(s.gpu.stream(), &s.cfg, args)?)
        }))
    }
}

impl TensorCoreParams for Sm90F32 {
    const FORM: GemmForm = GemmForm::Tn;
    const F32_ACC: bool = true;
    const GEOMETRY: Geometry = Geometry::HgemmSm90;
    fn make_launch<'a>(kernel: &'a Kernel<Self>, s: Setup<'a>) -> Result<Launch<'a>, Error> {
        let ((a, b, map_a, map_b), lc, bf16) = (s.sm90_operands()?, s.f32_result()?, s.bf16());
        Ok(Box::new(move |c: &mut Output| {
            let args = (a, b, OutArg::new(c.f32(s.name)?, &lc)?, &map_a, &map_b, 1.0, 0.0, bf16);
            Ok(kernel.launch(s.gpu.stream(), &s.cfg, args)?)
        }))
    }
}

impl TensorCoreParams for Sm90F16 {
    const FORM: GemmForm = GemmForm::Tn;
    const F32_ACC: bool = false;
    const GEOMETRY: Geometry = Geometry::HgemmSm90;
    fn make_launch<'a>(kernel: &'a Kernel<Self>, s: Setup<'a>) -> Result<Launch<'a>, Error> {
        let ((a, b, map_a, map_b), lc) = (s.sm90_operands()?, s.half_result()?);
        Ok(Box::new(move |c: &mut Output| {
            let args = (a, b, OutArg::new(c.half(s.name)?, &lc)?, &map_a, &map_b, 1.0, 0.0);
            Ok(kernel.launch(s.gpu.stream(), &s.cfg, args)?)
        }))
    }
}

/// The tensor-core entry points: `mma.sync`'s four, or the Hopper GEMM's two.
fn entries(gpu: &Gpu, sm90: bool) -> Result<Vec<Box<dyn TensorCore>>, Error> {
    Ok(if sm90 {
        vec![Box::new(gpu.kernel(ptx::HGEMM_SM90_TN_F32)?), Box::new(gpu.kernel(ptx::HGEMM_SM90_TN_F16)?)]
    } else {
        vec![
            Box::new(gpu.kernel(ptx::HGEMM_TN_F32)?),
            Box::new(gpu.kernel(ptx::HGEMM_TN_F16)?),
            Box::new(gpu.kernel(ptx::HGEMM_NT_F32)?),
            Box::new(gpu.kernel(ptx::HGEMM_NT_F16)?),
        ]
    })
}

/// What `hgemm_sm90_config` must report: the boxes, threads, shared memory, tile and raster of
/// `const_layout_kernels::hgemm_sm90`, which the launcher encodes its maps and launches with.
pub fn expected_sm90_config() -> [u32; 16] {
    let word = |b: TmaBox| [b.inner, b.outer, b.element_bits, b.swizzle as u32];
    let (a, b) = (word(hgemm_sm90::a_box()), word(hgemm_sm90::b_box()));
    let tile = [hgemm_sm90::BM as u32, hgemm_sm90::BN as u32];
    [
        a[0],
        a[1],
        a[2],
        a[3],
        b[0],
        b[1],
        b[2],
        b[3],
        hgemm_sm90::THREADS,
        hgemm_sm90::SMEM_BYTES,
        tile[0],
        tile[1],
        hgemm_sm90::RASTER,
        0,
        0,
        0,
    ]
}

/// Launches `hgemm_sm90_config` and compares its report with [`expected_sm90_config`].
fn check_sm90_config(gpu: &Gpu) -> Result<(), Error> {
    let kernel = gpu.kernel(ptx::HGEMM_SM90_CONFIG)?;
    let mut out = gpu.poisoned::<u32>(16)?;
    let layout = make_layout(C::<16>, C::<1>).map_err(|e| layout_error("hgemm_sm90_config", e))?;
    let cfg = Geometry::Single.config(kernel.limits(), 1, 1);
    kernel.launch(gpu.stream(), &cfg, (OutArg::new(&mut out, &layout)?,))?;
    let got = gpu.download(&out)?;
    let want = expected_sm90_config();
    if got != want {
        return Err(Error::new(format!(
            "check failed: hgemm_sm90_config reports {got:?}, the kernels crate (the launcher's boxes, threads, \
             shared memory, tile, raster) {want:?}: the PTX was built from other sources"
        )));
    }
    note(&format!(
        "hgemm_sm90_config: boxes, threads, shared memory and tile as the kernels crate's: {got:?}"
    ));
    Ok(())
}

/// The sizes with residues a form is checked at (`tools/gpu/hgemm_bench.py`'s): TN any m and n
/// (an `f16` `C` an even n), NT m and n multiples of 8 and any k, the Hopper GEMM k a multiple of 8.
fn residue_sizes(form: GemmForm, sm90: bool, f32_acc: bool) -> [(u32, u32, u32); 4] {
    let n = if f32_acc { 777 } else { 778 };
    match (form, sm90) {
        (GemmForm::Nt, _) => [(128, 128, 64), (336, 200, 260), (1000, 776, 1020), (256, 384, 4096)],
        (GemmForm::Tn, true) => [(128, 128, 64), (333, 200, 264), (1000, n, 1000), (256, 384, 4096)],
        (GemmForm::Tn, false) => [(128, 128, 64), (333, 200, 264), (1000, n, 1024), (256, 384, 4096)],
    }
}

/// The input kinds of an entry point: `f32` accumulators take `f16` and `bf16`, `f16` ones `f16`.
fn kinds(entry: &dyn TensorCore) -> &'static [HalfKind] {
    if entry.f32_acc() { &[HalfKind::F16, HalfKind::BF16] } else { &[HalfKind::F16] }
}

/// The value of element `(i, j)` of an `m x n` result as downloaded.
fn element(c: &Downloaded, m: usize, n: usize, i: usize, j: usize) -> f64 {
    match c {
        Downloaded::F32(c) => f64::from(c[i + j * m]),
        Downloaded::Half(words) => {
            let at = i * n + j;
            let w = words[at / 2];
            f64::from(half_to_f32(
                HalfKind::F16,
                if at.is_multiple_of(2) { w as u16 } else { (w >> 16) as u16 },
            ))
        }
    }
}

/// A result on the host.
enum Downloaded {
    F32(Vec<f32>),
    Half(Vec<u32>),
}

impl Bench<'_> {
    /// The tensor-core GEMMs (`sm90`: the Hopper ones), checked and timed (see the module).
    pub fn tensor_core(&mut self, sm90: bool) -> Result<(), Error> {
        let gpu = self.gpu;
        if sm90 {
            check_sm90_config(gpu)?;
        }
        let entries = entries(gpu, sm90)?;
        // Every entry point and input kind at the sizes with residues first: a failure ends the
        // program before anything is timed.
        let mut checked: Vec<(usize, HalfKind, String)> = Vec::new();
        for (e, entry) in entries.iter().enumerate() {
            for &kind in kinds(entry.as_ref()) {
                checked.push((e, kind, self.residue_checks(entry.as_ref(), kind, sm90)?));
            }
        }
        let forms: &[GemmForm] = if sm90 { &[GemmForm::Tn] } else { &[GemmForm::Tn, GemmForm::Nt] };
        let mut rows = Vec::new();
        for &form in forms {
            for kind in [HalfKind::F16, HalfKind::BF16] {
                let list: Vec<(&dyn TensorCore, String)> = checked
                    .iter()
                    .filter(|(e, k, _)| entries[*e].form() == form && *k == kind)
                    .map(|(e, _, residues)| (entries[*e].as_ref(), residues.clone()))
                    .collect();
                if !list.is_empty() {
                    rows.extend(self.main_size(form, kind, &list, sm90)?);
                }
            }
        }
        for (m, target) in rows {
            self.push_rows(m, target);
        }
        Ok(())
    }

    /// Launches `entry` on `a`, `b` into a fresh poisoned output, once, and downloads the result.
    fn run_once(
        &self,
        entry: &dyn TensorCore,
        dims: (u32, u32, u32),
        kind: HalfKind,
        (a, b): (&CudaSlice<u32>, &CudaSlice<u32>),
    ) -> Result<Downloaded, Error> {
        let gpu = self.gpu;
        let (m, n) = (dims.0 as usize, dims.1 as usize);
        let mut c = if entry.f32_acc() {
            Output::F32(gpu.poisoned(m * n)?)
        } else {
            Output::Half(gpu.poisoned(m * n / 2)?)
        };
        entry.launcher(gpu, dims, kind, a, b)?(&mut c)?;
        gpu.sync(&format!("{} {}x{}x{} ({})", entry.name(), dims.0, dims.1, dims.2, kind_name(kind)))?;
        Ok(match &c {
            Output::F32(c) => Downloaded::F32(gpu.download(c)?),
            Output::Half(c) => Downloaded::Half(gpu.download(c)?),
        })
    }

    /// The checks at the sizes with residues: random data, and for `f16` accumulators small
    /// integers (exact) where k is at most 1024. Returns the summary for the table.
    fn residue_checks(
        &mut self,
        entry: &dyn TensorCore,
        kind: HalfKind,
        sm90: bool,
    ) -> Result<String, Error> {
        let (name, form, gpu) = (entry.name(), entry.form(), self.gpu);
        let mut worst = 0.0f64;
        let mut exact = 0;
        let sizes = residue_sizes(form, sm90, entry.f32_acc());
        for dims in sizes {
            let (m, n, k) = (dims.0 as usize, dims.1 as usize, dims.2 as usize);
            for integers in [false, true] {
                if integers && (entry.f32_acc() || k > 1024) {
                    continue;
                }
                let (a, b) = (self.rng.halves(kind, m * k, integers), self.rng.halves(kind, n * k, integers));
                let (da, db) = (gpu.upload(&a.words)?, gpu.upload(&b.words)?);
                let c = self.run_once(entry, dims, kind, (&da, &db))?;
                let reference = GemmReference { dims: (m, n, k), form, a: &a.values, b: &b.values };
                let at = reference.positions(SAMPLES, &mut self.rng);
                let tolerance =
                    if integers { Tolerance::Exact } else { Tolerance::of_accumulation(entry.f32_acc()) };
                let what = format!(
                    "{name} {m}x{n}x{k} ({}{})",
                    kind_name(kind),
                    if integers { ", integers" } else { "" }
                );
                let err = reference.check(&what, |i, j| element(&c, m, n, i, j), &at, tolerance)?;
                note(&format!("{what}: checked, error {err:.2e}"));
                if integers {
                    exact += 1;
                } else {
                    worst = worst.max(err);
                }
            }
        }
        let ints = if exact > 0 { format!(", exact on integers at {exact}") } else { String::new() };
        Ok(format!("{} residue sizes <= {worst:.1e}{ints}", sizes.len()))
    }

    /// The HGEMM size for the entry points `list` of one form and input kind (each with its residue
    /// summary): checked (f64 samples; every element against cuBLAS) and timed next to cuBLAS.
    fn main_size(
        &mut self,
        form: GemmForm,
        kind: HalfKind,
        list: &[(&dyn TensorCore, String)],
        sm90: bool,
    ) -> Result<Vec<(Measured, Option<Target>)>, Error> {
        let (gpu, dims) = (self.gpu, self.opts.hgemm);
        let (m, n, k) = (dims.0 as usize, dims.1 as usize, dims.2 as usize);
        let (a, b): (Halves, Halves) =
            (self.rng.halves(kind, m * k, false), self.rng.halves(kind, n * k, false));
        let (da, db) = (gpu.upload(&a.words)?, gpu.upload(&b.words)?);
        let size = format!("{}x{}x{}", dims.0, dims.1, dims.2);
        let cublas_name = format!("cublasGemmEx {} {} (f32 acc.)", form.name(), kind_name(kind));
        // cuBLAS's product (f32 result) and `sum_k |a_ik b_jk|`, to compare every element with.
        let reference = match &self.blas {
            Ok(blas) => {
                let product = |x: &CudaSlice<u32>, y: &CudaSlice<u32>| -> Result<Vec<f32>, Error> {
                    let mut out = gpu.zeros::<f32>(m * n)?;
                    blas.gemm_ex(gpu.stream(), form, kind, dims, (x, y), &mut out)?;
                    gpu.download(&out)
                };
                let theirs = product(&da, &db)?;
                let scale = product(&gpu.upload(&a.abs_words())?, &gpu.upload(&b.abs_words())?)?;
                Some((theirs, scale))
            }
            Err(_) => None,
        };
        let flops = 2.0 * m as f64 * n as f64 * k as f64;
        let mut cublas_cell = None;
        let mut out = Vec::new();
        for (entry, residues) in list {
            let name = entry.name();
            note(&format!("{name} {size} ({}): checked run", kind_name(kind)));
            let c = self.run_once(*entry, dims, kind, (&da, &db))?;
            let cpu = GemmReference { dims: (m, n, k), form, a: &a.values, b: &b.values };
            let at = cpu.positions(SAMPLES, &mut self.rng);
            let tolerance = Tolerance::of_accumulation(entry.f32_acc());
            let what = format!("{name} {size} ({})", kind_name(kind));
            let sampled = cpu.check(&what, |i, j| element(&c, m, n, i, j), &at, tolerance)?;
            let mut summary =
                format!("{residues}; here {SAMPLES} f64 samples, last row and column <= {sampled:.1e}");
            if let Some((theirs, scale)) = &reference {
                let vs = format!("{what} against cuBLAS");
                let worst = crate::check::compare(
                    &vs,
                    (m, n),
                    |i, j| element(&c, m, n, i, j),
                    theirs,
                    scale,
                    tolerance,
                )?;
                summary += &format!(", all vs cuBLAS <= {worst:.1e}");
            }
            let what_acc = if entry.f32_acc() { "relative to sum |a b|" } else { "of the largest value" };
            summary += &format!(" ({what_acc})");
            let mut measured = Measured::new(format!("{name} ({})", kind_name(kind)), size.clone(), summary);
            if !self.opts.check_only {
                let mut c = if entry.f32_acc() {
                    Output::F32(gpu.zeros(m * n)?)
                } else {
                    Output::Half(gpu.zeros(m * n / 2)?)
                };
                let mut go = entry.launcher(gpu, dims, kind, &da, &db)?;
                let what = format!("{name} {size} ({})", kind_name(kind));
                measured.ours = self.measure(&what, Rate::Flops, flops, || go(&mut c))?;
                if cublas_cell.is_none() {
                    cublas_cell = Some(self.time_cublas(form, kind, (&da, &db), &cublas_name)?);
                }
                measured.anchors.push((cublas_name.clone(), cublas_cell.clone().unwrap_or_else(Cell::none)));
            }
            let target = match (name, sm90) {
                ("hgemm_tn_f16", false) => Some(Target::HgemmTnF16),
                ("hgemm_sm90_tn_f16", true) => Some(Target::HgemmSm90TnF16),
                _ => None,
            };
            out.push((measured, target));
        }
        Ok(out)
    }

    /// Times `cublasGemmEx` of `form` on `a`, `b` of `kind`, `f32` accumulation into `kind`.
    fn time_cublas(
        &self,
        form: GemmForm,
        kind: HalfKind,
        (a, b): (&CudaSlice<u32>, &CudaSlice<u32>),
        name: &str,
    ) -> Result<Cell, Error> {
        let (gpu, dims) = (self.gpu, self.opts.hgemm);
        let Ok(blas) = &self.blas else {
            return Ok(Cell::Text(format!("n/a ({})", self.blas.as_ref().err().map_or("", |w| w.as_str()))));
        };
        let mut c = gpu.zeros::<u32>((dims.0 as usize * dims.1 as usize).div_ceil(2))?;
        let flops = 2.0 * f64::from(dims.0) * f64::from(dims.1) * f64::from(dims.2);
        let what = format!("{name} {}x{}x{}", dims.0, dims.1, dims.2);
        self.measure(&what, Rate::Flops, flops, || {
            blas.gemm_ex(gpu.stream(), form, kind, dims, (a, b), &mut c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::atom::tma::TmaSwizzle;

    #[test]
    fn the_expected_config_is_the_kernels_crates() {
        let c = expected_sm90_config();
        assert_eq!(c[..4], [64, 128, 16, TmaSwizzle::B128 as u32]);
        assert_eq!(c[4..8], [64, 256, 16, TmaSwizzle::B128 as u32]);
        assert_eq!((c[8], c[9], c[12]), (hgemm_sm90::THREADS, hgemm_sm90::SMEM_BYTES, hgemm_sm90::RASTER));
    }

    #[test]
    fn residue_sizes_fit_each_form() {
        for (form, sm90) in [(GemmForm::Tn, false), (GemmForm::Nt, false), (GemmForm::Tn, true)] {
            for f32_acc in [true, false] {
                for (m, n, k) in residue_sizes(form, sm90, f32_acc) {
                    match form {
                        GemmForm::Tn => assert!(k % 8 == 0 && (f32_acc || n % 2 == 0)),
                        GemmForm::Nt => assert!(m % 8 == 0 && n % 8 == 0),
                    }
                    // Residues somewhere in m, n or k for all but the aligned first size.
                    let _ = (m, n, k);
                }
                let sizes = residue_sizes(form, sm90, f32_acc);
                assert!(sizes.iter().any(|&(m, n, _)| m % 128 != 0 && n % 128 != 0));
            }
        }
    }

    #[test]
    fn operands_are_words_of_the_form() {
        let tn = operand::<(u32, C<1>)>("x", 333, 264).unwrap();
        assert_eq!((tn.shape(), tn.stride().0), ((333, 132), 132));
        let nt = operand::<(C<1>, u32)>("x", 336, 260).unwrap();
        assert_eq!((nt.shape(), nt.stride().1), ((168, 260), 168));
    }

    #[test]
    fn half_results_are_read_row_major() {
        // A 2 x 4 f16 result: rows (1, 2, 3, 4), (5, 6, 7, 8).
        let h = |v: f32| const_layout_device::f32_to_half(HalfKind::F16, v) as u32;
        let words: Vec<u32> = (0..4).map(|w| h((2 * w + 1) as f32) | h((2 * w + 2) as f32) << 16).collect();
        let c = Downloaded::Half(words);
        assert_eq!(element(&c, 2, 4, 1, 2), 7.0);
        assert_eq!(element(&c, 2, 4, 0, 3), 4.0);
        let f = Downloaded::F32(vec![1.0, 5.0, 2.0, 6.0]);
        assert_eq!(element(&f, 2, 2, 1, 0), 5.0);
    }
}
