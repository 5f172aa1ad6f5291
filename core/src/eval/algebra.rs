//! The layout-algebra functions of the evaluator (see [`crate::algebra`]).

use super::{Arg, Call, EvalError, Op, Value, apply_layout_op, int_tuple_of};
use crate::algebra::{self, Tiler};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::f2::linear::LinearLayout;
use crate::swizzle::{ComposedLayout, Sliced};

/// Functions that CuTe applies to a composed layout's inner layout, keeping the outer function
/// and the offset.
const ON_INNER: &[Op] = &[
    Op::Composition,
    Op::LogicalDivide,
    Op::ZippedDivide,
    Op::TiledDivide,
    Op::FlatDivide,
    Op::LogicalProduct,
    Op::ZippedProduct,
    Op::TiledProduct,
    Op::FlatProduct,
    Op::BlockedProduct,
    Op::RakedProduct,
    Op::TileToShape,
    Op::Coalesce,
    Op::Filter,
    Op::Take,
    Op::Group,
    Op::Append,
    Op::Flatten,
    Op::Get,
];

/// Swizzles and composed layouts: `composition(Sw<..>, L)` builds one; the functions in
/// [`ON_INNER`] map the inner layout; `crd2idx`, `size`, `rank`, `complement` read through.
pub(super) fn composed(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    match (c.op, c.args[0].as_ref().map(|a| &a.value)) {
        (Op::Composition, Some(Value::Swizzle(s))) => {
            // CuTe's `composition(Sw, L)` or `composition(Sw, offset, L)`.
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
            Ok(Some(Value::Composed(ComposedLayout::with_offset(
                crate::swizzle::Outer::Swizzle(*s),
                offset,
                inner,
            ))))
        }
        (Op::Upcast | Op::Downcast, Some(Value::Composed(k))) => {
            c.arity(&[1], "1")?;
            let n = targs(c, 1, 1)?[0];
            let r = if c.op == Op::Upcast { k.upcast(n) } else { k.downcast(n) };
            Ok(Some(Value::Composed(r.map_err(lay(c))?)))
        }
        (Op::Upcast | Op::Downcast, Some(Value::Swizzle(s))) => {
            c.arity(&[1], "1")?;
            let n = targs(c, 1, 1)?[0];
            let r = if c.op == Op::Upcast { s.upcast(n) } else { s.downcast(n) };
            Ok(Some(Value::Swizzle(r.map_err(lay(c))?)))
        }
        (Op::Composition, Some(Value::Layout(a)))
            if c.n == 2 && matches!(c.arg(2).value, Value::Composed(_)) =>
        {
            let Value::Composed(k) = c.arg(2).value else { return Ok(None) };
            let r = k.composed_after(a).map_err(lay(c))?;
            Ok(Some(match r.outer() {
                crate::swizzle::Outer::Swizzle(s) if s.bits() == 0 => Value::Layout(*r.inner()),
                _ => Value::Composed(r),
            }))
        }
        (Op::Composition, Some(Value::Composed(a)))
            if c.n == 2 && matches!(c.arg(2).value, Value::Composed(_)) =>
        {
            let Value::Composed(b) = c.arg(2).value else { return Ok(None) };
            Ok(Some(composed_pair(a, &b).map_err(lay(c))?))
        }
        (Op::RightInverse | Op::LeftInverse, Some(Value::Composed(k))) => {
            c.arity(&[1], "1")?;
            let r = if c.op == Op::RightInverse { k.right_inverse() } else { k.left_inverse() };
            let r = r.map_err(lay(c))?;
            Ok(Some(match r.outer() {
                // CuTe's `composition(Swizzle<0,..>, L)` is `L`.
                crate::swizzle::Outer::Swizzle(s) if s.bits() == 0 => Value::Layout(*r.inner()),
                _ => Value::Composed(r),
            }))
        }
        (Op::RecastLayout, Some(Value::Composed(k))) => {
            c.arity(&[1], "1")?;
            let t = targs(c, 2, 2)?;
            Ok(Some(Value::Composed(recast_composed(k, t[0], t[1]).map_err(lay(c))?)))
        }
        (Op::Crd2idx, _) if c.n == 2 => match c.arg(2).value {
            Value::Composed(k) => {
                let i = k.inner().crd2idx(&c.tuple(1)?).map_err(lay(c))?;
                Ok(Some(Value::Int(DynInt::new_runtime(k.apply(i.value)))))
            }
            Value::Swizzle(s) => Ok(Some(Value::Int(DynInt::new_runtime(s.apply(c.int(1)?.value))))),
            _ => Ok(None),
        },
        (Op::Slice | Op::SliceAndOffset, _) if c.n == 2 => {
            let s = slicer(c, 1)?;
            match c.arg(2).value {
                Value::Composed(k) => {
                    // CuTe's: the swizzle decays to a plain layout where it is linear on the
                    // slice, and the offset comes out.
                    let (part, offset) = k.slice_and_offset(&s).map_err(lay(c))?;
                    let slice = c.op == Op::Slice;
                    Ok(Some(match part {
                        Sliced::Layout(l) if slice => Value::Layout(l),
                        Sliced::Composed(k) if slice => Value::Composed(k),
                        Sliced::Layout(l) => {
                            Value::Partition(algebra::LayoutPartition::new(l, DynIntTuple::int(offset)))
                        }
                        Sliced::Composed(k) => Value::ComposedPartition(k, offset),
                    }))
                }
                Value::Layout(l) if c.op == Op::Slice => {
                    let sliced =
                        apply_layout_op(Op::Slice, &[Arg::Slicer(&s), Arg::Layout(&l)]).map_err(lay(c))?;
                    // `slice` refuses what `slice_and_offset` refuses: a coordinate whose offset
                    // the layout cannot compute.
                    l.apply(&s.parts().0).map_err(lay(c))?;
                    Ok(Some(Value::Layout(sliced)))
                }
                Value::Layout(l) => {
                    Ok(Some(Value::Partition(algebra::slice_and_offset(&s, &l).map_err(lay(c))?)))
                }
                _ => Err(c.argument(2, "a layout or a composed layout")),
            }
        }
        (Op::MaxCommonLayout, _) if c.n == 2 => match (c.arg(1).value, c.arg(2).value) {
            (Value::Composed(k), _) | (_, Value::Composed(k))
                if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) =>
            {
                let i = if matches!(c.arg(1).value, Value::Composed(_)) { 1 } else { 2 };
                Err(c.argument(i, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
            }
            (Value::Composed(a), Value::Layout(b)) | (Value::Layout(b), Value::Composed(a)) => {
                Ok(Some(Value::Layout(a.max_common_layout(&b).map_err(lay(c))?)))
            }
            (Value::Composed(_), Value::Composed(_)) => {
                Err(c.argument(2, "a layout (CuTe's max_common_layout takes one swizzled layout)"))
            }
            _ => Ok(None),
        },
        (Op::MaxCommonVector, _) if c.n == 2 => match (c.arg(1).value, c.arg(2).value) {
            // CuTe's overloads take swizzled layouts only.
            (Value::Composed(k), _) if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) => {
                Err(c.argument(1, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
            }
            (_, Value::Composed(k)) if !matches!(k.outer(), crate::swizzle::Outer::Swizzle(_)) => {
                Err(c.argument(2, "a layout or a swizzled layout `Sw<B,M,S> o offset o layout`"))
            }
            (Value::Composed(a), Value::Layout(b)) | (Value::Layout(b), Value::Composed(a)) => {
                Ok(Some(Value::Int(a.max_common_vector(&b, None).map_err(lay(c))?)))
            }
            (Value::Composed(a), Value::Composed(b)) => {
                Ok(Some(Value::Int(a.max_common_vector(b.inner(), Some(&b)).map_err(lay(c))?)))
            }
            _ => Ok(None),
        },
        (Op::Size | Op::Rank, Some(Value::Composed(k))) => {
            c.arity(&[1], "1")?;
            let v = if c.op == Op::Size { k.size() } else { DynInt::new_static(k.rank() as isize) };
            Ok(Some(Value::Int(v)))
        }
        (Op::Complement, Some(Value::Composed(k))) => {
            c.arity(&[2], "2")?;
            Ok(Some(apply(c, &[Arg::Layout(k.inner()), Arg::Tuple(&c.tuple(2)?)])?))
        }
        (f, Some(Value::Composed(k))) if ON_INNER.contains(&f) => {
            let mut args = *c.args;
            if let Some(a) = args[0].as_mut() {
                a.value = Value::Layout(*k.inner());
            }
            let inner = Call { args: &args, ..*c };
            match super::dispatch(&inner)? {
                Value::Layout(l) => Ok(Some(Value::Composed(k.with_inner(l)))),
                _ => Err(c.argument(1, "a layout (this function is not defined for composed layouts)")),
            }
        }
        _ => Ok(None),
    }
}

/// A composed layout as a value: a plain layout where its outer function is a swizzle with no
/// bits at offset 0 (CuTe's `composition(Swizzle<0,..>, L)` is `L`).
fn plain_or_composed(r: ComposedLayout) -> Value {
    match r.outer() {
        crate::swizzle::Outer::Swizzle(s) if s.bits() == 0 && r.offset_value().value == 0 => {
            Value::Layout(*r.inner())
        }
        _ => Value::Composed(r),
    }
}

/// `composition(a, b)` of two composed layouts: CuTe's rewrite where one composed layout holds
/// it ([`ComposedLayout::composed_with`]); else, where both are linear over F2, the linear map
/// ([`LinearLayout::from_composition`]), written as a swizzle after a layout with `b`'s shape
/// where one is that map (checked at every index, up to 2^14), else as a linear layout (its
/// input bits `b`'s index); else the rewrite's error, which names why.
fn composed_pair(a: &ComposedLayout, b: &ComposedLayout) -> Result<Value, LayoutError> {
    let e = match a.composed_with(b) {
        Ok(r) => return Ok(plain_or_composed(r)),
        Err(e) => e,
    };
    let Ok(l) = LinearLayout::from_composition(a, b) else { return Err(e) };
    let n = b.size().value;
    if n <= 1 << 14
        && let Ok(k) = l.to_composed()
        && let Ok(shape) = DynLayout::compact(*b.inner().shape(), true)
        && let Ok(inner) = algebra::composition(k.inner(), &shape)
    {
        let r = k.with_inner(inner);
        if (0..n).all(|i| r.offset(i) == a.offset(b.offset(i))) {
            return Ok(plain_or_composed(r));
        }
    }
    Ok(Value::Linear(l))
}

/// The error of an operation in call `c`, placed at the call.
fn lay(c: &Call<'_>) -> impl Fn(LayoutError) -> EvalError {
    let column = c.column;
    move |error| EvalError::Layout { column, error }
}

/// Call `c`'s operation on `operands` through the table's dispatcher, as a value.
fn apply(c: &Call<'_>, operands: &[Arg<'_>]) -> Result<Value, EvalError> {
    layout(c, apply_layout_op(c.op, operands))
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
// Each layout-valued case goes through the table's dispatcher, the one place an operation
// meets `algebra::*`; the cases check and convert the arguments (in the order that decides
// which error a bad call reports).

/// `make_layout(layout, layout, ...)`.
#[inline(never)]
pub(super) fn make_layout_of(c: &Call<'_>) -> Result<Value, EvalError> {
    let mut parts = [DynLayout::default(); super::MAX_ARGS];
    let n = c.n.min(super::MAX_ARGS);
    for (i, part) in parts.iter_mut().enumerate().take(n) {
        *part = c.layout(i + 1)?;
    }
    apply(c, &[Arg::Layouts(&parts[..n])])
}

/// `coalesce`, `filter_zeros`, `filter`: of a layout, with a profile, or (`coalesce`) of a shape.
#[inline(never)]
pub(super) fn coalesce_or_filter(c: &Call<'_>) -> Result<Value, EvalError> {
    let k = c.arity(&[1, 2], "1 or 2")?;
    if c.op == Op::Coalesce && k == 1 && !matches!(c.arg(1).value, Value::Layout(_)) {
        return Ok(tuple_value(algebra::coalesce_shape(&c.tuple(1)?).map_err(lay(c))?));
    }
    let l = c.layout(1)?;
    if k == 1 {
        return apply(c, &[Arg::Layout(&l)]);
    }
    // The profile forms are not `const fn`s in the algebra, so the static path's dispatcher
    // cannot hold them.
    let p = c.tuple(2)?;
    layout(
        c,
        match c.op {
            Op::Coalesce => algebra::coalesce_profile(&l, &p),
            Op::FilterZeros => algebra::filter_zeros_profile(&l, &p),
            _ => algebra::filter_profile(&l, &p),
        },
    )
}

#[inline(never)]
pub(super) fn composition(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    // CuTe composes with an integer `n` as with `n:_1`.
    let t = match c.arg(2).value {
        Value::Int(n) => Tiler::Layout(
            DynLayout::new(DynIntTuple::int(n), DynIntTuple::int(DynInt::new_static(1))).map_err(lay(c))?,
        ),
        _ => tiler(c, 2)?,
    };
    apply(c, &[Arg::Layout(&c.layout(1)?), Arg::Tiler(&t)])
}

#[inline(never)]
pub(super) fn complement(c: &Call<'_>) -> Result<Value, EvalError> {
    match c.arity(&[1, 2], "1 or 2")? {
        1 => apply(c, &[Arg::Layout(&c.layout(1)?)]),
        _ => apply(c, &[Arg::Layout(&c.layout(1)?), Arg::Tuple(&c.tuple(2)?)]),
    }
}

/// The functions of one layout: `right_inverse`, `left_inverse`, `nullspace`,
/// `make_layout_like`.
#[inline(never)]
pub(super) fn of_layout(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    apply(c, &[Arg::Layout(&c.layout(1)?)])
}

/// The functions of two layouts: `max_common_layout`, `blocked_product`, `raked_product`,
/// `append`, `prepend`.
#[inline(never)]
pub(super) fn of_two_layouts(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    let (a, b) = (c.layout(1)?, c.layout(2)?);
    apply(c, &[Arg::Layout(&a), Arg::Layout(&b)])
}

#[inline(never)]
pub(super) fn max_common_vector(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    Ok(Value::Int(algebra::max_common_vector(&c.layout(1)?, &c.layout(2)?).map_err(lay(c))?))
}

/// The divides and the products by a tiler.
#[inline(never)]
pub(super) fn by_tiler(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    let (l, t) = (c.layout(1)?, tiler(c, 2)?);
    apply(c, &[Arg::Layout(&l), Arg::Tiler(&t)])
}

#[inline(never)]
pub(super) fn tile_to_shape(c: &Call<'_>) -> Result<Value, EvalError> {
    let k = c.arity(&[2, 3], "2 or 3")?;
    let order = if k == 3 { Some(c.tuple(3)?) } else { None };
    let (l, s) = (c.layout(1)?, c.tuple(2)?);
    match &order {
        Some(o) => apply(c, &[Arg::Layout(&l), Arg::Tuple(&s), Arg::Tuple(o)]),
        None => apply(c, &[Arg::Layout(&l), Arg::Tuple(&s)]),
    }
}

#[inline(never)]
pub(super) fn select(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    let t = targs(c, 1, super::MAX_TARGS)?;
    let mut idx = [0usize; super::MAX_TARGS];
    for (i, v) in idx.iter_mut().zip(t) {
        *i = index(c, *v)?;
    }
    let l = c.layout(1)?;
    let mut operands = [Arg::Index(0); super::MAX_TARGS + 1];
    operands[0] = Arg::Layout(&l);
    for (o, i) in operands[1..].iter_mut().zip(&idx[..t.len()]) {
        *o = Arg::Index(*i);
    }
    apply(c, &operands[..=t.len()])
}

/// `take<B, E>`, `group<B, E>`.
#[inline(never)]
pub(super) fn mode_range(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    let t = targs(c, 2, 2)?;
    let (b, e) = (index(c, t[0])?, index(c, t[1])?);
    apply(c, &[Arg::Layout(&c.layout(1)?), Arg::Index(b), Arg::Index(e)])
}

/// `append<n>(layout)`.
#[inline(never)]
pub(super) fn append_to(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    let t = targs(c, 1, 1)?;
    let l = c.layout(1)?;
    apply(c, &[Arg::Layout(&l), Arg::Index(index(c, t[0])?)])
}

#[inline(never)]
pub(super) fn replace(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    let t = targs(c, 1, 1)?;
    let l = c.layout(1)?;
    let i = index(c, t[0])?;
    apply(c, &[Arg::Layout(&l), Arg::Index(i), Arg::Layout(&c.layout(2)?)])
}

/// `upcast<n>`, `downcast<n>`.
#[inline(never)]
pub(super) fn cast(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    let t = targs(c, 1, 1)?;
    if t[0] <= 0 {
        return Err(c.argument(1, "a positive template argument `<n>`"));
    }
    apply(c, &[Arg::Layout(&c.layout(1)?), Arg::Int(t[0])])
}

#[inline(never)]
pub(super) fn recast_layout(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    let t = targs(c, 2, 2)?;
    apply(c, &[Arg::Layout(&c.layout(1)?), Arg::Int(t[0]), Arg::Int(t[1])])
}

#[inline(never)]
pub(super) fn local_tile(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[3], "3")?;
    let p = algebra::local_tile(&c.layout(1)?, &tiler(c, 2)?, &c.tuple(3)?).map_err(lay(c))?;
    Ok(Value::Partition(p))
}

#[inline(never)]
pub(super) fn make_layout_tv(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[2], "2")?;
    let (t, l) = algebra::make_layout_tv(&c.layout(1)?, &c.layout(2)?).map_err(lay(c))?;
    Ok(Value::LayoutTv(t, l))
}

#[inline(never)]
pub(super) fn local_partition(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[3], "3")?;
    let p = algebra::local_partition(&c.layout(1)?, &c.layout(2)?, c.int(3)?).map_err(lay(c))?;
    Ok(Value::Partition(p))
}

#[inline(never)]
pub(super) fn make_identity_layout(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[1], "1")?;
    apply(c, &[Arg::Tuple(&c.tuple(1)?)])
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
