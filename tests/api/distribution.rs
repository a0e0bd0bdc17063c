//! The distributed plan, checked (issue #27): the migrated schema, read through pg_catalog,
//! against `deploy/distribution.tsv` (where each relation goes on Citus). A migration that adds
//! what Citus cannot distribute (a trigger on a distributed or reference table, a unique
//! constraint without the distribution column, a foreign key Citus cannot keep, a function of our
//! own in a default or a check, a relation the plan does not place) fails here; so does an
//! append-only relation the application's role may change.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::{PgConnection, PgPool, Row};

use crate::helpers::{assert_audit_consistent, spawn_app};

const PLAN: &str = include_str!("../../deploy/distribution.tsv");
/// The role the application's statements run as (migration 20261203000300).
const APP_ROLE: &str = "tablekeeper_app";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    Distributed,
    Reference,
    Local,
}

struct Relation {
    placement: Placement,
    /// The distribution column, for a distributed relation.
    column: Option<String>,
    append_only: bool,
}

struct Plan {
    relations: BTreeMap<String, Relation>,
    /// (kind, relation, name) of the constructs the plan still has to replace.
    allowed: BTreeSet<(String, String, String)>,
}

fn plan() -> Plan {
    let mut relations = BTreeMap::new();
    let mut allowed = BTreeSet::new();
    for line in PLAN.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields[0] == "allow" {
            assert!(
                fields.len() >= 5,
                "an allow line names kind, relation, name and why: {line}"
            );
            allowed.insert((fields[1].to_owned(), fields[2].to_owned(), fields[3].to_owned()));
            continue;
        }
        assert_eq!(fields.len(), 4, "relation, placement, column, append-only: {line}");
        let placement = match fields[1] {
            "distributed" => Placement::Distributed,
            "reference" => Placement::Reference,
            "local" => Placement::Local,
            other => panic!("unknown placement {other}: {line}"),
        };
        let column = (fields[2] != "-").then(|| fields[2].to_owned());
        assert_eq!(
            placement == Placement::Distributed,
            column.is_some(),
            "a distributed relation, and only one, names its column: {line}"
        );
        let append_only = match fields[3] {
            "yes" => true,
            "no" => false,
            other => panic!("append-only is yes or no, not {other}: {line}"),
        };
        let previous = relations.insert(
            fields[0].to_owned(),
            Relation {
                placement,
                column,
                append_only,
            },
        );
        assert!(previous.is_none(), "{} is listed twice", fields[0]);
    }
    Plan { relations, allowed }
}

/// What in the schema the plan cannot distribute, one sentence each as (kind, relation, name,
/// why); empty when the schema fits.
async fn findings(conn: &mut PgConnection, plan: &Plan) -> Vec<(String, String, String, String)> {
    let mut found = Vec::new();
    let mut push = |kind: &str, relation: &str, name: &str, why: String| {
        found.push((kind.to_owned(), relation.to_owned(), name.to_owned(), why));
    };
    let placed = |relation: &str| plan.relations.get(relation).map(|r| r.placement);

    // Every relation is placed, and every placed relation exists.
    let relations: Vec<String> = sqlx::query_scalar(
        "select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("relations");
    for relation in &relations {
        if !plan.relations.contains_key(relation) {
            push(
                "relation",
                relation,
                relation,
                "not placed in deploy/distribution.tsv".to_owned(),
            );
        }
    }
    for (relation, r) in &plan.relations {
        if !relations.contains(relation) {
            push(
                "relation",
                relation,
                relation,
                "listed in deploy/distribution.tsv but not in the schema".to_owned(),
            );
            continue;
        }
        if let Some(column) = &r.column {
            let exists: bool = sqlx::query_scalar(
                "select exists (select 1 from pg_attribute where attrelid = $1::regclass and attname = $2
                                and not attisdropped and attnotnull)",
            )
            .bind(relation)
            .bind(column)
            .fetch_one(&mut *conn)
            .await
            .expect("column");
            if !exists {
                push(
                    "column",
                    relation,
                    column,
                    "the distribution column is missing or may be null".to_owned(),
                );
            }
        }
    }

    // Triggers (constraint triggers included) and rules: Citus does not run them on shards.
    let triggers = sqlx::query(
        "select c.relname::text as relation, t.tgname::text as name, t.tgconstraint <> 0 as constraint_trigger
         from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and not t.tgisinternal order by 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("triggers");
    for t in triggers {
        let relation: String = t.get("relation");
        let name: String = t.get("name");
        let kind = if t.get("constraint_trigger") {
            "constraint trigger"
        } else {
            "trigger"
        };
        if placed(&relation).is_some_and(|p| p != Placement::Local) {
            push(
                kind,
                &relation,
                &name,
                format!("a {kind} on a distributed or reference table"),
            );
        }
    }
    let rules = sqlx::query(
        "select c.relname::text as relation, r.rulename::text as name
         from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("rules");
    for r in rules {
        let relation: String = r.get("relation");
        if placed(&relation).is_some_and(|p| p != Placement::Local) {
            push("rule", &relation, r.get("name"), "Citus has no rule system".to_owned());
        }
    }

    // Unique, primary-key and exclusion constraints (and unique indexes) of a distributed
    // relation include its distribution column: each shard can only check its own rows.
    let uniques = sqlx::query(
        "select c.relname::text as relation, i.relname::text as name,
                array(select a.attname::text from unnest(x.indkey) k join pg_attribute a
                      on a.attrelid = x.indrelid and a.attnum = k) as columns
         from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
         join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and (x.indisunique or x.indisexclusion) order by 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("unique indexes");
    for u in uniques {
        let relation: String = u.get("relation");
        let columns: Vec<String> = u.get("columns");
        if let Some(Relation {
            placement: Placement::Distributed,
            column: Some(column),
            ..
        }) = plan.relations.get(&relation)
        {
            if !columns.contains(column) {
                push(
                    "unique",
                    &relation,
                    u.get("name"),
                    format!(
                        "unique on ({}) without the distribution column {column}",
                        columns.join(", ")
                    ),
                );
            }
        }
    }

    // Foreign keys Citus keeps: between co-located distributed relations on their distribution
    // columns, from a distributed or local relation to a reference one, and among reference or
    // among local relations.
    let keys = sqlx::query(
        "select f.conname::text as name, c.relname::text as relation, r.relname::text as target,
                array(select a.attname::text from unnest(f.conkey) with ordinality k(n, i)
                      join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.n order by k.i) as columns,
                array(select a.attname::text from unnest(f.confkey) with ordinality k(n, i)
                      join pg_attribute a on a.attrelid = f.confrelid and a.attnum = k.n order by k.i) as targets
         from pg_constraint f join pg_class c on c.oid = f.conrelid join pg_class r on r.oid = f.confrelid
         join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and f.contype = 'f' order by 2, 1",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("foreign keys");
    for k in keys {
        let (relation, target): (String, String) = (k.get("relation"), k.get("target"));
        let (Some(from), Some(to)) = (plan.relations.get(&relation), plan.relations.get(&target)) else {
            continue; // an unplaced relation is reported above
        };
        let why = match (from.placement, to.placement) {
            (Placement::Distributed, Placement::Distributed) => {
                let columns: Vec<String> = k.get("columns");
                let targets: Vec<String> = k.get("targets");
                let on_distribution = columns
                    .iter()
                    .zip(&targets)
                    .any(|(c, t)| Some(c) == from.column.as_ref() && Some(t) == to.column.as_ref());
                (!on_distribution).then(|| "between distributed tables, not on their distribution columns".to_owned())
            }
            (Placement::Distributed | Placement::Local, Placement::Reference)
            | (Placement::Reference, Placement::Reference)
            | (Placement::Local, Placement::Local) => None,
            (a, b) => Some(format!("from a {a:?} table to a {b:?} one")),
        };
        if let Some(why) = why {
            push(
                "foreign key",
                &relation,
                k.get("name"),
                format!("{relation} -> {target}: {why}"),
            );
        }
    }

    // A function of our own in a default or a check would have to exist, the same, on every
    // node; a sequence behind a distributed relation's column is bigint (Citus hands each node
    // a range of it).
    let functions = sqlx::query(
        "select c.relname::text as relation, p.proname::text as name
         from pg_depend d join pg_proc p on p.oid = d.refobjid join pg_namespace pn on pn.oid = p.pronamespace
         join (select oid, adrelid as rel from pg_attrdef
               union all select oid, conrelid from pg_constraint where contype = 'c') e on e.oid = d.objid
         join pg_class c on c.oid = e.rel join pg_namespace n on n.oid = c.relnamespace
         where d.refclassid = 'pg_proc'::regclass
           and d.classid in ('pg_attrdef'::regclass, 'pg_constraint'::regclass)
           and n.nspname = 'public' and pn.nspname <> 'pg_catalog' order by 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("functions");
    for f in functions {
        let relation: String = f.get("relation");
        if placed(&relation).is_some_and(|p| p != Placement::Local) {
            push(
                "function",
                &relation,
                f.get("name"),
                "a function of our own in a default or a check".to_owned(),
            );
        }
    }
    let sequences = sqlx::query(
        "select c.relname::text as relation, a.attname::text as name, format_type(a.atttypid, null) as type
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
           and (a.attidentity <> '' or pg_get_expr(d.adbin, d.adrelid) like 'nextval(%') order by 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("sequences");
    for s in sequences {
        let relation: String = s.get("relation");
        let kind: String = s.get("type");
        if placed(&relation) == Some(Placement::Distributed) && kind != "bigint" {
            push(
                "sequence",
                &relation,
                s.get("name"),
                format!("a {kind} sequence, not bigint"),
            );
        }
    }

    // Append-only by privilege: the application's role reads and inserts, and changes nothing.
    for (relation, r) in plan.relations.iter().filter(|(n, _)| relations.contains(*n)) {
        for privilege in ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE"] {
            let held: bool = sqlx::query_scalar("select has_table_privilege($1, $2, $3)")
                .bind(APP_ROLE)
                .bind(relation)
                .bind(privilege)
                .fetch_one(&mut *conn)
                .await
                .expect("privilege");
            let public: bool = sqlx::query_scalar(
                "select exists (select 1 from pg_class c, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
                                where c.oid = $1::regclass and a.grantee = 0 and a.privilege_type = $2)",
            )
            .bind(relation)
            .bind(privilege)
            .fetch_one(&mut *conn)
            .await
            .expect("public privilege");
            let changes = matches!(privilege, "UPDATE" | "DELETE" | "TRUNCATE");
            if r.append_only && changes && (held || public) {
                push(
                    "privilege",
                    relation,
                    privilege,
                    format!("append-only, but {privilege} is granted"),
                );
            }
            if !r.append_only && privilege != "TRUNCATE" && relation != "_sqlx_migrations" && !held {
                push(
                    "privilege",
                    relation,
                    privilege,
                    format!("the application's role lacks {privilege}"),
                );
            }
            if r.append_only && !changes && !held {
                push(
                    "privilege",
                    relation,
                    privilege,
                    format!("the application's role lacks {privilege}"),
                );
            }
        }
    }
    found
}

/// The findings the plan does not allow, and the allow lines nothing matched any more.
async fn unplanned(conn: &mut PgConnection) -> (Vec<String>, Vec<String>) {
    let plan = plan();
    let found = findings(conn, &plan).await;
    let matched: BTreeSet<(String, String, String)> = found
        .iter()
        .map(|(k, r, n, _)| (k.clone(), r.clone(), n.clone()))
        .collect();
    let refused = found
        .into_iter()
        .filter(|(k, r, n, _)| !plan.allowed.contains(&(k.clone(), r.clone(), n.clone())))
        .map(|(k, r, n, why)| format!("{k} {r}.{n}: {why}"))
        .collect();
    let stale = plan
        .allowed
        .iter()
        .filter(|a| !matched.contains(*a))
        .map(|(k, r, n)| format!("allow {k} {r}.{n}"))
        .collect();
    (refused, stale)
}

#[sqlx::test(migrations = "./migrations")]
async fn the_migrated_schema_is_what_the_plan_can_distribute(pool: PgPool) {
    let mut conn = pool.acquire().await.expect("conn");
    let (refused, stale) = unplanned(&mut conn).await;
    assert!(
        refused.is_empty(),
        "the schema has what deploy/distribution.tsv cannot distribute:\n{}",
        refused.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allowed in deploy/distribution.tsv but no longer in the schema (remove the line):\n{}",
        stale.join("\n")
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_migration_adding_what_citus_cannot_distribute_is_caught(pool: PgPool) {
    // Each as a later migration might write it, applied in a transaction that is rolled back.
    let cases = [
        (
            "create function stamp() returns trigger language plpgsql as $$ begin return new; end $$;
             create trigger moves_stamp before insert on moves for each row execute function stamp()",
            "trigger moves.moves_stamp",
        ),
        (
            "create function refuse() returns trigger language plpgsql as $$ begin return null; end $$;
             create trigger clubs_refuse before delete on clubs for each row execute function refuse()",
            "trigger clubs.clubs_refuse",
        ),
        (
            "alter table ledger_bookings add constraint ledger_bookings_memo_once unique (memo)",
            "unique ledger_bookings.ledger_bookings_memo_once",
        ),
        (
            "alter table join_codes add column club_no integer;
             alter table join_codes add constraint join_codes_table_fkey
                 foreign key (table_id, club_no) references game_tables (id, club_no)",
            "foreign key join_codes.join_codes_table_fkey",
        ),
        (
            "alter table moves add constraint moves_seat_fkey
                 foreign key (table_id, seq, club_no) references snapshots (table_id, seq, club_no)",
            "",
        ),
        (
            // Unique per table, as the keys were before the club became the tenant: a shard holds
            // some of a club's tables, and could not check it across the others.
            "create unique index moves_once_per_table on moves (table_id, seq)",
            "unique moves.moves_once_per_table",
        ),
        (
            "create unique index verifications_id_once on verifications (id);
             alter table corrections add constraint corrections_first_booking_fkey
                 foreign key (first_booking) references verifications (id)",
            "foreign key corrections.corrections_first_booking_fkey",
        ),
        (
            "create function positive(bigint) returns boolean language sql immutable as 'select $1 > 0';
             alter table ledger_postings add constraint ledger_postings_positive check (positive(amount))",
            "function ledger_postings.positive",
        ),
        (
            "create table table_notes (table_id uuid not null, note text)",
            "relation table_notes.table_notes",
        ),
        ("grant update on moves to tablekeeper_app", "privilege moves.UPDATE"),
        (
            "grant delete on ledger_postings to public",
            "privilege ledger_postings.DELETE",
        ),
        (
            "revoke insert on deal_lines from tablekeeper_app",
            "privilege deal_lines.INSERT",
        ),
        (
            "alter table game_tables drop constraint game_tables_pkey cascade;
             alter table game_tables add constraint game_tables_by_club unique (club_id, created_at)",
            "unique game_tables.game_tables_by_club",
        ),
    ];
    for (sql, expected) in cases {
        let mut tx = pool.begin().await.expect("tx");
        sqlx::raw_sql(sql).execute(&mut *tx).await.expect(sql);
        let (refused, _) = unplanned(&mut tx).await;
        if expected.is_empty() {
            // A foreign key between co-located relations on the club's number is what Citus keeps.
            assert!(refused.is_empty(), "{sql}: {refused:?}");
        } else {
            assert!(
                refused.iter().any(|r| r.starts_with(expected)),
                "{sql}: expected `{expected}` in {refused:?}"
            );
        }
        tx.rollback().await.expect("rollback");
    }
    // And nothing of it stayed.
    let mut conn = pool.acquire().await.expect("conn");
    assert!(unplanned(&mut conn).await.0.is_empty());
}

/// A tournament of the evening's session with one round played and closed: five at four-seat
/// tables, so one sits out (a seating, a bye and a result of each kind), and a deal of it ruled
/// on after the close (an amendment).
async fn a_tournament_round(app: &crate::helpers::TestApp, evening: &crate::evidence::Evening) {
    let token = &evening.token;
    let session = &evening.session;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"].clone();
    let club = club.as_str().expect("club");
    let mut entrants = Vec::new();
    for name in ["Dan", "Eve", "Fay", "Gus", "Hal"] {
        let made = app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                token,
                serde_json::json!({"name": name}),
            )
            .await;
        entrants.push(made.assert_status(201)["id"].clone());
    }
    let body = serde_json::json!({"name": "Drive", "game": "nomination-whist", "format": {"kind": "rotation"},
        "seats": {"min": 4, "max": 4}, "rounds": 1, "entrants": entrants, "scoring": {"kind": "points"},
        "options": {"hand_sizes": [1, 1]}});
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), token, body)
        .await
        .assert_status(201)["id"]
        .clone();
    let tournament = tournament.as_str().expect("id");
    let started = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds"),
            token,
            serde_json::json!({}),
        )
        .await
        .assert_status(201)
        .clone();
    let table = started["tables"][0]["table_id"].as_str().expect("table").to_owned();
    crate::helpers::accept(
        app,
        &table,
        token,
        serde_json::json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]}),
    )
    .await;
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        token,
        serde_json::json!({}),
    )
    .await
    .assert_status(200);
    // A ruling after the close on the deal the round counted: the round's result is amended.
    app.post(
        &format!("/api/v1/tables/{table}/deals/1/rulings"),
        token,
        serde_json::json!({"kind": "split", "reason": "a revoke", "results": [{"seat": 1, "result": 1}]}),
    )
    .await
    .assert_status(201);
    // A stops game's round whose pools are shared when it closes: the board dressed as the
    // table opened is left over.
    let body = serde_json::json!({"name": "Pope Joan", "game": "pope-joan", "format": {"kind": "fixed"},
        "rounds": 1, "entrants": entrants[..3], "scoring": {"kind": "chips"}, "leftover": "share"});
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), token, body)
        .await
        .assert_status(201)["id"]
        .clone();
    let tournament = tournament.as_str().expect("id");
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds"),
        token,
        serde_json::json!({}),
    )
    .await
    .assert_status(201);
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            token,
            serde_json::json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    assert!(closed["played_rounds"][0]["tables"][0]["leftover"]
        .as_array()
        .is_some_and(|l| !l.is_empty()));
}

/// Rows of each append-only relation, as the superuser sees them.
async fn counts(pool: &PgPool, plan: &Plan) -> BTreeMap<String, i64> {
    let mut counts = BTreeMap::new();
    for relation in plan.relations.iter().filter(|(_, r)| r.append_only).map(|(n, _)| n) {
        let n: i64 = sqlx::query_scalar(&format!("select count(*) from {relation}"))
            .fetch_one(pool)
            .await
            .expect("count");
        counts.insert(relation.clone(), n);
    }
    counts
}

/// A pool of `size` connections to `pool`'s database as the server makes its own
/// (`store::application_pool`): each takes on the application's role, although the tests sign
/// in as a superuser.
pub async fn application_pool(pool: &PgPool, size: u32) -> PgPool {
    let url = crate::helpers::database_url(pool);
    let app = tablekeeper::store::application_pool(&url, size, std::time::Duration::from_secs(5), None)
        .expect("a pool as the application's role");
    let acting: String = sqlx::query_scalar("select current_user::text")
        .fetch_one(&app)
        .await
        .expect("current_user");
    assert_eq!(acting, tablekeeper::store::APPLICATION_ROLE);
    app
}

#[sqlx::test(migrations = "./migrations")]
async fn an_evening_is_played_and_audited_as_the_application_role_which_cannot_change_the_log_or_the_ledger(
    pool: PgPool,
) {
    // Every writer of the service (moves, corrections, scorers, verifications, undo, the
    // settlement, bundles' signing key) needs no more than the role has.
    let app = spawn_app(application_pool(&pool, 5).await).await;
    let evening = crate::evidence::a_finished_evening(&app, "ann@club.example").await;
    assert_audit_consistent(&app, &evening.table).await;
    a_tournament_round(&app, &evening).await;
    crate::cosign::a_cosigning_phone(&app, &evening.token, &evening.table).await;
    crate::cosign::a_cosigning_board(&app, &evening.token, &evening.session, &evening.table).await;
    // The session closed (final at once, its checkpoint made) and reopened.
    let session = &evening.session;
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        &evening.token,
        serde_json::json!({"correction_window": "PT0S", "force": true, "reason": "the evening is over"}),
    )
    .await
    .assert_status(200);
    app.post(
        &format!("/api/v1/sessions/{session}/reopen"),
        &evening.token,
        serde_json::json!({"reason": "a result to put right"}),
    )
    .await
    .assert_status(200);
    let superuser = spawn_app(pool.clone()).await;
    *superuser.default_reader.lock().expect("reader") = Some(evening.token.clone());

    let plan = plan();
    let before = counts(&pool, &plan).await;
    assert!(
        before.values().all(|n| *n > 0),
        "every append-only relation has rows: {before:?}"
    );
    let mut conn = app.pool.acquire().await.expect("conn");
    for relation in before.keys() {
        for statement in [
            // Every append-only relation is a table's but the records' chains, the tournaments' and the sessions' closes.
            if relation.as_str() == "record_links" {
                format!("update {relation} set subject = subject")
            } else if relation.starts_with("session_") || relation.as_str() == "board_keys" {
                format!("update {relation} set session_id = session_id")
            } else if relation.starts_with("tournament_") {
                format!("update {relation} set tournament_id = tournament_id")
            } else {
                format!("update {relation} set table_id = table_id")
            },
            format!("delete from {relation}"),
            format!("truncate {relation}"),
        ] {
            let err = sqlx::query(&statement).execute(&mut *conn).await.expect_err(&statement);
            let code = err.as_database_error().and_then(|e| e.code()).map(|c| c.into_owned());
            assert_eq!(code.as_deref(), Some("42501"), "{statement}: {err}");
        }
    }
    drop(conn);
    assert_eq!(counts(&pool, &plan).await, before, "nothing changed");
    assert_eq!(
        assert_audit_consistent(&superuser, &evening.table).await["consistent"],
        true
    );
}
