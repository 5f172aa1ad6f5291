//! The postconditions `complement(A, M)` promises (core/src/algebra/complement.rs), checked by brute
//! force; shared by `algebra_vectors.rs` and `algebra_properties.rs`.
#![allow(dead_code)] // each test uses part of it

use const_layout::algebra;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};

/// Which postcondition `r`, as `complement(a, m)` for a cotarget of size `m`, breaks, or `None`:
/// P1 `r(i-1) < r(i)`; P2 `r(i)` is no offset of `a` for `i >= 1`, and `(a, r)` is injective if
/// `a` is; P3 `cosize((a, r)) >= m`. The strides of `a` must be non-negative (the only layouts
/// that have a complement).
pub fn broken(a: &DynLayout, r: &DynLayout, m: isize) -> Option<String> {
    let ao: Vec<isize> = a.offsets().collect();
    let ro: Vec<isize> = r.offsets().collect();
    if let Some(i) = (1..ro.len()).find(|&i| ro[i - 1] >= ro[i]) {
        return Some(format!("P1: R({}) = {} >= R({i}) = {}", i - 1, ro[i - 1], ro[i]));
    }
    // Every offset of (a, r) is in 0..cosize((a, r)), a cosize being 1 + sum((s-1)*|d|).
    let cosize = a.cosize().value + r.cosize().value - 1;
    let mut image = vec![false; a.cosize().value as usize];
    let mut injective = true;
    for &x in &ao {
        injective &= !std::mem::replace(&mut image[x as usize], true);
    }
    if let Some(i) = (1..ro.len()).find(|&i| ro[i] < image.len() as isize && image[ro[i] as usize]) {
        return Some(format!("P2: R({i}) = {} is an offset of A", ro[i]));
    }
    if injective {
        let mut seen = vec![false; cosize as usize];
        for &y in &ro {
            for &x in &ao {
                if std::mem::replace(&mut seen[(x + y) as usize], true) {
                    return Some(format!("P2: (A, R) reaches {} twice, though A is injective", x + y));
                }
            }
        }
    }
    if cosize < m {
        return Some(format!("P3: cosize((A, R)) = {cosize} < {m}"));
    }
    None
}

/// The complement a product of `block` by a tiler of cosize `reach` is built on (core/src/algebra/
/// divide.rs, `product_layouts`): `complement(block, M)` for the least `M >= size(block) *
/// reach` whose complement holds `reach` elements (CuTe's cotarget, grown where the block has
/// holes), static where CuTe's cotarget is.
pub fn product_complement(block: &DynLayout, reach: isize, is_static: bool) -> DynLayout {
    let at = |m: isize| {
        let cotarget = DynIntTuple::int(DynInt::new(m, is_static));
        algebra::complement_to(block, &cotarget).expect("a block of non-negative strides")
    };
    let m = block.size().value * reach;
    let first = at(m);
    if first.size().value >= reach {
        return first;
    }
    // Sizes grow with the cotarget; twice the block's cosize per element is enough.
    let (mut lo, mut hi) = (m, 2 * block.cosize().value * reach);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if at(mid).size().value >= reach {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    at(hi)
}
