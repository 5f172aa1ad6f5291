// The size 2^64 does not fit in isize.
use const_layout::layout;

fn main() {
    let _ = layout!((4294967296,4294967296));
}
