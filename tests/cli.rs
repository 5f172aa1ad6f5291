//! The `layout` command-line tool, run as a user runs it.

use std::process::{Command, Output};

fn layout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_layout")).args(args).output().expect("run the layout binary")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn stderr(o: &Output) -> String {
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
        (vec!["eval", "(8,(4,2):(1,8)"], "column 4"),
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
