//! Names the commit this build is of, as `TABLEKEEPER_BUILD_COMMIT` (for `tablekeeper
//! --version` and `tablekeeper_build_info`): `TABLEKEEPER_COMMIT` when the build sets it (the
//! container build, whose context has no `.git`), else what git says of the work tree, else
//! `unknown`. (Uncommitted changes are not marked: a release is built from a commit.)

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=TABLEKEEPER_COMMIT");
    let given = std::env::var("TABLEKEEPER_COMMIT")
        .ok()
        .filter(|c| !c.is_empty() && c != "unknown");
    let commit = given.or_else(|| {
        // Run again when HEAD moves: a commit, a checkout (HEAD, its ref, packed refs).
        for name in ["HEAD", "packed-refs"] {
            if let Some(path) = git(&["rev-parse", "--git-path", name]) {
                if Path::new(&path).exists() {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
        }
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
            if let Some(path) = git(&["rev-parse", "--git-path", &reference]) {
                println!("cargo:rerun-if-changed={path}");
            }
        }
        git(&["rev-parse", "--short=12", "HEAD"])
    });
    println!(
        "cargo:rustc-env=TABLEKEEPER_BUILD_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
}
