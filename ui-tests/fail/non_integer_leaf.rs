// A leaf must be an integer literal, an identifier or a block.
use const_layout::layout;

fn main() {
    let _ = layout!((8,1.5):(1,8));
}
