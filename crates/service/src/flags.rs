//! Flags on the improbable (issue #42): a finished deal whose result is far outside what the
//! deal and the field make likely is flagged, with the rule and a reason naming the values, and
//! the session does not close until a second phone has verified it or the director ruled on it.
//!
//! Invariants:
//! - Flags are derived, never stored: worked out on read from the deal's score-sheet line as it
//!   stands (the correction in force) and from deals finished before it, so recording a move
//!   costs nothing more and an honest deal asks for nothing more.
//! - The rules themselves ([`of_deal`]) are pure functions of the lines; the reads that feed
//!   them ([`of_table`], [`of_session`]) are a table's lines in force and, for a table in a
//!   session, one read of the lines of the session's tables of the same game.
//! - The field a deal is compared with is the same deal at the session's other tables playing
//!   the same game with as many players and the same options, finished before it (a line kept
//!   by a correction counts from the correction): later tables never change an earlier deal's
//!   flags.
//! - What clears a flagged deal, and the session's list of them, is the close's business
//!   (`closing::flagged`).

use std::collections::HashMap;

use serde_json::Value;
use tablekeeper_rules::{with_game, Game};
use tablekeeper_store::deal_lines::SessionLine;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, PgConnection};
use uuid::Uuid;

use super::{fold, game_of, to_json, ServiceError};

/// Every nomination of a Nomination Whist deal of the largest hand met exactly.
pub const ALL_NOMINATIONS_MET: &str = "all_nominations_met";
/// One seat out first in [`STREAK`] deals running of a stops game.
pub const OUT_FIRST_STREAK: &str = "out_first_streak";
/// A seat's deal score more than [`OUTLIER_DEVIATIONS`] standard deviations from the same
/// deal's scores at the session's other tables.
pub const SCORE_OUTLIER: &str = "score_outlier";

/// A member's deal score more than [`OUTLIER_DEVIATIONS`] standard deviations from their own
/// scores of the same deal in the club's earlier sessions, and outside every one of them.
pub const PLAYER_USUAL: &str = "player_usual";

/// The fewest players at which every nomination met is improbable enough to flag.
pub const NOMINATION_PLAYERS: usize = 4;
/// How many deals running one seat must go out first to be flagged: at four players a run of
/// six has a chance of 1 in 1024 from any deal.
pub const STREAK: usize = 6;
/// The fewest other tables the same deal must have finished at before a score is compared.
pub const FIELD_TABLES: usize = 5;
/// How far from the field's mean, in its standard deviations, a score is flagged.
pub const OUTLIER_DEVIATIONS: f64 = 3.0;
/// The fewest earlier scores of the same deal a member must have for their usual to be known.
pub const USUAL_DEALS: usize = 12;
/// How many of a table's members' earlier tables (the newest) their usual is read from.
pub const USUAL_TABLES: i64 = 200;

/// One flag on a deal: its rule's stable code and why, with the values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flag {
    pub rule: &'static str,
    pub reason: String,
}

/// What the rules read of a table besides its lines.
#[derive(Debug, Clone, Copy)]
pub struct Seating<'a> {
    /// The players in seat order (named in reasons).
    pub players: &'a [String],
    /// Each seat's running total before the first deal: what a line that carries only the
    /// totals after it (`chips`) is measured from.
    pub start: &'a [i64],
    /// For each deal (deal 1 first), each seat's member's scores of the same deal at the club's
    /// earlier sessions (see [`player_usual`]); empty where unknown (a seat with no member).
    pub usual: &'a [Vec<Vec<i64>>],
}

/// The flags of deal `deal` (1-based) of a table whose lines in force are `lines` (deal 1
/// first), compared with `field`: the same deal's seat scores at each other table of the field
/// that finished it before this one. Empty when the deal is not finished or nothing is
/// improbable.
#[must_use]
pub fn of_deal(lines: &[Value], deal: u16, seating: Seating<'_>, field: &[Vec<i64>]) -> Vec<Flag> {
    let Some(index) = usize::from(deal).checked_sub(1).filter(|i| *i < lines.len()) else {
        return Vec::new();
    };
    let mut flags = Vec::new();
    flags.extend(all_nominations_met(&lines[index], seating));
    flags.extend(out_first_streak(&lines[..=index], seating));
    if let Some(scores) = seat_scores(lines, index, seating.start) {
        flags.extend(score_outlier(&scores, deal, seating, field));
        flags.extend(player_usual(&scores, deal, seating));
    }
    flags
}

/// The largest hand of Nomination Whist at `players`: 13, or ⌊52/players⌋ when smaller (the
/// rules' turning point).
#[must_use]
pub fn largest_hand(players: usize) -> u64 {
    u64::try_from(52 / players.max(1)).unwrap_or(0).min(13)
}

/// Rule `all_nominations_met`: a deal of the largest hand at 4 or more players in which every
/// player made exactly the tricks they nominated. The hook rule makes it impossible where it
/// applies; where it does not, it is rare enough to be a misentry more often than a feat.
fn all_nominations_met(line: &Value, seating: Seating<'_>) -> Option<Flag> {
    let players = seating.players.len();
    let hand = line.get("hand_size")?.as_u64()?;
    let nominations = numbers(line.get("nominations")?)?;
    let tricks = numbers(line.get("tricks")?)?;
    if players < NOMINATION_PLAYERS
        || hand != largest_hand(players)
        || nominations.len() != players
        || nominations != tricks
    {
        return None;
    }
    let named: Vec<String> = seating
        .players
        .iter()
        .zip(&nominations)
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    Some(Flag {
        rule: ALL_NOMINATIONS_MET,
        reason: format!(
            "every nomination was met exactly at {hand} cards ({}): all {players} players right at the largest hand",
            named.join(", ")
        ),
    })
}

/// Rule `out_first_streak`: in a stops game, the seat that went out first in the last deal of
/// `lines` went out first in each of the [`STREAK`] deals up to it. (A stops game's payouts are
/// worked out by the engine from the board, so a deal cannot pay more than the board holds:
/// this is the nearest improbable event its lines show.)
fn out_first_streak(lines: &[Value], seating: Seating<'_>) -> Option<Flag> {
    let winner = |line: &Value| line.get("winner").and_then(Value::as_u64);
    let last = lines.last()?;
    // Only a stops game's lines carry both who went out and each seat's net.
    last.get("net")?;
    let seat = winner(last)?;
    let run = lines.iter().rev().take_while(|l| winner(l) == Some(seat)).count();
    if run < STREAK {
        return None;
    }
    let deal = lines.len();
    let name = usize::try_from(seat)
        .ok()
        .and_then(|s| seating.players.get(s))
        .map_or_else(|| format!("seat {seat}"), |p| format!("{p} (seat {seat})"));
    Some(Flag {
        rule: OUT_FIRST_STREAK,
        reason: format!(
            "{name} went out first {run} deals running, deals {} to {deal}: at {} players a run of {STREAK} happens about once in {} deals",
            deal + 1 - run,
            seating.players.len(),
            seating
                .players
                .len()
                .checked_pow(u32::try_from(STREAK - 1).unwrap_or(0))
                .unwrap_or(usize::MAX),
        ),
    })
}

/// Rule `score_outlier`: a seat's deal score more than [`OUTLIER_DEVIATIONS`] standard
/// deviations from the mean of every seat's score of the same deal at the other tables of the
/// field, when at least [`FIELD_TABLES`] of them finished it before.
fn score_outlier(scores: &[i64], deal: u16, seating: Seating<'_>, field: &[Vec<i64>]) -> Option<Flag> {
    if field.len() < FIELD_TABLES {
        return None;
    }
    let all: Vec<f64> = field.iter().flatten().map(|&s| s as f64).collect();
    let n = all.len() as f64;
    let mean = all.iter().sum::<f64>() / n;
    let sd = (all.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt();
    // A field that all scored alike has no spread to measure a score against.
    if sd <= 0.0 {
        return None;
    }
    let out: Vec<String> = scores
        .iter()
        .enumerate()
        .filter_map(|(seat, &score)| {
            let away = (score as f64 - mean) / sd;
            (away.abs() > OUTLIER_DEVIATIONS).then(|| {
                let name = seating
                    .players
                    .get(seat)
                    .map_or_else(|| format!("seat {seat}"), Clone::clone);
                format!("{name} {score} ({away:+.1} sd)")
            })
        })
        .collect();
    if out.is_empty() {
        return None;
    }
    Some(Flag {
        rule: SCORE_OUTLIER,
        reason: format!(
            "deal {deal}: {} against the {} scores of the same deal at {} other tables (mean {mean:.1}, standard deviation {sd:.1})",
            out.join(", "),
            all.len(),
            field.len(),
        ),
    })
}

/// Rule `player_usual`: a seat's deal score more than [`OUTLIER_DEVIATIONS`] standard
/// deviations from the mean of its member's scores of the same deal (same game, players and
/// options) in the club's earlier sessions, when there are at least [`USUAL_DEALS`] of them, and
/// beyond the highest (or lowest) of them. The second test keeps a player's rare but real
/// results quiet: a deal's scores are lumpy (a nomination met is worth ten more), so a score
/// the player has made before is not improbable for them whatever the deviations say.
fn player_usual(scores: &[i64], deal: u16, seating: Seating<'_>) -> Option<Flag> {
    let earlier = seating.usual.get(usize::from(deal).checked_sub(1)?)?;
    let out: Vec<String> = scores
        .iter()
        .zip(earlier)
        .enumerate()
        .filter_map(|(seat, (&score, before))| {
            if before.len() < USUAL_DEALS {
                return None;
            }
            let n = before.len() as f64;
            let mean = before.iter().map(|&s| s as f64).sum::<f64>() / n;
            let sd = (before.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
            let (low, high) = (before.iter().min()?, before.iter().max()?);
            let away = (score as f64 - mean) / sd;
            (sd > 0.0 && away.abs() > OUTLIER_DEVIATIONS && (score > *high || score < *low)).then(|| {
                let name = seating
                    .players
                    .get(seat)
                    .map_or_else(|| format!("seat {seat}"), Clone::clone);
                format!(
                    "{name} {score} ({away:+.1} sd from their mean {mean:.1} over {} earlier deals, {low} to {high})",
                    before.len()
                )
            })
        })
        .collect();
    if out.is_empty() {
        return None;
    }
    Some(Flag {
        rule: PLAYER_USUAL,
        reason: format!(
            "deal {deal}: {} against their own scores of the same deal at the club's earlier sessions",
            out.join(", ")
        ),
    })
}

/// Each seat's score of deal `index + 1`: its line's `points`, or its `net` chips, or else the
/// change in the seats' `chips` (or `totals`) since the deal before (`start` for the first).
#[must_use]
pub fn seat_scores(lines: &[Value], index: usize, start: &[i64]) -> Option<Vec<i64>> {
    let line = lines.get(index)?;
    if let Some(scores) = line.get("points").or_else(|| line.get("net")).and_then(numbers_signed) {
        return Some(scores);
    }
    let after = |l: &Value| l.get("chips").or_else(|| l.get("totals")).and_then(numbers_signed);
    let now = after(line)?;
    let before = match index.checked_sub(1) {
        Some(i) => after(lines.get(i)?)?,
        None => start.to_vec(),
    };
    (now.len() == before.len()).then(|| now.iter().zip(&before).map(|(a, b)| a - b).collect())
}

fn numbers(value: &Value) -> Option<Vec<u64>> {
    value.as_array()?.iter().map(Value::as_u64).collect()
}

fn numbers_signed(value: &Value) -> Option<Vec<i64>> {
    value.as_array()?.iter().map(Value::as_i64).collect()
}

/// What [`of_table`] reads of a table's session: its tables and the lines in force at those
/// playing the table's game.
#[derive(Debug, Default)]
pub struct Session {
    pub(super) tables: Vec<TableRow>,
    lines: HashMap<(Uuid, String), Vec<SessionLine>>,
}

impl Session {
    /// The session's tables, read once for all of them.
    ///
    /// # Errors
    /// On database failure.
    pub async fn read(conn: &mut PgConnection, session: Uuid) -> Result<Session, ServiceError> {
        Ok(Session {
            tables: store::tables::list(&mut *conn, None, Some(session), 1000, 0).await?,
            lines: HashMap::new(),
        })
    }

    /// The other tables `table` is compared with: same session, game, number of players and
    /// options.
    fn peers<'a>(&'a self, table: &'a TableRow) -> impl Iterator<Item = &'a TableRow> + 'a {
        self.tables.iter().filter(move |t| {
            t.id != table.id
                && t.game == table.game
                && t.players.len() == table.players.len()
                && t.options == table.options
        })
    }

    /// The lines in force of the session's tables playing `game`, read the first time asked.
    async fn lines_of(
        &mut self,
        conn: &mut PgConnection,
        session: Uuid,
        game: &str,
    ) -> Result<&[SessionLine], ServiceError> {
        let key = (session, game.to_owned());
        if !self.lines.contains_key(&key) {
            let read = store::deal_lines::in_force_of_session(&mut *conn, session, game).await?;
            self.lines.insert(key.clone(), read);
        }
        Ok(self.lines.get(&key).map_or(&[][..], Vec::as_slice))
    }
}

/// The flags of each finished deal of `table`, deal 1 first; `session` is what was read of its
/// session (read here when None and the table has one).
///
/// # Errors
/// `Corrupt` when a stored line no longer reads or the log no longer replays; on database
/// failure.
pub async fn of_table(
    conn: &mut PgConnection,
    table: &TableRow,
    session: Option<&mut Session>,
) -> Result<Vec<Vec<Flag>>, ServiceError> {
    let (lines, start) = with_game!(game_of(table)?, G => {
        let lines = super::history::in_force::<G>(&mut *conn, table)
            .await
            .map_err(|e| e.at_table(table.id))?;
        let start = fold::initial::<G>(table)?.running_totals();
        (lines.iter().map(to_json).collect::<Result<Vec<_>, _>>()?, start)
    });
    let usual = match (table.session_id, table.members.as_deref()) {
        (Some(session), Some(members)) => usual(conn, table, session, members, lines.len(), &start).await?,
        _ => Vec::new(),
    };
    let seating = Seating {
        players: &table.players,
        start: &start,
        usual: &usual,
    };
    let fields = match table.session_id {
        Some(id) => {
            let mut read;
            let session = match session {
                Some(s) => s,
                None => {
                    read = Session::read(&mut *conn, id).await?;
                    &mut read
                }
            };
            fields(conn, session, id, table, lines.len(), &start).await?
        }
        None => vec![Vec::new(); lines.len()],
    };
    Ok((1..=u16::try_from(lines.len()).unwrap_or(u16::MAX))
        .zip(&fields)
        .map(|(deal, field)| of_deal(&lines, deal, seating, field))
        .collect())
}

/// The flags of each finished deal of `table`, deal 1 first, read on a connection of `pool`:
/// see [`of_table`].
///
/// # Errors
/// As [`of_table`].
pub async fn of_table_in(pool: &store::PgPool, table: &TableRow) -> Result<Vec<Vec<Flag>>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    of_table(&mut conn, table, None).await
}

/// For each of the table's `deals`, each seat's member's scores of the same deal at the club's
/// tables of the same game, players and options in earlier sessions (the newest
/// [`USUAL_TABLES`] they sat at): two reads, the tables and their lines in force.
async fn usual(
    conn: &mut PgConnection,
    table: &TableRow,
    session: Uuid,
    members: &[Uuid],
    deals: usize,
    start: &[i64],
) -> Result<Vec<Vec<Vec<i64>>>, ServiceError> {
    let earlier: Vec<TableRow> = store::tables::earlier_of_members(
        &mut *conn,
        table.club_no,
        &table.game,
        session,
        table.created_at,
        members,
        USUAL_TABLES,
    )
    .await?
    .into_iter()
    .filter(|t| t.players.len() == table.players.len() && t.options == table.options)
    .collect();
    let mut out = vec![vec![Vec::new(); members.len()]; deals];
    if earlier.is_empty() {
        return Ok(out);
    }
    let ids: Vec<Uuid> = earlier.iter().map(|t| t.id).collect();
    let lines = store::deal_lines::in_force_of_tables(&mut *conn, table.club_no, &ids).await?;
    for t in &earlier {
        let values = lines
            .iter()
            .filter(|l| l.table_id == t.id)
            .map(|l| serde_json::from_str(&l.line).map_err(|e| ServiceError::Corrupt(e.to_string())))
            .collect::<Result<Vec<Value>, _>>()?;
        let Some(sat) = t.members.as_deref() else { continue };
        for (seat, member) in members.iter().enumerate() {
            let Some(there) = sat.iter().position(|m| m == member) else {
                continue;
            };
            for (index, per_seat) in out.iter_mut().enumerate() {
                if let Some(score) = seat_scores(&values, index, start).and_then(|s| s.get(there).copied()) {
                    per_seat[seat].push(score);
                }
            }
        }
    }
    Ok(out)
}

/// For each of the table's `deals`, the seat scores of the same deal at each peer that finished
/// it before this table did.
async fn fields(
    conn: &mut PgConnection,
    session: &mut Session,
    id: Uuid,
    table: &TableRow,
    deals: usize,
    start: &[i64],
) -> Result<Vec<Vec<Vec<i64>>>, ServiceError> {
    let mut out = vec![Vec::new(); deals];
    let peers: Vec<Uuid> = session.peers(table).map(|t| t.id).collect();
    if peers.len() < FIELD_TABLES {
        return Ok(out);
    }
    let lines = session.lines_of(conn, id, &table.game).await?;
    let of_table = |t: Uuid| -> Result<(Vec<Value>, Vec<chrono::DateTime<chrono::Utc>>), ServiceError> {
        let mine: Vec<&SessionLine> = lines.iter().filter(|l| l.table_id == t).collect();
        let values = mine
            .iter()
            .map(|l| serde_json::from_str(&l.line).map_err(|e| ServiceError::Corrupt(e.to_string())))
            .collect::<Result<Vec<Value>, _>>()?;
        Ok((values, mine.iter().map(|l| l.stored_at).collect()))
    };
    // A table whose lines are not rows yet has no times to compare: it is compared with nothing
    // until its next move stores them.
    let (_, finished) = of_table(table.id)?;
    let peers = peers.into_iter().map(of_table).collect::<Result<Vec<_>, _>>()?;
    for (index, field) in out.iter_mut().enumerate() {
        let Some(ours) = finished.get(index) else { continue };
        for (values, at) in &peers {
            if at.get(index).is_some_and(|t| t < ours) {
                field.extend(seat_scores(values, index, start));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn names(n: usize) -> Vec<String> {
        ["Ann", "Bob", "Cat", "Dan", "Eve"][..n]
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    }

    fn rules(flags: &[Flag]) -> Vec<&str> {
        flags.iter().map(|f| f.rule).collect()
    }

    /// A Nomination Whist line as the engine stores it.
    fn whist(deal: u16, hand: u8, nominations: [u8; 4], tricks: [u8; 4]) -> Value {
        let points: Vec<i32> = nominations
            .iter()
            .zip(&tricks)
            .map(|(n, t)| i32::from(*t) + if n == t { 10 } else { 0 })
            .collect();
        json!({"deal": deal, "dealer": 0, "hand_size": hand, "trumps": "spades", "nominations": nominations,
               "tricks": tricks, "points": points, "totals": points, "revokes": [], "recording": "result_only"})
    }

    #[test]
    fn every_nomination_met_at_thirteen_cards_is_flagged_and_a_trick_astray_is_not() {
        let players = names(4);
        let seating = Seating {
            players: &players,
            start: &[0; 4],
            usual: &[],
        };
        // The thirteen-card deal of a table playing without the hook rule at its top hand.
        let met = [whist(13, 13, [4, 3, 5, 1], [4, 3, 5, 1])];
        let flags = of_deal(&met, 1, seating, &[]);
        assert_eq!(rules(&flags), [ALL_NOMINATIONS_MET]);
        assert!(flags[0].reason.contains("13 cards"), "{}", flags[0].reason);
        assert!(flags[0].reason.contains("Cat 5"), "{}", flags[0].reason);

        // One trick astray: Bob made four of his three, Dan none of his one.
        let missed = [whist(13, 13, [4, 3, 5, 1], [4, 4, 5, 0])];
        assert!(of_deal(&missed, 1, seating, &[]).is_empty());
        // Every nomination met at seven cards is an ordinary evening.
        let small = [whist(7, 7, [2, 1, 3, 0], [2, 1, 3, 1])];
        assert!(of_deal(&small, 1, seating, &[]).is_empty());
        let small_met = [whist(7, 7, [2, 1, 3, 1], [2, 1, 3, 1])];
        assert!(of_deal(&small_met, 1, seating, &[]).is_empty());
    }

    #[test]
    fn the_largest_hand_is_thirteen_or_what_the_pack_allows() {
        assert_eq!(largest_hand(4), 13);
        assert_eq!(largest_hand(5), 10);
        assert_eq!(largest_hand(7), 7);
    }

    /// A Spin line: who went out and each seat's net.
    fn spin(deal: u16, winner: u8) -> Value {
        let mut net = vec![-3, -3, -3, -3];
        net[usize::from(winner)] = 9;
        json!({"deal": deal, "dealer": (deal - 1) % 4, "winner": winner, "cards_left": [0, 2, 3, 1],
               "spin_holder": null, "net": net, "chips": [100, 100, 100, 100], "recording": "result_only"})
    }

    #[test]
    fn one_seat_out_first_six_deals_running_is_flagged_and_five_are_not() {
        let players = names(4);
        let seating = Seating {
            players: &players,
            start: &[100; 4],
            usual: &[],
        };
        let winners = [1, 2, 2, 2, 2, 2, 2, 0];
        let lines: Vec<Value> = (1..).zip(winners).map(|(d, w)| spin(d, w)).collect();
        // Deal 6 ends a run of five: not yet.
        assert!(of_deal(&lines, 6, seating, &[]).is_empty());
        let flags = of_deal(&lines, 7, seating, &[]);
        assert_eq!(rules(&flags), [OUT_FIRST_STREAK]);
        assert!(
            flags[0]
                .reason
                .contains("Cat (seat 2) went out first 6 deals running, deals 2 to 7"),
            "{}",
            flags[0].reason
        );
        // The run is broken at deal 8; and a deal not finished has no flags.
        assert!(of_deal(&lines, 8, seating, &[]).is_empty());
        assert!(of_deal(&lines, 9, seating, &[]).is_empty());
        // Nomination Whist lines have no `winner`: never a streak.
        let whist_lines: Vec<Value> = (1..=7).map(|d| whist(d, 1, [0, 1, 0, 0], [0, 1, 0, 0])).collect();
        assert!(of_deal(&whist_lines, 7, seating, &[]).is_empty());
    }

    #[test]
    fn a_score_far_outside_the_same_deal_at_five_other_tables_is_flagged_and_a_near_one_is_not() {
        let players = names(4);
        let seating = Seating {
            players: &players,
            start: &[0; 4],
            usual: &[],
        };
        // Deal 7 of a seven-card evening: the field mostly misses by a trick or so.
        let field = vec![
            vec![2, 12, 1, 3],
            vec![13, 2, 1, 2],
            vec![1, 3, 12, 1],
            vec![2, 2, 2, 11],
            vec![12, 1, 2, 2],
        ];
        // Ann nominated and made all seven: 17 against a field of mean 4.35 and standard
        // deviation 4.46 is 2.8 away, a good deal rather than an improbable one.
        let far = [whist(7, 7, [7, 0, 0, 1], [7, 0, 0, 0])];
        assert_eq!(seat_scores(&far, 0, &[0; 4]), Some(vec![17, 10, 10, 0]));
        let flags = of_deal(&far, 1, seating, &field);
        assert!(flags.is_empty(), "{flags:?}");
        // With the fifth table's twelve a two, the field's spread is 4.13 about 3.85: 3.2 away.
        let mut wider = field.clone();
        wider[4] = vec![2, 1, 2, 2];
        let flags = of_deal(&far, 1, seating, &wider);
        assert_eq!(rules(&flags), [SCORE_OUTLIER]);
        assert!(flags[0].reason.contains("Ann 17"), "{}", flags[0].reason);
        assert!(flags[0].reason.contains("at 5 other tables"), "{}", flags[0].reason);
        // Four tables are too few to say what is usual.
        assert!(of_deal(&far, 1, seating, &wider[..4]).is_empty());
    }

    #[test]
    fn a_score_beyond_a_member_s_usual_for_the_deal_is_flagged_and_one_they_made_before_is_not() {
        let players = names(4);
        // Ann's twelve earlier seven-card deals: usually a trick or so short, her nomination of
        // two met once (12). Bob's eleven are too few; Cat and Dan have no member's history.
        let ann = vec![2, 1, 3, 2, 1, 12, 2, 3, 1, 2, 2, 1];
        let bob = vec![1; 11];
        let usual = vec![vec![ann, bob, Vec::new(), Vec::new()]];
        let seating = Seating {
            players: &players,
            start: &[0; 4],
            usual: &usual,
        };
        // Ann nominates and makes all seven: 17 against her mean 2.7 and deviation 2.9.
        let all_seven = [whist(7, 7, [7, 0, 0, 1], [7, 0, 0, 0])];
        let flags = of_deal(&all_seven, 1, seating, &[]);
        assert_eq!(rules(&flags), [PLAYER_USUAL]);
        assert!(
            flags[0]
                .reason
                .contains("Ann 17 (+4.9 sd from their mean 2.7 over 12 earlier deals, 1 to 12)"),
            "{}",
            flags[0].reason
        );
        // Her two met again is 3.2 deviations away, but she has made it before: not flagged.
        let again = [whist(7, 7, [2, 0, 3, 1], [2, 5, 0, 0])];
        assert_eq!(seat_scores(&again, 0, &[0; 4]).map(|s| s[0]), Some(12));
        assert!(of_deal(&again, 1, seating, &[]).is_empty());
        // Bob's 10 of nothing met is far from his ones, but eleven deals do not make a usual.
        assert!(of_deal(&all_seven, 1, seating, &[])
            .iter()
            .all(|f| !f.reason.contains("Bob")));
        // Without a history, nothing.
        let none = Seating { usual: &[], ..seating };
        assert!(of_deal(&all_seven, 1, none, &[]).is_empty());
    }

    #[test]
    fn a_seat_s_score_is_its_points_its_net_or_the_change_in_its_chips() {
        let tridge = [
            json!({"deal": 1, "chips": [103, 98, 99]}),
            json!({"deal": 2, "chips": [100, 104, 96]}),
        ];
        assert_eq!(seat_scores(&tridge, 0, &[100, 100, 100]), Some(vec![3, -2, -1]));
        assert_eq!(seat_scores(&tridge, 1, &[100, 100, 100]), Some(vec![-3, 6, -3]));
        assert_eq!(seat_scores(&[spin(1, 3)], 0, &[100; 4]), Some(vec![-3, -3, -3, 9]));
        assert_eq!(seat_scores(&tridge, 2, &[100; 3]), None);
    }
}
