//! A fuzz target for the parsers and the evaluator, run by `cargo test`: deterministic proptest
//! generators of hostile text (random bytes, grammar-aware mutations of valid expressions, deep
//! nestings, huge integers, products near `isize::MAX`, huge sizes for the pictures) run against
//! the library in-process, and a smaller sample through the built `layout` binary. The promise
//! checked: no panic (every call under `catch_unwind`, panics counted), every error one line of
//! bounded length, bounded time per input, and every value that evaluates prints as text that
//! evaluates back to it.

use const_layout::algebra::{Slicer, Tiler};
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::eval::{FUNCTIONS, MAX_EXPRESSION_LEN, Value, eval};
use const_layout::picture::{
    print_latex, print_latex_composed, print_latex_tv, print_svg, print_svg_swizzle, print_svg_tv,
};
use const_layout::text::MAX_NESTING;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Command;
use std::time::{Duration, Instant};

/// The longest error message the library may give (it repeats no input but a 32-byte name).
const MAX_ERROR_LEN: usize = 300;
/// Per input, in a debug build.
const MAX_TIME: Duration = Duration::from_secs(2);

/// Valid expressions the mutations start from: every function, composed layouts, partitions,
/// tilers, basis strides, the inputs.
const SEEDS: &[&str] = &[
    "(8,(4,2)):(1,8)",
    "crd2idx((1,(1,2)), (4,(2,3)):(3,(1,8)))",
    "idx2crd(13, (4,(2,3)))",
    "size((_8,(_4,_2)):(_1,_8))",
    "cosize((4,2):(-2,1))",
    "get((4,(2,3)), 1)",
    "flatten((4,(2,3)):(1,(4,8)))",
    "prefix_product((2,(3,4)))",
    "compact_row_major((_4,(_2,_3)))",
    "shape_div((6,2,4), 12)",
    "ceil_div((6,2,4), 4)",
    "weakly_congruent((1,2), ((1,2),3))",
    "make_layout((_4,_8), LayoutRight)",
    "make_layout(4:1, 8:4)",
    "make_ordered_layout((_4,_8,_2), (_2,_0,_1))",
    "get_hier_coord((4,(2,3)):(1,(4,8)), 13)",
    "coalesce((_2,(_1,_6)):(_1,(_6,_2)))",
    "coalesce((4,(2,3)):(1,(4,8)), (_1,_1))",
    "filter((4,2):(0,1))",
    "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))",
    "composition((_4,_4):(_4,_1), <_2:_1, _2:_2>)",
    "complement((_4,_6):(_1,_6), _48)",
    "complement(4:2, 4294967296)",
    "right_inverse((_4,_2):(_2,_1))",
    "left_inverse((_4,_2):(_2,_1))",
    "max_common_layout((_4,_2):(_1,_4), (_4,_2):(_1,_4))",
    "nullspace((_4,_2):(_0,_1))",
    "logical_divide((_8,_6):(_1,_8), <_4:_1, _3:_1>)",
    "zipped_divide((_8,(_4,_2)):(_1,_8), <_4:_1, _4:_1>)",
    "tiled_divide((_8,_6):(_1,_8), (_4,_3))",
    "logical_product((_2,_2):(_1,_2), (_3):(_1))",
    "blocked_product((_5):(_1), _6:_1)",
    "raked_product(_7:_1, (_5):(_1))",
    "tile_to_shape((_2,_2):(_1,_2), (_8,_8), (_1,_0))",
    "select<0,2>((_4,_2,_3):(_1,_4,_8))",
    "take<1,3>((_4,_2,_3):(_1,_4,_8))",
    "group<0,2>((_4,_2,_3):(_1,_4,_8))",
    "append<3>((_4,_2):(_1,_4))",
    "replace<1>((_4,_2):(_1,_4), _3:_8)",
    "upcast<2>((_4,_8):(_8,_1))",
    "recast_layout<16,32>((_4,_8):(_8,_1))",
    "make_layout_like((_4,_8):(_8,_1))",
    "make_identity_layout((12,16))",
    "local_tile(make_identity_layout((12,16)), <_4:_1, _8:_1>, (1,1))",
    "slice((_,2), (_4,_8):(_8,_1))",
    "slice_and_offset((1,_), Sw<3,4,3> o _0 o (_8,_64):(_64,_1))",
    "make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))",
    "local_partition((_8,_8):(_1,_8), (_2,_4):(_4,_1), 3)",
    "composition(Sw<3,3,3>, (_8,_64):(_64,_1))",
    "composition((_8,_8):(_8,_1), Sw<2,0,-3> o _0 o (_8,_8):(_8,_1))",
    "right_inverse(Sw<1,0,2> o _0 o (_4,_4):(_1,_4))",
    "tile_to_shape(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), (_64,_64))",
    "max_common_vector(Sw<3,3,3> o _0 o (_8,_8):(_8,_1), (_8,_8):(_8,_1))",
    "upcast<2>(Sw<3,4,3> o _0 o (_8,_64):(_64,_1))",
    "_8:_2 o 3 o _2:_1",
    "(8,8) + (_4,_8):(_1@0,_1@1)",
    "2 + Sw<3,4,3> o _0 o (_8,_64):(_64,_1)",
    "(_8,_4), ((_2,_4),(_2,_2)):((_16,_2),(_1,_8))",
    "crd2idx((1,2), (_4,_4):(_1@1,_1@0@1))",
    "composition((_4,_4):(_4,_1), (_4,_4):(_1@1,_1@0))",
    "(4611686018427387904,2):(1,4611686018427387904)",
    "size((3037000499,3037000499))",
    "cosize((2,2):(4611686018427387903,4611686018427387903))",
    "idx2crd(9223372036854775807, (2,3))",
    "crd2idx(-9223372036854775808, (2,3):(1,2))",
    "upcast<4611686018427387904>((_4,_8):(_8,_1))",
    "downcast<4611686018427387904>((_4,_8):(_8,_1))",
    "recast_layout<1,9223372036854775807>((_4,_8):(_8,_1))",
    "complement(9223372036854775807:1)",
    "logical_product(4611686018427387904:1, 4:1)",
    "Sw<2,40,20>",
    "composition(Sw<20,20,20>, 1048576:1)",
];

/// Tokens the mutations insert.
const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    ":",
    "_",
    "<",
    ">",
    " o ",
    " + ",
    "@",
    "@255",
    "-",
    "_0",
    "_1",
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "4611686018427387904",
    "3037000500",
    "Sw<3,4,3>",
    "LayoutLeft",
    "true",
    "\n",
    "\0",
    "\u{202e}",
    "é",
    "(_,",
    "_@",
    "((",
    "))",
];

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// A hostile input: mutated seeds, random bytes, deep nests, huge numbers.
fn hostile(r: &mut Rng) -> Vec<u8> {
    match r.pick(10) {
        // Random bytes, not necessarily UTF-8.
        0 => (0..r.pick(40)).map(|_| r.next() as u8).collect(),
        // A deep nest, closed or not.
        1 => {
            let opener = ["(", "coalesce(", "<", "size(", "((_,", "make_layout(", "(1,"][r.pick(7)];
            let d = [MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 100, 2000][r.pick(5)];
            let mut s = opener.repeat(d);
            s.push_str(["1", "4:1", "_", ""][r.pick(4)]);
            if r.pick(2) == 0 {
                s.push_str(&")".repeat(d));
            }
            s.into_bytes()
        }
        // Every function on random operands with numbers near the edges of `isize`.
        2 if r.pick(2) == 0 => {
            let (f, _) = FUNCTIONS[r.pick(FUNCTIONS.len())];
            let n = 1 + r.pick(3);
            let args: Vec<String> = (0..n).map(|_| operand(r)).collect();
            let targs = if r.pick(3) == 0 { format!("<{}>", edge(r)) } else { String::new() };
            format!("{f}{targs}({})", args.join(", ")).into_bytes()
        }
        // Function names with random argument lists.
        2 => {
            let (f, _) = FUNCTIONS[r.pick(FUNCTIONS.len())];
            let n = r.pick(10);
            let args: Vec<&str> = (0..n).map(|_| SEEDS[r.pick(SEEDS.len())]).collect();
            let targs = if r.pick(3) == 0 { format!("<{}>", r.next() as i64 % 70) } else { String::new() };
            format!("{f}{targs}({})", args.join(", ")).into_bytes()
        }
        // Grammar-aware mutations of a valid expression.
        _ => {
            let mut s = SEEDS[r.pick(SEEDS.len())].as_bytes().to_vec();
            if r.pick(2) == 0 {
                // Keep the grammar: replace one integer by a hostile one (products and sums
                // near isize::MAX, zero, negative, huge template arguments).
                let runs: Vec<usize> = (0..s.len())
                    .filter(|&i| s[i].is_ascii_digit() && (i == 0 || !s[i - 1].is_ascii_digit()))
                    .collect();
                if let Some(&at) = runs.get(r.pick(runs.len().max(1))) {
                    let end = (at..s.len()).find(|&i| !s[i].is_ascii_digit()).unwrap_or(s.len());
                    let n = [
                        "0",
                        "1",
                        "2",
                        "3",
                        "63",
                        "64",
                        "255",
                        "256",
                        "3037000499",
                        "3037000500",
                        "4294967296",
                        "4611686018427387904",
                        "9223372036854775807",
                        "9223372036854775806",
                    ][r.pick(14)];
                    s.splice(at..end, n.bytes());
                }
                return s;
            }
            for _ in 0..1 + r.pick(4) {
                let at = r.pick(s.len() + 1);
                match r.pick(5) {
                    0 if !s.is_empty() => {
                        let end = (at + 1 + r.pick(6)).min(s.len());
                        s.drain(at.min(end)..end);
                    }
                    1 if !s.is_empty() => {
                        // Duplicate a span (grows nesting and argument lists).
                        let end = (at + 1 + r.pick(20)).min(s.len());
                        let span = s[at.min(end)..end].to_vec();
                        s.splice(at..at, span);
                    }
                    2 => {
                        // A number somewhere.
                        let n = [
                            isize::MAX.to_string(),
                            isize::MIN.to_string(),
                            (1u64 << 62).to_string(),
                            "0".into(),
                        ][r.pick(4)]
                        .clone();
                        s.splice(at..at, n.into_bytes());
                    }
                    _ => {
                        let t = TOKENS[r.pick(TOKENS.len())];
                        s.splice(at..at, t.bytes());
                    }
                }
            }
            s
        }
    }
}

/// An integer near an edge: small, a power of two, a square root or all of `isize`.
fn edge(r: &mut Rng) -> String {
    let v: i128 = match r.pick(6) {
        0 => r.pick(9) as i128,
        1 => 1i128 << r.pick(63),
        2 => (1i128 << r.pick(63)) - 1,
        3 => [3_037_000_499, 3_037_000_500, 2_147_483_648, 4_294_967_296][r.pick(4)],
        4 => -(r.pick(9) as i128),
        _ => [isize::MAX as i128, isize::MIN as i128, isize::MAX as i128 - 1][r.pick(3)],
    };
    let st = if r.pick(2) == 0 { "_" } else { "" };
    format!("{st}{v}")
}

/// A random operand: an integer, a tuple or a layout of edge integers, a swizzle, a tiler.
fn operand(r: &mut Rng) -> String {
    let tuple = |r: &mut Rng| -> String {
        match r.pick(3) {
            0 => edge(r),
            1 => format!("({},{})", edge(r), edge(r)),
            _ => format!("({},({},{}))", edge(r), edge(r), edge(r)),
        }
    };
    match r.pick(8) {
        0 | 1 => tuple(r),
        2 => format!("Sw<{},{},{}>", r.pick(5), r.pick(40), r.pick(40) as i64 - 20),
        3 => format!("<{}, {}:{}>", tuple(r), edge(r), edge(r)),
        4 => format!("make_identity_layout({})", tuple(r)),
        _ => {
            let shape = tuple(r);
            // A congruent stride: the same tuple structure with other integers.
            let mut stride = String::new();
            for c in shape.chars() {
                if matches!(c, '(' | ')' | ',') {
                    stride.push(c);
                } else if !stride.ends_with('#')
                    && !stride.ends_with(|p: char| p.is_ascii_digit() || p == '_' || p == '-')
                {
                    stride.push('#');
                }
            }
            while let Some(i) = stride.find('#') {
                stride.replace_range(i..=i, &edge(r));
            }
            format!("{shape}:{stride}")
        }
    }
}

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    ok: usize,
    errors: usize,
    panics: Vec<String>,
    bad_errors: Vec<String>,
    slow: Vec<String>,
    not_read_back: Vec<String>,
    slowest: Duration,
}

/// Run the library on one input: every parser, the evaluator, the printers of the value.
fn check(bytes: &[u8], t: &mut Tally) {
    let text = String::from_utf8_lossy(bytes).into_owned();
    t.cases += 1;
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut errors: Vec<String> = Vec::new();
        let mut keep = |e: Option<String>| errors.extend(e);
        keep(text.parse::<DynIntTuple>().err().map(|e| e.to_string()));
        keep(text.parse::<DynLayout>().err().map(|e| e.to_string()));
        keep(text.parse::<Tiler>().err().map(|e| e.to_string()));
        keep(text.parse::<Slicer>().err().map(|e| e.to_string()));
        let value = eval(&text);
        if let Ok(v) = &value {
            // What the tool prints reads back; the pictures keep their bounds.
            let printed = v.to_string();
            let back = eval(&printed);
            let read_back =
                back.as_ref().ok() == Some(v) && back.map(|b| b.to_string()).ok() == Some(printed.clone());
            match v {
                Value::Layout(l) => {
                    let _ = print_latex(l).map(|p| p.to_string().len());
                    let _ = print_svg(l).map(|p| p.to_string().len());
                    if l.size().value <= 1 << 16 {
                        let _ = l.print_layout().map(|p| p.to_string().len());
                    }
                }
                Value::Composed(c) => {
                    let _ = print_latex_composed(c).map(|p| p.to_string().len());
                    let _ = print_svg_swizzle(c).map(|p| p.to_string().len());
                }
                Value::LayoutTv(tile, tv) => {
                    let _ = print_latex_tv(tv, tile).map(|p| p.to_string().len());
                    let _ = print_svg_tv(tv, tile).map(|p| p.to_string().len());
                }
                _ => {}
            }
            (errors, true, read_back.then_some(()).ok_or(printed))
        } else {
            keep(value.err().map(|e| e.to_string()));
            (errors, false, Ok(()))
        }
    }));
    let elapsed = start.elapsed();
    t.slowest = t.slowest.max(elapsed);
    if elapsed > MAX_TIME {
        t.slow.push(format!("{:?}: {text:?}", elapsed));
    }
    match result {
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            t.panics.push(format!("{text:?}: {what}"));
        }
        Ok((errors, ok, read_back)) => {
            if ok {
                t.ok += 1;
            } else {
                t.errors += 1;
            }
            if let Err(printed) = read_back {
                t.not_read_back.push(format!("{text:?} printed {printed:?}"));
            }
            for e in errors {
                if e.contains('\n') || e.contains('\r') || e.chars().count() > MAX_ERROR_LEN {
                    t.bad_errors.push(format!("{text:?}: {e:?}"));
                }
            }
        }
    }
}

#[test]
fn hostile_text_gives_values_or_one_line_errors_in_process() {
    let t = {
        // Keep panics of the cases off the terminal; they are counted and listed below.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut t = Tally::default();
        // `FUZZ_CASES` and `FUZZ_SEED` run longer or other campaigns by hand; `cargo test`
        // runs the same 12,000 inputs every time.
        let cases = std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(12_000);
        let seed: u8 = std::env::var("FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
        let rng = if seed == 0 {
            TestRng::deterministic_rng(RngAlgorithm::ChaCha)
        } else {
            TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32])
        };
        let mut runner =
            TestRunner::new_with_rng(Config { cases, failure_persistence: None, ..Config::default() }, rng);
        let cell = std::cell::RefCell::new(&mut t);
        runner
            .run(&any::<u64>(), |seed| {
                check(&hostile(&mut Rng(seed)), &mut cell.borrow_mut());
                Ok(())
            })
            .unwrap();
        for s in SEEDS {
            check(s.as_bytes(), &mut t);
        }
        std::panic::set_hook(hook);
        t
    };
    eprintln!(
        "fuzz: {} inputs, {} values, {} errors, {} panics, slowest {:?}",
        t.cases,
        t.ok,
        t.errors,
        t.panics.len(),
        t.slowest
    );
    assert!(t.panics.is_empty(), "{} panics:\n{}", t.panics.len(), t.panics.join("\n"));
    assert!(t.bad_errors.is_empty(), "errors not one bounded line:\n{}", t.bad_errors.join("\n"));
    assert!(t.slow.is_empty(), "inputs slower than {MAX_TIME:?}:\n{}", t.slow.join("\n"));
    assert!(t.not_read_back.is_empty(), "values that do not read back:\n{}", t.not_read_back.join("\n"));
    // The generator reaches both outcomes in quantity.
    assert!(t.ok > 500 && t.errors > 2000, "{t:?}");
}

#[test]
fn the_from_str_parsers_refuse_any_depth_on_a_small_stack() {
    // 256 KiB, as a kernel's or an embedded thread might have: a depth error, no overflow.
    let errors = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let deep = "(".repeat(100_000);
            let closed = format!("{deep}1{}", ")".repeat(100_000));
            let slicer = format!("{deep}_{}", ")".repeat(100_000));
            [
                deep.parse::<DynIntTuple>().unwrap_err().to_string(),
                closed.parse::<DynIntTuple>().unwrap_err().to_string(),
                format!("{closed}:{closed}").parse::<DynLayout>().unwrap_err().to_string(),
                format!("<{closed}>").parse::<Tiler>().unwrap_err().to_string(),
                slicer.parse::<Slicer>().unwrap_err().to_string(),
            ]
        })
        .unwrap()
        .join()
        .unwrap();
    // Tuples hold 64 nodes, so nesting stops there (the parsers do not recurse).
    for e in &errors {
        assert!(e.ends_with("more than 64 nodes or 126 bytes of encoding in one int tuple"), "{e}");
    }
    // The deepest tuple that fits parses on the same stack.
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let t: DynIntTuple = format!("{}1{}", "(".repeat(63), ")".repeat(63)).parse().unwrap();
            assert_eq!(t.depth(), 63);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn eval_refuses_deep_nesting_with_the_limit_named() {
    for (open, close) in
        [("coalesce(", ")"), ("(", ")"), ("((_,", "))"), ("size(", ")"), ("make_layout(", ")")]
    {
        // Just past the limit and far past it (as long as the length bound lets text go).
        for d in [MAX_NESTING + 1, 100_000] {
            let text = format!("{}4:1{}", open.repeat(d), close.repeat(d));
            let e = eval(&text).unwrap_err().to_string();
            let expected = if text.len() > MAX_EXPRESSION_LEN {
                format!("the expression is {} bytes long; at most 16384 are read", text.len())
            } else {
                "nested parentheses (the parser's limit)".to_string()
            };
            assert!(e.contains(&expected), "{open} x {d}: {e}");
        }
    }
    // At the limit, nesting works.
    let text = format!("{}(4,2):(1,4){}", "coalesce(".repeat(MAX_NESTING - 1), ")".repeat(MAX_NESTING - 1));
    let text = text.replace("(4,2):(1,4)", "(_4,_2):(_1,_4)");
    assert_eq!(eval(&text).unwrap().to_string(), "_8:_1");
}

#[test]
fn eval_at_its_nesting_limit_fits_the_documented_stack() {
    // `eval::eval` documents under 512 KiB at the limit, optimized or not (a quarter of a thread's
    // default 2 MiB): the deepest case below is a swizzled layout's inverse under 14 calls.
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(|| {
            let d = MAX_NESTING - 1;
            let calls = format!("{}(_4,_2):(_1,_4){}", "coalesce(".repeat(d), ")".repeat(d));
            assert_eq!(eval(&calls).unwrap().to_string(), "_8:_1");
            let tuples = format!("{}size(4){}", "(".repeat(d), ")".repeat(d));
            assert_eq!(eval(&tuples).unwrap().to_string(), format!("{}4{}", "(".repeat(d), ")".repeat(d)));
            let mixed = format!("{}4:1{}", "composition(_8:_1, coalesce(".repeat(d / 2), "))".repeat(d / 2));
            assert!(eval(&mixed).is_ok(), "{mixed}");
            // The deepest leaf measured, the inverse of a swizzled layout, under calls that do not
            // change it after the first (`coalesce` is idempotent).
            let leaf = "left_inverse(Sw<3,3,3> o 0 o (8,64):(64,1))";
            let heavy = format!("{}{leaf}{}", "coalesce(".repeat(d), ")".repeat(d));
            assert_eq!(eval(&heavy).unwrap(), eval(&format!("coalesce({leaf})")).unwrap());
            // Past the limit on the same stack: the error, not an overflow.
            let deeper = format!("{}4:1{}", "coalesce(".repeat(100), ")".repeat(100));
            assert!(eval(&deeper).unwrap_err().to_string().contains("at most 16 nested parentheses"));
        })
        .unwrap()
        .join()
        .unwrap();
}

/// A smaller sample through the binary, as a user runs it: status 0 or 1, stderr one bounded
/// line, within a few seconds.
#[test]
fn hostile_text_through_the_binary() {
    let mut inputs: Vec<Vec<std::ffi::OsString>> = Vec::new();
    let mut r = Rng(0x5eed);
    for k in 0..60 {
        let text = hostile(&mut r);
        #[cfg(unix)]
        let arg: std::ffi::OsString =
            std::os::unix::ffi::OsStringExt::from_vec(text.into_iter().filter(|b| *b != 0).collect());
        #[cfg(not(unix))]
        let arg: std::ffi::OsString = String::from_utf8_lossy(&text).into_owned().into();
        let cmd =
            ["eval", "table", "latex", "svg", "steps", "tma-box", "atom", "ck-tile", "rocroller"][k % 9];
        inputs.push(vec![cmd.into(), arg]);
    }
    // `steps` builds expressions around its arguments' text: hostile arguments inside each
    // operation it explains, and the picture of each.
    for k in 0..24 {
        let text = String::from_utf8_lossy(&hostile(&mut r)).replace('\0', "");
        let op = [
            "logical_divide",
            "zipped_divide",
            "composition",
            "blocked_product",
            "raked_product",
            "flat_product",
        ][k % 6];
        let expr = if k % 2 == 0 {
            format!("{op}({text}, _4:_1)")
        } else {
            format!("{op}((_8,_8):(_8,_1), {text})")
        };
        inputs.push(vec!["steps".into(), expr.clone().into()]);
        inputs.push(vec!["steps".into(), "--svg".into(), expr.into()]);
    }
    // `ck-tile` and `rocroller` read structures: valid descriptors and graphs mutated (a character
    // replaced, a span deleted or repeated), through every mode of each command.
    let seeds = [
        "tensor_descriptor{transforms: [pass_through(_8): [8] -> [4], merge((_4,_8)): [7] -> [5,6], xor((_8,_4)): [4,5] -> [1,2], pass_through(_8): [6] -> [3], embed((_8,_4,_8),(_32,_8,_1)): [1,2,3] -> [0]], top: [8,7], element_space_size: 256}",
        "tensor_descriptor{transforms: [pad(4,1,1): [2] -> [1], embed((6,3),(3,1)): [1,3] -> [0]], top: [2,3], element_space_size: 18}",
        "tensor_adaptor{transforms: [merge((_4,_8)): [0] -> [1,2]], bottom: [1,2], top: [0]}",
        "graph{0: User(?, ?); 1: SubDimension[0](8, 8); 2: SubDimension[1](8, 1); 3: Split(0 -> 1, 2); 4: MacroTileNumber[0](2, 1); 5: MacroTileIndex[0](4, 4); 6: Tile(1 -> 4, 5); 7: Workgroup[0](4, ?); 8: Flatten(4 -> 7)}",
        "graph{0: Linear(8, 1); 1: Linear(10, 1); 2: Linear(?, ?); 3: PiecewiseAffineJoin<$0 < 4 ? (10, 1) + 0 : (20, 1) + -40>(0, 1 -> 2)}",
    ];
    let pieces =
        ["(", ")", "[", "]", ",", ":", "->", "_", "0", "9", "-1", "4294967296", "?", "$0", "<", ">", " "];
    for k in 0..60 {
        let seed: Vec<char> = seeds[k % seeds.len()].chars().collect();
        let at = r.pick(seed.len());
        let len = r.pick(12).min(seed.len() - at);
        let mid = match k % 3 {
            0 => pieces[r.pick(pieces.len())].to_string(),
            1 => String::new(),
            _ => seed[at..at + len].iter().collect::<String>().repeat(1 + r.pick(40)),
        };
        let text: String = seed[..at]
            .iter()
            .chain(mid.chars().collect::<Vec<_>>().iter())
            .chain(seed[at + len..].iter())
            .collect();
        let modes: &[&[&str]] = if k % seeds.len() < 3 {
            &[&["ck-tile"], &["ck-tile", "--svg"], &["ck-tile", "--at", "(1,2)"]]
        } else {
            &[
                &["rocroller"],
                &["rocroller", "--reverse"],
                &["rocroller", "--svg"],
                &["rocroller", "--table-svg"],
                &["rocroller", "--at", "0=3,1=2"],
            ]
        };
        for mode in modes {
            let mut args: Vec<std::ffi::OsString> = mode.iter().map(|c| c.into()).collect();
            args.push(text.clone().into());
            inputs.push(args);
        }
    }
    for big in [
        "tensor_descriptor{transforms: [embed((100000,100000),(1,100000)): [1,2] -> [0]], top: [1,2], element_space_size: 10000000000}",
        "tensor_descriptor{transforms: [unmerge((65536,65536)): [1,2] -> [0]], top: [1,2], element_space_size: 4294967296}",
        "graph{0: SubDimension[0](100000, 1); 1: SubDimension[1](100000, 1); 2: Linear(?, 1); 3: Flatten(0, 1 -> 2)}",
        "graph{0: Linear(9223372036854775807, 1); 1: Linear(?, ?); 2: Tile(0 -> 1)}",
    ] {
        let cmd = if big.starts_with("graph") { "rocroller" } else { "ck-tile" };
        for mode in [&[cmd][..], &[cmd, "--svg"]] {
            let mut args: Vec<std::ffi::OsString> = mode.iter().map(|c| c.into()).collect();
            args.push(big.into());
            inputs.push(args);
        }
    }
    for big in [
        "(10000,10000):(1,10000)",
        "complement(4:2, 4294967296)",
        "(4611686018427387904,1):(1,1)",
        "make_identity_layout((100000,100000))",
        "make_layout_tv((1024,1024):(1024,1), (64,64):(64,1))",
        "logical_divide((100000,100000):(1,100000), <_4:_1, _4:_1>)",
        "blocked_product((1000,1000):(1,1000), (1000,1000):(1,1000))",
        "composition((4611686018427387904,1):(1,1), (2,2):(1,2))",
    ] {
        for cmd in [&["steps"][..], &["steps", "--svg"], &["tma-box"]] {
            let mut args: Vec<std::ffi::OsString> = cmd.iter().map(|c| c.into()).collect();
            args.push(big.into());
            inputs.push(args);
        }
        for cmd in ["table", "latex", "svg"] {
            inputs.push(vec![cmd.into(), big.into()]);
        }
        inputs.push(vec!["eval".into(), "--json".into(), big.into()]);
    }
    for args in inputs {
        let start = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_layout")).args(&args).output().unwrap();
        let elapsed = start.elapsed();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}: {:?} {err}", o.status);
        assert!(err.lines().count() <= 1 && err.chars().count() <= 500, "{args:?}: {err}");
        if o.status.code() == Some(1) {
            assert!(err.starts_with("layout: ") || o.stdout.starts_with(b"{\"error\""), "{args:?}: {err}");
        }
        assert!(elapsed < Duration::from_secs(5), "{args:?}: {elapsed:?}");
    }
}
