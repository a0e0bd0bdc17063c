//! Server-sent events, written one way for every stream: frames of one line of JSON each, the
//! same headers, a comment every [`HEARTBEAT`] so that proxies and phones keep the connection.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, MessageBody};
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::HttpResponse;
use tokio::sync::mpsc;

/// How often an idle stream writes a comment.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// The comment an idle stream writes.
pub const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// An event as a stream writes it: its name, its id when it has one (a client resumes after it
/// with `Last-Event-ID`) and its data. JSON text holds no line break (one in a string is
/// escaped), so the data is one line.
pub fn frame(event: &str, id: Option<i64>, json: &str) -> Bytes {
    Bytes::from(match id {
        Some(id) => format!("event: {event}\nid: {id}\ndata: {json}\n\n"),
        None => format!("event: {event}\ndata: {json}\n\n"),
    })
}

/// The streaming answer: `text/event-stream`, never compressed or cached, and not buffered by a
/// proxy (nginx buffers proxied answers unless told not to; a buffered stream would arrive in
/// lumps).
pub fn respond(body: impl MessageBody + 'static) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(header::ContentEncoding::Identity)
        .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]))
        .insert_header(("X-Accel-Buffering", "no"))
        .body(body)
}

/// A stream whose frames a task sends: it ends when the task drops its sender, and its task sees
/// the client go (`Sender::closed`) when the body is dropped.
pub struct Channel {
    frames: mpsc::Receiver<Bytes>,
    heartbeat: tokio::time::Interval,
}

impl Channel {
    /// A stream of the frames sent to `frames`.
    pub fn new(frames: mpsc::Receiver<Bytes>) -> Channel {
        Channel::beating(frames, HEARTBEAT)
    }

    /// A stream that writes a comment after `period` without a frame. The tests use a short one
    /// in real time: a paused clock would need tokio's `test-util`, and a feature that only a
    /// test turns on splits the workspace's builds in two (the server built for the scripts
    /// would not be the one the tests built: everything above tokio compiled twice in CI).
    fn beating(frames: mpsc::Receiver<Bytes>, period: Duration) -> Channel {
        let mut heartbeat = heartbeat_every(period);
        heartbeat.reset();
        Channel { frames, heartbeat }
    }
}

/// The heartbeat's clock: a missed tick is not made up with a burst.
pub fn heartbeat() -> tokio::time::Interval {
    heartbeat_every(HEARTBEAT)
}

fn heartbeat_every(period: Duration) -> tokio::time::Interval {
    let mut heartbeat = tokio::time::interval(period);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    heartbeat
}

impl MessageBody for Channel {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Infallible>>> {
        let this = self.get_mut();
        match this.frames.poll_recv(cx) {
            Poll::Ready(Some(frame)) => {
                this.heartbeat.reset();
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending if this.heartbeat.poll_tick(cx).is_ready() => {
                Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE))))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_its_name_its_id_when_it_has_one_and_one_line_of_data() {
        assert_eq!(
            &frame("entry", Some(7), r#"{"seq":7}"#)[..],
            b"event: entry\nid: 7\ndata: {\"seq\":7}\n\n"
        );
        assert_eq!(&frame("table", None, "{}")[..], b"event: table\ndata: {}\n\n");
    }

    async fn next(body: &mut Pin<&mut Channel>) -> Option<Result<Bytes, Infallible>> {
        std::future::poll_fn(|cx| body.as_mut().poll_next(cx)).await
    }

    #[tokio::test]
    async fn a_channel_sends_what_it_is_sent_a_comment_when_idle_and_ends_with_its_sender() {
        let (tx, rx) = mpsc::channel(4);
        let mut body = std::pin::pin!(Channel::beating(rx, Duration::from_millis(20)));
        tx.send(frame("table", None, "{}")).await.expect("send");
        let first = next(&mut body).await.expect("a frame").expect("infallible");
        assert_eq!(&first[..], b"event: table\ndata: {}\n\n");
        // Nothing to send for a heartbeat's while: a comment.
        let idle = next(&mut body).await.expect("a comment").expect("infallible");
        assert_eq!(&idle[..], KEEP_ALIVE);
        drop(tx);
        assert!(next(&mut body).await.is_none(), "the stream ends with its sender");
    }
}
