//! The `layout` tool's commands, text in and text out: [`run`] takes the arguments and returns
//! what the tool prints, or its one error. The binary (`src/main.rs`) adds the process around it
//! (arguments, a thread with a large stack, the exit status, `serve` and `site`); the
//! playground's WebAssembly build (`web/module`) compiles this same file, so that the page shows the
//! tool's exact text.

use const_layout::LayoutError;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::{EvalError, OPERATIONS, Value, eval};
use const_layout::int::Int;
use const_layout::layout;
use const_layout::picture::{
    print_latex, print_latex_composed, print_latex_tv, print_svg, print_svg_swizzle, print_svg_tv,
    print_svg_values,
};
use std::fmt::Write as _;

mod atoms;
mod ck_tile;
mod rocroller;
mod steps;

const USAGE: &str = "\
usage: layout                      a short tour of the layout (8,(4,2)):(1,8)
       layout eval [--json] EXPR   evaluate a CuTe expression, e.g.
                                     layout eval '(8,(4,2)):(1,8)'
                                     layout eval 'crd2idx((1,(1,2)), (4,(2,3)):(3,(1,8)))'
                                     layout eval 'idx2crd(13, (4,(2,3)))'
       layout table EXPR           CuTe's print_layout: the offsets of a rank-2 layout as a table
                                     layout table '(_4,(_2,_2)):(_2,(_1,_8))'
       layout latex EXPR           CuTe's print_latex: a TikZ picture (a standalone LaTeX document)
                                     layout latex '(_4,_8):(_8,_1)'
                                     layout latex 'make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))'
       layout svg [-o FILE] [--bank-groups UNIT,COUNT] EXPR
                                   an SVG picture, written to FILE (default: stdout):
                                     a layout (rank 1 or 2): offsets, coloured by offset
                                     a TV layout (make_layout_tv): T{thread} over V{value}, coloured by thread
                                     a swizzled layout (composition(Sw<B,M,S>, L)): offsets, coloured by
                                     bank group (offset / 2^M) mod 2^B, or (offset / UNIT) mod COUNT
                                     layout svg -o sw.svg 'composition(Sw<3,3,3>, (_8,_64):(_64,_1))'
                                   EXPR is anything `eval` accepts
       layout conflicts [--json] TV SMEM [--op OP] [--bytes B] [--vec V] [--svg FILE]
                                   shared-memory wavefronts (NVIDIA's rules, measured on the H200)
                                   of an access: TV maps (thread, value) to a tile element (its mode
                                   0 the threads), SMEM the element to its offset (any layout:
                                   padded, not powers of two, composition(Sw<..>, L), linear(..));
                                   each thread accesses V values of B bytes at a time (default 2, 8);
                                   OP: ld (default), st, ldmatrix[.x1|.x2|.x4][.trans], stmatrix[...],
                                   cp.async; --svg draws the first instruction's phases, words by
                                   bank, conflicting ones outlined in red (--svg - prints the
                                   picture instead of the report)
                                     layout conflicts '((_8,_4),_8):((_1,_64),_8)' 'composition(Sw<3,3,3>, (_8,_64):(_64,_1))'
                                     layout conflicts '(_32,_32):(_1,_32)' '(_32,_32):(_33,_1)' --bytes 4 --vec 1
       layout conflicts --addresses LIST [--op OP] [--bytes B] [--svg FILE]
                                   the same for any access: LIST holds each lane's byte address
                                   (`,` or spaces between lanes, `-` for a lane left out, `;`
                                   between instructions; @FILE reads it from FILE)
       layout coalescing [--json] TV GLOBAL [--bytes B] [--vec V] [--base BYTES]
       layout coalescing --addresses LIST [--bytes B] [--base BYTES]
                                   global-memory sectors (32 B) and lines (128 B) per warp request,
                                   against the fewest the request's bytes fill
                                     layout coalescing '(_32,_32):(_1,_32)' '(_32,_32):(_32,_1)' --bytes 4 --vec 1
       layout swizzle-for WRITE READ TILE [--bytes B] [--vec-write V] [--vec-read V]
                         [--write-op OP] [--read-op OP]
                                   the Sw<B,M,S> (B, M, S <= 5) over TILE that first widens both
                                   accesses' vectors, then removes their bank conflicts (write: st,
                                   read: ld by default); the best padding of TILE's rows beside it;
                                   and a linear layout over F2 (any XOR swizzle) where one does better
       layout steps [--svg] EXPR   where each element of a composition's, a divide's or a
                                   product's input lands in the result: the map as a layout, and
                                   with --svg its picture over the input's cells (divides: by tile;
                                   products: over the result's cells, by copy)
                                     layout steps --svg 'logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)'
       layout atom [NAME [--svg A|B|C]]
                                   the MMA and copy atoms by CuTe's names, their layouts; --svg: an
                                   MMA operand's (thread, value) picture over its tile
                                     layout atom SM80_16x8x16_F32F16F16F32_TN --svg C
       layout tma-box SMEM [--bits B]
                                   the TMA box and swizzle mode that write the shared tile SMEM
                                   ((rows, k) -> element, or composition(Sw<B,M,S>, that)), B-bit
                                   elements (default 16), or why none does
                                     layout tma-box 'composition(Sw<3,4,3>, (_64,_64):(_64,_1))'
       layout ck-tile [--at COORD | --svg] DESC
                                   a CK Tile tensor descriptor or adaptor in ck_tile's notation
                                   (transforms top first, each `name(args): [upper ids] -> [lower ids]`):
                                   re-printed a stage a line, its top lengths and element space size,
                                   and each top index's offset (an adaptor's: bottom index; `-`: invalid,
                                   in a pad's padding) as a table (1 or 2 top dimensions) or a line each;
                                   --at: CK's coordinate transform of one top index, the hidden index
                                   after each transform; --svg: the offsets as a picture (top dim 0 down)
                                     layout ck-tile 'tensor_descriptor{transforms: [embed((4,6),(8,_1)): [1,2] -> [0]], top: [1,2], element_space_size: 30}'
       layout rocroller [--svg | --table-svg] [--reverse] [--at TAG=V,...] GRAPH
                                   AMD rocRoller's coordinate graph: the graph, its sources (no edge
                                   in) and sinks (no edge out), and each sink at every coordinate of
                                   the sources as rocRoller's Transformer computes it (a grid for one
                                   or two sources, `-` where it cannot); --reverse: each source from
                                   the sinks, as a store traverses; --at: every dimension reached
                                   from those coordinates, forward and in reverse; --svg: the graph
                                   in layers; --table-svg: the first table as a picture
                                     layout rocroller 'graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}'
       layout functions            list the functions `eval` knows
       layout serve [--port P] [--host H]
                                   the playground: these commands as a web page, computed in the
                                   browser (WebAssembly), at http://127.0.0.1:P/ (default 8000;
                                   0: a free port)
       layout site DIR             write the playground's files to DIR, for any web server
       layout --help | --version";

/// The largest layout whose offsets `--json` lists.
const MAX_JSON_VALUES: isize = 1 << 20;

/// The most cells `table` prints (a 256 x 256 table): its text and time grow with the cells.
const MAX_TABLE_CELLS: isize = 1 << 16;

/// The most characters of the user's input an error message repeats.
const MAX_ECHO_CHARS: usize = 80;

/// The longest error message, in characters (after escaping).
const MAX_ERROR_CHARS: usize = 400;
/// A message as one line of bounded length: control characters escaped, the rest cut with an
/// ellipsis.
pub fn one_line(msg: &str) -> String {
    let mut out = String::new();
    push_escaped(&mut out, msg, MAX_ERROR_CHARS);
    out
}

/// The user's text as an error repeats it: in backquotes, control characters escaped, at most
/// `MAX_ECHO_CHARS` characters and an ellipsis.
pub fn quote(text: &str) -> String {
    let mut out = String::from("`");
    push_escaped(&mut out, text, MAX_ECHO_CHARS);
    out.push('`');
    out
}

/// Appends at most `limit` characters of `text`, control characters escaped (so the result stays
/// on one line), and an ellipsis where it was cut.
fn push_escaped(out: &mut String, text: &str, limit: usize) {
    for (n, c) in text.chars().enumerate() {
        if n == limit {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
}

pub fn run(args: &[String], json: bool) -> Result<String, String> {
    let rest: Vec<&str> = args.iter().map(String::as_str).filter(|a| *a != "--json").collect();
    match rest.as_slice() {
        [] if !json => Ok(tour()),
        ["--help" | "-h" | "help"] => Ok(format!("{USAGE}\n")),
        ["--version" | "-V"] => Ok(format!("layout {}\n", env!("CARGO_PKG_VERSION"))),
        ["functions"] => Ok(OPERATIONS.iter().map(|e| format!("{}{}\n", e.name, e.args)).collect()),
        ["eval"] => Err("`eval` needs an expression, e.g. layout eval 'size((4,8))'".to_string()),
        ["eval", expr @ ..] => evaluate(&expr.join(" "), json),
        [cmd @ ("table" | "latex" | "svg"), ..] if json => {
            Err(format!("`--json` applies to `eval`; `{cmd}` prints a picture"))
        }
        ["table", expr @ ..] => expression("table", expr).and_then(|e| table(&e)),
        ["latex", expr @ ..] => expression("latex", expr).and_then(|e| latex(&e)),
        ["svg", args @ ..] => svg(args),
        ["conflicts", args @ ..] => conflicts(args, json),
        ["swizzle-for", ..] if json => {
            Err("`--json` applies to `eval`, `conflicts` and `coalescing`".to_string())
        }
        ["swizzle-for", args @ ..] => swizzle_for(args),
        ["coalescing", args @ ..] => coalescing(args, json),
        [cmd @ ("atom" | "tma-box" | "steps" | "ck-tile" | "rocroller"), ..] if json => {
            Err(format!("`--json` applies to `eval`, `conflicts` and `coalescing`, not `{cmd}`"))
        }
        ["atom", args @ ..] => atoms::atom(args),
        ["steps", args @ ..] => steps::steps(args),
        ["tma-box", args @ ..] => atoms::tma_box(args),
        ["ck-tile", args @ ..] => ck_tile::ck_tile(args),
        ["rocroller", args @ ..] => rocroller::rocroller(args),
        ["serve" | "site", ..] => {
            Err("`serve` and `site` are the command-line tool's: run `layout serve`".to_string())
        }
        [] => Err("nothing to do: give a command, e.g. layout eval --json '(4,8):(1,4)'".to_string()),
        [other, ..] => Err(format!("unknown command {}; run `layout --help`", quote(other))),
    }
}

/// The options `--NAME VALUE` of a command (each a power of two from 1 to 16) and its other
/// arguments.
fn options<'a>(args: &[&'a str], names: &[&str]) -> Result<(Vec<&'a str>, Vec<Option<u32>>), String> {
    let mut plain = Vec::new();
    let mut values = vec![None; names.len()];
    let mut i = 0;
    while i < args.len() {
        if let Some(k) = names.iter().position(|n| args[i] == format!("--{n}")) {
            let v = args.get(i + 1).ok_or_else(|| format!("`--{}` needs a value", names[k]))?;
            let n: u32 =
                v.parse().ok().filter(|n: &u32| n.is_power_of_two() && *n <= 16).ok_or_else(|| {
                    format!("`--{}` takes a power of two from 1 to 16, not {}", names[k], quote(v))
                })?;
            values[k] = Some(n);
            i += 2;
        } else {
            plain.push(args[i]);
            i += 1;
        }
    }
    Ok((plain, values))
}

/// An expression as a linear map over F2: a layout, a TV layout's `(thread, value) -> index`, or a
/// swizzled layout.
fn linear_of(expr: &str) -> Result<(const_layout::linear::LinearLayout, Option<DynLayout>), String> {
    linear_of_value(memory_layout(expr)?, expr)
}

/// [`linear_of`] of an evaluated layout (`memory_layout`'s value).
fn linear_of_value(
    v: Value,
    expr: &str,
) -> Result<(const_layout::linear::LinearLayout, Option<DynLayout>), String> {
    use const_layout::linear::LinearLayout;
    let at = |e: LayoutError| format!("{e} in {}", quote(expr));
    match v {
        Value::Layout(l) | Value::LayoutTv(_, l) => Ok((LinearLayout::from_layout(&l).map_err(at)?, Some(l))),
        Value::Composed(c) => Ok((LinearLayout::from_composed(&c).map_err(at)?, None)),
        Value::Linear(l) => Ok((l, None)),
        _ => unreachable!("memory_layout gives layouts only"),
    }
}

/// An expression that is a layout, a TV layout, a swizzled layout or a linear layout, evaluated;
/// an error naming what it is otherwise.
fn memory_layout(expr: &str) -> Result<Value, String> {
    match eval_picture(expr)? {
        v @ (Value::Layout(_) | Value::LayoutTv(..) | Value::Composed(_) | Value::Linear(_)) => Ok(v),
        other => Err(format!(
            "{} is {}; give a layout, a swizzled layout or a linear layout",
            quote(expr),
            kind(&other)
        )),
    }
}

/// The most `(thread, value)` pairs (as bits) `conflicts` and `swizzle-for` simulate: 2^16 takes
/// `swizzle-for` under half a second over its 200-odd swizzles.
const MAX_ACCESS_BITS: u32 = 16;

/// An error if `tv` has more `(thread, value)` pairs than `2^max` (see [`MAX_ACCESS_BITS`]).
fn bounded(tv: &const_layout::linear::LinearLayout, max: u32, cmd: &str, expr: &str) -> Result<(), String> {
    if tv.in_bits() > max {
        return Err(format!(
            "{} has 2^{} (thread, value) pairs; `{cmd}` takes at most 2^{max}",
            quote(expr),
            tv.in_bits()
        ));
    }
    Ok(())
}

/// An error if `tv` reaches elements past `tile`'s.
fn fits(
    tv: &const_layout::linear::LinearLayout,
    tile: &const_layout::linear::LinearLayout,
    expr: &str,
) -> Result<(), String> {
    if tv.out_bits() > tile.in_bits() {
        return Err(format!(
            "{} reaches tile elements up to 2^{} - 1; the shared-memory layout has {}",
            quote(expr),
            tv.out_bits(),
            1u64 << tile.in_bits()
        ));
    }
    Ok(())
}

/// The threads of a TV layout: the size of its mode 0, a power of two.
fn thread_bits(tv: &Option<DynLayout>, expr: &str) -> Result<u32, String> {
    let t = tv
        .as_ref()
        .and_then(|l| l.mode(0))
        .map(|m| m.size().value)
        .ok_or_else(|| format!("{} is not a (thread, value) layout of rank 2", quote(expr)))?;
    Ok(t.trailing_zeros())
}

/// A string option `--NAME VALUE` taken out of `args`: its value (if given) and the rest.
fn take_option<'a>(args: &[&'a str], name: &str) -> Result<(Option<&'a str>, Vec<&'a str>), String> {
    match args.iter().position(|a| *a == name) {
        Some(k) => {
            let v = args.get(k + 1).ok_or_else(|| format!("`{name}` needs a value"))?;
            Ok((Some(*v), [&args[..k], &args[k + 2..]].concat()))
        }
        None => Ok((None, args.to_vec())),
    }
}

/// The access kind of `--op` (default `ld`).
fn access_kind(op: Option<&str>) -> Result<const_layout::bank::AccessKind, String> {
    match op {
        None => Ok(const_layout::bank::AccessKind::Load),
        Some(o) => o.parse().map_err(|_| {
            format!(
                "`--op` takes ld, st, ldmatrix[.x1|.x2|.x4][.trans], stmatrix[...] or cp.async, not {}",
                quote(o)
            )
        }),
    }
}

/// The most instructions `--addresses` takes.
const MAX_ADDRESS_INSTRUCTIONS: usize = 1 << 16;

/// `--addresses LIST`: instructions separated by `;`, each one byte address a lane (decimal or
/// `0x` hex, separated by `,` or spaces; `-` for a lane left out); `@FILE` reads LIST from FILE.
fn address_list(list: &str, max_lanes: usize) -> Result<Vec<Vec<u64>>, String> {
    let text = match list.strip_prefix('@') {
        Some(path) => {
            let meta = std::fs::metadata(path)
                .map_err(|e| format!("cannot read {}: {}", quote(path), one_line(&e.to_string())))?;
            if meta.len() > 64 << 20 {
                return Err(format!("{} is over 64 MiB", quote(path)));
            }
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {}", quote(path), one_line(&e.to_string())))?
        }
        None => list.to_string(),
    };
    let mut out = Vec::new();
    for (i, ins) in text.split(';').enumerate() {
        if ins.trim().is_empty() && i > 0 {
            continue;
        }
        if out.len() == MAX_ADDRESS_INSTRUCTIONS {
            return Err(format!("`--addresses` takes at most {MAX_ADDRESS_INSTRUCTIONS} instructions"));
        }
        let mut lanes = Vec::new();
        for tok in ins.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
            if lanes.len() == max_lanes {
                return Err(format!("instruction {i} of `--addresses` has more than {max_lanes} lanes"));
            }
            let a = if tok == "-" {
                u64::MAX
            } else if let Some(h) = tok.strip_prefix("0x") {
                u64::from_str_radix(h, 16)
                    .ok()
                    .filter(|a| *a < u64::MAX)
                    .ok_or_else(|| format!("{} in `--addresses` is not an address", quote(tok)))?
            } else {
                tok.parse::<u64>()
                    .ok()
                    .filter(|a| *a < u64::MAX)
                    .ok_or_else(|| format!("{} in `--addresses` is not an address", quote(tok)))?
            };
            lanes.push(a);
        }
        if lanes.is_empty() {
            return Err(format!("instruction {i} of `--addresses` has no lanes"));
        }
        out.push(lanes);
    }
    Ok(out)
}

/// A TV layout and its threads: the size of its mode 0.
fn tv_layout(expr: &str) -> Result<(DynLayout, u64), String> {
    let l = match eval_picture(expr)? {
        Value::Layout(l) | Value::LayoutTv(_, l) => l,
        other => return Err(format!("{} is {}; give a (thread, value) layout", quote(expr), kind(&other))),
    };
    let t = l
        .mode(0)
        .map(|m| m.size().value as u64)
        .filter(|_| l.rank() == 2)
        .ok_or_else(|| format!("{} is not a (thread, value) layout of rank 2", quote(expr)))?;
    Ok((l, t))
}

/// A `memory_layout` value as the function the simulation evaluates.
fn offsets(v: &Value) -> &dyn const_layout::bank::Offsets {
    match v {
        Value::Layout(l) | Value::LayoutTv(_, l) => l,
        Value::Composed(c) => c,
        Value::Linear(l) => l,
        _ => unreachable!("memory_layout gives layouts only"),
    }
}

/// The operands of `conflicts` and `coalescing`: the TV layout, its threads and the memory
/// layout, checked to fit each other and the simulation's bound.
fn operands(
    cmd: &str,
    tv_expr: &str,
    mem_expr: &str,
    memory: &str,
) -> Result<(DynLayout, u64, Value), String> {
    use const_layout::bank::MAX_SIMULATED;
    let (tv, threads) = tv_layout(tv_expr)?;
    let mem = memory_layout(mem_expr)?;
    reaches(&tv, tv_expr, offsets(&mem).size_of(), memory)?;
    let pairs = tv.size().value as u64;
    if pairs > MAX_SIMULATED {
        return Err(format!(
            "{} has {pairs} (thread, value) pairs; `{cmd}` takes at most 2^{}",
            quote(tv_expr),
            MAX_SIMULATED.trailing_zeros()
        ));
    }
    Ok((tv, threads, mem))
}

/// An error if the TV layout reaches elements past the `size` of the memory layout.
fn reaches(tv: &DynLayout, expr: &str, size: u64, memory: &str) -> Result<(), String> {
    let reach = tv.cosize().value as u64;
    if reach > size {
        return Err(format!(
            "{} reaches tile elements up to {}; the {memory} layout has {size}",
            quote(expr),
            reach - 1
        ));
    }
    Ok(())
}

/// The line `conflicts` prints.
fn conflicts_line(
    c: const_layout::bank::Conflicts,
    kind: const_layout::bank::AccessKind,
    what: &str,
    json: bool,
) -> String {
    if json {
        return format!(
            "{{\"wavefronts\":{},\"ideal\":{},\"extra\":{},\"op\":{}}}\n",
            c.wavefronts,
            c.ideal,
            c.extra(),
            json_string(&kind.to_string())
        );
    }
    format!(
        "{} wavefronts, {} without conflicts: {} extra ({:.2}x); {what}\n",
        c.wavefronts,
        c.ideal,
        c.extra(),
        c.wavefronts as f64 / c.ideal.max(1) as f64,
    )
}

/// `layout conflicts TV SMEM` or `layout conflicts --addresses LIST`: the wavefronts of the
/// access, NVIDIA's model; the closed form over F2 where both maps are linear, else simulated.
fn conflicts(args: &[&str], json: bool) -> Result<String, String> {
    use const_layout::bank::{INACTIVE, NVIDIA, access, simulate, wavefronts};
    let (svg_path, args) = take_option(args, "--svg")?;
    if json && svg_path == Some("-") {
        return Err("`--svg -` prints the picture instead of the report: not with `--json`".to_string());
    }
    let (op, args) = take_option(&args, "--op")?;
    let (list, args) = take_option(&args, "--addresses")?;
    let kind = access_kind(op)?;
    let (plain, o) = options(&args, &["bytes", "vec"])?;
    if let Some(list) = list {
        if !plain.is_empty() {
            return Err("`conflicts --addresses LIST` takes no layouts".to_string());
        }
        let (bytes, vec) = (o[0].unwrap_or(4), o[1].unwrap_or(1));
        let width = bytes * vec;
        let mut total = const_layout::bank::Conflicts::default();
        let mut picture = None;
        let instructions = address_list(list, NVIDIA.threads as usize)?;
        for (i, ins) in instructions.iter().enumerate() {
            let addrs: Vec<u32> = ins
                .iter()
                .map(|&a| {
                    if a == u64::MAX {
                        Ok(INACTIVE)
                    } else {
                        u32::try_from(a).ok().filter(|a| *a != INACTIVE).ok_or(a)
                    }
                })
                .collect::<Result<_, _>>()
                .map_err(|a| format!("instruction {i}: address {a} is past shared memory's 2^32 bytes"))?;
            let c = wavefronts(&NVIDIA, kind, &addrs, width).map_err(|e| format!("instruction {i}: {e}"))?;
            total = total.plus(c);
            if let (0, Some(path)) = (i, svg_path) {
                picture = write_svg(path, kind, &addrs, width)?;
            }
        }
        if let Some(svg) = picture {
            return Ok(svg);
        }
        let n = instructions.len();
        return Ok(conflicts_line(
            total,
            kind,
            &format!(
                "{n} instruction{} of {kind}, {} bytes a lane",
                if n == 1 { "" } else { "s" },
                kind.width(width)
            ),
            json,
        ));
    }
    let [tv_expr, smem_expr] = plain[..] else {
        return Err("`conflicts` takes a TV layout and a shared-memory layout, e.g. layout conflicts '((_8,_4),_8):((_1,_64),_8)' 'composition(Sw<3,3,3>, (_8,_64):(_64,_1))', or --addresses LIST".to_string());
    };
    let (bytes, vec) = (o[0].unwrap_or(2), o[1].unwrap_or(8));
    let (tv, threads, smem) = operands("conflicts", tv_expr, smem_expr, "shared-memory")?;
    let mem = offsets(&smem);
    // The closed form where both maps are linear over F2 (and the threads a power of two); the
    // simulation otherwise. They agree wherever both apply (tests/laws/bank.rs).
    let linear =
        match (const_layout::linear::LinearLayout::from_layout(&tv), linear_of_value(smem, smem_expr)) {
            (Ok(tvl), Ok((sl, _))) if threads.is_power_of_two() && tvl.out_bits() <= sl.in_bits() => {
                Some((tvl, sl))
            }
            _ => None,
        };
    let tb = threads.trailing_zeros();
    let c = match &linear {
        Some((tvl, sl)) => access(&NVIDIA, kind, tvl, tb, sl, bytes, vec).map_err(|e| e.to_string())?,
        None => simulate(&NVIDIA, kind, &tv, threads, mem, bytes, vec)
            .map_err(|e| format!("{e} in {}", quote(tv_expr)))?,
    };
    if let Some(path) = svg_path {
        // The first instruction: the first lanes' first vectors.
        let lanes = (kind.lanes(&NVIDIA) as u64).min(threads);
        let addrs: Vec<u32> = (0..lanes)
            .map(|t| (mem.offset_at(tv.offset(t as isize) as u64) as u64 * bytes as u64) as u32)
            .collect();
        if let Some(svg) = write_svg(path, kind, &addrs, bytes * vec)? {
            return Ok(svg);
        }
    }
    Ok(conflicts_line(c, kind, &format!("{threads} threads, vectors of {vec} x {bytes} bytes, {kind}"), json))
}

/// `layout coalescing TV GLOBAL` or `layout coalescing --addresses LIST`: sectors and lines per
/// warp request of a global-memory access.
fn coalescing(args: &[&str], json: bool) -> Result<String, String> {
    use const_layout::coalescing::{Coalescing, coalescing, request};
    let (list, args) = take_option(args, "--addresses")?;
    let (base, args) = take_option(&args, "--base")?;
    let (plain, o) = options(&args, &["bytes", "vec"])?;
    let base: u64 = match base {
        None => 0,
        Some(b) => b
            .parse()
            .ok()
            .filter(|b| *b < 1u64 << 48)
            .ok_or_else(|| format!("`--base` takes a byte offset below 2^48, not {}", quote(b)))?,
    };
    let (c, what) = if let Some(list) = list {
        if !plain.is_empty() {
            return Err("`coalescing --addresses LIST` takes no layouts".to_string());
        }
        let width = o[0].unwrap_or(4) * o[1].unwrap_or(1);
        let mut total = Coalescing::default();
        for (i, ins) in address_list(list, 32)?.iter().enumerate() {
            let moved: Vec<u64> =
                ins.iter().map(|&a| if a == u64::MAX { a } else { a.saturating_add(base) }).collect();
            total = total.plus(request(&moved, width).map_err(|e| format!("instruction {i}: {e}"))?);
        }
        (total, format!("{width} bytes a lane"))
    } else {
        let [tv_expr, g_expr] = plain[..] else {
            return Err("`coalescing` takes a TV layout and a global-memory layout, e.g. layout coalescing '(_32,_4):(_4,_1)' '_128:_1' --bytes 4 --vec 4, or --addresses LIST".to_string());
        };
        let (bytes, vec) = (o[0].unwrap_or(2), o[1].unwrap_or(8));
        let (tv, threads, g) = operands("coalescing", tv_expr, g_expr, "global-memory")?;
        let c = coalescing(&tv, threads, offsets(&g), bytes, vec, base)
            .map_err(|e| format!("{e} in {}", quote(tv_expr)))?;
        (c, format!("{threads} threads, vectors of {vec} x {bytes} bytes"))
    };
    if json {
        return Ok(format!(
            "{{\"requests\":{},\"sectors\":{},\"lines\":{},\"min_sectors\":{},\"min_lines\":{}}}\n",
            c.requests, c.sectors, c.lines, c.min_sectors, c.min_lines
        ));
    }
    let per = |x: u64| x as f64 / c.requests.max(1) as f64;
    Ok(format!(
        "{} request{}: {} sectors ({:.2} a request, the fewest {}: {:.2}x), {} lines ({:.2} a request, the fewest {}); {what}\n",
        c.requests,
        if c.requests == 1 { "" } else { "s" },
        c.sectors,
        per(c.sectors),
        c.min_sectors,
        c.sectors as f64 / c.min_sectors.max(1) as f64,
        c.lines,
        per(c.lines),
        c.min_lines,
    ))
}

/// `layout swizzle-for WRITE READ TILE`: the best swizzle over the tile.
fn swizzle_for(args: &[&str]) -> Result<String, String> {
    use const_layout::bank::NVIDIA;
    use const_layout::synthesis::{Access, best_linear, best_swizzle};
    let (write_op, args) = take_option(args, "--write-op")?;
    let (read_op, args) = take_option(&args, "--read-op")?;
    let write_kind = match write_op {
        None => const_layout::bank::AccessKind::Store,
        Some(_) => access_kind(write_op)?,
    };
    let read_kind = access_kind(read_op)?;
    let (plain, o) = options(&args, &["bytes", "vec-write", "vec-read"])?;
    let [w_expr, r_expr, tile_expr] = plain[..] else {
        return Err("`swizzle-for` takes a write TV layout, a read TV layout and the tile layout".to_string());
    };
    let (bytes, vw, vr) = (o[0].unwrap_or(2), o[1].unwrap_or(8), o[2].unwrap_or(8));
    let (w, wl) = linear_of(w_expr)?;
    let (r, rl) = linear_of(r_expr)?;
    let (tile, _) = linear_of(tile_expr)?;
    fits(&w, &tile, w_expr)?;
    fits(&r, &tile, r_expr)?;
    bounded(&w, MAX_ACCESS_BITS, "swizzle-for", w_expr)?;
    bounded(&r, MAX_ACCESS_BITS, "swizzle-for", r_expr)?;
    let write = Access { kind: write_kind, tv: w, thread_bits: thread_bits(&wl, w_expr)?, vec: vw };
    let read = Access { kind: read_kind, tv: r, thread_bits: thread_bits(&rl, r_expr)?, vec: vr };
    let best = best_swizzle(&NVIDIA, &tile, bytes, &write, &read).map_err(|e| e.to_string())?;
    let mut out = format!(
        "{}: write vectors of {}, {} wavefronts ({} extra); read vectors of {}, {} wavefronts ({} extra)\n",
        best.swizzle,
        best.write_vec,
        best.write.wavefronts,
        best.write.extra(),
        best.read_vec,
        best.read.wavefronts,
        best.read.extra()
    );
    out.push_str(&padding_line(&tile, bytes, &write, &read, &best)?);
    let general = best_linear(&NVIDIA, &tile, bytes, &write, &read).map_err(|e| e.to_string())?;
    if general.swizzle.is_some() {
        out.push_str("no linear layout over F2 does better\n");
        return Ok(out);
    }
    let offsets: Vec<String> =
        (0..general.smem.in_bits()).map(|i| general.smem.basis(i).to_string()).collect();
    out.push_str(&format!(
        "a linear layout over F2 does better: write vectors of {}, {} wavefronts ({} extra); read vectors of {}, {} wavefronts ({} extra)\n",
        general.write_vec,
        general.write.wavefronts,
        general.write.extra(),
        general.read_vec,
        general.read.wavefronts,
        general.read.extra()
    ));
    out.push_str(&format!("  offsets of the tile's element bits 0, 1, 2, ... (an element's offset is the XOR of its bits'): {}\n", offsets.join(" ")));
    if let Ok(c) = general.smem.to_composed() {
        out.push_str(&format!("  as a CuTe layout of element index: {c}\n"));
    }
    Ok(out)
}

/// `swizzle-for`'s line on padding: the best padding of the tile's rows against the best swizzle.
fn padding_line(
    tile: &const_layout::linear::LinearLayout,
    bytes: u32,
    write: &const_layout::synthesis::Access,
    read: &const_layout::synthesis::Access,
    best: &const_layout::synthesis::Choice,
) -> Result<String, String> {
    use const_layout::bank::NVIDIA;
    let Some(p) = const_layout::synthesis::best_padding(&NVIDIA, tile, bytes, write, read)
        .map_err(|e| e.to_string())?
    else {
        return Ok(String::new());
    };
    let score = |w: u32, r: u32, c: u32| (w.min(r), w + r, std::cmp::Reverse(c));
    let (ps, ss) = (
        score(p.write_vec, p.read_vec, p.conflicts()),
        score(best.write_vec, best.read_vec, best.conflicts()),
    );
    let what = format!(
        "rows of {} elements padded by {} (+{} bytes): write vectors of {}, {} wavefronts ({} extra); read vectors of {}, {} wavefronts ({} extra)",
        p.row,
        p.pad,
        p.extra_bytes,
        p.write_vec,
        p.write.wavefronts,
        p.write.extra(),
        p.read_vec,
        p.read.wavefronts,
        p.read.extra()
    );
    Ok(match ps.cmp(&ss) {
        std::cmp::Ordering::Greater => format!("padding beats every Sw<B,M,S>: {what}\n"),
        std::cmp::Ordering::Equal => format!("padding ties with it, at a cost in memory: {what}\n"),
        std::cmp::Ordering::Less => {
            format!("the swizzle beats every padding of rows by 4 to 32 bytes; the best: {what}\n")
        }
    })
}

/// The SVG of `layout conflicts --svg`: the first instruction of the first warp, one band per
/// phase, the words the phase touches in rows of the model's banks (columns: bank 0 to banks - 1),
/// each word coloured by its bank and labelled with the first lane that touches it (and how many
/// more); a word whose bank serves more than one distinct word in its phase has a red border.
/// Pixel size of a cell.
const SVG_CELL: i64 = 36;
/// Left margin for the row labels.
const SVG_LEFT: i64 = 64;
/// Height of a band's title line.
const SVG_TITLE: i64 = 18;

/// `--svg`: the picture of one instruction, written to `path`; for `-`, returned instead (the
/// command then prints it in place of its report: the playground draws it).
fn write_svg(
    path: &str,
    kind: const_layout::bank::AccessKind,
    addrs: &[u32],
    bytes: u32,
) -> Result<Option<String>, String> {
    let svg = conflicts_svg(&const_layout::bank::NVIDIA, kind, addrs, bytes)
        .ok_or("the access does not fit the bank model")?;
    if path == "-" {
        return Ok(Some(svg));
    }
    std::fs::write(path, svg)
        .map_err(|e| format!("cannot write {}: {}", quote(path), one_line(&e.to_string())))?;
    Ok(None)
}

/// A word of a phase's picture: the word, the first lane on it and how many lanes are.
type Word = (u32, u32, u32);

/// The picture of one instruction of `kind`: lane `l` accesses `bytes` bytes at byte address
/// `addrs[l]` ([`const_layout::bank::INACTIVE`] for none), on `model`; `None` if the instruction
/// does not fit the model (`const_layout::bank::wavefronts` gives the error).
fn conflicts_svg(
    model: &const_layout::bank::BankModel,
    kind: const_layout::bank::AccessKind,
    addrs: &[u32],
    bytes: u32,
) -> Option<String> {
    let (n, per_phase) = const_layout::bank::phases(model, kind, addrs, bytes).ok()?;
    if model.banks > 64 {
        return None;
    }
    let width = kind.width(bytes);
    let words_each = (width / model.bank_bytes).max(1);
    // Each phase: its distinct words, with the first lane and the count of lanes on each.
    let mut bands: Vec<(u32, Vec<Word>)> = Vec::new();
    for first in (0..n).step_by(per_phase) {
        let mut words: Vec<Word> = Vec::new();
        for (l, &a) in addrs.iter().enumerate().take(n.min(first + per_phase)).skip(first) {
            if a == const_layout::bank::INACTIVE {
                continue;
            }
            let base = a / model.bank_bytes;
            for w in 0..words_each {
                match words.iter_mut().find(|x| x.0 == base + w) {
                    Some(x) => x.2 += 1,
                    None => words.push((base + w, l as u32, 1)),
                }
            }
        }
        words.sort();
        bands.push((first as u32, words));
    }
    let per_phase = per_phase as u32;
    let banks = model.banks as i64;
    let band_rows = |words: &[(u32, u32, u32)]| {
        let mut rows: Vec<u32> = words.iter().map(|w| w.0 / model.banks).collect();
        rows.dedup();
        rows
    };
    let height: i64 =
        bands.iter().map(|b| SVG_TITLE + SVG_CELL * band_rows(&b.1).len() as i64 + 8).sum::<i64>() + 8;
    let width = SVG_LEFT + SVG_CELL * banks + 8;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"10\">\n\
         <title>bank conflicts: {} banks of {} bytes, {bytes}-byte accesses</title>\n\
         <rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n",
        model.banks, model.bank_bytes
    );
    let mut y = 4;
    for (p, (first, words)) in bands.iter().enumerate() {
        let mut on_bank = vec![0u32; model.banks as usize];
        for w in words {
            on_bank[(w.0 % model.banks) as usize] += 1;
        }
        let wavefronts = on_bank.iter().max().copied().unwrap_or(0);
        let _ = writeln!(
            s,
            "<text x=\"4\" y=\"{}\">phase {p}: lanes {first}-{}, {wavefronts} wavefronts</text>",
            y + 12,
            (first + per_phase).min(n as u32) - 1
        );
        y += SVG_TITLE;
        let rows = band_rows(words);
        for (r, row) in rows.iter().enumerate() {
            let top = y + SVG_CELL * r as i64;
            let _ = writeln!(
                s,
                "<text x=\"4\" y=\"{}\">word {}</text>",
                top + SVG_CELL / 2 + 4,
                row * model.banks
            );
            for w in words.iter().filter(|w| w.0 / model.banks == *row) {
                let bank = (w.0 % model.banks) as i64;
                let (cr, cg, cb) = const_layout::picture::hue(bank, banks);
                let stroke = if on_bank[bank as usize] > 1 { "red\" stroke-width=\"3" } else { "black" };
                let x = SVG_LEFT + SVG_CELL * bank;
                let label = if w.2 > 1 { format!("T{}+{}", w.1, w.2 - 1) } else { format!("T{}", w.1) };
                let _ = writeln!(
                    s,
                    "<rect x=\"{x}\" y=\"{top}\" width=\"{SVG_CELL}\" height=\"{SVG_CELL}\" fill=\"rgb({cr},{cg},{cb})\" stroke=\"{stroke}\"/>\
                     <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
                    x + SVG_CELL / 2,
                    top + SVG_CELL / 2 + 4
                );
            }
        }
        y += SVG_CELL * rows.len() as i64 + 8;
    }
    s.push_str("</svg>\n");
    Some(s)
}

/// The expression of a picture command: its arguments joined, or an error if there are none.
fn expression(cmd: &str, args: &[&str]) -> Result<String, String> {
    if args.is_empty() {
        return Err(format!("`{cmd}` needs an expression, e.g. layout {cmd} '(_4,_8):(_8,_1)'"));
    }
    Ok(args.join(" "))
}

/// What a value is, for errors of the picture commands.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Int(_) => "an integer",
        Value::Tuple(_) => "an int tuple",
        Value::Layout(_) => "a layout",
        Value::Bool(_) => "a truth value",
        Value::Major(_) => "a major (LayoutLeft/LayoutRight)",
        Value::Tiler(_) => "a tiler",
        Value::Swizzle(_) => {
            "a swizzle (compose it with a layout: composition(Sw<3,3,3>, (_8,_64):(_64,_1)))"
        }
        Value::Composed(_) => "a composed layout",
        Value::Partition(_) => "a partition (origin + layout)",
        Value::ComposedPartition(..) => "a partition of a composed layout (origin + composed layout)",
        Value::LayoutTv(..) => "a TV layout",
        Value::Slicer(_) => "a coordinate with `_`",
        Value::Linear(_) => "a linear layout over F2",
    }
}

fn eval_picture(expr: &str) -> Result<Value, String> {
    eval(expr).map_err(|e: EvalError| format!("{e} in {}", quote(expr)))
}

/// `layout table EXPR`: CuTe's `print_layout` of a rank-2 layout (or of a TV layout's
/// `(thread, value) -> index` layout).
fn table(expr: &str) -> Result<String, String> {
    let l = match eval_picture(expr)? {
        Value::Layout(l) | Value::LayoutTv(_, l) => l,
        other => {
            return Err(format!(
                "`table` prints a rank-2 layout (CuTe's print_layout); {} is {}",
                quote(expr),
                kind(&other)
            ));
        }
    };
    if l.has_basis() {
        return Err(format!(
            "`table` prints offsets; {} is {l}, whose basis strides give coordinates",
            quote(expr)
        ));
    }
    if l.size().value > MAX_TABLE_CELLS {
        return Err(format!(
            "`table` prints at most {MAX_TABLE_CELLS} cells; {} has {}",
            quote(expr),
            l.size().value
        ));
    }
    match l.print_layout() {
        Some(t) => Ok(t.to_string()),
        None => Err(format!(
            "`table` prints a rank-2 layout (CuTe's print_layout); {} is {l}, of rank {}",
            quote(expr),
            l.rank()
        )),
    }
}

const PICTURE_KINDS: &str = "a layout, a composed (swizzled) layout, a TV layout (make_layout_tv) or a linear layout with a CuTe form";

/// `layout latex EXPR`: CuTe's `print_latex` / `print_latex_tv`.
fn latex(expr: &str) -> Result<String, String> {
    let err = |e: const_layout::picture::PictureError| format!("{e} in {}", quote(expr));
    match eval_picture(expr)? {
        Value::Layout(l) => Ok(print_latex(&l).map_err(err)?.to_string()),
        Value::Composed(c) => Ok(print_latex_composed(&c).map_err(err)?.to_string()),
        Value::LayoutTv(tile, tv) => Ok(print_latex_tv(&tv, &tile).map_err(err)?.to_string()),
        other => Err(format!("`latex` draws {PICTURE_KINDS}; {} is {}", quote(expr), kind(&other))),
    }
}

/// `layout svg [-o FILE] [--bank-groups UNIT,COUNT] EXPR`.
fn svg(args: &[&str]) -> Result<String, String> {
    let (mut output, mut groups, mut words) = (None, None, Vec::new());
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "-o" | "--output" => {
                let file = it.next().ok_or_else(|| format!("{} needs a file name", quote(a)))?;
                output = Some(*file);
            }
            "--bank-groups" => {
                let v = it.next().ok_or("`--bank-groups` needs UNIT,COUNT, e.g. --bank-groups 2,32")?;
                let parsed = v
                    .split_once(',')
                    .and_then(|(u, c)| Some((u.trim().parse().ok()?, c.trim().parse().ok()?)));
                groups = Some(parsed.ok_or_else(|| {
                    format!("`--bank-groups` needs UNIT,COUNT (two integers), got {}", quote(v))
                })?);
            }
            _ => words.push(a),
        }
    }
    let expr = expression("svg", &words)?;
    let err = |e: const_layout::picture::PictureError| format!("{e} in {}", quote(&expr));
    let value = eval_picture(&expr)?;
    if groups.is_some() && !matches!(value, Value::Composed(_)) {
        return Err(format!(
            "`--bank-groups` colours a composed (swizzled) layout; {} is {}",
            quote(&expr),
            kind(&value)
        ));
    }
    let text = match value {
        Value::Layout(l) => print_svg(&l).map_err(err)?.to_string(),
        Value::Composed(c) => {
            let mut picture = print_svg_swizzle(&c).map_err(err)?;
            if let Some((unit, count)) = groups {
                picture = picture.bank_groups(unit, count).map_err(err)?;
            }
            picture.to_string()
        }
        Value::LayoutTv(tile, tv) => print_svg_tv(&tv, &tile).map_err(err)?.to_string(),
        // A linear layout is drawn as its CuTe form (`to_layout`: the same function of the
        // index, so the same offsets in the same cells), where it has one; otherwise as its
        // function tabulated, index `m + n*rows` in cell (m, n): the low half of the input bits
        // down the rows, the high half across, as a rank-2 layout of that shape would be.
        Value::Linear(lin) => match eval(&format!("to_layout({expr})")) {
            Ok(Value::Layout(l)) => print_svg(&l).map_err(err)?.to_string(),
            Ok(Value::Composed(c)) => print_svg_swizzle(&c).map_err(err)?.to_string(),
            _ => linear_svg(&lin)?,
        },
        other => return Err(format!("`svg` draws {PICTURE_KINDS}; {} is {}", quote(&expr), kind(&other))),
    };
    match output {
        Some(file) => {
            std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", quote(file)))?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}

/// The picture of a linear layout with no CuTe form: its values on a grid of `2^(n/2)` rows (`n`
/// input bits), cell (m, n) holding index `m + n*rows`.
fn linear_svg(lin: &const_layout::linear::LinearLayout) -> Result<String, String> {
    let bits = lin.in_bits();
    let cells =
        1isize.checked_shl(bits).filter(|&c| c <= const_layout::picture::MAX_CELLS).ok_or_else(|| {
            format!("{lin} has 2^{bits} inputs; a picture draws at most {}", const_layout::picture::MAX_CELLS)
        })?;
    let values: Vec<Option<isize>> = (0..cells).map(|i| Some(lin.apply(i as u32) as isize)).collect();
    let rows = 1usize << (bits / 2);
    let caption = format!("{lin}  (no CuTe form: index m + n*{rows} in cell (m, n))");
    Ok(print_svg_values(&values, rows, &caption).map_err(|e| e.to_string())?.to_string())
}

fn evaluate(expr: &str, json: bool) -> Result<String, String> {
    let value = eval(expr).map_err(|e: EvalError| format!("{e} in {}", quote(expr)))?;
    if !json {
        return Ok(format!("{value}\n"));
    }
    Ok(match value {
        Value::Int(v) => format!("{{\"kind\":\"int\",\"value\":{}}}\n", v.value),
        Value::Tuple(t) => format!("{{\"kind\":\"tuple\",\"text\":{}}}\n", json_string(&t.to_string())),
        Value::Bool(b) => format!("{{\"kind\":\"bool\",\"value\":{b}}}\n"),
        Value::Major(_) => format!("{{\"kind\":\"major\",\"text\":{}}}\n", json_string(&value.to_string())),
        Value::Tiler(_) => format!("{{\"kind\":\"tiler\",\"text\":{}}}\n", json_string(&value.to_string())),
        Value::Slicer(_) => format!("{{\"kind\":\"coord\",\"text\":{}}}\n", json_string(&value.to_string())),
        Value::Swizzle(_) => {
            format!("{{\"kind\":\"swizzle\",\"text\":{}}}\n", json_string(&value.to_string()))
        }
        Value::Partition(p) => {
            let values = json_values(p.layout.size().value, (0..p.layout.size().value).map(|i| p.at(i)))?;
            format!(
                "{{\"kind\":\"partition\",\"text\":{},\"offset\":{},\"size\":{},\"rank\":{},\"values\":[{}]}}\n",
                json_string(&p.layout.to_string()),
                json_value(&p.origin_value()),
                p.layout.size().value,
                p.layout.rank(),
                values
            )
        }
        Value::LayoutTv(t, l) => format!(
            "{{\"kind\":\"layout_tv\",\"tiler\":{},\"layout\":{}}}\n",
            json_string(&t.to_string()),
            layout_json(&l)?.trim_end()
        ),
        Value::ComposedPartition(c, offset) => {
            let values = json_values(
                c.size().value,
                (0..c.size().value).map(|i| {
                    let v = c.offset(i).checked_add(offset.value).ok_or(LayoutError::CosizeOverflow)?;
                    Ok(DynIntTuple::int(DynInt::new_runtime(v)))
                }),
            )?;
            format!(
                "{{\"kind\":\"composed_partition\",\"text\":{},\"offset\":{},\"size\":{},\"rank\":{},\"values\":[{}]}}\n",
                json_string(&c.to_string()),
                offset.value,
                c.size().value,
                c.rank(),
                values
            )
        }
        Value::Composed(c) => {
            let values = json_values(
                c.size().value,
                (0..c.size().value).map(|i| Ok(DynIntTuple::int(DynInt::new_runtime(c.offset(i))))),
            )?;
            format!(
                "{{\"kind\":\"composed\",\"text\":{},\"size\":{},\"rank\":{},\"values\":[{}]}}\n",
                json_string(&c.to_string()),
                c.size().value,
                c.rank(),
                values
            )
        }
        Value::Layout(l) => layout_json(&l)?,
        Value::Linear(l) => {
            let size = 1isize << l.in_bits();
            let values = json_values(
                size,
                (0..size).map(|i| Ok(DynIntTuple::int(DynInt::new_runtime(l.apply(i as u32) as isize)))),
            )?;
            format!(
                "{{\"kind\":\"linear\",\"text\":{},\"in_bits\":{},\"out_bits\":{},\"values\":[{}]}}\n",
                json_string(&value.to_string()),
                l.in_bits(),
                l.out_bits(),
                values
            )
        }
    })
}

/// An offset as a JSON number; a coordinate (the value of a basis-strided layout) as a string.
fn json_value(v: &DynIntTuple) -> String {
    match v.as_int() {
        Some(i) if !i.has_basis() => i.value.to_string(),
        _ => json_string(&v.to_string()),
    }
}

/// The values (offsets, or coordinates for basis strides) as a JSON list body, refusing more
/// than `MAX_JSON_VALUES`.
fn json_values(
    size: isize,
    values_in: impl Iterator<Item = Result<DynIntTuple, LayoutError>>,
) -> Result<String, String> {
    if size > MAX_JSON_VALUES {
        return Err(format!("the layout has {size} offsets; --json lists at most {MAX_JSON_VALUES}"));
    }
    let mut values = String::with_capacity(size as usize * 4);
    for (k, v) in values_in.enumerate() {
        if k > 0 {
            values.push(',');
        }
        let _ = write!(values, "{}", json_value(&v.map_err(|e| e.to_string())?));
    }
    Ok(values)
}

fn layout_json(l: &DynLayout) -> Result<String, String> {
    let size = l.size().value;
    let values = json_values(size, (0..size).map(|i| l.apply(&DynIntTuple::int(DynInt::new_runtime(i)))))?;
    Ok(format!(
        "{{\"kind\":\"layout\",\"text\":{},\"size\":{},\"cosize\":{},\"rank\":{},\"depth\":{},\"values\":[{}]}}\n",
        json_string(&l.to_string()),
        size,
        l.cosize().value,
        l.rank(),
        l.depth(),
        values
    ))
}

/// A failed command's output under `--json`: `{"error":MESSAGE}` (on stdout, status 1).
pub fn json_error(msg: &str) -> String {
    format!("{{\"error\":{}}}\n", json_string(msg))
}

pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn tour() -> String {
    // The card's layout, built at compile time: a zero-sized type whose index math folds away.
    let l = layout!((8,(4,2)):(1,8));
    let mut out = String::new();
    let _ = writeln!(out, "const-layout: CuTe's layout algebra with shapes and strides as types.\n");
    let _ = writeln!(out, "The design card's layout, written   (8,(4,2)):(1,8)");
    let _ = writeln!(out, "  expanded (a scalar stride against a tuple mode is its column-major strides):");
    let _ = writeln!(out, "      {l}");
    let _ = writeln!(out, "  size   {}   (a static integer: known to the compiler)", l.size());
    let _ = writeln!(out, "  cosize {}", l.cosize());
    let _ = writeln!(
        out,
        "  rank {}, depth {}, {} bytes in memory",
        l.rank(),
        l.depth(),
        std::mem::size_of_val(&l)
    );
    let _ = writeln!(
        out,
        "  L(13) = {}, L((5,(1,0))) = {}, idx2crd(13) = {:?}",
        l.crd2idx(13usize),
        l.crd2idx((5usize, (1usize, 0usize))),
        l.idx2crd(13usize)
    );
    let _ = writeln!(out, "\nOffsets by coordinate (rows: mode 0; columns: mode 1, colexicographic):");
    let dynamic = DynLayout::try_from(&l).expect("the card's layout is valid");
    let _ = write!(out, "{}", dynamic.print_layout().expect("rank 2"));
    // The algebra: computed at compile time by `layout!`, a zero-sized layout again.
    let tiles = layout!(zipped_divide((8,(4,2)):(1,8), <4:1, 4:1>));
    let _ = writeln!(
        out,
        "\nThe algebra, at compile time: zipped_divide(L, <4:1, 4:1>), 4x4 tiles and their arrangement:"
    );
    let _ = writeln!(out, "      {tiles}   ({} bytes)", std::mem::size_of_val(&tiles));
    let bad = "composition((6,2):(1,7), (3,2):(2,3))";
    let why = eval(bad).err().map(|e| e.to_string()).unwrap_or_default();
    let _ = writeln!(out, "  where CuTe would return a wrong layout, an error says why:");
    let _ = writeln!(out, "      {bad}\n      -> {}", why.split_once(": ").map_or(why.as_str(), |(_, m)| m));
    // The hints run as printed: under `cargo run` (which sets `CARGO` for the program) the tool is
    // not on PATH, so they go through cargo; after `cargo install --path .` they call `layout`.
    let me = if std::env::var_os("CARGO").is_some() { "cargo run --release --" } else { "layout" };
    let _ = writeln!(
        out,
        "\nTry: {me} eval 'logical_divide((_8,_6):(_1,_8), <_4:_1, _3:_1>)'   or   {me} functions   or   {me} --help"
    );
    if me != "layout" {
        let _ = writeln!(out, "(`cargo install --path .` puts `layout` on your PATH.)");
    }
    let _ = l.size().value();
    out
}
