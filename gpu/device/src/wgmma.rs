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
use const_layout::algebra::computed::{StaticLayout, StaticSwizzled};
use const_layout::atom::gmma::{GmmaDescriptor, Major};

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
        const_layout::algebra::computed::swizzle::<3, 3, 3, _>(const_layout::algebra::computed::tile_to_shape(
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

/// The shared-memory operand of a `wgmma` (`A` or `B` of [`Batch::ss_f32`], `B` of
/// [`Batch::rs_f32`]): its descriptor (CuTe's `GmmaDescriptor`), whether it is MN-major, and the
/// rows along M or N it covers from its start, inside the array it was made from. Built only by
/// the checked constructors, from a shared array and a stage layout, so a `wgmma` never reads
/// outside the array; an instruction checks that the operand covers its M (64) or N.
///
/// The descriptors are those `make_gmma_desc` gives for the stages' blocks
/// ([`crate::wgmma_probe::DESC_K_SW128_64X16`], [`DESC_MN_SW128`]; the tests check both against
/// the host-side algebra).
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma::SmemDesc, Dim3, SmemRegion};
/// # use const_layout::atom::gmma::Major;
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 65536 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     // Q: 128 rows of a head dim of 128, two K-major k tiles of 128 x 64 halves.
///     let q = smem.array::<u32, 8192>(0).unwrap();
///     let a = SmemDesc::k_sw128(q, 128, 64, 5); // rows 64.., k block 5 (tile 1, halves 16..32)
///     assert_eq!((a.major(), a.mn()), (Major::K, 64));
///     assert_eq!(a.descriptor().start_address(), ((16384 + 64 * 128 + 32) / 16) as u16);
///     // V: 128 keys of a head dim of 128, two stages side by side, read MN-major.
///     let v = smem.array::<u32, 8192>(32768).unwrap();
///     let b = SmemDesc::mn_sw128(v, 128, 3); // keys 48..64, N = 128
///     assert_eq!((b.major(), b.mn()), (Major::MN, 128));
///     assert_eq!(b.descriptor().leading_byte_offset(), 16384 / 16);
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemDesc {
    desc: GmmaDescriptor,
    mn: u32,
    mn_major: bool,
}

/// The descriptor of an MN-major, 128-byte swizzled operand of 16-bit elements at shared address 0
/// whose 64-element blocks along MN are stages `LBO` apart (the leading byte offset, 0 here: the
/// constructor [`SmemDesc::mn_sw128`] sets it) and whose groups of 8 k rows are 1024 bytes apart
/// (`SBO` 64 units): `make_gmma_desc(MN, Sw<3,3,3> o ((64,m),(8,2)):((1,LBO),(64,512)), 16, 0)`
/// (the tests check it).
pub const DESC_MN_SW128: GmmaDescriptor = GmmaDescriptor(1 << 62 | 64 << 32);

impl SmemDesc {
    /// K-major, 128-byte swizzled stages ([`k_sw128_stage!`](crate::k_sw128_stage)`(rows)`, as
    /// TMA writes them with [`TmaBox`](const_layout::atom::tma::TmaBox) `64 x rows`): `stage`
    /// holds `W / (32 rows)` such k tiles one after the other (a head dim of 128 is two), and the
    /// operand is rows `first_row..rows` (a multiple of 8) at k block `kb` (16 halves; tile `kb /
    /// 4`). For `A`, 64 of those rows are read; for `B`, `N` of them. The array must be 1024-byte
    /// aligned (the swizzle's repeat); anything else is a [`fault`].
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::SmemDesc, Dim3, SmemRegion};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 32768 };
    /// launch(&cfg, || {
    ///     let k = SmemRegion::dynamic().array::<u32, 4096>(0).unwrap(); // 128 x 64 halves
    ///     let b = SmemDesc::k_sw128(k, 128, 0, 2);
    ///     assert_eq!((b.mn(), b.descriptor().start_address()), (128, 4)); // 64 bytes on
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn k_sw128<const W: usize>(
        stage: SmemArray<u32, W>,
        rows: usize,
        first_row: usize,
        kb: usize,
    ) -> SmemDesc {
        let base = stage.address(0);
        if rows == 0 || !rows.is_multiple_of(8) || !W.is_multiple_of(32 * rows) || W == 0 {
            fault(
                "SmemDesc::k_sw128: the array is not whole k tiles of `rows` (a multiple of 8) x 64 halves",
            );
        }
        if !first_row.is_multiple_of(8) || first_row >= rows || kb >= 4 * (W / (32 * rows)) {
            fault(
                "SmemDesc::k_sw128: the first row is not a multiple of 8 inside the tile, or no such k block",
            );
        }
        if !base.is_multiple_of(1024) {
            fault("SmemDesc::k_sw128: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
        }
        // Tile `kb / 4`, then row `first_row` (128 bytes a row), then 32 bytes a k block: the
        // unswizzled offset of the block's first element, as `descriptors` takes it from the layout.
        let bytes = (kb / 4) * 128 * rows + 128 * first_row + 32 * (kb % 4);
        let desc = crate::wgmma_probe::DESC_K_SW128_64X16.advanced((base + bytes as u32) >> 4);
        SmemDesc { desc, mn: (rows - first_row) as u32, mn_major: false }
    }

    /// MN-major, 128-byte swizzled stages, as TMA writes `V` for attention's second GEMM
    /// (`O = P V`): `stages` holds `W / (32 rows)` stages of `rows` keys (GEMM's K, a multiple of
    /// 16) x 64 contiguous halves of the head dim (the same bytes as
    /// [`k_sw128_stage!`](crate::k_sw128_stage)`(rows)`), side by side along the head dim (a head
    /// dim of 128 is two). The operand is `B` with `N` = 64 times the stages and `K` the 16 keys
    /// of block `kb`. The array must be 1024-byte aligned; anything else is a [`fault`].
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::SmemDesc, Dim3, SmemRegion};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 16384 };
    /// launch(&cfg, || {
    ///     let v = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap(); // 64 keys x 64 halves
    ///     let b = SmemDesc::mn_sw128(v, 64, 1);
    ///     assert_eq!((b.mn(), b.descriptor().start_address()), (64, 2048 / 16)); // keys 16..32
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn mn_sw128<const W: usize>(stages: SmemArray<u32, W>, rows: usize, kb: usize) -> SmemDesc {
        let base = stages.address(0);
        if rows == 0 || !rows.is_multiple_of(16) || rows >= 2048 || W == 0 || !W.is_multiple_of(32 * rows) {
            fault(
                "SmemDesc::mn_sw128: the array is not whole stages of `rows` (a multiple of 16) x 64 halves",
            );
        }
        if kb >= rows / 16 {
            fault("SmemDesc::mn_sw128: no such k block");
        }
        if !base.is_multiple_of(1024) {
            fault("SmemDesc::mn_sw128: a stage must be 1024-byte aligned (the 128-byte swizzle's repeat)");
        }
        // Keys 16 kb.. start 16 rows of 128 bytes a block on; the next 64 of N a stage on (LBO).
        let lbo = (128 * rows / 16) as u64;
        let desc = GmmaDescriptor(DESC_MN_SW128.0 | lbo << 16).advanced((base + 2048 * kb as u32) >> 4);
        SmemDesc { desc, mn: (64 * (W / (32 * rows))) as u32, mn_major: true }
    }

    /// The descriptor.
    pub fn descriptor(&self) -> GmmaDescriptor {
        self.desc
    }

    /// Which mode is contiguous: `K`, or `MN` (`imm-trans` 1).
    pub fn major(&self) -> Major {
        if self.mn_major { Major::MN } else { Major::K }
    }

    /// The rows along M or N the operand covers from its start.
    pub fn mn(&self) -> usize {
        self.mn as usize
    }
}

/// The accumulator registers a thread holds for a `wgmma` with `f32` accumulators and `N` = `2 R`:
/// 32, 64 or 128 (implemented for `()`).
///
/// ```compile_fail
/// # use const_layout_device::{wgmma, HalfKind};
/// fn issue(b: &mut wgmma::Batch, a: wgmma::SmemDesc) {
///     let mut d = [0f32; 48]; // N = 96: no such instruction here
///     b.ss_f32(HalfKind::F16, a, a, false, &mut d);
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a `wgmma` with f32 accumulators holds 32, 64 or 128 registers a thread (N = 64, 128, 256), not {R}",
    label = "{R} accumulators"
)]
pub trait Accumulators<const R: usize>: sealed::Sealed {}

/// The instructions a [`Batch::ss_f32_chain`] or [`Batch::rs_f32_chain`] issues as one: 1 to 8
/// (implemented for `()`).
///
/// ```compile_fail
/// # use const_layout_device::{wgmma, HalfKind};
/// fn issue(b: &mut wgmma::Batch, a: wgmma::SmemDesc) {
///     let mut d = [0f32; 32];
///     b.ss_f32_chain(HalfKind::F16, [a; 9], [a; 9], false, &mut d); // K = 144
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a `wgmma` chain is 1 to 8 instructions (k blocks of 16), not {K}",
    label = "{K} instructions"
)]
pub trait ChainLength<const K: usize>: sealed::Sealed {}

/// The groups `wgmma.wait_group` may leave pending: 0 to 7 (implemented for `()`).
#[diagnostic::on_unimplemented(
    message = "`wgmma.wait_group` leaves 0 to 7 groups pending, not {P}",
    label = "{P} pending groups"
)]
pub trait PendingGroups<const P: u32>: sealed::Sealed {}

#[diagnostic::do_not_recommend]
impl Accumulators<32> for () {}
#[diagnostic::do_not_recommend]
impl Accumulators<64> for () {}
#[diagnostic::do_not_recommend]
impl Accumulators<128> for () {}

macro_rules! pending_groups {
    ($($n:literal)*) => { $(#[diagnostic::do_not_recommend] impl PendingGroups<$n> for () {})* };
}
pending_groups!(0 1 2 3 4 5 6 7);

macro_rules! chain_lengths {
    ($($n:literal)*) => { $(#[diagnostic::do_not_recommend] impl ChainLength<$n> for () {})* };
}
chain_lengths!(1 2 3 4 5 6 7 8);

/// The chain pairs [`Batch::ss_rs_f32_groups`] issues as one block (implemented for `()`): an SS
/// chain of `K1` k blocks into `R1` accumulators, then an RS chain of `K2` into `R2`, as
/// FlashAttention's forward issues `S = Q K^T` and `O += P V`: `(K1, R1, K2, R2) = (dqk / 16, n / 2,
/// n / 16, dv / 2)` for head dims `dqk` (of `Q` and `K`) and `dv` (of `V`) and key tiles `n` each
/// of 64 or 128, and for the attention kernel's head dim 256: `dqk` 256 with `n` 128 and `dv` 64
/// or 128, and `n` 64 with `dv` 256 and `dqk` 64, 128 or 256.
///
/// ```compile_fail
/// # use const_layout_device::{wgmma, HalfKind};
/// fn issue(b: wgmma::Batch, a: wgmma::SmemDesc) {
///     let (mut s, mut o) = ([0f32; 64], [0f32; 64]);
///     b.ss_rs_f32_groups(HalfKind::F16, [a; 2], [a; 2], false, &mut s, &[[0; 4]; 2], [a; 2], true, &mut o);
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "no two-group `wgmma` block of {K1} SS k blocks into {R1} accumulators, then {K2} RS into {R2}",
    label = "written out: (K1, R1, K2, R2) = (dqk / 16, n / 2, n / 16, dv / 2) for dqk, n and dv of 64 or 128, and some at 256"
)]
pub trait ChainPair<const K1: usize, const R1: usize, const K2: usize, const R2: usize>:
    sealed::Sealed
{
}

macro_rules! chain_pairs {
    ($(($k1:literal, $r1:literal, $k2:literal, $r2:literal))*) => {
        $(#[diagnostic::do_not_recommend] impl ChainPair<$k1, $r1, $k2, $r2> for () {})*
    };
}
// What tools/gpu/gen_warp_asm.py writes out (its WGMMA_PAIRS).
chain_pairs!((4, 32, 4, 32)(4, 32, 4, 64)(4, 64, 8, 32)(4, 64, 8, 64)(8, 32, 4, 32)(8, 32, 4, 64)(
    8, 64, 8, 32
)(8, 64, 8, 64)(16, 64, 8, 32)(16, 64, 8, 64)(4, 32, 4, 128)(8, 32, 4, 128)(16, 32, 4, 128));

/// A warpgroup's batch of `wgmma`s (CUTLASS's `warpgroup_arrive()` ... `warpgroup_commit_batch()`):
/// [`begin`] meets the warpgroup's other warps at its named barrier and fences, then each
/// [`ss_f32`](Batch::ss_f32) or [`rs_f32`](Batch::rs_f32) issues one instruction, and
/// [`commit`](Batch::commit) makes them one group, which [`wait`] waits for later (so a warpgroup
/// can compute while its tensor cores work: FlashAttention-3's softmax under the next GEMM).
/// A GEMM's k blocks go in one [`ss_f32_chain`](Batch::ss_f32_chain) or
/// [`rs_f32_chain`](Batch::rs_f32_chain): one check for the chain, so the tensor cores run it
/// back to back (single instructions each check, and ptxas then fences each).
///
/// Rules the caller keeps (PTX's): every warp of the warpgroup makes the same calls between
/// `begin` and `commit` (no branch on the warp); the accumulators and the `A` fragments are
/// written before `begin` (its fence orders those writes before the instructions; a
/// [`ss_rs_f32_groups`](Batch::ss_rs_f32_groups) fences again, for writes since); the shared
/// operands stay unwritten, and the accumulators unread, until a [`wait`] retires the group. The
/// emulator checks the first (each instruction is a rendezvous of the warpgroup's 128 threads,
/// all at one call site) and the last (a group's shared words must be unchanged when its wait
/// retires it); on the GPU a warp diverging inside the batch traps (each call checks the
/// warp converged), and ptxas orders an early read of an accumulator after the `wgmma`.
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16384 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     let (q, k) = (smem.array::<u32, 2048>(0).unwrap(), smem.array::<u32, 2048>(8192).unwrap());
///     let t = thread_idx().x as usize;
///     for i in 0..16 {
///         q.store(t + 128 * i, 0x3c00_3c00); // 1.0: Q 64 x 64
///         k.store(t + 128 * i, 0x4000_4000); // 2.0: K 64 x 64
///     }
///     const_layout_device::sync_threads();
///     let mut s = [0f32; 32]; // S = Q K^T, 64 x 64
///     let mut batch = wgmma::begin();
///     for kb in 0..4 {
///         let (a, b) = (SmemDesc::k_sw128(q, 64, 0, kb), SmemDesc::k_sw128(k, 64, 0, kb));
///         batch.ss_f32(HalfKind::F16, a, b, kb > 0, &mut s);
///     }
///     batch.commit();
///     wgmma::wait::<0, 32>(&mut s);
///     assert!(s.iter().all(|&x| x == 128.0));
/// })
/// .unwrap();
/// ```
#[must_use = "a batch issues nothing until its instructions are called, and is committed by `commit`"]
#[derive(Debug)]
pub struct Batch {
    // `begin_tma`'s `wgmma.fence`, not issued yet: the batch's first instructions issue it in
    // their own block, after their own check of the warp (a constant once inlined).
    fence_pending: bool,
    // Made by `begin` only; a thread's own (not `Send`).
    _private: core::marker::PhantomData<*const ()>,
}

/// Start a batch: the warpgroup meets at its named barrier (`bar.sync 1 + warpgroup, 128`), makes
/// its generic writes to shared memory visible to the tensor cores (`fence.proxy.async`), and
/// fences its registers (`wgmma.fence`). See [`Batch`].
#[track_caller]
#[inline(always)]
pub fn begin() -> Batch {
    let t = thread_idx();
    if t.y != 0 || t.z != 0 {
        fault("wgmma: one-dimensional blocks only");
    }
    // SAFETY: the warpgroup's call (the batch's rules, above); its barrier is 1 + its index.
    unsafe { backend::wgmma_begin(1 + t.x / 128, backend::site()) };
    Batch { fence_pending: false, _private: core::marker::PhantomData }
}

/// Start a batch whose shared-memory operands are already visible to the tensor cores: written by
/// TMA (the asynchronous proxy) and waited for on their mbarriers, or by generic stores that an
/// earlier [`begin`] fenced and nothing wrote since. Only `wgmma.fence` (CUTLASS's
/// `warpgroup_arrive()`): no rendezvous of the warpgroup at its named barrier and no
/// `fence.proxy.async`, which [`begin`] spends on generic writes. A pipelined main loop over TMA
/// stages (a GEMM's, FlashAttention's key loop) then issues its `wgmma`s right after its waits;
/// the Hopper attention forward ran 1.0-3.4% faster for it on the H200 (PERFORMANCE.md).
///
/// The calling thread must not have written shared memory since its last proxy fence (a
/// [`begin`]): the emulator checks that and panics, naming the call. Writes by other threads are
/// the caller's to order (as for [`begin`], through a barrier after their fence). The rules of
/// [`Batch`] hold as for [`begin`].
///
/// On the GPU the fence is issued with the batch's first instructions rather than here: a chain
/// issues it after its own check of the warp, and [`ss_rs_f32_groups`](Batch::ss_rs_f32_groups),
/// whose block fences anyway, issues nothing more. A key loop's batch then costs one check and
/// one `wgmma.fence` instead of two of each.
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16384 };
/// launch(&cfg, || {
///     let smem = SmemRegion::dynamic();
///     let (q, k) = (smem.array::<u32, 2048>(0).unwrap(), smem.array::<u32, 2048>(8192).unwrap());
///     let t = thread_idx().x as usize;
///     for i in 0..16 {
///         q.store(t + 128 * i, 0x3c00_3c00); // 1.0
///         k.store(t + 128 * i, 0x4000_4000); // 2.0
///     }
///     const_layout_device::sync_threads();
///     let desc = |x, kb| SmemDesc::k_sw128(x, 64, 0, kb);
///     let mut s = [0f32; 32];
///     // The first batch fences the generic writes; the second reads the same words.
///     for first in [true, false] {
///         let mut batch = if first { wgmma::begin() } else { wgmma::begin_tma() };
///         for kb in 0..4 {
///             batch.ss_f32(HalfKind::F16, desc(q, kb), desc(k, kb), !first || kb > 0, &mut s);
///         }
///         batch.commit();
///         wgmma::wait::<0, 32>(&mut s);
///     }
///     assert!(s.iter().all(|&x| x == 256.0));
/// })
/// .unwrap();
/// ```
#[track_caller]
#[inline(always)]
pub fn begin_tma() -> Batch {
    // SAFETY: the warpgroup's call (the batch's rules); `wgmma.fence` is all this start needs.
    unsafe { backend::wgmma_begin_tma(backend::site()) };
    Batch { fence_pending: true, _private: core::marker::PhantomData }
}

impl Batch {
    /// [`begin_tma`]'s fence, before the batch's first instructions.
    #[track_caller]
    #[inline(always)]
    fn fence(&mut self) {
        if self.fence_pending {
            self.fence_pending = false;
            // SAFETY: the warpgroup's batch (its rules), which `begin_tma` made.
            unsafe { backend::wgmma_fence_pending(backend::site()) }
        }
    }

    /// One `wgmma.mma_async.m64n{2R}k16.f32.{f16|bf16}` with both operands in shared memory:
    /// `d = A B^T` (`scale_d` false: `d` overwritten) or `d += A B^T`, `A` 64 x 16 (K-major,
    /// [`SmemDesc::k_sw128`], at least 64 rows), `B` `2R` x 16 (its `mn()` at least `2R`; K-major
    /// or MN-major, [`SmemDesc::mn_sw128`]), inputs of `kind`, `d` by `CLayout_64xN<2R>`: value
    /// `v` of thread `t` at `m = c % 64`, `n = c / 64` for `c = CLayout_64xN(t % 128, v)`.
    /// `R` is 32, 64 or 128 ([`Accumulators`]; a compile error otherwise). (Example: [`Batch`].)
    #[track_caller]
    #[inline(always)]
    pub fn ss_f32<const R: usize>(
        &mut self,
        kind: HalfKind,
        a: SmemDesc,
        b: SmemDesc,
        scale_d: bool,
        d: &mut [f32; R],
    ) where
        (): Accumulators<R>,
    {
        self.ss_f32_chain::<1, R>(kind, [a], [b], scale_d, d)
    }

    /// [`ss_f32`](Batch::ss_f32) with `A` from registers: the 64 x 16 tile by
    /// `GMMA::ALayout_64x16`, value `v` of thread `t` (at `m + 64 k = ALayout_64x16(t % 128, v)`)
    /// in half `v % 2` (low first) of `a[v / 2]` ([`a_fragment`] makes them from accumulators).
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 8192 };
    /// launch(&cfg, || {
    ///     let v = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap(); // V: 64 keys x 64
    ///     for i in 0..16 {
    ///         v.store(thread_idx().x as usize + 128 * i, 0x4000_4000); // 2.0
    ///     }
    ///     const_layout_device::sync_threads();
    ///     let p = [0x3c00_3c00u32; 4]; // P = 1.0, 64 x 16
    ///     let mut o = [1f32; 32];
    ///     let mut batch = wgmma::begin();
    ///     batch.rs_f32(HalfKind::F16, p, SmemDesc::mn_sw128(v, 64, 0), true, &mut o);
    ///     batch.commit();
    ///     wgmma::wait::<0, 32>(&mut o);
    ///     assert!(o.iter().all(|&x| x == 33.0)); // 1 + 16 * 2
    /// })
    /// .unwrap();
    /// ```
    #[track_caller]
    #[inline(always)]
    pub fn rs_f32<const R: usize>(
        &mut self,
        kind: HalfKind,
        a: [u32; 4],
        b: SmemDesc,
        scale_d: bool,
        d: &mut [f32; R],
    ) where
        (): Accumulators<R>,
    {
        self.rs_f32_chain::<1, R>(kind, &[a], [b], scale_d, d)
    }

    /// A GEMM's `K` k blocks in one chain: `d = sum_i A_i B_i^T` (plus `d` when `scale_d`), as
    /// `K` [`ss_f32`](Batch::ss_f32) calls of one `B` major-ness but issued as one block, after
    /// one check of the warp and the descriptors instead of one an instruction, so the tensor
    /// cores run the chain back to back (a check between two instructions makes ptxas fence
    /// each, and each then waits for the one before). `K` is 1 to 8 ([`ChainLength`]).
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16384 };
    /// launch(&cfg, || {
    ///     let smem = SmemRegion::dynamic();
    ///     let (q, k) = (smem.array::<u32, 2048>(0).unwrap(), smem.array::<u32, 2048>(8192).unwrap());
    ///     let t = thread_idx().x as usize;
    ///     for i in 0..16 {
    ///         q.store(t + 128 * i, 0x3c00_3c00); // 1.0: Q 64 x 64
    ///         k.store(t + 128 * i, 0x4000_4000); // 2.0: K 64 x 64
    ///     }
    ///     const_layout_device::sync_threads();
    ///     let a: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::k_sw128(q, 64, 0, kb));
    ///     let b: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::k_sw128(k, 64, 0, kb));
    ///     let mut s = [7f32; 32];
    ///     let mut batch = wgmma::begin();
    ///     batch.ss_f32_chain(HalfKind::F16, a, b, false, &mut s); // S = Q K^T, 64 x 64
    ///     batch.commit();
    ///     wgmma::wait::<0, 32>(&mut s);
    ///     assert!(s.iter().all(|&x| x == 128.0));
    /// })
    /// .unwrap();
    /// ```
    #[track_caller]
    #[inline(always)]
    pub fn ss_f32_chain<const K: usize, const R: usize>(
        &mut self,
        kind: HalfKind,
        a: [SmemDesc; K],
        b: [SmemDesc; K],
        scale_d: bool,
        d: &mut [f32; R],
    ) where
        (): Accumulators<R> + ChainLength<K>,
    {
        // Checked without a branch: the chain's one check traps on `ok` false.
        let ok = ss_operands_ok(&a, &b, R);
        let (da, db) = (a.map(|x| x.desc.0), b.map(|x| x.desc.0));
        let why = "wgmma: A must be K-major with 64 rows, B must cover N = 2 R rows, one major-ness";
        self.fence();
        // SAFETY: `begin` met the warpgroup and fenced; the descriptors were built by `SmemDesc`'s
        // checked constructors, inside their arrays for 64 rows of A and 2 R of B, or `ok` is
        // false and the chain traps before its first instruction; `R` is 32, 64 or 128 and `K`
        // 1 to 8 (the bounds).
        unsafe { backend::wgmma_ss_f32(kind, &da, &db, ok, why, b[0].mn_major, scale_d, d, backend::site()) }
    }

    /// [`ss_f32_chain`](Batch::ss_f32_chain) with `A` from registers, an array a k block (as
    /// [`rs_f32`](Batch::rs_f32); FlashAttention's `O += P V` over a key tile).
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 8192 };
    /// launch(&cfg, || {
    ///     let v = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap(); // V: 64 keys x 64
    ///     for i in 0..16 {
    ///         v.store(thread_idx().x as usize + 128 * i, 0x4000_4000); // 2.0
    ///     }
    ///     const_layout_device::sync_threads();
    ///     let p = [[0x3c00_3c00u32; 4]; 4]; // P = 1.0, 64 x 64
    ///     let b: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::mn_sw128(v, 64, kb));
    ///     let mut o = [1f32; 32];
    ///     let mut batch = wgmma::begin();
    ///     batch.rs_f32_chain(HalfKind::F16, &p, b, true, &mut o);
    ///     batch.commit();
    ///     wgmma::wait::<0, 32>(&mut o);
    ///     assert!(o.iter().all(|&x| x == 129.0)); // 1 + 64 * 2
    /// })
    /// .unwrap();
    /// ```
    #[track_caller]
    #[inline(always)]
    pub fn rs_f32_chain<const K: usize, const R: usize>(
        &mut self,
        kind: HalfKind,
        a: &[[u32; 4]; K],
        b: [SmemDesc; K],
        scale_d: bool,
        d: &mut [f32; R],
    ) where
        (): Accumulators<R> + ChainLength<K>,
    {
        let ok = rs_operands_ok(&b, R);
        let db = b.map(|x| x.desc.0);
        let why = "wgmma: B must cover N = 2 R rows, one major-ness";
        self.fence();
        // SAFETY: as in `ss_f32_chain` (the fence also orders the writes of `a`, made before
        // `begin`).
        unsafe { backend::wgmma_rs_f32(kind, a, &db, ok, why, b[0].mn_major, scale_d, d, backend::site()) }
    }

    /// `wgmma.commit_group` without ending the batch: the instructions issued so far become one
    /// group, the later ones the next, with no new [`begin`] in between (its rendezvous and
    /// fences). For two GEMMs a warpgroup waits for apart, FlashAttention's `S` of one key tile
    /// and `O += P V` of the one before: `wait::<1>` then retires the first alone. What `begin`
    /// ordered still holds for the later instructions, so their accumulators and `A` fragments
    /// must not be written since `begin` either.
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 8192 };
    /// launch(&cfg, || {
    ///     let m = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap(); // 64 x 64 of 1.0
    ///     for i in 0..16 {
    ///         m.store(thread_idx().x as usize + 128 * i, 0x3c00_3c00);
    ///     }
    ///     const_layout_device::sync_threads();
    ///     let (mut s, mut o) = ([0f32; 32], [0f32; 32]);
    ///     let mut batch = wgmma::begin();
    ///     batch.ss_f32(HalfKind::F16, SmemDesc::k_sw128(m, 64, 0, 0), SmemDesc::k_sw128(m, 64, 0, 0), false, &mut s);
    ///     batch.commit_group(); // group 1: s
    ///     batch.rs_f32(HalfKind::F16, [0x3c00_3c00; 4], SmemDesc::mn_sw128(m, 64, 0), false, &mut o);
    ///     batch.commit(); // group 2: o
    ///     wgmma::wait::<1, 32>(&mut s); // s is done; o may not be
    ///     assert!(s.iter().all(|&x| x == 16.0));
    ///     wgmma::wait::<0, 32>(&mut o);
    ///     assert!(o.iter().all(|&x| x == 16.0));
    /// })
    /// .unwrap();
    /// ```
    #[track_caller]
    #[inline(always)]
    pub fn commit_group(&mut self) {
        self.fence();
        // SAFETY: the warpgroup met at `begin`, which made this batch.
        unsafe { backend::wgmma_commit(backend::site()) }
    }

    /// `wgmma.commit_group`: the batch's instructions become one group for [`wait`].
    #[track_caller]
    #[inline(always)]
    pub fn commit(mut self) {
        self.fence();
        // SAFETY: the warpgroup met at `begin`, which made this batch.
        unsafe { backend::wgmma_commit(backend::site()) }
    }

    /// Two GEMMs as two groups, in one block that ends the batch: `d1 = sum_i A1_i B1_i^T` (plus
    /// `d1` when `scale_d1`; as [`ss_f32_chain`](Batch::ss_f32_chain)) committed, then
    /// `d2 += sum_i A2_i B2_i^T` (plus `d2` when `scale_d2`; as [`rs_f32_chain`](Batch::rs_f32_chain))
    /// committed, so `wait::<1>` retires the first with the second in flight (FlashAttention-3's
    /// `S` of one key tile and `O += P V` of the one before). The instructions, to the last, are
    /// in one `asm!` block after one check of the warp and of every descriptor and a `wgmma.fence`:
    /// ptxas fences after any check between two `wgmma`s, and a fence between the chains makes the
    /// second wait for the first on the tensor cores (10% of the attention kernel's time). What
    /// [`begin`] ordered holds for both; the fence in the block also orders register writes since.
    /// The shapes are those of [`ChainPair`].
    ///
    /// ```
    /// # use const_layout_device::emu::{launch, LaunchConfig};
    /// # use const_layout_device::{wgmma::{self, SmemDesc}, Dim3, HalfKind, SmemRegion, thread_idx};
    /// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 8192 };
    /// launch(&cfg, || {
    ///     let m = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap(); // 64 x 64 of 1.0
    ///     for i in 0..16 {
    ///         m.store(thread_idx().x as usize + 128 * i, 0x3c00_3c00);
    ///     }
    ///     const_layout_device::sync_threads();
    ///     let k: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::k_sw128(m, 64, 0, kb));
    ///     let v: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::mn_sw128(m, 64, kb));
    ///     let (mut s, mut o) = ([0f32; 32], [1f32; 32]);
    ///     let p = [[0x4000_4000u32; 4]; 4]; // P = 2.0, 64 x 64
    ///     // S = Q K^T (64 x 64, d = 64), then O += P V: two groups.
    ///     wgmma::begin().ss_rs_f32_groups(HalfKind::F16, k, k, false, &mut s, &p, v, true, &mut o);
    ///     wgmma::wait::<1, 32>(&mut s); // s is done; o may not be
    ///     assert!(s.iter().all(|&x| x == 64.0));
    ///     wgmma::wait::<0, 32>(&mut o);
    ///     assert!(o.iter().all(|&x| x == 129.0)); // 1 + 64 * 2
    /// })
    /// .unwrap();
    /// ```
    #[track_caller]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn ss_rs_f32_groups<const K1: usize, const R1: usize, const K2: usize, const R2: usize>(
        self,
        kind: HalfKind,
        a1: [SmemDesc; K1],
        b1: [SmemDesc; K1],
        scale_d1: bool,
        d1: &mut [f32; R1],
        a2: &[[u32; 4]; K2],
        b2: [SmemDesc; K2],
        scale_d2: bool,
        d2: &mut [f32; R2],
    ) where
        (): ChainPair<K1, R1, K2, R2>,
    {
        // Both chains' checks (as `ss_f32_chain`'s and `rs_f32_chain`'s), without a branch.
        let ok = ss_operands_ok(&a1, &b1, R1) & rs_operands_ok(&b2, R2);
        let (da1, db1, db2) = (a1.map(|x| x.desc.0), b1.map(|x| x.desc.0), b2.map(|x| x.desc.0));
        let why = "wgmma: A must be K-major with 64 rows, B must cover N = 2 R rows, one major-ness a chain";
        // SAFETY: `begin` met the warpgroup and fenced, and made this batch (a `begin_tma`'s
        // pending fence is the block's own `wgmma.fence`); the descriptors were
        // built by `SmemDesc`'s checked constructors, inside their arrays for 64 rows of A and 2 R
        // of B, or `ok` is false and the block traps before its first instruction; the shapes are
        // written out (`ChainPair`).
        unsafe {
            backend::wgmma_ss_rs_f32(
                kind,
                (&da1, &db1, b1[0].mn_major, scale_d1),
                d1,
                (a2, &db2, b2[0].mn_major, scale_d2),
                d2,
                ok,
                why,
                backend::site(),
            )
        }
    }
}

/// Whether an SS chain's operands fit it (without a branch): `A` K-major with 64 rows, `B` of `2 R`
/// rows or more and one major-ness.
#[inline(always)]
fn ss_operands_ok<const K: usize>(a: &[SmemDesc; K], b: &[SmemDesc; K], r: usize) -> bool {
    let mut ok = rs_operands_ok(b, r);
    for x in a {
        ok &= !x.mn_major & (x.mn >= 64);
    }
    ok
}

/// Whether an RS chain's `B` operands fit it: `2 R` rows or more, one major-ness.
#[inline(always)]
fn rs_operands_ok<const K: usize>(b: &[SmemDesc; K], r: usize) -> bool {
    let mut ok = true;
    for x in b {
        ok &= (x.mn as usize >= 2 * r) & (x.mn_major == b[0].mn_major);
    }
    ok
}

/// `wgmma.wait_group PENDING`: every group of the warpgroup but the newest `PENDING` is done, and
/// `d` (the accumulators of such a group, tied to the wait so that nothing reads them before it)
/// is the thread's again; the groups' shared operands may be written after it. `PENDING` is 0 to
/// 7, `R` 32, 64 or 128. (Example: [`Batch`].)
#[track_caller]
#[inline(always)]
pub fn wait<const PENDING: u32, const R: usize>(d: &mut [f32; R])
where
    (): PendingGroups<PENDING> + Accumulators<R>,
{
    backend::wgmma_wait_f32::<PENDING, R>(d, backend::site())
}

/// [`wait`] with two accumulator arrays tied to it (a GEMM's `S` and another's `O`).
///
/// ```
/// # use const_layout_device::emu::{launch, LaunchConfig};
/// # use const_layout_device::{wgmma, Dim3};
/// # let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 0 };
/// launch(&cfg, || {
///     let (mut s, mut o) = ([0f32; 64], [0f32; 64]);
///     wgmma::wait2::<0, 64, 64>(&mut s, &mut o); // nothing pending: returns at once
/// })
/// .unwrap();
/// ```
#[track_caller]
#[inline(always)]
pub fn wait2<const PENDING: u32, const R1: usize, const R2: usize>(d1: &mut [f32; R1], d2: &mut [f32; R2])
where
    (): PendingGroups<PENDING> + Accumulators<R1> + Accumulators<R2>,
{
    backend::wgmma_wait2_f32::<PENDING, R1, R2>(d1, d2, backend::site())
}

/// The `A` fragment of [`Batch::rs_f32`] for k block `kb` from `f32` accumulators `d` of a
/// `wgmma` with `N = 2 R` (FlashAttention's `P`, from `S`'s registers): values `8 kb..8 kb + 8`
/// packed two to a register as `kind` (round to nearest even), since `CLayout_64xN` restricted to
/// columns `16 kb..16 kb + 16` is `ALayout_64x16`. `kb` below `R / 8`.
///
/// ```
/// use const_layout_device::{wgmma, HalfKind};
/// let mut s = [0f32; 32];
/// s[8] = 1.0;
/// s[9] = 2.0;
/// assert_eq!(wgmma::a_fragment(HalfKind::F16, &s, 1)[0], 0x4000_3c00);
/// ```
#[inline(always)]
pub fn a_fragment<const R: usize>(kind: HalfKind, d: &[f32; R], kb: usize) -> [u32; 4] {
    if 8 * kb + 8 > R {
        fault("wgmma::a_fragment: no such k block");
    }
    core::array::from_fn(|j| crate::pack_half2(kind, d[8 * kb + 2 * j], d[8 * kb + 2 * j + 1]))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::{LaunchConfig, launch};
    use crate::{Dim3, SmemRegion};
    use const_layout::atom::gmma::{LayoutType, layout_atom, make_gmma_desc};
    use const_layout::swizzle::{ComposedLayout, Outer};
    use std::format;
    use std::string::ToString;

    fn sw128() -> const_layout::swizzle::Swizzle {
        let atom = layout_atom(Major::MN, LayoutType::B128, 16).unwrap();
        let Outer::Swizzle(sw) = *atom.outer() else { panic!("{atom}") };
        sw
    }

    #[test]
    fn the_mn_descriptor_is_make_gmma_descs() {
        // V's stages: `rows` keys x 64 halves, two side by side (N = 128): element (n, k) at
        // (n / 64) 64 rows + 64 k + n % 64; the k block of 16 keys as ((64,2),16).
        for rows in [64, 128, 256] {
            let block = ComposedLayout::new(
                sw128(),
                format!("((_64,_2),_16):((_1,_{}),_64)", 64 * rows).parse().unwrap(),
            );
            let d = make_gmma_desc(Major::MN, &block, 16, 0).unwrap();
            let lbo = (128 * rows / 16) as u64;
            assert_eq!(d, GmmaDescriptor(DESC_MN_SW128.0 | lbo << 16), "rows {rows}");
        }
    }

    #[test]
    fn smem_descs_are_the_stage_layouts_blocks() {
        let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 3 * 65536 };
        launch(&cfg, || {
            let smem = SmemRegion::dynamic();
            // K-major: the start of block (first_row, kb) is `descriptors`' (the stage layout's
            // unswizzled offset), for one k tile and for the second of two.
            let one = smem.array::<u32, 8192>(65536).unwrap();
            let two = smem.array::<u32, 16384>(65536).unwrap();
            for (first_row, kb) in [(0, 0), (64, 3), (128, 1), (192, 2)] {
                let want = descriptors(k_sw128_stage!(256), 65536, first_row)[kb];
                assert_eq!(SmemDesc::k_sw128(one, 256, first_row, kb).descriptor().0, want);
                assert_eq!(SmemDesc::k_sw128(two, 256, first_row, kb).descriptor().0, want);
                let second = SmemDesc::k_sw128(two, 256, first_row, 4 + kb).descriptor();
                assert_eq!(second, GmmaDescriptor(want).advanced(256 * 128 / 16));
                assert_eq!(SmemDesc::k_sw128(two, 256, first_row, kb).mn(), 256 - first_row);
            }
            // MN-major: the k block's first key, as `make_gmma_desc` places it.
            let v = smem.array::<u32, 8192>(65536).unwrap();
            let b = SmemDesc::mn_sw128(v, 128, 5);
            let block = ComposedLayout::with_offset(
                Outer::Swizzle(sw128()),
                const_layout::dyn_layout::DynInt::new_static(5 * 16 * 64),
                "((_64,_2),_16):((_1,_8192),_64)".parse().unwrap(),
            );
            assert_eq!(b.descriptor(), make_gmma_desc(Major::MN, &block, 16, 65536).unwrap());
            assert_eq!((b.mn(), b.major()), (128, Major::MN));
        })
        .unwrap();
    }

    /// `f` run by a block of `threads` with 64 KiB of shared memory faults with a message
    /// containing `what`.
    fn fails_with(threads: u32, f: fn(SmemRegion), what: &str) {
        let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(threads), dynamic_smem_bytes: 65536 };
        let e = launch(&cfg, move || f(SmemRegion::dynamic())).unwrap_err().to_string();
        assert!(e.contains(what), "{e}");
    }

    /// A K-major and an MN-major descriptor of the 64-row stage at the start of `s`.
    fn both_majors(s: SmemRegion) -> (SmemDesc, SmemDesc) {
        let m = s.array::<u32, 2048>(0).unwrap();
        (SmemDesc::k_sw128(m, 64, 0, 0), SmemDesc::mn_sw128(m, 64, 0))
    }

    #[test]
    fn bad_chains_fault() {
        // A chain's descriptors are checked before its first instruction: too few rows of B for
        // N, A MN-major, or B of two major-nesses all fault with the chain's message.
        let fails = |f: fn(SmemRegion), what: &str| fails_with(128, f, what);
        // 64 rows: N = 128 needs 128.
        fails(
            |s| {
                let (k, _) = both_majors(s);
                let (mut d, mut b) = ([0f32; 64], begin());
                b.ss_f32_chain(HalfKind::F16, [k], [k], false, &mut d);
                b.commit();
            },
            "B must cover N = 2 R rows",
        );
        fails(
            |s| {
                let (k, mn) = both_majors(s);
                let (mut d, mut b) = ([0f32; 32], begin());
                b.ss_f32_chain(HalfKind::F16, [mn, k], [k, k], false, &mut d);
                b.commit();
            },
            "A must be K-major",
        );
        fails(
            |s| {
                let (k, mn) = both_majors(s);
                let (mut d, mut b) = ([0f32; 32], begin());
                b.rs_f32_chain(HalfKind::F16, &[[0; 4]; 2], [k, mn], false, &mut d);
                b.commit();
            },
            "one major-ness",
        );
        // A pair checks both chains before its first instruction: the second's B of 64 rows
        // for N = 128, then the first's A MN-major.
        fails(
            |s| {
                let (k, mn) = both_majors(s);
                let (mut s1, mut o) = ([0f32; 32], [0f32; 64]);
                let v = [mn; 4];
                begin().ss_rs_f32_groups(
                    HalfKind::F16,
                    [k; 4],
                    [k; 4],
                    false,
                    &mut s1,
                    &[[0; 4]; 4],
                    v,
                    true,
                    &mut o,
                );
            },
            "B must cover N = 2 R rows",
        );
        fails(
            |s| {
                let (k, mn) = both_majors(s);
                let (mut s1, mut o) = ([0f32; 32], [0f32; 32]);
                begin().ss_rs_f32_groups(
                    HalfKind::F16,
                    [mn; 4],
                    [k; 4],
                    false,
                    &mut s1,
                    &[[0; 4]; 4],
                    [mn; 4],
                    true,
                    &mut o,
                );
            },
            "A must be K-major",
        );
    }

    #[test]
    fn pair_is_its_two_chains() {
        // `ss_rs_f32_groups` gives what the two chains give, committed apart, on operands of
        // distinct values (each thread's element index, as halves): both majors of B, both
        // kinds, scale_d of both values.
        let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 16384 };
        for kind in [HalfKind::F16, HalfKind::BF16] {
            launch(&cfg, move || {
                let m = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap();
                let t = thread_idx().x as usize;
                for i in 0..16 {
                    let w = t + 128 * i;
                    let h = |x: usize| crate::pack_half2(kind, (x % 7) as f32 - 3.0, (x % 5) as f32 * 0.5);
                    m.store(w, h(w));
                }
                crate::sync_threads();
                let k: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::k_sw128(m, 64, 0, kb));
                let v: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::mn_sw128(m, 64, kb));
                let p: [[u32; 4]; 4] = core::array::from_fn(|kb| {
                    core::array::from_fn(|j| crate::pack_half2(kind, (t + kb + j) as f32 * 0.25, 1.0))
                });
                for scale in [false, true] {
                    let (mut s1, mut o1) = ([0.5f32; 32], [2f32; 32]);
                    let (mut s2, mut o2) = (s1, o1);
                    begin().ss_rs_f32_groups(kind, k, k, scale, &mut s1, &p, v, scale, &mut o1);
                    wait2::<0, 32, 32>(&mut s1, &mut o1);
                    let mut b = begin();
                    b.ss_f32_chain(kind, k, k, scale, &mut s2);
                    b.commit_group();
                    b.rs_f32_chain(kind, &p, v, scale, &mut o2);
                    b.commit();
                    wait2::<0, 32, 32>(&mut s2, &mut o2);
                    assert_eq!((s1, o1), (s2, o2));
                    assert!(s1.iter().chain(&o1).any(|&x| x != 0.0 && x != 0.5 && x != 2.0));
                }
            })
            .unwrap();
        }
    }

    #[test]
    fn bad_stages_fault() {
        let fails = |f: fn(SmemRegion), what: &str| fails_with(1, f, what);
        fails(
            |s| {
                let _ = SmemDesc::k_sw128(s.array::<u32, 4096>(512).unwrap(), 128, 0, 0);
            },
            "1024-byte aligned",
        );
        fails(
            |s| {
                let _ = SmemDesc::k_sw128(s.array::<u32, 4096>(0).unwrap(), 96, 0, 0);
            },
            "whole k tiles",
        );
        fails(
            |s| {
                let _ = SmemDesc::k_sw128(s.array::<u32, 4096>(0).unwrap(), 128, 4, 0);
            },
            "multiple of 8",
        );
        fails(
            |s| {
                let _ = SmemDesc::k_sw128(s.array::<u32, 4096>(0).unwrap(), 128, 0, 4);
            },
            "no such k block",
        );
        fails(
            |s| {
                let _ = SmemDesc::mn_sw128(s.array::<u32, 4096>(0).unwrap(), 128, 8);
            },
            "no such k block",
        );
        fails(
            |s| {
                let _ = SmemDesc::mn_sw128(s.array::<u32, 4096>(0).unwrap(), 24, 0);
            },
            "whole stages",
        );
    }
}
