//! The canonical form of JSON text (`chain::canonical`'s bytes: compact, every object's keys
//! sorted) written straight from the text, without building a `serde_json::Value`.
//!
//! Invariants: for any JSON text, [`canonicalize`] writes exactly the bytes `chain::canonical`
//! writes for the `Value` that text parses to: numbers as that `Value` holds them (integers
//! that fit 64 bits as integers, others as `f64`), strings unescaped and escaped again by
//! serde_json, and of keys given twice the last (as a map keeps it). The text is read into one
//! flat list of tokens borrowing its strings, so that a long log is written with a few
//! allocations per entry rather than one per key and value.
//!
//! Most stored text (the database's, serde_json's) is plain: strings without escapes, integers
//! short enough to be exact. Such text is written in one pass by a scanner of its own, which
//! copies strings and integers as they are (they are already written as serde_json writes
//! them) and reorders an object's members only when their keys are out of order; any other text
//! (an escape, a fraction, a long number, text that is not JSON) is read through serde_json,
//! which decides what it holds or that it is not JSON.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

enum Token<'a> {
    Null,
    Bool(bool),
    Number(Number),
    /// A string or an object's key.
    Str(Cow<'a, str>),
    /// An array; its elements' tokens follow, up to `end` (exclusive).
    Array {
        end: usize,
    },
    /// An object; its members' tokens (key, value, key, value...) follow, up to `end`.
    Object {
        end: usize,
    },
}

/// Appends the canonical form of the JSON `text` to `out`.
///
/// # Errors
/// When `text` is not one JSON value (then `out` holds part of its form).
pub fn canonicalize(text: &str, out: &mut Vec<u8>) -> serde_json::Result<()> {
    if Plain::write(text, out) {
        return Ok(());
    }
    let mut tokens = Vec::with_capacity(text.len() / 8);
    let mut reader = serde_json::Deserializer::from_str(text);
    Tokens(&mut tokens).deserialize(&mut reader)?;
    reader.end()?;
    write(&tokens, 0, &mut Vec::new(), out)?;
    Ok(())
}

/// Nesting deeper than this is left to serde_json, which refuses it beyond its own limit (128).
const PLAIN_DEPTH: usize = 100;

/// Integers of at most this many digits fit an `i64` (and so a `u64`) whatever they are.
const PLAIN_DIGITS: usize = 18;

/// The writer of plain JSON text: writes its canonical form as it reads it, or gives up (false,
/// `out` as it was) on anything it does not read as surely as serde_json, leaving that to
/// serde_json.
struct Plain<'a, 'o> {
    text: &'a str,
    at: usize,
    out: &'o mut Vec<u8>,
    /// The members written of the objects being written, innermost last: key, and where the
    /// member (`"key":value`) is in `out`.
    members: Vec<(&'a str, usize, usize)>,
    /// Room for reordering an object's members.
    reordered: Vec<u8>,
}

impl<'a> Plain<'a, '_> {
    fn write(text: &'a str, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        let mut plain = Plain {
            text,
            at: 0,
            out,
            members: Vec::new(),
            reordered: Vec::new(),
        };
        let written = plain.value(0).is_some() && {
            plain.skip_space();
            plain.at == text.len()
        };
        if !written {
            plain.out.truncate(start);
        }
        written
    }

    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.at), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.at += 1;
        }
    }

    /// The next byte after white space, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.at).copied()
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                quoted(s, self.out);
            }
            b'{' => self.object(depth + 1)?,
            b'[' => self.array(depth + 1)?,
            b't' => self.literal("true")?,
            b'f' => self.literal("false")?,
            b'n' => self.literal("null")?,
            _ => self.integer()?,
        }
        Some(())
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        self.text[self.at..].starts_with(word).then_some(())?;
        self.at += word.len();
        self.out.extend_from_slice(word.as_bytes());
        Some(())
    }

    /// A string without escapes or control characters, the quotes left out.
    fn string(&mut self) -> Option<&'a str> {
        let start = self.at + 1;
        let rest = self.text.as_bytes().get(start..)?;
        let len = string_end(rest)?;
        (rest[len] == b'"').then_some(())?;
        self.at = start + len + 1;
        // Quotes are ASCII, so these are character boundaries.
        self.text.get(start..start + len)
    }

    /// `0` or `-?[1-9][0-9]*` of at most [`PLAIN_DIGITS`] digits, not followed by a fraction or
    /// an exponent; `-0` is left to serde_json, which reads it as a float.
    fn integer(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let digits = start + usize::from(bytes.get(start) == Some(&b'-'));
        let len = bytes
            .get(digits..)?
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(bytes.len() - digits);
        let first = *bytes.get(digits)?;
        let canonical = match len {
            1 => first != b'0' || digits == start,
            2..=PLAIN_DIGITS => first != b'0',
            _ => false,
        };
        let end = digits + len;
        if !canonical || matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at = end;
        self.out.extend_from_slice(bytes.get(start..end)?);
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        (depth <= PLAIN_DEPTH).then_some(())?;
        self.at += 1;
        self.out.push(b'[');
        if self.peek()? == b']' {
            self.at += 1;
        } else {
            loop {
                self.value(depth)?;
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        self.out.push(b',');
                    }
                    b']' => {
                        self.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.out.push(b']');
        Some(())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        (depth <= PLAIN_DEPTH).then_some(())?;
        self.at += 1;
        self.out.push(b'{');
        let body = self.out.len();
        // This object's members sit above those of the objects it is in.
        let base = self.members.len();
        if self.peek()? == b'}' {
            self.at += 1;
        } else {
            loop {
                (self.peek()? == b'"').then_some(())?;
                let key = self.string()?;
                (self.peek()? == b':').then_some(())?;
                self.at += 1;
                if self.members.len() > base {
                    self.out.push(b',');
                }
                let start = self.out.len();
                quoted(key, self.out);
                self.out.push(b':');
                self.value(depth)?;
                self.members.push((key, start, self.out.len()));
                match self.peek()? {
                    b',' => self.at += 1,
                    b'}' => {
                        self.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let members = &mut self.members[base..];
        if !members.windows(2).all(|m| key_order(m[0].0, m[1].0).is_lt()) {
            // Stable, so that of equal keys the last given stays last, and is the one written.
            members.sort_by(|a, b| key_order(a.0, b.0));
            self.reordered.clear();
            self.reordered.extend_from_slice(&self.out[body..]);
            self.out.truncate(body);
            let mut first = true;
            for (i, &(key, start, end)) in members.iter().enumerate() {
                if members.get(i + 1).is_some_and(|next| next.0 == key) {
                    continue;
                }
                if !first {
                    self.out.push(b',');
                }
                first = false;
                self.out.extend_from_slice(&self.reordered[start - body..end - body]);
            }
        }
        self.members.truncate(base);
        self.out.push(b'}');
        Some(())
    }
}

/// Where the first quote, backslash or control character of `bytes` is: eight bytes at a time,
/// since most of a log's text is strings.
fn string_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // The high bit of each byte that is zero (of `x`), or below 0x20 (of `below`): exact for the
    // first such byte, which is all that is looked at.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight);
        let found = zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS);
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|i| at + i)
}

/// Writes the value whose tokens start at `at`; `members` is room for sorting objects' members
/// (key, value's index), shared down the nesting.
fn write<'t>(
    tokens: &'t [Token<'_>],
    at: usize,
    members: &mut Vec<(&'t str, usize)>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    match tokens.get(at) {
        None | Some(Token::Null) => out.extend_from_slice(b"null"),
        Some(Token::Bool(true)) => out.extend_from_slice(b"true"),
        Some(Token::Bool(false)) => out.extend_from_slice(b"false"),
        Some(Token::Number(n)) => serde_json::to_writer(&mut *out, n)?,
        Some(Token::Str(s)) => serde_json::to_writer(&mut *out, s.as_ref())?,
        Some(&Token::Array { end }) => {
            out.push(b'[');
            let mut element = at + 1;
            while element < end {
                if element > at + 1 {
                    out.push(b',');
                }
                write(tokens, element, members, out)?;
                element = after(tokens, element);
            }
            out.push(b']');
        }
        Some(&Token::Object { end }) => {
            // This object's members sit above those of the objects it is in.
            let base = members.len();
            let mut key = at + 1;
            while key < end {
                members.push((key_at(tokens, key), key + 1));
                key = after(tokens, key + 1);
            }
            // Stable, so that of equal keys the last given stays last, and is the one written.
            members[base..].sort_by(|a, b| key_order(a.0, b.0));
            out.push(b'{');
            let mut first = true;
            for i in base..members.len() {
                let (key, value) = members[i];
                if members.get(i + 1).is_some_and(|next| next.0 == key) {
                    continue;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                // A key is a string token, written as any string is.
                write(tokens, value - 1, members, out)?;
                out.push(b':');
                write(tokens, value, members, out)?;
            }
            members.truncate(base);
            out.push(b'}');
        }
    }
    Ok(())
}

/// Keys in the order of their bytes (as a `String`'s order is), most told apart by their first.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// The index of the token after the value whose tokens start at `at`.
fn after(tokens: &[Token<'_>], at: usize) -> usize {
    match tokens.get(at) {
        Some(&(Token::Array { end } | Token::Object { end })) => end,
        _ => at + 1,
    }
}

fn key_at<'t>(tokens: &'t [Token<'_>], at: usize) -> &'t str {
    match tokens.get(at) {
        Some(Token::Str(key)) => key,
        _ => "",
    }
}

/// A string with nothing to escape, as serde_json writes it.
fn quoted(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// Reads one value's tokens onto the list; as `Value`'s own visitor reads it.
struct Tokens<'t, 'a>(&'t mut Vec<Token<'a>>);

impl<'de> DeserializeSeed<'de> for Tokens<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tokens<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.push(Token::Null);
        Ok(())
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.push(Token::Bool(v));
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.push(Token::Number(v.into()));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.push(Token::Number(v.into()));
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.0.push(Number::from_f64(v).map_or(Token::Null, Token::Number));
        Ok(())
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Borrowed(v)));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Owned(v.to_owned())));
        Ok(())
    }

    fn visit_string<E>(self, v: String) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Owned(v)));
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut elements: A) -> Result<(), A::Error> {
        let at = self.0.len();
        self.0.push(Token::Array { end: at });
        while elements.next_element_seed(Tokens(&mut *self.0))?.is_some() {}
        let end = self.0.len();
        self.0[at] = Token::Array { end };
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let at = self.0.len();
        self.0.push(Token::Object { end: at });
        while members.next_key_seed(Key(&mut *self.0))?.is_some() {
            members.next_value_seed(Tokens(&mut *self.0))?;
        }
        let end = self.0.len();
        self.0[at] = Token::Object { end };
        Ok(())
    }
}

/// Reads an object's key onto the list.
struct Key<'t, 'a>(&'t mut Vec<Token<'a>>);

impl<'de> DeserializeSeed<'de> for Key<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object's key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Borrowed(v)));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Owned(v.to_owned())));
        Ok(())
    }

    fn visit_string<E>(self, v: String) -> Result<(), E> {
        self.0.push(Token::Str(Cow::Owned(v)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::{canonicalize, string_end, Plain};
    use crate::service::chain::canonical;

    fn canonicalized(text: &str) -> String {
        let mut out = Vec::new();
        canonicalize(text, &mut out).expect("JSON text");
        String::from_utf8(out).expect("UTF-8")
    }

    fn as_a_value_writes_it(text: &str) -> String {
        canonical(&serde_json::from_str::<Value>(text).expect("JSON text"))
    }

    #[test]
    fn json_text_is_written_as_its_value_is() {
        for text in [
            r#"{"kind": "result", "tricks": [3, 3, 3], "contract": {"trumps": "hearts", "contract": "play"}, "top": null}"#,
            r#"[{"deal": 1, "event": "deal_scored", "outcome": {"outcome": "draw"}}, {"transfers": [{"to": {"reserve": 498}, "from": {"seat": 1}, "amount": 60}]}]"#,
            r#"{"b": 1, "a": 2, "b": 3}"#,
            r#"{"\u00e9": "caf\u00e9", "e\"q": "tab\there", "Z": "\ud83c\udca1", "a/b": "<\/script>"}"#,
            r#"[1.50, -0.0, 1e3, 12345678901234567890, 123456789012345678901234, -9223372036854775808, 0.1, 2.5e-8]"#,
            r#"{"": {}, "x": [], "y": [[], [{}]], "z": true, "w": false}"#,
            r#"  "just a string"  "#,
            "7",
            "null",
        ] {
            assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}");
        }
    }

    /// Whether the writer of plain text writes `text` itself (rather than leaving it to
    /// serde_json); when it does not, it writes nothing.
    fn read_plainly(text: &str) -> bool {
        let mut out = b"kept".to_vec();
        let written = Plain::write(text, &mut out);
        assert!(written || out == b"kept", "{text}");
        written
    }

    #[test]
    fn plain_text_is_read_by_the_scanner_and_anything_else_by_serde_json() {
        for text in [
            r#"{"deal": 1, "event": "deal_scored", "tricks": [3, 3, 3], "outcome": {"outcome": "draw"}, "x": null}"#,
            "[true,false,null,0,-1,123456789012345678,-123456789012345678]",
            " \t\r\n[ ] ",
            r#"{"a": 1, "a": {"y": [], "x": 0, "y": {}}, "": 2}"#,
            r#"{"a": 1, "b": 2, "c": {"d": 3}}"#,
            "{\"caf\u{e9}\": \"\u{2028}\u{7f}\u{1f0a1}\"}",
        ] {
            assert!(read_plainly(text), "{text}");
            assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for text in [
            r#"{"a\"b": 1}"#,
            r#"["\u00e9"]"#,
            "-0",
            "[-0]",
            "1.0",
            "1e3",
            "2E-2",
            "1234567890123456789",
            "-1234567890123456789",
            "18446744073709551616",
            "01",
            "-",
            "[1,]",
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"{1: 2}"#,
            "[1 2]",
            "tru",
            "nul",
            "[true1]",
            "\"\t\"",
            "\"open",
            "",
            "  ",
            "1 2",
            "{}}",
            &deep(101),
            &deep(200),
        ] {
            assert!(!read_plainly(text), "{text}");
            match serde_json::from_str::<Value>(text) {
                Ok(_) => assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}"),
                Err(_) => assert!(canonicalize(text, &mut Vec::new()).is_err(), "{text}"),
            }
        }
        assert!(read_plainly(&deep(100)));
        assert_eq!(canonicalized(&deep(100)), deep(100));
    }

    proptest! {
        // Eight bytes at a time finds what one at a time finds: the first quote, backslash or
        // control character, wherever it falls in a word.
        #[test]
        fn the_end_of_a_string_is_found_as_byte_by_byte(bytes in prop::collection::vec(
            prop_oneof![1 => Just(b'"'), 1 => Just(b'\\'), 1 => 0_u8..0x20, 30 => 0x20_u8..=0xff], 0..64)
        ) {
            let byte_by_byte = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(string_end(&bytes), byte_by_byte);
        }
    }

    #[test]
    fn text_that_is_not_one_json_value_is_refused() {
        for text in ["", "{", r#"{"a": 1} 2"#, "[1,]", "{'a': 1}"] {
            assert!(canonicalize(text, &mut Vec::new()).is_err(), "{text}");
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            ".{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::vec(("[a-c\u{e9}\"\\\\]{0,3}", inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        // Written in any key order and spacing (as the database writes JSON, or the engine
        // serialises its events), text canonicalises as the value it parses to.
        #[test]
        fn any_json_text_is_written_as_its_value_is(value in any_json()) {
            let pretty = serde_json::to_string_pretty(&value).expect("a value writes");
            prop_assert_eq!(canonicalized(&pretty), as_a_value_writes_it(&pretty));
            let reversed = reversed_keys(&value);
            prop_assert_eq!(canonicalized(&reversed), as_a_value_writes_it(&reversed));
        }
    }

    /// JSON as the scanner of plain text reads it: integers that fit, strings without escapes.
    fn plain_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-999_999_999_999_999_999_i64..=999_999_999_999_999_999).prop_map(Value::from),
            (0_i64..100).prop_map(Value::from),
            "[a-zA-Z0-9 _:\u{e9}\u{1f0a1}]{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::vec(("[a-c_\u{e9}]{0,3}", inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        // The texts the audit reads (the database's, serde_json's) are plain: the scanner reads
        // them, in any spacing and key order, and writes what the value writes.
        #[test]
        fn plain_json_text_is_read_by_the_scanner_and_written_as_its_value_is(value in plain_json()) {
            for text in [
                serde_json::to_string(&value).expect("a value writes"),
                serde_json::to_string_pretty(&value).expect("a value writes"),
                reversed_keys(&value),
            ] {
                prop_assert!(read_plainly(&text), "{}", text);
                prop_assert_eq!(canonicalized(&text), as_a_value_writes_it(&text));
            }
        }
    }

    /// The value as JSON text with every object's keys in reverse order.
    fn reversed_keys(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let members: Vec<String> = map
                    .iter()
                    .rev()
                    .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), reversed_keys(v)))
                    .collect();
                format!("{{ {} }}", members.join(", "))
            }
            Value::Array(items) => format!("[{}]", items.iter().map(reversed_keys).collect::<Vec<_>>().join(", ")),
            other => other.to_string(),
        }
    }
}
