// The largest offset does not fit in isize.
use const_layout::layout;

fn main() {
    let _ = layout!((2,3):(1,9223372036854775807));
}
