//! The webhook events a move causes, enqueued in the move's own write.

use tablekeeper_rules::Game;
use tablekeeper_store as store;
use tablekeeper_store::move_path::Locked;
use tablekeeper_store::writer::Db;

use super::Moved;
use crate::ServiceError;

/// The webhook events a move causes: each deal it finishes, the table when it finishes it, and
/// the session when that was its last table still being played. None (nothing written) when
/// that last needs the session's lock and this is the optimistic path: two tables finishing at
/// once each wait for the other's commit under the lock, so one of them tells the session is
/// over.
pub(super) async fn webhook_events<G: Game>(
    conn: &mut Db<'_>,
    locked: &Locked,
    moved: &Moved<G>,
    seq: i64,
) -> Result<Option<Vec<tablekeeper_store::webhooks::Event>>, ServiceError> {
    use crate::webhooks::{event, DEAL_FINISHED, SESSION_SETTLED, TABLE_FINISHED};
    let row = &locked.row;
    let base = serde_json::json!({
        "club_id": row.club_id,
        "session_id": row.session_id,
        "table_id": row.id,
        "game": row.game,
        "table_version": seq,
    });
    let with = |extra: serde_json::Value| {
        let mut data = base.clone();
        if let (Some(d), Some(e)) = (data.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        data
    };
    let mut events = Vec::new();
    for (i, _) in moved.lines.iter().enumerate() {
        let deal = moved.deal.map(|d| i64::from(d) + i as i64);
        events.push(event(
            DEAL_FINISHED,
            locked.now,
            with(serde_json::json!({ "deal": deal })),
        ));
    }
    if moved.game.is_finished() && !row.finished {
        events.push(event(TABLE_FINISHED, locked.now, base.clone()));
        if let Some(session) = row.session_id {
            if !locked.locked {
                return Ok(None);
            }
            let conn = conn.get().await?;
            store::sessions::lock(&mut *conn, session).await?;
            if !store::tables::others_unfinished(conn, session, row.id).await? {
                events.push(event(SESSION_SETTLED, locked.now, base.clone()));
            }
        }
    }
    Ok(Some(events))
}
