// A tuple coordinate against the integer mode 4.
use const_layout::layout;

fn main() {
    let l = layout!((8,4):(1,8));
    let _ = l.crd2idx((1usize, (1usize, 1usize)));
}
