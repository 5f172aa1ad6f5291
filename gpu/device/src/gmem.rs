//! Global memory: a kernel's view of a device allocation, read-only ([`Gmem`]) or writable
//! ([`GmemMut`]), indexed by element with a bounds check, scalar or 128 bits at a time.
//!
//! A view is the backend's pointer and a length: on the GPU an address that the kernel's entry
//! point received from the host ([`Gmem::from_raw`] states what the host promises), in the
//! emulator the words of a [`DeviceBuffer`](crate::emu::DeviceBuffer) or of a test's slice
//! (`from_cells`). Tensors ([`GlobalTensor`](crate::GlobalTensor)) put a layout on a view and
//! prove their accesses in bounds instead of checking each one; the emulator checks every such
//! proof again.

use crate::Word;
use crate::backend::GlobalPtr;
use crate::thread::fault;
use core::marker::PhantomData;

macro_rules! view {
    ($(#[$doc:meta])* $name:ident, $load:ident, $load4:ident, $contract:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            ptr: GlobalPtr<'a>,
            len: usize,
            elem: PhantomData<&'a [T]>,
        }

        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<'_, T> {}

        impl<'a, T: Word> $name<'a, T> {
            /// A view of `len` elements at the device address `addr` (a kernel parameter). On the
            /// emulator, `addr` must lie in a live [`DeviceBuffer`](crate::emu::DeviceBuffer)
            /// with `len` elements from it (else the launch fails).
            ///
            /// # Safety
            /// For the whole kernel, `addr` is a 16-byte aligned address of `len` elements of
            /// device global memory that stay allocated, and
            #[doc = $contract]
            #[inline(always)]
            pub unsafe fn from_raw(addr: u64, len: usize) -> Self {
                // SAFETY: the caller's contract is `from_address`'s.
                $name { ptr: unsafe { GlobalPtr::from_address(addr, len) }, len, elem: PhantomData }
            }

            /// A view of `len` elements at a backend pointer.
            #[inline(always)]
            // GmemMut's is used by the emulator alone.
            #[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
            pub(crate) fn from_ptr(ptr: GlobalPtr<'a>, len: usize) -> Self {
                $name { ptr, len, elem: PhantomData }
            }

            /// The number of elements.
            #[inline(always)]
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view has no element.
            #[inline(always)]
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// Element `i`; faults if `i >= len`.
            #[inline(always)]
            pub fn load(&self, i: usize) -> T {
                if i >= self.len {
                    fault("global-memory index out of bounds");
                }
                // SAFETY: `i < len`.
                unsafe { self.load_unchecked(i) }
            }

            /// Elements `i..i + 4` in one 128-bit load; faults unless `i` is a multiple of 4 and
            /// `i + 4 <= len`.
            #[inline(always)]
            pub fn load4(&self, i: usize) -> [T; 4] {
                if i % 4 != 0 || i >= self.len || self.len - i < 4 {
                    fault("global-memory vector access out of bounds or misaligned");
                }
                // SAFETY: checked just above.
                unsafe { self.load4_unchecked(i) }
            }

            /// Element `i`, unchecked.
            ///
            /// # Safety
            /// `i < len`.
            #[inline(always)]
            pub(crate) unsafe fn load_unchecked(&self, i: usize) -> T {
                // SAFETY: the view's contract covers `len` elements and `i < len`.
                T::from_bits(unsafe { self.ptr.$load(i) })
            }

            /// Elements `i..i + 4`, unchecked.
            ///
            /// # Safety
            /// `i % 4 == 0` and `i + 4 <= len`.
            #[inline(always)]
            pub(crate) unsafe fn load4_unchecked(&self, i: usize) -> [T; 4] {
                // SAFETY: the base is 16-byte aligned and `i % 4 == 0`, so the access is; the 16
                // bytes are inside the view since `i + 4 <= len`.
                unsafe { self.ptr.$load4(i) }.map(T::from_bits)
            }
        }
    };
}

view! {
    /// A read-only view of device global memory: an input of the kernel that no thread writes.
    /// Loads use the read-only (non-coherent) path, `ld.global.nc` (`LDG.E.CONSTANT`).
    ///
    /// ```
    /// use const_layout_device::Gmem;
    /// use std::sync::atomic::AtomicU32;
    /// let words: Vec<AtomicU32> = (0..8).map(|i| AtomicU32::new(f32::to_bits(i as f32))).collect();
    /// let g = Gmem::<f32>::from_cells(&words);
    /// // Outside a launch the view still reads the words (the emulator needs no context for it).
    /// assert_eq!(g.load4(4), [4.0, 5.0, 6.0, 7.0]);
    /// ```
    Gmem, load_nc, load4_nc, "no thread writes them during the kernel (loads go through the read-only path)."
}

view! {
    /// A writable view of device global memory: an output (or input-output) of the kernel.
    ///
    /// ```
    /// use const_layout_device::GmemMut;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// let words: Vec<AtomicU32> = (0..8).map(|_| AtomicU32::new(0)).collect();
    /// let g = GmemMut::<u32>::from_cells(&words);
    /// g.store4(4, [1, 2, 3, 4]);
    /// assert_eq!(words[6].load(Ordering::Relaxed), 3);
    /// assert_eq!(g.load(7), 4);
    /// ```
    GmemMut, load, load4, "no other view of the kernel overlaps them."
}

impl<'a, T: Word> GmemMut<'a, T> {
    /// The backend pointer (for atomics).
    #[inline(always)]
    pub(crate) fn ptr(&self) -> GlobalPtr<'a> {
        self.ptr
    }

    /// Store `v` at element `i`; faults if `i >= len`.
    #[inline(always)]
    pub fn store(&self, i: usize, v: T) {
        if i >= self.len {
            fault("global-memory index out of bounds");
        }
        // SAFETY: `i < len`.
        unsafe { self.store_unchecked(i, v) }
    }

    /// Store elements `i..i + 4` in one 128-bit store; faults unless `i` is a multiple of 4 and
    /// `i + 4 <= len`.
    #[inline(always)]
    pub fn store4(&self, i: usize, v: [T; 4]) {
        if !i.is_multiple_of(4) || i >= self.len || self.len - i < 4 {
            fault("global-memory vector access out of bounds or misaligned");
        }
        // SAFETY: checked just above.
        unsafe { self.store4_unchecked(i, v) }
    }

    /// Store at element `i`, unchecked.
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    pub(crate) unsafe fn store_unchecked(&self, i: usize, v: T) {
        // SAFETY: as in `load_unchecked`; the memory is writable and no other view overlaps it.
        unsafe { self.ptr.store(i, v.to_bits()) }
    }

    /// Store elements `i..i + 4`, unchecked.
    ///
    /// # Safety
    /// `i % 4 == 0` and `i + 4 <= len`.
    #[inline(always)]
    pub(crate) unsafe fn store4_unchecked(&self, i: usize, v: [T; 4]) {
        // SAFETY: as in `load4_unchecked`; the memory is writable and no other view overlaps it.
        unsafe { self.ptr.store4(i, v.map(T::to_bits)) }
    }

    /// The same memory, read-only.
    #[inline(always)]
    pub fn as_gmem(&self) -> Gmem<'a, T> {
        Gmem::from_ptr(self.ptr, self.len)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// What the device layer's tensors need of a view: unchecked loads (the tensor proves the bound).
/// Implemented by [`Gmem`] and [`GmemMut`]; sealed.
pub trait Memory: Copy + core::fmt::Debug + sealed::Sealed {
    /// The element type.
    type Elem: Word;
    /// The number of elements.
    fn len(&self) -> usize;
    /// Whether the view has no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[doc(hidden)]
    /// # Safety
    /// `i < len`.
    unsafe fn load_at(&self, i: usize) -> Self::Elem;
    #[doc(hidden)]
    /// # Safety
    /// `i % 4 == 0`, `i + 4 <= len`.
    unsafe fn load4_at(&self, i: usize) -> [Self::Elem; 4];
    /// `cp.async` of element `i` (`src_bytes` 4) or of zeros (`src_bytes` 0) to shared address
    /// `dst`.
    ///
    /// # Safety
    /// `dst` is a 4-byte aligned shared address of 4 writable bytes; `i < len` when `src_bytes`
    /// is 4.
    #[doc(hidden)]
    unsafe fn copy_async4_at(&self, i: usize, dst: u32, src_bytes: u32);
    /// `cp.async` of elements `i..i + 4` (`src_bytes` 16) or of zeros (`src_bytes` 0) to shared
    /// address `dst`, through L1 when `cache_always`.
    ///
    /// # Safety
    /// `dst` is a 16-byte aligned shared address of 16 writable bytes; `i % 4 == 0` and
    /// `i + 4 <= len` when `src_bytes` is 16.
    #[doc(hidden)]
    unsafe fn copy_async16_at(&self, i: usize, dst: u32, src_bytes: u32, cache_always: bool);
    /// Whether the view's first element is 16-byte aligned (what a 128-bit access needs).
    #[doc(hidden)]
    fn is_aligned16(&self) -> bool;
    /// The view of elements `n..len`, its address left to the optimizer: for a view whose offset
    /// changes in a loop (the next k tile), where folding it into the accesses costs nothing.
    ///
    /// # Safety
    /// `n <= len`.
    #[doc(hidden)]
    unsafe fn advance(&self, n: usize) -> Self;
    /// The view of elements `n * m..len` (the product in 64 bits), its address one multiply-add
    /// held opaque to the optimizer (`IMAD.WIDE.U32`): a tile's origin, computed once, from which
    /// each access adds its offset; an access at a constant multiple of a runtime stride; the
    /// next matrix of a batch.
    ///
    /// # Safety
    /// `n * m <= len` and `m < 2^30`.
    #[doc(hidden)]
    unsafe fn advance_mul(&self, n: u32, m: u32) -> Self;
    /// Whether `other` is the same view (the same first element and length).
    #[doc(hidden)]
    fn same_view(&self, other: &Self) -> bool;
}

/// A view a tensor may store through: [`GmemMut`].
pub trait MemoryMut: Memory {
    #[doc(hidden)]
    /// # Safety
    /// `i < len`.
    unsafe fn store_at(&self, i: usize, v: Self::Elem);
    #[doc(hidden)]
    /// # Safety
    /// `i % 4 == 0`, `i + 4 <= len`.
    unsafe fn store4_at(&self, i: usize, v: [Self::Elem; 4]);
}

macro_rules! memory {
    ($($name:ident),*) => {$(
        impl<T: Word> sealed::Sealed for $name<'_, T> {}
        impl<T: Word> Memory for $name<'_, T> {
            type Elem = T;
            #[inline(always)]
            fn len(&self) -> usize {
                self.len
            }
            #[inline(always)]
            unsafe fn load_at(&self, i: usize) -> T {
                // SAFETY: the caller's contract is `load_unchecked`'s.
                unsafe { self.load_unchecked(i) }
            }
            #[inline(always)]
            unsafe fn load4_at(&self, i: usize) -> [T; 4] {
                // SAFETY: the caller's contract is `load4_unchecked`'s.
                unsafe { self.load4_unchecked(i) }
            }
            #[inline(always)]
            unsafe fn copy_async4_at(&self, i: usize, dst: u32, src_bytes: u32) {
                // SAFETY: the caller's contract is `copy_async4`'s.
                unsafe { self.ptr.copy_async4(i, dst, src_bytes) }
            }
            #[inline(always)]
            unsafe fn copy_async16_at(&self, i: usize, dst: u32, src_bytes: u32, cache_always: bool) {
                // SAFETY: the caller's contract is `copy_async16`'s.
                unsafe { self.ptr.copy_async16(i, dst, src_bytes, cache_always) }
            }
            #[inline(always)]
            fn is_aligned16(&self) -> bool {
                self.ptr.is_aligned16()
            }
            #[inline(always)]
            unsafe fn advance(&self, n: usize) -> Self {
                // SAFETY: `n <= len`, the caller's contract.
                $name { ptr: unsafe { self.ptr.advance(n) }, len: self.len - n, elem: PhantomData }
            }
            #[inline(always)]
            unsafe fn advance_mul(&self, n: u32, m: u32) -> Self {
                let k = (n as u64 * m as u64) as usize;
                // SAFETY: `n * m <= len` and `m < 2^30`, the caller's contract.
                $name { ptr: unsafe { self.ptr.advance_mul(n, m) }, len: self.len - k, elem: PhantomData }
            }
            #[inline(always)]
            fn same_view(&self, other: &Self) -> bool {
                self.ptr.same(other.ptr) && self.len == other.len
            }
        }
    )*};
}
memory!(Gmem, GmemMut);

impl<T: Word> MemoryMut for GmemMut<'_, T> {
    #[inline(always)]
    unsafe fn store_at(&self, i: usize, v: T) {
        // SAFETY: the caller's contract is `store_unchecked`'s.
        unsafe { self.store_unchecked(i, v) }
    }
    #[inline(always)]
    unsafe fn store4_at(&self, i: usize, v: [T; 4]) {
        // SAFETY: the caller's contract is `store4_unchecked`'s.
        unsafe { self.store4_unchecked(i, v) }
    }
}
