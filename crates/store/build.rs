// The migrations are embedded by `sqlx::migrate!`: rebuild when one is added or changed. The
// checked statements read their offline data from `.sqlx/` (or, while `scripts/sqlx-prepare`
// runs, a database): rebuild when it changes or the macros are told to go online.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
    println!("cargo:rerun-if-changed=.sqlx");
    println!("cargo:rerun-if-env-changed=SQLX_OFFLINE");
    println!("cargo:rerun-if-env-changed=SQLX_OFFLINE_DIR");
}
