//! `coalesce`, `filter_zeros` and `filter`.

use super::leaves::{Leaves, SMALL};
use super::{R, is_const, mul};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::{LayoutError, tri};

/// CuTe's `coalesce(layout)`: the same function on `0..size` with as few modes as CuTe can prove
/// mergeable. Static extent-1 modes vanish; two modes merge when the extent of the first times its
/// stride is statically the stride of the second. The result has depth at most 1.
///
/// ```
/// use const_layout::algebra::coalesce;
/// let l = "(_2,(_1,_6)):(_1,(_6,_2))".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "_12:_1");
/// // Runtime integers are not merged (CuTe cannot prove at compile time that they line up).
/// let l = "(2,6):(1,2)".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "(2,6):(1,2)");
/// ```
pub const fn coalesce(layout: &DynLayout) -> R<DynLayout> {
    // On small working lists first (see `Leaves`): the same code, so the same answer.
    if let Ok(small) = Leaves::<SMALL>::try_of(layout) {
        match bw_coalesce(&small, false) {
            Err(LayoutError::TooLarge) => {}
            r => return r,
        }
    }
    bw_coalesce(&Leaves::of(layout), false)
}

pub(crate) const fn bw_coalesce<const N: usize>(old: &Leaves<N>, keep_tail: bool) -> R<DynLayout> {
    let mut modes = Leaves::<N>::new();
    let unwrap = tri!(bw_coalesce_into(old, keep_tail, &mut modes));
    modes.layout(unwrap)
}

/// [`bw_coalesce`]'s result as its mode list, written into `new` (empty; no mode list is
/// moved), and whether it is a scalar layout (`unwrap`); not yet checked as a layout
/// ([`checked_modes`]).
pub(crate) const fn bw_coalesce_into<const N: usize, const M: usize>(
    old: &Leaves<N>,
    keep_tail: bool,
    new: &mut Leaves<M>,
) -> R<bool> {
    let r = old.len();
    if r == 0 {
        return unit_modes(new);
    }
    let last_s = old.shape(r - 1);
    let first_s = if keep_tail && is_const(last_s, 1) { DynInt::new_static(2) } else { last_s };
    tri!(new.push(first_s, old.stride(r - 1)));
    let mut is_tuple = false;
    let mut i = r - 1;
    while i > 0 {
        i -= 1;
        let (s, d) = (old.shape(i), old.stride(i));
        if is_const(s, 1) {
            continue;
        }
        if !is_tuple && is_const(new.shape(0), 1) {
            new.set(0, s, d);
            continue;
        }
        let span = s.mul(d);
        let front_d = new.stride(0);
        if new.shape(0).is_static
            && span.is_static
            && front_d.is_static
            && super::rules::joins(s.value, d.value, front_d.value)
            && span.basis.same(&front_d.basis)
        {
            new.set(0, tri!(mul(s, new.shape(0))), d);
            continue;
        }
        tri!(new.push_front(s, d));
        is_tuple = true;
    }
    if !is_tuple && is_const(new.shape(0), 1) {
        new.remove(0);
        return unit_modes(new);
    }
    Ok(!is_tuple)
}

/// `_1:_0` as a mode list.
const fn unit_modes<const N: usize>(modes: &mut Leaves<N>) -> R<bool> {
    tri!(modes.push(DynInt::new_static(1), DynInt::new_static(0)));
    Ok(true)
}

/// The checks `modes.layout(unwrap)` makes, without building the layout where the strides are
/// integers.
pub(crate) const fn checked_modes<const N: usize>(modes: &Leaves<N>, unwrap: bool) -> R<()> {
    let mut k = 0;
    while k < modes.len() {
        if modes.stride(k).has_basis() {
            return match modes.layout(unwrap) {
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
        }
        k += 1;
    }
    if !(unwrap && modes.len() == 1) && modes.len() >= crate::dyn_layout::MAX_NODES {
        return Err(LayoutError::TooLarge);
    }
    modes.check_values()
}

/// CuTe's `coalesce(layout, profile)`: coalesce each mode of `layout` named by a tuple `profile`
/// separately (recursively); an integer profile coalesces the whole layout. Modes past the
/// profile's rank are kept as they are.
///
/// ```
/// use const_layout::algebra::coalesce_profile;
/// let l = "(_2,(_1,_6)):(_1,(_6,_2))".parse().unwrap();
/// assert_eq!(coalesce_profile(&l, &"(_1,_1)".parse().unwrap()).unwrap().to_string(), "(_2,_6):(_1,_2)");
/// ```
pub fn coalesce_profile(layout: &DynLayout, profile: &DynIntTuple) -> R<DynLayout> {
    by_profile(layout, profile, "coalesce", coalesce)
}

/// Apply `f` at the terminals of `profile` (CuTe's `transform_layout` with the rest kept).
pub(crate) fn by_profile(
    layout: &DynLayout,
    profile: &DynIntTuple,
    op: &'static str,
    f: fn(&DynLayout) -> R<DynLayout>,
) -> R<DynLayout> {
    if profile.is_int() {
        return f(layout);
    }
    if profile.rank() > layout.rank() {
        return Err(LayoutError::ModeOutOfRange { op, index: profile.rank() - 1, rank: layout.rank() });
    }
    let mut out = super::ModeBuilder::new()?;
    for (i, m) in super::modes_of(layout).enumerate() {
        match profile.mode(i) {
            Some(p) if i < profile.rank() => out.push(&by_profile(&m, &p, op, f)?)?,
            _ => out.push(&m)?,
        }
    }
    out.finish()
}

/// CuTe's `coalesce(shape)` for an int tuple: flatten, and multiply neighbouring integers that are
/// both static or both runtime.
///
/// ```
/// use const_layout::algebra::coalesce_shape;
/// let s = "(_2,(_3,4),5,_6)".parse().unwrap();
/// assert_eq!(coalesce_shape(&s).unwrap().to_string(), "(_6,20,_6)");
/// ```
pub const fn coalesce_shape(shape: &DynIntTuple) -> R<DynIntTuple> {
    if shape.is_int() {
        return Ok(*shape);
    }
    let mut out = [DynInt::new_static(1); crate::dyn_layout::MAX_NODES];
    let mut n = 0usize;
    let mut k = 0;
    while let Some((node_k, next_k)) = shape.read(k) {
        k = next_k;
        if let Node::Int(v) = node_k {
            if n > 0 && out[n - 1].is_static == v.is_static {
                out[n - 1] = tri!(mul(out[n - 1], v));
            } else {
                out[n] = v;
                n += 1;
            }
        }
    }
    if n == 0 {
        return Ok(*shape);
    }
    if n == 1 {
        // CuTe's fold over a one-element tuple returns that element.
        return Ok(DynIntTuple::int(out[0]));
    }
    super::leaves::flat_tuple(&out, n)
}

/// CuTe's `filter_zeros(layout)`: every mode with a zero stride gets extent `_1`. (CuTe sees only
/// static zeros; a runtime zero stride is a zero stride too, so it is filtered here.)
///
/// ```
/// use const_layout::algebra::filter_zeros;
/// let l = "(_4,(_2,3)):(_1,(_0,0))".parse().unwrap();
/// // CuTe keeps the runtime zero's extent (`(_4,(_1,3))`): the layout would still repeat offsets.
/// assert_eq!(filter_zeros(&l).unwrap().to_string(), "(_4,(_1,_1)):(_1,(_0,0))");
/// ```
pub const fn filter_zeros(layout: &DynLayout) -> R<DynLayout> {
    let (mut shape, stride) = (*layout.shape(), layout.stride());
    // The shape and the stride are congruent: walk both, node by node.
    let (mut a, mut b) = (0, 0);
    while let (Some(_), Some((d, next))) = (shape.read(a), stride.read(b)) {
        a = match d {
            // `_1` takes one byte, no more than the extent it replaces.
            Node::Int(d) if d.value == 0 => tri!(shape.replace_at(a, Node::Int(DynInt::new_static(1)))),
            _ => shape.decode(a).1,
        };
        b = next;
    }
    DynLayout::new(shape, *stride)
}

/// CuTe's `filter_zeros(layout, profile)`: modes where `profile` is 0 get extent `_1`.
///
/// ```
/// use const_layout::algebra::filter_zeros_profile;
/// let l = "(_4,(_2,_3)):(_1,(_4,_8))".parse().unwrap();
/// let p = "(_1,_0)".parse().unwrap();
/// assert_eq!(filter_zeros_profile(&l, &p).unwrap().to_string(), "(_4,(_1,_1)):(_1,(_4,_8))");
/// ```
pub fn filter_zeros_profile(layout: &DynLayout, profile: &DynIntTuple) -> R<DynLayout> {
    fn go(p: &DynIntTuple, s: &DynIntTuple) -> R<DynIntTuple> {
        match p.as_int() {
            Some(v) if v.value == 0 => Ok(s.map_leaves(|_| DynInt::new_static(1))),
            Some(_) => Ok(*s),
            None => {
                if s.is_int() || s.rank() != p.rank() {
                    return Err(LayoutError::RankMismatch {
                        what: "profile",
                        got: p.rank(),
                        expected: s.rank(),
                    });
                }
                DynIntTuple::try_from_modes(p.modes().zip(s.modes()).map(|(pm, sm)| go(&pm, &sm)))
            }
        }
    }
    DynLayout::new(go(profile, layout.shape())?, *layout.stride())
}

/// CuTe's `filter(layout)`: `coalesce(filter_zeros(layout))`, the modes that move, merged.
///
/// ```
/// use const_layout::algebra::filter;
/// let l = "(_4,(_2,_3)):(_1,(_0,_4))".parse().unwrap();
/// assert_eq!(filter(&l).unwrap().to_string(), "_12:_1");
/// ```
pub const fn filter(layout: &DynLayout) -> R<DynLayout> {
    match filter_in::<SMALL>(layout) {
        Err(LayoutError::TooLarge) => filter_in::<MAX_NODES>(layout),
        r => r,
    }
}

/// [`filter`] on working lists of `N` modes (`Err(TooLarge)` past them).
pub(crate) const fn filter_in<const N: usize>(layout: &DynLayout) -> R<DynLayout> {
    let (modes, unwrap) = tri!(filtered::<N>(layout));
    modes.layout(unwrap)
}

/// [`filter`]'s modes, checked as its layout (which is not built: `complement` reads the modes),
/// and whether that layout is a scalar one (`unwrap`).
pub(crate) const fn filtered<const N: usize>(layout: &DynLayout) -> R<(Leaves<N>, bool)> {
    // `coalesce(filter_zeros(layout))` on the mode list: extent 1 where the stride is 0 leaves a
    // valid layout valid, so the intermediate layout need not be built and checked.
    let mut modes = tri!(Leaves::<N>::try_of(layout));
    let mut k = 0;
    while k < modes.len() {
        if modes.stride(k).value == 0 {
            modes.set(k, DynInt::new_static(1), modes.stride(k));
        }
        k += 1;
    }
    let mut out = Leaves::<N>::new();
    let unwrap = tri!(bw_coalesce_into(&modes, false, &mut out));
    tri!(checked_modes(&out, unwrap));
    Ok((out, unwrap))
}

/// CuTe's `filter(layout, profile)`: [`filter`] at the terminals of `profile`.
///
/// ```
/// use const_layout::algebra::filter_profile;
/// let l = "(_4,(_2,_3)):(_1,(_0,_4))".parse().unwrap();
/// assert_eq!(filter_profile(&l, &"(_1,_1)".parse().unwrap()).unwrap().to_string(), "(_4,_3):(_1,_4)");
/// ```
pub fn filter_profile(layout: &DynLayout, profile: &DynIntTuple) -> R<DynLayout> {
    by_profile(layout, profile, "filter", filter)
}
