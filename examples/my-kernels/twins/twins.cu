// CUDA C++ twins of examples/my-kernels/kernels/src/{softmax,layernorm,transpose}.rs: the same
// design written the way a CUDA programmer writes it plainly, to compare the Rust kernels' SASS
// and executed instructions against (examples/my-kernels/bench/).
//
// Same as the Rust, instruction for instruction where CUDA writes it plainly:
//  - softmax/layernorm: one block of 256 threads a row, a grid-stride loop over the rows (the
//    grid is softmax::grid's), __launch_bounds__(256, 4); thread t holds columns 4t + 1024k,
//    k = 0..3, as float4 (__ldg loads, plain stores); block reductions as warp::block_allreduce:
//    a shfl_xor butterfly (masks 1, 2, 4, 8, 16), lane 0 writes scratch[warp], one
//    __syncthreads(), every thread combines the 8 warps' results from two float4 shared loads
//    ((q0 op q1) op (q2 op q3)) op ((q4 op q5) op (q6 op q7)) (as the Rust: it starts from the
//    first group of four, no identity element); two scratch arrays alternate;
//    ex2.approx.ftz / rcp.approx.ftz / rsqrt.approx.ftz by inline PTX, fmaf; the per-thread
//    accumulators start as the Rust body's do (m = -inf, s = 0, q = 0).
//  - transpose: a 64 x 64 tile of one batch matrix a block (grid (n/64, m/64, batch)), 256
//    threads; read: thread t takes rows t/16 + 16k, columns 4(t%16)..+4 (float4
//    __ldg); shared tile Sw<3,2,6> over the row-major offset o = 64 r + c; write: thread t takes
//    rows 4(t%8)..+4 of column t/8 of each quadrant (di, dj) = (32(q%2), 32(q/2)) (float4 stores);
//    one __syncthreads() between reading and writing (none after the writes: the block's only
//    tile, as the Rust's). __launch_bounds__(256) alone: 32 registers (the Rust's minimum of 6
//    blocks a multiprocessor, transpose::BLOCKS_PER_SM, is left out: with it ptxas takes 40).
//  - the row kernels' variants (kernels/src/variants.rs), the same design again: the per-row
//    arithmetic as above, in softmax_row / layernorm_row, whose `issue` hook runs after the
//    thread's own partial result and before the first barrier;
//    *_twin_pf: the next row's 4 float4 (__ldg) into registers in `issue`; layernorm's gamma and
//      beta in shared memory (each thread writes and reads only its own columns, no barrier);
//    *_twin_cp: rows r + grid and r + 2 grid in flight by cp.async.cg (16 bytes, src-size 16 in a
//      register as the Rust's asm), one group a row (an empty group past the last row), two
//      4096-float stages swapped each row, each thread's own columns at their own columns;
//      cp.async.wait_group 1 at the top of the row, four 128-bit shared loads, the refill in
//      `issue`; layernorm's gamma and beta in registers;
//    *_twin_b6: __launch_bounds__(256, 6): softmax_twin's body; layernorm with gamma and beta in
//      shared memory as _pf's.
// What the twins leave out (a CUDA programmer does not write it): the Rust's shape, alignment and
// block-size checks (the host launches them right), and the converged-warp check before a
// butterfly.
//
// Parameters: raw pointers and the layouts' runtime integers (in elements).
//   softmax_twin(x, y, rows, ldx, ldy)                  x, y: (rows, 4096):(ld, 1)
//   layernorm_twin(x, gamma, beta, y, rows, ldx, ldy, eps)
//   softmax_twin_{pf,cp,b6}, layernorm_twin_{pf,cp,b6}: as softmax_twin, layernorm_twin
//   transpose_twin(src, dst, batch, m, n, sb, lds, db, ldd)
//       src (b, i, j) at b sb + i lds + j; dst (b, i, j) at b db + i + j ldd (dst[b][j][i] = src[b][i][j])

#include <cstddef>

// The row kernels' launch bounds: __launch_bounds__(256, 4) as the Rust declares
// (#[launch_bounds(softmax::THREADS, softmax::BLOCKS_PER_SM)], which const-layout-builder writes
// into the PTX as .maxntid 256, 1, 1 / .minnctapersm 4): at most 64 registers a thread.
#define ROW_BOUNDS __launch_bounds__(256, 4)
// The b6 variants': #[launch_bounds(softmax::THREADS, variants::BLOCKS_PER_SM_B6)], at most 40
// registers a thread.
#define ROW_BOUNDS_B6 __launch_bounds__(256, 6)

namespace {

constexpr unsigned COLS = 4096;
constexpr float LOG2E = 1.44269504088896340736f;  // core::f32::consts::LOG2_E

__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float rsqrt_approx(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The block's maximum of v: warp butterfly, lane 0 writes scratch[warp], one barrier, every thread
// combines the 8 warps' results.
__device__ __forceinline__ float block_max(float v, float* scratch, unsigned lane, unsigned warp) {
#pragma unroll
  for (int m = 1; m < 32; m <<= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const float4 a = reinterpret_cast<const float4*>(scratch)[0];
  const float4 b = reinterpret_cast<const float4*>(scratch)[1];
  return fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)), fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
}

// The block's sum of v, as block_max.
__device__ __forceinline__ float block_sum(float v, float* scratch, unsigned lane, unsigned warp) {
#pragma unroll
  for (int m = 1; m < 32; m <<= 1) v = v + __shfl_xor_sync(0xffffffffu, v, m);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const float4 a = reinterpret_cast<const float4*>(scratch)[0];
  const float4 b = reinterpret_cast<const float4*>(scratch)[1];
  return ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
}

__device__ __forceinline__ float at(const float4& v, int e) {
  return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
}

__device__ __forceinline__ void set(float4& v, int e, float x) {
  if (e == 0) v.x = x;
  else if (e == 1) v.y = x;
  else if (e == 2) v.z = x;
  else v.w = x;
}

// cp.async.cg of 16 bytes from global `src` to shared address `dst`, src-size in a register (the
// Rust's `copy_async_vec4` asm); commit_group; wait_group 1.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(16) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

__device__ __forceinline__ void cp_async_wait1() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

// The variants' softmax of one row held as v (variants.rs softmax_row): `issue()` after the
// thread's own maximum, before the first barrier; v becomes the row's softmax.
template <class Issue>
__device__ __forceinline__ void softmax_row(float4 (&v)[4], float* maxima, float* sums, unsigned lane, unsigned warp,
                                            Issue issue) {
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < 4; k++) m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  issue();
  m = block_max(m, maxima, lane, warp);
  const float shift = -m * LOG2E;
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 4; k++) {
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const float p = ex2_approx(fmaf(at(v[k], e), LOG2E, shift));
      set(v[k], e, p);
      s += p;
    }
  }
  const float inv = rcp_approx(block_sum(s, sums, lane, warp));
#pragma unroll
  for (int k = 0; k < 4; k++) v[k] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

// The variants' LayerNorm statistics of one row held as v (variants.rs layernorm_row): rstd and
// shift = -mean rstd; `issue()` after the thread's own sum, before the first barrier.
template <class Issue>
__device__ __forceinline__ void layernorm_row(const float4 (&v)[4], float* sums, float* squares, unsigned lane,
                                              unsigned warp, float eps, float& rstd, float& shift, Issue issue) {
  const float inv_n = 1.0f / COLS;
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 4; k++) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  issue();
  const float mean = block_sum(s, sums, lane, warp) * inv_n;
  float q = 0.f;
#pragma unroll
  for (int k = 0; k < 4; k++) {
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const float d = at(v[k], e) - mean;
      q = fmaf(d, d, q);
    }
  }
  const float var = block_sum(q, squares, lane, warp) * inv_n;
  rstd = rsqrt_approx(var + eps);
  shift = -mean * rstd;
}

// Thread t's columns of gamma and beta into gs and bs at their own columns.
__device__ __forceinline__ void weights_to_shared(const float* __restrict__ gamma, const float* __restrict__ beta,
                                                  float* gs, float* bs, unsigned t) {
#pragma unroll
  for (int k = 0; k < 4; k++) {
    reinterpret_cast<float4*>(gs)[t + (COLS / 4 / 4) * k] =
        __ldg(reinterpret_cast<const float4*>(gamma) + t + (COLS / 4 / 4) * k);
    reinterpret_cast<float4*>(bs)[t + (COLS / 4 / 4) * k] =
        __ldg(reinterpret_cast<const float4*>(beta) + t + (COLS / 4 / 4) * k);
  }
}

// (v rstd + shift) gamma + beta into yr, gamma and beta from shared memory.
__device__ __forceinline__ void store_normalized(float4* yr, const float4 (&v)[4], float rstd, float shift,
                                                 const float* gs, const float* bs, unsigned t) {
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const float4 g = reinterpret_cast<const float4*>(gs)[t + (COLS / 4 / 4) * k];
    const float4 b = reinterpret_cast<const float4*>(bs)[t + (COLS / 4 / 4) * k];
    float4 o;
    o.x = fmaf(fmaf(v[k].x, rstd, shift), g.x, b.x);
    o.y = fmaf(fmaf(v[k].y, rstd, shift), g.y, b.y);
    o.z = fmaf(fmaf(v[k].z, rstd, shift), g.z, b.z);
    o.w = fmaf(fmaf(v[k].w, rstd, shift), g.w, b.w);
    yr[(COLS / 4 / 4) * k] = o;
  }
}

// Sw<3,2,6> on a 64 x 64 row-major offset.
__device__ __forceinline__ unsigned swizzle(unsigned o) { return o ^ (((o >> 8) & 7u) << 2); }

}  // namespace

extern "C" __global__ void ROW_BOUNDS
    softmax_twin(const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy) {
  __shared__ __align__(16) float maxima[32];
  __shared__ __align__(16) float sums[32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = __ldg(xr + (COLS / 4 / 4) * k);  // columns 4t + 1024k
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < 4; k++) m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    m = block_max(m, maxima, lane, warp);
    const float shift = -m * LOG2E;
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const float p = ex2_approx(fmaf(at(v[k], e), LOG2E, shift));
        set(v[k], e, p);
        s += p;
      }
    }
    const float inv = rcp_approx(block_sum(s, sums, lane, warp));
#pragma unroll
    for (int k = 0; k < 4; k++)
      yr[(COLS / 4 / 4) * k] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
  }
}

extern "C" __global__ void ROW_BOUNDS
    layernorm_twin(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                   float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy, float eps) {
  __shared__ __align__(16) float sums[32];
  __shared__ __align__(16) float squares[32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  float4 wg[4], wb[4];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    wg[k] = __ldg(reinterpret_cast<const float4*>(gamma) + t + (COLS / 4 / 4) * k);
    wb[k] = __ldg(reinterpret_cast<const float4*>(beta) + t + (COLS / 4 / 4) * k);
  }
  const float inv_n = 1.0f / COLS;
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = __ldg(xr + (COLS / 4 / 4) * k);
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 4; k++) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    const float mean = block_sum(s, sums, lane, warp) * inv_n;
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const float d = at(v[k], e) - mean;
        q = fmaf(d, d, q);
      }
    }
    const float var = block_sum(q, squares, lane, warp) * inv_n;
    const float rstd = rsqrt_approx(var + eps);
    const float shift = -mean * rstd;
#pragma unroll
    for (int k = 0; k < 4; k++) {
      float4 o;
      o.x = fmaf(fmaf(v[k].x, rstd, shift), wg[k].x, wb[k].x);
      o.y = fmaf(fmaf(v[k].y, rstd, shift), wg[k].y, wb[k].y);
      o.z = fmaf(fmaf(v[k].z, rstd, shift), wg[k].z, wb[k].z);
      o.w = fmaf(fmaf(v[k].w, rstd, shift), wg[k].w, wb[k].w);
      yr[(COLS / 4 / 4) * k] = o;
    }
  }
}

// ---- The row kernels' variants (kernels/src/variants.rs).

extern "C" __global__ void ROW_BOUNDS
    softmax_twin_pf(const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy) {
  __shared__ __align__(16) float maxima[32];
  __shared__ __align__(16) float sums[32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned step = gridDim.x;
  unsigned row = blockIdx.x;
  float4 next[4];
  if (row < rows) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
#pragma unroll
    for (int k = 0; k < 4; k++) next[k] = __ldg(xr + (COLS / 4 / 4) * k);
  }
  while (row < rows) {
    float4 v[4] = {next[0], next[1], next[2], next[3]};
    const unsigned ahead = row + step;
    softmax_row(v, maxima, sums, lane, warp, [&] {
      if (ahead < rows) {
        const float4* xr = reinterpret_cast<const float4*>(x + (size_t)ahead * ldx) + t;
#pragma unroll
        for (int k = 0; k < 4; k++) next[k] = __ldg(xr + (COLS / 4 / 4) * k);
      }
    });
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
#pragma unroll
    for (int k = 0; k < 4; k++) yr[(COLS / 4 / 4) * k] = v[k];
    row = ahead;
  }
}

extern "C" __global__ void ROW_BOUNDS
    softmax_twin_cp(const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy) {
  __shared__ __align__(16) float maxima[32];
  __shared__ __align__(16) float sums[32];
  __shared__ __align__(16) float stages[2][COLS];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned step = gridDim.x;
  // Thread t's columns of row r (if it is one) into stage s at their own columns: one group.
  auto fetch = [&](unsigned r, float* s) {
    if (r < rows) {
      const float4* xr = reinterpret_cast<const float4*>(x + (size_t)r * ldx) + t;
#pragma unroll
      for (int k = 0; k < 4; k++)
        cp_async16((unsigned)__cvta_generic_to_shared(reinterpret_cast<float4*>(s) + t + (COLS / 4 / 4) * k),
                   xr + (COLS / 4 / 4) * k);
    }
    cp_async_commit();
  };
  float* stage = stages[0];
  float* other = stages[1];
  unsigned row = blockIdx.x;
  fetch(row, stage);
  fetch(row + step, other);
  while (row < rows) {
    cp_async_wait1();  // this row's group (the one after it may still be in flight)
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = reinterpret_cast<const float4*>(stage)[t + (COLS / 4 / 4) * k];
    softmax_row(v, maxima, sums, lane, warp, [&] { fetch(row + 2 * step, stage); });
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
#pragma unroll
    for (int k = 0; k < 4; k++) yr[(COLS / 4 / 4) * k] = v[k];
    float* s = stage;
    stage = other;
    other = s;
    row += step;
  }
}

// softmax_twin's body at 6 blocks a multiprocessor.
extern "C" __global__ void ROW_BOUNDS_B6
    softmax_twin_b6(const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy) {
  __shared__ __align__(16) float maxima[32];
  __shared__ __align__(16) float sums[32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = __ldg(xr + (COLS / 4 / 4) * k);
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < 4; k++) m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    m = block_max(m, maxima, lane, warp);
    const float shift = -m * LOG2E;
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const float p = ex2_approx(fmaf(at(v[k], e), LOG2E, shift));
        set(v[k], e, p);
        s += p;
      }
    }
    const float inv = rcp_approx(block_sum(s, sums, lane, warp));
#pragma unroll
    for (int k = 0; k < 4; k++)
      yr[(COLS / 4 / 4) * k] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
  }
}

extern "C" __global__ void ROW_BOUNDS
    layernorm_twin_pf(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                      float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy, float eps) {
  __shared__ __align__(16) float sums[32];
  __shared__ __align__(16) float squares[32];
  __shared__ __align__(16) float gs[COLS];
  __shared__ __align__(16) float bs[COLS];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  weights_to_shared(gamma, beta, gs, bs, t);
  const unsigned step = gridDim.x;
  unsigned row = blockIdx.x;
  float4 next[4];
  if (row < rows) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
#pragma unroll
    for (int k = 0; k < 4; k++) next[k] = __ldg(xr + (COLS / 4 / 4) * k);
  }
  while (row < rows) {
    const float4 v[4] = {next[0], next[1], next[2], next[3]};
    const unsigned ahead = row + step;
    float rstd, shift;
    layernorm_row(v, sums, squares, lane, warp, eps, rstd, shift, [&] {
      if (ahead < rows) {
        const float4* xr = reinterpret_cast<const float4*>(x + (size_t)ahead * ldx) + t;
#pragma unroll
        for (int k = 0; k < 4; k++) next[k] = __ldg(xr + (COLS / 4 / 4) * k);
      }
    });
    store_normalized(reinterpret_cast<float4*>(y + (size_t)row * ldy) + t, v, rstd, shift, gs, bs, t);
    row = ahead;
  }
}

extern "C" __global__ void ROW_BOUNDS
    layernorm_twin_cp(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                      float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy, float eps) {
  __shared__ __align__(16) float sums[32];
  __shared__ __align__(16) float squares[32];
  __shared__ __align__(16) float stages[2][COLS];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned step = gridDim.x;
  auto fetch = [&](unsigned r, float* s) {
    if (r < rows) {
      const float4* xr = reinterpret_cast<const float4*>(x + (size_t)r * ldx) + t;
#pragma unroll
      for (int k = 0; k < 4; k++)
        cp_async16((unsigned)__cvta_generic_to_shared(reinterpret_cast<float4*>(s) + t + (COLS / 4 / 4) * k),
                   xr + (COLS / 4 / 4) * k);
    }
    cp_async_commit();
  };
  float* stage = stages[0];
  float* other = stages[1];
  unsigned row = blockIdx.x;
  fetch(row, stage);
  fetch(row + step, other);
  float4 wg[4], wb[4];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    wg[k] = __ldg(reinterpret_cast<const float4*>(gamma) + t + (COLS / 4 / 4) * k);
    wb[k] = __ldg(reinterpret_cast<const float4*>(beta) + t + (COLS / 4 / 4) * k);
  }
  while (row < rows) {
    cp_async_wait1();
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = reinterpret_cast<const float4*>(stage)[t + (COLS / 4 / 4) * k];
    float rstd, shift;
    layernorm_row(v, sums, squares, lane, warp, eps, rstd, shift, [&] { fetch(row + 2 * step, stage); });
    float4* yr = reinterpret_cast<float4*>(y + (size_t)row * ldy) + t;
#pragma unroll
    for (int k = 0; k < 4; k++) {
      float4 o;
      o.x = fmaf(fmaf(v[k].x, rstd, shift), wg[k].x, wb[k].x);
      o.y = fmaf(fmaf(v[k].y, rstd, shift), wg[k].y, wb[k].y);
      o.z = fmaf(fmaf(v[k].z, rstd, shift), wg[k].z, wb[k].z);
      o.w = fmaf(fmaf(v[k].w, rstd, shift), wg[k].w, wb[k].w);
      yr[(COLS / 4 / 4) * k] = o;
    }
    float* s = stage;
    stage = other;
    other = s;
    row += step;
  }
}

extern "C" __global__ void ROW_BOUNDS_B6
    layernorm_twin_b6(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                      float* __restrict__ y, unsigned rows, unsigned ldx, unsigned ldy, float eps) {
  __shared__ __align__(16) float sums[32];
  __shared__ __align__(16) float squares[32];
  __shared__ __align__(16) float gs[COLS];
  __shared__ __align__(16) float bs[COLS];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  weights_to_shared(gamma, beta, gs, bs, t);
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * ldx) + t;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = __ldg(xr + (COLS / 4 / 4) * k);
    float rstd, shift;
    layernorm_row(v, sums, squares, lane, warp, eps, rstd, shift, [] {});
    store_normalized(reinterpret_cast<float4*>(y + (size_t)row * ldy) + t, v, rstd, shift, gs, bs, t);
  }
}

// ---- The transpose (kernels/src/transpose.rs): one matrix's 64 x 64 tile a block, grid (n/64,
// m/64, batch).

extern "C" __global__ void __launch_bounds__(256)
    transpose_twin(const float* __restrict__ src, float* __restrict__ dst, unsigned batch, unsigned m, unsigned n,
                   unsigned sb, unsigned lds, unsigned db, unsigned ldd) {
  (void)batch, (void)m, (void)n;  // the grid is (n/64, m/64, batch): whole tiles only
  __shared__ __align__(16) float tile[64 * 64];
  const unsigned t = threadIdx.x;
  const unsigned ri = t / 16, rj = 4 * (t % 16);  // reading: rows ri + 16k, columns rj..+4
  const unsigned wi = 4 * (t % 8), wj = t / 8;    // writing: rows wi..+4 of column wj (+ di, dj)
  const unsigned i0 = 64 * blockIdx.y, j0 = 64 * blockIdx.x, b = blockIdx.z;
  const float* s = src + (size_t)b * sb + (size_t)(i0 + ri) * lds + (j0 + rj);
  float* d = dst + (size_t)b * db + (size_t)(j0 + wj) * ldd + (i0 + wi);
  float4 rows[4];
#pragma unroll
  for (int k = 0; k < 4; k++) rows[k] = __ldg(reinterpret_cast<const float4*>(s + (size_t)(16 * k) * lds));
#pragma unroll
  for (int k = 0; k < 4; k++) *reinterpret_cast<float4*>(&tile[swizzle(64 * (ri + 16 * k) + rj)]) = rows[k];
  __syncthreads();
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const unsigned di = 32 * (p % 2), dj = 32 * (p / 2);
    float4 column;
    column.x = tile[swizzle(64 * (wi + di + 0) + wj + dj)];
    column.y = tile[swizzle(64 * (wi + di + 1) + wj + dj)];
    column.z = tile[swizzle(64 * (wi + di + 2) + wj + dj)];
    column.w = tile[swizzle(64 * (wi + di + 3) + wj + dj)];
    *reinterpret_cast<float4*>(d + di + (size_t)dj * ldd) = column;
  }
  // No barrier after the writes: the block's only tile (as the Rust).
}

// A spin of `cycles` clock cycles (bench.py queues one before each timed launch when PyTorch's
// torch.cuda._sleep is missing, so the start event is not recorded on an idle GPU).
extern "C" __global__ void spin_twin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
