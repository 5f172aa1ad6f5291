//! The leaf types every part of the device layer shares, the host's launchers too: grid
//! geometry ([`Dim3`], [`LaunchConfig`]), the element types of device memory ([`Word`]) and of
//! half-precision data ([`HalfKind`]). Plain data, the same on every target.

use core::fmt;

/// Three extents or indices, as CUDA's `dim3`.
///
/// ```
/// use const_layout_device::Dim3;
/// assert_eq!(Dim3::x(256).count(), 256);
/// assert_eq!(Dim3 { x: 4, y: 2, z: 1 }.to_string(), "(4,2,1)");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Dim3 {
    /// The first (fastest) extent.
    pub x: u32,
    /// The second extent.
    pub y: u32,
    /// The third extent.
    pub z: u32,
}

impl Dim3 {
    /// `(x, 1, 1)`.
    #[inline(always)]
    pub const fn x(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }

    /// `(x, y, 1)`.
    #[inline(always)]
    pub const fn xy(x: u32, y: u32) -> Self {
        Dim3 { x, y, z: 1 }
    }

    /// `x * y * z`.
    #[inline(always)]
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

/// A kernel launch's geometry: what the emulator ([`emu::launch`](crate::emu)) and a host
/// launcher take.
///
/// ```
/// use const_layout_device::{Dim3, LaunchConfig};
/// let cfg = LaunchConfig { grid: Dim3::xy(64, 2), block: Dim3::x(256), dynamic_smem_bytes: 0 };
/// assert_eq!(cfg.grid.count() * cfg.block.count(), 32768);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Bytes of dynamic shared memory per block.
    pub dynamic_smem_bytes: u32,
}

/// The element type of `A` and `B` in the tensor-core instructions: IEEE half or bfloat16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfKind {
    /// IEEE half precision (`.f16`).
    F16,
    /// bfloat16 (`.bf16`).
    BF16,
}

mod sealed {
    pub trait Sealed {}
}

/// A 32-bit element of device memory: `f32`, `u32` or `i32`. Memory is moved as bits, so every
/// access (scalar or 128-bit vector) is one instruction whatever the element type.
///
/// ```
/// use const_layout_device::Word;
/// assert_eq!(f32::from_bits(1.5f32.to_bits()), 1.5);
/// assert_eq!(<i32 as Word>::from_bits(u32::MAX), -1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of device memory",
    label = "device memory holds 32-bit words",
    note = "use `f32`, `u32` or `i32`"
)]
pub trait Word: Copy + Default + PartialEq + core::fmt::Debug + sealed::Sealed + 'static {
    /// The bits.
    fn to_bits(self) -> u32;
    /// From bits.
    fn from_bits(bits: u32) -> Self;
}

impl sealed::Sealed for f32 {}
impl Word for f32 {
    #[inline(always)]
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(bits)
    }
}

impl sealed::Sealed for u32 {}
impl Word for u32 {
    #[inline(always)]
    fn to_bits(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        bits
    }
}

impl sealed::Sealed for i32 {}
impl Word for i32 {
    #[inline(always)]
    fn to_bits(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        bits as i32
    }
}
