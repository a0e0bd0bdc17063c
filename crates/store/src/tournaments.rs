//! Tournaments (events: issue #41): their set-up, entrants, rounds, seatings, byes and results.
//!
//! Invariants: a tournament belongs to one session and its club; an entrant is a club member,
//! once per tournament, under the number the movement engine knows them by (from 1, in the order
//! they entered); at most one round is open at a time (a partial unique index); seatings, byes and
//! results are written once and never changed (the application's role may only insert them).
//! Writers lock the session's row and then the tournament's, in that order.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

/// A tournament as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TournamentRow {
    pub id: Uuid,
    pub session_id: Uuid,
    pub club_id: Uuid,
    pub name: String,
    pub game: String,
    /// The game's options, complete.
    pub options: Value,
    /// The movement's set-up (`tablekeeper_movement::Setup`) as JSON.
    pub setup: Value,
    pub deals_per_round: Option<i32>,
    pub minutes_per_round: Option<i32>,
    /// `as_played`, `average` or `void`.
    pub unfinished: String,
    /// Where a stops game's pools go when a round closes: `keep`, `share` or `bank`.
    pub leftover: String,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A tournament to store.
pub struct NewTournament<'a> {
    pub session: Uuid,
    pub club: Uuid,
    pub name: &'a str,
    pub game: &'a str,
    pub options: &'a Value,
    pub setup: &'a Value,
    pub deals_per_round: Option<i32>,
    pub minutes_per_round: Option<i32>,
    pub unfinished: &'a str,
    pub leftover: &'a str,
}

/// An entrant with the club member's name and whether they are a guest.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct EntrantRow {
    pub entrant: i32,
    pub club_member_id: Uuid,
    pub name: String,
    pub guest: bool,
    pub from_round: i32,
    pub until_round: Option<i32>,
}

/// A round as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RoundRow {
    pub number: i32,
    pub started_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
}

/// A seat of a round's table.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SeatingRow {
    pub round: i32,
    pub table_number: i32,
    pub seat: i32,
    pub entrant: i32,
    pub table_id: Uuid,
}

/// A bye of a round.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ByeRow {
    pub round: i32,
    pub pos: i32,
    pub entrant: i32,
}

/// A closed round's result at one table.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ResultRow {
    pub round: i32,
    pub table_number: i32,
    pub scores: Vec<i64>,
    pub deals_played: i32,
    pub ruled: Option<String>,
}

/// A closed round's result at one table amended by a ruling or a correction made after the
/// close: the table's scores per seat after it. The latest is the result in force.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AmendmentRow {
    pub round: i32,
    pub table_number: i32,
    /// From 1, per table result.
    pub seq: i32,
    pub scores: Vec<i64>,
    pub table_id: Uuid,
    /// The entry of the table's log that moved the result.
    pub table_seq: i64,
}

/// A closed round's result that counted a table's deals: where an amendment of it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedRow {
    pub tournament_id: Uuid,
    pub session_id: Uuid,
    pub unfinished: String,
    pub result: ResultRow,
    /// The result in force: the latest amendment's scores, else the result's.
    pub scores: Vec<i64>,
    /// The next amendment's `seq`.
    pub next_seq: i32,
}

/// One transfer of a closed round's leftover chips: out of a pool of the table into a seat or
/// the bank. A table's leftover booking is its transfers, in `seq` order.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LeftoverRow {
    pub round: i32,
    pub table_number: i32,
    /// From 1.
    pub seq: i32,
    pub table_id: Uuid,
    /// `pool:<name>`.
    pub from_account: String,
    /// `seat:<n>` or `bank`.
    pub to_account: String,
    /// Positive.
    pub amount: i64,
}

/// Stores a new tournament.
///
/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, new: NewTournament<'_>) -> Result<TournamentRow, StoreError> {
    Ok(sqlx::query_as!(
        TournamentRow,
        "insert into tournaments (id, session_id, club_id, name, game, options, setup, deals_per_round,
                                  minutes_per_round, unfinished, leftover)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         returning id, session_id, club_id, name, game, options, setup, deals_per_round, minutes_per_round,
                   unfinished, leftover, created_at, finished_at",
        Uuid::new_v4(),
        new.session,
        new.club,
        new.name,
        new.game,
        new.options,
        new.setup,
        new.deals_per_round,
        new.minutes_per_round,
        new.unfinished,
        new.leftover,
    )
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound("tournament")` when there is no such tournament.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<TournamentRow, StoreError> {
    sqlx::query_as!(
        TournamentRow,
        "select id, session_id, club_id, name, game, options, setup, deals_per_round, minutes_per_round,
                unfinished, leftover, created_at, finished_at
         from tournaments where id = $1",
        id
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("tournament"))
}

/// The tournament, its row locked until the transaction ends (lock the session's first).
///
/// # Errors
/// `NotFound("tournament")` when there is no such tournament.
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<TournamentRow, StoreError> {
    sqlx::query_as!(
        TournamentRow,
        "select id, session_id, club_id, name, game, options, setup, deals_per_round, minutes_per_round,
                unfinished, leftover, created_at, finished_at
         from tournaments where id = $1 for update",
        id
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("tournament"))
}

/// The session's tournaments, oldest first.
///
/// # Errors
/// On database failure.
pub async fn of_session(conn: &mut PgConnection, session: Uuid) -> Result<Vec<TournamentRow>, StoreError> {
    Ok(sqlx::query_as!(
        TournamentRow,
        "select id, session_id, club_id, name, game, options, setup, deals_per_round, minutes_per_round,
                unfinished, leftover, created_at, finished_at
         from tournaments where session_id = $1 order by created_at, id",
        session
    )
    .fetch_all(conn)
    .await?)
}

/// Replaces the movement's set-up (a late entrant joins the roster).
///
/// # Errors
/// On database failure.
pub async fn set_setup(conn: &mut PgConnection, id: Uuid, setup: &Value) -> Result<(), StoreError> {
    sqlx::query!("update tournaments set setup = $2 where id = $1", id, setup)
        .execute(conn)
        .await?;
    Ok(())
}

/// Marks the tournament finished (its last round closed).
///
/// # Errors
/// On database failure.
pub async fn finish(conn: &mut PgConnection, id: Uuid) -> Result<(), StoreError> {
    sqlx::query!("update tournaments set finished_at = now() where id = $1", id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Enters club member `member` as entrant number `entrant`, playing from round `from_round`.
///
/// # Errors
/// On database failure (the member entered already: a unique violation).
pub async fn enter(
    conn: &mut PgConnection,
    tournament: Uuid,
    entrant: i32,
    member: Uuid,
    from_round: i32,
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_entrants (tournament_id, entrant, club_member_id, from_round) values ($1, $2, $3, $4)",
        tournament,
        entrant,
        member,
        from_round,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Withdraws entrant `entrant` after round `until_round` (the last they play).
///
/// # Errors
/// On database failure.
pub async fn withdraw(
    conn: &mut PgConnection,
    tournament: Uuid,
    entrant: i32,
    until_round: i32,
) -> Result<(), StoreError> {
    sqlx::query!(
        "update tournament_entrants set until_round = $3 where tournament_id = $1 and entrant = $2",
        tournament,
        entrant,
        until_round,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The tournament's entrants, by number, with their club members' names.
///
/// # Errors
/// On database failure.
pub async fn entrants(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<EntrantRow>, StoreError> {
    Ok(sqlx::query_as!(
        EntrantRow,
        "select e.entrant, e.club_member_id, m.name, m.guest, e.from_round, e.until_round
         from tournament_entrants e join club_members m on m.id = e.club_member_id
         where e.tournament_id = $1 order by e.entrant",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// The tournament's rounds, in order.
///
/// # Errors
/// On database failure.
pub async fn rounds(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<RoundRow>, StoreError> {
    Ok(sqlx::query_as!(
        RoundRow,
        "select number, started_at, closed_at from tournament_rounds where tournament_id = $1 order by number",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// Every seat of every round, by round, table and seat.
///
/// # Errors
/// On database failure.
pub async fn seatings(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<SeatingRow>, StoreError> {
    Ok(sqlx::query_as!(
        SeatingRow,
        "select round, table_number, seat, entrant, table_id from tournament_seatings
         where tournament_id = $1 order by round, table_number, seat",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// Every bye of every round, by round and position.
///
/// # Errors
/// On database failure.
pub async fn byes(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<ByeRow>, StoreError> {
    Ok(sqlx::query_as!(
        ByeRow,
        "select round, pos, entrant from tournament_byes where tournament_id = $1 order by round, pos",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// Every closed round's results, by round and table.
///
/// # Errors
/// On database failure.
pub async fn results(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<ResultRow>, StoreError> {
    Ok(sqlx::query_as!(
        ResultRow,
        "select round, table_number, scores, deals_played, ruled from tournament_results
         where tournament_id = $1 order by round, table_number",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// Every amendment of the tournament's results, in order.
///
/// # Errors
/// On database failure.
pub async fn amendments(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<AmendmentRow>, StoreError> {
    Ok(sqlx::query_as!(
        AmendmentRow,
        "select round, table_number, seq, scores, table_id, table_seq from tournament_result_amendments
         where tournament_id = $1 order by round, table_number, seq",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// The closed round's result that counted `table`'s deal `deal` (the table sat in that round and
/// the round had taken at least `deal` deals from it), if any.
///
/// # Errors
/// On database failure.
pub async fn counted(conn: &mut PgConnection, table: Uuid, deal: i32) -> Result<Option<CountedRow>, StoreError> {
    let found = sqlx::query!(
        r#"select t.id as "tournament_id!", t.session_id as "session_id!", t.unfinished as "unfinished!",
                  r.round as "round!", r.table_number as "table_number!", r.scores as "scores!",
                  r.deals_played as "deals_played!", r.ruled,
                  a.scores as "amended?", coalesce(a.seq, 0) + 1 as "next_seq!"
           from tournament_seatings s
           join tournament_rounds o on o.tournament_id = s.tournament_id and o.number = s.round
           join tournament_results r on r.tournament_id = s.tournament_id and r.round = s.round
                and r.table_number = s.table_number
           join tournaments t on t.id = s.tournament_id
           left join lateral (
               select seq, scores from tournament_result_amendments m
               where m.tournament_id = r.tournament_id and m.round = r.round and m.table_number = r.table_number
               order by seq desc limit 1
           ) a on true
           where s.table_id = $1 and o.closed_at is not null and r.deals_played >= $2
           limit 1"#,
        table,
        deal
    )
    .fetch_optional(conn)
    .await?;
    Ok(found.map(|f| CountedRow {
        tournament_id: f.tournament_id,
        session_id: f.session_id,
        unfinished: f.unfinished,
        scores: f.amended.unwrap_or_else(|| f.scores.clone()),
        result: ResultRow {
            round: f.round,
            table_number: f.table_number,
            scores: f.scores,
            deals_played: f.deals_played,
            ruled: f.ruled,
        },
        next_seq: f.next_seq,
    }))
}

/// Amends a closed round's result.
///
/// # Errors
/// On database failure.
pub async fn amend(conn: &mut PgConnection, tournament: Uuid, row: &AmendmentRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_result_amendments (tournament_id, round, table_number, seq, scores, table_id, table_seq)
         values ($1, $2, $3, $4, $5, $6, $7)",
        tournament,
        row.round,
        row.table_number,
        row.seq,
        &row.scores,
        row.table_id,
        row.table_seq,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Starts round `number`.
///
/// # Errors
/// On database failure (a round open already: a unique violation).
pub async fn start_round(conn: &mut PgConnection, tournament: Uuid, number: i32) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_rounds (tournament_id, number) values ($1, $2)",
        tournament,
        number
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Seats entrant `seating.entrant` (the seating's tournament is `tournament`).
///
/// # Errors
/// On database failure.
pub async fn seat(conn: &mut PgConnection, tournament: Uuid, seating: &SeatingRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_seatings (tournament_id, round, table_number, seat, entrant, table_id)
         values ($1, $2, $3, $4, $5, $6)",
        tournament,
        seating.round,
        seating.table_number,
        seating.seat,
        seating.entrant,
        seating.table_id,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Gives entrant `bye.entrant` a bye.
///
/// # Errors
/// On database failure.
pub async fn bye(conn: &mut PgConnection, tournament: Uuid, bye: &ByeRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_byes (tournament_id, round, pos, entrant) values ($1, $2, $3, $4)",
        tournament,
        bye.round,
        bye.pos,
        bye.entrant,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a table's result and closes nothing (see [`close_round`]).
///
/// # Errors
/// On database failure.
pub async fn record_result(conn: &mut PgConnection, tournament: Uuid, result: &ResultRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_results (tournament_id, round, table_number, scores, deals_played, ruled)
         values ($1, $2, $3, $4, $5, $6)",
        tournament,
        result.round,
        result.table_number,
        &result.scores,
        result.deals_played,
        result.ruled,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Closes round `number`.
///
/// # Errors
/// On database failure.
pub async fn close_round(conn: &mut PgConnection, tournament: Uuid, number: i32) -> Result<(), StoreError> {
    sqlx::query!(
        "update tournament_rounds set closed_at = now() where tournament_id = $1 and number = $2",
        tournament,
        number
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Books one transfer of a closed round's leftover chips.
///
/// # Errors
/// On database failure (an amount not positive, an account that is not a pool's, a seat's or the
/// bank's: a check violation).
pub async fn book_leftover(conn: &mut PgConnection, tournament: Uuid, row: &LeftoverRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into tournament_leftovers (tournament_id, round, table_number, seq, table_id, from_account,
                                           to_account, amount)
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
        tournament,
        row.round,
        row.table_number,
        row.seq,
        row.table_id,
        row.from_account,
        row.to_account,
        row.amount,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The tournament's leftover transfers, by round, table and order.
///
/// # Errors
/// On database failure.
pub async fn leftovers(conn: &mut PgConnection, tournament: Uuid) -> Result<Vec<LeftoverRow>, StoreError> {
    Ok(sqlx::query_as!(
        LeftoverRow,
        "select round, table_number, seq, table_id, from_account, to_account, amount from tournament_leftovers
         where tournament_id = $1 order by round, table_number, seq",
        tournament
    )
    .fetch_all(conn)
    .await?)
}

/// The leftover transfers of every tournament of the session, with the tournament each is of.
///
/// # Errors
/// On database failure.
pub async fn session_leftovers(conn: &mut PgConnection, session: Uuid) -> Result<Vec<(Uuid, LeftoverRow)>, StoreError> {
    let rows = sqlx::query!(
        "select l.tournament_id, l.round, l.table_number, l.seq, l.table_id, l.from_account, l.to_account, l.amount
         from tournament_leftovers l join tournaments t on t.id = l.tournament_id
         where t.session_id = $1 order by t.created_at, t.id, l.round, l.table_number, l.seq",
        session
    )
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.tournament_id,
                LeftoverRow {
                    round: r.round,
                    table_number: r.table_number,
                    seq: r.seq,
                    table_id: r.table_id,
                    from_account: r.from_account,
                    to_account: r.to_account,
                    amount: r.amount,
                },
            )
        })
        .collect())
}
