//! Tensors (`const_layout::tensor`) against direct index math and hand-written loops: element
//! access by every kind of coordinate on generated static, runtime and mixed layouts (negative
//! and zero strides included), slicing, `local_tile`, `zipped_divide`, `local_partition`, copies
//! between row-major, column-major, padded and tiled layouts, disjoint partitions (with the
//! `alloc` feature) and parallel partitions (with `rayon`), and every error.

use const_layout::algebra;
use const_layout::algebra::computed;
use const_layout::dyn_layout::DynLayout;
use const_layout::int::Int;
use const_layout::tensor::{
    Keep, TensorError, copy, copy_vector, local_partition, local_tile, make_tensor, make_tensor_mut, slice,
    zipped_divide,
};
use const_layout::{C, Layout, LayoutError, LayoutLeft, LayoutRight, make_layout, make_static_layout};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(0x7e45), failure_persistence: None, ..Config::default() }
}

/// The shift `make_tensor` applies: minus the smallest offset, found by brute force.
fn shift<S, D>(l: &Layout<S, D>) -> isize
where
    S: const_layout::int_tuple::IntTuple + const_layout::layout::LayoutShape<D>,
    D: const_layout::int_tuple::IntTuple,
{
    -l.iter().min().unwrap()
}

fn data(n: usize) -> Vec<i64> {
    (0..n as i64).map(|x| x * 7 + 3).collect()
}

/// Extents 1..=5 and strides -9..=9 (zero included) for two modes.
fn rank2() -> impl Strategy<Value = ((usize, usize), (isize, isize))> {
    ((1usize..=5, 1usize..=5), (-9isize..=9, -9isize..=9))
}

proptest! {
    #![proptest_config(config(400))]

    /// Every coordinate form reads the element at the layout's (shifted) offset; coordinates
    /// outside the shape read nothing; the check at construction is exactly the cosize.
    #[test]
    fn access_matches_crd2idx((shape, stride) in rank2(), extra in 0usize..4) {
        let l = make_layout(shape, stride).unwrap();
        let cosize = l.cosize();
        let v = data(cosize + extra);
        let t = make_tensor(&v, l).unwrap();
        let base = shift(&l);
        prop_assert_eq!(base + l.iter().max().unwrap() + 1, cosize as isize);
        for j in 0..shape.1 {
            for i in 0..shape.0 {
                let want = v[(base + l.crd2idx((i, j))) as usize];
                prop_assert_eq!(t[(i, j)], want);
                prop_assert_eq!(t.get(i + shape.0 * j), Some(&want));
            }
            prop_assert_eq!(t.get((shape.0, j)), None);
        }
        prop_assert_eq!(t.get((0usize, shape.1)), None);
        prop_assert_eq!(t.get(shape.0 * shape.1), None);
        let all: Vec<i64> = t.iter().copied().collect();
        let want: Vec<i64> = l.iter().map(|o| v[(base + o) as usize]).collect();
        prop_assert_eq!(all, want);
        if cosize > 0 {
            prop_assert_eq!(
                make_tensor(&v[..cosize - 1], l).unwrap_err(),
                TensorError::SliceTooShort { cosize, len: cosize - 1 }
            );
        }
    }

    /// Hierarchical and mixed coordinates on a nested runtime layout, and writes through
    /// `TensorMut` land where reads find them.
    #[test]
    fn nested_and_mutable(a in 1usize..=4, b in 1usize..=3, c in 1usize..=3, d in (-7isize..=7, -7isize..=7, -7isize..=7)) {
        let l = make_layout((a, (b, c)), (d.0, (d.1, d.2))).unwrap();
        let mut v = vec![0i64; l.cosize()];
        let base = shift(&l);
        let mut t = make_tensor_mut(&mut v, l).unwrap();
        for k in 0..c {
            for j in 0..b {
                for i in 0..a {
                    t[(i, (j, k))] = (i + 10 * j + 100 * k) as i64;
                }
            }
        }
        for k in 0..c {
            for j in 0..b {
                for i in 0..a {
                    let want = v_at(&t, (i, j + b * k));
                    prop_assert_eq!(*t.get((i, (j, k))).unwrap(), want);
                    prop_assert_eq!(*t.get(i + a * (j + b * k)).unwrap(), want);
                }
            }
        }
        prop_assert!(t.get((0usize, (b, 0usize))).is_none());
        prop_assert!(t.get_mut((a, 0usize)).is_none());
        // The last write to each element wins (zero strides alias), as with the hand loop.
        let mut hand = vec![0i64; l.cosize()];
        for k in 0..c {
            for j in 0..b {
                for i in 0..a {
                    hand[(base + l.crd2idx((i, (j, k)))) as usize] = (i + 10 * j + 100 * k) as i64;
                }
            }
        }
        prop_assert_eq!(v, hand);
    }

    /// `tensor.slice((Keep, j))` and `(i, Keep)` are the column and the row.
    #[test]
    fn slices_are_rows_and_columns((shape, stride) in rank2()) {
        let l = make_layout(shape, stride).unwrap();
        let v = data(l.cosize());
        let t = make_tensor(&v, l).unwrap();
        for j in 0..shape.1 {
            let col = t.slice((Keep, j)).unwrap();
            prop_assert_eq!(col.size(), shape.0);
            for i in 0..shape.0 {
                prop_assert_eq!(col[(i,)], t[(i, j)]);
                prop_assert_eq!(col[i], t[(i, j)]);
            }
        }
        for i in 0..shape.0 {
            let row = slice(&t, (i, Keep)).unwrap();
            let want: Vec<i64> = (0..shape.1).map(|j| t[(i, j)]).collect();
            prop_assert_eq!(row.iter().copied().collect::<Vec<_>>(), want);
        }
        let all = t.slice((Keep, Keep)).unwrap();
        prop_assert_eq!(all.iter().copied().collect::<Vec<_>>(), t.iter().copied().collect::<Vec<_>>());
        let one = t.slice((shape.0 - 1, shape.1 - 1)).unwrap();
        prop_assert_eq!(one[0usize], t[(shape.0 - 1, shape.1 - 1)]);
        prop_assert_eq!(
            t.slice((Keep, shape.1)).unwrap_err(),
            TensorError::Layout(LayoutError::CoordinateOutOfRange { leaf: 1, value: shape.1 as isize, extent: shape.1 as isize })
        );
    }

    /// `local_tile` and `zipped_divide` with static and runtime tiles on a padded column-major
    /// matrix: tile `(bi, bj)` element `(i, j)` is the matrix's `(bi*T0 + i, bj*T1 + j)`.
    #[test]
    fn tiles_match_the_matrix(mt in 1usize..=4, nt in 1usize..=4, pad in 0usize..3, t1 in 1usize..=3) {
        let (m, n) = (4 * mt, t1 * nt);
        let l = make_layout((m, n), (1isize, (m + pad) as isize)).unwrap();
        let v = data(l.cosize());
        let a = make_tensor(&v, l).unwrap();
        let z = zipped_divide(&a, (C::<4>, t1)).unwrap();
        for bj in 0..nt {
            for bi in 0..mt {
                let tile = local_tile(&a, (C::<4>, t1), (bi, bj)).unwrap();
                for j in 0..t1 {
                    for i in 0..4 {
                        let want = a[(4 * bi + i, t1 * bj + j)];
                        prop_assert_eq!(tile[(i, j)], want);
                        prop_assert_eq!(z[((i, j), (bi, bj))], want);
                    }
                }
                let zt = z.slice((Keep, (bi, bj))).unwrap();
                prop_assert_eq!(zt.iter().copied().collect::<Vec<_>>(), tile.iter().copied().collect::<Vec<_>>());
            }
        }
        // A residue tile is refused rather than reaching past the matrix.
        let odd = make_layout((m + 1, n), (1isize, (m + 1 + pad) as isize)).unwrap();
        let w = data(odd.cosize() as usize);
        let b = make_tensor(&w, odd).unwrap();
        prop_assert!(local_tile(&b, (C::<4>, t1), (mt - 1, 0usize)).is_ok());
        prop_assert_eq!(
            local_tile(&b, (C::<4>, t1), (mt, 0usize)).unwrap_err(),
            TensorError::TilePastShape { mode: 0, coord: mt as isize, tile: 4, extent: (m + 1) as isize }
        );
        prop_assert_eq!(
            zipped_divide(&b, (C::<4>, t1)).unwrap_err(),
            TensorError::NotDivisible { mode: 0, extent: (m + 1) as isize, tile: 4 }
        );
    }

    /// `local_partition`: thread `t` with coordinate `(c0, c1)` in the thread layout owns
    /// `(c0 + i*T0, c1 + j*T1)`; over all threads every element exactly once.
    #[test]
    fn partitions_match_and_cover(mt in 1usize..=3, nt in 1usize..=3, row_major in any::<bool>(), pad in 0usize..2) {
        let (m, n) = (4 * mt, 2 * nt);
        let l = make_layout((m, n), (1isize, (m + pad) as isize)).unwrap();
        let v = data(l.cosize());
        let a = make_tensor(&v, l).unwrap();
        let threads = make_layout((C::<4>, C::<2>), if row_major { (2isize, 1isize) } else { (1, 4) }).unwrap();
        let mut seen = vec![0u32; m * n];
        for t in 0..8usize {
            let (c0, c1) = if row_major { ((t / 2) % 4, t % 2) } else { (t % 4, (t / 4) % 2) };
            let p = local_partition(&a, &threads, t).unwrap();
            prop_assert_eq!(p.size(), mt * nt);
            for j in 0..nt {
                for i in 0..mt {
                    let (r, c) = (c0 + 4 * i, c1 + 2 * j);
                    prop_assert_eq!(p[(i, j)], a[(r, c)]);
                    seen[r + m * c] += 1;
                }
            }
        }
        prop_assert!(seen.iter().all(|&k| k == 1));
        prop_assert_eq!(
            local_partition(&a, &threads, 8).unwrap_err(),
            TensorError::ThreadOutOfRange { index: 8, threads: 8 }
        );
    }
}

/// Read through a `TensorMut` by an (integer, integer) coordinate whose second integer is split.
fn v_at<S, D>(t: &const_layout::TensorMut<'_, i64, Layout<S, D>>, crd: (usize, usize)) -> i64
where
    S: const_layout::int_tuple::IntTuple + const_layout::layout::LayoutShape<D>,
    D: const_layout::int_tuple::IntTuple,
    (usize, usize): const_layout::layout::Crd2Idx<S, D> + const_layout::layout::InShape<S>,
{
    *t.get(crd).unwrap()
}

/// Copy with `copy` and check against the hand loop `dst[Ld(i)] = src[Ls(i)]`.
macro_rules! check_copy {
    ($src:expr, $dst:expr) => {{
        let (ls, ld) = ($src, $dst);
        let src = data(ls.cosize().value() as usize);
        let (bs, bd) = (shift(&ls), shift(&ld));
        let mut got = vec![-1i64; ld.cosize().value() as usize];
        let mut want = got.clone();
        let a = make_tensor(&src, ls).unwrap();
        copy(&a, &mut make_tensor_mut(&mut got, ld).unwrap()).unwrap();
        for (os, od) in ls.iter().zip(ld.iter()) {
            want[(bd + od) as usize] = src[(bs + os) as usize];
        }
        assert_eq!(got, want, "copy {} -> {}", ls, ld);
        copy_vector(&ls, &ld)
    }};
}

#[test]
fn copy_row_major_column_major_and_tiled() {
    // Transpose-like: nothing contiguous together.
    let row = make_static_layout((C::<32>, C::<32>), LayoutRight);
    let col = make_static_layout((C::<32>, C::<32>), LayoutLeft);
    assert_eq!(check_copy!(row, col), 1);
    assert_eq!(check_copy!(col, row), 1);
    // Same layout: one run of everything.
    assert_eq!(check_copy!(col, col), 1024);
    assert_eq!(check_copy!(row, row), 1024);
    // Row-major into a padded row-major tile: rows are the runs (CuTe's vector follows stride 1
    // wherever it is, not only in the first mode).
    let padded_row = make_static_layout((C::<32>, C::<32>), (C::<40>, C::<1>));
    assert_eq!(check_copy!(row, padded_row), 32);
    // Runtime extents and strides vectorize by value.
    let (m, n) = (48usize, 20usize);
    let rt_col = make_layout((m, n), LayoutLeft).unwrap();
    let rt_padded = make_layout((m, n), (1isize, 64isize)).unwrap();
    assert_eq!(check_copy!(rt_col, rt_padded), 48);
    assert_eq!(check_copy!(rt_col, make_layout((m, n), LayoutRight).unwrap()), 1);
    // Tiled (blocked) layouts: 4x4 blocks of a 16x16 matrix stored block after block, against
    // column-major; the same tiling on both sides vectorizes whole blocks' columns.
    let blocked =
        make_static_layout(((C::<4>, C::<4>), (C::<4>, C::<4>)), ((C::<1>, C::<16>), (C::<4>, C::<64>)));
    let col16 =
        make_static_layout(((C::<4>, C::<4>), (C::<4>, C::<4>)), ((C::<1>, C::<4>), (C::<16>, C::<64>)));
    assert_eq!(check_copy!(blocked, col16), 4);
    assert_eq!(check_copy!(col16, blocked), 4);
    // A flat 16x16 against the blocked one (compatible shapes): the copy refines the modes.
    let flat = make_static_layout((C::<16>, C::<16>), LayoutLeft);
    assert_eq!(check_copy!(flat, blocked), 4);
    // Negative strides: a reversed copy.
    let rev = make_static_layout(C::<64>, C::<-1>);
    assert_eq!(check_copy!(make_static_layout(C::<64>, C::<1>), rev), 1);
    // Broadcast source (stride 0).
    assert_eq!(
        check_copy!(
            make_layout((8usize, 4usize), (0isize, 1isize)).unwrap(),
            make_layout((8usize, 4usize), LayoutLeft).unwrap()
        ),
        1
    );
}

#[test]
fn copy_refuses_other_shapes() {
    let v = data(64);
    let mut w = vec![0i64; 64];
    let a = make_tensor(&v, make_static_layout((C::<8>, C::<8>), LayoutLeft)).unwrap();
    let mut b = make_tensor_mut(&mut w, make_static_layout((C::<4>, C::<16>), LayoutLeft)).unwrap();
    assert_eq!(copy(&a, &mut b).unwrap_err(), TensorError::ShapeMismatch { src: 64, dst: 64 });
    let mut c = make_tensor_mut(&mut w, make_static_layout((C::<8>, C::<4>), LayoutLeft)).unwrap();
    assert_eq!(copy(&a, &mut c).unwrap_err(), TensorError::ShapeMismatch { src: 64, dst: 32 });
    // An integer shape is compatible with any shape of its size.
    let mut d = make_tensor_mut(&mut w, make_static_layout(C::<64>, C::<1>)).unwrap();
    assert!(copy(&a, &mut d).is_ok());
}

/// A random compact layout: the modes' strides in a random order, with padding between them.
fn shuffled(shape: &[usize], order: &[usize], pad: &[usize]) -> (Vec<usize>, Vec<isize>) {
    let mut stride = vec![0isize; shape.len()];
    let mut run = 1isize;
    for (k, &m) in order.iter().enumerate() {
        stride[m] = run;
        run = run * shape[m] as isize + pad[k] as isize;
    }
    (shape.to_vec(), stride)
}

proptest! {
    #![proptest_config(config(300))]

    /// Copies between random compact or padded layouts of one runtime shape: the hand loop's
    /// result, and a vector at least CuTe's `max_common_vector` (runtime algebra, and the static
    /// algebra where the layouts are static).
    #[test]
    fn copy_matches_hand_loop(
        shape in (1usize..=4, 1usize..=4, 1usize..=4),
        orders in (Just([0usize, 1, 2]).prop_shuffle(), Just([0usize, 1, 2]).prop_shuffle()),
        pads in ((0usize..2, 0usize..2, 0usize..2), (0usize..2, 0usize..2, 0usize..2)),
    ) {
        let s = [shape.0, shape.1, shape.2];
        let (_, ds) = shuffled(&s, &orders.0, &[pads.0.0, pads.0.1, pads.0.2]);
        let (_, dd) = shuffled(&s, &orders.1, &[pads.1.0, pads.1.1, pads.1.2]);
        let ls = make_layout(shape, (ds[0], ds[1], ds[2])).unwrap();
        let ld = make_layout(shape, (dd[0], dd[1], dd[2])).unwrap();
        let vector = check_copy!(ls, ld);
        // CuTe's answer on the same values, every integer marked static (CuTe's follows static
        // strides only; by value it is the comparable quantity).
        let fixed = |l: &Layout<(usize, usize, usize), (isize, isize, isize)>| {
            let d = DynLayout::try_from(l).unwrap();
            let all = |t: &const_layout::dyn_layout::DynIntTuple| t.map_leaves(|x| const_layout::dyn_layout::DynInt::new_static(x.value));
            DynLayout::new(all(d.shape()), all(d.stride())).unwrap()
        };
        let theirs = algebra::max_common_vector(&fixed(&ls), &fixed(&ld)).unwrap();
        prop_assert!(vector as isize >= theirs.value, "{} vs {}: {} < {}", ls, ld, vector, theirs.value);
        // By value, the vector is the longest common run of the first offsets of both, found by
        // brute force when it starts at the origin (compact prefixes).
        let inverse = |l: &Layout<(usize, usize, usize), (isize, isize, isize)>| {
            let mut at = vec![usize::MAX; l.cosize()];
            for (i, o) in l.iter().enumerate() {
                at[(o - l.iter().min().unwrap()) as usize] = i;
            }
            at
        };
        let (is, id) = (inverse(&ls), inverse(&ld));
        let mut brute = 0;
        while brute < is.len() && brute < id.len() && is[brute] != usize::MAX && is[brute] == id[brute] {
            brute += 1;
        }
        prop_assert!(vector <= brute.max(1), "{} vs {}: vector {} beyond the common prefix {}", ls, ld, vector, brute);
    }
}

#[test]
fn static_copy_vector_is_at_least_cutes() {
    macro_rules! both {
        ($a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            let ours = copy_vector(&a, &b) as isize;
            let cute = computed::max_common_vector(a, b);
            assert!(ours >= cute, "{a} vs {b}: {ours} < {cute}");
            ours
        }};
    }
    let col = make_static_layout((C::<8>, C::<8>), LayoutLeft);
    let row = make_static_layout((C::<8>, C::<8>), LayoutRight);
    assert_eq!(both!(col, col), 64);
    assert_eq!(both!(col, row), 1);
    assert_eq!(both!(row, make_static_layout((C::<8>, C::<8>), (C::<16>, C::<1>))), 8);
    assert_eq!(
        both!(
            make_static_layout((C::<4>, C::<8>), (C::<1>, C::<4>)),
            make_static_layout((C::<4>, C::<8>), (C::<1>, C::<8>))
        ),
        4
    );
}

#[test]
fn static_tensors_match_hand_loops() {
    // A static 8x8 row-major tensor read in coordinate, index and iteration order.
    let v = data(64);
    let t = make_tensor(&v, make_static_layout((C::<8>, C::<8>), LayoutRight)).unwrap();
    for i in 0..8usize {
        for j in 0..8usize {
            assert_eq!(t[(i, j)], v[i * 8 + j]);
        }
    }
    for k in 0..64usize {
        assert_eq!(t[k], v[(k % 8) * 8 + k / 8]);
    }
    // Static tile of a runtime matrix, then a static thread partition of the tile.
    let (m, n) = (24usize, 16usize);
    let w = data(m * n);
    let a = make_tensor(&w, make_layout((m, n), LayoutLeft).unwrap()).unwrap();
    let tile = local_tile(&a, (C::<8>, C::<8>), (2usize, 1usize)).unwrap();
    let threads = make_static_layout((C::<4>, C::<2>), LayoutLeft);
    let part = local_partition(&tile, &threads, 5).unwrap(); // thread (1, 1)
    assert_eq!(part.layout().to_string(), "(_2,_4):(_4,48)");
    for j in 0..4usize {
        for i in 0..2usize {
            assert_eq!(part[(i, j)], w[(16 + 1 + 4 * i) + (8 + 1 + 2 * j) * m]);
        }
    }
    // Negative strides: a reversed view is shifted onto the slice.
    let rev = make_tensor(&v, make_static_layout((C::<8>, C::<8>), (C::<-1>, C::<-8>))).unwrap();
    assert_eq!(rev[(0usize, 0usize)], v[63]);
    assert_eq!(rev[(7usize, 7usize)], v[0]);
}

#[test]
#[should_panic(expected = "tensor coordinate outside the shape")]
fn index_outside_the_shape_panics() {
    let v = data(64);
    let t = make_tensor(&v, make_static_layout((C::<8>, C::<8>), LayoutRight)).unwrap();
    // (8, 0) would be offset 64 in a row-major layout: past the end; (0, 8) would be offset 8, the
    // wrong element: both are refused.
    let _ = t[(0usize, 8usize)];
}

#[test]
fn errors_are_reported_not_panicked() {
    let v = data(10);
    assert_eq!(
        make_tensor(&v, make_layout((4usize, 3usize), LayoutLeft).unwrap()).unwrap_err(),
        TensorError::SliceTooShort { cosize: 12, len: 10 }
    );
    let mut w = data(10);
    assert_eq!(
        make_tensor_mut(&mut w, make_layout((3usize, 4usize), (4isize, -1isize)).unwrap()).unwrap_err(),
        TensorError::SliceTooShort { cosize: 12, len: 10 }
    );
    let t = make_tensor(&v, make_static_layout((C::<2>, C::<5>), LayoutLeft)).unwrap();
    assert_eq!(t.get((2usize, 0usize)), None);
    assert_eq!(t.get((0usize, 5usize)), None);
    assert_eq!(t.get(10usize), None);
    assert_eq!(
        local_tile(&t, (C::<2>, C::<2>), (0usize, 2usize)).unwrap_err(),
        TensorError::TilePastShape { mode: 1, coord: 2, tile: 2, extent: 5 }
    );
    assert_eq!(
        local_partition(&t, &make_static_layout((C::<1>, C::<2>), LayoutLeft), 0).unwrap_err(),
        TensorError::NotDivisible { mode: 1, extent: 5, tile: 2 }
    );
    let msg = TensorError::NotInjective { first: 0, second: 4, offset: 0 }.to_string();
    assert!(msg.contains("indices 0 and 4"), "{msg}");
}

/// Tensors over `DynLayout`s (runtime structure, host-side set-up) tile, divide, partition and
/// slice as index math says, on generated column- and row-major padded matrices and tilers that
/// divide them; residue tiles, tile coordinates past the tiles and threads past the thread
/// layout are refused.
mod dyn_layouts {
    use super::*;
    use const_layout::algebra::{Slicer, Tiler};
    use const_layout::dyn_layout::DynIntTuple;

    fn parse<T: core::str::FromStr>(s: String) -> T
    where
        T::Err: core::fmt::Debug,
    {
        s.parse().unwrap()
    }

    fn matrix() -> impl Strategy<Value = (usize, usize, usize, usize, usize, bool)> {
        (1usize..=4, 1usize..=4, 1usize..=3, 1usize..=3, 0usize..=2, any::<bool>())
            .prop_map(|(t0, t1, r0, r1, pad, row_major)| (t0 * r0, t1 * r1, t0, t1, pad, row_major))
    }

    proptest! {
        #![proptest_config(config(64))]
        #[test]
        fn dyn_layout_tensors_narrow_as_index_math((m, n, t0, t1, pad, row_major) in matrix()) {
            let (d0, d1) = if row_major { (n + pad, 1) } else { (1, m + pad) };
            let l: DynLayout = parse(format!("({m},{n}):({d0},{d1})"));
            let data: Vec<usize> = (0..(m - 1) * d0 + (n - 1) * d1 + 1).collect();
            let t = make_tensor(&data, l).unwrap();
            let at = |r: usize, c: usize| r * d0 + c * d1;
            let tiler: Tiler = parse(format!("<{t0}:1, {t1}:1>"));
            let (tm, tn) = (m / t0, n / t1);
            for i in 0..tm {
                for j in 0..tn {
                    let tile = local_tile(&t, tiler, parse::<DynIntTuple>(format!("({i},{j})"))).unwrap();
                    let want: Vec<usize> = (0..t0 * t1).map(|k| at(i * t0 + k % t0, j * t1 + k / t0)).collect();
                    prop_assert_eq!(tile.iter().copied().collect::<Vec<_>>(), want, "tile ({}, {})", i, j);
                }
            }
            let (past_rows, past_cols) = (format!("({tm},0)"), format!("(0,{tn})"));
            prop_assert!(local_tile(&t, tiler, parse::<DynIntTuple>(past_rows)).is_err());
            prop_assert!(local_tile(&t, tiler, parse::<DynIntTuple>(past_cols)).is_err());
            let z = zipped_divide(&t, tiler).unwrap();
            let want: Vec<usize> = (0..m * n)
                .map(|x| {
                    let (k, q) = (x % (t0 * t1), x / (t0 * t1));
                    at((q % tm) * t0 + k % t0, (q / tm) * t1 + k / t0)
                })
                .collect();
            prop_assert_eq!(z.iter().copied().collect::<Vec<_>>(), want);
            let threads: DynLayout = parse(format!("({t0},{t1}):(1,{t0})"));
            for th in 0..t0 * t1 {
                let mine = local_partition(&t, &threads, th).unwrap();
                let want: Vec<usize> =
                    (0..tm * tn).map(|v| at((v % tm) * t0 + th % t0, (v / tm) * t1 + th / t0)).collect();
                prop_assert_eq!(mine.iter().copied().collect::<Vec<_>>(), want, "thread {}", th);
            }
            prop_assert_eq!(
                local_partition(&t, &threads, t0 * t1).unwrap_err(),
                TensorError::ThreadOutOfRange { index: t0 * t1, threads: t0 * t1 }
            );
            for j in 0..n {
                let column = slice(&t, parse::<Slicer>(format!("(_,{j})"))).unwrap();
                prop_assert_eq!(column.iter().copied().collect::<Vec<_>>(), (0..m).map(|r| at(r, j)).collect::<Vec<_>>());
            }
            let past = format!("(_,{n})");
            prop_assert!(slice(&t, parse::<Slicer>(past)).is_err());
        }
    }

    /// A runtime-structured swizzled layout (`ComposedLayout`) narrows to the same elements as
    /// the static one it equals, for several swizzles: tiles, divides, partitions, slices.
    #[test]
    fn composed_layouts_narrow_as_static_swizzled_ones() {
        use const_layout::layout;
        use const_layout::swizzle::{ComposedLayout, Swizzle};
        macro_rules! check {
            ($b:literal, $m:literal, $s:literal) => {{
                let st = layout!(composition(Sw<$b,$m,$s>, (8,64):(64,1)));
                let dy = ComposedLayout::new(Swizzle::new($b, $m, $s).unwrap(), "(8,64):(64,1)".parse().unwrap());
                let data: Vec<usize> = (0..512).collect();
                let (a, b) = (make_tensor(&data, st).unwrap(), make_tensor(&data, dy).unwrap());
                let tiler: Tiler = "<4:1, 16:1>".parse().unwrap();
                for i in 0..2usize {
                    for j in 0..4usize {
                        let want = local_tile(&a, (C::<4>, C::<16>), (i, j)).unwrap();
                        let got = local_tile(&b, tiler, parse::<DynIntTuple>(format!("({i},{j})"))).unwrap();
                        assert_eq!(
                            got.iter().collect::<Vec<_>>(),
                            want.iter().collect::<Vec<_>>(),
                            "Sw<{},{},{}> tile ({i}, {j})", $b, $m, $s
                        );
                    }
                }
                let zs = zipped_divide(&a, (C::<4>, C::<16>)).unwrap();
                let zd = zipped_divide(&b, tiler).unwrap();
                assert_eq!(zd.iter().collect::<Vec<_>>(), zs.iter().collect::<Vec<_>>());
                let (ts, td) = (layout!((4,8):(8,1)), "(4,8):(8,1)".parse::<DynLayout>().unwrap());
                for th in 0..32 {
                    let (ps, pd) = (local_partition(&a, &ts, th).unwrap(), local_partition(&b, &td, th).unwrap());
                    assert_eq!(pd.iter().collect::<Vec<_>>(), ps.iter().collect::<Vec<_>>(), "thread {th}");
                }
                for j in 0..64usize {
                    let cs = slice(&a, (Keep, j)).unwrap();
                    let cd = slice(&b, parse::<Slicer>(format!("(_,{j})"))).unwrap();
                    assert_eq!(cd.iter().collect::<Vec<_>>(), cs.iter().collect::<Vec<_>>(), "column {j}");
                }
                assert!(local_tile(&b, tiler, parse::<DynIntTuple>("(2,0)".into())).is_err());
            }};
        }
        check!(3, 3, 3);
        check!(2, 0, 2);
        check!(1, 2, 3);
        check!(3, 4, 3);
    }

    /// A `DynAnyLayout` (what `to_dyn` gives) narrows as the layout it came from, for both of its
    /// variants: a plain layout's part comes back composed after the identity swizzle, its offset
    /// inside.
    #[test]
    fn dyn_any_layouts_narrow_as_the_layouts_they_came_from() {
        use const_layout::AnyLayout;
        use const_layout::layout;
        use const_layout::layout::DynAnyLayout;
        let data: Vec<usize> = (0..576).collect();
        let tiler: Tiler = "<4:1, 16:1>".parse().unwrap();
        let threads = "(4,8):(8,1)".parse::<DynLayout>().unwrap();
        let swizzled = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
        let padded = make_layout((8usize, 64usize), (1isize, 9isize)).unwrap();
        for any in [swizzled.to_dyn().unwrap(), padded.to_dyn().unwrap()] {
            let d = make_tensor(&data, any).unwrap();
            let direct = |i: usize| any.offset(i) as usize;
            let tile = local_tile(&d, tiler, parse::<DynIntTuple>("(1,2)".into())).unwrap();
            assert!(matches!(tile.layout(), DynAnyLayout::Composed(_)));
            let want: Vec<usize> = (0..64).map(|k| direct((4 + k % 4) + 8 * (32 + k / 4))).collect();
            assert_eq!(tile.iter().copied().collect::<Vec<_>>(), want, "{any}");
            let mine = local_partition(&d, &threads, 5).unwrap();
            // Thread 5 of (4,8):(8,1) is at (0, 5): rows 0, 4 and columns 5, 13, ..., 61.
            let want: Vec<usize> = (0..16).map(|v| direct((v % 2) * 4 + 8 * ((v / 2) * 8 + 5))).collect();
            assert_eq!(mine.iter().copied().collect::<Vec<_>>(), want, "{any}");
            let row = slice(&d, parse::<Slicer>("(3,_)".into())).unwrap();
            assert_eq!(
                row.iter().copied().collect::<Vec<_>>(),
                (0..64).map(|j| direct(3 + 8 * j)).collect::<Vec<_>>()
            );
            let z = zipped_divide(&d, tiler).unwrap();
            assert_eq!(z.iter().count(), 512);
        }
        assert_eq!(
            local_tile(
                &make_tensor(&data, padded.to_dyn().unwrap()).unwrap(),
                tiler,
                parse::<DynIntTuple>("(0,1)".into())
            )
            .unwrap()
            .layout()
            .to_string(),
            "Sw<0,0,0> o 144 o (4,16):(1,9)"
        );
    }

    /// A tiler that does not divide the layout is refused (no residue tiles), by `local_tile`,
    /// `zipped_divide` and `local_partition` alike.
    #[test]
    fn dyn_layout_residues_are_refused() {
        let data: Vec<usize> = (0..60).collect();
        let t = make_tensor(&data, parse::<DynLayout>("(10,6):(1,10)".into())).unwrap();
        let tiler: Tiler = parse("<4:1, 3:1>".into());
        assert!(matches!(
            local_tile(&t, tiler, parse::<DynIntTuple>("(0,0)".into())).unwrap_err(),
            TensorError::NotDivisible { mode: 0, extent: 10, tile: 4 }
        ));
        assert!(matches!(zipped_divide(&t, tiler).unwrap_err(), TensorError::NotDivisible { mode: 0, .. }));
        let threads: DynLayout = parse("(4,3):(1,4)".into());
        assert!(matches!(
            local_partition(&t, &threads, 0).unwrap_err(),
            TensorError::NotDivisible { mode: 0, extent: 10, tile: 4 }
        ));
    }
}

#[cfg(feature = "alloc")]
mod partitions {
    use super::*;

    /// Every element reached by the layout is in exactly one partition, at the position
    /// `local_partition` gives it; padding belongs to nobody.
    #[test]
    fn partitions_cover_every_element_once() {
        for (pad, row_major) in [(0usize, false), (3, false), (1, true)] {
            let (m, n) = (8usize, 6usize);
            let ld = m + pad;
            let l = make_layout((m, n), (1isize, ld as isize)).unwrap();
            let mut v = vec![-1i64; l.cosize()];
            let threads =
                make_layout((C::<4>, C::<3>), if row_major { (3isize, 1isize) } else { (1, 4) }).unwrap();
            let t = make_tensor_mut(&mut v, l).unwrap();
            let parts = t.partitions(&threads).unwrap();
            assert_eq!(parts.len(), 12);
            for mut p in parts {
                assert_eq!(p.len(), 4);
                let id = p.thread() as i64;
                for (k, x) in p.iter_mut().enumerate() {
                    assert_eq!(*x, -1, "an element handed out twice");
                    *x = id * 100 + k as i64;
                }
            }
            let mut hand = vec![-1i64; l.cosize()];
            let view = make_tensor(&v, l).unwrap();
            for t in 0..12usize {
                let mine = local_partition(&view, &threads, t).unwrap();
                for (k, off) in mine.layout().iter().enumerate() {
                    let (c0, c1) = if row_major { (t / 3, t % 3) } else { (t % 4, t / 4) };
                    hand[c0 + c1 * ld + off as usize] = t as i64 * 100 + k as i64;
                }
            }
            assert_eq!(v, hand);
            assert!(
                (0..n).all(|j| (m..ld).all(|i| v.get(i + j * ld).is_none_or(|&x| x == -1))),
                "padding was handed out"
            );
        }
    }

    #[test]
    fn non_injective_layouts_and_shared_threads_are_refused() {
        let mut v = vec![0i64; 16];
        // (4,4):(1,2): index 2 = (2,0) and index 4 = (0,1) both have offset 2.
        let t = make_tensor_mut(&mut v, make_layout((4usize, 4usize), (1isize, 2isize)).unwrap()).unwrap();
        assert_eq!(
            t.partitions(&make_static_layout((C::<2>, C::<2>), LayoutLeft)).unwrap_err(),
            TensorError::NotInjective { first: 2, second: 4, offset: 2 }
        );
        // Threads 1 and 2 of (2,2):(1,1) both have coordinate (1,0)... as CuTe's get_flat_coord
        // reads a non-compact thread layout.
        let t = make_tensor_mut(&mut v, make_static_layout((C::<4>, C::<4>), LayoutLeft)).unwrap();
        let err = t.partitions(&make_static_layout((C::<2>, C::<2>), (C::<1>, C::<1>))).unwrap_err();
        assert!(matches!(err, TensorError::ThreadsShare { .. }), "{err:?}");
        let t = make_tensor_mut(&mut v, make_static_layout((C::<4>, C::<4>), LayoutLeft)).unwrap();
        assert_eq!(
            t.partitions(&make_static_layout((C::<3>, C::<2>), LayoutLeft)).unwrap_err(),
            TensorError::NotDivisible { mode: 0, extent: 4, tile: 3 }
        );
    }

    /// Each thread's partition of a tensor over `layout` holds exactly the elements of its
    /// `local_partition`, in order, reached by its coordinates too; together they hold every
    /// element once. The data are the offsets, so an element names where it is.
    fn partitions_agree<L, Thr>(layout: L, threads: &Thr)
    where
        L: const_layout::tensor::LocalPartitionOf<Thr>,
        L::Part: const_layout::tensor::PartIndex,
        Thr: const_layout::AnyLayout,
        usize: const_layout::layout::LayoutCoord<<L::Part as const_layout::tensor::PartIndex>::Index>,
    {
        let n = layout.cosize();
        let offsets: Vec<usize> = (0..n).collect();
        let view = make_tensor(&offsets, layout).unwrap();
        let mut data = offsets.clone();
        let parts = make_tensor_mut(&mut data, layout).unwrap().partitions(threads).unwrap();
        assert_eq!(parts.len(), threads.size(), "{layout} by {threads}");
        let mut seen = vec![0usize; n];
        for p in &parts {
            let mine = local_partition(&view, threads, p.thread()).unwrap();
            let want: Vec<usize> = mine.iter().copied().collect();
            assert_eq!(
                p.iter().copied().collect::<Vec<_>>(),
                want,
                "thread {} of {layout} by {threads}",
                p.thread()
            );
            for (k, &at) in want.iter().enumerate() {
                assert_eq!(p.get(k), Some(&at), "index {k} of thread {}", p.thread());
                seen[at] += 1;
            }
            assert_eq!(p.get(want.len()), None);
        }
        let reached: Vec<usize> = layout.offsets().map(|o| o as usize).collect();
        assert!(reached.iter().all(|&o| seen[o] == 1), "{layout}: an element handed out twice or never");
        assert_eq!(seen.iter().sum::<usize>(), reached.len());
    }

    /// Partitions over swizzled layouts (the shared-memory case), over static layouts computed
    /// by the algebra, and over typed layouts, against `local_partition`.
    #[test]
    fn partitions_of_every_layout_kind_agree_with_local_partition() {
        use const_layout::layout;
        partitions_agree(layout!(composition(Sw<3,3,3>, (8,64):(64,1))), &layout!((4,8):(8,1)));
        partitions_agree(layout!(composition(Sw<3,3,3>, (8,64):(64,1))), &layout!((8,4):(1,8)));
        partitions_agree(layout!(composition(Sw<2,0,2>, (8,8):(8,1))), &layout!((4,2):(2,1)));
        partitions_agree(layout!(composition(Sw<1,2,3>, (16,16):(1,16))), &layout!((2,16):(16,1)));
        partitions_agree(layout!(composition(Sw<2,1,2>, (4,16):(16,1))), &layout!((2,4):(4,1)));
        let block = <const_layout::layout_type!((2,2):(1,2))>::default();
        let tiles = <const_layout::layout_type!((4,8):(1,4))>::default();
        let product = computed::blocked_product(block, tiles);
        partitions_agree(product, &layout!((4,4):(1,4)));
        partitions_agree(product, &layout!((8,2):(2,1)));
        let raked = computed::raked_product(block, tiles);
        partitions_agree(raked, &layout!((2,8):(8,1)));
        partitions_agree(layout!((8,6):(6,1)), &layout!((4,3):(3,1)));
        let runtime = make_layout((12usize, 10usize), (10isize, 1isize)).unwrap();
        partitions_agree(runtime, &make_static_layout((C::<3>, C::<5>), LayoutRight));
        let dynamic: DynLayout = "(12,10):(1,13)".parse().unwrap();
        partitions_agree(dynamic, &"(4,5):(5,1)".parse::<DynLayout>().unwrap());
        let composed = const_layout::swizzle::ComposedLayout::new(
            const_layout::swizzle::Swizzle::new(2, 1, 3).unwrap(),
            "(16,8):(8,1)".parse().unwrap(),
        );
        partitions_agree(composed, &"(4,2):(2,1)".parse::<DynLayout>().unwrap());
        // A swizzled layout with runtime extents (`SwizzledLayout`) and an offset.
        let sw = const_layout::layout::SwizzledLayout::<2, 1, 3, _, _, 0>::new(
            make_layout((16usize, 8usize), LayoutRight).unwrap(),
        );
        partitions_agree(sw, &make_static_layout((C::<4>, C::<2>), LayoutLeft));
    }

    /// Threads that share a coordinate and thread shapes that do not divide are refused over a
    /// swizzled layout as over a typed one.
    #[test]
    fn partitions_of_swizzled_layouts_refuse_what_typed_ones_refuse() {
        use const_layout::layout;
        let mut v = vec![0usize; 512];
        let sw = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
        // (2,2):(1,1) gives thread t the coordinate (t % 2, t % 2) (CuTe's get_flat_coord reads
        // each mode as `t / stride % extent`): threads 0 and 2 are both at (0, 0).
        let err = make_tensor_mut(&mut v, sw).unwrap().partitions(&layout!((2,2):(1,1))).unwrap_err();
        assert_eq!(err, TensorError::ThreadsShare { first: 0, second: 2 });
        let err = make_tensor_mut(&mut v, sw).unwrap().partitions(&layout!((3,2):(1,3))).unwrap_err();
        assert_eq!(err, TensorError::NotDivisible { mode: 0, extent: 8, tile: 3 });
        // (A static layout that threads do not divide is a compile error: the part is a constant.)
    }

    /// The tiled transpose of the module docs with partitions: each tile's destination split
    /// among 32 threads, each copying its partition of the source tile.
    #[test]
    fn partitioned_transpose() {
        let (m, n) = (64usize, 96usize);
        let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
        let mut dst = vec![0.0f32; m * n];
        let a = make_tensor(&src, make_layout((m, n), LayoutRight).unwrap()).unwrap();
        let mut b = make_tensor_mut(&mut dst, make_layout((m, n), LayoutLeft).unwrap()).unwrap();
        let threads = make_static_layout((C::<8>, C::<4>), LayoutLeft);
        for bj in 0..n / 32 {
            for bi in 0..m / 32 {
                let ta = local_tile(&a, (C::<32>, C::<32>), (bi, bj)).unwrap();
                let tb = local_tile(&mut b, (C::<32>, C::<32>), (bi, bj)).unwrap();
                for mut part in tb.partitions(&threads).unwrap() {
                    part.copy_from(&local_partition(&ta, &threads, part.thread()).unwrap()).unwrap();
                }
            }
        }
        assert!((0..m).all(|i| (0..n).all(|j| dst[i + j * m] == src[i * n + j])));
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;

    /// Parallel partitions give the serial result, for writes that depend on the thread and
    /// the position, and for a transpose.
    #[test]
    fn parallel_partitions_match_serial() {
        let (m, n) = (64usize, 48usize);
        let l = make_layout((m, n), (1isize, 70isize)).unwrap();
        let threads = make_static_layout((C::<8>, C::<4>), LayoutRight);
        let mut serial = vec![0i64; l.cosize()];
        let mut parallel = serial.clone();
        let work = |thread: usize, k: usize| (thread * 1000 + k * k) as i64;
        for mut p in make_tensor_mut(&mut serial, l).unwrap().partitions(&threads).unwrap() {
            let id = p.thread();
            p.iter_mut().enumerate().for_each(|(k, x)| *x = work(id, k));
        }
        make_tensor_mut(&mut parallel, l)
            .unwrap()
            .par_partitions(&threads, |mut p| {
                let id = p.thread();
                p.iter_mut().enumerate().for_each(|(k, x)| *x = work(id, k));
            })
            .unwrap();
        assert_eq!(serial, parallel);

        let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
        let a = make_tensor(&src, make_layout((m, n), LayoutRight).unwrap()).unwrap();
        let mut out = vec![0.0f32; m * n];
        let mut b = make_tensor_mut(&mut out, make_layout((m, n), LayoutLeft).unwrap()).unwrap();
        for bj in 0..n / 16 {
            for bi in 0..m / 32 {
                let ta = local_tile(&a, (C::<32>, C::<16>), (bi, bj)).unwrap();
                local_tile(&mut b, (C::<32>, C::<16>), (bi, bj))
                    .unwrap()
                    .par_partitions(&threads, |mut part| {
                        let from = local_partition(&ta, &threads, part.thread()).unwrap();
                        part.copy_from(&from).unwrap();
                    })
                    .unwrap();
            }
        }
        let mut want = vec![0.0f32; m * n];
        copy(&a, &mut make_tensor_mut(&mut want, make_layout((m, n), LayoutLeft).unwrap()).unwrap()).unwrap();
        assert_eq!(out, want);
    }
}
