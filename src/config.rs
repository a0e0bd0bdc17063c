//! Settings from the environment, with safe defaults for local use. A bad value stops start-up
//! with the variable's name.

use std::net::SocketAddr;

/// Everything the server needs to start.
#[derive(Clone, Debug)]
pub struct Settings {
    pub database_url: String,
    pub bind: SocketAddr,
    /// None: local use only, with a random per-process secret.
    pub jwt_secret: Option<String>,
    pub token_ttl_hours: i64,
    pub database_max_connections: u32,
    pub workers: Option<usize>,
    /// Attempts per minute per client address on `/auth/*` (password and join-code checks).
    pub auth_attempts_per_minute: u32,
}

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/tablekeeper";

#[derive(Debug, thiserror::Error)]
#[error("{variable}: {reason}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub reason: String,
}

impl Settings {
    /// Reads the environment.
    ///
    /// # Errors
    /// Names the variable that is malformed, or `JWT_SECRET` when it is missing for a server that
    /// listens beyond this machine.
    pub fn from_env() -> Result<Settings, ConfigError> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup` (the environment, or a map in tests).
    ///
    /// # Errors
    /// As `from_env`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let bind: SocketAddr = var("BIND")
            .unwrap_or_else(|| "127.0.0.1:8080".into())
            .parse()
            .map_err(|e| ConfigError {
                variable: "BIND",
                reason: format!("not a socket address ({e})"),
            })?;
        let jwt_secret = var("JWT_SECRET");
        match &jwt_secret {
            Some(secret) if secret.len() < 32 => {
                return Err(ConfigError {
                    variable: "JWT_SECRET",
                    reason: "use at least 32 bytes".into(),
                })
            }
            None if !bind.ip().is_loopback() => {
                return Err(ConfigError {
                    variable: "JWT_SECRET",
                    reason: format!("required when listening on {bind}; without it the server runs on loopback only"),
                })
            }
            _ => {}
        }
        let number = |name: &'static str, default: u64| -> Result<u64, ConfigError> {
            var(name).map_or(Ok(default), |v| {
                v.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| ConfigError {
                    variable: name,
                    reason: format!("`{v}` is not a positive whole number"),
                })
            })
        };
        Ok(Settings {
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.into()),
            bind,
            jwt_secret,
            token_ttl_hours: number("TOKEN_TTL_HOURS", 12)? as i64,
            database_max_connections: number("DATABASE_MAX_CONNECTIONS", 10)? as u32,
            workers: var("WORKERS")
                .map(|_| number("WORKERS", 1))
                .transpose()?
                .map(|n| n as usize),
            auth_attempts_per_minute: u32::try_from(number("AUTH_ATTEMPTS_PER_MINUTE", 20)?).map_err(|_| {
                ConfigError {
                    variable: "AUTH_ATTEMPTS_PER_MINUTE",
                    reason: "at most 4294967295".into(),
                }
            })?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        Settings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_are_for_local_use() {
        let s = settings(&[]).expect("defaults");
        assert_eq!(s.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(s.database_url, DEFAULT_DATABASE_URL);
        assert!(s.jwt_secret.is_none());
    }

    #[test]
    fn listening_beyond_loopback_needs_a_secret() {
        let err = settings(&[("BIND", "0.0.0.0:8080")]).expect_err("no secret");
        assert_eq!(err.variable, "JWT_SECRET");
        let secret = "x".repeat(32);
        assert!(settings(&[("BIND", "0.0.0.0:8080"), ("JWT_SECRET", &secret)]).is_ok());
    }

    #[test]
    fn bad_values_name_their_variable() {
        assert_eq!(settings(&[("BIND", "nowhere")]).expect_err("bad bind").variable, "BIND");
        assert_eq!(
            settings(&[("JWT_SECRET", "short")]).expect_err("short").variable,
            "JWT_SECRET"
        );
        assert_eq!(
            settings(&[("TOKEN_TTL_HOURS", "-1")]).expect_err("ttl").variable,
            "TOKEN_TTL_HOURS"
        );
    }
}
