//! `layout ck-tile DESC [--at COORD | --svg]`: a CK Tile tensor descriptor or adaptor, written in
//! the notation of `const_layout::ck_tile::text`, shown as its offsets (or bottom indices), as the
//! step-by-step trace of one coordinate, or as a picture.
//!
//! The crate's descriptors carry their structure in their type, which a text read at run time
//! cannot name. So this command reads the structure as data (the stages, each a transform with
//! its arguments and its upper and lower hidden ids) and builds, per stage, the crate's own typed
//! transform over runtime integers, chosen by the transform's arity; the index arithmetic is
//! always the crate's (`Transform::calculate_lower_index`, the pads' validity), reached through
//! one generic adapter between slices and `MultiIndex`. Only CuTe layouts with nested modes,
//! whose nesting would need a type per shape, go through the core's runtime-structured layout.

use const_layout::Layout;
use const_layout::ck_tile::{
    CuteLayout, Embed, Freeze, Insert, Merge, MergeDivMod, Modulo, MultiIndex, Offset, Pad, PassThrough,
    Replicate, Slice, Transform, Unmerge, Xor,
};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::picture::print_svg_values;
use const_layout::text::Cursor;
use std::fmt::Write as _;

/// The most stages a text may have: enough for any CK descriptor, small enough that a table of
/// every index stays fast.
const MAX_STAGES: usize = 64;

/// The most hidden ids (ids run from 0 to this minus 1): the crate's own bound is of this order.
const MAX_IDS: usize = 64;

/// The most dimensions on one side of a transform (and the most top modes of a `cute_layout`):
/// each arity is a separately compiled typed transform.
const MAX_ARITY: usize = 6;

/// The largest magnitude of any integer argument, top index, and hidden index between stages.
/// With at most [`MAX_ARITY`] terms of two such factors, `embed`'s and `unmerge`'s sums stay
/// within `isize` (6 * 2^60 < 2^63), so the crate's unchecked arithmetic cannot overflow.
const MAX_VALUE: isize = 1 << 30;

/// The most top indices the default output lists (the tool's table limit).
const MAX_INDICES: isize = super::MAX_TABLE_CELLS;

/// The longest picture caption, in characters: the descriptor's text is cut there.
const MAX_CAPTION_CHARS: usize = 100;

/// How a transform's arguments are written.
#[derive(Clone, Copy)]
enum Args {
    /// Integers, named for errors.
    Ints(&'static [&'static str]),
    /// `pad(length,left,right[,skip])`.
    Pad,
    /// Flat int tuples of one arity, named for errors.
    Tuples(&'static [&'static str]),
    /// One CuTe layout, `shape:stride`.
    Layout,
}

/// Every transform the notation names, with how its arguments are written.
const TRANSFORMS: [(&str, Args); 14] = [
    ("pass_through", Args::Ints(&["length"])),
    ("pad", Args::Pad),
    ("embed", Args::Tuples(&["lengths", "coefficients"])),
    ("unmerge", Args::Tuples(&["lengths"])),
    ("merge", Args::Tuples(&["lengths"])),
    ("merge_v3_division_mod", Args::Tuples(&["lengths"])),
    ("freeze", Args::Ints(&["index"])),
    ("insert", Args::Ints(&["length"])),
    ("replicate", Args::Tuples(&["lengths"])),
    ("offset", Args::Ints(&["length", "offset"])),
    ("slice", Args::Ints(&["length", "begin", "end"])),
    ("modulo", Args::Ints(&["modulus", "length"])),
    ("xor", Args::Tuples(&["lengths"])),
    ("cute_layout", Args::Layout),
];

/// One stage as written: the transform's name and arguments (static-ness kept, for printing) and
/// its hidden ids, with the columns errors name.
struct StageText {
    /// CK's name of the transform.
    name: &'static str,
    /// The integer or tuple arguments, as written (a `cute_layout` has none).
    args: Vec<DynIntTuple>,
    /// A pad's `,skip` (CK's `SkipIsValidCheck`).
    skip: bool,
    /// A `cute_layout`'s layout.
    layout: Option<DynLayout>,
    /// The hidden ids read.
    upper: Vec<usize>,
    /// The hidden ids written.
    lower: Vec<usize>,
    /// Where the transform's name is.
    column: usize,
    /// Where the upper ids are.
    upper_column: usize,
    /// Where the lower ids are.
    lower_column: usize,
}

impl StageText {
    /// The transform as the notation writes it, without its ids.
    fn transform_text(&self) -> String {
        let mut s = String::from(self.name);
        if let Some(l) = &self.layout {
            let _ = write!(s, "({l})");
            return s;
        }
        for (k, a) in self.args.iter().enumerate() {
            s.push(if k == 0 { '(' } else { ',' });
            let _ = write!(s, "{a}");
        }
        s.push_str(if self.skip { ",skip)" } else { ")" });
        s
    }

    /// The stage as the notation writes it.
    fn text(&self) -> String {
        format!("{}: {} -> {}", self.transform_text(), ids_text(&self.upper), ids_text(&self.lower))
    }
}

/// A descriptor or adaptor as read: its structure as data.
struct Text {
    /// A descriptor (bottom: the offset, hidden id 0), or an adaptor.
    descriptor: bool,
    /// The stages, top first.
    stages: Vec<StageText>,
    /// The top ids.
    top: Vec<usize>,
    /// The bottom ids (`[0]` for a descriptor).
    bottom: Vec<usize>,
    /// A descriptor's element space size, shown as given.
    element_space_size: isize,
    /// A descriptor's guaranteed vector (length, stride) per hidden dimension, shown as given.
    guaranteed: Vec<(isize, isize)>,
}

impl Text {
    /// The text on one line (the crate's `Display`), or with one stage a line.
    fn text(&self, multiline: bool) -> String {
        let multiline = multiline && !self.stages.is_empty();
        let (open, sep, close) = if multiline { ("\n    ", ",\n    ", "\n  ]") } else { ("", ", ", "]") };
        let stages: Vec<String> = self.stages.iter().map(StageText::text).collect();
        let mut s = format!(
            "{}{{transforms: [{open}{}{close}",
            if self.descriptor { "tensor_descriptor" } else { "tensor_adaptor" },
            stages.join(sep)
        );
        if !self.descriptor {
            let _ = write!(s, ", bottom: {}", ids_text(&self.bottom));
        }
        let _ = write!(s, ", top: {}", ids_text(&self.top));
        if self.descriptor {
            let _ = write!(s, ", element_space_size: {}", self.element_space_size);
            if !self.guaranteed.is_empty() {
                let g: Vec<String> = self.guaranteed.iter().map(|(l, s)| format!("({l},{s})")).collect();
                let _ = write!(s, ", guaranteed: [{}]", g.join(","));
            }
        }
        s.push('}');
        s
    }
}

/// `[a,b,...]`.
fn ids_text(ids: &[usize]) -> String {
    let ids: Vec<String> = ids.iter().map(usize::to_string).collect();
    format!("[{}]", ids.join(","))
}

/// A cursor error as the command's error.
fn parse_err(e: const_layout::text::ParseError) -> String {
    e.to_string()
}

/// `[id, ...]`: hidden ids, each below [`MAX_IDS`].
fn read_ids(c: &mut Cursor<'_>) -> Result<Vec<usize>, String> {
    c.expect('[', "`[`").map_err(parse_err)?;
    let mut ids = Vec::new();
    while !c.eat(']') {
        if !ids.is_empty() {
            c.expect(',', "`,` or `]`").map_err(parse_err)?;
        }
        let column = c.column();
        let v = c.int().map_err(parse_err)?;
        if v.has_basis() || v.value < 0 || v.value >= MAX_IDS as isize {
            return Err(format!(
                "column {column}: a hidden id is an integer from 0 to {}, not {}",
                MAX_IDS - 1,
                v.value
            ));
        }
        if ids.len() == MAX_IDS {
            return Err(format!("column {column}: more than {MAX_IDS} ids in one list"));
        }
        ids.push(v.value as usize);
    }
    Ok(ids)
}

/// An integer within [`MAX_VALUE`], for errors `what` at `column`.
fn bounded(v: DynInt, what: &str, column: usize) -> Result<isize, String> {
    if v.has_basis() {
        return Err(format!("column {column}: {what} is {v}; basis integers have no place here"));
    }
    if v.value.abs() > MAX_VALUE {
        return Err(format!("column {column}: {what} is {}; the tool takes integers up to 2^30", v.value));
    }
    Ok(v.value)
}

/// The values of an argument: one integer, or a flat tuple of them.
fn flat_values(t: &DynIntTuple, what: &str, column: usize) -> Result<Vec<isize>, String> {
    if let Some(v) = t.as_int() {
        return Ok(vec![bounded(v, what, column)?]);
    }
    if t.modes().any(|m| !m.is_int()) {
        return Err(format!("column {column}: {what} {t} is nested; CK's {what} are a flat tuple"));
    }
    if t.rank() > MAX_ARITY {
        return Err(format!(
            "column {column}: {what} {t} has {} integers; the tool supports arities 1 to {MAX_ARITY}",
            t.rank()
        ));
    }
    t.leaves().map(|v| bounded(v, what, column)).collect()
}

/// One stage: `name(args): [upper] -> [lower]`.
fn read_stage(c: &mut Cursor<'_>) -> Result<StageText, String> {
    let column = c.column();
    let name = c.word().ok_or_else(|| parse_err(c.error("a transform's name")))?;
    let Some(&(name, args)) = TRANSFORMS.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = TRANSFORMS.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "column {column}: unknown transform {}; CK's are {}",
            super::quote(name),
            names.join(", ")
        ));
    };
    c.expect('(', "`(`").map_err(parse_err)?;
    let mut stage = StageText {
        name,
        args: Vec::new(),
        skip: false,
        layout: None,
        upper: Vec::new(),
        lower: Vec::new(),
        column,
        upper_column: 0,
        lower_column: 0,
    };
    match args {
        Args::Layout => {
            let at = c.column();
            let l = c.layout().map_err(parse_err)?;
            for (k, v) in l.shape().leaves().chain(l.stride().leaves()).enumerate() {
                bounded(v, if k < l.shape().leaves().count() { "a shape integer" } else { "a stride" }, at)?;
            }
            stage.layout = Some(l);
        }
        Args::Ints(names) | Args::Tuples(names) => {
            for (k, what) in names.iter().enumerate() {
                if k > 0 {
                    c.expect(',', "`,`").map_err(parse_err)?;
                }
                let at = c.column();
                let t = c.int_tuple().map_err(parse_err)?;
                if matches!(args, Args::Ints(_)) {
                    let v =
                        t.as_int().ok_or_else(|| format!("column {at}: {name}'s {what} is an integer"))?;
                    bounded(v, what, at)?;
                } else {
                    flat_values(&t, what, at)?;
                }
                stage.args.push(t);
            }
        }
        Args::Pad => {
            for (k, what) in ["length", "left", "right"].iter().enumerate() {
                if k > 0 {
                    c.expect(',', "`,`").map_err(parse_err)?;
                }
                let at = c.column();
                let t = c.int_tuple().map_err(parse_err)?;
                let v = t.as_int().ok_or_else(|| format!("column {at}: pad's {what} is an integer"))?;
                let v = bounded(v, what, at)?;
                if v < 0 || (k == 0 && v == 0) {
                    let must = if k == 0 { "positive" } else { "0 or more" };
                    return Err(format!("column {at}: pad's {what} is {v}; it must be {must}"));
                }
                stage.args.push(t);
            }
            stage.skip = c.eat(',');
            if stage.skip && c.word() != Some("skip") {
                return Err(parse_err(c.error("`skip`")));
            }
        }
    }
    c.expect(')', "`)`").map_err(parse_err)?;
    c.expect(':', "`:` before the transform's ids").map_err(parse_err)?;
    stage.upper_column = c.column();
    stage.upper = read_ids(c)?;
    if !c.eat_str("->") {
        return Err(parse_err(c.error("`->` between upper and lower ids")));
    }
    stage.lower_column = c.column();
    stage.lower = read_ids(c)?;
    Ok(stage)
}

/// `name:` after `{` or `,`.
fn field(c: &mut Cursor<'_>, name: &'static str) -> Result<(), String> {
    let at = c.position();
    if c.word() != Some(name) || !c.eat(':') {
        return Err(parse_err(c.error_at(at, name)));
    }
    Ok(())
}

/// The whole text: a descriptor or an adaptor, its structure read but not yet checked.
fn read_text(s: &str) -> Result<(Text, usize, usize), String> {
    let mut c = Cursor::new(s);
    let at = c.position();
    let descriptor = match c.word() {
        Some("tensor_descriptor") => true,
        Some("tensor_adaptor") => false,
        _ => return Err(parse_err(c.error_at(at, "`tensor_descriptor` or `tensor_adaptor`"))),
    };
    c.expect('{', "`{`").map_err(parse_err)?;
    field(&mut c, "transforms")?;
    c.expect('[', "`[`").map_err(parse_err)?;
    let mut stages = Vec::new();
    while !c.eat(']') {
        if !stages.is_empty() {
            c.expect(',', "`,` between transforms or `]`").map_err(parse_err)?;
        }
        if stages.len() == MAX_STAGES {
            return Err(format!("column {}: more than {MAX_STAGES} transforms", c.column()));
        }
        stages.push(read_stage(&mut c)?);
    }
    let mut bottom = vec![0];
    let mut bottom_column = 0;
    if !descriptor {
        c.expect(',', "`,`").map_err(parse_err)?;
        field(&mut c, "bottom")?;
        bottom_column = c.column();
        bottom = read_ids(&mut c)?;
    }
    c.expect(',', "`,`").map_err(parse_err)?;
    field(&mut c, "top")?;
    let top_column = c.column();
    let top = read_ids(&mut c)?;
    let (mut element_space_size, mut guaranteed) = (0, Vec::new());
    if descriptor {
        c.expect(',', "`,`").map_err(parse_err)?;
        field(&mut c, "element_space_size")?;
        let at = c.column();
        let v = c.int().map_err(parse_err)?;
        // Any integer: the crate's own naive descriptors with negative strides print negative
        // sizes, and the size is only shown.
        if v.has_basis() {
            return Err(format!("column {at}: the element space size is an integer, not {v}"));
        }
        element_space_size = v.value;
        if c.eat(',') {
            field(&mut c, "guaranteed")?;
            c.expect('[', "`[`").map_err(parse_err)?;
            while !c.eat(']') {
                if !guaranteed.is_empty() {
                    c.expect(',', "`,` or `]`").map_err(parse_err)?;
                }
                if guaranteed.len() == MAX_IDS {
                    return Err(format!("column {}: more than {MAX_IDS} guarantees", c.column()));
                }
                c.expect('(', "`(`").map_err(parse_err)?;
                let l = guarantee(&mut c)?;
                c.expect(',', "`,`").map_err(parse_err)?;
                let s = guarantee(&mut c)?;
                c.expect(')', "`)`").map_err(parse_err)?;
                guaranteed.push((l, s));
            }
        }
    }
    c.expect('}', "`}`").map_err(parse_err)?;
    if !c.at_end() {
        return Err(parse_err(c.error("the end of the input")));
    }
    let text = Text { descriptor, stages, top, bottom, element_space_size, guaranteed };
    Ok((text, top_column, bottom_column))
}

/// A guaranteed vector length or stride: an integer from 0, or CK's -1 for unknown.
fn guarantee(c: &mut Cursor<'_>) -> Result<isize, String> {
    let at = c.column();
    let v = c.int().map_err(parse_err)?;
    if v.has_basis() || v.value < -1 {
        return Err(format!("column {at}: a guaranteed length or stride is -1 (unknown) or more, not {v}"));
    }
    Ok(v.value)
}

/// A crate transform behind one interface for a structure known at run time: the arities, the
/// upper lengths, the lower index and the validity, on slices.
trait DynTransform {
    /// (upper, lower) dimension counts.
    fn arity(&self) -> (usize, usize);
    /// The upper lengths.
    fn upper_lengths(&self) -> Vec<isize>;
    /// The lower index of `up` into `low` (both of the transform's arities).
    fn lower(&self, up: &[isize], low: &mut [isize]) -> Result<(), String>;
    /// Whether `up` (with its lower index `low`) is valid: false only in a pad's padding.
    fn valid(&self, up: &[isize], low: &[isize]) -> bool;
    /// Whether every index in range is valid (CK's `is_valid_upper_index_always_mapped_to_valid_lower_index`).
    fn valid_always(&self) -> bool {
        true
    }
}

/// A typed crate transform, used through slices: the one place the tool calls the crate's
/// arithmetic.
struct Typed<T>(T);

/// `src` copied into `dst` (a multi-index's slice): the arities agree by the wiring check.
fn fill(dst: &mut [isize], src: &[isize]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

impl<T: Transform> DynTransform for Typed<T> {
    fn valid_always(&self) -> bool {
        T::ALWAYS_VALID
    }
    fn arity(&self) -> (usize, usize) {
        (MultiIndex::<T::Up>::default().len(), MultiIndex::<T::Low>::default().len())
    }
    fn upper_lengths(&self) -> Vec<isize> {
        self.0.upper_lengths().to_vec()
    }
    fn lower(&self, up: &[isize], low: &mut [isize]) -> Result<(), String> {
        let mut u = MultiIndex::<T::Up>::default();
        fill(&mut u, up);
        fill(low, &self.0.calculate_lower_index(&u));
        Ok(())
    }
    fn valid(&self, up: &[isize], low: &[isize]) -> bool {
        // As the crate's stages check it: a pad compares its lower index.
        if T::ALWAYS_VALID {
            return true;
        }
        let (mut u, mut l) = (MultiIndex::<T::Up>::default(), MultiIndex::<T::Low>::default());
        fill(&mut u, up);
        fill(&mut l, low);
        self.0.is_valid_index(&u, &l)
    }
}

/// A CuTe layout with nested modes, which a typed `CuteLayout` would need a type per nesting for:
/// the same function (each top mode a 1-D coordinate) through the core's runtime-structured
/// layout.
struct NestedCute(DynLayout);

impl DynTransform for NestedCute {
    fn arity(&self) -> (usize, usize) {
        (self.0.rank(), 1)
    }
    fn upper_lengths(&self) -> Vec<isize> {
        self.0.shape().modes().map(|m| m.size().map_or(0, |s| s.value)).collect()
    }
    fn lower(&self, up: &[isize], low: &mut [isize]) -> Result<(), String> {
        let coord = DynIntTuple::from_modes(up.iter().map(|&u| DynIntTuple::int(DynInt::new_runtime(u))))
            .map_err(|e| e.to_string())?;
        low[0] = self.0.crd2idx(&coord).map_err(|e| format!("cute_layout({}): {e}", self.0))?.value;
        Ok(())
    }
    fn valid(&self, _: &[isize], _: &[isize]) -> bool {
        true
    }
}

/// A typed transform behind the interface.
fn boxed<T: Transform + 'static>(t: T) -> Box<dyn DynTransform> {
    Box::new(Typed(t))
}

/// The values of a flat tuple argument as a Rust tuple of `isize` of the arity the caller
/// dispatched on.
macro_rules! tuple_of {
    ($v:ident; $($i:tt)+) => {
        ($($v[$i],)+)
    };
}

/// `isize`, once per index given: a tuple type of `isize` of the dispatched arity.
macro_rules! isize_of {
    ($i:tt) => {
        isize
    };
}

/// The arity `n` to one of the typed transforms of arity 1 to [`MAX_ARITY`], built by the macro
/// `$m` given the indices; another arity is an error naming it.
macro_rules! by_arity {
    ($n:expr, $unsupported:expr, $m:ident) => {
        match $n {
            1 => $m!(0),
            2 => $m!(0 1),
            3 => $m!(0 1 2),
            4 => $m!(0 1 2 3),
            5 => $m!(0 1 2 3 4),
            6 => $m!(0 1 2 3 4 5),
            n => return Err($unsupported(n)),
        }
    };
}

/// The product of positive lengths, within [`MAX_VALUE`] (a merge's or unmerge's strides and
/// upper length are products of its lengths).
fn checked_product(name: &str, lengths: &[isize], column: usize) -> Result<(), String> {
    let mut p: isize = 1;
    for &l in lengths {
        if l <= 0 {
            return Err(format!("column {column}: {name}'s lengths must be positive, and one is {l}"));
        }
        p = p.checked_mul(l).filter(|p| *p <= MAX_VALUE).ok_or_else(|| {
            format!("column {column}: {name}'s lengths multiply past 2^30, the most the tool takes")
        })?;
    }
    Ok(())
}

/// The crate's typed transform of a stage, over runtime integers.
fn build(s: &StageText) -> Result<Box<dyn DynTransform>, String> {
    let col = s.column;
    let unsupported = |n: usize| {
        format!("column {col}: {} with {n} dimensions: the tool supports arities 1 to {MAX_ARITY}", s.name)
    };
    let refused = |e: const_layout::ck_tile::TransformError| format!("column {col}: {}: {e}", s.name);
    // Checked when read: every argument is an integer or a flat tuple of bounded integers.
    let ints: Vec<isize> = s.args.iter().filter_map(|a| a.as_int()).map(|v| v.value).collect();
    let tuple = |k: usize| -> Vec<isize> { s.args[k].leaves().map(|v| v.value).collect() };
    let t: Box<dyn DynTransform> = match s.name {
        "pass_through" => boxed(PassThrough::new(ints[0])),
        "pad" if s.skip => boxed(Pad::unchecked(ints[0], ints[1], ints[2])),
        "pad" => boxed(Pad::new(ints[0], ints[1], ints[2])),
        "freeze" => boxed(Freeze::new(ints[0])),
        "insert" => boxed(Insert::new(ints[0])),
        "offset" => boxed(Offset::new(ints[0], ints[1])),
        "slice" => boxed(Slice::new(ints[0], ints[1], ints[2])),
        "modulo" => boxed(Modulo::new(ints[0], ints[1]).map_err(refused)?),
        "xor" => match tuple(0)[..] {
            [l0, l1] => boxed(Xor::new(l0, l1).map_err(refused)?),
            _ => return Err(format!("column {col}: xor takes two lengths, (length0,length1)")),
        },
        "embed" => {
            let (l, c) = (tuple(0), tuple(1));
            if l.len() != c.len() {
                return Err(format!(
                    "column {col}: embed has {} lengths and {} coefficients; it takes one coefficient per length",
                    l.len(),
                    c.len()
                ));
            }
            macro_rules! go {
                ($($i:tt)+) => { boxed(Embed::new(tuple_of!(l; $($i)+), tuple_of!(c; $($i)+))) };
            }
            by_arity!(l.len(), unsupported, go)
        }
        "unmerge" => {
            let l = tuple(0);
            checked_product(s.name, &l, col)?;
            macro_rules! go {
                ($($i:tt)+) => { boxed(Unmerge::new(tuple_of!(l; $($i)+))) };
            }
            by_arity!(l.len(), unsupported, go)
        }
        "replicate" => {
            let l = tuple(0);
            macro_rules! go {
                ($($i:tt)+) => { boxed(Replicate::new(tuple_of!(l; $($i)+))) };
            }
            by_arity!(l.len(), unsupported, go)
        }
        "merge" => {
            let l = tuple(0);
            checked_product(s.name, &l, col)?;
            macro_rules! go {
                ($($i:tt)+) => { boxed(Merge::new(tuple_of!(l; $($i)+)).map_err(refused)?) };
            }
            by_arity!(l.len(), unsupported, go)
        }
        "merge_v3_division_mod" => {
            let l = tuple(0);
            checked_product(s.name, &l, col)?;
            macro_rules! go {
                ($($i:tt)+) => { boxed(MergeDivMod::new(tuple_of!(l; $($i)+)).map_err(refused)?) };
            }
            by_arity!(l.len(), unsupported, go)
        }
        "cute_layout" => {
            let Some(layout) = &s.layout else {
                return Err(format!("column {col}: cute_layout needs a layout"));
            };
            let size = layout.size().value;
            if size > MAX_VALUE {
                return Err(format!(
                    "column {col}: cute_layout's size {size} is past 2^30, the most the tool takes"
                ));
            }
            cute(layout, col, unsupported)?
        }
        other => return Err(format!("column {col}: unknown transform `{other}`")),
    };
    let lengths = t.upper_lengths();
    if let Some(&bad) = lengths.iter().find(|&&l| l <= 0) {
        return Err(format!(
            "column {col}: {} has an upper length of {bad}; lengths must be positive",
            s.name
        ));
    }
    Ok(t)
}

/// A `cute_layout` stage: the crate's typed `CuteLayout` where every top mode is one integer
/// (an int shape, or a flat tuple of arity 1 to [`MAX_ARITY`]), else the core's layout.
fn cute(
    layout: &DynLayout,
    col: usize,
    unsupported: impl Fn(usize) -> String,
) -> Result<Box<dyn DynTransform>, String> {
    let typed_err = |e: const_layout::LayoutError| format!("column {col}: cute_layout({layout}): {e}");
    if layout.shape().is_int() {
        let l = Layout::<isize, isize>::try_from(layout).map_err(typed_err)?;
        return Ok(boxed(CuteLayout::new(l)));
    }
    if layout.shape().modes().any(|m| !m.is_int()) {
        if layout.rank() > MAX_ARITY {
            return Err(unsupported(layout.rank()));
        }
        return Ok(Box::new(NestedCute(*layout)));
    }
    macro_rules! go {
        ($($i:tt)+) => {{
            type S = ($(isize_of!($i),)+);
            boxed(CuteLayout::new(Layout::<S, S>::try_from(layout).map_err(typed_err)?))
        }};
    }
    Ok(by_arity!(layout.rank(), unsupported, go))
}

/// Who writes a hidden id: the user (a top id) or a transform.
#[derive(Clone, Copy)]
enum Source {
    /// A top id: the user's index.
    Top,
    /// Written by this transform.
    Stage(usize),
}

/// A descriptor or adaptor whose wiring holds: its text, each stage's typed transform, and the
/// top lengths.
struct Checked {
    /// The structure as read.
    text: Text,
    /// One typed transform per stage.
    transforms: Vec<Box<dyn DynTransform>>,
    /// The number of hidden dimensions (the largest id plus 1).
    hidden: usize,
    /// The length of each top dimension: its reading transform's upper length.
    top_lengths: Vec<isize>,
}

/// The typed transforms built, and the wiring checked as the crate checks a hand-wired adaptor,
/// and as a run of the stages needs it: each stage's ids as many as its transform's dimensions;
/// each hidden id written once (by the user, for a top id, or by one transform) before a
/// transform reads it, and read by at most one transform; each top id read by one transform
/// (which gives its length); each bottom id written.
fn check(text: Text, top_column: usize, bottom_column: usize) -> Result<Checked, String> {
    let transforms = text.stages.iter().map(build).collect::<Result<Vec<_>, _>>()?;
    let mut source: Vec<Option<Source>> = vec![None; MAX_IDS];
    let mut reader: Vec<Option<usize>> = vec![None; MAX_IDS];
    for &id in &text.top {
        if source[id].is_some() {
            return Err(format!("column {top_column}: top id {id} is listed twice"));
        }
        source[id] = Some(Source::Top);
    }
    for (k, (s, t)) in text.stages.iter().zip(&transforms).enumerate() {
        let (up, low) = t.arity();
        for (ids, n, side, column) in
            [(&s.upper, up, "upper", s.upper_column), (&s.lower, low, "lower", s.lower_column)]
        {
            if ids.len() != n {
                return Err(format!(
                    "column {column}: transform {k}, {}, has {n} {side} dimension{}; {} names {}",
                    s.transform_text(),
                    if n == 1 { "" } else { "s" },
                    ids_text(ids),
                    ids.len()
                ));
            }
        }
        for &id in &s.upper {
            if source[id].is_none() {
                return Err(format!(
                    "column {}: transform {k} reads hidden id {id}, which is no top id and no transform above writes",
                    s.upper_column
                ));
            }
            if let Some(j) = reader[id] {
                return Err(format!(
                    "column {}: hidden id {id} is read by transforms {j} and {k}; each hidden dimension feeds one transform",
                    s.upper_column
                ));
            }
            reader[id] = Some(k);
        }
        for &id in &s.lower {
            match source[id] {
                Some(Source::Top) => {
                    return Err(format!(
                        "column {}: transform {k} writes hidden id {id}, a top id",
                        s.lower_column
                    ));
                }
                Some(Source::Stage(j)) => {
                    return Err(format!(
                        "column {}: hidden id {id} is written by transforms {j} and {k}; each is written once",
                        s.lower_column
                    ));
                }
                None => source[id] = Some(Source::Stage(k)),
            }
        }
    }
    let mut top_lengths = Vec::with_capacity(text.top.len());
    for &id in &text.top {
        let Some(k) = reader[id] else {
            return Err(format!(
                "column {top_column}: top id {id} is read by no transform, which would give its length"
            ));
        };
        let position = text.stages[k].upper.iter().position(|&u| u == id).unwrap_or(0);
        top_lengths.push(transforms[k].upper_lengths().get(position).copied().unwrap_or(0));
    }
    for (n, &id) in text.bottom.iter().enumerate() {
        if text.bottom[..n].contains(&id) {
            return Err(format!("column {bottom_column}: bottom id {id} is listed twice"));
        }
        if source[id].is_none() {
            return Err(if text.descriptor {
                "the offset, hidden id 0, is written by no transform".to_string()
            } else {
                format!("column {bottom_column}: bottom id {id} is written by no transform")
            });
        }
    }
    let all = text.stages.iter().flat_map(|s| s.upper.iter().chain(&s.lower));
    let hidden = all.chain(&text.top).chain(&text.bottom).map(|&id| id + 1).max().unwrap_or(0);
    Ok(Checked { text, transforms, hidden, top_lengths })
}

/// `(a,b,...)`, or `a` for one value.
fn tuple_text(values: &[isize]) -> String {
    match values {
        [v] => v.to_string(),
        _ => {
            let v: Vec<String> = values.iter().map(isize::to_string).collect();
            format!("({})", v.join(","))
        }
    }
}

/// Index number `flat` over `lengths`: lexicographic (the last dimension fastest, CK's order) or
/// colexicographic (the first fastest, CuTe's and the picture's).
fn index_at(mut flat: isize, lengths: &[isize], colex: bool) -> Vec<isize> {
    let mut index = vec![0; lengths.len()];
    let order: Vec<usize> =
        if colex { (0..lengths.len()).collect() } else { (0..lengths.len()).rev().collect() };
    for k in order {
        index[k] = flat % lengths[k];
        flat /= lengths[k];
    }
    index
}

impl Checked {
    /// Run every transform, top first, on the top index: the hidden index (0 where nothing writes)
    /// and whether the index is valid (in range and no pad's padding). `each` sees every stage's
    /// upper and lower index and validity. A hidden index past [`MAX_VALUE`] is an error, so that
    /// the next transform's arithmetic stays within `isize`.
    fn evaluate(
        &self,
        top: &[isize],
        hidden: &mut [isize],
        mut each: impl FnMut(usize, &[isize], &[isize], bool),
    ) -> Result<bool, String> {
        hidden.fill(0);
        let mut valid = top.iter().zip(&self.top_lengths).all(|(&i, &l)| 0 <= i && i < l);
        for (&id, &v) in self.text.top.iter().zip(top) {
            hidden[id] = v;
        }
        let (mut up, mut low) = ([0isize; MAX_ARITY], [0isize; MAX_ARITY]);
        for (k, (s, t)) in self.text.stages.iter().zip(&self.transforms).enumerate() {
            let up = &mut up[..s.upper.len()];
            for (u, &id) in up.iter_mut().zip(&s.upper) {
                *u = hidden[id];
            }
            let low = &mut low[..s.lower.len()];
            t.lower(up, low)?;
            for (&id, &v) in s.lower.iter().zip(low.iter()) {
                if v.abs() > MAX_VALUE {
                    return Err(format!(
                        "transform {k}, {}, gives hidden id {id} the index {v} at top index {}: past 2^30, the most the tool computes with",
                        s.transform_text(),
                        tuple_text(top)
                    ));
                }
                hidden[id] = v;
            }
            let ok = t.valid(up, low);
            valid &= ok;
            each(k, up, low, ok);
        }
        Ok(valid)
    }

    /// What a top index gives, as a cell: the offset (descriptor) or the bottom index (adaptor),
    /// `-` where invalid.
    fn cell(&self, top: &[isize], hidden: &mut [isize]) -> Result<String, String> {
        let valid = self.evaluate(top, hidden, |_, _, _, _| {})?;
        if !valid {
            return Ok("-".to_string());
        }
        let bottom: Vec<isize> = self.text.bottom.iter().map(|&id| hidden[id]).collect();
        Ok(tuple_text(&bottom))
    }

    /// The number of top indices, if within `isize`.
    fn count(&self) -> Option<isize> {
        self.top_lengths.iter().try_fold(1isize, |p, &l| p.checked_mul(l))
    }

    /// What the values are, for headings.
    fn what(&self) -> String {
        if self.text.descriptor {
            "offsets".to_string()
        } else {
            format!("bottom indices (ids {})", ids_text(&self.text.bottom))
        }
    }
}

/// CuTe's `print_layout` table of `cells` (`rows x cols`, row-major), each cell right-aligned in
/// a column as wide as the widest cell.
fn grid(out: &mut String, rows: isize, cols: isize, cells: &[String]) {
    let digits = |n: isize| n.max(1).to_string().len();
    let w = cells.iter().map(String::len).max().unwrap_or(1).max(digits(cols - 1));
    let rule = |out: &mut String| {
        out.push_str("    ");
        for _ in 0..cols {
            out.push('+');
            out.push_str(&"-".repeat(w + 2));
        }
        out.push_str("+\n");
    };
    out.push_str("    ");
    for n in 0..cols {
        let _ = write!(out, "  {n:>w$} ");
    }
    out.push('\n');
    for m in 0..rows {
        rule(out);
        let _ = write!(out, "{m:>2}  ");
        for n in 0..cols {
            let _ = write!(out, "| {:>w$} ", cells[(m * cols + n) as usize]);
        }
        out.push_str("|\n");
    }
    rule(out);
}

/// The default output: the text, one stage a line; the top lengths; the element space size; and
/// every top index's value where there are at most [`MAX_INDICES`].
fn show(c: &Checked) -> Result<String, String> {
    let mut out = c.text.text(true);
    out.push('\n');
    let _ = writeln!(
        out,
        "top lengths {} (hidden ids {}), {} hidden dimension{}",
        tuple_text(&c.top_lengths),
        ids_text(&c.text.top),
        c.hidden,
        if c.hidden == 1 { "" } else { "s" }
    );
    if c.text.descriptor {
        let _ = writeln!(out, "element space size {}", c.text.element_space_size);
    }
    let count = match c.count() {
        Some(n) if n <= MAX_INDICES => n,
        n => {
            let n = n.map_or_else(|| "more than 2^63".to_string(), |n| n.to_string());
            let _ = writeln!(
                out,
                "{n} top indices: the tool lists at most {MAX_INDICES}; --at (i,j,...) traces one"
            );
            return Ok(out);
        }
    };
    let mut hidden = vec![0; c.hidden];
    let dims = c.top_lengths.len();
    let what = c.what();
    let pads = c.transforms.iter().any(|t| !t.valid_always());
    let dash = if pads { "; -: invalid (padding)" } else { "" };
    if dims == 1 || dims == 2 {
        let (rows, cols) =
            if dims == 1 { (1, c.top_lengths[0]) } else { (c.top_lengths[0], c.top_lengths[1]) };
        let mut cells = Vec::with_capacity(count as usize);
        for m in 0..rows {
            for n in 0..cols {
                let top: &[isize] = if dims == 1 { &[n] } else { &[m, n] };
                cells.push(c.cell(top, &mut hidden)?);
            }
        }
        let layout = if dims == 1 { "top dim 0 across" } else { "rows: top dim 0, columns: top dim 1" };
        let _ = writeln!(out, "{what} ({layout}{dash}):");
        grid(&mut out, rows, cols, &cells);
    } else {
        let _ = writeln!(out, "{what} (the last top dimension fastest{dash}):");
        for flat in 0..count {
            let top = index_at(flat, &c.top_lengths, false);
            let cell = c.cell(&top, &mut hidden)?;
            let index: Vec<String> = top.iter().map(isize::to_string).collect();
            let _ = writeln!(out, "({}) -> {cell}", index.join(","));
        }
    }
    Ok(out)
}

/// `--at COORD`: the top index, one integer per top dimension (an integer alone for one).
fn read_top(coord: &str, dims: usize) -> Result<Vec<isize>, String> {
    let mut c = Cursor::new(coord);
    let t = c.int_tuple().map_err(|e| format!("--at: {e}"))?;
    if !c.at_end() {
        return Err(format!("--at: {}", c.error("the end of the top index")));
    }
    let values: Vec<DynInt> = match t.as_int() {
        Some(v) => vec![v],
        None if t.modes().all(|m| m.is_int()) => t.leaves().collect(),
        None => return Err(format!("--at takes a flat top index, not {t}")),
    };
    if values.len() != dims {
        return Err(format!(
            "--at {t} has {} integer{}; the top has {dims} dimension{}",
            values.len(),
            if values.len() == 1 { "" } else { "s" },
            if dims == 1 { "" } else { "s" }
        ));
    }
    values
        .into_iter()
        .map(|v| match v.value.abs() <= MAX_VALUE && !v.has_basis() {
            true => Ok(v.value),
            false => Err(format!("--at's index {v} is not an integer within 2^30, the most the tool takes")),
        })
        .collect()
}

/// `--at`: CK's `calculate_bottom_index` (`make_tensor_coordinate`) as a trace: the hidden index
/// after each transform, top first, then the offset (or bottom index) and its validity.
fn trace(c: &Checked, top: &[isize]) -> Result<String, String> {
    let mut out = c.text.text(true);
    out.push('\n');
    let mut hidden = vec![0; c.hidden];
    let mut written = vec![false; c.hidden];
    let hidden_text = |hidden: &[isize], written: &[bool]| {
        let v: Vec<String> = hidden
            .iter()
            .zip(written)
            .map(|(v, w)| if *w { v.to_string() } else { ".".to_string() })
            .collect();
        format!("({})", v.join(","))
    };
    for &id in &c.text.top {
        written[id] = true;
    }
    for (&id, &v) in c.text.top.iter().zip(top) {
        hidden[id] = v;
    }
    let mut rows = vec![(
        format!("top {}", ids_text(&c.text.top)),
        format!("= {}", tuple_text(top)),
        hidden_text(&hidden, &written),
    )];
    let mut first_invalid = None;
    let mut steps: Vec<(usize, String, bool)> = Vec::new();
    let valid = c.evaluate(top, &mut hidden, |k, up, low, ok| {
        steps.push((k, format!("{} -> {}", tuple_text(up), tuple_text(low)), ok));
    })?;
    // Replay the writes for the picture of the hidden index after each stage.
    let mut shown = vec![0; c.hidden];
    for (&id, &v) in c.text.top.iter().zip(top) {
        shown[id] = v;
    }
    for (k, map, ok) in steps {
        let s = &c.text.stages[k];
        for &id in &s.lower {
            written[id] = true;
            shown[id] = hidden[id];
        }
        if !ok && first_invalid.is_none() {
            first_invalid = Some(k);
        }
        let map = if ok { map } else { format!("{map}  (padding: invalid)") };
        rows.push((format!("{k}: {}", s.text()), map, hidden_text(&shown, &written)));
    }
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "--at {}: the hidden index after each transform, top first (ids 0..{}; .: not written yet)",
        tuple_text(top),
        c.hidden
    );
    for (a, b, h) in rows {
        let _ = writeln!(out, "  {a:<w0$}  {b:<w1$}  hidden {h}");
    }
    let bottom: Vec<isize> = c.text.bottom.iter().map(|&id| hidden[id]).collect();
    let what = if c.text.descriptor {
        format!("offset {}", bottom.first().copied().unwrap_or(0))
    } else {
        format!("bottom index {} (ids {})", tuple_text(&bottom), ids_text(&c.text.bottom))
    };
    let in_range = top.iter().zip(&c.top_lengths).all(|(&i, &l)| 0 <= i && i < l);
    let verdict = match (valid, in_range, first_invalid) {
        (true, _, _) => "valid".to_string(),
        (false, false, _) => format!("invalid: outside the top lengths {}", tuple_text(&c.top_lengths)),
        (false, true, Some(k)) => format!("invalid: in the padding of transform {k}"),
        (false, true, None) => "invalid".to_string(),
    };
    let _ = writeln!(out, "{what}, {verdict}");
    Ok(out)
}

/// `--svg`: the values as a picture, top dim 0 down the rows and the rest, colexicographically,
/// across; blank where invalid.
fn svg(c: &Checked) -> Result<String, String> {
    if !c.text.descriptor && c.text.bottom.len() != 1 {
        return Err(format!(
            "--svg draws a descriptor's offsets or an adaptor's one bottom index; this adaptor has {} bottom dimensions",
            c.text.bottom.len()
        ));
    }
    let count = c
        .count()
        .filter(|&n| n <= MAX_INDICES)
        .ok_or_else(|| format!("--svg draws at most {MAX_INDICES} top indices; this one has more"))?;
    let rows = if c.top_lengths.len() >= 2 { c.top_lengths[0] } else { 1 };
    let mut hidden = vec![0; c.hidden];
    let mut values = Vec::with_capacity(count as usize);
    for flat in 0..count {
        let top = index_at(flat, &c.top_lengths, true);
        let valid = c.evaluate(&top, &mut hidden, |_, _, _, _| {})?;
        values.push(valid.then(|| c.text.bottom.first().map_or(0, |&id| hidden[id])));
    }
    let text = c.text.text(false);
    let caption = if text.chars().count() > MAX_CAPTION_CHARS {
        let cut: String = text.chars().take(MAX_CAPTION_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        text
    };
    let picture = print_svg_values(&values, rows as usize, &caption).map_err(|e| format!("--svg: {e}"))?;
    Ok(picture.to_string())
}

/// `layout ck-tile DESC [--at COORD | --svg]`.
pub(super) fn ck_tile(args: &[&str]) -> Result<String, String> {
    let (mut words, mut at, mut picture) = (Vec::new(), None, false);
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "--at" => {
                if at.is_some() {
                    return Err("`--at` is given twice".to_string());
                }
                at = Some(*it.next().ok_or("`--at` needs a top index, e.g. --at '(1,2)'")?);
            }
            "--svg" => picture = true,
            _ => words.push(a),
        }
    }
    if words.is_empty() {
        return Err("`ck-tile` needs a descriptor, e.g. layout ck-tile 'tensor_descriptor{transforms: [embed((3,4),(8,_1)): [1,2] -> [0]], top: [1,2], element_space_size: 20}'".to_string());
    }
    if picture && at.is_some() {
        return Err("`--at` and `--svg` do not go together: give one".to_string());
    }
    let (text, top_column, bottom_column) = read_text(&words.join(" "))?;
    let checked = check(text, top_column, bottom_column)?;
    match at {
        Some(coord) => trace(&checked, &read_top(coord, checked.top_lengths.len())?),
        None if picture => svg(&checked),
        None => show(&checked),
    }
}
