//! CK Tile's tensor adaptors: transforms wired together through *hidden dimensions*. Every
//! dimension that appears anywhere gets an id; each transform reads the hidden dimensions of its
//! upper ids and writes those of its lower ids; the *top* ids are the user's index, the *bottom*
//! ids the result. Ids follow CK's assignment rules (`tensor_adaptor.hpp`), so hidden vectors
//! print as CK's do.
//!
//! The ids are types, as CK's are compile-time `sequence<...>`s ([`Sequence`]): a stage's lower and
//! upper ids, an adaptor's top and bottom ids. So every gather and scatter of the hidden index
//! reads and writes constant positions and a coordinate's hidden index stays in registers, and a
//! miswired stage list passed to a builder does not compile ([`WiredOnto`]). The number of hidden
//! dimensions `H` is a typenum number.

use super::TransformError;
use super::ids::{
    ChainIds, Fresh, IdList, IdMap, Mapped, PositionStages, Range, Same, Sequence, ShiftBy, TopOf, WiredOnto,
};
use super::{MultiIndex, SafeVectors, Transform};
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Add, Sub};
use generic_array::{ArrayLength, GenericArray};
use typenum::{Diff, Sum, U1};

/// Hidden-dimension ids of `N` dimensions, as values.
pub type Ids<N> = GenericArray<usize, N>;

/// One transform with the hidden ids it reads (`Up`) and writes (`Lo`), both [`Sequence`] types.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{PassThrough, Stage};
/// let s = Stage::new(PassThrough::new(4usize), sequence![0], sequence![2]);
/// assert_eq!((s.lower()[0], s.upper()[0]), (0, 2));
/// ```
#[derive(Clone, Copy)]
pub struct Stage<T, Lo, Up> {
    transform: T,
    ids: PhantomData<(Lo, Up)>,
}

/// A sequence with one id per dimension of a transform's side: `N` dimensions.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not have one id per dimension of the transform",
    label = "a sequence of the wrong length",
    note = "a stage's lower sequence names one hidden dimension per lower dimension of its transform, its upper sequence one per upper dimension"
)]
pub trait IdsFor<N>: Sequence {}
#[diagnostic::do_not_recommend]
impl<S: Sequence, M: IdMap> IdsFor<S::Len> for Mapped<S, M> {}
#[diagnostic::do_not_recommend]
impl<N: ArrayLength> IdsFor<N> for Range<N> {}
#[diagnostic::do_not_recommend]
impl IdsFor<typenum::U0> for () {}

macro_rules! one {
    ($i:tt) => {
        1
    };
}

macro_rules! impl_ids_for {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        #[diagnostic::do_not_recommend]
        impl<$(const $A: usize),+> IdsFor<typenum::U<{ 0 $(+ one!($i))+ }>> for ($(super::ids::Id<$A>,)+) {}
    };
}
const_layout_cute::__for_tuples!(impl_ids_for);

impl<T: Transform, Lo: Sequence, Up: Sequence> Stage<T, Lo, Up> {
    /// A transform reading the hidden dimensions `upper` and writing `lower`, one id per
    /// dimension (a wrong count does not compile): CK's transform with its entries of
    /// `LowerDimensionHiddenIdss` / `UpperDimensionHiddenIdss` (or, given to a builder, of its
    /// old and new top positions).
    pub fn new(transform: T, _lower: Lo, _upper: Up) -> Self
    where
        Lo: IdsFor<T::Low>,
        Up: IdsFor<T::Up>,
    {
        Stage { transform, ids: PhantomData }
    }
}

impl<T: Transform, Lo: Sequence<Len = T::Low>, Up: Sequence<Len = T::Up>> Stage<T, Lo, Up> {
    /// One incremental update of the hidden index by `f` (one of the transform's updates): its
    /// upper index and step gathered, its lower index and step scattered back.
    #[inline(always)]
    fn step<H: ArrayLength>(
        &self,
        hidden: &mut MultiIndex<H>,
        diff: &mut MultiIndex<H>,
        f: impl FnOnce(
            &T,
            &MultiIndex<T::Up>,
            &mut MultiIndex<T::Low>,
            &MultiIndex<T::Up>,
        ) -> (MultiIndex<T::Low>, bool),
    ) -> bool {
        let up_new = gather(hidden, &Up::IDS);
        let du = gather(diff, &Up::IDS);
        let mut low = gather(hidden, &Lo::IDS);
        let (dl, exact) = f(&self.transform, &du, &mut low, &up_new);
        scatter(hidden, &Lo::IDS, &low);
        scatter(diff, &Lo::IDS, &dl);
        exact
    }

    /// A stage whose ids are all in its type (the makers' own wiring).
    pub(super) fn typed(transform: T) -> Self {
        Stage { transform, ids: PhantomData }
    }

    /// The transform.
    pub fn transform(&self) -> &T {
        &self.transform
    }

    /// The hidden ids written.
    pub fn lower(&self) -> Ids<T::Low> {
        Lo::IDS.to_array()
    }

    /// The hidden ids read.
    pub fn upper(&self) -> Ids<T::Up> {
        Up::IDS.to_array()
    }
}

impl<T: fmt::Debug, Lo: Sequence, Up: Sequence> fmt::Debug for Stage<T, Lo, Up> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stage")
            .field("transform", &self.transform)
            .field("lower", &Lo::IDS.as_slice())
            .field("upper", &Up::IDS.as_slice())
            .finish()
    }
}

/// A list of stages evaluated in order (from the top down): a [`Stage`], a tuple of stages that
/// read and write disjoint dimensions (one call of [`transform_tensor_adaptor`]), or a [`Chain`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of CK Tile stages",
    note = "stages are `Stage::new(transform, lower ids, upper ids)`, tuples of them, or a `Chain`"
)]
pub trait Stages {
    /// The number of upper dimensions of all the transforms.
    type UpCount: ArrayLength;
    /// Whether no transform can map an index in range to an invalid one (no checked pads).
    const ALWAYS_VALID: bool;
    /// Whether every transform's parameters are static
    /// ([`Transform::IS_KNOWN_AT_COMPILE_TIME`]); the ids always are.
    const IS_KNOWN_AT_COMPILE_TIME: bool;
    /// All lower ids, transform by transform (top first).
    const LOWERS: IdList;
    /// All upper ids, transform by transform (top first).
    const UPPERS: IdList;
    /// Run every transform, top first, on the hidden index.
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>);
    /// Move the hidden index by the step `diff` (given on the top dimensions): every transform,
    /// top first, updates its lower dimensions from its upper step and writes their step (CK's
    /// move as written; CK skips a transform none of whose upper dimensions moved, which gives
    /// a zero step, and with the ids and a constant step in view the compiler drops it anyway).
    /// [`move_tensor_coordinate`](super::move_tensor_coordinate) takes the same result by
    /// [`Stages::update_without_carry`] and [`Stages::fix_carries`].
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>);
    /// [`Stages::update`] by every transform's carry-free step
    /// ([`Transform::update_lower_index_without_carry`]); false if some merge would carry, and
    /// then `hidden` and `diff` are not to be used.
    fn update_without_carry<H: ArrayLength>(
        &self,
        hidden: &mut MultiIndex<H>,
        diff: &mut MultiIndex<H>,
    ) -> bool;
    /// After [`Stages::update_without_carry`] returned false, on what it left: every transform
    /// brings its lower index back in range and moves it by the correction of its upper index
    /// ([`Transform::fix_lower_index`]); `diff` gets the corrections.
    fn fix_carries<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>);
    /// Whether every transform maps its current upper index to a valid lower one.
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool;
    /// CK's vector-access inference, from the bottom up (the reverse of [`Stages::calculate`]):
    /// each transform's upper dimensions get what it infers from its lower ones, overridden by
    /// `guaranteed` where that knows more.
    fn safe_vectors_bottom_up<H: ArrayLength>(
        &self,
        vectors: &mut SafeVectors<H>,
        guaranteed: &SafeVectors<H>,
    );
    /// Call `f` with each transform's upper ids and upper lengths, in transform order.
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize]));
    /// Call `f` with each transform's name and whether it is always valid, top first.
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool));
}

/// `hidden` at the positions `ids` (constants after inlining).
#[inline(always)]
pub(super) fn gather<T: Copy + Default, N: ArrayLength, H: ArrayLength>(
    hidden: &GenericArray<T, H>,
    ids: &IdList,
) -> GenericArray<T, N> {
    let mut out = GenericArray::<T, N>::default();
    for (k, o) in out.iter_mut().enumerate() {
        *o = hidden[ids.get(k)];
    }
    out
}

/// `values` written into `hidden` at the positions `ids`.
#[inline(always)]
pub(super) fn scatter<T: Copy, N: ArrayLength, H: ArrayLength>(
    hidden: &mut GenericArray<T, H>,
    ids: &IdList,
    values: &GenericArray<T, N>,
) {
    for (k, &v) in values.iter().enumerate() {
        hidden[ids.get(k)] = v;
    }
}

impl<T: Transform, Lo: Sequence<Len = T::Low>, Up: Sequence<Len = T::Up>> Stages for Stage<T, Lo, Up> {
    type UpCount = T::Up;
    const ALWAYS_VALID: bool = T::ALWAYS_VALID;
    const IS_KNOWN_AT_COMPILE_TIME: bool = T::IS_KNOWN_AT_COMPILE_TIME;
    const LOWERS: IdList = Lo::IDS;
    const UPPERS: IdList = Up::IDS;
    #[inline(always)]
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
        let low = self.transform.calculate_lower_index(&gather(hidden, &Up::IDS));
        scatter(hidden, &Lo::IDS, &low);
    }
    #[inline(always)]
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        self.step(hidden, diff, |t, du, low, up| (t.update_lower_index(du, low, up), true));
    }
    #[inline(always)]
    fn update_without_carry<H: ArrayLength>(
        &self,
        hidden: &mut MultiIndex<H>,
        diff: &mut MultiIndex<H>,
    ) -> bool {
        self.step(hidden, diff, T::update_lower_index_without_carry)
    }
    #[inline(always)]
    fn fix_carries<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        self.step(hidden, diff, |t, du, low, up| (t.fix_lower_index(du, low, up), true));
    }
    #[inline(always)]
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
        T::ALWAYS_VALID || self.transform.is_valid_index(&gather(hidden, &Up::IDS), &gather(hidden, &Lo::IDS))
    }
    fn safe_vectors_bottom_up<H: ArrayLength>(
        &self,
        vectors: &mut SafeVectors<H>,
        guaranteed: &SafeVectors<H>,
    ) {
        let mut up =
            self.transform.calculate_upper_dimension_safe_vector_length_strides(&gather(vectors, &Lo::IDS));
        for (v, g) in up.iter_mut().zip(gather::<_, T::Up, H>(guaranteed, &Up::IDS).iter()) {
            *v = v.overridden_by(*g);
        }
        scatter(vectors, &Up::IDS, &up);
    }
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
        f(Up::IDS.as_slice(), self.transform.upper_lengths().as_slice());
    }
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
        f(T::NAME, T::ALWAYS_VALID);
    }
}

/// Two stage lists, `A` (nearer the top) evaluated before `B`.
#[derive(Clone, Copy, Debug)]
pub struct Chain<A, B>(pub A, pub B);

impl<A: Stages, B: Stages> Stages for Chain<A, B>
where
    A::UpCount: Add<B::UpCount>,
    Sum<A::UpCount, B::UpCount>: ArrayLength,
{
    type UpCount = Sum<A::UpCount, B::UpCount>;
    const ALWAYS_VALID: bool = A::ALWAYS_VALID && B::ALWAYS_VALID;
    const IS_KNOWN_AT_COMPILE_TIME: bool = A::IS_KNOWN_AT_COMPILE_TIME && B::IS_KNOWN_AT_COMPILE_TIME;
    const LOWERS: IdList = A::LOWERS.concat(B::LOWERS);
    const UPPERS: IdList = A::UPPERS.concat(B::UPPERS);
    #[inline(always)]
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
        self.0.calculate(hidden);
        self.1.calculate(hidden);
    }
    #[inline(always)]
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        self.0.update(hidden, diff);
        self.1.update(hidden, diff);
    }
    #[inline(always)]
    fn update_without_carry<H: ArrayLength>(
        &self,
        hidden: &mut MultiIndex<H>,
        diff: &mut MultiIndex<H>,
    ) -> bool {
        // Both halves run (no early exit): the fast path is straight-line code.
        self.0.update_without_carry(hidden, diff) & self.1.update_without_carry(hidden, diff)
    }
    #[inline(always)]
    fn fix_carries<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        self.0.fix_carries(hidden, diff);
        self.1.fix_carries(hidden, diff);
    }
    #[inline(always)]
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
        self.0.is_valid(hidden) && self.1.is_valid(hidden)
    }
    fn safe_vectors_bottom_up<H: ArrayLength>(
        &self,
        vectors: &mut SafeVectors<H>,
        guaranteed: &SafeVectors<H>,
    ) {
        self.1.safe_vectors_bottom_up(vectors, guaranteed);
        self.0.safe_vectors_bottom_up(vectors, guaranteed);
    }
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
        self.0.for_each_upper(f);
        self.1.for_each_upper(f);
    }
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
        self.0.for_each_transform(f);
        self.1.for_each_transform(f);
    }
}

macro_rules! impl_stage_tuple {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: Stages),+> Stages for ($($A,)+)
        where
            ($($A,)+): UpCountOf,
        {
            type UpCount = <($($A,)+) as UpCountOf>::Count;
            const ALWAYS_VALID: bool = true $(&& $A::ALWAYS_VALID)+;
            const IS_KNOWN_AT_COMPILE_TIME: bool = true $(&& $A::IS_KNOWN_AT_COMPILE_TIME)+;
            const LOWERS: IdList = IdList::EMPTY $(.concat($A::LOWERS))+;
            const UPPERS: IdList = IdList::EMPTY $(.concat($A::UPPERS))+;
            #[inline(always)]
            fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
                $(self.$i.calculate(hidden);)+
            }
            #[inline(always)]
            fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
                $(self.$i.update(hidden, diff);)+
            }
            #[inline(always)]
            fn update_without_carry<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) -> bool {
                true $(& self.$i.update_without_carry(hidden, diff))+
            }
            #[inline(always)]
            fn fix_carries<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
                $(self.$i.fix_carries(hidden, diff);)+
            }
            #[inline(always)]
            fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
                true $(&& self.$i.is_valid(hidden))+
            }
            fn safe_vectors_bottom_up<H: ArrayLength>(&self, vectors: &mut SafeVectors<H>, guaranteed: &SafeVectors<H>) {
                // The transforms of one stage read and write disjoint dimensions: any order.
                $(self.$i.safe_vectors_bottom_up(vectors, guaranteed);)+
            }
            fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
                $(self.$i.for_each_upper(f);)+
            }
            fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
                $(self.$i.for_each_transform(f);)+
            }
        }
    };
}
const_layout_cute::__for_tuples!(impl_stage_tuple);

/// The total upper-dimension count of a tuple of stage lists (a typenum sum).
#[doc(hidden)]
pub trait UpCountOf {
    /// The sum.
    type Count: ArrayLength;
}

macro_rules! impl_up_count {
    ([$i0:tt $A0:ident $B0:ident $C0:ident]) => {
        impl<$A0: Stages> UpCountOf for ($A0,) {
            type Count = $A0::UpCount;
        }
    };
    ([$i0:tt $A0:ident $B0:ident $C0:ident] $([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$A0: Stages, $($A: Stages),+> UpCountOf for ($A0, $($A,)+)
        where
            ($($A,)+): UpCountOf,
            $A0::UpCount: Add<<($($A,)+) as UpCountOf>::Count>,
            Sum<$A0::UpCount, <($($A,)+) as UpCountOf>::Count>: ArrayLength,
        {
            type Count = Sum<$A0::UpCount, <($($A,)+) as UpCountOf>::Count>;
        }
    };
}
const_layout_cute::__for_tuples!(impl_up_count);

/// A stage list renumbered: lower ids by `L`, upper ids by `U` (the builders' relabelings, done
/// on the types).
#[doc(hidden)]
pub trait Relabel<L: IdMap, U: IdMap>: Stages {
    /// The renumbered stage list.
    type Output: Stages;
    /// The same transforms under the new ids.
    fn relabel(self) -> Self::Output;
}

impl<T, Lo, Up, L, U> Relabel<L, U> for Stage<T, Lo, Up>
where
    T: Transform,
    Lo: Sequence<Len = T::Low>,
    Up: Sequence<Len = T::Up>,
    L: IdMap,
    U: IdMap,
{
    type Output = Stage<T, Mapped<Lo, L>, Mapped<Up, U>>;
    #[inline(always)]
    fn relabel(self) -> Self::Output {
        Stage { transform: self.transform, ids: PhantomData }
    }
}

impl<A, B, L, U> Relabel<L, U> for Chain<A, B>
where
    A: Relabel<L, U>,
    B: Relabel<L, U>,
    L: IdMap,
    U: IdMap,
    Chain<A, B>: Stages,
    Chain<A::Output, B::Output>: Stages,
{
    type Output = Chain<A::Output, B::Output>;
    #[inline(always)]
    fn relabel(self) -> Self::Output {
        Chain(self.0.relabel(), self.1.relabel())
    }
}

macro_rules! impl_relabel_tuple {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<L: IdMap, U: IdMap, $($A: Relabel<L, U>),+> Relabel<L, U> for ($($A,)+)
        where
            ($($A,)+): Stages,
            ($($A::Output,)+): Stages,
        {
            type Output = ($($A::Output,)+);
            #[inline(always)]
            fn relabel(self) -> Self::Output {
                ($(self.$i.relabel(),)+)
            }
        }
    };
}
const_layout_cute::__for_tuples!(impl_relabel_tuple);

/// CK's `tensor_adaptor`: stages over `H` hidden dimensions, with the hidden ids of the `Top`
/// (user) dimensions and of the `Bottom` (result) dimensions as [`Sequence`] types.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{make_single_stage_tensor_adaptor, PassThrough, Stage, Unmerge, multi_index};
/// // CK's run: pt(4) on old dim 0 -> new 1, unmerge(2,3) on old dim 1 -> new (0,2).
/// let a = make_single_stage_tensor_adaptor((
///     Stage::new(PassThrough::new(4usize), sequence![0], sequence![1]),
///     Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![0, 2]),
/// ));
/// assert_eq!(a.top_ids().as_slice(), &[2, 3, 4]);
/// assert_eq!(a.calculate_bottom_index(&multi_index([1, 2, 2])).as_slice(), &[2, 5]);
/// ```
#[derive(Clone)]
pub struct TensorAdaptor<S, H: ArrayLength, Top: Sequence, Bottom: Sequence> {
    stages: S,
    top_lengths: MultiIndex<Top::Len>,
    ids: PhantomData<(H, Top, Bottom)>,
}

impl<S: fmt::Debug, H: ArrayLength, Top: Sequence, Bottom: Sequence> fmt::Debug
    for TensorAdaptor<S, H, Top, Bottom>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorAdaptor")
            .field("stages", &self.stages)
            .field("hidden", &H::USIZE)
            .field("top", &Top::IDS.as_slice())
            .field("bottom", &Bottom::IDS.as_slice())
            .field("top_lengths", &self.top_lengths.as_slice())
            .finish()
    }
}

impl<S: Stages, H: ArrayLength, Top: Sequence, Bottom: Sequence> TensorAdaptor<S, H, Top, Bottom> {
    /// An adaptor wired by hand, checked: every id below `H`, every top id produced by exactly one
    /// transform (its length is that transform's upper length). The builders wire adaptors that
    /// hold by construction.
    ///
    /// ```
    /// use const_layout::sequence;
    /// use const_layout::ck_tile::{Merge, Stage, TensorAdaptor, multi_index};
    /// let s = Stage::new(Merge::new((4usize, 5usize)).unwrap(), sequence![0, 1], sequence![2]);
    /// let a = TensorAdaptor::<_, typenum::U3, (const_layout::ck_tile::Id<2>,), _>::new(s, sequence![0, 1]).unwrap();
    /// assert_eq!(a.calculate_bottom_index(&multi_index([13])).as_slice(), &[2, 3]);
    /// ```
    pub fn new(stages: S, _bottom: Bottom) -> Result<Self, TransformError> {
        let h = H::USIZE;
        let bound = S::LOWERS.concat(S::UPPERS).concat(Top::IDS).concat(Bottom::IDS).bound();
        if bound > h {
            return Err(TransformError::Wiring {
                what: "hidden ids in range (their bound)",
                got: bound,
                expected: h,
            });
        }
        let adaptor = Self::built(stages);
        let mut found = GenericArray::<u8, Top::Len>::default();
        adaptor.stages.for_each_upper(&mut |ids, _| {
            for id in ids {
                if let Some(k) = Top::IDS.position(*id) {
                    found[k] = found[k].saturating_add(1);
                }
            }
        });
        if let Some(k) = found.iter().position(|&n| n != 1) {
            return Err(TransformError::Wiring {
                what: "transforms producing a top dimension",
                got: found[k] as usize,
                expected: 1,
            });
        }
        Ok(adaptor)
    }

    /// An adaptor whose wiring holds (the builders'): the top lengths from the transforms.
    pub(super) fn built(stages: S) -> Self {
        let mut top_lengths = MultiIndex::<Top::Len>::default();
        stages.for_each_upper(&mut |ids, lengths| {
            for (&id, &len) in ids.iter().zip(lengths) {
                if let Some(k) = Top::IDS.position(id) {
                    top_lengths[k] = len;
                }
            }
        });
        TensorAdaptor { stages, top_lengths, ids: PhantomData }
    }

    /// The hidden ids of the top dimensions.
    pub fn top_ids(&self) -> Ids<Top::Len> {
        Top::IDS.to_array()
    }

    /// The hidden ids of the bottom dimensions.
    pub fn bottom_ids(&self) -> Ids<Bottom::Len> {
        Bottom::IDS.to_array()
    }

    /// The lengths of the top dimensions (CK's `get_lengths`).
    pub fn top_lengths(&self) -> &MultiIndex<Top::Len> {
        &self.top_lengths
    }

    /// The stages.
    pub fn stages(&self) -> &S {
        &self.stages
    }

    /// The whole hidden index of a top index (what a coordinate caches).
    #[inline(always)]
    pub fn calculate_hidden_index(&self, top: &MultiIndex<Top::Len>) -> MultiIndex<H> {
        let mut hidden = MultiIndex::<H>::default();
        scatter(&mut hidden, &Top::IDS, top);
        self.stages.calculate(&mut hidden);
        hidden
    }

    /// CK's `calculate_bottom_index`.
    #[inline(always)]
    pub fn calculate_bottom_index(&self, top: &MultiIndex<Top::Len>) -> MultiIndex<Bottom::Len> {
        gather(&self.calculate_hidden_index(top), &Bottom::IDS)
    }

    /// What each top dimension guarantees about vector access (CK's
    /// `get_top_dimension_safe_vector_length_strides`): `guaranteed` gives what is known of each
    /// hidden dimension (the bottom ones, and any the caller vouches for), and every transform,
    /// from the bottom up, infers its upper dimensions' from its lower dimensions'.
    ///
    /// ```
    /// use const_layout::sequence;
    /// use const_layout::ck_tile::{make_single_stage_tensor_adaptor, Merge, SafeVector, SafeVectors, Stage};
    /// use const_layout::C;
    /// // Two bottom dimensions merged; the fastest one (bottom 1) is contiguous in runs of 4.
    /// let a = make_single_stage_tensor_adaptor((Stage::new(
    ///     Merge::new((C::<3>, C::<4>)).unwrap(), sequence![0, 1], sequence![0]),));
    /// let mut known = SafeVectors::<typenum::U3>::default();
    /// known[1] = SafeVector::new(4, 1);
    /// assert_eq!(a.get_top_dimension_safe_vector_length_strides(&known)[0], SafeVector::new(4, 1));
    /// ```
    pub fn get_top_dimension_safe_vector_length_strides(
        &self,
        guaranteed: &SafeVectors<H>,
    ) -> SafeVectors<Top::Len> {
        let mut vectors = guaranteed.clone();
        self.stages.safe_vectors_bottom_up(&mut vectors, guaranteed);
        gather(&vectors, &Top::IDS)
    }

    /// The product of the top lengths (CK's `get_element_size`).
    pub fn element_size(&self) -> isize {
        self.top_lengths.iter().product()
    }
}

/// The number of old dimensions a stage list reads.
type LowCount<S> = <S as PositionStages>::LowCount;

/// The adaptor [`make_single_stage_tensor_adaptor`] builds.
pub type SingleStageAdaptor<S> = TensorAdaptor<
    <S as Relabel<Same, ShiftBy<LowCount<S>>>>::Output,
    Sum<LowCount<S>, <S as Stages>::UpCount>,
    Mapped<Range<<S as Stages>::UpCount>, ShiftBy<LowCount<S>>>,
    Range<LowCount<S>>,
>;

/// CK's `make_single_stage_tensor_adaptor`: one stage of transforms whose lower sequences are
/// positions among the old (bottom) dimensions, hidden ids `0..n`, and whose upper sequences are
/// new top positions (numbered from 0; they become hidden ids `n + p`). The positions must list
/// every old and every new dimension once: a compile error otherwise.
pub fn make_single_stage_tensor_adaptor<S>(stages: S) -> SingleStageAdaptor<S>
where
    S: WiredOnto<LowCount<S>> + Relabel<Same, ShiftBy<LowCount<S>>>,
    LowCount<S>: ArrayLength + Add<S::UpCount>,
    Sum<LowCount<S>, S::UpCount>: ArrayLength,
{
    TensorAdaptor::built(stages.relabel())
}

/// The adaptor [`transform_tensor_adaptor`] builds: the new stages on top of the old ones.
pub type TransformedAdaptor<N, S, H, Top, Bottom> = TensorAdaptor<
    Chain<<N as Relabel<TopOf<Top>, Fresh<N, H>>>::Output, S>,
    Sum<H, <N as Stages>::UpCount>,
    Mapped<Range<<N as Stages>::UpCount>, Fresh<N, H>>,
    Bottom,
>;

/// CK's `transform_tensor_adaptor`: new transforms on top of `old`. Each new transform's lower
/// sequence lists *positions* among `old`'s top dimensions, its upper sequence positions among
/// the new top dimensions. New hidden ids are allocated in transform order from `H`, as CK's
/// are; every old top dimension must be consumed and every new one produced exactly once (a
/// compile error otherwise, [`WiredOnto`]).
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{make_single_stage_tensor_adaptor, transform_tensor_adaptor, Merge, PassThrough, Stage, multi_index};
/// let a = make_single_stage_tensor_adaptor((
///     Stage::new(PassThrough::new(4usize), sequence![0], sequence![0]),
///     Stage::new(PassThrough::new(5usize), sequence![1], sequence![1]),
/// ));
/// let m = transform_tensor_adaptor(a, (Stage::new(Merge::new((4usize, 5usize)).unwrap(), sequence![0, 1], sequence![0]),));
/// assert_eq!(m.top_ids().as_slice(), &[4]);
/// assert_eq!(m.calculate_bottom_index(&multi_index([13])).as_slice(), &[2, 3]);
/// ```
pub fn transform_tensor_adaptor<S, H, Top, Bottom, N>(
    old: TensorAdaptor<S, H, Top, Bottom>,
    new: N,
) -> TransformedAdaptor<N, S, H, Top, Bottom>
where
    S: Stages,
    H: ArrayLength + Add<N::UpCount>,
    Top: Sequence,
    Bottom: Sequence,
    N: WiredOnto<Top::Len> + Relabel<TopOf<Top>, Fresh<N, H>> + 'static,
    Sum<H, N::UpCount>: ArrayLength,
    Chain<<N as Relabel<TopOf<Top>, Fresh<N, H>>>::Output, S>: Stages,
{
    TensorAdaptor::built(Chain(new.relabel(), old.stages))
}

/// The adaptor [`chain_tensor_adaptors`] builds: `a1`'s stages on top of `a0`'s.
pub type ChainedAdaptor<S0, S1, H0, H1, Top0, Bottom0, Top1, Bottom1> = TensorAdaptor<
    Chain<<S1 as Relabel<ChainIds<S1, Bottom1, Top0, H0>, ChainIds<S1, Bottom1, Top0, H0>>>::Output, S0>,
    Diff<Sum<H0, H1>, <Top0 as Sequence>::Len>,
    Mapped<Top1, ChainIds<S1, Bottom1, Top0, H0>>,
    Bottom0,
>;

/// CK's `chain_tensor_adaptors(a0, a1)`: `a1` read on top of `a0` (`a1`'s bottom dimensions are
/// `a0`'s top dimensions, position by position). `a1`'s other hidden ids move past `a0`'s, as
/// CK's do.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{
///     Merge, PassThrough, Stage, Unmerge, chain_tensor_adaptors, make_single_stage_tensor_adaptor, multi_index,
/// };
/// // CK's run: the single-stage adaptor pt(4), unmerge(2,3), then merge(2,4,3) on top.
/// let a0 = make_single_stage_tensor_adaptor((
///     Stage::new(PassThrough::new(4usize), sequence![0], sequence![1]),
///     Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![0, 2]),
/// ));
/// let a1 = make_single_stage_tensor_adaptor((Stage::new(
///     Merge::new((2usize, 4usize, 3usize)).unwrap(), sequence![0, 1, 2], sequence![0]),));
/// let c = chain_tensor_adaptors(a0, a1);
/// assert_eq!(c.top_ids().as_slice(), &[5]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([5])).as_slice(), &[1, 2]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([13])).as_slice(), &[0, 4]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([23])).as_slice(), &[3, 5]);
/// ```
// The result names both adaptors' parts; an alias cannot make that shorter.
#[allow(clippy::type_complexity)]
pub fn chain_tensor_adaptors<S0, S1, H0, H1, Top0, Bottom0, Top1, Bottom1>(
    a0: TensorAdaptor<S0, H0, Top0, Bottom0>,
    a1: TensorAdaptor<S1, H1, Top1, Bottom1>,
) -> ChainedAdaptor<S0, S1, H0, H1, Top0, Bottom0, Top1, Bottom1>
where
    S0: Stages,
    S1: Relabel<ChainIds<S1, Bottom1, Top0, H0>, ChainIds<S1, Bottom1, Top0, H0>> + 'static,
    H0: ArrayLength + Add<H1>,
    H1: ArrayLength,
    Top0: Sequence,
    Bottom0: Sequence,
    Top1: Sequence,
    Bottom1: Sequence<Len = Top0::Len>,
    Sum<H0, H1>: Sub<Top0::Len>,
    Diff<Sum<H0, H1>, Top0::Len>: ArrayLength,
    Chain<<S1 as Relabel<ChainIds<S1, Bottom1, Top0, H0>, ChainIds<S1, Bottom1, Top0, H0>>>::Output, S0>:
        Stages,
{
    TensorAdaptor::built(Chain(a1.stages.relabel(), a0.stages))
}

/// The bottom sequence of a descriptor: hidden id 0, the offset.
pub type OffsetId = Range<U1>;
