//! cuBLAS, loaded at run time when present: `cublasSgemm` in CuTe's NT and TN forms with the
//! default math mode (no TF32), and `cublasGemmEx` of `f16` or `bf16` operands with `f32`
//! accumulation (`CUBLAS_COMPUTE_32F`) into `f32` or into the operands' type, on the GPU's stream.
//! Its absence is not an error: the table says `n/a (libcublas not found)`.

use crate::error::{Context, Error, guard};
use crate::gpu::ensure_len;
use crate::kernels::GemmForm;
use const_layout_device::HalfKind;
use cudarc::cublas::result;
use cudarc::cublas::sys::{self, cublasOperation_t, cudaDataType};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use std::ffi::c_void;

/// A cuBLAS handle bound to the GPU's stream.
pub struct Blas {
    handle: sys::cublasHandle_t,
    version: i32,
}

impl Drop for Blas {
    fn drop(&mut self) {
        // SAFETY: the handle was made by `cublasCreate` and is destroyed once, here. An error
        // (a context already torn down after a kernel fault) leaves nothing to do.
        let _ = unsafe { result::destroy_handle(self.handle) };
    }
}

impl Blas {
    /// cuBLAS on `stream`, or why not (for the table's `n/a (why)`).
    pub fn open(stream: &CudaStream) -> Result<Blas, String> {
        // SAFETY: `is_culib_present` only tries to open libcublas by its usual names and closes
        // what it opened; nothing of the library is called.
        if !unsafe { sys::is_culib_present() } {
            return Err("libcublas not found".into());
        }
        guard("cuBLAS", || Blas::create(stream)).map_err(|e| e.to_string())
    }

    /// A handle on `stream` in the default math mode.
    fn create(stream: &CudaStream) -> Result<Blas, Error> {
        let mut blas = Blas { handle: result::create_handle().context("cublasCreate")?, version: 0 };
        // SAFETY: the handle is live, and the stream is the GPU's default stream, which stays valid.
        unsafe { result::set_stream(blas.handle, stream.cu_stream() as sys::cudaStream_t) }
            .context("cublasSetStream")?;
        // SAFETY: the handle is live.
        unsafe { sys::cublasSetMathMode(blas.handle, sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }
            .result()
            .context("cublasSetMathMode")?;
        // SAFETY: the handle is live; the call writes one `int` through a valid pointer.
        unsafe { sys::cublasGetVersion_v2(blas.handle, &mut blas.version) }
            .result()
            .context("cublasGetVersion")?;
        Ok(blas)
    }

    /// The library's version, `major.minor.patch`.
    pub fn version(&self) -> String {
        format!("{}.{}.{}", self.version / 10000, self.version / 100 % 100, self.version % 100)
    }

    /// The operation and leading dimension of `A` and of `B` in `form` (cuBLAS's column-major terms).
    fn ops(form: GemmForm, (m, n, k): (i32, i32, i32)) -> (cublasOperation_t, cublasOperation_t, i32, i32) {
        match form {
            GemmForm::Nt => (cublasOperation_t::CUBLAS_OP_N, cublasOperation_t::CUBLAS_OP_T, m, n),
            GemmForm::Tn => (cublasOperation_t::CUBLAS_OP_T, cublasOperation_t::CUBLAS_OP_N, k, k),
        }
    }

    /// `(m, n, k)` as cuBLAS's `int`s.
    fn ints(what: &str, (m, n, k): (u32, u32, u32)) -> Result<(i32, i32, i32), Error> {
        let int =
            |v: u32| i32::try_from(v).map_err(|_| Error::new(format!("{what}: {v} exceeds cuBLAS's int")));
        Ok((int(m)?, int(n)?, int(k)?))
    }

    /// `c = a * b^T` (alpha 1, beta 0: `c` is not read) with `cublasGemmEx`: `a` (m x k) and `b`
    /// (n x k) of `kind` halves, two to a word, stored as `form` says; `c` column-major m x n of
    /// `f32` (`C = f32`) or of `kind` halves two to a word (`C = u32`); `f32` accumulation.
    pub fn gemm_ex<C: GemmExOut>(
        &self,
        stream: &CudaStream,
        form: GemmForm,
        kind: HalfKind,
        dims: (u32, u32, u32),
        (a, b): (&CudaSlice<u32>, &CudaSlice<u32>),
        c: &mut CudaSlice<C>,
    ) -> Result<(), Error> {
        let (mu, nu, ku) = (dims.0 as usize, dims.1 as usize, dims.2 as usize);
        ensure_len("cublasGemmEx A", a, (mu * ku).div_ceil(2))?;
        ensure_len("cublasGemmEx B", b, (nu * ku).div_ceil(2))?;
        ensure_len("cublasGemmEx C", c, C::len(mu * nu))?;
        let (mi, ni, ki) = Self::ints("cublasGemmEx", dims)?;
        let (op_a, op_b, lda, ldb) = Self::ops(form, (mi, ni, ki));
        let half = match kind {
            HalfKind::F16 => cudaDataType::CUDA_R_16F,
            HalfKind::BF16 => cudaDataType::CUDA_R_16BF,
        };
        let (pa, _ra) = a.device_ptr(stream);
        let (pb, _rb) = b.device_ptr(stream);
        let (pc, _rc) = c.device_ptr_mut(stream);
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the handle is live; `a`, `b`, `c` are live allocations of at least m*k and n*k
        // halves and m*n elements of C's type (checked above), which is what these dimensions and
        // leading dimensions reach; `c` is borrowed exclusively, so it overlaps neither operand;
        // alpha and beta are host `f32`s, the scale type of CUBLAS_COMPUTE_32F (the default pointer
        // mode); the buffers are freed only on this stream.
        unsafe {
            result::gemm_ex(
                self.handle,
                op_a,
                op_b,
                mi,
                ni,
                ki,
                (&raw const alpha).cast::<c_void>(),
                pa as *const c_void,
                half,
                lda,
                pb as *const c_void,
                half,
                ldb,
                (&raw const beta).cast::<c_void>(),
                pc as *mut c_void,
                C::cuda_type(half),
                mi,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .context("cublasGemmEx")
    }

    /// `c = a * b^T` (alpha 1, beta 0: `c` is not read) for `a` (m x k) and `b` (n x k) stored as
    /// `form` says, `c` column-major m x n.
    pub fn sgemm(
        &self,
        stream: &CudaStream,
        form: GemmForm,
        (m, n, k): (u32, u32, u32),
        (a, b): (&CudaSlice<f32>, &CudaSlice<f32>),
        c: &mut CudaSlice<f32>,
    ) -> Result<(), Error> {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        ensure_len("cublasSgemm A", a, mu * ku)?;
        ensure_len("cublasSgemm B", b, nu * ku)?;
        ensure_len("cublasSgemm C", c, mu * nu)?;
        let (mi, ni, ki) = Self::ints("cublasSgemm", (m, n, k))?;
        let (op_a, op_b, lda, ldb) = Self::ops(form, (mi, ni, ki));
        let (pa, _ra) = a.device_ptr(stream);
        let (pb, _rb) = b.device_ptr(stream);
        let (pc, _rc) = c.device_ptr_mut(stream);
        // SAFETY: the handle is live; `a`, `b`, `c` are live allocations of at least m*k, n*k and
        // m*n floats (checked above), which is what these dimensions and leading dimensions
        // reach; `c` is borrowed exclusively, so it overlaps neither operand; alpha and beta are
        // host values (the default pointer mode); the buffers are freed only on this stream.
        unsafe {
            result::sgemm(
                self.handle,
                op_a,
                op_b,
                mi,
                ni,
                ki,
                &1.0,
                pa as *const f32,
                lda,
                pb as *const f32,
                ldb,
                &0.0,
                pc as *mut f32,
                mi,
            )
        }
        .context("cublasSgemm")
    }
}

/// The element types of a `cublasGemmEx` result here: `f32`, or halves two to a `u32` word.
pub trait GemmExOut {
    /// The elements of this type an `m n` result takes.
    fn len(elements: usize) -> usize;
    /// cuBLAS's type of the result, for operands of type `half`.
    fn cuda_type(half: cudaDataType) -> cudaDataType;
}

impl GemmExOut for f32 {
    fn len(elements: usize) -> usize {
        elements
    }
    fn cuda_type(_: cudaDataType) -> cudaDataType {
        cudaDataType::CUDA_R_32F
    }
}

impl GemmExOut for u32 {
    fn len(elements: usize) -> usize {
        elements.div_ceil(2)
    }
    fn cuda_type(half: cudaDataType) -> cudaDataType {
        half
    }
}
