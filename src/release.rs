//! What a release is (docs/releases.md): its version, and a fingerprint of what its clients and
//! its database see, the API (the spec) and the stored shapes (the migrations). The version
//! changes when the fingerprint does: `docs/releases.json` records each release's, and a test
//! holds the version to it.

use sha2::{Digest, Sha256};

/// The fingerprint of this build's API and stored shapes: SHA-256, in hex, of the spec (its
/// `info.version` left empty, so that naming the version changes nothing) and of every
/// migration's version and checksum.
///
/// # Errors
/// When the spec does not read back as JSON, which would be a bug.
pub fn fingerprint() -> Result<String, serde_json::Error> {
    let mut spec: serde_json::Value = serde_json::from_str(&crate::api::openapi::spec_json())?;
    if let Some(info) = spec.get_mut("info").and_then(serde_json::Value::as_object_mut) {
        info.insert("version".into(), serde_json::Value::String(String::new()));
    }
    let mut hash = Sha256::new();
    hash.update(serde_json::to_vec(&spec)?);
    for (version, checksum) in crate::store::migrations() {
        hash.update(version.to_be_bytes());
        hash.update(&checksum);
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
