//! The Tensor Memory Accelerator's box (CuTe's `make_tma_atom` for a 2-D tile): what the host's
//! `cuTensorMapEncodeTiled` needs so that one `cp.async.bulk.tensor` writes a shared-memory tile
//! exactly as its const-layout layout places the elements.
//!
//! TMA writes a box of `inner x outer` elements (`inner` contiguous in global memory) to shared
//! memory row after row, `inner` elements a row, then applies its swizzle to the byte address,
//! `Swizzle<B,4,3>` on bytes with `B` = 1, 2, 3 for the 32-, 64- and 128-byte modes (CUDA
//! programming guide, "Tensor Memory Access": with 128-byte rows, 16-byte chunk `c` of row `r`
//! goes to `c ^ (r % 8)`). [`make_tma_box`] takes the shared tile's layout, `(rows, k) -> element`,
//! and its swizzle in element units, checks that this is the function TMA computes, on every
//! coordinate, and returns the box and the swizzle mode; any other tile is an error naming the
//! first property that fails. It is a `const fn`, so a kernel derives its box at compile time from
//! the same static layout its `wgmma` descriptors come from.
//!
//! ```
//! use const_layout::atom::tma::{make_tma_box, TmaSwizzle};
//! use const_layout::algebra::computed::{swizzle, tile_to_shape};
//! use const_layout::{layout_type, C};
//! // CuTe's GMMA::Layout_K_SW128_Atom<half_t> tiled to a 128 x 64 stage.
//! let stage = swizzle::<3, 3, 3, _>(tile_to_shape(<layout_type!((8, 64):(64, 1))>::default(), (C::<128>, C::<64>)));
//! let b = make_tma_box(&stage.layout(), stage.swizzle(), 16).unwrap();
//! assert_eq!((b.inner, b.outer, b.swizzle), (64, 128, TmaSwizzle::B128));
//! assert_eq!((b.bytes(), b.alignment()), (16384, 1024));
//! ```

use crate::algebra::computed::StaticLayout;
use crate::algebra::computed::StaticSwizzled;
use crate::dyn_layout::DynLayout;
use crate::error::LayoutError;
use crate::swizzle::Swizzle;

// The box of a swizzled static layout is here, not in `algebra::computed`: `atom` builds on
// `layout`, and `layout` names nothing of `atom`.
impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> StaticSwizzled<B, M, S, A> {
    /// The Tensor Memory Accelerator's box and swizzle mode for loading this tile of elements of
    /// `BITS` bits ([`make_tma_box`]), computed at compile time; a
    /// compile error (full build) naming the failed condition if TMA cannot write the tile so.
    ///
    /// ```
    /// use const_layout::atom::tma::TmaSwizzle;
    /// use const_layout::algebra::computed::{swizzle, tile_to_shape};
    /// use const_layout::{layout_type, C};
    /// let stage = swizzle::<3, 3, 3, _>(tile_to_shape(<layout_type!((8, 64):(64, 1))>::default(), (C::<128>, C::<64>)));
    /// let b = stage.tma_box::<16>();
    /// assert_eq!((b.inner, b.outer, b.swizzle), (64, 128, TmaSwizzle::B128));
    /// ```
    #[inline(always)]
    pub fn tma_box<const BITS: usize>(&self) -> TmaBox {
        const { crate::algebra::computed::unwrap("make_tma_box", make_tma_box(&A::LAYOUT, Self::SWIZZLE, BITS)) }
    }
}

/// TMA's swizzle modes, numbered as the driver's `CUtensorMapSwizzle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaSwizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_NONE`.
    None = 0,
    /// `CU_TENSOR_MAP_SWIZZLE_32B`: `Swizzle<1,4,3>` on bytes.
    B32 = 1,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`: `Swizzle<2,4,3>` on bytes.
    B64 = 2,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`: `Swizzle<3,4,3>` on bytes.
    B128 = 3,
}

impl TmaSwizzle {
    /// The bytes a swizzled row spans (16 for none: TMA's granule).
    ///
    /// ```
    /// use const_layout::atom::tma::TmaSwizzle;
    /// assert_eq!(TmaSwizzle::B128.span(), 128);
    /// ```
    pub const fn span(self) -> u32 {
        16 << self as u32
    }
}

/// A TMA box for a 2-D tile: `inner` elements a row (contiguous in global memory), `outer` rows,
/// written with `swizzle` (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmaBox {
    /// Elements a row: `boxDim[0]`.
    pub inner: u32,
    /// Rows: `boxDim[1]`.
    pub outer: u32,
    /// The element width in bits.
    pub element_bits: u32,
    /// The swizzle mode.
    pub swizzle: TmaSwizzle,
}

impl TmaBox {
    /// The bytes one load writes: what its mbarrier expects (`expect_tx`).
    ///
    /// ```
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// let b = TmaBox { inner: 64, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B128 };
    /// assert_eq!(b.bytes(), 8192);
    /// ```
    pub const fn bytes(&self) -> u32 {
        self.inner * self.outer * self.element_bits / 8
    }

    /// The alignment the destination needs so that TMA's swizzle, taken from the address's bits,
    /// is the layout's: the swizzle's repeat of 8 rows (1024 bytes at 128 bytes), at least 128.
    ///
    /// ```
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// let b = TmaBox { inner: 32, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B64 };
    /// assert_eq!(b.alignment(), 512);
    /// ```
    pub const fn alignment(&self) -> u32 {
        match self.swizzle {
            TmaSwizzle::None => 128,
            s => 8 * s.span(),
        }
    }
}

const fn bad(what: &'static str, value: isize) -> LayoutError {
    LayoutError::NotCanonical { op: "make_tma_box", what, value }
}

/// The box and swizzle mode with which TMA writes a shared tile as `layout` (`(rows, k) ->
/// element`, rank 2, static, `k` contiguous in global memory) under `swizzle` (in element units)
/// places it, for elements of `element_bits` bits. See the module for the conditions; every
/// coordinate is checked.
///
/// ```
/// use const_layout::atom::tma::make_tma_box;
/// use const_layout::swizzle::Swizzle;
/// // A plain 16 x 8 tile of f32, rows of 8: TMA's box (8, 16), no swizzle.
/// let tile: const_layout::dyn_layout::DynLayout = "(_16,_8):(_8,_1)".parse().unwrap();
/// let b = make_tma_box(&tile, Swizzle::new(0, 4, 3).unwrap(), 32).unwrap();
/// assert_eq!((b.inner, b.outer), (8, 16));
/// // Column-major is not what TMA writes.
/// let t: const_layout::dyn_layout::DynLayout = "(_16,_8):(_1,_16)".parse().unwrap();
/// assert!(make_tma_box(&t, Swizzle::new(0, 4, 3).unwrap(), 32).is_err());
/// ```
pub const fn make_tma_box(
    layout: &DynLayout,
    swizzle: Swizzle,
    element_bits: usize,
) -> Result<TmaBox, LayoutError> {
    if !matches!(element_bits, 8 | 16 | 32 | 64) {
        return Err(bad("the element width in bits (8, 16, 32 or 64)", element_bits as isize));
    }
    if layout.rank() != 2 {
        return Err(bad("the rank (2: rows, then the contiguous mode)", layout.rank() as isize));
    }
    if !layout.shape().is_static() || !layout.stride().is_static() {
        return Err(bad("whether the layout is static (1)", 0));
    }
    let (Some(rows), Some(cols)) = (layout.mode(0), layout.mode(1)) else {
        return Err(bad("the rank (2: rows, then the contiguous mode)", layout.rank() as isize));
    };
    let (r, k) = (rows.size().value, cols.size().value);
    if r < 1 || r > 256 {
        return Err(bad("the rows (a box extent, 1 to 256)", r));
    }
    if k < 1 || k > 256 {
        return Err(bad("the elements a row (a box extent, 1 to 256)", k));
    }
    let row_bytes = k * element_bits as isize / 8;
    let mode = if swizzle.bits() == 0 {
        if row_bytes % 16 != 0 {
            return Err(bad("the bytes a row (a multiple of 16)", row_bytes));
        }
        TmaSwizzle::None
    } else {
        let per_byte = (element_bits / 8).trailing_zeros();
        if swizzle.shift() != 3 || swizzle.base() + per_byte != 4 {
            return Err(bad(
                "the swizzle's base on bytes (4, with shift 3: Swizzle<B,4,3>)",
                (swizzle.base() + per_byte) as isize,
            ));
        }
        let m = match swizzle.bits() {
            1 => TmaSwizzle::B32,
            2 => TmaSwizzle::B64,
            3 => TmaSwizzle::B128,
            b => return Err(bad("the swizzle's bits (1 to 3)", b as isize)),
        };
        if row_bytes != m.span() as isize {
            return Err(bad("the bytes a row (the swizzle's span)", row_bytes));
        }
        m
    };
    // Row-major and dense, which is what TMA writes before its swizzle.
    let mut i = 0;
    while i < r * k {
        let (row, col) = (i % r, i / r);
        if layout.offset(i) != row * k + col {
            return Err(bad("the first index whose offset is not row-major and dense", i));
        }
        i += 1;
    }
    Ok(TmaBox { inner: k as u32, outer: r as u32, element_bits: element_bits as u32, swizzle: mode })
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use crate::atom::gmma::{LayoutType, Major, layout_atom};
    use std::string::ToString;

    /// Every K-major gmma atom, tiled to boxes of several row counts, is a TMA box whose swizzle
    /// places each element where the composed layout does, by TMA's own rule on bytes.
    #[test]
    fn gmma_k_major_tiles_are_tma_boxes_element_for_element() {
        for bits in [8usize, 16, 32] {
            for ty in [LayoutType::B32, LayoutType::B64, LayoutType::B128] {
                let atom = layout_atom(Major::K, ty, bits).unwrap();
                for rows in [8isize, 64, 128, 256] {
                    let shape = std::format!("(_{rows},_{})", (16 << ty.swizzle_bits()) * 8 / bits as isize);
                    let tile =
                        crate::algebra::tile_to_shape(atom.inner(), &shape.parse().unwrap(), None).unwrap();
                    let Outer::Swizzle(sw) = *atom.outer() else { unreachable!() };
                    let b = make_tma_box(&tile, sw, bits).unwrap();
                    assert_eq!(b.swizzle as u32, ty.swizzle_bits());
                    assert_eq!(
                        (b.outer as isize, b.inner as usize),
                        (rows, (16 << ty.swizzle_bits()) * 8 / bits)
                    );
                    let eb = bits / 8;
                    for row in 0..b.outer as usize {
                        for col in 0..b.inner as usize {
                            // TMA: the byte address's bits 4.. (B of them) xor bits 7.. (the guide's
                            // figures: 16-byte chunk c of a 128-byte row r goes to c ^ (r % 8)).
                            let byte = (row * b.inner as usize + col) * eb;
                            let mask = ((1usize << ty.swizzle_bits()) - 1) << 4;
                            let tma = byte ^ ((byte >> 3) & mask);
                            let i = (row + rows as usize * col) as isize;
                            assert_eq!(
                                sw.apply(tile.offset(i)) as usize * eb,
                                tma,
                                "{bits} bits {ty:?} ({row},{col})"
                            );
                        }
                    }
                }
            }
        }
    }

    use crate::swizzle::Outer;

    #[test]
    fn tiles_tma_cannot_write_are_errors_naming_why() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        let e =
            |l: &str, s: Swizzle, b: usize| make_tma_box(&l.parse().unwrap(), s, b).unwrap_err().to_string();
        assert!(e("(_8,_64):(_1,_8)", sw, 16).contains("row-major and dense"));
        assert!(e("(_8,_32):(_32,_1)", sw, 16).contains("the bytes a row (the swizzle's span) is 64"));
        assert!(e("(_8,_64):(_64,_1)", Swizzle::new(3, 4, 3).unwrap(), 16).contains("is 5"));
        assert!(e("(_8,_64):(_64,_1)", sw, 12).contains("element width"));
        assert!(e("(_512,_64):(_64,_1)", sw, 16).contains("the rows"));
        assert!(e("(_8,_4):(_4,_1)", Swizzle::new(0, 4, 3).unwrap(), 16).contains("a multiple of 16"));
        // A hierarchical mode is fine when the function is TMA's.
        let nested = make_tma_box(&"(_8,(_8,_8)):(_64,(_1,_8))".parse().unwrap(), sw, 16).unwrap();
        assert_eq!((nested.inner, nested.outer), (64, 8));
        assert!(e("(_8,(_8,_8)):(_64,(_8,_1))", sw, 16).contains("not row-major and dense is 8"));
    }
}
