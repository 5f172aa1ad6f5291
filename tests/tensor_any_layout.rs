//! Tensors over static algebra results and swizzled layouts tile, partition, slice, divide and
//! copy through the same functions as tensors over typed layouts: every element of every part
//! against the layout's own offset of the coordinate CuTe's definition gives it.

use const_layout::algebra::computed::{composition, swizzle};
use const_layout::tensor::{
    Keep, TensorError, copy, local_partition, local_tile, make_tensor, make_tensor_mut, slice, zipped_divide,
};
use const_layout::{C, LayoutRight, layout, layout_type, make_layout, make_static_layout};

/// The coordinate thread `k` of a row-major `(p, q)` thread layout has (CuTe's `get_flat_coord`).
fn thread_coord(k: usize, q: usize) -> (usize, usize) {
    (k / q, k % q)
}

#[test]
fn a_static_algebra_result_tiles_partitions_divides_and_copies() {
    // A (16,12) layout whose offsets are neither row- nor column-major: a composition.
    let l = composition(<layout_type!((16,12):(12,1))>::default(), <layout_type!((16,12):(1,16))>::default());
    let at = |r: usize, c: usize| l.crd2idx((r, c)) as usize;
    let data: Vec<u32> = (0..192).map(|x| x * 3 + 1).collect();
    let t = make_tensor(&data, l).unwrap();
    for (i, j) in (0..4usize).flat_map(|i| (0..3usize).map(move |j| (i, j))) {
        let tile = local_tile(&t, (C::<4>, C::<4>), (i, j)).unwrap();
        assert_eq!(tile.layout().size(), 16);
        for (r, c) in (0..4usize).flat_map(|r| (0..4usize).map(move |c| (r, c))) {
            assert_eq!(tile[(r, c)], data[at(4 * i + r, 4 * j + c)], "tile ({i},{j}) at ({r},{c})");
        }
    }
    let threads = <layout_type!((4,3):(3,1))>::default();
    for k in 0..12 {
        let part = local_partition(&t, &threads, k).unwrap();
        let (t0, t1) = thread_coord(k, 3);
        for (a, b) in (0..4usize).flat_map(|a| (0..4usize).map(move |b| (a, b))) {
            assert_eq!(part[(a, b)], data[at(t0 + 4 * a, t1 + 3 * b)], "thread {k} at ({a},{b})");
        }
    }
    let z = zipped_divide(&t, (C::<4>, C::<4>)).unwrap();
    for n in 0..192usize {
        let (r, c, i, j) = (n % 4, n / 4 % 4, n / 16 % 4, n / 64);
        assert_eq!(z[((r, c), (i, j))], data[at(4 * i + r, 4 * j + c)]);
    }
    // Into a row-major matrix and back, tile by tile.
    let mut out = vec![0u32; 192];
    let mut m = make_tensor_mut(&mut out, make_static_layout((C::<16>, C::<12>), LayoutRight)).unwrap();
    for (i, j) in (0..4usize).flat_map(|i| (0..3usize).map(move |j| (i, j))) {
        let from = local_tile(&t, (C::<4>, C::<4>), (i, j)).unwrap();
        copy(&from, &mut local_tile(&mut m, (C::<4>, C::<4>), (i, j)).unwrap()).unwrap();
    }
    for (r, c) in (0..16usize).flat_map(|r| (0..12usize).map(move |c| (r, c))) {
        assert_eq!(out[r * 12 + c], data[at(r, c)]);
    }
    // Refusals: a tile that does not divide, a tile coordinate past the tiles, a thread past the
    // threads, threads that do not divide.
    assert_eq!(
        local_tile(&t, (C::<5>, C::<4>), (0usize, 0usize)).unwrap_err(),
        TensorError::NotDivisible { mode: 0, extent: 16, tile: 5 }
    );
    assert!(local_tile(&t, (C::<4>, C::<4>), (0usize, 3usize)).is_err());
    assert_eq!(
        local_partition(&t, &threads, 12).unwrap_err(),
        TensorError::ThreadOutOfRange { index: 12, threads: 12 }
    );
    let odd = <layout_type!((4,5):(5,1))>::default();
    assert_eq!(
        local_partition(&t, &odd, 0).unwrap_err(),
        TensorError::NotDivisible { mode: 1, extent: 12, tile: 5 }
    );
}

#[test]
fn a_swizzled_layout_tiles_partitions_slices_divides_and_copies() {
    let smem = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
    let at = |r: usize, c: usize| smem.crd2idx((r, c)) as usize;
    let data: Vec<u32> = (0..512).map(|x| x * 7 + 2).collect();
    let t = make_tensor(&data, smem).unwrap();
    let threads = make_static_layout((C::<2>, C::<4>), LayoutRight);
    for (i, j) in (0..2usize).flat_map(|i| (0..4usize).map(move |j| (i, j))) {
        // The tile keeps the offset inside the swizzle: its elements are the swizzled matrix's.
        let tile = local_tile(&t, (C::<4>, C::<16>), (i, j)).unwrap();
        assert_eq!(tile.layout().offset(), (4 * i * 64 + 16 * j) as isize);
        for (r, c) in (0..4usize).flat_map(|r| (0..16usize).map(move |c| (r, c))) {
            assert_eq!(tile[(r, c)], data[at(4 * i + r, 16 * j + c)], "tile ({i},{j}) at ({r},{c})");
        }
        // A partition of the tile: the offsets add up inside the swizzle.
        for k in 0..8 {
            let part = local_partition(&tile, &threads, k).unwrap();
            let (t0, t1) = thread_coord(k, 4);
            for (a, b) in (0..2usize).flat_map(|a| (0..4usize).map(move |b| (a, b))) {
                assert_eq!(part[(a, b)], data[at(4 * i + t0 + 2 * a, 16 * j + t1 + 4 * b)]);
            }
        }
    }
    let row = slice(&t, (3usize, Keep)).unwrap();
    assert!((0..64usize).all(|c| row[c] == data[at(3, c)]));
    let z = zipped_divide(&t, (C::<4>, C::<16>)).unwrap();
    for n in 0..512usize {
        let (r, c, i, j) = (n % 4, n / 4 % 16, n / 64 % 2, n / 128);
        assert_eq!(z[((r, c), (i, j))], data[at(4 * i + r, 16 * j + c)]);
    }
    assert_eq!(
        local_tile(&t, (C::<4>, C::<16>), (2usize, 0usize)).unwrap_err(),
        TensorError::TilePastShape { mode: 0, coord: 2, tile: 4, extent: 8 }
    );

    // The same through the generic path's swizzled layout, written tile by tile from a plain
    // row-major matrix by `copy`.
    let g = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
    let mut out = vec![0u32; 512];
    let mut s = make_tensor_mut(&mut out, g).unwrap();
    let plain: Vec<u32> = (0..512).collect();
    let m = make_tensor(&plain, make_layout((8usize, 64usize), LayoutRight).unwrap()).unwrap();
    for (i, j) in (0..2usize).flat_map(|i| (0..4usize).map(move |j| (i, j))) {
        let from = local_tile(&m, (C::<4>, C::<16>), (i, j)).unwrap();
        let mut to = local_tile(&mut s, (C::<4>, C::<16>), (i, j)).unwrap();
        copy(&from, &mut to).unwrap();
    }
    for (r, c) in (0..8usize).flat_map(|r| (0..64usize).map(move |c| (r, c))) {
        assert_eq!(out[at(r, c)], (r * 64 + c) as u32, "({r},{c})");
    }
}

#[test]
fn copy_refuses_shapes_that_are_not_compatible() {
    let data: Vec<u8> = (0..24).collect();
    let mut out = [0u8; 24];
    let a = make_tensor(&data, layout!((4,6):(6,1))).unwrap();
    // (4,6) against (6,4): equal sizes, but coordinates of one are not the other's.
    let mut b = make_tensor_mut(&mut out, layout!((6,4):(1,6))).unwrap();
    assert_eq!(copy(&a, &mut b).unwrap_err(), TensorError::ShapeMismatch { src: 24, dst: 24 });
    // (4,6) against ((2,2),(3,2)) and against 24: compatible, one way or the other.
    let mut c = make_tensor_mut(&mut out, layout!(((2,2),(3,2)):((1,2),(4,12)))).unwrap();
    copy(&a, &mut c).unwrap();
    let mut d = make_tensor_mut(&mut out, layout!(24:1)).unwrap();
    copy(&a, &mut d).unwrap();
    assert_eq!(out[..7], [0, 6, 12, 18, 1, 7, 13]);
    // Runtime-structured and runtime-valued shapes are checked the same way.
    let r: const_layout::dyn_layout::DynLayout = "(6,4):(1,6)".parse().unwrap();
    let mut e = make_tensor_mut(&mut out, r).unwrap();
    assert!(copy(&a, &mut e).is_err());
    let rt = make_layout((4usize, 6usize), LayoutRight).unwrap();
    let mut f = make_tensor_mut(&mut out, make_layout((6usize, 4usize), LayoutRight).unwrap()).unwrap();
    assert!(copy(&make_tensor(&data, rt).unwrap(), &mut f).is_err());
}

#[test]
fn an_index_order_copy_between_incompatible_shapes_is_one_line() {
    // DECISIONS.md 17's way round the shape check, where a copy in index order is meant.
    let data: Vec<u8> = (0..24).collect();
    let mut out = [0u8; 24];
    let src = make_tensor(&data, layout!((4,6):(6,1))).unwrap();
    let mut dst = make_tensor_mut(&mut out, layout!((6,4):(1,6))).unwrap();
    dst.for_each_mut(|i, x| *x = src[i]);
    assert!((0..24usize).all(|i| out[i] == data[(i % 4) * 6 + i / 4]));
}
