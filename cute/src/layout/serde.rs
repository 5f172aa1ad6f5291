//! serde for typed layouts (feature `serde`): a `Layout<S, D>` serializes as CuTe's text, the
//! [`Display`](core::fmt::Display) form (`(_8,4):(_1,_8)`), and deserializes by parsing it and
//! checking it against the type ([`Layout`]'s `FromStr`): the type fixes the nesting and the
//! static integers, the text gives the runtime ones. So a configuration file can hold a kernel's
//! runtime-sized layouts as a CuTe user writes them, and a text that does not fit the type is an
//! error naming the integer, never a layout the type does not describe.
//!
//! ```
//! use const_layout::{C, Layout, make_layout};
//! type A = Layout<(u32, u32), (C<1>, u32)>;
//! let a: A = make_layout((100u32, 64u32), (C::<1>, 100u32)).unwrap();
//! let json = serde_json::to_string(&a).unwrap();
//! assert_eq!(json, r#""(100,64):(_1,100)""#);
//! assert_eq!(serde_json::from_str::<A>(&json).unwrap(), a);
//! let e = serde_json::from_str::<A>(r#""(100,64):(2,100)""#).unwrap_err().to_string();
//! assert!(e.starts_with("column 1: stride integer 0 is 2 where the type has the static _1"), "{e}");
//! ```

use super::{Layout, LayoutShape};
use crate::int_tuple::IntTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<S: IntTuple + LayoutShape<D>, D: IntTuple> Serialize for Layout<S, D> {
    /// CuTe's text, as `Display` prints it.
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_str(self)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, S: IntTuple + LayoutShape<D>, D: IntTuple> Deserialize<'de> for Layout<S, D> {
    /// Parses CuTe's text and checks it against the type; an error carries the message.
    fn deserialize<Z: Deserializer<'de>>(d: Z) -> Result<Self, Z::Error> {
        crate::serde_text::deserialize_text(
            d,
            "a layout in CuTe's notation, such as \"(_8,4):(_1,_8)\"",
            |s| s.parse::<Self>(),
        )
    }
}
