//! Named dimensions (Triton's in- and out-dimension names): a [`LinearLayout`] whose input bits
//! are grouped into named dimensions (`thread`, `value`; or `register`, `lane`, `warp`) and whose
//! output bits likewise (`row`, `col`; or `offset`), each dimension `bits` wide, the first
//! dimension in the low bits. Composition then checks that the inner layout's outputs are the
//! outer's inputs by name and width, and values go in and come out per dimension.
//!
//! ```
//! use const_layout::linear::{Dim, LinearLayout, NamedLinearLayout};
//! // ldmatrix's rows of an 8 x 64 tile of halves: lane l reads row l % 8 at chunk l / 8.
//! const READ: NamedLinearLayout = match NamedLinearLayout::new(
//!     match LinearLayout::new(&[64, 128, 256, 8, 16, 1, 2, 4], 9) { Ok(l) => l, Err(_) => panic!() },
//!     &[Dim::new("lane", 5), Dim::new("value", 3)],
//!     &[Dim::new("col", 6), Dim::new("row", 3)],
//! ) {
//!     Ok(n) => n,
//!     Err(_) => panic!(),
//! };
//! assert_eq!(READ.apply(&[9, 2]), [2 + 8, 1, 0, 0]); // lane 9, value 2: column 10, row 1
//! assert_eq!(READ.basis("lane", 3), Some([8, 0, 0, 0])); // lane 8 moves a chunk
//! assert!(READ.to_string().starts_with(" - lane=1 -> (0, 1)\n"));
//! ```

use super::{LinearLayout, MAX_BITS};
use crate::error::LayoutError;
use core::fmt;

/// The most dimensions on either side.
pub const MAX_DIMS: usize = 4;

/// A named dimension of `bits` bits (a power-of-two extent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    /// Its name, as Triton's `StringAttr` names (`"lane"`, `"register"`, `"offset"`).
    pub name: &'static str,
    /// Its width in bits (its size is `2^bits`).
    pub bits: u8,
}

impl Dim {
    /// A dimension.
    ///
    /// ```
    /// # use const_layout::linear::Dim;
    /// assert_eq!(Dim::new("lane", 5).bits, 5);
    /// ```
    pub const fn new(name: &'static str, bits: u8) -> Dim {
        Dim { name, bits }
    }
}

const NONE: Dim = Dim { name: "", bits: 0 };

const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Copies `src` into `dst` (at most [`MAX_DIMS`], checked by the caller): the sum of their bits,
/// or the first position whose name repeats an earlier one.
const fn copy_dims(dst: &mut [Dim; MAX_DIMS], src: &[Dim]) -> Result<u32, usize> {
    let mut sum = 0u32;
    let mut i = 0;
    while i < src.len() {
        dst[i] = src[i];
        sum += src[i].bits as u32;
        let mut j = 0;
        while j < i {
            if same_name(src[i].name, src[j].name) {
                return Err(i);
            }
            j += 1;
        }
        i += 1;
    }
    Ok(sum)
}

/// The first position where two lists of dimensions differ in name or width (the shorter's
/// length if one ends first), or `None` if they are the same.
const fn first_difference(a: &[Dim; MAX_DIMS], na: u8, b: &[Dim; MAX_DIMS], nb: u8) -> Option<usize> {
    let n = if na < nb { na } else { nb } as usize;
    let mut d = 0;
    while d < n {
        if !same_name(a[d].name, b[d].name) || a[d].bits != b[d].bits {
            return Some(d);
        }
        d += 1;
    }
    if na != nb { Some(n) } else { None }
}

const fn err(op: &'static str, what: &'static str, value: isize) -> LayoutError {
    LayoutError::NotCanonical { op, what, value }
}

/// A linear layout with named input and output dimensions (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NamedLinearLayout {
    layout: LinearLayout,
    ins: [Dim; MAX_DIMS],
    outs: [Dim; MAX_DIMS],
    n_ins: u8,
    n_outs: u8,
}

impl NamedLinearLayout {
    /// `layout` with input dimensions `ins` and output dimensions `outs` (the first in the low
    /// bits); an error if there are more than [`MAX_DIMS`] on a side, a name repeats on a side, or
    /// the widths do not add up to the layout's bits (the error gives the sum).
    ///
    /// ```
    /// use const_layout::linear::{Dim, LinearLayout, NamedLinearLayout};
    /// let l = LinearLayout::identity(3);
    /// assert!(NamedLinearLayout::new(l, &[Dim::new("a", 3)], &[Dim::new("b", 3)]).is_ok());
    /// let e = NamedLinearLayout::new(l, &[Dim::new("a", 2)], &[Dim::new("b", 3)]).unwrap_err();
    /// assert!(e.to_string().contains("the sum of the input dimensions' bits, not the layout's input bits, is 2"), "{e}");
    /// ```
    pub const fn new(
        layout: LinearLayout,
        ins: &[Dim],
        outs: &[Dim],
    ) -> Result<NamedLinearLayout, LayoutError> {
        let op = "named linear layout";
        if ins.len() > MAX_DIMS || outs.len() > MAX_DIMS {
            return Err(err(
                op,
                "the dimensions on a side (at most 4)",
                if ins.len() > outs.len() { ins.len() } else { outs.len() } as isize,
            ));
        }
        let mut l = NamedLinearLayout {
            layout,
            ins: [NONE; MAX_DIMS],
            outs: [NONE; MAX_DIMS],
            n_ins: ins.len() as u8,
            n_outs: outs.len() as u8,
        };
        let sum_in = match copy_dims(&mut l.ins, ins) {
            Ok(sum) => sum,
            Err(i) => return Err(err(op, "the first input dimension whose name repeats", i as isize)),
        };
        let sum_out = match copy_dims(&mut l.outs, outs) {
            Ok(sum) => sum,
            Err(i) => return Err(err(op, "the first output dimension whose name repeats", i as isize)),
        };
        if sum_in != layout.in_bits() {
            return Err(err(
                op,
                "the sum of the input dimensions' bits, not the layout's input bits,",
                sum_in as isize,
            ));
        }
        if sum_out != layout.out_bits() {
            return Err(err(
                op,
                "the sum of the output dimensions' bits, not the layout's output bits,",
                sum_out as isize,
            ));
        }
        Ok(l)
    }

    /// The unnamed layout.
    pub const fn layout(&self) -> &LinearLayout {
        &self.layout
    }

    /// The input dimensions, low bits first.
    pub fn ins(&self) -> &[Dim] {
        &self.ins[..self.n_ins as usize]
    }

    /// The output dimensions, low bits first.
    pub fn outs(&self) -> &[Dim] {
        &self.outs[..self.n_outs as usize]
    }

    /// The image of the values `inputs` (one per input dimension, in order; missing ones 0, bits
    /// past a dimension's width ignored), one value per output dimension (the rest 0).
    pub const fn apply(&self, inputs: &[u32]) -> [u32; MAX_DIMS] {
        let (mut x, mut shift) = (0u32, 0u32);
        let mut d = 0;
        while d < self.n_ins as usize {
            let bits = self.ins[d].bits as u32;
            let v = if d < inputs.len() { inputs[d] } else { 0 };
            x |= (v & mask(bits)) << shift;
            shift += bits;
            d += 1;
        }
        self.split(self.layout.apply(x))
    }

    /// An output bit vector split into the output dimensions' values.
    const fn split(&self, y: u32) -> [u32; MAX_DIMS] {
        let mut out = [0u32; MAX_DIMS];
        let mut shift = 0;
        let mut d = 0;
        while d < self.n_outs as usize {
            let bits = self.outs[d].bits as u32;
            out[d] = (y >> shift) & mask(bits);
            shift += bits;
            d += 1;
        }
        out
    }

    /// Triton's `getBasis`: the image of bit `bit` of input dimension `name`, per output
    /// dimension; `None` if there is no such dimension or bit.
    pub const fn basis(&self, name: &str, bit: u32) -> Option<[u32; MAX_DIMS]> {
        let mut shift = 0u32;
        let mut d = 0;
        while d < self.n_ins as usize {
            if same_name(self.ins[d].name, name) {
                if bit >= self.ins[d].bits as u32 {
                    return None;
                }
                return Some(self.split(self.layout.basis(shift + bit)));
            }
            shift += self.ins[d].bits as u32;
            d += 1;
        }
        None
    }

    /// `self` after `inner`: `inner`'s output dimensions must be `self`'s input dimensions, the
    /// same names and widths in the same order; else an error naming the first that differs.
    ///
    /// ```
    /// use const_layout::linear::{Dim, LinearLayout, NamedLinearLayout};
    /// let tv = NamedLinearLayout::new(LinearLayout::identity(4), &[Dim::new("lane", 4)], &[Dim::new("element", 4)]).unwrap();
    /// let smem = NamedLinearLayout::new(LinearLayout::new(&[1, 2, 12, 8], 4).unwrap(), &[Dim::new("element", 4)], &[Dim::new("offset", 4)]).unwrap();
    /// assert_eq!(smem.compose(&tv).unwrap().apply(&[4]), [12, 0, 0, 0]);
    /// assert!(tv.compose(&smem).unwrap_err().to_string().contains("the first dimension whose name or width differs is 0"));
    /// ```
    pub const fn compose(&self, inner: &NamedLinearLayout) -> Result<NamedLinearLayout, LayoutError> {
        let op = "compose named linear layouts";
        if let Some(d) = first_difference(&inner.outs, inner.n_outs, &self.ins, self.n_ins) {
            return Err(err(op, "the first dimension whose name or width differs", d as isize));
        }
        let layout = match self.layout.compose(&inner.layout) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        Ok(NamedLinearLayout {
            layout,
            ins: inner.ins,
            outs: self.outs,
            n_ins: inner.n_ins,
            n_outs: self.n_outs,
        })
    }

    /// The inverse of a bijection, its dimensions swapped.
    pub const fn invert(&self) -> Result<NamedLinearLayout, LayoutError> {
        match self.layout.invert() {
            Ok(layout) => Ok(NamedLinearLayout {
                layout,
                ins: self.outs,
                outs: self.ins,
                n_ins: self.n_outs,
                n_outs: self.n_ins,
            }),
            Err(e) => Err(e),
        }
    }

    /// Triton's `invertAndCompose`: from `self`'s inputs to `other`'s inputs, the same output
    /// dimensions required (a register layout to the shared-memory offsets that hold each
    /// register's element).
    ///
    /// ```
    /// use const_layout::linear::{Dim, LinearLayout, NamedLinearLayout};
    /// let regs = NamedLinearLayout::new(LinearLayout::new(&[2, 1], 2).unwrap(), &[Dim::new("register", 2)], &[Dim::new("element", 2)]).unwrap();
    /// let smem = NamedLinearLayout::new(LinearLayout::identity(2), &[Dim::new("offset", 2)], &[Dim::new("element", 2)]).unwrap();
    /// let c = regs.invert_and_compose(&smem).unwrap();
    /// assert_eq!((c.ins()[0].name, c.outs()[0].name, c.apply(&[1])[0]), ("register", "offset", 2));
    /// ```
    pub const fn invert_and_compose(
        &self,
        other: &NamedLinearLayout,
    ) -> Result<NamedLinearLayout, LayoutError> {
        let op = "invert_and_compose of named linear layouts";
        if let Some(d) = first_difference(&other.outs, other.n_outs, &self.outs, self.n_outs) {
            return Err(err(op, "the first output dimension whose name or width differs", d as isize));
        }
        match self.layout.invert_and_compose(&other.layout) {
            Ok(layout) => Ok(NamedLinearLayout {
                layout,
                ins: self.ins,
                outs: other.ins,
                n_ins: self.n_ins,
                n_outs: other.n_ins,
            }),
            Err(e) => Err(e),
        }
    }
}

const fn mask(bits: u32) -> u32 {
    if bits as usize >= MAX_BITS { u32::MAX } else { (1u32 << bits) - 1 }
}

impl fmt::Display for NamedLinearLayout {
    /// Triton's printing: one line per input bit, ` - lane=4 -> (0, 2)` (the image per output
    /// dimension), then the output dimensions and sizes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.ins() {
            for b in 0..d.bits as u32 {
                let img = self.basis(d.name, b).unwrap_or([0; MAX_DIMS]);
                write!(f, " - {}={} -> (", d.name, 1u64 << b)?;
                for (k, v) in img.iter().take(self.n_outs as usize).enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")\n")?;
            }
        }
        f.write_str("where out dims are: [")?;
        for (k, d) in self.outs().iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} (size {})", d.name, 1u64 << d.bits)?;
        }
        f.write_str("]")
    }
}
