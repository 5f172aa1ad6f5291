// `calculate_upper_index` on a transform that has no inverse.
use const_layout::ck_tile::{Embed, InvertibleTransform};

fn upper<T: InvertibleTransform>(_: &T) {}

fn main() {
    let e = Embed::new((4usize, 3usize), (3isize, 1isize));
    upper(&e);
}
