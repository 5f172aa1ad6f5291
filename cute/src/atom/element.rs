//! The element types atoms name (CuTe's `half_t`, `bfloat16_t`, `float`, ...).

/// An element type of an atom: its width in bits and CuTe's name for it.
///
/// ```
/// use const_layout::atom::{Element, F16};
/// assert_eq!((F16::BITS, F16::NAME), (16, "half_t"));
/// assert_eq!(<f32 as Element>::BITS, 32);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of an atom",
    note = "atoms take `F16`, `BF16`, `f32`, `f64` or an integer type"
)]
pub trait Element: Copy {
    /// The width in bits.
    const BITS: usize;
    /// CuTe's name for it.
    const NAME: &'static str;
}

/// IEEE half precision, as its bits (CuTe's `half_t`; Rust's `f16` is not stable).
///
/// ```
/// use const_layout::atom::F16;
/// assert_eq!(F16(0x3c00).0, 0x3c00); // 1.0
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct F16(pub u16);

/// bfloat16, as its bits (CuTe's `bfloat16_t`).
///
/// ```
/// use const_layout::atom::BF16;
/// assert_eq!(BF16(0x3f80).0, 0x3f80); // 1.0
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct BF16(pub u16);

macro_rules! element {
    ($($t:ty, $bits:expr, $name:expr;)+) => {$(
        impl Element for $t {
            const BITS: usize = $bits;
            const NAME: &'static str = $name;
        }
    )+};
}

element! {
    F16, 16, "half_t";
    BF16, 16, "bfloat16_t";
    f32, 32, "float";
    f64, 64, "double";
    u8, 8, "uint8_t";
    i8, 8, "int8_t";
    u16, 16, "uint16_t";
    i16, 16, "int16_t";
    u32, 32, "uint32_t";
    i32, 32, "int32_t";
    u64, 64, "uint64_t";
    i64, 64, "int64_t";
    u128, 128, "uint128_t";
}
