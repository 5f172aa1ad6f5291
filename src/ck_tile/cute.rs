//! A CuTe layout as one coordinate transform: its top-level modes are the upper dimensions (each
//! a 1-D coordinate, split colexicographically within its mode as CuTe splits it) and the offset
//! is the lower dimension. CK would build the same function from an `embed` of the layout's
//! integers under a `merge` per nested mode (row-major, so with the mode's integers reversed);
//! one transform that calls the layout's own index math is exact by construction and folds as
//! the layout does.

use super::{MultiIndex, Transform, recomputed};
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::{Crd2Idx, Layout, LayoutShape};
use generic_array::ArrayLength;
use typenum::U1;

/// A layout's flat coordinate type (one `isize` per top-level mode) and its dimension count.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no flat coordinate of `isize`s",
    note = "layouts of 1 to 12 top-level modes become transforms"
)]
pub trait TopModes: IntTuple {
    /// The number of top-level modes, as a typenum number.
    type Count: ArrayLength;
    /// The coordinate: an `isize` per top-level mode.
    type Coord: IntTuple;
    /// The coordinate from a multi-index.
    fn coord(index: &MultiIndex<Self::Count>) -> Self::Coord;
    /// The size of each top-level mode.
    fn mode_sizes(&self) -> MultiIndex<Self::Count>;
}

impl<T: Int> TopModes for T {
    type Count = U1;
    type Coord = isize;
    #[inline(always)]
    fn coord(index: &MultiIndex<U1>) -> isize {
        index[0]
    }
    #[inline(always)]
    fn mode_sizes(&self) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([self.value()])
    }
}

macro_rules! impl_top_modes {
    ($count:ident; $([$i:tt $A:ident])+) => {
        impl<$($A: IntTuple),+> TopModes for ($($A,)+) {
            type Count = typenum::$count;
            type Coord = ($(<$A as crate::algebra::typed::Each<isize>>::Out,)+);
            #[inline(always)]
            fn coord(index: &MultiIndex<Self::Count>) -> Self::Coord {
                ($(index[$i],)+)
            }
            #[inline(always)]
            fn mode_sizes(&self) -> MultiIndex<Self::Count> {
                MultiIndex::<Self::Count>::from([$(self.$i.size().value()),+])
            }
        }
    };
}
impl_top_modes!(U1; [0 A0]);
impl_top_modes!(U2; [0 A0] [1 A1]);
impl_top_modes!(U3; [0 A0] [1 A1] [2 A2]);
impl_top_modes!(U4; [0 A0] [1 A1] [2 A2] [3 A3]);
impl_top_modes!(U5; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4]);
impl_top_modes!(U6; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5]);
impl_top_modes!(U7; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6]);
impl_top_modes!(U8; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7]);
impl_top_modes!(U9; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8]);
impl_top_modes!(U10; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9]);
impl_top_modes!(U11; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9] [10 A10]);
impl_top_modes!(U12; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9] [10 A10] [11 A11]);

/// A CuTe layout as a transform: upper dimensions = the layout's top-level modes (1-D
/// coordinates), lower = the offset. Any nesting, static or runtime.
///
/// ```
/// use const_layout::ck_tile::{CuteLayout, Transform, multi_index};
/// use const_layout::layout;
/// let l = layout!((4,(2,3)):(3,(1,8)));
/// let t = CuteLayout::new(l);
/// assert_eq!(t.upper_lengths().as_slice(), &[4, 6]);
/// // Mode 1's coordinate 5 is (1,2) within (2,3): 1*3 + 1*1 + 2*8.
/// assert_eq!(t.calculate_lower_index(&multi_index([1, 5]))[0], 3 + 1 + 16);
/// ```
#[derive(Clone, Copy)]
pub struct CuteLayout<S, D> {
    layout: Layout<S, D>,
}

impl<S: TopModes + LayoutShape<D>, D: IntTuple> CuteLayout<S, D> {
    /// The transform of `layout`.
    pub fn new(layout: Layout<S, D>) -> Self {
        CuteLayout { layout }
    }

    /// The layout.
    pub fn layout(&self) -> &Layout<S, D> {
        &self.layout
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> core::fmt::Debug for CuteLayout<S, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "CuteLayout({})", self.layout)
    }
}

impl<S, D> Transform for CuteLayout<S, D>
where
    S: TopModes + LayoutShape<D>,
    D: IntTuple,
    S::Coord: Crd2Idx<S, D>,
{
    const NAME: &'static str = "cute_layout";
    const IS_KNOWN_AT_COMPILE_TIME: bool = S::IS_STATIC && D::IS_STATIC;
    type Low = U1;
    type Up = S::Count;
    #[inline(always)]
    fn upper_lengths(&self) -> MultiIndex<S::Count> {
        self.layout.shape().mode_sizes()
    }
    #[inline(always)]
    fn calculate_lower_index(&self, up: &MultiIndex<S::Count>) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([S::coord(up).offset(&self.layout.shape(), &self.layout.stride())])
    }
    #[inline(always)]
    fn update_lower_index(
        &self,
        _: &MultiIndex<S::Count>,
        low: &mut MultiIndex<U1>,
        up_new: &MultiIndex<S::Count>,
    ) -> MultiIndex<U1> {
        recomputed(low, self.calculate_lower_index(up_new))
    }
}
