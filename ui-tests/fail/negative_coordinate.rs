// Coordinates cannot be negative.
use const_layout::coord;

fn main() {
    let _ = coord!(1, (-1, 2));
}
