// wgmma's N is a multiple of 8 from 8 to 256: N = 12 names the value.
use const_layout::atom::{MmaAtom, SM90_64xNx16_F32F16F16_SS};

fn main() {
    let c = SM90_64xNx16_F32F16F16_SS::<12>::c_layout();
    println!("{}", c.size());
}
