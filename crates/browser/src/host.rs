//! What the module asks of its host (the page, the worker, Deno), shared by
//! the probe and the verification: a property read that never throws, the
//! clock, and a future bounded by a timer. The JS side is `probe.js`'s
//! (`now`, `delay`, `cancelDelay`).

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/probe.js")]
extern "C" {
    /// `[promise, timer]`: the promise resolves after `ms` milliseconds.
    #[wasm_bindgen(js_name = delay)]
    fn delay(ms: f64) -> Array;
    #[wasm_bindgen(js_name = cancelDelay)]
    fn cancel_delay(timer: &JsValue);
    /// `performance.now()`, or `Date.now()` where there is no `performance`.
    #[wasm_bindgen(js_name = now)]
    pub(super) fn now_ms() -> f64;
}

/// `object[key]`, or `undefined` where reading it throws.
pub(super) fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `fut`, or `None` once `ms` milliseconds have passed.
pub(super) async fn within<F: Future>(ms: f64, fut: F) -> Option<F::Output> {
    let started = delay(ms);
    let (promise, timer) = (started.get(0), started.get(1));
    let mut fut = pin!(fut);
    let mut elapsed = pin!(JsFuture::from(Promise::from(promise)));
    let outcome = poll_fn(|cx| {
        if let Poll::Ready(value) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(value));
        }
        if elapsed.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await;
    // A pending timer would keep an event loop alive and cost the next probe.
    cancel_delay(&timer);
    outcome
}
