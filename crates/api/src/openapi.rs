//! The OpenAPI 3.1 document, generated from the handlers and types.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::game_schemas::{AnyEvent, AnyMove, AnyOptions, AnyScoreSheet, AnyView, CorrectionMove};

/// Handlers are declared relative to the `/api/v1` scope; the spec names full paths.
struct UnderApiV1;

impl Modify for UnderApiV1 {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let paths = std::mem::take(&mut openapi.paths.paths);
        openapi.paths.paths = paths
            .into_iter()
            .map(|(path, item)| (format!("/api/v1{path}"), item))
            .collect();
    }
}

/// Lists every rule-violation code on the move endpoint's 422 answer, from the engine itself.
struct RuleCodes;

impl Modify for RuleCodes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        let codes: Vec<String> = tablekeeper_rules::RuleViolation::CODES
            .iter()
            .map(|c| format!("`{c}`"))
            .collect();
        let description = format!(
            "A move the rules refuse, with one of the codes {}; or a body that does not fit the game's \
             moves: `unknown_card`, `unknown_field`, `unknown_variant`, `invalid_body`; or \
             `idempotency_key_reused`. (`game_finished`, `trick_out_of_order`, `chips_out_of_range` and `deal_limit` conflict with the table's \
             state and answer 409.)",
            codes.join(", ")
        );
        let operation = openapi
            .paths
            .paths
            .get_mut("/api/v1/tables/{id}/moves")
            .and_then(|item| item.post.as_mut());
        if let Some(RefOr::T(response)) = operation.and_then(|op| op.responses.responses.get_mut("422")) {
            response.description = description;
        }
    }
}

/// Answers every operation can give: 500 for anything unexpected, 503 when the database does not
/// answer in time, and for those with a JSON body 400 (`malformed_json`) and 415
/// (`unsupported_media_type`).
struct CommonErrors;

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::header::HeaderBuilder;
        use utoipa::openapi::path::ParameterIn;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let problem = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/problem+json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("Problem")))
                        .build(),
                )
                .build()
        };
        let mut unavailable = problem(
            "`database_unavailable`: no database connection or answer in time; nothing was changed, \
             retry after `Retry-After` seconds",
        );
        unavailable.headers.insert(
            "Retry-After".into(),
            HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
                .description(Some("seconds to wait before retrying"))
                .build(),
        );
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ];
            for operation in operations.into_iter().flatten() {
                let responses = &mut operation.responses.responses;
                if operation.request_body.is_some() {
                    responses
                        .entry("400".into())
                        .or_insert_with(|| problem("`malformed_json`: the body is not JSON").into());
                    responses.entry("415".into()).or_insert_with(|| {
                        problem("`unsupported_media_type`: the body is not sent as application/json").into()
                    });
                    responses.entry("422".into()).or_insert_with(|| {
                        problem("`unknown_field`, `invalid_body`: the body does not fit the schema").into()
                    });
                }
                let queried = operation
                    .parameters
                    .iter()
                    .flatten()
                    .any(|p| p.parameter_in == ParameterIn::Query);
                if queried {
                    responses.entry("400".into()).or_insert_with(|| {
                        problem("`invalid_query`: a query parameter is unknown or out of range").into()
                    });
                }
                // Anything an account's token may do, a personal API token may be refused for
                // lack of a scope (or for acting beyond its one club's account-wide business).
                let bearer = operation
                    .security
                    .as_ref()
                    .and_then(|s| serde_json::to_string(s).ok())
                    .is_some_and(|s| s.contains("\"bearer\""));
                if bearer {
                    const TOKEN_SCOPE: &str =
                        "`token_scope`: a personal API token without the scope this needs, or one used for what only a password's token does";
                    match responses.get_mut("403") {
                        Some(utoipa::openapi::RefOr::T(response)) => {
                            if !response.description.contains("token_scope") {
                                response.description = format!("{}; {TOKEN_SCOPE}", response.description);
                            }
                        }
                        Some(utoipa::openapi::RefOr::Ref(_)) => {}
                        None => {
                            responses.insert("403".into(), problem(TOKEN_SCOPE).into());
                        }
                    }
                }
                // RFC 9110: every 401 names the scheme that would let the caller in.
                if let Some(utoipa::openapi::RefOr::T(response)) = responses.get_mut("401") {
                    response.headers.insert(
                        "WWW-Authenticate".into(),
                        HeaderBuilder::new()
                            .schema(ObjectBuilder::new().schema_type(Type::String))
                            .description(Some(
                                "`Bearer realm=\"tablekeeper\"`, with `error=\"invalid_token\"` (RFC 6750) when a \
                                 token was sent but is not (or no longer) good",
                            ))
                            .build(),
                    );
                }
                responses
                    .entry("500".into())
                    .or_insert_with(|| problem("`internal_error`: a fault on the server's side, logged").into());
                responses
                    .entry("503".into())
                    .or_insert_with(|| unavailable.clone().into());
            }
        }
    }
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "An account's token from /auth/register or /auth/login, a personal API token (`tk_…`, \
from POST /tokens: one club, some scopes), a scorer token from /auth/join, or a session's share link token \
(which only reads).",
                    ))
                    .build(),
            ),
        );
        // EventSource cannot send headers: the live streams take the same token in the query.
        components.add_security_scheme(
            "access_token",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "access_token",
                "The bearer token, for the live streams only (EventSource cannot send Authorization).",
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "tablekeeper",
        description = "Scoring and table management for card clubs: record a game from a phone, have \
every move checked by the rules engine, read scores and chip payouts.\n\n\
Errors are `application/problem+json` (RFC 9457) with a stable `code`. Seats are 0-based, in the \
order the players were named; play passes to the next seat. Cards are written rank then suit: \
`QS`, `10H`, `A♠`.",
        contact(name = "the operator of this server"),
        // No `license(…)`: utoipa then takes Cargo.toml's SPDX expression as both the name and
        // `identifier`, which OpenAPI 3.1 validators (openapi-generator's) require.
    ),
    servers((url = "/", description = "this server")),
    paths(
        super::accounts::register,
        super::accounts::login,
        super::accounts::join,
        super::accounts::logout,
        super::accounts::logout_everywhere,
        super::accounts::change_password,
        super::tokens::create_api_token,
        super::tokens::list_api_tokens,
        super::tokens::revoke_api_token,
        super::games::list_games,
        super::clubs::create_club,
        super::clubs::list_clubs,
        super::clubs::join_club,
        super::clubs::get_club,
        super::clubs::create_invitation,
        super::clubs::list_invitations,
        super::clubs::withdraw_invitation,
        super::clubs::list_club_members,
        super::clubs::add_club_member,
        super::clubs::update_club_member,
        super::clubs::anonymise_club_member,
        super::clubs::reset_member_password,
        super::sessions::create_session,
        super::sessions::list_sessions,
        super::sessions::get_session,
        super::sessions::update_session,
        super::sessions::get_session_standings,
        super::sessions::get_session_settlement,
        super::sessions::close_session,
        super::sessions::reopen_session,
        super::sessions::get_session_final,
        super::sessions::get_table_closing,
        super::sessions::get_correction_window,
        super::tournaments::get_club_leftover,
        super::tournaments::set_club_leftover,
        super::sessions::set_correction_window,
        super::tournaments::create_tournament,
        super::tournaments::list_tournaments,
        super::tournaments::get_tournament,
        super::tournaments::start_round,
        super::tournaments::close_round,
        super::tournaments::add_entrant,
        super::tournaments::withdraw_entrant,
        super::tournaments::get_guide_card,
        super::tournaments::get_next_round,
        super::tournaments::get_tournament_results,
        super::tournaments::get_tournament_results_csv,
        super::sheets::get_tournament_results_pdf,
        super::seasons::create_season,
        super::seasons::list_seasons,
        super::seasons::get_season_standings,
        super::seasons::get_season_standings_csv,
        super::seasons::audit_season,
        super::seasons::get_member_history,
        super::share_links::create_share_link,
        super::share_links::list_share_links,
        super::share_links::revoke_share_link,
        super::webhooks::create_webhook,
        super::webhooks::list_webhooks,
        super::webhooks::delete_webhook,
        super::webhooks::list_webhook_deliveries,
        super::webhooks::redeliver_webhook_delivery,
        super::bundle::get_audit_bundle,
        super::bundle::get_audit_key,
        super::tables::create_table,
        super::tables::list_tables,
        super::tables::get_table,
        super::tables::submit_move,
        super::tables::list_moves,
        super::witness::get_table_checkpoint,
        super::witness::get_move_proof,
        super::witness::get_table_consistency,
        super::witness::get_cosigned_checkpoint,
        super::witness::register_phone_key,
        super::witness::submit_cosignature,
        super::witness::submit_board_cosignature,
        super::witness::register_board_key,
        super::tables::undo_move,
        super::tables::get_scores,
        super::tables::get_trick_plan,
        super::tables::get_scores_csv,
        super::join_codes::create_join_code,
        super::deals::list_deals,
        super::join_codes::list_join_codes,
        super::join_codes::withdraw_join_code,
        super::deals::get_deal,
        super::deals::correct_deal,
        super::deals::preview_correction,
        super::deals::verify_deal,
        super::rulings::create_ruling,
        super::rulings::list_rulings,
        super::rulings::get_ruling,
        super::rulings::answer_ruling,
        super::deals::list_scorers,
        super::deals::revoke_scorer,
        super::ledger::get_table_ledger,
        super::ledger::get_table_ledger_csv,
        super::ledger::audit_table,
        super::ledger::get_session_ledger,
        super::ledger::get_session_ledger_csv,
        super::changes::list_session_changes,
        super::changes::get_session_changes_csv,
        super::flags::list_session_flags,
        super::events::stream_table_events,
        super::events::stream_session_events,
        super::health::healthz,
        super::health::readyz,
        super::health::get_server_info,
    ),
    components(schemas(
        AnyMove,
        AnyEvent,
        AnyOptions,
        AnyView,
        AnyScoreSheet,
        CorrectionMove,
        super::rulings::RulingEntry,
        super::rulings::RulingAnswerEntry,
    )),
    modifiers(&UnderApiV1, &RuleCodes, &CommonErrors, &BearerAuth),
    tags(
        (name = "auth", description = "Organiser accounts and scorer join codes"),
        (name = "tokens", description = "Personal API tokens: long-lived, scoped to one club, for integrations"),
        (name = "games", description = "The game catalogue"),
        (name = "clubs", description = "Clubs, their members, roles and invitations"),
        (name = "sessions", description = "Club sittings grouping tables"),
        (name = "tournaments", description = "Events of a session: rounds seated by a movement, guide cards, standings and results"),
        (name = "seasons", description = "A club's seasons, their league tables and each member's history"),
        (name = "webhooks", description = "A club's webhook endpoints (Standard Webhooks) and their deliveries"),
        (name = "tables", description = "Tables, moves, undo and scores"),
        (name = "deals", description = "Finished deals: corrections, verification by a second phone, a director's rulings, and the scorers who record them"),
        (name = "live", description = "Server-Sent Events streams of tables and sessions as they are played"),
        (name = "health", description = "Probes"),
    ),
)]
pub struct ApiDoc;

/// The spec as served and committed: utoipa's document shaped for client generators (see
/// `contract`), with every code a problem can carry as `Problem.code`'s enum.
pub fn spec() -> serde_json::Value {
    let mut spec = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    if let Some(code) = spec.pointer_mut("/components/schemas/Problem/properties/code") {
        code["enum"] = serde_json::json!(super::error::ApiError::all_codes());
    }
    super::game_schemas::correction_moves_per_game(&mut spec);
    super::contract::shape(&mut spec);
    super::documented::apply(&mut spec);
    // After `documented`, which drops the schemas no operation reaches: these are reached from
    // `webhooks`.
    super::webhook_payloads::add(&mut spec);
    spec
}

/// The spec as committed at `openapi/openapi.json`.
pub fn spec_json() -> String {
    let mut text = serde_json::to_string_pretty(&spec()).unwrap_or_default();
    text.push('\n');
    text
}
