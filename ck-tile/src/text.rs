//! CK Tile descriptors and adaptors as text, and back: the notation `Display` prints, `FromStr`
//! reads and serde (feature `serde`) writes.
//!
//! A descriptor's *structure* is its type: which transforms, in which order, wired through which
//! hidden ids, and which integers are static. The text therefore carries the values and restates
//! the structure, so that a person can read it; reading it back checks the restated structure
//! against the type and fills in the values. Transforms are written with CK's names and their
//! maker's arguments in CuTe's notation (`_4` static, `4` runtime), each followed by the hidden
//! ids it reads (upper) and writes (lower), top stage first:
//!
//! | CK | text |
//! |---|---|
//! | `make_pass_through_transform(4)` | `pass_through(4)` |
//! | `make_pad_transform(4, 1, 2)` (`SkipIsValidCheck`) | `pad(4,1,2)` (`pad(4,1,2,skip)`) |
//! | `make_left_pad_transform(4, 1)`, `make_right_pad_transform(4, 2)` | `pad(4,1,_0)`, `pad(4,_0,2)` |
//! | `make_embed_transform(lengths, coefficients)` | `embed((3,4),(8,_1))` |
//! | `make_merge_transform(lengths)`, `..._v3_division_mod` | `merge((4,5))`, `merge_v3_division_mod((4,5))` |
//! | `make_unmerge_transform(lengths)` | `unmerge((2,3))` |
//! | `make_freeze_transform(i)`, `make_insert_transform(n)` | `freeze(3)`, `insert(4)` |
//! | `make_replicate_transform(lengths)` | `replicate((2,3))` |
//! | `make_offset_transform(n, o)`, `make_slice_transform(n, b, e)` | `offset(48,16)`, `slice(10,3,7)` |
//! | `make_modulo_transform(m, n)`, `make_xor_transform((n0, n1))` | `modulo(4,10)`, `xor((8,8))` |
//! | a CuTe layout as one transform ([`CuteLayout`]) | `cute_layout((4,(2,3)):(1,(3,8)))` |
//!
//! A stage is `transform: [upper ids] -> [lower ids]`. An adaptor is
//! `tensor_adaptor{transforms: [stage, ...], bottom: [ids], top: [ids]}`; a descriptor is
//! `tensor_descriptor{transforms: [...], top: [ids], element_space_size: n}` (its bottom is hidden
//! id 0, the offset), with `, guaranteed: [(length,stride), ...]` (one per hidden dimension, CK's
//! `-1` for unknown) where something is guaranteed about vector access.
//!
//! ```
//! use const_layout::ck_tile::{NaiveDescriptor, make_naive_tensor_descriptor, multi_index};
//! use const_layout::C;
//! type D = NaiveDescriptor<(usize, usize), (isize, C<1>)>;
//! let d: D = make_naive_tensor_descriptor((3usize, 4usize), (8isize, C::<1>)).unwrap();
//! let text = d.to_string();
//! assert_eq!(text, "tensor_descriptor{transforms: [embed((3,4),(8,_1)): [1,2] -> [0]], top: [1,2], element_space_size: 20}");
//! let back: D = text.parse().unwrap();
//! assert_eq!(back.calculate_offset(&multi_index([2, 3])), 19);
//! // The text restates the type's structure; another structure is an error that says where.
//! let e = text.replace("(8,_1)", "(8,_2)").parse::<D>().unwrap_err();
//! assert_eq!(e.to_string(), "column 44: coefficients integer 1 is 2 where the type has the static _1");
//! let e = text.replace("embed", "merge").parse::<D>().unwrap_err();
//! assert_eq!(e.to_string(), "column 32: transform 0 is `embed` in the type");
//! ```

use super::adaptor::{Chain, Stage, Stages, TensorAdaptor};
use super::affine::{Embed, Freeze, Insert, Offset, Pad, PassThrough, Replicate, Slice, Unmerge};
use super::cute::{CuteLayout, TopModes};
use super::descriptor::TensorDescriptor;
use super::ids::{IdList, Sequence};
use super::merge::{Merge, MergeDivMod};
use super::nonlinear::{Modulo, Xor};
use super::{SafeVector, SafeVectors, Transform, TransformError};
use crate::dyn_layout::DynIntTuple;
use crate::int::Int;
use crate::int_tuple::{IntTuple, ToArray};
use const_layout_core::error::LayoutError;

use crate::layout::{Crd2Idx, Layout, LayoutShape};
use const_layout_core::text::{Cursor, ParseError};
use core::fmt;
use core::str::FromStr;
use generic_array::ArrayLength;

/// Why a text is not a descriptor (or adaptor) of the type it is read into: the notation's own
/// error, a structure that differs from the type's, or values the transforms refuse. Each names
/// the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TextError {
    /// Not the notation, or an integer the type cannot hold ([`ParseError`], with its column).
    Parse(ParseError),
    /// The text's structure is not the type's: what the type has there.
    Structure {
        /// 1-based column.
        column: usize,
        /// The transform (top first), where the difference is in one.
        transform: Option<usize>,
        /// What the type has.
        expected: Expected,
    },
    /// Values the transforms or the adaptor refuse (a merge of a zero length, miswiring).
    Invalid {
        /// 1-based column.
        column: usize,
        /// The error.
        error: TransformError,
    },
}

/// What a descriptor's type has where its text differs ([`TextError::Structure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// A transform of this CK name.
    Name(&'static str),
    /// These upper ids.
    Upper(&'static [usize]),
    /// These lower ids.
    Lower(&'static [usize]),
    /// These top ids.
    Top(&'static [usize]),
    /// These bottom ids.
    Bottom(&'static [usize]),
    /// No more transforms: the type has this many.
    Transforms(usize),
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TextError::Parse(e) => write!(f, "{e}"),
            TextError::Invalid { column, error } => write!(f, "column {column}: {error}"),
            TextError::Structure { column, transform, expected } => {
                write!(f, "column {column}: ")?;
                let ids = |f: &mut fmt::Formatter<'_>, what: &str, l: &[usize]| {
                    match transform {
                        Some(t) => write!(f, "transform {t}'s {what} ids are ")?,
                        None => write!(f, "the {what} ids are ")?,
                    }
                    write_ids(f, l)?;
                    f.write_str(" in the type")
                };
                match expected {
                    Expected::Name(n) => {
                        write!(f, "transform {} is `{n}` in the type", transform.unwrap_or(0))
                    }
                    Expected::Upper(l) => ids(f, "upper", l),
                    Expected::Lower(l) => ids(f, "lower", l),
                    Expected::Top(l) => ids(f, "top", l),
                    Expected::Bottom(l) => ids(f, "bottom", l),
                    Expected::Transforms(n) => write!(f, "the type has {n} transforms"),
                }
            }
        }
    }
}

impl core::error::Error for TextError {}

impl From<ParseError> for TextError {
    fn from(e: ParseError) -> Self {
        TextError::Parse(e)
    }
}

/// A sequence's ids as a `'static` slice (a constant's reference is a static), for errors.
trait StaticIds: Sequence {
    const SLICE: &'static [usize] = <Self as StaticIds>::LIST.as_slice();
    const LIST: &'static IdList = &Self::IDS;
}
impl<S: Sequence> StaticIds for S {}

fn write_ids(f: &mut fmt::Formatter<'_>, ids: &[usize]) -> fmt::Result {
    f.write_str("[")?;
    for (k, id) in ids.iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        write!(f, "{id}")?;
    }
    f.write_str("]")
}

/// `[id, ...]`, which must be `ids`.
fn read_ids(
    c: &mut Cursor<'_>,
    ids: &'static [usize],
    transform: Option<usize>,
    side: fn(&'static [usize]) -> Expected,
) -> Result<(), TextError> {
    let column = c.column();
    c.expect('[', "`[`")?;
    let mut k = 0;
    let mut same = true;
    while !c.eat(']') {
        if k > 0 {
            c.expect(',', "`,` or `]`")?;
        }
        let at = c.position();
        let v = c.int()?;
        if v.value < 0 || v.has_basis() {
            return Err(c.error_at(at, "a hidden id (an integer from 0)").into());
        }
        same &= ids.get(k).is_some_and(|&id| id as isize == v.value);
        k += 1;
        if k > super::ids::MAX_IDS {
            return Err(c.error("`]`").into());
        }
    }
    if same && k == ids.len() {
        Ok(())
    } else {
        Err(TextError::Structure { column, transform, expected: side(ids) })
    }
}

/// An int tuple read into the type `T`, as `what` in errors.
fn read_tuple<T: IntTuple>(c: &mut Cursor<'_>, what: &'static str) -> Result<T, TextError> {
    let column = c.column();
    let t = c.int_tuple()?;
    T::try_from_dyn(&t, what).map_err(|e| TextError::Parse(c.invalid(column, e)))
}

/// `(a,b,...` and `close`: a transform's arguments, each an int tuple in CuTe's notation. A value
/// outside `isize` (never in a checked transform) cannot be written.
fn write_list(
    f: &mut fmt::Formatter<'_>,
    args: &[Result<DynIntTuple, LayoutError>],
    close: &str,
) -> fmt::Result {
    for (k, a) in args.iter().enumerate() {
        f.write_str(if k == 0 { "(" } else { "," })?;
        write!(f, "{}", a.as_ref().map_err(|_| fmt::Error)?)?;
    }
    f.write_str(close)
}

/// A transform as text: CK's name, then its maker's arguments in CuTe's notation. Implemented for
/// every transform of this module; the stage, adaptor and descriptor text is built on it.
///
/// ```
/// use const_layout::ck_tile::{Merge, TransformText};
/// use const_layout::C;
/// let m = Merge::new((C::<4>, 5usize)).unwrap();
/// assert_eq!(m.text().to_string(), "merge((_4,5))");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no text form",
    note = "the transforms of `const_layout::ck_tile` have one; a transform of your own needs `TransformText`"
)]
pub trait TransformText: Transform + Sized {
    /// Write the arguments, parentheses included.
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Read the arguments (after the name), checked against the type, through the transform's
    /// own constructor.
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError>;
    /// The transform as text (`Display`).
    fn text(&self) -> TransformDisplay<'_, Self> {
        TransformDisplay(self)
    }
}

/// A transform printed as text ([`TransformText::text`]).
pub struct TransformDisplay<'a, T>(&'a T);

impl<T: TransformText> fmt::Display for TransformDisplay<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::NAME)?;
        self.0.write_args(f)
    }
}

/// Read `(a, b, ...`: each argument as an int tuple of its type (the caller reads what closes it).
macro_rules! args {
    ($c:ident; $name0:ident: $ty0:ty = $what0:literal $(, $name:ident: $ty:ty = $what:literal)*) => {
        $c.expect('(', "`(`")?;
        let $name0: $ty0 = read_tuple($c, $what0)?;
        $(
            $c.expect(',', "`,`")?;
            let $name: $ty = read_tuple($c, $what)?;
        )*
    };
}

/// The column of a transform's arguments, for errors of its constructor.
fn refused<T>(column: usize, r: Result<T, TransformError>) -> Result<T, TextError> {
    r.map_err(|error| TextError::Invalid { column, error })
}

macro_rules! one_int_args {
    ($($ty:ident<$($p:ident),+> ($($f:ident = $what:literal),+) => $build:expr;)+) => {$(
        impl<$($p: Int),+> TransformText for $ty<$($p),+> {
            fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_list(f, &[$(self.$f.to_dyn()),+], ")")
            }
            fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
                let column = c.column();
                args!(c; $($f: _ = $what),+);
                c.expect(')', "`)`")?;
                $build(column, $($f),+)
            }
        }
    )+};
}

one_int_args! {
    PassThrough<L> (length = "length") => |_, l| Ok(PassThrough::new(l));
    Freeze<V> (index = "index") => |_, i| Ok(Freeze::new(i));
    Insert<L> (length = "length") => |_, l| Ok(Insert::new(l));
    Offset<L, O> (length = "length", offset = "offset") => |_, l, o| Ok(Offset::new(l, o));
    Slice<L, B, E> (length = "length", begin = "begin", end = "end") => |_, l, b, e| Ok(Slice::new(l, b, e));
    Modulo<M, L> (modulus = "modulus", length = "length") => |col, m, l| refused(col, Modulo::new(m, l));
}

impl<L: Int, P: Int, Q: Int, const SKIP: bool> TransformText for Pad<L, P, Q, SKIP> {
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args = [self.length.to_dyn(), self.left.to_dyn(), self.right.to_dyn()];
        write_list(f, &args, if SKIP { ",skip)" } else { ")" })
    }
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
        args!(c; length: L = "length", left: P = "left", right: Q = "right");
        // CK's `SkipIsValidCheck` is in the type: the text says it, and must say what the type does.
        let at = c.position();
        let skip = c.eat(',') && c.word() == Some("skip");
        if skip != SKIP {
            let expected = if SKIP { "`,skip)`: the type skips the validity check" } else { "`)`" };
            return Err(c.error_at(at, expected).into());
        }
        c.expect(')', "`)`")?;
        Ok(Pad { length, left, right })
    }
}

impl<Ls: ToArray, Cs: ToArray<Len = Ls::Len>> TransformText for Embed<Ls, Cs> {
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_list(f, &[self.lengths.to_dyn(), self.coefficients.to_dyn()], ")")
    }
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
        args!(c; lengths: Ls = "lengths", coefficients: Cs = "coefficients");
        c.expect(')', "`)`")?;
        Ok(Embed::new(lengths, coefficients))
    }
}

macro_rules! lengths_args {
    ($($ty:ident => $build:expr;)+) => {$(
        impl<Ls: ToArray> TransformText for $ty<Ls> {
            fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_list(f, &[self.lengths.to_dyn()], ")")
            }
            fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
                let column = c.column();
                args!(c; lengths: Ls = "lengths");
                c.expect(')', "`)`")?;
                $build(column, lengths)
            }
        }
    )+};
}

lengths_args! {
    Unmerge => |_, l| Ok(Unmerge::new(l));
    Replicate => |_, l| Ok(Replicate::new(l));
    MergeDivMod => |col, l| refused(col, MergeDivMod::new(l));
}

impl<Ls: ToArray> TransformText for Merge<Ls> {
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A merge keeps its lengths' values (for its divisors); static-ness is the type's.
        let mut values = self.values.iter();
        let lengths = Ls::TREE.try_map_leaves(|l| {
            Ok(crate::dyn_layout::DynInt::new(values.next().copied().unwrap_or(0), l.is_static))
        });
        write_list(f, &[lengths], ")")
    }
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
        let column = c.column();
        args!(c; lengths: Ls = "lengths");
        c.expect(')', "`)`")?;
        refused(column, Merge::new(lengths))
    }
}

impl<L0: Int, L1: Int> TransformText for Xor<L0, L1> {
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_list(f, &[(self.length0, self.length1).to_dyn()], ")")
    }
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
        let column = c.column();
        c.expect('(', "`(`")?;
        let (l0, l1): (L0, L1) = read_tuple(c, "lengths")?;
        c.expect(')', "`)`")?;
        refused(column, Xor::new(l0, l1))
    }
}

impl<S, D> TransformText for CuteLayout<S, D>
where
    S: TopModes + LayoutShape<D>,
    D: IntTuple,
    S::Coord: Crd2Idx<S, D>,
{
    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({})", self.layout())
    }
    fn read_args(c: &mut Cursor<'_>) -> Result<Self, TextError> {
        c.expect('(', "`(`")?;
        let column = c.column();
        let d = c.layout()?;
        let l = Layout::<S, D>::try_from(&d).map_err(|e| TextError::Parse(c.invalid(column, e)))?;
        c.expect(')', "`)`")?;
        Ok(CuteLayout::new(l))
    }
}

/// Stages as text: [`Stage`]s of transforms with text, tuples of them and [`Chain`]s, top first.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no text form",
    note = "stages of the transforms of `const_layout::ck_tile` (`TransformText`), in tuples and chains, have one"
)]
pub trait StagesText: Stages + Sized {
    /// Write each stage, `", "` between them; `count` is the number written so far.
    fn write_stages(&self, f: &mut fmt::Formatter<'_>, count: &mut usize) -> fmt::Result;
    /// Read the stages, `count` the number read so far (for errors and separators).
    fn read_stages(c: &mut Cursor<'_>, count: &mut usize) -> Result<Self, TextError>;
    /// How many transforms there are.
    const TRANSFORMS: usize;
}

impl<T, Lo, Up> StagesText for Stage<T, Lo, Up>
where
    T: TransformText,
    Lo: Sequence<Len = T::Low>,
    Up: Sequence<Len = T::Up>,
{
    const TRANSFORMS: usize = 1;
    fn write_stages(&self, f: &mut fmt::Formatter<'_>, count: &mut usize) -> fmt::Result {
        if *count > 0 {
            f.write_str(", ")?;
        }
        *count += 1;
        write!(f, "{}: ", self.transform().text())?;
        write_ids(f, Up::SLICE)?;
        f.write_str(" -> ")?;
        write_ids(f, Lo::SLICE)
    }
    fn read_stages(c: &mut Cursor<'_>, count: &mut usize) -> Result<Self, TextError> {
        let k = *count;
        if k > 0 {
            c.expect(',', "`,` between transforms")?;
        }
        let column = c.column();
        match c.word() {
            Some(w) if w == T::NAME => {}
            Some(_) => {
                return Err(TextError::Structure {
                    column,
                    transform: Some(k),
                    expected: Expected::Name(T::NAME),
                });
            }
            None => return Err(c.error("a transform's name").into()),
        }
        let t = T::read_args(c)?;
        let lengths = t.upper_lengths();
        if let Some(&bad) = lengths.iter().find(|&&l| l <= 0) {
            let error = TransformError::Layout(LayoutError::NonPositiveExtent { leaf: 0, value: bad });
            return Err(TextError::Invalid { column, error });
        }
        c.expect(':', "`:` before the transform's ids")?;
        read_ids(c, Up::SLICE, Some(k), Expected::Upper)?;
        if !c.eat_str("->") {
            return Err(c.error("`->` between upper and lower ids").into());
        }
        read_ids(c, Lo::SLICE, Some(k), Expected::Lower)?;
        *count += 1;
        Ok(Stage::typed(t))
    }
}

impl<A: StagesText, B: StagesText> StagesText for Chain<A, B>
where
    Chain<A, B>: Stages,
{
    const TRANSFORMS: usize = A::TRANSFORMS + B::TRANSFORMS;
    fn write_stages(&self, f: &mut fmt::Formatter<'_>, count: &mut usize) -> fmt::Result {
        self.0.write_stages(f, count)?;
        self.1.write_stages(f, count)
    }
    fn read_stages(c: &mut Cursor<'_>, count: &mut usize) -> Result<Self, TextError> {
        let a = A::read_stages(c, count)?;
        Ok(Chain(a, B::read_stages(c, count)?))
    }
}

macro_rules! impl_stages_text_tuple {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: StagesText),+> StagesText for ($($A,)+)
        where
            ($($A,)+): Stages,
        {
            const TRANSFORMS: usize = 0 $(+ $A::TRANSFORMS)+;
            fn write_stages(&self, f: &mut fmt::Formatter<'_>, count: &mut usize) -> fmt::Result {
                $(self.$i.write_stages(f, count)?;)+
                Ok(())
            }
            fn read_stages(c: &mut Cursor<'_>, count: &mut usize) -> Result<Self, TextError> {
                Ok(($($A::read_stages(c, count)?,)+))
            }
        }
    };
}
const_layout_cute::__for_tuples!(impl_stages_text_tuple);

/// `transforms: [stage, ...]`, the stages read into `S`.
fn read_transforms<S: StagesText>(c: &mut Cursor<'_>) -> Result<S, TextError> {
    field(c, "transforms")?;
    c.expect('[', "`[`")?;
    let mut count = 0;
    let stages = S::read_stages(c, &mut count)?;
    let column = c.column();
    if !c.eat(']') {
        if c.peek() == Some(',') {
            return Err(TextError::Structure {
                column,
                transform: None,
                expected: Expected::Transforms(S::TRANSFORMS),
            });
        }
        return Err(c.error("`]`").into());
    }
    Ok(stages)
}

/// `name:`, after a `{` or a `,`.
fn field(c: &mut Cursor<'_>, name: &'static str) -> Result<(), TextError> {
    let at = c.position();
    if c.word() != Some(name) || !c.eat(':') {
        return Err(c.error_at(at, name).into());
    }
    Ok(())
}

/// `{word}{` opening an adaptor or descriptor.
fn open(c: &mut Cursor<'_>, word: &'static str) -> Result<(), TextError> {
    let at = c.position();
    if c.word() != Some(word) {
        return Err(c.error_at(at, word).into());
    }
    c.expect('{', "`{`")?;
    Ok(())
}

/// A guaranteed vector length or stride: an integer from 0, or CK's `-1` for unknown.
fn guarantee(c: &mut Cursor<'_>) -> Result<isize, TextError> {
    let at = c.position();
    let v = c.int()?;
    if v.value < -1 || v.has_basis() {
        return Err(c.error_at(at, "a length or stride, or -1 for unknown").into());
    }
    Ok(v.value)
}

/// `word{transforms: [..]`, then `, bottom: [..]` if the text has one (an adaptor's; a
/// descriptor's bottom is the offset), then `, top: [..]`: the adaptor, checked as
/// [`TensorAdaptor::new`] checks hand-wired ones.
fn read_adaptor<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence>(
    c: &mut Cursor<'_>,
    word: &'static str,
    with_bottom: bool,
) -> Result<TensorAdaptor<S, H, Top, Bottom>, TextError> {
    open(c, word)?;
    let column = c.column();
    let stages = read_transforms::<S>(c)?;
    if with_bottom {
        c.expect(',', "`,`")?;
        field(c, "bottom")?;
        read_ids(c, Bottom::SLICE, None, Expected::Bottom)?;
    }
    c.expect(',', "`,`")?;
    field(c, "top")?;
    read_ids(c, Top::SLICE, None, Expected::Top)?;
    refused(column, TensorAdaptor::new(stages, Bottom::default()))
}

/// The closing `}` and nothing after it.
fn close(c: &mut Cursor<'_>) -> Result<(), TextError> {
    c.expect('}', "`}`")?;
    if !c.at_end() {
        return Err(c.error("the end of the input").into());
    }
    Ok(())
}

impl<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence> fmt::Display
    for TensorAdaptor<S, H, Top, Bottom>
{
    /// `tensor_adaptor{transforms: [..], bottom: [..], top: [..]}` (the [module](self)'s notation).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor_adaptor{transforms: [")?;
        self.stages().write_stages(f, &mut 0)?;
        f.write_str("], bottom: ")?;
        write_ids(f, Bottom::SLICE)?;
        f.write_str(", top: ")?;
        write_ids(f, Top::SLICE)?;
        f.write_str("}")
    }
}

impl<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence> FromStr
    for TensorAdaptor<S, H, Top, Bottom>
{
    type Err = TextError;
    /// The [module](self)'s notation read into this adaptor type.
    ///
    /// ```
    /// use const_layout::sequence;
    /// use const_layout::ck_tile::{make_single_stage_tensor_adaptor, PassThrough, Stage, Unmerge, multi_index};
    /// let a = make_single_stage_tensor_adaptor((
    ///     Stage::new(PassThrough::new(4usize), sequence![0], sequence![1]),
    ///     Stage::new(Unmerge::new((2usize, 3usize)), sequence![1], sequence![0, 2]),
    /// ));
    /// let text = a.to_string();
    /// assert_eq!(text, "tensor_adaptor{transforms: [pass_through(4): [3] -> [0], unmerge((2,3)): [2,4] -> [1]], bottom: [0,1], top: [2,3,4]}");
    /// // The type is the adaptor's: a function names it for `parse`.
    /// fn same<T: core::str::FromStr>(_: &T, s: &str) -> Result<T, T::Err> {
    ///     s.parse()
    /// }
    /// let b = same(&a, &text.replace("(2,3)", "(3,2)")).unwrap();
    /// assert_eq!(b.calculate_bottom_index(&multi_index([1, 2, 1])).as_slice(), &[2, 1 * 2 + 1]);
    /// assert!(same(&a, &text.replace("[3] -> [0]", "[4] -> [0]")).is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, TextError> {
        let mut c = Cursor::new(s);
        let a = read_adaptor(&mut c, "tensor_adaptor", true)?;
        close(&mut c)?;
        Ok(a)
    }
}

impl<S: StagesText, H: ArrayLength, Top: Sequence> fmt::Display for TensorDescriptor<S, H, Top> {
    /// `tensor_descriptor{transforms: [..], top: [..], element_space_size: n}`, and
    /// `, guaranteed: [..]` where something is guaranteed (the [module](self)'s notation).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor_descriptor{transforms: [")?;
        self.adaptor().stages().write_stages(f, &mut 0)?;
        f.write_str("], top: ")?;
        write_ids(f, Top::SLICE)?;
        write!(f, ", element_space_size: {}", self.element_space_size())?;
        let g = self.guaranteed_vectors();
        if g.iter().any(|v| *v != SafeVector::UNKNOWN) {
            f.write_str(", guaranteed: [")?;
            for (k, v) in g.iter().enumerate() {
                let (l, s) = v.to_ck();
                write!(f, "{}({l},{s})", if k > 0 { "," } else { "" })?;
            }
            f.write_str("]")?;
        }
        f.write_str("}")
    }
}

impl<S: StagesText, H: ArrayLength, Top: Sequence> FromStr for TensorDescriptor<S, H, Top> {
    type Err = TextError;
    /// The [module](self)'s notation read into this descriptor type.
    fn from_str(s: &str) -> Result<Self, TextError> {
        let mut c = Cursor::new(s);
        let adaptor = read_adaptor(&mut c, "tensor_descriptor", false)?;
        c.expect(',', "`,`")?;
        field(&mut c, "element_space_size")?;
        let at = c.position();
        let size = c.int()?;
        if size.value < 0 || size.has_basis() {
            return Err(c.error_at(at, "an element space size (an integer from 0)").into());
        }
        let mut guaranteed = SafeVectors::<H>::default();
        if c.eat(',') {
            field(&mut c, "guaranteed")?;
            c.expect('[', "`[`")?;
            for (k, g) in guaranteed.iter_mut().enumerate() {
                if k > 0 {
                    c.expect(',', "`,` (one guarantee per hidden dimension)")?;
                }
                c.expect('(', "`(`")?;
                let length = guarantee(&mut c)?;
                c.expect(',', "`,`")?;
                let stride = guarantee(&mut c)?;
                c.expect(')', "`)`")?;
                *g = SafeVector::from_ck(length, stride);
            }
            c.expect(']', "`]` (one guarantee per hidden dimension)")?;
        }
        close(&mut c)?;
        Ok(TensorDescriptor { adaptor, element_space_size: size.value, guaranteed })
    }
}
