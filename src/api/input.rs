//! Checks on input shared by the resources: page sizes, typed names and join codes.

use super::error::ApiError;

/// Page size bounds shared by the list endpoints.
pub(crate) fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    match limit {
        None => Ok(100),
        Some(n) if (1..=500).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::bad_request(
            "invalid_query",
            format!("limit must be 1 to 500, not {n}"),
        )),
    }
}

/// A name as typed: trimmed, 1 to `max` characters, no control characters (PostgreSQL text
/// cannot hold NUL, and a name has no use for the others).
pub(crate) fn display_name(text: &str, max: usize) -> Option<&str> {
    let name = text.trim();
    let length = name.chars().count();
    ((1..=max).contains(&length) && !name.contains(char::is_control)).then_some(name)
}

/// Normalises a typed join code: letters upper-cased, anything but letters and digits (dashes,
/// spaces) dropped.
pub fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}
