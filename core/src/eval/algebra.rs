//! The layout-algebra functions of the evaluator (see [`crate::algebra`]).

use super::{Call, EvalError, Value, int_tuple_of};
use crate::algebra::{self, Tiler};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::swizzle::{ComposedLayout, Sliced};

/// Evaluate `c` if it is an algebra function; `None` leaves it to the other cases.
pub(super) fn call(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    if let Some(v) = composed(c)? {
        return Ok(Some(v));
    }
    // One call site for every case (see `super::call`).
    let case: fn(&Call<'_>) -> Result<Option<Value>, EvalError> = match c.function {
        "make_layout" if c.n >= 1 && matches!(c.arg(1).value, Value::Layout(_)) => case_0,
        "coalesce" | "filter_zeros" | "filter" => case_1,
        "composition" => case_2,
        "complement" => case_3,
        "right_inverse" | "left_inverse" | "nullspace" | "make_layout_like" => case_4,
        "max_common_layout" => case_5,
        "max_common_vector" => case_6,
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => case_7,
        "blocked_product" | "raked_product" => case_8,
        "tile_to_shape" => case_9,
        "select" => case_10,
        "take" | "group" => case_11,
        "append" if c.targs.1.is_some() => case_12,
        "append" | "prepend" => case_13,
        "replace" => case_14,
        "upcast" | "downcast" => case_15,
        "recast_layout" => case_16,
        "local_tile" => case_17,
        "make_layout_tv" => case_18,
        "local_partition" => case_19,
        "make_identity_layout" => case_20,
        _ => return Ok(None),
    };
    case(c)
}

/// Functions that CuTe applies to a composed layout's inner layout, keeping the outer function
/// and the offset.
const ON_INNER: &[&str] = &[
    "composition",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
    "tile_to_shape",
    "coalesce",
    "filter",
    "take",
    "group",
    "append",
    "flatten",
    "get",
];

/// Swizzles and composed layouts: `composition(Sw<..>, L)` builds one; the functions in
/// [`ON_INNER`] map the inner layout; `crd2idx`, `size`, `rank`, `complement` read through.
fn composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    // Each form in its own function, chosen here and called once: in an unoptimized build a
    // frame holding every form's values would lie under every call of an expression.
    type Form = fn(&Call<'_>) -> Result<Option<Value>, EvalError>;
    let form: Form = match (c.function, c.args[0].as_ref().map(|a| &a.value)) {
        ("composition", Some(Value::Swizzle(_))) => swizzle_composition,
        ("upcast" | "downcast", Some(Value::Composed(_) | Value::Swizzle(_))) => cast_composed,
        ("composition", Some(Value::Layout(_)))
            if c.n == 2 && matches!(c.arg(2).value, Value::Composed(_)) =>
        {
            layout_after_composed
        }
        ("right_inverse" | "left_inverse", Some(Value::Composed(_))) => inverse_composed,
        ("recast_layout", Some(Value::Composed(_))) => recast_of_composed,
        ("crd2idx", _) if c.n == 2 => crd2idx_composed,
        ("slice" | "slice_and_offset", _) if c.n == 2 => slice_any,
        ("max_common_layout", _) if c.n == 2 => max_common_layout_composed,
        ("max_common_vector", _) if c.n == 2 => max_common_vector_composed,
        ("size" | "rank", Some(Value::Composed(_))) => size_rank_composed,
        ("complement", Some(Value::Composed(_))) => complement_composed,
        (f, Some(Value::Composed(_))) if ON_INNER.contains(&f) => on_inner,
        _ => return Ok(None),
    };
    form(c)
}

/// CuTe's `composition(Sw, L)` or `composition(Sw, offset, L)`.
#[inline(never)]
fn swizzle_composition(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Swizzle(s) = c.arg(1).value else { return Ok(None) };
    let n = c.arity(&[2, 3], "2 or 3")?;
    let offset = if n == 3 { c.int(2)? } else { DynInt::new_static(0) };
    let inner = c.layout(n)?;
    if inner.has_basis() {
        return Err(EvalError::Layout {
            column: c.column,
            error: LayoutError::BasisStride { op: "composition with a swizzle" },
        });
    }
    // `Sw<0,M,S>` is the identity: CuTe returns the layout itself.
    if s.bits() == 0 && offset.value == 0 {
        return Ok(Some(Value::Layout(inner)));
    }
    Ok(Some(Value::Composed(ComposedLayout::with_offset(crate::swizzle::Outer::Swizzle(s), offset, inner))))
}

/// `upcast` and `downcast` of a composed layout or a swizzle.
#[inline(never)]
fn cast_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    c.arity(&[1], "1")?;
    let n = targs(c, 1, 1)?[0];
    let up = c.function == "upcast";
    match &c.arg(1).value {
        Value::Composed(k) => {
            let r = if up { k.upcast(n) } else { k.downcast(n) };
            Ok(Some(Value::Composed(r.map_err(lay(c))?)))
        }
        Value::Swizzle(s) => {
            let r = if up { s.upcast(n) } else { s.downcast(n) };
            Ok(Some(Value::Swizzle(r.map_err(lay(c))?)))
        }
        _ => Ok(None),
    }
}

/// `composition(layout, composed)`.
#[inline(never)]
fn layout_after_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let (Value::Layout(a), Value::Composed(k)) = (&c.arg(1).value, &c.arg(2).value) else { return Ok(None) };
    let r = k.composed_after(a).map_err(lay(c))?;
    Ok(Some(match r.outer() {
        crate::swizzle::Outer::Swizzle(s) if s.bits() == 0 => Value::Layout(*r.inner()),
        _ => Value::Composed(r),
    }))
}

#[inline(never)]
fn inverse_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Composed(k) = &c.arg(1).value else { return Ok(None) };
    c.arity(&[1], "1")?;
    let r = if c.function == "right_inverse" { k.right_inverse() } else { k.left_inverse() };
    let r = r.map_err(lay(c))?;
    Ok(Some(match r.outer() {
        // CuTe's `composition(Swizzle<0,..>, L)` is `L`.
        crate::swizzle::Outer::Swizzle(s) if s.bits() == 0 => Value::Layout(*r.inner()),
        _ => Value::Composed(r),
    }))
}

#[inline(never)]
fn recast_of_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Composed(k) = &c.arg(1).value else { return Ok(None) };
    c.arity(&[1], "1")?;
    let t = targs(c, 2, 2)?;
    Ok(Some(Value::Composed(recast_composed(k, t[0], t[1]).map_err(lay(c))?)))
}

#[inline(never)]
fn crd2idx_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    match &c.arg(2).value {
        Value::Composed(k) => {
            let i = k.inner().crd2idx(&c.tuple(1)?).map_err(lay(c))?;
            Ok(Some(Value::Int(DynInt::new_runtime(k.apply(i.value)))))
        }
        Value::Swizzle(s) => Ok(Some(Value::Int(DynInt::new_runtime(s.apply(c.int(1)?.value))))),
        _ => Ok(None),
    }
}

/// `slice` and `slice_and_offset` of a layout or a composed layout.
#[inline(never)]
fn slice_any(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let s = slicer(c, 1)?;
    match &c.arg(2).value {
        Value::Composed(k) => {
            // CuTe's: the swizzle decays to a plain layout where it is linear on the
            // slice, and the offset comes out.
            let (part, offset) = k.slice_and_offset(&s).map_err(lay(c))?;
            let slice = c.function == "slice";
            Ok(Some(match part {
                Sliced::Layout(l) if slice => Value::Layout(l),
                Sliced::Composed(k) if slice => Value::Composed(k),
                Sliced::Layout(l) => {
                    Value::Partition(algebra::LayoutPartition::new(l, DynIntTuple::int(offset)))
                }
                Sliced::Composed(k) => Value::ComposedPartition(k, offset),
            }))
        }
        Value::Layout(l) => {
            let p = algebra::slice_and_offset(&s, l).map_err(lay(c))?;
            Ok(Some(if c.function == "slice" { Value::Layout(p.layout) } else { Value::Partition(p) }))
        }
        _ => Err(c.argument(2, "a layout or a composed layout")),
    }
}

#[inline(never)]
fn max_common_layout_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    match (&c.arg(1).value, &c.arg(2).value) {
        (Value::Composed(k), _) | (_, Value::Composed(k))
            if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) =>
        {
            let i = if matches!(c.arg(1).value, Value::Composed(_)) { 1 } else { 2 };
            Err(c.argument(i, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
        }
        (Value::Composed(a), Value::Layout(b)) | (Value::Layout(b), Value::Composed(a)) => {
            Ok(Some(Value::Layout(a.max_common_layout(b).map_err(lay(c))?)))
        }
        (Value::Composed(_), Value::Composed(_)) => {
            Err(c.argument(2, "a layout (CuTe's max_common_layout takes one swizzled layout)"))
        }
        _ => Ok(None),
    }
}

#[inline(never)]
fn max_common_vector_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    match (&c.arg(1).value, &c.arg(2).value) {
        // CuTe's overloads take swizzled layouts only.
        (Value::Composed(k), _) if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) => {
            Err(c.argument(1, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
        }
        (_, Value::Composed(k)) if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) => {
            Err(c.argument(2, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
        }
        (Value::Composed(a), Value::Layout(b)) | (Value::Layout(b), Value::Composed(a)) => {
            Ok(Some(Value::Int(a.max_common_vector(b, None).map_err(lay(c))?)))
        }
        (Value::Composed(a), Value::Composed(b)) => {
            Ok(Some(Value::Int(a.max_common_vector(b.inner(), Some(b)).map_err(lay(c))?)))
        }
        _ => Ok(None),
    }
}

#[inline(never)]
fn size_rank_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Composed(k) = &c.arg(1).value else { return Ok(None) };
    c.arity(&[1], "1")?;
    let v = if c.function == "size" { k.size() } else { DynInt::new_static(k.rank() as isize) };
    Ok(Some(Value::Int(v)))
}

#[inline(never)]
fn complement_composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Composed(k) = &c.arg(1).value else { return Ok(None) };
    c.arity(&[2], "2")?;
    Ok(Some(Value::Layout(algebra::complement_to(k.inner(), &c.tuple(2)?).map_err(lay(c))?)))
}

/// The functions in [`ON_INNER`] on a composed layout: applied to its inner layout.
#[inline(never)]
fn on_inner(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let Value::Composed(k) = &c.arg(1).value else { return Ok(None) };
    let mut args = *c.args;
    if let Some(a) = args[0].as_mut() {
        a.value = Value::Layout(*k.inner());
    }
    let inner = Call { args: &args, ..*c };
    let result = match call(&inner)? {
        Some(v) => v,
        None => super::call(c.function, c.column, &args, c.n, c.targs)?,
    };
    match result {
        Value::Layout(l) => Ok(Some(Value::Composed(k.with_inner(l)))),
        _ => Err(c.argument(1, "a layout (this function is not defined for composed layouts)")),
    }
}

/// The error of an operation in call `c`, placed at the call.
fn lay(c: &Call<'_>) -> impl Fn(LayoutError) -> EvalError {
    let column = c.column;
    move |error| EvalError::Layout { column, error }
}

/// A layout result of call `c` as a value.
fn layout(c: &Call<'_>, v: Result<DynLayout, LayoutError>) -> Result<Value, EvalError> {
    v.map(Value::Layout).map_err(lay(c))
}

fn tuple_value(t: DynIntTuple) -> Value {
    super::tuple_value(t)
}

/// Argument `i` as a tiler: a layout, a by-mode tiler, or a shape (`(2,4)` is `<2:_1, 4:_1>`).
fn tiler(c: &Call<'_>, i: usize) -> Result<Tiler, EvalError> {
    match c.arg(i).value {
        Value::Layout(l) => Ok(Tiler::Layout(l)),
        Value::Tiler(t) => Ok(t),
        _ => {
            let s = int_tuple_of(c.arg(i))
                .ok_or_else(|| c.argument(i, "a layout, a tiler `<...>` or a shape"))?;
            Tiler::from_shape(&s).map_err(|error| EvalError::Layout { column: c.column, error })
        }
    }
}

/// Argument `i` as a slicing coordinate (`(_,2)`, `_`, or a plain coordinate).
fn slicer(c: &Call<'_>, i: usize) -> Result<crate::algebra::Slicer, EvalError> {
    match c.arg(i).value {
        Value::Slicer(s) => Ok(s),
        _ => Ok(crate::algebra::Slicer::fixed(c.tuple(i)?)),
    }
}

/// The template arguments, which must number between `min` and `max`.
fn targs<'a>(c: &Call<'a>, min: usize, max: usize) -> Result<&'a [isize], EvalError> {
    match c.targs.1 {
        Some(n) if (min..=max).contains(&n) => Ok(&c.targs.0[..n]),
        _ => Err(EvalError::Misplaced {
            column: c.column,
            what: match (min, max) {
                (1, 1) => "this function takes one template argument, as in `upcast<2>(layout)`",
                (2, 2) => "this function takes two template arguments, as in `take<1,3>(layout)`",
                _ => "this function takes template arguments, as in `select<0,2>(layout)`",
            },
        }),
    }
}

fn index(c: &Call<'_>, v: isize) -> Result<usize, EvalError> {
    usize::try_from(v)
        .map_err(|_| EvalError::Misplaced { column: c.column, what: "a mode index must not be negative" })
}

// One function per case: in a debug build each keeps its own temporaries, so one frame
// holding every case's layouts would be paid at each nesting level of an expression.
#[inline(never)]
fn case_0(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        let mut parts = [DynLayout::default(); super::MAX_ARGS];
        let n = c.n.min(super::MAX_ARGS);
        for (i, part) in parts.iter_mut().enumerate().take(n) {
            *part = c.layout(i + 1)?;
        }
        layout(c, algebra::make_layout_of(&parts[..n]))?
    }))
}

#[inline(never)]
fn case_1(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        let k = c.arity(&[1, 2], "1 or 2")?;
        if c.function == "coalesce" && k == 1 && !matches!(c.arg(1).value, Value::Layout(_)) {
            return Ok(Some(tuple_value(algebra::coalesce_shape(&c.tuple(1)?).map_err(lay(c))?)));
        }
        let l = c.layout(1)?;
        layout(
            c,
            match (c.function, k) {
                ("coalesce", 1) => algebra::coalesce(&l),
                ("coalesce", _) => algebra::coalesce_profile(&l, &c.tuple(2)?),
                ("filter_zeros", 1) => algebra::filter_zeros(&l),
                ("filter_zeros", _) => algebra::filter_zeros_profile(&l, &c.tuple(2)?),
                (_, 1) => algebra::filter(&l),
                _ => algebra::filter_profile(&l, &c.tuple(2)?),
            },
        )?
    }))
}

#[inline(never)]
fn case_2(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        // CuTe composes with an integer `n` as with `n:_1`.
        let t = match c.arg(2).value {
            Value::Int(n) => Tiler::Layout(
                DynLayout::new(DynIntTuple::int(n), DynIntTuple::int(DynInt::new_static(1)))
                    .map_err(lay(c))?,
            ),
            _ => tiler(c, 2)?,
        };
        layout(c, algebra::composition_tiler(&c.layout(1)?, &t))?
    }))
}

#[inline(never)]
fn case_3(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some(match c.arity(&[1, 2], "1 or 2")? {
        1 => layout(c, algebra::complement(&c.layout(1)?))?,
        _ => layout(c, algebra::complement_to(&c.layout(1)?, &c.tuple(2)?))?,
    }))
}

#[inline(never)]
fn case_4(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let l = c.layout(1)?;
        layout(
            c,
            match c.function {
                "right_inverse" => algebra::right_inverse(&l),
                "left_inverse" => algebra::left_inverse(&l),
                "nullspace" => algebra::nullspace(&l),
                _ => algebra::make_layout_like(&l),
            },
        )?
    }))
}

#[inline(never)]
fn case_5(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        layout(c, algebra::max_common_layout(&c.layout(1)?, &c.layout(2)?))?
    }))
}

#[inline(never)]
fn case_6(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        Value::Int(algebra::max_common_vector(&c.layout(1)?, &c.layout(2)?).map_err(lay(c))?)
    }))
}

#[inline(never)]
fn case_7(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        let (l, t) = (c.layout(1)?, tiler(c, 2)?);
        layout(
            c,
            match c.function {
                "logical_divide" => algebra::logical_divide(&l, &t),
                "zipped_divide" => algebra::zipped_divide(&l, &t),
                "tiled_divide" => algebra::tiled_divide(&l, &t),
                "flat_divide" => algebra::flat_divide(&l, &t),
                "logical_product" => algebra::logical_product(&l, &t),
                "zipped_product" => algebra::zipped_product(&l, &t),
                "tiled_product" => algebra::tiled_product(&l, &t),
                _ => algebra::flat_product(&l, &t),
            },
        )?
    }))
}

#[inline(never)]
fn case_8(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        let (a, b) = (c.layout(1)?, c.layout(2)?);
        layout(
            c,
            if c.function == "blocked_product" {
                algebra::blocked_product(&a, &b)
            } else {
                algebra::raked_product(&a, &b)
            },
        )?
    }))
}

#[inline(never)]
fn case_9(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        let k = c.arity(&[2, 3], "2 or 3")?;
        let order = if k == 3 { Some(c.tuple(3)?) } else { None };
        layout(c, algebra::tile_to_shape(&c.layout(1)?, &c.tuple(2)?, order.as_ref()))?
    }))
}

#[inline(never)]
fn case_10(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let t = targs(c, 1, super::MAX_TARGS)?;
        let mut idx = [0usize; super::MAX_TARGS];
        for (i, v) in idx.iter_mut().zip(t) {
            *i = index(c, *v)?;
        }
        layout(c, algebra::select(&c.layout(1)?, &idx[..t.len()]))?
    }))
}

#[inline(never)]
fn case_11(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let t = targs(c, 2, 2)?;
        let (b, e) = (index(c, t[0])?, index(c, t[1])?);
        let l = c.layout(1)?;
        layout(c, if c.function == "take" { algebra::take(&l, b, e) } else { algebra::group(&l, b, e) })?
    }))
}

#[inline(never)]
fn case_12(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let t = targs(c, 1, 1)?;
        layout(c, algebra::append_to(&c.layout(1)?, index(c, t[0])?))?
    }))
}

#[inline(never)]
fn case_13(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        let (l, x) = (c.layout(1)?, c.layout(2)?);
        layout(c, if c.function == "append" { algebra::append(&l, &x) } else { algebra::prepend(&l, &x) })?
    }))
}

#[inline(never)]
fn case_14(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        let t = targs(c, 1, 1)?;
        layout(c, algebra::replace(&c.layout(1)?, index(c, t[0])?, &c.layout(2)?))?
    }))
}

#[inline(never)]
fn case_15(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let t = targs(c, 1, 1)?;
        if t[0] <= 0 {
            return Err(c.argument(1, "a positive template argument `<n>`"));
        }
        let l = c.layout(1)?;
        layout(
            c,
            if c.function == "upcast" { algebra::upcast(&l, t[0]) } else { algebra::downcast(&l, t[0]) },
        )?
    }))
}

#[inline(never)]
fn case_16(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[1], "1")?;
        let t = targs(c, 2, 2)?;
        layout(c, algebra::recast_layout(&c.layout(1)?, t[0], t[1]))?
    }))
}

#[inline(never)]
fn case_17(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[3], "3")?;
        let p = algebra::local_tile(&c.layout(1)?, &tiler(c, 2)?, &c.tuple(3)?).map_err(lay(c))?;
        Value::Partition(p)
    }))
}

#[inline(never)]
fn case_18(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[2], "2")?;
        let (t, l) = algebra::make_layout_tv(&c.layout(1)?, &c.layout(2)?).map_err(lay(c))?;
        Value::LayoutTv(t, l)
    }))
}

#[inline(never)]
fn case_19(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    Ok(Some({
        c.arity(&[3], "3")?;
        let p = algebra::local_partition(&c.layout(1)?, &c.layout(2)?, c.int(3)?).map_err(lay(c))?;
        Value::Partition(p)
    }))
}

#[inline(never)]
fn case_20(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    c.arity(&[1], "1")?;
    Ok(Some(layout(c, algebra::make_identity_layout(&c.tuple(1)?))?))
}

/// CuTe's `recast_layout<Old, New>` of a composed layout: `upcast`, `downcast` or both, by the
/// ratio of the element widths.
fn recast_composed(
    k: &ComposedLayout,
    old_bits: isize,
    new_bits: isize,
) -> Result<ComposedLayout, LayoutError> {
    if old_bits <= 0 || new_bits <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value: old_bits.min(new_bits) });
    }
    let (mut a, mut b) = (old_bits, new_bits);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let (num, den) = (new_bits / a, old_bits / a);
    let up = if num == 1 { *k } else { k.upcast(num)? };
    if den == 1 { Ok(up) } else { up.downcast(den) }
}
