//! Shapes the generated spec into a contract client generators take as is.
//!
//! utoipa writes a serde-tagged enum as a `oneOf` of inline objects and a generic type as
//! `Name_Param`; it knows nothing of which schema a request uses and which a response. These
//! passes work on the finished document, so every rule below holds for every schema, games
//! included, without a list of them:
//!
//! - a `oneOf` whose members all carry one required single-valued string property (a serde tag)
//!   gets one named schema per member (`<Union><Tag value in PascalCase>`) and a `discriminator`
//!   with a mapping;
//! - a schema with a `game` property that leads to per-game unions (`AnyView`, `AnyMove`, …)
//!   becomes a `oneOf` of per-game schemas (`NominationWhistTableView`) discriminated by `game`; the
//!   games are the members of those unions, in the order of the one list of games; the per-game
//!   unions still named where no game is (`AnyMove` in `SubmitMove`) become unions by `kind`
//!   (see `per_game`);
//! - a schema with defaults that requests and responses share is split: the request copy
//!   (`…Request`) leaves every defaulted field optional with the default in its description,
//!   the response copy requires them (the server always fills them in);
//! - generic names `Play_Card` become `CardPlay`;
//! - a named enum names its values after itself (`x-enum-varnames`: `Phase`'s `playing` is
//!   `PhasePlaying`), since generators that put every enum's values in one namespace (Go's
//!   constants) would otherwise declare `PLAYING` once per game's phase enum (see `name_enum_values`);
//! - a nullable string carries no `pattern` (see `no_patterns_on_nullable_strings`);
//! - a discriminated union's member pins its tag by a `pattern` as well as its one-value `enum`
//!   (see `pin_tags_by_pattern`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

mod per_game;

const REF_PREFIX: &str = "#/components/schemas/";

/// Runs every pass over the spec's JSON.
pub fn shape(spec: &mut Value) {
    rename_generics(spec);
    per_game::discriminate_by_game(spec);
    discriminate_tagged_unions(spec);
    name_externally_tagged_members(spec);
    per_game::by_tag_where_no_game_is_named(spec);
    split_defaults(spec);
    name_enum_values(spec);
    no_patterns_on_nullable_strings(spec);
    pin_tags_by_pattern(spec);
}

/// What an inline member of an externally tagged union is called: its one value (`"bank"`) or
/// its one property (`{"seat": 1}`).
fn member_name(member: &Value) -> Option<String> {
    if let Some(value) = pinned(member) {
        return Some(pascal(value));
    }
    let properties = member.get("properties")?.as_object()?;
    match properties.keys().collect::<Vec<_>>().as_slice() {
        [only] => Some(pascal(only)),
        _ => None,
    }
}

/// The remaining unions with inline members (serde's external tagging, `"bank"` or
/// `{"seat": 1}`) get their members named `<Union><Variant>`.
fn name_externally_tagged_members(spec: &mut Value) {
    let all = schemas(spec);
    let names: Vec<String> = all.keys().cloned().collect();
    for name in names {
        let Some(members) = all[&name].get("oneOf").and_then(Value::as_array).cloned() else {
            continue;
        };
        if members.iter().any(|m| m.get("$ref").is_some()) {
            continue;
        }
        let Some(member_names) = members.iter().map(member_name).collect::<Option<Vec<_>>>() else {
            continue;
        };
        let mut refs = Vec::new();
        for (member, variant) in members.into_iter().zip(member_names) {
            let full = format!("{name}{variant}");
            all.insert(full.clone(), member);
            refs.push(schema_ref(&full));
        }
        all[&name]["oneOf"] = Value::Array(refs);
    }
}

fn schemas(spec: &mut Value) -> &mut Map<String, Value> {
    spec.pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas")
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("{REF_PREFIX}{name}") })
}

/// Rewrites every `$ref` in `value` through `rename`.
fn rewrite_refs(value: &mut Value, rename: &dyn Fn(&str) -> Option<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(name) = target.strip_prefix(REF_PREFIX) {
                    if let Some(new) = rename(name) {
                        *target = format!("{REF_PREFIX}{new}");
                    }
                }
            }
            map.values_mut().for_each(|v| rewrite_refs(v, rename));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, rename)),
        _ => {}
    }
}

/// Names referenced (directly) from `value`.
fn refs_in(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(REF_PREFIX))
            {
                out.insert(name.to_owned());
            }
            map.values().for_each(|v| refs_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs_in(v, out)),
        _ => {}
    }
}

fn pascal(snake: &str) -> String {
    snake
        .split(['_', '-'])
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `Play_Card` (utoipa's name for `Play<Card>`) becomes `CardPlay`.
fn rename_generics(spec: &mut Value) {
    let renames: BTreeMap<String, String> = schemas(spec)
        .keys()
        .filter_map(|name| {
            let (outer, inner) = name.split_once('_')?;
            Some((name.clone(), format!("{inner}{outer}")))
        })
        .collect();
    let all = schemas(spec);
    for (old, new) in &renames {
        if let Some(schema) = all.remove(old) {
            all.insert(new.clone(), schema);
        }
    }
    rewrite_refs(spec, &|name| renames.get(name).cloned());
}

/// The single string value a property is pinned to (`{"type": "string", "enum": [v]}`).
fn pinned(property: &Value) -> Option<&str> {
    match property.get("enum")?.as_array()?.as_slice() {
        [Value::String(v)] => Some(v),
        _ => None,
    }
}

/// The properties and required names of an inline object member, looking into `allOf` parts.
fn tag_of<'a>(member: &'a Value, tag: &str) -> Option<&'a str> {
    if let Some(parts) = member.get("allOf").and_then(Value::as_array) {
        return parts.iter().find_map(|part| tag_of(part, tag));
    }
    let required = member.get("required")?.as_array()?;
    if !required.iter().any(|r| r == tag) {
        return None;
    }
    pinned(member.get("properties")?.get(tag)?)
}

/// The property every member of a `oneOf` is tagged by, if there is one.
fn common_tag(members: &[Value]) -> Option<String> {
    let first = members.first()?;
    let candidates: Vec<String> = if let Some(parts) = first.get("allOf").and_then(Value::as_array) {
        parts
            .iter()
            .filter_map(|p| p.get("properties").and_then(Value::as_object))
            .flat_map(|p| p.keys().cloned())
            .collect()
    } else {
        first
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    candidates.into_iter().find(|tag| {
        let values: Vec<&str> = members.iter().filter_map(|m| tag_of(m, tag)).collect();
        values.len() == members.len() && values.iter().collect::<BTreeSet<_>>().len() == members.len()
    })
}

/// Gives every serde-tagged union named members and a discriminator with a mapping.
fn discriminate_tagged_unions(spec: &mut Value) {
    let all = schemas(spec);
    let names: Vec<String> = all.keys().cloned().collect();
    for name in names {
        let Some(members) = all[&name].get("oneOf").and_then(Value::as_array).cloned() else {
            continue;
        };
        if members.iter().any(|m| m.get("$ref").is_some()) {
            continue;
        }
        let Some(tag) = common_tag(&members) else { continue };
        let mut mapping = Map::new();
        let mut refs = Vec::new();
        for mut member in members {
            let value = tag_of(&member, &tag).expect("every member is tagged").to_owned();
            let member_name = format!("{name}{}", pascal(&value));
            if let Some(object) = member.as_object_mut() {
                object
                    .entry("title")
                    .or_insert_with(|| Value::String(member_name.clone()));
            }
            all.insert(member_name.clone(), member);
            mapping.insert(value, Value::String(format!("{REF_PREFIX}{member_name}")));
            refs.push(schema_ref(&member_name));
        }
        let union = all.get_mut(&name).and_then(Value::as_object_mut).expect("the union");
        union.insert("oneOf".into(), Value::Array(refs));
        union.insert(
            "discriminator".into(),
            json!({ "propertyName": tag, "mapping": mapping }),
        );
    }
}

/// Schemas reachable from `roots`, following references.
fn reachable(all: &Map<String, Value>, roots: BTreeSet<String>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.into_iter().collect();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let mut next = BTreeSet::new();
        if let Some(schema) = all.get(&name) {
            refs_in(schema, &mut next);
        }
        todo.extend(next.into_iter().filter(|n| !seen.contains(n)));
    }
    seen
}

/// Whether an object schema (or one of its `allOf` parts) has a property with a `default`.
fn has_defaults(schema: &Value) -> bool {
    let direct = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.values().any(|v| v.get("default").is_some()));
    direct
        || schema
            .get("allOf")
            .and_then(Value::as_array)
            .is_some_and(|parts| parts.iter().any(has_defaults))
}

/// Properties with a default that answers leave out when empty (`skip_serializing_if`), so that
/// what was stored before they existed reads the same: a stops table's `opening_pools`, a
/// tournament result's `amendments`.
const OMITTED_WHEN_EMPTY: &[&str] = &["opening_pools", "amendments"];

/// Moves each property's `default` into its description; with `require`, lists the property as
/// required (the server always sends it).
fn strip_defaults(schema: &mut Value, require: bool) {
    if let Some(parts) = schema.get_mut("allOf").and_then(Value::as_array_mut) {
        parts.iter_mut().for_each(|p| strip_defaults(p, require));
    }
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let mut defaulted = Vec::new();
    for (key, property) in properties.iter_mut() {
        let Some(object) = property.as_object_mut() else {
            continue;
        };
        let Some(default) = object.remove("default") else {
            continue;
        };
        if !require {
            let said = format!("Default: `{default}`.");
            let description = match object.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d}\n\n{said}"),
                None => said,
            };
            object.insert("description".into(), Value::String(description));
        }
        // The server leaves these out when they hold nothing, so answers cannot require them.
        if !OMITTED_WHEN_EMPTY.contains(&key.as_str()) {
            defaulted.push((key.clone(), default));
        }
    }
    if require {
        // An example written for requests leaves defaulted fields out; the response copy
        // requires them, so its example gets them from their defaults.
        if let Some(example) = schema.get_mut("example").and_then(Value::as_object_mut) {
            for (key, default) in &defaulted {
                example.entry(key.clone()).or_insert_with(|| default.clone());
            }
        }
    }
    let defaulted: Vec<String> = defaulted.into_iter().map(|(key, _)| key).collect();
    if require && !defaulted.is_empty() {
        let required = schema
            .as_object_mut()
            .expect("an object schema")
            .entry("required")
            .or_insert_with(|| json!([]));
        if let Some(list) = required.as_array_mut() {
            for key in defaulted {
                if !list.iter().any(|r| r == &Value::String(key.clone())) {
                    list.push(Value::String(key));
                }
            }
        }
    }
}

/// Request bodies name request schemas, responses response schemas; a schema both use that has
/// defaults (or leads to one that has) is split into `…Request` and itself.
fn split_defaults(spec: &mut Value) {
    let mut request_roots = BTreeSet::new();
    let mut response_roots = BTreeSet::new();
    if let Some(paths) = spec.get("paths").and_then(Value::as_object) {
        for item in paths.values().filter_map(Value::as_object) {
            for operation in item.values() {
                if let Some(body) = operation.get("requestBody") {
                    refs_in(body, &mut request_roots);
                }
                if let Some(responses) = operation.get("responses") {
                    refs_in(responses, &mut response_roots);
                }
            }
        }
    }
    let all = schemas(spec);
    let requests = reachable(all, request_roots);
    let responses = reachable(all, response_roots);
    // A shared schema needs a request copy when it has defaults or refers to one that does.
    let mut split: BTreeSet<String> = requests
        .intersection(&responses)
        .filter(|n| all.get(*n).is_some_and(has_defaults))
        .cloned()
        .collect();
    loop {
        let more: Vec<String> = requests
            .intersection(&responses)
            .filter(|n| !split.contains(*n))
            .filter(|n| {
                let mut used = BTreeSet::new();
                refs_in(&all[n.as_str()], &mut used);
                used.iter().any(|u| split.contains(u))
            })
            .cloned()
            .collect();
        if more.is_empty() {
            break;
        }
        split.extend(more);
    }
    let request_name = |name: &str| split.contains(name).then(|| format!("{name}Request"));
    for name in &split {
        let mut copy = all[name].clone();
        rewrite_refs(&mut copy, &request_name);
        strip_defaults(&mut copy, false);
        if let Some(title) = copy.get_mut("title") {
            *title = Value::String(format!("{name}Request"));
        }
        retarget_mapping(&mut copy, &request_name);
        all.insert(format!("{name}Request"), copy);
        if let Some(schema) = all.get_mut(name) {
            strip_defaults(schema, true);
        }
    }
    for name in requests.difference(&responses) {
        if let Some(schema) = all.get_mut(name) {
            rewrite_refs(schema, &request_name);
            retarget_mapping(schema, &request_name);
            strip_defaults(schema, false);
        }
    }
    for name in responses.difference(&requests) {
        if let Some(schema) = all.get_mut(name) {
            strip_defaults(schema, true);
        }
    }
    if let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for operation in item.values_mut() {
                if let Some(body) = operation.get_mut("requestBody") {
                    rewrite_refs(body, &request_name);
                }
            }
        }
    }
}

/// A discriminator's mapping names schemas too.
fn retarget_mapping(schema: &mut Value, rename: &dyn Fn(&str) -> Option<String>) {
    if let Some(mapping) = schema
        .pointer_mut("/discriminator/mapping")
        .and_then(Value::as_object_mut)
    {
        for target in mapping.values_mut() {
            if let Some(name) = target.as_str().and_then(|t| t.strip_prefix(REF_PREFIX)) {
                if let Some(new) = rename(name) {
                    *target = Value::String(format!("{REF_PREFIX}{new}"));
                }
            }
        }
    }
}

/// `nomination-whist` → `NominationWhist`: the words of a value, each capitalised.
fn identifier_words(value: &str) -> String {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(pascal)
        .collect()
}

/// Gives every named enum of strings `x-enum-varnames`, each value named `<Enum><Value>`.
///
/// openapi-generator's `go` client makes a named enum's values package-level constants named
/// after the values alone, so the games' phase enums (`DividendPhase`, `NewmarketPhase`, …) each
/// declared `PLAYING` and the package did not compile; its remedy, `enumClassPrefix`, is a
/// setting every integrator would have to find. Named in the spec, the values are named the same
/// in every generator that reads the extension (openapi-generator's, openapi-python-client:
/// `Phase.PHASE_PLAYING`). Prefixing every enum, not only those whose values collide today, keeps
/// a name from changing when a later game brings a colliding value.
fn name_enum_values(spec: &mut Value) {
    for (name, schema) in schemas(spec).iter_mut() {
        let Some(schema) = schema.as_object_mut() else { continue };
        if schema.contains_key("x-enum-varnames") {
            continue;
        }
        let Some(values) = schema.get("enum").and_then(Value::as_array) else {
            continue;
        };
        let Some(names) = values
            .iter()
            .map(|v| v.as_str().map(|v| format!("{name}{}", identifier_words(v))))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        // Two values that read alike (`a-b`, `a_b`) would get one name: leave such an enum to
        // the generators' own naming.
        if names.iter().collect::<BTreeSet<_>>().len() == names.len() {
            schema.insert("x-enum-varnames".into(), json!(names));
        }
    }
}

/// The schema a `$ref` names (or `schema` itself).
fn resolved<'a>(schema: &'a Value, all: &'a Map<String, Value>) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix(REF_PREFIX))
        .and_then(|name| all.get(name))
        .unwrap_or(schema)
}

fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// Takes the `pattern` off every nullable string: `{"type": ["string", "null"], "pattern": …}`,
/// and the string member of a `oneOf`/`anyOf` with `null` (a `$ref` to a patterned string, `Card`,
/// becomes that schema inline without its pattern; its description still says the form).
///
/// openapi-generator's `go` client writes a pattern as a `validate:"regexp=…"` tag on the field,
/// and a nullable field is a `NullableString` wrapper, which gopkg.in/validator.v2 refuses
/// (`unsupported type`). The client validates each member of a `oneOf` it reads, so every answer
/// that holds such a field (a Nomination Whist table's `turn_up`) matched no member and could not
/// be read. The server writes these values itself; no client needs the pattern to read them.
fn no_patterns_on_nullable_strings(spec: &mut Value) {
    let all = schemas(spec).clone();
    strip_nullable_patterns(spec, &all);
}

fn strip_nullable_patterns(value: &mut Value, all: &Map<String, Value>) {
    match value {
        Value::Object(map) => {
            let nullable_string = map
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|types| types.iter().any(|t| t == "null") && types.iter().any(|t| t == "string"));
            if nullable_string {
                map.remove("pattern");
            }
            for union in ["oneOf", "anyOf"] {
                let Some(members) = map.get_mut(union).and_then(Value::as_array_mut) else {
                    continue;
                };
                if !members.iter().any(is_null_type) {
                    continue;
                }
                for member in members.iter_mut() {
                    let target = resolved(member, all);
                    if target.get("type").and_then(Value::as_str) == Some("string") && target.get("pattern").is_some() {
                        let mut plain = target.clone();
                        if let Some(plain) = plain.as_object_mut() {
                            plain.remove("pattern");
                        }
                        *member = plain;
                    }
                }
            }
            map.values_mut().for_each(|v| strip_nullable_patterns(v, all));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_nullable_patterns(v, all)),
        _ => {}
    }
}

/// The tag property of `member` (itself or in one of its `allOf` parts) when it is pinned to
/// `value`.
fn pinned_tag<'a>(member: &'a mut Value, tag: &str, value: &str) -> Option<&'a mut Map<String, Value>> {
    if member.get("allOf").is_some() {
        return member
            .get_mut("allOf")
            .and_then(Value::as_array_mut)?
            .iter_mut()
            .find_map(|part| pinned_tag(part, tag, value));
    }
    let property = member.get_mut("properties")?.get_mut(tag)?;
    if pinned(property) != Some(value) {
        return None;
    }
    property.as_object_mut()
}

/// Gives every discriminated union's member's tag a `pattern` matching its one value only
/// (`"kind": {"enum": ["play"], "pattern": "^play$"}`).
///
/// openapi-generator's `go` client, with its default settings, reads a `oneOf` by decoding the
/// body into every member and keeping the one that fits; it consults neither the discriminator
/// (only with `useOneOfDiscriminatorLookup`) nor a property's `enum` (an inline enum is a plain
/// `string`), but it does check each member's patterns (validator.v2 tags). Members that differ
/// only in their tag (a play's record at one game's table and another's) all fit, and the body
/// could not be read ("matches more than one schema"). The pattern says no more than the `enum`
/// beside it, so every other reader is unaffected. Values are plain words (`nomination-whist`,
/// `card_played`); one with a character a pattern would read otherwise is left without.
fn pin_tags_by_pattern(spec: &mut Value) {
    let all = schemas(spec);
    let mut pins: Vec<(String, String, String)> = Vec::new();
    for union in all.values() {
        let Some(tag) = union.pointer("/discriminator/propertyName").and_then(Value::as_str) else {
            continue;
        };
        let Some(mapping) = union.pointer("/discriminator/mapping").and_then(Value::as_object) else {
            continue;
        };
        for (value, target) in mapping {
            if let Some(member) = target.as_str().and_then(|t| t.strip_prefix(REF_PREFIX)) {
                pins.push((member.to_owned(), tag.to_owned(), value.clone()));
            }
        }
    }
    for (member, tag, value) in pins {
        if !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        if let Some(property) = all.get_mut(&member).and_then(|m| pinned_tag(m, &tag, &value)) {
            property.insert("pattern".into(), Value::String(format!("^{value}$")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(schemas: Value) -> Value {
        json!({ "components": { "schemas": schemas } })
    }

    #[test]
    fn enums_that_share_a_value_name_it_apart() {
        let mut doc = spec(json!({
            "DividendPhase": { "type": "string", "enum": ["playing", "finished"] },
            "GameId": { "type": "string", "enum": ["nomination-whist", "pope-joan"] },
            "Alike": { "type": "string", "enum": ["a-b", "a_b"] },
        }));
        name_enum_values(&mut doc);
        let all = &doc["components"]["schemas"];
        assert_eq!(
            all["DividendPhase"]["x-enum-varnames"],
            json!(["DividendPhasePlaying", "DividendPhaseFinished"])
        );
        assert_eq!(
            all["GameId"]["x-enum-varnames"],
            json!(["GameIdNominationWhist", "GameIdPopeJoan"])
        );
        assert!(all["Alike"].get("x-enum-varnames").is_none());
    }

    #[test]
    fn a_nullable_string_loses_its_pattern_and_a_plain_one_keeps_it() {
        let card = json!({ "type": "string", "pattern": "^[2-9]H$", "description": "A card." });
        let mut doc = spec(json!({
            "Card": card,
            "View": { "type": "object", "properties": {
                "turn_up": { "oneOf": [{ "type": "null" }, { "$ref": "#/components/schemas/Card" }] },
                "led": { "$ref": "#/components/schemas/Card" },
                "hash": { "type": ["string", "null"], "pattern": "^[0-9a-f]{64}$" },
                "seat": { "type": "string", "pattern": "^[0-9]$" },
            } },
        }));
        no_patterns_on_nullable_strings(&mut doc);
        let all = &doc["components"]["schemas"];
        assert_eq!(all["Card"], card);
        let view = &all["View"]["properties"];
        assert_eq!(
            view["turn_up"],
            json!({ "oneOf": [{ "type": "null" }, { "type": "string", "description": "A card." }] })
        );
        assert_eq!(view["led"], json!({ "$ref": "#/components/schemas/Card" }));
        assert!(view["hash"].get("pattern").is_none());
        assert_eq!(view["seat"]["pattern"], "^[0-9]$");
    }

    #[test]
    fn a_discriminated_members_tag_is_pinned_by_a_pattern() {
        let member = |kind: &str| {
            json!({ "type": "object", "required": ["kind"], "properties": {
            "kind": { "type": "string", "enum": [kind] } } })
        };
        let mut doc = spec(json!({
            "MovePlay": member("play"),
            "MoveOdd": member("odd value"),
            "Move": {
                "oneOf": [{ "$ref": "#/components/schemas/MovePlay" }, { "$ref": "#/components/schemas/MoveOdd" }],
                "discriminator": { "propertyName": "kind", "mapping": {
                    "play": "#/components/schemas/MovePlay", "odd value": "#/components/schemas/MoveOdd" } },
            },
        }));
        pin_tags_by_pattern(&mut doc);
        let all = &doc["components"]["schemas"];
        assert_eq!(all["MovePlay"]["properties"]["kind"]["pattern"], "^play$");
        assert!(all["MoveOdd"]["properties"]["kind"].get("pattern").is_none());
    }
}
