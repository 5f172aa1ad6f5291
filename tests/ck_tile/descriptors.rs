//! CK Tile's adaptors, descriptors and coordinates (`const_layout::ck_tile`) on runs of CK's own
//! code (outputs of CK Tile's C++ at these inputs): the padded NHWC
//! convolution input merged to (m, c), its offsets, validity and hidden indices; moves on it;
//! hidden-id assignment; and every move equal to recomputing from scratch.

use const_layout::ck_tile::{
    Merge, MultiIndex, Pad, PassThrough, Stage, Stages, TensorCoordinate, TransformError, Unmerge,
    is_known_at_compile_time, make_naive_tensor_descriptor, make_naive_tensor_descriptor_packed,
    make_tensor_coordinate, move_tensor_coordinate, multi_index, transform_tensor_descriptor,
};
use const_layout::{C, sequence};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// CK's merge + pad descriptor (a run of CK's code): packed NHWC (2,3,4,2), H and W padded by 1 on both
/// sides, then (n, hp, wp) merged into m: lengths (60, 2), 11 hidden dimensions.
macro_rules! conv_input {
    () => {{
        let x = make_naive_tensor_descriptor_packed((2usize, 3usize, 4usize, 2usize)).unwrap();
        let padded = transform_tensor_descriptor(
            x,
            (
                Stage::new(PassThrough::new(2usize), sequence![0], sequence![0]),
                Stage::new(Pad::new(3usize, 1usize, 1usize), sequence![1], sequence![1]),
                Stage::new(Pad::new(4usize, 1usize, 1usize), sequence![2], sequence![2]),
                Stage::new(PassThrough::new(2usize), sequence![3], sequence![3]),
            ),
        );
        transform_tensor_descriptor(
            padded,
            (
                Stage::new(Merge::new((2usize, 5usize, 6usize)).unwrap(), sequence![0, 1, 2], sequence![0]),
                Stage::new(PassThrough::new(2usize), sequence![3], sequence![1]),
            ),
        )
    }};
}

/// The same with static sizes (CK's `number<>`s), so that the vector inference knows them.
macro_rules! static_conv_input {
    () => {{
        let x = make_naive_tensor_descriptor_packed((C::<2>, C::<3>, C::<4>, C::<2>)).unwrap();
        let padded = transform_tensor_descriptor(
            x,
            (
                Stage::new(PassThrough::new(C::<2>), sequence![0], sequence![0]),
                Stage::new(Pad::new(C::<3>, C::<1>, C::<1>), sequence![1], sequence![1]),
                Stage::new(Pad::new(C::<4>, C::<1>, C::<1>), sequence![2], sequence![2]),
                Stage::new(PassThrough::new(C::<2>), sequence![3], sequence![3]),
            ),
        );
        transform_tensor_descriptor(
            padded,
            (
                Stage::new(Merge::new((C::<2>, C::<5>, C::<6>)).unwrap(), sequence![0, 1, 2], sequence![0]),
                Stage::new(PassThrough::new(C::<2>), sequence![3], sequence![1]),
            ),
        )
    }};
}

/// Top index number `flat` in row-major order (CK's order) over `lengths`.
fn top_at<N: generic_array::ArrayLength>(flat: isize, lengths: &MultiIndex<N>) -> MultiIndex<N> {
    let (mut rest, mut top) = (flat, MultiIndex::<N>::default());
    for i in (0..lengths.len()).rev() {
        top[i] = rest % lengths[i];
        rest /= lengths[i];
    }
    top
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
    let t = transform_tensor_descriptor(
        n,
        (
            Stage::new(Pad::new(3usize, 1usize, 1usize), sequence![0], sequence![0]),
            Stage::new(Pad::new(4usize, 0usize, 0usize), sequence![1], sequence![1]),
        ),
    );
    assert_eq!((t.calculate_offset(&multi_index([1, 2])), t.is_valid(&multi_index([1, 2]))), (6, true));
    assert_eq!((t.calculate_offset(&multi_index([0, 2])), t.is_valid(&multi_index([0, 2]))), (5, false));
    assert_eq!((t.calculate_offset(&multi_index([4, 3])), t.is_valid(&multi_index([4, 3]))), (12, false));
    // Hidden ids (CK's run): packed(2,6), then pt(2) and unmerge(2,3) on it.
    let p = make_naive_tensor_descriptor_packed((2usize, 6usize)).unwrap();
    let u = transform_tensor_descriptor(
        p,
        (
            Stage::new(PassThrough::new(2usize), sequence![0], sequence![0]),
            Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![1, 2]),
        ),
    );
    assert_eq!(u.adaptor().top_ids().as_slice(), &[3, 4, 5]);
    let c = make_tensor_coordinate(&u, &multi_index([1, 1, 2]));
    assert_eq!(c.hidden_index().as_slice(), &[11, 1, 5, 1, 1, 2]);
    // Unmerge (8,8) with interleaved upper positions on packed(64,64): top (1,2,3,4) is offset 724.
    let p = make_naive_tensor_descriptor_packed((64usize, 64usize)).unwrap();
    let i = transform_tensor_descriptor(
        p,
        (
            Stage::new(Unmerge::new((8usize, 8usize)), sequence![0], sequence![0, 2]),
            Stage::new(Unmerge::new((8usize, 8usize)), sequence![1], sequence![1, 3]),
        ),
    );
    assert_eq!(i.adaptor().top_ids().as_slice(), &[3, 5, 4, 6]);
    assert_eq!(i.calculate_offset(&multi_index([1, 2, 3, 4])), 724);
}

/// Miswired stages do not compile (`ui-tests/fail/transform_miswired_*.rs`); bad lengths are
/// errors.
#[test]
fn bad_lengths_are_errors() {
    assert!(make_naive_tensor_descriptor_packed((2usize, 0usize)).is_err());
    assert!(make_naive_tensor_descriptor((2usize, 0usize), (1isize, 2isize)).is_err());
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
            // CK's move as written (every transform's update_lower_index, carries and
            // borrows), next to move_tensor_coordinate's carry-free path and its fix-up.
            let (mut hidden, mut diff) = (*coord.hidden_index(), MultiIndex::<typenum::U11>::default());
            for (&id, s) in d.adaptor().top_ids().iter().zip([dm, dc]) {
                hidden[id] += s;
                diff[id] = s;
            }
            d.adaptor().stages().update(&mut hidden, &mut diff);
            let delta = move_tensor_coordinate(&d, &mut coord, &multi_index([dm, dc]));
            let fresh = make_tensor_coordinate(&d, &multi_index(to));
            prop_assert_eq!(recomputed(&coord), fresh.hidden_index(), "{:?} + ({}, {})", at, dm, dc);
            prop_assert_eq!(&hidden, fresh.hidden_index(), "CK's update: {:?} + ({}, {})", at, dm, dc);
            prop_assert_eq!(diff[0], fresh.offset() - before);
            prop_assert_eq!(delta, fresh.offset() - before);
            prop_assert_eq!(coord.is_valid(&d), d.is_valid(&multi_index(to)));
            at = to;
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0x2e57ed), failure_persistence: None, ..Config::default() })]

    /// Nested merges (a merge over a merge's dimension over an unmerge, padded): the carry-free
    /// path and its fix-up where the lower merge gets a nonzero step, against recomputing.
    #[test]
    fn nested_merge_moves_equal_recomputing(a in 1usize..4, b in 1usize..4, c in 1usize..5, start in 0isize..200, steps in proptest::collection::vec(-30isize..=30, 1..16)) {
        let x = make_naive_tensor_descriptor_packed((a, b * c)).unwrap();
        let split = transform_tensor_descriptor(
            x,
            (Stage::new(Pad::new(a, 1usize, 0usize), sequence![0], sequence![0]), Stage::new(Unmerge::new((b, c)), sequence![1], sequence![1, 2])),
        );
        let inner = transform_tensor_descriptor(
            split,
            (Stage::new(PassThrough::new(a + 1), sequence![0], sequence![0]), Stage::new(Merge::new((b, c)).unwrap(), sequence![1, 2], sequence![1])),
        );
        let d = transform_tensor_descriptor(inner, (Stage::new(Merge::new((a + 1, b * c)).unwrap(), sequence![0, 1], sequence![0]),));
        let size = ((a + 1) * b * c) as isize;
        let mut at = start % size;
        let mut coord = make_tensor_coordinate(&d, &multi_index([at]));
        for du in steps {
            let to = at + du;
            if !(0..size).contains(&to) {
                continue;
            }
            move_tensor_coordinate(&d, &mut coord, &multi_index([du]));
            let fresh = make_tensor_coordinate(&d, &multi_index([to]));
            prop_assert_eq!(coord.hidden_index(), fresh.hidden_index(), "{} + {}", at, du);
            prop_assert_eq!(coord.is_valid(&d), d.is_valid(&multi_index([to])));
            at = to;
        }
    }
}

mod bridges {
    use super::*;
    use const_layout::ck_tile::{
        Offset, Xor, descriptor_to_layout, layout_to_descriptor, layout_to_naive_descriptor,
    };
    use const_layout::make_layout;

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
        let m = transform_tensor_descriptor(
            p,
            (
                Stage::new(PassThrough::new(2usize), sequence![0], sequence![0]),
                Stage::new(Merge::new((3usize, 4usize)).unwrap(), sequence![1, 2], sequence![1]),
            ),
        );
        assert_eq!(descriptor_to_layout(&m).unwrap().to_string(), "(2,12):(12,1)");
        // Padded rows of 6 in 8: the merged dimension is a nested mode.
        let n = make_naive_tensor_descriptor((3usize, 6usize), (8isize, 1isize)).unwrap();
        let m = transform_tensor_descriptor(
            n,
            (Stage::new(Merge::new((3usize, 6usize)).unwrap(), sequence![0, 1], sequence![0]),),
        );
        assert_eq!(descriptor_to_layout(&m).unwrap().to_string(), "((6,3)):((1,8))");
    }

    #[test]
    fn non_layouts_name_the_transform() {
        let n = make_naive_tensor_descriptor((3usize, 4usize), (4isize, 1isize)).unwrap();
        let padded = transform_tensor_descriptor(
            n.clone(),
            (
                Stage::new(Pad::new(3usize, 1usize, 0usize), sequence![0], sequence![0]),
                Stage::new(PassThrough::new(4usize), sequence![1], sequence![1]),
            ),
        );
        assert_eq!(
            descriptor_to_layout(&padded).unwrap_err(),
            TransformError::NotALayout {
                transform: "pad",
                why: "its padded positions are invalid, and a layout has none"
            }
        );
        let xored = transform_tensor_descriptor(
            n.clone(),
            (Stage::new(Xor::new(3usize, 4usize).unwrap(), sequence![0, 1], sequence![0, 1]),),
        );
        let e = descriptor_to_layout(&xored).unwrap_err();
        assert!(matches!(e, TransformError::NotALayout { transform: "xor", .. }), "{e}");
        let shifted = transform_tensor_descriptor(
            n,
            (
                Stage::new(Offset::new(3usize, 1isize), sequence![0], sequence![0]),
                Stage::new(PassThrough::new(4usize), sequence![1], sequence![1]),
            ),
        );
        assert_eq!(e.to_string().split(':').next(), Some("not a CuTe layout because of its `xor` transform"));
        assert!(matches!(
            descriptor_to_layout(&shifted),
            Err(TransformError::NotALayout { transform: "offset", .. })
        ));
    }
}

/// Vector-access inference (`get_top_dimension_safe_vector_length_strides`): CK's answers on
/// the descriptors of CK's docs and code, the new makers (`_aligned`, `_with_offset`, the
/// guarantees), and a brute-force check of what a [`SafeVector`] promises on generated
/// descriptors.
mod vectors {
    use super::*;
    use const_layout::C;
    use const_layout::ck_tile::{
        MergeDivMod, SafeVector, Sequence, Stages, TensorDescriptor, Xor,
        make_naive_tensor_descriptor_aligned, make_naive_tensor_descriptor_guaranteed,
        make_naive_tensor_descriptor_packed_guaranteed, make_naive_tensor_descriptor_with_offset,
    };
    use generic_array::{ArrayLength, GenericArray};

    fn ck<N: ArrayLength>(v: &GenericArray<SafeVector, N>) -> Vec<(isize, isize)> {
        v.iter().map(|s| s.to_ck()).collect()
    }

    /// Whether `v` holds along top dimension `dim` of `d`: the length divides the dimension's,
    /// and every run of that length starting at a multiple of it is all valid or all invalid,
    /// and if valid at offsets `o + k * stride`. Checked at every top index.
    pub(super) fn holds<S: Stages, H: ArrayLength, Top: Sequence>(
        d: &TensorDescriptor<S, H, Top>,
        dim: usize,
        v: SafeVector,
    ) -> Result<usize, String> {
        let Some(len) = v.length else { return Ok(0) };
        let lengths = d.lengths().clone();
        if len <= 0 || lengths[dim] % len != 0 {
            return Err(format!("length {len} does not divide {}", lengths[dim]));
        }
        let size: isize = lengths.iter().product();
        let mut runs = 0;
        for flat in 0..size {
            let top = super::top_at::<Top::Len>(flat, &lengths);
            if top[dim] % len != 0 {
                continue;
            }
            let first = d.offset(&top);
            for k in 1..len {
                let mut at = top.clone();
                at[dim] += k;
                let here = d.offset(&at);
                if here.is_some() != first.is_some() {
                    return Err(format!("validity changes along the run at {top:?}, element {k}"));
                }
                if let (Some(o), Some(h), Some(s)) = (first, here, v.stride)
                    && h != o + k * s
                {
                    return Err(format!("offset {h} at {at:?}, not {o} + {k} * {s}"));
                }
            }
            runs += usize::from(first.is_some());
        }
        Ok(runs)
    }

    fn all_hold<S: Stages, H: ArrayLength, Top: Sequence>(d: &TensorDescriptor<S, H, Top>) -> usize {
        let v = d.get_top_dimension_safe_vector_length_strides();
        (0..v.len()).map(|dim| holds(d, dim, v[dim]).unwrap_or_else(|e| panic!("dimension {dim}: {e}"))).sum()
    }

    #[test]
    fn packed_descriptors() {
        // Newest CK (tensor_descriptor.hpp @0b42f814): static lengths give the offset dimension
        // the whole space and the last dimension its length, both with stride 1.
        let d = make_naive_tensor_descriptor_packed((C::<3>, C::<4>)).unwrap();
        assert_eq!(ck(d.guaranteed_vectors()), [(12, 1), (-1, -1), (4, 1)]);
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (4, 1)]);
        // Runtime lengths: only the strides.
        let d = make_naive_tensor_descriptor_packed((3usize, 4usize)).unwrap();
        assert_eq!(ck(d.guaranteed_vectors()), [(-1, 1), (-1, -1), (-1, 1)]);
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, 1)]);
        // A static last length with runtime others: the unmerge gives nothing (the offset
        // dimension's length is unknown), the guarantee gives the last length.
        let d = make_naive_tensor_descriptor_packed((3usize, C::<4>)).unwrap();
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (4, 1)]);
        // The caller's guarantee: max(static length, guarantee) where static (CK), kept where
        // runtime (CK's newest drops it), checked.
        let d = make_naive_tensor_descriptor_packed_guaranteed((3usize, C::<64>), Some(8)).unwrap();
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (64, 1)]);
        let d = make_naive_tensor_descriptor_packed_guaranteed((3usize, 64usize), Some(8)).unwrap();
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (8, 1)]);
        assert_eq!(
            make_naive_tensor_descriptor_packed_guaranteed((3usize, 60usize), Some(8)).unwrap_err(),
            TransformError::VectorGuarantee {
                dim: 1,
                length: 60,
                stride: 1,
                vector_length: Some(8),
                vector_stride: None
            }
        );
        assert!(make_naive_tensor_descriptor_packed_guaranteed((3usize, C::<4>), Some(8)).is_err());
        assert_eq!(all_hold(&d), 3 * 8);
    }

    #[test]
    fn naive_descriptors() {
        // embed infers nothing: descriptors.rst's (3,4):(8,1) knows nothing without a guarantee.
        let d = make_naive_tensor_descriptor((C::<3>, C::<4>), (C::<8>, C::<1>)).unwrap();
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, -1)]);
        // CK's GuaranteedLastDimensionVectorLength / Stride land on the last top dimension.
        let d = make_naive_tensor_descriptor_guaranteed(
            (3usize, 8usize),
            (16isize, 1isize),
            SafeVector::new(4, 1),
        )
        .unwrap();
        assert_eq!(ck(d.guaranteed_vectors()), [(-1, -1), (-1, -1), (4, 1)]);
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (4, 1)]);
        assert_eq!(all_hold(&d), 3 * 2);
        // A strided last dimension: runs with that stride.
        let d = make_naive_tensor_descriptor_guaranteed(
            (3usize, 8usize),
            (1isize, 3isize),
            SafeVector::new(8, 3),
        )
        .unwrap();
        assert_eq!(all_hold(&d), 3);
        // A guarantee that does not hold is an error, with its numbers.
        let e = make_naive_tensor_descriptor_guaranteed(
            (3usize, 8usize),
            (16isize, 2isize),
            SafeVector::new(4, 1),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the guaranteed vector (length 4, stride 1) does not hold along top dimension 1 of length 8 and stride 2: \
             the vector length must divide the length, the vector stride be the stride"
        );
        assert!(
            make_naive_tensor_descriptor_guaranteed(
                (3usize, 6usize),
                (16isize, 1isize),
                SafeVector::new(4, 1)
            )
            .is_err()
        );
        assert!(
            make_naive_tensor_descriptor_guaranteed(
                (3usize, 6usize),
                (16isize, 1isize),
                SafeVector::new(0, 1)
            )
            .is_err()
        );
    }

    #[test]
    fn aligned_and_offset_descriptors() {
        // Runs of CK's code: (4,5) aligned to 8 has strides (8,1), space 29 (its
        // docs say 32); (2,3,5) aligned to 8 has strides (24,8,1), space 45.
        let d = make_naive_tensor_descriptor_aligned((4usize, 5usize), 8usize).unwrap();
        assert_eq!(d.element_space_size(), 29);
        assert_eq!(
            (d.calculate_offset(&multi_index([0, 1])), d.calculate_offset(&multi_index([1, 0]))),
            (1, 8)
        );
        let d = make_naive_tensor_descriptor_aligned((C::<2>, 3usize, C::<5>), C::<8>).unwrap();
        assert_eq!(d.element_space_size(), 45);
        for (top, offset) in [([0, 0, 1], 1), ([0, 1, 0], 8), ([1, 0, 0], 24), ([1, 2, 4], 24 + 16 + 4)] {
            assert_eq!(d.calculate_offset(&multi_index(top)), offset, "{top:?}");
        }
        // One dimension: stride 1; a length that is already a multiple: no padding.
        let d = make_naive_tensor_descriptor_aligned(7usize, 4usize).unwrap();
        assert_eq!((d.calculate_offset(&multi_index([6])), d.element_space_size()), (6, 7));
        let d = make_naive_tensor_descriptor_aligned((3usize, 8usize), 4usize).unwrap();
        assert_eq!(d.calculate_offset(&multi_index([1, 0])), 8);
        assert!(make_naive_tensor_descriptor_aligned((3usize, 8usize), 0usize).is_err());
        assert!(make_naive_tensor_descriptor_aligned((0usize, 8usize), 4usize).is_err());
        // Aligned against brute force: rows start at multiples of align, the last dimension
        // contiguous, every element distinct.
        for (a, b, c, align) in [(2usize, 3usize, 5usize, 8usize), (3, 1, 7, 4), (1, 4, 9, 16), (2, 2, 3, 1)]
        {
            let d = make_naive_tensor_descriptor_aligned((a, b, c), align).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..a as isize {
                for j in 0..b as isize {
                    let row = d.calculate_offset(&multi_index([i, j, 0]));
                    assert_eq!(row % align as isize, 0, "row ({i},{j})");
                    for k in 0..c as isize {
                        let o = d.calculate_offset(&multi_index([i, j, k]));
                        assert_eq!(o, row + k);
                        assert!(seen.insert(o) && o < d.element_space_size());
                    }
                }
            }
        }
        // with_offset: (3,4):(4,1) + 100: offset(2,3) = 111, space 12 (the offset not in it),
        // hidden (111, 11, 2, 3) (CK's run).
        let d =
            make_naive_tensor_descriptor_with_offset((3usize, 4usize), (4isize, 1isize), 100isize).unwrap();
        assert_eq!((d.calculate_offset(&multi_index([2, 3])), d.element_space_size()), (111, 12));
        assert_eq!(
            make_tensor_coordinate(&d, &multi_index([2, 3])).hidden_index().as_slice(),
            &[111, 11, 2, 3]
        );
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!(d.offset(&multi_index([i, j])), Some(100 + 4 * i + j));
            }
        }
        let mut c = make_tensor_coordinate(&d, &multi_index([0, 0]));
        assert_eq!(move_tensor_coordinate(&d, &mut c, &multi_index([2, 3])), 11);
        assert_eq!(c.offset(), 111);
    }

    /// descriptors.rst "5D to 3D Block Transformation": packed (NumIssues, wavesPerM,
    /// wavesPerK, WarpSize, KVector) with the pairs merged. With static lengths (CK's
    /// `number<>`), the merged (WarpSize, KVector) dimension has KVector's run; with runtime
    /// ones (the docs' `constexpr auto` ints), only the stride is known.
    #[test]
    fn docs_block_descriptor() {
        let d = make_naive_tensor_descriptor_packed((C::<64>, C::<4>, C::<2>, C::<64>, C::<4>)).unwrap();
        let t = transform_tensor_descriptor(
            d,
            (
                Stage::new(PassThrough::new(C::<64>), sequence![0], sequence![0]),
                Stage::new(Merge::new((C::<4>, C::<2>)).unwrap(), sequence![1, 2], sequence![1]),
                Stage::new(Merge::new((C::<64>, C::<4>)).unwrap(), sequence![3, 4], sequence![2]),
            ),
        );
        assert_eq!(t.lengths().as_slice(), &[64, 8, 256]);
        assert_eq!(ck(&t.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, -1), (4, 1)]);
        let d = make_naive_tensor_descriptor_packed((64usize, 4usize, 2usize, 64usize, 4usize)).unwrap();
        let t = transform_tensor_descriptor(
            d,
            (
                Stage::new(PassThrough::new(64usize), sequence![0], sequence![0]),
                Stage::new(Merge::new((4usize, 2usize)).unwrap(), sequence![1, 2], sequence![1]),
                Stage::new(Merge::new((64usize, 4usize)).unwrap(), sequence![3, 4], sequence![2]),
            ),
        );
        assert_eq!(ck(&t.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, -1), (-1, 1)]);
    }

    /// CK's id examples with static lengths: packed (2,6) then pt(2), unmerge(2,3)
    /// (the last upper dimension of the unmerge: gcd(6, 3) = 3), and transposed.
    #[test]
    fn reference_id_examples() {
        let p = make_naive_tensor_descriptor_packed((C::<2>, C::<6>)).unwrap();
        let u = transform_tensor_descriptor(
            p.clone(),
            (
                Stage::new(PassThrough::new(C::<2>), sequence![0], sequence![0]),
                Stage::new(Unmerge::new((C::<2>, C::<3>)), sequence![1], sequence![1, 2]),
            ),
        );
        assert_eq!(ck(&u.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, -1), (3, 1)]);
        assert_eq!(all_hold(&u), 2 * 2);
        let t = transform_tensor_descriptor(
            p,
            (
                Stage::new(PassThrough::new(C::<6>), sequence![1], sequence![0]),
                Stage::new(PassThrough::new(C::<2>), sequence![0], sequence![1]),
            ),
        );
        assert_eq!(ck(&t.get_top_dimension_safe_vector_length_strides()), [(6, 1), (-1, -1)]);
        // The convolution input with static sizes: C keeps its run through the pads and the
        // merge; the merged m (its last lower dimension two-sided padded) knows nothing.
        let conv = static_conv_input!();
        assert_eq!(ck(&conv.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (2, 1)]);
        assert_eq!(all_hold(&conv), 24);
    }

    /// CK's RowMajor LDS descriptor (`gemm_universal_pipeline_ag_bg_cr_policy.hpp`, fp16,
    /// KPerBlock 32, MPerBlock 16, K1 8): its naive base has no guarantee, so nothing is known
    /// (CK's answer too); with CK's `GuaranteedLastDimensionVectorLength` of K1 the K dimension
    /// has K1's run through the xor's pass-through and the merge.
    #[test]
    fn lds_xor_descriptor() {
        let lds = |g: SafeVector| {
            let base = make_naive_tensor_descriptor_guaranteed(
                (C::<8>, C::<8>, C::<8>),
                (C::<8>, C::<64>, C::<1>),
                g,
            )
            .unwrap();
            let permuted = transform_tensor_descriptor(
                base,
                (
                    Stage::new(Xor::new(C::<8>, C::<8>).unwrap(), sequence![1, 0], sequence![1, 0]),
                    Stage::new(PassThrough::new(C::<8>), sequence![2], sequence![2]),
                ),
            );
            let unmerged = transform_tensor_descriptor(
                permuted,
                (
                    Stage::new(Unmerge::new((C::<4>, C::<2>)), sequence![0], sequence![0, 2]),
                    Stage::new(PassThrough::new(C::<8>), sequence![1], sequence![1]),
                    Stage::new(PassThrough::new(C::<8>), sequence![2], sequence![3]),
                ),
            );
            transform_tensor_descriptor(
                unmerged,
                (
                    Stage::new(MergeDivMod::new((C::<4>, C::<8>)).unwrap(), sequence![0, 3], sequence![1]),
                    Stage::new(MergeDivMod::new((C::<8>, C::<2>)).unwrap(), sequence![1, 2], sequence![0]),
                ),
            )
        };
        let d = lds(SafeVector::UNKNOWN);
        assert_eq!((d.lengths().as_slice(), d.element_space_size()), (&[16, 32][..], 512));
        assert_eq!(d.calculate_offset(&multi_index([2, 0])), 72);
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (-1, -1)]);
        let d = lds(SafeVector::new(8, 1));
        assert_eq!(ck(&d.get_top_dimension_safe_vector_length_strides()), [(-1, -1), (8, 1)]);
        assert_eq!(all_hold(&d), 16 * 4);
    }

    /// CK's forwarding through a one-sided pad promises runs that are not there: right_pad(4, 2)
    /// over a dimension of safe length 4, merged: the upper run at 8 is lower (1, 2..6), half in
    /// the padding. Here the pad gives gcd(4, 2) = 2, which holds.
    #[test]
    fn cks_pad_forwarding_would_be_wrong() {
        let x = make_naive_tensor_descriptor_packed((C::<2>, C::<4>)).unwrap();
        let padded = transform_tensor_descriptor(
            x,
            (
                Stage::new(PassThrough::new(C::<2>), sequence![0], sequence![0]),
                Stage::new(Pad::new(C::<4>, C::<0>, C::<2>), sequence![1], sequence![1]),
            ),
        );
        let m = transform_tensor_descriptor(
            padded,
            (Stage::new(Merge::new((C::<2>, C::<6>)).unwrap(), sequence![0, 1], sequence![0]),),
        );
        assert!(holds(&m, 0, SafeVector::new(4, 1)).is_err(), "CK's answer fails");
        assert_eq!(ck(&m.get_top_dimension_safe_vector_length_strides()), [(2, 1)]);
        assert_eq!(all_hold(&m), 4);
    }
}

/// What a top dimension's safe vector promises, checked by brute force on generated descriptors
/// (merges, unmerges, pads and embeds over guaranteed naive and packed bases; runtime sizes, with
/// the static integers the inference needs): every run of the safe length starting at a multiple
/// of it is all valid or all invalid, and a valid one has the offsets `o + k * stride`.
mod vector_properties {
    use super::vectors::holds;
    use super::*;
    use const_layout::C;
    use const_layout::ck_tile::{
        Embed, SafeVector, Sequence, Stages, TensorDescriptor, make_naive_tensor_descriptor_guaranteed,
        make_naive_tensor_descriptor_packed_guaranteed,
    };
    use generic_array::ArrayLength;
    use proptest::test_runner::TestCaseError;

    /// Every top dimension's inferred vector holds; the number of valid runs of length > 1.
    fn check<S: Stages, H: ArrayLength, Top: Sequence>(
        d: &TensorDescriptor<S, H, Top>,
    ) -> Result<usize, TestCaseError> {
        let v = d.get_top_dimension_safe_vector_length_strides();
        let mut runs = 0;
        for (dim, sv) in v.iter().enumerate() {
            let n = holds(d, dim, *sv)
                .map_err(|e| TestCaseError::fail(format!("dimension {dim} ({sv:?}): {e}")))?;
            if sv.length.is_some_and(|l| l > 1) {
                runs += n;
            }
        }
        Ok(runs)
    }

    fn gcd(a: isize, b: isize) -> isize {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    /// A guaranteed vector length that divides `n`, from a seed.
    fn divisor(n: isize, seed: isize) -> isize {
        let ds: Vec<isize> = (1..=n).filter(|d| n % d == 0).collect();
        ds[seed as usize % ds.len()]
    }

    proptest! {
        #![proptest_config(Config { cases: 96, rng_seed: RngSeed::Fixed(0x5afe), failure_persistence: None, ..Config::default() })]

        /// Packed base with a guaranteed last length, then merges (the last dimension, or all).
        #[test]
        fn merges_over_packed(a in 1isize..4, b in 1isize..5, c in 1isize..9, seed in 0isize..8) {
            let g = divisor(c, seed);
            let (ua, ub, uc) = (a as usize, b as usize, c as usize);
            let p = make_naive_tensor_descriptor_packed_guaranteed((ua, ub, uc), Some(g)).unwrap();
            prop_assert_eq!(p.get_top_dimension_safe_vector_length_strides()[2], SafeVector::new(g, 1));
            check(&p)?;
            let m = transform_tensor_descriptor(
                p.clone(),
                (Stage::new(PassThrough::new(ua), sequence![0], sequence![0]), Stage::new(Merge::new((ub, uc)).unwrap(), sequence![1, 2], sequence![1])),
            );
            prop_assert_eq!(m.get_top_dimension_safe_vector_length_strides()[1], SafeVector::new(g, 1));
            check(&m)?;
            let all = transform_tensor_descriptor(
                p,
                (Stage::new(Merge::new((ua, ub, uc)).unwrap(), sequence![0, 1, 2], sequence![0]),),
            );
            prop_assert!(check(&all)? > 0 || g == 1);
        }

        /// Naive (embed) base with a guaranteed strided last dimension, the last dimension
        /// unmerged by a static inner length, and merged back the other way round.
        #[test]
        fn unmerges_over_naive(a in 1isize..4, q in 1isize..4, s0 in 0isize..40, s1 in 1isize..4, seed in 0isize..8) {
            let c = 4 * q;
            let g = divisor(c, seed);
            let base = make_naive_tensor_descriptor_guaranteed(
                (a as usize, c as usize), (s0, s1), SafeVector::new(g, s1),
            ).unwrap();
            check(&base)?;
            let u = transform_tensor_descriptor(
                base,
                (Stage::new(PassThrough::new(a as usize), sequence![0], sequence![0]), Stage::new(Unmerge::new((q as usize, C::<4>)), sequence![1], sequence![1, 2])),
            );
            prop_assert_eq!(u.get_top_dimension_safe_vector_length_strides()[2], SafeVector::new(gcd(g, 4), s1));
            check(&u)?;
            let back = transform_tensor_descriptor(
                u,
                (Stage::new(Merge::new((a as usize, q as usize)).unwrap(), sequence![0, 1], sequence![0]), Stage::new(PassThrough::new(C::<4>), sequence![2], sequence![1])),
            );
            check(&back)?;
        }

        /// One-sided pads (static padding) on a guaranteed last dimension, then merged with the
        /// dimension before; two-sided pads; an embed on top.
        #[test]
        fn pads_and_embeds(a in 1isize..4, c in 1isize..9, seed in 0isize..8, side in 0usize..4) {
            let g = divisor(c, seed);
            let (ua, uc) = (a as usize, c as usize);
            let p = make_naive_tensor_descriptor_packed_guaranteed((ua, uc), Some(g)).unwrap();
            macro_rules! padded_then_merged {
                ($left:expr, $right:expr, $extra:expr) => {{
                    let padded = transform_tensor_descriptor(
                        p.clone(),
                        (Stage::new(PassThrough::new(ua), sequence![0], sequence![0]), Stage::new(Pad::new(uc, $left, $right), sequence![1], sequence![1])),
                    );
                    check(&padded)?;
                    let merged = transform_tensor_descriptor(
                        padded,
                        (Stage::new(Merge::new((ua, uc + $extra)).unwrap(), sequence![0, 1], sequence![0]),),
                    );
                    check(&merged)?
                }};
            }
            match side {
                0 => padded_then_merged!(C::<0>, C::<2>, 2),
                1 => padded_then_merged!(C::<3>, C::<0>, 3),
                2 => padded_then_merged!(C::<4>, C::<0>, 4),
                _ => padded_then_merged!(C::<1>, C::<1>, 2),
            };
            // An embed of two new dimensions over the packed row dimension (an overlapping
            // window): CK infers nothing through it, and the pass-through keeps the runs.
            let e = transform_tensor_descriptor(
                p,
                (Stage::new(Embed::new((ua, 1usize), (1isize, 1isize)), sequence![0], sequence![0, 1]), Stage::new(PassThrough::new(uc), sequence![1], sequence![2])),
            );
            prop_assert_eq!(e.get_top_dimension_safe_vector_length_strides()[2], SafeVector::new(g, 1));
            check(&e)?;
        }
    }
}

/// `copy_descriptor` against an element-by-element copy (every top index: the destination
/// element, if valid, gets the source element if valid, else the default), and the vector
/// length it chooses.
mod copies {
    use super::*;
    use const_layout::C;
    use const_layout::LayoutError;
    use const_layout::ck_tile::{
        SafeVector, Sequence, Stages, TensorDescriptor, copy_descriptor,
        make_naive_tensor_descriptor_guaranteed, make_naive_tensor_descriptor_packed_guaranteed,
    };
    use generic_array::ArrayLength;

    fn element_wise<
        S0: Stages,
        H0: ArrayLength,
        S1: Stages,
        H1: ArrayLength,
        Top: Sequence,
        T1: Sequence<Len = Top::Len>,
    >(
        src_desc: &TensorDescriptor<S0, H0, Top>,
        src: &[i64],
        dst_desc: &TensorDescriptor<S1, H1, T1>,
        dst: &mut [i64],
    ) {
        let lengths = src_desc.lengths().clone();
        let size: isize = lengths.iter().product();
        for flat in 0..size {
            let top = super::top_at::<Top::Len>(flat, &lengths);
            if let Some(o) = dst_desc.offset(&top) {
                dst[o as usize] = src_desc.offset(&top).map_or(0, |i| src[i as usize]);
            }
        }
    }

    /// Both copies from the same source into destinations prefilled with a sentinel; equal, and
    /// the vector length.
    fn same<
        S0: Stages,
        H0: ArrayLength,
        S1: Stages,
        H1: ArrayLength,
        Top: Sequence,
        T1: Sequence<Len = Top::Len>,
    >(
        src_desc: &TensorDescriptor<S0, H0, Top>,
        dst_desc: &TensorDescriptor<S1, H1, T1>,
    ) -> usize {
        let src: Vec<i64> = (0..src_desc.element_space_size() as i64).map(|i| 1000 + i).collect();
        let mut expected = vec![-1i64; dst_desc.element_space_size() as usize];
        element_wise(src_desc, &src, dst_desc, &mut expected);
        let mut got = vec![-1i64; dst_desc.element_space_size() as usize];
        let run = copy_descriptor(src_desc, &src, dst_desc, &mut got).unwrap();
        assert_eq!(got, expected);
        run
    }

    #[test]
    fn vector_lengths_chosen() {
        let packed = make_naive_tensor_descriptor_packed((C::<4>, C::<8>)).unwrap();
        let rows =
            |g| make_naive_tensor_descriptor_guaranteed((4usize, 8usize), (12isize, 1isize), g).unwrap();
        assert_eq!(same(&packed, &rows(SafeVector::new(8, 1))), 8);
        assert_eq!(same(&packed, &rows(SafeVector::new(4, 1))), 4);
        assert_eq!(same(&rows(SafeVector::new(2, 1)), &packed), 2);
        assert_eq!(same(&packed, &rows(SafeVector::UNKNOWN)), 1);
        // A strided last dimension is no vector, whatever its length.
        let columns = make_naive_tensor_descriptor_guaranteed(
            (4usize, 8usize),
            (1isize, 4isize),
            SafeVector::new(8, 4),
        )
        .unwrap();
        assert_eq!(same(&packed, &columns), 1);
        assert_eq!(same(&columns, &packed), 1);
        // Runtime packed lengths: the stride is known, the length not: one element at a time.
        let runtime = make_naive_tensor_descriptor_packed((4usize, 8usize)).unwrap();
        assert_eq!(same(&runtime, &packed), 1);
    }

    #[test]
    fn padded_sources_and_destinations() {
        // The convolution input (static sizes): m padded, c in runs of 2; into a packed (60, 2)
        // buffer (padding reads 0), and the other way (padding not written).
        let conv = static_conv_input!();
        let flat = make_naive_tensor_descriptor_packed((C::<60>, C::<2>)).unwrap();
        assert_eq!(same(&conv, &flat), 2);
        assert_eq!(same(&flat, &conv), 2);
        // The runtime one (CK's): one element at a time, the same result.
        let rt = conv_input!();
        assert_eq!(same(&rt, &flat), 1);
        assert_eq!(same(&flat, &rt), 1);
    }

    #[test]
    fn errors() {
        let a = make_naive_tensor_descriptor_packed((4usize, 8usize)).unwrap();
        let b = make_naive_tensor_descriptor_packed((4usize, 6usize)).unwrap();
        let (src, mut dst) = (vec![0u8; 32], vec![0u8; 32]);
        assert_eq!(
            copy_descriptor(&a, &src, &b, &mut dst),
            Err(TransformError::LengthMismatch {
                what: "copy_descriptor: the destination",
                dim: 1,
                got: 6,
                expected: 8
            })
        );
        let mut short = vec![0u8; 31];
        assert_eq!(
            copy_descriptor(&a, &src, &a, &mut short),
            Err(TransformError::Layout(LayoutError::IndexOutOfRange { index: 31, size: 31 }))
        );
        assert_eq!(
            copy_descriptor(&a, &src[..20], &a, &mut dst),
            Err(TransformError::Layout(LayoutError::IndexOutOfRange { index: 20, size: 20 }))
        );
    }

    proptest! {
        #![proptest_config(Config { cases: 128, rng_seed: RngSeed::Fixed(0xc0b1), failure_persistence: None, ..Config::default() })]

        /// Packed sources with a guaranteed last length into padded rows with another: the
        /// same elements as element by element, in vectors of the gcd of the two guarantees.
        #[test]
        fn copies_equal_element_wise(a in 1isize..4, b in 1isize..4, c in 1isize..13, pad in 0isize..5, s1 in 0usize..6, s2 in 0usize..6) {
            let ds: Vec<isize> = (1..=c).filter(|d| c % d == 0).collect();
            let (g1, g2) = (ds[s1 % ds.len()], ds[s2 % ds.len()]);
            let src = make_naive_tensor_descriptor_packed_guaranteed((a as usize, b as usize, c as usize), Some(g1)).unwrap();
            let ld = c + pad;
            let dst = make_naive_tensor_descriptor_guaranteed(
                (a as usize, b as usize, c as usize), (b * ld, ld, 1isize), SafeVector::new(g2, 1),
            ).unwrap();
            let gcd = (1..=g1.min(g2)).rev().find(|d| g1 % d == 0 && g2 % d == 0).unwrap();
            prop_assert_eq!(same(&src, &dst), gcd as usize);
            prop_assert_eq!(same(&dst, &src), gcd as usize);
        }
    }
}

/// CK's `is_known_at_compile_time` of adaptors and descriptors: static when every stage's
/// transform is, through chained transforms; one runtime stage anywhere makes both runtime.
#[test]
fn descriptors_are_known_at_compile_time_when_every_stage_is() {
    let packed = make_naive_tensor_descriptor_packed((C::<4>, C::<6>)).unwrap();
    assert!(is_known_at_compile_time(&packed) && is_known_at_compile_time(packed.adaptor()));
    let merged = transform_tensor_descriptor(
        packed.clone(),
        (Stage::new(Merge::new((C::<4>, C::<6>)).unwrap(), sequence![0, 1], sequence![0]),),
    );
    assert!(is_known_at_compile_time(&merged));
    let padded = transform_tensor_descriptor(
        merged.clone(),
        (Stage::new(Pad::new(C::<24>, C::<1>, 1usize), sequence![0], sequence![0]),),
    );
    assert!(!is_known_at_compile_time(&padded) && !is_known_at_compile_time(padded.adaptor()));
    let passed = transform_tensor_descriptor(
        merged,
        (Stage::new(PassThrough::new(C::<24>), sequence![0], sequence![0]),),
    );
    assert!(is_known_at_compile_time(&passed));
    let runtime = make_naive_tensor_descriptor_packed((4usize, C::<6>)).unwrap();
    assert!(!is_known_at_compile_time(&runtime));
}
