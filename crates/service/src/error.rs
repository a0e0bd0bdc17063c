//! The one error type of the application layer.

use uuid::Uuid;

use tablekeeper_ledger::LedgerError;
use tablekeeper_rules::{RuleViolation, SetupError};
use tablekeeper_store::StoreError;

/// Everything a use case can fail with. Variants name what went wrong in the domain's words;
/// the API decides how each is answered.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The engine refused a move; nothing was written.
    #[error(transparent)]
    Rule(#[from] RuleViolation),
    /// The players or options do not set up a game.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The options do not have the game's shape.
    #[error("the options are not valid for this game: {0}")]
    InvalidOptions(serde_json::Error),
    /// The move does not have the shape of the table's game's moves.
    #[error("{0}")]
    InvalidMove(serde_json::Error),
    #[error("{0}")]
    Forbidden(&'static str),
    /// A personal API token's scopes or club do not reach this; the message names the scope.
    #[error("{0}")]
    TokenScope(String),
    /// A token is asked for with a scope its account's role in the club does not allow.
    #[error("{0}")]
    ScopeBeyondRole(String),
    #[error("the bearer token is not valid")]
    ApiTokenUnknown,
    #[error("this API token was revoked; make a new one")]
    ApiTokenRevoked,
    #[error("this API token has expired; make a new one")]
    ApiTokenExpired,
    /// The organiser revoked the scorer whose token this is.
    #[error("this scorer was revoked by the table's organiser; ask for a new join code")]
    ScorerRevoked,
    /// The session's organiser revoked the share link whose token this is.
    #[error("this share link was revoked; ask the organiser for a new one")]
    ShareLinkRevoked,
    #[error("this share link has expired; ask the organiser for a new one")]
    ShareLinkExpired,
    /// A password could not be hashed (a fault of this server, not the caller's).
    #[error("a password could not be hashed: {0}")]
    Hashing(String),
    /// A new password is too short or too long.
    #[error("a password is 8 to 256 characters")]
    WeakPassword,
    /// The password given as the one in force is not.
    #[error("the old password is not the one in force; nothing was changed")]
    WrongPassword,
    /// An email and password that do not make a login (which of the two is not said).
    #[error("wrong email or password")]
    InvalidCredentials,
    /// A join code that is unknown, expired or withdrawn.
    #[error("that join code is unknown or has expired")]
    InvalidJoinCode,
    /// The caller's user no longer exists.
    #[error("the bearer token names an unknown user")]
    UnknownUser,
    /// The account's token was signed out (one by one, everywhere, or by a new password).
    #[error("this token was signed out (or its password changed); log in again")]
    TokenSignedOut,
    /// A ruling that does not hold together (a seat not at the table, a split that does not
    /// balance, a percent out of range); the message says which.
    #[error("{0}")]
    InvalidRuling(String),
    #[error("there is no ruling {0} of this deal")]
    RulingNotFound(i64),
    /// A scorer's correction of a deal a director ruled on.
    #[error("deal {0} has a director's ruling: the director rules again (an `assigned` ruling) rather than a scorer correcting it")]
    DealRuled(u16),
    /// An undo that would take a ruled deal back into play.
    #[error("deal {0} has a director's ruling: an undo does not reach into it (the director rules on it instead)")]
    UndoRuled(u16),
    #[error("the table is at version {actual}, not {expected}")]
    VersionConflict { expected: i64, actual: i64 },
    #[error("the table is at version {actual}, which the request's If-Match does not name")]
    PreconditionFailed { actual: i64 },
    #[error("{}", deal_mismatch(*named, *recording))]
    DealMismatch { named: u16, recording: Option<u16> },
    /// A table's seats name members that are not the session's, or not one per seat.
    #[error("{0}")]
    InvalidMembers(String),
    /// A role that cannot be given where it was asked for.
    #[error("{0}")]
    InvalidRole(&'static str),
    #[error("you are a member of this club already")]
    AlreadyMember,
    #[error("the club would be left without an owner: make another member owner first")]
    LastOwner,
    #[error("the club has a member of that name already")]
    MemberNameTaken,
    #[error("only a member who has left can be anonymised: mark them as left first")]
    MemberActive,
    #[error("a table in a session belongs to the session's club: leave club_id out or name that club")]
    ClubMismatch,
    #[error("an anonymised member cannot come back: add them again as a new member")]
    MemberAnonymised,
    #[error("there is no move left to undo")]
    NothingToUndo,
    #[error("deal {0} has not been played at this table")]
    DealNotFound(u16),
    #[error("deal {0} is still being recorded: undo its moves instead of correcting it")]
    DealNotFinished(u16),
    /// A correction's (or a dispute's) own moves go beyond the deal, or do not finish it.
    #[error("{0}")]
    NotTheDeal(String),
    /// A later entry no longer fits the corrected history; nothing was written.
    #[error("the correction conflicts with move {seq}, recorded later: {violation}")]
    CorrectionConflicts { seq: i64, violation: RuleViolation },
    /// A verification's body does not say one thing (an agreement with moves, a dispute without).
    #[error("{0}")]
    InvalidVerification(&'static str),
    #[error("that result is the deal as recorded: send {{\"agree\": true}} instead")]
    DisputeMatchesRecord,
    #[error("a deal is verified by another scorer or the organiser, not by whoever recorded it")]
    OwnDeal,
    /// A webhook's URL or events are not acceptable; `code` says how.
    #[error("{detail}")]
    InvalidWebhook { code: &'static str, detail: String },
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    #[error("table {table} plays `{game}`, which this build does not know")]
    UnknownGame { table: Uuid, game: String },
    /// The stored log no longer replays or reads (a bug, never a client's doing).
    #[error("stored data could not be read back: {0}")]
    Corrupt(String),
    /// What is stored of one table (its log, a snapshot, its lines) no longer reads or replays:
    /// `Corrupt` once the table it was found in is known ([`ServiceError::at_table`]).
    #[error("the stored log of table {table} is damaged ({detail}); GET /tables/{table}/audit reports what was found")]
    Damaged { table: Uuid, detail: String },
    #[error("a value could not be written as JSON: {0}")]
    Encode(serde_json::Error),
    /// The movement engine refused a tournament's set-up or round; its `code()` names why.
    #[error(transparent)]
    Movement(#[from] tablekeeper_movement::MovementError),
    /// A tournament's rounds, deals, minutes or seats are out of range.
    #[error("{0}")]
    InvalidTournament(String),
    #[error("round {0} is still open: close it before starting the next")]
    RoundOpen(u32),
    #[error("round {0} is closed already")]
    RoundClosed(u32),
    #[error("round {0} has not been started")]
    RoundNotFound(u32),
    #[error("the tournament has played its last round")]
    TournamentFinished,
    #[error("that member is not an entrant of this tournament (or has withdrawn)")]
    NotAnEntrant,
    #[error("that member is an entrant of this tournament already")]
    AlreadyEntered,
    /// The session is final (its correction window has run): nothing of it is written.
    #[error("session {0} is final: its correction window has run, and nothing of it can be changed unless an owner reopens it")]
    SessionFinal(Uuid),
    #[error("the session is closed already: an owner may reopen it")]
    SessionClosed,
    #[error("the session is not closed")]
    SessionNotClosed,
    #[error("the session is not final yet: it is open, or its correction window is still running")]
    SessionNotFinal,
    /// Tables of the session still being played, by id: a close needs `force` and a reason.
    #[error("{}", tables_playing(.0))]
    TablesPlaying(Vec<Uuid>),
    /// Flagged deals of the session neither verified by a second phone nor ruled on, by table
    /// and deal: a close needs `force` and a reason.
    #[error("{}", flags_unverified(.0))]
    FlagsUnverified(Vec<(Uuid, u16)>),
    /// A correction window out of range (0 to a week).
    #[error("a correction window is 0 seconds to a week")]
    InvalidWindow,
    /// A close with `force`, or a reopening, without a reason.
    #[error("{0}")]
    ReasonRequired(&'static str),
    /// A size or an entry a table's tree (`witness`) cannot prove: beyond the tree, beyond the
    /// size asked, sizes the wrong way round; `code` names which.
    #[error("{detail}")]
    OutsideTree { code: &'static str, detail: String },
    /// A log entry the table's chain does not hold (no such seq, or the table was never chained).
    #[error("log entry {0} is not in the table's chain")]
    EntryNotLinked(i64),
    /// Only a phone that joined the table cosigns its checkpoints.
    #[error("only a phone that joined the table cosigns its checkpoints (with the key it registered)")]
    NotAPhone,
    /// A phone of another table, at this one.
    #[error("this phone joined another table: it cosigns that table's checkpoints, not this one's")]
    PhoneOfAnotherTable,
    #[error("the phone's key is not 32 bytes of base64 of an Ed25519 public key")]
    InvalidPhoneKey,
    /// A phone keeps the key it registered first.
    #[error("this phone registered another key already: a phone's key is its own for good")]
    PhoneKeyTaken,
    #[error("this phone has no key yet: register its public key first")]
    PhoneKeyMissing,
    #[error("the board's key is not 32 bytes of base64 of an Ed25519 public key")]
    InvalidBoardKey,
    #[error("a board's name is 1 to 60 characters, not blank, without control characters")]
    InvalidBoardName,
    /// A session's boards are capped (`cosigning::MOST_BOARDS`).
    #[error("the session has {0} boards already, the most it may have")]
    TooManyBoards(i64),
    /// A checkpoint size the table's tree does not have (0, or beyond it).
    #[error("the table's tree has {have} entries: it has no checkpoint of {size}")]
    CheckpointNotFound { size: u64, have: u64 },
    /// A cosignature that does not hold (`cosignature_malformed`, `checkpoint_not_signed`,
    /// `cosignature_invalid`); nothing was kept.
    #[error("{detail}")]
    CosignatureRefused { code: &'static str, detail: String },
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ServiceError {
    /// This error as met while reading table `table`: stored data that does not read is that
    /// table's damage, named as such, so that its readers are told which table and not a bare
    /// failure. Anything else is unchanged.
    pub fn at_table(self, table: Uuid) -> ServiceError {
        match self {
            ServiceError::Corrupt(detail) => ServiceError::Damaged { table, detail },
            other => other,
        }
    }
}

fn tables_playing(tables: &[Uuid]) -> String {
    let named: Vec<String> = tables.iter().map(Uuid::to_string).collect();
    format!(
        "tables still being played: {}; finish them, or close with `force` and a `reason`",
        named.join(", ")
    )
}

fn flags_unverified(deals: &[(Uuid, u16)]) -> String {
    let named: Vec<String> = deals.iter().map(|(t, d)| format!("table {t} deal {d}")).collect();
    format!(
        "flagged deals not verified: {}; have a second phone verify each (or the director rule on it), or close with `force` and a `reason`",
        named.join(", ")
    )
}

fn deal_mismatch(named: u16, recording: Option<u16>) -> String {
    match recording {
        Some(n) => format!("the move is for deal {named}, but deal {n} is being recorded"),
        None => format!("the move is for deal {named}, but the game is over"),
    }
}
