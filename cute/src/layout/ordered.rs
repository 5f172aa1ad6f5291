//! CuTe's `make_ordered_layout(shape, order)`: a compact layout whose modes are laid out from the
//! smallest order value (fastest) to the largest.
//!
//! The strides depend on the order's *values*, which the type system cannot compute with on stable
//! Rust; so each stride integer is a type that names its position (a [`Path`]) and, when shape and
//! order are static, computes its value at compile time from the whole shape and order.

use super::{Layout, LayoutShape};
use crate::arity::for_tuples;
use crate::dyn_layout::{DynIntTuple, ops};
use crate::error::LayoutError;
use crate::int::{Int, Kind};
use crate::int_tuple::{IntTuple, Profile};
use core::marker::PhantomData;

/// The deepest nesting a [`Path`] records.
pub const MAX_PATH: usize = 8;

/// A position in an int tuple, as a type: the mode indices from the root.
///
/// ```
/// use const_layout::layout::{Down, Path, Root};
/// type P = Down<Down<Root, 1>, 0>;
/// assert_eq!((P::LEN, P::IDX[0], P::IDX[1]), (2, 1, 0));
/// ```
#[doc(hidden)]
pub trait Path: 'static {
    /// Number of indices.
    const LEN: usize;
    /// The indices, `IDX[..LEN]`.
    const IDX: [usize; MAX_PATH];
}

/// The root position.
pub struct Root;

/// Mode `I` of the position `P`.
pub struct Down<P, const I: usize>(PhantomData<P>);

impl Path for Root {
    const LEN: usize = 0;
    const IDX: [usize; MAX_PATH] = [0; MAX_PATH];
}

impl<P: Path, const I: usize> Path for Down<P, I> {
    const LEN: usize = {
        assert!(P::LEN < MAX_PATH, "int tuples nested deeper than 8 levels have no static ordered strides");
        P::LEN + 1
    };
    const IDX: [usize; MAX_PATH] = {
        let mut a = P::IDX;
        a[P::LEN] = I;
        a
    };
}

crate::int::static_int_type! {
/// The static stride `make_ordered_layout(S, O)` gives the integer of `S` at position `P`.
///
/// ```
/// use const_layout::layout::{Down, Root, StaticOrderedStride};
/// use const_layout::int::Int;
/// use const_layout::C;
/// type S = (C<4>, C<8>, C<2>);
/// type O = (C<2>, C<0>, C<1>);
/// assert_eq!(<StaticOrderedStride<S, O, Down<Root, 0>> as Int>::STATIC, Some(16));
/// ```
    pub struct StaticOrderedStride<S, O, P> where [S: IntTuple, O: IntTuple, P: Path] = {
        assert!(S::IS_STATIC && O::IS_STATIC, "StaticOrderedStride needs a static shape and order");
        DynIntTuple::ordered_stride_at(&S::TREE, &O::TREE, &P::IDX, P::LEN)
    };
}

/// The stride `make_ordered_layout(S, O)` gives the sub-tuple `Self` of `S` at position `P`:
/// static where `S` and `O` are, else of the shape's runtime integer type.
#[diagnostic::on_unimplemented(message = "`{Self}` is not a part of an ordered shape")]
pub trait OrderedStride<S: IntTuple, O: IntTuple, P: Path>: IntTuple {
    /// The stride, congruent with `Self`.
    type Output: IntTuple;
    /// Build it from the stride values in leaf order (used for the runtime values).
    fn fill(values: &mut dyn Iterator<Item = isize>) -> Self::Output;
}

/// Static when shape and order are static.
type OrderKind<S, O> = <<S as IntTuple>::Kind as Kind>::And<<O as IntTuple>::Kind>;

impl<T: Int, S: IntTuple, O: IntTuple, P: Path> OrderedStride<S, O, P> for T {
    type Output = <OrderKind<S, O> as Kind>::Select<StaticOrderedStride<S, O, P>, S::Rt>;
    fn fill(values: &mut dyn Iterator<Item = isize>) -> Self::Output {
        Int::from_value(values.next().unwrap_or(0))
    }
}

impl<S: IntTuple, O: IntTuple, P: Path> OrderedStride<S, O, P> for () {
    type Output = ();
    fn fill(_: &mut dyn Iterator<Item = isize>) {}
}

macro_rules! impl_ordered {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<S: IntTuple, O: IntTuple, P: Path, $($A: OrderedStride<S, O, Down<P, $i>>),+> OrderedStride<S, O, P>
            for ($($A,)+)
        {
            type Output = ($(<$A as OrderedStride<S, O, Down<P, $i>>>::Output,)+);
            fn fill(values: &mut dyn Iterator<Item = isize>) -> Self::Output {
                ($($A::fill(values),)+)
            }
        }
    };
}
for_tuples!(impl_ordered);

/// The stride type of [`make_ordered_layout`]`(shape: S, order: O)`.
pub type OrderedStrideOf<S, O> = <S as OrderedStride<S, O, Root>>::Output;

/// CuTe's `make_ordered_layout(shape, order)`: the compact layout in which the integers (or
/// sub-tuples) of `shape` with smaller `order` values are faster. `order` is weakly congruent with
/// `shape`: an order value standing against a sub-tuple orders it as a whole (column-major inside).
///
/// Static shape and order give a static, zero-sized layout; runtime integers are checked as by
/// [`make_layout`](crate::make_layout).
///
/// ```
/// use const_layout::{make_ordered_layout, C};
/// let l = make_ordered_layout((C::<4>, C::<8>, C::<2>), (C::<2>, C::<0>, C::<1>)).unwrap();
/// assert_eq!(l.to_string(), "(_4,_8,_2):(_16,_1,_8)");
/// assert_eq!(core::mem::size_of_val(&l), 0);
/// let r = make_ordered_layout((4usize, (3usize, 2usize)), (C::<1>, C::<0>)).unwrap();
/// assert_eq!(r.to_string(), "(4,(3,2)):(6,(1,3))");
/// ```
pub fn make_ordered_layout<S, O>(shape: S, order: O) -> Result<Layout<S, OrderedStrideOf<S, O>>, LayoutError>
where
    S: IntTuple + OrderedStride<S, O, Root> + LayoutShape<OrderedStrideOf<S, O>>,
    O: IntTuple + Profile<S>,
{
    let () = const { assert!(O::WEAKLY_CONGRUENT, "the order must be weakly congruent with the shape") };
    let () = Layout::<S, OrderedStrideOf<S, O>>::STATIC_CHECK;
    super::check_shape(&shape)?;
    let strides = ops::compact_order(&shape.to_dyn()?, &order.to_dyn()?)?;
    let stride = S::fill(&mut strides.leaves().map(|v| v.value));
    Layout::try_new(shape, stride)
}
