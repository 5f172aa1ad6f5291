//! The checks on a PTX module, for any kernel crate:
//!
//! - no integer division or remainder (`div.s32`, `rem.u64`, ...): static extents divide by
//!   multiply and shift, runtime ones by `FastDivmod`; a division in a kernel is index math that
//!   did not fold (a floating-point `div.rn.f32` is arithmetic, not index math, and passes);
//! - no local memory (`.local`, `local_depot`, `ld.local`, `st.local`): a register array that
//!   spilled or is indexed at run time;
//! - no `call`: every device function is inlined; a call is a missed inlining or a panic path
//!   (except `call const_layout_trap`, the device layer's fault: its `trap` kept out of line, since
//!   ptxas serializes every `wgmma` of a loop that holds a `trap` under `setmaxnreg`);
//! - each entry point the source declares is in the module, with the parameters its Rust types
//!   need (`SourceAbi`);
//! - each launch-bounds marker names an entry point, whose directives say the same.

use crate::launch_bounds::{self, LaunchBounds};
use crate::ptx::{self, PtxModule};
use crate::report::{EntryReport, ParamsCheck, Ptxas, Report};
use crate::source::{ParamKind, SourceAbi};
use std::fmt;
use std::path::{Path, PathBuf};

/// At most this many failures are listed; a summary line counts the rest.
const MAX_FAILURES: usize = 100;

/// One failed check: the PTX line (1-based), the entry point or device function, and what.
///
/// ```
/// let err = const_layout_builder::check(".visible .entry k()\n{\n\tdiv.u32 %r1, %r2, %r3;\n}\n", None).unwrap_err();
/// let f = &err.failures[0];
/// assert_eq!((f.line, f.entry.as_deref()), (Some(3), Some("k")));
/// assert_eq!(f.to_string(), "line 3: k: an integer division or remainder: div.u32 %r1, %r2, %r3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Failure {
    /// The line of the module, 1-based, when there is one.
    pub line: Option<usize>,
    /// The entry point (or `device function NAME`) it is in, if any.
    pub entry: Option<String>,
    /// What failed.
    pub message: String,
}

impl Failure {
    pub(crate) fn new(line: Option<usize>, entry: Option<&str>, message: String) -> Failure {
        Failure { line, entry: entry.map(str::to_string), message }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, file: Option<&Path>) -> fmt::Result {
        match (file, self.line) {
            (Some(file), Some(line)) => write!(f, "{}:{line}: ", file.display())?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            (None, Some(line)) => write!(f, "line {line}: ")?,
            (None, None) => {}
        }
        if let Some(entry) = &self.entry {
            write!(f, "{entry}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, None)
    }
}

/// The checks failed: every failure, one a line (with the module's path when it is known), and
/// the report of what was read.
///
/// ```
/// use std::path::Path;
/// let err = const_layout_builder::check(".visible .entry k()\n{\n\tcall.uni f;\n}\n", None).unwrap_err();
/// assert_eq!(err.with_file(Path::new("k.ptx")).to_string(), "k.ptx:3: k: a call: call.uni f");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckFailed {
    /// The module's file, when it is known.
    pub file: Option<PathBuf>,
    /// The failures, in the module's order (at most 100, and a line that counts the rest).
    pub failures: Vec<Failure>,
    /// What the checks read, as far as they got.
    pub report: Option<Box<Report>>,
}

impl CheckFailed {
    pub(crate) fn new(failures: Vec<Failure>) -> CheckFailed {
        CheckFailed { file: None, failures, report: None }
    }

    /// The same failures, located in `file`.
    ///
    /// ```
    /// let err = const_layout_builder::check("", None).unwrap_err();
    /// assert_eq!(err.with_file("a.ptx").to_string(), "a.ptx: no entry point in the module");
    /// ```
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> CheckFailed {
        self.file = Some(file.into());
        self
    }
}

impl fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, failure) in self.failures.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            failure.write(f, self.file.as_deref())?;
        }
        Ok(())
    }
}

impl std::error::Error for CheckFailed {}

/// Checks a PTX module (the crate's doc says what and why) and reports its entry points. With
/// `source` (`SourceAbi::from_crate`), each entry point the source declares must be in the module
/// with its parameters; an entry point of the module that the source does not declare (one a
/// `macro_rules!` wrote, without an `Entry` declaration) is reported as not checked.
///
/// ```
/// use const_layout_builder::{check, ParamsCheck, SourceAbi};
/// let ptx = ".version 8.3\n.target sm_90a\n.visible .entry scale(\n\t.param .u64 scale_param_0,\n\t.param .f32 scale_param_1\n)\n{\n\tret;\n}\n";
/// let src = SourceAbi::from_sources([("src/lib.rs", r#"
///     #[unsafe(no_mangle)]
///     pub unsafe extern "ptx-kernel" fn scale(x: *mut f32, by: f32) {}
/// "#)]);
/// let report = check(ptx, Some(&src)).unwrap();
/// assert_eq!(report.entries[0].params_check, ParamsCheck::Checked { origins: vec!["src/lib.rs: fn scale".into()], unchecked: vec![] });
///
/// let wrong = SourceAbi::from_sources([("src/lib.rs", r#"
///     #[unsafe(no_mangle)]
///     pub unsafe extern "ptx-kernel" fn scale(x: *mut f32, by: u32) {}
/// "#)]);
/// let err = check(ptx, Some(&wrong)).unwrap_err();
/// assert_eq!(err.to_string(), "line 5: scale: parameter 2 is `.param .f32` in the PTX, but `by: u32` (src/lib.rs: fn scale) needs `.param .u32`");
/// ```
pub fn check(ptx: &str, source: Option<&SourceAbi>) -> Result<Report, CheckFailed> {
    let module = PtxModule::parse(ptx);
    let lines: Vec<&str> = ptx.lines().collect();
    let mut failures = Vec::new();
    if module.entries().is_empty() {
        failures.push(Failure::new(None, None, "no entry point in the module".into()));
    }
    forbidden(&module, &lines, &mut failures);

    // Launch bounds: each marker names an entry point whose directives it became.
    let marks = match launch_bounds::markers(ptx) {
        Ok(marks) => marks,
        Err(f) => {
            failures.extend(f);
            Vec::new()
        }
    };
    for (line, b) in &marks {
        match module.entry(&b.entry) {
            None => failures.push(Failure::new(
                Some(line + 1),
                Some(&b.entry),
                format!("launch bounds for `{}`, which is not an entry point of the module", b.entry),
            )),
            Some(e) if e.max_threads != Some(b.max_threads) || e.min_blocks != Some(b.min_blocks) => failures.push(Failure::new(
                Some(e.close + 1),
                Some(&b.entry),
                format!(
                    "launch bounds {b} are not the entry's directives (`const-layout-ptx build` or `apply_launch_bounds` writes them)"
                ),
            )),
            Some(_) => {}
        }
    }

    // Parameters, against the source.
    let mut entries = Vec::new();
    for e in module.entries() {
        let params_check = match source {
            None => ParamsCheck::NoSource,
            Some(src) => {
                let declared: Vec<_> = src.entries().iter().filter(|s| s.name == e.name).collect();
                if declared.is_empty() {
                    ParamsCheck::NotInSource
                } else {
                    let mut unchecked = Vec::new();
                    for s in &declared {
                        check_params(e, s, &mut failures, &mut unchecked);
                    }
                    ParamsCheck::Checked {
                        origins: declared.iter().map(|s| s.origin.clone()).collect(),
                        unchecked,
                    }
                }
            }
        };
        let launch_bounds = e.max_threads.map(|t| LaunchBounds {
            entry: e.name.clone(),
            max_threads: t,
            min_blocks: e.min_blocks.unwrap_or(0),
        });
        entries.push(EntryReport {
            name: e.name.clone(),
            params: e.params.clone(),
            instructions: e.instructions,
            launch_bounds,
            params_check,
            resources: None,
        });
    }
    if let Some(src) = source {
        for s in src.entries() {
            if module.entry(&s.name).is_none() {
                failures.push(Failure::new(
                    None,
                    Some(&s.name),
                    format!("no entry point `{}` in the module ({} declares it)", s.name, s.origin),
                ));
            }
        }
    }
    let report = Report {
        version: module.version.clone(),
        target: module.target.clone(),
        entries,
        source_notes: source.map(|s| s.notes().to_vec()).unwrap_or_default(),
        ptxas: Ptxas::NotRun,
        checks_passed: failures.is_empty(),
    };
    if failures.is_empty() {
        Ok(report)
    } else {
        if failures.len() > MAX_FAILURES {
            let more = failures.len() - MAX_FAILURES;
            failures.truncate(MAX_FAILURES);
            failures.push(Failure::new(None, None, format!("and {more} more failures")));
        }
        Err(CheckFailed { file: None, failures, report: Some(Box::new(report)) })
    }
}

/// Division, remainder, local memory and calls, in the bodies (and local memory at module scope).
fn forbidden(module: &PtxModule, lines: &[&str], failures: &mut Vec<Failure>) {
    let mut owner: Vec<Option<String>> = vec![None; lines.len()];
    for f in &module.functions {
        let who = if f.entry { f.name.clone() } else { format!("device function {}", f.name) };
        if let Some((start, end)) = f.body {
            for o in &mut owner[start..=end] {
                *o = Some(who.clone());
            }
        }
    }
    for (i, line) in lines.iter().enumerate() {
        let code = ptx::code(line);
        let who = owner[i].as_deref();
        if has_local(code) {
            failures.push(Failure::new(Some(i + 1), who, format!("local memory: {}", code.trim())));
        }
        if who.is_none() {
            continue;
        }
        for statement in ptx::statements(code) {
            let op = ptx::opcode(statement);
            let mut parts = op.split('.');
            let what = match parts.next() {
                Some("div")
                    if op.split('.').any(|t| matches!(t, "s16" | "u16" | "s32" | "u32" | "s64" | "u64")) =>
                {
                    "an integer division or remainder"
                }
                Some("rem") => "an integer division or remainder",
                Some("call") if !is_fault_call(statement) => "a call",
                _ => continue,
            };
            failures.push(Failure::new(Some(i + 1), who, format!("{what}: {}", statement.trim())));
        }
    }
}

/// The name of the device layer's out-of-line fault: `.func const_layout_trap() { trap; ret; }`.
const FAULT_FUNCTION: &str = "const_layout_trap";

/// `call const_layout_trap` (with or without `.uni`, a predicate, no operands): a fault, the one
/// call a kernel keeps.
fn is_fault_call(statement: &str) -> bool {
    let s = statement.trim().trim_end_matches(';').trim();
    let s = match s.strip_prefix('@') {
        Some(rest) => rest.split_once(char::is_whitespace).map_or("", |(_, r)| r.trim()),
        None => s,
    };
    let mut words = s.split_whitespace();
    matches!(words.next(), Some("call" | "call.uni"))
        && words.next() == Some(FAULT_FUNCTION)
        && words.next().is_none()
}

/// `.local` (a state space: a declaration, `ld.local`, `st.local`, a `.local` pointer) or
/// LLVM's `__local_depot`.
fn has_local(code: &str) -> bool {
    code.contains("local_depot")
        || code
            .match_indices(".local")
            .any(|(at, _)| !code[at + 6..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

fn check_params(
    e: &ptx::PtxFunction,
    s: &crate::source::SourceEntry,
    failures: &mut Vec<Failure>,
    unchecked: &mut Vec<String>,
) {
    if e.params.len() != s.params.len() {
        let ptx: Vec<String> = e.params.iter().map(|p| p.to_string()).collect();
        let rust: Vec<&str> = s.params.iter().map(|p| p.rust.as_str()).collect();
        failures.push(Failure::new(
            Some(e.close + 1),
            Some(&e.name),
            format!(
                "{} parameters in the PTX ({}), {} in {} ({})",
                e.params.len(),
                ptx.join(", "),
                s.params.len(),
                s.origin,
                rust.join(", ")
            ),
        ));
        return;
    }
    for (i, (decl, want)) in e.params.iter().zip(&s.params).enumerate() {
        if let ParamKind::Unchecked { reason } = &want.kind {
            unchecked.push(format!("parameter {} `{}`: {reason}", i + 1, want.rust));
        } else if !want.kind.matches(&decl.kind) {
            failures.push(Failure::new(
                Some(decl.line),
                Some(&e.name),
                format!(
                    "parameter {} is `{decl}` in the PTX, but `{}` ({}) needs `{}`",
                    i + 1,
                    want.rust,
                    s.origin,
                    want.kind
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of one entry point `k` with `params` and `body` lines.
    fn module(params: &[&str], body: &[&str]) -> String {
        let params: Vec<String> =
            params.iter().enumerate().map(|(i, p)| format!("\t.param {p} k_param_{i}")).collect();
        let mut s = String::from(".version 8.3\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n");
        if !params.is_empty() {
            s += &params.join(",\n");
            s += "\n";
        }
        s += ")\n{\n\t.reg .b32 \t%r<9>;\n";
        for b in body {
            s += &format!("\t{b}\n");
        }
        s += "\tret;\n}\n";
        s
    }

    fn failures(ptx: &str, src: Option<&str>) -> Vec<String> {
        let abi = src.map(|s| SourceAbi::from_sources([("src/lib.rs", s)]));
        match check(ptx, abi.as_ref()) {
            Ok(_) => Vec::new(),
            Err(e) => e.failures.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn a_clean_module_passes() {
        let ptx = module(
            &[".u32", ".f32"],
            &[
                "ld.param.b32 \t%r1, [k_param_0];",
                "mul.wide.u32 %rd1, %r1, 4;",
                "div.rn.f32 %f1, %f2, %f3;",
                "@%p1 bra $L__BB0_2;",
            ],
        );
        let report = check(&ptx, None).unwrap();
        assert_eq!(report.entries.len(), 1);
        assert_eq!(report.entries[0].instructions, 5);
        assert_eq!(report.entries[0].params_check, ParamsCheck::NoSource);
        assert_eq!((report.version.as_deref(), report.target.as_deref()), (Some("8.3"), Some("sm_90a")));
    }

    #[test]
    fn division_and_remainder() {
        let ptx = module(
            &[],
            &["div.s32 \t%r3, %r1, %r2;", "@%p1 rem.u64 %rd1, %rd2, %rd3;", "div.full.f32 %f1, %f2, %f3;"],
        );
        assert_eq!(
            failures(&ptx, None),
            [
                "line 9: k: an integer division or remainder: div.s32 \t%r3, %r1, %r2",
                "line 10: k: an integer division or remainder: @%p1 rem.u64 %rd1, %rd2, %rd3"
            ]
        );
    }

    #[test]
    fn local_memory() {
        let ptx = module(
            &[],
            &[
                ".local .align 8 .b8 \t__local_depot0[16];",
                "mov.u64 %SPL, __local_depot0;",
                "st.local.u32 [%rd1], %r1;",
                "ld.local.v2.u32 {%r1, %r2}, [%rd1];",
            ],
        );
        let got = failures(&ptx, None);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got[0].starts_with("line 9: k: local memory: .local .align 8"));
        assert!(got[2].starts_with("line 11: k: local memory: st.local.u32"));
        // At module scope too; a comment or a name like `.localized` is not local memory.
        let ptx =
            format!(".local .align 4 .b8 spill[4];\n{}", module(&["// .local"], &["mov.u32 %r1, localx;"]));
        assert_eq!(failures(&ptx, None), ["line 1: local memory: .local .align 4 .b8 spill[4];"]);
    }

    #[test]
    fn the_fault_call_is_allowed() {
        for ok in ["call const_layout_trap;", "@%p1 call const_layout_trap;", "call.uni const_layout_trap;"] {
            assert!(is_fault_call(ok), "{ok}");
        }
        for bad in ["call const_layout_trap2;", "call.uni f, ();", "call const_layout_trap, (x);"] {
            assert!(!is_fault_call(bad), "{bad}");
        }
    }

    #[test]
    fn calls() {
        let ptx = format!(
            ".func helper()\n{{\n\tcall.uni vprintf, (param0);\n\tret;\n}}\n{}",
            module(&[], &["{ // callseq 0, 0", "call.uni helper, ();", "}"])
        );
        assert_eq!(
            failures(&ptx, None),
            [
                "line 3: device function helper: a call: call.uni vprintf, (param0)",
                "line 15: k: a call: call.uni helper, ()"
            ]
        );
    }

    #[test]
    fn no_entry_point() {
        assert_eq!(
            failures(".version 8.3\n.func f()\n{\n\tret;\n}\n", None),
            ["no entry point in the module"]
        );
    }

    const K: &str = "#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn k";

    #[test]
    fn parameters_match_the_source() {
        let ptx = module(&[".align 8 .b8", ".u32", ".f32", ".u64 .ptr .align 1", ".align 4 .b8"], &[]);
        // `[64]` of the tensor and `[8]` of the pair follow the name in PTX.
        let ptx = ptx.replace("k_param_0", "k_param_0[64]").replace("k_param_4", "k_param_4[8]");
        let src = format!(
            "pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;\n#[repr(C)] struct Pair {{ a: u32, b: f32 }}\n{K}(a: ColMajor, n: u32, x: f32, p: *const f32, q: Pair) {{}}"
        );
        assert_eq!(failures(&ptx, Some(&src)), Vec::<String>::new());
        let report = check(&ptx, Some(&SourceAbi::from_sources([("src/lib.rs", src.as_str())]))).unwrap();
        assert_eq!(
            report.entries[0].params_check,
            ParamsCheck::Checked { origins: vec!["src/lib.rs: fn k".into()], unchecked: vec![] }
        );
    }

    #[test]
    fn a_wrong_parameter_type() {
        let ptx = module(&[".u32", ".f32"], &[]);
        let got = failures(&ptx, Some(&format!("{K}(n: u32, x: u32) {{}}")));
        assert_eq!(
            got,
            [
                "line 7: k: parameter 2 is `.param .f32` in the PTX, but `x: u32` (src/lib.rs: fn k) needs `.param .u32`"
            ]
        );
        let got = failures(&ptx, Some(&format!("{K}(n: u64, x: f32) {{}}")));
        assert_eq!(
            got,
            [
                "line 6: k: parameter 1 is `.param .u32` in the PTX, but `n: u64` (src/lib.rs: fn k) needs `.param .u64`"
            ]
        );
        // A tensor where the PTX has a scalar, and an array of the wrong size.
        let ptx = module(&[".u64", ".align 4 .b8"], &[]).replace("k_param_1", "k_param_1[60]");
        let got = failures(&ptx, Some(&format!("{K}(t: In<TensorParam<f32, S, D>>, a: [u32; 16]) {{}}")));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].contains("parameter 1 is `.param .u64` in the PTX, but `t: In<TensorParam<f32, S, D>>` (src/lib.rs: fn k) needs `.param .align 8 .b8 [64]`"));
        assert!(got[1].contains("parameter 2 is `.param .align 4 .b8 [60]` in the PTX, but `a: [u32; 16]` (src/lib.rs: fn k) needs `.param .align 4 .b8 [64]`"));
    }

    #[test]
    fn a_wrong_parameter_count() {
        let ptx = module(&[".u32"], &[]);
        let got = failures(&ptx, Some(&format!("{K}(n: u32, x: f32) {{}}")));
        assert_eq!(
            got,
            ["line 7: k: 1 parameters in the PTX (.param .u32), 2 in src/lib.rs: fn k (n: u32, x: f32)"]
        );
    }

    #[test]
    fn a_missing_entry_point() {
        let ptx = module(&[], &[]);
        let src =
            format!("{K}() {{}}\n#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn gone(n: u32) {{}}");
        assert_eq!(
            failures(&ptx, Some(&src)),
            ["gone: no entry point `gone` in the module (src/lib.rs: fn gone declares it)"]
        );
        // An `Entry` declaration counts as well.
        let src = format!("{K}() {{}}\nconst G: Entry<(u32,)> = Entry::new(\"gone\");");
        assert_eq!(
            failures(&ptx, Some(&src)),
            ["gone: no entry point `gone` in the module (src/lib.rs: const G declares it)"]
        );
    }

    #[test]
    fn entry_declarations_check_generated_entry_points() {
        let ptx = module(&[".align 8 .b8", ".align 8 .b8", ".u32"], &[])
            .replace("k_param_0", "k_param_0[64]")
            .replace("k_param_1", "k_param_1[64]");
        let src = "macro_rules! gen { () => {} }\npub type M = TensorParam<f32, (u32, u32), (u32, C<1>)>;\npub const K: Entry<(In<M>, Out<M>, u32)> = Entry::new(\"k\");";
        assert_eq!(failures(&ptx, Some(src)), Vec::<String>::new());
        let wrong = "pub type M = TensorParam<f32, (u32, u32), (u32, C<1>)>;\npub const K: Entry<(In<M>, Out<M>, f32)> = Entry::new(\"k\");";
        assert_eq!(
            failures(&ptx, Some(wrong)),
            [
                "line 8: k: parameter 3 is `.param .u32` in the PTX, but `f32` (src/lib.rs: const K) needs `.param .f32`"
            ]
        );
    }

    #[test]
    fn entry_points_not_in_the_source_are_reported_not_checked() {
        let ptx = module(&[".u32"], &[]);
        let report =
            check(&ptx, Some(&SourceAbi::from_sources([("src/lib.rs", "macro_rules! m { () => {} }")])))
                .unwrap();
        assert_eq!(report.entries[0].params_check, ParamsCheck::NotInSource);
        assert!(
            report
                .to_string()
                .contains("k: 1 instructions; parameters not checked (not found in the source)"),
            "{report}"
        );
    }

    #[test]
    fn unchecked_parameters_are_listed() {
        let ptx = module(&[".u8", ".align 4 .b8"], &[]).replace("k_param_1", "k_param_1[12]");
        let src = format!("{K}(b: bool, f: Foreign) {{}}");
        let report = check(&ptx, Some(&SourceAbi::from_sources([("src/lib.rs", src.as_str())]))).unwrap();
        let ParamsCheck::Checked { unchecked, .. } = &report.entries[0].params_check else { panic!() };
        assert_eq!(
            unchecked,
            &[
                "parameter 1 `b: bool`: 8- and 16-bit scalars' PTX form is not checked".to_string(),
                "parameter 2 `f: Foreign`: `Foreign` is not defined in the crate's source".to_string()
            ]
        );
    }

    #[test]
    fn launch_bounds_must_be_applied() {
        let ptx = format!("// const-layout: launch_bounds k 128 2\n{}", module(&[], &[]));
        assert_eq!(
            failures(&ptx, None),
            [
                "line 7: k: launch bounds 128 threads, 2 blocks/SM are not the entry's directives (`const-layout-ptx build` or `apply_launch_bounds` writes them)"
            ]
        );
        let applied = launch_bounds::apply_launch_bounds(&ptx).unwrap();
        let report = check(&applied, None).unwrap();
        assert_eq!(
            report.entries[0].launch_bounds.as_ref().map(|b| (b.max_threads, b.min_blocks)),
            Some((128, 2))
        );
        let ptx = format!("// const-layout: launch_bounds other 128 2\n{}", module(&[], &[]));
        assert_eq!(
            failures(&ptx, None),
            ["line 1: other: launch bounds for `other`, which is not an entry point of the module"]
        );
    }

    #[test]
    fn many_failures_are_counted() {
        let body: Vec<&str> = std::iter::repeat_n("rem.u32 %r1, %r2, %r3;", 150).collect();
        let got = failures(&module(&[], &body), None);
        assert_eq!(got.len(), 101);
        assert_eq!(got[100], "and 50 more failures");
    }
}
