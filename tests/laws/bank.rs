//! Bank conflicts and swizzle synthesis: the wavefront count against a brute-force count on random
//! addresses, the classic conflicted and conflict-free `ldmatrix` patterns, and the synthesized
//! swizzle against CUTLASS's choice on its SM80 shared-memory atoms (16-bit K-major and MN-major,
//! `cp.async` writes and `ldmatrix` reads; 32-bit with 16-byte writes and 8-byte reads).

use crate::rng::Rng;
use const_layout::bank::{
    AMD_LDS, AMD_LDS_32, AccessKind, BankModel, INACTIVE, NVIDIA, simulate, wavefronts,
};
use const_layout::linear::LinearLayout;
use const_layout::swizzle::Swizzle;
use const_layout::synthesis::{Access, best_linear, best_swizzle, evaluate};
use std::collections::{BTreeMap, BTreeSet};

/// The model's rules written plainly (the module's list): the lanes of a phase, paired loads,
/// per phase the most distinct words on one bank; phases with no active lane take nothing.
fn brute(model: &BankModel, kind: AccessKind, addrs: &[u32], bytes: u32) -> (u32, u32) {
    let matrix = matches!(kind, AccessKind::Ldmatrix { .. } | AccessKind::Stmatrix { .. });
    let width = if matrix { 16 } else { bytes };
    let lanes = match kind {
        AccessKind::Ldmatrix { matrices, .. } | AccessKind::Stmatrix { matrices, .. } => 8 * matrices,
        _ => model.threads,
    }
    .min(addrs.len() as u32) as usize;
    let active = |a: &u32| *a != INACTIVE;
    let quads_pair =
        addrs[..lanes].chunks(4).all(|q| q.iter().filter(|a| active(a)).collect::<BTreeSet<_>>().len() <= 2);
    let base = if matrix { 8 } else { (model.wavefront_bytes / width.max(4)).min(model.threads) };
    let paired = kind == AccessKind::Load && model.paired_loads && width > 4 && base >= 2 && quads_pair;
    let per_phase = if paired { 2 * base } else { base } as usize;
    let (mut w, mut phases) = (0, 0);
    for phase in addrs[..lanes].chunks(per_phase) {
        let mut banks: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for &a in phase.iter().filter(|a| active(a)) {
            for k in 0..(width / 4).max(1) {
                let word = a / 4 + k;
                banks.entry(word % model.banks).or_default().insert(word);
            }
        }
        if let Some(most) = banks.values().map(|s| s.len() as u32).max() {
            w += most;
            phases += 1;
        }
    }
    (w, phases)
}

/// Every access kind, with random widths where the kind takes them.
fn random_kind(rng: &mut Rng) -> (AccessKind, u32) {
    let trans = rng.pick(2) == 1;
    let matrices = [1u32, 2, 4][rng.pick(3)];
    match rng.pick(5) {
        0 => (AccessKind::Load, [1u32, 2, 4, 8, 16][rng.pick(5)]),
        1 => (AccessKind::Store, [1u32, 2, 4, 8, 16][rng.pick(5)]),
        2 => (AccessKind::CpAsync, [4u32, 8, 16][rng.pick(3)]),
        3 => (AccessKind::Ldmatrix { matrices, trans }, 16),
        _ => (AccessKind::Stmatrix { matrices, trans }, 16),
    }
}

#[test]
fn wavefronts_match_a_brute_force_count() {
    let mut rng = Rng(0xba4c);
    for model in [NVIDIA, AMD_LDS_32, AMD_LDS] {
        for _ in 0..6000 {
            let (kind, bytes) = random_kind(&mut rng);
            // Small spans and few distinct values make lanes share addresses and quads pair.
            let span = 1 << (5 + rng.pick(9));
            let distinct = 1 + rng.pick(33) as u64;
            let pool: Vec<u32> = (0..distinct).map(|_| (rng.below(span) as u32) / bytes * bytes).collect();
            let off = rng.pick(4) == 0;
            let addrs: Vec<u32> = (0..model.threads)
                .map(|_| if off && rng.pick(3) == 0 { INACTIVE } else { pool[rng.pick(pool.len())] })
                .collect();
            let got = wavefronts(&model, kind, &addrs, bytes).unwrap();
            assert_eq!(
                (got.wavefronts, got.ideal),
                brute(&model, kind, &addrs, bytes),
                "{model:?} {kind} {bytes} {addrs:?}"
            );
        }
    }
}

#[test]
fn wavefronts_refuse_what_the_hardware_cannot_do() {
    let addrs = [4u32; 32];
    let e = |kind, bytes| wavefronts(&NVIDIA, kind, &addrs, bytes).unwrap_err().to_string();
    assert_eq!(e(AccessKind::Load, 8), "bank conflicts: an address not aligned to its access: 4");
    assert_eq!(e(AccessKind::Load, 3), "bank conflicts: the bytes of an access (1, 2, 4, 8 or 16): 3");
    assert_eq!(e(AccessKind::CpAsync, 2), "bank conflicts: the bytes of a cp.async (4, 8 or 16): 2");
    let x3 = AccessKind::Ldmatrix { matrices: 3, trans: false };
    assert_eq!(e(x3, 16), "bank conflicts: the matrices of an ldmatrix/stmatrix (1, 2 or 4): 3");
    let many = [0u32; 33];
    assert_eq!(
        wavefronts(&NVIDIA, AccessKind::Load, &many, 4).unwrap_err().to_string(),
        "bank conflicts: the lanes of an instruction, past the model's: 33"
    );
}

/// Bits of `x`'s parts, low first: (value, bits).
fn bits(parts: &[(u32, u32)]) -> Vec<u32> {
    parts.iter().flat_map(|&(base, n)| (0..n).map(move |i| base << i)).collect()
}

/// The accesses of CUTLASS's SM80 K-major atoms, 8 rows of 128 bytes (`Sw<3,4,3>` on bytes:
/// `Sw<3,3,3> o (8,64):(64,1)` for 16-bit elements, `Sw<3,4,3> o (8,128)` for 8-bit, `Sw<3,2,3> o
/// (8,32)` for 32-bit), as a tile of `rows` such rows, row-major: 16-byte `cp.async` writes
/// (thread t: row t / 8, chunk t % 8) and `ldmatrix.x4` reads (lane l: row l % 8 of an 8-row block,
/// 16-byte chunk l / 8, then chunks 4-7, then the other rows).
fn k_major_bytes(rows: u32, eb: u32) -> (LinearLayout, Access, Access) {
    let rb = rows.trailing_zeros();
    let cb = (16 / eb).trailing_zeros(); // elements of a 16-byte chunk, as bits
    let rowb = cb + 3; // elements of a 128-byte row
    let out = rowb + rb;
    let tile = LinearLayout::identity(out);
    let wr = rb.min(4);
    let mut w = bits(&[(1 << cb, 3), (1 << rowb, wr)]);
    w.extend(bits(&[(1, cb)]));
    w.extend(bits(&[((1 << rowb) << wr, rb - wr)]));
    let write = Access {
        kind: AccessKind::CpAsync,
        tv: LinearLayout::new(&w, out).unwrap(),
        thread_bits: 3 + wr,
        vec: 16 / eb,
    };
    let mut r = bits(&[(1 << rowb, 3), (1 << cb, 2)]);
    r.extend(bits(&[(1, cb), (4 << cb, 1), (8 << rowb, rb - 3)]));
    let read = Access {
        kind: AccessKind::Ldmatrix { matrices: 4, trans: false },
        tv: LinearLayout::new(&r, out).unwrap(),
        thread_bits: 5,
        vec: 16 / eb,
    };
    (tile, write, read)
}

fn k_major(rows: u32) -> (LinearLayout, Access, Access) {
    k_major_bytes(rows, 2)
}

#[test]
fn the_classic_ldmatrix_patterns() {
    let (tile, _, read) = k_major(8);
    let none = evaluate(&NVIDIA, &tile, Swizzle::new(0, 0, 0).unwrap(), 2, &read).unwrap();
    let sw = evaluate(&NVIDIA, &tile, Swizzle::new(3, 3, 3).unwrap(), 2, &read).unwrap();
    // Two ldmatrix.x4 over the 8 x 64 tile (k blocks 0-31, 32-63): 4 phases each.
    assert_eq!((none.0, none.1.wavefronts, none.1.ideal), (8, 64, 8));
    assert_eq!((sw.0, sw.1.wavefronts, sw.1.ideal), (8, 8, 8));
}

/// A GMMA shared-memory atom of CUTLASS's SM90 builder (`GMMA::Layout_K_{INTER,SW32,SW64,SW128}_Atom`
/// and the MN-major ones) tiled to 64 rows of `row_bytes` (16, 32, 64 or 128), with its copy atoms
/// as accesses: TMA writes the box in 16-byte chunks in its row-major order (eight chunks, 128
/// contiguous bytes, a phase); `wgmma` reads 8 x 16-byte core matrices, a phase being one core
/// matrix's 8 rows at one chunk (lanes 0-2 the row, then the chunks, then the other rows). A
/// K-major atom's rows are M or N, an MN-major atom's rows are K: the same bits.
fn gmma_atom(eb: u32, row_bytes: u32) -> (LinearLayout, Access, Access) {
    let cb = (16 / eb).trailing_zeros(); // elements of a 16-byte chunk, as bits
    let chunks = (row_bytes / 16).trailing_zeros();
    let rb = 6; // 64 rows
    let out = cb + chunks + rb;
    let row = 1u32 << (cb + chunks);
    let mut w = bits(&[(1 << cb, chunks + rb)]);
    w.extend(bits(&[(1, cb)]));
    let write = Access {
        kind: AccessKind::Store,
        tv: LinearLayout::new(&w, out).unwrap(),
        thread_bits: chunks + rb,
        vec: 16 / eb,
    };
    let mut r = bits(&[(row, 3), (1 << cb, chunks), (row << 3, rb - 3)]);
    r.extend(bits(&[(1, cb)]));
    let read = Access {
        kind: AccessKind::Load,
        tv: LinearLayout::new(&r, out).unwrap(),
        thread_bits: chunks + rb,
        vec: 16 / eb,
    };
    (LinearLayout::identity(out), write, read)
}

#[test]
fn synthesis_matches_or_beats_cutlass_on_its_sm80_and_sm90_atoms() {
    // (name, tile, write, read, element bytes, CUTLASS's swizzle)
    let mut cases = Vec::new();
    for rows in [8u32, 16, 32, 64] {
        let (tile, write, read) = k_major(rows);
        cases.push((
            format!("16-bit K-major {rows}x64"),
            tile,
            write,
            read,
            2,
            Swizzle::new(3, 3, 3).unwrap(),
        ));
    }
    for rows in [8u32, 64] {
        let (tile, write, read) = k_major_bytes(rows, 1);
        cases.push((
            format!("8-bit K-major {rows}x128"),
            tile,
            write,
            read,
            1,
            Swizzle::new(3, 4, 3).unwrap(),
        ));
        let (tile, write, read) = k_major_bytes(rows, 4);
        cases.push((
            format!("32-bit K-major {rows}x32"),
            tile,
            write,
            read,
            4,
            Swizzle::new(3, 2, 3).unwrap(),
        ));
    }
    // MN-major (64,8):(1,64): write 16 bytes along mn (thread t: k = t / 8, mn chunk t % 8);
    // ldmatrix.trans reads 8 halves along mn per lane: lane l at k = l % 8, mn chunk l / 8 (x4).
    let tile = LinearLayout::identity(9);
    let mut w = bits(&[(8, 3), (64, 2)]);
    w.extend(bits(&[(1, 3), (256, 1)]));
    let write =
        Access { kind: AccessKind::CpAsync, tv: LinearLayout::new(&w, 9).unwrap(), thread_bits: 5, vec: 8 };
    let mut r = bits(&[(64, 3), (8, 2)]);
    r.extend(bits(&[(1, 3), (32, 1)]));
    let read = Access {
        kind: AccessKind::Ldmatrix { matrices: 4, trans: true },
        tv: LinearLayout::new(&r, 9).unwrap(),
        thread_bits: 5,
        vec: 8,
    };
    cases.push(("16-bit MN-major 64x8".to_string(), tile, write, read, 2, Swizzle::new(3, 3, 3).unwrap()));
    // 32-bit, 8 x 32 floats row-major: st.shared.v4 along rows (thread t: row t / 8, 4 floats at
    // column 4 (t % 8)); reads of 2 floats down columns in pairs (lane l: row l % 8, column
    // 2 (l / 8)), CUTLASS's Sw<3,2,3> for such tiles.
    let tile = LinearLayout::identity(8);
    let mut w = bits(&[(4, 3), (32, 2)]);
    w.extend(bits(&[(1, 2), (128, 1)]));
    let write =
        Access { kind: AccessKind::Store, tv: LinearLayout::new(&w, 8).unwrap(), thread_bits: 5, vec: 4 };
    let mut r = bits(&[(32, 3), (2, 2)]);
    r.extend(bits(&[(1, 1), (8, 2)]));
    let read =
        Access { kind: AccessKind::Load, tv: LinearLayout::new(&r, 8).unwrap(), thread_bits: 5, vec: 2 };
    cases.push(("32-bit 8x32".to_string(), tile, write, read, 4, Swizzle::new(3, 2, 3).unwrap()));
    // SM80 tf32 MN-major (CUTLASS's `Swizzle<3,2,3> o (_32,_8):(_1,_32)`): 16-byte cp.async along
    // m (thread t: m chunk t % 8, k = t / 8); the m16n8k8 A fragment read by scalar LDS
    // (UniversalCopy): lane l at m = l / 4, k = l % 4, a second warp at m + 16, values at m + 8
    // and k + 4. Element index k * 32 + m.
    let tile = LinearLayout::identity(8);
    let write = Access {
        kind: AccessKind::CpAsync,
        tv: LinearLayout::new(&[4, 8, 16, 32, 64, 128, 1, 2], 8).unwrap(),
        thread_bits: 6,
        vec: 4,
    };
    let read = Access {
        kind: AccessKind::Load,
        tv: LinearLayout::new(&[32, 64, 1, 2, 4, 16, 8, 128], 8).unwrap(),
        thread_bits: 6,
        vec: 1,
    };
    cases.push(("SM80 tf32 MN-major 32x8".to_string(), tile, write, read, 4, Swizzle::new(3, 2, 3).unwrap()));
    // SM90: the GMMA atoms `ss_smem_selector` picks, by the tile's K (K-major) or MN (MN-major)
    // extent in bytes: 16 (INTER), 32, 64, 128 (`Swizzle<1|2|3,4,3>` on bytes). 16-bit K- and
    // MN-major; 8-bit (fp8) and 32-bit (tf32) K-major, as `wgmma` takes them.
    for (eb, kinds) in [(2u32, &["K", "MN"][..]), (1, &["K"][..]), (4, &["K"][..])] {
        for major in kinds {
            for row_bytes in [16u32, 32, 64, 128] {
                if row_bytes == 16 && eb != 2 {
                    continue;
                }
                let (tile, write, read) = gmma_atom(eb, row_bytes);
                let b = (row_bytes / 16).trailing_zeros();
                let m = 4 - eb.trailing_zeros();
                let name = match row_bytes {
                    16 => "INTER",
                    32 => "SW32",
                    64 => "SW64",
                    _ => "SW128",
                };
                let sw = if b == 0 { Swizzle::new(0, 0, 0) } else { Swizzle::new(b, m, 3) };
                cases.push((
                    format!("SM90 {}-bit {major}-major {name} 64 rows", 8 * eb),
                    tile,
                    write,
                    read,
                    eb,
                    sw.unwrap(),
                ));
            }
        }
    }

    for (name, tile, write, read, eb, cutlass) in cases {
        let best = best_swizzle(&NVIDIA, &tile, eb, &write, &read).unwrap();
        // No general F2 map does better: the swizzle is the optimum of every bijection too.
        let general = best_linear(&NVIDIA, &tile, eb, &write, &read).unwrap();
        assert_eq!(general.swizzle, Some(best.swizzle), "{name}: {general:?}");
        let (cw, cwc) = evaluate(&NVIDIA, &tile, cutlass, eb, &write).unwrap();
        let (cr, crc) = evaluate(&NVIDIA, &tile, cutlass, eb, &read).unwrap();
        let c_extra = cwc.extra() + crc.extra();
        // No worse than CUTLASS: vectors at least as wide, then no more conflicts.
        assert!(best.write_vec.min(best.read_vec) >= cw.min(cr), "{name}: {best:?} against {cutlass}");
        if best.write_vec.min(best.read_vec) == cw.min(cr) && best.write_vec + best.read_vec == cw + cr {
            assert!(best.conflicts() <= c_extra, "{name}: {best:?} against {cutlass} ({c_extra})");
        }
        // And the optimum of the search: no swizzle of the family scores better.
        for b in 0..=5 {
            for m in 0..=5 {
                for s in 0..=5 {
                    let Ok(sw) = Swizzle::new(b, m, s) else { continue };
                    if b > 0 && m + s as u32 + b > tile.out_bits() {
                        continue;
                    }
                    let (wv, wc) = evaluate(&NVIDIA, &tile, sw, eb, &write).unwrap();
                    let (rv, rc) = evaluate(&NVIDIA, &tile, sw, eb, &read).unwrap();
                    let key = (wv.min(rv), wv + rv, std::cmp::Reverse(wc.extra() + rc.extra()));
                    let best_key = (
                        best.write_vec.min(best.read_vec),
                        best.write_vec + best.read_vec,
                        std::cmp::Reverse(best.conflicts()),
                    );
                    assert!(key <= best_key, "{name}: {sw} beats {best:?}");
                }
            }
        }
        println!(
            "{name}: CUTLASS {cutlass} (vectors {cw}/{cr}, {c_extra} extra); ours {} (vectors {}/{}, {} extra)",
            best.swizzle,
            best.write_vec,
            best.read_vec,
            best.conflicts()
        );
    }
}

#[test]
fn the_closed_form_equals_the_simulation() {
    let mut rng = Rng(0xc105ed);
    let mut checked = 0;
    for model in [NVIDIA, AMD_LDS_32, AMD_LDS] {
        while checked < 4000 {
            let out = 6 + rng.pick(8) as u32;
            let tb = 3 + rng.pick(5) as u32;
            let vb = rng.pick(4) as u32;
            let eb = [1u32, 2, 4][rng.pick(3)];
            let vec = 1u32 << vb;
            if vec * eb > 16 || tb + vb + 2 > out {
                continue;
            }
            // A TV map whose vector bits are the tile's low bits (so vectors are contiguous), the
            // rest random; a random invertible shared map that keeps the low vector bits.
            let aligned = |rng: &mut Rng| (rng.below(1 << out) as u32) & !(vec - 1);
            let mut tv: Vec<u32> = (0..tb).map(|_| aligned(&mut rng)).collect();
            tv.extend((0..vb).map(|j| 1 << j));
            tv.extend((0..rng.pick(3)).map(|_| aligned(&mut rng)));
            // Lanes sharing addresses within quads, so that loads pair.
            match rng.pick(4) {
                0 => tv[1] = 0,
                1 => tv[1] = tv[0],
                2 => tv[0] = 0,
                _ => {}
            }
            let tv = LinearLayout::new(&tv, out).unwrap();
            let sw = Swizzle::new(rng.pick(4) as u32, vb + rng.pick(3) as u32, 3 + rng.pick(3) as i32);
            let Ok(sw) = sw else { continue };
            let smem = LinearLayout::from_swizzle(sw, out);
            if smem.out_bits() > out || tv.in_bits() > 16 {
                continue;
            }
            let (kind, _) = random_kind(&mut rng);
            let Ok(c) = const_layout::bank::access(&model, kind, &tv, tb, &smem, eb, vec) else { continue };
            let sim = simulate(&model, kind, &tv, 1 << tb, &smem, eb, vec).unwrap();
            assert_eq!(c, sim, "{model:?} {kind} {tv:?} {sw} {eb} {vec}");
            checked += 1;
        }
        checked = 0;
    }
}

/// The model against Nsight Compute on the H200: every pattern of `tools/gpu/access_probe.py`'s
/// last run (tests/data/access_probe_h200.txt: loads and stores of 1 to 16 bytes, partial
/// broadcasts, lanes left out, `ldmatrix`/`stmatrix` x1/x2/x4 with and without `.trans`, global
/// loads and stores), wavefronts and conflicts (sectors and requests for global memory) equal.
/// `cp.async` is left out: Nsight Compute does not count its shared-memory side as the model does.
#[test]
fn the_model_equals_nsight_compute_on_the_h200_probe() {
    let text = include_str!("../data/access_probe_h200.txt");
    let (mut shared, mut global) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let (op, bytes, trans) = (f[0], f[1].parse::<u32>().unwrap(), f[2] == "1");
        let instrs: Vec<Vec<u64>> = f[5]
            .split(';')
            .map(|i| i.split(',').map(|a| if a == "-" { u64::MAX } else { a.parse().unwrap() }).collect())
            .collect();
        if op.ends_with(".global") {
            let (requests, sectors): (u64, u64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
            let c = instrs.iter().fold(const_layout::coalescing::Coalescing::default(), |c, i| {
                c.plus(const_layout::coalescing::request(i, bytes).unwrap())
            });
            assert_eq!((c.requests, c.sectors), (requests, sectors), "{line}");
            global += 1;
            continue;
        }
        let kind = match op {
            "ld" => AccessKind::Load,
            "st" => AccessKind::Store,
            "ldmatrix" => AccessKind::Ldmatrix { matrices: bytes, trans },
            "stmatrix" => AccessKind::Stmatrix { matrices: bytes, trans },
            _ => continue,
        };
        let (w, extra): (u32, u32) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let c = instrs.iter().fold(const_layout::bank::Conflicts::default(), |c, i| {
            let a: Vec<u32> = i.iter().map(|&a| if a == u64::MAX { INACTIVE } else { a as u32 }).collect();
            c.plus(wavefronts(&NVIDIA, kind, &a, bytes).unwrap())
        });
        assert_eq!((c.wavefronts, c.extra()), (w, extra), "{line}");
        shared += 1;
    }
    assert!(shared >= 60 && global >= 10, "{shared} shared and {global} global patterns");
}

/// The simulation over layouts that are not linear (padded rows, extents and strides that are
/// not powers of two, swizzles over them) against the rules applied by hand to the addresses the
/// layouts give, instruction by instruction.
#[test]
fn the_simulation_counts_any_layout() {
    use const_layout::dyn_layout::DynLayout;
    use const_layout::swizzle::ComposedLayout;
    let mut rng = Rng(0x5a1d);
    let mut checked = 0;
    while checked < 600 {
        let eb = [1u32, 2, 4, 8][rng.pick(4)];
        let vec = [1u32, 2, 4, 8, 16][rng.pick(5)].min(16 / eb);
        // Rows of `cols` elements (a multiple of the vector), padded by `pad` (keeps alignment).
        let cols = vec * (1 + rng.pick(12) as u32);
        let rows = 1 + rng.pick(40) as u32;
        let pad = vec * rng.pick(3) as u32;
        let smem: DynLayout = format!("({rows},{cols}):({},1)", cols + pad).parse().unwrap();
        // Threads over (row, column-vector) pairs in one of two orders; values: the vector, then
        // the rest.
        let threads = [1u32, 3, 8, 16, 32, 40, 64][rng.pick(7)];
        let chunks = cols / vec;
        let cells = rows * chunks;
        if !cells.is_multiple_of(threads) {
            continue;
        }
        let by_row = rng.pick(2) == 0;
        let tv = |t: u64, v: u64| -> u64 {
            let (k, cell) = (v % vec as u64, t + threads as u64 * (v / vec as u64));
            let (r, c) = if by_row {
                (cell / chunks as u64, cell % chunks as u64)
            } else {
                (cell % rows as u64, cell / rows as u64)
            };
            // Element index, column-major over (rows, cols): r + rows * column.
            r + rows as u64 * (c * vec as u64 + k)
        };
        let values = (cells / threads * vec) as u64;
        // The TV map as a layout: written out as a table, (threads, values):(...) is not
        // expressible in general, so go through a 1-D table layout of the composed indices.
        let table: Vec<u64> = (0..values)
            .flat_map(|v| (0..threads as u64).map(move |t| (t, v)))
            .map(|(t, v)| tv(t, v))
            .collect();
        struct Table(Vec<u64>);
        impl const_layout::bank::Offsets for Table {
            fn size_of(&self) -> u64 {
                self.0.len() as u64
            }
            fn offset_at(&self, i: u64) -> isize {
                self.0[i as usize] as isize
            }
        }
        let swizzled = rng.pick(3) == 0;
        let composed = ComposedLayout::new(Swizzle::new(2, vec.trailing_zeros(), 3).unwrap(), smem);
        let offset =
            |e: u64| if swizzled { composed.offset(e as isize) } else { smem.offset(e as isize) } as u64;
        let (kind, _) = random_kind(&mut rng);
        let bytes = vec * eb;
        let model = NVIDIA;
        let lanes = kind.lanes(&model) as u64;
        // By hand: each group of lanes, each vector of values, one instruction.
        let mut want: Result<(u32, u32), ()> = Ok((0, 0));
        'all: for first in (0..threads as u64).step_by(lanes as usize) {
            for v in (0..values).step_by(vec as usize) {
                let addrs: Vec<u32> = (first..(first + lanes).min(threads as u64))
                    .map(|t| (offset(tv(t, v)) * eb as u64) as u32)
                    .collect();
                // A vector must be contiguous: the swizzle may break that.
                let contiguous = (first..(first + lanes).min(threads as u64))
                    .all(|t| (0..vec as u64).all(|k| offset(tv(t, v + k)) == offset(tv(t, v)) + k));
                if !contiguous || kind.check(bytes).is_err() || kind.width(bytes) != bytes {
                    want = Err(());
                    break 'all;
                }
                let (w, p) = brute(&model, kind, &addrs, bytes);
                want = want.map(|(a, b)| (a + w, b + p));
            }
        }
        let got = if swizzled {
            simulate(&model, kind, &Table(table), threads as u64, &composed, eb, vec)
        } else {
            simulate(&model, kind, &Table(table), threads as u64, &smem, eb, vec)
        };
        match (got, want) {
            (Ok(c), Ok(w)) => {
                assert_eq!(
                    (c.wavefronts, c.ideal),
                    w,
                    "{kind} {smem} sw {swizzled} {threads} threads {eb}x{vec}"
                );
                checked += 1;
            }
            (Err(_), Err(())) => {}
            (g, w) => panic!("{kind} {smem} sw {swizzled}: {g:?} against {w:?}"),
        }
    }
}

/// Hostile inputs end in a result or an error, never a panic: models of any numbers, widths and
/// kinds the hardware does not have, addresses at the ends of the range, too many lanes, and
/// random layouts of any strides (negative, zero) for the simulations.
#[test]
fn any_input_ends_in_a_result_or_an_error() {
    use crate::layouts::{Draw, random_layout};
    use const_layout::coalescing::{coalescing, request};
    let mut rng = Rng(0xf022);
    let pick = |rng: &mut Rng, xs: &[u32]| xs[rng.pick(xs.len())];
    for _ in 0..20000 {
        let model = BankModel {
            banks: pick(&mut rng, &[0, 1, 3, 32, 64, 1 << 31]),
            bank_bytes: pick(&mut rng, &[0, 1, 2, 4, 16, 32]),
            wavefront_bytes: pick(&mut rng, &[0, 1, 4, 128, 256]),
            threads: pick(&mut rng, &[0, 1, 4, 32, 64, 128]),
            paired_loads: rng.pick(2) == 0,
        };
        let model = if rng.pick(2) == 0 { NVIDIA } else { model };
        let kind = match rng.pick(5) {
            0 => AccessKind::Load,
            1 => AccessKind::Store,
            2 => AccessKind::CpAsync,
            3 => AccessKind::Ldmatrix { matrices: rng.pick(6) as u32, trans: false },
            _ => AccessKind::Stmatrix { matrices: rng.pick(6) as u32, trans: true },
        };
        let bytes = rng.pick(20) as u32;
        let n = rng.pick(70);
        let addrs: Vec<u32> = (0..n)
            .map(|_| match rng.pick(4) {
                0 => u32::MAX - rng.pick(40) as u32,
                1 => INACTIVE,
                _ => rng.below(1 << 12) as u32,
            })
            .collect();
        let _ = wavefronts(&model, kind, &addrs, bytes);
        let wide: Vec<u64> =
            addrs.iter().map(|&a| if rng.pick(3) == 0 { u64::MAX - a as u64 } else { a as u64 }).collect();
        let _ = request(&wide, bytes);
    }
    let draw = Draw { lo: -70, hi: 70, max_size: 1 << 12, one: 10, zero: 10 };
    for _ in 0..3000 {
        let (tv, smem) = (random_layout(&mut rng, &draw), random_layout(&mut rng, &draw));
        let threads = rng.pick(40) as u64;
        let (kind, _) = random_kind(&mut rng);
        let (eb, vec) = (pick(&mut rng, &[1, 2, 3, 4, 8, 16, 32]), pick(&mut rng, &[0, 1, 2, 4, 8, 16]));
        let _ = simulate(&NVIDIA, kind, &tv, threads, &smem, eb, vec);
        let _ = coalescing(&tv, threads, &smem, eb, vec, rng.below(1 << 20));
    }
}
