// Tiles of stride 2 in a mode of extent 3: the tile and its complement carry into the next mode.
use const_layout::layout;

fn main() {
    let _ = layout!(logical_divide((3,2):(1,10), 2:2));
}
