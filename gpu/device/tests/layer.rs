//! The device layer's warp, math, atomic, barrier, tensor and shared-memory primitives on the
//! emulator, each against a model computed on the host from generated inputs: shuffles and votes
//! by PTX's formulas, reductions by the lane groups summed on the host (and the groups a TV layout
//! gives, by brute force), fast math within its documented bounds, atomics under contention,
//! named barriers handing data over, tensors of rank 3 to 5 and nested ones against their offsets, shared memory
//! carved by layouts, entry points written with `kernel!` over device buffers, and the layer
//! probe the GPU runs (`tools/gpu/layer_probe.py` checks the same values there).

use const_layout::algebra::computed::{
    Computed, LayoutTv, StaticLayout, StaticSwizzled, composition, make_layout_tv, swizzle,
};
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::{C, layout_type, make_layout};
use const_layout_device::abi::{In, Out, ParamAbi};
use const_layout_device::emu::{DeviceBuffer, EmuError, LaunchConfig, launch, with_deadlock_patience};
use const_layout_device::warp::{self, LaneGroupError, LaneGroups, Max, Min, Sum};
use const_layout_device::{
    DeviceTensor, Dim3, Full, GlobalTensor, Gmem, GmemMut, NamedBarrier, SmemAllocator, SmemLayout, SmemPlan,
    SmemRegion, TensorParam, Thread, Tiled, block_dim, block_idx, math, static_shared, sync_threads,
    thread_idx,
};

/// A small deterministic generator (xorshift), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// `±2^e` with `e` uniform in `[lo, hi)` (a log-uniform magnitude), positive unless `signed`.
    fn magnitude(&mut self, lo: f64, hi: f64, signed: bool) -> f32 {
        let v = self.uniform(lo, hi).exp2() as f32;
        if signed && self.next() & 1 == 1 { -v } else { v }
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u32) as usize]
    }
}

fn cfg(blocks: u32, threads: u32, smem: u32) -> LaunchConfig {
    LaunchConfig { grid: Dim3::x(blocks), block: Dim3::x(threads), dynamic_smem_bytes: smem }
}

/// The message of a launch that must fail in a thread.
fn message(r: Result<(), EmuError>) -> String {
    match r {
        Err(EmuError::Thread { message, .. }) => message,
        other => panic!("the launch did not fail in a thread: {other:?}"),
    }
}

/// Calls `$mac!` with the 32 lane masks.
macro_rules! each_mask {
    ($mac:ident) => {
        $mac!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
}

// ---------------------------------------------------------------------------------------------
// Shuffles and votes.

/// The lane a shuffle of `mode` (0 `bfly`, 1 `down`, 2 `up`, 3 `idx`) with operand `b` reads for
/// `lane`: PTX's formula (`bval = b[4:0]`, clamp 31 for down, bfly and idx, 0 for up; a source
/// out of range reads the lane's own value).
fn shfl_source(mode: usize, lane: usize, b: u32) -> usize {
    let b = (b & 31) as usize;
    match mode {
        0 => lane ^ b,
        1 => {
            if lane + b <= 31 {
                lane + b
            } else {
                lane
            }
        }
        2 => lane.checked_sub(b).unwrap_or(lane),
        _ => b,
    }
}

#[test]
fn shuffles_follow_the_ptx_formula_in_every_mode() {
    const ROUNDS: usize = 32;
    let mut rng = Rng(0x5eed_0001);
    let vals: Vec<u32> = (0..ROUNDS * 64).map(|_| rng.u32()).collect();
    // A round's operands (xor mask, down and up offsets, idx source), the same in every lane; the
    // first rounds at the edges (0, 31, and past 31, whose low 5 bits count).
    let edges = [[0, 0, 0, 0], [31, 31, 31, 31], [32, 32, 32, 32], [33, 33, 33, 63]];
    let ops: Vec<u32> = (0..ROUNDS)
        .flat_map(|r| if r < edges.len() { edges[r] } else { [0, 1, 2, 3].map(|_| rng.below(70)) })
        .collect();
    let lane_ops: Vec<u32> = (0..ROUNDS * 64).map(|_| rng.below(64)).collect();
    let (vb, ob, lb) = (
        DeviceBuffer::from_slice(&vals),
        DeviceBuffer::from_slice(&ops),
        DeviceBuffer::from_slice(&lane_ops),
    );
    let mut out = DeviceBuffer::<u32>::zeros(ROUNDS * 64 * 8);
    let (v, o, l, g) = (vb.gmem(), ob.gmem(), lb.gmem(), out.gmem_mut());
    launch(&cfg(1, 64, 0), || {
        let t = thread_idx().x as usize;
        for r in 0..ROUNDS {
            let x = v.load(64 * r + t);
            let [bx, bd, bu, bi] = [0, 1, 2, 3].map(|k| o.load(4 * r + k));
            let own = l.load(64 * r + t);
            let at = |k: usize| (64 * r + t) * 8 + k;
            g.store(at(0), warp::shfl_xor(x, bx));
            g.store(at(1), warp::shfl_down(x, bd));
            g.store(at(2), warp::shfl_up(x, bu));
            g.store(at(3), warp::shfl_idx(x, bi));
            // Operands that differ by lane, and the other word types.
            g.store(at(4), warp::shfl_xor(x, own));
            g.store(at(5), warp::shfl_idx(x, own));
            g.store(at(6), warp::shfl_down(x as i32, bd) as u32);
            g.store(at(7), warp::shfl_up(f32::from_bits(x), bu).to_bits());
        }
    })
    .unwrap();
    let out = out.to_vec();
    for r in 0..ROUNDS {
        for t in 0..64 {
            let (lane, base) = (t % 32, 64 * r + t / 32 * 32);
            let got = |k: usize| out[(64 * r + t) * 8 + k];
            let from = |mode: usize, b: u32| vals[base + shfl_source(mode, lane, b)];
            let own = lane_ops[64 * r + t];
            let want = [
                from(0, ops[4 * r]),
                from(1, ops[4 * r + 1]),
                from(2, ops[4 * r + 2]),
                from(3, ops[4 * r + 3]),
                from(0, own),
                from(3, own),
                from(1, ops[4 * r + 1]),
                from(2, ops[4 * r + 2]),
            ];
            for (k, w) in want.into_iter().enumerate() {
                assert_eq!(
                    got(k),
                    w,
                    "round {r} thread {t} shuffle {k} (operands {:?}, own {own})",
                    &ops[4 * r..4 * r + 4]
                );
            }
        }
    }
}

#[test]
fn votes_follow_the_predicates() {
    const ROUNDS: usize = 40;
    let mut rng = Rng(0x5eed_0002);
    // Densities from none to all, so that `all` and `any` take both values.
    let preds: Vec<u32> = (0..ROUNDS)
        .flat_map(|r| {
            let p = match r {
                0 => 0,
                1 => 4,
                _ => rng.below(5),
            };
            (0..64).map(|_| (rng.below(4) < p) as u32).collect::<Vec<_>>()
        })
        .collect();
    let pb = DeviceBuffer::from_slice(&preds);
    let mut out = DeviceBuffer::<u32>::zeros(ROUNDS * 64 * 4);
    let (p, g) = (pb.gmem(), out.gmem_mut());
    launch(&cfg(1, 64, 0), || {
        let t = thread_idx().x as usize;
        for r in 0..ROUNDS {
            let x = p.load(64 * r + t) != 0;
            let at = (64 * r + t) * 4;
            g.store(at, warp::ballot(x));
            g.store(at + 1, warp::all(x) as u32);
            g.store(at + 2, warp::any(x) as u32);
            g.store(at + 3, warp::active_mask());
        }
    })
    .unwrap();
    let out = out.to_vec();
    let (mut alls, mut anys) = (0, 0);
    for r in 0..ROUNDS {
        for t in 0..64 {
            let base = 64 * r + t / 32 * 32;
            let mask = (0..32).fold(0u32, |m, l| m | preds[base + l] << l);
            let at = (64 * r + t) * 4;
            assert_eq!(out[at], mask, "round {r} thread {t}: ballot");
            assert_eq!(out[at + 1], (mask == u32::MAX) as u32, "round {r} thread {t}: all");
            assert_eq!(out[at + 2], (mask != 0) as u32, "round {r} thread {t}: any");
            assert_eq!(out[at + 3], u32::MAX, "round {r} thread {t}: active mask");
            alls += (mask == u32::MAX) as u32;
            anys += (mask == 0) as u32;
        }
    }
    assert!(alls > 0 && anys > 0, "the rounds cover all and none");
}

#[test]
fn a_collective_in_a_diverged_warp_is_reported_naming_it() {
    // Two halves of the warp at two shuffles.
    let m = message(launch(&cfg(1, 32, 0), || {
        let l = thread_idx().x;
        let _ = if l < 16 { warp::shfl_xor(l, 1) } else { warp::shfl_xor(l, 2) };
    }));
    assert!(m.contains("shfl.sync in a diverged warp"), "{m}");
    assert!(m.contains("tests/layer.rs"), "{m}");
    // Half the warp gone before the shuffle.
    let m = message(launch(&cfg(1, 32, 0), || {
        if thread_idx().x >= 16 {
            return;
        }
        let _ = warp::shfl_down(1u32, 1);
    }));
    assert!(m.contains("shfl.sync in a diverged warp: lane 16 is not there"), "{m}");
    // A vote and a reduction with every other lane gone.
    let m = message(launch(&cfg(1, 32, 0), || {
        if thread_idx().x % 2 == 1 {
            return;
        }
        let _ = warp::ballot(true);
    }));
    assert!(m.contains("vote.sync in a diverged warp: lane 1 is not there"), "{m}");
    let m = message(launch(&cfg(1, 32, 0), || {
        if thread_idx().x.is_multiple_of(2) {
            return;
        }
        let _ = warp::allreduce::<Sum, u32>(1);
    }));
    assert!(m.contains("shfl.sync in a diverged warp: lane 0 is not there"), "{m}");
}

#[test]
fn a_collective_in_a_partial_warp_is_reported_naming_it() {
    // 48 threads: warp 1 has 16.
    let m = message(launch(&cfg(1, 48, 0), || {
        let _ = warp::shfl_idx(thread_idx().x, 0);
    }));
    assert!(m.contains("shfl.sync needs a full warp; warp 1 has 16 threads"), "{m}");
    let m = message(launch(&cfg(1, 48, 0), || {
        let _ = warp::any(true);
    }));
    assert!(m.contains("vote.sync needs a full warp; warp 1 has 16 threads"), "{m}");
    let m = message(launch(&cfg(1, 48, 0), || {
        let _ = warp::allreduce_lanes::<0b101, Max, i32>(3);
    }));
    assert!(m.contains("shfl.sync needs a full warp; warp 1 has 16 threads"), "{m}");
    // A block reduction needs the proof that the block has its thread count.
    let m = message(launch(&cfg(1, 48, 128), || {
        let s = SmemRegion::dynamic().array::<u32, 32>(0).unwrap();
        let _ = warp::block_allreduce::<Sum, u32, 64>(Thread::<64>::index(), 1, s);
    }));
    assert!(m.contains("the block does not have the thread count the kernel was written for"), "{m}");
}

// ---------------------------------------------------------------------------------------------
// Reductions.

/// The lanes of `t`'s group under lane bits `mask`: `t ^ s` for every `s` in the span of `mask`.
fn group(t: usize, mask: u32) -> impl Iterator<Item = usize> {
    (0..32u32).filter(move |s| s & !mask == 0).map(move |s| t ^ s as usize)
}

#[test]
fn allreduce_lanes_combines_each_group_for_every_mask_op_and_type() {
    const T: usize = 64;
    let mut rng = Rng(0x5eed_0003);
    let us: Vec<u32> = (0..T).map(|_| rng.u32()).collect();
    let is: Vec<i32> = (0..T).map(|_| rng.u32() as i32).collect();
    let fs: Vec<f32> = (0..T).map(|_| rng.uniform(-1000.0, 1000.0) as f32).collect();
    let (ub, ib, fb) =
        (DeviceBuffer::from_slice(&us), DeviceBuffer::from_slice(&is), DeviceBuffer::from_slice(&fs));
    let mut out = DeviceBuffer::<u32>::zeros(T * 32 * 9);
    let (gu, gi, gf, g) = (ub.gmem(), ib.gmem(), fb.gmem(), out.gmem_mut());
    launch(&cfg(1, T as u32, 0), || {
        let t = thread_idx().x as usize;
        let (u, i, f) = (gu.load(t), gi.load(t), gf.load(t));
        macro_rules! every {
            ($($m:literal)*) => {$({
                let at = (t * 32 + $m) * 9;
                g.store(at, warp::allreduce_lanes::<$m, Sum, u32>(u));
                g.store(at + 1, warp::allreduce_lanes::<$m, Max, u32>(u));
                g.store(at + 2, warp::allreduce_lanes::<$m, Min, u32>(u));
                g.store(at + 3, warp::allreduce_lanes::<$m, Sum, i32>(i) as u32);
                g.store(at + 4, warp::allreduce_lanes::<$m, Max, i32>(i) as u32);
                g.store(at + 5, warp::allreduce_lanes::<$m, Min, i32>(i) as u32);
                g.store(at + 6, warp::allreduce_lanes::<$m, Sum, f32>(f).to_bits());
                g.store(at + 7, warp::allreduce_lanes::<$m, Max, f32>(f).to_bits());
                g.store(at + 8, warp::allreduce_lanes::<$m, Min, f32>(f).to_bits());
            })*};
        }
        each_mask!(every);
        // `allreduce` is the whole warp.
        assert_eq!(warp::allreduce::<Sum, u32>(u), warp::allreduce_lanes::<0x1f, Sum, u32>(u));
    })
    .unwrap();
    let out = out.to_vec();
    for t in 0..T {
        for mask in 0..32u32 {
            let at = (t * 32 + mask as usize) * 9;
            let g: Vec<usize> = group(t, mask).collect();
            let what = |k: usize| format!("thread {t} mask {mask:#07b} result {k}");
            assert_eq!(out[at], g.iter().fold(0u32, |a, &l| a.wrapping_add(us[l])), "{}", what(0));
            assert_eq!(out[at + 1], g.iter().map(|&l| us[l]).max().unwrap(), "{}", what(1));
            assert_eq!(out[at + 2], g.iter().map(|&l| us[l]).min().unwrap(), "{}", what(2));
            assert_eq!(out[at + 3] as i32, g.iter().fold(0i32, |a, &l| a.wrapping_add(is[l])), "{}", what(3));
            assert_eq!(out[at + 4] as i32, g.iter().map(|&l| is[l]).max().unwrap(), "{}", what(4));
            assert_eq!(out[at + 5] as i32, g.iter().map(|&l| is[l]).min().unwrap(), "{}", what(5));
            // The sum in f64, and the butterfly's error: at most one rounding a level.
            let exact: f64 = g.iter().map(|&l| fs[l] as f64).sum();
            let abs: f64 = g.iter().map(|&l| (fs[l] as f64).abs()).sum();
            let got = f32::from_bits(out[at + 6]) as f64;
            let tol = (mask.count_ones() as f64 + 1.0) * f64::from(f32::EPSILON) * abs;
            assert!((got - exact).abs() <= tol, "{}: {got} vs {exact} (tolerance {tol})", what(6));
            let max = g.iter().map(|&l| fs[l]).fold(f32::NEG_INFINITY, f32::max);
            let min = g.iter().map(|&l| fs[l]).fold(f32::INFINITY, f32::min);
            assert_eq!(f32::from_bits(out[at + 7]), max, "{}", what(7));
            assert_eq!(f32::from_bits(out[at + 8]), min, "{}", what(8));
            // Every lane of a group holds the same bits (IEEE addition commutes).
            for &l in &g {
                assert_eq!(
                    out[(l * 32 + mask as usize) * 9 + 6],
                    out[at + 6],
                    "{}: lane {l} differs",
                    what(6)
                );
            }
        }
    }
}

/// `block_allreduce` over blocks of `N` threads: f32 and u32 sums, and (up to 256 threads) an i32
/// maximum, in `blocks` blocks, against the host.
fn check_block_allreduce<const N: usize>(rng: &mut Rng) {
    let threads = N as u32;
    // Grids of 1 to 3 blocks up to 256 threads, and of 1 past it (the emulator runs every thread
    // of a block as an OS thread, the blocks one after another).
    let blocks = if threads <= 256 { 1 + (threads / 32) % 3 } else { 1 };
    let n = (threads * blocks) as usize;
    let fs: Vec<f32> = (0..n).map(|_| rng.uniform(-1.0, 1.0) as f32).collect();
    let us: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
    let (fb, ub) = (DeviceBuffer::from_slice(&fs), DeviceBuffer::from_slice(&us));
    let mut out = DeviceBuffer::<u32>::zeros(3 * n);
    let (gf, gu, g) = (fb.gmem(), ub.gmem(), out.gmem_mut());
    launch(&cfg(blocks, threads, 384), || {
        let smem = SmemRegion::dynamic();
        let (sf, su, si) = (
            smem.array::<f32, 32>(0).unwrap(),
            smem.array::<u32, 32>(128).unwrap(),
            smem.array::<i32, 32>(256).unwrap(),
        );
        let t = Thread::<N>::index();
        let e = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        let (f, u) = (gf.load(e), gu.load(e));
        g.store(3 * e, warp::block_allreduce::<Sum, f32, N>(t, f, sf).to_bits());
        g.store(3 * e + 1, warp::block_allreduce::<Sum, u32, N>(t, u, su));
        if threads <= 256 {
            g.store(3 * e + 2, warp::block_allreduce::<Max, i32, N>(t, u as i32, si) as u32);
        }
    })
    .unwrap();
    let out = out.to_vec();
    for b in 0..blocks as usize {
        let part = b * threads as usize..(b + 1) * threads as usize;
        let exact: f64 = fs[part.clone()].iter().map(|&x| x as f64).sum();
        let abs: f64 = fs[part.clone()].iter().map(|&x| (x as f64).abs()).sum();
        let sum_u = us[part.clone()].iter().fold(0u32, |a, &x| a.wrapping_add(x));
        let max_i = us[part.clone()].iter().map(|&x| x as i32).max().unwrap();
        let first = out[3 * part.start];
        let got = f32::from_bits(first) as f64;
        // A butterfly of five levels and a combination of up to 32 warps: at most 37 roundings.
        let tol = 37.0 * f64::from(f32::EPSILON) * abs;
        assert!((got - exact).abs() <= tol, "{threads} threads, block {b}: {got} vs {exact}");
        for e in part {
            assert_eq!(out[3 * e], first, "{threads} threads, block {b}: thread {e} differs");
            assert_eq!(out[3 * e + 1], sum_u, "{threads} threads, block {b}: u32 sum at {e}");
            if threads <= 256 {
                assert_eq!(out[3 * e + 2] as i32, max_i, "{threads} threads, block {b}: i32 max at {e}");
            }
        }
    }
}

#[test]
fn block_allreduce_combines_every_block_size() {
    let mut rng = Rng(0x5eed_0004);
    macro_rules! sizes {
        ($($n:literal)*) => {$(check_block_allreduce::<$n>(&mut rng);)*};
    }
    sizes!(32 64 96 128 160 192 224 256 288 320 352 384 416 448 480 512 544 576 608 640 672 704 736 768 800 832 864 896 928 960 992 1024);
}

// ---------------------------------------------------------------------------------------------
// Lane groups of TV layouts.

/// The tile `(m, n)` of `make_layout_tv`'s tiler.
fn tile_of(tiler: &DynIntTuple) -> (usize, usize) {
    let m = |i: usize| tiler.mode(i).unwrap().size().unwrap().value as usize;
    (m(0), m(1))
}

/// What `LaneGroups::of` must find, by brute force over lanes: the lane bits that keep every
/// value's coordinate, whether a coordinate lies in two warps, and two lanes of one warp sharing a
/// coordinate that those bits do not relate (then no butterfly reduces them).
struct Brute {
    lanes: u32,
    spans_warps: bool,
    violation: Option<(usize, usize)>,
    /// The coordinate kept by element `t + threads v`.
    keys: Vec<usize>,
}

fn brute_force(tv: &DynLayout, (m, _n): (usize, usize), threads: usize, mode: usize) -> Brute {
    let size = tv.size().value as usize;
    let values = size / threads;
    let keys: Vec<usize> = (0..size)
        .map(|e| {
            let idx = tv.offset(e as isize) as usize;
            if mode == 1 { idx % m } else { idx / m }
        })
        .collect();
    let key = |t: usize, v: usize| keys[t + threads * v];
    let lanes = (0..5)
        .filter(|b| (0..threads).all(|t| (0..values).all(|v| key(t, v) == key(t ^ (1 << b), v))))
        .fold(0u32, |m, b| m | 1 << b);
    let mut violation = None;
    let mut warps_of = std::collections::BTreeMap::<usize, std::collections::BTreeSet<usize>>::new();
    for w in 0..threads / 32 {
        for l1 in 0..32 {
            for v1 in 0..values {
                let k = key(32 * w + l1, v1);
                warps_of.entry(k).or_default().insert(w);
                for l2 in 0..32 {
                    if violation.is_none()
                        && (l1 ^ l2) as u32 & !lanes != 0
                        && (0..values).any(|v2| key(32 * w + l2, v2) == k)
                    {
                        violation = Some((l1, l2));
                    }
                }
            }
        }
    }
    let spans_warps = warps_of.values().any(|ws| ws.len() > 1);
    Brute { lanes, spans_warps, violation, keys }
}

/// `LaneGroups::of` against the brute force, for both modes; the groups of the modes that reduce
/// by a butterfly.
fn check_lane_groups(
    tv: &DynLayout,
    tile: (usize, usize),
    threads: usize,
    what: &str,
) -> [Option<LaneGroups>; 2] {
    [0, 1].map(|mode| {
        let b = brute_force(tv, tile, threads, mode);
        let got = LaneGroups::of(tv, tile, threads, mode);
        match (got, b.violation) {
            (Ok(g), None) => {
                assert_eq!(g, LaneGroups { lanes: b.lanes, spans_warps: b.spans_warps }, "{what} mode {mode}");
                Some(g)
            }
            (Err(LaneGroupError::NotXorGroup { lane, other, lanes }), Some(_)) => {
                assert_eq!(lanes, b.lanes, "{what} mode {mode}: the lane bits");
                assert!((lane ^ other) & !lanes != 0, "{what} mode {mode}: lanes {lane} and {other} are related");
                let values = tv.size().value as usize / threads;
                let shared = (0..threads / 32).any(|w| {
                    (0..values).any(|v1| {
                        (0..values).any(|v2| {
                            b.keys[32 * w + lane as usize + threads * v1] == b.keys[32 * w + other as usize + threads * v2]
                        })
                    })
                });
                assert!(shared, "{what} mode {mode}: lanes {lane} and {other} share no coordinate");
                None
            }
            (got, violation) => {
                panic!("{what} mode {mode}: LaneGroups::of gives {got:?}, the brute force {violation:?} (lanes {:#07b})", b.lanes)
            }
        }
    })
}

/// Reduce each thread's values over its lane group with `reduce(x)`, on the emulator: the
/// results, by element `t + threads v`.
fn reduce_in_kernel(
    tv: &DynLayout,
    data: &[u32],
    threads: usize,
    reduce: impl Fn(u32) -> u32 + Sync,
) -> Vec<u32> {
    let size = tv.size().value as usize;
    let values = size / threads;
    let offsets: Vec<u32> = (0..size).map(|e| tv.offset(e as isize) as u32).collect();
    let (db, ob) = (DeviceBuffer::from_slice(data), DeviceBuffer::from_slice(&offsets));
    let mut out = DeviceBuffer::<u32>::zeros(size);
    let (d, o, g) = (db.gmem(), ob.gmem(), out.gmem_mut());
    launch(&cfg(1, threads as u32, 0), || {
        let t = thread_idx().x as usize;
        for v in 0..values {
            let e = t + threads * v;
            g.store(e, reduce(d.load(o.load(e) as usize)));
        }
    })
    .unwrap();
    out.to_vec()
}

/// Each row's (mode 1) or column's (mode 0) total from the reduced values: the lanes with the
/// group's bits clear, one a group, over every warp.
#[allow(clippy::too_many_arguments)]
fn check_totals(
    tv: &DynLayout,
    (m, n): (usize, usize),
    threads: usize,
    mode: usize,
    lanes: u32,
    data: &[u32],
    reduced: &[u32],
    what: &str,
) {
    let b = brute_force(tv, (m, n), threads, mode);
    let count = if mode == 1 { m } else { n };
    let mut totals = vec![0u32; count];
    for (e, &r) in reduced.iter().enumerate() {
        if (e % threads % 32) as u32 & lanes == 0 {
            totals[b.keys[e]] = totals[b.keys[e]].wrapping_add(r);
        }
    }
    for (k, &total) in totals.iter().enumerate() {
        let want = if mode == 1 {
            (0..n).fold(0u32, |a, j| a.wrapping_add(data[k + m * j]))
        } else {
            (0..m).fold(0u32, |a, i| a.wrapping_add(data[i + m * k]))
        };
        assert_eq!(total, want, "{what} mode {mode}: total {k}");
    }
}

/// A runtime mask as the constant `allreduce_lanes` takes.
fn reduce_by_mask(mask: u32, x: u32) -> u32 {
    macro_rules! arms {
        ($($m:literal)*) => {
            match mask {
                $($m => warp::allreduce_lanes::<$m, Sum, u32>(x),)*
                _ => unreachable!(),
            }
        };
    }
    each_mask!(arms)
}

#[test]
fn lane_groups_of_static_tv_layouts_match_brute_force_and_reduce_rows() {
    let mut rng = Rng(0x5eed_0005);
    // A static case: the groups at compile time (as a kernel takes them), against the brute force
    // and the runtime analysis of the same layout, then used to reduce rows and columns.
    macro_rules! case {
        ($thr:ty, $val:ty, $threads:expr, ($m:expr, $n:expr)) => {{
            type Tv = Computed<LayoutTv<$thr, $val>>;
            const THREADS: usize = $threads;
            const GROUPS: [Result<LaneGroups, LaneGroupError>; 2] = [
                LaneGroups::of(&Tv::LAYOUT, ($m, $n), THREADS, 0),
                LaneGroups::of(&Tv::LAYOUT, ($m, $n), THREADS, 1),
            ];
            let what = format!("{} x {}", <$thr as StaticLayout>::LAYOUT, <$val as StaticLayout>::LAYOUT);
            let (tiler, tv) = const_layout::algebra::make_layout_tv(
                &<$thr as StaticLayout>::LAYOUT,
                &<$val as StaticLayout>::LAYOUT,
            )
            .unwrap();
            assert_eq!(tile_of(&tiler), ($m, $n), "{what}: the tile");
            assert_eq!(tv.to_string(), Tv::LAYOUT.to_string(), "{what}: the TV layout");
            let (_, typed) = make_layout_tv(<$thr>::default(), <$val>::default());
            let found = check_lane_groups(&tv, ($m, $n), THREADS, &what);
            for mode in 0..2 {
                assert_eq!(GROUPS[mode].ok(), found[mode], "{what} mode {mode}: at compile time");
                assert_eq!(
                    LaneGroups::of_tv(&typed, ($m, $n), THREADS, mode).ok(),
                    found[mode],
                    "{what} mode {mode}: of_tv"
                );
            }
            let data: Vec<u32> = (0..$m * $n).map(|_| rng.below(1 << 20)).collect();
            macro_rules! reduce_mode {
                ($mode:literal) => {
                    if let Ok(g) = GROUPS[$mode] {
                        const LANES: u32 = match GROUPS[$mode] {
                            Ok(g) => g.lanes,
                            Err(_) => 0,
                        };
                        let reduced = reduce_in_kernel(&tv, &data, THREADS, |x| {
                            warp::allreduce_lanes::<LANES, Sum, u32>(x)
                        });
                        check_totals(&tv, ($m, $n), THREADS, $mode, g.lanes, &data, &reduced, &what);
                    }
                };
            }
            reduce_mode!(0);
            reduce_mode!(1);
            found
        }};
    }
    // 4 x 8 threads (8 along a row), 1 x 4 values: rows on lane bits 0-2, columns on 3-4.
    let g = case!(layout_type!((4, 8):(8, 1)), layout_type!((1, 4):(1, 1)), 32, (4, 32));
    assert_eq!(
        g,
        [
            Some(LaneGroups { lanes: 0b11000, spans_warps: false }),
            Some(LaneGroups { lanes: 0b111, spans_warps: false })
        ]
    );
    case!(layout_type!((8, 4):(1, 8)), layout_type!((4, 1):(1, 4)), 32, (32, 4));
    // 128 threads: a column's threads lie in four warps.
    let g = case!(layout_type!((16, 8):(8, 1)), layout_type!((1, 4):(1, 1)), 128, (16, 32));
    assert_eq!(g[0], Some(LaneGroups { lanes: 0b11000, spans_warps: true }));
    case!(layout_type!((32, 4):(1, 32)), layout_type!((2, 2):(1, 2)), 128, (64, 8));
    case!(layout_type!((12, 8):(8, 1)), layout_type!((1, 2):(1, 1)), 96, (12, 16));
    // 12 threads a row: lanes 0-11 share row 0, which no xor group of lane bits is.
    let g = case!(layout_type!((8, 12):(12, 1)), layout_type!((1, 1):(1, 1)), 96, (8, 12));
    assert_eq!(g[1], None);
}

#[test]
fn lane_groups_of_runtime_tv_layouts_match_brute_force_and_reduce_rows() {
    let mut rng = Rng(0x5eed_0006);
    let divisors = |x: usize| (1..=x).filter(move |d| x.is_multiple_of(*d)).collect::<Vec<_>>();
    let (mut oks, mut errors) = (0, 0);
    for case in 0..60 {
        // Half from make_layout_tv of compact thread and value layouts, half permuted strides
        // over an arbitrary tile.
        let threads = rng.pick(&[32usize, 64, 96, 128]);
        let (tv, tile, what) = if case % 2 == 0 {
            let a = rng.pick(&divisors(threads));
            let (c, d) = (rng.pick(&[1usize, 2, 3, 4]), rng.pick(&[1usize, 2, 4]));
            let major = |x: usize, y: usize, row: bool| {
                if row { format!("({x},{y}):({y},1)") } else { format!("({x},{y}):(1,{x})") }
            };
            let thr = major(a, threads / a, rng.below(2) == 0);
            let val = major(c, d, rng.below(2) == 0);
            let (tiler, tv) = const_layout::algebra::make_layout_tv(
                &thr.parse().unwrap(),
                &val.parse::<DynLayout>().unwrap(),
            )
            .unwrap();
            (tv, tile_of(&tiler), format!("make_layout_tv({thr}, {val})"))
        } else {
            let t0 = rng.pick(&divisors(threads));
            let values = rng.pick(&[1usize, 2, 3, 4, 6]);
            let v0 = rng.pick(&divisors(values));
            let sizes = [t0, threads / t0, v0, values / v0];
            let mut order = [0usize, 1, 2, 3];
            for i in (1..4).rev() {
                order.swap(i, rng.below(i as u32 + 1) as usize);
            }
            let mut strides = [0usize; 4];
            let mut s = 1;
            for &f in &order {
                strides[f] = s;
                s *= sizes[f];
            }
            let text = format!(
                "(({},{}),({},{})):(({},{}),({},{}))",
                sizes[0], sizes[1], sizes[2], sizes[3], strides[0], strides[1], strides[2], strides[3]
            );
            let m = rng.pick(&divisors(threads * values));
            (text.parse::<DynLayout>().unwrap(), (m, threads * values / m), text)
        };
        let what = format!("{what} over {tile:?}, {threads} threads");
        let found = check_lane_groups(&tv, tile, threads, &what);
        let data: Vec<u32> = (0..tile.0 * tile.1).map(|_| rng.below(1 << 20)).collect();
        for (mode, g) in found.into_iter().enumerate() {
            match g {
                Some(g) => {
                    oks += 1;
                    let reduced = reduce_in_kernel(&tv, &data, threads, |x| reduce_by_mask(g.lanes, x));
                    check_totals(&tv, tile, threads, mode, g.lanes, &data, &reduced, &what);
                }
                None => errors += 1,
            }
        }
    }
    assert!(oks >= 20 && errors >= 10, "the cases cover both outcomes: {oks} ok, {errors} not xor groups");
    // Not whole warps, or values that do not divide: a shape error.
    let tv: DynLayout = "(48,2):(1,48)".parse().unwrap();
    assert_eq!(LaneGroups::of(&tv, (48, 2), 48, 1), Err(LaneGroupError::Shape));
    assert_eq!(LaneGroups::of(&tv, (48, 2), 64, 1), Err(LaneGroupError::Shape));
}

// ---------------------------------------------------------------------------------------------
// Math.

/// The distance from `got` to `want` in units of the last place of `want` as an `f32` (the
/// spacing of the `f32`s of its binade; 2^-149 below the normal range).
fn ulps(got: f32, want: f64) -> f64 {
    let w = want as f32;
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got == w {
        return 0.0;
    }
    if got.is_infinite() || w.is_infinite() {
        return f64::INFINITY;
    }
    let exp = ((w.abs().to_bits() >> 23) as i32).max(1);
    (got as f64 - want).abs() / 2f64.powi(exp - 127 - 23)
}

/// How close a function's result must be: the PTX ISA's and CUDA's documented bounds (what
/// `const_layout_device::math` states).
#[derive(Clone, Copy, Debug)]
enum Bound {
    /// Correctly rounded.
    Exact,
    /// Within this many ulp.
    Ulps(f64),
    /// `exp_approx`, CUDA's `__expf`: `2 + floor(1.173 |x|)` ulp.
    Exp,
    /// `lg2_approx`, CUDA's `__log2f`: an absolute error of 2^-22 for `x` in `[0.5, 2]`, 2 ulp
    /// elsewhere.
    Lg2,
    /// A relative error (`tanh_approx`: 2^-10.987).
    Relative(f64),
}

/// Whether `got` (of input `x`) is within `bound` of `want`; a result below the normal range may
/// also be flushed to zero (`.ftz`) where the bound is not exact.
fn within(bound: Bound, x: f32, got: f32, want: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    let flushed = want.abs() < f32::MIN_POSITIVE as f64 && got == 0.0;
    match bound {
        Bound::Exact => got == want as f32,
        Bound::Ulps(n) => flushed || ulps(got, want) <= n,
        Bound::Exp => flushed || ulps(got, want) <= 2.0 + (1.173 * x.abs() as f64).floor(),
        Bound::Lg2 => {
            if (0.5..=2.0).contains(&x) {
                (got as f64 - want).abs() <= 2f64.powi(-22)
            } else {
                ulps(got, want) <= 2.0
            }
        }
        Bound::Relative(r) => {
            got as f64 == want || (want.is_finite() && (got as f64 - want).abs() <= r * want.abs())
        }
    }
}

/// The math functions the layer probe computes, in its order: name, the function of `(x, y, z)`,
/// the exact value in `f64`, the bound.
#[allow(clippy::type_complexity)]
const MATH: [(&str, fn(f32, f32, f32) -> f32, fn(f64, f64, f64) -> f64, Bound); 11] = [
    ("ex2_approx", |x, _, _| math::ex2_approx(x), |x, _, _| x.exp2(), Bound::Ulps(2.0)),
    ("exp_approx", |x, _, _| math::exp_approx(x), |x, _, _| x.exp(), Bound::Exp),
    ("lg2_approx", |x, _, _| math::lg2_approx(x), |x, _, _| x.log2(), Bound::Lg2),
    ("rcp_approx", |x, _, _| math::rcp_approx(x), |x, _, _| 1.0 / x, Bound::Ulps(1.0)),
    ("rcp", |x, _, _| math::rcp(x), |x, _, _| 1.0 / x, Bound::Exact),
    ("rsqrt_approx", |x, _, _| math::rsqrt_approx(x), |x, _, _| 1.0 / x.sqrt(), Bound::Ulps(2.0)),
    ("sqrt_approx", |x, _, _| math::sqrt_approx(x), |x, _, _| x.sqrt(), Bound::Ulps(2.0)),
    ("sqrt", |x, _, _| math::sqrt(x), |x, _, _| x.sqrt(), Bound::Exact),
    ("tanh_approx", |x, _, _| math::tanh_approx(x), |x, _, _| x.tanh(), Bound::Relative(0.000_492_701)),
    ("div_approx", |x, y, _| math::div_approx(x, y), |x, y, _| x / y, Bound::Ulps(2.0)),
    ("fma", |x, y, z| math::fma(x, y, z), |x, y, z| x * y + z, Bound::Exact),
];

#[test]
fn math_is_within_its_documented_bounds() {
    assert!((2f64.powf(-10.987) - 0.000_492_701).abs() < 1e-9, "tanh's bound is 2^-10.987");
    let mut rng = Rng(0x5eed_0007);
    // Each function on its domain (results in the normal range), then its edge cases.
    let domain = |f: &str, rng: &mut Rng| -> f32 {
        match f {
            "ex2_approx" => rng.uniform(-125.0, 127.0) as f32,
            "exp_approx" => rng.uniform(-87.0, 88.0) as f32,
            "lg2_approx" if rng.below(2) == 0 => rng.uniform(0.5, 2.0) as f32,
            "lg2_approx" | "rsqrt_approx" | "sqrt_approx" | "sqrt" => rng.magnitude(-126.0, 127.0, false),
            "rcp_approx" | "rcp" => rng.magnitude(-125.0, 125.0, true),
            "tanh_approx" if rng.below(2) == 0 => rng.magnitude(-30.0, 0.0, true),
            "tanh_approx" => rng.uniform(-10.0, 10.0) as f32,
            _ => rng.magnitude(-60.0, 60.0, true),
        }
    };
    for (name, f, exact, bound) in MATH {
        for _ in 0..4000 {
            let (x, y, z) = (domain(name, &mut rng), domain(name, &mut rng), domain(name, &mut rng));
            let (got, want) = (f(x, y, z), exact(x as f64, y as f64, z as f64));
            match name {
                // A fused multiply-add rounds once: `mul_add`'s, not f64's double rounding.
                "fma" => assert_eq!(got, x.mul_add(y, z), "fma({x}, {y}, {z})"),
                _ => assert!(
                    within(bound, x, got, want),
                    "{name}({x}, {y}): {got} vs {want} ({} ulp)",
                    ulps(got, want)
                ),
            }
        }
    }
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let edges: [(&str, f32, f32); 50] = [
        ("ex2_approx", 0.0, 1.0),
        ("ex2_approx", -0.0, 1.0),
        ("ex2_approx", 10.0, 1024.0),
        ("ex2_approx", -1.0, 0.5),
        ("ex2_approx", inf, inf),
        ("ex2_approx", -inf, 0.0),
        ("ex2_approx", nan, nan),
        ("ex2_approx", 128.0, inf),
        ("ex2_approx", -160.0, 0.0),
        ("exp_approx", 0.0, 1.0),
        ("exp_approx", inf, inf),
        ("exp_approx", -inf, 0.0),
        ("exp_approx", nan, nan),
        ("exp_approx", 89.0, inf),
        ("exp_approx", -104.0, 0.0),
        ("lg2_approx", 1.0, 0.0),
        ("lg2_approx", 8.0, 3.0),
        ("lg2_approx", 0.25, -2.0),
        ("lg2_approx", 0.0, -inf),
        ("lg2_approx", -0.0, -inf),
        ("lg2_approx", inf, inf),
        ("lg2_approx", -1.0, nan),
        ("lg2_approx", nan, nan),
        ("rcp_approx", 4.0, 0.25),
        ("rcp_approx", 0.0, inf),
        ("rcp_approx", -0.0, -inf),
        ("rcp_approx", -inf, -0.0),
        ("rcp_approx", nan, nan),
        ("rcp", 3.0, 1.0 / 3.0),
        ("rcp", 0.0, inf),
        ("rcp", inf, 0.0),
        ("rsqrt_approx", 4.0, 0.5),
        ("rsqrt_approx", 0.0, inf),
        ("rsqrt_approx", inf, 0.0),
        ("rsqrt_approx", -1.0, nan),
        ("sqrt_approx", 9.0, 3.0),
        ("sqrt_approx", -0.0, -0.0),
        ("sqrt_approx", inf, inf),
        ("sqrt_approx", -1.0, nan),
        ("sqrt", 2.0, std::f32::consts::SQRT_2),
        ("sqrt", 0.0, 0.0),
        ("sqrt", -4.0, nan),
        ("tanh_approx", 0.0, 0.0),
        ("tanh_approx", inf, 1.0),
        ("tanh_approx", -inf, -1.0),
        ("tanh_approx", nan, nan),
        ("div_approx", 1.0, 0.25), // y = 4
        ("div_approx", 0.0, 0.0),
        ("div_approx", -6.0, -2.0), // y = 3
        ("fma", 1.0 + f32::EPSILON, -f32::EPSILON * f32::EPSILON),
    ];
    for (name, x, want) in edges {
        let (_, f, _, _) = MATH.iter().find(|m| m.0 == name).unwrap();
        let (y, z) = match (name, x) {
            ("div_approx", 1.0) => (4.0, 0.0),
            ("div_approx", _) => (3.0, 0.0),
            ("fma", _) => (1.0 - f32::EPSILON, -1.0), // one rounding keeps -2^-46
            _ => (0.0, 0.0),
        };
        let got = f(x, y, z);
        let same = (got.is_nan() && want.is_nan())
            || (got == want && got.is_sign_negative() == want.is_sign_negative());
        assert!(same, "{name}({x}, {y}, {z}) = {got}, not {want}");
    }
}

// ---------------------------------------------------------------------------------------------
// Atomics.

/// A counter by compare-and-swap (the CAS loop of a lock-free update); this thread's ticket.
macro_rules! cas_ticket {
    ($mem:expr, $i:expr) => {{
        let mut cur = 0u32;
        loop {
            let prev = $mem.atomic_cas($i, cur, cur + 1);
            if prev == cur {
                break cur;
            }
            cur = prev;
        }
    }};
}

/// A lock-free maximum by compare-and-swap.
macro_rules! cas_max {
    ($mem:expr, $i:expr, $v:expr, $start:expr) => {{
        let (v, mut cur) = ($v, $start);
        while v > cur {
            let prev = $mem.atomic_cas($i, cur, v);
            if prev == cur {
                break;
            }
            cur = prev;
        }
    }};
}

/// The words each thread hits: `e % WORDS` of each op's words.
const WORDS: usize = 3;

/// What one grid of threads does to the words of each op (global or shared), from its values
/// `u` (and `u as i32`, `f`); the exchanges' and counters' old values go to `old`.
struct AtomicModel {
    add_u: [u32; WORDS],
    red_u: [u32; WORDS],
    add_i: [i32; WORDS],
    red_i: [i32; WORDS],
    add_f: [f32; WORDS],
    red_f: [f32; WORDS],
    max_u: [u32; WORDS],
    min_u: [u32; WORDS],
    max_i: [i32; WORDS],
    min_i: [i32; WORDS],
    cas_max: u32,
}

fn atomic_model(us: &[u32], fs: &[f32]) -> AtomicModel {
    let mut m = AtomicModel {
        add_u: [0; WORDS],
        red_u: [0; WORDS],
        add_i: [0; WORDS],
        red_i: [0; WORDS],
        add_f: [0.0; WORDS],
        red_f: [0.0; WORDS],
        max_u: [0; WORDS],
        min_u: [u32::MAX; WORDS],
        max_i: [i32::MIN; WORDS],
        min_i: [i32::MAX; WORDS],
        cas_max: 0,
    };
    for (e, (&u, &f)) in us.iter().zip(fs).enumerate() {
        let k = e % WORDS;
        m.add_u[k] = m.add_u[k].wrapping_add(u);
        m.red_u[k] = m.red_u[k].wrapping_add(u >> 8);
        m.add_i[k] = m.add_i[k].wrapping_add(u as i32);
        m.red_i[k] = m.red_i[k].wrapping_add((u as i32) >> 4);
        m.add_f[k] += f; // exact: multiples of 1/64 below 2^10
        m.red_f[k] -= f;
        m.max_u[k] = m.max_u[k].max(u);
        m.min_u[k] = m.min_u[k].min(u);
        m.max_i[k] = m.max_i[k].max(u as i32);
        m.min_i[k] = m.min_i[k].min(u as i32);
        m.cas_max = m.cas_max.max(u.rotate_left(7));
    }
    m
}

/// Every old value an exchange chain gave, with the final one: the initial value and each thread's
/// once.
fn check_exchange(olds: &[u32], last: u32, ids: impl Iterator<Item = u32>, what: &str) {
    let mut got: Vec<u32> = olds.iter().copied().chain([last]).collect();
    let mut want: Vec<u32> = [0].into_iter().chain(ids).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "{what}: the exchanges lost or duplicated a value");
}

fn check_tickets(tickets: &[u32], what: &str) {
    let mut t = tickets.to_vec();
    t.sort_unstable();
    assert!(
        t.iter().enumerate().all(|(i, &x)| x == i as u32),
        "{what}: tickets are not 0..{}",
        tickets.len()
    );
}

#[test]
fn atomics_under_contention_match_the_host() {
    const BLOCKS: u32 = 6;
    const THREADS: u32 = 96;
    const N: usize = (BLOCKS * THREADS) as usize;
    let mut rng = Rng(0x5eed_0008);
    let us: Vec<u32> = (0..N).map(|_| rng.u32()).collect();
    let fs: Vec<f32> = (0..N).map(|_| rng.below(1 << 16) as f32 / 64.0).collect();
    let (ub, fb) = (DeviceBuffer::from_slice(&us), DeviceBuffer::from_slice(&fs));
    // Global words: u32 (add, red, max, min, exch, cas max, cas counter, add counter), i32 (add,
    // red, max, min), f32 (add, red), WORDS of each op.
    let mut gu = DeviceBuffer::<u32>::zeros(8 * WORDS);
    let mut gi = DeviceBuffer::<i32>::zeros(4 * WORDS);
    let mut gf = DeviceBuffer::<f32>::zeros(2 * WORDS);
    for k in 0..WORDS {
        gu.gmem_mut().store(3 * WORDS + k, u32::MAX);
        gi.gmem_mut().store(2 * WORDS + k, i32::MIN);
        gi.gmem_mut().store(3 * WORDS + k, i32::MAX);
    }
    // Per thread: the global and shared exchanges' old values, CAS and add tickets (6); per
    // block: the shared words (8 + 4 + 2 ops, WORDS each).
    let mut olds = DeviceBuffer::<u32>::zeros(6 * N);
    let mut blocks = DeviceBuffer::<u32>::zeros(BLOCKS as usize * 14 * WORDS);
    let (vu, vf, au, ai, af, old, bo) = (
        ub.gmem(),
        fb.gmem(),
        gu.gmem_mut(),
        gi.gmem_mut(),
        gf.gmem_mut(),
        olds.gmem_mut(),
        blocks.gmem_mut(),
    );
    launch(&cfg(BLOCKS, THREADS, 4 * 14 * 16), || {
        let smem = SmemRegion::dynamic();
        let su = smem.array::<u32, { 8 * WORDS }>(0).unwrap();
        let si = smem.array::<i32, { 4 * WORDS }>(8 * 16 * 4).unwrap();
        let sf = smem.array::<f32, { 2 * WORDS }>(12 * 16 * 4).unwrap();
        let (t, b) = (thread_idx().x as usize, block_idx().x as usize);
        let e = b * THREADS as usize + t;
        let (u, f, k) = (vu.load(e), vf.load(e), e % WORDS);
        if t == 0 {
            for j in 0..8 * WORDS {
                su.store(j, if j / WORDS == 3 { u32::MAX } else { 0 });
            }
            for j in 0..4 * WORDS {
                si.store(j, [0, 0, i32::MIN, i32::MAX][j / WORDS]);
            }
            for j in 0..2 * WORDS {
                sf.store(j, 0.0);
            }
        }
        sync_threads();
        macro_rules! hit {
            ($u:expr, $i:expr, $f:expr, $id:expr, $old:expr) => {{
                $u.atomic_add(k, u);
                $u.red_add(WORDS + k, u >> 8);
                $u.atomic_max(2 * WORDS + k, u);
                $u.atomic_min(3 * WORDS + k, u);
                old.store($old, $u.atomic_exch(4 * WORDS, $id + 1));
                cas_max!($u, 5 * WORDS, u.rotate_left(7), 0);
                old.store($old + 1, cas_ticket!($u, 6 * WORDS));
                old.store($old + 2, $u.atomic_add(7 * WORDS, 1));
                $i.atomic_add(k, u as i32);
                $i.red_add(WORDS + k, (u as i32) >> 4);
                $i.atomic_max(2 * WORDS + k, u as i32);
                $i.atomic_min(3 * WORDS + k, u as i32);
                $f.atomic_add(k, f);
                $f.red_add(WORDS + k, -f);
            }};
        }
        hit!(au, ai, af, e as u32, 6 * e);
        hit!(su, si, sf, t as u32, 6 * e + 3);
        sync_threads();
        if t == 0 {
            let at = b * 14 * WORDS;
            for j in 0..8 * WORDS {
                bo.store(at + j, su.load(j));
            }
            for j in 0..4 * WORDS {
                bo.store(at + 8 * WORDS + j, si.load(j) as u32);
            }
            for j in 0..2 * WORDS {
                bo.store(at + 12 * WORDS + j, sf.load(j).to_bits());
            }
        }
        // Out of bounds: a fault, as a plain access.
        if e == N {
            au.atomic_add(8 * WORDS, 1);
        }
    })
    .unwrap();
    let (olds, blocks) = (olds.to_vec(), blocks.to_vec());
    let check = |u: &[u32], i: &[i32], f: &[f32], m: &AtomicModel, what: &str| {
        for k in 0..WORDS {
            assert_eq!(u[k], m.add_u[k], "{what}: u32 atomic_add word {k}");
            assert_eq!(u[WORDS + k], m.red_u[k], "{what}: u32 red_add word {k}");
            assert_eq!(u[2 * WORDS + k], m.max_u[k], "{what}: u32 atomic_max word {k}");
            assert_eq!(u[3 * WORDS + k], m.min_u[k], "{what}: u32 atomic_min word {k}");
            assert_eq!(i[k], m.add_i[k], "{what}: i32 atomic_add word {k}");
            assert_eq!(i[WORDS + k], m.red_i[k], "{what}: i32 red_add word {k}");
            assert_eq!(i[2 * WORDS + k], m.max_i[k], "{what}: i32 atomic_max word {k}");
            assert_eq!(i[3 * WORDS + k], m.min_i[k], "{what}: i32 atomic_min word {k}");
            assert_eq!(f[k], m.add_f[k], "{what}: f32 atomic_add word {k}");
            assert_eq!(f[WORDS + k], m.red_f[k], "{what}: f32 red_add word {k}");
        }
        assert_eq!(u[5 * WORDS], m.cas_max, "{what}: the CAS loop's maximum");
    };
    let (u, i, f) = (gu.to_vec(), gi.to_vec(), gf.to_vec());
    check(&u, &i, &f, &atomic_model(&us, &fs), "global");
    let pick = |k: usize| (0..N).map(|e| olds[6 * e + k]).collect::<Vec<_>>();
    check_exchange(&pick(0), u[4 * WORDS], 1..=N as u32, "global exch");
    check_tickets(&pick(1), "global CAS counter");
    check_tickets(&pick(2), "global add counter");
    assert_eq!((u[6 * WORDS], u[7 * WORDS]), (N as u32, N as u32), "the counters' finals");
    for b in 0..BLOCKS as usize {
        let r = &blocks[b * 14 * WORDS..(b + 1) * 14 * WORDS];
        let part = b * THREADS as usize..(b + 1) * THREADS as usize;
        let (su, si, sf): (Vec<u32>, Vec<i32>, Vec<f32>) = (
            r[..8 * WORDS].to_vec(),
            r[8 * WORDS..12 * WORDS].iter().map(|&x| x as i32).collect(),
            r[12 * WORDS..].iter().map(|&x| f32::from_bits(x)).collect(),
        );
        let what = format!("shared, block {b}");
        // The shared model's words: thread e hits word e % WORDS, as globally.
        let m = {
            let mut m = atomic_model(&[], &[]);
            for e in part.clone() {
                let one = atomic_model(&us[e..=e], &fs[e..=e]);
                let k = e % WORDS;
                m.add_u[k] = m.add_u[k].wrapping_add(one.add_u[0]);
                m.red_u[k] = m.red_u[k].wrapping_add(one.red_u[0]);
                m.add_i[k] = m.add_i[k].wrapping_add(one.add_i[0]);
                m.red_i[k] = m.red_i[k].wrapping_add(one.red_i[0]);
                m.add_f[k] += one.add_f[0];
                m.red_f[k] += one.red_f[0];
                m.max_u[k] = m.max_u[k].max(one.max_u[0]);
                m.min_u[k] = m.min_u[k].min(one.min_u[0]);
                m.max_i[k] = m.max_i[k].max(one.max_i[0]);
                m.min_i[k] = m.min_i[k].min(one.min_i[0]);
                m.cas_max = m.cas_max.max(one.cas_max);
            }
            m
        };
        check(&su, &si, &sf, &m, &what);
        let pick = |k: usize| part.clone().map(|e| olds[6 * e + k]).collect::<Vec<_>>();
        check_exchange(&pick(3), su[4 * WORDS], 1..=THREADS, &format!("{what} exch"));
        check_tickets(&pick(4), &format!("{what} CAS counter"));
        check_tickets(&pick(5), &format!("{what} add counter"));
    }
}

#[test]
fn an_atomic_past_the_view_faults() {
    let mut w = DeviceBuffer::<u32>::zeros(4);
    let g = w.gmem_mut();
    let m = message(launch(&cfg(1, 1, 16), || {
        g.atomic_max(4, 1);
    }));
    assert!(m.contains("global atomic index out of bounds"), "{m}");
    let m = message(launch(&cfg(1, 1, 16), || {
        SmemRegion::dynamic().array::<u32, 4>(0).unwrap().atomic_cas(4, 0, 1);
    }));
    assert!(m.contains("shared-memory index out of bounds"), "{m}");
}

// ---------------------------------------------------------------------------------------------
// Named barriers.

#[test]
fn named_barriers_hand_data_from_a_producer_to_consumers() {
    // Warp 0 produces ROUNDS rounds into two buffers; warps 1-3 consume them. Barriers 1 and 2
    // say a buffer is full (the producer arrives, the consumers sync), 3 and 4 that it is empty
    // again (the reverse).
    const ROUNDS: usize = 8;
    let mut rng = Rng(0x5eed_0009);
    let data: Vec<u32> = (0..ROUNDS * 32).map(|_| rng.u32()).collect();
    let db = DeviceBuffer::from_slice(&data);
    let mut out = DeviceBuffer::<u32>::zeros(2 * 128 * ROUNDS);
    let (d, g) = (db.gmem(), out.gmem_mut());
    launch(&cfg(2, 128, 256), || {
        let bufs = [0, 32].map(|at| SmemRegion::dynamic().array::<u32, 32>(4 * at).unwrap());
        let (full0, full1) = (NamedBarrier::<1, 128>::new(), NamedBarrier::<2, 128>::new());
        let (empty0, empty1) = (NamedBarrier::<3, 128>::new(), NamedBarrier::<4, 128>::new());
        let (t, b) = (thread_idx().x as usize, block_idx().x as usize);
        let (warp, lane) = (t / 32, t % 32);
        for r in 0..ROUNDS {
            let buf = bufs[r % 2];
            if warp == 0 {
                if r >= 2 {
                    if r % 2 == 0 { empty0.sync() } else { empty1.sync() }
                }
                buf.store(lane, d.load(32 * r + lane) ^ b as u32);
                if r % 2 == 0 { full0.arrive() } else { full1.arrive() }
            } else {
                if r % 2 == 0 {
                    full0.sync()
                } else {
                    full1.sync()
                }
                // Each consumer reads the whole buffer: a rotation of it by its lane.
                let got = (0..32).fold(0u32, |a, k| a.rotate_left(1) ^ buf.load((lane + k) % 32));
                g.store((b * 128 + t) * ROUNDS + r, got);
                if r + 2 < ROUNDS {
                    if r % 2 == 0 { empty0.arrive() } else { empty1.arrive() }
                }
            }
        }
    })
    .unwrap();
    let out = out.to_vec();
    for b in 0..2 {
        for t in 32..128 {
            for r in 0..ROUNDS {
                let want = (0..32)
                    .fold(0u32, |a, k| a.rotate_left(1) ^ (data[32 * r + (t % 32 + k) % 32] ^ b as u32));
                assert_eq!(out[(b * 128 + t) * ROUNDS + r], want, "block {b} thread {t} round {r}");
            }
        }
    }
}

#[test]
fn two_named_barriers_of_64_threads_work_side_by_side() {
    let mut out = DeviceBuffer::<u32>::zeros(128);
    let g = out.gmem_mut();
    launch(&cfg(1, 128, 256), || {
        let smem = SmemRegion::dynamic();
        let (t, lane) = (thread_idx().x as usize, thread_idx().x as usize % 32);
        // Warp 0 feeds warp 1 through barrier 5, warp 3 feeds warp 2 through barrier 6.
        let (low, high) = (NamedBarrier::<5, 64>::new(), NamedBarrier::<6, 64>::new());
        let (a, b) = (smem.array::<u32, 32>(0).unwrap(), smem.array::<u32, 32>(128).unwrap());
        match t / 32 {
            0 => {
                a.store(lane, 1000 + lane as u32);
                low.arrive();
            }
            1 => {
                low.sync();
                g.store(t, a.load(31 - lane));
            }
            2 => {
                high.sync();
                g.store(t, b.load(31 - lane));
            }
            _ => {
                b.store(lane, 2000 + lane as u32);
                high.arrive();
            }
        }
    })
    .unwrap();
    let out = out.to_vec();
    for lane in 0..32 {
        assert_eq!(out[32 + lane], 1000 + 31 - lane as u32);
        assert_eq!(out[64 + lane], 2000 + 31 - lane as u32);
    }
}

#[test]
fn a_consumer_that_skips_the_named_barrier_is_a_reported_race() {
    let m = message(launch(&cfg(1, 64, 128), || {
        let s = SmemRegion::dynamic().array::<u32, 32>(0).unwrap();
        let (t, ready) = (thread_idx().x as usize, NamedBarrier::<1, 64>::new());
        if t < 32 {
            s.store(t, 7);
            ready.arrive();
        } else {
            let _ = s.load(t - 32); // no `ready.sync()`
        }
    }));
    assert!(m.contains("shared-memory race"), "{m}");
}

#[test]
fn a_named_barrier_missing_arrivals_is_a_reported_deadlock() {
    // 96 of 128 threads reach barrier 1 (warp 3 has left): on the GPU they hang; the emulator
    // fails the launch once its patience is out (shortened here from 60 s).
    let r = with_deadlock_patience(std::time::Duration::from_millis(1500), || {
        launch(&cfg(1, 128, 0), || {
            if thread_idx().x >= 96 {
                return;
            }
            NamedBarrier::<1, 128>::new().sync();
        })
    });
    let m = message(r);
    assert!(
        m.contains("named barrier 1: 96 of 128 threads arrived and the rest never did (a deadlock)"),
        "{m}"
    );
    // Two thread counts for one barrier at once.
    let m = message(launch(&cfg(1, 128, 0), || {
        if thread_idx().x < 64 {
            NamedBarrier::<2, 128>::new().sync();
        } else {
            std::thread::sleep(std::time::Duration::from_millis(50));
            NamedBarrier::<2, 64>::new().sync();
        }
    }));
    assert!(m.contains("named barrier 2: thread") && m.contains("while others wait for 128"), "{m}");
}

// ---------------------------------------------------------------------------------------------
// Tensors of rank 3 and 4.

/// Every coordinate of a rank-`R` shape, last mode slowest.
fn coords<const R: usize>(ext: [usize; R]) -> impl Iterator<Item = [u32; R]> {
    let n: usize = ext.iter().product();
    (0..n).map(move |mut e| {
        let mut c = [0u32; R];
        for (k, x) in ext.iter().enumerate() {
            c[k] = (e % x) as u32;
            e /= x;
        }
        c
    })
}

/// The offset of `c` under strides `d`.
fn offset<const R: usize>(c: [u32; R], d: [usize; R]) -> usize {
    c.iter().zip(d).map(|(&c, d)| c as usize * d).sum()
}

/// A tensor's extents (a tuple) as an array.
trait Extents<const R: usize> {
    fn array(self) -> [usize; R];
}
impl Extents<3> for (usize, usize, usize) {
    fn array(self) -> [usize; 3] {
        [self.0, self.1, self.2]
    }
}
impl Extents<4> for (usize, usize, usize, usize) {
    fn array(self) -> [usize; 4] {
        [self.0, self.1, self.2, self.3]
    }
}

/// A tensor of rank 3 or 4 over a device buffer, checked element by element against the host's
/// offsets: loads, out-of-range coordinates, stores (padding untouched), a buffer one short, and
/// the rank-2 slices against the whole.
macro_rules! check_tensor {
    ($rank:literal, $layout:expr, $ext:expr, $d:expr, $rng:expr, $what:expr) => {{
        let (layout, ext, d, what): (_, [usize; $rank], [usize; $rank], String) = ($layout, $ext, $d, $what);
        let cosize = offset(ext.map(|x| x as u32 - 1), d) + 1;
        let words: Vec<u32> = (0..cosize + $rng.below(5) as usize).map(|_| $rng.u32()).collect();
        let mut buf = DeviceBuffer::from_slice(&words);
        let short = DeviceBuffer::<u32>::zeros(cosize - 1);
        assert!(GlobalTensor::new(short.gmem(), layout).is_none(), "{what}: a buffer one short");
        let t = GlobalTensor::new(buf.gmem(), layout).unwrap();
        assert_eq!(Extents::array(t.extents()), ext, "{what}");
        for c in coords(ext) {
            assert!(t.contains(c), "{what} {c:?}");
            assert_eq!(t.load(c), Some(words[offset(c, d)]), "{what} {c:?}");
        }
        for k in 0..$rank {
            let mut c = [0u32; $rank];
            c[k] = ext[k] as u32 + $rng.below(3);
            assert!(!t.contains(c), "{what} {c:?}");
            assert_eq!(t.load(c), None, "{what} {c:?}");
        }
        // Stores: every element gets its index, the padding keeps its words.
        let tm = GlobalTensor::new(buf.gmem_mut(), layout).unwrap();
        let mut want = words.clone();
        for (e, c) in coords(ext).enumerate() {
            tm.store(c, e as u32);
            want[offset(c, d)] = e as u32;
        }
        for k in 0..$rank {
            let mut c = [0u32; $rank];
            c[k] = ext[k] as u32;
            tm.store(c, 0xdead);
        }
        assert_eq!(buf.to_vec(), want, "{what}: stores");
        (buf, want, ext)
    }};
}

#[test]
fn rank_3_tensors_read_and_write_by_coordinate_and_slice() {
    let mut rng = Rng(0x5eed_000a);
    for case in 0..12 {
        let (m, n, k) = (1 + rng.below(6), 1 + rng.below(6), 1 + rng.below(4));
        let (pad0, pad1) = (rng.below(4), rng.below(5));
        macro_rules! slices {
            ($buf:expr, $layout:expr, $ext:expr, $what:expr) => {{
                let t = GlobalTensor::new($buf.gmem(), $layout).unwrap();
                let ext: [usize; 3] = $ext;
                for kk in 0..ext[2] as u32 {
                    let s = t.slice_last(kk).unwrap();
                    assert_eq!(DeviceTensor::extents(&s), (ext[0], ext[1]), "{}", $what);
                    for [i, j] in coords([ext[0], ext[1]]) {
                        assert_eq!(
                            s.load([i, j]),
                            t.load([i, j, kk]),
                            "{} slice_last({kk}) [{i}, {j}]",
                            $what
                        );
                    }
                    assert_eq!(s.load([ext[0] as u32, 0]), None);
                }
                for kk in 0..ext[0] as u32 {
                    let s = t.slice_first(kk).unwrap();
                    assert_eq!(DeviceTensor::extents(&s), (ext[1], ext[2]), "{}", $what);
                    for [j, l] in coords([ext[1], ext[2]]) {
                        assert_eq!(
                            s.load([j, l]),
                            t.load([kk, j, l]),
                            "{} slice_first({kk}) [{j}, {l}]",
                            $what
                        );
                    }
                }
                assert!(
                    t.slice_last(ext[2] as u32).is_none() && t.slice_first(ext[0] as u32).is_none(),
                    "{}",
                    $what
                );
            }};
        }
        // Column-major matrices, the batch last: (m,n,k):(_1,ld,bs).
        let (ld, bs) = (m + pad0, (m + pad0) * n + pad1);
        let l = make_layout((m, n, k), (C::<1>, ld, bs)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) = check_tensor!(
            3,
            l,
            [m, n, k].map(|x| x as usize),
            [1, ld, bs].map(|x| x as usize),
            rng,
            what.clone()
        );
        slices!(buf, l, ext, what);
        // Row-major matrices, the batch first: (k,m,n):(bs,ld,_1).
        let (ld, bs) = (n + pad0, (n + pad0) * m + pad1);
        let l = make_layout((k, m, n), (bs, ld, C::<1>)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) = check_tensor!(
            3,
            l,
            [k, m, n].map(|x| x as usize),
            [bs, ld, 1].map(|x| x as usize),
            rng,
            what.clone()
        );
        slices!(buf, l, ext, what);
        // Static and runtime extents and strides mixed: (_4,n,_3):(_1,ld,bs).
        let (ld, bs) = (4 + pad0, (4 + pad0) * n + pad1);
        let l = make_layout((C::<4>, n, C::<3>), (C::<1>, ld, bs)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) =
            check_tensor!(3, l, [4, n as usize, 3], [1, ld as usize, bs as usize], rng, what.clone());
        slices!(buf, l, ext, what);
        // (m,_5,k):(_8,_1,bs).
        let bs = 8 * m + pad1;
        let l = make_layout((m, C::<5>, k), (C::<8>, C::<1>, bs)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) =
            check_tensor!(3, l, [m as usize, 5, k as usize], [8, 1, bs as usize], rng, what.clone());
        slices!(buf, l, ext, what);
    }
}

#[test]
fn rank_4_tensors_read_and_write_by_coordinate_and_slice() {
    let mut rng = Rng(0x5eed_000b);
    for case in 0..10 {
        let (s, dim, h, b) = (1 + rng.below(5), 1 + rng.below(5), 1 + rng.below(3), 1 + rng.below(3));
        let pads = [rng.below(3), rng.below(4), rng.below(4)];
        macro_rules! slices {
            ($buf:expr, $layout:expr, $ext:expr, $what:expr) => {{
                let t = GlobalTensor::new($buf.gmem(), $layout).unwrap();
                let ext: [usize; 4] = $ext;
                for [k, l] in coords([ext[2], ext[3]]) {
                    let m = t.slice_last2(k, l).unwrap();
                    assert_eq!(DeviceTensor::extents(&m), (ext[0], ext[1]), "{}", $what);
                    for [i, j] in coords([ext[0], ext[1]]) {
                        assert_eq!(
                            m.load([i, j]),
                            t.load([i, j, k, l]),
                            "{} slice_last2({k}, {l}) [{i}, {j}]",
                            $what
                        );
                    }
                }
                for [i, j] in coords([ext[0], ext[1]]) {
                    let m = t.slice_first2(i, j).unwrap();
                    assert_eq!(DeviceTensor::extents(&m), (ext[2], ext[3]), "{}", $what);
                    for [k, l] in coords([ext[2], ext[3]]) {
                        assert_eq!(
                            m.load([k, l]),
                            t.load([i, j, k, l]),
                            "{} slice_first2({i}, {j}) [{k}, {l}]",
                            $what
                        );
                    }
                }
                assert!(
                    t.slice_last2(ext[2] as u32, 0).is_none() && t.slice_last2(0, ext[3] as u32).is_none(),
                    "{}",
                    $what
                );
                assert!(
                    t.slice_first2(ext[0] as u32, 0).is_none() && t.slice_first2(0, ext[1] as u32).is_none(),
                    "{}",
                    $what
                );
            }};
        }
        // (seq, dim, heads, batch):(ld,_1,s2,s3), dim contiguous.
        let ld = dim + pads[0];
        let (s2, s3) = (ld * s + pads[1], (ld * s + pads[1]) * h + pads[2]);
        let l = make_layout((s, dim, h, b), (ld, C::<1>, s2, s3)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) = check_tensor!(
            4,
            l,
            [s, dim, h, b].map(|x| x as usize),
            [ld, 1, s2, s3].map(|x| x as usize),
            rng,
            what.clone()
        );
        slices!(buf, l, ext, what);
        // Column-major: (_1,ld,s2,s3).
        let ld = s + pads[0];
        let (s2, s3) = (ld * dim + pads[1], (ld * dim + pads[1]) * h + pads[2]);
        let l = make_layout((s, dim, h, b), (C::<1>, ld, s2, s3)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) = check_tensor!(
            4,
            l,
            [s, dim, h, b].map(|x| x as usize),
            [1, ld, s2, s3].map(|x| x as usize),
            rng,
            what.clone()
        );
        slices!(buf, l, ext, what);
        // Mixed: (_3,dim,_2,b):(_1,ld,s2,s3).
        let ld = 3 + pads[0];
        let (s2, s3) = (ld * dim + pads[1], (ld * dim + pads[1]) * 2 + pads[2]);
        let l = make_layout((C::<3>, dim, C::<2>, b), (C::<1>, ld, s2, s3)).unwrap();
        let what = format!("case {case}: {l}");
        let (buf, _, ext) = check_tensor!(
            4,
            l,
            [3, dim as usize, 2, b as usize],
            [1, ld, s2, s3].map(|x| x as usize),
            rng,
            what.clone()
        );
        slices!(buf, l, ext, what);
    }
}

#[test]
fn a_slice_is_vectorized_only_where_its_start_is_aligned() {
    // 3 column-major 8 x 8 matrices 66 words apart: matrix 1 starts at word 66 (8 bytes past a
    // 16-byte boundary), matrices 0 and 2 at 0 and 132.
    let words: Vec<u32> = (0..200).collect();
    let buf = DeviceBuffer::from_slice(&words);
    let t = GlobalTensor::new(buf.gmem(), make_layout((8u32, 8u32, 3u32), (C::<1>, 8u32, 66u32)).unwrap())
        .unwrap();
    for k in 0..3u32 {
        let v = t.slice_last(k).unwrap().vectorized();
        assert_eq!(v.is_some(), k != 1, "matrix {k}");
        if let Some(v) = v {
            let Tiled::Full(tile) = v.local_tile((C::<4>, C::<4>), (1, 1)) else { panic!("a whole tile") };
            let at = 66 * k + 4 + 8 * 4;
            assert_eq!(tile.load4((0, 0)), Some([at, at + 1, at + 2, at + 3]), "matrix {k}");
        }
    }
    // Rank 4: (8,4,2,2):(_1,8,34,68); slice (1, 0) starts at 34, (0, 1) at 68.
    let t = GlobalTensor::new(
        buf.gmem(),
        make_layout((8u32, 4u32, 2u32, 2u32), (C::<1>, 8u32, 34u32, 68u32)).unwrap(),
    )
    .unwrap();
    for (k, l, aligned) in [(0, 0, true), (1, 0, false), (0, 1, true), (1, 1, false)] {
        assert_eq!(t.slice_last2(k, l).unwrap().vectorized().is_some(), aligned, "slice ({k}, {l})");
    }
    // A row-major batch, the slice along the first mode: (3,8,8):(68,8,_1); slice 1 at 68.
    let t = GlobalTensor::new(buf.gmem(), make_layout((2u32, 8u32, 8u32), (68u32, 8u32, C::<1>)).unwrap())
        .unwrap();
    assert!(t.slice_first(0).unwrap().vectorized().is_some());
    assert!(t.slice_first(1).unwrap().vectorized().is_some());
    let t = GlobalTensor::new(buf.gmem(), make_layout((2u32, 8u32, 8u32), (70u32, 8u32, C::<1>)).unwrap())
        .unwrap();
    assert!(t.slice_first(1).unwrap().vectorized().is_none(), "word 70 is not 16-byte aligned");
}

// ---------------------------------------------------------------------------------------------
// Shared memory by layout.

type Tile8 = layout_type!((8, 8):(8, 1));
type Swizzled16x32 = StaticSwizzled<3, 2, 3, layout_type!((16, 32):(32, 1))>;
type Swizzled8x16 = StaticSwizzled<2, 2, 3, layout_type!((8, 16):(16, 1))>;

/// `Swizzle<B,2,3>` on an offset: bits `2..2+B` xor bits `5..5+B`.
fn swizzled(o: usize, b: u32) -> usize {
    let mask = ((1usize << b) - 1) << 5;
    o ^ ((o & mask) >> 3)
}

/// The plan, then a tensor of `u32` by `layout` (whose type has no name here).
fn plan_with<L: SmemLayout>(p: SmemPlan, _: &L) -> SmemPlan {
    p.tensor::<u32, L>()
}

/// A layout's cosize and alignment.
fn smem_layout<L: SmemLayout>(_: &L) -> (usize, u32) {
    (L::COSIZE, L::ALIGN)
}

#[test]
fn shared_allocations_are_disjoint_aligned_and_planned() {
    let comp =
        composition(<layout_type!((4, 8):(8, 1))>::default(), <layout_type!((2, 4):(4, 1))>::default());
    let plan = plan_with(
        SmemPlan::new()
            .array::<u32, 4>()
            .tensor::<u32, Swizzled16x32>()
            .array::<u32, 4>()
            .tensor::<u32, Swizzled8x16>()
            .tensor::<f32, Tile8>(),
        &comp,
    )
    .array::<u32, 5>();
    assert_eq!((<Swizzled16x32 as SmemLayout>::COSIZE, <Swizzled16x32 as SmemLayout>::ALIGN), (512, 1024));
    assert_eq!((<Swizzled8x16 as SmemLayout>::COSIZE, <Swizzled8x16 as SmemLayout>::ALIGN), (128, 1024));
    assert_eq!((<Tile8 as SmemLayout>::COSIZE, <Tile8 as SmemLayout>::ALIGN), (64, 16));
    let (comp_cosize, comp_align) = smem_layout(&comp);
    assert_eq!(comp_cosize, comp.cosize() as usize);
    let bytes = plan.bytes();
    // The allocations' starts, sizes in bytes and alignments, then the end of the last one.
    const SPANS: usize = 7;
    let mut out = DeviceBuffer::<u32>::zeros(2 * (3 * SPANS + 1));
    let g = out.gmem_mut();
    let carve = |region: SmemRegion, at: usize| {
        let mut a = SmemAllocator::new(region);
        let p0 = a.array::<u32, 4>();
        let s0 = a.tensor::<u32, _>(swizzle::<3, 2, 3, _>(<layout_type!((16, 32):(32, 1))>::default()));
        let p1 = a.array::<u32, 4>();
        let s1 = a.tensor::<u32, _>(swizzle::<2, 2, 3, _>(<layout_type!((8, 16):(16, 1))>::default()));
        let t8 = a.tensor::<f32, _>(Tile8::default());
        let c = a.tensor::<u32, _>(comp);
        let last = a.array::<u32, 5>();
        let spans = [
            (p0.address(0), 16, 16),
            (s0.array::<1>().address(0), 4 * 512, 1024),
            (p1.address(0), 16, 16),
            (s1.array::<1>().address(0), 4 * 128, 1024),
            (t8.array::<1>().address(0), 4 * 64, 16),
            (c.array::<1>().address(0), 4 * comp_cosize as u32, comp_align),
            (last.address(0), 20, 16),
        ];
        for (k, (start, size, align)) in spans.into_iter().enumerate() {
            g.store(at + 3 * k, start);
            g.store(at + 3 * k + 1, size);
            g.store(at + 3 * k + 2, align);
        }
        g.store(at + 3 * SPANS, last.address(0) + 20);
    };
    // From the dynamic memory (at shared address 0), and from a static array after 48 bytes of it
    // (static arrays are 1024-byte aligned: at byte 1024).
    launch(&cfg(1, 1, bytes), || carve(SmemRegion::dynamic(), 0)).unwrap();
    launch(&cfg(1, 1, 48), || carve(static_shared!(layer_test_carve, 8192), 3 * SPANS + 1)).unwrap();
    // A block with less than the plan faults naming SmemPlan.
    let m = message(launch(&cfg(1, 1, bytes - 16), || carve(SmemRegion::dynamic(), 0)));
    assert!(
        m.contains(
            "SmemAllocator: the block has less shared memory than its allocations need (see SmemPlan)"
        ),
        "{m}"
    );
    let out = out.to_vec();
    for (run, base) in [(0, 0u32), (1, 1024)] {
        let r = &out[run * (3 * SPANS + 1)..(run + 1) * (3 * SPANS + 1)];
        assert_eq!(r[0], base, "run {run}: the first allocation starts the region");
        for k in 0..SPANS {
            let (start, size, align) = (r[3 * k], r[3 * k + 1], r[3 * k + 2]);
            assert_eq!(start % align, 0, "run {run}: allocation {k} at {start} is not {align}-byte aligned");
            if k + 1 < SPANS {
                assert!(start + size <= r[3 * k + 3], "run {run}: allocations {k} and {} overlap", k + 1);
            }
        }
        // The plan covers the allocator's use; from a 1024-byte aligned start (the dynamic memory),
        // whose swizzled tensors come 16 bytes past a 1024-byte boundary, it is exactly the use.
        let used = r[3 * SPANS] - base;
        assert!(used <= bytes, "run {run}: {used} bytes used, {bytes} planned");
        if run == 0 {
            assert_eq!(used.div_ceil(16) * 16, bytes, "the plan is the allocator's use");
        }
    }
}

#[test]
fn swizzled_shared_tensors_read_back_every_coordinate() {
    const BYTES: u32 = SmemPlan::new()
        .tensor::<u32, Swizzled16x32>()
        .tensor::<u32, Swizzled8x16>()
        .tensor::<u32, Tile8>()
        .bytes();
    let hash = |e: u32| e.wrapping_mul(0x9e37_79b9) ^ 0x5555;
    let mut out = DeviceBuffer::<u32>::zeros(64 + 512 + 128);
    let g = out.gmem_mut();
    launch(&cfg(1, 64, BYTES), || {
        let mut alloc = SmemAllocator::new(SmemRegion::dynamic());
        let a = alloc.tensor::<u32, _>(swizzle::<3, 2, 3, _>(<layout_type!((16, 32):(32, 1))>::default()));
        let b = alloc.tensor::<u32, _>(swizzle::<2, 2, 3, _>(<layout_type!((8, 16):(16, 1))>::default()));
        let t = thread_idx().x;
        // Every coordinate of `a` by element, of `b` by 128-bit vectors of 4 along a row.
        for e in (t..512).step_by(64) {
            a.store((e / 32, e % 32), hash(e));
        }
        if t < 32 {
            let (i, c) = (t / 4, 4 * (t % 4));
            b.store4((i, c), [0, 1, 2, 3].map(|k| hash(1000 + 16 * i + c + k)));
        }
        sync_threads();
        let mut wrong = 0;
        for e in 0..512u32 {
            wrong += (a.load((e / 32, e % 32)) != hash(e)) as u32;
        }
        for e in 0..128u32 {
            wrong += (b.load((e / 16, e % 16)) != hash(1000 + e)) as u32;
        }
        g.store(t as usize, wrong);
        if t == 0 {
            let (a0, b0) = (a.address((0u32, 0u32)), b.address((0u32, 0u32)));
            for e in 0..512u32 {
                g.store(64 + e as usize, (a.address((e / 32, e % 32)) - a0) / 4);
            }
            for e in 0..128u32 {
                g.store(576 + e as usize, (b.address((e / 16, e % 16)) - b0) / 4);
            }
        }
    })
    .unwrap();
    let out = out.to_vec();
    assert!(out[..64].iter().all(|&w| w == 0), "mismatches by thread: {:?}", &out[..64]);
    for e in 0..512 {
        assert_eq!(out[64 + e] as usize, swizzled(e, 3), "Swizzle<3,2,3> at element {e}");
    }
    for e in 0..128 {
        assert_eq!(out[576 + e] as usize, swizzled(e, 2), "Swizzle<2,2,3> at element {e}");
    }
    // Outside the cosize, and a misaligned vector: faults.
    let m = message(launch(&cfg(1, 1, BYTES), || {
        let t = SmemAllocator::new(SmemRegion::dynamic()).tensor::<u32, _>(Tile8::default());
        let _ = t.load((8u32, 0u32));
    }));
    assert!(m.contains("shared tensor coordinate outside its layout's cosize"), "{m}");
    let m = message(launch(&cfg(1, 1, BYTES), || {
        let mut alloc = SmemAllocator::new(SmemRegion::dynamic());
        let t = alloc.tensor::<u32, _>(swizzle::<3, 2, 3, _>(<layout_type!((16, 32):(32, 1))>::default()));
        let _ = t.load4((0u32, 2u32));
    }));
    assert!(m.contains("shared tensor vector access misaligned"), "{m}");
}

// ---------------------------------------------------------------------------------------------
// Entry points with kernel!, over device buffers.

/// A batch of row-major `f32` matrices with runtime extents and strides: `(batch,m,n):(bs,ld,_1)`.
type Batch = TensorParam<f32, (u32, u32, u32), (u32, u32, C<1>)>;

const_layout_device::kernel! {
    /// `y = a x + c` on a batch of matrices: a block a matrix, its threads striding over the
    /// elements.
    #[entry(AXPC_BATCH)]
    #[launch_bounds(128, 1)]
    pub fn axpc_batch(x: In<Batch>, y: Out<Batch>, a: f32, c: f32) {
        let (b, threads) = (block_idx().x, block_dim().x);
        let (_, m, n) = x.extents();
        let (Some(xm), Some(ym)) = (x.slice_first(b), y.slice_first(b)) else {
            return;
        };
        let mut e = thread_idx().x as usize;
        while e < m * n {
            let (i, j) = ((e / n) as u32, (e % n) as u32);
            if let Some(v) = xm.load([i, j]) {
                ym.store([i, j], a * v + c);
            }
            e += threads as usize;
        }
    }

    /// The sum of the `n` words at device address `src`, added atomically to the word at `dst`.
    #[entry(SUM_RAW)]
    pub fn sum_raw(src: u64, n: u32, dst: u64) {
        // SAFETY: the tests pass 16-byte aligned addresses of live device buffers of `n` words and
        // of 1 word, which do not overlap.
        let (s, d) = unsafe { (Gmem::<u32>::from_raw(src, n as usize), GmemMut::<u32>::from_raw(dst, 1)) };
        let (mut acc, mut i) = (0u32, thread_idx().x as usize);
        while i < n as usize {
            acc = acc.wrapping_add(s.load(i));
            i += block_dim().x as usize;
        }
        d.atomic_add(0, acc);
    }
}

#[test]
fn entry_points_run_over_device_buffers_and_check_their_addresses() {
    assert_eq!((AXPC_BATCH.name(), SUM_RAW.name()), ("axpc_batch", "sum_raw"));
    assert_eq!(AXPC_BATCH.params()[2..], [ParamAbi::F32, ParamAbi::F32]);
    assert_eq!(SUM_RAW.params(), [ParamAbi::U64, ParamAbi::U32, ParamAbi::U64]);
    let mut rng = Rng(0x5eed_000c);
    // In and Out tensors, padded differently: the outputs' padding is untouched.
    for case in 0..4 {
        let (batch, m, n) = (1 + rng.below(4), 1 + rng.below(9), 1 + rng.below(9));
        let (xld, yld) = (n + rng.below(3), n + rng.below(3));
        let (lx, ly) = (
            make_layout((batch, m, n), (xld * m + rng.below(4), xld, C::<1>)).unwrap(),
            make_layout((batch, m, n), (yld * m + rng.below(4), yld, C::<1>)).unwrap(),
        );
        let xs: Vec<f32> =
            (0..const_layout::AnyLayout::cosize(&lx)).map(|_| rng.below(1000) as f32 - 500.0).collect();
        let xb = DeviceBuffer::from_slice(&xs);
        let mut yb = DeviceBuffer::<f32>::zeros(const_layout::AnyLayout::cosize(&ly) + 3);
        yb.fill(-1.0);
        let (xp, yp) = (xb.input(&lx).unwrap(), yb.output(&ly).unwrap());
        launch(&cfg(batch, 32 + 32 * rng.below(4), 0), || axpc_batch(xp, yp, 2.0, 0.5)).unwrap();
        let ys = yb.to_vec();
        let mut written = vec![false; ys.len()];
        for [b, i, j] in coords([batch, m, n].map(|x| x as usize)) {
            let (xo, yo) = (
                lx.crd2idx((b as usize, i as usize, j as usize)),
                ly.crd2idx((b as usize, i as usize, j as usize)),
            );
            assert_eq!(ys[yo as usize], 2.0 * xs[xo as usize] + 0.5, "case {case} ({b}, {i}, {j})");
            written[yo as usize] = true;
        }
        for (o, &y) in ys.iter().enumerate() {
            assert!(written[o] || y == -1.0, "case {case}: padding word {o} was written");
        }
    }
    // Raw addresses: the whole buffer, and a view of it from word 4 on.
    let vals: Vec<u32> = (0..1000).map(|_| rng.u32()).collect();
    let src = DeviceBuffer::from_slice(&vals);
    let dst = DeviceBuffer::<u32>::zeros(2);
    let sum = |from: usize| vals[from..].iter().fold(0u32, |a, &v| a.wrapping_add(v));
    launch(&cfg(1, 64, 0), || sum_raw(src.address(), 1000, dst.address())).unwrap();
    launch(&cfg(1, 32, 0), || sum_raw(src.address() + 16, 996, dst.address() + 4)).unwrap();
    assert_eq!(dst.to_vec(), [sum(0), sum(4)]);
    // Past the buffer: the launch fails naming the address.
    let m = message(launch(&cfg(1, 32, 0), || sum_raw(src.address(), 1001, dst.address())));
    assert!(
        m.contains(&format!(
            "device address {:#x} with 1001 elements is not inside a live allocation",
            src.address()
        )),
        "{m}"
    );
    // A tensor parameter claiming more than its buffer.
    let l = make_layout((1u32, 4u32, 4u32), (16u32, 4u32, C::<1>)).unwrap();
    let small = DeviceBuffer::<f32>::zeros(16);
    let mut out = DeviceBuffer::<f32>::zeros(16);
    let yp = out.output(&l).unwrap();
    let long = In::new(TensorParam::<f32, _, _>::new(small.address(), 24, &l).unwrap());
    let m = message(launch(&cfg(1, 32, 0), || axpc_batch(long, yp, 1.0, 0.0)));
    assert!(m.contains(&format!("device address {:#x} with 24 elements", small.address())), "{m}");
    // A dropped buffer.
    let gone = DeviceBuffer::<f32>::zeros(16);
    let (gp, addr) = (gone.input(&l).unwrap(), gone.address());
    drop(gone);
    let m = message(launch(&cfg(1, 32, 0), || axpc_batch(gp, yp, 1.0, 0.0)));
    assert!(
        m.contains(&format!("device address {addr:#x} with 16 elements is not inside a live allocation")),
        "{m}"
    );
    // The same output, live: works.
    let ok = small.input(&l).unwrap();
    launch(&cfg(1, 32, 0), || axpc_batch(ok, yp, 1.0, 0.0)).unwrap();
    let _ = Out::new(TensorParam::<f32, _, _>::new(out.address(), 16, &l).unwrap());
}

// ---------------------------------------------------------------------------------------------
// local_tile_full.

#[test]
fn local_tile_full_takes_whole_tiles_and_faults_on_a_cut_one() {
    let words: Vec<u32> = (0..16 * 12).map(|i| 7 * i + 1).collect();
    let buf = DeviceBuffer::from_slice(&words);
    let t = GlobalTensor::new(buf.gmem(), make_layout((16u32, 12u32), (C::<1>, 16u32)).unwrap()).unwrap();
    let mut out = DeviceBuffer::<u32>::zeros(16 * 12);
    let g = out.gmem_mut();
    let grid = LaunchConfig { grid: Dim3::xy(4, 3), block: Dim3::x(16), dynamic_smem_bytes: 0 };
    launch(&grid, || {
        let (b, th) = (block_idx(), thread_idx().x);
        let tile = t.local_tile_full((C::<4>, C::<4>), (b.x, b.y));
        assert_eq!(tile.origin(), (4 * b.x as usize, 4 * b.y as usize));
        let (i, j) = (th % 4, th / 4);
        g.store((4 * b.x + i + 16 * (4 * b.y + j)) as usize, tile.load((i, j)).unwrap());
    })
    .unwrap();
    assert_eq!(out.to_vec(), words);
    // 14 x 12 in 4 x 4 tiles: the tiles of block row 3 are cut (2 rows).
    let cut = GlobalTensor::new(buf.gmem(), make_layout((14u32, 12u32), (C::<1>, 16u32)).unwrap()).unwrap();
    let r = launch(&LaunchConfig { block: Dim3::x(1), ..grid }, || {
        let b = block_idx();
        let _ = cut.local_tile_full((C::<4>, C::<4>), (b.x, b.y));
    });
    match r {
        Err(EmuError::Thread { block, message, .. }) => {
            assert_eq!((block.x, block.y), (3, 0), "{message}");
            assert!(
                message.contains(
                    "local_tile_full: the tile is not whole (the grid does not cover the tensor exactly)"
                ),
                "{message}"
            );
        }
        other => panic!("not reported: {other:?}"),
    }
    // local_tile gives that tile predicated.
    let Tiled::Partial(p) = cut.local_tile((C::<4>, C::<4>), (3, 1)) else { panic!("a cut tile") };
    assert_eq!(p.residue(), (2, 4));
    assert_eq!(p.load((1, 3)), Some(words[13 + 16 * 7]));
    assert_eq!(p.load((2, 0)), None);
    assert!(cut.local_tile_as::<Full, 4, 4>((C, C), (3, 1)).is_none());
}

// ---------------------------------------------------------------------------------------------
// The layer probe: the kernel the GPU runs (`tools/gpu/layer_probe.py`), on the emulator, against
// the same expected values.

const_layout_device::kernel! {
    /// The device layer's [`layer_probe`](const_layout_device::layer_probe::layer_probe):
    /// warp shuffles, votes and reductions, fast math, atomics, named barriers, a rank-3
    /// slice and a swizzled shared tensor, each written to `out`, `blocks`, `math` and
    /// `atomics` for `tools/gpu/layer_probe.py` to check. The launch: `BLOCKS` blocks of
    /// `THREADS` threads; `input` holds `TOTAL` words, `xs` `MATH_N` `f32`, `batch`
    /// `BATCH_WORDS` words, `out` `TOTAL * RECORD` words, `blocks` `BLOCKS * BLOCK_RECORD`
    /// words, `math` `MATH_FNS * MATH_N` `f32` and `atomics` `3 * 16` words initialized as
    /// the module says: 16-byte aligned device allocations, the outputs overlapping nothing.
    #[entry(LAYER_PROBE)]
    pub fn layer_probe(input: u64, xs: u64, batch: u64, out: u64, blocks: u64, math: u64, atomics: u64) {
        use const_layout_device::layer_probe as p;
        // SAFETY: the launch contract above: each address a live, 16-byte aligned allocation of
        // the given length, the inputs unwritten, the outputs (and the three disjoint, 64-byte
        // apart parts of `atomics`) overlapping nothing else.
        let (input, xs, batch, out, blocks, math, au, ai, af) = unsafe {
            (
                Gmem::<u32>::from_raw(input, p::TOTAL),
                Gmem::<f32>::from_raw(xs, p::MATH_N),
                Gmem::<u32>::from_raw(batch, p::BATCH_WORDS),
                GmemMut::<u32>::from_raw(out, p::TOTAL * p::RECORD),
                GmemMut::<u32>::from_raw(blocks, p::BLOCKS as usize * p::BLOCK_RECORD),
                GmemMut::<f32>::from_raw(math, p::MATH_FNS * p::MATH_N),
                GmemMut::<u32>::from_raw(atomics, 16),
                GmemMut::<i32>::from_raw(atomics + 64, 16),
                GmemMut::<f32>::from_raw(atomics + 128, 16),
            )
        };
        let smem: SmemRegion = static_shared!(layer_probe_smem, const_layout_device::layer_probe::SMEM_BYTES);
        p::layer_probe(p::Inputs { input, xs, batch }, p::Outputs { out, blocks, math, au, ai, af }, smem)
    }
}

/// The math inputs of the probe: edge cases, then values of every function's domain.
fn probe_math_inputs(rng: &mut Rng) -> Vec<f32> {
    use const_layout_device::layer_probe::MATH_N;
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let mut xs = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        0.5,
        4.0,
        0.25,
        3.0,
        10.0,
        -10.0,
        100.0,
        1e-30,
        -1e-30,
        1e30,
        -1e30,
        inf,
        -inf,
        nan,
        128.0,
        -126.0,
        -130.0,
        20.0,
        -20.0,
        88.0,
        -87.0,
        1.0 + f32::EPSILON,
        1.0 - f32::EPSILON / 2.0,
    ];
    while xs.len() < MATH_N {
        xs.push(match xs.len() % 4 {
            0 => rng.uniform(-20.0, 20.0) as f32,
            1 => rng.magnitude(-40.0, 40.0, true),
            2 => rng.uniform(0.5, 2.0) as f32,
            _ => rng.uniform(-130.0, 130.0) as f32,
        });
    }
    xs
}

/// What the probe must have written (see `const_layout_device::layer_probe`): one line a
/// mismatch.
#[allow(clippy::too_many_arguments)]
fn probe_mismatches(
    input: &[u32],
    xs: &[f32],
    batch: &[u32],
    out: &[u32],
    blocks: &[u32],
    math_out: &[f32],
    atomics: &[u32],
) -> Vec<String> {
    use const_layout_device::layer_probe::*;
    let bad = std::cell::RefCell::new(Vec::new());
    let expect = |ok: bool, what: String| {
        if !ok {
            bad.borrow_mut().push(what);
        }
    };
    let threads = THREADS as usize;
    for gid in 0..TOTAL {
        let (lane, base, tid, block) = (gid % 32, gid / 32 * 32, gid % threads, gid / threads);
        let got = |k: usize| out[gid * RECORD + k];
        let rec = |k: usize, want: u32, what: &str| {
            expect(got(k) == want, format!("thread {gid}: {what}: {:#x}, not {want:#x}", got(k)));
        };
        for (k, b) in SHFL_B.into_iter().enumerate() {
            for (mode, name) in ["xor", "down", "up", "idx"].into_iter().enumerate() {
                rec(
                    R_SHFL + 6 * mode + k,
                    input[base + shfl_source(mode, lane, b)],
                    &format!("shfl {name} {b}"),
                );
            }
        }
        rec(R_SHFL + 24, input[base + (7 * lane + 3) % 32], "shfl idx by lane");
        rec(R_SHFL + 25, input[base + (lane ^ ((5 * lane) % 32))], "shfl xor by lane");
        let warp = &input[base..base + 32];
        rec(R_VOTE, (0..32).fold(0, |m, l| m | (warp[l] & 1) << l), "ballot");
        rec(R_VOTE + 1, warp.iter().all(|w| w & 15 != 0) as u32, "all");
        rec(R_VOTE + 2, warp.iter().any(|w| w & 63 == 0) as u32, "any");
        rec(R_VOTE + 3, u32::MAX, "active mask");
        for (m, mask) in REDUCE_MASKS.into_iter().enumerate() {
            let g: Vec<u32> = group(lane, mask).map(|l| input[base + l]).collect();
            let f = |w: &u32| f32_of(*w);
            let at = R_REDUCE + 9 * m;
            let what = |s: &str| format!("allreduce_lanes::<{mask:#07b}> {s}");
            rec(at, g.iter().fold(0u32, |a, &w| a.wrapping_add(w)), &what("Sum u32"));
            rec(at + 1, g.iter().fold(0i32, |a, &w| a.wrapping_add(w as i32)) as u32, &what("Sum i32"));
            rec(at + 2, (g.iter().map(|w| f(w) as f64).sum::<f64>() as f32).to_bits(), &what("Sum f32"));
            rec(at + 3, *g.iter().max().unwrap(), &what("Max u32"));
            rec(at + 4, g.iter().map(|&w| w as i32).max().unwrap() as u32, &what("Max i32"));
            rec(at + 5, g.iter().map(f).fold(f32::NEG_INFINITY, f32::max).to_bits(), &what("Max f32"));
            rec(at + 6, *g.iter().min().unwrap(), &what("Min u32"));
            rec(at + 7, g.iter().map(|&w| w as i32).min().unwrap() as u32, &what("Min i32"));
            rec(at + 8, g.iter().map(f).fold(f32::INFINITY, f32::min).to_bits(), &what("Min f32"));
        }
        let blk = &input[block * threads..(block + 1) * threads];
        rec(R_BLOCK, (blk.iter().map(|&w| f32_of(w) as f64).sum::<f64>() as f32).to_bits(), "block Sum f32");
        rec(R_BLOCK + 1, blk.iter().fold(0u32, |a, &w| a.wrapping_add(w)), "block Sum u32");
        rec(R_BLOCK + 2, blk.iter().map(|&w| w as i32).max().unwrap() as u32, "block Max i32");
        rec(R_BLOCK + 3, *blk.iter().min().unwrap(), "block Min u32");
        let a: Vec<u32> = (0..32).map(|l| blk[l].wrapping_mul(3).wrapping_add(1)).collect();
        let sum_a = a.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        let sum_b = (0..32).fold(0u32, |s, l| s.wrapping_add(a[l] ^ blk[32 + l]));
        rec(R_NAMED, if tid < 32 { 0 } else { sum_a }, "named barrier 1's data");
        rec(R_NAMED + 1, if tid / 32 == 2 { sum_b } else { 0 }, "named barrier 2's data");
        let (i, j, k) = (gid % 6, gid / 6 % 5, gid / 30);
        let want = if k < 3 { batch[i + 8 * j + 44 * k] } else { u32::MAX };
        rec(R_SLICE, want, "slice_last");
        rec(R_SLICE + 1, want, "slice_first");
        for k in 0..8 {
            let e = tid + threads * k;
            rec(R_SWIZZLE + k, (block as u32) << 16 | ((e % 32) * 32 + e / 32) as u32, "swizzled tensor");
        }
    }
    // Atomics: the words of a set of threads, from `init`; `olds` at the record's offset `old`.
    let check_atomics =
        |u: &[u32], i: &[u32], f: &[u32], ids: std::ops::Range<usize>, old: usize, what: &str| {
            let ws = &input[ids.clone()];
            let words = |x: &[u32]| x.to_vec();
            let want_u = [
                ws.iter().fold(0u32, |a, &w| a.wrapping_add(w & 0xffff)),
                ws.iter().fold(0u32, |a, &w| a.wrapping_add(w & 0xff)),
                *ws.iter().max().unwrap(),
                *ws.iter().min().unwrap(),
                u[4],
                ws.iter().map(|&w| hash(w)).max().unwrap(),
                ws.len() as u32,
            ];
            let want_i = [
                ws.iter().fold(0i32, |a, &w| a.wrapping_add(w as i32 >> 16)),
                ws.iter().fold(0i32, |a, &w| a.wrapping_add(w as i32 >> 20)),
                ws.iter().map(|&w| w as i32).max().unwrap(),
                ws.iter().map(|&w| w as i32).min().unwrap(),
                i[4] as i32,
                ws.iter().map(|&w| hash(w) as i32).max().unwrap(), // from i32::MIN
            ];
            let want_f = [
                ws.iter().map(|&w| (w >> 24) as f32 * 0.25).sum::<f32>(),
                ws.iter().map(|&w| ((w >> 16) & 0xff) as f32 * 0.5).sum::<f32>(),
            ];
            for k in 0..16 {
                let wu = want_u.get(k).copied().unwrap_or(0);
                let wi = want_i.get(k).copied().unwrap_or(0) as u32;
                let wf = want_f.get(k).copied().unwrap_or(0.0).to_bits();
                expect(u[k] == wu, format!("{what}: u32 word {k} is {:#x}, not {wu:#x}", u[k]));
                expect(i[k] == wi, format!("{what}: i32 word {k} is {}, not {}", i[k] as i32, wi as i32));
                expect(
                    f[k] == wf,
                    format!("{what}: f32 word {k} is {}, not {}", f32::from_bits(f[k]), f32::from_bits(wf)),
                );
            }
            let pick = |k: usize| ids.clone().map(|g| out[g * RECORD + old + k]).collect::<Vec<_>>();
            let n = ids.len() as u32;
            let mut chain = words(&pick(0));
            chain.push(u[4]);
            chain.sort_unstable();
            expect(
                chain == (0..=n).collect::<Vec<_>>(),
                format!("{what}: the u32 exchanges lost or repeated a value"),
            );
            let mut tickets = pick(1);
            tickets.sort_unstable();
            expect(tickets == (0..n).collect::<Vec<_>>(), format!("{what}: the CAS tickets are not 0..{n}"));
            let mut chain: Vec<i32> = pick(2).into_iter().map(|x| x as i32).chain([i[4] as i32]).collect();
            chain.sort_unstable();
            expect(
                chain == (-(n as i32)..=0).collect::<Vec<_>>(),
                format!("{what}: the i32 exchanges lost or repeated a value"),
            );
        };
    check_atomics(&atomics[..16], &atomics[16..32], &atomics[32..48], 0..TOTAL, R_ATOMIC, "global atomics");
    for b in 0..BLOCKS as usize {
        let r = &blocks[b * BLOCK_RECORD..(b + 1) * BLOCK_RECORD];
        check_atomics(
            &r[..16],
            &r[16..32],
            &r[32..48],
            b * threads..(b + 1) * threads,
            R_ATOMIC + 3,
            &format!("block {b}'s shared atomics"),
        );
        expect(
            r[48] == 0,
            format!("block {b}: the swizzled tensor is {} bytes past a 1024-byte boundary", r[48]),
        );
    }
    for (f, (name, _, exact, bound)) in MATH.into_iter().enumerate() {
        for i in 0..MATH_N {
            let (x, y, z) = (xs[i], xs[(i + 1) % MATH_N], xs[(i + 2) % MATH_N]);
            let got = math_out[f * MATH_N + i];
            let ok = match name {
                "div_approx" if !(2f32.powi(-126)..=2f32.powi(126)).contains(&y.abs()) => true,
                "fma" => {
                    got.to_bits() == x.mul_add(y, z).to_bits() || (got.is_nan() && x.mul_add(y, z).is_nan())
                }
                _ => within(bound, x, got, exact(x as f64, y as f64, z as f64)),
            };
            expect(ok, format!("{name}({x}, {y}, {z}) = {got}"));
        }
    }
    bad.into_inner()
}

#[test]
fn the_layer_probe_matches_the_host_model() {
    use const_layout_device::layer_probe::*;
    let mut rng = Rng(0x5eed_000d);
    let mut input: Vec<u32> = (0..TOTAL).map(|_| rng.u32()).collect();
    // A warp whose every `w & 15` is nonzero (`all`), one with a `w & 63` zero (`any`).
    input[32..64].iter_mut().for_each(|w| *w |= 1);
    input[64 + 5] &= !63;
    let xs = probe_math_inputs(&mut rng);
    let batch: Vec<u32> = (0..BATCH_WORDS).map(|_| rng.u32()).collect();
    let init: Vec<u32> = (0..48)
        .map(|k| match (k / 16, k % 16) {
            (0, j) if j < ATOMIC_WORDS => ATOMIC_INIT_U32[j],
            (1, j) if j < ATOMIC_WORDS => ATOMIC_INIT_I32[j] as u32,
            _ => 0,
        })
        .collect();
    let (ib, xb, bb, ab) = (
        DeviceBuffer::from_slice(&input),
        DeviceBuffer::from_slice(&xs),
        DeviceBuffer::from_slice(&batch),
        DeviceBuffer::from_slice(&init),
    );
    let out = DeviceBuffer::<u32>::zeros(TOTAL * RECORD);
    let blocks = DeviceBuffer::<u32>::zeros(BLOCKS as usize * BLOCK_RECORD);
    let math_out = DeviceBuffer::<f32>::zeros(MATH_FNS * MATH_N);
    launch(&cfg(BLOCKS, THREADS, 0), || {
        crate::layer_probe(
            ib.address(),
            xb.address(),
            bb.address(),
            out.address(),
            blocks.address(),
            math_out.address(),
            ab.address(),
        )
    })
    .unwrap();
    const { assert!(SMEM_BYTES <= 48 * 1024 && SMEM_BYTES >= 4096 + 1008) };
    assert_eq!((LAYER_PROBE.name(), LAYER_PROBE.params().len()), ("layer_probe", 7));
    // For `tools/gpu/layer_probe.py --emulated DIR`: the same run through the script's model.
    if let Ok(dir) = std::env::var("LAYER_PROBE_DUMP") {
        let words = |name: &str, w: Vec<u32>| {
            let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            std::fs::write(format!("{dir}/{name}.bin"), bytes).unwrap();
        };
        let floats = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        std::fs::create_dir_all(&dir).unwrap();
        words("input", input.clone());
        words("xs", floats(xs.clone()));
        words("batch", batch.clone());
        words("out", out.to_vec());
        words("blocks", blocks.to_vec());
        words("atomics", ab.to_vec());
        words("math", floats(math_out.to_vec()));
    }
    let bad = probe_mismatches(
        &input,
        &xs,
        &batch,
        &out.to_vec(),
        &blocks.to_vec(),
        &math_out.to_vec(),
        &ab.to_vec(),
    );
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
    // The model finds a wrong word.
    let mut wrong = out.to_vec();
    wrong[R_REDUCE + 2] ^= 1;
    assert_eq!(
        probe_mismatches(&input, &xs, &batch, &wrong, &blocks.to_vec(), &math_out.to_vec(), &ab.to_vec())
            .len(),
        1
    );
}

// ---------------------------------------------------------------------------------------------
// Tensors of any rank: access and slices by any coordinate the layout takes.

#[test]
fn rank_5_and_nested_tensors_read_write_and_slice_by_any_coordinate() {
    use const_layout::tensor::Keep;
    let mut rng = Rng(0x5eed_0015);
    for case in 0..10 {
        let ext: [usize; 5] = core::array::from_fn(|_| 1 + rng.below(3) as usize);
        // Strides that pad: each at least the span of the modes before it.
        let mut d = [0usize; 5];
        let mut span = 1usize;
        for k in 0..5 {
            d[k] = span + rng.below(3) as usize;
            span = d[k] * ext[k];
        }
        let e = ext.map(|x| x as u32);
        let s = d.map(|x| x as u32);
        let layout = make_layout((e[0], e[1], e[2], e[3], e[4]), (s[0], s[1], s[2], s[3], s[4])).unwrap();
        let cosize = offset(ext.map(|x| x as u32 - 1), d) + 1;
        let words: Vec<u32> = (0..cosize).map(|_| rng.u32()).collect();
        let mut buf = DeviceBuffer::from_slice(&words);
        let t = GlobalTensor::new(buf.gmem(), layout).unwrap();
        let what = format!("case {case}: {layout}");
        for c in coords(ext) {
            let crd = (c[0], c[1], c[2], c[3], c[4]);
            assert_eq!(t.load_coord(crd), Some(words[offset(c, d)]), "{what} {c:?}");
        }
        for k in 0..5 {
            let mut c = [0u32; 5];
            c[k] = e[k] + rng.below(2);
            assert_eq!(t.load_coord((c[0], c[1], c[2], c[3], c[4])), None, "{what} {c:?}");
        }
        // A slice keeping modes 1 and 3 at every fixed coordinate: CuTe's t(i, _, j, _, k).
        for [i, j, k] in coords([ext[0], ext[2], ext[4]]) {
            let m = t.slice((i, Keep, j, Keep, k)).unwrap();
            for [a, b] in coords([ext[1], ext[3]]) {
                assert_eq!(m.load_coord((a, b)), t.load_coord((i, a, j, b, k)), "{what} ({i},_,{j},_,{k})");
            }
            assert_eq!(m.load_coord((e[1], 0u32)), None);
        }
        assert!(t.slice((e[0], Keep, 0u32, Keep, 0u32)).is_none(), "{what}");
        // Stores by coordinate: every element its index, nothing else written.
        let tm = GlobalTensor::new(buf.gmem_mut(), layout).unwrap();
        let mut want = words.clone();
        for (n, c) in coords(ext).enumerate() {
            tm.store_coord((c[0], c[1], c[2], c[3], c[4]), n as u32);
            want[offset(c, d)] = n as u32;
        }
        tm.store_coord((e[0], 0u32, 0u32, 0u32, 0u32), 0xdead);
        assert_eq!(buf.to_vec(), want, "{what}: stores");
    }
    // Nested modes: a coordinate per mode (an integer splits inside a nested one) or per integer.
    let words: Vec<u32> = (0..64).collect();
    let buf = DeviceBuffer::from_slice(&words);
    let l = make_layout(((2u32, 4u32), 8u32), ((C::<1>, 16u32), 2u32)).unwrap();
    let t = GlobalTensor::new(buf.gmem(), l).unwrap();
    for (i, j) in (0..8u32).flat_map(|i| (0..8u32).map(move |j| (i, j))) {
        let want = words[((i % 2) + 16 * (i / 2) + 2 * j) as usize];
        assert_eq!(t.load_coord((i, j)), Some(want));
        assert_eq!(t.load_coord(((i % 2, i / 2), j)), Some(want));
        assert_eq!(t.load_coord(i + 8 * j), Some(want));
    }
    assert_eq!(t.load_coord(64u32), None);
}
