//! Copy atoms: CuTe's `Copy_Traits` of `ldmatrix` and `cp.async`, as static layouts in bits.

use super::element::Element;
use crate::algebra::computed::{Computed, StaticExpr, StaticLayout, unwrap};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::eval::Op;
use crate::layout_type;
use core::marker::PhantomData;

/// A copy atom: one copy instruction and its thread-value layouts (CuTe's `Copy_Traits`), which
/// map `(thread, value)` to a bit of the data moved: `SrcLayout` as the source is read,
/// `DstLayout` as the destination is written, `RefLayout` the one a tiled copy is built on.
///
/// ```
/// use const_layout::atom::{CopyAtom, SM75_U32x4_LDSM_N};
/// type Ldsm = SM75_U32x4_LDSM_N;
/// // Each lane gives the address of one 128-bit row ...
/// assert_eq!(Ldsm::src_layout().to_string(), "(_32,_128):(_128,_1)");
/// // ... and receives 32 bits of row lane / 4 of each of the four 8x8 matrices.
/// let bit = Ldsm::dst_layout().crd2idx((13usize, (0usize, 2usize)));
/// assert_eq!((bit / 1024, bit % 1024 / 128, bit % 128), (2, 13 / 4, 32 * (13 % 4)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a copy atom",
    note = "copy atoms are the `SM75_*`, `SM80_*` and `UniversalCopy` types of `const_layout::atom`"
)]
pub trait CopyAtom: Copy + Default {
    /// CuTe's name for the instruction.
    const NAME: &'static str;
    /// The atom's thread index to the thread that runs it.
    type ThrID: StaticLayout + Default;
    /// `(thread, value) -> bit` of the source.
    type SrcLayout: StaticLayout + Default;
    /// `(thread, value) -> bit` of the destination.
    type DstLayout: StaticLayout + Default;
    /// `(thread, value) -> bit`, the reference of a tiled copy.
    type RefLayout: StaticLayout + Default;

    /// `ThrID`, as a value.
    fn thr_id() -> Self::ThrID {
        Default::default()
    }
    /// `SrcLayout`, as a value.
    fn src_layout() -> Self::SrcLayout {
        Default::default()
    }
    /// `DstLayout`, as a value.
    fn dst_layout() -> Self::DstLayout {
        Default::default()
    }
    /// `RefLayout`, as a value.
    fn ref_layout() -> Self::RefLayout {
        Default::default()
    }
}

macro_rules! ldsm_atoms {
    ($($name:ident, $ptx:literal, $src:ty, $dst:ty;)+) => {$(
        #[doc = concat!("`", $ptx, "` (CuTe's `", stringify!($name), "`): one warp loads 8x8 matrices")]
        /// of 16-bit elements from shared memory into registers. See [`CopyAtom`].
        ///
        /// ```
        /// use const_layout::atom::CopyAtom;
        #[doc = concat!("use const_layout::atom::", stringify!($name), " as Atom;")]
        /// assert_eq!(Atom::thr_id().to_string(), "_32:_1");
        /// assert_eq!(Atom::ref_layout().to_string(), Atom::dst_layout().to_string());
        /// ```
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl CopyAtom for $name {
            const NAME: &'static str = stringify!($name);
            type ThrID = layout_type!(32:1);
            type SrcLayout = $src;
            type DstLayout = $dst;
            type RefLayout = $dst;
        }
    )+};
}

ldsm_atoms! {
    SM75_U32x1_LDSM_N, "ldmatrix.sync.aligned.x1.m8n8.shared.b16",
        layout_type!(((8, 4), 128):((128, 0), 1)), layout_type!((32, 32):(32, 1));
    SM75_U32x2_LDSM_N, "ldmatrix.sync.aligned.x2.m8n8.shared.b16",
        layout_type!(((16, 2), 128):((128, 0), 1)), layout_type!((32, (32, 2)):(32, (1, 1024)));
    SM75_U32x4_LDSM_N, "ldmatrix.sync.aligned.x4.m8n8.shared.b16",
        layout_type!((32, 128):(128, 1)), layout_type!((32, (32, 4)):(32, (1, 1024)));
    SM75_U16x2_LDSM_T, "ldmatrix.sync.aligned.x1.trans.m8n8.shared.b16",
        layout_type!(((8, 4), 128):((128, 0), 1)), layout_type!(((4, 8), (16, 2)):((256, 16), (1, 128)));
    SM75_U16x4_LDSM_T, "ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16",
        layout_type!(((16, 2), 128):((128, 0), 1)), layout_type!(((4, 8), (16, 2, 2)):((256, 16), (1, 128, 1024)));
    SM75_U16x8_LDSM_T, "ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16",
        layout_type!((32, 128):(128, 1)), layout_type!(((4, 8), (16, 2, 4)):((256, 16), (1, 128, 1024)));
}

/// One thread moving one `T`: `(_1, bits):(_0, _1)`, the layouts of the single-thread copies.
pub struct OneThreadOf<T>(PhantomData<fn() -> T>);

impl<T: Element> StaticExpr for OneThreadOf<T> {
    const OP: Op = Op::MakeLayout;
    const LAYOUT: DynLayout = {
        use super::static_int as s;
        let shape = unwrap("copy atom", DynIntTuple::tuple(&[s(1), s(T::BITS as isize)]));
        let stride = unwrap("copy atom", DynIntTuple::tuple(&[s(0), s(1)]));
        unwrap("copy atom", DynLayout::new(shape, stride))
    };
}

macro_rules! one_thread_atoms {
    ($($name:ident, $what:literal;)+) => {$(
        #[doc = concat!($what, " of one `T` by one thread (CuTe's `", stringify!($name), "<T>`). See [`CopyAtom`].")]
        ///
        /// ```
        /// use const_layout::atom::CopyAtom;
        #[doc = concat!("use const_layout::atom::", stringify!($name), ";")]
        #[doc = concat!("assert_eq!(", stringify!($name), "::<u128>::src_layout().to_string(), \"(_1,_128):(_0,_1)\");")]
        /// ```
        #[allow(non_camel_case_types)]
        pub struct $name<T>(PhantomData<fn() -> T>);

        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> Default for $name<T> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
        impl<T: Element> core::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}<{}>", stringify!($name), T::NAME)
            }
        }

        impl<T: Element> CopyAtom for $name<T> {
            const NAME: &'static str = stringify!($name);
            type ThrID = layout_type!(1:0);
            type SrcLayout = Computed<OneThreadOf<T>>;
            type DstLayout = Computed<OneThreadOf<T>>;
            type RefLayout = Computed<OneThreadOf<T>>;
        }
    )+};
}

one_thread_atoms! {
    SM80_CP_ASYNC_CACHEALWAYS, "`cp.async.ca.shared.global`: an asynchronous copy from global to shared memory, cached in L1,";
    SM80_CP_ASYNC_CACHEGLOBAL, "`cp.async.cg.shared.global`: an asynchronous copy from global to shared memory, cached in L2 only (16 bytes),";
    UniversalCopy, "A plain load and store";
}
