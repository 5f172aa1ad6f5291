//! The typed runtime algebra on the loops of CuTe's anchor program `cute_dyn_algebra.cpp`
//! (the operations of `benches/algebra.rs`, from `benches/anchor/ops.rs`), with the operation and
//! the iteration count from the command line, for instruction counting next to CuTe's
//! (`tools/algebra_counts.sh`): `algebra_counts OP ITERS`. The loop's wall-clock time per operation
//! goes to stderr (`ns/op N`), as CuTe's loops in `tools/algebra_counts/cute.cpp` report theirs.

#[path = "../benches/anchor/ops.rs"]
mod ops;

use std::hint::black_box;

/// The anchor's loop: the sum of `f(i)` over `iters` operations.
#[inline(never)]
fn run(iters: usize, f: impl Fn(usize) -> isize) -> isize {
    (0..iters).fold(0isize, |acc, i| acc.wrapping_add(f(i)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mn = black_box(ops::extents());
    let t0 = std::time::Instant::now();
    let acc = match args.get(1).map(String::as_str) {
        Some("composition") => run(iters, |i| ops::composition(&mn, i)),
        Some("logical_divide") => run(iters, |i| ops::logical_divide(&mn, i)),
        Some("logical_divide_static") => run(iters, |i| ops::logical_divide_static(&mn, i)),
        Some("complement") => run(iters, |i| ops::complement(&mn, i)),
        Some("dyn_composition") => run(iters, |i| ops::dyn_composition(&mn, i)),
        Some("dyn_logical_divide") => run(iters, |i| ops::dyn_logical_divide(&mn, i)),
        Some("dyn_complement") => run(iters, |i| ops::dyn_complement(&mn, i)),
        Some("dyn_complement_operand") => run(iters, |i| ops::dyn_complement_operand(&mn, i)),
        Some("floor_complement") => run(iters, |i| ops::floor::complement_op(&mn, i)),
        _ => {
            eprintln!(
                "usage: algebra_counts composition|logical_divide|logical_divide_static|complement|dyn_composition|dyn_logical_divide|dyn_complement|dyn_complement_operand|floor_complement ITERS"
            );
            std::process::exit(2);
        }
    };
    if iters > 0 {
        eprintln!("ns/op {:.4}", t0.elapsed().as_secs_f64() * 1e9 / iters as f64);
    }
    println!("{acc}");
}
