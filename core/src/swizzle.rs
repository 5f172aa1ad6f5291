//! Swizzles and composed layouts: CuTe's `Swizzle<B,M,S>`, `ComposedLayout` (`outer o offset o
//! inner`) and FLIR's `swizzle_xor16`.
//!
//! A swizzle permutes offsets by XOR-ing `B` bits taken `S` places higher into bits `M..M+B`, which
//! spreads a tile's rows over shared-memory banks. It is not a layout (not affine), so it is composed
//! *after* one: `composition(Sw<3,4,3>, L)` maps `c` to `Sw(0 + L(c))`.
//!
//! ```
//! use const_layout::dyn_layout::DynLayout;
//! use const_layout::swizzle::{ComposedLayout, Swizzle};
//! let sw = Swizzle::new(3, 4, 3).unwrap();
//! assert_eq!(sw.apply(640), 720); // bits 7..10 (0b101) are XOR-ed into bits 4..7
//! assert_eq!(sw.apply(0b0101_0000_000), 0b0101_1010_000);
//! let l: DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
//! let c = ComposedLayout::new(sw, l);
//! assert_eq!(c.to_string(), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
//! // Index 10 is coordinate (2,1): offset 129, whose bit 7 flips bit 4.
//! assert_eq!((c.offset(1), c.offset(10)), (64, 129 ^ 16));
//! ```

use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::{Inadmissible, LayoutError};
use core::fmt;

/// CuTe's `Swizzle<BBits, MBase, SShift>`: `offset ^ ((offset & yyy_mask) >> SShift)`, where
/// `yyy_mask` is `BBits` ones starting at bit `MBase + max(0, SShift)` (a negative shift moves bits
/// the other way).
///
/// ```
/// use const_layout::swizzle::Swizzle;
/// let sw = Swizzle::new(2, 0, 3).unwrap();
/// assert_eq!((0..8).map(|i| sw.apply(i * 8)).collect::<Vec<_>>(), [0, 9, 18, 27, 32, 41, 50, 59]);
/// assert!(Swizzle::new(3, 4, 2).is_err()); // |S| must be at least B
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

impl Swizzle {
    /// `Swizzle<bits, base, shift>`; `Err` unless `|shift| >= bits` and every bit it touches is
    /// below bit 62 (CuTe's static assertions, plus a bound so offsets cannot overflow).
    ///
    /// ```
    /// use const_layout::swizzle::Swizzle;
    /// let sw = Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!((sw.bits(), sw.base(), sw.shift()), (3, 4, 3));
    /// assert_eq!(sw.to_string(), "Sw<3,4,3>");
    /// assert!(Swizzle::new(2, 40, 30).is_err()); // reaches past bit 62
    /// ```
    pub const fn new(bits: u32, base: u32, shift: i32) -> Result<Self, LayoutError> {
        let reach = bits as u64 + base as u64 + shift.unsigned_abs() as u64;
        if (shift.unsigned_abs()) < bits || reach > 62 {
            return Err(LayoutError::InvalidSwizzle { bits, base, shift });
        }
        Ok(Swizzle { bits, base, shift })
    }

    /// `BBits`.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.bits(), 2);
    /// ```
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// `MBase`.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.base(), 4);
    /// ```
    pub const fn base(&self) -> u32 {
        self.base
    }

    /// `SShift`.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.shift(), 3);
    /// ```
    pub const fn shift(&self) -> i32 {
        self.shift
    }

    /// The bits read (CuTe's `yyy_msk`).
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.yyy_mask(), 0b11 << 7);
    /// ```
    pub const fn yyy_mask(&self) -> isize {
        let ones = (1isize << self.bits) - 1;
        ones << (self.base + if self.shift > 0 { self.shift as u32 } else { 0 })
    }

    /// The bits changed (CuTe's `zzz_msk`).
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.zzz_mask(), 0b11 << 4);
    /// ```
    pub const fn zzz_mask(&self) -> isize {
        let ones = (1isize << self.bits) - 1;
        ones << (self.base + if self.shift < 0 { self.shift.unsigned_abs() } else { 0 })
    }

    /// The swizzled offset.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(2, 4, 3).unwrap();
    /// assert_eq!(sw.apply(0b01_000_0000), 0b01_001_0000);
    /// assert_eq!(sw.apply(sw.apply(1234)), 1234); // its own inverse
    /// ```
    pub const fn apply(&self, offset: isize) -> isize {
        let y = offset & self.yyy_mask();
        let moved = if self.shift >= 0 { y >> self.shift } else { y << self.shift.unsigned_abs() };
        offset ^ moved
    }

    /// The bits the swizzle reads or changes and all below them: `2^(B + M + |S|) - 1`. Adding a
    /// multiple of `2^(B + M + |S|)` commutes with the swizzle.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(3, 3, 3).unwrap();
    /// assert_eq!(sw.reach(), 511);
    /// ```
    pub const fn reach(&self) -> isize {
        (1isize << (self.bits + self.base + self.shift.unsigned_abs())) - 1
    }

    /// `apply(base + offset)`, formed as `apply(base + (offset & reach)) + (offset & !reach)`
    /// (equal, as adding a multiple of `reach + 1` commutes with the swizzle). For a thread's
    /// offset `base` and a constant `offset` (a value's, as CuTe partitions a swizzled tensor),
    /// the part of the constant above the swizzle's bits is added after it: it folds into the
    /// address of an access instead of each access swizzling a sum of its own.
    ///
    /// ```
    /// let sw = const_layout::swizzle::Swizzle::new(3, 3, 3).unwrap();
    /// for (base, offset) in [(0, 0), (72, 2048), (13, 4096 + 128), (511, 1)] {
    ///     assert_eq!(sw.apply_sum(base, offset), sw.apply(base + offset));
    /// }
    /// ```
    #[inline(always)]
    pub const fn apply_sum(&self, base: isize, offset: isize) -> isize {
        let reach = self.reach();
        self.apply(base + (offset & reach)) + (offset & !reach)
    }
}

impl fmt::Display for Swizzle {
    /// `Sw<B,M,S>`, as CuTe prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// The outer function of a composed layout.
///
/// ```
/// use const_layout::swizzle::{ComposedLayout, Outer, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "_4:_1".parse().unwrap());
/// assert!(matches!(c.outer(), Outer::Swizzle(_)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// No heap: the layout is held inline.
#[allow(clippy::large_enum_variant)]
pub enum Outer {
    /// A swizzle.
    Swizzle(Swizzle),
    /// A layout.
    Layout(DynLayout),
}

impl Swizzle {
    /// The swizzle as a layout where it is linear (CuTe's `swizzle_layout` in `slice_and_offset`):
    /// each of the `B` lower and `B` upper swizzle bits a mode of extent 2 whose stride is the
    /// change it makes, given the bits `offset` has set (`+-Z` for a changed bit, `Y+-Z` for a
    /// read bit, `Z`, `Y` the lowest changed and read bits).
    fn decayed(&self, offset: DynInt, dynamic: isize) -> Result<DynLayout, LayoutError> {
        let (m, b, s) = (self.base(), self.bits(), self.shift().unsigned_abs());
        let z = self.zzz_mask() & self.zzz_mask().wrapping_neg();
        let y = self.yyy_mask() & self.yyy_mask().wrapping_neg();
        let stride = |changed: bool, i: u32| -> DynInt {
            let bit = if changed { y << i } else { z << i };
            let v = if changed {
                if offset.value & bit == 0 { z << i } else { -(z << i) }
            } else if offset.value & bit == 0 {
                (y + z) << i
            } else {
                (y - z) << i
            };
            DynInt::new(v, dynamic & bit == 0)
        };
        let two = DynIntTuple::int(DynInt::new_static(2));
        let group = |lower: bool| -> Result<(DynIntTuple, DynIntTuple), LayoutError> {
            // The lower group holds the changed bits when they are below the read ones.
            let changed = lower == (z < y);
            let shapes = DynIntTuple::from_modes((0..b).map(|_| two))?;
            let strides = DynIntTuple::from_modes((0..b).map(|i| DynIntTuple::int(stride(changed, i))))?;
            Ok((shapes, strides))
        };
        let (lo_s, lo_d) = group(true)?;
        let (hi_s, hi_d) = group(false)?;
        let fixed = |v: isize| DynIntTuple::int(DynInt::new_static(v));
        let shape = DynIntTuple::from_modes([fixed(1 << m), lo_s, fixed(1 << (s - b)), hi_s, fixed(1)])?;
        let strides =
            DynIntTuple::from_modes([fixed(1), lo_d, fixed(1 << (m + b)), hi_d, fixed(1 << (m + b + s))])?;
        DynLayout::new(shape, strides)
    }

    /// CuTe's `make_swizzle<Y, Z>()`: the swizzle that reads the bits `y` and changes the bits
    /// `z` (two runs of equally many bits). `Err` if there is none.
    ///
    /// ```
    /// use const_layout::swizzle::Swizzle;
    /// assert_eq!(Swizzle::from_masks(0b1000, 0b0100).unwrap().to_string(), "Sw<1,2,1>");
    /// assert_eq!(Swizzle::from_masks(0b1100_0000, 0b0000_0110).unwrap().to_string(), "Sw<2,1,5>");
    /// ```
    pub fn from_masks(y: isize, z: isize) -> Result<Swizzle, LayoutError> {
        let (b, ty, tz) = (y.count_ones(), y.trailing_zeros(), z.trailing_zeros());
        let bad =
            LayoutError::Inadmissible { op: "make_swizzle", why: Inadmissible::NotSwizzleMasks { y, z } };
        if y <= 0 || z <= 0 || z.count_ones() != b {
            return Err(bad);
        }
        let sw = Swizzle::new(b, ty.min(tz), ty as i32 - tz as i32).map_err(|_| bad)?;
        if sw.yyy_mask() | sw.zzz_mask() != y | z {
            return Err(bad);
        }
        Ok(sw)
    }

    /// CuTe's `composition(layout, Swizzle)` rewrite `L o Sw = Sw' o L`: the swizzle reading
    /// `L(yyy)` and changing `L(zzz)` (holds in simple cases only; callers check). `Err` under
    /// `op`'s name where there is no such swizzle (CuTe's `make_swizzle` does not compile there).
    fn through(&self, layout: &DynLayout, op: &'static str) -> Result<Swizzle, LayoutError> {
        Swizzle::from_masks(layout.offset(self.yyy_mask()), layout.offset(self.zzz_mask())).map_err(|e| {
            match e {
                LayoutError::Inadmissible { why, .. } => LayoutError::Inadmissible { op, why },
                e => e,
            }
        })
    }

    /// CuTe's `upcast<N>(Swizzle<B,M,S>)` for elements `n` times wider (`n` a power of two): the
    /// base bit moves down by `log2(n)`; bits that would go below bit 0 are dropped.
    ///
    /// ```
    /// use const_layout::swizzle::Swizzle;
    /// let sw = Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!(sw.upcast(2).unwrap().to_string(), "Sw<3,3,3>");
    /// assert_eq!(sw.upcast(32).unwrap().to_string(), "Sw<2,0,3>");
    /// ```
    pub fn upcast(&self, n: isize) -> Result<Swizzle, LayoutError> {
        let log2 = power_of_two("upcast", n)?;
        let m = self.base() as i64 - log2 as i64;
        if m >= 0 {
            Swizzle::new(self.bits(), m as u32, self.shift())
        } else {
            Swizzle::new((self.bits() as i64 + m).max(0) as u32, 0, self.shift())
        }
    }

    /// CuTe's `downcast<N>(Swizzle<B,M,S>)` for elements `n` times narrower: the base bit moves up
    /// by `log2(n)`.
    ///
    /// ```
    /// use const_layout::swizzle::Swizzle;
    /// assert_eq!(Swizzle::new(3, 4, 3).unwrap().downcast(2).unwrap().to_string(), "Sw<3,5,3>");
    /// ```
    pub fn downcast(&self, n: isize) -> Result<Swizzle, LayoutError> {
        let log2 = power_of_two("downcast", n)?;
        Swizzle::new(self.bits(), self.base() + log2, self.shift())
    }
}

/// `log2(n)`, or an error if `n` is not a positive power of two (CuTe's static assertion).
fn power_of_two(op: &'static str, n: isize) -> Result<u32, LayoutError> {
    if n <= 0 || n & (n - 1) != 0 {
        return Err(LayoutError::Inadmissible { op, why: Inadmissible::NotPowerOfTwo { n } });
    }
    Ok(n.trailing_zeros())
}

impl Outer {
    fn apply(&self, x: isize) -> isize {
        match self {
            Outer::Swizzle(s) => s.apply(x),
            Outer::Layout(l) => l.offset(x),
        }
    }
}

/// CuTe's `ComposedLayout<A, O, B>`: the function `c -> outer(offset + inner(c))`. Its domain (shape,
/// size, rank) is the inner layout's.
///
/// ```
/// use const_layout::swizzle::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "_4:_1".parse().unwrap());
/// assert_eq!((0..4).map(|i| c.offset(i)).collect::<Vec<_>>(), [0, 1, 3, 2]);
/// assert_eq!(c.size().value, 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposedLayout {
    outer: Outer,
    offset: DynInt,
    inner: DynLayout,
}

impl ComposedLayout {
    /// `composition(swizzle, layout)`: offset `_0`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.to_string(), "Sw<1,0,1> o _0 o (_2,_2):(_1,_2)");
    /// ```
    pub fn new(outer: Swizzle, inner: DynLayout) -> Self {
        ComposedLayout { outer: Outer::Swizzle(outer), offset: DynInt::new_static(0), inner }
    }

    /// CuTe's `composition(outer, offset, inner)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynInt;
    /// use const_layout::swizzle::{ComposedLayout, Outer};
    /// let c = ComposedLayout::with_offset(Outer::Layout("_8:_2".parse().unwrap()), DynInt::new_runtime(3), "_2:_1".parse().unwrap());
    /// assert_eq!(c.to_string(), "_8:_2 o 3 o _2:_1");
    /// assert_eq!((c.offset(0), c.offset(1)), (6, 8));
    /// ```
    pub fn with_offset(outer: Outer, offset: DynInt, inner: DynLayout) -> Self {
        ComposedLayout { outer, offset, inner }
    }

    /// The outer function.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert!(matches!(c.outer(), const_layout::swizzle::Outer::Swizzle(_)));
    /// ```
    pub fn outer(&self) -> &Outer {
        &self.outer
    }

    /// The offset between inner and outer.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.offset_value().to_string(), "_0");
    /// ```
    pub fn offset_value(&self) -> DynInt {
        self.offset
    }

    /// The inner layout (the domain).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.inner().to_string(), "(_2,_2):(_1,_2)");
    /// ```
    pub fn inner(&self) -> &DynLayout {
        &self.inner
    }

    /// The same outer function and offset over a new inner layout (how CuTe applies `composition`,
    /// the divides, the products and the mode operations to a composed layout).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// let d = c.with_inner("_4:_1".parse().unwrap());
    /// assert_eq!(d.to_string(), "Sw<1,0,1> o _0 o _4:_1");
    /// ```
    pub fn with_inner(&self, inner: DynLayout) -> Self {
        ComposedLayout { inner, ..*self }
    }

    /// CuTe's `size`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.size().to_string(), "_4");
    /// ```
    pub fn size(&self) -> DynInt {
        self.inner.size()
    }

    /// CuTe's `rank`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// The value at integer index `i`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!((0..4).map(|i| c.offset(i)).collect::<Vec<_>>(), [0, 1, 3, 2]);
    /// ```
    pub fn offset(&self, i: isize) -> isize {
        self.apply(self.inner.offset(i))
    }

    /// `outer(offset + x)`: the value at the inner layout's offset `x`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// assert_eq!(c.apply(2), 3);
    /// ```
    pub fn apply(&self, x: isize) -> isize {
        self.outer.apply(self.offset.value.wrapping_add(x))
    }

    /// CuTe's `slice_and_offset(coord, Sw o offset o L)`: the kept modes and the offset taken out.
    /// Where the sliced layout does not reach a bit the swizzle reads together with the bit it
    /// changes, the swizzle is linear on it and CuTe decays the result to a plain layout (strides
    /// `+-Z`, `Y+-Z` per swizzle bit, the fixed coordinates' bits deciding the signs) and an
    /// offset; otherwise the result stays composed, with the swizzled bits of the fixed part in
    /// its offset. Each result is checked point by point to be the original function (up to
    /// 2^14 elements; beyond that, or if CuTe's answer would differ, the slice stays composed
    /// with the whole fixed offset inside).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Sliced, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 4, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let (part, offset) = c.slice_and_offset(&"(_,_2)".parse().unwrap()).unwrap();
    /// let Sliced::Layout(column) = part else { unreachable!() };
    /// assert_eq!((column.to_string(), offset.to_string()), ("((_2,_4)):((_64,_144))".to_string(), "_2".to_string()));
    /// ```
    pub fn slice_and_offset(&self, coord: &crate::algebra::Slicer) -> Result<(Sliced, DynInt), LayoutError> {
        let sliced = crate::algebra::slice(coord, &self.inner)?;
        let (keep_coord, keep) = coord.parts();
        let all_kept = keep.leaves().all(|k| k.value == 1);
        let fixed = self
            .inner
            .apply(&keep_coord)?
            .as_int()
            .ok_or(LayoutError::NotCongruent { what: "coordinate" })?;
        let folded = || -> Result<(Sliced, DynInt), LayoutError> {
            let value = self.offset.value.checked_add(fixed.value).ok_or(LayoutError::CosizeOverflow)?;
            let offset = DynInt::new(value, self.offset.is_static && fixed.is_static);
            Ok((Sliced::Composed(ComposedLayout { inner: sliced, offset, ..*self }), DynInt::new_static(0)))
        };
        let Outer::Swizzle(sw) = self.outer else { return folded() };
        if all_kept {
            return Ok((Sliced::Composed(ComposedLayout { inner: sliced, ..*self }), DynInt::new_static(0)));
        }
        if sliced.size().value > 1 << 14 {
            return folded();
        }
        let zy = sw.zzz_mask() | sw.yyy_mask();
        let o = self.offset;
        let only = DynInt::new(o.value ^ (fixed.value & zy), o.is_static && fixed.is_static);
        let anti = DynInt::new(fixed.value & !zy, fixed.is_static);
        // The original function on the slice, for the checks.
        // Checked: an offset near `isize::MAX` is an error, not a wrap.
        let original = |i: isize| {
            o.value
                .checked_add(fixed.value)
                .and_then(|v| v.checked_add(sliced.offset(i)))
                .map(|v| sw.apply(v))
        };
        let size = sliced.size().value;
        let active = sliced.offset(size - 1) & zy;
        if active & !sw.apply(active) != 0 {
            // Bits the swizzle reads and the bits it changes both move: not linear.
            let part = ComposedLayout { outer: self.outer, offset: only, inner: sliced };
            if (0..size)
                .all(|i| part.offset(i).checked_add(anti.value).is_some_and(|v| Some(v) == original(i)))
            {
                return Ok((Sliced::Composed(part), anti));
            }
            return folded();
        }
        // Bits a runtime fixed coordinate can set (CuTe's MixedBits): the rest of the offset is
        // known at compile time, and so are the strides its bits decide.
        let dynamic = if o.is_static { dynamic_bits(&keep_coord, &keep, &self.inner) } else { !0 };
        let decayed = sw.decayed(only, dynamic)?;
        let Ok(part) = crate::algebra::composition(&decayed, &sliced) else { return folded() };
        let value = sw.apply(only.value).checked_add(anti.value).ok_or(LayoutError::CosizeOverflow)?;
        let offset = DynInt::new(value, only.is_static && anti.is_static);
        if part.size().value == size
            && (0..size)
                .all(|i| part.offset(i).checked_add(offset.value).is_some_and(|v| Some(v) == original(i)))
        {
            return Ok((Sliced::Layout(part), offset));
        }
        folded()
    }

    /// CuTe's `right_inverse(Sw o _0 o L)`: `composition(right_inverse(L), Sw)`, the swizzle moved
    /// through the inverse (CuTe's `composition(Layout, Swizzle)`: the swizzle reading `R(yyy)`
    /// and changing `R(zzz)`). CuTe's rewrite holds in simple cases only, so the result is checked
    /// to be a right inverse point by point; `Err` where it is not, or the offset is not 0.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 2).unwrap(), "(_4,_4):(_4,_1)".parse().unwrap());
    /// assert_eq!(c.right_inverse().unwrap().to_string(), "Sw<1,0,-2> o _0 o (_4,_4):(_4,_1)");
    /// ```
    pub fn right_inverse(&self) -> Result<ComposedLayout, LayoutError> {
        self.inverse(true)
    }

    /// CuTe's `left_inverse(Sw o _0 o L)`: `composition(left_inverse(L), Sw)`, checked as
    /// [`ComposedLayout::right_inverse`] is.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 2).unwrap(), "(_4,_4):(_1,_4)".parse().unwrap());
    /// assert_eq!(c.left_inverse().unwrap().to_string(), "Sw<1,0,2> o _0 o _16:_1");
    /// ```
    pub fn left_inverse(&self) -> Result<ComposedLayout, LayoutError> {
        self.inverse(false)
    }

    /// CuTe's `composition(a, Sw o _0 o L)`: `Sw' o _0 o composition(a, L)`, the swizzle moved
    /// through `a` (the swizzle reading `a(yyy)` and changing `a(zzz)`), checked point by point to
    /// be `a(Sw(L(i)))`; `Err` where it is not, or the offset is not 0 (CuTe requires 0).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 2).unwrap(), "_16:_1".parse().unwrap());
    /// let r = c.composed_after(&"(_4,_4):(_4,_1)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "Sw<1,0,-2> o _0 o (_4,_4):(_4,_1)");
    /// ```
    pub fn composed_after(&self, a: &DynLayout) -> Result<ComposedLayout, LayoutError> {
        let fails = LayoutError::Inadmissible { op: "composition", why: Inadmissible::SwizzleThroughLayout };
        let Outer::Swizzle(sw) = self.outer else { return Err(fails) };
        if self.offset.value != 0 {
            return Err(fails);
        }
        let moved = sw.through(a, "composition")?;
        let result = ComposedLayout::new(moved, crate::algebra::composition(a, &self.inner)?);
        let n = self.size().value;
        if n <= 1 << 14 && (0..n).all(|i| result.offset(i) == a.offset(self.offset(i))) {
            Ok(result)
        } else {
            Err(fails)
        }
    }

    /// CuTe's `composition(a, b)` of two composed layouts, `self` after `b`: `self`'s outer
    /// function and offset after `composition(self.inner, b)`, which is (CuTe's
    /// `composition(Layout, ComposedLayout)`, `b`'s offset 0) `composition(composition(inner,
    /// b.outer), b.inner)`. A layout outer function of `b` composes into a layout; a swizzle is
    /// moved through the inner layout (the swizzle reading `inner(yyy)` and changing
    /// `inner(zzz)`), which leaves `outer o offset o Sw' o composition(inner, b.inner)`: CuTe's
    /// nested composed layout, which one composed layout holds where `Sw'` is the identity, where
    /// it cancels an equal swizzle outside (a swizzle is its own inverse), or where it moves on
    /// through a layout outside at offset 0. The result is checked point by point against
    /// `self(b(i))` (up to 2^14 elements); a swizzle with no bits (`Sw<0,..>`, offset 0) outside
    /// stands for a plain layout (the inner one).
    ///
    /// `Err` naming why: `b`'s offset is not 0 (CuTe requires 0), two swizzles remain
    /// ([`Inadmissible::TwoSwizzles`]; their product is linear over F2, and
    /// [`LinearLayout::from_composition`](crate::f2::linear::LinearLayout::from_composition) holds it
    /// where both operands are linear: the evaluator answers with one there), or CuTe's rewrite
    /// is another function.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let sw = Swizzle::new(1, 0, 1).unwrap();
    /// let a = ComposedLayout::new(sw, "_4:_1".parse().unwrap());
    /// let b = ComposedLayout::new(sw, "(_2,_2):(_2,_1)".parse().unwrap());
    /// // The swizzle passes through `_4:_1` unchanged and cancels the outer one.
    /// let r = a.composed_with(&b).unwrap();
    /// assert_eq!(r.to_string(), "Sw<0,0,0> o _0 o (_2,_2):(_2,_1)");
    /// assert!((0..4).all(|i| r.offset(i) == a.offset(b.offset(i))));
    /// ```
    pub fn composed_with(&self, b: &ComposedLayout) -> Result<ComposedLayout, LayoutError> {
        let fails = LayoutError::Inadmissible { op: "composition", why: Inadmissible::SwizzleThroughLayout };
        if b.offset.value != 0 {
            return Err(LayoutError::Inadmissible {
                op: "composition",
                why: Inadmissible::RightOffset { offset: b.offset.value },
            });
        }
        let result = match b.outer {
            Outer::Layout(lb) => {
                let inner =
                    crate::algebra::composition(&crate::algebra::composition(&self.inner, &lb)?, &b.inner)?;
                ComposedLayout { inner, ..*self }
            }
            Outer::Swizzle(sb) => {
                let moved = sb.through(&self.inner, "composition")?;
                let inner = crate::algebra::composition(&self.inner, &b.inner)?;
                match self.outer {
                    _ if moved.bits() == 0 => ComposedLayout { inner, ..*self },
                    Outer::Swizzle(sa) if sa == moved && self.offset.value == 0 => {
                        ComposedLayout::new(Swizzle::new(0, 0, 0)?, inner)
                    }
                    Outer::Layout(la) if self.offset.value == 0 => {
                        let twice = moved.through(&la, "composition")?;
                        ComposedLayout::new(twice, crate::algebra::composition(&la, &inner)?)
                    }
                    Outer::Swizzle(sa) => {
                        return Err(LayoutError::Inadmissible {
                            op: "composition",
                            why: Inadmissible::TwoSwizzles {
                                outer: [sa.bits() as i32, sa.base() as i32, sa.shift()],
                                inner: [moved.bits() as i32, moved.base() as i32, moved.shift()],
                            },
                        });
                    }
                    Outer::Layout(_) => return Err(fails),
                }
            }
        };
        let n = b.size().value;
        if result.size().value == n
            && n <= 1 << 14
            && (0..n).all(|i| result.offset(i) == self.offset(b.offset(i)))
        {
            Ok(result)
        } else {
            Err(fails)
        }
    }

    fn inverse(&self, right: bool) -> Result<ComposedLayout, LayoutError> {
        let op = if right { "right_inverse" } else { "left_inverse" };
        let fails = LayoutError::Inadmissible { op, why: Inadmissible::SwizzleThroughLayout };
        let Outer::Swizzle(sw) = self.outer else { return Err(fails) };
        if self.offset.value != 0 {
            return Err(fails);
        }
        let inv = if right {
            crate::algebra::right_inverse(&self.inner)?
        } else {
            crate::algebra::left_inverse(&self.inner)?
        };
        let moved = sw.through(&inv, op)?;
        let result = ComposedLayout::new(moved, inv);
        let n = if right { result.size().value } else { self.size().value };
        let ok = n <= 1 << 14
            && (0..n).all(|i| {
                if right { self.offset(result.offset(i)) == i } else { result.offset(self.offset(i)) == i }
            });
        if ok { Ok(result) } else { Err(fails) }
    }

    /// CuTe's `max_common_layout` of a swizzled layout and a layout (either order): the plain
    /// layouts' common layout, cut to its first `2^M` elements (the swizzle keeps bits below
    /// `M`), checked point by point to give contiguous offsets through both (up to 2^14
    /// elements). `Err` for a layout outer function (CuTe has no such overload) or where the
    /// check fails.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(2, 1, 3).unwrap(), "(_8,_8):(_1,_8)".parse().unwrap());
    /// assert_eq!(c.max_common_layout(c.inner()).unwrap().to_string(), "_2:_1");
    /// ```
    pub fn max_common_layout(&self, other: &DynLayout) -> Result<DynLayout, LayoutError> {
        let fails =
            LayoutError::Inadmissible { op: "max_common_layout", why: Inadmissible::SwizzleThroughLayout };
        let Outer::Swizzle(sw) = self.outer else { return Err(fails) };
        let common = crate::algebra::max_common_layout(&self.inner, other)?;
        let base = 1isize.checked_shl(sw.base()).ok_or(fails)?;
        let result = if base < common.size().value {
            let first = DynLayout::new(
                DynIntTuple::int(DynInt::new_static(base)),
                DynIntTuple::int(DynInt::new_static(1)),
            )?;
            crate::algebra::composition(&common, &first)?
        } else {
            common
        };
        let n = result.size().value;
        let (s0, o0) = (self.offset(result.offset(0)), other.offset(result.offset(0)));
        let contiguous = n <= 1 << 14
            && (0..n).all(|i| {
                let j = result.offset(i);
                self.offset(j).checked_sub(s0) == Some(i) && other.offset(j).checked_sub(o0) == Some(i)
            });
        if contiguous { Ok(result) } else { Err(fails) }
    }

    /// CuTe's `max_common_vector` of a swizzled layout and a layout (either order): the plain
    /// layouts' common vector, at most `2^M` (the swizzle keeps bits below `M`), checked to be
    /// contiguous through this swizzle at this offset (CuTe assumes the offset allows it); `other`
    /// may itself be swizzled (CuTe's rule: the same swizzle keeps the common vector, another
    /// bounds it by its own `2^M` too). `Err` for a layout outer function (CuTe has no such
    /// overload) or where the bound does not hold.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_8):(_8,_1)".parse().unwrap());
    /// assert_eq!(c.max_common_vector(&"(_8,_8):(_8,_1)".parse().unwrap(), None).unwrap().to_string(), "_8");
    /// assert_eq!(c.max_common_vector(c.inner(), Some(&c)).unwrap().to_string(), "_64");
    /// ```
    pub fn max_common_vector(
        &self,
        other: &DynLayout,
        other_composed: Option<&ComposedLayout>,
    ) -> Result<DynInt, LayoutError> {
        let fails =
            LayoutError::Inadmissible { op: "max_common_vector", why: Inadmissible::SwizzleThroughLayout };
        let Outer::Swizzle(sw) = self.outer else { return Err(fails) };
        let inner_b = match other_composed {
            Some(k) => *k.inner(),
            None => *other,
        };
        let vec = crate::algebra::max_common_vector(&self.inner, &inner_b)?;
        let base = |s: &Swizzle| 1isize.checked_shl(s.base()).unwrap_or(isize::MAX);
        // Contiguous through `s` at offset `o` for the first `n` elements.
        let linear = |s: &Swizzle, o: isize, n: isize| {
            (0..n).all(|i| o.checked_add(i).is_some_and(|x| s.apply(x) == s.apply(o) + i))
        };
        let mut n = vec.value.min(base(&sw));
        let mut is_static = vec.is_static && self.offset.is_static;
        if let Some(k) = other_composed {
            let Outer::Swizzle(sw1) = k.outer else { return Err(fails) };
            let same = sw1 == sw && self.offset.value == 0 && k.offset.value == 0;
            // The same swizzle on both sides cancels where it maps [0, vec) onto itself.
            if same && vec.value > 0 && (vec.value & (vec.value - 1)) == 0 {
                return Ok(vec);
            }
            n = n.min(base(&sw1));
            is_static = is_static && k.offset.is_static;
            if !linear(&sw1, k.offset.value, n) {
                return Err(fails);
            }
        }
        if !linear(&sw, self.offset.value, n) {
            return Err(fails);
        }
        Ok(DynInt::new(n, is_static))
    }

    /// CuTe's `upcast<N>` of a composed layout: each part cast (the swizzle's base moves down, the
    /// offset and the inner layout are divided by `n`).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 4, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// assert_eq!(c.upcast(2).unwrap().to_string(), "Sw<3,3,3> o _0 o (_8,_32):(_32,_1)");
    /// assert_eq!(c.downcast(2).unwrap().to_string(), "Sw<3,5,3> o _0 o (_8,_128):(_128,_1)");
    /// ```
    pub fn upcast(&self, n: isize) -> Result<Self, LayoutError> {
        let outer = match self.outer {
            Outer::Swizzle(s) => Outer::Swizzle(s.upcast(n)?),
            Outer::Layout(l) => Outer::Layout(crate::algebra::upcast(&l, n)?),
        };
        if self.offset.value % n != 0 {
            return Err(LayoutError::Inadmissible {
                op: "upcast",
                why: Inadmissible::CastDivisibility { stride: self.offset.value, n },
            });
        }
        let offset = self.offset.div(DynInt::new_static(n));
        Ok(ComposedLayout { outer, offset, inner: crate::algebra::upcast(&self.inner, n)? })
    }

    /// CuTe's `downcast<N>` of a composed layout: each part cast (the swizzle's base moves up, the
    /// offset is multiplied by `n`, the inner layout downcast).
    pub fn downcast(&self, n: isize) -> Result<Self, LayoutError> {
        let outer = match self.outer {
            Outer::Swizzle(s) => Outer::Swizzle(s.downcast(n)?),
            Outer::Layout(l) => Outer::Layout(crate::algebra::downcast(&l, n)?),
        };
        let offset = crate::algebra::mul_checked(self.offset, DynInt::new_static(n))?;
        Ok(ComposedLayout { outer, offset, inner: crate::algebra::downcast(&self.inner, n)? })
    }

    /// CuTe's `slice_and_offset` / `domain_offset` in one: the composed layout of the inner
    /// coordinate `coord`'s position moved into the offset (`inner(coord)` added).
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// let d = c.domain_offset(2).unwrap(); // the origin moved to inner offset 2
    /// assert_eq!((d.offset(0), d.offset(1)), (3, 2));
    /// ```
    pub fn domain_offset(&self, inner_offset: isize) -> Result<Self, LayoutError> {
        let v = self.offset.value.checked_add(inner_offset).ok_or(LayoutError::CosizeOverflow)?;
        Ok(ComposedLayout { offset: DynInt::new_runtime(v), ..*self })
    }
}

impl fmt::Display for ComposedLayout {
    /// `outer o offset o inner`, as CuTe prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outer {
            Outer::Swizzle(s) => write!(f, "{s}")?,
            Outer::Layout(l) => write!(f, "{l}")?,
        }
        write!(f, " o {} o {}", self.offset, self.inner)
    }
}

/// The bits of `layout(coord)` that runtime integers of `coord` (its fixed modes, where `keep` is
/// 0) can set: each such mode's span, bit by bit (all bits from its lowest stride up when an
/// extent or stride is not a power of two).
fn dynamic_bits(coord: &DynIntTuple, keep: &DynIntTuple, layout: &DynLayout) -> isize {
    if let (Some(c), Some(k)) = (coord.as_int(), keep.as_int()) {
        if k.value == 1 || (c.is_static && layout.stride().is_static()) {
            return 0;
        }
        let mut bits = 0isize;
        for (s, d) in layout.shape().leaves().zip(layout.stride().leaves()) {
            let (s, d) = (s.value, d.value.unsigned_abs() as isize);
            if s <= 1 || d == 0 {
                continue;
            }
            let low = d.trailing_zeros();
            bits |= if (s as usize).is_power_of_two() && (d as usize).is_power_of_two() {
                ((1isize << s.trailing_zeros()) - 1) << low
            } else {
                !0isize << low
            };
        }
        return bits;
    }
    (0..coord.rank())
        .filter_map(|i| Some(dynamic_bits(&coord.mode(i)?, &keep.mode(i)?, &layout.mode(i)?)))
        .fold(0, |a, b| a | b)
}

/// What slicing a composed layout gives: CuTe decays a swizzle to a plain layout where the slice
/// lets it (see [`ComposedLayout::slice_and_offset`]).
// No heap in the library, so both are held inline; a slice is made once per call.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sliced {
    /// The swizzle decayed: a plain layout.
    Layout(DynLayout),
    /// Still a composed layout.
    Composed(ComposedLayout),
}

/// FLIR's `swizzle_xor16(row, col, k_blocks16)`: `col ^ ((row % k_blocks16) * 16)`, permuting the
/// 16-byte chunks of a row of `16 * k_blocks16` bytes. For `k_blocks16 = 2^B` and a row pitch of
/// exactly `16 * k_blocks16` bytes it equals CuTe's `Swizzle<B,4,B>` on the linear byte offset.
/// Unlike FLIR (which leaves `col` unchecked), `Err` if `k_blocks16 <= 0` or `row < 0`.
///
/// ```
/// use const_layout::swizzle::{Swizzle, swizzle_xor16};
/// assert_eq!(swizzle_xor16(5, 37, 4).unwrap(), 53);
/// assert_eq!(swizzle_xor16(7, 0, 8).unwrap(), 112);
/// let sw = Swizzle::new(2, 4, 2).unwrap();
/// assert_eq!(sw.apply(5 * 64 + 37), 5 * 64 + swizzle_xor16(5, 37, 4).unwrap());
/// ```
pub fn swizzle_xor16(row: isize, col: isize, k_blocks16: isize) -> Result<isize, LayoutError> {
    if k_blocks16 <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value: k_blocks16 });
    }
    if row < 0 {
        return Err(LayoutError::CoordinateOutOfRange { leaf: 0, value: row, extent: isize::MAX });
    }
    Ok(col ^ ((row % k_blocks16) * 16))
}

/// CuTe's algebra on a composed layout: the operation on the inner layout, the outer function
/// and the offset after the result (CuTe's divides and products of a `ComposedLayout` work on its
/// `layout_b`; `(F o O o L) o T` is `F o O o (L o T)`), as the evaluator computes them.
macro_rules! on_inner {
    ($($(#[$doc:meta])* $method:ident($arg:ident: $T:ty);)+) => {
        impl ComposedLayout {$(
            $(#[$doc])*
            pub fn $method(&self, $arg: &$T) -> Result<ComposedLayout, LayoutError> {
                Ok(self.with_inner(self.inner.$method($arg)?))
            }
        )+}
    };
}

on_inner! {
    /// CuTe's `composition(self, tiler)`: the swizzle after `inner o tiler`.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let part = c.composition_tiler(&"<_4:_1, _16:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(part.to_string(), "Sw<3,3,3> o _0 o (_4,_16):(_64,_1)");
    /// assert!((0..64).all(|i| part.offset(i) == c.offset(i % 4 + 8 * (i / 4))));
    /// ```
    composition_tiler(tiler: crate::algebra::Tiler);
    /// CuTe's `logical_divide(self, tiler)`: the swizzle after the divided inner layout.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let d = c.logical_divide(&"<_4:_1, _16:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "Sw<3,3,3> o _0 o ((_4,_2),(_16,_4)):((_64,_256),(_1,_16))");
    /// ```
    logical_divide(tiler: crate::algebra::Tiler);
    /// CuTe's `zipped_divide(self, tiler)`: the swizzle after the divided inner layout.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let z = c.zipped_divide(&"<_4:_1, _16:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(z.to_string(), "Sw<3,3,3> o _0 o ((_4,_16),(_2,_4)):((_64,_1),(_256,_16))");
    /// ```
    zipped_divide(tiler: crate::algebra::Tiler);
    /// CuTe's `tiled_divide(self, tiler)`: the swizzle after the divided inner layout.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let t = c.tiled_divide(&"<_4:_1, _16:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(t.to_string(), "Sw<3,3,3> o _0 o ((_4,_16),_2,_4):((_64,_1),_256,_16)");
    /// ```
    tiled_divide(tiler: crate::algebra::Tiler);
    /// CuTe's `flat_divide(self, tiler)`: the swizzle after the divided inner layout.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let f = c.flat_divide(&"<_4:_1, _16:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(f.to_string(), "Sw<3,3,3> o _0 o (_4,_16,_2,_4):(_64,_1,_256,_16)");
    /// ```
    flat_divide(tiler: crate::algebra::Tiler);
    /// CuTe's `logical_product(self, tiler)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let p = c.logical_product(&"_2:_1".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)");
    /// ```
    logical_product(tiler: crate::algebra::Tiler);
    /// CuTe's `zipped_product(self, tiler)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let p = c.zipped_product(&"_2:_1".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)");
    /// ```
    zipped_product(tiler: crate::algebra::Tiler);
    /// CuTe's `tiled_product(self, tiler)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let p = c.tiled_product(&"_2:_1".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<3,3,3> o _0 o ((_8,_64),_2):((_64,_1),_512)");
    /// ```
    tiled_product(tiler: crate::algebra::Tiler);
    /// CuTe's `flat_product(self, tiler)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let p = c.flat_product(&"_2:_1".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<3,3,3> o _0 o (_8,_64,_2):(_64,_1,_512)");
    /// ```
    flat_product(tiler: crate::algebra::Tiler);
    /// CuTe's `blocked_product(self, layout)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// let p = c.blocked_product(&"(_2,_1):(_1,_0)".parse().unwrap()).unwrap();
    /// assert_eq!(p.inner().to_string(), c.inner().blocked_product(&"(_2,_1):(_1,_0)".parse().unwrap()).unwrap().to_string());
    /// ```
    blocked_product(layout: DynLayout);
    /// CuTe's `raked_product(self, layout)`: the swizzle after the inner layout's product.
    ///
    /// ```
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "(_2,_2):(_1,_2)".parse().unwrap());
    /// let p = c.raked_product(&"(_2,_1):(_1,_0)".parse().unwrap()).unwrap();
    /// assert_eq!(p.inner().to_string(), c.inner().raked_product(&"(_2,_1):(_1,_0)".parse().unwrap()).unwrap().to_string());
    /// ```
    raked_product(layout: DynLayout);
}

/// A layout of any kind with runtime structure: a plain [`DynLayout`] or a [`ComposedLayout`]
/// (a swizzle, or a layout, after a layout). What const-layout's `AnyLayout::to_dyn` gives for
/// every layout kind.
///
/// ```
/// use const_layout::layout::DynAnyLayout;
/// use const_layout::{AnyLayout, layout};
/// let d = layout!((4,2):(2,1)).to_dyn().unwrap();
/// assert!(matches!(d, DynAnyLayout::Layout(_)));
/// assert_eq!(d.to_string(), "(_4,_2):(_2,_1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// No heap in the library: both are held inline.
#[allow(clippy::large_enum_variant)]
pub enum DynAnyLayout {
    /// A plain layout.
    Layout(DynLayout),
    /// A swizzle or a layout after a layout.
    Composed(ComposedLayout),
}

impl fmt::Display for DynAnyLayout {
    /// CuTe's notation, as the layout it came from prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynAnyLayout::Layout(l) => fmt::Display::fmt(l, f),
            DynAnyLayout::Composed(c) => fmt::Display::fmt(c, f),
        }
    }
}

/// Any layout as a [`DynAnyLayout`]: the one thing crates built on this core alone need from a
/// layout of any kind (the rocRoller graph's `add_layout` takes it). const-layout implements it
/// for every layout kind, as its `AnyLayout::to_dyn`; here it is implemented for the runtime
/// kinds.
///
/// ```
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::layout;
/// use const_layout::swizzle::{DynAnyLayout, ToDynAnyLayout};
/// let typed = layout!((4,2):(2,1)).to_dyn_any().unwrap();
/// assert!(matches!(typed, DynAnyLayout::Layout(_)));
/// assert_eq!(typed.to_string(), "(_4,_2):(_2,_1)");
/// let runtime = "(4,2):(2,1)".parse::<DynLayout>().unwrap().to_dyn_any().unwrap();
/// assert_eq!(runtime.to_string(), "(4,2):(2,1)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout: no runtime form of it (`ToDynAnyLayout`)",
    label = "a layout of any kind: typed, static, swizzled or runtime-structured"
)]
pub trait ToDynAnyLayout {
    /// The layout with runtime structure, which prints the same. `Err` where a typed layout does
    /// not fit a runtime one.
    fn to_dyn_any(&self) -> Result<DynAnyLayout, LayoutError>;
}

impl ToDynAnyLayout for DynLayout {
    #[inline]
    fn to_dyn_any(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(DynAnyLayout::Layout(*self))
    }
}

impl ToDynAnyLayout for ComposedLayout {
    #[inline]
    fn to_dyn_any(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(DynAnyLayout::Composed(*self))
    }
}

impl ToDynAnyLayout for DynAnyLayout {
    #[inline]
    fn to_dyn_any(&self) -> Result<DynAnyLayout, LayoutError> {
        Ok(*self)
    }
}
