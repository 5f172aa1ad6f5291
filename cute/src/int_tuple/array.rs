//! CuTe's `to_array`: the integers of an int tuple as a fixed-size array whose length is a
//! type-level number, so that code indexing it by a wrong count does not compile.

use super::IntTuple;
use crate::arity::for_tuples;
use crate::int::Int;
use core::ops::Add;
use generic_array::{ArrayLength, GenericArray};
use typenum::{Sum, U0, U1};

/// An int tuple's integers as a [`GenericArray`] of `isize`, left to right; its length `Len` is a
/// typenum number, the count of integers.
///
/// ```
/// use const_layout::int_tuple::ToArray;
/// use const_layout::C;
/// let a = (C::<8>, (4usize, C::<2>)).to_array();
/// assert_eq!(a.as_slice(), &[8, 4, 2]);
/// let _: generic_array::GenericArray<isize, typenum::U3> = a;
/// ```
#[diagnostic::on_unimplemented(message = "`{Self}` cannot be flattened into an array")]
pub trait ToArray: IntTuple {
    /// The number of integers, as a type.
    type Len: ArrayLength;
    /// CuTe's `to_array`. Integers outside `isize` wrap (layouts never hold them).
    fn to_array(&self) -> GenericArray<isize, Self::Len> {
        let mut out = GenericArray::<isize, Self::Len>::default();
        let mut k = 0;
        self.for_each_leaf(&mut |l| {
            out[k] = l.value.unwrap_or(isize::MIN);
            k += 1;
        });
        out
    }
}

impl<T: Int> ToArray for T {
    type Len = U1;
}

impl ToArray for () {
    type Len = U0;
}

macro_rules! impl_to_array {
    ([$i0:tt $A0:ident $B0:ident $C0:ident]) => {
        impl<$A0: ToArray> ToArray for ($A0,) {
            type Len = $A0::Len;
        }
    };
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$A0: ToArray, $($A: IntTuple),+> ToArray for ($A0, $($A,)+)
        where
            ($($A,)+): ToArray,
            $A0::Len: Add<<($($A,)+) as ToArray>::Len>,
            Sum<$A0::Len, <($($A,)+) as ToArray>::Len>: ArrayLength,
        {
            type Len = Sum<$A0::Len, <($($A,)+) as ToArray>::Len>;
        }
    };
}
for_tuples!(impl_to_array);
