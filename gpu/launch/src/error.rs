//! Why a load, an argument or a launch was refused: [`LaunchError`], one line with the numbers.

use const_layout_device::abi::ParamAbi;
use const_layout_device::{Dim3, ParamError};
use cudarc::driver::DriverError;
use cudarc::driver::sys::CUresult;
use std::fmt;

/// Why a module, a kernel, an argument or a launch was refused. Every check is made before the
/// driver is asked to do anything with the values; CUDA's own errors are named (`CUDA_ERROR_...`).
/// `Display` is one line with the numbers involved.
///
/// ```
/// use const_layout_launch::LaunchError;
/// use const_layout_device::{Dim3, ParamError};
/// let e = LaunchError::Tensor(ParamError::TooSmall { cosize: 6400, len: 6399 });
/// assert_eq!(e.to_string(), "a tensor argument was refused: the layout reaches element 6400 but the allocation has 6399");
/// let e = LaunchError::Grid { kernel: "copy_f32".into(), grid: Dim3 { x: 1, y: 70000, z: 1 } };
/// assert_eq!(e.to_string(), "copy_f32: the grid (1,70000,1) exceeds CUDA's limits (x in 1..2^31, y and z in 1..=65535)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaunchError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no NVIDIA driver or GPU.
    NoDriver,
    /// The PTX module was not built, so none was embedded (see [`Module::load_embedded`](crate::Module::load_embedded)).
    PtxNotBuilt,
    /// The PTX text contains a NUL byte (the driver reads it as a C string).
    PtxNul {
        /// The byte offset of the first NUL.
        at: usize,
    },
    /// A CUDA driver call failed.
    Cuda {
        /// What was being done.
        what: String,
        /// The driver's error.
        error: CUresult,
    },
    /// The module has no entry point of this name.
    KernelNotFound {
        /// The entry point's name.
        kernel: String,
    },
    /// The entry point in the PTX has another number of parameters than its [`Entry`](const_layout_device::abi::Entry) declares.
    ParamCount {
        /// The entry point.
        kernel: String,
        /// Parameters in the PTX.
        ptx: usize,
        /// Parameters of the `Entry`.
        entry: usize,
    },
    /// A parameter of the entry point in the PTX differs in size or offset from its declaration.
    Param {
        /// The entry point.
        kernel: String,
        /// The parameter's position, from 0.
        index: usize,
        /// Its offset in the PTX's parameter space.
        ptx_offset: usize,
        /// Its size in the PTX.
        ptx_size: usize,
        /// What the `Entry` declares.
        entry: ParamAbi,
        /// Where the `Entry`'s declaration puts it.
        entry_offset: usize,
    },
    /// A tensor argument was refused by [`TensorParam::new`](const_layout_device::TensorParam::new).
    Tensor(ParamError),
    /// An output overlaps another tensor of the same launch.
    Overlap {
        /// The entry point.
        kernel: String,
        /// The output's parameter position.
        out: usize,
        /// The other tensor's parameter position.
        other: usize,
    },
    /// The stream, a buffer or a tensor map belongs to another CUDA context than the module.
    WrongContext {
        /// The entry point.
        kernel: String,
        /// What: `"the stream"`, `"parameter 2's buffer"`, ...
        what: String,
    },
    /// The block has no thread, more than 1024, more than the kernel allows, or an extent past
    /// CUDA's (x, y at most 1024, z at most 64).
    Block {
        /// The entry point.
        kernel: String,
        /// The block.
        block: Dim3,
        /// The most threads a block of this kernel may have (1024, or less where the kernel's
        /// registers or launch bounds say so).
        max_threads: u32,
    },
    /// The grid is empty or past CUDA's limits (x below 2^31, y and z at most 65535).
    Grid {
        /// The entry point.
        kernel: String,
        /// The grid.
        grid: Dim3,
    },
    /// Dynamic shared memory past what a block can have with the kernel's static shared memory.
    SharedMemory {
        /// The entry point.
        kernel: String,
        /// Dynamic bytes asked for.
        dynamic: u32,
        /// Static bytes the kernel declares.
        static_bytes: u32,
        /// The device's opt-in maximum per block (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
        max: u32,
    },
    /// A tensor map was refused before the driver was asked to encode it.
    TensorMap(TensorMapError),
    /// A tensor map argument was encoded for a tensor that is no input of the launch.
    MapNotOfLaunch {
        /// The entry point.
        kernel: String,
        /// The map's parameter position.
        param: usize,
    },
}

impl LaunchError {
    /// The error of a failed driver call: `what: CUDA_ERROR_...`.
    ///
    /// ```
    /// use const_layout_launch::LaunchError;
    /// use cudarc::driver::{sys::CUresult, DriverError};
    /// let e = LaunchError::cuda("loading the PTX module", DriverError(CUresult::CUDA_ERROR_INVALID_PTX));
    /// assert_eq!(e.to_string(), "loading the PTX module: CUDA_ERROR_INVALID_PTX");
    /// ```
    pub fn cuda(what: impl Into<String>, e: DriverError) -> Self {
        LaunchError::Cuda { what: what.into(), error: e.0 }
    }
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::NoDriver => f.write_str(
                "no CUDA driver: libcuda.so could not be loaded (this machine has no NVIDIA driver or GPU)",
            ),
            LaunchError::PtxNotBuilt => f.write_str(
                "the PTX module was not built, so none was embedded: install a PTX toolchain \
                 (const-layout-ptx install-toolchain, or a rustup nightly with rust-src and \
                 llvm-bitcode-linker) and rebuild",
            ),
            LaunchError::PtxNul { at } => write!(f, "the PTX text has a NUL byte at offset {at}"),
            LaunchError::Cuda { what, error } => write!(f, "{what}: {error:?}"),
            LaunchError::KernelNotFound { kernel } => {
                write!(f, "the PTX module has no entry point {kernel} (CUDA_ERROR_NOT_FOUND)")
            }
            LaunchError::ParamCount { kernel, ptx, entry } => write!(
                f,
                "{kernel}: the PTX entry point has {ptx} parameter{}, its Entry declares {entry}",
                if *ptx == 1 { "" } else { "s" }
            ),
            LaunchError::Param { kernel, index, ptx_offset, ptx_size, entry, entry_offset } => write!(
                f,
                "{kernel}: parameter {index} is {ptx_size} bytes at offset {ptx_offset} in the PTX, \
                 its Entry declares `{entry}` ({} bytes at offset {entry_offset})",
                entry.size()
            ),
            LaunchError::Tensor(e) => write!(f, "a tensor argument was refused: {e}"),
            LaunchError::Overlap { kernel, out, other } => write!(
                f,
                "{kernel}: the output (parameter {out}) overlaps parameter {other}; an output must overlap no other tensor of its launch"
            ),
            LaunchError::WrongContext { kernel, what } => {
                write!(f, "{kernel}: {what} belongs to another CUDA context than the module")
            }
            LaunchError::Block { kernel, block, max_threads } => write!(
                f,
                "{kernel}: the block {block} has {} threads; this kernel takes 1 to {max_threads} (x, y <= 1024, z <= 64)",
                block.count()
            ),
            LaunchError::Grid { kernel, grid } => write!(
                f,
                "{kernel}: the grid {grid} exceeds CUDA's limits (x in 1..2^31, y and z in 1..=65535)"
            ),
            LaunchError::SharedMemory { kernel, dynamic, static_bytes, max } => write!(
                f,
                "{kernel}: {dynamic} bytes of dynamic shared memory and {static_bytes} static exceed the device's {max} bytes a block"
            ),
            LaunchError::TensorMap(e) => write!(f, "a tensor map was refused: {e}"),
            LaunchError::MapNotOfLaunch { kernel, param } => write!(
                f,
                "{kernel}: the tensor map of parameter {param} was encoded for a tensor that is no input of this launch"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

impl From<ParamError> for LaunchError {
    fn from(e: ParamError) -> Self {
        LaunchError::Tensor(e)
    }
}

impl From<TensorMapError> for LaunchError {
    fn from(e: TensorMapError) -> Self {
        LaunchError::TensorMap(e)
    }
}

/// Why a TMA tensor map was refused (the conditions of the driver's `cuTensorMapEncodeTiled` for
/// a 2-D tensor of 16-bit elements, checked before the call).
///
/// ```
/// use const_layout_launch::TensorMapError;
/// assert_eq!(TensorMapError::Pitch { bytes: 200 }.to_string(),
///            "the row pitch of 200 bytes is not a multiple of 16 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TensorMapError {
    /// The box is for elements of another width than 16 bits.
    ElementBits {
        /// The box's element width.
        bits: u32,
    },
    /// A box extent is 0 or more than 256.
    BoxExtent {
        /// `"inner"` or `"outer"`.
        dim: &'static str,
        /// The extent.
        value: u32,
    },
    /// The box's rows are not a multiple of 16 bytes.
    BoxRowBytes {
        /// A row's bytes.
        bytes: u32,
    },
    /// The box's rows are wider than its swizzle's span.
    SwizzleSpan {
        /// A row's bytes.
        bytes: u32,
        /// The swizzle's span in bytes.
        span: u32,
    },
    /// The row pitch is not a multiple of 16 bytes.
    Pitch {
        /// The pitch in bytes.
        bytes: u64,
    },
    /// Rows overlap: the pitch is less than a row.
    RowsOverlap {
        /// The pitch in words.
        pitch: u64,
        /// A row's words.
        words: u64,
    },
    /// A tensor extent is past 2^32 elements.
    DimTooLarge {
        /// `"inner"` or `"outer"`.
        dim: &'static str,
        /// The extent in elements.
        value: u64,
    },
    /// A tensor of a rank TMA does not load (2 to 5 here).
    Rank {
        /// The rank.
        rank: u32,
    },
    /// The tensor's address is not 16-byte aligned.
    Address {
        /// The address.
        addr: u64,
    },
    /// A dimension's extent is 0 or past 2^32 elements.
    DimExtent {
        /// The dimension, innermost 0.
        dim: usize,
        /// The extent in elements.
        value: u64,
    },
    /// The innermost dimension is not contiguous.
    InnerStride {
        /// Its stride in elements.
        stride: u64,
    },
    /// A stride is not a multiple of 16 bytes below 2^40.
    Stride {
        /// The dimension, innermost 0.
        dim: usize,
        /// The stride in bytes.
        bytes: u64,
    },
    /// The tensor reaches past its allocation.
    OutsideAllocation {
        /// The offset of its last element, in elements.
        last: u64,
        /// The allocation's elements.
        elements: u64,
    },
}

impl fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorMapError::ElementBits { bits } => {
                write!(f, "the box is for {bits}-bit elements; tensor maps here are of 16-bit elements")
            }
            TensorMapError::BoxExtent { dim, value } => {
                write!(f, "the box's {dim} extent {value} is outside 1..=256")
            }
            TensorMapError::BoxRowBytes { bytes } => {
                write!(f, "the box's rows of {bytes} bytes are not a multiple of 16 bytes")
            }
            TensorMapError::SwizzleSpan { bytes, span } => {
                write!(f, "the box's rows of {bytes} bytes are wider than its swizzle's {span} bytes")
            }
            TensorMapError::Pitch { bytes } => {
                write!(f, "the row pitch of {bytes} bytes is not a multiple of 16 bytes")
            }
            TensorMapError::RowsOverlap { pitch, words } => {
                write!(f, "the row pitch of {pitch} words is less than a row's {words} words")
            }
            TensorMapError::DimTooLarge { dim, value } => {
                write!(f, "the tensor's {dim} extent of {value} elements is past 2^32")
            }
            TensorMapError::Rank { rank } => {
                write!(f, "a tensor of rank {rank}; TMA loads ranks 2 to 5 here")
            }
            TensorMapError::Address { addr } => {
                write!(f, "the tensor's address {addr:#x} is not 16-byte aligned")
            }
            TensorMapError::DimExtent { dim, value } => {
                write!(f, "dimension {dim}'s extent of {value} elements is outside 1..=2^32")
            }
            TensorMapError::InnerStride { stride } => write!(
                f,
                "the innermost dimension's stride is {stride} elements; TMA needs it contiguous (1)"
            ),
            TensorMapError::Stride { dim, bytes } => {
                write!(
                    f,
                    "dimension {dim}'s stride of {bytes} bytes is not a multiple of 16 bytes below 2^40"
                )
            }
            TensorMapError::OutsideAllocation { last, elements } => write!(
                f,
                "the tensor's last element is at offset {last}, past its allocation's {elements} elements"
            ),
        }
    }
}

impl std::error::Error for TensorMapError {}
