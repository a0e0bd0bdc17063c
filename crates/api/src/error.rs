//! The one place errors become HTTP: RFC 9457 problem+json with a stable `code`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use tablekeeper_rules::{RuleViolation, SetupError};
use tablekeeper_service::ServiceError;
use tablekeeper_service::StoreError;

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/not_your_turn",
    "title": "Unprocessable Entity",
    "status": 422,
    "detail": "it is not seat 2's turn: seat 1 is to act",
    "code": "not_your_turn"
}))]
pub struct Problem {
    /// `/problems/<code>`: a URL, relative to the server's (RFC 9457 §3.1.1), of a page that
    /// says what the code means and which operations answer it.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// A sentence for a person.
    pub detail: String,
    /// A stable machine-readable code.
    pub code: String,
}

/// What `Retry-After` says when the database is unavailable.
pub const DATABASE_RETRY_AFTER_SECONDS: u64 = 2;

/// An error answered to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    /// Seconds to wait, sent as `Retry-After` (rate limits).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// Every code the API layer answers with, besides the engine's (`RuleViolation::CODES`), the
    /// set-up's included; tests read the source and build every `SetupError` to check none is
    /// missing.
    pub const CODES: &'static [&'static str] = &[
        "already_member",
        "api_token_not_found",
        "invalid_scopes",
        "scope_beyond_role",
        "token_scope",
        "unknown_scope",
        "body_timeout",
        "body_too_large",
        "club_mismatch",
        "club_not_found",
        "correction_conflicts",
        "cors_refused",
        "database_unavailable",
        "deal_mismatch",
        "deal_not_finished",
        "deal_not_found",
        "deal_ruled",
        "invalid_ruling",
        "ruling_not_found",
        "dispute_matches_record",
        "email_taken",
        "forbidden",
        "idempotency_key_reused",
        "internal_error",
        "invalid_body",
        "invalid_chip_value",
        "invalid_credentials",
        "invalid_email",
        "invalid_expiry",
        "invalid_games",
        "invalid_idempotency_key",
        "invalid_label",
        "invalid_join_code",
        "invalid_role",
        "invitation_not_found",
        "join_code_not_found",
        "invalid_last_event_id",
        "invalid_members",
        "invalid_name",
        "invalid_option",
        "invalid_options",
        "invalid_player_count",
        "invalid_player_name",
        "invalid_query",
        "invalid_scoring",
        "invalid_season_dates",
        "invalid_text",
        "invalid_token",
        "invalid_verification",
        "last_owner",
        "malformed_json",
        "member_active",
        "member_anonymised",
        "member_name_taken",
        "member_not_found",
        "method_not_allowed",
        "method_not_implemented",
        "missing_token",
        "no_route",
        "not_found",
        "not_the_deal",
        "nothing_to_undo",
        "own_deal",
        "precondition_failed",
        "scorer_not_found",
        "scorer_revoked",
        "season_not_found",
        "session_not_found",
        "session_final",
        "session_closed",
        "session_not_closed",
        "session_not_final",
        "tables_playing",
        "flags_unverified",
        "reason_required",
        "invalid_window",
        "share_link_expired",
        "share_link_not_found",
        "webhook_not_found",
        "delivery_not_found",
        "invalid_url",
        "private_address",
        "unknown_event",
        "no_events",
        "share_link_read_only",
        "share_link_revoked",
        "table_damaged",
        "table_not_found",
        "token_expired",
        "token_revoked",
        "too_many_requests",
        "too_many_streams",
        "unknown_card",
        "unknown_field",
        "unknown_game",
        "unknown_variant",
        "unsupported_media_type",
        "version_conflict",
        "weak_password",
        "wrong_password",
        // Tournaments (issue #41).
        "already_entered",
        "entrant_not_found",
        "invalid_tournament",
        "round_closed",
        "round_not_found",
        "round_open",
        "tournament_finished",
        "tournament_not_found",
        // The movement engine's refusals (`MovementError::code`), answered as they are.
        "invalid_seat_range",
        "no_rounds",
        "duplicate_entrant",
        "too_few_entrants",
        "unknown_entrant",
        "apart_unsatisfiable",
        "stay_unsatisfiable",
        "apart_not_seatable",
        "partnerships_not_seatable",
        "not_in_a_partnership",
        "partner_absent",
        "round_out_of_order",
        "no_such_round",
        "history_mismatch",
        "results_mismatch",
        "depends_on_results",
        // A table's Merkle tree (`witness`).
        "entry_not_linked",
        "entry_beyond_size",
        "size_beyond_tree",
        "size_zero",
        "sizes_reversed",
        // Phones' cosignatures of a table's checkpoints (`cosigning`).
        "not_a_phone",
        "phone_of_another_table",
        "invalid_phone_key",
        "phone_key_taken",
        "phone_key_missing",
        "checkpoint_not_found",
        "cosignature_malformed",
        "checkpoint_not_signed",
        "cosignature_invalid",
        "cosignature_from_the_future",
        // Boards' cosignatures of their session's tables' checkpoints.
        "invalid_board_key",
        "invalid_board_name",
        "too_many_boards",
    ];

    /// Every code a problem can carry, sorted: the spec's enum for `Problem.code`.
    pub fn all_codes() -> Vec<&'static str> {
        let mut codes: Vec<&'static str> = Self::CODES.iter().chain(RuleViolation::CODES).copied().collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    }

    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            retry_after: None,
        }
    }

    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, detail)
    }

    pub fn unprocessable(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }

    pub fn unauthorized(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, code, detail)
    }

    pub fn forbidden(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", detail)
    }

    pub fn not_found(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, code, detail)
    }

    pub fn internal() -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "something went wrong on our side",
        )
    }

    /// 503 `database_unavailable` with `Retry-After`: the request changed nothing and may be retried.
    pub fn database_unavailable() -> ApiError {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_unavailable",
            "the database cannot be reached just now; nothing was changed, retry shortly",
        );
        error.retry_after = Some(DATABASE_RETRY_AFTER_SECONDS);
        error
    }

    pub fn problem(&self) -> Problem {
        Problem {
            kind: format!("/problems/{}", self.code),
            title: self.status.canonical_reason().unwrap_or("Error").to_owned(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_owned(),
        }
    }

    /// Classifies a JSON body that did not deserialise: bad syntax is 400, the rest 422 with
    /// the most specific code the message allows.
    pub fn from_json(e: &serde_json::Error) -> ApiError {
        use serde_json::error::Category;
        let message = e.to_string();
        match e.classify() {
            Category::Syntax | Category::Eof | Category::Io => {
                ApiError::bad_request("malformed_json", format!("the body is not valid JSON: {message}"))
            }
            Category::Data if message.starts_with("unknown card") => ApiError::unprocessable("unknown_card", message),
            Category::Data if message.starts_with("unknown field") => ApiError::unprocessable("unknown_field", message),
            Category::Data if message.starts_with("unknown variant") => {
                ApiError::unprocessable("unknown_variant", message)
            }
            Category::Data => ApiError::unprocessable("invalid_body", message),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.detail, self.code)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.insert_header(("WWW-Authenticate", www_authenticate(self.code)));
        }
        response.content_type("application/problem+json").json(self.problem())
    }
}

impl From<RuleViolation> for ApiError {
    fn from(v: RuleViolation) -> ApiError {
        let status = if v.is_conflict() {
            StatusCode::CONFLICT
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        ApiError::new(status, v.code(), v.to_string())
    }
}

impl From<SetupError> for ApiError {
    fn from(e: SetupError) -> ApiError {
        ApiError::unprocessable(e.code(), e.to_string())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound(what) => {
                let code = match what {
                    "table" => "table_not_found",
                    "session" => "session_not_found",
                    "scorer" => "scorer_not_found",
                    "join code" => "join_code_not_found",
                    "club" => "club_not_found",
                    "member" => "member_not_found",
                    "season" => "season_not_found",
                    "invitation" => "invitation_not_found",
                    "share link" => "share_link_not_found",
                    "webhook" => "webhook_not_found",
                    "delivery" => "delivery_not_found",
                    "API token" => "api_token_not_found",
                    "tournament" => "tournament_not_found",
                    _ => "not_found",
                };
                ApiError::not_found(code, format!("no such {what}"))
            }
            StoreError::EmailTaken => ApiError::new(StatusCode::CONFLICT, "email_taken", e.to_string()),
            // PostgreSQL text cannot hold NUL: whatever field a client smuggled one into, say so.
            StoreError::Database(_) if e.is_nul_in_text() => {
                ApiError::unprocessable("invalid_text", "text must not contain NUL characters")
            }
            StoreError::Unavailable(_) => {
                tracing::warn!(error = %e, "database unavailable");
                ApiError::database_unavailable()
            }
            StoreError::Corrupt(_) | StoreError::Ledger(_) | StoreError::Database(_) => {
                tracing::error!(error = %e, "store failure");
                ApiError::internal()
            }
        }
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> ApiError {
        match e {
            ServiceError::Store(e) => e.into(),
            ServiceError::Rule(v) => v.into(),
            ServiceError::Setup(e) => e.into(),
            ServiceError::InvalidOptions(json) => ApiError::unprocessable(
                "invalid_options",
                format!(
                    "the options are not valid for this game: {}",
                    ApiError::from_json(&json).detail
                ),
            ),
            ServiceError::InvalidMove(json) => ApiError::from_json(&json),
            ServiceError::Forbidden(detail) => ApiError::forbidden(detail),
            ServiceError::TokenScope(_) => ApiError::new(StatusCode::FORBIDDEN, "token_scope", e.to_string()),
            ServiceError::ScopeBeyondRole(_) => ApiError::unprocessable("scope_beyond_role", e.to_string()),
            ServiceError::ApiTokenUnknown => ApiError::unauthorized("invalid_token", e.to_string()),
            ServiceError::ApiTokenRevoked => ApiError::unauthorized("token_revoked", e.to_string()),
            ServiceError::ApiTokenExpired => ApiError::unauthorized("token_expired", e.to_string()),
            ServiceError::ScorerRevoked => {
                ApiError::unauthorized("scorer_revoked", ServiceError::ScorerRevoked.to_string())
            }
            ServiceError::ShareLinkRevoked => ApiError::unauthorized("share_link_revoked", e.to_string()),
            ServiceError::ShareLinkExpired => ApiError::unauthorized("share_link_expired", e.to_string()),
            ServiceError::UnknownUser => ApiError::unauthorized("invalid_token", e.to_string()),
            ServiceError::TokenSignedOut => ApiError::unauthorized("token_revoked", e.to_string()),
            ServiceError::VersionConflict { .. } => {
                ApiError::new(StatusCode::CONFLICT, "version_conflict", e.to_string())
            }
            ServiceError::PreconditionFailed { .. } => {
                ApiError::new(StatusCode::PRECONDITION_FAILED, "precondition_failed", e.to_string())
            }
            ServiceError::DealMismatch { .. } => ApiError::new(StatusCode::CONFLICT, "deal_mismatch", e.to_string()),
            ServiceError::InvalidMembers(_) => ApiError::unprocessable("invalid_members", e.to_string()),
            ServiceError::InvalidRole(detail) => ApiError::unprocessable("invalid_role", detail),
            ServiceError::AlreadyMember => ApiError::new(StatusCode::CONFLICT, "already_member", e.to_string()),
            ServiceError::LastOwner => ApiError::new(StatusCode::CONFLICT, "last_owner", e.to_string()),
            ServiceError::MemberNameTaken => ApiError::new(StatusCode::CONFLICT, "member_name_taken", e.to_string()),
            ServiceError::MemberActive => ApiError::new(StatusCode::CONFLICT, "member_active", e.to_string()),
            ServiceError::ClubMismatch => ApiError::unprocessable("club_mismatch", e.to_string()),
            ServiceError::MemberAnonymised => ApiError::new(StatusCode::CONFLICT, "member_anonymised", e.to_string()),
            ServiceError::NothingToUndo => ApiError::new(StatusCode::CONFLICT, "nothing_to_undo", e.to_string()),
            ServiceError::DealNotFound(_) => ApiError::not_found("deal_not_found", e.to_string()),
            ServiceError::DealNotFinished(_) => ApiError::new(StatusCode::CONFLICT, "deal_not_finished", e.to_string()),
            ServiceError::NotTheDeal(_) => ApiError::unprocessable("not_the_deal", e.to_string()),
            ServiceError::CorrectionConflicts { .. } => {
                ApiError::new(StatusCode::CONFLICT, "correction_conflicts", e.to_string())
            }
            ServiceError::InvalidRuling(_) => ApiError::unprocessable("invalid_ruling", e.to_string()),
            ServiceError::RulingNotFound(_) => ApiError::not_found("ruling_not_found", e.to_string()),
            ServiceError::DealRuled(_) | ServiceError::UndoRuled(_) => {
                ApiError::new(StatusCode::CONFLICT, "deal_ruled", e.to_string())
            }
            ServiceError::InvalidVerification(detail) => ApiError::unprocessable("invalid_verification", detail),
            ServiceError::InvalidWebhook { code, detail } => ApiError::unprocessable(code, detail),
            ServiceError::OutsideTree { code, detail } => ApiError::unprocessable(code, detail),
            ServiceError::EntryNotLinked(_) => ApiError::not_found("entry_not_linked", e.to_string()),
            ServiceError::NotAPhone => ApiError::new(StatusCode::FORBIDDEN, "not_a_phone", e.to_string()),
            ServiceError::PhoneOfAnotherTable => {
                ApiError::new(StatusCode::FORBIDDEN, "phone_of_another_table", e.to_string())
            }
            ServiceError::InvalidPhoneKey => ApiError::unprocessable("invalid_phone_key", e.to_string()),
            ServiceError::PhoneKeyTaken => ApiError::new(StatusCode::CONFLICT, "phone_key_taken", e.to_string()),
            ServiceError::PhoneKeyMissing => ApiError::new(StatusCode::CONFLICT, "phone_key_missing", e.to_string()),
            ServiceError::InvalidBoardKey => ApiError::unprocessable("invalid_board_key", e.to_string()),
            ServiceError::InvalidBoardName => ApiError::unprocessable("invalid_board_name", e.to_string()),
            ServiceError::TooManyBoards(_) => ApiError::new(StatusCode::CONFLICT, "too_many_boards", e.to_string()),
            ServiceError::CheckpointNotFound { .. } => ApiError::not_found("checkpoint_not_found", e.to_string()),
            ServiceError::CosignatureRefused { code, detail } => ApiError::unprocessable(code, detail),
            ServiceError::DisputeMatchesRecord => ApiError::unprocessable("dispute_matches_record", e.to_string()),
            ServiceError::OwnDeal => ApiError::new(StatusCode::FORBIDDEN, "own_deal", e.to_string()),
            ServiceError::IdempotencyKeyReused => ApiError::unprocessable("idempotency_key_reused", e.to_string()),
            ServiceError::Hashing(reason) => {
                tracing::error!(error = %reason, "password hashing failed");
                ApiError::internal()
            }
            ServiceError::InvalidJoinCode => ApiError::unauthorized("invalid_join_code", e.to_string()),
            ServiceError::WeakPassword => ApiError::unprocessable("weak_password", e.to_string()),
            ServiceError::WrongPassword => ApiError::new(StatusCode::FORBIDDEN, "wrong_password", e.to_string()),
            ServiceError::InvalidCredentials => ApiError::unauthorized("invalid_credentials", e.to_string()),
            // Not the client's doing, but not a bare failure either: the table is named, the rest
            // of the service goes on, and the audit says what is wrong with it.
            ServiceError::Damaged { .. } => {
                tracing::error!(error = %e, "damaged table");
                ApiError::new(StatusCode::CONFLICT, "table_damaged", e.to_string())
            }
            ServiceError::Movement(m) => ApiError::unprocessable(m.code(), m.to_string()),
            ServiceError::InvalidTournament(_) => ApiError::unprocessable("invalid_tournament", e.to_string()),
            ServiceError::SessionFinal(_) => ApiError::new(StatusCode::CONFLICT, "session_final", e.to_string()),
            ServiceError::SessionClosed => ApiError::new(StatusCode::CONFLICT, "session_closed", e.to_string()),
            ServiceError::SessionNotClosed => ApiError::new(StatusCode::CONFLICT, "session_not_closed", e.to_string()),
            ServiceError::SessionNotFinal => ApiError::new(StatusCode::CONFLICT, "session_not_final", e.to_string()),
            ServiceError::TablesPlaying(_) => ApiError::new(StatusCode::CONFLICT, "tables_playing", e.to_string()),
            ServiceError::FlagsUnverified(_) => ApiError::new(StatusCode::CONFLICT, "flags_unverified", e.to_string()),
            ServiceError::ReasonRequired(_) => ApiError::unprocessable("reason_required", e.to_string()),
            ServiceError::InvalidWindow => ApiError::unprocessable("invalid_window", e.to_string()),
            ServiceError::RoundOpen(_) => ApiError::new(StatusCode::CONFLICT, "round_open", e.to_string()),
            ServiceError::RoundClosed(_) => ApiError::new(StatusCode::CONFLICT, "round_closed", e.to_string()),
            ServiceError::RoundNotFound(_) => ApiError::not_found("round_not_found", e.to_string()),
            ServiceError::TournamentFinished => {
                ApiError::new(StatusCode::CONFLICT, "tournament_finished", e.to_string())
            }
            ServiceError::NotAnEntrant => ApiError::not_found("entrant_not_found", e.to_string()),
            ServiceError::AlreadyEntered => ApiError::new(StatusCode::CONFLICT, "already_entered", e.to_string()),
            ServiceError::UnknownGame { .. }
            | ServiceError::Corrupt(_)
            | ServiceError::Encode(_)
            | ServiceError::Ledger(_) => {
                tracing::error!(error = %e, "service failure");
                ApiError::internal()
            }
        }
    }
}

/// Makes actix's own extractor errors answer problem+json instead of its plain-text defaults.
pub fn json_config() -> actix_web::web::JsonConfig {
    actix_web::web::JsonConfig::default()
        .limit(64 * 1024)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError;
            let api = match &err {
                JsonPayloadError::Deserialize(e) => ApiError::from_json(e),
                JsonPayloadError::ContentType => ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type",
                    "send the body as application/json",
                ),
                JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    "the body is larger than 64 KiB",
                ),
                _ => ApiError::bad_request("malformed_json", format!("the body could not be read: {err}")),
            };
            api.into()
        })
}

pub fn query_config() -> actix_web::web::QueryConfig {
    actix_web::web::QueryConfig::default()
        .error_handler(|err, _req| ApiError::bad_request("invalid_query", err.to_string()).into())
}

pub fn path_config() -> actix_web::web::PathConfig {
    actix_web::web::PathConfig::default()
        .error_handler(|err, _req| ApiError::not_found("not_found", format!("no such resource: {err}")).into())
}

/// Answers unknown routes with problem+json too.
pub async fn no_route() -> HttpResponse {
    ApiError::not_found("no_route", "there is no such endpoint").error_response()
}

/// The challenge of a 401 (RFC 9110 section 11.6.1): the bearer scheme, and RFC 6750's
/// `invalid_token` when the caller sent a token that is not, or no longer, good.
fn www_authenticate(code: &str) -> &'static str {
    match code {
        "invalid_token" | "token_expired" | "token_revoked" | "scorer_revoked" | "share_link_expired"
        | "share_link_revoked" => r#"Bearer realm="tablekeeper", error="invalid_token""#,
        _ => r#"Bearer realm="tablekeeper""#,
    }
}

#[cfg(test)]
mod tests {
    use super::ApiError;

    /// The first snake_case string literal in `text`.
    fn first_code(text: &str) -> Option<&str> {
        text.split('"')
            .skip(1)
            .step_by(2)
            .find(|s| s.contains('_') || *s == "forbidden")
            .filter(|s| s.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
    }

    #[test]
    fn every_set_up_code_is_listed() {
        let errors = [
            tablekeeper_rules::SetupError::PlayerCount { got: 1, min: 2, max: 4 },
            tablekeeper_rules::SetupError::InvalidOption {
                option: "x",
                reason: String::new(),
            },
        ];
        for e in errors {
            assert!(ApiError::all_codes().contains(&e.code()), "{}", e.code());
        }
    }

    #[test]
    fn every_code_the_api_layer_answers_with_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let codes = ApiError::all_codes();
        for entry in std::fs::read_dir(dir).expect("src/api") {
            let path = entry.expect("entry").path();
            // Rust sources only: src/api/examples/ holds the spec's example answers.
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("source");
            let lines: Vec<&str> = source.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let called = [
                    "ApiError::new(",
                    "ApiError::bad_request(",
                    "ApiError::unprocessable(",
                    "ApiError::unauthorized(",
                    "ApiError::not_found(",
                ];
                if !called.iter().any(|c| line.contains(c)) || line.contains("fn ") {
                    continue;
                }
                let window = lines[i..lines.len().min(i + 3)].join(" ");
                let after = &window[window.find("ApiError::").unwrap_or(0)..];
                if let Some(code) = first_code(after) {
                    assert!(
                        codes.contains(&code),
                        "{}: `{code}` is missing from ApiError::CODES",
                        path.display()
                    );
                }
            }
        }
    }
}
