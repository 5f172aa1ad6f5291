// Algebra in `layout!` runs at compile time: a runtime operand is named.
use const_layout::layout;

fn main() {
    let m = 8usize;
    let _ = layout!(logical_divide((m,8):(1,m), 4:1));
}
