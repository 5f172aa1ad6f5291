// A tuple stride for the integer extent 4.
use const_layout::layout;

fn main() {
    let _ = layout!((8,4):(1,(8,32)));
}
