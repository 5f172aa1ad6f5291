//! A copy between two descriptors' buffers that moves vectors where both descriptors guarantee
//! them: CK's tile windows choose their vector loads and stores from
//! `get_top_dimension_safe_vector_length_strides` (the dimension of stride 1 with the longest
//! safe length); here the vector dimension is the last top dimension, as in a row-major tile.

use super::TransformError;
use super::adaptor::Stages;
use super::descriptor::TensorDescriptor;
use super::ids::Sequence;
use super::{MultiIndex, SafeVector, TensorCoordinate, gcd, make_tensor_coordinate, move_tensor_coordinate};
use const_layout_core::error::LayoutError;
use generic_array::ArrayLength;

/// The elements a run along the last dimension moves as one contiguous slice under this
/// guarantee: its safe length where its stride is 1, else 1.
fn contiguous(v: SafeVector) -> isize {
    match v {
        SafeVector { length: Some(l), stride: Some(1) } if l > 0 => l,
        _ => 1,
    }
}

/// Copy the tensor `src_desc` describes in `src` to the one `dst_desc` describes in `dst`
/// (the same top lengths), in runs along the last top dimension as long as both descriptors'
/// safe vectors allow (the gcd of their contiguous lengths, 1 where a stride is not 1 or nothing
/// is known), each run one `copy_from_slice`. Returns that vector length.
///
/// Padding is CK's: an invalid source element reads as `T::default()` (CK's buffer views read 0),
/// an invalid destination element is not written. A [`SafeVector`] keeps a run all valid or all
/// invalid, so this is decided once per run. Lengths that differ are
/// [`TransformError::LengthMismatch`]; an offset outside a buffer is
/// `TransformError::Layout(LayoutError::IndexOutOfRange)` (no panic; elements before it are already copied).
///
/// ```
/// use const_layout::ck_tile::{
///     copy_descriptor, make_naive_tensor_descriptor_guaranteed, make_naive_tensor_descriptor_packed, SafeVector,
/// };
/// use const_layout::C;
/// // A packed 4x8 tile into rows of 12: rows of 8 are contiguous on both sides.
/// let src_desc = make_naive_tensor_descriptor_packed((C::<4>, C::<8>)).unwrap();
/// let dst_desc = make_naive_tensor_descriptor_guaranteed((4usize, 8usize), (12isize, 1isize), SafeVector::new(8, 1)).unwrap();
/// let src: Vec<u32> = (0..32).collect();
/// let mut dst = vec![0u32; 48];
/// assert_eq!(copy_descriptor(&src_desc, &src, &dst_desc, &mut dst), Ok(8));
/// assert_eq!(&dst[12..20], &src[8..16]);
/// assert_eq!(&dst[8..12], &[0; 4]);
/// ```
pub fn copy_descriptor<T, S0, H0, Top, S1, H1, Top1>(
    src_desc: &TensorDescriptor<S0, H0, Top>,
    src: &[T],
    dst_desc: &TensorDescriptor<S1, H1, Top1>,
    dst: &mut [T],
) -> Result<usize, TransformError>
where
    T: Copy + Default,
    S0: Stages,
    S1: Stages,
    H0: ArrayLength,
    H1: ArrayLength,
    Top: Sequence,
    Top1: Sequence<Len = Top::Len>,
{
    let lengths = src_desc.lengths().clone();
    for (dim, (&got, &expected)) in dst_desc.lengths().iter().zip(lengths.iter()).enumerate() {
        if got != expected {
            return Err(TransformError::LengthMismatch {
                what: "copy_descriptor: the destination",
                dim,
                got,
                expected,
            });
        }
    }
    if lengths.iter().any(|&l| l <= 0) {
        return Ok(1);
    }
    let n = lengths.len();
    let run = match n {
        0 => 1,
        _ => gcd(
            contiguous(src_desc.get_top_dimension_safe_vector_length_strides()[n - 1]),
            contiguous(dst_desc.get_top_dimension_safe_vector_length_strides()[n - 1]),
        ),
    };
    // The copy loop once per common vector length, so each run is a copy of constant size.
    let width = run as usize;
    match width {
        1 => walk::<1, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
        2 => walk::<2, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
        4 => walk::<4, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
        8 => walk::<8, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
        16 => walk::<16, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
        _ => walk::<0, _, _, _, _, _, _, _>(src_desc, src, dst_desc, dst, width),
    }?;
    Ok(width)
}

/// The runs of `width` elements (`W`, if not 0) in row-major order: along each row of the last
/// dimension both coordinates move by the same constant step; between rows, an odometer over
/// the others.
#[inline(always)]
fn walk<const W: usize, T, S0, H0, Top, S1, H1, Top1>(
    src_desc: &TensorDescriptor<S0, H0, Top>,
    src: &[T],
    dst_desc: &TensorDescriptor<S1, H1, Top1>,
    dst: &mut [T],
    width: usize,
) -> Result<(), TransformError>
where
    T: Copy + Default,
    S0: Stages,
    S1: Stages,
    H0: ArrayLength,
    H1: ArrayLength,
    Top: Sequence,
    Top1: Sequence<Len = Top::Len>,
{
    let w = if W > 0 { W } else { width };
    let lengths = src_desc.lengths().clone();
    let n = lengths.len();
    let origin = MultiIndex::<Top::Len>::default();
    let (mut s, mut d) =
        (make_tensor_coordinate(src_desc, &origin), make_tensor_coordinate(dst_desc, &origin));
    let (src_len, dst_len) = (src.len() as isize, dst.len() as isize);
    let mut run = |s: &TensorCoordinate<H0>, d: &TensorCoordinate<H1>| -> Result<(), TransformError> {
        if !d.is_valid_assuming_top_index_is_valid(dst_desc) {
            return Ok(());
        }
        let (od, os) = (d.offset(), s.offset());
        let out = usize::try_from(od)
            .ok()
            .and_then(|o| dst.get_mut(o..o.checked_add(w)?))
            .ok_or(TransformError::Layout(LayoutError::IndexOutOfRange { index: od, size: dst_len }))?;
        if s.is_valid_assuming_top_index_is_valid(src_desc) {
            let from = usize::try_from(os)
                .ok()
                .and_then(|o| src.get(o..o.checked_add(w)?))
                .ok_or(TransformError::Layout(LayoutError::IndexOutOfRange { index: os, size: src_len }))?;
            out.copy_from_slice(from);
        } else {
            out.fill(T::default());
        }
        Ok(())
    };
    if n == 0 {
        return run(&s, &d);
    }
    let per_row = lengths[n - 1] / w as isize;
    let mut along = MultiIndex::<Top::Len>::default();
    along[n - 1] = w as isize;
    let mut top = origin;
    loop {
        for k in 0..per_row {
            run(&s, &d)?;
            if k + 1 < per_row {
                move_tensor_coordinate(src_desc, &mut s, &along);
                move_tensor_coordinate(dst_desc, &mut d, &along);
            }
        }
        // The next row: back along the last dimension, one on in the others (an odometer).
        let mut step = MultiIndex::<Top::Len>::default();
        step[n - 1] = -(per_row - 1) * w as isize;
        let mut dim = n - 1;
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            if top[dim] + 1 < lengths[dim] {
                top[dim] += 1;
                step[dim] = 1;
                break;
            }
            step[dim] = -top[dim];
            top[dim] = 0;
        }
        move_tensor_coordinate(src_desc, &mut s, &step);
        move_tensor_coordinate(dst_desc, &mut d, &step);
    }
}
