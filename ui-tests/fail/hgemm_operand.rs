// The HGEMM's bounds: an operand is a tensor of 32-bit words, C a writable tensor of the
// accumulator choice's element.
use const_layout_kernels::hgemm::{F32Accum, OperandTensor, Output};

fn operand<T: OperandTensor>(_: T) {}
fn output<T: Output<F32Accum>>(_: T) {}

fn main() {
    operand(0u32);
    output([0f32; 4]);
}
