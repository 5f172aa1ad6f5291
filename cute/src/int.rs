//! Integers: static ones whose value lives in the type, runtime ones, and the arithmetic between them.
//!
//! CuTe mixes `Int<8>` (printed `_8`) and plain `int` (printed `8`) freely in one shape. This module
//! does the same behind one trait, [`Int`]:
//!
//! - [`C<N>`] is the static integer `N`: zero-sized, its value an associated constant. The aliases
//!   [`_8`](crate::_8) and friends spell it the CuTe way. typenum's integers (`U8`, `P3`, `N2`, ...) are
//!   static integers too.
//! - `usize`, `isize`, `u32`, `i32`, `u64` and `i64` are runtime integers.
//!
//! Arithmetic between integers keeps static results static: the product of two static integers is a
//! zero-sized type ([`StaticMul`]) whose value is computed by the compiler, so `size` of a static shape is
//! itself a static integer. A result with any runtime operand is a runtime integer of the first runtime
//! operand's type (so `u32` index math stays `u32`). Static arithmetic is checked: an overflow or a
//! division by zero among static values is a compile-time error.
//!
//! ```
//! use const_layout::int::{mul, Int};
//! use const_layout::C;
//!
//! let s = mul(C::<4>, C::<8>); // static: zero-sized, value 32
//! assert_eq!(core::mem::size_of_val(&s), 0);
//! assert_eq!(s.value(), 32);
//! let r: usize = mul(C::<4>, 5usize); // runtime operand: runtime result of its type
//! assert_eq!(r, 20);
//! ```

use core::fmt;
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// The marker field of the zero-sized static result types: covariant in `T`, `Send` and `Sync`
/// whatever `T` is, and never holding a `T`.
pub(crate) type Marker<T> = PhantomData<fn() -> T>;

/// Whether an integer (or every integer of a tuple) is known at compile time.
///
/// Two kinds exist, [`Static`] and [`Runtime`]; the trait is sealed. It is how result types are chosen:
/// [`Kind::Select`] picks the static result type when the kind is static and the runtime one otherwise.
///
/// ```
/// use const_layout::int::{Runtime, Kind, Static};
/// assert!(<Static as Kind>::IS_STATIC);
/// assert!(!<<Static as Kind>::And<Runtime> as Kind>::IS_STATIC);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kind of integer (static or dynamic)",
    note = "the kinds are `const_layout::int::Static` and `const_layout::int::Runtime`"
)]
pub trait Kind: Sealed + 'static {
    /// `true` for [`Static`].
    const IS_STATIC: bool;
    /// `S` if this kind is static, `R` otherwise.
    type Select<S: Int, R: Int>: Int;
    /// Static only if both kinds are static.
    type And<K: Kind>: Kind;
}

/// The kind of integers known at compile time. See [`Kind`].
///
/// ```
/// use const_layout::int::{Int, Static};
/// use const_layout::C;
/// fn is_static<T: Int<Kind = Static>>(_: T) {}
/// is_static(C::<8>);
/// ```
pub enum Static {}

/// The kind of integers known only at run time. See [`Kind`].
///
/// ```
/// use const_layout::int::{Runtime, Int};
/// fn is_runtime<T: Int<Kind = Runtime>>(_: T) {}
/// is_runtime(8usize);
/// ```
pub enum Runtime {}

impl Sealed for Static {}
impl Sealed for Runtime {}

impl Kind for Static {
    const IS_STATIC: bool = true;
    type Select<S: Int, R: Int> = S;
    type And<K: Kind> = K;
}

impl Kind for Runtime {
    const IS_STATIC: bool = false;
    type Select<S: Int, R: Int> = R;
    type And<K: Kind> = Runtime;
}

/// An integer of a shape, stride or coordinate: static ([`C<N>`], typenum) or runtime (`usize`, `i32`, ...).
///
/// The trait is sealed: the set of integer types is fixed so that the library can reason about all
/// of them (and so that tuples are never integers).
///
/// ```
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(C::<8>.value(), 8);
/// assert_eq!(<C<8> as Int>::STATIC, Some(8));
/// assert_eq!(<usize as Int>::STATIC, None);
/// assert_eq!(7u32.value(), 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an integer that const-layout understands",
    label = "expected a static integer such as `C<8>` or a runtime integer such as `usize`",
    note = "integers are `C<N>` (or `_N`, or typenum's `U8`/`P8`), `usize`, `isize`, `u32`, `i32`, `u64` or `i64`"
)]
pub trait Int: Copy + fmt::Debug + Sealed + 'static {
    /// [`Static`] or [`Runtime`].
    type Kind: Kind;
    /// `Self` for a runtime integer, `X` for a static one: the runtime type a mixed result takes.
    type RtOr<X: Int>: Int;
    /// The value, if it is known at compile time.
    const STATIC: Option<isize>;
    /// The value as `isize`. For a runtime integer outside `isize`'s range it wraps; layouts reject
    /// such values when they are built (see [`Int::try_value`]).
    fn value(self) -> isize;
    /// The value as `isize`, or `None` if it does not fit.
    fn try_value(self) -> Option<isize>;
    /// Build from a value. Static integers ignore it (their value is in the type); runtime ones wrap.
    fn from_value(v: isize) -> Self;
    /// Build from a value if it is representable: for a static integer, only its own value.
    fn try_from_value(v: isize) -> Option<Self>;
    /// `(index % self, index / self)` for a non-negative index: one step of splitting an index
    /// across a mode. A plain division, or [`FastDivmod`](crate::FastDivmod)'s multiplier. An
    /// extent of 0 (never in a checked layout) gives `(0, 0)`.
    ///
    /// ```
    /// use const_layout::int::Int;
    /// use const_layout::{C, FastDivmod};
    /// assert_eq!(C::<8>.split_index(29), (5, 3));
    /// assert_eq!(FastDivmod::new(8).unwrap().split_index(29), (5, 3));
    /// ```
    #[inline(always)]
    fn split_index(self, index: isize) -> (isize, isize) {
        split_index(index, self.value())
    }
    /// Write the integer in CuTe notation: `_8` if static, `8` if not.
    fn fmt_cute(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if Self::STATIC.is_some() { write!(f, "_{}", self.value()) } else { write!(f, "{}", self.value()) }
    }
}

/// A static integer: [`Int`] with [`Static`] kind. Blanket-implemented; the alias exists for bounds.
///
/// ```
/// use const_layout::int::StaticInt;
/// use const_layout::C;
/// fn value_of<T: StaticInt>() -> isize { T::STATIC.unwrap() }
/// assert_eq!(value_of::<C<12>>(), 12);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static integer",
    note = "static integers are `C<N>` (`_N` in CuTe) and typenum integers"
)]
pub trait StaticInt: Int<Kind = Static> {}
impl<T: Int<Kind = Static>> StaticInt for T {}

/// A runtime integer: [`Int`] with [`Runtime`] kind. Blanket-implemented; the alias exists for bounds.
///
/// ```
/// use const_layout::int::RuntimeInt;
/// fn takes<T: RuntimeInt>(_: T) {}
/// takes(3i32);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a runtime integer",
    note = "runtime integers are `usize`, `isize`, `u32`, `i32`, `u64`, `i64` and `FastDivmod`"
)]
pub trait RuntimeInt: Int<Kind = Runtime> {}
impl<T: Int<Kind = Runtime>> RuntimeInt for T {}

/// The value of a static integer type, usable in `const` contexts.
///
/// ```
/// use const_layout::int::static_value;
/// use const_layout::C;
/// const N: isize = static_value::<C<5>>();
/// assert_eq!(N, 5);
/// ```
pub const fn static_value<T: Int>() -> isize {
    match T::STATIC {
        Some(v) => v,
        None => panic!("a runtime integer has no compile-time value"),
    }
}

/// The static integer `N`, CuTe's `Int<N>` (printed `_N`). Zero-sized.
///
/// ```
/// use const_layout::C;
/// let eight = C::<8>;
/// assert_eq!(core::mem::size_of_val(&eight), 0);
/// assert_eq!(format!("{eight}"), "_8");
/// ```
#[derive(Clone, Copy, Default, Hash)]
pub struct C<const N: isize>;

impl<const N: isize> Eq for C<N> {}

impl<const N: isize> Sealed for C<N> {}

impl<const N: isize> Int for C<N> {
    type Kind = Static;
    type RtOr<X: Int> = X;
    const STATIC: Option<isize> = Some(N);
    #[inline(always)]
    fn value(self) -> isize {
        N
    }
    #[inline(always)]
    fn try_value(self) -> Option<isize> {
        Some(N)
    }
    #[inline(always)]
    fn from_value(_: isize) -> Self {
        C
    }
    #[inline(always)]
    fn try_from_value(v: isize) -> Option<Self> {
        if v == N { Some(C) } else { None }
    }
}

impl<const N: isize> fmt::Debug for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}

impl<const N: isize> fmt::Display for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}

macro_rules! runtime_int {
    ($($t:ty),*) => {$(
        impl Sealed for $t {}
        impl Int for $t {
            type Kind = Runtime;
            type RtOr<X: Int> = $t;
            const STATIC: Option<isize> = None;
            #[inline(always)]
            fn value(self) -> isize {
                self as isize
            }
            #[inline(always)]
            fn try_value(self) -> Option<isize> {
                isize::try_from(self).ok()
            }
            #[inline(always)]
            fn from_value(v: isize) -> Self {
                v as $t
            }
            #[inline(always)]
            fn try_from_value(v: isize) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
        impl<const N: isize> PartialEq<C<N>> for $t {
            fn eq(&self, _: &C<N>) -> bool {
                self.try_value() == Some(N)
            }
        }
    )*};
}
runtime_int!(usize, isize, u32, i32, u64, i64);

// typenum's integers are static integers as well: the issue that introduced static integers named
// typenum, and users of generic-array have them at hand. `C<N>` stays the canonical spelling because
// rustc prints it readably in errors (typenum's `U8` prints as nested `UInt<UInt<..>>`).
impl Sealed for typenum::UTerm {}
impl<U: typenum::Unsigned, B: typenum::Bit> Sealed for typenum::UInt<U, B> {}
impl Sealed for typenum::Z0 {}
impl<U: typenum::Unsigned + typenum::NonZero> Sealed for typenum::PInt<U> {}
impl<U: typenum::Unsigned + typenum::NonZero> Sealed for typenum::NInt<U> {}

macro_rules! typenum_int {
    ($([$($g:tt)*] $t:ty => $v:expr;)*) => {$(
        impl<$($g)*> Int for $t {
            type Kind = Static;
            type RtOr<X: Int> = X;
            const STATIC: Option<isize> = Some($v);
            #[inline(always)]
            fn value(self) -> isize {
                $v
            }
            #[inline(always)]
            fn try_value(self) -> Option<isize> {
                Some($v)
            }
            #[inline(always)]
            fn from_value(_: isize) -> Self {
                Self::default()
            }
            #[inline(always)]
            fn try_from_value(v: isize) -> Option<Self> {
                if v == $v { Some(Self::default()) } else { None }
            }
        }
    )*};
}
typenum_int! {
    [] typenum::UTerm => 0;
    [U: typenum::Unsigned + fmt::Debug, B: typenum::Bit + fmt::Debug] typenum::UInt<U, B> => <Self as typenum::Unsigned>::ISIZE;
    [] typenum::Z0 => 0;
    [U: typenum::Unsigned + typenum::NonZero + fmt::Debug] typenum::PInt<U> => <Self as typenum::Integer>::ISIZE;
    [U: typenum::Unsigned + typenum::NonZero + fmt::Debug] typenum::NInt<U> => <Self as typenum::Integer>::ISIZE;
}

/// Equality of two integers of any kinds, by value.
///
/// ```
/// use const_layout::int::int_eq;
/// use const_layout::C;
/// assert!(int_eq(C::<4>, 4usize));
/// assert!(!int_eq(C::<4>, C::<5>));
/// ```
#[inline(always)]
pub fn int_eq<A: Int, B: Int>(a: A, b: B) -> bool {
    a.try_value().is_some() && a.try_value() == b.try_value()
}

/// The runtime type of a mixed result: the first runtime operand's type (`isize` if both are static,
/// where it is never used).
pub type PickRt<A, B> = <A as Int>::RtOr<<B as Int>::RtOr<isize>>;

/// The kind of a binary result: static only if both operands are.
pub type KindOf2<A, B> = <<A as Int>::Kind as Kind>::And<<B as Int>::Kind>;

/// An arithmetic operation, named by a marker type, with its static result type.
///
/// Results are chosen through the [`Arith`] trait rather than a type alias so that nested results
/// (the size of a 12-mode shape is 11 nested products) stay linear in size for the compiler.
///
/// ```
/// use const_layout::int::{Int, MulOp, Op};
/// use const_layout::C;
/// assert_eq!(<<MulOp as Op>::Static<C<3>, C<4>> as Int>::STATIC, Some(12));
/// ```
#[doc(hidden)]
pub trait Op: 'static {
    /// The zero-sized result type when both operands are static.
    type Static<A: Int, B: Int>: Int;
}

/// The result type of operation `O` between `Self` and `B`: `O`'s static type if both are static,
/// else the first runtime operand's type ([`PickRt`]).
///
/// ```
/// use const_layout::int::{Arith, MulOp};
/// use const_layout::C;
/// let x: <usize as Arith<C<4>, MulOp>>::Output = 8usize;
/// assert_eq!(x, 8);
/// ```
#[doc(hidden)]
pub trait Arith<B: Int, O: Op>: Int {
    /// The result type.
    type Output: Int;
}

impl<A: Int, B: Int, O: Op> Arith<B, O> for A {
    type Output = <KindOf2<A, B> as Kind>::Select<O::Static<A, B>, PickRt<A, B>>;
}

/// Defines a zero-sized static integer type whose value is computed by the compiler: the struct, its
/// `Clone`/`Copy`/`Default`/`Debug`/`Display`/`PartialEq` and its [`Int`] impl. Every static result
/// type of the library (products, sizes, offsets, strides, ...) is made by this macro.
///
/// `static_int_type!(#[doc] pub struct Name<A, B> where [A: Int, B: Int] = value_expression;)`
/// where the value expression may use the generic parameters' associated constants.
macro_rules! static_int_type {
    ($(#[$doc:meta])* $vis:vis struct $name:ident<$($g:ident),+> where [$($bounds:tt)*] = $value:expr;) => {
        $(#[$doc])*
        $vis struct $name<$($g),+>($crate::int::Marker<($($g,)+)>);

        impl<$($g),+> Clone for $name<$($g),+> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($g),+> Copy for $name<$($g),+> {}
        impl<$($g),+> Default for $name<$($g),+> {
            fn default() -> Self {
                $name(core::marker::PhantomData)
            }
        }
        impl<$($g),+> $crate::int::Sealed for $name<$($g),+> {}
        impl<$($bounds)*> core::fmt::Debug for $name<$($g),+> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "_{}", $crate::int::Int::value(*self))
            }
        }
        impl<$($bounds)*> core::fmt::Display for $name<$($g),+> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "_{}", $crate::int::Int::value(*self))
            }
        }
        impl<$($bounds)*, Rhs: $crate::int::Int> PartialEq<Rhs> for $name<$($g),+> {
            fn eq(&self, other: &Rhs) -> bool {
                $crate::int::int_eq(*self, *other)
            }
        }
        impl<$($bounds)*> $crate::int::Int for $name<$($g),+> {
            type Kind = $crate::int::Static;
            type RtOr<X: $crate::int::Int> = X;
            const STATIC: Option<isize> = Some($value);
            #[inline(always)]
            fn value(self) -> isize {
                $crate::int::static_value::<Self>()
            }
            #[inline(always)]
            fn try_value(self) -> Option<isize> {
                Self::STATIC
            }
            #[inline(always)]
            fn from_value(_: isize) -> Self {
                $name(core::marker::PhantomData)
            }
            #[inline(always)]
            fn try_from_value(v: isize) -> Option<Self> {
                if Some(v) == Self::STATIC { Some($name(core::marker::PhantomData)) } else { None }
            }
        }
    };
}
pub(crate) use static_int_type;

macro_rules! static_binop {
    ($(#[$doc:meta])* $name:ident, $op:ident, $alias:ident, $fn:ident, |$a:ident, $b:ident| $static:expr, |$x:ident, $y:ident| $runtime:expr) => {
        static_int_type! {
            $(#[$doc])*
            pub struct $name<A, B> where [A: Int, B: Int] = {
                let $a = static_value::<A>();
                let $b = static_value::<B>();
                $static
            };
        }

        #[doc = concat!("The type of [`", stringify!($fn), "`]`(a, b)`: [`", stringify!($name), "`] if both are static, else the first runtime operand's type.")]
        pub type $alias<A, B> = <A as Arith<B, $op>>::Output;

        #[doc = concat!("The operation of [`", stringify!($fn), "`], as an [`Op`] marker.")]
        pub enum $op {}
        impl Op for $op {
            type Static<A: Int, B: Int> = $name<A, B>;
        }

        #[doc = concat!("Static-preserving `", stringify!($fn), "`; see [`", stringify!($name), "`].")]
        ///
        /// Runtime arithmetic never panics: it wraps on overflow and a division by zero yields 0
        /// (layouts reject the inputs that could cause either when they are built).
        #[inline(always)]
        pub fn $fn<A: Int, B: Int>(a: A, b: B) -> $alias<A, B> {
            let $x = a.value();
            let $y = b.value();
            Int::from_value($runtime)
        }
    };
}

/// One step of splitting a non-negative index over an extent: `(index % extent, index / extent)`,
/// computed unsigned. Indices are never negative, and unsigned division by a constant is shorter
/// than signed (no sign fix-up), so this is what static index math compiles to. An extent of 0
/// (never in a checked layout) gives `(0, 0)` instead of a panic.
#[inline(always)]
pub(crate) fn split_index(index: isize, extent: isize) -> (isize, isize) {
    let (i, e) = (index as usize, extent as usize);
    if e == 0 { (0, 0) } else { ((i % e) as isize, (i / e) as isize) }
}

const fn checked(v: Option<isize>, what: &'static str) -> isize {
    match v {
        Some(v) => v,
        None => panic!("{}", what),
    }
}

static_binop!(
    /// The static product of two static integers (overflow is a compile-time error).
    ///
    /// ```
    /// use const_layout::int::{Int, StaticMul};
    /// use const_layout::C;
    /// assert_eq!(<StaticMul<C<6>, C<7>> as Int>::STATIC, Some(42));
    /// ```
    StaticMul, MulOp, MulOut, mul,
    |a, b| checked(a.checked_mul(b), "static integer overflow in a product"),
    |x, y| x.wrapping_mul(y)
);
static_binop!(
    /// The static sum of two static integers (overflow is a compile-time error).
    ///
    /// ```
    /// use const_layout::int::{Int, StaticAdd};
    /// use const_layout::C;
    /// assert_eq!(<StaticAdd<C<6>, C<7>> as Int>::STATIC, Some(13));
    /// ```
    StaticAdd, AddOp, AddOut, add,
    |a, b| checked(a.checked_add(b), "static integer overflow in a sum"),
    |x, y| x.wrapping_add(y)
);
static_binop!(
    /// The static truncating quotient of two static integers (division by zero is a compile-time error).
    ///
    /// ```
    /// use const_layout::int::{Int, StaticDiv};
    /// use const_layout::C;
    /// assert_eq!(<StaticDiv<C<13>, C<4>> as Int>::STATIC, Some(3));
    /// ```
    StaticDiv, DivOp, DivOut, div,
    |a, b| checked(a.checked_div(b), "static integer division by zero"),
    |x, y| if y == 0 { 0 } else { x.wrapping_div(y) }
);
static_binop!(
    /// The static remainder (sign of the dividend, as in C++) of two static integers.
    ///
    /// ```
    /// use const_layout::int::{Int, StaticRem};
    /// use const_layout::C;
    /// assert_eq!(<StaticRem<C<13>, C<4>> as Int>::STATIC, Some(1));
    /// ```
    StaticRem, RemOp, RemOut, rem,
    |a, b| checked(a.checked_rem(b), "static integer remainder by zero"),
    |x, y| if y == 0 { 0 } else { x.wrapping_rem(y) }
);
static_binop!(
    /// CuTe's `ceil_div` of two static integers: `(a + b - 1) / b`.
    ///
    /// ```
    /// use const_layout::int::{Int, StaticCeilDiv};
    /// use const_layout::C;
    /// assert_eq!(<StaticCeilDiv<C<13>, C<4>> as Int>::STATIC, Some(4));
    /// ```
    StaticCeilDiv, CeilDivOp, CeilDivOut, ceil_div_int,
    |a, b| ceil_div_value(a, b),
    |x, y| if y == 0 { 0 } else { x.wrapping_add(y).wrapping_sub(1).wrapping_div(y) }
);
static_binop!(
    /// CuTe's `shape_div` of two static integers: `(a + b - 1) / b`, defined only when one divides the
    /// other (CuTe's "weak divisibility condition"); anything else is a compile-time error.
    ///
    /// ```
    /// use const_layout::int::{Int, StaticShapeDiv};
    /// use const_layout::C;
    /// assert_eq!(<StaticShapeDiv<C<12>, C<4>> as Int>::STATIC, Some(3));
    /// assert_eq!(<StaticShapeDiv<C<2>, C<4>> as Int>::STATIC, Some(1));
    /// ```
    StaticShapeDiv, ShapeDivOp, ShapeDivOut, shape_div_int,
    |a, b| shape_div_value(a, b),
    |x, y| if y == 0 { 0 } else { x.wrapping_add(y).wrapping_sub(1).wrapping_div(y) }
);

const fn ceil_div_value(a: isize, b: isize) -> isize {
    if b == 0 {
        panic!("static ceil_div by zero");
    }
    match a.checked_add(b - 1) {
        Some(s) => s / b,
        None => panic!("static integer overflow in ceil_div"),
    }
}

const fn shape_div_value(a: isize, b: isize) -> isize {
    if b == 0 || a == 0 {
        panic!("static shape_div with a zero operand");
    }
    if a % b != 0 && b % a != 0 {
        panic!("static shape_div needs one operand to divide the other (CuTe's divisibility condition)");
    }
    ceil_div_value(a, b)
}

static_int_type! {
/// CuTe's compact-stride rule for one mode: a static extent of 1 gets stride 0, any other mode gets
/// the running product `Cur`. [`StaticCompactStride`]`<S, Cur>` is that stride when both are static.
///
/// ```
/// use const_layout::int::{Int, StaticCompactStride};
/// use const_layout::C;
/// assert_eq!(<StaticCompactStride<C<1>, C<8>> as Int>::STATIC, Some(0));
/// assert_eq!(<StaticCompactStride<C<4>, C<8>> as Int>::STATIC, Some(8));
/// ```
    pub struct StaticCompactStride<S, Cur> where [S: Int, Cur: Int] = match S::STATIC {
        Some(1) => 0,
        _ => static_value::<Cur>(),
    };
}

/// The type of [`compact_stride`]`(s, cur)`: static when `cur` is, like CuTe (whose stride for a
/// runtime extent is the running product, static or not).
pub type CompactStrideOut<S, Cur> = <Cur as CompactStrideOf<S>>::Output;

/// The type of a compact stride given the running product `Self` and the extent `S`; see
/// [`CompactStrideOut`]. (A trait rather than an alias for the reason given at [`Op`].)
///
/// ```
/// use const_layout::int::CompactStrideOf;
/// use const_layout::C;
/// let x: <usize as CompactStrideOf<C<1>>>::Output = 0usize;
/// assert_eq!(x, 0);
/// ```
#[doc(hidden)]
pub trait CompactStrideOf<S: Int>: Int {
    /// The stride type.
    type Output: Int;
}

impl<S: Int, Cur: Int> CompactStrideOf<S> for Cur {
    type Output =
        <<Cur as Int>::Kind as Kind>::Select<StaticCompactStride<S, Cur>, <Cur as Int>::RtOr<isize>>;
}

/// The stride of one mode of extent `s` in a compact layout whose running product is `cur`: 0 for a
/// static extent of 1, `cur` otherwise.
///
/// ```
/// use const_layout::int::{compact_stride, Int};
/// use const_layout::C;
/// assert_eq!(compact_stride(C::<1>, C::<8>).value(), 0);
/// assert_eq!(compact_stride(3usize, 8usize), 8);
/// ```
#[inline(always)]
pub fn compact_stride<S: Int, Cur: Int>(_s: S, cur: Cur) -> CompactStrideOut<S, Cur> {
    if S::STATIC == Some(1) { Int::from_value(0) } else { Int::from_value(cur.value()) }
}

macro_rules! int_eq_impls {
    ($([$($g:tt)*] $t:ty;)*) => {$(
        impl<$($g)*, Rhs: Int> PartialEq<Rhs> for $t {
            fn eq(&self, other: &Rhs) -> bool {
                int_eq(*self, *other)
            }
        }
    )*};
}
int_eq_impls! {
    [const N: isize] C<N>;
}

macro_rules! static_ops {
    ($([$($g:tt)*] $t:ty;)*) => {$(
        impl<$($g)*, Rhs: Int> core::ops::Mul<Rhs> for $t {
            type Output = MulOut<$t, Rhs>;
            #[inline(always)]
            fn mul(self, rhs: Rhs) -> Self::Output {
                mul(self, rhs)
            }
        }
        impl<$($g)*, Rhs: Int> core::ops::Add<Rhs> for $t {
            type Output = AddOut<$t, Rhs>;
            #[inline(always)]
            fn add(self, rhs: Rhs) -> Self::Output {
                add(self, rhs)
            }
        }
    )*};
}
static_ops! {
    [const N: isize] C<N>;
    [A: Int, B: Int] StaticMul<A, B>;
    [A: Int, B: Int] StaticAdd<A, B>;
}

/// Static integer aliases in CuTe's spelling: `_8` is `C<8>`.
pub mod consts {
    use super::C;
    macro_rules! aliases {
        ($($name:ident = $v:literal),* $(,)?) => {$(
            #[doc = concat!("CuTe's `_", stringify!($v), "`: the static integer ", stringify!($v), ".")]
            #[allow(non_camel_case_types)]
            pub type $name = C<$v>;
        )*};
    }
    aliases! {
        _0 = 0, _1 = 1, _2 = 2, _3 = 3, _4 = 4, _5 = 5, _6 = 6, _7 = 7, _8 = 8, _9 = 9, _10 = 10,
        _11 = 11, _12 = 12, _13 = 13, _14 = 14, _15 = 15, _16 = 16, _17 = 17, _18 = 18, _19 = 19,
        _20 = 20, _21 = 21, _22 = 22, _23 = 23, _24 = 24, _25 = 25, _26 = 26, _27 = 27, _28 = 28,
        _29 = 29, _30 = 30, _31 = 31, _32 = 32, _48 = 48, _64 = 64, _80 = 80, _96 = 96, _112 = 112,
        _128 = 128, _144 = 144, _160 = 160, _192 = 192, _224 = 224, _256 = 256, _384 = 384,
        _512 = 512, _768 = 768, _1024 = 1024, _2048 = 2048, _4096 = 4096, _8192 = 8192,
        _16384 = 16384, _32768 = 32768, _65536 = 65536,
    }
    /// CuTe's `_m1`: the static integer -1.
    #[allow(non_camel_case_types)]
    pub type _m1 = C<-1>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_results_stay_static_and_zero_sized() {
        let p = mul(C::<6>, C::<7>);
        assert_eq!(core::mem::size_of_val(&p), 0);
        assert_eq!(p.value(), 42);
        let q = add(p, C::<1>);
        assert_eq!(<MulOut<C<6>, C<7>> as Int>::STATIC, Some(42));
        assert_eq!(q.value(), 43);
    }

    #[test]
    fn mixed_results_take_the_first_runtime_type() {
        let a: u32 = mul(C::<3>, 5u32);
        let b: u32 = mul(5u32, 3usize);
        let c: usize = mul(C::<3>, mul(C::<2>, 7usize));
        assert_eq!((a, b, c), (15, 15, 42));
    }

    #[test]
    fn runtime_division_never_panics() {
        assert_eq!(div(7usize, 0usize), 0);
        assert_eq!(rem(7isize, 0isize), 0);
        assert_eq!(div(isize::MIN, -1isize), isize::MIN);
        assert_eq!(div(-7isize, 2isize), -3);
        assert_eq!(rem(-7isize, 2isize), -1);
    }

    #[test]
    fn cute_ceil_and_shape_div() {
        assert_eq!(<CeilDivOut<C<13>, C<4>> as Int>::STATIC, Some(4));
        assert_eq!(shape_div_int(C::<2>, C::<8>).value(), 1);
        assert_eq!(shape_div_int(C::<8>, C::<2>).value(), 4);
        assert_eq!(shape_div_int(6usize, 4usize), 2);
        assert_eq!(ceil_div_int(1usize, 3usize), 1);
    }

    #[test]
    fn typenum_integers_are_static() {
        assert_eq!(<typenum::U12 as Int>::STATIC, Some(12));
        assert_eq!(<typenum::N3 as Int>::STATIC, Some(-3));
        assert_eq!(<typenum::Z0 as Int>::STATIC, Some(0));
        let p = mul(typenum::U4::default(), C::<3>);
        assert_eq!(p.value(), 12);
    }

    #[test]
    fn fallible_conversions() {
        assert_eq!(u64::MAX.try_value(), None);
        assert_eq!(u32::try_from_value(-1), None);
        assert_eq!(C::<4>::try_from_value(4), Some(C::<4>));
        assert_eq!(C::<4>::try_from_value(5), None);
        assert!(C::<4> == 4usize);
        assert!(4usize == C::<4>);
    }
}
