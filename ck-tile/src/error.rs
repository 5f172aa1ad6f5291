//! Errors of CK Tile's transforms and descriptors: a layout error, or one of CK's own.

use const_layout_core::error::LayoutError;
use core::fmt;

/// Why a CK Tile transform, adaptor or descriptor could not be built or used: a
/// [`LayoutError`] of its lengths and strides, or a CK condition.
///
/// ```
/// use const_layout::ck_tile::{TransformError, make_naive_tensor_descriptor_packed};
/// use const_layout::LayoutError;
/// let err = make_naive_tensor_descriptor_packed((4usize, 0usize)).unwrap_err();
/// assert_eq!(err, TransformError::Layout(LayoutError::NonPositiveExtent { leaf: 1, value: 0 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransformError {
    /// A lengths, strides or index error, as for any layout.
    Layout(LayoutError),
    /// A tensor adaptor whose transforms are not wired as CK requires: every old top dimension
    /// consumed once, every new one produced once.
    Wiring {
        /// What is miscounted.
        what: &'static str,
        /// How many there are.
        got: usize,
        /// How many there must be.
        expected: usize,
    },
    /// A descriptor's guaranteed vector access (CK's `GuaranteedLastDimensionVectorLength` and
    /// `...Stride`) that its last top dimension does not have: the vector length must divide the
    /// dimension's length and the vector stride be its stride.
    VectorGuarantee {
        /// The top dimension.
        dim: usize,
        /// Its length.
        length: isize,
        /// Its stride.
        stride: isize,
        /// The guaranteed vector length, if any.
        vector_length: Option<isize>,
        /// The guaranteed vector stride, if any.
        vector_stride: Option<isize>,
    },
    /// Two descriptors (or a descriptor and what it is used with) whose top lengths differ.
    LengthMismatch {
        /// What is compared.
        what: &'static str,
        /// The top dimension.
        dim: usize,
        /// Its length there.
        got: isize,
        /// The length it must have.
        expected: isize,
    },
    /// A parameter that must be positive and is not (an alignment, a vector length).
    NotPositive {
        /// The parameter.
        what: &'static str,
        /// Its value.
        value: isize,
    },
    /// A CK descriptor that is no CuTe layout, and the transform that makes it so.
    NotALayout {
        /// CK's name of the transform.
        transform: &'static str,
        /// Why.
        why: &'static str,
    },
}

impl From<LayoutError> for TransformError {
    fn from(e: LayoutError) -> Self {
        TransformError::Layout(e)
    }
}

fn any(f: &mut fmt::Formatter<'_>, v: Option<isize>) -> fmt::Result {
    match v {
        Some(v) => write!(f, "{v}"),
        None => f.write_str("any"),
    }
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TransformError::Layout(e) => e.fmt(f),
            TransformError::Wiring { what, got, expected } => {
                write!(f, "tensor adaptor: {what}: {got} where there must be {expected}")
            }
            TransformError::VectorGuarantee { dim, length, stride, vector_length, vector_stride } => {
                f.write_str("the guaranteed vector (length ")?;
                any(f, vector_length)?;
                f.write_str(", stride ")?;
                any(f, vector_stride)?;
                write!(
                    f,
                    ") does not hold along top dimension {dim} of length {length} and stride {stride}: \
                     the vector length must divide the length, the vector stride be the stride"
                )
            }
            TransformError::LengthMismatch { what, dim, got, expected } => {
                write!(f, "{what}: length {got} along top dimension {dim} where {expected} is expected")
            }
            TransformError::NotPositive { what, value } => {
                write!(f, "{what} is {value}: it must be positive")
            }
            TransformError::NotALayout { transform, why } => {
                write!(f, "not a CuTe layout because of its `{transform}` transform: {why}")
            }
        }
    }
}

impl core::error::Error for TransformError {}
