//! CK's merges: several lower dimensions (row-major: the last one fastest) seen as one upper
//! dimension. The lower index is found by division; a move updates it by carries and borrows
//! (legacy CK's `Merge_v1_carry_check`), with no division by the lengths for steps shorter than
//! the fastest dimension; a coordinate's move first tries the step on the fastest dimension
//! alone (`update_lower_index_without_carry`) and fixes up the carries only when it leaves the
//! range (`fix_lower_index`).

use super::TransformError;
use super::affine::row_major_strides;
use super::{InvertibleTransform, MultiIndex, SafeVectors, Transform, values_of};
use crate::fast_div::FastDivmod;
use crate::int_tuple::ToArray;
use const_layout_core::error::LayoutError;
use core::marker::PhantomData;
use generic_array::{ArrayLength, GenericArray};
use typenum::U1;

/// `t` split row-major over `lengths` (the first dimension takes what is left), by truncating
/// division as CK's `merge_v3_division_mod` (C++ `/` and `%`). Lengths are positive.
#[inline(always)]
pub(super) fn split_row_major<N: ArrayLength>(t: isize, lengths: &MultiIndex<N>) -> MultiIndex<N> {
    let mut out = MultiIndex::<N>::default();
    let mut rest = t;
    let n = lengths.len();
    for i in (1..n).rev() {
        out[i] = rest % lengths[i];
        rest /= lengths[i];
    }
    if n > 0 {
        out[0] = rest;
    }
    out
}

/// Every length positive, or the error naming the first that is not.
fn check_lengths<N: ArrayLength>(lengths: &MultiIndex<N>) -> Result<(), TransformError> {
    match lengths.iter().position(|&l| l <= 0) {
        Some(leaf) => {
            Err(TransformError::Layout(LayoutError::NonPositiveExtent { leaf, value: lengths[leaf] }))
        }
        None => Ok(()),
    }
}

/// The carry/borrow update of a merged lower index `low` (in range in every dimension but the
/// first) by the upper step `du`: `du` decomposed row-major (truncating), then added dimension
/// by dimension from the fastest, carrying one up when a dimension overflows and borrowing one when
/// it underflows. Returns the lower step.
#[inline(always)]
fn carry_borrow<N: ArrayLength>(
    lengths: &MultiIndex<N>,
    scan: &MultiIndex<N>,
    du: isize,
    low: &mut MultiIndex<N>,
) -> MultiIndex<N> {
    let n = low.len();
    if n > 1 && du.unsigned_abs() < lengths[n - 1].unsigned_abs() {
        return small_step(lengths, du, low);
    }
    general_step(lengths, scan, du, low)
}

/// A step shorter than the fastest dimension (the common case: a tile or less): it decomposes
/// to `(0, .., 0, du)`, and then at most one carry (or borrow, by the sign) ripples up, as an
/// odometer's. The same result as [`general_step`]'s, without its decomposition.
#[inline(always)]
fn small_step<N: ArrayLength>(lengths: &MultiIndex<N>, du: isize, low: &mut MultiIndex<N>) -> MultiIndex<N> {
    let mut step = MultiIndex::<N>::default();
    let mut i = low.len() - 1;
    step[i] = du;
    low[i] += du;
    if du >= 0 {
        while i > 0 && low[i] >= lengths[i] {
            low[i] -= lengths[i];
            step[i] -= lengths[i];
            i -= 1;
            low[i] += 1;
            step[i] += 1;
        }
    } else {
        while i > 0 && low[i] < 0 {
            low[i] += lengths[i];
            step[i] += lengths[i];
            i -= 1;
            low[i] -= 1;
            step[i] -= 1;
        }
    }
    step
}

/// Legacy CK's `Merge_v1_carry_check::UpdateLowerIndex_1a` for any step.
#[inline(always)]
fn general_step<N: ArrayLength>(
    lengths: &MultiIndex<N>,
    scan: &MultiIndex<N>,
    du: isize,
    low: &mut MultiIndex<N>,
) -> MultiIndex<N> {
    let n = lengths.len();
    // c_i = t / scan_i, t -= c_i * scan_i (C++ truncation), the last one taking the rest.
    let mut c = MultiIndex::<N>::default();
    let mut t = du;
    for i in 0..n.saturating_sub(1) {
        // A step smaller than the span below dimension i moves it by 0: no division.
        if t.unsigned_abs() >= scan[i].unsigned_abs() {
            c[i] = t / scan[i];
            t -= c[i] * scan[i];
        }
    }
    if n > 0 {
        c[n - 1] = t;
    }
    let mut step = MultiIndex::<N>::default();
    let mut carry = 0isize;
    for i in (1..n).rev() {
        let v = low[i] + carry;
        let (minus, plus) = (lengths[i] - c[i], lengths[i] + c[i]);
        let (do_carry, do_borrow) = (v >= minus, v < -c[i]);
        step[i] = if do_borrow {
            plus
        } else if do_carry {
            -minus
        } else {
            c[i]
        } + carry;
        carry = if do_borrow { -1 } else { do_carry as isize };
    }
    if n > 0 {
        step[0] = c[0] + carry;
    }
    for (l, s) in low.iter_mut().zip(step.iter()) {
        *l += s;
    }
    step
}

/// A merge's slow path: `low`, whose dimensions past the first may be out of range (the fast
/// path moved the last one), carried and borrowed back into range (the first dimension takes
/// what is left, as a merge's does), then moved by `du`. Returns the lower step of both.
#[inline(always)]
fn fix<N: ArrayLength>(
    lengths: &MultiIndex<N>,
    scan: &MultiIndex<N>,
    du: isize,
    low: &mut MultiIndex<N>,
) -> MultiIndex<N> {
    let before = low.clone();
    for i in (1..low.len()).rev() {
        let (l, len) = (low[i], lengths[i]);
        // One carry or borrow (the fast path moved by less than a row), else a division.
        let carry = if (l as usize) < (len as usize) {
            0
        } else if l >= len && l < len.wrapping_add(len) {
            // (A length past isize::MAX / 2 wraps, fails this test and divides: still exact.)
            1
        } else if l < 0 && l >= -len {
            -1
        } else {
            l.div_euclid(len)
        };
        low[i] -= carry * len;
        low[i - 1] += carry;
    }
    if du != 0 {
        carry_borrow(lengths, scan, du, low);
    }
    let mut step = MultiIndex::<N>::default();
    for ((s, b), l) in step.iter_mut().zip(before.iter()).zip(low.iter()) {
        *s = l - b;
    }
    step
}

/// The carry-free step of a merge: the last lower dimension moves by `du`, the others stay; true
/// when the last one stays in `0..length` (then no carry or borrow happens and the step is
/// exact; a merge of one dimension never carries).
#[inline(always)]
fn without_carry<N: ArrayLength>(
    lengths: &MultiIndex<N>,
    du: isize,
    low: &mut MultiIndex<N>,
) -> (MultiIndex<N>, bool) {
    let mut step = MultiIndex::<N>::default();
    let n = low.len();
    if n == 0 {
        return (step, true);
    }
    let moved = low[n - 1] + du;
    low[n - 1] = moved;
    step[n - 1] = du;
    // One unsigned comparison: 0 <= moved < length.
    (step, n == 1 || (moved as usize) < (lengths[n - 1] as usize))
}

/// The moves and the vector rule of a merge, whose lengths are `$values` of the transform `t`.
macro_rules! merge_moves {
    (|$t:ident| $values:expr) => {
        #[inline(always)]
        fn update_lower_index(
            &self,
            du: &MultiIndex<U1>,
            low: &mut MultiIndex<Ls::Len>,
            _: &MultiIndex<U1>,
        ) -> MultiIndex<Ls::Len> {
            let $t = self;
            carry_borrow($values, &self.scan, du[0], low)
        }
        #[inline(always)]
        fn update_lower_index_without_carry(
            &self,
            du: &MultiIndex<U1>,
            low: &mut MultiIndex<Ls::Len>,
            _: &MultiIndex<U1>,
        ) -> (MultiIndex<Ls::Len>, bool) {
            let $t = self;
            without_carry($values, du[0], low)
        }
        #[inline(always)]
        fn fix_lower_index(
            &self,
            du: &MultiIndex<U1>,
            low: &mut MultiIndex<Ls::Len>,
            _: &MultiIndex<U1>,
        ) -> MultiIndex<Ls::Len> {
            let $t = self;
            fix($values, &self.scan, du[0], low)
        }
        /// CK's rule: the merged dimension moves the last lower dimension first, so it has
        /// that dimension's guarantee.
        fn calculate_upper_dimension_safe_vector_length_strides(
            &self,
            low: &SafeVectors<Ls::Len>,
        ) -> SafeVectors<U1> {
            SafeVectors::<U1>::from([low.last().copied().unwrap_or_default()])
        }
    };
}

/// CK's `merge_v2_magic_division` (`make_merge_transform`): the lower `lengths` merged into one
/// upper dimension, divided by precomputed multipliers ([`FastDivmod`], exact for every
/// non-negative index, where CK's magic division stops at 2^31). Moves use carries and borrows.
///
/// ```
/// use const_layout::ck_tile::{InvertibleTransform, Merge, Transform, multi_index};
/// use const_layout::C;
/// let t = Merge::new((C::<4>, C::<5>)).unwrap();
/// assert_eq!(t.upper_lengths()[0], 20);
/// let mut low = t.calculate_lower_index(&multi_index([9]));
/// assert_eq!(low.as_slice(), &[1, 4]);
/// let step = t.update_lower_index(&multi_index([3]), &mut low, &multi_index([12]));
/// assert_eq!((low.as_slice(), step.as_slice()), (&[2, 2][..], &[1, -2][..]));
/// assert!(Merge::new((4usize, 0usize)).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Merge<Ls: ToArray> {
    pub(super) lengths: PhantomData<Ls>,
    divisors: GenericArray<FastDivmod, Ls::Len>,
    // The lengths' values and suffix products, computed once: a move reads them.
    pub(super) values: MultiIndex<Ls::Len>,
    scan: MultiIndex<Ls::Len>,
}

impl<Ls: ToArray> Merge<Ls> {
    /// `make_merge_transform(lengths)`: the multipliers are computed here (a division each), once.
    /// A length that is not positive is an error.
    pub fn new(lengths: Ls) -> Result<Self, TransformError> {
        let values = values_of(&lengths);
        check_lengths(&values)?;
        let mut divisors = GenericArray::<FastDivmod, Ls::Len>::default();
        for (d, &l) in divisors.iter_mut().zip(values.iter()) {
            *d = FastDivmod::new(l as usize)
                .ok_or(TransformError::Layout(LayoutError::NonPositiveExtent { leaf: 0, value: l }))?;
        }
        let scan = row_major_strides(&values);
        Ok(Merge { lengths: PhantomData, divisors, values, scan })
    }
}

impl<Ls: ToArray> Transform for Merge<Ls> {
    const NAME: &'static str = "merge";
    const IS_KNOWN_AT_COMPILE_TIME: bool = Ls::IS_STATIC;
    type Low = Ls::Len;
    type Up = U1;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([self.values.iter().product()])
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<Ls::Len> {
        let t = up[0];
        if t < 0 {
            // Below the range (a padded index above): the truncating split, as CK's v3 gives.
            return split_row_major(t, &self.values);
        }
        let mut out = MultiIndex::<Ls::Len>::default();
        let mut rest = t as usize;
        let n = out.len();
        for i in (1..n).rev() {
            let (q, r) = self.divisors[i].divmod(rest);
            out[i] = r as isize;
            rest = q;
        }
        if n > 0 {
            out[0] = rest as isize;
        }
        out
    }
    merge_moves!(|t| &t.values);
}

impl<Ls: ToArray> InvertibleTransform for Merge<Ls> {
    #[inline(always)]
    fn calculate_upper_index(&self, low: &MultiIndex<Ls::Len>) -> MultiIndex<U1> {
        merged(low, &self.scan)
    }
}

/// The upper index of a merged lower index: `sum(l_i * scan_i)`.
#[inline(always)]
fn merged<N: ArrayLength>(low: &MultiIndex<N>, scan: &MultiIndex<N>) -> MultiIndex<U1> {
    MultiIndex::<U1>::from([low.iter().zip(scan.iter()).map(|(l, s)| l * s).sum()])
}

/// CK's `merge_v3_division_mod`: [`Merge`] by plain division and remainder (by constants when the
/// lengths are static, which the compiler turns into multiplications).
///
/// ```
/// use const_layout::ck_tile::{MergeDivMod, Transform, multi_index};
/// use const_layout::C;
/// let t = MergeDivMod::new((C::<2>, C::<3>, C::<4>)).unwrap();
/// assert_eq!(t.calculate_lower_index(&multi_index([23])).as_slice(), &[1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct MergeDivMod<Ls: ToArray> {
    pub(super) lengths: Ls,
    scan: MultiIndex<Ls::Len>,
}

impl<Ls: ToArray> MergeDivMod<Ls> {
    /// `make_merge_transform_v3_division_mod(lengths)`. A length that is not positive is an error.
    pub fn new(lengths: Ls) -> Result<Self, TransformError> {
        let values = values_of(&lengths);
        check_lengths(&values)?;
        Ok(MergeDivMod { lengths, scan: row_major_strides(&values) })
    }
}

impl<Ls: ToArray> Transform for MergeDivMod<Ls> {
    const NAME: &'static str = "merge_v3_division_mod";
    const IS_KNOWN_AT_COMPILE_TIME: bool = Ls::IS_STATIC;
    type Low = Ls::Len;
    type Up = U1;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([values_of(&self.lengths).iter().product()])
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<Ls::Len> {
        split_row_major(up[0], &values_of(&self.lengths))
    }
    merge_moves!(|t| &values_of(&t.lengths));
}

impl<Ls: ToArray> InvertibleTransform for MergeDivMod<Ls> {
    #[inline(always)]
    fn calculate_upper_index(&self, low: &MultiIndex<Ls::Len>) -> MultiIndex<U1> {
        merged(low, &self.scan)
    }
}
