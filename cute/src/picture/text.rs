//! CuTe's `print_layout` for any layout kind: the layout's text, then a table of its offsets.

use super::{MAX_CELLS, PictureError, func, mode_size};
use crate::dyn_layout::{num_digits, write_offset_table};
use crate::layout::{AnyLayout, DynAnyLayout};
use core::fmt;
use core::marker::PhantomData;

/// CuTe's `print_layout(layout)` for any [`AnyLayout`] of rank 2: the layout (as CuTe prints
/// it), then a table with mode 0 down the rows and mode 1 across the columns (each mode indexed
/// 1-D, so nested modes are enumerated colexicographically), each cell the offset `L(m,n)`.
/// Columns are `num_digits(cosize) + 2` characters wide, as in CuTe (for a swizzled or composed
/// layout, [`AnyLayout::cosize`]: one past its largest offset). For a plain [`DynLayout`] the
/// text is [`DynLayout::print_layout`]'s.
///
/// `Err` for a rank other than 2, basis strides, or more than [`MAX_CELLS`] cells.
///
/// ```
/// use const_layout::picture::print_layout;
/// use const_layout::layout;
/// let table = print_layout(&layout!(composition(Sw<1,0,1>, (2,2):(1,2)))).unwrap().to_string();
/// let lines: Vec<&str> = table.lines().collect();
/// assert_eq!(lines[0], "Sw<1,0,1> o _0 o (_2,_2):(_1,_2)");
/// // L(0,1) = 2, whose bit 1 flips bit 0.
/// assert_eq!(lines[3], " 0  | 0 | 3 |");
/// assert_eq!(lines[5], " 1  | 1 | 2 |");
/// ```
///
/// [`DynLayout`]: crate::dyn_layout::DynLayout
/// [`DynLayout::print_layout`]: crate::dyn_layout::DynLayout::print_layout
pub fn print_layout<L: AnyLayout>(layout: &L) -> Result<PrintLayoutAny<'_>, PictureError> {
    let what = "the layout";
    let cosize = layout.cosize();
    let layout = layout.to_dyn()?;
    let domain = match &layout {
        DynAnyLayout::Layout(l) => l,
        DynAnyLayout::Composed(c) => c.inner(),
    };
    if func(&layout).has_basis() {
        return Err(PictureError::BasisStrides { what });
    }
    if domain.rank() != 2 || domain.shape().is_int() {
        return Err(PictureError::Rank { what, rank: domain.rank(), allowed: "2" });
    }
    let (rows, cols) = (mode_size(domain.shape(), 0)?, mode_size(domain.shape(), 1)?);
    if domain.size().value > MAX_CELLS {
        return Err(PictureError::TooLarge { what, cells: domain.size().value, max: MAX_CELLS });
    }
    let width = num_digits(cosize.min(isize::MAX as usize) as isize) + 2;
    Ok(PrintLayoutAny { layout, rows, cols, width, borrow: PhantomData })
}

/// Display adapter for [`print_layout`]: the layout and its table.
///
/// ```
/// use const_layout::picture::print_layout;
/// let t = print_layout(&const_layout::layout!((2,3):(3,1))).unwrap().to_string();
/// assert_eq!(t.lines().nth(3).unwrap(), " 0  | 0 | 1 | 2 |");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintLayoutAny<'a> {
    layout: DynAnyLayout,
    rows: isize,
    cols: isize,
    width: usize,
    borrow: PhantomData<&'a ()>,
}

impl fmt::Display for PrintLayoutAny<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = func(&self.layout);
        write_offset_table(f, &self.layout, (self.rows, self.cols, self.width), &|m, n| {
            Ok(func.at(m + n * self.rows))
        })
    }
}
