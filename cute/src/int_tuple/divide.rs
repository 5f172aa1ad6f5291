//! CuTe's `shape_div` and `ceil_div` on int tuples.
//!
//! Both divide an int tuple `a` by `b` mode by mode:
//! - tuple / tuple: mode-wise (for `ceil_div`, missing modes of `b` count as 1);
//! - tuple / integer: `b` is consumed left to right, each mode of `a` divided by what is left of it
//!   (`shape_div((6,2,4), 12)` is `(1,1,4)`: 12 eats the 6 and the 2);
//! - integer / tuple: divide by the tuple's size;
//! - integer / integer: `(a + b - 1) / b`. `shape_div` of two static integers also requires one to
//!   divide the other, a compile-time error otherwise (CuTe's "Divisibility Condition").

use super::IntTuple;
use crate::arity::{a_types, for_tuples, with_context};
use crate::int::{CeilDivOut, Int, ShapeDivOut, ceil_div_int, shape_div_int};

/// CuTe's `shape_div(a, b)`, implemented for `a: Self`, `b: B`. See [`int_tuple`](crate::int_tuple).
///
/// ```
/// use const_layout::int_tuple::{eq, shape_div};
/// use const_layout::C;
/// assert_eq!(shape_div(&(6usize, 2usize, 4usize), &12usize), (1usize, 1usize, 4usize));
/// assert!(eq(&shape_div(&(C::<8>, 6usize), &(C::<2>, 3usize)), &(C::<4>, 2usize)));
/// assert_eq!(shape_div(&24usize, &(2usize, 3usize)), 4usize);
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot `shape_div` `{Self}` by `{B}`",
    label = "the two int tuples have different ranks, or a tuple is divided into an integer's place",
    note = "tuple / tuple needs equal ranks; tuple / integer, integer / tuple and integer / integer always work"
)]
pub trait ShapeDiv<B: IntTuple>: IntTuple {
    /// The quotient, congruent with `Self`.
    type Output: IntTuple;
    /// See [`shape_div`].
    fn shape_div(&self, b: &B) -> Self::Output;
}

/// CuTe's `ceil_div(a, b)`, implemented for `a: Self`, `b: B`. See [`int_tuple`](crate::int_tuple).
///
/// ```
/// use const_layout::int_tuple::{ceil_div, eq};
/// use const_layout::C;
/// assert_eq!(ceil_div(&(6usize, 5usize), &4usize), (2usize, 5usize));
/// assert!(eq(&ceil_div(&(C::<7>, C::<9>), &(C::<2>,)), &(C::<4>, C::<9>)));
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot `ceil_div` `{Self}` by `{B}`",
    label = "the divisor tuple has more modes than the dividend, or a tuple is divided into an integer's place",
    note = "tuple / tuple needs rank(b) <= rank(a); tuple / integer, integer / tuple and integer / integer always work"
)]
pub trait CeilDiv<B: IntTuple>: IntTuple {
    /// The quotient, congruent with `Self`.
    type Output: IntTuple;
    /// See [`ceil_div`].
    fn ceil_div(&self, b: &B) -> Self::Output;
}

/// Free-function form of [`ShapeDiv`].
///
/// ```
/// use const_layout::int_tuple::shape_div;
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(shape_div(&C::<2>, &C::<8>).value(), 1); // 8 is divisible by 2: rounds up to 1
/// ```
#[inline(always)]
pub fn shape_div<A: ShapeDiv<B>, B: IntTuple>(a: &A, b: &B) -> A::Output {
    a.shape_div(b)
}

/// Free-function form of [`CeilDiv`].
///
/// ```
/// use const_layout::int_tuple::ceil_div;
/// assert_eq!(ceil_div(&10usize, &(2usize, 2usize)), 3usize);
/// ```
#[inline(always)]
pub fn ceil_div<A: CeilDiv<B>, B: IntTuple>(a: &A, b: &B) -> A::Output {
    a.ceil_div(b)
}

// integer / integer
impl<A: Int, B: Int> ShapeDiv<B> for A {
    type Output = ShapeDivOut<A, B>;
    #[inline(always)]
    fn shape_div(&self, b: &B) -> Self::Output {
        shape_div_int(*self, *b)
    }
}
impl<A: Int, B: Int> CeilDiv<B> for A {
    type Output = CeilDivOut<A, B>;
    #[inline(always)]
    fn ceil_div(&self, b: &B) -> Self::Output {
        ceil_div_int(*self, *b)
    }
}

// integer / () and () / integer, () / ()
impl<A: Int> ShapeDiv<()> for A {
    type Output = ShapeDivOut<A, crate::C<1>>;
    #[inline(always)]
    fn shape_div(&self, _: &()) -> Self::Output {
        shape_div_int(*self, crate::C::<1>)
    }
}
impl<A: Int> CeilDiv<()> for A {
    type Output = CeilDivOut<A, crate::C<1>>;
    #[inline(always)]
    fn ceil_div(&self, _: &()) -> Self::Output {
        ceil_div_int(*self, crate::C::<1>)
    }
}
impl<B: Int> ShapeDiv<B> for () {
    type Output = ();
    #[inline(always)]
    fn shape_div(&self, _: &B) {}
}
impl<B: Int> CeilDiv<B> for () {
    type Output = ();
    #[inline(always)]
    fn ceil_div(&self, _: &B) {}
}
impl ShapeDiv<()> for () {
    type Output = ();
    #[inline(always)]
    fn shape_div(&self, _: &()) {}
}
impl CeilDiv<()> for () {
    type Output = ();
    #[inline(always)]
    fn ceil_div(&self, _: &()) {}
}

macro_rules! impl_divide {
    (@go $Trait:ident $method:ident $([$i:tt $A:ident $B:ident $C:ident [$($before:tt)*] [$($after:tt)*]])+) => {
        // integer / tuple: divide by the tuple's size.
        impl<X: Int, $($B: IntTuple),+> $Trait<($($B,)+)> for X
        where
            X: $Trait<<($($B,)+) as IntTuple>::Size>,
        {
            type Output = <X as $Trait<<($($B,)+) as IntTuple>::Size>>::Output;
            #[inline(always)]
            fn $method(&self, b: &($($B,)+)) -> Self::Output {
                self.$method(&b.size())
            }
        }

        // tuple / integer: `b` is consumed left to right; what reaches mode k is, in closed form,
        // `ceil_div(b, size of modes 0..k)` (nested ceiling divisions compose).
        impl<X: Int, $($A: IntTuple),+> $Trait<X> for ($($A,)+)
        where
            $($A: $Trait<CeilDivOut<X, <a_types!($($before)*) as IntTuple>::Size>>,)+
        {
            type Output = ($(<$A as $Trait<CeilDivOut<X, <a_types!($($before)*) as IntTuple>::Size>>>::Output,)+);
            #[inline(always)]
            #[allow(unused_assignments)] // the last mode's remainder is not needed
            fn $method(&self, b: &X) -> Self::Output {
                let mut rest = b.value();
                ($({
                    let r = self.$i.$method(&Int::from_value(rest));
                    rest = ceil_div_int(rest, self.$i.size().value());
                    r
                },)+)
            }
        }

        // tuple / tuple of the same rank: mode by mode.
        impl<$($A: $Trait<$B>, $B: IntTuple),+> $Trait<($($B,)+)> for ($($A,)+) {
            type Output = ($($A::Output,)+);
            #[inline(always)]
            fn $method(&self, b: &($($B,)+)) -> Self::Output {
                ($(self.$i.$method(&b.$i),)+)
            }
        }
    };
    // ceil_div only: a divisor tuple with fewer modes leaves the remaining modes as they are. One impl
    // per divisor rank k < n: the k modes before position k are divided, the others kept.
    (@short $($entry:tt)+) => {
        $(impl_divide!(@short_one $entry);)+
    };
    (@short_one [$k:tt $Ak:ident $Bk:ident $Ck:ident
        [$([$j:tt $Aj:ident $Bj:ident $Cj:ident])*] [$([$l:tt $Al:ident $Bl:ident $Cl:ident])*]]) => {
        impl<$($Aj: CeilDiv<$Bj>, $Bj: IntTuple,)* $Ak: IntTuple, $($Al: IntTuple),*> CeilDiv<($($Bj,)*)>
            for ($($Aj,)* $Ak, $($Al,)*)
        {
            type Output = ($($Aj::Output,)* $Ak, $($Al,)*);
            #[inline(always)]
            fn ceil_div(&self, b: &($($Bj,)*)) -> Self::Output {
                let _ = b;
                ($(self.$j.ceil_div(&b.$j),)* self.$k, $(self.$l,)*)
            }
        }
    };
    ($($pos:tt)+) => {
        with_context!(impl_divide [@go ShapeDiv shape_div]; $($pos)+);
        with_context!(impl_divide [@go CeilDiv ceil_div]; $($pos)+);
        with_context!(impl_divide [@short]; $($pos)+);
    };
}
for_tuples!(impl_divide);
