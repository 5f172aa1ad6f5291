// The nested mode (4,2) has two modes; the coordinate gives it three.
use const_layout::layout;

fn main() {
    let l = layout!((8,(4,2)):(1,8));
    let _ = l.crd2idx((1usize, (1usize, 0usize, 0usize)));
}
