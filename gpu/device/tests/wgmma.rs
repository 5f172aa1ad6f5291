//! The general `wgmma` interface (`wgmma::Batch`) on the emulator: random `f16`/`bf16` operands
//! against a CPU reference, for A from shared memory (SS) and from registers (RS), N = 64, 128,
//! 256, B K-major and MN-major, `scale_d` both ways, two warpgroups at once; and the failures the
//! emulator reports (a diverged warpgroup, an operand overwritten before its wait, a
//! `begin_tma` after a thread's unfenced shared write).
//!
//! The shared tiles are written as TMA writes them (`Swizzle<3,4,3>` on byte addresses, 128-byte
//! rows), not through the emulator's descriptor decoding, so a wrong descriptor fails here.

#![allow(clippy::needless_range_loop)] // matrix indices, as the references write them

use const_layout::algebra::computed::StaticLayout;
use const_layout::atom::gmma::{ALayout_64x16, CLayout_64xN};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::wgmma::{self, Accumulators, SmemDesc};
use const_layout_device::{Dim3, Gmem, GmemMut, HalfKind, SmemRegion, f32_to_half, half_to_f32, thread_idx};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The logical K of the problems: two k tiles of 64 (a head dim of 128).
const KT: usize = 128;
/// The k blocks (of 16) the tests multiply over: one in each k tile, not the first.
const KBS: [usize; 2] = [2, 5];
/// A: 128 rows (64 a warpgroup) x KT, K-major, at shared byte 0; B at byte `B_AT`.
const A_WORDS: usize = 128 * KT / 2;
const B_AT: usize = 4 * A_WORDS;
/// B's array: room for N = 256 rows x KT.
const B_WORDS: usize = 256 * KT / 2;

/// A small pseudo-random generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A random value of `kind`, in [-2, 2), and its bits.
    fn half(&mut self, kind: HalfKind) -> (f32, u16) {
        let x = (self.next() % 4096) as f32 / 1024.0 - 2.0;
        let h = f32_to_half(kind, x);
        (half_to_f32(kind, h), h)
    }
}

/// The byte of element `(r, c)` of K-major 128-byte swizzled k tiles of `rows` rows x 64 halves
/// (c's tile first), as TMA writes a `64 x rows` box with `CU_TENSOR_MAP_SWIZZLE_128B`.
fn k_major_byte(rows: usize, r: usize, c: usize) -> usize {
    (c / 64) * rows * 128 + r * 128 + ((2 * (c % 64)) ^ ((r % 8) << 4))
}

/// The byte of element `(key, dim)` of V's stages: `keys` rows of 64 halves of the head dim a
/// stage, the stages side by side along the head dim (TMA's 128-byte swizzle).
fn v_byte(keys: usize, key: usize, dim: usize) -> usize {
    (dim / 64) * keys * 128 + key * 128 + ((2 * (dim % 64)) ^ ((key % 8) << 4))
}

fn put(img: &mut [u32], byte: usize, h: u16) {
    let w = &mut img[byte / 4];
    *w = if byte.is_multiple_of(4) { *w & 0xffff_0000 | h as u32 } else { *w & 0xffff | (h as u32) << 16 };
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Ss,
    Rs,
}

/// One case: two warpgroups, each `D = A[64 w..64 w + 64] B^T` over the k blocks `KBS` (the
/// first with `scale_d` as given, on `D`'s initial values, NaN when it must be overwritten), checked
/// bit for bit against the reference (each k block's sum exact, rounded to `f32` once, as the
/// emulator defines `wgmma`) and within 1e-5 of the exact product.
fn case<const R: usize>(kind: HalfKind, form: Form, b_mn: bool, scale_d: bool, seed: u64)
where
    (): Accumulators<R>,
{
    let n = 2 * R;
    let mut rng = Rng(seed);
    let a: Vec<Vec<(f32, u16)>> = (0..128).map(|_| (0..KT).map(|_| rng.half(kind)).collect()).collect();
    let b: Vec<Vec<(f32, u16)>> = (0..n).map(|_| (0..KT).map(|_| rng.half(kind)).collect()).collect();
    let c0: Vec<f32> = (0..2 * 64 * n).map(|_| rng.half(kind).0).collect();
    // The shared image: A K-major (128 rows a tile), B K-major (n rows a tile) or as V (KT keys).
    let mut img = vec![0u32; A_WORDS + B_WORDS];
    for (r, row) in a.iter().enumerate() {
        for (c, &(_, h)) in row.iter().enumerate() {
            put(&mut img, k_major_byte(128, r, c), h);
        }
    }
    for (r, row) in b.iter().enumerate() {
        for (c, &(_, h)) in row.iter().enumerate() {
            put(&mut img, B_AT + if b_mn { v_byte(KT, c, r) } else { k_major_byte(n, r, c) }, h);
        }
    }
    // RS: each thread's A fragments for each k block, by ALayout_64x16.
    let al = <ALayout_64x16 as StaticLayout>::LAYOUT;
    let mut frags = vec![0u32; 256 * KBS.len() * 4];
    for t in 0..256 {
        for (i, &kb) in KBS.iter().enumerate() {
            for v in 0..8 {
                let idx = al.offset((t % 128 + 128 * v) as isize) as usize;
                let (m, k) = (64 * (t / 128) + idx % 64, 16 * kb + idx / 64);
                let w = &mut frags[(t * KBS.len() + i) * 4 + v / 2];
                *w |= (a[m][k].1 as u32) << (16 * (v % 2));
            }
        }
    }
    let cells = |v: &[u32]| v.iter().map(|&x| AtomicU32::new(x)).collect::<Vec<_>>();
    let (img_c, frag_c) = (cells(&img), cells(&frags));
    let out: Vec<AtomicU32> = (0..2 * 64 * n).map(|_| AtomicU32::new(0)).collect();
    let smem_bytes = 4 * (A_WORDS + B_WORDS) as u32;
    let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(256), dynamic_smem_bytes: smem_bytes };
    let cl = <CLayout_64xN<64> as StaticLayout>::LAYOUT;
    let cl = match n {
        64 => cl,
        128 => <CLayout_64xN<128> as StaticLayout>::LAYOUT,
        _ => <CLayout_64xN<256> as StaticLayout>::LAYOUT,
    };
    let c_init = |t: usize, v: usize| {
        let idx = cl.offset((t % 128 + 128 * v) as isize) as usize;
        64 * n * (t / 128) + idx
    };
    launch(&cfg, || {
        let smem = SmemRegion::dynamic();
        let (ga, gf, go) = (
            Gmem::<u32>::from_cells(&img_c),
            Gmem::<u32>::from_cells(&frag_c),
            GmemMut::<f32>::from_cells(&out),
        );
        let t = thread_idx().x as usize;
        let (sa, sb) =
            (smem.array::<u32, A_WORDS>(0).unwrap(), smem.array::<u32, B_WORDS>(B_AT as u32).unwrap());
        for w in (t..A_WORDS + B_WORDS).step_by(256) {
            if w < A_WORDS {
                sa.store(w, ga.load(w));
            } else {
                sb.store(w - A_WORDS, ga.load(w));
            }
        }
        const_layout_device::sync_threads();
        let mut d = [0f32; R];
        for (v, x) in d.iter_mut().enumerate() {
            *x = if scale_d { c0[c_init(t, v)] } else { f32::NAN };
        }
        let frag = |i: usize| core::array::from_fn(|j| gf.load((t * KBS.len() + i) * 4 + j));
        let frags: [[u32; 4]; 2] = [frag(0), frag(1)];
        let mut batch = wgmma::begin();
        for (i, &kb) in KBS.iter().enumerate() {
            let bd = if b_mn { SmemDesc::mn_sw128(sb, KT, kb) } else { SmemDesc::k_sw128(sb, n, 0, kb) };
            let sd = scale_d || i > 0;
            match form {
                Form::Ss => {
                    batch.ss_f32(kind, SmemDesc::k_sw128(sa, 128, 64 * (t / 128), kb), bd, sd, &mut d)
                }
                Form::Rs => batch.rs_f32(kind, frags[i], bd, sd, &mut d),
            }
        }
        batch.commit();
        wgmma::wait::<0, R>(&mut d);
        for (v, &x) in d.iter().enumerate() {
            go.store(c_init(t, v), x);
        }
    })
    .unwrap();
    for wg in 0..2 {
        for m in 0..64 {
            for j in 0..n {
                let at = 64 * n * wg + m + 64 * j;
                let mut want = c0[at];
                let mut exact = if scale_d { c0[at] as f64 } else { 0.0 };
                for (i, &kb) in KBS.iter().enumerate() {
                    let s: f64 =
                        (16 * kb..16 * kb + 16).map(|k| a[64 * wg + m][k].0 as f64 * b[j][k].0 as f64).sum();
                    want = if scale_d || i > 0 { (s + want as f64) as f32 } else { s as f32 };
                    exact += s;
                }
                let got = f32::from_bits(out[at].load(Relaxed));
                let what =
                    format!("{kind:?} {form:?} N={n} B {} scale_d={scale_d}", if b_mn { "MN" } else { "K" });
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{what}: D({m}, {j}) of warpgroup {wg}: {got} != {want}"
                );
                assert!(
                    (got as f64 - exact).abs() <= 1e-5 * exact.abs().max(1.0),
                    "{what}: {got} vs {exact}"
                );
            }
        }
    }
}

fn all<const R: usize>(seed: u64)
where
    (): Accumulators<R>,
{
    let mut s = seed;
    for kind in [HalfKind::F16, HalfKind::BF16] {
        for form in [Form::Ss, Form::Rs] {
            for b_mn in [false, true] {
                for scale_d in [false, true] {
                    s += 1;
                    case::<R>(kind, form, b_mn, scale_d, s);
                }
            }
        }
    }
}

#[test]
fn wgmma_n64_every_form_matches_the_reference() {
    all::<32>(100);
}

#[test]
fn wgmma_n128_every_form_matches_the_reference() {
    all::<64>(200);
}

#[test]
fn wgmma_n256_every_form_matches_the_reference() {
    all::<128>(300);
}

fn smem_cfg(threads: u32) -> LaunchConfig {
    LaunchConfig { grid: Dim3::x(1), block: Dim3::x(threads), dynamic_smem_bytes: 16384 }
}

#[test]
fn a_warpgroup_whose_warps_issue_different_wgmmas_fails_the_launch() {
    let e = launch(&smem_cfg(128), || {
        let smem = SmemRegion::dynamic();
        let s = smem.array::<u32, 2048>(0).unwrap();
        let t = thread_idx().x as usize;
        for i in 0..16 {
            s.store(t + 128 * i, 0);
        }
        const_layout_device::sync_threads();
        let mut d = [0f32; 32];
        let mut batch = wgmma::begin();
        let desc = SmemDesc::k_sw128(s, 64, 0, 0);
        if t < 32 {
            batch.ss_f32(HalfKind::F16, desc, desc, false, &mut d);
        } else {
            batch.ss_f32(HalfKind::F16, desc, desc, true, &mut d);
        }
        batch.commit();
        wgmma::wait::<0, 32>(&mut d);
    })
    .unwrap_err();
    assert!(e.to_string().contains("wgmma in a diverged warpgroup"), "{e}");
}

#[test]
fn an_operand_written_before_its_wait_fails_the_launch() {
    let run = |wait_first: bool| {
        launch(&smem_cfg(128), move || {
            let smem = SmemRegion::dynamic();
            let s = smem.array::<u32, 2048>(0).unwrap();
            let t = thread_idx().x as usize;
            for i in 0..16 {
                s.store(t + 128 * i, 0x3c00_3c00);
            }
            const_layout_device::sync_threads();
            let mut d = [0f32; 32];
            let mut batch = wgmma::begin();
            let desc = SmemDesc::k_sw128(s, 64, 0, 1);
            batch.ss_f32(HalfKind::F16, desc, desc, false, &mut d);
            batch.commit();
            if wait_first {
                wgmma::wait::<0, 32>(&mut d);
            }
            const_layout_device::sync_threads();
            if t == 0 {
                s.store(8, 0x4000_4000); // row 0, halves 16 and 17: k block 1
            }
            const_layout_device::sync_threads();
            wgmma::wait::<0, 32>(&mut d);
            assert!(d.iter().all(|&x| x == 16.0));
        })
    };
    let e = run(false).unwrap_err();
    assert!(e.to_string().contains("before wgmma.wait_group retired the group"), "{e}");
    run(true).unwrap();
}

#[test]
fn begin_tma_after_a_thread_s_unfenced_shared_write_fails_the_launch() {
    // Each thread writes its words of the operand; `begin` fences them, `begin_tma` does not.
    let run = |fence_first: bool| {
        launch(&smem_cfg(128), move || {
            let s = SmemRegion::dynamic().array::<u32, 2048>(0).unwrap();
            let t = thread_idx().x as usize;
            for i in 0..16 {
                s.store(t + 128 * i, 0x3c00_3c00);
            }
            const_layout_device::sync_threads();
            let desc = SmemDesc::k_sw128(s, 64, 0, 0);
            let mut d = [0f32; 32];
            let mut batch = if fence_first { wgmma::begin() } else { wgmma::begin_tma() };
            batch.ss_f32(HalfKind::F16, desc, desc, false, &mut d);
            batch.commit();
            wgmma::wait::<0, 32>(&mut d);
            // A second batch on the same words needs no fence.
            let mut batch = wgmma::begin_tma();
            batch.ss_f32(HalfKind::F16, desc, desc, true, &mut d);
            batch.commit();
            wgmma::wait::<0, 32>(&mut d);
            assert!(d.iter().all(|&x| x == 32.0));
        })
    };
    let e = run(false).unwrap_err();
    assert!(e.to_string().contains("wrote shared memory since its last proxy fence"), "{e}");
    run(true).unwrap();
}

#[test]
fn wait_leaves_the_newest_groups_pending() {
    // Two groups; `wait::<1>` retires only the first, so the second's operand may not be written
    // yet, and is written after `wait::<0>`.
    let run = |write_after_wait1: bool| {
        launch(&smem_cfg(128), move || {
            let smem = SmemRegion::dynamic();
            let (s0, s1) = (smem.array::<u32, 2048>(0).unwrap(), smem.array::<u32, 2048>(8192).unwrap());
            let t = thread_idx().x as usize;
            for i in 0..16 {
                s0.store(t + 128 * i, 0x3c00_3c00);
                s1.store(t + 128 * i, 0x3c00_3c00);
            }
            const_layout_device::sync_threads();
            let (mut d0, mut d1) = ([0f32; 32], [0f32; 32]);
            let mut batch = wgmma::begin();
            batch.ss_f32(
                HalfKind::F16,
                SmemDesc::k_sw128(s0, 64, 0, 0),
                SmemDesc::k_sw128(s0, 64, 0, 0),
                false,
                &mut d0,
            );
            batch.commit();
            let mut batch = wgmma::begin();
            batch.ss_f32(
                HalfKind::F16,
                SmemDesc::k_sw128(s1, 64, 0, 0),
                SmemDesc::k_sw128(s1, 64, 0, 0),
                false,
                &mut d1,
            );
            batch.commit();
            wgmma::wait::<1, 32>(&mut d0);
            const_layout_device::sync_threads();
            if t == 0 {
                s0.store(0, 0); // group 0 is retired: allowed
                if write_after_wait1 {
                    s1.store(0, 0); // group 1 may still read it
                }
            }
            const_layout_device::sync_threads();
            wgmma::wait2::<0, 32, 32>(&mut d0, &mut d1);
            assert!(d0.iter().chain(&d1).all(|&x| x == 16.0));
        })
    };
    run(false).unwrap();
    let e = run(true).unwrap_err();
    assert!(e.to_string().contains("group 1"), "{e}");
}

#[test]
fn a_fragment_of_s_is_the_a_operand_of_p_v() {
    // The layouts: value 8 kb + v of CLayout_64xN is value v of ALayout_64x16 at columns 16 kb..
    let al = <ALayout_64x16 as StaticLayout>::LAYOUT;
    let cl = <CLayout_64xN<128> as StaticLayout>::LAYOUT;
    for t in 0..128 {
        for kb in 0..8 {
            for v in 0..8 {
                let c = cl.offset((t + 128 * (8 * kb + v)) as isize);
                assert_eq!(
                    c,
                    al.offset((t + 128 * v) as isize) + 64 * 16 * kb as isize,
                    "t {t} kb {kb} v {v}"
                );
            }
        }
    }
    // And on the emulator: P V with P's registers straight from S = Q K^T (P = S) equals S's
    // columns. Q = 1 (64 x 64), K's row j = j (so S(m, j) = 64 j), V(key, n) = 1 where
    // n = key (MN-major), so O(m, n) = S(m, n).
    let cfg = LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 3 * 8192 };
    launch(&cfg, || {
        let smem = SmemRegion::dynamic();
        let q = smem.array::<u32, 2048>(0).unwrap();
        let k = smem.array::<u32, 2048>(8192).unwrap();
        let v = smem.array::<u32, 2048>(16384).unwrap();
        let t = thread_idx().x as usize;
        for i in 0..16 {
            let w = t + 128 * i; // word w: row w / 32 of the stage, chunk (w % 32) / 4 as swizzled
            let row = w / 32;
            q.store(w, 0x3c00_3c00);
            let h = f32_to_half(HalfKind::F16, row as f32) as u32;
            k.store(w, h | h << 16);
            let dim = 8 * ((w % 32 / 4) ^ (row % 8)) + 2 * (w % 4); // the halves' columns
            let one = |d: usize| if d == row { 0x3c00u32 } else { 0 };
            v.store(w, one(dim) | one(dim + 1) << 16);
        }
        const_layout_device::sync_threads();
        let mut s = [0f32; 32];
        let mut batch = wgmma::begin();
        for kb in 0..4 {
            let (a, b) = (SmemDesc::k_sw128(q, 64, 0, kb), SmemDesc::k_sw128(k, 64, 0, kb));
            batch.ss_f32(HalfKind::F16, a, b, kb > 0, &mut s);
        }
        batch.commit();
        wgmma::wait::<0, 32>(&mut s);
        let p: [[u32; 4]; 4] = core::array::from_fn(|kb| wgmma::a_fragment(HalfKind::F16, &s, kb));
        let mut o = [0f32; 32];
        let mut batch = wgmma::begin();
        for (kb, &f) in p.iter().enumerate() {
            batch.rs_f32(HalfKind::F16, f, SmemDesc::mn_sw128(v, 64, kb), kb > 0, &mut o);
        }
        batch.commit();
        wgmma::wait::<0, 32>(&mut o);
        let cl = <CLayout_64xN<64> as StaticLayout>::LAYOUT;
        for (i, &x) in o.iter().enumerate() {
            let n = cl.offset((t + 128 * i) as isize) as usize / 64;
            assert_eq!(x, (64 * n) as f32, "O(., {n})");
        }
    })
    .unwrap();
}

#[test]
fn the_batch_probe_computes_a_b_transposed_in_every_form() {
    use const_layout_device::wgmma_probe::{BATCH_SMEM_BYTES, wgmma_batch_probe};
    let mut rng = Rng(7);
    for n in [64usize, 128, 256] {
        for flags in 0..8u32 {
            // Both kinds for each form (the kind is not a function of the flags alone).
            let kind = if (flags ^ (flags >> 1) ^ (n as u32 / 128)) & 1 == 0 {
                HalfKind::F16
            } else {
                HalfKind::BF16
            };
            // Small integers: every sum is exact, so D must be the reference bit for bit.
            let mut int = |_| (rng.next() % 17) as f32 - 8.0;
            let a: Vec<f32> = (0..64 * 64).map(&mut int).collect(); // row-major
            let b: Vec<f32> = (0..n * 64).map(&mut int).collect(); // B(j, k) at 64 j + k
            let c: Vec<f32> = (0..64 * n).map(&mut int).collect(); // column-major
            let words = |h: &[f32]| {
                h.chunks(2)
                    .map(|p| {
                        AtomicU32::new(
                            f32_to_half(kind, p[0]) as u32 | (f32_to_half(kind, p[1]) as u32) << 16,
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let b_mn = flags & 2 != 0;
            // As V: 64 keys x n, v[key][j] = B(j, key).
            let b_given: Vec<f32> =
                if b_mn { (0..64 * n).map(|i| b[64 * (i % n) + i / n]).collect() } else { b.clone() };
            let (ga, gb) = (words(&a), words(&b_given));
            let gc: Vec<AtomicU32> = c.iter().map(|x| AtomicU32::new(x.to_bits())).collect();
            let gd: Vec<AtomicU32> = (0..64 * n).map(|_| AtomicU32::new(0)).collect();
            let cfg =
                LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: BATCH_SMEM_BYTES };
            launch(&cfg, || {
                wgmma_batch_probe(
                    kind,
                    flags,
                    n as u32,
                    Gmem::<u32>::from_cells(&ga),
                    Gmem::<u32>::from_cells(&gb),
                    Gmem::<f32>::from_cells(&gc),
                    GmemMut::<f32>::from_cells(&gd),
                    SmemRegion::dynamic(),
                )
            })
            .unwrap();
            for m in 0..64 {
                for j in 0..n {
                    let s: f32 = (0..64).map(|k| a[64 * m + k] * b[64 * j + k]).sum();
                    let want = if flags & 4 != 0 { s + c[m + 64 * j] } else { s };
                    let got = f32::from_bits(gd[m + 64 * j].load(Relaxed));
                    assert_eq!(got, want, "n {n} flags {flags}: D({m}, {j})");
                }
            }
        }
    }
}
