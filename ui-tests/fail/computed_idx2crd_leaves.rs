// idx2crd into a coordinate type with the wrong number of integers: both counts, at compile time.
use const_layout::algebra::computed::zipped_divide;
use const_layout::{C, layout_type};

fn main() {
    let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    let _: (usize, usize) = tiles.idx2crd(5);
}
