//! A page for each problem code (issue #45): a problem's `type` is `/problems/<code>`, a relative
//! URL (RFC 9457 §3.1.1) this server answers with what the code means, read from the spec: every
//! operation that can answer it, with the status and the spec's words for that answer. Nothing
//! is written twice: a code documented on a new operation is on its page at once.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use serde_json::Value;

use super::error::ApiError;

/// Where the spec documents one code: `(method, path, status, the answer's description)`.
type Answers = Vec<(String, String, String, String)>;

/// Every code's answers, from the spec, made once.
fn index() -> &'static BTreeMap<&'static str, Answers> {
    static INDEX: OnceLock<BTreeMap<&'static str, Answers>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let spec = super::openapi::spec();
        let mut index: BTreeMap<&'static str, Answers> =
            ApiError::all_codes().into_iter().map(|c| (c, Vec::new())).collect();
        let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
            return index;
        };
        for (path, item) in paths {
            let Some(item) = item.as_object() else { continue };
            for (method, operation) in item {
                let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
                    continue;
                };
                for (status, response) in responses {
                    let Some(text) = response.get("description").and_then(Value::as_str) else {
                        continue;
                    };
                    for (code, answers) in &mut index {
                        if text.contains(&format!("`{code}`")) {
                            answers.push((method.to_uppercase(), path.clone(), status.clone(), text.to_owned()));
                        }
                    }
                }
            }
        }
        index
    })
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page of `code`, or None for a code no problem carries.
pub fn page(code: &str) -> Option<String> {
    let answers = index().get(code)?;
    let mut statuses: Vec<&str> = answers.iter().map(|(_, _, s, _)| s.as_str()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    let code = escape(code);
    let mut html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{code}: a tablekeeper problem</title>\
         <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}\
         code{{background:#f2f2f2;padding:0 .2em}}li{{margin:.6em 0}}</style></head><body>\n\
         <h1><code>{code}</code></h1>\n\
         <p>A problem answered by tablekeeper as <code>application/problem+json</code> (RFC 9457) with \
         <code>\"code\": \"{code}\"</code> and <code>\"type\": \"/problems/{code}\"</code>; its \
         <code>detail</code> is a sentence for a person about the request at hand. Nothing the \
         request asked for was changed.</p>\n"
    );
    if answers.is_empty() {
        html.push_str(
            "<p>No operation of the API documents this code: it comes from a layer every operation \
             passes through (the request as a whole, the server's limits).</p>\n",
        );
    } else {
        let _ = writeln!(
            html,
            "<p>Status: {}.</p>\n<h2>Where it is answered</h2>\n<ul>",
            statuses.join(", ")
        );
        for (method, path, status, text) in answers {
            let _ = writeln!(
                html,
                "<li><code>{method} {}</code> answers <strong>{status}</strong>: {}</li>",
                escape(path),
                escape(text)
            );
        }
        html.push_str("</ul>\n");
    }
    html.push_str(
        "<p>The API's reference: <a href=\"/docs/\">/docs/</a> (the spec: \
         <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a>).</p>\n</body></html>\n",
    );
    Some(html)
}

async fn problem_page(code: web::Path<String>) -> HttpResponse {
    match page(&code) {
        Some(html) => HttpResponse::Ok().content_type(ContentType::html()).body(html),
        None => HttpResponse::NotFound().content_type(ContentType::html()).body(format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>No such problem</title></head>\
             <body><h1>No such problem</h1><p>No tablekeeper problem has the code <code>{}</code>.</p></body></html>\n",
            escape(&code)
        )),
    }
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/problems/{code}", web::get().to(problem_page));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_page_and_a_documented_one_says_where() {
        for code in ApiError::all_codes() {
            let page = page(code).expect("a page");
            assert!(page.contains(&format!("<h1><code>{code}</code></h1>")), "{code}");
        }
        let found = page("table_not_found").expect("a page");
        assert!(
            found.contains("<code>GET /api/v1/tables/{id}</code> answers <strong>404</strong>"),
            "{found}"
        );
        assert!(page("no_such_code").is_none());
        assert_eq!(escape("<a href='x'>&\""), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
    }
}
