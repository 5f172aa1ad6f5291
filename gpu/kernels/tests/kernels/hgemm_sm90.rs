//! The Hopper GEMM on the emulated grid against an exact reference: small-integer `f16` and `bf16`
//! inputs (every sum exact), TMA's zero fill at residues in `m`, `n` and `k`, more k tiles than
//! stages (each stage's mbarriers through several phases), `alpha` and `beta`, both accumulators.
//! The emulator's TMA swizzles by TMA's rule on byte addresses and its `wgmma` reads the operands
//! by the PTX ISA's canonical layouts, so the stage layout, the box and the descriptors must agree.
//!
//! Every configuration of the PTX module ([`Sm90Config`]) runs too: residues in `m`, `n` and `k`,
//! more k tiles than stages, and for the persistent ones more tiles than blocks (a grid smaller
//! than the tiles, each block's mbarrier phases running on across its tiles).

use crate::common::check_gemm;
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::tma::TmaTensor2d;
use const_layout_device::{GlobalTensor, Gmem, GmemMut, HalfKind, SmemRegion, f32_to_half, unpack_half2};
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use const_layout_kernels::hgemm_sm90::{
    self, C64x128S8, C64x256S4, C128x128S6, C128x128S6P, C128x256S4, C128x256S4P, C256x128S4, Sm90Config,
    a_box, b_box,
};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// `rows x k` halves, row-major, two to a word.
fn operand(kind: HalfKind, rows: u32, k: u32, f: &dyn Fn(usize, usize) -> i32) -> Vec<AtomicU32> {
    let kw = k as usize / 2;
    let h = |r, p| f32_to_half(kind, f(r, p) as f32) as u32;
    (0..rows as usize * kw)
        .map(|w| (w / kw, 2 * (w % kw)))
        .map(|(r, p)| AtomicU32::new(h(r, p) | h(r, p + 1) << 16))
        .collect()
}

fn cfg(m: u32, n: u32) -> LaunchConfig {
    LaunchConfig {
        grid: hgemm_sm90::grid(m, n),
        block: hgemm_sm90::block(),
        dynamic_smem_bytes: hgemm_sm90::SMEM_BYTES,
    }
}

/// The TMA tensors of `a` and `b` (the emulator reads them; there are no tensor maps).
fn tensors<'a>(
    a: &'a [AtomicU32],
    b: &'a [AtomicU32],
    m: u32,
    n: u32,
    k: u32,
) -> (TmaTensor2d<'a>, TmaTensor2d<'a>) {
    (
        TmaTensor2d::emulated(Gmem::<u32>::from_cells(a), m, k, k, a_box()).unwrap(),
        TmaTensor2d::emulated(Gmem::<u32>::from_cells(b), n, k, k, b_box()).unwrap(),
    )
}

fn run_f32(kind: HalfKind, m: u32, n: u32, k: u32, alpha: f32, beta: f32) {
    run_f32_with::<C128x256S4>(kind, (m, n, k), alpha, beta, None);
}

/// Configuration `Cfg` through [`hgemm_sm90::hgemm_sm90_tn_with`], on [`hgemm_sm90::grid_for`]'s
/// grid for a GPU of `sms` multiprocessors (132 if `None`), or through the default entry
/// [`hgemm_sm90::hgemm_sm90_tn`] for the default configuration without `sms`.
fn run_f32_with<Cfg: Sm90Config>(
    kind: HalfKind,
    (m, n, k): (u32, u32, u32),
    alpha: f32,
    beta: f32,
    sms: Option<u32>,
) {
    let av = |i: usize, p: usize| ((7 * i + 3 * p) % 9) as i32 - 4;
    let bv = |j: usize, p: usize| ((5 * j + 2 * p) % 7) as i32 - 3;
    let cv = |i: usize, j: usize| ((i + 2 * j) % 11) as f32 - 5.0;
    let (a, b) = (operand(kind, m, k, &av), operand(kind, n, k, &bv));
    let c: Vec<AtomicU32> =
        (0..(m * n) as usize).map(|i| AtomicU32::new(cv(i % m as usize, i / m as usize).to_bits())).collect();
    let launch_cfg = LaunchConfig {
        grid: hgemm_sm90::grid_for::<Cfg>(m, n, sms.unwrap_or(132)),
        block: hgemm_sm90::block_for::<Cfg>(),
        dynamic_smem_bytes: Cfg::SMEM_BYTES,
    };
    let default = Cfg::NAME == "C128x256S4" && sms.is_none();
    if default {
        assert_eq!(launch_cfg, cfg(m, n));
    }
    launch(&launch_cfg, || {
        let ta = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&a), m, k, k, Cfg::a_box()).unwrap();
        let tb = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&b), n, k, k, Cfg::b_box()).unwrap();
        let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap())
            .unwrap();
        let smem = SmemRegion::dynamic();
        if default {
            hgemm_sm90::hgemm_sm90_tn(F32Accum(kind), ta, tb, tc, alpha, beta, smem);
        } else {
            hgemm_sm90::hgemm_sm90_tn_with::<Cfg, _, _>(F32Accum(kind), ta, tb, tc, alpha, beta, smem);
        }
    })
    .unwrap();
    let got = |i: usize, j: usize| f32::from_bits(c[i + j * m as usize].load(Relaxed));
    let what = format!("{} {kind:?} grid {:?}", Cfg::NAME, launch_cfg.grid);
    check_gemm(&what, (m as usize, n as usize, k as usize), av, bv, cv, alpha, beta, got);
}

/// `f16` accumulators and an `f16` `C` (row-major words of two halves): inputs in `0..=2` keep
/// every partial sum an integer below 2^11, exact in `f16`.
fn run_f16(m: u32, n: u32, k: u32, alpha: f32, beta: f32) {
    let av = |i: usize, p: usize| ((7 * i + 3 * p) % 3) as i32;
    let bv = |j: usize, p: usize| ((5 * j + 2 * p) % 2) as i32;
    let cv = |i: usize, j: usize| ((i + 2 * j) % 5) as f32;
    let kind = HalfKind::F16;
    let (a, b) = (operand(kind, m, k, &av), operand(kind, n, k, &bv));
    let nw = (n / 2) as usize;
    let h = |v: f32| f32_to_half(kind, v) as u32;
    let c: Vec<AtomicU32> = (0..m as usize * nw)
        .map(|w| (w / nw, 2 * (w % nw)))
        .map(|(i, j)| AtomicU32::new(h(cv(i, j)) | h(cv(i, j + 1)) << 16))
        .collect();
    launch(&cfg(m, n), || {
        let (ta, tb) = tensors(&a, &b, m, n, k);
        let tc = GlobalTensor::new(
            GmemMut::<u32>::from_cells(&c),
            make_layout((m, nw as u32), (nw as u32, C::<1>)).unwrap(),
        )
        .unwrap();
        hgemm_sm90::hgemm_sm90_tn(F16Accum, ta, tb, tc, alpha, beta, SmemRegion::dynamic());
    })
    .unwrap();
    let got = |i: usize, j: usize| unpack_half2(kind, c[i * nw + j / 2].load(Relaxed))[j % 2];
    check_gemm("f16", (m as usize, n as usize, k as usize), av, bv, cv, alpha, beta, got);
}

#[test]
fn one_whole_tile() {
    run_f32(HalfKind::F16, 128, 128, 64, 1.0, 0.0);
}

#[test]
fn residues_in_m_n_and_k_filled_by_tma() {
    run_f32(HalfKind::F16, 130, 72, 40, 2.0, 0.5);
}

#[test]
fn bf16_through_every_stage_twice() {
    // 7 k tiles: the three stages each refilled twice (their mbarriers' phases flip), two blocks.
    run_f32(HalfKind::BF16, 256, 128, 448, 1.0, 1.0);
}

#[test]
fn f16_accumulators_with_residues_and_many_k_tiles() {
    run_f16(136, 200, 264, -1.0, 2.0);
}

#[test]
fn raster_groups_cover_every_tile_row() {
    // 18 tile rows: a whole group of 16 and a group of 2 (its other blocks return at once).
    run_f32(HalfKind::F16, 17 * 128 + 5, 8, 64, 1.0, 0.0);
}

// Each configuration at residues in m, n and k with more k tiles than stages (the stages'
// mbarriers through several phases).

#[test]
fn c128x256s4_residues_and_more_k_tiles_than_stages() {
    // 5 k tiles over 4 stages; a cut tile in m and in n.
    run_f32_with::<C128x256S4>(HalfKind::BF16, (136, 264, 296), 1.0, 0.5, Some(132));
}

#[test]
fn c128x128s6_residues_and_more_k_tiles_than_stages() {
    // 7 k tiles over 6 stages; 2 x 2 tiles, cut in m and n.
    run_f32_with::<C128x128S6>(HalfKind::F16, (136, 200, 440), 2.0, -1.0, None);
}

#[test]
fn c64x256s4_residues_and_more_k_tiles_than_stages() {
    // One consumer warpgroup (no register split); 5 k tiles over 4 stages.
    run_f32_with::<C64x256S4>(HalfKind::F16, (136, 264, 296), 1.0, 1.0, None);
}

#[test]
fn c64x128s8_residues_and_more_k_tiles_than_stages() {
    // 9 k tiles over 8 stages.
    run_f32_with::<C64x128S8>(HalfKind::BF16, (72, 136, 552), 1.0, 0.0, None);
}

#[test]
fn c256x128s4_residues_and_more_k_tiles_than_stages() {
    // Two m64 wgmmas a k block and warpgroup (128 rows each); 5 k tiles over 4 stages; the
    // second warpgroup's rows cut.
    run_f32_with::<C256x128S4>(HalfKind::F16, (200, 136, 264), -1.0, 2.0, None);
}

// The persistent configurations with more tiles than blocks: each block's tiles in the grouped
// order, the mbarrier phases running on across them.

#[test]
fn c128x256s4p_more_tiles_than_blocks() {
    // 3 x 2 tiles on 4 blocks: two blocks take two tiles; 3 k tiles a tile, 4 stages, so the
    // second tile starts mid-round.
    run_f32_with::<C128x256S4P>(HalfKind::F16, (300, 264, 136), 1.0, 0.5, Some(4));
}

#[test]
fn c128x128s6p_more_tiles_than_blocks() {
    // 2 x 2 tiles on 3 blocks (the first takes two), 7 k tiles each over 6 stages: the second
    // tile starts mid-round.
    run_f32_with::<C128x128S6P>(HalfKind::BF16, (136, 200, 440), 2.0, 1.0, Some(3));
}

#[test]
fn c128x128s6p_one_block_across_raster_groups() {
    // 18 tile rows (a group of 16 and one of 2) by 2 columns on 3 blocks; 1 k tile each.
    run_f32_with::<C128x128S6P>(HalfKind::F16, (17 * 128 + 5, 136, 40), 1.0, 0.0, Some(3));
}

#[test]
fn persistent_grid_is_at_most_the_tiles() {
    assert_eq!(hgemm_sm90::grid_for::<C128x256S4P>(300, 264, 132).x, 6);
    assert_eq!(hgemm_sm90::grid_for::<C128x256S4P>(300, 264, 4).x, 4);
    assert_eq!(hgemm_sm90::grid_for::<C128x256S4P>(0, 264, 4).x, 1);
}

/// The chooser's table (generated from a device sweep) names only configurations that exist here
/// and in the PTX module's entry points, covers both input types, and `choose` returns a row's
/// own configuration at every measured shape and something at any other.
#[test]
fn the_chooser_names_configurations_the_module_has() {
    use const_layout_kernels::hgemm_sm90::{
        C64x128S8, C64x256S4, C128x128S6, C128x128S6P, C128x256S4, C128x256S4P, C256x128S4, Sm90Config,
    };
    use const_layout_kernels::hgemm_sm90_choice::{GemmDtype, TABLE, choose};
    let names = [
        C128x256S4::NAME,
        C128x256S4P::NAME,
        C128x128S6::NAME,
        C128x128S6P::NAME,
        C64x256S4::NAME,
        C64x128S8::NAME,
        C256x128S4::NAME,
    ]
    .map(str::to_ascii_lowercase);
    let entries = include_str!("../../../ptx/src/entry_points.rs");
    assert!(TABLE.iter().any(|r| r.3 == GemmDtype::F16) && TABLE.iter().any(|r| r.3 == GemmDtype::Bf16));
    for &(m, n, k, d, name, ratio) in TABLE {
        assert!(names.iter().any(|x| x == name), "{name}: not a configuration");
        assert!(entries.contains(&format!("hgemm_sm90_{name}_tn_f32")), "{name}: no PTX entry point");
        assert!(ratio > 0.0 && ratio.is_finite());
        let chosen = choose(m, n, k, d).unwrap();
        // Another row of the same shape and type may come first only if it is the same shape.
        let first = TABLE.iter().find(|r| (r.0, r.1, r.2, r.3) == (m, n, k, d)).unwrap();
        assert_eq!(chosen, first.4, "{m}x{n}x{k}");
    }
    for (m, n, k) in [(1, 1, 1), (3000, 77, 100_000), (u32::MAX, u32::MAX, u32::MAX), (16, 4096, 4096)] {
        assert!(choose(m, n, k, GemmDtype::Bf16).is_some());
    }
    assert_eq!(choose(16, 0, 4096, GemmDtype::F16), None);
}
