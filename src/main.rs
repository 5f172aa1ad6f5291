//! `layout`: CuTe's layout algebra on the command line.
//!
//! With no arguments, a short tour of the design card's layout `(8,(4,2)):(1,8)`. `layout eval EXPR`
//! evaluates a CuTe expression and prints the result in CuTe notation; `--json` prints one JSON
//! object instead. `layout table EXPR` prints CuTe's `print_layout` table of a rank-2 layout,
//! `layout latex EXPR` CuTe's `print_latex` (TikZ) and `layout svg EXPR [-o FILE]` an SVG picture
//! (`const_layout::picture`): of a layout, of a TV layout (`make_layout_tv`) or of a swizzled
//! layout. `layout serve` serves the playground (the same commands as a web page, computed in the
//! browser by their WebAssembly build) and `layout site DIR` writes its files. Errors are one
//! line on stderr (or `{"error":...}` with `--json`) and exit status 1.

mod site;
mod tool;

use std::io::Write as _;
use std::process::ExitCode;
use tool::{json_error, one_line, quote, run};

/// The stack of the thread that evaluates: the evaluator keeps its values on the stack, less than
/// 512 KiB at its nesting limit `const_layout::text::MAX_NESTING`, optimized or not (measured with
/// the functions of the deepest frames innermost; see `const_layout::eval::eval`). The rest leaves
/// room for what the tool does after evaluating (tables, pictures) and for functions not
/// measured; only the pages used are ever touched.
const EVAL_STACK: usize = 4 << 20;

fn main() -> ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let json = raw.iter().any(|a| a == "--json");
    // Panics are bugs: reported on one line by `run_guarded`, not by the default hook.
    std::panic::set_hook(Box::new(|_| {}));
    let work = move || -> Result<String, String> {
        let mut args = Vec::with_capacity(raw.len());
        for (i, a) in raw.into_iter().enumerate() {
            match a.into_string() {
                Ok(s) => args.push(s),
                Err(a) => {
                    return Err(format!("argument {} is not UTF-8: {}", i + 1, quote(&a.to_string_lossy())));
                }
            }
        }
        // The playground's commands need the process (files, a socket), so they are the
        // binary's; the rest is `tool::run`, which the page's WebAssembly build runs too.
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["site", rest @ ..] => site::site(rest),
            ["serve", rest @ ..] => site::serve(rest).map(|()| String::new()),
            _ => run(&args, json),
        }
    };
    let outcome = match std::thread::Builder::new().stack_size(EVAL_STACK).spawn(work) {
        Ok(handle) => handle.join(),
        Err(e) => Err(Box::new(format!("cannot start the evaluating thread: {e}")) as Box<_>),
    };
    let (result, status) = match outcome {
        Ok(r) => (r, None),
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            (Err(format!("internal error (a bug, please report it): {what}")), Some(ExitCode::from(101)))
        }
    };
    match result {
        Ok(out) => write_stdout(&out),
        Err(msg) => {
            let msg = one_line(&msg);
            if json {
                let _ = write_stdout(&json_error(&msg));
            } else {
                let _ = writeln!(std::io::stderr(), "layout: {msg}");
            }
            status.unwrap_or(ExitCode::FAILURE)
        }
    }
}

/// Write the output: a closed pipe (`| head`) ends quietly with status 0, as other Unix tools
/// do; any other failure (a full disk) is a one-line error and status 1.
fn write_stdout(out: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ =
                writeln!(std::io::stderr(), "layout: cannot write the output: {}", one_line(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}
