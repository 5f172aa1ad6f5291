//! Guides: documentation pages with runnable examples (each code block is a doctest).

/// const-layout for CuTe users: CuTe's C++ next to this crate, side by side.
#[doc = include_str!("guide/for_cute_users.md")]
pub mod for_cute_users {}

/// Writing a kernel: a kernel crate of your own, from an empty directory to a launch on the GPU
/// (the device layer, the emulator, the PTX builder and the launcher).
#[doc = include_str!("guide/writing_a_kernel.md")]
pub mod writing_a_kernel {}
