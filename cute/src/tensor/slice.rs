//! CuTe's slicing with `_` on typed layouts: [`Keep`] keeps a mode, an integer fixes it.

use super::Keep;
use crate::LayoutError;
use crate::int::Int;
use crate::int_tuple::{Concat, IntTuple, Tuple};
use crate::layout::{Crd2Idx, InShape};

/// A slice coordinate `Self` for a layout with shape `S` and stride `D`: CuTe's coordinate with
/// `_` in it, [`Keep`] where a mode is kept and an integer (static or runtime) where it is fixed,
/// in tuples shaped like the layout (`(Keep, j)` is CuTe's `(_, j)`; an integer against a tuple
/// mode is a 1-D index into that mode, as in `crd2idx`).
///
/// The result is CuTe's: the kept modes, in order, as one tuple (kept modes inside a nested
/// tuple are lifted to the top level, so `(_, (_, 1))` on `(4,(2,3))` keeps `(4,2)`), and the
/// offset of the fixed coordinates. A bare [`Keep`] keeps the whole layout as a one-mode tuple.
///
/// ```
/// use const_layout::tensor::{Keep, SliceCoord};
/// use const_layout::C;
/// let (s, d) = ((C::<4>, (C::<2>, 3usize)), (C::<1>, (C::<4>, 8isize)));
/// let (shape, stride, offset) = (Keep, (Keep, 2usize)).slice(&s, &d, &mut 0).unwrap();
/// assert_eq!((shape, stride, offset), ((C::<4>, C::<2>), (C::<1>, C::<4>), 16));
/// assert!((Keep, (Keep, 3usize)).slice(&s, &d, &mut 0).is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a slice coordinate for the shape `{S}`",
    label = "expected `Keep` (CuTe's `_`) and integers, in tuples shaped like the layout",
    note = "write `(Keep, j)` for CuTe's `(_, j)`; a tuple must have one element per mode"
)]
pub trait SliceCoord<S: IntTuple, D: IntTuple>: Copy {
    /// The kept modes' shape, as a tuple.
    type Shape: Tuple;
    /// The kept modes' stride.
    type Stride: Tuple;
    /// The kept modes and the offset of the fixed coordinates, or
    /// [`LayoutError::CoordinateOutOfRange`] for a fixed coordinate outside its mode (`leaf`
    /// counts the positions of the slice coordinate, [`Keep`] included).
    fn slice(
        &self,
        s: &S,
        d: &D,
        leaf: &mut usize,
    ) -> Result<(Self::Shape, Self::Stride, isize), LayoutError>;
}

impl<S: IntTuple, D: IntTuple> SliceCoord<S, D> for Keep {
    type Shape = (S,);
    type Stride = (D,);
    #[inline(always)]
    fn slice(&self, s: &S, d: &D, leaf: &mut usize) -> Result<((S,), (D,), isize), LayoutError> {
        *leaf += 1;
        Ok(((*s,), (*d,), 0))
    }
}

impl<I, S, D> SliceCoord<S, D> for I
where
    I: Int + Crd2Idx<S, D> + InShape<S>,
    S: IntTuple,
    D: IntTuple,
{
    type Shape = ();
    type Stride = ();
    #[inline(always)]
    fn slice(&self, s: &S, d: &D, leaf: &mut usize) -> Result<((), (), isize), LayoutError> {
        self.in_shape(s, leaf)?;
        Ok(((), (), self.offset(s, d)))
    }
}

impl SliceCoord<(), ()> for () {
    type Shape = ();
    type Stride = ();
    #[inline(always)]
    fn slice(&self, _: &(), _: &(), _: &mut usize) -> Result<((), (), isize), LayoutError> {
        Ok(((), (), 0))
    }
}

// A tuple against a tuple of the same rank: the first mode's kept modes, then the rest's
// (head and tail, as `Concat` is built; slicing coordinates have few modes).
macro_rules! impl_slicer {
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])*) => {
        impl<$A0: IntTuple, $B0: IntTuple, $C0: SliceCoord<$A0, $B0>, $($A: IntTuple, $B: IntTuple, $C: Copy,)*>
            SliceCoord<($A0, $($A,)*), ($B0, $($B,)*)> for ($C0, $($C,)*)
        where
            ($($C,)*): SliceCoord<($($A,)*), ($($B,)*)>,
            $C0::Shape: Concat<<($($C,)*) as SliceCoord<($($A,)*), ($($B,)*)>>::Shape>,
            $C0::Stride: Concat<<($($C,)*) as SliceCoord<($($A,)*), ($($B,)*)>>::Stride>,
        {
            type Shape = <$C0::Shape as Concat<<($($C,)*) as SliceCoord<($($A,)*), ($($B,)*)>>::Shape>>::Output;
            type Stride = <$C0::Stride as Concat<<($($C,)*) as SliceCoord<($($A,)*), ($($B,)*)>>::Stride>>::Output;
            #[inline(always)]
            #[allow(non_snake_case, unused_variables)]
            fn slice(
                &self,
                s: &($A0, $($A,)*),
                d: &($B0, $($B,)*),
                leaf: &mut usize,
            ) -> Result<(Self::Shape, Self::Stride, isize), LayoutError> {
                let (s0, d0, o0) = self.$i0.slice(&s.$i0, &d.$i0, leaf)?;
                let (sr, dr, or) = ($(self.$i,)*).slice(&($(s.$i,)*), &($(d.$i,)*), leaf)?;
                Ok((s0.concat(sr), d0.concat(dr), o0.wrapping_add(or)))
            }
        }
    };
}
crate::arity::for_tuples!(impl_slicer);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::C;

    #[test]
    fn lifts_nested_kept_modes_and_sums_offsets() {
        let s = (4usize, (2usize, 3usize), C::<5>);
        let d = (1isize, (4isize, 8isize), C::<24>);
        let (shape, stride, off) = (Keep, (Keep, 1usize), 2usize).slice(&s, &d, &mut 0).unwrap();
        assert_eq!((shape, stride, off), ((4usize, 2usize), (1isize, 4isize), 8 + 48));
        let (shape, stride, off) = (1usize, Keep, Keep).slice(&s, &d, &mut 0).unwrap();
        assert_eq!((shape, stride, off), (((2usize, 3usize), C::<5>), ((4isize, 8isize), C::<24>), 1));
        let (shape, _, off) = (3usize, 5usize, 4usize).slice(&s, &d, &mut 0).unwrap();
        assert_eq!((shape, off), ((), 3 + 4 + 8 * 2 + 96));
        let err = (Keep, (Keep, 3usize), 0usize).slice(&s, &d, &mut 0).unwrap_err();
        assert_eq!(err, LayoutError::CoordinateOutOfRange { leaf: 2, value: 3, extent: 3 });
    }
}
