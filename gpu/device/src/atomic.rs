//! Atomic read-modify-write on global and shared memory (CUDA's `atomicAdd`, `atomicMax`,
//! `atomicMin`, `atomicExch`, `atomicCAS`; PTX's `atom`, and `red` where the old value is not
//! needed). Relaxed, at GPU scope for global memory and block scope for shared memory: an atomic
//! orders nothing else; a barrier or a fence does.
//!
//! Each access is checked against the view's or the array's length, as a plain access is.
//!
//! ```
//! use const_layout_device::emu::{launch, DeviceBuffer, LaunchConfig};
//! use const_layout_device::{thread_idx, Dim3, SmemRegion, sync_threads};
//! let mut hist = DeviceBuffer::<u32>::zeros(4);
//! let total = DeviceBuffer::<f32>::zeros(1);
//! let (h, t) = (hist.gmem_mut(), total.gmem());
//! let out = DeviceBuffer::<u32>::zeros(1);
//! let cfg = LaunchConfig { grid: Dim3::x(2), block: Dim3::x(64), dynamic_smem_bytes: 16 };
//! launch(&cfg, || {
//!     let i = thread_idx().x;
//!     h.atomic_add((i % 4) as usize, 1);
//!     let s = SmemRegion::dynamic().array::<u32, 4>(0).unwrap();
//!     if i == 0 {
//!         s.store(0, 0);
//!     }
//!     sync_threads();
//!     s.atomic_max(0, i);
//!     sync_threads();
//!     assert_eq!(s.load(0), 63);
//! })
//! .unwrap();
//! assert_eq!(hist.to_vec(), [32, 32, 32, 32]);
//! # let _ = (t, out);
//! ```

use crate::backend::{self, AtomicOp};
use crate::gmem::GmemMut;
use crate::smem::SmemArray;
use crate::thread::fault;
use crate::types::Word;

mod sealed {
    pub trait Sealed {}
}

/// Element types with an atomic add: `u32`, `i32`, `f32`. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic add",
    note = "atomic add takes u32, i32 or f32"
)]
pub trait AtomicAdd: Word + sealed::Sealed {
    #[doc(hidden)]
    const KIND: Kind;
}

/// Element types with an atomic maximum and minimum: `u32`, `i32`. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic maximum or minimum",
    note = "atomic max and min take u32 or i32"
)]
pub trait AtomicMinMax: Word + sealed::Sealed {
    #[doc(hidden)]
    const KIND: Kind;
}

#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    U32,
    S32,
    F32,
}

impl sealed::Sealed for u32 {}
impl sealed::Sealed for i32 {}
impl sealed::Sealed for f32 {}
impl AtomicAdd for u32 {
    const KIND: Kind = Kind::U32;
}
impl AtomicAdd for i32 {
    const KIND: Kind = Kind::S32;
}
impl AtomicAdd for f32 {
    const KIND: Kind = Kind::F32;
}
impl AtomicMinMax for u32 {
    const KIND: Kind = Kind::U32;
}
impl AtomicMinMax for i32 {
    const KIND: Kind = Kind::S32;
}

/// The global atomic `op` of kind `kind` at element `i` of `p`.
///
/// # Safety
/// `i` is inside the view.
#[inline(always)]
unsafe fn global(p: backend::GlobalPtr<'_>, i: usize, kind: Kind, op: AtomicOp, v: u32, keep: bool) -> u32 {
    // SAFETY: the caller's contract; the view is writable (a `GmemMut`).
    unsafe {
        match (kind, keep) {
            (Kind::U32, true) => backend::atom_global_u32(p, i, op, v),
            (Kind::S32, true) => backend::atom_global_s32(p, i, op, v),
            (Kind::F32, true) => backend::atom_global_f32(p, i, op, v),
            (Kind::U32, false) => {
                backend::red_global_u32(p, i, op, v);
                0
            }
            (Kind::S32, false) => {
                backend::red_global_s32(p, i, op, v);
                0
            }
            (Kind::F32, false) => {
                backend::red_global_f32(p, i, op, v);
                0
            }
        }
    }
}

/// The shared atomic `op` of kind `kind` at shared address `a`.
///
/// # Safety
/// `a` is a 4-byte aligned address inside the block's shared memory.
#[inline(always)]
unsafe fn shared(a: u32, kind: Kind, op: AtomicOp, v: u32, keep: bool) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        match (kind, keep) {
            (Kind::U32, true) => backend::atom_shared_u32(a, op, v),
            (Kind::S32, true) => backend::atom_shared_s32(a, op, v),
            (Kind::F32, true) => backend::atom_shared_f32(a, op, v),
            (Kind::U32, false) => {
                backend::red_shared_u32(a, op, v);
                0
            }
            (Kind::S32, false) => {
                backend::red_shared_s32(a, op, v);
                0
            }
            (Kind::F32, false) => {
                backend::red_shared_f32(a, op, v);
                0
            }
        }
    }
}

impl<T: Word> GmemMut<'_, T> {
    /// The checked element pointer of `i`.
    #[inline(always)]
    fn atomic_at(&self, i: usize) -> backend::GlobalPtr<'_> {
        if i >= self.len() {
            fault("global atomic index out of bounds");
        }
        self.ptr()
    }

    /// `atomicAdd`: adds `v` to element `i`; the old value. Faults if `i >= len`.
    #[inline(always)]
    pub fn atomic_add(&self, i: usize, v: T) -> T
    where
        T: AtomicAdd,
    {
        // SAFETY: `atomic_at` checked `i`.
        T::from_bits(unsafe { global(self.atomic_at(i), i, T::KIND, AtomicOp::Add, v.to_bits(), true) })
    }

    /// [`atomic_add`](Self::atomic_add) without the old value (`red.add`: the cheaper instruction).
    #[inline(always)]
    pub fn red_add(&self, i: usize, v: T)
    where
        T: AtomicAdd,
    {
        // SAFETY: `atomic_at` checked `i`.
        unsafe { global(self.atomic_at(i), i, T::KIND, AtomicOp::Add, v.to_bits(), false) };
    }

    /// `atomicMax`: element `i` becomes the larger of it and `v`; the old value.
    #[inline(always)]
    pub fn atomic_max(&self, i: usize, v: T) -> T
    where
        T: AtomicMinMax,
    {
        // SAFETY: `atomic_at` checked `i`.
        T::from_bits(unsafe { global(self.atomic_at(i), i, T::KIND, AtomicOp::Max, v.to_bits(), true) })
    }

    /// `atomicMin`: element `i` becomes the smaller of it and `v`; the old value.
    #[inline(always)]
    pub fn atomic_min(&self, i: usize, v: T) -> T
    where
        T: AtomicMinMax,
    {
        // SAFETY: `atomic_at` checked `i`.
        T::from_bits(unsafe { global(self.atomic_at(i), i, T::KIND, AtomicOp::Min, v.to_bits(), true) })
    }

    /// `atomicExch`: stores `v` at element `i`; the old value.
    #[inline(always)]
    pub fn atomic_exch(&self, i: usize, v: T) -> T {
        // SAFETY: `atomic_at` checked `i`.
        T::from_bits(unsafe { global(self.atomic_at(i), i, Kind::U32, AtomicOp::Exch, v.to_bits(), true) })
    }

    /// `atomicCAS`: stores `new` at element `i` if its bits are `expected`'s; the old value.
    #[inline(always)]
    pub fn atomic_cas(&self, i: usize, expected: T, new: T) -> T {
        let p = self.atomic_at(i);
        // SAFETY: `atomic_at` checked `i`.
        T::from_bits(unsafe { backend::atom_global_cas(p, i, expected.to_bits(), new.to_bits()) })
    }
}

impl<T: Word, const N: usize> SmemArray<T, N> {
    /// `atomicAdd` on element `i`; the old value. Faults if `i >= N`.
    #[inline(always)]
    pub fn atomic_add(&self, i: usize, v: T) -> T
    where
        T: AtomicAdd,
    {
        let a = self.address(i);
        // SAFETY: `address` checked `i`; the element is 4-byte aligned in the block's memory.
        T::from_bits(unsafe { shared(a, T::KIND, AtomicOp::Add, v.to_bits(), true) })
    }

    /// [`atomic_add`](Self::atomic_add) without the old value (`red.add`).
    #[inline(always)]
    pub fn red_add(&self, i: usize, v: T)
    where
        T: AtomicAdd,
    {
        let a = self.address(i);
        // SAFETY: as in `atomic_add`.
        unsafe { shared(a, T::KIND, AtomicOp::Add, v.to_bits(), false) };
    }

    /// `atomicMax` on element `i`; the old value.
    #[inline(always)]
    pub fn atomic_max(&self, i: usize, v: T) -> T
    where
        T: AtomicMinMax,
    {
        let a = self.address(i);
        // SAFETY: as in `atomic_add`.
        T::from_bits(unsafe { shared(a, T::KIND, AtomicOp::Max, v.to_bits(), true) })
    }

    /// `atomicMin` on element `i`; the old value.
    #[inline(always)]
    pub fn atomic_min(&self, i: usize, v: T) -> T
    where
        T: AtomicMinMax,
    {
        let a = self.address(i);
        // SAFETY: as in `atomic_add`.
        T::from_bits(unsafe { shared(a, T::KIND, AtomicOp::Min, v.to_bits(), true) })
    }

    /// `atomicExch` on element `i`; the old value.
    #[inline(always)]
    pub fn atomic_exch(&self, i: usize, v: T) -> T {
        let a = self.address(i);
        // SAFETY: as in `atomic_add`.
        T::from_bits(unsafe { shared(a, Kind::U32, AtomicOp::Exch, v.to_bits(), true) })
    }

    /// `atomicCAS` on element `i`; the old value.
    #[inline(always)]
    pub fn atomic_cas(&self, i: usize, expected: T, new: T) -> T {
        let a = self.address(i);
        // SAFETY: as in `atomic_add`.
        T::from_bits(unsafe { backend::atom_shared_cas(a, expected.to_bits(), new.to_bits()) })
    }
}
