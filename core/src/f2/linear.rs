//! Linear layouts over F2 (Triton's `LinearLayout`, arXiv 2505.23819): a layout as a matrix over
//! GF(2) from input bits to output bits. Input bit `i` maps to the bit vector `basis(i)`; an input
//! `x` maps to the XOR of the bases of its set bits.
//!
//! A CuTe layout of power-of-two extents and strides whose strides never carry into each other, a
//! swizzle `Sw<B,M,S>`, their composition, and a thread-value layout are all linear; conversions
//! are exact (checked on every index) and fail naming the first index where the function is not
//! XOR-linear. Back to CuTe form works when every input bit reaches at most one output bit.
//!
//! Everything is a `const fn` on a `Copy` value with no heap, so a static query is a constant.
//!
//! ```
//! use const_layout::linear::LinearLayout;
//! use const_layout::swizzle::Swizzle;
//! let tile: const_layout::dyn_layout::DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
//! let l = LinearLayout::from_layout(&tile).unwrap();
//! assert_eq!((l.in_bits(), l.out_bits()), (9, 9));
//! assert_eq!(l.apply(3 + 8 * 5), 3 * 64 + 5); // (row 3, column 5)
//! let sw = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9);
//! let smem = sw.compose(&l).unwrap();
//! assert_eq!(smem.apply(3 + 8 * 5) as isize, Swizzle::new(3, 3, 3).unwrap().apply(3 * 64 + 5));
//! assert!(smem.is_injective() && smem.is_surjective());
//! assert_eq!(smem.invert().unwrap().compose(&smem).unwrap(), LinearLayout::identity(9));
//! ```

use crate::dyn_layout::DynLayout;
use crate::error::LayoutError;
use crate::swizzle::Swizzle;

mod named;
pub use named::{Dim, MAX_DIMS, NamedLinearLayout};

/// The most input or output bits a linear layout has.
pub const MAX_BITS: usize = 32;

/// A linear map over F2 from `in_bits` input bits to `out_bits` output bits (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LinearLayout {
    basis: [u32; MAX_BITS],
    in_bits: u8,
    out_bits: u8,
}

const fn err(op: &'static str, what: &'static str, value: isize) -> LayoutError {
    LayoutError::NotCanonical { op, what, value }
}

/// Bits needed to hold `x` (0 for 0).
const fn width(x: u64) -> u32 {
    64 - x.leading_zeros()
}

const fn mask(bits: u32) -> u32 {
    if bits >= 32 { u32::MAX } else { (1u32 << bits) - 1 }
}

impl LinearLayout {
    /// The map with the given bases (input bit `i` to `basis[i]`), `in_bits` inputs and `out_bits`
    /// outputs; an error if a count passes [`MAX_BITS`] or a basis has a bit at or past
    /// `out_bits`.
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// let l = LinearLayout::new(&[0b01, 0b11], 2).unwrap();
    /// assert_eq!(l.apply(0b11), 0b10);
    /// assert!(LinearLayout::new(&[0b100], 2).is_err());
    /// ```
    pub const fn new(basis: &[u32], out_bits: u32) -> Result<LinearLayout, LayoutError> {
        if basis.len() > MAX_BITS || out_bits as usize > MAX_BITS {
            return Err(err(
                "LinearLayout::new",
                "the input or output bits (at most 32)",
                basis.len() as isize,
            ));
        }
        let mut l =
            LinearLayout { basis: [0; MAX_BITS], in_bits: basis.len() as u8, out_bits: out_bits as u8 };
        let mut i = 0;
        while i < basis.len() {
            if basis[i] & !mask(out_bits) != 0 {
                return Err(err(
                    "LinearLayout::new",
                    "the first input bit whose basis passes the output bits",
                    i as isize,
                ));
            }
            l.basis[i] = basis[i];
            i += 1;
        }
        Ok(l)
    }

    /// The identity on `bits` bits.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::identity(5).apply(19), 19);
    /// ```
    pub const fn identity(bits: u32) -> LinearLayout {
        let mut l = LinearLayout { basis: [0; MAX_BITS], in_bits: bits as u8, out_bits: bits as u8 };
        let mut i = 0;
        while i < bits as usize && i < MAX_BITS {
            l.basis[i] = 1 << i;
            i += 1;
        }
        l
    }

    /// The number of input bits.
    pub const fn in_bits(&self) -> u32 {
        self.in_bits as u32
    }

    /// The number of output bits.
    pub const fn out_bits(&self) -> u32 {
        self.out_bits as u32
    }

    /// The image of input bit `i` (0 past the inputs).
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let l = LinearLayout::new(&[0b10, 0b01], 2).unwrap();
    /// assert_eq!((l.basis(0), l.basis(1), l.basis(7)), (2, 1, 0));
    /// ```
    pub const fn basis(&self, i: u32) -> u32 {
        if i < self.in_bits as u32 { self.basis[i as usize] } else { 0 }
    }

    /// The image of `x` (its bits past the inputs ignored): the XOR of its set bits' bases.
    pub const fn apply(&self, x: u32) -> u32 {
        let mut y = 0;
        let mut i = 0;
        while i < self.in_bits as usize {
            if x >> i & 1 == 1 {
                y ^= self.basis[i];
            }
            i += 1;
        }
        y
    }

    /// The linear map of a layout of power-of-two size: input bit `i` maps to `offset(2^i)`.
    /// Exact: a layout of power-of-two size has power-of-two extents, so `offset(x)` is the
    /// integer sum of its bits' offsets, which is their XOR for every `x` exactly when no two
    /// bits' offsets share a bit; otherwise the error names the first index where the sum carries
    /// (the smallest `2^i + 2^j` of two such bits). Negative offsets are an error. The cost is
    /// a few offsets per bit, not one per index.
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// let l: const_layout::dyn_layout::DynLayout = "((_4,_2),_8):((_2,_1),_8)".parse().unwrap();
    /// assert_eq!(LinearLayout::from_layout(&l).unwrap().to_layout().unwrap().to_string(), "(_4,_2,_8):(_2,_1,_8)");
    /// let carries: const_layout::dyn_layout::DynLayout = "(_2,_2):(_1,_1)".parse().unwrap();
    /// let e = LinearLayout::from_layout(&carries).unwrap_err().to_string();
    /// assert!(e.contains("the first index whose offset is not the XOR of its bits' offsets is 3"), "{e}");
    /// ```
    pub const fn from_layout(layout: &DynLayout) -> Result<LinearLayout, LayoutError> {
        let op = "linear layout of a layout";
        if layout.has_basis() {
            return Err(err(op, "whether the strides are integers (1)", 0));
        }
        let size = layout.size().value;
        if size < 1 || size & (size - 1) != 0 {
            return Err(err(op, "the size (a power of two)", size));
        }
        let n = size.trailing_zeros();
        if n as usize > MAX_BITS {
            return Err(err(op, "the input bits (at most 32)", n as isize));
        }
        let mut l = LinearLayout { basis: [0; MAX_BITS], in_bits: n as u8, out_bits: 0 };
        let mut all = 0u64;
        let mut i = 0;
        while i < n {
            let o = layout.offset(1 << i);
            // In i64: on a 32-bit target (wasm32) `u32::MAX as isize` is -1.
            if o < 0 || o as i64 > u32::MAX as i64 {
                return Err(err(op, "an offset (from 0 to 2^32 - 1)", o));
            }
            l.basis[i as usize] = o as u32;
            all |= o as u64;
            i += 1;
        }
        l.out_bits = width(all) as u8;
        // The first carry: the smallest 2^i + 2^j whose bits' offsets overlap.
        let mut first = 0isize;
        let mut j = 1;
        while j < n as usize {
            let mut i = 0;
            while i < j {
                if l.basis[i] & l.basis[j] != 0 {
                    let x = (1isize << i) + (1isize << j);
                    if first == 0 || x < first {
                        first = x;
                    }
                }
                i += 1;
            }
            j += 1;
        }
        if first != 0 {
            return Err(err(op, "the first index whose offset is not the XOR of its bits' offsets", first));
        }
        Ok(l)
    }

    /// The swizzle `Sw<B,M,S>` on `bits` bits (at least those it reads and writes): bits `M..M+B`
    /// take the XOR of bits `M+S..M+S+B` (negative `S`: the other way).
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// use const_layout::swizzle::Swizzle;
    /// let s = Swizzle::new(2, 0, 3).unwrap();
    /// let l = LinearLayout::from_swizzle(s, 6);
    /// assert!((0..64).all(|x| l.apply(x) as isize == s.apply(x as isize)));
    /// ```
    pub const fn from_swizzle(swizzle: Swizzle, bits: u32) -> LinearLayout {
        let reach = width(swizzle.yyy_mask() as u64 | swizzle.zzz_mask() as u64);
        let bits = if reach > bits { reach } else { bits };
        let bits = if bits as usize > MAX_BITS { MAX_BITS as u32 } else { bits };
        let mut l = LinearLayout::identity(bits);
        let mut i = 0;
        while i < bits {
            l.basis[i as usize] = swizzle.apply(1 << i) as u32;
            i += 1;
        }
        l
    }

    /// `self` after `inner` (`self(inner(x))`): `inner`'s outputs are `self`'s inputs; an error if
    /// `inner` has more output bits than `self` has inputs.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let a = LinearLayout::new(&[0b10, 0b01], 2).unwrap();
    /// assert_eq!(a.compose(&a).unwrap(), LinearLayout::identity(2));
    /// ```
    pub const fn compose(&self, inner: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        if inner.out_bits > self.in_bits {
            return Err(err(
                "compose",
                "the inner map's output bits, past the outer's inputs",
                inner.out_bits as isize,
            ));
        }
        let mut l = LinearLayout { basis: [0; MAX_BITS], in_bits: inner.in_bits, out_bits: self.out_bits };
        let mut i = 0;
        while i < inner.in_bits as usize {
            l.basis[i] = self.apply(inner.basis[i]);
            i += 1;
        }
        Ok(l)
    }

    /// The rank over F2: the dimension of the image.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::new(&[1, 1, 2], 2).unwrap().rank(), 2);
    /// ```
    pub const fn rank(&self) -> u32 {
        let (_, r) = self.echelon();
        r
    }

    /// A basis of the image in echelon form (distinct leading bits), and its size.
    const fn echelon(&self) -> ([u32; MAX_BITS], u32) {
        let mut rows = [0u32; MAX_BITS];
        let mut r = 0u32;
        let mut i = 0;
        while i < self.in_bits as usize {
            let mut v = self.basis[i];
            let mut j = 0;
            while j < r as usize {
                let lead = 31 - rows[j].leading_zeros();
                if v >> lead & 1 == 1 {
                    v ^= rows[j];
                }
                j += 1;
            }
            if v != 0 {
                // Keep the rows sorted by leading bit, highest first, so that each reduction
                // above clears bits from the top down.
                let mut k = r as usize;
                while k > 0 && rows[k - 1].leading_zeros() > v.leading_zeros() {
                    rows[k] = rows[k - 1];
                    k -= 1;
                }
                rows[k] = v;
                r += 1;
            }
            i += 1;
        }
        (rows, r)
    }

    /// Whether distinct inputs have distinct images.
    pub const fn is_injective(&self) -> bool {
        self.rank() == self.in_bits as u32
    }

    /// Whether every output is an image.
    pub const fn is_surjective(&self) -> bool {
        self.rank() == self.out_bits as u32
    }

    /// A right inverse on the image (Triton's `pseudoinvert`): `P` from the output bits to the
    /// input bits with `self(P(y)) = y` for every `y` in the image, from the image's reduced row
    /// echelon form (the output bits that lead no row map to 0). For a bijection it is the
    /// inverse.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let bcast = LinearLayout::new(&[0, 1, 2], 2).unwrap(); // input bit 0 replicates
    /// let p = bcast.pseudo_invert();
    /// assert_eq!(bcast.compose(&p).unwrap(), LinearLayout::identity(2));
    /// assert_eq!(p.apply(0b11), 0b110);
    /// ```
    pub const fn pseudo_invert(&self) -> LinearLayout {
        // Gauss-Jordan on pairs (image, input): reduce the images, keeping which inputs make them.
        let mut img = [0u32; MAX_BITS];
        let mut src = [0u32; MAX_BITS];
        let mut r = 0usize;
        let mut i = 0;
        while i < self.in_bits as usize {
            let (mut v, mut s) = (self.basis[i], 1u32 << i);
            let mut j = 0;
            while j < r {
                let lead = 31 - img[j].leading_zeros();
                if v >> lead & 1 == 1 {
                    v ^= img[j];
                    s ^= src[j];
                }
                j += 1;
            }
            if v != 0 {
                let lead = 31 - v.leading_zeros();
                // Clear the new leading bit from the rows before (reduced form).
                let mut j = 0;
                while j < r {
                    if img[j] >> lead & 1 == 1 {
                        img[j] ^= v;
                        src[j] ^= s;
                    }
                    j += 1;
                }
                img[r] = v;
                src[r] = s;
                r += 1;
            }
            i += 1;
        }
        // Output bit b: the reduced row whose leading bit is b maps there; its other bits are
        // non-leading, and each output vector is the sum of the rows of its leading bits.
        // The image's reduced rows and the output bits that lead no row form a basis of the
        // outputs; P maps row j to its source and the other bits to 0, so the output bit that
        // leads row j (the row minus non-leading bits) maps to the row's source.
        let mut p = LinearLayout { basis: [0; MAX_BITS], in_bits: self.out_bits, out_bits: self.in_bits };
        let mut j = 0;
        while j < r {
            p.basis[(31 - img[j].leading_zeros()) as usize] = src[j];
            j += 1;
        }
        p
    }

    /// The inverse of a bijection (square and full rank), else an error naming the rank.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let a = LinearLayout::new(&[0b11, 0b01], 2).unwrap();
    /// assert_eq!(a.invert().unwrap().compose(&a).unwrap(), LinearLayout::identity(2));
    /// assert!(LinearLayout::new(&[1, 1], 2).unwrap().invert().is_err());
    /// ```
    pub const fn invert(&self) -> Result<LinearLayout, LayoutError> {
        if self.in_bits != self.out_bits || !self.is_injective() {
            return Err(err("invert", "the rank, short of the bits of a bijection", self.rank() as isize));
        }
        Ok(self.pseudo_invert())
    }

    /// Triton's `invertAndCompose`: the map `C` from `self`'s inputs to `other`'s inputs with
    /// `other(C(x)) = self(x)` (a register layout to a shared-memory one: which offset holds each
    /// register), when `self`'s image lies in `other`'s; else an error naming the first input bit
    /// whose image does not.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let regs = LinearLayout::new(&[0b10, 0b01], 2).unwrap(); // a transposed 2x2
    /// let smem = LinearLayout::identity(2);
    /// let c = regs.invert_and_compose(&smem).unwrap();
    /// assert_eq!(smem.compose(&c).unwrap(), regs);
    /// ```
    pub const fn invert_and_compose(&self, other: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let p = other.pseudo_invert();
        let c = match p.compose_padded(self) {
            Ok(c) => c,
            Err(e) => return Err(e),
        };
        let mut i = 0;
        while i < self.in_bits as usize {
            if other.apply(c.basis[i]) != self.basis[i] {
                return Err(err(
                    "invert_and_compose",
                    "the first input bit whose image the other map does not reach",
                    i as isize,
                ));
            }
            i += 1;
        }
        Ok(c)
    }

    /// `compose`, taking `inner`'s outputs past `self`'s inputs as zeros.
    const fn compose_padded(&self, inner: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let mut l = LinearLayout { basis: [0; MAX_BITS], in_bits: inner.in_bits, out_bits: self.out_bits };
        let mut i = 0;
        while i < inner.in_bits as usize {
            if inner.basis[i] & !mask(self.in_bits as u32) != 0 {
                return Err(err(
                    "invert_and_compose",
                    "the first input bit whose image passes the other map's outputs",
                    i as isize,
                ));
            }
            l.basis[i] = self.apply(inner.basis[i]);
            i += 1;
        }
        Ok(l)
    }

    /// The direct sum (block diagonal): `self` on the low inputs and outputs, `other` above.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let s = LinearLayout::identity(2).direct_sum(&LinearLayout::new(&[0], 1).unwrap()).unwrap();
    /// assert_eq!((s.in_bits(), s.out_bits(), s.apply(0b111)), (3, 3, 0b011));
    /// ```
    pub const fn direct_sum(&self, other: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let (ni, no) = (
            self.in_bits as usize + other.in_bits as usize,
            self.out_bits as usize + other.out_bits as usize,
        );
        if ni > MAX_BITS || no > MAX_BITS {
            return Err(err(
                "direct_sum",
                "the bits of the sum (at most 32)",
                if ni > no { ni } else { no } as isize,
            ));
        }
        let mut l = *self;
        l.in_bits = ni as u8;
        l.out_bits = no as u8;
        let mut i = 0;
        while i < other.in_bits as usize {
            l.basis[self.in_bits as usize + i] = other.basis[i] << self.out_bits;
            i += 1;
        }
        Ok(l)
    }

    /// Triton's `divideLeft`: `C` with `self = divisor ⊕ C` ([`Self::direct_sum`]), if `self`'s
    /// low inputs are `divisor` on the low outputs and its other inputs stay above them; else an
    /// error naming the first input bit that breaks it.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// let a = LinearLayout::identity(2).direct_sum(&LinearLayout::new(&[0b10, 0b01], 2).unwrap()).unwrap();
    /// let c = a.divide_left(&LinearLayout::identity(2)).unwrap();
    /// assert_eq!(c, LinearLayout::new(&[0b10, 0b01], 2).unwrap());
    /// ```
    pub const fn divide_left(&self, divisor: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let (di, d_o) = (divisor.in_bits as usize, divisor.out_bits as u32);
        if di > self.in_bits as usize || d_o > self.out_bits as u32 {
            return Err(err("divide_left", "the divisor's bits, past the dividend's", di as isize));
        }
        let mut i = 0;
        while i < self.in_bits as usize {
            let ok = if i < di { self.basis[i] == divisor.basis[i] } else { self.basis[i] & mask(d_o) == 0 };
            if !ok {
                return Err(err(
                    "divide_left",
                    "the first input bit that the divisor does not account for",
                    i as isize,
                ));
            }
            i += 1;
        }
        let mut c = LinearLayout {
            basis: [0; MAX_BITS],
            in_bits: (self.in_bits as usize - di) as u8,
            out_bits: (self.out_bits as u32 - d_o) as u8,
        };
        let mut i = di;
        while i < self.in_bits as usize {
            c.basis[i - di] = self.basis[i] >> d_o;
            i += 1;
        }
        Ok(c)
    }

    /// The free input bits (Triton's free-variable masks): those whose image lies in the span of
    /// the lower bits' images, so flipping them (with a fix of lower bits) reaches no new output:
    /// the replicated ones, such as threads that hold the same element.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// // 4 inputs, bit 1 a copy of bit 0, bit 3 of nothing: 0b1010 is free.
    /// assert_eq!(LinearLayout::new(&[1, 1, 2, 0], 2).unwrap().free_mask(), 0b1010);
    /// ```
    pub const fn free_mask(&self) -> u32 {
        let mut free = 0;
        let mut i = 0;
        while i < self.in_bits as usize {
            let lower = LinearLayout { basis: self.basis, in_bits: i as u8, out_bits: self.out_bits };
            let with = LinearLayout { basis: self.basis, in_bits: (i + 1) as u8, out_bits: self.out_bits };
            if with.rank() == lower.rank() {
                free |= 1 << i;
            }
            i += 1;
        }
        free
    }

    /// The number of consecutive inputs from 0 that are consecutive outputs (Triton's
    /// `getNumConsecutiveInOut`): `2^k` for the largest `k` with input bit `i` mapping to output
    /// bit `i` for every `i < k`. The vector width of an access through the map.
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::new(&[1, 2, 8, 4], 4).unwrap().contiguous(), 4);
    /// ```
    pub const fn contiguous(&self) -> u32 {
        let mut k = 0;
        while k < self.in_bits as usize && self.basis[k] == 1 << k {
            k += 1;
        }
        1 << k
    }

    /// The linear map of a swizzled layout `Sw<B,M,S> o _0 o L` ([`Self::from_swizzle`] composed
    /// with [`Self::from_layout`]), or of a layout after a layout `O o _0 o L` (`O`'s map after
    /// `L`'s, `L`'s values inside `O`'s domain); an error if the offset is not 0, or a layout is
    /// not linear, or `L` reaches past `O`'s domain (where `O`'s last mode goes on, which is not
    /// linear).
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let l = LinearLayout::from_composed(&c).unwrap();
    /// assert!((0..512).all(|i| l.apply(i) as isize == c.offset(i as isize)));
    /// ```
    pub fn from_composed(c: &crate::swizzle::ComposedLayout) -> Result<LinearLayout, LayoutError> {
        let op = "linear layout of a composed layout";
        if c.offset_value().value != 0 {
            return Err(err(
                op,
                "the offset between the outer function and the layout (0 needed)",
                c.offset_value().value,
            ));
        }
        let inner = LinearLayout::from_layout(c.inner())?;
        let sw = match *c.outer() {
            crate::swizzle::Outer::Swizzle(sw) => sw,
            crate::swizzle::Outer::Layout(outer) => {
                let outer = LinearLayout::from_layout(&outer)?;
                if inner.out_bits > outer.in_bits {
                    return Err(err(
                        op,
                        "the inner layout's output bits, past the outer layout's input bits (its domain),",
                        inner.out_bits as isize,
                    ));
                }
                return outer.compose(&inner);
            }
        };
        let bits = inner.out_bits().max(sw.bits() + sw.base() + sw.shift().unsigned_abs());
        if bits as usize > MAX_BITS {
            return Err(err(op, "the output bits (at most 32)", bits as isize));
        }
        let widened = LinearLayout { out_bits: bits as u8, ..inner };
        LinearLayout::from_swizzle(sw, bits).compose(&widened)
    }

    /// The composition `a o b` of two composed layouts (`Sw o _0 o L` or `O o _0 o L` each) as one
    /// linear map:
    /// [`Self::from_composed`] of each, composed, so input bit `i` is index `2^i` of `b`'s
    /// domain. Exact where it answers: both conversions are, and `b`'s values must lie in
    /// `a`'s domain (`b`'s output bits at most `a`'s input bits; CuTe reads `a` past its end
    /// there, which is not linear). For the compositions no composed layout holds
    /// ([`ComposedLayout::composed_with`](crate::swizzle::ComposedLayout::composed_with): a
    /// swizzle after a swizzle). An error naming the operand that is not linear, or the bits.
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let a = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let b = ComposedLayout::new(Swizzle::new(2, 0, 3).unwrap(), "(_64,_8):(_8,_1)".parse().unwrap());
    /// assert!(a.composed_with(&b).is_err()); // Sw<3,3,3> after Sw<2,0,-6>
    /// let l = LinearLayout::from_composition(&a, &b).unwrap();
    /// assert!((0..512).all(|i| l.apply(i as u32) as isize == a.offset(b.offset(i))));
    /// ```
    pub fn from_composition(
        a: &crate::swizzle::ComposedLayout,
        b: &crate::swizzle::ComposedLayout,
    ) -> Result<LinearLayout, LayoutError> {
        let (la, lb) = (LinearLayout::from_composed(a)?, LinearLayout::from_composed(b)?);
        // The bits `b`'s values reach (its swizzle may name higher ones that stay 0).
        let mut reach = 0u64;
        let mut i = 0;
        while i < lb.in_bits as usize {
            reach |= lb.basis[i] as u64;
            i += 1;
        }
        let bits = width(reach);
        if bits > la.in_bits as u32 {
            return Err(err(
                "linear layout of a composition",
                "the bits of the right operand's values, past the left operand's input bits (its domain),",
                bits as isize,
            ));
        }
        la.compose(&LinearLayout { out_bits: bits as u8, ..lb })
    }

    /// Back to CuTe form when every input bit reaches at most one output bit: `(2,2,..):(b_0,b_1,..)`
    /// coalesced; else an error naming the first input bit whose image has two or more bits (a
    /// swizzle, which a plain layout cannot express).
    pub fn to_layout(&self) -> Result<DynLayout, LayoutError> {
        use crate::dyn_layout::{DynInt, DynIntTuple};
        let mut i = 0;
        while i < self.in_bits as usize {
            if self.basis[i].count_ones() > 1 {
                return Err(err(
                    "linear layout to a layout",
                    "the first input bit whose image has more than one bit",
                    i as isize,
                ));
            }
            i += 1;
        }
        let s = |v: isize| DynIntTuple::int(DynInt::new_static(v));
        if self.in_bits == 0 {
            return DynLayout::new(s(1), s(0));
        }
        let shape = [s(2); MAX_BITS];
        let mut stride = [s(0); MAX_BITS];
        let mut i = 0;
        while i < self.in_bits as usize {
            stride[i] = s(self.basis[i] as isize);
            i += 1;
        }
        let n = self.in_bits as usize;
        let l = DynLayout::new(DynIntTuple::tuple(&shape[..n])?, DynIntTuple::tuple(&stride[..n])?)?;
        crate::algebra::coalesce(&l)
    }

    /// Back to CuTe's swizzled form `Sw<B,M,S> o L` (B, M, S from 0 to 5, the simplest first):
    /// a swizzle is its own inverse, so the first `Sw` for which `Sw o self` has a plain form
    /// ([`Self::to_layout`]) gives `L`; an error if none does.
    ///
    /// ```
    /// use const_layout::linear::LinearLayout;
    /// use const_layout::swizzle::Swizzle;
    /// let tile: const_layout::dyn_layout::DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
    /// let l = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9).compose(&LinearLayout::from_layout(&tile).unwrap()).unwrap();
    /// assert_eq!(l.to_composed().unwrap().to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
    /// let tangled = LinearLayout::new(&[0b011, 0b110, 0b101], 3).unwrap();
    /// let e = tangled.to_composed().unwrap_err().to_string();
    /// assert!(e.contains("none of them leaving a plain layout"), "{e}");
    /// ```
    pub fn to_composed(&self) -> Result<crate::swizzle::ComposedLayout, LayoutError> {
        let mut tried = 0;
        for b in 0..=5u32 {
            for m in 0..=5u32 {
                for sh in 0..=5i32 {
                    if b == 0 && (m, sh) != (0, 0) {
                        continue;
                    }
                    let Ok(sw) = Swizzle::new(b, m, sh) else { continue };
                    if b > 0 && m + sh as u32 + b > self.out_bits as u32 {
                        continue;
                    }
                    tried += 1;
                    let inner = LinearLayout::from_swizzle(sw, self.out_bits as u32).compose_padded(self)?;
                    if let Ok(l) = inner.to_layout() {
                        return Ok(crate::swizzle::ComposedLayout::new(sw, l));
                    }
                }
            }
        }
        Err(err(
            "linear layout to a swizzled layout",
            "the number of swizzles Sw<B,M,S> (B, M, S <= 5) tried, none of them leaving a plain layout,",
            tried,
        ))
    }
}

impl core::fmt::Display for LinearLayout {
    /// The evaluator's text, which reads back: `linear((b0,b1,...),out_bits)`, input bit `i` to
    /// `b_i`, eight bases a tuple (`linear((b0,..,b7),(b8,..),out_bits)`: one int tuple holds at
    /// most 126 bytes of encoding).
    ///
    /// ```
    /// # use const_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::new(&[1, 2, 4], 3).unwrap().to_string(), "linear((1,2,4),3)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("linear((")?;
        for i in 0..self.in_bits() {
            if i > 0 {
                f.write_str(if i % 8 == 0 { "),(" } else { "," })?;
            }
            write!(f, "{}", self.basis(i))?;
        }
        write!(f, "),{})", self.out_bits())
    }
}

/// A subspace of F2^32 in echelon form, for the searches over subspaces (synthesis): `lead[b]` is
/// the basis vector whose highest bit is `b`, or 0.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    lead: [u32; 32],
    dim: u32,
}

impl Span {
    /// The zero subspace.
    pub(crate) const EMPTY: Span = Span { lead: [0; 32], dim: 0 };

    /// `x` less its part in the span: 0 exactly when `x` lies in it. Visits only the bits that
    /// are set on the way (the searches call this millions of times in a constant).
    pub(crate) const fn reduce(&self, x: u32) -> u32 {
        let (mut r, mut out) = (x, 0);
        while r != 0 {
            let b = 31 - r.leading_zeros();
            if self.lead[b as usize] != 0 {
                r ^= self.lead[b as usize];
            } else {
                out |= 1 << b;
                r ^= 1 << b;
            }
        }
        out
    }

    /// Whether `x` lies in the span: its first bit without a basis vector says no.
    pub(crate) const fn contains(&self, x: u32) -> bool {
        let mut r = x;
        while r != 0 {
            let b = 31 - r.leading_zeros();
            if self.lead[b as usize] == 0 {
                return false;
            }
            r ^= self.lead[b as usize];
        }
        true
    }

    /// Adds `x`; whether it was independent of the span.
    pub(crate) const fn insert(&mut self, x: u32) -> bool {
        let r = self.reduce(x);
        if r == 0 {
            return false;
        }
        self.lead[(31 - r.leading_zeros()) as usize] = r;
        self.dim += 1;
        true
    }

    /// Adds every vector of `other`.
    pub(crate) const fn join(&mut self, other: &Span) {
        let mut b = 0;
        while b < 32 {
            if other.lead[b] != 0 {
                self.insert(other.lead[b]);
            }
            b += 1;
        }
    }

    /// The basis vector led by bit `b` (0 if none).
    pub(crate) const fn lead(&self, b: u32) -> u32 {
        self.lead[b as usize]
    }

    /// The dimension.
    pub(crate) const fn dim(&self) -> u32 {
        self.dim
    }
}
