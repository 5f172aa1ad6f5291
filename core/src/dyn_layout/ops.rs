//! CuTe's int-tuple functions and index math on [`DynIntTuple`], with CuTe's static-ness rules.
//!
//! Each function follows the corresponding CuTe C++ function case by case (tuple/tuple, tuple/int,
//! int/tuple, int/int), so that values *and* static-ness match what CuTe prints. Structural
//! mismatches, which are compile errors in CuTe and in the typed API, are `Err` here.

use super::int_tuple::{DynInt, DynIntTuple, MAX_NODES, Node};
use crate::error::{LayoutError, tri};

type R<T> = Result<T, LayoutError>;

const fn not_congruent<T>(what: &'static str) -> R<T> {
    Err(LayoutError::NotCongruent { what })
}

fn product(t: &DynIntTuple) -> R<DynInt> {
    t.size()
}

/// CuTe's `crd2idx(coord, shape, stride)`.
pub const fn crd2idx(c: &DynIntTuple, s: &DynIntTuple, d: &DynIntTuple) -> R<DynInt> {
    match (c.as_int(), s.is_int()) {
        (None, false) => {
            if c.rank() != s.rank() {
                return Err(LayoutError::RankMismatch {
                    what: "coordinate",
                    got: c.rank(),
                    expected: s.rank(),
                });
            }
            if d.is_int() || d.rank() != s.rank() {
                return not_congruent("stride");
            }
            let mut total = DynInt::new_static(0);
            let mut k = 0;
            while k < s.rank() {
                let (Some(cm), Some(sm), Some(dm)) = (c.mode(k), s.mode(k), d.mode(k)) else {
                    return not_congruent("stride");
                };
                let t = tri!(crd2idx(&cm, &sm, &dm));
                total = if k == 0 { t } else { total.add(t) };
                k += 1;
            }
            Ok(total)
        }
        (None, true) => not_congruent("coordinate"),
        (Some(ci), false) => {
            if d.is_int() || d.rank() != s.rank() {
                return not_congruent("stride");
            }
            if s.rank() == 0 {
                return Ok(DynInt::new_static(0));
            }
            // CuTe's `crd2idx_itt`: each mode takes `coord % size(mode)` and passes
            // `coord / size(mode)` on; the last mode takes what is left.
            let n = s.rank();
            let mut rest = ci;
            let mut total = DynInt::new_static(0);
            let mut k = 0;
            while k < n {
                let (Some(sm), Some(dm)) = (s.mode(k), d.mode(k)) else { return not_congruent("stride") };
                let part = if k + 1 == n {
                    rest
                } else {
                    let p = tri!(sm.size());
                    let m = rest.rem(p);
                    rest = rest.div(p);
                    m
                };
                let t = tri!(crd2idx(&DynIntTuple::int(part), &sm, &dm));
                total = if k == 0 { t } else { total.add(t) };
                k += 1;
            }
            Ok(total)
        }
        (Some(ci), true) => match d.as_int() {
            Some(di) => Ok(ci.mul(di)),
            None => not_congruent("stride"),
        },
    }
}

/// CuTe's split of an integer coordinate over the modes of a tuple shape (`crd2idx_itt`), as
/// [`crd2idx`] does it. Yields each mode's integer with the mode.
fn split(coord: DynInt, s: &DynIntTuple) -> impl Iterator<Item = R<(DynInt, DynIntTuple)>> + '_ {
    let n = s.rank();
    let mut rest = coord;
    s.modes().enumerate().map(move |(k, sm)| {
        if k + 1 == n {
            return Ok((rest, sm));
        }
        let p = product(&sm)?;
        let m = rest.rem(p);
        rest = rest.div(p);
        Ok((m, sm))
    })
}

/// CuTe's `idx2crd(idx, shape)`.
pub fn idx2crd(i: &DynIntTuple, s: &DynIntTuple) -> R<DynIntTuple> {
    match (i.as_int(), s.is_int()) {
        (None, false) => {
            if i.rank() != s.rank() {
                return Err(LayoutError::RankMismatch { what: "index", got: i.rank(), expected: s.rank() });
            }
            DynIntTuple::try_from_modes(i.modes().zip(s.modes()).map(|(im, sm)| idx2crd(&im, &sm)))
        }
        (None, true) => not_congruent("index"),
        (Some(_), true) => Ok(*i),
        (Some(ii), false) => {
            // The same split as crd2idx against the basis strides.
            DynIntTuple::try_from_modes(split(ii, s).map(|part| {
                let (c, sm) = part?;
                idx2crd(&DynIntTuple::int(c), &sm)
            }))
        }
    }
}

/// CuTe's `idx2crd(idx, shape, stride)`: `(idx / d) % s` at every integer; `_0` for a static 1.
/// (CuTe divides by a zero stride; here that integer's coordinate is 0.)
pub fn idx2crd_strided(i: DynInt, s: &DynIntTuple, d: &DynIntTuple) -> R<DynIntTuple> {
    match (s.as_int(), d.as_int()) {
        (Some(sv), Some(dv)) => Ok(DynIntTuple::int(if sv.is_static && sv.value == 1 {
            DynInt::new_static(0)
        } else if dv.value == 0 {
            DynInt::new(0, dv.is_static && sv.is_static)
        } else {
            i.div(dv).rem(sv)
        })),
        (Some(_), None) => not_congruent("stride"),
        (None, Some(dv)) => idx2crd_strided(i, s, &compact(s, dv, true)?.0),
        (None, None) => {
            if d.rank() != s.rank() {
                return not_congruent("stride");
            }
            DynIntTuple::try_from_modes(s.modes().zip(d.modes()).map(|(sm, dm)| idx2crd_strided(i, &sm, &dm)))
        }
    }
}

/// CuTe's two-argument `crd2idx(coord, shape)`: the colexicographic index (Horner's rule over the
/// flattened coordinate).
pub fn crd2idx_colex(c: &DynIntTuple, s: &DynIntTuple) -> R<DynInt> {
    if let Some(ci) = c.as_int() {
        return Ok(ci);
    }
    if s.is_int() || c.rank() != s.rank() {
        return not_congruent("coordinate");
    }
    let flat_c: heapless_modes::Ints = c.leaves().collect();
    let guide = product_like(s, c)?;
    let flat_s: heapless_modes::Ints = guide.leaves().collect();
    // c0 + s0 * (c1 + s1 * (... + c_last))
    let n = flat_c.len();
    if n == 0 {
        return Ok(DynInt::new_static(0));
    }
    let mut acc = flat_c.get(n - 1);
    for k in (0..n - 1).rev() {
        acc = flat_c.get(k).add(flat_s.get(k).mul(acc));
    }
    Ok(acc)
}

/// CuTe's `product_like(tuple, guide)`: the product of `t` at every leaf of `guide`.
const fn product_like(t: &DynIntTuple, guide: &DynIntTuple) -> R<DynIntTuple> {
    if guide.is_int() {
        return Ok(DynIntTuple::int(tri!(t.size())));
    }
    if t.is_int() || t.rank() != guide.rank() {
        return not_congruent("guide");
    }
    let mut out = DynIntTuple::builder();
    tri!(out.push_node(Node::Tuple(t.rank() as u8)));
    let mut k = 0;
    while k < t.rank() {
        let (Some(tm), Some(gm)) = (t.mode(k), guide.mode(k)) else { return not_congruent("guide") };
        tri!(out.push_tuple(&tri!(product_like(&tm, &gm))));
        k += 1;
    }
    Ok(out)
}

/// CuTe's `compact_major`: strides of the compact layout starting at `current`, column-major
/// (`left`) or row-major; returns them and the final running product.
pub const fn compact(s: &DynIntTuple, current: DynInt, left: bool) -> R<(DynIntTuple, DynInt)> {
    if let Some(sv) = s.as_int() {
        if sv.is_static && sv.value == 1 {
            return Ok((DynIntTuple::int(DynInt::new_static(0)), current));
        }
        // The running product after the last integer may overflow without harm: it is no stride.
        // Callers whose strides could overflow check them first (`check_compact`).
        let next = current.value.wrapping_mul(sv.value);
        return Ok((
            DynIntTuple::int(current),
            DynInt { value: next, is_static: current.is_static && sv.is_static, basis: current.basis },
        ));
    }
    walk_modes(s, current, left, Step::Compact)
}

/// The running-product steps [`walk_modes`] applies (a `const fn` cannot call a function pointer).
#[derive(Clone, Copy)]
enum Step {
    Compact,
    Exclusive,
}

const fn step(s: &DynIntTuple, init: DynInt, left: bool, how: Step) -> R<(DynIntTuple, DynInt)> {
    match how {
        Step::Compact => compact(s, init, left),
        Step::Exclusive => exclusive_product(s, init, left),
    }
}

/// Apply a running-product step to the modes of a tuple, left to right or right to left, keeping the
/// results in mode order.
const fn walk_modes(s: &DynIntTuple, init: DynInt, left: bool, how: Step) -> R<(DynIntTuple, DynInt)> {
    let n = s.rank();
    // The running product entering each mode, computed in walking order.
    let mut entering = [DynInt::new_static(0); MAX_NODES];
    let mut cur = init;
    let mut k = 0;
    while k < n {
        let idx = if left { k } else { n - 1 - k };
        let Some(m) = s.mode(idx) else { return Err(LayoutError::TooLarge) };
        entering[idx] = cur;
        cur = tri!(step(&m, cur, left, how)).1;
        k += 1;
    }
    let mut out = DynIntTuple::builder();
    tri!(out.push_node(Node::Tuple(n as u8)));
    let mut k = 0;
    while k < n {
        let Some(m) = s.mode(k) else { return Err(LayoutError::TooLarge) };
        tri!(out.push_tuple(&tri!(step(&m, entering[k], left, how)).0));
        k += 1;
    }
    Ok((out, cur))
}

/// pycute's exclusive `prefix_product(a, init)` (and its mirror, the suffix product): no stride-0
/// rule for static 1s.
pub const fn exclusive_product(s: &DynIntTuple, init: DynInt, left: bool) -> R<(DynIntTuple, DynInt)> {
    if let Some(sv) = s.as_int() {
        let Some(next) = init.value.checked_mul(sv.value) else { return Err(LayoutError::SizeOverflow) };
        return Ok((
            DynIntTuple::int(init),
            DynInt { value: next, is_static: init.is_static && sv.is_static, basis: init.basis },
        ));
    }
    walk_modes(s, init, left, Step::Exclusive)
}

/// Which of CuTe's two tuple divisions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Division {
    /// `shape_div`: static operands must divide one another.
    Shape,
    /// `ceil_div`.
    Ceil,
}

/// CuTe's `shape_div(a, b)` or `ceil_div(a, b)`.
pub const fn divide(a: &DynIntTuple, b: &DynIntTuple, how: Division) -> R<DynIntTuple> {
    match (a.is_int(), b.is_int()) {
        (false, false) => {
            let ok = match how {
                Division::Shape => a.rank() == b.rank(),
                Division::Ceil => a.rank() >= b.rank(),
            };
            if !ok {
                return not_congruent("divisor");
            }
            let mut out = DynIntTuple::builder();
            tri!(out.push_node(Node::Tuple(a.rank() as u8)));
            let mut k = 0;
            while k < a.rank() {
                let Some(am) = a.mode(k) else { return Err(LayoutError::TooLarge) };
                let bm = match b.mode(k) {
                    Some(bm) => bm,
                    None => DynIntTuple::int(DynInt::new_static(1)),
                };
                tri!(out.push_tuple(&tri!(divide(&am, &bm, how))));
                k += 1;
            }
            Ok(out)
        }
        (false, true) => {
            let mut rest = *b;
            let mut out = DynIntTuple::builder();
            tri!(out.push_node(Node::Tuple(a.rank() as u8)));
            let mut k = 0;
            while k < a.rank() {
                let Some(am) = a.mode(k) else { return Err(LayoutError::TooLarge) };
                tri!(out.push_tuple(&tri!(divide(&am, &rest, how))));
                rest = tri!(divide(&rest, &am, how));
                k += 1;
            }
            Ok(out)
        }
        (true, false) => divide(a, &DynIntTuple::int(tri!(b.size())), how),
        (true, true) => {
            let (Some(x), Some(y)) = (a.as_int(), b.as_int()) else { return not_congruent("divisor") };
            if y.value == 0 {
                return Err(LayoutError::DivisionByZero);
            }
            if matches!(how, Division::Shape)
                && x.is_static
                && y.is_static
                && x.value % y.value != 0
                && (x.value == 0 || y.value % x.value != 0)
            {
                return Err(LayoutError::NotDivisible { a: x.value, b: y.value });
            }
            Ok(DynIntTuple::int(x.ceil_div(y)))
        }
    }
}

/// CuTe's `weakly_congruent(a, b)`.
pub const fn weakly_congruent(a: &DynIntTuple, b: &DynIntTuple) -> bool {
    match (a.is_int(), b.is_int()) {
        (true, _) => true,
        (false, true) => false,
        (false, false) => {
            if a.rank() != b.rank() {
                return false;
            }
            let mut k = 0;
            while k < a.rank() {
                let (Some(x), Some(y)) = (a.mode(k), b.mode(k)) else { return false };
                if !weakly_congruent(&x, &y) {
                    return false;
                }
                k += 1;
            }
            true
        }
    }
}

/// CuTe's `compatible(a, b)`.
pub fn compatible(a: &DynIntTuple, b: &DynIntTuple) -> bool {
    match (a.as_int(), b.is_int()) {
        (Some(x), _) => b.size().is_ok_and(|s| s.value == x.value),
        (None, true) => false,
        (None, false) => a.rank() == b.rank() && a.modes().zip(b.modes()).all(|(x, y)| compatible(&x, &y)),
    }
}

/// CuTe's `product_each`.
pub const fn product_each(t: &DynIntTuple) -> R<DynIntTuple> {
    if let Some(v) = t.as_int() {
        return DynIntTuple::tuple(&[DynIntTuple::int(v)]);
    }
    let mut out = DynIntTuple::builder();
    tri!(out.push_node(Node::Tuple(t.rank() as u8)));
    let mut k = 0;
    while k < t.rank() {
        let Some(m) = t.mode(k) else { return Err(LayoutError::TooLarge) };
        tri!(out.push_node(Node::Int(tri!(m.size()))));
        k += 1;
    }
    Ok(out)
}

/// The scalar-stride rule: a stride integer against a tuple mode is that mode's compact
/// column-major strides starting at it. `Err` if an expanded stride overflows (`leaf` counts the
/// integers of the expanded stride, as the typed path does).
pub const fn expand_stride(s: &DynIntTuple, d: &DynIntTuple) -> R<DynIntTuple> {
    expand_stride_from(s, d, &mut 0)
}

const fn expand_stride_from(s: &DynIntTuple, d: &DynIntTuple, leaf: &mut usize) -> R<DynIntTuple> {
    match (s.is_int(), d.as_int()) {
        (true, Some(_)) => {
            *leaf += 1;
            Ok(*d)
        }
        (true, None) => not_congruent("stride"),
        (false, Some(dv)) => {
            tri!(check_compact(s, dv.value, leaf));
            Ok(tri!(compact(s, dv, true)).0)
        }
        (false, None) => {
            if s.rank() != d.rank() {
                return Err(LayoutError::RankMismatch { what: "stride", got: d.rank(), expected: s.rank() });
            }
            let mut out = DynIntTuple::builder();
            tri!(out.push_node(Node::Tuple(s.rank() as u8)));
            let mut k = 0;
            while k < s.rank() {
                let (Some(sm), Some(dm)) = (s.mode(k), d.mode(k)) else { return not_congruent("stride") };
                tri!(out.push_tuple(&tri!(expand_stride_from(&sm, &dm, leaf))));
                k += 1;
            }
            Ok(out)
        }
    }
}

/// Every column-major stride of `s` starting at `d` fits in `isize`.
const fn check_compact(s: &DynIntTuple, d: isize, leaf: &mut usize) -> R<()> {
    let mut running = Some(1isize);
    let mut k = 0;
    while let Some((node_k, next_k)) = s.read(k) {
        k = next_k;
        if let Node::Int(v) = node_k {
            let stepped = !(v.is_static && v.value == 1);
            let next = match running {
                Some(p) => p.checked_mul(d),
                None => None,
            };
            if stepped && next.is_none() {
                return Err(LayoutError::StrideOverflow { leaf: *leaf });
            }
            running = match running {
                Some(p) => p.checked_mul(v.value),
                None => None,
            };
            *leaf += 1;
        }
    }
    Ok(())
}

/// CuTe's `cosize` as the span, `sum((s - 1) * |d|) + 1` (CuTe's `L(size - 1) + 1` for non-negative
/// strides; DECISIONS.md, decision 14), with CuTe's static rules. `Err` on overflow.
pub const fn cosize(s: &DynIntTuple, d: &DynIntTuple) -> R<DynInt> {
    // The shape and the stride are congruent: their integers pair up in node order.
    let mut total = DynInt::new_static(0);
    let mut k = 0;
    let mut kd = 0;
    while let (Some((sk, sn)), Some((dk, dn))) = (s.read(k), d.read(kd)) {
        (k, kd) = (sn, dn);
        if let (Node::Int(sv), Node::Int(dv)) = (sk, dk) {
            total = match add_cosize_term(total, sv, dv) {
                Some(t) => t,
                None => return Err(LayoutError::CosizeOverflow),
            };
        }
    }
    if total.value.checked_add(1).is_none() {
        return Err(LayoutError::CosizeOverflow);
    }
    Ok(total.add(DynInt::new_static(1)))
}

/// The size and cosize of a layout's leaves, taken one `s:d` at a time (integer strides), with
/// [`DynLayout::new`]'s checks in its order: an extent below 1 or with a basis at once (naming
/// the leaf), then a size and a cosize past `isize`. One rule for every place that checks a layout
/// from its leaves: the one walk over the tuples, a flat layout's arrays, and the algebra's mode
/// lists.
#[derive(Clone, Copy)]
pub(crate) struct Sizes {
    leaf: usize,
    size: DynInt,
    size_overflow: bool,
    total: DynInt,
    cosize_overflow: bool,
    /// The first leaf's error that [`Sizes::add_later`] met, which [`Sizes::finish`] gives first.
    error: Option<LayoutError>,
    /// Whether a stride taken was a basis element (the sizes are then not the layout's).
    basis: bool,
}

impl Sizes {
    pub(crate) const fn new() -> Self {
        Sizes {
            leaf: 0,
            size: DynInt::new_static(1),
            size_overflow: false,
            total: DynInt::new_static(0),
            cosize_overflow: false,
            error: None,
            basis: false,
        }
    }

    /// The next leaf: `Err` for an extent below 1 or with a basis.
    #[inline(always)]
    pub(crate) const fn add(&mut self, s: DynInt, d: DynInt) -> Result<(), LayoutError> {
        if s.value <= 0 {
            return Err(LayoutError::NonPositiveExtent { leaf: self.leaf, value: s.value });
        }
        if s.has_basis() {
            return Err(LayoutError::BasisExtent { leaf: self.leaf });
        }
        self.leaf += 1;
        match self.size.value.checked_mul(s.value) {
            Some(v) => self.size = DynInt::new(v, self.size.is_static && s.is_static),
            None => self.size_overflow = true,
        }
        // `sum((s - 1) * |d|)`, as `ops::cosize` sums it.
        match add_cosize_term(self.total, s, d) {
            Some(t) => self.total = t,
            None => self.cosize_overflow = true,
        }
        Ok(())
    }

    /// [`Sizes::add`] for an assembler that writes all its leaves before it checks: the first
    /// leaf's error is kept for [`Sizes::finish`] (no leaf is taken after it), and a basis stride
    /// is noted ([`Sizes::has_basis`]).
    #[inline(always)]
    pub(crate) const fn add_later(&mut self, s: DynInt, d: DynInt) {
        self.basis |= d.has_basis();
        if self.error.is_none()
            && let Err(e) = self.add(s, d)
        {
            self.error = Some(e);
        }
    }

    /// Whether a stride given to [`Sizes::add_later`] or [`Sizes::add_layout`] was a basis
    /// element: the layout's cosize then follows the bases, and its assembler checks it whole.
    pub(crate) const fn has_basis(&self) -> bool {
        self.basis
    }

    /// A whole checked layout of size `size` and cosize `cosize` as the next leaves: its
    /// leaves' terms sum to `cosize - 1` (static as the cosize is), and all terms are
    /// non-negative, so the sums overflow exactly where the leaf-by-leaf ones would.
    pub(crate) const fn add_layout(&mut self, size: DynInt, cosize: DynInt, basis: bool) {
        self.basis |= basis;
        match self.size.value.checked_mul(size.value) {
            Some(v) => self.size = DynInt::new(v, self.size.is_static && size.is_static),
            None => self.size_overflow = true,
        }
        match self.total.value.checked_add(cosize.value - 1) {
            Some(v) => self.total = DynInt::new(v, self.total.is_static && cosize.is_static),
            None => self.cosize_overflow = true,
        }
    }

    /// The size and cosize of the layout of the modes `s[k]:d[k]` (integer strides), with its
    /// checks.
    pub(crate) const fn of(s: &[DynInt], d: &[DynInt]) -> Result<(DynInt, DynInt), LayoutError> {
        let mut sizes = Sizes::new();
        let mut k = 0;
        while k < s.len() {
            tri!(sizes.add(s[k], d[k]));
            k += 1;
        }
        sizes.finish()
    }

    /// The size and cosize, or which of them does not fit.
    #[inline(always)]
    pub(crate) const fn finish(self) -> Result<(DynInt, DynInt), LayoutError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.size_overflow {
            return Err(LayoutError::SizeOverflow);
        }
        if self.cosize_overflow || self.total.value.checked_add(1).is_none() {
            return Err(LayoutError::CosizeOverflow);
        }
        Ok((self.size, self.total.add(DynInt::new_static(1))))
    }
}

/// `total + (s - 1) * |d|`, one term of a cosize with CuTe's static rules (for plain integer
/// strides): a term is static if both integers are, or if it is a static zero (`s` a static 1,
/// or `d` a static 0); the sum if both are. `None` on overflow.
pub(crate) const fn add_cosize_term(total: DynInt, s: DynInt, d: DynInt) -> Option<DynInt> {
    let term = match d.value.checked_abs() {
        Some(a) => (s.value - 1).checked_mul(a),
        None => None,
    };
    let term_static = (s.is_static && (d.is_static || s.value == 1)) || (d.is_static && d.value == 0);
    match term {
        Some(t) => match total.value.checked_add(t) {
            Some(v) => Some(DynInt::new(v, total.is_static && term_static)),
            None => None,
        },
        None => None,
    }
}

/// CuTe's `compact_order(shape, order)`, the stride of `make_ordered_layout`.
pub const fn compact_order(s: &DynIntTuple, order: &DynIntTuple) -> R<DynIntTuple> {
    if !weakly_congruent(order, s) {
        return not_congruent("order");
    }
    let guide = tri!(product_like(s, order));
    let (ref_shape, n) = leaf_values(&guide);
    let (flat_order, m) = leaf_values(order);
    // Runtime order values are replaced by values past the largest static one, in position order.
    let mut max_static = 0;
    let mut k = 0;
    while k < m {
        if flat_order[k].is_static && flat_order[k].value > max_static {
            max_static = flat_order[k].value;
        }
        k += 1;
    }
    let mut ref_order = [DynInt::new_static(0); MAX_NODES];
    let mut k = 0;
    while k < m {
        let o = flat_order[k];
        ref_order[k] = if o.is_static { o } else { DynInt::new_static(max_static + 1 + k as isize) };
        k += 1;
    }
    let mut leaf = 0usize;
    compact_order_impl(s, order, &ref_shape, n, &ref_order, &mut leaf)
}

/// The integers of `t`, left to right, and how many there are.
const fn leaf_values(t: &DynIntTuple) -> ([DynInt; MAX_NODES], usize) {
    let mut out = [DynInt::new_static(0); MAX_NODES];
    let (mut n, mut k) = (0, 0);
    while let Some((node_k, next_k)) = t.read(k) {
        k = next_k;
        if let Node::Int(v) = node_k {
            out[n] = v;
            n += 1;
        }
    }
    (out, n)
}

const fn compact_order_impl(
    s: &DynIntTuple,
    order: &DynIntTuple,
    ref_shape: &[DynInt; MAX_NODES],
    n: usize,
    ref_order: &[DynInt; MAX_NODES],
    leaf: &mut usize,
) -> R<DynIntTuple> {
    if order.is_int() {
        let o = ref_order[*leaf];
        *leaf += 1;
        let mut start = DynInt::new_static(1);
        let mut k = 0;
        while k < n {
            let factor = if ref_order[k].value < o.value { ref_shape[k] } else { DynInt::new_static(1) };
            if start.value.checked_mul(factor.value).is_none() {
                return Err(LayoutError::StrideOverflow { leaf: k });
            }
            start = start.mul(factor);
            k += 1;
        }
        return Ok(tri!(compact(s, start, true)).0);
    }
    if s.is_int() || s.rank() != order.rank() {
        return not_congruent("order");
    }
    let mut out = DynIntTuple::builder();
    tri!(out.push_node(Node::Tuple(s.rank() as u8)));
    let mut k = 0;
    while k < s.rank() {
        let (Some(sm), Some(om)) = (s.mode(k), order.mode(k)) else { return not_congruent("order") };
        tri!(out.push_tuple(&tri!(compact_order_impl(&sm, &om, ref_shape, n, ref_order, leaf))));
        k += 1;
    }
    Ok(out)
}

/// Fixed-capacity lists for the recursions above (no heap in the library).
pub mod heapless_modes {
    use super::super::int_tuple::{DynInt, MAX_NODES};

    /// Up to [`MAX_NODES`] integers.
    pub struct Ints {
        items: [DynInt; MAX_NODES],
        len: usize,
    }

    impl Default for Ints {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Ints {
        pub fn new() -> Self {
            Ints { items: [DynInt::new_static(0); MAX_NODES], len: 0 }
        }
        pub fn push(&mut self, v: DynInt) {
            // A DynIntTuple never has more than MAX_NODES integers.
            if self.len < MAX_NODES {
                self.items[self.len] = v;
                self.len += 1;
            }
        }
        pub fn len(&self) -> usize {
            self.len
        }
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
        pub fn get(&self, k: usize) -> DynInt {
            self.items[k]
        }
    }

    impl FromIterator<DynInt> for Ints {
        fn from_iter<I: IntoIterator<Item = DynInt>>(iter: I) -> Self {
            let mut m = Ints::new();
            for v in iter {
                m.push(v);
            }
            m
        }
    }
}
