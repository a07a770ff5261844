//! The backend-targets service: a `wasi:http/proxy` component
//! (`dist/backend-targets-http.wasm`, built for `wasm32-wasip2`) over the
//! same core as the command. Three modules: `service`, the routes and answers
//! as data (pure, tested natively), `cors`, which origins may ask and the
//! headers that tell them so (pure too), and `component`, the proxy world's
//! export (only in the component), which reads bodies within their limit and
//! pause and writes replies. Beyond the proxy world it imports what Rust's
//! standard library does on `wasm32-wasip2` (`wasi:cli`: environment, exit,
//! terminals), hence `wasmtime serve -S cli`; it reads one variable,
//! `BACKEND_TARGETS_ALLOW_ORIGIN` (`cors`), and is given no folder and no
//! socket.

mod cors;
mod service;

pub use cors::{ALLOW_ORIGIN_VARIABLE, ALLOWED_HEADERS, Cors, MAX_AGE_S};
pub use service::{
    BODY_IDLE_TIMEOUT_MS, Pending, ROUTES, Reply, Route, Step, refuse_head, route, routes_markdown, unconverted,
};

#[cfg(all(target_os = "wasi", target_env = "p2"))]
mod component;
