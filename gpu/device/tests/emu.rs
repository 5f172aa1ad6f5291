//! The emulator's promises: barriers order shared memory, races and faults are reported with the
//! block and thread, exited threads do not hold barriers, warp collectives follow PTX.

use const_layout::{C, make_layout};
use const_layout_device::DeviceTensor;
use const_layout_device::emu::{EmuError, LaunchConfig, launch};
use const_layout_device::{
    Dim3, Full, GlobalTensor, Gmem, GmemMut, HalfKind, Partial, SmemRegion, Thread, block_idx,
    cp_async_commit, cp_async_wait, f32_to_half, half_to_f32, mma_m16n8k16_f32, sync_threads, thread_idx,
};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

fn cfg(blocks: u32, threads: u32, smem: u32) -> LaunchConfig {
    LaunchConfig { grid: Dim3::x(blocks), block: Dim3::x(threads), dynamic_smem_bytes: smem }
}

fn words(n: usize, f: impl Fn(usize) -> u32) -> Vec<AtomicU32> {
    (0..n).map(|i| AtomicU32::new(f(i))).collect()
}

#[test]
fn a_barrier_orders_shared_memory() {
    let out = words(4 * 128, |_| 0);
    let g = GmemMut::<u32>::from_cells(&out);
    launch(&cfg(4, 128, 512), || {
        let s = SmemRegion::dynamic().array::<u32, 128>(0).unwrap();
        let (t, b) = (thread_idx().x as usize, block_idx().x as usize);
        s.store(t, (b * 1000 + t) as u32);
        sync_threads();
        // Every thread reads what its neighbour wrote; then everyone overwrites after a barrier.
        let v = s.load((t + 1) % 128);
        sync_threads();
        s.store(t, 0);
        g.store(b * 128 + t, v);
    })
    .unwrap();
    for b in 0..4 {
        for t in 0..128 {
            assert_eq!(out[b * 128 + t].load(Relaxed), (b * 1000 + (t + 1) % 128) as u32);
        }
    }
}

#[test]
fn a_missing_barrier_is_a_reported_race() {
    // Read after another thread's write with no barrier between.
    let e = launch(&cfg(1, 64, 256), || {
        let s = SmemRegion::dynamic().array::<u32, 64>(0).unwrap();
        let t = thread_idx().x as usize;
        s.store(t, 1);
        if t == 0 {
            // Give the writers time: the race is detected whatever the order.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = s.load((t + 1) % 64);
    })
    .unwrap_err();
    assert!(e.to_string().contains("shared-memory race"), "{e}");
    // Write after another thread's read (the second barrier of a double-buffered loop, missing).
    let e = launch(&cfg(1, 64, 256), || {
        let s = SmemRegion::dynamic().array::<u32, 64>(0).unwrap();
        let t = thread_idx().x as usize;
        s.store(t, 1);
        sync_threads();
        let _ = s.load((t + 1) % 64);
        if t == 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        s.store(t, 2);
    })
    .unwrap_err();
    assert!(e.to_string().contains("shared-memory race"), "{e}");
}

#[test]
fn uninitialized_shared_memory_is_a_nan() {
    let out = words(1, |_| 0);
    let g = GmemMut::<f32>::from_cells(&out);
    launch(&cfg(1, 1, 64), || g.store(0, SmemRegion::dynamic().array::<f32, 16>(0).unwrap().load(3)))
        .unwrap();
    assert!(f32::from_bits(out[0].load(Relaxed)).is_nan());
}

#[test]
fn faults_and_panics_name_block_and_thread() {
    let e = launch(&cfg(3, 32, 64), || {
        let s = SmemRegion::dynamic().array::<u32, 16>(0).unwrap();
        if block_idx().x == 2 && thread_idx().x == 5 {
            s.store(16 + thread_idx().x as usize, 0);
        }
    })
    .unwrap_err();
    match e {
        EmuError::Thread { block, thread, message } => {
            assert_eq!((block.x, thread.x), (2, 5));
            assert!(message.contains("out of bounds"), "{message}");
        }
        other => panic!("{other}"),
    }
    let e = launch(&cfg(1, 1, 0), || panic!("boom")).unwrap_err();
    assert!(e.to_string().contains("boom"));
}

#[test]
fn exited_threads_do_not_hold_the_barrier() {
    let out = words(64, |_| 0);
    let g = GmemMut::<u32>::from_cells(&out);
    launch(&cfg(2, 64, 0), || {
        let t = thread_idx().x as usize;
        if t >= 32 {
            return;
        }
        sync_threads();
        sync_threads();
        g.store(t + 32 * block_idx().x as usize, 1);
    })
    .unwrap();
    assert_eq!(out.iter().filter(|w| w.load(Relaxed) == 1).count(), 64);
}

#[test]
fn bad_geometry_is_an_error() {
    assert!(matches!(launch(&cfg(0, 32, 0), || ()), Err(EmuError::Config(_))));
    assert!(matches!(launch(&cfg(1, 2048, 0), || ()), Err(EmuError::Config(_))));
    assert!(matches!(launch(&cfg(1, 32, 1 << 20), || ()), Err(EmuError::Config(_))));
    let e = launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::xy(32, 2), dynamic_smem_bytes: 0 }, || {
        Thread::<32>::index();
    })
    .unwrap_err();
    assert!(e.to_string().contains("thread count"), "{e}");
}

#[test]
fn tiles_predicate_their_residue_and_copy_asynchronously() {
    // A 10x6 column-major tensor in 8x4 tiles, copied through shared memory with cp.async.
    let src = words(60, |i| i as u32 + 1);
    let out = words(4 * 32, |_| u32::MAX);
    let a = GlobalTensor::new(
        Gmem::<u32>::from_cells(&src),
        make_layout((10u32, 6u32), (C::<1>, 10u32)).unwrap(),
    )
    .unwrap();
    let g = GmemMut::<u32>::from_cells(&out);
    launch(&LaunchConfig { grid: Dim3::xy(2, 2), block: Dim3::x(32), dynamic_smem_bytes: 128 }, || {
        let (b, t) = (block_idx(), thread_idx().x as usize);
        let s = SmemRegion::dynamic().array::<u32, 32>(0).unwrap();
        let tile = a.local_tile_as::<Partial, 8, 4>((C, C), (b.x, b.y)).unwrap();
        tile.copy_async(((t % 8) as u32, (t / 8) as u32), s, t);
        cp_async_commit();
        cp_async_wait::<0>();
        sync_threads();
        g.store(32 * (b.x + 2 * b.y) as usize + t, s.load(t));
        // Full is refused for a cut tile, granted for a whole one.
        assert_eq!(a.local_tile_as::<Full, 8, 4>((C, C), (b.x, b.y)).is_some(), (b.x, b.y) == (0, 0));
    })
    .unwrap();
    for (tile, (bx, by)) in [(0usize, (0, 0)), (1, (1, 0)), (2, (0, 1)), (3, (1, 1))] {
        for t in 0..32 {
            let (i, j) = (8 * bx + t % 8, 4 * by + t / 8);
            let want = if i < 10 && j < 6 { (i + 10 * j + 1) as u32 } else { 0 };
            assert_eq!(out[32 * tile + t].load(Relaxed), want, "tile {tile} thread {t}");
        }
    }
}

#[test]
fn ldmatrix_follows_the_ptx_fragment_layout() {
    // Four 8x8 matrices of 16-bit values m * 64 + r * 8 + c, row-major, one 16-byte row each.
    let out = words(32 * 8, |_| 0);
    let g = GmemMut::<u32>::from_cells(&out);
    launch(&cfg(1, 32, 512), || {
        let lane = thread_idx().x as usize;
        let s = SmemRegion::dynamic().array::<u32, 128>(0).unwrap();
        for w in 0..4 {
            let e = 8 * lane + 2 * w; // the two 16-bit values of word w of row `lane`
            s.store(4 * lane + w, (e as u32) | ((e as u32 + 1) << 16));
        }
        sync_threads();
        // Lane 8 m + r points at row r of matrix m: row 8 m + r of the buffer.
        let plain = s.ldmatrix_x4(4 * lane, false);
        let trans = s.ldmatrix_x4(4 * lane, true);
        for k in 0..4 {
            g.store(8 * lane + k, plain[k]);
            g.store(8 * lane + 4 + k, trans[k]);
        }
    })
    .unwrap();
    let half = |w: u32, hi: bool| if hi { w >> 16 } else { w & 0xffff };
    for lane in 0..32u32 {
        let (r, c) = (lane / 4, 2 * (lane % 4));
        for m in 0..4u32 {
            let p = out[(8 * lane + m) as usize].load(Relaxed);
            assert_eq!((half(p, false), half(p, true)), (m * 64 + r * 8 + c, m * 64 + r * 8 + c + 1));
            let t = out[(8 * lane + 4 + m) as usize].load(Relaxed);
            assert_eq!((half(t, false), half(t, true)), (m * 64 + c * 8 + r, m * 64 + (c + 1) * 8 + r));
        }
    }
}

#[test]
fn a_tile_seen_from_a_coordinate_keeps_its_bounds() {
    // A 10x6 column-major tensor, 128-bit access along mode 0 (extent 10 is not a multiple of 4,
    // so it stays element-wise); the tile (1, 1) of 8x4 is cut to 2x2.
    let words = words(60, |i| i as u32);
    let a = GlobalTensor::new(
        Gmem::<u32>::from_cells(&words),
        make_layout((10u32, 6u32), (C::<1>, 10u32)).unwrap(),
    )
    .unwrap();
    let whole = a.local_tile_as::<Full, 8, 4>((C, C), (0, 0)).unwrap();
    let from = whole.from((2, 1));
    assert_eq!(from.origin(), (2, 1));
    assert_eq!(from.residue(), (6, 3));
    assert_eq!(from.load((0, 0)), Some(2 + 10));
    assert_eq!(from.load((5, 2)), Some(7 + 30));
    assert_eq!(from.load((6, 0)), None); // past the tile
    let cut = a.local_tile_as::<Partial, 8, 4>((C, C), (1, 1)).unwrap().from((1, 1));
    assert_eq!(cut.residue(), (1, 1));
    assert_eq!(cut.load((0, 0)), Some(9 + 50));
    assert_eq!(cut.load((1, 0)), None);
    // Seen from outside the tile: nothing is accessible.
    assert_eq!(whole.from((9, 9)).residue(), (0, 0));
    // On a 128-bit tensor, a coordinate that is not a multiple of 4 along the unit-stride mode
    // would misalign the vectors: a fault.
    let v = GlobalTensor::new(
        Gmem::<u32>::from_cells(&words),
        make_layout((8u32, 6u32), (C::<1>, 8u32)).unwrap(),
    )
    .unwrap()
    .vectorized()
    .unwrap();
    let e = launch(&cfg(1, 1, 0), || {
        let t = v.local_tile_as::<Full, 8, 4>((C, C), (0, 0)).unwrap();
        assert_eq!(t.from((4, 1)).load4((0, 0)), Some([12, 13, 14, 15]));
        let _ = t.from((2, 0));
    })
    .unwrap_err();
    assert!(e.to_string().contains("not a multiple of 4"), "{e}");
}

/// Small integers as 16 bits of the given kind (exact).
fn half_bits(kind: HalfKind, v: i32) -> u32 {
    f32_to_half(kind, v as f32) as u32
}

fn a_val(m: usize, k: usize) -> i32 {
    ((3 * m + k) % 7) as i32 - 3
}
fn b_val(n: usize, k: usize) -> i32 {
    ((n + 2 * k) % 5) as i32 - 2
}
fn c_val(m: usize, n: usize) -> f32 {
    m as f32 - n as f32
}
fn d_want(m: usize, n: usize) -> f32 {
    (0..16).map(|k| a_val(m, k) * b_val(n, k)).sum::<i32>() as f32 + c_val(m, n)
}

#[test]
fn mma_follows_the_ptx_fragment_layout() {
    // The fragments built from the PTX ISA's formulas (groupID = lane / 4, threadID_in_group =
    // lane % 4), not from const-layout's atoms, which the emulator reads.
    for kind in [HalfKind::F16, HalfKind::BF16] {
        let out = words(32 * 4, |_| 0);
        let g = GmemMut::<f32>::from_cells(&out);
        launch(&cfg(1, 32, 0), || {
            let lane = thread_idx().x as usize;
            let (group, tig) = (lane / 4, lane % 4);
            let pack = |lo: i32, hi: i32| half_bits(kind, lo) | half_bits(kind, hi) << 16;
            let mut a = [0u32; 4];
            for (r, w) in a.iter_mut().enumerate() {
                let (m, k) = (group + 8 * (r % 2), 2 * tig + 8 * (r / 2));
                *w = pack(a_val(m, k), a_val(m, k + 1));
            }
            let b = [0, 1].map(|r| pack(b_val(group, 2 * tig + 8 * r), b_val(group, 2 * tig + 8 * r + 1)));
            let c = [0, 1, 2, 3].map(|i| c_val(group + 8 * (i / 2), 2 * tig + i % 2));
            let d = mma_m16n8k16_f32(kind, a, b, c);
            for (i, x) in d.iter().enumerate() {
                g.store(4 * lane + i, *x);
            }
        })
        .unwrap();
        for lane in 0..32 {
            for i in 0..4 {
                let (m, n) = (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2);
                let got = f32::from_bits(out[4 * lane + i].load(Relaxed));
                assert_eq!(got, d_want(m, n), "{kind:?} lane {lane} d{i}");
            }
        }
    }
}

#[test]
fn ldmatrix_feeds_mma() {
    // A (16x16) and B (8x16) k-contiguous in shared memory, 16-byte rows; ldmatrix.x4 gives the
    // lanes their A fragments (matrices: rows 0-7 and 8-15 of k 0-7, then of k 8-15) and B's
    // (rows n of k 0-7 and 8-15), which mma.sync consumes as they come.
    let out = words(32 * 4, |_| 0);
    let g = GmemMut::<f32>::from_cells(&out);
    launch(&cfg(1, 32, 1024), || {
        let lane = thread_idx().x as usize;
        let s = SmemRegion::dynamic().array::<u32, 256>(0).unwrap();
        let pack = |lo: i32, hi: i32| half_bits(HalfKind::F16, lo) | half_bits(HalfKind::F16, hi) << 16;
        // Row r of A at words 8 r .. 8 r + 8; row n of B at words 128 + 8 n.
        for w in 0..8 {
            if lane < 16 {
                s.store(8 * lane + w, pack(a_val(lane, 2 * w), a_val(lane, 2 * w + 1)));
            } else if lane < 24 {
                let n = lane - 16;
                s.store(128 + 8 * n + w, pack(b_val(n, 2 * w), b_val(n, 2 * w + 1)));
            }
        }
        sync_threads();
        let (j, r) = (lane / 8, lane % 8);
        // Matrix j of A: rows r + 8 (j % 2), k from 8 (j / 2); of B: row r, k from 8 (j % 2).
        let a = s.ldmatrix_x4(8 * (r + 8 * (j % 2)) + 4 * (j / 2), false);
        let b4 = s.ldmatrix_x4(128 + 8 * r + 4 * (j % 2), false);
        let c = [0, 1, 2, 3].map(|i| c_val(lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2));
        let d = mma_m16n8k16_f32(HalfKind::F16, a, [b4[0], b4[1]], c);
        for (i, x) in d.iter().enumerate() {
            g.store(4 * lane + i, *x);
        }
    })
    .unwrap();
    for lane in 0..32 {
        for i in 0..4 {
            let (m, n) = (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2);
            assert_eq!(f32::from_bits(out[4 * lane + i].load(Relaxed)), d_want(m, n), "lane {lane} d{i}");
        }
    }
}

#[test]
fn the_mma_probe_computes_a_b_transposed_plus_c() {
    // D = A B^T + C, 16x16x16, through ldmatrix and two mma.sync, every index from the atoms.
    use const_layout_device::mma_probe::{SMEM_BYTES, mma_probe};
    for kind in [HalfKind::F16, HalfKind::BF16] {
        let av = |m: usize, k: usize| ((5 * m + 3 * k) % 9) as i32 - 4;
        let bv = |n: usize, k: usize| ((2 * n + 7 * k) % 11) as i32 - 5;
        let pack = |lo: i32, hi: i32| half_bits(kind, lo) | half_bits(kind, hi) << 16;
        let a = words(128, |w| pack(av(w / 8, 2 * (w % 8)), av(w / 8, 2 * (w % 8) + 1)));
        let b = words(128, |w| pack(bv(w / 8, 2 * (w % 8)), bv(w / 8, 2 * (w % 8) + 1)));
        let c = words(256, |i| ((i % 16) as f32 - (i / 16) as f32 * 0.5).to_bits());
        let d = words(256, |_| 0);
        launch(&cfg(1, 32, SMEM_BYTES), || {
            let (ga, gb, gc) =
                (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b), Gmem::<f32>::from_cells(&c));
            mma_probe(32, kind, ga, gb, gc, GmemMut::<f32>::from_cells(&d), SmemRegion::dynamic());
        })
        .unwrap();
        for m in 0..16 {
            for n in 0..16 {
                let want =
                    (0..16).map(|k| av(m, k) * bv(n, k)).sum::<i32>() as f32 + (m as f32 - n as f32 * 0.5);
                assert_eq!(f32::from_bits(d[m + 16 * n].load(Relaxed)), want, "{kind:?} D({m},{n})");
            }
        }
    }
}

#[test]
fn a_collective_in_a_diverged_warp_is_reported() {
    // Half the warp calls ldmatrix in one branch, half in the other: on the GPU each lane traps
    // (its warp is not converged there); the emulator names the two call sites.
    let r = launch(&cfg(1, 32, 512), || {
        let s = SmemRegion::dynamic().array::<u32, 128>(0).unwrap();
        let lane = thread_idx().x as usize;
        s.store(4 * lane, 0);
        sync_threads();
        let v = if lane < 16 { s.ldmatrix_x4(0, false) } else { s.ldmatrix_x4(0, true) };
        let _ = v;
    });
    let Err(EmuError::Thread { message, .. }) = r else { panic!("not reported: {r:?}") };
    assert!(message.contains("ldmatrix in a diverged warp"), "{message}");
    assert!(message.contains("tests/emu.rs"), "{message}");
}

#[test]
fn a_collective_without_the_whole_warp_is_reported() {
    // Lanes 16-31 leave before the mma: lanes 0-15 execute it alone, which traps on the GPU.
    let r = launch(&cfg(1, 32, 0), || {
        if thread_idx().x >= 16 {
            return;
        }
        let _ = mma_m16n8k16_f32(HalfKind::F16, [0; 4], [0; 2], [0.0; 4]);
    });
    let Err(EmuError::Thread { message, .. }) = r else { panic!("not reported: {r:?}") };
    assert!(message.contains("mma.sync in a diverged warp: lane 16 is not there"), "{message}");
}

#[test]
fn the_mma_probe_with_half_a_warp_fails() {
    use const_layout_device::mma_probe::{SMEM_BYTES, mma_probe};
    let (a, b, c, d) = (words(128, |_| 0), words(128, |_| 0), words(256, |_| 0), words(256, |_| 0));
    let r = launch(&cfg(1, 32, SMEM_BYTES), || {
        let (ga, gb, gc) =
            (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b), Gmem::<f32>::from_cells(&c));
        mma_probe(16, HalfKind::F16, ga, gb, gc, GmemMut::<f32>::from_cells(&d), SmemRegion::dynamic());
    });
    let Err(EmuError::Thread { message, .. }) = r else { panic!("not reported: {r:?}") };
    assert!(message.contains("ldmatrix in a diverged warp: lane 16 is not there"), "{message}");
}

#[test]
fn halves_round_trip_and_round_to_nearest_even() {
    for kind in [HalfKind::F16, HalfKind::BF16] {
        for b in 0..=u16::MAX {
            let v = half_to_f32(kind, b);
            if !v.is_nan() {
                assert_eq!(f32_to_half(kind, v), b, "{kind:?} {b:#06x} ({v})");
            }
        }
    }
    // Halfway between 1 and the next half (1 + 2^-10) rounds to even, just above it rounds up.
    assert_eq!(f32_to_half(HalfKind::F16, 1.0 + 2f32.powi(-11)), 0x3c00);
    assert_eq!(f32_to_half(HalfKind::F16, 1.0 + 2f32.powi(-11) + 2f32.powi(-20)), 0x3c01);
    // The least subnormal's half rounds to even (zero), a bit more to it.
    assert_eq!(f32_to_half(HalfKind::F16, 2f32.powi(-25)), 0);
    assert_eq!(f32_to_half(HalfKind::F16, 2f32.powi(-25) * 1.5), 1);
    assert_eq!(f32_to_half(HalfKind::F16, 65520.0), 0x7c00); // rounds past the largest half
    assert!(half_to_f32(HalfKind::BF16, f32_to_half(HalfKind::BF16, f32::NAN)).is_nan());
}

#[test]
fn the_wgmma_probe_computes_a_b_transposed() {
    // D = A B^T, 64x64x64: the tiles written by const-layout's 128-byte swizzled K-major atom, read
    // back by the emulator through the descriptors by the PTX ISA's canonical layout, so the two
    // agree on every element or the product is wrong.
    use const_layout_device::wgmma_probe::{SMEM_BYTES, wgmma_probe};
    for kind in [HalfKind::F16, HalfKind::BF16] {
        let av = |m: usize, k: usize| ((5 * m + 3 * k) % 9) as i32 - 4;
        let bv = |n: usize, k: usize| ((2 * n + 7 * k) % 11) as i32 - 5;
        let pack = |lo: i32, hi: i32| half_bits(kind, lo) | half_bits(kind, hi) << 16;
        let a = words(2048, |w| pack(av(w / 32, 2 * (w % 32)), av(w / 32, 2 * (w % 32) + 1)));
        let b = words(2048, |w| pack(bv(w / 32, 2 * (w % 32)), bv(w / 32, 2 * (w % 32) + 1)));
        let d = words(4096, |_| 0);
        launch(&cfg(1, 128, SMEM_BYTES), || {
            let (ga, gb) = (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b));
            wgmma_probe(kind, ga, gb, GmemMut::<f32>::from_cells(&d), SmemRegion::dynamic());
        })
        .unwrap();
        for m in 0..64 {
            for n in 0..64 {
                let want = (0..64).map(|k| av(m, k) * bv(n, k)).sum::<i32>() as f32;
                assert_eq!(f32::from_bits(d[m + 64 * n].load(Relaxed)), want, "{kind:?} D({m},{n})");
            }
        }
    }
}

/// A 64 x 64 tensor of halves whose element `(r, c)` is `100 r + c`, as words of two.
fn grid_halves(rows: usize, cols: usize) -> Vec<AtomicU32> {
    words(rows * cols / 2, |w| {
        let (r, c) = (w / (cols / 2), 2 * (w % (cols / 2)));
        ((100 * r + c) | (100 * r + c + 1) << 16) as u32
    })
}

#[test]
fn tma_loads_swizzle_128_bytes_and_fill_zeros_outside() {
    use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    use const_layout_device::tma::{Mbarrier, TmaTensor2d};
    // A 64 x 64 box at (40, 0) of a 70 x 64 tensor: rows 30.. of the box are outside (zeros);
    // 16-byte chunk c of box row r lands in chunk c ^ (r % 8) of its 128-byte row.
    let src = grid_halves(70, 64);
    let out = words(2048, |_| 0);
    launch(&cfg(1, 32, 8192 + 1024 + 16), || {
        let smem = SmemRegion::dynamic();
        let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(8192 + 1024).unwrap(), [1]);
        let b = TmaBox { inner: 64, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B128 };
        let t = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&src), 70, 64, 64, b).unwrap();
        let tile = smem.array::<u32, 2048>(0).unwrap();
        if thread_idx().x == 0 {
            bar.arrive_expect_tx(b.bytes());
            t.load(tile, 40, 0, bar);
        }
        bar.wait(0);
        let g = GmemMut::<u32>::from_cells(&out);
        for i in 0..64 {
            let w = thread_idx().x as usize + 32 * i;
            g.store(w, tile.load(w));
        }
    })
    .unwrap();
    for r in 0..64 {
        for c in 0..64 {
            let (chunk, within) = (c / 8, c % 8);
            let at = 64 * r + 8 * (chunk ^ (r % 8)) + within; // in halves
            let word = out[at / 2].load(Relaxed);
            let got = if at % 2 == 0 { word & 0xffff } else { word >> 16 };
            let want = if 40 + r < 70 { (100 * (40 + r) + c) as u32 } else { 0 };
            assert_eq!(got, want, "box ({r},{c})");
        }
    }
}

#[test]
fn a_misaligned_tma_load_fails_the_launch_naming_it() {
    use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    use const_layout_device::tma::{Mbarrier, TmaTensor2d};
    let src = grid_halves(64, 64);
    // A TMA load into a destination the 128-byte swizzle cannot use (not 1024-byte aligned).
    let e = launch(&cfg(1, 1, 8192 + 2048), || {
        let smem = SmemRegion::dynamic();
        let [bar] = Mbarrier::init_block(smem.array::<u32, 2>(0).unwrap(), [1]);
        let b = TmaBox { inner: 64, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B128 };
        let t = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&src), 64, 64, 64, b).unwrap();
        bar.arrive_expect_tx(b.bytes());
        t.load(smem.array::<u32, 2048>(16).unwrap(), 0, 0, bar);
    })
    .unwrap_err();
    assert!(e.to_string().contains("misaligned for its swizzle"), "{e}");
}

#[test]
fn mbarrier_phases_follow_their_parity() {
    use const_layout_device::tma::Mbarrier;
    launch(&cfg(1, 4, 16), || {
        let [bar] = Mbarrier::init_block(SmemRegion::dynamic().array::<u32, 2>(0).unwrap(), [4]);
        // The phase before the first counts as complete: a wait on parity 1 returns at once.
        bar.wait(1);
        bar.arrive();
        bar.wait(0); // all four arrived: phase 0 completed
        bar.arrive();
        bar.wait(1); // and phase 1
    })
    .unwrap();
}
