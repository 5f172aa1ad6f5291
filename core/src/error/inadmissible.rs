//! Why an algebra operation has no correct layout result (DECISIONS.md decision 2).
//!
//! Modes are numbered in the *merged* form of the operand: flattened, extent-1 modes dropped and
//! modes merged wherever one continues the other (`(2,3):(1,2)` is the single mode `6:1`), because
//! that is the form in which the conditions are exact. Extents and strides are the values there.

use super::Message;
use core::fmt;

/// The failed condition, with its numbers.
///
/// ```
/// use const_layout::algebra::{composition, Inadmissible};
/// use const_layout::LayoutError;
/// let a = "(4,3):(1,10)".parse().unwrap();
/// let b = "3:6".parse().unwrap(); // a(0), a(6), a(12) = 0, 12, 20: not a layout
/// assert_eq!(
///     composition(&a, &b).unwrap_err(),
///     LayoutError::Inadmissible {
///         op: "composition",
///         why: Inadmissible::StrideDivisibility { mode: 0, extent: 4, stride: 6 },
///     }
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inadmissible {
    /// Composition: a stride of the right layout reaches mode `mode` of the left layout as
    /// `stride`, at least its extent `extent` but not a multiple of it, so the steps land at
    /// different coordinates of the modes after it.
    StrideDivisibility {
        /// Mode of the merged left layout.
        mode: usize,
        /// Its extent.
        extent: isize,
        /// The right layout's stride, in units of that mode.
        stride: isize,
    },
    /// Composition: a stride below the extent that does not divide it, while the right mode
    /// continues past this left mode.
    ExtentDivisibility {
        /// Mode of the merged left layout.
        mode: usize,
        /// Its extent.
        extent: isize,
        /// The right layout's stride, in units of that mode.
        stride: isize,
    },
    /// Composition: a right mode of `size` elements fills mode `mode` of the left layout after
    /// `fits` steps and continues, but `size` is not a multiple of `fits`.
    ShapeDivisibility {
        /// Mode of the merged left layout.
        mode: usize,
        /// What is left of the right mode's size there.
        size: isize,
        /// Steps that fit in the left mode.
        fits: isize,
    },
    /// Composition: two modes of the right layout both use mode `mode` of the left layout and their
    /// largest offsets there add up to `reach`, at least its extent: the sum carries into the next
    /// mode, so the result is not a layout.
    Overlap {
        /// Mode of the merged left layout.
        mode: usize,
        /// Its extent.
        extent: isize,
        /// The larger of the two offsets there.
        first: isize,
        /// The other.
        second: isize,
    },
    /// Composition: the left layout's values along leaf `leaf` of the right layout (its leaves
    /// numbered in order), `extent:stride`, inside one of its tuple modes, are no layout's, so no
    /// result compatible with the right layout (each of its leaves a leaf or a tuple of that
    /// size, CuTe's contract) is the composition, even where a layout with the right layout's
    /// top-level modes is.
    NoCompatibleLayout {
        /// The leaf, counted over the right layout's leaves in order from 0.
        leaf: usize,
        /// Its extent.
        extent: isize,
        /// Its stride.
        stride: isize,
    },
    /// Composition: right modes with strides of both signs meet in the left layout's modes.
    MixedSigns,
    /// Composition: the divisibility conditions (sufficient, not necessary) fail, and the right
    /// layout has `size` elements, more than the `limit` up to which the composition is evaluated
    /// and fitted point by point to find a layout nonetheless.
    Unchecked {
        /// The right layout's size.
        size: isize,
        /// `algebra::BY_VALUE_LIMIT`.
        limit: isize,
    },
    /// A negative stride where the operation needs non-negative ones (`complement`,
    /// `left_inverse`).
    NegativeStride {
        /// Mode of the operand (flattened).
        mode: usize,
        /// The stride.
        stride: isize,
    },
    /// `left_inverse`: two modes move by the same stride, so the layout is not injective.
    NotInjective {
        /// The stride.
        stride: isize,
    },
    /// `left_inverse`: in stride order, stride `stride` is below, or not a multiple of, `span`, the
    /// span (extent times stride) of the mode before it; the modes do not nest, so there is no
    /// such layout.
    NotNested {
        /// The stride.
        stride: isize,
        /// What it must be a multiple of.
        span: isize,
    },
    /// `upcast<n>`: stride `stride` is neither a multiple nor a divisor of `n`.
    CastDivisibility {
        /// The stride.
        stride: isize,
        /// The factor.
        n: isize,
    },
    /// `downcast`: no mode has stride 1 (CuTe's "Downcast requires adjacent elements").
    NoUnitStride,
    /// Masks that are not a swizzle's: `y` and `z` must be runs of equally many bits.
    NotSwizzleMasks {
        /// The bits read.
        y: isize,
        /// The bits changed.
        z: isize,
    },
    /// CuTe moves a swizzle through a layout (`L o Sw` as `Sw' o L`, for inverses and for a layout
    /// composed with a swizzled one), which is the same function in simple cases only; here it
    /// would not be.
    SwizzleThroughLayout,
    /// Composition of two composed layouts: the right one's offset is `offset`, not 0 (CuTe's
    /// `composition(Layout, ComposedLayout)` requires 0).
    RightOffset {
        /// The right composed layout's offset.
        offset: isize,
    },
    /// Composition of two composed layouts: the right one's swizzle, moved through the left
    /// one's inner layout, is `Sw<inner>`, and the left one's is `Sw<outer>`: a swizzle after a
    /// swizzle (CuTe's nested composed layout), which no single swizzle is. A linear layout over
    /// F2 holds it where both operands are linear (power-of-two sizes, no carries, offset 0):
    /// the evaluator answers with one there.
    TwoSwizzles {
        /// The left composed layout's swizzle, `[B, M, S]`.
        outer: [i32; 3],
        /// The right one's, moved through the left one's inner layout.
        inner: [i32; 3],
    },
    /// A swizzle is cast by a factor that is not a power of two (its bits move by the factor's
    /// base-2 logarithm).
    NotPowerOfTwo {
        /// The factor.
        n: isize,
    },
    /// `tile_to_shape`: the block's extent does not divide the target's.
    TileDivisibility {
        /// Mode of the target shape.
        mode: usize,
        /// The target's extent there.
        target: isize,
        /// The block's.
        block: isize,
    },
    /// `left_inverse`: the modes do not nest, and the layout's moving modes span `cosize`
    /// offsets, more than the `limit` up to which a left inverse is searched for by value.
    SearchLimit {
        /// The cosize of the modes that move.
        cosize: isize,
        /// `algebra::BY_VALUE_LIMIT`.
        limit: isize,
    },
    /// `left_inverse`: the search for a left inverse by value took more than `steps` steps (or
    /// its integer arithmetic left `i128`) without an answer.
    SearchEffort {
        /// The bound on the search's steps.
        steps: isize,
    },
    /// `left_inverse`: indices `first` and `second` of the layout both reach offset `offset`, so
    /// no layout maps every offset back to its index, and no layout is CuTe's quasi-inverse
    /// either (maps every offset to one of the indices that reach it; the search over every
    /// layout, mode by mode, found none).
    Collision {
        /// The offset reached twice.
        offset: isize,
        /// One index.
        first: isize,
        /// The other.
        second: isize,
    },
    /// `left_inverse`: the layout is not injective, and its modes that move have `size` indices,
    /// more than the `limit` up to which a quasi-inverse is searched for by value.
    SearchSize {
        /// The number of indices to search over.
        size: isize,
        /// `algebra::BY_VALUE_LIMIT`.
        limit: isize,
    },
    /// `left_inverse`: no layout maps every offset of the layout back to its index (the search
    /// over every layout of at least `cosize` elements, mode by mode, found none).
    NoLeftInverse {
        /// The layout's cosize.
        cosize: isize,
    },
    /// `complement`: covering `cotarget` past the layout's top mode `extent:stride` (in stride
    /// order) takes offsets beyond `isize::MAX`.
    ComplementOverflow {
        /// The cotarget's size.
        cotarget: isize,
        /// The top mode's extent.
        extent: isize,
        /// Its stride.
        stride: isize,
    },
}

impl fmt::Display for Inadmissible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.write_to(Message::new()).as_str())
    }
}

impl Inadmissible {
    /// Append the condition's text to `m` (a `const fn`, for compile-time errors).
    pub(crate) const fn write_to(&self, m: Message) -> Message {
        match *self {
            Inadmissible::StrideDivisibility { mode, extent, stride } => m
                .text("the right layout's stride reaches mode ")
                .num(mode as isize)
                .text(" of the left layout as ")
                .num(stride)
                .text(", which is not a multiple of its extent ")
                .num(extent),
            Inadmissible::ExtentDivisibility { mode, extent, stride } => m
                .text("the right layout's stride ")
                .num(stride)
                .text(" does not divide extent ")
                .num(extent)
                .text(" of mode ")
                .num(mode as isize)
                .text(" of the left layout"),
            Inadmissible::ShapeDivisibility { mode, size, fits } => m
                .text("mode ")
                .num(mode as isize)
                .text(" of the left layout holds ")
                .num(fits)
                .text(" steps of a right mode of size ")
                .num(size)
                .text(", which is not a multiple of ")
                .num(fits),
            Inadmissible::Overlap { mode, extent, first, second } => m
                .text("the right layout's modes overlap in mode ")
                .num(mode as isize)
                .text(" of the left layout (extent ")
                .num(extent)
                .text("): their offsets there reach ")
                .num(first)
                .text(" + ")
                .num(second)
                .text(" = ")
                .num(first.wrapping_add(second)),
            Inadmissible::NoCompatibleLayout { leaf, extent, stride } => m
                .text("leaf ")
                .num(leaf as isize)
                .text(" of the right layout (")
                .num(extent)
                .text(":")
                .num(stride)
                .text(") has no refinement on which the composition is a layout: the left layout's values along it are no layout's"),
            Inadmissible::MixedSigns => {
                m.text("the right layout has strides of both signs in the same left modes")
            }
            Inadmissible::Unchecked { size, limit } => m
                .text("the divisibility conditions fail, and the right layout's ")
                .num(size)
                .text(" elements are more than the ")
                .num(limit)
                .text(" up to which a layout is searched for point by point"),
            Inadmissible::NegativeStride { mode, stride } => {
                m.text("mode ").num(mode as isize).text(" has negative stride ").num(stride)
            }
            Inadmissible::NotInjective { stride } => m
                .text("two modes move by the same stride ")
                .num(stride)
                .text(", so the layout is not injective"),
            Inadmissible::NotNested { stride, span } => m
                .text("the modes do not nest: stride ")
                .num(stride)
                .text(" is not a multiple of ")
                .num(span)
                .text(", the span of the mode below it"),
            Inadmissible::CastDivisibility { stride, n } => {
                m.text("stride ").num(stride).text(" is neither a multiple nor a divisor of ").num(n)
            }
            Inadmissible::NoUnitStride => m.text("no mode has stride 1"),
            Inadmissible::NotSwizzleMasks { y, z } => m
                .text("the bits read (")
                .num(y)
                .text(") and changed (")
                .num(z)
                .text(") are not two runs of equally many bits"),
            Inadmissible::SwizzleThroughLayout => m.text(
                "the swizzle does not pass through the layout (CuTe's rewrite would be another function)",
            ),
            Inadmissible::RightOffset { offset } => m
                .text("the right composed layout's offset is ")
                .num(offset)
                .text(", and CuTe composes a layout with a composed layout only at offset 0"),
            Inadmissible::TwoSwizzles { outer, inner } => m
                .text("the result is Sw<")
                .num(outer[0] as isize)
                .text(",")
                .num(outer[1] as isize)
                .text(",")
                .num(outer[2] as isize)
                .text("> after Sw<")
                .num(inner[0] as isize)
                .text(",")
                .num(inner[1] as isize)
                .text(",")
                .num(inner[2] as isize)
                .text(">, which no single swizzle is (a linear layout over F2 holds it where both operands are linear)"),
            Inadmissible::NotPowerOfTwo { n } => m
                .text("a swizzle's bits move by log2 of the factor, and ")
                .num(n)
                .text(" is not a power of two"),
            Inadmissible::TileDivisibility { mode, target, block } => m
                .text("the block's extent ")
                .num(block)
                .text(" does not divide the target's extent ")
                .num(target)
                .text(" in mode ")
                .num(mode as isize),
            Inadmissible::SearchLimit { cosize, limit } => m
                .text("the modes do not nest, and their ")
                .num(cosize)
                .text(" offsets are more than the ")
                .num(limit)
                .text(" up to which a left inverse is searched for by value"),
            Inadmissible::SearchEffort { steps } => {
                m.text("the search for a left inverse by value took more than ").num(steps).text(" steps")
            }
            Inadmissible::Collision { offset, first, second } => m
                .text("indices ")
                .num(first)
                .text(" and ")
                .num(second)
                .text(" both map to offset ")
                .num(offset)
                .text(", and no layout maps each offset to an index that reaches it"),
            Inadmissible::SearchSize { size, limit } => m
                .text("the layout is not injective, and its ")
                .num(size)
                .text(" indices are more than the ")
                .num(limit)
                .text(" up to which a quasi-inverse is searched for by value"),
            Inadmissible::NoLeftInverse { cosize } => m
                .text("no layout of ")
                .num(cosize)
                .text(" or more elements maps every offset of the layout back to its index"),
            Inadmissible::ComplementOverflow { cotarget, extent, stride } => m
                .text("covering ")
                .num(cotarget)
                .text(" past the top mode ")
                .num(extent)
                .text(":")
                .num(stride)
                .text(" takes offsets beyond isize::MAX"),
        }
    }
}
