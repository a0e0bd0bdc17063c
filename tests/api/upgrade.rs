//! A database written by the previous release still works: the data of a v0.1 server (commit
//! f8e19fd) is loaded under the migrations v0.1 had, the later migrations are applied on top of
//! it, and every table of it loads, scores and books as v0.1 answered, audits consistent and
//! takes a further move and an undo.
//!
//! The fixture (`tests/fixtures/v0.1-f8e19fd.sql`, data only) and the answers v0.1 gave for it
//! (`v0.1-f8e19fd.expected.json`) were written by `tests/fixtures/make-v0.1-fixture.py` against a
//! v0.1 server. Nothing here reads the engine's snapshots directly: their shape may change, and
//! a snapshot that no longer reads is the store's to pass over.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::migrate::Migrate;
use sqlx::{Connection, PgPool};

use crate::helpers::{assert_audit_consistent, spawn_app, TestApp};

/// The newest migration v0.1 shipped: the fixture was written under it and those before it.
const V0_1_LAST_MIGRATION: i64 = 20261122000000;
const FIXTURE: &str = include_str!("../fixtures/v0.1-f8e19fd.sql");
const EXPECTED: &str = include_str!("../fixtures/v0.1-f8e19fd.expected.json");

#[derive(Deserialize)]
struct Expected {
    organiser: Login,
    session: String,
    tables: Vec<ExpectedTable>,
}

#[derive(Deserialize)]
struct Login {
    email: String,
    password: String,
}

/// What v0.1 answered for one table, and a move that is legal at its version.
#[derive(Deserialize)]
struct ExpectedTable {
    id: String,
    game: String,
    version: i64,
    scores: Value,
    ledger_balances: Value,
    next_move: Value,
}

/// Applies v0.1's migrations, loads its fixture, then applies every later migration.
async fn load_v0_1_database(pool: &PgPool) {
    load_database(pool, V0_1_LAST_MIGRATION, FIXTURE).await;
}

/// Applies the migrations up to `last_migration`, loads `fixture` (a data-only dump written
/// under them), then applies every later migration.
pub(crate) async fn load_database(pool: &PgPool, last_migration: i64, fixture: &str) {
    let migrator = sqlx::migrate!();
    // The dump sets session settings (an empty search_path among them), so it is loaded on a
    // connection of its own that is closed afterwards rather than returned to the pool.
    let mut conn = pool.acquire().await.expect("connection").detach();
    conn.ensure_migrations_table().await.expect("migrations table");
    for migration in migrator
        .iter()
        .filter(|m| m.version <= last_migration && !m.migration_type.is_down_migration())
    {
        conn.apply(migration)
            .await
            .expect("a migration of the fixture's release applies");
    }
    // One transaction: the balance of a booking is checked at commit, after all its postings,
    // by a trigger function that names its tables without a schema, so the dump's empty
    // search_path is reset first.
    let mut tx = conn.begin().await.expect("transaction");
    sqlx::raw_sql(fixture)
        .execute(&mut *tx)
        .await
        .expect("the fixture loads");
    sqlx::raw_sql("reset all").execute(&mut *tx).await.expect("reset");
    tx.commit().await.expect("the fixture commits");
    conn.close().await.expect("close");
    migrator
        .run(pool)
        .await
        .expect("the later migrations apply to the fixture's data");
}

/// Each account's balance, by account: the order the ledger lists them in is not the point.
fn by_account(balances: &Value) -> BTreeMap<String, i64> {
    balances
        .as_array()
        .expect("balances")
        .iter()
        .map(|b| {
            let account = b["account"].as_str().expect("account").to_owned();
            (account, b["balance"].as_i64().expect("balance"))
        })
        .collect()
}

async fn balances(app: &TestApp, table: &str) -> BTreeMap<String, i64> {
    by_account(&app.ledger(table).await["balances"])
}

#[sqlx::test(migrations = false)]
async fn a_database_written_by_v0_1_still_loads_takes_moves_and_audits_consistent(pool: PgPool) {
    // Arrange
    let expected: Expected = serde_json::from_str(EXPECTED).expect("expected answers");
    load_v0_1_database(&pool).await;
    let app = spawn_app(pool).await;
    let login = json!({"email": expected.organiser.email, "password": expected.organiser.password});
    let token = app
        .request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    // Reads are private (issue #25): the fixture's organiser reads its own club's tables.
    *app.default_reader.lock().expect("reader") = Some(token.clone());
    let listed = app
        .get(&format!("/api/v1/tables?session={}", expected.session))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        listed["items"].as_array().map(Vec::len),
        Some(expected.tables.len()),
        "{listed}"
    );
    app.get(&format!("/api/v1/sessions/{}/ledger", expected.session))
        .await
        .assert_status(200);

    for table in &expected.tables {
        let (id, game) = (table.id.as_str(), table.game.as_str());

        // Act and assert: the table as v0.1 left it.
        let view = app.state(id).await;
        assert_eq!(view["game"], game);
        assert_eq!(view["version"], table.version, "{game}: version");
        assert_eq!(app.scores(id).await, table.scores, "{game}: scores");
        let expected_balances = by_account(&table.ledger_balances);
        assert_eq!(balances(&app, id).await, expected_balances, "{game}: ledger balances");
        let audit = assert_audit_consistent(&app, id).await;
        assert_eq!(audit["chained"], false, "{game}: stored before the hash chain");

        // A further move.
        let answer = app
            .post(
                &format!("/api/v1/tables/{id}/moves"),
                &token,
                json!({"move": table.next_move, "expected_version": table.version}),
            )
            .await;
        let answer = answer.assert_status(201);
        assert_eq!(
            answer["table"]["version"],
            table.version + 1,
            "{game}: version after a move"
        );
        // The move links the whole table, set-up and v0.1 entries included, into its chain.
        let audit = assert_audit_consistent(&app, id).await;
        assert_eq!(audit["chained"], true, "{game}: chained by its next move");
        assert_eq!(audit["chain_intact"], true, "{game}: {audit}");
        assert_eq!(app.state(id).await["chain_head"], audit["chain_head"], "{game}: head");

        // Its undo: the table is back where v0.1 left it, a version on.
        let undo = app
            .post(
                &format!("/api/v1/tables/{id}/undo"),
                &token,
                json!({"expected_version": table.version + 1}),
            )
            .await;
        let undo = undo.assert_status(200);
        assert_eq!(
            undo["table"]["version"],
            table.version + 2,
            "{game}: version after the undo"
        );
        assert_eq!(undo["table"]["state"], view["state"], "{game}: state after the undo");
        assert_eq!(
            app.scores(id).await["sheet"],
            table.scores["sheet"],
            "{game}: scores after the undo"
        );
        assert_eq!(
            balances(&app, id).await,
            expected_balances,
            "{game}: ledger balances after the undo"
        );
        assert_audit_consistent(&app, id).await;
    }
}

/// The newest migration before the chain's content had versions: the chain-v1 fixture (written
/// by `tests/fixtures/make-chain-v1-fixture.py` against commit 4d581aa) holds only links of
/// content version 1, and bundles of format 1.
const CHAIN_V1_LAST_MIGRATION: i64 = 20261126000001;
const CHAIN_V1_FIXTURE: &str = include_str!("../fixtures/chain-v1-4d581aa.sql");
const CHAIN_V1_EXPECTED: &str = include_str!("../fixtures/chain-v1-4d581aa.expected.json");
const CHAIN_V1_PLAIN_BUNDLE: &[u8] = include_bytes!("../fixtures/chain-v1-4d581aa.plain.bundle.json");
const CHAIN_V1_CORRECTED_BUNDLE: &[u8] = include_bytes!("../fixtures/chain-v1-4d581aa.corrected.bundle.json");

#[derive(Deserialize)]
struct ChainV1Expected {
    organiser: Login,
    plain_session: String,
    session: String,
    public_key: String,
    tables: Vec<ChainV1Table>,
}

#[derive(Deserialize)]
struct ChainV1Table {
    id: String,
    game: String,
    version: i64,
    chain_head: String,
    next_move: Value,
    /// Deal, moves and reason of a correction the table takes after `next_move`.
    next_correction: Option<(u16, Value, String)>,
}

/// The bookings v0.1 stored are chained by the upgrade (migration 20261207000200): each has its
/// postings numbered 1..count, the last one's running sum zero, so a posting appended to one of
/// them later is refused by the keys as a new booking's would be.
#[sqlx::test(migrations = false)]
async fn bookings_v0_1_stored_are_chained_by_the_upgrade_and_take_no_further_posting(pool: PgPool) {
    load_v0_1_database(&pool).await;
    let (bookings, unchained): (i64, i64) = sqlx::query_as(
        "select count(*),
                count(*) filter (where b.posting_count <> p.c or p.last_running <> 0 or p.sum <> 0
                                 or p.n_sum <> b.posting_count * (b.posting_count + 1) / 2)
         from ledger_bookings b
         left join (select table_id, booking_id, count(*) as c, sum(amount) as sum, sum(n) as n_sum,
                           max(running) filter (where n = booking_postings) as last_running
                    from ledger_postings group by table_id, booking_id) p
           on p.table_id = b.table_id and p.booking_id = b.id",
    )
    .fetch_one(&pool)
    .await
    .expect("the stored bookings");
    assert_eq!((bookings, unchained), (125, 0));

    let app = crate::distribution::application_pool(&pool, 1).await;
    let (table, booking, count): (uuid::Uuid, i64, i32) =
        sqlx::query_as("select table_id, id, posting_count from ledger_bookings order by id limit 1")
            .fetch_one(&pool)
            .await
            .expect("a stored booking");
    // A further posting past the count, one claiming a larger count, one at a taken position.
    for (n, of, running) in [(count + 1, count, 1i64), (count + 1, count + 1, 1), (count, count, 1)] {
        let mut tx = app.begin().await.expect("tx");
        let inserted = sqlx::query(
            "insert into ledger_postings (table_id, club_no, booking_id, account, amount, n, booking_postings, running)
             select $1, club_no, $2, 'seat:9', 1, $3, $4, $5 from game_tables where id = $1",
        )
        .bind(table)
        .bind(booking)
        .bind(n)
        .bind(of)
        .bind(running)
        .execute(&mut *tx)
        .await;
        let refused = match inserted {
            Err(e) => e,
            Ok(_) => tx.commit().await.expect_err("an extra posting is refused at commit"),
        };
        let code = refused
            .as_database_error()
            .and_then(|d| d.code())
            .map(|c| c.into_owned());
        assert!(
            matches!(code.as_deref(), Some("23503" | "23514" | "23505")),
            "{n}/{of}: {refused}"
        );
    }
    let postings: i64 =
        sqlx::query_scalar("select count(*) from ledger_postings where table_id = $1 and booking_id = $2")
            .bind(table)
            .bind(booking)
            .fetch_one(&pool)
            .await
            .expect("postings");
    assert_eq!(postings, i64::from(count));
    app.close().await;
}

async fn content_versions(app: &TestApp, table: &str) -> Vec<(i64, i16)> {
    sqlx::query_as(concat!(
        "select pos, content_version from ",
        links_of_table!(),
        " order by pos"
    ))
    .bind(table.parse::<uuid::Uuid>().expect("uuid"))
    .fetch_all(&app.pool)
    .await
    .expect("links")
}

async fn bundle_of(app: &TestApp, session: &str) -> Vec<u8> {
    let response = app
        .client
        .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base))
        .bearer_auth(app.reader().unwrap_or_default())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body").to_vec()
}

#[sqlx::test(migrations = false)]
async fn chains_of_content_version_1_still_audit_intact_and_grow_at_the_current_version(pool: PgPool) {
    use tablekeeper::service::bundle::verify;
    use tablekeeper::service::chain::CONTENT_VERSION;

    // Arrange
    let expected: ChainV1Expected = serde_json::from_str(CHAIN_V1_EXPECTED).expect("expected answers");
    load_database(&pool, CHAIN_V1_LAST_MIGRATION, CHAIN_V1_FIXTURE).await;
    let app = spawn_app(pool).await;
    let login = json!({"email": expected.organiser.email, "password": expected.organiser.password});
    let token = app
        .request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    // Reads are private (issue #25): the fixture's organiser reads its own club's tables.
    *app.default_reader.lock().expect("reader") = Some(token.clone());

    // The kept signing key still signs; the old bundles read as they did: the one without
    // corrections verifies, the one with them is refused for what it lacks, as it was then.
    let key = app.get("/api/v1/audit-key").await.assert_status(200)["public_key"].clone();
    assert_eq!(key, expected.public_key.as_str());
    let summary = verify(CHAIN_V1_PLAIN_BUNDLE, Some(&expected.public_key)).expect("a format-1 bundle verifies");
    assert!(summary.starts_with("ok: "), "{summary}");
    let refused = verify(CHAIN_V1_CORRECTED_BUNDLE, Some(&expected.public_key)).expect_err("no correction rows");
    assert!(refused.contains("gives no row for"), "{refused}");

    for table in &expected.tables {
        let (id, game) = (table.id.as_str(), table.game.as_str());
        // Act and assert: the stored chain, all of version 1, is intact as it was.
        let audit = assert_audit_consistent(&app, id).await;
        assert_eq!(audit["chain_intact"], true, "{game}: {audit}");
        assert_eq!(audit["chain_head"], table.chain_head.as_str(), "{game}");
        let old = content_versions(&app, id).await;
        assert!(old.iter().all(|(_, v)| *v == 1), "{game}: {old:?}");

        // A further move links at the current version, after the old links.
        app.post(
            &format!("/api/v1/tables/{id}/moves"),
            &token,
            json!({"move": table.next_move, "expected_version": table.version}),
        )
        .await
        .assert_status(201);
        if let Some((deal, moves, reason)) = &table.next_correction {
            app.request(
                Method::PUT,
                &format!("/api/v1/tables/{id}/deals/{deal}"),
                Some(&token),
                Some(json!({"moves": moves, "expected_version": table.version + 1, "reason": reason})),
            )
            .await
            .assert_status(200);
        }
        // The new move's own link is kept in its row (issue #27), the old ones where they were.
        let in_row: Option<i64> = sqlx::query_scalar("select link_pos from moves where table_id = $1 and seq = $2")
            .bind(id.parse::<uuid::Uuid>().expect("uuid"))
            .bind(table.version + 1)
            .fetch_one(&app.pool)
            .await
            .expect("the new move");
        assert!(in_row.is_some(), "{game}");
        let audit = assert_audit_consistent(&app, id).await;
        assert_eq!(audit["chain_intact"], true, "{game}: {audit}");
        let now = content_versions(&app, id).await;
        assert_eq!(&now[..old.len()], old.as_slice(), "{game}: the old links are kept");
        assert!(now.len() > old.len(), "{game}");
        assert!(
            now[old.len()..].iter().all(|(_, v)| *v == CONTENT_VERSION),
            "{game}: {now:?}"
        );
    }

    // Bundles written now carry both versions of links and verify.
    for session in [&expected.plain_session, &expected.session] {
        let bytes = bundle_of(&app, session).await;
        let summary = verify(&bytes, Some(&expected.public_key)).expect("a bundle of an upgraded database verifies");
        assert!(summary.starts_with("ok: "), "{summary}");
    }
}

#[sqlx::test(migrations = false)]
async fn after_the_upgrade_each_account_owns_a_club_holding_its_sessions_tables_and_rosters(pool: PgPool) {
    let expected: Expected = serde_json::from_str(EXPECTED).expect("expected answers");
    load_v0_1_database(&pool).await;
    let app = spawn_app(pool).await;
    let count = |sql: &'static str| {
        let pool = app.pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await.expect(sql) }
    };
    // Each account owns exactly one club, named after it.
    assert_eq!(
        count(
            "select count(*) from users u where (select count(*) from club_members m
               where m.user_id = u.id and m.role = 'owner') <> 1"
        )
        .await,
        0
    );
    assert!(count("select count(*) from clubs").await >= 1);
    // Every session and table sits in a club its owner owns.
    assert_eq!(
        count(
            "select count(*) from club_sessions s where not exists (select 1 from club_members m
               where m.club_id = s.club_id and m.user_id = s.owner_id and m.role = 'owner')"
        )
        .await,
        0
    );
    assert_eq!(
        count(
            "select count(*) from game_tables t where not exists (select 1 from club_members m
               where m.club_id = t.club_id and m.user_id = t.owner_id and m.role = 'owner')"
        )
        .await,
        0
    );
    // Every roster entry (v0.1 had none; later fixtures do) is a member of its session's club,
    // of the same name.
    assert_eq!(
        count(
            "select count(*) from session_members r join club_sessions s on s.id = r.session_id
               where not exists (select 1 from club_members m where m.id = r.club_member_id
               and m.club_id = s.club_id and m.name_key = r.name_key)"
        )
        .await,
        0
    );

    // Through the API: the organiser's one club, its session listed under it, its tables audit.
    let login = json!({"email": expected.organiser.email, "password": expected.organiser.password});
    let token = app
        .request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    *app.default_reader.lock().expect("reader") = Some(token.clone());
    let clubs = app.request(Method::GET, "/api/v1/clubs", Some(&token), None).await;
    let clubs = clubs.assert_status(200).clone();
    assert_eq!(clubs["items"].as_array().map(Vec::len), Some(1), "{clubs}");
    assert_eq!(clubs["items"][0]["role"], "owner");
    let club = clubs["items"][0]["id"].as_str().expect("id").to_owned();
    let sessions = app
        .request(
            Method::GET,
            &format!("/api/v1/sessions?club_id={club}"),
            Some(&token),
            None,
        )
        .await;
    let sessions = sessions.assert_status(200).clone();
    assert!(
        sessions["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|s| s["id"] == expected.session.as_str() && s["club_id"] == club.as_str()),
        "{sessions}"
    );
    for table in &expected.tables {
        assert_audit_consistent(&app, &table.id).await;
    }
}

/// Rosters written before clubs kept their own ids, which their tables' `members` and chains
/// name: the session view gives each entry's club member as `id` and the entry as `roster_id`,
/// a new table seats club members by those ids, and a member who left is anonymised there too.
/// Set-ups chained before content version 3 hashed the typed names: those seats keep them (the
/// chain vouches for them) while every roster shows the label, and every chain stays intact.
#[sqlx::test(migrations = false)]
async fn rosters_written_before_clubs_name_club_members_and_anonymise_without_breaking_old_chains(pool: PgPool) {
    use tablekeeper::service::bundle::verify;

    // Arrange
    let expected: ChainV1Expected = serde_json::from_str(CHAIN_V1_EXPECTED).expect("expected answers");
    load_database(&pool, CHAIN_V1_LAST_MIGRATION, CHAIN_V1_FIXTURE).await;
    let app = spawn_app(pool).await;
    let login = json!({"email": expected.organiser.email, "password": expected.organiser.password});
    let token = app
        .request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    *app.default_reader.lock().expect("reader") = Some(token.clone());
    let session = expected.session.as_str();
    let club: uuid::Uuid = sqlx::query_scalar("select club_id from club_sessions where id = $1::uuid")
        .bind(session)
        .fetch_one(&app.pool)
        .await
        .expect("club");
    let club_members: Vec<(uuid::Uuid, String)> =
        sqlx::query_as("select id, name from club_members where club_id = $1 and user_id is null order by name")
            .bind(club)
            .fetch_all(&app.pool)
            .await
            .expect("members");
    let bob = club_members.iter().find(|(_, n)| n == "Bob").expect("Bob").0;

    // Act and assert: the roster names club members, and keeps its own ids as roster ids.
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let roster = view["members"].as_array().expect("members").clone();
    assert_eq!(roster.len(), 3, "{view}");
    for entry in &roster {
        let name = entry["name"].as_str().expect("name");
        let member = club_members.iter().find(|(_, n)| n == name).expect(name).0;
        assert_eq!(entry["id"], member.to_string(), "{entry}");
        assert_ne!(
            entry["roster_id"], entry["id"],
            "a roster from before clubs keeps its ids"
        );
    }
    let seated: Vec<Value> = (0..)
        .zip(&roster)
        .map(|(seat, m)| json!({"seat": seat, "member": m["id"]}))
        .collect();
    let table = app
        .post(
            "/api/v1/tables",
            &token,
            json!({"game": "tridge", "players": ["A", "B", "C"], "session_id": session, "members": seated}),
        )
        .await
        .assert_status(201)
        .clone();
    let rostered: Vec<Value> = roster.iter().map(|m| m["roster_id"].clone()).collect();
    assert_eq!(
        table["members"],
        json!(rostered),
        "the seats name the same roster entries"
    );

    // Bob leaves and is anonymised.
    let path = format!("/api/v1/clubs/{club}/members/{bob}");
    app.request(Method::PATCH, &path, Some(&token), Some(json!({"active": false})))
        .await
        .assert_status(200);
    let anonymised = app
        .request(Method::POST, &format!("{path}/anonymise"), Some(&token), None)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(anonymised["name"], "Former member 1");
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert!(!view["members"].to_string().contains("\"Bob\""), "{view}");
    let new_table = table["id"].as_str().expect("id");
    let seats = app.get(&format!("/api/v1/tables/{new_table}")).await.assert_status(200)["players"].clone();
    assert_eq!(
        seats,
        json!(["A", "Former member 1", "C"]),
        "a set-up chained at version 3 names no one"
    );
    for t in &expected.tables {
        let audit = assert_audit_consistent(&app, &t.id).await;
        assert_eq!(audit["chain_intact"], true, "{}: {audit}", t.game);
        assert_eq!(audit["chain_head"], t.chain_head.as_str(), "{}", t.game);
    }
    assert_audit_consistent(&app, new_table).await;
    for session in [&expected.plain_session, &expected.session] {
        let bytes = bundle_of(&app, session).await;
        let summary = verify(&bytes, Some(&expected.public_key)).expect("the bundle verifies after anonymising");
        assert!(summary.starts_with("ok: "), "{summary}");
    }
}
