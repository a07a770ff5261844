//! The backend-targets service: a `wasi:http/proxy` component
//! (`dist/backend-targets-http.wasm`, built for `wasm32-wasip2`) over the
//! same core as the command. Two modules: `service`, the routes and answers
//! as data (pure, tested natively), and `component`, the proxy world's
//! export (only in the component), which reads bodies within their limit and
//! pause and writes replies. Beyond the proxy world it imports what Rust's
//! standard library does on `wasm32-wasip2` (`wasi:cli`: environment, exit,
//! terminals), hence `wasmtime serve -S cli`; it is given no variable, no
//! folder and no socket.

mod service;

pub use service::{
    BODY_IDLE_TIMEOUT_MS, Pending, ROUTES, Reply, Route, Step, refuse_head, route, routes_markdown, unconverted,
};

#[cfg(all(target_os = "wasi", target_env = "p2"))]
mod component;
