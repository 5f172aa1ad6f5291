//! `layout rocroller`: the coordinate graph's text, tables, coordinates reached, and pictures, as
//! a user runs the tool. Tables are checked against rocRoller's formulas written out here (a
//! Flatten is row-major, a Tile its inverse, a Split's reverse the strides' sum, a
//! PiecewiseAffineJoin its two affine pieces), and against the crate's `Transformer` called
//! directly, on fixed graphs and random ones built through the crate's API.

use crate::cli::layout;
use crate::rng::Rng;
use const_layout::picture::print_svg_values;
use const_layout::rocroller::{CoordinateGraph, Dimension, Edge, Tag, Transformer};

/// The output of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let o = layout(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{args:?} failed: {err}");
    assert!(err.is_empty(), "{args:?} wrote to stderr: {err}");
    String::from_utf8(o.stdout).expect("utf-8 output")
}

/// A run that must fail with status 1 and one line on stderr that names the problem.
fn fails(args: &[&str], message: &str) {
    let o = layout(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8(o.stderr).expect("utf-8 output");
    assert!(err.starts_with("layout: ") && err.ends_with('\n'), "{args:?}: {err:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
    assert!(err.contains(message), "{args:?}: {err:?} does not say {message:?}");
    assert!(o.stdout.is_empty(), "{args:?}");
}

/// One tabulated output: its tag, and each coordinate (row, column: or the listed tuple) with its
/// value (`None` for `-`).
struct Table {
    tag: Tag,
    cells: Vec<(Vec<usize>, Option<isize>)>,
}

fn value(text: &str) -> Option<isize> {
    match text.trim() {
        "-" => None,
        v => Some(v.parse().unwrap_or_else(|_| panic!("not a value: {v:?}"))),
    }
}

/// The tables of the text output, in order.
fn tables(out: &str) -> Vec<Table> {
    let mut tables: Vec<Table> = Vec::new();
    for line in out.lines() {
        let header = line.strip_prefix("sink ").or_else(|| line.strip_prefix("source "));
        if let Some(tag) = header.and_then(|h| h.split_once(':')).and_then(|(t, _)| t.parse().ok()) {
            tables.push(Table { tag, cells: Vec::new() });
            continue;
        }
        let Some(t) = tables.last_mut() else { continue };
        if line.contains('|') {
            let mut parts = line.split('|');
            let row: usize = parts.next().unwrap().trim().parse().unwrap();
            let cells: Vec<&str> = parts.filter(|c| !c.trim().is_empty()).collect();
            for (col, c) in cells.iter().enumerate() {
                t.cells.push((vec![row, col], value(c)));
            }
        } else if let Some((coord, v)) = line.trim().strip_prefix('(').and_then(|l| l.split_once(") -> ")) {
            let coord = coord.split(',').map(|c| c.parse().unwrap()).collect();
            t.cells.push((coord, value(v)));
        }
    }
    tables
}

/// `graph`'s output `out` at the coordinates `at` of `inputs`, by the crate's transformer.
fn transform(g: &CoordinateGraph, inputs: &[Tag], at: &[usize], out: Tag, reverse: bool) -> Option<isize> {
    let mut t = Transformer::new(g);
    for (&tag, &c) in inputs.iter().zip(at) {
        t.set_coordinate(tag, c as isize);
    }
    let r = if reverse { t.reverse(&[out]) } else { t.forward(&[out]) };
    r.ok().map(|[v]| v)
}

const BASIC: &str =
    "graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}";

#[test]
fn flatten_is_row_major_over_the_sources() {
    let out = ok(&["rocroller", BASIC]);
    let g: CoordinateGraph = BASIC.parse().unwrap();
    assert!(out.starts_with(&format!("{g:#}\n")), "{out}");
    assert!(out.contains("sources (no edge in): 0, 1; sinks (no edge out): 2\n"), "{out}");
    let t = tables(&out);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].tag, 2);
    assert_eq!(t[0].cells.len(), 4096);
    for (c, v) in &t[0].cells {
        // rocRoller's Flatten: o = i * size(y) + j (its "Basic" test: (5, 3) -> 323).
        assert_eq!(*v, Some((c[0] * 64 + c[1]) as isize), "{c:?}");
    }
    assert!(out.contains(" 5  | "), "rows labelled");
    // The graph given as several words reads the same.
    let words: Vec<&str> = BASIC.split(' ').collect();
    assert_eq!(ok(&[&["rocroller"], words.as_slice()].concat()), out);
}

#[test]
fn a_small_flatten_is_cutes_print_layout() {
    let g =
        "graph{0: SubDimension[0](2, 1); 1: SubDimension[1](3, 1); 2: Linear(6, 1); 3: Flatten(0, 1 -> 2)}";
    let out = ok(&["rocroller", g]);
    let table = out.split_once("(rows 0: SubDimension[0], columns 1: SubDimension[1])\n").unwrap().1;
    // print_layout of (2,3):(3,1), whose offsets are the same.
    let cute = ok(&["table", "(2,3):(3,1)"]);
    assert_eq!(table, cute.split_once('\n').unwrap().1, "{out}");
}

#[test]
fn tile_is_the_inverse_of_flatten() {
    // A Tile splits row-major; the first destination takes the rest (its size is not needed).
    let g = "graph{0: Linear(24, 1); 1: Adhoc(?, ?); 2: Adhoc(6, 1); 3: Tile(0 -> 1, 2)}";
    let t = tables(&ok(&["rocroller", g]));
    assert_eq!(t.iter().map(|t| t.tag).collect::<Vec<_>>(), [1, 2]);
    for (c, v) in &t[0].cells {
        assert_eq!(c[1], 0, "one source: one column");
        assert_eq!(*v, Some(c[0] as isize / 6));
    }
    for (c, v) in &t[1].cells {
        assert_eq!(*v, Some(c[0] as isize % 6));
    }
    assert_eq!(t[0].cells.len(), 24);
}

#[test]
fn split_tabulates_in_reverse() {
    // A user's tensor split into rows and columns: forward is one to many, reverse the strides' sum.
    let g = "graph{0: User(?, ?); 1: SubDimension[0](4, 8); 2: SubDimension[1](8, 1); 3: Split(0 -> 1, 2)}";
    let out = ok(&["rocroller", g]);
    assert!(
        out.contains("no table: source 0: User(?, ?) has no integer size (--reverse tabulates the sources from the sinks)\n"),
        "{out}"
    );
    let t = tables(&ok(&["rocroller", "--reverse", g]));
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].tag, 0);
    assert_eq!(t[0].cells.len(), 32);
    for (c, v) in &t[0].cells {
        assert_eq!(*v, Some((c[0] * 8 + c[1]) as isize));
    }
    // Forward from a sized source, Split has no function: every cell is `-`, with the reason.
    let sized = g.replace("User(?, ?)", "Linear(32, 1)");
    let out = ok(&["rocroller", &sized]);
    let t = tables(&out);
    assert!(t.iter().all(|t| t.cells.iter().all(|(_, v)| v.is_none())), "{out}");
    assert!(
        out.contains("-: not computed (32 of 32): edge 3 (Split): Split has no forward function"),
        "{out}"
    );
}

#[test]
fn piecewise_affine_join_takes_the_piece_its_condition_selects() {
    let g = "graph{0: Linear(8, 1); 1: Linear(10, 1); 2: Linear(?, ?); 3: PiecewiseAffineJoin<$0 < 4 ? (10, 1) + 0 : (20, 1) + -40>(0, 1 -> 2)}";
    let t = tables(&ok(&["rocroller", g]));
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].cells.len(), 80);
    for (c, v) in &t[0].cells {
        let (i, j) = (c[0] as isize, c[1] as isize);
        assert_eq!(*v, Some(if i < 4 { 10 * i + j } else { 20 * i + j - 40 }), "{c:?}");
    }
}

#[test]
fn three_sources_are_listed_first_fastest() {
    let g =
        "graph{0: Adhoc(2, ?); 1: Adhoc(3, ?); 2: Adhoc(4, ?); 3: Linear(24, 1); 4: Flatten(0, 1, 2 -> 3)}";
    let out = ok(&["rocroller", g]);
    let t = tables(&out);
    assert_eq!(t[0].cells.len(), 24);
    for (k, (c, v)) in t[0].cells.iter().enumerate() {
        assert_eq!(c, &vec![k % 2, k / 2 % 3, k / 6], "colexicographic order");
        assert_eq!(*v, Some(((c[0] * 3 + c[1]) * 4 + c[2]) as isize));
    }
    assert!(out.contains("  (1,2,3) -> 23\n"), "{out}");
}

#[test]
fn tables_that_cannot_be_made_say_why() {
    let out = ok(&[
        "rocroller",
        "graph{0: Linear(128, 1); 1: Linear(64, 1); 2: Linear(?, ?); 3: Flatten(0, 1 -> 2)}",
    ]);
    assert!(out.contains("no table: the sources' coordinates are more than 4096 (sizes 128 x 64)"), "{out}");
    let out = ok(&["rocroller", "graph{0: Linear(0, 1); 1: Linear(4, 1); 2: PassThrough(0 -> 1)}"]);
    assert!(out.contains("no table: source 0: Linear(0, 1) has size 0"), "{out}");
    let out = ok(&["rocroller", "graph{}"]);
    assert_eq!(
        out,
        "graph{}\nsources (no edge in): none; sinks (no edge out): none\nno table: the graph has no source dimension\n"
    );
    // Many sinks: as many tabulated as 65536 values allow (16 tables), the rest named.
    let mut g = String::from("graph{0: Linear(4096, 1)");
    for k in 1..=20 {
        g.push_str(&format!("; {k}: Linear(4096, 1)"));
    }
    for k in 1..=20 {
        g.push_str(&format!("; {}: PassThrough(0 -> {k})", 20 + k));
    }
    g.push('}');
    let out = ok(&["rocroller", &g]);
    assert_eq!(tables(&out).len(), 16);
    assert!(
        out.contains(
            "sinks not tabulated (the tables are bounded; ask for a coordinate with --at): 17, 18, 19, 20\n"
        ),
        "{out}"
    );
}

#[test]
fn long_paths_tabulate_fewer_sinks() {
    // A chain of 110 PassThrough edges, then 16 sinks: each value searches the whole chain, so
    // the work budget (not the values') cuts the tables short.
    let mut els = vec!["0: Linear(512, 1)".to_string()];
    els.extend((1..=110).map(|k| format!("{k}: Linear(512, 1)")));
    els.extend((0..110).map(|k| format!("{}: PassThrough({k} -> {})", 111 + k, k + 1)));
    els.extend((0..16).map(|k| format!("{}: Linear(512, 1)", 221 + k)));
    els.extend((0..16).map(|k| format!("{}: PassThrough(110 -> {})", 237 + k, 221 + k)));
    let g = format!("graph{{{}}}", els.join("; "));
    let out = ok(&["rocroller", &g]);
    let t = tables(&out);
    assert!((1..16).contains(&t.len()), "{} tables", t.len());
    for table in &t {
        assert!(table.cells.iter().all(|(c, v)| *v == Some(c[0] as isize)));
    }
    let rest: Vec<String> = (221 + t.len()..237).map(|k| k.to_string()).collect();
    assert!(out.ends_with(&format!("ask for a coordinate with --at): {}\n", rest.join(", "))), "{out}");
}

/// rocRoller's Basic1D01 with sizes: u -Split-> i(1024, stride 2) -Tile-> (wg, wf(64)).
const BASIC_1D: &str = "graph{0: User(?, ?); 1: Linear(1024, 2); 2: Workgroup[0](?, ?); 3: Workitem[0](64, ?); 4: Split(0 -> 1); 5: Tile(1 -> 2, 3); 6: Linear(?, ?); 7: Forget(3 -> 6)}";

#[test]
fn at_prints_what_the_transformer_reaches() {
    let g: CoordinateGraph = BASIC_1D.parse().unwrap();
    let out = ok(&["rocroller", BASIC_1D, "--at", "2=2,3=33"]);
    let mut t = Transformer::new(&g);
    t.set_coordinate(2, 2);
    t.set_coordinate(3, 33);
    // In reverse (a store): i = wg * 64 + wf, u = i * 2.
    let [i, u] = t.reverse(&[1, 0]).unwrap();
    assert_eq!((i, u), (161, 322));
    assert_eq!(
        out.lines().take(4).collect::<Vec<_>>(),
        [
            "2: Workgroup[0] = 2 (given)".to_string(),
            "3: Workitem[0] = 33 (given)".to_string(),
            format!("0: User = {u} (in reverse)"),
            format!("1: Linear = {i} (in reverse)"),
        ],
        "{out}"
    );
    assert!(
        out.lines().nth(4).unwrap().starts_with("6: Linear not reached (forward: edge 7 (Forget)"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 5);
    // Forward (a load) from the user's index: the workgroup and workitem it falls on.
    let out = ok(&["rocroller", BASIC_1D, "--at=0=161"]);
    let mut t = Transformer::new(&g);
    t.set_coordinate(0, 161);
    let [i, wg, wf] = t.forward(&[1, 2, 3]).unwrap();
    for want in [
        format!("1: Linear = {i} (forward)"),
        format!("2: Workgroup[0] = {wg} (forward)"),
        format!("3: Workitem[0] = {wf} (forward)"),
    ] {
        assert!(out.lines().any(|l| l == want), "{want} in {out}");
    }
}

#[test]
fn at_both_ways_says_so() {
    let g = "graph{0: Linear(8, 1); 1: Linear(8, 1); 2: Linear(8, 1); 3: PassThrough(0 -> 1); 4: PassThrough(2 -> 1)}";
    let out = ok(&["rocroller", g, "--at", "1=5"]);
    assert!(out.contains("0: Linear = 5 (in reverse)\n2: Linear = 5 (in reverse)\n"), "{out}");
    let out = ok(&["rocroller", g, "--at", "0=3,2=4"]);
    // Forward, the first edge into 1 (in tag order) gives its value.
    let parsed: CoordinateGraph = g.parse().unwrap();
    let mut t = Transformer::new(&parsed);
    t.set_coordinate(0, 3);
    t.set_coordinate(2, 4);
    let [v] = t.forward(&[1]).unwrap();
    assert!(out.contains(&format!("1: Linear = {v} (forward)")), "{out}");
}

/// The elements of an SVG text in order (`/name` for a closing tag), checking that each is in
/// the page's subset with the subset's attributes, and that tags balance.
fn svg_elements(svg: &str) -> Vec<String> {
    const ELEMENTS: [&str; 6] = ["svg", "title", "rect", "g", "text", "line"];
    const ATTRIBUTES: [&str; 18] = [
        "x",
        "y",
        "width",
        "height",
        "x1",
        "y1",
        "x2",
        "y2",
        "fill",
        "stroke",
        "stroke-width",
        "font-family",
        "font-size",
        "text-anchor",
        "viewBox",
        "xmlns",
        "version",
        "encoding",
    ];
    let body = svg.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").expect("XML declaration");
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>') && !text.contains('"'), "unescaped text {text:?}");
        for (k, _) in text.match_indices('&') {
            let entity = ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;"];
            assert!(entity.iter().any(|e| text[k..].starts_with(e)), "bare & in {text:?}");
        }
        let close = rest[open..].find('>').expect("tag closed") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "balanced tags");
            out.push(format!("/{name}"));
            continue;
        }
        let selfclosing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        assert!(ELEMENTS.contains(&name), "element {name} outside the subset");
        for a in attrs.split('"').step_by(2).map(|a| a.trim().trim_end_matches('=')).filter(|a| !a.is_empty())
        {
            assert!(ATTRIBUTES.contains(&a), "attribute {a} outside the subset");
        }
        for colour in
            attrs.split('"').skip(1).step_by(2).filter(|_| attrs.contains("fill") || attrs.contains("stroke"))
        {
            if colour.starts_with("rgb") {
                let inner = colour.strip_prefix("rgb(").and_then(|c| c.strip_suffix(')')).unwrap();
                assert!(inner.split(',').all(|v| v.parse::<u8>().is_ok()), "{colour}");
            }
        }
        if !selfclosing {
            stack.push(name.to_string());
        }
        out.push(name.to_string());
    }
    assert!(stack.is_empty() && rest.trim().is_empty(), "unclosed {stack:?}");
    out
}

#[test]
fn svg_draws_a_box_per_element_in_the_subset() {
    let g = "graph{0: User(?, ?); 1: SubDimension[0](4, 8); 2: SubDimension[1](8, 1); 3: Split(0 -> 1, 2); 4: Linear(32, 1); 5: Flatten(1, 2 -> 4); 6: VGPR(?, ?); 7: DataFlow(0 -> 6); 8: PiecewiseAffineJoin<$0 < 4 && $1 >= 2 ? (10, 1) + 0 : (20, 1) + -40>(1, 2 -> 4)}";
    let svg = ok(&["rocroller", "--svg", g]);
    let elements = svg_elements(&svg);
    // The background, and one box per element.
    assert_eq!(elements.iter().filter(|e| *e == "rect").count(), 1 + 9);
    assert!(svg.contains("<title>rocRoller coordinate graph: 5 dimensions, 4 edges</title>"), "{svg}");
    // Labels: tag and text, escaped.
    assert!(svg.contains(">1: SubDimension[0]</text>") && svg.contains(">size 4, stride 8</text>"), "{svg}");
    assert!(svg.contains(">5: Flatten(1, 2 -&gt; 4)</text>"), "{svg}");
    assert!(
        svg.contains(">&lt;$0 &lt; 4 &amp;&amp; $1 &gt;= 2 ? (10, 1) + 0 : (20, 1) + -40&gt;</text>"),
        "{svg}"
    );
    // A line (and two for its arrowhead) per end of every edge: 1+2, 2+1, 1+1, 2+1.
    assert_eq!(elements.iter().filter(|e| *e == "line").count(), 3 * 11);
    // Deterministic.
    assert_eq!(ok(&["rocroller", g, "--svg"]), svg);
    // Layers: the user's tensor above the split, the split above its dimensions.
    let y_of = |label: &str| -> i64 {
        let at = svg.find(&format!(">{label}")).unwrap();
        let start = svg[..at].rfind(" y=\"").unwrap() + 4;
        svg[start..].split('"').next().unwrap().parse().unwrap()
    };
    assert!(y_of("0: User") < y_of("3: Split") && y_of("3: Split") < y_of("1: SubDimension[0]"));
    assert_eq!(y_of("1: SubDimension[0]"), y_of("2: SubDimension[1]"));
    assert!(y_of("1: SubDimension[0]") < y_of("4: Linear"));
}

#[test]
fn svg_of_a_cycle_is_bounded() {
    // The notation allows cycles; the layers stay finite and every element is drawn.
    let g = "graph{0: Linear(4, 1); 1: Linear(4, 1); 2: PassThrough(0 -> 1); 3: PassThrough(1 -> 0)}";
    let svg = ok(&["rocroller", "--svg", g]);
    assert_eq!(svg_elements(&svg).iter().filter(|e| *e == "rect").count(), 5);
    // The largest graph the notation reads: 256 elements.
    let mut big = String::from("graph{0: Linear(4, 1)");
    for k in 1..128 {
        big.push_str(&format!("; {k}: Linear(4, 1)"));
    }
    for k in 0..128 {
        big.push_str(&format!("; {}: PassThrough({} -> {})", 128 + k, k, (k + 1) % 128));
    }
    big.push('}');
    let svg = ok(&["rocroller", "--svg", &big]);
    assert_eq!(svg_elements(&svg).iter().filter(|e| *e == "rect").count(), 257);
    let out = ok(&["rocroller", &big]);
    assert!(out.contains("no table: the graph has no source dimension"), "{out}");
}

#[test]
fn svg_wraps_a_wide_layer() {
    // 30 dimensions without edges: one layer, wrapped 12 to a row.
    let g =
        format!("graph{{{}}}", (0..30).map(|k| format!("{k}: Linear(4, 1)")).collect::<Vec<_>>().join("; "));
    let svg = ok(&["rocroller", "--svg", &g]);
    svg_elements(&svg);
    let attr = |tag: &str, name: &str| -> i64 {
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[start..].split('"').next().unwrap().parse().unwrap()
    };
    let root = svg.lines().nth(1).unwrap();
    assert!(attr(root, "width") < 2000, "{root}");
    let mut ys: Vec<i64> =
        svg.lines().filter(|l| l.starts_with("<rect")).skip(1).map(|l| attr(l, "y")).collect();
    assert_eq!(ys.len(), 30);
    ys.dedup();
    assert_eq!(ys.len(), 3, "three rows");
}

/// The caption `--table-svg` gave its picture (its title).
fn caption(svg: &str) -> String {
    let t = svg.split_once("<title>").unwrap().1.split_once("</title>").unwrap().0;
    t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

#[test]
fn table_svg_draws_the_first_sinks_values() {
    // Two sources: rows the first; values column-major.
    let svg = ok(&["rocroller", "--table-svg", BASIC]);
    let values: Vec<Option<isize>> = (0..4096).map(|k| Some((k % 64 * 64 + k / 64) as isize)).collect();
    assert_eq!(svg, print_svg_values(&values, 64, &caption(&svg)).unwrap().to_string());
    assert!(caption(&svg).starts_with("2: Linear(4096, 1)"), "{}", caption(&svg));
    // One source: one row.
    let g = "graph{0: Linear(12, 1); 1: Adhoc(?, ?); 2: Adhoc(4, 1); 3: Tile(0 -> 1, 2)}";
    let svg = ok(&["rocroller", "--table-svg", g]);
    let values: Vec<Option<isize>> = (0..12).map(|k| Some(k / 4)).collect();
    assert_eq!(svg, print_svg_values(&values, 1, &caption(&svg)).unwrap().to_string());
    // Three sources: the first down, the rest across (first fastest); `-` blank.
    let g =
        "graph{0: Adhoc(2, ?); 1: Adhoc(3, ?); 2: Adhoc(2, ?); 3: Linear(?, ?); 4: Flatten(0, 1, 2 -> 3)}";
    let svg = ok(&["rocroller", "--table-svg", g]);
    let values: Vec<Option<isize>> =
        (0..12).map(|k| Some(((k % 2 * 3 + k / 2 % 3) * 2 + k / 6) as isize)).collect();
    assert_eq!(svg, print_svg_values(&values, 2, &caption(&svg)).unwrap().to_string());
    // In reverse: the user's offset over the split's rows and columns.
    let g = "graph{0: User(?, ?); 1: SubDimension[0](4, 8); 2: SubDimension[1](8, 1); 3: Split(0 -> 1, 2)}";
    let svg = ok(&["rocroller", "--table-svg", "--reverse", g]);
    let values: Vec<Option<isize>> = (0..32).map(|k| Some((k % 4 * 8 + k / 4) as isize)).collect();
    assert_eq!(svg, print_svg_values(&values, 4, &caption(&svg)).unwrap().to_string());
    let g = g.replace("User(?, ?)", "Linear(32, 1)");
    let svg = ok(&["rocroller", "--table-svg", &g]);
    assert_eq!(svg, print_svg_values(&[None; 32], 1, &caption(&svg)).unwrap().to_string());
}

#[test]
fn bad_input_is_one_line_naming_the_problem() {
    let g = BASIC;
    fails(&["rocroller"], "`rocroller` needs a graph");
    fails(&["rocroller", "graph{0: Linear(4, 1}"], "column 21: expected `)`, found `}`");
    fails(&["rocroller", "graph{0: Linear(4, 1); 2: Linear(4, 1)}"], "column 24: expected tag 1");
    fails(&["rocroller", "graph{0: Linear(4, 1); 1: Tile(0 -> 2)}"], "an edge end is not a dimension");
    fails(&["rocroller", "graph{0: Vgpr(4, 1)}"], "expected a dimension kind or an edge name");
    fails(&["rocroller", "graph{0: Linear(99999999999999999999, 1)}"], "an integer within isize");
    fails(&["rocroller", g, "--frobnicate"], "unknown option `--frobnicate`");
    fails(&["rocroller", g, "--svg", "--svg"], "`--svg` is given twice");
    fails(&["rocroller", g, "--svg", "--table-svg"], "give one of them");
    fails(&["rocroller", g, "--at"], "`--at` needs TAG=V");
    fails(&["rocroller", g, "--at", "0=5", "--svg"], "give it without `--svg`");
    fails(&["rocroller", g, "--reverse", "--svg"], "`--reverse` turns the table around");
    fails(&["rocroller", g, "--at", "0"], "`--at` takes TAG=V");
    fails(&["rocroller", g, "--at", "0=x"], "not `0=x`");
    fails(&["rocroller", g, "--at", "0=99999999999999999999"], "`--at` takes TAG=V");
    fails(&["rocroller", g, "--at", "0=1,"], "`--at` takes TAG=V");
    fails(&["rocroller", g, "--at", "3=1"], "tag 3 is an edge (Flatten), not a dimension");
    fails(&["rocroller", g, "--at", "9=1"], "the graph has no tag 9 (its tags are 0 to 3)");
    fails(&["rocroller", g, "--at", "0=1,0=2"], "`--at` gives tag 0 twice");
    fails(
        &["rocroller", "--table-svg", "graph{0: User(?, ?); 1: Linear(?, ?); 2: Split(0 -> 1)}"],
        "source 0: User(?, ?) has no integer size",
    );
    fails(
        &[
            "rocroller",
            "--table-svg",
            "graph{0: Linear(128, 1); 1: Linear(64, 1); 2: Linear(?, ?); 3: Flatten(0, 1 -> 2)}",
        ],
        "more than 4096 (sizes 128 x 64)",
    );
    fails(&["rocroller", "--table-svg", "graph{}"], "no source dimension");
    // Garbage never panics.
    for junk in
        ["graph{", "graph{0:", "graph{0: Linear(", "{}", "graph{0: Linear(4, 1);}", "graph{}}", "\u{7}"]
    {
        let o = layout(&["rocroller", junk]);
        assert_eq!(o.status.code(), Some(1), "{junk:?}");
    }
}

/// A random graph built through the crate's API: a few sized sources, then Flatten, Tile, Join
/// and PassThrough over the current dimensions, sometimes a Split forward (which has no function).
fn random_graph(rng: &mut Rng) -> (CoordinateGraph, Vec<Tag>) {
    let mut g = CoordinateGraph::new();
    let sources = 1 + rng.pick(3);
    let mut current: Vec<(Tag, isize)> = Vec::new();
    for _ in 0..sources {
        let size = 1 + rng.pick(6) as isize;
        current.push((g.add_dimension(Dimension::linear(size, 1 + rng.pick(4) as isize)).unwrap(), size));
    }
    let src = current.iter().map(|&(t, _)| t).collect();
    for _ in 0..1 + rng.pick(4) {
        match rng.pick(5) {
            0 => {
                let size = current.iter().map(|&(_, s)| s).product::<isize>();
                let out = g.add_dimension(Dimension::linear(size, 1)).unwrap();
                let ins: Vec<Tag> = current.iter().map(|&(t, _)| t).collect();
                g.add_edge(Edge::Flatten, &ins, &[out]).unwrap();
                current = vec![(out, size)];
            }
            1 => {
                let k = rng.pick(current.len());
                let (t, size) = current.remove(k);
                let inner = 1 + rng.pick(4) as isize;
                let outer = g.add_dimension(Dimension::linear((size + inner - 1) / inner, inner)).unwrap();
                let fast = g.add_dimension(Dimension::linear(inner, 1)).unwrap();
                g.add_edge(Edge::Tile, &[t], &[outer, fast]).unwrap();
                current.push((outer, (size + inner - 1) / inner));
                current.push((fast, inner));
            }
            2 => {
                let size = current.iter().map(|&(_, s)| s).sum::<isize>() * 4;
                let out = g.add_dimension(Dimension::linear(size, 1)).unwrap();
                let ins: Vec<Tag> = current.iter().map(|&(t, _)| t).collect();
                g.add_edge(Edge::Join, &ins, &[out]).unwrap();
                current = vec![(out, size)];
            }
            3 => {
                let k = rng.pick(current.len());
                let (t, size) = current[k];
                let out = g.add_dimension(Dimension::linear(size, 1)).unwrap();
                g.add_edge(Edge::PassThrough, &[t], &[out]).unwrap();
                current[k] = (out, size);
            }
            _ => {
                let k = rng.pick(current.len());
                let (t, size) = current.remove(k);
                let a = g.add_dimension(Dimension::linear(size, 2)).unwrap();
                let b = g.add_dimension(Dimension::linear(2, 1)).unwrap();
                g.add_edge(Edge::Split, &[t], &[a, b]).unwrap();
                current.push((a, size));
                current.push((b, 2));
            }
        }
    }
    (g, src)
}

#[test]
fn random_graphs_tabulate_as_the_transformer_computes() {
    let mut rng = Rng(0x5eed);
    let mut checked = 0;
    for _ in 0..40 {
        let (g, sources) = random_graph(&mut rng);
        let text = g.to_string();
        let out = ok(&["rocroller", &text]);
        let sinks: Vec<Tag> = (0..g.len())
            .filter(|&t| g.dimension(t).is_some())
            .filter(|&t| !(0..g.len()).any(|e| g.edge(e).is_some_and(|(_, s, _)| s.contains(&t))))
            .collect();
        let t = tables(&out);
        assert_eq!(t.iter().map(|t| t.tag).collect::<Vec<_>>(), sinks, "{out}");
        let cells: usize =
            sources.iter().map(|&s| g.dimension(s).unwrap().size().unwrap() as usize).product();
        for table in &t {
            assert_eq!(table.cells.len(), cells, "{out}");
            for (c, v) in &table.cells {
                let at = &c[..sources.len()];
                assert_eq!(*v, transform(&g, &sources, at, table.tag, false), "{text} at {at:?}");
                checked += 1;
            }
        }
        // And `--at` at a random coordinate, both ways, against the transformer.
        let at: Vec<String> = sources
            .iter()
            .map(|&s| format!("{s}={}", rng.pick(g.dimension(s).unwrap().size().unwrap() as usize)))
            .collect();
        let out = ok(&["rocroller", &text, "--at", &at.join(",")]);
        let mut tr = Transformer::new(&g);
        for a in &at {
            let (t, v) = a.split_once('=').unwrap();
            tr.set_coordinate(t.parse().unwrap(), v.parse().unwrap());
        }
        for d in (0..g.len()).filter(|&d| g.dimension(d).is_some() && !sources.contains(&d)) {
            let line = out.lines().find(|l| l.starts_with(&format!("{d}: "))).unwrap();
            match (tr.forward(&[d]), tr.reverse(&[d])) {
                (Ok([f]), _) => assert!(line.contains(&format!(" = {f} ")), "{line}"),
                (Err(_), Ok([r])) => assert!(line.ends_with(&format!(" = {r} (in reverse)")), "{line}"),
                (Err(_), Err(_)) => assert!(line.contains("not reached"), "{line}"),
            }
        }
    }
    assert!(checked > 500, "only {checked} cells");
}
