// A coordinate with three modes into a layout with two.
use const_layout::layout;

fn main() {
    let l = layout!((8,(4,2)):(1,8));
    let _ = l.crd2idx((1usize, 2usize, 3usize));
}
