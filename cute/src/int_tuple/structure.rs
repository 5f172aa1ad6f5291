//! Structural functions of int tuples: mode access, prepending, concatenation, flattening.

use super::{IntTuple, Tuple};
use crate::arity::for_tuples;
use crate::int::Int;

/// CuTe's `get<I>`: mode `I` of a tuple (and, as in CuTe, `get<0>` of an integer is the integer).
///
/// ```
/// use const_layout::int_tuple::{get, Get};
/// use const_layout::C;
/// let t = (C::<8>, (4usize, C::<2>));
/// assert_eq!(get::<1, _>(&t), (4usize, C::<2>));
/// assert_eq!(get::<0, _>(&get::<1, _>(&t)), 4usize);
/// assert_eq!(Get::<0>::get(&t), C::<8>);
/// ```
#[diagnostic::on_unimplemented(
    message = "mode index {I} is out of range for `{Self}`",
    label = "this int tuple has no mode {I}",
    note = "modes are numbered from 0; a tuple of rank R has modes 0..R, an integer only mode 0"
)]
pub trait Get<const I: usize>: IntTuple {
    /// The type of mode `I`.
    type Output: IntTuple;
    /// Mode `I`.
    fn get(&self) -> Self::Output;
}

/// Free-function form of [`Get`]: `get::<I, _>(&t)`.
///
/// ```
/// use const_layout::int_tuple::get;
/// assert_eq!(get::<2, _>(&(1usize, 2usize, 3usize)), 3usize);
/// ```
#[inline(always)]
pub fn get<const I: usize, T: Get<I>>(t: &T) -> T::Output {
    t.get()
}

impl<T: Int> Get<0> for T {
    type Output = T;
    #[inline(always)]
    fn get(&self) -> T {
        *self
    }
}

macro_rules! impl_get {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl_get!(@each [$($A)+] $([$i $A])+);
    };
    (@each $all:tt $([$i:tt $A:ident])+) => {
        $(impl_get!(@one $all $i $A);)+
    };
    (@one [$($T:ident)+] $i:tt $A:ident) => {
        #[diagnostic::do_not_recommend]
        impl<$($T: IntTuple),+> Get<$i> for ($($T,)+) {
            type Output = $A;
            #[inline(always)]
            fn get(&self) -> $A {
                self.$i
            }
        }
    };
}
for_tuples!(impl_get);

// Mode indices from a tuple's rank up to the largest rank: impls that exist only to report the
// index and the rank. (Indices beyond the largest rank have no impl at all.)
macro_rules! impl_get_out_of_range {
    ([$([$i:tt $A:ident $B:ident $C:ident])+] [$([$j:tt $P:ident $Q:ident $R:ident])+]) => {
        impl<$($A: IntTuple),+> Get<{ crate::arity::count!($($j)+) - 1 }> for ($($A,)+)
        where
            (): crate::diagnostics::ModeIndex<($($A,)+), { crate::arity::count!($($j)+) - 1 }, { crate::arity::count!($($i)+) }>,
        {
            type Output = ();
            fn get(&self) {}
        }
    };
}
crate::arity::for_unequal_tuple_pairs!(@longer_only impl_get_out_of_range);

/// Mode `I` of a tuple if it has one, else `()`. Lets [`Layout::mode`](crate::Layout::mode) check
/// the index once, on the shape, and take the stride's mode without a second error.
#[doc(hidden)]
pub trait GetOrUnit<const I: usize>: IntTuple {
    /// Mode `I`, or `()`.
    type Output: IntTuple;
    /// Mode `I`, or `()`.
    fn get_or_unit(&self) -> Self::Output;
}

macro_rules! impl_get_or_unit {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl_get_or_unit!(@each [$($A)+] $([$i $A])+);
    };
    (@each $all:tt $([$i:tt $A:ident])+) => {
        $(impl_get_or_unit!(@one $all $i $A);)+
    };
    (@one [$($T:ident)+] $i:tt $A:ident) => {
        impl<$($T: IntTuple),+> GetOrUnit<$i> for ($($T,)+) {
            type Output = $A;
            #[inline(always)]
            fn get_or_unit(&self) -> $A {
                self.$i
            }
        }
    };
}
for_tuples!(impl_get_or_unit);

macro_rules! impl_get_or_unit_beyond {
    ([$([$i:tt $A:ident $B:ident $C:ident])+] [$([$j:tt $P:ident $Q:ident $R:ident])+]) => {
        impl<$($A: IntTuple),+> GetOrUnit<{ crate::arity::count!($($j)+) - 1 }> for ($($A,)+) {
            type Output = ();
            fn get_or_unit(&self) {}
        }
    };
}
crate::arity::for_unequal_tuple_pairs!(@longer_only impl_get_or_unit_beyond);

impl<T: Int> GetOrUnit<0> for T {
    type Output = T;
    #[inline(always)]
    fn get_or_unit(&self) -> T {
        *self
    }
}

/// Put `X` in front of a tuple: `(a, b)` becomes `(x, a, b)`. Used to build results mode by mode.
///
/// ```
/// use const_layout::int_tuple::Prepend;
/// use const_layout::C;
/// assert_eq!((C::<2>, 3usize).prepend(1usize), (1usize, C::<2>, 3usize));
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot put a mode in front of `{Self}`",
    note = "the result would have more than 12 modes, or `{Self}` is not a tuple"
)]
pub trait Prepend<X: IntTuple>: Tuple {
    /// The longer tuple.
    type Output: Tuple;
    /// `(x, self...)`.
    fn prepend(self, x: X) -> Self::Output;
}

impl<X: IntTuple> Prepend<X> for () {
    type Output = (X,);
    #[inline(always)]
    fn prepend(self, x: X) -> (X,) {
        (x,)
    }
}

// For the call with positions 0..=n, implement `Prepend<A0>` for the tuple of positions 1..=n, so that
// outputs never exceed the largest supported arity.
macro_rules! impl_prepend {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$A0: IntTuple, $($A: IntTuple),+> Prepend<$A0> for ($($A,)+) {
            type Output = ($A0, $($A,)+);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn prepend(self, x: $A0) -> Self::Output {
                let ($($A,)+) = self;
                (x, $($A,)+)
            }
        }
    };
    ([$i0:tt $A0:ident $B0:ident $C0:ident]) => {};
}
for_tuples!(impl_prepend);

/// Concatenate two tuples: `(a, b) ++ (c,)` is `(a, b, c)`.
///
/// ```
/// use const_layout::int_tuple::Concat;
/// assert_eq!((1usize, 2usize).concat((3usize,)), (1usize, 2usize, 3usize));
/// assert_eq!(().concat((3usize,)), (3usize,));
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot concatenate `{Self}` and `{R}`",
    note = "both must be tuples, and the result at most 12 modes long"
)]
pub trait Concat<R: Tuple>: Tuple {
    /// The concatenation.
    type Output: Tuple;
    /// `(self..., r...)`.
    fn concat(self, r: R) -> Self::Output;
}

impl<R: Tuple> Concat<R> for () {
    type Output = R;
    #[inline(always)]
    fn concat(self, r: R) -> R {
        r
    }
}

macro_rules! impl_concat {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])*) => {
        impl<R: Tuple, $A0: IntTuple, $($A: IntTuple),*> Concat<R> for ($A0, $($A,)*)
        where
            ($($A,)*): Concat<R>,
            <($($A,)*) as Concat<R>>::Output: Prepend<$A0>,
        {
            type Output = <<($($A,)*) as Concat<R>>::Output as Prepend<$A0>>::Output;
            #[inline(always)]
            #[allow(non_snake_case)]
            fn concat(self, r: R) -> Self::Output {
                let ($A0, $($A,)*) = self;
                ($($A,)*).concat(r).prepend($A0)
            }
        }
    };
}
for_tuples!(impl_concat);

/// Flatten to a tuple of integers: an integer becomes a one-mode tuple `(x,)`.
///
/// ```
/// use const_layout::int_tuple::FlattenToTuple;
/// use const_layout::C;
/// assert_eq!((C::<8>, (4usize, C::<2>)).flatten_to_tuple(), (C::<8>, 4usize, C::<2>));
/// assert_eq!(5usize.flatten_to_tuple(), (5usize,));
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot flatten `{Self}`",
    note = "the flattened tuple would have more than 12 integers"
)]
pub trait FlattenToTuple: IntTuple {
    /// The tuple of every integer, left to right.
    type Output: Tuple;
    /// CuTe's `flatten_to_tuple`.
    fn flatten_to_tuple(self) -> Self::Output;
}

impl<T: Int> FlattenToTuple for T {
    type Output = (T,);
    #[inline(always)]
    fn flatten_to_tuple(self) -> (T,) {
        (self,)
    }
}

impl FlattenToTuple for () {
    type Output = ();
    #[inline(always)]
    fn flatten_to_tuple(self) {}
}

macro_rules! impl_flatten {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])*) => {
        impl<$A0: FlattenToTuple, $($A: IntTuple),*> FlattenToTuple for ($A0, $($A,)*)
        where
            ($($A,)*): FlattenToTuple,
            $A0::Output: Concat<<($($A,)*) as FlattenToTuple>::Output>,
        {
            type Output = <$A0::Output as Concat<<($($A,)*) as FlattenToTuple>::Output>>::Output;
            #[inline(always)]
            #[allow(non_snake_case)]
            fn flatten_to_tuple(self) -> Self::Output {
                let ($A0, $($A,)*) = self;
                $A0.flatten_to_tuple().concat(($($A,)*).flatten_to_tuple())
            }
        }
    };
}
for_tuples!(impl_flatten);

/// CuTe's `flatten`: an integer stays an integer, a tuple becomes the tuple of its integers.
///
/// ```
/// use const_layout::int_tuple::{flatten, Flatten};
/// use const_layout::C;
/// assert_eq!(flatten((C::<8>, ((4usize,), C::<2>))), (C::<8>, 4usize, C::<2>));
/// assert_eq!(flatten(7usize), 7usize);
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot flatten `{Self}`",
    note = "the flattened tuple would have more than 12 integers"
)]
pub trait Flatten: IntTuple {
    /// The flattened int tuple.
    type Output: IntTuple;
    /// See [`flatten`].
    fn flatten(self) -> Self::Output;
}

impl<T: Int> Flatten for T {
    type Output = T;
    #[inline(always)]
    fn flatten(self) -> T {
        self
    }
}

impl Flatten for () {
    type Output = ();
    #[inline(always)]
    fn flatten(self) {}
}

macro_rules! impl_flatten_tuple {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: IntTuple),+> Flatten for ($($A,)+)
        where
            Self: FlattenToTuple,
        {
            type Output = <Self as FlattenToTuple>::Output;
            #[inline(always)]
            fn flatten(self) -> Self::Output {
                self.flatten_to_tuple()
            }
        }
    };
}
for_tuples!(impl_flatten_tuple);

/// Free-function form of [`Flatten`].
///
/// ```
/// use const_layout::int_tuple::flatten;
/// assert_eq!(flatten(((1usize, 2usize), 3usize)), (1usize, 2usize, 3usize));
/// ```
#[inline(always)]
pub fn flatten<T: Flatten>(t: T) -> T::Output {
    t.flatten()
}

/// CuTe's `product_each`: the size of each mode, as a tuple (an integer is one mode).
///
/// ```
/// use const_layout::int_tuple::product_each;
/// use const_layout::C;
/// assert_eq!(product_each(&(C::<8>, (4usize, C::<2>))), (C::<8>, 8usize));
/// assert_eq!(product_each(&6usize), (6usize,));
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` is not an int tuple")]
pub trait ProductEach: IntTuple {
    /// A tuple of integers, one per mode.
    type Output: Tuple;
    /// See [`product_each`].
    fn product_each(&self) -> Self::Output;
}

/// Free-function form of [`ProductEach`].
///
/// ```
/// use const_layout::int_tuple::product_each;
/// assert_eq!(product_each(&((2usize, 3usize), 4usize)), (6usize, 4usize));
/// ```
#[inline(always)]
pub fn product_each<T: ProductEach>(t: &T) -> T::Output {
    t.product_each()
}

impl<T: Int> ProductEach for T {
    type Output = (T,);
    #[inline(always)]
    fn product_each(&self) -> (T,) {
        (*self,)
    }
}

impl ProductEach for () {
    type Output = ();
    #[inline(always)]
    fn product_each(&self) {}
}

macro_rules! impl_product_each {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: IntTuple),+> ProductEach for ($($A,)+) {
            type Output = ($($A::Size,)+);
            #[inline(always)]
            fn product_each(&self) -> Self::Output {
                ($(self.$i.size(),)+)
            }
        }
    };
}
for_tuples!(impl_product_each);
