//! `const-layout-ptx`: builds a kernel crate to a checked PTX module, or checks a module.
#![forbid(unsafe_code)]

use const_layout_builder::{
    Builder, INSTALL_SCRIPT, SourceAbi, Toolchain, check, install_toolchain, user_toolchain_dir,
};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
const-layout-ptx: builds a Rust GPU kernel crate to PTX and checks it

usage:
  const-layout-ptx build [OPTIONS] CRATE_DIR
      builds the crate (a `crate-type = [\"cdylib\"]` of `extern \"ptx-kernel\"` entry points) for
      nvptx64-nvidia-cuda, writes its launch bounds, checks the module and prints its report
      --target-cpu CPU       the GPU architecture (default sm_90a)
      --ptx-isa FEATURE      the PTX ISA version as LLVM's feature (default ptx83)
      --toolchain T          auto (default), debian, debian:RUSTC, rustup or rustup:CHANNEL
      --target-dir DIR       the build's target directory (default CRATE_DIR/target)
      -o, --output FILE      where to write the module (default TARGET_DIR/LIB.ptx)
      --locked               build with the crate's Cargo.lock as it is
      --no-ptxas             do not run ptxas -v for registers, spills and stack
  const-layout-ptx check FILE.ptx [--source CRATE_DIR]
      checks a module: no integer division or remainder, no local memory, no call, launch
      bounds written; with --source, the entry points' parameters against the crate's source
  const-layout-ptx install-toolchain [DIR] [--print]
      installs Debian's route (rustc-web 1.96+, rust-web-src, llvm, llvm-bitcode-linker built from
      rustc's source; apt-get needs root) into DIR (default ~/.cargo/const-layout-ptx), where
      builds find it; --print prints the script instead. Elsewhere, rustup's route:
      rustup toolchain install nightly -c rust-src -c llvm-tools -c llvm-bitcode-linker
  const-layout-ptx --help

The checks: a division is index math that did not fold, local memory a register array that
spilled, a call a function that was not inlined (or a panic path). Exit status 1 on any error,
each on one line of standard error.";

/// Bad input: one line.
struct Usage(String);

/// Writes to standard output; a closed pipe (`| head`) ends the output, not the program.
fn out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn main() -> ExitCode {
    let args: Vec<String> = match std::env::args_os().skip(1).map(|a| a.into_string()).collect() {
        Ok(args) => args,
        Err(bad) => return fail(&format!("an argument that is not UTF-8: {}", bad.to_string_lossy())),
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Usage(message)) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    for line in message.lines() {
        let _ = writeln!(err, "const-layout-ptx: {line}");
    }
    ExitCode::FAILURE
}

/// The value of an option: `--name VALUE` or `--name=VALUE`.
fn value(name: &str, inline: Option<&str>, rest: &mut std::slice::Iter<'_, String>) -> Result<String, Usage> {
    match inline {
        Some(v) => Ok(v.to_string()),
        None => rest.next().cloned().ok_or_else(|| Usage(format!("{name} needs a value"))),
    }
}

/// Reads the arguments of `command` (`build`, `check`): `-h`/`--help`, which prints the usage;
/// options, each given to `option` with its inline value (`--name=VALUE`) and the arguments after
/// it (for [`value`]), which answers whether it knows the name; and at most one positional
/// argument, `what`. One reading for both commands, so that they take their options, and say what
/// they refuse, the same way. `None` after `--help`, else the positional argument if given.
fn parse(
    command: &str,
    what: &str,
    args: &[String],
    mut option: impl FnMut(&str, Option<&str>, &mut std::slice::Iter<'_, String>) -> Result<bool, Usage>,
) -> Result<Option<Option<PathBuf>>, Usage> {
    let mut positional: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (arg.as_str(), None),
        };
        match name {
            "-h" | "--help" => {
                out(&format!("{USAGE}\n"));
                return Ok(None);
            }
            name if option(name, inline, &mut it)? => {}
            flag if flag.starts_with('-') => {
                return Err(Usage(format!("unknown option `{flag}` of {command} (--help says more)")));
            }
            p => {
                if positional.is_some() {
                    return Err(Usage(format!("one {what}, and `{p}` is a second")));
                }
                positional = Some(PathBuf::from(p));
            }
        }
    }
    Ok(Some(positional))
}

fn run(args: &[String]) -> Result<(), Usage> {
    let Some((command, rest)) = args.split_first() else {
        return Err(Usage("no command (build, check or install-toolchain; --help says more)".into()));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            out(&format!("{USAGE}\n"));
            Ok(())
        }
        "build" => build(rest),
        "check" => check_file(rest),
        "install-toolchain" => install(rest),
        other => Err(Usage(format!(
            "unknown command `{other}` (build, check or install-toolchain; --help says more)"
        ))),
    }
}

fn build(args: &[String]) -> Result<(), Usage> {
    let mut builder_opts: Vec<Box<dyn FnOnce(Builder) -> Builder>> = Vec::new();
    let crate_dir = parse("build", "crate directory", args, |name, inline, it| {
        match name {
            "--target-cpu" => {
                let v = value(name, inline, it)?;
                builder_opts.push(Box::new(move |b| b.target_cpu(v)));
            }
            "--ptx-isa" => {
                let v = value(name, inline, it)?;
                builder_opts.push(Box::new(move |b| b.ptx_isa(v)));
            }
            "--toolchain" => {
                let t: Toolchain = value(name, inline, it)?.parse().map_err(Usage)?;
                builder_opts.push(Box::new(move |b| b.toolchain(t)));
            }
            "--target-dir" => {
                let v = value(name, inline, it)?;
                builder_opts.push(Box::new(move |b| b.target_dir(v)));
            }
            "-o" | "--output" => {
                let v = value(name, inline, it)?;
                builder_opts.push(Box::new(move |b| b.output(v)));
            }
            "--locked" => builder_opts.push(Box::new(|b| b.locked(true))),
            "--no-ptxas" => builder_opts.push(Box::new(|b| b.ptxas(false))),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Some(crate_dir) = crate_dir else { return Ok(()) }; // --help
    let dir = crate_dir.ok_or_else(|| Usage("build needs the kernel crate's directory".into()))?;
    if !dir.join("Cargo.toml").is_file() {
        return Err(Usage(format!(
            "{}: no Cargo.toml (build takes the kernel crate's directory)",
            dir.display()
        )));
    }
    let builder = builder_opts.into_iter().fold(Builder::new(&dir), |b, f| f(b));
    let ptx = builder.build().map_err(|e| Usage(e.to_string()))?;
    out(&format!("{}: built by {}\n{}", ptx.path.display(), ptx.toolchain, ptx.report));
    Ok(())
}

fn check_file(args: &[String]) -> Result<(), Usage> {
    let mut source: Option<PathBuf> = None;
    let file = parse("check", "PTX file", args, |name, inline, it| {
        if name != "--source" {
            return Ok(false);
        }
        source = Some(PathBuf::from(value(name, inline, it)?));
        Ok(true)
    })?;
    let Some(file) = file else { return Ok(()) }; // --help
    let file = file.ok_or_else(|| Usage("check needs a PTX file".into()))?;
    let text = std::fs::read_to_string(&file).map_err(|e| Usage(format!("{}: {e}", file.display())))?;
    let abi = match &source {
        Some(dir) => {
            if !dir.join("src").is_dir() {
                return Err(Usage(format!(
                    "{}: no src directory (--source takes the kernel crate's directory)",
                    dir.display()
                )));
            }
            Some(SourceAbi::from_crate(dir).map_err(|e| Usage(e.to_string()))?)
        }
        None => None,
    };
    let report = check(&text, abi.as_ref()).map_err(|e| Usage(e.with_file(&file).to_string()))?;
    out(&report.to_string());
    Ok(())
}

fn install(args: &[String]) -> Result<(), Usage> {
    let (mut dir, mut print) = (None, false);
    for arg in args {
        match arg.as_str() {
            "-h" | "--help" => {
                out(&format!("{USAGE}\n"));
                return Ok(());
            }
            "--print" => print = true,
            a if a.starts_with('-') => return Err(Usage(format!("unknown option `{a}` (--help says more)"))),
            a if dir.is_none() => dir = Some(PathBuf::from(a)),
            a => return Err(Usage(format!("one directory at most: `{a}`"))),
        }
    }
    if print {
        out(INSTALL_SCRIPT);
        return Ok(());
    }
    let Some(dir) = dir.or_else(user_toolchain_dir) else {
        return Err(Usage("no home directory (HOME, CARGO_HOME): give the directory".into()));
    };
    let bin = install_toolchain(&dir).map_err(|e| Usage(e.to_string()))?;
    out(&format!("{}\n", bin.display()));
    Ok(())
}
