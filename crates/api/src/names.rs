//! Who recorded an entry, as a person reads it: shared by the deal's view and its rulings.

use std::collections::HashMap;

/// The scorer's name (`names` by `scorer:<id>`), or `organiser`, or `scorer` for a phone whose
/// name is not known.
pub fn name(names: &HashMap<String, String>, by: &str) -> String {
    match names.get(by) {
        Some(name) => name.clone(),
        None if by.starts_with("organiser:") => "organiser".into(),
        None => "scorer".into(),
    }
}
