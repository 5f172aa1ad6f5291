//! The PTX module's ABI, in one place: each entry point's name, parameter types and launch
//! geometry, and the parameter wrappers that make a launch safe to call.
//!
//! | entry point | parameters | grid, block, shared memory |
//! |---|---|---|
//! | `copy_f32` | `src: ColMajor, dst: ColMajor` | `copy::grid(m, n)`, `copy::block()`, none |
//! | `transpose_f32` | `src: RowMajor, dst: ColMajor` (one `m x n` shape) | `transpose::grid`, `block`, `SMEM_BYTES` |
//! | `sgemm_nt_f32` | `a: ColMajor (m,k), b: ColMajor (n,k), c: ColMajor (m,n), alpha, beta` | `sgemm::grid(m, n)`, `block`, `SMEM_BYTES` |
//! | `sgemm_tn_f32` | `a: RowMajor (m,k), b: RowMajor (n,k), c: ColMajor (m,n), alpha, beta` | as `sgemm_nt_f32` |
//!
//! The geometry comes from `const-layout-kernels` (`copy`, `transpose`, `sgemm`), the crate the PTX
//! module is built from, so the launcher and the kernels cannot disagree on it.
//!
//! Parameters are [`Input`]s and [`Output`]s: a [`TensorParam`] made by [`TensorParam::new`]
//! (checked alignment, strides and cosize) for a device buffer the wrapper borrows, shared for an
//! input and exclusively for an output. The borrows keep every buffer allocated while launches can
//! be made with it and make an output distinct from every input of the same launch: the contract
//! the entry points' safety relies on (see `main.rs`).

use crate::error::Error;
use const_layout::{C, make_layout};
use const_layout_device::{Dim3, TensorParam};
use const_layout_kernels::{copy, sgemm, transpose};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchArgs, PushKernelArg};
use std::marker::PhantomData;

/// An `f32` matrix with runtime extents and leading dimension, column-major: `(m,n):(_1,ld)`.
/// The same type as the PTX module's `ColMajor`.
pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
/// An `f32` matrix with runtime extents and leading dimension, row-major: `(m,n):(ld,_1)`.
/// The same type as the PTX module's `RowMajor`.
pub type RowMajor = TensorParam<f32, (u32, u32), (u32, C<1>)>;

// The parameters' layout on the device: 64 bytes, aligned to 8 (two `u64`s, twelve `u32` words).
const _: () = assert!(size_of::<ColMajor>() == 64 && align_of::<ColMajor>() == 8);
const _: () = assert!(size_of::<RowMajor>() == 64 && align_of::<RowMajor>() == 8);

/// [`Matrix`] is implemented for the ABI's two parameter types only.
mod sealed {
    /// The ABI's parameter types.
    pub trait Sealed {}
    impl Sealed for super::ColMajor {}
    impl Sealed for super::RowMajor {}
}

/// The two GEMM forms, CuTe's names: the storage of `A` (m x k) and `B` (n x k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmForm {
    /// `A`, `B` column-major (m and n contiguous); cuBLAS `('N', 'T')`.
    Nt,
    /// `A`, `B` row-major (k contiguous); cuBLAS `('T', 'N')`.
    Tn,
}

impl GemmForm {
    /// The cuBLAS call of this form, column-major terms: `cublasSgemm (N,T)` or `(T,N)`.
    pub fn cublas_call(self) -> &'static str {
        match self {
            GemmForm::Nt => "cublasSgemm (N,T)",
            GemmForm::Tn => "cublasSgemm (T,N)",
        }
    }
}

/// A matrix parameter type of the ABI ([`ColMajor`] or [`RowMajor`]).
pub trait Matrix: Copy + sealed::Sealed {
    /// The GEMM form whose operands are stored this way.
    const GEMM_FORM: GemmForm;
    /// The GEMM entry point of that form.
    const GEMM: Kernel<Gemm<Self>>;
    /// The parameter of the compact `rows x cols` matrix in the allocation of `len` elements at
    /// device address `addr`, checked by [`TensorParam::new`].
    fn compact(addr: u64, len: usize, rows: u32, cols: u32) -> Result<Self, Error>;
    /// The offset of element `(i, j)` of the compact `rows x cols` matrix (host side).
    fn offset(rows: usize, cols: usize, i: usize, j: usize) -> usize;
}

/// A matrix parameter that [`TensorParam::new`] or `make_layout` refused.
fn refused(rows: u32, cols: u32, e: impl std::fmt::Display) -> Error {
    Error::new(format!("a {rows}x{cols} matrix parameter was refused: {e}"))
}

impl Matrix for ColMajor {
    const GEMM_FORM: GemmForm = GemmForm::Nt;
    const GEMM: Kernel<Gemm<Self>> = SGEMM_NT;
    fn compact(addr: u64, len: usize, rows: u32, cols: u32) -> Result<Self, Error> {
        let layout = make_layout((rows, cols), (C::<1>, rows)).map_err(|e| refused(rows, cols, e))?;
        TensorParam::new(addr, len, &layout).map_err(|e| refused(rows, cols, e))
    }
    fn offset(rows: usize, _cols: usize, i: usize, j: usize) -> usize {
        i + j * rows
    }
}

impl Matrix for RowMajor {
    const GEMM_FORM: GemmForm = GemmForm::Tn;
    const GEMM: Kernel<Gemm<Self>> = SGEMM_TN;
    fn compact(addr: u64, len: usize, rows: u32, cols: u32) -> Result<Self, Error> {
        let layout = make_layout((rows, cols), (cols, C::<1>)).map_err(|e| refused(rows, cols, e))?;
        TensorParam::new(addr, len, &layout).map_err(|e| refused(rows, cols, e))
    }
    fn offset(_rows: usize, cols: usize, i: usize, j: usize) -> usize {
        i * cols + j
    }
}

/// A read-only matrix parameter for a buffer borrowed for `'a`.
#[repr(transparent)]
pub struct Input<'a, P>(P, PhantomData<&'a CudaSlice<f32>>);

/// A written matrix parameter for a buffer borrowed exclusively for `'a`.
#[repr(transparent)]
pub struct Output<'a, P>(P, PhantomData<&'a mut CudaSlice<f32>>);

impl<'a, P: Matrix> Input<'a, P> {
    /// The compact `rows x cols` matrix in `buf`.
    pub fn new(buf: &'a CudaSlice<f32>, rows: u32, cols: u32, stream: &CudaStream) -> Result<Self, Error> {
        let (addr, _record) = buf.device_ptr(stream);
        Ok(Input(P::compact(addr, buf.len(), rows, cols)?, PhantomData))
    }
}

impl<'a> Output<'a, ColMajor> {
    /// The compact column-major `rows x cols` matrix in `buf`.
    pub fn new(
        buf: &'a mut CudaSlice<f32>,
        rows: u32,
        cols: u32,
        stream: &CudaStream,
    ) -> Result<Self, Error> {
        let len = buf.len();
        let (addr, _record) = buf.device_ptr_mut(stream);
        Ok(Output(ColMajor::compact(addr, len, rows, cols)?, PhantomData))
    }

    /// The matrix's extents `(rows, cols)`: what the launch geometry is computed from.
    pub fn extents(&self) -> (u32, u32) {
        self.0.layout().shape()
    }
}

// SAFETY: `Input` is `repr(transparent)` over a `TensorParam` (`ColMajor` or `RowMajor`, the only
// `Matrix` types), which is `repr(C)` plain data (two `u64`s, twelve `u32` words; 64 bytes,
// align 8) with the same definition on the device, where the entry point takes it by value.
unsafe impl<P: Matrix> DeviceRepr for Input<'_, P> {}
// SAFETY: as for `Input`.
unsafe impl<P: Matrix> DeviceRepr for Output<'_, P> {}

/// The arguments of a copy-like entry point (`copy_f32`, `transpose_f32`).
pub struct CopyArgs<'a, S> {
    /// The source.
    pub src: Input<'a, S>,
    /// The destination, of the same shape.
    pub dst: Output<'a, ColMajor>,
}

/// The arguments of a GEMM entry point: `c = alpha * a * b^T + beta * c`.
pub struct GemmArgs<'a, P> {
    /// `A`, m x k.
    pub a: Input<'a, P>,
    /// `B`, n x k.
    pub b: Input<'a, P>,
    /// `C`, m x n.
    pub c: Output<'a, ColMajor>,
    /// `alpha`.
    pub alpha: f32,
    /// `beta` (0: `C` is not read).
    pub beta: f32,
}

/// Arguments of an entry point, in its parameter order.
pub trait KernelArgs {
    /// Pushes the arguments, in order, onto `launch`.
    fn push<'b>(&'b self, launch: &mut LaunchArgs<'b>);
    /// The output's extents, `(m, n)`: the launch geometry's input.
    fn extents(&self) -> (u32, u32);
}

impl<S: Matrix> KernelArgs for CopyArgs<'_, S> {
    fn push<'b>(&'b self, launch: &mut LaunchArgs<'b>) {
        launch.arg(&self.src).arg(&self.dst);
    }
    fn extents(&self) -> (u32, u32) {
        self.dst.extents()
    }
}

impl<P: Matrix> KernelArgs for GemmArgs<'_, P> {
    fn push<'b>(&'b self, launch: &mut LaunchArgs<'b>) {
        launch.arg(&self.a).arg(&self.b).arg(&self.c).arg(&self.alpha).arg(&self.beta);
    }
    fn extents(&self) -> (u32, u32) {
        self.c.extents()
    }
}

/// The parameter list of an entry point, as a type: [`CopyLike`] or [`Gemm`].
pub trait Abi {
    /// The arguments, borrowing their buffers for `'a`.
    type Args<'a>: KernelArgs;
}

/// `(src: S, dst: ColMajor)`.
pub struct CopyLike<S>(PhantomData<S>);
/// `(a: P, b: P, c: ColMajor, alpha: f32, beta: f32)`.
pub struct Gemm<P>(PhantomData<P>);

impl<S: Matrix> Abi for CopyLike<S> {
    type Args<'a> = CopyArgs<'a, S>;
}
impl<P: Matrix> Abi for Gemm<P> {
    type Args<'a> = GemmArgs<'a, P>;
}

/// A launch's grid, block and shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Blocks.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// The shared memory the kernel needs (static or dynamic: see [`Kernel::smem_bytes`]).
    pub smem_bytes: u32,
}

impl Geometry {
    /// Checks CUDA's grid limits (x below 2^31, y and z at most 65535).
    pub fn check(&self, kernel: &str) -> Result<(), Error> {
        let Dim3 { x, y, z } = self.grid;
        if x < 1 << 31 && y <= 65535 && z <= 65535 {
            Ok(())
        } else {
            Err(Error::new(format!(
                "{kernel}: the grid {} exceeds CUDA's limits (x < 2^31, y and z <= 65535)",
                self.grid
            )))
        }
    }
}

/// An entry point of the PTX module: its name, parameters `A` and launch geometry.
pub struct Kernel<A> {
    /// The entry point's name.
    pub name: &'static str,
    /// Grid and block for an output of `m x n`.
    dims: fn(u32, u32) -> (Dim3, Dim3),
    /// The shared memory per block the kernel needs: given as dynamic shared memory unless the
    /// entry point declares at least this much statically (`transpose_f32` does).
    pub smem_bytes: u32,
    abi: PhantomData<fn() -> A>,
}

impl<A> Clone for Kernel<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A> Copy for Kernel<A> {}

impl<A> Kernel<A> {
    /// The geometry for an output of `m x n`.
    pub fn geometry(&self, m: u32, n: u32) -> Geometry {
        let (grid, block) = (self.dims)(m, n);
        Geometry { grid, block, smem_bytes: self.smem_bytes }
    }
}

/// The kernel `name` with grid and block `dims` and `smem_bytes` of shared memory.
const fn kernel<A>(name: &'static str, dims: fn(u32, u32) -> (Dim3, Dim3), smem_bytes: u32) -> Kernel<A> {
    Kernel { name, dims, smem_bytes, abi: PhantomData }
}

/// `copy_f32`.
pub const COPY: Kernel<CopyLike<ColMajor>> = kernel("copy_f32", |m, n| (copy::grid(m, n), copy::block()), 0);
/// `transpose_f32`.
pub const TRANSPOSE: Kernel<CopyLike<RowMajor>> =
    kernel("transpose_f32", |m, n| (transpose::grid(m, n), transpose::block()), transpose::SMEM_BYTES);
/// `sgemm_nt_f32`.
pub const SGEMM_NT: Kernel<Gemm<ColMajor>> = kernel("sgemm_nt_f32", sgemm_dims, sgemm::SMEM_BYTES);
/// `sgemm_tn_f32`.
pub const SGEMM_TN: Kernel<Gemm<RowMajor>> = kernel("sgemm_tn_f32", sgemm_dims, sgemm::SMEM_BYTES);

/// Both GEMMs' grid and block.
fn sgemm_dims(m: u32, n: u32) -> (Dim3, Dim3) {
    (sgemm::grid(m, n), sgemm::block())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked_by_tensor_param() {
        let p = ColMajor::compact(0x7f00_0000_0000, 12, 3, 4).unwrap();
        assert_eq!(p.layout().shape(), (3, 4));
        assert_eq!(p.layout().stride().1, 3);
        let r = RowMajor::compact(0x7f00_0000_0000, 12, 3, 4).unwrap();
        assert_eq!(r.layout().stride().0, 4);
        let e = ColMajor::compact(0x7f00_0000_0000, 11, 3, 4).unwrap_err();
        assert!(e.message().contains("reaches element 12"), "{e}");
        assert!(ColMajor::compact(0x7f00_0000_0008, 12, 3, 4).is_err());
    }

    #[test]
    fn geometry_follows_the_kernels_crate() {
        let g = COPY.geometry(8192, 8192);
        assert_eq!((g.grid, g.block, g.smem_bytes), (copy::grid(8192, 8192), copy::block(), 0));
        assert_eq!(RowMajor::GEMM.name, "sgemm_tn_f32");
        assert_eq!(ColMajor::GEMM.name, "sgemm_nt_f32");
        assert!(COPY.geometry(8192, 8192).check("copy_f32").is_ok());
        assert!(COPY.geometry(128, 1 << 30).check("copy_f32").is_err());
    }
}
