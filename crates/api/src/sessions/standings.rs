//! A session's standings and its settle-up.

use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::ChipValue;
use crate::auth::Reads;
use crate::error::{ApiError, Problem};
use crate::reads::ReadPool;
use tablekeeper_service::{closing, sessions};

/// One seat a player held, with what it won or lost there.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeatResult {
    pub table_id: Uuid,
    pub game: String,
    pub seat: u8,
    /// The name as typed at that table.
    pub name: String,
    /// Chips won (positive) or lost: what the seat holds less what the bank issued to it (its
    /// buy-in; its stakes on a board or in a fund count as its chips until won); null at a table
    /// that books no chips to seats.
    pub chips: Option<i64>,
    /// The score sheet's total at a points game (Nomination Whist, Dividend, Tricky Dick); null
    /// at a chips game.
    pub points: Option<i64>,
}

/// Points over a game's tables.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct GamePoints {
    pub game: String,
    pub points: i64,
}

/// A player across the session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PlayerStanding {
    /// The roster member; null for a player of a table stored before the roster whose name
    /// matches no member.
    pub member_id: Option<Uuid>,
    pub player: String,
    /// Chips won or lost over every table: what the seats hold less what the bank issued to
    /// them.
    pub chips: i64,
    /// Points per game, over that game's tables.
    pub points: Vec<GamePoints>,
    pub seats: Vec<SeatResult>,
}

/// Every player's net chips and points across the session's tables, matched by roster member.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionStandings {
    pub session_id: Uuid,
    /// In order of first seat.
    pub players: Vec<PlayerStanding>,
    /// Over every player: what the players lost to the pools, `-pools_chips`.
    pub total_chips: i64,
    /// What the tables' pools and funds hold (and, at a game played against the bank, what the
    /// bank took beyond what it issued): chips no player has won yet. With `total_chips` and
    /// `banked_chips` it sums to zero.
    pub pools_chips: i64,
    /// What tournaments' rounds, closing, moved out of their tables' pools into the bank (the
    /// `bank` and `carry` leftover rules), less what a carry put on later rounds' boards; left
    /// out when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub banked_chips: i64,
    /// Every reopening of the session, oldest first, shown beside its result ever after; left
    /// out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopenings: Vec<super::Reopening>,
}

fn standing(p: &sessions::Standing) -> PlayerStanding {
    PlayerStanding {
        member_id: p.identity.member(),
        player: p.name.clone(),
        chips: p.chips,
        points: p
            .points
            .iter()
            .map(|(game, points)| GamePoints {
                game: game.clone(),
                points: *points,
            })
            .collect(),
        seats: p
            .seats
            .iter()
            .map(|s| SeatResult {
                table_id: s.table,
                game: s.game.clone(),
                seat: s.seat,
                name: s.name.clone(),
                chips: s.chips,
                points: s.points,
            })
            .collect(),
    }
}

/// The session's standings: each player's chips won or lost (what their seats hold less what the
/// bank issued to them) and points across its tables, a player being a roster member whatever
/// the spelling at each table; and what the pools hold.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = SessionStandings),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/standings")]
pub async fn get_session_standings(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let standings = sessions::standings(&pool, *id).await?;
    Ok(HttpResponse::Ok().json(SessionStandings {
        session_id: standings.session.id,
        total_chips: standings.players.iter().map(|p| p.chips).sum(),
        pools_chips: standings.pools,
        banked_chips: standings.banked,
        players: standings.players.iter().map(standing).collect(),
        reopenings: super::reopenings(&closing::reopenings(&pool, *id).await?),
    }))
}

/// A player in a payment, or the tables' pools and funds (`pools`), which hold chips that no
/// player has won yet, or the bank (`bank`: what tournaments' `bank` leftover rule moved into it).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Party {
    pub member_id: Option<Uuid>,
    /// Empty for the pools and the bank.
    pub player: String,
    pub pools: bool,
    /// Left out but for the bank.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bank: bool,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// One transfer a tournament's round, closing, booked out of a table's pools (its `leftover`
/// rule): `chips` from the pool `from` (`pool:<name>`) to `to` (`seat:<n>`, seat numbers from 0,
/// or `bank`).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LeftoverTransfer {
    pub tournament_id: Uuid,
    pub round: u32,
    /// The round's table number.
    pub table: u32,
    pub table_id: Uuid,
    #[schema(example = "pool:pope")]
    pub from: String,
    #[schema(example = "seat:0")]
    pub to: String,
    /// Positive.
    pub chips: i64,
}

/// One payment: `from` pays `to`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PaymentView {
    pub from: Party,
    pub to: Party,
    /// Positive.
    pub chips: i64,
    /// In minor units of the session's currency; null when the session sets no chip value.
    pub minor_units: Option<i64>,
    pub currency: Option<String>,
}

/// A party's net chips, which the payments bring to zero: what the party pays less what it is
/// paid is `-chips`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PartyNet {
    pub party: Party,
    /// A player's: the standings' `chips`. The pools': what they hold, positive.
    pub chips: i64,
}

/// Who pays whom.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Settlement {
    pub session_id: Uuid,
    pub chip_value: Option<ChipValue>,
    /// Every party that settles: each player that won or lost chips, then the pools when they
    /// hold any. The nets sum to zero.
    pub nets: Vec<PartyNet>,
    /// The fewest payments that bring every party's net chips, the pools' included, to zero.
    pub payments: Vec<PaymentView>,
    /// What tournaments' rounds moved out of their tables' pools as they closed (the
    /// `leftover` rule), already counted in the nets; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leftovers: Vec<LeftoverTransfer>,
    /// Every reopening of the session, oldest first, shown beside its settle-up ever after;
    /// left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopenings: Vec<super::Reopening>,
}

/// Settle-up: who pays whom at the end of the night, in as few payments as can be, from each
/// player's net chips (what their seats hold less what the bank issued to them) and what the
/// pools hold (the stakes no one has won yet, which the players paid in); in money too when the
/// session sets a chip value.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = Settlement),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/settlement")]
pub async fn get_session_settlement(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let (standings, payments) = sessions::settlement(&pool, *id).await?;
    let chip_value = ChipValue::of(&standings.session);
    let party = |s: &sessions::Party| match s {
        sessions::Party::Player(s) => {
            let p = standing(s);
            Party {
                member_id: p.member_id,
                player: p.player,
                pools: false,
                bank: false,
            }
        }
        sessions::Party::Pools => Party {
            member_id: None,
            player: String::new(),
            pools: true,
            bank: false,
        },
        sessions::Party::Bank => Party {
            member_id: None,
            player: String::new(),
            pools: false,
            bank: true,
        },
    };
    let mut nets: Vec<PartyNet> = standings
        .players
        .iter()
        .filter(|p| p.chips != 0)
        .map(|p| PartyNet {
            party: party(&sessions::Party::Player(p.clone())),
            chips: p.chips,
        })
        .collect();
    if standings.pools != 0 {
        nets.push(PartyNet {
            party: party(&sessions::Party::Pools),
            chips: standings.pools,
        });
    }
    if standings.banked != 0 {
        nets.push(PartyNet {
            party: party(&sessions::Party::Bank),
            chips: standings.banked,
        });
    }
    let leftovers = standings
        .leftovers
        .iter()
        .map(|(tournament, l)| LeftoverTransfer {
            tournament_id: *tournament,
            round: u32::try_from(l.round).unwrap_or(0),
            table: u32::try_from(l.table_number).unwrap_or(0),
            table_id: l.table_id,
            from: l.from_account.clone(),
            to: l.to_account.clone(),
            chips: l.amount,
        })
        .collect();
    Ok(HttpResponse::Ok().json(Settlement {
        session_id: standings.session.id,
        nets,
        payments: payments
            .iter()
            .map(|p| PaymentView {
                from: party(&p.from),
                to: party(&p.to),
                chips: p.chips,
                minor_units: p.money,
                currency: p.money.and(chip_value.as_ref().map(|c| c.currency.clone())),
            })
            .collect(),
        leftovers,
        chip_value,
        reopenings: super::reopenings(&closing::reopenings(&pool, *id).await?),
    }))
}
