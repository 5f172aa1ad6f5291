// A negative literal extent.
use const_layout::layout;

fn main() {
    let _ = layout!((8,-2));
}
