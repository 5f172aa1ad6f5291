//! AMD CK Tile's coordinate transforms, tensor adaptors and descriptors on
//! [const-layout](https://docs.rs/const-layout)'s typed integers and layouts; re-exported by
//! const-layout as `const_layout::ck_tile` (its default feature `ck-tile`), the path the
//! examples use.
//!
//! CK Tile's coordinate transforms: each maps an *upper* multi-index (what the user, or the next
//! stage up, supplies) to a *lower* one (closer to memory), and can move a lower index
//! incrementally when the upper one moves.
//!
//! The semantics are CK Tile's (`ck_tile/core/algorithm/coordinate_transform.hpp`), with its bugs
//! fixed (DECISIONS.md, decision 4): `modulo`'s
//! incremental update works (CK's does not compile, and would add the step twice), `left_pad` is a
//! transform like any other, merges are exact for every index (CK's magic division is only for
//! `0 <= n < 2^31`; here it is [`FastDivmod`](const_layout_cute::FastDivmod)), and invertible transforms also
//! go upward (`calculate_upper_index`, which CK does not have).
//!
//! Multi-indices are [`GenericArray`]s whose length is a typenum number ([`MultiIndex`]), so a
//! transform given the wrong number of dimensions does not compile. Every parameter is an
//! [`Int`](crate::int::Int): static (`C<4>`, folded into the code) or runtime (`usize`, ...).
//!
//! ```
//! use const_layout::ck_tile::{Merge, Transform, Unmerge, Embed, Pad, multi_index};
//! use const_layout::C;
//! // CK's worked examples.
//! let merge = Merge::new((C::<4>, C::<5>)).unwrap();
//! assert_eq!(merge.calculate_lower_index(&multi_index([13])).as_slice(), &[2, 3]);
//! let unmerge = Unmerge::new((3usize, 4usize, 2usize));
//! assert_eq!(unmerge.calculate_lower_index(&multi_index([1, 3, 0])).as_slice(), &[14]);
//! let embed = Embed::new((2usize, 3usize), (12isize, 1isize));
//! assert_eq!(embed.calculate_lower_index(&multi_index([1, 2])).as_slice(), &[14]);
//! let pad = Pad::new(3usize, 1usize, 1usize);
//! assert_eq!(pad.upper_lengths().as_slice(), &[5]);
//! let lower: Vec<isize> = (0..5).map(|u| pad.calculate_lower_index(&multi_index([u]))[0]).collect();
//! assert_eq!(lower, [-1, 0, 1, 2, 3]);
//! assert!(!pad.is_valid_upper_index(&multi_index([0])) && !pad.is_valid_upper_index(&multi_index([4])));
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The typed layer's and the core's modules at the paths the library's own modules use.
use const_layout_core::dyn_layout;
#[cfg(feature = "serde")]
use const_layout_core::serde_text;
use const_layout_cute::{algebra, fast_div, int, int_tuple, layout};

mod adaptor;
mod affine;
pub(crate) mod bridge;
mod coordinate;
mod copy;
mod cute;
mod descriptor;
mod error;
mod ids;
mod merge;
mod nonlinear;
#[cfg(feature = "serde")]
mod serde;
pub mod text;

pub use adaptor::{
    Chain, ChainedAdaptor, Ids, IdsFor, OffsetId, Relabel, SingleStageAdaptor, Stage, Stages, TensorAdaptor,
    TransformedAdaptor, UpCountOf, chain_tensor_adaptors, make_single_stage_tensor_adaptor,
    transform_tensor_adaptor,
};
pub use affine::{
    Embed, Freeze, Insert, LeftPad, Offset, Pad, PassThrough, Replicate, RightPad, Slice, Unmerge,
};
pub use bridge::{
    LayoutDescriptor, MAX_BRIDGE_SIZE, descriptor_to_layout, layout_to_descriptor, layout_to_naive_descriptor,
};
pub use coordinate::{
    TensorCoordinate, make_tensor_adaptor_coordinate, make_tensor_coordinate, move_adaptor_coordinate,
    move_tensor_coordinate,
};
pub use copy::copy_descriptor;
pub use cute::{CuteLayout, TopModes};
pub use descriptor::{
    AlignedDescriptor, NaiveDescriptor, OffsetDescriptor, PackedDescriptor, TensorDescriptor,
    TransformedDescriptor, make_naive_tensor_descriptor, make_naive_tensor_descriptor_aligned,
    make_naive_tensor_descriptor_guaranteed, make_naive_tensor_descriptor_packed,
    make_naive_tensor_descriptor_packed_guaranteed, make_naive_tensor_descriptor_with_offset,
    transform_tensor_descriptor,
};
pub use error::TransformError;
pub use ids::{
    ChainIds, EachNewTopDimensionOnce, EachOldTopDimensionOnce, Fresh, Id, IdList, IdMap, MAX_IDS, Mapped,
    MaskBelow, PositionBit, PositionStages, Positions, Range, Same, Sequence, ShiftBy, TopOf, Verdict,
    WiredOnto,
};
pub use merge::{Merge, MergeDivMod};
pub use nonlinear::{Modulo, Xor};
pub use text::{Expected, StagesText, TextError, TransformDisplay, TransformText};

use crate::int_tuple::ToArray;
use generic_array::{ArrayLength, GenericArray};

/// A multi-index of `N` dimensions (`N` a typenum number): CK's `multi_index<N>`.
pub type MultiIndex<N> = GenericArray<isize, N>;

/// A multi-index from an array of `K` values, where `N` (the dimension count the transform,
/// adaptor or descriptor expects) must be `K`: another count does not compile.
///
/// ```
/// use const_layout::ck_tile::{multi_index, MultiIndex};
/// let i: MultiIndex<typenum::U3> = multi_index([1, 2, 3]);
/// assert_eq!(i.as_slice(), &[1, 2, 3]);
/// ```
pub fn multi_index<const K: usize, N: Dims<K>>(values: [isize; K]) -> MultiIndex<N> {
    // `Dims<K>` is implemented only for the typenum number `K`, so the lengths agree.
    GenericArray::try_from_iter(values).unwrap_or_default()
}

/// The typenum number of dimensions that a multi-index of `K` values has: implemented for
/// `U0`..`U12` with their own `K` only, so a multi-index of the wrong dimension count is a
/// compile error that says so.
#[diagnostic::on_unimplemented(
    message = "a multi-index of {K} values where another number of dimensions is expected",
    label = "this multi-index has {K} dimensions",
    note = "the transform, adaptor or descriptor fixes the number of dimensions of its indices (its `Up` / `Top` count)"
)]
pub trait Dims<const K: usize>: ArrayLength {}

macro_rules! dims {
    ($($k:literal $u:ident),*) => { $(impl Dims<$k> for typenum::$u {})* };
}
dims!(0 U0, 1 U1, 2 U2, 3 U3, 4 U4, 5 U5, 6 U6, 7 U7, 8 U8, 9 U9, 10 U10, 11 U11, 12 U12);

/// The integers of a flat int tuple (the parameters of a transform) as a multi-index; static
/// integers become constants after inlining.
#[inline(always)]
pub(crate) fn values_of<T: ToArray>(t: &T) -> MultiIndex<T::Len> {
    let mut out = MultiIndex::<T::Len>::default();
    t.store_values(out.as_mut_slice(), 0);
    out
}

/// What a dimension guarantees about vector access (CK's *safe vector length* and *stride*): if
/// `length` is `Some(l)`, every run of `l` consecutive indices along the dimension that starts
/// at a multiple of `l` lies inside the dimension and maps through the same padding (all valid or
/// all invalid), and if `stride` is also `Some(s)`, a valid run's offsets are `o, o + s, ...,
/// o + (l - 1) s` (contiguous when `s == 1`: one vector load). `None` is CK's `-1`, "unknown".
///
/// ```
/// use const_layout::ck_tile::SafeVector;
/// let v = SafeVector::new(8, 1);
/// assert_eq!((v.length, v.stride), (Some(8), Some(1)));
/// assert_eq!(v.to_ck(), (8, 1));
/// assert_eq!(SafeVector::from_ck(-1, 1), SafeVector { length: None, stride: Some(1) });
/// assert_eq!(SafeVector::UNKNOWN.to_ck(), (-1, -1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SafeVector {
    /// The safe vector length, if known.
    pub length: Option<isize>,
    /// The stride of the offsets along a run, if known.
    pub stride: Option<isize>,
}

impl SafeVector {
    /// Nothing known (CK's `(-1, -1)`).
    pub const UNKNOWN: SafeVector = SafeVector { length: None, stride: None };

    /// A known length and stride.
    pub const fn new(length: isize, stride: isize) -> Self {
        SafeVector { length: Some(length), stride: Some(stride) }
    }

    /// From CK's numbers, where `-1` (any negative value) is unknown.
    pub const fn from_ck(length: isize, stride: isize) -> Self {
        SafeVector {
            length: if length < 0 { None } else { Some(length) },
            stride: if stride < 0 { None } else { Some(stride) },
        }
    }

    /// CK's numbers: `-1` where unknown.
    pub const fn to_ck(self) -> (isize, isize) {
        (
            match self.length {
                Some(l) => l,
                None => -1,
            },
            match self.stride {
                Some(s) => s,
                None => -1,
            },
        )
    }

    /// `self` where `guaranteed` knows nothing, `guaranteed`'s values where it does (CK's override
    /// of an inferred value by a descriptor's guaranteed one, length and stride separately).
    pub const fn overridden_by(self, guaranteed: SafeVector) -> Self {
        SafeVector {
            length: match guaranteed.length {
                Some(l) => Some(l),
                None => self.length,
            },
            stride: match guaranteed.stride {
                Some(s) => Some(s),
                None => self.stride,
            },
        }
    }
}

/// A [`SafeVector`] per dimension.
pub type SafeVectors<N> = GenericArray<SafeVector, N>;

/// The greatest common divisor of two positive lengths.
pub(crate) const fn gcd(mut a: isize, mut b: isize) -> isize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

/// A CK Tile coordinate transform: upper multi-index to lower multi-index.
///
/// The incremental contract is CK's: [`Transform::update_lower_index`] is given the upper step,
/// the *old* lower index (updated in place) and the *new* upper index, and returns the lower
/// step, which an adaptor passes on to the next transform down. Linear transforms map the step;
/// non-linear ones (merge, modulo, xor) work from the new upper index.
///
/// ```
/// use const_layout::ck_tile::{PassThrough, Transform, multi_index};
/// let t = PassThrough::new(8usize);
/// let mut low = t.calculate_lower_index(&multi_index([3]));
/// let step = t.update_lower_index(&multi_index([2]), &mut low, &multi_index([5]));
/// assert_eq!((low[0], step[0]), (5, 2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a coordinate transform",
    note = "the transforms are in `const_layout::ck_tile`: PassThrough, Pad, Embed, Merge, Unmerge, ..."
)]
pub trait Transform {
    /// CK's name of the transform (`"merge"`, `"pad"`, ...), for messages.
    const NAME: &'static str;
    /// The number of lower dimensions (CK's `NDimLow`).
    type Low: ArrayLength;
    /// The number of upper dimensions (CK's `NDimUp`).
    type Up: ArrayLength;
    /// Whether every upper index in range maps to a valid lower index (CK's
    /// `is_valid_upper_index_always_mapped_to_valid_lower_index`): false only for the pads.
    const ALWAYS_VALID: bool = true;
    /// Whether every parameter (length, stride, pad, ...) is static, as CK's
    /// `is_known_at_compile_time<Transform>` (its `is_static()`): then the transform's index
    /// math folds into constants. `false` unless a transform says otherwise (CK's default);
    /// every transform here says. See [`is_known_at_compile_time`].
    const IS_KNOWN_AT_COMPILE_TIME: bool = false;
    /// The extent of each upper dimension.
    fn upper_lengths(&self) -> MultiIndex<Self::Up>;
    /// The lower index of an upper index.
    fn calculate_lower_index(&self, up: &MultiIndex<Self::Up>) -> MultiIndex<Self::Low>;
    /// Move `low` (the lower index of the old upper index) to the lower index of `up_new` (the old
    /// upper index plus `diff_up`); returns the lower step.
    fn update_lower_index(
        &self,
        diff_up: &MultiIndex<Self::Up>,
        low: &mut MultiIndex<Self::Low>,
        up_new: &MultiIndex<Self::Up>,
    ) -> MultiIndex<Self::Low>;
    /// A move's fast path: the lower step when the move needs no carry, which for every
    /// transform but the merges is [`Transform::update_lower_index`] itself. A merge returns the
    /// step of its last lower dimension alone, `(0, .., 0, du)`, whatever the index, and `false`
    /// when that leaves the last lower dimension's range (a carry or borrow): then `low` and the
    /// step are not to be used, and the move takes [`Transform::update_lower_index`] instead.
    /// Because the step does not depend on the index, a constant upper step folds through the
    /// transforms below (CK has no such path; its merges divide on every move).
    #[inline(always)]
    fn update_lower_index_without_carry(
        &self,
        diff_up: &MultiIndex<Self::Up>,
        low: &mut MultiIndex<Self::Low>,
        up_new: &MultiIndex<Self::Up>,
    ) -> (MultiIndex<Self::Low>, bool) {
        (self.update_lower_index(diff_up, low, up_new), true)
    }
    /// A move's slow path, after [`Transform::update_lower_index_without_carry`] said some merge
    /// carries: `low` is what the fast path left (a merge's last lower dimension may be out of
    /// range), `diff_up` the correction of the upper index. Brings `low` back in range and moves
    /// it by `diff_up`; returns the lower step of both. For every transform but the merges this
    /// is [`Transform::update_lower_index`].
    #[inline(always)]
    fn fix_lower_index(
        &self,
        diff_up: &MultiIndex<Self::Up>,
        low: &mut MultiIndex<Self::Low>,
        up_new: &MultiIndex<Self::Up>,
    ) -> MultiIndex<Self::Low> {
        self.update_lower_index(diff_up, low, up_new)
    }
    /// Whether this upper index maps to a valid lower index (CK's
    /// `is_valid_upper_index_mapped_to_valid_lower_index`): false in the padding.
    fn is_valid_upper_index(&self, _up: &MultiIndex<Self::Up>) -> bool {
        true
    }
    /// [`Transform::is_valid_upper_index`] given also the lower index of `up` (a coordinate has
    /// both): a pad reads its lower index, in range or not, one comparison where the upper index
    /// needs a subtraction too.
    #[inline(always)]
    fn is_valid_index(&self, up: &MultiIndex<Self::Up>, _low: &MultiIndex<Self::Low>) -> bool {
        self.is_valid_upper_index(up)
    }
    /// What each upper dimension guarantees about vector access, from what the lower dimensions
    /// guarantee (CK's `calculate_upper_dimension_safe_vector_length_strides`, which an adaptor
    /// runs from the bottom up). The default, CK's, knows nothing; see each transform for its
    /// rule.
    fn calculate_upper_dimension_safe_vector_length_strides(
        &self,
        _low: &SafeVectors<Self::Low>,
    ) -> SafeVectors<Self::Up> {
        SafeVectors::default()
    }
}

/// A transform that can also go upward: the upper index of a lower index, so that
/// `calculate_upper_index(calculate_lower_index(u)) == u` for every upper index in range.
///
/// ```
/// use const_layout::ck_tile::{InvertibleTransform, Merge, Transform, multi_index};
/// let m = Merge::new((4usize, 5usize)).unwrap();
/// assert_eq!(m.calculate_upper_index(&multi_index([2, 3]))[0], 13);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot compute its upper index from its lower index",
    note = "transforms with an inverse have `calculate_upper_index`: `PassThrough`, `Offset`, `Slice`, the pads, `Unmerge`, `Merge`, `MergeDivMod`, `Xor`"
)]
pub trait InvertibleTransform: Transform {
    /// The upper index of a lower index.
    fn calculate_upper_index(&self, low: &MultiIndex<Self::Low>) -> MultiIndex<Self::Up>;
}

/// What CK's `is_known_at_compile_time<T>` asks of a transform, an adaptor or a descriptor:
/// whether every parameter is static, so that its index math folds into constants (implemented
/// for every [`Transform`], [`TensorAdaptor`] and [`TensorDescriptor`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a CK Tile transform, adaptor or descriptor",
    note = "`is_known_at_compile_time` asks it of `Transform`s, `TensorAdaptor`s and `TensorDescriptor`s"
)]
pub trait KnownAtCompileTime {
    /// Whether every parameter is static.
    const IS_KNOWN_AT_COMPILE_TIME: bool;
}

impl<T: Transform> KnownAtCompileTime for T {
    const IS_KNOWN_AT_COMPILE_TIME: bool = <T as Transform>::IS_KNOWN_AT_COMPILE_TIME;
}

impl<S: Stages, H: ArrayLength, Top: Sequence, Bottom: Sequence> KnownAtCompileTime
    for TensorAdaptor<S, H, Top, Bottom>
{
    const IS_KNOWN_AT_COMPILE_TIME: bool = S::IS_KNOWN_AT_COMPILE_TIME;
}

/// A descriptor's element space size is stored at run time; for the descriptors the `make_*`
/// functions and [`transform_tensor_descriptor`] build it is a function of the transforms'
/// parameters, so a descriptor is known at compile time when its transforms are
/// ([`TensorDescriptor::from_adaptor`] takes the size as given).
impl<S: Stages, H: ArrayLength, Top: Sequence> KnownAtCompileTime for TensorDescriptor<S, H, Top> {
    const IS_KNOWN_AT_COMPILE_TIME: bool = S::IS_KNOWN_AT_COMPILE_TIME;
}

/// CK's `is_known_at_compile_time<T>::value` for a transform, an adaptor or a descriptor of
/// `value`'s type: whether every parameter is static. A `const fn`, so it can pick a code path
/// in a constant.
///
/// ```
/// use const_layout::ck_tile::{
///     Merge, PassThrough, Stage, is_known_at_compile_time, make_naive_tensor_descriptor,
///     make_naive_tensor_descriptor_packed, transform_tensor_descriptor,
/// };
/// use const_layout::{C, sequence};
/// assert!(is_known_at_compile_time(&PassThrough::new(C::<8>)));
/// assert!(!is_known_at_compile_time(&PassThrough::new(8usize)));
/// // One runtime parameter is enough to make a merge runtime.
/// assert!(!is_known_at_compile_time(&Merge::new((C::<4>, 5usize)).unwrap()));
/// let d = make_naive_tensor_descriptor_packed((C::<4>, C::<8>)).unwrap();
/// assert!(is_known_at_compile_time(&d) && is_known_at_compile_time(d.adaptor()));
/// let m = transform_tensor_descriptor(d, (Stage::new(Merge::new((C::<4>, C::<8>)).unwrap(), sequence![0, 1], sequence![0]),));
/// assert!(is_known_at_compile_time(&m));
/// // Runtime strides: the embed transform is not static.
/// assert!(!is_known_at_compile_time(&make_naive_tensor_descriptor((C::<4>, C::<8>), (8isize, 1isize)).unwrap()));
/// ```
pub const fn is_known_at_compile_time<T: KnownAtCompileTime>(value: &T) -> bool {
    let _ = value;
    T::IS_KNOWN_AT_COMPILE_TIME
}

/// The step of a linear transform applied: `low += lower(diff_up)`, returning `lower(diff_up)`
/// minus what a constant term adds (a linear transform's lower step is its lower index of the
/// upper step, without the offset).
#[inline(always)]
fn linear_update<L: ArrayLength>(low: &mut MultiIndex<L>, step: MultiIndex<L>) -> MultiIndex<L> {
    for (l, s) in low.iter_mut().zip(step.iter()) {
        *l += s;
    }
    step
}

/// The step of a transform that recomputes: the new lower index, and the difference.
#[inline(always)]
fn recomputed<L: ArrayLength>(low: &mut MultiIndex<L>, new: MultiIndex<L>) -> MultiIndex<L> {
    let mut step = MultiIndex::<L>::default();
    for ((s, l), n) in step.iter_mut().zip(low.iter_mut()).zip(new.iter()) {
        *s = n - *l;
        *l = *n;
    }
    step
}
