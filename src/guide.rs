//! Guides: documentation pages with runnable examples (each code block is a doctest).

/// const-layout for CuTe users: CuTe's C++ next to this crate, side by side.
#[doc = include_str!("guide/for_cute_users.md")]
pub mod for_cute_users {}
