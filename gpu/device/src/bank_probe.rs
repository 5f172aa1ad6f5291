//! One warp's shared-memory loads at the byte addresses a table gives: the device layer's way to
//! check `const_layout::bank`'s model against the hardware (`tools/gpu/bank_probe.py` runs it under
//! Nsight Compute and compares the wavefronts counted with the model's).
//!
//! Instruction `i` of lane `l` loads `bytes` bytes (4, 8 or 16: `LDS`, `LDS.64`, `LDS.128`) at
//! byte `addrs[32 i + l]` of a 16 KiB shared array that every lane first fills; each lane writes
//! the XOR of what it loaded, so no load is optimised away.
//!
//! ```
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{bank_probe, Dim3, Gmem, GmemMut, SmemRegion};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! let addrs: Vec<AtomicU32> = (0..64u32).map(|i| AtomicU32::new(4 * i)).collect(); // 2 instructions
//! let out: Vec<AtomicU32> = (0..32).map(|_| AtomicU32::new(0)).collect();
//! let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: bank_probe::SMEM_BYTES };
//! launch(&cfg, || {
//!     bank_probe::bank_probe(Gmem::<u32>::from_cells(&addrs), 2, 4, GmemMut::<u32>::from_cells(&out), SmemRegion::dynamic());
//! })
//! .unwrap();
//! // Word w holds w: lane l loaded words l and 32 + l.
//! assert_eq!(out[5].load(Ordering::Relaxed), 5 ^ 37);
//! ```

use crate::{Gmem, GmemMut, SmemRegion, fault, sync_threads, thread_idx};

/// The shared array: 16 KiB.
pub const SMEM_BYTES: u32 = 16384;

/// See the module. One block of one warp.
#[inline(always)]
pub fn bank_probe(
    addrs: Gmem<'_, u32>,
    instructions: usize,
    bytes: u32,
    out: GmemMut<'_, u32>,
    smem: SmemRegion,
) {
    let t = thread_idx().x as usize;
    if t >= 32 || out.len() < 32 || addrs.len() < 32 * instructions {
        fault("bank_probe: one warp, 32 outputs, 32 addresses an instruction");
    }
    let Some(s) = smem.array::<u32, 4096>(0) else {
        fault("bank_probe: the block has less shared memory than SMEM_BYTES");
    };
    for i in 0..128 {
        s.store(t + 32 * i, (t + 32 * i) as u32);
    }
    sync_threads();
    let word = |i: usize| addrs.load(32 * i + t) as usize / 4;
    let mut acc = 0u32;
    match bytes {
        4 => (0..instructions).for_each(|i| acc ^= s.load(word(i))),
        8 => (0..instructions).for_each(|i| acc ^= s.load2(word(i)).iter().fold(0, |a, w| a ^ w)),
        16 => (0..instructions).for_each(|i| acc ^= s.load4(word(i)).iter().fold(0, |a, w| a ^ w)),
        _ => fault("bank_probe: 4, 8 or 16 bytes"),
    }
    out.store(t, acc);
}
