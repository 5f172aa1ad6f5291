//! MMA and copy atoms as layouts (CuTe's `cute/atom`): the thread-value layouts of tensor-core
//! instructions and of the copies that feed them, and the tiled MMAs built from them.
//!
//! An atom is a zero-sized type naming one PTX instruction (CuTe's names: `SM80_16x8x16_F32F16F16F32_TN`
//! is `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`). Its layouts are static layouts, as in
//! CuTe's `MMA_Traits` and `Copy_Traits`:
//!
//! - an MMA atom's `ALayout` maps `(thread, value)` to the column-major index of `(m, k)` in its
//!   `M x K` tile, `BLayout` to `(n, k)` in `N x K`, `CLayout` to `(m, n)` in `M x N`;
//! - a copy atom's `SrcLayout`, `DstLayout` and `RefLayout` map `(thread, value)` to a *bit* of the
//!   data the instruction moves (CuTe counts copy atoms in bits, so one atom serves every element
//!   type; a [`TiledCopy`] of a [`Copy_Atom`] gives them in elements of its type).
//!
//! [`make_tiled_mma`] tiles an atom over threads and values as CuTe's `make_tiled_mma` does, and
//! gives the tiled `(thread, value) -> (m, k)`, `(n, k)` and `(m, n)` layouts, computed at compile
//! time for static atoms and at run time through [`tiled_mma_layouts`] for layouts held as values.
//! [`make_tiled_copy`] (and [`make_tiled_copy_A`], `_B`, `_C`, which copy a tiled MMA's operands)
//! does the same for copies: the source's and destination's `(thread, value) -> (m, n)` layouts
//! and the tile, with [`tiled_copy_layouts`] at run time.
//!
//! [`fragment`] holds the register fragments of atoms and tiled MMAs (each register's `(m, n)`),
//! the accumulator-to-operand permutation and the row and column reductions of attention kernels.
//!
//! [`gmma`] holds the sm90 warp-group layouts: the accumulator and operand layouts of `wgmma`,
//! CuTe's shared-memory atoms for it and the shared-memory matrix descriptors derived from a
//! tile's layout ([`gmma::make_gmma_desc`]). [`tma`] derives the Tensor Memory Accelerator's box and
//! swizzle mode from the same shared-memory layouts ([`tma::make_tma_box`]).
//!
//! Every layout here is checked against CuTe C++ text for text (`tests/typed/atoms.rs`, with
//! generated tilings and tiled copies) and against the PTX ISA's fragment figures.
//!
//! ```
//! use const_layout::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN};
//! type Atom = SM80_16x8x16_F32F16F16F32_TN;
//! assert_eq!(Atom::SHAPE_MNK, [16, 8, 16]);
//! // Lane 5 holds c0 at row 5 / 4 = 1, column 2 * (5 % 4) = 2 (the PTX ISA's figure).
//! let c = Atom::c_layout().crd2idx((5usize, 0usize));
//! assert_eq!((c % 16, c / 16), (1, 2));
//! ```

mod copy;
mod element;
pub mod fragment;
/// The static integer `_v` as an int tuple: the leaf every atom layout is built from.
pub(crate) const fn static_int(v: isize) -> crate::dyn_layout::DynIntTuple {
    crate::dyn_layout::DynIntTuple::int(crate::dyn_layout::DynInt::new_static(v))
}

pub mod gmma;
mod mma;
mod tiled_copy;
mod tiled_mma;
pub mod tma;

pub use copy::{
    CopyAtom, OneThreadOf, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
    SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_CP_ASYNC_CACHEALWAYS, SM80_CP_ASYNC_CACHEGLOBAL,
    UniversalCopy,
};
pub use element::{BF16, Element, F16};
pub use fragment::{
    AccToOperand, ColumnReduction, FragmentLayout, ReductionPlan, RegisterPermutation, RowReduction,
    acc_to_operand, reduction_plan,
};
pub use mma::{
    KMajor, MmaAtom, MnMajor, SM80_16x8x8_F16F16F16F16_TN, SM80_16x8x8_F32BF16BF16F32_TN,
    SM80_16x8x8_F32F16F16F32_TN, SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32BF16BF16F32_TN,
    SM80_16x8x16_F32F16F16F32_TN, SM90_64xNx16_F16F16F16_RS, SM90_64xNx16_F16F16F16_SS,
    SM90_64xNx16_F32BF16BF16_RS, SM90_64xNx16_F32BF16BF16_SS, SM90_64xNx16_F32F16F16_RS,
    SM90_64xNx16_F32F16F16_SS,
};
pub use tiled_copy::{
    Copy_Atom, CopyLayoutDTv, CopyLayoutSTv, CopyLayoutTv, MmaOperand, ThrVal, TiledCopy, TiledCopyLayouts,
    TiledCopySource, make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_copy_C,
    make_tiled_copy_layouts, tiled_copy_layouts,
};
pub use tiled_mma::{
    LayoutATv, LayoutBTv, LayoutCTv, NoPermutation, OneAtom, StaticPermutation, ThrLayoutVmnk, TiledMma,
    TiledMmaLayouts, make_tiled_mma, tiled_mma_layouts,
};
