use const_layout::{C, layout};

fn main() {
    // A static layout's methods are computed at compile time, so they take static tilers: a
    // runtime extent in the tiler has no path (the runtime-structured algebra takes one).
    let m = 4usize;
    let _ = layout!((8,6):(1,8)).tiled_divide((m, C::<3>));
}
