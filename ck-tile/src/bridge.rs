//! Between CuTe layouts and CK descriptors.
//!
//! A flat CuTe layout `(s0,s1,..):(d0,d1,..)` is CK's naive descriptor of the same lengths and
//! strides: the same offset for every coordinate. The other way, a descriptor is a CuTe layout
//! when its offset function is one: zero at the origin, a sum over the top dimensions, and along
//! each top dimension a (possibly nested) CuTe mode, the colexicographic reading of CK's row-major
//! merges. That is decided by evaluating the descriptor, exactly (on descriptors of up to 2^20
//! elements); a descriptor with padding is never a layout (a layout has no invalid positions).
//!
//! Which layout kinds ([`AnyLayout`](crate::AnyLayout)) each direction takes: a descriptor's
//! number of top dimensions is a type (`Dims<K>`), so only typed [`Layout`]s become descriptors,
//! their rank being a type too; a static algebra result
//! ([`Computed<E>`](crate::algebra::computed::Computed)) keeps its structure in a
//! constant, and a swizzled layout has no CK transform here that computes it (CK's `xor`
//! transform is a different function), so neither does. The way back gives a [`DynLayout`],
//! which is an `AnyLayout` like the others.

use super::MultiIndex;
use super::TransformError;
use super::adaptor::Stages;
use super::cute::{CuteLayout, TopModes};
use super::descriptor::{
    NaiveDescriptor, SingleTransformDescriptor, TensorDescriptor, make_naive_tensor_descriptor,
};
use super::ids::Sequence;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::int_tuple::ToArray;
use crate::layout::Crd2Idx;
use crate::layout::{Layout, LayoutShape};
use const_layout_core::error::LayoutError;
use core::ops::Add;
use generic_array::ArrayLength;
use typenum::{Sum, U1};

/// The largest descriptor [`descriptor_to_layout`] evaluates.
pub const MAX_BRIDGE_SIZE: isize = 1 << 20;

/// A flat CuTe layout as CK's naive tensor descriptor (one `embed`, CK's own transform): top
/// index = the layout's coordinate, the same offsets, element space size = cosize (for
/// non-negative strides). Any layout: [`layout_to_descriptor`].
///
/// ```
/// use const_layout::ck_tile::{layout_to_naive_descriptor as layout_to_descriptor, multi_index};
/// use const_layout::{C, make_layout};
/// let l = make_layout((C::<4>, 6usize), (C::<1>, 5isize)).unwrap();
/// let d = layout_to_descriptor(&l).unwrap();
/// assert_eq!(d.calculate_offset(&multi_index([3, 2])), l.crd2idx((3usize, 2usize)));
/// assert_eq!(d.element_space_size(), l.cosize() as isize);
/// ```
pub fn layout_to_naive_descriptor<S, D>(
    layout: &Layout<S, D>,
) -> Result<NaiveDescriptor<S, D>, TransformError>
where
    S: ToArray + LayoutShape<D>,
    D: ToArray<Len = S::Len>,
    U1: Add<S::Len>,
    Sum<U1, S::Len>: ArrayLength,
{
    make_naive_tensor_descriptor(layout.shape(), layout.stride())
}

/// The descriptor [`layout_to_descriptor`] builds.
pub type LayoutDescriptor<S, D> = SingleTransformDescriptor<CuteLayout<S, D>, <S as TopModes>::Count>;

/// Any CuTe layout (nested, static or runtime) as a CK descriptor: one [`CuteLayout`] transform
/// from the layout's top-level modes to the offset, so the top index is CuTe's flat coordinate
/// (one 1-D coordinate per mode) and every offset is the layout's; the element space size is the
/// cosize (for non-negative strides).
///
/// ```
/// use const_layout::ck_tile::{layout_to_descriptor, descriptor_to_layout, multi_index};
/// use const_layout::layout;
/// let l = layout!((4,(2,3)):(3,(1,8)));
/// let d = layout_to_descriptor(&l).unwrap();
/// assert_eq!(d.calculate_offset(&multi_index([1, 5])), l.crd2idx((1usize, 5usize)));
/// assert_eq!(d.element_space_size(), 3 * 3 + 1 + 2 * 8 + 1);
/// assert_eq!(descriptor_to_layout(&d).unwrap().to_string(), "(4,(2,3)):(3,(1,8))");
/// ```
pub fn layout_to_descriptor<S, D>(layout: &Layout<S, D>) -> Result<LayoutDescriptor<S, D>, TransformError>
where
    S: TopModes + LayoutShape<D>,
    D: IntTuple,
    S::Coord: Crd2Idx<S, D>,
    U1: Add<S::Count>,
    Sum<U1, S::Count>: ArrayLength,
{
    let space = layout.cosize().value();
    Ok(super::descriptor::single_transform(CuteLayout::new(*layout), space))
}

/// A CK descriptor as a CuTe layout (runtime-structured, one mode per top dimension), or the
/// error naming the transform that prevents it.
///
/// ```
/// use const_layout::sequence;
/// use const_layout::ck_tile::{
///     Merge, Stage, descriptor_to_layout, make_naive_tensor_descriptor, transform_tensor_descriptor,
/// };
/// // (4,6):(6,1) row-major, its two dimensions merged: the merged dimension reads them
/// // row-major, which is CuTe's colexicographic mode (6,4):(1,6).
/// let d = make_naive_tensor_descriptor((4usize, 6usize), (6isize, 1isize)).unwrap();
/// let m = transform_tensor_descriptor(d, (Stage::new(Merge::new((4usize, 6usize)).unwrap(), sequence![0, 1], sequence![0]),));
/// assert_eq!(descriptor_to_layout(&m).unwrap().to_string(), "(24):(1)");
/// ```
pub fn descriptor_to_layout<S: Stages, H: ArrayLength, Top: Sequence>(
    desc: &TensorDescriptor<S, H, Top>,
) -> Result<DynLayout, TransformError> {
    // The transform to blame: the first that can invalidate, else the first non-linear one.
    let (mut padding, mut nonlinear) = (None, None);
    desc.adaptor().stages().for_each_transform(&mut |name, always_valid| {
        if !always_valid && padding.is_none() {
            padding = Some(name);
        }
        if matches!(name, "merge" | "merge_v3_division_mod" | "modulo" | "xor" | "offset" | "freeze")
            && nonlinear.is_none()
        {
            nonlinear = Some(name);
        }
    });
    if let Some(transform) = padding {
        return Err(TransformError::NotALayout {
            transform,
            why: "its padded positions are invalid, and a layout has none",
        });
    }
    let blame = |why| TransformError::NotALayout { transform: nonlinear.unwrap_or("embed"), why };
    let lengths = desc.lengths().clone();
    let size = lengths
        .iter()
        .try_fold(1isize, |p, &l| p.checked_mul(l))
        .ok_or(TransformError::Layout(LayoutError::SizeOverflow))?;
    if size > MAX_BRIDGE_SIZE {
        return Err(TransformError::Layout(LayoutError::TooLarge));
    }
    let at = |top: &MultiIndex<Top::Len>| desc.calculate_offset(top);
    let origin = MultiIndex::<Top::Len>::default();
    if at(&origin) != 0 {
        return Err(blame("the offset of the origin is not 0"));
    }
    // Along each top dimension, the offsets as a CuTe mode, found greedily and then checked.
    let mut modes = [DynIntTuple::int(DynInt::new_runtime(1)); const_layout_cute::MAX_RANK];
    let mut strides = [DynIntTuple::int(DynInt::new_runtime(0)); const_layout_cute::MAX_RANK];
    if lengths.len() > const_layout_cute::MAX_RANK {
        return Err(TransformError::Layout(LayoutError::TooLarge));
    }
    for (i, &len) in lengths.iter().enumerate() {
        let offset = |k: isize| {
            let mut top = origin.clone();
            top[i] = k;
            at(&top)
        };
        let (shape, stride) = crate::algebra::fit::fit_mode(len, &offset)?
            .ok_or(blame("a top dimension's offsets are no CuTe mode"))?;
        modes[i] = shape;
        strides[i] = stride;
    }
    let layout = DynLayout::new(
        DynIntTuple::tuple(&modes[..lengths.len()])?,
        DynIntTuple::tuple(&strides[..lengths.len()])?,
    )?;
    // The offsets add up over the dimensions: every index checked.
    let mut top = origin.clone();
    for flat in 0..size {
        let mut rest = flat;
        let mut expected = 0;
        for (i, &len) in lengths.iter().enumerate() {
            top[i] = rest % len;
            rest /= len;
            expected += layout.mode(i).map_or(0, |m| m.offset(top[i]));
        }
        if at(&top) != expected {
            return Err(blame("its offsets are not a sum over the top dimensions"));
        }
    }
    Ok(layout)
}
