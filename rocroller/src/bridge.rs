//! Between CuTe layouts and coordinate graphs, and a Graphviz picture of a graph.

use super::GraphError;
use super::{CoordinateGraph, Dimension, DimensionKind, Edge, Element, MAX_ELEMENTS, Tag, Transformer};
use const_layout_core::algebra::leaves::Leaves;
use const_layout_core::dyn_layout::DynLayout;
use const_layout_core::error::LayoutError;
use const_layout_core::swizzle::{DynAnyLayout, ToDynAnyLayout};
use core::fmt;

/// The tags a layout became in a graph: its 1-D index, each integer's coordinate (CuTe's order,
/// first fastest), and the offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutFragment {
    /// The layout's 1-D (colexicographic) index.
    pub index: Tag,
    /// The offset.
    pub offset: Tag,
    /// The coordinate of each integer of the layout, in CuTe's order.
    pub leaves: [Tag; super::MAX_ENDS],
    /// How many integers.
    pub count: usize,
}

/// The graph cannot hold the largest values a traversal of a fragment reaches.
const MAX_BRIDGE_SIZE: isize = 1 << 20;

impl<const N: usize> CoordinateGraph<N> {
    /// A layout as a graph fragment, as rocRoller writes one: its 1-D index `Tile`d into one
    /// dimension per integer (row-major, so CuTe's integers in reverse: the first is fastest),
    /// then `Join`ed with their strides into the offset.
    ///
    /// ```
    /// use const_layout::rocroller::{CoordinateGraph, Transformer};
    /// use const_layout::dyn_layout::DynLayout;
    /// let l: DynLayout = "(4,(2,3)):(3,(1,8))".parse().unwrap();
    /// let mut g = CoordinateGraph::new();
    /// let f = g.add_layout(&l).unwrap();
    /// let mut t = Transformer::new(&g);
    /// t.set_coordinate(f.index, 13);
    /// assert_eq!(t.forward(&[f.offset]).unwrap(), [l.offset(13)]);
    /// assert_eq!(g.to_layout(f.index, f.offset).unwrap().to_string(), "(4,2,3):(3,1,8)");
    /// ```
    ///
    /// `layout` is any plain layout (typed, a static algebra result, runtime-structured: any
    /// [`ToDynAnyLayout`], which const-layout implements for each of its kinds);
    /// a swizzled or composed one is refused ([`GraphError::NotALayout`]): the fragment is a
    /// `Tile` and a `Join`, and the graph has no edge for a swizzle's exclusive or.
    ///
    /// ```
    /// use const_layout::rocroller::CoordinateGraph;
    /// let mut g = CoordinateGraph::new();
    /// let f = g.add_layout(&const_layout::layout!((4,2):(2,1))).unwrap();
    /// assert_eq!(g.to_layout(f.index, f.offset).unwrap().to_string(), "(4,2):(2,1)");
    /// assert!(g.add_layout(&const_layout::layout!(composition(Sw<1,0,1>, (2,2):(1,2)))).is_err());
    /// ```
    pub fn add_layout<L: ToDynAnyLayout + ?Sized>(
        &mut self,
        layout: &L,
    ) -> Result<LayoutFragment, GraphError> {
        let layout = match layout.to_dyn_any()? {
            DynAnyLayout::Layout(l) => l,
            DynAnyLayout::Composed(_) => {
                return Err(GraphError::NotALayout {
                    transform: "swizzle",
                    why: "a coordinate-graph fragment is a Tile and a Join; a swizzled or composed layout has no such edges",
                });
            }
        };
        let layout = &layout;
        let leaves = Leaves::of(layout);
        let n = leaves.len();
        if n > super::MAX_ENDS {
            return Err(GraphError::Layout(LayoutError::TooLarge));
        }
        let size = layout.size().value;
        let index = self.add_dimension(Dimension::linear(size, 1))?;
        let mut tags = [0; super::MAX_ENDS];
        for (k, tag) in tags.iter_mut().enumerate().take(n) {
            let d = Dimension::new(DimensionKind::Adhoc)
                .with_size(leaves.shape(k).value)
                .with_stride(leaves.stride(k).value);
            *tag = self.add_dimension(d)?;
        }
        let offset = self.add_dimension(Dimension::new(DimensionKind::Linear))?;
        let mut reversed = [0; super::MAX_ENDS];
        for k in 0..n {
            reversed[k] = tags[n - 1 - k];
        }
        self.add_edge(Edge::Tile, &[index], &reversed[..n])?;
        self.add_edge(Edge::Join, &tags[..n], &[offset])?;
        Ok(LayoutFragment { index, offset, leaves: tags, count: n })
    }

    /// The CuTe layout that the path from dimension `from` (of known size) to `to` computes, where
    /// there is one: the path is evaluated at every index of `from` (up to 2^20) and fitted to a
    /// layout, checked at every index. Otherwise an error naming the first edge on the path that
    /// is not `Tile`, `Flatten`, `Split`, `Join` or `PassThrough` (or the path).
    pub fn to_layout(&self, from: Tag, to: Tag) -> Result<DynLayout, GraphError> {
        let size = self
            .dimension(from)
            .and_then(Dimension::size)
            .ok_or(GraphError::Graph { what: "the start of the path has no size", tag: from })?;
        if size > MAX_BRIDGE_SIZE {
            return Err(GraphError::Layout(LayoutError::TooLarge));
        }
        let mut culprit = "Tile";
        for e in 0..self.len() {
            if let Some((edge, _, _)) = self.edge(e)
                && edge.is_coordinate_transform()
                && !matches!(edge, Edge::Tile | Edge::Flatten | Edge::Split | Edge::Join | Edge::PassThrough)
            {
                culprit = edge.name();
                break;
            }
        }
        let failed = core::cell::Cell::new(None);
        let value = |k: isize| {
            let mut t = Transformer::new(self);
            t.set_coordinate(from, k);
            match t.forward(&[to]) {
                Ok([v]) => v,
                Err(e) => {
                    failed.set(Some(e));
                    0
                }
            }
        };
        let first = value(0);
        let fitted = const_layout_core::algebra::fit::fit_mode(size, &|k| value(k) - first);
        if let Some(e) = failed.get() {
            return Err(e);
        }
        let Some((shape, stride)) = fitted? else {
            return Err(GraphError::NotALayout {
                transform: culprit,
                why: "the path's values are no CuTe layout",
            });
        };
        if first != 0 {
            return Err(GraphError::NotALayout { transform: culprit, why: "the path does not map 0 to 0" });
        }
        Ok(DynLayout::new(shape, stride)?)
    }

    /// The graph in Graphviz's DOT language: dimensions as ellipses, coordinate-transform edges as
    /// boxes, dataflow edges as dashed boxes, arrows in edge order.
    ///
    /// ```
    /// use const_layout::rocroller::{CoordinateGraph, Dimension, Edge};
    /// let mut g = CoordinateGraph::new();
    /// let (x, y) = (g.add_dimension(Dimension::linear(4, 1)).unwrap(), g.add_dimension(Dimension::linear(4, 1)).unwrap());
    /// g.add_edge(Edge::PassThrough, &[x], &[y]).unwrap();
    /// let dot = g.dot().to_string();
    /// assert!(dot.starts_with("digraph coordinates {") && dot.contains("n0 -> n2") && dot.contains("n2 -> n1"));
    /// ```
    pub fn dot(&self) -> Dot<'_, N> {
        Dot(self)
    }
}

/// A graph printed as DOT ([`CoordinateGraph::dot`]).
pub struct Dot<'g, const N: usize = MAX_ELEMENTS>(&'g CoordinateGraph<N>);

impl<const N: usize> fmt::Display for Dot<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "digraph coordinates {{")?;
        for (tag, e) in self.0.elements[..self.0.len()].iter().enumerate() {
            match e {
                Element::Dimension(d) => {
                    write!(f, "  n{tag} [label=\"{tag}: {:?}", d.kind())?;
                    if let Some(s) = d.size() {
                        write!(f, " size {s}")?;
                    }
                    if let Some(s) = d.stride() {
                        write!(f, " stride {s}")?;
                    }
                    writeln!(f, "\"];")?;
                }
                Element::Edge { edge, srcs, dsts } => {
                    let style = if edge.is_coordinate_transform() { "box" } else { "box, style=dashed" };
                    write!(f, "  n{tag} [shape={style}, label=\"{tag}: {}", edge.name())?;
                    if let Some(p) = match edge {
                        Edge::PiecewiseAffineJoin(id) => self.0.piecewise_affine(*id),
                        _ => None,
                    } {
                        write!(f, " if {}", p.condition())?;
                    }
                    writeln!(f, "\"];")?;
                    for s in srcs.as_slice() {
                        writeln!(f, "  n{s} -> n{tag};")?;
                    }
                    for d in dsts.as_slice() {
                        writeln!(f, "  n{tag} -> n{d};")?;
                    }
                }
                Element::Empty => {}
            }
        }
        writeln!(f, "}}")
    }
}
