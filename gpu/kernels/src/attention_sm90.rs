//! Attention forward on Hopper, FlashAttention's algorithm with CUTLASS's Hopper structure:
//! `O = softmax(Q K^T * scale + mask) V` and the rows' log-sum-exp, for `f16` or `bf16` `Q`, `K`,
//! `V` and `O`, `f32` accumulation, head dims 64, 128 and 256, causal or not, any `seq_q` and `seq_k`,
//! batches of heads, and grouped-query attention (GQA/MQA) through a layout.
//!
//! - **Tiles.** A block computes [`block_m`]`(d)` query rows of one head against all keys, in tiles
//!   of [`block_n`]`(d)` keys: 128 rows by 128 keys at head dim 128, 192 by 128 at 64 and 128 by
//!   64 at 256 (FlashAttention-3's tiles, with 64 keys for its 80 at 256: the `TMA` box's rows and
//!   the `wgmma` k blocks of `P V` stay whole). Each consumer warpgroup takes 64 rows (the `wgmma`
//!   atom's `M`): two at head dims 128 and 256, three at 64, where the exponentials take as long
//!   as the GEMMs and two warpgroups' softmax must run under one's GEMMs. A producer warpgroup's first thread issues the TMA loads (CUTLASS's warp
//!   specialization, with its `setmaxnreg` register split).
//! - **Shared memory.** `Q` once (in 128-row boxes), then [`STAGES`] stages of `K` and of `V`,
//!   each `D / 64` chunks of `tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (block_n, 64))`
//!   ([`k_sw128_stage!`](const_layout_device::k_sw128_stage)): the layout TMA writes with the
//!   128-byte swizzle, and the one both GEMMs read. `K`'s stage is the first GEMM's `B`, K-major;
//!   `V`'s the second GEMM's `B`, MN-major (head dim contiguous): the same bytes, another
//!   descriptor.
//! - **Global to shared: TMA on rank-4 tensors** `(dim, seq, heads, batch)`, boxes from the stage's
//!   layout ([`q_box`] and [`kv_box`], 64 halves by 128 or [`block_n`] rows, 128-byte swizzle).
//!   TMA fills zeros outside the tensors, so
//!   residues of `seq_q` and `seq_k` need no predicate on the loads.
//! - **GQA as a layout.** The key/value head of query head `h` is the layout
//!   `(heads/kv_heads, kv_heads):(_0, _1)` at `h` (CUTLASS's FMHA: a head mode of stride 0), not code.
//! - **The first GEMM**, `S = Q K^T`: `wgmma.m64n{block_n}k16` from shared memory, `f32`
//!   accumulators in `CLayout_64xN<block_n>`.
//! - **Masks from coordinates.** Each accumulator's `(m, n)` comes from the atom's `C` layout, the
//!   identity layout partitioned as the data is (`fragment::Fragment::coord`): keys past `seq_k`,
//!   and for causal attention keys after the query (`n > m`, PyTorch's top-left alignment), get
//!   `-inf`. Only tiles that cross the boundary test anything (a loop of their own).
//!   At head dim 64 a causal warpgroup reads only the key tiles up to its own last row and
//!   releases the block's later ones unread.
//! - **Online softmax** in base 2 (`ex2.approx`): each row's max over a thread's values, then over
//!   the lanes that share the row, which the reduction plan of the `C` layout names (xor 1 and 2);
//!   the sums stay per thread until the end.
//! - **The second GEMM**, `O += P V`: `P`'s accumulators become the `A` operand of
//!   `wgmma.m64n{D}k16` in registers (RS). The register permutation from `C`'s layout to `A`'s is
//!   computed from the atoms' layouts at compile time (`PFromS`, the identity for these atoms;
//!   a permutation that needed a shuffle would not compile).
//! - **Overlap** (FlashAttention-3's). Each key tile `j` issues `S_j = Q K_j^T` and
//!   `O += P_{j-1} V_{j-1}` in one `wgmma` batch of two groups, waits for `S_j` alone and runs its
//!   softmax while `P V` is in flight; at head dims 64 and 128 the consumer warpgroups take turns
//!   issuing (ping-pong, a ring of named barriers), so one's softmax runs under the others' GEMMs
//!   (at 256, whose tiles of 64 keys give the softmax half the work against the same GEMMs,
//!   they issue freely). Each GEMM's k blocks are
//!   one `wgmma` chain (`Batch::ss_f32_chain`, `rs_f32_chain`). Tiles no mask touches run in a
//!   loop without the mask code.
//! - **Epilogue.** `O / l` rounded to halves, written two a word from the `C` layout's
//!   coordinates to the warpgroup's own rows of `Q`'s stage (in its swizzle), then out in 16-byte
//!   stores along rows (predicated on `seq_q`); the log-sum-exp `m * scale + ln l` of each row,
//!   for a backward pass.

use const_layout::atom::fragment::{AccToOperand, FragmentC, RowReduction};
use const_layout::atom::tma::TmaBox;
use const_layout::int::Int;
use const_layout::{C, Layout, make_layout};
use const_layout_device::fragment;
use const_layout_device::tma::{Mbarrier, TmaTensor};
use const_layout_device::wgmma::{self, SmemDesc};
use const_layout_device::{
    DeviceTensor, Dim3, DynNamedBarrier, GlobalTensor, HalfKind, MemoryMut, Partial, SmemArray, SmemRegion,
    block_dim, block_idx, fault, k_sw128_stage, math, pack_half2, thread_idx, unroll, warp,
};

/// Query rows a block at head dim `d`: 64 a consumer warpgroup (the `wgmma` atom's `M`), three
/// consumer warpgroups at head dim 64 (192 rows) and two at 128 and 256 (FlashAttention-3's tiles: at
/// head dim 64 the softmax's exponentials take as long as the GEMMs, and a third warpgroup keeps
/// the tensor cores fed while two run their softmax).
///
/// ```
/// use const_layout_kernels::attention_sm90::block_m;
/// assert_eq!((block_m(64), block_m(128), block_m(256)), (192, 128, 128));
/// ```
pub const fn block_m(d: usize) -> usize {
    if d == 64 { 192 } else { 128 }
}

/// Keys a tile at head dim `d`: 128, and 64 at head dim 256 (whose `O` takes 128 registers a
/// thread, so that `S` must fit in 32 more; FlashAttention-3 takes 80 there).
///
/// ```
/// use const_layout_kernels::attention_sm90::block_n;
/// assert_eq!((block_n(64), block_n(128), block_n(256)), (128, 128, 64));
/// ```
pub const fn block_n(d: usize) -> usize {
    if d == 256 { 64 } else { 128 }
}

/// Consumer warpgroups a block at head dim `d`: [`block_m`]` / 64`.
///
/// ```
/// use const_layout_kernels::attention_sm90::consumers;
/// assert_eq!((consumers(64), consumers(128)), (3, 2));
/// ```
pub const fn consumers(d: usize) -> usize {
    block_m(d) / 64
}

/// Threads a block at head dim `d`: the consumer warpgroups and a producer warpgroup.
///
/// ```
/// use const_layout_kernels::attention_sm90::threads;
/// assert_eq!((threads(64), threads(128), threads(256)), (512, 384, 384));
/// ```
pub const fn threads(d: usize) -> u32 {
    128 * (consumers(d) as u32 + 1)
}

/// Stages of `K` and of `V` (2 to 4; 3 measured slower than 2 at head dim 128 on the H200).
pub const STAGES: usize = 2;
/// Bytes of a 128 x 64 chunk of halves.
const CHUNK_BYTES: u32 = 16384;
/// Words of a chunk.
const CHUNK_WORDS: usize = 4096;

/// The bytes of `Q`'s tile at head dim `d`: [`block_m`] rows rounded up to the 128 rows of a
/// TMA box, in chunks of 128 x 64 (at head dim 64 the last box's 64 rows past the block are
/// loaded and not read).
const fn q_bytes(d: usize) -> u32 {
    (block_m(d).div_ceil(128) * (d / 64)) as u32 * CHUNK_BYTES
}

/// The bytes of a stage of `K` or `V` at head dim `d`: [`block_n`] rows of `d` halves.
const fn kv_stage_bytes(d: usize) -> u32 {
    (block_n(d) * d * 2) as u32
}

/// The shared memory a block of head dim `d` needs: `Q`, the stages of `K` and `V`, the mbarriers
/// and room to align to 1024 bytes.
///
/// ```
/// use const_layout_kernels::attention_sm90::smem_bytes;
/// assert_eq!(smem_bytes(128), 1024 + 32768 * 5 + 1024);
/// assert_eq!(smem_bytes(64), 1024 + 32768 + 16384 * 4 + 1024);
/// assert_eq!(smem_bytes(256), 1024 + 65536 + 32768 * 4 + 1024);
/// ```
pub const fn smem_bytes(d: usize) -> u32 {
    1024 + q_bytes(d) + kv_stage_bytes(d) * 2 * STAGES as u32 + 1024
}

/// The TMA box of `Q` (and of `K` and `V` at head dims 64 and 128): a chunk of 64 halves of head
/// dim by 128 rows, the 128-byte swizzle, from the stage's layout.
///
/// ```
/// use const_layout::atom::tma::TmaSwizzle;
/// let b = const_layout_kernels::attention_sm90::q_box();
/// assert_eq!((b.inner, b.outer, b.swizzle, b.bytes()), (64, 128, TmaSwizzle::B128, 16384));
/// ```
#[inline(always)]
pub fn q_box() -> TmaBox {
    k_sw128_stage!(128).tma_box::<16>()
}

/// The TMA box of `K` and `V` at head dim `d`: 64 halves by [`block_n`]`(d)` rows, from the
/// stage's layout (the same as [`q_box`] but at head dim 256).
///
/// ```
/// use const_layout_kernels::attention_sm90::{kv_box, q_box};
/// assert_eq!((kv_box(128), kv_box(64)), (q_box(), q_box()));
/// assert_eq!((kv_box(256).inner, kv_box(256).outer, kv_box(256).bytes()), (64, 64, 8192));
/// ```
#[inline(always)]
pub fn kv_box(d: usize) -> TmaBox {
    if block_n(d) == 64 { k_sw128_stage!(64).tma_box::<16>() } else { q_box() }
}

/// The grid for `seq_q` queries of `heads` heads and `batch` sequences at head dim `d`: `x` the
/// block of [`block_m`]`(d)` rows, longest causal blocks first.
///
/// ```
/// use const_layout_device::Dim3;
/// use const_layout_kernels::attention_sm90::grid;
/// assert_eq!(grid(128, 300, 16, 2), Dim3 { x: 3, y: 16, z: 2 });
/// assert_eq!(grid(64, 300, 16, 2), Dim3 { x: 2, y: 16, z: 2 });
/// ```
pub fn grid(d: usize, seq_q: u32, heads: u32, batch: u32) -> Dim3 {
    Dim3 { x: seq_q.div_ceil(block_m(d) as u32), y: heads, z: batch }
}

/// The accumulator of the first GEMM, `S`, a warpgroup's 64 x `N`: the `C` of
/// `SM90_64xNx16_F32F16F16_SS<N>` (the same for bf16).
type SAtom<const N: usize> = const_layout::atom::SM90_64xNx16_F32F16F16_SS<N>;
/// The second GEMM's atom, `A` from registers.
type OAtom<const D: usize> = const_layout::atom::SM90_64xNx16_F32F16F16_RS<D>;

/// `S`'s fragment: a warpgroup's 64 x `N` accumulators, CuTe's `partition_fragment_C`.
type SFrag<const N: usize> = FragmentC<SAtom<N>, 64, N>;
/// `O`'s fragment: a warpgroup's 64 x `D` accumulators.
type OFrag<const D: usize> = FragmentC<OAtom<D>, 64, D>;
/// `P` (`S`'s registers after the softmax) as the second GEMM's `A` operand: the register
/// permutation from the atoms' layouts, at compile time (the identity for the `wgmma` atoms; one
/// that needed a shuffle would not compile).
type PFromS<const N: usize> = AccToOperand<SAtom<N>, OAtom<64>, 64, N>;
/// The rows of `S` a thread holds and the lanes that share them (xor 1 and 2).
type SRows<const N: usize> = RowReduction<SFrag<N>>;
/// The rows of `O` a thread holds: the same rows as `S`'s, group for group (checked below).
type ORows<const D: usize> = RowReduction<OFrag<D>>;

// The softmax keeps one running max and sum a group of S's rows and scales O's group of the same
// index: the groups must be the same rows in every thread, and two of them, for every key tile and
// head dim.
const _: () = {
    assert!(SRows::<128>::PLAN.groups() == 2 && SRows::<128>::PLAN.per_group() == 32);
    assert!(SRows::<64>::PLAN.groups() == 2 && SRows::<64>::PLAN.per_group() == 16);
    let mut t = 0;
    while t < 128 {
        let mut g = 0;
        while g < 2 {
            let s = SRows::<128>::key(t, g);
            assert!(s == SRows::<64>::key(t, g));
            assert!(
                s == ORows::<64>::key(t, g) && s == ORows::<128>::key(t, g) && s == ORows::<256>::key(t, g)
            );
            g += 1;
        }
        t += 1;
    }
};

/// The group (row of the thread's two) of each of `O`'s registers, from the reduction plan (the
/// first `D / 2`).
const fn o_groups<const D: usize>() -> [usize; 128] {
    let plan = &ORows::<D>::PLAN;
    let mut out = [0; 128];
    let mut g = 0;
    while g < plan.groups() {
        let mut x = 0;
        while x < plan.per_group() {
            out[plan.register(g, x)] = g;
            x += 1;
        }
        g += 1;
    }
    out
}

// O is stored a word at a time: registers 2w and 2w + 1 are neighbours along the head dim (n even)
// in one row, in every thread.
const _: () = {
    let (g64, g128, g256) = (o_groups::<64>(), o_groups::<128>(), o_groups::<256>());
    let mut t = 0;
    while t < 128 {
        let mut w = 0;
        while w < 64 {
            let (a, b) = (OFrag::<256>::coord(t, 2 * w), OFrag::<256>::coord(t, 2 * w + 1));
            assert!(a.0 == b.0 && a.1 % 2 == 0 && b.1 == a.1 + 1 && g256[2 * w] == g256[2 * w + 1]);
            if w < 32 {
                let (a, b) = (OFrag::<128>::coord(t, 2 * w), OFrag::<128>::coord(t, 2 * w + 1));
                assert!(a.0 == b.0 && a.1 % 2 == 0 && b.1 == a.1 + 1 && g128[2 * w] == g128[2 * w + 1]);
            }
            if w < 16 {
                let (a, b) = (OFrag::<64>::coord(t, 2 * w), OFrag::<64>::coord(t, 2 * w + 1));
                assert!(a.0 == b.0 && a.1 % 2 == 0 && b.1 == a.1 + 1 && g64[2 * w] == g64[2 * w + 1]);
            }
            w += 1;
        }
        t += 1;
    }
};

/// Where `S`'s register `r` of thread `t` lies in its warpgroup's 64 x `N` tile: the identity
/// layout partitioned as the accumulators are.
#[inline(always)]
fn s_coord<const N: usize>(t: usize, r: usize) -> (u32, u32) {
    let (m, n) = SFrag::<N>::coord(t % 128, r);
    (m as u32, n as u32)
}

/// Register `r`'s coordinate in `S`'s 64 x `N` tile less register 0's, the same in every thread:
/// the fragment's coordinates are a per-thread base plus a per-register constant (the first
/// `N / 2` entries).
const fn s_offsets<const N: usize>() -> [(i32, i32); 64] {
    let mut out = [(0, 0); 64];
    let mut t = 0;
    while t < 128 {
        let base = SFrag::<N>::coord(t, 0);
        let mut r = 0;
        while r < N / 2 {
            let c = SFrag::<N>::coord(t, r);
            let d = (c.0 as i32 - base.0 as i32, c.1 as i32 - base.1 as i32);
            if t == 0 {
                out[r] = d;
            } else {
                assert!(d.0 == out[r].0 && d.1 == out[r].1, "S's coordinates are not a base plus a constant");
            }
            r += 1;
        }
        t += 1;
    }
    out
}

/// Where `O`'s register `r` of thread `t` lies in its warpgroup's 64 x `D` tile.
#[inline(always)]
fn o_coord<const D: usize>(t: usize, r: usize) -> (u32, u32) {
    let (m, n) = OFrag::<D>::coord(t % 128, r);
    (m as u32, n as u32)
}

/// The kernel's parameters other than its tensors.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// The softmax scale (usually `1 / sqrt(d)`).
    pub scale: f32,
    /// Causal: key `n` is masked for query `m < n` (PyTorch's `is_causal`, top-left).
    pub causal: bool,
    /// The element type.
    pub kind: HalfKind,
}

/// `(n / d, n % d)` for `n` and `d` below 2^24 (a grid's head index and a head count), without an
/// integer division (a kernel has none: the builder's check): the `f32` quotient, within one of
/// the true one there, corrected by multiplication.
#[inline(always)]
fn divmod_small(n: u32, d: u32) -> (u32, u32) {
    if n >= 1 << 24 || d == 0 || d >= 1 << 24 {
        fault("attention_sm90: a head index or count of 2^24 or more, or no heads");
    }
    let mut q = (n as f32 / d as f32) as u32;
    if q * d > n {
        q -= 1;
    } else if (q + 1) * d <= n {
        q += 1;
    }
    (q, n - q * d)
}

/// The key/value head of query head `h` among `heads` query heads and `kv_heads` key/value
/// heads (`heads` a multiple of `kv_heads`): `h` is the coordinate `(g, hk)` of the query heads'
/// layout `(heads/kv_heads, kv_heads):(_1, heads/kv_heads)`, and the key/value heads' layout is
/// `(heads/kv_heads, kv_heads):(_0, _1)` (CUTLASS's FMHA: a head mode of stride 0), at the same
/// coordinate.
///
/// ```
/// use const_layout_kernels::attention_sm90::kv_head;
/// assert_eq!((0..8).map(|h| kv_head(h, 8, 2)).collect::<Vec<_>>(), [0, 0, 0, 0, 1, 1, 1, 1]);
/// assert_eq!((0..6).map(|h| kv_head(h, 6, 2)).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1]);
/// assert_eq!(kv_head(5, 8, 8), 5);
/// assert_eq!(kv_head(5, 8, 1), 0);
/// ```
#[inline(always)]
pub fn kv_head(h: u32, heads: u32, kv_heads: u32) -> u32 {
    let (group, rest) = divmod_small(heads, kv_heads);
    if rest != 0 {
        fault("attention_sm90: the query heads are not a multiple of the key/value heads");
    }
    let (hk, g) = divmod_small(h, group);
    match make_layout((group, kv_heads), (C::<0>, C::<1>)) {
        Ok(l) => l.crd2idx((g as usize, hk as usize)) as u32,
        Err(_) => fault("attention_sm90: no heads"),
    }
}

/// Where the block writes `O`: words of two halves, `(seq_q, dim/2, heads, batch)`. Implemented
/// by the device layer's rank-4 global tensors of `u32`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not attention's output: a rank-4 global tensor of `u32` words (seq_q, dim/2, heads, batch)"
)]
pub trait OutputO: Copy {
    /// The extents.
    fn dims(&self) -> [u32; 4];
    /// Store rows `m0..m0 + 64` (`m0` a multiple of 64) of head `h` of sequence `b`, `words` words
    /// a row (32, 64 or 128), each 4 from `(m0 + r, w)` being `word4(r, w)`: thread `t` of 128 takes
    /// every 128th group of 4 words, in one 16-byte store where the tensor allows it
    /// (`DeviceTensor::vectorized`), else in four; rows past the tensor are left.
    fn store_rows<F: Fn(usize, usize) -> [u32; 4]>(
        &self,
        m0: u32,
        h: u32,
        b: u32,
        t: usize,
        words: usize,
        word4: F,
    );
}

/// [`OutputO::store_rows`] on the rows of one head, `rows` `(seq_q, dim/2)`: tiles of 64 rows
/// by 32 words, predicated on the rows that exist.
#[inline(always)]
fn store_rows_of<Tn, F>(rows: Tn, m0: u32, t: usize, words: usize, word4: &F)
where
    Tn: DeviceTensor<Mem: MemoryMut<Elem = u32>>,
    F: Fn(usize, usize) -> [u32; 4],
{
    unroll!(c in 0..4 => {
        if 32 * c < words
            && let Some(tile) = rows.local_tile_as::<Partial, 64, 32>((C::<64>, C::<32>), (m0 / 64, c as u32))
        {
            unroll!(i in 0..4 => {
                let k = t + 128 * i;
                let (r, w) = (k / 8, 4 * (k % 8));
                tile.store_vec4((r as u32, w as u32), word4(r, 32 * c + w));
            });
        }
    });
}

/// Where the block writes the log-sum-exp: `f32`, `(seq_q, heads, batch)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not attention's log-sum-exp output: a rank-3 global tensor of `f32` (seq_q, heads, batch)"
)]
pub trait OutputLse: Copy {
    /// The extents.
    fn dims(&self) -> [u32; 3];
    /// Store `x` at `crd` if it is inside the tensor.
    fn store(&self, crd: [u32; 3], x: f32);
}

impl<M, S0: Int, S1: Int, S2: Int, S3: Int, D0: Int, D1: Int, D2: Int, D3: Int> OutputO
    for GlobalTensor<M, Layout<(S0, S1, S2, S3), (D0, D1, D2, D3)>>
where
    M: MemoryMut<Elem = u32>,
    Self: Copy,
{
    #[inline(always)]
    fn dims(&self) -> [u32; 4] {
        let e = self.extents();
        [e.0 as u32, e.1 as u32, e.2 as u32, e.3 as u32]
    }
    #[inline(always)]
    fn store_rows<F: Fn(usize, usize) -> [u32; 4]>(
        &self,
        m0: u32,
        h: u32,
        b: u32,
        t: usize,
        words: usize,
        word4: F,
    ) {
        let Some(rows) = self.slice_last2(h, b) else {
            return;
        };
        match rows.vectorized() {
            Some(v) => store_rows_of(v, m0, t, words, &word4),
            None => store_rows_of(rows, m0, t, words, &word4),
        }
    }
}

impl<M, S0: Int, S1: Int, S2: Int, D0: Int, D1: Int, D2: Int> OutputLse
    for GlobalTensor<M, Layout<(S0, S1, S2), (D0, D1, D2)>>
where
    M: MemoryMut<Elem = f32>,
    Self: Copy,
{
    #[inline(always)]
    fn dims(&self) -> [u32; 3] {
        let e = self.extents();
        [e.0 as u32, e.1 as u32, e.2 as u32]
    }
    #[inline(always)]
    fn store(&self, crd: [u32; 3], x: f32) {
        self.store(crd, x)
    }
}

/// The stage of `W` words (rows x `D` halves: `D / 64` chunks of rows x 64) at `at`.
#[inline(always)]
fn stage<const W: usize>(smem: SmemRegion, at: u32) -> SmemArray<u32, W> {
    match smem.array::<u32, W>(at) {
        Some(x) => x,
        None => fault("attention_sm90: the block has less shared memory than smem_bytes(d)"),
    }
}

/// Chunk `c` of `CW` words (64 halves of the head dim by `CW / 32` rows) of a stage, where one TMA
/// box lands.
#[inline(always)]
fn chunk<const W: usize, const CW: usize>(st: SmemArray<u32, W>, c: u32) -> SmemArray<u32, CW> {
    st.part::<CW>(c as usize * CW)
}

/// The descriptors of `S = Q K^T` for the 64 rows of `q` from row `q_row` (a warpgroup's)
/// against the key tile of `N` keys in `k`, one a k block of 16 of the head dim: `KB = D / 16`
/// (the caller picks it from `D`; every head dim's branch is compiled, so it is not asserted
/// here). Made before a batch begins, so that nothing but a chain's check sits between the fence
/// and the instructions.
#[inline(always)]
fn s_descs<const W: usize, const WK: usize, const N: usize, const KB: usize>(
    q: SmemArray<u32, W>,
    q_row: usize,
    k: SmemArray<u32, WK>,
) -> ([SmemDesc; KB], [SmemDesc; KB]) {
    (
        core::array::from_fn(|kb| SmemDesc::k_sw128(q, 128, q_row, kb)),
        core::array::from_fn(|kb| SmemDesc::k_sw128(k, N, 0, kb)),
    )
}

/// The descriptors of `V`'s tile of `N` keys in `v` as `O += P V`'s `B`, one a k block of 16
/// keys: `KP = N / 16`.
#[inline(always)]
fn pv_descs<const WK: usize, const N: usize, const KP: usize>(v: SmemArray<u32, WK>) -> [SmemDesc; KP] {
    core::array::from_fn(|kb| SmemDesc::mn_sw128(v, N, kb))
}

/// `S = Q K^T` ([`s_descs`]): one chain committed, or at head dim 256 (16 k blocks, a chain is
/// at most 8) two chains in the group.
#[inline(always)]
fn issue_s<const W: usize, const WK: usize, const N: usize, const RS: usize, const KB: usize>(
    kind: HalfKind,
    q: SmemArray<u32, W>,
    q_row: usize,
    k: SmemArray<u32, WK>,
    acc_s: &mut [f32; RS],
) where
    (): wgmma::Accumulators<RS>,
{
    let (a, b) = s_descs::<W, WK, N, KB>(q, q_row, k);
    let mut batch = wgmma::begin_tma();
    if KB == 16 {
        batch.ss_f32_chain(kind, part::<KB, 8>(&a, 0), part::<KB, 8>(&b, 0), false, acc_s);
        batch.ss_f32_chain(kind, part::<KB, 8>(&a, 8), part::<KB, 8>(&b, 8), true, acc_s);
    } else if KB == 8 {
        batch.ss_f32_chain(kind, part::<KB, 8>(&a, 0), part::<KB, 8>(&b, 0), false, acc_s);
    } else {
        batch.ss_f32_chain(kind, part::<KB, 4>(&a, 0), part::<KB, 4>(&b, 0), false, acc_s);
    }
    batch.commit();
}

/// Descriptors `at..at + L` of `x` (a chain is at most 8 `wgmma`s; the caller's `at + L <= K`).
#[inline(always)]
fn part<const K: usize, const L: usize>(x: &[SmemDesc; K], at: usize) -> [SmemDesc; L] {
    core::array::from_fn(|i| x[at + i])
}

/// `O += P V` of the value tile of `N` keys in `v`, `P` in registers: one chain of the tile's
/// `KP` k blocks of 16 keys, committed.
#[inline(always)]
fn issue_pv<const R: usize, const WK: usize, const N: usize, const KP: usize>(
    kind: HalfKind,
    v: SmemArray<u32, WK>,
    pa: &[[u32; 4]; KP],
    acc_o: &mut [f32; R],
) where
    (): wgmma::Accumulators<R> + wgmma::ChainLength<KP>,
{
    let b = pv_descs::<WK, N, KP>(v);
    let mut batch = wgmma::begin_tma();
    batch.rs_f32_chain(kind, pa, b, true, acc_o);
    batch.commit();
}

/// Key tile `jj`'s `S = Q K^T` (as [`issue_s`]) and `O += P V` of tile `jj - 1` in one batch,
/// two groups: `wait::<1>` retires `S` with `P V` still in flight. One `wgmma.fence`, and both
/// chains in one block (`ss_rs_f32_groups`: nothing between them, so the tensor cores run them
/// back to back).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn issue_s_pv<
    const R: usize,
    const W: usize,
    const WK: usize,
    const N: usize,
    const RS: usize,
    const KP: usize,
    const KB: usize,
>(
    kind: HalfKind,
    q: SmemArray<u32, W>,
    q_row: usize,
    k: SmemArray<u32, WK>,
    acc_s: &mut [f32; RS],
    v: SmemArray<u32, WK>,
    pa: &[[u32; 4]; KP],
    acc_o: &mut [f32; R],
) where
    (): wgmma::ChainPair<KB, RS, KP, R>,
{
    let (a, b) = s_descs::<W, WK, N, KB>(q, q_row, k);
    let bv = pv_descs::<WK, N, KP>(v);
    wgmma::begin_tma().ss_rs_f32_groups(kind, a, b, false, acc_s, pa, bv, true, acc_o);
}

/// P as the second GEMM's `A` operand: `S`'s registers after the softmax, permuted as the atoms'
/// layouts say (`PFromS`, the identity here), two halves a register, a k block of 16 keys an
/// array.
#[inline(always)]
fn p_operand<const N: usize, const RS: usize, const KP: usize>(
    kind: HalfKind,
    acc_s: &[f32; RS],
) -> [[u32; 4]; KP] {
    let p_regs = PFromS::<N>::convert(acc_s);
    let mut pa = [[0u32; 4]; KP];
    unroll!(kb in 0..8 => {
        if kb < KP {
            pa[kb] = wgmma::a_fragment(kind, &p_regs, kb);
        }
    });
    pa
}

/// The consumer warpgroups' turns at the tensor cores (FlashAttention-3's ping-pong): each issues
/// its GEMMs of a key tile only after the one before it has issued its own, so that one's softmax
/// runs under the others' GEMMs instead of all contending for the tensor cores and then all
/// waiting on the exponentials. A named barrier of 256 threads a warpgroup, in a ring of `n`: a
/// turn waits at its own (128 arrivals of the warpgroup before it, 128 of its own) and passes to
/// the next one's with an arrival; warpgroup 0 starts with its own arrival. The barriers are
/// [`TURN_BARRIER`]` + wg`, picked at run time (one `bar.sync` on a register, not a branch
/// between copies on constant ids: two branches and three predicated `BAR`s a turn).
///
/// At head dim 256 the warpgroups take no turns (`Off`: each issues when its operands are there,
/// as CUTLASS's cooperative kernel): 1.005-1.032x the ring there in one H200 run, where at head
/// dim 128 the ring was 1.009x faster at the median (and 1.03x sustained). There the ring's ids
/// had also made ptxas spill the warpgroup's own and reload it before every `bar.sync`.
#[derive(Clone, Copy)]
enum Turns {
    Ids { own: DynNamedBarrier<256>, next: DynNamedBarrier<256> },
    Off,
}

/// The first of [`Turns`]' barriers (1 to 4 are `wgmma::begin`'s, unused here: the batches start
/// with `wgmma::begin_tma`, their operands being TMA's; 0 is the block's).
const TURN_BARRIER: u32 = 5;
/// The first of the consumer warpgroups' barriers between their writes of `O` to shared memory
/// and their reads, one a warpgroup (after [`Turns`]').
const EPILOGUE_BARRIER: u32 = 8;

/// Named barrier `id` of the warpgroup (`id` at most 15: the kernel's constants).
#[inline(always)]
fn named<const THREADS: u32>(id: u32) -> DynNamedBarrier<THREADS> {
    match DynNamedBarrier::new(id) {
        Some(x) => x,
        None => fault("attention_sm90: a named barrier past 15"),
    }
}

impl Turns {
    /// Warpgroup `wg`'s turns in a ring of `n`, or none (`!on`).
    #[inline(always)]
    fn start(wg: usize, n: usize, on: bool) -> Self {
        if !on {
            return Turns::Off;
        }
        let next = if wg + 1 == n { 0 } else { wg + 1 };
        let own = named(TURN_BARRIER + wg as u32);
        if wg == 0 {
            own.arrive();
        }
        Turns::Ids { own, next: named(TURN_BARRIER + next as u32) }
    }

    /// Wait for this warpgroup's turn.
    #[inline(always)]
    fn wait(self) {
        match self {
            Turns::Ids { own, .. } => own.sync(),
            Turns::Off => {}
        }
    }

    /// Give the turn to the next warpgroup.
    #[inline(always)]
    fn pass(self) {
        match self {
            Turns::Ids { next, .. } => next.arrive(),
            Turns::Off => {}
        }
    }
}

/// What a consumer thread's softmax of a tile of `S` needs.
#[derive(Clone, Copy)]
struct Tile {
    /// The thread.
    t: usize,
    /// The warpgroup's first query row.
    m0: u32,
    seq_k: u32,
    causal: bool,
    scale_log2: f32,
}

impl Tile {
    /// The online softmax of key tile `jj` in `acc_s`: masked (with `MASK`; the caller leaves it
    /// out only where no key is masked) where it crosses `seq_k` or the diagonal, each row's new
    /// maximum (over the thread's registers of the row, then the lanes that share it: `S`'s
    /// reduction plan), `acc_s` replaced by `exp2(s scale log2 e - max)`, the
    /// running sums rescaled and added to. Returns each row's rescaling of `O`.
    #[inline(always)]
    fn softmax<const MASK: bool, const N: usize, const RS: usize>(
        &self,
        jj: u32,
        acc_s: &mut [f32; RS],
        row_max: &mut [f32; 2],
        row_sum: &mut [f32; 2],
    ) -> [f32; 2] {
        let n0 = jj * N as u32;
        let crosses = n0 + N as u32 > self.seq_k || (self.causal && n0 + N as u32 > self.m0 + 1);
        if MASK && crosses {
            // Register r of this thread is at its base (register 0's coordinate) plus register
            // r's offset in thread 0, a constant (checked at compile time): two runtime values a
            // thread, not N / 2 coordinates.
            let (bm, bn) = s_coord::<N>(self.t, 0);
            let keys_left = self.seq_k as i32 - (n0 + bn) as i32;
            let diagonal = (self.m0 + bm) as i32 - (n0 + bn) as i32;
            let offsets = const { &s_offsets::<N>() };
            unroll!(r in 0..64 => {
                if r < RS {
                    let (dm, dn) = offsets[r];
                    if dn >= keys_left || (self.causal && dn - dm > diagonal) {
                        acc_s[r] = f32::NEG_INFINITY;
                    }
                }
            });
        }
        let tile_max = fragment::reduce_rows::<warp::Max, RS, 2>(const { &SRows::<N>::PLAN }, acc_s);
        let mut sub = [0f32; 2];
        let mut corr = [1f32; 2];
        unroll!(g in 0..2 => {
            let mx = row_max[g].max(tile_max[g]);
            // A row with every key so far masked keeps 0 (no NaN from -inf - -inf).
            sub[g] = if mx == f32::NEG_INFINITY { 0.0 } else { mx * self.scale_log2 };
            corr[g] = if row_max[g] == f32::NEG_INFINITY {
                0.0
            } else {
                math::ex2_approx(row_max[g] * self.scale_log2 - sub[g])
            };
            row_max[g] = mx;
            row_sum[g] *= corr[g];
        });
        // Each row's sum in four partial sums: four short chains of dependent adds, not one long
        // one (the softmax is the warpgroup's critical path while the other's GEMM runs).
        unroll!(g in 0..2 => {
            let mut part = [0f32; 4];
            unroll!(x in 0..32 => {
                if x < RS / 2 {
                    let r = SRows::<N>::PLAN.register(g, x);
                    let e = math::ex2_approx(math::fma(acc_s[r], self.scale_log2, -sub[g]));
                    acc_s[r] = e;
                    part[x % 4] += e;
                }
            });
            row_sum[g] += (part[0] + part[1]) + (part[2] + part[3]);
        });
        corr
    }
}

/// The register shapes of the kernel at one head dim, `(R, RS, KP) = (D / 2, N / 2, N / 16)` for
/// `N` = [`block_n`]`(D)` keys a tile: `O`'s accumulators a thread, `S`'s, and the k blocks of 16
/// keys of `P V`; `(32, 64, 8)`, `(64, 64, 8)` and `(128, 32, 4)` for head dims 64, 128 and 256
/// (implemented for `()`), with the `wgmma` chains the kernel issues for them (`S`'s `D / 16` k
/// blocks with `P V`'s in one block).
///
/// ```
/// use const_layout_kernels::attention_sm90::Shapes;
/// fn head_dim<const R: usize, const RS: usize, const KP: usize>() -> (usize, usize)
/// where
///     (): Shapes<R, RS, KP>,
/// {
///     (2 * R, 2 * RS)
/// }
/// assert_eq!(head_dim::<128, 32, 4>(), (256, 64));
/// ```
#[diagnostic::on_unimplemented(
    message = "no attention head dim has {R} accumulators of O, {RS} of S and {KP} k blocks of P V a thread",
    label = "(R, RS, KP) = (D / 2, N / 2, N / 16): (32, 64, 8), (64, 64, 8) or (128, 32, 4)"
)]
pub trait Shapes<const R: usize, const RS: usize, const KP: usize>:
    wgmma::Accumulators<R>
    + wgmma::Accumulators<RS>
    + wgmma::ChainLength<KP>
    + wgmma::ChainPair<4, RS, KP, R>
    + wgmma::ChainPair<8, RS, KP, R>
    + wgmma::ChainPair<16, RS, KP, R>
{
}
impl Shapes<32, 64, 8> for () {}
impl Shapes<64, 64, 8> for () {}
impl Shapes<128, 32, 4> for () {}

/// The block's work (see the module): queries `q` `(dim, seq_q, heads, batch)` as a TMA tensor
/// with the box [`q_box`], keys `k` and values `v` `(dim, seq_k, kv_heads, batch)` with the box
/// [`kv_box`]`(D)`; `o` words of two halves `(seq_q, dim/2, heads, batch)`, `lse` `f32`
/// `(seq_q, heads, batch)`. The launch is [`grid`] x [`threads`]`(D)` with [`smem_bytes`]`(D)`
/// of shared memory. The head dim `D` (64, 128 or 256) fixes the other constants, written out
/// because array lengths cannot be computed from a generic one (a mismatch does not compile):
///
/// | | meaning | d 64 | d 128 | d 256 |
/// |---|---|---|---|---|
/// | `R` | `O`'s accumulators a thread, `D / 2` | 32 | 64 | 128 |
/// | `W` | words of `Q`'s 128-row stage, `64 D` | 4096 | 8192 | 16384 |
/// | `N` | keys a tile, [`block_n`]`(D)` | 128 | 128 | 64 |
/// | `RS` | `S`'s accumulators a thread, `N / 2` | 64 | 64 | 32 |
/// | `KP` | k blocks of `P V`, `N / 16` | 8 | 8 | 4 |
/// | `WK` | words of a stage of `K` or `V`, `N D / 2` | 4096 | 8192 | 8192 |
/// | `CK` | words of one of its boxes, `32 N` | 4096 | 4096 | 2048 |
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn attention_sm90<
    const D: usize,
    const R: usize,
    const W: usize,
    const N: usize,
    const RS: usize,
    const KP: usize,
    const WK: usize,
    const CK: usize,
    O,
    L,
>(
    q: TmaTensor<'_, 4>,
    k: TmaTensor<'_, 4>,
    v: TmaTensor<'_, 4>,
    o: O,
    lse: L,
    p: Params,
    smem: SmemRegion,
) where
    O: OutputO,
    L: OutputLse,
    (): Shapes<R, RS, KP>,
{
    const {
        assert!((D == 64 || D == 128 || D == 256) && R == D / 2 && W == 64 * D);
        assert!(N == block_n(D) && RS == N / 2 && KP == N / 16 && WK == N * D / 2 && CK == 32 * N);
    };
    // The rounds below unroll up to four stages.
    const { assert!(STAGES >= 2 && STAGES <= 4) };
    let chunks = (D / 64) as u32;
    let [dq, seq_q, heads, batch] = q.dims();
    let [dk, seq_k, kv_heads, batch_k] = k.dims();
    // Every check at once and one branch (`|`, not `||`): the parameters' loads then issue
    // together instead of one check's load after another's branch (about 1 us a block on the
    // H200 before; PERFORMANCE.md). The failing one is named on the cold path.
    let dim = block_dim();
    let bad_dims = (dq as usize != D) | (dk as usize != D) | (v.dims() != k.dims()) | (batch_k != batch);
    let bad_box = (q.box_dims() != q_box()) | (k.box_dims() != kv_box(D)) | (v.box_dims() != kv_box(D));
    let bad_out = (o.dims() != [seq_q, (D / 2) as u32, heads, batch]) | (lse.dims() != [seq_q, heads, batch]);
    let bad_block = (dim.x != threads(D)) | (dim.y != 1) | (dim.z != 1);
    if bad_dims | bad_box | bad_out | bad_block {
        if bad_dims {
            fault("attention_sm90: q, k, v disagree on the head dim, the keys or the batch");
        }
        if bad_box {
            fault("attention_sm90: a tensor map's box is not the stage's");
        }
        if bad_out {
            fault("attention_sm90: o or lse are not (seq_q, dim, heads, batch)");
        }
        fault("attention_sm90: blocks of threads(d) threads");
    }
    let blk = block_idx();
    let (h, b) = (blk.y, blk.z);
    // Causal blocks with the most keys first.
    let bm = block_m(D) as u32;
    let qb = if p.causal { (seq_q.div_ceil(bm) - 1).wrapping_sub(blk.x) } else { blk.x };
    let q0 = qb * bm;
    if q0 >= seq_q || h >= heads || b >= batch {
        return;
    }
    let hk = kv_head(h, heads, kv_heads);
    // Keys the block reads: all, or for causal attention up to its last query.
    let keys = if p.causal { seq_k.min(q0 + bm) } else { seq_k };
    // u32, not usize: the key loops' counters and bounds are 64-bit compares otherwise.
    let tiles = keys.div_ceil(N as u32);

    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("attention_sm90: no shared memory");
    };
    let base = (1024 - first.address(0) % 1024) % 1024;
    let q_stage_bytes = chunks * CHUNK_BYTES;
    // Q's 128-row boxes (one at head dim 128, two at 64), then the stages.
    let q_base = base;
    let kv_bytes = kv_stage_bytes(D);
    let k_base = |s: usize| base + q_bytes(D) + kv_bytes * s as u32;
    let v_base = |s: usize| base + q_bytes(D) + kv_bytes * (STAGES as u32 + s as u32);
    let Some(words) =
        smem.array::<u32, { 2 * (1 + 4 * STAGES) }>(base + q_bytes(D) + kv_bytes * 2 * STAGES as u32)
    else {
        fault("attention_sm90: the block has less shared memory than smem_bytes(d)");
    };
    // q_full; k_full[s], v_full[s] (the producer's arrival with the bytes); k_empty[s],
    // v_empty[s] (the consumers' 256 arrivals once their wgmmas read the stage).
    let n_wg = consumers(D);
    let n_c = 128 * n_wg as u32;
    let bars: [Mbarrier; 1 + 4 * STAGES] =
        Mbarrier::init_block(words, core::array::from_fn(|i| if i <= 2 * STAGES { 1 } else { n_c }));
    let q_full = bars[0];
    let (k_full, v_full) = (&bars[1..1 + STAGES], &bars[1 + STAGES..1 + 2 * STAGES]);
    let (k_empty, v_empty) = (&bars[1 + 2 * STAGES..1 + 3 * STAGES], &bars[1 + 3 * STAGES..1 + 4 * STAGES]);
    let t = thread_idx().x as usize;
    // The warpgroup, broadcast from lane 0 so that ptxas sees it warp-uniform (CUTLASS's
    // `canonical_warp_group_idx`): the roles' branches are then regions it gives each its own
    // register budget (`setmaxnreg`), and Q's descriptors are uniform.
    let wg = warp::shfl_idx((t / 128) as u32, 0) as usize;
    let tile_bytes = kv_box(D).bytes() * chunks;

    if wg == n_wg {
        wgmma::set_max_registers::<24, false>();
        if t == n_c as usize {
            q_full.arrive_expect_tx(q_bytes(D));
            for rows in 0..bm.div_ceil(128) {
                let qs = stage::<W>(smem, q_base + rows * q_stage_bytes);
                for c in 0..chunks {
                    q.load(chunk::<W, CHUNK_WORDS>(qs, c), [64 * c, q0 + 128 * rows, h, b], q_full);
                }
            }
            // Round r loads tiles r STAGES.. into stages 0..; a stage's r-th reuse waits for the
            // consumers' release of round r - 1 (phase parity r - 1).
            let (mut j, mut round) = (0u32, 0u32);
            while j < tiles {
                unroll!(s in 0..4 => {
                    let jj = j + s as u32;
                    if s < STAGES && jj < tiles {
                        let phase = (round & 1) ^ 1;
                        if jj >= STAGES as u32 {
                            k_empty[s].wait(phase);
                        }
                        k_full[s].arrive_expect_tx(tile_bytes);
                        for c in 0..chunks {
                            let at = [64 * c, jj * N as u32, hk, b];
                            k.load(chunk::<WK, CK>(stage::<WK>(smem, k_base(s)), c), at, k_full[s]);
                        }
                        if jj >= STAGES as u32 {
                            v_empty[s].wait(phase);
                        }
                        v_full[s].arrive_expect_tx(tile_bytes);
                        for c in 0..chunks {
                            let at = [64 * c, jj * N as u32, hk, b];
                            v.load(chunk::<WK, CK>(stage::<WK>(smem, v_base(s)), c), at, v_full[s]);
                        }
                    }
                });
                j += STAGES as u32;
                round += 1;
            }
        }
        return;
    }
    // The consumers' registers: the producer's 24 and the rest of the 64 Ki shared (a multiple of
    // 8 at most (65536 / 128 - 24) / consumers).
    if D == 64 {
        wgmma::set_max_registers::<160, true>();
    } else {
        wgmma::set_max_registers::<240, true>();
    }
    let kind = p.kind;
    let scale_log2 = p.scale * core::f32::consts::LOG2_E;
    // Per thread: two rows (the reduction plan's groups), their running max (raw scores) and sums.
    let mut row_max = [f32::NEG_INFINITY; 2];
    let mut row_sum = [0f32; 2];
    let mut acc_o = [0f32; R];
    let mut acc_s = [0f32; RS];
    let m0 = q0 + 64 * wg as u32;
    let tile = Tile { t, m0, seq_k, causal: p.causal, scale_log2 };
    // The warpgroup's 64 rows of Q: in the box of rows 128 (wg / 2).., from row 64 (wg % 2).
    let (qs, q_row) = (stage::<W>(smem, q_base + (wg / 2) as u32 * q_stage_bytes), 64 * (wg % 2));
    // The stages of K and of V, made once: made in the loop, each tile would test the shared
    // memory's size again (a branch to the fault a stage, which the compiler does not hoist).
    // Not at head dim 256, whose registers are short: there the four arrays kept across the loop
    // cost 3-5% (one H200 run), and each tile makes its own.
    let k_stages: [SmemArray<u32, WK>; STAGES] = core::array::from_fn(|s| stage::<WK>(smem, k_base(s)));
    let v_stages: [SmemArray<u32, WK>; STAGES] = core::array::from_fn(|s| stage::<WK>(smem, v_base(s)));
    // Stage s's barriers (k_full, k_empty, v_full, v_empty) for an s known only at run time:
    // by selects, not an index (an array indexed at run time lives in local memory).
    let stage_bars = |s: u32| {
        let mut sel = (k_full[0], k_empty[0], v_full[0], v_empty[0]);
        unroll!(x in 0..4 => {
            if x < STAGES && x as u32 == s {
                sel = (k_full[x], k_empty[x], v_full[x], v_empty[x]);
            }
        });
        sel
    };
    // Key tiles `from..tiles` released unread, each with an empty turn, so that every warpgroup
    // takes the same turns and arrivals. A release waits for the tile's arrival first: the
    // stage's empty barrier must have completed the phase before (the producer fills a stage
    // only then), or this arrival would count towards it.
    let release = |from: u32, turns: Turns| {
        let mut jj = from;
        while jj < tiles {
            let phase = (jj / STAGES as u32) & 1;
            let (kf, ke, vf, ve) = stage_bars(jj % STAGES as u32);
            kf.wait(phase);
            vf.wait(phase);
            turns.wait();
            turns.pass();
            ke.arrive();
            ve.arrive();
            jj += 1;
        }
    };
    // A warpgroup whose rows all lie past seq_q (in the last query block, at head dim 64 when
    // seq_q % 192 is 1 to 128, at 128 and 256 when seq_q % 128 is 1 to 64): no GEMM and no
    // store, only its turns (one a tile and the last `P V`'s) and its releases of the tiles, so
    // that the others' counts hold. At seq_q 4096 and head dim 64 two of the last block's three
    // warpgroups are such, a 30th of the work of a non-causal head. Not at head dim 256, whose
    // registers are short: the path's code made ptxas spill into the key loops there (15 reloads
    // a round against 9), and its idle warpgroups compute on TMA's zeros as before.
    // The ping-pong's turns: at head dims 64 and 128 (see `Turns`).
    let turns_on = D != 256;
    if D != 256 && m0 >= seq_q {
        if tiles > 0 {
            let turns = Turns::start(wg, n_wg, turns_on);
            release(0, turns);
            turns.wait();
            turns.pass();
        }
        return;
    }
    q_full.wait(0);
    // Key tile 0: S, its softmax, P. Then each key tile jj issues S = Q K_jj^T and O += P V_jj-1
    // (P of tile jj - 1) together, waits for S alone, runs the softmax with P V in flight, waits
    // for P V, rescales O and makes P of tile jj (FlashAttention-3's intra-warpgroup overlap);
    // the last P V after the loop.
    // (No key tile: nothing to do; O is 0 and the log-sum-exp infinite.)
    if tiles > 0 {
        let turns = Turns::start(wg, n_wg, turns_on);
        k_full[0].wait(0);
        turns.wait();
        let k0 = k_stages[0];
        match D {
            64 => issue_s::<W, WK, N, RS, 4>(kind, qs, q_row, k0, &mut acc_s),
            128 => issue_s::<W, WK, N, RS, 8>(kind, qs, q_row, k0, &mut acc_s),
            _ => issue_s::<W, WK, N, RS, 16>(kind, qs, q_row, k0, &mut acc_s),
        }
        turns.pass();
        wgmma::wait::<0, RS>(&mut acc_s);
        k_empty[0].arrive();
        // O is 0 yet: its rescaling is not needed.
        let _ = tile.softmax::<true, N, RS>(0, &mut acc_s, &mut row_max, &mut row_sum);
        let mut pa = p_operand::<N, RS, KP>(kind, &acc_s);
        // The tiles this warpgroup reads: at head dim 64, for causal attention, those up to its
        // last row (the block's are up to its last warpgroup's: the first of the three skips
        // about a tile; 1.000-1.017x at the causal shapes on the H200). At 256 the skip's code
        // made the entry spill more (248 bytes against 192) and cost 4-8% at every shape, and at
        // 128 no warpgroup skips a tile of 128.
        let my_tiles = if D == 64 && p.causal { tiles.min((m0 + 64).div_ceil(N as u32)) } else { tiles };
        // The key tiles of round r (tiles r STAGES.., stages 0..; tile 0 done above), the mask
        // applied or not (`MASK`): two loops, so that the tiles no mask touches (all but the last
        // few) run no mask code at all; with one loop the compiler predicates the mask's selects
        // into every tile (a quarter of the loop's instructions at d 128). Tile jj's `K` is in
        // stage s of round r, `V` of tile jj - 1 in the stage before (the last of round r - 1
        // for s = 0).
        macro_rules! key_round {
            ($j:expr, $round:expr, $mask:literal) => {{
                let (j, round) = ($j, $round);
                unroll!(s in 0..4 => {
                    let jj = j + s as u32;
                    if s < STAGES && jj >= 1 && jj < my_tiles {
                        let phase = round & 1;
                        let (ps, prev_phase) = if s == 0 { (STAGES - 1, phase ^ 1) } else { (s - 1, phase) };
                        k_full[s].wait(phase);
                        v_full[ps].wait(prev_phase);
                        let ks = if D == 256 { stage::<WK>(smem, k_base(s)) } else { k_stages[s] };
                        turns.wait();
                        let vs = if D == 256 { stage::<WK>(smem, v_base(ps)) } else { v_stages[ps] };
                        {
                            let (s_, pa, o_) = (&mut acc_s, &pa, &mut acc_o);
                            match D {
                                64 => issue_s_pv::<R, W, WK, N, RS, KP, 4>(kind, qs, q_row, ks, s_, vs, pa, o_),
                                128 => issue_s_pv::<R, W, WK, N, RS, KP, 8>(kind, qs, q_row, ks, s_, vs, pa, o_),
                                _ => issue_s_pv::<R, W, WK, N, RS, KP, 16>(kind, qs, q_row, ks, s_, vs, pa, o_),
                            }
                        }
                        turns.pass();
                        wgmma::wait::<1, RS>(&mut acc_s);
                        k_empty[s].arrive();
                        let corr = tile.softmax::<$mask, N, RS>(jj, &mut acc_s, &mut row_max, &mut row_sum);
                        wgmma::wait::<0, R>(&mut acc_o);
                        v_empty[ps].arrive();
                        unroll!(g in 0..2 => {
                            unroll!(x in 0..64 => {
                                if x < R / 2 {
                                    acc_o[ORows::<D>::PLAN.register(g, x)] *= corr[g];
                                }
                            });
                        });
                        pa = p_operand::<N, RS, KP>(kind, &acc_s);
                    }
                });
            }};
        }
        // Tile jj needs no mask when all its keys are below seq_k and, for causal attention, at or
        // below the warpgroup's first row: jj < seq_k / N and jj < (m0 + 1) / N. Whole rounds
        // of such tiles first, then the rest masked (the mask leaves a tile it does not cross
        // as it is).
        let unmasked = {
            let below_seq = seq_k / N as u32;
            if p.causal { below_seq.min((m0 + 1) / N as u32) } else { below_seq }
        };
        let (mut j, mut round) = (0u32, 0u32);
        while j + STAGES as u32 <= unmasked {
            key_round!(j, round, false);
            j += STAGES as u32;
            round += 1;
        }
        while j < my_tiles {
            key_round!(j, round, true);
            j += STAGES as u32;
            round += 1;
        }
        // The last tile's `V`: stage my_tiles - 1 - (j - STAGES) of the last round.
        let (ls, lphase) = (my_tiles + STAGES as u32 - 1 - j, (round - 1) & 1);
        let (_, _, vf, ve) = stage_bars(ls);
        vf.wait(lphase);
        turns.wait();
        issue_pv::<R, WK, N, KP>(kind, stage::<WK>(smem, v_base(ls as usize)), &pa, &mut acc_o);
        turns.pass();
        wgmma::wait::<0, R>(&mut acc_o);
        ve.arrive();
        // The block's tiles past this warpgroup's last row (causal).
        release(my_tiles, turns);
    }
    // The rows' sums over the quad; O / l; the log-sum-exp.
    let mut inv = [0f32; 2];
    let mut lse_v = [0f32; 2];
    unroll!(i in 0..2 => {
        let mut l = row_sum[i];
        unroll!(x in 0..5 => {
            if x < SRows::<N>::PLAN.masks() {
                l += warp::shfl_xor(l, SRows::<N>::PLAN.mask(x));
            }
        });
        inv[i] = if l > 0.0 { math::rcp_approx(l) } else { 0.0 };
        lse_v[i] = if l > 0.0 {
            (row_max[i] * scale_log2 + math::lg2_approx(l)) * core::f32::consts::LN_2
        } else {
            f32::INFINITY
        };
    });
    // O / l through the warpgroup's own rows of Q's stage (free: its last S retired), then out
    // 16 bytes at a time: stored from registers, a thread holds two columns of a row, 4 bytes.
    // Word w of row r at 16-byte column (w / 4) ^ (row % 8) of its row (Q's own swizzle), so that
    // the accumulator layout's 4-byte writes (eight rows, one column) spread over all the banks,
    // as the 16-byte reads (whole rows) do (ncu's source page: no excessive wavefront; its raw
    // `_op_st` count is arbitration with the other warpgroups' traffic, PERFORMANCE.md). Each
    // group's registers come in pairs of neighbours along the head dim: a word of O.
    let staged = |r: usize, w: usize| {
        let row = q_row + r;
        (w / 32) * CHUNK_WORDS + 32 * row + 4 * (((w % 32) / 4) ^ (row % 8)) + w % 4
    };
    let groups = const { o_groups::<D>() };
    // Every thread's reads of these rows (its `S`'s `wgmma`s, retired by each warp's own wait)
    // ordered before any thread's writes: at head dims 64 and 128 the last `P V`'s turn does
    // that; without turns (at 256) the warpgroup's barrier (the emulator's race check
    // found the writes unordered without it).
    let epilogue = named::<128>(EPILOGUE_BARRIER + wg as u32);
    if !turns_on {
        epilogue.sync();
    }
    unroll!(w in 0..64 => {
        if w < R / 2 {
            let (m, n) = o_coord::<D>(t, 2 * w);
            let f = inv[groups[2 * w]];
            qs.store(staged(m as usize, (n / 2) as usize), pack_half2(kind, acc_o[2 * w] * f, acc_o[2 * w + 1] * f));
        }
    });
    epilogue.sync();
    o.store_rows(m0, h, b, t % 128, D / 2, |r, w| qs.load4(staged(r, w)));
    // One lane of each quad writes its rows' log-sum-exp.
    if t.is_multiple_of(4) {
        unroll!(g in 0..2 => {
            lse.store([m0 + SRows::<N>::key(t % 128, g) as u32, h, b], lse_v[g]);
        });
    }
}
