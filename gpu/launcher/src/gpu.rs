//! The GPU: the context of GPU 0 and its default stream (one stream, so every operation is ordered
//! after the previous one), the PTX module (`const-layout-launch`), buffers, and timing with CUDA
//! events.

use crate::error::{Context, Error};
use const_layout_device::abi::Entry;
use const_layout_launch::{Kernel, LaunchParams, Module};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};
use cudarc::driver::{ValidAsZeroBits, result};
use std::sync::Arc;

/// Launches before the timed ones.
pub const WARMUPS: u32 = 3;

/// GPU 0 with the kernels' module loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: Module,
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
pub fn ensure_len<T>(what: &str, buf: &CudaSlice<T>, len: usize) -> Result<(), Error> {
    if buf.len() >= len {
        Ok(())
    } else {
        Err(Error::new(format!("{what}: a buffer of {} elements where {len} are needed", buf.len())))
    }
}

impl Gpu {
    /// Opens GPU 0 and loads the PTX module `ptx` (read from `ptx_name`).
    pub fn open(ptx: &str, ptx_name: &str) -> Result<Gpu, Error> {
        let ctx = const_layout_launch::context(0).map_err(|e| match e {
            const_layout_launch::LaunchError::NoDriver => Error::new(e.to_string()),
            e => Error::new(format!("no usable GPU: {e}")),
        })?;
        let stream = ctx.default_stream();
        let module =
            Module::load(&ctx, ptx).map_err(|e| Error::new(format!("the PTX file {ptx_name}: {e}")))?;
        Ok(Gpu { ctx, stream, module })
    }

    /// `name (sm_XY), CUDA driver API X.Y`.
    pub fn describe(&self) -> Result<String, Error> {
        let name = self.ctx.name().context("reading the device name")?;
        let (major, minor) = self.ctx.compute_capability().context("reading the compute capability")?;
        let version = self.module.driver_version();
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

    /// The entry point `entry`, its parameters checked against the PTX (where the driver can).
    pub fn kernel<P: LaunchParams>(&self, entry: Entry<P>) -> Result<Kernel<P>, Error> {
        Ok(self.module.kernel(entry)?)
    }

    /// A device copy of `host`.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>, Error> {
        self.stream.clone_htod(host).context("copying to the GPU")
    }

    /// A buffer of `len` zeros.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>, Error> {
        self.stream.alloc_zeros(len).context(format!("allocating {len} elements on the GPU"))
    }

    /// A buffer of `len` elements, every byte 0xff (NaN as `f32`, `f16` and `bf16`), so that an
    /// element a kernel does not write shows.
    pub fn poisoned<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>, Error> {
        let mut buf = self.zeros(len)?;
        let bytes = buf.num_bytes();
        let (ptr, _record) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` is the start of `buf`'s allocation of `bytes` bytes, alive for the call
        // and, since it is freed only on this stream, for the memset it queues on this stream.
        unsafe { result::memset_d8_async(ptr, 0xff, bytes, self.stream.cu_stream()) }
            .context("poisoning a buffer")?;
        drop(_record);
        Ok(buf)
    }

    /// `buf`'s contents, after everything queued before.
    pub fn download<T: DeviceRepr + Default + Clone>(&self, buf: &CudaSlice<T>) -> Result<Vec<T>, Error> {
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
