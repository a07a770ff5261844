//! The benchmark's floor (bench/http.mjs): a `wasi:http/proxy` component on
//! the same wstd as the service, served by the same `wasmtime serve`, that
//! reads the request's body to its end and answers `Hello, world!`. What it
//! costs per request is the engine's own: an instance, the body in, a reply
//! out. Only in the `wasm32-wasip2` build.

#[cfg(all(target_os = "wasi", target_env = "p2"))]
// The macro also defines an unused `main` (for binaries).
#[allow(dead_code)]
mod export {
    use http_body_util::BodyExt;
    use wstd::http::{Body, Error, Request, Response};

    #[wstd::http_server]
    async fn main(request: Request<Body>) -> Result<Response<Body>, Error> {
        let mut body = request.into_body().into_boxed_body();
        while let Some(frame) = body.frame().await {
            frame?;
        }
        Ok(Response::new(Body::from("Hello, world!\n")))
    }
}
