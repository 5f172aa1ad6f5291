//! The array-level rules that the runtime-structured algebra (here) and the library's typed runtime
//! algebra (`const_layout::algebra::typed`) both apply, on plain values: one implementation
//! of each, so the two cannot drift apart. Each is a `const fn` on integers that inlines into its
//! callers' loops; the callers keep their own storage (mode lists here, fixed arrays whose
//! structure is a type there) and their own handling of a failed condition (an error here, the
//! general path there).

use crate::error::Inadmissible;

/// One step of composing a right mode with the merged left layout (DECISIONS.md decision 2): what
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

/// The nested complement: `complement(A, M)` where `A`'s moving strides nest, as plain values.
/// [`nested_complement`] writes it here, mode by mode in stride order, with where each value
/// comes from so that a caller with static flags can give each mode its own.
///
/// ```
/// use const_layout::algebra::rules::{NestedComplement, nested_complement};
/// // complement((2,4):(8,1), 64): mode 1 (stride 1) comes first, then mode 0 (stride 8).
/// let mut out = NestedComplement::<3>::new();
/// assert!(nested_complement(&[2, 4, 0], &[8, 1, 0], 2, 64, &mut out));
/// assert_eq!((out.count, &out.source[..2]), (2, &[1, 0][..]));
/// assert_eq!((out.shape, out.stride), ([1, 2, 4], [1, 4, 16]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestedComplement<const N: usize> {
    /// The result's extents: the gap below each mode of positive stride, in stride order, then
    /// the rest `ceil(M / top)` at `count`.
    pub shape: [isize; N],
    /// The result's strides: the span below each gap (1 for the lowest), then `top`.
    pub stride: [isize; N],
    /// For each gap, the mode of `A` whose stride ends it (so the modes of `A` in stride order;
    /// the last one's span is the rest mode's stride).
    pub source: [usize; N],
    /// The number of gaps (of modes of positive stride); the rest mode is at this place.
    pub count: usize,
}

/// The nesting rule of `complement(A, M)` for the first `n` modes `s:d` of `A` and a cotarget
/// `M`: where the strides are non-negative and the positive ones, sorted, nest (each a multiple of
/// the span `s * d` of the one below it, none equal), the complement is the gap below each
/// positive stride, `d_k / span` at stride `span` (`span` the span of the next smaller stride, 1
/// if none), then the rest `ceil(M / top)` at stride `top`, the span of the largest stride. The
/// order is decided on the strides alone, so where the strides are constants (CuTe's case)
/// every comparison and every place folds once inlined; only what depends on an extent is
/// computed. `false` where anything else is needed (no positive stride, `M < 1`, strides that
/// do not nest, values past `isize`): the general fold answers then.
///
/// A mode of extent 1 is kept in the order: its gap mode and the next, `(a,b):(x,a*x)`, are the
/// same function as the one gap `a*b:x` of the fold, which leaves it out, provided both divide
/// (else `false`). Where the largest stride is on an extent-1 mode, the rest measured from its
/// span `top` instead of the largest moving span `t` gives `g * ceil(M / top)` against `ceil(M /
/// t)` increasing offsets (`top = g * t`), the same function exactly when `g` divides
/// `ceil(M / t)`; otherwise `false`.
///
/// The result needs no check: its extents are positive, and with `top` the largest span its
/// size is `top / size(A) * ceil(M / top) <= M + top` and its largest offset below `top + M`,
/// which must fit in `isize` (else `false`).
///
/// ```
/// use const_layout::algebra::rules::{NestedComplement, nested_complement};
/// // complement((4,2):(1,16), 128) = (4,4):(4,32): the gap 16/4 at 4, the rest 128/32 at 32.
/// let mut out = NestedComplement::<4>::new();
/// assert!(nested_complement(&[4, 2, 0, 0], &[1, 16, 0, 0], 2, 128, &mut out));
/// assert_eq!((&out.shape[..3], &out.stride[..3]), (&[1, 4, 4][..], &[1, 4, 32][..]));
/// // 6 is no multiple of the span 4 below it: not nested.
/// assert!(!nested_complement(&[4, 2, 0, 0], &[1, 6, 0, 0], 2, 128, &mut out));
/// ```
#[inline(always)]
pub const fn nested_complement<const N: usize>(
    sv: &[isize; N],
    dv: &[isize; N],
    n: usize,
    cotarget: isize,
    out: &mut NestedComplement<N>,
) -> bool {
    // Every loop runs over all `n` integers (a constant once inlined) and tests what it needs, so
    // that the compiler unrolls it. A mode of stride 0 adds nothing.
    let (mut count, mut last) = (0, 0);
    let mut k = 0;
    while k < n {
        if dv[k] < 0 {
            return false;
        }
        if dv[k] > 0 {
            count += 1;
            if dv[k] > dv[last] {
                last = k;
            }
        }
        k += 1;
    }
    // The gaps and the rest must fit in `N` modes.
    if count == 0 || count >= N || cotarget <= 0 {
        return false;
    }
    // The result's mode for a mode k is at the place of k in stride order: the number of modes
    // with smaller positive strides.
    let mut k = 0;
    while k < n {
        if dv[k] == 0 {
            k += 1;
            continue;
        }
        let (mut place, mut below, mut span) = (0, 0isize, 1isize);
        let mut j = 0;
        while j < n {
            if j != k && dv[j] != 0 {
                if dv[j] == dv[k] {
                    return false;
                }
                if dv[j] < dv[k] {
                    place += 1;
                    if dv[j] > below {
                        below = dv[j];
                        let Some(x) = sv[j].checked_mul(dv[j]) else { return false };
                        span = x;
                    }
                }
            }
            j += 1;
        }
        if dv[k] < span || dv[k] % span != 0 {
            return false;
        }
        (out.shape[place], out.stride[place]) = (dv[k] / span, span);
        out.source[place] = k;
        k += 1;
    }
    let Some(top) = sv[last].checked_mul(dv[last]) else { return false };
    if sv[last] == 1 && !same_rest(sv, dv, n, top, cotarget) {
        return false;
    }
    if cotarget.checked_add(top).is_none() {
        return false;
    }
    // ceil(M / top) for M >= 1, without testing a remainder.
    (out.shape[count], out.stride[count]) = ((cotarget - 1) / top + 1, top);
    out.count = count;
    true
}

/// Whether measuring the rest of a nested complement from `top` (the span of the largest stride,
/// on an extent-1 mode) gives the fold's answer, which measures it from the largest span of a
/// mode that moves (1 if none): see [`nested_complement`].
#[inline(always)]
const fn same_rest<const N: usize>(
    sv: &[isize; N],
    dv: &[isize; N],
    n: usize,
    top: isize,
    cotarget: isize,
) -> bool {
    let mut t = 1isize;
    let mut k = 0;
    while k < n {
        if dv[k] > 0 && sv[k] != 1 {
            let Some(x) = sv[k].checked_mul(dv[k]) else { return false };
            if x > t {
                t = x;
            }
        }
        k += 1;
    }
    // Nested, so `t` divides `top`.
    (cotarget / t + (cotarget % t != 0) as isize) % (top / t) == 0
}

impl<const N: usize> NestedComplement<N> {
    /// An empty answer to fill: extents 1, strides 0.
    ///
    /// ```
    /// use const_layout::algebra::rules::NestedComplement;
    /// assert_eq!(NestedComplement::<2>::new().shape, [1, 1]);
    /// ```
    pub const fn new() -> Self {
        NestedComplement { shape: [1; N], stride: [0; N], source: [0; N], count: 0 }
    }
}

impl<const N: usize> Default for NestedComplement<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The rule of dividing one mode `s:d` by a tile of `t` consecutive elements (CuTe's tiler mode
/// `t:_1`, or a shape tiler's extent `t`): the mode becomes `(t, ceil(s/t)):(d, t*d)`, the tile
/// and the tiles' arrangement; this gives the second mode, `(ceil(s/t), t*d)`. A tile that does
/// not divide `s` is tiled as CuTe tiles it: `ceil(s/t)` tiles, the last one reaching past `s`
/// (a mode is the function `x -> x*d` on every integer, so the result is still the mode
/// composed with the tile; a kernel predicates the residue). `Err` for a tile below 1
/// (`NonPositiveExtent`, at leaf `leaf`) or a step `t*d` past `isize` (`StrideOverflow`).
///
/// ```
/// use const_layout::algebra::rules::divide_mode;
/// assert_eq!(divide_mode(1000, 1, 128, 0), Ok((8, 128)));
/// assert_eq!(divide_mode(300, 1024, 64, 0), Ok((5, 65536)));
/// assert!(divide_mode(8, 1, 0, 0).is_err());
/// ```
#[inline(always)]
pub const fn divide_mode(
    s: isize,
    d: isize,
    t: isize,
    leaf: usize,
) -> Result<(isize, isize), crate::LayoutError> {
    if t <= 0 {
        return Err(crate::LayoutError::NonPositiveExtent { leaf, value: t });
    }
    // `s` is a positive extent of a checked layout, so `s / t` and the remainder do not overflow.
    let rest = s / t + (s % t != 0) as isize;
    match t.checked_mul(d) {
        Some(step) => Ok((rest, step)),
        None => Err(crate::LayoutError::StrideOverflow { leaf }),
    }
}
