//! Who may call each operation of the spec: one row per operation id, kept beside the handlers.
//!
//! The use cases decide (`service::access`); this table says what they must decide, in the
//! club's words, and `tests/api/authorization.rs` walks every operation of the committed spec ×
//! every kind of caller (each role by password, each token scope, a revoked and an expired
//! token, a share link, a phone) × the caller's own club, another owner's club and another club
//! of the same account, and checks each answer against it. An operation without a row fails
//! that test, so a new endpoint cannot ship without saying who may call it.

use tablekeeper_service::access::Capability;
use tablekeeper_service::clubs::ClubRole;

/// Who gets through an operation's door.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// Anyone, with or without a token: sign-up, sign-in, a phone's join, the public facts.
    Public,
    /// An account signed in with its password, on itself (its clubs, its tokens, its password,
    /// signing out): no API token, no phone, no share link.
    Password,
    /// Any account by password, or a token with the `read` scope (which sees its one club's):
    /// a listing across the account's clubs.
    Listing,
    /// Any bearer: an account (a token narrowed to its club, with `read`), a phone (its own
    /// table), a share link (nothing). The list of tables.
    AnyListing,
    /// In the path's (or body's) club: a member whose role allows the capability, a token of
    /// that club whose scopes and role allow it. `Manage` is no scope's: tokens never pass.
    Club(Capability),
    /// In the path's club, only by an owner's password: a member's new password.
    Owner,
    /// A session of the club: as `Club`, and a share link of that very session reads it.
    Session(Capability),
    /// A session's table: as `Session`, and a phone that joined that very table reads,
    /// records and verifies it.
    Table(Capability),
    /// A phone that joined that very table, and no one else: its witnesses.
    Phone,
}

impl Door {
    /// Whether a member with `role`, signed in with a password, gets through in their own club.
    pub fn lets_role(self, role: ClubRole) -> bool {
        match self {
            Door::Public | Door::Password | Door::Listing | Door::AnyListing => true,
            Door::Club(c) | Door::Session(c) | Door::Table(c) => tablekeeper_service::access::allows(role, c),
            Door::Owner => role == ClubRole::Owner,
            Door::Phone => false,
        }
    }
}

/// Every operation of the spec and its door.
pub const OPERATIONS: &[(&str, Door)] = &[
    // The public facts and the ways in.
    ("get_audit_key", Door::Public),
    ("healthz", Door::Public),
    ("readyz", Door::Public),
    ("get_server_info", Door::Public),
    ("list_games", Door::Public),
    ("register", Door::Public),
    ("login", Door::Public),
    ("join", Door::Public),
    // The account itself.
    ("logout", Door::Password),
    ("logout_everywhere", Door::Password),
    ("change_password", Door::Password),
    ("create_club", Door::Password),
    ("join_club", Door::Password),
    ("list_api_tokens", Door::Password),
    ("create_api_token", Door::Password),
    ("revoke_api_token", Door::Password),
    // Listings across the account's clubs.
    ("list_clubs", Door::Listing),
    ("list_sessions", Door::Listing),
    ("list_tables", Door::AnyListing),
    // The club.
    ("get_club", Door::Club(Capability::Read)),
    ("list_club_members", Door::Club(Capability::Read)),
    ("get_member_history", Door::Club(Capability::Read)),
    ("add_club_member", Door::Club(Capability::Manage)),
    ("update_club_member", Door::Club(Capability::Manage)),
    ("anonymise_club_member", Door::Club(Capability::Manage)),
    ("reset_member_password", Door::Owner),
    ("list_invitations", Door::Club(Capability::Manage)),
    ("create_invitation", Door::Club(Capability::Manage)),
    ("withdraw_invitation", Door::Club(Capability::Manage)),
    ("list_seasons", Door::Club(Capability::Read)),
    ("create_season", Door::Club(Capability::Organise)),
    ("get_season_standings", Door::Club(Capability::Read)),
    ("get_season_standings_csv", Door::Club(Capability::Read)),
    ("audit_season", Door::Club(Capability::Read)),
    ("list_webhooks", Door::Club(Capability::Organise)),
    ("create_webhook", Door::Club(Capability::Organise)),
    ("delete_webhook", Door::Club(Capability::Organise)),
    ("list_webhook_deliveries", Door::Club(Capability::Organise)),
    ("redeliver_webhook_delivery", Door::Club(Capability::Organise)),
    // The club's sessions (`create_session` names its club in the body).
    ("create_session", Door::Club(Capability::Organise)),
    ("get_session", Door::Session(Capability::Read)),
    ("update_session", Door::Club(Capability::Audit)),
    ("get_audit_bundle", Door::Session(Capability::Read)),
    ("stream_session_events", Door::Session(Capability::Read)),
    ("get_session_ledger", Door::Session(Capability::Read)),
    ("get_session_ledger_csv", Door::Session(Capability::Read)),
    // Who changed what, when: read as the session's ledger is.
    ("list_session_changes", Door::Session(Capability::Read)),
    ("get_session_changes_csv", Door::Session(Capability::Read)),
    // The session's flagged deals, for the director: read as its changes are.
    ("list_session_flags", Door::Session(Capability::Read)),
    ("get_session_settlement", Door::Session(Capability::Read)),
    ("get_session_standings", Door::Session(Capability::Read)),
    ("close_session", Door::Club(Capability::Organise)),
    ("get_correction_window", Door::Club(Capability::Read)),
    ("set_correction_window", Door::Club(Capability::Manage)),
    ("get_club_leftover", Door::Club(Capability::Read)),
    ("set_club_leftover", Door::Club(Capability::Manage)),
    ("reopen_session", Door::Owner),
    ("get_session_final", Door::Session(Capability::Read)),
    ("get_table_closing", Door::Table(Capability::Read)),
    // The sessions' tournaments: organisers run them; whoever reads the session reads them.
    ("create_tournament", Door::Club(Capability::Organise)),
    ("list_tournaments", Door::Session(Capability::Read)),
    ("get_tournament", Door::Session(Capability::Read)),
    ("start_round", Door::Club(Capability::Organise)),
    ("close_round", Door::Club(Capability::Organise)),
    ("add_entrant", Door::Club(Capability::Organise)),
    ("withdraw_entrant", Door::Club(Capability::Organise)),
    ("get_guide_card", Door::Session(Capability::Read)),
    // A dry run of starting the next round: what the guide cards already tell each reader.
    ("get_next_round", Door::Session(Capability::Read)),
    ("get_tournament_results", Door::Session(Capability::Read)),
    ("get_tournament_results_csv", Door::Session(Capability::Read)),
    ("get_tournament_results_pdf", Door::Session(Capability::Read)),
    ("list_share_links", Door::Club(Capability::Organise)),
    ("create_share_link", Door::Club(Capability::Organise)),
    ("revoke_share_link", Door::Club(Capability::Organise)),
    // The sessions' tables (`create_table` names its session in the body).
    ("create_table", Door::Club(Capability::Organise)),
    ("get_table", Door::Table(Capability::Read)),
    ("audit_table", Door::Table(Capability::Read)),
    ("list_deals", Door::Table(Capability::Read)),
    ("get_deal", Door::Table(Capability::Read)),
    ("correct_deal", Door::Table(Capability::Record)),
    ("preview_correction", Door::Table(Capability::Record)),
    ("verify_deal", Door::Table(Capability::Verify)),
    // A director's rulings: those who run the club's evenings rule; phones and members answer.
    ("create_ruling", Door::Table(Capability::Organise)),
    ("list_rulings", Door::Table(Capability::Read)),
    ("get_ruling", Door::Table(Capability::Read)),
    ("answer_ruling", Door::Table(Capability::Verify)),
    ("stream_table_events", Door::Table(Capability::Read)),
    ("get_table_ledger", Door::Table(Capability::Read)),
    ("get_table_ledger_csv", Door::Table(Capability::Read)),
    ("list_moves", Door::Table(Capability::Read)),
    // The table's Merkle tree: whoever reads its log reads its checkpoints and proofs.
    ("get_table_checkpoint", Door::Table(Capability::Read)),
    ("get_move_proof", Door::Table(Capability::Read)),
    ("get_table_consistency", Door::Table(Capability::Read)),
    ("get_cosigned_checkpoint", Door::Table(Capability::Read)),
    // The table's witnesses: only a phone that joined that very table registers its key and
    // cosigns the table's checkpoints.
    ("register_phone_key", Door::Phone),
    ("submit_cosignature", Door::Phone),
    // A board (a share link of the session, or a member who reads it) cosigns the session's
    // tables' checkpoints with the key it registered for the session.
    ("register_board_key", Door::Session(Capability::Read)),
    ("submit_board_cosignature", Door::Table(Capability::Read)),
    ("submit_move", Door::Table(Capability::Record)),
    ("undo_move", Door::Table(Capability::Record)),
    ("get_scores", Door::Table(Capability::Read)),
    ("get_trick_plan", Door::Table(Capability::Read)),
    ("get_scores_csv", Door::Table(Capability::Read)),
    ("list_join_codes", Door::Club(Capability::Organise)),
    ("create_join_code", Door::Club(Capability::Organise)),
    ("withdraw_join_code", Door::Club(Capability::Organise)),
    ("list_scorers", Door::Table(Capability::Read)),
    ("revoke_scorer", Door::Club(Capability::Organise)),
];

/// The door of the operation with this id.
pub fn door(operation: &str) -> Option<Door> {
    OPERATIONS
        .iter()
        .find(|(id, _)| *id == operation)
        .map(|(_, door)| *door)
}
