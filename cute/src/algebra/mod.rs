//! CuTe's layout algebra, its three front ends side by side. The same operations, with CuTe's
//! names and one implementation of each rule underneath ([`rules`]), for the three ways a
//! layout's structure can be known:
//!
//! | the layout | module | results | errors |
//! |---|---|---|---|
//! | structure known only at run time ([`DynLayout`](crate::dyn_layout::DynLayout): text, host tools) | this module's functions (`composition`, `complement`, `logical_divide`, ...) | [`DynLayout`](crate::dyn_layout::DynLayout) | `Result` |
//! | static, generic over type parameters | [`computed`] | zero-sized [`Computed`](computed::Computed) layouts computed at compile time | compile errors (full build) |
//! | typed, with runtime integers (static tiles over runtime problem sizes) | [`typed`] (`composition`, `complement`), [`tiling`] (the divides and `local_tile` by shape tilers) | typed [`Layout`](crate::Layout)s: structure in the type, values at run time | `Result` once |
//! | any typed layout, by its methods | [`methods`] (`l.composition(&b)`, `l.zipped_divide(t)`, ...) | a static layout's static result, a runtime layout's runtime one | the path's |
//!
//! The runtime-structured functions are the core crate's (`const_layout_core::algebra`, where
//! the `layout!` macro runs them at expansion time), re-exported here with their documentation:
//! CuTe's admissibility conditions (DECISIONS.md 2 and 6), identity layouts, and the differences
//! from AMD's FLIR.
//!
//! ```
//! use const_layout::algebra::{computed, tiling};
//! use const_layout::dyn_layout::DynLayout;
//! use const_layout::{C, LayoutLeft, layout_type, make_layout};
//! // Runtime structure.
//! let d: DynLayout = "(8,6):(1,8)".parse().unwrap();
//! let t = "<4:1, 3:1>".parse().unwrap();
//! assert_eq!(const_layout::algebra::zipped_divide(&d, &t).unwrap().to_string(), "((4,3),((1,2),(1,2))):((1,8),((1,4),(8,24)))");
//! // Static, at compile time.
//! let s = computed::zipped_divide(<layout_type!((8,6):(1,8))>::default(), (C::<4>, C::<3>));
//! assert_eq!(s.to_string(), "((_4,_3),(_2,_2)):((_1,_8),(_4,_24))");
//! // Typed, runtime values.
//! let r = tiling::zipped_divide(&make_layout((8usize, 6usize), LayoutLeft).unwrap(), (C::<4>, C::<3>)).unwrap();
//! assert_eq!(r.to_string(), "((_4,_3),(2,2)):((_1,8),(_4,24))");
//! ```

#[doc(inline)]
pub use const_layout_core::algebra::*;

pub mod computed;
pub mod methods;
pub mod tiling;
pub mod typed;
