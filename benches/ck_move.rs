//! CK Tile's incremental coordinate movement against recomputing: a padded NHWC convolution input
//! (N, H, W, C) = (4, 28, 28, 64) with H and W padded by 1, (n, hp, wp) merged into m (CK's
//! merge + pad descriptor, runtime sizes), walked along m one step at a time, reading the offset
//! and validity of every position. `incremental` moves one coordinate (`move_tensor_coordinate`:
//! pads add the step, the merge carries and borrows); `recompute` makes the coordinate afresh at
//! every position (`make_tensor_coordinate`: divisions through the merge). Both visit the same
//! positions and sum the same offsets (checked once before timing).

use const_layout::transform::{
    Merge, Pad, PassThrough, Stage, make_naive_tensor_descriptor_packed, make_tensor_coordinate,
    move_tensor_coordinate, multi_index, transform_tensor_descriptor,
};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use typenum::{U2, U4};

/// The descriptor, built where it is used (as a kernel builds it), from runtime sizes: the hidden
/// ids are then constants the compiler sees, the sizes are not.
macro_rules! conv_input {
    ($n:expr, $h:expr, $w:expr, $ch:expr) => {{
        let (n, h, w, ch) = ($n, $h, $w, $ch);
        let x = make_naive_tensor_descriptor_packed((n, h, w, ch)).expect("valid");
        let padded = transform_tensor_descriptor::<_, _, _, _, U4>(
            x,
            (
                Stage::new(PassThrough::new(n), [0], [0]),
                Stage::new(Pad::new(h, 1usize, 1usize), [1], [1]),
                Stage::new(Pad::new(w, 1usize, 1usize), [2], [2]),
                Stage::new(PassThrough::new(ch), [3], [3]),
            ),
        )
        .expect("valid");
        transform_tensor_descriptor::<_, _, _, _, U2>(
            padded,
            (
                Stage::new(Merge::new((n, h + 2, w + 2)).expect("positive"), [0, 1, 2], [0]),
                Stage::new(PassThrough::new(ch), [3], [1]),
            ),
        )
        .expect("valid")
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
