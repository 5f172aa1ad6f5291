//! CK Tile's coordinate transforms (`const_layout::ck_tile`): CK's worked examples (each an output
//! of CK's own code), the incremental updates
//! against recomputing from scratch (exhaustively on small lengths), the inverses, and agreement
//! with the layout algebra (`embed` and `unmerge` are layouts; `merge` is `idx2crd`).

use const_layout::ck_tile::{
    Embed, Freeze, Insert, InvertibleTransform, LeftPad, Merge, MergeDivMod, Modulo, MultiIndex, Offset, Pad,
    PassThrough, Replicate, RightPad, Slice, Transform, Unmerge, Xor, is_known_at_compile_time, multi_index,
};
use const_layout::{C, LayoutRight, make_layout};
use generic_array::GenericArray;
use typenum::{U1, U2, U3, U4};

fn mi<N: generic_array::ArrayLength>(v: &[isize]) -> MultiIndex<N> {
    GenericArray::try_from_iter(v.iter().copied()).expect("the right number of dimensions")
}

#[test]
fn reference_worked_examples() {
    // transforms.rst, confirmed against CK's code.
    let merge = Merge::new((4usize, 5usize)).unwrap();
    assert_eq!(merge.calculate_lower_index(&multi_index([13])).as_slice(), &[2, 3]);
    let unmerge = Unmerge::new((3usize, 4usize, 2usize));
    assert_eq!(unmerge.calculate_lower_index(&multi_index([1, 3, 0]))[0], 14);
    let embed = Embed::new((2usize, 3usize), (12isize, 1isize));
    assert_eq!(embed.calculate_lower_index(&multi_index([1, 2]))[0], 14);
    let offset = Offset::new(48usize, 16usize);
    assert_eq!(offset.calculate_lower_index(&multi_index([5]))[0], 21);
    let pad = Pad::new(3usize, 1usize, 1usize);
    let lower: Vec<isize> = (0..5).map(|u| pad.calculate_lower_index(&multi_index([u]))[0]).collect();
    assert_eq!(lower, [-1, 0, 1, 2, 3]);
    let valid: Vec<bool> = (0..5).map(|u| pad.is_valid_upper_index(&multi_index([u]))).collect();
    assert_eq!(valid, [false, true, true, true, false]);
    const { assert!(!<Pad<usize, usize, usize> as Transform>::ALWAYS_VALID) };
    // Legacy CK's carry/borrow merge: L = (4,5), l = (1,4) (u = 9), du = +3 -> dl = (1,-2), l' = (2,2);
    // l = (0,4), du = +11 -> dl = (3,-4), l' = (3,0).
    let mut low = multi_index([1, 4]);
    let step = merge.update_lower_index(&multi_index([3]), &mut low, &multi_index([12]));
    assert_eq!((step.as_slice(), low.as_slice()), (&[1, -2][..], &[2, 2][..]));
    let mut low = multi_index([0, 4]);
    let step = merge.update_lower_index(&multi_index([11]), &mut low, &multi_index([15]));
    assert_eq!((step.as_slice(), low.as_slice()), (&[3, -4][..], &[3, 0][..]));
    // CK's magic division example: d = 5, n = 13 -> 2 (here by FastDivmod, for every n).
    assert_eq!(
        Merge::new((C::<100>, C::<5>)).unwrap().calculate_lower_index(&multi_index([13])).as_slice(),
        &[2, 3]
    );
}

/// Every in-range (index, step) pair of a merge: the carry/borrow update equals the lower index
/// recomputed by division, for both forms; the inverse returns the index.
fn merge_moves_exactly<
    N: generic_array::ArrayLength,
    Ls: const_layout::int_tuple::ToArray<Len = N> + Copy,
>(
    lengths: Ls,
) {
    let magic = Merge::new(lengths).unwrap();
    let divmod = MergeDivMod::new(lengths).unwrap();
    let size = magic.upper_lengths()[0];
    assert_eq!(divmod.upper_lengths()[0], size);
    for u in 0..size {
        let fresh = magic.calculate_lower_index(&multi_index([u]));
        assert_eq!(fresh, divmod.calculate_lower_index(&multi_index([u])), "u = {u}");
        assert_eq!(magic.calculate_upper_index(&fresh)[0], u);
        assert_eq!(divmod.calculate_upper_index(&fresh)[0], u);
        for v in 0..size {
            let du = v - u;
            let target = magic.calculate_lower_index(&multi_index([v]));
            for (name, low) in [("magic", &mut fresh.clone()), ("divmod", &mut fresh.clone())] {
                let step = if name == "magic" {
                    magic.update_lower_index(&multi_index([du]), low, &multi_index([v]))
                } else {
                    divmod.update_lower_index(&multi_index([du]), low, &multi_index([v]))
                };
                assert_eq!(*low, target, "{name}: {u} + {du}");
                let expected: Vec<isize> = target.iter().zip(fresh.iter()).map(|(t, f)| t - f).collect();
                assert_eq!(step.as_slice(), &expected[..], "{name}: step of {u} + {du}");
            }
            // The carry-free fast path: exact whenever it says so, and it says so exactly when
            // only the last lower dimension moves.
            for (name, (step, exact), low) in [
                (
                    "magic",
                    magic.update_lower_index_without_carry(
                        &multi_index([du]),
                        &mut fresh.clone(),
                        &multi_index([v]),
                    ),
                    {
                        let mut l = fresh.clone();
                        magic.update_lower_index_without_carry(&multi_index([du]), &mut l, &multi_index([v]));
                        l
                    },
                ),
                (
                    "divmod",
                    divmod.update_lower_index_without_carry(
                        &multi_index([du]),
                        &mut fresh.clone(),
                        &multi_index([v]),
                    ),
                    {
                        let mut l = fresh.clone();
                        divmod.update_lower_index_without_carry(
                            &multi_index([du]),
                            &mut l,
                            &multi_index([v]),
                        );
                        l
                    },
                ),
            ] {
                let only_last = target.iter().zip(fresh.iter()).rev().skip(1).all(|(t, f)| t == f);
                assert_eq!(exact, only_last || fresh.len() == 1, "{name}: fast path of {u} + {du}");
                if exact {
                    assert_eq!(low, target, "{name}: fast {u} + {du}");
                    let expected: Vec<isize> = target.iter().zip(fresh.iter()).map(|(t, f)| t - f).collect();
                    assert_eq!(step.as_slice(), &expected[..], "{name}: fast step of {u} + {du}");
                }
            }
        }
    }
}

#[test]
fn merge_updates_equal_recomputing() {
    merge_moves_exactly((4usize, 5usize));
    merge_moves_exactly((2usize, 3usize, 4usize));
    merge_moves_exactly((3usize, 1usize, 5usize));
    merge_moves_exactly((2usize, 2usize, 2usize, 2usize));
    merge_moves_exactly((C::<3>, 4usize, C::<2>));
    merge_moves_exactly(7usize);
}

#[test]
fn merge_is_idx2crd_and_unmerge_and_embed_are_layouts() {
    // Row-major: CK's merge of (a,b,c) is CuTe's idx2crd into the LayoutRight layout.
    let (a, b, c) = (3usize, 4usize, 5usize);
    let merge = Merge::new((a, b, c)).unwrap();
    let unmerge = Unmerge::new((a, b, c));
    let right = make_layout((a, b, c), LayoutRight).unwrap();
    for u in 0..(a * b * c) as isize {
        let low = merge.calculate_lower_index(&multi_index([u]));
        assert_eq!(right.crd2idx((low[0] as usize, low[1] as usize, low[2] as usize)), u);
        assert_eq!(unmerge.calculate_lower_index(&low)[0], u);
        assert_eq!(unmerge.calculate_upper_index(&multi_index([u])), low);
    }
    // Embed is a layout's crd2idx.
    let embed = Embed::new((3usize, 4usize, 2usize), (7isize, -2isize, 30isize));
    let layout = make_layout((3usize, 4usize, 2usize), (7isize, -2isize, 30isize)).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..2 {
                let up = multi_index([i, j, k]);
                assert_eq!(
                    embed.calculate_lower_index(&up)[0],
                    layout.crd2idx((i as usize, j as usize, k as usize))
                );
            }
        }
    }
}

/// A transform's update from every upper index to every other (in a box) equals recomputing, and
/// its inverse (if any) returns the index.
fn moves_exactly<T: Transform>(t: &T, ups: &[MultiIndex<T::Up>]) {
    for u in ups {
        let fresh = t.calculate_lower_index(u);
        for v in ups {
            let du: MultiIndex<T::Up> = mi(&v.iter().zip(u.iter()).map(|(a, b)| a - b).collect::<Vec<_>>());
            let mut low = fresh.clone();
            let step = t.update_lower_index(&du, &mut low, v);
            let target = t.calculate_lower_index(v);
            assert_eq!(low, target, "{u:?} -> {v:?}");
            let expected: Vec<isize> = target.iter().zip(fresh.iter()).map(|(a, b)| a - b).collect();
            assert_eq!(step.as_slice(), &expected[..], "step {u:?} -> {v:?}");
        }
    }
}

fn all_1d(n: isize) -> Vec<MultiIndex<U1>> {
    (0..n).map(|u| multi_index([u])).collect()
}

fn all_2d(a: isize, b: isize) -> Vec<MultiIndex<U2>> {
    (0..a).flat_map(|i| (0..b).map(move |j| multi_index([i, j]))).collect()
}

#[test]
fn every_transform_moves_exactly_and_inverts() {
    let pt = PassThrough::new(C::<6>);
    moves_exactly(&pt, &all_1d(6));
    let pad = Pad::new(4usize, 2usize, 1usize);
    moves_exactly(&pad, &all_1d(7));
    let left = LeftPad::new(4usize, 2usize, C::<0>);
    let right = RightPad::new(4usize, C::<0>, 3usize);
    assert_eq!((left.upper_lengths()[0], right.upper_lengths()[0]), (6, 7));
    assert_eq!(
        (left.is_valid_upper_index(&multi_index([1])), right.is_valid_upper_index(&multi_index([4]))),
        (false, false)
    );
    assert_eq!(
        (left.is_valid_upper_index(&multi_index([2])), right.is_valid_upper_index(&multi_index([3]))),
        (true, true)
    );
    let unchecked = Pad::unchecked(4usize, 2usize, 1usize);
    assert!(
        unchecked.is_valid_upper_index(&multi_index([0]))
            && <Pad<usize, usize, usize, true> as Transform>::ALWAYS_VALID
    );
    let embed = Embed::new((3usize, 4usize), (5isize, 1isize));
    moves_exactly(&embed, &all_2d(3, 4));
    let unmerge = Unmerge::new((C::<3>, 4usize));
    moves_exactly(&unmerge, &all_2d(3, 4));
    let offset = Offset::new(5usize, 7isize);
    moves_exactly(&offset, &all_1d(5));
    let slice = Slice::new(10usize, 3usize, 8usize);
    moves_exactly(&slice, &all_1d(5));
    let modulo = Modulo::new(3usize, 10usize).unwrap();
    moves_exactly(&modulo, &all_1d(10));
    let xor = Xor::new(4usize, 8usize).unwrap();
    moves_exactly(&xor, &all_2d(4, 8));
    let freeze = Freeze::new(5usize);
    let mut low = freeze.calculate_lower_index(&multi_index([]));
    assert_eq!((low[0], freeze.update_lower_index(&multi_index([]), &mut low, &multi_index([]))[0]), (5, 0));
    let insert = Insert::new(4usize);
    assert_eq!((insert.upper_lengths()[0], insert.calculate_lower_index(&multi_index([3])).len()), (4, 0));
    let replicate = Replicate::new((2usize, 3usize));
    assert_eq!(replicate.upper_lengths().as_slice(), &[2, 3]);
    // Inverses.
    for u in all_1d(7) {
        assert_eq!(pad.calculate_upper_index(&pad.calculate_lower_index(&u)), u);
    }
    for u in all_1d(5) {
        for t in [
            offset.calculate_upper_index(&offset.calculate_lower_index(&u)),
            slice.calculate_upper_index(&slice.calculate_lower_index(&u)),
            pt.calculate_upper_index(&pt.calculate_lower_index(&u)),
        ] {
            assert_eq!(t, u);
        }
    }
    for u in all_2d(4, 8) {
        assert_eq!(xor.calculate_upper_index(&xor.calculate_lower_index(&u)), u);
    }
    // The xor is a permutation of each row (the LDS swizzle never collides).
    for i in 0..4 {
        let mut row: Vec<isize> =
            (0..8).map(|j| xor.calculate_lower_index(&multi_index([i, j]))[1]).collect();
        row.sort();
        assert_eq!(row, (0..8).collect::<Vec<_>>());
    }
}

#[test]
fn bad_parameters_are_errors() {
    assert!(Merge::new((4usize, 0usize)).is_err());
    assert!(MergeDivMod::new((0usize, 4usize)).is_err());
    assert!(Modulo::new(0usize, 4usize).is_err());
    assert!(Xor::new(4usize, 0usize).is_err());
    let _: MultiIndex<U3> = mi(&[1, 2, 3]);
    let _: MultiIndex<U4> = mi(&[1, 2, 3, 4]);
}

/// CK's own unit test, `test/ck_tile/coordinate_transform/test_coordinate_transform.cpp`
/// (ROCm/composable_kernel @bc63757a): its inputs and expected values.
#[test]
fn upstream_unit_test_values() {
    // Merge2Dto1D: (4,5), upper length 20; 0 -> (0,0), 7 -> (1,2), 19 -> (3,4).
    let m = Merge::new((4usize, 5usize)).unwrap();
    assert_eq!(m.upper_lengths()[0], 20);
    for (u, low) in [(0, [0, 0]), (7, [1, 2]), (19, [3, 4])] {
        assert_eq!(m.calculate_lower_index(&multi_index([u])).as_slice(), &low);
    }
    // Merge3Dto1D: (2,3,4), upper length 24; 23 -> (1,2,3), 6 -> (0,1,2), 0 -> (0,0,0).
    let m = Merge::new((C::<2>, C::<3>, C::<4>)).unwrap();
    assert_eq!(m.upper_lengths()[0], 24);
    for (u, low) in [(23, [1, 2, 3]), (6, [0, 1, 2]), (0, [0, 0, 0])] {
        assert_eq!(m.calculate_lower_index(&multi_index([u])).as_slice(), &low);
    }
    // Pad: length 10, left 2, right 3: upper length 15; 2 -> 0, 5 -> 3, 11 -> 9; valid 2..=11.
    let p = Pad::new(10usize, 2usize, 3usize);
    assert_eq!(p.upper_lengths()[0], 15);
    for (u, l) in [(2, 0), (5, 3), (11, 9)] {
        assert_eq!(p.calculate_lower_index(&multi_index([u]))[0], l);
    }
    for (u, valid) in [(0, false), (1, false), (2, true), (11, true), (12, false), (14, false)] {
        assert_eq!(p.is_valid_upper_index(&multi_index([u])), valid, "{u}");
    }
    // Embed2Dto1D: lengths (4,5), coefficients (2,3) (im2col: dilation 2, stride 3).
    let e = Embed::new((4usize, 5usize), (2isize, 3isize));
    for (up, l) in [
        ([0, 0], 0),
        ([1, 0], 2),
        ([2, 0], 4),
        ([0, 1], 3),
        ([1, 1], 5),
        ([2, 1], 7),
        ([0, 2], 6),
        ([2, 2], 10),
    ] {
        assert_eq!(e.calculate_lower_index(&multi_index(up))[0], l, "{up:?}");
    }
}

/// Each transform's vector-access rule (`calculate_upper_dimension_safe_vector_length_strides`)
/// on the rules of CK's `coordinate_transform.hpp` (ROCm/composable_kernel @0b42f814, the same
/// in the compiled snapshot @8e22e1ae), and where it differs from CK (decision 4), why.
mod vector_rules {
    use super::*;
    use const_layout::ck_tile::{SafeVector, SafeVectors};

    fn sv<N: generic_array::ArrayLength>(v: &[(isize, isize)]) -> SafeVectors<N> {
        GenericArray::try_from_iter(v.iter().map(|&(l, s)| SafeVector::from_ck(l, s))).expect("count")
    }

    fn ck<N: generic_array::ArrayLength>(v: &SafeVectors<N>) -> Vec<(isize, isize)> {
        v.iter().map(|s| s.to_ck()).collect()
    }

    #[test]
    fn cks_rules() {
        let low1 = sv::<U1>(&[(8, 1)]);
        // pass_through forwards.
        let pt = PassThrough::new(8usize);
        assert_eq!(ck(&pt.calculate_upper_dimension_safe_vector_length_strides(&low1)), [(8, 1)]);
        // merge (both forms): the last lower dimension's.
        let low3 = sv::<U3>(&[(-1, -1), (2, 5), (4, 1)]);
        let m = Merge::new((2usize, 3usize, 4usize)).unwrap();
        assert_eq!(ck(&m.calculate_upper_dimension_safe_vector_length_strides(&low3)), [(4, 1)]);
        let m = MergeDivMod::new((2usize, 3usize, 4usize)).unwrap();
        assert_eq!(ck(&m.calculate_upper_dimension_safe_vector_length_strides(&low3)), [(4, 1)]);
        // unmerge: the last upper dimension gets gcd(lower length, its length) when that length is
        // static, and the lower stride in any case; the others nothing.
        let u = Unmerge::new((3usize, C::<6>));
        assert_eq!(ck(&u.calculate_upper_dimension_safe_vector_length_strides(&low1)), [(-1, -1), (2, 1)]);
        let u = Unmerge::new((3usize, 6usize));
        assert_eq!(ck(&u.calculate_upper_dimension_safe_vector_length_strides(&low1)), [(-1, -1), (-1, 1)]);
        let u = Unmerge::new((C::<3>, C::<6>));
        assert_eq!(
            ck(&u.calculate_upper_dimension_safe_vector_length_strides(&sv::<U1>(&[(-1, 1)]))),
            [(-1, -1), (-1, 1)]
        );
        // The rest: nothing (CK's base_transform default).
        let none1 = [(-1, -1)];
        assert_eq!(
            ck(&Embed::new((4usize, 8usize), (8isize, 1isize))
                .calculate_upper_dimension_safe_vector_length_strides(&low1)),
            [(-1, -1), (-1, -1)]
        );
        assert_eq!(
            ck(&Pad::new(8usize, 1usize, 1usize).calculate_upper_dimension_safe_vector_length_strides(&low1)),
            none1
        );
        assert_eq!(
            ck(&Pad::new(8usize, C::<4>, C::<4>).calculate_upper_dimension_safe_vector_length_strides(&low1)),
            none1
        );
        assert_eq!(
            ck(&Offset::new(8usize, 3isize).calculate_upper_dimension_safe_vector_length_strides(&low1)),
            none1
        );
        assert_eq!(
            ck(&Slice::new(8usize, 0usize, 4usize)
                .calculate_upper_dimension_safe_vector_length_strides(&low1)),
            none1
        );
        assert_eq!(
            ck(&Modulo::new(4usize, 8usize)
                .unwrap()
                .calculate_upper_dimension_safe_vector_length_strides(&low1)),
            none1
        );
        assert_eq!(
            ck(&Insert::new(4usize)
                .calculate_upper_dimension_safe_vector_length_strides(&sv::<typenum::U0>(&[]))),
            none1
        );
        assert_eq!(
            ck(&Replicate::new((2usize, 3usize))
                .calculate_upper_dimension_safe_vector_length_strides(&sv::<typenum::U0>(&[]))),
            [(-1, -1), (-1, -1)]
        );
        assert!(Freeze::new(2usize).calculate_upper_dimension_safe_vector_length_strides(&low1).is_empty());
    }

    /// One-sided pads: CK forwards the lower guarantee; that promises runs that do not exist when
    /// the padding is not a multiple of the length, so here the length is gcd(length, padding).
    #[test]
    fn one_sided_pads_are_gcds() {
        let low = sv::<U1>(&[(8, 1)]);
        let right = RightPad::new(16usize, C::<0>, C::<4>);
        assert_eq!(ck(&right.calculate_upper_dimension_safe_vector_length_strides(&low)), [(4, 1)]);
        let right = RightPad::new(16usize, C::<0>, C::<16>);
        assert_eq!(
            ck(&right.calculate_upper_dimension_safe_vector_length_strides(&low)),
            [(8, 1)],
            "CK's where it holds"
        );
        let left = LeftPad::new(16usize, C::<2>, C::<0>);
        assert_eq!(ck(&left.calculate_upper_dimension_safe_vector_length_strides(&low)), [(2, 1)]);
        // Runtime padding: no static length to bound the runs with.
        let left = Pad::new(16usize, 3usize, C::<0>);
        assert_eq!(ck(&left.calculate_upper_dimension_safe_vector_length_strides(&low)), [(-1, 1)]);
        // Why: left_pad(4, 1) over safe length 4: the upper run 4..8 is lower 3..7, past 0..4.
        let left = LeftPad::new(4usize, C::<1>, C::<0>);
        let low4 = sv::<U1>(&[(4, 1)]);
        assert_eq!(left.calculate_lower_index(&multi_index([4]))[0], 3);
        assert_eq!(ck(&left.calculate_upper_dimension_safe_vector_length_strides(&low4)), [(1, 1)]);
    }

    /// xor: CK forwards both lower guarantees; a run along either upper dimension is not a run
    /// below (the xor permutes it), so here both are unknown.
    #[test]
    fn xor_knows_nothing() {
        let x = Xor::new(4usize, 4usize).unwrap();
        assert_eq!(
            ck(&x.calculate_upper_dimension_safe_vector_length_strides(&sv::<U2>(&[(4, 4), (4, 1)]))),
            [(-1, -1), (-1, -1)]
        );
        let row: Vec<isize> = (0..4).map(|j| x.calculate_lower_index(&multi_index([1, j]))[1]).collect();
        assert_eq!(row, [1, 0, 3, 2], "a run along u1 is permuted");
        let col: Vec<isize> = (0..4).map(|i| x.calculate_lower_index(&multi_index([i, 0]))[1]).collect();
        assert_eq!(col, [0, 1, 2, 3], "a run along u0 moves l1 too");
    }
}

/// CK's `is_known_at_compile_time`: a transform is static exactly when every parameter is, so
/// each transform with all parameters static says yes, and with any one of them runtime says no.
#[test]
fn every_transform_is_known_at_compile_time_exactly_when_its_parameters_are() {
    fn check<A: Transform, B: Transform>(name: &str, all_static: &A, one_runtime: &B) {
        assert!(is_known_at_compile_time(all_static), "{name}: all parameters static");
        assert!(!is_known_at_compile_time(one_runtime), "{name}: a runtime parameter");
    }
    check("pass_through", &PassThrough::new(C::<8>), &PassThrough::new(8usize));
    check("offset", &Offset::new(C::<8>, C::<2>), &Offset::new(C::<8>, 2usize));
    check("slice", &Slice::new(C::<8>, C::<1>, C::<5>), &Slice::new(8usize, C::<1>, C::<5>));
    check("pad", &Pad::new(C::<8>, C::<1>, C::<2>), &Pad::new(C::<8>, C::<1>, 2usize));
    check("left_pad", &LeftPad::new(C::<8>, C::<1>, C::<0>), &LeftPad::new(C::<8>, 1usize, C::<0>));
    check("right_pad", &RightPad::new(C::<8>, C::<0>, C::<3>), &RightPad::new(8usize, C::<0>, C::<3>));
    check(
        "embed",
        &Embed::new((C::<2>, C::<3>), (C::<3>, C::<1>)),
        &Embed::new((C::<2>, C::<3>), (3isize, C::<1>)),
    );
    check("unmerge", &Unmerge::new((C::<2>, C::<3>)), &Unmerge::new((C::<2>, 3usize)));
    check("merge", &Merge::new((C::<2>, C::<3>)).unwrap(), &Merge::new((2usize, C::<3>)).unwrap());
    check(
        "merge_v3",
        &MergeDivMod::new((C::<2>, C::<3>)).unwrap(),
        &MergeDivMod::new((C::<2>, 3usize)).unwrap(),
    );
    check("freeze", &Freeze::new(C::<2>), &Freeze::new(2usize));
    check("insert", &Insert::new(C::<4>), &Insert::new(4usize));
    check("replicate", &Replicate::new((C::<2>, C::<3>)), &Replicate::new((C::<2>, 3usize)));
    check("modulo", &Modulo::new(C::<4>, C::<12>).unwrap(), &Modulo::new(4usize, C::<12>).unwrap());
    check("xor", &Xor::new(C::<4>, C::<8>).unwrap(), &Xor::new(C::<4>, 8usize).unwrap());
    let l = make_layout((C::<4>, C::<2>), LayoutRight).unwrap();
    let r = make_layout((4usize, C::<2>), LayoutRight).unwrap();
    check(
        "cute_layout",
        &const_layout::ck_tile::CuteLayout::new(l),
        &const_layout::ck_tile::CuteLayout::new(r),
    );
}
