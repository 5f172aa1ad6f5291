// A static layout is divided by a static tiler, not a runtime one.
use const_layout::layout_type;
use const_layout::tensor::{make_tensor, zipped_divide};

fn main() {
    let data = [0u32; 48];
    let t = make_tensor(&data, <layout_type!((8,6):(1,8))>::default().coalesce()).unwrap();
    let _ = zipped_divide(&t, (4usize, 3usize));
}
