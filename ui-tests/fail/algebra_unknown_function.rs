// A misspelt function name is named.
use const_layout::layout;

fn main() {
    let _ = layout!(logical_divid((8,8):(1,8), 2:1));
}
