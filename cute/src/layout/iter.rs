//! Iterating a layout's offsets in index order.

use super::{Layout, LayoutShape};
use crate::int::Int;
use crate::int_tuple::IntTuple;

/// The offsets `L(0), ..., L(size - 1)` of a layout; made by [`Layout::iter`].
///
/// ```
/// use const_layout::layout;
/// let mut it = layout!((2,2):(2,1)).iter();
/// assert_eq!(it.len(), 4);
/// assert_eq!(it.next_back(), Some(3));
/// assert_eq!(it.collect::<Vec<_>>(), [0, 2, 1]);
/// ```
#[derive(Clone)]
pub struct Offsets<S, D> {
    layout: Layout<S, D>,
    front: isize,
    back: isize,
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Offsets<S, D> {
    pub(crate) fn new(layout: Layout<S, D>) -> Self {
        let back = layout.size().value();
        Offsets { layout, front: 0, back }
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Iterator for Offsets<S, D> {
    type Item = isize;
    #[inline]
    fn next(&mut self) -> Option<isize> {
        if self.front >= self.back {
            return None;
        }
        let i = self.front;
        self.front += 1;
        Some(self.layout.shape().offset_of_index(&self.layout.stride(), i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.back - self.front) as usize;
        (n, Some(n))
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> DoubleEndedIterator for Offsets<S, D> {
    #[inline]
    fn next_back(&mut self) -> Option<isize> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        Some(self.layout.shape().offset_of_index(&self.layout.stride(), self.back))
    }
}

impl<S: IntTuple, D: IntTuple> core::fmt::Debug for Offsets<S, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Offsets({}, {}..{})", self.layout, self.front, self.back)
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> ExactSizeIterator for Offsets<S, D> {}
impl<S: IntTuple + LayoutShape<D>, D: IntTuple> core::iter::FusedIterator for Offsets<S, D> {}
