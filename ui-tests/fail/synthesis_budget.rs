// A shared-memory layout whose best swizzle cannot meet a declared conflict budget: scalar writes
// 16 bytes apart (4-way) against 16-byte reads, which no swizzle of the low bits may break. The
// compile error names the swizzle, its extra wavefronts and the budget.
use const_layout::bank::{AccessKind, NVIDIA};
use const_layout::linear::LinearLayout;
use const_layout::synthesis::{Access, Choice, best_swizzle, within_budget};

const fn tv(bases: &[u32]) -> LinearLayout {
    match LinearLayout::new(bases, 8) {
        Ok(l) => l,
        Err(_) => panic!("bases"),
    }
}

const WRITE: Access = Access { kind: AccessKind::Store, tv: tv(&[4, 8, 16, 32, 64, 1, 2, 128]), thread_bits: 5, vec: 1 };
const READ: Access = Access { kind: AccessKind::Load, tv: tv(&[4, 8, 16, 32, 64, 1, 2, 128]), thread_bits: 5, vec: 4 };
const SMEM: Choice = within_budget(best_swizzle(&NVIDIA, &LinearLayout::identity(8), 4, &WRITE, &READ), 8);

fn main() {
    println!("{}", SMEM.swizzle);
}
