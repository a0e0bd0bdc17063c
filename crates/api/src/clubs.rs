//! Clubs: the club itself, invitations into it, its members and their roles.

use super::answers::Made;
use crate::State;
use actix_web::http::StatusCode;
use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use tablekeeper_service::clubs as use_case;
use tablekeeper_service::clubs::ClubRole;

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateClub {
    #[schema(example = "Thursday whist club")]
    pub name: String,
}

/// A club, with the caller's role in it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Club {
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// The caller's role in the club.
    pub role: ClubRole,
}

impl From<tablekeeper_service::clubs::MemberClub> for Club {
    fn from(c: tablekeeper_service::clubs::MemberClub) -> Club {
        Club {
            id: c.id,
            name: c.name,
            created_at: c.created_at,
            role: c.role,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ClubPage {
    pub items: Vec<Club>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

/// A club's member: with an account (`user_id`, `role`) or a player without one (both null).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ClubMember {
    pub id: Uuid,
    pub name: String,
    /// Null for a player without an account.
    pub role: Option<ClubRole>,
    pub guest: bool,
    /// False once the member has left.
    pub active: bool,
    /// True once the member's name was replaced (they had left and asked to be forgotten).
    pub anonymised: bool,
    pub user_id: Option<Uuid>,
    pub joined_at: DateTime<Utc>,
}

impl From<tablekeeper_service::clubs::ClubMember> for ClubMember {
    fn from(m: tablekeeper_service::clubs::ClubMember) -> ClubMember {
        ClubMember {
            id: m.id,
            name: m.name,
            role: m.role,
            guest: m.guest,
            active: m.left_at.is_none(),
            anonymised: m.anonymised_at.is_some(),
            user_id: m.user_id,
            joined_at: m.created_at,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ClubMemberPage {
    pub items: Vec<ClubMember>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

/// A player without an account.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMember {
    #[schema(example = "Ann Smith")]
    pub name: String,
    /// A guest rather than a member of the club; default false.
    #[serde(default)]
    pub guest: bool,
}

/// What to change about a member; what is left out stays as it is.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMember {
    /// Only members with an account have a role; only an owner gives or takes `owner`.
    pub role: Option<ClubRole>,
    pub guest: Option<bool>,
    /// False: the member leaves (anyone may leave, sending only this); true: they come back.
    pub active: Option<bool>,
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateInvitation {
    /// The role the invitation gives: organiser, treasurer, scorer or viewer.
    pub role: ClubRole,
    /// 1 to 720; default 168 (a week).
    #[schema(minimum = 1, maximum = 720)]
    pub expires_in_hours: Option<i64>,
}

/// An invitation into a club: an account that sends its code to `POST /clubs/join` becomes a
/// member with its role, until it expires or is withdrawn.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Invitation {
    #[schema(example = "K7QX3MPA2D")]
    pub code: String,
    pub role: ClubRole,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    /// When it was withdrawn; null while it stands.
    pub withdrawn_at: Option<DateTime<Utc>>,
}

impl From<tablekeeper_service::clubs::Invitation> for Invitation {
    fn from(i: tablekeeper_service::clubs::Invitation) -> Invitation {
        Invitation {
            code: i.code,
            role: i.role,
            expires_at: i.expires_at,
            created_at: i.created_at,
            withdrawn_at: i.withdrawn_at,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct InvitationPage {
    pub items: Vec<Invitation>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinClub {
    /// The invitation's code (case, spaces and dashes do not matter).
    pub code: String,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

impl PageQuery {
    fn checked(&self) -> Result<(i64, i64), ApiError> {
        Ok((super::input::page_limit(self.limit)?, self.offset.unwrap_or(0).max(0)))
    }
}

/// One page of `rows`, fetched with one row more than the limit to tell whether more follow.
fn page<R, T: From<R>>(rows: Vec<R>, limit: i64, offset: i64) -> (Vec<T>, Option<i64>) {
    let more = rows.len() as i64 > limit;
    let items = rows.into_iter().take(limit as usize).map(T::from).collect();
    (items, more.then_some(offset + limit))
}

fn club_name(name: &str) -> Result<&str, ApiError> {
    super::input::display_name(name, 200).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a club name is 1 to 200 characters, without control characters",
        )
    })
}

/// Makes a club with the caller as its owner.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key and body gets the first
/// answer (marked `Idempotent-Replayed: true`) and makes no second club.
#[utoipa::path(tag = "clubs", request_body = CreateClub, security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing"),
    ),
    responses(
    (status = 201, description = "the club", body = Club, headers(
        ("Location" = String, description = "the club's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs")]
pub async fn create_club(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    body: web::Json<CreateClub>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let name = club_name(&body.name)?;
    let key = super::tables::creation_key(&req, "create_club", || serde_json::to_value(&*body))?;
    let render = |club| {
        let club = Club::from(club);
        Ok(Made::created(&club)?.at(format!("/api/v1/clubs/{}", club.id)))
    };
    let outcome = use_case::create(pool, user, name, key.as_ref(), render).await?;
    super::answers::created(outcome, "/api/v1/clubs")
}

/// The caller's clubs (those they have not left), each with the caller's role.
#[utoipa::path(tag = "clubs", params(PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = ClubPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs")]
pub async fn list_clubs(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (limit, offset) = query.checked()?;
    let rows = use_case::of_user(pool, user, limit + 1, offset).await?;
    let (items, next_offset) = page::<_, Club>(rows, limit, offset);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &ClubPage { items, next_offset },
    ))
}

/// A club the caller is a member of.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = Club),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member of it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}")]
pub async fn get_club(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    Ok(HttpResponse::Ok().json(Club::from(use_case::fetch(pool, user, *id).await?)))
}

/// Hands out an invitation (organisers and owners): an account that sends its code to
/// `POST /clubs/join` becomes a member with the role it names.
#[utoipa::path(tag = "clubs", request_body = CreateInvitation, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing"),
    ),
    responses(
    (status = 201, body = Invitation, headers(
        ("Location" = String, description = "the invitation's address (`DELETE` withdraws it)"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_role` (owner), `invalid_expiry`, `unknown_variant`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/invitations")]
pub async fn create_invitation(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CreateInvitation>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let hours = body.expires_in_hours.unwrap_or(use_case::INVITATION_HOURS_DEFAULT);
    if !(1..=use_case::INVITATION_HOURS_MAX).contains(&hours) {
        return Err(ApiError::unprocessable(
            "invalid_expiry",
            format!(
                "an invitation stands 1 to {} hours, not {hours}",
                use_case::INVITATION_HOURS_MAX
            ),
        ));
    }
    let key = super::tables::creation_key(&req, "create_invitation", || serde_json::to_value((*id, &*body)))?;
    let render = |invitation| {
        let invitation = Invitation::from(invitation);
        let location = format!("/api/v1/clubs/{id}/invitations/{}", invitation.code);
        Ok(Made::created(&invitation)?.at(location))
    };
    let outcome = use_case::invite(pool, user, *id, body.role, hours, key.as_ref(), render).await?;
    super::answers::respond(outcome, |body| {
        body.get("code")
            .and_then(serde_json::Value::as_str)
            .map(|code| format!("/api/v1/clubs/{id}/invitations/{code}"))
    })
}

/// The club's invitations (organisers and owners), newest first, expired and withdrawn ones
/// included.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path), PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = InvitationPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/invitations")]
pub async fn list_invitations(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (limit, offset) = query.checked()?;
    let rows = use_case::invitations(pool, user, *id, limit + 1, offset).await?;
    let (items, next_offset) = page::<_, Invitation>(rows, limit, offset);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &InvitationPage { items, next_offset },
    ))
}

/// Withdraws an invitation (organisers and owners): nobody joins with it from now on; those
/// who joined stay members. Withdrawing it again changes nothing.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path), ("code" = String, Path)), security(("bearer" = [])), responses(
    (status = 204, description = "withdrawn"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `invitation_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/clubs/{id}/invitations/{code}")]
pub async fn withdraw_invitation(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (id, code) = path.into_inner();
    use_case::withdraw(pool, user, id, &super::input::normalise_code(&code)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Joins a club with an invitation's code.
///
/// The caller becomes a member with the role it gives (one who had left comes back as the
/// same member).
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key and body gets the first
/// answer (marked `Idempotent-Replayed: true`), although the invitation has expired since, and
/// joins nothing.
#[utoipa::path(tag = "clubs", request_body = JoinClub, security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and joins nothing"),
    ),
    responses(
    (status = 200, body = Club, headers(
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`invitation_not_found`: unknown, expired or withdrawn", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`already_member`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/join")]
pub async fn join_club(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    body: web::Json<JoinClub>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let code = super::input::normalise_code(&body.code);
    // The code as the service reads it: case and dashes make no other request.
    let key = super::tables::creation_key(&req, "join_club", || Ok(serde_json::json!({"code": code})))?;
    let render = |club| Made::new(StatusCode::OK, &Club::from(club));
    let outcome = use_case::join(pool, user, &code, Utc::now(), key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| None)
}

/// The club's members (any member sees them), in the order they joined, those who left included.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path), PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = ClubMemberPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/members")]
pub async fn list_club_members(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (limit, offset) = query.checked()?;
    let rows = use_case::members(pool, user, *id, limit + 1, offset).await?;
    let (items, next_offset) = page::<_, ClubMember>(rows, limit, offset);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &ClubMemberPage { items, next_offset },
    ))
}

/// Adds a player who has no account (organisers and owners), a guest when marked so.
#[utoipa::path(tag = "clubs", request_body = AddMember, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing"),
    ),
    responses(
    (status = 201, body = ClubMember, headers(
        ("Location" = String, description = "the member's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`member_name_taken`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/members")]
pub async fn add_club_member(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<AddMember>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let name = super::input::display_name(&body.name, 100).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a member's name is 1 to 100 characters, without control characters",
        )
    })?;
    let key = super::tables::creation_key(&req, "add_club_member", || serde_json::to_value((*id, &*body)))?;
    let render = |member| {
        let member = ClubMember::from(member);
        Ok(Made::created(&member)?.at(format!("/api/v1/clubs/{id}/members/{}", member.id)))
    };
    let outcome = use_case::add_member(pool, user, *id, name, body.guest, key.as_ref(), render).await?;
    super::answers::created(outcome, &format!("/api/v1/clubs/{id}/members"))
}

/// Changes a member's role, guest mark, or whether they are in the club (organisers and owners;
/// a member may leave by sending `{"active": false}` for themselves).
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path), ("member_id" = Uuid, Path)), request_body = UpdateMember, security(("bearer" = [])), responses(
    (status = 200, body = ClubMember),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, an organiser giving or taking the owner's role, or a scorer token; `token_scope`: a personal API token (members are managed from a password's session)", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `member_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`last_owner`: the club would have no owner left; `member_anonymised`: an anonymised member cannot come back", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_role`: a role for a player without an account; `unknown_variant`", body = Problem, content_type = "application/problem+json"),
))]
#[patch("/clubs/{id}/members/{member_id}")]
pub async fn update_club_member(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<UpdateMember>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, member) = path.into_inner();
    let change = use_case::MemberChange {
        role: body.role,
        guest: body.guest,
        active: body.active,
    };
    let member = use_case::change_member(pool, user, club, member, change).await?;
    Ok(HttpResponse::Ok().json(ClubMember::from(member)))
}

/// Anonymises a member who has left (organisers and owners).
///
/// The member's name becomes "Former member N" everywhere the service shows it: the club's
/// members, the rosters of its sessions, the seats they sat in, standings, histories and CSV.
/// Chains and bundles name members by id, so every table they sat at still audits consistent
/// and bundles made before and after both verify. Anonymising again changes nothing; an
/// anonymised member cannot come back (add them again as a new member). The member's account,
/// if they had one, is no longer linked to the label: should that person join again by
/// invitation, they are a new member under their own name, with none of the forgotten results.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path), ("member_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = ClubMember, example = json!({"id": "5b1f8c2e-8a7d-4f3b-9c61-2f0d5e7a9b10", "name": "Former member 1", "role": null, "guest": false, "active": false, "anonymised": true, "user_id": null, "joined_at": "2026-11-26T19:30:00Z"})),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not manage members, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `member_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`member_active`: only a member who has left can be anonymised", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/members/{member_id}/anonymise")]
pub async fn anonymise_club_member(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, member) = path.into_inner();
    let member = use_case::anonymise(pool, user, club, member).await?;
    Ok(HttpResponse::Ok().json(ClubMember::from(member)))
}

/// A member's new password, shown once to the owner who reset it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PasswordReset {
    pub member: ClubMember,
    /// Give it to the member, who should change it (`POST /auth/password`) at once. Null in an
    /// answer replayed under an `Idempotency-Key`: the password is kept nowhere, so reset again
    /// (with another key) if the first answer was lost.
    #[schema(required = true)]
    pub temporary_password: Option<String>,
}

/// Resets a member's password (owners only).
///
/// The answer holds a new, random password, and every token the account held stops working.
/// For a member who forgot theirs, with no e-mail needed.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key for the same member gets
/// the first answer (marked `Idempotent-Replayed: true`, its `temporary_password` null) and
/// resets nothing; the first password stands.
#[utoipa::path(tag = "clubs", security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("member_id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and path returns the first answer (without the password) and resets nothing"),
    ),
    responses(
    (status = 200, body = PasswordReset, headers(
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: not an owner of the club, a scorer token, or an account that is also a member of a club the caller does not own; `token_scope`: a personal API token (passwords are reset from a password's session)", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `member_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_role`: a player without an account has no password; `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/members/{member_id}/password-reset")]
pub async fn reset_member_password(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, member) = path.into_inner();
    let key = super::tables::creation_key(&req, "reset_member_password", || serde_json::to_value((club, member)))?;
    // 128 random bits, written plainly enough to read out at the table.
    let temporary_password = Uuid::new_v4().simple().to_string();
    let hash = tablekeeper_service::passwords::hash(temporary_password.clone()).await?;
    // The answer is kept without the password: a password at rest would be one more copy of it.
    let render = |member| {
        let kept = PasswordReset {
            member: ClubMember::from(member),
            temporary_password: None,
        };
        Made::new(StatusCode::OK, &kept)?.sending(&PasswordReset {
            temporary_password: Some(temporary_password),
            ..kept
        })
    };
    let outcome = use_case::reset_password(pool, user, club, member, &hash, key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| None)
}
