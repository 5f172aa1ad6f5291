//! Global memory: a kernel's view of a device allocation, read-only ([`Gmem`]) or writable
//! ([`GmemMut`]), indexed by element with a bounds check, scalar or 128 bits at a time.
//!
//! On the GPU a view is an address and a length that the kernel entry point received from the
//! host ([`Gmem::from_raw`] states what the host promises); in the emulator it is a slice of
//! `AtomicU32` words owned by the test. Tensors ([`GlobalTensor`](crate::GlobalTensor)) put a
//! layout on a view and prove their accesses in bounds instead of checking each one.

use crate::Word;
use crate::thread::fault;
use core::marker::PhantomData;
#[cfg(not(target_arch = "nvptx64"))]
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

macro_rules! view {
    ($(#[$doc:meta])* $name:ident, $load:ident, $load4:ident, $contract:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            #[cfg(target_arch = "nvptx64")]
            addr: u64,
            #[cfg(not(target_arch = "nvptx64"))]
            cells: &'a [AtomicU32],
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
            /// A view of `len` elements at the generic address `addr` (a kernel parameter).
            ///
            /// # Safety
            /// For the whole kernel, `addr` is a 16-byte aligned address of `len` elements of
            /// device global memory that stay allocated, and
            #[doc = $contract]
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            pub unsafe fn from_raw(addr: u64, len: usize) -> Self {
                $name { addr: crate::arch::to_global(addr), len, elem: PhantomData }
            }

            /// A view of host words (the emulator's global memory).
            #[cfg(not(target_arch = "nvptx64"))]
            pub fn from_cells(cells: &'a [AtomicU32]) -> Self {
                $name { cells, len: cells.len(), elem: PhantomData }
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
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: `from_raw`'s contract covers `len` elements and `i < len`; elements are 4
                // bytes and the base 16-byte aligned.
                return T::from_bits(unsafe { crate::arch::$load(self.addr + 4 * i as u64) });
                #[cfg(not(target_arch = "nvptx64"))]
                return T::from_bits(self.cells[i].load(Relaxed));
            }

            /// Elements `i..i + 4`, unchecked.
            ///
            /// # Safety
            /// `i % 4 == 0` and `i + 4 <= len`.
            #[inline(always)]
            pub(crate) unsafe fn load4_unchecked(&self, i: usize) -> [T; 4] {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: the base is 16-byte aligned and `i % 4 == 0`, so the address is; the 16
                // bytes are inside the allocation since `i + 4 <= len`.
                let w = unsafe { crate::arch::$load4(self.addr + 4 * i as u64) };
                #[cfg(not(target_arch = "nvptx64"))]
                let w = core::array::from_fn(|k| self.cells[i + k].load(Relaxed));
                w.map(T::from_bits)
            }

            /// The global address of element `i` (for `cp.async`), unchecked.
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            pub(crate) fn address(&self, i: usize) -> u64 {
                self.addr.wrapping_add(4 * i as u64)
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
    Gmem, ld_global_nc, ld_global_nc4, "no thread writes them during the kernel (loads go through the read-only path)."
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
    GmemMut, ld_global, ld_global4, "no other view of the kernel overlaps them."
}

impl<T: Word> GmemMut<'_, T> {
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
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: as in `load_unchecked`; the memory is writable and no other view overlaps it.
        unsafe {
            crate::arch::st_global(self.addr + 4 * i as u64, v.to_bits())
        };
        #[cfg(not(target_arch = "nvptx64"))]
        self.cells[i].store(v.to_bits(), Relaxed);
    }

    /// Store elements `i..i + 4`, unchecked.
    ///
    /// # Safety
    /// `i % 4 == 0` and `i + 4 <= len`.
    #[inline(always)]
    pub(crate) unsafe fn store4_unchecked(&self, i: usize, v: [T; 4]) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: as in `load4_unchecked`; the memory is writable and no other view overlaps it.
        unsafe {
            crate::arch::st_global4(self.addr + 4 * i as u64, v.map(T::to_bits))
        };
        #[cfg(not(target_arch = "nvptx64"))]
        for (k, x) in v.iter().enumerate() {
            self.cells[i + k].store(x.to_bits(), Relaxed);
        }
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
    #[doc(hidden)]
    #[cfg(target_arch = "nvptx64")]
    fn address_of(&self, i: usize) -> u64;
    /// The view of elements `n..len` (a tile's elements from its origin on), its address held
    /// opaque to the optimizer (see `arch::add_address`).
    ///
    /// # Safety
    /// `n <= len`.
    #[doc(hidden)]
    unsafe fn skip(&self, n: usize) -> Self;
    /// [`Memory::skip`] with the address left to the optimizer: for a view whose offset changes
    /// in a loop (the next k tile), where folding it into the accesses costs nothing.
    ///
    /// # Safety
    /// `n <= len`.
    #[doc(hidden)]
    unsafe fn advance(&self, n: usize) -> Self;
    #[doc(hidden)]
    #[cfg(not(target_arch = "nvptx64"))]
    fn cells(&self) -> &[AtomicU32];
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
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            fn address_of(&self, i: usize) -> u64 {
                self.address(i)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            fn cells(&self) -> &[AtomicU32] {
                self.cells
            }
            #[inline(always)]
            unsafe fn advance(&self, n: usize) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return $name { addr: self.addr + 4 * n as u64, len: self.len - n, elem: PhantomData };
                #[cfg(not(target_arch = "nvptx64"))]
                return $name { cells: &self.cells[n..], len: self.len - n, elem: PhantomData };
            }
            #[inline(always)]
            unsafe fn skip(&self, n: usize) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return $name { addr: crate::arch::add_address(self.addr, 4 * n as u64), len: self.len - n, elem: PhantomData };
                #[cfg(not(target_arch = "nvptx64"))]
                return $name { cells: &self.cells[n..], len: self.len - n, elem: PhantomData };
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
