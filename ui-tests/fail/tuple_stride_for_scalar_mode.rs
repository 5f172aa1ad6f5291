// A tuple stride against an integer mode (the reverse of the scalar-stride rule) is an error.
use const_layout::make_layout;

fn main() {
    let _ = make_layout((8usize, 4usize), (1isize, (2isize, 3isize)));
}
