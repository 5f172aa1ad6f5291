//! The affine transforms (CK calls them linear; `const_layout::linear` is the F2 kind): a step of
//! the upper index maps to a step of the lower index that does not depend on where the index is,
//! so moving only adds.

use super::{
    InvertibleTransform, MultiIndex, SafeVector, SafeVectors, Transform, gcd, linear_update, values_of,
};
use crate::int::Int;
use crate::int_tuple::{IntTuple, ToArray};
use generic_array::ArrayLength;
use typenum::{U0, U1};

/// One-dimensional index of a value.
#[inline(always)]
fn one(v: isize) -> MultiIndex<U1> {
    MultiIndex::<U1>::from([v])
}

/// The impls of a one-to-one transform `l = u + shift` over an upper length (invertible, moves by
/// the step): pass_through, offset, slice.
macro_rules! shifted {
    ($name:ident<$($p:ident),+>, $ck:literal, |$a:ident| $len:expr, |$b:ident| $shift:expr $(, $forward:ident)?) => {
        impl<$($p: Int),+> Transform for $name<$($p),+> {
            const NAME: &'static str = $ck;
            const IS_KNOWN_AT_COMPILE_TIME: bool = true $(&& $p::STATIC.is_some())+;
            type Low = U1;
            type Up = U1;
            #[inline(always)]
            fn upper_lengths(&self) -> MultiIndex<U1> {
                let $a = self;
                one($len)
            }
            #[inline(always)]
            fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<U1> {
                let $b = self;
                one(up[0] + $shift)
            }
            #[inline(always)]
            fn update_lower_index(&self, du: &MultiIndex<U1>, low: &mut MultiIndex<U1>, _: &MultiIndex<U1>) -> MultiIndex<U1> {
                linear_update(low, *du)
            }
            $(
            /// CK's rule: the lower dimension's guarantee, unchanged.
            fn calculate_upper_dimension_safe_vector_length_strides(&self, low: &SafeVectors<U1>) -> SafeVectors<U1> {
                let _ = stringify!($forward);
                *low
            }
            )?
        }

        impl<$($p: Int),+> InvertibleTransform for $name<$($p),+> {
            #[inline(always)]
            fn calculate_upper_index(&self, low: &MultiIndex<U1>) -> MultiIndex<U1> {
                let $b = self;
                one(low[0] - $shift)
            }
        }
    };
}

/// CK's `pass_through`: `l = u`, over `length`.
///
/// ```
/// use const_layout::ck_tile::{PassThrough, Transform, multi_index};
/// use const_layout::C;
/// let t = PassThrough::new(C::<4>);
/// assert_eq!((t.upper_lengths()[0], t.calculate_lower_index(&multi_index([3]))[0]), (4, 3));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PassThrough<L> {
    pub(super) length: L,
}

impl<L: Int> PassThrough<L> {
    /// `make_pass_through_transform(length)`.
    pub fn new(length: L) -> Self {
        PassThrough { length }
    }
}

shifted!(PassThrough<L>, "pass_through", |t| t.length.value(), |_t| 0, forward);

/// CK's `pad` (and, with one side 0, `left_pad` / `right_pad`): `length` extended by `left` and
/// `right` padding positions, `l = u - left`. An upper index in the padding is not valid (its lower
/// index is outside `0..length`); with `SKIP` (CK's `SkipIsValidCheck`) the check is left out.
///
/// Vector access (see [`Transform::calculate_upper_dimension_safe_vector_length_strides`]): a pad
/// whose left padding is a static 0 is CK's `right_pad`, one whose right padding is a static 0 is
/// CK's `left_pad`; both keep the lower stride and, where CK forwards the lower length `l`
/// unchanged, give `gcd(l, padding)` (the padding static), because a run that starts at a
/// multiple of `l` in the upper dimension starts `left` earlier in the lower one, and the padded
/// length need not be a multiple of `l` (decision 4: with CK's rule, `left_pad(4, 1)` over a
/// dimension of safe length 4 would promise the run at upper 4, lower 3..6, past the end). A
/// pad on both sides knows nothing, as CK's.
///
/// ```
/// use const_layout::ck_tile::{Pad, Transform, multi_index};
/// let t = Pad::new(4usize, 1usize, 2usize);
/// assert_eq!(t.upper_lengths()[0], 7);
/// assert_eq!(t.calculate_lower_index(&multi_index([0]))[0], -1);
/// assert!(!t.is_valid_upper_index(&multi_index([0])));
/// assert!(t.is_valid_upper_index(&multi_index([4])));
/// assert!(!t.is_valid_upper_index(&multi_index([5])));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pad<L, P, Q, const SKIP: bool = false> {
    pub(super) length: L,
    pub(super) left: P,
    pub(super) right: Q,
}

impl<L: Int, P: Int, Q: Int> Pad<L, P, Q> {
    /// `make_pad_transform(length, left, right)`.
    pub fn new(length: L, left: P, right: Q) -> Self {
        Pad { length, left, right }
    }
}

impl<L: Int, P: Int, Q: Int> Pad<L, P, Q, true> {
    /// `make_pad_transform(length, left, right, bool_constant<true>)`: no validity check.
    pub fn unchecked(length: L, left: P, right: Q) -> Self {
        Pad { length, left, right }
    }
}

impl<L: Int, P: Int, Q: Int, const SKIP: bool> Transform for Pad<L, P, Q, SKIP> {
    const NAME: &'static str = "pad";
    const IS_KNOWN_AT_COMPILE_TIME: bool = L::STATIC.is_some() && P::STATIC.is_some() && Q::STATIC.is_some();
    type Low = U1;
    type Up = U1;
    const ALWAYS_VALID: bool = SKIP;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U1> {
        one(self.length.value() + self.left.value() + self.right.value())
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<U1> {
        one(up[0] - self.left.value())
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        du: &MultiIndex<U1>,
        low: &mut MultiIndex<U1>,
        _: &MultiIndex<U1>,
    ) -> MultiIndex<U1> {
        linear_update(low, *du)
    }
    #[inline(always)]
    fn is_valid_upper_index(&self, up: &MultiIndex<U1>) -> bool {
        // 0 <= up - left < length, as one unsigned comparison.
        SKIP || (up[0].wrapping_sub(self.left.value()) as usize) < self.length.value() as usize
    }
    #[inline(always)]
    fn is_valid_index(&self, _up: &MultiIndex<U1>, low: &MultiIndex<U1>) -> bool {
        // The lower index is `up - left`: 0 <= it < length.
        SKIP || (low[0] as usize) < self.length.value() as usize
    }
    fn calculate_upper_dimension_safe_vector_length_strides(&self, low: &SafeVectors<U1>) -> SafeVectors<U1> {
        // One side a static 0 (right_pad or left_pad): the other side's padding, if static, bounds
        // the runs; two-sided: unknown (CK).
        let padding = match (P::STATIC, Q::STATIC) {
            (Some(0), other) | (other, Some(0)) => other,
            _ => return SafeVectors::default(),
        };
        let length = match (low[0].length, padding) {
            (Some(l), Some(p)) => Some(gcd(l, p)),
            _ => None,
        };
        SafeVectors::<U1>::from([SafeVector { length, stride: low[0].stride }])
    }
}

impl<L: Int, P: Int, Q: Int, const SKIP: bool> InvertibleTransform for Pad<L, P, Q, SKIP> {
    #[inline(always)]
    fn calculate_upper_index(&self, low: &MultiIndex<U1>) -> MultiIndex<U1> {
        one(low[0] + self.left.value())
    }
}

/// CK's `left_pad`: [`Pad`] with no right padding (usable in descriptors, unlike CK's).
pub type LeftPad<L, P> = Pad<L, P, const_layout_cute::C<0>>;
/// CK's `right_pad`: [`Pad`] with no left padding.
pub type RightPad<L, Q> = Pad<L, const_layout_cute::C<0>, Q>;

/// CK's `embed`: `l = sum(u_i * c_i)` over upper `lengths`, with `coefficients` (strides).
///
/// ```
/// use const_layout::ck_tile::{Embed, Transform, multi_index};
/// use const_layout::C;
/// let t = Embed::new((C::<2>, C::<3>), (C::<12>, C::<1>));
/// assert_eq!(t.calculate_lower_index(&multi_index([1, 2]))[0], 14);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Embed<Ls, Cs> {
    pub(super) lengths: Ls,
    pub(super) coefficients: Cs,
}

impl<Ls: ToArray, Cs: ToArray<Len = Ls::Len>> Embed<Ls, Cs> {
    /// `make_embed_transform(lengths, coefficients)`: one coefficient per length (a compile error
    /// otherwise).
    pub fn new(lengths: Ls, coefficients: Cs) -> Self {
        Embed { lengths, coefficients }
    }
}

impl<Ls: ToArray, Cs: ToArray<Len = Ls::Len>> Transform for Embed<Ls, Cs> {
    const NAME: &'static str = "embed";
    const IS_KNOWN_AT_COMPILE_TIME: bool = Ls::IS_STATIC && Cs::IS_STATIC;
    type Low = U1;
    type Up = Ls::Len;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<Ls::Len> {
        values_of(&self.lengths)
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<Ls::Len>) -> MultiIndex<U1> {
        let c = values_of(&self.coefficients);
        one(up.iter().zip(c.iter()).map(|(u, c)| u * c).sum())
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        du: &MultiIndex<Ls::Len>,
        low: &mut MultiIndex<U1>,
        _: &MultiIndex<Ls::Len>,
    ) -> MultiIndex<U1> {
        let step = self.calculate_lower_index(du);
        linear_update(low, step)
    }
}

/// The suffix products of `lengths` (CK's reverse exclusive scan): `scan_i = prod(lengths_j, j > i)`,
/// the strides of a row-major (last dimension fastest) unmerge or merge.
#[inline(always)]
pub(super) fn row_major_strides<N: ArrayLength>(lengths: &MultiIndex<N>) -> MultiIndex<N> {
    let mut scan = MultiIndex::<N>::default();
    let mut p = 1isize;
    for (s, l) in scan.iter_mut().zip(lengths.iter()).rev() {
        *s = p;
        p *= l;
    }
    scan
}

/// CK's `unmerge`: upper `lengths` (row-major: the last dimension fastest) packed into one lower
/// dimension, `l = sum(u_i * prod(lengths_j, j > i))`. Invertible (on upper indices in range).
///
/// Vector access (CK's rule): the last upper dimension moves the lower index by 1, so it gets the
/// lower stride and, when its length is static, `gcd(lower length, its length)`; the others know
/// nothing.
///
/// ```
/// use const_layout::ck_tile::{InvertibleTransform, Transform, Unmerge, multi_index};
/// let t = Unmerge::new((3usize, 4usize, 2usize));
/// assert_eq!(t.calculate_lower_index(&multi_index([1, 3, 0]))[0], 14);
/// assert_eq!(t.calculate_upper_index(&multi_index([14])).as_slice(), &[1, 3, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct Unmerge<Ls: ToArray> {
    pub(super) lengths: Ls,
    // The suffix products, computed once: every index and move reads them.
    scan: MultiIndex<Ls::Len>,
}

impl<Ls: ToArray> Unmerge<Ls> {
    /// `make_unmerge_transform(lengths)`.
    pub fn new(lengths: Ls) -> Self {
        let scan = row_major_strides(&values_of(&lengths));
        Unmerge { lengths, scan }
    }
}

impl<Ls: ToArray> Transform for Unmerge<Ls> {
    const NAME: &'static str = "unmerge";
    const IS_KNOWN_AT_COMPILE_TIME: bool = Ls::IS_STATIC;
    type Low = U1;
    type Up = Ls::Len;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<Ls::Len> {
        values_of(&self.lengths)
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<Ls::Len>) -> MultiIndex<U1> {
        one(up.iter().zip(self.scan.iter()).map(|(u, s)| u * s).sum())
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        du: &MultiIndex<Ls::Len>,
        low: &mut MultiIndex<U1>,
        _: &MultiIndex<Ls::Len>,
    ) -> MultiIndex<U1> {
        let step = self.calculate_lower_index(du);
        linear_update(low, step)
    }
    fn calculate_upper_dimension_safe_vector_length_strides(
        &self,
        low: &SafeVectors<U1>,
    ) -> SafeVectors<Ls::Len> {
        let mut up = SafeVectors::<Ls::Len>::default();
        if let Some(last) = up.last_mut() {
            let length = match (low[0].length, last_static(&self.lengths)) {
                (Some(l), Some(n)) => Some(gcd(l, n)),
                _ => None,
            };
            *last = SafeVector { length, stride: low[0].stride };
        }
        up
    }
}

/// The value of an int tuple's last integer, if it is static.
pub(super) fn last_static<T: IntTuple>(t: &T) -> Option<isize> {
    let mut last = None;
    t.for_each_leaf(&mut |leaf| last = if leaf.is_static { leaf.value } else { None });
    last
}

impl<Ls: ToArray> InvertibleTransform for Unmerge<Ls> {
    #[inline(always)]
    fn calculate_upper_index(&self, low: &MultiIndex<U1>) -> MultiIndex<Ls::Len> {
        super::merge::split_row_major(low[0], &values_of(&self.lengths))
    }
}

/// CK's `freeze`: no upper dimension; the lower index is fixed at `index`.
///
/// ```
/// use const_layout::ck_tile::{Freeze, Transform, multi_index};
/// let t = Freeze::new(3usize);
/// assert_eq!(t.calculate_lower_index(&multi_index([]))[0], 3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Freeze<V> {
    pub(super) index: V,
}

impl<V: Int> Freeze<V> {
    /// `make_freeze_transform(index)`.
    pub fn new(index: V) -> Self {
        Freeze { index }
    }
}

impl<V: Int> Transform for Freeze<V> {
    const NAME: &'static str = "freeze";
    const IS_KNOWN_AT_COMPILE_TIME: bool = V::STATIC.is_some();
    type Low = U1;
    type Up = U0;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U0> {
        MultiIndex::<U0>::default()
    }
    #[inline(always)]
    fn calculate_lower_index(&self, _: &MultiIndex<U0>) -> MultiIndex<U1> {
        one(self.index.value())
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<U0>,
        _: &mut MultiIndex<U1>,
        _: &MultiIndex<U0>,
    ) -> MultiIndex<U1> {
        one(0)
    }
}

/// CK's `insert`: a new upper dimension of `length` that maps to nothing below.
///
/// ```
/// use const_layout::ck_tile::{Insert, Transform, multi_index};
/// let t = Insert::new(4usize);
/// assert_eq!(t.upper_lengths()[0], 4);
/// assert_eq!(t.calculate_lower_index(&multi_index([2])).len(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Insert<L> {
    pub(super) length: L,
}

impl<L: Int> Insert<L> {
    /// `make_insert_transform(length)`.
    pub fn new(length: L) -> Self {
        Insert { length }
    }
}

impl<L: Int> Transform for Insert<L> {
    const NAME: &'static str = "insert";
    const IS_KNOWN_AT_COMPILE_TIME: bool = L::STATIC.is_some();
    type Low = U0;
    type Up = U1;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<U1> {
        one(self.length.value())
    }
    #[inline(always)]
    fn calculate_lower_index(&self, _: &MultiIndex<U1>) -> MultiIndex<U0> {
        MultiIndex::<U0>::default()
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<U1>,
        _: &mut MultiIndex<U0>,
        _: &MultiIndex<U1>,
    ) -> MultiIndex<U0> {
        MultiIndex::<U0>::default()
    }
}

/// CK's `replicate`: upper dimensions of `lengths` that map to nothing below (a broadcast).
///
/// ```
/// use const_layout::ck_tile::{Replicate, Transform, multi_index};
/// let t = Replicate::new((2usize, 3usize));
/// assert_eq!(t.upper_lengths().as_slice(), &[2, 3]);
/// assert_eq!(t.calculate_lower_index(&multi_index([1, 2])).len(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Replicate<Ls> {
    pub(super) lengths: Ls,
}

impl<Ls: ToArray> Replicate<Ls> {
    /// `make_replicate_transform(lengths)`.
    pub fn new(lengths: Ls) -> Self {
        Replicate { lengths }
    }
}

impl<Ls: ToArray> Transform for Replicate<Ls> {
    const NAME: &'static str = "replicate";
    const IS_KNOWN_AT_COMPILE_TIME: bool = Ls::IS_STATIC;
    type Low = U0;
    type Up = Ls::Len;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<Ls::Len> {
        values_of(&self.lengths)
    }
    #[inline(always)]
    fn calculate_lower_index(&self, _: &MultiIndex<Ls::Len>) -> MultiIndex<U0> {
        MultiIndex::<U0>::default()
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<Ls::Len>,
        _: &mut MultiIndex<U0>,
        _: &MultiIndex<Ls::Len>,
    ) -> MultiIndex<U0> {
        MultiIndex::<U0>::default()
    }
}

/// CK's `offset`: `l = u + offset` over `length`.
///
/// ```
/// use const_layout::ck_tile::{Offset, Transform, multi_index};
/// let t = Offset::new(48usize, 16isize);
/// assert_eq!(t.calculate_lower_index(&multi_index([5]))[0], 21);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Offset<L, O> {
    pub(super) length: L,
    pub(super) offset: O,
}

impl<L: Int, O: Int> Offset<L, O> {
    /// `make_offset_transform(length, offset)`.
    pub fn new(length: L, offset: O) -> Self {
        Offset { length, offset }
    }
}

/// CK's `slice`: the lower positions `begin..end`, `l = u + begin`.
///
/// ```
/// use const_layout::ck_tile::{Slice, Transform, multi_index};
/// let t = Slice::new(10usize, 3usize, 7usize);
/// assert_eq!((t.upper_lengths()[0], t.calculate_lower_index(&multi_index([1]))[0]), (4, 4));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Slice<L, B, E> {
    #[allow(dead_code)] // CK's constructor takes it; the transform does not read it
    pub(super) length: L,
    pub(super) begin: B,
    pub(super) end: E,
}

impl<L: Int, B: Int, E: Int> Slice<L, B, E> {
    /// `make_slice_transform(length, begin, end)`.
    pub fn new(length: L, begin: B, end: E) -> Self {
        Slice { length, begin, end }
    }
}

shifted!(Offset<L, O>, "offset", |t| t.length.value(), |t| t.offset.value());
shifted!(Slice<L, B, E>, "slice", |t| t.end.value() - t.begin.value(), |t| t.begin.value());
