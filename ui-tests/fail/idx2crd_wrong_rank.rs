// An index tuple with three modes into a shape with two.
use const_layout::layout;

fn main() {
    let l = layout!((8,(4,2)));
    let _ = l.idx2crd((1usize, 2usize, 3usize));
}
