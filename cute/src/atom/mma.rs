//! MMA atoms: CuTe's `MMA_Traits` of the sm80 `mma.sync` and sm90 `wgmma` instructions, as static
//! layouts.

use super::element::{BF16, Element, F16};
use super::gmma;
use crate::algebra::computed::StaticLayout;
use crate::layout_type;
use core::marker::PhantomData;

/// An MMA atom: one tensor-core instruction and its thread-value layouts (CuTe's `MMA_Traits`).
///
/// `ALayout` maps `(thread, value)` to the column-major index `m + M k` of the `M x K` tile of `A`,
/// `BLayout` to `n + N k` of `B` (`N x K`), `CLayout` to `m + M n` of `C`. `ThrID` maps the atom's
/// thread index to the thread that runs it (`_32:_1` for a warp, `_128:_1` for a warp group).
///
/// ```
/// use const_layout::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN};
/// type Atom = SM80_16x8x16_F32F16F16F32_TN;
/// assert_eq!(Atom::a_layout().to_string(), "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))");
/// // Lane 9, value a6 (the PTX ISA's fragment figure): row 9 / 4 + 8 = 10, column 2 * (9 % 4) + 8 = 10.
/// let a = Atom::a_layout().crd2idx((9usize, 6usize));
/// assert_eq!((a % 16, a / 16), (10, 10));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MMA atom",
    note = "MMA atoms are the `SM80_*` and `SM90_*` types of `const_layout::atom`"
)]
pub trait MmaAtom: Copy + Default {
    /// CuTe's name for the instruction.
    const NAME: &'static str;
    /// The atom's tile, `[M, N, K]`.
    const SHAPE_MNK: [usize; 3];
    /// The element type of `A`.
    type ValA: Element;
    /// The element type of `B`.
    type ValB: Element;
    /// The element type of `C` (and `D`).
    type ValC: Element;
    /// The atom's thread index to the thread that runs it.
    type ThrID: StaticLayout + Default;
    /// `(thread, value) -> m + M k`.
    type ALayout: StaticLayout + Default;
    /// `(thread, value) -> n + N k`.
    type BLayout: StaticLayout + Default;
    /// `(thread, value) -> m + M n`.
    type CLayout: StaticLayout + Default;

    /// `ThrID`, as a value.
    fn thr_id() -> Self::ThrID {
        Default::default()
    }
    /// `ALayout`, as a value.
    fn a_layout() -> Self::ALayout {
        Default::default()
    }
    /// `BLayout`, as a value.
    fn b_layout() -> Self::BLayout {
        Default::default()
    }
    /// `CLayout`, as a value.
    fn c_layout() -> Self::CLayout {
        Default::default()
    }
}

// The sm80 layouts (`cute/atom/mma_traits_sm80.hpp`, `SM80_16x8_Row` and its kin).
type ThrWarp = layout_type!(32:1);
type A16x8 = layout_type!(((4, 8), (2, 2)):((32, 1), (16, 8)));
type A16x16 = layout_type!(((4, 8), (2, 2, 2)):((32, 1), (16, 8, 128)));
type B8x8 = layout_type!(((4, 8), 2):((16, 1), 8));
type B8x16 = layout_type!(((4, 8), (2, 2)):((16, 1), (8, 64)));
type C16x8 = layout_type!(((4, 8), (2, 2)):((32, 1), (16, 8)));

macro_rules! sm80_atoms {
    ($($name:ident, $ptx:literal, $c:ty, $a:ty, $b:ty, [$m:literal, $n:literal, $k:literal], $al:ty, $bl:ty;)+) => {$(
        #[doc = concat!("`", $ptx, "` (CuTe's `", stringify!($name), "`): one warp, `A` row-major")]
        /// and `B` column-major (`TN`: both k-contiguous). See [`MmaAtom`].
        ///
        /// ```
        /// use const_layout::atom::MmaAtom;
        #[doc = concat!("use const_layout::atom::", stringify!($name), " as Atom;")]
        #[doc = concat!("assert_eq!(Atom::SHAPE_MNK, [", $m, ", ", $n, ", ", $k, "]);")]
        /// assert_eq!(Atom::c_layout().to_string(), "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))");
        /// ```
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl MmaAtom for $name {
            const NAME: &'static str = stringify!($name);
            const SHAPE_MNK: [usize; 3] = [$m, $n, $k];
            type ValA = $a;
            type ValB = $b;
            type ValC = $c;
            type ThrID = ThrWarp;
            type ALayout = $al;
            type BLayout = $bl;
            type CLayout = C16x8;
        }
    )+};
}

sm80_atoms! {
    SM80_16x8x8_F32F16F16F32_TN, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", f32, F16, F16, [16, 8, 8], A16x8, B8x8;
    SM80_16x8x8_F16F16F16F16_TN, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", F16, F16, F16, [16, 8, 8], A16x8, B8x8;
    SM80_16x8x8_F32BF16BF16F32_TN, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", f32, BF16, BF16, [16, 8, 8], A16x8, B8x8;
    SM80_16x8x16_F32F16F16F32_TN, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", f32, F16, F16, [16, 8, 16], A16x16, B8x16;
    SM80_16x8x16_F16F16F16F16_TN, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", F16, F16, F16, [16, 8, 16], A16x16, B8x16;
    SM80_16x8x16_F32BF16BF16F32_TN, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", f32, BF16, BF16, [16, 8, 16], A16x16, B8x16;
}

/// A `wgmma` operand read from shared memory with `k` contiguous (CuTe's `GMMA::Major::K`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KMajor;

/// A `wgmma` operand read from shared memory with `m` (or `n`) contiguous (`GMMA::Major::MN`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MnMajor;

macro_rules! sm90_atoms {
    ($($name:ident, $ptx:literal, $c:ty, $a:ty, $b:ty, $al:ty, $from:literal;)+) => {$(
        #[doc = concat!("`", $ptx, "` with `N` a multiple of 8 from 8 to 256 (CuTe's `SM90_64x{N}x16_")]
        #[doc = concat!(stringify!($name), "`, a template here), `A` from ", $from, ", `B` from shared memory,")]
        /// each read `k`-major or mn-major as `MajorA`, `MajorB` say (the layouts are the same; the
        /// shared-memory descriptors differ). One warp group of 128 threads. See [`MmaAtom`].
        ///
        /// ```
        /// use const_layout::atom::MmaAtom;
        #[doc = concat!("use const_layout::atom::", stringify!($name), ";")]
        #[doc = concat!("type Atom = ", stringify!($name), "<128>;")]
        /// assert_eq!(Atom::SHAPE_MNK, [64, 128, 16]);
        /// assert_eq!(Atom::b_layout().to_string(), "(_128,(_128,_16)):(_0,(_1,_128))");
        /// ```
        #[allow(non_camel_case_types)]
        pub struct $name<const N: usize, MajorA = KMajor, MajorB = KMajor>(PhantomData<fn() -> (MajorA, MajorB)>);

        impl<const N: usize, A, B> Clone for $name<N, A, B> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<const N: usize, A, B> Copy for $name<N, A, B> {}
        impl<const N: usize, A, B> Default for $name<N, A, B> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
        impl<const N: usize, A, B> core::fmt::Debug for $name<N, A, B> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "SM90_64x{}x16_{}", N, &stringify!($name)[13..])
            }
        }

        impl<const N: usize, A, B> MmaAtom for $name<N, A, B> {
            const NAME: &'static str = stringify!($name);
            const SHAPE_MNK: [usize; 3] = [64, N, 16];
            type ValA = $a;
            type ValB = $b;
            type ValC = $c;
            type ThrID = layout_type!(128:1);
            type ALayout = $al;
            type BLayout = gmma::ABLayout<N, 16>;
            type CLayout = gmma::CLayout_64xN<N>;
        }
    )+};
}

sm90_atoms! {
    SM90_64xNx16_F32F16F16_SS, "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16", f32, F16, F16, gmma::ABLayout<64, 16>, "shared memory";
    SM90_64xNx16_F32F16F16_RS, "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16", f32, F16, F16, gmma::ALayout_64x16, "registers";
    SM90_64xNx16_F16F16F16_SS, "wgmma.mma_async.sync.aligned.m64nNk16.f16.f16.f16", F16, F16, F16, gmma::ABLayout<64, 16>, "shared memory";
    SM90_64xNx16_F16F16F16_RS, "wgmma.mma_async.sync.aligned.m64nNk16.f16.f16.f16", F16, F16, F16, gmma::ALayout_64x16, "registers";
    SM90_64xNx16_F32BF16BF16_SS, "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16", f32, BF16, BF16, gmma::ABLayout<64, 16>, "shared memory";
    SM90_64xNx16_F32BF16BF16_RS, "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16", f32, BF16, BF16, gmma::ALayout_64x16, "registers";
}
