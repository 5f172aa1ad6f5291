//! `layout ck-tile`, run as a user runs it, against the typed CK Tile crate: each descriptor and
//! adaptor is built with the crate's API, printed with its `Display`, given to the tool, and every
//! value the tool prints is compared with the typed object's own (`offset`, `is_valid`,
//! `calculate_offset`, `calculate_hidden_index`, `calculate_bottom_index`).

use crate::cli::{layout, stderr, stdout};
use crate::rng::Rng;
use const_layout::ck_tile::{
    CuteLayout, Embed, Freeze, Insert, Merge, MergeDivMod, Modulo, MultiIndex, Offset, Pad, PassThrough,
    Replicate, Sequence, Slice, Stage, StagesText, TensorAdaptor, TensorDescriptor, Unmerge, Xor,
    make_naive_tensor_descriptor, make_naive_tensor_descriptor_packed, make_single_stage_tensor_adaptor,
    multi_index, transform_tensor_descriptor,
};
use const_layout::{C, make_layout, sequence};
use generic_array::ArrayLength;
use std::collections::HashMap;

/// The tool's output for `args`, which must succeed.
fn ok(args: &[&str]) -> String {
    let o = layout(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// Top index number `flat` over `lengths`, the last dimension fastest.
fn top_at<N: ArrayLength>(mut flat: isize, lengths: &MultiIndex<N>) -> MultiIndex<N> {
    let mut top = MultiIndex::<N>::default();
    for i in (0..lengths.len()).rev() {
        top[i] = flat % lengths[i];
        flat /= lengths[i];
    }
    top
}

/// The cells of the default output, by top index: the grid's for one or two top dimensions, the
/// `(i,j,k) -> v` lines otherwise.
fn cells(out: &str, dims: usize) -> HashMap<Vec<isize>, String> {
    let mut map = HashMap::new();
    for line in out.lines() {
        if dims == 1 || dims == 2 {
            let parts: Vec<&str> = line.split('|').collect();
            let Ok(m) = parts[0].trim().parse::<isize>() else { continue };
            if parts.len() < 3 {
                continue;
            }
            for (n, cell) in parts[1..parts.len() - 1].iter().enumerate() {
                let key = if dims == 1 { vec![n as isize] } else { vec![m, n as isize] };
                map.insert(key, cell.trim().to_string());
            }
        } else if let Some((index, value)) = line.split_once(" -> ")
            && let Some(index) = index.strip_prefix('(').and_then(|i| i.strip_suffix(')'))
        {
            let key = index.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
            map.insert(key, value.to_string());
        }
    }
    map
}

/// `(a,b,...)` or `a`, as the tool writes a tuple.
fn tuple_text(values: &[isize]) -> String {
    match values {
        [v] => v.to_string(),
        _ => format!("({})", values.iter().map(isize::to_string).collect::<Vec<_>>().join(",")),
    }
}

/// The hidden index of `--at`'s last line of the trace: `None` where not written.
fn traced_hidden(out: &str) -> Vec<Option<isize>> {
    let line = out.lines().rfind(|l| l.contains("hidden (")).expect("a trace");
    let inner = line.rsplit_once("hidden (").unwrap().1.trim_end_matches(')');
    inner.split(',').map(|v| v.parse().ok()).collect()
}

/// The descriptor's text through the tool: every offset and validity, and `--at` at a few indices
/// (and one out of range), equal to the typed descriptor's.
fn check_descriptor<S: StagesText, H: ArrayLength, Top: Sequence>(d: &TensorDescriptor<S, H, Top>) {
    let text = d.to_string();
    let out = ok(&["ck-tile", &text]);
    let lengths = d.lengths();
    assert!(out.contains(&format!("element space size {}", d.element_space_size())), "{out}");
    assert!(out.contains(&format!("top lengths {}", tuple_text(lengths))), "{out}");
    let n: isize = lengths.iter().product();
    let got = cells(&out, lengths.len());
    assert_eq!(got.len() as isize, n, "{text}\n{out}");
    for flat in 0..n {
        let top = top_at(flat, lengths);
        let want = match d.offset(&top) {
            Some(v) => {
                assert!(d.is_valid(&top));
                assert_eq!(v, d.calculate_offset(&top));
                v.to_string()
            }
            None => {
                assert!(!d.is_valid(&top));
                "-".to_string()
            }
        };
        assert_eq!(got[&top.to_vec()], want, "{text} at {top:?}\n{out}");
    }
    for flat in [0, n / 3, n - 1, n] {
        let mut top = top_at(flat.min(n - 1), lengths);
        if flat == n {
            // Past the end of top dimension 0: the offset is computed, and invalid.
            top[0] = lengths[0];
        }
        let at = tuple_text(&top);
        let out = ok(&["ck-tile", &text, "--at", &at]);
        let hidden = d.adaptor().calculate_hidden_index(&top);
        let traced = traced_hidden(&out);
        assert_eq!(traced.len(), hidden.len(), "{text} --at {at}\n{out}");
        for (t, h) in traced.iter().zip(hidden.iter()) {
            if let Some(t) = t {
                assert_eq!(t, h, "{text} --at {at}\n{out}");
            }
        }
        let verdict = if d.is_valid(&top) { "valid" } else { "invalid" };
        let last = out.lines().last().unwrap();
        assert!(
            last.starts_with(&format!("offset {}, {verdict}", d.calculate_offset(&top))),
            "{text} --at {at}\n{out}"
        );
    }
}

/// The adaptor's text through the tool: every bottom index equal to the typed adaptor's.
fn check_adaptor<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence>(
    a: &TensorAdaptor<S, H, Top, Bottom>,
) {
    let text = a.to_string();
    let out = ok(&["ck-tile", &text]);
    let lengths = a.top_lengths();
    let n: isize = lengths.iter().product();
    let got = cells(&out, lengths.len());
    assert_eq!(got.len() as isize, n, "{text}\n{out}");
    for flat in 0..n {
        let top = top_at(flat, lengths);
        assert_eq!(got[&top.to_vec()], tuple_text(&a.calculate_bottom_index(&top)), "{text}\n{out}");
    }
    let top = top_at(n / 2, lengths);
    let out = ok(&["ck-tile", &text, "--at", &tuple_text(&top)]);
    let hidden = a.calculate_hidden_index(&top);
    for (t, h) in traced_hidden(&out).iter().zip(hidden.iter()) {
        if let Some(t) = t {
            assert_eq!(t, h, "{text}\n{out}");
        }
    }
    let bottom = format!("bottom index {}", tuple_text(&a.calculate_bottom_index(&top)));
    assert!(out.lines().last().unwrap().starts_with(&bottom), "{text}\n{out}");
}

#[test]
fn naive_descriptor_prints_as_a_table() {
    let d = make_naive_tensor_descriptor((3usize, 4usize), (8isize, C::<1>)).unwrap();
    let out = ok(&["ck-tile", &d.to_string()]);
    assert!(
        out.starts_with("tensor_descriptor{transforms: [\n    embed((3,4),(8,_1)): [1,2] -> [0]\n"),
        "{out}"
    );
    assert!(out.contains(" 2  | 16 | 17 | 18 | 19 |"), "{out}");
    check_descriptor(&d);
    // Several words are one descriptor, joined with spaces.
    let words: Vec<String> = d.to_string().split(' ').map(str::to_string).collect();
    let mut args = vec!["ck-tile"];
    args.extend(words.iter().map(String::as_str));
    assert_eq!(ok(&args), out);
}

/// CK's convolution input: packed NHWC, H and W padded, (n, hp, wp) merged.
#[test]
fn padded_and_merged_conv_input() {
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
    check_descriptor(&padded);
    let merged = transform_tensor_descriptor(
        padded,
        (
            Stage::new(Merge::new((2usize, 5usize, 6usize)).unwrap(), sequence![0, 1, 2], sequence![0]),
            Stage::new(PassThrough::new(2usize), sequence![3], sequence![1]),
        ),
    );
    check_descriptor(&merged);
    let out = ok(&["ck-tile", &merged.to_string(), "--at", "(0,1)"]);
    assert!(out.contains("(padding: invalid)"), "{out}");
    assert!(out.ends_with("invalid: in the padding of transform 3\n"), "{out}");
}

/// The LDS descriptor of CK's GEMM: an xor swizzle, unmerges and merges, all static.
#[test]
fn xor_swizzled_lds() {
    let base = make_naive_tensor_descriptor((C::<8>, C::<8>, C::<8>), (C::<8>, C::<64>, C::<1>)).unwrap();
    let permuted = transform_tensor_descriptor(
        base,
        (
            Stage::new(Xor::new(C::<8>, C::<8>).unwrap(), sequence![1, 0], sequence![1, 0]),
            Stage::new(PassThrough::new(C::<8>), sequence![2], sequence![2]),
        ),
    );
    check_descriptor(&permuted);
    let unmerged = transform_tensor_descriptor(
        permuted,
        (
            Stage::new(Unmerge::new((C::<4>, C::<2>)), sequence![0], sequence![0, 2]),
            Stage::new(PassThrough::new(C::<8>), sequence![1], sequence![1]),
            Stage::new(PassThrough::new(C::<8>), sequence![2], sequence![3]),
        ),
    );
    let d = transform_tensor_descriptor(
        unmerged,
        (
            Stage::new(MergeDivMod::new((C::<4>, C::<8>)).unwrap(), sequence![0, 3], sequence![1]),
            Stage::new(MergeDivMod::new((C::<8>, C::<2>)).unwrap(), sequence![1, 2], sequence![0]),
        ),
    );
    check_descriptor(&d);
}

/// The other transforms: modulo, freeze, insert, replicate, offset, slice, an unchecked pad,
/// embed, and CuTe layouts flat and nested.
#[test]
fn every_transform() {
    let wrapped = transform_tensor_descriptor(
        make_naive_tensor_descriptor((5usize,), (2isize,)).unwrap(),
        (Stage::new(Modulo::new(5usize, 12usize).unwrap(), sequence![0], sequence![0]),),
    );
    check_descriptor(&wrapped);
    let frozen = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((3usize, 5usize)).unwrap(),
        (
            Stage::new(Freeze::new(2usize), sequence![0], sequence![]),
            Stage::new(Offset::new(4usize, 1isize), sequence![1], sequence![0]),
        ),
    );
    check_descriptor(&frozen);
    let others = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((6usize, C::<4>)).unwrap(),
        (
            Stage::new(MergeDivMod::new((6usize, C::<4>)).unwrap(), sequence![0, 1], sequence![0]),
            Stage::new(Insert::new(3usize), sequence![], sequence![1]),
            Stage::new(Replicate::new((C::<2>, 2usize)), sequence![], sequence![2, 3]),
        ),
    );
    check_descriptor(&others);
    let sliced = transform_tensor_descriptor(
        make_naive_tensor_descriptor((10usize,), (C::<1>,)).unwrap(),
        (Stage::new(Slice::new(10usize, 3usize, 8usize), sequence![0], sequence![0]),),
    );
    check_descriptor(&sliced);
    let unchecked = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((4usize, 3usize)).unwrap(),
        (
            Stage::new(Pad::unchecked(4usize, 1usize, 1usize), sequence![0], sequence![0]),
            Stage::new(Pad::new(3usize, C::<0>, 2usize), sequence![1], sequence![1]),
        ),
    );
    check_descriptor(&unchecked);
    let embedded = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((48usize,)).unwrap(),
        (Stage::new(Embed::new((3usize, 4usize), (16isize, C::<2>)), sequence![0], sequence![0, 1]),),
    );
    check_descriptor(&embedded);
    let flat = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((64usize,)).unwrap(),
        (Stage::new(
            CuteLayout::new(make_layout((4usize, C::<8>), (C::<1>, 4isize)).unwrap()),
            sequence![0],
            sequence![0, 1],
        ),),
    );
    check_descriptor(&flat);
    let nested = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((64usize,)).unwrap(),
        (Stage::new(
            CuteLayout::new(make_layout((4usize, (C::<2>, 3usize)), (C::<1>, (4isize, 8isize))).unwrap()),
            sequence![0],
            sequence![0, 1],
        ),),
    );
    check_descriptor(&nested);
    let single = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((64usize,)).unwrap(),
        (Stage::new(CuteLayout::new(make_layout(12usize, 3isize).unwrap()), sequence![0], sequence![0]),),
    );
    check_descriptor(&single);
    // Four and six dimensions: arities the tool dispatches.
    check_descriptor(&make_naive_tensor_descriptor_packed((2usize, 3usize, 2usize, 2usize)).unwrap());
    check_descriptor(
        &make_naive_tensor_descriptor(
            (2usize, 1usize, 2usize, 3usize, 1usize, 2usize),
            (1isize, 5, 7, 11, 13, 17),
        )
        .unwrap(),
    );
}

#[test]
fn adaptors() {
    let a = make_single_stage_tensor_adaptor((
        Stage::new(PassThrough::new(4usize), sequence![0], sequence![1]),
        Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![0, 2]),
    ));
    check_adaptor(&a);
    let m = make_single_stage_tensor_adaptor((Stage::new(
        Merge::new((4usize, 5usize)).unwrap(),
        sequence![0, 1],
        sequence![0],
    ),));
    check_adaptor(&m);
}

/// Random lengths, strides and pads: naive descriptors, padded, then merged.
#[test]
fn random_descriptors() {
    let mut rng = Rng(0x5eed);
    for _ in 0..12 {
        let (a, b, c) = (1 + rng.pick(4), 1 + rng.pick(5), 1 + rng.pick(3));
        let strides = (rng.pick(40) as isize - 8, rng.pick(9) as isize, 1 + rng.pick(3) as isize);
        let naive = make_naive_tensor_descriptor((a, b, c), strides).unwrap();
        check_descriptor(&naive);
        let (l, r) = (rng.pick(3), rng.pick(3));
        let padded = transform_tensor_descriptor(
            naive,
            (
                Stage::new(Pad::new(a, l, r), sequence![0], sequence![0]),
                Stage::new(Merge::new((b, c)).unwrap(), sequence![1, 2], sequence![1]),
            ),
        );
        check_descriptor(&padded);
        let merged = transform_tensor_descriptor(
            padded,
            (Stage::new(Merge::new((a + l + r, b * c)).unwrap(), sequence![0, 1], sequence![0]),),
        );
        check_descriptor(&merged);
    }
}

/// `--svg`: one cell per top index, blank (white, no label) where invalid.
#[test]
fn svg_has_one_cell_per_index() {
    let d = transform_tensor_descriptor(
        make_naive_tensor_descriptor_packed((3usize, 4usize)).unwrap(),
        (
            Stage::new(Pad::new(3usize, 1usize, 1usize), sequence![0], sequence![0]),
            Stage::new(PassThrough::new(4usize), sequence![1], sequence![1]),
        ),
    );
    let svg = ok(&["ck-tile", &d.to_string(), "--svg"]);
    assert!(svg.starts_with("<?xml") && svg.ends_with("</svg>\n"), "{svg}");
    let cells: Vec<&str> = svg.lines().filter(|l| l.contains("width=\"24\" height=\"24\"")).collect();
    assert_eq!(cells.len(), 5 * 4, "{svg}");
    let blank = cells.iter().filter(|l| l.contains("fill=\"rgb(255,255,255)\"")).count();
    let invalid = (0..5).flat_map(|m| (0..4).map(move |n| (m, n)));
    let invalid = invalid.filter(|&(m, n)| !d.is_valid(&multi_index([m, n]))).count();
    assert_eq!((blank, invalid), (8, 8), "{svg}");
    // Rows are top dimension 0: the first column's cells share x, one row apart.
    assert!(svg.contains("<title>tensor_descriptor{transforms: [pad(3,1,1)"), "{svg}");
    // Three top dimensions: dim 0 down, the rest across.
    let p = make_naive_tensor_descriptor_packed((2usize, 3usize, 2usize)).unwrap();
    let svg = ok(&["ck-tile", &p.to_string(), "--svg"]);
    assert_eq!(svg.lines().filter(|l| l.contains("width=\"24\" height=\"24\"")).count(), 12);
}

/// Each class of bad input: status 1, one line on stderr that starts `layout: ` and says what.
#[test]
fn errors_are_one_line() {
    let good = "tensor_descriptor{transforms: [embed((3,4),(8,_1)): [1,2] -> [0]], top: [1,2], element_space_size: 20}";
    let cases: Vec<(Vec<String>, &str)> = vec![
        // Parse errors name the column.
        (vec![good.replace("[1,2] ->", "[1,2] =>")], "column 59: expected `->`"),
        (vec![good.replace("embed", "embedd")], "column 32: unknown transform `embedd`"),
        (vec![good.replace("(8,_1)", "(8,x)")], "column 47: expected an integer"),
        (vec![good.replace("20}", "20} x")], "expected the end of the input"),
        // Wiring.
        (vec![good.replace("top: [1,2]", "top: [1,2,3]")], "top id 3 is read by no transform"),
        (vec![good.replace("-> [0]", "-> [1]")], "writes hidden id 1, a top id"),
        (vec![good.replace("-> [0]", "-> [0,3]")], "has 1 lower dimension; [0,3] names 2"),
        (vec![good.replace("-> [0]", "-> [5]")], "the offset, hidden id 0, is written by no transform"),
        (
            vec![
                "tensor_descriptor{transforms: [pass_through(3): [2] -> [0], pass_through(3): [1] -> [2]], top: [1], element_space_size: 3}"
                    .to_string(),
            ],
            "transform 0 reads hidden id 2, which is no top id",
        ),
        (vec![good.replace("[1,2] -> [0]", "[1,99] -> [0]")], "a hidden id is an integer from 0 to 63"),
        // Values.
        (vec![good.replace("(3,4)", "(3,0)")], "upper length of 0"),
        (vec![good.replace("(8,_1)", "(8,1,1)")], "embed has 2 lengths and 3 coefficients"),
        (vec![good.replace("(3,4)", "(3,4000000000)")], "up to 2^30"),
        // Unsupported arity.
        (
            vec![
                "tensor_descriptor{transforms: [unmerge((1,1,1,1,1,1,1)): [1,2,3,4,5,6,7] -> [0]], top: [1,2,3,4,5,6,7], element_space_size: 1}"
                    .to_string(),
            ],
            "the tool supports arities 1 to 6",
        ),
        // Too large.
        (
            vec![
                "tensor_descriptor{transforms: [embed((1000,1000),(1000,1)): [1,2] -> [0]], top: [1,2], element_space_size: 1000000}"
                    .to_string(),
                "--svg".to_string(),
            ],
            "--svg draws at most 65536 top indices",
        ),
        (vec![good.to_string(), "--at".to_string(), "(1,2,3)".to_string()], "the top has 2 dimensions"),
        (vec![good.to_string(), "--at".to_string()], "`--at` needs a top index"),
        (vec![], "`ck-tile` needs a descriptor"),
    ];
    for (args, want) in cases {
        let mut all = vec!["ck-tile"];
        all.extend(args.iter().map(String::as_str));
        let o = layout(&all);
        assert_eq!(o.status.code(), Some(1), "{all:?}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(err.starts_with("layout: ") && err.lines().count() == 1, "{all:?}: {err}");
        assert!(err.contains(want), "{all:?}: {err} (want {want})");
    }
    // Too many indices for a table is one line of the output, not an error.
    let big = "tensor_descriptor{transforms: [embed((1000,1000),(1000,1)): [1,2] -> [0]], top: [1,2], element_space_size: 1000000}";
    let out = ok(&["ck-tile", big]);
    assert!(out.contains("1000000 top indices: the tool lists at most 65536"), "{out}");
}
