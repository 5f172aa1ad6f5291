//! rocRoller's tile dimensions (`MacroTile`, `WaveTile`, `ThreadTile` in `Dimension.cpp`): what
//! a tile knows (sizes, sub-tile sizes, layout and memory types, LDS padding) and the index and
//! number dimensions it hands out for a graph, with rocRoller's sizes and strides. Sizes that do
//! not fit together are errors (rocRoller divides and truncates).

use super::GraphError;
use super::{Dimension, DimensionKind};
use const_layout_core::error::LayoutError;

/// The most dimensions a tile has.
pub const MAX_TILE_RANK: usize = 4;

/// rocRoller's `LayoutType`: which operand of a matrix multiply a tile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutType {
    /// No operand (`LayoutType::None`).
    None,
    /// Scratch space.
    Scratch,
    /// `MATRIX_A` (M x K).
    MatrixA,
    /// `MATRIX_B` (K x N).
    MatrixB,
    /// `MATRIX_ACCUMULATOR` (M x N).
    MatrixAccumulator,
}

/// rocRoller's `MemoryType`: where a tile lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryType {
    /// Global memory.
    Global,
    /// Local data share.
    Lds,
    /// Accumulation registers.
    Agpr,
    /// Vector registers.
    Vgpr,
    /// Owned by wavefronts (registers).
    Wave,
    /// Owned by wavefronts, staged through LDS.
    WaveLds,
    /// Owned by wavefronts, split.
    WaveSplit,
    /// Unspecified.
    None,
}

/// Up to [`MAX_TILE_RANK`] sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileSizes {
    len: usize,
    v: [isize; MAX_TILE_RANK],
}

impl TileSizes {
    pub(crate) fn new(sizes: &[isize]) -> Result<Self, GraphError> {
        if sizes.len() > MAX_TILE_RANK {
            return Err(GraphError::Layout(LayoutError::ModeOutOfRange {
                op: "tile sizes",
                index: sizes.len(),
                rank: MAX_TILE_RANK,
            }));
        }
        let mut v = [0; MAX_TILE_RANK];
        v[..sizes.len()].copy_from_slice(sizes);
        Ok(TileSizes { len: sizes.len(), v })
    }

    pub(crate) fn as_slice(&self) -> &[isize] {
        &self.v[..self.len]
    }

    fn get(&self, what: &'static str, d: usize) -> Result<isize, GraphError> {
        self.as_slice().get(d).copied().ok_or(GraphError::Layout(LayoutError::ModeOutOfRange {
            op: what,
            index: d,
            rank: self.len,
        }))
    }

    /// The product; `None` on overflow.
    fn product(&self) -> Option<isize> {
        self.as_slice().iter().try_fold(1isize, |p, &s| p.checked_mul(s))
    }

    /// Dimension `sdim`'s index within the tile: size `sizes[sdim]`, row-major stride (the product
    /// of the later sizes), as `tileIndex` gives it.
    pub(crate) fn index(
        &self,
        what: &'static str,
        sdim: usize,
        kind: DimensionKind,
        jamming: isize,
    ) -> Result<Dimension, GraphError> {
        let size = self.get(what, sdim)?;
        let mut stride = 1isize;
        for (d, &s) in self.as_slice().iter().enumerate().skip(sdim + 1) {
            if s <= 0 {
                return Err(GraphError::TileSizes { what, dim: d, size: s, part: 1 });
            }
            stride = stride.checked_mul(s).ok_or(GraphError::Layout(LayoutError::SizeOverflow))?;
        }
        let size = size.checked_mul(jamming).ok_or(GraphError::Layout(LayoutError::SizeOverflow))?;
        Ok(Dimension::new(kind).with_size(size).with_stride(stride))
    }
}

/// `whole[d] / part[d]` for each `d`, where each divides exactly.
fn quotients(what: &'static str, whole: &[isize], part: &[isize]) -> Result<TileSizes, GraphError> {
    let mut q = [0; MAX_TILE_RANK];
    for (d, (&w, &p)) in whole.iter().zip(part).enumerate() {
        if p <= 0 || w <= 0 || w % p != 0 {
            return Err(GraphError::TileSizes { what, dim: d, size: w, part: p });
        }
        q[d] = w / p;
    }
    TileSizes::new(&q[..whole.len().min(part.len())])
}

fn sub_dim(d: usize) -> u8 {
    // Ranks are at most MAX_TILE_RANK, so a dimension number fits.
    d as u8
}

/// rocRoller's `MacroTile`: a workgroup's tile.
///
/// ```
/// use const_layout::rocroller::{DimensionKind, LayoutType, MacroTile, MemoryType};
/// let t = MacroTile::new(&[64, 32], LayoutType::MatrixA, &[32, 32, 8], MemoryType::Lds).unwrap();
/// let i = t.tile_index(0, 1).unwrap();
/// assert_eq!((i.kind(), i.size(), i.stride()), (DimensionKind::MacroTileIndex(0), Some(64), Some(32)));
/// assert_eq!(t.elements(), Some(2048));
/// let p = t.padded(&[4, 0]).unwrap();
/// assert_eq!(p.padding_bytes(), Some(32 * 4)); // rocRoller pairs sizes reversed with the pads
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacroTile {
    sizes: TileSizes,
    layout_type: LayoutType,
    memory_type: MemoryType,
    sub_tile_sizes: TileSizes,
    pad_bytes_of_dim: Option<TileSizes>,
}

impl MacroTile {
    /// A macro tile of `sizes` holding operand `layout_type` in `memory_type`, with
    /// `sub_tile_sizes` (the wave or thread tile: for matrix operands `[waveM, waveN, waveK, ..]`).
    pub fn new(
        sizes: &[isize],
        layout_type: LayoutType,
        sub_tile_sizes: &[isize],
        memory_type: MemoryType,
    ) -> Result<Self, GraphError> {
        Ok(MacroTile {
            sizes: TileSizes::new(sizes)?,
            layout_type,
            memory_type,
            sub_tile_sizes: TileSizes::new(sub_tile_sizes)?,
            pad_bytes_of_dim: None,
        })
    }

    /// With LDS padding bytes per dimension (rocRoller pads only A and B tiles).
    pub fn padded(mut self, pad_bytes_of_dim: &[isize]) -> Result<Self, GraphError> {
        if !matches!(self.layout_type, LayoutType::MatrixA | LayoutType::MatrixB) {
            return Err(GraphError::NotALayout {
                transform: "MacroTile",
                why: "only tiles of A or B can be padded",
            });
        }
        if pad_bytes_of_dim.len() != self.sizes.len {
            return Err(GraphError::Layout(LayoutError::RankMismatch {
                what: "padding",
                got: pad_bytes_of_dim.len(),
                expected: self.sizes.len,
            }));
        }
        self.pad_bytes_of_dim = Some(TileSizes::new(pad_bytes_of_dim)?);
        Ok(self)
    }

    /// The sizes.
    pub fn sizes(&self) -> &[isize] {
        self.sizes.as_slice()
    }
    /// The sub-tile sizes.
    pub fn sub_tile_sizes(&self) -> &[isize] {
        self.sub_tile_sizes.as_slice()
    }
    /// The operand.
    pub fn layout_type(&self) -> LayoutType {
        self.layout_type
    }
    /// Where it lives.
    pub fn memory_type(&self) -> MemoryType {
        self.memory_type
    }

    /// `tileIndex(sdim, jamming)`: the index within the tile along `sdim`, size `sizes[sdim] *
    /// jamming`, row-major stride.
    pub fn tile_index(&self, sdim: usize, jamming: isize) -> Result<Dimension, GraphError> {
        self.sizes.index("MacroTile", sdim, DimensionKind::MacroTileIndex(sub_dim(sdim)), jamming)
    }

    /// `tileNumber(sdim, size)`: the number of the tile along `sdim` (how many tiles the problem
    /// has along it), stride 1.
    pub fn tile_number(&self, sdim: usize, size: isize) -> Result<Dimension, GraphError> {
        self.sizes.get("MacroTile", sdim)?;
        Ok(Dimension::macro_tile_number(sub_dim(sdim), size))
    }

    /// The number of elements; `None` on overflow.
    pub fn elements(&self) -> Option<isize> {
        self.sizes.product()
    }

    /// `paddingBytes()`: rocRoller's `inner_product(sizes.rbegin(), sizes.rend(), pads.begin())`
    /// (the last size with the first pad), 0 without padding; `None` on overflow.
    pub fn padding_bytes(&self) -> Option<isize> {
        padding(&self.sizes, self.pad_bytes_of_dim.as_ref())
    }

    /// The tile as a graph node (kind `MacroTile`).
    pub fn dimension(&self) -> Dimension {
        Dimension::new(DimensionKind::MacroTile)
    }
}

fn padding(sizes: &TileSizes, pads: Option<&TileSizes>) -> Option<isize> {
    let Some(pads) = pads else { return Some(0) };
    sizes
        .as_slice()
        .iter()
        .rev()
        .zip(pads.as_slice())
        .try_fold(0isize, |acc, (&s, &p)| acc.checked_add(s.checked_mul(p)?))
}

/// rocRoller's `WaveTile`: the tile one wavefront owns, rank 2.
///
/// ```
/// use const_layout::rocroller::{LayoutType, MacroTile, MemoryType, WaveTile};
/// // rocRoller's WaveTileBasic test.
/// let mac = MacroTile::new(&[32, 32, 32, 32], LayoutType::MatrixA, &[32, 0, 2, 0], MemoryType::Wave).unwrap();
/// let w = WaveTile::from_macro_tile(&mac).unwrap();
/// let (i, j) = (w.tile_index(0).unwrap(), w.tile_index(1).unwrap());
/// assert_eq!((i.size(), i.stride(), j.size(), j.stride()), (Some(32), Some(2), Some(2), Some(1)));
/// assert_eq!(w.tile_number(1).unwrap().size(), Some(16)); // 32 / 2 wave tiles along K
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveTile {
    sizes: TileSizes,
    wsizes: Option<TileSizes>,
    layout: LayoutType,
    pad_bytes_of_dim: Option<TileSizes>,
}

impl WaveTile {
    /// A wave tile of `sizes` (rocRoller's `WaveTile(sizes, layout)`); without a macro tile it
    /// has no tile numbers.
    pub fn new(sizes: &[isize], layout: LayoutType) -> Result<Self, GraphError> {
        Ok(WaveTile { sizes: TileSizes::new(sizes)?, wsizes: None, layout, pad_bytes_of_dim: None })
    }

    /// rocRoller's `WaveTile(MacroTile)`: from the macro tile's sub-tile sizes `[waveM, waveN,
    /// waveK]`, the wave tile of its operand (A: M x K, B: K x N, accumulator: M x N), how many
    /// wave tiles fit along each dimension, and the padding scaled by that count.
    pub fn from_macro_tile(mac: &MacroTile) -> Result<Self, GraphError> {
        let sub = mac.sub_tile_sizes();
        let wave = |k: usize| {
            sub.get(k).copied().ok_or(GraphError::Layout(LayoutError::ModeOutOfRange {
                op: "WaveTile",
                index: k,
                rank: sub.len(),
            }))
        };
        let (m, n, k) = (wave(0), wave(1), wave(2));
        let sizes = match mac.layout_type {
            LayoutType::MatrixA => [m?, k?],
            LayoutType::MatrixB => [k?, n?],
            LayoutType::MatrixAccumulator => [m?, n?],
            LayoutType::None | LayoutType::Scratch => {
                return Err(GraphError::NotALayout {
                    transform: "WaveTile",
                    why: "only tiles of A, B or the accumulator have wave tiles",
                });
            }
        };
        let mac_sizes = mac.sizes();
        if mac_sizes.len() < 2 {
            return Err(GraphError::Layout(LayoutError::ModeOutOfRange {
                op: "WaveTile",
                index: 1,
                rank: mac_sizes.len(),
            }));
        }
        let wsizes = quotients("WaveTile", &mac_sizes[..2], &sizes)?;
        let pad_bytes_of_dim = match (&mac.pad_bytes_of_dim, mac.layout_type) {
            (Some(p), LayoutType::MatrixA | LayoutType::MatrixB) => {
                let p = p.as_slice();
                let scaled = |d: usize| {
                    wsizes.v[d].checked_mul(p[d]).ok_or(GraphError::Layout(LayoutError::SizeOverflow))
                };
                Some(TileSizes::new(&[scaled(0)?, scaled(1)?])?)
            }
            _ => None,
        };
        Ok(WaveTile {
            sizes: TileSizes::new(&sizes)?,
            wsizes: Some(wsizes),
            layout: mac.layout_type,
            pad_bytes_of_dim,
        })
    }

    /// The sizes (rank 2).
    pub fn sizes(&self) -> &[isize] {
        self.sizes.as_slice()
    }
    /// How many wave tiles fit along each dimension of the macro tile, if known.
    pub fn wave_counts(&self) -> Option<&[isize]> {
        self.wsizes.as_ref().map(TileSizes::as_slice)
    }
    /// The operand.
    pub fn layout(&self) -> LayoutType {
        self.layout
    }

    /// `tileIndex(sdim)`: size `sizes[sdim]`, row-major stride.
    pub fn tile_index(&self, sdim: usize) -> Result<Dimension, GraphError> {
        self.sizes.index("WaveTile", sdim, DimensionKind::WaveTileIndex(sub_dim(sdim)), 1)
    }

    /// `tileNumber(sdim)`: size = wave tiles along `sdim`, stride 1.
    pub fn tile_number(&self, sdim: usize) -> Result<Dimension, GraphError> {
        let w = self.wsizes.ok_or(GraphError::NotALayout {
            transform: "WaveTile",
            why: "a wave tile made without its macro tile has no tile numbers",
        })?;
        let size = w.get("WaveTile", sdim)?;
        Ok(Dimension::new(DimensionKind::WaveTileNumber(sub_dim(sdim))).with_size(size).with_stride(1))
    }

    /// The number of elements; `None` on overflow.
    pub fn elements(&self) -> Option<isize> {
        self.sizes.product()
    }

    /// `paddingBytes()`, as [`MacroTile::padding_bytes`].
    pub fn padding_bytes(&self) -> Option<isize> {
        padding(&self.sizes, self.pad_bytes_of_dim.as_ref())
    }

    /// The tile as a graph node: kind `WaveTile`, size the element count, stride 1.
    pub fn dimension(&self) -> Option<Dimension> {
        Some(Dimension::new(DimensionKind::WaveTile).with_size(self.elements()?).with_stride(1))
    }
}

/// rocRoller's `ThreadTile(MacroTile)`: the macro tile's sub-tile sizes, and how many sub-tiles
/// fit along each dimension.
///
/// ```
/// use const_layout::rocroller::{LayoutType, MacroTile, MemoryType, ThreadTile};
/// let mac = MacroTile::new(&[64, 32], LayoutType::None, &[4, 8], MemoryType::Vgpr).unwrap();
/// let t = ThreadTile::from_macro_tile(&mac).unwrap();
/// assert_eq!((t.sizes(), t.counts()), (&[4, 8][..], &[16, 4][..]));
/// assert_eq!(t.tile_number(0).unwrap().size(), Some(16));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadTile {
    sizes: TileSizes,
    wsizes: TileSizes,
}

impl ThreadTile {
    /// From a macro tile.
    pub fn from_macro_tile(mac: &MacroTile) -> Result<Self, GraphError> {
        let (whole, sub) = (mac.sizes(), mac.sub_tile_sizes());
        if sub.len() < whole.len() {
            return Err(GraphError::Layout(LayoutError::RankMismatch {
                what: "sub-tile sizes",
                got: sub.len(),
                expected: whole.len(),
            }));
        }
        Ok(ThreadTile {
            sizes: TileSizes::new(&sub[..whole.len()])?,
            wsizes: quotients("ThreadTile", whole, sub)?,
        })
    }
    /// The sizes.
    pub fn sizes(&self) -> &[isize] {
        self.sizes.as_slice()
    }
    /// How many thread tiles fit along each dimension.
    pub fn counts(&self) -> &[isize] {
        self.wsizes.as_slice()
    }
    /// `ThreadTileIndex(sdim, sizes[sdim])`, stride 1.
    pub fn tile_index(&self, sdim: usize) -> Result<Dimension, GraphError> {
        let size = self.sizes.get("ThreadTile", sdim)?;
        Ok(Dimension::new(DimensionKind::ThreadTileIndex(sub_dim(sdim))).with_size(size).with_stride(1))
    }
    /// `ThreadTileNumber(sdim, counts[sdim])`, stride 1.
    pub fn tile_number(&self, sdim: usize) -> Result<Dimension, GraphError> {
        let size = self.wsizes.get("ThreadTile", sdim)?;
        Ok(Dimension::new(DimensionKind::ThreadTileNumber(sub_dim(sdim))).with_size(size).with_stride(1))
    }
}
