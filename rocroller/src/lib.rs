//! AMD rocRoller's coordinate graph in Rust, on [const-layout-core](https://docs.rs/const-layout-core)'s
//! runtime layouts; re-exported by [const-layout](https://docs.rs/const-layout) as
//! `const_layout::rocroller` (its default feature `rocroller`), the path the examples use.
//!
//! rocRoller's coordinate graph: dimensions (nodes) joined by coordinate-transform and dataflow
//! hyperedges, and a transformer that computes unknown coordinates from known ones by traversing
//! it forward (along the edges) or in reverse, as rocRoller's `Transformer` does.
//!
//! Each hyperedge has ordered sources and destinations; an edge fires only when all of its inputs
//! (in the traversal's direction) are known, as rocRoller's `Hypergraph::path` requires. A
//! direction that has no function (`Forget`; `Split` forward; `Join` reverse) is an error that
//! names the edge, where rocRoller fails on an internal size assertion.
//!
//! Values are integers (rocRoller's translate-time constants) or symbolic expressions
//! ([`Sym`]); the graph is a fixed-capacity value (`N` dimensions and edges, [`MAX_ELEMENTS`]
//! unless given, no heap), like the runtime-structured layouts.
//!
//! ```
//! use const_layout::rocroller::{CoordinateGraph, Dimension, Edge, Transformer};
//! // rocRoller's "Basic" test: x(64), y(64) flattened into m.
//! let mut g = CoordinateGraph::new();
//! let x = g.add_dimension(Dimension::sub_dimension(0, 64, 1)).unwrap();
//! let y = g.add_dimension(Dimension::sub_dimension(1, 64, 1)).unwrap();
//! let m = g.add_dimension(Dimension::linear(4096, 1)).unwrap();
//! g.add_edge(Edge::Flatten, &[x, y], &[m]).unwrap();
//! let mut t = Transformer::new(&g);
//! t.set_coordinate(x, 5);
//! t.set_coordinate(y, 3);
//! assert_eq!(t.forward(&[m]).unwrap(), [323]);
//! let mut r = Transformer::new(&g);
//! r.set_coordinate(m, 67);
//! assert_eq!(r.reverse(&[x]).unwrap(), [1]); // y is not needed for x
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod bridge;
mod error;
mod expr;
mod name;
mod positional;
pub mod text;
mod tile;
mod transformer;

pub use bridge::{Dot, LayoutFragment};
pub use error::GraphError;
pub use expr::{Arena, BinaryOp, IndexValue, IntoSym, MAX_EXPR_NODES, Printed, Sym};
pub use name::{MAX_NAME_LEN, Name};
pub use positional::{MAX_POSITIONAL_STEPS, Positional};
pub use text::{GraphTextError, TextProblem};
pub use tile::{LayoutType, MAX_TILE_RANK, MacroTile, MemoryType, ThreadTile, WaveTile};
pub use transformer::Transformer;

use const_layout_core::error::LayoutError;

/// The most elements (dimensions and edges together, one tag space) a graph holds unless told
/// otherwise (`CoordinateGraph::<N>::with_capacity`).
pub const MAX_ELEMENTS: usize = 256;
/// The most sources, or destinations, of one edge.
pub const MAX_ENDS: usize = 8;

/// An element's tag: dimensions and edges are numbered in one space, as in rocRoller.
pub type Tag = usize;

/// rocRoller's dimension kinds (`Dimension_fwd.hpp`). Sub-dimension kinds carry their `dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimensionKind {
    /// `ForLoop`: the iteration of a loop.
    ForLoop,
    /// `Adhoc`: a temporary dimension of one transform.
    Adhoc,
    /// `ElementNumber`: values of a thread tile held in registers.
    ElementNumber(u8),
    /// `Lane`: a lane within a wavefront.
    Lane,
    /// `LDS`: local memory.
    Lds,
    /// `Linear`: a linear (usually flattened) dimension.
    Linear,
    /// `MacroTile`: a workgroup's tile.
    MacroTile,
    /// `MacroTileIndex`: the index within a macro tile along `dim`.
    MacroTileIndex(u8),
    /// `MacroTileNumber`: the number of the macro tile along `dim`.
    MacroTileNumber(u8),
    /// `SubDimension`: one dimension of a tensor.
    SubDimension(u8),
    /// `ThreadTile`.
    ThreadTile,
    /// `ThreadTileIndex` along `dim`.
    ThreadTileIndex(u8),
    /// `ThreadTileNumber` along `dim`.
    ThreadTileNumber(u8),
    /// `Unroll`: an unrolled iteration.
    Unroll,
    /// `User`: a user's tensor.
    User,
    /// `VGPR`: register storage.
    Vgpr,
    /// `VGPRBlockNumber`.
    VgprBlockNumber,
    /// `VGPRBlockIndex`.
    VgprBlockIndex,
    /// `WaveTile`.
    WaveTile,
    /// `WaveTileIndex` along `dim`.
    WaveTileIndex(u8),
    /// `WaveTileNumber` along `dim`.
    WaveTileNumber(u8),
    /// `Wavefront` along `dim`.
    Wavefront(u8),
    /// `Workgroup` along `dim` (0, 1, 2 = x, y, z).
    Workgroup(u8),
    /// `Workitem` along `dim`.
    Workitem(u8),
}

/// A dimension: its kind, and its size and stride where known (rocRoller's `BaseDimension`).
///
/// ```
/// use const_layout::rocroller::{Dimension, DimensionKind};
/// let d = Dimension::new(DimensionKind::Unroll).with_size(4);
/// assert_eq!((d.size(), d.stride()), (Some(4), None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dimension {
    kind: DimensionKind,
    size: Option<Extent>,
    stride: Option<Extent>,
}

/// A dimension's size or stride: known at translate time, or a runtime value by name (a kernel
/// argument such as `N`), which only a symbolic traversal can use.
///
/// ```
/// use const_layout::rocroller::{Extent, Name};
/// let n = Extent::Runtime(Name::new("N").unwrap());
/// assert_eq!(n, Extent::Runtime("N".into()));
/// assert_ne!(n, Extent::Known(4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// A translate-time integer.
    Known(isize),
    /// A runtime value.
    Runtime(Name),
}

impl Dimension {
    /// A dimension of a kind, size and stride unknown.
    pub const fn new(kind: DimensionKind) -> Self {
        Dimension { kind, size: None, stride: None }
    }
    /// With a size.
    pub const fn with_size(mut self, size: isize) -> Self {
        self.size = Some(Extent::Known(size));
        self
    }
    /// With a stride.
    pub const fn with_stride(mut self, stride: isize) -> Self {
        self.stride = Some(Extent::Known(stride));
        self
    }
    /// With a size known only at run time, by name.
    ///
    /// ```
    /// use const_layout::rocroller::{Dimension, Extent};
    /// let d = Dimension::linear(4, 1).with_runtime_stride("N");
    /// assert_eq!((d.size(), d.stride(), d.stride_extent()), (Some(4), None, Some(Extent::Runtime("N".into()))));
    /// ```
    pub const fn with_runtime_size(mut self, name: &'static str) -> Self {
        self.size = Some(Extent::Runtime(Name::from_static(name)));
        self
    }
    /// With a stride known only at run time, by name.
    ///
    /// ```
    /// use const_layout::rocroller::{Dimension, DimensionKind};
    /// let d = Dimension::new(DimensionKind::SubDimension(0)).with_runtime_stride("lda");
    /// assert_eq!(d.stride_extent().map(|e| format!("{e:?}")), Some("Runtime(\"lda\")".to_string()));
    /// ```
    pub const fn with_runtime_stride(mut self, name: &'static str) -> Self {
        self.stride = Some(Extent::Runtime(Name::from_static(name)));
        self
    }
    /// With a size and stride, each known, runtime or unknown (`None`), as given (the text
    /// notation's `(size, stride)`).
    ///
    /// ```
    /// use const_layout::rocroller::{Dimension, DimensionKind, Extent, Name};
    /// let lda = Extent::Runtime(Name::new("lda").unwrap());
    /// let d = Dimension::new(DimensionKind::User).with_extents(Some(Extent::Known(64)), Some(lda));
    /// assert_eq!((d.size(), d.stride_extent()), (Some(64), Some(lda)));
    /// ```
    pub const fn with_extents(mut self, size: Option<Extent>, stride: Option<Extent>) -> Self {
        self.size = size;
        self.stride = stride;
        self
    }
    /// `SubDimension(dim, size, stride)`.
    pub const fn sub_dimension(dim: u8, size: isize, stride: isize) -> Self {
        Dimension::new(DimensionKind::SubDimension(dim)).with_size(size).with_stride(stride)
    }
    /// `Linear(size, stride)`.
    pub const fn linear(size: isize, stride: isize) -> Self {
        Dimension::new(DimensionKind::Linear).with_size(size).with_stride(stride)
    }
    /// rocRoller's `MacroTile::tileIndex(sdim, jamming)` for a macro tile of `sizes` (row-major):
    /// the index within the tile along `sdim`, of size `sizes[sdim] * jamming` and stride the
    /// product of the later sizes. `None` if `sdim` is past the sizes or a product overflows.
    ///
    /// ```
    /// use const_layout::rocroller::{Dimension, DimensionKind};
    /// let i = Dimension::macro_tile_index(&[64, 32, 8], 1, 1).unwrap();
    /// assert_eq!((i.kind(), i.size(), i.stride()), (DimensionKind::MacroTileIndex(1), Some(32), Some(8)));
    /// let n = Dimension::macro_tile_number(1, 100);
    /// assert_eq!((n.size(), n.stride()), (Some(100), Some(1)));
    /// ```
    pub fn macro_tile_index(sizes: &[isize], sdim: u8, jamming: isize) -> Option<Self> {
        let kind = DimensionKind::MacroTileIndex(sdim);
        tile::TileSizes::new(sizes).ok()?.index("MacroTile", sdim as usize, kind, jamming).ok()
    }

    /// rocRoller's `MacroTile::tileNumber(sdim, size)`: the number of the tile along `sdim`, stride 1.
    pub const fn macro_tile_number(sdim: u8, size: isize) -> Self {
        Dimension::new(DimensionKind::MacroTileNumber(sdim)).with_size(size).with_stride(1)
    }

    /// The kind.
    pub const fn kind(&self) -> DimensionKind {
        self.kind
    }
    /// The size, if known at translate time.
    pub const fn size(&self) -> Option<isize> {
        match self.size {
            Some(Extent::Known(v)) => Some(v),
            _ => None,
        }
    }
    /// The stride, if known at translate time.
    pub const fn stride(&self) -> Option<isize> {
        match self.stride {
            Some(Extent::Known(v)) => Some(v),
            _ => None,
        }
    }
    /// The size, known or runtime.
    pub const fn size_extent(&self) -> Option<Extent> {
        self.size
    }
    /// The stride, known or runtime.
    pub const fn stride_extent(&self) -> Option<Extent> {
        self.stride
    }
}

/// rocRoller's edges (`CoordinateEdge_fwd.hpp`): coordinate transforms, which index traversal
/// follows, and dataflow edges, which it never follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Row-major flattening by the sources' sizes: `o = ((i0*n1 + i1)*n2 + i2)...`.
    Flatten,
    /// One source split row-major by the destinations' sizes (the first takes the rest).
    Tile,
    /// Many sources to one: `o = Σ i_k * stride(S_k)`. No reverse.
    Join,
    /// One source from many destinations: reverse `i = Σ o_k * stride(D_k)`. No forward.
    Split,
    /// Piecewise concatenation selected by the last source: `o = i_k + Σ_{j<k} size(S_j)`.
    Sunder,
    /// An affine function chosen by a condition on the inputs: `Σ i_k * T_k + t0` where the
    /// condition holds, else `Σ i_k * F_k + f0` (the same over the destinations in reverse). A
    /// condition that integers cannot decide yet (symbolic inputs) becomes a conditional
    /// expression, as rocRoller's `Conditional`.
    /// The parameters are kept in the graph ([`CoordinateGraph::add_piecewise_affine`]), so that
    /// an edge stays a few bytes.
    PiecewiseAffineJoin(AffineId),
    /// Swaps adjacent pairs of the first coordinate by the parity of a group of rows (rocRoller's
    /// LDS bank-conflict remapping), `srcs = [out]`, `dsts = [col, row]`; reverse only:
    /// `out = col ^ (((row >> log2(rows_per_group)) ^ 1) & 1)`.
    PairSwap {
        /// Rows that share a parity (a power of two).
        rows_per_group: u32,
    },
    /// Rotates the first coordinate by the group of rows, `srcs = [out]`, `dsts = [col, row]`;
    /// reverse only: with `h = ((row >> log2(rows_per_group)) >> 1) << 1`,
    /// `out = (col + n - h) & (n - 1)`, or `(col + h) & (n - 1)` for the inverse.
    Rotate {
        /// `n`, the number of positions (a power of two: the mask is a modulo).
        num_positions: u32,
        /// Rows per group (a power of two).
        rows_per_group: u32,
        /// Rotate the other way.
        inverse: bool,
    },
    /// Identity.
    PassThrough,
    /// Identity (the destinations inherit the sources' coordinates).
    Inherit,
    /// Identity.
    MakeOutput,
    /// Coordinates are lost: no function either way.
    Forget,
    /// No index function.
    ConstructMacroTile,
    /// No index function.
    DestructMacroTile,
    /// Dataflow: data moves between storage nodes.
    DataFlow,
    /// Dataflow: register aliasing.
    Alias,
    /// Dataflow: a buffer descriptor.
    Buffer,
    /// Dataflow: storage duplicated.
    Duplicate,
    /// Dataflow: indexing into registers.
    Index(i32),
    /// Dataflow: the register holding a running offset.
    Offset,
    /// Dataflow: the register holding a per-iteration increment.
    Stride,
    /// Dataflow: a view of another node.
    View,
}

impl Edge {
    /// rocRoller's name.
    pub const fn name(&self) -> &'static str {
        match self {
            Edge::Flatten => "Flatten",
            Edge::Tile => "Tile",
            Edge::Join => "Join",
            Edge::Split => "Split",
            Edge::Sunder => "Sunder",
            Edge::PiecewiseAffineJoin(_) => "PiecewiseAffineJoin",
            Edge::PairSwap { .. } => "PairSwap",
            Edge::Rotate { .. } => "Rotate",
            Edge::PassThrough => "PassThrough",
            Edge::Inherit => "Inherit",
            Edge::MakeOutput => "MakeOutput",
            Edge::Forget => "Forget",
            Edge::ConstructMacroTile => "ConstructMacroTile",
            Edge::DestructMacroTile => "DestructMacroTile",
            Edge::DataFlow => "DataFlow",
            Edge::Alias => "Alias",
            Edge::Buffer => "Buffer",
            Edge::Duplicate => "Duplicate",
            Edge::Index(_) => "Index",
            Edge::Offset => "Offset",
            Edge::Stride => "Stride",
            Edge::View => "View",
        }
    }

    /// Whether index traversal follows it (a coordinate transform, not dataflow).
    pub const fn is_coordinate_transform(&self) -> bool {
        !matches!(
            self,
            Edge::DataFlow
                | Edge::Alias
                | Edge::Buffer
                | Edge::Duplicate
                | Edge::Index(_)
                | Edge::Offset
                | Edge::Stride
                | Edge::View
        )
    }
}

/// The parameters of [`Edge::PiecewiseAffineJoin`]: a condition on the inputs by position, and
/// for each outcome a stride per input and an initial value (each known, or a runtime value by
/// name, like a dimension's size).
///
/// ```
/// use const_layout::rocroller::{PiecewiseAffine, Positional};
/// // rows below 4 at stride 10, the others at stride 20 from -40.
/// let p = PiecewiseAffine::new(Positional::arg(0).lt(4), [10, 1], 0, [20, 1], -40).unwrap();
/// assert_eq!((p.eval(&[2, 3]), p.eval(&[5, 3])), (Ok(23), Ok(63)));
/// assert!(PiecewiseAffine::new(Positional::arg(2).lt(4), [10, 1], 0, [20, 1], 0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PiecewiseAffine {
    condition: Positional,
    count: u8,
    when_true: ([Extent; MAX_ENDS], Extent),
    when_false: ([Extent; MAX_ENDS], Extent),
}

impl PiecewiseAffine {
    /// `condition ? Σ i_k * t_k + t0 : Σ i_k * f_k + f0` over `K` inputs (at most [`MAX_ENDS`]).
    /// An error if the condition reads an input past `K` or did not fit.
    pub fn new<const K: usize>(
        condition: Positional,
        t: [isize; K],
        t0: isize,
        f: [isize; K],
        f0: isize,
    ) -> Result<Self, GraphError> {
        Self::with_extents(
            condition,
            t.map(Extent::Known),
            Extent::Known(t0),
            f.map(Extent::Known),
            Extent::Known(f0),
        )
    }

    /// The same with strides and initial values that may be runtime values.
    pub fn with_extents<const K: usize>(
        condition: Positional,
        t: [Extent; K],
        t0: Extent,
        f: [Extent; K],
        f0: Extent,
    ) -> Result<Self, GraphError> {
        if K > MAX_ENDS {
            return Self::checked(
                condition,
                K,
                [Extent::Known(0); MAX_ENDS],
                t0,
                [Extent::Known(0); MAX_ENDS],
                f0,
            );
        }
        let pad = |v: [Extent; K]| core::array::from_fn(|k| v.get(k).copied().unwrap_or(Extent::Known(0)));
        Self::checked(condition, K, pad(t), t0, pad(f), f0)
    }

    /// [`with_extents`](Self::with_extents) over the first `count` of padded strides (the rest
    /// must be `Known(0)`, so that equal parameters are equal values).
    pub(crate) fn checked(
        condition: Positional,
        count: usize,
        t: [Extent; MAX_ENDS],
        t0: Extent,
        f: [Extent; MAX_ENDS],
        f0: Extent,
    ) -> Result<Self, GraphError> {
        let bad = |what| Err(GraphError::EdgeFunction { edge: "PiecewiseAffineJoin", tag: 0, why: what });
        if count > MAX_ENDS || count == 0 {
            return bad("it needs 1 to 8 inputs");
        }
        if !condition.is_complete() {
            return bad("its condition has more than 16 steps");
        }
        if condition.max_arg().is_some_and(|k| k as usize >= count) {
            return bad("its condition reads an input the edge does not have");
        }
        Ok(PiecewiseAffine { condition, count: count as u8, when_true: (t, t0), when_false: (f, f0) })
    }

    /// The condition.
    pub fn condition(&self) -> &Positional {
        &self.condition
    }

    /// How many inputs it takes.
    pub fn inputs(&self) -> usize {
        self.count as usize
    }

    /// The strides (one per input) and the initial value where the condition holds (`true`) or
    /// not.
    ///
    /// ```
    /// use const_layout::rocroller::{Extent, PiecewiseAffine, Positional};
    /// let p = PiecewiseAffine::new(Positional::arg(0).lt(4), [10, 1], 0, [20, 1], -40).unwrap();
    /// assert_eq!(p.strides(false), ([Extent::Known(20), Extent::Known(1)].as_slice(), Extent::Known(-40)));
    /// ```
    pub fn strides(&self, holds: bool) -> (&[Extent], Extent) {
        let (s, c) = self.branch(holds);
        (s.get(..self.inputs()).unwrap_or(s), *c)
    }

    /// The value at integer inputs (known strides only).
    pub fn eval(&self, inputs: &[isize]) -> Result<isize, GraphError> {
        let why = |why| GraphError::EdgeFunction { edge: "PiecewiseAffineJoin", tag: 0, why };
        if inputs.len() != self.inputs() {
            return Err(why("its strides do not match its inputs"));
        }
        let (s, c) =
            if self.condition.eval(inputs).map_err(why)? != 0 { self.when_true } else { self.when_false };
        let known = |e: Extent| match e {
            Extent::Known(v) => Ok(v),
            Extent::Runtime(_) => Err(why("a stride is a runtime value: traverse symbolically")),
        };
        inputs.iter().zip(&s).try_fold(known(c)?, |acc, (&i, &s)| {
            i.checked_mul(known(s)?).and_then(|p| acc.checked_add(p)).ok_or(why("its value overflows isize"))
        })
    }

    /// The strides and initial value where the condition holds (`true`) or not.
    pub(crate) fn branch(&self, holds: bool) -> &([Extent; MAX_ENDS], Extent) {
        if holds { &self.when_true } else { &self.when_false }
    }
}

/// A [`PiecewiseAffine`] kept in a graph, by number ([`CoordinateGraph::add_piecewise_affine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AffineId(u8);

/// The most [`PiecewiseAffine`]s one graph keeps.
pub const MAX_AFFINES: usize = 16;

const NO_AFFINE: PiecewiseAffine = PiecewiseAffine {
    condition: Positional::constant(0),
    count: 0,
    when_true: ([Extent::Known(0); MAX_ENDS], Extent::Known(0)),
    when_false: ([Extent::Known(0); MAX_ENDS], Extent::Known(0)),
};

/// Ordered ends of an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ends {
    pub(crate) len: usize,
    pub(crate) tags: [Tag; MAX_ENDS],
}

impl Ends {
    pub(crate) fn as_slice(&self) -> &[Tag] {
        &self.tags[..self.len]
    }
}

// Stored inline in the graph's fixed array (no heap, so no boxing the larger edge variant).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    Empty,
    Dimension(Dimension),
    Edge { edge: Edge, srcs: Ends, dsts: Ends },
}

/// rocRoller's `CoordinateGraph`: a hypergraph of [`Dimension`]s and [`Edge`]s in one tag space,
/// holding up to `N` elements ([`MAX_ELEMENTS`] unless given).
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, Dimension};
/// let mut big: CoordinateGraph<2048> = CoordinateGraph::with_capacity();
/// for _ in 0..2000 {
///     big.add_dimension(Dimension::linear(4, 1)).unwrap();
/// }
/// assert_eq!(big.len(), 2000);
/// let mut small = CoordinateGraph::new(); // 256 elements
/// for _ in 0..256 {
///     small.add_dimension(Dimension::linear(4, 1)).unwrap();
/// }
/// assert!(small.add_dimension(Dimension::linear(4, 1)).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct CoordinateGraph<const N: usize = MAX_ELEMENTS> {
    elements: [Element; N],
    count: usize,
    affines: [PiecewiseAffine; MAX_AFFINES],
    affine_count: usize,
}

impl Default for CoordinateGraph {
    fn default() -> Self {
        Self::new()
    }
}

impl CoordinateGraph {
    /// An empty graph of [`MAX_ELEMENTS`] elements.
    pub const fn new() -> Self {
        Self::with_capacity()
    }
}

impl<const N: usize> CoordinateGraph<N> {
    /// An empty graph of `N` elements (kept by value: a large graph belongs in a `static` or a
    /// `Box`).
    pub const fn with_capacity() -> Self {
        CoordinateGraph {
            elements: [Element::Empty; N],
            count: 0,
            affines: [NO_AFFINE; MAX_AFFINES],
            affine_count: 0,
        }
    }

    /// Add a dimension; its tag.
    pub fn add_dimension(&mut self, d: Dimension) -> Result<Tag, GraphError> {
        self.push(Element::Dimension(d))
    }

    /// Add an edge from the ordered `srcs` to the ordered `dsts` (dimensions); its tag.
    pub fn add_edge(&mut self, edge: Edge, srcs: &[Tag], dsts: &[Tag]) -> Result<Tag, GraphError> {
        let ends = |tags: &[Tag]| -> Result<Ends, GraphError> {
            if tags.len() > MAX_ENDS {
                return Err(GraphError::Layout(LayoutError::TooLarge));
            }
            let mut e = Ends { len: tags.len(), tags: [0; MAX_ENDS] };
            for (k, &t) in tags.iter().enumerate() {
                if self.dimension(t).is_none() {
                    return Err(GraphError::Graph { what: "an edge end is not a dimension", tag: t });
                }
                e.tags[k] = t;
            }
            Ok(e)
        };
        let (srcs, dsts) = (ends(srcs)?, ends(dsts)?);
        if let Edge::PiecewiseAffineJoin(id) = edge
            && self.piecewise_affine(id).is_none()
        {
            let what = "a PiecewiseAffineJoin's parameters are not in this graph";
            return Err(GraphError::Graph { what, tag: id.0 as usize });
        }
        self.push(Element::Edge { edge, srcs, dsts })
    }

    fn push(&mut self, e: Element) -> Result<Tag, GraphError> {
        if self.count == N {
            return Err(GraphError::Layout(LayoutError::TooLarge));
        }
        self.elements[self.count] = e;
        self.count += 1;
        Ok(self.count - 1)
    }

    /// Keep a [`PiecewiseAffine`] for [`Edge::PiecewiseAffineJoin`] edges; its number (an
    /// error past [`MAX_AFFINES`]).
    ///
    /// ```
    /// use const_layout::rocroller::{CoordinateGraph, Dimension, Edge, PiecewiseAffine, Positional, Transformer};
    /// let mut g = CoordinateGraph::new();
    /// let (r, c, out) = (g.add_dimension(Dimension::linear(8, 1)).unwrap(), g.add_dimension(Dimension::linear(10, 1)).unwrap(), g.add_dimension(Dimension::linear(160, 1)).unwrap());
    /// let p = g.add_piecewise_affine(PiecewiseAffine::new(Positional::arg(0).lt(4), [10, 1], 0, [20, 1], -40).unwrap()).unwrap();
    /// g.add_edge(Edge::PiecewiseAffineJoin(p), &[r, c], &[out]).unwrap();
    /// let mut t = Transformer::new(&g);
    /// t.set_coordinate(r, 5);
    /// t.set_coordinate(c, 2);
    /// assert_eq!(t.forward(&[out]).unwrap(), [5 * 20 + 2 - 40]);
    /// ```
    pub fn add_piecewise_affine(&mut self, p: PiecewiseAffine) -> Result<AffineId, GraphError> {
        if self.affine_count == MAX_AFFINES {
            return Err(GraphError::Layout(LayoutError::TooLarge));
        }
        self.affines[self.affine_count] = p;
        self.affine_count += 1;
        Ok(AffineId((self.affine_count - 1) as u8))
    }

    /// The [`PiecewiseAffine`] kept as `id`.
    pub fn piecewise_affine(&self, id: AffineId) -> Option<&PiecewiseAffine> {
        self.affines[..self.affine_count].get(id.0 as usize)
    }

    /// The dimension of a tag, if it is one.
    pub fn dimension(&self, tag: Tag) -> Option<&Dimension> {
        match self.elements.get(tag) {
            Some(Element::Dimension(d)) => Some(d),
            _ => None,
        }
    }

    /// The edge of a tag with its sources and destinations, if it is one.
    pub fn edge(&self, tag: Tag) -> Option<(Edge, &[Tag], &[Tag])> {
        match self.elements.get(tag) {
            Some(Element::Edge { edge, srcs, dsts }) => Some((*edge, srcs.as_slice(), dsts.as_slice())),
            _ => None,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The edges into a dimension (as a destination), or out of it (as a source), from tag `from` on.
    pub(crate) fn edges_at(&self, dim: Tag, into: bool, from: Tag) -> impl Iterator<Item = Tag> + '_ {
        (from..self.count).filter(move |&e| match self.edge(e) {
            Some((_, s, d)) => (if into { d } else { s }).contains(&dim),
            None => false,
        })
    }
}

/// Equal graphs have equal elements, tag by tag; a [`Edge::PiecewiseAffineJoin`]'s parameters
/// are compared by value, not by [`AffineId`], and parameters no edge uses are not compared (the
/// text notation writes the parameters inline, so a graph read back from its text is equal to
/// it).
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, Dimension, Edge, PiecewiseAffine, Positional};
/// let p = PiecewiseAffine::new(Positional::arg(0).lt(4), [10], 0, [20], -40).unwrap();
/// let mut a = CoordinateGraph::new();
/// let mut b = CoordinateGraph::new();
/// b.add_piecewise_affine(p).unwrap(); // unused: not compared
/// for g in [&mut a, &mut b] {
///     let (x, y) = (g.add_dimension(Dimension::linear(8, 1)).unwrap(), g.add_dimension(Dimension::linear(160, 1)).unwrap());
///     let id = g.add_piecewise_affine(p).unwrap(); // id 0 in `a`, 1 in `b`
///     g.add_edge(Edge::PiecewiseAffineJoin(id), &[x], &[y]).unwrap();
/// }
/// assert_eq!(a, b);
/// b.add_dimension(Dimension::linear(1, 1)).unwrap();
/// assert_ne!(a, b);
/// ```
impl<const N: usize> PartialEq for CoordinateGraph<N> {
    fn eq(&self, o: &Self) -> bool {
        self.count == o.count
            && self.elements[..self.count].iter().zip(&o.elements[..o.count]).all(|pair| match pair {
                (
                    Element::Edge { edge: Edge::PiecewiseAffineJoin(a), srcs: sa, dsts: da },
                    Element::Edge { edge: Edge::PiecewiseAffineJoin(b), srcs: sb, dsts: db },
                ) => sa == sb && da == db && self.piecewise_affine(*a) == o.piecewise_affine(*b),
                (x, y) => x == y,
            })
    }
}

impl<const N: usize> Eq for CoordinateGraph<N> {}
