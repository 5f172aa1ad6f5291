//! `make_identity_layout`: the layout whose value at a coordinate is the coordinate itself, with
//! CuTe's basis strides (`(_4,_8):(_1@0,_1@1)`), and which operations accept such strides.
//!
//! Basis strides only ever get multiplied by integers on the left side of a composition, so
//! `composition(identity, B)`, the divides, `local_tile`, `local_partition`, slicing, `coalesce`,
//! `filter` and the mode operations all work on them (modes merge only within one basis). On the
//! right side of a composition a basis stride `k@p` is a position in mode `p` of the left layout
//! (CuTe's `basis_get`): `composition((_4,_4):(_4,_1), (_4,_4):(_1@1,_1@0))` is the transpose
//! `(_4,_4):(_1,_4)`. The operations that divide strides or read them as offsets (complement, the
//! inverses, the products, the casts) refuse them with [`LayoutError::BasisStride`], as CuTe does
//! not compile them.

use super::R;
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{Basis, DynInt, DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};

/// CuTe's `make_identity_layout(shape)`: `make_layout(shape, make_basis_like(shape))`, the layout
/// that maps every coordinate of `shape` (given as an index or as a coordinate of any profile) to
/// its natural coordinate. An integer shape gets the plain stride `_1`, as in CuTe.
///
/// ```
/// use const_layout::algebra::{make_identity_layout, zipped_divide, Tiler};
/// let id = make_identity_layout(&"(_4,_8)".parse().unwrap()).unwrap();
/// assert_eq!(id.to_string(), "(_4,_8):(_1@0,_1@1)");
/// assert_eq!(id.apply(&"13".parse().unwrap()).unwrap().to_string(), "(1,3)");
/// // Tiles of a 10 x 16 problem: the coordinates past row 9 are there to be predicated away.
/// let id = make_identity_layout(&"(10,16)".parse().unwrap()).unwrap();
/// let tiles = zipped_divide(&id, &"<_4:_1, _8:_1>".parse::<Tiler>().unwrap()).unwrap();
/// assert_eq!(tiles.to_string(), "((_4,_8),(3,2)):((_1@0,_1@1),(_4@0,_8@1))");
/// assert_eq!(tiles.apply(&"((3,7),(2,1))".parse().unwrap()).unwrap().to_string(), "(11,15)");
/// ```
pub const fn make_identity_layout(shape: &DynIntTuple) -> R<DynLayout> {
    if shape.is_int() {
        return DynLayout::new(*shape, DynIntTuple::int(DynInt::new_static(1)));
    }
    DynLayout::new(*shape, tri!(basis_like(shape, None)))
}

/// CuTe's `make_basis_like(shape)` below the basis `outer` (`None` at the root).
const fn basis_like(shape: &DynIntTuple, outer: Option<Basis>) -> R<DynIntTuple> {
    let too_deep = LayoutError::BasisStride { op: "make_identity_layout (deeper than 4 levels)" };
    if shape.is_int() {
        let Some(b) = outer else { return Err(too_deep) };
        return Ok(DynIntTuple::int(DynInt::new_static(1).scaled(b)));
    }
    let mut out = DynIntTuple::builder();
    tri!(out.push_node(Node::Tuple(shape.rank() as u8)));
    let mut i = 0;
    while i < shape.rank() {
        let b = match outer {
            None => Basis::new(&[i]),
            Some(o) => o.child(i),
        };
        let (Some(b), Some(m)) = (b, shape.mode(i)) else { return Err(too_deep) };
        tri!(out.push_tuple(&tri!(basis_like(&m, Some(b)))));
        i += 1;
    }
    Ok(out)
}

/// `Err` naming `op` if any of `layouts` has basis strides.
pub(crate) const fn integer_strides(op: &'static str, layouts: &[&DynLayout]) -> R<()> {
    let mut k = 0;
    while k < layouts.len() {
        if layouts[k].has_basis() {
            return Err(LayoutError::BasisStride { op });
        }
        k += 1;
    }
    Ok(())
}
