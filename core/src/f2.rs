//! The work over F2, the field of two elements: shared memory's bank arithmetic is XOR on address
//! bits, and so are swizzles, so one model covers the three.
//!
//! - [`linear`]: linear layouts (Triton's `LinearLayout`), a layout as a matrix over F2 from input
//!   bits to output bits, with exact conversions from CuTe's power-of-two layouts, swizzles and
//!   thread-value layouts.
//! - [`bank`]: shared-memory bank conflicts of an access, on a bank model (NVIDIA's, measured on
//!   the H200, or AMD's LDS), in closed form for linear accesses and by simulation for any.
//! - [`synthesis`]: the swizzle that maximises an access pair's vector widths and then minimises
//!   their bank conflicts, by exhaustive search.
//!
//! Each builds on the one before it. They are also at the crate's top level
//! (`const_layout_core::linear` is `const_layout_core::f2::linear`), as before this module held
//! them.
//!
//! ```
//! use const_layout::f2::linear::LinearLayout;
//! use const_layout::swizzle::Swizzle;
//! // CuTe's Sw<3,3,3> is linear over F2: each input bit maps to one or two output bits.
//! let sw = LinearLayout::from_swizzle(Swizzle::new(3, 3, 3).unwrap(), 9);
//! assert_eq!(sw.apply(0b001_000_000), 0b001_001_000);
//! ```

pub mod bank;
pub mod linear;
pub mod synthesis;
