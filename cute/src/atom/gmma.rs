//! The sm90 warp-group layouts (CuTe's `SM90::GMMA` namespace, `mma_traits_sm90_gmma.hpp`).
//!
//! ```
//! use const_layout::atom::gmma::{ABLayout, CLayout_64xN};
//! assert_eq!(ABLayout::<64, 16>::default().to_string(), "(_128,(_64,_16)):(_0,(_1,_64))");
//! assert_eq!(CLayout_64xN::<64>::default().to_string(), "((_4,_8,_4),(_2,_2,_8)):((_128,_1,_16),(_64,_8,_512))");
//! ```

use crate::algebra::computed::{Computed, StaticExpr, unwrap};
use crate::algebra::{TileMode, Tiler};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::eval::Op;
use crate::layout_type;
use crate::swizzle::{ComposedLayout, Outer, Swizzle};

/// CuTe's `GMMA::ALayout_64x16`: `A` from registers, 16-bit elements: each of the 128 threads
/// holds 8 values of the 64x16 tile.
///
/// ```
/// use const_layout::atom::gmma::ALayout_64x16;
/// assert_eq!(ALayout_64x16::default().to_string(), "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))");
/// ```
#[allow(non_camel_case_types)]
pub type ALayout_64x16 = layout_type!(((4, 8, 4), (2, 2, 2)):((128, 1, 16), (64, 8, 512)));

/// CuTe's `GMMA::ABLayout<M, K>`: an operand in shared memory, read by the whole warp group
/// through a descriptor: every thread sees the whole `M x K` tile (`_128:_0`).
pub type ABLayout<const M: usize, const K: usize> = Computed<ABLayoutOf<M, K>>;

/// The expression of [`ABLayout`]: `(_128,(M,K)):(_0,(_1,M))`.
pub struct ABLayoutOf<const M: usize, const K: usize>;

impl<const M: usize, const K: usize> StaticExpr for ABLayoutOf<M, K> {
    const OP: Op = Op::MakeLayout;
    const LAYOUT: DynLayout = unwrap("ABLayout", ab_layout(M as isize, K as isize));
}

/// CuTe's `GMMA::CLayout_64xN<N>`: the accumulators of a 64xN `wgmma`, `N` a multiple of 8 from
/// 8 to 256 (another `N` is a compile error naming it).
#[allow(non_camel_case_types)]
pub type CLayout_64xN<const N: usize> = Computed<CLayout64xNOf<N>>;

/// The expression of [`CLayout_64xN`]: `((_4,_8,_4),(_2,_2,N/8)):((_128,_1,_16),(_64,_8,_512))`.
pub struct CLayout64xNOf<const N: usize>;

impl<const N: usize> StaticExpr for CLayout64xNOf<N> {
    const OP: Op = Op::MakeLayout;
    const LAYOUT: DynLayout = {
        if N == 0 || !N.is_multiple_of(8) || N > 256 {
            let m = crate::error::Message::new()
                .text("wgmma: N must be a multiple of 8 from 8 to 256, not ")
                .num(N as isize);
            panic!("{}", m.as_str());
        }
        unwrap("CLayout_64xN", c_layout_64xn(N as isize))
    };
}

use super::static_int as s;

const fn tuple(modes: &[DynIntTuple]) -> Result<DynIntTuple, LayoutError> {
    DynIntTuple::tuple(modes)
}

const fn ab_layout(m: isize, k: isize) -> Result<DynLayout, LayoutError> {
    let shape = crate::error::tri!(tuple(&[s(128), crate::error::tri!(tuple(&[s(m), s(k)]))]));
    let stride = crate::error::tri!(tuple(&[s(0), crate::error::tri!(tuple(&[s(1), s(m)]))]));
    DynLayout::new(shape, stride)
}

const fn c_layout_64xn(n: isize) -> Result<DynLayout, LayoutError> {
    let thr = crate::error::tri!(tuple(&[s(4), s(8), s(4)]));
    let thr_d = crate::error::tri!(tuple(&[s(128), s(1), s(16)]));
    let val = crate::error::tri!(tuple(&[s(2), s(2), s(n / 8)]));
    let val_d = crate::error::tri!(tuple(&[s(64), s(8), s(512)]));
    DynLayout::new(crate::error::tri!(tuple(&[thr, val])), crate::error::tri!(tuple(&[thr_d, val_d])))
}

/// Which mode of a `wgmma` operand's shared-memory tile is contiguous (CuTe's `GMMA::Major`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// `k` contiguous.
    K,
    /// `m` (for `A`) or `n` (for `B`) contiguous.
    MN,
}

/// CuTe's `GMMA::LayoutType`: how a `wgmma` operand is swizzled in shared memory, with the
/// descriptor's encoding as the discriminant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum LayoutType {
    /// No swizzle: 16-byte units in 8x8 "core matrices" (`Swizzle<0,4,3>`).
    Interleave = 0,
    /// 128-byte swizzle (`Swizzle<3,4,3>` on byte addresses).
    B128 = 1,
    /// 64-byte swizzle (`Swizzle<2,4,3>`).
    B64 = 2,
    /// 32-byte swizzle (`Swizzle<1,4,3>`).
    B32 = 3,
}

impl LayoutType {
    /// `B` of the swizzle `Swizzle<B,4,3>` on byte addresses.
    ///
    /// ```
    /// use const_layout::atom::gmma::LayoutType;
    /// assert_eq!(LayoutType::B128.swizzle_bits(), 3);
    /// assert_eq!(LayoutType::from_swizzle_bits(1), Some(LayoutType::B32));
    /// ```
    pub const fn swizzle_bits(self) -> u32 {
        match self {
            LayoutType::Interleave => 0,
            LayoutType::B32 => 1,
            LayoutType::B64 => 2,
            LayoutType::B128 => 3,
        }
    }

    /// The layout type of `Swizzle<bits,4,3>`, if it is one.
    pub const fn from_swizzle_bits(bits: u32) -> Option<LayoutType> {
        match bits {
            0 => Some(LayoutType::Interleave),
            1 => Some(LayoutType::B32),
            2 => Some(LayoutType::B64),
            3 => Some(LayoutType::B128),
            _ => None,
        }
    }
}

/// `log2(128 / element_bits)`: how many elements a 16-byte unit holds, as a power of two, for
/// element widths of 1 to 128 bits that are powers of two.
fn per_unit_log2(element_bits: usize) -> Result<u32, LayoutError> {
    if element_bits == 0 || !element_bits.is_power_of_two() || element_bits > 128 {
        return Err(LayoutError::NotCanonical {
            op: "gmma",
            what: "an element width in bits (a power of two up to 128)",
            value: element_bits as isize,
        });
    }
    Ok(7 - element_bits.trailing_zeros())
}

/// CuTe's `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>` for elements of `element_bits`
/// bits: the smallest shared-memory tile a `wgmma` descriptor describes, with its swizzle in
/// element units (`Swizzle<B,4,3>` on bytes is `Swizzle<B, 4 - log2(bytes per element), 3>`).
///
/// ```
/// use const_layout::atom::gmma::{layout_atom, LayoutType, Major};
/// let a = layout_atom(Major::K, LayoutType::B128, 16).unwrap();
/// assert_eq!(a.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
/// let b = layout_atom(Major::MN, LayoutType::B64, 32).unwrap();
/// assert_eq!(b.to_string(), "Sw<2,2,3> o _0 o (_16,_8):(_1,_16)");
/// ```
pub fn layout_atom(major: Major, ty: LayoutType, element_bits: usize) -> Result<ComposedLayout, LayoutError> {
    let per_unit = per_unit_log2(element_bits)?;
    let width = (128isize << ty.swizzle_bits()) / element_bits as isize;
    let s = |v: isize| DynIntTuple::int(DynInt::new_static(v));
    let (shape, stride) = match major {
        Major::K => ([s(8), s(width)], [s(width), s(1)]),
        Major::MN => ([s(width), s(8)], [s(1), s(width)]),
    };
    let inner = DynLayout::new(DynIntTuple::tuple(&shape)?, DynIntTuple::tuple(&stride)?)?;
    Ok(ComposedLayout::new(Swizzle::new(ty.swizzle_bits(), per_unit, 3)?, inner))
}

/// A `wgmma` shared-memory matrix descriptor (CuTe's `GMMA::GmmaDescriptor`): 64 bits with the
/// start address, the leading and stride byte offsets (all in 16-byte units, 14 bits each), the
/// base offset and the layout type.
///
/// ```
/// use const_layout::atom::gmma::{GmmaDescriptor, LayoutType};
/// let d = GmmaDescriptor(0x4000_0040_0001_0000);
/// assert_eq!((d.start_address(), d.leading_byte_offset(), d.stride_byte_offset()), (0, 1, 64));
/// assert_eq!(d.layout_type(), LayoutType::B128);
/// // The next k block of a 128-byte swizzled K-major tile starts 32 bytes on.
/// assert_eq!(d.advanced(2).start_address(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GmmaDescriptor(pub u64);

impl GmmaDescriptor {
    /// The start address in 16-byte units (bits 0-13).
    pub const fn start_address(self) -> u16 {
        (self.0 & 0x3fff) as u16
    }
    /// The leading dimension byte offset in 16-byte units (bits 16-29).
    pub const fn leading_byte_offset(self) -> u16 {
        (self.0 >> 16 & 0x3fff) as u16
    }
    /// The stride dimension byte offset in 16-byte units (bits 32-45).
    pub const fn stride_byte_offset(self) -> u16 {
        (self.0 >> 32 & 0x3fff) as u16
    }
    /// The base offset (bits 49-51), 0 for tiles aligned to their swizzle's repeat.
    pub const fn base_offset(self) -> u8 {
        (self.0 >> 49 & 0x7) as u8
    }
    /// The layout type (bits 62-63).
    pub const fn layout_type(self) -> LayoutType {
        match self.0 >> 62 {
            0 => LayoutType::Interleave,
            1 => LayoutType::B128,
            2 => LayoutType::B64,
            _ => LayoutType::B32,
        }
    }
    /// The descriptor `units` 16-byte units further on (CuTe's `DescriptorIterator` `+`: the low
    /// 32 bits, the start address, advanced).
    pub const fn advanced(self, units: u32) -> GmmaDescriptor {
        GmmaDescriptor(self.0 & !0xffff_ffff | (self.0 as u32).wrapping_add(units) as u64)
    }
}

/// Stride `(i, j)` of a layout whose modes are pairs of integers.
fn stride2(l: &DynLayout, i: usize, j: usize) -> Option<isize> {
    let m = l.mode(i)?.mode(j)?;
    if m.rank() != 1 || !m.shape().is_int() {
        return None;
    }
    Some(m.stride().as_int()?.value)
}

/// CuTe's `make_gmma_desc<Major>(tensor)`: the descriptor of a `wgmma` operand block in shared
/// memory, given as its swizzled layout in elements of `element_bits` bits (a block of a tile made
/// with [`layout_atom`], such as `64 x 16` halves of a K-major tile), and the shared-memory
/// address of the tile's element 0 (the block's own offset is the composed layout's).
///
/// The block must be one of the canonical forms CuTe's comment lists (in 16-byte units, K-major:
/// `((8,m),2):((W,SBO),LBO)` with `LBO` 1 when swizzled; MN-major: `((W,m),(8,k))` with the
/// strides it names), under `Swizzle<B,4,3>` on bytes; otherwise the error names the first
/// condition that fails, with its number (CuTe's static assertions).
///
/// ```
/// use const_layout::atom::gmma::{layout_atom, make_gmma_desc, LayoutType, Major};
/// use const_layout::swizzle::ComposedLayout;
/// // 128 x 64 halves, K-major, 128-byte swizzle; the 64 x 16 block at (1, 2).
/// let atom = layout_atom(Major::K, LayoutType::B128, 16).unwrap();
/// let tile = const_layout::algebra::tile_to_shape(atom.inner(), &"(_128,_64)".parse().unwrap(), None).unwrap();
/// assert_eq!(tile.to_string(), "((_8,_16),(_64,_1)):((_64,_512),(_1,_0))");
/// let block = ComposedLayout::with_offset(*atom.outer(), const_layout::dyn_layout::DynInt::new_static(4128), "((_8,_8),_16):((_64,_512),_1)".parse().unwrap());
/// let d = make_gmma_desc(Major::K, &block, 16, 0x400).unwrap();
/// assert_eq!((d.leading_byte_offset(), d.stride_byte_offset(), d.layout_type()), (1, 64, LayoutType::B128));
/// assert_eq!(d.start_address() as u32, (0x400 + 4128 * 2) >> 4);
/// ```
pub fn make_gmma_desc(
    major: Major,
    block: &ComposedLayout,
    element_bits: usize,
    start_address: u32,
) -> Result<GmmaDescriptor, LayoutError> {
    let op = match major {
        Major::K => "make_gmma_desc (K-major)",
        Major::MN => "make_gmma_desc (MN-major)",
    };
    let bad = |what: &'static str, value: isize| LayoutError::NotCanonical { op, what, value };
    let per_unit = per_unit_log2(element_bits)?;
    if block.rank() != 2 {
        return Err(bad("the rank (2)", block.rank() as isize));
    }
    let Outer::Swizzle(sw) = *block.outer() else {
        return Err(bad("the swizzle (a Swizzle<B,4,3> on bytes), a layout of rank", 0));
    };
    if sw.base() != per_unit || sw.shift() != 3 {
        return Err(bad(
            "the swizzle's base in 16-byte units (0, with shift 3)",
            sw.base() as isize - per_unit as isize,
        ));
    }
    let Some(ty) = LayoutType::from_swizzle_bits(sw.bits()) else {
        return Err(bad("the swizzle's bits (0 to 3)", sw.bits() as isize));
    };
    let w = 1isize << ty.swizzle_bits();
    let n = 1isize << per_unit;
    let u = crate::algebra::upcast(block.inner(), n)?;
    let size = |i: usize| u.mode(i).map(|m| m.size().value).unwrap_or(0);
    let unit = |v: isize| DynIntTuple::int(DynInt::new_static(v));
    let (sbo, lbo) = match major {
        Major::K => {
            if size(0) % 8 != 0 {
                return Err(bad("the MN extent in 16-byte units (a multiple of 8)", size(0)));
            }
            if size(1) != 2 && size(1) != 4 {
                return Err(bad("the K extent in 16-byte units (2, or 4 for sparse)", size(1)));
            }
            let tiler = Tiler::by_mode(&[TileMode::Shape(unit(8)), TileMode::Shape(unit(2))])?;
            let c = crate::algebra::logical_divide(&u, &tiler)?;
            let (Some(s00), Some(s01), Some(s10)) = (stride2(&c, 0, 0), stride2(&c, 0, 1), stride2(&c, 1, 0))
            else {
                return Err(bad(
                    "the profile ((8,m),(2,1)) of the block in 16-byte units, a deeper mode at rank",
                    c.rank() as isize,
                ));
            };
            if s00 != w {
                return Err(bad("the stride of the 8 rows in 16-byte units (the swizzle's width W)", s00));
            }
            if ty != LayoutType::Interleave && s10 != 1 {
                return Err(bad("the stride between the two 16-byte halves of k (1 when swizzled)", s10));
            }
            (s01, s10)
        }
        Major::MN => {
            let k = size(1);
            if k != 256 / element_bits as isize
                && k != 128 / element_bits as isize
                && k != 512 / element_bits as isize
            {
                return Err(bad("the K extent in elements (256 bits' worth; 128 or 512 for sparse)", k));
            }
            let tiler = Tiler::by_mode(&[TileMode::Shape(unit(w)), TileMode::Shape(unit(8))])?;
            let c = crate::algebra::logical_divide(&u, &tiler)?;
            let (Some(s00), Some(s01), Some(s10), Some(s11)) =
                (stride2(&c, 0, 0), stride2(&c, 0, 1), stride2(&c, 1, 0), stride2(&c, 1, 1))
            else {
                return Err(bad(
                    "the profile ((W,m),(8,k)) of the block in 16-byte units, a deeper mode at rank",
                    c.rank() as isize,
                ));
            };
            if ty != LayoutType::Interleave && s00 != 1 {
                return Err(bad("the stride of the 16-byte units along MN (1 when swizzled)", s00));
            }
            if s10 != w {
                return Err(bad("the stride of the 8 k rows in 16-byte units (the swizzle's width W)", s10));
            }
            if ty == LayoutType::Interleave { (s01, s11) } else { (s11, s01) }
        }
    };
    for (what, v) in [
        ("the leading byte offset in 16-byte units (below 2^14)", lbo),
        ("the stride byte offset in 16-byte units (below 2^14)", sbo),
    ] {
        if !(0..1 << 14).contains(&v) {
            return Err(bad(what, v));
        }
    }
    let start = start_address as u64 + (block.offset_value().value as u64) * (element_bits as u64 / 8).max(1);
    Ok(GmmaDescriptor((start >> 4 & 0x3fff) | (lbo as u64) << 16 | (sbo as u64) << 32 | (ty as u64) << 62))
}
