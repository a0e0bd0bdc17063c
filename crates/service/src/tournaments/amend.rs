//! A closed round's result amended by a ruling or a correction made after the close (issue #42).
//!
//! A round's result is each table's score as it stood when the round closed. A director who rules
//! on one of the deals it counted, or a scorer who corrects one, changes that deal after the
//! round's standings were taken: the result must follow, or the evening's places say what the
//! ruling overturned. The result as closed is kept (written once); an amendment records the
//! table's scores after the change, moved by exactly what the change moved the table's score
//! (`after - before`, both taken in the change's transaction under the table's lock), so a deal
//! recorded at the table after the close still counts in no round. A table the close scored
//! `void` stays void; one scored `average` moves every seat by the change's mean, rounded down as
//! at the close. Each amendment links the session's record, as every change to a tournament does.

use tablekeeper_store::tables::TableRow;
use tablekeeper_store::tournaments::{AmendmentRow, CountedRow};
use tablekeeper_store::{self as store, PgConnection};
use uuid::Uuid;

use super::loaded::load;
use super::rounds::table_outcome;
use super::{tell_boards, Unfinished};
use crate::ServiceError;

/// The closed round's result that counted a deal, and the table's score per seat before the
/// ruling or correction of that deal is written.
#[derive(Debug)]
pub(crate) struct Counting {
    row: CountedRow,
    before: Vec<i64>,
}

/// What [`Counting::amend`] needs, when a closed round counted deal `deal` of `table`; `None`
/// otherwise (a table no tournament seated, a round still open, a deal after the close).
///
/// # Errors
/// On database failure.
pub(crate) async fn counting(
    conn: &mut PgConnection,
    table: &TableRow,
    deal: u16,
) -> Result<Option<Counting>, ServiceError> {
    let Some(row) = store::tournaments::counted(&mut *conn, table.id, i32::from(deal)).await? else {
        return Ok(None);
    };
    let (before, _, _) = table_outcome(conn, table.clone()).await?;
    Ok(Some(Counting { row, before }))
}

/// The result in force after a change that moved the table's scores by `moved`.
fn amended(scores: &[i64], ruled: Option<Unfinished>, moved: &[i64]) -> Option<Vec<i64>> {
    if moved.iter().all(|d| *d == 0) {
        return None;
    }
    match ruled {
        Some(Unfinished::Void) => None,
        Some(Unfinished::Average) => {
            let seats = i64::try_from(scores.len()).unwrap_or(1).max(1);
            let shift = moved.iter().sum::<i64>().div_euclid(seats);
            (shift != 0).then(|| scores.iter().map(|s| s + shift).collect())
        }
        Some(Unfinished::AsPlayed) | None => Some(
            scores
                .iter()
                .enumerate()
                .map(|(i, s)| s + moved.get(i).copied().unwrap_or(0))
                .collect(),
        ),
    }
}

impl Counting {
    /// Amends the result by what the change written since [`counting`] moved `table`'s scores,
    /// links the session's record and tells the boards; nothing when it moved nothing.
    ///
    /// # Errors
    /// On database failure; `Corrupt` for a stored rule it does not know.
    pub(crate) async fn amend(self, conn: &mut PgConnection, table: Uuid) -> Result<(), ServiceError> {
        let row = store::tables::fetch(&mut *conn, table).await?;
        let table_seq = row.version;
        let (after, _, _) = table_outcome(&mut *conn, row).await?;
        let moved: Vec<i64> = after
            .iter()
            .enumerate()
            .map(|(i, a)| a - self.before.get(i).copied().unwrap_or(0))
            .collect();
        let ruled = match self.row.result.ruled.as_deref() {
            None => None,
            Some(r) => Some(Unfinished::parse(r).ok_or_else(|| {
                ServiceError::Corrupt(format!(
                    "tournament {} has an unknown unfinished rule",
                    self.row.tournament_id
                ))
            })?),
        };
        let Some(scores) = amended(&self.row.scores, ruled, &moved) else {
            return Ok(());
        };
        let amendment = AmendmentRow {
            round: self.row.result.round,
            table_number: self.row.result.table_number,
            seq: self.row.next_seq,
            scores,
            table_id: table,
            table_seq,
        };
        store::tournaments::amend(&mut *conn, self.row.tournament_id, &amendment).await?;
        crate::chain::record::link_session(&mut *conn, self.row.session_id).await?;
        let tournament = store::tournaments::fetch(&mut *conn, self.row.tournament_id).await?;
        let made = load(&mut *conn, tournament).await?.view()?;
        tell_boards(conn, &made).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_moves_an_as_played_result_seat_by_seat() {
        assert_eq!(amended(&[21, 10, 3], None, &[-11, 0, 11]), Some(vec![10, 10, 14]));
        assert_eq!(
            amended(&[21, 10, 3], Some(Unfinished::AsPlayed), &[2, 0, 0]),
            Some(vec![23, 10, 3])
        );
    }

    #[test]
    fn nothing_moved_or_a_void_table_is_not_amended() {
        assert_eq!(amended(&[21, 10, 3], None, &[0, 0, 0]), None);
        assert_eq!(amended(&[0, 0, 0], Some(Unfinished::Void), &[5, -5, 0]), None);
    }

    #[test]
    fn an_average_table_moves_every_seat_by_the_change_s_mean_rounded_down() {
        assert_eq!(
            amended(&[7, 7, 7], Some(Unfinished::Average), &[10, 0, 0]),
            Some(vec![10, 10, 10])
        );
        assert_eq!(
            amended(&[7, 7, 7], Some(Unfinished::Average), &[-1, 0, 0]),
            Some(vec![6, 6, 6])
        );
        // Chips only move between seats: the mean does not move.
        assert_eq!(amended(&[0, 0, 0], Some(Unfinished::Average), &[4, -4, 0]), None);
    }
}
