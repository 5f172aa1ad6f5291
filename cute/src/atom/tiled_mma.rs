//! CuTe's `TiledMMA`: an MMA atom repeated over threads (`AtomLayoutMNK`) and permuted over values
//! (`PermutationMNK`), with its `(thread, value)` layouts of `A`, `B` and `C`.

use super::mma::MmaAtom;
use crate::algebra::computed::{Computed, Keep, StaticExpr, StaticLayout, StaticTileItem, unwrap};
use crate::algebra::{self, TileMode, Tiler};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};
use crate::eval::Op;
use core::marker::PhantomData;

type R<T> = Result<T, LayoutError>;

/// The layouts of a tiled MMA, as CuTe's `TiledMMA` gives them.
///
/// ```
/// use const_layout::algebra::TileMode;
/// use const_layout::atom::tiled_mma_layouts;
/// use const_layout::dyn_layout::DynLayout;
/// let p = |s: &str| s.parse::<DynLayout>().unwrap();
/// // SM80_16x8x16_F32F16F16F32_TN on 2x2 warps.
/// let t = tiled_mma_layouts(
///     &p("_32:_1"),
///     &p("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"),
///     &p("((_4,_8),(_2,_2)):((_16,_1),(_8,_64))"),
///     &p("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"),
///     [16, 8, 16],
///     &p("(_2,_2):(_1,_2)"),
///     &[TileMode::Keep; 3],
/// )
/// .unwrap();
/// assert_eq!(t.tile_mnk, [32, 16, 16]);
/// assert_eq!(t.thr_layout_vmnk.to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
/// assert_eq!(t.layout_c_tv.size().value, 32 * 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledMmaLayouts {
    /// CuTe's `get_thr_layout_vmnk()`: `(ThrV, ThrM, ThrN, ThrK) -> thread`.
    pub thr_layout_vmnk: DynLayout,
    /// CuTe's `tile_size_mnk<I>()`, for `I` = 0, 1, 2.
    pub tile_mnk: [isize; 3],
    /// CuTe's `get_layoutA_TV()`: `(thread, value) -> m + M k` in the `M x K` tile.
    pub layout_a_tv: DynLayout,
    /// CuTe's `get_layoutB_TV()`: `(thread, value) -> n + N k`.
    pub layout_b_tv: DynLayout,
    /// CuTe's `get_layoutC_TV()`: `(thread, value) -> m + M n`. With threads along `K` as well
    /// (a thread layout whose third mode is above 1) this is CuTe's layout too, which sends the
    /// threads past the first `K` group beyond the tile (they accumulate the same `C` values).
    pub layout_c_tv: DynLayout,
}

use super::static_int as s;

const fn pair(a: DynIntTuple, b: DynIntTuple) -> R<DynIntTuple> {
    DynIntTuple::tuple(&[a, b])
}

/// The size of a tile item (`_` has none: the caller replaced it).
const fn item_size(item: &TileMode) -> R<isize> {
    match item {
        TileMode::Layout(l) => Ok(l.size().value),
        TileMode::Shape(t) => match t.size() {
            Ok(n) => Ok(n.value),
            Err(e) => Err(e),
        },
        TileMode::Keep => Ok(1),
    }
}

/// `layout` with the mode at `path` composed with `with` (CuTe's `compose` by a nested tile whose
/// other items are `_`).
const fn compose_at(layout: &DynLayout, path: &[usize], with: &DynLayout) -> R<DynLayout> {
    match path {
        [] => algebra::composition(layout, with),
        [i, rest @ ..] => {
            let Some(mode) = layout.mode(*i) else {
                return Err(LayoutError::ModeOutOfRange {
                    op: "make_tiled_mma",
                    index: *i,
                    rank: layout.rank(),
                });
            };
            let inner = tri!(compose_at(&mode, rest, with));
            algebra::replace(layout, *i, &inner)
        }
    }
}

/// CuTe's `thrfrg_A`/`_B`/`_C` on the reference layout of one operand: `(P, Q)` to
/// `((ThrV,(ThrP,ThrQ)),(FrgV,(RestP,RestQ)))`.
#[allow(clippy::too_many_arguments)]
const fn thrfrg(
    tile_pq: [isize; 2],
    perm: [TileMode; 2],
    atom_pq: [isize; 2],
    atom_tv: &DynLayout,
    thr_pq: [isize; 2],
) -> R<DynLayout> {
    let reference = tri!(DynLayout::compact(tri!(pair(s(tile_pq[0]), s(tile_pq[1]))), true));
    let t = tri!(algebra::logical_divide(&reference, &tri!(Tiler::by_mode(&perm))));
    let atom_tile = tri!(Tiler::by_mode(&[TileMode::Shape(s(atom_pq[0])), TileMode::Shape(s(atom_pq[1]))]));
    let c = tri!(algebra::zipped_divide(&t, &atom_tile));
    let tv = tri!(algebra::composition_tiler(
        &c,
        &tri!(Tiler::by_mode(&[TileMode::Layout(*atom_tv), TileMode::Keep]))
    ));
    let thr_tile = TileMode::Shape(tri!(pair(s(thr_pq[0]), s(thr_pq[1]))));
    algebra::zipped_divide(&tv, &tri!(Tiler::by_mode(&[TileMode::Keep, thr_tile])))
}

/// CuTe's `make_tiled_mma(atom, thr_layout, permutations)` on layouts held as values: the atom's
/// `ThrID`, `ALayout`, `BLayout`, `CLayout` and `Shape_MNK`, the atoms' layout over threads
/// (rank at most 3; missing modes are `_1:_0`) and one permutation item per mode of `M`, `N`,
/// `K` (`TileMode::Keep` for CuTe's `_`: the atom's extent times its threads in that mode).
///
/// The static [`make_tiled_mma`] computes the same at compile time. A tile of `M`, `N` or `K` that
/// is not a multiple of the atom's extent times its threads there is
/// [`LayoutError::TileNotDivisible`] (CuTe would tile it anyway); an operand the algebra refuses
/// (a thread layout of rank above 3, a permutation that is not a layout of the tile) is the
/// algebra's error.
pub const fn tiled_mma_layouts(
    thr_id: &DynLayout,
    a: &DynLayout,
    b: &DynLayout,
    c: &DynLayout,
    shape_mnk: [isize; 3],
    thr_layout: &DynLayout,
    permutation: &[TileMode; 3],
) -> R<TiledMmaLayouts> {
    if thr_layout.rank() > 3 {
        return Err(LayoutError::ModeOutOfRange {
            op: "make_tiled_mma",
            index: thr_layout.rank() - 1,
            rank: 3,
        });
    }
    let thr_mnk = tri!(algebra::append_to(thr_layout, 3));
    let vmnk = tri!(algebra::tiled_product(thr_id, &Tiler::Layout(thr_mnk)));
    let mut thr = [1isize; 3];
    let mut perm = [TileMode::Keep; 3];
    let mut tile_mnk = [0isize; 3];
    let mut i = 0;
    while i < 3 {
        thr[i] = match vmnk.mode(i + 1) {
            Some(m) => m.size().value,
            None => 1,
        };
        perm[i] = match permutation[i] {
            TileMode::Keep => TileMode::Shape(s(shape_mnk[i] * thr[i])),
            item => item,
        };
        tile_mnk[i] = tri!(item_size(&perm[i]));
        let step = shape_mnk[i] * thr[i];
        if step <= 0 || tile_mnk[i] % step != 0 {
            return Err(LayoutError::TileNotDivisible { mode: ["M", "N", "K"][i], tile: tile_mnk[i], step });
        }
        i += 1;
    }
    // thread index -> (ThrV, ThrM, ThrN, ThrK)
    let threads = vmnk.size().value;
    let one_to_many = tri!(DynLayout::new(tri!(pair(s(threads), s(1))), tri!(pair(s(1), s(0)))));
    let full = tri!(algebra::make_layout_of(&[vmnk, tri!(algebra::complement(&vmnk))]));
    let thridx = tri!(algebra::composition(&one_to_many, &tri!(algebra::right_inverse(&full))));
    let by_thread = tri!(Tiler::by_mode(&[TileMode::Layout(thridx), TileMode::Keep]));

    let fc = tri!(thrfrg(
        [tile_mnk[0], tile_mnk[1]],
        [perm[0], perm[1]],
        [shape_mnk[0], shape_mnk[1]],
        c,
        [thr[0], thr[1]]
    ));
    let layout_c_tv = tri!(algebra::composition_tiler(&fc, &by_thread));

    // (ThrV,(ThrM,ThrK)) -> (ThrV,(ThrM,ThrN,ThrK)): A is the same for every ThrN.
    let fa = tri!(thrfrg(
        [tile_mnk[0], tile_mnk[2]],
        [perm[0], perm[2]],
        [shape_mnk[0], shape_mnk[2]],
        a,
        [thr[0], thr[2]]
    ));
    let a_thr = tri!(DynLayout::new(tri!(pair(s(thr[0]), s(thr[1]))), tri!(pair(s(1), s(0)))));
    let layout_a_tv =
        tri!(algebra::composition_tiler(&tri!(compose_at(&fa, &[0, 1, 0], &a_thr)), &by_thread));

    let fb = tri!(thrfrg(
        [tile_mnk[1], tile_mnk[2]],
        [perm[1], perm[2]],
        [shape_mnk[1], shape_mnk[2]],
        b,
        [thr[1], thr[2]]
    ));
    let b_thr = tri!(DynLayout::new(tri!(pair(s(thr[0]), s(thr[1]))), tri!(pair(s(0), s(1)))));
    let layout_b_tv =
        tri!(algebra::composition_tiler(&tri!(compose_at(&fb, &[0, 1, 0], &b_thr)), &by_thread));

    Ok(TiledMmaLayouts { thr_layout_vmnk: vmnk, tile_mnk, layout_a_tv, layout_b_tv, layout_c_tv })
}

/// A static permutation of a tiled MMA: a tuple of two or three items, each `Keep` (CuTe's `_`), a
/// static integer or a static layout.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a permutation of a tiled MMA",
    label = "expected a tuple of two or three items: `Keep`, `C<N>` or a static layout",
    note = "CuTe's `Tile<_32,_32,_16>` is `(C<32>, C<32>, C<16>)`; `_` is `Keep`"
)]
pub trait StaticPermutation {
    /// The items for `M`, `N` and `K`.
    const ITEMS: [TileMode; 3];
}

impl<A: StaticTileItem, B: StaticTileItem> StaticPermutation for (A, B) {
    const ITEMS: [TileMode; 3] = [A::ITEM, B::ITEM, TileMode::Keep];
}

impl<A: StaticTileItem, B: StaticTileItem, C: StaticTileItem> StaticPermutation for (A, B, C) {
    const ITEMS: [TileMode; 3] = [A::ITEM, B::ITEM, C::ITEM];
}

/// CuTe's `TiledMMA<Atom, AtomLayoutMNK, PermutationMNK>` with everything static: its layouts are
/// constants and zero-sized static layouts (so a kernel's index math through them folds). Made by
/// [`make_tiled_mma`].
pub struct TiledMma<Atom, ThrLayout, Perm>(Marker<Atom, ThrLayout, Perm>);

/// The three type parameters of a tiled MMA, held by no value.
pub(crate) type Marker<A, T, P> = PhantomData<fn() -> (A, T, P)>;

impl<Atom, T, P> Clone for TiledMma<Atom, T, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Atom, T, P> Copy for TiledMma<Atom, T, P> {}
impl<Atom, T, P> Default for TiledMma<Atom, T, P> {
    fn default() -> Self {
        TiledMma(PhantomData)
    }
}

/// CuTe's `make_tiled_mma(atom, thr_layout, permutations)` with static operands: `thr_layout` lays
/// the atoms over threads (rank up to 3, `M`, `N`, `K`), `permutations` gives each of `M`, `N`,
/// `K` a tile (`Keep` for CuTe's `_`). A tiling the algebra refuses is a compile error in a full
/// build, naming the condition.
///
/// ```
/// use const_layout::atom::{make_tiled_mma, SM80_16x8x16_F32F16F16F32_TN};
/// use const_layout::algebra::computed::Keep;
/// use const_layout::layout_type;
/// // 2x2 warps, each atom 16x8x16: a 32x16x16 tile of 128 threads.
/// let mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, <layout_type!((2, 2):(1, 2))>::default(), (Keep, Keep, Keep));
/// assert_eq!(mma.tile_mnk(), [32, 16, 16]);
/// assert_eq!(mma.size(), 128);
/// // Thread 37 (lane 5 of warp 1, the second in M) holds C(16 + 1, 2) as its first value.
/// let c = mma.layout_c_tv().crd2idx((37usize, 0usize)) as usize;
/// assert_eq!((c % 32, c / 32), (17, 2));
/// ```
pub fn make_tiled_mma<Atom: MmaAtom, T: StaticLayout, P: StaticPermutation>(
    atom: Atom,
    thr_layout: T,
    permutations: P,
) -> TiledMma<Atom, T, P> {
    let _ = (atom, thr_layout, permutations);
    TiledMma(PhantomData)
}

impl<Atom: MmaAtom, T: StaticLayout, P: StaticPermutation> TiledMma<Atom, T, P> {
    /// The layouts, computed at compile time.
    pub const LAYOUTS: TiledMmaLayouts = unwrap(
        "make_tiled_mma",
        tiled_mma_layouts(
            &Atom::ThrID::LAYOUT,
            &Atom::ALayout::LAYOUT,
            &Atom::BLayout::LAYOUT,
            &Atom::CLayout::LAYOUT,
            [Atom::SHAPE_MNK[0] as isize, Atom::SHAPE_MNK[1] as isize, Atom::SHAPE_MNK[2] as isize],
            &T::LAYOUT,
            &P::ITEMS,
        ),
    );

    /// CuTe's `size(tiled_mma)`: the number of threads.
    pub const fn size(&self) -> usize {
        Self::LAYOUTS.thr_layout_vmnk.size().value as usize
    }

    /// CuTe's `tile_size_mnk<0..3>()`.
    pub const fn tile_mnk(&self) -> [usize; 3] {
        let t = Self::LAYOUTS.tile_mnk;
        [t[0] as usize, t[1] as usize, t[2] as usize]
    }

    /// CuTe's `get_thr_layout_vmnk()`.
    pub fn thr_layout_vmnk(&self) -> Computed<ThrLayoutVmnk<Atom, T, P>> {
        Computed::default()
    }

    /// CuTe's `get_layoutA_TV()`: `(thread, value) -> m + M k` in the `M x K` tile.
    pub fn layout_a_tv(&self) -> Computed<LayoutATv<Atom, T, P>> {
        Computed::default()
    }

    /// CuTe's `get_layoutB_TV()`: `(thread, value) -> n + N k` in the `N x K` tile.
    pub fn layout_b_tv(&self) -> Computed<LayoutBTv<Atom, T, P>> {
        Computed::default()
    }

    /// CuTe's `get_layoutC_TV()`: `(thread, value) -> m + M n` in the `M x N` tile.
    pub fn layout_c_tv(&self) -> Computed<LayoutCTv<Atom, T, P>> {
        Computed::default()
    }
}

macro_rules! tiled_layouts {
    ($($(#[$doc:meta])* $name:ident, $field:ident, $op:ident;)+) => {$(
        $(#[$doc])*
        pub struct $name<Atom, T, P>(Marker<Atom, T, P>);

        impl<Atom: MmaAtom, T: StaticLayout, P: StaticPermutation> StaticExpr for $name<Atom, T, P> {
            const OP: Op = Op::$op;
            const LAYOUT: DynLayout = TiledMma::<Atom, T, P>::LAYOUTS.$field;
        }
    )+};
}

tiled_layouts! {
    /// The expression of [`TiledMma::thr_layout_vmnk`] (a tiled product).
    ThrLayoutVmnk, thr_layout_vmnk, TiledProduct;
    /// The expression of [`TiledMma::layout_a_tv`] (a composition).
    LayoutATv, layout_a_tv, Composition;
    /// The expression of [`TiledMma::layout_b_tv`] (a composition).
    LayoutBTv, layout_b_tv, Composition;
    /// The expression of [`TiledMma::layout_c_tv`] (a composition).
    LayoutCTv, layout_c_tv, Composition;
}

/// CuTe's default `AtomLayoutMNK`, one atom: `(_1,_1,_1):(_0,_0,_0)`.
pub type OneAtom = crate::layout_type!((1, 1, 1):(0, 0, 0));

/// CuTe's default permutation, `Tile<_,_,_>`.
pub type NoPermutation = (Keep, Keep, Keep);
