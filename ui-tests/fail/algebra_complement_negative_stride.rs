// A negative stride: `complement` is defined for non-negative strides only (CuTe leaves it
// undefined). Strides that do not nest, `(3,2):(1,2)`, have a complement.
use const_layout::layout;

fn main() {
    let _ = layout!(complement((3,2):(1,-2), 24));
}
