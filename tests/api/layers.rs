//! The house's shape, checked from the source: no two modules of `src/` need each other.
//!
//! A module's file "needs" another when it names a path into it (`crate::…`, `super::…`,
//! `self::…`, in a `use` or inline), a name a parent brings in from a child (`use child::Name`,
//! re-exported or not, since children see it as `super::Name`) counting as a path into that
//! child. A module and its own ancestors are left
//! out: a parent declares its children and re-exports them, and the children use the parent's
//! shared types. Tests (`tests.rs`, `tests/`, `testing.rs`, and what follows `#[cfg(test)]`) are
//! left out too. Modules that need each other share a third instead.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).expect("under src").with_extension("");
    let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

fn is_test_file(file: &Path) -> bool {
    let text = file.to_string_lossy();
    text.contains("/tests/") || text.ends_with("/tests.rs") || text.ends_with("/testing.rs")
}

/// The source without comments and without what follows the first `#[cfg(test)]`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path the code names that starts at `crate`, `super` or `self`, with `{a, b::c}` groups
/// expanded (one level deep, which is as deep as this code base nests them).
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_ident(bytes[i - 1]);
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| rest.starts_with(h));
        let (true, Some(_)) = (starts_word, head) else {
            i += 1;
            continue;
        };
        let mut end = i;
        while end < bytes.len() && (is_ident(bytes[end]) || bytes[end] == ':') {
            end += 1;
        }
        let path: String = bytes[i..end].iter().collect();
        let segments: Vec<String> = path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
        if path.ends_with("::") && bytes.get(end) == Some(&'{') {
            let close = bytes[end..]
                .iter()
                .position(|c| *c == '}')
                .map_or(bytes.len(), |p| end + p);
            let group: String = bytes[end + 1..close].iter().collect();
            for part in group.split(',') {
                let part = part.split(" as ").next().unwrap_or_default().trim();
                if !part.is_empty() {
                    let mut full = segments.clone();
                    full.extend(part.split("::").map(str::trim).map(str::to_owned));
                    found.push(full);
                }
            }
            i = close;
        } else {
            found.push(segments);
            i = end;
        }
    }
    found
}

/// Names each module brings in from a child of its own, re-exported or not (a child sees its
/// parent's imports as `super::Name`): (module, name) → child.
fn re_exports(sources: &BTreeMap<Module, String>) -> HashMap<(Module, String), Module> {
    let mut map = HashMap::new();
    for (module, text) in sources {
        for line in code(text).split(';') {
            let line = line.trim();
            let Some(at) = line.find("use ") else { continue };
            let before = line[..at].trim();
            if !(before.is_empty() || before.starts_with("pub")) {
                continue;
            }
            let body = line[at + 4..].trim().trim_start_matches("self::");
            let Some((child, names)) = body.split_once("::") else {
                continue;
            };
            let mut child_module = module.clone();
            child_module.push(child.to_owned());
            if !sources.contains_key(&child_module) {
                continue;
            }
            for name in names.split(|c: char| !is_ident(c)).filter(|n| !n.is_empty()) {
                map.insert((module.clone(), name.to_owned()), child_module.clone());
            }
        }
    }
    map
}

fn resolve(
    from: &Module,
    path: &[String],
    sources: &BTreeMap<Module, String>,
    re_exported: &HashMap<(Module, String), Module>,
) -> Module {
    let mut module = Module::new();
    let mut i = 0;
    match path[0].as_str() {
        "crate" => i = 1,
        "self" => {
            module = from.clone();
            i = 1;
        }
        _ => {
            module = from.clone();
            while path.get(i).is_some_and(|s| s == "super") {
                module.pop();
                i += 1;
            }
        }
    }
    while let Some(segment) = path.get(i) {
        let mut next = module.clone();
        next.push(segment.clone());
        if !sources.contains_key(&next) {
            break;
        }
        module = next;
        i += 1;
    }
    if let Some(name) = path.get(i) {
        if let Some(child) = re_exported.get(&(module.clone(), name.clone())) {
            return child.clone();
        }
    }
    module
}

#[test]
fn no_two_modules_of_the_source_need_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let sources: BTreeMap<Module, String> = files
        .iter()
        .map(|f| (module_of(&root, f), std::fs::read_to_string(f).expect("read")))
        .collect();
    let tests: BTreeSet<Module> = files
        .iter()
        .filter(|f| is_test_file(f))
        .map(|f| module_of(&root, f))
        .collect();
    let re_exported = re_exports(&sources);

    let mut needs: BTreeMap<&Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, text) in &sources {
        if tests.contains(module) {
            continue;
        }
        for path in paths(&code(text)) {
            let target = resolve(module, &path, &sources, &re_exported);
            let related = target.starts_with(module) || module.starts_with(&target);
            if !related {
                needs.entry(module).or_default().insert(target);
            }
        }
    }
    let mut circles = Vec::new();
    for (a, targets) in &needs {
        for b in targets {
            if a < &b && needs.get(b).is_some_and(|back| back.contains(*a)) {
                circles.push(format!("{} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    // Longer circles, a → b → … → a: a module that reaches itself.
    for start in needs.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Module> = needs[start].iter().collect();
        while let Some(m) = stack.pop() {
            if m == *start {
                circles.push(format!("{} reaches itself through its needs", start.join("::")));
                break;
            }
            if seen.insert(m.clone()) {
                stack.extend(needs.get(m).into_iter().flatten());
            }
        }
    }
    circles.dedup();
    assert!(circles.is_empty(), "modules that need each other: {circles:#?}");
    assert!(
        needs.len() > 50,
        "the scan found too few modules to mean anything: {}",
        needs.len()
    );
}
