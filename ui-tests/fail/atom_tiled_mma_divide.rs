// A permutation of 24 in M cannot be cut into the atom's tiles of 16: CuTe would tile it anyway.
use const_layout::atom::{SM80_16x8x16_F32F16F16F32_TN, make_tiled_mma};
use const_layout::algebra::computed::Keep;
use const_layout::{C, layout_type};

fn main() {
    let mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, <layout_type!(1:0)>::default(), (C::<24>, Keep, Keep));
    println!("{}", mma.size());
}
