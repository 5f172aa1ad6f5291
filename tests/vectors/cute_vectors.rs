//! Differential tests against CuTe C++: the vectors in `tests/data/` were produced by CuTe itself
//! (see `tools/oracle/README.md`). The runtime-structured path (`dynamic`) must print exactly what
//! CuTe prints, static flags included; the typed path is checked in `typed_vectors.rs`.

use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::eval;
use std::collections::BTreeMap;

const LAYOUTS: &str = include_str!("../data/cute_layouts.txt");
const INT_TUPLES: &str = include_str!("../data/cute_int_tuples.txt");

#[derive(Default)]
struct Tally {
    pass: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: &'static str, context: &str, got: String, want: &str) {
        if got == want {
            *self.pass.entry(what).or_default() += 1;
        } else if self.failures.len() < 40 {
            self.failures.push(format!("{what} {context}: got {got}, CuTe {want}"));
        } else {
            self.failures.push(String::new());
        }
    }

    fn finish(self, min_total: usize) {
        let total: usize = self.pass.values().sum();
        for (k, v) in &self.pass {
            println!("{k:>18}: {v} agree with CuTe");
        }
        let shown: Vec<_> = self.failures.iter().filter(|f| !f.is_empty()).collect();
        assert!(
            self.failures.is_empty(),
            "{} disagreements with CuTe, first ones:\n{}",
            self.failures.len(),
            shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
        assert!(total >= min_total, "only {total} vectors checked");
    }
}

fn tuple(s: &str) -> DynIntTuple {
    s.parse().unwrap_or_else(|e| panic!("cannot parse {s:?}: {e}"))
}

#[test]
fn layouts_match_cute() {
    let mut t = Tally::default();
    let mut layout: Option<DynLayout> = None;
    let mut text = String::new();
    for line in LAYOUTS.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "layout" => {
                let l: DynLayout = f[1].parse().unwrap_or_else(|e| panic!("cannot parse {}: {e}", f[1]));
                t.check("print", f[1], l.to_string(), f[1]);
                text = f[1].to_string();
                layout = Some(l);
            }
            "end" => layout = None,
            key => {
                let l = layout.as_ref().expect("a line outside a record");
                match key {
                    "size" => t.check("size", &text, l.size().to_string(), f[1]),
                    "cosize" => t.check("cosize", &text, l.cosize().to_string(), f[1]),
                    "rank" => t.check("rank", &text, format!("_{}", l.rank()), f[1]),
                    "depth" => t.check("depth", &text, format!("_{}", l.depth()), f[1]),
                    "offsets" => {
                        let got: Vec<String> = l.offsets().map(|v| v.to_string()).collect();
                        t.check("offsets", &text, got.join(" "), f[1]);
                    }
                    "idx2crd" => {
                        let got =
                            l.idx2crd(&tuple(f[1])).map(|c| c.to_string()).unwrap_or_else(|e| e.to_string());
                        t.check("idx2crd", &format!("{} in {text}", f[1]), got, f[2]);
                    }
                    "crd2idx" => {
                        let got =
                            l.crd2idx(&tuple(f[1])).map(|c| c.to_string()).unwrap_or_else(|e| e.to_string());
                        t.check("crd2idx", &format!("{} in {text}", f[1]), got, f[2]);
                    }
                    "get_hier_coord" | "get_flat_coord" | "get_1d_coord" => {
                        let i: DynInt = tuple(f[1]).as_int().expect("an integer offset");
                        let got = match key {
                            "get_hier_coord" => l.get_hier_coord(i).map(|c| c.to_string()),
                            "get_flat_coord" => l.get_flat_coord(i).map(|c| c.to_string()),
                            _ => l.get_1d_coord(i).map(|c| c.to_string()),
                        };
                        let what = match key {
                            "get_hier_coord" => "get_hier_coord",
                            "get_flat_coord" => "get_flat_coord",
                            _ => "get_1d_coord",
                        };
                        t.check(
                            what,
                            &format!("{} in {text}", f[1]),
                            got.unwrap_or_else(|e| e.to_string()),
                            f[2],
                        );
                    }
                    other => panic!("unknown record line {other}"),
                }
            }
        }
    }
    t.finish(80_000);
}

#[test]
fn int_tuple_functions_match_cute() {
    let mut t = Tally::default();
    for line in INT_TUPLES.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (func, want) = (f[0], f[f.len() - 1]);
        let args = &f[1..f.len() - 1];
        let expr = match func {
            "make_layout_left" => format!("make_layout({})", args[0]),
            "make_layout_right" => format!("make_layout({}, LayoutRight)", args[0]),
            _ => format!("{func}({})", args.join(", ")),
        };
        let got = eval(&expr).map(|v| v.to_string()).unwrap_or_else(|e| format!("error: {e}"));
        let what: &'static str = [
            "size",
            "rank",
            "depth",
            "flatten",
            "product_each",
            "compact_col_major",
            "compact_row_major",
            "shape_div",
            "ceil_div",
            "congruent",
            "weakly_congruent",
            "compatible",
            "make_ordered_layout",
            "make_layout_left",
            "make_layout_right",
            "prefix_product",
        ]
        .into_iter()
        .find(|k| *k == func)
        .unwrap_or_else(|| panic!("unknown function {func}"));
        if func == "prefix_product" {
            // pycute prints every integer as a runtime one: compare values and structure only.
            let same = tuple(&got).same_values(&tuple(want));
            t.check(what, &expr, if same { want.to_string() } else { got }, want);
        } else {
            t.check(what, &expr, got, want);
        }
    }
    t.finish(4_800);
}
