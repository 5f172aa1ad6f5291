//! The Hopper GEMM on the emulated grid against an exact reference: small-integer `f16` and `bf16`
//! inputs (every sum exact), TMA's zero fill at residues in `m`, `n` and `k`, more k tiles than
//! stages (each stage's mbarriers through several phases), `alpha` and `beta`, both accumulators.
//! The emulator's TMA swizzles by TMA's rule on byte addresses and its `wgmma` reads the operands
//! by the PTX ISA's canonical layouts, so the stage layout, the box and the descriptors must agree.

use crate::common::check_gemm;
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::tma::TmaTensor2d;
use const_layout_device::{GlobalTensor, Gmem, GmemMut, HalfKind, SmemRegion, f32_to_half, unpack_half2};
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use const_layout_kernels::hgemm_sm90::{self, a_box, b_box};
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
    let av = |i: usize, p: usize| ((7 * i + 3 * p) % 9) as i32 - 4;
    let bv = |j: usize, p: usize| ((5 * j + 2 * p) % 7) as i32 - 3;
    let cv = |i: usize, j: usize| ((i + 2 * j) % 11) as f32 - 5.0;
    let (a, b) = (operand(kind, m, k, &av), operand(kind, n, k, &bv));
    let c: Vec<AtomicU32> =
        (0..(m * n) as usize).map(|i| AtomicU32::new(cv(i % m as usize, i / m as usize).to_bits())).collect();
    launch(&cfg(m, n), || {
        let (ta, tb) = tensors(&a, &b, m, n, k);
        let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap())
            .unwrap();
        hgemm_sm90::hgemm_sm90_tn(F32Accum(kind), ta, tb, tc, alpha, beta, SmemRegion::dynamic());
    })
    .unwrap();
    let got = |i: usize, j: usize| f32::from_bits(c[i + j * m as usize].load(Relaxed));
    let what = format!("{kind:?}");
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
