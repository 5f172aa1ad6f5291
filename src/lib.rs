#![no_std]
#![forbid(unsafe_code)]

mod arity;
pub mod int;
pub mod int_tuple;

pub use int::C;
pub use int::consts::*;

/// The largest number of modes a tuple may have at one level.
pub const MAX_RANK: usize = 12;
