//! Cross-origin requests (CORS): which origins the host allows (the
//! environment variable `BACKEND_TARGETS_ALLOW_ORIGIN`, which the component
//! reads: `wasmtime serve --env BACKEND_TARGETS_ALLOW_ORIGIN=…`), the answer
//! to a preflight, and the headers every answer to an allowed origin
//! carries. Nothing is allowed by default: without the variable, no answer
//! has a CORS header. Pure, as [`service`](crate::service) is: the component hands over the
//! variable's value and the request's `Origin`; tested natively.
//!
//! The allowed methods of a path come from the route table ([`ROUTES`](crate::ROUTES), as
//! `Allow` does); the allowed request headers are [`ALLOWED_HEADERS`]; no
//! credentials (cookies, authorization) are allowed: the service reads none.

use crate::service::{Reply, methods_for};

/// The environment variable that names the allowed origins.
pub const ALLOW_ORIGIN_VARIABLE: &str = "BACKEND_TARGETS_ALLOW_ORIGIN";

/// The request headers a cross-origin request may send beyond the
/// CORS-safelisted ones: `content-type` (a page's `fetch` of JSON sends
/// `application/json`, which is not safelisted). The service reads no other.
pub const ALLOWED_HEADERS: &[&str] = &["content-type"];

/// How long a browser may keep a preflight's answer, in seconds
/// (`Access-Control-Max-Age`): two hours, Chromium's ceiling (Firefox keeps
/// it up to a day).
pub const MAX_AGE_S: u32 = 7_200;

/// The origins the host allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cors {
    /// None: the default (the variable unset, empty or only commas). No
    /// answer has a CORS header.
    Nobody,
    /// Every origin (`*`): `Access-Control-Allow-Origin: *` on every answer.
    Anyone,
    /// These origins, each as a browser sends its `Origin` header
    /// (`scheme://host[:port]`): an answer to one of them names it in
    /// `Access-Control-Allow-Origin`, and every answer says `Vary: Origin`.
    Origins(Vec<String>),
}

impl Cors {
    /// The allowed origins from the variable's value: a comma-separated list
    /// of origins (spaces around each, and a trailing `/`, left out), or `*`
    /// (alone or in the list) for every origin; `None`, empty or blank
    /// entries only: nobody.
    pub fn from_setting(setting: Option<&str>) -> Self {
        let entries: Vec<&str> = setting
            .unwrap_or("")
            .split(',')
            .map(|entry| entry.trim().trim_end_matches('/'))
            .filter(|entry| !entry.is_empty())
            .collect();
        if entries.contains(&"*") {
            Self::Anyone
        } else if entries.is_empty() {
            Self::Nobody
        } else {
            Self::Origins(entries.into_iter().map(str::to_ascii_lowercase).collect())
        }
    }

    /// The value of `Access-Control-Allow-Origin` for a request from
    /// `origin`: `*` for anyone, the origin itself where it is listed
    /// (compared without regard to ASCII case, as scheme and host are),
    /// else none.
    pub fn allow_origin<'a>(&self, origin: Option<&'a str>) -> Option<&'a str> {
        match self {
            Self::Nobody => None,
            Self::Anyone => Some("*"),
            Self::Origins(origins) => {
                origin.filter(|origin| origins.iter().any(|allowed| allowed.eq_ignore_ascii_case(origin)))
            }
        }
    }

    /// The answer to a preflight: an `OPTIONS` request from an allowed origin
    /// to a path the routes have is 204, with the methods those routes take
    /// (from the route table), the allowed headers and how long to keep the
    /// answer (`Access-Control-Allow-Origin` and `Vary` come from
    /// `decorate`, as on every answer). `None` for anything else: an
    /// `OPTIONS` from an origin not allowed, or without one, is routed as
    /// before (405 with `Allow`, or 404), and has no CORS header.
    pub fn preflight(&self, method: &str, path: &str, origin: Option<&str>) -> Option<Reply> {
        if method != "OPTIONS" || origin.is_none() || self.allow_origin(origin).is_none() {
            return None;
        }
        let methods = methods_for(path);
        if methods.is_empty() {
            return None;
        }
        Some(Reply {
            status: 204,
            headers: vec![
                ("access-control-allow-methods", methods.join(", ")),
                ("access-control-allow-headers", ALLOWED_HEADERS.join(", ")),
                ("access-control-max-age", MAX_AGE_S.to_string()),
            ],
            body: String::new(),
        })
    }

    /// Adds the CORS headers to any answer (a route's, an error's, a
    /// preflight's) to a request from `origin`: `Access-Control-Allow-Origin`
    /// when it is allowed, and `Vary: Origin` whenever the answer depends on
    /// the origin (a list of origins), allowed or not.
    pub fn decorate(&self, reply: &mut Reply, origin: Option<&str>) {
        if let Some(allowed) = self.allow_origin(origin) {
            reply.headers.push(("access-control-allow-origin", allowed.to_string()));
        }
        if matches!(self, Self::Origins(_)) {
            reply.headers.push(("vary", "Origin".to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{Step, route};

    /// A request as the component answers it: the preflight, else the route
    /// (its reply without reading a body), then the CORS headers.
    fn answered(cors: &Cors, method: &str, path: &str, origin: Option<&str>) -> Reply {
        let mut reply = cors.preflight(method, path, origin).unwrap_or_else(|| match route(method, path, None) {
            Step::Answer(reply) => reply,
            Step::ReadBody(pending) => pending.too_large(),
        });
        cors.decorate(&mut reply, origin);
        reply
    }

    fn header<'a>(reply: &'a Reply, name: &str) -> Option<&'a str> {
        reply.headers.iter().find(|(n, _)| *n == name).map(|(_, value)| value.as_str())
    }

    fn cors_headers(reply: &Reply) -> Vec<(&'static str, String)> {
        reply
            .headers
            .iter()
            .filter(|(name, _)| name.starts_with("access-control-") || *name == "vary")
            .cloned()
            .collect()
    }

    #[test]
    fn the_setting_is_a_list_of_origins_or_a_star_and_nothing_by_default() {
        for setting in [None, Some(""), Some(" "), Some(",, ,")] {
            assert_eq!(Cors::from_setting(setting), Cors::Nobody, "{setting:?}");
        }
        assert_eq!(Cors::from_setting(Some("*")), Cors::Anyone);
        assert_eq!(Cors::from_setting(Some("https://a.example, *")), Cors::Anyone);
        assert_eq!(
            Cors::from_setting(Some(" https://a.example/ ,http://localhost:5173,,HTTPS://B.example")),
            Cors::Origins(vec!["https://a.example".into(), "http://localhost:5173".into(), "https://b.example".into()])
        );
    }

    #[test]
    fn by_default_no_answer_has_a_cors_header_and_options_stays_405() {
        let cors = Cors::from_setting(None);
        for (method, path) in [("GET", "/health"), ("GET", "/nope"), ("POST", "/plan"), ("OPTIONS", "/plan")] {
            let reply = answered(&cors, method, path, Some("https://a.example"));
            assert_eq!(cors_headers(&reply), vec![], "{method} {path}");
        }
        let reply = answered(&cors, "OPTIONS", "/plan", Some("https://a.example"));
        assert_eq!((reply.status, header(&reply, "allow")), (405, Some("POST")));
    }

    #[test]
    fn a_preflight_from_an_allowed_origin_is_204_with_the_route_table_s_methods() {
        let cors = Cors::from_setting(Some("https://a.example,http://localhost:5173"));
        for (path, methods) in
            [("/plan", "POST"), ("/availability", "POST"), ("/health", "GET"), ("/targets/linuxCuda", "GET")]
        {
            let reply = answered(&cors, "OPTIONS", path, Some("http://localhost:5173"));
            assert_eq!((reply.status, reply.body.as_str()), (204, ""), "{path}");
            assert_eq!(
                cors_headers(&reply),
                vec![
                    ("access-control-allow-methods", methods.to_string()),
                    ("access-control-allow-headers", "content-type".to_string()),
                    ("access-control-max-age", "7200".to_string()),
                    ("access-control-allow-origin", "http://localhost:5173".to_string()),
                    ("vary", "Origin".to_string()),
                ],
                "{path}"
            );
        }
        // The methods are the table's: every route's path answers its own.
        for route in crate::ROUTES {
            let path = route.pattern.replace("{preset}", "linuxCpu").replace("{name}", "Target");
            let reply = answered(&cors, "OPTIONS", &path, Some("https://a.example"));
            let methods = header(&reply, "access-control-allow-methods").unwrap_or_default();
            assert!(methods.split(", ").any(|m| m == route.method), "{path}: {methods}");
        }
        // Anyone: `*`, and no Vary (the answer is the same for every origin).
        let reply = answered(&Cors::Anyone, "OPTIONS", "/plan", Some("https://elsewhere.example"));
        assert_eq!(reply.status, 204);
        assert_eq!(header(&reply, "access-control-allow-origin"), Some("*"));
        assert_eq!(header(&reply, "vary"), None);
    }

    #[test]
    fn an_origin_not_allowed_gets_no_cors_header_and_its_preflight_stays_405() {
        let cors = Cors::from_setting(Some("https://a.example"));
        for origin in [Some("https://evil.example"), Some("https://a.example.evil.example"), Some("null"), None] {
            let reply = answered(&cors, "OPTIONS", "/plan", origin);
            assert_eq!((reply.status, header(&reply, "allow")), (405, Some("POST")), "{origin:?}");
            assert_eq!(cors_headers(&reply), vec![("vary", "Origin".to_string())], "{origin:?}");
            let reply = answered(&cors, "GET", "/health", origin);
            assert_eq!(reply.status, 200);
            assert_eq!(cors_headers(&reply), vec![("vary", "Origin".to_string())], "{origin:?}");
        }
        // An allowed origin's OPTIONS on a path no route has: the 404, with the origin allowed.
        let reply = answered(&cors, "OPTIONS", "/nope", Some("https://a.example"));
        assert_eq!(reply.status, 404);
        assert_eq!(header(&reply, "access-control-allow-origin"), Some("https://a.example"));
    }

    #[test]
    fn every_answer_to_an_allowed_origin_names_it_errors_included() {
        let cors = Cors::from_setting(Some("https://a.example"));
        for (method, path, status) in [
            ("GET", "/health", 200),
            ("GET", "/presets", 200),
            ("GET", "/targets/linuxCUDA", 400),
            ("GET", "/nope", 404),
            ("DELETE", "/plan", 405),
            ("POST", "/plan", 413),
        ] {
            // Browsers send the origin as they serialize it: lower case.
            let reply = answered(&cors, method, path, Some("https://a.example"));
            assert_eq!(reply.status, status, "{method} {path}");
            assert_eq!(header(&reply, "access-control-allow-origin"), Some("https://a.example"), "{method} {path}");
            assert_eq!(header(&reply, "vary"), Some("Origin"), "{method} {path}");
        }
        // The component's own refusals get the headers too (it decorates every reply).
        let mut reply = crate::refuse_head("GET", Some("a b"), Some("/health")).unwrap();
        cors.decorate(&mut reply, Some("https://a.example"));
        assert_eq!((reply.status, header(&reply, "access-control-allow-origin")), (400, Some("https://a.example")));
        let mut reply = Reply::body_stalled();
        Cors::Anyone.decorate(&mut reply, None);
        assert_eq!((reply.status, header(&reply, "access-control-allow-origin")), (408, Some("*")));
    }
}
