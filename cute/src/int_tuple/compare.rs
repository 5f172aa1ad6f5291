//! Comparing int tuples: CuTe's `congruent`, `weakly_congruent` and `compatible`, and equality.
//!
//! - `congruent(a, b)`: same nesting (profile), values ignored.
//! - `weakly_congruent(a, b)`: `a`'s nesting is a coarsening of `b`'s: where `a` has an integer, `b`
//!   may have any sub-tuple.
//! - `compatible(a, b)`: every coordinate of shape `a` is also a coordinate of shape `b`: same sizes,
//!   and where `a` has an integer, `b` has a sub-tuple of that size.
//!
//! The first two depend only on types, so they are also associated constants of [`Profile`].

use super::IntTuple;
use crate::arity::for_tuples;
use crate::int::{Int, int_eq};

/// Pairwise structural comparison of `Self` with `B`. Implemented for every pair of int tuples.
///
/// ```
/// use const_layout::int_tuple::Profile;
/// use const_layout::C;
/// assert!(<(usize, (usize, usize)) as Profile<(C<1>, (C<2>, C<3>))>>::CONGRUENT);
/// assert!(<(usize, usize) as Profile<(C<1>, (C<2>, C<3>))>>::WEAKLY_CONGRUENT);
/// assert!(!<(usize, usize) as Profile<(C<1>, (C<2>, C<3>))>>::CONGRUENT);
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` and `{B}` cannot be compared as int tuples")]
pub trait Profile<B: IntTuple>: IntTuple {
    /// CuTe's `congruent`: same nesting.
    const CONGRUENT: bool;
    /// CuTe's `weakly_congruent`: `Self`'s nesting coarsens `B`'s.
    const WEAKLY_CONGRUENT: bool;
    /// CuTe's `compatible`: see [`int_tuple`](crate::int_tuple).
    fn compatible(&self, b: &B) -> bool;
    /// Same nesting and the same value at every integer (static or not).
    fn eq(&self, b: &B) -> bool;
}

/// CuTe's `congruent(a, b)`: the same nesting, whatever the values.
///
/// ```
/// use const_layout::int_tuple::congruent;
/// use const_layout::C;
/// assert!(congruent(&(C::<8>, (4usize, C::<2>)), &(1usize, (8usize, 32usize))));
/// assert!(!congruent(&(C::<8>, (4usize, C::<2>)), &(1usize, 8usize)));
/// ```
#[inline(always)]
pub fn congruent<A: Profile<B>, B: IntTuple>(_: &A, _: &B) -> bool {
    A::CONGRUENT
}

/// CuTe's `weakly_congruent(a, b)`.
///
/// ```
/// use const_layout::int_tuple::weakly_congruent;
/// assert!(weakly_congruent(&(1usize, 8usize), &(1usize, (4usize, 2usize))));
/// assert!(!weakly_congruent(&(1usize, (4usize, 2usize)), &(1usize, 8usize)));
/// ```
#[inline(always)]
pub fn weakly_congruent<A: Profile<B>, B: IntTuple>(_: &A, _: &B) -> bool {
    A::WEAKLY_CONGRUENT
}

/// CuTe's `compatible(a, b)`: coordinates of shape `a` are coordinates of shape `b`.
///
/// ```
/// use const_layout::int_tuple::compatible;
/// use const_layout::C;
/// assert!(compatible(&(C::<8>, 8usize), &(C::<8>, (4usize, 2usize))));
/// assert!(!compatible(&(C::<8>, 6usize), &(C::<8>, (4usize, 2usize))));
/// assert!(compatible(&24usize, &(2usize, (3usize, 4usize))));
/// ```
#[inline(always)]
pub fn compatible<A: Profile<B>, B: IntTuple>(a: &A, b: &B) -> bool {
    a.compatible(b)
}

/// `congruent` on types, usable in `const` contexts.
///
/// ```
/// use const_layout::int_tuple::is_congruent;
/// use const_layout::C;
/// const OK: bool = is_congruent::<(C<1>, C<2>), (usize, usize)>();
/// assert!(OK);
/// ```
pub const fn is_congruent<A: Profile<B>, B: IntTuple>() -> bool {
    A::CONGRUENT
}

/// `weakly_congruent` on types, usable in `const` contexts.
///
/// ```
/// use const_layout::int_tuple::is_weakly_congruent;
/// assert!(is_weakly_congruent::<usize, (usize, usize)>());
/// ```
pub const fn is_weakly_congruent<A: Profile<B>, B: IntTuple>() -> bool {
    A::WEAKLY_CONGRUENT
}

/// Value equality of int tuples, static or not: the same nesting and the same integers.
///
/// Rust's `==` on tuples needs identical element types; this compares `C<4>` with `4usize` too.
///
/// ```
/// use const_layout::int_tuple::eq;
/// use const_layout::int::mul;
/// use const_layout::C;
/// assert!(eq(&(C::<4>, mul(C::<2>, C::<3>)), &(4usize, C::<6>)));
/// assert!(!eq(&(C::<4>, 6usize), &(C::<4>, (6usize,))));
/// ```
#[inline(always)]
pub fn eq<A: Profile<B>, B: IntTuple>(a: &A, b: &B) -> bool {
    a.eq(b)
}

impl<A: Int, B: Int> Profile<B> for A {
    const CONGRUENT: bool = true;
    const WEAKLY_CONGRUENT: bool = true;
    #[inline(always)]
    fn compatible(&self, b: &B) -> bool {
        int_eq(*self, *b)
    }
    #[inline(always)]
    fn eq(&self, b: &B) -> bool {
        int_eq(*self, *b)
    }
}

impl Profile<()> for () {
    const CONGRUENT: bool = true;
    const WEAKLY_CONGRUENT: bool = true;
    fn compatible(&self, _: &()) -> bool {
        true
    }
    fn eq(&self, _: &()) -> bool {
        true
    }
}

impl<A: Int> Profile<()> for A {
    const CONGRUENT: bool = false;
    const WEAKLY_CONGRUENT: bool = true;
    fn compatible(&self, _: &()) -> bool {
        int_eq(*self, crate::C::<1>)
    }
    fn eq(&self, _: &()) -> bool {
        false
    }
}

impl<B: Int> Profile<B> for () {
    const CONGRUENT: bool = false;
    const WEAKLY_CONGRUENT: bool = false;
    fn compatible(&self, _: &B) -> bool {
        false
    }
    fn eq(&self, _: &B) -> bool {
        false
    }
}

macro_rules! impl_profile {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])*) => {
        // integer / tuple: an integer stands for any sub-tuple of its size.
        impl<X: Int, $B0: IntTuple, $($B: IntTuple),*> Profile<($B0, $($B,)*)> for X {
            const CONGRUENT: bool = false;
            const WEAKLY_CONGRUENT: bool = true;
            fn compatible(&self, b: &($B0, $($B,)*)) -> bool {
                int_eq(*self, b.size())
            }
            fn eq(&self, _: &($B0, $($B,)*)) -> bool {
                false
            }
        }

        // () / tuple: ranks differ.
        impl<$B0: IntTuple, $($B: IntTuple),*> Profile<($B0, $($B,)*)> for () {
            const CONGRUENT: bool = false;
            const WEAKLY_CONGRUENT: bool = false;
            fn compatible(&self, _: &($B0, $($B,)*)) -> bool {
                false
            }
            fn eq(&self, _: &($B0, $($B,)*)) -> bool {
                false
            }
        }

        // tuple / anything: decided by the right-hand side (one impl, so that a generic right-hand
        // side does not overlap with the integer one).
        impl<$A0: IntTuple, $($A: IntTuple,)* R: TupleRhs<Self>> Profile<R> for ($A0, $($A,)*) {
            const CONGRUENT: bool = R::CONGRUENT;
            const WEAKLY_CONGRUENT: bool = R::WEAKLY_CONGRUENT;
            #[inline(always)]
            fn compatible(&self, b: &R) -> bool {
                b.compatible_rhs(self)
            }
            #[inline(always)]
            fn eq(&self, b: &R) -> bool {
                b.eq_rhs(self)
            }
        }

        // tuple / tuple of any rank: head with head, tail with tail.
        impl<T: SplitFirst, $B0: IntTuple, $($B: IntTuple),*> TupleRhs<T> for ($B0, $($B,)*)
        where
            T::First: Profile<$B0>,
            T::Rest: Profile<($($B,)*)>,
        {
            const CONGRUENT: bool =
                <T::First as Profile<$B0>>::CONGRUENT && <T::Rest as Profile<($($B,)*)>>::CONGRUENT;
            const WEAKLY_CONGRUENT: bool = <T::First as Profile<$B0>>::WEAKLY_CONGRUENT
                && <T::Rest as Profile<($($B,)*)>>::WEAKLY_CONGRUENT;
            #[allow(non_snake_case)]
            fn compatible_rhs(&self, a: &T) -> bool {
                let ($B0, $($B,)*) = *self;
                let (first, rest) = a.split_first();
                first.compatible(&$B0) && rest.compatible(&($($B,)*))
            }
            #[allow(non_snake_case)]
            fn eq_rhs(&self, a: &T) -> bool {
                let ($B0, $($B,)*) = *self;
                let (first, rest) = a.split_first();
                Profile::eq(&first, &$B0) && Profile::eq(&rest, &($($B,)*))
            }
        }

        impl<$A0: IntTuple, $($A: IntTuple),*> SplitFirst for ($A0, $($A,)*) {
            type First = $A0;
            type Rest = ($($A,)*);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn split_first(&self) -> ($A0, ($($A,)*)) {
                let ($A0, $($A,)*) = *self;
                ($A0, ($($A,)*))
            }
        }
    };
}

/// The right-hand side of a comparison whose left-hand side is the non-empty tuple `T`.
/// An implementation detail of [`Profile`], public only because it appears in its bounds;
/// visible in the docs because a compile error's notes name it (DECISIONS.md, decision 16).
///
/// ```
/// use const_layout::int_tuple::TupleRhs;
/// assert!(!<usize as TupleRhs<(usize,)>>::CONGRUENT);
/// ```
#[diagnostic::on_unimplemented(message = "`{T}` and `{Self}` cannot be compared as int tuples")]
pub trait TupleRhs<T: SplitFirst>: IntTuple {
    /// See [`Profile::CONGRUENT`].
    const CONGRUENT: bool;
    /// See [`Profile::WEAKLY_CONGRUENT`].
    const WEAKLY_CONGRUENT: bool;
    /// See [`Profile::compatible`], with the operands swapped.
    fn compatible_rhs(&self, a: &T) -> bool;
    /// See [`Profile::eq`], with the operands swapped.
    fn eq_rhs(&self, a: &T) -> bool;
}

impl<X: Int, T: SplitFirst> TupleRhs<T> for X {
    const CONGRUENT: bool = false;
    const WEAKLY_CONGRUENT: bool = false;
    fn compatible_rhs(&self, _: &T) -> bool {
        false
    }
    fn eq_rhs(&self, _: &T) -> bool {
        false
    }
}

impl<T: SplitFirst> TupleRhs<T> for () {
    const CONGRUENT: bool = false;
    const WEAKLY_CONGRUENT: bool = false;
    fn compatible_rhs(&self, _: &T) -> bool {
        false
    }
    fn eq_rhs(&self, _: &T) -> bool {
        false
    }
}

/// A non-empty tuple split into its first mode and the rest. Implemented for tuples of rank >= 1.
///
/// ```
/// use const_layout::int_tuple::SplitFirst;
/// assert_eq!((1usize, 2usize, 3usize).split_first(), (1usize, (2usize, 3usize)));
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` is not a non-empty tuple")]
pub trait SplitFirst: super::Tuple {
    /// Mode 0.
    type First: IntTuple;
    /// Modes 1.. as a tuple.
    type Rest: super::Tuple;
    /// `(mode 0, (modes 1..))`.
    fn split_first(&self) -> (Self::First, Self::Rest);
}

for_tuples!(impl_profile);
