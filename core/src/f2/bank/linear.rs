//! The closed form over F2: an access whose maps are linear takes the same wavefronts in every
//! phase, counted from ranks.

use super::{AccessKind, BankModel, Conflicts, err};
use crate::error::LayoutError;
use crate::f2::linear::LinearLayout;

/// The conflicts of an access of `kind` over a whole tile: `tv` maps `(thread, value)` (thread bits
/// low: `thread_bits` of them) to an element of the tile, `smem` maps the element to its offset
/// in shared memory (in elements of `element_bytes`); each thread accesses its values `vec` at a
/// time (a power of two), which must be contiguous in shared memory (`ldmatrix`/`stmatrix`: 16
/// bytes, one row). Instructions take the kind's lanes ([`AccessKind::lanes`]) at a time; the
/// result sums over every instruction, and equals [`super::simulate`]'s. An error names a vector
/// that is not contiguous (its value bit) or a count out of range.
///
/// ```
/// use const_layout::bank::{access, AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::swizzle::Swizzle;
/// // An 8 x 64 tile of halves, row-major; ldmatrix-like reads: lane l reads 8 halves of row
/// // l % 8 at column 8 (l / 8). Thread bits: lane (5); value bits: the 8 halves (3).
/// let tv = LinearLayout::new(&[64, 128, 256, 8, 16, 1, 2, 4], 9).unwrap();
/// let plain = LinearLayout::identity(9);
/// let ldsm = AccessKind::Ldmatrix { matrices: 4, trans: false };
/// assert_eq!(access(&NVIDIA, ldsm, &tv, 5, &plain, 2, 8).unwrap().wavefronts, 32); // 8-way, 4 phases
/// let swizzled = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9);
/// assert_eq!(access(&NVIDIA, ldsm, &tv, 5, &swizzled, 2, 8).unwrap().wavefronts, 4); // conflict-free
/// ```
pub const fn access(
    model: &BankModel,
    kind: AccessKind,
    tv: &LinearLayout,
    thread_bits: u32,
    smem: &LinearLayout,
    element_bytes: u32,
    vec: u32,
) -> Result<Conflicts, LayoutError> {
    if let Err(e) = model.check() {
        return Err(e);
    }
    if vec == 0 || vec & (vec - 1) != 0 || vec.saturating_mul(element_bytes) > 16 {
        return Err(err("the vector (a power of two, at most 16 bytes), in elements", vec as isize));
    }
    if !element_bytes.is_power_of_two() {
        return Err(err("the bytes of an element (a power of two)", element_bytes as isize));
    }
    let bytes = vec * element_bytes;
    if let Err(e) = kind.check(bytes) {
        return Err(e);
    }
    if kind.width(bytes) != bytes {
        return Err(err("the bytes a lane gives an ldmatrix/stmatrix (one 16-byte row)", bytes as isize));
    }
    if thread_bits > tv.in_bits() {
        return Err(err("the thread bits, past the layout's inputs", thread_bits as isize));
    }
    let offset = match smem.compose(tv) {
        Ok(o) => o,
        Err(e) => return Err(e),
    };
    let vbits = vec.trailing_zeros();
    let value_bits = tv.in_bits() - thread_bits;
    if vbits > value_bits {
        return Err(err("the vector's bits, past the value bits", vbits as isize));
    }
    let mut j = 0;
    while j < vbits {
        if offset.basis(thread_bits + j) != 1 << j {
            return Err(err(
                "the first value bit of a vector that is not contiguous in shared memory",
                j as isize,
            ));
        }
        j += 1;
    }
    // Every vector starts aligned to its size: no other input moves the bits within a vector.
    let mut i = 0;
    while i < tv.in_bits() {
        let inside = i >= thread_bits && i < thread_bits + vbits;
        if !inside && offset.basis(i) & (vec - 1) != 0 {
            return Err(err("the first input bit that moves a vector off its alignment", i as isize));
        }
        i += 1;
    }
    // Closed form over F2: a phase's lanes are a subspace of the inputs, so its words are the
    // image of that subspace (plus the words within a vector) under the linear word map, every
    // phase a coset of the same image; the busiest bank holds 2^(rank of the words - rank of
    // their banks) of them. Every phase of every instruction takes as many. Loads pair when a
    // quad's addresses (the images of lane bits 0 and 1, in accesses) span at most a line.
    let lane_bits = {
        let b = kind.lanes(model).trailing_zeros();
        if thread_bits < b { thread_bits } else { b }
    };
    let paired = kind.may_pair(model, bytes) && {
        let ab = (bytes / element_bytes).trailing_zeros();
        let (q0, q1) = (quad_basis(&offset, 0, lane_bits, ab), quad_basis(&offset, 1, lane_bits, ab));
        q0 == 0 || q1 == 0 || q0 == q1
    };
    let phase_bits = {
        let b = kind.phase_lanes(model, bytes, paired).trailing_zeros();
        if b < lane_bits { b } else { lane_bits }
    };
    let per_phase = match word_image(&offset, phase_bits, element_bytes, bytes, model) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let phases = 1u64 << (lane_bits - phase_bits);
    let groups = 1u64 << (thread_bits - lane_bits);
    let instructions = 1u64 << (value_bits - vbits);
    let n = phases * groups * instructions;
    let wavefronts = n * per_phase as u64;
    if wavefronts > u32::MAX as u64 {
        return Err(err("the wavefronts, past 2^32 - 1", wavefronts as isize));
    }
    Ok(Conflicts { wavefronts: wavefronts as u32, ideal: n as u32 })
}

/// The access that lane bit `i` moves to (offset basis in elements, shifted to accesses of
/// `2^access_bits` elements), or 0 past the lanes.
const fn quad_basis(offset: &LinearLayout, i: u32, lane_bits: u32, access_bits: u32) -> u32 {
    if i < lane_bits { offset.basis(i) >> access_bits } else { 0 }
}

/// The wavefronts of one phase of a linear access: `2^(r_w - r_b)` for `r_w` the rank of the
/// words the phase's lanes (the low `phase_bits` inputs of `offset`, in elements of
/// `element_bytes`) touch with accesses of `bytes`, and `r_b` the rank of their banks.
const fn word_image(
    offset: &LinearLayout,
    phase_bits: u32,
    element_bytes: u32,
    bytes: u32,
    model: &BankModel,
) -> Result<u32, LayoutError> {
    let eb = element_bytes.trailing_zeros();
    let wb = model.bank_bytes.trailing_zeros();
    let words_each = if bytes > model.bank_bytes { bytes / model.bank_bytes } else { 1 };
    let extra = words_each.trailing_zeros();
    let mut basis = [0u32; 16];
    let mut n = 0;
    let mut i = 0;
    while i < phase_bits {
        // The byte address's bits above the bank word: the word.
        basis[n] = ((offset.basis(i) as u64) << eb >> wb) as u32;
        n += 1;
        i += 1;
    }
    let mut j = 0;
    while j < extra {
        basis[n] = 1 << j;
        n += 1;
        j += 1;
    }
    let (words, _) = basis.split_at(n);
    let w = match LinearLayout::new(words, 32) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    let bank_mask = model.banks - 1;
    let mut banks = [0u32; 16];
    let mut k = 0;
    while k < n {
        banks[k] = words[k] & bank_mask;
        k += 1;
    }
    let (banks, _) = banks.split_at(n);
    let b = match LinearLayout::new(banks, 32) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    Ok(1 << (w.rank() - b.rank()))
}
