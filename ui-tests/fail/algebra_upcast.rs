// Stride 3 is neither a multiple nor a divisor of 2.
use const_layout::layout;

fn main() {
    let _ = layout!(upcast<2>((4,8):(3,12)));
}
