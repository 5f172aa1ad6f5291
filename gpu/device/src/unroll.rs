//! `unroll!`: a loop written once and emitted once per index, each index a constant.

/// `unroll!(i in 0..N => { body })`: `body` emitted `N` times with `i` the constants `0..N`
/// (`N` a literal: 1 to 16, 32 or 64). CUDA's `#pragma unroll` for the loops whose index selects a
/// register (an accumulator array indexed by a runtime value would be spilled to local memory);
/// the optimizer usually unrolls such loops by itself, this makes it certain. The body cannot
/// `break` or `continue`.
///
/// ```
/// use const_layout_device::unroll;
/// let mut acc = [0usize; 8];
/// unroll!(i in 0..8 => { acc[i] = i * i; });
/// assert_eq!(acc[7], 49);
/// ```
#[macro_export]
macro_rules! unroll {
    ($i:ident in 0..$n:tt => $b:block) => { $crate::unroll!(@ $i, $n, $b) };
    (@ $i:ident, 1, $b:block) => { $crate::unroll!(@seq $i, $b, 0) };
    (@ $i:ident, 2, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1) };
    (@ $i:ident, 3, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2) };
    (@ $i:ident, 4, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3) };
    (@ $i:ident, 5, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4) };
    (@ $i:ident, 6, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5) };
    (@ $i:ident, 7, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6) };
    (@ $i:ident, 8, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7) };
    (@ $i:ident, 9, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8) };
    (@ $i:ident, 10, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9) };
    (@ $i:ident, 11, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10) };
    (@ $i:ident, 12, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11) };
    (@ $i:ident, 13, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12) };
    (@ $i:ident, 14, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12 13) };
    (@ $i:ident, 15, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14) };
    (@ $i:ident, 16, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15) };
    (@ $i:ident, 32, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31) };
    (@ $i:ident, 64, $b:block) => { $crate::unroll!(@seq $i, $b, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63) };
    (@seq $i:ident, $b:block, $($k:literal)*) => { $( { #[allow(clippy::identity_op, clippy::erasing_op)] let $i: usize = $k; $b } )* };
}
