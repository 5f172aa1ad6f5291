//! The Hopper attention forward: `attention_sm90_d64`, `attention_sm90_d128` and `attention_sm90_d256`
//! (`const_layout_kernels::attention_sm90`), `O = softmax(Q K^T * scale + mask) V` and the rows'
//! log-sum-exp, `f16` or `bf16` halves two to a 32-bit word, `f32` accumulation, causal (top-left,
//! PyTorch's `is_causal`) or not, grouped-query attention when the key/value heads are fewer.
//!
//! The tensors are PyTorch's contiguous `(batch, heads, seq, dim)` (keys and values
//! `(batch, kv_heads, seq_k, dim)`), given to the entry points as `HeadWords`
//! `(seq, dim/2, heads, batch):(dim/2, _1, seq dim/2, heads seq dim/2)` in words, `lse` as `HeadF32`
//! `(seq_q, heads, batch):(1, seq_q, heads seq_q)`, and the TMA maps of `q`, `k` and `v` encoded
//! from Rust (`TensorMap::encode_nd`) as rank-4 tensors `(dim, seq, heads, batch)` of 16-bit
//! elements with the boxes `attention_sm90::q_box()` and `kv_box(dim)`. The launch: `attention_sm90::grid(dim, seq_q,
//! heads, batch)` x `threads(dim)`, `smem_bytes(dim)` of dynamic shared memory, `scale = 1/sqrt(dim)`.
//!
//! 1. The module's `attention_sm90_config` is launched and what it reports (the box, threads, query
//!    rows a block, shared memory of every head dim, keys a tile, stages) must be what the kernel
//!    crate says: the maps and the launch are made from the kernel crate.
//! 2. At small shapes with residues in `seq_q` and `seq_k` ([`RESIDUE_SHAPES`]: both head dims,
//!    causal and not, `seq_q` above and below `seq_k`, GQA and MQA), `f16` and `bf16`: the outputs
//!    poisoned with NaN, one launch, then every element of `O` and of the log-sum-exp against an
//!    `f64` reference computed from the same rounded halves ([`Reference`]): `O` within
//!    [`o_tolerance`] (4e-3 for `f16`, 2e-2 for `bf16`: the kernel rounds `P` to the element type
//!    for the second GEMM), the log-sum-exp within [`LSE_TOLERANCE`] (1e-3), both absolute.
//! 3. At the attention size (`--size-attention B H HKV S D`, default 4 16 16 4096 128), for `f16`
//!    and `bf16`, non-causal and causal: every element of `O` and the log-sum-exp written and
//!    finite, [`MAIN_ROWS`] rows spread over the heads and the batch against the reference, then
//!    [`WARMUPS`](crate::gpu::WARMUPS) warm-ups and the median of `R` launches, in TFLOP/s of
//!    `4 b h s_q s_k d` (halved for causal, as `tools/gpu/attention_anchors.py` and CUTLASS count).
//!    The anchors are those of `--anchors` of the same shape (`attn_{cudnn,fa2,cutlass88}_...` of
//!    `tools/gpu/attention_anchors.py`; only for `HKV = H`).

use crate::bench::{Bench, layout_error};
use crate::error::Error;
use crate::gpu::Gpu;
use crate::hgemm::kind_name;
use crate::note;
use crate::report::Rate;
use crate::rng::{Halves, SplitMix64};
use const_layout::{C, Layout, make_layout};
use const_layout_device::{Dim3, HalfKind, LaunchConfig, f32_to_half, half_to_f32};
use const_layout_kernels::attention_sm90;
use const_layout_launch::{InArg, Kernel, OutArg, TensorMap};
use const_layout_ptx::{self as ptx, AttentionParams};
use cudarc::driver::CudaSlice;

/// The largest accepted error of the log-sum-exp (absolute).
pub const LSE_TOLERANCE: f64 = 1e-3;
/// Rows of each run at the attention size checked against the reference.
pub const MAIN_ROWS: usize = 64;
/// `q`'s values are the test data's (magnitudes in `[0.25, 1)`) times this: scores of a standard
/// deviation near 1, a softmax that is neither flat nor one-hot.
const Q_FACTOR: f32 = 2.0;

/// An attention problem's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Sequences.
    pub batch: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads (dividing `heads`).
    pub kv_heads: u32,
    /// Queries a sequence.
    pub seq_q: u32,
    /// Keys a sequence.
    pub seq_k: u32,
    /// The head dim: 64, 128 or 256.
    pub dim: u32,
    /// Causal (top-left).
    pub causal: bool,
}

/// The shapes with residues every entry point and element type is checked at first: `(batch,
/// heads, kv_heads, seq_q, seq_k, dim, causal)`.
pub const RESIDUE_SHAPES: [Shape; 9] = [
    Shape::new(1, 2, 1, 130, 300, 64, true),
    Shape::new(2, 2, 2, 77, 129, 128, false),
    Shape::new(1, 4, 2, 300, 130, 128, true),
    Shape::new(2, 3, 3, 128, 128, 64, false),
    Shape::new(1, 6, 2, 257, 257, 64, true),
    Shape::new(1, 1, 1, 1, 200, 64, true),
    Shape::new(2, 2, 1, 200, 333, 128, false),
    Shape::new(1, 2, 1, 200, 333, 256, true),
    Shape::new(2, 2, 2, 77, 129, 256, false),
];

/// The words layout of `HeadWords`: `(seq, dim/2, heads, batch):(dim/2, _1, .., ..)`.
type WordsLayout = Layout<(u32, u32, u32, u32), (u32, C<1>, u32, u32)>;
/// The layout of `HeadF32`: `(seq, heads, batch):(_, _, _)`.
type LseLayout = Layout<(u32, u32, u32), (u32, u32, u32)>;

impl Shape {
    /// The shape of the values given.
    pub const fn new(
        batch: u32,
        heads: u32,
        kv_heads: u32,
        seq_q: u32,
        seq_k: u32,
        dim: u32,
        causal: bool,
    ) -> Shape {
        Shape { batch, heads, kv_heads, seq_q, seq_k, dim, causal }
    }

    /// The shape of `--size-attention B H HKV S D`: `seq_q = seq_k = S`.
    pub fn of_size((b, h, hkv, s, d): (u32, u32, u32, u32, u32), causal: bool) -> Shape {
        Shape::new(b, h, hkv, s, s, d, causal)
    }

    /// The same shape, causal or not.
    pub fn with_causal(self, causal: bool) -> Shape {
        Shape { causal, ..self }
    }

    /// Checks what the kernels take and the launcher can allocate: a head dim of 64, 128 or 256,
    /// `heads` a multiple of `kv_heads`, every buffer at most 2^34 bytes (checked arithmetic),
    /// every stride of the words within 32 bits, the grid within CUDA's limits.
    pub fn check(&self) -> Result<(), String> {
        let Shape { batch: b, heads: h, kv_heads: hkv, seq_q, seq_k, dim: d, .. } = *self;
        if d != 64 && d != 128 && d != 256 {
            return Err(format!("attention_sm90 takes a head dim 64, 128 or 256, not {d}"));
        }
        if !h.is_multiple_of(hkv) {
            return Err(format!("the query heads ({h}) must be a multiple of the key/value heads ({hkv})"));
        }
        let limit = crate::args::MAX_BUFFER_BYTES;
        for (name, heads, seq, elements) in
            [("q", h, seq_q, u64::from(d)), ("k", hkv, seq_k, u64::from(d)), ("lse", h, seq_q, 2)]
        {
            let halves = [u64::from(b), u64::from(heads), u64::from(seq)]
                .into_iter()
                .try_fold(elements, u64::checked_mul)
                .filter(|n| n.checked_mul(2).is_some_and(|bytes| bytes <= limit));
            let Some(halves) = halves else {
                return Err(format!(
                    "{name} ({b}x{heads}x{seq}x{elements} halves) is larger than the limit of {limit} bytes (2^34) per buffer"
                ));
            };
            // The batch stride, in words: the largest of the layout's strides.
            let stride = halves / 2 / u64::from(b);
            if u32::try_from(stride).is_err() {
                return Err(format!("{name}'s batch stride of {stride} words does not fit 32 bits"));
            }
        }
        let g = attention_sm90::grid(self.dim as usize, seq_q, h, b);
        if !crate::kernels::grid_fits(g) {
            return Err(format!("the grid {g} exceeds CUDA's limits (x < 2^31, y and z <= 65535)"));
        }
        Ok(())
    }

    /// Halves of `q` (and `o`).
    fn q_len(&self) -> usize {
        [self.batch, self.heads, self.seq_q, self.dim].iter().map(|&x| x as usize).product()
    }

    /// Halves of `k` (and `v`).
    fn kv_len(&self) -> usize {
        [self.batch, self.kv_heads, self.seq_k, self.dim].iter().map(|&x| x as usize).product()
    }

    /// Rows of `o` (elements of `lse`).
    fn rows(&self) -> usize {
        [self.batch, self.heads, self.seq_q].iter().map(|&x| x as usize).product()
    }

    /// `4 b h s_q s_k d`, halved for causal (`tools/gpu/attention_anchors.py`'s count).
    pub fn flops(&self) -> f64 {
        let f = [self.batch, self.heads, self.seq_q, self.seq_k, self.dim]
            .iter()
            .fold(4.0, |f, &x| f * f64::from(x));
        if self.causal { f / 2.0 } else { f }
    }

    /// As the table shows it: `b4 h16 hkv16 s4096 d128` (`sq..` and `sk..` when they differ).
    pub fn size(&self) -> String {
        let seq = if self.seq_q == self.seq_k {
            format!("s{}", self.seq_q)
        } else {
            format!("sq{} sk{}", self.seq_q, self.seq_k)
        };
        format!("b{} h{} hkv{} {seq} d{}", self.batch, self.heads, self.kv_heads, self.dim)
    }

    /// `causal` or `full`, as the anchors' keys say.
    pub fn mask(&self) -> &'static str {
        if self.causal { "causal" } else { "full" }
    }

    /// The shape part of the anchors' keys for `kind` (`d128_h16_b4_s4096_causal_fp16`), when
    /// `tools/gpu/attention_anchors.py` measures such shapes (`heads == kv_heads`, `seq_q == seq_k`).
    pub fn anchor_key(&self, kind: HalfKind) -> Option<String> {
        let short = match kind {
            HalfKind::F16 => "fp16",
            HalfKind::BF16 => "bf16",
        };
        (self.heads == self.kv_heads && self.seq_q == self.seq_k).then(|| {
            format!("d{}_h{}_b{}_s{}_{}_{short}", self.dim, self.heads, self.batch, self.seq_q, self.mask())
        })
    }

    /// The index of half `i` of row `m` of head `h` of sequence `b` of `q` or `o`.
    fn q_at(&self, b: usize, h: usize, m: usize) -> usize {
        ((b * self.heads as usize + h) * self.seq_q as usize + m) * self.dim as usize
    }

    /// The index of key (or value) `j` of the key/value head `hk` of sequence `b`.
    fn kv_at(&self, b: usize, hk: usize, j: usize) -> usize {
        ((b * self.kv_heads as usize + hk) * self.seq_k as usize + j) * self.dim as usize
    }

    /// The words layout of a `(batch, heads, seq, dim)` tensor and its map's extents and element
    /// strides, innermost first: `(dim, seq, heads, batch)`.
    fn words(&self, what: &str, heads: u32, seq: u32) -> Result<(WordsLayout, [u64; 4], [u64; 4]), Error> {
        let w = self.dim / 2;
        let stride = |x: u64| {
            u32::try_from(x).map_err(|_| Error::new(format!("{what}: a stride of {x} words (over 32 bits)")))
        };
        let (head, batch) = (
            stride(u64::from(seq) * u64::from(w))?,
            stride(u64::from(heads) * u64::from(seq) * u64::from(w))?,
        );
        let layout = make_layout((seq, w, heads, self.batch), (w, C::<1>, head, batch))
            .map_err(|e| layout_error(what, e))?;
        let dims = [u64::from(self.dim), u64::from(seq), u64::from(heads), u64::from(self.batch)];
        let strides = [1, u64::from(self.dim), 2 * u64::from(head), 2 * u64::from(batch)];
        Ok((layout, dims, strides))
    }

    /// The log-sum-exp's layout: `(seq_q, heads, batch):(1, seq_q, heads seq_q)`.
    fn lse_layout(&self, what: &str) -> Result<LseLayout, Error> {
        let batch = u32::try_from(u64::from(self.heads) * u64::from(self.seq_q))
            .map_err(|_| Error::new(format!("{what}: the log-sum-exp's batch stride is over 32 bits")))?;
        make_layout((self.seq_q, self.heads, self.batch), (1u32, self.seq_q, batch))
            .map_err(|e| layout_error(what, e))
    }

    /// The launch configuration of a kernel with `limits`: `attention_sm90::grid` x `threads(dim)`,
    /// `smem_bytes(dim)` (dynamic, as no entry point declares it statically).
    pub fn config(&self, limits: &const_layout_launch::KernelLimits) -> LaunchConfig {
        LaunchConfig {
            grid: attention_sm90::grid(self.dim as usize, self.seq_q, self.heads, self.batch),
            block: Dim3::x(attention_sm90::threads(self.dim as usize)),
            dynamic_smem_bytes: limits.dynamic_smem_for(attention_sm90::smem_bytes(self.dim as usize)),
        }
    }
}

/// The tolerance of `O` (absolute): the kernel rounds `P` to the element type for the second GEMM
/// and `O` to it at the end; `bf16` keeps 8 bits of mantissa, `f16` 11.
pub fn o_tolerance(kind: HalfKind) -> f64 {
    match kind {
        HalfKind::F16 => 4e-3,
        HalfKind::BF16 => 2e-2,
    }
}

/// What `attention_sm90_config` must report: the box of `q` (and of `k` and `v` at head dims 64
/// and 128: inner, outer, element bits, swizzle), the threads and the query rows a block of head
/// dims 64 and 128, their shared memory, their keys a tile, the stages, then head dim 256's
/// threads, query rows, shared memory and keys a tile, from `const_layout_kernels::attention_sm90`.
pub fn expected_config() -> [u32; 16] {
    let b = attention_sm90::q_box();
    [
        b.inner,
        b.outer,
        b.element_bits,
        b.swizzle as u32,
        attention_sm90::threads(64),
        attention_sm90::block_m(64) as u32,
        attention_sm90::threads(128),
        attention_sm90::block_m(128) as u32,
        attention_sm90::smem_bytes(64),
        attention_sm90::smem_bytes(128),
        attention_sm90::block_n(128) as u32,
        attention_sm90::STAGES as u32,
        attention_sm90::threads(256),
        attention_sm90::block_m(256) as u32,
        attention_sm90::smem_bytes(256),
        attention_sm90::block_n(256) as u32,
    ]
}

/// Launches `attention_sm90_config` and compares its report with [`expected_config`].
fn check_config(gpu: &Gpu) -> Result<(), Error> {
    let kernel = gpu.kernel(ptx::ATTENTION_SM90_CONFIG)?;
    let mut out = gpu.poisoned::<u32>(16)?;
    let layout = make_layout(C::<16>, C::<1>).map_err(|e| layout_error("attention_sm90_config", e))?;
    let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(1), dynamic_smem_bytes: 0 };
    kernel.launch(gpu.stream(), &cfg, (OutArg::new(&mut out, &layout)?,))?;
    let got = gpu.download(&out)?;
    let want = expected_config();
    if got != want {
        return Err(Error::new(format!(
            "check failed: attention_sm90_config reports {got:?}, the kernels crate (the launcher's box, threads, \
             rows, shared memory, tile, stages) {want:?}: the PTX was built from other sources"
        )));
    }
    note(&format!("attention_sm90_config: box, threads and shared memory as the kernels crate's: {got:?}"));
    Ok(())
}

/// The CPU reference of attention on halves' values (as `f32`, exact), in `f64`: `q` `(batch,
/// heads, seq_q, dim)`, `k` and `v` `(batch, kv_heads, seq_k, dim)`, contiguous; query head `h`
/// reads key/value head `h / (heads / kv_heads)` (PyTorch's `repeat_interleave`, the kernel's
/// `kv_head`); with `causal`, row `m` sees keys `0..=m` (top-left).
pub struct Reference<'a> {
    /// The shape.
    pub shape: Shape,
    /// `q`'s values.
    pub q: &'a [f32],
    /// `k`'s values.
    pub k: &'a [f32],
    /// `v`'s values.
    pub v: &'a [f32],
    /// The softmax scale, as the kernel is given it.
    pub scale: f32,
}

impl Reference<'_> {
    /// Row `m` of head `h` of sequence `b`: `O`'s `dim` values and the log-sum-exp of the scaled
    /// (masked) scores, natural log.
    pub fn row(&self, b: usize, h: usize, m: usize) -> (Vec<f64>, f64) {
        let s = self.shape;
        let d = s.dim as usize;
        let hk = h / (s.heads / s.kv_heads) as usize;
        let q = &self.q[s.q_at(b, h, m)..][..d];
        let keys = if s.causal { (m + 1).min(s.seq_k as usize) } else { s.seq_k as usize };
        let scale = f64::from(self.scale);
        let scores: Vec<f64> = (0..keys)
            .map(|j| {
                let k = &self.k[s.kv_at(b, hk, j)..][..d];
                q.iter().zip(k).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum::<f64>() * scale
            })
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut o = vec![0.0f64; d];
        let mut sum = 0.0f64;
        for (j, &x) in scores.iter().enumerate() {
            let p = (x - max).exp();
            sum += p;
            for (o, &v) in o.iter_mut().zip(&self.v[s.kv_at(b, hk, j)..][..d]) {
                *o += p * f64::from(v);
            }
        }
        o.iter_mut().for_each(|x| *x /= sum);
        (o, max + sum.ln())
    }
}

/// Half `at` of words holding halves two a word, the first in the low 16 bits.
fn half(kind: HalfKind, words: &[u32], at: usize) -> f64 {
    let w = words[at / 2];
    f64::from(half_to_f32(kind, if at.is_multiple_of(2) { w as u16 } else { (w >> 16) as u16 }))
}

/// Checks that every element of `o` (halves of `kind`, two a word) and `lse` was written and is
/// finite (they were poisoned with NaN).
pub fn check_finite(what: &str, shape: Shape, kind: HalfKind, o: &[u32], lse: &[f32]) -> Result<(), Error> {
    let (d, sq, h) = (shape.dim as usize, shape.seq_q as usize, shape.heads as usize);
    let place = |row: usize| (row / (sq * h), row / sq % h, row % sq);
    if let Some(at) = (0..shape.q_len()).find(|&at| !half(kind, o, at).is_finite()) {
        let (b, h, m) = place(at / d);
        return Err(Error::new(format!(
            "check failed: {what}: O(b {b}, h {h}, row {m}, {}) is {} (not written, or not finite)",
            at % d,
            half(kind, o, at)
        )));
    }
    if let Some(row) = (0..shape.rows()).find(|&r| !lse[r].is_finite()) {
        let (b, h, m) = place(row);
        return Err(Error::new(format!(
            "check failed: {what}: lse(b {b}, h {h}, row {m}) is {} (not written, or not finite)",
            lse[row]
        )));
    }
    Ok(())
}

/// Checks the rows `rows` (`(b, h, m)`) of `o` and `lse` against `reference`, `O` within
/// [`o_tolerance`]`(kind)` and the log-sum-exp within [`LSE_TOLERANCE`]. Returns the largest
/// errors of `O` and of the log-sum-exp.
pub fn check_rows(
    what: &str,
    reference: &Reference<'_>,
    kind: HalfKind,
    (o, lse): (&[u32], &[f32]),
    rows: &[(usize, usize, usize)],
) -> Result<(f64, f64), Error> {
    let s = reference.shape;
    let (tol, d) = (o_tolerance(kind), s.dim as usize);
    let (mut worst_o, mut worst_l) = (0.0f64, 0.0f64);
    for &(b, h, m) in rows {
        let (want, want_lse) = reference.row(b, h, m);
        let base = s.q_at(b, h, m);
        for (i, &w) in want.iter().enumerate() {
            let ours = half(kind, o, base + i);
            let err = (ours - w).abs();
            if err.is_nan() || err > tol {
                return Err(Error::new(format!(
                    "check failed: {what}: O(b {b}, h {h}, row {m}, {i}) is {ours}, the f64 reference {w} \
                     (error {err:.2e} > {tol:e})"
                )));
            }
            worst_o = worst_o.max(err);
        }
        let ours = f64::from(lse[base / d]);
        let err = (ours - want_lse).abs();
        if err.is_nan() || err > LSE_TOLERANCE {
            return Err(Error::new(format!(
                "check failed: {what}: lse(b {b}, h {h}, row {m}) is {ours}, the f64 reference {want_lse} \
                 (error {err:.2e} > {LSE_TOLERANCE:e})"
            )));
        }
        worst_l = worst_l.max(err);
    }
    Ok((worst_o, worst_l))
}

/// Every row of `shape`.
fn all_rows(shape: Shape) -> Vec<(usize, usize, usize)> {
    let (b, h, s) = (shape.batch as usize, shape.heads as usize, shape.seq_q as usize);
    (0..b).flat_map(|b| (0..h).flat_map(move |h| (0..s).map(move |m| (b, h, m)))).collect()
}

/// `n` rows of `shape` spread over the heads and the batch (`h` in order, `b` cycling): the first
/// and last rows of the first and last heads, the last of the first block (127) and the first of
/// the second (128) where they exist, the others at random.
pub fn sample_rows(shape: Shape, n: usize, rng: &mut SplitMix64) -> Vec<(usize, usize, usize)> {
    let (b, h, s) = (shape.batch as usize, shape.heads as usize, shape.seq_q as usize);
    (0..n)
        .map(|r| {
            let head = (r * h / n.max(1)).min(h - 1);
            let row = match r {
                0 => 0,
                1 => 127.min(s - 1),
                2 => 128.min(s - 1),
                _ if r + 1 == n => s - 1,
                _ => rng.below(s as u64) as usize,
            };
            let seq = if r + 1 == n { b - 1 } else { r % b };
            (seq, head, row)
        })
        .collect()
}

/// Test data of `kind` for `len` halves, the values of the generator times `factor` (a power of
/// two: the same halves, scaled exactly).
fn halves(rng: &mut SplitMix64, kind: HalfKind, len: usize, factor: f32) -> Halves {
    Halves::new(kind, (0..len).map(|_| f32_to_half(kind, factor * rng.nonzero_f32())).collect())
}

/// The inputs of one problem, on the host and on the GPU.
struct Inputs {
    q: Halves,
    k: Halves,
    v: Halves,
    dq: CudaSlice<u32>,
    dk: CudaSlice<u32>,
    dv: CudaSlice<u32>,
}

impl Inputs {
    /// Random inputs of `kind` for `shape`, uploaded.
    fn new(gpu: &Gpu, rng: &mut SplitMix64, shape: Shape, kind: HalfKind) -> Result<Inputs, Error> {
        let q = halves(rng, kind, shape.q_len(), Q_FACTOR);
        let k = halves(rng, kind, shape.kv_len(), 1.0);
        let v = halves(rng, kind, shape.kv_len(), 1.0);
        let (dq, dk, dv) = (gpu.upload(&q.words)?, gpu.upload(&k.words)?, gpu.upload(&v.words)?);
        Ok(Inputs { q, k, v, dq, dk, dv })
    }

    /// The reference of these inputs as `shape`.
    fn reference(&self, shape: Shape) -> Reference<'_> {
        Reference { shape, q: &self.q.values, k: &self.k.values, v: &self.v.values, scale: scale(shape) }
    }
}

/// The softmax scale: `1/sqrt(dim)` (what SDPA and CUTLASS's example use).
fn scale(shape: Shape) -> f32 {
    1.0 / (shape.dim as f32).sqrt()
}

/// A launch of an entry point on fixed inputs: its arguments and maps made and checked once.
struct Launch<'a> {
    gpu: &'a Gpu,
    kernel: &'a Kernel<AttentionParams>,
    cfg: LaunchConfig,
    q: InArg<'a, u32, (u32, u32, u32, u32), (u32, C<1>, u32, u32)>,
    k: InArg<'a, u32, (u32, u32, u32, u32), (u32, C<1>, u32, u32)>,
    v: InArg<'a, u32, (u32, u32, u32, u32), (u32, C<1>, u32, u32)>,
    maps: [TensorMap<'a>; 3],
    o_layout: WordsLayout,
    lse_layout: LseLayout,
    scale: f32,
    causal: u32,
    bf16: u32,
}

impl<'a> Launch<'a> {
    /// The launch of `kernel` for `shape` on `inputs` of `kind`.
    fn new(
        gpu: &'a Gpu,
        kernel: &'a Kernel<AttentionParams>,
        shape: Shape,
        kind: HalfKind,
        inputs: &'a Inputs,
    ) -> Result<Self, Error> {
        let name = kernel.name();
        let (lq, dims_q, strides_q) = shape.words(name, shape.heads, shape.seq_q)?;
        let (lkv, dims_kv, strides_kv) = shape.words(name, shape.kv_heads, shape.seq_k)?;
        let (q, k, v) =
            (InArg::new(&inputs.dq, &lq)?, InArg::new(&inputs.dk, &lkv)?, InArg::new(&inputs.dv, &lkv)?);
        let stream = gpu.stream();
        let kv_box = attention_sm90::kv_box(shape.dim as usize);
        let maps = [
            TensorMap::encode_nd(stream, &q, dims_q, strides_q, attention_sm90::q_box())?,
            TensorMap::encode_nd(stream, &k, dims_kv, strides_kv, kv_box)?,
            TensorMap::encode_nd(stream, &v, dims_kv, strides_kv, kv_box)?,
        ];
        Ok(Launch {
            gpu,
            kernel,
            cfg: shape.config(kernel.limits()),
            q,
            k,
            v,
            maps,
            o_layout: lq,
            lse_layout: shape.lse_layout(name)?,
            scale: scale(shape),
            causal: u32::from(shape.causal),
            bf16: u32::from(kind == HalfKind::BF16),
        })
    }

    /// One launch into `o` and `lse`.
    fn run(&self, o: &mut CudaSlice<u32>, lse: &mut CudaSlice<f32>) -> Result<(), Error> {
        let [mq, mk, mv] = &self.maps;
        let args = (
            self.q,
            self.k,
            self.v,
            OutArg::new(o, &self.o_layout)?,
            OutArg::new(lse, &self.lse_layout)?,
            mq,
            mk,
            mv,
            self.scale,
            self.causal,
            self.bf16,
        );
        Ok(self.kernel.launch(self.gpu.stream(), &self.cfg, args)?)
    }
}

/// The entry points, loaded.
struct Kernels {
    d64: Kernel<AttentionParams>,
    d128: Kernel<AttentionParams>,
    d256: Kernel<AttentionParams>,
}

impl Kernels {
    /// The entry point of head dim `dim` (64, 128 or 256: [`Shape::check`]).
    fn of(&self, dim: u32) -> &Kernel<AttentionParams> {
        match dim {
            64 => &self.d64,
            128 => &self.d128,
            _ => &self.d256,
        }
    }
}

/// A run's outputs on the host.
struct Outputs {
    o: Vec<u32>,
    lse: Vec<f32>,
}

impl Bench<'_> {
    /// The attention entry points, checked and timed (see the module).
    pub fn attention(&mut self) -> Result<(), Error> {
        let gpu = self.gpu;
        check_config(gpu)?;
        let kernels = Kernels {
            d64: gpu.kernel(ptx::ATTENTION_SM90_D64)?,
            d128: gpu.kernel(ptx::ATTENTION_SM90_D128)?,
            d256: gpu.kernel(ptx::ATTENTION_SM90_D256)?,
        };
        let kinds = [HalfKind::F16, HalfKind::BF16];
        // Every shape with residues first: a failure ends the program before anything is timed.
        let mut residues = Vec::new();
        for kind in kinds {
            let (mut worst_o, mut worst_l) = (0.0f64, 0.0f64);
            for shape in RESIDUE_SHAPES {
                let inputs = Inputs::new(gpu, &mut self.rng, shape, kind)?;
                let kernel = kernels.of(shape.dim);
                let what =
                    format!("{} {} {} ({})", kernel.name(), shape.size(), shape.mask(), kind_name(kind));
                let out = run_once(gpu, kernel, shape, kind, &inputs, &what)?;
                let reference = inputs.reference(shape);
                check_finite(&what, shape, kind, &out.o, &out.lse)?;
                let (eo, el) = check_rows(&what, &reference, kind, (&out.o, &out.lse), &all_rows(shape))?;
                note(&format!("{what}: every element checked, O error {eo:.2e}, lse error {el:.2e}"));
                (worst_o, worst_l) = (worst_o.max(eo), worst_l.max(el));
            }
            residues.push(format!(
                "{} residue shapes, every element: O <= {worst_o:.1e}, lse <= {worst_l:.1e}",
                RESIDUE_SHAPES.len()
            ));
        }
        let main = Shape::of_size(self.opts.attention, false);
        let kernel = kernels.of(main.dim);
        for (kind, residues) in kinds.into_iter().zip(residues) {
            let inputs = Inputs::new(gpu, &mut self.rng, main, kind)?;
            for causal in [false, true] {
                let shape = main.with_causal(causal);
                let (name, size) = (kernel.name(), shape.size());
                let label = format!("{name} ({}, {})", kind_name(kind), shape.mask());
                let what = format!("{name} {size} {} ({})", shape.mask(), kind_name(kind));
                note(&format!("{what}: checked run"));
                let out = run_once(gpu, kernel, shape, kind, &inputs, &what)?;
                check_finite(&what, shape, kind, &out.o, &out.lse)?;
                let rows = sample_rows(shape, MAIN_ROWS, &mut self.rng);
                let reference = inputs.reference(shape);
                let (eo, el) = check_rows(&what, &reference, kind, (&out.o, &out.lse), &rows)?;
                note(&format!(
                    "{what}: all written and finite, {MAIN_ROWS} rows checked, O error {eo:.2e}, lse error {el:.2e}"
                ));
                let summary = format!(
                    "{residues}; here all finite, {MAIN_ROWS} rows: O <= {eo:.1e}, lse <= {el:.1e} (absolute, \
                     against f64; bounds {:e} and {LSE_TOLERANCE:e})",
                    o_tolerance(kind)
                );
                let mut measured = crate::bench::Measured::new(label, size, summary);
                if !self.opts.check_only {
                    let launch = Launch::new(gpu, kernel, shape, kind, &inputs)?;
                    let mut o = gpu.zeros::<u32>(shape.q_len() / 2)?;
                    let mut lse = gpu.zeros::<f32>(shape.rows())?;
                    measured.ours =
                        self.measure(&what, Rate::Flops, shape.flops(), || launch.run(&mut o, &mut lse))?;
                }
                self.push_attention_rows(measured, shape.anchor_key(kind));
            }
        }
        Ok(())
    }
}

/// One launch of `kernel` for `shape` on `inputs` into outputs poisoned with NaN, downloaded.
fn run_once(
    gpu: &Gpu,
    kernel: &Kernel<AttentionParams>,
    shape: Shape,
    kind: HalfKind,
    inputs: &Inputs,
    what: &str,
) -> Result<Outputs, Error> {
    let mut o = gpu.poisoned::<u32>(shape.q_len() / 2)?;
    let mut lse = gpu.poisoned::<f32>(shape.rows())?;
    Launch::new(gpu, kernel, shape, kind, inputs)?.run(&mut o, &mut lse)?;
    gpu.sync(what)?;
    Ok(Outputs { o: gpu.download(&o)?, lse: gpu.download(&lse)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::atom::tma::TmaSwizzle;

    /// A shape of any head dim, for the reference (the kernels take 64, 128 and 256).
    fn tiny(heads: u32, kv_heads: u32, seq_q: u32, seq_k: u32, dim: u32, causal: bool) -> Shape {
        Shape::new(1, heads, kv_heads, seq_q, seq_k, dim, causal)
    }

    #[test]
    fn the_reference_on_a_tiny_case() {
        // q rows (1, 0) and (0, 1); keys (1, 0) and (0, 1); values (1, 2) and (3, 4); scale 1.
        let (q, k, v) = ([1.0f32, 0.0, 0.0, 1.0], [1.0f32, 0.0, 0.0, 1.0], [1.0f32, 2.0, 3.0, 4.0]);
        let e = std::f64::consts::E;
        let full = Reference { shape: tiny(1, 1, 2, 2, 2, false), q: &q, k: &k, v: &v, scale: 1.0 };
        let (o, lse) = full.row(0, 0, 0);
        let p0 = e / (e + 1.0);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(o[0], p0 + 3.0 * (1.0 - p0)) && close(o[1], 2.0 * p0 + 4.0 * (1.0 - p0)), "{o:?}");
        assert!(close(lse, (e + 1.0).ln()));
        // Causal, top-left: row 0 sees key 0 only, row 1 both.
        let causal = Reference { shape: tiny(1, 1, 2, 2, 2, true), ..full };
        let (o, lse) = causal.row(0, 0, 0);
        assert!(close(o[0], 1.0) && close(o[1], 2.0) && close(lse, 1.0));
        assert_eq!(causal.row(0, 0, 1), full.row(0, 0, 1));
        // More queries than keys: row 2 of 3 sees both keys.
        let q3 = [1.0f32, 0.0, 0.0, 1.0, 0.5, 0.5];
        let tall = Reference { shape: tiny(1, 1, 3, 2, 2, true), q: &q3, ..full };
        let (o, lse) = tall.row(0, 0, 2);
        assert!(close(o[0], 2.0) && close(o[1], 3.0) && close(lse, 0.5 + 2f64.ln()));
        // The scale multiplies the scores.
        let scaled = Reference { scale: 0.5, ..full };
        assert!(close(scaled.row(0, 0, 0).1, 0.5 + (1.0 + (-0.5f64).exp()).ln()));
    }

    #[test]
    fn grouped_query_heads_share_their_key_value_head() {
        // Four query heads (all q rows (1, 1)), two key/value heads: heads 0 and 1 read the
        // first, 2 and 3 the second (values 1 and 2 everywhere).
        let q = [1.0f32; 4 * 2];
        let k = [1.0f32; 2 * 2];
        let v = [1.0f32, 1.0, 2.0, 2.0];
        let r = Reference { shape: tiny(4, 2, 1, 1, 2, false), q: &q, k: &k, v: &v, scale: 1.0 };
        let firsts: Vec<f64> = (0..4).map(|h| r.row(0, h, 0).0[0]).collect();
        assert_eq!(firsts, [1.0, 1.0, 2.0, 2.0]);
    }

    /// Outputs that are the reference rounded to `kind`.
    fn rounded(r: &Reference<'_>, kind: HalfKind) -> (Vec<u32>, Vec<f32>) {
        let s = r.shape;
        let (mut halves, mut lse) = (Vec::new(), Vec::new());
        for (b, h, m) in all_rows(s) {
            let (o, l) = r.row(b, h, m);
            halves.extend(o.iter().map(|&x| f32_to_half(kind, x as f32)));
            lse.push(l as f32);
        }
        (Halves::new(kind, halves).words, lse)
    }

    #[test]
    fn checks_find_wrong_and_unwritten_elements() {
        let shape = Shape::new(2, 2, 1, 5, 7, 64, true);
        let mut rng = SplitMix64::new(3);
        let kind = HalfKind::BF16;
        let (q, k, v) = (
            halves(&mut rng, kind, shape.q_len(), Q_FACTOR),
            halves(&mut rng, kind, shape.kv_len(), 1.0),
            halves(&mut rng, kind, shape.kv_len(), 1.0),
        );
        let r = Reference { shape, q: &q.values, k: &k.values, v: &v.values, scale: scale(shape) };
        let (mut o, mut lse) = rounded(&r, kind);
        let rows = all_rows(shape);
        assert_eq!(rows.len(), 20);
        check_finite("x", shape, kind, &o, &lse).unwrap();
        let (eo, el) = check_rows("x", &r, kind, (&o, &lse), &rows).unwrap();
        assert!(eo < 1e-2 && el < 1e-6, "{eo} {el}");
        // Row 3 of head 1 of sequence 1, element 10: off by 0.1.
        let at = shape.q_at(1, 1, 3) + 10;
        let good = o[at / 2];
        let bumped = f32_to_half(kind, half(kind, &o, at) as f32 + 0.1);
        o[at / 2] = (good & 0xffff_0000) | u32::from(bumped);
        let e = check_rows("x", &r, kind, (&o, &lse), &rows).unwrap_err().to_string();
        assert!(e.contains("O(b 1, h 1, row 3, 10)") && e.contains("> 2e-2"), "{e}");
        o[at / 2] = good;
        lse[shape.q_at(0, 1, 4) / 64] += 2e-3;
        let e = check_rows("x", &r, kind, (&o, &lse), &rows).unwrap_err().to_string();
        assert!(e.contains("lse(b 0, h 1, row 4)"), "{e}");
        // Poisoned (NaN) elements.
        let mut unwritten = o.clone();
        unwritten[shape.q_at(1, 0, 2) / 2] = u32::MAX;
        let e = check_finite("x", shape, kind, &unwritten, &lse).unwrap_err().to_string();
        assert!(e.contains("O(b 1, h 0, row 2, 0) is NaN"), "{e}");
        assert!(check_rows("x", &r, kind, (&unwritten, &lse), &rows).is_err());
        lse[7] = f32::NAN;
        let e = check_finite("x", shape, kind, &o, &lse).unwrap_err().to_string();
        assert!(e.contains("lse(b 0, h 1, row 2) is NaN"), "{e}");
    }

    #[test]
    fn the_expected_config_is_the_kernels_crates() {
        let c = expected_config();
        assert_eq!(c[..4], [64, 128, 16, TmaSwizzle::B128 as u32]);
        assert_eq!(c[4..8], [512, 192, 384, 128]);
        assert_eq!((c[8], c[9]), (attention_sm90::smem_bytes(64), attention_sm90::smem_bytes(128)));
        assert_eq!(c[10..12], [128, 2]);
        assert_eq!(c[12..], [384, 128, attention_sm90::smem_bytes(256), 64]);
    }

    #[test]
    fn residue_shapes_are_valid_and_cover_the_cases() {
        for s in RESIDUE_SHAPES {
            s.check().unwrap();
        }
        let any = |f: fn(&Shape) -> bool| RESIDUE_SHAPES.iter().any(f);
        assert!(any(|s| s.dim == 64) && any(|s| s.dim == 128) && any(|s| s.dim == 256));
        assert!(any(|s| s.causal && s.seq_q < s.seq_k) && any(|s| s.causal && s.seq_q > s.seq_k));
        assert!(any(|s| !s.causal && s.seq_k % 128 != 0) && any(|s| s.kv_heads == 1 && s.heads > 1));
        assert!(any(|s| s.kv_heads > 1 && s.kv_heads < s.heads) && any(|s| s.batch > 1));
        // Several query blocks with a residue, at each head dim's block (192 rows at 64, 128 at 128).
        fn residue(s: &Shape) -> bool {
            let m = attention_sm90::block_m(s.dim as usize) as u32;
            !s.seq_q.is_multiple_of(m) && s.seq_q > m
        }
        assert!(any(|s| s.dim == 64 && residue(s)) && any(|s| s.dim == 128 && residue(s)));
        assert!(any(|s| s.dim == 256 && residue(s)));
    }

    #[test]
    fn layouts_maps_and_launch_of_a_shape() {
        let s = Shape::new(2, 8, 2, 300, 500, 128, true);
        let (l, dims, strides) = s.words("x", s.heads, s.seq_q).unwrap();
        assert_eq!(l.shape(), (300, 64, 8, 2));
        assert_eq!((l.stride().0, l.stride().2, l.stride().3), (64, 300 * 64, 8 * 300 * 64));
        assert_eq!((dims, strides), ([128, 300, 8, 2], [1, 128, 300 * 128, 8 * 300 * 128]));
        let (_, dims, strides) = s.words("x", s.kv_heads, s.seq_k).unwrap();
        assert_eq!((dims, strides), ([128, 500, 2, 2], [1, 128, 500 * 128, 2 * 500 * 128]));
        let lse = s.lse_layout("x").unwrap();
        assert_eq!((lse.shape(), lse.stride()), ((300, 8, 2), (1, 300, 2400)));
        let limits = const_layout_launch::KernelLimits {
            max_threads_per_block: 1024,
            static_smem_bytes: 0,
            max_smem_per_block: 232448,
        };
        let cfg = s.config(&limits);
        assert_eq!((cfg.grid, cfg.block.x), (Dim3 { x: 3, y: 8, z: 2 }, 384));
        assert_eq!(cfg.dynamic_smem_bytes, attention_sm90::smem_bytes(128));
        // FLOPs and the anchors' keys.
        let main = Shape::of_size((4, 16, 16, 4096, 128), false);
        assert_eq!(main.flops(), 4.0 * 4.0 * 16.0 * 4096.0 * 4096.0 * 128.0);
        assert_eq!(main.with_causal(true).flops(), main.flops() / 2.0);
        assert_eq!(main.anchor_key(HalfKind::F16).unwrap(), "d128_h16_b4_s4096_full_fp16");
        assert_eq!(
            main.with_causal(true).anchor_key(HalfKind::BF16).unwrap(),
            "d128_h16_b4_s4096_causal_bf16"
        );
        assert_eq!(s.anchor_key(HalfKind::F16), None);
        assert_eq!(
            (main.size(), s.size()),
            ("b4 h16 hkv16 s4096 d128".into(), "b2 h8 hkv2 sq300 sk500 d128".into())
        );
    }

    #[test]
    fn shapes_are_refused_as_the_kernels_and_limits_say() {
        let ok = Shape::of_size((4, 16, 16, 4096, 128), false);
        ok.check().unwrap();
        assert!(Shape { dim: 96, ..ok }.check().unwrap_err().contains("head dim 64, 128 or 256"));
        assert!(Shape { kv_heads: 5, ..ok }.check().unwrap_err().contains("multiple"));
        let e = Shape { seq_q: u32::MAX, seq_k: u32::MAX, ..ok }.check().unwrap_err();
        assert!(e.starts_with("q (4x16x4294967295x128 halves)"), "{e}");
        let e =
            Shape { heads: 4, kv_heads: 1, seq_q: 1, seq_k: 1 << 26, batch: 8, ..ok }.check().unwrap_err();
        assert!(e.starts_with("k "), "{e}");
        // 2^34 bytes of q in one sequence: a batch stride of 2^32 words.
        let e = Shape::of_size((1, 2, 2, 1 << 25, 128), false).check().unwrap_err();
        assert!(e.contains("batch stride of 4294967296 words"), "{e}");
        assert!(Shape::of_size((1, 65536, 1, 128, 64), false).check().unwrap_err().contains("grid"));
        assert!(Shape::of_size((65535, 1, 1, 128, 64), false).check().is_ok());
    }

    #[test]
    fn sampled_rows_spread_over_heads_and_the_batch() {
        let s = Shape::of_size((4, 16, 16, 4096, 128), false);
        let rows = sample_rows(s, MAIN_ROWS, &mut SplitMix64::new(1));
        assert_eq!(rows.len(), MAIN_ROWS);
        assert!(rows.iter().all(|&(b, h, m)| b < 4 && h < 16 && m < 4096));
        assert_eq!((rows[0], rows[63]), ((0, 0, 0), (3, 15, 4095)));
        assert_eq!((rows[1].2, rows[2].2), (127, 128));
        for h in 0..16 {
            assert!(rows.iter().any(|r| r.1 == h));
        }
        for b in 0..4 {
            assert!(rows.iter().any(|r| r.0 == b));
        }
        let small = sample_rows(Shape::of_size((1, 1, 1, 1, 64), true), 8, &mut SplitMix64::new(1));
        assert!(small.iter().all(|&r| r == (0, 0, 0)));
    }
}
