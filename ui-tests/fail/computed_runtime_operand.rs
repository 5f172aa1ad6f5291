// The static algebra needs static operands: a runtime layout is a trait error saying so.
use const_layout::algebra::computed::coalesce;
use const_layout::make_layout;

fn main() {
    let l = make_layout((4usize, 8usize), (1isize, 4isize)).unwrap();
    let _ = coalesce(l);
}
