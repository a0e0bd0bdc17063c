//! Seasons and league tables: a club's members ranked over the sessions of a span of dates, and
//! a member's history.
//!
//! What counts, and how:
//! - A season's sessions are the club's sessions started within `[starts, ends]` (UTC dates);
//!   of their tables, only those of the season's games, and of those only the finished ones:
//!   places at a table still being played are not final, so an unfinished table gives neither
//!   league points nor points nor chips to the season (a member's history shows it, marked).
//! - Places per table come from the final score: the score sheet's total at a points game,
//!   the chips won or lost (net of what the bank issued, as the session's standings reckon
//!   them) at a chips game. Seats with the same score share their places: a tie for second and
//!   third of four under 3-2-1-0 gives each (2 + 1) / 2 = 1.5 league points.
//! - League points are kept exactly, in [`LEAGUE_UNIT`]ths of a point (every share of up to
//!   eight tied seats is a whole number of them), so rounding never makes or breaks a tie.
//! - A member is a club member: a seat is matched to the session's roster by
//!   [`Identity`](super::roster::Identity), and the roster entry names its club member. A seat of
//!   a table stored before the roster that matches no member still takes its place at the table
//!   but is no one in the league.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{NaiveDate, Utc};
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::access::{self, Account, Capability};
use super::ServiceError;
use tablekeeper_store::clubs::ClubMember;
use tablekeeper_store::seasons::NewSeason;
pub use tablekeeper_store::seasons::SeasonRow;
use tablekeeper_store::sessions::ClubSession;
use tablekeeper_store::{self as store, StoreError};

/// League points are counted in 840ths of a point: 840 is the least number that one to eight
/// tied seats all divide.
pub const LEAGUE_UNIT: i64 = 840;

/// How a season ranks its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scoring {
    /// League points for first, second, … place at each table (none beyond the list).
    LeaguePoints(Vec<i32>),
    /// The sum of the score sheets' points at the points games.
    Points,
    /// The sum of the chips won or lost at the chips games.
    NetChips,
}

impl Scoring {
    /// As stored: the kind and the points by place.
    pub fn stored(&self) -> (&'static str, Option<&[i32]>) {
        match self {
            Scoring::LeaguePoints(points) => ("league_points", Some(points.as_slice())),
            Scoring::Points => ("points", None),
            Scoring::NetChips => ("net_chips", None),
        }
    }

    /// A stored season's scoring.
    ///
    /// # Errors
    /// `Corrupt` for a kind this build does not know.
    pub fn of(row: &SeasonRow) -> Result<Scoring, ServiceError> {
        match (row.scoring.as_str(), &row.league_points) {
            ("league_points", Some(points)) => Ok(Scoring::LeaguePoints(points.clone())),
            ("points", _) => Ok(Scoring::Points),
            ("net_chips", _) => Ok(Scoring::NetChips),
            (other, _) => Err(ServiceError::Corrupt(format!(
                "season {} is scored by `{other}`",
                row.id
            ))),
        }
    }
}

/// A season to start, already checked (a name, ends on or after starts, known games, points by
/// place that make sense).
pub struct SeasonPlan<'a> {
    pub name: &'a str,
    pub starts: NaiveDate,
    pub ends: NaiveDate,
    pub games: &'a [String],
    pub scoring: &'a Scoring,
}

/// Starts a season of `club` (its organisers and owners only).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club; `Forbidden` for a member who does not
/// organise; on database failure.
pub async fn create<K: super::idempotency::Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    plan: SeasonPlan<'_>,
    key: Option<&super::idempotency::CreationKey>,
    render: impl FnOnce(SeasonRow) -> Result<K, serde_json::Error>,
) -> Result<super::idempotency::Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = super::idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    access::require(&mut tx, account, club, Capability::Organise, "club").await?;
    let (scoring, league_points) = plan.scoring.stored();
    let season = store::seasons::insert(
        &mut tx,
        NewSeason {
            club,
            name: plan.name,
            starts: plan.starts,
            ends: plan.ends,
            games: plan.games,
            scoring,
            league_points,
        },
    )
    .await?;
    super::chain::record::link_season(&mut tx, &season).await?;
    let answer = render(season).map_err(ServiceError::Encode)?;
    super::idempotency::keep_and_commit(tx, user, key, answer).await
}

/// A page of the club's seasons, the latest to start first (its members only).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club.
pub async fn list(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<SeasonRow>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    Ok(store::seasons::list(&mut conn, club, limit, offset).await?)
}

/// One seat's result at one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatResult {
    pub session: Uuid,
    pub table: Uuid,
    pub game: String,
    pub seat: u8,
    /// The club member in the seat; None for a seat of a table stored before the roster whose
    /// name matches no member.
    pub member: Option<Uuid>,
    pub finished: bool,
    /// The score sheet's total at a points game.
    pub points: Option<i64>,
    /// Chips won or lost at a chips game, net of what the bank issued to the seat.
    pub chips: Option<i64>,
    /// Place at the table (1 is first) once the table is finished; tied seats share the best
    /// of their places.
    pub place: Option<u32>,
    /// How many seats share that place (1 when none ties).
    pub tied: u32,
}

impl SeatResult {
    /// This seat's league points under `by_place`, in [`LEAGUE_UNIT`]ths: the places the tied
    /// seats take, shared equally.
    pub fn league_units(&self, by_place: &[i32]) -> Option<i64> {
        let place = usize::try_from(self.place?).ok()?;
        let tied = self.tied.max(1);
        let first = place.saturating_sub(1);
        let taken: i64 = (first..first + tied as usize)
            .map(|p| by_place.get(p).copied().map_or(0, i64::from))
            .sum();
        Some(taken * LEAGUE_UNIT / i64::from(tied))
    }
}

/// Every seat of the session's tables, with its member and its place at the table.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Damaged` when a table's log no longer replays.
pub async fn session_results(pool: &PgPool, session: Uuid) -> Result<Vec<SeatResult>, ServiceError> {
    let standings = super::sessions::standings(pool, session).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let roster = store::sessions::members(&mut conn, session).await?;
    let tables = store::tables::list(&mut conn, None, Some(session), 1000, 0).await?;
    drop(conn);
    let mut results = Vec::new();
    for player in &standings.players {
        let member = player
            .identity
            .member()
            .and_then(|id| roster.iter().find(|r| r.id == id))
            .map(|r| r.club_member_id);
        for seat in &player.seats {
            let finished = tables.iter().any(|t| t.id == seat.table && t.finished);
            results.push(SeatResult {
                session,
                table: seat.table,
                game: seat.game.clone(),
                seat: seat.seat,
                member,
                finished,
                points: seat.points,
                chips: seat.chips,
                place: None,
                tied: 1,
            });
        }
    }
    // In the order the tables were opened, seats in order.
    let order = |table: Uuid| tables.iter().position(|t| t.id == table);
    results.sort_by_key(|r| (order(r.table), r.seat));
    place(&mut results);
    Ok(results)
}

/// The final score a place is decided by: points at a points game (a table where any seat has
/// points), else chips won or lost.
fn score(seat: &SeatResult, points_game: bool) -> i64 {
    if points_game {
        seat.points.unwrap_or(0)
    } else {
        seat.chips.unwrap_or(0)
    }
}

/// Gives each seat of a finished table its place: higher scores first, equal scores sharing
/// the best of the places they take (1, 2, 2, 4).
fn place(results: &mut [SeatResult]) {
    let tables: BTreeSet<Uuid> = results.iter().filter(|r| r.finished).map(|r| r.table).collect();
    for table in tables {
        let points_game = results.iter().any(|r| r.table == table && r.points.is_some());
        let scores: Vec<i64> = results
            .iter()
            .filter(|r| r.table == table)
            .map(|r| score(r, points_game))
            .collect();
        for seat in results.iter_mut().filter(|r| r.table == table) {
            let mine = score(seat, points_game);
            let better = scores.iter().filter(|s| **s > mine).count();
            let equal = scores.iter().filter(|s| **s == mine).count();
            seat.place = u32::try_from(better + 1).ok();
            seat.tied = u32::try_from(equal).unwrap_or(1);
        }
    }
}

/// A member's figures over some tables of one game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFigures {
    pub tables: u32,
    /// Tables where the member came first (a shared first included).
    pub wins: u32,
    /// Over the points games' tables; None when there were none.
    pub points: Option<i64>,
    /// Over the chips games' tables; None when there were none.
    pub chips: Option<i64>,
    /// In [`LEAGUE_UNIT`]ths, under a season's league points.
    pub league_units: Option<i64>,
}

impl GameFigures {
    fn add(&mut self, seat: &SeatResult, by_place: Option<&[i32]>) {
        self.tables += 1;
        if seat.place == Some(1) {
            self.wins += 1;
        }
        if let Some(p) = seat.points {
            *self.points.get_or_insert(0) += p;
        }
        if let Some(c) = seat.chips {
            *self.chips.get_or_insert(0) += c;
        }
        if let Some(units) = by_place.and_then(|b| seat.league_units(b)) {
            *self.league_units.get_or_insert(0) += units;
        }
    }

    fn merge(&mut self, other: &GameFigures) {
        self.tables += other.tables;
        self.wins += other.wins;
        let sum = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.points = sum(self.points, other.points);
        self.chips = sum(self.chips, other.chips);
        self.league_units = sum(self.league_units, other.league_units);
    }
}

/// A member's line in a season's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingRow {
    pub member: Uuid,
    /// The member's name as the club has it now (an anonymised member's replacement).
    pub name: String,
    /// 1 is first; members ranking equal share the best of their places.
    pub place: u32,
    /// Sessions at which the member sat at a counted table.
    pub nights: u32,
    /// Over every counted table.
    pub total: GameFigures,
    pub by_game: BTreeMap<String, GameFigures>,
}

/// A season's table: its members, best first.
#[derive(Debug, Clone)]
pub struct SeasonStandings {
    pub season: SeasonRow,
    pub scoring: Scoring,
    /// The sessions the season takes in.
    pub sessions: Vec<ClubSession>,
    pub rows: Vec<StandingRow>,
}

/// The season's standings (its club's members only).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club, `Store(NotFound("season"))` for a season
/// the club does not have; `Damaged` when a table's log no longer replays.
pub async fn standings(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    season: Uuid,
) -> Result<SeasonStandings, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    let season = store::seasons::fetch(&mut conn, club, season).await?;
    drop(conn);
    season_standings(pool, season).await
}

async fn season_standings(pool: &PgPool, season: SeasonRow) -> Result<SeasonStandings, ServiceError> {
    let scoring = Scoring::of(&season)?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let sessions = store::seasons::sessions_between(&mut conn, season.club_id, season.starts, season.ends).await?;
    let members = store::clubs::members(&mut conn, season.club_id).await?;
    drop(conn);
    let by_place = match &scoring {
        Scoring::LeaguePoints(points) => Some(points.as_slice()),
        _ => None,
    };
    let mut rows: Vec<StandingRow> = Vec::new();
    let mut nights: BTreeMap<Uuid, BTreeSet<Uuid>> = BTreeMap::new();
    for session in &sessions {
        for seat in session_results(pool, session.id).await? {
            let Some(member) = seat.member else { continue };
            if !seat.finished || !season.games.contains(&seat.game) {
                continue;
            }
            nights.entry(member).or_default().insert(session.id);
            let at = match rows.iter().position(|r| r.member == member) {
                Some(at) => at,
                None => {
                    rows.push(StandingRow {
                        member,
                        name: name_of(&members, member),
                        place: 0,
                        nights: 0,
                        total: GameFigures::default(),
                        by_game: BTreeMap::new(),
                    });
                    rows.len() - 1
                }
            };
            rows[at]
                .by_game
                .entry(seat.game.clone())
                .or_default()
                .add(&seat, by_place);
        }
    }
    for row in &mut rows {
        row.nights = nights
            .get(&row.member)
            .map_or(0, |n| u32::try_from(n.len()).unwrap_or(u32::MAX));
        let mut total = GameFigures::default();
        for figures in row.by_game.values() {
            total.merge(figures);
        }
        row.total = total;
    }
    rank(&mut rows, &scoring);
    Ok(SeasonStandings {
        season,
        scoring,
        sessions,
        rows,
    })
}

fn name_of(members: &[ClubMember], id: Uuid) -> String {
    members
        .iter()
        .find(|m| m.id == id)
        .map_or_else(String::new, |m| m.name.clone())
}

/// What a season ranks by.
fn ranking(row: &StandingRow, scoring: &Scoring) -> i64 {
    match scoring {
        Scoring::LeaguePoints(_) => row.total.league_units.unwrap_or(0),
        Scoring::Points => row.total.points.unwrap_or(0),
        Scoring::NetChips => row.total.chips.unwrap_or(0),
    }
}

/// Orders the rows best first (equal ones by name) and gives each its place, equal ones
/// sharing the best of theirs.
fn rank(rows: &mut [StandingRow], scoring: &Scoring) {
    rows.sort_by(|a, b| {
        ranking(b, scoring)
            .cmp(&ranking(a, scoring))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.member.cmp(&b.member))
    });
    let keys: Vec<i64> = rows.iter().map(|r| ranking(r, scoring)).collect();
    for (row, key) in rows.iter_mut().zip(&keys) {
        let better = keys.iter().filter(|k| *k > key).count();
        row.place = u32::try_from(better + 1).unwrap_or(u32::MAX);
    }
}

/// A session as a member saw it.
#[derive(Debug, Clone)]
pub struct SessionHistory {
    pub session: ClubSession,
    /// The member's seats there, finished tables or not.
    pub seats: Vec<SeatResult>,
}

/// Where a member stands in the season under way.
#[derive(Debug, Clone)]
pub struct SeasonPlace {
    pub season: SeasonRow,
    pub scoring: Scoring,
    /// How many members the season's table ranks.
    pub ranked: usize,
    /// The member's line; None when they have not sat at a counted table yet.
    pub row: Option<StandingRow>,
}

/// A member's history: every session they were on the roster of, their results per game and
/// chips won or lost over all of them, and their place in the season under way.
#[derive(Debug, Clone)]
pub struct MemberHistory {
    pub member: ClubMember,
    pub sessions: Vec<SessionHistory>,
    /// Over every table the member sat at, finished or not (chips won are won either way;
    /// places and wins only at finished tables).
    pub by_game: BTreeMap<String, GameFigures>,
    pub total: GameFigures,
    pub season: Option<SeasonPlace>,
}

/// A member's history (the club's members only).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club, `Store(NotFound("member"))` for a member
/// the club does not have; `Damaged` when a table's log no longer replays.
pub async fn member_history(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    member: Uuid,
) -> Result<MemberHistory, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    let member = store::clubs::member(&mut conn, club, member).await?;
    let sessions = store::seasons::sessions_of_member(&mut conn, club, member.id).await?;
    let current = store::seasons::current(&mut conn, club, Utc::now().date_naive()).await?;
    drop(conn);
    let mut history = Vec::with_capacity(sessions.len());
    let mut by_game: BTreeMap<String, GameFigures> = BTreeMap::new();
    for session in sessions {
        let seats: Vec<SeatResult> = session_results(pool, session.id)
            .await?
            .into_iter()
            .filter(|s| s.member == Some(member.id))
            .collect();
        for seat in &seats {
            by_game.entry(seat.game.clone()).or_default().add(seat, None);
        }
        history.push(SessionHistory { session, seats });
    }
    let mut total = GameFigures::default();
    for figures in by_game.values() {
        total.merge(figures);
    }
    let season = match current {
        Some(season) => {
            let standings = season_standings(pool, season).await?;
            Some(SeasonPlace {
                ranked: standings.rows.len(),
                row: standings.rows.iter().find(|r| r.member == member.id).cloned(),
                season: standings.season,
                scoring: standings.scoring,
            })
        }
        None => None,
    };
    Ok(MemberHistory {
        member,
        sessions: history,
        by_game,
        total,
        season,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(table: Uuid, n: u8, points: Option<i64>, chips: Option<i64>) -> SeatResult {
        SeatResult {
            session: Uuid::nil(),
            table,
            game: "g".into(),
            seat: n,
            member: None,
            finished: true,
            points,
            chips,
            place: None,
            tied: 1,
        }
    }

    #[test]
    fn tied_seats_share_their_places_league_points_equally() {
        let t = Uuid::new_v4();
        let mut seats = vec![
            seat(t, 0, Some(11), None),
            seat(t, 1, Some(10), None),
            seat(t, 2, Some(10), None),
            seat(t, 3, Some(0), None),
        ];
        place(&mut seats);
        let places: Vec<_> = seats.iter().map(|s| (s.place, s.tied)).collect();
        assert_eq!(places, [(Some(1), 1), (Some(2), 2), (Some(2), 2), (Some(4), 1)]);
        let league: Vec<_> = seats.iter().map(|s| s.league_units(&[3, 2, 1, 0])).collect();
        assert_eq!(
            league,
            [
                Some(3 * LEAGUE_UNIT),
                Some(3 * LEAGUE_UNIT / 2),
                Some(3 * LEAGUE_UNIT / 2),
                Some(0)
            ]
        );
        // Three tied for first of a list two long: (5 + 1 + 0) / 3 = 2 each.
        let mut three = vec![
            seat(t, 0, None, Some(4)),
            seat(t, 1, None, Some(4)),
            seat(t, 2, None, Some(4)),
        ];
        place(&mut three);
        assert!(three.iter().all(|s| s.league_units(&[5, 1]) == Some(2 * LEAGUE_UNIT)));
    }

    #[test]
    fn an_unfinished_table_gives_no_places() {
        let t = Uuid::new_v4();
        let mut seats = vec![seat(t, 0, None, Some(3)), seat(t, 1, None, Some(-3))];
        for s in &mut seats {
            s.finished = false;
        }
        place(&mut seats);
        assert!(seats
            .iter()
            .all(|s| s.place.is_none() && s.league_units(&[3, 1]).is_none()));
    }

    #[test]
    fn a_chips_table_is_placed_by_chips_and_a_points_table_by_points() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let mut seats = vec![
            seat(a, 0, None, Some(-5)),
            seat(a, 1, None, Some(5)),
            seat(b, 0, Some(20), None),
            seat(b, 1, Some(30), None),
        ];
        place(&mut seats);
        let places: Vec<_> = seats.iter().map(|s| s.place).collect();
        assert_eq!(places, [Some(2), Some(1), Some(2), Some(1)]);
    }
}

/// What the audit of a season found.
#[derive(Debug, Clone)]
pub struct SeasonAudit {
    pub season: SeasonRow,
    /// The club's sessions whose records were checked (those it has, and those a session's
    /// chain says it had).
    pub sessions_checked: usize,
    /// The tables of the club's sessions opened within it, each audited in full.
    pub tables_audited: usize,
    /// A sentence per discrepancy; none when consistent.
    pub problems: Vec<String>,
}

/// Audits what the season's standings rest on (its club's members only): the season's own
/// chain and settings; the chain and record of every session of the club (their dates and clubs
/// decide which sessions the season counts, their rosters whose places are whose); and, in full
/// as `GET /tables/{id}/audit` does, every table opened in a session of the club from the
/// season's first day to the day after its last, of whatever game it says it is now (a table
/// whose game was changed would otherwise drop out unseen; their logs, ledgers, `finished`
/// flags and chains decide the places).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club, `Store(NotFound("season"))` for a season
/// the club does not have; on database failure.
pub async fn audit(pool: &PgPool, account: Account, club: Uuid, season: Uuid) -> Result<SeasonAudit, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    let season = store::seasons::fetch(&mut conn, club, season).await?;
    drop(conn);
    audit_season(pool, season).await
}

/// [`audit`] of a season already read, whoever asks.
///
/// # Errors
/// On database failure; `Damaged` when a table no longer reads.
pub async fn audit_season(pool: &PgPool, season: SeasonRow) -> Result<SeasonAudit, ServiceError> {
    let club = season.club_id;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let mut problems: Vec<String> = Vec::new();
    problems.extend(super::chain::record::check_season(&mut conn, &season).await?);
    let sessions = store::records::sessions_of_club(&mut conn, club).await?;
    let mut tables = Vec::new();
    for session in &sessions {
        match super::chain::record::check_session(&mut conn, *session).await {
            Ok(found) => problems.extend(found),
            Err(StoreError::NotFound(_)) => problems.push(format!("session {session} is missing")),
            Err(e) => return Err(e.into()),
        }
        let last = season.ends.succ_opt().unwrap_or(season.ends);
        tables.extend(
            store::tables::list(&mut conn, None, Some(*session), i64::MAX, 0)
                .await?
                .into_iter()
                .filter(|t| (season.starts..=last).contains(&t.created_at.date_naive())),
        );
    }
    drop(conn);
    for table in &tables {
        let (_, found) = super::audit::audit(pool, table.id).await?;
        problems.extend(found.problems.into_iter().map(|p| format!("table {}: {p}", table.id)));
    }
    Ok(SeasonAudit {
        season,
        sessions_checked: sessions.len(),
        tables_audited: tables.len(),
        problems,
    })
}
