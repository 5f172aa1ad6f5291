// In the type form a runtime integer is written as its type, not as an expression.
use const_layout::layout_type;

type L = layout_type!(({2 * 4}, 8));

fn main() {}
