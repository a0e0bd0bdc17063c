//! The phone page: static assets compiled into the binary, served by the API floor at `/`,
//! `/app/…`, `/manifest.webmanifest` and `/sw.js`. The page is a client of the public JSON API like
//! any other; nothing here reads the database or speaks HTTP. The page's code is in `page/`.
//!
//! Each game's page code is one module, `page/app/games/<game id>.js`; the list of them is derived
//! from the one list of games (`all_games!`), so a game cannot be left without its page module
//! (the build fails when the file is missing) and nothing here lists games by hand.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// Only this origin: scripts, styles, images (and `data:` for the QR code), fetches, the worker.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
                   connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; \
                   form-action 'self'; frame-ancestors 'none'; object-src 'none'";

/// An asset: where it is served, its content type and its bytes.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

macro_rules! assets {
    ($($path:literal => $file:literal, $type:literal;)*) => {
        &[$(Asset { path: $path, content_type: $type, body: include_bytes!(concat!("../page/", $file)) }),*]
    };
}

static ASSETS: &[Asset] = assets! {
    "/" => "index.html", "text/html; charset=utf-8";
    "/sw.js" => "sw.js", "text/javascript; charset=utf-8";
    "/manifest.webmanifest" => "manifest.webmanifest", "application/manifest+json";
    "/app/style.css" => "app/style.css", "text/css; charset=utf-8";
    "/app/club.css" => "app/club.css", "text/css; charset=utf-8";
    "/app/icon.svg" => "app/icon.svg", "image/svg+xml";
    "/app/icon-192.png" => "app/icon-192.png", "image/png";
    "/app/icon-512.png" => "app/icon-512.png", "image/png";
    "/app/main.js" => "app/main.js", "text/javascript; charset=utf-8";
    "/app/api.js" => "app/api.js", "text/javascript; charset=utf-8";
    "/app/dom.js" => "app/dom.js", "text/javascript; charset=utf-8";
    "/app/cards.js" => "app/cards.js", "text/javascript; charset=utf-8";
    "/app/legal.js" => "app/legal.js", "text/javascript; charset=utf-8";
    "/app/table.js" => "app/table.js", "text/javascript; charset=utf-8";
    "/app/queue.js" => "app/queue.js", "text/javascript; charset=utf-8";
    "/app/refusals.js" => "app/refusals.js", "text/javascript; charset=utf-8";
    "/app/tricks.js" => "app/tricks.js", "text/javascript; charset=utf-8";
    "/app/entries.js" => "app/entries.js", "text/javascript; charset=utf-8";
    "/app/panels.js" => "app/panels.js", "text/javascript; charset=utf-8";
    "/app/organiser.js" => "app/organiser.js", "text/javascript; charset=utf-8";
    "/app/clubs.js" => "app/clubs.js", "text/javascript; charset=utf-8";
    "/app/members.js" => "app/members.js", "text/javascript; charset=utf-8";
    "/app/board.js" => "app/board.js", "text/javascript; charset=utf-8";
    "/app/catalogue.js" => "app/catalogue.js", "text/javascript; charset=utf-8";
    "/app/controls.js" => "app/controls.js", "text/javascript; charset=utf-8";
    "/app/stops.js" => "app/stops.js", "text/javascript; charset=utf-8";
    "/app/scorers.js" => "app/scorers.js", "text/javascript; charset=utf-8";
    "/app/deals.js" => "app/deals.js", "text/javascript; charset=utf-8";
    "/app/words.js" => "app/words.js", "text/javascript; charset=utf-8";
    "/app/clock.js" => "app/clock.js", "text/javascript; charset=utf-8";
    "/app/rulings.js" => "app/rulings.js", "text/javascript; charset=utf-8";
    "/app/tournaments.js" => "app/tournaments.js", "text/javascript; charset=utf-8";
    "/app/money.js" => "app/money.js", "text/javascript; charset=utf-8";
    "/app/settle.js" => "app/settle.js", "text/javascript; charset=utf-8";
    "/app/qr.js" => "app/qr.js", "text/javascript; charset=utf-8";
    "/app/merkle.js" => "app/merkle.js", "text/javascript; charset=utf-8";
    "/app/witness.js" => "app/witness.js", "text/javascript; charset=utf-8";
    "/app/vendor/qrcode.mjs" => "app/vendor/qrcode.mjs", "text/javascript; charset=utf-8";
};

/// Every game's page module, from the one list of games.
macro_rules! game_assets {
    ({} $($module:ident :: $game:ident = $id:literal),+ $(,)?) => {
        &[$(Asset {
            path: concat!("/app/games/", $id, ".js"),
            content_type: "text/javascript; charset=utf-8",
            body: include_bytes!(concat!("../page/app/games/", $id, ".js")),
        }),+]
    };
}

static GAME_ASSETS: &[Asset] = tablekeeper_rules::all_games!(game_assets {});

/// The page's assets, then the games' page modules.
fn assets() -> impl Iterator<Item = &'static Asset> {
    ASSETS.iter().chain(GAME_ASSETS)
}

/// The asset paths, for the service worker's shell list and tests.
pub fn asset_paths() -> impl Iterator<Item = &'static str> {
    assets().map(|a| a.path)
}

/// What each asset answers (the service worker gets the shell list written in) and its ETag.
fn served() -> &'static [(Vec<u8>, String)] {
    static SERVED: OnceLock<Vec<(Vec<u8>, String)>> = OnceLock::new();
    SERVED.get_or_init(|| {
        let shell: Vec<&str> = asset_paths().filter(|p| *p != "/sw.js").collect();
        let shell = serde_json::to_string(&shell).unwrap_or_else(|_| "[]".into());
        assets()
            .map(|a| {
                let body = if a.path == "/sw.js" {
                    String::from_utf8_lossy(a.body)
                        .replace("[/* SHELL */]", &shell)
                        .into_bytes()
                } else {
                    a.body.to_vec()
                };
                let digest = Sha256::digest(&body);
                let hex = ::hex::encode(&digest[..12]);
                (body, format!("\"{hex}\""))
            })
            .collect()
    })
}

/// A page asset as served: its content type, its bytes (the service worker's with the shell list
/// written in) and its strong ETag.
pub struct Served {
    pub content_type: &'static str,
    pub body: &'static [u8],
    pub etag: &'static str,
}

/// The asset served at `path`, if any.
pub fn asset(path: &str) -> Option<Served> {
    let (index, asset) = assets().enumerate().find(|(_, a)| a.path == path)?;
    let (body, etag) = &served()[index];
    Some(Served {
        content_type: asset.content_type,
        body,
        etag,
    })
}
