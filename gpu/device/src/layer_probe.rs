//! The device layer's check of its warp, math, atomic, barrier, tensor and shared-memory
//! primitives against the hardware: one kernel body, [`layer_probe`], that exercises each of them
//! on inputs the host chose and writes what it got. `tools/gpu/layer_probe.py` runs it on the GPU
//! and compares with NumPy; the test `layer_probe_matches_the_host_model` (`tests/layer.rs`) runs
//! the same body on the emulator and checks the same expected values, computed in Rust.
//!
//! The launch is [`BLOCKS`] blocks of [`THREADS`] threads, with [`SMEM_BYTES`] of shared memory
//! (a static array on the GPU). Thread `gid = 128 block + t` holds the input word `w =
//! input[gid]` and writes its [`RECORD`] words to `out[RECORD gid ..]`:
//!
//! | words | what |
//! | --- | --- |
//! | [`R_SHFL`] `+ 6 m + k` | shuffle mode `m` (0 `xor`, 1 `down`, 2 `up`, 3 `idx`) of `w` with `b = SHFL_B[k]` |
//! | [`R_SHFL`] `+ 24`, `+ 25` | `shfl_idx(w, (7 lane + 3) % 32)`, `shfl_xor(w, 5 lane % 32)` (a `b` a lane) |
//! | [`R_VOTE`] `+ 0..4` | `ballot(w & 1 != 0)`, `all(w & 15 != 0)`, `any(w & 63 == 0)` (as 0 or 1), `active_mask()` |
//! | [`R_REDUCE`] `+ 9 m + 3 op + ty` | `allreduce_lanes::<REDUCE_MASKS[m]>` for op 0 `Sum`, 1 `Max`, 2 `Min` of `ty` 0 `u32` (`w`), 1 `i32` (`w as i32`), 2 `f32` ([`f32_of`]`(w)`), as bits |
//! | [`R_BLOCK`] `+ 0..4` | `block_allreduce`: `Sum` of `f32_of(w)`, `Sum` of `w`, `Max` of `w as i32`, `Min` of `w` |
//! | [`R_NAMED`] `+ 0, 1` | the named-barrier handoff (below): the sum of the words warp 0 published (warps 1-3; 0 in warp 0), of those warp 1 published (warp 2; 0 elsewhere) |
//! | [`R_ATOMIC`] `+ 0..6` | old values: global `u32` exchange, global `u32` CAS ticket, global `i32` exchange, shared `u32` exchange, shared `u32` CAS ticket, shared `i32` exchange |
//! | [`R_SLICE`] `+ 0, 1` | the `(6,5,3):(_1,8,44)` tensor over `batch` at `(i, j, k) = (gid % 6, gid / 6 % 5, gid / 30)` read as `slice_last(k)[i, j]` and `slice_first(i)[j, k]` (`u32::MAX` outside) |
//! | [`R_SWIZZLE`] `+ 0..8` | the 32x32 shared tensor under `Swizzle<3,2,3>`, every element `e` written `block << 16 \| e` at `(e / 32, e % 32)`, read back at the transposed coordinate of `e = t + 128 k` |
//!
//! The named-barrier handoff: warp 0 writes `3 w + 1` (wrapping) to a shared array and arrives
//! at barrier 1 (128 threads); warps 1-3 sync on it and sum the array; warp 1 then writes that
//! word xor its own `w` to a second array and arrives at barrier 2 (64 threads), on which warp 2
//! syncs and sums it.
//!
//! Atomics: every thread of the grid on [`ATOMIC_WORDS`] global words of each type, and every
//! thread of a block on the same words in shared memory (the block's record,
//! [`BLOCK_RECORD`] words at `blocks[BLOCK_RECORD block ..]`, holds them at the end), with `id`
//! the thread's index in the grid (global) or the block (shared):
//!
//! | word | `u32` | `i32` | `f32` |
//! | --- | --- | --- | --- |
//! | 0 | `atomic_add(w & 0xffff)` | `atomic_add(w as i32 >> 16)` | `atomic_add((w >> 24) / 4)` |
//! | 1 | `red_add(w & 0xff)` | `red_add(w as i32 >> 20)` | `red_add((w >> 16 & 0xff) / 2)` |
//! | 2 | `atomic_max(w)` | `atomic_max(w as i32)` | |
//! | 3 | `atomic_min(w)` | `atomic_min(w as i32)` | |
//! | 4 | `atomic_exch(id + 1)` | `atomic_exch(-(id + 1))` | |
//! | 5 | a CAS loop's maximum of [`hash`]`(w)` | a CAS loop's maximum of `hash(w) as i32` | |
//! | 6 | a CAS loop's counter (+1 a thread) | | |
//!
//! starting from [`ATOMIC_INIT_U32`], [`ATOMIC_INIT_I32`] and zeros; the global words are the
//! `atomics` buffer (`u32` words 0-15, `i32` 16-31, `f32` 32-47), which the host initializes.
//! The block's record: words 0-47 the shared words as the global ones, 48 the swizzled tensor's
//! shared address modulo 1024 (0).
//!
//! Math: thread `gid < MATH_N` computes [`MATH_FNS`] functions of `x = xs[gid]` (`y =
//! xs[(gid + 1) % MATH_N]`, `z = xs[(gid + 2) % MATH_N]`) into `math[MATH_N f + gid]`:
//! `ex2_approx(x)`, `exp_approx(x)`, `lg2_approx(x)`, `rcp_approx(x)`, `rcp(x)`,
//! `rsqrt_approx(x)`, `sqrt_approx(x)`, `sqrt(x)`, `tanh_approx(x)`, `div_approx(x, y)`, `fma(x,
//! y, z)`.
//!
//! The PTX entry point (raw device addresses, as `mma_probe`'s), in a kernel crate:
//!
//! ```no_run
//! # use const_layout_device::{Gmem, GmemMut, SmemRegion, static_shared};
//! const_layout_device::kernel! {
//!     /// The device layer's [`layer_probe`](const_layout_device::layer_probe::layer_probe):
//!     /// warp shuffles, votes and reductions, fast math, atomics, named barriers, a rank-3
//!     /// slice and a swizzled shared tensor, each written to `out`, `blocks`, `math` and
//!     /// `atomics` for `tools/gpu/layer_probe.py` to check. The launch: `BLOCKS` blocks of
//!     /// `THREADS` threads; `input` holds `TOTAL` words, `xs` `MATH_N` `f32`, `batch`
//!     /// `BATCH_WORDS` words, `out` `TOTAL * RECORD` words, `blocks` `BLOCKS * BLOCK_RECORD`
//!     /// words, `math` `MATH_FNS * MATH_N` `f32` and `atomics` `3 * 16` words initialized as
//!     /// the module says: 16-byte aligned device allocations, the outputs overlapping nothing.
//!     #[entry(LAYER_PROBE)]
//!     pub fn layer_probe(input: u64, xs: u64, batch: u64, out: u64, blocks: u64, math: u64, atomics: u64) {
//!         use const_layout_device::layer_probe as p;
//!         // SAFETY: the launch contract above: each address a live, 16-byte aligned allocation of
//!         // the given length, the inputs unwritten, the outputs (and the three disjoint, 64-byte
//!         // apart parts of `atomics`) overlapping nothing else.
//!         let (input, xs, batch, out, blocks, math, au, ai, af) = unsafe {
//!             (
//!                 Gmem::<u32>::from_raw(input, p::TOTAL),
//!                 Gmem::<f32>::from_raw(xs, p::MATH_N),
//!                 Gmem::<u32>::from_raw(batch, p::BATCH_WORDS),
//!                 GmemMut::<u32>::from_raw(out, p::TOTAL * p::RECORD),
//!                 GmemMut::<u32>::from_raw(blocks, p::BLOCKS as usize * p::BLOCK_RECORD),
//!                 GmemMut::<f32>::from_raw(math, p::MATH_FNS * p::MATH_N),
//!                 GmemMut::<u32>::from_raw(atomics, 16),
//!                 GmemMut::<i32>::from_raw(atomics + 64, 16),
//!                 GmemMut::<f32>::from_raw(atomics + 128, 16),
//!             )
//!         };
//!         let smem: SmemRegion = static_shared!(layer_probe_smem, const_layout_device::layer_probe::SMEM_BYTES);
//!         p::layer_probe(p::Inputs { input, xs, batch }, p::Outputs { out, blocks, math, au, ai, af }, smem)
//!     }
//! }
//! ```

use crate::math;
use crate::warp::{self, Max, Min, Sum};
use crate::{
    GlobalTensor, Gmem, GmemMut, NamedBarrier, SmemAllocator, SmemArray, SmemPlan, SmemRegion, Thread,
    block_dim, block_idx, fault, grid_dim, sync_threads,
};
use const_layout::algebra::computed::{StaticSwizzled, swizzle};
use const_layout::{C, layout_type, make_layout};

/// Blocks of the launch.
pub const BLOCKS: u32 = 4;
/// Threads a block.
pub const THREADS: u32 = 128;
/// Threads of the launch: the words of `input`, and the records of `out`.
pub const TOTAL: usize = (BLOCKS * THREADS) as usize;
/// The words each thread writes to `out`.
pub const RECORD: usize = 106;
/// Where a record's shuffles start (26 words).
pub const R_SHFL: usize = 0;
/// Where a record's votes start (4 words).
pub const R_VOTE: usize = 26;
/// Where a record's warp reductions start (54 words).
pub const R_REDUCE: usize = 30;
/// Where a record's block reductions start (4 words).
pub const R_BLOCK: usize = 84;
/// Where a record's named-barrier sums start (2 words).
pub const R_NAMED: usize = 88;
/// Where a record's atomics' old values start (6 words).
pub const R_ATOMIC: usize = 90;
/// Where a record's rank-3 slice reads start (2 words).
pub const R_SLICE: usize = 96;
/// Where a record's swizzled shared tensor reads start (8 words).
pub const R_SWIZZLE: usize = 98;
/// The words of a block's record in `blocks`.
pub const BLOCK_RECORD: usize = 64;
/// The shuffles' lane or offset operands (32 and 33: PTX reads their low 5 bits).
pub const SHFL_B: [u32; 6] = [0, 1, 7, 31, 32, 33];
/// The lane masks of the warp reductions.
pub const REDUCE_MASKS: [u32; 6] = [0x1f, 0b00001, 0b00110, 0b10101, 0b11000, 0b01111];
/// The atomic words of each type (of 16 in `atomics`' part and in shared memory).
pub const ATOMIC_WORDS: usize = 7;
/// The `u32` atomic words' initial values.
pub const ATOMIC_INIT_U32: [u32; ATOMIC_WORDS] = [0, 0, 0, u32::MAX, 0, 0, 0];
/// The `i32` atomic words' initial values.
pub const ATOMIC_INIT_I32: [i32; ATOMIC_WORDS] = [0, 0, i32::MIN, i32::MAX, 0, i32::MIN, 0];
/// The math inputs.
pub const MATH_N: usize = 256;
/// The math functions.
pub const MATH_FNS: usize = 11;
/// The words of `batch`: the cosize of `(6,5,3):(_1,8,44)`, rounded up to 4.
pub const BATCH_WORDS: usize = 128;

/// The 32x32 tile of the swizzled shared tensor, row-major.
type SwizzleTile = layout_type!((32, 32):(32, 1));
/// The swizzled shared tensor's layout: `Swizzle<3,2,3>` (16-byte chunks of 128-byte rows).
type Swizzled = StaticSwizzled<3, 2, 3, SwizzleTile>;

/// The shared memory the probe takes, in the order it takes it.
pub const SMEM_BYTES: u32 = SmemPlan::new()
    .array::<u32, 4>()
    .tensor::<u32, Swizzled>()
    .array::<u32, 32>()
    .array::<u32, 32>()
    .array::<u32, 16>()
    .array::<i32, 16>()
    .array::<f32, 16>()
    .array::<f32, 32>()
    .array::<u32, 32>()
    .array::<i32, 32>()
    .bytes();

/// The `f32` a word stands for in the reductions: `(w >> 16) - 32768` in 256ths, so that sums of
/// up to 2^14 of them are exact in any order.
#[inline(always)]
pub fn f32_of(w: u32) -> f32 {
    ((w >> 16) as i32 - 32768) as f32 * (1.0 / 256.0)
}

/// The value a word stands for in the CAS-loop maxima.
#[inline(always)]
pub const fn hash(w: u32) -> u32 {
    w.rotate_left(13) ^ 0x9e37_79b9
}

/// The probe's inputs.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// A word a thread ([`TOTAL`]).
    pub input: Gmem<'a, u32>,
    /// The math inputs ([`MATH_N`]).
    pub xs: Gmem<'a, f32>,
    /// The rank-3 tensor's words ([`BATCH_WORDS`]).
    pub batch: Gmem<'a, u32>,
}

/// The probe's outputs.
#[derive(Clone, Copy, Debug)]
pub struct Outputs<'a> {
    /// The threads' records ([`TOTAL`] `*` [`RECORD`]).
    pub out: GmemMut<'a, u32>,
    /// The blocks' records ([`BLOCKS`] `*` [`BLOCK_RECORD`]).
    pub blocks: GmemMut<'a, u32>,
    /// The math results ([`MATH_FNS`] `*` [`MATH_N`]).
    pub math: GmemMut<'a, f32>,
    /// The global `u32` atomic words (16, initialized to [`ATOMIC_INIT_U32`]).
    pub au: GmemMut<'a, u32>,
    /// The global `i32` atomic words (16, initialized to [`ATOMIC_INIT_I32`]).
    pub ai: GmemMut<'a, i32>,
    /// The global `f32` atomic words (16, zeros).
    pub af: GmemMut<'a, f32>,
}

/// A lock-free maximum by compare-and-swap: `cur` a value the word had (it only grows).
macro_rules! cas_max {
    ($mem:expr, $i:expr, $v:expr, $start:expr) => {{
        let (v, mut cur) = ($v, $start);
        while v > cur {
            let prev = $mem.atomic_cas($i, cur, v);
            if prev == cur {
                break;
            }
            cur = prev;
        }
    }};
}

/// A counter by compare-and-swap: this thread's ticket.
macro_rules! cas_ticket {
    ($mem:expr, $i:expr) => {{
        let mut cur = 0u32;
        loop {
            let prev = $mem.atomic_cas($i, cur, cur.wrapping_add(1));
            if prev == cur {
                break cur;
            }
            cur = prev;
        }
    }};
}

/// The probe (see the module): one thread's part.
#[inline(always)]
pub fn layer_probe(inputs: Inputs<'_>, outputs: Outputs<'_>, smem: SmemRegion) {
    let Inputs { input, xs, batch } = inputs;
    let Outputs { out, blocks, math: math_out, au, ai, af } = outputs;
    if input.len() < TOTAL
        || xs.len() < MATH_N
        || batch.len() < BATCH_WORDS
        || out.len() < TOTAL * RECORD
        || blocks.len() < BLOCKS as usize * BLOCK_RECORD
        || math_out.len() < MATH_FNS * MATH_N
        || au.len() < 16
        || ai.len() < 16
        || af.len() < 16
    {
        fault("layer_probe: a buffer is shorter than the module says");
    }
    let t = Thread::<{ THREADS as usize }>::index();
    let (g, d) = (grid_dim(), block_dim());
    if g.x != BLOCKS || g.y != 1 || g.z != 1 || d.x != THREADS {
        fault("layer_probe: BLOCKS blocks of THREADS threads");
    }
    let block = block_idx().x as usize;
    let (tid, lane) = (t.get(), t.lane() as u32);
    let gid = block * THREADS as usize + tid;
    let w = input.load(gid);
    let rec = |k: usize, v: u32| out.store(gid * RECORD + k, v);

    // Shared memory, in SMEM_BYTES's order.
    let mut alloc = SmemAllocator::new(smem);
    let _pad = alloc.array::<u32, 4>();
    let sw = alloc.tensor::<u32, _>(swizzle::<3, 2, 3, _>(SwizzleTile::default()));
    let (handoff_a, handoff_b) = (alloc.array::<u32, 32>(), alloc.array::<u32, 32>());
    let (su, si, sf) = (alloc.array::<u32, 16>(), alloc.array::<i32, 16>(), alloc.array::<f32, 16>());
    let (scratch_f, scratch_u, scratch_i) =
        (alloc.array::<f32, 32>(), alloc.array::<u32, 32>(), alloc.array::<i32, 32>());

    // Shuffles: every mode with each operand, then operands that vary by lane.
    // (Unrolled: a loop over the table would index it at run time, from local memory.)
    crate::unroll!(k in 0..6 => {
        let b = SHFL_B[k];
        rec(R_SHFL + k, warp::shfl_xor(w, b));
        rec(R_SHFL + 6 + k, warp::shfl_down(w, b));
        rec(R_SHFL + 12 + k, warp::shfl_up(w, b));
        rec(R_SHFL + 18 + k, warp::shfl_idx(w, b));
    });
    rec(R_SHFL + 24, warp::shfl_idx(w, (7 * lane + 3) % 32));
    rec(R_SHFL + 25, warp::shfl_xor(w, (5 * lane) % 32));

    // Votes.
    rec(R_VOTE, warp::ballot(w & 1 != 0));
    rec(R_VOTE + 1, warp::all(w & 15 != 0) as u32);
    rec(R_VOTE + 2, warp::any(w & 63 == 0) as u32);
    rec(R_VOTE + 3, warp::active_mask());

    // Warp reductions: each mask, op and type.
    let (wi, wf) = (w as i32, f32_of(w));
    macro_rules! reduce {
        ($($m:literal)*) => {$({
            const MASK: u32 = REDUCE_MASKS[$m];
            let at = R_REDUCE + 9 * $m;
            rec(at, warp::allreduce_lanes::<MASK, Sum, u32>(w));
            rec(at + 1, warp::allreduce_lanes::<MASK, Sum, i32>(wi) as u32);
            rec(at + 2, warp::allreduce_lanes::<MASK, Sum, f32>(wf).to_bits());
            rec(at + 3, warp::allreduce_lanes::<MASK, Max, u32>(w));
            rec(at + 4, warp::allreduce_lanes::<MASK, Max, i32>(wi) as u32);
            rec(at + 5, warp::allreduce_lanes::<MASK, Max, f32>(wf).to_bits());
            rec(at + 6, warp::allreduce_lanes::<MASK, Min, u32>(w));
            rec(at + 7, warp::allreduce_lanes::<MASK, Min, i32>(wi) as u32);
            rec(at + 8, warp::allreduce_lanes::<MASK, Min, f32>(wf).to_bits());
        })*};
    }
    reduce!(0 1 2 3 4 5);

    // Block reductions.
    rec(R_BLOCK, warp::block_allreduce::<Sum, f32, { THREADS as usize }>(t, wf, scratch_f).to_bits());
    rec(R_BLOCK + 1, warp::block_allreduce::<Sum, u32, { THREADS as usize }>(t, w, scratch_u));
    rec(R_BLOCK + 2, warp::block_allreduce::<Max, i32, { THREADS as usize }>(t, wi, scratch_i) as u32);
    rec(R_BLOCK + 3, warp::block_allreduce::<Min, u32, { THREADS as usize }>(t, w, scratch_u));

    // Named barriers: warp 0 produces for warps 1-3, warp 1 for warp 2.
    named_handoff(t.warp(), lane, w, handoff_a, handoff_b, |k, v| rec(R_NAMED + k, v));
    sync_threads();

    // Atomics: shared words initialized by thread 0, then every thread on them and on the global
    // words.
    if tid == 0 {
        for k in 0..16 {
            su.store(k, if k < ATOMIC_WORDS { ATOMIC_INIT_U32[k] } else { 0 });
            si.store(k, if k < ATOMIC_WORDS { ATOMIC_INIT_I32[k] } else { 0 });
            sf.store(k, 0.0);
        }
    }
    sync_threads();
    let h = hash(w);
    let (f0, f1) = ((w >> 24) as f32 * 0.25, ((w >> 16) & 0xff) as f32 * 0.5);
    macro_rules! atomics {
        ($u:expr, $i:expr, $f:expr, $id:expr, $old:expr) => {{
            let id = $id as u32;
            $u.atomic_add(0, w & 0xffff);
            $u.red_add(1, w & 0xff);
            $u.atomic_max(2, w);
            $u.atomic_min(3, w);
            rec($old, $u.atomic_exch(4, id + 1));
            cas_max!($u, 5, h, ATOMIC_INIT_U32[5]);
            $i.atomic_add(0, wi >> 16);
            $i.red_add(1, wi >> 20);
            $i.atomic_max(2, wi);
            $i.atomic_min(3, wi);
            cas_max!($i, 5, h as i32, ATOMIC_INIT_I32[5]);
            $f.atomic_add(0, f0);
            $f.red_add(1, f1);
            rec($old + 1, cas_ticket!($u, 6));
            rec($old + 2, $i.atomic_exch(4, -(id as i32 + 1)) as u32);
        }};
    }
    atomics!(au, ai, af, gid, R_ATOMIC);
    atomics!(su, si, sf, tid, R_ATOMIC + 3);
    sync_threads();
    let brec = |k: usize, v: u32| blocks.store(block * BLOCK_RECORD + k, v);
    if tid == 0 {
        for k in 0..16 {
            brec(k, su.load(k));
            brec(16 + k, si.load(k) as u32);
            brec(32 + k, sf.load(k).to_bits());
        }
        brec(48, sw.address((0u32, 0u32)) % 1024);
    }

    // The swizzled shared tensor: written at every coordinate, read back transposed.
    for k in 0..8 {
        let e = (tid + THREADS as usize * k) as u32;
        sw.store((e / 32, e % 32), (block as u32) << 16 | e);
    }
    sync_threads();
    for k in 0..8 {
        let e = (tid + THREADS as usize * k) as u32;
        rec(R_SWIZZLE + k, sw.load((e % 32, e / 32)));
    }

    // A rank-3 tensor's slices.
    let Some(batch3) =
        GlobalTensor::new(batch, make_layout((6u32, 5u32, 3u32), (C::<1>, 8u32, 44u32)).unwrap())
    else {
        fault("layer_probe: batch is shorter than its layout");
    };
    let (i, j, k) = ((gid % 6) as u32, (gid / 6 % 5) as u32, (gid / 30) as u32);
    rec(R_SLICE, batch3.slice_last(k).and_then(|m| m.load([i, j])).unwrap_or(u32::MAX));
    rec(R_SLICE + 1, batch3.slice_first(i).and_then(|m| m.load([j, k])).unwrap_or(u32::MAX));

    // Math.
    if gid < MATH_N {
        let (x, y, z) = (xs.load(gid), xs.load((gid + 1) % MATH_N), xs.load((gid + 2) % MATH_N));
        let results = [
            math::ex2_approx(x),
            math::exp_approx(x),
            math::lg2_approx(x),
            math::rcp_approx(x),
            math::rcp(x),
            math::rsqrt_approx(x),
            math::sqrt_approx(x),
            math::sqrt(x),
            math::tanh_approx(x),
            math::div_approx(x, y),
            math::fma(x, y, z),
        ];
        for (f, r) in results.into_iter().enumerate() {
            math_out.store(MATH_N * f + gid, r);
        }
    }
}

/// The named-barrier handoff of the module's description; `rec(k, v)` records word `k`.
#[inline(always)]
fn named_handoff(
    warp: usize,
    lane: u32,
    w: u32,
    a: SmemArray<u32, 32>,
    b: SmemArray<u32, 32>,
    rec: impl Fn(usize, u32),
) {
    let full_a = NamedBarrier::<1, 128>::new();
    let full_b = NamedBarrier::<2, 64>::new();
    let sum = |s: SmemArray<u32, 32>| (0..32).fold(0u32, |acc, k| acc.wrapping_add(s.load(k)));
    if warp == 0 {
        a.store(lane as usize, w.wrapping_mul(3).wrapping_add(1));
        full_a.arrive();
        rec(0, 0);
        rec(1, 0);
        return;
    }
    full_a.sync();
    rec(0, sum(a));
    match warp {
        1 => {
            b.store(lane as usize, a.load(lane as usize) ^ w);
            full_b.arrive();
            rec(1, 0);
        }
        2 => {
            full_b.sync();
            rec(1, sum(b));
        }
        _ => rec(1, 0),
    }
}
