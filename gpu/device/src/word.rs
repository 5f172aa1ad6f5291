//! The element types device memory holds: 32-bit words.

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
