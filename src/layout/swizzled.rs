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
