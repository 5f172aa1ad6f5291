//! CuTe's algebra as methods of typed layouts: a static layout's method is the static path's free
//! function (the same type, the same layout), and the same layout with runtime values gives the
//! same function through the runtime path, for every method and several layouts.

use const_layout::algebra::computed;
use const_layout::dyn_layout::DynLayout;
use const_layout::{AnyLayout, C, Layout, LayoutError, layout_type};

/// The same function: equal sizes and equal offsets at every index.
fn same<A: AnyLayout, B: AnyLayout>(a: &A, b: &B) -> bool {
    a.size() == b.size() && (0..a.size()).all(|i| a.offset(i) == b.offset(i))
}

/// The layout with every integer a runtime one (`usize` extents, `isize` strides), of rank 2.
fn runtime<S, D>(l: &Layout<S, D>) -> Layout<(usize, usize), (isize, isize)>
where
    S: const_layout::int_tuple::IntTuple + const_layout::layout::LayoutShape<D>,
    D: const_layout::int_tuple::IntTuple,
{
    let d = DynLayout::try_from(l).unwrap();
    Layout::try_from(&d).unwrap()
}

macro_rules! check_layout {
    ($l:ty, $b:ty, $m:literal, $tc:expr) => {{
        let s = <$l>::default();
        let r = runtime(&s);
        let name = s.to_string();
        // Unary methods: the static path's function, and the runtime path's the same function.
        assert_eq!(s.coalesce().to_string(), computed::coalesce(s).to_string(), "{name}");
        assert!(same(&s.coalesce(), &r.coalesce().unwrap()), "coalesce {name}");
        assert!(same(&s.filter(), &r.filter().unwrap()), "filter {name}");
        assert_eq!(s.complement().to_string(), computed::complement(s).to_string());
        assert!(same(&s.complement(), &r.complement().unwrap()), "complement {name}");
        assert!(same(&s.right_inverse(), &r.right_inverse().unwrap()), "right_inverse {name}");
        assert!(same(&s.left_inverse(), &r.left_inverse().unwrap()), "left_inverse {name}");
        // With a layout, a cotarget, a tiler.
        let b = <$b>::default();
        let rb = runtime(&b);
        let c = s.composition(&b);
        assert_eq!(c.to_string(), computed::composition(s, b).to_string());
        match r.composition(&rb) {
            Ok(rc) => assert!(same(&c, &rc), "composition {name} o {b}"),
            Err(e) => panic!("composition {name} o {b}: {e}"),
        }
        assert!(
            same(&s.complement_to(C::<$m>), &r.complement_to($m as usize).unwrap()),
            "complement_to {name}"
        );
        assert!(same(&s.blocked_product(&b), &r.blocked_product(&rb).unwrap()), "blocked_product {name}");
        assert!(same(&s.raked_product(&b), &r.raked_product(&rb).unwrap()), "raked_product {name}");
        let t = (C::<2>, C::<2>);
        assert!(same(&s.logical_divide(t), &r.logical_divide(t).unwrap()), "logical_divide {name}");
        assert!(same(&s.zipped_divide(t), &r.zipped_divide(t).unwrap()), "zipped_divide {name}");
        assert_eq!(s.tiled_divide(t).to_string(), computed::tiled_divide(s, t).to_string());
        assert_eq!(s.flat_divide(t).to_string(), computed::flat_divide(s, t).to_string());
        assert_eq!(s.logical_product(b).to_string(), computed::logical_product(s, b).to_string());
        assert_eq!(s.zipped_product(t).to_string(), computed::zipped_product(s, t).to_string());
        assert_eq!(s.tiled_product(t).to_string(), computed::tiled_product(s, t).to_string());
        assert_eq!(s.flat_product(t).to_string(), computed::flat_product(s, t).to_string());
        assert!(same(&s.tiled_divide(t), &r.tiled_divide(t).unwrap()), "tiled_divide {name}");
        assert!(same(&s.flat_divide(t), &r.flat_divide(t).unwrap()), "flat_divide {name}");
        assert!(same(&s.logical_product(b), &r.logical_product(b).unwrap()), "logical_product {name}");
        assert!(same(&s.zipped_product(t), &r.zipped_product(t).unwrap()), "zipped_product {name}");
        assert!(same(&s.tiled_product(t), &r.tiled_product(t).unwrap()), "tiled_product {name}");
        assert!(same(&s.flat_product(t), &r.flat_product(t).unwrap()), "flat_product {name}");
        // A static result's methods are the static path's too, so results chain.
        let z = s.zipped_divide(t);
        assert_eq!(z.coalesce().to_string(), computed::coalesce(z).to_string());
        assert_eq!(z.composition(C::<4>).to_string(), computed::composition(z, C::<4>).to_string());
        assert_eq!(z.right_inverse().to_string(), computed::right_inverse(z).to_string());
        assert_eq!(z.logical_divide(C::<2>).to_string(), computed::logical_divide(z, C::<2>).to_string());
        assert_eq!(z.blocked_product(b).to_string(), computed::blocked_product(z, b).to_string());
        assert!(same(&s.coalesce().composition(b), &s.composition(&b)), "chained composition {name}");
        let (tile, offset) = s.local_tile(t, $tc);
        let (rtile, roffset) = r.local_tile(t, $tc).unwrap();
        assert!(same(&tile, &rtile) && offset == roffset, "local_tile {name}");
        // local_partition among 2 x 2 threads, every thread: the static and the runtime layout's
        // methods, and the runtime-structured algebra's function, agree; thread 4 is refused.
        let threads = <layout_type!((2,2):(2,1))>::default();
        let dthreads = DynLayout::try_from(&threads).unwrap();
        let ds = DynLayout::try_from(&s).unwrap();
        for i in 0..4 {
            let (part, offset) = s.local_partition(&threads, i).unwrap();
            let (rpart, roffset) = r.local_partition(&threads, i).unwrap();
            let d = ds.local_partition(&dthreads, const_layout::dyn_layout::DynInt::new_runtime(i as isize)).unwrap();
            assert!(same(&part, &rpart) && offset == roffset, "local_partition {name} thread {i}");
            assert!(same(&part, &d.layout) && offset == d.offset, "local_partition {name} thread {i}: {d:?}");
        }
        assert!(s.local_partition(&threads, 4).is_err() && r.local_partition(&threads, 4).is_err());
        // slice_and_offset: column 1, the static and the runtime layout alike, each element the
        // layout's own offset.
        let (col, off) = s.slice_and_offset((const_layout::tensor::Keep, 1usize)).unwrap();
        let (rcol, roff) = r.slice_and_offset((const_layout::tensor::Keep, 1usize)).unwrap();
        assert!(same(&col, &rcol) && off == roff, "slice_and_offset {name}");
        let rows = const_layout::int::Int::value(s.shape().0) as usize;
        assert_eq!(col.size(), rows);
        assert!((0..rows).all(|i| off + col.offset(i) == s.crd2idx((i, 1usize))), "slice_and_offset {name}");
    }};
}

#[test]
fn static_and_runtime_paths_agree_for_every_method() {
    check_layout!(layout_type!((8,6):(1,8)), layout_type!((4,3):(3,1)), 96, (3usize, 1usize));
    check_layout!(layout_type!((4,2):(2,1)), layout_type!((2,2):(1,2)), 16, (1usize, 0usize));
    check_layout!(layout_type!((6,4):(1,8)), layout_type!((2,3):(1,2)), 64, (2usize, 1usize));
    check_layout!(layout_type!((4,6):(6,1)), layout_type!((4,2):(1,4)), 48, (1usize, 2usize));
    check_layout!(layout_type!((2,8):(8,1)), layout_type!((2,4):(4,1)), 32, (0usize, 3usize));
}

#[test]
fn runtime_paths_report_what_has_no_layout() {
    // `4:3` composed after `(6,4):(1,8)`: the stride 3 neither divides 6 nor is divided by it.
    let a = runtime(&<layout_type!((6,4):(1,8))>::default());
    let b = runtime(&<layout_type!((3,1):(4,1))>::default());
    assert!(matches!(a.composition(&b), Err(LayoutError::Inadmissible { .. })));
}

#[test]
fn swizzled_layouts_divide_and_multiply_the_layout_before_the_swizzle() {
    use const_layout::algebra::computed::swizzle;
    use const_layout::layout::SwizzledLayout;
    use const_layout::{LayoutRight, layout, make_layout};
    let inner = <layout_type!((8,64):(64,1))>::default();
    let s = swizzle::<3, 3, 3, _>(inner); // static, generic path
    let l = layout!(composition(Sw<3,3,3>, (8,64):(64,1))); // static, `layout!`
    let r = SwizzledLayout::<3, 3, 3, _, _>::new(make_layout((8usize, 64usize), LayoutRight).unwrap());
    let t = (C::<4>, C::<16>);
    // `Sw o (L o T)` is `(Sw o L) o T`: every offset of the divided layout is the swizzled one's.
    let z = s.zipped_divide(t);
    assert_eq!(z.to_string(), swizzle::<3, 3, 3, _>(computed::zipped_divide(inner, t)).to_string());
    for i in 0..512usize {
        let ((r0, c0), (r1, c1)) = ((i % 4, i / 4 % 16), (i / 64 % 2, i / 128));
        assert_eq!(z.crd2idx(i), l.crd2idx((4 * r1 + r0, 16 * c1 + c0)), "index {i}");
    }
    assert!(same(&z, &l.zipped_divide(t)) && same(&z, &r.zipped_divide(t).unwrap()));
    for (a, b) in [
        (s.logical_divide(t).to_string(), l.logical_divide(t).to_string()),
        (s.tiled_divide(t).to_string(), l.tiled_divide(t).to_string()),
        (s.flat_divide(t).to_string(), l.flat_divide(t).to_string()),
        (s.coalesce().to_string(), l.coalesce().to_string()),
        (s.logical_product(C::<2>).to_string(), l.logical_product(C::<2>).to_string()),
        (s.flat_product(C::<2>).to_string(), l.flat_product(C::<2>).to_string()),
    ] {
        assert_eq!(a, b);
    }
    assert!(same(&s.logical_divide(t), &r.logical_divide(t).unwrap()));
    assert!(same(&s.tiled_divide(t), &r.tiled_divide(t).unwrap()));
    assert!(same(&s.flat_product(C::<2>), &r.flat_product(C::<2>).unwrap()));
    assert!(same(&s.coalesce(), &r.coalesce().unwrap()));
    // The first tile by composition: its coordinates are the matrix's.
    let c = s.composition(t);
    assert!((0..4usize).all(|i| (0..16usize).all(|j| c.crd2idx((i, j)) == l.crd2idx((i, j)))));
}

#[test]
fn composed_layouts_divide_and_multiply_as_the_evaluator_does() {
    use const_layout::eval::eval;
    use const_layout::swizzle::{ComposedLayout, Swizzle};
    let layouts =
        ["(_8,_64):(_64,_1)", "(_16,_32):(_1,_16)", "((_4,_2),_64):((_64,_256),_1)", "(8,32):(32,1)"];
    let tilers = ["<_4:_1, _16:_1>", "<_2:_1, _8:_1>", "_4:_1"];
    for (k, l) in layouts.iter().enumerate() {
        let sw = Swizzle::new(2 + (k as u32 % 2), 2, 3).unwrap();
        let c = ComposedLayout::new(sw, l.parse().unwrap());
        for t in tilers {
            let tiler = t.parse().unwrap();
            let call = |f: &str| eval(&format!("{f}({c}, {t})")).map(|v| v.to_string()).unwrap();
            assert_eq!(c.logical_divide(&tiler).unwrap().to_string(), call("logical_divide"), "{c} {t}");
            assert_eq!(c.zipped_divide(&tiler).unwrap().to_string(), call("zipped_divide"), "{c} {t}");
            assert_eq!(c.tiled_divide(&tiler).unwrap().to_string(), call("tiled_divide"), "{c} {t}");
            assert_eq!(c.flat_divide(&tiler).unwrap().to_string(), call("flat_divide"), "{c} {t}");
            assert_eq!(c.composition_tiler(&tiler).unwrap().to_string(), call("composition"), "{c} {t}");
        }
        let p = "_2:_1".parse().unwrap();
        let call = |f: &str| eval(&format!("{f}({c}, _2:_1)")).map(|v| v.to_string()).unwrap();
        assert_eq!(c.logical_product(&p).unwrap().to_string(), call("logical_product"));
        assert_eq!(c.zipped_product(&p).unwrap().to_string(), call("zipped_product"));
        assert_eq!(c.tiled_product(&p).unwrap().to_string(), call("tiled_product"));
        assert_eq!(c.flat_product(&p).unwrap().to_string(), call("flat_product"));
        let b: DynLayout = "(_2,_1):(_1,_0)".parse().unwrap();
        let call = |f: &str| eval(&format!("{f}({c}, {b})")).map(|v| v.to_string()).unwrap();
        assert_eq!(c.blocked_product(&b).unwrap().to_string(), call("blocked_product"));
        assert_eq!(c.raked_product(&b).unwrap().to_string(), call("raked_product"));
    }
}
