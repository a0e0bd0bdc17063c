//! Server-Sent Events: a table's log as it grows, and a session's tables as they change.

use crate::State;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, MessageBody};
use actix_web::web::{Bytes, BytesMut};
use actix_web::{get, web, HttpRequest, HttpResponse, Responder};
use serde::{Deserialize, Serialize};
use tablekeeper_service::PgPool;
use tokio::sync::{broadcast, mpsc};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Reader, StreamReader};
use super::connections::StreamPlace;
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use super::sse;
use super::tables::{MoveRecord, TableView};
use tablekeeper_rules::GameId;
use tablekeeper_service as service;
use tablekeeper_service::live::{self, Hub, LiveRow, SessionChange, TableChange, TableSignal, TournamentChange};
use tablekeeper_service::receipts::{AuditKeys, Receipt};

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
    /// The table as this entry left it, as `GET /tables/{id}` answers it (its `version` is this
    /// entry's): redraw from it rather than reading the table. Sent with entries heard live;
    /// left out of entries read again from the log (a resumed stream's backlog) and of one the
    /// table had moved past when its replica read it: then the next entry's, or a read of the
    /// table, brings it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableView>,
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

fn entry_json(
    game: GameId,
    row: &tablekeeper_service::tables::MoveRow,
    receipt: Option<Receipt>,
    table: Option<TableView>,
) -> Option<String> {
    let live = LiveEntry {
        entry: MoveRecord::new(game, row.clone()),
        version: row.seq,
        receipt,
        table,
    };
    serde_json::to_string(&live).ok()
}

/// What a stream of one table needs to render its entries: the table as it was followed (its
/// id, session and game) and the keys that sign its entries' receipts.
struct Following {
    table: tablekeeper_service::tables::TableRow,
    game: GameId,
    keys: Arc<AuditKeys>,
}

/// An entry fanned out live: its receipt signed once per replica before it was fanned out,
/// its frame rendered once, by whichever of its followers sends it first; the others send the
/// same bytes.
fn live_entry_frame(following: &Following, live: &LiveRow) -> Option<Bytes> {
    live.rendered
        .get_or_init(|| {
            let table = live.table.as_deref().cloned().map(TableView::from);
            entry_json(following.game, &live.row, live.receipt.clone(), table).map(|json| entry_frame(live.seq, &json))
        })
        .clone()
}

/// An `entry` event as its stream writes it.
fn entry_frame(seq: i64, json: &str) -> Bytes {
    sse::frame("entry", Some(seq), json)
}

/// The most a stream writes at once: the frames waiting for it, up to this many bytes, go out
/// in one write.
const WRITE_AT_MOST: usize = 64 * 1024;

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// One page of the log after `after`, rendered: the frames as one write, the last seq in it,
/// and whether the page was full (more may follow).
struct LogPage {
    frames: Bytes,
    last: i64,
    full: bool,
}

/// Reads and renders the table's entries after `after`, at most a page; None when the log
/// could not be read (the stream goes on from where it was, and the next gap reads it again).
async fn log_page(pool: PgPool, following: Arc<Following>, after: i64) -> Option<LogPage> {
    let table = following.table.id;
    let rows = match live::read_log(&pool, following.table.key(), after).await {
        Ok(rows) => rows,
        Err(e) => {
            tracing::warn!(error = %e, %table, "reading the log for a stream failed");
            return None;
        }
    };
    let full = rows.len() as i64 >= live::LOG_PAGE;
    let page: Vec<&tablekeeper_service::tables::MoveRow> = rows.iter().collect();
    let receipts = match live::entry_receipts(&pool, &following.keys, &following.table, &page).await {
        Ok(receipts) => receipts,
        Err(e) => {
            tracing::warn!(error = %e, %table, "signing streamed entries' receipts failed");
            vec![None; rows.len()]
        }
    };
    let mut frames = BytesMut::new();
    let mut last = after;
    for (row, receipt) in rows.iter().zip(receipts) {
        let Some(json) = entry_json(following.game, row, receipt, None) else {
            break;
        };
        frames.extend_from_slice(&entry_frame(row.seq, &json));
        last = row.seq;
    }
    Some(LogPage {
        frames: frames.freeze(),
        last,
        full,
    })
}

/// The next signal on a table's broadcast, with the receiver back for the next one.
type Heard = (
    Result<TableSignal, broadcast::error::RecvError>,
    broadcast::Receiver<TableSignal>,
);

fn hear(mut signals: broadcast::Receiver<TableSignal>) -> Boxed<Heard> {
    Box::pin(async move { (signals.recv().await, signals) })
}

/// Where a table stream's broadcast receiver is: in hand, or inside the wait for its next
/// signal.
enum Listening {
    Idle(broadcast::Receiver<TableSignal>),
    Waiting(Boxed<Heard>),
    Closed,
}

/// A table stream's body, fed by nothing but its own polling (no task or channel per
/// follower): first the log after the resume point, then each new entry once, in order, as
/// the replica's hub broadcasts it, falling back to the log on a gap, a lagging buffer or a
/// listener that reconnected. The frames waiting when it is polled go out as one write; a
/// comment every `sse::HEARTBEAT`. It ends when the replica stops, the share link it is read with
/// lapses, or the broadcast closes.
struct TableStream {
    pool: PgPool,
    following: Arc<Following>,
    /// The seq of the last entry written.
    sent: i64,
    listening: Listening,
    /// A read of the log under way, which the live entries wait for.
    reading: Option<Boxed<Option<LogPage>>>,
    ends: Boxed<()>,
    heartbeat: tokio::time::Interval,
    done: bool,
    /// The stream's place among its client's, freed when the body is dropped.
    _place: StreamPlace,
}

impl TableStream {
    fn new(
        pool: PgPool,
        following: Following,
        after: i64,
        signals: broadcast::Receiver<TableSignal>,
        ends: Boxed<()>,
        place: StreamPlace,
    ) -> TableStream {
        let heartbeat = sse::heartbeat();
        let following = Arc::new(following);
        // Followed (leased) before the backlog is read, so nothing committed in between is missed.
        let reading = Some(Box::pin(log_page(pool.clone(), following.clone(), after)) as Boxed<_>);
        TableStream {
            pool,
            following,
            sent: after,
            listening: Listening::Idle(signals),
            reading,
            ends,
            heartbeat,
            done: false,
            _place: place,
        }
    }

    /// The streaming answer.
    fn respond(self) -> HttpResponse {
        sse::respond(self)
    }

    fn read_log(&mut self) {
        self.reading = Some(Box::pin(log_page(self.pool.clone(), self.following.clone(), self.sent)));
    }

    /// The next signal already broadcast, or Pending with the waker registered.
    fn poll_signal(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<TableSignal, broadcast::error::RecvError>>> {
        loop {
            match std::mem::replace(&mut self.listening, Listening::Closed) {
                Listening::Closed => return Poll::Ready(None),
                Listening::Idle(mut signals) => match signals.try_recv() {
                    Ok(signal) => {
                        self.listening = Listening::Idle(signals);
                        return Poll::Ready(Some(Ok(signal)));
                    }
                    Err(broadcast::error::TryRecvError::Lagged(n)) => {
                        self.listening = Listening::Idle(signals);
                        return Poll::Ready(Some(Err(broadcast::error::RecvError::Lagged(n))));
                    }
                    Err(broadcast::error::TryRecvError::Closed) => return Poll::Ready(None),
                    Err(broadcast::error::TryRecvError::Empty) => self.listening = Listening::Waiting(hear(signals)),
                },
                Listening::Waiting(mut heard) => match heard.as_mut().poll(cx) {
                    Poll::Pending => {
                        self.listening = Listening::Waiting(heard);
                        return Poll::Pending;
                    }
                    Poll::Ready((signal, signals)) => {
                        self.listening = Listening::Idle(signals);
                        return Poll::Ready(Some(signal));
                    }
                },
            }
        }
    }

    /// Adds to `out` what the stream can send now without waiting; false when the stream is over.
    fn gather(&mut self, cx: &mut Context<'_>, out: &mut BytesMut) -> bool {
        while out.len() < WRITE_AT_MOST {
            if let Some(reading) = self.reading.as_mut() {
                let Poll::Ready(page) = reading.as_mut().poll(cx) else {
                    return true;
                };
                self.reading = None;
                if let Some(page) = page {
                    out.extend_from_slice(&page.frames);
                    self.sent = page.last;
                    if page.full {
                        self.read_log();
                    }
                }
                continue;
            }
            let signal = match self.poll_signal(cx) {
                Poll::Pending => return true,
                Poll::Ready(None) => return false,
                Poll::Ready(Some(signal)) => signal,
            };
            match signal {
                Ok(TableSignal::Entry(row)) if row.seq <= self.sent => {}
                Ok(TableSignal::Entry(row)) if row.seq == self.sent + 1 => {
                    match live_entry_frame(&self.following, &row) {
                        Some(frame) => {
                            out.extend_from_slice(&frame);
                            self.sent = row.seq;
                        }
                        None => self.read_log(),
                    }
                }
                // A gap, a lagging buffer or a listener that reconnected: the log has it all.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.read_log(),
                Err(broadcast::error::RecvError::Closed) => return false,
            }
        }
        true
    }
}

impl MessageBody for TableStream {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Infallible>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        // The replica is stopping (the client resumes elsewhere), or the share link lapsed.
        if this.ends.as_mut().poll(cx).is_ready() {
            this.done = true;
            return Poll::Ready(None);
        }
        let mut out = BytesMut::new();
        let going = this.gather(cx, &mut out);
        if !out.is_empty() {
            this.done = !going;
            return Poll::Ready(Some(Ok(out.freeze())));
        }
        if !going {
            this.done = true;
            return Poll::Ready(None);
        }
        if this.heartbeat.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Bytes::from_static(sse::KEEP_ALIVE))));
        }
        Poll::Pending
    }
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
        (status = 429, description = "`too_many_streams`: this client address holds `MAX_STREAMS_PER_CLIENT` live streams already; close one, or retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tables/{id}/events")]
pub async fn stream_table_events(
    place: StreamPlace,
    state: web::Data<State>,
    StreamReader(who): StreamReader,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<ResumeQuery>,
) -> Result<impl Responder, ApiError> {
    let pool = &state.pool;
    let hub = &state.hub;
    let after = resume_point(&req, &query)?;
    service::access::readable_table(pool, who, *id).await?;
    // Followed (leased) before the backlog is read, so nothing committed in between is missed.
    let (signals, row) = hub.follow_table(*id).await?;
    let game = service::game_of(&row)?;
    let following = Following {
        table: row,
        game,
        keys: hub.keys().clone(),
    };
    let ends = Box::pin(ends(pool.clone(), hub, who));
    Ok(TableStream::new(pool.clone(), following, after, signals, ends, place).respond())
}

/// The `data` of a session stream's event: a `table` event's, or a `tournament` event's.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum SessionLine {
    Table(Box<TableLine>),
    Tournament(TournamentChange),
}

/// A `table` event of a session's stream: the change, and the table as it left it.
#[derive(Serialize, ToSchema)]
pub struct TableLine {
    #[serde(flatten)]
    pub change: TableChange,
    /// The table at `version`, as `GET /tables/{id}` answers it: a board redraws its tile from
    /// it rather than reading the table.
    pub table: Option<TableView>,
}

impl From<&TableChange> for TableLine {
    fn from(change: &TableChange) -> TableLine {
        TableLine {
            change: change.clone(),
            table: change.table.as_deref().cloned().map(TableView::from),
        }
    }
}

/// Every table of a session as it changes, as Server-Sent Events: first a `table` event for each
/// table as it is, then one each time a table's log grows (its version, whether it is finished,
/// running totals, and the audit key's `receipt` for its chain's head then, which a board keeps
/// as a phone keeps its answers' receipts). For the club's big screen. Changes of one table may
/// arrive out of order: keep the one with the highest version. A `tournament` event
/// (`TournamentChange`) says a tournament of the session changed (a round started or closed, an
/// entrant came or went): read it again. A board that reconnects reads its tournaments again, as
/// what changed while it was away is not sent.
#[utoipa::path(tag = "live", security(("bearer" = []), ("access_token" = [])), params(("id" = Uuid, Path), AccessTokenQuery), responses(
    (status = 200, description = "an event stream of `table` events (`TableChange`) and `tournament` events (`TournamentChange`)", content_type = "text/event-stream", body = SessionLine),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_streams`: this client address holds `MAX_STREAMS_PER_CLIENT` live streams already; close one, or retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/events")]
pub async fn stream_session_events(
    place: StreamPlace,
    state: web::Data<State>,
    read: ReadPool,
    StreamReader(who): StreamReader,
    id: web::Path<Uuid>,
) -> Result<impl Responder, ApiError> {
    let pool = &state.pool;
    let hub = &state.hub;
    service::access::readable_session(pool, who, *id).await?;
    let mut rx = hub.follow_session(*id).await?;
    // The first picture of every table may come from the standby: a board keeps each table's
    // highest version, and every change after it is announced from the primary.
    let tables = live::session_tables(&read, *id).await?;
    // A line read on the primary is kept by the hub, for the table's next move to be folded
    // onto; one read on the standby may predate a change the hub has heard of (a member
    // anonymised), so it is only sent.
    let keep = read.primary_if_on_standby().is_none();
    let (tx, events) = mpsc::channel(64);
    let closed = ends(pool.clone(), hub, who);
    let pool = read.clone();
    let hub = hub.clone();
    tokio::spawn(async move {
        // Held while the stream lasts: this ends when its body is dropped (`tx.closed()`).
        let _place = place;
        tokio::pin!(closed);
        let send = |change: &TableChange| {
            serde_json::to_string(&TableLine::from(change))
                .ok()
                .map(|json| sse::frame("table", None, &json))
        };
        let send_line = |change: &SessionChange| match change {
            SessionChange::Table(change) => send(change),
            SessionChange::Tournament(change) => serde_json::to_string(change)
                .ok()
                .map(|json| sse::frame("tournament", None, &json)),
        };
        for table in tables {
            let line = if keep {
                hub.table_line(table).await
            } else {
                live::table_change(&pool, hub.keys(), table).await
            };
            match line {
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
                    let Some(event) = send_line(&change) else { return };
                    if tx.send(event).await.is_err() {
                        return;
                    }
                }
                // The lines missed may be a table's last for a while or a round's close, which
                // no later line repeats: end the stream, and the board, reconnecting, gets
                // every table's line afresh and reads its tournaments again.
                Err(broadcast::error::RecvError::Lagged(_)) => return,
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    Ok(sse::respond(sse::Channel::new(events)))
}
