//! `AnyLayout`: every layout kind's trait methods against its own inherent methods (and against
//! brute force), on generated layouts; tensors over every kind against the layout's own offsets.

use const_layout::algebra::computed::{
    StaticLayout, coalesce, composition, logical_divide, swizzle, zipped_divide,
};
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::layout::{DynAnyLayout, LayoutCoord, SwizzledLayout};
use const_layout::swizzle::{ComposedLayout, Outer, Swizzle};
use const_layout::tensor::{TensorError, copy};
use const_layout::{
    AnyLayout, C, LayoutError, layout, layout_type, make_layout, make_tensor, make_tensor_mut,
};

/// A small deterministic generator (xorshift), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn range(&mut self, lo: isize, hi: isize) -> isize {
        lo + (self.next() % (hi - lo + 1) as u64) as isize
    }
}

/// The smallest and largest of some offsets.
fn min_max(offsets: impl Iterator<Item = isize>) -> (isize, isize) {
    offsets.fold((isize::MAX, isize::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// What every implementor must satisfy, from the trait alone and its runtime-structured form:
/// `offsets` is `offset` at each index, `offset_range` is their extremes, `to_dyn` is the same
/// function with the same text, and checked 1-D access stops at the size.
fn check_common<L: AnyLayout>(l: &L, what: &str)
where
    usize: LayoutCoord<L>,
{
    let n = l.size();
    let offsets: Vec<isize> = (0..n).map(|i| l.offset(i)).collect();
    assert_eq!(l.offsets().collect::<Vec<_>>(), offsets, "{what}: offsets");
    assert_eq!(l.offsets().rev().collect::<Vec<_>>(), offsets.iter().rev().copied().collect::<Vec<_>>());
    let (lo, hi) = min_max(offsets.iter().copied());
    assert_eq!(l.offset_range(), Ok((lo, hi)), "{what}: offset_range");
    for (i, &o) in offsets.iter().enumerate() {
        assert_eq!(l.crd2idx(i), o, "{what}: crd2idx({i})");
        assert_eq!(l.checked_crd2idx(i), Ok(o), "{what}: checked_crd2idx({i})");
    }
    assert_eq!(
        l.checked_crd2idx(n),
        Err(LayoutError::IndexOutOfRange { index: n as isize, size: n as isize })
    );
    let d = l.to_dyn().unwrap();
    assert_eq!(d.to_string(), l.to_string(), "{what}: to_dyn prints the same");
    let (dsize, drank, doffsets): (isize, usize, Vec<isize>) = match &d {
        DynAnyLayout::Layout(x) => {
            (x.size().value, x.rank(), (0..x.size().value).map(|i| x.offset(i)).collect())
        }
        DynAnyLayout::Composed(c) => {
            (c.size().value, c.rank(), (0..c.size().value).map(|i| c.offset(i)).collect())
        }
    };
    assert_eq!((dsize as usize, drank), (n, l.rank()), "{what}: to_dyn size and rank");
    assert_eq!(doffsets, offsets, "{what}: to_dyn offsets");
    // `DynAnyLayout` is itself a layout of any kind: the same answers through the trait.
    assert_eq!(
        (AnyLayout::size(&d), AnyLayout::rank(&d), d.cosize()),
        (n, l.rank(), l.cosize()),
        "{what}: as AnyLayout"
    );
    assert_eq!(d.offsets().collect::<Vec<_>>(), offsets, "{what}: DynAnyLayout offsets");
    assert_eq!(d.offset_range(), Ok((lo, hi)), "{what}: DynAnyLayout offset_range");
    assert_eq!(d.checked_crd2idx(n), l.checked_crd2idx(n), "{what}: DynAnyLayout past the size");
    assert_eq!(d.to_dyn(), Ok(d), "{what}: DynAnyLayout::to_dyn");
    for i in (0..n).step_by(n / 5 + 1) {
        assert_eq!(AnyLayout::idx2crd(&d, i), l.idx2crd(i), "{what}: DynAnyLayout idx2crd({i})");
        assert_eq!(d.crd2idx(i), offsets[i], "{what}: DynAnyLayout crd2idx({i})");
    }
    // idx2crd: the runtime-structured shape's coordinate, which maps back to the same offset.
    let inner = match &d {
        DynAnyLayout::Layout(x) => *x,
        DynAnyLayout::Composed(c) => *c.inner(),
    };
    for i in (0..n).step_by(n / 7 + 1) {
        let crd = l.idx2crd(i).unwrap();
        assert_eq!(
            crd,
            inner
                .idx2crd(&DynIntTuple::int(const_layout::dyn_layout::DynInt::new_runtime(i as isize)))
                .unwrap()
        );
        assert_eq!(inner.crd2idx(&crd).unwrap().value, inner.offset(i as isize), "{what}: idx2crd({i})");
    }
}

/// Tensor reads and writes over `l` land where the layout's offsets say: element `i` of a view
/// over `data` is `data[offset(i) - lo]`.
fn check_tensor<L: AnyLayout>(l: L, what: &str)
where
    usize: LayoutCoord<L>,
{
    let (lo, hi) = l.offset_range().unwrap();
    let len = (hi - lo + 1) as usize;
    let data: Vec<i64> = (0..len as i64).map(|x| 1000 + x).collect();
    assert_eq!(
        make_tensor(&data[..len - 1], l).unwrap_err(),
        TensorError::SliceTooShort { cosize: len, len: len - 1 },
        "{what}"
    );
    let t = make_tensor(&data, l).unwrap();
    for i in 0..l.size() {
        let want = data[(l.offset(i) - lo) as usize];
        assert_eq!(t[i], want, "{what}: t[{i}]");
        assert_eq!(t.get(i), Some(&want));
    }
    assert_eq!(t.get(l.size()), None);
    let read: Vec<i64> = t.iter().copied().collect();
    assert_eq!(read, (0..l.size()).map(|i| data[(l.offset(i) - lo) as usize]).collect::<Vec<_>>());
    let mut out = vec![0i64; len];
    let mut m = make_tensor_mut(&mut out, l).unwrap();
    *m.get_mut(0usize).unwrap() = -1;
    assert!(m.get_mut(l.size()).is_none());
    for i in 0..l.size() {
        m[i] = i as i64 + 1;
    }
    // The last index written to an element wins; unwritten elements stay 0.
    let mut want = vec![0i64; len];
    for i in 0..l.size() {
        want[(l.offset(i) - lo) as usize] = i as i64 + 1;
    }
    assert_eq!(out, want, "{what}: writes");
}

/// The typed runtime layouts the tests generate.
type Runtime3 = const_layout::Layout<(usize, (usize, usize)), (isize, (isize, isize))>;

/// A generated runtime layout `(a,(b,c)):(d,(e,f))`, extents 1..=5, strides -9..=9.
fn typed_layout(rng: &mut Rng, negative: bool) -> Runtime3 {
    let lo = if negative { -9 } else { 0 };
    let e = |r: &mut Rng| r.range(1, 5) as usize;
    let s = |r: &mut Rng| r.range(lo, 9);
    let shape = (e(rng), (e(rng), e(rng)));
    let stride = (s(rng), (s(rng), s(rng)));
    make_layout(shape, stride).unwrap()
}

#[test]
fn typed_layouts_agree_with_their_inherent_methods() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..300 {
        let l = typed_layout(&mut rng, true);
        let what = format!("case {case}: {l}");
        check_common(&l, &what);
        assert_eq!(AnyLayout::size(&l), l.size());
        assert_eq!(AnyLayout::cosize(&l), l.cosize());
        assert_eq!(AnyLayout::rank(&l), l.rank());
        let (a, (b, c)) = l.shape();
        for (x, y, z) in (0..a).flat_map(|x| (0..b).flat_map(move |y| (0..c).map(move |z| (x, y, z)))) {
            assert_eq!(AnyLayout::crd2idx(&l, (x, (y, z))), l.crd2idx((x, (y, z))), "{what}");
            assert_eq!(AnyLayout::crd2idx(&l, (x, y + b * z)), l.crd2idx((x, y + b * z)), "{what}");
            assert_eq!(AnyLayout::checked_crd2idx(&l, (x, (y, z))), l.checked_crd2idx((x, (y, z))));
        }
        assert_eq!(
            AnyLayout::checked_crd2idx(&l, (a, (0usize, 0usize))),
            l.checked_crd2idx((a, (0usize, 0usize)))
        );
        assert!(AnyLayout::checked_crd2idx(&l, (a, (0usize, 0usize))).is_err());
        for i in 0..l.size() {
            let (x, (y, z)) = l.idx2crd(i);
            assert_eq!(AnyLayout::idx2crd(&l, i).unwrap().to_string(), format!("({x},({y},{z}))"));
        }
        check_tensor(l, &what);
    }
}

#[test]
fn static_results_agree_with_their_inherent_methods() {
    let gmem = <layout_type!((8,6):(1,8))>::default();
    let tiles = zipped_divide(gmem, (C::<4>, C::<3>));
    check_common(&tiles, "zipped_divide");
    assert_eq!((AnyLayout::size(&tiles), AnyLayout::cosize(&tiles), AnyLayout::rank(&tiles)), (48, 48, 2));
    for k in 0..48usize {
        let crd = ((k % 4, k / 4 % 3), (k / 12 % 2, k / 24));
        assert_eq!(AnyLayout::crd2idx(&tiles, crd), tiles.crd2idx(crd));
        assert_eq!(AnyLayout::checked_crd2idx(&tiles, crd), Ok(tiles.crd2idx(crd)));
        let flat = (crd.0.0 + 4 * crd.0.1, crd.1.0 + 2 * crd.1.1);
        assert_eq!(AnyLayout::checked_crd2idx(&tiles, flat), Ok(tiles.crd2idx(crd)));
    }
    assert_eq!(
        AnyLayout::checked_crd2idx(&tiles, ((0usize, 3usize), (0usize, 0usize))),
        Err(LayoutError::CoordinateOutOfRange { leaf: 1, value: 3, extent: 3 })
    );
    assert_eq!(
        AnyLayout::checked_crd2idx(&tiles, (12usize, 0usize)),
        Err(LayoutError::CoordinateOutOfRange { leaf: 0, value: 12, extent: 12 })
    );
    check_tensor(tiles, "zipped_divide");

    // Negative strides: a divide of a reversed layout; the range starts below 0.
    let rev = logical_divide(<layout_type!((6,4):(-1,-6))>::default(), (C::<3>, C::<2>));
    check_common(&rev, "reversed divide");
    assert_eq!(rev.offset_range(), Ok((-23, 0)));
    check_tensor(rev, "reversed divide");

    let c = composition(
        coalesce(<layout_type!((2,(1,6)):(1,(6,2)))>::default()),
        <layout_type!((3,4):(4,1))>::default(),
    );
    check_common(&c, "composition");
    assert_eq!(AnyLayout::cosize(&c), c.cosize() as usize);
    check_tensor(c, "composition");

    // A basis-strided static layout has coordinates as values: no offset range.
    let id = const_layout::algebra::computed::make_identity_layout((C::<4>, C::<2>));
    assert_eq!(id.offset_range(), Err(LayoutError::BasisStride { op: "offset" }));
    // (`.err()`: printing such a tensor, as `unwrap_err` would, reads offsets, a compile error.)
    assert_eq!(make_tensor(&[0u8; 8], id).err().map(|_| ()), Some(()));
    assert!(matches!(
        make_tensor(&[0u8; 8], id),
        Err(TensorError::Layout(LayoutError::BasisStride { op: "offset" }))
    ));
}

#[test]
fn typed_swizzled_layouts_agree_with_their_inherent_methods() {
    let smem = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
    assert_eq!(smem.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
    check_common(&smem, "Sw<3,3,3>");
    assert_eq!((AnyLayout::cosize(&smem), smem.offset_range()), (512, Ok((0, 511))));
    for (r, c) in (0..8usize).flat_map(|r| (0..64usize).map(move |c| (r, c))) {
        assert_eq!(AnyLayout::crd2idx(&smem, (r, c)), smem.crd2idx((r, c)));
        assert_eq!(AnyLayout::checked_crd2idx(&smem, (r, c)), Ok(smem.crd2idx((r, c))));
    }
    assert!(AnyLayout::checked_crd2idx(&smem, (8usize, 0usize)).is_err());
    check_tensor(smem, "Sw<3,3,3>");

    // Swizzles over generated runtime layouts (non-negative strides: a swizzle of a negative
    // offset is defined, but not what shared memory does).
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..200 {
        let l = typed_layout(&mut rng, false);
        let a = SwizzledLayout::<1, 0, 1, _, _>::new(l);
        let b = SwizzledLayout::<2, 1, 2, _, _>::new(l);
        let c = SwizzledLayout::<1, 2, -2, _, _, 5>::new(l);
        for i in 0..l.size() {
            assert_eq!(AnyLayout::offset(&a, i), a.crd2idx(i));
            assert_eq!(AnyLayout::offset(&b, i), b.crd2idx(i));
            assert_eq!(AnyLayout::offset(&c, i), c.crd2idx(i));
        }
        let what = format!("case {case}: {l}");
        check_common(&a, &what);
        check_common(&b, &what);
        check_common(&c, &what);
        let (_, hi) = min_max(c.offsets());
        assert_eq!(AnyLayout::cosize(&c), (hi + 1) as usize, "{what}: cosize is one past the largest");
        check_tensor(b, &what);
        check_tensor(c, &what);
    }
}

#[test]
fn static_swizzled_layouts_agree_with_their_inherent_methods() {
    let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
    check_common(&smem, "generic Sw<3,3,3>");
    let typed = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
    assert_eq!(smem.to_string(), typed.to_string());
    for (r, c) in (0..8usize).flat_map(|r| (0..64usize).map(move |c| (r, c))) {
        assert_eq!(AnyLayout::crd2idx(&smem, (r, c)), smem.crd2idx((r, c)));
        assert_eq!(AnyLayout::crd2idx(&smem, (r, c)), typed.crd2idx((r, c)));
    }
    assert_eq!(
        smem.checked_crd2idx((0usize, 64usize)),
        Err(LayoutError::CoordinateOutOfRange { leaf: 1, value: 64, extent: 64 })
    );
    check_tensor(smem, "generic Sw<3,3,3>");
    // Tiles of a swizzled layout, and a swizzle whose top block is partly reached.
    let tiles =
        swizzle::<3, 4, 3, _>(zipped_divide(<layout_type!((8,64):(64,1))>::default(), (C::<8>, C::<8>)));
    check_common(&tiles, "swizzled tiles");
    let partial = swizzle::<2, 0, 3, _>(<layout_type!((3,5):(5,1))>::default());
    check_common(&partial, "partial top block");
    check_tensor(partial, "partial top block");
}

#[test]
fn dyn_layouts_agree_with_their_inherent_methods() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for case in 0..300 {
        let t = typed_layout(&mut rng, true);
        let l = DynLayout::try_from(&t).unwrap();
        let what = format!("case {case}: {l}");
        check_common(&l, &what);
        assert_eq!(AnyLayout::size(&l) as isize, l.size().value);
        assert_eq!(AnyLayout::cosize(&l) as isize, l.cosize().value);
        for i in 0..AnyLayout::size(&l) {
            assert_eq!(AnyLayout::offset(&l, i), l.offset(i as isize), "{what}");
            assert_eq!(AnyLayout::offset(&l, i), AnyLayout::offset(&t, i), "{what}: the typed twin");
        }
        check_tensor(l, &what);
        let sw = Swizzle::new(rng.range(0, 2) as u32, rng.range(0, 2) as u32, 2).unwrap();
        let c = ComposedLayout::new(sw, DynLayout::try_from(&typed_layout(&mut rng, false)).unwrap());
        let what = format!("case {case}: {c}");
        check_common(&c, &what);
        for i in 0..AnyLayout::size(&c) {
            assert_eq!(AnyLayout::offset(&c, i), c.offset(i as isize), "{what}");
        }
        check_tensor(c, &what);
        let outer = ComposedLayout::with_offset(
            Outer::Layout("(_4,_8):(_8,_-1)".parse().unwrap()),
            const_layout::dyn_layout::DynInt::new_runtime(rng.range(0, 3)),
            "(_2,_3):(_1,_2)".parse().unwrap(),
        );
        check_common(&outer, "a layout outer function");
        check_tensor(outer, "a layout outer function");
        // Tensors over what `to_dyn` gives, of both variants.
        check_tensor(l.to_dyn().unwrap(), &format!("case {case}: DynAnyLayout of {l}"));
        check_tensor(c.to_dyn().unwrap(), &format!("case {case}: DynAnyLayout of {c}"));
    }
    let id: DynLayout = "(_4,_8):(_1@0,_1@1)".parse().unwrap();
    assert_eq!(id.offset_range(), Err(LayoutError::BasisStride { op: "offset" }));
    assert!(make_tensor(&[0u8; 64], id).is_err());
}

#[test]
fn copy_moves_every_element_between_kinds() {
    let src: Vec<u32> = (0..512).collect();
    let mut dst = vec![0u32; 512];
    let a = make_tensor(&src, layout!((8,64):(64,1))).unwrap();
    let mut b =
        make_tensor_mut(&mut dst, swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default())).unwrap();
    copy(&a, &mut b).unwrap();
    let smem = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
    for (r, c) in (0..8usize).flat_map(|r| (0..64usize).map(move |c| (r, c))) {
        assert_eq!(dst[smem.crd2idx((r, c)) as usize], src[r * 64 + c]);
    }
    let small = make_tensor(&src[..8], layout!(8:1)).unwrap();
    let mut big = make_tensor_mut(&mut dst, layout!(16:1)).unwrap();
    assert_eq!(copy(&small, &mut big).unwrap_err(), TensorError::ShapeMismatch { src: 8, dst: 16 });
}

#[test]
fn static_tensor_offset_ranges_are_constants() {
    // What keeps the bounds checks folded: the static kinds' ranges are computed at compile time.
    const fn is_static<L: AnyLayout>(_: &L) -> bool {
        L::IS_STATIC
    }
    assert!(is_static(&layout!(composition(Sw<3,3,3>, (8,64):(64,1)))));
    assert!(is_static(&zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>))));
    assert!(is_static(&swizzle::<1, 0, 1, _>(<layout_type!(4:1)>::default())));
    assert!(!is_static(&make_layout((4usize, C::<2>), (1isize, C::<4>)).unwrap()));
    assert!(!is_static(&DynLayout::default()));
    // A static layout's constant agrees with its runtime-structured twin's range.
    let d = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    type Tiles = const_layout::algebra::computed::Computed<
        const_layout::algebra::computed::ZippedDivide<layout_type!((8,6):(1,8)), (C<4>, C<3>)>,
    >;
    let twin = <Tiles as StaticLayout>::LAYOUT;
    assert_eq!(d.offset_range(), twin.offset_range());
}

#[test]
fn views_through_the_generic_paths_parts_match_the_typed_tiles() {
    use const_layout::algebra::computed::{local_partition, local_tile};
    use const_layout::tensor;
    let data: Vec<u32> = (0..48).collect();
    let gmem = <layout_type!((8,6):(1,8))>::default();
    let t = make_tensor(&data, gmem).unwrap();
    for (bm, bn) in [(0usize, 0usize), (1, 0), (0, 1), (1, 1)] {
        let (tile, offset) = local_tile(gmem, (C::<4>, C::<3>), (bm, bn));
        let v = t.view(tile, offset).unwrap();
        let typed = tensor::local_tile(&t, (C::<4>, C::<3>), (bm, bn)).unwrap();
        assert_eq!(v.iter().collect::<Vec<_>>(), typed.iter().collect::<Vec<_>>(), "tile ({bm},{bn})");
        for (a, b) in (0..4usize).flat_map(|a| (0..3usize).map(move |b| (a, b))) {
            assert_eq!(v[(a, b)], typed[(a, b)]);
        }
    }
    let threads = <layout_type!((4,3):(3,1))>::default();
    let mut seen = [0u32; 48];
    for thread in 0..12 {
        let (mine, offset) = local_partition(gmem, threads, thread);
        for &x in t.view(mine, offset).unwrap().iter() {
            seen[x as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1), "every element in exactly one partition");
    // A view that reaches outside the viewed elements is an error, not a panic.
    let (tile, _) = local_tile(gmem, (C::<4>, C::<3>), (0usize, 0usize));
    assert!(matches!(t.view(tile, 30), Err(TensorError::SliceTooShort { .. })));
    assert!(matches!(t.view(tile, -1), Err(TensorError::SliceTooShort { .. })));
    let mut out = vec![0u32; 48];
    let mut m = make_tensor_mut(&mut out, gmem).unwrap();
    let (tile, offset) = local_tile(gmem, (C::<4>, C::<3>), (1usize, 1usize));
    m.reborrow().view(tile, offset).unwrap().fill(7);
    assert_eq!(out.iter().filter(|&&x| x == 7).count(), 12);
    assert_eq!(out[28], 7);
}

#[test]
fn tensors_over_the_typed_runtime_algebras_divide() {
    // The typed runtime algebra's `zipped_divide` of a runtime-sized matrix is a typed `Layout`:
    // a tensor over it reads the element the layout names, and agrees with the generic path's.
    let m = make_layout((8usize, 6usize), (1isize, 8isize)).unwrap();
    let z = const_layout::algebra::tiling::zipped_divide(&m, (C::<4>, C::<3>)).unwrap();
    let data: Vec<u32> = (0..48).collect();
    let t = make_tensor(&data, z).unwrap();
    let g = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    let tg = make_tensor(&data, g).unwrap();
    for k in 0..48usize {
        let crd = ((k % 4, k / 4 % 3), (k / 12 % 2, k / 24));
        assert_eq!(t[crd], data[AnyLayout::crd2idx(&z, crd) as usize]);
        assert_eq!(t[crd], tg[crd], "{crd:?}");
        assert_eq!(t[k], tg[k]);
    }
}

/// A random layout compatible with the flat layout `a`'s shape: each of its extents split into a
/// nested mode of factors, with strides that may pad, overlap, reverse or repeat.
fn refined(r: &mut Rng, a: &DynLayout) -> DynLayout {
    let (mut shape, mut stride) = (Vec::new(), Vec::new());
    let mut run = 1isize;
    for e in a.shape().leaves().map(|e| e.value) {
        let split = [2isize, 3, 4].into_iter().find(|&f| e % f == 0 && e > f && r.range(0, 2) == 0);
        let parts = match split {
            Some(f) => vec![f, e / f],
            None => vec![e],
        };
        let strides: Vec<String> = parts
            .iter()
            .map(|&p| {
                let d = match r.range(0, 5) {
                    0 => 0,
                    1 => -run,
                    2 => run + r.range(1, 3),
                    _ => run,
                };
                run *= p;
                d.to_string()
            })
            .collect();
        let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        shape.push(format!("({})", parts.join(",")));
        stride.push(format!("({})", strides.join(",")));
    }
    format!("({}):({})", shape.join(","), stride.join(",")).parse().unwrap()
}

/// A random flat layout of exactly `size` elements: the size split into extents, strides that
/// may pad, overlap, reverse or repeat (stride 0).
fn flat_layout(r: &mut Rng, size: isize) -> DynLayout {
    let mut exts = Vec::new();
    let mut left = size;
    while left > 1 {
        let e = [2, 4, 8, 3][r.range(0, 3) as usize];
        if left % e == 0 {
            exts.push(e);
            left /= e;
        } else if left % 2 == 0 {
            exts.push(2);
            left /= 2;
        } else {
            exts.push(left);
            left = 1;
        }
    }
    let mut run = 1isize;
    let strides: Vec<isize> = exts
        .iter()
        .map(|&e| {
            let d = match r.range(0, 5) {
                0 => 0,
                1 => -run,
                2 => run + r.range(1, 3),
                _ => run,
            };
            run *= e;
            d
        })
        .collect();
    let t = |v: &[isize]| format!("({})", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","));
    format!("{}:{}", t(&exts), t(&strides)).parse().unwrap()
}

#[test]
fn copy_plans_plain_layouts_and_matches_element_by_element() {
    // Sizes on both sides of the planning threshold; plain layouts of every kind of stride, and
    // the same copies through a swizzle (never planned) as the reference.
    let mut r = Rng(0x5eed_c0de);
    for case in 0..400 {
        let size = [8, 31, 32, 48, 64, 96, 128, 256][case % 8];
        // `copy` takes shapes of which one is compatible with the other: the second a refinement
        // of the first (each extent split into a nested mode), either way round.
        let a = flat_layout(&mut r, size);
        let b = refined(&mut r, &a);
        let (a, b) = if case % 2 == 0 { (a, b) } else { (b, a) };
        let (sa, sb) = (a.offset_range().unwrap(), b.offset_range().unwrap());
        let src: Vec<i64> = (0..=(sa.1 - sa.0)).map(|x| x as i64 * 7 + 1).collect();
        let mut dst = vec![-1i64; (sb.1 - sb.0 + 1) as usize];
        let mut want = dst.clone();
        // Where a destination offset repeats, the last index written wins, as in index order.
        for (s, d) in a.offsets().zip(b.offsets()) {
            want[(d - sb.0) as usize] = src[(s - sa.0) as usize];
        }
        let ta = make_tensor(&src, a).unwrap();
        let mut tb = make_tensor_mut(&mut dst, b).unwrap();
        copy(&ta, &mut tb).unwrap();
        if b.offsets().collect::<std::collections::HashSet<_>>().len() == size as usize {
            assert_eq!(dst, want, "{a} -> {b}");
        } else {
            // A repeated destination offset takes one of its sources (the plan's order may differ
            // from index order): each element written is one that maps there.
            for (i, d) in b.offsets().enumerate() {
                let got = dst[(d - sb.0) as usize];
                assert!(
                    b.offsets().zip(a.offsets()).any(|(e, s)| e == d && src[(s - sa.0) as usize] == got),
                    "{a} -> {b}: index {i}"
                );
            }
        }
    }
    // A static layout (its offsets shifted to the view's start) into a runtime-structured one.
    let src: Vec<u32> = (0..512).collect();
    let mut dst = vec![0u32; 512];
    let a = make_tensor(&src, layout!((32,16):(-16,1))).unwrap();
    let b: DynLayout = "(32,16):(1,32)".parse().unwrap();
    copy(&a, &mut make_tensor_mut(&mut dst, b).unwrap()).unwrap();
    for (r, c) in (0..32usize).flat_map(|r| (0..16usize).map(move |c| (r, c))) {
        assert_eq!(dst[r + 32 * c], src[(31 - r) * 16 + c], "({r},{c})");
    }
}

/// Tensors over static algebra results and swizzled layouts tile, partition, slice, divide and
/// copy through the same functions as tensors over typed layouts: every element of every part
/// against the layout's own offset of the coordinate CuTe's definition gives it.
mod narrowed {
    use const_layout::algebra::computed::{composition, swizzle};
    use const_layout::tensor::{
        Keep, TensorError, copy, local_partition, local_tile, make_tensor, make_tensor_mut, slice,
        zipped_divide,
    };
    use const_layout::{AnyLayout, C, LayoutRight, layout, layout_type, make_layout, make_static_layout};

    /// The coordinate thread `k` of a row-major `(p, q)` thread layout has (CuTe's `get_flat_coord`).
    fn thread_coord(k: usize, q: usize) -> (usize, usize) {
        (k / q, k % q)
    }

    #[test]
    fn a_static_algebra_result_tiles_partitions_divides_and_copies() {
        // A (16,12) layout whose offsets are neither row- nor column-major: a composition.
        let l =
            composition(<layout_type!((16,12):(12,1))>::default(), <layout_type!((16,12):(1,16))>::default());
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
            // The layout's own method: the part and the offset of its first element.
            let (mine, offset) = l.local_partition(&threads, k).unwrap();
            let (t0, t1) = thread_coord(k, 3);
            for (a, b) in (0..4usize).flat_map(|a| (0..4usize).map(move |b| (a, b))) {
                assert_eq!(part[(a, b)], data[at(t0 + 4 * a, t1 + 3 * b)], "thread {k} at ({a},{b})");
                assert_eq!(offset + AnyLayout::crd2idx(&mine, (a, b)), at(t0 + 4 * a, t1 + 3 * b) as isize);
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
            // The layout's own method: the same part, the offset inside the swizzle.
            let (mine, zero) = smem.local_tile((C::<4>, C::<16>), (i, j)).unwrap();
            assert_eq!((zero, mine.offset()), (0, tile.layout().offset()));
            for (r, c) in (0..4usize).flat_map(|r| (0..16usize).map(move |c| (r, c))) {
                assert_eq!(tile[(r, c)], data[at(4 * i + r, 16 * j + c)], "tile ({i},{j}) at ({r},{c})");
                assert_eq!(AnyLayout::crd2idx(&mine, (r, c)), at(4 * i + r, 16 * j + c) as isize);
            }
            // A partition of the tile: the offsets add up inside the swizzle.
            for k in 0..8 {
                let part = local_partition(&tile, &threads, k).unwrap();
                let (p, zero) = mine.local_partition(&threads, k).unwrap();
                assert_eq!(zero, 0);
                let (t0, t1) = thread_coord(k, 4);
                for (a, b) in (0..2usize).flat_map(|a| (0..4usize).map(move |b| (a, b))) {
                    assert_eq!(part[(a, b)], data[at(4 * i + t0 + 2 * a, 16 * j + t1 + 4 * b)]);
                    assert_eq!(
                        AnyLayout::crd2idx(&p, (a, b)),
                        at(4 * i + t0 + 2 * a, 16 * j + t1 + 4 * b) as isize
                    );
                }
            }
        }
        let row = slice(&t, (3usize, Keep)).unwrap();
        assert!((0..64usize).all(|c| row[c] == data[at(3, c)]));
        let (mine, zero) = smem.slice_and_offset((3usize, Keep)).unwrap();
        assert_eq!(zero, 0);
        assert!((0..64usize).all(|c| AnyLayout::offset(&mine, c) == at(3, c) as isize));
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
}
