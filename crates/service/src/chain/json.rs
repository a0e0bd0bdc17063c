//! Stored JSON values as the chain reads them (decoded, as text, or as text with its canonical
//! form worked out once), and the canonical form itself: RFC 8785's (`service::canonical`).

use serde::de::DeserializeOwned;
use serde_json::Value;

use tablekeeper_store::chain::{JsonText, LoggedEntry};

/// A stored JSON value as a row holds it: decoded, or as the text the database wrote (with its
/// canonical form, when that was worked out already).
#[derive(Debug, Clone, Copy)]
pub enum Json<'a> {
    Value(&'a Value),
    Text(&'a str),
    /// Text and its canonical form: the text as [`Json::Text`] is, written without working the
    /// form out again.
    Canonical {
        text: &'a str,
        canonical: &'a [u8],
    },
}

/// A row's field holding a stored JSON value.
pub trait AsJson {
    fn as_json(&self) -> Json<'_>;
}

impl AsJson for Value {
    fn as_json(&self) -> Json<'_> {
        Json::Value(self)
    }
}

impl AsJson for JsonText {
    fn as_json(&self) -> Json<'_> {
        Json::Text(&self.0)
    }
}

/// JSON text with its canonical form worked out once, for a reader that writes it more than
/// once (the audit compares a move's events and hashes them); text that is not JSON keeps none,
/// and reads as [`JsonText`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalText {
    text: String,
    canonical: Option<Vec<u8>>,
}

impl CanonicalText {
    pub fn new(JsonText(text): JsonText) -> CanonicalText {
        let mut canonical = Vec::with_capacity(text.len());
        let canonical = crate::canonical::canonicalize(&text, &mut canonical)
            .is_ok()
            .then_some(canonical);
        CanonicalText { text, canonical }
    }
}

impl AsJson for CanonicalText {
    fn as_json(&self) -> Json<'_> {
        match &self.canonical {
            Some(canonical) => Json::Canonical {
                text: &self.text,
                canonical,
            },
            None => Json::Text(&self.text),
        }
    }
}

/// The log with every entry's move and events held as [`CanonicalText`].
pub fn canonicalized(log: Vec<LoggedEntry<JsonText>>) -> Vec<LoggedEntry<CanonicalText>> {
    log.into_iter()
        .map(|m| LoggedEntry {
            seq: m.seq,
            entry: m.entry,
            kind: m.kind,
            seat: m.seat,
            body: CanonicalText::new(m.body),
            events: CanonicalText::new(m.events),
            voids_seq: m.voids_seq,
            part_of: m.part_of,
            position: m.position,
            recorded_by: m.recorded_by,
            recorded_at: m.recorded_at,
        })
        .collect()
}

impl Json<'_> {
    /// Appends its canonical form ([`canonical`]'s bytes).
    ///
    /// # Errors
    /// When text is not JSON.
    pub fn write_canonical(self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Json::Value(value) => {
                crate::canonical::canonicalize_value(value, out);
                Ok(())
            }
            Json::Text(text) => crate::canonical::canonicalize(text, out),
            Json::Canonical { canonical, .. } => {
                out.extend_from_slice(canonical);
                Ok(())
            }
        }
    }

    /// Decodes it as a `T`.
    ///
    /// # Errors
    /// When it is not a `T`: worded as the decoding of a value words it (the text's line and
    /// column left out), however it is held.
    pub fn decode<T: DeserializeOwned>(self) -> serde_json::Result<T> {
        match self {
            Json::Value(value) => T::deserialize(value),
            Json::Text(text) | Json::Canonical { text, .. } => {
                serde_json::from_str(text).or_else(|_| T::deserialize(&serde_json::from_str::<Value>(text)?))
            }
        }
    }
}

/// The canonical form of a value (RFC 8785, the JSON Canonicalization Scheme): the same bytes
/// for the same content however it was stored or sent.
pub fn canonical(value: &Value) -> String {
    let mut out = Vec::new();
    crate::canonical::canonicalize_value(value, &mut out);
    // The canonical form of a value holds only its strings' text and ASCII.
    String::from_utf8(out).unwrap_or_default()
}
