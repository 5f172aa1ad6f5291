//! rocRoller's `Transformer`: known coordinates in, the others out, by traversing the graph;
//! and the incremental derivation of a coordinate (how a target moves per unit of another).

use super::expr::{Arena, IndexValue, Sym};
use super::{CoordinateGraph, DimensionKind, Edge, Extent, MAX_ELEMENTS, MAX_ENDS, Tag};
use crate::error::LayoutError;

/// Which way values flow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Forward,
    Reverse,
}

/// Tags in traversal order (edges after their inputs).
struct Order {
    len: usize,
    tags: [Tag; MAX_ELEMENTS],
}

impl Order {
    fn new() -> Self {
        Order { len: 0, tags: [0; MAX_ELEMENTS] }
    }
    fn push(&mut self, t: Tag) {
        if self.len < MAX_ELEMENTS {
            self.tags[self.len] = t;
            self.len += 1;
        }
    }
}

/// rocRoller's `Transformer` over a [`CoordinateGraph`]: set the coordinates you know, ask for
/// others forward (along the edges) or in reverse.
///
/// ```
/// use const_layout::graph::{CoordinateGraph, Dimension, DimensionKind, Edge, Transformer};
/// // rocRoller's Basic1D01: u -Split-> i(1024, stride 2) -Tile-> (wg, wf(64)).
/// let mut g = CoordinateGraph::new();
/// let u = g.add_dimension(Dimension::new(DimensionKind::User)).unwrap();
/// let i = g.add_dimension(Dimension::linear(1024, 2)).unwrap();
/// let wg = g.add_dimension(Dimension::new(DimensionKind::Workgroup(0))).unwrap();
/// let wf = g.add_dimension(Dimension::new(DimensionKind::Workitem(0)).with_size(64)).unwrap();
/// g.add_edge(Edge::Split, &[u], &[i]).unwrap();
/// g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
/// let mut t = Transformer::new(&g);
/// t.set_coordinate(wg, 2);
/// t.set_coordinate(wf, 33);
/// assert_eq!(t.reverse(&[i, u]).unwrap(), [161, 322]);
/// ```
#[derive(Clone)]
pub struct Transformer<'g, V: IndexValue = isize> {
    graph: &'g CoordinateGraph,
    known: [Option<V>; MAX_ELEMENTS],
    zero: V,
}

impl<'g> Transformer<'g, isize> {
    /// No coordinate known yet; integer values.
    pub fn new(graph: &'g CoordinateGraph) -> Self {
        Transformer { graph, known: [None; MAX_ELEMENTS], zero: 0 }
    }
}

impl<'g, 'a> Transformer<'g, Sym<'a>> {
    /// No coordinate known yet; symbolic values built in `arena` (set coordinates to
    /// `arena.var("name")` for runtime values, `arena.constant(v)` for known ones).
    ///
    /// ```
    /// use const_layout::graph::{Arena, CoordinateGraph, Dimension, DimensionKind, Edge, Transformer};
    /// // Basic1D01 with the workitem a register: u = (wg * 64 + v0) * 2.
    /// let mut g = CoordinateGraph::new();
    /// let u = g.add_dimension(Dimension::new(DimensionKind::User)).unwrap();
    /// let i = g.add_dimension(Dimension::linear(1024, 2)).unwrap();
    /// let wg = g.add_dimension(Dimension::new(DimensionKind::Workgroup(0))).unwrap();
    /// let wf = g.add_dimension(Dimension::new(DimensionKind::Workitem(0)).with_size(64)).unwrap();
    /// g.add_edge(Edge::Split, &[u], &[i]).unwrap();
    /// g.add_edge(Edge::Tile, &[i], &[wg, wf]).unwrap();
    /// let arena = Arena::new();
    /// let mut t = Transformer::symbolic(&g, &arena);
    /// t.set_coordinate(wg, arena.constant(2));
    /// t.set_coordinate(wf, arena.var("v0"));
    /// let [e] = t.reverse(&[u]).unwrap();
    /// assert_eq!(e.rust().to_string(), "(128 + v0) * 2");
    /// assert_eq!(e.c().to_string(), "(128 + v0) * 2");
    /// assert_eq!(e.eval(&|_| 33), 322);
    /// ```
    pub fn symbolic(graph: &'g CoordinateGraph, arena: &'a Arena) -> Self {
        Transformer { graph, known: [None; MAX_ELEMENTS], zero: arena.constant(0) }
    }
}

impl<'g, V: IndexValue> Transformer<'g, V> {
    /// Set a coordinate (rocRoller's `setCoordinate`).
    pub fn set_coordinate(&mut self, tag: Tag, value: V) {
        if let Some(k) = self.known.get_mut(tag) {
            *k = Some(value);
        }
    }

    /// A coordinate set before, if any.
    pub fn coordinate(&self, tag: Tag) -> Option<V> {
        self.known.get(tag).copied().flatten()
    }

    /// Forget a coordinate.
    pub fn remove_coordinate(&mut self, tag: Tag) {
        if let Some(k) = self.known.get_mut(tag) {
            *k = None;
        }
    }

    /// The coordinates `dsts` from the known ones, along the edges (rocRoller's `forward`).
    pub fn forward<const N: usize>(&self, dsts: &[Tag; N]) -> Result<[V; N], LayoutError> {
        self.traverse(Dir::Forward, dsts)
    }

    /// The coordinates `dsts` from the known ones, against the edges (rocRoller's `reverse`).
    pub fn reverse<const N: usize>(&self, dsts: &[Tag; N]) -> Result<[V; N], LayoutError> {
        self.traverse(Dir::Reverse, dsts)
    }

    /// How much each of `dsts` moves when `x` moves by `dx`, along the edges (rocRoller's
    /// `forwardStride`): the other known coordinates stay; a target the step does not reach
    /// moves by 0.
    pub fn forward_stride<const N: usize>(
        &self,
        x: Tag,
        dx: V,
        dsts: &[Tag; N],
    ) -> Result<[V; N], LayoutError> {
        self.stride(Dir::Forward, x, dx, dsts)
    }

    /// The same against the edges (rocRoller's `reverseStride`).
    pub fn reverse_stride<const N: usize>(
        &self,
        x: Tag,
        dx: V,
        dsts: &[Tag; N],
    ) -> Result<[V; N], LayoutError> {
        self.stride(Dir::Reverse, x, dx, dsts)
    }

    /// rocRoller's `fillExecutionCoordinates`: every `Workgroup(d)` dimension takes
    /// `workgroup[d]` and every `Workitem(d)` dimension `workitem[d]` (the kernel's launch
    /// indices, registers in a symbolic traversal).
    pub fn fill_execution_coordinates(&mut self, workgroup: [V; 3], workitem: [V; 3]) {
        for tag in 0..self.graph.len() {
            match self.graph.dimension(tag).map(|d| d.kind()) {
                Some(DimensionKind::Workgroup(d)) if (d as usize) < 3 => {
                    self.set_coordinate(tag, workgroup[d as usize])
                }
                Some(DimensionKind::Workitem(d)) if (d as usize) < 3 => {
                    self.set_coordinate(tag, workitem[d as usize])
                }
                _ => {}
            }
        }
    }

    /// The code generator's zero-fill (rocRoller's `findRequiredCoordinates` then
    /// `setCoordinate(tag, 0)`): every coordinate `target` depends on in this direction that has
    /// no edge computing it and no value yet is set to 0, so that the offset of the loop's first
    /// iteration (or of the coordinates left out) can be computed. Returns how many were set.
    pub fn zero_fill_required(&mut self, target: Tag, forward: bool) -> usize {
        let mut seen = [false; MAX_ELEMENTS];
        let mut stack = [0; MAX_ELEMENTS];
        let (mut top, mut filled) = (0, 0);
        if target < MAX_ELEMENTS {
            stack[0] = target;
            top = 1;
            seen[target] = true;
        }
        while top > 0 {
            top -= 1;
            let dim = stack[top];
            let mut fed = false;
            for e in self.graph.edges_at(dim, forward) {
                let Some((edge, srcs, dsts)) = self.graph.edge(e) else { continue };
                // Only an edge that computes `dim` in this direction makes it not a leaf.
                let one_to_many = match edge {
                    Edge::Join => !forward && srcs.len() > 1,
                    Edge::Split => forward && dsts.len() > 1,
                    Edge::Forget | Edge::ConstructMacroTile | Edge::DestructMacroTile => true,
                    _ => false,
                };
                if !edge.is_coordinate_transform() || one_to_many {
                    continue;
                }
                fed = true;
                for &t in if forward { srcs } else { dsts } {
                    if !seen[t] {
                        seen[t] = true;
                        stack[top] = t;
                        top += 1;
                    }
                }
            }
            if !fed && dim != target && self.coordinate(dim).is_none() {
                self.set_coordinate(dim, self.zero);
                filled += 1;
            }
        }
        filled
    }

    /// Whether `dsts` can be reached from the known coordinates (rocRoller's `hasPath`).
    pub fn has_path(&self, dsts: &[Tag], forward: bool) -> bool {
        let dir = if forward { Dir::Forward } else { Dir::Reverse };
        let mut visited = [None; MAX_ELEMENTS];
        let starts = |t: Tag| self.coordinate(t).is_some();
        let mut order = Order::new();
        for &d in dsts {
            self.path(dir, &starts, d, &mut visited, &mut order);
        }
        dsts.iter().all(|&d| visited.get(d) == Some(&Some(true)))
    }

    /// rocRoller's `Hypergraph::path`: from `end` back against the direction; a dimension is
    /// reachable if any edge into it is, an edge only if all its inputs are. Post-order.
    fn path(
        &self,
        dir: Dir,
        starts: &dyn Fn(Tag) -> bool,
        end: Tag,
        visited: &mut [Option<bool>; MAX_ELEMENTS],
        order: &mut Order,
    ) {
        if end >= MAX_ELEMENTS || visited[end].is_some() {
            return;
        }
        if self.graph.dimension(end).is_some() && starts(end) {
            visited[end] = Some(true);
            order.push(end);
            return;
        }
        visited[end] = Some(false);
        // What the inputs add to the order is kept only if `end` is reached (rocRoller returns
        // them with `end` or drops them); one shared list, cut back, keeps the stack small.
        let mark = order.len;
        match self.graph.edge(end) {
            Some((_, srcs, dsts)) => {
                let inputs = if dir == Dir::Forward { srcs } else { dsts };
                for &next in inputs {
                    self.path(dir, starts, next, visited, order);
                }
                visited[end] = Some(!inputs.is_empty() && inputs.iter().all(|&z| visited[z] == Some(true)));
            }
            None => {
                for e in self.graph.edges_at(end, dir == Dir::Forward) {
                    if self.graph.edge(e).is_some_and(|(edge, _, _)| edge.is_coordinate_transform()) {
                        self.path(dir, starts, e, visited, order);
                        if visited[e] == Some(true) {
                            visited[end] = Some(true);
                        }
                    }
                }
            }
        }
        if visited[end] == Some(true) {
            order.push(end);
        } else {
            order.len = mark;
        }
    }

    /// The edges on the paths from `starts` to `dsts`, in order (inputs first), each given to `f`.
    fn each_edge(
        &self,
        dir: Dir,
        starts: &dyn Fn(Tag) -> bool,
        dsts: &[Tag],
        f: &mut dyn FnMut(Tag) -> Result<(), LayoutError>,
    ) -> Result<(), LayoutError> {
        let mut visited = [None; MAX_ELEMENTS];
        let mut order = Order::new();
        for &d in dsts {
            self.path(dir, starts, d, &mut visited, &mut order);
        }
        for &t in &order.tags[..order.len] {
            if self.graph.edge(t).is_some() {
                f(t)?;
            }
        }
        Ok(())
    }

    fn traverse<const N: usize>(&self, dir: Dir, dsts: &[Tag; N]) -> Result<[V; N], LayoutError> {
        let mut values = self.known;
        let starts = |t: Tag| self.coordinate(t).is_some();
        self.each_edge(dir, &starts, dsts, &mut |e| self.fire(dir, e, &mut values))?;
        let mut out = [self.zero; N];
        for (o, &d) in out.iter_mut().zip(dsts) {
            *o = values
                .get(d)
                .copied()
                .flatten()
                .ok_or(LayoutError::Graph { what: "no path reaches this dimension", tag: d })?;
        }
        Ok(out)
    }

    /// The size (or stride) of a dimension an edge needs.
    fn need(&self, tag: Tag, edge: Edge, at: Tag, stride: bool) -> Result<V, LayoutError> {
        let d = self.graph.dimension(tag).ok_or(LayoutError::Graph { what: "not a dimension", tag })?;
        let missing = |why| LayoutError::EdgeFunction { edge: edge.name(), tag: at, why };
        match if stride { d.stride_extent() } else { d.size_extent() } {
            Some(Extent::Known(v)) => Ok(self.zero.constant(v)),
            Some(Extent::Runtime(name)) => self
                .zero
                .runtime(name)
                .ok_or(missing("a dimension it reads is sized at run time: traverse symbolically")),
            None if stride => Err(missing("a dimension it reads has no stride")),
            None => Err(missing("a dimension it reads has no size")),
        }
    }

    /// `((x0 * n1 + x1) * n2 + x2) ...`, `n_k` the size of `parts[k]`: Flatten forward, Tile reverse.
    fn flatten(&self, x: &[V; MAX_ENDS], parts: &[Tag], edge: Edge, e: Tag) -> Result<V, LayoutError> {
        let mut acc = x[0];
        for (k, &t) in parts.iter().enumerate().skip(1) {
            acc = acc.mul(self.need(t, edge, e, false)?).add(x[k]);
        }
        Ok(acc)
    }

    /// `t` split row-major by the sizes of `parts[1..]` (the first takes the rest), into `out`:
    /// Tile forward, Flatten reverse.
    fn split(
        &self,
        t: V,
        parts: &[Tag],
        edge: Edge,
        e: Tag,
        out: &mut [V; MAX_ENDS],
    ) -> Result<(), LayoutError> {
        let mut t = t;
        for k in (1..parts.len()).rev() {
            let size = self.need(parts[k], edge, e, false)?;
            if size.as_const().is_some_and(|s| s <= 0) {
                return Err(LayoutError::EdgeFunction {
                    edge: edge.name(),
                    tag: e,
                    why: "a dimension it splits by has no positive size",
                });
            }
            out[k] = t.rem(size);
            t = t.div(size);
        }
        out[0] = t;
        Ok(())
    }

    /// `Σ x_k * stride(parts[k])`: Join forward, Split reverse.
    fn join(&self, x: &[V; MAX_ENDS], parts: &[Tag], edge: Edge, e: Tag) -> Result<V, LayoutError> {
        let mut acc = self.zero;
        for (k, &t) in parts.iter().enumerate() {
            acc = acc.add(x[k].mul(self.need(t, edge, e, true)?));
        }
        Ok(acc)
    }

    /// Compute the outputs of edge `e` from its inputs, in direction `dir`.
    fn fire(&self, dir: Dir, e: Tag, values: &mut [Option<V>; MAX_ELEMENTS]) -> Result<(), LayoutError> {
        let Some((edge, srcs, dsts)) = self.graph.edge(e) else { return Ok(()) };
        let (ins, outs) = if dir == Dir::Forward { (srcs, dsts) } else { (dsts, srcs) };
        let z = self.zero;
        let c = |x: isize| z.constant(x);
        let mut v = [z; MAX_ENDS];
        for (k, &t) in ins.iter().enumerate() {
            match values[t] {
                Some(x) => v[k] = x,
                // An input without a value (an unselected Sunder branch): only Sunder may read it.
                None if edge == Edge::Sunder => v[k] = z,
                None => return Ok(()),
            }
        }
        let none = |why| LayoutError::EdgeFunction { edge: edge.name(), tag: e, why };
        let mut out = [z; MAX_ENDS];
        match (edge, dir) {
            (Edge::Flatten, Dir::Forward) | (Edge::Tile, Dir::Reverse) => {
                out[0] = self.flatten(&v, ins, edge, e)?
            }
            (Edge::Tile, Dir::Forward) | (Edge::Flatten, Dir::Reverse) => {
                self.split(v[0], outs, edge, e, &mut out)?
            }
            (Edge::Join, Dir::Forward) | (Edge::Split, Dir::Reverse) => {
                out[0] = self.join(&v, ins, edge, e)?
            }
            (Edge::Sunder, _) => {
                let n = ins.len();
                if n < 2 {
                    return Err(none("Sunder needs branches and a selector"));
                }
                let k = values[ins[n - 1]].ok_or(none("its selector has no value"))?;
                let k = k.as_const().ok_or(none("its selector is not known at translate time"))?;
                if k < 0 || k as usize >= n - 1 {
                    return Err(none("its selector is not the index of a branch"));
                }
                let k = k as usize;
                if values[ins[k]].is_none() {
                    return Ok(());
                }
                let mut acc = v[k];
                for &t in &ins[..k] {
                    acc = acc.add(self.need(t, edge, e, false)?);
                }
                out[0] = acc;
            }
            (Edge::PiecewiseAffineJoin(p), _) => {
                let decider = ins.get(p.which()).and_then(|&t| values[t]).and_then(|v| v.as_const());
                let (strides, constant) =
                    p.branch(decider).ok_or(none("its condition is not known at translate time"))?;
                let mut acc = c(constant);
                for k in 0..ins.len() {
                    acc = acc.add(v[k].mul(c(strides[k])));
                }
                out[0] = acc;
            }
            (Edge::Split, Dir::Forward) if outs.len() != 1 => {
                return Err(none("Split has no forward function (one to many)"));
            }
            (Edge::Join, Dir::Reverse) if outs.len() != 1 => {
                return Err(none("Join has no reverse function (one to many)"));
            }
            (Edge::Forget | Edge::ConstructMacroTile | Edge::DestructMacroTile, _) => {
                return Err(none("no index function is defined for it"));
            }
            _ => {
                // The identities (PassThrough, Inherit, MakeOutput; Split and Join of one end).
                if ins.len() != outs.len() {
                    return Err(none("an identity edge with different numbers of inputs and outputs"));
                }
                out[..ins.len()].copy_from_slice(&v[..ins.len()]);
            }
        }
        for (k, &t) in outs.iter().enumerate() {
            values[t] = Some(out[k]);
        }
        Ok(())
    }

    fn stride<const N: usize>(
        &self,
        dir: Dir,
        x: Tag,
        dx: V,
        dsts: &[Tag; N],
    ) -> Result<[V; N], LayoutError> {
        let mut deltas: [Option<V>; MAX_ELEMENTS] = [None; MAX_ELEMENTS];
        if x < MAX_ELEMENTS {
            deltas[x] = Some(dx);
        }
        let starts = |t: Tag| t == x || self.coordinate(t).is_some();
        self.each_edge(dir, &starts, dsts, &mut |e| self.fire_delta(dir, e, &mut deltas))?;
        let mut out = [self.zero; N];
        for (o, &d) in out.iter_mut().zip(dsts) {
            *o = deltas.get(d).copied().flatten().unwrap_or(self.zero);
        }
        Ok(out)
    }

    /// rocRoller's edge "diff" visitors: the outputs' steps from the inputs' (missing as 0).
    fn fire_delta(
        &self,
        dir: Dir,
        e: Tag,
        deltas: &mut [Option<V>; MAX_ELEMENTS],
    ) -> Result<(), LayoutError> {
        let Some((edge, srcs, dsts)) = self.graph.edge(e) else { return Ok(()) };
        let (ins, outs) = if dir == Dir::Forward { (srcs, dsts) } else { (dsts, srcs) };
        let z = self.zero;
        let d = |t: Tag| deltas[t].unwrap_or(z);
        let none = |why| LayoutError::EdgeFunction { edge: edge.name(), tag: e, why };
        let mut out = [z; MAX_ENDS];
        match (edge, dir) {
            (Edge::Flatten, Dir::Forward)
            | (Edge::Tile, Dir::Reverse)
            | (Edge::Join, Dir::Forward)
            | (Edge::Split, Dir::Reverse) => {
                let mut v = [z; MAX_ENDS];
                for (x, &t) in v.iter_mut().zip(ins) {
                    *x = d(t);
                }
                out[0] = if matches!(edge, Edge::Join | Edge::Split) {
                    self.join(&v, ins, edge, e)?
                } else {
                    self.flatten(&v, ins, edge, e)?
                };
            }
            (Edge::Tile, Dir::Forward) | (Edge::Flatten, Dir::Reverse) => {
                self.split(d(ins[0]), outs, edge, e, &mut out)?
            }
            (Edge::Sunder, _) => {
                let n = ins.len();
                let k = self.coordinate(ins[n.saturating_sub(1)]).ok_or(none("its selector has no value"))?;
                let k = k.as_const().ok_or(none("its selector is not known at translate time"))?;
                if n < 2 || k < 0 || k as usize >= n - 1 {
                    return Err(none("its selector is not the index of a branch"));
                }
                out[0] = d(ins[k as usize]);
            }
            (Edge::PassThrough, _) => {
                for (k, &t) in ins.iter().enumerate().take(outs.len()) {
                    out[k] = d(t);
                }
            }
            // rocRoller's (marked "TODO: This isn't right"): the first input's step.
            (Edge::PiecewiseAffineJoin(_), _) => out[0] = d(ins[0]),
            _ => return Err(none("no derivative is defined for it in this direction")),
        }
        for (k, &t) in outs.iter().enumerate() {
            // As rocRoller's `emplace`: a step already there stays.
            if deltas[t].is_none() {
                deltas[t] = Some(out[k]);
            }
        }
        Ok(())
    }
}
