// A static layout is tiled by a static tiler, not a runtime one.
use const_layout::layout_type;
use const_layout::tensor::{local_tile, make_tensor};

fn main() {
    let data = [0u32; 48];
    let t = make_tensor(&data, <layout_type!((8,6):(1,8))>::default().coalesce()).unwrap();
    let _ = local_tile(&t, (4usize, 3usize), (0usize, 0usize));
}
