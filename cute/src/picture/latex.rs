//! CuTe's `print_latex` and `print_latex_tv` (cute/util/print_latex.hpp): standalone LaTeX
//! documents drawing a layout with TikZ, byte for byte as CuTe prints them.

use super::{PictureError, Tv, append2, func, grid, plain};
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::layout::{AnyLayout, DynAnyLayout};
use crate::swizzle::ComposedLayout;
use core::fmt;
use core::marker::PhantomData;

/// The document header CuTe prints after the comment lines.
const HEADER: &str = "\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\n\\begin{document}\n\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, outer sep=0pt}]\n\n";

/// The document footer.
const FOOTER: &str = "\\end{tikzpicture}\n\\end{document}\n";

/// CuTe's `TikzColor_BWx8`: greys by offset modulo 8.
const BW_X8: [&str; 8] =
    ["black!00", "black!40", "black!20", "black!60", "black!10", "black!50", "black!30", "black!70"];

/// CuTe's `TikzColor_TV`: eight pastels by thread modulo 8.
const TV_X8: [&str; 8] = [
    "{rgb,255:red,175;green,175;blue,255}",
    "{rgb,255:red,175;green,255;blue,175}",
    "{rgb,255:red,255;green,255;blue,175}",
    "{rgb,255:red,255;green,175;blue,175}",
    "{rgb,255:red,210;green,210;blue,255}",
    "{rgb,255:red,210;green,255;blue,210}",
    "{rgb,255:red,255;green,255;blue,210}",
    "{rgb,255:red,255;green,210;blue,210}",
];

/// CuTe's `print_latex(layout)`: a TikZ picture of a layout of rank at most 2, each cell `(m,n)`
/// filled with CuTe's grey for `L(m,n) % 8` and labelled with the offset, the row indices on the
/// left and the column indices on top. A rank-0 or rank-1 layout is drawn as a column (CuTe
/// appends `_1:_0`, and the first line prints the appended layout). Nested modes are indexed 1-D,
/// as in `print_layout`.
///
/// The text is CuTe's, byte for byte (checked against CuTe 4.2's output in `tests/tool/picture.rs`).
/// Where CuTe reads its colour table at a negative index (a negative offset: undefined behaviour
/// in C++), the colour here is that of the offset modulo 8 taken non-negative.
///
/// `layout` is any [`AnyLayout`]: a typed or runtime-structured layout, a static algebra result,
/// or a swizzled or composed layout (drawn as [`print_latex_composed`] draws it).
///
/// `Err` for rank above 2, basis strides, or more than [`MAX_CELLS`](super::MAX_CELLS) cells.
///
/// ```
/// use const_layout::dyn_layout::DynLayout;
/// use const_layout::picture::print_latex;
/// // A typed static layout draws as its runtime-structured twin does.
/// let typed = print_latex(&const_layout::layout!(4:2)).unwrap().to_string();
/// let l: DynLayout = "_4:_2".parse().unwrap();
/// assert_eq!(print_latex(&l).unwrap().to_string(), typed);
/// let tex = print_latex(&l).unwrap().to_string();
/// let lines: Vec<&str> = tex.lines().collect();
/// assert_eq!(lines[0], "% Layout: (_4,_1):(_2,_0)");
/// assert_eq!(lines[8], "\\node[fill=black!20] at (1,0) {2};");
/// assert_eq!(lines[11], "\\draw[color=black,thick,shift={(-0.5,-0.5)}] (0,0) grid (4,1);");
/// assert_eq!(*lines.last().unwrap(), "\\end{document}");
/// ```
pub fn print_latex<L: AnyLayout>(layout: &L) -> Result<PrintLatex<'_>, PictureError> {
    let layout = layout.to_dyn()?;
    let (m, n) = grid(func(&layout), "the layout")?;
    Ok(PrintLatex { layout, m, n, borrow: PhantomData })
}

/// CuTe's `print_latex` of a composed layout (`Sw<B,M,S> o offset o L`, or a layout outer
/// function): the picture of [`print_latex`] with the composed offsets, and CuTe's print of the
/// composed layout (its inner layout padded to rank 2) in the first line.
///
/// ```
/// use const_layout::picture::print_latex_composed;
/// use const_layout::swizzle::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), "_4:_1".parse().unwrap());
/// let tex = print_latex_composed(&c).unwrap().to_string();
/// assert!(tex.starts_with("% Layout: Sw<1,0,1> o _0 o (_4,_1):(_1,_0)\n"));
/// assert!(tex.contains("\\node[fill=black!60] at (2,0) {3};\n"));
/// ```
pub fn print_latex_composed(layout: &ComposedLayout) -> Result<PrintLatex<'_>, PictureError> {
    print_latex(layout)
}

/// Display adapter for [`print_latex`] and [`print_latex_composed`]: the LaTeX document.
///
/// ```
/// use const_layout::picture::print_latex;
/// let l: const_layout::dyn_layout::DynLayout = "(_2,_2):(_1,_2)".parse().unwrap();
/// let picture = print_latex(&l).unwrap();
/// assert_eq!(picture.to_string().lines().count(), 19);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintLatex<'a> {
    layout: DynAnyLayout,
    m: isize,
    n: isize,
    borrow: PhantomData<&'a ()>,
}

impl fmt::Display for PrintLatex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.layout {
            DynAnyLayout::Layout(l) => writeln!(f, "% Layout: {}", append2(l))?,
            DynAnyLayout::Composed(c) => writeln!(f, "% Layout: {}", c.with_inner(append2(c.inner())))?,
        }
        f.write_str(HEADER)?;
        let func = func(&self.layout);
        for m in 0..self.m {
            for n in 0..self.n {
                let idx = func.at(m + n * self.m);
                writeln!(f, "\\node[fill={}] at ({m},{n}) {{{idx}}};", BW_X8[idx.rem_euclid(8) as usize])?;
            }
        }
        write_grid_and_labels(f, self.m, self.n)?;
        f.write_str(FOOTER)
    }
}

/// The grid and the row and column labels, as both of CuTe's printers write them.
fn write_grid_and_labels(f: &mut fmt::Formatter<'_>, m: isize, n: isize) -> fmt::Result {
    writeln!(f, "\\draw[color=black,thick,shift={{(-0.5,-0.5)}}] (0,0) grid ({m},{n});\n")?;
    for i in 0..m {
        writeln!(f, "\\node at ({i},-1) {{\\Large{{\\texttt{{{i}}}}}}};")?;
    }
    for j in 0..n {
        writeln!(f, "\\node at (-1,{j}) {{\\Large{{\\texttt{{{j}}}}}}};")?;
    }
    Ok(())
}

/// CuTe's `print_latex_tv` of a thread-value layout: the `(M,N)` tile (`M`, `N` the sizes of
/// `tile_mn`'s two modes), each cell that a `(thread, value)` pair reaches showing
/// `\shortstack{T{thread} \\ V{value}}` on CuTe's colour of the thread (`TikzColor_TV`: thread
/// modulo 8); a cell reached twice shows the first pair (threads outer, values inner), a cell
/// never reached is left blank.
///
/// `layout_tv` maps `(thread, value)` to the index of a cell in the tile, colexicographic
/// (`m + n*M`): the layout that [`make_layout_tv`](crate::algebra::make_layout_tv) returns and that
/// CuTe's `TiledCopy` and `TiledMMA` keep. CuTe's printer takes it composed with the tile's
/// identity layout (`(thread, value) -> (m,n)`, as `print_latex(TiledMMA)` builds it), and the
/// first line prints that composition,
/// `composition(make_identity_layout(tile_mn), layout_tv)`; so the text is CuTe's
/// `print_latex_tv(composition(make_identity_layout(tile_mn), layout_tv), tile_mn)`, byte for byte.
/// (If the algebra refuses that composition, the first line prints `layout_tv` itself.)
///
/// `layout_tv` is any plain [`AnyLayout`] (a typed layout, a static algebra result such as
/// [`computed::make_layout_tv`](crate::algebra::computed::make_layout_tv)'s, a [`DynLayout`]); a
/// swizzled or composed one is [`PictureError::NotPlain`].
///
/// `Err` unless both `layout_tv` and `tile_mn` have rank 2 and integer strides, for more than
/// [`MAX_CELLS`](super::MAX_CELLS) cells or pairs, or if a pair maps outside the tile.
///
/// ```
/// use const_layout::algebra::make_layout_tv;
/// use const_layout::picture::print_latex_tv;
/// let (tile, tv) = make_layout_tv(&"(_4,_2):(_2,_1)".parse().unwrap(), &"(_2,_2):(_1,_2)".parse().unwrap()).unwrap();
/// let tex = print_latex_tv(&tv, &tile).unwrap().to_string();
/// let lines: Vec<&str> = tex.lines().collect();
/// assert_eq!(lines[0], "% Layout TV: ((_2,_4),(_2,_2)):((_2@1,_2@0),(_1@0,_1@1))");
/// assert_eq!(lines[8], "\\node[fill={rgb,255:red,175;green,175;blue,255}] at (1,0) {\\shortstack{T0 \\\\ V1}};");
/// ```
pub fn print_latex_tv<'a, L: AnyLayout>(
    layout_tv: &'a L,
    tile_mn: &DynIntTuple,
) -> Result<PrintLatexTv<'a>, PictureError> {
    let layout_tv = plain(layout_tv, "the TV layout")?;
    let tv = Tv::new(&layout_tv, tile_mn)?;
    let comment = crate::algebra::make_identity_layout(tile_mn)
        .and_then(|id| crate::algebra::composition(&id, &layout_tv))
        .unwrap_or(layout_tv);
    Ok(PrintLatexTv { layout_tv, comment, tv, borrow: PhantomData })
}

/// Display adapter for [`print_latex_tv`]: the LaTeX document.
///
/// ```
/// use const_layout::picture::print_latex_tv;
/// // Two threads, each holding one row of a 2 x 2 tile.
/// let tv: const_layout::dyn_layout::DynLayout = "(_2,_2):(_1,_2)".parse().unwrap();
/// let tex = print_latex_tv(&tv, &"(_2,_2)".parse().unwrap()).unwrap().to_string();
/// assert!(tex.contains("at (1,1) {\\shortstack{T1 \\\\ V1}};\n"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintLatexTv<'a> {
    layout_tv: DynLayout,
    comment: DynLayout,
    tv: Tv,
    borrow: PhantomData<&'a ()>,
}

impl fmt::Display for PrintLatexTv<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "% Layout TV: {}", self.comment)?;
        f.write_str(HEADER)?;
        self.tv.for_each_first(&self.layout_tv, |t, v, m, n| {
            writeln!(
                f,
                "\\node[fill={}] at ({m},{n}) {{\\shortstack{{T{t} \\\\ V{v}}}}};",
                TV_X8[(t % 8) as usize]
            )
        })?;
        write_grid_and_labels(f, self.tv.m, self.tv.n)?;
        f.write_str(FOOTER)
    }
}
