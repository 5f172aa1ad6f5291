//! Running products over an int tuple: exclusive prefix and suffix products, and CuTe's compact
//! column-major and row-major strides.
//!
//! All four walk the integers in order (left to right for prefix / column-major, right to left for
//! suffix / row-major), keeping a running product; each integer's result is the product so far. They
//! differ only in the rule for one integer ([`LeafRule`]): CuTe's compact strides give a static extent
//! of 1 the stride 0 ([`CuteCompact`]), the plain products do not ([`Exclusive`]).

use super::IntTuple;
use crate::C;
use crate::arity::{a_types, for_tuples, with_context};
use crate::int::{CompactStrideOut, Int, MulOut, compact_stride, mul};

/// How one integer of extent `S` turns the running product `Cur` into its result.
///
/// ```
/// use const_layout::int_tuple::{CuteCompact, Exclusive, LeafRule};
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(Exclusive::stride(C::<1>, C::<8>).value(), 8);
/// assert_eq!(CuteCompact::stride(C::<1>, C::<8>).value(), 0);
/// ```
#[doc(hidden)]
pub trait LeafRule: 'static {
    /// The result type for one integer.
    type Stride<S: Int, Cur: Int>: Int;
    /// The result for one integer of extent `s` when the running product is `cur`.
    fn stride<S: Int, Cur: Int>(s: S, cur: Cur) -> Self::Stride<S, Cur>;
}

/// The plain exclusive product: every integer gets the running product. Used by [`prefix_product`]
/// and [`suffix_product`].
///
/// ```
/// use const_layout::int_tuple::{Exclusive, LeafRule};
/// assert_eq!(Exclusive::stride(3usize, 6usize), 6usize);
/// ```
pub enum Exclusive {}

impl LeafRule for Exclusive {
    type Stride<S: Int, Cur: Int> = Cur;
    #[inline(always)]
    fn stride<S: Int, Cur: Int>(_: S, cur: Cur) -> Cur {
        cur
    }
}

/// CuTe's compact-stride rule: a static extent of 1 gets stride 0 (it can never be stepped), any other
/// integer the running product. Used by [`compact_col_major`] and [`compact_row_major`].
///
/// ```
/// use const_layout::int_tuple::{CuteCompact, LeafRule};
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(CuteCompact::stride(C::<1>, 6usize), 0usize);
/// assert_eq!(CuteCompact::stride(1usize, 6usize), 6usize); // a runtime 1 keeps its stride, as in CuTe
/// ```
pub enum CuteCompact {}

impl LeafRule for CuteCompact {
    type Stride<S: Int, Cur: Int> = CompactStrideOut<S, Cur>;
    #[inline(always)]
    fn stride<S: Int, Cur: Int>(s: S, cur: Cur) -> Self::Stride<S, Cur> {
        compact_stride(s, cur)
    }
}

/// A running product from the left (first mode fastest), with leaf rule `R`, starting at `Cur`.
///
/// ```
/// use const_layout::int_tuple::{eq, CompactLeft, Exclusive};
/// use const_layout::C;
/// let (strides, total) = CompactLeft::<Exclusive, _>::compact_left(&(2usize, (3usize, 4usize)), C::<1>);
/// assert!(eq(&strides, &(C::<1>, (2usize, 6usize))));
/// assert_eq!(total, 24usize);
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` is not an int tuple")]
pub trait CompactLeft<R: LeafRule, Cur: Int>: IntTuple {
    /// The per-integer results, congruent with `Self`.
    type Output: IntTuple;
    /// The running product after the last integer.
    type Next: Int;
    /// Walk the integers left to right.
    fn compact_left(&self, cur: Cur) -> (Self::Output, Self::Next);
}

/// A running product from the right (last mode fastest), with leaf rule `R`, starting at `Cur`.
///
/// ```
/// use const_layout::int_tuple::{eq, CompactRight, Exclusive};
/// use const_layout::C;
/// let (strides, total) = CompactRight::<Exclusive, _>::compact_right(&(2usize, (3usize, 4usize)), C::<1>);
/// assert!(eq(&strides, &(12usize, (4usize, C::<1>))));
/// assert_eq!(total, 24usize);
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` is not an int tuple")]
pub trait CompactRight<R: LeafRule, Cur: Int>: IntTuple {
    /// The per-integer results, congruent with `Self`.
    type Output: IntTuple;
    /// The running product after the first integer.
    type Next: Int;
    /// Walk the integers right to left.
    fn compact_right(&self, cur: Cur) -> (Self::Output, Self::Next);
}

impl<R: LeafRule, S: Int, Cur: Int> CompactLeft<R, Cur> for S {
    type Output = R::Stride<S, Cur>;
    type Next = MulOut<Cur, S>;
    #[inline(always)]
    fn compact_left(&self, cur: Cur) -> (Self::Output, Self::Next) {
        (R::stride(*self, cur), mul(cur, *self))
    }
}

impl<R: LeafRule, S: Int, Cur: Int> CompactRight<R, Cur> for S {
    type Output = R::Stride<S, Cur>;
    type Next = MulOut<Cur, S>;
    #[inline(always)]
    fn compact_right(&self, cur: Cur) -> (Self::Output, Self::Next) {
        (R::stride(*self, cur), mul(cur, *self))
    }
}

impl<R: LeafRule, Cur: Int> CompactLeft<R, Cur> for () {
    type Output = ();
    type Next = Cur;
    #[inline(always)]
    fn compact_left(&self, cur: Cur) -> ((), Cur) {
        ((), cur)
    }
}

impl<R: LeafRule, Cur: Int> CompactRight<R, Cur> for () {
    type Output = ();
    type Next = Cur;
    #[inline(always)]
    fn compact_right(&self, cur: Cur) -> ((), Cur) {
        ((), cur)
    }
}

// Mode k's running product is written in closed form: `Cur` times the size of the modes before it
// (after it, for the right-to-left walk). See `arity::with_context` for why.
macro_rules! impl_compact {
    (@go $([$i:tt $A:ident $B:ident $C:ident [$($before:tt)*] [$($after:tt)*]])+) => {
        impl<R: LeafRule, Cur: Int, $($A: IntTuple),+> CompactLeft<R, Cur> for ($($A,)+)
        where
            $($A: CompactLeft<R, MulOut<Cur, <a_types!($($before)*) as IntTuple>::Size>>,)+
        {
            type Output = ($(<$A as CompactLeft<R, MulOut<Cur, <a_types!($($before)*) as IntTuple>::Size>>>::Output,)+);
            type Next = MulOut<Cur, <Self as IntTuple>::Size>;
            #[inline(always)]
            fn compact_left(&self, cur: Cur) -> (Self::Output, Self::Next) {
                let mut run = cur.value();
                let out = ($({
                    let (o, _) = self.$i.compact_left(Int::from_value(run));
                    run = run.wrapping_mul(self.$i.size().value());
                    o
                },)+);
                (out, Int::from_value(run))
            }
        }

        impl<R: LeafRule, Cur: Int, $($A: IntTuple),+> CompactRight<R, Cur> for ($($A,)+)
        where
            $($A: CompactRight<R, MulOut<Cur, <a_types!($($after)*) as IntTuple>::Size>>,)+
        {
            type Output = ($(<$A as CompactRight<R, MulOut<Cur, <a_types!($($after)*) as IntTuple>::Size>>>::Output,)+);
            type Next = MulOut<Cur, <Self as IntTuple>::Size>;
            #[inline(always)]
            fn compact_right(&self, cur: Cur) -> (Self::Output, Self::Next) {
                // Running products from the right, computed first so that the modes can then be
                // visited in order.
                let sizes = [$(self.$i.size().value()),+];
                let mut suffix = sizes;
                let mut run = cur.value();
                let mut k = sizes.len();
                while k > 0 {
                    k -= 1;
                    suffix[k] = run;
                    run = run.wrapping_mul(sizes[k]);
                }
                let out = ($(self.$i.compact_right(Int::from_value(suffix[$i])).0,)+);
                (out, Int::from_value(run))
            }
        }
    };
    ($($pos:tt)+) => {
        with_context!(impl_compact [@go]; $($pos)+);
    };
}
for_tuples!(impl_compact);

/// The exclusive prefix product, congruent with the input (pycute's `prefix_product`; CuTe 3.x's).
/// It is the column-major stride of every integer, without CuTe's stride-0 rule for static 1s.
///
/// ```
/// use const_layout::int_tuple::{eq, prefix_product};
/// use const_layout::C;
/// assert!(eq(&prefix_product(&(2usize, (3usize, 4usize))), &(C::<1>, (2usize, 6usize))));
/// let s = prefix_product(&(C::<2>, C::<1>, C::<4>));
/// assert!(eq(&s, &(C::<1>, C::<2>, C::<2>)));
/// assert_eq!(core::mem::size_of_val(&s), 0); // all static
/// ```
#[inline(always)]
pub fn prefix_product<T: CompactLeft<Exclusive, C<1>>>(t: &T) -> T::Output {
    t.compact_left(C).0
}

/// The exclusive suffix product, congruent with the input: the row-major stride of every integer,
/// without CuTe's stride-0 rule for static 1s.
///
/// ```
/// use const_layout::int_tuple::{eq, suffix_product};
/// use const_layout::C;
/// assert!(eq(&suffix_product(&(2usize, 3usize, 4usize)), &(12usize, 4usize, C::<1>)));
/// ```
#[inline(always)]
pub fn suffix_product<T: CompactRight<Exclusive, C<1>>>(t: &T) -> T::Output {
    t.compact_right(C).0
}

/// CuTe's `compact_col_major(shape)`: the strides of the compact column-major (`LayoutLeft`) layout.
/// A static extent of 1 gets stride `_0`, as in CuTe.
///
/// ```
/// use const_layout::int_tuple::{compact_col_major, IntTuple};
/// use const_layout::C;
/// assert_eq!(compact_col_major(&(C::<4>, (C::<1>, C::<3>))).display().to_string(), "(_1,(_0,_4))");
/// assert_eq!(compact_col_major(&(5usize, C::<2>)).display().to_string(), "(_1,5)");
/// ```
#[inline(always)]
pub fn compact_col_major<T: CompactLeft<CuteCompact, C<1>>>(t: &T) -> T::Output {
    t.compact_left(C).0
}

/// CuTe's `compact_col_major(shape, current)`: column-major strides starting at `current`.
///
/// ```
/// use const_layout::int_tuple::{compact_col_major_from, eq};
/// use const_layout::C;
/// assert!(eq(&compact_col_major_from(&(C::<4>, C::<2>), C::<8>), &(C::<8>, C::<32>)));
/// ```
#[inline(always)]
pub fn compact_col_major_from<Cur: Int, T: CompactLeft<CuteCompact, Cur>>(t: &T, current: Cur) -> T::Output {
    t.compact_left(current).0
}

/// CuTe's `compact_row_major(shape)`: the strides of the compact row-major (`LayoutRight`) layout.
///
/// ```
/// use const_layout::int_tuple::{compact_row_major, IntTuple};
/// use const_layout::C;
/// assert_eq!(compact_row_major(&(C::<4>, (C::<2>, C::<3>))).display().to_string(), "(_6,(_3,_1))");
/// ```
#[inline(always)]
pub fn compact_row_major<T: CompactRight<CuteCompact, C<1>>>(t: &T) -> T::Output {
    t.compact_right(C).0
}

/// CuTe's `compact_row_major(shape, current)`: row-major strides starting at `current`.
///
/// ```
/// use const_layout::int_tuple::{compact_row_major_from, eq};
/// use const_layout::C;
/// assert!(eq(&compact_row_major_from(&(C::<4>, C::<2>), 3usize), &(6usize, 3usize)));
/// ```
#[inline(always)]
pub fn compact_row_major_from<Cur: Int, T: CompactRight<CuteCompact, Cur>>(t: &T, current: Cur) -> T::Output {
    t.compact_right(current).0
}
