//! CK Tile descriptors and adaptors as text (`ck_tile::text`): every transform, static and
//! runtime parameters, stages in tuples and chains, guarantees, on generated descriptors: the
//! text reads back into the same type as the same function (offsets, validity, lengths, element
//! space, guarantees) and prints the same; a text of another structure is an error that names
//! what the type has; truncated and mutated texts are errors or read back consistently, never a
//! panic.

use crate::rng::Rng;
use const_layout::ck_tile::{
    CuteLayout, Embed, Expected, Freeze, Insert, Merge, MergeDivMod, Modulo, MultiIndex, Offset, Pad,
    PassThrough, Replicate, Slice, Stage, StagesText, TensorDescriptor, TextError, Unmerge, Xor,
    chain_tensor_adaptors, layout_to_descriptor, make_naive_tensor_descriptor,
    make_naive_tensor_descriptor_aligned, make_naive_tensor_descriptor_packed,
    make_naive_tensor_descriptor_with_offset, make_single_stage_tensor_adaptor, transform_tensor_descriptor,
};
use const_layout::ck_tile::{Sequence, TensorAdaptor};
use const_layout::{C, make_layout, sequence};
use generic_array::ArrayLength;
use std::str::FromStr;

/// Top index number `flat` in row-major order over `lengths`.
fn top_at<N: ArrayLength>(flat: isize, lengths: &MultiIndex<N>) -> MultiIndex<N> {
    let (mut rest, mut top) = (flat, MultiIndex::<N>::default());
    for i in (0..lengths.len()).rev() {
        top[i] = rest % lengths[i];
        rest /= lengths[i];
    }
    top
}

/// `text` with a byte range replaced, kept valid UTF-8 (the notation is ASCII).
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut b = text.as_bytes().to_vec();
    const PIECES: [&[u8]; 12] =
        [b"_", b"-", b"0", b"9", b",", b"(", b")", b"[", b"]", b"99999999999999999999", b"->", b" "];
    for _ in 0..1 + rng.pick(3) {
        let at = rng.pick(b.len() + 1);
        match rng.pick(3) {
            0 if at < b.len() => {
                b.remove(at);
            }
            1 => {
                let p = PIECES[rng.pick(PIECES.len())];
                b.splice(at..at, p.iter().copied());
            }
            _ if at < b.len() => b[at] = b"0123456789_(),:[]-> abcxyz"[rng.pick(26)],
            _ => {}
        }
    }
    String::from_utf8(b).unwrap_or_default()
}

/// One line: the notation's errors are single-line messages.
fn one_line(e: &TextError) {
    let m = e.to_string();
    assert!(!m.contains('\n') && m.starts_with("column "), "{m}");
}

/// The descriptor's text reads back as the same descriptor, and every broken text is an error.
fn round_trip<S: StagesText, H: ArrayLength, Top: Sequence>(d: &TensorDescriptor<S, H, Top>, rng: &mut Rng) {
    let text = d.to_string();
    let back: TensorDescriptor<S, H, Top> = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.to_string(), text);
    assert_eq!(back.lengths(), d.lengths(), "{text}");
    assert_eq!(back.element_space_size(), d.element_space_size(), "{text}");
    assert_eq!(back.guaranteed_vectors(), d.guaranteed_vectors(), "{text}");
    assert_eq!(
        back.get_top_dimension_safe_vector_length_strides(),
        d.get_top_dimension_safe_vector_length_strides(),
        "{text}"
    );
    let n: isize = d.lengths().iter().product();
    for flat in 0..n.min(2048) {
        let top = top_at(flat, d.lengths());
        assert_eq!(back.calculate_offset(&top), d.calculate_offset(&top), "{text} at {top:?}");
        assert_eq!(back.is_valid(&top), d.is_valid(&top), "{text} at {top:?}");
    }
    broken(&text, rng, |s| s.parse::<TensorDescriptor<S, H, Top>>().map(|d| d.to_string()));
}

/// Every proper prefix of `text` is an error; mutations are errors or read back to a text that
/// reads back to itself.
fn broken(text: &str, rng: &mut Rng, parse: impl Fn(&str) -> Result<String, TextError>) {
    for cut in 0..text.len() {
        let e = parse(&text[..cut]).expect_err(&text[..cut]);
        one_line(&e);
    }
    for _ in 0..40 {
        let m = mutate(text, rng);
        match parse(&m) {
            Ok(again) => assert_eq!(parse(&again).as_ref(), Ok(&again), "{m}"),
            Err(e) => one_line(&e),
        }
    }
}

fn adaptor_round_trip<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence>(
    a: &TensorAdaptor<S, H, Top, Bottom>,
    rng: &mut Rng,
) {
    let text = a.to_string();
    let back: TensorAdaptor<S, H, Top, Bottom> = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.to_string(), text);
    assert_eq!(back.top_lengths(), a.top_lengths());
    let n: isize = a.top_lengths().iter().product();
    for flat in 0..n.min(2048) {
        let top = top_at(flat, a.top_lengths());
        assert_eq!(back.calculate_bottom_index(&top), a.calculate_bottom_index(&top), "{text}");
    }
    broken(&text, rng, |s| s.parse::<TensorAdaptor<S, H, Top, Bottom>>().map(|a| a.to_string()));
}

/// Every transform, with runtime parameters drawn at random, in stages of tuples and chains.
#[test]
fn generated_descriptors_round_trip() {
    let mut rng = Rng(0xdec0de);
    for _ in 0..60 {
        let (a, b, c) = (1 + rng.pick(4), 1 + rng.pick(4), 1 + rng.pick(3));
        let (s0, s1) = (rng.range(0, 40), rng.range(0, 9));
        // Naive, runtime and static strides, then merges, pads, embeds and the others on top.
        let naive = make_naive_tensor_descriptor((a, b, c), (s0, s1, C::<1>)).unwrap();
        round_trip(&naive, &mut rng);
        let (l, r) = (rng.pick(3), rng.pick(3));
        let padded = transform_tensor_descriptor(
            naive,
            (
                Stage::new(Pad::new(a, l, r), sequence![0], sequence![0]),
                Stage::new(Merge::new((b, c)).unwrap(), sequence![1, 2], sequence![1]),
            ),
        );
        round_trip(&padded, &mut rng);
        let split = transform_tensor_descriptor(
            padded,
            (
                Stage::new(PassThrough::new(a + l + r), sequence![0], sequence![0]),
                Stage::new(Unmerge::new((C::<1>, b * c)), sequence![1], sequence![1, 2]),
            ),
        );
        round_trip(&split, &mut rng);
        let packed = make_naive_tensor_descriptor_packed((a * b, C::<4>)).unwrap();
        let others = transform_tensor_descriptor(
            packed,
            (
                Stage::new(MergeDivMod::new((a * b, C::<4>)).unwrap(), sequence![0, 1], sequence![0]),
                Stage::new(Insert::new(c), sequence![], sequence![1]),
                Stage::new(Replicate::new((C::<2>, b)), sequence![], sequence![2, 3]),
            ),
        );
        round_trip(&others, &mut rng);
        let n = a * b * c;
        let flat = make_naive_tensor_descriptor((n,), (C::<1>,)).unwrap();
        let begin = rng.pick(n);
        let sliced = transform_tensor_descriptor(
            flat,
            (Stage::new(Slice::new(n, begin, begin + 1 + rng.pick(n - begin)), sequence![0], sequence![0]),),
        );
        round_trip(&sliced, &mut rng);
        let m = 1 + rng.pick(8);
        let wrapped = transform_tensor_descriptor(
            make_naive_tensor_descriptor((m,), (2isize,)).unwrap(),
            (Stage::new(Modulo::new(m, m + rng.pick(9)).unwrap(), sequence![0], sequence![0]),),
        );
        round_trip(&wrapped, &mut rng);
        let sq = 1 << rng.pick(4);
        let xored = transform_tensor_descriptor(
            make_naive_tensor_descriptor_packed((sq, sq)).unwrap(),
            (Stage::new(Xor::new(sq, sq).unwrap(), sequence![0, 1], sequence![0, 1]),),
        );
        round_trip(&xored, &mut rng);
        let offset =
            make_naive_tensor_descriptor_with_offset((a, b), (b as isize, C::<1>), rng.range(0, 99)).unwrap();
        round_trip(&offset, &mut rng);
        let aligned = make_naive_tensor_descriptor_aligned((a, b, C::<8>), C::<4>).unwrap();
        round_trip(&aligned, &mut rng);
        let frozen = transform_tensor_descriptor(
            make_naive_tensor_descriptor_packed((a, b)).unwrap(),
            (
                Stage::new(Freeze::new(rng.pick(a)), sequence![0], sequence![]),
                Stage::new(Offset::new(b - 1, 1isize), sequence![1], sequence![0]),
            ),
        );
        if b > 1 {
            round_trip(&frozen, &mut rng);
        }
        let embedded = transform_tensor_descriptor(
            make_naive_tensor_descriptor_packed((a * b * 4,)).unwrap(),
            (Stage::new(Embed::new((a, b), (b as isize * 4, C::<2>)), sequence![0], sequence![0, 1]),),
        );
        round_trip(&embedded, &mut rng);
        // A CuTe layout as one transform, static and runtime modes.
        let l = make_layout((a, (C::<2>, b)), (C::<1>, (a as isize, 2 * a as isize))).unwrap();
        round_trip(&layout_to_descriptor(&l).unwrap(), &mut rng);
    }
}

/// Static parameters print with CuTe's `_` and read back only with their own values; the
/// unchecked pad says so.
#[test]
fn static_parameters_and_unchecked_pads() {
    let mut rng = Rng(7);
    let d = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((C::<3>, C::<4>)).unwrap(),
        (
            Stage::new(Pad::unchecked(C::<3>, C::<1>, 0usize), sequence![0], sequence![0]),
            Stage::new(PassThrough::new(C::<4>), sequence![1], sequence![1]),
        ),
    );
    let text = d.to_string();
    assert!(text.contains("pad(_3,_1,0,skip): [3] -> [1]"), "{text}");
    round_trip(&d, &mut rng);
    let type_of = |s: &str| s.parse::<TensorDescriptor<_, _, _>>().map(|x| same_type(&d, x));
    let e = type_of(&text.replace("pad(_3,_1,0,skip)", "pad(_3,_1,0)")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "column {}: expected `,skip)`: the type skips the validity check, found `)`",
            text.find(",skip").unwrap() + 1
        )
    );
    let e = type_of(&text.replace("pad(_3,_1", "pad(_3,_2")).unwrap_err();
    assert!(e.to_string().ends_with("left integer 0 is 2 where the type has the static _1"), "{e}");
    // A runtime value may be written static and the other way round: the type decides.
    let relaxed = text.replace("pad(_3,_1,0,skip)", "pad(3,1,_0,skip)");
    assert_eq!(type_of(&relaxed).unwrap().to_string(), text);
}

fn same_type<T>(_: &T, x: T) -> T {
    x
}

/// A text of another structure names what the type has, at the column where it differs.
#[test]
fn structure_mismatches_name_the_types_structure() {
    let d = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((4usize, 6usize)).unwrap(),
        (
            Stage::new(PassThrough::new(4usize), sequence![0], sequence![0]),
            Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![1, 2]),
        ),
    );
    let text = d.to_string();
    assert_eq!(
        text,
        "tensor_descriptor{transforms: [pass_through(4): [3] -> [1], unmerge((2,3)): [4,5] -> [2], \
         unmerge((4,6)): [1,2] -> [0]], top: [3,4,5], element_space_size: 24, guaranteed: [(-1,1),(-1,-1),(-1,1),(-1,-1),(-1,-1),(-1,-1)]}"
    );
    let parse = |s: &str| s.parse::<TensorDescriptor<_, _, _>>().map(|x| same_type(&d, x));
    let at = |pat: &str| text.find(pat).unwrap() + 1;
    let cases: [(String, TextError); 5] = [
        (
            text.replace("pass_through(4)", "merge((4))"),
            TextError::Structure {
                column: at("pass_through"),
                transform: Some(0),
                expected: Expected::Name("pass_through"),
            },
        ),
        (
            text.replace("[4,5] -> [2]", "[5,4] -> [2]"),
            TextError::Structure {
                column: at("[4,5]"),
                transform: Some(1),
                expected: Expected::Upper(&[4, 5]),
            },
        ),
        (
            text.replace("[3] -> [1]", "[3] -> [2]"),
            TextError::Structure {
                column: at("[1], unmerge"),
                transform: Some(0),
                expected: Expected::Lower(&[1]),
            },
        ),
        (
            text.replace("top: [3,4,5]", "top: [3,4]"),
            TextError::Structure {
                column: at("[3,4,5]"),
                transform: None,
                expected: Expected::Top(&[3, 4, 5]),
            },
        ),
        (
            text.replace("[1,2] -> [0]]", "[1,2] -> [0], pass_through(4): [6] -> [7]]"),
            TextError::Structure { column: at("], top"), transform: None, expected: Expected::Transforms(3) },
        ),
    ];
    for (t, want) in cases {
        assert_eq!(parse(&t).unwrap_err(), want, "{t}");
    }
    assert_eq!(
        parse(&text.replace("pass_through(4)", "merge((4))")).unwrap_err().to_string(),
        format!("column {}: transform 0 is `pass_through` in the type", at("pass_through"))
    );
    assert_eq!(
        parse(&text.replace("[4,5] -> [2]", "[5,4] -> [2]")).unwrap_err().to_string(),
        format!("column {}: transform 1's upper ids are [4,5] in the type", at("[4,5]"))
    );
    // Values the transforms refuse.
    let e = parse(&text.replace("pass_through(4)", "pass_through(0)")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("column {}: shape integer 0 is 0: extents must be positive", at("pass_through"))
    );
    let e = parse(&text.replace("element_space_size: 24", "element_space_size: -1")).unwrap_err();
    assert!(e.to_string().contains("expected an element space size (an integer from 0), found `-`"), "{e}");
}

/// Merges keep their lengths' static-ness; merges of zero lengths are refused with the maker's
/// error; adaptors round-trip too, chained ones included.
#[test]
fn merges_and_adaptors() {
    let mut rng = Rng(99);
    let d = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((C::<2>, 3usize, C::<4>)).unwrap(),
        (Stage::new(Merge::new((C::<2>, 3usize, C::<4>)).unwrap(), sequence![0, 1, 2], sequence![0]),),
    );
    assert!(d.to_string().contains("merge((_2,3,_4)): [4] -> [1,2,3]"), "{d}");
    round_trip(&d, &mut rng);
    let parse = |s: &str| s.parse::<TensorDescriptor<_, _, _>>().map(|x| same_type(&d, x));
    let e = parse(&d.to_string().replace("merge((_2,3,_4))", "merge((_2,0,_4))")).unwrap_err();
    assert!(matches!(e, TextError::Invalid { .. }), "{e}");
    let a0 = make_single_stage_tensor_adaptor((
        Stage::new(PassThrough::new(4usize), sequence![0], sequence![1]),
        Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![0, 2]),
    ));
    adaptor_round_trip(&a0, &mut rng);
    let a1 = make_single_stage_tensor_adaptor((Stage::new(
        Merge::new((2usize, 4usize, 3usize)).unwrap(),
        sequence![0, 1, 2],
        sequence![0],
    ),));
    let c = chain_tensor_adaptors(a0, a1);
    assert_eq!(
        c.to_string(),
        "tensor_adaptor{transforms: [merge((2,4,3)): [5] -> [2,3,4], pass_through(4): [3] -> [0], \
         unmerge((2,3)): [2,4] -> [1]], bottom: [0,1], top: [5]}"
    );
    adaptor_round_trip(&c, &mut rng);
    let _ = CuteLayout::new(make_layout((C::<2>,), (C::<1>,)).unwrap());
}

/// Deep or huge input ends in an error in bounded time, never a stack overflow.
#[test]
fn pathological_input_is_an_error() {
    type D = const_layout::ck_tile::NaiveDescriptor<(usize, usize), (isize, C<1>)>;
    let deep =
        format!("tensor_descriptor{{transforms: [embed({}3{}", "(".repeat(100_000), ")".repeat(100_000));
    let e = D::from_str(&deep).unwrap_err();
    one_line(&e);
    let long_ids =
        format!("tensor_descriptor{{transforms: [embed((3,4),(8,_1)): [{}1] -> [0]]", "1,".repeat(100_000));
    one_line(&D::from_str(&long_ids).unwrap_err());
    for s in ["", "{", "tensor_descriptor", "tensor_descriptor{}", "tensor_adaptor{transforms: []}", "\u{0}"]
    {
        one_line(&D::from_str(s).unwrap_err());
    }
}
