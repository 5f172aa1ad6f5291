//! A shape with its congruent stride: validation, cosize, and offset-to-coordinate inversion; and the
//! scalar-stride rule that makes a stride congruent.

use crate::arity::{for_tuples, with_context};
use crate::diagnostics::{StrideDeeper, StrideRank};
use crate::error::LayoutError;
use crate::int::{Int, Kind};
use crate::int_tuple::{CompactLeft, CuteCompact, IntTuple, IsInt, IsTuple, Leaf};

/// Running totals of a layout check; see [`LayoutShape::check`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Integers visited so far (the position of the next one).
    pub leaf: usize,
    /// The product of the extents so far.
    pub size: isize,
    /// `sum((s - 1) * |d|)` so far: the largest offset reachable with non-negative strides.
    pub span: isize,
}

impl Check {
    /// The state before any integer.
    pub const fn new() -> Self {
        Check { leaf: 0, size: 1, span: 0 }
    }
}

/// A shape `Self` with a stride `D` of the same nesting (CuTe's congruence). Implemented for
/// integer/integer pairs, `()`/`()`, and tuples of equal rank whose modes pair up.
///
/// This is the bound every [`Layout`](crate::Layout) carries; it supplies what needs shape and
/// stride together.
///
/// ```
/// use const_layout::layout::LayoutShape;
/// use const_layout::C;
/// type S = (C<8>, (C<4>, C<2>));
/// type D = (C<1>, (C<8>, C<32>));
/// assert_eq!(<S as LayoutShape<D>>::STATIC_SPAN, Some(7 + 24 + 32));
/// ```
#[diagnostic::on_unimplemented(
    message = "the stride `{D}` is not congruent with the shape `{Self}`",
    label = "shape and stride must have the same nesting",
    note = "a scalar stride against a tuple mode is expanded by `make_layout`; other mismatches are errors"
)]
pub trait LayoutShape<D: IntTuple>: IntTuple {
    /// Whether every static extent is positive (runtime extents are checked when a layout is built).
    const STATIC_EXTENTS_POSITIVE: bool;
    /// `sum((s - 1) * |d|)` when shape and stride are static (overflow is a compile-time error).
    const STATIC_SPAN: Option<isize>;
    /// The static extents and strides, flattened, for compile-time offsets of static indices.
    const FLAT: FlatPairs;
    /// Check the runtime integers (positive extents, no overflow), accumulating into `acc`.
    fn check(&self, d: &D, acc: &mut Check) -> Result<(), LayoutError>;
    /// CuTe's `crd2idx(idx, shape, stride)` for an integer index: split colexicographically across
    /// the modes, the last mode taking what is left.
    fn offset_of_index(&self, d: &D, idx: isize) -> isize;
    /// `sum((s - 1) * |d|)`: `cosize - 1`.
    fn span(&self, d: &D) -> isize;
    /// The type of [`LayoutShape::hier_coord`] for an index of type `I`.
    type HierCoord<I: Int>: IntTuple;
    /// CuTe's `idx2crd(idx, shape, stride)`: at every integer, `(idx / d) % s` (a stride of 0 gives 0):
    /// the inverse of the layout for compact layouts.
    fn hier_coord<I: Int>(&self, d: &D, idx: I) -> Self::HierCoord<I>;
    /// The colexicographic 1-D coordinate of [`LayoutShape::hier_coord`], with `weight` the product of
    /// the extents before this mode (updated).
    fn one_d_coord(&self, d: &D, idx: isize, weight: &mut isize) -> isize;
    /// The type of [`LayoutShape::flat_coord`]: one integer per top-level mode.
    type FlatCoord: IntTuple;
    /// CuTe's `get_flat_coord`: the 1-D coordinate within each top-level mode.
    fn flat_coord(&self, d: &D, idx: isize) -> Self::FlatCoord;
}

/// The largest number of integers a static layout may have for [`LayoutShape::FLAT`] (used only
/// to compute offsets of static integer indices at compile time).
pub const MAX_FLAT: usize = 64;

/// A layout's integers flattened: extent and stride of each, `None` where a runtime integer.
#[derive(Clone, Copy, Debug)]
pub struct FlatPairs {
    /// Number of integers.
    pub len: usize,
    /// Extents.
    pub shape: [Option<isize>; MAX_FLAT],
    /// Strides.
    pub stride: [Option<isize>; MAX_FLAT],
}

impl FlatPairs {
    /// No integers.
    pub const EMPTY: FlatPairs = FlatPairs { len: 0, shape: [None; MAX_FLAT], stride: [None; MAX_FLAT] };

    /// One integer.
    pub const fn one(s: Option<isize>, d: Option<isize>) -> FlatPairs {
        let mut f = FlatPairs::EMPTY;
        f.len = 1;
        f.shape[0] = s;
        f.stride[0] = d;
        f
    }

    /// `self` followed by `other`.
    pub const fn concat(self, other: FlatPairs) -> FlatPairs {
        let mut f = self;
        if self.len + other.len > MAX_FLAT {
            panic!("a static layout with more than 64 integers cannot compute static offsets");
        }
        let mut k = 0;
        while k < other.len {
            f.shape[self.len + k] = other.shape[k];
            f.stride[self.len + k] = other.stride[k];
            k += 1;
        }
        f.len = self.len + other.len;
        f
    }

    /// The offset of integer index `idx`, if every integer is static. Leaf `l` gets coordinate
    /// `(idx / P_l) % s_l` with `P_l` the product of the extents before it, except the last leaf,
    /// which takes `idx / P_l`: the same as CuTe's recursive split, in closed form.
    pub const fn offset_of_index(&self, idx: isize) -> Option<isize> {
        let mut off: isize = 0;
        let mut rest = idx;
        let mut k = 0;
        while k < self.len {
            let (s, d) = match (self.shape[k], self.stride[k]) {
                (Some(s), Some(d)) => (s, d),
                _ => return None,
            };
            let c = if k + 1 == self.len { rest } else { rest % s };
            rest /= s;
            off = match c.checked_mul(d) {
                Some(t) => match off.checked_add(t) {
                    Some(o) => o,
                    None => panic!("a static offset overflows isize"),
                },
                None => panic!("a static offset overflows isize"),
            };
            k += 1;
        }
        Some(off)
    }
}

/// CuTe's leaf rule of `idx2crd(idx, shape, stride)`: `(idx / d) % s`, with 0 for a stride of 0
/// (which CuTe would divide by) and for an extent of 1.
#[inline(always)]
pub(crate) fn hier_leaf(idx: isize, s: isize, d: isize) -> isize {
    if s == 1 || d == 0 { 0 } else { crate::int::rem(crate::int::div(idx, d), s) }
}

const fn hier_leaf_const(idx: isize, s: isize, d: isize) -> isize {
    if s == 1 || d == 0 {
        0
    } else {
        let q = idx / d;
        q % s
    }
}

crate::int::static_int_type! {
/// The static result of [`LayoutShape::hier_coord`] at one integer, when index, extent and stride
/// are static.
///
/// ```
/// use const_layout::layout::StaticHierCoord;
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(<StaticHierCoord<C<13>, C<4>, C<2>> as Int>::STATIC, Some(2));
/// ```
    pub struct StaticHierCoord<I, S, D> where [I: Int, S: Int, D: Int] = match (I::STATIC, S::STATIC, D::STATIC) {
        (Some(i), Some(s), Some(d)) => hier_leaf_const(i, s, d),
        _ => panic!("StaticHierCoord of runtime integers"),
    };
}

/// Kind of three integers together: static only if all are.
pub(crate) type Kind3<A, B, C> = <<A as Kind>::And<B> as Kind>::And<C>;

const fn span_leaf(s: Option<isize>, d: Option<isize>) -> Option<isize> {
    match (s, d) {
        (Some(s), Some(d)) => {
            let d = if d < 0 { d.checked_neg() } else { Some(d) };
            match d {
                Some(d) => match (s - 1).checked_mul(d) {
                    Some(v) => Some(v),
                    None => panic!("the cosize of a static layout overflows isize"),
                },
                None => panic!("a static stride of isize::MIN has no absolute value"),
            }
        }
        _ => None,
    }
}

pub(crate) const fn add_static(a: Option<isize>, b: Option<isize>) -> Option<isize> {
    match (a, b) {
        (Some(a), Some(b)) => match a.checked_add(b) {
            Some(v) => Some(v),
            None => panic!("a static layout computation overflows isize"),
        },
        _ => None,
    }
}

fn leaf_value(l: Leaf, part: &'static str, leaf: usize) -> Result<isize, LayoutError> {
    l.value.ok_or(LayoutError::ValueOutOfRange { part, leaf })
}

impl<S: Int, D: Int> LayoutShape<D> for S {
    const STATIC_EXTENTS_POSITIVE: bool = match S::STATIC {
        Some(v) => v > 0,
        None => true,
    };
    const STATIC_SPAN: Option<isize> = span_leaf(S::STATIC, D::STATIC);
    const FLAT: FlatPairs = FlatPairs::one(S::STATIC, D::STATIC);
    #[inline(always)]
    fn offset_of_index(&self, d: &D, idx: isize) -> isize {
        idx.wrapping_mul(d.value())
    }
    #[inline]
    fn check(&self, d: &D, acc: &mut Check) -> Result<(), LayoutError> {
        let leaf = acc.leaf;
        let s = leaf_value(Leaf { value: self.try_value(), is_static: false }, "shape", leaf)?;
        let dv = leaf_value(Leaf { value: d.try_value(), is_static: false }, "stride", leaf)?;
        if s <= 0 {
            return Err(LayoutError::NonPositiveExtent { leaf, value: s });
        }
        acc.size = acc.size.checked_mul(s).ok_or(LayoutError::SizeOverflow)?;
        let step = (s - 1).checked_mul(dv.checked_abs().ok_or(LayoutError::CosizeOverflow)?);
        acc.span = step.and_then(|x| acc.span.checked_add(x)).ok_or(LayoutError::CosizeOverflow)?;
        acc.leaf += 1;
        Ok(())
    }
    #[inline(always)]
    fn span(&self, d: &D) -> isize {
        (self.value() - 1).wrapping_mul(d.value().wrapping_abs())
    }
    type HierCoord<I: Int> =
        <Kind3<I::Kind, S::Kind, D::Kind> as Kind>::Select<StaticHierCoord<I, S, D>, isize>;
    #[inline(always)]
    fn hier_coord<I: Int>(&self, d: &D, idx: I) -> Self::HierCoord<I> {
        Int::from_value(hier_leaf(idx.value(), self.value(), d.value()))
    }
    #[inline(always)]
    fn one_d_coord(&self, d: &D, idx: isize, weight: &mut isize) -> isize {
        let c = hier_leaf(idx, self.value(), d.value()).wrapping_mul(*weight);
        *weight = weight.wrapping_mul(self.value());
        c
    }
    type FlatCoord = isize;
    #[inline(always)]
    fn flat_coord(&self, d: &D, idx: isize) -> isize {
        hier_leaf(idx, self.value(), d.value())
    }
}

impl LayoutShape<()> for () {
    const STATIC_EXTENTS_POSITIVE: bool = true;
    const STATIC_SPAN: Option<isize> = Some(0);
    const FLAT: FlatPairs = FlatPairs::EMPTY;
    #[inline]
    fn check(&self, _: &(), _: &mut Check) -> Result<(), LayoutError> {
        Ok(())
    }
    fn offset_of_index(&self, _: &(), _: isize) -> isize {
        0
    }
    fn span(&self, _: &()) -> isize {
        0
    }
    type HierCoord<I: Int> = ();
    fn hier_coord<I: Int>(&self, _: &(), _: I) {}
    fn one_d_coord(&self, _: &(), _: isize, _: &mut isize) -> isize {
        0
    }
    type FlatCoord = ();
    fn flat_coord(&self, _: &(), _: isize) {}
}

macro_rules! impl_layout_shape {
    (@go $([$i:tt $A:ident $B:ident $C:ident [$($before:tt)*] [$($after:tt)*]])+) => {
        impl<$($A: LayoutShape<$B>, $B: IntTuple),+> LayoutShape<($($B,)+)> for ($($A,)+) {
            const FLAT: FlatPairs = FlatPairs::EMPTY $(.concat($A::FLAT))+;
            #[inline(always)]
            #[allow(unused_assignments)] // the last mode's quotient is not needed
            fn offset_of_index(&self, d: &($($B,)+), idx: isize) -> isize {
                let mut rest = idx;
                let mut off: isize = 0;
                $(
                    let (r, q) = self.$i.size().split_index(rest);
                    let c = if is_last!([$($after)*]) { rest } else { r };
                    rest = q;
                    off = off.wrapping_add(self.$i.offset_of_index(&d.$i, c));
                )+
                off
            }
            const STATIC_EXTENTS_POSITIVE: bool = true $(&& $A::STATIC_EXTENTS_POSITIVE)+;
            const STATIC_SPAN: Option<isize> = {
                let s = Some(0);
                $(let s = add_static(s, $A::STATIC_SPAN);)+
                s
            };
            #[inline]
            fn check(&self, d: &($($B,)+), acc: &mut Check) -> Result<(), LayoutError> {
                $(self.$i.check(&d.$i, acc)?;)+
                Ok(())
            }
            #[inline(always)]
            fn span(&self, d: &($($B,)+)) -> isize {
                0isize $(.wrapping_add(self.$i.span(&d.$i)))+
            }
            type HierCoord<I: Int> = ($($A::HierCoord<I>,)+);
            #[inline(always)]
            fn hier_coord<I: Int>(&self, d: &($($B,)+), idx: I) -> Self::HierCoord<I> {
                ($(self.$i.hier_coord(&d.$i, idx),)+)
            }
            #[inline(always)]
            fn one_d_coord(&self, d: &($($B,)+), idx: isize, weight: &mut isize) -> isize {
                0isize $(.wrapping_add(self.$i.one_d_coord(&d.$i, idx, weight)))+
            }
            // CuTe's target profile is `repeat<rank>(_1)`, an integer for rank 1.
            type FlatCoord = flat_coord!(@type $($A)+);
            #[inline(always)]
            fn flat_coord(&self, d: &($($B,)+), idx: isize) -> Self::FlatCoord {
                flat_coord!(@value self d idx $($i)+)
            }
        }
    };
    ($($pos:tt)+) => {
        with_context!(impl_layout_shape [@go]; $($pos)+);
    };
}
/// Whether a position is the last of its tuple.
macro_rules! is_last {
    ([]) => {
        true
    };
    ([$($after:tt)+]) => {
        false
    };
}
pub(crate) use is_last;

macro_rules! flat_coord {
    (@type $A:ident) => { isize };
    (@type $($A:ident)+) => { ($(flat_coord!(@one $A),)+) };
    (@one $A:ident) => { isize };
    (@value $s:ident $d:ident $idx:ident $i:tt) => { $s.$i.one_d_coord(&$d.$i, $idx, &mut 1) };
    (@value $s:ident $d:ident $idx:ident $($i:tt)+) => { ($($s.$i.one_d_coord(&$d.$i, $idx, &mut 1),)+) };
}
for_tuples!(impl_layout_shape);

/// The scalar-stride rule (DECISIONS.md, decision 1): a stride integer `d` against a tuple mode
/// stands for that mode's compact column-major strides starting at `d`, so `(8,(4,2)):(1,8)` is
/// `(8,(4,2)):(1,(8,32))`. Implemented for a stride `Self` against a shape `S` where the expansion is
/// defined; a tuple stride against an integer shape, or tuples of different ranks, have no impl.
///
/// ```
/// use const_layout::layout::ExpandStride;
/// use const_layout::int_tuple::IntTuple;
/// use const_layout::C;
/// let d = (C::<1>, C::<8>).expand(&(C::<8>, (C::<4>, C::<2>)));
/// assert_eq!(d.display().to_string(), "(_1,(_8,_32))");
/// ```
#[diagnostic::on_unimplemented(
    message = "the stride `{Self}` does not fit the shape `{S}`",
    label = "a tuple stride needs a tuple shape of the same rank",
    note = "a scalar stride may stand against a tuple mode (it is expanded column-major), but not the reverse"
)]
pub trait ExpandStride<S: IntTuple>: IntTuple {
    /// The expanded stride, congruent with `S`.
    type Output: IntTuple;
    /// Expand (wrapping on overflow; see [`ExpandStride::check_expand`]).
    fn expand(&self, s: &S) -> Self::Output;
    /// Check that the expansion does not overflow, given that the shape's size does not.
    fn check_expand(&self, s: &S, leaf: &mut usize) -> Result<(), LayoutError>;
}

// One impl for every stride, dispatching on the forms of stride and shape, so that a mismatch is
// reported by its diagnostic (see `Crd2Idx` for the reason).
impl<D: IntTuple, S: IntTuple> ExpandStride<S> for D
where
    (D::Form, S::Form): StrideDispatch<D, S>,
{
    type Output = <(D::Form, S::Form) as StrideDispatch<D, S>>::Output;
    #[inline(always)]
    fn expand(&self, s: &S) -> Self::Output {
        <(D::Form, S::Form)>::expand(self, s)
    }
    #[inline]
    fn check_expand(&self, s: &S, leaf: &mut usize) -> Result<(), LayoutError> {
        <(D::Form, S::Form)>::check_expand(self, s, leaf)
    }
}

/// [`ExpandStride`] for a pair of forms `(stride form, shape form)`.
///
/// Dispatch-only: users name [`ExpandStride`]; this trait is visible in the docs because a compile
/// error's notes name it (DECISIONS.md, decision 16).
#[diagnostic::on_unimplemented(message = "the stride `{D}` does not fit the shape `{S}`")]
pub trait StrideDispatch<D, S> {
    /// The expanded stride.
    type Output: IntTuple;
    /// See [`ExpandStride::expand`].
    fn expand(d: &D, s: &S) -> Self::Output;
    /// See [`ExpandStride::check_expand`].
    fn check_expand(d: &D, s: &S, leaf: &mut usize) -> Result<(), LayoutError>;
}

impl<D: Int, S: Int> StrideDispatch<D, S> for (IsInt, IsInt) {
    type Output = D;
    #[inline(always)]
    fn expand(d: &D, _: &S) -> D {
        *d
    }
    #[inline]
    fn check_expand(_: &D, _: &S, leaf: &mut usize) -> Result<(), LayoutError> {
        *leaf += 1;
        Ok(())
    }
}

impl StrideDispatch<(), ()> for (IsTuple, IsTuple) {
    type Output = ();
    fn expand(_: &(), _: &()) {}
    #[inline]
    fn check_expand(_: &(), _: &(), _: &mut usize) -> Result<(), LayoutError> {
        Ok(())
    }
}

impl<D: Int> StrideDispatch<D, ()> for (IsInt, IsTuple) {
    type Output = ();
    fn expand(_: &D, _: &()) {}
    #[inline]
    fn check_expand(_: &D, _: &(), _: &mut usize) -> Result<(), LayoutError> {
        Ok(())
    }
}

// A tuple stride against an integer extent.
// The diagnostic impls give the shape itself as the "expanded stride" (it is congruent with the
// shape), so that the one error is not followed by others about the stride's type.
impl<D, S: IntTuple> StrideDispatch<D, S> for (IsTuple, IsInt)
where
    (): StrideDeeper<D, S>,
{
    type Output = S;
    fn expand(_: &D, s: &S) -> S {
        *s
    }
    #[inline]
    fn check_expand(_: &D, _: &S, _: &mut usize) -> Result<(), LayoutError> {
        Ok(())
    }
}

/// Checked column-major expansion of `d` against the integers of `s`: every stride must fit in
/// `isize`, and in the integer type the expansion gives it (`expanded`, computed with wrapping), so
/// that `(2u32, 2u32):i32` with a large `i32` stride is an error instead of a wrapped stride.
#[inline]
fn check_scalar_expansion<S: IntTuple, E: IntTuple>(
    d: isize,
    s: &S,
    expanded: &E,
    leaf: &mut usize,
) -> Result<(), LayoutError> {
    let mut running: Option<isize> = Some(1);
    let mut result = Ok(());
    let mut k = 0usize;
    s.for_each_leaf(&mut |l: Leaf| {
        if result.is_err() {
            return;
        }
        let stepped = !(l.is_static && l.value == Some(1));
        let want = if stepped { running.and_then(|p| p.checked_mul(d)) } else { Some(0) };
        result = match want {
            None => Err(LayoutError::StrideOverflow { leaf: *leaf }),
            Some(v) if nth_leaf(expanded, k) != Some(v) => {
                Err(LayoutError::TypeTooSmall { what: "stride", value: v })
            }
            Some(_) => Ok(()),
        };
        running = match (running, l.value) {
            (Some(p), Some(v)) => p.checked_mul(v),
            _ => None,
        };
        *leaf += 1;
        k += 1;
    });
    result
}

/// The value of integer `k` (left to right) of `t`.
fn nth_leaf<T: IntTuple>(t: &T, k: usize) -> Option<isize> {
    let (mut i, mut found) = (0usize, None);
    t.for_each_leaf(&mut |l: Leaf| {
        if i == k {
            found = l.value;
        }
        i += 1;
    });
    found
}

macro_rules! impl_expand {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        // The scalar-stride rule.
        impl<X: Int, $($A: IntTuple),+> StrideDispatch<X, ($($A,)+)> for (IsInt, IsTuple)
        where
            ($($A,)+): CompactLeft<CuteCompact, X>,
        {
            type Output = <($($A,)+) as CompactLeft<CuteCompact, X>>::Output;
            #[inline(always)]
            fn expand(d: &X, s: &($($A,)+)) -> Self::Output {
                s.compact_left(*d).0
            }
            #[inline]
            fn check_expand(d: &X, s: &($($A,)+), leaf: &mut usize) -> Result<(), LayoutError> {
                check_scalar_expansion(d.value(), s, &s.compact_left(*d).0, leaf)
            }
        }

        // Tuple against tuple of the same rank: mode by mode.
        impl<$($A: IntTuple, $B: ExpandStride<$A>),+> StrideDispatch<($($B,)+), ($($A,)+)> for (IsTuple, IsTuple) {
            type Output = ($($B::Output,)+);
            #[inline(always)]
            fn expand(d: &($($B,)+), s: &($($A,)+)) -> Self::Output {
                ($(d.$i.expand(&s.$i),)+)
            }
            #[inline]
            fn check_expand(d: &($($B,)+), s: &($($A,)+), leaf: &mut usize) -> Result<(), LayoutError> {
                $(d.$i.check_expand(&s.$i, leaf)?;)+
                Ok(())
            }
        }
    };
}
for_tuples!(impl_expand);

// Tuple against tuple of another rank.
macro_rules! impl_stride_rank {
    ([$([$i:tt $A:ident $B:ident $C:ident])+] [$([$j:tt $P:ident $Q:ident $R:ident])+]) => {
        impl<$($B,)+ $($P: IntTuple),+> StrideDispatch<($($B,)+), ($($P,)+)> for (IsTuple, IsTuple)
        where
            (): StrideRank<($($B,)+), ($($P,)+), { crate::arity::count!($($i)+) }, { crate::arity::count!($($j)+) }>,
        {
            type Output = ($($P,)+);
            fn expand(_: &($($B,)+), s: &($($P,)+)) -> Self::Output {
                *s
            }
            #[inline]
            fn check_expand(_: &($($B,)+), _: &($($P,)+), _: &mut usize) -> Result<(), LayoutError> {
                Ok(())
            }
        }
    };
}
crate::arity::for_unequal_tuple_pairs!(impl_stride_rank);
