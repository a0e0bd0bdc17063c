//! A hung test must fail the run with its name rather than let CI time out without one (a CI
//! run once stopped at its 90-minute limit with nothing after the last passing test). Each
//! `TestApp` registers the test that made it (libtest names a test's thread after the test);
//! when one has been alive longer than `TEST_WATCHDOG_SECS` (600 by default: the slowest test
//! takes about a minute), the watchdog prints every test still running and ends the process.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Registry {
    live: Mutex<HashMap<u64, (String, Instant)>>,
    limit: Duration,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let limit = std::env::var("TEST_WATCHDOG_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(Duration::from_secs(600), Duration::from_secs);
        std::thread::Builder::new()
            .name("test watchdog".into())
            .spawn(watch)
            .expect("the watchdog thread starts");
        Registry {
            live: Mutex::new(HashMap::new()),
            limit,
        }
    })
}

fn watch() {
    loop {
        std::thread::sleep(Duration::from_secs(5));
        let registry = registry();
        let live = registry.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !live.values().any(|(_, since)| since.elapsed() > registry.limit) {
            continue;
        }
        // One line per test, however many apps it made: its oldest app's age.
        let mut running: HashMap<&str, u64> = HashMap::new();
        for (name, since) in live.values() {
            let age = running.entry(name.as_str()).or_default();
            *age = (*age).max(since.elapsed().as_secs());
        }
        let mut running: Vec<_> = running.into_iter().map(|(name, secs)| (secs, name)).collect();
        running.sort_unstable();
        // Written to the descriptors themselves: `eprintln!` in a thread a test spawned goes to
        // that test's captured output, which an exiting process never prints.
        let mut report = format!(
            "\ntest watchdog: a test has been running for over {} s (TEST_WATCHDOG_SECS); still running:\n",
            registry.limit.as_secs()
        );
        for (secs, name) in running.iter().rev() {
            report.push_str(&format!("test watchdog:   {name} ({secs} s)\n"));
        }
        report.push_str("test watchdog: the test binary ends so that the run fails with these names\n");
        let _ = std::io::stderr().write_all(report.as_bytes());
        let _ = std::io::stdout().write_all(report.as_bytes());
        // Exiting runs no destructor: the servers and chromedrivers the tests started would
        // outlive the run, holding its output open (and CI waiting on it) and their databases.
        let _ = std::process::Command::new("pkill")
            .args(["-KILL", "-P", &std::process::id().to_string()])
            .status();
        std::process::exit(3);
    }
}

/// Held by a `TestApp` for as long as the test that made it runs.
pub struct Watched(u64);

impl Watched {
    pub fn current_test() -> Watched {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = std::thread::current()
            .name()
            .unwrap_or("a test on an unnamed thread")
            .to_owned();
        registry()
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, (name, Instant::now()));
        Watched(id)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        registry()
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.0);
    }
}
