// A shape extent of zero, caught by the macro with a span on the literal.
use const_layout::layout;

fn main() {
    let _ = layout!((8,0):(1,8));
}
