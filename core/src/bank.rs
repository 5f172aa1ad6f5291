//! Shared-memory bank conflicts: how many wavefronts an access takes, by simulation, on a bank
//! model ([`BankModel`]: NVIDIA's, or AMD's LDS as stated there).
//!
//! An access is one instruction of a warp: each thread reads or writes `bytes` contiguous bytes
//! at its own byte address. The model serves it in phases of `wavefront_bytes / bytes` threads
//! (all threads at once for accesses narrower than a bank); within a phase, each bank serves one
//! distinct word per wavefront, and threads that touch the same word share it (broadcast). The
//! phase takes as many wavefronts as its busiest bank has distinct words; the access, the sum over
//! its phases. The ideal is one wavefront a phase.
//!
//! [`access`] applies this to a thread-value layout over a shared-memory layout, both as linear
//! maps ([`crate::linear`]): every thread's `vec` consecutive values form one vector access,
//! checked contiguous in shared memory.
//!
//! ```
//! use const_layout::bank::{wavefronts, NVIDIA};
//! // 32 threads, 4 bytes each, all in bank 0 (a stride of 128 bytes): a 32-way conflict.
//! let addrs: [u32; 32] = core::array::from_fn(|t| 128 * t as u32);
//! let c = wavefronts(&NVIDIA, &addrs, 4);
//! assert_eq!((c.wavefronts, c.ideal), (32, 1));
//! // Consecutive words: one wavefront.
//! let addrs: [u32; 32] = core::array::from_fn(|t| 4 * t as u32);
//! assert_eq!(wavefronts(&NVIDIA, &addrs, 4).wavefronts, 1);
//! ```

use crate::error::LayoutError;
use crate::linear::LinearLayout;

/// A shared-memory bank model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankModel {
    /// The number of banks.
    pub banks: u32,
    /// The bytes of one bank word.
    pub bank_bytes: u32,
    /// The bytes one wavefront serves: an access of `b` bytes a thread runs in phases of
    /// `wavefront_bytes / b` threads.
    pub wavefront_bytes: u32,
    /// Threads of one instruction (a warp, a wave).
    pub threads: u32,
}

/// NVIDIA's shared memory (Volta to Hopper): 32 banks of 4 bytes, 128-byte wavefronts, warps of 32
/// threads; 8- and 16-byte accesses in phases of 16 and 8 threads.
pub const NVIDIA: BankModel = BankModel { banks: 32, bank_bytes: 4, wavefront_bytes: 128, threads: 32 };

/// AMD's LDS with 32 banks (CDNA2 and CDNA3, MI200 and MI300), as CK's documentation describes it
/// (rocm.docs.amd.com, Composable Kernel, "Understanding AMD GPU LDS and Bank Conflicts"): banks of
/// 4 bytes, waves of 64 lanes, an access served in phases of 128 bytes (`ds_write_b128`: 8 phases
/// of 8 lanes; `ds_read_b32`: two half-waves). Not checked against AMD hardware here.
pub const AMD_LDS_32: BankModel = BankModel { banks: 32, bank_bytes: 4, wavefront_bytes: 128, threads: 64 };

/// AMD's LDS with 64 banks of 4 bytes (the same documentation's other organisation), 256 bytes a
/// phase, waves of 64 lanes (`ds_read_b128`: 16 lanes a phase). Not checked against AMD hardware
/// here.
pub const AMD_LDS: BankModel = BankModel { banks: 64, bank_bytes: 4, wavefront_bytes: 256, threads: 64 };

impl BankModel {
    /// The lanes of one phase for accesses of `bytes` a lane: as many as fill `wavefront_bytes`
    /// with accesses of at least a bank word, at most the instruction's threads.
    ///
    /// ```
    /// use const_layout::bank::{AMD_LDS_32, NVIDIA};
    /// assert_eq!((NVIDIA.lanes_per_phase(16), NVIDIA.lanes_per_phase(2)), (8, 32));
    /// assert_eq!((AMD_LDS_32.lanes_per_phase(16), AMD_LDS_32.lanes_per_phase(4)), (8, 32));
    /// ```
    pub const fn lanes_per_phase(&self, bytes: u32) -> u32 {
        let b = if bytes > self.bank_bytes { bytes } else { self.bank_bytes };
        let lanes = self.wavefront_bytes / b;
        if lanes < self.threads { lanes } else { self.threads }
    }
}

/// The wavefronts an access takes and the ideal (one a phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Conflicts {
    /// Wavefronts taken.
    pub wavefronts: u32,
    /// Wavefronts without conflicts: one a phase.
    pub ideal: u32,
}

impl Conflicts {
    /// The extra wavefronts: conflicts.
    ///
    /// ```
    /// # use const_layout::bank::Conflicts;
    /// assert_eq!(Conflicts { wavefronts: 12, ideal: 4 }.extra(), 8);
    /// ```
    pub const fn extra(&self) -> u32 {
        self.wavefronts - self.ideal
    }

    /// The sum of two accesses' counts.
    pub const fn plus(self, other: Conflicts) -> Conflicts {
        Conflicts { wavefronts: self.wavefronts + other.wavefronts, ideal: self.ideal + other.ideal }
    }
}

/// The most threads an instruction has in any model here.
pub const MAX_THREADS: usize = 64;

/// The wavefronts of one instruction: thread `t` accesses `bytes` bytes (a power of two, at most
/// 16) from byte address `addrs[t]`; `addrs.len()` threads (at most the model's).
pub const fn wavefronts(model: &BankModel, addrs: &[u32], bytes: u32) -> Conflicts {
    let n = addrs.len();
    let per_phase = model.lanes_per_phase(bytes) as usize;
    let words_each = if bytes <= model.bank_bytes { 1 } else { (bytes / model.bank_bytes) as usize };
    let mut total = Conflicts { wavefronts: 0, ideal: 0 };
    let mut start = 0;
    while start < n {
        let end = if start + per_phase < n { start + per_phase } else { n };
        // The phase's distinct words, then the most of them on one bank.
        let mut words = [0u32; 4 * MAX_THREADS];
        let mut count = 0;
        let mut t = start;
        while t < end {
            let mut w = 0;
            while w < words_each {
                let word = addrs[t] / model.bank_bytes + w as u32;
                let mut seen = false;
                let mut i = 0;
                while i < count {
                    if words[i] == word {
                        seen = true;
                    }
                    i += 1;
                }
                if !seen && count < words.len() {
                    words[count] = word;
                    count += 1;
                }
                w += 1;
            }
            t += 1;
        }
        let mut busiest = 0;
        let mut i = 0;
        while i < count {
            let bank = words[i] % model.banks;
            let mut on_bank = 0;
            let mut j = 0;
            while j < count {
                if words[j] % model.banks == bank {
                    on_bank += 1;
                }
                j += 1;
            }
            if on_bank > busiest {
                busiest = on_bank;
            }
            i += 1;
        }
        total.wavefronts += busiest;
        total.ideal += 1;
        start = end;
    }
    total
}

const fn err(what: &'static str, value: isize) -> LayoutError {
    LayoutError::NotCanonical { op: "bank conflicts", what, value }
}

/// The conflicts of an access pattern over a whole tile: `tv` maps `(thread, value)` (thread bits
/// low: `thread_bits` of them) to an element of the tile, `smem` maps the element to its offset
/// in shared memory (in elements of `element_bytes`); each thread accesses its values `vec` at a
/// time (a power of two), which must be contiguous in shared memory. Instructions run a warp
/// (the model's threads) at a time; the result sums over every warp and instruction. An error
/// names a vector that is not contiguous (its value bit) or a count out of range.
///
/// ```
/// use const_layout::bank::{access, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::swizzle::Swizzle;
/// // An 8 x 64 tile of halves, row-major; ldmatrix-like reads: lane l reads 8 halves of row
/// // l % 8 at column 8 (l / 8). Thread bits: lane (5); value bits: the 8 halves (3).
/// let tv = LinearLayout::new(&[64, 128, 256, 8, 16, 1, 2, 4], 9).unwrap();
/// let plain = LinearLayout::identity(9);
/// assert_eq!(access(&NVIDIA, &tv, 5, &plain, 2, 8).unwrap().wavefronts, 32); // 8-way, 4 phases
/// let swizzled = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9);
/// assert_eq!(access(&NVIDIA, &tv, 5, &swizzled, 2, 8).unwrap().wavefronts, 4); // conflict-free
/// ```
pub const fn access(
    model: &BankModel,
    tv: &LinearLayout,
    thread_bits: u32,
    smem: &LinearLayout,
    element_bytes: u32,
    vec: u32,
) -> Result<Conflicts, LayoutError> {
    if vec == 0 || vec & (vec - 1) != 0 || vec * element_bytes > 16 {
        return Err(err("the vector (a power of two, at most 16 bytes), in elements", vec as isize));
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
    // their banks) of them. Every phase of every instruction and warp takes as many.
    let warp_bits = model.threads.trailing_zeros();
    let lane_bits = if thread_bits < warp_bits { thread_bits } else { warp_bits };
    let bytes = vec * element_bytes;
    let phase_bits = {
        let b = model.lanes_per_phase(bytes).trailing_zeros();
        if b < lane_bits { b } else { lane_bits }
    };
    let per_phase = match word_image(&offset, phase_bits, element_bytes, bytes, model) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let phases = 1u32 << (lane_bits - phase_bits);
    let warps = 1u32 << (thread_bits - lane_bits);
    let instructions = 1u32 << (value_bits - vbits);
    let n = phases * warps * instructions;
    let total = Conflicts { wavefronts: n * per_phase, ideal: n };
    Ok(total)
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
    let mut basis = [0u32; 8];
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
    let mut banks = [0u32; 8];
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
