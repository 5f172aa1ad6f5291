//! Global-memory coalescing: the 32-byte sectors and 128-byte cache lines each warp request
//! touches, against the fewest its bytes could take.
//!
//! A request is one instruction of a warp: each active lane reads or writes `bytes` contiguous
//! bytes at its own address. The L1 serves it by sectors: a request takes one sector for every
//! distinct 32-byte-aligned sector any lane touches, however many lanes share it (Nsight
//! Compute's `l1tex__t_sectors_pipe_lsu_mem_global_op_ld` / `_st` per
//! `l1tex__t_requests_pipe_lsu_mem_global_op_ld` / `_st`; the probe table in PERFORMANCE.md
//! matched it on every pattern on the H200, loads and stores of 1 to 16 bytes). The minimum is
//! the request's distinct bytes in whole sectors (and lines); a request over it moves bytes no
//! lane asked for.
//!
//! ```
//! use const_layout::coalescing::request;
//! // 32 lanes, 4 bytes each, consecutive: 4 sectors, 1 line, the minimum.
//! let addrs: [u64; 32] = core::array::from_fn(|l| 4 * l as u64);
//! let r = request(&addrs, 4).unwrap();
//! assert_eq!((r.sectors, r.lines, r.min_sectors, r.min_lines), (4, 1, 4, 1));
//! // Misaligned by 4 bytes: a fifth sector and a second line.
//! let addrs: [u64; 32] = core::array::from_fn(|l| 4 + 4 * l as u64);
//! let r = request(&addrs, 4).unwrap();
//! assert_eq!((r.sectors, r.lines, r.min_sectors), (5, 2, 4));
//! ```

use crate::error::LayoutError;
use crate::f2::bank::Offsets;

/// Bytes of a sector, the unit the L1 moves.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes of a cache line.
pub const LINE_BYTES: u64 = 128;
/// The address of a lane left out of a request.
pub const INACTIVE: u64 = u64::MAX;
/// The most lanes of a request.
pub const MAX_LANES: usize = 64;

/// Sectors and lines of one or more requests, and the fewest their bytes could take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Coalescing {
    /// Warp instructions (requests) counted.
    pub requests: u64,
    /// Sectors the requests touch.
    pub sectors: u64,
    /// Cache lines the requests touch.
    pub lines: u64,
    /// The sectors the requests' distinct bytes fill, each request on its own.
    pub min_sectors: u64,
    /// The lines the requests' distinct bytes fill.
    pub min_lines: u64,
}

impl Coalescing {
    /// The sum of two counts.
    ///
    /// ```
    /// use const_layout::coalescing::Coalescing;
    /// let a = Coalescing { requests: 1, sectors: 5, lines: 2, min_sectors: 4, min_lines: 1 };
    /// assert_eq!(a.plus(a).sectors, 10);
    /// ```
    pub const fn plus(self, o: Coalescing) -> Coalescing {
        Coalescing {
            requests: self.requests + o.requests,
            sectors: self.sectors + o.sectors,
            lines: self.lines + o.lines,
            min_sectors: self.min_sectors + o.min_sectors,
            min_lines: self.min_lines + o.min_lines,
        }
    }
}

fn err(what: &'static str, value: u64) -> LayoutError {
    LayoutError::Access { op: "coalescing", what, value: value.min(isize::MAX as u64) as isize }
}

/// One request: lane `l` accesses `bytes` bytes (1, 2, 4, 8 or 16, aligned to their size) at
/// byte address `addrs[l]`, or nothing if it is [`INACTIVE`]. An error for a width, an unaligned
/// address or more than [`MAX_LANES`] lanes.
///
/// ```
/// use const_layout::coalescing::request;
/// // A column of a 32 x 32 row-major f32 matrix: 32 sectors, 32 lines, for 4 sectors' bytes.
/// let column: [u64; 32] = core::array::from_fn(|l| 128 * l as u64);
/// let r = request(&column, 4).unwrap();
/// assert_eq!((r.sectors, r.lines, r.min_sectors, r.min_lines), (32, 32, 4, 1));
/// ```
pub fn request(addrs: &[u64], bytes: u32) -> Result<Coalescing, LayoutError> {
    if !matches!(bytes, 1 | 2 | 4 | 8 | 16) {
        return Err(err("the bytes of an access (1, 2, 4, 8 or 16)", bytes as u64));
    }
    if addrs.len() > MAX_LANES {
        return Err(err("the lanes of a request, past 64", addrs.len() as u64));
    }
    let mut sectors = [0u64; MAX_LANES];
    let mut starts = [0u64; MAX_LANES];
    let (mut ns, mut na) = (0, 0);
    for &a in addrs.iter().filter(|a| **a != INACTIVE) {
        if a % bytes as u64 != 0 {
            return Err(err("an address not aligned to its access", a));
        }
        // An aligned access of at most 16 bytes lies in one sector.
        let s = a / SECTOR_BYTES;
        if !sectors[..ns].contains(&s) {
            sectors[ns] = s;
            ns += 1;
        }
        if !starts[..na].contains(&a) {
            starts[na] = a;
            na += 1;
        }
    }
    if ns == 0 {
        return Ok(Coalescing::default());
    }
    let mut lines = [0u64; MAX_LANES];
    let mut nl = 0;
    for &s in &sectors[..ns] {
        let l = s * SECTOR_BYTES / LINE_BYTES;
        if !lines[..nl].contains(&l) {
            lines[nl] = l;
            nl += 1;
        }
    }
    // Distinct aligned accesses of one width never overlap: their bytes add up.
    let distinct = na as u64 * bytes as u64;
    Ok(Coalescing {
        requests: 1,
        sectors: ns as u64,
        lines: nl as u64,
        min_sectors: distinct.div_ceil(SECTOR_BYTES),
        min_lines: distinct.div_ceil(LINE_BYTES),
    })
}

/// The coalescing of an access over a global-memory layout: `tv` maps `t + threads * v` (thread
/// `t`, value `v`) to an element of the tensor, `global` the element to its offset (in elements of
/// `element_bytes`), from a base address of `base` bytes (its alignment: the tensor's pointer);
/// each thread accesses its values `vec` at a time (contiguous, aligned), a warp of 32 threads
/// a request. Sums over every warp and request. An error as [`crate::f2::bank::simulate`]'s, past
/// [`crate::f2::bank::MAX_SIMULATED`] pairs.
///
/// ```
/// use const_layout::coalescing::coalescing;
/// use const_layout::dyn_layout::DynLayout;
/// // 32 threads read a row-major 32 x 32 f32 matrix (element index row + 32 column).
/// let matrix: DynLayout = "(_32,_32):(_32,_1)".parse().unwrap();
/// // Thread t reads row t: each request is a column, 32 sectors.
/// let row_each: DynLayout = "(_32,_32):(_1,_32)".parse().unwrap();
/// // Thread t reads column t: each request is a row, 4 sectors.
/// let column_each: DynLayout = "(_32,_32):(_32,_1)".parse().unwrap();
/// let a = coalescing(&row_each, 32, &matrix, 4, 1, 0).unwrap();
/// let b = coalescing(&column_each, 32, &matrix, 4, 1, 0).unwrap();
/// assert_eq!((a.requests, a.sectors, b.sectors), (32, 32 * 32, 32 * 4));
/// ```
pub fn coalescing<T: Offsets + ?Sized, G: Offsets + ?Sized>(
    tv: &T,
    threads: u64,
    global: &G,
    element_bytes: u32,
    vec: u32,
    base: u64,
) -> Result<Coalescing, LayoutError> {
    if !element_bytes.is_power_of_two() || element_bytes > 16 {
        return Err(err("the bytes of an element (a power of two, at most 16)", element_bytes as u64));
    }
    let bytes = element_bytes.saturating_mul(vec);
    let mut total = Coalescing::default();
    crate::f2::bank::simulate::instructions(
        "coalescing",
        tv,
        threads,
        global,
        element_bytes,
        vec,
        base,
        32,
        |addrs| {
            total = total.plus(request(addrs, bytes)?);
            Ok(())
        },
    )?;
    Ok(total)
}
