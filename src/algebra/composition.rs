//! `composition(A, B)`: the layout `c -> A(B(c))`.
//!
//! Two computations run side by side. CuTe's algorithm (on CuTe's coalesced `A`, with CuTe's
//! static rules) gives CuTe's result and structure. An exact one on the merged form of `A` checks
//! the conditions under which a layout result exists at all (divisibility at every mode the
//! right layout's strides reach, and no carries between the right layout's modes) and gives the
//! correct result. CuTe's is returned when it is the same function, the exact one otherwise, and
//! an [`Inadmissible`] error when there is none.

use super::admissible::Inadmissible;
use super::coalesce::coalesce_x;
use super::leaves::Leaves;
use super::tiler::{TileMode, Tiler};
use super::{R, is_const, min, mul, scalar, signum};
use crate::dynamic::{DynInt, DynLayout, MAX_NODES};
use crate::error::{LayoutError, tri};

/// CuTe's `composition(lhs, rhs)` for two layouts: `R(c) == lhs(rhs(c))` for every coordinate `c`
/// of `rhs`, with `rhs`'s shape refined where needed. `lhs` is read past its end as CuTe does (its
/// last mode goes on).
///
/// ```
/// use const_layout::algebra::composition;
/// let a = "(_6,_2):(_8,_2)".parse().unwrap();
/// let b = "(_4,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// ```
pub const fn composition(lhs: &DynLayout, rhs: &DynLayout) -> R<DynLayout> {
    // A basis-strided left side is fine (its strides are only scaled); the right side's strides
    // are positions in the left side's domain.
    tri!(super::identity::integer_strides("composition (right-hand side)", &[rhs]));
    match tri!(Composer::new(lhs)).compose(rhs) {
        Err(e @ LayoutError::Inadmissible { .. }) => match checked_by_value(lhs, rhs) {
            Some(r) => Ok(r),
            None => Err(e),
        },
        r => r,
    }
}

/// Right layouts up to this size that fail the structural conditions are checked point by point.
const BY_VALUE_LIMIT: isize = 1 << 14;

/// The structural conditions are sufficient, not necessary: a right mode of two elements, say,
/// always composes to a layout. When they fail on a small right layout, try CuTe's answer and
/// then one linear mode per right mode, and keep the first that equals `lhs(rhs(i))` everywhere.
const fn checked_by_value(lhs: &DynLayout, rhs: &DynLayout) -> Option<DynLayout> {
    if rhs.size().value > BY_VALUE_LIMIT || lhs.has_basis() {
        return None;
    }
    let Ok(composer) = Composer::new(lhs) else { return None };
    if let Ok(cute) = composer.map_leaves(rhs, lhs, Candidate::Cute)
        && agrees(&cute, lhs, rhs)
    {
        return Some(cute);
    }
    match composer.map_leaves(rhs, lhs, Candidate::Linear) {
        Ok(linear) if agrees(&linear, lhs, rhs) => Some(linear),
        _ => None,
    }
}

/// The candidates [`checked_by_value`] tries for each integral right mode `n:r`.
#[derive(Clone, Copy)]
enum Candidate {
    /// CuTe's `composition_impl`.
    Cute,
    /// `n : lhs(r)`, one linear mode.
    Linear,
}

/// Whether `r` is `lhs o rhs` on the whole domain of `rhs`.
const fn agrees(r: &DynLayout, lhs: &DynLayout, rhs: &DynLayout) -> bool {
    if r.size().value != rhs.size().value {
        return false;
    }
    let mut i = 0;
    while i < rhs.size().value {
        if r.offset(i) != lhs.offset(rhs.offset(i)) {
            return false;
        }
        i += 1;
    }
    true
}

/// CuTe's `composition(lhs, tiler)`: a by-mode tiler composes mode `i` of `lhs` with item `i`
/// and drops the modes of `lhs` past the tiler; a layout tiler is [`composition`].
///
/// ```
/// use const_layout::algebra::{Tiler, composition_tiler};
/// let a = "(_12,(_4,_8)):(_59,(_13,_1))".parse().unwrap();
/// let t: Tiler = "<_3:_4, _8:_2>".parse().unwrap();
/// assert_eq!(composition_tiler(&a, &t).unwrap().to_string(), "(_3,(_2,_4)):(_236,(_26,_1))");
/// ```
pub const fn composition_tiler(lhs: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    match tiler {
        Tiler::Layout(b) => composition(lhs, b),
        Tiler::Modes(items) => {
            let n = items.len();
            if n > lhs.rank() {
                return Err(LayoutError::ModeOutOfRange {
                    op: "composition",
                    index: n - 1,
                    rank: lhs.rank(),
                });
            }
            let mut out = tri!(super::ModeBuilder::new());
            let mut i = 0;
            while i < n {
                let Some(m) = lhs.mode(i) else { return Err(LayoutError::TooLarge) };
                tri!(out.push(&tri!(compose_item(&m, &items.get(i)))));
                i += 1;
            }
            out.finish()
        }
    }
}

/// One by-mode tiler item against one mode of the left layout.
const fn compose_item(lhs: &DynLayout, item: &TileMode) -> R<DynLayout> {
    match item {
        TileMode::Keep => Ok(*lhs),
        TileMode::Layout(b) => composition(lhs, b),
        // CuTe composes with an integer `n` as with `n:_1` (not `make_layout(n)`).
        TileMode::Shape(s) => match s.as_int() {
            Some(n) => composition(lhs, &tri!(scalar(n, DynInt::fixed(1)))),
            None => composition_tiler(lhs, &tri!(Tiler::from_shape(s))),
        },
    }
}

/// The left operand prepared once: CuTe's coalesced form and the merged form the exact
/// computation reads, with the per-mode offset budget used so far by the right layout's modes.
struct Composer {
    cute: Leaves,
    cute_is_scalar: bool,
    exact: Leaves,
    /// Largest offset (in units of the mode's stride) each right mode reaches in each left mode.
    reach: [[isize; 2]; MAX_NODES],
    signs: [bool; 2],
    spread: bool,
}

impl Composer {
    const fn new(lhs: &DynLayout) -> R<Self> {
        let c = tri!(coalesce_x(lhs));
        Ok(Composer {
            cute: Leaves::of(&c),
            cute_is_scalar: c.shape().is_int(),
            exact: Leaves::of(lhs).merged(),
            reach: [[0; 2]; MAX_NODES],
            signs: [false; 2],
            spread: false,
        })
    }

    const fn compose(mut self, rhs: &DynLayout) -> R<DynLayout> {
        let out = tri!(self.compose_tree(rhs));
        if self.signs[0] && self.signs[1] && self.spread {
            return Err(inadmissible(Inadmissible::MixedSigns));
        }
        Ok(out)
    }

    /// Right-distributivity: each mode of `rhs` composes separately.
    const fn compose_tree(&mut self, rhs: &DynLayout) -> R<DynLayout> {
        if let (Some(n), Some(r)) = (rhs.shape().as_int(), rhs.stride().as_int()) {
            // Compared as flat mode lists; only the one returned becomes a layout.
            let exact = tri!(self.compose_exact(n.value, r.value));
            return match self.compose_cute(n, r) {
                Ok(c) if c.same_function(&exact) => c.layout(),
                _ => exact.layout(),
            };
        }
        let mut out = tri!(super::ModeBuilder::new());
        let mut i = 0;
        while i < rhs.rank() {
            let Some(m) = rhs.mode(i) else { return Err(LayoutError::TooLarge) };
            tri!(out.push(&tri!(self.compose_tree(&m))));
            i += 1;
        }
        out.finish()
    }

    /// `rhs`'s structure with each integral mode `n:r` replaced by `f(n, r)`.
    const fn map_leaves(&self, rhs: &DynLayout, lhs: &DynLayout, how: Candidate) -> R<DynLayout> {
        if let (Some(n), Some(r)) = (rhs.shape().as_int(), rhs.stride().as_int()) {
            return match how {
                Candidate::Cute => tri!(self.compose_cute(n, r)).layout(),
                Candidate::Linear => scalar(DynInt::runtime(n.value), DynInt::runtime(lhs.offset(r.value))),
            };
        }
        let mut out = tri!(super::ModeBuilder::new());
        let mut i = 0;
        while i < rhs.rank() {
            let Some(m) = rhs.mode(i) else { return Err(LayoutError::TooLarge) };
            tri!(out.push(&tri!(self.map_leaves(&m, lhs, how))));
            i += 1;
        }
        out.finish()
    }

    /// CuTe's `composition_impl` for an integral right layout `n:r`.
    const fn compose_cute(&self, n: DynInt, r: DynInt) -> R<Flat> {
        if is_const(r, 0) {
            return Flat::scalar(n, r);
        }
        let lhs = &self.cute;
        if self.cute_is_scalar {
            return Flat::scalar(n, tri!(mul(r, lhs.stride(0))));
        }
        let count = lhs.len();
        let mut result = Leaves::new();
        let (mut rest_shape, mut rest_stride) = (n, r);
        let mut k = 0;
        while k + 1 < count {
            let (curr_shape, curr_stride) = (lhs.shape(k), lhs.stride(k));
            k += 1;
            let abs = rest_stride.abs();
            if abs.value == 0 {
                return Err(LayoutError::DivisionByZero);
            }
            let next_shape = curr_shape.ceil_div(abs);
            let next_stride = abs.ceil_div(curr_shape).mul(signum(rest_stride));
            if is_const(next_shape, 1) || is_const(rest_shape, 1) {
                rest_stride = next_stride;
            } else {
                let new_shape = min(next_shape, rest_shape);
                tri!(result.push(new_shape, tri!(mul(rest_stride, curr_stride))));
                rest_shape = rest_shape.div(new_shape);
                rest_stride = next_stride;
            }
        }
        let last = tri!(mul(rest_stride, lhs.stride(count - 1)));
        if result.is_empty() {
            return Flat::scalar(rest_shape, last);
        }
        if is_const(rest_shape, 1) {
            return Ok(Flat { modes: result, unwrap: true });
        }
        tri!(result.push(rest_shape, last));
        Ok(Flat { modes: result, unwrap: false })
    }

    /// The exact composition of the merged left layout with `n:r`, checking every condition, and
    /// recording how far into each left mode this right mode reaches.
    const fn compose_exact(&mut self, n: isize, r: isize) -> R<Flat> {
        if n == 1 || r == 0 {
            return Flat::scalar(DynInt::runtime(n), DynInt::runtime(0));
        }
        let sign = r.signum();
        let side = (sign < 0) as usize;
        self.signs[side] = true;
        let mut out = Leaves::new();
        let (mut rest_n, mut rest_r) = (n, r.unsigned_abs() as isize);
        let count = self.exact.len();
        let mut k = 0;
        while k + 1 < count {
            if rest_n == 1 {
                break;
            }
            let (s, d) = (self.exact.shape(k).value, self.exact.stride(k).value);
            if rest_r >= s {
                if rest_r % s != 0 {
                    return Err(inadmissible(Inadmissible::StrideDivisibility {
                        mode: k,
                        extent: s,
                        stride: rest_r,
                    }));
                }
                rest_r /= s;
                k += 1;
                continue;
            }
            // The steps 0, rest_r, 2*rest_r, ... below s fit in this mode.
            let fits = (s + rest_r - 1) / rest_r;
            let used = if rest_n <= fits {
                tri!(out.push(DynInt::runtime(rest_n), self.stride_of(k, tri!(checked(sign * rest_r, d)))));
                let used = (rest_n - 1) * rest_r;
                rest_n = 1;
                used
            } else {
                if s % rest_r != 0 {
                    return Err(inadmissible(Inadmissible::ExtentDivisibility {
                        mode: k,
                        extent: s,
                        stride: rest_r,
                    }));
                }
                if rest_n % fits != 0 {
                    return Err(inadmissible(Inadmissible::ShapeDivisibility {
                        mode: k,
                        size: rest_n,
                        fits,
                    }));
                }
                tri!(out.push(DynInt::runtime(fits), self.stride_of(k, tri!(checked(sign * rest_r, d)))));
                rest_n /= fits;
                rest_r = 1;
                s - s / fits
            };
            tri!(self.spend(k, s, used, side));
            k += 1;
        }
        if rest_n > 1 {
            let last = tri!(checked(sign * rest_r, self.exact.stride(count - 1).value));
            tri!(out.push(DynInt::runtime(rest_n), self.stride_of(count - 1, last)));
        }
        Ok(Flat { modes: out, unwrap: true })
    }

    /// A runtime stride of `value` in the basis of left mode `k` (none for integer strides).
    const fn stride_of(&self, k: usize, value: isize) -> DynInt {
        DynInt::runtime(value).scaled(self.exact.stride(k).basis)
    }

    /// Record that a right mode reaches offset `used` of left mode `k` (extent `s`); two right
    /// modes whose offsets there add up to `s` or more carry into the next mode.
    const fn spend(&mut self, k: usize, s: isize, used: isize, side: usize) -> R<()> {
        if used == 0 {
            return Ok(());
        }
        self.spread = true;
        let before = self.reach[k][side];
        if before + used >= s {
            return Err(inadmissible(Inadmissible::Overlap {
                mode: k,
                extent: s,
                first: if before > used { before } else { used },
                second: if before < used { before } else { used },
            }));
        }
        self.reach[k][side] = before + used;
        Ok(())
    }
}

/// A right mode's composition as a flat list of modes (a scalar layout if `unwrap` and one mode).
struct Flat {
    modes: Leaves,
    unwrap: bool,
}

impl Flat {
    const fn scalar(n: DynInt, d: DynInt) -> R<Flat> {
        let mut modes = Leaves::new();
        tri!(modes.push(n, d));
        Ok(Flat { modes, unwrap: true })
    }

    const fn layout(&self) -> R<DynLayout> {
        self.modes.layout(self.unwrap)
    }

    /// The same function on the same domain (equal size, equal canonical form).
    const fn same_function(&self, other: &Flat) -> bool {
        const fn size(m: &Leaves) -> Option<isize> {
            let (mut acc, mut k) = (1isize, 0);
            while k < m.len() {
                acc = match acc.checked_mul(m.shape(k).value) {
                    Some(v) => v,
                    None => return None,
                };
                k += 1;
            }
            Some(acc)
        }
        let same_size = match (size(&self.modes), size(&other.modes)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => true,
            _ => false,
        };
        same_size && self.modes.canonical().same_values(&other.modes.canonical())
    }
}

const fn checked(a: isize, b: isize) -> R<isize> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::SizeOverflow),
    }
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "composition", why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> DynLayout {
        s.parse().unwrap()
    }

    #[test]
    fn reference_examples_are_rejected() {
        // REFERENCE decision 2's two examples, where CuTe is silently wrong.
        assert!(composition(&l("(_6,_2):(_1,_7)"), &l("(_3,_2):(_2,_3)")).is_err());
        assert!(composition(&l("(_6,_6):(_6,_1)"), &l("_12:_4")).is_err());
    }

    #[test]
    fn small_right_modes_are_checked_by_value() {
        // 6 is not a multiple of 4, but two points always form a layout: a(6) = 2 + 10.
        let r = composition(&l("(4,3):(1,10)"), &l("2:6")).unwrap();
        assert_eq!((r.size().value, r.offset(1)), (2, 12));
    }

    #[test]
    fn runtime_values_get_the_correct_answer_where_cute_rounds() {
        // CuTe on (2,3):(1,2) with runtime values: 2:3 becomes (1,2):(3,4), wrong at 1.
        let r = composition(&l("(2,3):(1,2)"), &l("2:3")).unwrap();
        assert_eq!((r.size().value, r.offset(0), r.offset(1)), (2, 0, 3));
    }
}
