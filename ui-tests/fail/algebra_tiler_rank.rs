// Three tiler modes for a rank-2 layout.
use const_layout::layout;

fn main() {
    let _ = layout!(logical_divide((8,8):(1,8), <2:1, 2:1, 2:1>));
}
