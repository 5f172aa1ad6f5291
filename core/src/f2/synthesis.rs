//! Swizzle synthesis: given how a shared tile is written and how it is read (thread-value layouts
//! into the tile, element width, wanted vector widths), the `Sw<B,M,S>` over the tile that first
//! maximises both accesses' vector widths and then minimises their bank conflicts
//! ([`crate::f2::bank`]), by exhaustive search over `B, M, S <= 5` (and no swizzle). A `const fn`, so a
//! static query is a constant.
//!
//! Ties keep the first found in the order `B`, then `M`, then `S`, ascending, after no swizzle:
//! the simplest swizzle of the best score.
//!
//! ```
//! use const_layout::bank::{AccessKind, NVIDIA};
//! use const_layout::linear::LinearLayout;
//! use const_layout::synthesis::{best_swizzle, Access};
//! // An 8 x 64 tile of halves, row-major. Writes: 16-byte cp.async, thread t to row t / 8, chunk
//! // t % 8. Reads: ldmatrix, lane l reads row l % 8 at chunk l / 8.
//! let tile = LinearLayout::identity(9);
//! let write = Access { kind: AccessKind::Store, tv: LinearLayout::new(&[8, 16, 32, 64, 128, 1, 2, 4], 9).unwrap(), thread_bits: 5, vec: 8 };
//! let read = Access { kind: AccessKind::Load, tv: LinearLayout::new(&[64, 128, 256, 8, 16, 1, 2, 4], 9).unwrap(), thread_bits: 5, vec: 8 };
//! let best = best_swizzle(&NVIDIA, &tile, 2, &write, &read).unwrap();
//! assert_eq!((best.write_vec, best.read_vec, best.conflicts()), (8, 8, 0));
//! assert_eq!(best.swizzle.to_string(), "Sw<3,3,3>"); // CUTLASS's choice
//! ```

use crate::error::LayoutError;
use crate::f2::bank::{AccessKind, BankModel, Conflicts, access};
use crate::f2::linear::LinearLayout;
use crate::swizzle::Swizzle;

mod general;
mod padding;
pub use general::{LinearChoice, best_linear, linear_within_budget};
pub use padding::{Padded, Padding, best_padding};

/// One access pattern of a tile: `tv` maps `(thread, value)` (its low `thread_bits` bits the
/// thread) to a tile element; each thread wants vectors of `vec` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The instruction: its phases and pairing ([`crate::f2::bank`]).
    pub kind: AccessKind,
    /// `(thread, value) -> element`.
    pub tv: LinearLayout,
    /// The thread bits (low).
    pub thread_bits: u32,
    /// The vector width wanted, in elements (a power of two).
    pub vec: u32,
}

/// A swizzle and what it gives both accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The swizzle, on element offsets (`Sw<0,..>` for none).
    pub swizzle: Swizzle,
    /// The write's vector width, in elements.
    pub write_vec: u32,
    /// The read's.
    pub read_vec: u32,
    /// The write's wavefronts, over the whole tile.
    pub write: Conflicts,
    /// The read's.
    pub read: Conflicts,
}

impl Choice {
    /// Both accesses' extra wavefronts.
    pub const fn conflicts(&self) -> u32 {
        self.write.extra() + self.read.extra()
    }

    /// Whether `self` scores better than `other`: wider vectors (the narrower of the two first,
    /// then their sum), then fewer extra wavefronts.
    const fn better(&self, other: &Choice) -> bool {
        beats(
            (self.write_vec, self.read_vec, self.conflicts()),
            (other.write_vec, other.read_vec, other.conflicts()),
        )
    }
}

/// Whether the score `(write vector, read vector, extra wavefronts)` `a` beats `b`: wider vectors
/// (the narrower of the two first, then their sum), then fewer extra wavefronts.
const fn beats(a: (u32, u32, u32), b: (u32, u32, u32)) -> bool {
    let (x, y) = (min(a.0, a.1), min(b.0, b.1));
    if x != y {
        return x > y;
    }
    let (x, y) = (a.0 + a.1, b.0 + b.1);
    if x != y {
        return x > y;
    }
    a.2 < b.2
}

const fn min(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// The widest vector (a power of two up to `want`, within the `value_bits`) whose values are
/// contiguous in `offset` and aligned: no other input moves bits inside it.
const fn vector_width(offset: &LinearLayout, thread_bits: u32, want: u32, value_bits: u32) -> u32 {
    let mut w = 0;
    while w < value_bits && (2u32 << w) <= want && offset.basis(thread_bits + w) == 1 << w {
        w += 1;
    }
    // Narrow until aligned.
    while w > 0 {
        let mut aligned = true;
        let mut i = 0;
        while i < offset.in_bits() {
            let inside = i >= thread_bits && i < thread_bits + w;
            if !inside && offset.basis(i) & ((1 << w) - 1) != 0 {
                aligned = false;
            }
            i += 1;
        }
        if aligned {
            break;
        }
        w -= 1;
    }
    1 << w
}

/// What `swizzle` over `tile` gives the access `a` of `element_bytes` elements: its vector width
/// and wavefronts.
pub const fn evaluate(
    model: &BankModel,
    tile: &LinearLayout,
    swizzle: Swizzle,
    element_bytes: u32,
    a: &Access,
) -> Result<(u32, Conflicts), LayoutError> {
    match LinearLayout::from_swizzle(swizzle, tile.out_bits()).compose(tile) {
        Ok(smem) => evaluate_linear(model, &smem, element_bytes, a),
        Err(e) => Err(e),
    }
}

/// What the shared-memory layout `smem` (tile element to offset, any linear map) gives the access
/// `a` of `element_bytes` elements: its widest contiguous, aligned vector (up to what `a` wants
/// and 16 bytes) and the wavefronts with it (by the access's kind, or its
/// [`AccessKind::fallback`] where the vector is one the kind cannot move).
///
/// ```
/// use const_layout::bank::{AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::synthesis::{evaluate_linear, Access};
/// // Lane l reads the 4 floats of row l of a 32 x 4 row-major tile: 16-byte vectors, rows 16
/// // bytes apart, 8 lanes a phase over all 32 banks: no conflict.
/// let tv = LinearLayout::new(&[4, 8, 16, 32, 64, 1, 2], 7).unwrap();
/// let a = Access { kind: AccessKind::Load, tv, thread_bits: 5, vec: 4 };
/// let (vec, c) = evaluate_linear(&NVIDIA, &LinearLayout::identity(7), 4, &a).unwrap();
/// assert_eq!((vec, c.wavefronts, c.extra()), (4, 4, 0));
/// ```
pub const fn evaluate_linear(
    model: &BankModel,
    smem: &LinearLayout,
    element_bytes: u32,
    a: &Access,
) -> Result<(u32, Conflicts), LayoutError> {
    let offset = match smem.compose(&a.tv) {
        Ok(o) => o,
        Err(e) => return Err(e),
    };
    if element_bytes == 0 || element_bytes & (element_bytes - 1) != 0 || element_bytes > 16 {
        return Err(LayoutError::NotCanonical {
            op: "swizzle synthesis",
            what: "the element's bytes (a power of two, at most 16)",
            value: element_bytes as isize,
        });
    }
    let most = 16 / element_bytes;
    let want = if a.vec < most { a.vec } else { most };
    let value_bits = a.tv.in_bits() - a.thread_bits;
    let v = vector_width(&offset, a.thread_bits, want, value_bits);
    // A vector the kind cannot move falls back to plain loads or stores (CuTe's UniversalCopy).
    let kind = a.kind.for_bytes(v * element_bytes);
    match access(model, kind, &a.tv, a.thread_bits, smem, element_bytes, v) {
        Ok(c) => Ok((v, c)),
        Err(e) => Err(e),
    }
}

/// The best `Sw<B,M,S>` (`B, M, S` from 0 to 5, and no swizzle) over `tile` (element index to
/// offset) for a `write` and a `read` of elements of `element_bytes` bytes (see the module).
pub const fn best_swizzle(
    model: &BankModel,
    tile: &LinearLayout,
    element_bytes: u32,
    write: &Access,
    read: &Access,
) -> Result<Choice, LayoutError> {
    let mut best: Option<Choice> = None;
    let mut b = 0;
    while b <= 5 {
        let mut m = 0;
        while m <= 5 {
            let mut s = 0;
            while s <= 5 {
                // No swizzle once (B = 0), then every valid swizzle whose bits stay in the tile.
                let fits = b == 0 && m == 0 && s == 0 || b > 0 && m + s as u32 + b <= tile.out_bits();
                if let (true, Ok(sw)) = (fits, Swizzle::new(b, m, s)) {
                    let (wv, wc) = match evaluate(model, tile, sw, element_bytes, write) {
                        Ok(x) => x,
                        Err(e) => return Err(e),
                    };
                    let (rv, rc) = match evaluate(model, tile, sw, element_bytes, read) {
                        Ok(x) => x,
                        Err(e) => return Err(e),
                    };
                    let c = Choice { swizzle: sw, write_vec: wv, read_vec: rv, write: wc, read: rc };
                    best = match best {
                        Some(old) if !c.better(&old) => Some(old),
                        _ => Some(c),
                    };
                }
                s += 1;
            }
            m += 1;
        }
        b += 1;
    }
    match best {
        Some(c) => Ok(c),
        None => Err(LayoutError::NotCanonical {
            op: "best_swizzle",
            what: "the tile's output bits",
            value: tile.out_bits() as isize,
        }),
    }
}

/// The result of a static query, or a compile error (in a `const`, a full build) naming what went
/// wrong: the query's own error, or the best swizzle's extra wavefronts over `budget`, with the
/// numbers. The conflict budget of a kernel's shared-memory layout, checked when it compiles.
///
/// ```
/// use const_layout::bank::{AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::synthesis::{best_swizzle, within_budget, Access, Choice};
/// const TILE: LinearLayout = LinearLayout::identity(9);
/// const fn tv(b: &[u32]) -> LinearLayout {
///     match LinearLayout::new(b, 9) { Ok(l) => l, Err(_) => panic!("bases") }
/// }
/// const WRITE: Access = Access { kind: AccessKind::Store, tv: tv(&[8, 16, 32, 64, 128, 1, 2, 4]), thread_bits: 5, vec: 8 };
/// const READ: Access = Access { kind: AccessKind::Load, tv: tv(&[64, 128, 256, 8, 16, 1, 2, 4]), thread_bits: 5, vec: 8 };
/// const SMEM: Choice = within_budget(best_swizzle(&NVIDIA, &TILE, 2, &WRITE, &READ), 0);
/// assert_eq!(SMEM.swizzle.to_string(), "Sw<3,3,3>");
/// ```
pub const fn within_budget(query: Result<Choice, LayoutError>, budget: u32) -> Choice {
    use crate::error::Message;
    match query {
        Ok(c) if c.conflicts() <= budget => c,
        Ok(c) => {
            let s = c.swizzle;
            let m = Message::new()
                .text("best_swizzle: the best swizzle, Sw<")
                .num(s.bits() as isize)
                .text(",")
                .num(s.base() as isize)
                .text(",")
                .num(s.shift() as isize)
                .text(">, takes ")
                .num(c.conflicts() as isize)
                .text(" extra wavefronts, over the budget of ")
                .num(budget as isize);
            panic!("{}", m.as_str())
        }
        Err(e) => {
            let m = Message::new().text("best_swizzle: ").text(e.message().as_str());
            panic!("{}", m.as_str())
        }
    }
}
