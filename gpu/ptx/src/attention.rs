//! The attention forward's entry points ([`attention_sm90`]): its tensor types, its `Entry`
//! declarations and, on the GPU, the entry points themselves (TMA tensor maps, so GPU only, as the
//! Hopper GEMM's).

use crate::ConfigWords;
use const_layout::C;
use const_layout_device::TensorParam;
use const_layout_device::abi::{Entry, In, Out, TensorMapRef};
#[cfg(target_arch = "nvptx64")]
use const_layout_kernels::attention_sm90;

/// Halves two to a word, one head of `(seq, dim/2)` words a slice, the head dim contiguous:
/// `(seq, dim/2, heads, batch):(ld, _1, head stride, batch stride)` (PyTorch's `(batch, heads,
/// seq, dim)` tensors of any strides with the last 1, in words).
pub type HeadWords = TensorParam<u32, (u32, u32, u32, u32), (u32, C<1>, u32, u32)>;
/// `f32` `(seq, heads, batch)` of any strides: the rows' log-sum-exp.
pub type HeadF32 = TensorParam<f32, (u32, u32, u32), (u32, u32, u32)>;

/// The parameters of the attention entry points: `q`, `k`, `v`, `o`, `lse`, the tensor maps of
/// `q`, `k` and `v`, `scale`, `causal`, `bf16`.
pub type AttentionParams = (
    In<HeadWords>,
    In<HeadWords>,
    In<HeadWords>,
    Out<HeadWords>,
    Out<HeadF32>,
    TensorMapRef,
    TensorMapRef,
    TensorMapRef,
    f32,
    u32,
    u32,
);

/// `attention_sm90_d64(q, k, v, o, lse, map_q, map_k, map_v, scale, causal, bf16)`: the Hopper
/// attention forward ([`attention_sm90`](const_layout_kernels::attention_sm90)) with a head dim of
/// 64: `q` `(seq_q, 32, heads, batch)` words of `f16` (`bf16 == 0`) or `bf16` halves, `k` and `v`
/// `(seq_k, 32, kv_heads, batch)` (`heads` a multiple of `kv_heads`: GQA), `o` as `q`, `lse`
/// `(seq_q, heads, batch)`; `map_*` tensor maps of `q`, `k`, `v` as 16-bit rank-4 tensors `(dim,
/// seq, heads, batch)` with the box `attention_sm90::q_box` (`attention_sm90::kv_box(64)` for `k`
/// and `v`, the same); `causal != 0` masks keys after the query (top-left). The launch:
/// `attention_sm90::grid(64, ..)` x `threads(64)`, `smem_bytes(64)`.
pub const ATTENTION_SM90_D64: Entry<AttentionParams> = Entry::new("attention_sm90_d64");
/// [`ATTENTION_SM90_D64`] with a head dim of 128 (`q` of 64 words a row), `smem_bytes(128)`.
pub const ATTENTION_SM90_D128: Entry<AttentionParams> = Entry::new("attention_sm90_d128");
/// [`ATTENTION_SM90_D64`] with a head dim of 256 (`q` of 128 words a row), `smem_bytes(256)`;
/// the tensor maps of `k` and `v` with the box `attention_sm90::kv_box(256)` (64 rows).
pub const ATTENTION_SM90_D256: Entry<AttentionParams> = Entry::new("attention_sm90_d256");
/// `attention_sm90_config(out)`: what the host needs to launch attention, 16 words: the TMA box
/// of `q` (and of `k` and `v` at head dims 64 and 128: inner and outer extents, element bits,
/// `CUtensorMapSwizzle`), the block's threads and query rows at head dim 64, the same at 128, the
/// dynamic shared memory for head dims 64 and 128, the keys a tile at those head dims, the stages;
/// then the threads, query rows, shared memory and keys a tile at head dim 256 (the rows of its
/// `k` and `v` box). One thread.
pub const ATTENTION_SM90_CONFIG: Entry<(Out<ConfigWords>,)> = Entry::new("attention_sm90_config");

/// A rank-4 TMA tensor `(dim, seq, heads, batch)` of the halves of `x`, loaded through `map` in
/// boxes `tma_box`; `None` for a head dim of 2^31 or more, a stride that is not a multiple of 16
/// bytes or a misaligned tensor map. No branch: the entry point checks its three tensors at once.
///
/// # Safety
/// `x`'s contract is [`In::memory`]'s, and `map` was encoded for exactly this tensor and the box
/// `tma_box`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn tma_heads<'a>(
    x: In<HeadWords>,
    map: TensorMapRef,
    tma_box: const_layout::atom::tma::TmaBox,
) -> Option<const_layout_device::tma::TmaTensor<'a, 4>> {
    use const_layout::int::Int;
    let l = x.param().layout();
    let ((s, w, h, b), (ds, _, dh, db)) = (l.shape(), l.stride());
    let dims = [w.wrapping_mul(2), s, h, b];
    let strides = [1, 2 * ds.value() as u64, 2 * dh.value() as u64, 2 * db.value() as u64];
    // SAFETY: the caller's contract.
    let t = unsafe {
        const_layout_device::tma::TmaTensor::new(map.address(), x.memory(), dims, strides, tma_box)
    };
    if w > 1 << 30 { None } else { t }
}

/// The body of both entry points: the element kind and the head dim as constants.
#[cfg(target_arch = "nvptx64")]
macro_rules! attention_entry {
    ($name:ident, $d:literal, [$($c:literal),+]) => {
        const_layout_device::launch_bounds!($name, attention_sm90::threads($d), 1);

        /// See the `Entry` of the same name.
        ///
        /// # Safety
        /// The launch contract (see `entry_points`), and `map_q`, `map_k`, `map_v` are tensor maps
        /// of `q`, `k`, `v` with the boxes `attention_sm90::q_box` and `kv_box`.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            q: In<HeadWords>,
            k: In<HeadWords>,
            v: In<HeadWords>,
            o: Out<HeadWords>,
            lse: Out<HeadF32>,
            map_q: TensorMapRef,
            map_k: TensorMapRef,
            map_v: TensorMapRef,
            scale: f32,
            causal: u32,
            bf16: u32,
        ) {
            use const_layout_device::{HalfKind, SmemRegion};
            // SAFETY: the launch contract, maps included.
            let (tq, tk, tv, to, tl) = unsafe {
                let kv = attention_sm90::kv_box($d);
                let tq = tma_heads(q, map_q, attention_sm90::q_box());
                (tq, tma_heads(k, map_k, kv), tma_heads(v, map_v, kv), o.tensor(), lse.tensor())
            };
            let (Some(tq), Some(tk), Some(tv)) = (tq, tk, tv) else {
                const_layout_device::fault(
                    "attention_sm90: a head dim of 2^31 or more, a stride that is not a multiple of 16 bytes, or a misaligned tensor map",
                )
            };
            let causal = causal != 0;
            let smem = SmemRegion::dynamic();
            if bf16 != 0 {
                let p = attention_sm90::Params { scale, causal, kind: HalfKind::BF16 };
                attention_sm90::attention_sm90::<$d, $($c),+, _, _>(tq, tk, tv, to, tl, p, smem)
            } else {
                let p = attention_sm90::Params { scale, causal, kind: HalfKind::F16 };
                attention_sm90::attention_sm90::<$d, $($c),+, _, _>(tq, tk, tv, to, tl, p, smem)
            }
        }
    };
}

#[cfg(target_arch = "nvptx64")]
// The constants after the head dim, as `attention_sm90`'s table: R, W, N, RS, KP, WK, CK.
#[cfg(target_arch = "nvptx64")]
attention_entry!(attention_sm90_d64, 64, [32, 4096, 128, 64, 8, 4096, 4096]);
#[cfg(target_arch = "nvptx64")]
attention_entry!(attention_sm90_d128, 128, [64, 8192, 128, 64, 8, 8192, 4096]);
#[cfg(target_arch = "nvptx64")]
attention_entry!(attention_sm90_d256, 256, [128, 16384, 64, 32, 4, 8192, 2048]);

/// Writes what the host needs to launch attention (see [`ATTENTION_SM90_CONFIG`]). One thread.
///
/// # Safety
/// The launch contract (see `entry_points`).
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attention_sm90_config(out: Out<ConfigWords>) {
    // SAFETY: the launch contract: `out` a checked parameter of a live allocation overlapping
    // nothing else.
    let o = unsafe { out.memory() };
    let b = attention_sm90::q_box();
    o.store4(0, [b.inner, b.outer, b.element_bits, b.swizzle as u32]);
    let (s64, s128) = (attention_sm90::smem_bytes(64), attention_sm90::smem_bytes(128));
    let (t64, t128) = (attention_sm90::threads(64), attention_sm90::threads(128));
    let (m64, m128) = (attention_sm90::block_m(64) as u32, attention_sm90::block_m(128) as u32);
    o.store4(4, [t64, m64, t128, m128]);
    o.store4(8, [s64, s128, attention_sm90::block_n(128) as u32, attention_sm90::STAGES as u32]);
    let (t256, m256) = (attention_sm90::threads(256), attention_sm90::block_m(256) as u32);
    o.store4(12, [t256, m256, attention_sm90::smem_bytes(256), attention_sm90::block_n(256) as u32]);
}
