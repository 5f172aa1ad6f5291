//! The GPU through cudarc's driver API: the context of GPU 0 and its default stream (one stream,
//! so every operation is ordered after the previous one), the PTX module, buffers, launches and
//! timing with CUDA events.

use crate::error::{Context, Error, driver_error_name};
use crate::kernels::{Abi, Kernel, KernelArgs};
use cudarc::driver::sys::{self, CUevent_flags, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut};
use cudarc::driver::{DriverError, LaunchConfig, result};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

/// Launches before the timed ones.
pub const WARMUPS: u32 = 3;
/// Dynamic shared memory above this needs the function's opt-in attribute.
const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

/// GPU 0 with the kernels' module loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    ptx_name: String,
}

/// An entry point of the module, ready to launch with arguments `A::Args`.
pub struct Entry<A> {
    kernel: Kernel<A>,
    func: CudaFunction,
    dynamic_smem: u32,
}

impl<A> Entry<A> {
    /// The entry point's name.
    pub fn name(&self) -> &'static str {
        self.kernel.name
    }
}

/// The median, fastest and slowest of the timed runs, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The median: the middle run, the later of the two middle ones for an even count (as
    /// `tools/gpu/torch_anchors.py` takes it).
    pub median_ms: f64,
    /// The fastest run.
    pub min_ms: f64,
    /// The slowest run.
    pub max_ms: f64,
}

impl Timing {
    /// The timing of `samples` (not empty).
    pub fn of(mut samples: Vec<f64>) -> Timing {
        samples.sort_by(f64::total_cmp);
        Timing {
            median_ms: samples[samples.len() / 2],
            min_ms: samples[0],
            max_ms: samples[samples.len() - 1],
        }
    }
}

/// A buffer too short for what it is used as: refused before any unsafe call is made with it.
pub fn ensure_len(what: &str, buf: &CudaSlice<f32>, len: usize) -> Result<(), Error> {
    if buf.len() >= len {
        Ok(())
    } else {
        Err(Error::new(format!("{what}: a buffer of {} elements where {len} are needed", buf.len())))
    }
}

impl Gpu {
    /// Opens GPU 0 and loads the PTX module `ptx` (read from `ptx_name`).
    pub fn open(ptx: String, ptx_name: &str) -> Result<Gpu, Error> {
        // SAFETY: `is_culib_present` only tries to open the driver library by its usual names
        // (libloading) and closes what it opened; nothing of the library is called.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::new(
                "no CUDA driver: libcuda.so could not be loaded (this machine has no NVIDIA driver or GPU)",
            ));
        }
        let ctx = CudaContext::new(0).map_err(|e| {
            Error::new(format!("no usable GPU: opening GPU 0 failed with {}", driver_error_name(&e)))
        })?;
        let stream = ctx.default_stream();
        if ptx.contains('\0') {
            return Err(Error::new(format!("the PTX file {ptx_name} contains a NUL byte")));
        }
        let module =
            ctx.load_module(Ptx::from_src(ptx)).context(format!("the PTX file {ptx_name} does not load"))?;
        Ok(Gpu { ctx, stream, module, ptx_name: ptx_name.to_string() })
    }

    /// `name (sm_XY), CUDA driver X.Y`.
    pub fn describe(&self) -> Result<String, Error> {
        let name = self.ctx.name().context("reading the device name")?;
        let (major, minor) = self.ctx.compute_capability().context("reading the compute capability")?;
        let mut version = 0;
        // SAFETY: `cuDriverGetVersion` writes one `int` through the pointer, which is valid.
        unsafe { sys::cuDriverGetVersion(&mut version) }.result().context("reading the driver version")?;
        Ok(format!(
            "{name} (sm_{major}{minor}), CUDA driver API {}.{} ({version})",
            version / 1000,
            version % 1000 / 10
        ))
    }

    /// The stream every operation runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The entry point `kernel.name`; its dynamic shared memory is the kernel's `smem_bytes`
    /// unless it declares that much statically, with the opt-in attribute above 48 KiB.
    pub fn entry<A: Abi>(&self, kernel: &Kernel<A>) -> Result<Entry<A>, Error> {
        let name = kernel.name;
        let func = self.module.load_function(name).map_err(|e| self.missing(name, e))?;
        let static_smem =
            func.shared_size_bytes().context(format!("{name}: reading its shared memory size"))?;
        let dynamic_smem =
            if static_smem >= 0 && static_smem as u32 >= kernel.smem_bytes { 0 } else { kernel.smem_bytes };
        if dynamic_smem > DEFAULT_DYNAMIC_SMEM {
            let attribute = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            func.set_attribute(attribute, dynamic_smem as i32)
                .context(format!("{name}: allowing {dynamic_smem} bytes of dynamic shared memory"))?;
        }
        Ok(Entry { kernel: *kernel, func, dynamic_smem })
    }

    /// The error of an entry point that cannot be loaded (most often: the module lacks it).
    fn missing(&self, name: &str, e: DriverError) -> Error {
        let (file, why) = (&self.ptx_name, driver_error_name(&e));
        if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            Error::new(format!("the kernel {name} is not in the PTX file {file} ({why})"))
        } else {
            Error::new(format!("loading the kernel {name} of the PTX file {file}: {why}"))
        }
    }

    /// Launches `entry` with `args` on the stream, its geometry computed from the output's extents.
    pub fn launch<A: Abi>(&self, entry: &Entry<A>, args: &A::Args<'_>) -> Result<(), Error> {
        let (m, n) = args.extents();
        let g = entry.kernel.geometry(m, n);
        g.check(entry.kernel.name)?;
        let config = LaunchConfig {
            grid_dim: (g.grid.x, g.grid.y, g.grid.z),
            block_dim: (g.block.x, g.block.y, g.block.z),
            shared_mem_bytes: entry.dynamic_smem,
        };
        let mut launch = self.stream.launch_builder(&entry.func);
        args.push(&mut launch);
        // SAFETY: `entry` is the module's function `entry.kernel.name`, whose parameters are
        // `A::Args` (the ABI table of `kernels`, the only place a `Kernel` is made), pushed in
        // order; each tensor parameter was built by `TensorParam::new` for a buffer it borrows
        // (shared for inputs, exclusively for the output, so the output overlaps no input), and
        // a buffer is freed only on this stream, after every launch made with it; the grid,
        // block and shared memory are the kernel's own.
        unsafe { launch.launch(config) }.context(format!("launching {}", entry.kernel.name))?;
        Ok(())
    }

    /// A device copy of `host`.
    pub fn upload(&self, host: &[f32]) -> Result<CudaSlice<f32>, Error> {
        self.stream.clone_htod(host).context("copying to the GPU")
    }

    /// A buffer of `len` zeros.
    pub fn zeros(&self, len: usize) -> Result<CudaSlice<f32>, Error> {
        self.stream.alloc_zeros(len).context(format!("allocating {len} floats on the GPU"))
    }

    /// Fills `buf` with NaNs (every byte 0xff), so that an element a kernel does not write shows.
    pub fn poison(&self, buf: &mut CudaSlice<f32>) -> Result<(), Error> {
        let bytes = buf.num_bytes();
        let (ptr, _record) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` is the start of `buf`'s allocation of `bytes` bytes, alive for the call
        // and, since it is freed only on this stream, for the memset it queues on this stream.
        unsafe { result::memset_d8_async(ptr, 0xff, bytes, self.stream.cu_stream()) }
            .context("poisoning a buffer")
    }

    /// `buf`'s contents, after everything queued before.
    pub fn download(&self, buf: &CudaSlice<f32>) -> Result<Vec<f32>, Error> {
        let host = self.stream.clone_dtoh(buf).context("copying from the GPU")?;
        self.sync("copying from the GPU")?;
        Ok(host)
    }

    /// `cuMemcpyDtoDAsync` of all of `src` into `dst`.
    pub fn copy_dtod(&self, src: &CudaSlice<f32>, dst: &mut CudaSlice<f32>) -> Result<(), Error> {
        ensure_len("cuMemcpyDtoD", dst, src.len())?;
        self.stream.memcpy_dtod(src, dst).context("cuMemcpyDtoDAsync")
    }

    /// Waits for everything queued; an error of an earlier launch shows here, named `what`.
    pub fn sync(&self, what: &str) -> Result<(), Error> {
        self.stream.synchronize().context(what)
    }

    /// An event that records time.
    fn event(&self) -> Result<CudaEvent, Error> {
        self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).context("creating a CUDA event")
    }

    /// Times `op` (which queues work on the stream): [`WARMUPS`] runs, then `runs` runs, each
    /// between two events.
    pub fn time(&self, runs: u32, mut op: impl FnMut() -> Result<(), Error>) -> Result<Timing, Error> {
        for _ in 0..WARMUPS {
            op()?;
        }
        let mut events = Vec::with_capacity(runs as usize);
        for _ in 0..runs {
            events.push((self.event()?, self.event()?));
        }
        for (start, stop) in &events {
            start.record(&self.stream).context("recording an event")?;
            op()?;
            stop.record(&self.stream).context("recording an event")?;
        }
        self.sync("the timed runs")?;
        let ms = events
            .iter()
            .map(|(start, stop)| start.elapsed_ms(stop).map(f64::from).context("reading an event"));
        Ok(Timing::of(ms.collect::<Result<Vec<f64>, Error>>()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_takes_the_median_min_and_max() {
        let t = Timing::of(vec![3.0, 1.0, 2.0, 5.0]);
        assert_eq!((t.median_ms, t.min_ms, t.max_ms), (3.0, 1.0, 5.0));
        assert_eq!(Timing::of(vec![2.0, 9.0, 4.0]).median_ms, 4.0);
    }
}
