//! Index math: CuTe's `crd2idx` (coordinate to offset) and `idx2crd` (index to coordinate).
//!
//! A coordinate into a shape may be, as in CuTe:
//! - an integer index, split colexicographically (first mode fastest) across the modes, the last mode
//!   taking whatever remains;
//! - a flat coordinate, one integer per top-level mode (each split within its mode);
//! - a hierarchical coordinate congruent with the shape;
//! - any mix: at every level, a tuple matches the modes and an integer is split.
//!
//! Both directions are trait impls over the coordinate's and the shape's types, so a coordinate of
//! the wrong rank does not compile, and static parts fold: with a static layout, `crd2idx` of a
//! runtime coordinate is straight-line integer code.

use super::shape_stride::{LayoutShape, add_static, is_last};
use crate::arity::{a_types, for_tuples, with_context};
use crate::diagnostics::{CoordinateDeeper, CoordinateRank};
use crate::int::{DivOut, Int, Kind, RemOut};
use crate::int_tuple::{IntTuple, IsInt, IsTuple};

/// A coordinate `Self` into shape `S` with stride `D`: CuTe's `crd2idx(coord, shape, stride)`.
///
/// Implemented for an integer against any shape, and for a tuple against a tuple shape of the same
/// rank whose modes accept its elements.
///
/// ```
/// use const_layout::layout::Crd2Idx;
/// use const_layout::C;
/// let (s, d) = ((4usize, (2usize, 3usize)), (3isize, (1isize, 8isize)));
/// assert_eq!((1usize, (1usize, 2usize)).offset(&s, &d), 3 + 1 + 16);
/// assert_eq!((1usize, 5usize).offset(&s, &d), 3 + 1 + 16);
/// assert_eq!(21usize.offset(&s, &d), 3 + 1 + 16);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a coordinate into the shape `{S}`",
    label = "this coordinate does not match the shape's modes",
    note = "a coordinate is an integer (split across the modes) or a tuple of coordinates with one element per mode"
)]
pub trait Crd2Idx<S: IntTuple, D: IntTuple>: IntTuple {
    /// The offset, if coordinate, shape and stride are static.
    const STATIC_OFFSET: Option<isize>;
    /// The offset, computed at run time (wrapping on overflow, which a valid layout and an
    /// in-range coordinate cannot reach).
    fn offset(&self, s: &S, d: &D) -> isize;
}

/// The type of [`crd2idx`]: [`StaticOffset`] if coordinate, shape and stride are all static,
/// otherwise `isize`.
pub type OffsetOut<Crd, S, D> = <<<<Crd as IntTuple>::Kind as Kind>::And<<S as IntTuple>::Kind> as Kind>::And<
    <D as IntTuple>::Kind,
> as Kind>::Select<StaticOffset<Crd, S, D>, isize>;

/// CuTe's `crd2idx(coord, shape, stride)`: the offset of a coordinate. Static if all three are.
///
/// ```
/// use const_layout::layout::crd2idx;
/// use const_layout::int::Int;
/// use const_layout::C;
/// let s = (C::<4>, (C::<2>, C::<3>));
/// let d = (C::<3>, (C::<1>, C::<8>));
/// assert_eq!(crd2idx((1usize, (1usize, 2usize)), &s, &d), 20);
/// let st = crd2idx((C::<1>, (C::<1>, C::<2>)), &s, &d); // static in, static out
/// assert_eq!((st.value(), core::mem::size_of_val(&st)), (20, 0));
/// ```
#[inline(always)]
pub fn crd2idx<Crd: Crd2Idx<S, D>, S: IntTuple, D: IntTuple>(
    coord: Crd,
    shape: &S,
    stride: &D,
) -> OffsetOut<Crd, S, D> {
    Int::from_value(coord.offset(shape, stride))
}

crate::int::static_int_type! {
/// The static offset of a static coordinate in a static layout; see [`crd2idx`].
///
/// ```
/// use const_layout::layout::StaticOffset;
/// use const_layout::int::Int;
/// use const_layout::C;
/// type O = StaticOffset<C<13>, (C<4>, (C<2>, C<3>)), (C<3>, (C<1>, C<8>))>;
/// assert_eq!(<O as Int>::STATIC, Some(3 + 1 + 8));
/// ```
    pub struct StaticOffset<Crd, S, D> where [Crd: Crd2Idx<S, D>, S: IntTuple, D: IntTuple] = match Crd::STATIC_OFFSET {
        Some(v) => v,
        None => panic!("StaticOffset of a coordinate or layout with runtime integers"),
    };
}

// One impl for every coordinate: what it means depends on the forms (integer or tuple) of the
// coordinate and of the shape. A single blanket impl, dispatching on those forms, means that for any
// coordinate exactly one chain of impls applies, so a mismatch is reported by the diagnostic trait
// at its end (with the ranks) rather than as "no impl".
impl<Crd: IntTuple, S: IntTuple, D: IntTuple> Crd2Idx<S, D> for Crd
where
    (Crd::Form, S::Form): CoordDispatch<Crd, S, D>,
{
    const STATIC_OFFSET: Option<isize> = <(Crd::Form, S::Form) as CoordDispatch<Crd, S, D>>::STATIC_OFFSET;
    #[inline(always)]
    fn offset(&self, s: &S, d: &D) -> isize {
        <(Crd::Form, S::Form)>::offset(self, s, d)
    }
}

/// `crd2idx` for a pair of forms `(coordinate form, shape form)`; see [`Crd2Idx`].
///
/// Dispatch-only: users name [`Crd2Idx`]; this trait is visible in the docs because a compile
/// error's notes name it (DECISIONS.md, decision 16).
#[diagnostic::on_unimplemented(message = "`{Crd}` is not a coordinate into the shape `{S}`")]
pub trait CoordDispatch<Crd, S, D> {
    /// See [`Crd2Idx::STATIC_OFFSET`].
    const STATIC_OFFSET: Option<isize>;
    /// See [`Crd2Idx::offset`].
    fn offset(crd: &Crd, s: &S, d: &D) -> isize;
}

// An integer against any shape: split colexicographically (see `LayoutShape::offset_of_index`).
impl<I: Int, S: LayoutShape<D>, D: IntTuple, F> CoordDispatch<I, S, D> for (IsInt, F) {
    const STATIC_OFFSET: Option<isize> = match I::STATIC {
        Some(i) => S::FLAT.offset_of_index(i),
        None => None,
    };
    #[inline(always)]
    fn offset(crd: &I, s: &S, d: &D) -> isize {
        s.offset_of_index(d, crd.value())
    }
}

// A tuple against an integer mode: the coordinate is deeper than the shape.
impl<Crd, S, D> CoordDispatch<Crd, S, D> for (IsTuple, IsInt)
where
    (): CoordinateDeeper<Crd, S>,
{
    const STATIC_OFFSET: Option<isize> = None;
    fn offset(_: &Crd, _: &S, _: &D) -> isize {
        0
    }
}

// The rank-0 layout `():()` has the single offset 0.
impl CoordDispatch<(), (), ()> for (IsTuple, IsTuple) {
    const STATIC_OFFSET: Option<isize> = Some(0);
    #[inline(always)]
    fn offset(_: &(), _: &(), _: &()) -> isize {
        0
    }
}

/// The coordinate an integer index `I` gives mode `k` of a tuple shape: `(I / size(before)) %
/// size(mode)`, or for the last mode `I / size(before)` (it absorbs what is left). Written in closed
/// form per mode; see `arity::with_context`.
macro_rules! mode_idx {
    ($I:ty; [$($before:tt)*]; []; $A:ident) => {
        DivOut<$I, <a_types!($($before)*) as IntTuple>::Size>
    };
    ($I:ty; [$($before:tt)*]; [$($after:tt)+]; $A:ident) => {
        RemOut<DivOut<$I, <a_types!($($before)*) as IntTuple>::Size>, <$A as IntTuple>::Size>
    };
}

macro_rules! impl_index {
    (@go $([$i:tt $A:ident $B:ident $C:ident [$($before:tt)*] [$($after:tt)*]])+) => {
        // A tuple coordinate against a tuple shape of the same rank: mode by mode.
        impl<$($A: IntTuple, $B: IntTuple, $C: Crd2Idx<$A, $B>),+> CoordDispatch<($($C,)+), ($($A,)+), ($($B,)+)>
            for (IsTuple, IsTuple)
        {
            const STATIC_OFFSET: Option<isize> = {
                let o = Some(0);
                $(let o = add_static(o, $C::STATIC_OFFSET);)+
                o
            };
            #[inline(always)]
            fn offset(c: &($($C,)+), s: &($($A,)+), d: &($($B,)+)) -> isize {
                0isize $(.wrapping_add(c.$i.offset(&s.$i, &d.$i)))+
            }
        }

        // An integer index against a tuple shape: split across the modes.
        impl<I: Int, $($A: IntTuple),+> IndexDispatch<I, ($($A,)+)> for (IsInt, IsTuple)
        where
            $($A: Idx2Crd<mode_idx!(I; [$($before)*]; [$($after)*]; $A)>,)+
        {
            type Coord = ($(<$A as Idx2Crd<mode_idx!(I; [$($before)*]; [$($after)*]; $A)>>::Output,)+);
            #[inline(always)]
            #[allow(unused_assignments)] // the last mode's quotient is not needed
            fn idx2crd(idx: I, s: &($($A,)+)) -> Self::Coord {
                let mut rest = idx.value();
                ($({
                    let (r, q) = s.$i.size().split_index(rest);
                    let c = if is_last!([$($after)*]) { rest } else { r };
                    rest = q;
                    s.$i.idx2crd(Int::from_value(c))
                },)+)
            }
        }

        // A (partly hierarchical) tuple index against a tuple shape of the same rank: mode by mode.
        impl<$($A: IntTuple + Idx2Crd<$C>, $C: IntTuple),+> IndexDispatch<($($C,)+), ($($A,)+)> for (IsTuple, IsTuple) {
            type Coord = ($($A::Output,)+);
            #[inline(always)]
            fn idx2crd(idx: ($($C,)+), s: &($($A,)+)) -> Self::Coord {
                ($(s.$i.idx2crd(idx.$i),)+)
            }
        }
    };
    ($($pos:tt)+) => {
        with_context!(impl_index [@go]; $($pos)+);
    };
}

/// `idx2crd` for a pair of forms `(index form, shape form)`; see [`Idx2Crd`].
///
/// Dispatch-only: users name [`Idx2Crd`]; this trait is visible in the docs because a compile
/// error's notes name it (DECISIONS.md, decision 16).
#[diagnostic::on_unimplemented(message = "`{Idx}` is not an index into the shape `{S}`")]
pub trait IndexDispatch<Idx, S> {
    /// The coordinate.
    type Coord: IntTuple;
    /// See [`Idx2Crd::idx2crd`].
    fn idx2crd(idx: Idx, s: &S) -> Self::Coord;
}

// One impl for every shape, dispatching on the forms of index and shape (see `Crd2Idx`).
impl<S: IntTuple, Idx: IntTuple> Idx2Crd<Idx> for S
where
    (Idx::Form, S::Form): IndexDispatch<Idx, S>,
{
    type Output = <(Idx::Form, S::Form) as IndexDispatch<Idx, S>>::Coord;
    #[inline(always)]
    fn idx2crd(&self, idx: Idx) -> Self::Output {
        <(Idx::Form, S::Form)>::idx2crd(idx, self)
    }
}

// An integer against an integer mode: the coordinate is the index.
impl<I: Int, S: Int> IndexDispatch<I, S> for (IsInt, IsInt) {
    type Coord = I;
    #[inline(always)]
    fn idx2crd(idx: I, _: &S) -> I {
        idx
    }
}

// An integer against `()`.
impl<I: Int> IndexDispatch<I, ()> for (IsInt, IsTuple) {
    type Coord = ();
    #[inline(always)]
    fn idx2crd(_: I, _: &()) {}
}

// A tuple index against an integer mode: deeper than the shape.
impl<Idx, S> IndexDispatch<Idx, S> for (IsTuple, IsInt)
where
    (): CoordinateDeeper<Idx, S>,
{
    type Coord = ();
    fn idx2crd(_: Idx, _: &S) {}
}

/// CuTe's `idx2crd(idx, shape)`, implemented on the shape: the hierarchical coordinate of an index,
/// colexicographic (first mode fastest). The index may itself be partly hierarchical: a tuple
/// matches the shape's modes and an integer is split within its mode.
///
/// ```
/// use const_layout::layout::Idx2Crd;
/// assert_eq!((4usize, (2usize, 3usize)).idx2crd(13usize), (1usize, (1usize, 1usize)));
/// assert_eq!((3usize, (2usize, 3usize)).idx2crd((1usize, 5usize)), (1usize, (1usize, 2usize)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{I}` is not an index into the shape `{Self}`",
    label = "this index does not match the shape's modes",
    note = "an index is an integer (split across the modes) or a tuple with one element per mode"
)]
pub trait Idx2Crd<I: IntTuple>: IntTuple {
    /// The coordinate, congruent with the shape where the index is an integer.
    type Output: IntTuple;
    /// See [`Idx2Crd`].
    fn idx2crd(&self, idx: I) -> Self::Output;
}

for_tuples!(impl_index);

// Impls that can never apply, so that a mismatch is reported by rank instead of as "no impl".
macro_rules! impl_rank_mismatch {
    ([$([$i:tt $A:ident $B:ident $C:ident])+] [$([$j:tt $P:ident $Q:ident $R:ident])+]) => {
        // A coordinate tuple of one rank against a shape tuple of another.
        impl<$($C,)+ $($P, $Q),+> CoordDispatch<($($C,)+), ($($P,)+), ($($Q,)+)> for (IsTuple, IsTuple)
        where
            (): CoordinateRank<($($C,)+), ($($P,)+), { crate::arity::count!($($i)+) }, { crate::arity::count!($($j)+) }>,
        {
            const STATIC_OFFSET: Option<isize> = None;
            fn offset(_: &($($C,)+), _: &($($P,)+), _: &($($Q,)+)) -> isize {
                0
            }
        }
        impl<$($C,)+ $($P),+> IndexDispatch<($($C,)+), ($($P,)+)> for (IsTuple, IsTuple)
        where
            (): CoordinateRank<($($C,)+), ($($P,)+), { crate::arity::count!($($i)+) }, { crate::arity::count!($($j)+) }>,
        {
            type Coord = ();
            fn idx2crd(_: ($($C,)+), _: &($($P,)+)) {}
        }
    };
}
crate::arity::for_unequal_tuple_pairs!(impl_rank_mismatch);

/// CuTe's `idx2crd(idx, shape)`: see [`Idx2Crd`].
///
/// ```
/// use const_layout::layout::idx2crd;
/// use const_layout::int_tuple::IntTuple;
/// use const_layout::C;
/// assert_eq!(idx2crd(13usize, &(4usize, (2usize, 3usize))), (1usize, (1usize, 1usize)));
/// let c = idx2crd(C::<13>, &(C::<4>, (C::<2>, C::<3>)));
/// assert_eq!(c.display().to_string(), "(_1,(_1,_1))");
/// ```
#[inline(always)]
pub fn idx2crd<I: IntTuple, S: Idx2Crd<I>>(idx: I, shape: &S) -> S::Output {
    shape.idx2crd(idx)
}
