//! One warpgroup's tensor-core step on Hopper: `D += A B^T` for its 64 x 256 half of a 128 x 256
//! tile over a k tile of 64, `A` and `B` in shared memory as CuTe's `tile_to_shape(
//! GMMA::Layout_K_SW128_Atom<half_t>, (128 | 256, 64))` ([`k_sw128_stage!`](crate::k_sw128_stage)), with four
//! `wgmma.mma_async.m64n256k16` (one a k block) in one batch; and the warpgroup's register budget
//! ([`set_max_registers`]).
//!
//! The descriptors come from the stages' layouts: a block's start is the layout's unswizzled
//! offset of its first element (CuTe's `DescriptorIterator`), on the descriptor `make_gmma_desc`
//! gives for the 64 x 16 block ([`crate::wgmma_probe::DESC_K_SW128_64X16`], checked against the
//! host-side algebra). The accumulators are the atom's `C` layout (`CLayout_64xN<256>`): value `v`
//! of thread `t` at `m = c % 64`, `n = c / 64` for `c = CLayout_64xN<256>(t % 128, v)`.
//!
//! Safety: `wgmma` is collective over the warpgroup's 128 threads. Each call first meets the other
//! warps of its warpgroup at a named barrier (`bar.sync 1 + warpgroup, 128`), so a warpgroup that
//! is not whole waits rather than issuing a partial `wgmma`; each warp is checked converged.

use crate::backend;
use crate::{HalfKind, SmemArray, fault, thread_idx};
use const_layout::layout::computed::{StaticLayout, StaticSwizzled};

/// Words of one stage: 128 x 64 halves.
pub const STAGE_WORDS: usize = 4096;

/// Words of a 256-row stage: 256 x 64 halves.
pub const STAGE_256_WORDS: usize = 8192;

/// The stage layout, in halves: `Sw<3,3,3> o tile_to_shape((8,64):(64,1), (ROWS,64))` (16-byte
/// chunk `c` of row `r` at `c ^ (r % 8)`; `ROWS` 128 without an argument), as a static value.
///
/// ```
/// use const_layout_device::k_sw128_stage;
/// let s = k_sw128_stage!();
/// assert_eq!(s.to_string(), "Sw<3,3,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))");
/// assert_eq!(s.tma_box::<16>().bytes(), 4 * const_layout_device::wgmma::STAGE_WORDS as u32);
/// assert_eq!(k_sw128_stage!(256).tma_box::<16>().outer, 256);
/// ```
#[macro_export]
macro_rules! k_sw128_stage {
    () => {
        $crate::k_sw128_stage!(128)
    };
    ($rows:literal) => {
        const_layout::layout::computed::swizzle::<3, 3, 3, _>(const_layout::layout::computed::tile_to_shape(
            <const_layout::layout_type!((8, 64):(64, 1))>::default(),
            (const_layout::C::<$rows>, const_layout::C::<64>),
        ))
    };
}

/// The descriptors of a block of 64 rows (`first_row` a multiple of 64) of the stage `stage` at
/// shared address `base`, one a k block of 16.
#[inline(always)]
fn descriptors<L: StaticLayout>(stage: StaticSwizzled<3, 3, 3, L>, base: u32, first_row: usize) -> [u64; 4] {
    use crate::wgmma_probe::DESC_K_SW128_64X16;
    if !base.is_multiple_of(1024) {
        fault("wgmma: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
    }
    let d = DESC_K_SW128_64X16.advanced(base >> 4);
    core::array::from_fn(|kb| d.advanced((stage.unswizzled_crd2idx((first_row, 16 * kb)) * 2 / 16) as u32).0)
}

/// The warpgroup's rendezvous before a collective instruction (see the module).
#[inline(always)]
fn warpgroup_sync() {
    let t = thread_idx();
    if t.y != 0 || t.z != 0 {
        fault("wgmma: one-dimensional blocks only");
    }
    backend::named_barrier(1 + t.x / 128, 128);
}

/// What every batch does first: the descriptors of rows `64 (half % 2)..` of `a` and of all of
/// `b`, then the warpgroup's rendezvous and the fence that makes generic writes to the stages
/// visible to the tensor cores (TMA's need none).
#[inline(always)]
fn batch_operands(
    a: SmemArray<u32, STAGE_WORDS>,
    half: usize,
    b: SmemArray<u32, STAGE_256_WORDS>,
) -> ([u64; 4], [u64; 4]) {
    let da = descriptors(k_sw128_stage!(128), a.address(0), 64 * (half % 2));
    let db = descriptors(k_sw128_stage!(256), b.address(0), 0);
    warpgroup_sync();
    backend::fence_proxy_async_shared();
    (da, db)
}

/// One warpgroup's half of a 128 x 256 tile, pipelined: `d += A[64 half..][..] B^T` over the k
/// tile, `A` a 128-row stage ([`k_sw128_stage!`](crate::k_sw128_stage)), `B` a 256-row one (`k_sw128_stage!(256)`), inputs
/// of `kind`, `f32` accumulators by `CLayout_64xN<256>`. Returns once every earlier batch of the
/// warpgroup is done, while this one may still read `a` and `b` (the caller releases the stages of
/// the batch before, and this batch's only after the next call or [`wait_all_f32`]). Until
/// [`wait_all_f32`], `d` belongs to the tensor cores: a read of it before waits for them (ptxas
/// orders it). The emulator's batches are done on return.
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma, Dim3, HalfKind, SmemRegion, thread_idx};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(256), dynamic_smem_bytes: 49152 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     let (a, b) = (smem.array::<u32, 4096>(0).unwrap(), smem.array::<u32, 8192>(16384).unwrap());
///     let t = thread_idx().x as usize;
///     for i in 0..16 {
///         a.store(t + 256 * i, 0x3c00_3c00); // 1.0
///     }
///     for i in 0..32 {
///         b.store(t + 256 * i, 0x4000_4000); // 2.0
///     }
///     const_layout_device::sync_threads();
///     let mut d = [[0f32; 128]; 1];
///     wgmma::mma_64x256x64_f32_pipelined(HalfKind::F16, a, t / 128, b, &mut d);
///     wgmma::mma_64x256x64_f32_pipelined(HalfKind::F16, a, t / 128, b, &mut d); // the first is done
///     wgmma::wait_all_f32(&mut d);
///     assert!(d[0].iter().all(|&x| x == 256.0));
/// })
/// .unwrap();
/// ```
#[track_caller]
#[inline(always)]
pub fn mma_64x256x64_f32_pipelined(
    kind: HalfKind,
    a: SmemArray<u32, STAGE_WORDS>,
    half: usize,
    b: SmemArray<u32, STAGE_256_WORDS>,
    d: &mut [[f32; 128]; 1],
) {
    let (da, db) = batch_operands(a, half, b);
    // SAFETY: the warpgroup met at its barrier; the descriptors are of two whole stages in the
    // block's shared memory, 1024-byte aligned (checked), whose generic writes are fenced and whose
    // TMA writes a caller's mbarrier wait made visible.
    unsafe { backend::wgmma_64x256x64_f32_pipelined(kind, da, db, d, backend::site()) }
}

/// [`mma_64x256x64_f32_pipelined`] with `f16` inputs and accumulators, two to a register (values
/// `2 j` and `2 j + 1`, neighbours along `n`, in register `j`).
#[track_caller]
#[inline(always)]
pub fn mma_64x256x64_f16_pipelined(
    a: SmemArray<u32, STAGE_WORDS>,
    half: usize,
    b: SmemArray<u32, STAGE_256_WORDS>,
    d: &mut [[u32; 64]; 1],
) {
    let (da, db) = batch_operands(a, half, b);
    // SAFETY: as in `mma_64x256x64_f32_pipelined`.
    unsafe { backend::wgmma_64x256x64_f16_pipelined(da, db, d, backend::site()) }
}

/// Wait for every pipelined batch of the warpgroup ([`mma_64x256x64_f32_pipelined`]): `d` is the
/// thread's again.
#[inline(always)]
pub fn wait_all_f32(d: &mut [[f32; 128]; 1]) {
    backend::wgmma_wait_all_f32(d)
}

/// [`wait_all_f32`] for `f16` accumulators.
#[inline(always)]
pub fn wait_all_f16(d: &mut [[u32; 64]; 1]) {
    backend::wgmma_wait_all_f16(d)
}

/// The register counts `setmaxnreg` takes: multiples of 8 from 24 to 256 (implemented for `()`).
#[diagnostic::on_unimplemented(
    message = "`setmaxnreg` takes a multiple of 8 from 24 to 256 registers, not {N}",
    label = "a register count of {N}"
)]
pub trait RegisterCount<const N: u32>: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
}

macro_rules! register_counts {
    ($($n:literal)*) => { $(#[diagnostic::do_not_recommend] impl RegisterCount<$n> for () {})* };
}
register_counts!(24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256);

/// The warpgroup's threads may use `N` registers from here on: more (`INC`) for warpgroups that
/// hold accumulators, fewer for a producer (CUTLASS's `warpgroup_reg_alloc<N>()` and
/// `warpgroup_reg_dealloc<N>()`, PTX's `setmaxnreg`). The warpgroup meets at its named barrier
/// first, as for `wgmma`; `N` must be a multiple of 8 from 24 to 256 ([`RegisterCount`]; a
/// compile error otherwise).
/// The kernel's launch bounds must leave room: the register file holds what every warpgroup of
/// the block asks for. A no-op on the emulator.
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma, Dim3, thread_idx};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(384), dynamic_smem_bytes: 0 };
/// launch(&cfg, || {
///     if thread_idx().x >= 256 {
///         wgmma::set_max_registers::<40, false>(); // the producer warpgroup gives registers up
///     } else {
///         wgmma::set_max_registers::<232, true>();
///     }
/// })
/// .unwrap();
/// ```
#[inline(always)]
pub fn set_max_registers<const N: u32, const INC: bool>()
where
    (): RegisterCount<N>,
{
    warpgroup_sync();
    // SAFETY: the warpgroup met at its barrier; `N` is checked above; the register budget is the
    // caller's (ptxas compiles the code after the call within `N`).
    unsafe { backend::setmaxnreg::<N, INC>() }
}
