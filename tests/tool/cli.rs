//! The `layout` command-line tool, run as a user runs it.

use std::process::{Command, Output};

/// Runs the `layout` binary (the other modules of this test binary use it too).
pub(crate) fn layout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_layout")).args(args).output().expect("run the layout binary")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 output")
}

#[test]
fn tour_shows_the_cards_layout() {
    let o = layout(&[]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("(_8,(_4,_2)):(_1,(_8,_32))"), "{out}");
    assert!(out.contains("size   _64"), "{out}");
    assert!(out.contains("cosize _64"), "{out}");
    // print_layout's table: row 1 of the card's layout, columns 0..8 of mode (4,2).
    assert!(out.contains(" 1  |  1 |  9 | 17 | 25 | 33 | 41 | 49 | 57 |"), "{out}");
}

#[test]
fn eval_prints_cute_notation() {
    for (expr, want) in [
        ("(8,(4,2)):(1,8)", "(8,(4,2)):(1,(8,32))"),
        ("(_8,(_4,_2)):(_1,_8)", "(_8,(_4,_2)):(_1,(_8,_32))"),
        ("crd2idx((1,(1,2)), (4,(2,3)):(3,(1,8)))", "20"),
        ("idx2crd(13, (4,(2,3)))", "(1,(1,1))"),
        ("idx2crd((1,5), (3,(2,3)))", "(1,(1,2))"),
        ("size((_8,(_4,_2)):(_1,_8))", "_64"),
        ("cosize((4,2):(-2,1))", "8"),
        ("rank((8,(4,2)):(1,8))", "_2"),
        ("depth((8,(4,2)):(1,8))", "_2"),
        ("compact_row_major((_4,(_2,_3)))", "(_6,(_3,_1))"),
        ("shape_div((6,2,4), 12)", "(1,1,4)"),
        ("make_ordered_layout((_4,_8,_2), (_2,_0,_1))", "(_4,_8,_2):(_16,_1,_8)"),
    ] {
        let o = layout(&["eval", expr]);
        assert!(o.status.success(), "{expr}: {}", stderr(&o));
        assert_eq!(stdout(&o).trim(), want, "{expr}");
    }
}

#[test]
fn json_is_one_object() {
    let o = layout(&["eval", "--json", "(2,3):(3,1)"]);
    assert_eq!(
        stdout(&o),
        "{\"kind\":\"layout\",\"text\":\"(2,3):(3,1)\",\"size\":6,\"cosize\":6,\"rank\":2,\"depth\":1,\"values\":[0,3,1,4,2,5]}\n"
    );
    let o = layout(&["--json", "eval", "crd2idx(5, (2,3):(3,1))"]);
    assert_eq!(stdout(&o), "{\"kind\":\"int\",\"value\":5}\n");
    let o = layout(&["eval", "--json", "idx2crd(5, (2,3))"]);
    assert_eq!(stdout(&o), "{\"kind\":\"tuple\",\"text\":\"(1,2)\"}\n");
}

#[test]
fn bad_input_is_one_line_and_status_1() {
    for (args, want) in [
        // (With the `)` the text would be a by-mode tiler, `<8, (4,2):(1,8)>`.)
        (vec!["eval", "(8,(4,2):(1,8)"], "column 15: expected `,` or `)`"),
        (vec!["eval", "crd2idx((1,2,3), (4,(2,3)):(3,(1,8)))"], "rank 3 but the shape has rank 2"),
        (vec!["eval", "(8,(4,0)):(1,8)"], "shape integer 2 is 0"),
        (vec!["eval", "(8,x):(1,8)"], "found `x`"),
        (vec!["eval", "size((99999999999,99999999999))"], "overflows"),
        (vec!["eval", "99999999999999999999999"], "an integer within isize"),
        (vec!["eval", "nope(1)"], "unknown function `nope`"),
        (vec!["eval"], "needs an expression"),
        (vec!["frobnicate"], "unknown command"),
    ] {
        let o = layout(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(stdout(&o).is_empty());
        // The same with --json: one JSON object on stdout.
        let mut j = args.clone();
        j.push("--json");
        let o = layout(&j);
        assert_eq!(o.status.code(), Some(1));
        let out = stdout(&o);
        assert!(
            out.starts_with("{\"error\":\"") && out.ends_with("\"}\n") && out.lines().count() == 1,
            "{out}"
        );
    }
}

#[test]
fn random_garbage_never_panics() {
    // A deterministic sweep over short strings of CuTe's alphabet: every answer is a value or a
    // one-line error, never a crash.
    let alphabet = ['(', ')', '_', ',', ':', '-', '1', '2', '0', ' ', 'x'];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..60 {
        let len = (seed % 12) as usize + 1;
        let mut s = String::new();
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        let o = layout(&["eval", &s]);
        assert!(matches!(o.status.code(), Some(0) | Some(1)), "{s:?}: {}", stderr(&o));
    }
}

/// The picture commands (`table`, `latex`, `svg`).
mod pictures {
    use super::*;
    use std::path::PathBuf;

    /// A failure: exit status 1 (not a panic's 101), nothing on stdout, one line on stderr.
    fn fails(args: &[&str], message: &str) {
        let o = layout(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("layout: ") && err.contains(message), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }

    #[test]
    fn table_prints_cutes_print_layout() {
        let o = layout(&["table", "(_4,(_2,_2)):(_2,(_1,_8))"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.starts_with("(_4,(_2,_2)):(_2,(_1,_8))\n"), "{out}");
        assert!(out.contains(" 3  |  6 |  7 | 14 | 15 |\n"), "{out}");
        // An expression, as `eval` takes it; its words may come as several arguments.
        let o = layout(&["table", "logical_divide((_8,_6):(_1,_8),", "<_4:_1, _3:_1>)"]);
        assert!(stdout(&o).starts_with("((_4,_2),(_3,_2)):((_1,_4),(_8,_24))\n"), "{}", stderr(&o));
        fails(
            &["table", "_8:_1"],
            "`table` prints a rank-2 layout (CuTe's print_layout); `_8:_1` is _8:_1, of rank 1",
        );
        fails(&["table", "(2,3)"], "`(2,3)` is an int tuple");
        fails(&["table", "make_identity_layout((_4,_8))"], "basis strides");
        fails(&["table"], "`table` needs an expression");
    }

    #[test]
    fn latex_is_cutes_print_latex() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/latex");
        for (name, expr) in [
            ("rowmajor_2x3", "(_2,_3):(_3,_1)"),
            ("swizzle_8x8", "composition(Sw<3,0,3>, (_8,_8):(_8,_1))"),
            ("tv_8x4", "make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))"),
        ] {
            let o = layout(&["latex", expr]);
            assert!(o.status.success(), "{expr}: {}", stderr(&o));
            assert_eq!(
                stdout(&o),
                std::fs::read_to_string(dir.join(format!("{name}.tex"))).unwrap(),
                "{expr}"
            );
        }
        fails(
            &["latex", "(2,3,4):(1,2,6)"],
            "the layout has rank 3; a picture needs rank at most 2 in `(2,3,4):(1,2,6)`",
        );
        fails(&["latex", "Sw<3,4,3>"], "`Sw<3,4,3>` is a swizzle");
        fails(&["latex", "size((2,3)"], "column");
        let o = layout(&["latex", "--json", "(2,3)"]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(stdout(&o), "{\"error\":\"`--json` applies to `eval`; `latex` prints a picture\"}\n");
    }

    #[test]
    fn svg_writes_a_file_or_stdout() {
        let dir = std::env::temp_dir().join(format!("cli_picture_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("sw.svg");
        let file_s = file.to_str().unwrap();
        let expr = "composition(Sw<3,3,3>, (_8,_64):(_64,_1))";
        let o = layout(&["svg", "-o", file_s, expr]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), "");
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.starts_with("<?xml") && written.ends_with("</svg>\n"));
        assert_eq!(written.matches("<rect").count(), 1 + 512);
        // Without -o, the same document on stdout; -o may also come last.
        let o = layout(&["svg", expr]);
        assert_eq!(stdout(&o), written);
        let o = layout(&["svg", expr, "--output", file_s]);
        assert!(o.status.success() && stdout(&o).is_empty());
        // Bank groups: 32 banks of 4-byte words, 2-byte elements.
        let o = layout(&["svg", "--bank-groups", "2,32", expr]);
        assert!(stdout(&o).contains("colour: bank group (offset / 2) mod 32"), "{}", stderr(&o));

        let tv = layout(&["svg", "make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))"]);
        let tv = stdout(&tv);
        assert_eq!(tv.matches("<rect").count(), 1 + 32);
        assert!(tv.contains(">T7</text>") && tv.contains(">V3</text>"));
        let plain = stdout(&layout(&["svg", "(8,(4,2)):(1,8)"]));
        assert_eq!(plain.matches("<rect").count(), 1 + 64);
        assert!(plain.contains("<title>Layout: (8,(4,2)):(1,(8,32))</title>"));

        fails(&["svg", "-o"], "`-o` needs a file name");
        fails(
            &["svg", "--bank-groups", "2", expr],
            "`--bank-groups` needs UNIT,COUNT (two integers), got `2`",
        );
        fails(&["svg", "--bank-groups", "0,32", expr], "bank groups need a positive unit and count");
        fails(
            &["svg", "--bank-groups", "2,32", "(4,8):(1,4)"],
            "`--bank-groups` colours a composed (swizzled) layout",
        );
        fails(&["svg", "(_256,_128):(_1,_256)"], "the layout has 32768 cells; a picture draws at most 16384");
        fails(&["svg", "make_identity_layout((_4,_8))"], "basis strides");
        fails(&["svg"], "`svg` needs an expression");
        let missing = dir.join("no/such/dir/x.svg");
        fails(&["svg", "-o", missing.to_str().unwrap(), "(4,8):(1,4)"], "cannot write");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn help_lists_the_picture_commands() {
        let out = stdout(&layout(&["--help"]));
        for want in
            ["layout table EXPR", "layout latex EXPR", "layout svg [-o FILE] [--bank-groups UNIT,COUNT] EXPR"]
        {
            assert!(out.contains(want), "{want}: {out}");
        }
    }
}

/// Inputs that once crashed the tool, each now a one-line error with status 1 (or a quiet end).
mod hostile {
    use super::*;
    use std::ffi::OsStr;
    use std::process::Stdio;

    fn fails_on_one_line(args: &[&OsStr], message: &str) {
        let o = Command::new(env!("CARGO_BIN_EXE_layout")).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.chars().count() < 500, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }

    fn s(x: &str) -> &OsStr {
        OsStr::new(x)
    }

    #[test]
    fn deep_nesting_is_an_error_naming_the_limit() {
        let parens = "(".repeat(313);
        fails_on_one_line(&[s("eval"), s(&parens)], "at most 16 nested parentheses");
        let calls = "coalesce(".repeat(139);
        fails_on_one_line(&[s("eval"), s(&calls)], "at most 16 nested parentheses");
        let huge = "(".repeat(100_000);
        fails_on_one_line(&[s("eval"), s(&huge)], "at most 16384 are read");
        fails_on_one_line(&[s("table"), s(&parens)], "at most 16 nested parentheses");
    }

    #[cfg(unix)]
    #[test]
    fn arguments_that_are_not_utf8_are_an_error() {
        use std::os::unix::ffi::OsStrExt;
        let bad = OsStr::from_bytes(b"\xff");
        fails_on_one_line(&[s("eval"), bad], "argument 2 is not UTF-8");
        fails_on_one_line(&[bad], "argument 1 is not UTF-8");
    }

    #[test]
    fn calls_with_missing_arguments_are_errors() {
        fails_on_one_line(&[s("eval"), s("slice()")], "`slice` takes 2 arguments, got 0");
        fails_on_one_line(&[s("eval"), s("slice((_,1), (), (4,4):(1,4))")], "takes 2 arguments, got 3");
        fails_on_one_line(&[s("eval"), s("slice_and_offset<0>(4)")], "takes 2 arguments, got 1");
        let nine = ["4:1"; 9].join(", ");
        fails_on_one_line(&[s("eval"), s(&format!("make_layout({nine})"))], "at most 8 arguments");
    }

    #[test]
    fn tables_are_bounded() {
        fails_on_one_line(
            &[s("table"), s("(10000,10000):(1,10000)")],
            "`table` prints at most 65536 cells; `(10000,10000):(1,10000)` has 100000000",
        );
        fails_on_one_line(&[s("table"), s("complement(4:2, 4294967296)")], "has 1073741824");
        let o = layout(&["eval", "--json", "(2048,1024):(1,2048)"]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stdout(&o),
            "{\"error\":\"the layout has 2097152 offsets; --json lists at most 1048576\"}\n"
        );
    }

    #[test]
    fn json_values_that_overflow_are_an_error() {
        let o = layout(&["eval", "--json", "9223372036854775807 + Sw<1,0,1> o _0 o _4:_1"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stdout(&o).starts_with("{\"error\":\"the cosize of the layout overflows isize"),
            "{}",
            stdout(&o)
        );
    }

    #[test]
    fn errors_echo_input_escaped_and_truncated() {
        fails_on_one_line(&[s("eval"), s("\n")], "in `\\n`");
        let long = format!("({}", "1,".repeat(50_000));
        let o = layout(&["eval", &long]);
        let err = stderr(&o);
        assert!(err.lines().count() == 1 && err.contains("…`") && err.chars().count() < 500, "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_full_disk_is_an_error_and_a_closed_pipe_a_quiet_end() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_layout")).arg("--help").stdout(full).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.starts_with("layout: cannot write the output:") && err.lines().count() == 1, "{err}");
        // `| head -c 10`: the reader goes away after 10 bytes.
        let mut child = Command::new(env!("CARGO_BIN_EXE_layout"))
            .args(["table", "(256,256):(1,256)"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 10];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
    }

    #[test]
    fn what_eval_prints_evaluates_back() {
        for expr in [
            "slice_and_offset((_,2), Sw<3,4,3> o _0 o (_8,_64):(_64,_1))",
            "local_tile(make_identity_layout((12,16)), <_4:_1, _8:_1>, (1,1))",
            "make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))",
            "composition(Sw<3,4,3>, (_8,_64):(_64,_1))",
            "make_identity_layout((_4,(_2,3)))",
            "(_,(1,_))",
            "<_, _4:_2, (_2,_2)>",
        ] {
            let first = stdout(&layout(&["eval", expr]));
            let again = stdout(&layout(&["eval", first.trim()]));
            assert_eq!(first, again, "{expr}");
            // --json's text is the same text (a partition's and a TV layout's in parts).
            let j = stdout(&layout(&["eval", "--json", expr]));
            if !first.contains(" + ") && !first.contains(", ") {
                assert!(j.contains(&format!("\"text\":\"{}\"", first.trim())), "{j}");
            }
        }
    }
}

#[test]
fn functions_lists_exactly_the_table_of_operations() {
    let o = layout(&["functions"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let table = const_layout::eval::OPERATIONS;
    assert_eq!(lines.len(), table.len(), "{out}");
    for (line, e) in lines.iter().zip(table) {
        assert_eq!(*line, format!("{}{}", e.name, e.args));
    }
    // Every listed name is one the evaluator knows.
    for e in table {
        assert!(!matches!(
            const_layout::eval::eval(&format!("{}()", e.name)),
            Err(const_layout::eval::EvalError::UnknownFunction { .. })
        ));
    }
}

/// `ldmatrix` reads of an 8 x 64 tile of halves: lane l at row l % 8, chunk l / 8, 8 halves each.
const LDSM_READ: &str = "((_8,_4),_8):((_1,_64),_8)";
/// 16-byte `cp.async` writes: thread t at row t / 8, chunk t % 8.
const CP_ASYNC_WRITE: &str = "((_8,_4),_8):((_64,_1),_8)";

#[test]
fn conflicts_counts_wavefronts_of_an_access() {
    let sw = layout(&["conflicts", LDSM_READ, "composition(Sw<3,3,3>, (_8,_64):(_64,_1))"]);
    assert!(sw.status.success(), "{}", stderr(&sw));
    assert_eq!(
        stdout(&sw),
        "4 wavefronts, 4 without conflicts: 0 extra (1.00x); 32 threads, vectors of 8 x 2 bytes, ld\n"
    );
    let plain = layout(&["conflicts", LDSM_READ, "(_8,_64):(_64,_1)"]);
    assert!(
        stdout(&plain).starts_with("32 wavefronts, 4 without conflicts: 28 extra (8.00x)"),
        "{}",
        stdout(&plain)
    );
    // 4-byte accesses of f32 down a column of a 32 x 32 row-major tile: 32-way.
    let col = layout(&["conflicts", "(_32,_1):(_1,_0)", "(_32,_32):(_32,_1)", "--bytes", "4", "--vec", "1"]);
    assert!(stdout(&col).starts_with("32 wavefronts, 1 without conflicts"), "{}", stdout(&col));
}

#[test]
fn swizzle_for_finds_cutlass_swizzle() {
    let o = layout(&["swizzle-for", CP_ASYNC_WRITE, LDSM_READ, "(_8,_64):(_64,_1)"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "Sw<3,3,3>: write vectors of 8, 4 wavefronts (0 extra); read vectors of 8, 4 wavefronts (0 extra)\n\
         padding ties with it, at a cost in memory: rows of 64 elements padded by 8 (+128 bytes): write vectors of 8, 4 wavefronts (0 extra); read vectors of 8, 4 wavefronts (0 extra)\n\
         no linear layout over F2 does better\n"
    );
    // Writes whose phases read rows 0..7, reads whose phases read the even or the odd rows: no
    // Sw<B,M,S> serves both; an XOR of the row bits into the chunk does.
    let o = layout(&[
        "swizzle-for",
        "((_8,_4,_2),(_8,_2)):((_64,_8,_512),(_1,_32))",
        "((_8,_4,_2),(_8,_2)):((_128,_8,_64),(_1,_32))",
        "_1024:_1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Sw<3,3,3>: write vectors of 8, 16 wavefronts (0 extra); read vectors of 8, 32 wavefronts (16 extra)"
    );
    assert!(lines[1].starts_with("padding "), "{}", lines[1]);
    assert_eq!(
        lines[2],
        "a linear layout over F2 does better: write vectors of 8, 16 wavefronts (0 extra); read vectors of 8, 16 wavefronts (0 extra)"
    );
    // The offsets it prints give that count: check them with `conflicts` through the layout they
    // spell (bit i of the element to the i-th offset).
    let offsets: Vec<u32> =
        lines[3].rsplit(": ").next().unwrap().split(' ').map(|t| t.parse().unwrap()).collect();
    assert_eq!(offsets.len(), 10);
    // Not a plain layout (it XORs), so checked by the library's evaluation.
    let smem = const_layout::linear::LinearLayout::new(&offsets, 10).unwrap();
    let read = const_layout::synthesis::Access {
        kind: const_layout::bank::AccessKind::Load,
        tv: const_layout::linear::LinearLayout::new(&[128, 256, 512, 8, 16, 64, 1, 2, 4, 32], 10).unwrap(),
        thread_bits: 6,
        vec: 8,
    };
    let (vec, c) =
        const_layout::synthesis::evaluate_linear(&const_layout::bank::NVIDIA, &smem, 2, &read).unwrap();
    assert_eq!((vec, c.wavefronts, c.extra()), (8, 16, 0));
}

#[test]
fn conflicts_errors_are_one_line() {
    for (args, want) in [
        (
            vec!["conflicts", "(_32,_8):(_64,_1)", "(_8,_64):(_64,_1)"],
            "reaches tile elements up to 1991; the shared-memory layout has 512",
        ),
        (
            vec!["conflicts", LDSM_READ, "(_8,_64):(_64,_1)", "--vec", "3"],
            "`--vec` takes a power of two from 1 to 16, not `3`",
        ),
        (
            vec!["conflicts", "(_3,_8):(_1,_3)", "(_8,_64):(_64,_1)"],
            "bank conflicts: a vector not contiguous in memory, of thread: 0",
        ),
        (vec!["conflicts", LDSM_READ, "_512:_1", "--op", "ldmatrix.x3"], "`--op` takes ld, st, ldmatrix"),
        (
            vec!["conflicts", LDSM_READ, "_512:_1", "--op", "ldmatrix", "--vec", "4"],
            "the bytes a lane gives an ldmatrix/stmatrix (one 16-byte row): 8",
        ),
        (vec!["conflicts", "--addresses", "0,4,x"], "`x` in `--addresses` is not an address"),
        (
            vec!["conflicts", "--addresses", "0,4", "--bytes", "8"],
            "instruction 0: bank conflicts: an address not aligned to its access: 4",
        ),
        (
            vec!["coalescing", "--addresses", "2", "--bytes", "4"],
            "coalescing: an address not aligned to its access: 2",
        ),
        (
            vec!["coalescing", "(_32,_4):(_4,_1)", "_64:_1", "--bytes", "4", "--vec", "4"],
            "reaches tile elements up to 127; the global-memory layout has 64",
        ),
        (vec!["conflicts", LDSM_READ], "`conflicts` takes a TV layout and a shared-memory layout"),
        (vec!["swizzle-for", LDSM_READ, "(_8,_64):(_64,_1)"], "`swizzle-for` takes a write TV layout"),
        (
            vec!["conflicts", "(_32,(_8,_32768)):(_8,(_1,_256))", "(_16384,_512):(_512,_1)"],
            "has 8388608 (thread, value) pairs; `conflicts` takes at most 2^22",
        ),
        (vec!["conflicts", LDSM_READ, "composition(Sw<3,3,3>, _0)"], "composition"),
    ] {
        let o = layout(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(want) && e.lines().count() == 1, "{args:?}: {e}");
    }
}

#[test]
fn conflicts_draws_the_phases_with_conflicts_in_red() {
    let dir = std::env::temp_dir().join(format!("layout-conflicts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (plain, swizzled) = (dir.join("plain.svg"), dir.join("sw.svg"));
    for (smem, path) in
        [("(_8,_64):(_64,_1)", &plain), ("composition(Sw<3,3,3>, (_8,_64):(_64,_1))", &swizzled)]
    {
        let o = layout(&["conflicts", LDSM_READ, smem, "--svg", path.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (p, s) = (std::fs::read_to_string(&plain).unwrap(), std::fs::read_to_string(&swizzled).unwrap());
    // Plain: 4 phases of 8 lanes on the same 4 banks, 8 words each: every word conflicts.
    assert_eq!(p.matches("stroke=\"red\"").count(), 4 * 8 * 4);
    assert!(p.contains("phase 3: lanes 24-31, 8 wavefronts"), "{p}");
    // Swizzled: none.
    assert_eq!(s.matches("stroke=\"red\"").count(), 0);
    assert!(s.contains("phase 0: lanes 0-7, 1 wavefronts"), "{s}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The guide for CuTe users (`const_layout::guide::for_cute_users`) runs an example of every
/// function `layout functions` lists (its code blocks are doctests, so each example is checked).
#[test]
fn the_cute_guide_covers_every_function() {
    let guide = include_str!("../../cute/src/guide/for_cute_users.md");
    let o = layout(&["functions"]);
    assert!(o.status.success());
    let listed = stdout(&o);
    let names: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next())
        .filter(|n| !n.is_empty())
        .collect();
    assert!(names.len() > 70, "{listed}");
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| !guide.contains(&format!("ev(\"{n}(")) && !guide.contains(&format!("ev(\"{n}<")))
        .collect();
    assert!(missing.is_empty(), "no example in the guide for {missing:?}");
}

/// `cosize` with a negative stride is the span of the offsets (DECISIONS.md, decision 14), the
/// same in the text, the JSON and the library.
#[test]
fn cosize_is_the_span_everywhere() {
    for (expr, span) in [("4:-1", 4), ("(4,2):(-1,4)", 8), ("(_3,_2):(_-2,_-5)", 10), ("(4,2):(2,1)", 8)] {
        let o = layout(&["eval", &format!("cosize({expr})")]);
        assert_eq!(stdout(&o).trim().trim_start_matches('_'), span.to_string(), "{expr}");
        let j = stdout(&layout(&["eval", "--json", expr]));
        assert!(j.contains(&format!("\"cosize\":{span},")), "{expr}: {j}");
        let l: const_layout::dyn_layout::DynLayout = expr.parse().unwrap();
        assert_eq!(l.cosize().value, span, "{expr}");
    }
}

#[test]
fn conflicts_takes_any_layout_addresses_and_access_kinds() {
    let first = |args: &[&str]| -> String {
        let o = layout(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o).split(';').next().unwrap().to_string()
    };
    // A column of a 32 x 32 f32 tile: 32-way; padded by a word ((32,32):(33,1)), none.
    let tv = "(_32,_32):(_1,_32)";
    assert_eq!(
        first(&["conflicts", tv, "(_32,_32):(_32,_1)", "--bytes", "4", "--vec", "1"]),
        "1024 wavefronts, 32 without conflicts: 992 extra (32.00x)"
    );
    assert_eq!(
        first(&["conflicts", tv, "(_32,_32):(_33,_1)", "--bytes", "4", "--vec", "1"]),
        "32 wavefronts, 32 without conflicts: 0 extra (1.00x)"
    );
    // Extents and strides that are not powers of two: 24 threads down a 24 x 20 column of halves
    // padded to 22 (44-byte rows: 11 words, odd, so every row starts on another bank).
    assert_eq!(
        first(&["conflicts", "(_24,_20):(_1,_24)", "(_24,_20):(_22,_1)", "--bytes", "2", "--vec", "1"]),
        "20 wavefronts, 20 without conflicts: 0 extra (1.00x)"
    );
    // A swizzle over a padded tile is simulated too.
    let o = layout(&["conflicts", LDSM_READ, "composition(Sw<3,3,3>, (_8,_64):(_72,_1))"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Partial broadcast: 16-byte loads whose lanes share addresses in pairs take 2 phases, the
    // same stores 4 (measured on the H200: PERFORMANCE.md).
    let pairs: Vec<String> = (0..32).map(|l| (16 * (l / 2)).to_string()).collect();
    let pairs = pairs.join(",");
    assert_eq!(
        stdout(&layout(&["conflicts", "--addresses", &pairs, "--bytes", "16"])),
        "2 wavefronts, 2 without conflicts: 0 extra (1.00x); 1 instruction of ld, 16 bytes a lane\n"
    );
    assert_eq!(
        first(&["conflicts", "--addresses", &pairs, "--bytes", "16", "--op", "st"]),
        "4 wavefronts, 4 without conflicts: 0 extra (1.00x)"
    );
    // ldmatrix.x1 reads lanes 0-7 only; lanes left out with `-`; several instructions.
    let rows: Vec<String> = (0..32).map(|l| (128 * l).to_string()).collect();
    assert_eq!(
        first(&["conflicts", "--addresses", &rows.join(","), "--op", "ldmatrix.x1"]),
        "8 wavefronts, 1 without conflicts: 7 extra (8.00x)"
    );
    assert_eq!(
        stdout(&layout(&["conflicts", "--addresses", "0,-,-,4;0 128", "--bytes", "4"])),
        "3 wavefronts, 2 without conflicts: 1 extra (1.50x); 2 instructions of ld, 4 bytes a lane\n"
    );
    // Pictures of any access: a padded tile, and paired 16-byte loads in two phases of 16 lanes.
    let dir = std::env::temp_dir().join(format!("layout-any-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("paired.svg");
    let o = layout(&[
        "conflicts",
        "((_2,_16),_4):((_0,_4),_1)",
        "_1024:_1",
        "--bytes",
        "4",
        "--vec",
        "4",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("phase 1: lanes 16-31, 1 wavefronts") && !text.contains("phase 2"), "{text}");
    let o = layout(&[
        "conflicts",
        tv,
        "(_32,_32):(_33,_1)",
        "--bytes",
        "4",
        "--vec",
        "1",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("phase 0: lanes 0-31, 1 wavefronts"));
    std::fs::remove_dir_all(&dir).unwrap();
    // The same access as a layout and as its addresses agree.
    let o = layout(&["conflicts", LDSM_READ, "(_8,_64):(_64,_1)", "--op", "ldmatrix.x4.trans"]);
    assert!(stdout(&o).starts_with("32 wavefronts, 4 without conflicts"), "{}", stdout(&o));
}

#[test]
fn coalescing_counts_sectors_and_lines() {
    // 32 threads, 4 floats each (16-byte vectors), consecutive: 16 sectors, 4 lines a request.
    let o = layout(&["coalescing", "(_32,_4):(_4,_1)", "_128:_1", "--bytes", "4", "--vec", "4"]);
    assert_eq!(
        stdout(&o),
        "1 request: 16 sectors (16.00 a request, the fewest 16: 1.00x), 4 lines (4.00 a request, the fewest 4); 32 threads, vectors of 4 x 4 bytes\n"
    );
    // A transposed read: thread t reads row t of a row-major 32 x 32 f32 matrix.
    let o = layout(&["coalescing", "(_32,_32):(_1,_32)", "(_32,_32):(_32,_1)", "--bytes", "4", "--vec", "1"]);
    assert!(
        stdout(&o).starts_with("32 requests: 1024 sectors (32.00 a request, the fewest 128: 8.00x)"),
        "{}",
        stdout(&o)
    );
    // Misaligned by the base: a fifth sector.
    let o =
        layout(&["coalescing", "(_32,_1):(_1,_0)", "_32:_1", "--bytes", "4", "--vec", "1", "--base", "4"]);
    assert!(stdout(&o).starts_with("1 request: 5 sectors"), "{}", stdout(&o));
    assert_eq!(
        stdout(&layout(&["coalescing", "--json", "--addresses", "4,8,132", "--bytes", "4"])),
        "{\"requests\":1,\"sectors\":2,\"lines\":2,\"min_sectors\":1,\"min_lines\":1}\n"
    );
    assert_eq!(
        stdout(&layout(&["conflicts", "--json", "--addresses", "0,128", "--op", "st"])),
        "{\"wavefronts\":2,\"ideal\":1,\"extra\":1,\"op\":\"st\"}\n"
    );
    let o = layout(&["coalescing", "--addresses", "0,32,64,96,-", "--bytes", "16"]);
    assert!(
        stdout(&o).starts_with("1 request: 4 sectors (4.00 a request, the fewest 2: 2.00x), 1 lines"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn swizzle_for_sets_padding_beside_the_swizzle() {
    // Writes along rows, reads down columns of a 32 x 32 f32 tile: Sw<5,0,5> and padding by a
    // word both remove every conflict; the padding costs 128 bytes.
    let o = layout(&[
        "swizzle-for",
        "(_32,_32):(_32,_1)",
        "(_32,_32):(_1,_32)",
        "(_32,_32):(_32,_1)",
        "--bytes",
        "4",
        "--vec-write",
        "1",
        "--vec-read",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("0 extra); read vectors of 1, 32 wavefronts (0 extra)"), "{out}");
    assert!(
        out.contains(
            "padding ties with it, at a cost in memory: rows of 32 elements padded by 1 (+128 bytes)"
        ),
        "{out}"
    );
}

/// The repository's copy of a playground file (`web/site`).
fn site_file(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/site").join(name))
        .expect("web/site holds the playground")
}

const SITE_FILES: [&str; 4] = ["index.html", "app.js", "style.css", "const_layout_web.wasm"];

#[test]
fn site_writes_the_playground() {
    let dir = std::env::temp_dir().join(format!("const-layout-site-{}", std::process::id()));
    let o = layout(&["site", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("wrote the playground (4 files) to "), "{}", stdout(&o));
    for name in SITE_FILES {
        assert!(std::fs::read(dir.join(name)).unwrap() == site_file(name), "{name} differs from web/site's");
    }
    // The module is WebAssembly: its magic number and version 1.
    assert_eq!(&site_file("const_layout_web.wasm")[..8], b"\0asm\x01\0\0\0");
    std::fs::remove_dir_all(&dir).unwrap();
    let o = layout(&["site"]);
    assert_eq!(
        stderr(&o),
        "layout: `site` takes the directory to write the page into, e.g. layout site ./playground\n"
    );
    let o = layout(&["site", "/proc/no/such/dir"]);
    assert!(stderr(&o).starts_with("layout: cannot write `/proc/no/such/dir`: "), "{}", stderr(&o));
}

/// One HTTP request to `addr`: the status line, the headers and the body.
fn http(addr: &str, request: &str) -> (String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect to layout serve");
    s.write_all(request.as_bytes()).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head") + 4;
    (String::from_utf8(all[..split].to_vec()).unwrap(), all[split..].to_vec())
}

#[test]
fn serve_serves_the_playground() {
    use std::io::BufRead;
    /// The server, stopped however the test ends (a failed assertion too).
    struct Server(std::process::Child);
    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_layout"))
            .args(["serve", "--port", "0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("run layout serve"),
    );
    let mut line = String::new();
    std::io::BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line
        .strip_prefix("serving http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    for (path, name) in [("/", "index.html"), ("/app.js", "app.js"), ("/style.css", "style.css")]
        .into_iter()
        .chain([("/const_layout_web.wasm?v=1", "const_layout_web.wasm")])
    {
        let (head, body) = http(&addr, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"));
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{path}: {head}");
        assert!(head.contains("Cross-Origin-Opener-Policy: same-origin\r\n"), "{head}");
        assert!(head.contains("Cross-Origin-Embedder-Policy: require-corp\r\n"), "{head}");
        assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())), "{head}");
        assert!(body == site_file(name), "{path} differs from web/site/{name}");
    }
    let (head, _) = http(&addr, "GET /const_layout_web.wasm HTTP/1.1\r\n\r\n");
    assert!(head.contains("Content-Type: application/wasm\r\n"), "{head}");
    let (head, body) = http(&addr, "HEAD / HTTP/1.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n") && body.is_empty(), "{head}");
    let (head, _) = http(&addr, "GET /../Cargo.toml HTTP/1.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 404 Not Found\r\n"), "{head}");
    let (head, _) = http(&addr, "POST / HTTP/1.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"), "{head}");
    let (head, _) = http(&addr, &format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(20_000)));
    assert!(head.starts_with("HTTP/1.1 431 "), "{head}");
    drop(server);
    let o = layout(&["serve", "--port", "70000"]);
    assert_eq!(stderr(&o), "layout: `--port` takes 0 to 65535, not `70000`\n");
}

#[test]
fn conflicts_svg_dash_prints_the_picture() {
    let (tv, smem) = ("((_8,_4),_8):((_1,_64),_8)", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))");
    let file = std::env::temp_dir().join(format!("const-layout-conflicts-{}.svg", std::process::id()));
    let o = layout(&["conflicts", tv, smem, "--svg", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = layout(&["conflicts", tv, smem, "--svg", "-"]);
    assert_eq!(stdout(&o), std::fs::read_to_string(&file).unwrap());
    assert!(stdout(&o).starts_with("<svg"));
    std::fs::remove_file(&file).unwrap();
    let o = layout(&["conflicts", "--json", tv, smem, "--svg", "-"]);
    assert_eq!(
        stdout(&o),
        "{\"error\":\"`--svg -` prints the picture instead of the report: not with `--json`\"}\n"
    );
}

/// The playground in a real browser: every function's expressions, pictures, errors, the views,
/// the URL round trip, against this binary's own output (tools/web/browser_test.py).
#[test]
#[ignore = "needs Chromium and chromedriver (tools/web/install-browser.sh); CI installs them and runs it"]
fn playground_in_a_browser() {
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new("python3")
        .arg(format!("{root}/tools/web/browser_test.py"))
        .args(["--layout", env!("CARGO_BIN_EXE_layout")])
        .current_dir(root)
        .output()
        .expect("run python3 tools/web/browser_test.py");
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn atom_prints_cutes_layouts() {
    let o = layout(&["atom"]);
    let names = stdout(&o);
    for name in [
        "SM80_16x8x16_F32F16F16F32_TN",
        "SM90_64x128x16_F32BF16BF16_RS",
        "SM75_U16x8_LDSM_T",
        "UniversalCopy<uint32_t>",
    ] {
        assert!(names.lines().any(|l| l == name), "{name} in {names}");
    }
    // CuTe's mma_traits_sm80.hpp: SM80_16x8_Row and SM80_16x8x16's A and B layouts.
    let o = layout(&["atom", "SM80_16x8x16_F32F16F16F32_TN"]);
    let text = stdout(&o);
    assert!(text.contains("  CLayout   ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n"), "{text}");
    assert!(text.contains("  ALayout   ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))\n"), "{text}");
    assert!(text.contains("  BLayout   ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n"), "{text}");
    // CuTe's ldmatrix x4: the destination's (thread, value) -> bit.
    let o = layout(&["atom", "SM75_U32x4_LDSM_N"]);
    assert!(stdout(&o).contains("  DstLayout (_32,(_32,_4)):(_32,(_1,_1024))\n"), "{}", stdout(&o));
    // The C operand's picture is the TV picture of (CLayout, (M, N)).
    let o = layout(&["atom", "SM80_16x8x16_F32F16F16F32_TN", "--svg", "C"]);
    assert!(stdout(&o).starts_with("<?xml") && stdout(&o).contains(">T31<"), "{}", stderr(&o));
    for (args, want) in [
        (
            &["atom", "nope"][..],
            "no atom named `nope`; `layout atom` lists them (e.g. SM80_16x8x16_F32F16F16F32_TN)",
        ),
        (
            &["atom", "SM75_U32x4_LDSM_N", "--svg", "A"][..],
            "SM75_U32x4_LDSM_N is a copy atom, whose layouts map to bits: no picture",
        ),
        (
            &["atom", "SM80_16x8x16_F32F16F16F32_TN", "--svg", "D"][..],
            "`--svg` takes A, B or C (an MMA atom's operand), not `D`",
        ),
    ] {
        assert_eq!(stderr(&layout(args)), format!("layout: {want}\n"));
    }
}

#[test]
fn tma_box_names_the_box_or_why_not() {
    for (args, want) in [
        // Rows of 64 halves under Swizzle<3,4,3> on bytes: the 128-byte mode (CuTe's SW128 atom).
        (
            &["tma-box", "composition(Sw<3,3,3>, (_64,_64):(_64,_1))"][..],
            "boxDim {64, 64} (16-bit elements: 64 a row, 64 rows), CU_TENSOR_MAP_SWIZZLE_128B; 8192 bytes a load, the destination aligned to 1024 bytes\n",
        ),
        (
            &["tma-box", "composition(Sw<2,3,3>, (_16,_32):(_32,_1))"][..],
            "boxDim {32, 16} (16-bit elements: 32 a row, 16 rows), CU_TENSOR_MAP_SWIZZLE_64B; 1024 bytes a load, the destination aligned to 512 bytes\n",
        ),
        (
            &["tma-box", "(_16,_8):(_8,_1)", "--bits", "32"][..],
            "boxDim {8, 16} (32-bit elements: 8 a row, 16 rows), CU_TENSOR_MAP_SWIZZLE_NONE; 512 bytes a load, the destination aligned to 128 bytes\n",
        ),
    ] {
        let o = layout(args);
        assert_eq!(stdout(&o), want, "{args:?}: {}", stderr(&o));
    }
    let o = layout(&["tma-box", "(_64,_64):(_1,_64)"]);
    assert_eq!(
        stderr(&o),
        "layout: no TMA box writes `(_64,_64):(_1,_64)`: make_tma_box: not a canonical layout: the first index whose offset is not row-major and dense is 1\n"
    );
    let o = layout(&["tma-box", "(_8,_8):(_8,_1)", "--bits", "12"]);
    assert!(stderr(&o).contains("the element width in bits (8, 16, 32 or 64)"), "{}", stderr(&o));
}

/// A layout's offsets in order (`eval --json`'s `values`).
fn offsets(expr: &str) -> Vec<i64> {
    let o = layout(&["eval", "--json", expr]);
    let s = stdout(&o);
    let at = s.find("\"values\":[").unwrap_or_else(|| panic!("{expr}: {s}{}", stderr(&o))) + 10;
    let end = at + s[at..].find(']').unwrap();
    s[at..end].split(',').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect()
}

/// `steps`' map, checked element by element against the evaluator: a divide's or a
/// composition's result is `A` composed with the map read label-major (the result's own order);
/// a product's map is a bijection onto the result's indices under which each copy is `A`
/// translated.
#[test]
fn steps_say_where_each_element_lands() {
    let map_of = |expr: &str| {
        let o = layout(&["steps", expr]);
        assert!(o.status.success(), "{expr}: {}", stderr(&o));
        let text = stdout(&o);
        text.lines().nth(2).and_then(|l| l.rsplit_once(": ")).map(|(_, m)| m.to_string()).unwrap()
    };
    for (expr, a, zipped) in [
        (
            "logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)",
            "(_8,_8):(_8,_1)",
            "zipped_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)",
        ),
        (
            "tiled_divide((6,(2,4)):(1,(6,12)), <_3:_1, _4:_2>)",
            "(6,(2,4)):(1,(6,12))",
            "zipped_divide((6,(2,4)):(1,(6,12)), <_3:_1, _4:_2>)",
        ),
        ("flat_divide(_24:_2, _4:_3)", "_24:_2", "zipped_divide(_24:_2, _4:_3)"),
        (
            "composition((_8,_8):(_8,_1), (_4,_2):(_2,_16))",
            "(_8,_8):(_8,_1)",
            "composition((_8,_8):(_8,_1), (_4,_2):(_2,_16))",
        ),
    ] {
        let map = map_of(expr);
        assert_eq!(
            offsets(&format!("composition({a}, select<1,0>({map}))")),
            offsets(zipped),
            "{expr}: map {map}"
        );
    }
    for (expr, a) in [
        ("blocked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))", "(_2,_2):(_1,_2)"),
        ("raked_product((_2,_4):(_4,_1), (_3,_2):(_1,_3))", "(_2,_4):(_4,_1)"),
        ("logical_product((_2,_2):(_2,_1), _3:_1)", "(_2,_2):(_2,_1)"),
    ] {
        let (p, m, a) = (offsets(expr), offsets(&map_of(expr)), offsets(a));
        let mut seen = m.clone();
        seen.sort();
        assert_eq!(seen, (0..p.len() as i64).collect::<Vec<_>>(), "{expr}: a bijection");
        // The map is (copy, element) -> index, copy-major: entry b + copies * e.
        let copies = p.len() / a.len();
        for (e, ae) in a.iter().enumerate() {
            for b in 0..copies {
                let (k, k0) = (m[b + copies * e] as usize, m[b] as usize);
                assert_eq!(p[k] - p[k0], ae - a[0], "{expr}: copy {b}, element {e}");
            }
        }
    }
    let o = layout(&["steps", "blocked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))"]);
    assert_eq!(
        stdout(&o),
        "blocked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))\n  = ((_2,_2),(_2,_3)):((_1,_12),(_2,_4))\n  (copy of A, element of A) -> the result's index, over the result's cells (_4,_6): ((_2,_3),(_2,_2)):((_2,_8),(_1,_4))\n"
    );
    let o = layout(&["steps", "--svg", "logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)"]);
    assert!(stdout(&o).starts_with("<?xml") && stdout(&o).contains(">T7<"), "{}", stderr(&o));
    for (args, want) in [
        (
            &["steps", "size((4,8))"][..],
            "`steps` takes a composition, a divide or a product, e.g. layout steps 'logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)'",
        ),
        (
            &["steps", "coalesce((4,8):(1,4), (_1,_1))"][..],
            "`steps` explains composition, the divides and the products, not `coalesce`",
        ),
    ] {
        assert_eq!(stderr(&layout(args)), format!("layout: {want}\n"));
    }
}

#[test]
fn svg_draws_a_linear_layout_as_its_cute_form_or_its_table() {
    for (linear, cute) in [
        ("linear((_8,_8):(_8,_1))", "(_8,_8):(_8,_1)"),
        ("linear(composition(Sw<3,3,3>, (_8,_64):(_64,_1)))", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))"),
        ("linear((3,1),2)", "to_layout(linear((3,1),2))"),
    ] {
        let (a, b) = (layout(&["svg", linear]), layout(&["svg", cute]));
        assert!(a.status.success(), "{linear}: {}", stderr(&a));
        assert_eq!(stdout(&a), stdout(&b), "{linear}");
    }
    // Without a CuTe form: the function tabulated, index m + n*rows in cell (m, n), values
    // computed here from the bases (the XOR of those of the index's set bits).
    for (expr, bases, bits) in
        [("linear((1,2,3),3)", &[1u32, 2, 3][..], 3u32), ("linear((3,5,6,1,2),3)", &[3, 5, 6, 1, 2], 5)]
    {
        let o = layout(&["svg", expr]);
        assert!(o.status.success(), "{expr}: {}", stderr(&o));
        let values: Vec<Option<isize>> = (0..1usize << bits)
            .map(|i| {
                Some((0..bits as usize).filter(|b| i >> b & 1 == 1).fold(0, |acc, b| acc ^ bases[b]) as isize)
            })
            .collect();
        let Ok(const_layout::eval::Value::Linear(lin)) = const_layout::eval::eval(expr) else {
            panic!("{expr}")
        };
        let rows = 1usize << (bits / 2);
        let caption = format!("{lin}  (no CuTe form: index m + n*{rows} in cell (m, n))");
        let want = const_layout::picture::print_svg_values(&values, rows, &caption).unwrap().to_string();
        assert_eq!(stdout(&o), want, "{expr}");
    }
    let o = layout(&["svg", "linear(composition(Sw<3,3,3>, (_64,_64):(_64,_1)), 15)"]);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}
