//! Arithmetic the compiler would not emit by itself.

/// `a * b + c` with one rounding: `fma.rn.f32` (`FFMA`) on the GPU, `f32::mul_add` in the
/// emulator, so both compute the same bits. Rust never contracts `a * b + c` on its own, and a
/// multiply and an add are two instructions where the GPU has one.
///
/// ```
/// use const_layout_device::fma;
/// assert_eq!(fma(2.0, 3.0, 1.0), 7.0);
/// // One rounding: (1 + 2^-23)(1 - 2^-23) - 1 is -2^-46, where two roundings give 0.
/// let e = f32::EPSILON;
/// assert_eq!(fma(1.0 + e, 1.0 - e, -1.0), -e * e);
/// ```
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    crate::backend::fma(a, b, c)
}
