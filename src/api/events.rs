//! Server-Sent Events: a table's log as it grows, and a session's tables as they change.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, MessageBody};
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpRequest, HttpResponse, Responder};
use actix_web_lab::sse;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use tokio::sync::{broadcast, mpsc};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Reader, StreamReader};
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use super::tables::MoveRecord;
use crate::rules::GameId;
use crate::service;
use crate::service::live::{self, Hub, LiveRow, TableChange, TableSignal};
use crate::service::receipts::{AuditKeys, Receipt};
use crate::store;

/// Proxies close idle connections; a comment this often keeps the stream open.
const HEARTBEAT: Duration = Duration::from_secs(15);

/// One log entry as streamed: the event's `id` is its `seq`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LiveEntry {
    pub entry: MoveRecord,
    /// The table's version once this entry is in (a version counts log entries).
    pub version: i64,
    /// The audit key's receipt for the table's chain at this entry's own link (the bookings it
    /// made follow that link), issued at the time the entry was recorded: keep it as an
    /// answer's receipt, for `tablekeeper verify --receipts`. Null for an entry recorded before
    /// the table was chained.
    pub receipt: Option<Receipt>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ResumeQuery {
    /// Resume after this entry, as the `Last-Event-ID` header does (for clients that cannot set
    /// headers, such as `EventSource`'s first connection).
    pub last_event_id: Option<i64>,
    /// The bearer token, for clients that cannot send `Authorization` (`EventSource`).
    pub access_token: Option<String>,
}

/// A stream's reader token, for clients that cannot send `Authorization` (`EventSource`).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AccessTokenQuery {
    /// The bearer token: a member's or scorer's token, or a share link's.
    pub access_token: Option<String>,
}

/// How often an open stream read with a share link looks whether the link still stands.
const SHARE_LINK_RECHECK: Duration = Duration::from_secs(15);

/// Resolves when the stream must end: the replica is stopping, or the share link it is read
/// with was revoked or ran out (the client's reconnection is then refused with 401).
fn ends(pool: PgPool, hub: &Hub, who: Reader) -> impl std::future::Future<Output = ()> + Send + 'static {
    let closed = hub.closed();
    async move {
        let Reader::Share { link, .. } = who else {
            return closed.await;
        };
        let lapsed = async {
            loop {
                tokio::time::sleep(SHARE_LINK_RECHECK).await;
                if service::share_links::standing(&pool, link).await.is_err() {
                    return;
                }
            }
        };
        tokio::select! {
            () = closed => {},
            () = lapsed => {},
        }
    }
}

/// Where a reconnecting client left off: the `Last-Event-ID` header, else the query, else 0.
fn resume_point(req: &HttpRequest, query: &ResumeQuery) -> Result<i64, ApiError> {
    let header = match req.headers().get("Last-Event-ID") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "invalid_last_event_id",
                        "Last-Event-ID is the seq of a log entry, 0 or more",
                    )
                })?,
        ),
    };
    match header.or(query.last_event_id) {
        Some(n) if n < 0 => Err(ApiError::bad_request(
            "invalid_last_event_id",
            "last_event_id is the seq of a log entry, 0 or more",
        )),
        n => Ok(n.unwrap_or(0)),
    }
}

fn entry_json(game: GameId, row: &store::tables::MoveRow, receipt: Option<Receipt>) -> Option<String> {
    let live = LiveEntry {
        entry: MoveRecord::new(game, row.clone()),
        version: row.seq,
        receipt,
    };
    serde_json::to_string(&live).ok()
}

/// What a stream of one table needs to render its entries: the table as it was followed (its
/// id, session and game) and the keys that sign its entries' receipts.
#[derive(Clone)]
struct Following {
    table: store::tables::TableRow,
    game: GameId,
    keys: Arc<AuditKeys>,
}

/// An entry fanned out live: rendered once, by whichever of its followers sends it first; the
/// others send the same bytes.
async fn live_entry_frame(pool: &PgPool, following: &Following, live: &LiveRow) -> Option<Bytes> {
    live
        .rendered
        .get_or_init(|| async {
            let receipt = match live::entry_receipts(pool, &following.keys, &following.table, &[&live.row]).await {
                Ok(mut receipts) => receipts.pop().flatten(),
                Err(e) => {
                    // The entry still goes out: a receipt is evidence kept by the client, and
                    // the next one covers this entry too.
                    tracing::warn!(error = %e, table = %following.table.id, "signing a streamed entry's receipt failed");
                    None
                }
            };
            entry_json(following.game, &live.row, receipt).map(|json| entry_frame(live.seq, &json))
        })
        .await
        .clone()
}

/// An `entry` event as its stream writes it. JSON text holds no line break (one in a string is
/// escaped), so the data is one line.
fn entry_frame(seq: i64, json: &str) -> Bytes {
    Bytes::from(format!("event: entry\nid: {seq}\ndata: {json}\n\n"))
}

/// A table stream's body: each entry's frame as rendered once for all its followers (sharing a
/// `Bytes` is a reference count, where an `sse::Event` was encoded again for every follower),
/// and a comment every `HEARTBEAT`. It ends when its feeding task drops the sender.
struct Frames {
    frames: mpsc::Receiver<Bytes>,
    heartbeat: tokio::time::Interval,
}

impl Frames {
    fn new(frames: mpsc::Receiver<Bytes>) -> Frames {
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Frames { frames, heartbeat }
    }

    /// The streaming answer, with the headers an `sse::Sse` answer has.
    fn respond(self) -> HttpResponse {
        HttpResponse::Ok()
            .content_type("text/event-stream")
            .insert_header(header::ContentEncoding::Identity)
            .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]))
            // nginx buffers proxied answers unless told not to.
            .insert_header(("X-Accel-Buffering", "no"))
            .body(self)
    }
}

impl MessageBody for Frames {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Infallible>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = this.frames.poll_recv(cx) {
            return Poll::Ready(frame.map(Ok));
        }
        if this.heartbeat.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n"))));
        }
        Poll::Pending
    }
}

/// Sends the table's entries after `sent` from the log; returns the last seq sent, or None
/// when the client has gone.
async fn send_from_log(pool: &PgPool, following: &Following, mut sent: i64, tx: &mpsc::Sender<Bytes>) -> Option<i64> {
    let table = following.table.id;
    loop {
        let rows = match live::read_log(pool, table, sent).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!(error = %e, %table, "reading the log for a stream failed");
                return Some(sent);
            }
        };
        let full = rows.len() as i64 >= live::LOG_PAGE;
        let page: Vec<&store::tables::MoveRow> = rows.iter().collect();
        let receipts = match live::entry_receipts(pool, &following.keys, &following.table, &page).await {
            Ok(receipts) => receipts,
            Err(e) => {
                tracing::warn!(error = %e, %table, "signing streamed entries' receipts failed");
                vec![None; rows.len()]
            }
        };
        for (row, receipt) in rows.iter().zip(receipts) {
            let frame = entry_frame(row.seq, &entry_json(following.game, row, receipt)?);
            tx.send(frame).await.ok()?;
            sent = row.seq;
        }
        if !full {
            return Some(sent);
        }
    }
}

/// Feeds one subscriber: the backlog from the log, then each new entry once, in order.
async fn follow_table(
    pool: PgPool,
    following: Following,
    mut sent: i64,
    (mut rx, closed): (broadcast::Receiver<TableSignal>, impl std::future::Future<Output = ()>),
    tx: mpsc::Sender<Bytes>,
) {
    let Some(caught_up) = send_from_log(&pool, &following, sent, &tx).await else {
        return;
    };
    sent = caught_up;
    tokio::pin!(closed);
    loop {
        let signal = tokio::select! {
            signal = rx.recv() => signal,
            () = tx.closed() => return,
            // The replica is stopping: the stream ends and the client resumes elsewhere.
            () = &mut closed => return,
        };
        let next = match signal {
            Ok(TableSignal::Entry(row)) if row.seq <= sent => continue,
            Ok(TableSignal::Entry(row)) if row.seq == sent + 1 => match live_entry_frame(&pool, &following, &row).await
            {
                Some(frame) => {
                    if tx.send(frame).await.is_err() {
                        return;
                    }
                    Some(row.seq)
                }
                None => None,
            },
            // A gap, a lagging buffer or a listener that reconnected: the log has it all.
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => send_from_log(&pool, &following, sent, &tx).await,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        match next {
            Some(seq) => sent = seq,
            None => return,
        }
    }
}

/// nginx buffers proxied answers unless told not to; a buffered stream would arrive in lumps.
fn unbuffered(stream: impl Responder) -> impl Responder {
    stream.customize().insert_header(("X-Accel-Buffering", "no"))
}

/// The table's log as it grows, as Server-Sent Events: one `entry` event per log entry (move,
/// void or correction) with the entry, its events, the table's new version and the audit key's
/// `receipt` for the entry's link in the chain; `id` is the entry's `seq`. Reconnect with
/// `Last-Event-ID` (or `?last_event_id=`) to resume with no gap and no repeat; without it the
/// stream starts from the first entry. Comments keep it open.
#[utoipa::path(tag = "live", security(("bearer" = []), ("access_token" = [])), params(
        ("id" = Uuid, Path),
        ("Last-Event-ID" = Option<i64>, Header, description = "the seq of the last entry received"),
        ResumeQuery,
    ),
    responses(
        (status = 200, description = "an event stream of `entry` events", content_type = "text/event-stream", body = LiveEntry),
        (status = 400, description = "`invalid_last_event_id`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`: no such table, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tables/{id}/events")]
pub async fn stream_table_events(
    pool: web::Data<PgPool>,
    hub: web::Data<Arc<Hub>>,
    StreamReader(who): StreamReader,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<ResumeQuery>,
) -> Result<impl Responder, ApiError> {
    let after = resume_point(&req, &query)?;
    service::access::readable_table(&pool, who, *id).await?;
    // Followed (leased) before the backlog is read, so nothing committed in between is missed.
    let (rx, row) = hub.follow_table(*id).await?;
    let (tx, events) = mpsc::channel(64);
    let game = service::game_of(&row)?;
    let listening = (rx, ends(pool.get_ref().clone(), &hub, who));
    let following = Following {
        table: row,
        game,
        keys: hub.keys().clone(),
    };
    tokio::spawn(follow_table(pool.get_ref().clone(), following, after, listening, tx));
    Ok(Frames::new(events).respond())
}

/// Every table of a session as it changes, as Server-Sent Events: first a `table` event for each
/// table as it is, then one each time a table's log grows (its version, whether it is finished,
/// running totals, and the audit key's `receipt` for its chain's head then, which a board keeps
/// as a phone keeps its answers' receipts). For the club's big screen. Changes of one table may
/// arrive out of order: keep the one with the highest version.
#[utoipa::path(tag = "live", security(("bearer" = []), ("access_token" = [])), params(("id" = Uuid, Path), AccessTokenQuery), responses(
    (status = 200, description = "an event stream of `table` events", content_type = "text/event-stream", body = TableChange),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/events")]
pub async fn stream_session_events(
    pool: web::Data<PgPool>,
    read: ReadPool,
    hub: web::Data<Arc<Hub>>,
    StreamReader(who): StreamReader,
    id: web::Path<Uuid>,
) -> Result<impl Responder, ApiError> {
    service::access::readable_session(&pool, who, *id).await?;
    let mut rx = hub.follow_session(*id).await?;
    // The first picture of every table may come from the standby: a board keeps each table's
    // highest version, and every change after it is announced from the primary.
    let tables = live::session_tables(&read, *id).await?;
    let (tx, events) = mpsc::channel(64);
    let closed = ends(pool.get_ref().clone(), &hub, who);
    let pool = read.clone();
    let hub = hub.get_ref().clone();
    tokio::spawn(async move {
        tokio::pin!(closed);
        let send = |change: &TableChange| {
            sse::Data::new_json(change)
                .ok()
                .map(|data| sse::Event::from(data.event("table")))
        };
        for table in tables {
            match live::table_change(&pool, hub.keys(), table).await {
                Ok(change) => {
                    let Some(event) = send(&change) else { return };
                    if tx.send(event).await.is_err() {
                        return;
                    }
                }
                Err(e) => tracing::warn!(error = %e, %table, "reading a table for a session stream failed"),
            }
        }
        loop {
            let change = tokio::select! {
                change = rx.recv() => change,
                () = tx.closed() => return,
                () = &mut closed => return,
            };
            match change {
                Ok(change) => {
                    let Some(event) = send(&change) else { return };
                    if tx.send(event).await.is_err() {
                        return;
                    }
                }
                // A board only needs each table's latest line; the next change brings it.
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    Ok(unbuffered(
        sse::Sse::from_infallible_receiver(events).with_keep_alive(HEARTBEAT),
    ))
}
