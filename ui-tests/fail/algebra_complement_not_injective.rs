// The modes overlap, so there is no complement.
use const_layout::layout;

fn main() {
    let _ = layout!(complement((3,2):(1,2), 24));
}
