//! Codegen probes: static-layout index math next to hand-written integer arithmetic.
//!
//! `tests/codegen.rs` compiles this example with `--emit asm` and checks every `probe_*` function:
//! no division instruction, no jump or loop, no memory operand (outside `lea`), no call, push or
//! pop. It also counts instructions and compares each `probe_X` with its `hand_X` twin, the same
//! computation written as plain `usize` arithmetic, the way one would write it by hand.
//!
//! Conventions, which the test relies on:
//! - every probe and twin is `#[unsafe(no_mangle)] pub fn`, so its symbol in the assembly is its
//!   name and it is emitted even though nothing calls it;
//! - arguments are `usize` scalars and results are one or two scalars (returned in registers):
//!   nothing goes through memory. A coordinate of three or more integers is packed into one
//!   `usize` with [`pack3`] / [`pack5`], in the probe and its twin alike;
//! - `probe_X` has a twin `hand_X` (same arguments, same result for in-range inputs; the test
//!   checks that too, by including this file);
//! - `control_*` functions are deliberately *not* straight-line (a runtime extent): the test
//!   checks that the checker flags them, so a broken checker cannot pass silently.
//!
//! - `loop_tensor_X` / `loop_hand_X` pairs are whole loops over a static-layout tensor and the
//!   same loop over a slice written by hand (loads, stores and loops allowed): the test checks
//!   the tensor's is no longer than the hand-written one, i.e. that the tensor's bounds checks
//!   fold away as the hand-written loop's do.
//!
//! Run `cargo run -p const-layout-codegen-probes` to print a few values.

use const_layout::algebra::computed::{
    Keep, StaticLayout, local_partition, local_tile, make_identity_layout, slice_and_offset, swizzle,
    zipped_divide,
};
use const_layout::layout::LayoutCoord;
use const_layout::{
    AnyLayout, C, LayoutLeft, LayoutRight, layout, layout_type, make_layout, make_static_layout,
};

/// Three small coordinate integers in one `usize` (16 bits each, in order).
#[inline(always)]
pub fn pack3(a: usize, b: usize, c: usize) -> usize {
    a | (b << 16) | (c << 32)
}

/// Five small coordinate integers in one `usize` (8 bits each, in order).
#[inline(always)]
pub fn pack5(a: usize, b: usize, c: usize, d: usize, e: usize) -> usize {
    a | (b << 8) | (c << 16) | (d << 24) | (e << 32)
}

// --- The design card's layout `(8,(4,2)):(1,8)` = `(8,(4,2)):(1,(8,32))`: powers of two. ---

/// `crd2idx` of an integer index (split colexicographically).
#[unsafe(no_mangle)]
pub fn probe_card_index(i: usize) -> isize {
    layout!((8,(4,2)):(1,8)).crd2idx(i)
}
#[unsafe(no_mangle)]
pub fn hand_card_index(i: usize) -> isize {
    (i % 8 + (i / 8 % 4) * 8 + (i / 32) * 32) as isize
}

/// `crd2idx` of a hierarchical coordinate `(a,(b,c))`.
#[unsafe(no_mangle)]
pub fn probe_card_hier(a: usize, b: usize, c: usize) -> isize {
    layout!((8,(4,2)):(1,8)).crd2idx((a, (b, c)))
}
#[unsafe(no_mangle)]
pub fn hand_card_hier(a: usize, b: usize, c: usize) -> isize {
    (a + b * 8 + c * 32) as isize
}

/// `crd2idx` of a flat coordinate `(a, b)`, `b` split over the mode `(4,2)`.
#[unsafe(no_mangle)]
pub fn probe_card_flat(a: usize, b: usize) -> isize {
    layout!((8,(4,2)):(1,8)).crd2idx((a, b))
}
#[unsafe(no_mangle)]
pub fn hand_card_flat(a: usize, b: usize) -> isize {
    (a + (b % 4) * 8 + (b / 4) * 32) as isize
}

/// `idx2crd` of an integer index into the shape `(8,(4,2))` (the last mode absorbs the rest).
#[unsafe(no_mangle)]
pub fn probe_card_idx2crd(i: usize) -> usize {
    let (a, (b, c)) = layout!((8,(4,2)):(1,8)).idx2crd(i);
    pack3(a, b, c)
}
#[unsafe(no_mangle)]
pub fn hand_card_idx2crd(i: usize) -> usize {
    pack3(i % 8, i / 8 % 4, i / 32)
}

/// `get_hier_coord`: the coordinate of an offset, `(o / d) % s` at every integer.
#[unsafe(no_mangle)]
pub fn probe_card_hier_coord(o: usize) -> usize {
    let (a, (b, c)) = layout!((8,(4,2)):(1,8)).get_hier_coord(o);
    pack3(a as usize, b as usize, c as usize)
}
#[unsafe(no_mangle)]
pub fn hand_card_hier_coord(o: usize) -> usize {
    pack3(o % 8, o / 8 % 4, o / 32 % 2)
}

// --- `(3,(5,7)):(1,(3,15))`: extents that are not powers of two (multiply-shift, no `div`). ---

/// `crd2idx` of an integer index.
#[unsafe(no_mangle)]
pub fn probe_odd_index(i: usize) -> isize {
    layout!((3,(5,7)):(1,(3,15))).crd2idx(i)
}
#[unsafe(no_mangle)]
pub fn hand_odd_index(i: usize) -> isize {
    (i % 3 + (i / 3 % 5) * 3 + (i / 15) * 15) as isize
}

/// `crd2idx` of a hierarchical coordinate.
#[unsafe(no_mangle)]
pub fn probe_odd_hier(a: usize, b: usize, c: usize) -> isize {
    layout!((3,(5,7)):(1,(3,15))).crd2idx((a, (b, c)))
}
#[unsafe(no_mangle)]
pub fn hand_odd_hier(a: usize, b: usize, c: usize) -> isize {
    (a + b * 3 + c * 15) as isize
}

/// `idx2crd` of an integer index.
#[unsafe(no_mangle)]
pub fn probe_odd_idx2crd(i: usize) -> usize {
    let (a, (b, c)) = layout!((3,(5,7)):(1,(3,15))).idx2crd(i);
    pack3(a, b, c)
}
#[unsafe(no_mangle)]
pub fn hand_odd_idx2crd(i: usize) -> usize {
    pack3(i % 3, i / 3 % 5, i / 15)
}

/// `get_hier_coord` of an offset.
#[unsafe(no_mangle)]
pub fn probe_odd_hier_coord(o: usize) -> usize {
    let (a, (b, c)) = layout!((3,(5,7)):(1,(3,15))).get_hier_coord(o);
    pack3(a as usize, b as usize, c as usize)
}
#[unsafe(no_mangle)]
pub fn hand_odd_hier_coord(o: usize) -> usize {
    pack3(o % 3, o / 3 % 5, o / 15 % 7)
}

// --- `LayoutRight` over `(4,8)`: `(4,8):(8,1)`. ---

/// `crd2idx` of an integer index (still split colexicographically: first mode fastest).
#[unsafe(no_mangle)]
pub fn probe_right_index(i: usize) -> isize {
    make_static_layout((C::<4>, C::<8>), LayoutRight).crd2idx(i)
}
#[unsafe(no_mangle)]
pub fn hand_right_index(i: usize) -> isize {
    ((i % 4) * 8 + i / 4) as isize
}

/// `crd2idx` of a coordinate `(a, b)`.
#[unsafe(no_mangle)]
pub fn probe_right_coord(a: usize, b: usize) -> isize {
    make_static_layout((C::<4>, C::<8>), LayoutRight).crd2idx((a, b))
}
#[unsafe(no_mangle)]
pub fn hand_right_coord(a: usize, b: usize) -> isize {
    (a * 8 + b) as isize
}

/// `idx2crd` of an integer index (two integers: returned in a register pair).
#[unsafe(no_mangle)]
pub fn probe_right_idx2crd(i: usize) -> (usize, usize) {
    make_static_layout((C::<4>, C::<8>), LayoutRight).idx2crd(i)
}
#[unsafe(no_mangle)]
pub fn hand_right_idx2crd(i: usize) -> (usize, usize) {
    (i % 4, i / 4)
}

/// `get_hier_coord` of an offset: row-major, so the second mode is the fast one.
#[unsafe(no_mangle)]
pub fn probe_right_hier_coord(o: usize) -> (isize, isize) {
    make_static_layout((C::<4>, C::<8>), LayoutRight).get_hier_coord(o)
}
#[unsafe(no_mangle)]
pub fn hand_right_hier_coord(o: usize) -> (isize, isize) {
    ((o / 8 % 4) as isize, (o % 8) as isize)
}

// --- A deeper nest, `((2,2),(2,(2,2))):((1,8),(2,(16,4)))`: a bit permutation. ---

/// `crd2idx` of an integer index.
#[unsafe(no_mangle)]
pub fn probe_deep_index(i: usize) -> isize {
    layout!(((2,2),(2,(2,2))):((1,8),(2,(16,4)))).crd2idx(i)
}
#[unsafe(no_mangle)]
pub fn hand_deep_index(i: usize) -> isize {
    (i % 2 + (i / 2 % 2) * 8 + (i / 4 % 2) * 2 + (i / 8 % 2) * 16 + (i / 16) * 4) as isize
}

/// `crd2idx` of a hierarchical coordinate `((a,b),(c,(d,e)))`.
#[unsafe(no_mangle)]
pub fn probe_deep_hier(a: usize, b: usize, c: usize, d: usize, e: usize) -> isize {
    layout!(((2,2),(2,(2,2))):((1,8),(2,(16,4)))).crd2idx(((a, b), (c, (d, e))))
}
#[unsafe(no_mangle)]
pub fn hand_deep_hier(a: usize, b: usize, c: usize, d: usize, e: usize) -> isize {
    (a + b * 8 + c * 2 + d * 16 + e * 4) as isize
}

/// `crd2idx` of a flat coordinate `(x, y)`, each split within its mode.
#[unsafe(no_mangle)]
pub fn probe_deep_flat(x: usize, y: usize) -> isize {
    layout!(((2,2),(2,(2,2))):((1,8),(2,(16,4)))).crd2idx((x, y))
}
#[unsafe(no_mangle)]
pub fn hand_deep_flat(x: usize, y: usize) -> isize {
    (x % 2 + (x / 2) * 8 + (y % 2) * 2 + (y / 2 % 2) * 16 + (y / 4) * 4) as isize
}

/// `idx2crd` of an integer index.
#[unsafe(no_mangle)]
pub fn probe_deep_idx2crd(i: usize) -> usize {
    let ((a, b), (c, (d, e))) = layout!(((2,2),(2,(2,2))):((1,8),(2,(16,4)))).idx2crd(i);
    pack5(a, b, c, d, e)
}
#[unsafe(no_mangle)]
pub fn hand_deep_idx2crd(i: usize) -> usize {
    pack5(i % 2, i / 2 % 2, i / 4 % 2, i / 8 % 2, i / 16)
}

/// `get_hier_coord` of an offset.
#[unsafe(no_mangle)]
pub fn probe_deep_hier_coord(o: usize) -> usize {
    let ((a, b), (c, (d, e))) = layout!(((2,2),(2,(2,2))):((1,8),(2,(16,4)))).get_hier_coord(o);
    pack5(a as usize, b as usize, c as usize, d as usize, e as usize)
}
#[unsafe(no_mangle)]
pub fn hand_deep_hier_coord(o: usize) -> usize {
    pack5(o % 2, o / 8 % 2, o / 2 % 2, o / 16 % 2, o / 4 % 2)
}

// --- Controls: a runtime extent must be flagged (a real division). ---

/// `idx2crd` of an index into the shape `(n,4)`, `n` known only at run time: divides by `n`.
#[unsafe(no_mangle)]
pub fn control_runtime_extent(i: usize, n: usize) -> (usize, usize) {
    match make_layout((n, C::<4>), LayoutLeft) {
        Ok(l) => l.idx2crd(i),
        Err(_) => (0, 0),
    }
}

fn main() {
    use std::hint::black_box as bb;
    let i = bb(45usize);
    println!("card  index {i}: probe {} hand {}", probe_card_index(i), hand_card_index(i));
    println!("card  idx2crd {i}: probe {:#x} hand {:#x}", probe_card_idx2crd(i), hand_card_idx2crd(i));
    println!("odd   index {i}: probe {} hand {}", probe_odd_index(i), hand_odd_index(i));
    println!("odd   idx2crd {i}: probe {:#x} hand {:#x}", probe_odd_idx2crd(i), hand_odd_idx2crd(i));
    let j = bb(13usize);
    println!("right index {j}: probe {} hand {}", probe_right_index(j), hand_right_index(j));
    println!("deep  index {j}: probe {} hand {}", probe_deep_index(j), hand_deep_index(j));
    println!("control (n = 5) {j}: {:?}", control_runtime_extent(j, bb(5)));
}

/// A static algebra result from `layout!`: tile `(1,1)` of `zipped_divide((8,6):(1,8), <4:1,3:1>)`,
/// element `(a, b)` of the tile.
#[unsafe(no_mangle)]
pub fn probe_divide_tile(a: usize, b: usize) -> isize {
    layout!(zipped_divide((8,6):(1,8), <4:1, 3:1>)).crd2idx(((a, b), (1usize, 1usize)))
}
#[unsafe(no_mangle)]
pub fn hand_divide_tile(a: usize, b: usize) -> isize {
    (a + 4 + (b + 3) * 8) as isize
}

/// A static swizzle after a static layout: `Sw<3,4,3> o (8,64):(64,1)` at `(r, c)`.
#[unsafe(no_mangle)]
pub fn probe_swizzled(r: usize, c: usize) -> isize {
    layout!(composition(Sw<3,4,3>, (8,64):(64,1))).crd2idx((r, c))
}
#[unsafe(no_mangle)]
pub fn hand_swizzled(r: usize, c: usize) -> isize {
    let o = (r * 64 + c) as isize;
    o ^ ((o & (0b111 << 7)) >> 3)
}

/// The static algebra on type parameters (`algebra::computed`): a generic function tiles its
/// layout type; element `((a, b), (c, d))` of `zipped_divide((8,6):(1,8), (_4,_3))`.
fn generic_tiles<A: StaticLayout>(a: A, crd: ((usize, usize), (usize, usize))) -> isize {
    zipped_divide(a, (C::<4>, C::<3>)).crd2idx(crd)
}
#[unsafe(no_mangle)]
pub fn probe_generic_divide(a: usize, b: usize, c: usize, d: usize) -> isize {
    generic_tiles(<layout_type!((8,6):(1,8))>::default(), ((a, b), (c, d)))
}
#[unsafe(no_mangle)]
pub fn hand_generic_divide(a: usize, b: usize, c: usize, d: usize) -> isize {
    (a + b * 8 + c * 4 + d * 24) as isize
}

/// A generic kernel's block tile: `local_tile((8,6):(1,8), (_4,_3), (bm, bn))`, element `(a, b)`
/// of the tile, with the block coordinates at run time.
#[unsafe(no_mangle)]
pub fn probe_generic_local_tile(bm: usize, bn: usize, a: usize, b: usize) -> isize {
    let (tile, offset) = local_tile(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>), (bm, bn));
    offset + tile.crd2idx((a, b))
}
#[unsafe(no_mangle)]
pub fn hand_generic_local_tile(bm: usize, bn: usize, a: usize, b: usize) -> isize {
    (bm * 4 + bn * 24 + a + b * 8) as isize
}

/// A generic kernel's thread partition: `local_partition((8,6):(1,8), (4,3):(3,1), t)`, element
/// `(a, b)` of thread `t`'s elements.
#[unsafe(no_mangle)]
pub fn probe_generic_partition(t: usize, a: usize, b: usize) -> isize {
    let smem = <layout_type!((8,6):(1,8))>::default();
    let (mine, offset) = local_partition(smem, <layout_type!((4,3):(3,1))>::default(), t);
    offset + mine.crd2idx((a, b))
}
#[unsafe(no_mangle)]
pub fn hand_generic_partition(t: usize, a: usize, b: usize) -> isize {
    (t / 3 % 4 + t % 3 * 8 + a * 4 + b * 24) as isize
}

/// The generic path's swizzle: `Sw<3,4,3> o (8,64):(64,1)` through a type parameter, at `(r, c)`.
#[unsafe(no_mangle)]
pub fn probe_generic_swizzled(r: usize, c: usize) -> isize {
    swizzle::<3, 4, 3, _>(<layout_type!((8,64):(64,1))>::default()).crd2idx((r, c))
}
#[unsafe(no_mangle)]
pub fn hand_generic_swizzled(r: usize, c: usize) -> isize {
    let o = (r * 64 + c) as isize;
    o ^ ((o & (0b111 << 7)) >> 3)
}

/// The generic path's slice, CuTe's `tensor(_, k)`: column `k` of `(8,(2,3)):(1,(8,16))`, element
/// `i` of it.
#[unsafe(no_mangle)]
pub fn probe_generic_slice(k: usize, i: usize) -> isize {
    let (column, offset) = slice_and_offset((Keep, k), <layout_type!((8,(2,3)):(1,(8,16)))>::default());
    offset + column.crd2idx(i)
}
#[unsafe(no_mangle)]
pub fn hand_generic_slice(k: usize, i: usize) -> isize {
    (k % 2 * 8 + k / 2 * 16 + i) as isize
}

/// Predication with a static identity layout: element `(i, j)` of tile `(bm, bn)` of
/// `zipped_divide(make_identity_layout((_12,_16)), (_4,_8))` is row `i + 4 bm`, column `j + 8 bn`,
/// checked against runtime bounds.
#[unsafe(no_mangle)]
pub fn probe_generic_identity(i: usize, j: usize, bm: usize, bn: usize, m: usize, n: usize) -> bool {
    let tiles = zipped_divide(make_identity_layout((C::<12>, C::<16>)), (C::<4>, C::<8>));
    let (row, col): (usize, usize) = tiles.coord(((i, j), (bm, bn)));
    row < m && col < n
}
#[unsafe(no_mangle)]
pub fn hand_generic_identity(i: usize, j: usize, bm: usize, bn: usize, m: usize, n: usize) -> bool {
    i + 4 * bm < m && j + 8 * bn < n
}

// --- Tensor loops: a static-layout tensor against the same loop over a slice. ---

/// The 32x32 column-major layout of the tensor loops.
type Tile32 = layout_type!((32,32):(1,32));

/// Sum of a 32x32 column-major tile by `(i, j)`; 0 if the slice is too short.
#[unsafe(no_mangle)]
pub fn loop_tensor_sum(a: &[f32]) -> f32 {
    let Ok(t) = const_layout::make_tensor(a, Tile32::default()) else { return 0.0 };
    let mut s = 0.0;
    for j in 0..32usize {
        for i in 0..32usize {
            s += t[(i, j)];
        }
    }
    s
}
#[unsafe(no_mangle)]
pub fn loop_hand_sum(a: &[f32]) -> f32 {
    let Some(a) = a.get(..1024) else { return 0.0 };
    let mut s = 0.0;
    for j in 0..32 {
        for i in 0..32 {
            s += a[i + 32 * j];
        }
    }
    s
}

/// Scale a 32x32 column-major tile in place by `(i, j)`.
#[unsafe(no_mangle)]
pub fn loop_tensor_scale(a: &mut [f32], x: f32) {
    let Ok(mut t) = const_layout::make_tensor_mut(a, Tile32::default()) else { return };
    for j in 0..32usize {
        for i in 0..32usize {
            t[(i, j)] *= x;
        }
    }
}
#[unsafe(no_mangle)]
pub fn loop_hand_scale(a: &mut [f32], x: f32) {
    let Some(a) = a.get_mut(..1024) else { return };
    for j in 0..32 {
        for i in 0..32 {
            a[i + 32 * j] *= x;
        }
    }
}

/// Transpose a 32x32 tile: row-major source, column-major destination, by `tensor::copy`.
#[unsafe(no_mangle)]
pub fn loop_tensor_transpose(src: &[f32], dst: &mut [f32]) {
    let (Ok(a), Ok(mut b)) = (
        const_layout::make_tensor(src, <layout_type!((32,32):(32,1))>::default()),
        const_layout::make_tensor_mut(dst, Tile32::default()),
    ) else {
        return;
    };
    let _ = const_layout::tensor::copy(&a, &mut b);
}
#[unsafe(no_mangle)]
pub fn loop_hand_transpose(src: &[f32], dst: &mut [f32]) {
    let (Some(src), Some(dst)) = (src.get(..1024), dst.get_mut(..1024)) else { return };
    for j in 0..32 {
        for i in 0..32 {
            dst[i + 32 * j] = src[i * 32 + j];
        }
    }
}

// --- `AnyLayout`: the one trait over every layout kind, used generically. ---

/// A generic function over any layout kind: the trait's `crd2idx`.
#[inline(always)]
fn any_at<L: AnyLayout, Crd: LayoutCoord<L>>(l: &L, crd: Crd) -> isize {
    l.crd2idx(crd)
}

/// `Sw<3,3,3> o (8,64):(64,1)` (a typed `SwizzledLayout`) through `AnyLayout`, at `(r, c)`.
#[unsafe(no_mangle)]
pub fn probe_any_swizzled(r: usize, c: usize) -> isize {
    any_at(&layout!(composition(Sw<3,3,3>, (8,64):(64,1))), (r, c))
}
#[unsafe(no_mangle)]
pub fn hand_any_swizzled(r: usize, c: usize) -> isize {
    let o = (r * 64 + c) as isize;
    o ^ ((o & (0b111 << 6)) >> 3)
}

/// A `zipped_divide` result of the generic path (`Computed<..>`) through `AnyLayout`: element
/// `((a, b), (c, d))` of `zipped_divide((8,6):(1,8), (_4,_3))`.
#[unsafe(no_mangle)]
pub fn probe_any_divide(a: usize, b: usize, c: usize, d: usize) -> isize {
    let tiles = zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
    any_at(&tiles, ((a, b), (c, d)))
}
#[unsafe(no_mangle)]
pub fn hand_any_divide(a: usize, b: usize, c: usize, d: usize) -> isize {
    (a + b * 8 + c * 4 + d * 24) as isize
}

/// `Sw<3,3,3>` as the hand-written loops apply it.
#[inline(always)]
fn sw333(o: usize) -> usize {
    o ^ ((o & (0b111 << 6)) >> 3)
}

/// Sum of a swizzled 8x64 shared-memory tile, `Sw<3,3,3> o (8,64):(64,1)` (a typed
/// `SwizzledLayout`), by `(r, c)`; 0 if the slice is too short.
#[unsafe(no_mangle)]
pub fn loop_tensor_swizzled_sum(a: &[f32]) -> f32 {
    let Ok(t) = const_layout::make_tensor(a, layout!(composition(Sw<3,3,3>, (8,64):(64,1)))) else {
        return 0.0;
    };
    let mut s = 0.0;
    for r in 0..8usize {
        for c in 0..64usize {
            s += t[(r, c)];
        }
    }
    s
}
#[unsafe(no_mangle)]
pub fn loop_hand_swizzled_sum(a: &[f32]) -> f32 {
    let Some(a) = a.get(..512) else { return 0.0 };
    let mut s = 0.0;
    for r in 0..8 {
        for c in 0..64 {
            s += a[sw333(r * 64 + c)];
        }
    }
    s
}

/// Store into the same swizzled tile through the generic path's swizzle (`StaticSwizzled`).
#[unsafe(no_mangle)]
pub fn loop_tensor_generic_swizzled_store(a: &mut [f32], x: f32) {
    let smem = swizzle::<3, 3, 3, _>(<layout_type!((8,64):(64,1))>::default());
    let Ok(mut t) = const_layout::make_tensor_mut(a, smem) else { return };
    for r in 0..8usize {
        for c in 0..64usize {
            t[(r, c)] = x * c as f32;
        }
    }
}
#[unsafe(no_mangle)]
pub fn loop_hand_generic_swizzled_store(a: &mut [f32], x: f32) {
    let Some(a) = a.get_mut(..512) else { return };
    for r in 0..8 {
        for c in 0..64 {
            a[sw333(r * 64 + c)] = x * c as f32;
        }
    }
}

/// Scale a 32x32 column-major tile through `zipped_divide(.., (_8,_8))` (a `Computed<..>` of the
/// generic path), tile by tile.
#[unsafe(no_mangle)]
pub fn loop_tensor_divided_scale(a: &mut [f32], x: f32) {
    let tiles = zipped_divide(Tile32::default(), (C::<8>, C::<8>));
    let Ok(mut t) = const_layout::make_tensor_mut(a, tiles) else { return };
    for bj in 0..4usize {
        for bi in 0..4usize {
            for j in 0..8usize {
                for i in 0..8usize {
                    t[((i, j), (bi, bj))] *= x;
                }
            }
        }
    }
}
#[unsafe(no_mangle)]
pub fn loop_hand_divided_scale(a: &mut [f32], x: f32) {
    let Some(a) = a.get_mut(..1024) else { return };
    for bj in 0..4 {
        for bi in 0..4 {
            for j in 0..8 {
                for i in 0..8 {
                    a[(i + 8 * bi) + 32 * (j + 8 * bj)] *= x;
                }
            }
        }
    }
}
