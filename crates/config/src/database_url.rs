//! `DATABASE_URL` as libpq reads it: one host or several (`h1:5432,h2:5433`), and which of them
//! a connection may use (`target_session_attrs`).

use super::DEFAULT_DATABASE_URL;

/// Which server of `DATABASE_URL`'s hosts a connection may use (libpq's `target_session_attrs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetSessionAttrs {
    /// The first host that answers (libpq's default).
    #[default]
    Any,
    /// A server that takes writes (`transaction_read_only` off).
    ReadWrite,
    /// A server that does not take writes.
    ReadOnly,
    /// A server that is not in recovery (`pg_is_in_recovery()` false).
    Primary,
    /// A server in recovery (a standby).
    Standby,
    /// A standby if one answers, else any server.
    PreferStandby,
}

impl TargetSessionAttrs {
    /// The value as libpq spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetSessionAttrs::Any => "any",
            TargetSessionAttrs::ReadWrite => "read-write",
            TargetSessionAttrs::ReadOnly => "read-only",
            TargetSessionAttrs::Primary => "primary",
            TargetSessionAttrs::Standby => "standby",
            TargetSessionAttrs::PreferStandby => "prefer-standby",
        }
    }

    fn parse(value: &str) -> Option<TargetSessionAttrs> {
        Some(match value {
            "any" => TargetSessionAttrs::Any,
            "read-write" => TargetSessionAttrs::ReadWrite,
            "read-only" => TargetSessionAttrs::ReadOnly,
            "primary" => TargetSessionAttrs::Primary,
            "standby" => TargetSessionAttrs::Standby,
            "prefer-standby" => TargetSessionAttrs::PreferStandby,
            _ => return None,
        })
    }
}

/// `DATABASE_URL`: one server, or several listed as libpq lists them
/// (`postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`). Each host is kept as
/// a URL of its own (what sqlx connects to), in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseUrl {
    hosts: Vec<String>,
    target: TargetSessionAttrs,
}

impl DatabaseUrl {
    /// Parses a `postgres://` or `postgresql://` URL with one or more comma-separated
    /// `host[:port]` (IPv6 in brackets; port 5432 when left out) and an optional
    /// `target_session_attrs` among its query parameters (the others are kept for every host).
    ///
    /// # Errors
    /// A sentence saying what is wrong.
    pub fn parse(url: &str) -> Result<DatabaseUrl, String> {
        let url = url.trim();
        let (scheme, rest) = url
            .split_once("://")
            .filter(|(scheme, _)| matches!(*scheme, "postgres" | "postgresql"))
            .ok_or("not a PostgreSQL URL (postgres://user@host:port/database)")?;
        let (before_query, query) = rest.split_once('?').map_or((rest, None), |(b, q)| (b, Some(q)));
        let (authority, path) = before_query
            .find('/')
            .map_or((before_query, ""), |i| before_query.split_at(i));
        let (userinfo, host_list) = authority.rsplit_once('@').map_or(("", authority), |(u, h)| (u, h));
        let mut target = TargetSessionAttrs::Any;
        let mut kept = Vec::new();
        for pair in query.into_iter().flat_map(|q| q.split('&')).filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("target_session_attrs", value)) => {
                    target = TargetSessionAttrs::parse(value).ok_or_else(|| {
                        format!(
                            "target_session_attrs `{value}` is not one of any, read-write, read-only, primary, standby, prefer-standby"
                        )
                    })?;
                }
                _ => kept.push(pair),
            }
        }
        let query = if kept.is_empty() {
            String::new()
        } else {
            format!("?{}", kept.join("&"))
        };
        let userinfo = if userinfo.is_empty() {
            String::new()
        } else {
            format!("{userinfo}@")
        };
        let hosts = host_list
            .split(',')
            .map(|host| {
                let (name, port) = split_host_port(host)?;
                Ok(format!("{scheme}://{userinfo}{name}:{port}{path}{query}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(DatabaseUrl { hosts, target })
    }

    /// One URL per listed host, in the order given.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The first host's URL (the only one when a single host is listed).
    pub fn first(&self) -> &str {
        self.hosts.first().map_or(DEFAULT_DATABASE_URL, String::as_str)
    }

    /// Which of the hosts a connection may use.
    pub fn target(&self) -> TargetSessionAttrs {
        self.target
    }

    /// Whether several hosts are listed, so that the server follows the one that fits `target`.
    pub fn has_several_hosts(&self) -> bool {
        self.hosts.len() > 1
    }
}

/// `host[:port]` or `[v6]:port` with the port (5432 when left out).
fn split_host_port(host: &str) -> Result<(&str, u16), String> {
    let (name, port) = if let Some(v6) = host.strip_prefix('[') {
        let (address, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("host `{host}` opens a bracket it does not close"))?;
        (&host[..address.len() + 2], after.strip_prefix(':'))
    } else {
        host.split_once(':').map_or((host, None), |(n, p)| (n, Some(p)))
    };
    if name.is_empty() {
        return Err("a host is missing (hosts are comma-separated host:port)".into());
    }
    let port = match port {
        None => 5432,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| format!("host `{host}` has no valid port"))?,
    };
    Ok((name, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_host_url_is_kept_as_it_is() {
        let url = DatabaseUrl::parse("postgres://ann:secret@db.example:6543/club?sslmode=require").expect("url");
        assert_eq!(
            url.hosts(),
            ["postgres://ann:secret@db.example:6543/club?sslmode=require"]
        );
        assert_eq!(url.target(), TargetSessionAttrs::Any);
        assert!(!url.has_several_hosts());
    }

    #[test]
    fn every_libpq_target_session_attrs_is_understood() {
        for target in [
            TargetSessionAttrs::Any,
            TargetSessionAttrs::ReadWrite,
            TargetSessionAttrs::ReadOnly,
            TargetSessionAttrs::Primary,
            TargetSessionAttrs::Standby,
            TargetSessionAttrs::PreferStandby,
        ] {
            let url = DatabaseUrl::parse(&format!(
                "postgres://a:1,b:2/db?target_session_attrs={}",
                target.as_str()
            ))
            .expect("url");
            assert_eq!(url.target(), target);
            assert_eq!(url.hosts(), ["postgres://a:1/db", "postgres://b:2/db"]);
        }
    }
}
