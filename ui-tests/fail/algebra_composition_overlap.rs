// DECISIONS.md decision 2: CuTe returns (_3,_2):(_2,_3), wrong at index 5 (7 instead of 8).
use const_layout::layout;

fn main() {
    let _ = layout!(composition((6,2):(1,7), (3,2):(2,3)));
}
