//! The HTTP API under `/api/v1`: handlers, request and response types, auth and errors.
//!
//! Invariants: this layer only translates HTTP. A handler parses the path, query, headers and
//! body, calls a use case of `tablekeeper_service` (or, for a plain listing, a store read), and
//! renders the result; transactions, the engine and the ledger are the use cases' business.
//! Errors become problem+json in `error` alone. Modules depend on `auth`, `error`, `input`,
//! `export` and `game_schemas`, which depend on none of the others; beyond those, `accounts` uses `limits`,
//! `sessions` names `tables::TableSummary`, `tokens` reads `sessions::PageQuery` and `tables`'
//! idempotency helpers, `tournaments` reads `tables`' idempotency helpers and `export`, `share_links` reads `sessions::PageQuery`,
//! `openapi` lists every handler and `methods` reads the routes from `openapi`'s spec, so no two
//! modules depend on each other.

pub mod accounts;
pub mod answers;
pub mod auth;
pub mod authorization;
pub mod bundle;
pub mod changes;
pub mod clubs;
pub mod conditional;
pub mod connections;
pub mod contract;
pub mod deadlines;
pub mod deals;
pub mod documented;
pub mod error;
pub mod events;
pub mod examples;
pub mod export;
pub mod flags;
pub mod game_schemas;
pub mod games;
pub mod health;
pub mod input;
pub mod join_codes;
pub mod ledger;
pub mod limits;
pub mod methods;
pub mod metrics;
pub mod middleware;
pub mod names;
pub mod openapi;
pub mod page;
pub mod problems;
pub mod reads;
pub mod rulings;
pub mod seasons;
pub mod seating;
pub mod sessions;
pub mod share_links;
pub mod sheets;
pub mod sse;
pub mod tables;
pub mod tokens;
pub mod tournaments;
pub mod webhook_payloads;
pub mod webhooks;
pub mod witness;

// The application's state: everything a request may need, built once at start-up and handed to
// [`routes`] with the routes themselves, so that no handler, extractor or middleware can ask for a
// piece that was never registered. Handlers take it as `web::Data<State>`; extractors and
// middleware read it with [`State::of`]. It lives here, at the root, because most modules read it
// and it holds most modules' types.
use std::sync::Arc;
use std::time::Duration;

use actix_web::{web, HttpRequest};
use tablekeeper_service::hot::HotStates;
use tablekeeper_service::live::Hub;
use tablekeeper_service::reads::Reads;
use tablekeeper_service::receipts::AuditKeys;
use tablekeeper_service::recording::MoveBatcher;
use tablekeeper_service::webhooks::DeliverySettings;
use tablekeeper_service::PgPool;

use self::auth::Tokens;
use self::connections::StreamCap;
use self::deadlines::{ClientCap, DatabaseWatch, Deadlines};
use self::error::ApiError;
use self::limits::AuthLimiter;
use self::metrics::Metrics;

/// What the service runs with, one per replica, shared by its workers.
pub struct State {
    /// The primary's pool: every write and every read that must see the latest write.
    pub pool: PgPool,
    /// Where a read goes: the primary, or the standby (`DATABASE_READ_URL`) when the caller
    /// wrote nothing lately.
    pub reads: Reads,
    /// Signs and checks the service's own bearer tokens (`JWT_SECRET`).
    pub tokens: Tokens,
    /// The audit key that signs receipts and bundles.
    pub keys: Arc<AuditKeys>,
    /// This replica's live streams.
    pub hub: Arc<Hub>,
    /// The latest state of tables recorded on lately (`HOT_TABLES`).
    pub hot: Arc<HotStates>,
    /// Gathers plain moves of many tables into one statement (`BATCH_MOVES`); None when off.
    pub batcher: Option<MoveBatcher>,
    /// How long an answer kept under an idempotency key answers a retry.
    pub answers_kept_for: Duration,
    /// Announce a move and queue its webhooks in statements of their own (`ANNOUNCE_APART`).
    pub announce_apart: bool,
    /// The address clients reach the service at (`PUBLIC_URL`), for links it hands out.
    pub public_url: Option<String>,
    /// How webhooks are delivered (checked when an endpoint is registered).
    pub webhooks: DeliverySettings,
    /// Sign-in attempts per address.
    pub limiter: AuthLimiter,
    /// How long a request may take at each stage.
    pub deadlines: Deadlines,
    /// Whether the database answers (a frozen one is 503 at once).
    pub database_watch: DatabaseWatch,
    /// Requests in flight per client address.
    pub client_cap: ClientCap,
    /// Live streams per client address.
    pub stream_cap: StreamCap,
    /// The service's own metrics.
    pub metrics: Metrics,
    /// What time it is for the use cases that compare against one (a session's correction
    /// window): the system's, which a test moves on rather than sleeping.
    pub clock: tablekeeper_service::clock::Clock,
}

impl State {
    /// The state the routes were registered with.
    ///
    /// # Errors
    /// `internal` when asked outside the routes [`routes`] registered, which would be a
    /// wiring mistake of this crate, never a client's.
    pub fn of(req: &HttpRequest) -> Result<&State, ApiError> {
        req.app_data::<web::Data<State>>()
            .map(|state| state.get_ref())
            .ok_or_else(ApiError::internal)
    }
}

/// Registers every route with the state they run with: the one place it is registered, so a
/// handler never asks for state that is not there.
pub fn routes(state: web::Data<State>) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(state);
        api_v1(cfg);
    }
}

fn api_v1(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api/v1")
            .service(accounts::register)
            .service(accounts::login)
            .service(accounts::join)
            .service(accounts::logout)
            .service(accounts::logout_everywhere)
            .service(accounts::change_password)
            .service(tokens::create_api_token)
            .service(tokens::list_api_tokens)
            .service(tokens::revoke_api_token)
            .service(games::list_games)
            .service(clubs::create_club)
            .service(clubs::list_clubs)
            .service(clubs::join_club)
            .service(clubs::get_club)
            .service(clubs::create_invitation)
            .service(clubs::list_invitations)
            .service(clubs::withdraw_invitation)
            .service(clubs::list_club_members)
            .service(clubs::add_club_member)
            .service(clubs::update_club_member)
            .service(clubs::anonymise_club_member)
            .service(clubs::reset_member_password)
            .service(sessions::create_session)
            .service(sessions::list_sessions)
            .service(sessions::get_session)
            .service(sessions::update_session)
            .service(sessions::get_session_standings)
            .service(sessions::get_session_settlement)
            .service(sessions::close_session)
            .service(sessions::reopen_session)
            .service(sessions::get_session_final)
            .service(sessions::get_table_closing)
            .service(sessions::get_correction_window)
            .service(tournaments::get_club_leftover)
            .service(tournaments::set_club_leftover)
            .service(sessions::set_correction_window)
            .service(tournaments::create_tournament)
            .service(tournaments::list_tournaments)
            .service(tournaments::get_tournament)
            .service(tournaments::start_round)
            .service(tournaments::close_round)
            .service(tournaments::add_entrant)
            .service(tournaments::withdraw_entrant)
            .service(tournaments::get_guide_card)
            .service(tournaments::get_next_round)
            .service(tournaments::get_tournament_results_csv)
            .service(sheets::get_tournament_results_pdf)
            .service(tournaments::get_tournament_results)
            .service(seasons::create_season)
            .service(seasons::list_seasons)
            .service(seasons::get_season_standings)
            .service(seasons::get_season_standings_csv)
            .service(seasons::audit_season)
            .service(seasons::get_member_history)
            .service(share_links::create_share_link)
            .service(share_links::list_share_links)
            .service(share_links::revoke_share_link)
            .service(webhooks::create_webhook)
            .service(webhooks::list_webhooks)
            .service(webhooks::delete_webhook)
            .service(webhooks::list_webhook_deliveries)
            .service(webhooks::redeliver_webhook_delivery)
            .service(bundle::get_audit_bundle)
            .service(bundle::get_audit_key)
            .service(tables::create_table)
            .service(tables::list_tables)
            .service(tables::get_table)
            .service(tables::submit_move)
            .service(tables::list_moves)
            .service(witness::get_move_proof)
            .service(witness::get_table_checkpoint)
            .service(witness::get_table_consistency)
            .service(witness::get_cosigned_checkpoint)
            .service(witness::register_phone_key)
            .service(witness::submit_cosignature)
            .service(witness::submit_board_cosignature)
            .service(witness::register_board_key)
            .service(tables::undo_move)
            .service(tables::get_scores)
            .service(tables::get_trick_plan)
            .service(tables::get_scores_csv)
            .service(join_codes::create_join_code)
            .service(deals::list_deals)
            .service(join_codes::list_join_codes)
            .service(join_codes::withdraw_join_code)
            .service(deals::get_deal)
            .service(deals::correct_deal)
            .service(deals::preview_correction)
            .service(deals::verify_deal)
            .service(rulings::create_ruling)
            .service(rulings::list_rulings)
            .service(rulings::get_ruling)
            .service(rulings::answer_ruling)
            .service(deals::list_scorers)
            .service(deals::revoke_scorer)
            .service(ledger::get_table_ledger)
            .service(ledger::get_table_ledger_csv)
            .service(ledger::audit_table)
            .service(ledger::get_session_ledger)
            .service(ledger::get_session_ledger_csv)
            .service(changes::list_session_changes)
            .service(changes::get_session_changes_csv)
            .service(flags::list_session_flags)
            .service(events::stream_table_events)
            .service(events::stream_session_events)
            .service(health::healthz)
            .service(health::readyz)
            .service(health::get_server_info),
    );
}
