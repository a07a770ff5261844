//! The service's routes and answers, as data: the route table (from which
//! routing, 404, 405 with `Allow`, and the documentation's route table are
//! derived), the query parameters each route takes, and the answer to a
//! request, given its method, path, query and (for a POST) its body's bytes.
//! Pure: no I/O, no wasi:http types; the component (`component.rs`) reads
//! the body, within the limit and the pause this module names, and writes
//! the [`Reply`]. Tested natively (`cargo test` in `http/`).
//!
//! Every answer is the command's: the same core calls, the same bytes (the
//! JSON on one line, then a newline, as `backend-targets` prints it), the same
//! error codes and paths. A query parameter's path is its name (`os`,
//! `limit`) where the command's is its flag (`--os`, `--limit`).

use backend_targets::json::{quoted_short, to_json};
use backend_targets::{
    Error, ErrorCode, Limits, OptionSpelling, Preset, PresetOptions, SchemaName, parse_target, plan_json, presets,
    reference_capsules,
};

/// What a route answers, once routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handler {
    Health,
    Presets,
    Target,
    Availability,
    Plan,
    ReferenceCapsules,
    Schema,
}

/// One route: a method and a path pattern (`{name}` matches one non-empty
/// segment), and what the documentation says of it.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path, with `{name}` for a segment the request chooses.
    pub pattern: &'static str,
    /// The query parameters it takes (documentation).
    pub query: &'static str,
    /// The request body (documentation).
    pub body: &'static str,
    /// The answer (documentation).
    pub answer: &'static str,
    /// The command (or JS call) that answers the same (documentation).
    pub command: &'static str,
    handler: Handler,
}

/// Every route. Routing, the 404 and 405 answers (with `Allow`) and the
/// route table in docs/service.md and docs/SPEC.md ([`routes_markdown`], checked by
/// a test) all come from this table.
pub const ROUTES: &[Route] = &[
    Route {
        method: "GET",
        pattern: "/health",
        query: "",
        body: "",
        answer: "200 `{\"name\":\"backend-targets\",\"version\":…}`",
        command: "`backend-targets --version` (the same version)",
        handler: Handler::Health,
    },
    Route {
        method: "GET",
        pattern: "/presets",
        query: "",
        body: "",
        answer: "200, the 13 presets with default parameters",
        command: "`backend-targets presets`",
        handler: Handler::Presets,
    },
    Route {
        method: "GET",
        pattern: "/targets/{preset}",
        query: "`os`, `arch`, `enableLibTorch` (`true` or `false`), each where the preset takes it",
        body: "",
        answer: "200, the preset's Target",
        command: "`backend-targets target PRESET [--os OS] [--arch ARCH] [--enable-libtorch]`",
        handler: Handler::Target,
    },
    Route {
        method: "POST",
        pattern: "/availability",
        query: "",
        body: "a Target",
        answer: "200, its declared Availability",
        command: "`backend-targets availability - < target.json`",
        handler: Handler::Availability,
    },
    Route {
        method: "POST",
        pattern: "/plan",
        query: "`limit=NAME=N`, repeatable, each name once (the command's `--limit NAME=N`)",
        body: "a PlanRequest",
        answer: "200 planned, 422 not plannable (the `{\"ok\":false,…}` explanation)",
        command: "`backend-targets plan [--limit NAME=N]... < request.json`",
        handler: Handler::Plan,
    },
    Route {
        method: "GET",
        pattern: "/reference-capsules",
        query: "",
        body: "",
        answer: "200, the built-in reference catalog (a KernelCapsule list)",
        command: "`backend-targets reference-capsules` (and the npm package's `referenceCapsules()`)",
        handler: Handler::ReferenceCapsules,
    },
    Route {
        method: "GET",
        pattern: "/schemas/{name}",
        query: "",
        body: "",
        answer: "200, the form's JSON Schema",
        command: "`backend-targets schema NAME`",
        handler: Handler::Schema,
    },
];

/// The route table as Markdown, as docs/service.md and docs/SPEC.md show it.
pub fn routes_markdown() -> String {
    let cell = |text: &str| if text.is_empty() { "—".to_string() } else { text.to_string() };
    let mut text =
        String::from("| method | path | query | body | answer | the same answer as |\n|---|---|---|---|---|---|\n");
    for route in ROUTES {
        text.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} |\n",
            route.method,
            route.pattern,
            cell(route.query),
            cell(route.body),
            route.answer,
            route.command
        ));
    }
    text
}

/// How long the body may pause, between two pieces of it, before the
/// request is answered 408: a client that stalls holds its instance this
/// long at most. The whole request is bounded by the host (`wasmtime serve
/// -W timeout=…`, README).
pub const BODY_IDLE_TIMEOUT_MS: u32 = 5_000;

/// An answer: status, headers and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// Headers beyond `content-type: application/json` and
    /// `content-length` (which every reply but a 204 has), their names in
    /// lower case.
    pub headers: Vec<(&'static str, String)>,
    /// The body: compact JSON and a newline (empty in a 204, a preflight's
    /// answer: `cors`).
    pub body: String,
}

impl Reply {
    fn json(status: u16, text: String) -> Self {
        let mut body = text;
        body.push('\n');
        Self { status, headers: Vec::new(), body }
    }

    fn ok<T: serde::Serialize>(value: &T) -> Self {
        Self::json(200, to_json(value))
    }

    /// `{"error": {code, path, message, expected?}}` with `status`.
    pub fn error(status: u16, error: &Error) -> Self {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            error: &'a Error,
        }
        Self::json(status, to_json(&Body { error }))
    }

    /// 400: the request is invalid (the command's exit status 2).
    fn invalid(error: &Error) -> Self {
        Self::error(400, error)
    }

    /// 408: the body paused for [`BODY_IDLE_TIMEOUT_MS`].
    pub fn body_stalled() -> Self {
        Self::error(
            408,
            &Error::new(
                ErrorCode::Io,
                "",
                format!("the request body stopped arriving: nothing came for {BODY_IDLE_TIMEOUT_MS} ms"),
            ),
        )
    }

    /// 400: the body could not be read (the connection failed).
    pub fn body_unreadable(detail: &str) -> Self {
        Self::invalid(&Error::new(ErrorCode::Io, "", format!("cannot read the request body: {detail}")))
    }
}

/// What to do with a request once routed.
#[derive(Debug)]
pub enum Step {
    /// Answer now (the body, if any, is not read).
    Answer(Reply),
    /// Read the body, at most [`Pending::limit`] bytes, then [`Pending::finish`].
    ReadBody(Pending),
}

/// A routed request that needs its body.
#[derive(Debug)]
pub struct Pending {
    handler: Handler,
    limits: Limits,
    limit_raisable: bool,
}

impl Pending {
    /// The most bytes the body may have (the limit `requestBytes`).
    pub fn limit(&self) -> usize {
        self.limits.request_bytes
    }

    /// 413: the body is longer than `limit` (declared so, or read so far).
    pub fn too_large(&self) -> Reply {
        let limit = self.limit();
        let raise = if self.limit_raisable {
            format!(" (?limit=requestBytes=N raises it, up to {})", Limits::CEILING.request_bytes)
        } else {
            String::new()
        };
        Reply::error(
            413,
            &Error::new(
                ErrorCode::LimitExceeded,
                "",
                format!("more than {limit} bytes, the limit requestBytes{raise}"),
            ),
        )
    }

    /// The answer, given the whole body (at most `limit` bytes).
    pub fn finish(self, body: Vec<u8>) -> Reply {
        if body.len() > self.limit() {
            return self.too_large();
        }
        let Ok(text) = String::from_utf8(body) else {
            return Reply::invalid(&Error::new(ErrorCode::InvalidJson, "", "input is not valid UTF-8"));
        };
        let answer = match self.handler {
            Handler::Availability => parse_target(&text).map(|target| Reply::ok(&target.declared_availability())),
            _ => plan_json(&text, &self.limits).map(|(ok, json)| Reply::json(if ok { 200 } else { 422 }, json)),
        };
        answer.unwrap_or_else(|error| Reply::invalid(&error))
    }
}

/// The request's head as the host hands it over (its method; its authority,
/// from the absolute URI or the `Host` header; its target, path and query),
/// judged before it is converted to an `http::Request`, which fails on each
/// of these (and left the host to answer 500): `CONNECT` is 405 (this
/// service is no proxy); no host, a host that is not `host[:port]` (empty,
/// with a space, a path or a byte outside ASCII), or a target that is not a
/// path, is 400. `None`: the head is one the conversion takes. (The `Host`
/// lines themselves are hidden from the component: `wasmtime serve` hands
/// over the first as the authority.)
pub fn refuse_head(method: &str, authority: Option<&str>, path_with_query: Option<&str>) -> Option<Reply> {
    let usage = |status: u16, message: String| Reply::error(status, &Error::new(ErrorCode::Usage, "", message));
    if method == "CONNECT" {
        let mut reply =
            usage(405, "CONNECT is not served: this service is no proxy; its routes take GET and POST".into());
        reply.headers.push(("allow", "GET, POST".to_string()));
        return Some(reply);
    }
    match authority {
        None => return Some(usage(400, "the request has no host (no Host header)".into())),
        Some(host) if !is_host(host) => {
            return Some(usage(400, format!("the request's host {} is not host[:port]", quoted_short(host))));
        }
        Some(_) => {}
    }
    match path_with_query {
        Some(target) if target.starts_with('/') => None,
        Some(target) => Some(usage(400, format!("the request's target {} is not a path", quoted_short(target)))),
        None => Some(usage(400, "the request names no path".into())),
    }
}

/// Whether `host` is RFC 9110's `uri-host [":" port]`: a non-empty registered
/// name or IPv4 address (RFC 3986's unreserved and sub-delimiter characters
/// and %-escapes), or an IP literal in brackets, then a port of at most
/// 65535, if any.
fn is_host(host: &str) -> bool {
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((literal, "")) => (literal, None),
            Some((literal, after)) => match after.strip_prefix(':') {
                Some(port) => (literal, Some(port)),
                None => return false,
            },
            None => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        },
    };
    let literal = host.starts_with('[');
    let allowed = |b: u8| {
        if literal {
            b.is_ascii_hexdigit() || matches!(b, b':' | b'.' | b'v' | b'V')
        } else {
            b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(&b)
        }
    };
    let port_ok = port.is_none_or(|port| {
        port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u32>().map_or(port.is_empty(), |n| n <= 65_535)
    });
    !name.is_empty() && name.bytes().all(allowed) && port_ok
}

/// 400: what the host handed over did not convert to a request (`detail`
/// says which part), beyond what [`refuse_head`] judges.
pub fn unconverted(detail: &str) -> Reply {
    Reply::invalid(&Error::new(ErrorCode::Usage, "", format!("the request could not be read: {detail}")))
}

/// Routes a request: `path` without its query, `query` the text after `?`.
pub fn route(method: &str, path: &str, query: Option<&str>) -> Step {
    let matching: Vec<(&Route, Option<&str>)> =
        ROUTES.iter().filter_map(|route| matches(route.pattern, path).map(|segment| (route, segment))).collect();
    let Some(&(route, segment)) = matching.iter().find(|(route, _)| route.method == method) else {
        return Step::Answer(unrouted(method, path, &matching));
    };
    match answer(route.handler, segment.unwrap_or(""), Query::parse(query.unwrap_or(""))) {
        Ok(step) => step,
        Err(error) => Step::Answer(Reply::invalid(&error)),
    }
}

/// The methods the routes with `path` take, in the table's order, each once
/// (`Allow` on a 405, `Access-Control-Allow-Methods` on a preflight).
pub(crate) fn methods_for(path: &str) -> Vec<&'static str> {
    let mut methods: Vec<&'static str> = Vec::new();
    for route in ROUTES.iter().filter(|route| matches(route.pattern, path).is_some()) {
        if !methods.contains(&route.method) {
            methods.push(route.method);
        }
    }
    methods
}

/// 404 (no route has this path) or 405 (some do, for other methods).
fn unrouted(method: &str, path: &str, matching: &[(&Route, Option<&str>)]) -> Reply {
    let shown = quoted_short(path);
    if matching.is_empty() {
        let routes: Vec<String> = ROUTES.iter().map(|r| format!("{} {}", r.method, r.pattern)).collect();
        let message = format!("no route for {shown}; the routes: {}", routes.join(", "));
        return Reply::error(404, &Error::new(ErrorCode::Usage, "", message));
    }
    let allow = methods_for(path).join(", ");
    let message = format!("{shown} takes {allow}, not {}", quoted_short(method));
    let mut reply = Reply::error(405, &Error::new(ErrorCode::Usage, "", message));
    reply.headers.push(("allow", allow));
    reply
}

/// Whether `path` matches `pattern`, and the segment its `{name}` took.
fn matches<'a>(pattern: &str, path: &'a str) -> Option<Option<&'a str>> {
    let mut segment = None;
    let mut pattern_parts = pattern.split('/');
    let mut path_parts = path.split('/');
    loop {
        match (pattern_parts.next(), path_parts.next()) {
            (None, None) => return Some(segment),
            (Some(expected), Some(given)) if expected.starts_with('{') => {
                if given.is_empty() {
                    return None;
                }
                segment = Some(given);
            }
            (Some(expected), Some(given)) if expected == given => {}
            _ => return None,
        }
    }
}

/// A request's query parameters, decoded (`application/x-www-form-urlencoded`,
/// by [`form_urlencoded`]), in the request's order: each route reads them in
/// that order ([`Query::read`]), as the command reads its arguments, so that
/// the first problem in the request is the one reported.
struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    fn parse(text: &str) -> Self {
        let pairs =
            form_urlencoded::parse(text.as_bytes()).map(|(name, value)| (name.into_owned(), value.into_owned()));
        Self { pairs: pairs.collect() }
    }

    /// Gives each parameter, in order, to `take`, which answers whether it
    /// knows the name. As for the command's options: an unknown name is a
    /// usage error where it stands, and a known one given a second time
    /// (but `repeatable`, `limit`) is one at its second use, before its
    /// value is read.
    fn read(
        self,
        names: &[&str],
        repeatable: &[&str],
        mut take: impl FnMut(&str, String) -> Result<bool, Error>,
    ) -> Result<(), Error> {
        let mut seen: Vec<String> = Vec::new();
        for (name, value) in self.pairs {
            if seen.contains(&name) && !repeatable.contains(&name.as_str()) {
                return Err(Error::new(ErrorCode::Usage, &name, format!("the query parameter {name} is given twice")));
            }
            if !take(&name, value)? {
                return Err(unknown_parameter(&name, names));
            }
            seen.push(name);
        }
        Ok(())
    }

    /// Refuses any parameter: the route takes none.
    fn finish(self) -> Result<(), Error> {
        self.read(&[], &[], |_, _| Ok(false))
    }
}

/// A query parameter the route does not take (`names` are those it does):
/// `usage` at its name, with what it most likely meant, or the names, as
/// the core says it of a misspelled value ([`Error::unknown_spelling`]).
fn unknown_parameter(name: &str, names: &[&str]) -> Error {
    let message = if names.is_empty() {
        format!("unknown query parameter {}: this route takes none", quoted_short(name))
    } else {
        Error::unknown_spelling("query parameter", name, names).message
    };
    Error::new(ErrorCode::Usage, parameter_path(name), message)
}

/// A parameter's name as a path: itself when it is a plain name, as the
/// core writes keys, or a quoted index (`["a.b"]`).
fn parameter_path(name: &str) -> String {
    let plain = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain { name.to_string() } else { format!("[{}]", quoted_short(name)) }
}

fn answer(handler: Handler, segment: &str, query: Query) -> Result<Step, Error> {
    let reply = match handler {
        Handler::Health => {
            query.finish()?;
            Reply::json(200, format!("{{\"name\":\"backend-targets\",\"version\":{}}}", to_json(&VERSION)))
        }
        Handler::Presets => {
            query.finish()?;
            Reply::ok(&presets())
        }
        Handler::Target => {
            let preset = segment.parse::<Preset>().map_err(|e| e.under("preset"))?;
            let options = preset_options(query)?;
            Reply::ok(&preset.build(&options)?)
        }
        Handler::ReferenceCapsules => {
            query.finish()?;
            Reply::ok(&reference_capsules())
        }
        Handler::Schema => {
            let name = segment.parse::<SchemaName>().map_err(|e| e.under("name"))?;
            query.finish()?;
            // Every form's schema is embedded in this build (it is not the browser's).
            Reply::json(200, name.text().unwrap_or_default())
        }
        Handler::Availability => {
            query.finish()?;
            return Ok(Step::ReadBody(Pending { handler, limits: Limits::DEFAULT, limit_raisable: false }));
        }
        Handler::Plan => {
            let limits = plan_limits(query)?;
            return Ok(Step::ReadBody(Pending { handler, limits, limit_raisable: true }));
        }
    };
    Ok(Step::Answer(reply))
}

/// The version of the core (the workspace's packages share one version).
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `os`, `arch` and `enableLibTorch` (`true` or `false`), in the request's
/// order.
fn preset_options(query: Query) -> Result<PresetOptions, Error> {
    let mut options = PresetOptions::default();
    let names: Vec<&str> = OptionSpelling::TABLE.iter().map(|(name, _)| *name).collect();
    query.read(&names, &[], |name, value| options.set_from_text(name, &value, OptionSpelling::Json))?;
    Ok(options)
}

/// `limit=NAME=N`, repeated, each name once: the command's `--limit NAME=N`,
/// with the same errors at `limit` (the command's `--limit`), in the
/// request's order among the other parameters (none, for now).
fn plan_limits(query: Query) -> Result<Limits, Error> {
    let mut limits = Limits::DEFAULT;
    let mut given: Vec<String> = Vec::new();
    query.read(&["limit"], &["limit"], |name, text| {
        if name != "limit" {
            return Ok(false);
        }
        limits.apply_override(&text, "limit", &mut given)?;
        Ok(true)
    })?;
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One command table (the command's): every route answers as one of its
    /// commands does, and every command is a route or says here why not.
    #[test]
    fn the_routes_follow_the_command_table() {
        const NOT_SERVED: &[(&str, &str)] =
            &[("probe", "it would probe the host that runs the service, not the caller's machine")];
        let commands: Vec<&str> = backend_targets_cli::command_names().collect();
        let mut served = Vec::new();
        for route in ROUTES {
            let named = route.command.strip_prefix("`backend-targets ").and_then(|rest| rest.split([' ', '`']).next());
            let Some(named) = named else { panic!("{}: its command is not a `backend-targets` one", route.pattern) };
            assert!(named == "--version" || commands.contains(&named), "{}: no command {named}", route.pattern);
            served.push(named);
        }
        for command in &commands {
            let why = NOT_SERVED.iter().find(|(name, _)| name == command);
            assert!(served.contains(command) != why.is_some(), "{command}: a route, or a reason for none (not both)");
        }
    }

    fn answered(method: &str, path: &str, query: Option<&str>) -> Reply {
        match route(method, path, query) {
            Step::Answer(reply) => reply,
            Step::ReadBody(pending) => panic!("{method} {path} wants a body ({pending:?})"),
        }
    }

    fn error_of(reply: &Reply) -> (String, String) {
        let value: serde_json::Value = serde_json::from_str(&reply.body).expect("JSON");
        (value["error"]["code"].as_str().unwrap().to_string(), value["error"]["path"].as_str().unwrap().to_string())
    }

    #[test]
    fn every_route_is_documented_from_the_table_in_the_readme_and_the_spec() {
        let table = routes_markdown();
        for document in ["../docs/service.md", "../docs/SPEC.md"] {
            let text = std::fs::read_to_string(document).expect(document);
            if std::env::var_os("UPDATE_GENERATED").is_some() && !text.contains(&table) {
                // The table whose header row is the generated one's, replaced.
                let header = format!("{}\n", table.lines().next().unwrap());
                let start = text.find(&header).expect("the document has the route table's header row");
                let rows: usize = text[start..].lines().take_while(|l| l.starts_with('|')).map(|l| l.len() + 1).sum();
                let written = format!("{}{table}{}", &text[..start], &text[start + rows..]);
                std::fs::write(document, written).expect(document);
                continue;
            }
            assert!(text.contains(&table), "{document}'s route table is stale: run `cargo xtask gen`:\n{table}");
        }
    }

    #[test]
    fn health_names_the_core_s_version() {
        // This package's version is the core's (`/health`, `--version`).
        let manifest = std::fs::read_to_string("../Cargo.toml").expect("../Cargo.toml");
        assert!(
            manifest.contains(&format!("\nversion = \"{VERSION}\"\n")),
            "http/Cargo.toml's version is not the core's"
        );
        let reply = answered("GET", "/health", None);
        assert_eq!(reply.body, format!("{{\"name\":\"backend-targets\",\"version\":\"{VERSION}\"}}\n"));
    }

    #[test]
    fn unknown_paths_are_404_and_known_paths_with_another_method_405_with_allow() {
        for path in ["/", "/nope", "/presets/", "/targets", "/targets/", "/targets/linuxCpu/x", "/schemas", "//health"]
        {
            let reply = answered("GET", path, None);
            assert_eq!(reply.status, 404, "{path}");
            assert_eq!(error_of(&reply), ("usage".to_string(), String::new()));
        }
        for (method, path, allow) in [
            ("POST", "/health", "GET"),
            ("DELETE", "/presets", "GET"),
            ("GET", "/plan", "POST"),
            ("PUT", "/availability", "POST"),
            ("POST", "/targets/linuxCpu", "GET"),
            ("HEAD", "/schemas/Target", "GET"),
        ] {
            let reply = answered(method, path, None);
            assert_eq!(reply.status, 405, "{method} {path}");
            assert_eq!(reply.headers, vec![("allow", allow.to_string())], "{method} {path}");
        }
    }

    #[test]
    fn a_head_the_conversion_cannot_take_is_a_client_error_with_the_command_s_shape() {
        // Each of these was once the host's HTML 500 ("worker failed").
        let cases = [
            ("GET", Some("a b"), Some("/health"), 400, r#"the request's host "a b" is not host[:port]"#),
            ("GET", Some(""), Some("/health"), 400, r#"the request's host "" is not host[:port]"#),
            ("GET", Some("x/y"), Some("/health"), 400, r#"the request's host "x/y" is not host[:port]"#),
            ("GET", Some("h\u{e9}te"), Some("/health"), 400, "the request's host \"h\u{e9}te\" is not host[:port]"),
            ("GET", Some("x:80:80"), Some("/health"), 400, r#"the request's host "x:80:80" is not host[:port]"#),
            ("GET", Some("x:99999"), Some("/health"), 400, r#"the request's host "x:99999" is not host[:port]"#),
            ("GET", Some(":80"), Some("/health"), 400, r#"the request's host ":80" is not host[:port]"#),
            ("GET", Some("[::1"), Some("/health"), 400, r#"the request's host "[::1" is not host[:port]"#),
            ("GET", None, Some("/health"), 400, "the request has no host (no Host header)"),
            (
                "CONNECT",
                Some("x:443"),
                None,
                405,
                "CONNECT is not served: this service is no proxy; its routes take GET and POST",
            ),
            ("OPTIONS", Some("x"), Some("*"), 400, r#"the request's target "*" is not a path"#),
        ];
        for (method, host, target, status, message) in cases {
            let reply = refuse_head(method, host, target).unwrap_or_else(|| panic!("{method} {host:?} {target:?}"));
            assert_eq!(reply.status, status, "{method} {host:?} {target:?}");
            let value: serde_json::Value = serde_json::from_str(&reply.body).expect("JSON");
            assert_eq!(value, serde_json::json!({"error": {"code": "usage", "path": "", "message": message}}));
            assert!(reply.body.ends_with("}\n"));
        }
        assert_eq!(
            refuse_head("CONNECT", Some("x:443"), None).unwrap().headers,
            vec![("allow", "GET, POST".to_string())]
        );
        // What the conversion takes is routed as before.
        for host in ["x", "localhost:8080", "127.0.0.1:1", "[::1]", "[::1]:8080", "a-b.example.com", "x:", "%41"] {
            assert_eq!(refuse_head("GET", Some(host), Some("/health?x=1")), None, "{host}");
        }
        let reply = unconverted("headers provided by wasi rejected by http::HeaderMap");
        assert_eq!(reply.status, 400);
        assert_eq!(error_of(&reply), ("usage".to_string(), String::new()));
    }

    #[test]
    fn query_parameters_are_checked_as_the_command_checks_its_options() {
        let cases = [
            ("/targets/linuxCpu", "os=linux", "unsupported-option", "os"),
            ("/targets/linuxCpu", "arch=arm64", "unknown-variant", "arch"),
            ("/targets/linuxCpu", "arch=x86_64&arch=x86_64", "usage", "arch"),
            ("/targets/linuxCuda", "enableLibTorch=yes", "invalid-value", "enableLibTorch"),
            ("/targets/macOSMetal", "enableLibTorch=false", "unsupported-option", "enableLibTorch"),
            ("/targets/linuxCUDA", "", "unknown-variant", "preset"),
            ("/targets/linuxCpu", "pretty", "usage", "pretty"),
            ("/targets/linuxCpu", "a.b=1", "usage", "[\"a.b\"]"),
            ("/presets", "pretty=true", "usage", "pretty"),
            ("/schemas/Plan", "", "unknown-variant", "name"),
        ];
        for (path, query, code, at) in cases {
            let reply = answered("GET", path, Some(query));
            assert_eq!(reply.status, 400, "{path}?{query}");
            assert_eq!(error_of(&reply), (code.to_string(), at.to_string()), "{path}?{query}");
        }
        for (query, code, at) in [
            ("limit=ops", "usage", "limit"),
            ("limit=ops=x", "usage", "limit"),
            ("limit=opz=1", "unknown-variant", "limit"),
            ("limit=ops=1&limit=ops=2", "usage", "limit"),
            ("limit=ops=1000000000", "invalid-value", "limit.ops"),
            ("limits=ops=1", "usage", "limits"),
        ] {
            let reply = answered("POST", "/plan", Some(query));
            assert_eq!(reply.status, 400, "{query}");
            assert_eq!(error_of(&reply), (code.to_string(), at.to_string()), "{query}");
        }
    }

    /// Messages that say what to do, in the service's spelling: a
    /// misspelled parameter gets what it most likely meant, an option the
    /// preset does not take is named as the query names it.
    #[test]
    fn errors_name_parameters_as_the_query_spells_them_and_suggest_the_meant_one() {
        let message = |method: &str, path: &str, query: &str| {
            let reply = answered(method, path, Some(query));
            let value: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            value["error"]["message"].as_str().unwrap().to_string()
        };
        assert_eq!(message("POST", "/plan", "limt=ops=1"), r#"unknown query parameter "limt": did you mean "limit"?"#);
        assert_eq!(
            message("GET", "/targets/linuxCuda", "enableLibtorch=true"),
            r#"unknown query parameter "enableLibtorch": did you mean "enableLibTorch"?"#
        );
        assert_eq!(
            message("GET", "/targets/linuxCpu", "foo=1"),
            r#"unknown query parameter "foo", expected one of: os, arch, enableLibTorch"#
        );
        assert_eq!(
            message("GET", "/presets", "pretty=1"),
            r#"unknown query parameter "pretty": this route takes none"#
        );
        assert_eq!(
            message("GET", "/targets/linuxCuda", "os=linux"),
            "preset linuxCuda does not take option `os`; it takes only enableLibTorch"
        );
    }

    /// The command's `[code] at path: message` for `args`.
    fn command_error(args: &[String]) -> (String, String, String) {
        let args = args.iter().map(std::ffi::OsString::from).collect();
        let outcome = backend_targets_cli::run(args, &mut std::io::empty());
        let line = outcome.stderr.strip_prefix("backend-targets: error [").expect(&outcome.stderr);
        let (code, rest) = line.split_once("] at ").unwrap();
        let (path, message) = rest.split_once(": ").unwrap();
        let message = message.trim_end_matches('\n').trim_end_matches(" (see --help)");
        (code.to_string(), path.to_string(), message.to_string())
    }

    /// The parameters are read in the request's order,
    /// as the command reads the same arguments: the first problem in the
    /// request is the one reported, at the same path (`os` for `--os`).
    #[test]
    fn query_parameters_are_read_in_the_request_s_order_as_the_command_reads_its_arguments() {
        let cases = [
            ("GET", "/targets/linuxCpu", "target linuxCpu", "foo=1&os=bad"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=bad&foo=1"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=bad&os=linux"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=linux&os=bad"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "arch=bad&os=bad"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=bad&arch=bad"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=linux&foo=1"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "os=linux"),
            ("GET", "/targets/linuxCpu", "target linuxCpu", "arch=x86_64&os=macOS&arch=arm64"),
            ("GET", "/targets/portableCpu", "target portableCpu", "os=MacOS"),
            ("POST", "/plan", "plan", "foo=1&limit=bad"),
            ("POST", "/plan", "plan", "limit=bad&foo=1"),
            ("POST", "/plan", "plan", "limit=opz=1&limit=ops=x"),
            ("POST", "/plan", "plan", "limit=ops=x&limit=opz=1"),
            ("POST", "/plan", "plan", "limit=ops=1&foo=1&limit=ops=2"),
            ("POST", "/plan", "plan", "limit=ops=1&limit=ops=2&foo=1"),
            ("POST", "/plan", "plan", "limit=ops=1000000000&foo=1"),
        ];
        for (method, path, command, query) in cases {
            let reply = answered(method, path, Some(query));
            assert_eq!(reply.status, 400, "{path}?{query}");
            let value: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            let error = &value["error"];
            let mut args: Vec<String> = command.split(' ').map(String::from).collect();
            for pair in query.split('&') {
                let (name, value) = pair.split_once('=').unwrap();
                if name == "foo" {
                    args.push(format!("--{name}={value}"));
                } else {
                    args.extend([format!("--{name}"), value.to_string()]);
                }
            }
            let (code, at, message) = command_error(&args);
            let at = at.strip_prefix("--").unwrap_or(&at);
            assert_eq!((error["code"].as_str().unwrap(), error["path"].as_str().unwrap()), (&*code, at), "?{query}");
            if code == "unknown-variant" || code == "invalid-value" {
                assert_eq!(error["message"].as_str().unwrap(), message, "?{query}");
            }
        }
    }

    /// Names and values a reply echoes are quoted as the command quotes its
    /// arguments: as JSON, cut past 64 bytes.
    #[test]
    fn query_parameters_are_quoted_and_cut_as_the_command_quotes_its_arguments() {
        let long = format!("a%0Ab%1B%E2%80%AE{}", "x".repeat(100_000));
        let shown = format!(r#""a\nb\u001b\u202e{}"… (100007 bytes)"#, "x".repeat(57));
        for (method, path, query, at) in [
            ("GET", "/presets", format!("{long}=1"), format!("[{shown}]")),
            ("GET", "/targets/linuxCpu", format!("os=linux&{long}=1"), format!("[{shown}]")),
            ("GET", "/targets/linuxCpu", format!("os={long}"), "os".to_string()),
            ("GET", "/targets/linuxCuda", format!("enableLibTorch={long}"), "enableLibTorch".to_string()),
            ("POST", "/plan", format!("limit={long}"), "limit".to_string()),
            ("POST", "/plan", format!("limit={long}=1"), "limit".to_string()),
            ("POST", "/plan", long.clone(), format!("[{shown}]")),
        ] {
            let reply = answered(method, path, Some(&query));
            assert_eq!(reply.status, 400, "{path}");
            assert!(reply.body.len() < 1_500, "{path}: {} bytes", reply.body.len());
            let value: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            assert_eq!(value["error"]["path"].as_str().unwrap(), at, "{path}");
            let message = value["error"]["message"].as_str().unwrap();
            assert!(message.contains(&shown), "{path}: {message}");
        }
        let reply = answered("GET", &format!("/{}", "\n".repeat(1000)), None);
        assert!(reply.body.len() < 1_000, "{} bytes", reply.body.len());
    }

    #[test]
    fn a_plan_reads_its_body_within_the_raised_limit_and_answers_200_or_422() {
        let Step::ReadBody(pending) = route("POST", "/plan", Some("limit=requestBytes=100&limit=ops=2")) else {
            panic!("a plan reads its body")
        };
        assert_eq!(pending.limit(), 100);
        assert_eq!(pending.too_large().status, 413);
        assert!(pending.too_large().body.contains("?limit=requestBytes=N raises it"));
        let reply = pending.finish(br#"{"ops":["matmul","add","relu"]}"#.to_vec());
        assert_eq!((reply.status, error_of(&reply)), (400, ("limit-exceeded".to_string(), "ops".to_string())));

        let plan = |body: &str| match route("POST", "/plan", None) {
            Step::ReadBody(pending) => pending.finish(body.as_bytes().to_vec()),
            Step::Answer(reply) => panic!("{reply:?}"),
        };
        assert_eq!(plan(r#"{"ops":["matmul"]}"#).status, 200);
        assert_eq!(plan(r#"{"ops":["matmul"],"config":{"device":"cuda"}}"#).status, 422);
        assert_eq!(plan("{\"ops\":[]}\u{0}").status, 400);
        let reply = match route("POST", "/plan", None) {
            Step::ReadBody(pending) => pending.finish(vec![b'{', 0xff, b'}']),
            Step::Answer(reply) => panic!("{reply:?}"),
        };
        assert_eq!(error_of(&reply), ("invalid-json".to_string(), String::new()));
    }

    /// A 16 MiB unknown spelling, inside the default limit, was once
    /// compared by edit distance with every known one (27 s in the service):
    /// two at once were answered 500 at the host's timeout. It is a 400 with
    /// the command's error, and no suggestion, at the cost of reading it.
    #[test]
    fn a_sixteen_megabyte_unknown_spelling_is_a_400_without_a_suggestion() {
        for (body, code, at) in [
            (format!(r#"{{"ops":["{}"]}}"#, "q".repeat((16 << 20) - 12)), "unknown-variant", "ops[0]"),
            (
                format!(r#"{{"ops":[],"{}":1}}"#, "q".repeat((16 << 20) - 15)),
                "unknown-field",
                r#"["qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"… (16777201 bytes)]"#,
            ),
        ] {
            let Step::ReadBody(pending) = route("POST", "/plan", None) else { panic!("a plan reads its body") };
            assert_eq!(body.len(), pending.limit());
            let reply = pending.finish(body.into_bytes());
            assert_eq!((reply.status, error_of(&reply)), (400, (code.to_string(), at.to_string())));
            assert!(reply.body.contains("(167772"), "{}", &reply.body[..200]);
            assert!(!reply.body.contains("did you mean"), "{}", &reply.body[..200]);
            assert!(reply.body.len() < 2_000, "{} bytes", reply.body.len());
        }
    }
}
