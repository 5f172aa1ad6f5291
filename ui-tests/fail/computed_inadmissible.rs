// The static algebra on type parameters: DECISIONS.md decision 2's first example, where CuTe returns
// (3,2):(2,3), wrong at index 5. Here it is a compile error (in a full build) naming the mode and
// the numbers.
use const_layout::algebra::computed::composition;
use const_layout::layout_type;

fn main() {
    let a = <layout_type!((6,2):(1,7))>::default();
    let b = <layout_type!((3,2):(2,3))>::default();
    println!("{}", composition(a, b));
}
