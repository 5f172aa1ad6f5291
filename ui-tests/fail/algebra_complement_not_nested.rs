// The mode of stride 2 starts inside the span 3 of the mode of stride 1: no complement.
use const_layout::layout;

fn main() {
    let _ = layout!(complement((3,2):(1,2), 24));
}
