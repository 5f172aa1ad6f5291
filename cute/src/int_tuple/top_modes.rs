//! An int tuple's top-level modes as a flat coordinate, one `isize` a mode: how CK Tile's
//! transforms (`const_layout::ck_tile::CuteLayout`) see a CuTe layout, whose top-level modes are
//! their upper dimensions.

use super::IntTuple;
use crate::int::Int;
use generic_array::{ArrayLength, GenericArray};
use typenum::U1;

/// `isize`, once per macro repetition of `$A`.
macro_rules! isize_for {
    ($A:ident) => {
        isize
    };
}

/// A layout's flat coordinate type (one `isize` per top-level mode) and its dimension count.
///
/// ```
/// use const_layout::int_tuple::TopModes;
/// use const_layout::C;
/// let s = (C::<4>, (2usize, C::<3>));
/// assert_eq!(s.mode_sizes().as_slice(), &[4, 6]);
/// let c: (isize, isize) = <(C<4>, (usize, C<3>)) as TopModes>::coord(&[1, 5].into());
/// assert_eq!(c, (1, 5));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no flat coordinate of `isize`s",
    note = "layouts of 1 to 12 top-level modes become transforms"
)]
pub trait TopModes: IntTuple {
    /// The number of top-level modes, as a typenum number.
    type Count: ArrayLength;
    /// The coordinate: an `isize` per top-level mode.
    type Coord: IntTuple;
    /// The coordinate from a multi-index (CK Tile's upper index).
    fn coord(index: &GenericArray<isize, Self::Count>) -> Self::Coord;
    /// The size of each top-level mode.
    fn mode_sizes(&self) -> GenericArray<isize, Self::Count>;
}

impl<T: Int> TopModes for T {
    type Count = U1;
    type Coord = isize;
    #[inline(always)]
    fn coord(index: &GenericArray<isize, U1>) -> isize {
        index[0]
    }
    #[inline(always)]
    fn mode_sizes(&self) -> GenericArray<isize, U1> {
        GenericArray::<isize, U1>::from([self.value()])
    }
}

macro_rules! impl_top_modes {
    ($count:ident; $([$i:tt $A:ident])+) => {
        impl<$($A: IntTuple),+> TopModes for ($($A,)+) {
            type Count = typenum::$count;
            type Coord = ($(isize_for!($A),)+);
            #[inline(always)]
            fn coord(index: &GenericArray<isize, Self::Count>) -> Self::Coord {
                ($(index[$i],)+)
            }
            #[inline(always)]
            fn mode_sizes(&self) -> GenericArray<isize, Self::Count> {
                GenericArray::<isize, Self::Count>::from([$(self.$i.size().value()),+])
            }
        }
    };
}
impl_top_modes!(U1; [0 A0]);
impl_top_modes!(U2; [0 A0] [1 A1]);
impl_top_modes!(U3; [0 A0] [1 A1] [2 A2]);
impl_top_modes!(U4; [0 A0] [1 A1] [2 A2] [3 A3]);
impl_top_modes!(U5; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4]);
impl_top_modes!(U6; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5]);
impl_top_modes!(U7; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6]);
impl_top_modes!(U8; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7]);
impl_top_modes!(U9; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8]);
impl_top_modes!(U10; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9]);
impl_top_modes!(U11; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9] [10 A10]);
impl_top_modes!(U12; [0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9] [10 A10] [11 A11]);
