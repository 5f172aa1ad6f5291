//! CK Tile's tensor descriptors: an adaptor with one bottom dimension (hidden id 0, the linear
//! offset into memory) and the allocation's extent, the *element space size*.

use super::adaptor::{
    Chain, Renumbered, Shift, Stage, Stages, TensorAdaptor, make_single_stage_tensor_adaptor,
    transform_tensor_adaptor,
};
use super::{Embed, MultiIndex, Unmerge, values_of};
use crate::error::LayoutError;
use crate::int_tuple::ToArray;
use core::ops::Add;
use generic_array::ArrayLength;
use typenum::{Sum, U1, Unsigned};

/// CK's `tensor_descriptor`: the offset of a top index, and whether it is valid (in range and not
/// in padding). A padded position is reported invalid; its offset is never to be used silently.
///
/// ```
/// use const_layout::transform::{make_naive_tensor_descriptor, multi_index};
/// let d = make_naive_tensor_descriptor((3usize, 4usize), (8isize, 1isize)).unwrap();
/// assert_eq!(d.calculate_offset(&multi_index([1, 2])), 10);
/// assert_eq!(d.element_space_size(), 20); // CK's code (its docs' comment says 24)
/// assert!(d.is_valid(&multi_index([2, 3])) && !d.is_valid(&multi_index([3, 0])));
/// ```
#[derive(Clone, Debug)]
pub struct TensorDescriptor<S, H: ArrayLength, Top: ArrayLength> {
    adaptor: TensorAdaptor<S, H, Top, U1>,
    element_space_size: isize,
}

impl<S: Stages, H: ArrayLength, Top: ArrayLength> TensorDescriptor<S, H, Top> {
    /// CK's `make_tensor_descriptor_from_adaptor`: an adaptor with one bottom dimension, and the
    /// element space size.
    pub fn from_adaptor(adaptor: TensorAdaptor<S, H, Top, U1>, element_space_size: isize) -> Self {
        TensorDescriptor { adaptor, element_space_size }
    }

    /// The adaptor.
    pub fn adaptor(&self) -> &TensorAdaptor<S, H, Top, U1> {
        &self.adaptor
    }

    /// The extent of the allocation the offsets index (CK's `get_element_space_size`).
    pub fn element_space_size(&self) -> isize {
        self.element_space_size
    }

    /// The lengths of the top dimensions.
    pub fn lengths(&self) -> &MultiIndex<Top> {
        self.adaptor.top_lengths()
    }

    /// CK's `calculate_offset`. At an invalid index (see [`Self::is_valid`]) the number means
    /// nothing: CK's gives negative or aliasing offsets there.
    #[inline(always)]
    pub fn calculate_offset(&self, top: &MultiIndex<Top>) -> isize {
        self.adaptor.calculate_bottom_index(top)[0]
    }

    /// Whether the top index is in range and maps through no padding (CK's
    /// `coordinate_has_valid_offset`).
    #[inline(always)]
    pub fn is_valid(&self, top: &MultiIndex<Top>) -> bool {
        in_range(top, self.lengths())
            && (S::ALWAYS_VALID || self.adaptor.stages().is_valid(&self.adaptor.calculate_hidden_index(top)))
    }

    /// The offset of a valid top index, or `None` (in range but padding, or out of range).
    #[inline(always)]
    pub fn offset(&self, top: &MultiIndex<Top>) -> Option<isize> {
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

/// The descriptor [`make_naive_tensor_descriptor`] builds.
pub type NaiveDescriptor<Ls, Ds> =
    TensorDescriptor<Renumbered<Stage<Embed<Ls, Ds>>>, Sum<U1, <Ls as ToArray>::Len>, <Ls as ToArray>::Len>;

/// The descriptor [`make_naive_tensor_descriptor_packed`] builds.
pub type PackedDescriptor<Ls> =
    TensorDescriptor<Renumbered<Stage<Unmerge<Ls>>>, Sum<U1, <Ls as ToArray>::Len>, <Ls as ToArray>::Len>;

/// The descriptor [`transform_tensor_descriptor`] builds.
pub type TransformedDescriptor<N, S, H, New> = TensorDescriptor<Chain<Renumbered<N>, S>, Sum<H, New>, New>;

/// CK's `make_naive_tensor_descriptor(lengths, strides)`: one `embed`; the element space size is
/// `1 + sum((length - 1) * stride)`.
pub fn make_naive_tensor_descriptor<Ls, Ds>(
    lengths: Ls,
    strides: Ds,
) -> Result<NaiveDescriptor<Ls, Ds>, LayoutError>
where
    Ls: ToArray,
    Ds: ToArray<Len = Ls::Len>,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    let (l, d) = (values_of(&lengths), values_of(&strides));
    let mut space = 1isize;
    for (&len, &stride) in l.iter().zip(d.iter()) {
        if len <= 0 {
            return Err(LayoutError::NonPositiveExtent { leaf: 0, value: len });
        }
        space = (len - 1)
            .checked_mul(stride)
            .and_then(|x| space.checked_add(x))
            .ok_or(LayoutError::CosizeOverflow)?;
    }
    let upper = super::adaptor::Ids::<Ls::Len>::from_iter(0..Ls::Len::USIZE);
    let stage = Stage::from_ids(Embed::new(lengths, strides), super::adaptor::Ids::from([0]), upper);
    Ok(TensorDescriptor::from_adaptor(make_single_stage_tensor_adaptor::<U1, _, Ls::Len>(stage)?, space))
}

/// CK's `make_naive_tensor_descriptor_packed(lengths)`: one `unmerge` (row-major); the element
/// space size is the product of the lengths.
pub fn make_naive_tensor_descriptor_packed<Ls>(lengths: Ls) -> Result<PackedDescriptor<Ls>, LayoutError>
where
    Ls: ToArray,
    U1: Add<Ls::Len>,
    Sum<U1, Ls::Len>: ArrayLength,
{
    let l = values_of(&lengths);
    let mut space = 1isize;
    for &len in l.iter() {
        if len <= 0 {
            return Err(LayoutError::NonPositiveExtent { leaf: 0, value: len });
        }
        space = space.checked_mul(len).ok_or(LayoutError::SizeOverflow)?;
    }
    let upper = super::adaptor::Ids::<Ls::Len>::from_iter(0..Ls::Len::USIZE);
    let stage = Stage::from_ids(Unmerge::new(lengths), super::adaptor::Ids::from([0]), upper);
    Ok(TensorDescriptor::from_adaptor(make_single_stage_tensor_adaptor::<U1, _, Ls::Len>(stage)?, space))
}

/// CK's `transform_tensor_descriptor`: new transforms on top of a descriptor (see
/// [`transform_tensor_adaptor`]); the element space size is kept.
pub fn transform_tensor_descriptor<S, H, Top, N, New>(
    old: TensorDescriptor<S, H, Top>,
    new: N,
) -> Result<TransformedDescriptor<N, S, H, New>, LayoutError>
where
    S: Stages,
    H: ArrayLength + Add<New>,
    Top: ArrayLength,
    N: Stages + Shift,
    New: ArrayLength,
    Sum<H, New>: ArrayLength,
    N::UpCount: Add<S::UpCount>,
    Sum<N::UpCount, S::UpCount>: ArrayLength,
{
    let space = old.element_space_size;
    Ok(TensorDescriptor::from_adaptor(transform_tensor_adaptor(old.adaptor, new)?, space))
}
