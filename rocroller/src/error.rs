//! Errors of rocRoller's coordinate graph: a layout error, or one of the graph's own.

use const_layout_core::error::LayoutError;
use core::fmt;

/// Why a coordinate graph, one of its edges or a tile could not answer: a [`LayoutError`] of its
/// sizes, or a graph condition.
///
/// ```
/// use const_layout::rocroller::GraphError;
/// let e = GraphError::Graph { what: "no path reaches this dimension", tag: 3 };
/// assert_eq!(e.to_string(), "coordinate graph: no path reaches this dimension (tag 3)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GraphError {
    /// A sizes or index error, as for any layout.
    Layout(LayoutError),
    /// A coordinate-graph edge that has no function in the direction asked (rocRoller's `Forget`
    /// either way, `Split` forward, `Join` reverse), or that lacks what its function needs.
    EdgeFunction {
        /// rocRoller's name of the edge.
        edge: &'static str,
        /// Its tag.
        tag: usize,
        /// What is missing.
        why: &'static str,
    },
    /// A coordinate graph that cannot answer: a dimension no traversal reaches, a bad tag.
    Graph {
        /// What went wrong.
        what: &'static str,
        /// The tag concerned.
        tag: usize,
    },
    /// A path or tile that is no CuTe layout, and the step that makes it so.
    NotALayout {
        /// rocRoller's name of the edge or tile.
        transform: &'static str,
        /// Why.
        why: &'static str,
    },
    /// A rocRoller tile whose sizes do not fit together (a wave tile that does not divide its
    /// macro tile, a zero sub-tile size).
    TileSizes {
        /// Which tile.
        what: &'static str,
        /// The dimension.
        dim: usize,
        /// The size along it.
        size: isize,
        /// What it must be a positive multiple of.
        part: isize,
    },
}

impl From<LayoutError> for GraphError {
    fn from(e: LayoutError) -> Self {
        GraphError::Layout(e)
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GraphError::Layout(e) => e.fmt(f),
            GraphError::EdgeFunction { edge, tag, why } => write!(f, "edge {tag} ({edge}): {why}"),
            GraphError::NotALayout { transform, why } => {
                write!(f, "not a CuTe layout because of `{transform}`: {why}")
            }
            GraphError::Graph { what, tag } => write!(f, "coordinate graph: {what} (tag {tag})"),
            GraphError::TileSizes { what, dim, size, part } => {
                write!(f, "{what}: size {size} along dimension {dim} is not a positive multiple of {part}")
            }
        }
    }
}

impl core::error::Error for GraphError {}
