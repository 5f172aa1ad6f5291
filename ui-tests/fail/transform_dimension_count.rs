// A merge has one upper dimension; an index of two does not fit it.
use const_layout::ck_tile::{Merge, Transform, multi_index};

fn main() {
    let merge = Merge::new((4usize, 5usize)).unwrap();
    let _ = merge.calculate_lower_index(&multi_index([1, 2]));
}
