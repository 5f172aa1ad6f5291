//! CK Tile's tensor coordinates: a top index with its whole hidden index cached, moved
//! incrementally, so a kernel walking a tensor never recomputes the chain from scratch.
//!
//! A move first takes the carry-free path: linear transforms add their steps, a merge moves only
//! its fastest lower dimension (then every step is what the transforms make of the top step,
//! independent of the index, so a constant step folds to a few additions), the others
//! recompute. If a merge's fastest dimension left its range, the fix-up adds the carries and
//! borrows and what they change below (legacy CK's `Merge_v1_carry_check`; ck_tile's merges
//! divide on every move instead). With the hidden ids in the types the hidden index lives in
//! registers: on the padded convolution input of `benches/ck_move.rs`, 14 instructions a
//! position against 43 to recompute (PERFORMANCE.md).

use super::MultiIndex;
use super::adaptor::{OffsetId, Stages, TensorAdaptor, gather};
use super::descriptor::{TensorDescriptor, in_range};
use super::ids::Sequence;
use generic_array::ArrayLength;

/// CK's `tensor_adaptor_coordinate` / `tensor_coordinate`: the hidden index of a top index.
///
/// ```
/// use const_layout::ck_tile::{make_naive_tensor_descriptor_packed, make_tensor_coordinate, move_tensor_coordinate, multi_index};
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
    #[inline(always)]
    pub fn index<S: Stages, Top: Sequence, Bottom: Sequence>(
        &self,
        _adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    ) -> MultiIndex<Top::Len> {
        gather(&self.hidden, &Top::IDS)
    }

    /// Whether the coordinate is in range and maps through no padding under `desc` (CK's
    /// `coordinate_has_valid_offset`).
    #[inline(always)]
    pub fn is_valid<S: Stages, Top: Sequence>(&self, desc: &TensorDescriptor<S, H, Top>) -> bool {
        in_range(&self.index(desc.adaptor()), desc.lengths())
            && self.is_valid_assuming_top_index_is_valid(desc)
    }

    /// Whether no padding is crossed, the top index assumed in range (CK's
    /// `coordinate_has_valid_offset_assuming_top_index_is_valid`).
    #[inline(always)]
    pub fn is_valid_assuming_top_index_is_valid<S: Stages, Top: Sequence>(
        &self,
        desc: &TensorDescriptor<S, H, Top>,
    ) -> bool {
        S::ALWAYS_VALID || desc.adaptor().stages().is_valid(&self.hidden)
    }
}

/// CK's `make_tensor_coordinate` (and `make_tensor_adaptor_coordinate` on a descriptor's adaptor).
#[inline(always)]
pub fn make_tensor_coordinate<S: Stages, H: ArrayLength, Top: Sequence>(
    desc: &TensorDescriptor<S, H, Top>,
    top: &MultiIndex<Top::Len>,
) -> TensorCoordinate<H> {
    TensorCoordinate { hidden: desc.adaptor().calculate_hidden_index(top) }
}

/// CK's `make_tensor_adaptor_coordinate`: the hidden index of a top index under any adaptor
/// (moved with [`move_adaptor_coordinate`]).
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{Merge, Stage, make_single_stage_tensor_adaptor, make_tensor_adaptor_coordinate, move_adaptor_coordinate, multi_index};
/// let a = make_single_stage_tensor_adaptor((Stage::new(Merge::new((4usize, 5usize)).unwrap(), sequence![0, 1], sequence![0]),));
/// let mut c = make_tensor_adaptor_coordinate(&a, &multi_index([9]));
/// let step = move_adaptor_coordinate(&a, &mut c, &multi_index([3]));
/// assert_eq!((c.index(&a)[0], step.as_slice()), (12, &[1, -2][..]));
/// ```
#[inline(always)]
pub fn make_tensor_adaptor_coordinate<S: Stages, H: ArrayLength, Top: Sequence, Bottom: Sequence>(
    adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    top: &MultiIndex<Top::Len>,
) -> TensorCoordinate<H> {
    TensorCoordinate { hidden: adaptor.calculate_hidden_index(top) }
}

/// CK's `move_tensor_coordinate`: add `step` to the top index and update the hidden index
/// incrementally (the carry-free path, then a merge's carries and borrows if it needs them; see
/// the module). Returns the step of the offset. Always equal to making the coordinate afresh
/// (for top indices in range).
#[inline(always)]
pub fn move_tensor_coordinate<S: Stages, H: ArrayLength, Top: Sequence>(
    desc: &TensorDescriptor<S, H, Top>,
    coord: &mut TensorCoordinate<H>,
    step: &MultiIndex<Top::Len>,
) -> isize {
    move_adaptor_coordinate::<S, H, Top, OffsetId>(desc.adaptor(), coord, step)[0]
}

/// CK's `move_tensor_adaptor_coordinate`: returns the step of the bottom index.
#[inline(always)]
pub fn move_adaptor_coordinate<S: Stages, H: ArrayLength, Top: Sequence, Bottom: Sequence>(
    adaptor: &TensorAdaptor<S, H, Top, Bottom>,
    coord: &mut TensorCoordinate<H>,
    step: &MultiIndex<Top::Len>,
) -> MultiIndex<Bottom::Len> {
    let mut diff = MultiIndex::<H>::default();
    for (k, &s) in step.iter().enumerate() {
        let id = Top::IDS.get(k);
        diff[id] = s;
        coord.hidden[id] += s;
    }
    // The carry-free path: every step folds to what the transforms make of the (usually
    // constant) top step, independent of the index. If a merge carries (rarely: once a row),
    // its carries and their consequences below it are added on what the fast path left.
    if !adaptor.stages().update_without_carry(&mut coord.hidden, &mut diff) {
        let mut fix = MultiIndex::<H>::default();
        adaptor.stages().fix_carries(&mut coord.hidden, &mut fix);
        for (d, f) in diff.iter_mut().zip(fix.iter()) {
            *d += f;
        }
    }
    gather(&diff, &Bottom::IDS)
}
