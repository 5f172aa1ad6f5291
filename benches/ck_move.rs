//! CK Tile's incremental coordinate movement against recomputing: a padded NHWC convolution input
//! (N, H, W, C) = (4, 28, 28, 64) with H and W padded by 1, (n, hp, wp) merged into m (CK's
//! merge + pad descriptor, runtime sizes), walked along m one step at a time, reading the offset
//! and validity of every position. `incremental` moves one coordinate (`move_tensor_coordinate`:
//! pads add the step, the merge carries and borrows); `recompute` makes the coordinate afresh at
//! every position (`make_tensor_coordinate`: divisions through the merge). Both visit the same
//! positions and sum the same offsets (checked once before timing).
//!
//! Also `copy_descriptor` (runs of the inferred vector length) against an element-by-element
//! copy through the same descriptors.
//!
//! Wall-clock time on a shared machine is noise; `--callgrind [n]` runs each walk once (batch n,
//! default 4), for `valgrind --tool=callgrind --toggle-collect='*ck_move::incremental*'` (and
//! `recompute`, `copy_vectors`, `copy_elements`): instruction counts of the same binary
//! (`tools/ck_move_counts.sh` runs them all).

use const_layout::ck_tile::{
    Merge, Pad, PassThrough, SafeVector, Stage, copy_descriptor, make_naive_tensor_descriptor_guaranteed,
    make_naive_tensor_descriptor_packed, make_tensor_coordinate, move_tensor_coordinate, multi_index,
    transform_tensor_descriptor,
};
use const_layout::{C, sequence};
use criterion::{Criterion, criterion_group};
use std::hint::black_box;

/// The descriptor, built where it is used (as a kernel builds it), from runtime sizes: the hidden
/// ids are then constants the compiler sees, the sizes are not.
macro_rules! conv_input {
    ($n:expr, $h:expr, $w:expr, $ch:expr) => {{
        let (n, h, w, ch) = ($n, $h, $w, $ch);
        let x = make_naive_tensor_descriptor_packed((n, h, w, ch)).expect("valid");
        let padded = transform_tensor_descriptor(
            x,
            (
                Stage::new(PassThrough::new(n), sequence![0], sequence![0]),
                Stage::new(Pad::new(h, 1usize, 1usize), sequence![1], sequence![1]),
                Stage::new(Pad::new(w, 1usize, 1usize), sequence![2], sequence![2]),
                Stage::new(PassThrough::new(ch), sequence![3], sequence![3]),
            ),
        );
        transform_tensor_descriptor(
            padded,
            (
                Stage::new(
                    Merge::new((n, h + 2, w + 2)).expect("positive"),
                    sequence![0, 1, 2],
                    sequence![0],
                ),
                Stage::new(PassThrough::new(ch), sequence![3], sequence![1]),
            ),
        )
    }};
}

/// Walk m at channel `channel`, moving one coordinate; the sum of the valid offsets.
#[inline(never)]
fn incremental(sizes: (usize, usize, usize, usize), channel: isize) -> isize {
    let d = conv_input!(sizes.0, sizes.1, sizes.2, sizes.3);
    let mut coord = make_tensor_coordinate(&d, &multi_index([0, channel]));
    let step = multi_index([1, 0]);
    let mut acc = 0isize;
    for _ in 0..d.lengths()[0] {
        if coord.is_valid_assuming_top_index_is_valid(&d) {
            acc = acc.wrapping_add(coord.offset());
        }
        move_tensor_coordinate(&d, &mut coord, &step);
    }
    acc
}

/// The same walk, making the coordinate afresh at every position.
#[inline(never)]
fn recompute(sizes: (usize, usize, usize, usize), channel: isize) -> isize {
    let d = conv_input!(sizes.0, sizes.1, sizes.2, sizes.3);
    let mut acc = 0isize;
    for i in 0..d.lengths()[0] {
        let coord = make_tensor_coordinate(&d, &multi_index([i, channel]));
        if coord.is_valid_assuming_top_index_is_valid(&d) {
            acc = acc.wrapping_add(coord.offset());
        }
    }
    acc
}

/// A 64x64 packed tile copied into rows of 72: `copy_descriptor` moves rows of 8.
#[inline(never)]
fn copy_vectors(src: &[f32], dst: &mut [f32]) -> usize {
    let s = make_naive_tensor_descriptor_packed((C::<64>, C::<64>)).expect("valid");
    let d =
        make_naive_tensor_descriptor_guaranteed((64usize, 64usize), (72isize, 1isize), SafeVector::new(8, 1))
            .expect("valid");
    copy_descriptor(&s, src, &d, dst).expect("in bounds")
}

/// The same copy element by element, each offset from a fresh coordinate.
#[inline(never)]
fn copy_elements(src: &[f32], dst: &mut [f32]) {
    let s = make_naive_tensor_descriptor_packed((C::<64>, C::<64>)).expect("valid");
    let d =
        make_naive_tensor_descriptor_guaranteed((64usize, 64usize), (72isize, 1isize), SafeVector::UNKNOWN)
            .expect("valid");
    for i in 0..64 {
        for j in 0..64 {
            let top = multi_index([i, j]);
            dst[d.calculate_offset(&top) as usize] = src[s.calculate_offset(&top) as usize];
        }
    }
}

fn bench(c: &mut Criterion) {
    let sizes = (4usize, 28usize, 28usize, 64usize);
    assert_eq!(incremental(sizes, 5), recompute(sizes, 5));
    let mut g = c.benchmark_group("walk m of a merge+pad conv input (4,28,28,64), 3600 positions");
    g.bench_function("incremental (move_tensor_coordinate)", |b| {
        b.iter(|| incremental(black_box(sizes), black_box(5)))
    });
    g.bench_function("recompute (make_tensor_coordinate)", |b| {
        b.iter(|| recompute(black_box(sizes), black_box(5)))
    });
    g.finish();
    let src: Vec<f32> = (0..64 * 64).map(|i| i as f32).collect();
    let (mut a, mut b) = (vec![0f32; 64 * 72], vec![0f32; 64 * 72]);
    assert_eq!(copy_vectors(&src, &mut a), 8);
    copy_elements(&src, &mut b);
    assert_eq!(a, b);
    let mut g = c.benchmark_group("copy a 64x64 packed tile into rows of 72");
    g.bench_function("copy_descriptor (vectors of 8)", |bch| {
        bch.iter(|| copy_vectors(black_box(&src), &mut a))
    });
    g.bench_function("element by element", |bch| bch.iter(|| copy_elements(black_box(&src), &mut b)));
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--callgrind") {
        // `--callgrind [n]`: the batch size n (default 4); two runs at different n give the
        // instructions per position without the setup (the descriptor's construction).
        let n = args.get(at + 1).and_then(|a| a.parse().ok()).unwrap_or(4usize);
        let sizes = (n, 28usize, 28usize, 64usize);
        let (i, r) = (incremental(black_box(sizes), black_box(5)), recompute(black_box(sizes), black_box(5)));
        assert_eq!(i, r);
        println!("walks agree: {i}");
        let src: Vec<f32> = (0..64 * 64).map(|i| i as f32).collect();
        let (mut a, mut b) = (vec![0f32; 64 * 72], vec![0f32; 64 * 72]);
        copy_vectors(black_box(&src), &mut a);
        copy_elements(black_box(&src), &mut b);
        assert_eq!(a, b);
        println!("copies agree");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
