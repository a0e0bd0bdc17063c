//! Releases can be told apart (issue #45): the version changes when the API or the stored
//! shapes do. `docs/releases.json` records each release's fingerprint (`tablekeeper::release`);
//! a release's version is the newest recorded and this build's fingerprint is its; between
//! releases the version is the next one with `-dev` and CHANGELOG.md opens with what is
//! unreleased.

use serde::Deserialize;

const RELEASES: &str = include_str!("../../docs/releases.json");
const CHANGELOG: &str = include_str!("../../CHANGELOG.md");
const COMMITTED_SPEC: &str = include_str!("../../openapi/openapi.json");

#[derive(Deserialize)]
struct Release {
    version: String,
    date: String,
    fingerprint: String,
}

/// `X.Y.Z` as numbers, and whether `-dev` follows.
fn parse(version: &str) -> ([u64; 3], bool) {
    let (core, dev) = match version.strip_suffix("-dev") {
        Some(core) => (core, true),
        None => (version, false),
    };
    let parts: Vec<u64> = core.split('.').map(|p| p.parse().expect("a number")).collect();
    assert_eq!(parts.len(), 3, "{version}: X.Y.Z or X.Y.Z-dev");
    ([parts[0], parts[1], parts[2]], dev)
}

#[test]
fn the_version_changes_when_the_api_or_the_stored_shapes_do() {
    let releases: Vec<Release> = serde_json::from_str(RELEASES).expect("docs/releases.json");
    let version = tablekeeper::VERSION;
    let (core, dev) = parse(version);
    let now = tablekeeper::release::fingerprint().expect("fingerprint");
    for pair in releases.windows(2) {
        assert!(
            parse(&pair[0].version).0 < parse(&pair[1].version).0,
            "releases in order"
        );
    }
    for release in &releases {
        let heading = format!("\n## {} ({})\n", release.version, release.date);
        assert!(CHANGELOG.contains(&heading), "CHANGELOG.md has{heading}");
        assert!(!parse(&release.version).1, "{}: a release is not -dev", release.version);
    }
    let first = CHANGELOG.lines().find(|l| l.starts_with("## ")).expect("a section");
    if dev {
        if let Some(last) = releases.last() {
            assert!(core > parse(&last.version).0, "{version} comes after {}", last.version);
        }
        assert_eq!(
            first, "## Unreleased",
            "a -dev version's changes are under ## Unreleased"
        );
    } else {
        let last = releases
            .last()
            .expect("a release version is recorded: scripts/release makes one");
        assert_eq!(version, last.version, "the version is the newest release's");
        assert_eq!(
            now, last.fingerprint,
            "the API or the stored shapes changed since {version}: run `scripts/release --dev` with \
             the next version and say what changed under ## Unreleased in CHANGELOG.md"
        );
        assert_eq!(first, format!("## {version} ({})", last.date));
    }
    let spec: serde_json::Value = serde_json::from_str(COMMITTED_SPEC).expect("spec");
    assert_eq!(spec["info"]["version"], version, "the spec says the version");
}

/// The fingerprint covers the API and the stored shapes, and nothing that only names the
/// version.
#[test]
fn the_fingerprint_is_of_the_spec_and_the_migrations() {
    let now = tablekeeper::release::fingerprint().expect("fingerprint");
    assert_eq!(now.len(), 64);
    assert_eq!(
        now,
        tablekeeper::release::fingerprint().expect("again"),
        "the same each time"
    );
    let migrations = tablekeeper::store::migrations();
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .expect("migrations/")
        .filter(|f| {
            f.as_ref()
                .is_ok_and(|f| f.file_name().to_string_lossy().ends_with(".sql"))
        })
        .count();
    assert_eq!(migrations.len(), files, "every migration");
    assert!(migrations.windows(2).all(|m| m[0].0 < m[1].0), "oldest first");
}

/// `tablekeeper fingerprint` (what `scripts/release` records) prints the build's fingerprint, and
/// the script refuses what is not a version before it changes anything.
#[test]
fn the_release_script_records_the_binary_s_fingerprint_and_refuses_a_bad_version() {
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .arg("fingerprint")
        .output()
        .expect("the binary runs");
    assert!(printed.status.success());
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout).trim(),
        tablekeeper::release::fingerprint().expect("fingerprint")
    );
    let root = env!("CARGO_MANIFEST_DIR");
    let before = std::fs::read_to_string(format!("{root}/Cargo.toml")).expect("Cargo.toml");
    for args in [&["1.2"][..], &["--dev"], &["--dev", "1.2.x"], &["1.2.3", "tomorrow"]] {
        let refused = std::process::Command::new(format!("{root}/scripts/release"))
            .args(args)
            .output()
            .expect("the script runs");
        assert!(!refused.status.success(), "{args:?}");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.starts_with("scripts/release: "), "{args:?}: {said}");
    }
    let after = std::fs::read_to_string(format!("{root}/Cargo.toml")).expect("Cargo.toml");
    assert_eq!(before, after, "nothing changed");
}
