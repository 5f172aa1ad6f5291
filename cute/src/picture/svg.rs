//! SVG pictures: a layout, a thread-value layout and a swizzle, as standalone SVG 1.1 documents.
//!
//! The drawing follows CuTe's `print_svg` (cute/util/print_svg.hpp, which draws MMA atoms): one
//! `rect` per cell with a black stroke and an `rgb(...)` fill from CuTe's palettes, the cell's text
//! centred in it, row indices on the left and column indices on top. Sizes are whole pixels, text
//! is monospace, and the output is deterministic.

use super::{Func, PictureError, Tv, func, grid, plain};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::layout::{AnyLayout, DynAnyLayout};
use crate::swizzle::Outer;
use core::fmt::{self, Write as _};
use core::marker::PhantomData;

/// CuTe's `SVGColor_TV`: eight pastels (by thread in TV pictures, by offset in layout pictures).
const TV_X8: [(u8, u8, u8); 8] = [
    (175, 175, 255),
    (175, 255, 175),
    (255, 255, 175),
    (255, 175, 175),
    (210, 210, 255),
    (210, 255, 210),
    (255, 255, 210),
    (255, 210, 210),
];

const WHITE: (u8, u8, u8) = (255, 255, 255);
/// Margin around everything.
const PAD: i64 = 4;
/// Height of the column-index row on top.
const TOP: i64 = 20;
/// Height of the caption line below the grid.
const CAPTION: i64 = 24;
/// Approximate advance of one monospace character at font size 10.
const CHAR: i64 = 6;

/// `k`-th of `count` pastel colours evenly spaced around the hue circle (saturation and value
/// chosen so black text stays readable): the palette of the bank pictures.
///
/// ```
/// assert_eq!(const_layout::picture::hue(0, 6), (255, 150, 150));
/// ```
pub fn hue(k: i64, count: i64) -> (u8, u8, u8) {
    let h = k.rem_euclid(count) * 1536 / count;
    let (sector, frac) = (h / 256, h % 256);
    let (lo, hi) = (150i64, 255i64);
    let up = lo + (hi - lo) * frac / 256;
    let down = hi - (hi - lo) * frac / 256;
    let (r, g, b) = match sector {
        0 => (hi, up, lo),
        1 => (down, hi, lo),
        2 => (lo, hi, up),
        3 => (lo, down, hi),
        4 => (up, lo, hi),
        _ => (hi, lo, down),
    };
    (r as u8, g as u8, b as u8)
}

/// Characters in the text of `d`.
fn text_len(d: &dyn fmt::Display) -> i64 {
    struct Count(i64);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.chars().count() as i64;
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = write!(c, "{d}");
    c.0
}

/// Writes through to a formatter, escaping XML's special characters.
struct Escape<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl fmt::Write for Escape<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(k) = rest.find(['&', '<', '>', '"', '\'']) {
            self.0.write_str(&rest[..k])?;
            self.0.write_str(match rest.as_bytes()[k] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&apos;",
            })?;
            rest = &rest[k + 1..];
        }
        self.0.write_str(rest)
    }
}

/// The frame shared by the three pictures: a grid of `rows x cols` cells of `cw x ch` pixels.
struct Frame {
    rows: i64,
    cols: i64,
    cw: i64,
    ch: i64,
    /// Width of the row-index column.
    lw: i64,
    width: i64,
    height: i64,
}

impl Frame {
    fn new(rows: isize, cols: isize, label_chars: i64, ch: i64, caption_chars: i64) -> Frame {
        let (rows, cols) = (rows as i64, cols as i64);
        let cw = (CHAR * label_chars + 10).max(24);
        let lw = CHAR * text_len(&(rows - 1)).max(1) + 12;
        let width = (PAD + lw + cols * cw + PAD).max(2 * PAD + CHAR * caption_chars);
        let height = PAD + TOP + rows * ch + CAPTION + PAD;
        Frame { rows, cols, cw, ch, lw, width, height }
    }

    /// Top-left corner of cell `(m, n)`.
    fn cell(&self, m: i64, n: i64) -> (i64, i64) {
        (PAD + self.lw + n * self.cw, PAD + TOP + m * self.ch)
    }

    fn header(&self, f: &mut fmt::Formatter<'_>, title: &dyn fmt::Display) -> fmt::Result {
        let (w, h) = (self.width, self.height);
        f.write_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
        writeln!(
            f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
        )?;
        f.write_str("<title>")?;
        write!(Escape(f), "{title}")?;
        f.write_str("</title>\n")?;
        writeln!(f, "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"rgb(255,255,255)\"/>")?;
        f.write_str("<g stroke=\"black\" stroke-width=\"1\">\n")
    }

    fn rect(&self, f: &mut fmt::Formatter<'_>, m: i64, n: i64, (r, g, b): (u8, u8, u8)) -> fmt::Result {
        let (x, y) = self.cell(m, n);
        writeln!(
            f,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"rgb({r},{g},{b})\"/>",
            self.cw, self.ch
        )
    }

    /// Ends the cells and opens the group of cell texts.
    fn begin_text(&self, f: &mut fmt::Formatter<'_>, size: u32) -> fmt::Result {
        f.write_str("</g>\n")?;
        writeln!(
            f,
            "<g font-family=\"monospace\" font-size=\"{size}\" text-anchor=\"middle\" fill=\"black\">"
        )
    }

    /// A text centred horizontally in cell `(m, n)`, its middle `quarter` quarters of the
    /// height down.
    fn text(
        &self,
        f: &mut fmt::Formatter<'_>,
        m: i64,
        n: i64,
        quarter: i64,
        t: &dyn fmt::Display,
    ) -> fmt::Result {
        let (x, y) = self.cell(m, n);
        writeln!(f, "<text x=\"{}\" y=\"{}\">{t}</text>", x + self.cw / 2, y + self.ch * quarter / 4 + 3)
    }

    /// Ends the cell texts; the row and column indices, the caption and the end of the document.
    fn footer(&self, f: &mut fmt::Formatter<'_>, caption: &dyn fmt::Display) -> fmt::Result {
        f.write_str("</g>\n")?;
        f.write_str(
            "<g font-family=\"monospace\" font-size=\"10\" text-anchor=\"middle\" fill=\"rgb(80,80,80)\">\n",
        )?;
        for m in 0..self.rows {
            let (_, y) = self.cell(m, 0);
            writeln!(f, "<text x=\"{}\" y=\"{}\">{m}</text>", PAD + self.lw / 2, y + self.ch / 2 + 3)?;
        }
        for n in 0..self.cols {
            let (x, _) = self.cell(0, n);
            writeln!(f, "<text x=\"{}\" y=\"{}\">{n}</text>", x + self.cw / 2, PAD + TOP / 2 + 3)?;
        }
        f.write_str("</g>\n")?;
        let y = PAD + TOP + self.rows * self.ch + CAPTION / 2 + 3;
        write!(f, "<text x=\"{PAD}\" y=\"{y}\" font-family=\"monospace\" font-size=\"10\" fill=\"black\">")?;
        write!(Escape(f), "{caption}")?;
        f.write_str("</text>\n</svg>\n")
    }
}

/// Cell `(m, n)` of a layout picture in SVG orientation: rank 2 as `(size<0>, size<1>)`, rank 0
/// or 1 as one row.
#[derive(Clone, Copy, Debug)]
struct CellGrid {
    rows: isize,
    cols: isize,
    /// Rank 2: index `m + n*rows`; otherwise index `n`.
    rank2: bool,
}

impl CellGrid {
    fn new(func: Func<'_>) -> Result<CellGrid, PictureError> {
        let (m, n) = grid(func, "the layout")?;
        let rank2 = func.domain().rank() == 2;
        Ok(if rank2 {
            CellGrid { rows: m, cols: n, rank2 }
        } else {
            CellGrid { rows: 1, cols: m * n, rank2 }
        })
    }

    fn index(&self, m: isize, n: isize) -> isize {
        if self.rank2 { m + n * self.rows } else { n }
    }

    /// Characters of the longest offset.
    fn label_chars(&self, func: Func<'_>) -> i64 {
        (0..self.rows * self.cols).map(|i| text_len(&func.at(i))).max().unwrap_or(1)
    }
}

/// An SVG picture of a layout of rank at most 2: cell `(m,n)` shows `L(m,n)` (nested modes indexed
/// 1-D, as in `print_layout`) on CuTe's pastel for the offset modulo 8 (`SVGColor_TV`'s eight
/// colours); a rank-0 or rank-1 layout is one row. Row indices on the left, column indices on top,
/// the layout's text as the title and the caption.
///
/// `layout` is any [`AnyLayout`]; a swizzled or composed one shows its composed offsets (see
/// [`print_svg_swizzle`] for bank-group colours).
///
/// `Err` for rank above 2, basis strides, or more than [`MAX_CELLS`](super::MAX_CELLS) cells.
///
/// ```
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::picture::print_svg;
/// let typed = print_svg(&const_layout::layout!((2,3):(3,1))).unwrap().to_string();
/// let l: DynLayout = "(_2,_3):(_3,_1)".parse().unwrap();
/// let svg = print_svg(&l).unwrap().to_string();
/// assert!(svg.contains("viewBox=\"0 0 "));
/// assert!(svg.contains("<text x=\"34\" y=\"63\">3</text>")); // L(1,0) = 3
/// assert!(svg.contains("fill=\"rgb(255,175,175)\"")); // offset 3: CuTe's fourth colour
/// assert_eq!(svg, typed);
/// let row: DynLayout = "_8:_2".parse().unwrap();
/// assert_eq!(print_svg(&row).unwrap().to_string().matches("<rect").count(), 1 + 8);
/// ```
pub fn print_svg<L: AnyLayout>(layout: &L) -> Result<PrintSvg<'_>, PictureError> {
    let layout = layout.to_dyn()?;
    let cells = CellGrid::new(func(&layout))?;
    Ok(PrintSvg { label_chars: cells.label_chars(func(&layout)), layout, cells, borrow: PhantomData })
}

/// Display adapter for [`print_svg`]: the SVG document.
///
/// ```
/// use const_layout::picture::print_svg;
/// let l: const_layout::dyn_layout::DynLayout = "(4,2):(2,1)".parse().unwrap();
/// let svg = print_svg(&l).unwrap().to_string();
/// assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
/// assert!(svg.ends_with("</svg>\n"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintSvg<'a> {
    layout: DynAnyLayout,
    cells: CellGrid,
    label_chars: i64,
    borrow: PhantomData<&'a ()>,
}

impl fmt::Display for PrintSvg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (func, c) = (func(&self.layout), self.cells);
        let frame = Frame::new(c.rows, c.cols, self.label_chars, 24, text_len(&self.layout));
        frame.header(f, &format_args!("Layout: {}", self.layout))?;
        for m in 0..c.rows {
            for n in 0..c.cols {
                let v = func.at(c.index(m, n));
                frame.rect(f, m as i64, n as i64, TV_X8[v.rem_euclid(8) as usize])?;
            }
        }
        frame.begin_text(f, 10)?;
        for m in 0..c.rows {
            for n in 0..c.cols {
                frame.text(f, m as i64, n as i64, 2, &func.at(c.index(m, n)))?;
            }
        }
        frame.footer(f, &self.layout)
    }
}

/// An SVG picture of a thread-value layout, as CuTe's `print_latex_tv` draws it: the `(M,N)` tile
/// (`M`, `N` the sizes of `tile_mn`'s modes), each cell a `(thread, value)` pair reaches showing
/// `T{thread}` over `V{value}` (two texts, as CuTe's `print_svg` writes them) on CuTe's colour of
/// the thread (`SVGColor_TV`, thread modulo 8). A cell reached twice shows the first pair (threads
/// outer, values inner); a cell never reached is white and blank.
///
/// `layout_tv` maps `(thread, value)` to a cell's index `m + n*M`, as
/// [`make_layout_tv`](crate::algebra::make_layout_tv) returns it. The same errors as
/// [`print_latex_tv`](super::print_latex_tv).
///
/// ```
/// use const_layout::algebra::make_layout_tv;
/// use const_layout::picture::print_svg_tv;
/// let (tile, tv) = make_layout_tv(&"(_4,_2):(_2,_1)".parse().unwrap(), &"(_2,_2):(_1,_2)".parse().unwrap()).unwrap();
/// let svg = print_svg_tv(&tv, &tile).unwrap().to_string();
/// assert_eq!(svg.matches("<rect").count(), 1 + 32);
/// assert!(svg.contains(">T7</text>") && svg.contains(">V3</text>"));
/// assert!(svg.contains("fill=\"rgb(255,210,210)\"")); // thread 7
/// ```
pub fn print_svg_tv<'a, L: AnyLayout>(
    layout_tv: &'a L,
    tile_mn: &'a DynIntTuple,
) -> Result<PrintSvgTv<'a>, PictureError> {
    let layout_tv = plain(layout_tv, "the TV layout")?;
    let tv = Tv::new(&layout_tv, tile_mn)?;
    Ok(PrintSvgTv { layout_tv, tile_mn, tv })
}

/// Display adapter for [`print_svg_tv`]: the SVG document.
///
/// ```
/// use const_layout::picture::print_svg_tv;
/// // One thread holding the first of two cells: the second stays white.
/// let tv: const_layout::dyn_layout::DynLayout = "(_1,_1):(_0,_0)".parse().unwrap();
/// let svg = print_svg_tv(&tv, &"(_1,_2)".parse().unwrap()).unwrap().to_string();
/// assert_eq!(svg.matches("fill=\"rgb(255,255,255)\"").count(), 2); // background and cell (0,1)
/// assert_eq!(svg.matches(">T0</text>").count(), 1);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintSvgTv<'a> {
    layout_tv: DynLayout,
    tile_mn: &'a DynIntTuple,
    tv: Tv,
}

impl PrintSvgTv<'_> {
    fn frame(&self) -> Frame {
        let chars = text_len(&format_args!("T{}", self.tv.threads - 1))
            .max(text_len(&format_args!("V{}", self.tv.values - 1)));
        Frame::new(self.tv.m, self.tv.n, chars, 28, text_len(&self.caption()))
    }

    fn caption(&self) -> impl fmt::Display + '_ {
        TvCaption(&self.layout_tv, self.tile_mn)
    }
}

struct TvCaption<'a>(&'a DynLayout, &'a DynIntTuple);

impl fmt::Display for TvCaption<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout TV: {}  Tile: {}", self.0, self.1)
    }
}

impl fmt::Display for PrintSvgTv<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let frame = self.frame();
        let (tv, m) = (self.tv, self.tv.m);
        frame.header(f, &self.caption())?;
        let covered = tv.covered(&self.layout_tv);
        for i in 0..tv.m * tv.n {
            if !covered.contains(i) {
                frame.rect(f, (i % m) as i64, (i / m) as i64, WHITE)?;
            }
        }
        tv.for_each_first(&self.layout_tv, |t, _, m, n| {
            frame.rect(f, m as i64, n as i64, TV_X8[(t % 8) as usize])
        })?;
        frame.begin_text(f, 9)?;
        tv.for_each_first(&self.layout_tv, |t, v, m, n| {
            frame.text(f, m as i64, n as i64, 1, &format_args!("T{t}"))?;
            frame.text(f, m as i64, n as i64, 3, &format_args!("V{v}"))
        })?;
        frame.footer(f, &self.caption())
    }
}

/// An SVG picture of a swizzled (composed) layout: cell `(m,n)` shows the composed offset
/// `Sw(offset + L(m,n))`, coloured by its bank group `(offset / unit) mod count`, so that cells
/// sharing a colour in one column (or whatever set of cells is accessed together) hit the same
/// group of banks. By default the groups are the swizzle's: `Sw<B,M,S>` permutes units of `2^M`
/// offsets among `2^B` positions, so `unit = 2^M`, `count = 2^B` (for `Sw<3,3,3>` on 2-byte
/// elements: 16-byte chunks, eight per 128-byte row of banks); for a layout outer function, unit 1
/// and count 8. [`PrintSvgSwizzle::bank_groups`] chooses others. Colours are `count` pastels evenly
/// spaced around the hue circle. The layout is drawn as in [`print_svg`] (rank 1 as one row).
///
/// `layout` is any [`AnyLayout`]: a typed [`SwizzledLayout`](crate::layout::SwizzledLayout) or
/// [`StaticSwizzled`](crate::algebra::computed::StaticSwizzled) as well as a
/// [`ComposedLayout`](crate::swizzle::ComposedLayout);
/// a plain layout is coloured as a layout outer function is.
///
/// ```
/// use const_layout::picture::print_svg_swizzle;
/// use const_layout::swizzle::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(2, 0, 2).unwrap(), "(_4,_4):(_4,_1)".parse().unwrap());
/// let svg = print_svg_swizzle(&c).unwrap().to_string();
/// assert!(svg.contains("<title>Sw&lt;2,0,2&gt; o _0 o (_4,_4):(_4,_1)"));
/// assert!(svg.contains("bank group (offset / 1) mod 4"));
/// // Column 0 holds offsets 0, 5, 10, 15: four different bank groups, four colours.
/// assert!(svg.contains(">15</text>"));
/// ```
pub fn print_svg_swizzle<L: AnyLayout>(layout: &L) -> Result<PrintSvgSwizzle<'_>, PictureError> {
    let layout = layout.to_dyn()?;
    let cells = CellGrid::new(func(&layout))?;
    let (unit, count) = match &layout {
        DynAnyLayout::Composed(c) => match c.outer() {
            Outer::Swizzle(s) => (1isize << s.base(), 1isize << s.bits()),
            Outer::Layout(_) => (1, 8),
        },
        DynAnyLayout::Layout(_) => (1, 8),
    };
    let label_chars = cells.label_chars(func(&layout));
    Ok(PrintSvgSwizzle { layout, cells, label_chars, unit, count, borrow: PhantomData })
}

/// Display adapter for [`print_svg_swizzle`]: the SVG document.
///
/// ```
/// use const_layout::picture::print_svg_swizzle;
/// use const_layout::swizzle::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "_4:_1".parse().unwrap());
/// let svg = print_svg_swizzle(&c).unwrap().to_string();
/// assert_eq!(svg.matches("<rect").count(), 1 + 4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintSvgSwizzle<'a> {
    layout: DynAnyLayout,
    cells: CellGrid,
    label_chars: i64,
    unit: isize,
    count: isize,
    borrow: PhantomData<&'a ()>,
}

impl<'a> PrintSvgSwizzle<'a> {
    /// Colour by `(offset / unit) mod count` instead of the swizzle's groups; for example 32 banks
    /// of 4-byte words with 2-byte elements: `bank_groups(2, 32)`. `Err` unless both are positive.
    ///
    /// ```
    /// use const_layout::picture::print_svg_swizzle;
    /// use const_layout::swizzle::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), "(_8,_64):(_64,_1)".parse().unwrap());
    /// let svg = print_svg_swizzle(&c).unwrap().bank_groups(2, 32).unwrap().to_string();
    /// assert!(svg.contains("bank group (offset / 2) mod 32"));
    /// assert!(print_svg_swizzle(&c).unwrap().bank_groups(0, 32).is_err());
    /// ```
    pub fn bank_groups(self, unit: isize, count: isize) -> Result<PrintSvgSwizzle<'a>, PictureError> {
        if unit <= 0 || count <= 0 {
            return Err(PictureError::BankGroups { unit, count });
        }
        Ok(PrintSvgSwizzle { unit, count, ..self })
    }

    fn caption(&self) -> impl fmt::Display + '_ {
        SwizzleCaption(&self.layout, self.unit, self.count)
    }
}

struct SwizzleCaption<'a>(&'a DynAnyLayout, isize, isize);

impl fmt::Display for SwizzleCaption<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}  colour: bank group (offset / {}) mod {}", self.0, self.1, self.2)
    }
}

impl fmt::Display for PrintSvgSwizzle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (func, c) = (func(&self.layout), self.cells);
        let frame = Frame::new(c.rows, c.cols, self.label_chars, 24, text_len(&self.caption()));
        frame.header(f, &self.caption())?;
        for m in 0..c.rows {
            for n in 0..c.cols {
                let group = func.at(c.index(m, n)).div_euclid(self.unit).rem_euclid(self.count);
                frame.rect(f, m as i64, n as i64, hue(group as i64, self.count as i64))?;
            }
        }
        frame.begin_text(f, 10)?;
        for m in 0..c.rows {
            for n in 0..c.cols {
                frame.text(f, m as i64, n as i64, 2, &func.at(c.index(m, n)))?;
            }
        }
        frame.footer(f, &self.caption())
    }
}

/// An SVG picture of any function tabulated on a grid, in the layout pictures' look: cell
/// `(m, n)` shows `values[m + n*rows]` (column-major, as CuTe indexes a rank-2 shape) on CuTe's
/// pastel for the value modulo 8, and a `None` cell (an index the function leaves invalid, such as
/// a CK Tile pad) is white and blank. The caption is the picture's title and its last line.
///
/// This draws what is not a CuTe layout in the same visual language: CK Tile descriptors, rocRoller
/// coordinate graphs and linear layouts without a CuTe form.
///
/// `Err` when `rows` is 0 or does not divide the number of values, or for more than
/// [`MAX_CELLS`](super::MAX_CELLS) values.
///
/// ```
/// use const_layout::picture::{PictureError, print_svg, print_svg_values};
/// let values = [Some(0), Some(1), None, Some(3)];
/// let svg = print_svg_values(&values, 2, "a 2x2 table").unwrap().to_string();
/// assert_eq!(svg.matches("<rect").count(), 1 + 4);
/// assert!(svg.contains("<title>a 2x2 table</title>") && svg.contains(">3</text>"));
/// // A layout's offsets, tabulated, draw exactly as the layout does.
/// let l: const_layout::dyn_layout::DynLayout = "(2,3):(3,1)".parse().unwrap();
/// let offsets = [0, 3, 1, 4, 2, 5].map(Some);
/// let caption = l.to_string();
/// let same = print_svg_values(&offsets, 2, &caption).unwrap().to_string();
/// assert_eq!(same, print_svg(&l).unwrap().to_string().replace("Layout: ", ""));
/// assert_eq!(print_svg_values(&values, 3, "x").unwrap_err(), PictureError::Grid { cells: 4, rows: 3 });
/// ```
pub fn print_svg_values<'a>(
    values: &'a [Option<isize>],
    rows: usize,
    caption: &'a str,
) -> Result<PrintSvgValues<'a>, PictureError> {
    let cells = values.len() as isize;
    if cells > super::MAX_CELLS {
        return Err(PictureError::TooLarge { what: "the table", cells, max: super::MAX_CELLS });
    }
    if rows == 0 || !values.len().is_multiple_of(rows) {
        return Err(PictureError::Grid { cells, rows: rows as isize });
    }
    let label_chars = values.iter().map(|v| v.map_or(1, |v| text_len(&v))).max().unwrap_or(1);
    Ok(PrintSvgValues { values, rows: rows as isize, label_chars, caption })
}

/// Display adapter for [`print_svg_values`]: the SVG document.
///
/// ```
/// use const_layout::picture::print_svg_values;
/// let svg = print_svg_values(&[Some(7); 4], 1, "one row").unwrap().to_string();
/// assert!(svg.starts_with("<?xml") && svg.ends_with("</svg>\n"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintSvgValues<'a> {
    values: &'a [Option<isize>],
    rows: isize,
    label_chars: i64,
    caption: &'a str,
}

impl fmt::Display for PrintSvgValues<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (rows, cols) = (self.rows, self.values.len() as isize / self.rows);
        let frame = Frame::new(rows, cols, self.label_chars, 24, text_len(&self.caption));
        frame.header(f, &self.caption)?;
        let at = |m: isize, n: isize| self.values[(m + n * rows) as usize];
        for m in 0..rows {
            for n in 0..cols {
                let colour = at(m, n).map_or(WHITE, |v| TV_X8[v.rem_euclid(8) as usize]);
                frame.rect(f, m as i64, n as i64, colour)?;
            }
        }
        frame.begin_text(f, 10)?;
        for m in 0..rows {
            for n in 0..cols {
                if let Some(v) = at(m, n) {
                    frame.text(f, m as i64, n as i64, 2, &v)?;
                }
            }
        }
        frame.footer(f, &self.caption)
    }
}
