//! CK Tile's tensor descriptors: an adaptor with one bottom dimension (hidden id 0, the linear
//! offset into memory) and the allocation's extent, the *element space size*.

use super::TransformError;
use super::adaptor::{Chain, OffsetId, Relabel, Stage, Stages, TensorAdaptor, transform_tensor_adaptor};
use super::ids::{Fresh, Id, Mapped, Range, Same, Sequence, ShiftBy, TopOf, WiredOnto};
use super::{Embed, MultiIndex, Offset, SafeVector, SafeVectors, Unmerge, values_of};
use crate::algebra::typed::FlatTuple;
use crate::int::Int;
use crate::int_tuple::{IntTuple, ToArray};
use const_layout_core::error::LayoutError;
use core::ops::Add;
use generic_array::ArrayLength;
use typenum::{Sum, U1, Unsigned};

/// CK's `tensor_descriptor`: the offset of a top index, and whether it is valid (in range and not
/// in padding). A padded position is reported invalid; its offset is never to be used silently.
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor, multi_index};
/// let d = make_naive_tensor_descriptor((3usize, 4usize), (8isize, 1isize)).unwrap();
/// assert_eq!(d.calculate_offset(&multi_index([1, 2])), 10);
/// assert_eq!(d.element_space_size(), 20); // CK's code (its docs' comment says 24)
/// assert!(d.is_valid(&multi_index([2, 3])) && !d.is_valid(&multi_index([3, 0])));
/// ```
#[derive(Clone, Debug)]
pub struct TensorDescriptor<S, H: ArrayLength, Top: Sequence> {
    pub(super) adaptor: TensorAdaptor<S, H, Top, OffsetId>,
    pub(super) element_space_size: isize,
    pub(super) guaranteed: SafeVectors<H>,
}

impl<S: Stages, H: ArrayLength, Top: Sequence> TensorDescriptor<S, H, Top> {
    /// CK's `make_tensor_descriptor_from_adaptor`: an adaptor whose one bottom dimension is hidden
    /// dimension 0, and the element space size. Nothing is guaranteed about vector access.
    pub fn from_adaptor(adaptor: TensorAdaptor<S, H, Top, OffsetId>, element_space_size: isize) -> Self {
        TensorDescriptor { adaptor, element_space_size, guaranteed: SafeVectors::default() }
    }

    /// What is guaranteed about vector access along each hidden dimension (CK's
    /// `GuaranteedVectorLengths` / `GuaranteedVectorStrides`, `None` for CK's `-1`); the
    /// inference of [`Self::get_top_dimension_safe_vector_length_strides`] starts from it.
    pub fn guaranteed_vectors(&self) -> &SafeVectors<H> {
        &self.guaranteed
    }

    /// What each top dimension guarantees about vector access (CK's
    /// `get_top_dimension_safe_vector_length_strides`), inferred from the guaranteed vectors by
    /// every transform from the bottom up; see [`SafeVector`] for what it promises.
    ///
    /// ```
    /// use const_layout::ck_tile::{make_naive_tensor_descriptor_packed, SafeVector};
    /// use const_layout::C;
    /// // Static lengths: rows of 8 contiguous elements.
    /// let d = make_naive_tensor_descriptor_packed((C::<4>, C::<8>)).unwrap();
    /// let v = d.get_top_dimension_safe_vector_length_strides();
    /// assert_eq!((v[0], v[1]), (SafeVector::UNKNOWN, SafeVector::new(8, 1)));
    /// // Runtime lengths: nothing is known (CK's rule), unless guaranteed.
    /// let d = make_naive_tensor_descriptor_packed((4usize, 8usize)).unwrap();
    /// assert_eq!(d.get_top_dimension_safe_vector_length_strides()[1], SafeVector { length: None, stride: Some(1) });
    /// ```
    pub fn get_top_dimension_safe_vector_length_strides(&self) -> SafeVectors<Top::Len> {
        self.adaptor.get_top_dimension_safe_vector_length_strides(&self.guaranteed)
    }

    /// The adaptor.
    pub fn adaptor(&self) -> &TensorAdaptor<S, H, Top, OffsetId> {
        &self.adaptor
    }

    /// The extent of the allocation the offsets index (CK's `get_element_space_size`).
    pub fn element_space_size(&self) -> isize {
        self.element_space_size
    }

    /// The lengths of the top dimensions.
    pub fn lengths(&self) -> &MultiIndex<Top::Len> {
        self.adaptor.top_lengths()
    }

    /// CK's `calculate_offset`. At an invalid index (see [`Self::is_valid`]) the number means
    /// nothing: CK's gives negative or aliasing offsets there.
    #[inline(always)]
    pub fn calculate_offset(&self, top: &MultiIndex<Top::Len>) -> isize {
        self.adaptor.calculate_bottom_index(top)[0]
    }

    /// Whether the top index is in range and maps through no padding (CK's
    /// `coordinate_has_valid_offset`).
    #[inline(always)]
    pub fn is_valid(&self, top: &MultiIndex<Top::Len>) -> bool {
        in_range(top, self.lengths())
            && (S::ALWAYS_VALID || self.adaptor.stages().is_valid(&self.adaptor.calculate_hidden_index(top)))
    }

    /// The offset of a valid top index, or `None` (in range but padding, or out of range).
    #[inline(always)]
    pub fn offset(&self, top: &MultiIndex<Top::Len>) -> Option<isize> {
        let hidden = self.adaptor.calculate_hidden_index(top);
        (in_range(top, self.lengths()) && (S::ALWAYS_VALID || self.adaptor.stages().is_valid(&hidden)))
            .then_some(hidden[0])
    }
}

/// Every component within `0..length`.
#[inline(always)]
pub(super) fn in_range<N: ArrayLength>(top: &MultiIndex<N>, lengths: &MultiIndex<N>) -> bool {
    top.iter().zip(lengths.iter()).all(|(&i, &l)| 0 <= i && i < l)
}

/// The descriptor of one transform `T` from the offset (hidden 0) to `T`'s upper dimensions
/// (hidden `1..=n`, the top ones): what the naive makers build.
pub type SingleTransformDescriptor<T, N> = TensorDescriptor<
    Stage<T, Mapped<(Id<0>,), Same>, Mapped<Range<N>, ShiftBy<U1>>>,
    Sum<U1, N>,
    Mapped<Range<N>, ShiftBy<U1>>,
>;

/// The descriptor [`make_naive_tensor_descriptor`] builds.
pub type NaiveDescriptor<Ls, Ds> = SingleTransformDescriptor<Embed<Ls, Ds>, <Ls as ToArray>::Len>;

/// The descriptor [`make_naive_tensor_descriptor_packed`] builds.
pub type PackedDescriptor<Ls> = SingleTransformDescriptor<Unmerge<Ls>, <Ls as ToArray>::Len>;

/// The descriptor [`transform_tensor_descriptor`] builds from a descriptor `(S, H, Top)` and the
/// new stages `N`.
pub type TransformedDescriptor<N, S, H, Top> = TensorDescriptor<
    Chain<<N as Relabel<TopOf<Top>, Fresh<N, H>>>::Output, S>,
    Sum<H, <N as Stages>::UpCount>,
    Mapped<Range<<N as Stages>::UpCount>, Fresh<N, H>>,
>;

/// The single-transform descriptor of `transform` (lower: the offset; upper: the top dimensions),
/// wired as `make_single_stage_tensor_adaptor` wires it.
pub(super) fn single_transform<T: super::Transform<Low = U1>>(
    transform: T,
    space: isize,
) -> SingleTransformDescriptor<T, T::Up>
where
    U1: Add<T::Up>,
    Sum<U1, T::Up>: ArrayLength,
{
    TensorDescriptor::from_adaptor(TensorAdaptor::built(Stage::typed(transform)), space)
}

/// CK's `make_naive_tensor_descriptor(lengths, strides)`: one `embed`; the element space size is
/// `1 + sum((length - 1) * stride)`. Nothing is guaranteed about vector access (CK's `embed`
/// infers nothing): see [`make_naive_tensor_descriptor_guaranteed`].
pub fn make_naive_tensor_descriptor<Ls, Ds>(
    lengths: Ls,
    strides: Ds,
) -> Result<NaiveDescriptor<Ls, Ds>, TransformError>
where
    Ls: ToArray,
    Ds: ToArray<Len = Ls::Len>,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    make_naive_tensor_descriptor_guaranteed(lengths, strides, SafeVector::UNKNOWN)
}

/// CK's `make_naive_tensor_descriptor(lengths, strides, GuaranteedLastDimensionVectorLength,
/// GuaranteedLastDimensionVectorStride)`: the caller vouches for vector access along the last
/// dimension (typically a runtime length known to be a multiple of the vector). CK takes the
/// promise on trust; here it is checked against the values, so it cannot make a copy wrong: the
/// vector length must divide the last length and the vector stride be the last stride
/// ([`TransformError::VectorGuarantee`] otherwise).
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_guaranteed, SafeVector};
/// let (m, n, ld) = (6usize, 64usize, 72isize);
/// let d = make_naive_tensor_descriptor_guaranteed((m, n), (ld, 1isize), SafeVector::new(8, 1)).unwrap();
/// assert_eq!(d.get_top_dimension_safe_vector_length_strides()[1], SafeVector::new(8, 1));
/// let wrong = make_naive_tensor_descriptor_guaranteed((m, 60usize), (ld, 1isize), SafeVector::new(8, 1));
/// assert!(wrong.is_err());
/// ```
pub fn make_naive_tensor_descriptor_guaranteed<Ls, Ds>(
    lengths: Ls,
    strides: Ds,
    last_dimension: SafeVector,
) -> Result<NaiveDescriptor<Ls, Ds>, TransformError>
where
    Ls: ToArray,
    Ds: ToArray<Len = Ls::Len>,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    let (l, d) = (values_of(&lengths), values_of(&strides));
    let space = element_space_size(&l, &d)?;
    let n = Ls::Len::USIZE;
    if n > 0 {
        check_guarantee(n - 1, l[n - 1], d[n - 1], last_dimension)?;
    }
    let mut desc = single_transform(Embed::new(lengths, strides), space);
    // Hidden dimension n (the last top one) carries the guarantee.
    if let Some(g) = desc.guaranteed.get_mut(n) {
        *g = last_dimension;
    }
    Ok(desc)
}

/// `1 + sum((length - 1) * stride)` (CK's `calculate_element_space_size_impl`), checked.
fn element_space_size<N: ArrayLength>(
    lengths: &MultiIndex<N>,
    strides: &MultiIndex<N>,
) -> Result<isize, TransformError> {
    let mut space = 1isize;
    for (leaf, (&len, &stride)) in lengths.iter().zip(strides.iter()).enumerate() {
        if len <= 0 {
            return Err(TransformError::Layout(LayoutError::NonPositiveExtent { leaf, value: len }));
        }
        space = (len - 1)
            .checked_mul(stride)
            .and_then(|x| space.checked_add(x))
            .ok_or(TransformError::Layout(LayoutError::CosizeOverflow))?;
    }
    Ok(space)
}

/// A guarantee about the top dimension `dim` of this length and stride holds: a positive vector
/// length that divides the length, the stride itself.
fn check_guarantee(dim: usize, length: isize, stride: isize, g: SafeVector) -> Result<(), TransformError> {
    let length_holds = g.length.is_none_or(|v| v > 0 && length % v == 0);
    let stride_holds = g.stride.is_none_or(|s| s == stride);
    if length_holds && stride_holds {
        Ok(())
    } else {
        Err(TransformError::VectorGuarantee {
            dim,
            length,
            stride,
            vector_length: g.length,
            vector_stride: g.stride,
        })
    }
}

/// Whether every integer of an int tuple is static.
fn all_static<T: IntTuple>(t: &T) -> bool {
    let mut all = true;
    t.for_each_leaf(&mut |leaf| all &= leaf.is_static);
    all
}

/// CK's `make_naive_tensor_descriptor_packed(lengths)`: one `unmerge` (row-major); the element
/// space size is the product of the lengths.
///
/// Vector access follows the newest CK (`tensor_descriptor.hpp` @0b42f814; the older snapshot
/// guaranteed nothing but the caller's hint): the offset dimension is contiguous over the whole
/// space when every length is static, and the last dimension is contiguous over its length when
/// that is static, so with static lengths the last top dimension has safe length = its length,
/// stride 1.
pub fn make_naive_tensor_descriptor_packed<Ls>(lengths: Ls) -> Result<PackedDescriptor<Ls>, TransformError>
where
    Ls: ToArray,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    make_naive_tensor_descriptor_packed_guaranteed(lengths, None)
}

/// CK's `make_naive_tensor_descriptor_packed(lengths, GuaranteedLastDimensionVectorLength)`: the
/// caller vouches that the last length is a multiple of `vector_length` (checked:
/// [`TransformError::VectorGuarantee`] otherwise). Where the last length is static, CK's newest code
/// takes `max(last length, vector_length)`, which is the last length for every guarantee that
/// holds; where it is runtime, CK's newest code drops the guarantee, which defeats its purpose
/// (decision 4): here it is kept.
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_packed_guaranteed, SafeVector};
/// let d = make_naive_tensor_descriptor_packed_guaranteed((3usize, 64usize), Some(8)).unwrap();
/// assert_eq!(d.get_top_dimension_safe_vector_length_strides()[1], SafeVector::new(8, 1));
/// assert!(make_naive_tensor_descriptor_packed_guaranteed((3usize, 60usize), Some(8)).is_err());
/// ```
pub fn make_naive_tensor_descriptor_packed_guaranteed<Ls>(
    lengths: Ls,
    vector_length: Option<isize>,
) -> Result<PackedDescriptor<Ls>, TransformError>
where
    Ls: ToArray,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    let l = values_of(&lengths);
    let mut space = 1isize;
    for (leaf, &len) in l.iter().enumerate() {
        if len <= 0 {
            return Err(TransformError::Layout(LayoutError::NonPositiveExtent { leaf, value: len }));
        }
        space = space.checked_mul(len).ok_or(TransformError::Layout(LayoutError::SizeOverflow))?;
    }
    let n = Ls::Len::USIZE;
    let last = (n > 0).then(|| l[n - 1]);
    if let Some(len) = last {
        check_guarantee(n - 1, len, 1, SafeVector { length: vector_length, stride: None })?;
    }
    let static_space = all_static(&lengths).then_some(space);
    let static_last = super::affine::last_static(&lengths);
    let mut desc = single_transform(Unmerge::new(lengths), space);
    desc.guaranteed[0] = SafeVector { length: static_space, stride: Some(1) };
    if n > 0 {
        desc.guaranteed[n] = SafeVector { length: static_last.or(vector_length), stride: Some(1) };
    }
    Ok(desc)
}

/// The descriptor [`make_naive_tensor_descriptor_aligned`] builds.
pub type AlignedDescriptor<Ls> = NaiveDescriptor<Ls, <Ls as FlatTuple>::Runtime>;

/// CK's `make_naive_tensor_descriptor_aligned(lengths, align)`: row-major, the last dimension
/// contiguous and every row starting at a multiple of `align` (the second-to-last stride is the
/// last length rounded up to a multiple of `align`, the others the products of the later
/// lengths with it); the element space size is the naive one (`1 + sum((length - 1) * stride)`,
/// not rows times the padded row: CK's docs say 32 for `(4,5)` aligned to 8, its code gives 29).
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_aligned, multi_index};
/// let d = make_naive_tensor_descriptor_aligned((4usize, 5usize), 8usize).unwrap();
/// assert_eq!((d.calculate_offset(&multi_index([1, 0])), d.element_space_size()), (8, 29));
/// let d = make_naive_tensor_descriptor_aligned((2usize, 3usize, 5usize), 8usize).unwrap();
/// assert_eq!((d.calculate_offset(&multi_index([1, 1, 1])), d.element_space_size()), (24 + 8 + 1, 45));
/// ```
pub fn make_naive_tensor_descriptor_aligned<Ls, A>(
    lengths: Ls,
    align: A,
) -> Result<AlignedDescriptor<Ls>, TransformError>
where
    Ls: ToArray + FlatTuple,
    Ls::Runtime: ToArray<Len = Ls::Len>,
    A: Int,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    let (l, align) = (values_of(&lengths), align.value());
    if let Some(leaf) = l.iter().position(|&len| len <= 0) {
        return Err(TransformError::Layout(LayoutError::NonPositiveExtent { leaf, value: l[leaf] }));
    }
    if align <= 0 {
        return Err(TransformError::NotPositive {
            what: "make_naive_tensor_descriptor_aligned: the alignment",
            value: align,
        });
    }
    let n = l.len();
    let mut strides = MultiIndex::<Ls::Len>::default();
    if n > 0 {
        strides[n - 1] = 1;
    }
    if n > 1 {
        // integer_least_multiple(last length, align), then the products of the lengths between.
        let mut stride = l[n - 1]
            .checked_add(align - 1)
            .map(|x| x / align * align)
            .ok_or(TransformError::Layout(LayoutError::StrideOverflow { leaf: n - 2 }))?;
        for i in (0..n - 1).rev() {
            strides[i] = stride;
            if i > 0 {
                stride = stride
                    .checked_mul(l[i])
                    .ok_or(TransformError::Layout(LayoutError::StrideOverflow { leaf: i - 1 }))?;
            }
        }
    }
    make_naive_tensor_descriptor(lengths, <Ls as FlatTuple>::runtime(strides.as_slice()))
}

/// The descriptor [`make_naive_tensor_descriptor_with_offset`] builds: the `embed` (hidden 1 to
/// the top dimensions `2..`) over the `offset` (hidden 0 to 1), as CK wires it.
pub type OffsetDescriptor<Ls, Ds> = TensorDescriptor<
    Chain<
        Stage<Embed<Ls, Ds>, (Id<1>,), Mapped<Range<<Ls as ToArray>::Len>, ShiftBy<typenum::U2>>>,
        Stage<Offset<isize, isize>, (Id<0>,), (Id<1>,)>,
    >,
    Sum<typenum::U2, <Ls as ToArray>::Len>,
    Mapped<Range<<Ls as ToArray>::Len>, ShiftBy<typenum::U2>>,
>;

/// CK's `make_naive_tensor_descriptor_with_offset(lengths, strides, offset)`: the naive
/// descriptor's offsets moved by `offset` (an `offset` transform under the `embed`); the element
/// space size is the naive one, without the offset (CK's rule: the buffer is assumed to start
/// `offset` elements earlier).
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_with_offset, make_tensor_coordinate, multi_index};
/// let d = make_naive_tensor_descriptor_with_offset((3usize, 4usize), (4isize, 1isize), 100isize).unwrap();
/// assert_eq!((d.calculate_offset(&multi_index([2, 3])), d.element_space_size()), (111, 12));
/// let c = make_tensor_coordinate(&d, &multi_index([2, 3]));
/// assert_eq!(c.hidden_index().as_slice(), &[111, 11, 2, 3]);
/// ```
pub fn make_naive_tensor_descriptor_with_offset<Ls, Ds, O>(
    lengths: Ls,
    strides: Ds,
    offset: O,
) -> Result<OffsetDescriptor<Ls, Ds>, TransformError>
where
    Ls: ToArray,
    Ds: ToArray<Len = Ls::Len>,
    O: Int,
    typenum::U2: Add<Ls::Len>,
    Sum<typenum::U2, Ls::Len>: ArrayLength,
    Ls::Len: Add<U1>,
    Sum<Ls::Len, U1>: ArrayLength,
{
    let space = element_space_size(&values_of(&lengths), &values_of(&strides))?;
    let stages =
        Chain(Stage::typed(Embed::new(lengths, strides)), Stage::typed(Offset::new(space, offset.value())));
    Ok(TensorDescriptor::from_adaptor(TensorAdaptor::built(stages), space))
}

/// CK's `transform_tensor_descriptor`: new transforms on top of a descriptor (see
/// [`transform_tensor_adaptor`]: their sequences are positions, old top dimensions below, new
/// ones above, each once, or it does not compile); the element space size and the old hidden
/// dimensions' guarantees are kept.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_packed, transform_tensor_descriptor, PassThrough, Stage, multi_index};
/// let d = make_naive_tensor_descriptor_packed((3usize, 4usize)).unwrap();
/// // The transpose: old dimension 1 becomes new 0.
/// let t = transform_tensor_descriptor(d, (
///     Stage::new(PassThrough::new(4usize), sequence![1], sequence![0]),
///     Stage::new(PassThrough::new(3usize), sequence![0], sequence![1]),
/// ));
/// assert_eq!(t.calculate_offset(&multi_index([3, 2])), 2 * 4 + 3);
/// ```
pub fn transform_tensor_descriptor<S, H, Top, N>(
    old: TensorDescriptor<S, H, Top>,
    new: N,
) -> TransformedDescriptor<N, S, H, Top>
where
    S: Stages,
    H: ArrayLength + Add<N::UpCount>,
    Top: Sequence,
    N: WiredOnto<Top::Len> + Relabel<TopOf<Top>, Fresh<N, H>> + 'static,
    Sum<H, N::UpCount>: ArrayLength,
    Chain<<N as Relabel<TopOf<Top>, Fresh<N, H>>>::Output, S>: Stages,
{
    let space = old.element_space_size;
    let mut desc = TensorDescriptor::from_adaptor(transform_tensor_adaptor(old.adaptor, new), space);
    // CK: the old hidden dimensions keep their guarantees, the new ones have none.
    for (g, o) in desc.guaranteed.iter_mut().zip(old.guaranteed.iter()) {
        *g = *o;
    }
    desc
}
