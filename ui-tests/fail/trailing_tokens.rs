// Only `shape` or `shape:stride` may be written.
use const_layout::layout;

fn main() {
    let _ = layout!((8,4):(1,8) x);
}
