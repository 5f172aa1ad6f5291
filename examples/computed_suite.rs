//! The compile-time anchor's program through the generic static path: the 31 layout-algebra
//! results of CuTe's anchor program `cute_static_suite.cpp` with the operands as types and the
//! functions of `const_layout::algebra::computed` (as a generic kernel computes them: every result
//! a constant of its type parameters), printed as `line: result`, `line` the row of CuTe's output
//! (`tests/data/cute_static_suite.txt`). `tests/computed_suite.rs` checks the rows against CuTe's;
//! `tools/static_suite.sh` times this program's build next to `g++ -O2` on the anchor (the other
//! six rows of the anchor are not layout algebra: `examples/static_suite.rs` has all 37 through
//! `layout!`).
//!
//! ```sh
//! cargo run --release --example computed_suite
//! ```

use const_layout::algebra::computed::{
    blocked_product, coalesce, complement_to, composition, downcast, filter, flat_divide, left_inverse,
    logical_divide, logical_product, max_common_vector, raked_product, right_inverse, tile_to_shape,
    tiled_divide, tiled_product, upcast, zipped_divide, zipped_product,
};
use const_layout::{C, layout_type};

/// The zero-sized value of a static layout written in CuTe notation.
macro_rules! l {
    ($($t:tt)*) => {
        <layout_type!($($t)*)>::default()
    };
}

/// The anchor's layout-algebra results: (row of CuTe's output, the result as CuTe prints it).
pub fn results() -> Vec<(usize, String)> {
    vec![
        (0, coalesce(l!((8,(4,2)):(1,(8,32)))).to_string()),
        (1, coalesce(l!((4,8):(8,1))).to_string()),
        (2, coalesce(l!(((4,2),8):((1,32),4))).to_string()),
        (3, composition(l!((8,(4,2)):(1,(8,32))), l!(4:2)).to_string()),
        (4, composition(l!((4,8):(8,1)), l!((4,2):(2,8))).to_string()),
        (5, composition(l!(((4,2),8):((1,32),4)), l!((2,4):(4,1))).to_string()),
        (6, composition(l!((20,2):(16,4)), l!((4,5):(1,4))).to_string()),
        (7, complement_to(l!(4:1), C::<24>).to_string()),
        (8, complement_to(l!(6:4), C::<24>).to_string()),
        (9, complement_to(l!((2,2):(1,6)), C::<24>).to_string()),
        (10, complement_to(l!((4,6):(1,4)), C::<24>).to_string()),
        (11, logical_divide(l!((4,2,3):(2,1,8)), l!(4:2)).to_string()),
        (12, logical_divide(l!((9,(4,8)):(59,(13,1))), (l!(3:3), l!((2,4):(1,8)))).to_string()),
        (13, zipped_divide(l!((4,8):(8,1)), (l!(2:1), l!(4:1))).to_string()),
        (14, tiled_divide(l!((4,8):(8,1)), (l!(2:1), l!(4:1))).to_string()),
        (15, flat_divide(l!((4,8):(8,1)), (l!(2:1), l!(4:1))).to_string()),
        (16, logical_product(l!((2,2):(4,1)), l!(6:1)).to_string()),
        (17, logical_product(l!((2,2):(4,1)), l!((4,2):(2,1))).to_string()),
        (18, blocked_product(l!((2,5):(5,1)), l!((3,4):(4,1))).to_string()),
        (19, raked_product(l!((2,5):(5,1)), l!((3,4):(4,1))).to_string()),
        (20, zipped_product(l!((2,5):(5,1)), l!((3,4):(4,1))).to_string()),
        (21, tiled_product(l!((2,5):(5,1)), l!((3,4):(4,1))).to_string()),
        (22, right_inverse(l!((4,8):(8,1))).to_string()),
        (23, left_inverse(l!((4,8):(8,1))).to_string()),
        (24, right_inverse(l!((2,4):(1,4))).to_string()),
        (25, left_inverse(l!((2,4):(1,4))).to_string()),
        (26, format!("_{}", max_common_vector(l!((4,8):(8,1)), l!((4,8):(1,4))))),
        (27, tile_to_shape(l!((2,2):(1,2)), (C::<8>, C::<8>)).to_string()),
        (30, filter(l!((4,2,3):(1,0,4))).to_string()),
        (35, upcast::<2, _>(l!((4,8):(8,1))).to_string()),
        (36, downcast::<2, _>(l!((4,8):(8,1))).to_string()),
    ]
}

fn main() {
    for (line, result) in results() {
        println!("{line}: {result}");
    }
}
