//! The bank model by simulation: every instruction of an access over any layouts, padded,
//! non-power-of-two and swizzled ones included, address by address.

use super::{AccessKind, BankModel, Conflicts, INACTIVE, MAX_THREADS, err, wavefronts};
use crate::dyn_layout::DynLayout;
use crate::error::LayoutError;
use crate::f2::linear::LinearLayout;
use crate::swizzle::ComposedLayout;

/// The most `(thread, value)` pairs [`simulate`] takes: 2^22, about a second's work for the
/// command-line tool's slowest layouts.
pub const MAX_SIMULATED: u64 = 1 << 22;

/// A function from indices `0..size()` to offsets: what a layout is to the simulation (a layout,
/// a composed layout, a linear layout, or your own function).
///
/// ```
/// use const_layout::bank::Offsets;
/// use const_layout::dyn_layout::DynLayout;
/// let padded: DynLayout = "(_32,_32):(_33,_1)".parse().unwrap();
/// assert_eq!((padded.size_of(), padded.offset_at(1)), (1024, 33));
/// ```
pub trait Offsets {
    /// The number of indices.
    fn size_of(&self) -> u64;
    /// The offset of index `i` (below [`Offsets::size_of`]).
    fn offset_at(&self, i: u64) -> isize;
}

impl Offsets for DynLayout {
    fn size_of(&self) -> u64 {
        self.size().value as u64
    }
    fn offset_at(&self, i: u64) -> isize {
        self.offset(i as isize)
    }
}

impl Offsets for ComposedLayout {
    fn size_of(&self) -> u64 {
        self.size().value as u64
    }
    fn offset_at(&self, i: u64) -> isize {
        self.offset(i as isize)
    }
}

impl Offsets for LinearLayout {
    fn size_of(&self) -> u64 {
        1u64 << self.in_bits()
    }
    fn offset_at(&self, i: u64) -> isize {
        self.apply(i as u32) as isize
    }
}

/// The byte addresses of every instruction of an access: `tv` maps `t + threads * v` (thread
/// `t`, value `v`) to an element of the tile, `space` the element to its offset (in elements of
/// `element_bytes`; `base` bytes added); each thread accesses its values `vec` at a time, which
/// must be contiguous. Instructions take `lanes` threads at a time and the values in order;
/// `each` gets one instruction's addresses (one a lane). Shared by the bank and coalescing
/// analyses; the errors name the first thread or value that breaks a rule.
#[allow(clippy::too_many_arguments)]
pub(crate) fn instructions<T: Offsets + ?Sized, S: Offsets + ?Sized>(
    op: &'static str,
    tv: &T,
    threads: u64,
    space: &S,
    element_bytes: u32,
    vec: u32,
    base: u64,
    lanes: u32,
    mut each: impl FnMut(&[u64]) -> Result<(), LayoutError>,
) -> Result<(), LayoutError> {
    let bad =
        |what, value: u64| LayoutError::Access { op, what, value: value.min(isize::MAX as u64) as isize };
    let size = tv.size_of();
    if threads == 0 || !size.is_multiple_of(threads) {
        return Err(bad("the threads, not dividing the TV layout's size", threads));
    }
    if size > MAX_SIMULATED {
        return Err(bad("the (thread, value) pairs, past the limit of 2^22", size));
    }
    let values = size / threads;
    if vec == 0 || !values.is_multiple_of(vec as u64) {
        return Err(bad("the vector, not dividing the values of a thread", vec as u64));
    }
    let elements = space.size_of();
    let address = |t: u64, v: u64| -> Result<u64, LayoutError> {
        let e = tv.offset_at(t + threads * v);
        if e < 0 || e as u64 >= elements {
            return Err(bad("an element past the layout's domain, of thread", t));
        }
        let o = space.offset_at(e as u64);
        let byte = (o as i128) * element_bytes as i128 + base as i128;
        if byte < 0 || byte > (u32::MAX as i128) - 16 {
            return Err(bad("an address below 0 or past 2^32 - 16, of thread", t));
        }
        Ok(byte as u64)
    };
    let mut addrs = [0u64; MAX_THREADS];
    let mut first = 0;
    while first < threads {
        let n = (threads - first).min(lanes as u64) as usize;
        let mut v = 0;
        while v < values {
            for (l, a) in addrs[..n].iter_mut().enumerate() {
                let t = first + l as u64;
                *a = address(t, v)?;
                for k in 1..vec as u64 {
                    if address(t, v + k)? != *a + k * element_bytes as u64 {
                        return Err(bad("a vector not contiguous in memory, of thread", t));
                    }
                }
            }
            each(&addrs[..n])?;
            v += vec as u64;
        }
        first += n as u64;
    }
    Ok(())
}

/// The conflicts of an access of `kind` over any layouts, by simulating each instruction's
/// addresses with [`wavefronts`]: `tv` maps `t + threads * v` (thread `t`, value `v`: a TV
/// layout's index) to an element of the tile, `smem` the element to its offset in shared memory
/// (in elements of `element_bytes`); each thread accesses its values `vec` at a time, contiguous
/// in shared memory and aligned to their size (`ldmatrix`/`stmatrix`: 16 bytes, one row).
/// Instructions take the kind's lanes ([`AccessKind::lanes`]) at a time. Equal to [`super::access`]
/// where both maps are linear. An error past [`MAX_SIMULATED`] pairs, and for a vector that is
/// not contiguous, an address out of range or not aligned, or a width the kind does not take.
///
/// ```
/// use const_layout::bank::{simulate, AccessKind, NVIDIA};
/// use const_layout::dyn_layout::DynLayout;
/// // 32 threads read a column of a 32 x 32 f32 tile: 32-way, and conflict-free padded by one word.
/// let tv: DynLayout = "(_32,_32):(_1,_32)".parse().unwrap(); // thread t: row t, value v: column v
/// let plain: DynLayout = "(_32,_32):(_32,_1)".parse().unwrap();
/// let padded: DynLayout = "(_32,_32):(_33,_1)".parse().unwrap();
/// assert_eq!(simulate(&NVIDIA, AccessKind::Load, &tv, 32, &plain, 4, 1).unwrap().wavefronts, 32 * 32);
/// assert_eq!(simulate(&NVIDIA, AccessKind::Load, &tv, 32, &padded, 4, 1).unwrap().wavefronts, 32);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn simulate<T: Offsets + ?Sized, S: Offsets + ?Sized>(
    model: &BankModel,
    kind: AccessKind,
    tv: &T,
    threads: u64,
    smem: &S,
    element_bytes: u32,
    vec: u32,
) -> Result<Conflicts, LayoutError> {
    model.check()?;
    if !element_bytes.is_power_of_two() || element_bytes > 16 {
        return Err(err("the bytes of an element (a power of two, at most 16)", element_bytes as isize));
    }
    let bytes = element_bytes.saturating_mul(vec);
    kind.check(bytes)?;
    if kind.width(bytes) != bytes {
        return Err(err("the bytes a lane gives an ldmatrix/stmatrix (one 16-byte row)", bytes as isize));
    }
    let mut total = Conflicts::default();
    let lanes = kind.lanes(model);
    instructions("bank conflicts", tv, threads, smem, element_bytes, vec, 0, lanes, |addrs| {
        let mut a = [INACTIVE; MAX_THREADS];
        for (x, y) in a.iter_mut().zip(addrs) {
            *x = *y as u32;
        }
        total = total.plus(wavefronts(model, kind, &a[..addrs.len()], bytes)?);
        Ok(())
    })?;
    Ok(total)
}
