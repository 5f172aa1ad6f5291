//! A loaded PTX module and its kernels: [`Module::load`], [`Module::kernel`], [`Kernel::launch`],
//! with the checks that need no driver ([`check_param_info`], [`KernelLimits::check`]).

use crate::args::{LaunchParams, check_args};
use crate::error::LaunchError;
use const_layout_device::abi::{Entry, ParamAbi};
use const_layout_device::{Dim3, LaunchConfig};
use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, result};
use cudarc::nvrtc::Ptx;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The first driver with `cuFuncGetParamInfo` (CUDA 12.4).
const PARAM_INFO_DRIVER: i32 = 12040;

/// A PTX module loaded into a CUDA context, and what launches check against: the driver's version
/// and the device's shared memory a block.
///
/// ```no_run
/// use const_layout_launch::Module;
/// let ctx = cudarc::driver::CudaContext::new(0)?;
/// let module = Module::load(&ctx, &std::fs::read_to_string("target/ptx/const_layout_kernels.ptx")?)?;
/// assert!(module.driver_version() >= 12000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Module {
    ctx: Arc<CudaContext>,
    module: Arc<CudaModule>,
    driver_version: i32,
    smem_optin: u32,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Module(driver {}, {} bytes of shared memory a block)",
            self.driver_version, self.smem_optin
        )
    }
}

/// Whether the CUDA driver library can be loaded (cudarc would panic on its first call if not).
///
/// ```
/// // On a machine without an NVIDIA driver this is false, and nothing else happens.
/// let _ = const_layout_launch::driver_present();
/// ```
pub fn driver_present() -> bool {
    // SAFETY: `is_culib_present` only tries to open the driver library by its usual names
    // (libloading) and closes what it opened; nothing of the library is called.
    unsafe { sys::is_culib_present() }
}

/// The CUDA context of GPU `ordinal`, or [`LaunchError::NoDriver`] where there is no driver (where
/// `CudaContext::new` would panic).
///
/// ```no_run
/// let ctx = const_layout_launch::context(0)?;
/// # Ok::<(), const_layout_launch::LaunchError>(())
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, LaunchError> {
    if !driver_present() {
        return Err(LaunchError::NoDriver);
    }
    CudaContext::new(ordinal).map_err(|e| LaunchError::cuda(format!("opening GPU {ordinal}"), e))
}

impl Module {
    /// Loads the PTX text `ptx` into `ctx` (the driver compiles it for the device).
    ///
    /// ```no_run
    /// # use const_layout_launch::{Module, LaunchError};
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// let e = Module::load(&ctx, ".version 8.0\n\0").unwrap_err();
    /// assert_eq!(e, LaunchError::PtxNul { at: 13 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Module, LaunchError> {
        if let Some(at) = ptx.bytes().position(|b| b == 0) {
            return Err(LaunchError::PtxNul { at });
        }
        let module = ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| LaunchError::cuda("loading the PTX module", e))?;
        let mut driver_version = 0;
        // SAFETY: `cuDriverGetVersion` writes one `int` through the pointer, which is valid.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| LaunchError::cuda("reading the driver version", e))?;
        let optin = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
        let smem_optin =
            ctx.attribute(optin).map_err(|e| LaunchError::cuda("reading the shared memory a block", e))?;
        Ok(Module { ctx: ctx.clone(), module, driver_version, smem_optin: smem_optin.max(0) as u32 })
    }

    /// Loads a PTX module embedded at build time, `None` where it was not built (the PTX builder
    /// embeds an `Option<&str>`): then [`LaunchError::PtxNotBuilt`], which says how to build it.
    ///
    /// ```no_run
    /// use const_layout_launch::{LaunchError, Module};
    /// // What a kernel crate's build script embeds (here: nothing was built).
    /// const PTX: Option<&str> = None;
    /// let ctx = const_layout_launch::context(0)?;
    /// let e = Module::load_embedded(&ctx, PTX).unwrap_err();
    /// assert!(e.to_string().starts_with("the PTX module was not built"));
    /// # Ok::<(), LaunchError>(())
    /// ```
    pub fn load_embedded(ctx: &Arc<CudaContext>, ptx: Option<&str>) -> Result<Module, LaunchError> {
        Module::load(ctx, ptx.ok_or(LaunchError::PtxNotBuilt)?)
    }

    /// The entry point `entry`, its parameters checked against the PTX where the driver can say
    /// them (`cuFuncGetParamInfo`, CUDA 12.4 and later): the count, and each parameter's size and
    /// offset against `P`'s declarations ([`check_param_info`]).
    ///
    /// ```no_run
    /// use const_layout::C;
    /// use const_layout_device::{abi::{Entry, In, Out}, TensorParam};
    /// use const_layout_launch::Module;
    /// type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
    /// const COPY_F32: Entry<(In<ColMajor>, Out<ColMajor>)> = Entry::new("copy_f32");
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// # let module = Module::load(&ctx, "")?;
    /// let copy = module.kernel(COPY_F32)?;
    /// assert!(copy.limits().max_threads_per_block >= 256);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn kernel<P: LaunchParams>(&self, entry: Entry<P>) -> Result<Kernel<P>, LaunchError> {
        let name = entry.name();
        let func = self.module.load_function(name).map_err(|e| {
            if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND {
                LaunchError::KernelNotFound { kernel: name.into() }
            } else {
                LaunchError::cuda(format!("loading the entry point {name}"), e)
            }
        })?;
        let abi_checked = self.driver_version >= PARAM_INFO_DRIVER;
        if abi_checked {
            check_param_info(name, entry.params(), &param_info(&func, name)?)?;
        }
        let attribute = |a: CUfunction_attribute, what: &str| {
            func.get_attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(|e| LaunchError::cuda(format!("{name}: reading its {what}"), e))
        };
        let max_threads_per_block =
            attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads a block")?;
        let static_smem_bytes =
            attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory")?;
        let dynamic = attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            "dynamic shared memory",
        )?;
        let limits =
            KernelLimits { max_threads_per_block, static_smem_bytes, max_smem_per_block: self.smem_optin };
        Ok(Kernel {
            name,
            func,
            ctx: self.ctx.clone(),
            limits,
            abi_checked,
            max_dynamic: AtomicU32::new(dynamic),
            params: PhantomData,
        })
    }

    /// The driver's CUDA version (`cuDriverGetVersion`: 13000 for 13.0).
    ///
    /// ```no_run
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// # let module = const_layout_launch::Module::load(&ctx, "")?;
    /// println!("CUDA {}.{}", module.driver_version() / 1000, module.driver_version() % 1000 / 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn driver_version(&self) -> i32 {
        self.driver_version
    }

    /// The context the module was loaded into.
    ///
    /// ```no_run
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// # let module = const_layout_launch::Module::load(&ctx, "")?;
    /// let stream = module.context().default_stream();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

/// Each parameter's `(offset, size)` in the PTX, from `cuFuncGetParamInfo` (asked until it says
/// there is no such parameter).
fn param_info(func: &CudaFunction, name: &str) -> Result<Vec<(usize, usize)>, LaunchError> {
    // Under lazy loading (CUDA's default) a function may not be loaded yet: load it first, so that
    // what is read is the function's (a no-op for a loaded one).
    // SAFETY: `func` is a live function of a loaded module; the driver (12.4 or later, checked by
    // the caller) has the symbol.
    unsafe { sys::cuFuncLoad(func.cu_function()) }
        .result()
        .map_err(|e| LaunchError::cuda(format!("loading the entry point {name}"), e))?;
    let mut info = Vec::new();
    // A PTX entry may have thousands of parameters in principle; a kernel here has at most 12.
    for index in 0..4096 {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: `func` is a live function of a loaded module (it holds the module); the call
        // writes two `size_t`s through valid pointers. The driver (12.4 or later, checked by the
        // caller) has the symbol.
        let r = unsafe { sys::cuFuncGetParamInfo(func.cu_function(), index, &mut offset, &mut size) };
        match r {
            sys::CUresult::CUDA_SUCCESS => info.push((offset, size)),
            sys::CUresult::CUDA_ERROR_INVALID_VALUE => break,
            e => {
                return Err(LaunchError::cuda(
                    format!("{name}: reading parameter {index}"),
                    result::DriverError(e),
                ));
            }
        }
    }
    Ok(info)
}

/// The offset of each parameter in a PTX entry's parameter space: each at the next multiple of
/// its alignment after the one before.
///
/// ```
/// use const_layout_device::abi::ParamAbi;
/// let bytes = ParamAbi::Bytes { size: 64, align: 8 };
/// assert_eq!(const_layout_launch::param_offsets(&[bytes, ParamAbi::F32, ParamAbi::U64]), [0, 64, 72]);
/// ```
pub fn param_offsets(params: &[ParamAbi]) -> Vec<usize> {
    let mut end = 0usize;
    params
        .iter()
        .map(|p| {
            let at = end.next_multiple_of(p.align().max(1) as usize);
            end = at + p.size() as usize;
            at
        })
        .collect()
}

/// Compares an entry point's parameters in the PTX (`(offset, size)` each, as
/// `cuFuncGetParamInfo` gives them) with its [`Entry`]'s declarations: the count, then each
/// parameter's size and offset. The error names the first parameter that differs.
///
/// ```
/// use const_layout_device::abi::ParamAbi;
/// use const_layout_launch::{check_param_info, LaunchError};
/// let tensor = ParamAbi::Bytes { size: 64, align: 8 };
/// let entry = [tensor, tensor, ParamAbi::F32];
/// assert!(check_param_info("k", &entry, &[(0, 64), (64, 64), (128, 4)]).is_ok());
/// // The PTX passes a raw address where the Entry declares a tensor.
/// let e = check_param_info("k", &entry, &[(0, 64), (64, 8), (72, 4)]).unwrap_err();
/// assert_eq!(e.to_string(), "k: parameter 1 is 8 bytes at offset 64 in the PTX, its Entry declares `.param .align 8 .b8 [64]` (64 bytes at offset 64)");
/// ```
pub fn check_param_info(kernel: &str, entry: &[ParamAbi], ptx: &[(usize, usize)]) -> Result<(), LaunchError> {
    if entry.len() != ptx.len() {
        return Err(LaunchError::ParamCount { kernel: kernel.into(), ptx: ptx.len(), entry: entry.len() });
    }
    let offsets = param_offsets(entry);
    for (index, ((abi, &entry_offset), &(ptx_offset, ptx_size))) in
        entry.iter().zip(&offsets).zip(ptx).enumerate()
    {
        if ptx_size != abi.size() as usize || ptx_offset != entry_offset {
            return Err(LaunchError::Param {
                kernel: kernel.into(),
                index,
                ptx_offset,
                ptx_size,
                entry: *abi,
                entry_offset,
            });
        }
    }
    Ok(())
}

/// What a kernel's launches are checked against.
///
/// ```
/// use const_layout_device::{Dim3, LaunchConfig};
/// use const_layout_launch::KernelLimits;
/// let limits = KernelLimits { max_threads_per_block: 384, static_smem_bytes: 0, max_smem_per_block: 232448 };
/// let cfg = LaunchConfig { grid: Dim3 { x: 16, y: 20, z: 3 }, block: Dim3::x(384), dynamic_smem_bytes: 197696 };
/// assert!(limits.check("hgemm_sm90_tn_f32", &cfg).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLimits {
    /// The most threads a block of the kernel may have (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`:
    /// 1024, or less by its registers or launch bounds).
    pub max_threads_per_block: u32,
    /// The shared memory the kernel declares statically (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    pub static_smem_bytes: u32,
    /// The device's shared memory a block, opted in (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
    pub max_smem_per_block: u32,
}

impl KernelLimits {
    /// Checks a launch's geometry: a block of 1 to `max_threads_per_block` (and at most 1024)
    /// threads with x and y at most 1024 and z at most 64; a grid with x in 1..2^31 and y, z in
    /// 1..=65535; dynamic shared memory that fits beside the static one.
    ///
    /// ```
    /// use const_layout_device::{Dim3, LaunchConfig};
    /// use const_layout_launch::{KernelLimits, LaunchError};
    /// let limits = KernelLimits { max_threads_per_block: 1024, static_smem_bytes: 16384, max_smem_per_block: 232448 };
    /// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(256), dynamic_smem_bytes: 220000 };
    /// assert_eq!(limits.check("transpose_f32", &cfg).unwrap_err().to_string(),
    ///            "transpose_f32: 220000 bytes of dynamic shared memory and 16384 static exceed the device's 232448 bytes a block");
    /// ```
    pub fn check(&self, kernel: &str, cfg: &LaunchConfig) -> Result<(), LaunchError> {
        let Dim3 { x, y, z } = cfg.block;
        let max_threads = self.max_threads_per_block.min(1024);
        let threads = cfg.block.count();
        if threads == 0 || threads > u64::from(max_threads) || x > 1024 || y > 1024 || z > 64 {
            return Err(LaunchError::Block { kernel: kernel.into(), block: cfg.block, max_threads });
        }
        let Dim3 { x, y, z } = cfg.grid;
        if !(1..1 << 31).contains(&x) || !(1..=65535).contains(&y) || !(1..=65535).contains(&z) {
            return Err(LaunchError::Grid { kernel: kernel.into(), grid: cfg.grid });
        }
        let smem = u64::from(cfg.dynamic_smem_bytes) + u64::from(self.static_smem_bytes);
        if smem > u64::from(self.max_smem_per_block) {
            return Err(LaunchError::SharedMemory {
                kernel: kernel.into(),
                dynamic: cfg.dynamic_smem_bytes,
                static_bytes: self.static_smem_bytes,
                max: self.max_smem_per_block,
            });
        }
        Ok(())
    }

    /// The dynamic shared memory for a kernel that needs `needed` bytes of shared memory in all:
    /// none where it declares at least that much statically, else all of it (a kernel crate's
    /// `SMEM_BYTES` is what its body needs, whether the entry point declares it statically, as
    /// `transpose_f32` does, or takes it dynamically).
    ///
    /// ```
    /// use const_layout_launch::KernelLimits;
    /// let mut l = KernelLimits { max_threads_per_block: 1024, static_smem_bytes: 16384, max_smem_per_block: 232448 };
    /// assert_eq!(l.dynamic_smem_for(16384), 0);
    /// l.static_smem_bytes = 0;
    /// assert_eq!(l.dynamic_smem_for(65536), 65536);
    /// ```
    pub fn dynamic_smem_for(&self, needed: u32) -> u32 {
        if self.static_smem_bytes >= needed { 0 } else { needed }
    }
}

/// An entry point of a loaded [`Module`], launched with the host arguments of its parameters `P`
/// ([`LaunchParams::Args`]).
///
/// ```no_run
/// use const_layout::{make_layout, C};
/// use const_layout_device::{abi::{Entry, In, Out}, Dim3, LaunchConfig, TensorParam};
/// use const_layout_launch::{InArg, Module, OutArg};
/// type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
/// const COPY_F32: Entry<(In<ColMajor>, Out<ColMajor>)> = Entry::new("copy_f32");
///
/// let ctx = const_layout_launch::context(0)?;
/// let module = Module::load(&ctx, &std::fs::read_to_string("target/ptx/const_layout_kernels.ptx")?)?;
/// let copy = module.kernel(COPY_F32)?;
/// let stream = ctx.default_stream();
/// let (m, n) = (8192u32, 8192u32);
/// let x = stream.clone_htod(&vec![1.0f32; (m * n) as usize])?;
/// let mut y = stream.alloc_zeros::<f32>((m * n) as usize)?;
/// let layout = make_layout((m, n), (C::<1>, m))?;
/// let cfg = LaunchConfig { grid: Dim3::xy(m.div_ceil(128), n.div_ceil(64)), block: Dim3::x(256), dynamic_smem_bytes: 0 };
/// copy.launch(&stream, &cfg, (InArg::new(&x, &layout)?, OutArg::new(&mut y, &layout)?))?;
/// assert_eq!(stream.clone_dtoh(&y)?, vec![1.0f32; (m * n) as usize]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Kernel<P> {
    name: &'static str,
    func: CudaFunction,
    ctx: Arc<CudaContext>,
    limits: KernelLimits,
    abi_checked: bool,
    /// The function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, as last set.
    max_dynamic: AtomicU32,
    params: PhantomData<fn(P)>,
}

impl<P> std::fmt::Debug for Kernel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel({}, {:?})", self.name, self.limits)
    }
}

impl<P: LaunchParams> Kernel<P> {
    /// The entry point's name.
    ///
    /// ```
    /// fn describe<P: const_layout_launch::LaunchParams>(kernel: &const_layout_launch::Kernel<P>) -> String {
    ///     format!("{} ({} threads a block at most)", kernel.name(), kernel.limits().max_threads_per_block)
    /// }
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What launches are checked against.
    ///
    /// ```
    /// # use const_layout_launch::{Kernel, LaunchParams};
    /// fn transpose_smem<P: LaunchParams>(kernel: &Kernel<P>) -> u32 {
    ///     kernel.limits().dynamic_smem_for(16384) // 0 where the entry point declares it statically
    /// }
    /// ```
    pub fn limits(&self) -> &KernelLimits {
        &self.limits
    }

    /// Whether the parameters were checked against the PTX at load (the driver has
    /// `cuFuncGetParamInfo`: CUDA 12.4 or later).
    ///
    /// ```
    /// # use const_layout_launch::{Kernel, LaunchParams};
    /// fn warn<P: LaunchParams>(kernel: &Kernel<P>) {
    ///     if !kernel.abi_checked() {
    ///         eprintln!("{}: the driver cannot say the PTX's parameters (before CUDA 12.4)", kernel.name());
    ///     }
    /// }
    /// ```
    pub fn abi_checked(&self) -> bool {
        self.abi_checked
    }

    /// Launches the kernel on `stream` with the geometry `cfg` and the arguments `args`, after
    /// checking: `cfg` against [`KernelLimits::check`], `stream` and every buffer of the module's
    /// context, no output overlapping another tensor, every tensor map encoded for an input of the
    /// launch. Dynamic shared memory past what the function allows (48 KiB at first) is allowed
    /// first (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`). The launch is queued: its own
    /// errors show at the stream's next synchronization.
    ///
    /// Safe: the parameters' types are the entry point's (checked against the PTX at load where
    /// the driver can), each tensor was checked by `TensorParam::new` for a buffer the argument
    /// borrows (shared for inputs, exclusively for outputs) and stays allocated until the launch
    /// ends (cudarc frees a buffer on its stream after the work queued with it).
    ///
    /// (Example: [`Kernel`].)
    pub fn launch(
        &self,
        stream: &CudaStream,
        cfg: &LaunchConfig,
        args: P::Args<'_>,
    ) -> Result<(), LaunchError> {
        let name = self.name;
        self.limits.check(name, cfg)?;
        if !Arc::ptr_eq(stream.context(), &self.ctx) {
            return Err(LaunchError::WrongContext { kernel: name.into(), what: "the stream".into() });
        }
        let mut args = args;
        check_args(name, &P::infos(&args), Some(&self.ctx))?;
        self.allow_dynamic_smem(cfg.dynamic_smem_bytes)?;
        let values = P::values(&args);
        let mut pointers = P::pointers(&values);
        self.ctx.bind_to_thread().map_err(|e| LaunchError::cuda(format!("launching {name}"), e))?;
        let guards = P::sync(&mut args, stream);
        let (Dim3 { x: gx, y: gy, z: gz }, Dim3 { x: bx, y: by, z: bz }) = (cfg.grid, cfg.block);
        // SAFETY: `func` is the module's entry point `name`, whose parameters are `P` (their
        // sizes and offsets compared with the PTX at load where the driver can say them); each
        // pointer points to a value of `values`, alive until the call returns (the driver copies
        // the parameters); every tensor parameter was made by `TensorParam::new` for an allocation
        // the argument borrows (an input shared, an output exclusively and overlapping no other
        // tensor, checked above), which cudarc frees only after the work queued with it, and
        // `guards` order this launch after the buffers' earlier uses on other streams; tensor maps
        // were encoded for inputs of this launch; the geometry was checked against the device.
        let r = unsafe {
            result::launch_kernel(
                self.func.cu_function(),
                (gx, gy, gz),
                (bx, by, bz),
                cfg.dynamic_smem_bytes,
                stream.cu_stream(),
                &mut pointers,
            )
        };
        drop(guards);
        r.map_err(|e| LaunchError::cuda(format!("launching {name}"), e))
    }

    /// Raises the function's dynamic shared memory limit to `bytes` where it is lower.
    fn allow_dynamic_smem(&self, bytes: u32) -> Result<(), LaunchError> {
        if bytes <= self.max_dynamic.load(Ordering::Relaxed) {
            return Ok(());
        }
        let attribute = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        self.ctx.bind_to_thread().map_err(|e| LaunchError::cuda("binding the CUDA context", e))?;
        self.func.set_attribute(attribute, bytes as i32).map_err(|e| {
            LaunchError::cuda(format!("{}: allowing {bytes} bytes of dynamic shared memory", self.name), e)
        })?;
        self.max_dynamic.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TENSOR: ParamAbi = ParamAbi::Bytes { size: 64, align: 8 };

    #[test]
    fn a_module_that_was_not_built_says_how_to_build_it() {
        let e = LaunchError::PtxNotBuilt.to_string();
        assert!(
            e.starts_with("the PTX module was not built, so none was embedded: install a PTX toolchain"),
            "{e}"
        );
        assert!(e.contains("const-layout-ptx install-toolchain") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn offsets_follow_alignment() {
        assert_eq!(param_offsets(&[]), Vec::<usize>::new());
        assert_eq!(param_offsets(&[ParamAbi::U32, ParamAbi::U64, ParamAbi::F32, TENSOR]), [0, 8, 16, 24]);
        // The Hopper GEMM's: three tensors, two map addresses, alpha, beta, the bf16 flag.
        let sm90 = [
            TENSOR,
            TENSOR,
            TENSOR,
            ParamAbi::U64,
            ParamAbi::U64,
            ParamAbi::F32,
            ParamAbi::F32,
            ParamAbi::U32,
        ];
        assert_eq!(param_offsets(&sm90), [0, 64, 128, 192, 200, 208, 212, 216]);
    }

    #[test]
    fn param_info_is_compared_with_the_entry() {
        let sgemm = [TENSOR, TENSOR, TENSOR, ParamAbi::F32, ParamAbi::F32];
        let good = [(0, 64), (64, 64), (128, 64), (192, 4), (196, 4)];
        assert!(check_param_info("sgemm_nt_f32", &sgemm, &good).is_ok());
        // Today's HGEMM entry points: raw addresses and extents.
        let raw = [(0, 8), (8, 8), (16, 8), (24, 4), (28, 4), (32, 4), (36, 4), (40, 4), (44, 4)];
        let e = check_param_info("hgemm_tn_f32", &sgemm, &raw).unwrap_err();
        assert_eq!(e, LaunchError::ParamCount { kernel: "hgemm_tn_f32".into(), ptx: 9, entry: 5 });
        assert_eq!(e.to_string(), "hgemm_tn_f32: the PTX entry point has 9 parameters, its Entry declares 5");
        let mut swapped = good;
        swapped[3] = (192, 8);
        swapped[4] = (200, 4);
        let e = check_param_info("sgemm_nt_f32", &sgemm, &swapped).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sgemm_nt_f32: parameter 3 is 8 bytes at offset 192 in the PTX, its Entry declares `.param .f32` (4 bytes at offset 192)"
        );
        let mut shifted = good;
        shifted[4] = (200, 4);
        assert!(matches!(
            check_param_info("k", &sgemm, &shifted),
            Err(LaunchError::Param { index: 4, ptx_offset: 200, entry_offset: 196, .. })
        ));
        assert!(check_param_info("k", &[], &[]).is_ok());
    }

    #[test]
    fn configs_are_checked_against_cuda_and_the_kernel() {
        let l =
            KernelLimits { max_threads_per_block: 1024, static_smem_bytes: 0, max_smem_per_block: 232448 };
        let cfg = |grid, block, smem| LaunchConfig { grid, block, dynamic_smem_bytes: smem };
        let ok = |c: LaunchConfig| l.check("k", &c).is_ok();
        assert!(ok(cfg(Dim3::xy(64, 128), Dim3::x(256), 0)));
        assert!(ok(cfg(Dim3 { x: (1 << 31) - 1, y: 65535, z: 65535 }, Dim3::x(1024), 232448)));
        assert!(ok(cfg(Dim3::x(1), Dim3 { x: 16, y: 16, z: 4 }, 0)));
        assert!(!ok(cfg(Dim3::x(1 << 31), Dim3::x(256), 0)));
        assert!(!ok(cfg(Dim3::xy(1, 65536), Dim3::x(256), 0)));
        assert!(!ok(cfg(Dim3 { x: 1, y: 1, z: 65536 }, Dim3::x(256), 0)));
        assert!(!ok(cfg(Dim3::xy(0, 1), Dim3::x(256), 0)));
        assert!(!ok(cfg(Dim3::x(1), Dim3::x(0), 0)));
        assert!(!ok(cfg(Dim3::x(1), Dim3::x(1025), 0)));
        assert!(!ok(cfg(Dim3::x(1), Dim3 { x: 1, y: 1, z: 65 }, 0)));
        assert!(!ok(cfg(Dim3::x(1), Dim3 { x: 32, y: 32, z: 2 }, 0)));
        assert!(!ok(cfg(Dim3::x(1), Dim3::x(256), 232449)));
        // A kernel limited to 384 threads (launch bounds, registers), with static shared memory.
        let sm90 = KernelLimits { max_threads_per_block: 384, static_smem_bytes: 1024, ..l };
        let e = sm90.check("hgemm_sm90_tn_f32", &cfg(Dim3::x(1), Dim3::x(512), 0)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "hgemm_sm90_tn_f32: the block (512,1,1) has 512 threads; this kernel takes 1 to 384 (x, y <= 1024, z <= 64)"
        );
        assert!(sm90.check("k", &cfg(Dim3::x(1), Dim3::x(384), 231424)).is_ok());
        assert!(matches!(
            sm90.check("k", &cfg(Dim3::x(1), Dim3::x(384), 231425)),
            Err(LaunchError::SharedMemory { dynamic: 231425, static_bytes: 1024, max: 232448, .. })
        ));
    }
}
