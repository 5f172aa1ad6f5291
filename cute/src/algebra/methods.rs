//! CuTe's algebra as methods of typed layouts, with CuTe's names, dispatched on the layout's
//! integers: a layout whose integers are all static gets a static result (a zero-sized
//! [`Computed`] layout computed at compile time, what [`crate::algebra::computed`] gives), any
//! other a runtime one (what [`crate::algebra::typed`] and [`crate::algebra::tiling`] give
//! where they apply, a structure in the type and values at run time; a runtime-structured
//! [`DynLayout`] from [`crate::algebra`] otherwise). Each method calls the free function of its
//! path, so both give the same answer or the same error; one implementation of each rule is
//! underneath all of them ([`crate::algebra::rules`]).
//!
//! | method | static layout | other typed layout |
//! |---|---|---|
//! | `composition(&b)` | `Computed` | `Result<Layout>` (`typed::composition`) |
//! | `complement_to(m)` | `Computed` | `Result<Layout>` (`typed::complement`) |
//! | `logical_divide(t)`, `zipped_divide(t)` | `Computed` | `Result<Layout>` (`tiling`) |
//! | `local_tile(t, c)` | `(Computed, isize)` | `Result<(Layout, isize)>` (`tiling`) |
//! | `coalesce()`, `filter()`, `complement()`, `right_inverse()`, `left_inverse()` | `Computed` | `Result<DynLayout>` |
//! | `blocked_product(&b)`, `raked_product(&b)` | `Computed` | `Result<DynLayout>` |
//! | `tiled_divide(t)`, `flat_divide(t)`, the products by a tiler | `Computed` | `Result<DynLayout>` (a static tiler) |
//! | `local_partition(&thr, i)` | `Result<(Layout, isize)>` | `Result<(Layout, isize)>` |
//! | `slice_and_offset(crd)` (`Keep` for CuTe's `_`) | `Result<(Layout, isize)>` | `Result<(Layout, isize)>` |
//!
//! `local_partition` and `slice_and_offset` are defined with the tensors' parts
//! (`tensor::LocalPartitionOf`, `tensor::SliceOf`: the same functions
//! [`tensor::local_partition`](crate::tensor::local_partition) and
//! [`tensor::slice`](crate::tensor::slice) apply to a tensor); on a [`Computed`] layout and a
//! static thread layout the part is static ([`computed::slice_and_offset`] slices one). The
//! swizzled kinds (and `OffsetSwizzled`) have `local_tile`, `local_partition` and
//! `slice_and_offset` too: the part of the layout inside the swizzle, the offset kept inside it
//! (`layout::OffsetSwizzled`).
//!
//! Static results ([`Computed`]) have the same methods, all static. Swizzled layouts
//! ([`StaticSwizzled`], [`SwizzledLayout`]) have `coalesce`, `filter`, the divides and the
//! products (and [`StaticSwizzled`] `composition`): the operation on the layout before the
//! swizzle, the swizzle after the result (`(Sw o L) o T` is `Sw o (L o T)`; CuTe's divides and
//! products of a composed layout work on its inner layout too).
//!
//! Which path is taken is decided by the types alone ([`Static`] or [`Runtime`], the kind of all
//! the operands' integers), through one dispatch trait per method ([`CoalescePath`], ...: dispatch
//! only, named in errors). A static layout with a runtime tiler is refused (the static path
//! takes static tilers): call the free function of the runtime path instead.
//!
//! ```
//! use const_layout::{C, LayoutLeft, layout, make_layout};
//! // Static: folded at compile time, zero-sized.
//! let s = layout!((8,6):(1,8)).zipped_divide((C::<4>, C::<3>));
//! assert_eq!(s.to_string(), "((_4,_3),(_2,_2)):((_1,_8),(_4,_24))");
//! assert_eq!(core::mem::size_of_val(&s), 0);
//! // Runtime values, the same structure in the type: checked once.
//! let r = make_layout((8usize, 6usize), LayoutLeft).unwrap().zipped_divide((C::<4>, C::<3>)).unwrap();
//! assert_eq!(r.to_string(), "((_4,_3),(2,2)):((_1,8),(_4,24))");
//! ```

use crate::LayoutError;
use crate::algebra::computed::{self, Computed, StaticExpr, StaticLayout, StaticSwizzled, StaticTiler};
use crate::algebra::tiling::{self, ShapeTiler, TileAt, TileCoord};
use crate::algebra::typed::{self, Complemented, Composed, CompositionOf, FlatTuple};
use crate::dyn_layout::DynLayout;
use crate::int::{Int, Runtime, Static};
use crate::int_tuple::{IntTuple, StaticTuple};
use crate::layout::{Layout, LayoutShape, OffsetSwizzled, SwizzledLayout};

/// The kind of a typed layout's integers: [`Static`] if all are static, else [`Runtime`].
pub type KindOf<S, D> = <(S, D) as IntTuple>::Kind;

macro_rules! unary {
    ($($(#[$doc:meta])* $Trait:ident $method:ident $Expr:ident;)+) => {$(
        #[doc = concat!("How [`Layout::", stringify!($method), "`] is computed: for [`Static`] layouts at compile time, for [`Runtime`] ones by the runtime-structured algebra. Dispatch only (see the [module](self)).")]
        ///
        /// ```
        /// use const_layout::algebra::methods::KindOf;
        /// use const_layout::int::{Kind, Static};
        /// use const_layout::C;
        /// assert!(<KindOf<(C<4>, C<2>), (C<1>, C<4>)> as Kind>::IS_STATIC);
        /// ```
        #[diagnostic::on_unimplemented(
            message = "this algebra method has no path for `{Self}` layouts",
            label = "the layout's integers decide the path",
            note = "a static layout's result is computed at compile time; a runtime one's by the runtime-structured algebra"
        )]
        pub trait $Trait<S, D> {
            /// The result.
            type Output;
            /// The result with the swizzle `Sw<B,M,S>` after it (what a swizzled layout's method
            /// returns).
            type Swizzled<const B: u32, const M: u32, const SS: i32>;
            /// The result for `l`.
            fn $method(l: &Layout<S, D>) -> Self::Output;
            /// `Sw<B,M,S>` after the result `out`.
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS>;
        }

        #[diagnostic::do_not_recommend]
        impl<S: StaticTuple + LayoutShape<D>, D: StaticTuple> $Trait<S, D> for Static {
            type Output = Computed<computed::$Expr<Layout<S, D>>>;
            type Swizzled<const B: u32, const M: u32, const SS: i32> = StaticSwizzled<B, M, SS, Self::Output>;
            #[inline(always)]
            fn $method(l: &Layout<S, D>) -> Self::Output {
                computed::$method(*l)
            }
            #[inline(always)]
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS> {
                computed::swizzle(out)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<S: IntTuple + LayoutShape<D>, D: IntTuple> $Trait<S, D> for Runtime {
            type Output = Result<DynLayout, LayoutError>;
            type Swizzled<const B: u32, const M: u32, const SS: i32> = Result<OffsetSwizzled<B, M, SS, DynLayout>, LayoutError>;
            fn $method(l: &Layout<S, D>) -> Self::Output {
                DynLayout::try_from(l)?.$method()
            }
            #[inline(always)]
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS> {
                out.map(|l| OffsetSwizzled::new(0, l))
            }
        }
    )+
    impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Layout<S, D> {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $method(&self) -> <KindOf<S, D> as $Trait<S, D>>::Output
        where
            KindOf<S, D>: $Trait<S, D>,
        {
            <KindOf<S, D> as $Trait<S, D>>::$method(self)
        }
    )+}
    };
}

unary! {
    /// CuTe's `coalesce(layout)`: the same function with as few modes as possible. Static in,
    /// static out; runtime values give a runtime-structured layout, whose runtime modes are
    /// merged only where CuTe merges them (CuTe cannot merge by value: its result is a type).
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// assert_eq!(layout!((2,(1,6)):(1,(6,2))).coalesce().to_string(), "_12:_1");
    /// let r = make_layout((2usize, 6usize), (1isize, 2isize)).unwrap();
    /// assert_eq!(r.coalesce().unwrap().to_string(), "(2,6):(1,2)");
    /// ```
    CoalescePath coalesce Coalesce;
    /// CuTe's `filter(layout)`: stride-0 and extent-1 modes removed, then coalesced.
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// assert_eq!(layout!((2,1,3):(0,1,2)).filter().to_string(), "_3:_2");
    /// let r = make_layout((2usize, 3usize), (0isize, 2isize)).unwrap();
    /// assert_eq!(r.filter().unwrap().to_string(), "3:2");
    /// ```
    FilterPath filter Filter;
    /// CuTe's `complement(layout)`: the offsets the layout leaves out, up to its cosize.
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// assert_eq!(layout!(4:2).complement().to_string(), "_2:_1");
    /// assert_eq!(make_layout(4usize, 2isize).unwrap().complement().unwrap().to_string(), "(2,1):(_1,8)");
    /// ```
    ComplementPath complement Complement;
    /// CuTe's `right_inverse(layout)`: `layout(right_inverse(layout)(i)) == i` on its domain.
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// assert_eq!(layout!((4,2):(2,1)).right_inverse().to_string(), "(_2,_4):(_4,_1)");
    /// let r = make_layout((4usize, 2usize), (2isize, 1isize)).unwrap();
    /// assert_eq!(r.right_inverse().unwrap().to_string(), "(2,4):(4,1)");
    /// ```
    RightInversePath right_inverse RightInverse;
    /// CuTe's `left_inverse(layout)`: `left_inverse(layout)(layout(i)) == i`.
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// assert_eq!(layout!((4,2):(2,1)).left_inverse().to_string(), "(_2,_4):(_4,_1)");
    /// let r = make_layout((4usize, 2usize), (2isize, 1isize)).unwrap().left_inverse().unwrap();
    /// // Runtime values: the same function, in the runtime algebra's structure.
    /// assert_eq!(r.to_string(), "(1,2,4):(_0,4,_1)");
    /// assert!((0..8).all(|i| r.offset(i) == layout!((4,2):(2,1)).left_inverse().crd2idx(i as usize)));
    /// ```
    LeftInversePath left_inverse LeftInverse;
}

/// The kind of two typed layouts' integers together.
type KindOf2<S, D, SB, DB> = <(S, D, SB, DB) as IntTuple>::Kind;

/// How [`Layout::composition`] is computed: for [`Static`] operands at compile time, for
/// [`Runtime`] ones by [`typed::composition`]. Dispatch only (see the [module](self)).
///
/// ```
/// use const_layout::algebra::methods::CompositionPath;
/// use const_layout::int::Static;
/// use const_layout::layout_type;
/// let (a, b) = (<layout_type!((6,2):(8,2))>::default(), <layout_type!((4,3):(3,1))>::default());
/// let c = <Static as CompositionPath<_, _, _>>::composition(&a, &b);
/// assert_eq!(c.to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`composition` has no path for these `{Self}` operands",
    label = "the operands' integers decide the path",
    note = "static operands compose at compile time; runtime ones through `typed::composition`, whose operands' modes are integers (`DynLayout::try_from(&a)?.composition(..)` takes any)"
)]
pub trait CompositionPath<S, D, B> {
    /// The result.
    type Output;
    /// `a o b`.
    fn composition(a: &Layout<S, D>, b: &B) -> Self::Output;
}

#[diagnostic::do_not_recommend]
impl<S, D, SB, DB> CompositionPath<S, D, Layout<SB, DB>> for Static
where
    S: StaticTuple + LayoutShape<D>,
    D: StaticTuple,
    SB: StaticTuple + LayoutShape<DB>,
    DB: StaticTuple,
    Layout<SB, DB>: StaticTiler,
{
    type Output = Computed<computed::Composition<Layout<S, D>, Layout<SB, DB>>>;
    #[inline(always)]
    fn composition(a: &Layout<S, D>, b: &Layout<SB, DB>) -> Self::Output {
        computed::composition(*a, *b)
    }
}

#[diagnostic::do_not_recommend]
impl<S, D, SB, DB> CompositionPath<S, D, Layout<SB, DB>> for Runtime
where
    S: FlatTuple + LayoutShape<D>,
    D: IntTuple,
    SB: Composed<S> + LayoutShape<DB>,
    DB: IntTuple,
{
    type Output = Result<CompositionOf<S, SB>, LayoutError>;
    #[inline(always)]
    fn composition(a: &Layout<S, D>, b: &Layout<SB, DB>) -> Self::Output {
        typed::composition(a, b)
    }
}

/// How [`Layout::complement_to`] is computed: for [`Static`] operands at compile time, for
/// [`Runtime`] ones by [`typed::complement`]. Dispatch only (see the [module](self)).
///
/// ```
/// use const_layout::algebra::methods::ComplementToPath;
/// use const_layout::int::Runtime;
/// let a = const_layout::make_layout((4usize, 8usize), (1isize, 16isize)).unwrap();
/// let k = <Runtime as ComplementToPath<_, _, usize>>::complement_to(&a, 4096).unwrap();
/// assert_eq!(k.to_string(), "(1,4,32):(1,4,128)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`complement_to` has no path for these `{Self}` operands",
    label = "the operands' integers decide the path",
    note = "static operands complement at compile time; runtime ones through `typed::complement`, whose layout's modes are integers and whose cotarget is one integer"
)]
pub trait ComplementToPath<S, D, M> {
    /// The result.
    type Output;
    /// The complement of `a` up to `m`.
    fn complement_to(a: &Layout<S, D>, m: M) -> Self::Output;
}

#[diagnostic::do_not_recommend]
impl<S: StaticTuple + LayoutShape<D>, D: StaticTuple, M: StaticTuple> ComplementToPath<S, D, M> for Static {
    type Output = Computed<computed::ComplementTo<Layout<S, D>, M>>;
    #[inline(always)]
    fn complement_to(a: &Layout<S, D>, m: M) -> Self::Output {
        computed::complement_to(*a, m)
    }
}

#[diagnostic::do_not_recommend]
impl<S: Complemented + LayoutShape<D>, D: IntTuple, M: Int> ComplementToPath<S, D, M> for Runtime {
    type Output = Result<Layout<S::Out, S::Out>, LayoutError>;
    #[inline(always)]
    fn complement_to(a: &Layout<S, D>, m: M) -> Self::Output {
        typed::complement(a, m)
    }
}

macro_rules! by_layout {
    ($($(#[$doc:meta])* $Trait:ident $method:ident $Expr:ident;)+) => {$(
        #[doc = concat!("How [`Layout::", stringify!($method), "`] is computed: for [`Static`] operands at compile time, for [`Runtime`] ones by the runtime-structured algebra. Dispatch only (see the [module](self)).")]
        ///
        /// ```
        /// use const_layout::algebra::methods::KindOf;
        /// use const_layout::int::{Kind, Runtime};
        /// assert!(!<KindOf<usize, isize> as Kind>::IS_STATIC);
        /// ```
        #[diagnostic::on_unimplemented(
            message = "this algebra method has no path for `{Self}` operands",
            label = "the operands' integers decide the path",
            note = "static operands are computed at compile time; runtime ones by the runtime-structured algebra"
        )]
        pub trait $Trait<S, D, B> {
            /// The result.
            type Output;
            /// The result for `a` and `b`.
            fn $method(a: &Layout<S, D>, b: &B) -> Self::Output;
        }

        #[diagnostic::do_not_recommend]
        impl<S, D, SB, DB> $Trait<S, D, Layout<SB, DB>> for Static
        where
            S: StaticTuple + LayoutShape<D>,
            D: StaticTuple,
            SB: StaticTuple + LayoutShape<DB>,
            DB: StaticTuple,
        {
            type Output = Computed<computed::$Expr<Layout<S, D>, Layout<SB, DB>>>;
            #[inline(always)]
            fn $method(a: &Layout<S, D>, b: &Layout<SB, DB>) -> Self::Output {
                computed::$method(*a, *b)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<S, D, SB, DB> $Trait<S, D, Layout<SB, DB>> for Runtime
        where
            S: IntTuple + LayoutShape<D>,
            D: IntTuple,
            SB: IntTuple + LayoutShape<DB>,
            DB: IntTuple,
        {
            type Output = Result<DynLayout, LayoutError>;
            fn $method(a: &Layout<S, D>, b: &Layout<SB, DB>) -> Self::Output {
                DynLayout::try_from(a)?.$method(&DynLayout::try_from(b)?)
            }
        }
    )+};
}

by_layout! {
    BlockedProductPath blocked_product BlockedProduct;
    RakedProductPath raked_product RakedProduct;
}

macro_rules! by_tiler {
    ($($Trait:ident $method:ident $Expr:ident $(=> $tiling:ident $Shape:ident $Stride:ident)?;)+) => {$(
        #[doc = concat!("How [`Layout::", stringify!($method), "`] is computed: for [`Static`] layouts at compile time, with a static tiler; for [`Runtime`] ones ", by_tiler!(@how $($tiling)?), ". Dispatch only (see the [module](self)).")]
        ///
        /// ```
        /// use const_layout::algebra::methods::KindOf;
        /// use const_layout::int::Kind;
        /// use const_layout::C;
        /// assert!(!<KindOf<(usize, C<4>), (C<1>, isize)> as Kind>::IS_STATIC);
        /// ```
        #[diagnostic::on_unimplemented(
            message = "this algebra method has no path for a `{Self}` layout and the tiler `{T}`",
            label = "the layout's integers decide the path",
            note = "a static layout takes a static tiler (`(C<4>, C<2>)`, a static layout, ...); a runtime layout a shape tiler in `logical_divide`, `zipped_divide` and `local_tile`, a static tiler in the others; anything else goes through the runtime-structured algebra (`DynLayout::try_from(&layout)?`)"
        )]
        pub trait $Trait<S, D, T> {
            /// The result.
            type Output;
            /// The result with the swizzle `Sw<B,M,S>` after it (what a swizzled layout's method
            /// returns).
            type Swizzled<const B: u32, const M: u32, const SS: i32>;
            /// The result for `a` and `t`.
            fn $method(a: &Layout<S, D>, t: T) -> Self::Output;
            /// `Sw<B,M,S>` after the result `out`.
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS>;
        }

        // The bounds' own messages would name a tiler item, not the method: see the trait's.
        #[diagnostic::do_not_recommend]
        impl<S: StaticTuple + LayoutShape<D>, D: StaticTuple, T: StaticTiler> $Trait<S, D, T> for Static {
            type Output = Computed<computed::$Expr<Layout<S, D>, T>>;
            type Swizzled<const B: u32, const M: u32, const SS: i32> = StaticSwizzled<B, M, SS, Self::Output>;
            #[inline(always)]
            fn $method(a: &Layout<S, D>, t: T) -> Self::Output {
                computed::$method(*a, t)
            }
            #[inline(always)]
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS> {
                computed::swizzle(out)
            }
        }

        by_tiler!(@runtime $Trait $method $(=> $tiling $Shape $Stride)?);
    )+};
    (@how $tiling:ident) => { concat!("by [`tiling::", stringify!($tiling), "`], with a shape tiler") };
    (@how) => { "by the runtime-structured algebra, with a static tiler" };
    (@runtime $Trait:ident $method:ident => $tiling:ident $Shape:ident $Stride:ident) => {
        #[diagnostic::do_not_recommend]
        impl<S: IntTuple + LayoutShape<D>, D: IntTuple, T: ShapeTiler<S, D>> $Trait<S, D, T> for Runtime {
            type Output = Result<Layout<T::$Shape, T::$Stride>, LayoutError>;
            type Swizzled<const B: u32, const M: u32, const SS: i32> =
                Result<OffsetSwizzled<B, M, SS, Layout<T::$Shape, T::$Stride>>, LayoutError>;
            #[inline(always)]
            fn $method(a: &Layout<S, D>, t: T) -> Self::Output {
                tiling::$tiling(a, t)
            }
            #[inline(always)]
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS> {
                out.map(|l| OffsetSwizzled::new(0, l))
            }
        }
    };
    (@runtime $Trait:ident $method:ident) => {
        #[diagnostic::do_not_recommend]
        impl<S: IntTuple + LayoutShape<D>, D: IntTuple, T: StaticTiler> $Trait<S, D, T> for Runtime {
            type Output = Result<DynLayout, LayoutError>;
            type Swizzled<const B: u32, const M: u32, const SS: i32> = Result<OffsetSwizzled<B, M, SS, DynLayout>, LayoutError>;
            fn $method(a: &Layout<S, D>, _: T) -> Self::Output {
                DynLayout::try_from(a)?.$method(&T::TILER)
            }
            #[inline(always)]
            fn swizzle_after<const B: u32, const M: u32, const SS: i32>(out: Self::Output) -> Self::Swizzled<B, M, SS> {
                out.map(|l| OffsetSwizzled::new(0, l))
            }
        }
    };
}

by_tiler! {
    LogicalDividePath logical_divide LogicalDivide => logical_divide DivShape DivStride;
    ZippedDividePath zipped_divide ZippedDivide => zipped_divide ZipShape ZipStride;
    TiledDividePath tiled_divide TiledDivide;
    FlatDividePath flat_divide FlatDivide;
    LogicalProductPath logical_product LogicalProduct;
    ZippedProductPath zipped_product ZippedProduct;
    TiledProductPath tiled_product TiledProduct;
    FlatProductPath flat_product FlatProduct;
}

/// How [`Layout::local_tile`] is computed: for [`Static`] layouts at compile time (the offset
/// folded index math), for [`Runtime`] ones by [`tiling::local_tile`]. Dispatch only (see the
/// [module](self)).
///
/// ```
/// use const_layout::algebra::methods::LocalTilePath;
/// use const_layout::int::Runtime;
/// use const_layout::{C, make_layout};
/// let a = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
/// let (tile, offset) = <Runtime as LocalTilePath<_, _, _, _>>::local_tile(&a, (C::<4>, 2usize), (2usize, 1usize)).unwrap();
/// assert_eq!((tile.to_string(), offset), ("(_4,2):(_1,12)".to_string(), 32));
/// ```
#[diagnostic::on_unimplemented(
    message = "`local_tile` has no path for a `{Self}` layout, the tiler `{T}` and the coordinate `{X}`",
    label = "the layout's integers decide the path",
    note = "a static layout takes a static tiler; a runtime one a shape tiler and one coordinate per mode (`tiling::local_tile`)"
)]
pub trait LocalTilePath<S, D, T, X> {
    /// The tile and the offset of its first element.
    type Output;
    /// Tile `x` of `a` by `t`.
    fn local_tile(a: &Layout<S, D>, t: T, x: X) -> Self::Output;
}

#[diagnostic::do_not_recommend]
impl<S: StaticTuple + LayoutShape<D>, D: StaticTuple, T: StaticTiler, X: IntTuple> LocalTilePath<S, D, T, X>
    for Static
{
    type Output = (Computed<computed::LocalTile<Layout<S, D>, T>>, isize);
    #[inline(always)]
    fn local_tile(a: &Layout<S, D>, t: T, x: X) -> Self::Output {
        computed::local_tile(*a, t, x)
    }
}

#[diagnostic::do_not_recommend]
impl<S, D, T, X> LocalTilePath<S, D, T, X> for Runtime
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
    X: TileCoord<T, S, D>,
{
    type Output = Result<TileAt<S, D, T>, LayoutError>;
    #[inline(always)]
    fn local_tile(a: &Layout<S, D>, t: T, x: X) -> Self::Output {
        tiling::local_tile(a, t, x)
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Layout<S, D> {
    /// CuTe's `complement(self, cotarget)`: the offsets `self` leaves out, up to `cotarget`.
    ///
    /// ```
    /// use const_layout::{C, layout, make_layout};
    /// assert_eq!(layout!((2,2):(1,6)).complement_to(C::<24>).to_string(), "(_3,_2):(_2,_12)");
    /// let r = make_layout((4usize, 8usize), (1isize, 16isize)).unwrap();
    /// assert_eq!(r.complement_to(4096usize).unwrap().to_string(), "(1,4,32):(1,4,128)");
    /// ```
    #[inline(always)]
    pub fn complement_to<M>(
        &self,
        cotarget: M,
    ) -> <<(S, D, M) as IntTuple>::Kind as ComplementToPath<S, D, M>>::Output
    where
        M: IntTuple,
        <(S, D, M) as IntTuple>::Kind: ComplementToPath<S, D, M>,
    {
        <<(S, D, M) as IntTuple>::Kind as ComplementToPath<S, D, M>>::complement_to(self, cotarget)
    }

    /// CuTe's `local_tile(self, tiler, coord)`: tile `coord` of `zipped_divide(self, tiler)`, as
    /// the tile's layout and the offset of its first element.
    ///
    /// ```
    /// use const_layout::{C, layout, make_layout};
    /// let (tile, offset) = layout!((8,6):(1,8)).local_tile((C::<4>, C::<3>), (1usize, 1usize));
    /// assert_eq!((tile.to_string(), offset), ("(_4,_3):(_1,_8)".to_string(), 28));
    /// let a = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
    /// let (tile, offset) = a.local_tile((C::<4>, 2usize), (2usize, 1usize)).unwrap();
    /// assert_eq!((tile.to_string(), offset), ("(_4,2):(_1,12)".to_string(), 32));
    /// ```
    #[inline(always)]
    pub fn local_tile<T, X>(&self, tiler: T, coord: X) -> <KindOf<S, D> as LocalTilePath<S, D, T, X>>::Output
    where
        KindOf<S, D>: LocalTilePath<S, D, T, X>,
    {
        <KindOf<S, D> as LocalTilePath<S, D, T, X>>::local_tile(self, tiler, coord)
    }
}

macro_rules! layout_operand_methods {
    ($($(#[$doc:meta])* $Trait:ident $method:ident;)+) => {
        impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Layout<S, D> {$(
            $(#[$doc])*
            #[inline(always)]
            #[allow(clippy::type_complexity)]
            pub fn $method<SB, DB>(&self, b: &Layout<SB, DB>) -> <KindOf2<S, D, SB, DB> as $Trait<S, D, Layout<SB, DB>>>::Output
            where
                KindOf2<S, D, SB, DB>: $Trait<S, D, Layout<SB, DB>>,
                SB: IntTuple,
                DB: IntTuple,
            {
                <KindOf2<S, D, SB, DB> as $Trait<S, D, Layout<SB, DB>>>::$method(self, b)
            }
        )+}
    };
}

layout_operand_methods! {
    /// CuTe's `composition(self, b)`: `self(b(i))` for every index. Static operands give a
    /// static layout; runtime ones the typed runtime result (see the [module](self)).
    ///
    /// ```
    /// use const_layout::{C, layout, make_layout};
    /// let c = layout!((6,2):(8,2)).composition(&layout!((4,3):(3,1)));
    /// assert_eq!(c.to_string(), "((_2,_2),_3):((_24,_2),_8)");
    /// let a = make_layout((6usize, 4usize), (C::<1>, 8isize)).unwrap();
    /// let r = a.composition(&make_layout(12usize, 2isize).unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(3,4):(2,8)");
    /// ```
    CompositionPath composition;
    /// CuTe's `blocked_product(self, b)`: `b`'s arrangement of copies of `self`, the modes
    /// interleaved block-first.
    ///
    /// ```
    /// use const_layout::{layout, make_layout};
    /// let p = layout!((2,2):(1,2)).blocked_product(&layout!((2,3):(3,1)));
    /// assert_eq!(p.to_string(), "((_2,_2),(_2,_3)):((_1,_12),(_2,_4))");
    /// let r = make_layout((2usize, 2usize), (1isize, 2isize)).unwrap();
    /// let q = r.blocked_product(&make_layout((2usize, 3usize), (3isize, 1isize)).unwrap()).unwrap();
    /// // Runtime values: the same function, in the runtime algebra's structure.
    /// assert!((0..24).all(|i| q.offset(i) == p.crd2idx(i as usize)));
    /// ```
    BlockedProductPath blocked_product;
    /// CuTe's `raked_product(self, b)`: `b`'s arrangement of copies of `self`, the modes
    /// interleaved arrangement-first.
    ///
    /// ```
    /// use const_layout::layout;
    /// let p = layout!((2,2):(1,2)).raked_product(&layout!((2,3):(3,1)));
    /// assert_eq!(p.to_string(), "((_2,_2),(_3,_2)):((_12,_1),(_4,_2))");
    /// ```
    RakedProductPath raked_product;
}

macro_rules! tiler_methods {
    ($($(#[$doc:meta])* $Trait:ident $method:ident;)+) => {
        impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Layout<S, D> {$(
            $(#[$doc])*
            #[inline(always)]
            pub fn $method<T>(&self, tiler: T) -> <KindOf<S, D> as $Trait<S, D, T>>::Output
            where
                KindOf<S, D>: $Trait<S, D, T>,
            {
                <KindOf<S, D> as $Trait<S, D, T>>::$method(self, tiler)
            }
        )+}
    };
}

tiler_methods! {
    /// CuTe's `logical_divide(self, tiler)`: each mode split into the tile and the tiles.
    ///
    /// ```
    /// use const_layout::{C, layout, make_layout};
    /// let d = layout!((12,8):(1,12)).logical_divide((C::<4>, C::<2>));
    /// assert_eq!(d.to_string(), "((_4,_3),(_2,_4)):((_1,_4),(_12,_24))");
    /// let r = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
    /// assert_eq!(r.logical_divide((C::<4>, 2usize)).unwrap().to_string(), "((_4,3),(2,4)):((_1,_4),(12,24))");
    /// ```
    LogicalDividePath logical_divide;
    /// CuTe's `zipped_divide(self, tiler)`: the tile's modes first, then the tiles'.
    ///
    /// ```
    /// use const_layout::{C, layout, make_layout};
    /// let z = layout!((12,8):(1,12)).zipped_divide((C::<4>, C::<2>));
    /// assert_eq!(z.to_string(), "((_4,_2),(_3,_4)):((_1,_12),(_4,_24))");
    /// let r = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
    /// assert_eq!(r.zipped_divide((C::<4>, 2usize)).unwrap().to_string(), "((_4,2),(3,4)):((_1,12),(_4,24))");
    /// ```
    ZippedDividePath zipped_divide;
    /// CuTe's `tiled_divide(self, tiler)`: the tile, then the tiles' modes one by one.
    ///
    /// ```
    /// use const_layout::{C, layout};
    /// let d = layout!((12,8):(1,12)).tiled_divide((C::<4>, C::<2>));
    /// assert_eq!(d.to_string(), "((_4,_2),_3,_4):((_1,_12),_4,_24)");
    /// // Runtime values, a static tiler: the runtime-structured algebra's layout.
    /// let r = const_layout::make_layout((12usize, 8usize), (1isize, 12isize)).unwrap();
    /// assert_eq!(r.tiled_divide((C::<4>, C::<2>)).unwrap().to_string(), "((_4,_2),3,4):((1,12),4,24)");
    /// ```
    TiledDividePath tiled_divide;
    /// CuTe's `flat_divide(self, tiler)`: the tile's modes, then the tiles' modes, flat.
    ///
    /// ```
    /// use const_layout::{C, layout};
    /// let d = layout!((12,8):(1,12)).flat_divide((C::<4>, C::<2>));
    /// assert_eq!(d.to_string(), "(_4,_2,_3,_4):(_1,_12,_4,_24)");
    /// ```
    FlatDividePath flat_divide;
    /// CuTe's `logical_product(self, tiler)`: copies of `self` arranged by the tiler.
    ///
    /// ```
    /// use const_layout::layout;
    /// let p = layout!((2,2):(4,1)).logical_product(layout!(6:1));
    /// assert_eq!(p.to_string(), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
    /// ```
    LogicalProductPath logical_product;
    /// CuTe's `zipped_product(self, tiler)`.
    ///
    /// ```
    /// use const_layout::{C, layout};
    /// let p = layout!((2,5):(5,1)).zipped_product((C::<3>, C::<4>));
    /// assert_eq!(p.to_string(), "((_2,_5),(_3,_4)):((_5,_1),(_1,_5))");
    /// ```
    ZippedProductPath zipped_product;
    /// CuTe's `tiled_product(self, tiler)`.
    ///
    /// ```
    /// use const_layout::{C, layout};
    /// let p = layout!((2,5):(5,1)).tiled_product((C::<3>, C::<4>));
    /// assert_eq!(p.to_string(), "((_2,_5),_3,_4):((_5,_1),_1,_5)");
    /// ```
    TiledProductPath tiled_product;
    /// CuTe's `flat_product(self, tiler)`.
    ///
    /// ```
    /// use const_layout::{C, layout};
    /// let p = layout!((2,5):(5,1)).flat_product((C::<3>, C::<4>));
    /// assert_eq!(p.to_string(), "(_2,_5,_3,_4):(_5,_1,_1,_5)");
    /// ```
    FlatProductPath flat_product;
}

// ---------------------------------------------------------------------------------------------
// Static results: their methods are the static path's, so results compose into results.

macro_rules! computed_unary {
    ($($method:ident $Expr:ident $out:literal;)+) => {
        impl<E: StaticExpr> Computed<E> {$(
            #[doc = concat!("CuTe's `", stringify!($method), "(self)` of this static layout: [`computed::", stringify!($method), "`], static.")]
            ///
            /// ```
            /// use const_layout::layout_type;
            /// let l = <layout_type!((8,6):(6,1))>::default().coalesce(); // a `Computed` layout
            #[doc = concat!("assert_eq!(l.", stringify!($method), "().to_string(), \"", $out, "\");")]
            /// ```
            #[inline(always)]
            pub fn $method(&self) -> Computed<computed::$Expr<Self>> {
                computed::$method(*self)
            }
        )+}
    };
}

computed_unary! {
    coalesce Coalesce "(_8,_6):(_6,_1)";
    filter Filter "(_8,_6):(_6,_1)";
    complement Complement "_1:_0";
    right_inverse RightInverse "(_6,_8):(_8,_1)";
    left_inverse LeftInverse "(_6,_8):(_8,_1)";
}

macro_rules! computed_binary {
    ($($method:ident $Expr:ident $Bound:ident ($arg:literal) $out:literal;)+) => {
        impl<E: StaticExpr> Computed<E> {$(
            #[doc = concat!("CuTe's `", stringify!($method), "(self, b)` of this static layout: [`computed::", stringify!($method), "`], static.")]
            ///
            /// ```
            /// use const_layout::{C, layout_type};
            /// let l = <layout_type!((8,6):(6,1))>::default().coalesce(); // a `Computed` layout
            #[doc = concat!("assert_eq!(l.", stringify!($method), "(", $arg, ").to_string(), \"", $out, "\");")]
            /// ```
            #[inline(always)]
            pub fn $method<B: $Bound>(&self, b: B) -> Computed<computed::$Expr<Self, B>> {
                computed::$method(*self, b)
            }
        )+}
    };
}

computed_binary! {
    composition Composition StaticTiler ("(C::<4>, C::<3>)") "(_4,_3):(_6,_1)";
    logical_divide LogicalDivide StaticTiler ("(C::<4>, C::<3>)") "((_4,_2),(_3,_2)):((_6,_24),(_1,_3))";
    zipped_divide ZippedDivide StaticTiler ("(C::<4>, C::<3>)") "((_4,_3),(_2,_2)):((_6,_1),(_24,_3))";
    tiled_divide TiledDivide StaticTiler ("(C::<4>, C::<3>)") "((_4,_3),_2,_2):((_6,_1),_24,_3)";
    flat_divide FlatDivide StaticTiler ("(C::<4>, C::<3>)") "(_4,_3,_2,_2):(_6,_1,_24,_3)";
    logical_product LogicalProduct StaticTiler ("(C::<2>, C::<2>)") "((_8,_2),(_6,_2)):((_6,_1),(_1,_6))";
    zipped_product ZippedProduct StaticTiler ("(C::<2>, C::<2>)") "((_8,_6),(_2,_2)):((_6,_1),(_1,_6))";
    tiled_product TiledProduct StaticTiler ("(C::<2>, C::<2>)") "((_8,_6),_2,_2):((_6,_1),_1,_6)";
    flat_product FlatProduct StaticTiler ("(C::<2>, C::<2>)") "(_8,_6,_2,_2):(_6,_1,_1,_6)";
    blocked_product BlockedProduct StaticLayout ("<layout_type!((2,2):(1,2))>::default()") "((_8,_2),(_6,_2)):((_6,_48),(_1,_96))";
    raked_product RakedProduct StaticLayout ("<layout_type!((2,2):(1,2))>::default()") "((_2,_8),(_2,_6)):((_48,_6),(_96,_1))";
    complement_to ComplementTo StaticTuple ("C::<96>") "_2:_48";
}

impl<E: StaticExpr> Computed<E> {
    /// CuTe's `local_tile(self, tiler, coord)` of this static layout: [`computed::local_tile`].
    ///
    /// ```
    /// use const_layout::{C, layout_type};
    /// let z = <layout_type!((8,6):(1,8))>::default().coalesce();
    /// let (tile, offset) = z.local_tile(C::<4>, 3usize);
    /// assert_eq!((tile.to_string(), offset), ("(_4):(_1)".to_string(), 12));
    /// ```
    #[inline(always)]
    pub fn local_tile<T: StaticTiler, X: IntTuple>(
        &self,
        tiler: T,
        coord: X,
    ) -> (Computed<computed::LocalTile<Self, T>>, isize) {
        computed::local_tile(*self, tiler, coord)
    }
}

// ---------------------------------------------------------------------------------------------
// Swizzled layouts: the algebra applies to the layout before the swizzle, as CuTe's does for a
// composed layout (`(Sw o L) o T` is `Sw o (L o T)`, and CuTe's divides and products of a composed
// layout divide or multiply its inner layout), and the swizzle goes after the result: static for
// a static layout (`StaticSwizzled`), at offset 0 of an `OffsetSwizzled` for a runtime one. A
// `SwizzledLayout` with an offset before its swizzle (`O` other than 0) has no methods: its
// tiles are the tensor functions' (`tensor::local_tile`), which keep the offset inside.

macro_rules! swizzled_methods {
    (
        unary: [$($u:ident $UExpr:ident $UPath:ident $ux:literal;)+]
        tiler: [$($t:ident $TExpr:ident $TPath:ident ($targ:literal) $tx:literal;)+]
    ) => {
        impl<const B: u32, const M: u32, const S: i32, A: StaticLayout + Copy + Default> StaticSwizzled<B, M, S, A> {
            $(
            #[doc = concat!("CuTe's `", stringify!($u), "` of this swizzled layout: the swizzle after the `", stringify!($u), "` of the layout before it, static.")]
            ///
            /// ```
            /// use const_layout::algebra::computed::swizzle;
            /// use const_layout::layout_type;
            /// let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
            #[doc = concat!("assert_eq!(smem.", stringify!($u), "().to_string(), \"", $ux, "\");")]
            /// ```
            #[inline(always)]
            pub fn $u(&self) -> StaticSwizzled<B, M, S, Computed<computed::$UExpr<A>>> {
                computed::swizzle(computed::$u(A::default()))
            }
            )+
            $(
            #[doc = concat!("CuTe's `", stringify!($t), "(self, tiler)` of this swizzled layout: the swizzle after the `", stringify!($t), "` of the layout before it, static.")]
            ///
            /// ```
            /// use const_layout::algebra::computed::swizzle;
            /// use const_layout::{C, layout_type};
            /// let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
            #[doc = concat!("assert_eq!(smem.", stringify!($t), "(", $targ, ").to_string(), \"", $tx, "\");")]
            /// ```
            #[inline(always)]
            pub fn $t<T: StaticTiler>(&self, tiler: T) -> StaticSwizzled<B, M, S, Computed<computed::$TExpr<A, T>>> {
                computed::swizzle(computed::$t(A::default(), tiler))
            }
            )+

            /// CuTe's `composition(self, tiler)` of this swizzled layout: `Sw o (L o T)`, static.
            ///
            /// ```
            /// use const_layout::algebra::computed::swizzle;
            /// use const_layout::{C, layout_type};
            /// let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
            /// let part = smem.composition((C::<4>, C::<16>));
            /// assert_eq!(part.to_string(), "Sw<3,3,3> o _0 o (_4,_16):(_64,_1)");
            /// assert_eq!(part.crd2idx((3usize, 9usize)), smem.crd2idx((3usize, 9usize)));
            /// ```
            #[inline(always)]
            pub fn composition<T: StaticTiler>(&self, tiler: T) -> StaticSwizzled<B, M, S, Computed<computed::Composition<A, T>>> {
                computed::swizzle(computed::composition(A::default(), tiler))
            }
        }

        impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple>
            SwizzledLayout<B, M, S, Sh, St, 0>
        {
            $(
            #[doc = concat!("CuTe's `", stringify!($u), "` of this swizzled layout: the swizzle after [`Layout::", stringify!($u), "`] of the layout before it (static for a static layout, else runtime).")]
            ///
            /// ```
            /// use const_layout::layout;
            #[doc = concat!("assert_eq!(layout!(composition(Sw<3,3,3>, (8,64):(64,1))).", stringify!($u), "().to_string(), \"", $ux, "\");")]
            /// ```
            #[inline(always)]
            pub fn $u(&self) -> <KindOf<Sh, St> as $UPath<Sh, St>>::Swizzled<B, M, S>
            where
                KindOf<Sh, St>: $UPath<Sh, St>,
            {
                <KindOf<Sh, St> as $UPath<Sh, St>>::swizzle_after(self.layout().$u())
            }
            )+
            $(
            #[doc = concat!("CuTe's `", stringify!($t), "(self, tiler)` of this swizzled layout: the swizzle after [`Layout::", stringify!($t), "`] of the layout before it (static for a static layout, else runtime).")]
            ///
            /// ```
            /// use const_layout::{C, layout};
            #[doc = concat!("assert_eq!(layout!(composition(Sw<3,3,3>, (8,64):(64,1))).", stringify!($t), "(", $targ, ").to_string(), \"", $tx, "\");")]
            /// ```
            #[inline(always)]
            pub fn $t<T>(&self, tiler: T) -> <KindOf<Sh, St> as $TPath<Sh, St, T>>::Swizzled<B, M, S>
            where
                KindOf<Sh, St>: $TPath<Sh, St, T>,
            {
                <KindOf<Sh, St> as $TPath<Sh, St, T>>::swizzle_after(self.layout().$t(tiler))
            }
            )+
        }
    };
}

swizzled_methods! {
    unary: [
        coalesce Coalesce CoalescePath "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)";
        filter Filter FilterPath "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)";
    ]
    tiler: [
        logical_divide LogicalDivide LogicalDividePath ("(C::<4>, C::<16>)") "Sw<3,3,3> o _0 o ((_4,_2),(_16,_4)):((_64,_256),(_1,_16))";
        zipped_divide ZippedDivide ZippedDividePath ("(C::<4>, C::<16>)") "Sw<3,3,3> o _0 o ((_4,_16),(_2,_4)):((_64,_1),(_256,_16))";
        tiled_divide TiledDivide TiledDividePath ("(C::<4>, C::<16>)") "Sw<3,3,3> o _0 o ((_4,_16),_2,_4):((_64,_1),_256,_16)";
        flat_divide FlatDivide FlatDividePath ("(C::<4>, C::<16>)") "Sw<3,3,3> o _0 o (_4,_16,_2,_4):(_64,_1,_256,_16)";
        logical_product LogicalProduct LogicalProductPath ("C::<2>") "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)";
        zipped_product ZippedProduct ZippedProductPath ("C::<2>") "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)";
        tiled_product TiledProduct TiledProductPath ("C::<2>") "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)";
        flat_product FlatProduct FlatProductPath ("C::<2>") "Sw<3,3,3> o _0 o (_8,_64,_2):(_64,_1,_512)";
    ]
}
