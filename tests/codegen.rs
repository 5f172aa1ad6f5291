//! Zero cost, checked on the machine code: static-layout index math compiles to straight-line
//! integer code.
//!
//! `examples/codegen_probes.rs` holds `probe_*` functions (layout calls on fully static layouts
//! with runtime coordinates) and their `hand_*` twins (the same computation as plain `usize`
//! arithmetic). On x86_64 this test builds that example in release mode with `--emit asm` (a
//! separate target directory, `<target>/codegen`, so it does not wait on the outer cargo's lock),
//! splits the assembly into functions by symbol and asserts, for every probe:
//!
//! - one basic block ending in `ret`: no jump (`j*`), `loop*`, `call` or local block label;
//! - no division instruction (`div`, `idiv`, any `*div*`);
//! - no memory operand (`[...]`) except in `lea`, which is address arithmetic, and no `push`/`pop`:
//!   no load of a constant, no spill;
//! - multiplies as the layout's kind says (see [`Mul`]): none for power-of-two layouts, a
//!   high-half multiply (multiply-shift division) where non-power-of-two extents divide;
//! - at most as many instructions as the hand-written twin, plus a per-probe tolerance recorded in
//!   [`EXPECT`] (the observed excess, so a regression fails).
//!
//! It prints a table of instruction counts, probe next to twin. It also checks that the checker
//! flags the `control_*` functions (a runtime extent: a real `div`), and, on every target, that
//! each probe computes the same values as its twin.

// Elsewhere than x86_64 only the equivalence and checker self-tests run.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

#[allow(dead_code)]
#[path = "codegen_probes/src/main.rs"]
mod probes;

use std::collections::{BTreeMap, BTreeSet};

/// What a probe may multiply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mul {
    /// No `mul`, `imul` or `mulx` at all: a power-of-two layout needs only shifts, masks, adds.
    None,
    /// At least one high-half multiply (`mul`, one-operand `imul`, `mulx`): division by a
    /// non-power-of-two constant done as multiply-shift.
    High,
    /// No rule (constant multiplies may be `lea` chains or `imul`).
    Any,
}

/// One probe's expectations: name without `probe_`, multiply rule, allowed instructions beyond
/// the hand-written twin, and why that tolerance is there.
struct Expect {
    name: &'static str,
    mul: Mul,
    tolerance: usize,
    why: &'static str,
}

const fn e(name: &'static str, mul: Mul, tolerance: usize, why: &'static str) -> Expect {
    Expect { name, mul, tolerance, why }
}

/// Why the integer-index paths are longer than their `usize` twins: the library does index math in
/// `isize`, and a signed `/` or `%` by a constant needs sign fix-ups (`test`/`cmovns`/`sar`, or
/// `shr 63`/`add`) that unsigned code does not. (Checked on `card_idx2crd`, `odd_idx2crd`,
/// `right_index` and `deep_index`: a twin written in `isize` the library's way compiles to the
/// very same code.)
/// `get_hier_coord` inverts offsets, which may be negative (negative strides), so it divides in
/// `isize` as CuTe does; the signed division by a constant needs sign fix-ups that the `usize` twin
/// does not.
const SIGNED: &str = "get_hier_coord divides signed offsets: sign fix-ups";

/// A compact layout's integer index split (`c0 + (c1 % 5 * 3 + c1 / 5 * 15)` with `c1 = i / 3`) is
/// the identity; LLVM folds the flat hand-written form to `i` but not the nested one.
const NO_FOLD: &str = "a nested compact split is not folded back to `i` by LLVM";

/// The partition's offset and the element's offset are two sums added at the end (`offset +
/// mine.crd2idx(..)`); LLVM keeps the element's `a * 4` as a `shl` before the final `add` where it
/// folds it into a `lea` for the twin's plain sum (checked: grouping the twin the same way does not
/// change the twin's code). Same operations, one instruction more.
const GROUPED: &str = "the thread's offset and the element's are summed separately: one more instruction";

/// The probe is the twin's arithmetic in another order, with one more register copy (`mov`);
/// since index splits go through `Int::split_index` (which `FastDivmod` overrides), LLVM orders
/// the three multiply-high divisions differently.
const REGALLOC: &str = "same arithmetic, one more register-to-register mov";

/// Every probe in `tests/codegen_probes/src/main.rs` (the test fails if the assembly has others or lacks
/// one). A tolerance is the probe's count observed with rustc 1.95 (x86-64 baseline, release,
/// codegen-units=1) minus its twin's, so any growth fails; 0 where the probe is no longer.
const EXPECT: &[Expect] = &[
    // (8,(4,2)):(1,(8,32))
    e("card_index", Mul::None, 0, ""),
    e("card_hier", Mul::None, 0, ""),
    e("card_flat", Mul::None, 0, ""),
    e("card_idx2crd", Mul::None, 0, ""),
    e("card_hier_coord", Mul::None, 16, SIGNED),
    // (3,(5,7)):(1,(3,15))
    e("odd_index", Mul::High, 22, NO_FOLD),
    e("odd_hier", Mul::Any, 0, ""),
    e("odd_idx2crd", Mul::High, 1, REGALLOC),
    e("odd_hier_coord", Mul::High, 11, SIGNED),
    // (4,8):(8,1), LayoutRight
    e("right_index", Mul::None, 0, ""),
    e("right_coord", Mul::None, 0, ""),
    e("right_idx2crd", Mul::None, 0, ""),
    e("right_hier_coord", Mul::None, 8, SIGNED),
    // ((2,2),(2,(2,2))):((1,8),(2,(16,4)))
    e("deep_index", Mul::None, 0, ""),
    e("deep_hier", Mul::None, 0, ""),
    e("deep_flat", Mul::None, 0, ""),
    e("deep_idx2crd", Mul::None, 0, ""),
    e("deep_hier_coord", Mul::None, 33, SIGNED),
    // Static algebra through `layout!`, and a static swizzle.
    e("divide_tile", Mul::None, 0, ""),
    e("swizzled", Mul::None, 0, ""),
    e("generic_divide", Mul::None, 0, ""),
    e("generic_local_tile", Mul::None, 0, ""),
    e("generic_partition", Mul::High, 1, GROUPED),
    e("generic_swizzled", Mul::None, 0, ""),
    e("generic_slice", Mul::Any, 0, ""),
    e("generic_identity", Mul::None, 0, ""),
    // `AnyLayout`, generically: a typed swizzled layout and a generic-path divide.
    e("any_swizzled", Mul::None, 0, ""),
    e("any_divide", Mul::None, 0, ""),
];

// ---------------------------------------------------------------------------------------------
// Assembly parsing and checks (plain text; also unit-tested below on a hand-made listing).

/// An assembly listing split into functions.
struct Listing {
    /// Each symbol's body: trimmed instruction lines and local block labels (`.LBB...:`),
    /// comments and directives removed.
    funcs: BTreeMap<String, Vec<String>>,
    /// Symbols defined as another (`name = target` or `.set name, target`): what LLVM's function
    /// merging leaves when two functions compile to the same code.
    aliases: BTreeMap<String, String>,
}

/// Split an assembly listing (Intel syntax, as LLVM prints it) into functions by symbol.
fn parse_functions(asm: &str) -> Listing {
    let mut funcs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut aliases: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for raw in asm.lines() {
        let line = match raw.find('#') {
            Some(p) => &raw[..p],
            None => raw,
        };
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix(".set") {
            if let Some((a, b)) = rest.split_once(',') {
                aliases.insert(a.trim().to_string(), b.trim().to_string());
            }
            continue;
        }
        if let Some((a, b)) = t.split_once('=')
            && !raw.starts_with(char::is_whitespace)
            && !a.trim().contains(char::is_whitespace)
        {
            aliases.insert(a.trim().to_string(), b.trim().to_string());
            continue;
        }
        if !raw.starts_with(char::is_whitespace) && t.ends_with(':') {
            let label = &t[..t.len() - 1];
            if label.starts_with(".Lfunc_end") {
                current = None;
            } else if label.starts_with(".L") {
                if let Some(f) = &current
                    && label.starts_with(".LBB")
                {
                    funcs.get_mut(f).unwrap().push(t.to_string());
                }
            } else {
                funcs.insert(label.to_string(), Vec::new());
                current = Some(label.to_string());
            }
            continue;
        }
        if t.starts_with('.') {
            continue; // a directive
        }
        if let Some(f) = &current {
            funcs.get_mut(f).unwrap().push(t.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    Listing { funcs, aliases }
}

impl Listing {
    /// The function that does the work for symbol `name`, and its body: aliases followed, and
    /// tail-call thunks too (a body that is only `jmp other`, which function merging can leave
    /// where it cannot alias).
    fn resolve<'a>(&'a self, name: &'a str) -> Option<(&'a str, &'a [String])> {
        let mut name = name;
        for _ in 0..8 {
            if let Some(target) = self.aliases.get(name) {
                name = target;
                continue;
            }
            let body = self.funcs.get(name)?;
            match body.as_slice() {
                [only] if only.strip_prefix("jmp ").is_some_and(|t| self.knows(t.trim())) => {
                    name = only["jmp ".len()..].trim();
                }
                _ => return Some((name, body)),
            }
        }
        None
    }

    fn knows(&self, name: &str) -> bool {
        self.funcs.contains_key(name) || self.aliases.contains_key(name)
    }

    /// Every symbol, functions and aliases.
    fn symbols(&self) -> impl Iterator<Item = &str> {
        self.funcs.keys().chain(self.aliases.keys()).map(String::as_str)
    }
}

/// Mnemonic and operands of an instruction line (prefixes such as `lock` skipped).
fn split_instruction(line: &str) -> (&str, &str) {
    let mut rest = line;
    loop {
        let (m, ops) = rest.split_once(' ').unwrap_or((rest, ""));
        if matches!(m, "lock" | "rep" | "repe" | "repz" | "repne" | "repnz" | "notrack" | "bnd")
            && !ops.is_empty()
        {
            rest = ops;
        } else {
            return (m, ops);
        }
    }
}

fn is_label(line: &str) -> bool {
    line.ends_with(':')
}

/// Instructions (not labels) in a body.
fn instruction_count(body: &[String]) -> usize {
    body.iter().filter(|l| !is_label(l)).count()
}

/// Whether an instruction multiplies, and whether it is a high-half (widening) multiply.
fn multiply_kind(line: &str) -> Option<Mul> {
    let (m, ops) = split_instruction(line);
    match m {
        "mul" | "mulx" => Some(Mul::High),
        "imul" if !ops.contains(',') => Some(Mul::High),
        "imul" => Some(Mul::Any),
        _ => None,
    }
}

/// Why a body is not straight-line, register-only, division-free code: one message per offending
/// line, quoting it.
fn straight_line_violations(body: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let instructions: Vec<&String> = body.iter().filter(|l| !is_label(l)).collect();
    for line in body {
        if is_label(line) {
            out.push(format!("`{line}`: a second basic block (a jump target)"));
            continue;
        }
        let (m, ops) = split_instruction(line);
        if m.contains("div") {
            out.push(format!("`{line}`: a division instruction"));
        }
        if m.starts_with('j') || m.starts_with("loop") {
            out.push(format!("`{line}`: a jump or loop"));
        }
        if m == "call" {
            out.push(format!("`{line}`: a call"));
        }
        if matches!(m, "push" | "pop" | "enter" | "leave") {
            out.push(format!("`{line}`: a stack push or pop (a spill or saved register)"));
        }
        if ops.contains('[') && m != "lea" && m != "nop" {
            out.push(format!("`{line}`: a memory operand (a load, store or spill)"));
        }
        if m == "ret" && !std::ptr::eq(*instructions.last().unwrap(), line) {
            out.push(format!("`{line}`: a return before the end (more than one path)"));
        }
    }
    match instructions.last() {
        Some(last) if split_instruction(last).0 == "ret" => {}
        Some(last) => out.push(format!("`{last}`: the function does not end in `ret` (a tail call?)")),
        None => out.push("empty function".to_string()),
    }
    out
}

/// Violations of a probe's multiply rule.
fn multiply_violations(body: &[String], rule: Mul) -> Vec<String> {
    let muls: Vec<(&String, Mul)> = body.iter().filter_map(|l| multiply_kind(l).map(|k| (l, k))).collect();
    match rule {
        Mul::None => muls
            .iter()
            .map(|(l, _)| format!("`{l}`: a multiply in a power-of-two layout (expected shifts and masks)"))
            .collect(),
        Mul::High if !muls.iter().any(|(_, k)| *k == Mul::High) => {
            vec![
                "no high-half multiply (`mul`/one-operand `imul`/`mulx`): expected multiply-shift division"
                    .to_string(),
            ]
        }
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Building the example.

/// Build `tests/codegen_probes` (the crate `const-layout-codegen-probes`) in release mode with `--emit asm` (Intel syntax) and return
/// the listing.
#[cfg(target_arch = "x86_64")]
fn build_probe_asm() -> String {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    // `CARGO_TARGET_TMPDIR` is `<target>/tmp`: put ours next to it, as `<target>/codegen`.
    let target_dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(|p| p.join("codegen"))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/codegen"));
    // A fixed path: cargo rewrites it whenever the example or the library changes. (It does not
    // know the file is an output, so if the file alone is deleted the unit stays "fresh": then we
    // rebuild once with a dummy `--cfg` to force it.)
    let asm_path = target_dir.join("codegen_probes.s");
    println!(
        "building tests/codegen_probes in release into {} (the first time: the library and its \
         dependencies, not the dev-dependencies, which is why the probes are a crate of their own)",
        target_dir.display()
    );
    let run = |extra: Option<String>| {
        let mut cmd = Command::new(&cargo);
        cmd.arg("rustc")
            .arg("--release")
            .arg("-p")
            .arg("const-layout-codegen-probes")
            .arg("--bin")
            .arg("codegen_probes")
            .arg("--manifest-path")
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target_dir)
            .arg("--message-format=short")
            .arg("--")
            .arg(format!("--emit=asm={}", asm_path.display()))
            .args(["-C", "codegen-units=1", "-C", "llvm-args=-x86-asm-syntax=intel"]);
        if let Some(cfg) = extra {
            cmd.arg("--cfg").arg(cfg);
        }
        // The check is about baseline x86-64 code: ignore the user's RUSTFLAGS and config
        // rustflags (an empty CARGO_ENCODED_RUSTFLAGS takes precedence over both).
        cmd.env("CARGO_ENCODED_RUSTFLAGS", "").env_remove("RUSTFLAGS");
        let out = cmd.output().unwrap_or_else(|e| panic!("could not run {cmd:?}: {e}"));
        assert!(
            out.status.success(),
            "building the codegen probes failed: {cmd:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(None);
    if !asm_path.exists() {
        let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        run(Some(format!("codegen_rebuild=\"{nonce}\"")));
    }
    std::fs::read_to_string(&asm_path).unwrap_or_else(|e| panic!("reading {}: {e}", asm_path.display()))
}

// ---------------------------------------------------------------------------------------------
// The tests.

#[cfg(target_arch = "x86_64")]
#[test]
fn static_index_math_is_straight_line() {
    let start = std::time::Instant::now();
    let asm = build_probe_asm();
    let build_time = start.elapsed();
    let listing = parse_functions(&asm);
    let mut failures: Vec<String> = Vec::new();

    // The probe set in the assembly is exactly the table's.
    let in_asm: BTreeSet<&str> = listing.symbols().filter_map(|k| k.strip_prefix("probe_")).collect();
    let in_table: BTreeSet<&str> = EXPECT.iter().map(|x| x.name).collect();
    assert_eq!(in_table.len(), EXPECT.len(), "a probe is listed twice in EXPECT");
    for missing in in_table.difference(&in_asm) {
        failures.push(format!("probe_{missing}: listed in EXPECT but not in the assembly"));
    }
    for extra in in_asm.difference(&in_table) {
        failures.push(format!("probe_{extra}: in the assembly but not listed in EXPECT (add a row)"));
    }

    println!();
    println!("{:<18} {:>5} {:>5} {:>5}  note", "probe", "probe", "hand", "limit");
    for x in EXPECT {
        let probe = format!("probe_{}", x.name);
        let hand = format!("hand_{}", x.name);
        let (Some((pn, pb)), Some((hn, hb))) = (listing.resolve(&probe), listing.resolve(&hand)) else {
            failures.push(format!("{probe}: it or its twin {hand} is missing from the assembly"));
            continue;
        };
        for v in straight_line_violations(pb).into_iter().chain(multiply_violations(pb, x.mul)) {
            failures.push(format!("{probe}: {v}"));
        }
        let (pc, hc) = (instruction_count(pb), instruction_count(hb));
        let limit = hc + x.tolerance;
        let mut note = if pn == hn {
            "the same code as the twin (merged)".to_string()
        } else if x.tolerance > 0 {
            format!("tolerance +{}: {}", x.tolerance, x.why)
        } else {
            String::new()
        };
        if x.tolerance > 0 && pc < limit {
            note += &format!(" (now {} under the limit: tighten the tolerance)", limit - pc);
        }
        println!("{:<18} {pc:>5} {hc:>5} {limit:>5}  {note}", x.name);
        if pc > limit {
            failures.push(format!(
                "{probe}: {pc} instructions, more than its twin's {hc} + tolerance {} = {limit}:\n        {}",
                x.tolerance,
                pb.join("\n        ")
            ));
        }
    }

    // The checker must see what a runtime extent costs.
    let mut control_seen = 0;
    for (name, body) in listing.funcs.iter().filter(|(k, _)| k.starts_with("control_")) {
        control_seen += 1;
        let v = straight_line_violations(body);
        if !v.iter().any(|m| m.contains("division")) {
            failures.push(format!(
                "{name}: the checker found no division in the control: {v:?}\n        {}",
                body.join("\n        ")
            ));
        }
    }
    if control_seen == 0 {
        failures.push("no control_* function in the assembly".to_string());
    }
    // Tensor loops: no longer than the same loop over a slice (their bounds checks fold away).
    let loops: BTreeSet<&str> = listing.symbols().filter_map(|k| k.strip_prefix("loop_tensor_")).collect();
    if loops.is_empty() {
        failures.push("no loop_tensor_* function in the assembly".to_string());
    }
    for name in loops {
        let (tensor, hand) = (format!("loop_tensor_{name}"), format!("loop_hand_{name}"));
        let (Some((tn, tb)), Some((hn, hb))) = (listing.resolve(&tensor), listing.resolve(&hand)) else {
            failures.push(format!("{tensor}: it or its twin {hand} is missing from the assembly"));
            continue;
        };
        let (tc, hc) = (instruction_count(tb), instruction_count(hb));
        let note = if tn == hn { "the same code as the twin (merged)" } else { "" };
        println!("{:<18} {tc:>5} {hc:>5} {hc:>5}  {note}", format!("loop {name}"));
        if tc > hc {
            failures.push(format!("{tensor}: {tc} instructions, more than the hand-written loop's {hc}"));
        }
    }
    println!("(release build of the probes {build_time:.1?}, whole check {:.1?})", start.elapsed());

    assert!(failures.is_empty(), "codegen check failed:\n  {}", failures.join("\n  "));
}

/// Elsewhere the check cannot run: ignored, so that the test list says so instead of a pass.
#[cfg(not(target_arch = "x86_64"))]
#[test]
#[ignore = "reads x86_64 assembly, and this target is not x86_64"]
fn static_index_math_is_straight_line() {
    panic!("the codegen check reads x86_64 assembly, and this target is not x86_64");
}

/// Each tensor loop computes what its hand-written twin does (every target).
#[test]
fn tensor_loops_match_their_twins() {
    use probes::*;
    let src: Vec<f32> = (0..1024).map(|x| x as f32).collect();
    assert_eq!(loop_tensor_sum(&src), loop_hand_sum(&src));
    assert_eq!(loop_tensor_sum(&src[..1000]), 0.0);
    let (mut a, mut b) = (src.clone(), src.clone());
    loop_tensor_scale(&mut a, 3.0);
    loop_hand_scale(&mut b, 3.0);
    assert_eq!(a, b);
    let (mut a, mut b) = (vec![0.0; 1024], vec![0.0; 1024]);
    loop_tensor_transpose(&src, &mut a);
    loop_hand_transpose(&src, &mut b);
    assert_eq!(a, b);
    assert_eq!(a[1], src[32]);
    // Tensors over other layout kinds (`AnyLayout`): a swizzled tile and a divided one.
    assert_eq!(loop_tensor_swizzled_sum(&src), loop_hand_swizzled_sum(&src));
    assert_eq!(loop_tensor_swizzled_sum(&src[..511]), 0.0);
    let (mut a, mut b) = (vec![0.0; 512], vec![0.0; 512]);
    loop_tensor_generic_swizzled_store(&mut a, 2.0);
    loop_hand_generic_swizzled_store(&mut b, 2.0);
    assert_eq!(a, b);
    // Row 1, column 8 is offset 72, whose bit 6 flips bit 3: element 64 + 8 ^ 8 = 64.
    assert_eq!(a[64], 16.0);
    let (mut a, mut b) = (src.clone(), src.clone());
    loop_tensor_divided_scale(&mut a, 3.0);
    loop_hand_divided_scale(&mut b, 3.0);
    assert_eq!(a, b);
    assert_eq!(a[1023], 3.0 * 1023.0);
}

/// Each probe computes what its hand-written twin does, over the whole shape (every target).
#[test]
fn probes_match_their_twins() {
    use probes::*;
    for i in 0..64 {
        assert_eq!(probe_card_index(i), hand_card_index(i), "card_index({i})");
        assert_eq!(probe_card_idx2crd(i), hand_card_idx2crd(i), "card_idx2crd({i})");
        assert_eq!(probe_card_hier_coord(i), hand_card_hier_coord(i), "card_hier_coord({i})");
    }
    for (a, b, c) in (0..8).flat_map(|a| (0..4).flat_map(move |b| (0..2).map(move |c| (a, b, c)))) {
        assert_eq!(probe_card_hier(a, b, c), hand_card_hier(a, b, c), "card_hier({a},{b},{c})");
    }
    for (a, b) in (0..8).flat_map(|a| (0..8).map(move |b| (a, b))) {
        assert_eq!(probe_card_flat(a, b), hand_card_flat(a, b), "card_flat({a},{b})");
    }
    for i in 0..105 {
        assert_eq!(probe_odd_index(i), hand_odd_index(i), "odd_index({i})");
        assert_eq!(probe_odd_idx2crd(i), hand_odd_idx2crd(i), "odd_idx2crd({i})");
        assert_eq!(probe_odd_hier_coord(i), hand_odd_hier_coord(i), "odd_hier_coord({i})");
    }
    for (a, b, c) in (0..3).flat_map(|a| (0..5).flat_map(move |b| (0..7).map(move |c| (a, b, c)))) {
        assert_eq!(probe_odd_hier(a, b, c), hand_odd_hier(a, b, c), "odd_hier({a},{b},{c})");
    }
    for i in 0..32 {
        assert_eq!(probe_right_index(i), hand_right_index(i), "right_index({i})");
        assert_eq!(probe_right_idx2crd(i), hand_right_idx2crd(i), "right_idx2crd({i})");
        assert_eq!(probe_right_hier_coord(i), hand_right_hier_coord(i), "right_hier_coord({i})");
        assert_eq!(probe_deep_index(i), hand_deep_index(i), "deep_index({i})");
        assert_eq!(probe_deep_idx2crd(i), hand_deep_idx2crd(i), "deep_idx2crd({i})");
        assert_eq!(probe_deep_hier_coord(i), hand_deep_hier_coord(i), "deep_hier_coord({i})");
    }
    for (a, b) in (0..4).flat_map(|a| (0..8).map(move |b| (a, b))) {
        assert_eq!(probe_right_coord(a, b), hand_right_coord(a, b), "right_coord({a},{b})");
    }
    for k in 0..32usize {
        let (a, b, c, d, e) = (k & 1, k >> 1 & 1, k >> 2 & 1, k >> 3 & 1, k >> 4 & 1);
        assert_eq!(probe_deep_hier(a, b, c, d, e), hand_deep_hier(a, b, c, d, e), "deep_hier({k:#b})");
    }
    for (a, b) in (0..4).flat_map(|a| (0..3).map(move |b| (a, b))) {
        assert_eq!(probe_divide_tile(a, b), hand_divide_tile(a, b), "divide_tile({a},{b})");
    }
    for (r, c) in (0..8).flat_map(|r| (0..64).map(move |c| (r, c))) {
        assert_eq!(probe_swizzled(r, c), hand_swizzled(r, c), "swizzled({r},{c})");
    }
    for (x, y) in (0..4).flat_map(|x| (0..8).map(move |y| (x, y))) {
        assert_eq!(probe_deep_flat(x, y), hand_deep_flat(x, y), "deep_flat({x},{y})");
    }
    for k in 0..48usize {
        let (a, b, c, d) = (k % 4, k / 4 % 3, k / 12 % 2, k / 24);
        assert_eq!(probe_generic_divide(a, b, c, d), hand_generic_divide(a, b, c, d), "generic_divide({k})");
        assert_eq!(
            probe_generic_local_tile(c, d, a, b),
            hand_generic_local_tile(c, d, a, b),
            "generic_local_tile({k})"
        );
    }
    for (r, c) in (0..8).flat_map(|r| (0..64).map(move |c| (r, c))) {
        assert_eq!(probe_generic_swizzled(r, c), hand_generic_swizzled(r, c), "generic_swizzled({r},{c})");
    }
    for (k, i) in (0..6).flat_map(|k| (0..8).map(move |i| (k, i))) {
        assert_eq!(probe_generic_slice(k, i), hand_generic_slice(k, i), "generic_slice({k},{i})");
    }
    for k in 0..256usize {
        let (i, j, bm, bn) = (k % 4, k / 4 % 8, k / 32 % 3, k / 96 % 2);
        assert_eq!(
            probe_generic_identity(i, j, bm, bn, 10, 13),
            hand_generic_identity(i, j, bm, bn, 10, 13),
            "generic_identity({k})"
        );
    }
    for t in 0..12usize {
        for (a, b) in [(0usize, 0usize), (1, 0), (0, 1), (1, 1)] {
            assert_eq!(
                probe_generic_partition(t, a, b),
                hand_generic_partition(t, a, b),
                "generic_partition({t})"
            );
        }
    }
    for (r, c) in (0..8).flat_map(|r| (0..64).map(move |c| (r, c))) {
        assert_eq!(probe_any_swizzled(r, c), hand_any_swizzled(r, c), "any_swizzled({r},{c})");
    }
    for k in 0..48usize {
        let (a, b, c, d) = (k % 4, k / 4 % 3, k / 12 % 2, k / 24);
        assert_eq!(probe_any_divide(a, b, c, d), hand_any_divide(a, b, c, d), "any_divide({k})");
    }
    assert_eq!(control_runtime_extent(13, 5), (3, 2));
}

/// The checker itself, on a hand-made listing: it flags what it should and accepts `lea`.
#[test]
fn checker_flags_what_it_should() {
    let asm = "\t.intel_syntax noprefix
\t.globl\tgood
\t.type\tgood,@function
good:
\t.cfi_startproc
\tlea\trax, [rdi + 8*rsi]   # address arithmetic, not a load
\tshl\trdx, 5
\tadd\trax, rdx
\tret
.Lfunc_end0:
\t.size\tgood, .Lfunc_end0-good
bad:
\tpush\trbx
\tmov\trax, qword ptr [rip + .LCPI1_0]
\tdiv\trcx
\ttest\trax, rax
\tje\t.LBB1_2
.LBB1_2:
\timul\trcx
\tpop\trbx
\tjmp\tgood
.Lfunc_end1:
thunk:
\tjmp\tgood
.Lfunc_end2:
.set alias, good
alias2 = thunk
";
    let f = parse_functions(asm);
    let (_, good) = f.resolve("good").unwrap();
    assert_eq!(instruction_count(good), 4);
    assert!(straight_line_violations(good).is_empty(), "{:?}", straight_line_violations(good));
    assert!(multiply_violations(good, Mul::None).is_empty());
    assert_eq!(multiply_violations(good, Mul::High).len(), 1);
    assert_eq!(f.resolve("thunk").unwrap().0, "good");
    assert_eq!(f.resolve("alias").unwrap().0, "good");
    assert!(f.symbols().any(|s| s == "alias2"));
    assert_eq!(f.resolve("alias2").unwrap().0, "good");
    let (_, bad_body) = f.resolve("bad").unwrap();
    let bad = straight_line_violations(bad_body);
    for what in ["push", "memory operand", "division", "jump", "second basic block", "not end in `ret`"] {
        assert!(bad.iter().any(|m| m.contains(what)), "{what} not flagged: {bad:?}");
    }
    assert_eq!(multiply_violations(bad_body, Mul::None).len(), 1);
}
