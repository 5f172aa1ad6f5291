// The stride has three modes, the shape two.
use const_layout::layout;

fn main() {
    let _ = layout!((8,4):(1,8,32));
}
