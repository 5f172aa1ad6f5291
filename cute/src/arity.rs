//! The tuple arities the library implements its traits for, as one macro.
//!
//! Every per-arity impl (int tuples, coordinates, layouts) is written once as a `macro_rules!` taking a
//! list of positions `[index A B C]`, where `A`, `B`, `C` are fresh type-parameter names for up to three
//! tuples of that arity walked together (for example shape, stride and coordinate). [`for_tuples`]
//! calls it for arities 1 through [`MAX_RANK`](crate::MAX_RANK) = 12, the largest tuple for which the
//! standard library implements `Debug` and `PartialEq`.

/// Calls `$m!` once per tuple arity 1..=12 with that many `[index A B C]` positions. Exported
/// (hidden) for const-layout-ck-tile's per-arity impls, as `const_layout_cute::__for_tuples`.
#[doc(hidden)]
#[macro_export]
macro_rules! __for_tuples {
    ($m:ident) => {
        $crate::__for_tuples!(@ $m []
            [0 A0 B0 C0] [1 A1 B1 C1] [2 A2 B2 C2] [3 A3 B3 C3] [4 A4 B4 C4] [5 A5 B5 C5]
            [6 A6 B6 C6] [7 A7 B7 C7] [8 A8 B8 C8] [9 A9 B9 C9] [10 A10 B10 C10]
            [11 A11 B11 C11]);
    };
    (@ $m:ident [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $m!($($done)* $next);
        $crate::__for_tuples!(@ $m [$($done)* $next] $($rest)*);
    };
    (@ $m:ident [$($done:tt)*]) => {};
}
pub(crate) use crate::__for_tuples as for_tuples;

/// Calls `$m!(prefix... positions...)` with every position of one arity annotated with its context:
/// `[index A B C [positions before it] [positions after it]]`. Used where a mode's result depends on
/// the modes before or after it (running products, CuTe's left-to-right division): the dependency is
/// written in closed form per mode, as a type of the earlier modes, instead of being threaded from mode
/// to mode through associated types, which makes rustc's trait solving exponential in the rank.
macro_rules! with_context {
    ($m:ident [$($prefix:tt)*]; $($pos:tt)+) => {
        $crate::arity::with_context!(@walk $m [$($prefix)*] [] [] $($pos)+);
    };
    (@walk $m:ident $prefix:tt [$($done:tt)*] [$($before:tt)*] [$i:tt $A:ident $B:ident $C:ident] $($rest:tt)*) => {
        $crate::arity::with_context!(@walk $m $prefix [$($done)* [$i $A $B $C [$($before)*] [$($rest)*]]] [$($before)* [$i $A $B $C]] $($rest)*);
    };
    (@walk $m:ident [$($prefix:tt)*] [$($done:tt)*] [$($before:tt)*]) => {
        $m!($($prefix)* $($done)*);
    };
}
pub(crate) use with_context;

/// The tuple type of the `A` names of a list of positions: `[0 A0 B0 C0] [1 A1 B1 C1]` is `(A0, A1,)`.
macro_rules! a_types {
    ($([$i:tt $A:ident $B:ident $C:ident])*) => { ($($A,)*) };
}
pub(crate) use a_types;

/// Calls `$m!([left positions] [right positions])` for every pair of *different* arities 1..=12:
/// the left tuple's positions name their type parameters `A`, the right tuple's `B`. Used for the
/// impls that exist only to report a rank mismatch with both ranks.
macro_rules! for_unequal_tuple_pairs {
    ($m:ident) => {
        $crate::arity::for_unequal_tuple_pairs!(@outer $m []
            [[0 A0 B0 C0] [1 A1 B1 C1] [2 A2 B2 C2] [3 A3 B3 C3] [4 A4 B4 C4] [5 A5 B5 C5]
             [6 A6 B6 C6] [7 A7 B7 C7] [8 A8 B8 C8] [9 A9 B9 C9] [10 A10 B10 C10] [11 A11 B11 C11]]
            [0 A0 B0 C0] [1 A1 B1 C1] [2 A2 B2 C2] [3 A3 B3 C3] [4 A4 B4 C4] [5 A5 B5 C5]
            [6 A6 B6 C6] [7 A7 B7 C7] [8 A8 B8 C8] [9 A9 B9 C9] [10 A10 B10 C10] [11 A11 B11 C11]);
    };
    // Only the pairs whose right tuple is longer than the left one.
    (@longer_only $m:ident) => {
        $crate::arity::for_unequal_tuple_pairs!(@outer_longer $m []
            [0 A0 B0 C0] [1 A1 B1 C1] [2 A2 B2 C2] [3 A3 B3 C3] [4 A4 B4 C4] [5 A5 B5 C5]
            [6 A6 B6 C6] [7 A7 B7 C7] [8 A8 B8 C8] [9 A9 B9 C9] [10 A10 B10 C10] [11 A11 B11 C11]);
    };
    (@outer_longer $m:ident [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $crate::arity::for_unequal_tuple_pairs!(@longer $m [$($done)* $next] [$($done)* $next] $($rest)*);
        $crate::arity::for_unequal_tuple_pairs!(@outer_longer $m [$($done)* $next] $($rest)*);
    };
    (@outer_longer $m:ident [$($done:tt)*]) => {};
    // For the left arity n (`$done $next`): every shorter right arity, then every longer one.
    (@outer $m:ident [$($done:tt)*] $all:tt $next:tt $($rest:tt)*) => {
        $crate::arity::for_unequal_tuple_pairs!(@shorter $m [$($done)* $next] [] $($done)*);
        $crate::arity::for_unequal_tuple_pairs!(@longer $m [$($done)* $next] [$($done)* $next] $($rest)*);
        $crate::arity::for_unequal_tuple_pairs!(@outer $m [$($done)* $next] $all $($rest)*);
    };
    (@outer $m:ident [$($done:tt)*] $all:tt) => {};
    (@shorter $m:ident $left:tt [$($r:tt)*] $next:tt $($rest:tt)*) => {
        $m!($left [$($r)* $next]);
        $crate::arity::for_unequal_tuple_pairs!(@shorter $m $left [$($r)* $next] $($rest)*);
    };
    (@shorter $m:ident $left:tt [$($r:tt)*]) => {};
    (@longer $m:ident $left:tt [$($r:tt)*] $next:tt $($rest:tt)*) => {
        $m!($left [$($r)* $next]);
        $crate::arity::for_unequal_tuple_pairs!(@longer $m $left [$($r)* $next] $($rest)*);
    };
    (@longer $m:ident $left:tt [$($r:tt)*]) => {};
}
pub(crate) use for_unequal_tuple_pairs;

/// The number of tokens given, as a constant expression: `count!(0 1 2)` is 3. Used to write a
/// tuple's rank into the const arguments of the diagnostic traits.
macro_rules! count {
    ($($i:tt)*) => { 0 $(+ { let _ = $i; 1 })* };
}
pub(crate) use count;
