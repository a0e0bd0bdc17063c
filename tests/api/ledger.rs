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
    let balances = store::ledger::balances(&mut conn, table).await.expect("balances");
    assert_eq!(balances.of(&seat(0)), Chips::new(495));
    assert_eq!(balances.of(&Account::GameFund), Chips::new(5));
    assert_eq!(balances.total(), Chips::ZERO);
    assert_eq!(
        store::ledger::bookings(&mut conn, table, Some(1))
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
    let balances = store::ledger::balances(&mut conn, table).await.expect("balances");
    assert_eq!(balances.of(&seat(0)), Chips::new(500));
    assert_eq!(balances.of(&Account::GameFund), Chips::ZERO);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_database_refuses_an_unbalanced_booking(pool: PgPool) {
    let app = spawn_app(pool).await;
    let table = a_table(&app).await;
    let mut tx = app.pool.begin().await.expect("tx");
    let id: i64 = sqlx::query_scalar(
        "insert into ledger_bookings (table_id, club_no, move_seq, memo)
             select $1, club_no, 1, 'bad' from game_tables where id = $1 returning id",
    )
    .bind(table)
    .fetch_one(&mut *tx)
    .await
    .expect("booking row");
    sqlx::query(
        "insert into ledger_postings (table_id, club_no, booking_id, account, amount)
         select $2, club_no, $1, p.account, p.amount from game_tables,
                (values ('seat:0', -5), ('game_fund', 4)) as p(account, amount) where id = $2",
    )
    .bind(id)
    .bind(table)
    .execute(&mut *tx)
    .await
    .expect("postings insert; the check is deferred");
    let err = tx.commit().await.expect_err("unbalanced booking refused at commit");
    assert!(err.to_string().contains("does not balance"), "{err}");
    let count: i64 = sqlx::query_scalar("select count(*) from ledger_bookings")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(count, 0);
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
    let balances = store::ledger::balances(&mut conn, table).await.expect("balances");
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

/// Past one PostgreSQL every per-table relation is distributed by its table id (deploy/README.md),
/// which needs the table id first in each one's primary key.
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
        // join_codes is looked up by its code alone: a reference table, not a per-table one.
        if relation != "join_codes" {
            assert_eq!(first, "table_id", "{relation}'s primary key starts with {first}");
        }
    }
}
