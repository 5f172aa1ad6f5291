//! Compile errors: what each one means and how to fix it.
//!
//! const-layout checks what it can at compile time, and its errors are written to be read: the first
//! line names the problem, with its numbers. Every error below has a case in `ui-tests/fail/` whose
//! `.stderr` is the exact compiler output (each under 30 lines); `cargo test -p const-layout-ui-tests` checks them.
//!
//! # Errors of the notation macros
//!
//! Reported by `layout!`, `layout_type!`, `shape!`, `stride!`, `coord!` and `tiler!`, on the
//! offending tokens, in `cargo check` as in a build.
//!
//! | error (first line) | example | fix |
//! |---|---|---|
//! | `shape extent 0 is not allowed: extents must be at least 1` | `layout!((8,0))` | extents are positive |
//! | `coordinate -1 is not allowed: coordinates cannot be negative` | `coord!(1, -1)` | |
//! | `the stride has 3 modes where the shape has 2: shape and stride must be congruent` | `layout!((8,4):(1,8,32))` | one stride per mode |
//! | `stride mode 1 has 3 modes where the shape mode has 2: ...` | `layout!((8,(4,2)):(1,(8,16,32)))` | the same, inside mode 1 |
//! | `stride mode 1 is the tuple `(8,32)` but the shape there is the integer `4`` | `layout!((8,4):(1,(8,32)))` | a scalar stride may stand for a tuple mode, not the reverse |
//! | `the size of the shape `...` overflows isize` | `layout!((4294967296,4294967296))` | |
//! | `the cosize of the layout `...` overflows isize` | `layout!((2,3):(1,9223372036854775807))` | |
//! | `expected an integer literal, an identifier, a `{ expr }` block or `(`, found `1.5`` | `layout!((8,1.5))` | leaves are integers |
//! | `expected `,` or `)` after a mode` | `layout!((8 4))` | |
//! | `unexpected tokens after the layout` | `layout!((8,4):(1,8) x)` | |
//! | `a `{ expr }` block has no type: ...` | `layout_type!(({n}, 8))` | in the type form write the integer's type: `usize` |
//!
//! # Errors of the types
//!
//! Trait errors, reported by `cargo check` (so an editor shows them as you type). The traits of
//! this module carry their messages.
//!
//! | error (first line) | example | fix |
//! |---|---|---|
//! | `coordinate rank mismatch: the coordinate `(usize, usize, usize)` has 3 modes where the shape `(C<8>, (C<4>, C<2>))` has 2` | `l.crd2idx((1, 2, 3))` for `(8,(4,2))` | one coordinate per mode, or a single integer |
//! | the same, naming the nested shape `(C<4>, C<2>)` | `l.crd2idx((1, (1, 0, 0)))` | |
//! | `coordinate deeper than the shape: the tuple `(usize, usize)` stands against the integer mode `C<4>`` | `l.crd2idx((1, (1, 1)))` for `(8,4)` | where the shape has an integer, so does the coordinate |
//! | `coordinate rank mismatch: ...` (for indices) | `l.idx2crd((1, 2, 3))` | |
//! | `stride rank mismatch: the stride `(isize, isize, isize)` has 3 modes where the shape `(usize, usize)` has 2` | `make_layout((8, 4), (1, 8, 32))` | |
//! | `stride deeper than the shape: the stride `(isize, isize)` stands against the integer extent `usize`` | `make_layout((8, 4), (1, (8, 32)))` | |
//! | `mode index out of range: mode 2 of `(C<8>, C<4>)`, which has 2 modes` | `l.mode::<2>()` | modes are numbered from 0 |
//! | `` `((usize, usize), _)` has runtime integers where a static int tuple is needed`` | `make_static_layout((8usize, 4usize), LayoutLeft)` | use `make_layout`, which checks runtime integers and returns a `Result` |
//!
//! # Compile-time assertions (full build only)
//!
//! Value properties of static layouts are checked by evaluating constants, which rustc does when it
//! builds code (`cargo build`, `cargo test`), not in `cargo check`:
//!
//! | error | example |
//! |---|---|
//! | `evaluation panicked: a static extent of the layout's shape is zero or negative` | `make_static_layout((C::<8>, C::<0>), ...)` |
//! | `evaluation panicked: the size of a static int tuple overflows isize` (and the same for cosize, static products, offsets) | static extents whose product overflows |
//! | `evaluation panicked: static shape_div needs one operand to divide the other` | `shape_div(&C::<3>, &C::<2>)` |
//!
//! To have `cargo check` evaluate such a check, force the constant in a `const` item:
//! `const _: () = Layout::<S, D>::STATIC_CHECK;`. The `layout!` macro checks literal extents and
//! literal sizes itself, so for layouts written in notation these problems surface in `cargo check`.
//!
//! # Runtime errors
//!
//! Layouts with runtime integers are checked when built and return `Result<_, LayoutError>`
//! ([`LayoutError`](crate::LayoutError) says what and where); text and the `layout` tool report
//! `column N: expected X, found Y`.
//!
//! The traits below exist only to carry the messages above: they have no implementations, and an
//! impl of the library that can only apply to a mistake requires one of them.

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
