//! The other non-linear transforms: a move recomputes the lower index from the new upper one.

use super::TransformError;
use super::{InvertibleTransform, MultiIndex, Transform, recomputed};
use crate::int::Int;
use const_layout_core::error::LayoutError;
use typenum::{U1, U2};

/// CK's `modulo`: `l = u mod modulus` (the non-negative remainder) over an upper `length`. Unlike
/// CK's, its incremental update compiles and applies the step once.
///
/// ```
/// use const_layout::ck_tile::{Modulo, Transform, multi_index};
/// let t = Modulo::new(4usize, 10usize).unwrap();
/// let mut low = t.calculate_lower_index(&multi_index([3]));
/// let step = t.update_lower_index(&multi_index([2]), &mut low, &multi_index([5]));
/// assert_eq!((low[0], step[0]), (1, -2));
/// assert!(Modulo::new(0usize, 10usize).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Modulo<M, L> {
    pub(super) modulus: M,
    pub(super) length: L,
}

impl<M: Int, L: Int> Modulo<M, L> {
    /// `make_modulo_transform(modulus, length)`. A modulus that is not positive is an error.
    pub fn new(modulus: M, length: L) -> Result<Self, TransformError> {
        if modulus.value() <= 0 {
            return Err(TransformError::Layout(LayoutError::NonPositiveExtent {
                leaf: 0,
                value: modulus.value(),
            }));
        }
        Ok(Modulo { modulus, length })
    }
}

impl<M: Int, L: Int> Transform for Modulo<M, L> {
    const NAME: &'static str = "modulo";
    const IS_KNOWN_AT_COMPILE_TIME: bool = M::STATIC.is_some() && L::STATIC.is_some();
    type Low = U1;
    type Up = U1;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([self.length.value()])
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([up[0].rem_euclid(self.modulus.value())])
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<U1>,
        low: &mut MultiIndex<U1>,
        up_new: &MultiIndex<U1>,
    ) -> MultiIndex<U1> {
        recomputed(low, self.calculate_lower_index(up_new))
    }
}

/// CK's `xor_t`: two dimensions, `l0 = u0`, `l1 = u1 ^ (u0 mod lengths.1)`, the LDS bank
/// swizzle. Its own inverse.
///
/// Vector access: unknown for both upper dimensions. CK forwards the lower guarantees, which is
/// wrong (decision 4): a step along `u0` also changes `l1`, and a run along `u1` is permuted by
/// the xor (`u1 = 0..4` with `u0 = 1` reads `l1 = 1, 0, 3, 2`).
///
/// ```
/// use const_layout::ck_tile::{InvertibleTransform, Transform, Xor, multi_index};
/// let t = Xor::new(8usize, 8usize).unwrap();
/// let low = t.calculate_lower_index(&multi_index([3, 5]));
/// assert_eq!(low.as_slice(), &[3, 6]);
/// assert_eq!(t.calculate_upper_index(&low).as_slice(), &[3, 5]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Xor<L0, L1> {
    pub(super) length0: L0,
    pub(super) length1: L1,
}

impl<L0: Int, L1: Int> Xor<L0, L1> {
    /// `make_xor_transform((length0, length1))`. A second length that is not positive is an error.
    pub fn new(length0: L0, length1: L1) -> Result<Self, TransformError> {
        if length1.value() <= 0 {
            return Err(TransformError::Layout(LayoutError::NonPositiveExtent {
                leaf: 1,
                value: length1.value(),
            }));
        }
        Ok(Xor { length0, length1 })
    }
}

impl<L0: Int, L1: Int> Transform for Xor<L0, L1> {
    const NAME: &'static str = "xor";
    const IS_KNOWN_AT_COMPILE_TIME: bool = L0::STATIC.is_some() && L1::STATIC.is_some();
    type Low = U2;
    type Up = U2;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U2> {
        MultiIndex::<U2>::from([self.length0.value(), self.length1.value()])
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<U2>) -> MultiIndex<U2> {
        MultiIndex::<U2>::from([up[0], up[1] ^ up[0].rem_euclid(self.length1.value())])
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<U2>,
        low: &mut MultiIndex<U2>,
        up_new: &MultiIndex<U2>,
    ) -> MultiIndex<U2> {
        recomputed(low, self.calculate_lower_index(up_new))
    }
}

impl<L0: Int, L1: Int> InvertibleTransform for Xor<L0, L1> {
    #[inline(always)]
    fn calculate_upper_index(&self, low: &MultiIndex<U2>) -> MultiIndex<U2> {
        self.calculate_lower_index(low)
    }
}
