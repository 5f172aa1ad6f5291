//! Pictures of layouts: CuTe's `print_latex` (TikZ) and SVG drawings of layouts, thread-value
//! layouts and swizzles.
//!
//! Every picture is a `Display` adapter, like [`PrintLayout`](crate::dyn_layout::PrintLayout): the
//! function checks its input and returns the adapter or a [`PictureError`], and the adapter writes
//! the text through `core::fmt` (no heap, deterministic output).
//!
//! | function | draws | format |
//! |---|---|---|
//! | [`print_latex`], [`print_latex_composed`] | a layout of rank <= 2: offsets, greyscale by offset | CuTe's `print_latex(layout)`, byte for byte |
//! | [`print_latex_tv`] | a `(thread, value) -> index` layout over an `(M,N)` tile | CuTe's `print_latex_tv`, byte for byte |
//! | [`print_svg`] | a layout of rank <= 2 (rank 1 as one row): offsets, coloured by offset | SVG 1.1 |
//! | [`print_svg_tv`] | a thread-value layout: `T{t}` over `V{v}`, coloured by thread | SVG 1.1 |
//! | [`print_svg_swizzle`] | a composed (swizzled) layout: offsets, coloured by bank group | SVG 1.1 |
//! | [`print_layout`] | a layout of rank 2: offsets in a table | CuTe's `print_layout` |
//!
//! Every function takes any [`AnyLayout`]: a typed [`Layout`](crate::Layout), a static algebra
//! result, a swizzled layout, a [`DynLayout`] or a [`ComposedLayout`]; the picture is that of
//! its runtime-structured form ([`AnyLayout::to_dyn`]), which prints the same. The thread-value
//! pictures need a plain layout.
//!
//! A nested mode is enumerated 1-D (colexicographically), as `print_layout` does: cell `(m,n)` of
//! a rank-2 layout shows `L(m,n)` with `m` in `0..size<0>(L)` and `n` in `0..size<1>(L)`.
//! Pictures have at most [`MAX_CELLS`] cells.
//!
//! ```
//! use const_layout::dyn_layout::DynLayout;
//! use const_layout::picture::{print_latex, print_svg};
//! let l: DynLayout = "(_2,_3):(_3,_1)".parse().unwrap();
//! let tex = print_latex(&l).unwrap().to_string();
//! assert!(tex.starts_with("% Layout: (_2,_3):(_3,_1)\n\\documentclass[convert]{standalone}\n"));
//! assert!(tex.contains("\\node[fill=black!60] at (1,0) {3};\n"));
//! let svg = print_svg(&l).unwrap().to_string();
//! assert!(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
//! assert_eq!(svg.matches("<rect").count(), 1 + 6); // the background and six cells
//! ```

mod latex;
mod svg;
mod text;

pub use latex::{PrintLatex, PrintLatexTv, print_latex, print_latex_composed, print_latex_tv};
pub use svg::{
    PrintSvg, PrintSvgSwizzle, PrintSvgTv, PrintSvgValues, hue, print_svg, print_svg_swizzle, print_svg_tv,
    print_svg_values,
};
pub use text::{PrintLayoutAny, print_layout};

use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::error::LayoutError;
use crate::layout::{AnyLayout, DynAnyLayout};
use crate::swizzle::{ComposedLayout, Outer};
use core::fmt;

/// The largest number of cells a picture draws (a 128 x 128 tile).
///
/// ```
/// use const_layout::picture::{MAX_CELLS, print_svg};
/// let big: const_layout::dyn_layout::DynLayout = "(_256,_128):(_1,_256)".parse().unwrap();
/// assert_eq!(print_svg(&big).unwrap_err().to_string(),
///     format!("the layout has 32768 cells; a picture draws at most {MAX_CELLS}"));
/// ```
pub const MAX_CELLS: isize = 16384;

/// Why a picture cannot be drawn.
///
/// ```
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::picture::{PictureError, print_latex};
/// let l: DynLayout = "(2,3,4):(1,2,6)".parse().unwrap();
/// let e = print_latex(&l).unwrap_err();
/// assert_eq!(e, PictureError::Rank { what: "the layout", rank: 3, allowed: "at most 2" });
/// assert_eq!(e.to_string(), "the layout has rank 3; a picture needs rank at most 2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PictureError {
    /// A layout or tile of a rank the picture cannot draw.
    Rank {
        /// What has the rank (`"the layout"`, `"the TV layout"`, `"the tile"`).
        what: &'static str,
        /// Its rank.
        rank: usize,
        /// The ranks allowed, in words (`"at most 2"`, `"2"`).
        allowed: &'static str,
    },
    /// The layout has basis strides (`_1@0`): its values are coordinates, not offsets.
    BasisStrides {
        /// What has them.
        what: &'static str,
    },
    /// More cells than [`MAX_CELLS`].
    TooLarge {
        /// What is too large (`"the layout"`, `"the tile"`, `"the TV layout"`).
        what: &'static str,
        /// Its number of cells (elements).
        cells: isize,
        /// The limit.
        max: isize,
    },
    /// A `(thread, value)` pair of a TV layout maps outside its tile.
    OutsideTile {
        /// The thread.
        thread: isize,
        /// The value.
        value: isize,
        /// The index it maps to.
        index: isize,
        /// The number of cells of the tile (`M * N`).
        cells: isize,
    },
    /// Bank groups of a swizzle picture must have a positive unit and count.
    BankGroups {
        /// Offsets per group.
        unit: isize,
        /// Number of groups.
        count: isize,
    },
    /// The layout library refused an operation the picture needs.
    Layout(LayoutError),
    /// A picture that needs a plain layout got a swizzled or composed one.
    NotPlain {
        /// What is composed (`"the TV layout"`).
        what: &'static str,
    },
    /// A table of values ([`print_svg_values`]) that does not fill whole columns of its rows.
    Grid {
        /// The number of values.
        cells: isize,
        /// The rows asked for.
        rows: isize,
    },
}

impl fmt::Display for PictureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PictureError::Rank { what, rank, allowed } => {
                write!(f, "{what} has rank {rank}; a picture needs rank {allowed}")
            }
            PictureError::BasisStrides { what } => write!(
                f,
                "{what} has basis strides (its values are coordinates, not offsets); a picture needs integer strides"
            ),
            PictureError::TooLarge { what, cells, max } => {
                write!(f, "{what} has {cells} cells; a picture draws at most {max}")
            }
            PictureError::OutsideTile { thread, value, index, cells } => write!(
                f,
                "thread {thread}, value {value} maps to index {index}, outside the tile's {cells} cells"
            ),
            PictureError::BankGroups { unit, count } => {
                write!(f, "bank groups need a positive unit and count, got unit {unit} and count {count}")
            }
            PictureError::Layout(e) => write!(f, "{e}"),
            PictureError::NotPlain { what } => {
                write!(f, "{what} is a swizzled or composed layout; this picture needs a plain layout")
            }
            PictureError::Grid { cells, rows } => {
                write!(f, "{cells} values do not fill whole columns of {rows} rows")
            }
        }
    }
}

impl core::error::Error for PictureError {}

impl From<LayoutError> for PictureError {
    /// ```
    /// use const_layout::LayoutError;
    /// use const_layout::picture::PictureError;
    /// assert_eq!(PictureError::from(LayoutError::TooLarge), PictureError::Layout(LayoutError::TooLarge));
    /// ```
    fn from(e: LayoutError) -> Self {
        PictureError::Layout(e)
    }
}

/// The borrowed function of a runtime-structured layout of any kind.
fn func(l: &DynAnyLayout) -> Func<'_> {
    match l {
        DynAnyLayout::Layout(l) => Func::Layout(l),
        DynAnyLayout::Composed(c) => Func::Composed(c),
    }
}

/// The plain runtime-structured layout of `layout`, or [`PictureError::NotPlain`].
fn plain<L: AnyLayout>(layout: &L, what: &'static str) -> Result<DynLayout, PictureError> {
    match layout.to_dyn()? {
        DynAnyLayout::Layout(l) => Ok(l),
        DynAnyLayout::Composed(_) => Err(PictureError::NotPlain { what }),
    }
}

/// A function from a 1-D index to an offset: a layout or a composed layout.
#[derive(Clone, Copy, Debug)]
enum Func<'a> {
    Layout(&'a DynLayout),
    Composed(&'a ComposedLayout),
}

impl Func<'_> {
    fn domain(&self) -> &DynLayout {
        match self {
            Func::Layout(l) => l,
            Func::Composed(c) => c.inner(),
        }
    }

    fn at(&self, i: isize) -> isize {
        match self {
            Func::Layout(l) => l.offset(i),
            Func::Composed(c) => c.offset(i),
        }
    }

    /// Whether any layout in the function has basis strides.
    fn has_basis(&self) -> bool {
        match self {
            Func::Layout(l) => l.has_basis(),
            Func::Composed(c) => {
                c.inner().has_basis() || matches!(c.outer(), Outer::Layout(o) if o.has_basis())
            }
        }
    }
}

/// The grid of a layout of rank <= 2 in CuTe's `print_latex` orientation: `(size<0>, size<1>)`,
/// a rank-1 layout a column `(size, 1)` (CuTe appends `_1:_0`). Cell `(m,n)` is index `m + n*M`.
fn grid(func: Func<'_>, what: &'static str) -> Result<(isize, isize), PictureError> {
    let l = func.domain();
    if func.has_basis() {
        return Err(PictureError::BasisStrides { what });
    }
    let size = l.size().value;
    if size > MAX_CELLS {
        return Err(PictureError::TooLarge { what, cells: size, max: MAX_CELLS });
    }
    match l.rank() {
        0 => Ok((1, 1)),
        1 => Ok((size, 1)),
        2 => Ok((mode_size(l.shape(), 0)?, mode_size(l.shape(), 1)?)),
        rank => Err(PictureError::Rank { what, rank, allowed: "at most 2" }),
    }
}

fn mode_size(t: &DynIntTuple, i: usize) -> Result<isize, PictureError> {
    let m = t.mode(i).ok_or(PictureError::Layout(LayoutError::TooLarge))?;
    Ok(m.size()?.value)
}

/// The checked parts of a thread-value picture.
#[derive(Clone, Copy, Debug)]
struct Tv {
    /// Tile extents `(M, N)` (`product_each(tile)`).
    m: isize,
    n: isize,
    /// `size<0>(tv)`, `size<1>(tv)`.
    threads: isize,
    values: isize,
}

impl Tv {
    fn new(tv: &DynLayout, tile: &DynIntTuple) -> Result<Tv, PictureError> {
        if tv.has_basis() {
            return Err(PictureError::BasisStrides { what: "the TV layout" });
        }
        if tv.rank() != 2 || tv.shape().is_int() {
            return Err(PictureError::Rank { what: "the TV layout", rank: tv.rank(), allowed: "2" });
        }
        if tile.rank() != 2 || tile.is_int() || tile.has_basis() {
            return Err(PictureError::Rank { what: "the tile", rank: tile.rank(), allowed: "2" });
        }
        let (m, n) = (mode_size(tile, 0)?, mode_size(tile, 1)?);
        let cells = m.checked_mul(n).ok_or(LayoutError::SizeOverflow)?;
        if cells > MAX_CELLS {
            return Err(PictureError::TooLarge { what: "the tile", cells, max: MAX_CELLS });
        }
        let size = tv.size().value;
        if size > MAX_CELLS {
            return Err(PictureError::TooLarge { what: "the TV layout", cells: size, max: MAX_CELLS });
        }
        let (threads, values) = (mode_size(tv.shape(), 0)?, mode_size(tv.shape(), 1)?);
        let this = Tv { m, n, threads, values };
        for t in 0..threads {
            for v in 0..values {
                let index = tv.offset(t + v * threads);
                if !(0..cells).contains(&index) {
                    return Err(PictureError::OutsideTile { thread: t, value: v, index, cells });
                }
            }
        }
        Ok(this)
    }

    /// Every `(thread, value, m, n)` in CuTe's order (threads outer, values inner), each cell
    /// only the first time it is reached (CuTe's `filled` tensor).
    fn for_each_first(
        &self,
        tv: &DynLayout,
        mut f: impl FnMut(isize, isize, isize, isize) -> fmt::Result,
    ) -> fmt::Result {
        let mut filled = Cells::new();
        for t in 0..self.threads {
            for v in 0..self.values {
                let index = tv.offset(t + v * self.threads);
                if filled.insert(index) {
                    f(t, v, index % self.m, index / self.m)?;
                }
            }
        }
        Ok(())
    }

    /// The cells some `(thread, value)` reaches.
    fn covered(&self, tv: &DynLayout) -> Cells {
        let mut filled = Cells::new();
        for i in 0..self.threads * self.values {
            filled.insert(tv.offset(i));
        }
        filled
    }
}

/// A set of cell indices below [`MAX_CELLS`] (on the stack: 2 KiB).
struct Cells([u64; MAX_CELLS as usize / 64]);

impl Cells {
    fn new() -> Self {
        Cells([0; MAX_CELLS as usize / 64])
    }

    /// Adds `i`; whether it was new.
    fn insert(&mut self, i: isize) -> bool {
        let (w, b) = (i as usize / 64, i as usize % 64);
        let new = self.0[w] & (1 << b) == 0;
        self.0[w] |= 1 << b;
        new
    }

    fn contains(&self, i: isize) -> bool {
        self.0[i as usize / 64] & (1 << (i as usize % 64)) != 0
    }
}

/// CuTe's `append<2>(layout, Layout<_1,_0>{})`, which `print_latex` prints as its comment.
fn append2(l: &DynLayout) -> DynLayout {
    crate::algebra::append_to(l, 2).unwrap_or(*l)
}
