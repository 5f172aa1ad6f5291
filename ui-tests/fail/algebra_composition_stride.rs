// DECISIONS.md decision 2: CuTe returns (_2,_6):(_24,_1), 10 of 12 values wrong.
use const_layout::layout;

fn main() {
    let _ = layout!(composition((6,6):(6,1), 12:4));
}
