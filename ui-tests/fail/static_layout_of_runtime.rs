// make_static_layout needs static integers; runtime ones go through make_layout.
use const_layout::{make_static_layout, LayoutLeft};

fn main() {
    let _ = make_static_layout((8usize, 4usize), LayoutLeft);
}
