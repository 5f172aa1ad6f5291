//! Tiling a typed layout by a shape, with runtime values: CuTe's `logical_divide`,
//! `zipped_divide` and `local_tile` where the tiler is a shape (CuTe's `Tile<_128, _64>`, every
//! tile mode `T:_1`) and every mode of the layout is an integer.
//!
//! This is the kernel's common case: a static tile over a matrix whose extents and leading
//! dimension arrive at run time. The result's *structure* is in its type, as CuTe's is (a mode
//! `s:d` divided by `T` is `(T, ceil(s/T)):(d, T*d)`), so only the values are computed: a division
//! and a multiplication per mode, with no runtime-structured intermediate. The general algebra on
//! runtime values (any tiler, nested modes, composition, complement) is [`crate::algebra`] on
//! [`DynLayout`](crate::dyn_layout::DynLayout); fully static expressions are
//! [`algebra::computed`](crate::algebra::computed) or `layout!`.
//!
//! A mode whose extent `T` does not divide is tiled as CuTe tiles it: `ceil(s/T)` tiles, the last
//! one reaching past `s` (a mode `s:d` is the function `x -> x*d` on every integer, so the result
//! is still exactly the layout composed with the tiler; the kernel predicates the residue).
//!
//! ```
//! use const_layout::algebra::tiling::{local_tile, logical_divide, zipped_divide};
//! use const_layout::{C, make_layout};
//! let (m, n, ld) = (1000usize, 300usize, 1024isize);
//! let a = make_layout((m, n), (C::<1>, ld)).unwrap();
//! let t = (C::<128>, C::<64>);
//! assert_eq!(logical_divide(&a, t).unwrap().to_string(), "((_128,8),(_64,5)):((_1,_128),(1024,65536))");
//! assert_eq!(zipped_divide(&a, t).unwrap().to_string(), "((_128,_64),(8,5)):((_1,1024),(_128,65536))");
//! let (tile, offset) = local_tile(&a, t, (2usize, 3usize)).unwrap();
//! assert_eq!((tile.to_string(), offset), ("(_128,_64):(_1,1024)".to_string(), 2 * 128 + 3 * 64 * 1024));
//! ```

use crate::LayoutError;
use crate::algebra::rules;
use crate::int::{CeilDivOut, Int, Kind, StaticMul};
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, LayoutShape};

/// A shape tiler `Self` (an integer, or a tuple of integers, one per mode) for a layout with shape
/// `S` and stride `D` whose modes are integers.
///
/// ```
/// use const_layout::algebra::tiling::ShapeTiler;
/// use const_layout::C;
/// fn tiles<T: ShapeTiler<(usize, usize), (isize, isize)>>(_: T) {}
/// tiles((C::<128>, C::<64>));
/// tiles((16usize, 16usize));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a shape tiler for the shape `{S}`",
    label = "expected one integer tile extent per mode of the layout",
    note = "the typed runtime tiling takes a layout whose modes are integers and a tuple of tile extents of the same rank; nested modes and tilers with strides go through `const_layout::algebra` (runtime structure) or `algebra::computed` (static)"
)]
pub trait ShapeTiler<S: IntTuple, D: IntTuple>: IntTuple {
    /// `logical_divide`'s shape: `(T, ceil(s/T))` per mode.
    type DivShape: IntTuple + LayoutShape<Self::DivStride>;
    /// `logical_divide`'s stride: `(d, T*d)` per mode.
    type DivStride: IntTuple;
    /// `zipped_divide`'s shape: `((T..), (ceil(s/T)..))`.
    type ZipShape: IntTuple + LayoutShape<Self::ZipStride>;
    /// `zipped_divide`'s stride: `((d..), (T*d..))`.
    type ZipStride: IntTuple;
    /// The tile's shape: `Self`, as a tuple (CuTe's slice of the zipped layout's first mode).
    type Tile: IntTuple + LayoutShape<Self::TileStride>;
    /// The tile's stride: the layout's, as a tuple.
    type TileStride: IntTuple;
    /// The logical divide's shape and stride, values checked (a positive tile extent, a stride
    /// `T*d` that fits its type).
    fn logical(&self, s: &S, d: &D) -> Result<(Self::DivShape, Self::DivStride), LayoutError>;
    /// The zipped divide's shape and stride.
    fn zipped(&self, s: &S, d: &D) -> Result<(Self::ZipShape, Self::ZipStride), LayoutError>;
    /// The tile's shape and stride.
    fn tile(&self, d: &D) -> (Self::Tile, Self::TileStride);
    /// Whether every tile extent is positive and divides its mode's extent. Then the divided
    /// layouts have the layout's size and cosize (each mode `s:d` becomes `(T, s/T):(d, T*d)`,
    /// the same offsets), so they are valid once `T*d` fits its type.
    fn divides(&self, s: &S) -> bool;
}

/// The type of a divided mode's step `T*d`: static if both are; otherwise the stride's runtime
/// type, or `isize` for a static stride (a stride may be negative, so the tile extent's unsigned
/// type would not do).
///
/// ```
/// use const_layout::algebra::tiling::StepOut;
/// use const_layout::int::Int;
/// use const_layout::C;
/// assert_eq!(<StepOut<C<4>, C<-2>> as Int>::STATIC, Some(-8));
/// let _: StepOut<usize, C<-1>> = -3isize;
/// let _: StepOut<usize, i32> = -3i32;
/// ```
pub type StepOut<T, D> = <<<T as Int>::Kind as Kind>::And<<D as Int>::Kind> as Kind>::Select<
    StaticMul<T, D>,
    <D as Int>::RtOr<isize>,
>;

/// Whether a tile extent `t` is positive and divides the extent `s`. The remainder is the one
/// [`divide_mode`] computes (the same operation), so it is not computed again.
#[inline(always)]
fn tile_divides(s: isize, t: isize) -> bool {
    t > 0 && s % t == 0
}

/// A divided mode's number of tiles and step.
type DividedMode<S, D, T> = (CeilDivOut<S, T>, StepOut<T, D>);

/// One mode `s:d` divided by `t`: `(ceil(s/t), t*d)` by the core's rule
/// ([`rules::divide_mode`], which the runtime-structured divide applies too), in the result's
/// integer types.
#[inline(always)]
fn divide_mode<S: Int, D: Int, T: Int>(
    s: S,
    d: D,
    t: T,
    leaf: usize,
) -> Result<DividedMode<S, D, T>, LayoutError> {
    let (rest, step) = rules::divide_mode(s.value(), d.value(), t.value(), leaf)?;
    let rest = <CeilDivOut<S, T> as Int>::try_from_value(rest)
        .ok_or(LayoutError::TypeTooSmall { what: "shape", value: rest })?;
    let step = <StepOut<T, D> as Int>::try_from_value(step)
        .ok_or(LayoutError::TypeTooSmall { what: "stride", value: step })?;
    Ok((rest, step))
}

impl<T: Int, S: Int, D: Int> ShapeTiler<S, D> for T {
    type DivShape = (T, CeilDivOut<S, T>);
    type DivStride = (D, StepOut<T, D>);
    type ZipShape = (T, CeilDivOut<S, T>);
    type ZipStride = (D, StepOut<T, D>);
    type Tile = (T,);
    type TileStride = (D,);
    #[inline(always)]
    fn logical(&self, s: &S, d: &D) -> Result<(Self::DivShape, Self::DivStride), LayoutError> {
        let (rest, step) = divide_mode(*s, *d, *self, 0)?;
        Ok(((*self, rest), (*d, step)))
    }
    #[inline(always)]
    fn zipped(&self, s: &S, d: &D) -> Result<(Self::ZipShape, Self::ZipStride), LayoutError> {
        self.logical(s, d)
    }
    #[inline(always)]
    fn tile(&self, d: &D) -> ((T,), (D,)) {
        ((*self,), (*d,))
    }
    #[inline(always)]
    fn divides(&self, s: &S) -> bool {
        tile_divides(s.value(), self.value())
    }
}

macro_rules! impl_shape_tiler {
    ($([$i:tt $S:ident $D:ident $T:ident $T2:ident])+) => {
        impl<$($T: Int, $S: Int, $D: Int),+> ShapeTiler<($($S,)+), ($($D,)+)> for ($($T,)+) {
            type DivShape = ($(($T, CeilDivOut<$S, $T>),)+);
            type DivStride = ($(($D, StepOut<$T, $D>),)+);
            type ZipShape = (($($T,)+), ($(CeilDivOut<$S, $T>,)+));
            type ZipStride = (($($D,)+), ($(StepOut<$T, $D>,)+));
            type Tile = ($($T,)+);
            type TileStride = ($($D,)+);
            #[inline(always)]
            fn logical(&self, s: &($($S,)+), d: &($($D,)+)) -> Result<(Self::DivShape, Self::DivStride), LayoutError> {
                let parts = ($(divide_mode(s.$i, d.$i, self.$i, 2 * $i + 1)?,)+);
                Ok((($((self.$i, parts.$i.0),)+), ($((d.$i, parts.$i.1),)+)))
            }
            #[inline(always)]
            fn zipped(&self, s: &($($S,)+), d: &($($D,)+)) -> Result<(Self::ZipShape, Self::ZipStride), LayoutError> {
                let parts = ($(divide_mode(s.$i, d.$i, self.$i, $i)?,)+);
                Ok(((($(self.$i,)+), ($(parts.$i.0,)+)), (($(d.$i,)+), ($(parts.$i.1,)+))))
            }
            #[inline(always)]
            fn tile(&self, d: &($($D,)+)) -> (Self::Tile, Self::TileStride) {
                (*self, *d)
            }
            #[inline(always)]
            fn divides(&self, s: &($($S,)+)) -> bool {
                // `&`, not `&&`: no branch per mode.
                true $(& tile_divides(s.$i.value(), self.$i.value()))+
            }
        }

        impl<$($T: Int, $S: Int, $D: Int, $T2: Int),+> TileCoord<($($T,)+), ($($S,)+), ($($D,)+)> for ($($T2,)+) {
            #[inline(always)]
            fn tile_offset(&self, t: &($($T,)+), s: &($($S,)+), d: &($($D,)+)) -> Result<isize, LayoutError> {
                let mut offset = 0isize;
                $(
                    let (rest, step) = divide_mode(s.$i, d.$i, t.$i, $i)?;
                    let c = self.$i.value();
                    if c < 0 || c >= rest.value() {
                        return Err(LayoutError::CoordinateOutOfRange { leaf: $i, value: c, extent: rest.value() });
                    }
                    // In range, so within the divided layout's cosize, which `Layout::try_new` checks.
                    offset = offset.wrapping_add(c.wrapping_mul(step.value()));
                )+
                Ok(offset)
            }
        }
    };
}

/// A tile coordinate `Self` (one integer per mode) for [`local_tile`] with tiler `T` on a layout
/// with shape `S` and stride `D`.
///
/// ```
/// use const_layout::algebra::tiling::TileCoord;
/// use const_layout::C;
/// fn at<X: TileCoord<(C<8>, C<8>), (usize, usize), (isize, isize)>>(_: X) {}
/// at((1usize, 2u32));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tile coordinate for the tiler `{T}`",
    label = "expected one integer per mode of the tiler",
    note = "`local_tile(layout, tiler, coord)` takes the index of the tile along each mode"
)]
pub trait TileCoord<T, S, D> {
    /// The offset of tile `self`: `sum(c * T * d)`, each `c` below its mode's number of tiles.
    fn tile_offset(&self, t: &T, s: &S, d: &D) -> Result<isize, LayoutError>;
}

impl<T: Int, S: Int, D: Int, X: Int> TileCoord<T, S, D> for X {
    #[inline(always)]
    fn tile_offset(&self, t: &T, s: &S, d: &D) -> Result<isize, LayoutError> {
        (*self,).tile_offset(&(*t,), &(*s,), &(*d,))
    }
}

// `arity::for_tuples` names three type parameters per position; tiling needs four (shape, stride,
// tiler, coordinate), so the same walk over arities 1..=12 with four names.
macro_rules! for_tuples4 {
    ($m:ident) => {
        for_tuples4!(@ $m []
            [0 S0 D0 T0 X0] [1 S1 D1 T1 X1] [2 S2 D2 T2 X2] [3 S3 D3 T3 X3] [4 S4 D4 T4 X4]
            [5 S5 D5 T5 X5] [6 S6 D6 T6 X6] [7 S7 D7 T7 X7] [8 S8 D8 T8 X8] [9 S9 D9 T9 X9]
            [10 S10 D10 T10 X10] [11 S11 D11 T11 X11]);
    };
    (@ $m:ident [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $m!($($done)* $next);
        for_tuples4!(@ $m [$($done)* $next] $($rest)*);
    };
    (@ $m:ident [$($done:tt)*]) => {};
}
for_tuples4!(impl_shape_tiler);

/// CuTe's `logical_divide(layout, tiler)` for a shape tiler and a layout whose modes are integers,
/// with runtime values: each mode `s:d` becomes `(T, ceil(s/T)):(d, T*d)`. See the
/// [module](self) for the scope.
///
/// ```
/// use const_layout::algebra::tiling::logical_divide;
/// use const_layout::{C, make_layout};
/// let a = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
/// let d = logical_divide(&a, (C::<4>, 2usize)).unwrap();
/// assert_eq!(d.to_string(), "((_4,3),(2,4)):((_1,_4),(12,24))");
/// assert_eq!(d.crd2idx(((1usize, 2usize), (1usize, 3usize))), 1 + 8 + 12 + 72);
/// ```
#[inline(always)]
pub fn logical_divide<S, D, T>(
    layout: &Layout<S, D>,
    tiler: T,
) -> Result<Layout<T::DivShape, T::DivStride>, LayoutError>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
{
    let (shape, stride) = tiler.logical(&layout.shape(), &layout.stride())?;
    divided(layout, &tiler, shape, stride)
}

/// The divided layout from its shape and stride: where the tile divides, valid by construction
/// (the layout's size and cosize, see [`ShapeTiler::divides`]); otherwise checked.
#[inline(always)]
fn divided<S, D, T, RS, RD>(
    layout: &Layout<S, D>,
    tiler: &T,
    shape: RS,
    stride: RD,
) -> Result<Layout<RS, RD>, LayoutError>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
    RS: IntTuple + LayoutShape<RD>,
    RD: IntTuple,
{
    if tiler.divides(&layout.shape()) {
        return Layout::valid_by_construction(shape, stride, layout.size().value(), layout.cosize().value());
    }
    Layout::try_new(shape, stride)
}

/// CuTe's `zipped_divide(layout, tiler)` for a shape tiler: the tile's modes first, then the
/// tiles', `((T..), (ceil(s/T)..)):((d..), (T*d..))`. See the [module](self).
///
/// ```
/// use const_layout::algebra::tiling::zipped_divide;
/// use const_layout::{C, make_layout};
/// let a = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
/// let z = zipped_divide(&a, (C::<4>, 2usize)).unwrap();
/// assert_eq!(z.to_string(), "((_4,2),(3,4)):((_1,12),(_4,24))");
/// ```
#[inline(always)]
pub fn zipped_divide<S, D, T>(
    layout: &Layout<S, D>,
    tiler: T,
) -> Result<Layout<T::ZipShape, T::ZipStride>, LayoutError>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
{
    let (shape, stride) = tiler.zipped(&layout.shape(), &layout.stride())?;
    divided(layout, &tiler, shape, stride)
}

/// What [`local_tile`] returns: the tile's layout and the offset of its first element.
pub type TileAt<S, D, T> =
    (Layout<<T as ShapeTiler<S, D>>::Tile, <T as ShapeTiler<S, D>>::TileStride>, isize);

/// CuTe's `local_tile(layout, tiler, coord)` for a shape tiler: tile `coord` of
/// [`zipped_divide`], as the tile's layout `T:d` and the offset of its first element,
/// `sum(c * T * d)`. A coordinate outside the tiles (`c >= ceil(s/T)`) is an error.
///
/// ```
/// use const_layout::algebra::tiling::local_tile;
/// use const_layout::{C, LayoutError, make_layout};
/// let a = make_layout((12usize, 8usize), (C::<1>, 12isize)).unwrap();
/// let (tile, offset) = local_tile(&a, (C::<4>, 2usize), (2usize, 1usize)).unwrap();
/// assert_eq!((tile.to_string(), offset), ("(_4,2):(_1,12)".to_string(), 8 + 24));
/// assert_eq!(
///     local_tile(&a, (C::<4>, 2usize), (3usize, 0usize)).unwrap_err(),
///     LayoutError::CoordinateOutOfRange { leaf: 0, value: 3, extent: 3 }
/// );
/// ```
#[inline(always)]
pub fn local_tile<S, D, T, X>(
    layout: &Layout<S, D>,
    tiler: T,
    coord: X,
) -> Result<TileAt<S, D, T>, LayoutError>
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
    T: ShapeTiler<S, D>,
    X: TileCoord<T, S, D>,
{
    let offset = coord.tile_offset(&tiler, &layout.shape(), &layout.stride())?;
    // The tile's stride is the layout's, and its extents divide nothing: only the cosize of
    // `T:d` needs the check `try_new` does.
    let (shape, stride) = tiler.tile(&layout.stride());
    Ok((Layout::try_new(shape, stride)?, offset))
}
