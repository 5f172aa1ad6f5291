// Mode 2 of a rank-2 layout.
use const_layout::layout;

fn main() {
    let _ = layout!((8,4)).mode::<2>();
}
