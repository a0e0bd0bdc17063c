//! The scorers of `scripts/bench-scale`: phones recording games card by card as the phone page
//! does, every move with `expected_version` and an `Idempotency-Key`, so that the rows a move
//! writes (its answer kept under the key included) have their real shape and size.
//!
//! `cargo run --release --example scale -- --base URL [--tables N] [--deals D] [--seconds S] [--session] [--mix] [--audit]`
//!
//! Each of N scorers opens a table and plays up to D deals on it (table i plays `1 + i % D`
//! deals, with `--mix` the n-th table of a game `D - n % D`, so table lengths are mixed; fewer
//! when the game ends first), or with `--seconds` keeps opening tables and playing until the time
//! is up. With `--session` the tables belong to one club session. Prints the number of moves and
//! the latency percentiles (`latency p50: … ms`), which the script reads.
//!
//! The tables play Nomination Whist, from its simulator (`sim::random_deal`: players who hold
//! their cards and follow suit). With `--mix` (and without `--seconds`) they are a club evening's
//! mix of every game of `GameId::ALL` (see `mix_slot`): a game with a simulator is played from it
//! (Nomination Whist, Dividend, Tricky Dick, Tridge), any other from the `legal_moves` of each
//! answer, a seeded random choice among them (see `choose`); a line per game (`game <id>: …
//! tables, … moves, … deals, … finished`) is printed too. `--seconds` always plays Nomination
//! Whist, so that the latency rounds compare like with like. `--audit` then audits every table
//! it opened (`GET /tables/{id}/audit`) and prints `audit: C of N tables consistent`.

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use tablekeeper::rules::games::{dividend, nomination_whist, tricky_dick, tridge};
use tablekeeper::rules::{Game, GameId};

struct Args {
    base: String,
    tables: usize,
    deals: usize,
    seconds: Option<f64>,
    session: bool,
    mix: bool,
    audit: bool,
}

fn args() -> Args {
    let mut args = Args {
        base: "http://127.0.0.1:8080".into(),
        tables: 8,
        deals: 3,
        seconds: None,
        session: false,
        mix: false,
        audit: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if let Some(set) = match flag.as_str() {
            "--session" => Some(&mut args.session),
            "--mix" => Some(&mut args.mix),
            "--audit" => Some(&mut args.audit),
            _ => None,
        } {
            *set = true;
            continue;
        }
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--base" => args.base = value,
            "--tables" => args.tables = value.parse().unwrap_or(args.tables),
            "--deals" => args.deals = value.parse::<usize>().unwrap_or(args.deals).max(1),
            "--seconds" => args.seconds = value.parse().ok(),
            _ => eprintln!("ignoring unknown flag {flag}"),
        }
    }
    args
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: Value,
) -> anyhow::Result<Value> {
    let mut req = client.post(url).json(&body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    let res = req.send().await?;
    let status = res.status();
    let body: Value = res.json().await?;
    anyhow::ensure!(status.is_success(), "{url} answered {status}: {body}");
    Ok(body)
}

/// Every table seats four: each game takes four (Tridge's fourth sits out as dealer).
const PLAYERS: usize = 4;

/// What one table came to.
struct Played {
    id: String,
    game: GameId,
    latencies: Vec<Duration>,
    /// The deals (Tricky Dick's hands) that got a move.
    deals: u64,
    finished: bool,
}

async fn open_table(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    session: Option<&str>,
    game: GameId,
    seed: u64,
) -> anyhow::Result<Value> {
    let players: Vec<String> = ["A", "B", "C", "D", "E", "F", "G", "H"]
        .iter()
        .take(PLAYERS)
        .map(|p| format!("{p}{seed}"))
        .collect();
    post(
        client,
        &format!("{base}/api/v1/tables"),
        Some(token),
        None,
        json!({"game": game, "players": players, "session_id": session}),
    )
    .await
}

/// Sends one move as the phone page does; returns the answer and the request's latency.
async fn submit(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    id: &str,
    mv: &Value,
    version: i64,
) -> anyhow::Result<(Value, Duration)> {
    // The phone page's key: one per entry it sends, kept across its retries.
    let key = uuid::Uuid::new_v4().to_string();
    let started = Instant::now();
    let body = json!({"move": mv, "expected_version": version});
    let answer = post(
        client,
        &format!("{base}/api/v1/tables/{id}/moves"),
        Some(token),
        Some(&key),
        body,
    )
    .await?;
    Ok((answer, started.elapsed()))
}

/// Where a table's moves come from.
#[derive(Clone, Copy)]
struct Table<'a> {
    client: &'a reqwest::Client,
    base: &'a str,
    token: &'a str,
    session: Option<&'a str>,
    game: GameId,
    seed: u64,
    deals: usize,
}

/// Plays `deals` deals on a new table (fewer if the game ends or `until` passes first), the moves
/// from the game's simulator: `deal` deals the next deal with a seed and plays it on `engine`,
/// the table's state kept here as the server keeps it.
async fn play_sim<G: Game>(
    t: Table<'_>,
    mut engine: G,
    until: Option<Instant>,
    mut deal: impl FnMut(&mut G, u64) -> anyhow::Result<Vec<G::Move>>,
) -> anyhow::Result<Played> {
    let table = open_table(t.client, t.base, t.token, t.session, t.game, t.seed).await?;
    let id = table["id"].as_str().unwrap_or_default().to_owned();
    let mut played = Played {
        id: id.clone(),
        game: t.game,
        latencies: Vec::new(),
        deals: 0,
        finished: false,
    };
    let mut version = 0;
    for n in 0..t.deals {
        let moves = deal(&mut engine, t.seed.wrapping_mul(1000).wrapping_add(n as u64))?;
        played.deals += 1;
        for mv in &moves {
            if until.is_some_and(|until| Instant::now() >= until) {
                return Ok(played);
            }
            let (_, latency) = submit(t.client, t.base, t.token, &id, &serde_json::to_value(mv)?, version).await?;
            played.latencies.push(latency);
            version += 1;
        }
        if engine.is_finished() {
            break;
        }
    }
    played.finished = engine.is_finished();
    Ok(played)
}

/// Plays a table of `t.game`: from its simulator when it has one (players who hold their cards
/// and follow suit: choosing among `legal_moves`, which list every unseen card, would revoke
/// every few cards), else from `legal_moves`. `until` (the latency rounds) is for Nomination
/// Whist only.
async fn play(t: Table<'_>, until: Option<Instant>) -> anyhow::Result<Played> {
    fn setup<G: Game>() -> anyhow::Result<G> {
        G::new(PLAYERS, G::Options::default()).map_err(|e| anyhow::anyhow!("{e}"))
    }
    match t.game {
        GameId::NominationWhist => {
            play_sim(t, setup()?, until, |g, seed| {
                Ok(nomination_whist::sim::random_deal(g, seed)?.moves)
            })
            .await
        }
        GameId::Dividend => {
            play_sim(t, setup()?, until, |g, seed| {
                Ok(dividend::sim::random_deal(g, seed)?.moves)
            })
            .await
        }
        GameId::TrickyDick => {
            play_sim(t, setup()?, until, |g, seed| {
                Ok(tricky_dick::sim::random_hand(g, seed)?.moves)
            })
            .await
        }
        GameId::Tridge => play_sim(t, setup()?, until, |g, seed| Ok(tridge::sim::random_deal(g, seed)?)).await,
        _ => play_legal(t).await,
    }
}

/// A table that neither finishes nor reaches its deal cap within this many moves is a bug here
/// (a move kind chosen that never ends a deal), not a long game: stop rather than play forever.
const MOVES_PER_TABLE: usize = 20_000;

/// Plays `deals` deals of `game` on a new table, or until the game ends: each move chosen from
/// the `legal_moves` of the answer to the last one, as a phone shows them.
async fn play_legal(t: Table<'_>) -> anyhow::Result<Played> {
    let Table {
        client,
        base,
        token,
        game,
        deals,
        ..
    } = t;
    let mut rng = StdRng::seed_from_u64(t.seed);
    let mut table = open_table(client, base, token, t.session, game, t.seed).await?;
    let id = table["id"].as_str().unwrap_or_default().to_owned();
    let mut played = Played {
        id: id.clone(),
        game,
        latencies: Vec::new(),
        deals: 0,
        finished: false,
    };
    while table["finished"] != true {
        let state = &table["state"];
        // Tricky Dick counts hands; every other game deals.
        let deal = state["deal"].as_u64().or_else(|| state["hand"].as_u64()).unwrap_or(0);
        if deal > deals as u64 {
            break;
        }
        anyhow::ensure!(
            played.latencies.len() < MOVES_PER_TABLE,
            "{game} table {id}: still on deal {deal} after {MOVES_PER_TABLE} moves"
        );
        let legal = &state["legal_moves"];
        let mv = choose(legal, &mut rng)
            .ok_or_else(|| anyhow::anyhow!("{game} table {id}: nothing to choose among {legal}"))?;
        let version = table["version"].as_i64().unwrap_or_default();
        let (mut answer, latency) = submit(client, base, token, &id, &mv, version)
            .await
            .map_err(|e| e.context(format!("{game} table {id}: {mv} from {legal}")))?;
        played.latencies.push(latency);
        played.deals = played.deals.max(deal);
        table = answer["table"].take();
    }
    played.finished = table["finished"] == true;
    Ok(played)
}

/// Kinds never chosen: a deal entered in another form than card by card (a result, Dividend's
/// trick by trick, Tridge's optional stock count), and the Widow's Fund's settlement, which ends
/// a Tridge evening rather than a deal.
const NOT_CARD_BY_CARD: &[&str] = &["result", "trick", "count_stock", "settle_widows_fund"];

/// A move made from one of `legal_moves`, chosen at random among those listed (every kind and
/// seat alike), with a random choice among its listed values. Hands are hidden from the
/// service, so a card is any the view lists: right for the games of runs (Pope Joan, Spin,
/// Newmarket), whose plays are the next card of a run or any lead, not for trick games, which
/// would revoke (those have simulators).
fn choose(legal: &Value, rng: &mut StdRng) -> Option<Value> {
    let mut entries: Vec<&Map<String, Value>> = legal
        .as_array()?
        .iter()
        .filter_map(Value::as_object)
        .filter(|m| {
            m.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| !NOT_CARD_BY_CARD.contains(&k))
        })
        .collect();
    entries.shuffle(rng);
    entries.into_iter().find_map(|entry| build(entry, rng))
}

fn pick(entry: &Map<String, Value>, field: &str, rng: &mut StdRng) -> Option<Value> {
    entry.get(field)?.as_array()?.choose(rng).cloned()
}

/// The move a listed entry stands for, its values chosen; None for a kind this player does not
/// know or an entry with nothing to choose.
fn build(entry: &Map<String, Value>, rng: &mut StdRng) -> Option<Value> {
    let kind = entry.get("kind")?.as_str()?;
    let mut mv = Map::new();
    mv.insert("kind".into(), kind.into());
    if let Some(seat) = entry.get("seat") {
        mv.insert("seat".into(), seat.clone());
    }
    match kind {
        "play" => {
            // Now and then the holder of Spin plays it beside a card.
            let with_spin = pick(entry, "with_spin", rng).filter(|_| rng.gen_ratio(1, 6));
            if let Some(card) = with_spin {
                mv.insert("card".into(), card);
                mv.insert("spin".into(), true.into());
            } else {
                mv.insert("card".into(), pick(entry, "cards", rng)?);
            }
        }
        "turn_up" => {
            mv.insert("card".into(), pick(entry, "cards", rng)?);
        }
        "nominate" => {
            mv.insert("tricks".into(), pick(entry, "tricks", rng)?);
        }
        "bid" => {
            mv.insert("bid".into(), pick(entry, "bids", rng)?);
        }
        "fixed_bid" => {
            let choice = pick(entry, "bids", rng)?;
            mv.insert("tricks".into(), choice.get("tricks")?.clone());
            mv.insert("trumps".into(), choice.get("trumps")?.clone());
        }
        "declare" => {
            let mut contracts = entry.get("contracts")?.as_array()?.clone();
            if let Some(turned) = pick(entry, "flip_cards", rng) {
                contracts.push(json!({"contract": "flip", "turned": turned}));
            }
            mv.insert("contract".into(), contracts.choose(rng)?.clone());
        }
        "exchange" => {
            mv.insert("cards".into(), pick(entry, "cards", rng)?);
        }
        "defence" => {
            mv.insert("first_defender".into(), pick(entry, "first_defenders", rng)?);
        }
        "first_trick" => {
            // Trick 1 is each seat's sixteenth card: four different cards.
            let cards: Vec<Value> = entry
                .get("cards")?
                .as_array()?
                .choose_multiple(rng, 4)
                .cloned()
                .collect();
            if cards.len() < 4 {
                return None;
            }
            mv.insert("cards".into(), cards.into());
        }
        "pope_in_lieu" | "spin_holder" => {
            mv.insert("seat".into(), pick(entry, "seats", rng)?);
        }
        "pope_holder" => {
            let mut holders = entry.get("seats")?.as_array()?.clone();
            if entry.get("spare_hand") == Some(&Value::Bool(true)) {
                holders.push(Value::Null);
            }
            mv.insert("seat".into(), holders.choose(rng)?.clone());
        }
        "show" => {
            mv.insert("combination".into(), pick(entry, "combinations", rng)?);
        }
        "layout" => {
            let (pool_cards, stakes) = layout(entry, rng)?;
            mv.insert("pool_cards".into(), pool_cards);
            mv.insert("stakes".into(), stakes);
        }
        "pass" | "pass_out" | "in_come" | "give_up" | "stop" => {}
        _ => return None,
    }
    Some(mv.into())
}

/// Newmarket's layout: one pool card of each rank offered, in four different suits, and each
/// seat's stake on a pool card, every pool staked while there are seats to go round.
fn layout(entry: &Map<String, Value>, rng: &mut StdRng) -> Option<(Value, Value)> {
    let offered: Vec<&str> = entry
        .get("pool_cards")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut ranks: Vec<&str> = Vec::new();
    let mut suits: Vec<&str> = Vec::new();
    for &card in &offered {
        let (rank, suit) = card.split_at(card.len().saturating_sub(1));
        if !ranks.contains(&rank) {
            ranks.push(rank);
        }
        if !suits.contains(&suit) {
            suits.push(suit);
        }
    }
    suits.shuffle(rng);
    let pool_cards: Vec<String> = ranks
        .iter()
        .zip(&suits)
        .map(|(rank, suit)| format!("{rank}{suit}"))
        .collect();
    if pool_cards.len() != ranks.len() || pool_cards.iter().any(|c| !offered.contains(&c.as_str())) {
        return None;
    }
    let seats = entry.get("seats")?.as_u64()? as usize;
    let mut order = pool_cards.clone();
    order.shuffle(rng);
    let stakes: Vec<&String> = order.iter().cycle().take(seats).collect();
    Some((json!(pool_cards), json!(stakes)))
}

/// The game of table `i` with `--mix`, and how many tables of that game come before it: a club
/// evening as we picture it (an assumption, not a survey), Nomination Whist, the staple, on every
/// other table, and the other games of `GameId::ALL` taking turns on the rest, so that each is on
/// one table in 2 × (games − 1).
fn mix_slot(i: usize) -> (GameId, usize) {
    let others: Vec<GameId> = GameId::ALL
        .iter()
        .copied()
        .filter(|&g| g != GameId::NominationWhist)
        .collect();
    if i % 2 == 0 || others.is_empty() {
        (GameId::NominationWhist, i / 2)
    } else {
        (others[(i / 2) % others.len()], i / 2 / others.len())
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args();
    let client = reqwest::Client::new();
    let email = format!("scale-{}-{}@bench.invalid", std::process::id(), uuid::Uuid::new_v4());
    let registered = post(
        &client,
        &format!("{}/api/v1/auth/register", args.base),
        None,
        None,
        json!({"email": email, "name": "Scale", "password": "scale test password"}),
    )
    .await?;
    let token = registered["token"].as_str().unwrap_or_default().to_owned();
    let session = if args.session {
        let session = post(
            &client,
            &format!("{}/api/v1/sessions", args.base),
            Some(&token),
            None,
            json!({"name": "Scale"}),
        )
        .await?;
        Some(session["id"].as_str().unwrap_or_default().to_owned())
    } else {
        None
    };

    if args.mix && args.seconds.is_some() {
        eprintln!("--seconds plays Nomination Whist only: ignoring --mix");
    }
    let mix = args.mix && args.seconds.is_none();
    let started = Instant::now();
    let until = args.seconds.map(|s| started + Duration::from_secs_f64(s));
    let tasks: Vec<_> = (0..args.tables)
        .map(|i| {
            let (client, base, token, session) = (client.clone(), args.base.clone(), token.clone(), session.clone());
            let (game, nth) = if mix { mix_slot(i) } else { (GameId::NominationWhist, i) };
            // Lengths mixed: alone, table i plays 1 + i % D deals; in a mix the n-th table of a
            // game plays D - n % D, so that the first of each game (the only one of a rare game
            // in a small mix) can play its game to the end.
            let deals = if until.is_some() {
                args.deals
            } else if mix {
                args.deals - nth % args.deals
            } else {
                1 + nth % args.deals
            };
            tokio::spawn(async move {
                let mut tables = Vec::new();
                for round in 0u64.. {
                    let seed = (i as u64 + 1) + round * 1_000_003;
                    let table = Table {
                        client: &client,
                        base: &base,
                        token: &token,
                        session: session.as_deref(),
                        game,
                        seed,
                        deals,
                    };
                    tables.push(play(table, until).await?);
                    if until.is_none_or(|until| Instant::now() >= until) {
                        break;
                    }
                }
                anyhow::Ok(tables)
            })
        })
        .collect();
    let mut tables = Vec::new();
    for task in tasks {
        tables.extend(task.await??);
    }
    let mut latencies: Vec<Duration> = tables.iter().flat_map(|t| t.latencies.iter().copied()).collect();
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    println!(
        "moves: {} in {:.2} s = {:.0} moves/s",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64()
    );
    for (name, p) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
        println!(
            "latency {name}: {:.3} ms",
            percentile(&latencies, p).as_secs_f64() * 1000.0
        );
    }
    if args.audit {
        let mut consistent = 0;
        for table in &tables {
            let url = format!("{}/api/v1/tables/{}/audit", args.base, table.id);
            let audit: Value = client.get(&url).bearer_auth(&token).send().await?.json().await?;
            if audit["consistent"] == true {
                consistent += 1;
            } else {
                eprintln!("{} table {}: {audit}", table.game, table.id);
            }
        }
        println!("audit: {consistent} of {} tables consistent", tables.len());
    }
    if mix {
        for &game in GameId::ALL {
            let of_game: Vec<&Played> = tables.iter().filter(|t| t.game == game).collect();
            println!(
                "game {game}: {} tables, {} moves, {} deals, {} finished",
                of_game.len(),
                of_game.iter().map(|t| t.latencies.len()).sum::<usize>(),
                of_game.iter().map(|t| t.deals).sum::<u64>(),
                of_game.iter().filter(|t| t.finished).count()
            );
        }
    }
    Ok(())
}
