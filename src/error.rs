//! Errors of runtime layouts: building them, checked index math and text parsing.
//!
//! Static layouts never produce these: their problems are compile-time errors.

use core::fmt;

/// Why a runtime layout could not be built, or a checked index computation failed.
///
/// Integers are numbered by their position in the flattened shape (or stride), from 0, so
/// `integer 2` of `(8,(4,0))` is the `0`.
///
/// ```
/// use const_layout::{make_layout, LayoutError};
/// let err = make_layout((8usize, (4usize, 0usize)), (1isize, 8isize)).unwrap_err();
/// assert_eq!(err, LayoutError::NonPositiveExtent { leaf: 2, value: 0 });
/// assert_eq!(err.to_string(), "shape integer 2 is 0: extents must be positive");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutError {
    /// A shape integer is zero or negative.
    NonPositiveExtent {
        /// Position of the integer in the flattened shape.
        leaf: usize,
        /// Its value.
        value: isize,
    },
    /// A runtime integer does not fit in `isize`.
    ValueOutOfRange {
        /// `"shape"`, `"stride"` or `"coordinate"`.
        part: &'static str,
        /// Position of the integer in the flattened tuple.
        leaf: usize,
    },
    /// The product of the shape does not fit in `isize`.
    SizeOverflow,
    /// The layout's largest offset (its cosize) does not fit in `isize`.
    CosizeOverflow,
    /// Expanding a scalar stride against a tuple mode (`(8,(4,2)):(1,8)`) overflows `isize`.
    StrideOverflow {
        /// Position of the stride integer in the flattened expanded stride.
        leaf: usize,
    },
    /// A result does not fit in the integer type the layout computes it in (for example a size of
    /// 2^32 with `u32` extents).
    TypeTooSmall {
        /// `"size"`, `"cosize"` or `"stride"`.
        what: &'static str,
        /// The value that did not fit.
        value: isize,
    },
    /// A coordinate is outside the shape (checked index math only).
    CoordinateOutOfRange {
        /// Position of the coordinate integer in the flattened coordinate.
        leaf: usize,
        /// Its value.
        value: isize,
        /// The extent it must be below.
        extent: isize,
    },
    /// An index is outside `0..size` (checked index math only).
    IndexOutOfRange {
        /// The index.
        index: isize,
        /// The layout's size.
        size: isize,
    },
    /// A shape and a stride (or coordinate) are not congruent (runtime-structured layouts only;
    /// typed layouts reject this at compile time).
    NotCongruent {
        /// What was being matched, for example `"stride"`.
        what: &'static str,
    },
    /// `shape_div` of two static integers neither of which divides the other (CuTe's
    /// "Divisibility Condition").
    NotDivisible {
        /// The dividend.
        a: isize,
        /// The divisor.
        b: isize,
    },
    /// A division by zero.
    DivisionByZero,
    /// A tuple has the wrong number of modes for the shape it is matched with (runtime-structured
    /// values only; typed ones do not compile).
    RankMismatch {
        /// What was matched: `"coordinate"`, `"stride"`, `"index"`, ...
        what: &'static str,
        /// Its rank.
        got: usize,
        /// The shape's rank.
        expected: usize,
    },
    /// A runtime-structured int tuple has more nodes than [`MAX_NODES`](crate::dynamic::MAX_NODES).
    TooLarge,
    /// A stride mixes plain integers with basis elements (`(4,8):(_1@0,2)`), or a basis with one
    /// inside it (`_1@1` next to `_1@0@1`).
    MixedBasis {
        /// Position of the offending stride integer.
        leaf: usize,
    },
    /// A shape integer scales a basis element: only strides may (`_1@0`).
    BasisExtent {
        /// Position of the integer in the flattened shape.
        leaf: usize,
    },
    /// An operation that needs integer strides got basis strides (`_1@0`); CuTe has no result
    /// there either (its complement, inverses and products do not take them).
    BasisStride {
        /// The operation, by its CuTe name.
        op: &'static str,
    },
    /// A layout-algebra operation whose CuTe result would not be the mathematical one, and which
    /// has no correct layout result (REFERENCE decision 2); see [`crate::algebra`].
    Inadmissible {
        /// The operation, by its CuTe name.
        op: &'static str,
        /// The failed condition, with its numbers.
        why: crate::algebra::Inadmissible,
    },
    /// `Swizzle<bits, base, shift>` with `|shift| < bits` (CuTe's static assertion) or bits beyond 62.
    InvalidSwizzle {
        /// `BBits`.
        bits: u32,
        /// `MBase`.
        base: u32,
        /// `SShift`.
        shift: i32,
    },
    /// A mode index or range outside the layout's rank (`select`, `take`, `group`, `replace`, a
    /// tiler with more modes than the layout).
    ModeOutOfRange {
        /// The operation.
        op: &'static str,
        /// The offending index (or range end).
        index: usize,
        /// The rank.
        rank: usize,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::NonPositiveExtent { leaf, value } => {
                write!(f, "shape integer {leaf} is {value}: extents must be positive")
            }
            LayoutError::ValueOutOfRange { part, leaf } => {
                write!(f, "{part} integer {leaf} does not fit in isize")
            }
            LayoutError::SizeOverflow => f.write_str("the size of the shape overflows isize"),
            LayoutError::CosizeOverflow => f.write_str("the cosize of the layout overflows isize"),
            LayoutError::StrideOverflow { leaf } => {
                write!(f, "expanding the scalar stride overflows isize at stride integer {leaf}")
            }
            LayoutError::TypeTooSmall { what, value } => {
                write!(f, "the {what} {value} does not fit in the layout's integer type")
            }
            LayoutError::CoordinateOutOfRange { leaf, value, extent } => {
                write!(f, "coordinate integer {leaf} is {value}, outside 0..{extent}")
            }
            LayoutError::IndexOutOfRange { index, size } => {
                write!(f, "index {index} is outside 0..{size}")
            }
            LayoutError::NotCongruent { what } => write!(f, "the {what} is not congruent with the shape"),
            LayoutError::NotDivisible { a, b } => {
                write!(f, "shape_div of static {a} by static {b}: neither divides the other")
            }
            LayoutError::DivisionByZero => f.write_str("division by zero"),
            LayoutError::RankMismatch { what, got, expected } => {
                write!(f, "the {what} has rank {got} but the shape has rank {expected}")
            }
            LayoutError::MixedBasis { leaf } => write!(
                f,
                "stride integer {leaf} does not fit its neighbours: a stride's integers are all plain or all basis elements (`_1@0`), and no basis lies inside another"
            ),
            LayoutError::BasisExtent { leaf } => {
                write!(f, "shape integer {leaf} scales a basis element: only strides may (`_1@0`)")
            }
            LayoutError::BasisStride { op } => {
                write!(f, "{op} needs integer strides, not basis elements (`_1@0`)")
            }
            LayoutError::Inadmissible { op, why } => write!(f, "{op}: {why}"),
            LayoutError::InvalidSwizzle { bits, base, shift } => write!(
                f,
                "Sw<{bits},{base},{shift}> is not a swizzle: |S| must be at least B and B+M+|S| at most 62"
            ),
            LayoutError::ModeOutOfRange { op, index, rank } => {
                write!(f, "{op}: mode {index} is out of range for rank {rank}")
            }
            LayoutError::TooLarge => {
                write!(f, "more than {} nodes in one int tuple", crate::dynamic::MAX_NODES)
            }
        }
    }
}

impl core::error::Error for LayoutError {}
