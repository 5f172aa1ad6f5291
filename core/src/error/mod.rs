//! Errors of runtime layouts: building them, checked index math and text parsing.
//!
//! Static layouts never produce these: their problems are compile-time errors.

use core::fmt;

/// `?` for `const fn`s: the `?` operator is not `const` on stable Rust, and the algebra runs in
/// constants too (the typed static path evaluates it at compile time).
#[doc(hidden)]
#[macro_export]
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}
#[doc(hidden)]
pub use crate::tri;

mod inadmissible;
pub use inadmissible::Inadmissible;

/// Why a runtime layout could not be built, or a checked index computation failed.
///
/// Integers are numbered by their position in the flattened shape (or stride), from 0, so
/// `integer 2` of `(8,(4,0))` is the `0`.
///
/// ```
/// use const_layout::{make_layout, LayoutError};
/// let err = make_layout((8usize, (4usize, 0usize)), (1isize, 8isize)).unwrap_err();
/// assert_eq!(err, LayoutError::NonPositiveExtent { leaf: 2, value: 0 });
/// assert_eq!(err.to_string(), "shape integer 2 is 0: extents must be positive");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutError {
    /// A shape integer is zero or negative.
    NonPositiveExtent {
        /// Position of the integer in the flattened shape.
        leaf: usize,
        /// Its value.
        value: isize,
    },
    /// A runtime integer does not fit in `isize`.
    ValueOutOfRange {
        /// `"shape"`, `"stride"` or `"coordinate"`.
        part: &'static str,
        /// Position of the integer in the flattened tuple.
        leaf: usize,
    },
    /// The product of the shape does not fit in `isize`.
    SizeOverflow,
    /// The layout's largest offset (its cosize) does not fit in `isize`.
    CosizeOverflow,
    /// Expanding a scalar stride against a tuple mode (`(8,(4,2)):(1,8)`) overflows `isize`.
    StrideOverflow {
        /// Position of the stride integer in the flattened expanded stride.
        leaf: usize,
    },
    /// A result does not fit in the integer type the layout computes it in (for example a size of
    /// 2^32 with `u32` extents).
    TypeTooSmall {
        /// `"size"`, `"cosize"` or `"stride"`.
        what: &'static str,
        /// The value that did not fit.
        value: isize,
    },
    /// A coordinate is outside the shape (checked index math only).
    CoordinateOutOfRange {
        /// Position of the coordinate integer in the flattened coordinate.
        leaf: usize,
        /// Its value.
        value: isize,
        /// The extent it must be below.
        extent: isize,
    },
    /// An index is outside `0..size` (checked index math only).
    IndexOutOfRange {
        /// The index.
        index: isize,
        /// The layout's size.
        size: isize,
    },
    /// A shape and a stride (or coordinate) are not congruent (runtime-structured layouts only;
    /// typed layouts reject this at compile time).
    NotCongruent {
        /// What was being matched, for example `"stride"`.
        what: &'static str,
    },
    /// `shape_div` of two static integers neither of which divides the other (CuTe's
    /// "Divisibility Condition").
    NotDivisible {
        /// The dividend.
        a: isize,
        /// The divisor.
        b: isize,
    },
    /// A division by zero.
    DivisionByZero,
    /// A tuple has the wrong number of modes for the shape it is matched with (runtime-structured
    /// values only; typed ones do not compile).
    RankMismatch {
        /// What was matched: `"coordinate"`, `"stride"`, `"index"`, ...
        what: &'static str,
        /// Its rank.
        got: usize,
        /// The shape's rank.
        expected: usize,
    },
    /// A runtime-structured int tuple has more nodes than [`MAX_NODES`](crate::MAX_NODES), or its
    /// nodes take more than [`MAX_BYTES`](crate::MAX_BYTES) bytes (large integers take up to nine).
    TooLarge,
    /// A stride mixes plain integers with basis elements (`(4,8):(_1@0,2)`), or a basis with one
    /// inside it (`_1@1` next to `_1@0@1`).
    MixedBasis {
        /// Position of the offending stride integer.
        leaf: usize,
    },
    /// A shape integer scales a basis element: only strides may (`_1@0`).
    BasisExtent {
        /// Position of the integer in the flattened shape.
        leaf: usize,
    },
    /// An operation that needs integer strides got basis strides (`_1@0`); CuTe has no result
    /// there either (its complement, inverses and products do not take them).
    BasisStride {
        /// The operation, by its CuTe name.
        op: &'static str,
    },
    /// A layout-algebra operation whose CuTe result would not be the mathematical one, and which
    /// has no correct layout result (DECISIONS.md decision 2); see [`crate::algebra`].
    Inadmissible {
        /// The operation, by its CuTe name.
        op: &'static str,
        /// The failed condition, with its numbers.
        why: Inadmissible,
    },
    /// `Swizzle<bits, base, shift>` with `|shift| < bits` (CuTe's static assertion) or bits beyond 62.
    InvalidSwizzle {
        /// `BBits`.
        bits: u32,
        /// `MBase`.
        base: u32,
        /// `SShift`.
        shift: i32,
    },
    /// A mode index or range outside the layout's rank (`select`, `take`, `group`, `replace`, a
    /// tiler with more modes than the layout).
    ModeOutOfRange {
        /// The operation.
        op: &'static str,
        /// The offending index (or range end).
        index: usize,
        /// The rank.
        rank: usize,
    },
    /// An operation given operands of kinds (or a number) it does not take, through the table's
    /// dispatcher (`eval::apply_layout_op`); the evaluator checks its arguments first and
    /// reports them by position instead.
    Operands {
        /// The operation, by its CuTe name.
        op: &'static str,
    },
    /// An access that the bank or coalescing analysis cannot pose (`crate::f2::bank`,
    /// `crate::coalescing`): `what` names the quantity, `value` what was given.
    Access {
        /// The analysis: `"bank conflicts"` or `"coalescing"`.
        op: &'static str,
        /// The quantity and what it must be.
        what: &'static str,
        /// The value given.
        value: isize,
    },
    /// A layout that is not of the form an instruction's operand must have (a `wgmma` descriptor's
    /// canonical shared-memory layouts): `what` names the expected property, `value` what was found.
    NotCanonical {
        /// The operation.
        op: &'static str,
        /// The property that fails, with what it must be.
        what: &'static str,
        /// The value found.
        value: isize,
    },
    /// A tiled MMA whose tile in one of `M`, `N`, `K` (its permutation's size) is not a multiple of
    /// what one step of the atoms covers there (the atom's extent times its threads in that mode):
    /// CuTe would tile it anyway and give threads values outside the tile.
    TileNotDivisible {
        /// `"M"`, `"N"` or `"K"`.
        mode: &'static str,
        /// The tile's extent.
        tile: isize,
        /// The atom's extent times its threads in that mode.
        step: isize,
    },
    /// A runtime-structured value read into a typed one (text or a [`DynLayout`](crate::dyn_layout::DynLayout)
    /// into a `Layout<S, D>`) nests differently from the type.
    NotOfTypeStructure {
        /// `"shape"`, `"stride"`, ...
        part: &'static str,
    },
    /// An integer read into a typed value that its type cannot hold: a static integer of another
    /// value (`expected`), or a value outside a runtime integer type (`u32`, ...; `expected` is
    /// `None`).
    NotOfType {
        /// `"shape"`, `"stride"`, ...
        part: &'static str,
        /// Position of the integer in the flattened tuple.
        leaf: usize,
        /// Its value.
        value: isize,
        /// The static value the type has there, if the type's integer is static.
        expected: Option<isize>,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().as_str())
    }
}

impl LayoutError {
    /// The error's text, built in a `const fn`: a static layout's algebra runs in a constant, and
    /// its error is a compile-time panic with this text.
    ///
    /// ```
    /// use const_layout::LayoutError;
    /// let e = LayoutError::IndexOutOfRange { index: 9, size: 8 };
    /// assert_eq!(e.message().as_str(), "index 9 is outside 0..8");
    /// ```
    pub const fn message(&self) -> Message {
        let m = Message::new();
        match *self {
            LayoutError::NonPositiveExtent { leaf, value } => {
                m.text("shape integer ").num(leaf as isize).text(" is ").num(value).text(": extents must be positive")
            }
            LayoutError::ValueOutOfRange { part, leaf } => {
                m.text(part).text(" integer ").num(leaf as isize).text(" does not fit in isize")
            }
            LayoutError::SizeOverflow => m.text("the size of the shape overflows isize"),
            LayoutError::CosizeOverflow => m.text("the cosize of the layout overflows isize"),
            LayoutError::StrideOverflow { leaf } => {
                m.text("expanding the scalar stride overflows isize at stride integer ").num(leaf as isize)
            }
            LayoutError::TypeTooSmall { what, value } => {
                m.text("the ").text(what).text(" ").num(value).text(" does not fit in the layout's integer type")
            }
            LayoutError::CoordinateOutOfRange { leaf, value, extent } => m
                .text("coordinate integer ")
                .num(leaf as isize)
                .text(" is ")
                .num(value)
                .text(", outside 0..")
                .num(extent),
            LayoutError::IndexOutOfRange { index, size } => {
                m.text("index ").num(index).text(" is outside 0..").num(size)
            }
            LayoutError::NotCongruent { what } => m.text("the ").text(what).text(" is not congruent with the shape"),
            LayoutError::NotDivisible { a, b } => m
                .text("shape_div of static ")
                .num(a)
                .text(" by static ")
                .num(b)
                .text(": neither divides the other"),
            LayoutError::DivisionByZero => m.text("division by zero"),
            LayoutError::RankMismatch { what, got, expected } => m
                .text("the ")
                .text(what)
                .text(" has rank ")
                .num(got as isize)
                .text(" but the shape has rank ")
                .num(expected as isize),
            LayoutError::MixedBasis { leaf } => m.text("stride integer ").num(leaf as isize).text(
                " does not fit its neighbours: a stride's integers are all plain or all basis elements (`_1@0`), and no basis lies inside another",
            ),
            LayoutError::BasisExtent { leaf } => m
                .text("shape integer ")
                .num(leaf as isize)
                .text(" scales a basis element: only strides may (`_1@0`)"),
            LayoutError::BasisStride { op } => m.text(op).text(" needs integer strides, not basis elements (`_1@0`)"),
            LayoutError::Inadmissible { op, why } => why.write_to(m.text(op).text(": ")),
            LayoutError::InvalidSwizzle { bits, base, shift } => m
                .text("Sw<")
                .num(bits as isize)
                .text(",")
                .num(base as isize)
                .text(",")
                .num(shift as isize)
                .text("> is not a swizzle: |S| must be at least B and B+M+|S| at most 62"),
            LayoutError::ModeOutOfRange { op, index, rank } => m
                .text(op)
                .text(": mode ")
                .num(index as isize)
                .text(" is out of range for rank ")
                .num(rank as isize),
            LayoutError::Operands { op } => m.text(op).text(": operands of kinds it does not take"),
            LayoutError::Access { op, what, value } => m.text(op).text(": ").text(what).text(": ").num(value),
            LayoutError::NotCanonical { op, what, value } => {
                m.text(op).text(": not a canonical layout: ").text(what).text(" is ").num(value)
            }
            LayoutError::TileNotDivisible { mode, tile, step } => m
                .text("make_tiled_mma: the tile of ")
                .text(mode)
                .text(" (")
                .num(tile)
                .text(") is not a multiple of the atoms' ")
                .text(mode)
                .text(" (")
                .num(step)
                .text(")"),
            LayoutError::NotOfTypeStructure { part } => {
                m.text("the ").text(part).text(" nests differently from the type's")
            }
            LayoutError::NotOfType { part, leaf, value, expected: Some(e) } => m
                .text(part)
                .text(" integer ")
                .num(leaf as isize)
                .text(" is ")
                .num(value)
                .text(" where the type has the static _")
                .num(e),
            LayoutError::NotOfType { part, leaf, value, expected: None } => m
                .text(part)
                .text(" integer ")
                .num(leaf as isize)
                .text(" is ")
                .num(value)
                .text(", outside the type's integer type"),
            LayoutError::TooLarge => {
                m.text("more than ")
                    .num(crate::MAX_NODES as isize)
                    .text(" nodes or ")
                    .num(crate::MAX_BYTES as isize)
                    .text(" bytes of encoding in one int tuple")
            }
        }
    }
}

/// A message built in a `const fn`: a fixed buffer of [`Message::CAPACITY`] bytes (longer text is
/// cut at a character boundary). `Display` cannot run in constants; this can.
///
/// ```
/// use const_layout::error::Message;
/// const M: Message = Message::new().text("extent ").num(-12);
/// assert_eq!(M.as_str(), "extent -12");
/// ```
#[derive(Clone, Copy)]
pub struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    /// The most bytes a message holds.
    pub const CAPACITY: usize = 320;

    /// An empty message.
    pub const fn new() -> Self {
        Message { buf: [0; Message::CAPACITY], len: 0 }
    }

    /// Append `s` (whole characters only, up to the capacity).
    pub const fn text(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut k = 0;
        while k < b.len() && self.len < Message::CAPACITY {
            // Stop before a character that would not fit whole (UTF-8 continuation bytes are
            // 0b10xxxxxx; a lead byte says how many follow).
            let width = if b[k] < 0x80 {
                1
            } else if b[k] >= 0xF0 {
                4
            } else if b[k] >= 0xE0 {
                3
            } else {
                2
            };
            if self.len + width > Message::CAPACITY {
                break;
            }
            let mut j = 0;
            while j < width && k < b.len() {
                self.buf[self.len] = b[k];
                self.len += 1;
                k += 1;
                j += 1;
            }
        }
        self
    }

    /// Append `v` in decimal.
    pub const fn num(mut self, v: isize) -> Self {
        if v < 0 {
            self = self.text("-");
        }
        let mut u = v.unsigned_abs();
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (u % 10) as u8;
            n += 1;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        while n > 0 && self.len < Message::CAPACITY {
            n -= 1;
            self.buf[self.len] = digits[n];
            self.len += 1;
        }
        self
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            // Only whole characters are ever written.
            Err(_) => "",
        }
    }
}

impl Default for Message {
    fn default() -> Self {
        Message::new()
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::error::Error for LayoutError {}
