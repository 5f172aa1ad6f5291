#!/usr/bin/env python3
"""How long a multiprocessor of the H200 stays idle between one block of threads and the next,
and what a block's first instructions cost: the attention kernel's query blocks turn over in about
1.7 us (tools/gpu/attention_timeline.py), these probes in 0.2 us. Each probe block's thread 0
reads `%globaltimer` at its start and, after a `__syncthreads`, at its end, with its `%smid`; the
gap is the next block's start on the same multiprocessor minus the block's end, median over the
blocks. Grids of 8 waves (132 blocks a wave, one block a multiprocessor by its shared memory or
registers), 384 threads a block unless said.

    python3 tools/gpu/cta_gap.py            # on the GPU machine (CuPy); ONLY=n runs section n

Sections: (1) dynamic shared memory (none or 215 KB), the attention kernel's register split
(`setmaxnreg` 24/240), 32 KB of global stores a block; (2) a prologue and epilogue of P dependent
FMAs around a loop of K; (3) the producer warpgroup leaving early, bulk copies through the async
proxy onto an mbarrier, 1 or 18 mbarriers each with its init fence; (4) a three-dimensional grid,
sixteen named barriers, 1 KB of parameters; (5) a `call` to a trap function and 320 KB of code
never run; (6) the dynamic shared memory swept from 0 to 227 KB; (7) a prologue of P independent
FMAs (128 threads): the first block on each multiprocessor against the later ones, which shows how
much of a block's code the next block finds in the instruction cache (PERFORMANCE.md)."""
import os
import cupy as cp
import numpy as np

ONLY = os.environ.get("ONLY")  # run only this section (1 to 7)


def section(n):
    return ONLY is None or ONLY == str(n)

# Thread 0 writes its block's record: start, end, multiprocessor (`keep` folded in as zero, so
# that the compiler keeps what produced it).
RECORD = r"""
#define RECORD(out, id, t0, t1, sm, keep) do { if (threadIdx.x == 0) { \
    (out)[3 * (id)] = (t0); (out)[3 * (id) + 1] = (t1); (out)[3 * (id) + 2] = (sm) + (keep) * 0ull; } } while (0)
"""

def kernel(src, name, smem=215040):
    """`name` compiled from `src` for sm_90a (the record macro first), allowed `smem` bytes."""
    f = cp.RawModule(code=RECORD + src, options=("-arch=sm_90a",)).get_function(name)
    f.max_dynamic_shared_size_bytes = smem
    return f


SRC = r"""
extern "C" __global__ void __launch_bounds__(384, 1) gap(unsigned long long* out, unsigned long long spin,
                                                          int regsplit, int stores, unsigned int* sink) {
    extern __shared__ unsigned int smem[];
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    int wg = __shfl_sync(0xffffffff, threadIdx.x / 128, 0);
    if (regsplit) {
        if (wg == 2) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        else asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    }
    unsigned long long t = t0;
    while (t - t0 < spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (stores && wg < 2) {
        uint4* dst = reinterpret_cast<uint4*>(sink) + (size_t)blockIdx.x * 2048;
        for (int i = threadIdx.x; i < 2048; i += 256) dst[i] = make_uint4(t, t, t, sm);
    }
    smem[threadIdx.x] = (unsigned int)t;
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    RECORD(out, blockIdx.x, t0, t1, sm, smem[5]);
}
"""

dev = cp.cuda.Device()
sms = dev.attributes["MultiProcessorCount"]
kern = kernel(SRC, "gap", 232448)
WAVES = 8
blocks = sms * WAVES
out = cp.zeros(3 * blocks, dtype=cp.uint64)
sink = cp.zeros(blocks * 2048 * 4, dtype=cp.uint32)



def by_sm(a):
    """Each multiprocessor's records (rows of `a`: start, end, smid, ...), ordered by start."""
    for s in np.unique(a[:, 2]):
        r = a[a[:, 2] == s]
        yield r[np.argsort(r[:, 0])]


def gaps(a):
    """The gaps between one block's end and the next one's start on each multiprocessor."""
    return np.array([g for r in by_sm(a) for g in r[1:, 0] - r[:-1, 1]])


def records(buf, n, width=3):
    cp.cuda.Device().synchronize()
    return buf.get()[:width * n].reshape(n, width).astype(np.int64)


def stats(g):
    return f"{np.median(g):>13.0f} {np.percentile(g, 90):>6.0f}"


def run(smem, spin, regsplit, stores):
    for _ in range(3):
        kern((blocks,), (384,), (out, cp.uint64(spin), cp.int32(regsplit), cp.int32(stores), sink),
             shared_mem=max(smem, 1536))
    a = records(out, blocks)
    g = gaps(a)[sms:]
    return np.median(g), np.percentile(g, 90), np.bincount(a[:, 2]).max()


if section(1):
    print(f"{sms} multiprocessors, {blocks} blocks of 384 threads, gap = next start - end on one multiprocessor")
    print(f"{'dynamic smem':>14} {'setmaxnreg':>10} {'O stores':>8} {'spin us':>7} {'median ns':>9} {'p90 ns':>7} {'most blocks/SM':>14}")
    for spin in (20000, 50000):
        for smem in (0, 215040):
            for regsplit in (0, 1):
                for stores in (0, 1):
                    med, p90, per = run(smem, spin, regsplit, stores)
                    print(f"{smem:>14} {regsplit:>10} {stores:>8} {spin / 1000:>7.0f} {med:>9.0f} {p90:>7.0f} {per:>14}")

# Instruction fetch: a prologue and an epilogue of P dependent FMAs each (16 bytes of code an
# FMA), run once a block, around a loop whose body is K FMAs. With a large body, do the once-a-
# block parts miss the instruction caches, and does that show as the gap and a slow prologue?
def icache_src(p, k):
    fma = 'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));\n'
    return r"""
extern "C" __global__ void __launch_bounds__(384, 1) ic(unsigned long long* out, unsigned long long spin, float a, float b) {
    extern __shared__ unsigned int smem[];
    unsigned long long t0, tp, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    float x = threadIdx.x;
""" + fma * p + r"""
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tp));
    unsigned long long t = tp;
    while (t - tp < spin) {
""" + fma * k + r"""
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    }
""" + fma * p + r"""
    smem[threadIdx.x] = __float_as_uint(x);
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    if (threadIdx.x == 0) {
        out[4 * blockIdx.x] = t0;
        out[4 * blockIdx.x + 1] = t1;
        out[4 * blockIdx.x + 2] = sm + smem[5] * 0ull;
        out[4 * blockIdx.x + 3] = tp;
    }
}
"""


out4 = cp.zeros(4 * blocks, dtype=cp.uint64)
if section(2):
    print()
    print("instruction fetch: prologue and epilogue of P FMAs, loop body of K FMAs (16 bytes each), 215 KB smem, spin 30 us")
    print(f"{'P':>6} {'K':>6} {'gap median ns':>13} {'prologue median ns':>18} {'prologue p90':>12}")
    for p, k in [(16, 16), (2048, 16), (16, 4096), (2048, 4096), (4096, 8192)]:
        f = kernel(icache_src(p, k), "ic")
        for _ in range(3):
            f((blocks,), (384,), (out4, cp.uint64(30000), cp.float32(1.0000001), cp.float32(1e-7)), shared_mem=215040)
        a = records(out4, blocks, 4)
        pro = np.array([d for r in by_sm(a) for d in r[1:, 3] - r[1:, 0]])
        print(f"{p:>6} {k:>6} {np.median(gaps(a)):>13.0f} {np.median(pro):>18.0f} {np.percentile(pro, 90):>12.0f}")


# The attention kernel's other features, one at a time: the last warpgroup leaving early after
# its `setmaxnreg.dec` (the producer), the consumers' end on a named barrier of 256 threads and
# warpgroup barriers 8..10, and bulk copies (the async proxy, completing on an mbarrier) of 32 KB
# into shared memory waited for by every consumer.
SRC2 = r"""
extern "C" __global__ void __launch_bounds__(384, 1) gap2(unsigned long long* out, unsigned long long spin,
        int early, int bulk, const unsigned int* src, int nbars) {
    extern __shared__ __align__(1024) unsigned int smem[];
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    unsigned int bar = (unsigned int)__cvta_generic_to_shared(&smem[0]);
    unsigned int dst = (unsigned int)__cvta_generic_to_shared(&smem[1024]);
    if (threadIdx.x == 0) {
        for (int i = 0; i < nbars; ++i) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar + 8 * i), "r"(1));
            asm volatile("fence.mbarrier_init.release.cluster;");
        }
    }
    __syncthreads();
    int wg = __shfl_sync(0xffffffff, threadIdx.x / 128, 0);
    if (wg == 2) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (bulk && threadIdx.x == 256) {
            for (int c = 0; c < 4; ++c) {
                unsigned int bytes = 8192;
                if (c == 0) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(4 * bytes));
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                             :: "r"(dst + c * bytes), "l"(src + (size_t)blockIdx.x * 8192 + c * 2048), "r"(bytes), "r"(bar) : "memory");
            }
        }
        if (early) return;
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    }
    unsigned long long t = t0;
    while (t - t0 < spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    unsigned int x = 0;
    if (bulk && wg < 2) {
        unsigned int done = 0;
        while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(bar));
        x = smem[1024 + threadIdx.x];
    }
    if (early) {
        if (wg < 2) asm volatile("bar.sync 1, 256;");
    } else {
        __syncthreads();
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    RECORD(out, blockIdx.x, t0, t1, sm, x);
}
"""
k2 = kernel(SRC2, "gap2")
src = cp.zeros(blocks * 8192, dtype=cp.uint32)
if section(3):
    print()
    print("the producer leaving early, bulk copies through the async proxy (215 KB smem, spin 30 us)")
    print(f"{'early exit':>10} {'bulk copy':>9} {'mbarriers':>9} {'gap median ns':>13} {'p90':>6}")
    for early, bulk, nbars in [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1), (1, 1, 18)]:
            for _ in range(3):
                k2((blocks,), (384,), (out, cp.uint64(30000), cp.int32(early), cp.int32(bulk), src, cp.int32(nbars)),
                   shared_mem=215040)
            a = records(out, blocks)
            print(f"{early:>10} {bulk:>9} {nbars:>9} {stats(gaps(a))}")


# A three-dimensional grid (the attention kernel's (query blocks, heads, batch)), sixteen named
# barriers in use, and 1 KB of kernel parameters read at the start.
SRC3 = r"""
struct Big { unsigned int w[256]; };
extern "C" __global__ void __launch_bounds__(384, 1) gap3(unsigned long long* out, unsigned long long spin,
        int barriers, Big big) {
    extern __shared__ unsigned int smem[];
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    unsigned int x = big.w[threadIdx.x % 256] + big.w[(threadIdx.x * 7) % 256];
    unsigned long long t = t0;
    while (t - t0 < spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (barriers) {
        int wg = threadIdx.x / 128;
        if (wg == 0) asm volatile("bar.sync 15, 128;");
        else if (wg == 1) asm volatile("bar.sync 14, 128;");
        else asm volatile("bar.sync 13, 128;");
    }
    smem[threadIdx.x] = x;
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    unsigned int id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    RECORD(out, id, t0, t1, sm, smem[7]);
}
"""
k3 = kernel(SRC3, "gap3")
big = np.zeros(1, dtype=[('w', '<u4', (256,))])
if section(4):
    print()
    print("grid shape, named barriers, 1 KB of parameters (215 KB smem, spin 30 us)")
    print(f"{'grid':>14} {'barriers':>8} {'gap median ns':>13} {'p90':>6}")
    for grid in [(1024, 1, 1), (16, 16, 4)]:
        for barriers in (0, 1):
            for _ in range(3):
                k3(grid, (384,), (out, cp.uint64(30000), cp.int32(barriers), big), shared_mem=215040)
            a = records(out, grid[0] * grid[1] * grid[2])
            print(f"{str(grid):>14} {barriers:>8} {stats(gaps(a))}")


# The attention kernel's blocks turn over in 1.6 us even when they return at once: is it its code
# (300 KB of it, never run in such a block) or the `call` to a trap function its checks contain?
def src4(call, big):
    fma = 'asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));\n'
    return (r"""
__device__ __noinline__ void trap_fn() { asm volatile("trap;"); }
extern "C" __global__ void __launch_bounds__(384, 1) gap4(unsigned long long* out, unsigned long long spin, float a, float b) {
    extern __shared__ unsigned int smem[];
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    float x = threadIdx.x;
""" + ("    if (spin == 12345) trap_fn();\n" if call else "") + ("    if (spin == 54321) {\n" + fma * big + "    }\n" if big else "") + r"""
    unsigned long long t = t0;
    while (t - t0 < spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    smem[threadIdx.x] = __float_as_uint(x);
    __syncthreads();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    RECORD(out, blockIdx.x, t0, t1, sm, smem[5]);
}
""")


if section(5):
    print()
    print("a call to a trap function, code never run (215 KB smem)")
    print(f"{'call':>5} {'dead FMAs':>9} {'spin us':>7} {'gap median ns':>13} {'p90':>6}")
    for call, big in [(0, 0), (1, 0), (0, 20000), (1, 20000)]:
        f = kernel(src4(call, big), "gap4")
        for spin in (0, 30000):
            for _ in range(3):
                f((blocks,), (384,), (out, cp.uint64(spin), cp.float32(1.0), cp.float32(0.0)), shared_mem=215040)
            a = records(out, blocks)
            print(f"{call:>5} {big:>9} {spin / 1000:>7.0f} {stats(gaps(a))}")


# The dynamic shared memory a block, swept (the attention kernel asks for 165,888 bytes at head
# dim 128): one block a multiprocessor by its registers, whatever the size.
if section(6):
    print()
    print("dynamic shared memory a block (spin 30 us)")
    print(f"{'bytes':>8} {'gap median ns':>13} {'p90':>6}")
    for smem in (0, 49152, 100000, 135168, 165888, 168960, 200000, 215040, 232448):
        med, p90, _ = run(smem, 30000, 1, 0)
        print(f"{smem:>8} {med:>13.0f} {p90:>6.0f}")

# Is a block's code fetched warm? A prologue of P independent FMAs (eight chains, so that it is
# bound by issue, one warp a scheduler: 128 threads), timed from the block's first instruction,
# for each multiprocessor's first block (its caches cold) and for the later ones.
def prologue_src(p):
    fma = ''.join('asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x{}) : "f"(a), "f"(b));\n'.format(i % 8)
                  for i in range(p))
    return (r"""
extern "C" __global__ void __launch_bounds__(128, 1) pro(unsigned long long* out, float a, float b) {
    extern __shared__ unsigned int smem[];
    unsigned long long t0, tp;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
""" + fma + r"""
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tp));
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    smem[threadIdx.x] = __float_as_uint(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7);
    RECORD(out, blockIdx.x, t0, tp, sm, smem[1]);
}
""")


if section(7):
    print()
    print("a prologue of P independent FMAs (16 bytes each), 128 threads, one block a multiprocessor")
    print(f"{'P':>6} {'first block ns':>14} {'later blocks ns':>15} {'p90 later':>9}")
    for p in (0, 512, 2048, 4096):
        f = kernel(prologue_src(p), "pro")
        f((blocks,), (128,), (out, cp.float32(1.0000001), cp.float32(1e-7)), shared_mem=215040)
        a = records(out, blocks)
        first = [r[0, 1] - r[0, 0] for r in by_sm(a)]
        later = np.array([d for r in by_sm(a) for d in r[1:, 1] - r[1:, 0]])
        print(f"{p:>6} {np.median(first):>14.0f} {np.median(later):>15.0f} {np.percentile(later, 90):>9.0f}")
