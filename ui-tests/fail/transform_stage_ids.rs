// A merge of three lower dimensions given two lower ids.
use const_layout::sequence;
use const_layout::ck_tile::{Merge, Stage};

fn main() {
    let _ = Stage::new(Merge::new((2usize, 3usize, 4usize)).unwrap(), sequence![0, 1], sequence![0]);
}
