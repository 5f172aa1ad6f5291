//! The picture commands of the `layout` tool (`table`, `latex`, `svg`), run as a user runs them.

use std::path::PathBuf;
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
        assert_eq!(stdout(&o), std::fs::read_to_string(dir.join(format!("{name}.tex"))).unwrap(), "{expr}");
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
    fails(&["svg", "--bank-groups", "2", expr], "`--bank-groups` needs UNIT,COUNT (two integers), got `2`");
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
