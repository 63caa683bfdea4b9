//! The name of a kind this gpubench does not know: a metric or a warning kind written by a newer
//! gpubench. The results contract lets new kinds arrive without a new `schema_version`, so a
//! reader keeps such a name as written, shows it, and never judges it.
//!
//! The name is held inline, so [`crate::MetricKind`] and [`crate::warnings::WarningKind`] stay
//! `Copy` (code everywhere passes them by value) without leaking memory for every name a file
//! brings. That bounds a name to [`KindName::CAPACITY`] bytes, which the published schema states
//! (`maxLength`); a longer one is refused with a reason that names the limit.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A kind's name as written in a file, 1 to [`KindName::CAPACITY`] bytes of UTF-8.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KindName {
    /// Bytes in use at the front of `bytes`.
    len: u8,
    /// The name, zero-padded: equality and hashing over the whole array are over the name.
    bytes: [u8; KindName::CAPACITY],
}

/// Why a name cannot be a kind's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KindNameError {
    /// The name is the empty string.
    #[error("a kind's name is empty")]
    Empty,
    /// The name is longer than a reader keeps.
    #[error(
        "the kind name '{prefix}...' is {len} bytes long; gpubench reads names of up to {} bytes",
        KindName::CAPACITY
    )]
    TooLong {
        /// The name's first characters, for the message.
        prefix: String,
        /// Its length in bytes.
        len: usize,
    },
}

impl KindName {
    /// The longest name kept, in bytes.
    pub const CAPACITY: usize = 63;

    /// `name`, when it is 1 to [`KindName::CAPACITY`] bytes long.
    pub fn new(name: &str) -> Result<Self, KindNameError> {
        if name.is_empty() {
            return Err(KindNameError::Empty);
        }
        let len = u8::try_from(name.len())
            .ok()
            .filter(|&len| usize::from(len) <= Self::CAPACITY)
            .ok_or_else(|| KindNameError::TooLong {
                prefix: name.chars().take(24).collect(),
                len: name.len(),
            })?;
        let mut bytes = [0; Self::CAPACITY];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(Self { len, bytes })
    }

    /// A name fixed in the source (a suite's own warning kind), checked when the constant is
    /// evaluated: an empty or too long name does not compile where it is used in a `const`.
    pub const fn fixed(name: &'static str) -> Self {
        let source = name.as_bytes();
        assert!(
            !source.is_empty() && source.len() <= Self::CAPACITY,
            "a kind's name is 1 to 63 bytes"
        );
        let mut bytes = [0; Self::CAPACITY];
        let mut i = 0;
        while i < source.len() {
            bytes[i] = source[i];
            i += 1;
        }
        Self {
            len: source.len() as u8,
            bytes,
        }
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        // Always whole UTF-8: `new` copies a `&str` whole, never cutting a character.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl PartialOrd for KindName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Alphabetical, as the names read (not by length first, as the fields would order them).
impl Ord for KindName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for KindName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("KindName").field(&self.as_str()).finish()
    }
}

impl fmt::Display for KindName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for KindName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        KindName::new(&name).map_err(serde::de::Error::custom)
    }
}

/// Any name of 1 to [`KindName::CAPACITY`] bytes: the open part of the contract.
impl JsonSchema for KindName {
    fn schema_name() -> Cow<'static, str> {
        "KindName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A kind this version does not know, written by a newer gpubench: readers keep it as written, show it, and never judge it.",
            "type": "string",
            "minLength": 1,
            // A JSON Schema length counts characters, the limit bytes: a name of multi-byte
            // characters can pass the schema and still be refused, never the reverse.
            "maxLength": KindName::CAPACITY,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_whole_up_to_the_capacity() {
        let name = KindName::new("joules-per-request").expect("a short name");
        assert_eq!(name.as_str(), "joules-per-request");
        assert_eq!(name.to_string(), "joules-per-request");
        let longest = "é".repeat(KindName::CAPACITY / 2) + "x";
        assert_eq!(longest.len(), KindName::CAPACITY);
        assert_eq!(KindName::new(&longest).expect("fits").as_str(), longest);
        let error = KindName::new(&"x".repeat(KindName::CAPACITY + 1)).expect_err("too long");
        assert!(error.to_string().contains("64 bytes long"), "{error}");
        assert_eq!(KindName::new(""), Err(KindNameError::Empty));
        // Longer than a u8 counts: refused, not wrapped round.
        assert!(KindName::new(&"y".repeat(300)).is_err());
    }

    #[test]
    fn names_order_alphabetically_and_round_trip_as_strings() {
        let (a, b) = (
            KindName::new("zz").expect("name"),
            KindName::new("aaa").expect("name"),
        );
        assert!(b < a, "alphabetical, not shortest first");
        let json = serde_json::to_string(&a).expect("serialise");
        assert_eq!(json, "\"zz\"");
        assert_eq!(serde_json::from_str::<KindName>(&json).expect("read"), a);
        let escaped: KindName = serde_json::from_str(r#""a\u00e9b""#).expect("escaped JSON");
        assert_eq!(escaped.as_str(), "aéb");
    }
}
