//! CK Tile's tensor adaptors: transforms wired together through *hidden dimensions*. Every
//! dimension that appears anywhere gets an id; each transform reads the hidden dimensions of its
//! upper ids and writes those of its lower ids; the *top* ids are the user's index, the *bottom*
//! ids the result. Ids follow CK's assignment rules (`tensor_adaptor.hpp`), so hidden vectors
//! print as CK's do.
//!
//! The number of hidden dimensions `H`, of top dimensions and of bottom dimensions are typenum
//! numbers, so a top index of the wrong dimension count does not compile, and a coordinate's
//! cached hidden index is a fixed array.

use super::{MultiIndex, Transform};
use crate::error::LayoutError;
use core::marker::PhantomData;
use core::ops::Add;
use generic_array::{ArrayLength, GenericArray};
use typenum::Sum;

/// Hidden-dimension ids of `N` dimensions.
pub type Ids<N> = GenericArray<usize, N>;

/// One transform with the hidden ids it reads (`upper`) and writes (`lower`).
///
/// ```
/// use const_layout::transform::{PassThrough, Stage};
/// let s = Stage::new(PassThrough::new(4usize), [0], [2]);
/// assert_eq!((s.lower()[0], s.upper()[0]), (0, 2));
/// ```
#[derive(Clone, Debug)]
pub struct Stage<T: Transform> {
    transform: T,
    lower: Ids<T::Low>,
    upper: Ids<T::Up>,
}

impl<T: Transform> Stage<T> {
    /// A transform reading hidden dimensions `upper` and writing `lower` (one id per dimension:
    /// a wrong count does not compile).
    pub fn new<const L: usize, const U: usize>(transform: T, lower: [usize; L], upper: [usize; U]) -> Self
    where
        Ids<T::Low>: From<[usize; L]>,
        Ids<T::Up>: From<[usize; U]>,
    {
        Stage { transform, lower: Ids::from(lower), upper: Ids::from(upper) }
    }

    /// A stage from id arrays of the transform's dimension counts.
    pub fn from_ids(transform: T, lower: Ids<T::Low>, upper: Ids<T::Up>) -> Self {
        Stage { transform, lower, upper }
    }

    /// The transform.
    pub fn transform(&self) -> &T {
        &self.transform
    }

    /// The hidden ids written.
    pub fn lower(&self) -> &Ids<T::Low> {
        &self.lower
    }

    /// The hidden ids read.
    pub fn upper(&self) -> &Ids<T::Up> {
        &self.upper
    }
}

/// A list of stages evaluated in order (from the top down): a [`Stage`], a tuple of stages that
/// read and write disjoint dimensions (one call of [`transform_tensor_adaptor`]), or a [`Chain`].
pub trait Stages {
    /// The number of upper dimensions of all the transforms.
    type UpCount: ArrayLength;
    /// Whether no transform can map an index in range to an invalid one (no checked pads).
    const ALWAYS_VALID: bool;
    /// Run every transform, top first, on the hidden index.
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>);
    /// Move the hidden index by the step `diff` (given on the top dimensions): every transform,
    /// top first, updates its lower dimensions from its upper step and writes their step. (CK
    /// skips a transform none of whose upper dimensions moved; running it gives a zero step, so
    /// the result is the same, and for the short chains of a kernel the bookkeeping costs more
    /// than it saves.)
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>);
    /// Whether every transform maps its current upper index to a valid lower one.
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool;
    /// Call `f` with each transform's upper ids and upper lengths, in transform order.
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize]));
    /// Call `f` with each transform's lower ids.
    fn for_each_lower(&self, f: &mut dyn FnMut(&[usize]));
    /// Call `f` with each transform's name and whether it is always valid, top first.
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool));
    /// The largest hidden id used, plus one.
    fn id_bound(&self) -> usize;
}

fn gather<N: ArrayLength, H: ArrayLength>(hidden: &MultiIndex<H>, ids: &Ids<N>) -> MultiIndex<N> {
    let mut out = MultiIndex::<N>::default();
    for (o, &id) in out.iter_mut().zip(ids.iter()) {
        *o = hidden[id];
    }
    out
}

fn scatter<N: ArrayLength, H: ArrayLength>(hidden: &mut MultiIndex<H>, ids: &Ids<N>, values: &MultiIndex<N>) {
    for (&id, &v) in ids.iter().zip(values.iter()) {
        hidden[id] = v;
    }
}

impl<T: Transform> Stages for Stage<T> {
    type UpCount = T::Up;
    const ALWAYS_VALID: bool = T::ALWAYS_VALID;
    #[inline(always)]
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
        let low = self.transform.calculate_lower_index(&gather(hidden, &self.upper));
        scatter(hidden, &self.lower, &low);
    }
    #[inline(always)]
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        let up_new = gather(hidden, &self.upper);
        let du = gather(diff, &self.upper);
        let mut low = gather(hidden, &self.lower);
        let dl = self.transform.update_lower_index(&du, &mut low, &up_new);
        scatter(hidden, &self.lower, &low);
        scatter(diff, &self.lower, &dl);
    }
    #[inline(always)]
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
        T::ALWAYS_VALID || self.transform.is_valid_upper_index(&gather(hidden, &self.upper))
    }
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
        f(self.upper.as_slice(), self.transform.upper_lengths().as_slice());
    }
    fn for_each_lower(&self, f: &mut dyn FnMut(&[usize])) {
        f(self.lower.as_slice());
    }
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
        f(T::NAME, T::ALWAYS_VALID);
    }
    fn id_bound(&self) -> usize {
        self.lower.iter().chain(self.upper.iter()).map(|&i| i.saturating_add(1)).max().unwrap_or(0)
    }
}

/// Two stage lists, `A` (nearer the top) evaluated before `B`.
#[derive(Clone, Debug)]
pub struct Chain<A, B>(pub A, pub B);

impl<A: Stages, B: Stages> Stages for Chain<A, B>
where
    A::UpCount: Add<B::UpCount>,
    Sum<A::UpCount, B::UpCount>: ArrayLength,
{
    type UpCount = Sum<A::UpCount, B::UpCount>;
    const ALWAYS_VALID: bool = A::ALWAYS_VALID && B::ALWAYS_VALID;
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
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
        self.0.is_valid(hidden) && self.1.is_valid(hidden)
    }
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
        self.0.for_each_upper(f);
        self.1.for_each_upper(f);
    }
    fn for_each_lower(&self, f: &mut dyn FnMut(&[usize])) {
        self.0.for_each_lower(f);
        self.1.for_each_lower(f);
    }
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
        self.0.for_each_transform(f);
        self.1.for_each_transform(f);
    }
    fn id_bound(&self) -> usize {
        self.0.id_bound().max(self.1.id_bound())
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
            #[inline(always)]
            fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
                $(self.$i.calculate(hidden);)+
            }
            #[inline(always)]
            fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
                $(self.$i.update(hidden, diff);)+
            }
            #[inline(always)]
            fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
                true $(&& self.$i.is_valid(hidden))+
            }
            fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
                $(self.$i.for_each_upper(f);)+
            }
            fn for_each_lower(&self, f: &mut dyn FnMut(&[usize])) {
                $(self.$i.for_each_lower(f);)+
            }
            fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
                $(self.$i.for_each_transform(f);)+
            }
            fn id_bound(&self) -> usize {
                0 $(.max(self.$i.id_bound()))+
            }
        }
    };
}
crate::arity::for_tuples!(impl_stage_tuple);

/// The total upper-dimension count of a tuple of stage lists (a typenum sum).
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
crate::arity::for_tuples!(impl_up_count);

/// CK's `tensor_adaptor`: stages over `H` hidden dimensions, `Top` user dimensions and `Bottom`
/// result dimensions.
///
/// ```
/// use const_layout::transform::{make_single_stage_tensor_adaptor, PassThrough, Stage, Unmerge, multi_index};
/// // The reference's run: pt(4) on old dim 0 -> new 1, unmerge(2,3) on old dim 1 -> new (0,2).
/// let a = make_single_stage_tensor_adaptor::<typenum::U2, _, typenum::U3>(
///     (Stage::new(PassThrough::new(4usize), [0], [1]), Stage::new(Unmerge::new((2usize, 3usize)), [1], [0, 2])),
/// ).unwrap();
/// assert_eq!(a.top_ids().as_slice(), &[2, 3, 4]);
/// assert_eq!(a.calculate_bottom_index(&multi_index([1, 2, 2])).as_slice(), &[2, 5]);
/// ```
#[derive(Clone, Debug)]
pub struct TensorAdaptor<S, H: ArrayLength, Top: ArrayLength, Bottom: ArrayLength> {
    stages: S,
    top: Ids<Top>,
    bottom: Ids<Bottom>,
    top_lengths: MultiIndex<Top>,
    hidden: PhantomData<H>,
}

impl<S: Stages, H: ArrayLength, Top: ArrayLength, Bottom: ArrayLength> TensorAdaptor<S, H, Top, Bottom> {
    /// An adaptor from its parts, checked: every id below `H`, every top id produced by exactly one
    /// transform (its length is that transform's upper length).
    pub fn new(stages: S, top: Ids<Top>, bottom: Ids<Bottom>) -> Result<Self, LayoutError> {
        let h = H::USIZE;
        if stages.id_bound() > h || top.iter().chain(bottom.iter()).any(|&i| i >= h) {
            return Err(LayoutError::Wiring {
                what: "hidden ids in range (their bound)",
                got: stages.id_bound(),
                expected: h,
            });
        }
        let mut top_lengths = MultiIndex::<Top>::default();
        let mut found = GenericArray::<u8, Top>::default();
        stages.for_each_upper(&mut |ids, lengths| {
            for (&id, &len) in ids.iter().zip(lengths) {
                for (k, &t) in top.iter().enumerate() {
                    if t == id {
                        top_lengths[k] = len;
                        found[k] += 1;
                    }
                }
            }
        });
        if let Some(k) = found.iter().position(|&n| n != 1) {
            return Err(LayoutError::RankMismatch {
                what: "transforms producing a top dimension",
                got: found[k] as usize,
                expected: 1,
            });
        }
        Ok(TensorAdaptor { stages, top, bottom, top_lengths, hidden: PhantomData })
    }

    /// The hidden ids of the top dimensions.
    pub fn top_ids(&self) -> &Ids<Top> {
        &self.top
    }

    /// The hidden ids of the bottom dimensions.
    pub fn bottom_ids(&self) -> &Ids<Bottom> {
        &self.bottom
    }

    /// The lengths of the top dimensions (CK's `get_lengths`).
    pub fn top_lengths(&self) -> &MultiIndex<Top> {
        &self.top_lengths
    }

    /// The stages.
    pub fn stages(&self) -> &S {
        &self.stages
    }

    /// The whole hidden index of a top index (what a coordinate caches).
    #[inline(always)]
    pub fn calculate_hidden_index(&self, top: &MultiIndex<Top>) -> MultiIndex<H> {
        let mut hidden = MultiIndex::<H>::default();
        scatter(&mut hidden, &self.top, top);
        self.stages.calculate(&mut hidden);
        hidden
    }

    /// CK's `calculate_bottom_index`.
    #[inline(always)]
    pub fn calculate_bottom_index(&self, top: &MultiIndex<Top>) -> MultiIndex<Bottom> {
        gather(&self.calculate_hidden_index(top), &self.bottom)
    }

    /// The product of the top lengths (CK's `get_element_size`).
    pub fn element_size(&self) -> isize {
        self.top_lengths.iter().product()
    }
}

/// The adaptor [`make_single_stage_tensor_adaptor`] builds.
pub type SingleStageAdaptor<S, Old, New> = TensorAdaptor<Renumbered<S>, Sum<Old, New>, New, Old>;

/// The adaptor [`transform_tensor_adaptor`] builds: the new stages on top of the old ones.
pub type TransformedAdaptor<N, S, H, New, Bottom> =
    TensorAdaptor<Chain<Renumbered<N>, S>, Sum<H, New>, New, Bottom>;

/// CK's `make_single_stage_tensor_adaptor`: `Old` bottom dimensions (ids `0..Old`), one stage of
/// transforms whose lower ids are old dimensions and whose upper ids are new top positions
/// (numbered from 0; they become hidden ids `Old + p`). `New` is the number of new dimensions.
pub fn make_single_stage_tensor_adaptor<Old, S, New>(
    stages: S,
) -> Result<SingleStageAdaptor<S, Old, New>, LayoutError>
where
    Old: ArrayLength + Add<New>,
    New: ArrayLength,
    Sum<Old, New>: ArrayLength,
    S: Stages + Shift,
{
    let old = Old::USIZE;
    let stages = Renumbered(stages.shift_upper(old));
    let top = Ids::<New>::from_iter((0..New::USIZE).map(|p| old + p));
    let bottom = Ids::<Old>::from_iter(0..old);
    TensorAdaptor::new(stages, top, bottom)
}

/// Stages whose upper ids were renumbered by a builder.
#[derive(Clone, Debug)]
pub struct Renumbered<S>(pub S);

impl<S: Stages> Stages for Renumbered<S> {
    type UpCount = S::UpCount;
    const ALWAYS_VALID: bool = S::ALWAYS_VALID;
    #[inline(always)]
    fn calculate<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>) {
        self.0.calculate(hidden)
    }
    #[inline(always)]
    fn update<H: ArrayLength>(&self, hidden: &mut MultiIndex<H>, diff: &mut MultiIndex<H>) {
        self.0.update(hidden, diff)
    }
    #[inline(always)]
    fn is_valid<H: ArrayLength>(&self, hidden: &MultiIndex<H>) -> bool {
        self.0.is_valid(hidden)
    }
    fn for_each_upper(&self, f: &mut dyn FnMut(&[usize], &[isize])) {
        self.0.for_each_upper(f)
    }
    fn for_each_lower(&self, f: &mut dyn FnMut(&[usize])) {
        self.0.for_each_lower(f)
    }
    fn for_each_transform(&self, f: &mut dyn FnMut(&'static str, bool)) {
        self.0.for_each_transform(f)
    }
    fn id_bound(&self) -> usize {
        self.0.id_bound()
    }
}

/// Renumbering of a stage list's ids, for the builders.
pub trait Shift: Sized {
    /// Upper ids `p` become `by + p`.
    fn shift_upper(self, by: usize) -> Self;
    /// Lower ids `k` become `map(k)`, upper ids `p` become `fresh(p)`.
    fn relabel(self, lower: &dyn Fn(usize) -> usize, upper: &dyn Fn(usize) -> usize) -> Self;
}

impl<T: Transform> Shift for Stage<T> {
    fn shift_upper(mut self, by: usize) -> Self {
        self.upper.iter_mut().for_each(|i| *i += by);
        self
    }
    fn relabel(mut self, lower: &dyn Fn(usize) -> usize, upper: &dyn Fn(usize) -> usize) -> Self {
        self.lower.iter_mut().for_each(|i| *i = lower(*i));
        self.upper.iter_mut().for_each(|i| *i = upper(*i));
        self
    }
}

impl<A: Shift, B: Shift> Shift for Chain<A, B> {
    fn shift_upper(self, by: usize) -> Self {
        Chain(self.0.shift_upper(by), self.1.shift_upper(by))
    }
    fn relabel(self, lower: &dyn Fn(usize) -> usize, upper: &dyn Fn(usize) -> usize) -> Self {
        Chain(self.0.relabel(lower, upper), self.1.relabel(lower, upper))
    }
}

impl<S: Shift> Shift for Renumbered<S> {
    fn shift_upper(self, by: usize) -> Self {
        Renumbered(self.0.shift_upper(by))
    }
    fn relabel(self, lower: &dyn Fn(usize) -> usize, upper: &dyn Fn(usize) -> usize) -> Self {
        Renumbered(self.0.relabel(lower, upper))
    }
}

macro_rules! impl_shift_tuple {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: Shift),+> Shift for ($($A,)+) {
            fn shift_upper(self, by: usize) -> Self {
                ($(self.$i.shift_upper(by),)+)
            }
            fn relabel(self, lower: &dyn Fn(usize) -> usize, upper: &dyn Fn(usize) -> usize) -> Self {
                ($(self.$i.relabel(lower, upper),)+)
            }
        }
    };
}
crate::arity::for_tuples!(impl_shift_tuple);

/// CK's `transform_tensor_adaptor`: new transforms on top of `old`. Each new transform's lower ids
/// are *positions* among `old`'s top dimensions, its upper ids positions among the new top
/// dimensions (`New` of them). New hidden ids are allocated in transform order from `H`, as CK's
/// are; every old top dimension must be consumed and every new one produced exactly once.
pub fn transform_tensor_adaptor<S, H, Top, Bottom, N, New>(
    old: TensorAdaptor<S, H, Top, Bottom>,
    new: N,
) -> Result<TransformedAdaptor<N, S, H, New, Bottom>, LayoutError>
where
    S: Stages,
    H: ArrayLength + Add<New>,
    Top: ArrayLength,
    Bottom: ArrayLength,
    N: Stages + Shift,
    New: ArrayLength,
    Sum<H, New>: ArrayLength,
    N::UpCount: Add<S::UpCount>,
    Sum<N::UpCount, S::UpCount>: ArrayLength,
{
    let (h, old_top) = (H::USIZE, old.top.clone());
    // CK allocates the fresh ids in transform order: the j-th upper entry gets id H + j, and new
    // top position p is the id of the entry that names p.
    let mut order = Ids::<New>::default();
    let mut made = GenericArray::<u8, New>::default();
    let mut next = 0usize;
    let mut outside = false;
    new.for_each_upper(&mut |ids, _| {
        for &p in ids {
            match made.get_mut(p) {
                Some(m) => {
                    *m += 1;
                    order[p] = h + next;
                }
                None => outside = true,
            }
            next += 1;
        }
    });
    if outside || made.iter().any(|&n| n != 1) {
        return Err(LayoutError::RankMismatch {
            what: "new top dimensions, each produced once",
            got: next,
            expected: New::USIZE,
        });
    }
    let mut used = GenericArray::<u8, Top>::default();
    let mut outside = false;
    new.for_each_lower(&mut |ids| {
        for &k in ids {
            match used.get_mut(k) {
                Some(u) => *u += 1,
                None => outside = true,
            }
        }
    });
    if outside || used.iter().any(|&n| n != 1) {
        let got = used.iter().map(|&n| n as usize).sum();
        return Err(LayoutError::RankMismatch {
            what: "old top dimensions, each consumed once",
            got,
            expected: Top::USIZE,
        });
    }
    let new = Renumbered(new.relabel(&|k| old_top[k], &|p| order[p]));
    TensorAdaptor::new(Chain(new, old.stages), order, old.bottom)
}

/// The adaptor [`chain_tensor_adaptors`] builds: `a1`'s stages on top of `a0`'s.
pub type ChainedAdaptor<S0, S1, H0, H1, Top1, Bottom0, Bottom1> =
    TensorAdaptor<Chain<Renumbered<S1>, S0>, typenum::Diff<Sum<H0, H1>, Bottom1>, Top1, Bottom0>;

/// CK's `chain_tensor_adaptors(a0, a1)`: `a1` read on top of `a0` (`a1`'s bottom dimensions are
/// `a0`'s top dimensions, position by position). `a1`'s other hidden ids move past `a0`'s, as
/// CK's do.
///
/// ```
/// use const_layout::transform::{
///     Merge, PassThrough, Stage, Unmerge, chain_tensor_adaptors, make_single_stage_tensor_adaptor, multi_index,
/// };
/// use typenum::{U1, U2, U3};
/// // The reference's run: the single-stage adaptor pt(4), unmerge(2,3), then merge(2,4,3) on top.
/// let a0 = make_single_stage_tensor_adaptor::<U2, _, U3>((
///     Stage::new(PassThrough::new(4usize), [0], [1]),
///     Stage::new(Unmerge::new((2usize, 3usize)), [1], [0, 2]),
/// ))
/// .unwrap();
/// let a1 = make_single_stage_tensor_adaptor::<U3, _, U1>((Stage::new(Merge::new((2usize, 4usize, 3usize)).unwrap(), [0, 1, 2], [0]),)).unwrap();
/// let c = chain_tensor_adaptors(a0, a1).unwrap();
/// assert_eq!(c.top_ids().as_slice(), &[5]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([5])).as_slice(), &[1, 2]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([13])).as_slice(), &[0, 4]);
/// assert_eq!(c.calculate_bottom_index(&multi_index([23])).as_slice(), &[3, 5]);
/// ```
// The result names both adaptors' parts (seven types); an alias cannot make that shorter.
#[allow(clippy::type_complexity)]
pub fn chain_tensor_adaptors<S0, S1, H0, H1, Top0, Bottom0, Top1>(
    a0: TensorAdaptor<S0, H0, Top0, Bottom0>,
    a1: TensorAdaptor<S1, H1, Top1, Top0>,
) -> Result<ChainedAdaptor<S0, S1, H0, H1, Top1, Bottom0, Top0>, LayoutError>
where
    S0: Stages,
    S1: Stages + Shift,
    H0: ArrayLength + Add<H1>,
    H1: ArrayLength,
    Top0: ArrayLength,
    Bottom0: ArrayLength,
    Top1: ArrayLength,
    Sum<H0, H1>: core::ops::Sub<Top0>,
    typenum::Diff<Sum<H0, H1>, Top0>: ArrayLength,
    S1::UpCount: Add<S0::UpCount>,
    Sum<S1::UpCount, S0::UpCount>: ArrayLength,
{
    let (h0, b1) = (H0::USIZE, Top0::USIZE);
    let (bottom1, top0) = (a1.bottom.clone(), a0.top.clone());
    // a1's bottom ids become a0's top ids; its other ids move past a0's (CK: by
    // max_id(a0) + 1 - min_non_bottom_id(a1), here H0 - (number of a1's bottom ids)).
    let relabel = |id: usize| match bottom1.iter().position(|&b| b == id) {
        Some(k) => top0[k],
        None => id + h0 - b1,
    };
    let top = Ids::<Top1>::from_iter(a1.top.iter().map(|&id| relabel(id)));
    let stages = Renumbered(a1.stages.relabel(&relabel, &relabel));
    TensorAdaptor::new(Chain(stages, a0.stages), top, a0.bottom)
}
