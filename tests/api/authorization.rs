//! Every operation of the spec × every kind of caller × the caller's own club, another owner's
//! club and another club of the same account, against the table of who may do what kept beside
//! the handlers (`tablekeeper::api::authorization`). An operation without a row fails here.
//!
//! Each operation gets a world of its own (three clubs, each with a session, a table, a season,
//! an invitation, a webhook, a share link, a phone and a member with an account), so that what
//! one operation does cannot open or shut another's door. The callers whose door is shut go
//! first, and everything an operation's refused callers leave behind is compared with what was
//! there before: a refusal changes nothing. Then the callers whose door is open go, and each must
//! get past it (whatever the operation then says of the request itself).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::api::auth::Tokens;
use tablekeeper::api::authorization::{door, Door, OPERATIONS};
use tablekeeper::service::access::Scope;
use tablekeeper::store::clubs::ClubRole;
use uuid::Uuid;

use crate::helpers::{spawn_app_with, TestApp, TEST_SECRET};

const PASSWORD: &str = "correct horse battery";
const SPEC: &str = include_str!("../../openapi/openapi.json");

/// Whose club the request's ids name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    /// The club the caller belongs to (and a token was made for).
    Own,
    /// A club of another owner, of which no caller is a member.
    OtherOwners,
    /// Another club of the owner's account: the owner's password reaches it, the owner's tokens
    /// (made for the own club) must not.
    SameAccounts,
}

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Anonymous,
    /// A member of the own club with this role, signed in with a password (the owner owns the
    /// same account's other club too).
    Role(ClubRole),
    /// The owner's personal API token for the own club with this one scope.
    Token(Scope),
    RevokedToken,
    ExpiredToken,
    /// A share link of the own club's session.
    Share,
    /// A phone that joined the own club's table.
    Phone,
}

const ROLES: [ClubRole; 5] = [
    ClubRole::Owner,
    ClubRole::Organiser,
    ClubRole::Treasurer,
    ClubRole::Scorer,
    ClubRole::Viewer,
];

fn kinds() -> Vec<Kind> {
    let mut kinds = vec![Kind::Anonymous];
    kinds.extend(ROLES.map(Kind::Role));
    kinds.extend(Scope::ALL.map(Kind::Token));
    kinds.extend([Kind::RevokedToken, Kind::ExpiredToken, Kind::Share, Kind::Phone]);
    kinds
}

/// Whether the table lets `kind` through `door` on ids of `relation`'s club.
fn expected(door: Door, kind: Kind, relation: Relation) -> bool {
    let scope_allows = |scope: Scope, capability| scope.capabilities().contains(&capability);
    match (door, kind) {
        (Door::Public, _) => true,
        (_, Kind::Anonymous | Kind::RevokedToken | Kind::ExpiredToken) => false,
        (Door::Password, Kind::Role(_)) => true,
        (Door::Password, _) => false,
        (Door::Listing | Door::AnyListing, Kind::Role(_)) => true,
        (Door::Listing | Door::AnyListing, Kind::Token(scope)) => scope == Scope::Read,
        (Door::AnyListing, Kind::Share | Kind::Phone) => true,
        (Door::Listing, _) => false,
        (_, Kind::Role(role)) => match relation {
            Relation::Own => door.lets_role(role),
            // Only the owner belongs to the account's other club (as its owner).
            Relation::SameAccounts => role == ClubRole::Owner && door.lets_role(ClubRole::Owner),
            Relation::OtherOwners => false,
        },
        (Door::Club(c) | Door::Session(c) | Door::Table(c), Kind::Token(scope)) => {
            relation == Relation::Own && scope_allows(scope, c)
        }
        (Door::Owner | Door::Phone, Kind::Token(_)) => false,
        (Door::Phone, Kind::Phone) => relation == Relation::Own,
        (Door::Session(c) | Door::Table(c), Kind::Share) => {
            relation == Relation::Own && c == tablekeeper::service::access::Capability::Read
        }
        (Door::Table(c), Kind::Phone) => {
            use tablekeeper::service::access::Capability::{Read, Record, Verify};
            relation == Relation::Own && matches!(c, Read | Record | Verify)
        }
        (_, Kind::Share | Kind::Phone) => false,
    }
}

/// What one club of the world holds.
#[derive(Debug, Clone, Default)]
struct Club {
    id: String,
    session: String,
    table: String,
    season: String,
    invitation: String,
    webhook: String,
    share_link: String,
    share_token: String,
    join_code: String,
    phone_token: String,
    scorer: String,
    /// A member with an account of their own, not one of the callers.
    member: String,
    /// A tournament of the session, `member` among its entrants.
    tournament: String,
}

struct World {
    clubs: BTreeMap<&'static str, Club>,
    owner_email: String,
    callers: Vec<(Kind, Option<String>)>,
    /// The id of the owner's `read` token (what `revoke_api_token` names).
    read_token_id: String,
}

impl World {
    fn club(&self, relation: Relation) -> &Club {
        &self.clubs[match relation {
            Relation::Own => "own",
            Relation::OtherOwners => "other",
            Relation::SameAccounts => "same",
        }]
    }

    fn token(&self, kind: Kind) -> Option<&str> {
        self.callers
            .iter()
            .find(|(k, _)| *k == kind)
            .and_then(|(_, t)| t.as_deref())
    }
}

static UNIQUE: AtomicUsize = AtomicUsize::new(0);

fn unique(prefix: &str) -> String {
    format!("{prefix}{}@example.org", UNIQUE.fetch_add(1, Ordering::Relaxed))
}

/// An account made straight in the store with `hash` (hashing once for all keeps the walk fast),
/// and a password token of it.
async fn account(app: &TestApp, tokens: &Tokens, hash: &str, email: &str) -> (Uuid, String) {
    let mut conn = app.pool.acquire().await.expect("connection");
    let user = tablekeeper::store::users::insert(&mut conn, email, "Member", hash)
        .await
        .expect("user");
    let (token, _) = tokens.issue(user.id, user.token_generation).expect("token");
    (user.id, token)
}

async fn add_member(app: &TestApp, club: &str, user: Uuid, name: &str, role: ClubRole) -> String {
    let mut conn = app.pool.acquire().await.expect("connection");
    tablekeeper::store::clubs::insert_member(&mut conn, club.parse().expect("uuid"), Some((user, role)), name, false)
        .await
        .expect("member")
        .id
        .to_string()
}

fn id(answer: &Value, field: &str) -> String {
    answer[field]
        .as_str()
        .unwrap_or_else(|| panic!("`{field}` in {answer}"))
        .to_owned()
}

async fn made(app: &TestApp, path: &str, token: &str, body: Value) -> Value {
    app.post(path, token, body).await.assert_status(201).clone()
}

/// A club owned by the holder of `owner_token`, with one of everything.
async fn furnish(app: &TestApp, owner_token: &str, target: Uuid) -> Club {
    let club = id(
        &made(app, "/api/v1/clubs", owner_token, json!({"name": "Whist club"})).await,
        "id",
    );
    let member = add_member(app, &club, target, "Target", ClubRole::Viewer).await;
    let session = id(
        &made(
            app,
            "/api/v1/sessions",
            owner_token,
            json!({"name": "Thursday", "club_id": club}),
        )
        .await,
        "id",
    );
    let table = id(
        &made(
            app,
            "/api/v1/tables",
            owner_token,
            json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session}),
        )
        .await,
        "id",
    );
    let mut entrants = vec![member.clone()];
    for name in ["Guest A", "Guest B", "Guest C"] {
        entrants.push(id(
            &made(
                app,
                &format!("/api/v1/clubs/{club}/members"),
                owner_token,
                json!({"name": name, "guest": true}),
            )
            .await,
            "id",
        ));
    }
    let tournament = id(
        &made(
            app,
            &format!("/api/v1/sessions/{session}/tournaments"),
            owner_token,
            json!({"name": "Drive", "game": "nomination-whist", "format": {"kind": "rotation"}, "rounds": 2,
                   "entrants": entrants, "scoring": {"kind": "points"}}),
        )
        .await,
        "id",
    );
    let season = id(
        &made(
            app,
            &format!("/api/v1/clubs/{club}/seasons"),
            owner_token,
            json!({"name": "March", "starts": "2026-03-01", "ends": "2026-03-31", "games": ["nomination-whist"],
                   "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        )
        .await,
        "id",
    );
    let invitation = id(
        &made(
            app,
            &format!("/api/v1/clubs/{club}/invitations"),
            owner_token,
            json!({"role": "viewer"}),
        )
        .await,
        "code",
    );
    let webhook = id(
        &made(
            app,
            &format!("/api/v1/clubs/{club}/webhooks"),
            owner_token,
            json!({"url": "https://club.example.org/hooks", "events": ["deal.finished"]}),
        )
        .await,
        "id",
    );
    let link = made(
        app,
        &format!("/api/v1/sessions/{session}/share-links"),
        owner_token,
        json!({}),
    )
    .await;
    let join_code = id(
        &made(
            app,
            &format!("/api/v1/tables/{table}/join-codes"),
            owner_token,
            json!({}),
        )
        .await,
        "code",
    );
    let joined = app
        .request(
            Method::POST,
            "/api/v1/auth/join",
            None,
            Some(json!({"code": join_code, "name": "Phone"})),
        )
        .await
        .assert_status(200)
        .clone();
    // A second code, for the walk's own `join` and `withdraw_join_code`.
    let join_code = id(
        &made(
            app,
            &format!("/api/v1/tables/{table}/join-codes"),
            owner_token,
            json!({}),
        )
        .await,
        "code",
    );
    Club {
        id: club,
        session,
        table,
        season,
        invitation,
        webhook,
        share_link: id(&link, "id"),
        share_token: id(&link, "token"),
        join_code,
        phone_token: id(&joined, "token"),
        scorer: id(&joined, "scorer_id"),
        member,
        tournament,
    }
}

async fn world(app: &TestApp, tokens: &Tokens, hash: &str) -> World {
    let owner_email = unique("owner");
    let (_, owner) = account(app, tokens, hash, &owner_email).await;
    let (_, stranger) = account(app, tokens, hash, &unique("stranger")).await;
    let mut clubs = BTreeMap::new();
    for (name, token) in [("own", &owner), ("other", &stranger), ("same", &owner)] {
        let (target, _) = account(app, tokens, hash, &unique("target")).await;
        clubs.insert(name, furnish(app, token, target).await);
    }
    let own = clubs["own"].clone();
    let mut callers = vec![
        (Kind::Anonymous, None),
        (Kind::Role(ClubRole::Owner), Some(owner.clone())),
    ];
    for role in &ROLES[1..] {
        let (user, token) = account(app, tokens, hash, &unique("member")).await;
        add_member(app, &own.id, user, &format!("{role:?}"), *role).await;
        callers.push((Kind::Role(*role), Some(token)));
    }
    let mut read_token_id = String::new();
    for scope in Scope::ALL {
        let made = made(
            app,
            "/api/v1/tokens",
            &owner,
            json!({"name": format!("{} token", scope.name()), "club_id": own.id, "scopes": [scope.name()]}),
        )
        .await;
        if scope == Scope::Read {
            read_token_id = id(&made, "id");
        }
        callers.push((Kind::Token(scope), Some(id(&made, "secret"))));
    }
    let all = Scope::ALL.map(Scope::name);
    let revoked = made(
        app,
        "/api/v1/tokens",
        &owner,
        json!({"name": "Revoked", "club_id": own.id, "scopes": all}),
    )
    .await;
    app.request(
        Method::DELETE,
        &format!("/api/v1/tokens/{}", id(&revoked, "id")),
        Some(&owner),
        None,
    )
    .await
    .assert_status(204);
    callers.push((Kind::RevokedToken, Some(id(&revoked, "secret"))));
    let expired = made(
        app,
        "/api/v1/tokens",
        &owner,
        json!({"name": "Expired", "club_id": own.id, "scopes": all, "expires_in_days": 1}),
    )
    .await;
    sqlx::query("update api_tokens set created_at = now() - interval '2 days', expires_at = now() - interval '1 minute' where id = $1")
        .bind(id(&expired, "id").parse::<Uuid>().expect("uuid"))
        .execute(&app.pool)
        .await
        .expect("expired");
    callers.push((Kind::ExpiredToken, Some(id(&expired, "secret"))));
    callers.push((Kind::Share, Some(own.share_token.clone())));
    callers.push((Kind::Phone, Some(own.phone_token.clone())));
    World {
        clubs,
        owner_email,
        callers,
        read_token_id,
    }
}

/// The operation's path with the ids of `club`.
fn path(template: &str, club: &Club, world: &World) -> String {
    let resource = template.split('/').nth(3).unwrap_or_default();
    let id = match resource {
        "clubs" => club.id.as_str(),
        "sessions" => club.session.as_str(),
        "tables" => club.table.as_str(),
        "tournaments" => club.tournament.as_str(),
        "tokens" => world.read_token_id.as_str(),
        _ => "",
    };
    let code = if template.contains("/invitations/") {
        &club.invitation
    } else {
        &club.join_code
    };
    template
        .replace("{id}", id)
        .replace("{member_id}", &club.member)
        .replace("{season_id}", &club.season)
        .replace("{webhook_id}", &club.webhook)
        .replace("{delivery_id}", &Uuid::new_v4().to_string())
        .replace("{link_id}", &club.share_link)
        .replace("{scorer_id}", &club.scorer)
        .replace("{code}", code)
        .replace("{n}", "1")
        .replace("{ruling}", "1")
        .replace("{seq}", "1")
        .replace("{size}", "1")
        // A table's tree: the consistency proof's earlier size is required.
        .replace("/consistency", "/consistency?from=1")
}

/// A body the operation takes, naming `club`'s ids where it names any.
fn body(operation: &str, club: &Club, world: &World) -> Option<Value> {
    Some(match operation {
        "join" => json!({"code": club.join_code}),
        "login" => json!({"email": world.owner_email, "password": PASSWORD}),
        "register" => json!({"email": unique("new"), "name": "New", "password": PASSWORD}),
        "change_password" => json!({"old_password": PASSWORD, "new_password": "another horse battery"}),
        "create_club" => json!({"name": "Another club"}),
        "join_club" => json!({"code": club.invitation}),
        "create_invitation" => json!({"role": "viewer"}),
        "add_club_member" => json!({"name": format!("Guest {}", unique("")), "guest": true}),
        "update_club_member" => json!({"role": "viewer"}),
        "create_season" => json!({"name": "April", "starts": "2026-04-01", "ends": "2026-04-30",
                                  "games": ["nomination-whist"], "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        "create_webhook" => json!({"url": "https://club.example.org/other", "events": ["deal.finished"]}),
        "create_session" => json!({"name": "Friday", "club_id": club.id}),
        "update_session" => json!({"chip_value": {"minor_units": 50, "currency": "GBP"}}),
        // The session has a table still being played: the close is refused (`tables_playing`)
        // and the reopening finds it open (`session_not_closed`), so neither changes what later
        // operations meet.
        "close_session" => json!({}),
        "reopen_session" => json!({"reason": "a walk"}),
        "set_correction_window" => json!({"correction_window": "PT30M"}),
        "set_club_leftover" => json!({"leftover": "share"}),
        "create_share_link" => json!({}),
        "create_table" => {
            json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": club.session})
        }
        "correct_deal" => json!({"moves": [], "expected_version": 0, "reason": "a slip"}),
        "preview_correction" => json!({"moves": []}),
        "verify_deal" => json!({"agree": true}),
        "create_ruling" => json!({"kind": "void", "reason": "a fouled board"}),
        "answer_ruling" => json!({"answer": "agree"}),
        "submit_move" => json!({"move": {"kind": "nominate", "seat": 1, "tricks": 0}}),
        "undo_move" => json!({}),
        "create_api_token" => json!({"name": "Another", "club_id": club.id, "scopes": ["read"]}),
        "create_join_code" => json!({}),
        "create_tournament" => json!({"name": "Another", "game": "nomination-whist", "format": {"kind": "fixed"},
                                      "rounds": 1, "entrants": [club.member], "scoring": {"kind": "points"}}),
        "add_entrant" => json!({"member_id": club.member}),
        // A key of the right shape; a cosignature the phone (without a key yet) cannot have.
        "register_phone_key" => json!({"public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}),
        "submit_cosignature" => json!({"checkpoint": "x\n1\nAA==\n", "cosignature": "\u{2014} x AA=="}),
        // A board's key (registered, once, by whoever reads the session); a board's cosignature
        // that is not one.
        "register_board_key" => json!({"public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}),
        "submit_board_cosignature" => json!({"checkpoint": "x\n1\nAA==\n", "cosignature": "\u{2014} x AA=="}),
        _ => return None,
    })
}

/// Status and problem code of a request; a stream is answered by its status alone.
async fn call(app: &TestApp, method: &Method, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, String) {
    if path.ends_with("/events") {
        let mut req = app.client.get(format!("{}{path}", app.base));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let res = tokio::time::timeout(std::time::Duration::from_secs(10), req.send())
            .await
            .expect("a stream's answer within 10 s")
            .expect("answer");
        let status = res.status().as_u16();
        let code = if status == 200 {
            String::new()
        } else {
            let body: Value = res.json().await.unwrap_or_default();
            body["code"].as_str().unwrap_or_default().to_owned()
        };
        return (status, code);
    }
    let answer = app.request(method.clone(), path, token, body).await;
    if answer.status.is_client_error() {
        assert_eq!(
            answer.content_type, "application/problem+json",
            "{method} {path}: a refusal is a problem: {}",
            answer.text
        );
    }
    (
        answer.status.as_u16(),
        answer.body["code"].as_str().unwrap_or_default().to_owned(),
    )
}

/// Whether an answer says the caller was turned away at the door: unauthenticated, forbidden,
/// or told that the club, session or table it named does not exist (what a stranger hears).
fn turned_away(status: u16, code: &str) -> bool {
    status == 401
        || status == 403
        || (status == 404
            && matches!(
                code,
                "club_not_found" | "session_not_found" | "table_not_found" | "tournament_not_found"
            ))
}

/// What the refused callers could have changed: every row that says who may do what, what a
/// club holds and what was recorded.
async fn fingerprint(pool: &PgPool) -> String {
    let mut all = String::new();
    for (table, columns) in [
        ("users", "id, email, password_hash, token_generation"),
        ("clubs", "*"),
        ("club_members", "*"),
        ("club_sessions", "*"),
        ("game_tables", "id, version, finished"),
        ("moves", "*"),
        ("club_invitations", "*"),
        ("join_codes", "*"),
        ("scorers", "*"),
        ("seasons", "*"),
        ("share_links", "*"),
        ("webhooks", "*"),
        ("webhook_deliveries", "id"),
        ("api_tokens", "id, scopes, revoked_at, expires_at"),
        ("revoked_tokens", "*"),
        ("ledger_bookings", "id"),
        ("verifications", "*"),
        ("corrections", "*"),
        ("tournaments", "*"),
        ("tournament_entrants", "*"),
        ("tournament_rounds", "*"),
        ("tournament_results", "*"),
        ("phone_keys", "*"),
        ("cosignatures", "*"),
        ("board_keys", "*"),
        ("board_cosignatures", "*"),
    ] {
        let sql = format!("select coalesce(md5(string_agg(r::text, '|' order by r::text)), '') from (select {columns} from {table}) r");
        let hash: String = sqlx::query_scalar(&sql)
            .fetch_one(pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        all.push_str(&format!("{table}:{hash} "));
    }
    all
}

#[sqlx::test(migrations = "./migrations")]
async fn every_operation_lets_in_exactly_whom_the_authorization_table_says(pool: PgPool) {
    let app = spawn_app_with(pool, |s| {
        // Thousands of requests from one address: the walk is not a flood.
        s.max_requests_per_client = 10_000;
    })
    .await;
    let tokens = Tokens::new(TEST_SECRET.as_bytes(), chrono::Duration::hours(1));
    let hash = {
        use argon2::password_hash::{PasswordHasher, SaltString};
        let salt = SaltString::encode_b64(b"authorization-walk").expect("salt");
        argon2::Argon2::default()
            .hash_password(PASSWORD.as_bytes(), &salt)
            .expect("hash")
            .to_string()
    };
    let spec: Value = serde_json::from_str(SPEC).expect("spec");
    let mut operations = Vec::new();
    for (template, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            let id = operation["operationId"].as_str().expect("operation id").to_owned();
            operations.push((method, template.clone(), id));
        }
    }
    let missing: Vec<&str> = operations
        .iter()
        .filter(|(_, _, id)| door(id).is_none())
        .map(|(_, _, id)| id.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "operations without a row in api::authorization::OPERATIONS: {missing:?}"
    );
    let stale: Vec<&str> = OPERATIONS
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !operations.iter().any(|(_, _, op)| op == id))
        .collect();
    assert!(
        stale.is_empty(),
        "rows for operations the spec does not have: {stale:?}"
    );

    let mut wrong = Vec::new();
    let mut cells = 0;
    // A read changes nothing (the fingerprint below holds it to that), so every read is walked
    // in one world; each write gets a world of its own, since what it does may close the door
    // the next caller is meant to find open.
    let mut reads_world: Option<World> = None;
    for (method, template, operation) in &operations {
        let door = door(operation).expect("a row");
        let fresh;
        let world = if *method == Method::GET {
            if reads_world.is_none() {
                reads_world = Some(world(&app, &tokens, &hash).await);
            }
            reads_world.as_ref().expect("made above")
        } else {
            fresh = world(&app, &tokens, &hash).await;
            &fresh
        };
        // Only what names a club's ids can be aimed at another club.
        let names_a_club = template.contains("{id}") && !template.starts_with("/api/v1/tokens")
            || matches!(
                operation.as_str(),
                "create_session" | "create_table" | "join" | "join_club"
            );
        let relations: &[Relation] = if names_a_club && !matches!(door, Door::Public | Door::Password) {
            &[Relation::Own, Relation::OtherOwners, Relation::SameAccounts]
        } else {
            &[Relation::Own]
        };
        let mut plan: Vec<(bool, Kind, Relation)> = Vec::new();
        for kind in kinds() {
            for relation in relations {
                plan.push((expected(door, kind, *relation), kind, *relation));
            }
        }
        // The refused first: what the admitted do must not decide what the refused hear.
        plan.sort_by_key(|(admitted, _, _)| *admitted);
        let before = fingerprint(&app.pool).await;
        let mut checked_nothing_changed = false;
        for (admitted, kind, relation) in plan {
            if admitted && !checked_nothing_changed {
                let after = fingerprint(&app.pool).await;
                if before != after {
                    wrong.push(format!("{operation}: the refused callers changed something"));
                }
                checked_nothing_changed = true;
            }
            let club = world.club(relation);
            let path = path(template, club, world);
            let token = world.token(kind);
            let (status, code) = call(&app, method, &path, token, body(operation, club, world)).await;
            cells += 1;
            if turned_away(status, &code) == admitted {
                wrong.push(format!(
                    "{operation} ({method} {path}) by {kind:?} in the {relation:?} club: {status} {code}, \
                     expected {}",
                    if admitted { "to get in" } else { "to be turned away" }
                ));
            }
        }
        if !checked_nothing_changed && before != fingerprint(&app.pool).await {
            wrong.push(format!("{operation}: the refused callers changed something"));
        }
    }
    assert!(cells > 1_500, "{cells} cells walked");
    assert!(
        wrong.is_empty(),
        "{} of {cells} cells wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
