//! Names of runtime values (kernel arguments, registers): a `&'static str` from code, or a short
//! inline copy from text, so that a graph read from text holds its names without a heap.

use core::fmt;
use core::hash::{Hash, Hasher};

/// The longest name [`Name::new`] copies (and the graph's text notation reads): a `Name` is then
/// as large as a `&str` and its tag, 24 bytes.
///
/// ```
/// use const_layout::rocroller::{MAX_NAME_LEN, Name};
/// assert!(Name::new(&"n".repeat(MAX_NAME_LEN)).is_some());
/// assert!(Name::new(&"n".repeat(MAX_NAME_LEN + 1)).is_none());
/// ```
pub const MAX_NAME_LEN: usize = 22;

/// The name of a runtime value: a dimension's runtime size or stride (a kernel argument such as
/// `N`), a variable of an index expression ([`Arena::var`](super::Arena::var)).
///
/// From code it is any `&'static str` ([`Name::from_static`], `From<&'static str>`), kept as
/// given; from text it is an ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`) of at most
/// [`MAX_NAME_LEN`] bytes, copied inline ([`Name::new`]). Names are equal, and hash, by content.
///
/// ```
/// use const_layout::rocroller::Name;
/// let n = Name::new("lda").unwrap();
/// assert_eq!(n, Name::from("lda"));
/// assert_eq!((n.as_str(), n.to_string()), ("lda", "lda".to_string()));
/// assert!(Name::new("2x").is_none() && Name::new("").is_none());
/// // A name from code may be anything; only identifiers can be written in the text notation.
/// let reg = Name::from_static("blockIdx.x");
/// assert!(!reg.is_identifier());
/// ```
#[derive(Clone, Copy)]
pub struct Name(Repr);

#[derive(Clone, Copy)]
enum Repr {
    Static(&'static str),
    Inline { len: u8, bytes: [u8; MAX_NAME_LEN] },
}

impl Name {
    /// A name from code, kept as given (any text: it need not be an identifier).
    ///
    /// ```
    /// use const_layout::rocroller::Name;
    /// const N: Name = Name::from_static("N");
    /// assert_eq!(N.as_str(), "N");
    /// ```
    pub const fn from_static(name: &'static str) -> Self {
        Name(Repr::Static(name))
    }

    /// A copy of `name` if it is an ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`) of at most
    /// [`MAX_NAME_LEN`] bytes, else `None`.
    ///
    /// ```
    /// use const_layout::rocroller::Name;
    /// let owned = String::from("stride_k");
    /// assert_eq!(Name::new(&owned).map(|n| n.to_string()), Some(owned.clone()));
    /// assert!(Name::new("a-b").is_none());
    /// ```
    pub fn new(name: &str) -> Option<Self> {
        if name.len() > MAX_NAME_LEN || !is_identifier(name) {
            return None;
        }
        let mut bytes = [0; MAX_NAME_LEN];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(Name(Repr::Inline { len: name.len() as u8, bytes }))
    }

    /// The name.
    ///
    /// ```
    /// use const_layout::rocroller::Name;
    /// assert_eq!(Name::new("M").unwrap().as_str(), "M");
    /// ```
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(s) => s,
            // Inline names are ASCII by construction, so the fallback is never taken.
            Repr::Inline { len, bytes } => {
                bytes.get(..*len as usize).and_then(|b| core::str::from_utf8(b).ok()).unwrap_or("")
            }
        }
    }

    /// Whether the text notation can write it and read it back: an ASCII identifier of at most
    /// [`MAX_NAME_LEN`] bytes (every name [`Name::new`] makes is one).
    ///
    /// ```
    /// use const_layout::rocroller::Name;
    /// assert!(Name::from("K").is_identifier());
    /// assert!(!Name::from("threadIdx.x").is_identifier());
    /// assert!(!Name::from("a_name_longer_than_22_bytes").is_identifier());
    /// ```
    pub fn is_identifier(&self) -> bool {
        let s = self.as_str();
        s.len() <= MAX_NAME_LEN && is_identifier(s)
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

impl From<&'static str> for Name {
    /// [`Name::from_static`].
    fn from(name: &'static str) -> Self {
        Name::from_static(name)
    }
}

impl PartialEq for Name {
    fn eq(&self, o: &Self) -> bool {
        self.as_str() == o.as_str()
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

/// As a string literal, the way `&str` prints.
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The name itself.
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
