//! The layout algebra on static layouts held in type parameters: `composition::<A, B>` where `A`
//! and `B` are any static layout types, for generic kernels that cannot write their layouts
//! literally in [`layout!`](macro@crate::layout).
//!
//! Rust cannot (on stable) choose a type from a constant's value, and the structure of an algebra
//! result depends on the operands' values (`coalesce` merges modes whose strides line up). So the
//! result is a zero-sized type that *names* the expression, [`Computed`]`<Composition<A, B>>`, and
//! its layout is an associated constant, [`StaticLayout::LAYOUT`], computed at compile time by
//! the same `const fn` algebra that runs at run time ([`crate::algebra`]), with CuTe's static
//! result structure. Index math reads a per-coordinate-type plan from constants, so after
//! inlining it is the same straight-line integer code as for a literal static layout (checked on
//! machine code in `tests/codegen.rs`).
//!
//! An inadmissible expression (where CuTe would return a wrong layout) is a compile error in a
//! full build (`cargo build`, not `cargo check`), whose first line names the failed condition
//! with its numbers:
//!
//! ```text
//! error[E0080]: evaluation panicked: composition: the right layout's modes overlap in mode 0 of
//!               the left layout (extent 6): their offsets there reach 4 + 3 = 7
//! ```
//!
//! ```
//! use const_layout::algebra::computed::{StaticLayout, StaticTiler, composition, logical_divide, zipped_divide};
//! use const_layout::{layout_type, _3, _4};
//!
//! // A generic function: the layout and the tile are type parameters.
//! fn tiles<A: StaticLayout, T: StaticTiler>(a: A, t: T) -> String {
//!     zipped_divide(a, t).to_string()
//! }
//! type Gmem = layout_type!((8,6):(1,8));
//! // A tuple of static integers is a by-mode tiler (CuTe's `make_shape(_4{}, _3{})`).
//! assert_eq!(tiles(Gmem::default(), (_4::default(), _3::default())), "((_4,_3),(_2,_2)):((_1,_8),(_4,_24))");
//!
//! // A layout is a tiler too; results are zero-sized and feed further operations.
//! let d = logical_divide(Gmem::default(), <layout_type!(2:3)>::default());
//! assert_eq!(d.to_string(), "(_2,(_3,_8)):(_3,(_1,_6))");
//! assert_eq!(core::mem::size_of_val(&d), 0);
//! assert_eq!(d.crd2idx(5usize), 3 + 2); // index 5 is (1,(2,0))
//! let c = composition(d, <layout_type!((2,3):(1,2))>::default());
//! assert_eq!(c.crd2idx((1usize, 2usize)), d.crd2idx(5usize));
//! ```

use crate::algebra::{self, TileMode, Tiler};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{DynIntTuple, DynLayout, MAX_NODES};
use crate::error::LayoutError;
use crate::eval::{Arg, Op, apply_layout_op};
use crate::int_tuple::{IntTuple, StaticTuple};
use crate::layout::Layout;
use core::fmt;
use core::marker::PhantomData;

/// A layout whose structure and values are all known at compile time, as a constant.
///
/// Implemented by static [`Layout`]s (every integer a `C<N>`) and by [`Computed`] results, so
/// results feed further operations.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static layout",
    label = "the static layout algebra needs a layout whose integers are all static",
    note = "write it with `layout_type!` or `layout!` literals (`C<N>` integers); layouts with runtime integers go through `const_layout::algebra` at run time"
)]
pub trait StaticLayout {
    /// The layout.
    const LAYOUT: DynLayout;
}

#[diagnostic::do_not_recommend]
impl<S: StaticTuple, D: StaticTuple> StaticLayout for Layout<S, D> {
    const LAYOUT: DynLayout = unwrap("layout", DynLayout::new(S::TREE, D::TREE));
}

/// An expression of the static algebra (`Composition<A, B>`, ...): the type a [`Computed`] result
/// is named by, with the result's layout as a constant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an expression of the static algebra",
    note = "the static algebra's expressions are the types its functions return inside `Computed<..>`"
)]
pub trait StaticExpr {
    /// The evaluator's operation this expression is (the table [`crate::eval::OPERATIONS`]).
    const OP: Op;
    /// The layout, computed at compile time.
    const LAYOUT: DynLayout;
}

/// A right operand of `composition`, the divides and the products, known at compile time: a
/// static layout, a static integer `n` (CuTe's `n:_1`), or a tuple of items (by mode; each item a
/// static integer, a static layout, a static int tuple or [`Keep`] for CuTe's `_`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static tiler",
    label = "expected a static layout, a static integer, or a tuple of those (by mode)",
    note = "by-mode items are `C<N>`, static layouts, static int tuples or `Keep` (CuTe's `_`)"
)]
pub trait StaticTiler {
    /// The tiler.
    const TILER: Tiler;
    /// The tiler as `composition` reads it: the same, but an integer `n` is `n:_1` (CuTe composes
    /// with `n:_1`, while the divides and products tile by `make_layout(n)`, which is `_1:_0` for
    /// `_1`).
    const COMPOSITION: Tiler = Self::TILER;
}

/// CuTe's `_` in a by-mode tiler: keep this mode as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Keep;

/// One item of a by-mode static tiler.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an item of a static by-mode tiler",
    note = "by-mode items are `C<N>`, static layouts, static int tuples or `Keep` (CuTe's `_`)"
)]
pub trait StaticTileItem {
    /// The item.
    const ITEM: TileMode;
}

impl<const N: isize> StaticTileItem for crate::C<N> {
    const ITEM: TileMode = TileMode::Shape(<crate::C<N> as IntTuple>::TREE);
}

impl StaticTileItem for Keep {
    const ITEM: TileMode = TileMode::Keep;
}

impl<S: StaticTuple, D: StaticTuple> StaticTileItem for Layout<S, D> {
    const ITEM: TileMode = TileMode::Layout(<Layout<S, D> as StaticLayout>::LAYOUT);
}

impl<E: StaticExpr> StaticTileItem for Computed<E> {
    const ITEM: TileMode = TileMode::Layout(E::LAYOUT);
}

impl<S: StaticTuple, D: StaticTuple> StaticTiler for Layout<S, D> {
    const TILER: Tiler = Tiler::Layout(<Layout<S, D> as StaticLayout>::LAYOUT);
}

impl<E: StaticExpr> StaticTiler for Computed<E> {
    const TILER: Tiler = Tiler::Layout(E::LAYOUT);
}

impl<const N: isize> StaticTiler for crate::C<N> {
    const TILER: Tiler = unwrap("tiler", Tiler::from_shape(&<crate::C<N> as IntTuple>::TREE));
    const COMPOSITION: Tiler = Tiler::Layout(unwrap(
        "tiler",
        DynLayout::new(
            <crate::C<N> as IntTuple>::TREE,
            DynIntTuple::int(crate::dyn_layout::DynInt::new_static(1)),
        ),
    ));
}

/// A static int tuple inside a by-mode tiler (`<(_2,_3), _4>`): by mode again.
impl<T: StaticTuple + crate::int_tuple::Tuple> StaticTileItem for T {
    const ITEM: TileMode = TileMode::Shape(T::TREE);
}

macro_rules! impl_static_tiler {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: StaticTileItem),+> StaticTiler for ($($A,)+) {
            const TILER: Tiler = unwrap("tiler", Tiler::by_mode(&[$($A::ITEM),+]));
        }
    };
}
crate::arity::for_tuples!(impl_static_tiler);

/// `r`'s value, or a compile-time error naming the operation and the failed condition.
pub(crate) const fn unwrap<T: Copy>(op: &'static str, r: Result<T, LayoutError>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => {
            let m = crate::error::Message::new().text(op).text(": ");
            // The algebra's own errors already start with the operation's name.
            let m = if let LayoutError::Inadmissible { .. }
            | LayoutError::ModeOutOfRange { .. }
            | LayoutError::TileNotDivisible { .. } = e
            {
                crate::error::Message::new()
            } else {
                m
            };
            let m = m.text(e.message().as_str());
            panic!("{}", m.as_str())
        }
    }
}

/// A zero-sized layout computed at compile time: the result of the static algebra on type
/// parameters. Its layout is `E::LAYOUT`; `size`, `cosize`, `rank` are constants and
/// [`Computed::crd2idx`] folds to straight-line code.
///
/// ```
/// use const_layout::algebra::computed::{Computed, coalesce};
/// use const_layout::layout_type;
/// let c = coalesce(<layout_type!((2,(1,6)):(1,(6,2)))>::default());
/// assert_eq!(c.to_string(), "_12:_1");
/// assert_eq!((c.size(), c.rank()), (12, 1));
/// ```
pub struct Computed<E>(PhantomData<fn() -> E>);

impl<E> Clone for Computed<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Computed<E> {}
impl<E> Default for Computed<E> {
    fn default() -> Self {
        Computed(PhantomData)
    }
}

impl<E: StaticExpr> StaticLayout for Computed<E> {
    const LAYOUT: DynLayout = E::LAYOUT;
}

impl<E: StaticExpr> Computed<E> {
    /// The layout, as a runtime-structured value (to print, or to pass to [`crate::algebra`]).
    pub const LAYOUT: DynLayout = E::LAYOUT;
    /// CuTe's `size`.
    pub const SIZE: isize = E::LAYOUT.size().value;
    /// CuTe's `cosize`.
    pub const COSIZE: isize = E::LAYOUT.cosize().value;
    /// CuTe's `rank`.
    pub const RANK: usize = E::LAYOUT.rank();

    /// CuTe's `size`.
    pub const fn size(&self) -> isize {
        Self::SIZE
    }

    /// CuTe's `cosize`.
    pub const fn cosize(&self) -> isize {
        Self::COSIZE
    }

    /// CuTe's `rank`.
    pub const fn rank(&self) -> usize {
        Self::RANK
    }

    /// The layout as a [`DynLayout`].
    pub const fn to_dyn(&self) -> DynLayout {
        E::LAYOUT
    }

    /// CuTe's `crd2idx(coord, layout)`: `coord` is an integer index or a coordinate of any
    /// profile the shape accepts (hierarchical, flat, or mixed). A coordinate that does not fit
    /// the shape's structure is a compile error naming both ranks.
    ///
    /// ```
    /// use const_layout::algebra::computed::logical_divide;
    /// use const_layout::{layout_type, _2, _3};
    /// let d = logical_divide(<layout_type!((4,6):(1,4))>::default(), <(_2, _3)>::default());
    /// assert_eq!(d.to_string(), "((_2,_2),(_3,_2)):((_1,_2),(_4,_12))");
    /// // Hierarchical, and mixed: an integer against a tuple mode is split over it.
    /// assert_eq!(d.crd2idx(((1usize, 1usize), (2usize, 1usize))), 1 + 2 + 8 + 12);
    /// assert_eq!(d.crd2idx((3usize, 5usize)), 1 + 2 + 8 + 12);
    /// assert_eq!(d.crd2idx(23usize), 23);
    /// ```
    #[inline(always)]
    pub fn crd2idx<Crd: IntTuple>(&self, coord: Crd) -> isize {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        const { &Plan::<Self, Crd>::PLAN }.offset(&leaves)
    }

    /// [`Computed::crd2idx`] for a coordinate inside the shape, else the error naming the integer
    /// outside its extent (`IndexOutOfRange` for an integer index into a tuple shape).
    ///
    /// ```
    /// use const_layout::algebra::computed::zipped_divide;
    /// use const_layout::{layout_type, LayoutError, C};
    /// let d = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    /// assert_eq!(d.checked_crd2idx(((3usize, 2usize), (1usize, 1usize))), Ok(3 + 16 + 4 + 24));
    /// assert_eq!(
    ///     d.checked_crd2idx(((4usize, 0usize), (0usize, 0usize))),
    ///     Err(LayoutError::CoordinateOutOfRange { leaf: 0, value: 4, extent: 4 })
    /// );
    /// assert_eq!(d.checked_crd2idx(48usize), Err(LayoutError::IndexOutOfRange { index: 48, size: 48 }));
    /// ```
    #[inline(always)]
    pub fn checked_crd2idx<Crd: IntTuple>(&self, coord: Crd) -> Result<isize, LayoutError> {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        const { &Plan::<Self, Crd>::PLAN }.checked_offset(&leaves, Crd::IS_INT && !E::LAYOUT.shape().is_int())
    }
}

impl<E: StaticExpr> fmt::Display for Computed<E> {
    /// CuTe notation, as CuTe prints the static result.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&E::LAYOUT, f)
    }
}

impl<E: StaticExpr> fmt::Debug for Computed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&E::LAYOUT, f)
    }
}

/// How one integer of the shape reads the coordinate: `(coord[src] / div) % modulo * stride`
/// (no `% modulo` when it is 0: the last integer an index is split over takes what is left, as
/// in CuTe).
#[derive(Clone, Copy)]
struct Step {
    src: u8,
    div: usize,
    modulo: usize,
    stride: isize,
}

/// The index math of one layout for one coordinate structure, computed at compile time.
#[derive(Clone, Copy)]
struct CrdPlan {
    n: usize,
    steps: [Step; MAX_NODES],
    /// The number of coordinate integers, and the extent each must be below (the size of the
    /// part of the shape it indexes): what a checked access compares.
    leaves: usize,
    extent: [usize; MAX_NODES],
}

impl CrdPlan {
    /// The plan of `layout` for coordinates shaped like `coord` (its values are not read).
    const fn new(coord: &DynIntTuple, layout: &DynLayout) -> CrdPlan {
        let mut plan = CrdPlan {
            n: 0,
            steps: [Step { src: 0, div: 1, modulo: 0, stride: 0 }; MAX_NODES],
            leaves: 0,
            extent: [0; MAX_NODES],
        };
        let mut cursor = Cursor { coord_leaf: 0, shape_node: 0 };
        match plan_mode(&mut plan, coord, 0, layout.shape(), layout.stride(), &mut cursor) {
            Ok(()) => plan,
            Err(e) => unwrap::<CrdPlan>("crd2idx", Err(e)),
        }
    }

    /// The offset of the coordinate whose integers are `leaves` (left to right).
    #[inline(always)]
    fn offset(&self, leaves: &[isize; MAX_NODES]) -> isize {
        let mut offset = 0isize;
        let mut k = 0;
        while k < self.n {
            let step = self.steps[k];
            let c = leaves[step.src as usize] as usize / step.div;
            let c = if step.modulo == 0 { c } else { c % step.modulo };
            offset += c as isize * step.stride;
            k += 1;
        }
        offset
    }

    /// [`CrdPlan::offset`] if every coordinate integer is below its extent, else the error
    /// naming the first that is not (an integer index into a tuple shape: `IndexOutOfRange`).
    #[inline(always)]
    fn checked_offset(&self, leaves: &[isize; MAX_NODES], index: bool) -> Result<isize, LayoutError> {
        let mut k = 0;
        while k < self.leaves {
            let (value, extent) = (leaves[k], self.extent[k]);
            if value < 0 || value as usize >= extent {
                return Err(if index {
                    LayoutError::IndexOutOfRange { index: value, size: extent as isize }
                } else {
                    LayoutError::CoordinateOutOfRange { leaf: k, value, extent: extent as isize }
                });
            }
            k += 1;
        }
        Ok(self.offset(leaves))
    }
}

struct Plan<L, Crd>(PhantomData<(L, Crd)>);

impl<L: StaticLayout, Crd: IntTuple> Plan<L, Crd> {
    const PLAN: CrdPlan = {
        if L::LAYOUT.has_basis() {
            panic!(
                "crd2idx: the layout has basis strides (an identity layout): its values are coordinates; read them with `coord`"
            );
        }
        CrdPlan::new(&Crd::TREE, &L::LAYOUT)
    };
}

/// Where the planner is: the next coordinate integer and the next node of the shape.
struct Cursor {
    coord_leaf: usize,
    shape_node: usize,
}

/// Plan the coordinate subtree at node `c` of `coord` against the whole of `shape` (a subtree of
/// the layout's shape starting at `cursor.shape_node`).
const fn plan_mode(
    plan: &mut CrdPlan,
    coord: &DynIntTuple,
    c: usize,
    shape: &DynIntTuple,
    stride: &DynIntTuple,
    cursor: &mut Cursor,
) -> Result<(), LayoutError> {
    match coord.node(c) {
        Node::Int(_) => {
            // One integer over a whole (sub)shape: split colexicographically over its integers.
            let src = cursor.coord_leaf as u8;
            cursor.coord_leaf += 1;
            let end = subtree_end(shape, cursor.shape_node);
            let mut last = cursor.shape_node;
            let mut k = cursor.shape_node;
            while k < end {
                if let Node::Int(_) = shape.node(k) {
                    last = k;
                }
                k += 1;
            }
            let mut div = 1usize;
            let mut k = cursor.shape_node;
            while k < end {
                if let (Node::Int(s), Node::Int(d)) = (shape.node(k), stride.node(k)) {
                    let modulo = if k == last { 0 } else { s.value as usize };
                    plan.steps[plan.n] = Step { src, div, modulo, stride: d.value };
                    plan.n += 1;
                    div *= s.value as usize;
                }
                k += 1;
            }
            plan.extent[src as usize] = div;
            plan.leaves = src as usize + 1;
            cursor.shape_node = end;
            Ok(())
        }
        Node::Tuple(r) => {
            let Node::Tuple(sr) = shape.node(cursor.shape_node) else {
                return Err(LayoutError::RankMismatch { what: "coordinate", got: r as usize, expected: 1 });
            };
            if r != sr {
                return Err(LayoutError::RankMismatch {
                    what: "coordinate",
                    got: r as usize,
                    expected: sr as usize,
                });
            }
            cursor.shape_node += 1;
            let mut child = c + 1;
            let mut i = 0;
            while i < r as usize {
                if let Err(e) = plan_mode(plan, coord, child, shape, stride, cursor) {
                    return Err(e);
                }
                child = subtree_end(coord, child);
                i += 1;
            }
            Ok(())
        }
    }
}

/// The node just past the subtree at `pos`.
const fn subtree_end(t: &DynIntTuple, pos: usize) -> usize {
    let mut pending = 1usize;
    let mut p = pos;
    while pending > 0 {
        match t.node(p) {
            Node::Int(_) => pending -= 1,
            Node::Tuple(n) => pending = pending + n as usize - 1,
        }
        p += 1;
    }
    p
}

// Each expression type names its operation in the evaluator's table and computes its layout
// through the table's dispatcher, `apply_layout_op`, the one place an operation meets
// `algebra::*`; the operands are listed as the dispatcher takes them. The forms CuTe builds on
// another (the zipped, tiled and flat divides and products, the blocked and raked products,
// `local_tile`) call the same `algebra` functions' parts on a shared constant instead, so that
// one pair of operands is divided or multiplied once (`Shared`).
macro_rules! operations {
    ($($(#[$doc:meta])* $name:ident $fun:ident $(<$(const $C:ident: $CT:ty),+>)? ($($arg:ident: $T:ident: $Pub:ident / $Priv:ident),+) => $op:ident [$($kind:ident($e:expr)),+];)+) => {$(
        $(#[$doc])*
        ///
        #[doc = concat!("The expression type of [`", stringify!($fun), "`]; its layout is computed at compile time.")]
        pub struct $name<$($T,)+ $($(const $C: $CT),+)?>(PhantomData<fn() -> ($($T,)+)>);

        impl<$($T: $Pub,)+ $($(const $C: $CT),+)?> StaticExpr for $name<$($T,)+ $($($C),+)?> {
            const OP: Op = Op::$op;
            const LAYOUT: DynLayout = {
                $(let $arg = &<$T as $Priv>::VALUE;)+
                unwrap(stringify!($fun), apply_layout_op(Op::$op, &[$(Arg::$kind($e)),+]))
            };
        }

        $(#[$doc])*
        #[allow(unused_variables)]
        pub fn $fun<$($(const $C: $CT,)+)? $($T: $Pub),+>($($arg: $T),+) -> Computed<$name<$($T,)+ $($($C),+)?>> {
            Computed(PhantomData)
        }
    )+};
}

/// A static layout operand.
trait LayoutArg {
    const VALUE: DynLayout;
}
impl<T: StaticLayout> LayoutArg for T {
    const VALUE: DynLayout = T::LAYOUT;
}

/// A static tiler operand.
trait TilerArg {
    const VALUE: Tiler;
}
impl<T: StaticTiler> TilerArg for T {
    const VALUE: Tiler = T::TILER;
}

/// A static tiler operand of `composition` (an integer `n` is `n:_1`).
trait ComposeArg {
    const VALUE: Tiler;
}
impl<T: StaticTiler> ComposeArg for T {
    const VALUE: Tiler = T::COMPOSITION;
}

/// A static int tuple operand (a cotarget).
trait TupleArg {
    const VALUE: DynIntTuple;
}
impl<T: StaticTuple> TupleArg for T {
    const VALUE: DynIntTuple = T::TREE;
}

operations! {
    /// CuTe's `coalesce(layout)` on a static layout.
    Coalesce coalesce(a: A: StaticLayout / LayoutArg) => Coalesce [Layout(a)];
}

operations! {
    /// CuTe's `filter(layout)` on a static layout.
    Filter filter(a: A: StaticLayout / LayoutArg) => Filter [Layout(a)];
}

operations! {
    /// CuTe's `composition(layout, tiler)` on static operands.
    Composition composition(a: A: StaticLayout / LayoutArg, b: B: StaticTiler / ComposeArg) => Composition [Layout(a), Tiler(b)];
}

operations! {
    /// CuTe's `complement(layout)` on a static layout.
    Complement complement(a: A: StaticLayout / LayoutArg) => Complement [Layout(a)];
}

operations! {
    /// CuTe's `complement(layout, cotarget)` on a static layout and a static cotarget.
    ComplementTo complement_to(a: A: StaticLayout / LayoutArg, m: M: StaticTuple / TupleArg) => Complement [Layout(a), Tuple(m)];
}

/// An expression's result before it is unwrapped, as a constant of its own: the zipped, tiled
/// and flat forms of a divide or a product derive from the logical one (and `local_tile` from the
/// zipped divide), so each pair of operands is divided or multiplied once however many of its
/// forms a program names, as CuTe's own functions are built on each other.
trait Shared {
    const RESULT: Result<DynLayout, LayoutError>;
}

// The divides and the products with a tiler: the logical form through the dispatcher, each other
// form from the one it is built on in CuTe (`derive` takes its result and the tiler).
macro_rules! tiler_operations {
    ($($(#[$doc:meta])* $name:ident $fun:ident($a:ident, $b:ident) => $op:ident from $from:tt;)+) => {$(
        $(#[$doc])*
        ///
        #[doc = concat!("The expression type of [`", stringify!($fun), "`]; its layout is computed at compile time.")]
        pub struct $name<A, B>(PhantomData<fn() -> (A, B)>);

        impl<A: StaticLayout, B: StaticTiler> Shared for $name<A, B> {
            const RESULT: Result<DynLayout, LayoutError> = tiler_operations!(@result $op $from A B);
        }

        impl<A: StaticLayout, B: StaticTiler> StaticExpr for $name<A, B> {
            const OP: Op = Op::$op;
            const LAYOUT: DynLayout = unwrap(stringify!($fun), <Self as Shared>::RESULT);
        }

        $(#[$doc])*
        #[allow(unused_variables)]
        pub fn $fun<A: StaticLayout, B: StaticTiler>($a: A, $b: B) -> Computed<$name<A, B>> {
            Computed(PhantomData)
        }
    )+};
    (@result $op:ident (dispatch) $A:ident $B:ident) => {
        apply_layout_op(Op::$op, &[Arg::Layout(&<$A as LayoutArg>::VALUE), Arg::Tiler(&<$B as TilerArg>::VALUE)])
    };
    (@result $op:ident ($base:ident, $derive:ident) $A:ident $B:ident) => {
        match <$base<$A, $B> as Shared>::RESULT {
            Ok(l) => $derive(&l, &<$B as TilerArg>::VALUE),
            Err(e) => Err(e),
        }
    };
}

/// The tiled form from the zipped one: the rests at the top level.
const fn unpack_rests(zipped: &DynLayout, _: &Tiler) -> Result<DynLayout, LayoutError> {
    algebra::unpack(zipped, false, true)
}

/// The flat form from the zipped one: tiles and rests at the top level.
const fn unpack_all(zipped: &DynLayout, _: &Tiler) -> Result<DynLayout, LayoutError> {
    algebra::unpack(zipped, true, true)
}

use algebra::zipped as zip_by_tiler;

tiler_operations! {
    /// CuTe's `logical_divide(layout, tiler)` on static operands.
    LogicalDivide logical_divide(a, b) => LogicalDivide from (dispatch);
    /// CuTe's `zipped_divide(layout, tiler)` on static operands.
    ZippedDivide zipped_divide(a, b) => ZippedDivide from (LogicalDivide, zip_by_tiler);
    /// CuTe's `tiled_divide(layout, tiler)` on static operands.
    TiledDivide tiled_divide(a, b) => TiledDivide from (ZippedDivide, unpack_rests);
    /// CuTe's `flat_divide(layout, tiler)` on static operands.
    FlatDivide flat_divide(a, b) => FlatDivide from (ZippedDivide, unpack_all);
    /// CuTe's `logical_product(block, tiler)` on static operands.
    LogicalProduct logical_product(a, b) => LogicalProduct from (dispatch);
    /// CuTe's `zipped_product(block, tiler)` on static operands.
    ZippedProduct zipped_product(a, b) => ZippedProduct from (LogicalProduct, zip_by_tiler);
    /// CuTe's `tiled_product(block, tiler)` on static operands.
    TiledProduct tiled_product(a, b) => TiledProduct from (ZippedProduct, unpack_rests);
    /// CuTe's `flat_product(block, tiler)` on static operands.
    FlatProduct flat_product(a, b) => FlatProduct from (ZippedProduct, unpack_all);
}

/// What [`blocked_product`] and [`raked_product`] of one pair of operands share, computed once.
struct RankSensitive<A, B>(PhantomData<fn() -> (A, B)>);

impl<A: StaticLayout, B: StaticLayout> RankSensitive<A, B> {
    const PARTS: Result<(DynLayout, DynLayout, usize), LayoutError> =
        algebra::rank_sensitive_parts(&A::LAYOUT, &B::LAYOUT);
}

macro_rules! rank_sensitive_operations {
    ($($(#[$doc:meta])* $name:ident $fun:ident => $op:ident, raked: $raked:literal;)+) => {$(
        $(#[$doc])*
        ///
        #[doc = concat!("The expression type of [`", stringify!($fun), "`]; its layout is computed at compile time.")]
        pub struct $name<A, B>(PhantomData<fn() -> (A, B)>);

        impl<A: StaticLayout, B: StaticLayout> StaticExpr for $name<A, B> {
            const OP: Op = Op::$op;
            const LAYOUT: DynLayout = unwrap(
                stringify!($fun),
                match RankSensitive::<A, B>::PARTS {
                    Ok(parts) => algebra::rank_sensitive_zip(&parts, $raked),
                    Err(e) => Err(e),
                },
            );
        }

        $(#[$doc])*
        #[allow(unused_variables)]
        pub fn $fun<A: StaticLayout, B: StaticLayout>(a: A, b: B) -> Computed<$name<A, B>> {
            Computed(PhantomData)
        }
    )+};
}

rank_sensitive_operations! {
    /// CuTe's `blocked_product(block, layout)` on static layouts.
    BlockedProduct blocked_product => BlockedProduct, raked: false;
    /// CuTe's `raked_product(block, layout)` on static layouts.
    RakedProduct raked_product => RakedProduct, raked: true;
}

operations! {
    /// CuTe's `tile_to_shape(block, shape)` on a static layout and a static shape.
    TileToShape tile_to_shape(a: A: StaticLayout / LayoutArg, s: S: StaticTuple / TupleArg) => TileToShape [Layout(a), Tuple(s)];
}

operations! {
    /// CuTe's `right_inverse(layout)` on a static layout.
    RightInverse right_inverse(a: A: StaticLayout / LayoutArg) => RightInverse [Layout(a)];
}

operations! {
    /// CuTe's `left_inverse(layout)` on a static layout.
    LeftInverse left_inverse(a: A: StaticLayout / LayoutArg) => LeftInverse [Layout(a)];
}

operations! {
    /// CuTe's `max_common_layout(a, b)` on static layouts.
    MaxCommonLayout max_common_layout(a: A: StaticLayout / LayoutArg, b: B: StaticLayout / LayoutArg) => MaxCommonLayout [Layout(a), Layout(b)];
}

operations! {
    /// CuTe's `nullspace(layout)` on a static layout.
    Nullspace nullspace(a: A: StaticLayout / LayoutArg) => Nullspace [Layout(a)];
}

operations! {
    /// CuTe's `make_layout_like(layout)` on a static layout.
    MakeLayoutLike make_layout_like(a: A: StaticLayout / LayoutArg) => MakeLayoutLike [Layout(a)];
}

operations! {
    /// CuTe's `append(layout, x)` on static layouts.
    Append append(a: A: StaticLayout / LayoutArg, x: X: StaticLayout / LayoutArg) => Append [Layout(a), Layout(x)];
}

operations! {
    /// CuTe's `prepend(layout, x)` on static layouts.
    Prepend prepend(a: A: StaticLayout / LayoutArg, x: X: StaticLayout / LayoutArg) => Prepend [Layout(a), Layout(x)];
}

operations! {
    /// CuTe's `take<B, E>(layout)`: modes `B..E` (write `take::<B, E, _>(layout)`).
    Take take<const B: usize, const E: usize>(a: A: StaticLayout / LayoutArg) => Take [Layout(a), Index(B), Index(E)];
}

operations! {
    /// CuTe's `group<B, E>(layout)`: modes `B..E` as one mode (write `group::<B, E, _>(layout)`).
    Group group<const B: usize, const E: usize>(a: A: StaticLayout / LayoutArg) => Group [Layout(a), Index(B), Index(E)];
}

operations! {
    /// CuTe's `layout<I>(layout)` (`get<I>`): mode `I` as a layout (write `mode::<I, _>(layout)`).
    Mode mode<const I: usize>(a: A: StaticLayout / LayoutArg) => Get [Layout(a), Index(I)];
}

operations! {
    /// CuTe's `select<I, J>(layout)`: modes `I` and `J` (write `select2::<I, J, _>(layout)`).
    Select2 select2<const I: usize, const J: usize>(a: A: StaticLayout / LayoutArg) => Select [Layout(a), Index(I), Index(J)];
}
operations! {
    /// CuTe's `select<I, J, K>(layout)` (write `select3::<I, J, K, _>(layout)`).
    Select3 select3<const I: usize, const J: usize, const K: usize>(a: A: StaticLayout / LayoutArg) => Select [Layout(a), Index(I), Index(J), Index(K)];
}
operations! {
    /// CuTe's `select<I, J, K, L>(layout)` (write `select4::<I, J, K, L, _>(layout)`).
    Select4 select4<const I: usize, const J: usize, const K: usize, const L: usize>(a: A: StaticLayout / LayoutArg) => Select [Layout(a), Index(I), Index(J), Index(K), Index(L)];
}

operations! {
    /// CuTe's `replace<I>(layout, x)`: mode `I` replaced by `x` (write `replace::<I, _, _>(layout, x)`).
    Replace replace<const I: usize>(a: A: StaticLayout / LayoutArg, x: X: StaticLayout / LayoutArg) => Replace [Layout(a), Index(I), Layout(x)];
}

operations! {
    /// CuTe's `upcast<N>(layout)` (write `upcast::<N, _>(layout)`).
    Upcast upcast<const N: isize>(a: A: StaticLayout / LayoutArg) => Upcast [Layout(a), Int(N)];
}

operations! {
    /// CuTe's `downcast<N>(layout)` (write `downcast::<N, _>(layout)`).
    Downcast downcast<const N: isize>(a: A: StaticLayout / LayoutArg) => Downcast [Layout(a), Int(N)];
}

operations! {
    /// CuTe's `recast_layout<Old, New>(layout)` for element widths in bits (write
    /// `recast_layout::<16, 32, _>(layout)`).
    RecastLayout recast_layout<const OLD: isize, const NEW: isize>(a: A: StaticLayout / LayoutArg) => RecastLayout [Layout(a), Int(OLD), Int(NEW)];
}

/// CuTe's `make_layout_tv(thr_layout, val_layout)` on static layouts: the tile that threads laid
/// out as `thr`, each holding values laid out as `val`, cover, as its identity layout (a coordinate
/// per index, basis strides), and the `(thread, value) -> index` layout into that tile. Compose the
/// two for each thread's coordinates, as CuTe's `TiledCopy` does (and `print_latex_tv` draws):
///
/// ```
/// use const_layout::algebra::computed::{composition, make_layout_tv};
/// use const_layout::layout_type;
/// // 4x2 threads (row-major), each with a 2x2 block of values (column-major).
/// let (tile, tv) = make_layout_tv(<layout_type!((4,2):(2,1))>::default(), <layout_type!((2,2):(1,2))>::default());
/// assert_eq!(tile.to_string(), "(_8,_4):(_1@0,_1@1)");
/// assert_eq!(tv.to_string(), "((_2,_4),(_2,_2)):((_16,_2),(_1,_8))");
/// let coords = composition(tile, tv);
/// // Thread 3 (row 1, column 1 of the threads) holds the block at (2..4, 2..4).
/// let c: (usize, usize) = coords.coord((3usize, 3usize));
/// assert_eq!(c, (3, 3));
/// ```
#[allow(clippy::type_complexity)]
pub fn make_layout_tv<Thr: StaticLayout, Val: StaticLayout>(
    thr: Thr,
    val: Val,
) -> (Computed<TvTile<Thr, Val>>, Computed<LayoutTv<Thr, Val>>) {
    let _ = (thr, val);
    (Computed(PhantomData), Computed(PhantomData))
}

/// CuTe's `make_layout(shape(a))` for a static layout `A`: the compact column-major layout of
/// its shape, whose value at a coordinate is that coordinate's 1-D index (what a
/// [`Partition`](crate::tensor::Partition) of a static layout is indexed by).
///
/// ```
/// use const_layout::algebra::computed::{Computed, ShapeLayout};
/// use const_layout::layout_type;
/// let l = Computed::<ShapeLayout<layout_type!((4,(2,3)):(6,(1,2)))>>::default();
/// assert_eq!(l.to_string(), "(_4,(_2,_3)):(_1,(_4,_8))");
/// ```
pub struct ShapeLayout<A>(PhantomData<fn() -> A>);

impl<A: StaticLayout> StaticExpr for ShapeLayout<A> {
    const OP: Op = Op::MakeLayout;
    const LAYOUT: DynLayout = unwrap("make_layout", DynLayout::compact(*A::LAYOUT.shape(), true));
}

/// [`make_layout_tv`]'s tile shape and layout, once per pair of operands.
struct TvPair<Thr, Val>(PhantomData<fn() -> (Thr, Val)>);

impl<Thr: StaticLayout, Val: StaticLayout> TvPair<Thr, Val> {
    const PAIR: (DynIntTuple, DynLayout) =
        unwrap("make_layout_tv", algebra::make_layout_tv(&Thr::LAYOUT, &Val::LAYOUT));
}

/// The tile of [`make_layout_tv`], as its identity layout.
pub struct TvTile<Thr, Val>(PhantomData<fn() -> (Thr, Val)>);

impl<Thr: StaticLayout, Val: StaticLayout> StaticExpr for TvTile<Thr, Val> {
    const OP: Op = Op::MakeLayoutTv;
    // `make_layout_tv` is not layout-valued (a tile shape and a layout), so it is called here;
    // the tile's identity layout goes through the dispatcher.
    const LAYOUT: DynLayout = unwrap(
        "make_layout_tv",
        apply_layout_op(Op::MakeIdentityLayout, &[Arg::Tuple(&TvPair::<Thr, Val>::PAIR.0)]),
    );
}

/// The `(thread, value) -> index` layout of [`make_layout_tv`].
pub struct LayoutTv<Thr, Val>(PhantomData<fn() -> (Thr, Val)>);

impl<Thr: StaticLayout, Val: StaticLayout> StaticExpr for LayoutTv<Thr, Val> {
    const OP: Op = Op::MakeLayoutTv;
    const LAYOUT: DynLayout = TvPair::<Thr, Val>::PAIR.1;
}

/// CuTe's `max_common_vector(a, b)` on static layouts: the number of contiguous elements on which
/// they agree, a constant.
///
/// ```
/// use const_layout::algebra::computed::max_common_vector;
/// use const_layout::layout_type;
/// let a = <layout_type!((4,8):(1,4))>::default();
/// assert_eq!(max_common_vector(a, <layout_type!((4,8):(1,8))>::default()), 4);
/// ```
pub fn max_common_vector<A: StaticLayout, B: StaticLayout>(a: A, b: B) -> isize {
    let _ = (a, b);
    const { MaxCommonVector::<A, B>::VALUE }
}

struct MaxCommonVector<A, B>(PhantomData<(A, B)>);

impl<A: StaticLayout, B: StaticLayout> MaxCommonVector<A, B> {
    const VALUE: isize =
        unwrap("max_common_vector", algebra::max_common_vector(&A::LAYOUT, &B::LAYOUT)).value;
}

/// CuTe's `local_tile(tensor, tiler, coord)` on a static layout: the tile's layout (zero-sized, its
/// modes those of `zipped_divide(layout, tiler)`'s first mode) and the offset of tile `coord`,
/// usually a runtime block index, computed with the folded index math of the tiles' arrangement.
/// `coord` gives every mode of the arrangement (an integer, or one coordinate per mode).
///
/// ```
/// use const_layout::algebra::computed::local_tile;
/// use const_layout::{layout_type, C};
/// let gmem = <layout_type!((8,6):(1,8))>::default();
/// let (tile, offset) = local_tile(gmem, (C::<4>, C::<3>), (1usize, 1usize));
/// assert_eq!((tile.to_string(), offset), ("(_4,_3):(_1,_8)".to_string(), 28));
/// assert_eq!(core::mem::size_of_val(&tile), 0);
/// ```
#[inline(always)]
pub fn local_tile<A: StaticLayout, T: StaticTiler, Crd: IntTuple>(
    a: A,
    t: T,
    coord: Crd,
) -> (Computed<LocalTile<A, T>>, isize) {
    let _ = (a, t);
    (Computed(PhantomData), Computed::<Tiles<A, T>>(PhantomData).crd2idx(coord))
}

/// The tile of [`local_tile`]: the first mode of `zipped_divide(A, T)`, unpacked one level.
pub struct LocalTile<A, T>(PhantomData<fn() -> (A, T)>);

impl<A: StaticLayout, T: StaticTiler> StaticExpr for LocalTile<A, T> {
    // `local_tile` is partition-valued (a layout and an offset); its parts are not operations of
    // the table, so they are computed here.
    const OP: Op = Op::LocalTile;
    const LAYOUT: DynLayout = TileAndTiles::<A, T>::PAIR.0;
}

/// The tile and the tiles' arrangement of [`local_tile`], from the zipped divide (shared with
/// [`zipped_divide`] of the same operands), once per pair of operands.
struct TileAndTiles<A, T>(PhantomData<fn() -> (A, T)>);

impl<A: StaticLayout, T: StaticTiler> TileAndTiles<A, T> {
    const PAIR: (DynLayout, DynLayout) = unwrap(
        "local_tile",
        match <ZippedDivide<A, T> as Shared>::RESULT {
            Ok(z) => algebra::tile_and_tiles_of_zipped(&z),
            Err(e) => Err(e),
        },
    );
}

/// The tiles' arrangement of [`local_tile`]: the second mode of `zipped_divide(A, T)`.
pub struct Tiles<A, T>(PhantomData<fn() -> (A, T)>);

impl<A: StaticLayout, T: StaticTiler> StaticExpr for Tiles<A, T> {
    const OP: Op = Op::LocalTile;
    const LAYOUT: DynLayout = TileAndTiles::<A, T>::PAIR.1;
}

/// CuTe's `local_partition(tensor, thr_layout, index)` on static layouts: the elements thread
/// `index` owns (zero-sized, the tiles' arrangement of `zipped_divide(layout,
/// product_each(shape(thr)))`) and the offset of its first one, `index` usually a runtime thread
/// index: the thread's coordinate (`thr.get_flat_coord(index)`) and its offset in the tile are
/// folded index math.
///
/// ```
/// use const_layout::algebra::computed::local_partition;
/// use const_layout::layout_type;
/// let smem = <layout_type!((8,6):(1,8))>::default();
/// let threads = <layout_type!((4,3):(3,1))>::default();
/// let (mine, offset) = local_partition(smem, threads, 5);
/// assert_eq!((mine.to_string(), offset), ("(_2,_2):(_4,_24)".to_string(), 17));
/// ```
#[inline(always)]
pub fn local_partition<A: StaticLayout, Thr: StaticLayout>(
    a: A,
    thr: Thr,
    index: usize,
) -> (Computed<LocalPartition<A, Thr>>, isize) {
    let _ = (a, thr);
    let p = const { &PartitionPlan::<A, Thr>::PLAN };
    // get_hier_coord(index), each mode's integers folded to its 1-D coordinate (get_flat_coord).
    let mut coord = [0isize; MAX_NODES];
    let mut k = 0;
    while k < p.n {
        let leaf = p.thread[k];
        if let Some(q) = index.checked_div(leaf.div) {
            coord[leaf.mode] += (q % leaf.extent) as isize * leaf.weight;
        }
        k += 1;
    }
    (Computed(PhantomData), p.tile.offset(&coord))
}

/// The elements of one thread in [`local_partition`]: the second mode of `zipped_divide(A,
/// product_each(shape(Thr)))`, unpacked one level.
pub struct LocalPartition<A, Thr>(PhantomData<fn() -> (A, Thr)>);

impl<A: StaticLayout, Thr: StaticLayout> StaticExpr for LocalPartition<A, Thr> {
    const OP: Op = Op::LocalPartition;
    const LAYOUT: DynLayout = ThreadTiles::<A, Thr>::PAIR.1;
}

/// The threads' tile and one thread's elements of [`local_partition`], once per pair of operands
/// (the part's layout and the index math's plan both read them).
struct ThreadTiles<A, Thr>(PhantomData<fn() -> (A, Thr)>);

impl<A: StaticLayout, Thr: StaticLayout> ThreadTiles<A, Thr> {
    const PAIR: (DynLayout, DynLayout) =
        unwrap("local_partition", algebra::tile_and_tiles_of_threads(&A::LAYOUT, &Thr::LAYOUT));
}

/// One integer of the thread layout: its coordinate is `index / div % extent` (0 if `div` is 0),
/// worth `weight` in mode `mode`'s 1-D coordinate.
#[derive(Clone, Copy)]
struct ThreadLeaf {
    div: usize,
    extent: usize,
    weight: isize,
    mode: usize,
}

/// [`local_partition`]'s index math, computed at compile time: the thread layout's integers, and
/// the plan of the first mode of the divide (one tile) for one 1-D coordinate per mode.
struct PartitionPlan<A, Thr>(PhantomData<(A, Thr)>);

struct ThreadPlan {
    n: usize,
    thread: [ThreadLeaf; MAX_NODES],
    tile: CrdPlan,
}

impl<A: StaticLayout, Thr: StaticLayout> PartitionPlan<A, Thr> {
    const PLAN: ThreadPlan = {
        let thr = Thr::LAYOUT;
        let (tile, _) = ThreadTiles::<A, Thr>::PAIR;
        let (shape, stride) = (thr.shape(), thr.stride());
        let modes = if shape.is_int() { 1 } else { shape.rank() };
        let mut plan = ThreadPlan {
            n: 0,
            thread: [ThreadLeaf { div: 0, extent: 1, weight: 0, mode: 0 }; MAX_NODES],
            tile: CrdPlan::new(&coordinate_tree(modes), &tile),
        };
        // Leaves in order; each mode's weights are the running products of its extents.
        let (mut mode, mut weight, mut k) = (0, 1isize, 0);
        let mut mode_end = if shape.is_int() { shape.node_count() } else { subtree_end(shape, 1) };
        while k < shape.node_count() {
            if k == mode_end {
                mode += 1;
                weight = 1;
                mode_end = subtree_end(shape, k);
            }
            if let (Node::Int(s), Node::Int(d)) = (shape.node(k), stride.node(k)) {
                // CuTe's get_hier_coord: a static extent 1 is coordinate _0 whatever its stride.
                let div = if s.value == 1 { 0 } else { d.value.unsigned_abs() };
                plan.thread[plan.n] = ThreadLeaf { div, extent: s.value as usize, weight, mode };
                plan.n += 1;
                weight *= s.value;
            }
            k += 1;
        }
        plan
    };
}

/// The structure of a coordinate with one integer per mode (an integer for one mode).
const fn coordinate_tree(modes: usize) -> DynIntTuple {
    let one = DynIntTuple::int(crate::dyn_layout::DynInt::new_runtime(0));
    if modes == 1 {
        return one;
    }
    let mut t = DynIntTuple::builder();
    let _ = t.push_node(Node::Tuple(modes as u8));
    let mut k = 0;
    while k < modes {
        let _ = t.push_tuple(&one);
        k += 1;
    }
    t
}

/// CuTe's `composition(Swizzle<B,M,S>{}, layout)` on a static layout: `Sw<B,M,S> o _0 o layout`,
/// zero-sized, the swizzle applied to the layout's folded offset. The algebra applies to the
/// layout before the swizzle (`Sw o (L o T)` is `(Sw o L) o T`): divide or partition the layout,
/// then swizzle the result.
///
/// ```
/// use const_layout::algebra::computed::{swizzle, zipped_divide};
/// use const_layout::{layout_type, C};
/// let smem = swizzle::<3, 4, 3, _>(<layout_type!((8,64):(64,1))>::default());
/// assert_eq!(smem.to_string(), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
/// assert_eq!(smem.crd2idx((2usize, 1usize)), 129 ^ 16);
/// // Tiles of the swizzled layout: the swizzle after the divided layout.
/// let tiles = swizzle::<3, 4, 3, _>(zipped_divide(<layout_type!((8,64):(64,1))>::default(), (C::<8>, C::<8>)));
/// assert_eq!(tiles.crd2idx(((2usize, 1usize), (0usize, 0usize))), 129 ^ 16);
/// ```
pub fn swizzle<const B: u32, const M: u32, const S: i32, A: StaticLayout>(
    a: A,
) -> StaticSwizzled<B, M, S, A> {
    let _ = a;
    StaticSwizzled(PhantomData)
}

/// `Sw<B,M,S> o _0 o A` for a static layout `A`: see [`swizzle`].
pub struct StaticSwizzled<const B: u32, const M: u32, const S: i32, A>(PhantomData<fn() -> A>);

impl<const B: u32, const M: u32, const S: i32, A> Clone for StaticSwizzled<B, M, S, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<const B: u32, const M: u32, const S: i32, A> Copy for StaticSwizzled<B, M, S, A> {}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> StaticSwizzled<B, M, S, A> {
    /// The swizzle; a compile error (full build) naming the problem if `Sw<B,M,S>` is not one.
    pub const SWIZZLE: crate::swizzle::Swizzle = unwrap("swizzle", crate::swizzle::Swizzle::new(B, M, S));

    /// The layout before the swizzle.
    pub const fn layout(&self) -> DynLayout {
        A::LAYOUT
    }

    /// The swizzle ([`Self::SWIZZLE`], from a value).
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// let smem = swizzle::<3, 3, 3, _>(<const_layout::layout_type!((8,64):(64,1))>::default());
    /// assert_eq!(smem.swizzle().reach(), 511);
    /// ```
    pub const fn swizzle(&self) -> crate::swizzle::Swizzle {
        Self::SWIZZLE
    }

    /// CuTe's `size`: the layout's.
    pub const fn size(&self) -> isize {
        A::LAYOUT.size().value
    }

    /// The swizzled offset of a coordinate (an index, or a coordinate of any profile the layout
    /// accepts).
    #[inline(always)]
    pub fn crd2idx<Crd: IntTuple>(&self, coord: Crd) -> isize {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        let offset = const { &Plan::<A, Crd>::PLAN }.offset(&leaves);
        const { Self::SWIZZLE }.apply(offset)
    }

    /// The offset of a coordinate before the swizzle: the inner layout's.
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// let smem = swizzle::<3, 4, 3, _>(<layout_type!((8,64):(64,1))>::default());
    /// assert_eq!(smem.unswizzled_crd2idx((2usize, 1usize)), 129);
    /// ```
    #[inline(always)]
    pub fn unswizzled_crd2idx<Crd: IntTuple>(&self, coord: Crd) -> isize {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        const { &Plan::<A, Crd>::PLAN }.offset(&leaves)
    }

    /// The swizzled offset of the inner offset `base + offset`
    /// ([`Swizzle::apply_sum`](crate::swizzle::Swizzle::apply_sum)): CuTe's partition of a
    /// swizzled tensor, where `base` is a thread's inner offset and `offset` a value's constant
    /// one. Each access then costs the swizzle of the low part of its constant only, and none
    /// for the part above the swizzle's bits (rows of a tile, stages).
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// let smem = swizzle::<3, 3, 3, _>(<layout_type!((32,64):(64,1))>::default());
    /// let base = smem.unswizzled_crd2idx((3usize, 8usize)); // a thread's
    /// let value = smem.unswizzled_crd2idx((16usize, 16usize)); // one of its values
    /// assert_eq!(smem.offset_sum(base, value), smem.crd2idx((19usize, 24usize)));
    /// ```
    #[inline(always)]
    pub fn offset_sum(&self, base: isize, offset: isize) -> isize {
        const { Self::SWIZZLE }.apply_sum(base, offset)
    }

    /// [`StaticSwizzled::crd2idx`] for a coordinate inside the shape, else the error naming the
    /// integer outside its extent.
    ///
    /// ```
    /// use const_layout::algebra::computed::swizzle;
    /// use const_layout::layout_type;
    /// let smem = swizzle::<3, 4, 3, _>(<layout_type!((8,64):(64,1))>::default());
    /// assert_eq!(smem.checked_crd2idx((2usize, 1usize)), Ok(129 ^ 16));
    /// assert!(smem.checked_crd2idx((8usize, 0usize)).is_err());
    /// ```
    #[inline(always)]
    pub fn checked_crd2idx<Crd: IntTuple>(&self, coord: Crd) -> Result<isize, LayoutError> {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        let index = Crd::IS_INT && !A::LAYOUT.shape().is_int();
        let offset = const { &Plan::<A, Crd>::PLAN }.checked_offset(&leaves, index)?;
        Ok(const { Self::SWIZZLE }.apply(offset))
    }
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> fmt::Display for StaticSwizzled<B, M, S, A> {
    /// CuTe's print: `Sw<B,M,S> o _0 o layout`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o _0 o {}", Self::SWIZZLE, A::LAYOUT)
    }
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> fmt::Debug for StaticSwizzled<B, M, S, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A coordinate with CuTe's `_` in it, as a type: [`Keep`] where a mode is kept, integers (static
/// or runtime) where it is fixed, in tuples shaped like the layout (`(Keep, usize)` is CuTe's
/// `(_, k)`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a slice coordinate",
    label = "expected integers and `Keep` (CuTe's `_`), in tuples",
    note = "write `(Keep, k)` for CuTe's `(_, k)`"
)]
pub trait StaticSlicer {
    /// The structure, with 1 where the coordinate is [`Keep`] and 0 where it is an integer.
    const KEEP: DynIntTuple;
    /// Write the integers (0 for [`Keep`]) into `out` from position `at`; return the position
    /// after the last (as [`IntTuple::store_values`]).
    fn store_coordinate(&self, out: &mut [isize], at: usize) -> usize;
}

impl<T: crate::int::Int> StaticSlicer for T {
    const KEEP: DynIntTuple = DynIntTuple::int(crate::dyn_layout::DynInt::new_static(0));
    #[inline(always)]
    fn store_coordinate(&self, out: &mut [isize], at: usize) -> usize {
        self.store_values(out, at)
    }
}

impl StaticSlicer for Keep {
    const KEEP: DynIntTuple = DynIntTuple::int(crate::dyn_layout::DynInt::new_static(1));
    #[inline(always)]
    fn store_coordinate(&self, out: &mut [isize], at: usize) -> usize {
        if let Some(slot) = out.get_mut(at) {
            *slot = 0;
        }
        at + 1
    }
}

macro_rules! impl_static_slicer {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: StaticSlicer),+> StaticSlicer for ($($A,)+) {
            const KEEP: DynIntTuple = unwrap("slice", DynIntTuple::tuple(&[$($A::KEEP),+]));
            #[inline(always)]
            fn store_coordinate(&self, out: &mut [isize], at: usize) -> usize {
                $(let at = self.$i.store_coordinate(out, at);)+
                at
            }
        }
    };
}
crate::arity::for_tuples!(impl_static_slicer);

/// CuTe's `slice(coord, layout)` on a static layout: the modes where `coord` is [`Keep`] (`_`),
/// zero-sized.
///
/// ```
/// use const_layout::algebra::computed::{Keep, slice};
/// use const_layout::layout_type;
/// let l = <layout_type!((4,(2,3)):(1,(4,8)))>::default();
/// assert_eq!(slice((2usize, (Keep, 1usize)), l).to_string(), "(_2):(_4)");
/// ```
pub fn slice<Crd: StaticSlicer, A: StaticLayout>(coord: Crd, a: A) -> Computed<SliceAt<A, Crd>> {
    let _ = (coord, a);
    Computed(PhantomData)
}

/// CuTe's `slice_and_offset(coord, layout)` on a static layout: the kept modes (zero-sized) and
/// the offset of the fixed coordinates, which are usually runtime values (`tensor(_, k)`), as
/// folded index math.
///
/// ```
/// use const_layout::algebra::computed::{Keep, slice_and_offset};
/// use const_layout::layout_type;
/// let l = <layout_type!((4,(2,3)):(1,(4,8)))>::default();
/// let (column, offset) = slice_and_offset((2usize, (Keep, 1usize)), l);
/// assert_eq!((column.to_string(), offset), ("(_2):(_4)".to_string(), 10));
/// ```
#[inline(always)]
pub fn slice_and_offset<Crd: StaticSlicer, A: StaticLayout>(
    coord: Crd,
    a: A,
) -> (Computed<SliceAt<A, Crd>>, isize) {
    let _ = a;
    let mut leaves = [0isize; MAX_NODES];
    coord.store_coordinate(&mut leaves, 0);
    (Computed(PhantomData), const { &SlicePlan::<A, Crd>::PLAN }.offset(&leaves))
}

/// The kept modes of [`slice()`].
pub struct SliceAt<A, Crd>(PhantomData<fn() -> (A, Crd)>);

impl<A: StaticLayout, Crd: StaticSlicer> StaticExpr for SliceAt<A, Crd> {
    const OP: Op = Op::Slice;
    const LAYOUT: DynLayout = {
        let zeros = Crd::KEEP.map_zero();
        let slicer = unwrap("slice", algebra::Slicer::new(zeros, Crd::KEEP));
        unwrap("slice", apply_layout_op(Op::Slice, &[Arg::Slicer(&slicer), Arg::Layout(&A::LAYOUT)]))
    };
}

/// The offset of a slice's fixed coordinates: the layout's plan for the coordinate, `_` at 0.
struct SlicePlan<A, Crd>(PhantomData<(A, Crd)>);

impl<A: StaticLayout, Crd: StaticSlicer> SlicePlan<A, Crd> {
    const PLAN: CrdPlan = CrdPlan::new(&Crd::KEEP, &A::LAYOUT);
}

/// CuTe's `make_identity_layout(shape)` on a static shape: the layout whose value at a coordinate
/// is the coordinate itself (basis strides `_1@0`, `_1@1`, ...), zero-sized. Divide or partition
/// it like any static layout; read its values with [`Computed::coord`].
///
/// ```
/// use const_layout::algebra::computed::{make_identity_layout, zipped_divide};
/// use const_layout::C;
/// let id = make_identity_layout((C::<16>, C::<8>));
/// assert_eq!(id.to_string(), "(_16,_8):(_1@0,_1@1)");
/// // Element (2, 5) of tile (1, 0) of the 4x8 tiles is row 4 + 2, column 5: the coordinates a
/// // kernel predicates on.
/// let tiles = zipped_divide(id, (C::<4>, C::<8>));
/// let (m, n): (usize, usize) = tiles.coord(((2usize, 5usize), (1usize, 0usize)));
/// assert_eq!((m, n), (6, 5));
/// ```
pub fn make_identity_layout<S: StaticTuple>(shape: S) -> Computed<Identity<S>> {
    let _ = shape;
    Computed(PhantomData)
}

/// The expression type of [`make_identity_layout`].
pub struct Identity<S>(PhantomData<fn() -> S>);

impl<S: StaticTuple> StaticExpr for Identity<S> {
    const OP: Op = Op::MakeIdentityLayout;
    const LAYOUT: DynLayout =
        unwrap("make_identity_layout", apply_layout_op(Op::MakeIdentityLayout, &[Arg::Tuple(&S::TREE)]));
}

/// A coordinate type to read a basis-strided layout's values into: runtime integers in tuples
/// shaped like the identity layout's shape (`(usize, usize)` for `(_16,_8)`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a coordinate type",
    note = "use runtime integers in tuples shaped like the identity layout's shape, such as `(usize, usize)`"
)]
pub trait Coordinate: IntTuple + Sized {
    /// Build from `values` (one per integer, left to right) starting at `at`.
    fn from_values(values: &[isize], at: &mut usize) -> Self;
}

impl<T: crate::int::Int> Coordinate for T {
    #[inline(always)]
    fn from_values(values: &[isize], at: &mut usize) -> Self {
        let v = values.get(*at).copied().unwrap_or(0);
        *at += 1;
        T::from_value(v)
    }
}

macro_rules! impl_coordinate {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: Coordinate),+> Coordinate for ($($A,)+) {
            #[inline(always)]
            fn from_values(values: &[isize], at: &mut usize) -> Self {
                ($($A::from_values(values, at),)+)
            }
        }
    };
}
crate::arity::for_tuples!(impl_coordinate);

impl<E: StaticExpr> Computed<E> {
    /// The value of a basis-strided layout (an identity layout, its tiles and partitions) at a
    /// coordinate, as a coordinate of type `Out` (runtime integers shaped like the identity's
    /// shape): component `p` of `Out` sums the terms whose stride scales the basis `E<p>`.
    ///
    /// ```
    /// use const_layout::algebra::computed::{make_identity_layout, zipped_divide};
    /// use const_layout::C;
    /// let tiles = zipped_divide(make_identity_layout((C::<12>, C::<16>)), (C::<4>, C::<8>));
    /// assert_eq!(tiles.to_string(), "((_4,_8),(_3,_2)):((_1@0,_1@1),(_4@0,_8@1))");
    /// let c: (usize, usize) = tiles.coord(((3usize, 7usize), (2usize, 1usize)));
    /// assert_eq!(c, (11, 15));
    /// ```
    #[inline(always)]
    pub fn coord<Crd: IntTuple, Out: Coordinate>(&self, coord: Crd) -> Out {
        let mut leaves = [0isize; MAX_NODES];
        coord.store_values(&mut leaves, 0);
        let p = const { &CoordPlan::<E, Crd, Out>::PLAN };
        let mut values = [0isize; MAX_NODES];
        let mut k = 0;
        while k < p.plan.n {
            let step = p.plan.steps[k];
            let c = leaves[step.src as usize] as usize / step.div;
            let c = if step.modulo == 0 { c } else { c % step.modulo };
            values[p.dest[k]] += c as isize * step.stride;
            k += 1;
        }
        Out::from_values(&values, &mut 0)
    }
}

impl<E: StaticExpr> Computed<E> {
    /// CuTe's `idx2crd(index, shape)`: the natural (colexicographic) coordinate of an index, as a
    /// coordinate of type `Out` with one integer per integer of the shape (`((usize, usize), usize)`
    /// for `((_2,_3),_4)`); the last integer takes what is past the end.
    ///
    /// ```
    /// use const_layout::algebra::computed::zipped_divide;
    /// use const_layout::{layout_type, C};
    /// let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    /// let ((a, b), (c, d)): ((usize, usize), (usize, usize)) = tiles.idx2crd(29);
    /// assert_eq!((a, b, c, d), (1, 1, 0, 1));
    /// assert_eq!(tiles.crd2idx(((a, b), (c, d))), tiles.crd2idx(29usize));
    /// ```
    #[inline(always)]
    pub fn idx2crd<Out: Coordinate>(&self, index: usize) -> Out {
        let p = const { &Idx2CrdPlan::<E, Out>::PLAN };
        let mut values = [0isize; MAX_NODES];
        let mut k = 0;
        while k < p.n {
            let step = p.steps[k];
            let c = index / step.div;
            values[k] = (if step.modulo == 0 { c } else { c % step.modulo }) as isize;
            k += 1;
        }
        Out::from_values(&values, &mut 0)
    }
}

/// [`Computed::idx2crd`]'s plan: the layout's plan for an integer index (each shape integer's
/// divisor and modulus), checked against `Out`'s number of integers.
struct Idx2CrdPlan<E, Out>(PhantomData<(E, Out)>);

impl<E: StaticExpr, Out: Coordinate> Idx2CrdPlan<E, Out> {
    const PLAN: CrdPlan = {
        let plan = CrdPlan::new(&DynIntTuple::int(crate::dyn_layout::DynInt::new_runtime(0)), &E::LAYOUT);
        if plan.n != Out::LEAVES {
            let m = crate::error::Message::new()
                .text("idx2crd: the coordinate type has ")
                .num(Out::LEAVES as isize)
                .text(" integers but the shape has ")
                .num(plan.n as isize);
            panic!("{}", m.as_str());
        }
        plan
    };
}

/// [`Computed::coord`]'s index math: the layout's plan for the coordinate, and for every step the
/// component of `Out` its basis names.
struct CoordPlan<E, Crd, Out>(PhantomData<(E, Crd, Out)>);

struct CoordSteps {
    plan: CrdPlan,
    dest: [usize; MAX_NODES],
}

impl<E: StaticExpr, Crd: IntTuple, Out: Coordinate> CoordPlan<E, Crd, Out> {
    const PLAN: CoordSteps = {
        let layout = E::LAYOUT;
        let plan = CrdPlan::new(&Crd::TREE, &layout);
        let mut dest = [0usize; MAX_NODES];
        // Steps follow the layout's integers in order; step k's basis is the k-th stride's.
        let (stride, out) = (layout.stride(), Out::TREE);
        let (mut k, mut node) = (0, 0);
        while k < plan.n {
            while !matches!(stride.node(node), Node::Int(_)) {
                node += 1;
            }
            let Node::Int(d) = stride.node(node) else { unreachable!() };
            node += 1;
            if d.value != 0 {
                dest[k] = match out_leaf(&out, &d.basis) {
                    Some(i) => i,
                    None => panic!(
                        "coord: the coordinate type has no component for a basis of the layout's strides"
                    ),
                };
            }
            k += 1;
        }
        CoordSteps { plan, dest }
    };
}

/// The position (among its integers, left to right) of the integer of `out` at `basis`'s path
/// (the root for no basis).
const fn out_leaf(out: &DynIntTuple, basis: &crate::dyn_layout::Basis) -> Option<usize> {
    // Walk the tree keeping the path of the current node.
    let mut path = [0u8; crate::dyn_layout::MAX_BASIS_DEPTH];
    let mut left = [0usize; crate::dyn_layout::MAX_BASIS_DEPTH + 1]; // modes left at each depth
    let (mut depth, mut leaf, mut k) = (0usize, 0usize, 0usize);
    while k < out.node_count() {
        match out.node(k) {
            Node::Int(_) => {
                if basis.is_path(&path, depth) {
                    return Some(leaf);
                }
                leaf += 1;
            }
            Node::Tuple(n) => {
                if depth >= crate::dyn_layout::MAX_BASIS_DEPTH {
                    return None;
                }
                left[depth + 1] = n as usize;
                depth += 1;
                path[depth - 1] = 0;
                k += 1;
                // An empty tuple closes at once.
                while depth > 0 && left[depth] == 0 {
                    depth -= 1;
                    if depth > 0 {
                        left[depth] -= 1;
                        path[depth - 1] += 1;
                    }
                }
                continue;
            }
        }
        k += 1;
        // Move to the next sibling, closing finished tuples.
        if depth > 0 {
            left[depth] -= 1;
            path[depth - 1] += 1;
            while depth > 0 && left[depth] == 0 {
                depth -= 1;
                if depth > 0 {
                    left[depth] -= 1;
                    path[depth - 1] += 1;
                }
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The static kinds as layouts of any kind (`AnyLayout`): their values are constants.

use crate::layout::any::{dyn_idx2crd, dyn_range, one_past, swizzled_range};
use crate::layout::{AnyLayout, DynAnyLayout, Flat, LayoutCoord};
use crate::swizzle::ComposedLayout;

// ---------------------------------------------------------------------------------------------
// Computed<E>: the generic static path's results.

/// The offset range of a static layout, computed once per type.
struct StaticRange<L>(core::marker::PhantomData<L>);

impl<L: StaticLayout> StaticRange<L> {
    const RANGE: Result<(isize, isize), LayoutError> = dyn_range(&L::LAYOUT);
}

crate::layout::any::to_dyn_any_as_any_layout! {
    [E: StaticExpr] Computed<E>;
    [const B: u32, const M: u32, const S: i32, A: StaticLayout] StaticSwizzled<B, M, S, A>;
}

impl<E: StaticExpr> AnyLayout for Computed<E> {
    const IS_STATIC: bool = true;
    #[inline(always)]
    fn rank(&self) -> usize {
        Self::RANK
    }
    #[inline(always)]
    fn size(&self) -> usize {
        Self::SIZE as usize
    }
    #[inline(always)]
    fn cosize(&self) -> usize {
        Self::COSIZE as usize
    }
    #[inline(always)]
    fn offset(&self, index: usize) -> isize {
        Computed::crd2idx(self, index)
    }
    #[inline(always)]
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        const { StaticRange::<Self>::RANGE }
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        dyn_idx2crd(&E::LAYOUT, index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(DynAnyLayout::Layout(E::LAYOUT))
    }
    const FORM: Option<DynIntTuple> = Some(*E::LAYOUT.shape());
    const STATIC_FLAT: Option<Flat> = Flat::of_dyn(&E::LAYOUT, true);
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        Self::STATIC_FLAT
    }
}

impl<E: StaticExpr, Crd: IntTuple> LayoutCoord<Computed<E>> for Crd {
    #[inline(always)]
    fn offset_in(&self, layout: &Computed<E>) -> isize {
        layout.crd2idx(*self)
    }
    #[inline(always)]
    fn checked_offset_in(&self, layout: &Computed<E>) -> Result<isize, LayoutError> {
        layout.checked_crd2idx(*self)
    }
}

// ---------------------------------------------------------------------------------------------
// StaticSwizzled: a static swizzle after a static layout of the generic path.

/// The offset range of a [`StaticSwizzled`], computed once per type.
struct StaticSwizzledRange<const B: u32, const M: u32, const S: i32, A>(core::marker::PhantomData<A>);

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> StaticSwizzledRange<B, M, S, A> {
    const RANGE: Result<(isize, isize), LayoutError> =
        swizzled_range(&A::LAYOUT, StaticSwizzled::<B, M, S, A>::SWIZZLE, 0);
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout> AnyLayout for StaticSwizzled<B, M, S, A> {
    const IS_STATIC: bool = true;
    #[inline(always)]
    fn rank(&self) -> usize {
        A::LAYOUT.rank()
    }
    #[inline(always)]
    fn size(&self) -> usize {
        StaticSwizzled::size(self) as usize
    }
    #[inline(always)]
    fn cosize(&self) -> usize {
        const { one_past(StaticSwizzledRange::<B, M, S, A>::RANGE) }
    }
    #[inline(always)]
    fn offset(&self, index: usize) -> isize {
        StaticSwizzled::crd2idx(self, index)
    }
    #[inline(always)]
    fn offset_range(&self) -> Result<(isize, isize), LayoutError> {
        const { StaticSwizzledRange::<B, M, S, A>::RANGE }
    }
    fn idx2crd(&self, index: usize) -> Result<DynIntTuple, LayoutError> {
        dyn_idx2crd(&A::LAYOUT, index)
    }
    fn to_dyn(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(DynAnyLayout::Composed(ComposedLayout::new(Self::SWIZZLE, A::LAYOUT)))
    }
    const FORM: Option<DynIntTuple> = Some(*A::LAYOUT.shape());
    #[inline(always)]
    fn flat(&self) -> Option<Flat> {
        const { Flat::of_dyn(&A::LAYOUT, false) }
    }
}

impl<const B: u32, const M: u32, const S: i32, A: StaticLayout, Crd: IntTuple>
    LayoutCoord<StaticSwizzled<B, M, S, A>> for Crd
{
    #[inline(always)]
    fn offset_in(&self, layout: &StaticSwizzled<B, M, S, A>) -> isize {
        layout.crd2idx(*self)
    }
    #[inline(always)]
    fn checked_offset_in(&self, layout: &StaticSwizzled<B, M, S, A>) -> Result<isize, LayoutError> {
        layout.checked_crd2idx(*self)
    }
}
