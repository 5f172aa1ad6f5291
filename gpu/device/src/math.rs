//! Arithmetic the compiler would not emit by itself: fused multiply-add, and PTX's fast
//! approximate instructions (CUDA's `__expf`, `__frcp_rn`, `rsqrtf`, `__fdividef`, `tanhf`'s
//! `tanh.approx`), each one instruction on the GPU.
//!
//! The `_approx` functions are PTX's `.approx.ftz` instructions: subnormal inputs and results
//! flush to zero, and the result is within the PTX ISA's bound of the exact value (2 ulp for
//! `ex2`, 1 ulp for `rcp`, 2 ulp for `rsqrt` and `div`, an absolute error of about 2^-21 for
//! `lg2` near 1 and for `tanh`'s 2^-10.987 relative). The emulator computes the exact function,
//! rounded: results differ from the GPU's within those bounds, so tests compare with tolerance.
//!
//! ```
//! use const_layout_device::math;
//! assert_eq!(math::ex2_approx(3.0), 8.0);
//! assert!((math::exp_approx(1.0) - core::f32::consts::E).abs() < 1e-6);
//! assert_eq!(math::rsqrt_approx(4.0), 0.5);
//! assert_eq!(math::sqrt(2.0), 2f32.sqrt());
//! ```

use crate::backend;

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
    backend::fma(a, b, c)
}

/// `2^x` (`ex2.approx.ftz.f32`, within 2 ulp): the exponential of softmax, with the `log2(e)`
/// folded into its scale.
///
/// ```
/// assert_eq!(const_layout_device::math::ex2_approx(-1.0), 0.5);
/// ```
#[inline(always)]
pub fn ex2_approx(x: f32) -> f32 {
    backend::ex2_approx(x)
}

/// `e^x` as `2^(x log2 e)` (CUDA's `__expf`): one multiply and `ex2.approx`.
///
/// ```
/// assert!((const_layout_device::math::exp_approx(2.0) - 2f32.exp()).abs() < 1e-5);
/// ```
#[inline(always)]
pub fn exp_approx(x: f32) -> f32 {
    ex2_approx(x * core::f32::consts::LOG2_E)
}

/// `log2 x` (`lg2.approx.ftz.f32`).
///
/// ```
/// assert_eq!(const_layout_device::math::lg2_approx(8.0), 3.0);
/// ```
#[inline(always)]
pub fn lg2_approx(x: f32) -> f32 {
    backend::lg2_approx(x)
}

/// `1 / x` (`rcp.approx.ftz.f32`, within 1 ulp).
///
/// ```
/// assert_eq!(const_layout_device::math::rcp_approx(4.0), 0.25);
/// ```
#[inline(always)]
pub fn rcp_approx(x: f32) -> f32 {
    backend::rcp_approx(x)
}

/// `1 / x` correctly rounded (`rcp.rn.f32`).
///
/// ```
/// assert_eq!(const_layout_device::math::rcp(3.0), 1.0 / 3.0);
/// ```
#[inline(always)]
pub fn rcp(x: f32) -> f32 {
    backend::rcp_rn(x)
}

/// `1 / sqrt(x)` (`rsqrt.approx.ftz.f32`, within 2 ulp): LayerNorm's reciprocal deviation.
///
/// ```
/// assert_eq!(const_layout_device::math::rsqrt_approx(0.25), 2.0);
/// ```
#[inline(always)]
pub fn rsqrt_approx(x: f32) -> f32 {
    backend::rsqrt_approx(x)
}

/// `sqrt(x)` (`sqrt.approx.ftz.f32`).
///
/// ```
/// assert_eq!(const_layout_device::math::sqrt_approx(9.0), 3.0);
/// ```
#[inline(always)]
pub fn sqrt_approx(x: f32) -> f32 {
    backend::sqrt_approx(x)
}

/// `sqrt(x)` correctly rounded (`sqrt.rn.f32`).
///
/// ```
/// assert_eq!(const_layout_device::math::sqrt(2.0), 2f32.sqrt());
/// ```
#[inline(always)]
pub fn sqrt(x: f32) -> f32 {
    backend::sqrt_rn(x)
}

/// `tanh(x)` (`tanh.approx.f32`, sm_75 and later).
///
/// ```
/// assert_eq!(const_layout_device::math::tanh_approx(0.0), 0.0);
/// ```
#[inline(always)]
pub fn tanh_approx(x: f32) -> f32 {
    backend::tanh_approx(x)
}

/// `a / b` (`div.approx.ftz.f32`, CUDA's `__fdividef`; within 2 ulp for `|b|` in
/// `2^-126..2^126`).
///
/// ```
/// assert_eq!(const_layout_device::math::div_approx(1.0, 4.0), 0.25);
/// ```
#[inline(always)]
pub fn div_approx(a: f32, b: f32) -> f32 {
    backend::div_approx(a, b)
}
