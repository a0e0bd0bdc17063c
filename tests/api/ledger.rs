//! The ledger's guarantees hold in the database itself, not only in the Rust code.

use serde_json::json;
use sqlx::PgPool;
use tablekeeper::ledger::{Account, Booking, Chips, Posting};
use tablekeeper::rules::Seat;
use tablekeeper::store;

use crate::helpers::spawn_app;

async fn a_table(app: &crate::helpers::TestApp) -> uuid::Uuid {
    let token = app.organiser("ann@club.example").await;
    app.table(&token, &["A", "B", "C"], json!({}))
        .await
        .parse()
        .expect("uuid")
}

/// Where the table's rows are: its id and its club's number.
async fn key_of(app: &crate::helpers::TestApp, table: uuid::Uuid) -> store::tables::TableKey {
    let mut conn = app.pool.acquire().await.expect("conn");
    store::tables::fetch(&mut conn, table).await.expect("table").key()
}

fn seat(n: u8) -> Account {
    Account::Seat(Seat::new(n))
}

#[sqlx::test(migrations = "./migrations")]
async fn bookings_are_stored_balanced_and_reversals_restore_the_balances(pool: PgPool) {
    let app = spawn_app(pool).await;
    let table = a_table(&app).await;
    let buy_in = Booking::new(
        "buy-in",
        [
            Posting {
                account: Account::Bank,
                amount: Chips::new(-1000),
            },
            Posting {
                account: seat(0),
                amount: Chips::new(500),
            },
            Posting {
                account: seat(1),
                amount: Chips::new(500),
            },
        ],
    )
    .expect("balanced");
    let stake = Booking::transfer("stake", seat(0), Account::GameFund, Chips::new(5)).expect("booking");

    let mut tx = app.pool.begin().await.expect("tx");
    store::ledger::book(&mut tx, key_of(&app, table).await, 0, None, &buy_in, None)
        .await
        .expect("book");
    let stake_id = store::ledger::book(&mut tx, key_of(&app, table).await, 1, Some(1), &stake, None)
        .await
        .expect("book");
    tx.commit().await.expect("commit");

    let mut conn = app.pool.acquire().await.expect("conn");
    let balances = store::ledger::balances(&mut conn, key_of(&app, table).await)
        .await
        .expect("balances");
    assert_eq!(balances.of(&seat(0)), Chips::new(495));
    assert_eq!(balances.of(&Account::GameFund), Chips::new(5));
    assert_eq!(balances.total(), Chips::ZERO);
    assert_eq!(
        store::ledger::bookings(&mut conn, key_of(&app, table).await, Some(1))
            .await
            .expect("deal 1")
            .len(),
        1
    );

    let mut tx = app.pool.begin().await.expect("tx");
    store::ledger::book(
        &mut tx,
        key_of(&app, table).await,
        2,
        Some(1),
        &stake.reversal(),
        Some(stake_id),
    )
    .await
    .expect("reversal");
    tx.commit().await.expect("commit");
    let balances = store::ledger::balances(&mut conn, key_of(&app, table).await)
        .await
        .expect("balances");
    assert_eq!(balances.of(&seat(0)), Chips::new(500));
    assert_eq!(balances.of(&Account::GameFund), Chips::ZERO);
}

/// A booking as a writer of the application's role might insert it, filling the columns that
/// chain its postings (store::ledger::Chained) as it likes: its posting count, and per posting
/// account, amount, position, the booking's count it names and the running sum.
struct Raw {
    count: i32,
    postings: &'static [(&'static str, i64, i32, i32, i64)],
}

/// Inserts `raw` in one transaction as the application's role and commits; the SQLSTATE of the
/// first statement (or the commit) that fails, none when it commits.
async fn book_raw(app: &PgPool, table: uuid::Uuid, raw: &Raw) -> Option<String> {
    let state = |e: sqlx::Error| e.as_database_error().and_then(|d| d.code()).map(|c| c.into_owned());
    let mut tx = app.begin().await.expect("tx");
    let id: i64 = match sqlx::query_scalar(
        "insert into ledger_bookings (table_id, club_no, move_seq, memo, posting_count)
         select $1, club_no, 1, 'raw', $2 from game_tables where id = $1 returning id",
    )
    .bind(table)
    .bind(raw.count)
    .fetch_one(&mut *tx)
    .await
    {
        Ok(id) => id,
        Err(e) => return state(e),
    };
    // One statement per posting: the deferred keys must hold whatever the order of the inserts.
    for &(account, amount, n, of, running) in raw.postings {
        if let Err(e) = sqlx::query(
            "insert into ledger_postings (table_id, club_no, booking_id, account, amount, n, booking_postings, running)
             select $1, club_no, $2, $3, $4, $5, $6, $7 from game_tables where id = $1",
        )
        .bind(table)
        .bind(id)
        .bind(account)
        .bind(amount)
        .bind(n)
        .bind(of)
        .bind(running)
        .execute(&mut *tx)
        .await
        {
            return state(e);
        }
    }
    tx.commit().await.err().and_then(state)
}

async fn ledger_rows(pool: &PgPool) -> (i64, i64) {
    sqlx::query_as("select (select count(*) from ledger_bookings), (select count(*) from ledger_postings)")
        .fetch_one(pool)
        .await
        .expect("counts")
}

#[sqlx::test(migrations = "./migrations")]
async fn the_database_refuses_a_booking_that_does_not_balance_has_a_posting_missing_or_extra_or_none(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_table(&app).await;
    let role = crate::distribution::application_pool(&pool, 1).await;
    let before = ledger_rows(&pool).await;

    // In any order of the inserts: the keys are checked at commit.
    let balanced = Raw {
        count: 3,
        postings: &[("seat:2", 3, 3, 3, 0), ("bank", -5, 1, 3, -5), ("seat:0", 2, 2, 3, -3)],
    };
    assert_eq!(
        book_raw(&role, table, &balanced).await,
        None,
        "a balanced booking commits"
    );
    let committed = ledger_rows(&pool).await;
    assert_eq!(committed, (before.0 + 1, before.1 + 3));

    let refused = [
        (
            "postings summing to -1, the running sums true",
            Raw {
                count: 2,
                postings: &[("seat:0", -5, 1, 2, -5), ("game_fund", 4, 2, 2, -1)],
            },
        ),
        (
            "postings summing to -1, the last running sum claimed zero",
            Raw {
                count: 2,
                postings: &[("seat:0", -5, 1, 2, -5), ("game_fund", 4, 2, 2, 0)],
            },
        ),
        (
            "postings summing to -1, the first running sum claimed to be 4 short",
            Raw {
                count: 2,
                postings: &[("seat:0", -5, 1, 2, -4), ("game_fund", 4, 2, 2, 0)],
            },
        ),
        (
            "postings summing to -1, the booking claimed to have one posting and the other left out of the count",
            Raw {
                count: 1,
                postings: &[("seat:0", -5, 1, 1, -5), ("game_fund", 4, 2, 1, -1)],
            },
        ),
        (
            "a posting missing: the middle one of three",
            Raw {
                count: 3,
                postings: &[("bank", -5, 1, 3, -5), ("seat:2", 3, 3, 3, 0)],
            },
        ),
        (
            "a posting missing: the last one of three",
            Raw {
                count: 3,
                postings: &[("bank", -5, 1, 3, -5), ("seat:0", 2, 2, 3, -3)],
            },
        ),
        (
            "an extra posting past the count",
            Raw {
                count: 2,
                postings: &[("bank", -5, 1, 2, -5), ("seat:0", 5, 2, 2, 0), ("seat:1", 1, 3, 2, 1)],
            },
        ),
        (
            "an extra posting naming a count the booking does not have",
            Raw {
                count: 2,
                postings: &[("bank", -5, 1, 2, -5), ("seat:0", 5, 2, 2, 0), ("seat:1", 1, 3, 3, 1)],
            },
        ),
        (
            "an extra posting past the count, the count it names raised to cover it",
            Raw {
                count: 2,
                postings: &[("bank", -5, 1, 3, -5), ("seat:0", 5, 2, 3, 0), ("seat:1", 1, 3, 3, 1)],
            },
        ),
        (
            "postings summing to 0 before the last (a writer places credits first)",
            Raw {
                count: 4,
                postings: &[
                    ("bank", -5, 1, 4, -5),
                    ("seat:0", 5, 2, 4, 0),
                    ("seat:1", 3, 3, 4, 3),
                    ("seat:2", -3, 4, 4, 0),
                ],
            },
        ),
        (
            "an extra posting at a position already taken",
            Raw {
                count: 2,
                postings: &[("bank", -5, 1, 2, -5), ("seat:0", 5, 2, 2, 0), ("seat:1", 1, 2, 2, -4)],
            },
        ),
        (
            "an extra posting as a second first one",
            Raw {
                count: 2,
                postings: &[("bank", -5, 1, 2, -5), ("seat:0", 5, 2, 2, 0), ("seat:1", 1, 1, 2, 1)],
            },
        ),
        (
            "no posting",
            Raw {
                count: 1,
                postings: &[],
            },
        ),
        (
            "no posting, and a count of none",
            Raw {
                count: 0,
                postings: &[],
            },
        ),
    ];
    for (what, raw) in &refused {
        let state = book_raw(&role, table, raw).await;
        // 23503: a foreign key (a posting's predecessor, the booking's last posting); 23514: a
        // check (a position past the count it names, a posting after the sum closed at 0);
        // 23505: a position taken twice.
        assert!(
            matches!(state.as_deref(), Some("23503" | "23514" | "23505")),
            "{what}: {state:?}"
        );
        assert_eq!(ledger_rows(&pool).await, committed, "{what} changed nothing");
    }
    role.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn ledger_rows_and_the_move_log_cannot_be_edited_or_deleted(pool: PgPool) {
    let app = spawn_app(pool).await;
    let table = a_table(&app).await;
    let token = app.organiser("bob@club.example").await;
    let _ = token;
    let stake = Booking::transfer("stake", seat(0), Account::GameFund, Chips::new(5)).expect("booking");
    let mut tx = app.pool.begin().await.expect("tx");
    store::ledger::book(&mut tx, key_of(&app, table).await, 1, None, &stake, None)
        .await
        .expect("book");
    tx.commit().await.expect("commit");
    let owner: uuid::Uuid = sqlx::query_scalar("select owner_id from game_tables")
        .fetch_one(&app.pool)
        .await
        .expect("owner");
    sqlx::query(
        "insert into moves (table_id, club_no, seq, entry, kind, body, events, recorded_by)
         select $1, club_no, 1, 'move', 'x', '{}', '[]', $2 from game_tables where id = $1",
    )
    .bind(table)
    .bind(owner.to_string())
    .execute(&app.pool)
    .await
    .expect("a log entry");

    // The service runs as the application's role, which may read and append, nothing more
    // (privileges, which Citus checks on every node; see deploy/README.md).
    let mut conn = app.pool.acquire().await.expect("conn");
    sqlx::query("set role tablekeeper_app")
        .execute(&mut *conn)
        .await
        .expect("the application's role");
    for statement in [
        "update ledger_postings set amount = 50",
        "delete from ledger_postings",
        "update ledger_bookings set memo = 'edited'",
        "delete from ledger_bookings",
        "truncate ledger_postings",
        "update moves set kind = 'edited'",
        "delete from moves",
    ] {
        let err = sqlx::query(statement).execute(&mut *conn).await.expect_err(statement);
        assert!(err.to_string().contains("permission denied"), "{statement}: {err}");
    }
    sqlx::query("reset role").execute(&mut *conn).await.expect("reset");
    let balances = store::ledger::balances(&mut conn, key_of(&app, table).await)
        .await
        .expect("balances");
    assert_eq!(balances.of(&Account::GameFund), Chips::new(5));
}

#[sqlx::test(migrations = "./migrations")]
async fn the_ledger_endpoint_lists_bookings_by_deal_and_balances(pool: PgPool) {
    let app = spawn_app(pool).await;
    let table = a_table(&app).await;
    let empty = app.ledger(&table.to_string()).await;
    assert_eq!(empty["bookings"], json!([]));
    assert_eq!(empty["total"], 0);

    let mut tx = app.pool.begin().await.expect("tx");
    for (deal, amount) in [(1, 5), (2, 7)] {
        let stake = Booking::transfer("stake", seat(0), Account::GameFund, Chips::new(amount)).expect("booking");
        store::ledger::book(
            &mut tx,
            key_of(&app, table).await,
            deal,
            Some(deal as i32),
            &stake,
            None,
        )
        .await
        .expect("book");
    }
    tx.commit().await.expect("commit");

    let ledger = app
        .get(&format!("/api/v1/tables/{table}/ledger?deal=2"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(ledger["bookings"].as_array().expect("bookings").len(), 1);
    assert_eq!(
        ledger["bookings"][0]["postings"],
        json!([{"account": "seat:0", "amount": -7}, {"account": "game_fund", "amount": 7}])
    );
    assert_eq!(
        ledger["balances"],
        json!([{"account": "seat:0", "balance": -12}, {"account": "game_fund", "balance": 12}])
    );
    assert_eq!(ledger["total"], 0);
}

/// Every per-table relation's primary key leads with its table id, so that a table's reads find
/// its rows by one index probe however many tables there are (past one PostgreSQL the club's
/// number, in every key too, routes them: deploy/README.md).
#[sqlx::test(migrations = "./migrations")]
async fn every_per_table_relation_is_keyed_by_its_table_id_first(pool: PgPool) {
    let keys: Vec<(String, String)> = sqlx::query_as(
        "select c.relname::text, a.attname::text
         from pg_index i
         join pg_class c on c.oid = i.indrelid
         join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[0]
         where i.indisprimary and c.relnamespace = 'public'::regnamespace
           and exists (select 1 from pg_attribute t where t.attrelid = c.oid and t.attname = 'table_id')",
    )
    .fetch_all(&pool)
    .await
    .expect("primary keys");
    let relations: Vec<&str> = keys.iter().map(|(r, _)| r.as_str()).collect();
    for expected in [
        "moves",
        "snapshots",
        "idempotency_keys",
        "ledger_bookings",
        "ledger_postings",
    ] {
        assert!(relations.contains(&expected), "{expected} in {relations:?}");
    }
    for (relation, first) in &keys {
        // join_codes is looked up by its code alone, tournament_seatings,
        // tournament_leftovers and tournament_result_amendments by their tournament (the table
        // each names is one a round opened): reference tables, not per-table ones.
        let by_tournament = [
            "tournament_seatings",
            "tournament_leftovers",
            "tournament_result_amendments",
        ];
        if relation != "join_codes" && !by_tournament.contains(&relation.as_str()) {
            assert_eq!(first, "table_id", "{relation}'s primary key starts with {first}");
        }
    }
}
