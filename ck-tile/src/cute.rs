//! A CuTe layout as one coordinate transform: its top-level modes are the upper dimensions (each
//! a 1-D coordinate, split colexicographically within its mode as CuTe splits it) and the offset
//! is the lower dimension. CK would build the same function from an `embed` of the layout's
//! integers under a `merge` per nested mode (row-major, so with the mode's integers reversed);
//! one transform that calls the layout's own index math is exact by construction and folds as
//! the layout does.

pub use const_layout_cute::int_tuple::TopModes;

use super::{MultiIndex, Transform, recomputed};
use crate::int_tuple::IntTuple;
use crate::layout::{Crd2Idx, Layout, LayoutShape};
use typenum::U1;

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
