//! CK Tile's adaptors, descriptors and coordinates (`const_layout::transform`) on the reference's
//! runs of CK's own code (`../shared/reference/ck_tile.md` sections 3-5): the padded NHWC
//! convolution input merged to (m, c), its offsets, validity and hidden indices; moves on it;
//! hidden-id assignment; and every move equal to recomputing from scratch.

use const_layout::transform::{
    Merge, MultiIndex, Pad, PassThrough, Stage, TensorCoordinate, Unmerge, make_naive_tensor_descriptor,
    make_naive_tensor_descriptor_packed, make_tensor_coordinate, move_tensor_coordinate, multi_index,
    transform_tensor_descriptor,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use typenum::{U1, U2, U3, U4};

/// The reference's merge + pad descriptor: packed NHWC (2,3,4,2), H and W padded by 1 on both
/// sides, then (n, hp, wp) merged into m: lengths (60, 2), 11 hidden dimensions.
macro_rules! conv_input {
    () => {{
        let x = make_naive_tensor_descriptor_packed((2usize, 3usize, 4usize, 2usize)).unwrap();
        let padded = transform_tensor_descriptor::<_, _, _, _, U4>(
            x,
            (
                Stage::new(PassThrough::new(2usize), [0], [0]),
                Stage::new(Pad::new(3usize, 1usize, 1usize), [1], [1]),
                Stage::new(Pad::new(4usize, 1usize, 1usize), [2], [2]),
                Stage::new(PassThrough::new(2usize), [3], [3]),
            ),
        )
        .unwrap();
        transform_tensor_descriptor::<_, _, _, _, U2>(
            padded,
            (
                Stage::new(Merge::new((2usize, 5usize, 6usize)).unwrap(), [0, 1, 2], [0]),
                Stage::new(PassThrough::new(2usize), [3], [1]),
            ),
        )
        .unwrap()
    }};
}

/// A row of CK's table: (m, c), offset, valid, hidden index.
type Row = ((isize, isize), isize, bool, [isize; 11]);
/// A move of CK's: from, step, to, offset, valid.
type Move = ([isize; 2], [isize; 2], [isize; 2], isize, bool);

#[test]
fn merge_pad_descriptor_is_cks() {
    let d = conv_input!();
    assert_eq!(d.lengths().as_slice(), &[60, 2]);
    assert_eq!(d.element_space_size(), 48);
    assert_eq!(d.adaptor().top_ids().as_slice(), &[9, 10]);
    // (m, c), offset, valid, hidden (offset, n,h,w,c, n,hp,wp,c, m,c): CK's output.
    let table: [Row; 8] = [
        ((0, 1), -9, false, [-9, 0, -1, -1, 1, 0, 0, 0, 1, 0, 1]),
        ((7, 1), 1, true, [1, 0, 0, 0, 1, 0, 1, 1, 1, 7, 1]),
        ((8, 1), 3, true, [3, 0, 0, 1, 1, 0, 1, 2, 1, 8, 1]),
        ((14, 1), 11, true, [11, 0, 1, 1, 1, 0, 2, 2, 1, 14, 1]),
        ((23, 1), 25, false, [25, 0, 2, 4, 1, 0, 3, 5, 1, 23, 1]),
        ((30, 1), 15, false, [15, 1, -1, -1, 1, 1, 0, 0, 1, 30, 1]),
        ((37, 1), 25, true, [25, 1, 0, 0, 1, 1, 1, 1, 1, 37, 1]),
        ((59, 1), 57, false, [57, 1, 3, 4, 1, 1, 4, 5, 1, 59, 1]),
    ];
    for ((m, c), offset, valid, hidden) in table {
        let top = multi_index([m, c]);
        let coord = make_tensor_coordinate(&d, &top);
        assert_eq!(coord.hidden_index().as_slice(), &hidden, "({m},{c})");
        assert_eq!(d.calculate_offset(&top), offset, "({m},{c})");
        assert_eq!((d.is_valid(&top), coord.is_valid(&d)), (valid, valid), "({m},{c})");
        // The offset of an invalid position is never handed out silently.
        assert_eq!(d.offset(&top), valid.then_some(offset), "({m},{c})");
    }
    // Moves (CK's runs): from, step, to, offset, valid.
    let moves: [Move; 5] = [
        ([7, 0], [1, 0], [8, 0], 2, true),
        ([10, 1], [1, 0], [11, 1], 9, false),
        ([11, 1], [1, 0], [12, 1], 7, false),
        ([29, 0], [8, 1], [37, 1], 25, true),
        ([37, 1], [-8, -1], [29, 0], 32, false),
    ];
    for (from, step, to, offset, valid) in moves {
        let mut coord = make_tensor_coordinate(&d, &multi_index(from));
        let before = coord.offset();
        let delta = move_tensor_coordinate(&d, &mut coord, &multi_index(step));
        assert_eq!(coord.index(d.adaptor()).as_slice(), &to);
        assert_eq!(
            (coord.offset(), coord.is_valid(&d), delta),
            (offset, valid, offset - before),
            "{from:?} + {step:?}"
        );
        assert_eq!(coord, make_tensor_coordinate(&d, &multi_index(to)));
    }
}

#[test]
fn descriptor_examples() {
    // descriptors.rst: packed (3,4) at (1,2) is 6; naive (3,4):(8,1) at (1,2) is 10, space 20.
    let p = make_naive_tensor_descriptor_packed((3usize, 4usize)).unwrap();
    assert_eq!((p.calculate_offset(&multi_index([1, 2])), p.element_space_size()), (6, 12));
    // adaptors.rst "pad on transposed strides": naive((3,4),(1,3)) + pad(3,1,1), pad(4,0,0).
    let n = make_naive_tensor_descriptor((3usize, 4usize), (1isize, 3isize)).unwrap();
    let t = transform_tensor_descriptor::<_, _, _, _, U2>(
        n,
        (
            Stage::new(Pad::new(3usize, 1usize, 1usize), [0], [0]),
            Stage::new(Pad::new(4usize, 0usize, 0usize), [1], [1]),
        ),
    )
    .unwrap();
    assert_eq!((t.calculate_offset(&multi_index([1, 2])), t.is_valid(&multi_index([1, 2]))), (6, true));
    assert_eq!((t.calculate_offset(&multi_index([0, 2])), t.is_valid(&multi_index([0, 2]))), (5, false));
    assert_eq!((t.calculate_offset(&multi_index([4, 3])), t.is_valid(&multi_index([4, 3]))), (12, false));
    // Hidden ids (the reference's run): packed(2,6), then pt(2) and unmerge(2,3) on it.
    let p = make_naive_tensor_descriptor_packed((2usize, 6usize)).unwrap();
    let u = transform_tensor_descriptor::<_, _, _, _, U3>(
        p,
        (
            Stage::new(PassThrough::new(2usize), [0], [0]),
            Stage::new(Unmerge::new((2usize, 3usize)), [1], [1, 2]),
        ),
    )
    .unwrap();
    assert_eq!(u.adaptor().top_ids().as_slice(), &[3, 4, 5]);
    let c = make_tensor_coordinate(&u, &multi_index([1, 1, 2]));
    assert_eq!(c.hidden_index().as_slice(), &[11, 1, 5, 1, 1, 2]);
    // Unmerge (8,8) with interleaved upper positions on packed(64,64): top (1,2,3,4) is offset 724.
    let p = make_naive_tensor_descriptor_packed((64usize, 64usize)).unwrap();
    let i = transform_tensor_descriptor::<_, _, _, _, U4>(
        p,
        (
            Stage::new(Unmerge::new((8usize, 8usize)), [0], [0, 2]),
            Stage::new(Unmerge::new((8usize, 8usize)), [1], [1, 3]),
        ),
    )
    .unwrap();
    assert_eq!(i.adaptor().top_ids().as_slice(), &[3, 5, 4, 6]);
    assert_eq!(i.calculate_offset(&multi_index([1, 2, 3, 4])), 724);
}

#[test]
fn malformed_transforms_are_errors() {
    let p = make_naive_tensor_descriptor_packed((2usize, 6usize)).unwrap();
    // Old dimension 1 consumed twice, 0 never.
    let twice = transform_tensor_descriptor::<_, _, _, _, U2>(
        p.clone(),
        (Stage::new(PassThrough::new(2usize), [1], [0]), Stage::new(PassThrough::new(6usize), [1], [1])),
    );
    assert!(twice.is_err());
    // New position 1 produced twice.
    let dup = transform_tensor_descriptor::<_, _, _, _, U2>(
        p,
        (Stage::new(PassThrough::new(2usize), [0], [1]), Stage::new(PassThrough::new(6usize), [1], [1])),
    );
    assert!(dup.is_err());
    assert!(make_naive_tensor_descriptor_packed((2usize, 0usize)).is_err());
}

fn recomputed<H: generic_array::ArrayLength>(c: &TensorCoordinate<H>) -> &MultiIndex<H> {
    c.hidden_index()
}

proptest! {
    #![proptest_config(Config { cases: 512, rng_seed: RngSeed::Fixed(0xc0de), failure_persistence: None, ..Config::default() })]

    /// Walking the padded convolution input by any steps keeps the coordinate equal to one made
    /// afresh at the new index (hidden index, offset, validity).
    #[test]
    fn moves_equal_recomputing(start in (0isize..60, 0isize..2), steps in proptest::collection::vec((-9isize..=9, -1isize..=1), 1..12)) {
        let d = conv_input!();
        let mut coord = make_tensor_coordinate(&d, &multi_index([start.0, start.1]));
        let mut at = [start.0, start.1];
        for (dm, dc) in steps {
            let to = [at[0] + dm, at[1] + dc];
            if !(0..60).contains(&to[0]) || !(0..2).contains(&to[1]) {
                continue;
            }
            let before = coord.offset();
            let delta = move_tensor_coordinate(&d, &mut coord, &multi_index([dm, dc]));
            let fresh = make_tensor_coordinate(&d, &multi_index(to));
            prop_assert_eq!(recomputed(&coord), fresh.hidden_index(), "{:?} + ({}, {})", at, dm, dc);
            prop_assert_eq!(delta, fresh.offset() - before);
            prop_assert_eq!(coord.is_valid(&d), d.is_valid(&multi_index(to)));
            at = to;
        }
    }
}

mod bridges {
    use super::*;
    use const_layout::LayoutError;
    use const_layout::make_layout;
    use const_layout::transform::{
        Offset, Xor, descriptor_to_layout, layout_to_descriptor, layout_to_naive_descriptor,
    };

    proptest! {
        #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0xb1d6e), failure_persistence: None, ..Config::default() })]

        /// A flat layout as a descriptor has its offsets, and comes back as a layout with the
        /// same offsets in the same (colexicographic) order.
        #[test]
        fn flat_layouts_round_trip(a in 1usize..=6, b in 1usize..=5, c in 1usize..=4, x in 0isize..=20, y in 0isize..=40, z in 0isize..=90) {
            let l = make_layout((a, b, c), (x, y, z)).unwrap();
            let d = layout_to_naive_descriptor(&l).unwrap();
            let mut offsets = Vec::new();
            for k in 0..c {
                for j in 0..b {
                    for i in 0..a {
                        let top = multi_index([i as isize, j as isize, k as isize]);
                        prop_assert_eq!(d.calculate_offset(&top), l.crd2idx((i, j, k)));
                        offsets.push(l.crd2idx((i, j, k)));
                    }
                }
            }
            let back = descriptor_to_layout(&d).unwrap();
            prop_assert_eq!(back.offsets().collect::<Vec<_>>(), offsets, "{} came back as {}", l, back);
        }
    }

    proptest! {
        #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0x2e57), failure_persistence: None, ..Config::default() })]

        /// Any (here nested) layout as a descriptor: the same offset at every flat coordinate,
        /// and back as a layout with the same offsets.
        #[test]
        fn nested_layouts_round_trip(a in 1usize..=5, b in 1usize..=4, c in 1usize..=3, x in 0isize..=30, y in 0isize..=30, z in 0isize..=60) {
            let l = make_layout((a, (b, c)), (x, (y, z))).unwrap();
            let d = layout_to_descriptor(&l).unwrap();
            prop_assert_eq!(d.lengths().as_slice(), &[a as isize, (b * c) as isize]);
            let mut offsets = Vec::new();
            for j in 0..b * c {
                for i in 0..a {
                    prop_assert_eq!(d.calculate_offset(&multi_index([i as isize, j as isize])), l.crd2idx((i, j)));
                    offsets.push(l.crd2idx((i, j)));
                }
            }
            let back = descriptor_to_layout(&d).unwrap();
            prop_assert_eq!(back.offsets().collect::<Vec<_>>(), offsets, "{} came back as {}", l, back);
        }
    }

    #[test]
    fn merges_come_back_as_nested_modes() {
        // packed (2,3,4), dimensions 1 and 2 merged: (m, n) with m = (j, k) row-major, which is
        // CuTe's mode (4,3):(1,4) (colexicographic, the fastest first).
        let p = make_naive_tensor_descriptor_packed((2usize, 3usize, 4usize)).unwrap();
        let m = transform_tensor_descriptor::<_, _, _, _, U2>(
            p,
            (
                Stage::new(PassThrough::new(2usize), [0], [0]),
                Stage::new(Merge::new((3usize, 4usize)).unwrap(), [1, 2], [1]),
            ),
        )
        .unwrap();
        assert_eq!(descriptor_to_layout(&m).unwrap().to_string(), "(2,12):(12,1)");
        // Padded rows of 6 in 8: the merged dimension is a nested mode.
        let n = make_naive_tensor_descriptor((3usize, 6usize), (8isize, 1isize)).unwrap();
        let m = transform_tensor_descriptor::<_, _, _, _, U1>(
            n,
            (Stage::new(Merge::new((3usize, 6usize)).unwrap(), [0, 1], [0]),),
        )
        .unwrap();
        assert_eq!(descriptor_to_layout(&m).unwrap().to_string(), "((6,3)):((1,8))");
    }

    #[test]
    fn non_layouts_name_the_transform() {
        let n = make_naive_tensor_descriptor((3usize, 4usize), (4isize, 1isize)).unwrap();
        let padded = transform_tensor_descriptor::<_, _, _, _, U2>(
            n.clone(),
            (
                Stage::new(Pad::new(3usize, 1usize, 0usize), [0], [0]),
                Stage::new(PassThrough::new(4usize), [1], [1]),
            ),
        )
        .unwrap();
        assert_eq!(
            descriptor_to_layout(&padded).unwrap_err(),
            LayoutError::NotALayout {
                transform: "pad",
                why: "its padded positions are invalid, and a layout has none"
            }
        );
        let xored = transform_tensor_descriptor::<_, _, _, _, U2>(
            n.clone(),
            (Stage::new(Xor::new(3usize, 4usize).unwrap(), [0, 1], [0, 1]),),
        )
        .unwrap();
        let e = descriptor_to_layout(&xored).unwrap_err();
        assert!(matches!(e, LayoutError::NotALayout { transform: "xor", .. }), "{e}");
        let shifted = transform_tensor_descriptor::<_, _, _, _, U2>(
            n,
            (
                Stage::new(Offset::new(3usize, 1isize), [0], [0]),
                Stage::new(PassThrough::new(4usize), [1], [1]),
            ),
        )
        .unwrap();
        assert_eq!(e.to_string().split(':').next(), Some("not a CuTe layout because of its `xor` transform"));
        assert!(matches!(
            descriptor_to_layout(&shifted),
            Err(LayoutError::NotALayout { transform: "offset", .. })
        ));
    }
}
