//! A rolling upgrade (issue #27): while replicas are replaced, the previous release's binary runs
//! against the schema the new one migrated to. Migrations must therefore only expand (add a
//! relation, a nullable column or one with a default) and contract in a later release, once no
//! binary that uses the old shape runs (deploy/README.md, "Upgrades").
//!
//! The previous release is kept as a fixture (`scripts/previous-release-queries`): the statements
//! its store layer writes and the columns its schema had. The current migrations are applied to a
//! fresh database, every statement is PREPAREd against it, every column is still there with its
//! type, and no column its inserts do not fill became required. What a landed migration already
//! broke for that release is listed, with why, in `breaks.tsv`; anything else fails.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::{Executor, PgConnection, PgPool, Row};

const QUERIES: &str = include_str!("../fixtures/previous-release/queries.sql");
const COLUMNS: &str = include_str!("../fixtures/previous-release/columns.tsv");
const BREAKS: &str = include_str!("../fixtures/previous-release/breaks.tsv");

/// The previous release's statements, by the place its source wrote them.
fn statements() -> Vec<(String, String)> {
    let mut statements: Vec<(String, String)> = Vec::new();
    for line in QUERIES.lines() {
        if let Some(place) = line.strip_prefix("-- src/") {
            statements.push((format!("src/{place}"), String::new()));
        } else if let Some((_, sql)) = statements.last_mut() {
            sql.push_str(line);
            sql.push('\n');
        }
    }
    for (_, sql) in &mut statements {
        *sql = sql.trim().trim_end_matches(';').to_owned();
    }
    statements
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    kind: String,
    not_null: bool,
    /// A default, an identity or a generated value: an insert need not name it.
    filled: bool,
}

fn previous_columns() -> BTreeMap<(String, String), Column> {
    COLUMNS
        .lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "{line}");
            let column = Column {
                kind: f[2].to_owned(),
                not_null: f[3] == "t",
                filled: f[4] == "t",
            };
            ((f[0].to_owned(), f[1].to_owned()), column)
        })
        .collect()
}

async fn current_columns(conn: &mut PgConnection) -> BTreeMap<(String, String), Column> {
    sqlx::query(
        "select c.relname::text as relation, a.attname::text as name, format_type(a.atttypid, a.atttypmod) as kind,
                a.attnotnull as not_null, a.atthasdef or a.attidentity <> '' or a.attgenerated <> '' as filled
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped",
    )
    .fetch_all(conn)
    .await
    .expect("columns")
    .into_iter()
    .map(|r| {
        let column = Column {
            kind: r.get("kind"),
            not_null: r.get("not_null"),
            filled: r.get("filled"),
        };
        ((r.get("relation"), r.get("name")), column)
    })
    .collect()
}

/// What would stop the previous release working against this database's schema, one line each
/// (`statement <place>`, `column <relation>.<column>`, `required <relation>.<column>`,
/// `nullable <relation>.<column>`) with why.
async fn breaks(conn: &mut PgConnection) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    // Prepared afresh: a statement the connection kept from before a change would not say.
    sqlx::Connection::clear_cached_statements(&mut *conn)
        .await
        .expect("clear the statement cache");
    for (place, sql) in statements() {
        if let Err(e) = conn.prepare(sql.as_str()).await {
            found.insert(format!("statement {place}"), e.to_string());
        }
    }
    let previous = previous_columns();
    let current = current_columns(conn).await;
    let relations: BTreeSet<&String> = previous.keys().map(|(r, _)| r).collect();
    for ((relation, name), was) in &previous {
        match current.get(&(relation.clone(), name.clone())) {
            None => {
                found.insert(format!("column {relation}.{name}"), "dropped or renamed".to_owned());
            }
            Some(now) if now.kind != was.kind => {
                found.insert(
                    format!("column {relation}.{name}"),
                    format!("was {}, now {}", was.kind, now.kind),
                );
            }
            // Its reads decode a column that was not null as never null.
            Some(now) if was.not_null && !now.not_null => {
                found.insert(
                    format!("nullable {relation}.{name}"),
                    "was not null, and the previous release's reads may find a null".to_owned(),
                );
            }
            Some(_) => {}
        }
    }
    // An insert of the previous release fills what was required then; a column required now
    // that was not (new, or nullable, or with a default then) is one it may leave out.
    for ((relation, name), now) in &current {
        if !relations.contains(relation) || !now.not_null || now.filled {
            continue;
        }
        let was = previous.get(&(relation.clone(), name.clone()));
        if !was.is_some_and(|w| w.not_null && !w.filled) {
            found.insert(
                format!("required {relation}.{name}"),
                "not null without a default, and the previous release's inserts may leave it out".to_owned(),
            );
        }
    }
    found
}

fn known_breaks() -> BTreeMap<String, String> {
    BREAKS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (what, why) = line.split_once('\t').expect("what, a tab, why");
            (what.to_owned(), why.to_owned())
        })
        .collect()
}

#[test]
fn the_fixture_holds_the_previous_release_s_statements() {
    let statements = statements();
    assert!(statements.len() > 50, "{} statements", statements.len());
    assert!(statements.iter().all(|(_, sql)| !sql.is_empty()));
    // The move's statement, assembled as its fullest call makes it, is among them.
    assert!(statements
        .iter()
        .any(|(_, sql)| sql.contains("insert into ledger_postings") && sql.contains("pg_notify")));
    assert!(previous_columns().len() > 50);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_previous_release_keeps_working_against_the_current_schema(pool: PgPool) {
    let mut conn = pool.acquire().await.expect("conn");
    let found = breaks(&mut conn).await;
    let known = known_breaks();
    let new: Vec<String> = found
        .iter()
        .filter(|(what, _)| !known.contains_key(*what))
        .map(|(what, why)| format!("{what}: {why}"))
        .collect();
    assert!(
        new.is_empty(),
        "a migration breaks the previous release (expand now, contract in a later release; see deploy/README.md):\n{}",
        new.join("\n")
    );
    let stale: Vec<&String> = known.keys().filter(|k| !found.contains_key(*k)).collect();
    assert!(
        stale.is_empty(),
        "listed in tests/fixtures/previous-release/breaks.tsv but no longer broken: {stale:?}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_migration_that_renames_drops_or_requires_a_column_is_caught(pool: PgPool) {
    let mut conn = pool.acquire().await.expect("conn");
    let before = breaks(&mut conn).await;
    // As later migrations might, each a break for a binary still running the previous release.
    sqlx::raw_sql(
        "alter table moves rename column kind to move_kind;
         alter table ledger_postings add column currency text not null;
         alter table snapshots alter column state type text;
         alter table join_codes drop column expires_at;
         alter table deal_lines alter column line drop not null",
    )
    .execute(&mut *conn)
    .await
    .expect("the later migration");
    let after = breaks(&mut conn).await;
    let new: BTreeSet<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    for expected in [
        "column moves.kind",
        "required moves.move_kind",
        "required ledger_postings.currency",
        "column snapshots.state",
        "column join_codes.expires_at",
        "nullable deal_lines.line",
    ] {
        assert!(new.contains(&expected.to_owned()), "{expected} not in {new:?}");
    }
    // The statements that name them no longer prepare.
    assert!(
        new.iter().any(|k| k.starts_with("statement src/store/tables.rs")),
        "{new:?}"
    );
    assert!(
        new.iter().any(|k| k.starts_with("statement src/store/join_codes.rs")),
        "{new:?}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_server_starts_on_a_schema_a_later_release_migrated(pool: PgPool) {
    sqlx::query(
        "insert into _sqlx_migrations (version, description, success, checksum, execution_time)
         values (29991231000000, 'a later release', true, '\\x00', 0)",
    )
    .execute(&pool)
    .await
    .expect("a later release's migration");
    tablekeeper::store::migrate(&pool)
        .await
        .expect("the previous release starts");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_server_as_the_application_role_checks_the_migrations_instead_of_applying_them(pool: PgPool) {
    let as_role = crate::distribution::application_pool(&pool, 1).await;
    tablekeeper::store::migrate(&as_role)
        .await
        .expect("every migration is applied");

    let last: i64 = sqlx::query_scalar(
        "delete from _sqlx_migrations where version = (select max(version) from _sqlx_migrations) returning version",
    )
    .fetch_one(&pool)
    .await
    .expect("forget the last migration");
    let err = tablekeeper::store::migrate(&as_role)
        .await
        .expect_err("a migration is pending");
    assert!(err.to_string().contains(&last.to_string()), "{err}");
    assert!(err.to_string().contains("tablekeeper migrate"), "{err}");
    // Nothing was applied by the role.
    let count: i64 = sqlx::query_scalar("select count(*) from _sqlx_migrations where version = $1")
        .bind(last)
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(count, 0);
    as_role.close().await;
}
