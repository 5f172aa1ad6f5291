//! Why a tensor could not be made, narrowed, partitioned or copied.

use crate::LayoutError;
use core::fmt;

/// Why a tensor operation failed. Every tensor function returns it instead of panicking.
///
/// Indices are 1-D (colexicographic) indices into the layout named, modes are top-level modes.
///
/// ```
/// use const_layout::tensor::{TensorError, make_tensor};
/// use const_layout::{LayoutLeft, make_layout};
/// let err = make_tensor(&[0u8; 10], make_layout((4usize, 3usize), LayoutLeft).unwrap()).unwrap_err();
/// assert_eq!(err, TensorError::SliceTooShort { cosize: 12, len: 10 });
/// assert_eq!(err.to_string(), "the layout reaches 12 elements (its cosize) but the slice has 10");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorError {
    /// A layout computation failed (a tile coordinate past the tiles, a result that does not fit
    /// its integer type, ...).
    Layout(LayoutError),
    /// The slice is shorter than the layout's cosize (the span of its offsets).
    SliceTooShort {
        /// The number of elements the layout reaches.
        cosize: usize,
        /// The slice's length.
        len: usize,
    },
    /// Two coordinates of a layout that must be injective (to hand out disjoint mutable
    /// partitions) have the same offset.
    NotInjective {
        /// The first index with that offset.
        first: usize,
        /// The next index with that offset.
        second: usize,
        /// The offset.
        offset: isize,
    },
    /// A tile extent does not divide the tensor's extent, so some tiles (CuTe's residue) would
    /// reach past the tensor's shape.
    NotDivisible {
        /// The mode.
        mode: usize,
        /// The tensor's extent in that mode.
        extent: isize,
        /// The tile's extent in that mode.
        tile: isize,
    },
    /// The tile asked of `local_tile` reaches past the tensor's shape (a residue tile).
    TilePastShape {
        /// The mode.
        mode: usize,
        /// The tile coordinate in that mode.
        coord: isize,
        /// The tile's extent in that mode.
        tile: isize,
        /// The tensor's extent in that mode.
        extent: isize,
    },
    /// A thread index is not below the thread layout's size.
    ThreadOutOfRange {
        /// The index.
        index: usize,
        /// The thread layout's size.
        threads: usize,
    },
    /// Two threads of a thread layout have the same coordinate, so their partitions would be the
    /// same elements (the thread layout is not a bijection onto its shape).
    ThreadsShare {
        /// The first thread.
        first: usize,
        /// The second thread.
        second: usize,
    },
    /// `copy` between tensors whose shapes differ: different sizes, or neither shape's
    /// coordinates are the other's (CuTe's `compatible`).
    ShapeMismatch {
        /// The source's size.
        src: usize,
        /// The destination's size.
        dst: usize,
    },
}

impl From<LayoutError> for TensorError {
    fn from(e: LayoutError) -> Self {
        TensorError::Layout(e)
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TensorError::Layout(e) => fmt::Display::fmt(&e, f),
            TensorError::SliceTooShort { cosize, len } => {
                write!(f, "the layout reaches {cosize} elements (its cosize) but the slice has {len}")
            }
            TensorError::NotInjective { first, second, offset } => write!(
                f,
                "the layout is not injective: indices {first} and {second} both have offset {offset}, so their elements cannot be handed out separately"
            ),
            TensorError::NotDivisible { mode, extent, tile } => write!(
                f,
                "mode {mode}: the tile extent {tile} does not divide the tensor's extent {extent}, so the last tile would reach past the tensor"
            ),
            TensorError::TilePastShape { mode, coord, tile, extent } => write!(
                f,
                "mode {mode}: tile {coord} of extent {tile} reaches {}, past the tensor's extent {extent}",
                (coord + 1).saturating_mul(tile)
            ),
            TensorError::ThreadOutOfRange { index, threads } => {
                write!(f, "thread {index} is outside the thread layout's {threads} threads")
            }
            TensorError::ThreadsShare { first, second } => write!(
                f,
                "threads {first} and {second} have the same coordinate in the thread layout, so they would own the same elements"
            ),
            TensorError::ShapeMismatch { src, dst } => write!(
                f,
                "copy between shapes that do not match: sizes {src} and {dst}, or neither shape's coordinates are the other's"
            ),
        }
    }
}

impl core::error::Error for TensorError {}
