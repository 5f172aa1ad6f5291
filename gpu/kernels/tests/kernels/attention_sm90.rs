//! The Hopper attention forward on the emulated grid against an `f64` reference computed from the
//! same half-precision inputs: residues in `seq_q` and `seq_k` (TMA's zero fill, the masks), more
//! key tiles than stages (each stage's mbarriers through several phases), causal and not, every head
//! dim (64, 128 and 256, whose key tiles are 64), both element types, grouped-query attention (two query heads a key/value head), the
//! log-sum-exp. The tolerance is the rounding of `P` and `O` to the element type: `P` in `[0, 1]`
//! rounded to 11 (f16) or 8 (bf16) bits, `O` a weighted mean of values in `(-1, 1)`.

use crate::common::value;
use const_layout::atom::tma::TmaBox;
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::tma::TmaTensor;
use const_layout_device::{
    Dim3, GlobalTensor, Gmem, GmemMut, HalfKind, SmemRegion, f32_to_half, half_to_f32,
};
use const_layout_kernels::attention_sm90::{self, Params, kv_box, q_box};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A `(batch, heads, seq, d)` tensor of halves, contiguous (PyTorch's layout), two to a word, and
/// its values as `f64` after rounding.
fn tensor(kind: HalfKind, seed: u64, [b, h, s, d]: [usize; 4]) -> (Vec<AtomicU32>, Vec<f64>) {
    let n = b * h * s * d;
    let halves: Vec<u16> = (0..n).map(|i| f32_to_half(kind, value(seed, i))).collect();
    let words =
        (0..n / 2).map(|w| AtomicU32::new(halves[2 * w] as u32 | (halves[2 * w + 1] as u32) << 16)).collect();
    (words, halves.iter().map(|&x| half_to_f32(kind, x) as f64).collect())
}

/// `O` and the log-sum-exp of one query row, in `f64`: top-left causal as PyTorch's `is_causal`.
#[allow(clippy::too_many_arguments)]
fn reference(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    [sq, sk, d]: [usize; 3],
    (qh, kh): (usize, usize),
    row: usize,
    causal: bool,
    scale: f64,
) -> (Vec<f64>, f64) {
    let qr = &q[(qh * sq + row) * d..][..d];
    let keys = if causal { sk.min(row + 1) } else { sk };
    let s: Vec<f64> =
        (0..keys).map(|j| scale * (0..d).map(|x| qr[x] * k[(kh * sk + j) * d + x]).sum::<f64>()).collect();
    let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let p: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
    let l: f64 = p.iter().sum();
    let o = (0..d).map(|x| (0..keys).map(|j| p[j] * v[(kh * sk + j) * d + x]).sum::<f64>() / l).collect();
    (o, m + l.ln())
}

/// The kernel at head dim `D` with its constants (`attention_sm90`'s table).
macro_rules! run {
    (64, $($a:expr),+) => { run::<64, 32, 4096, 128, 64, 8, 4096, 4096>($($a),+) };
    (128, $($a:expr),+) => { run::<128, 64, 8192, 128, 64, 8, 8192, 4096>($($a),+) };
    (256, $($a:expr),+) => { run::<256, 128, 16384, 64, 32, 4, 8192, 2048>($($a),+) };
}

#[allow(clippy::too_many_arguments)]
fn run<
    const D: usize,
    const R: usize,
    const W: usize,
    const N: usize,
    const RS: usize,
    const KP: usize,
    const WK: usize,
    const CK: usize,
>(
    kind: HalfKind,
    batch: usize,
    heads: usize,
    kv_heads: usize,
    sq: usize,
    sk: usize,
    causal: bool,
) where
    (): attention_sm90::Shapes<R, RS, KP>,
{
    let (q, qf) = tensor(kind, 1, [batch, heads, sq, D]);
    let (k, kf) = tensor(kind, 2, [batch, kv_heads, sk, D]);
    let (v, vf) = tensor(kind, 3, [batch, kv_heads, sk, D]);
    let o: Vec<AtomicU32> = (0..batch * heads * sq * D / 2).map(|_| AtomicU32::new(u32::MAX)).collect();
    let lse: Vec<AtomicU32> = (0..batch * heads * sq).map(|_| AtomicU32::new(f32::NAN.to_bits())).collect();
    let scale = 1.0 / (D as f32).sqrt();
    let cfg = LaunchConfig {
        grid: attention_sm90::grid(D, sq as u32, heads as u32, batch as u32),
        block: Dim3::x(attention_sm90::threads(D)),
        dynamic_smem_bytes: attention_sm90::smem_bytes(D),
    };
    let (sq32, sk32, h32, hk32, b32, d32) =
        (sq as u32, sk as u32, heads as u32, kv_heads as u32, batch as u32, D as u32);
    // (d, seq, heads, batch), strides in elements.
    fn t4(w: &[AtomicU32], [d, s, h, b]: [u32; 4], tma_box: TmaBox) -> TmaTensor<'_, 4> {
        let strides = [1, d as u64, (d * s) as u64, (d * s * h) as u64];
        TmaTensor::emulated(Gmem::<u32>::from_cells(w), [d, s, h, b], strides, tma_box).unwrap()
    }
    launch(&cfg, || {
        let to = GlobalTensor::new(
            GmemMut::<u32>::from_cells(&o),
            make_layout((sq32, d32 / 2, h32, b32), (d32 / 2, C::<1>, sq32 * d32 / 2, h32 * sq32 * d32 / 2))
                .unwrap(),
        )
        .unwrap();
        let tl = GlobalTensor::new(
            GmemMut::<f32>::from_cells(&lse),
            make_layout((sq32, h32, b32), (C::<1>, sq32, sq32 * h32)).unwrap(),
        )
        .unwrap();
        let p = Params { scale, causal, kind };
        attention_sm90::attention_sm90::<D, R, W, N, RS, KP, WK, CK, _, _>(
            t4(&q, [d32, sq32, h32, b32], q_box()),
            t4(&k, [d32, sk32, hk32, b32], kv_box(D)),
            t4(&v, [d32, sk32, hk32, b32], kv_box(D)),
            to,
            tl,
            p,
            SmemRegion::dynamic(),
        );
    })
    .unwrap();
    let tol = if kind == HalfKind::BF16 { 2e-2 } else { 3e-3 };
    let group = heads / kv_heads;
    for b in 0..batch {
        for h in 0..heads {
            let (qh, kh) = (b * heads + h, b * kv_heads + h / group);
            for row in 0..sq {
                let (want, want_lse) =
                    reference(&qf, &kf, &vf, [sq, sk, D], (qh, kh), row, causal, scale as f64);
                let at = qh * sq + row;
                for x in 0..D {
                    let w = o[(at * D + x) / 2].load(Relaxed);
                    let got = half_to_f32(kind, (w >> (16 * (x % 2))) as u16) as f64;
                    assert!(
                        (got - want[x]).abs() <= tol,
                        "{kind:?} d {D} causal {causal}: O[b {b}, h {h}, row {row}, {x}] = {got}, want {}",
                        want[x]
                    );
                }
                let got = f32::from_bits(lse[at].load(Relaxed)) as f64;
                assert!(
                    (got - want_lse).abs() <= 1e-3 * (1.0 + want_lse.abs()),
                    "{kind:?} d {D}: lse[b {b}, h {h}, row {row}] = {got}, want {want_lse}"
                );
            }
        }
    }
}

#[test]
fn d64_residues_and_three_key_tiles() {
    // 300 keys: three tiles, the last masked, a residue of 44.
    run!(64, HalfKind::F16, 1, 1, 1, 70, 300, false);
}

#[test]
fn d64_stages_reused_twice() {
    // 870 keys: seven tiles through the stages, each stage's mbarriers flipping twice or more,
    // unmasked rounds and then a masked one with a residue of 102; 20 queries keep it short.
    run!(64, HalfKind::F16, 1, 1, 1, 20, 870, false);
}

#[test]
fn d64_causal_gqa_two_query_blocks() {
    // Two query heads share a key/value head; 200 queries: a whole block of 192 rows (three
    // consumer warpgroups, the third's rows in Q's second box) and one of 8 rows.
    run!(64, HalfKind::F16, 1, 2, 1, 200, 200, true);
}

#[test]
fn d64_causal_warpgroups_skip_the_tiles_past_their_rows() {
    // 420 queries and keys, causal: the block of rows 192..384 reads three key tiles, of which
    // its first warpgroup (rows 192..256) needs two and releases the third unread, in stage 0's
    // second round; its other two and the other blocks' warpgroups skip none or one of the first
    // round.
    run!(64, HalfKind::BF16, 1, 1, 1, 420, 420, true);
}

#[test]
fn d64_warpgroups_past_seq_q_only_take_turns_and_release() {
    // 230 queries: the second block's rows are 192..384, of which its first warpgroup holds the
    // 38 that exist; the other two compute nothing and only take their turns and release each
    // of the five key tiles (600 keys, each stage's mbarriers flipping twice or more) for the
    // first, which must see every tile and its residue of 88.
    run!(64, HalfKind::F16, 1, 1, 1, 230, 600, false);
}

#[test]
fn d128_bf16_batch_of_two() {
    run!(128, HalfKind::BF16, 2, 1, 1, 64, 129, false);
}

#[test]
fn d128_causal_more_keys_than_queries() {
    run!(128, HalfKind::F16, 1, 1, 1, 100, 260, true);
}

#[test]
fn d256_residues_and_five_key_tiles() {
    // 300 keys: five tiles of 64 through the two stages (each stage's mbarriers flipping twice),
    // the last with a residue of 44; 40 queries of one warpgroup's rows.
    run!(256, HalfKind::F16, 1, 1, 1, 40, 300, false);
}

#[test]
fn d256_bf16_causal_gqa() {
    // Two query heads on a key/value head, causal: 70 queries of 200 keys read two tiles of 64,
    // the second all masked for the first warpgroup's rows and partly for the second's 6.
    run!(256, HalfKind::BF16, 1, 2, 1, 70, 200, true);
}

/// `OutputO::store_rows` writes each word of its 64 rows once, at its coordinate, only in rows
/// that exist: through 16-byte stores where the rows allow it (a row stride of 32 words), 4-byte
/// ones where they do not (33).
#[test]
fn store_rows_writes_its_rows_and_no_other_word() {
    use attention_sm90::OutputO;
    use const_layout_device::DeviceTensor;
    let tag = |r: usize, w: usize| (r * 1000 + w) as u32;
    for ld in [32u32, 33] {
        // (seq 70, 32 words, 2 heads, 1 sequence), rows ld words apart.
        let head = 70 * ld as usize;
        let cells: Vec<AtomicU32> = (0..2 * head).map(|_| AtomicU32::new(u32::MAX)).collect();
        let l = make_layout((70u32, 32u32, 2u32, 1u32), (ld, C::<1>, 70 * ld, 140 * ld)).unwrap();
        let o = GlobalTensor::new(GmemMut::<u32>::from_cells(&cells), l).unwrap();
        assert_eq!(o.slice_last2(1, 0).unwrap().vectorized().is_some(), ld == 32);
        for t in 0..128 {
            o.store_rows(64, 1, 0, t, 32, |r, w| core::array::from_fn(|i| tag(r, w + i)));
        }
        for (i, c) in cells.iter().enumerate() {
            let (row, w) = ((i % head) / ld as usize, (i % head) % ld as usize);
            let want = if i >= head && row >= 64 && w < 32 { tag(row - 64, w) } else { u32::MAX };
            assert_eq!(c.load(Relaxed), want, "word {i} (rows {ld} words apart)");
        }
    }
}
