//! One warpgroup's tensor-core step on Hopper: `D += A B^T` for a 128 x 128 tile over a k tile of
//! 64, `A` and `B` in shared memory as CuTe's `tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>,
//! (128, 64))` ([`k_sw128_stage!`]), with `wgmma.mma_async.m64n128k16`: two atoms along `m`, four k
//! blocks, one batch.
//!
//! The descriptors come from the stage's layout: a block's start is the layout's unswizzled offset
//! of its first element (CuTe's `DescriptorIterator`), on the descriptor `make_gmma_desc` gives for
//! the 64 x 16 block ([`crate::wgmma_probe::DESC_K_SW128_64X16`], checked against the host-side
//! algebra). The accumulators are the atom's `C` layout (`CLayout_64xN<128>`): value `v` of atom
//! `i` of thread `t` at `m = c % 64 + 64 i`, `n = c / 64` for `c = CLayout_64xN<128>(t, v)`.
//!
//! Safety: `wgmma` is collective over the warpgroup's 128 threads. Each call first meets the other
//! warps of its warpgroup at a named barrier (`bar.sync 1 + warpgroup, 128`), so a warpgroup that
//! is not whole waits rather than issuing a partial `wgmma`; each warp is checked converged.

use crate::{HalfKind, SmemArray, fault, thread_idx};

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

/// The descriptors of a stage at shared address `base`: `[i][kb]` for the 64 x 16 block of atom
/// `i`, k block `kb`.
#[inline(always)]
fn descriptors(base: u32) -> [[u64; 4]; 2] {
    use crate::wgmma_probe::DESC_K_SW128_64X16;
    if !base.is_multiple_of(1024) {
        fault("wgmma: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
    }
    let stage = k_sw128_stage!();
    let d = DESC_K_SW128_64X16.advanced(base >> 4);
    core::array::from_fn(|i| {
        core::array::from_fn(|kb| d.advanced((stage.unswizzled_crd2idx((64 * i, 16 * kb)) * 2 / 16) as u32).0)
    })
}

/// The warpgroup's rendezvous before a collective `wgmma` (see the module).
#[inline(always)]
fn warpgroup_sync() {
    let t = thread_idx();
    if t.y != 0 || t.z != 0 {
        fault("wgmma: one-dimensional blocks only");
    }
    #[cfg(target_arch = "nvptx64")]
    crate::arch::named_barrier(1 + t.x / 128, 128);
}

/// `f32` accumulators: `d[i][v] += (A B^T)` for a 128 x 128 tile over the k tile in `a` and `b`
/// (see the module), inputs of `kind`.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::{wgmma, Dim3, HalfKind, SmemRegion, thread_idx};
/// let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 32768 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     let (a, b) = (smem.array::<u32, 4096>(0).unwrap(), smem.array::<u32, 4096>(16384).unwrap());
///     let t = thread_idx().x as usize;
///     for i in 0..32 {
///         a.store(t + 128 * i, 0x3c00_3c00); // 1.0 everywhere
///         b.store(t + 128 * i, 0x4000_4000); // 2.0
///     }
///     const_layout_device::sync_threads();
///     let mut d = [[0f32; 64]; 2];
///     wgmma::mma_128x128x64_f32(HalfKind::F16, a, b, &mut d);
///     assert!(d.iter().flatten().all(|&x| x == 128.0));
/// })
/// .unwrap();
/// ```
#[track_caller]
#[inline(always)]
pub fn mma_128x128x64_f32(
    kind: HalfKind,
    a: SmemArray<u32, STAGE_WORDS>,
    b: SmemArray<u32, STAGE_WORDS>,
    d: &mut [[f32; 64]; 2],
) {
    let (da, db) = (descriptors(a.address(0)), descriptors(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: the warpgroup met at its barrier; the descriptors are of the two stages, whole
        // arrays in the block's shared memory, 1024-byte aligned (checked), whose generic writes
        // are fenced just above and whose TMA writes a caller's mbarrier wait made visible.
        unsafe { crate::arch_warp::wgmma_m64n128k16_f32_2x4(&da, &db[0], d, kind == HalfKind::BF16) };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for (i, di) in d.iter_mut().enumerate() {
            for kb in 0..4 {
                crate::emu::wgmma_k16_f32::<128>(kind, da[i][kb], db[0][kb], di, site);
            }
        }
    }
}

/// `f16` accumulators, two to a register (values `2 j` and `2 j + 1`, neighbours along `n`, in
/// register `j`): as [`mma_128x128x64_f32`] for `f16` inputs.
#[track_caller]
#[inline(always)]
pub fn mma_128x128x64_f16(
    a: SmemArray<u32, STAGE_WORDS>,
    b: SmemArray<u32, STAGE_WORDS>,
    d: &mut [[u32; 32]; 2],
) {
    let (da, db) = (descriptors(a.address(0)), descriptors(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: as in `mma_128x128x64_f32`.
        unsafe { crate::arch_warp::wgmma_m64n128k16_f16_2x4(&da, &db[0], d) };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for (i, di) in d.iter_mut().enumerate() {
            for kb in 0..4 {
                crate::emu::wgmma_k16_f16::<128>(da[i][kb], db[0][kb], di, site);
            }
        }
    }
}

/// [`mma_128x128x64_f32`] pipelined: returns once every earlier batch of the warpgroup is done,
/// while this one may still read `a` and `b` (the caller releases the stages of the batch before,
/// and this batch's only after the next call or [`wait_all_f32`]). Until [`wait_all_f32`], `d`
/// belongs to the tensor cores: a read of it before waits for them (ptxas orders it).
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma, Dim3, HalfKind, SmemRegion, thread_idx};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 32768 };
/// launch(&cfg, || {
/// #   let smem = SmemRegion::dynamic();
/// #   let (a, b) = (smem.array::<u32, 4096>(0).unwrap(), smem.array::<u32, 4096>(16384).unwrap());
/// #   let t = thread_idx().x as usize;
/// #   for i in 0..32 {
/// #       a.store(t + 128 * i, 0x3c00_3c00);
/// #       b.store(t + 128 * i, 0x3c00_3c00);
/// #   }
/// #   const_layout_device::sync_threads();
///     let mut d = [[0f32; 64]; 2];
///     wgmma::mma_128x128x64_f32_pipelined(HalfKind::F16, a, b, &mut d);
///     wgmma::mma_128x128x64_f32_pipelined(HalfKind::F16, a, b, &mut d); // the first batch is done
///     wgmma::wait_all_f32(&mut d);
///     assert!(d.iter().flatten().all(|&x| x == 128.0));
/// })
/// .unwrap();
/// ```
#[track_caller]
#[inline(always)]
pub fn mma_128x128x64_f32_pipelined(
    kind: HalfKind,
    a: SmemArray<u32, STAGE_WORDS>,
    b: SmemArray<u32, STAGE_WORDS>,
    d: &mut [[f32; 64]; 2],
) {
    let (da, db) = (descriptors(a.address(0)), descriptors(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: as in `mma_128x128x64_f32`.
        unsafe {
            crate::arch_warp::wgmma_m64n128k16_f32_2x4_pipelined(&da, &db[0], d, kind == HalfKind::BF16)
        };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for (i, di) in d.iter_mut().enumerate() {
            for kb in 0..4 {
                crate::emu::wgmma_k16_f32::<128>(kind, da[i][kb], db[0][kb], di, site);
            }
        }
    }
}

/// [`mma_128x128x64_f16`] pipelined, as [`mma_128x128x64_f32_pipelined`].
#[track_caller]
#[inline(always)]
pub fn mma_128x128x64_f16_pipelined(
    a: SmemArray<u32, STAGE_WORDS>,
    b: SmemArray<u32, STAGE_WORDS>,
    d: &mut [[u32; 32]; 2],
) {
    let (da, db) = (descriptors(a.address(0)), descriptors(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: as in `mma_128x128x64_f32`.
        unsafe { crate::arch_warp::wgmma_m64n128k16_f16_2x4_pipelined(&da, &db[0], d) };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for (i, di) in d.iter_mut().enumerate() {
            for kb in 0..4 {
                crate::emu::wgmma_k16_f16::<128>(da[i][kb], db[0][kb], di, site);
            }
        }
    }
}

/// Wait for every pipelined batch of the warpgroup ([`mma_128x128x64_f32_pipelined`]): `d` is the
/// thread's again. The emulator's batches are done on return already.
#[inline(always)]
pub fn wait_all_f32(d: &mut [[f32; 64]; 2]) {
    #[cfg(target_arch = "nvptx64")]
    crate::arch_warp::wgmma_wait0_f32_2x64(d);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = d;
}

/// [`wait_all_f32`] for `f16` accumulators.
#[inline(always)]
pub fn wait_all_f16(d: &mut [[u32; 32]; 2]) {
    #[cfg(target_arch = "nvptx64")]
    crate::arch_warp::wgmma_wait0_f16_2x32(d);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = d;
}

/// One warpgroup's half of a 128 x 256 tile, pipelined: `d += A[64 half..][..] B^T` over the k
/// tile, `A` a 128-row stage ([`k_sw128_stage!`]), `B` a 256-row one (`k_sw128_stage!(256)`), with
/// four `wgmma.m64n256k16` (one atom a k block; `d` by `CLayout_64xN<256>`). As
/// [`mma_128x128x64_f32_pipelined`] otherwise.
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
///     wgmma::wait_all_f32_1x128(&mut d);
///     assert!(d[0].iter().all(|&x| x == 128.0));
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
    let (da, db) = (descriptors_half(a.address(0), half), descriptors_256(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: as in `mma_128x128x64_f32`.
        unsafe {
            crate::arch_warp::wgmma_m64n256k16_f32_1x4_pipelined(&[da], &db, d, kind == HalfKind::BF16)
        };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for kb in 0..4 {
            crate::emu::wgmma_k16_f32::<256>(kind, da[kb], db[kb], &mut d[0], site);
        }
    }
}

/// [`mma_64x256x64_f32_pipelined`] with `f16` accumulators, two to a register.
#[track_caller]
#[inline(always)]
pub fn mma_64x256x64_f16_pipelined(
    a: SmemArray<u32, STAGE_WORDS>,
    half: usize,
    b: SmemArray<u32, STAGE_256_WORDS>,
    d: &mut [[u32; 64]; 1],
) {
    let (da, db) = (descriptors_half(a.address(0), half), descriptors_256(b.address(0)));
    warpgroup_sync();
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::fence_proxy_async_shared();
        // SAFETY: as in `mma_128x128x64_f32`.
        unsafe { crate::arch_warp::wgmma_m64n256k16_f16_1x4_pipelined(&[da], &db, d) };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let site = core::panic::Location::caller();
        for kb in 0..4 {
            crate::emu::wgmma_k16_f16::<256>(da[kb], db[kb], &mut d[0], site);
        }
    }
}

/// [`wait_all_f32`] for [`mma_64x256x64_f32_pipelined`]'s accumulators.
#[inline(always)]
pub fn wait_all_f32_1x128(d: &mut [[f32; 128]; 1]) {
    #[cfg(target_arch = "nvptx64")]
    crate::arch_warp::wgmma_wait0_f32_1x128(d);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = d;
}

/// [`wait_all_f16`] for [`mma_64x256x64_f16_pipelined`]'s accumulators.
#[inline(always)]
pub fn wait_all_f16_1x64(d: &mut [[u32; 64]; 1]) {
    #[cfg(target_arch = "nvptx64")]
    crate::arch_warp::wgmma_wait0_f16_1x64(d);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = d;
}

/// The descriptors of rows `64 (half % 2)..` of a 128-row stage at `base`, one a k block (the
/// `A` of one warpgroup's half of a 128-row tile).
#[inline(always)]
fn descriptors_half(base: u32, half: usize) -> [u64; 4] {
    use crate::wgmma_probe::DESC_K_SW128_64X16;
    if !base.is_multiple_of(1024) {
        fault("wgmma: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
    }
    let stage = k_sw128_stage!();
    let d = DESC_K_SW128_64X16.advanced(base >> 4);
    core::array::from_fn(|kb| {
        d.advanced((stage.unswizzled_crd2idx((64 * (half % 2), 16 * kb)) * 2 / 16) as u32).0
    })
}

/// The descriptors of a 256-row stage at `base`, one a k block, from rows 0 (an `N = 256` operand).
#[inline(always)]
fn descriptors_256(base: u32) -> [u64; 4] {
    use crate::wgmma_probe::DESC_K_SW128_64X16;
    if !base.is_multiple_of(1024) {
        fault("wgmma: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
    }
    let stage = k_sw128_stage!(256);
    let d = DESC_K_SW128_64X16.advanced(base >> 4);
    core::array::from_fn(|kb| d.advanced((stage.unswizzled_crd2idx((0, 16 * kb)) * 2 / 16) as u32).0)
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
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the warpgroup met at its barrier; `N` is checked above; the register budget is the
    // caller's (ptxas compiles the code after the call within `N`).
    unsafe {
        crate::arch::setmaxnreg::<N, INC>()
    };
}
