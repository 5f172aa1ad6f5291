//! serde for CK Tile descriptors and adaptors (feature `serde`): written as the
//! [text](super::TransformText) `Display` prints, in every format, and read back by `FromStr`,
//! checked against the type. A text whose structure is not the type's, or whose values the
//! transforms refuse, is a serde error with the parser's message and column.
//!
//! ```
//! use const_layout::ck_tile::{PackedDescriptor, make_naive_tensor_descriptor_packed, multi_index};
//! use const_layout::C;
//! type D = PackedDescriptor<(usize, C<8>)>;
//! let d: D = make_naive_tensor_descriptor_packed((6usize, C::<8>)).unwrap();
//! let json = serde_json::to_string(&d).unwrap();
//! // A packed descriptor guarantees unit-stride vectors along its last dimension.
//! assert_eq!(
//!     json,
//!     r#""tensor_descriptor{transforms: [unmerge((6,_8)): [1,2] -> [0]], top: [1,2], element_space_size: 48, guaranteed: [(-1,1),(-1,-1),(8,1)]}""#
//! );
//! let back: D = serde_json::from_str(&json).unwrap();
//! assert_eq!(back.calculate_offset(&multi_index([5, 7])), 47);
//! let e = serde_json::from_str::<D>(&json.replace("_8", "_4")).unwrap_err().to_string();
//! assert!(e.starts_with("column 40: lengths integer 1 is 4 where the type has the static _8"), "{e}");
//! ```

use super::adaptor::TensorAdaptor;
use super::descriptor::TensorDescriptor;
use super::ids::Sequence;
use super::text::StagesText;
use generic_array::ArrayLength;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<S: StagesText, H: ArrayLength, Top: Sequence> Serialize for TensorDescriptor<S, H, Top> {
    /// The descriptor's text, as `Display` prints it.
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_str(self)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, S: StagesText, H: ArrayLength, Top: Sequence> Deserialize<'de> for TensorDescriptor<S, H, Top> {
    /// Reads the descriptor's text, checked against the type.
    fn deserialize<Z: Deserializer<'de>>(d: Z) -> Result<Self, Z::Error> {
        crate::serde_text::deserialize_text(
            d,
            "a CK Tile descriptor as text, such as \"tensor_descriptor{..}\"",
            |s| s.parse::<Self>(),
        )
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence> Serialize
    for TensorAdaptor<S, H, Top, Bottom>
{
    /// The adaptor's text, as `Display` prints it.
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_str(self)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, S: StagesText, H: ArrayLength, Top: Sequence, Bottom: Sequence> Deserialize<'de>
    for TensorAdaptor<S, H, Top, Bottom>
{
    /// Reads the adaptor's text, checked against the type.
    fn deserialize<Z: Deserializer<'de>>(d: Z) -> Result<Self, Z::Error> {
        crate::serde_text::deserialize_text(
            d,
            "a CK Tile adaptor as text, such as \"tensor_adaptor{..}\"",
            |s| s.parse::<Self>(),
        )
    }
}
