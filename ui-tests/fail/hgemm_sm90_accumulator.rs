// The Hopper GEMM's accumulator choice: F32Accum or F16Accum, nothing else.
use const_layout_kernels::hgemm_sm90::WarpgroupAccumulate;

fn accumulate<A: WarpgroupAccumulate>(_: A) {}

fn main() {
    accumulate(1.0f32);
}
