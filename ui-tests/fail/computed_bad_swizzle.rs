// Sw<3,4,1> is not a swizzle (|S| must be at least B): a compile error naming the numbers.
use const_layout::algebra::computed::swizzle;
use const_layout::layout_type;

fn main() {
    let s = swizzle::<3, 4, 1, _>(<layout_type!((8,64):(64,1))>::default());
    let _ = s.crd2idx(5usize);
}
