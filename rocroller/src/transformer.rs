//! rocRoller's `Transformer`: known coordinates in, the others out, by traversing the graph;
//! and the incremental derivation of a coordinate (how a target moves per unit of another).

use super::GraphError;
use super::expr::{Arena, BinaryOp, IndexValue, Sym};
use super::{CoordinateGraph, DimensionKind, Edge, Extent, MAX_ELEMENTS, MAX_ENDS, Tag};

/// Which way values flow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Forward,
    Reverse,
}

/// Tags in traversal order (edges after their inputs).
struct Order<const N: usize> {
    len: usize,
    tags: [Tag; N],
}

impl<const N: usize> Order<N> {
    fn new() -> Self {
        Order { len: 0, tags: [0; N] }
    }
    fn push(&mut self, t: Tag) {
        if self.len < N {
            self.tags[self.len] = t;
            self.len += 1;
        }
    }
}

/// rocRoller's `Transformer` over a [`CoordinateGraph`]: set the coordinates you know, ask for
/// others forward (along the edges) or in reverse.
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, Dimension, DimensionKind, Edge, Transformer};
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
pub struct Transformer<'g, V: IndexValue = isize, const N: usize = MAX_ELEMENTS> {
    graph: &'g CoordinateGraph<N>,
    known: [Option<V>; N],
    zero: V,
}

impl<'g, const N: usize> Transformer<'g, isize, N> {
    /// No coordinate known yet; integer values.
    pub fn new(graph: &'g CoordinateGraph<N>) -> Self {
        Transformer { graph, known: [None; N], zero: 0 }
    }
}

impl<'g, 'a, const N: usize, const M: usize> Transformer<'g, Sym<'a, M>, N> {
    /// No coordinate known yet; symbolic values built in `arena` (set coordinates to
    /// `arena.var("name")` for runtime values, `arena.constant(v)` for known ones).
    ///
    /// ```
    /// use const_layout::rocroller::{Arena, CoordinateGraph, Dimension, DimensionKind, Edge, Transformer};
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
    /// assert_eq!(e.eval(&|_| 33), Some(322));
    /// ```
    pub fn symbolic(graph: &'g CoordinateGraph<N>, arena: &'a Arena<M>) -> Self {
        Transformer { graph, known: [None; N], zero: arena.constant(0) }
    }
}

impl<'g, V: IndexValue, const N: usize> Transformer<'g, V, N> {
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
    pub fn forward<const K: usize>(&self, dsts: &[Tag; K]) -> Result<[V; K], GraphError> {
        self.traverse(Dir::Forward, dsts)
    }

    /// The coordinates `dsts` from the known ones, against the edges (rocRoller's `reverse`).
    pub fn reverse<const K: usize>(&self, dsts: &[Tag; K]) -> Result<[V; K], GraphError> {
        self.traverse(Dir::Reverse, dsts)
    }

    /// How much each of `dsts` moves when `x` moves by `dx`, along the edges (rocRoller's
    /// `forwardStride`): the other known coordinates stay; a target the step does not reach
    /// moves by 0.
    pub fn forward_stride<const K: usize>(
        &self,
        x: Tag,
        dx: V,
        dsts: &[Tag; K],
    ) -> Result<[V; K], GraphError> {
        self.stride(Dir::Forward, x, dx, dsts)
    }

    /// The same against the edges (rocRoller's `reverseStride`).
    pub fn reverse_stride<const K: usize>(
        &self,
        x: Tag,
        dx: V,
        dsts: &[Tag; K],
    ) -> Result<[V; K], GraphError> {
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
        let mut seen = [false; N];
        let mut stack = [0; N];
        let (mut top, mut filled) = (0, 0);
        if target < N {
            stack[0] = target;
            top = 1;
            seen[target] = true;
        }
        while top > 0 {
            top -= 1;
            let dim = stack[top];
            let mut fed = false;
            for e in self.graph.edges_at(dim, forward, 0) {
                let Some((edge, srcs, dsts)) = self.graph.edge(e) else { continue };
                // Only an edge that computes `dim` in this direction makes it not a leaf.
                let one_to_many = match edge {
                    Edge::Join => !forward && srcs.len() > 1,
                    Edge::Split => forward && dsts.len() > 1,
                    Edge::PairSwap { .. } | Edge::Rotate { .. } => forward,
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
        let mut visited = [None; N];
        let starts = |t: Tag| self.coordinate(t).is_some();
        let mut order = Order::<N>::new();
        for &d in dsts {
            self.path(dir, &starts, d, &mut visited, &mut order);
        }
        dsts.iter().all(|&d| visited.get(d) == Some(&Some(true)))
    }

    /// rocRoller's `Hypergraph::path`: from `root` back against the direction; a dimension is
    /// reachable if any edge into it is, an edge only if all its inputs are. Post-order. Written
    /// with its own stack of frames (element, next input to visit, order length on entry), not
    /// recursion: a chain of thousands of elements must not overflow the thread's stack.
    fn path(
        &self,
        dir: Dir,
        starts: &dyn Fn(Tag) -> bool,
        root: Tag,
        visited: &mut [Option<bool>; N],
        order: &mut Order<N>,
    ) {
        let mut frames = [(0, 0, 0); N];
        if !self.enter(starts, root, visited, order) {
            return;
        }
        frames[0] = (root, 0, order.len);
        let mut depth = 1;
        while depth > 0 {
            let (end, next, mark) = frames[depth - 1];
            if let Some((child, resume)) = self.input(dir, end, next) {
                frames[depth - 1].1 = resume;
                if self.enter(starts, child, visited, order) {
                    frames[depth] = (child, 0, order.len);
                    depth += 1;
                } else {
                    Self::reached(self.graph.dimension(end).is_some(), end, child, visited);
                }
                continue;
            }
            // All inputs visited: an edge is reached if all of them are.
            if let Some((_, srcs, dsts)) = self.graph.edge(end) {
                let inputs = if dir == Dir::Forward { srcs } else { dsts };
                visited[end] = Some(!inputs.is_empty() && inputs.iter().all(|&z| visited[z] == Some(true)));
            }
            // What the inputs added to the order is kept only if `end` is reached (rocRoller
            // returns them with `end` or drops them).
            if visited[end] == Some(true) {
                order.push(end);
            } else {
                order.len = mark;
            }
            depth -= 1;
            if depth > 0 {
                let parent = frames[depth - 1].0;
                Self::reached(self.graph.dimension(parent).is_some(), parent, end, visited);
            }
        }
    }

    /// Start visiting `t`: `false` if there is nothing to do (visited before, out of range, or a
    /// known coordinate, which is reached at once).
    fn enter(
        &self,
        starts: &dyn Fn(Tag) -> bool,
        t: Tag,
        visited: &mut [Option<bool>; N],
        order: &mut Order<N>,
    ) -> bool {
        if t >= N || visited[t].is_some() {
            return false;
        }
        if self.graph.dimension(t).is_some() && starts(t) {
            visited[t] = Some(true);
            order.push(t);
            return false;
        }
        visited[t] = Some(false);
        true
    }

    /// A dimension is reached as soon as one edge into it is.
    fn reached(is_dimension: bool, parent: Tag, child: Tag, visited: &mut [Option<bool>; N]) {
        if is_dimension && visited.get(child) == Some(&Some(true)) {
            visited[parent] = Some(true);
        }
    }

    /// The input of `end` at or after position `from` (an edge's inputs in order; a dimension's
    /// coordinate-transform edges in tag order), and where to resume.
    fn input(&self, dir: Dir, end: Tag, from: usize) -> Option<(Tag, usize)> {
        match self.graph.edge(end) {
            Some((_, srcs, dsts)) => {
                let inputs = if dir == Dir::Forward { srcs } else { dsts };
                inputs.get(from).map(|&t| (t, from + 1))
            }
            None => self
                .graph
                .edges_at(end, dir == Dir::Forward, from)
                .find(|&e| self.graph.edge(e).is_some_and(|(edge, _, _)| edge.is_coordinate_transform()))
                .map(|e| (e, e + 1)),
        }
    }

    /// The edges on the paths from `starts` to `dsts`, in order (inputs first), each given to `f`.
    fn each_edge(
        &self,
        dir: Dir,
        starts: &dyn Fn(Tag) -> bool,
        dsts: &[Tag],
        f: &mut dyn FnMut(Tag) -> Result<(), GraphError>,
    ) -> Result<(), GraphError> {
        let mut visited = [None; N];
        let mut order = Order::<N>::new();
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

    fn traverse<const K: usize>(&self, dir: Dir, dsts: &[Tag; K]) -> Result<[V; K], GraphError> {
        let mut values = self.known;
        let starts = |t: Tag| self.coordinate(t).is_some();
        self.each_edge(dir, &starts, dsts, &mut |e| self.fire(dir, e, &mut values))?;
        let mut out = [self.zero; K];
        for (o, &d) in out.iter_mut().zip(dsts) {
            *o = values
                .get(d)
                .copied()
                .flatten()
                .ok_or(GraphError::Graph { what: "no path reaches this dimension", tag: d })?;
        }
        Ok(out)
    }

    /// A value known at translate time or by name at run time (a dimension's size or stride, a
    /// `PiecewiseAffineJoin`'s stride) as a value, or why not.
    fn extent(&self, x: Option<Extent>, missing: &'static str) -> Result<V, &'static str> {
        match x {
            Some(Extent::Known(v)) => Ok(self.zero.constant(v)),
            Some(Extent::Runtime(name)) => self
                .zero
                .runtime(name)
                .ok_or("a value it reads is known only at run time: traverse symbolically"),
            None => Err(missing),
        }
    }

    /// The size (or stride) of a dimension an edge needs.
    fn need(&self, tag: Tag, edge: Edge, at: Tag, stride: bool) -> Result<V, GraphError> {
        let d = self.graph.dimension(tag).ok_or(GraphError::Graph { what: "not a dimension", tag })?;
        let (x, missing) = if stride {
            (d.stride_extent(), "a dimension it reads has no stride")
        } else {
            (d.size_extent(), "a dimension it reads has no size")
        };
        self.extent(x, missing).map_err(|why| GraphError::EdgeFunction { edge: edge.name(), tag: at, why })
    }

    /// `((x0 * n1 + x1) * n2 + x2) ...`, `n_k` the size of `parts[k]`: Flatten forward, Tile reverse.
    fn flatten(&self, x: &[V; MAX_ENDS], parts: &[Tag], edge: Edge, e: Tag) -> Result<V, GraphError> {
        let mut acc = x[0];
        for (k, &t) in parts.iter().enumerate().skip(1) {
            acc = checked(edge.name(), e, acc.apply(BinaryOp::Mul, self.need(t, edge, e, false)?))?;
            acc = checked(edge.name(), e, acc.apply(BinaryOp::Add, x[k]))?;
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
    ) -> Result<(), GraphError> {
        let mut t = t;
        for k in (1..parts.len()).rev() {
            let size = self.need(parts[k], edge, e, false)?;
            if size.as_const().is_some_and(|s| s <= 0) {
                return Err(GraphError::EdgeFunction {
                    edge: edge.name(),
                    tag: e,
                    why: "a dimension it splits by has no positive size",
                });
            }
            out[k] = checked(edge.name(), e, t.apply(BinaryOp::Rem, size))?;
            t = checked(edge.name(), e, t.apply(BinaryOp::Div, size))?;
        }
        out[0] = t;
        Ok(())
    }

    /// `c + Σ x_k * s_k`.
    fn affine(
        &self,
        x: &[V],
        s: impl Iterator<Item = Result<V, GraphError>>,
        c: V,
        edge: &'static str,
        e: Tag,
    ) -> Result<V, GraphError> {
        let mut acc = c;
        for (x, s) in x.iter().zip(s) {
            acc = checked(edge, e, acc.apply(BinaryOp::Add, checked(edge, e, x.apply(BinaryOp::Mul, s?))?))?;
        }
        Ok(acc)
    }

    /// `Σ x_k * stride(parts[k])`: Join forward, Split reverse.
    fn join(&self, x: &[V; MAX_ENDS], parts: &[Tag], edge: Edge, e: Tag) -> Result<V, GraphError> {
        self.affine(
            &x[..parts.len()],
            parts.iter().map(|&t| self.need(t, edge, e, true)),
            self.zero,
            edge.name(),
            e,
        )
    }

    /// `PiecewiseAffineJoin` over `x` (its inputs' values with the initial values; or their steps,
    /// without, with `condition` from the values): the branch the condition selects, both in a
    /// conditional where it is symbolic.
    fn piecewise(
        &self,
        p: &super::PiecewiseAffine,
        x: &[V],
        condition: V,
        initial: bool,
        e: Tag,
    ) -> Result<V, GraphError> {
        let why = |why| GraphError::EdgeFunction { edge: "PiecewiseAffineJoin", tag: e, why };
        let branch = |holds: bool| {
            let (strides, c) = p.branch(holds);
            let s = strides.iter().map(|&s| self.extent(Some(s), "").map_err(why));
            let c = if initial { self.extent(Some(*c), "").map_err(why)? } else { self.zero };
            self.affine(x, s, c, "PiecewiseAffineJoin", e)
        };
        match condition.as_const() {
            Some(c) => branch(c != 0),
            None => Ok(condition.select(branch(true)?, branch(false)?)),
        }
    }

    /// The condition of a `PiecewiseAffineJoin` at its inputs' values.
    fn condition(
        &self,
        p: &super::PiecewiseAffine,
        ins: &[Tag],
        values: &[Option<V>; N],
        e: Tag,
    ) -> Result<Option<V>, GraphError> {
        let why = |why| GraphError::EdgeFunction { edge: "PiecewiseAffineJoin", tag: e, why };
        if ins.len() != p.inputs() {
            return Err(why("its strides do not match its inputs"));
        }
        let mut v = [self.zero; MAX_ENDS];
        for (k, &t) in ins.iter().enumerate() {
            match values[t] {
                Some(x) => v[k] = x,
                None => return Ok(None),
            }
        }
        p.condition().eval(&v[..ins.len()]).map(Some).map_err(why)
    }

    /// rocRoller's `PairSwap` and `Rotate` (reverse): the column remapped by the row's group.
    fn swizzle(&self, edge: Edge, col: V, row: V, e: Tag) -> Result<V, GraphError> {
        let why = |why| GraphError::EdgeFunction { edge: edge.name(), tag: e, why };
        let c = |v: u32| self.zero.constant(v as isize);
        let pow2 = |v: u32| v.is_power_of_two();
        let ck = |x: Option<V>| checked(edge.name(), e, x);
        match edge {
            Edge::PairSwap { rows_per_group } if pow2(rows_per_group) => {
                let group = ck(row.apply(BinaryOp::Shr, c(rows_per_group.trailing_zeros())))?;
                let bit = ck(ck(group.apply(BinaryOp::BitXor, c(1)))?.apply(BinaryOp::BitAnd, c(1)))?;
                ck(col.apply(BinaryOp::BitXor, bit))
            }
            Edge::Rotate { num_positions, rows_per_group, inverse }
                if pow2(rows_per_group) && pow2(num_positions) =>
            {
                let group = ck(row.apply(BinaryOp::Shr, c(rows_per_group.trailing_zeros())))?;
                let half = ck(ck(group.apply(BinaryOp::Shr, c(1)))?.apply(BinaryOp::Shl, c(1)))?;
                let moved = if inverse {
                    ck(col.apply(BinaryOp::Add, half))?
                } else {
                    ck(ck(col.apply(BinaryOp::Add, c(num_positions)))?.apply(BinaryOp::Sub, half))?
                };
                ck(moved.apply(BinaryOp::BitAnd, c(num_positions - 1)))
            }
            _ => Err(why("its numbers of positions and rows per group must be powers of two")),
        }
    }

    /// Compute the outputs of edge `e` from its inputs, in direction `dir`.
    fn fire(&self, dir: Dir, e: Tag, values: &mut [Option<V>; N]) -> Result<(), GraphError> {
        let Some((edge, srcs, dsts)) = self.graph.edge(e) else { return Ok(()) };
        let (ins, outs) = if dir == Dir::Forward { (srcs, dsts) } else { (dsts, srcs) };
        let z = self.zero;
        let mut v = [z; MAX_ENDS];
        for (k, &t) in ins.iter().enumerate() {
            match values[t] {
                Some(x) => v[k] = x,
                // An input without a value (an unselected Sunder branch): only Sunder may read it.
                None if edge == Edge::Sunder => v[k] = z,
                None => return Ok(()),
            }
        }
        let none = |why| GraphError::EdgeFunction { edge: edge.name(), tag: e, why };
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
                let k = self.sunder_branch(edge, ins, values, e)?;
                if values[ins[k]].is_none() {
                    return Ok(());
                }
                let mut acc = v[k];
                for &t in &ins[..k] {
                    acc = checked(edge.name(), e, acc.apply(BinaryOp::Add, self.need(t, edge, e, false)?))?;
                }
                out[0] = acc;
            }
            (Edge::PiecewiseAffineJoin(id), _) => {
                let p = self.graph.piecewise_affine(id).ok_or(none("its parameters are not in the graph"))?;
                let Some(condition) = self.condition(p, ins, values, e)? else { return Ok(()) };
                out[0] = self.piecewise(p, &v[..ins.len()], condition, true, e)?;
            }
            (Edge::PairSwap { .. } | Edge::Rotate { .. }, Dir::Reverse) => {
                if ins.len() != 2 || outs.len() != 1 {
                    return Err(none("it takes a column and a row to one column"));
                }
                out[0] = self.swizzle(edge, v[0], v[1], e)?;
            }
            (Edge::PairSwap { .. } | Edge::Rotate { .. }, Dir::Forward) => {
                return Err(none("it has no forward function (rocRoller defines its reverse)"));
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

    /// The branch a `Sunder`'s selector (its last input) picks; it must be known at translate time.
    fn sunder_branch(
        &self,
        edge: Edge,
        ins: &[Tag],
        values: &[Option<V>; N],
        e: Tag,
    ) -> Result<usize, GraphError> {
        let none = |why| GraphError::EdgeFunction { edge: edge.name(), tag: e, why };
        let n = ins.len();
        if n < 2 {
            return Err(none("Sunder needs branches and a selector"));
        }
        let k = values[ins[n - 1]].ok_or(none("its selector has no value"))?;
        let k = k.as_const().ok_or(none("its selector is not known at translate time"))?;
        if k < 0 || k as usize >= n - 1 {
            return Err(none("its selector is not the index of a branch"));
        }
        Ok(k as usize)
    }

    fn stride<const K: usize>(&self, dir: Dir, x: Tag, dx: V, dsts: &[Tag; K]) -> Result<[V; K], GraphError> {
        let mut deltas: [Option<V>; N] = [None; N];
        if x < N {
            deltas[x] = Some(dx);
        }
        // The coordinates' values too, where they can be computed: a Sunder's selector and a
        // PiecewiseAffineJoin's condition read them (an edge whose values cannot be computed
        // leaves its outputs unknown; its step is computed or refused below).
        let mut values = self.known;
        let starts = |t: Tag| t == x || self.coordinate(t).is_some();
        self.each_edge(dir, &starts, dsts, &mut |e| {
            let _ = self.fire(dir, e, &mut values);
            self.fire_delta(dir, e, &values, &mut deltas)
        })?;
        let mut out = [self.zero; K];
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
        values: &[Option<V>; N],
        deltas: &mut [Option<V>; N],
    ) -> Result<(), GraphError> {
        let Some((edge, srcs, dsts)) = self.graph.edge(e) else { return Ok(()) };
        let (ins, outs) = if dir == Dir::Forward { (srcs, dsts) } else { (dsts, srcs) };
        let z = self.zero;
        let mut d = [z; MAX_ENDS];
        for (x, &t) in d.iter_mut().zip(ins) {
            *x = deltas[t].unwrap_or(z);
        }
        let none = |why| GraphError::EdgeFunction { edge: edge.name(), tag: e, why };
        let mut out = [z; MAX_ENDS];
        match (edge, dir) {
            (Edge::Flatten, Dir::Forward) | (Edge::Tile, Dir::Reverse) => {
                out[0] = self.flatten(&d, ins, edge, e)?
            }
            (Edge::Join, Dir::Forward) | (Edge::Split, Dir::Reverse) => {
                out[0] = self.join(&d, ins, edge, e)?
            }
            (Edge::Tile, Dir::Forward) | (Edge::Flatten, Dir::Reverse) => {
                self.split(d[0], outs, edge, e, &mut out)?
            }
            (Edge::Sunder, _) => out[0] = d[self.sunder_branch(edge, ins, values, e)?],
            (Edge::PassThrough, _) => {
                out[..outs.len().min(ins.len())].copy_from_slice(&d[..outs.len().min(ins.len())])
            }
            // rocRoller passes the first input's step ("TODO: This isn't right"); the step of the
            // branch the condition selects at these coordinates is the derivative (both, in a
            // conditional, where the condition is symbolic).
            (Edge::PiecewiseAffineJoin(id), _) => {
                let p = self.graph.piecewise_affine(id).ok_or(none("its parameters are not in the graph"))?;
                let condition = self
                    .condition(p, ins, values, e)?
                    .ok_or(none("its condition needs its inputs' values"))?;
                out[0] = self.piecewise(p, &d[..ins.len()], condition, false, e)?;
            }
            // rocRoller: the column's step.
            (Edge::PairSwap { .. } | Edge::Rotate { .. }, Dir::Reverse) => out[0] = d[0],
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

/// An arithmetic result, or the error naming the edge where it does not exist.
fn checked<V>(edge: &'static str, e: Tag, x: Option<V>) -> Result<V, GraphError> {
    x.ok_or(GraphError::EdgeFunction { edge, tag: e, why: "its value overflows isize (or divides by zero)" })
}
