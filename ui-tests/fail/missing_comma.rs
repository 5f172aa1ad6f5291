// Modes are separated by commas.
use const_layout::layout;

fn main() {
    let _ = layout!((8 4):(1,8));
}
