//! serde support (feature `serde`): the runtime values serialize as CuTe's text, the notation the
//! `layout` tool prints and reads, in every format (a JSON string, a length-prefixed string in a
//! binary format), and deserialize by parsing it, so a value round-trips exactly and a file of
//! layouts reads as a CuTe user writes them. Malformed text is a serde error carrying the parser's
//! one-line message (with its column); it never panics.
//!
//! | type | text |
//! |---|---|
//! | [`DynIntTuple`] | `(_8,(4,_2))` |
//! | [`DynLayout`] | `(_8,(_4,_2)):(_1,(_8,_32))` |
//! | [`Swizzle`] | `Sw<3,4,3>` |
//! | [`ComposedLayout`] | `Sw<3,3,3> o _0 o (_8,_64):(_64,_1)` |
//! | [`Tiler`] | `<_4:_1, _3:_1>` |
//! | [`LinearLayout`] | `linear((1,2,4),3)` |
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use const_layout::dyn_layout::DynLayout;
//! let l: DynLayout = "(_8,(4,_2)):(_1,(_8,32))".parse().unwrap();
//! let json = serde_json::to_string(&l).unwrap();
//! assert_eq!(json, "\"(_8,(4,_2)):(_1,(_8,32))\"");
//! assert_eq!(serde_json::from_str::<DynLayout>(&json).unwrap(), l);
//! let e = serde_json::from_str::<DynLayout>("\"(8,4):(1\"").unwrap_err().to_string();
//! assert!(e.contains("column"), "{e}");
//! # }
//! ```

use crate::algebra::Tiler;
use crate::dyn_layout::{DynIntTuple, DynLayout};
use crate::eval::{Value, eval};
use crate::f2::linear::LinearLayout;
use crate::swizzle::{ComposedLayout, Swizzle};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// A visitor that reads a string and parses it with `parse`, naming `expecting` otherwise.
struct Text<T, E> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, E>,
}

/// Why a text did not parse: the parser's error, or a value of another kind.
enum TextError {
    Parse(crate::text::ParseError),
    Eval(crate::eval::EvalError),
    Kind(&'static str),
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Parse(e) => write!(f, "{e}"),
            TextError::Eval(e) => write!(f, "{e}"),
            TextError::Kind(k) => write!(f, "the text is not {k}"),
        }
    }
}

impl<T, E: fmt::Display> Visitor<'_> for Text<T, E> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<Er: de::Error>(self, s: &str) -> Result<T, Er> {
        (self.parse)(s).map_err(Er::custom)
    }

    fn visit_bytes<Er: de::Error>(self, b: &[u8]) -> Result<T, Er> {
        match core::str::from_utf8(b) {
            Ok(s) => self.visit_str(s),
            Err(_) => Err(Er::invalid_value(de::Unexpected::Bytes(b), &self)),
        }
    }
}

/// Deserialize a value written as text: `parse` reads the string the format holds, and its error
/// becomes the format's, with the parser's message. The typed layer's serde (typed layouts, CK
/// Tile descriptors, rocRoller graphs) reads its text through this.
#[doc(hidden)]
pub fn deserialize_text<'de, D: Deserializer<'de>, T, E: fmt::Display>(
    d: D,
    expecting: &'static str,
    parse: fn(&str) -> Result<T, E>,
) -> Result<T, D::Error> {
    d.deserialize_str(Text { expecting, parse })
}

fn text<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    parse: fn(&str) -> Result<T, TextError>,
) -> Result<T, D::Error> {
    deserialize_text(d, expecting, parse)
}

/// `s` evaluated, if it is the kind `pick` takes.
fn evaluated<T>(s: &str, kind: &'static str, pick: fn(Value) -> Option<T>) -> Result<T, TextError> {
    let v = eval(s).map_err(TextError::Eval)?;
    pick(v).ok_or(TextError::Kind(kind))
}

macro_rules! as_text {
    ($($ty:ty, $expecting:literal, $parse:expr;)+) => {$(
        impl Serialize for $ty {
            /// CuTe's text, as `Display` prints it.
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            /// Parses CuTe's text; an error carries the parser's message.
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                text(d, $expecting, $parse)
            }
        }
    )+};
}

as_text! {
    DynIntTuple, "an int tuple in CuTe's notation, such as \"(_8,(4,_2))\"",
        |s| s.parse().map_err(TextError::Parse);
    DynLayout, "a layout in CuTe's notation, such as \"(_8,_4):(_1,_8)\"",
        |s| s.parse().map_err(TextError::Parse);
    Tiler, "a tiler in CuTe's notation, such as \"<_4:_1, _3:_1>\"",
        |s| s.parse().map_err(TextError::Parse);
    Swizzle, "a swizzle, such as \"Sw<3,4,3>\"",
        |s| evaluated(s, "a swizzle", |v| if let Value::Swizzle(x) = v { Some(x) } else { None });
    ComposedLayout, "a composed layout, such as \"Sw<3,3,3> o _0 o (_8,_64):(_64,_1)\"",
        |s| evaluated(s, "a composed layout", |v| if let Value::Composed(x) = v { Some(x) } else { None });
    LinearLayout, "a linear layout, such as \"linear((1,2,4),3)\"",
        |s| evaluated(s, "a linear layout", |v| if let Value::Linear(x) = v { Some(x) } else { None });
}
