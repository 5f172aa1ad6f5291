//! The PTX backend (nvptx64): every instruction the device layer is made of, as inline PTX or a
//! `core::arch::nvptx` intrinsic, `#[inline(always)]`. With the launcher's FFI, this is the only
//! place where `unsafe` code touches the hardware: each block says why it is sound.
//!
//! The crate chooses this module or the CPU emulator (`backend/emu`) once, in `lib.rs`; both
//! define the same crate-private functions and types (the backend contract, listed in `lib.rs`),
//! and everything else in the crate is written once, above them. Functions that take an address
//! are `unsafe fn`s in both backends: here their contract is what makes the instruction sound;
//! the emulator checks it instead, so `cargo test` reports a broken proof as a fault.
//!
//! Memory instructions are inline assembly rather than Rust loads and stores: they name the
//! state space (`ld.shared` with a 32-bit address compiles to `LDS`, where a generic pointer
//! would give `LD.E`), their width (a 128-bit vector is one instruction, not a hope), and they
//! are opaque to Rust's memory model, so threads of a block sharing memory between barriers is
//! the hardware's model (PTX's), not a data race in Rust's. Loads are `pure, readonly`: the
//! optimizer may drop an unused one or merge two identical ones, but not move one across a
//! barrier or a store, which are ordinary (memory-clobbering) assembly.

mod warp;

use crate::types::{Dim3, HalfKind};
use core::arch::asm;

// The launch's dynamic shared memory: one array, sized by the launch (`%dynamic_smem_size`).
core::arch::global_asm!(".extern .shared .align 16 .b8 const_layout_dynamic_smem[];");

// The fault: `trap` in a function of its own, reached by `call`. A `trap` inline in a loop that
// issues `wgmma` under `setmaxnreg` makes ptxas serialize every `wgmma` of the loop (C7512) and
// keep the warpgroup's code within the launch's register count (168 for 384 threads) instead of
// its `setmaxnreg` budget; called, it does neither (measured with ptxas 13.0: attention's head dim
// 128 from 165 registers and serialized to 222 and pipelined). A plain returning `.func`: a
// `.noreturn` one brings the serialization back. The builder's check allows this one call.
core::arch::global_asm!(".func const_layout_trap()\n{{\n\ttrap;\n\tret;\n}}");

/// `%tid.x`, `%tid.y`, `%tid.z`.
#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    // SAFETY: reading special registers has no effect and no precondition.
    unsafe {
        Dim3 {
            x: core::arch::nvptx::_thread_idx_x() as u32,
            y: core::arch::nvptx::_thread_idx_y() as u32,
            z: core::arch::nvptx::_thread_idx_z() as u32,
        }
    }
}

/// `%ctaid.x`, `%ctaid.y`, `%ctaid.z`.
#[inline(always)]
pub(crate) fn block_idx() -> Dim3 {
    // SAFETY: as in `thread_idx`.
    unsafe {
        Dim3 {
            x: core::arch::nvptx::_block_idx_x() as u32,
            y: core::arch::nvptx::_block_idx_y() as u32,
            z: core::arch::nvptx::_block_idx_z() as u32,
        }
    }
}

/// `%globaltimer`: not `pure`, so that two reads are two instructions where the source has them.
#[inline(always)]
pub(crate) fn globaltimer() -> u64 {
    let r: u64;
    // SAFETY: reading a special register has no effect and no precondition.
    unsafe { asm!("mov.u64 {r}, %globaltimer;", r = out(reg64) r, options(nomem, nostack)) };
    r
}

/// `%smid`: not `pure`, as `globaltimer`.
#[inline(always)]
pub(crate) fn smid() -> u32 {
    let r: u32;
    // SAFETY: reading a special register has no effect and no precondition.
    unsafe { asm!("mov.u32 {r}, %smid;", r = out(reg32) r, options(nomem, nostack)) };
    r
}

/// `%ntid.x`, `%ntid.y`, `%ntid.z`.
#[inline(always)]
pub(crate) fn block_dim() -> Dim3 {
    // SAFETY: as in `thread_idx`.
    unsafe {
        Dim3 {
            x: core::arch::nvptx::_block_dim_x() as u32,
            y: core::arch::nvptx::_block_dim_y() as u32,
            z: core::arch::nvptx::_block_dim_z() as u32,
        }
    }
}

/// `%nctaid.x`, `%nctaid.y`, `%nctaid.z`.
#[inline(always)]
pub(crate) fn grid_dim() -> Dim3 {
    // SAFETY: as in `thread_idx`.
    unsafe {
        Dim3 {
            x: core::arch::nvptx::_grid_dim_x() as u32,
            y: core::arch::nvptx::_grid_dim_y() as u32,
            z: core::arch::nvptx::_grid_dim_z() as u32,
        }
    }
}

/// `bar.sync 0`: CUDA's `__syncthreads()`.
#[inline(always)]
pub(crate) fn sync_threads() {
    // SAFETY: a barrier has no memory precondition; every thread of the block reaching it (or
    // having exited) is the kernel's contract, as in CUDA.
    unsafe { core::arch::nvptx::_syncthreads() }
}

/// `trap`: ends the kernel with an error the host sees at its next synchronization. What every
/// failed check of the device layer calls (`what` is for the emulator's message).
#[inline(always)]
pub(crate) fn fault(what: &'static str) -> ! {
    let _ = what;
    trap()
}

/// `trap`, out of line (`call const_layout_trap`, see its declaration above), then `exit` for the
/// compiler (the call does not return: the trap ends the launch).
#[inline(always)]
fn trap() -> ! {
    // SAFETY: `const_layout_trap` traps, which aborts the launch; nothing runs after it.
    unsafe { asm!("call const_layout_trap;", "exit;", options(noreturn, nostack)) }
}

/// The launch's dynamic shared memory: its 32-bit shared address and its size in bytes.
#[inline(always)]
pub(crate) fn dynamic_smem() -> (u32, u32) {
    (dynamic_smem_base(), dynamic_smem_size())
}

/// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch asked for.
#[inline(always)]
fn dynamic_smem_size() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {r}, %dynamic_smem_size;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// The 32-bit shared address of the dynamic shared memory.
#[inline(always)]
fn dynamic_smem_base() -> u32 {
    let r: u32;
    // SAFETY: takes the address of a symbol; no memory is accessed.
    unsafe {
        asm!("mov.u32 {r}, const_layout_dynamic_smem;", r = out(reg32) r, options(pure, nomem, nostack))
    };
    r
}

/// `cvta.to.global`: the global address of a generic one (the identity on current GPUs, but
/// PTX does not promise it).
#[inline(always)]
fn to_global(generic: u64) -> u64 {
    let r: u64;
    // SAFETY: an address conversion; no memory is accessed.
    unsafe {
        asm!("cvta.to.global.u64 {r}, {a};", r = out(reg64) r, a = in(reg64) generic, options(pure, nomem, nostack))
    };
    r
}

macro_rules! loads {
    ($($(#[$doc:meta])* $vis:vis $name:ident $name4:ident: $ins:literal $ins4:literal $space:ident $reg:ident;)*) => {$(
        $(#[$doc])*
        /// # Safety
        /// `addr` is a 4-byte aligned address of 4 readable bytes in the state space.
        #[inline(always)]
        $vis unsafe fn $name(addr: $space) -> u32 {
            let r: u32;
            // SAFETY: the caller's contract.
            unsafe { asm!($ins, r = out(reg32) r, a = in($reg) addr, options(pure, readonly, nostack)) };
            r
        }
        $(#[$doc])*
        /// 128 bits at once.
        ///
        /// # Safety
        /// `addr` is a 16-byte aligned address of 16 readable bytes in the state space.
        #[inline(always)]
        $vis unsafe fn $name4(addr: $space) -> [u32; 4] {
            let (a, b, c, d): (u32, u32, u32, u32);
            // SAFETY: the caller's contract.
            unsafe {
                asm!($ins4, r0 = out(reg32) a, r1 = out(reg32) b, r2 = out(reg32) c, r3 = out(reg32) d,
                     a = in($reg) addr, options(pure, readonly, nostack))
            };
            [a, b, c, d]
        }
    )*};
}

loads! {
    /// `ld.shared.b32`: a load from shared memory by its 32-bit address.
    pub(crate) ld_shared ld_shared4: "ld.shared.b32 {r}, [{a}];" "ld.shared.v4.b32 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];" u32 reg32;
    /// `ld.global.b32`: a load from global memory.
    ld_global ld_global4: "ld.global.b32 {r}, [{a}];" "ld.global.v4.b32 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];" u64 reg64;
    /// `ld.global.nc.b32`: a load from global memory that no thread writes during the kernel,
    /// through the read-only (non-coherent) path.
    ld_global_nc ld_global_nc4: "ld.global.nc.b32 {r}, [{a}];" "ld.global.nc.v4.b32 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];" u64 reg64;
}

/// `ld.shared.v2.b32`: 64 bits from shared memory by its 32-bit address (`LDS.64`).
///
/// # Safety
/// `addr` is an 8-byte aligned shared address of 8 readable bytes.
#[inline(always)]
pub(crate) unsafe fn ld_shared2(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: the caller's contract.
    unsafe {
        asm!("ld.shared.v2.b32 {{{r0}, {r1}}}, [{a}];", r0 = out(reg32) a, r1 = out(reg32) b, a = in(reg32) addr,
             options(pure, readonly, nostack))
    };
    [a, b]
}

macro_rules! stores {
    ($($(#[$doc:meta])* $vis:vis $name:ident $name4:ident: $ins:literal $ins4:literal $space:ident $reg:ident;)*) => {$(
        $(#[$doc])*
        /// # Safety
        /// `addr` is a 4-byte aligned address of 4 writable bytes in the state space.
        #[inline(always)]
        $vis unsafe fn $name(addr: $space, v: u32) {
            // SAFETY: the caller's contract.
            unsafe { asm!($ins, a = in($reg) addr, v = in(reg32) v, options(nostack)) };
        }
        $(#[$doc])*
        /// 128 bits at once.
        ///
        /// # Safety
        /// `addr` is a 16-byte aligned address of 16 writable bytes in the state space.
        #[inline(always)]
        $vis unsafe fn $name4(addr: $space, v: [u32; 4]) {
            // SAFETY: the caller's contract.
            unsafe {
                asm!($ins4, a = in($reg) addr, v0 = in(reg32) v[0], v1 = in(reg32) v[1], v2 = in(reg32) v[2],
                     v3 = in(reg32) v[3], options(nostack))
            };
        }
    )*};
}

stores! {
    /// `st.shared.b32`: a store to shared memory by its 32-bit address.
    pub(crate) st_shared st_shared4: "st.shared.b32 [{a}], {v};" "st.shared.v4.b32 [{a}], {{{v0}, {v1}, {v2}, {v3}}};" u32 reg32;
    /// `st.global.b32`: a store to global memory.
    st_global st_global4: "st.global.b32 [{a}], {v};" "st.global.v4.b32 [{a}], {{{v0}, {v1}, {v2}, {v3}}};" u64 reg64;
}

/// `cp.async.ca.shared.global` of 4 bytes: an asynchronous copy from global to shared memory,
/// zero-filled when `src_bytes` is 0 (CuTe's `SM80_CP_ASYNC_CACHEALWAYS_ZFILL`).
///
/// # Safety
/// `dst` is a 4-byte aligned shared address of 4 writable bytes; `src` a 4-byte aligned global
/// address of 4 readable bytes when `src_bytes` is 4 (it is not read when 0).
#[inline(always)]
unsafe fn cp_async4(dst: u32, src: u64, src_bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("cp.async.ca.shared.global [{d}], [{s}], 4, {n};", d = in(reg32) dst, s = in(reg64) src,
             n = in(reg32) src_bytes, options(nostack))
    };
}

/// `cp.async.{ca,cg}.shared.global` of 16 bytes (`ca`: through L1, CuTe's
/// `SM80_CP_ASYNC_CACHEALWAYS`; `cg`: bypassing it, `SM80_CP_ASYNC_CACHEGLOBAL`), zero-filled when
/// `src_bytes` is 0.
///
/// # Safety
/// `dst` is a 16-byte aligned shared address of 16 writable bytes; `src` a 16-byte aligned
/// global address of 16 readable bytes when `src_bytes` is 16 (not read when 0).
#[inline(always)]
unsafe fn cp_async16(dst: u32, src: u64, src_bytes: u32, cache_always: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        if cache_always {
            asm!("cp.async.ca.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst, s = in(reg64) src,
                 n = in(reg32) src_bytes, options(nostack))
        } else {
            asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst, s = in(reg64) src,
                 n = in(reg32) src_bytes, options(nostack))
        }
    };
}

/// `cp.async.commit_group`.
#[inline(always)]
pub(crate) fn cp_async_commit() {
    // SAFETY: groups the thread's outstanding copies; no memory precondition.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) };
}

/// `cp.async.wait_group N`: wait until at most `N` of the thread's committed groups are pending.
#[inline(always)]
pub(crate) fn cp_async_wait<const N: u32>() {
    // SAFETY: waits; no memory precondition. Memory-clobbering, so no load moves above it.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
}

/// The check that makes a warp-collective instruction safe, written before it in the same `asm!`
/// block (so nothing can branch in between): `activemask` is the set of lanes executing this very
/// instruction together; unless it is all 32, the lane traps (the kernel ends with an error, as
/// [`trap`] does) instead of executing a `.sync.aligned` instruction in a diverged warp, which
/// PTX leaves undefined. Three instructions.
macro_rules! converged {
    ($ins:expr) => {
        concat!(
            "{{ .reg .b32 cl_mask; .reg .pred cl_diverged; activemask.b32 cl_mask; ",
            "setp.ne.b32 cl_diverged, cl_mask, 0xffffffff; @cl_diverged call const_layout_trap; ",
            $ins,
            " }}"
        )
    };
}
pub(crate) use converged;

/// [`converged!`] with the `trap` inline instead of a `call`, for `wgmma.wait_group`: a `call`
/// there (never taken) cost FlashAttention's forward 4% to 10% on the H200 (ptxas schedules
/// around it, with `wgmma`s in flight), the inline `trap` does not.
macro_rules! converged_inline {
    ($ins:expr) => {
        concat!(
            "{{ .reg .b32 cl_mask; .reg .pred cl_diverged; activemask.b32 cl_mask; ",
            "setp.ne.b32 cl_diverged, cl_mask, 0xffffffff; @cl_diverged trap; ",
            $ins,
            " }}"
        )
    };
}
pub(crate) use converged_inline;

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8x8 matrices of 16-bit elements, each row's
/// 16 bytes at the address lane `8 * matrix + row` gives. A lane of a diverged warp traps
/// ([`converged!`]).
///
/// # Safety
/// Each lane's `addr` is a 16-byte aligned shared address of 16 readable bytes.
#[inline(always)]
unsafe fn ldmatrix_x4(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: the caller's contract (the address); the warp is converged or the lane traps first.
    unsafe {
        asm!(converged!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];"),
             r0 = out(reg32) a, r1 = out(reg32) b, r2 = out(reg32) c, r3 = out(reg32) d, a = in(reg32) addr,
             options(readonly, nostack))
    };
    [a, b, c, d]
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: as [`ldmatrix_x4`], each matrix transposed.
///
/// # Safety
/// As [`ldmatrix_x4`].
#[inline(always)]
unsafe fn ldmatrix_x4_trans(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: as in `ldmatrix_x4`.
    unsafe {
        asm!(converged!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];"),
             r0 = out(reg32) a, r1 = out(reg32) b, r2 = out(reg32) c, r3 = out(reg32) d, a = in(reg32) addr,
             options(readonly, nostack))
    };
    [a, b, c, d]
}

/// `fma.rn.f32`: `a * b + c` rounded once (Rust does not contract `a * b + c` into one
/// instruction, and `f32::mul_add` is not in `core`).
#[inline(always)]
pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
    let d: f32;
    // SAFETY: arithmetic on registers; no memory is accessed.
    unsafe {
        asm!("fma.rn.f32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
             options(pure, nomem, nostack))
    };
    d
}

/// `mul.wide.u32` and `add.s64`: an address plus the 64-bit product of two 32-bit factors (in
/// bytes), opaque to the optimizer; `ptxas` makes the pair one `IMAD.WIDE.U32`. A tile's origin
/// address is computed once this way and stays in a register, so that each access adds its offset
/// to it. Left to itself, the optimizer folds the origin's offset into every access's arithmetic,
/// and turns products of constant multiples of one stride into 64-bit shifts, masks and chains of
/// 64-bit adds (two instructions each); a `mad.wide.u32` is split by `ptxas` into four.
#[inline(always)]
fn mul_add_address(addr: u64, a: u32, b: u32) -> u64 {
    let r: u64;
    // SAFETY: arithmetic on registers; no memory is accessed.
    unsafe {
        asm!("{{ .reg .b64 t; mul.wide.u32 t, {a}, {b}; add.s64 {r}, {c}, t; }}",
             r = out(reg64) r, a = in(reg32) a, b = in(reg32) b, c = in(reg64) addr, options(pure, nomem, nostack))
    };
    r
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` (`bf16`: `.bf16.bf16`): the warp's 16x8
/// tile `D = A B + C` from its fragments (CuTe's `SM80_16x8x16_F32F16F16F32_TN` layouts). A lane of
/// a diverged warp traps ([`converged!`]).
#[inline(always)]
fn mma_m16n8k16_f32(a: [u32; 4], b: [u32; 2], c: [f32; 4], bf16: bool) -> [f32; 4] {
    let (d0, d1, d2, d3): (f32, f32, f32, f32);
    macro_rules! mma {
        ($ins:literal) => {
            // SAFETY: register operands only; the warp is converged or the lane traps first.
            unsafe {
                asm!(converged!($ins),
                     d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                     a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                     b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                     c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                     options(nomem, nostack))
            }
        };
    }
    if bf16 {
        mma!(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"
        );
    } else {
        mma!(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"
        );
    }
    [d0, d1, d2, d3]
}

/// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`: as [`mma_m16n8k16_f32`] with `f16`
/// accumulators, two to a register (CuTe's `SM80_16x8x16_F16F16F16F16_TN`).
#[inline(always)]
fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [u32; 2]) -> [u32; 2] {
    let (d0, d1): (u32, u32);
    // SAFETY: register operands only; the warp is converged or the lane traps first.
    unsafe {
        asm!(converged!("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{{d0}, {d1}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}}};"),
             d0 = out(reg32) d0, d1 = out(reg32) d1,
             a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
             b0 = in(reg32) b[0], b1 = in(reg32) b[1], c0 = in(reg32) c[0], c1 = in(reg32) c[1],
             options(nomem, nostack))
    };
    [d0, d1]
}

/// `cvt.rn.{f16,bf16}x2.f32`: two `f32` rounded to nearest even and packed, `lo` in the low half.
#[inline(always)]
fn cvt_pack_half2(lo: f32, hi: f32, bf16: bool) -> u32 {
    let d: u32;
    // SAFETY: arithmetic on registers; no memory is accessed.
    unsafe {
        if bf16 {
            asm!("cvt.rn.bf16x2.f32 {d}, {hi}, {lo};", d = out(reg32) d, hi = in(reg32) hi, lo = in(reg32) lo,
                 options(pure, nomem, nostack))
        } else {
            asm!("cvt.rn.f16x2.f32 {d}, {hi}, {lo};", d = out(reg32) d, hi = in(reg32) hi, lo = in(reg32) lo,
                 options(pure, nomem, nostack))
        }
    };
    d
}

/// The two 16-bit values of a word as `f32` (exact), low half first: `cvt.f32.f16` (`bf16`: a
/// shift, as a `bf16` is the high half of an `f32`).
#[inline(always)]
fn cvt_unpack_half2(w: u32, bf16: bool) -> [f32; 2] {
    if bf16 {
        return [f32::from_bits(w << 16), f32::from_bits(w & 0xffff_0000)];
    }
    let (lo, hi): (f32, f32);
    // SAFETY: arithmetic on registers; no memory is accessed.
    unsafe {
        asm!("{{ .reg .b16 l, h; mov.b32 {{l, h}}, {w}; cvt.f32.f16 {lo}, l; cvt.f32.f16 {hi}, h; }}",
             w = in(reg32) w, lo = out(reg32) lo, hi = out(reg32) hi, options(pure, nomem, nostack))
    };
    [lo, hi]
}

/// `fence.proxy.async.shared::cta`: this thread's generic-proxy writes to shared memory become
/// visible to the async proxy (`wgmma` operands read from shared memory, TMA). Before a barrier
/// that precedes the asynchronous reads.
#[inline(always)]
pub(crate) fn fence_proxy_async_shared() {
    // SAFETY: a fence; no memory precondition. Memory-clobbering, so no store moves below it.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
}

/// Four `wgmma.mma_async.sync.aligned.m64n64k16.f32.{f16,bf16}` (`D += A B^T`, `A` and `B` from
/// shared memory by their descriptors, both K-major), in one block with the fence before them and
/// the commit and the wait after: synchronous as far as the compiler sees, so the accumulators are
/// never touched while the tensor cores write them. The warp is checked converged first
/// ([`converged!`]).
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together (the check covers the warp, not the
/// warpgroup), and each descriptor describes a canonical `wgmma` operand inside the block's shared
/// memory, written before a barrier after [`fence_proxy_async_shared`].
#[inline(always)]
unsafe fn wgmma_m64n64k16_f32_ss_x4(a: [u64; 4], b: [u64; 4], d: &mut [f32; 32], bf16: bool) {
    macro_rules! wgmma {
        ($ty:literal) => {
            concat!(
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.", $ty, ".", $ty, " ",
                "{{{d0}, {d1}, {d2}, {d3}, {d4}, {d5}, {d6}, {d7}, {d8}, {d9}, {d10}, {d11}, {d12}, {d13}, {d14}, {d15}, ",
                "{d16}, {d17}, {d18}, {d19}, {d20}, {d21}, {d22}, {d23}, {d24}, {d25}, {d26}, {d27}, {d28}, {d29}, {d30}, {d31}}}, "
            )
        };
    }
    macro_rules! block {
        ($ty:literal) => {
            concat!(
                // scale-d is a predicate: true, D += A B^T.
                "{{ .reg .pred sd; .reg .b32 one; mov.b32 one, 1; setp.ne.b32 sd, one, 0; ",
                "wgmma.fence.sync.aligned; ",
                wgmma!($ty),
                "{a0}, {b0}, sd, 1, 1, 0, 0; ",
                wgmma!($ty),
                "{a1}, {b1}, sd, 1, 1, 0, 0; ",
                wgmma!($ty),
                "{a2}, {b2}, sd, 1, 1, 0, 0; ",
                wgmma!($ty),
                "{a3}, {b3}, sd, 1, 1, 0, 0; ",
                "wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }}"
            )
        };
    }
    macro_rules! run {
        ($ty:literal) => {
            // SAFETY: the caller's contract (the warpgroup, the descriptors); the warp is
            // converged or the lane traps first.
            unsafe {
                asm!(converged!(block!($ty)),
                     a0 = in(reg64) a[0], a1 = in(reg64) a[1], a2 = in(reg64) a[2], a3 = in(reg64) a[3],
                     b0 = in(reg64) b[0], b1 = in(reg64) b[1], b2 = in(reg64) b[2], b3 = in(reg64) b[3],
                     d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2], d3 = inout(reg32) d[3],
                     d4 = inout(reg32) d[4], d5 = inout(reg32) d[5], d6 = inout(reg32) d[6], d7 = inout(reg32) d[7],
                     d8 = inout(reg32) d[8], d9 = inout(reg32) d[9], d10 = inout(reg32) d[10], d11 = inout(reg32) d[11],
                     d12 = inout(reg32) d[12], d13 = inout(reg32) d[13], d14 = inout(reg32) d[14], d15 = inout(reg32) d[15],
                     d16 = inout(reg32) d[16], d17 = inout(reg32) d[17], d18 = inout(reg32) d[18], d19 = inout(reg32) d[19],
                     d20 = inout(reg32) d[20], d21 = inout(reg32) d[21], d22 = inout(reg32) d[22], d23 = inout(reg32) d[23],
                     d24 = inout(reg32) d[24], d25 = inout(reg32) d[25], d26 = inout(reg32) d[26], d27 = inout(reg32) d[27],
                     d28 = inout(reg32) d[28], d29 = inout(reg32) d[29], d30 = inout(reg32) d[30], d31 = inout(reg32) d[31],
                     options(readonly, nostack))
            }
        };
    }
    if bf16 {
        run!("bf16");
    } else {
        run!("f16");
    }
}

/// `mbarrier.init.shared::cta.b64`, then `fence.mbarrier_init.release.cluster` (the init visible
/// to the async proxy): an mbarrier at shared address `addr` expecting `count` arrivals a phase.
///
/// # Safety
/// `addr` is an 8-byte aligned shared address of 8 bytes no thread uses as anything else, and no
/// thread uses the mbarrier before a barrier after this call.
#[inline(always)]
pub(crate) unsafe fn mbarrier_init(addr: u32, count: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.init.shared::cta.b64 [{a}], {n}; fence.mbarrier_init.release.cluster;",
             a = in(reg32) addr, n = in(reg32) count, options(nostack))
    };
}

/// `mbarrier.arrive.shared::cta.b64`: this thread arrives (release: its reads and writes before it
/// happen before the phase completes).
///
/// # Safety
/// `addr` is an initialized mbarrier ([`mbarrier_init`]).
#[inline(always)]
pub(crate) unsafe fn mbarrier_arrive(addr: u32) {
    // SAFETY: the caller's contract.
    unsafe { asm!("mbarrier.arrive.shared::cta.b64 _, [{a}];", a = in(reg32) addr, options(nostack)) };
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64`: this thread arrives and the phase also waits for
/// `bytes` bytes of asynchronous copies to complete on the mbarrier.
///
/// # Safety
/// `addr` is an initialized mbarrier ([`mbarrier_init`]).
#[inline(always)]
pub(crate) unsafe fn mbarrier_arrive_expect_tx(addr: u32, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{a}], {n};", a = in(reg32) addr, n = in(reg32) bytes,
             options(nostack))
    };
}

/// `mbarrier.try_wait.parity.shared::cta.b64`: whether the phase of parity `parity` completed
/// (the hardware suspends the thread a while before answering no).
///
/// # Safety
/// `addr` is an initialized mbarrier ([`mbarrier_init`]).
#[inline(always)]
unsafe fn mbarrier_try_wait_parity(addr: u32, parity: u32) -> bool {
    let done: u32;
    // SAFETY: the caller's contract. Memory-clobbering (acquire): reads after it see the phase's
    // writes, the asynchronous copies' included.
    unsafe {
        asm!("{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{a}], {q}; selp.u32 {d}, 1, 0, p; }}",
             a = in(reg32) addr, q = in(reg32) parity, d = out(reg32) done, options(nostack))
    };
    done != 0
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`: TMA loads the
/// box at element coordinates `(c0, c1)` (innermost first) of the tensor map at global address
/// `tmap` to shared address `dst`, completing its bytes on the mbarrier at `mbar`.
///
/// # Safety
/// `tmap` is the global address of a valid 64-byte aligned `CUtensorMap`, written before the
/// launch, whose tensor is alive and readable; `dst` is a shared address aligned as its swizzle
/// needs, with the box's bytes inside the block's shared memory; `mbar` an initialized mbarrier.
#[inline(always)]
unsafe fn tma_load_2d_raw(dst: u32, tmap: u64, c0: i32, c1: i32, mbar: u32) {
    // SAFETY: the caller's contract. A map written by the host before the launch needs no
    // `fence.proxy.tensormap` (one written on the device would).
    unsafe {
        asm!("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{t}, {{{x}, {y}}}], [{m}];",
             d = in(reg32) dst, t = in(reg64) tmap, x = in(reg32) c0, y = in(reg32) c1, m = in(reg32) mbar,
             options(nostack))
    };
}

/// `bar.sync id, threads`: a named barrier among `threads` threads (a warpgroup's 128 for its
/// collective `wgmma`), whole warps.
#[inline(always)]
pub(crate) fn named_barrier(id: u32, threads: u32) {
    // SAFETY: a barrier; no memory precondition. A thread count other than the warps that arrive
    // waits forever rather than corrupting anything. Memory-clobbering.
    unsafe { asm!("bar.sync {i}, {n};", i = in(reg32) id, n = in(reg32) threads, options(nostack)) };
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 N`: the warpgroup's threads may use `N` registers from
/// here on (CUTLASS's `warpgroup_reg_alloc` / `_dealloc`: a producer warpgroup gives registers to
/// the consumers). The warp is checked converged first ([`converged!`]).
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together; `N` is a multiple of 8 from 24 to
/// 256, and the block's warpgroups' counts fit the register file.
#[inline(always)]
pub(crate) unsafe fn setmaxnreg<const N: u32, const INC: bool>() {
    // SAFETY: the caller's contract; the warp is converged or the lane traps first.
    unsafe {
        if INC {
            asm!(converged!("setmaxnreg.inc.sync.aligned.u32 {n};"), n = const N, options(nostack));
        } else {
            asm!(converged!("setmaxnreg.dec.sync.aligned.u32 {n};"), n = const N, options(nostack));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The backend contract: what the layer above calls, with the emulator's signatures.

/// Where a warp-collective instruction was called from: nothing on the GPU (the hardware checks
/// convergence itself), a source location in the emulator.
pub(crate) type Site = ();

/// The caller's [`Site`].
#[inline(always)]
pub(crate) fn site() -> Site {}

/// An element pointer into global memory: a global address (a [`Gmem`](crate::Gmem) view's base).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalPtr<'a> {
    addr: u64,
    life: core::marker::PhantomData<&'a [u32]>,
}

impl<'a> GlobalPtr<'a> {
    /// The pointer for a kernel parameter's generic address.
    ///
    /// # Safety
    /// For the whole kernel, `addr` is a 16-byte aligned address of `len` 32-bit elements of
    /// device global memory that stay allocated.
    #[inline(always)]
    pub(crate) unsafe fn from_address(addr: u64, len: usize) -> Self {
        let _ = len;
        GlobalPtr { addr: to_global(addr), life: core::marker::PhantomData }
    }

    /// The address of element `i`.
    #[inline(always)]
    fn at(self, i: usize) -> u64 {
        self.addr.wrapping_add(4 * i as u64)
    }

    /// Whether the pointer is 16-byte aligned.
    #[inline(always)]
    pub(crate) fn is_aligned16(self) -> bool {
        self.addr.is_multiple_of(16)
    }

    /// Element `i` (`ld.global`).
    ///
    /// # Safety
    /// Element `i` is inside the allocation.
    #[inline(always)]
    pub(crate) unsafe fn load(self, i: usize) -> u32 {
        // SAFETY: the caller's contract; elements are 4 bytes and the base 16-byte aligned.
        unsafe { ld_global(self.at(i)) }
    }

    /// Element `i` through the read-only path (`ld.global.nc`).
    ///
    /// # Safety
    /// As [`GlobalPtr::load`], and no thread writes the allocation during the kernel.
    #[inline(always)]
    pub(crate) unsafe fn load_nc(self, i: usize) -> u32 {
        // SAFETY: the caller's contract.
        unsafe { ld_global_nc(self.at(i)) }
    }

    /// Elements `i..i + 4` in one 128-bit load.
    ///
    /// # Safety
    /// `i % 4 == 0` and the 4 elements are inside the allocation.
    #[inline(always)]
    pub(crate) unsafe fn load4(self, i: usize) -> [u32; 4] {
        // SAFETY: the caller's contract; with the 16-byte aligned base the address is aligned.
        unsafe { ld_global4(self.at(i)) }
    }

    /// [`GlobalPtr::load4`] through the read-only path.
    ///
    /// # Safety
    /// As [`GlobalPtr::load4`] and [`GlobalPtr::load_nc`].
    #[inline(always)]
    pub(crate) unsafe fn load4_nc(self, i: usize) -> [u32; 4] {
        // SAFETY: the caller's contract.
        unsafe { ld_global_nc4(self.at(i)) }
    }

    /// Store `v` at element `i`.
    ///
    /// # Safety
    /// As [`GlobalPtr::load`], and the memory is writable and no other view of the kernel
    /// overlaps it.
    #[inline(always)]
    pub(crate) unsafe fn store(self, i: usize, v: u32) {
        // SAFETY: the caller's contract.
        unsafe { st_global(self.at(i), v) }
    }

    /// Store elements `i..i + 4` in one 128-bit store.
    ///
    /// # Safety
    /// As [`GlobalPtr::load4`] and [`GlobalPtr::store`].
    #[inline(always)]
    pub(crate) unsafe fn store4(self, i: usize, v: [u32; 4]) {
        // SAFETY: the caller's contract.
        unsafe { st_global4(self.at(i), v) }
    }

    /// The pointer `n` elements on, its address left to the optimizer (for an offset that changes
    /// in a loop, where folding it into the accesses costs nothing).
    ///
    /// # Safety
    /// The `n` elements are inside the allocation.
    #[inline(always)]
    pub(crate) unsafe fn advance(self, n: usize) -> Self {
        GlobalPtr { addr: self.at(n), life: core::marker::PhantomData }
    }

    /// The pointer `n * m` elements on (the product in 64 bits), in one multiply-add held opaque
    /// to the optimizer ([`mul_add_address`]).
    ///
    /// # Safety
    /// As [`GlobalPtr::advance`] for `n * m` elements; `m < 2^30`.
    #[inline(always)]
    pub(crate) unsafe fn advance_mul(self, n: u32, m: u32) -> Self {
        GlobalPtr { addr: mul_add_address(self.addr, n, 4 * m), life: core::marker::PhantomData }
    }

    /// Whether two pointers are the same address.
    #[inline(always)]
    pub(crate) fn same(self, other: Self) -> bool {
        self.addr == other.addr
    }

    /// `cp.async` of element `i` to shared address `dst`, zero-filled when `src_bytes` is 0.
    ///
    /// # Safety
    /// `dst` is a 4-byte aligned shared address of 4 writable bytes; element `i` is inside the
    /// allocation when `src_bytes` is 4 (it is not read when 0).
    #[inline(always)]
    pub(crate) unsafe fn copy_async4(self, i: usize, dst: u32, src_bytes: u32) {
        // SAFETY: the caller's contract.
        unsafe { cp_async4(dst, self.at(i), src_bytes) }
    }

    /// `cp.async` of elements `i..i + 4` to shared address `dst` (`.ca` through L1 when
    /// `cache_always`, else `.cg`), zero-filled when `src_bytes` is 0.
    ///
    /// # Safety
    /// `dst` is a 16-byte aligned shared address of 16 writable bytes; when `src_bytes` is 16,
    /// `i % 4 == 0` and the 4 elements are inside the allocation (not read when 0).
    #[inline(always)]
    pub(crate) unsafe fn copy_async16(self, i: usize, dst: u32, src_bytes: u32, cache_always: bool) {
        // SAFETY: the caller's contract.
        unsafe { cp_async16(dst, self.at(i), src_bytes, cache_always) }
    }
}

/// `M` `ldmatrix.x4` (`trans`: `.trans`), lane `8 m + r` of the warp giving the shared address
/// of row `r` of matrix `m` of each; on the GPU, `M` in 1, 2, 4, 8 is one `asm!` block (one
/// converged-warp check, then the instructions), other counts one checked instruction each.
///
/// # Safety
/// Each address is a 16-byte aligned shared address of 16 readable bytes.
#[inline(always)]
pub(crate) unsafe fn ldmatrix_x4_batch<const M: usize>(
    addr: [u32; M],
    trans: bool,
    _: Site,
) -> [[u32; 4]; M] {
    // SAFETY: the caller's contract; the instructions check that the warp is converged.
    if let Some(r) = unsafe { warp::ldmatrix_x4_batch(addr, trans) } {
        return r;
    }
    // SAFETY: as above, one instruction at a time.
    addr.map(|a| unsafe { if trans { ldmatrix_x4_trans(a) } else { ldmatrix_x4(a) } })
}

/// `MI x NI` `mma.sync.m16n8k16` with `f32` accumulators, `c[i][j] += a[i] b[j]`, in as few
/// converged-warp checks as the batches allow ([`warp`]).
#[inline(always)]
pub(crate) fn mma_m16n8k16_f32_grid<const MI: usize, const NI: usize>(
    kind: HalfKind,
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[f32; 4]; NI]; MI],
    _: Site,
) {
    let bf16 = kind == HalfKind::BF16;
    if !warp::mma_m16n8k16_f32_batch(a, b, c, bf16) {
        for i in 0..MI {
            for j in 0..NI {
                c[i][j] = mma_m16n8k16_f32(a[i], b[j], c[i][j], bf16);
            }
        }
    }
}

/// `MI x NI` `mma.sync.m16n8k16` with `f16` accumulators (two to a register).
#[inline(always)]
pub(crate) fn mma_m16n8k16_f16_grid<const MI: usize, const NI: usize>(
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[u32; 2]; NI]; MI],
    _: Site,
) {
    if !warp::mma_m16n8k16_f16_batch(a, b, c) {
        for i in 0..MI {
            for j in 0..NI {
                c[i][j] = mma_m16n8k16_f16(a[i], b[j], c[i][j]);
            }
        }
    }
}

/// Two `f32` rounded to nearest even into a word of two halves of `kind`, `lo` in the low half.
#[inline(always)]
pub(crate) fn pack_half2(kind: HalfKind, lo: f32, hi: f32) -> u32 {
    cvt_pack_half2(lo, hi, kind == HalfKind::BF16)
}

/// The two halves of `kind` in a word as `f32` (exact), low half first.
#[inline(always)]
pub(crate) fn unpack_half2(kind: HalfKind, w: u32) -> [f32; 2] {
    cvt_unpack_half2(w, kind == HalfKind::BF16)
}

/// Four `wgmma.m64n64k16` with `f32` accumulators, `A` and `B` K-major in shared memory by their
/// descriptors, synchronous (the wgmma probe).
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_ss_x4`].
#[inline(always)]
pub(crate) unsafe fn wgmma_64x64x64_f32(
    kind: HalfKind,
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [f32; 32],
    _: Site,
) {
    // SAFETY: the caller's contract.
    unsafe { wgmma_m64n64k16_f32_ss_x4(a, b, d, kind == HalfKind::BF16) }
}

/// Four `wgmma.m64n256k16` with `f32` accumulators (one k tile of 64), pipelined: returns once the
/// warpgroup's batch before is done (`wgmma.wait_group 1`).
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together; each descriptor describes a
/// canonical `wgmma` operand inside the block's shared memory, written before a barrier after
/// [`fence_proxy_async_shared`] (or by TMA, waited for).
#[inline(always)]
pub(crate) unsafe fn wgmma_64x256x64_f32_pipelined(
    kind: HalfKind,
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [[f32; 128]; 1],
    _: Site,
) {
    // SAFETY: the caller's contract.
    unsafe { warp::wgmma_m64n256k16_f32_1x4_pipelined(&[a], &b, d, kind == HalfKind::BF16) }
}

/// [`wgmma_64x256x64_f32_pipelined`] with `f16` accumulators, two to a register.
///
/// # Safety
/// As [`wgmma_64x256x64_f32_pipelined`].
#[inline(always)]
pub(crate) unsafe fn wgmma_64x256x64_f16_pipelined(
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [[u32; 64]; 1],
    _: Site,
) {
    // SAFETY: the caller's contract.
    unsafe { warp::wgmma_m64n256k16_f16_1x4_pipelined(&[a], &b, d) }
}

/// `wgmma.wait_group 0`: the warpgroup's batches are done; `d` is the thread's again.
#[inline(always)]
pub(crate) fn wgmma_wait_all_f32(d: &mut [[f32; 128]; 1]) {
    warp::wgmma_wait0_f32_1x128(d)
}

/// [`wgmma_wait_all_f32`] for `f16` accumulators.
#[inline(always)]
pub(crate) fn wgmma_wait_all_f16(d: &mut [[u32; 64]; 1]) {
    warp::wgmma_wait0_f16_1x64(d)
}

/// The start of a `wgmma` batch in one block: the warp checked converged (the lane traps
/// otherwise, [`converged!`]), the warpgroup's rendezvous at named barrier `id` (`bar.sync id,
/// 128`), `fence.proxy.async.shared::cta` and `wgmma.fence`. One block, so the fence is converged
/// by the check with nothing to branch in between, and no check (a `call`) sits between the fence
/// and the batch's first `wgmma` (ptxas fences again after one).
///
/// # Safety
/// The warpgroup's 128 threads execute this call together, `id` their warpgroup's barrier.
#[inline(always)]
pub(crate) unsafe fn wgmma_begin(id: u32, _: Site) {
    // SAFETY: the caller's contract (the warpgroup); the warp is converged or the lane traps first.
    // Memory-clobbering: the proxy fence orders this thread's shared-memory writes before it.
    unsafe {
        asm!(converged!("bar.sync {i}, 128; fence.proxy.async.shared::cta; wgmma.fence.sync.aligned;"),
             i = in(reg32) id, options(nostack))
    };
}

/// The start of a `wgmma` batch whose shared operands are already the asynchronous proxy's (TMA
/// wrote them, or an earlier [`wgmma_begin`] fenced them): nothing here. Its `wgmma.fence` comes
/// with the batch's first instructions ([`wgmma_fence_pending`], or the fence inside
/// [`wgmma_ss_rs_f32`]'s block), with no rendezvous and no proxy fence (CUTLASS's
/// `warpgroup_arrive()`).
///
/// # Safety
/// The warpgroup's 128 threads execute this call together.
#[inline(always)]
pub(crate) unsafe fn wgmma_begin_tma(_: Site) {}

/// The `wgmma.fence` a [`wgmma_begin_tma`] batch issues before its first chain: the warp checked
/// converged, then the fence. Memory-clobbering, so that the mbarrier waits before it stay before
/// it.
///
/// # Safety
/// The warpgroup's 128 threads execute this call together.
#[inline(always)]
pub(crate) unsafe fn wgmma_fence_pending(_: Site) {
    // SAFETY: the caller's contract (the warpgroup); the warp is converged or the lane traps first.
    unsafe { asm!(converged!("wgmma.fence.sync.aligned;"), options(nostack)) };
}

/// `wgmma.commit_group.sync.aligned`: the warpgroup's `wgmma`s since the last commit become one
/// group ([`wgmma_wait_f32`] waits for groups). The warp is checked converged first.
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together.
#[inline(always)]
pub(crate) unsafe fn wgmma_commit(_: Site) {
    // SAFETY: the caller's contract (the warpgroup); the warp is converged or the lane traps first.
    unsafe { asm!(converged!("wgmma.commit_group.sync.aligned;"), options(nostack)) };
}

use warp::fit_mut;

/// A chain of `K` `wgmma.mma_async.m64n{2R}k16` with `f32` accumulators into `d`, `A` and `B`
/// from shared memory by their descriptors (`A` K-major; `B` MN-major when `trans_b`):
/// `d = sum_i A_i B_i^T (+ d if scale_d)`, in one `asm!` block after one check that the warp is
/// converged and `ok` holds (the lane traps otherwise: `why` is the emulator's message). Not
/// fenced, not committed.
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together after a `wgmma.fence`
/// ([`wgmma_begin`]) that follows every write of `d`; each descriptor describes a canonical `wgmma` operand of its
/// major-ness inside the block's shared memory, written before a barrier after
/// [`fence_proxy_async_shared`] (or by TMA, waited for), or `ok` is false; `R` is 32, 64 or 128
/// and `K` 1 to 8.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_ss_f32<const K: usize, const R: usize>(
    kind: HalfKind,
    a: &[u64; K],
    b: &[u64; K],
    ok: bool,
    _why: &'static str,
    trans_b: bool,
    scale_d: bool,
    d: &mut [f32; R],
    _: Site,
) {
    let (bf16, s, ok) = (kind == HalfKind::BF16, scale_d as u32, ok as u32);
    // SAFETY: the caller's contract.
    let done = unsafe {
        if trans_b {
            warp::wgmma_ss_chain_f32::<K, R, 1>(a, b, ok, s, d, bf16)
        } else {
            warp::wgmma_ss_chain_f32::<K, R, 0>(a, b, ok, s, d, bf16)
        }
    };
    if !done {
        fault("wgmma: 32, 64 or 128 accumulators, chains of 1 to 8");
    }
}

/// [`wgmma_ss_f32`] with `A` from registers (`ALayout_64x16`, two halves a register, an array a
/// k block).
///
/// # Safety
/// As [`wgmma_ss_f32`], the fence also following every write of `a`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_rs_f32<const K: usize, const R: usize>(
    kind: HalfKind,
    a: &[[u32; 4]; K],
    b: &[u64; K],
    ok: bool,
    _why: &'static str,
    trans_b: bool,
    scale_d: bool,
    d: &mut [f32; R],
    _: Site,
) {
    let (bf16, s, ok) = (kind == HalfKind::BF16, scale_d as u32, ok as u32);
    // SAFETY: the caller's contract.
    let done = unsafe {
        if trans_b {
            warp::wgmma_rs_chain_f32::<K, R, 1>(a, b, ok, s, d, bf16)
        } else {
            warp::wgmma_rs_chain_f32::<K, R, 0>(a, b, ok, s, d, bf16)
        }
    };
    if !done {
        fault("wgmma: 32, 64 or 128 accumulators, chains of 1 to 8");
    }
}

/// An SS chain into `d1` as one group and an RS chain into `d2` as the next, in one block after
/// one check of the warp and `ok` and a `wgmma.fence` (see `warp::wgmma_ss_rs_pair_f32`): nothing
/// between the two chains, so ptxas fences neither again and the tensor cores run them back to back.
///
/// # Safety
/// All 128 threads of the warpgroup execute this call together; each descriptor describes a
/// canonical `wgmma` operand of its major-ness inside the block's shared memory, written before a
/// barrier after [`fence_proxy_async_shared`] (or by TMA, waited for), or `ok` is false; the shapes
/// are the written-out pairs (others fault).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_ss_rs_f32<const K1: usize, const R1: usize, const K2: usize, const R2: usize>(
    kind: HalfKind,
    first: (&[u64; K1], &[u64; K1], bool, bool),
    d1: &mut [f32; R1],
    second: (&[[u32; 4]; K2], &[u64; K2], bool, bool),
    d2: &mut [f32; R2],
    ok: bool,
    _why: &'static str,
    _: Site,
) {
    let ((a1, b1, tb1, s1), (a2, b2, tb2, s2)) = (first, second);
    let (bf16, ok, s1, s2) = (kind == HalfKind::BF16, ok as u32, s1 as u32, s2 as u32);
    macro_rules! pair {
        ($tb1:literal, $tb2:literal) => {
            // SAFETY: the caller's contract.
            unsafe {
                warp::wgmma_ss_rs_pair_f32::<K1, R1, K2, R2, $tb1, $tb2>(
                    a1, b1, s1, d1, a2, b2, s2, d2, ok, bf16,
                )
            }
        };
    }
    let done = match (tb1, tb2) {
        (false, false) => pair!(0, 0),
        (false, true) => pair!(0, 1),
        (true, false) => pair!(1, 0),
        (true, true) => pair!(1, 1),
    };
    if !done {
        fault("wgmma: no such pair of chains");
    }
}

/// `wgmma.wait_group P`, `d` tied to it: every group of the warpgroup but the newest `P` is done.
#[inline(always)]
pub(crate) fn wgmma_wait_f32<const P: u32, const R: usize>(d: &mut [f32; R], _: Site) {
    match R {
        32 => warp::wgmma_wait_f32_32::<P>(fit_mut(d)),
        64 => warp::wgmma_wait_f32_64::<P>(fit_mut(d)),
        128 => warp::wgmma_wait_f32_128::<P>(fit_mut(d)),
        _ => fault("wgmma: 32, 64 or 128 accumulators"),
    }
}

/// [`wgmma_wait_f32`] with two accumulator arrays tied to the wait.
#[inline(always)]
pub(crate) fn wgmma_wait2_f32<const P: u32, const R1: usize, const R2: usize>(
    d1: &mut [f32; R1],
    d2: &mut [f32; R2],
    _: Site,
) {
    macro_rules! two {
        ($($r1:literal, $r2:literal => $f:ident),*) => {
            match (R1, R2) {
                $(($r1, $r2) => warp::$f::<P>(fit_mut(d1), fit_mut(d2)),)*
                _ => fault("wgmma: 32, 64 or 128 accumulators"),
            }
        };
    }
    two!(32, 32 => wgmma_wait_f32_32_32, 32, 64 => wgmma_wait_f32_32_64, 32, 128 => wgmma_wait_f32_32_128,
         64, 32 => wgmma_wait_f32_64_32, 64, 64 => wgmma_wait_f32_64_64, 64, 128 => wgmma_wait_f32_64_128,
         128, 32 => wgmma_wait_f32_128_32, 128, 64 => wgmma_wait_f32_128_64, 128, 128 => wgmma_wait_f32_128_128)
}

/// Wait for the phase of parity `parity` of the mbarrier at `addr` (`try_wait` until it completes:
/// the hardware suspends the thread a while before each no).
///
/// # Safety
/// `addr` is an initialized mbarrier ([`mbarrier_init`]).
#[inline(always)]
pub(crate) unsafe fn mbarrier_wait(addr: u32, parity: u32) {
    // SAFETY: the caller's contract.
    while !unsafe { mbarrier_try_wait_parity(addr, parity) } {}
}

/// TMA loads the box whose first element is `(row0, col0)` of `t` to shared address `dst`,
/// completing its bytes on the mbarrier at `mbar`.
///
/// # Safety
/// `t`'s tensor map is valid for its tensor (`TmaTensor2d::new`'s contract); `dst` holds the
/// box's bytes inside the block's shared memory, aligned for its swizzle; `mbar` is an initialized
/// mbarrier; `row0` and `col0` are below 2^31.
#[inline(always)]
pub(crate) unsafe fn tma_load_2d(t: &crate::tma::TmaTensor2d<'_>, dst: u32, row0: u32, col0: u32, mbar: u32) {
    // SAFETY: the caller's contract.
    unsafe { tma_load_2d_raw(dst, t.map, col0 as i32, row0 as i32, mbar) }
}

/// TMA loads the box whose first element is at `coords` (innermost first) of `t` to shared
/// address `dst`, completing its bytes on the mbarrier at `mbar`:
/// `cp.async.bulk.tensor.{2,3,4,5}d.shared::cluster.global.mbarrier::complete_tx::bytes`.
///
/// # Safety
/// `t`'s tensor map is valid for its tensor (`TmaTensor::new`'s contract); `dst` holds the box's
/// bytes inside the block's shared memory, aligned for its swizzle; `mbar` is an initialized
/// mbarrier; every coordinate is below 2^31; `RANK` is 2 to 5.
#[inline(always)]
pub(crate) unsafe fn tma_load_nd<const RANK: usize>(
    t: &crate::tma::TmaTensor<'_, RANK>,
    dst: u32,
    coords: [u32; RANK],
    mbar: u32,
) {
    let c = |i: usize| coords[i] as i32;
    let m = t.map;
    // SAFETY: the caller's contract. A map written by the host before the launch needs no
    // `fence.proxy.tensormap`.
    unsafe {
        match RANK {
            2 => tma_load_2d_raw(dst, m, c(0), c(1), mbar),
            3 => {
                asm!("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{t}, {{{x}, {y}, {z}}}], [{m}];",
                      d = in(reg32) dst, t = in(reg64) m, x = in(reg32) c(0), y = in(reg32) c(1), z = in(reg32) c(2),
                      m = in(reg32) mbar, options(nostack))
            }
            4 => {
                asm!("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{t}, {{{x}, {y}, {z}, {w}}}], [{m}];",
                      d = in(reg32) dst, t = in(reg64) m, x = in(reg32) c(0), y = in(reg32) c(1), z = in(reg32) c(2),
                      w = in(reg32) c(3), m = in(reg32) mbar, options(nostack))
            }
            5 => {
                asm!("cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{t}, {{{x}, {y}, {z}, {w}, {v}}}], [{m}];",
                      d = in(reg32) dst, t = in(reg64) m, x = in(reg32) c(0), y = in(reg32) c(1), z = in(reg32) c(2),
                      w = in(reg32) c(3), v = in(reg32) c(4), m = in(reg32) mbar, options(nostack))
            }
            _ => fault("TMA: rank 2 to 5"),
        }
    }
}

/// The region of a static shared array that [`static_shared!`](crate::static_shared) declared
/// (its expansion's only caller).
///
/// # Safety
/// `addr` is the 1024-byte aligned shared address of a module-level `.shared` array of `bytes`
/// bytes that nothing else in the kernel uses.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn static_region(addr: u32, bytes: u32) -> crate::SmemRegion {
    crate::SmemRegion::from_static_parts(addr, bytes)
}

/// [`static_shared!`](crate::static_shared) on the GPU: the array declared in the module's PTX
/// (`global_asm!`, an item of its own) and its 32-bit shared address.
#[doc(hidden)]
#[macro_export]
macro_rules! __backend_static_shared {
    ($name:ident, $bytes:expr) => {{
        // An item of its own (`global_asm!` is module-level), seeing the names of the module the
        // macro is used in, so that `$bytes` may be a path such as `my_kernel::SMEM_BYTES`.
        #[allow(non_snake_case, unused_imports)]
        mod $name {
            use super::*;
            core::arch::global_asm!(concat!(".shared .align 1024 .b8 ", stringify!($name), "[{n}];"), n = const $bytes);
        }
        let addr: u32;
        // SAFETY: takes the address of the symbol declared above; no memory is accessed.
        unsafe {
            core::arch::asm!(concat!("mov.u32 {r}, ", stringify!($name), ";"), r = out(reg32) addr,
                options(pure, nomem, nostack))
        };
        // SAFETY: the symbol is `$bytes` bytes, 16-byte aligned, and used by this region alone.
        unsafe { $crate::__static_region(addr, ($bytes) as u32) }
    }};
}

// ---------------------------------------------------------------------------------------------
// Warp-level communication: shuffles, votes, reductions. Each `asm!` block checks that the warp
// is converged (`converged!`) before its `.sync` instructions, so a lane of a diverged warp traps
// instead of executing one with the full member mask while other lanes are elsewhere.

macro_rules! shuffles {
    ($($(#[$doc:meta])* $name:ident: $mode:literal, $c:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(v: u32, b: u32, _: Site) -> u32 {
            let d: u32;
            // SAFETY: register operands only; the warp is converged or the lane traps first.
            unsafe {
                asm!(converged!(concat!("shfl.sync.", $mode, ".b32 {d}, {v}, {b}, ", $c, ", 0xffffffff;")),
                     d = out(reg32) d, v = in(reg32) v, b = in(reg32) b, options(nomem, nostack))
            };
            d
        }
    )*};
}

shuffles! {
    /// `shfl.sync.bfly`: the value of lane `lane ^ b`.
    shfl_bfly: "bfly", "0x1f";
    /// `shfl.sync.down`: the value of lane `lane + b` (this lane's own past 31).
    shfl_down: "down", "0x1f";
    /// `shfl.sync.up`: the value of lane `lane - b` (this lane's own below 0).
    shfl_up: "up", "0x0";
    /// `shfl.sync.idx`: the value of lane `b % 32`.
    shfl_idx: "idx", "0x1f";
}

/// `vote.sync.ballot.b32`: bit `l` set when lane `l`'s `p` is true.
#[inline(always)]
pub(crate) fn vote_ballot(p: bool, _: Site) -> u32 {
    let d: u32;
    // SAFETY: register operands only; the warp is converged or the lane traps first.
    unsafe {
        asm!(converged!("{{ .reg .pred vp; setp.ne.u32 vp, {p}, 0; vote.sync.ballot.b32 {d}, vp, 0xffffffff; }}"),
             d = out(reg32) d, p = in(reg32) p as u32, options(nomem, nostack))
    };
    d
}

/// `activemask.b32`: the lanes executing this instruction together.
#[inline(always)]
pub(crate) fn active_mask() -> u32 {
    let d: u32;
    // SAFETY: reads which lanes are active; no precondition.
    unsafe { asm!("activemask.b32 {d};", d = out(reg32) d, options(nomem, nostack)) };
    d
}

/// The operations of a warp reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduceOp {
    Add,
    Max,
    Min,
}

/// One butterfly step of a reduction block: a shuffle of `{v}` by mask `{mK}` and the operation.
macro_rules! allreduce_step {
    ($op:literal, $k:literal) => {
        concat!("shfl.sync.bfly.b32 t, {v}, {m", $k, "}, 0x1f, 0xffffffff; ", $op, " {v}, {v}, t; ")
    };
}

/// The `asm!` text of a reduction: the converged-warp check, then a step for each mask.
macro_rules! allreduce_text {
    ($op:literal; $($k:literal)*) => {
        converged!(concat!("{{ .reg .b32 t; ", $(allreduce_step!($op, $k),)* "}}"))
    };
}

/// The reduction of `$v` by the instruction `$op` over the `K` masks `$m`, in one `asm!` block
/// (one of five, by `K`).
macro_rules! allreduce_asm {
    ($op:literal, $v:ident, $m:ident, $k:ident) => {{
        let mut v = $v;
        let g = |i: usize| $m[i.min($k - 1)];
        // SAFETY: register operands only; the warp is converged or the lane traps first.
        unsafe {
            match $k {
                1 => asm!(allreduce_text!($op; 0), v = inout(reg32) v, m0 = in(reg32) g(0), options(nomem, nostack)),
                2 => asm!(allreduce_text!($op; 0 1), v = inout(reg32) v, m0 = in(reg32) g(0), m1 = in(reg32) g(1),
                          options(nomem, nostack)),
                3 => asm!(allreduce_text!($op; 0 1 2), v = inout(reg32) v, m0 = in(reg32) g(0), m1 = in(reg32) g(1),
                          m2 = in(reg32) g(2), options(nomem, nostack)),
                4 => asm!(allreduce_text!($op; 0 1 2 3), v = inout(reg32) v, m0 = in(reg32) g(0),
                          m1 = in(reg32) g(1), m2 = in(reg32) g(2), m3 = in(reg32) g(3), options(nomem, nostack)),
                5 => asm!(allreduce_text!($op; 0 1 2 3 4), v = inout(reg32) v, m0 = in(reg32) g(0),
                          m1 = in(reg32) g(1), m2 = in(reg32) g(2), m3 = in(reg32) g(3), m4 = in(reg32) g(4),
                          options(nomem, nostack)),
                _ => {}
            }
        }
        v
    }};
}

/// A warp reduction for one type: `$add`, `$max`, `$min` its instructions.
macro_rules! allreduce {
    ($name:ident, $add:literal, $max:literal, $min:literal) => {
        /// Every lane's `v` combined by `op` over the lanes `lane ^ m` for the masks `m` (a
        /// butterfly, each mask a shuffle and an operation), as bits; 1 to 5 masks, one `asm!`
        /// block with one converged-warp check.
        #[inline(always)]
        pub(crate) fn $name<const K: usize>(op: ReduceOp, v: u32, m: [u32; K], _: Site) -> u32 {
            match op {
                ReduceOp::Add => allreduce_asm!($add, v, m, K),
                ReduceOp::Max => allreduce_asm!($max, v, m, K),
                ReduceOp::Min => allreduce_asm!($min, v, m, K),
            }
        }
    };
}

allreduce!(allreduce_f32, "add.f32", "max.f32", "min.f32");

/// One butterfly step of two values at once: both shuffles by mask `{mK}`, then both operations.
macro_rules! allreduce2_step {
    ($op:literal, $k:literal) => {
        concat!(
            "shfl.sync.bfly.b32 t, {v}, {m",
            $k,
            "}, 0x1f, 0xffffffff; ",
            "shfl.sync.bfly.b32 u, {w}, {m",
            $k,
            "}, 0x1f, 0xffffffff; ",
            $op,
            " {v}, {v}, t; ",
            $op,
            " {w}, {w}, u; "
        )
    };
}

/// The `asm!` text of a two-value reduction: one converged-warp check, then a step a mask.
macro_rules! allreduce2_text {
    ($op:literal; $($k:literal)*) => {
        converged!(concat!("{{ .reg .b32 t, u; ", $(allreduce2_step!($op, $k),)* "}}"))
    };
}

/// [`allreduce_asm!`] for two values `[v, w]` in one block.
macro_rules! allreduce2_asm {
    ($op:literal, $vw:ident, $m:ident, $k:ident) => {{
        let [mut v, mut w] = $vw;
        let g = |i: usize| $m[i.min($k - 1)];
        // SAFETY: register operands only; the warp is converged or the lane traps first.
        unsafe {
            match $k {
                1 => asm!(allreduce2_text!($op; 0), v = inout(reg32) v, w = inout(reg32) w, m0 = in(reg32) g(0),
                          options(nomem, nostack)),
                2 => asm!(allreduce2_text!($op; 0 1), v = inout(reg32) v, w = inout(reg32) w, m0 = in(reg32) g(0),
                          m1 = in(reg32) g(1), options(nomem, nostack)),
                3 => asm!(allreduce2_text!($op; 0 1 2), v = inout(reg32) v, w = inout(reg32) w,
                          m0 = in(reg32) g(0), m1 = in(reg32) g(1), m2 = in(reg32) g(2), options(nomem, nostack)),
                4 => asm!(allreduce2_text!($op; 0 1 2 3), v = inout(reg32) v, w = inout(reg32) w,
                          m0 = in(reg32) g(0), m1 = in(reg32) g(1), m2 = in(reg32) g(2), m3 = in(reg32) g(3),
                          options(nomem, nostack)),
                5 => asm!(allreduce2_text!($op; 0 1 2 3 4), v = inout(reg32) v, w = inout(reg32) w,
                          m0 = in(reg32) g(0), m1 = in(reg32) g(1), m2 = in(reg32) g(2), m3 = in(reg32) g(3),
                          m4 = in(reg32) g(4), options(nomem, nostack)),
                _ => {}
            }
        }
        [v, w]
    }};
}

/// [`allreduce_f32`] of two values over the same masks, in one `asm!` block with one check (the
/// two rows of an accumulator fragment a thread holds: one check where two would be).
#[inline(always)]
pub(crate) fn allreduce2_f32<const K: usize>(op: ReduceOp, vw: [u32; 2], m: [u32; K], _: Site) -> [u32; 2] {
    match op {
        ReduceOp::Add => allreduce2_asm!("add.f32", vw, m, K),
        ReduceOp::Max => allreduce2_asm!("max.f32", vw, m, K),
        ReduceOp::Min => allreduce2_asm!("min.f32", vw, m, K),
    }
}
allreduce!(allreduce_u32, "add.u32", "max.u32", "min.u32");
allreduce!(allreduce_s32, "add.s32", "max.s32", "min.s32");

// ---------------------------------------------------------------------------------------------
// Fast math: PTX's approximate instructions (`.approx.ftz`: subnormal inputs and results flush
// to zero), and the correctly rounded ones the compiler does not emit by itself.

macro_rules! unary_f32 {
    ($($(#[$doc:meta])* $name:ident: $ins:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(x: f32) -> f32 {
            let d: f32;
            // SAFETY: arithmetic on registers; no memory is accessed.
            unsafe { asm!(concat!($ins, " {d}, {x};"), d = out(reg32) d, x = in(reg32) x, options(pure, nomem, nostack)) };
            d
        }
    )*};
}

unary_f32! {
    /// `ex2.approx.ftz.f32`: `2^x`, within 2 ulp.
    ex2_approx: "ex2.approx.ftz.f32";
    /// `lg2.approx.ftz.f32`: `log2 x`.
    lg2_approx: "lg2.approx.ftz.f32";
    /// `rcp.approx.ftz.f32`: `1 / x`, within 1 ulp.
    rcp_approx: "rcp.approx.ftz.f32";
    /// `rsqrt.approx.ftz.f32`: `1 / sqrt(x)`, within 2 ulp.
    rsqrt_approx: "rsqrt.approx.ftz.f32";
    /// `sqrt.approx.ftz.f32`.
    sqrt_approx: "sqrt.approx.ftz.f32";
    /// `tanh.approx.f32` (sm_75 and later).
    tanh_approx: "tanh.approx.f32";
    /// `sqrt.rn.f32`: correctly rounded.
    sqrt_rn: "sqrt.rn.f32";
    /// `rcp.rn.f32`: correctly rounded.
    rcp_rn: "rcp.rn.f32";
}

/// `div.approx.ftz.f32`: `a / b`, within 2 ulp for `|b|` in `2^-126..2^126`.
#[inline(always)]
pub(crate) fn div_approx(a: f32, b: f32) -> f32 {
    let d: f32;
    // SAFETY: arithmetic on registers; no memory is accessed.
    unsafe {
        asm!("div.approx.ftz.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
             options(pure, nomem, nostack))
    };
    d
}

// ---------------------------------------------------------------------------------------------
// Atomics: `atom` (returns the old value) and `red` (does not), on global memory through a
// `GlobalPtr` and on shared memory by address. Relaxed, GPU scope (PTX's default for `atom`).

/// The atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    Add,
    Max,
    Min,
    Exch,
}

macro_rules! atomics {
    ($global:ident, $shared:ident, $red_global:ident, $red_shared:ident, $($op:ident => $name:literal),*) => {
        /// `atom.global.OP.TY` at element `i`: the old value.
        ///
        /// # Safety
        /// Element `i` is inside the allocation, which is writable and which no other view than
        /// the kernel's writable ones overlaps.
        #[inline(always)]
        pub(crate) unsafe fn $global(p: GlobalPtr<'_>, i: usize, op: AtomicOp, v: u32) -> u32 {
            let d: u32;
            let a = p.at(i);
            // SAFETY: the caller's contract.
            unsafe {
                match op {
                    $(AtomicOp::$op => asm!(concat!("atom.global.", $name, " {d}, [{a}], {v};"),
                                            d = out(reg32) d, a = in(reg64) a, v = in(reg32) v, options(nostack)),)*
                    #[allow(unreachable_patterns)]
                    _ => d = 0,
                }
            }
            d
        }

        /// `red.global.OP.TY` at element `i`.
        ///
        /// # Safety
        /// As the `atom` form.
        #[inline(always)]
        pub(crate) unsafe fn $red_global(p: GlobalPtr<'_>, i: usize, op: AtomicOp, v: u32) {
            let a = p.at(i);
            // SAFETY: the caller's contract.
            unsafe {
                match op {
                    $(AtomicOp::$op => asm!(concat!("red.global.", $name, " [{a}], {v};"),
                                            a = in(reg64) a, v = in(reg32) v, options(nostack)),)*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }

        /// `atom.shared.OP.TY` at shared address `addr`: the old value.
        ///
        /// # Safety
        /// `addr` is a 4-byte aligned shared address of 4 bytes inside the block's shared memory.
        #[inline(always)]
        pub(crate) unsafe fn $shared(addr: u32, op: AtomicOp, v: u32) -> u32 {
            let d: u32;
            // SAFETY: the caller's contract.
            unsafe {
                match op {
                    $(AtomicOp::$op => asm!(concat!("atom.shared.", $name, " {d}, [{a}], {v};"),
                                            d = out(reg32) d, a = in(reg32) addr, v = in(reg32) v, options(nostack)),)*
                    #[allow(unreachable_patterns)]
                    _ => d = 0,
                }
            }
            d
        }

        /// `red.shared.OP.TY` at shared address `addr`.
        ///
        /// # Safety
        /// As the `atom` form.
        #[inline(always)]
        pub(crate) unsafe fn $red_shared(addr: u32, op: AtomicOp, v: u32) {
            // SAFETY: the caller's contract.
            unsafe {
                match op {
                    $(AtomicOp::$op => asm!(concat!("red.shared.", $name, " [{a}], {v};"),
                                            a = in(reg32) addr, v = in(reg32) v, options(nostack)),)*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }
    };
}

// Each operation with its PTX type (`exch` takes only `.b32`).
atomics!(atom_global_u32, atom_shared_u32, red_global_u32, red_shared_u32, Add => "add.u32", Max => "max.u32", Min => "min.u32", Exch => "exch.b32");
atomics!(atom_global_s32, atom_shared_s32, red_global_s32, red_shared_s32, Add => "add.s32", Max => "max.s32", Min => "min.s32");
atomics!(atom_global_f32, atom_shared_f32, red_global_f32, red_shared_f32, Add => "add.f32");

/// `atom.global.cas.b32` at element `i`: stores `new` if the element is `expected`; the old value.
///
/// # Safety
/// As [`atom_global_u32`].
#[inline(always)]
pub(crate) unsafe fn atom_global_cas(p: GlobalPtr<'_>, i: usize, expected: u32, new: u32) -> u32 {
    let d: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!("atom.global.cas.b32 {d}, [{a}], {e}, {n};", d = out(reg32) d, a = in(reg64) p.at(i),
             e = in(reg32) expected, n = in(reg32) new, options(nostack))
    };
    d
}

/// `atom.shared.cas.b32` at shared address `addr`.
///
/// # Safety
/// As [`atom_shared_u32`].
#[inline(always)]
pub(crate) unsafe fn atom_shared_cas(addr: u32, expected: u32, new: u32) -> u32 {
    let d: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!("atom.shared.cas.b32 {d}, [{a}], {e}, {n};", d = out(reg32) d, a = in(reg32) addr,
             e = in(reg32) expected, n = in(reg32) new, options(nostack))
    };
    d
}

/// `bar.arrive id, threads`: arrive at named barrier `id` without waiting (a producer signals
/// consumers that `bar.sync` on it).
#[inline(always)]
pub(crate) fn named_barrier_arrive(id: u32, threads: u32) {
    // SAFETY: a barrier arrival; no memory precondition. Memory-clobbering.
    unsafe { asm!("bar.arrive {i}, {n};", i = in(reg32) id, n = in(reg32) threads, options(nostack)) };
}
