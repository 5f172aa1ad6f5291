//! [`SwizzledLayout`]: a static swizzle after a layout, CuTe's `ComposedLayout<Swizzle<B,M,S>, _0,
//! Layout>` with the swizzle in the type.

use super::{Crd2Idx, Layout, LayoutShape};
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::swizzle::Swizzle;
use core::fmt;

/// `Sw<B,M,S> o _O o layout`: the offset of a coordinate is the layout's offset plus `O`, swizzled
/// (`O` is 0 unless given, as in CuTe's `composition(Sw<3,4,3>{}, Int<16>{}, layout)`). With a
/// static layout it is zero-sized, and `layout!(composition(Sw<3,4,3>, (8,64):(64,1)))` gives one.
///
/// ```
/// use const_layout::layout;
/// let smem = layout!(composition(Sw<3,4,3>, (8,64):(64,1)));
/// assert_eq!(smem.to_string(), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
/// assert_eq!(core::mem::size_of_val(&smem), 0);
/// // Row 2, column 1: offset 129, whose bit 7 flips bit 4.
/// assert_eq!(smem.crd2idx((2usize, 1usize)), 129 ^ 16);
/// ```
#[derive(Clone, Copy)]
pub struct SwizzledLayout<const B: u32, const M: u32, const S: i32, Sh, St, const O: isize = 0> {
    layout: Layout<Sh, St>,
}

impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize>
    SwizzledLayout<B, M, S, Sh, St, O>
{
    /// The swizzle; a compile error (full build) if `Sw<B,M,S>` is not one.
    pub const SWIZZLE: Swizzle = match Swizzle::new(B, M, S) {
        Ok(s) => s,
        Err(_) => panic!("not a swizzle: |S| must be at least B, and B+M+|S| at most 62"),
    };

    /// The swizzle after `layout`.
    ///
    /// ```
    /// use const_layout::layout::SwizzledLayout;
    /// let s = SwizzledLayout::<1, 0, 1, _, _>::new(const_layout::layout!((2,2):(1,2)));
    /// assert_eq!((0..4).map(|i| s.crd2idx(i as usize)).collect::<Vec<_>>(), [0, 1, 3, 2]);
    /// ```
    #[inline(always)]
    pub fn new(layout: Layout<Sh, St>) -> Self {
        let _ = Self::SWIZZLE;
        SwizzledLayout { layout }
    }

    /// The layout before the swizzle.
    ///
    /// ```
    /// let s = const_layout::layout!(composition(Sw<1,0,1>, (2,2):(1,2)));
    /// assert_eq!(s.layout().to_string(), "(_2,_2):(_1,_2)");
    /// ```
    pub fn layout(&self) -> &Layout<Sh, St> {
        &self.layout
    }

    /// CuTe's `size`: the layout's.
    ///
    /// ```
    /// use const_layout::int::Int;
    /// let s = const_layout::layout!(composition(Sw<1,0,1>, (2,2):(1,2)));
    /// assert_eq!(s.size().value(), 4);
    /// ```
    pub fn size(&self) -> Sh::Size {
        self.layout.size()
    }

    /// The swizzled offset of a coordinate (any form the layout accepts).
    ///
    /// ```
    /// let s = const_layout::layout!(composition(Sw<1,0,1>, (2,2):(1,2)));
    /// assert_eq!(s.crd2idx((0usize, 1usize)), 3);
    /// ```
    #[inline(always)]
    pub fn crd2idx<Crd: Crd2Idx<Sh, St>>(&self, coord: Crd) -> isize
    where
        super::OffsetOut<Crd, Sh, St>: Int,
    {
        Self::SWIZZLE.apply(O + self.layout.crd2idx(coord).value())
    }
}

impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize>
    fmt::Display for SwizzledLayout<B, M, S, Sh, St, O>
{
    /// CuTe's notation: `Sw<B,M,S> o _O o layout`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{B},{M},{S}> o _{O} o {}", self.layout)
    }
}

impl<const B: u32, const M: u32, const S: i32, Sh: IntTuple + LayoutShape<St>, St: IntTuple, const O: isize>
    fmt::Debug for SwizzledLayout<B, M, S, Sh, St, O>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// `Sw<B,M,S> o off o L` with a runtime offset `off`: a tile, partition or slice of a swizzled
/// layout (CuTe's `ComposedLayout<Swizzle<B,M,S>, int, L>`). The offset stays inside the swizzle,
/// because a swizzle does not commute with adding an offset in general: the tile of
/// `Sw<3,3,3> o (8,64):(64,1)` at offset 8 is not the tile at offset 0 moved by 8. Made by the
/// tensor functions ([`crate::tensor::local_tile`], [`crate::tensor::local_partition`], ...) on a
/// tensor over a [`SwizzledLayout`], a static
/// [`StaticSwizzled`](crate::algebra::computed::StaticSwizzled) or another `OffsetSwizzled`;
/// `L` is the inner part (a [`Layout`] or a static [`Computed`](crate::algebra::computed::Computed)).
///
/// ```
/// use const_layout::layout::OffsetSwizzled;
/// use const_layout::{AnyLayout, layout};
/// let part = OffsetSwizzled::<1, 0, 1, _>::new(2, layout!(2:1));
/// assert_eq!(part.to_string(), "Sw<1,0,1> o 2 o _2:_1");
/// assert_eq!(part.offsets().collect::<Vec<_>>(), [3, 2]); // 2 + 0 and 2 + 1, swizzled
/// ```
#[derive(Clone, Copy)]
pub struct OffsetSwizzled<const B: u32, const M: u32, const S: i32, L> {
    offset: isize,
    layout: L,
}

impl<const B: u32, const M: u32, const S: i32, L> OffsetSwizzled<B, M, S, L> {
    /// The swizzle; a compile error (full build) if `Sw<B,M,S>` is not one.
    pub const SWIZZLE: Swizzle = match Swizzle::new(B, M, S) {
        Ok(s) => s,
        Err(_) => panic!("not a swizzle: |S| must be at least B, and B+M+|S| at most 62"),
    };

    /// `Sw<B,M,S> o offset o layout`.
    ///
    /// ```
    /// use const_layout::layout::OffsetSwizzled;
    /// let s = OffsetSwizzled::<1, 0, 1, _>::new(1, const_layout::layout!(2:2));
    /// assert_eq!((s.offset(), s.layout().to_string()), (1, "_2:_2".to_string()));
    /// ```
    #[inline(always)]
    pub fn new(offset: isize, layout: L) -> Self {
        let _ = Self::SWIZZLE;
        OffsetSwizzled { offset, layout }
    }

    /// The offset added before the swizzle.
    ///
    /// ```
    /// let s = const_layout::layout::OffsetSwizzled::<1, 0, 1, _>::new(4, const_layout::layout!(2:1));
    /// assert_eq!(s.offset(), 4);
    /// ```
    #[inline(always)]
    pub fn offset(&self) -> isize {
        self.offset
    }

    /// The layout before the offset and the swizzle.
    ///
    /// ```
    /// let s = const_layout::layout::OffsetSwizzled::<1, 0, 1, _>::new(4, const_layout::layout!(2:1));
    /// assert_eq!(s.layout().to_string(), "_2:_1");
    /// ```
    #[inline(always)]
    pub fn layout(&self) -> &L {
        &self.layout
    }
}

impl<const B: u32, const M: u32, const S: i32, L: fmt::Display> fmt::Display for OffsetSwizzled<B, M, S, L> {
    /// CuTe's notation: `Sw<B,M,S> o offset o layout`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{B},{M},{S}> o {} o {}", self.offset, self.layout)
    }
}

impl<const B: u32, const M: u32, const S: i32, L: fmt::Display> fmt::Debug for OffsetSwizzled<B, M, S, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
