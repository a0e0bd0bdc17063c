//! The house's shape. Its floors are crates, so Cargo refuses an arrow upwards between them;
//! what Cargo cannot say by itself is checked here from `cargo metadata`: which floor may depend
//! on which, and that the pure floors stay pure. Inside each crate, no two modules need each
//! other (checked from the source).
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

/// Each crate's source folder: the binary's and each floor's.
fn crate_sources() -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![workspace.join("src")];
    for entry in std::fs::read_dir(workspace.join("crates")).expect("crates/") {
        let src = entry.expect("entry").path().join("src");
        if src.is_dir() {
            roots.push(src);
        }
    }
    roots.sort();
    roots
}

#[test]
fn no_two_modules_of_any_crate_need_each_other() {
    let mut circles = Vec::new();
    let mut modules = 0;
    for root in crate_sources() {
        let (found, needing) = circles_in(&root);
        circles.extend(found);
        modules += needing;
    }
    assert!(circles.is_empty(), "modules that need each other: {circles:#?}");
    assert!(
        modules > 50,
        "the scan found too few modules to mean anything: {modules}"
    );
}

/// The circles among the modules of the crate whose source is `root`, and how many modules need
/// another.
fn circles_in(root: &Path) -> (Vec<String>, usize) {
    let crate_name = root
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let sources: BTreeMap<Module, String> = files
        .iter()
        .map(|f| (module_of(root, f), std::fs::read_to_string(f).expect("read")))
        .collect();
    let tests: BTreeSet<Module> = files
        .iter()
        .filter(|f| is_test_file(f))
        .map(|f| module_of(root, f))
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
                circles.push(format!("{crate_name}: {} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    // Longer circles, a → b → … → a: a module that reaches itself.
    for start in needs.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Module> = needs[start].iter().collect();
        while let Some(m) = stack.pop() {
            if m == *start {
                circles.push(format!(
                    "{crate_name}: {} reaches itself through its needs",
                    start.join("::")
                ));
                break;
            }
            if seen.insert(m.clone()) {
                stack.extend(needs.get(m).into_iter().flatten());
            }
        }
    }
    circles.dedup();
    (circles, needs.len())
}

/// Each floor and the floors it may depend on; Cargo refuses a circle, this refuses an arrow
/// that skips the design (the API reaching past the use cases into the store, say).
const FLOORS: &[(&str, &[&str])] = &[
    ("tablekeeper-config", &[]),
    ("tablekeeper-rules", &[]),
    ("tablekeeper-movement", &[]),
    ("tablekeeper-print", &[]),
    ("tablekeeper-ledger", &["tablekeeper-rules"]),
    (
        "tablekeeper-store",
        &["tablekeeper-config", "tablekeeper-ledger", "tablekeeper-rules"],
    ),
    (
        "tablekeeper-service",
        &[
            "tablekeeper-config",
            "tablekeeper-ledger",
            "tablekeeper-movement",
            "tablekeeper-rules",
            "tablekeeper-store",
        ],
    ),
    ("tablekeeper-web", &["tablekeeper-rules"]),
    (
        "tablekeeper-api",
        &[
            "tablekeeper-config",
            "tablekeeper-ledger",
            "tablekeeper-rules",
            "tablekeeper-print",
            "tablekeeper-service",
            "tablekeeper-web",
        ],
    ),
];

/// What a floor must not depend on at all (normal dependencies, directly): the pure floors no
/// I/O, the use cases no HTTP, nothing above the store sqlx.
const NEVER: &[(&str, &[&str])] = &[
    ("tablekeeper-rules", &["tokio", "sqlx", "actix-web", "reqwest", "rand"]),
    ("tablekeeper-ledger", &["tokio", "sqlx", "actix-web", "reqwest", "rand"]),
    ("tablekeeper-config", &["tokio", "sqlx", "actix-web", "reqwest"]),
    ("tablekeeper-print", &["tokio", "sqlx", "actix-web", "reqwest"]),
    ("tablekeeper-web", &["tokio", "sqlx", "actix-web"]),
    ("tablekeeper-store", &["actix-web", "reqwest"]),
    // The use cases speak no HTTP and write no SQL: the store's handles are all they name.
    (
        "tablekeeper-service",
        &["actix-web", "actix-web-lab", "actix-cors", "sqlx"],
    ),
    // The API reaches the store through the use cases only.
    ("tablekeeper-api", &["tablekeeper-store", "sqlx"]),
];

#[test]
fn each_floor_depends_only_on_the_floors_below_it() {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata json");
    let packages = meta["packages"].as_array().expect("packages");
    let mut floors_seen = BTreeSet::new();
    for package in packages {
        let name = package["name"].as_str().expect("name");
        if name == "tablekeeper" {
            continue;
        }
        let normal: Vec<&str> = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().expect("dependency name"))
            .collect();
        let allowed = FLOORS
            .iter()
            .find(|(floor, _)| *floor == name)
            .unwrap_or_else(|| panic!("{name} is a crate of the workspace without its row in FLOORS"))
            .1;
        floors_seen.insert(name);
        for dependency in normal.iter().filter(|d| d.starts_with("tablekeeper")) {
            assert!(allowed.contains(dependency), "{name} may not depend on {dependency}");
        }
        if let Some((_, never)) = NEVER.iter().find(|(floor, _)| *floor == name) {
            for dependency in &normal {
                assert!(!never.contains(dependency), "{name} may not depend on {dependency}");
            }
        }
    }
    assert_eq!(
        floors_seen.len(),
        FLOORS.len(),
        "a floor of FLOORS is not in the workspace"
    );
}

/// The application's state is one value registered with the routes (`api::routes`): a handler,
/// extractor or middleware that asked actix for any other piece would find nothing there at run
/// time and answer 500, so none may.
#[test]
fn the_api_asks_actix_for_no_state_but_the_one_it_registers() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/api/src"),
        &mut files,
    );
    let mut strays = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("Data<") {
                if !code[at..].starts_with("Data<State>") && !code[at..].starts_with("Data<crate::State>") {
                    strays.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        strays.is_empty(),
        "state asked for by type, not through State:\n{}",
        strays.join("\n")
    );
}
