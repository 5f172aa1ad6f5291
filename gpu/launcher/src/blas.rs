//! cuBLAS, loaded at run time when present: `cublasSgemm` in CuTe's NT and TN forms with the
//! default math mode (no TF32), on the GPU's stream. Its absence is not an error: the table says
//! `n/a (libcublas not found)`.

use crate::error::{Context, Error, guard};
use crate::gpu::ensure_len;
use crate::kernels::GemmForm;
use cudarc::cublas::result;
use cudarc::cublas::sys::{self, cublasOperation_t};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

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
        let int = |v: u32| {
            i32::try_from(v).map_err(|_| Error::new(format!("cublasSgemm: {v} exceeds cuBLAS's int")))
        };
        let (mi, ni, ki) = (int(m)?, int(n)?, int(k)?);
        let (op_a, op_b, lda, ldb) = match form {
            GemmForm::Nt => (cublasOperation_t::CUBLAS_OP_N, cublasOperation_t::CUBLAS_OP_T, mi, ni),
            GemmForm::Tn => (cublasOperation_t::CUBLAS_OP_T, cublasOperation_t::CUBLAS_OP_N, ki, ki),
        };
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
