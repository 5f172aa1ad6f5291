//! `const_layout::picture`: CuTe's `print_latex` against CuTe's own output, and the SVG pictures'
//! structure, a golden file of each kind, and the errors.
//!
//! `tests/data/latex/` comes from CuTe C++ 4.2 (`tools/oracle/gen_latex.sh`); the SVG golden
//! files in `tests/data/svg/` are this crate's own output, reviewed by eye and by
//! `tools/check_svg.sh` (rerun with `UPDATE_GOLDEN=1` after an intended change of the drawing).

use const_layout::algebra::{make_identity_layout, make_layout_tv};
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::eval::{Value, eval};
use const_layout::picture::{
    MAX_CELLS, PictureError, print_latex, print_latex_composed, print_latex_tv, print_svg, print_svg_swizzle,
    print_svg_tv,
};
use const_layout::swizzle::{ComposedLayout, Swizzle};
use std::path::PathBuf;

fn vectors(dir: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(dir)
}

fn lay(s: &str) -> DynLayout {
    s.parse().unwrap()
}

fn tup(s: &str) -> DynIntTuple {
    s.parse().unwrap()
}

/// The LaTeX of an expression's value, as `layout latex` draws it.
fn latex_of(expr: &str) -> String {
    match eval(expr).unwrap_or_else(|e| panic!("{expr}: {e}")) {
        Value::Layout(l) => print_latex(&l).unwrap().to_string(),
        Value::Composed(c) => print_latex_composed(&c).unwrap().to_string(),
        Value::LayoutTv(tile, tv) => print_latex_tv(&tv, &tile).unwrap().to_string(),
        other => panic!("{expr}: not a picture: {other}"),
    }
}

#[test]
fn latex_matches_cute_byte_for_byte() {
    let dir = vectors("latex");
    let cases = std::fs::read_to_string(dir.join("cases.txt")).unwrap();
    let mut n = 0;
    for line in cases.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (name, expr) = line.split_once('\t').unwrap();
        let want = std::fs::read_to_string(dir.join(format!("{name}.tex"))).unwrap();
        let got = latex_of(expr);
        if got != want {
            let at = got.lines().zip(want.lines()).position(|(a, b)| a != b);
            panic!("{name} (`{expr}`) differs from CuTe at line {at:?}:\n--- ours\n{got}\n--- CuTe\n{want}");
        }
        n += 1;
    }
    assert!(n >= 16, "only {n} cases");
}

#[test]
fn latex_of_a_negative_offset_takes_the_colour_modulo_8() {
    // CuTe indexes its colour table with `idx % 8` (negative here: undefined behaviour in C++).
    let tex = print_latex(&lay("(_2,_2):(_-1,_2)")).unwrap().to_string();
    assert!(tex.contains("\\node[fill=black!70] at (1,0) {-1};\n"), "{tex}");
    assert!(tex.contains("\\node[fill=black!40] at (1,1) {1};\n"), "{tex}");
}

#[test]
fn latex_tv_leaves_unreached_cells_blank_and_keeps_the_first_pair() {
    // Threads 0 and 1 both hold cell 0 (stride 0); cell 1 is never reached.
    let tv = lay("(_2,_1):(_0,_0)");
    let tex = print_latex_tv(&tv, &tup("(_2,_1)")).unwrap().to_string();
    assert_eq!(tex.matches("\\shortstack").count(), 1, "{tex}");
    assert!(tex.contains("at (0,0) {\\shortstack{T0 \\\\ V0}};\n"), "{tex}");
    // The comment line is the composition with the tile's identity layout, as CuTe prints it.
    assert!(tex.starts_with("% Layout TV: (_2,_1):(_0,_0)\n"), "{tex}");
}

/// Every `<` is closed by a `>`, the elements nest, and the document is one `svg` element.
fn check_svg_structure(svg: &str) {
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\""));
    assert!(svg.ends_with("</svg>\n"));
    assert!(svg.contains(" viewBox=\"0 0 "));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>'), "a stray `>` in text: {text}");
        let close = rest[open..].find('>').expect("every `<` has its `>`") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "a `<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "unbalanced </{name}>");
        } else if !tag.starts_with('?') && !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert_eq!(svg.matches("<svg").count(), 1);
}

/// The cell texts in document order (after the first `font-size` group).
fn cell_texts(svg: &str) -> Vec<String> {
    let start = svg.find("text-anchor=\"middle\" fill=\"black\">").unwrap();
    let end = start + svg[start..].find("</g>").unwrap();
    svg[start..end]
        .split("<text ")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
        .collect()
}

/// The fill colours of the first column of a 64-column swizzle picture's 8 rows (cells, not the
/// index column at x=0).
fn column0_colours(svg: &str) -> std::collections::BTreeSet<&str> {
    let fills: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect x=\"") && !l.contains("x=\"0\""))
        .map(|l| {
            let f = l.find("fill=\"").unwrap() + 6;
            &l[f..f + l[f..].find('"').unwrap()]
        })
        .collect();
    (0..8).map(|m| fills[m * 64]).collect()
}

#[test]
fn svg_of_a_layout_has_one_labelled_cell_per_element() {
    for (text, rows, cols) in [
        ("(_4,_8):(_8,_1)", 4, 8),
        ("(8,(4,2)):(1,8)", 8, 8),
        ("((_2,_2),(_2,_4)):((_1,_4),(_2,_8))", 4, 8),
        ("_8:_2", 1, 8),
        ("(6):(1)", 1, 6),
        ("():()", 1, 1),
        ("(_3,_2):(_-1,_5)", 3, 2),
    ] {
        let l = lay(text);
        let svg = print_svg(&l).unwrap().to_string();
        check_svg_structure(&svg);
        assert_eq!(svg.matches("<rect").count(), 1 + rows * cols, "{text}");
        // The texts, row by row, are the offsets L(m,n) (nested modes 1-D, colexicographic).
        let texts = cell_texts(&svg);
        let want: Vec<String> = (0..rows)
            .flat_map(|m| (0..cols).map(move |n| (m, n)))
            .map(
                |(m, n)| if l.rank() == 2 { l.offset((m + n * rows) as isize) } else { l.offset(n as isize) },
            )
            .map(|v| v.to_string())
            .collect();
        assert_eq!(texts, want, "{text}");
        // Same offsets as print_layout's table.
        if let Some(table) = l.print_layout() {
            let table = table.to_string();
            for (m, row) in want.chunks(cols).enumerate() {
                let line = table.lines().find(|x| x.starts_with(&format!("{m:>2}  |"))).unwrap();
                let cells: Vec<&str> =
                    line.split('|').skip(1).map(str::trim).filter(|c| !c.is_empty()).collect();
                assert_eq!(cells, row, "{text} row {m}");
            }
        }
        assert!(svg.contains(&format!("<title>Layout: {l}</title>")), "{text}");
        assert_eq!(svg, print_svg(&l).unwrap().to_string(), "deterministic");
    }
}

#[test]
fn svg_colours_cells_by_offset_modulo_8_with_cutes_palette() {
    let svg = print_svg(&lay("(_2,_5):(_5,_1)")).unwrap().to_string();
    let fills: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect x=\"") && l.contains("width=\"24\""))
        .map(|l| {
            let f = l.find("fill=\"").unwrap() + 6;
            &l[f..f + l[f..].find('"').unwrap()]
        })
        .collect();
    // Row 0 holds offsets 0..5, row 1 offsets 5..10: colours 0..5 then 5,6,7,0,1.
    let palette = [
        "rgb(175,175,255)",
        "rgb(175,255,175)",
        "rgb(255,255,175)",
        "rgb(255,175,175)",
        "rgb(210,210,255)",
        "rgb(210,255,210)",
        "rgb(255,255,210)",
        "rgb(255,210,210)",
    ];
    let want: Vec<&str> = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1].iter().map(|&k| palette[k]).collect();
    assert_eq!(fills, want);
}

#[test]
fn svg_tv_labels_every_cell_with_its_thread_and_value() {
    let (tile, tv) = make_layout_tv(&lay("(_4,_2):(_2,_1)"), &lay("(_2,_2):(_1,_2)")).unwrap();
    let svg = print_svg_tv(&tv, &tile).unwrap().to_string();
    check_svg_structure(&svg);
    assert_eq!(svg.matches("<rect").count(), 1 + 32);
    for t in 0..8 {
        assert_eq!(svg.matches(&format!(">T{t}</text>")).count(), 4, "thread {t}");
    }
    for v in 0..4 {
        assert_eq!(svg.matches(&format!(">V{v}</text>")).count(), 8, "value {v}");
    }
    // Every thread has CuTe's colour for it.
    assert_eq!(svg.matches("fill=\"rgb(175,175,255)\"").count(), 4);
    assert!(svg.contains("Layout TV: ((_2,_4),(_2,_2)):((_16,_2),(_1,_8))  Tile: (_8,_4)"));
    // The same cells as the LaTeX picture: T over V at (m,n).
    let tex = print_latex_tv(&tv, &tile).unwrap().to_string();
    assert_eq!(tex.matches("\\shortstack").count(), 32);
}

#[test]
fn svg_swizzle_colours_by_bank_group() {
    let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), lay("(_8,_64):(_64,_1)"));
    let svg = print_svg_swizzle(&c).unwrap().to_string();
    check_svg_structure(&svg);
    assert_eq!(svg.matches("<rect").count(), 1 + 512);
    assert!(svg.contains(
        "<title>Sw&lt;3,3,3&gt; o _0 o (_8,_64):(_64,_1)  colour: bank group (offset / 8) mod 8</title>"
    ));
    // Column 0: rows 0..8 start at offsets 64*m ^ (m << 3): eight bank groups, eight colours.
    let texts = cell_texts(&svg);
    let column0: Vec<isize> = (0..8).map(|m| texts[m * 64].parse().unwrap()).collect();
    assert_eq!(column0, [0, 72, 144, 216, 288, 360, 432, 504]);
    assert_eq!(column0_colours(&svg).len(), 8, "a conflict-free column shows eight colours");
    // The swizzle's groups are (offset / 2^M) mod 2^B.
    let again = print_svg_swizzle(&c).unwrap().bank_groups(8, 8).unwrap().to_string();
    assert_eq!(again, svg);
    // Without the swizzle (Sw<0,3,3> is the identity) the same column is one bank group: one colour.
    let plain = ComposedLayout::new(Swizzle::new(0, 3, 3).unwrap(), lay("(_8,_64):(_64,_1)"));
    let plain = print_svg_swizzle(&plain).unwrap().bank_groups(8, 8).unwrap().to_string();
    assert_eq!(column0_colours(&plain).len(), 1, "an unswizzled column is one bank group");
    let row = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), lay("_4:_1"));
    assert_eq!(cell_texts(&print_svg_swizzle(&row).unwrap().to_string()), ["0", "1", "3", "2"]);
}

#[test]
fn svg_golden_files() {
    let dir = vectors("svg");
    let swizzle = ComposedLayout::new(Swizzle::new(2, 0, 2).unwrap(), lay("(_4,_4):(_4,_1)"));
    let (tile, tv) = make_layout_tv(&lay("(_2,_2):(_2,_1)"), &lay("(_1,_2):(_0,_1)")).unwrap();
    let cases = [
        ("layout_2x3.svg", print_svg(&lay("(_2,_3):(_3,_1)")).unwrap().to_string()),
        ("tv_2x4.svg", print_svg_tv(&tv, &tile).unwrap().to_string()),
        ("swizzle_4x4.svg", print_svg_swizzle(&swizzle).unwrap().to_string()),
    ];
    for (name, got) in cases {
        let path = dir.join(name);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &got).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(got, want, "{name} (rerun with UPDATE_GOLDEN=1 if the change is intended)");
    }
}

#[test]
fn errors_name_the_problem_and_the_numbers() {
    let rank3 = lay("(2,3,4):(1,2,6)");
    assert_eq!(
        print_svg(&rank3).unwrap_err(),
        PictureError::Rank { what: "the layout", rank: 3, allowed: "at most 2" }
    );
    assert_eq!(
        print_latex(&rank3).unwrap_err().to_string(),
        "the layout has rank 3; a picture needs rank at most 2"
    );

    let id = make_identity_layout(&tup("(_4,_8)")).unwrap();
    assert_eq!(print_latex(&id).unwrap_err(), PictureError::BasisStrides { what: "the layout" });
    assert!(print_svg(&id).unwrap_err().to_string().contains("basis strides"));

    let big = lay("(_128,_129):(_1,_128)");
    assert_eq!(
        print_svg(&big).unwrap_err(),
        PictureError::TooLarge { what: "the layout", cells: 128 * 129, max: MAX_CELLS }
    );
    assert_eq!(
        print_latex(&big).unwrap_err().to_string(),
        "the layout has 16512 cells; a picture draws at most 16384"
    );
    assert!(print_svg(&lay("(_128,_128):(_1,_128)")).is_ok());

    // TV layouts: rank 2 only, a rank-2 tile, pairs inside the tile.
    let tv = lay("(_4,_2):(_1,_4)");
    assert_eq!(
        print_latex_tv(&lay("_8:_1"), &tup("(_4,_2)")).unwrap_err(),
        PictureError::Rank { what: "the TV layout", rank: 1, allowed: "2" }
    );
    assert_eq!(
        print_svg_tv(&tv, &tup("(_2,_2,_2)")).unwrap_err(),
        PictureError::Rank { what: "the tile", rank: 3, allowed: "2" }
    );
    let e = print_svg_tv(&tv, &tup("(_2,_2)")).unwrap_err();
    assert_eq!(e, PictureError::OutsideTile { thread: 0, value: 1, index: 4, cells: 4 });
    assert_eq!(e.to_string(), "thread 0, value 1 maps to index 4, outside the tile's 4 cells");
    assert_eq!(
        print_latex_tv(&lay("(_4,_2):(_-1,_4)"), &tup("(_4,_2)")).unwrap_err(),
        PictureError::OutsideTile { thread: 1, value: 0, index: -1, cells: 8 }
    );
    assert_eq!(
        print_svg_tv(&lay("(_256,_128):(_1,_256)"), &tup("(_256,_128)")).unwrap_err(),
        PictureError::TooLarge { what: "the tile", cells: 32768, max: MAX_CELLS }
    );
    assert!(print_svg_tv(&id, &tup("(_4,_8)")).is_err());

    let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), lay("(_2,_2,_2):(_1,_2,_4)"));
    assert_eq!(
        print_svg_swizzle(&c).unwrap_err().to_string(),
        "the layout has rank 3; a picture needs rank at most 2"
    );
    let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), lay("(_2,_2):(_1,_2)"));
    assert_eq!(
        print_svg_swizzle(&c).unwrap().bank_groups(4, 0).unwrap_err().to_string(),
        "bank groups need a positive unit and count, got unit 4 and count 0"
    );
}

#[test]
fn svg_escapes_text_and_handles_negative_offsets() {
    let svg = print_svg(&lay("(_2,_2):(_-1,_-2)")).unwrap().to_string();
    check_svg_structure(&svg);
    assert_eq!(cell_texts(&svg), ["0", "-2", "-1", "-3"]);
    let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), lay("(_2,_2):(_1,_2)"));
    let svg = print_svg_swizzle(&c).unwrap().to_string();
    check_svg_structure(&svg);
    assert!(!svg.contains("Sw<"), "unescaped `<`");
}

/// Every picture takes any `AnyLayout`: a typed layout, a static algebra result or a swizzled
/// layout draws exactly as its runtime-structured twin does.
#[test]
fn pictures_of_every_layout_kind_match_their_runtime_twins() {
    use const_layout::algebra::computed::{self, swizzle, zipped_divide};
    use const_layout::picture::print_layout;
    use const_layout::{C, layout, layout_type};

    let typed = layout!((4,(2,3)):(6,(3,1)));
    let twin = lay("(_4,(_2,_3)):(_6,(_3,_1))");
    assert_eq!(print_latex(&typed).unwrap().to_string(), print_latex(&twin).unwrap().to_string());
    assert_eq!(print_svg(&typed).unwrap().to_string(), print_svg(&twin).unwrap().to_string());
    assert_eq!(print_layout(&typed).unwrap().to_string(), print_layout(&twin).unwrap().to_string());

    let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    let twin = tiles.to_dyn();
    assert_eq!(print_latex(&tiles).unwrap().to_string(), print_latex(&twin).unwrap().to_string());
    assert_eq!(print_svg(&tiles).unwrap().to_string(), print_svg(&twin).unwrap().to_string());

    // Swizzled: typed, generic-path and runtime-structured spellings of Sw<3,3,3> o (8,64):(64,1).
    let composed = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), lay("(_8,_64):(_64,_1)"));
    let typed = layout!(composition(Sw<3,3,3>, (8,64):(64,1)));
    let generic = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
    let want_tex = print_latex_composed(&composed).unwrap().to_string();
    let want_svg = print_svg_swizzle(&composed).unwrap().to_string();
    let want_table = print_layout(&composed).unwrap().to_string();
    for (what, tex, svg, table) in [
        (
            "typed",
            print_latex(&typed).unwrap().to_string(),
            print_svg_swizzle(&typed).unwrap().to_string(),
            print_layout(&typed).unwrap().to_string(),
        ),
        (
            "generic",
            print_latex(&generic).unwrap().to_string(),
            print_svg_swizzle(&generic).unwrap().to_string(),
            print_layout(&generic).unwrap().to_string(),
        ),
    ] {
        assert_eq!(tex, want_tex, "{what}");
        assert_eq!(svg, want_svg, "{what}");
        assert_eq!(table, want_table, "{what}");
    }
    // The table's cells are the composed offsets.
    let row1: Vec<isize> =
        want_table.lines().nth(5).unwrap().split('|').skip(1).filter_map(|c| c.trim().parse().ok()).collect();
    assert_eq!(row1, (0..64).map(|c| composed.offset(1 + 8 * c)).collect::<Vec<_>>()); // L(1, c)

    // Thread-value pictures of the generic path's `make_layout_tv` result, and their refusal of
    // a composed layout.
    let (tile, tv) = computed::make_layout_tv(
        <layout_type!((4,2):(2,1))>::default(),
        <layout_type!((2,2):(1,2))>::default(),
    );
    let (dyn_tile, dyn_tv) = make_layout_tv(&lay("(_4,_2):(_2,_1)"), &lay("(_2,_2):(_1,_2)")).unwrap();
    assert_eq!(tile.to_dyn(), make_identity_layout(&dyn_tile).unwrap());
    assert_eq!(
        print_latex_tv(&tv, &dyn_tile).unwrap().to_string(),
        print_latex_tv(&dyn_tv, &dyn_tile).unwrap().to_string()
    );
    assert_eq!(
        print_svg_tv(&tv, &dyn_tile).unwrap().to_string(),
        print_svg_tv(&dyn_tv, &dyn_tile).unwrap().to_string()
    );
    let e = print_latex_tv(&composed, &tup("(_8,_64)")).unwrap_err();
    assert_eq!(e, PictureError::NotPlain { what: "the TV layout" });
    assert_eq!(
        e.to_string(),
        "the TV layout is a swizzled or composed layout; this picture needs a plain layout"
    );
}

/// `print_layout` over a plain runtime-structured layout is `DynLayout::print_layout`, byte for
/// byte; other ranks and basis strides are errors.
#[test]
fn print_layout_of_any_kind_is_cutes_table() {
    use const_layout::picture::print_layout;
    for s in [
        "(2,3):(3,1)",
        "(_4,(_2,_3)):(_6,(_3,_1))",
        "((2,2),(3,4)):((1,24),(2,6))",
        "(3,2):(-1,10)",
        "(1,1):(0,0)",
    ] {
        let l = lay(s);
        assert_eq!(print_layout(&l).unwrap().to_string(), l.print_layout().unwrap().to_string(), "{s}");
    }
    assert_eq!(
        print_layout(&lay("(2,3,4):(1,2,6)")).unwrap_err(),
        PictureError::Rank { what: "the layout", rank: 3, allowed: "2" }
    );
    assert_eq!(
        print_layout(&lay("8:1")).unwrap_err(),
        PictureError::Rank { what: "the layout", rank: 1, allowed: "2" }
    );
    assert_eq!(
        print_layout(&lay("(_4,_8):(_1@0,_1@1)")).unwrap_err(),
        PictureError::BasisStrides { what: "the layout" }
    );
}
