// A coordinate whose structure does not fit the computed layout's shape: the rank of the tuple
// against the mode it meets, at compile time.
use const_layout::algebra::computed::zipped_divide;
use const_layout::{C, layout_type};

fn main() {
    let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    // Shape ((4,3),(2,2)): mode 0 has two modes, not three.
    let _ = tiles.crd2idx(((1usize, 2usize, 0usize), 1usize));
}
