//! The rig of the browser tests (`browser_*.rs`): the phone page in a real headless Chromium
//! (Debian's `chromium-headless-shell`, else `chromium`, through `chromium-driver`, installed by
//! `scripts/test` when missing), at
//! 390×844, driven by its labels as a person would. The browser reaches the app through a small TCP proxy the test can pause, so "the
//! server is unreachable" is real to the page. One browser at a time in a process: the tests take a
//! lock (`scripts/test` runs them in two processes, each with half of them).
//!
//! `SCREENSHOTS=1` (see `scripts/screenshots`) saves the main screens to `docs/screenshots/`.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::helpers::{spawn_app_with, TestApp};

/// One browser at a time in a process (a browser drives more than one of the two cores).
pub(crate) static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub(crate) const UP: u8 = 0;
/// Connections are cut before anything is forwarded.
pub(crate) const DOWN: u8 = 1;
/// Requests reach the server, answers are lost on the way back.
pub(crate) const LOSE_ANSWERS: u8 = 2;
/// Requests reach the server, answers never come back and the connection stays open: a hung
/// request, as flaky Wi-Fi makes them. Once the proxy is up again such a connection is closed,
/// its answer lost (an event stream then reconnects and resumes).
pub(crate) const HANG: u8 = 3;

/// A TCP proxy in front of the test app that the test can pause.
pub(crate) struct Proxy {
    pub(crate) addr: SocketAddr,
    mode: Arc<AtomicU8>,
    /// While set, what the server sends on event streams is held back (not lost), so a page
    /// does not hear of another phone's entry until the test lets it.
    hold_streams: Arc<AtomicBool>,
}

impl Proxy {
    pub(crate) async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy binds");
        let addr = listener.local_addr().expect("proxy address");
        let mode = Arc::new(AtomicU8::new(UP));
        let hold_streams = Arc::new(AtomicBool::new(false));
        let (shared, held) = (mode.clone(), hold_streams.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(pipe(client, upstream, shared.clone(), held.clone()));
            }
        });
        Proxy {
            addr,
            mode,
            hold_streams,
        }
    }

    pub(crate) fn hold_streams(&self, hold: bool) {
        self.hold_streams.store(hold, Ordering::SeqCst);
    }

    pub(crate) fn set(&self, mode: u8) {
        self.mode.store(mode, Ordering::SeqCst);
    }
}

async fn pipe(mut client: TcpStream, upstream: SocketAddr, mode: Arc<AtomicU8>, hold: Arc<AtomicBool>) {
    if mode.load(Ordering::SeqCst) == DOWN {
        return;
    }
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (mut client_read, mut client_write) = client.split();
    let (mut server_read, mut server_write) = server.split();
    let mut up = vec![0u8; 64 * 1024];
    let mut down = vec![0u8; 64 * 1024];
    let mut stream = false;
    let mut held: Vec<u8> = Vec::new();
    let mut hung = false;
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    loop {
        tokio::select! {
            n = client_read.read(&mut up) => {
                let n = n.unwrap_or(0);
                stream |= up[..n].windows(7).any(|w| w == b"/events");
                if n == 0 || mode.load(Ordering::SeqCst) == DOWN || server_write.write_all(&up[..n]).await.is_err() {
                    return;
                }
            }
            n = server_read.read(&mut down) => {
                let n = n.unwrap_or(0);
                match mode.load(Ordering::SeqCst) {
                    _ if n == 0 => return,
                    DOWN | LOSE_ANSWERS => return,
                    HANG => hung = true,
                    _ => held.extend_from_slice(&down[..n]),
                }
            }
            _ = tick.tick() => {}
        }
        if hung && mode.load(Ordering::SeqCst) != HANG {
            return;
        }
        let holding = stream && hold.load(Ordering::SeqCst);
        if !held.is_empty() && !holding {
            if client_write.write_all(&held).await.is_err() {
                return;
            }
            held.clear();
        }
    }
}

/// chromedriver, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    port: u16,
    /// chromedriver's TMPDIR, where it makes each browser's profile: removed with the driver,
    /// which is killed (a test that fails never ends its sessions).
    scratch: std::path::PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// Debian's `chromium-headless-shell` (installed by `scripts/browser-env.sh`), else `chromium`
/// in its headless mode. The shell is Chromium's page engine without the browser around it,
/// made for automation: a window starts in a fifth of the time and renders with less CPU (what
/// the browser tests' share of CI is made of), and it lays a page out as `chromium` does.
const HEADLESS_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";

async fn driver() -> Driver {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("port").port()
    };
    let scratch = std::env::temp_dir().join(format!("tk-chromedriver-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&scratch).expect("chromedriver's scratch directory");
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .env("TMPDIR", &scratch)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver is not installed: run `bash scripts/test` (it installs chromium and chromium-driver)");
    for _ in 0..100 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Driver { child, port, scratch }
}

/// A phone: a browser window at 390×844 on the page.
pub(crate) struct Phone {
    pub(crate) client: Client,
    pub(crate) base: String,
}

impl Driver {
    pub(crate) async fn phone(&mut self, base: &str) -> Phone {
        self.window(base, 390, 844, true).await
    }

    /// A phone's browser window emulating a screen of `width`×`height` CSS pixels.
    pub(crate) async fn phone_sized(&mut self, base: &str, width: u32, height: u32) -> Phone {
        self.window(base, width, height, true).await
    }

    /// A browser window of `width`×`height` CSS pixels (a phone's when `touch`, else a big
    /// screen's) on the page.
    pub(crate) async fn window(&mut self, base: &str, width: u32, height: u32, touch: bool) -> Phone {
        let mut caps = serde_json::Map::new();
        let shell = std::path::Path::new(HEADLESS_SHELL).exists();
        let headless = if shell { "--headless" } else { "--headless=new" };
        // No `--user-data-dir`: the shell then opens no page for chromedriver to find; each
        // browser's profile is made by chromedriver in its scratch directory.
        let mut options = json!({
            "args": [
                headless, "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", format!("--window-size={width},{height}"),
            ],
            // Headless windows are at least 500 px wide: emulate the phone's (or the big) screen.
            "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0, "touch": touch}},
        });
        if shell {
            options["binary"] = HEADLESS_SHELL.into();
        }
        caps.insert("goog:chromeOptions".into(), options);
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("chromedriver session");
        Phone {
            client,
            base: base.to_owned(),
        }
    }
}

pub(crate) const PATIENCE: Duration = Duration::from_secs(15);

/// A button or link whose accessible name (aria-label or text) is `name`.
fn control_xpath(name: &str) -> String {
    format!(
        "//*[(self::button or self::a) and (@aria-label={n} or normalize-space()={n} or substring-after(@aria-label, ', ')={n})]",
        n = lit(name)
    )
}

/// True when a command failed because the element left the page (it was re-rendered).
pub(crate) fn is_stale(e: &fantoccini::error::CmdError) -> bool {
    matches!(e, fantoccini::error::CmdError::Standard(w) if w.error == fantoccini::error::ErrorStatus::StaleElementReference)
}

/// True when a command failed because the element cannot be edited just now (disabled or
/// read-only while the page waits on an answer).
pub(crate) fn is_held(e: &fantoccini::error::CmdError) -> bool {
    // Not editable, or for a moment not interactable (under an inert panel being redrawn, as a
    // loaded CI machine once caught the ruling form's comment box).
    matches!(e, fantoccini::error::CmdError::Standard(w)
        if w.error == fantoccini::error::ErrorStatus::InvalidElementState
            || w.error == fantoccini::error::ErrorStatus::ElementNotInteractable)
}

/// An XPath string literal for any text.
pub(crate) fn lit(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    let parts: Vec<String> = text.split('\'').map(|p| format!("'{p}'")).collect();
    format!("concat({})", parts.join(", \"'\", "))
}

impl Phone {
    pub(crate) async fn open(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .expect("page opens");
    }

    /// A button or link by its accessible name (aria-label or text), once it is there.
    pub(crate) async fn control(&self, name: &str) -> Element {
        let xpath = control_xpath(name);
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if let Ok(el) = self.client.find(Locator::XPath(&xpath)).await {
                return el;
            }
            if tokio::time::Instant::now() > deadline {
                let body = self.body_text().await;
                panic!("no control named {name:?} on the page:\n{body}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether a control named `name` is on the page now and can take a tap (enabled, not in
    /// held controls). No waiting: for what must not be offered.
    pub(crate) async fn offers(&self, name: &str) -> bool {
        let Ok(el) = self.client.find(Locator::XPath(&control_xpath(name))).await else {
            return false;
        };
        let enabled = el.is_enabled().await.unwrap_or(false);
        enabled && !self.is_held(&el).await.unwrap_or(true)
    }

    /// Taps the control `name` if the page still offers it; false when it does not (the page
    /// got there by itself, e.g. sent its queue when the connection returned).
    pub(crate) async fn tap_if_offered(&self, name: &str) -> bool {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let Ok(el) = self.client.find(Locator::XPath(&control_xpath(name))).await else {
                return false;
            };
            match self.try_tap(&el).await {
                Ok(true) => return true,
                Ok(false) => assert!(tokio::time::Instant::now() < deadline, "{name:?} stayed disabled"),
                Err(e) if is_stale(&e) => {}
                Err(e) => panic!("tapping {name:?}: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) async fn tap(&self, name: &str) {
        // The page re-renders when the table's stream says something: a control found just
        // before may be replaced before it is tapped. Find it again then.
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let el = self.control(name).await;
            match self.try_tap(&el).await {
                Ok(enabled) => {
                    assert!(enabled, "{name:?} is disabled");
                    return;
                }
                Err(e) if is_stale(&e) && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("tapping {name:?}: {e}"),
            }
        }
    }

    /// Taps `el` when it is enabled; false when it is disabled.
    pub(crate) async fn try_tap(&self, el: &Element) -> Result<bool, fantoccini::error::CmdError> {
        if !el.is_enabled().await? {
            return Ok(false);
        }
        // Held controls (another phone's entry just arrived) take no tap: a person waits until
        // the page offers the next choice.
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while self.is_held(el).await? {
            assert!(tokio::time::Instant::now() < deadline, "the controls stayed held");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // As a thumb would: scroll it into the middle of the screen (clear of the sticky tabs).
        self.client
            .execute(
                "arguments[0].scrollIntoView({block: 'center'})",
                vec![serde_json::to_value(el).expect("element")],
            )
            .await?;
        el.click().await?;
        Ok(true)
    }

    /// True while `el` is inside controls the page holds (inert).
    pub(crate) async fn is_held(&self, el: &Element) -> Result<bool, fantoccini::error::CmdError> {
        let held = self
            .client
            .execute(
                "return Boolean(arguments[0].closest('[inert]'))",
                vec![serde_json::to_value(el).expect("element")],
            )
            .await?;
        Ok(held.as_bool().unwrap_or(false))
    }

    /// Taps a control that records an entry and waits for the table to move on.
    pub(crate) async fn record(&self, name: &str) {
        let before = self.version().await;
        self.tap(name).await;
        self.wait_for_version(before + 1).await;
    }

    pub(crate) async fn enabled(&self, name: &str) -> bool {
        loop {
            match self.control(name).await.is_enabled().await {
                Ok(enabled) => return enabled,
                Err(e) if is_stale(&e) => tokio::time::sleep(Duration::from_millis(50)).await,
                Err(e) => panic!("is {name:?} enabled: {e}"),
            }
        }
    }

    /// Types into the field a label names; for a group of buttons that label names (number
    /// buttons, seat buttons), taps the one showing `value`; for a tens-and-units pad, taps the
    /// sign (when it has one), the tens and the units that make `value`; for a cell of a keypad
    /// (several numbers on one set of keys), taps the cell unless it is the one chosen already,
    /// then the keys, as for a pad.
    pub(crate) async fn fill(&self, label: &str, value: &str) {
        // A keypad's cell is named by what it shows, then its label ("20, Ann cards won").
        let cell = format!(
            "//button[@data-cell and (@aria-label={n} or substring-after(@aria-label, ', ')={n})]",
            n = lit(label)
        );
        let xpath = format!(
            "//*[(self::input or self::select or self::textarea) and (@id=//label[normalize-space()={n}]/@for or @aria-label={n})] \
             | //*[@role='radiogroup' and @aria-label={n}] | //*[@role='group' and @data-pad='tens' and @aria-label={n}] \
             | //button[@data-cell and (@aria-label={n} or substring-after(@aria-label, ', ')={n})]",
            n = lit(label)
        );
        // What kind of field it is decides how to fill it: read on an element that is still on
        // the page (one redrawn between finding and asking is found again), never guessed.
        let (el, role) = loop {
            let el = self.wait_for(&xpath, label).await;
            match (el.attr("role").await, el.attr("data-cell").await) {
                (Ok(_), Ok(Some(_))) => return self.fill_cell(&cell, label, value).await,
                (Ok(role), Ok(None)) => break (el, role),
                (Err(e), _) | (_, Err(e)) if is_stale(&e) => tokio::time::sleep(Duration::from_millis(50)).await,
                (Err(e), _) | (_, Err(e)) => panic!("the role of {label:?}: {e}"),
            }
        };
        if role.as_deref() == Some("group") {
            let n: i64 = value
                .parse()
                .unwrap_or_else(|_| panic!("{label}: {value} is not a number"));
            let sign = format!("{label} sign");
            let has_sign = el
                .find(Locator::XPath(&format!(".//*[@aria-label={}]", lit(&sign))))
                .await
                .is_ok();
            let mut keys = Vec::new();
            if has_sign {
                keys.push((sign, if n < 0 { "minus" } else { "plus" }.to_owned(), true));
            }
            let abs = n.abs();
            keys.push((format!("{label} tens"), (abs / 10 * 10).to_string(), false));
            keys.push((format!("{label} units"), (abs % 10).to_string(), false));
            for (row, key, named) in keys {
                let at = if named { "@aria-label" } else { "normalize-space()" };
                let path = format!(
                    "({xpath})//*[@aria-label={r}]//button[{at}={k}]",
                    r = lit(&row),
                    k = lit(&key)
                );
                self.tap_found(&path, &format!("{row}: {key}")).await;
            }
            return;
        }
        if role.as_deref() == Some("radiogroup") {
            let key = format!("({xpath})//button[normalize-space()={v}]", v = lit(value));
            self.tap_found(&key, &format!("{label}: {value}")).await;
            return;
        }
        // The page may redraw the field between finding and typing (the table's stream said
        // something): find it again then, as for a tap.
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let mut el = el;
        loop {
            let typed = match el.clear().await {
                Ok(()) => el.send_keys(value).await,
                Err(e) => Err(e),
            };
            match typed {
                Ok(()) => return,
                // Stale (redrawn), or for a moment not editable (a form held while its last
                // answer is on its way): find it again and retry.
                Err(e) if (is_stale(&e) || is_held(&e)) && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    el = self.wait_for(&xpath, label).await;
                }
                Err(e) => panic!("typing into {label:?}: {e}"),
            }
        }
    }

    /// A keypad's cell: chosen (one tap, unless it is already), then its value tapped on the
    /// keypad below it: one key, or the sign (when there is one), the tens and the units.
    async fn fill_cell(&self, cell: &str, label: &str, value: &str) {
        let n: i64 = value
            .parse()
            .unwrap_or_else(|_| panic!("{label}: {value} is not a number"));
        let chosen = loop {
            let el = self.wait_for(cell, label).await;
            match el.attr("aria-pressed").await {
                Ok(p) => break p.as_deref() == Some("true"),
                Err(e) if is_stale(&e) => tokio::time::sleep(Duration::from_millis(50)).await,
                Err(e) => panic!("is {label:?} chosen: {e}"),
            }
        };
        if !chosen {
            self.tap_found(cell, label).await;
        }
        let pad = format!("({cell})/ancestor::*[contains(@class, 'keypad-fields')][1]//*[@data-keypad]");
        let tens = self
            .client
            .find(Locator::XPath(&format!("{pad}[@data-keypad='tens']")))
            .await
            .is_ok();
        let mut keys = Vec::new();
        if tens {
            let signed = self
                .client
                .find(Locator::XPath(&format!("{pad}//button[@data-sign]")))
                .await
                .is_ok();
            if signed {
                keys.push(format!(
                    "{pad}//button[@data-sign={}]",
                    lit(if n < 0 { "−" } else { "+" })
                ));
            }
            keys.push(format!("{pad}//button[@data-tens='{}']", n.abs() / 10 * 10));
            keys.push(format!("{pad}//button[@data-units='{}']", n.abs() % 10));
        } else {
            keys.push(format!("{pad}//button[@data-value='{n}']"));
        }
        for key in keys {
            self.tap_found(&key, &format!("{label}: {value}")).await;
        }
    }

    /// The element `xpath` finds, once it is there.
    async fn wait_for(&self, xpath: &str, what: &str) -> Element {
        self.client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::XPath(xpath))
            .await
            .unwrap_or_else(|_| panic!("no {what} on the page"))
    }

    /// Taps the button `xpath` finds, finding it again when the page redrew it meanwhile.
    async fn tap_found(&self, xpath: &str, what: &str) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let button = self.wait_for(xpath, what).await;
            match self.try_tap(&button).await {
                Ok(enabled) => {
                    assert!(enabled, "{what} is disabled");
                    return;
                }
                Err(e) if is_stale(&e) && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("tapping {what}: {e}"),
            }
        }
    }

    pub(crate) async fn body_text(&self) -> String {
        match self.client.find(Locator::Css("body")).await {
            Ok(body) => body.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    pub(crate) async fn wait_for_text(&self, text: &str) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let body = self.body_text().await;
            if body.contains(text) {
                return;
            }
            if tokio::time::Instant::now() > deadline {
                panic!("{text:?} never appeared; the page says:\n{body}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the page's address satisfies `ok` (a tap that navigates may leave the old page
    /// up for a moment, with the text the next page shows too), and returns it.
    pub(crate) async fn wait_for_address(&self, what: &str, ok: impl Fn(&url::Url) -> bool) -> url::Url {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let address = self.client.current_url().await.expect("address");
            if ok(&address) {
                return address;
            }
            if tokio::time::Instant::now() > deadline {
                panic!("the address never became {what}: {address}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// From now on, counts the page's reads of a table (`GET /tables/{id}`; its log, scores and
    /// proofs are other addresses): [`Phone::table_reads`] says how many.
    pub(crate) async fn count_table_reads(&self) {
        self.client
            .execute(
                r"window.tableReads = 0;
                  const fetched = window.fetch;
                  window.fetch = function (input, init) {
                    const url = String((input && input.url) || input);
                    if (/\/api\/v1\/tables\/[0-9a-f-]{36}(\?|$)/.test(url)) window.tableReads += 1;
                    return fetched.apply(this, arguments);
                  };",
                vec![],
            )
            .await
            .expect("counting");
    }

    /// How many times the page read a table since [`Phone::count_table_reads`].
    pub(crate) async fn table_reads(&self) -> i64 {
        let reads = self
            .client
            .execute("return window.tableReads", vec![])
            .await
            .expect("the count");
        reads.as_i64().expect("counting")
    }

    /// The table version the page shows (its header's data-version).
    pub(crate) async fn version(&self) -> i64 {
        let el = self
            .client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css("[data-version]"))
            .await
            .expect("a table on the page");
        el.attr("data-version")
            .await
            .ok()
            .flatten()
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1)
    }

    pub(crate) async fn wait_for_version(&self, at_least: i64) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while self.version().await < at_least {
            if tokio::time::Instant::now() > deadline {
                panic!(
                    "the table never reached version {at_least}:\n{}",
                    self.body_text().await
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The requests the page holds in its offline queue for `table`, oldest first.
    pub(crate) async fn queued(&self, table: &str) -> Value {
        self.client
            .execute(
                "return JSON.parse(localStorage.getItem(arguments[0]))",
                vec![json!(format!("tk.queue.{table}"))],
            )
            .await
            .expect("the queue")
    }

    /// The running totals the seats show.
    /// The seats' totals as the page shows them, once every seat shows one: the page fills them
    /// in when the table's scores arrive, which may be a moment after the seats are drawn (a seat
    /// without one reads as `i64::MIN`, so a page that never shows it fails the caller's check).
    pub(crate) async fn totals(&self) -> Vec<i64> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let mut out = Vec::new();
            for el in self.client.find_all(Locator::Css(".seat-total")).await.expect("seats") {
                out.push(
                    el.attr("data-total")
                        .await
                        .ok()
                        .flatten()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(i64::MIN),
                );
            }
            let shown = !out.is_empty() && !out.contains(&i64::MIN);
            if shown || tokio::time::Instant::now() >= deadline {
                return out;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub(crate) async fn screenshot(&self, name: &str) {
        if std::env::var_os("SCREENSHOTS").is_none() {
            return;
        }
        let png = self.client.screenshot().await.expect("screenshot");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots");
        std::fs::create_dir_all(&dir).expect("screenshot folder");
        std::fs::write(dir.join(format!("{name}.png")), png).expect("screenshot saved");
    }

    pub(crate) async fn close(self) {
        let _ = self.client.close().await;
    }
}

pub(crate) struct Rig {
    pub(crate) app: TestApp,
    pub(crate) proxy: Proxy,
    pub(crate) driver: Driver,
    pub(crate) organiser: String,
}

pub(crate) async fn rig(pool: PgPool) -> Rig {
    rig_with(pool, |_| {}).await
}

/// A rig whose server has settings of its own (e.g. `PUBLIC_URL`).
pub(crate) async fn rig_with(pool: PgPool, adjust: impl FnOnce(&mut tablekeeper::config::Settings)) -> Rig {
    let app = spawn_app_with(pool, adjust).await;
    let upstream: SocketAddr = app.base.trim_start_matches("http://").parse().expect("app address");
    let proxy = Proxy::start(upstream).await;
    let driver = driver().await;
    let organiser = app.organiser_named("org@example.com", "Olive").await;
    Rig {
        app,
        proxy,
        driver,
        organiser,
    }
}

impl Rig {
    pub(crate) async fn phone(&mut self) -> Phone {
        let base = format!("http://{}", self.proxy.addr);
        self.driver.phone(&base).await
    }

    /// A phone with a screen of `width`×`height` CSS pixels.
    pub(crate) async fn phone_sized(&mut self, width: u32, height: u32) -> Phone {
        let base = format!("http://{}", self.proxy.addr);
        self.driver.phone_sized(&base, width, height).await
    }

    /// A Nomination Whist table of Ann, Bob, Cat and Dan with `options`: most tests' table.
    pub(crate) async fn whist(&self, options: serde_json::Value) -> String {
        self.app
            .table(&self.organiser, &["Ann", "Bob", "Cat", "Dan"], options)
            .await
    }

    /// A Nomination Whist table of `players` with `options`, opened in `session`.
    pub(crate) async fn session_whist(&self, session: &str, players: [&str; 4], options: serde_json::Value) -> String {
        let body = serde_json::json!({"game": "nomination-whist", "players": players, "session_id": session,
            "options": options});
        self.app
            .post("/api/v1/tables", &self.organiser, body)
            .await
            .assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    pub(crate) async fn join_code(&self, table: &str) -> String {
        self.app
            .post(
                &format!("/api/v1/tables/{table}/join-codes"),
                &self.organiser,
                json!({}),
            )
            .await
            .assert_status(201)["code"]
            .as_str()
            .expect("code")
            .to_owned()
    }

    /// A phone that joined the table by its code, as "Ann's phone".
    pub(crate) async fn scorer(&mut self, table: &str) -> Phone {
        self.scorer_named(table, "Ann's phone").await
    }

    /// A phone that joined the table by its code under `name`.
    pub(crate) async fn scorer_named(&mut self, table: &str, name: &str) -> Phone {
        self.scorer_sized(table, name, 390, 844).await
    }

    /// A phone with a `width`×`height` screen that joined the table by its code under `name`.
    pub(crate) async fn scorer_sized(&mut self, table: &str, name: &str, width: u32, height: u32) -> Phone {
        let code = self.join_code(table).await;
        let phone = self.phone_sized(width, height).await;
        phone.open("/").await;
        phone.fill("Join code", &code).await;
        phone.fill("This phone's name", name).await;
        phone.tap("Join").await;
        phone.version().await;
        phone
    }

    /// A share link of `session` (read-only, as the big screen opens it): its token.
    pub(crate) async fn share_link(&self, session: &str) -> String {
        self.app
            .post(
                &format!("/api/v1/sessions/{session}/share-links"),
                &self.organiser,
                json!({}),
            )
            .await
            .assert_status(201)["token"]
            .as_str()
            .expect("token")
            .to_owned()
    }

    pub(crate) async fn totals(&self, table: &str) -> Vec<i64> {
        let sheet = &self.app.scores(table).await["sheet"];
        let totals = if sheet["totals"].is_array() {
            &sheet["totals"]
        } else {
            &sheet["chips"]
        };
        totals
            .as_array()
            .expect("totals")
            .iter()
            .map(|v| v.as_i64().expect("number"))
            .collect()
    }

    pub(crate) async fn log_len(&self, table: &str) -> usize {
        self.app.log(table).await.as_array().expect("log").len()
    }
}

pub(crate) fn seat_name(seat: usize) -> &'static str {
    ["Ann", "Bob", "Cat", "Dan"][seat]
}
