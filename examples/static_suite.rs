//! The compile-time anchor's program: CuTe's anchor program `cute_static_suite.cpp` computes
//! 37 fully static algebra results and prints them; this computes the same results with
//! `layout!` (every one at compile time: the program only prints constants) and prints them one
//! per line, in the anchor's order, as CuTe prints them. `tests/typed/static_suite.rs` checks the lines
//! against CuTe's output (`tests/data/cute_static_suite.txt`); `tools/static_suite.sh` times this
//! program's build next to `g++ -O2` on the anchor.
//!
//! ```sh
//! cargo run --release --example static_suite
//! ```

use const_layout::int_tuple::IntTuple;
use const_layout::layout;

fn show<T: IntTuple>(t: &T) -> String {
    t.display().to_string()
}

/// The anchor's results, in its order.
pub fn results() -> Vec<String> {
    vec![
        layout!(coalesce((8,(4,2)):(1,(8,32)))).to_string(),
        layout!(coalesce((4,8):(8,1))).to_string(),
        layout!(coalesce(((4,2),8):((1,32),4))).to_string(),
        layout!(composition((8,(4,2)):(1,(8,32)), 4:2)).to_string(),
        layout!(composition((4,8):(8,1), (4,2):(2,8))).to_string(),
        layout!(composition(((4,2),8):((1,32),4), (2,4):(4,1))).to_string(),
        layout!(composition((20,2):(16,4), (4,5):(1,4))).to_string(),
        layout!(complement(4:1, 24)).to_string(),
        layout!(complement(6:4, 24)).to_string(),
        layout!(complement((2,2):(1,6), 24)).to_string(),
        layout!(complement((4,6):(1,4), 24)).to_string(),
        layout!(logical_divide((4,2,3):(2,1,8), 4:2)).to_string(),
        layout!(logical_divide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)).to_string(),
        layout!(zipped_divide((4,8):(8,1), <2:1, 4:1>)).to_string(),
        layout!(tiled_divide((4,8):(8,1), <2:1, 4:1>)).to_string(),
        layout!(flat_divide((4,8):(8,1), <2:1, 4:1>)).to_string(),
        layout!(logical_product((2,2):(4,1), 6:1)).to_string(),
        layout!(logical_product((2,2):(4,1), (4,2):(2,1))).to_string(),
        layout!(blocked_product((2,5):(5,1), (3,4):(4,1))).to_string(),
        layout!(raked_product((2,5):(5,1), (3,4):(4,1))).to_string(),
        layout!(zipped_product((2,5):(5,1), (3,4):(4,1))).to_string(),
        layout!(tiled_product((2,5):(5,1), (3,4):(4,1))).to_string(),
        layout!(right_inverse((4,8):(8,1))).to_string(),
        layout!(left_inverse((4,8):(8,1))).to_string(),
        layout!(right_inverse((2,4):(1,4))).to_string(),
        layout!(left_inverse((2,4):(1,4))).to_string(),
        show(&layout!(max_common_vector((4,8):(8,1), (4,8):(1,4)))),
        layout!(tile_to_shape((2,2):(1,2), (8,8))).to_string(),
        layout!(make_ordered_layout((4, 8, 2), (2, 0, 1))).to_string(),
        layout!(make_layout((4, 8), LayoutRight)).to_string(),
        layout!(filter((4,2,3):(1,0,4))).to_string(),
        show(&layout!(cosize((4,2,3):(1,0,4)))),
        show(&layout!(idx2crd(13, (4, (2, 3))))),
        show(&layout!(crd2idx((1, (1, 2)), (4, (2, 3)), (3, (1, 8))))),
        layout!(composition(Sw<3,3,3>, (8,64):(64,1))).to_string(),
        layout!(upcast<2>((4,8):(8,1))).to_string(),
        layout!(downcast<2>((4,8):(8,1))).to_string(),
    ]
}

fn main() {
    for line in results() {
        println!("{line}");
    }
}
