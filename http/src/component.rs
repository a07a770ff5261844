//! The `wasi:http/proxy` export (only in the `wasm32-wasip2` build): the edge
//! between a `wasi:http` host (`wasmtime serve`: one fresh instance per
//! request) and `service`. It routes a request, reads its body when the
//! route takes one, refusing it (413) as soon as the route's limit is passed,
//! declared (`content-length`) or read, without reading the rest, and
//! answering 408 when the body pauses for `BODY_IDLE_TIMEOUT_MS`, then writes
//! the reply.
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
use wasip2::http::types::{IncomingRequest, ResponseOutparam};
use wstd::future::FutureExt;
use wstd::http::request::try_from_incoming;
use wstd::http::server::Responder;
use wstd::http::{Body, HeaderName, HeaderValue, Request, Response, StatusCode};
use wstd::time::Duration;

use crate::service::{BODY_IDLE_TIMEOUT_MS, Reply, Step, route};

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
            match try_from_incoming(request) {
                // A reply that cannot be written has no one to tell.
                Ok(request) => drop(responder.respond(serve(request).await).await),
                // The host's request did not convert (headers, method): the
                // host answers it (500), as the macro does.
                Err(error) => responder.fail(error),
            }
        })
    }
}

wasip2::http::proxy::export!(Export with_types_in wasip2);

/// Answers one request.
async fn serve(request: Request<Body>) -> Response<Body> {
    let reply = answer(request).await;
    let length = HeaderValue::from(reply.body.len());
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert("content-length", length);
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
