//! The array-level rules that the runtime-structured algebra (here) and the library's typed runtime
//! algebra (`const_layout::layout::typed_algebra`) both apply, on plain values: one implementation
//! of each, so the two cannot drift apart. Each is a `const fn` on integers that inlines into its
//! callers' loops; the callers keep their own storage (mode lists here, fixed arrays whose
//! structure is a type there) and their own handling of a failed condition (an error here, the
//! general path there).

use crate::error::Inadmissible;

/// One step of composing a right mode with the merged left layout (REFERENCE decision 2): what
/// is left of the right mode after left mode `mode` (extent `extent`), and what it takes there.
///
/// ```
/// use const_layout::algebra::rules::compose_step;
/// // A right mode 4:2 against a left mode of extent 8: all four steps fit, 2 apart.
/// let s = compose_step(8, 4, 2, 0).unwrap();
/// assert_eq!((s.extent, s.size, s.stride, s.used), (Some(4), 1, 2, 6));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeStep {
    /// The extent of the result mode taken in this left mode (at the right stride before the
    /// step, times the left mode's stride), if any.
    pub extent: Option<isize>,
    /// What is left of the right mode's size.
    pub size: isize,
    /// What is left of the right mode's stride, in units of the next left mode.
    pub stride: isize,
    /// The largest offset, in units of the left mode's stride, the result mode reaches here
    /// (what [`spend`] records against a carry into the next left mode).
    pub used: isize,
}

/// The rule of exact composition at one left mode: a right mode with `size` elements left and
/// stride `stride` (in units of this left mode, both at least 1) passes over a left mode of
/// extent `extent` if its stride reaches past it (the stride must then be a multiple of the
/// extent), takes all it has left if that fits below the extent, or else takes what fits
/// (the extent must then be a multiple of the stride, and what is left a multiple of what fits).
/// `Err` names the condition that fails, for left mode `mode`.
///
/// ```
/// use const_layout::algebra::rules::compose_step;
/// use const_layout::algebra::Inadmissible;
/// // Stride 2 over extent 4, 8 elements: 2 fit here, the rest goes on at stride 1.
/// let s = compose_step(4, 8, 2, 0).unwrap();
/// assert_eq!((s.extent, s.size, s.stride, s.used), (Some(2), 4, 1, 2));
/// // Stride 6 over extent 4: not a multiple.
/// assert_eq!(
///     compose_step(4, 2, 6, 0),
///     Err(Inadmissible::StrideDivisibility { mode: 0, extent: 4, stride: 6 })
/// );
/// ```
#[inline(always)]
pub const fn compose_step(
    extent: isize,
    size: isize,
    stride: isize,
    mode: usize,
) -> Result<ComposeStep, Inadmissible> {
    if stride >= extent {
        if stride % extent != 0 {
            return Err(Inadmissible::StrideDivisibility { mode, extent, stride });
        }
        return Ok(ComposeStep { extent: None, size, stride: stride / extent, used: 0 });
    }
    // The steps 0, stride, 2*stride, ... below the extent fit in this mode.
    let fits = (extent + stride - 1) / stride;
    if size <= fits {
        return Ok(ComposeStep { extent: Some(size), size: 1, stride, used: (size - 1) * stride });
    }
    if extent % stride != 0 {
        return Err(Inadmissible::ExtentDivisibility { mode, extent, stride });
    }
    if size % fits != 0 {
        return Err(Inadmissible::ShapeDivisibility { mode, size, fits });
    }
    Ok(ComposeStep { extent: Some(fits), size: size / fits, stride: 1, used: extent - extent / fits })
}

/// The no-carry rule: right modes that reach offsets `before` and `used` (in units of its
/// stride) of left mode `mode` (extent `extent`) together carry into the next left mode when
/// `before + used >= extent`; otherwise what they reach together.
///
/// ```
/// use const_layout::algebra::rules::spend;
/// use const_layout::algebra::Inadmissible;
/// assert_eq!(spend(3, 4, 8, 0), Ok(7));
/// assert_eq!(spend(4, 4, 8, 0), Err(Inadmissible::Overlap { mode: 0, extent: 8, first: 4, second: 4 }));
/// ```
#[inline(always)]
pub const fn spend(before: isize, used: isize, extent: isize, mode: usize) -> Result<isize, Inadmissible> {
    if before + used >= extent {
        return Err(Inadmissible::Overlap {
            mode,
            extent,
            first: if before > used { before } else { used },
            second: if before < used { before } else { used },
        });
    }
    Ok(before + used)
}

/// The merge rule: a mode `extent:stride` that follows `prev_extent:prev_stride` continues it
/// (the two are one mode `prev_extent * extent : prev_stride`) exactly when
/// `stride == prev_extent * prev_stride`. Coalescing, the merged form composition reads, and
/// canonical forms all join modes by it (each with its own rule for static-ness and bases).
///
/// ```
/// use const_layout::algebra::rules::joins;
/// assert!(joins(4, 2, 8)); // 4:2 then 3:8 is 12:2
/// assert!(!joins(4, 2, 6));
/// assert!(!joins(isize::MAX, 2, 0)); // the span overflows: no stride continues it
/// ```
#[inline(always)]
pub const fn joins(prev_extent: isize, prev_stride: isize, stride: isize) -> bool {
    match prev_extent.checked_mul(prev_stride) {
        Some(span) => span == stride,
        None => false,
    }
}
