// The general F2 layout cannot meet the budget either: 4-byte writes 16 bytes apart by 32 lanes
// against 16-byte reads, whose vector takes two of the five bank bits the writes' lanes need. The
// compile error names the extra wavefronts, the vector widths and the budget.
use const_layout::bank::{AccessKind, NVIDIA};
use const_layout::linear::LinearLayout;
use const_layout::synthesis::{Access, LinearChoice, best_linear, linear_within_budget};

const fn tv(bases: &[u32]) -> LinearLayout {
    match LinearLayout::new(bases, 8) {
        Ok(l) => l,
        Err(_) => panic!("bases"),
    }
}

const WRITE: Access = Access { kind: AccessKind::Store, tv: tv(&[4, 8, 16, 32, 64, 1, 2, 128]), thread_bits: 5, vec: 1 };
const READ: Access = Access { kind: AccessKind::Load, tv: tv(&[4, 8, 16, 32, 64, 1, 2, 128]), thread_bits: 5, vec: 4 };
const SMEM: LinearChoice =
    linear_within_budget(best_linear(&NVIDIA, &LinearLayout::identity(8), 4, &WRITE, &READ), 8);

fn main() {
    println!("{}", SMEM.conflicts());
}
