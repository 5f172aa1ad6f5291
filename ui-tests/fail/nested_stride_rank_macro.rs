// Mode 1 of the shape has two modes, its stride three.
use const_layout::layout;

fn main() {
    let _ = layout!((8,(4,2)):(1,(8,16,32)));
}
