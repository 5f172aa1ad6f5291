// make_layout with a stride of three modes for a shape of two.
use const_layout::make_layout;

fn main() {
    let _ = make_layout((8usize, 4usize), (1isize, 8isize, 32isize));
}
