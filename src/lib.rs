#![doc = include_str!("../README.md")]
#![no_std]
// docs.rs (`--cfg docsrs`, nightly rustdoc) marks each feature-gated item with its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// A facade (DECISIONS.md 19): the typed CuTe layer, CK Tile and rocRoller are crates of their
// own, so that the vendor wings build on the layer below them and not on each other; here they
// are at the paths they always had. Named one by one, so that the typed layer's own modules and
// items are documented here as if defined here while the core's modules stay re-exports and the
// hidden items hidden, as they were (`tests/architecture.rs` checks that every public name at the
// typed layer's root is here). CK Tile is a module, not a crate alias: through the alias rustc's
// diagnostics named its types `const_layout::const_layout_ck_tile::...`.
#[doc(inline)]
pub use const_layout_cute::int::consts::*;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
#[doc(inline)]
pub use const_layout_cute::serde_text;
#[cfg(feature = "proptest")]
#[cfg_attr(docsrs, doc(cfg(feature = "proptest")))]
#[doc(inline)]
pub use const_layout_cute::strategy;
#[doc(inline)]
pub use const_layout_cute::{
    AnyLayout, C, FastDivmod, Layout, LayoutError, LayoutLeft, LayoutRight, MAX_RANK, Tensor, TensorMut,
    make_layout, make_ordered_layout, make_static_layout, make_tensor, make_tensor_mut,
};
// The F2 modules where they were before `f2` held them, and the typed layer's per-arity macro
// (CK Tile's impls use it), hidden as in the typed layer.
#[doc(hidden)]
pub use const_layout_cute::{__for_tuples, bank, linear, synthesis};
#[doc(inline)]
pub use const_layout_cute::{
    algebra, atom, diagnostics, fast_div, guide, int, int_tuple, layout, picture, tensor,
};
pub use const_layout_cute::{coalescing, dyn_layout, error, eval, f2, swizzle, text};
#[doc(inline)]
pub use const_layout_cute::{coord, layout_type, shape, stride, tiler};

/// AMD CK Tile's coordinate transforms, tensor adaptors and descriptors: the crate
/// [const-layout-ck-tile](https://docs.rs/const-layout-ck-tile) (default feature `ck-tile`).
#[cfg(feature = "ck-tile")]
#[cfg_attr(docsrs, doc(cfg(feature = "ck-tile")))]
pub mod ck_tile {
    #[doc(inline)]
    pub use const_layout_ck_tile::*;
}
#[cfg(feature = "ck-tile")]
#[cfg_attr(docsrs, doc(cfg(feature = "ck-tile")))]
pub use const_layout_ck_tile::sequence;

/// AMD rocRoller's coordinate graph: the crate
/// [const-layout-rocroller](https://docs.rs/const-layout-rocroller) (default feature `rocroller`).
#[cfg(feature = "rocroller")]
#[cfg_attr(docsrs, doc(cfg(feature = "rocroller")))]
pub use const_layout_rocroller as rocroller;
