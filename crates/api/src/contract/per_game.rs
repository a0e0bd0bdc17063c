//! The per-game unions (`AnyMove`, `AnyView`, …), made into unions a validator and every
//! generator take: each body matches exactly one member, and no union is an `anyOf` (the Rust
//! generator has none: it merges an `anyOf`'s members into one struct whose every field is
//! required).
//!
//! - Where a body names its game (`game`), it is discriminated by it, and so is everything inside
//!   that leads to a per-game union (`DealView`'s `moves` are `NominationWhistDealMove`s, whose
//!   `move` is a `NominationWhistMove`).
//! - Where nothing names the game (`SubmitMove`: the table knows it), the union is taken by its
//!   members' own tag (`kind`): a `play` is one member, whatever the game; a kind whose fields differ
//!   between games (`result`) is one object with every game's fields, those all games require
//!   required, and says which game takes which; the server checks a move against its table's game.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::{pascal, refs_in, rewrite_refs, schema_ref, schemas, tag_of, REF_PREFIX};

/// The per-game unions (`AnyView`, …): their name and members, one per game in list order.
fn per_game_unions(all: &Map<String, Value>) -> BTreeMap<String, Vec<String>> {
    all.iter()
        .filter(|(name, _)| name.starts_with("Any"))
        .filter_map(|(name, schema)| {
            let members = schema.get("oneOf")?.as_array()?;
            let names = members
                .iter()
                .map(|m| m.get("$ref")?.as_str()?.strip_prefix(REF_PREFIX).map(str::to_owned))
                .collect::<Option<Vec<_>>>()?;
            Some((name.clone(), names))
        })
        .collect()
}

fn names_game(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key("game"))
}

/// Schemas that name no game but lead to a per-game union (`DealMove`).
fn leading_to(all: &Map<String, Value>, unions: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let mut leads: BTreeSet<String> = BTreeSet::new();
    loop {
        let more: Vec<String> = all
            .iter()
            .filter(|(name, schema)| !leads.contains(*name) && !unions.contains_key(*name) && !names_game(schema))
            .filter(|(_, schema)| {
                let mut used = BTreeSet::new();
                refs_in(schema, &mut used);
                used.iter().any(|u| unions.contains_key(u) || leads.contains(u))
            })
            .map(|(name, _)| name.clone())
            .collect();
        if more.is_empty() {
            return leads;
        }
        leads.extend(more);
    }
}

/// Of `leads`, those reachable from `roots` through `leads` alone.
fn through(all: &Map<String, Value>, roots: BTreeSet<String>, leads: &BTreeSet<String>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.into_iter().filter(|r| leads.contains(r)).collect();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let mut next = BTreeSet::new();
        refs_in(&all[&name], &mut next);
        todo.extend(next.into_iter().filter(|n| leads.contains(n) && !seen.contains(n)));
    }
    seen
}

/// A schema whose properties include `game` and lead to a per-game union becomes a `oneOf` of
/// per-game schemas discriminated by `game`, with per-game copies of the schemas in between.
pub(super) fn discriminate_by_game(spec: &mut Value) {
    let games: Vec<String> = spec
        .pointer("/components/schemas/GameId/enum")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(|id| id.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    let all = schemas(spec);
    let unions = per_game_unions(all);
    for (union, members) in &unions {
        assert_eq!(members.len(), games.len(), "{union} has one member per game");
    }
    let leads = leading_to(all, &unions);
    let mut copied_all = BTreeSet::new();
    let names: Vec<String> = all.keys().cloned().collect();
    for name in names {
        let schema = &all[&name];
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        if !properties.contains_key("game") {
            continue;
        }
        let mut used = BTreeSet::new();
        refs_in(&Value::Object(properties.clone()), &mut used);
        if !used.iter().any(|u| unions.contains_key(u) || leads.contains(u)) {
            continue;
        }
        let copied = through(all, used, &leads);
        let template = schema.clone();
        let mut mapping = Map::new();
        let mut refs = Vec::new();
        for (index, game) in games.iter().enumerate() {
            let game_name = pascal(game);
            let rename = |r: &str| {
                unions
                    .get(r)
                    .map(|m| m[index].clone())
                    .or_else(|| copied.contains(r).then(|| format!("{game_name}{r}")))
            };
            for between in &copied {
                let copy_name = format!("{game_name}{between}");
                if all.contains_key(&copy_name) {
                    continue;
                }
                let mut copy = all[between].clone();
                rewrite_refs(&mut copy, &rename);
                copy["title"] = Value::String(copy_name.clone());
                all.insert(copy_name, copy);
            }
            let variant_name = format!("{game_name}{name}");
            let mut variant = template.clone();
            variant["properties"]["game"] = json!({ "type": "string", "enum": [game] });
            variant["title"] = Value::String(variant_name.clone());
            rewrite_refs(&mut variant, &rename);
            all.insert(variant_name.clone(), variant);
            mapping.insert(game.clone(), Value::String(format!("{REF_PREFIX}{variant_name}")));
            refs.push(schema_ref(&variant_name));
        }
        let mut union = Map::new();
        if let Some(description) = template.get("description") {
            union.insert("description".into(), description.clone());
        }
        union.insert("oneOf".into(), Value::Array(refs));
        union.insert(
            "discriminator".into(),
            json!({ "propertyName": "game", "mapping": mapping }),
        );
        all.insert(name, Value::Object(union));
        copied_all.extend(copied);
    }
    // The originals of the copies, where only the discriminated schemas named them.
    drop_unused(spec, copied_all);
}

/// Removes those of `names` that nothing in the spec names any more, and then whatever only they
/// named among `names`.
fn drop_unused(spec: &mut Value, mut names: BTreeSet<String>) {
    loop {
        let mut used = BTreeSet::new();
        refs_in(spec, &mut used);
        let unused: Vec<String> = names.iter().filter(|n| !used.contains(*n)).cloned().collect();
        if unused.is_empty() {
            return;
        }
        let all = schemas(spec);
        for name in unused {
            all.remove(&name);
            names.remove(&name);
        }
    }
}

/// A copy of a schema without what only documents it, to compare shapes.
fn shape_of(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "example" | "examples"))
                .map(|(k, v)| (k.clone(), shape_of(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shape_of).collect()),
        other => other.clone(),
    }
}

/// One object with the properties of every member: those all require required, and a property
/// whose schema differs between members one of those schemas.
fn merged(members: &[(String, Value)], tag: &str, value: &str) -> Value {
    let mut properties = Map::new();
    let mut order: Vec<String> = Vec::new();
    let mut variants: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (_, member) in members {
        let Some(props) = member.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (key, schema) in props {
            let seen = variants.entry(key.clone()).or_default();
            if seen.is_empty() {
                order.push(key.clone());
            }
            if !seen.iter().any(|s| shape_of(s) == shape_of(schema)) {
                seen.push(schema.clone());
            }
        }
    }
    for key in order {
        let seen = &variants[&key];
        let schema = match seen.as_slice() {
            [one] => one.clone(),
            several => json!({ "oneOf": several.iter().map(shape_of).collect::<Vec<_>>() }),
        };
        properties.insert(key, schema);
    }
    let required: Vec<Value> = members
        .first()
        .and_then(|(_, m)| m.get("required")?.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter(|r| {
            members.iter().all(|(_, m)| {
                m.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|rs| rs.contains(r))
            })
        })
        .collect();
    let by_game: Vec<String> = members
        .iter()
        .map(|(name, member)| {
            let fields: Vec<String> = member
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().filter(|k| *k != tag).map(|k| format!("`{k}`")).collect())
                .unwrap_or_default();
            let fields = if fields.is_empty() {
                "nothing more".to_owned()
            } else {
                fields.join(", ")
            };
            format!("`{name}`: {fields}")
        })
        .collect();
    json!({
        "type": "object",
        "description": format!(
            "A `{value}`; which fields it takes depends on the table's game (each game's own schema is exact): {}.",
            by_game.join("; ")
        ),
        "properties": properties,
        "required": required,
    })
}

/// A per-game union still named where nothing names the game becomes a union by its members' tag
/// (`AnyMove` by `kind`); one nothing names any more is dropped.
pub(super) fn by_tag_where_no_game_is_named(spec: &mut Value) {
    let mut used = BTreeSet::new();
    refs_in(spec, &mut used);
    let all = schemas(spec);
    let unions = per_game_unions(all);
    for (union, members) in &unions {
        if !used.contains(union) {
            all.remove(union);
            continue;
        }
        let tag = members
            .iter()
            .map(|m| all[m].pointer("/discriminator/propertyName").and_then(Value::as_str))
            .collect::<Option<BTreeSet<_>>>()
            .filter(|tags| tags.len() == 1)
            .and_then(|tags| tags.into_iter().next().map(str::to_owned))
            .unwrap_or_else(|| panic!("{union}'s members are unions tagged by one property"));
        // Each tag value, in the order the games list them, with the members that carry it.
        let mut values: Vec<(String, Vec<(String, Value)>)> = Vec::new();
        for game_union in members {
            let refs = all[game_union]["oneOf"].as_array().cloned().unwrap_or_default();
            for member in refs {
                let name = member["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix(REF_PREFIX))
                    .unwrap_or_default();
                let schema = all[name].clone();
                let value = tag_of(&schema, &tag)
                    .unwrap_or_else(|| panic!("{name} is tagged by `{tag}`"))
                    .to_owned();
                match values.iter_mut().find(|(v, _)| *v == value) {
                    Some((_, carriers)) => carriers.push((name.to_owned(), schema)),
                    None => values.push((value, vec![(name.to_owned(), schema)])),
                }
            }
        }
        let base = union.strip_prefix("Any").unwrap_or(union);
        let mut mapping = Map::new();
        let mut refs = Vec::new();
        for (value, carriers) in values {
            let target = match carriers.as_slice() {
                [(only, _)] => only.clone(),
                several => {
                    let name = format!("{base}{}", pascal(&value));
                    let first = shape_of(&several[0].1);
                    let mut schema = if several.iter().all(|(_, s)| shape_of(s) == first) {
                        let mut same = several[0].1.clone();
                        same["description"] =
                            Value::String(format!("A `{value}`, the same in every game that has it."));
                        same
                    } else {
                        merged(several, &tag, &value)
                    };
                    schema["title"] = Value::String(name.clone());
                    all.insert(name.clone(), schema);
                    name
                }
            };
            mapping.insert(value, Value::String(format!("{REF_PREFIX}{target}")));
            refs.push(schema_ref(&target));
        }
        let schema = all.get_mut(union).and_then(Value::as_object_mut).expect("the union");
        schema.insert("oneOf".into(), Value::Array(refs));
        schema.insert(
            "discriminator".into(),
            json!({ "propertyName": tag, "mapping": mapping }),
        );
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        schema.insert(
            "description".into(),
            Value::String(format!(
                "{description} One member per `{tag}`, whatever the game; the server checks a move against its table's game."
            )),
        );
    }
}
