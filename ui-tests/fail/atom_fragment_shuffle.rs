// Two warps along N: warp 1 holds the accumulator's columns 8 to 15, but as the A operand every
// thread needs all 16 columns of its rows, so the conversion needs a shuffle.
use const_layout::atom::fragment::AccToOperand;
use const_layout::atom::{SM80_16x8x16_F32F16F16F32_TN, TiledMma};
use const_layout::algebra::computed::Keep;
use const_layout::layout_type;

type Mma = TiledMma<SM80_16x8x16_F32F16F16F32_TN, layout_type!((1, 2):(0, 1)), (Keep, Keep, Keep)>;

fn main() {
    let acc = [0.0f32; 4];
    let a = AccToOperand::<Mma, Mma, 16, 16>::convert(&acc);
    println!("{}", a[0]);
}
