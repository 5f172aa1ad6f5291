//! Hidden-dimension ids in the types: CK's compile-time `sequence<...>`s.
//!
//! A stage names the hidden dimensions its transform reads and writes by *types*: a
//! [`sequence!`](crate::sequence) written by the user (`sequence![0, 2]`, a tuple of [`Id`]s), or
//! a sequence a builder derived from others ([`Mapped`], [`Range`]). Each type carries its ids as
//! an associated constant ([`Sequence::IDS`]), computed by `const fn` where a builder relabels
//! (stable Rust cannot compute a const generic from another, so the ids live in constants, not in
//! const parameters). After inlining every gather and
//! scatter of a hidden index reads and writes constant positions, so the hidden index of a
//! coordinate lives in registers.
//!
//! CK's wiring checks (`is_valid_sequence_map`: the lower sequences of a stage list are a
//! permutation of the old top dimensions, the upper sequences of the new ones) are trait bounds
//! on the user's sequences ([`WiredOnto`]): a sequence's ids as a bit mask (a typenum number,
//! `sum(2^id)`), which with `n` ids is `2^n - 1` exactly when the ids are `0..n` each once. A
//! miswired stage list is a compile error that says so.

use super::adaptor::Stage;
use super::{Stages, Transform};
use core::marker::PhantomData;
use core::ops::{Add, Shl, Sub};
use generic_array::{ArrayLength, GenericArray};
use typenum::{B1, Eq, IsEqual, Shleft, Sum, U, U0, U1, Unsigned};

/// The most ids a sequence, or a stage list's concatenated sequences, holds; also the bound on
/// hidden ids.
pub const MAX_IDS: usize = 64;

/// A list of ids in a constant: a fixed array and a length (`const fn` cannot build arrays of a
/// generic length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdList {
    len: usize,
    ids: [usize; MAX_IDS],
}

impl IdList {
    /// No ids.
    pub const EMPTY: IdList = IdList { len: 0, ids: [0; MAX_IDS] };

    /// The ids of a slice (at most [`MAX_IDS`]; a longer one is a compile-time error where it
    /// is built in a constant).
    pub const fn from_slice(ids: &[usize]) -> IdList {
        assert!(ids.len() <= MAX_IDS, "more than 64 hidden ids in one list");
        let mut out = IdList::EMPTY;
        while out.len < ids.len() {
            out.ids[out.len] = ids[out.len];
            out.len += 1;
        }
        out
    }

    /// `0, 1, ..., n - 1`.
    pub const fn range(n: usize) -> IdList {
        assert!(n <= MAX_IDS, "more than 64 hidden ids in one list");
        let mut out = IdList::EMPTY;
        while out.len < n {
            out.ids[out.len] = out.len;
            out.len += 1;
        }
        out
    }

    /// The number of ids.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Id `k` (`k` below [`Self::len`]).
    #[inline(always)]
    pub const fn get(&self, k: usize) -> usize {
        self.ids[k]
    }

    /// The ids.
    pub const fn as_slice(&self) -> &[usize] {
        self.ids.split_at(self.len).0
    }

    /// `self` then `other`.
    pub const fn concat(self, other: IdList) -> IdList {
        assert!(self.len + other.len <= MAX_IDS, "more than 64 hidden ids in one list");
        let mut out = self;
        let mut k = 0;
        while k < other.len {
            out.ids[out.len] = other.ids[k];
            out.len += 1;
            k += 1;
        }
        out
    }

    /// The position of `id`, if present.
    pub const fn position(&self, id: usize) -> Option<usize> {
        let mut k = 0;
        while k < self.len {
            if self.ids[k] == id {
                return Some(k);
            }
            k += 1;
        }
        None
    }

    /// The largest id plus one (0 if empty).
    pub const fn bound(&self) -> usize {
        let (mut k, mut b) = (0, 0);
        while k < self.len {
            if self.ids[k] + 1 > b {
                b = self.ids[k] + 1;
            }
            k += 1;
        }
        b
    }

    /// Each id `i` replaced by `table[i]` (ids past the table kept).
    pub const fn mapped(self, table: &IdList) -> IdList {
        let mut out = self;
        let mut k = 0;
        while k < out.len {
            if out.ids[k] < table.len {
                out.ids[k] = table.ids[out.ids[k]];
            }
            k += 1;
        }
        out
    }

    /// The ids as an array of the sequence's length.
    #[inline(always)]
    pub fn to_array<N: ArrayLength>(&self) -> GenericArray<usize, N> {
        let mut out = GenericArray::<usize, N>::default();
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.ids[k];
        }
        out
    }
}

/// A sequence of hidden-dimension ids as a type (CK's `sequence<...>`): its length as a typenum
/// number and its ids as a constant.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::Sequence;
/// fn ids<S: Sequence>(_: S) -> &'static [usize] {
///     const { &S::IDS }.as_slice()
/// }
/// assert_eq!(ids(sequence![3, 0, 2]), &[3, 0, 2]);
/// assert_eq!(ids(sequence![]), &[] as &[usize]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a sequence of hidden-dimension ids",
    note = "write the ids with `sequence![..]` (`sequence![0, 2]`, `sequence![]`)"
)]
pub trait Sequence: Copy + Default + 'static {
    /// The number of ids.
    type Len: ArrayLength;
    /// The ids.
    const IDS: IdList;
}

/// One id of a user's sequence (`sequence![0, 2]` is `(Id<0>, Id<2>)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Id<const I: usize>;

/// CK's `sequence<...>`: a sequence of hidden-dimension ids (or of positions, for the builders),
/// as a value of a type that carries them.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::Id;
/// let s: (Id<0>, Id<2>) = sequence![0, 2];
/// let e: () = sequence![];
/// # let _ = (s, e);
/// ```
#[macro_export]
macro_rules! sequence {
    () => { () };
    ($($i:literal),+ $(,)?) => { ($($crate::Id::<$i>,)+) };
}

impl Sequence for () {
    type Len = U0;
    const IDS: IdList = IdList::EMPTY;
}

macro_rules! one {
    ($i:tt) => {
        1
    };
}

macro_rules! impl_sequence {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$(const $A: usize),+> Sequence for ($(Id<$A>,)+) {
            type Len = U<{ 0 $(+ one!($i))+ }>;
            const IDS: IdList = IdList::from_slice(&[$($A),+]);
        }
    };
}
const_layout_cute::__for_tuples!(impl_sequence);

/// The ids `0..N`.
pub struct Range<N>(PhantomData<N>);

/// `Clone`, `Copy`, `Default` and `Debug` for zero-sized marker types, whatever their parameters.
macro_rules! marker {
    ($name:ident<$($p:ident),+>) => {
        impl<$($p),+> Clone for $name<$($p),+> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),+> Copy for $name<$($p),+> {}
        impl<$($p),+> Default for $name<$($p),+> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
        impl<$($p),+> core::fmt::Debug for $name<$($p),+> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}
marker!(Range<N>);
marker!(Mapped<S, M>);
marker!(ShiftBy<N>);
marker!(TopOf<Top>);
marker!(Fresh<N, H>);
marker!(ChainIds<S1, B1, T0, H0>);

impl<N: ArrayLength> Sequence for Range<N> {
    type Len = N;
    const IDS: IdList = IdList::range(N::USIZE);
}

/// A renumbering of hidden ids, as a table from old id to new id (the builders' relabelings).
#[doc(hidden)]
pub trait IdMap: 'static {
    /// `TABLE.get(i)` is the new id of `i`.
    const TABLE: IdList;
}

/// The sequence `S` renumbered by `M`.
pub struct Mapped<S, M>(PhantomData<(S, M)>);

impl<S: Sequence, M: IdMap> Sequence for Mapped<S, M> {
    type Len = S::Len;
    const IDS: IdList = S::IDS.mapped(&M::TABLE);
}

/// Every id kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct Same;

impl IdMap for Same {
    const TABLE: IdList = IdList::range(MAX_IDS);
}

/// Every id moved up by `N` (`make_single_stage_tensor_adaptor`'s new top ids).
pub struct ShiftBy<N>(PhantomData<N>);

impl<N: Unsigned + 'static> IdMap for ShiftBy<N> {
    const TABLE: IdList = {
        let mut t = IdList::range(MAX_IDS);
        let mut k = 0;
        while k < MAX_IDS {
            t.ids[k] += N::USIZE;
            k += 1;
        }
        t
    };
}

/// Position `k` among an adaptor's top dimensions to its hidden id (`transform_tensor_adaptor`'s
/// lower ids).
pub struct TopOf<Top>(PhantomData<Top>);

impl<Top: Sequence> IdMap for TopOf<Top> {
    const TABLE: IdList = Top::IDS;
}

/// New top position `p` to its fresh hidden id: `H + j` for the `j`-th upper entry of the new
/// stages `N` in transform order (`transform_tensor_adaptor`, CK's allocation order).
pub struct Fresh<N, H>(PhantomData<(N, H)>);

impl<N: Stages + 'static, H: Unsigned + 'static> IdMap for Fresh<N, H> {
    const TABLE: IdList = {
        let uppers = N::UPPERS;
        let mut t = IdList::range(uppers.len);
        let mut j = 0;
        while j < uppers.len {
            if uppers.ids[j] < t.len {
                t.ids[uppers.ids[j]] = H::USIZE + j;
            }
            j += 1;
        }
        t
    };
}

/// `chain_tensor_adaptors`' renumbering of the upper adaptor `a1` (stages `S1`, bottom ids `B1`)
/// onto `a0` (top ids `T0`, `H0` hidden dimensions): `a1`'s bottom ids become `a0`'s top ids
/// position by position, its other ids move up past `a0`'s by CK's shift,
/// `max_id(a0) + 1 - min_non_bottom_id(a1)`.
pub struct ChainIds<S1, B1, T0, H0>(PhantomData<(S1, B1, T0, H0)>);

impl<S1: Stages + 'static, B1: Sequence, T0: Sequence, H0: Unsigned + 'static> IdMap
    for ChainIds<S1, B1, T0, H0>
{
    const TABLE: IdList = {
        let all = S1::LOWERS.concat(S1::UPPERS);
        let bottom = B1::IDS;
        let mut min = usize::MAX;
        let mut k = 0;
        while k < all.len {
            if bottom.position(all.ids[k]).is_none() && all.ids[k] < min {
                min = all.ids[k];
            }
            k += 1;
        }
        let mut t = IdList::range(MAX_IDS);
        let mut id = 0;
        while id < MAX_IDS {
            t.ids[id] = match bottom.position(id) {
                Some(k) => T0::IDS.ids[k],
                None if id >= min => id - min + H0::USIZE,
                None => id,
            };
            id += 1;
        }
        t
    };
}

/// The bit of one position (`2^p`), for the wiring checks.
#[doc(hidden)]
pub trait PositionBit {
    /// `2^p` as a typenum number.
    type Bit: Unsigned;
}

macro_rules! position_bits {
    ($($p:literal $u:ident),+) => {
        $(impl PositionBit for Id<$p> {
            type Bit = Shleft<U1, typenum::$u>;
        })+
    };
}
position_bits!(
    0 U0, 1 U1, 2 U2, 3 U3, 4 U4, 5 U5, 6 U6, 7 U7, 8 U8, 9 U9, 10 U10, 11 U11, 12 U12, 13 U13, 14 U14, 15 U15,
    16 U16, 17 U17, 18 U18, 19 U19, 20 U20, 21 U21, 22 U22, 23 U23, 24 U24, 25 U25, 26 U26, 27 U27, 28 U28,
    29 U29, 30 U30, 31 U31, 32 U32, 33 U33, 34 U34, 35 U35, 36 U36, 37 U37, 38 U38, 39 U39, 40 U40, 41 U41,
    42 U42, 43 U43, 44 U44, 45 U45, 46 U46, 47 U47, 48 U48, 49 U49, 50 U50, 51 U51, 52 U52, 53 U53, 54 U54,
    55 U55, 56 U56, 57 U57, 58 U58, 59 U59, 60 U60, 61 U61, 62 U62, 63 U63
);

/// A user's sequence of positions with its bit mask, `sum(2^p)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a sequence of positions written with `sequence![..]`",
    note = "the builders take stages whose sequences are positions written by hand, such as `sequence![0, 2]`"
)]
pub trait Positions: Sequence {
    /// `sum(2^p)` over the positions, a typenum number.
    type Mask: Unsigned;
}

impl Positions for () {
    type Mask = U0;
}

macro_rules! impl_positions {
    ([$i0:tt $A0:ident $B0:ident $C0:ident]) => {
        impl<const $A0: usize> Positions for (Id<$A0>,)
        where
            Id<$A0>: PositionBit,
        {
            type Mask = <Id<$A0> as PositionBit>::Bit;
        }
    };
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<const $A0: usize, $(const $A: usize),+> Positions for (Id<$A0>, $(Id<$A>,)+)
        where
            Id<$A0>: PositionBit,
            ($(Id<$A>,)+): Positions,
            <Id<$A0> as PositionBit>::Bit: Add<<($(Id<$A>,)+) as Positions>::Mask>,
            Sum<<Id<$A0> as PositionBit>::Bit, <($(Id<$A>,)+) as Positions>::Mask>: Unsigned,
        {
            type Mask = Sum<<Id<$A0> as PositionBit>::Bit, <($(Id<$A>,)+) as Positions>::Mask>;
        }
    };
}
const_layout_cute::__for_tuples!(impl_positions);

/// A stage list written with positions (the argument of the builders): the masks and counts of
/// its lower and upper sequences together.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a stage list whose sequences are written with `sequence![..]`",
    note = "give the builders a `Stage` or a tuple of `Stage`s, each `Stage::new(transform, sequence![..], sequence![..])`"
)]
pub trait PositionStages: Stages {
    /// The number of lower dimensions of all the transforms.
    type LowCount: Unsigned;
    /// The lower positions' mask.
    type LowMask: Unsigned;
    /// The upper positions' mask.
    type UpMask: Unsigned;
}

impl<T: Transform, Lo: Positions<Len = T::Low>, Up: Positions<Len = T::Up>> PositionStages
    for Stage<T, Lo, Up>
{
    type LowCount = T::Low;
    type LowMask = Lo::Mask;
    type UpMask = Up::Mask;
}

macro_rules! impl_position_stages {
    ([$i0:tt $A0:ident $B0:ident $C0:ident]) => {
        impl<$A0: PositionStages> PositionStages for ($A0,)
        where
            ($A0,): Stages,
        {
            type LowCount = $A0::LowCount;
            type LowMask = $A0::LowMask;
            type UpMask = $A0::UpMask;
        }
    };
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$A0: PositionStages, $($A: PositionStages),+> PositionStages for ($A0, $($A,)+)
        where
            ($A0, $($A,)+): Stages,
            ($($A,)+): PositionStages,
            $A0::LowCount: Add<<($($A,)+) as PositionStages>::LowCount>,
            $A0::LowMask: Add<<($($A,)+) as PositionStages>::LowMask>,
            $A0::UpMask: Add<<($($A,)+) as PositionStages>::UpMask>,
            Sum<$A0::LowCount, <($($A,)+) as PositionStages>::LowCount>: Unsigned,
            Sum<$A0::LowMask, <($($A,)+) as PositionStages>::LowMask>: Unsigned,
            Sum<$A0::UpMask, <($($A,)+) as PositionStages>::UpMask>: Unsigned,
        {
            type LowCount = Sum<$A0::LowCount, <($($A,)+) as PositionStages>::LowCount>;
            type LowMask = Sum<$A0::LowMask, <($($A,)+) as PositionStages>::LowMask>;
            type UpMask = Sum<$A0::UpMask, <($($A,)+) as PositionStages>::UpMask>;
        }
    };
}
const_layout_cute::__for_tuples!(impl_position_stages);

/// The outcome of a wiring check, as two typenum bits (mask right, count right).
pub struct Verdict<Mask, Count>(PhantomData<(Mask, Count)>);

/// `2^n - 1`: the mask of the positions `0..n`.
pub type MaskBelow<N> = <Shleft<U1, N> as Sub<B1>>::Output;

/// Implemented only for a correct wiring; its message is the compile error of a miswired stage
/// list.
#[diagnostic::on_unimplemented(
    message = "the stages' lower sequences do not list every old top dimension exactly once",
    label = "miswired stages",
    note = "CK's rule (`is_valid_sequence_map`): together, the lower sequences of the new stages are a permutation of 0..n, n the number of the old adaptor's top dimensions (its bottom dimensions for `make_single_stage_tensor_adaptor`); `insert` and `replicate` read none"
)]
pub trait EachOldTopDimensionOnce {}
impl EachOldTopDimensionOnce for Verdict<B1, B1> {}

/// Implemented only for a correct wiring; its message is the compile error of a miswired stage
/// list.
#[diagnostic::on_unimplemented(
    message = "the stages' upper sequences do not list every new top dimension exactly once",
    label = "miswired stages",
    note = "CK's rule (`is_valid_sequence_map`): together, the upper sequences of the new stages are a permutation of 0..m, m the number of upper dimensions of their transforms; `freeze` writes none"
)]
pub trait EachNewTopDimensionOnce {}
impl EachNewTopDimensionOnce for Verdict<B1, B1> {}

/// A stage list that consumes each of `Old` old top dimensions once and produces each of its new
/// top dimensions once (CK's `is_valid_sequence_map` on both sides), checked by the compiler.
#[diagnostic::on_unimplemented(
    message = "these CK Tile stages are not wired onto the old top dimensions",
    note = "each old top dimension must be a lower id of exactly one transform"
)]
pub trait WiredOnto<Old: Unsigned>: PositionStages {}

impl<N, Old> WiredOnto<Old> for N
where
    N: PositionStages,
    Old: Unsigned,
    U1: Shl<Old> + Shl<N::UpCount>,
    Shleft<U1, Old>: Sub<B1>,
    Shleft<U1, N::UpCount>: Sub<B1>,
    N::LowMask: IsEqual<MaskBelow<Old>>,
    N::LowCount: IsEqual<Old>,
    N::UpMask: IsEqual<MaskBelow<N::UpCount>>,
    Verdict<Eq<N::LowMask, MaskBelow<Old>>, Eq<N::LowCount, Old>>: EachOldTopDimensionOnce,
    Verdict<Eq<N::UpMask, MaskBelow<N::UpCount>>, B1>: EachNewTopDimensionOnce,
{
}

impl<N: ArrayLength> Positions for Range<N>
where
    U1: Shl<N>,
    Shleft<U1, N>: Sub<B1>,
    MaskBelow<N>: Unsigned,
{
    type Mask = MaskBelow<N>;
}
