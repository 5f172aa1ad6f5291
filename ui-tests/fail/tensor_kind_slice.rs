// A static algebra result is not sliced by `slice`: `algebra::computed::slice_and_offset` slices it.
use const_layout::algebra::computed::coalesce;
use const_layout::layout_type;
use const_layout::tensor::{Keep, make_tensor, slice};

fn main() {
    let data = [0u32; 48];
    let l = coalesce(<layout_type!((8,6):(1,8))>::default());
    let t = make_tensor(&data, l).unwrap();
    let _ = slice(&t, (1usize, Keep));
}
