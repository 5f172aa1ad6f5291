//! CK Tile's tensor coordinates: a top index with its whole hidden index cached, moved
//! incrementally (linear transforms add steps, merges carry and borrow, the rest recompute), so a
//! kernel walking a tensor never recomputes the chain from scratch.

use super::MultiIndex;
use super::adaptor::{Stages, TensorAdaptor};
use super::descriptor::{TensorDescriptor, in_range};
use generic_array::ArrayLength;
use typenum::U1;

/// CK's `tensor_adaptor_coordinate` / `tensor_coordinate`: the hidden index of a top index.
///
/// ```
/// use const_layout::transform::{make_naive_tensor_descriptor_packed, make_tensor_coordinate, move_tensor_coordinate, multi_index};
/// // coordinate_movement.rst: packed (4,4), (1,1) at 5, then +(0,1), +(1,0), +(1,1).
/// let d = make_naive_tensor_descriptor_packed((4usize, 4usize)).unwrap();
/// let mut c = make_tensor_coordinate(&d, &multi_index([1, 1]));
/// let mut offsets = vec![c.offset()];
/// for step in [[0, 1], [1, 0], [1, 1]] {
///     move_tensor_coordinate(&d, &mut c, &multi_index(step));
///     offsets.push(c.offset());
/// }
/// assert_eq!(offsets, [5, 6, 10, 15]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorCoordinate<H: ArrayLength> {
    hidden: MultiIndex<H>,
}

impl<H: ArrayLength> TensorCoordinate<H> {
    /// The whole hidden index (CK's `get_hidden_index`).
    pub fn hidden_index(&self) -> &MultiIndex<H> {
        &self.hidden
    }

    /// The offset (hidden dimension 0) of a descriptor's coordinate.
    #[inline(always)]
    pub fn offset(&self) -> isize {
        self.hidden[0]
    }

    /// The top index under `adaptor`.
    pub fn index<S: Stages, Top: ArrayLength, Bottom: ArrayLength>(
        &self,
        adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    ) -> MultiIndex<Top> {
        let mut out = MultiIndex::<Top>::default();
        for (o, &id) in out.iter_mut().zip(adaptor.top_ids().iter()) {
            *o = self.hidden[id];
        }
        out
    }

    /// Whether the coordinate is in range and maps through no padding under `desc` (CK's
    /// `coordinate_has_valid_offset`).
    #[inline(always)]
    pub fn is_valid<S: Stages, Top: ArrayLength>(&self, desc: &TensorDescriptor<S, H, Top>) -> bool {
        in_range(&self.index(desc.adaptor()), desc.lengths())
            && self.is_valid_assuming_top_index_is_valid(desc)
    }

    /// Whether no padding is crossed, the top index assumed in range (CK's
    /// `coordinate_has_valid_offset_assuming_top_index_is_valid`).
    #[inline(always)]
    pub fn is_valid_assuming_top_index_is_valid<S: Stages, Top: ArrayLength>(
        &self,
        desc: &TensorDescriptor<S, H, Top>,
    ) -> bool {
        S::ALWAYS_VALID || desc.adaptor().stages().is_valid(&self.hidden)
    }
}

/// CK's `make_tensor_coordinate` (and `make_tensor_adaptor_coordinate` on a descriptor's adaptor).
#[inline(always)]
pub fn make_tensor_coordinate<S: Stages, H: ArrayLength, Top: ArrayLength>(
    desc: &TensorDescriptor<S, H, Top>,
    top: &MultiIndex<Top>,
) -> TensorCoordinate<H> {
    TensorCoordinate { hidden: desc.adaptor().calculate_hidden_index(top) }
}

/// CK's `make_tensor_adaptor_coordinate`: the hidden index of a top index under any adaptor
/// (moved with [`move_adaptor_coordinate`]).
///
/// ```
/// use const_layout::transform::{Merge, Stage, make_single_stage_tensor_adaptor, make_tensor_adaptor_coordinate, move_adaptor_coordinate, multi_index};
/// let a = make_single_stage_tensor_adaptor::<typenum::U2, _, typenum::U1>((Stage::new(Merge::new((4usize, 5usize)).unwrap(), [0, 1], [0]),)).unwrap();
/// let mut c = make_tensor_adaptor_coordinate(&a, &multi_index([9]));
/// let step = move_adaptor_coordinate(&a, &mut c, &multi_index([3]));
/// assert_eq!((c.index(&a)[0], step.as_slice()), (12, &[1, -2][..]));
/// ```
#[inline(always)]
pub fn make_tensor_adaptor_coordinate<S: Stages, H: ArrayLength, Top: ArrayLength, Bottom: ArrayLength>(
    adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    top: &MultiIndex<Top>,
) -> TensorCoordinate<H> {
    TensorCoordinate { hidden: adaptor.calculate_hidden_index(top) }
}

/// CK's `move_tensor_coordinate`: add `step` to the top index and update the hidden index
/// incrementally (linear transforms add steps, merges carry and borrow, the others recompute from
/// their new upper index). Returns the step of the offset. Always equal to making the coordinate
/// afresh.
#[inline(always)]
pub fn move_tensor_coordinate<S: Stages, H: ArrayLength, Top: ArrayLength>(
    desc: &TensorDescriptor<S, H, Top>,
    coord: &mut TensorCoordinate<H>,
    step: &MultiIndex<Top>,
) -> isize {
    move_adaptor_coordinate::<S, H, Top, U1>(desc.adaptor(), coord, step)[0]
}

/// CK's `move_tensor_adaptor_coordinate`: returns the step of the bottom index.
#[inline(always)]
pub fn move_adaptor_coordinate<S: Stages, H: ArrayLength, Top: ArrayLength, Bottom: ArrayLength>(
    adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    coord: &mut TensorCoordinate<H>,
    step: &MultiIndex<Top>,
) -> MultiIndex<Bottom> {
    let mut diff = MultiIndex::<H>::default();
    for (&id, &s) in adaptor.top_ids().iter().zip(step.iter()) {
        diff[id] = s;
        coord.hidden[id] += s;
    }
    adaptor.stages().update(&mut coord.hidden, &mut diff);
    let mut out = MultiIndex::<Bottom>::default();
    for (o, &id) in out.iter_mut().zip(adaptor.bottom_ids().iter()) {
        *o = diff[id];
    }
    out
}
