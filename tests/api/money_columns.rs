//! Every column that the settle-up, the standings, the seasons and the member history read is
//! under a hash chain or checked (issue #39), kept in one list ([`COLUMNS`]): each hashed or
//! checked column is changed in the database as its superuser could, and the change must be
//! found by the table's audit, by `tablekeeper verify` of a bundle taken after, and by the
//! season's audit, as the list says. The list is held to the schema: a column it does not
//! classify (one a migration adds) fails the test until it is put under a chain or its reason
//! for being left out is written down here.
//!
//! The reads (src/store/*.rs): the settle-up reads `club_sessions` (chip value, currency) and,
//! through the standings, the session's `game_tables` and `session_members`; the seasons read
//! `seasons`, the club's sessions by `club_id` and `created_at`, the tables' `finished`, `game`,
//! `members`; the member history reads the rosters' `club_member_id`; names come from
//! `club_members`.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::bundle::{build, verify_with};

use crate::evidence::{a_finished_evening, tamper};
use crate::helpers::{spawn_app, TestApp};

/// Found by the table's audit.
const TABLE: u8 = 1;
/// Found by `verify` of the bundle of the table's session, taken after the change.
const BUNDLE: u8 = 2;
/// Found by the season's audit.
const SEASON: u8 = 4;
const EVERYWHERE: u8 = TABLE | BUNDLE | SEASON;

enum Class {
    /// Under a chain or checked: changed to `expr` (SQL; `$1` is the table), found by `by`.
    Covered { expr: &'static str, by: u8 },
    /// Not read for money, places or membership, for the reason given.
    Left(&'static str),
}

use Class::{Covered, Left};

const fn covered(expr: &'static str, by: u8) -> Class {
    Covered { expr, by }
}

/// The rows of a relation the evening's change touches (`$1` is the table).
fn scope(relation: &str) -> &'static str {
    match relation {
        "club_sessions" => "id = (select session_id from game_tables where id = $1)",
        "session_members" => "session_id = (select session_id from game_tables where id = $1)",
        "game_tables" => "id = $1",
        "seasons" => "club_id = (select club_id from game_tables where id = $1)",
        _ => "club_id = (select club_id from game_tables where id = $1)",
    }
}

/// Every column of the relations those reads touch, in one place.
const COLUMNS: &[(&str, &str, Class)] = &[
    // The session: the settle-up's rate, and what decides which seasons count it.
    ("club_sessions", "id", Left("the key: the tables' set-ups and the session's chain name it, so a session given another id has no chain and no tables")),
    ("club_sessions", "owner_id", Left("who opened it: access, not what is owed")),
    ("club_sessions", "name", Left("a label")),
    ("club_sessions", "created_at", covered("created_at - interval '40 days'", EVERYWHERE)),
    ("club_sessions", "chip_value", covered("chip_value * 10", EVERYWHERE)),
    ("club_sessions", "currency", covered("'USD'", EVERYWHERE)),
    ("club_sessions", "followed_until", Left("the live streams' lease")),
    ("club_sessions", "club_id", covered("(select id from clubs where id <> club_sessions.club_id order by created_at limit 1)", EVERYWHERE)),
    // The roster: whose league points and history a seat's are.
    ("session_members", "session_id", covered("(select id from club_sessions s where s.id <> session_members.session_id and s.club_id = (select club_id from game_tables where id = $1) limit 1)", EVERYWHERE)),
    ("session_members", "id", covered("gen_random_uuid()", EVERYWHERE)),
    ("session_members", "name", Left("shown only: seats and chains name member ids, so that a member can be anonymised")),
    ("session_members", "name_key", Left("finds a roster entry by name when a table is opened; the entry found is chained")),
    ("session_members", "created_at", Left("orders the roster for display")),
    ("session_members", "club_member_id", covered("(select c.id from club_members c where c.id <> session_members.club_member_id and c.club_id = (select club_id from game_tables where id = $1) order by c.created_at desc limit 1)", EVERYWHERE)),
    // The table: its set-up is in its own chain, its club and `finished` are checked.
    ("game_tables", "id", Left("the key: the log, ledger and chain are found by it")),
    ("game_tables", "owner_id", covered("(select id from users where id <> game_tables.owner_id limit 1)", EVERYWHERE)),
    ("game_tables", "session_id", covered("(select id from club_sessions s where s.id <> game_tables.session_id and s.club_id = game_tables.club_id limit 1)", EVERYWHERE)),
    // With options it reads, so that the audit reports rather than refuses the table.
    ("game_tables", "game", covered("'nomination-whist', options = '{}'", EVERYWHERE)),
    ("game_tables", "players", Left("names shown: with members at the seats (every table opened in a session), the seats are matched by member, which is hashed")),
    ("game_tables", "options", covered("options || '{\"widows_stake\": 7}'", EVERYWHERE)),
    ("game_tables", "version", Left("the log's length for optimistic concurrency: the log itself is chained, and a bundle's log must run from 1 to it")),
    ("game_tables", "finished", covered("not finished", EVERYWHERE)),
    ("game_tables", "created_at", covered("created_at - interval '1 hour'", EVERYWHERE)),
    ("game_tables", "updated_at", Left("when it last changed, for caches")),
    ("game_tables", "deal_lines_kept", Left("how the score sheet is stored; the lines are checked against the replay")),
    ("game_tables", "chain_head", covered("sha256(chain_head)", EVERYWHERE)),
    ("game_tables", "members", covered("array[members[2], members[1], members[3]]", EVERYWHERE)),
    ("game_tables", "followed_until", Left("the live streams' lease")),
    ("game_tables", "tree_size", Left("how far the kept Merkle frontier reaches: a cache of the chain's tree, built again from the links when it does not fit; the checkpoints it signs are checked against the bundled chain")),
    ("game_tables", "tree_frontier", Left("the kept Merkle frontier, a cache of the chain's tree: a checkpoint made from a wrong one is refused by the verifier against the bundled chain")),
    // A bundle names no table's club: the session's is chained and bundled.
    ("game_tables", "club_id", covered("(select id from clubs where id <> game_tables.club_id order by created_at limit 1)", TABLE | SEASON)),
    ("game_tables", "club_no", Left("the distribution key: the table's rows are found by it, so a change loses the table (not found), never moves money")),
    // The season: its settings decide which sessions and tables count and how.
    ("seasons", "id", Left("the key: the season's chain names it, so a season given another id has none")),
    ("seasons", "club_id", covered("(select id from clubs where id <> seasons.club_id order by created_at limit 1)", SEASON)),
    ("seasons", "name", covered("name || ' (renamed)'", SEASON)),
    ("seasons", "starts", covered("ends", SEASON)),
    ("seasons", "ends", covered("ends - 1", SEASON)),
    ("seasons", "games", covered("array['nomination-whist']", SEASON)),
    ("seasons", "scoring", covered("'points', league_points = null", SEASON)),
    ("seasons", "league_points", covered("'{9,2,1,0}'", SEASON)),
    ("seasons", "created_at", covered("created_at - interval '1 day'", SEASON)),
    // The club's members: names for the standings, accounts and roles for access.
    // The club: defaults copied into what is chained as it is made, and names.
    ("clubs", "id", Left("the key: sessions, members and seasons name it; what they hold is chained by their own ids")),
    ("clubs", "name", Left("shown only")),
    ("clubs", "created_at", Left("orders the list")),
    ("clubs", "number", Left("where the club's rows live (the shard key): not what they say")),
    ("clubs", "correction_window_secs", Left("a default copied into each close as it is made: the close keeps its own window and final time")),
    ("clubs", "leftover", Left("a default copied into a tournament as it is made: the tournament's rule is in the session's chain and its transfers in the round's record")),
    ("club_members", "id", Left("the key the rosters' chained `club_member_id` names")),
    ("club_members", "club_id", Left("whose member it is: access and the name shown; a seat's member is chained by id")),
    ("club_members", "user_id", Left("the account: access")),
    ("club_members", "name", Left("shown only, and anonymised by design")),
    ("club_members", "name_key", Left("finds a member by name; the roster entry made is chained")),
    ("club_members", "role", Left("access")),
    ("club_members", "guest", Left("a mark shown")),
    ("club_members", "created_at", Left("orders the list")),
    ("club_members", "left_at", Left("access: a member who left keeps their results")),
    ("club_members", "anonymised_at", Left("privacy: the name is replaced, the id and results stay")),
    ("club_members", "invitation", Left("how the member joined")),
];

async fn audit_of_table(app: &TestApp, table: &str) -> Value {
    app.get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone()
}

async fn audit_of_season(app: &TestApp, club: &str, season: &str) -> Value {
    app.get(&format!("/api/v1/clubs/{club}/seasons/{season}/audit"))
        .await
        .assert_status(200)
        .clone()
}

/// The table's audit's findings, as the service gives them to whoever may read the table now.
async fn table_problems(pool: &PgPool, table: &str) -> Vec<String> {
    let id = table.parse::<uuid::Uuid>().expect("uuid");
    match tablekeeper::service::audit::audit(pool, id).await {
        Ok((_, audit)) => audit.problems,
        Err(e) => vec![format!("the audit refused: {e}")],
    }
}

/// The season's audit's findings, as the service gives them to whoever may read it now (in the
/// club it is in now).
async fn season_problems(pool: &PgPool, season: &str) -> Vec<String> {
    let row = sqlx::query_as::<_, tablekeeper::store::seasons::SeasonRow>("select * from seasons where id = $1")
        .bind(season.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(pool)
        .await
        .expect("season");
    match tablekeeper::service::seasons::audit_season(pool, row).await {
        Ok(audit) => audit.problems,
        Err(e) => vec![format!("the audit refused: {e}")],
    }
}

/// `verify` of the bundle of the session the table is in now, as the server builds it (the
/// session may be another club's after a change, which its organiser could not download).
async fn verify_bundle(pool: &PgPool, table: &str) -> Result<String, String> {
    let session: uuid::Uuid = sqlx::query_scalar("select session_id from game_tables where id = $1")
        .bind(table.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(pool)
        .await
        .expect("session");
    let key = ed25519_dalek::SigningKey::from_bytes(&[9; 32]);
    let bytes = build(pool, session, &key, "tablekeeper")
        .await
        .map_err(|e| format!("no bundle: {e}"))?;
    verify_with(&bytes, &[key.verifying_key()], &[])
}

#[sqlx::test(migrations = "./migrations")]
async fn every_column_that_sets_money_places_or_membership_is_chained_or_checked(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    // Another club, and another session of this one, for changes to point at.
    app.organiser_named("eve@elsewhere.example", "Eve").await;
    sqlx::query("insert into clubs (id, name) values (gen_random_uuid(), 'Elsewhere')")
        .execute(&pool)
        .await
        .expect("another club");
    let evening = a_finished_evening(&app, "ann@club.example").await;
    app.session(&evening.token, "Saturday").await;
    // Made through the API, so chained: a chip value set after the session started, a season.
    app.request(
        reqwest::Method::PATCH,
        &format!("/api/v1/sessions/{}", evening.session),
        Some(&evening.token),
        Some(json!({"chip_value": {"minor_units": 5, "currency": "GBP"}})),
    )
    .await
    .assert_status(200);
    let club: uuid::Uuid = sqlx::query_scalar("select club_id from game_tables where id = $1")
        .bind(evening.table.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(&pool)
        .await
        .expect("club");
    let club = club.to_string();
    let season = app
        .post(
            &format!("/api/v1/clubs/{club}/seasons"),
            &evening.token,
            json!({"name": "Always", "starts": "2000-01-01", "ends": "2999-12-31", "games": ["tridge"],
                   "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let standings = app
        .get(&format!("/api/v1/clubs/{club}/seasons/{season}/standings"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(standings["rows"].as_array().map(Vec::len), Some(3), "{standings}");

    // The list is the schema's.
    let relations: BTreeSet<&str> = COLUMNS.iter().map(|(r, _, _)| *r).collect();
    let mut in_schema: BTreeSet<(String, String)> = BTreeSet::new();
    for relation in &relations {
        let columns: Vec<String> = sqlx::query_scalar(
            "select column_name::text from information_schema.columns
             where table_schema = 'public' and table_name = $1",
        )
        .bind(relation)
        .fetch_all(&pool)
        .await
        .expect("columns");
        in_schema.extend(columns.into_iter().map(|c| (relation.to_string(), c)));
    }
    let listed: BTreeSet<(String, String)> = COLUMNS.iter().map(|(r, c, _)| (r.to_string(), c.to_string())).collect();
    let unclassified: Vec<_> = in_schema.difference(&listed).collect();
    assert!(
        unclassified.is_empty(),
        "columns neither chained nor said to be left out (add them to COLUMNS): {unclassified:?}"
    );
    let gone: Vec<_> = listed.difference(&in_schema).collect();
    assert!(gone.is_empty(), "listed but not in the schema: {gone:?}");

    // Before any change: consistent everywhere.
    assert_eq!(audit_of_table(&app, &evening.table).await["problems"], json!([]));
    assert_eq!(audit_of_season(&app, &club, &season).await["problems"], json!([]));
    verify_bundle(&pool, &evening.table).await.expect("the bundle verifies");

    let mut missed = Vec::new();
    for (relation, column, class) in COLUMNS {
        let (expr, by) = match class {
            Covered { expr, by } => (expr, *by),
            Left(why) => {
                assert!(!why.is_empty(), "{relation}.{column} is left out without a reason");
                continue;
            }
        };
        tamper(
            &pool,
            &evening.table,
            &format!(
                "create table saved as select * from {relation};
                 update {relation} set {column} = {expr} where {}",
                scope(relation)
            ),
        )
        .await;
        if by & TABLE != 0 && table_problems(&pool, &evening.table).await.is_empty() {
            missed.push(format!("{relation}.{column}: the table's audit finds nothing"));
        }
        if by & BUNDLE != 0 {
            if let Ok(summary) = verify_bundle(&pool, &evening.table).await {
                missed.push(format!("{relation}.{column}: the bundle verifies ({summary})"));
            }
        }
        if by & SEASON != 0 && season_problems(&pool, &season).await.is_empty() {
            missed.push(format!("{relation}.{column}: the season's audit finds nothing"));
        }
        tamper(
            &pool,
            &evening.table,
            &format!("delete from {relation}; insert into {relation} select * from saved; drop table saved"),
        )
        .await;
        assert_eq!(
            season_problems(&pool, &season).await,
            Vec::<String>::new(),
            "{relation}.{column} restored"
        );
    }
    assert!(missed.is_empty(), "changes not found:\n{}", missed.join("\n"));
    verify_bundle(&pool, &evening.table).await.expect("the bundle verifies");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_and_a_season_an_earlier_release_wrote_audit_consistent_and_are_linked_at_their_next_change(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let evening = a_finished_evening(&app, "ann@club.example").await;
    let club: uuid::Uuid = sqlx::query_scalar("select club_id from club_sessions where id = $1")
        .bind(evening.session.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(&pool)
        .await
        .expect("club");
    let season = app
        .post(
            &format!("/api/v1/clubs/{club}/seasons"),
            &evening.token,
            json!({"name": "Always", "starts": "2000-01-01", "ends": "2999-12-31", "games": ["tridge"],
                   "scoring": {"kind": "points"}}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // As rows an earlier release writes during a rolling upgrade: never linked.
    tamper(&pool, &evening.table, "delete from record_links").await;

    crate::helpers::assert_audit_consistent(&app, &evening.table).await;
    assert_eq!(
        audit_of_season(&app, &club.to_string(), &season).await["problems"],
        json!([])
    );
    verify_bundle(&pool, &evening.table).await.expect("the bundle verifies");

    app.request(
        reqwest::Method::PATCH,
        &format!("/api/v1/sessions/{}", evening.session),
        Some(&evening.token),
        Some(json!({"chip_value": {"minor_units": 5, "currency": "GBP"}})),
    )
    .await
    .assert_status(200);
    let links: i64 = sqlx::query_scalar("select count(*) from record_links where subject = $1")
        .bind(evening.session.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(&pool)
        .await
        .expect("links");
    assert_eq!(links, 1, "linked at its next change");
    crate::helpers::assert_audit_consistent(&app, &evening.table).await;
    verify_bundle(&pool, &evening.table).await.expect("the bundle verifies");
}
