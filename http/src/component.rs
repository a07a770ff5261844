//! The `wasi:http/proxy` export (only in the `wasm32-wasip2` build): the edge
//! between a `wasi:http` host (`wasmtime serve`: one fresh instance per
//! request) and `service`. It answers a head the conversion to an
//! `http::Request` cannot take (`service::refuse_head`) with a 4xx, routes a
//! request, reads its body when the
//! route takes one, refusing it (413) as soon as the route's limit is passed,
//! declared (`content-length`) or read, without reading the rest, and
//! answering 408 when the body pauses for `BODY_IDLE_TIMEOUT_MS`, then writes
//! the reply, with the CORS headers (`cors`) the host's
//! `BACKEND_TARGETS_ALLOW_ORIGIN` calls for: a preflight (`OPTIONS` from an
//! allowed origin) is answered 204 before routing, and every reply to an
//! allowed origin, refusals included, names it.
//!
//! Built on `wstd` (the Bytecode Alliance's async standard library for WASI
//! 0.2 components) rather than on the raw `wasip2` bindings alone: its
//! server gives the proxy world's export (see `Export`), its runtime awaits
//! the host's streams, its incoming body is an `http_body::Body`
//! read in frames of at most 64 KiB (so `http_body_util::Limited` stops at
//! the limit, within one frame), and its timers bound a stalled client's
//! pause. wstd 0.6.8 builds on Rust 1.91 and later and imports WASI 0.2.12
//! (through `wasip2` 1.0.4), the version wasmtime 48's host serves.

use http_body_util::{BodyExt, LengthLimitError, Limited};
use wasip2::http::types::{IncomingRequest, Method, ResponseOutparam};
use wstd::future::FutureExt;
use wstd::http::request::try_from_incoming;
use wstd::http::server::Responder;
use wstd::http::{Body, HeaderName, HeaderValue, Request, Response, StatusCode};
use wstd::time::Duration;

use crate::cors::{ALLOW_ORIGIN_VARIABLE, Cors};
use crate::service::{BODY_IDLE_TIMEOUT_MS, Reply, Step, refuse_head, route, unconverted};

/// The proxy world's `incoming-handler`: what `#[wstd::http_server]` expands
/// to (wstd 0.6.8), with one change. The macro unwraps the result of writing
/// the reply, so a client that has gone before its answer is written panics
/// the instance (a trap, and a panic in the host's log); here that request
/// just ends: nobody is left to answer. The pieces the expansion calls
/// (`try_from_incoming`, `Responder`) are wstd's, public for the macro.
struct Export;

impl wasip2::exports::http::incoming_handler::Guest for Export {
    fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
        let responder = Responder::new(response_out);
        wstd::runtime::block_on(async move {
            // A head the conversion cannot take (no or a malformed Host,
            // CONNECT, a target that is not a path) is the client's error:
            // answered here, where the macro would leave the host to answer
            // 500 ("worker failed").
            let method = method_name(request.method());
            let (authority, target) = (request.authority(), request.path_with_query());
            // The host's setting (`wasmtime serve --env`; `-S cli` gives the
            // environment), read for each request: each has a fresh instance.
            let cors = Cors::from_setting(std::env::var(ALLOW_ORIGIN_VARIABLE).ok().as_deref());
            let origin = origin(&request);
            let mut reply = match refuse_head(&method, authority.as_deref(), target.as_deref()) {
                Some(refused) => refused,
                None => match try_from_incoming(request) {
                    Ok(request) => {
                        match cors.preflight(request.method().as_str(), request.uri().path(), origin.as_deref()) {
                            Some(preflight) => preflight,
                            None => answer(request).await,
                        }
                    }
                    // Anything else the conversion refuses (a header, a
                    // length) came from the request too.
                    Err(error) => unconverted(&error.to_string()),
                },
            };
            cors.decorate(&mut reply, origin.as_deref());
            // A reply that cannot be written has no one to tell.
            drop(responder.respond(response(reply)).await);
        })
    }
}

wasip2::http::proxy::export!(Export with_types_in wasip2);

/// The method as the request spells it.
fn method_name(method: Method) -> String {
    match method {
        Method::Get => "GET".into(),
        Method::Head => "HEAD".into(),
        Method::Post => "POST".into(),
        Method::Put => "PUT".into(),
        Method::Delete => "DELETE".into(),
        Method::Connect => "CONNECT".into(),
        Method::Options => "OPTIONS".into(),
        Method::Trace => "TRACE".into(),
        Method::Patch => "PATCH".into(),
        Method::Other(other) => other,
    }
}

/// The request's `Origin`, when it has exactly one, in UTF-8 (two, or
/// bytes that are not text, are no origin an allowed one equals).
fn origin(request: &IncomingRequest) -> Option<String> {
    let mut values = request.headers().get("origin");
    match values.pop() {
        Some(value) if values.is_empty() => String::from_utf8(value).ok(),
        _ => None,
    }
}

/// The reply as a response.
fn response(reply: Reply) -> Response<Body> {
    let length = HeaderValue::from(reply.body.len());
    let no_content = reply.status == 204;
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    // A 204 (a preflight's answer) has no body, and no header about one.
    if !no_content {
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("content-length", length);
    }
    for (name, value) in reply.headers {
        // The service's header names and values are plain ASCII.
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    response
}

async fn answer(request: Request<Body>) -> Reply {
    let uri = request.uri();
    let pending = match route(request.method().as_str(), uri.path(), uri.query()) {
        Step::Answer(reply) => return reply,
        Step::ReadBody(pending) => pending,
    };
    let body = request.into_body();
    let declared = body.content_length();
    // Declared too long: refused before a byte is read.
    if declared.is_some_and(|length| length > pending.limit() as u64) {
        return pending.too_large();
    }
    // Read too long: refused at the frame that passes the limit; the rest is
    // never read (the body is dropped with the request). A declared length
    // (at most the limit) is reserved at once, not reached by doubling.
    let mut body = Limited::new(body.into_boxed_body(), pending.limit());
    let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
    loop {
        match body.frame().timeout(Duration::from_millis(u64::from(BODY_IDLE_TIMEOUT_MS))).await {
            Err(_paused) => return Reply::body_stalled(),
            Ok(None) => return pending.finish(bytes),
            Ok(Some(Err(error))) if error.is::<LengthLimitError>() => return pending.too_large(),
            Ok(Some(Err(error))) => return Reply::body_unreadable(&error.to_string()),
            Ok(Some(Ok(frame))) => {
                // Trailers, if any, carry nothing the service reads.
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                }
            }
        }
    }
}
