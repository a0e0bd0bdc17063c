//! Stored JSON values as the chain reads them (decoded, as text, or as text with its canonical
//! form worked out once), and the canonical form itself: compact, every object's keys sorted.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::store::chain::{JsonText, LoggedEntry};

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
        let canonical = crate::service::canonical::canonicalize(&text, &mut canonical)
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
            // serde_json is built without `preserve_order`: a value's maps write their keys sorted.
            Json::Value(value) => serde_json::to_writer(out, value),
            Json::Text(text) => crate::service::canonical::canonicalize(text, out),
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

/// The compact JSON of a value with every object's keys sorted: the same bytes for the same
/// content however it was stored or sent.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
