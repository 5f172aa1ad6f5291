//! Padding, the other classic fix: rows of the tile stretched by a few elements, so that the
//! rows of one phase start on different banks. It costs memory and is not linear over F2, so it
//! is scored by simulation ([`crate::f2::bank::simulate`]) and set beside the best swizzle.

use super::{Access, beats, evaluate_linear};
use crate::error::LayoutError;
use crate::f2::bank::{BankModel, Conflicts, Offsets, simulate};
use crate::f2::linear::LinearLayout;

/// A tile padded: offset `o` of the plain tile moves to `o + pad * (o / row)`.
#[derive(Clone, Copy, Debug)]
pub struct Padded<'a> {
    /// The plain tile: element index to offset.
    pub tile: &'a LinearLayout,
    /// Elements of a row.
    pub row: u64,
    /// Elements added after each row.
    pub pad: u64,
}

impl Offsets for Padded<'_> {
    fn size_of(&self) -> u64 {
        self.tile.size_of()
    }
    fn offset_at(&self, i: u64) -> isize {
        let o = self.tile.apply(i as u32) as u64;
        (o + self.pad * (o / self.row)) as isize
    }
}

/// A padding and what it gives both accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Padding {
    /// Elements of a row.
    pub row: u32,
    /// Elements added after each row.
    pub pad: u32,
    /// The write's vector width, in elements.
    pub write_vec: u32,
    /// The read's.
    pub read_vec: u32,
    /// The write's wavefronts over the whole tile.
    pub write: Conflicts,
    /// The read's.
    pub read: Conflicts,
    /// The bytes the padding adds to the tile.
    pub extra_bytes: u64,
}

impl Padding {
    /// Both accesses' extra wavefronts.
    pub const fn conflicts(&self) -> u32 {
        self.write.extra() + self.read.extra()
    }

    /// The score [`super::best_swizzle`] ranks by: (write vector, read vector, extra wavefronts).
    pub const fn score(&self) -> (u32, u32, u32) {
        (self.write_vec, self.read_vec, self.conflicts())
    }
}

/// The best padding of `tile`'s rows for a `write` and a `read` (see [`super::best_swizzle`]):
/// every row length `2^k` elements from one 16-byte chunk to half the tile, padded by 4, 8, 16
/// or 32 bytes (at least an element), each scored by simulating both accesses; the best is the
/// one that [`super::best_swizzle`]'s order ranks first, then the one that adds the fewest bytes.
/// Each access keeps the widest vector the plain tile allows that the padding keeps aligned.
/// `None` if no padding can be posed (a tile past [`crate::f2::bank::MAX_SIMULATED`] elements).
///
/// ```
/// use const_layout::bank::{AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::synthesis::{best_padding, Access};
/// // A 32 x 32 f32 tile, row-major: writes along rows, reads down columns (4 bytes a lane).
/// let tile = LinearLayout::new(&[32, 64, 128, 256, 512, 1, 2, 4, 8, 16], 10).unwrap(); // (r, c) -> 32 r + c
/// let write = Access { kind: AccessKind::Store, tv: LinearLayout::new(&[32, 64, 128, 256, 512, 1, 2, 4, 8, 16], 10).unwrap(), thread_bits: 5, vec: 1 };
/// let read = Access { kind: AccessKind::Load, tv: LinearLayout::identity(10), thread_bits: 5, vec: 1 };
/// let p = best_padding(&NVIDIA, &tile, 4, &write, &read).unwrap().unwrap();
/// assert_eq!((p.row, p.pad, p.conflicts(), p.extra_bytes), (32, 1, 0, 128)); // (32,32):(33,1)
/// ```
pub fn best_padding(
    model: &BankModel,
    tile: &LinearLayout,
    element_bytes: u32,
    write: &Access,
    read: &Access,
) -> Result<Option<Padding>, LayoutError> {
    let n = tile.size_of();
    if n > crate::f2::bank::MAX_SIMULATED || !element_bytes.is_power_of_two() || element_bytes > 16 {
        return Ok(None);
    }
    // The plain tile's vectors: padding can only keep or narrow them.
    let (wv, _) = evaluate_linear(model, tile, element_bytes, write)?;
    let (rv, _) = evaluate_linear(model, tile, element_bytes, read)?;
    let eb = element_bytes as u64;
    let mut best: Option<Padding> = None;
    let mut row = (16 / eb).max(1);
    while row < n {
        for pad_bytes in [4u64, 8, 16, 32] {
            let pad = (pad_bytes / eb).max(1);
            let padded = Padded { tile, row, pad };
            // The widest vector the padding keeps aligned (a vector never straddles a row).
            let fit = |v: u32| {
                let mut v = v as u64;
                while v > 1 && (!pad.is_multiple_of(v) || !row.is_multiple_of(v)) {
                    v /= 2;
                }
                v as u32
            };
            let (w_vec, r_vec) = (fit(wv), fit(rv));
            let score = |a: &Access, v: u32| {
                let kind = a.kind.for_bytes(v * element_bytes);
                simulate(model, kind, &a.tv, 1u64 << a.thread_bits, &padded, element_bytes, v)
            };
            let (Ok(w), Ok(r)) = (score(write, w_vec), score(read, r_vec)) else { continue };
            let p = Padding {
                row: row as u32,
                pad: pad as u32,
                write_vec: w_vec,
                read_vec: r_vec,
                write: w,
                read: r,
                extra_bytes: pad * (n / row) * eb,
            };
            let better = match &best {
                None => true,
                Some(b) => {
                    beats(p.score(), b.score())
                        || (!beats(b.score(), p.score()) && p.extra_bytes < b.extra_bytes)
                }
            };
            if better {
                best = Some(p);
            }
        }
        row *= 2;
    }
    Ok(best)
}
