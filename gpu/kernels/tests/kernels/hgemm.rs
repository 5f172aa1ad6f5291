//! The tensor-core HGEMM on the emulated grid against an exact reference: small-integer `f16` and
//! `bf16` inputs (every product and sum exact in `f32`), whole tiles and residues in `m` and `n`,
//! several `k` tiles and a partial one, `alpha` and `beta`.

use crate::common::check_gemm;
use const_layout::{C, make_layout};
use const_layout_device::emu::{LaunchConfig, launch};
use const_layout_device::{GlobalTensor, Gmem, GmemMut, HalfKind, SmemRegion, f32_to_half, unpack_half2};
use const_layout_kernels::hgemm;
use const_layout_kernels::hgemm::{F16Accum, F32Accum};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Small integers as 16 bits of the given kind (exact).
fn half_bits(kind: HalfKind, v: i32) -> u32 {
    f32_to_half(kind, v as f32) as u32
}

/// `TN` (CuTe's `gemm_tn`: `A` and `B` k-contiguous) or `NT` (`gemm_nt`: column-major, so `m`
/// and `n` contiguous, staged MN-major and read with `ldmatrix.trans`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Operands {
    Tn,
    Nt,
}

/// An operand of `rows x k` halves as 32-bit words: `TN`, word `w` of row `r` holds `k` = `2w`,
/// `2w + 1`; `NT`, word `w` of column `p` holds rows `2w`, `2w + 1`.
fn operand(
    ops: Operands,
    kind: HalfKind,
    rows: u32,
    k: u32,
    f: &dyn Fn(usize, usize) -> i32,
) -> Vec<AtomicU32> {
    let (rows, k) = (rows as usize, k as usize);
    let pair = |(r0, p0): (usize, usize), (r1, p1): (usize, usize)| {
        AtomicU32::new(half_bits(kind, f(r0, p0)) | half_bits(kind, f(r1, p1)) << 16)
    };
    match ops {
        Operands::Tn => (0..rows * k / 2)
            .map(|w| (w / (k / 2), 2 * (w % (k / 2))))
            .map(|(r, p)| pair((r, p), (r, p + 1)))
            .collect(),
        Operands::Nt => (0..rows / 2 * k)
            .map(|w| (2 * (w % (rows / 2)), w / (rows / 2)))
            .map(|(r, p)| pair((r, p), (r + 1, p)))
            .collect(),
    }
}

fn run(ops: Operands, kind: HalfKind, m: u32, n: u32, k: u32, alpha: f32, beta: f32) {
    let av = |i: usize, p: usize| ((7 * i + 3 * p) % 9) as i32 - 4;
    let bv = |j: usize, p: usize| ((5 * j + 2 * p) % 7) as i32 - 3;
    let cv = |i: usize, j: usize| ((i + 2 * j) % 11) as f32 - 5.0;
    let (a, b) = (operand(ops, kind, m, k, &av), operand(ops, kind, n, k, &bv));
    let c: Vec<AtomicU32> =
        (0..(m * n) as usize).map(|i| AtomicU32::new(cv(i % m as usize, i / m as usize).to_bits())).collect();
    let cfg = LaunchConfig {
        grid: hgemm::grid(m, n),
        block: hgemm::block(),
        dynamic_smem_bytes: hgemm::SMEM_BYTES,
    };
    launch(&cfg, || {
        let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap())
            .unwrap();
        let (ga, gb) = (Gmem::<u32>::from_cells(&a), Gmem::<u32>::from_cells(&b));
        let smem = SmemRegion::dynamic();
        if ops == Operands::Tn {
            let kw = k / 2;
            let ta = GlobalTensor::new(ga, make_layout((m, kw), (kw, C::<1>)).unwrap()).unwrap();
            let tb = GlobalTensor::new(gb, make_layout((n, kw), (kw, C::<1>)).unwrap()).unwrap();
            hgemm::hgemm_tn(F32Accum(kind), ta, tb, tc, alpha, beta, smem);
        } else {
            let (mw, nw) = (m / 2, n / 2);
            let ta = GlobalTensor::new(ga, make_layout((mw, k), (C::<1>, mw)).unwrap()).unwrap();
            let tb = GlobalTensor::new(gb, make_layout((nw, k), (C::<1>, nw)).unwrap()).unwrap();
            hgemm::hgemm_nt(F32Accum(kind), ta, tb, tc, alpha, beta, smem);
        }
    })
    .unwrap();
    let got = |i: usize, j: usize| f32::from_bits(c[i + j * m as usize].load(Relaxed));
    let what = format!("{ops:?} {kind:?}");
    check_gemm(&what, (m as usize, n as usize, k as usize), av, bv, cv, alpha, beta, got);
}

#[test]
fn one_whole_tile() {
    run(Operands::Tn, HalfKind::F16, 128, 128, 64, 1.0, 0.0);
}

#[test]
fn residues_in_m_n_and_k() {
    run(Operands::Tn, HalfKind::F16, 130, 72, 40, 2.0, 0.5);
}

#[test]
fn bf16() {
    run(Operands::Tn, HalfKind::BF16, 96, 136, 48, 1.0, 1.0);
}

#[test]
fn whole_blocks_through_every_stage() {
    // 7 k tiles: the three stages each reused twice, and two blocks along m.
    run(Operands::Tn, HalfKind::F16, 256, 128, 448, 1.0, 0.0);
}

#[test]
fn residues_with_many_k_tiles() {
    // k not a multiple of 64: every block predicated, 4 k tiles, the last partial.
    run(Operands::Tn, HalfKind::BF16, 136, 200, 232, -1.0, 2.0);
}

/// `f16` accumulators and an `f16` `C` (row-major words of two halves), CuTe's types: inputs in
/// `0..=2` keep every sum of up to 2048 products an integer below 2^11, exact in `f16`.
fn run_f16(m: u32, n: u32, k: u32, alpha: f32, beta: f32) {
    let av = |i: usize, p: usize| ((7 * i + 3 * p) % 3) as i32;
    let bv = |j: usize, p: usize| ((5 * j + 2 * p) % 2) as i32;
    let cv = |i: usize, j: usize| ((i + 2 * j) % 5) as f32;
    let kind = HalfKind::F16;
    let kw = (k / 2) as usize;
    let (a, b) = (operand(Operands::Tn, kind, m, k, &av), operand(Operands::Tn, kind, n, k, &bv));
    let nw = (n / 2) as usize;
    let c: Vec<AtomicU32> = (0..m as usize * nw)
        .map(|w| {
            let (i, j) = (w / nw, 2 * (w % nw));
            AtomicU32::new(half_bits(kind, cv(i, j) as i32) | half_bits(kind, cv(i, j + 1) as i32) << 16)
        })
        .collect();
    let cfg = LaunchConfig {
        grid: hgemm::grid(m, n),
        block: hgemm::block(),
        dynamic_smem_bytes: hgemm::SMEM_BYTES,
    };
    launch(&cfg, || {
        let ta = GlobalTensor::new(
            Gmem::<u32>::from_cells(&a),
            make_layout((m, kw as u32), (kw as u32, C::<1>)).unwrap(),
        )
        .unwrap();
        let tb = GlobalTensor::new(
            Gmem::<u32>::from_cells(&b),
            make_layout((n, kw as u32), (kw as u32, C::<1>)).unwrap(),
        )
        .unwrap();
        let tc = GlobalTensor::new(
            GmemMut::<u32>::from_cells(&c),
            make_layout((m, nw as u32), (nw as u32, C::<1>)).unwrap(),
        )
        .unwrap();
        hgemm::hgemm_tn(F16Accum, ta, tb, tc, alpha, beta, SmemRegion::dynamic());
    })
    .unwrap();
    let got = |i: usize, j: usize| unpack_half2(kind, c[i * nw + j / 2].load(Relaxed))[j % 2];
    check_gemm("f16", (m as usize, n as usize, k as usize), av, bv, cv, alpha, beta, got);
}

#[test]
fn f16_accumulators_whole_blocks() {
    run_f16(128, 256, 320, 1.0, 0.0);
}

#[test]
fn f16_accumulators_with_residues() {
    run_f16(136, 90, 200, 1.0, 1.0);
}

#[test]
fn nt_whole_blocks_through_every_stage() {
    run(Operands::Nt, HalfKind::F16, 128, 256, 256, 1.0, 0.0);
}

#[test]
fn nt_residues_in_m_n_and_k() {
    run(Operands::Nt, HalfKind::BF16, 136, 200, 100, 2.0, 0.5);
}
