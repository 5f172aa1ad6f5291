//! Compile errors: what each one means and how to fix it.
//!
//! const-layout checks layouts at compile time where it can, and its errors are written to be read:
//! the first line names the problem with its numbers. Each error below has a UI test in
//! `ui-tests/fail/` with the exact compiler output.
//!
//! The traits in this module exist only to carry those messages: they have no implementations, and
//! an impl of the library that can never apply requires one of them, so that rustc reports the
//! problem in words instead of listing the impls that did not match.
//!
//! (The chapter text is in `docs` below; the examples there are compile-fail doctests.)

/// A coordinate (or index) tuple with a different number of modes than the shape it stands
/// against, at any level of nesting. The message names both types and both ranks.
///
/// ```compile_fail
/// use const_layout::layout;
/// let l = layout!((8,(4,2)):(1,8));
/// l.crd2idx((1usize, 2usize, 3usize)); // rank 3 against rank 2
/// ```
#[diagnostic::on_unimplemented(
    message = "coordinate rank mismatch: the coordinate `{Crd}` has {GOT} modes where the shape `{Shape}` has {EXPECTED}",
    label = "this coordinate has {GOT} modes, the shape {EXPECTED}",
    note = "a coordinate is an integer (split across the modes) or a tuple with one element per mode of the shape"
)]
pub trait CoordinateRank<Crd, Shape, const GOT: usize, const EXPECTED: usize> {}

/// A coordinate tuple standing against an integer mode: the coordinate is nested deeper than the
/// shape there.
///
/// ```compile_fail
/// use const_layout::layout;
/// let l = layout!((8,4):(1,8));
/// l.crd2idx((1usize, (1usize, 1usize))); // mode 1 of the shape is the integer 4
/// ```
#[diagnostic::on_unimplemented(
    message = "coordinate deeper than the shape: the tuple `{Crd}` stands against the integer mode `{Shape}`",
    label = "this coordinate is nested deeper than the shape",
    note = "where the shape has an integer, the coordinate must be an integer too"
)]
pub trait CoordinateDeeper<Crd, Shape> {}

/// A stride tuple with a different number of modes than the shape.
///
/// ```compile_fail
/// use const_layout::make_layout;
/// make_layout((8usize, 4usize), (1isize, 8isize, 32isize)); // rank 3 against rank 2
/// ```
#[diagnostic::on_unimplemented(
    message = "stride rank mismatch: the stride `{Stride}` has {GOT} modes where the shape `{Shape}` has {EXPECTED}",
    label = "this stride has {GOT} modes, the shape {EXPECTED}",
    note = "shape and stride must be congruent; a scalar stride may stand for a whole tuple mode"
)]
pub trait StrideRank<Stride, Shape, const GOT: usize, const EXPECTED: usize> {}

/// A stride tuple standing against an integer extent.
///
/// ```compile_fail
/// use const_layout::make_layout;
/// make_layout((8usize, 4usize), (1isize, (8isize, 32isize))); // mode 1: a tuple stride for the extent 4
/// ```
#[diagnostic::on_unimplemented(
    message = "stride deeper than the shape: the stride `{Stride}` stands against the integer extent `{Shape}`",
    label = "a tuple stride needs a tuple mode",
    note = "a scalar stride may stand for a tuple mode (it is expanded column-major), but not the reverse"
)]
pub trait StrideDeeper<Stride, Shape> {}

/// A mode index at or beyond the rank of a tuple.
///
/// ```compile_fail
/// use const_layout::layout;
/// layout!((8,4)).mode::<2>(); // modes are 0 and 1
/// ```
#[diagnostic::on_unimplemented(
    message = "mode index out of range: mode {I} of `{T}`, which has {RANK} modes",
    label = "there is no mode {I}: the modes are 0..{RANK}",
    note = "modes are numbered from 0"
)]
pub trait ModeIndex<T, const I: usize, const RANK: usize> {}
