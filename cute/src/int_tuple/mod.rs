//! Int tuples: CuTe's `IntTuple`, an integer or a tuple of int tuples.
//!
//! A shape, a stride and a coordinate are all int tuples. Here an int tuple is a Rust value whose
//! *structure* is its type: an [`Int`] (static [`C<N>`](crate::C) or runtime `usize`, `i32`, ...) or a
//! Rust tuple of int tuples, nested to any depth, with up to [`MAX_RANK`](crate::MAX_RANK) modes a
//! level. `(C<8>, (4usize, C<2>))` is CuTe's `(_8,(4,_2))`. Because the structure is a type, a rank
//! mismatch is a compile error and every static part of a computation folds away.
//!
//! The functions keep CuTe's names and meaning: [`rank`], [`depth`], [`size`] / [`product`],
//! [`flatten`], [`get`], [`prefix_product`], [`suffix_product`], [`compact_col_major`],
//! [`compact_row_major`], [`shape_div`], [`ceil_div`], [`congruent`], [`weakly_congruent`],
//! [`compatible`]. Results are static where the inputs are.
//!
//! ```
//! use const_layout::int_tuple::{depth, flatten, rank, size, IntTuple};
//! use const_layout::C;
//!
//! let shape = (C::<8>, (4usize, C::<2>));
//! assert_eq!((rank(&shape), depth(&shape)), (2, 2));
//! assert_eq!(size(&shape), 64usize);
//! assert_eq!(flatten(shape), (C::<8>, 4usize, C::<2>));
//! assert_eq!(shape.display().to_string(), "(_8,(4,_2))");
//! ```

mod array;
mod compare;
mod divide;
mod prefix;
mod structure;
mod top_modes;

pub use array::ToArray;
pub use compare::{
    Profile, SplitFirst, TupleRhs, compatible, congruent, eq, is_congruent, is_weakly_congruent,
    weakly_congruent,
};
pub use divide::{CeilDiv, ShapeDiv, ceil_div, shape_div};
pub use prefix::{
    CompactLeft, CompactRight, CuteCompact, Exclusive, LeafRule, compact_col_major, compact_col_major_from,
    compact_row_major, compact_row_major_from, prefix_product, suffix_product,
};
pub use structure::{
    Concat, Flatten, FlattenToTuple, Get, GetOrUnit, Prepend, ProductEach, flatten, get, product_each,
};
pub use top_modes::TopModes;

use crate::arity::for_tuples;
use crate::int::{Int, Kind, Sealed, Static};
use core::fmt;

/// One integer of an int tuple, as visited by [`IntTuple::for_each_leaf`].
///
/// ```
/// use const_layout::int_tuple::{IntTuple, Leaf};
/// use const_layout::C;
/// let mut leaves = Vec::new();
/// (C::<8>, 3usize).for_each_leaf(&mut |l: Leaf| leaves.push(l));
/// assert_eq!(leaves, [Leaf { value: Some(8), is_static: true }, Leaf { value: Some(3), is_static: false }]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// The value, or `None` for a runtime value outside `isize`.
    pub value: Option<isize>,
    /// Whether the value is known at compile time.
    pub is_static: bool,
}

/// CuTe's `IntTuple`: an [`Int`] or a tuple of int tuples.
///
/// Implemented for every [`Int`] and for Rust tuples `()`, `(A,)`, `(A, B)`, ... up to
/// [`MAX_RANK`](crate::MAX_RANK) elements whose elements are int tuples. Sealed.
///
/// ```
/// use const_layout::int_tuple::IntTuple;
/// use const_layout::C;
/// type Shape = (C<8>, (C<4>, C<2>));
/// assert_eq!(<Shape as IntTuple>::RANK, 2);
/// assert_eq!(<Shape as IntTuple>::DEPTH, 2);
/// assert_eq!(<Shape as IntTuple>::LEAVES, 3);
/// assert!(<Shape as IntTuple>::IS_STATIC);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an int tuple",
    label = "expected an integer or a tuple of int tuples",
    note = "int tuples are integers (`C<N>`, `usize`, `i32`, ...) and tuples of int tuples with at most 12 elements a level"
)]
pub trait IntTuple: Copy + fmt::Debug + Sealed + 'static {
    /// CuTe's `rank`: the number of top-level modes (1 for an integer).
    const RANK: usize;
    /// CuTe's `depth`: 0 for an integer, 1 + the deepest mode for a tuple.
    const DEPTH: usize;
    /// The number of integers in the tuple.
    const LEAVES: usize;
    /// Whether this is an integer (rather than a tuple).
    const IS_INT: bool;
    /// Whether every integer is static.
    const IS_STATIC: bool = <Self::Kind as Kind>::IS_STATIC;
    /// [`Static`] if every integer is static.
    type Kind: Kind;
    /// [`IsInt`] or [`IsTuple`]: lets one impl dispatch on the forms of several int tuples, so that
    /// a mismatch reaches the precise error of [`diagnostics`](crate::diagnostics).
    type Form: 'static;
    /// The first runtime integer type among the integers, left to right (`isize` if all are static):
    /// the type of runtime results computed from this tuple, such as its size.
    type Rt: Int;
    /// The size, if every integer is static. Evaluating it for a static tuple whose size overflows
    /// `isize` is a compile-time error.
    const STATIC_SIZE: Option<isize>;
    /// The type of [`IntTuple::size`]: [`StaticSize`]`<Self>` if every integer is static, else
    /// [`IntTuple::Rt`].
    type Size: Int;
    /// CuTe's `size` (`product`): the product of all integers; 1 for `()`.
    fn size(&self) -> Self::Size;
    /// Write in CuTe notation: `(_8,(4,_2))`.
    fn fmt_cute(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Call `f` on every integer, left to right.
    fn for_each_leaf(&self, f: &mut dyn FnMut(Leaf));
    /// Write every integer's value (wrapping into `isize`, as index math does) into `out`, left to
    /// right from position `at`, and return the position after the last; integers past the end of
    /// `out` are skipped. Monomorphic, so index math that reads coordinates this way inlines to
    /// plain register moves.
    ///
    /// ```
    /// use const_layout::int_tuple::IntTuple;
    /// use const_layout::C;
    /// let mut out = [0isize; 4];
    /// assert_eq!((3usize, (C::<2>, 7u32)).store_values(&mut out, 0), 3);
    /// assert_eq!(out, [3, 2, 7, 0]);
    /// ```
    fn store_values(&self, out: &mut [isize], at: usize) -> usize;
    /// The number of runtime integers (the ones a value of this type stores).
    const RUNTIME_LEAVES: usize;
    /// Write each runtime integer's value as 32 bits into `out` from position `at` (unsigned types
    /// zero-extended, signed ones sign-extended when read back), and return the position after the
    /// last; `Err(leaf)` names the first integer (counting all integers from `leaf`) whose value
    /// does not survive the round trip through 32 bits. Static integers are skipped: their value
    /// is the type. The kernel-parameter form of layouts,
    /// [`LayoutParam`](crate::layout::param::LayoutParam), is built on this.
    #[doc(hidden)]
    fn store_runtime_u32(&self, out: &mut [u32], at: usize, leaf: usize) -> Result<(usize, usize), usize>;
    /// Rebuild from the words [`IntTuple::store_runtime_u32`] wrote, starting at `*at`; static
    /// integers are their type's value. No check: the words come from a checked value.
    #[doc(hidden)]
    fn load_runtime_u32(words: &[u32], at: &mut usize) -> Self;
    /// The structure and static values as a compile-time constant: runtime integers appear as
    /// non-static zeros. Evaluating it for a tuple of more than
    /// [`MAX_NODES`](crate::dyn_layout::MAX_NODES) nodes (or [`MAX_BYTES`](crate::dyn_layout::MAX_BYTES) bytes
    /// of encoding) is a compile-time error; it is only used
    /// to compute static results that need the whole tuple (for example
    /// [`make_ordered_layout`](crate::make_ordered_layout)).
    const TREE: crate::dyn_layout::DynIntTuple;
    /// The runtime-structured copy ([`DynIntTuple`](crate::dyn_layout::DynIntTuple)), static flags
    /// kept. `Err` if an integer does not fit in `isize` or the tuple exceeds
    /// [`MAX_NODES`](crate::dyn_layout::MAX_NODES) nodes or [`MAX_BYTES`](crate::dyn_layout::MAX_BYTES) bytes.
    fn to_dyn(&self) -> Result<crate::dyn_layout::DynIntTuple, crate::LayoutError>;
    /// Build from the integers' values, left to right, counting integers in `leaf`: a static
    /// integer takes only its type's value, a runtime one any value its type holds. `Err` gives
    /// the value that does not fit and the static value expected there, if any. No structure
    /// check: see [`IntTuple::try_from_dyn`].
    #[doc(hidden)]
    fn try_from_leaves(
        leaves: &mut dyn Iterator<Item = isize>,
        leaf: &mut usize,
    ) -> Result<Self, (isize, Option<isize>)>;
    /// The typed copy of a runtime-structured int tuple (the inverse of [`IntTuple::to_dyn`]),
    /// checked: the same nesting as the type, each static integer of the type's value and each
    /// runtime one within its integer type. A static integer may come from a runtime one and the
    /// other way round (`8` for `C<8>`): a value is what the text or computation gives, static-ness
    /// what the type says. `part` names the tuple in errors (`"shape"`).
    ///
    /// ```
    /// use const_layout::int_tuple::IntTuple;
    /// use const_layout::dyn_layout::DynIntTuple;
    /// use const_layout::C;
    /// let t: DynIntTuple = "(_8,(4,70000))".parse().unwrap();
    /// assert_eq!(<(C<8>, (usize, u32))>::try_from_dyn(&t, "shape").unwrap(), (C::<8>, (4, 70000)));
    /// let e = <(C<4>, (usize, u32))>::try_from_dyn(&t, "shape").unwrap_err();
    /// assert_eq!(e.to_string(), "shape integer 0 is 8 where the type has the static _4");
    /// let n: DynIntTuple = "(_8,(4,-1))".parse().unwrap();
    /// let e = <(C<8>, (usize, u32))>::try_from_dyn(&n, "shape").unwrap_err();
    /// assert_eq!(e.to_string(), "shape integer 2 is -1, outside the type's integer type");
    /// let e = <(C<8>, usize)>::try_from_dyn(&t, "shape").unwrap_err();
    /// assert_eq!(e.to_string(), "the shape nests differently from the type's");
    /// ```
    fn try_from_dyn(
        t: &crate::dyn_layout::DynIntTuple,
        part: &'static str,
    ) -> Result<Self, crate::LayoutError> {
        if !Self::TREE.congruent(t) {
            return Err(crate::LayoutError::NotOfTypeStructure { part });
        }
        if t.has_basis() {
            return Err(crate::LayoutError::BasisStride { op: "a typed int tuple" });
        }
        let mut leaf = 0;
        Self::try_from_leaves(&mut t.leaves().map(|v| v.value), &mut leaf)
            .map_err(|(value, expected)| crate::LayoutError::NotOfType { part, leaf, value, expected })
    }
    /// A [`Display`](fmt::Display) adapter printing CuTe notation.
    fn display(&self) -> Cute<'_, Self>
    where
        Self: Sized,
    {
        Cute(self)
    }
}

/// An int tuple whose integers are all static: its value is in its type.
///
/// ```
/// use const_layout::int_tuple::StaticTuple;
/// use const_layout::C;
/// fn zero_sized<T: StaticTuple>(_: T) -> usize { core::mem::size_of::<T>() }
/// assert_eq!(zero_sized((C::<8>, (C::<4>, C::<2>))), 0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has runtime integers where a static int tuple is needed",
    label = "not every integer here is static",
    note = "write static integers as `C<N>` (or literals in `layout!`); a layout with runtime integers is built with `make_layout`, which checks them and returns a `Result`"
)]
pub trait StaticTuple: IntTuple<Kind = Static> {}

#[diagnostic::do_not_recommend]
impl<T: IntTuple<Kind = Static>> StaticTuple for T {}

/// The [`IntTuple::Form`] of an integer.
pub enum IsInt {}

/// The [`IntTuple::Form`] of a tuple.
pub enum IsTuple {}

/// A tuple (as opposed to an integer): `()` and `(A, ...)`. Sealed marker for bounds.
///
/// ```
/// use const_layout::int_tuple::Tuple;
/// use const_layout::C;
/// fn takes<T: Tuple>(_: T) {}
/// takes((C::<1>, 2usize));
/// takes(());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of int tuples",
    label = "expected a tuple here, not an integer",
    note = "wrap a single mode as `(x,)`"
)]
pub trait Tuple: IntTuple {}

/// Prints an int tuple in CuTe notation; made by [`IntTuple::display`].
///
/// ```
/// use const_layout::int_tuple::IntTuple;
/// use const_layout::C;
/// assert_eq!(format!("{}", (C::<2>,).display()), "(_2)");
/// ```
pub struct Cute<'a, T: ?Sized>(pub &'a T);

impl<T: IntTuple> fmt::Display for Cute<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_cute(f)
    }
}

impl<T: Int> IntTuple for T {
    const RANK: usize = 1;
    const DEPTH: usize = 0;
    const LEAVES: usize = 1;
    const IS_INT: bool = true;
    type Kind = T::Kind;
    type Form = IsInt;
    type Rt = T::RtOr<isize>;
    const STATIC_SIZE: Option<isize> = T::STATIC;
    const TREE: crate::dyn_layout::DynIntTuple = crate::dyn_layout::DynIntTuple::int(match T::STATIC {
        Some(v) => crate::dyn_layout::DynInt::new_static(v),
        None => crate::dyn_layout::DynInt::new_runtime(0),
    });
    type Size = T;
    #[inline(always)]
    fn size(&self) -> T {
        *self
    }
    fn fmt_cute(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Int::fmt_cute(*self, f)
    }
    #[inline]
    fn for_each_leaf(&self, f: &mut dyn FnMut(Leaf)) {
        f(Leaf { value: self.try_value(), is_static: T::STATIC.is_some() })
    }
    #[inline(always)]
    fn store_values(&self, out: &mut [isize], at: usize) -> usize {
        if let Some(slot) = out.get_mut(at) {
            *slot = self.value();
        }
        at + 1
    }
    const RUNTIME_LEAVES: usize = if T::STATIC.is_some() { 0 } else { 1 };
    #[inline]
    fn store_runtime_u32(&self, out: &mut [u32], at: usize, leaf: usize) -> Result<(usize, usize), usize> {
        if T::STATIC.is_some() {
            return Ok((at, leaf + 1));
        }
        let v = self.try_value().ok_or(leaf)?;
        let bits = v as u32;
        let slot = out.get_mut(at).ok_or(leaf)?;
        *slot = bits;
        if int_from_u32::<T>(bits).try_value() != Some(v) {
            return Err(leaf);
        }
        Ok((at + 1, leaf + 1))
    }
    #[inline(always)]
    fn load_runtime_u32(words: &[u32], at: &mut usize) -> Self {
        if T::STATIC.is_some() {
            return T::from_value(0);
        }
        let bits = words.get(*at).copied().unwrap_or(0);
        *at += 1;
        int_from_u32::<T>(bits)
    }
    fn try_from_leaves(
        leaves: &mut dyn Iterator<Item = isize>,
        leaf: &mut usize,
    ) -> Result<Self, (isize, Option<isize>)> {
        // The caller checked the nesting: a missing integer is not reachable, and reads as 0.
        let v = leaves.next().unwrap_or(0);
        let t = T::try_from_value(v).ok_or((v, T::STATIC))?;
        *leaf += 1;
        Ok(t)
    }
    fn to_dyn(&self) -> Result<crate::dyn_layout::DynIntTuple, crate::LayoutError> {
        let value =
            self.try_value().ok_or(crate::LayoutError::ValueOutOfRange { part: "integer", leaf: 0 })?;
        Ok(crate::dyn_layout::DynIntTuple::int(crate::dyn_layout::DynInt::new(value, T::STATIC.is_some())))
    }
}

impl IntTuple for () {
    const RANK: usize = 0;
    const DEPTH: usize = 1;
    const LEAVES: usize = 0;
    const IS_INT: bool = false;
    type Kind = Static;
    type Form = IsTuple;
    type Rt = isize;
    const STATIC_SIZE: Option<isize> = Some(1);
    const TREE: crate::dyn_layout::DynIntTuple = crate::dyn_layout::DynIntTuple::EMPTY;
    type Size = crate::C<1>;
    #[inline(always)]
    fn size(&self) -> crate::C<1> {
        crate::C
    }
    fn fmt_cute(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("()")
    }
    #[inline]
    fn for_each_leaf(&self, _: &mut dyn FnMut(Leaf)) {}
    #[inline(always)]
    fn store_values(&self, _: &mut [isize], at: usize) -> usize {
        at
    }
    const RUNTIME_LEAVES: usize = 0;
    #[inline]
    fn store_runtime_u32(&self, _: &mut [u32], at: usize, leaf: usize) -> Result<(usize, usize), usize> {
        Ok((at, leaf))
    }
    #[inline(always)]
    fn load_runtime_u32(_: &[u32], _: &mut usize) -> Self {}
    fn to_dyn(&self) -> Result<crate::dyn_layout::DynIntTuple, crate::LayoutError> {
        Ok(crate::dyn_layout::DynIntTuple::EMPTY)
    }
    fn try_from_leaves(
        _: &mut dyn Iterator<Item = isize>,
        _: &mut usize,
    ) -> Result<Self, (isize, Option<isize>)> {
        Ok(())
    }
}
impl Tuple for () {}
impl Sealed for () {}

crate::int::static_int_type! {
/// The static size of a static int tuple `T`, as a zero-sized integer: the type of [`IntTuple::size`]
/// for static tuples. Its value is computed by the compiler.
///
/// ```
/// use const_layout::int_tuple::StaticSize;
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(<StaticSize<(C<8>, (C<4>, C<2>))> as Int>::STATIC, Some(64));
/// ```
    pub struct StaticSize<T> where [T: IntTuple] = match T::STATIC_SIZE {
        Some(v) => v,
        None => panic!("StaticSize of an int tuple with runtime integers"),
    };
}

/// A runtime integer from the 32 bits [`IntTuple::store_runtime_u32`] wrote: sign-extended for a
/// signed type, zero-extended otherwise (the test folds away for every concrete type).
#[inline(always)]
fn int_from_u32<T: Int>(bits: u32) -> T {
    let signed = T::try_from_value(-1).is_some();
    T::from_value(if signed { bits as i32 as isize } else { bits as isize })
}

const fn mul_static(a: Option<isize>, b: Option<isize>) -> Option<isize> {
    match (a, b) {
        (Some(a), Some(b)) => match a.checked_mul(b) {
            Some(v) => Some(v),
            None => panic!("the size of a static int tuple overflows isize"),
        },
        _ => None,
    }
}

#[inline(always)]
fn mul_value(a: isize, b: isize) -> isize {
    a.wrapping_mul(b)
}

pub(crate) const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

macro_rules! impl_int_tuple {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])*) => {
        impl<$A0: Sealed, $($A: Sealed),*> Sealed for ($A0, $($A,)*) {}
        impl<$A0: IntTuple, $($A: IntTuple),*> Tuple for ($A0, $($A,)*) {}
        impl<$A0: IntTuple, $($A: IntTuple),*> IntTuple for ($A0, $($A,)*) {
            const RANK: usize = 1 $(+ { let _ = $i; 1 })*;
            const DEPTH: usize = 1 + max($A0::DEPTH, <($($A,)*) as IntTuple>::DEPTH - 1);
            const LEAVES: usize = $A0::LEAVES $(+ $A::LEAVES)*;
            const IS_INT: bool = false;
            type Kind = <$A0::Kind as Kind>::And<<($($A,)*) as IntTuple>::Kind>;
            type Form = IsTuple;
            type Rt = <$A0::Kind as Kind>::Select<<($($A,)*) as IntTuple>::Rt, $A0::Rt>;
            const STATIC_SIZE: Option<isize> = mul_static($A0::STATIC_SIZE, <($($A,)*) as IntTuple>::STATIC_SIZE);
            const TREE: crate::dyn_layout::DynIntTuple = match crate::dyn_layout::DynIntTuple::tuple(&[$A0::TREE, $($A::TREE,)*]) {
                Ok(t) => t,
                Err(_) => panic!("an int tuple with more than 64 nodes or 126 bytes of encoding has no compile-time TREE"),
            };
            type Size = <Self::Kind as Kind>::Select<StaticSize<Self>, Self::Rt>;
            #[inline(always)]
            fn size(&self) -> Self::Size {
                Int::from_value(mul_value(self.$i0.size().value(), ($(self.$i,)*).size().value()))
            }
            fn fmt_cute(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("(")?;
                self.$i0.fmt_cute(f)?;
                $(
                    f.write_str(",")?;
                    self.$i.fmt_cute(f)?;
                )*
                f.write_str(")")
            }
            #[inline]
            fn for_each_leaf(&self, f: &mut dyn FnMut(Leaf)) {
                self.$i0.for_each_leaf(f);
                $(self.$i.for_each_leaf(f);)*
            }
            #[inline(always)]
            fn store_values(&self, out: &mut [isize], at: usize) -> usize {
                let at = self.$i0.store_values(out, at);
                $(let at = self.$i.store_values(out, at);)*
                at
            }
            const RUNTIME_LEAVES: usize = $A0::RUNTIME_LEAVES $(+ $A::RUNTIME_LEAVES)*;
            #[inline]
            fn store_runtime_u32(&self, out: &mut [u32], at: usize, leaf: usize) -> Result<(usize, usize), usize> {
                let (at, leaf) = self.$i0.store_runtime_u32(out, at, leaf)?;
                $(let (at, leaf) = self.$i.store_runtime_u32(out, at, leaf)?;)*
                Ok((at, leaf))
            }
            #[inline(always)]
            fn load_runtime_u32(words: &[u32], at: &mut usize) -> Self {
                ($A0::load_runtime_u32(words, at), $($A::load_runtime_u32(words, at),)*)
            }
            fn to_dyn(&self) -> Result<crate::dyn_layout::DynIntTuple, crate::LayoutError> {
                crate::dyn_layout::DynIntTuple::tuple(&[self.$i0.to_dyn()?, $(self.$i.to_dyn()?,)*])
            }
            fn try_from_leaves(
                leaves: &mut dyn Iterator<Item = isize>,
                leaf: &mut usize,
            ) -> Result<Self, (isize, Option<isize>)> {
                Ok(($A0::try_from_leaves(leaves, leaf)?, $($A::try_from_leaves(leaves, leaf)?,)*))
            }
        }
    };
}
for_tuples!(impl_int_tuple);

/// CuTe's `rank`: the number of top-level modes (1 for an integer).
///
/// ```
/// use const_layout::int_tuple::rank;
/// use const_layout::C;
/// assert_eq!(rank(&(C::<8>, (C::<4>, C::<2>))), 2);
/// assert_eq!(rank(&5usize), 1);
/// assert_eq!(rank(&()), 0);
/// ```
#[inline(always)]
pub const fn rank<T: IntTuple>(_: &T) -> usize {
    T::RANK
}

/// CuTe's `depth`: 0 for an integer, 1 + the deepest mode for a tuple.
///
/// ```
/// use const_layout::int_tuple::depth;
/// use const_layout::C;
/// assert_eq!(depth(&(C::<8>, (C::<4>, C::<2>))), 2);
/// assert_eq!(depth(&(1usize, 2usize)), 1);
/// assert_eq!(depth(&5usize), 0);
/// ```
#[inline(always)]
pub const fn depth<T: IntTuple>(_: &T) -> usize {
    T::DEPTH
}

/// CuTe's `size`: the product of every integer. Static for a static tuple.
///
/// ```
/// use const_layout::int_tuple::size;
/// use const_layout::int::Int;
/// use const_layout::C;
/// let s = size(&(C::<8>, (C::<4>, C::<2>)));
/// assert_eq!(core::mem::size_of_val(&s), 0); // a static integer
/// assert_eq!(s.value(), 64);
/// assert_eq!(size(&(C::<8>, 3usize)), 24usize);
/// ```
#[inline(always)]
pub fn size<T: IntTuple>(t: &T) -> T::Size {
    t.size()
}

/// CuTe's `product`, the same as [`size`].
///
/// ```
/// use const_layout::int_tuple::product;
/// assert_eq!(product(&(2usize, (3usize, 4usize))), 24usize);
/// ```
#[inline(always)]
pub fn product<T: IntTuple>(t: &T) -> T::Size {
    t.size()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::C;
    use crate::int::Runtime;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn structure_constants() {
        type S = (C<8>, (usize, (C<2>, C<3>), ()), C<1>);
        assert_eq!(<S as IntTuple>::RANK, 3);
        assert_eq!(<S as IntTuple>::DEPTH, 3);
        assert_eq!(<S as IntTuple>::LEAVES, 5);
        const { assert!(!<S as IntTuple>::IS_STATIC) };
        static_assertions::assert_type_eq_all!(<S as IntTuple>::Kind, Runtime);
        static_assertions::assert_type_eq_all!(<(C<2>, (C<3>,)) as IntTuple>::Kind, Static);
        assert_eq!(<() as IntTuple>::DEPTH, 1);
        assert_eq!(<((),) as IntTuple>::DEPTH, 2);
    }

    #[test]
    fn size_is_static_for_static_tuples() {
        let s = (C::<8>, (C::<4>, C::<2>)).size();
        assert_eq!(core::mem::size_of_val(&s), 0);
        assert_eq!(<<(C<8>, (C<4>, C<2>)) as IntTuple>::Size as Int>::STATIC, Some(64));
        let r: u32 = (C::<8>, (4u32, C::<2>)).size();
        assert_eq!(r, 64);
        assert_eq!(().size().value(), 1);
    }

    #[test]
    fn printing() {
        assert_eq!((C::<8>, (4usize, C::<2>)).display().to_string(), "(_8,(4,_2))");
        assert_eq!((3i32,).display().to_string(), "(3)");
        assert_eq!(().display().to_string(), "()");
        assert_eq!(C::<-3>.display().to_string(), "_-3");
    }

    #[test]
    fn twelve_modes() {
        let t =
            (1usize, 2usize, 3usize, 4usize, 1usize, 1usize, 1usize, 1usize, 1usize, 1usize, 1usize, C::<5>);
        assert_eq!(rank(&t), 12);
        assert_eq!(t.size(), 120usize);
    }
}
