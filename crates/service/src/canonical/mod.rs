//! The canonical form of JSON that the hash chain and the audit bundle hash and sign: RFC 8785,
//! the JSON Canonicalization Scheme (JCS). No white space; object members sorted by their keys'
//! UTF-16 code units; strings with only `"`, `\\` and control characters escaped (`\b \t \n \f
//! \r`, others as lower-case `\u00xx`); numbers as IEEE-754 doubles written as ECMAScript's
//! `Number.prototype.toString` writes them (`1e+21`, `0.000001`, `-0` as `0`). A verifier in any
//! language with a JCS library reproduces every hash; every number the service itself hashes is
//! an integer well inside ±2^53, where JCS's numbers are the integers' own digits.
//!
//! Written straight from JSON text ([`canonicalize`]) or from a `Value` ([`canonicalize_value`]),
//! the same bytes for the same content. From text, of keys given twice the last is kept (as a map
//! keeps it; JCS leaves such text undefined). The text is read into one flat list of tokens
//! borrowing its strings, so that a long log is written with a few allocations per entry rather
//! than one per key and value.
//!
//! Most stored text (the database's, serde_json's) is plain: strings without escapes, integers
//! short enough to be exact doubles. Such text is written in one pass by a scanner of its own,
//! which copies strings and integers as they are (they are already in their canonical form) and
//! reorders an object's members only when their keys are out of order; any other text (an
//! escape, a fraction, a long number, text that is not JSON) is read through serde_json, which
//! decides what it holds or that it is not JSON.

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

/// Integers of at most this many digits are exact doubles (below 2^53) whatever they are, and
/// so are written as their digits.
const PLAIN_DIGITS: usize = 15;

/// The largest integer below which every integer is an exact double: 2^53.
const EXACT: u64 = 1 << 53;

/// Appends a number as RFC 8785 writes it: as the double it reads as, in ECMAScript's form.
pub fn write_number(n: &Number, out: &mut Vec<u8>) {
    use std::io::Write as _;
    let written = match (n.as_i64(), n.as_u64()) {
        (Some(i), _) if i.unsigned_abs() <= EXACT => write!(out, "{i}"),
        (_, Some(u)) if u <= EXACT => write!(out, "{u}"),
        // Integers past 2^53 and fractions: a `Number` is never NaN nor infinite.
        _ => {
            let mut buffer = ryu_js::Buffer::new();
            out.extend_from_slice(buffer.format(n.as_f64().unwrap_or_default()).as_bytes());
            Ok(())
        }
    };
    // Writing to a `Vec` does not fail.
    debug_assert!(written.is_ok());
}

/// Appends the canonical form of `value` (the bytes [`canonicalize`] writes for its text).
pub fn canonicalize_value(value: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonicalize_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| key_order(a.0, b.0));
            out.push(b'{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(key, out);
                out.push(b':');
                canonicalize_value(item, out);
            }
            out.push(b'}');
        }
    }
}

/// A string as RFC 8785 writes it, which is as serde_json writes it: only `"`, `\\` and control
/// characters escaped, the short escapes where JSON has them, others as lower-case `\u00xx`.
fn string(s: &str, out: &mut Vec<u8>) {
    if string_end(s.as_bytes()).is_none() {
        quoted(s, out);
    } else {
        // Writing a string to a `Vec` does not fail.
        let written = serde_json::to_writer(&mut *out, s);
        debug_assert!(written.is_ok());
    }
}

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
        Some(Token::Number(n)) => write_number(n, out),
        Some(Token::Str(s)) => string(s, out),
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

/// Keys in the order of their UTF-16 code units (RFC 8785, 3.2.3). For ASCII, and wherever the
/// first bytes differ and one is ASCII, that is the order of their bytes, which most keys are
/// told apart by; UTF-8's order differs from UTF-16's only between characters above U+FFFF and
/// those from U+E000 to U+FFFF.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y && (x.is_ascii() || y.is_ascii()) => x.cmp(y),
        _ if a.is_ascii() && b.is_ascii() => a.cmp(b),
        _ => a.encode_utf16().cmp(b.encode_utf16()),
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

/// A string with nothing to escape, as RFC 8785 (and serde_json) writes it.
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
mod tests;
