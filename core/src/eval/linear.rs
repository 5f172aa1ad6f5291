//! The evaluator's linear layouts over F2 ([`crate::f2::linear`]): `linear(..)` makes one, the
//! Triton operations take them, and `composition`, `crd2idx`, `size` and `cosize` read them.
//! A layout or a swizzled layout stands for its linear layout wherever a linear one is wanted.

use super::{Call, EvalError, Op, Value, int_tuple_of};
use crate::dyn_layout::DynInt;
use crate::error::LayoutError;
use crate::f2::linear::{LinearLayout, MAX_BITS};

/// The calls of the table's general operations with a linear argument: `composition(a, b)` of two
/// linear layouts (or one and a layout), `crd2idx(i, l)`, `size(l)` (`2^inputs`) and `cosize(l)`
/// (`2^outputs`). `None` when no argument is linear.
pub(super) fn with_linear(c: &Call<'_>) -> Result<Option<Value>, EvalError> {
    let any = (1..=c.n).any(|i| matches!(c.arg(i).value, Value::Linear(_)));
    if !any {
        return Ok(None);
    }
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok(Some(match c.op {
        Op::Composition => {
            c.arity(&[2], "2")?;
            Value::Linear(linear(c, 1)?.compose(&linear(c, 2)?).map_err(lay)?)
        }
        Op::Crd2idx => {
            c.arity(&[2], "2")?;
            let l = linear(c, 2)?;
            let i = c.int(1)?;
            if i.value < 0 || i.value >= 1isize << l.in_bits() {
                return Err(c.argument(1, "an index below the linear layout's size"));
            }
            let v = l.apply(i.value as u32) as isize;
            // Static in, static out, as a layout's `crd2idx`.
            Value::Int(if i.is_static { DynInt::new_static(v) } else { DynInt::new_runtime(v) })
        }
        Op::Size | Op::Cosize => {
            c.arity(&[1], "1")?;
            let l = linear(c, 1)?;
            let bits = if c.op == Op::Size { l.in_bits() } else { l.out_bits() };
            Value::Int(DynInt::new_static(1isize << bits))
        }
        // The linear layouts' own operations close the table: `dispatch` sends them to `case`.
        op if op as usize >= Op::Linear as usize => return Ok(None),
        _ => return Err(c.argument(1, "not a linear layout: this function takes layouts")),
    }))
}

/// Argument `i` as a linear layout: a linear layout, a layout, or a swizzled layout.
fn linear(c: &Call<'_>, i: usize) -> Result<LinearLayout, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    match c.arg(i).value {
        Value::Linear(l) => Ok(l),
        Value::Layout(l) => LinearLayout::from_layout(&l).map_err(lay),
        Value::Composed(k) => LinearLayout::from_composed(&k).map_err(lay),
        _ => Err(c.argument(i, "a linear layout, a layout or a swizzled layout")),
    }
}

/// The Triton operations and `linear(..)` itself.
pub(super) fn case(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    let two = matches!(c.op, Op::InvertAndCompose | Op::DirectSum | Op::DivideLeft);
    if c.op == Op::Linear {
        return make(c);
    }
    if two {
        c.arity(&[2], "2")?;
    } else {
        c.arity(&[1], "1")?;
    }
    let a = linear(c, 1)?;
    Ok(match c.op {
        Op::Invert => Value::Linear(a.invert().map_err(lay)?),
        Op::PseudoInvert => Value::Linear(a.pseudo_invert()),
        Op::InvertAndCompose => Value::Linear(a.invert_and_compose(&linear(c, 2)?).map_err(lay)?),
        Op::DirectSum => Value::Linear(a.direct_sum(&linear(c, 2)?).map_err(lay)?),
        Op::DivideLeft => Value::Linear(a.divide_left(&linear(c, 2)?).map_err(lay)?),
        Op::FreeMask => Value::Int(DynInt::new_static(a.free_mask() as isize)),
        Op::IsInjective => Value::Bool(a.is_injective()),
        Op::IsSurjective => Value::Bool(a.is_surjective()),
        Op::Contiguous => Value::Int(DynInt::new_static(a.contiguous() as isize)),
        Op::ToLayout => match a.to_layout() {
            Ok(l) => Value::Layout(l),
            Err(_) => Value::Composed(a.to_composed().map_err(lay)?),
        },
        _ => return Err(c.argument(1, "a linear layout")),
    })
}

/// `linear(layout)`, `linear(swizzled layout)`, `linear(bases, output bits)`,
/// `linear(Sw<B,M,S>, bits)`. The bases may come in up to four tuples before the output bits
/// (`linear((b0,..,b7),(b8,..),bits)`), as a linear layout of more than 8 inputs prints: one int
/// tuple holds at most 126 bytes of encoding, short of 32 large bases.
fn make(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    let n = c.arity(&[1, 2, 3, 4, 5], "1 to 5")?;
    if n == 1 {
        return Ok(Value::Linear(linear(c, 1)?));
    }
    let bits = c.int(n)?.value;
    if !(0..=MAX_BITS as isize).contains(&bits) {
        return Err(c.argument(n, "the output bits, 0 to 32"));
    }
    let bits = bits as u32;
    if let Value::Swizzle(sw) = c.arg(1).value {
        if n != 2 {
            return Err(c.argument(1, "the bases, an int tuple (a swizzle takes only the bits)"));
        }
        if sw.bits() + sw.base() + sw.shift().unsigned_abs() > bits {
            return Err(c.argument(2, "bits that hold the swizzle's (B + M + |S| at least)"));
        }
        return Ok(Value::Linear(LinearLayout::from_swizzle(sw, bits)));
    }
    let mut b = [0u32; MAX_BITS];
    let mut count = 0;
    for i in 1..n {
        let bases = int_tuple_of(c.arg(i)).ok_or_else(|| c.argument(i, "the bases, an int tuple"))?;
        // `linear(5, 3)`: one basis; `linear((5,6), 3)`: one a mode.
        let one = [bases];
        let modes: &mut dyn Iterator<Item = crate::dyn_layout::DynIntTuple> =
            if bases.as_int().is_some() { &mut one.into_iter() } else { &mut bases.modes() };
        for m in modes {
            let Some(v) = m.as_int() else {
                return Err(c.argument(i, "a flat tuple of bases"));
            };
            // In i64: on a 32-bit target (wasm32) `u32::MAX as isize` is -1.
            if count == MAX_BITS || !(0..=u32::MAX as i64).contains(&(v.value as i64)) {
                return Err(c.argument(i, "at most 32 bases, each from 0 to 2^32 - 1"));
            }
            b[count] = v.value as u32;
            count += 1;
        }
    }
    Ok(Value::Linear(LinearLayout::new(&b[..count], bits).map_err(lay)?))
}
