//! CuTe's `TiledCopy`: a copy atom repeated over threads and values, with its source and
//! destination `(thread, value)` layouts; `make_tiled_copy` and the `make_tiled_copy_A`/`_B`/`_C`
//! that copy a tiled MMA's operands.

use super::copy::CopyAtom;
use super::element::Element;
use super::mma::MmaAtom;
use super::tiled_mma::{Marker, StaticPermutation, TiledMma};
use crate::algebra::computed::{Computed, StaticExpr, StaticLayout, unwrap};
use crate::algebra::{self, TileMode, Tiler};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};
use crate::eval::Op as EvalOp;
use core::marker::PhantomData;

type R<T> = Result<T, LayoutError>;

/// The layouts of a tiled copy, as CuTe's `TiledCopy` gives them.
///
/// ```
/// use const_layout::atom::{make_tiled_copy_layouts, tiled_copy_layouts};
/// use const_layout::dyn_layout::DynLayout;
/// let p = |s: &str| s.parse::<DynLayout>().unwrap();
/// // 16x8 threads (row-major), 8 halves each along N: sgemm_sm80.cu's cp.async of A.
/// let (tv, tiler) = make_tiled_copy_layouts(&p("(_16,_8):(_8,_1)"), &p("(_1,_8):(_0,_1)")).unwrap();
/// assert_eq!(tiler.to_string(), "(_16,_64)");
/// let cp_async = p("(_1,_128):(_0,_1)"); // 128 bits, one thread
/// let t = tiled_copy_layouts(&cp_async, &cp_async, &cp_async, 16, &tv, &tiler).unwrap();
/// assert_eq!(t.layout_s_tv.to_string(), t.layout_d_tv.to_string());
/// assert_eq!(t.layout_s_tv.size().value, 128 * 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledCopyLayouts {
    /// CuTe's `TiledLayout_TV`: `(thread, value) -> (m, n)` index in the tile.
    pub layout_tv: DynLayout,
    /// CuTe's `Tiler_MN`: the tile's shape.
    pub tiler_mn: DynIntTuple,
    /// CuTe's `get_layoutS_TV()`: `(thread, value) -> (m, n)` as the source is read.
    pub layout_s_tv: DynLayout,
    /// CuTe's `get_layoutD_TV()`: `(thread, value) -> (m, n)` as the destination is written.
    pub layout_d_tv: DynLayout,
}

use super::static_int as s;

const fn mode(l: &DynLayout, i: usize) -> R<DynLayout> {
    match l.mode(i) {
        Some(m) => Ok(m),
        None => Err(LayoutError::ModeOutOfRange { op: "make_tiled_copy", index: i, rank: l.rank() }),
    }
}

const fn pair(a: DynLayout, b: DynLayout) -> R<DynLayout> {
    algebra::make_layout_of(&[a, b])
}

/// CuTe's `make_tiled_copy(atom, thr_layout, val_layout)` before the atom: the tiled copy's
/// `(thread, value) -> (m, n)` layout (`right_inverse(raked_product(thr, val))` shaped as
/// `(threads, values)`) and its tile (the extents of the raked product's modes).
pub const fn make_tiled_copy_layouts(
    thr_layout: &DynLayout,
    val_layout: &DynLayout,
) -> R<(DynLayout, DynIntTuple)> {
    let layout_mn = tri!(algebra::raked_product(thr_layout, val_layout));
    let shape = tri!(DynIntTuple::tuple(&[s(thr_layout.size().value), s(val_layout.size().value)]));
    let tv = tri!(algebra::composition(
        &tri!(algebra::right_inverse(&layout_mn)),
        &tri!(DynLayout::compact(shape, true))
    ));
    // CuTe's `product_each(shape(layout_mn))` (an integer shape is its own tile).
    let shape = layout_mn.shape();
    let tiler = if shape.is_int() { *shape } else { tri!(crate::dyn_layout::ops::product_each(shape)) };
    Ok((tv, tiler))
}

/// CuTe's `tile2thrfrg`: `((TileM,TileN),(Rest..))` to `(Thr,(FrgV,FrgX),(Rest..))` for the target
/// (`ref2trg` is `right_inverse(RefLayout) o SrcLayout` or `o DstLayout`).
const fn tile2thrfrg(
    tensor: &DynLayout,
    ref2trg: &DynLayout,
    layout_tv: &DynLayout,
    atom_thr: isize,
    atom_val: isize,
) -> R<DynLayout> {
    let atom_tile = tri!(Tiler::by_mode(&[TileMode::Shape(s(atom_thr)), TileMode::Shape(s(atom_val))]));
    let atom_tv = tri!(algebra::zipped_divide(layout_tv, &atom_tile));
    let trg = tri!(algebra::composition_tiler(
        &atom_tv,
        &tri!(Tiler::by_mode(&[TileMode::Layout(*ref2trg), TileMode::Keep]))
    ));
    // zip: ((trg_tid,trg_val),(rest_tid,rest_val)) -> ((trg_tid,rest_tid),(trg_val,rest_val)),
    // then coalesce by the profile (_1,(_1,_1)).
    let (inner, outer) = (tri!(mode(&trg, 0)), tri!(mode(&trg, 1)));
    let thr = tri!(algebra::coalesce(&tri!(pair(tri!(mode(&inner, 0)), tri!(mode(&outer, 0))))));
    let val = tri!(pair(
        tri!(algebra::coalesce(&tri!(mode(&inner, 1)))),
        tri!(algebra::coalesce(&tri!(mode(&outer, 1))))
    ));
    let thrval2mn = tri!(pair(thr, val));
    let tv = tri!(algebra::composition_tiler(
        tensor,
        &tri!(Tiler::by_mode(&[TileMode::Layout(thrval2mn), TileMode::Keep]))
    ));
    let tv0 = tri!(mode(&tv, 0));
    algebra::make_layout_of(&[tri!(mode(&tv0, 0)), tri!(mode(&tv0, 1)), tri!(mode(&tv, 1))])
}

/// CuTe's `TiledCopy` layouts on layouts held as values: the atom's source, destination and
/// reference layouts in bits, the element width in bits, and the tiled copy's `(thread, value)
/// -> (m, n)` layout and tile (from [`make_tiled_copy_layouts`] or a tiled MMA's operand layouts).
/// As in CuTe, the atom's threads are taken to be consecutive within the tiled copy's (its
/// `ThrID` is not read).
///
/// The tiled copy's threads and values must be whole multiples of the atom's (CuTe's static
/// assertions); otherwise the error is [`LayoutError::NotDivisible`] with the two counts.
pub const fn tiled_copy_layouts(
    src_bits: &DynLayout,
    dst_bits: &DynLayout,
    ref_bits: &DynLayout,
    value_bits: isize,
    layout_tv: &DynLayout,
    tiler_mn: &DynIntTuple,
) -> R<TiledCopyLayouts> {
    let (src, dst, refl) = (
        tri!(algebra::upcast(src_bits, value_bits)),
        tri!(algebra::upcast(dst_bits, value_bits)),
        tri!(algebra::upcast(ref_bits, value_bits)),
    );
    let (atom_thr, atom_val) = (tri!(mode(&refl, 0)).size().value, tri!(mode(&refl, 1)).size().value);
    let (tiled_thr, tiled_val) =
        (tri!(mode(layout_tv, 0)).size().value, tri!(mode(layout_tv, 1)).size().value);
    if tiled_thr % atom_thr != 0 {
        return Err(LayoutError::NotDivisible { a: tiled_thr, b: atom_thr });
    }
    if tiled_val % atom_val != 0 {
        return Err(LayoutError::NotDivisible { a: tiled_val, b: atom_val });
    }
    let ref_inv = tri!(algebra::right_inverse(&refl));
    let shape = tri!(DynIntTuple::tuple(&[*tiler_mn, s(1)]));
    let reference = tri!(DynLayout::compact(shape, true));
    let fs = tri!(tile2thrfrg(
        &reference,
        &tri!(algebra::composition(&ref_inv, &src)),
        layout_tv,
        atom_thr,
        atom_val
    ));
    let fd = tri!(tile2thrfrg(
        &reference,
        &tri!(algebra::composition(&ref_inv, &dst)),
        layout_tv,
        atom_thr,
        atom_val
    ));
    Ok(TiledCopyLayouts {
        layout_tv: *layout_tv,
        tiler_mn: *tiler_mn,
        layout_s_tv: tri!(pair(tri!(mode(&fs, 0)), tri!(mode(&fs, 1)))),
        layout_d_tv: tri!(pair(tri!(mode(&fd, 0)), tri!(mode(&fd, 1)))),
    })
}

/// CuTe's `Copy_Atom<Op, T>`: a copy atom moving elements of type `T`.
///
/// ```
/// use const_layout::atom::{Copy_Atom, F16, SM75_U32x4_LDSM_N};
/// let _atom = Copy_Atom::<SM75_U32x4_LDSM_N, F16>::default();
/// ```
#[allow(non_camel_case_types)]
pub struct Copy_Atom<Op, T>(PhantomData<fn() -> (Op, T)>);

impl<Op, T> Clone for Copy_Atom<Op, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Op, T> Copy for Copy_Atom<Op, T> {}
impl<Op, T> Default for Copy_Atom<Op, T> {
    fn default() -> Self {
        Copy_Atom(PhantomData)
    }
}

/// Where a static tiled copy's `(thread, value)` layout and tile come from.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a source of a tiled copy's layout",
    note = "tiled copies are made by `make_tiled_copy` and `make_tiled_copy_A`/`_B`/`_C`"
)]
pub trait TiledCopySource {
    /// `(thread, value) -> (m, n)` and the tile.
    const LAYOUT_TILE: (DynLayout, DynIntTuple);
}

/// The source of [`make_tiled_copy`]: a thread layout and a value layout.
pub struct ThrVal<Thr, Val>(PhantomData<fn() -> (Thr, Val)>);

impl<Thr: StaticLayout, Val: StaticLayout> TiledCopySource for ThrVal<Thr, Val> {
    const LAYOUT_TILE: (DynLayout, DynIntTuple) =
        unwrap("make_tiled_copy", make_tiled_copy_layouts(&Thr::LAYOUT, &Val::LAYOUT));
}

/// The source of `make_tiled_copy_A`/`_B`/`_C`: operand `W` (0, 1, 2 for A, B, C) of a tiled MMA.
pub struct MmaOperand<M, const W: usize>(PhantomData<fn() -> M>);

impl<A: MmaAtom, T: StaticLayout, P: StaticPermutation, const W: usize> TiledCopySource
    for MmaOperand<TiledMma<A, T, P>, W>
{
    const LAYOUT_TILE: (DynLayout, DynIntTuple) = {
        let l = TiledMma::<A, T, P>::LAYOUTS;
        let [m, n, k] = l.tile_mnk;
        let (layout, a, b) = match W {
            0 => (l.layout_a_tv, m, k),
            1 => (l.layout_b_tv, n, k),
            _ => (l.layout_c_tv, m, n),
        };
        (layout, unwrap("make_tiled_copy", DynIntTuple::tuple(&[s(a), s(b)])))
    };
}

/// CuTe's `TiledCopy` with everything static: its layouts are constants and zero-sized static
/// layouts. Made by [`make_tiled_copy`] and [`make_tiled_copy_A`], [`make_tiled_copy_B`],
/// [`make_tiled_copy_C`].
pub struct TiledCopy<Op, T, Src>(Marker<Op, T, Src>);

impl<Op, T, Src> Clone for TiledCopy<Op, T, Src> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Op, T, Src> Copy for TiledCopy<Op, T, Src> {}
impl<Op, T, Src> Default for TiledCopy<Op, T, Src> {
    fn default() -> Self {
        TiledCopy(PhantomData)
    }
}

impl<Op: CopyAtom, T: Element, Src: TiledCopySource> TiledCopy<Op, T, Src> {
    /// The layouts, computed at compile time.
    pub const LAYOUTS: TiledCopyLayouts = unwrap(
        "make_tiled_copy",
        tiled_copy_layouts(
            &Op::SrcLayout::LAYOUT,
            &Op::DstLayout::LAYOUT,
            &Op::RefLayout::LAYOUT,
            T::BITS as isize,
            &Src::LAYOUT_TILE.0,
            &Src::LAYOUT_TILE.1,
        ),
    );

    /// CuTe's `size(tiled_copy)`: the number of threads.
    pub const fn size(&self) -> usize {
        match Self::LAYOUTS.layout_tv.mode(0) {
            Some(m) => m.size().value as usize,
            None => 0,
        }
    }

    /// CuTe's `Tiler_MN`, the tile's shape, as text-printable value.
    pub const fn tiler_mn(&self) -> DynIntTuple {
        Self::LAYOUTS.tiler_mn
    }

    /// CuTe's `TiledLayout_TV`.
    pub fn layout_tv(&self) -> Computed<CopyLayoutTv<Op, T, Src>> {
        Computed::default()
    }

    /// CuTe's `get_layoutS_TV()`: `(thread, value) -> (m, n)` as the source is read.
    pub fn layout_s_tv(&self) -> Computed<CopyLayoutSTv<Op, T, Src>> {
        Computed::default()
    }

    /// CuTe's `get_layoutD_TV()`: `(thread, value) -> (m, n)` as the destination is written.
    pub fn layout_d_tv(&self) -> Computed<CopyLayoutDTv<Op, T, Src>> {
        Computed::default()
    }
}

macro_rules! copy_layouts {
    ($($(#[$doc:meta])* $name:ident, $field:ident, $op:ident;)+) => {$(
        $(#[$doc])*
        pub struct $name<Op, T, Src>(Marker<Op, T, Src>);

        impl<Op: CopyAtom, T: Element, Src: TiledCopySource> StaticExpr for $name<Op, T, Src> {
            const OP: EvalOp = EvalOp::$op;
            const LAYOUT: DynLayout = TiledCopy::<Op, T, Src>::LAYOUTS.$field;
        }
    )+};
}

copy_layouts! {
    /// The expression of [`TiledCopy::layout_tv`] (a composition).
    CopyLayoutTv, layout_tv, Composition;
    /// The expression of [`TiledCopy::layout_s_tv`] (a composition).
    CopyLayoutSTv, layout_s_tv, Composition;
    /// The expression of [`TiledCopy::layout_d_tv`] (a composition).
    CopyLayoutDTv, layout_d_tv, Composition;
}

/// CuTe's `make_tiled_copy(copy_atom, thr_layout, val_layout)`: `thr_layout` maps `(m, n)` thread
/// coordinates to thread indices, `val_layout` each thread's values; the tile is their raked
/// product.
///
/// ```
/// use const_layout::atom::{make_tiled_copy, Copy_Atom, F16, SM80_CP_ASYNC_CACHEALWAYS};
/// use const_layout::layout_type;
/// // sgemm_sm80.cu's copy of A: 128 threads of 16-byte cp.async, 8 halves each along K.
/// let copy = make_tiled_copy(
///     Copy_Atom::<SM80_CP_ASYNC_CACHEALWAYS<u128>, F16>::default(),
///     <layout_type!((16, 8):(8, 1))>::default(),
///     <layout_type!((1, 8))>::default(),
/// );
/// assert_eq!((copy.size(), copy.tiler_mn().to_string()), (128, "(_16,_64)".to_string()));
/// // Thread 1 copies row 0, columns 8..16.
/// let i = copy.layout_s_tv().crd2idx((1usize, 0usize)) as usize;
/// assert_eq!((i % 16, i / 16), (0, 8));
/// ```
pub fn make_tiled_copy<Op: CopyAtom, T: Element, Thr: StaticLayout, Val: StaticLayout>(
    atom: Copy_Atom<Op, T>,
    thr_layout: Thr,
    val_layout: Val,
) -> TiledCopy<Op, T, ThrVal<Thr, Val>> {
    let _ = (atom, thr_layout, val_layout);
    TiledCopy(PhantomData)
}

macro_rules! copy_of_operand {
    ($($name:ident, $w:literal, $what:literal;)+) => {$(
        #[doc = concat!("CuTe's `", stringify!($name), "(copy_atom, tiled_mma)`: the tiled copy whose")]
        #[doc = concat!("destination layout is the tiled MMA's ", $what, " layout (so a thread")]
        /// copies what it then computes with, as `ldmatrix` into `mma.sync` fragments).
        ///
        /// ```
        /// use const_layout::atom::*;
        /// use const_layout::{layout_type, C};
        /// let mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, <layout_type!((2, 2):(1, 2))>::default(), (C::<32>, C::<32>, C::<16>));
        #[doc = concat!("let copy = ", stringify!($name), "(Copy_Atom::<UniversalCopy<u16>, F16>::default(), mma);")]
        /// assert_eq!(copy.size(), 128);
        /// ```
        #[allow(non_snake_case)]
        pub fn $name<Op: CopyAtom, T: Element, A: MmaAtom, L: StaticLayout, P: StaticPermutation>(
            atom: Copy_Atom<Op, T>,
            mma: TiledMma<A, L, P>,
        ) -> TiledCopy<Op, T, MmaOperand<TiledMma<A, L, P>, $w>> {
            let _ = (atom, mma);
            TiledCopy(PhantomData)
        }
    )+};
}

copy_of_operand! {
    make_tiled_copy_A, 0, "`A`";
    make_tiled_copy_B, 1, "`B`";
    make_tiled_copy_C, 2, "`C`";
}
