//! `qr`, `reset-password`.
//!
//! A failure to start is one sentence on stderr and a non-zero exit status, never a backtrace.

// The rules engine and the service allocate many small, short-lived values (events, plays,
// JSON); mimalloc serves them markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use tablekeeper::{app::Application, config::Settings};

fn usage() -> String {
    let mut text = String::from(
        "usage: tablekeeper [serve | migrate | openapi | healthcheck | verify FILE [--key PUBLIC_KEY]... [--receipts FILE...] [--final FILE]...
                    | verify --inclusion FILE --checkpoint FILE [--key PUBLIC_KEY]...
                    | verify --consistency FILE [--checkpoint FILE] [--key PUBLIC_KEY]...
                    | verify --checkpoints FILE... [--key PUBLIC_KEY]...
                    | qr TEXT | reset-password EMAIL_OR_NAME | fingerprint | --version | help]

  serve        run the HTTP server (the default); creates the database and applies migrations
  migrate      create the database if needed, apply migrations and exit
  openapi      print the OpenAPI document (as committed at openapi/openapi.json)
  healthcheck  ask the server on BIND whether it is ready (exit status 0 if so); for container probes
  fingerprint  print the fingerprint of this build's API and stored shapes (docs/releases.md)
  verify --inclusion PROOF --checkpoint CHECKPOINT [--key PUBLIC_KEY]...
               check offline that one log entry is in a table's Merkle tree: PROOF is what
               GET /tables/{id}/moves/{seq}/proof answered, CHECKPOINT a checkpoint kept (GET
               /tables/{id}/checkpoint, or the proof's own); yes or no, exit status 0 or 1
  verify --consistency PROOF [--checkpoint CHECKPOINT] [--key PUBLIC_KEY]...
               check offline that a table's log only grew: PROOF is what GET
               /tables/{id}/consistency?from=M answered, CHECKPOINT one kept at size M (a
               phone's, a treasurer's), which must be the tree the proof starts from
  verify --checkpoints CHECKPOINT... [--key PUBLIC_KEY]...
               compare checkpoints kept by different phones: two of one table and one size with
               different root hashes are a fork (the service showed two histories), named with
               both roots; exit status 0 when there is none, 1 when there is
  verify       check a session's audit bundle offline (no database, no network): its signature
               (by one of the PUBLIC_KEYs, hex, when given: --key again, or commas, for the keys
               before a rotation; GET /api/v1/audit-key lists them), its hash chains, a replay of
               every table, and the receipts the phones kept (--receipts: files of one receipt or
               an array): the bundle must hold, at each receipt's position, the link it signed;
               and the final checkpoints kept (--final: GET /sessions/{id}/final's answers) with
               the bundle's own: nothing of the session may have changed after it was final;
               exit status 0 with a one-line summary, or 1 naming the first discrepancy
  qr           print TEXT (the address phones open) as a QR code in the terminal
  reset-password
               set an organiser's password (found by email, or by name when only one has it)
               to the one line read from stdin, and sign out every token of theirs; for an
               operator on the server, no e-mail needed
  help         print this

configuration (environment variables, default in brackets):
",
    );
    for (name, default, meaning) in tablekeeper::config::VARIABLES {
        text.push_str(&format!("  {name:<28} {meaning} [{default}]\n"));
    }
    text
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| matches!(a.as_str(), "help" | "--help" | "-h")) {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    if matches!(args.first().map(String::as_str), Some("--version" | "-V" | "version")) {
        println!("tablekeeper {} (commit {})", tablekeeper::VERSION, tablekeeper::COMMIT);
        return ExitCode::SUCCESS;
    }
    let command = args.first().map_or("serve", String::as_str);
    let outcome = match command {
        "openapi" => {
            print!("{}", tablekeeper::api::openapi::spec_json());
            Ok(())
        }
        "healthcheck" => healthcheck(),
        // For scripts/release: what the release records (docs/releases.md).
        "fingerprint" => tablekeeper::release::fingerprint()
            .map(|f| println!("{f}"))
            .map_err(anyhow::Error::from),
        "verify" => return verify(&args[1..]),
        "qr" => qr(&args[1..]),
        "serve" | "migrate" => start(command).await,
        "reset-password" => match &args[1..] {
            [who] => reset_password(who).await,
            _ => Err(anyhow::anyhow!(
                "usage: tablekeeper reset-password EMAIL_OR_NAME (the new password on stdin)"
            )),
        },
        other => {
            eprint!("{}", usage());
            Err(anyhow::anyhow!("unknown command `{other}`"))
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}` puts the causes on the same line: one sentence, no backtrace.
            eprintln!("tablekeeper: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn start(command: &str) -> anyhow::Result<()> {
    let settings = Settings::from_env().map_err(|e| anyhow::anyhow!("configuration: {e}"))?;
    let mut telemetry =
        tablekeeper::telemetry::init(settings.log_format).map_err(|e| anyhow::anyhow!("logging: {e}"))?;
    if command == "migrate" {
        let host = command_host(&settings).await?;
        let url = tablekeeper::store::redacted(&host);
        let pool = tablekeeper::store::pool(&host, 1, settings.database_acquire_timeout, None)
            .map_err(|e| anyhow::anyhow!("DATABASE_URL `{url}` is not a PostgreSQL URL ({e})"))?;
        tablekeeper::store::prepare(&host, &pool)
            .await
            .map_err(|e| anyhow::anyhow!("cannot migrate the database at {url} ({e})"))?;
        tracing::info!("migrations applied");
        return Ok(());
    }
    // Each live stream holds a descriptor: raise the soft limit to the hard one, and say it.
    match tablekeeper::app::raise_descriptor_limit() {
        Ok(limit) => tracing::info!(
            open_files = limit.soft,
            hard_limit = limit.hard,
            was = limit.was,
            "open-file limit (descriptors; process_max_fds in /metrics)"
        ),
        Err(e) => tracing::warn!(error = %e, "the open-file limit cannot be read"),
    }
    let app = Application::build(&settings).await?;
    tracing::info!(bind = %settings.bind, port = app.port(), metrics_port = app.metrics_port(), "tablekeeper listening; docs at /docs/");
    if telemetry.tracing() {
        tracing::info!("traces go to the OTLP endpoint OTEL_EXPORTER_OTLP_ENDPOINT names");
    }
    app.run_until_stopped().await?;
    // What is still batched goes before the process ends (the exporter's thread blocks on it).
    tokio::task::spawn_blocking(move || telemetry.shutdown()).await?;
    Ok(())
}

/// The one host of `DATABASE_URL`, or of several the one that fits `target_session_attrs`.
async fn command_host(settings: &Settings) -> anyhow::Result<String> {
    tablekeeper::store::failover::host_for_command(&settings.database_url)
        .await
        .ok_or_else(|| {
            anyhow::anyhow!(
                "no host of DATABASE_URL answers as target_session_attrs={} asks",
                settings.database_url.target().as_str()
            )
        })
}

/// `reset-password EMAIL_OR_NAME`: the new password is the first line of stdin (so it stays out
/// of the shell's history and the process list); every token of the user is signed out.
async fn reset_password(who: &str) -> anyhow::Result<()> {
    let settings = Settings::from_env().map_err(|e| anyhow::anyhow!("configuration: {e}"))?;
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| anyhow::anyhow!("cannot read the new password from stdin ({e})"))?;
    let password = line.trim_end_matches(['\n', '\r']).to_owned();
    // Checked before the database is reached, by the rule every password is held to.
    tablekeeper::service::passwords::acceptable(&password).map_err(|e| anyhow::anyhow!("{e}; nothing was changed"))?;
    let host = command_host(&settings).await?;
    let url = tablekeeper::store::redacted(&host);
    let pool = tablekeeper::store::pool(&host, 1, settings.database_acquire_timeout, None)
        .map_err(|e| anyhow::anyhow!("DATABASE_URL `{url}` is not a PostgreSQL URL ({e})"))?;
    let users = tablekeeper::service::accounts::find(&pool, who.trim())
        .await
        .map_err(|e| anyhow::anyhow!("cannot read the users at {url} ({e})"))?;
    let user = match users.as_slice() {
        [user] => user,
        [] => {
            return Err(anyhow::anyhow!(
                "no organiser has the email or name `{who}`; nothing was changed"
            ))
        }
        many => {
            return Err(anyhow::anyhow!(
                "{} organisers are called `{who}`; name one by email; nothing was changed",
                many.len()
            ))
        }
    };
    tablekeeper::service::accounts::set_password(&pool, user.id, password)
        .await
        .map_err(|e| anyhow::anyhow!("cannot set the password ({e})"))?;
    println!(
        "password of {} ({}) reset; every token of theirs is signed out",
        user.name, user.email
    );
    Ok(())
}

/// `GET /api/v1/readyz` on the local server, without curl (the runtime image has none).
fn healthcheck() -> anyhow::Result<()> {
    let bind: SocketAddr = std::env::var("BIND")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| "127.0.0.1:8080".into())
        .parse()
        .map_err(|e| anyhow::anyhow!("BIND is not a socket address ({e})"))?;
    let mut target = bind;
    if target.ip().is_unspecified() {
        target.set_ip(if bind.is_ipv4() {
            std::net::Ipv4Addr::LOCALHOST.into()
        } else {
            std::net::Ipv6Addr::LOCALHOST.into()
        });
    }
    let timeout = Duration::from_secs(3);
    let mut stream = TcpStream::connect_timeout(&target, timeout)
        .map_err(|e| anyhow::anyhow!("no server answers on {target} ({e})"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(b"GET /api/v1/readyz HTTP/1.0\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head)?;
    let status_line = String::from_utf8_lossy(&head);
    if status_line.ends_with(" 200") {
        Ok(())
    } else {
        Err(anyhow::anyhow!("the server on {target} is not ready ({status_line})"))
    }
}

/// `verify FILE [--key PUBLIC_KEY]... [--receipts FILE...] [--final FILE]...`: the summary on
/// stdout and status 0, or the first discrepancy on stderr and status 1.
fn verify(args: &[String]) -> ExitCode {
    use tablekeeper::service::receipts;
    if args.iter().any(|a| a == "--inclusion" || a == "--consistency") {
        return verify_proof(args);
    }
    if args.first().is_some_and(|a| a == "--checkpoints") {
        return verify_checkpoints(&args[1..]);
    }
    let Some(parsed) = VerifyArgs::parse(args) else {
        eprintln!("usage: tablekeeper verify FILE [--key PUBLIC_KEY]... [--receipts FILE...] [--final FILE]...");
        return ExitCode::FAILURE;
    };
    let outcome = (|| {
        let keys = parsed
            .keys
            .iter()
            .flat_map(|k| k.split(','))
            .filter(|k| !k.trim().is_empty())
            .map(receipts::public_key)
            .collect::<Result<Vec<_>, _>>()?;
        let mut kept = Vec::new();
        for file in &parsed.receipts {
            let text = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            let document = serde_json::from_slice(&text).map_err(|e| format!("{file} is not JSON: {e}"))?;
            kept.extend(receipts::read(&document).map_err(|e| format!("{file}: {e}"))?);
        }
        let mut finals = Vec::new();
        for file in &parsed.finals {
            let text = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            finals.push(serde_json::from_slice(&text).map_err(|e| format!("{file} is not JSON: {e}"))?);
        }
        let bytes = std::fs::read(&parsed.file).map_err(|e| format!("cannot read {}: {e}", parsed.file))?;
        tablekeeper::service::bundle::verify_checked(&bytes, &keys, &kept, &finals)
    })();
    match outcome {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(discrepancy) => {
            eprintln!("tablekeeper verify: FAILED: {discrepancy}");
            ExitCode::FAILURE
        }
    }
}

/// `verify --inclusion FILE --checkpoint FILE [--key PUBLIC_KEY]...`: one entry's inclusion
/// proof (`GET /tables/{id}/moves/{seq}/proof`'s answer) checked against a checkpoint kept (the
/// signed note, or an answer carrying one); `verify --consistency FILE [--checkpoint FILE]
/// [--key PUBLIC_KEY]...`: a consistency proof (`GET /tables/{id}/consistency`'s answer), and
/// that the checkpoint kept is the tree it starts from. Offline; "yes" and one sentence with
/// status 0, or "no" and why with status 1.
fn verify_proof(args: &[String]) -> ExitCode {
    use tablekeeper::service::{receipts, witness};
    let usage = "usage: tablekeeper verify --inclusion FILE --checkpoint FILE [--key PUBLIC_KEY]...\n       tablekeeper verify --consistency FILE [--checkpoint FILE] [--key PUBLIC_KEY]...";
    let (mut inclusion, mut consistency, mut checkpoint, mut keys) = (None, None, None, Vec::new());
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let slot = match arg.as_str() {
            "--inclusion" => &mut inclusion,
            "--consistency" => &mut consistency,
            "--checkpoint" => &mut checkpoint,
            "--key" => {
                let Some(given) = rest.next() else {
                    eprintln!("{usage}");
                    return ExitCode::FAILURE;
                };
                keys.extend(given.split(',').map(str::to_owned));
                continue;
            }
            _ => {
                eprintln!("{usage}");
                return ExitCode::FAILURE;
            }
        };
        *slot = rest.next().cloned();
    }
    let (proof, grown) = match (inclusion, consistency) {
        (Some(proof), None) if checkpoint.is_some() => (proof, false),
        (None, Some(proof)) => (proof, true),
        _ => {
            eprintln!("{usage}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = (|| {
        let keys = keys
            .iter()
            .filter(|k| !k.trim().is_empty())
            .map(|k| receipts::public_key(k))
            .collect::<Result<Vec<_>, _>>()?;
        let text = std::fs::read(&proof).map_err(|e| format!("cannot read {proof}: {e}"))?;
        let note = match &checkpoint {
            Some(file) => {
                let kept = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
                Some(witness::note_in(&kept)?)
            }
            None => None,
        };
        let said = if grown {
            let answer: witness::ConsistencyProof = serde_json::from_slice(&text)
                .map_err(|e| format!("{proof} is not a consistency proof (GET /tables/{{id}}/consistency): {e}"))?;
            witness::verify_grown(&answer, note.as_deref(), &keys)?
        } else {
            let answer: witness::InclusionProof = serde_json::from_slice(&text).map_err(|e| {
                format!("{proof} is not an inclusion proof (GET /tables/{{id}}/moves/{{seq}}/proof): {e}")
            })?;
            witness::verify_inclusion(&answer, note.as_deref().unwrap_or_default(), &keys)?
        };
        Ok::<_, String>(if keys.is_empty() {
            format!("{said} (the key the proof names, taken at its word: give --key to check it against the one GET /api/v1/audit-key lists)")
        } else {
            said
        })
    })();
    match outcome {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("tablekeeper verify: no: {why}");
            ExitCode::FAILURE
        }
    }
}

/// `verify --checkpoints FILE... [--key PUBLIC_KEY]...`: checkpoints kept by different phones
/// (signed notes, or answers carrying one) compared; a fork named with status 1.
fn verify_checkpoints(args: &[String]) -> ExitCode {
    use tablekeeper::service::{receipts, witness};
    let (mut files, mut keys) = (Vec::new(), Vec::new());
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--key" {
            keys.extend(rest.next().into_iter().flat_map(|k| k.split(',')).map(str::to_owned));
        } else {
            files.push(arg.clone());
        }
    }
    if files.len() < 2 {
        eprintln!("usage: tablekeeper verify --checkpoints FILE FILE... [--key PUBLIC_KEY]...");
        return ExitCode::FAILURE;
    }
    let outcome = (|| {
        let keys = keys
            .iter()
            .filter(|k| !k.trim().is_empty())
            .map(|k| receipts::public_key(k))
            .collect::<Result<Vec<_>, _>>()?;
        let mut notes = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            notes.push(witness::note_in(&text).map_err(|e| format!("{file}: {e}"))?);
        }
        witness::compare_checkpoints(&notes, &keys)
    })();
    match outcome {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("tablekeeper verify: no: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Prints `args[0]` as a QR code of unicode half blocks, dark on light as a phone's camera
/// expects whatever the terminal's colours, with the quiet zone the standard asks for.
fn qr(args: &[String]) -> anyhow::Result<()> {
    let [text] = args else {
        anyhow::bail!("usage: tablekeeper qr TEXT");
    };
    let code =
        qrcode::QrCode::new(text.as_bytes()).map_err(|e| anyhow::anyhow!("cannot make a QR code of `{text}` ({e})"))?;
    let picture = code
        .render::<qrcode::render::unicode::Dense1x2>()
        .dark_color(qrcode::render::unicode::Dense1x2::Light)
        .light_color(qrcode::render::unicode::Dense1x2::Dark)
        .quiet_zone(true)
        .build();
    println!("{picture}");
    Ok(())
}

/// `verify`'s arguments: the bundle, the trusted keys, the receipt files, the final checkpoints.
struct VerifyArgs {
    file: String,
    keys: Vec<String>,
    receipts: Vec<String>,
    finals: Vec<String>,
}

impl VerifyArgs {
    /// None for anything but one bundle, `--key` with a value each time, and `--receipts` with
    /// at least one file (the files run to the next flag).
    fn parse(args: &[String]) -> Option<VerifyArgs> {
        let mut file = None;
        let mut keys = Vec::new();
        let mut receipts = Vec::new();
        let mut finals = Vec::new();
        let mut rest = args.iter();
        let mut in_receipts = false;
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--key" => {
                    keys.push(rest.next()?.clone());
                    in_receipts = false;
                }
                "--receipts" => in_receipts = true,
                "--final" => {
                    finals.push(rest.next()?.clone());
                    in_receipts = false;
                }
                flag if flag.starts_with("--") => return None,
                _ if in_receipts => receipts.push(arg.clone()),
                _ if file.is_none() => file = Some(arg.clone()),
                _ => return None,
            }
        }
        if args.iter().any(|a| a == "--receipts") && receipts.is_empty() {
            return None;
        }
        Some(VerifyArgs {
            file: file?,
            keys,
            receipts,
            finals,
        })
    }
}
