//! The one table of the operations the evaluator knows, and the one place each layout-valued
//! operation is wired to [`crate::algebra`].
//!
//! Three users read it: the evaluator ([`super::eval`]) maps a name to its [`Op`] and dispatches
//! with an exhaustive `match`; the `layout functions` command prints [`OPERATIONS`]; the library's
//! generic static path (`const_layout::algebra::computed`) names each expression type's [`Op`] and
//! computes its constant through [`apply_layout_op`], the same `const fn` the evaluator calls.
//! A new variant without a table entry is a compile error (the table is checked against the enum
//! in a constant), and one without an implementation is too (the evaluator's `match` is
//! exhaustive).

use crate::algebra::{self, Slicer, Tiler};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::error::LayoutError;

macro_rules! operations {
    ($($op:ident $name:literal $args:literal,)+) => {
        /// One operation of the evaluator, by its CuTe name (see [`OPERATIONS`]).
        ///
        /// ```
        /// use const_layout::eval::Op;
        /// assert_eq!(Op::from_name("zipped_divide"), Some(Op::ZippedDivide));
        /// assert_eq!(Op::ZippedDivide.name(), "zipped_divide");
        /// assert_eq!(Op::from_name("frobnicate"), None);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $(
                #[doc = concat!("CuTe's ``", $name, $args, "``.")]
                $op,
            )+
        }

        /// The operations the evaluator knows, in [`Op`]'s order: each one's name and its argument
        /// list as the `layout functions` command prints it.
        ///
        /// ```
        /// use const_layout::eval::{Op, OPERATIONS};
        /// let e = OPERATIONS.iter().find(|e| e.name == "composition").unwrap();
        /// assert_eq!((e.op, e.args), (Op::Composition, "(layout, layout or tiler)"));
        /// ```
        pub const OPERATIONS: &[Operation] = &[
            $(Operation { op: Op::$op, name: $name, args: $args },)+
        ];
    };
}

/// One entry of [`OPERATIONS`].
///
/// ```
/// use const_layout::eval::{Op, OPERATIONS};
/// assert_eq!(OPERATIONS[Op::Size as usize].name, "size");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The operation.
    pub op: Op,
    /// Its CuTe name, as the evaluator reads it.
    pub name: &'static str,
    /// Its argument lists, in words.
    pub args: &'static str,
}

operations! {
    Crd2idx "crd2idx" "(coord, layout) or (coord, shape, stride)",
    Idx2crd "idx2crd" "(index, shape or layout) or (index, shape, stride)",
    Size "size" "(int tuple or layout)",
    Cosize "cosize" "(layout)",
    Rank "rank" "(int tuple or layout)",
    Depth "depth" "(int tuple or layout)",
    Shape "shape" "(layout)",
    Stride "stride" "(layout)",
    Get "get" "(int tuple or layout, mode)",
    Flatten "flatten" "(int tuple or layout)",
    Product "product" "(int tuple)",
    ProductEach "product_each" "(int tuple)",
    PrefixProduct "prefix_product" "(int tuple)",
    SuffixProduct "suffix_product" "(int tuple)",
    CompactColMajor "compact_col_major" "(shape) or (shape, current)",
    CompactRowMajor "compact_row_major" "(shape) or (shape, current)",
    ShapeDiv "shape_div" "(a, b)",
    CeilDiv "ceil_div" "(a, b)",
    Congruent "congruent" "(a, b)",
    WeaklyCongruent "weakly_congruent" "(a, b)",
    Compatible "compatible" "(a, b)",
    MakeLayout "make_layout" "(shape) or (shape, stride or LayoutLeft or LayoutRight)",
    MakeOrderedLayout "make_ordered_layout" "(shape, order)",
    GetHierCoord "get_hier_coord" "(layout, offset)",
    GetFlatCoord "get_flat_coord" "(layout, offset)",
    Get1dCoord "get_1d_coord" "(layout, offset)",
    Coalesce "coalesce" "(layout) or (layout, profile) or (shape)",
    FilterZeros "filter_zeros" "(layout) or (layout, profile)",
    Filter "filter" "(layout) or (layout, profile)",
    Composition "composition" "(layout, layout or tiler)",
    Complement "complement" "(layout) or (layout, cotarget)",
    RightInverse "right_inverse" "(layout)",
    LeftInverse "left_inverse" "(layout)",
    MaxCommonLayout "max_common_layout" "(layout, layout)",
    MaxCommonVector "max_common_vector" "(layout, layout)",
    Nullspace "nullspace" "(layout)",
    LogicalDivide "logical_divide" "(layout, tiler)",
    ZippedDivide "zipped_divide" "(layout, tiler)",
    TiledDivide "tiled_divide" "(layout, tiler)",
    FlatDivide "flat_divide" "(layout, tiler)",
    LogicalProduct "logical_product" "(layout, tiler)",
    ZippedProduct "zipped_product" "(layout, tiler)",
    TiledProduct "tiled_product" "(layout, tiler)",
    FlatProduct "flat_product" "(layout, tiler)",
    BlockedProduct "blocked_product" "(layout, layout)",
    RakedProduct "raked_product" "(layout, layout)",
    TileToShape "tile_to_shape" "(layout, shape) or (layout, shape, order)",
    Select "select" "<i, ...>(layout)",
    Take "take" "<begin, end>(layout)",
    Group "group" "<begin, end>(layout)",
    Append "append" "(layout, layout) or <n>(layout)",
    Prepend "prepend" "(layout, layout)",
    Replace "replace" "<i>(layout, layout)",
    Upcast "upcast" "<n>(layout)",
    Downcast "downcast" "<n>(layout)",
    RecastLayout "recast_layout" "<old_bits, new_bits>(layout)",
    MakeLayoutLike "make_layout_like" "(layout)",
    MakeIdentityLayout "make_identity_layout" "(shape): strides `_1@0`, `_1@1`, ...; its values are coordinates",
    LocalTile "local_tile" "(layout, tiler, coord): the tile's layout and offset",
    Slice "slice" "(coord with `_`, layout or composed layout)",
    SliceAndOffset "slice_and_offset" "(coord with `_`, layout): the sliced layout and the offset",
    MakeLayoutTv "make_layout_tv" "(thread layout, value layout): the tile shape and the (thread, value) layout",
    LocalPartition "local_partition" "(layout, thread layout, index): the thread's layout and offset",
    // The linear layouts' operations stay last (`eval::linear::with_linear` relies on it).
    Linear "linear" "(layout or swizzled layout) or (bases, ..., output bits) or (swizzle, bits): a linear layout over F2, bases in tuples of up to 8",
    Invert "invert" "(linear layout): the inverse of a bijection",
    PseudoInvert "pseudo_invert" "(linear layout): a right inverse on the image",
    InvertAndCompose "invert_and_compose" "(linear layout, linear layout): C with b(C(x)) = a(x)",
    DirectSum "direct_sum" "(linear layout, linear layout): a on the low bits, b above",
    DivideLeft "divide_left" "(linear layout, divisor): C with a = divisor + C",
    FreeMask "free_mask" "(linear layout): the input bits that reach nothing new",
    IsInjective "is_injective" "(linear layout)",
    IsSurjective "is_surjective" "(linear layout)",
    Contiguous "contiguous" "(linear layout): the consecutive inputs that are consecutive outputs (vector width)",
    ToLayout "to_layout" "(linear layout): back to CuTe form, a layout or Sw<B,M,S> o layout",
}

// `Op::name` indexes the table by the variant's number: the table must list every variant once,
// in order. Checked when the crate compiles.
const _: () = {
    assert!(OPERATIONS.len() == Op::ToLayout as usize + 1, "OPERATIONS must list every Op");
    let mut i = 0;
    while i < OPERATIONS.len() {
        assert!(OPERATIONS[i].op as usize == i, "OPERATIONS must list the Ops in their order");
        i += 1;
    }
};

impl Op {
    /// The operation's CuTe name.
    ///
    /// ```
    /// use const_layout::eval::Op;
    /// assert_eq!(Op::MakeLayoutTv.name(), "make_layout_tv");
    /// ```
    pub const fn name(self) -> &'static str {
        OPERATIONS[self as usize].name
    }

    /// The operation called `name`, if the evaluator knows one.
    ///
    /// ```
    /// use const_layout::eval::Op;
    /// assert_eq!(Op::from_name("get_1d_coord"), Some(Op::Get1dCoord));
    /// assert_eq!(Op::from_name("Get1dCoord"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Op> {
        OPERATIONS.iter().find(|e| e.name == name).map(|e| e.op)
    }
}

/// One operand of [`apply_layout_op`]: a reference (operands are large and are not copied) or an
/// integer.
///
/// ```
/// use const_layout::eval::Arg;
/// use const_layout::dyn_layout::DynLayout;
/// let l: DynLayout = "(4,2):(1,4)".parse().unwrap();
/// assert!(matches!(Arg::Layout(&l), Arg::Layout(x) if x.rank() == 2));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// A layout.
    Layout(&'a DynLayout),
    /// Layouts, each one mode of the result (`make_layout(layout, layout, ...)`).
    Layouts(&'a [DynLayout]),
    /// A tiler (a layout, or one item per mode).
    Tiler(&'a Tiler),
    /// An int tuple: a shape, a cotarget or an order.
    Tuple(&'a DynIntTuple),
    /// A coordinate with `_` in it.
    Slicer(&'a Slicer),
    /// A mode index or a count (a template argument such as `take<B, E>`'s).
    Index(usize),
    /// A signed template argument (`upcast<N>`, `recast_layout<Old, New>`).
    Int(isize),
}

/// The most operands one operation takes here (`select`'s layout and its indices).
const MAX_OPERANDS: usize = 9;

/// CuTe's layout-valued operation `op` on `args`: the one place each is wired to
/// [`crate::algebra`]. A `const fn`, so the static path computes its constants with it.
///
/// The operand lists, by operation (the evaluator's forms that need a non-`const` algebra
/// function, such as `coalesce(layout, profile)`, are not here):
/// - `coalesce`, `filter_zeros`, `filter`, `complement`, `right_inverse`, `left_inverse`,
///   `nullspace`, `make_layout_like`: `[Layout]`;
/// - `make_identity_layout`: `[Tuple]`; `make_layout`: `[Layouts]` (one mode per layout);
/// - `composition`, the divides and the products: `[Layout, Tiler]`;
/// - `complement`: `[Layout, Tuple]` (the cotarget); `tile_to_shape`: `[Layout, Tuple]` or
///   `[Layout, Tuple, Tuple]` (shape, order);
/// - `max_common_layout`, `blocked_product`, `raked_product`, `append`, `prepend`:
///   `[Layout, Layout]`; `append`: `[Layout, Index]` (`append<n>`);
/// - `get`: `[Layout, Index]` (mode `I`, CuTe's `layout<I>`); `select`: `[Layout, Index, ...]`;
///   `take`, `group`: `[Layout, Index, Index]`; `replace`: `[Layout, Index, Layout]`;
/// - `upcast`, `downcast`: `[Layout, Int]`; `recast_layout`: `[Layout, Int, Int]`;
/// - `slice`: `[Slicer, Layout]`.
///
/// Anything else is [`LayoutError::Operands`].
///
/// ```
/// use const_layout::eval::{Op, Arg, apply_layout_op};
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::LayoutError;
/// let l: DynLayout = "(_2,(_1,_6)):(_1,(_6,_2))".parse().unwrap();
/// assert_eq!(apply_layout_op(Op::Coalesce, &[Arg::Layout(&l)]).unwrap().to_string(), "_12:_1");
/// assert_eq!(apply_layout_op(Op::Take, &[Arg::Layout(&l), Arg::Index(1), Arg::Index(2)]).unwrap().to_string(), "((_1,_6)):((_6,_2))");
/// assert_eq!(apply_layout_op(Op::Size, &[Arg::Layout(&l)]), Err(LayoutError::Operands { op: "size" }));
/// ```
pub const fn apply_layout_op(op: Op, args: &[Arg<'_>]) -> Result<DynLayout, LayoutError> {
    use Arg as O;
    let bad = Err(LayoutError::Operands { op: op.name() });
    match (op, args) {
        (Op::Coalesce, [O::Layout(l)]) => algebra::coalesce(l),
        (Op::FilterZeros, [O::Layout(l)]) => algebra::filter_zeros(l),
        (Op::Filter, [O::Layout(l)]) => algebra::filter(l),
        (Op::Complement, [O::Layout(l)]) => algebra::complement(l),
        (Op::Complement, [O::Layout(l), O::Tuple(t)]) => algebra::complement_to(l, t),
        (Op::RightInverse, [O::Layout(l)]) => algebra::right_inverse(l),
        (Op::LeftInverse, [O::Layout(l)]) => algebra::left_inverse(l),
        (Op::Nullspace, [O::Layout(l)]) => algebra::nullspace(l),
        (Op::MakeLayoutLike, [O::Layout(l)]) => algebra::make_layout_like(l),
        (Op::MakeIdentityLayout, [O::Tuple(t)]) => algebra::make_identity_layout(t),
        (Op::MakeLayout, [O::Layouts(modes)]) => algebra::make_layout_of(modes),
        (Op::Composition, [O::Layout(l), O::Tiler(t)]) => algebra::composition_tiler(l, t),
        (Op::LogicalDivide, [O::Layout(l), O::Tiler(t)]) => algebra::logical_divide(l, t),
        (Op::ZippedDivide, [O::Layout(l), O::Tiler(t)]) => algebra::zipped_divide(l, t),
        (Op::TiledDivide, [O::Layout(l), O::Tiler(t)]) => algebra::tiled_divide(l, t),
        (Op::FlatDivide, [O::Layout(l), O::Tiler(t)]) => algebra::flat_divide(l, t),
        (Op::LogicalProduct, [O::Layout(l), O::Tiler(t)]) => algebra::logical_product(l, t),
        (Op::ZippedProduct, [O::Layout(l), O::Tiler(t)]) => algebra::zipped_product(l, t),
        (Op::TiledProduct, [O::Layout(l), O::Tiler(t)]) => algebra::tiled_product(l, t),
        (Op::FlatProduct, [O::Layout(l), O::Tiler(t)]) => algebra::flat_product(l, t),
        (Op::BlockedProduct, [O::Layout(a), O::Layout(b)]) => algebra::blocked_product(a, b),
        (Op::RakedProduct, [O::Layout(a), O::Layout(b)]) => algebra::raked_product(a, b),
        (Op::TileToShape, [O::Layout(l), O::Tuple(s)]) => algebra::tile_to_shape(l, s, None),
        (Op::TileToShape, [O::Layout(l), O::Tuple(s), O::Tuple(o)]) => algebra::tile_to_shape(l, s, Some(o)),
        (Op::MaxCommonLayout, [O::Layout(a), O::Layout(b)]) => algebra::max_common_layout(a, b),
        (Op::Append, [O::Layout(l), O::Layout(x)]) => algebra::append(l, x),
        (Op::Append, [O::Layout(l), O::Index(n)]) => algebra::append_to(l, *n),
        (Op::Prepend, [O::Layout(l), O::Layout(x)]) => algebra::prepend(l, x),
        (Op::Get, [O::Layout(l), O::Index(i)]) => match l.mode(*i) {
            Some(m) => Ok(m),
            None => Err(LayoutError::ModeOutOfRange { op: "layout<I>", index: *i, rank: l.rank() }),
        },
        (Op::Select, [O::Layout(l), rest @ ..]) => {
            let mut idx = [0usize; MAX_OPERANDS];
            if rest.len() > idx.len() {
                return bad;
            }
            let mut k = 0;
            while k < rest.len() {
                let O::Index(i) = rest[k] else { return bad };
                idx[k] = i;
                k += 1;
            }
            algebra::select(l, idx.split_at(rest.len()).0)
        }
        (Op::Take, [O::Layout(l), O::Index(b), O::Index(e)]) => algebra::take(l, *b, *e),
        (Op::Group, [O::Layout(l), O::Index(b), O::Index(e)]) => algebra::group(l, *b, *e),
        (Op::Replace, [O::Layout(l), O::Index(i), O::Layout(x)]) => algebra::replace(l, *i, x),
        (Op::Upcast, [O::Layout(l), O::Int(n)]) => algebra::upcast(l, *n),
        (Op::Downcast, [O::Layout(l), O::Int(n)]) => algebra::downcast(l, *n),
        (Op::RecastLayout, [O::Layout(l), O::Int(a), O::Int(b)]) => algebra::recast_layout(l, *a, *b),
        (Op::Slice, [O::Slicer(s), O::Layout(l)]) => algebra::slice(s, l),
        _ => bad,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{OPERATIONS, Op};
    use crate::eval::{Value, eval};
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, vec};

    /// `text` split at `sep` where no bracket is open.
    fn split_top<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
        let (mut parts, mut depth, mut start, mut i) = (Vec::new(), 0i32, 0, 0);
        let b = text.as_bytes();
        while i < b.len() {
            match b[i] {
                b'(' | b'<' => depth += 1,
                b')' | b'>' => depth -= 1,
                _ => {}
            }
            if depth == 0 && text[i..].starts_with(sep) {
                parts.push(&text[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            i += 1;
        }
        parts.push(&text[start..]);
        parts
    }

    /// A value of the kind an argument list names, written as the evaluator reads it. The values
    /// fit each other (a rank-2 layout of size 8, coordinates and modes inside it) so every
    /// documented form has an answer.
    fn sample(op: Op, kind: &str) -> &'static str {
        match kind {
            "layout" | "value layout" => "(4,2):(1,4)",
            "thread layout" => "(2,2):(2,1)",
            "composed layout" => "Sw<1,0,1> o _0 o (4,2):(1,4)",
            "int tuple" | "shape" | "a" | "b" if op == Op::TileToShape => "(8,4)",
            "int tuple" | "shape" | "a" | "b" => "(4,2)",
            "stride" => "(1,4)",
            "coord" => "(1,1)",
            "coord with `_`" => "(_,1)",
            "index" | "offset" => "5",
            "mode" | "i" | "begin" => "1",
            "end" | "n" | "current" => "2",
            "profile" => "(1,1)",
            "cotarget" => "16",
            "order" => "(1,0)",
            "tiler" => "<2:1, 2:1>",
            "LayoutLeft" | "LayoutRight" => kind_static(kind),
            "old_bits" => "16",
            "new_bits" => "32",
            "..." => "0",
            "swizzled layout" => "Sw<1,0,1> o _0 o (4,2):(1,4)",
            "bases" => "(1,2,4)",
            "output bits" | "bits" => "4",
            "swizzle" => "Sw<1,0,1>",
            "linear layout" => "linear((2,1,4),3)",
            "divisor" => "linear((2,1),2)",
            _ => panic!("no sample for argument kind `{kind}` of `{}`", op.name()),
        }
    }

    fn kind_static(kind: &str) -> &'static str {
        if kind == "LayoutLeft" { "LayoutLeft" } else { "LayoutRight" }
    }

    /// Every call the argument lists document: each form, each alternative of each argument.
    fn documented_calls(op: Op, args: &str) -> Vec<String> {
        // A description after the list (`(shape): strides ...`) is not part of it.
        let list = args.find("): ").map_or(args, |i| &args[..=i]);
        let mut calls = Vec::new();
        for form in split_top(list, " or ") {
            let (targs, params) = match form.strip_prefix('<') {
                Some(rest) => {
                    let end = rest.find('>').expect("a closed template list");
                    (Some(&rest[..end]), &rest[end + 1..])
                }
                None => (None, form),
            };
            let params = params.strip_prefix('(').and_then(|p| p.strip_suffix(')')).expect("(...)");
            let targs = targs.map(|t| {
                let t: Vec<&str> = t.split(", ").map(|k| sample(op, k)).collect();
                format!("<{}>", t.join(", "))
            });
            // One call per alternative of each argument, the others at their first.
            let alternatives: Vec<Vec<&str>> =
                split_top(params, ", ").into_iter().map(|p| split_top(p, " or ")).collect();
            let mut choices = vec![vec![0usize; alternatives.len()]];
            for (i, alts) in alternatives.iter().enumerate() {
                for a in 1..alts.len() {
                    let mut c = vec![0usize; alternatives.len()];
                    c[i] = a;
                    choices.push(c);
                }
            }
            for c in choices {
                let written: Vec<&str> =
                    alternatives.iter().zip(&c).map(|(alts, &a)| sample(op, alts[a])).collect();
                calls.push(format!(
                    "{}{}({})",
                    op.name(),
                    targs.clone().unwrap_or_default(),
                    written.join(", ")
                ));
            }
        }
        calls
    }

    #[test]
    fn every_operation_evaluates_in_every_documented_form() {
        let mut count = 0;
        for e in OPERATIONS {
            let calls = documented_calls(e.op, e.args);
            assert!(!calls.is_empty(), "{}", e.name);
            for call in calls {
                let v = eval(&call).unwrap_or_else(|err| panic!("`{call}` ({}{}): {err}", e.name, e.args));
                // The value prints, and a printed layout reads back as the same layout.
                let printed = v.to_string();
                assert!(!printed.is_empty(), "{call}");
                if let Value::Layout(l) = v {
                    assert_eq!(eval(&printed).unwrap(), Value::Layout(l), "{call}");
                }
                count += 1;
            }
        }
        assert!(count > OPERATIONS.len(), "{count} calls");
    }

    #[test]
    fn names_map_to_their_operations_and_back() {
        for (i, e) in OPERATIONS.iter().enumerate() {
            assert_eq!(e.op as usize, i);
            assert_eq!(Op::from_name(e.name), Some(e.op));
            assert_eq!(e.op.name(), e.name);
            assert_eq!(OPERATIONS.iter().filter(|f| f.name == e.name).count(), 1, "{}", e.name);
        }
        assert_eq!(Op::from_name("Composition"), None);
        assert_eq!(Op::from_name(""), None);
        assert_eq!(Op::from_name(&"composition".to_string()[..11]), Some(Op::Composition));
    }
}
