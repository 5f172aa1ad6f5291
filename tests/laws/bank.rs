//! Bank conflicts and swizzle synthesis: the wavefront count against a brute-force count on random
//! addresses, the classic conflicted and conflict-free `ldmatrix` patterns, and the synthesized
//! swizzle against CUTLASS's choice on its SM80 shared-memory atoms (16-bit K-major and MN-major,
//! `cp.async` writes and `ldmatrix` reads; 32-bit with 16-byte writes and 8-byte reads).

use crate::rng::Rng;
use const_layout::bank::{AMD_LDS, AMD_LDS_32, BankModel, NVIDIA, wavefronts};
use const_layout::linear::LinearLayout;
use const_layout::swizzle::Swizzle;
use const_layout::synthesis::{Access, best_linear, best_swizzle, evaluate};
use std::collections::{BTreeMap, BTreeSet};

/// The model's count written plainly: per phase, the most distinct words on one bank.
fn brute(model: &BankModel, addrs: &[u32], bytes: u32) -> u32 {
    let per_phase = (model.wavefront_bytes / bytes.max(4)).min(model.threads) as usize;
    addrs
        .chunks(per_phase)
        .map(|phase| {
            let mut banks: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
            for &a in phase {
                for w in 0..(bytes / 4).max(1) {
                    let word = a / 4 + w;
                    banks.entry(word % model.banks).or_default().insert(word);
                }
            }
            banks.values().map(|s| s.len() as u32).max().unwrap()
        })
        .sum()
}

#[test]
fn wavefronts_match_a_brute_force_count() {
    let mut rng = Rng(0xba4c);
    for model in [NVIDIA, AMD_LDS_32, AMD_LDS] {
        for _ in 0..3000 {
            let bytes = [1u32, 2, 4, 8, 16][rng.pick(5)];
            let span = 1 << (6 + rng.pick(8));
            let addrs: Vec<u32> =
                (0..model.threads).map(|_| (rng.below(span) as u32) / bytes * bytes).collect();
            let got = wavefronts(&model, &addrs, bytes);
            assert_eq!(got.wavefronts, brute(&model, &addrs, bytes), "{model:?} {bytes} {addrs:?}");
            let phases = model.threads / (model.wavefront_bytes / bytes.max(4)).min(model.threads);
            assert_eq!(got.ideal, phases);
        }
    }
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
    let write = Access { tv: LinearLayout::new(&w, out).unwrap(), thread_bits: 3 + wr, vec: 16 / eb };
    let mut r = bits(&[(1 << rowb, 3), (1 << cb, 2)]);
    r.extend(bits(&[(1, cb), (4 << cb, 1), (8 << rowb, rb - 3)]));
    let read = Access { tv: LinearLayout::new(&r, out).unwrap(), thread_bits: 5, vec: 16 / eb };
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
    let write = Access { tv: LinearLayout::new(&w, out).unwrap(), thread_bits: chunks + rb, vec: 16 / eb };
    let mut r = bits(&[(row, 3), (1 << cb, chunks), (row << 3, rb - 3)]);
    r.extend(bits(&[(1, cb)]));
    let read = Access { tv: LinearLayout::new(&r, out).unwrap(), thread_bits: chunks + rb, vec: 16 / eb };
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
    let write = Access { tv: LinearLayout::new(&w, 9).unwrap(), thread_bits: 5, vec: 8 };
    let mut r = bits(&[(64, 3), (8, 2)]);
    r.extend(bits(&[(1, 3), (32, 1)]));
    let read = Access { tv: LinearLayout::new(&r, 9).unwrap(), thread_bits: 5, vec: 8 };
    cases.push(("16-bit MN-major 64x8".to_string(), tile, write, read, 2, Swizzle::new(3, 3, 3).unwrap()));
    // 32-bit, 8 x 32 floats row-major: st.shared.v4 along rows (thread t: row t / 8, 4 floats at
    // column 4 (t % 8)); reads of 2 floats down columns in pairs (lane l: row l % 8, column
    // 2 (l / 8)), CUTLASS's Sw<3,2,3> for such tiles.
    let tile = LinearLayout::identity(8);
    let mut w = bits(&[(4, 3), (32, 2)]);
    w.extend(bits(&[(1, 2), (128, 1)]));
    let write = Access { tv: LinearLayout::new(&w, 8).unwrap(), thread_bits: 5, vec: 4 };
    let mut r = bits(&[(32, 3), (2, 2)]);
    r.extend(bits(&[(1, 1), (8, 2)]));
    let read = Access { tv: LinearLayout::new(&r, 8).unwrap(), thread_bits: 5, vec: 2 };
    cases.push(("32-bit 8x32".to_string(), tile, write, read, 4, Swizzle::new(3, 2, 3).unwrap()));
    // SM80 tf32 MN-major (CUTLASS's `Swizzle<3,2,3> o (_32,_8):(_1,_32)`): 16-byte cp.async along
    // m (thread t: m chunk t % 8, k = t / 8); the m16n8k8 A fragment read by scalar LDS
    // (UniversalCopy): lane l at m = l / 4, k = l % 4, a second warp at m + 16, values at m + 8
    // and k + 4. Element index k * 32 + m.
    let tile = LinearLayout::identity(8);
    let write =
        Access { tv: LinearLayout::new(&[4, 8, 16, 32, 64, 128, 1, 2], 8).unwrap(), thread_bits: 6, vec: 4 };
    let read =
        Access { tv: LinearLayout::new(&[32, 64, 1, 2, 4, 16, 8, 128], 8).unwrap(), thread_bits: 6, vec: 1 };
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

/// `access`'s closed form against the simulation of every instruction of the access.
fn simulated(
    model: &BankModel,
    tv: &LinearLayout,
    tb: u32,
    smem: &LinearLayout,
    eb: u32,
    vec: u32,
) -> (u32, u32) {
    let offset = smem.compose(tv).unwrap();
    let (vbits, warp_bits) = (vec.trailing_zeros(), model.threads.trailing_zeros());
    let lanes = 1u32 << tb.min(warp_bits);
    let warps = 1u32 << tb.saturating_sub(warp_bits);
    let instructions = 1u32 << (tv.in_bits() - tb - vbits);
    let (mut w, mut ideal) = (0, 0);
    for warp in 0..warps {
        for i in 0..instructions {
            let addrs: Vec<u32> =
                (0..lanes).map(|l| offset.apply((warp << warp_bits | l) | i << (tb + vbits)) * eb).collect();
            let c = wavefronts(model, &addrs, vec * eb);
            w += c.wavefronts;
            ideal += c.ideal;
        }
    }
    (w, ideal)
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
            let tv = LinearLayout::new(&tv, out).unwrap();
            let sw = Swizzle::new(rng.pick(4) as u32, vb + rng.pick(3) as u32, 3 + rng.pick(3) as i32);
            let Ok(sw) = sw else { continue };
            let smem = LinearLayout::from_swizzle(sw, out);
            if smem.out_bits() > out || tv.in_bits() > 16 {
                continue;
            }
            let Ok(c) = const_layout::bank::access(&model, &tv, tb, &smem, eb, vec) else { continue };
            assert_eq!(
                (c.wavefronts, c.ideal),
                simulated(&model, &tv, tb, &smem, eb, vec),
                "{model:?} {tv:?} {sw} {eb} {vec}"
            );
            checked += 1;
        }
        checked = 0;
    }
}
