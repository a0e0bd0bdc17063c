//! Plays a short Nomination Whist game through the Rust client openapi-generator (`rust`,
//! `library=reqwest`) generates from openapi/openapi.json: register, open a table, record the
//! game, read its scores, ledger, the session's standings and the scores as CSV.
//!
//! Run by scripts/clients, which builds it as a cargo project beside the generated crate:
//! `walkthrough BASE_URL`. Every body is one of the generated types; nothing is built as JSON here.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use tablekeeper_client::apis::auth_api::{self, RegisterParams};
use tablekeeper_client::apis::configuration::Configuration;
use tablekeeper_client::apis::sessions_api::{self, CreateSessionParams, GetSessionStandingsParams};
use tablekeeper_client::apis::tables_api::{
    self, CreateJoinCodeParams, CreateTableParams, GetScoresCsvParams, GetScoresParams, GetTableLedgerParams,
    SubmitMoveError, SubmitMoveParams,
};
use tablekeeper_client::apis::{Error, ResponseContent};
use tablekeeper_client::models::{
    move_play, nomination_whist_create_table, nomination_whist_move_nominate, problem, AnyMove, CreateSession,
    CreateTable, MovePlay, MovePlayCard, NominationWhistCreateTable, NominationWhistMoveNominate,
    NominationWhistOptionsRequest, RegisterRequest, Scores, SubmitMove, TableView,
};

type Failure = Box<dyn std::error::Error>;

fn check(condition: bool, what: impl std::fmt::Display) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(format!("rust client: {what}").into())
    }
}

// A move is taken by its kind: a `play` is one type at every game's table.
fn nominate(seat: i32, tricks: i32) -> AnyMove {
    AnyMove::NominationWhistMoveNominate(Box::new(NominationWhistMoveNominate::new(
        nomination_whist_move_nominate::Kind::Nominate,
        seat,
        tricks,
    )))
}

fn play(seat: i32, card: &str) -> AnyMove {
    AnyMove::MovePlay(Box::new(MovePlay::new(
        MovePlayCard::Card(card.to_owned()),
        move_play::Kind::Play,
        seat,
    )))
}

fn main() -> ExitCode {
    let base_url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".to_owned());
    match walk(&base_url) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::FAILURE
        }
    }
}

fn walk(base_url: &str) -> Result<(), Failure> {
    let mut config = Configuration {
        base_path: base_url.to_owned(),
        ..Configuration::default()
    };
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let email = format!("rs-{}-{nanos}@club.example", std::process::id());
    let register = RegisterRequest::new(email, "Ada".to_owned(), "correct horse battery".to_owned());
    let token = auth_api::register(
        &config,
        RegisterParams {
            register_request: register,
            idempotency_key: None,
        },
    )?;
    config.bearer_access_token = Some(token.token);

    let session = sessions_api::create_session(
        &config,
        CreateSessionParams {
            create_session: CreateSession::new("Thursday club night".to_owned()),
            idempotency_key: None,
        },
    )?;
    // Options left out take the server's defaults: only hand_sizes is given.
    let mut body = NominationWhistCreateTable::new(
        nomination_whist_create_table::Game::NominationWhist,
        vec!["Ann".to_owned(), "Bob".to_owned(), "Cat".to_owned()],
    );
    body.options = Some(Some(Box::new(NominationWhistOptionsRequest {
        hand_sizes: Some(Some(vec![1, 2])),
        ..NominationWhistOptionsRequest::default()
    })));
    body.session_id = Some(Some(session.id));
    let opened = tables_api::create_table(
        &config,
        CreateTableParams {
            create_table: CreateTable::NominationWhistCreateTable(Box::new(body)),
            idempotency_key: None,
        },
    )?;
    let TableView::NominationWhistTableView(table) = opened else {
        return Err(format!("rust client: create_table answered another game's view: {opened:?}").into());
    };
    let id = table.id.to_string();
    let code = tables_api::create_join_code(&config, CreateJoinCodeParams { id: id.clone(), idempotency_key: None })?;
    check(code.code.len() == 8, format!("join code {:?}", code.code))?;

    // Out of turn: seat 1 (the dealer's left) nominates first, not seat 2.
    let refused = tables_api::submit_move(
        &config,
        SubmitMoveParams {
            id: id.clone(),
            submit_move: SubmitMove::new(nominate(2, 0)),
            idempotency_key: None,
            if_match: None,
        },
    );
    // The generated error enum is untagged and every status answers a `Problem`, so the body reads
    // as the first variant (`Status400`) whatever the status: the status is `status`.
    let problem = match refused {
        Err(Error::ResponseError(ResponseContent {
            status,
            entity: Some(SubmitMoveError::Status400(problem)),
            ..
        })) if status.as_u16() == 422 => problem,
        other => return Err(format!("rust client: out of turn answered {other:?}").into()),
    };
    check(
        problem.code == problem::Code::NotYourTurn,
        format!("out of turn code {:?}", problem.code),
    )?;

    let mut version = table.version;
    let mut finished = false;
    let mut record = |m: AnyMove| -> Result<(), Failure> {
        let mut submit = SubmitMove::new(m);
        submit.expected_version = Some(Some(version));
        let answer = tables_api::submit_move(
            &config,
            SubmitMoveParams {
                id: id.clone(),
                submit_move: submit,
                idempotency_key: None,
                if_match: None,
            },
        )?;
        let TableView::NominationWhistTableView(view) = *answer.table else {
            return Err("rust client: a move answered another game's view".into());
        };
        version = view.version;
        finished = view.finished;
        Ok(())
    };
    // Deal 1: one card each, seat 0 deals, seat 1 leads.
    for m in [nominate(1, 0), nominate(2, 1), nominate(0, 0)] {
        record(m)?;
    }
    for m in [play(1, "2H"), play(2, "AH"), play(0, "3H")] {
        record(m)?;
    }
    // Deal 2: two cards each, seat 1 deals, seat 2 leads and wins both tricks.
    for m in [nominate(2, 2), nominate(0, 0), nominate(1, 1)] {
        record(m)?;
    }
    for m in [
        play(2, "AS"),
        play(0, "2S"),
        play(1, "3S"),
        play(2, "KS"),
        play(0, "4S"),
        play(1, "5S"),
    ] {
        record(m)?;
    }
    check(finished, "the game is finished after two deals")?;

    let scores = tables_api::get_scores(
        &config,
        GetScoresParams {
            id: id.clone(),
            if_none_match: None,
        },
    )?;
    let Scores::NominationWhistScores(scores) = scores else {
        return Err(format!("rust client: scores of another game: {scores:?}").into());
    };
    let sheet = scores.sheet;
    check(
        sheet.finished && sheet.deals.len() == 2,
        format!("score sheet {sheet:?}"),
    )?;
    let ledger = tables_api::get_table_ledger(
        &config,
        GetTableLedgerParams {
            id: id.clone(),
            deal: None,
            if_none_match: None,
        },
    )?;
    let standings = sessions_api::get_session_standings(
        &config,
        GetSessionStandingsParams {
            id: session.id.to_string(),
        },
    )?;
    check(
        standings.players.len() == 3,
        format!("standings of three players: {standings:?}"),
    )?;
    // The CSV download is an operation of its own: the JSON answers above are typed as JSON only.
    // A CSV answer is a file (`format: binary`): the generated call hands back the response.
    let csv = tables_api::get_scores_csv(&config, GetScoresCsvParams { id })?.text()?;
    let rows: Vec<&str> = csv.trim_end().split("\r\n").collect();
    check(
        rows.len() == 3 && rows[0].starts_with("deal"),
        format!("scores.csv: a header and a row per deal: {csv:?}"),
    )?;
    println!(
        "rust client: {} deals, totals {:?}, {} bookings, {} players in the standings, {} CSV rows, \
         out-of-turn move refused with {:?}",
        sheet.deals.len(),
        sheet.totals,
        ledger.bookings.len(),
        standings.players.len(),
        rows.len() - 1,
        problem.code,
    );
    Ok(())
}
