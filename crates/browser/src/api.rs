//! The JavaScript boundary (wasm-bindgen, `wasm32-unknown-unknown` only):
//! plain JS objects in and out, over the same text entry points as the
//! command line, for every export ([`planning`](crate::planning), `probe`).
//!
//! Values cross the boundary as JSON text: `JSON.stringify` in, the core's
//! strict parser, the core's serializer, `JSON.parse` out. So a request gives
//! the same errors (code and path) and the same bytes as the command.
//! Invalid input throws an `Error` with `code`, `path` and, for a bad
//! spelling, `expected`; an unplannable request returns `{ ok: false, ... }`.

use js_sys::{Array, JSON, JsString, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use backend_targets::Limits;
use backend_targets::{Error, ErrorCode};

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR: &str = r#"
/**
 * The codes the package throws: every `ErrorCode` but `output` (the
 * command's). `usage`: a call before `init()`; `io`: `init()` could not
 * fetch the `.wasm`; `unsupported-platform`: a probe that could not be
 * restarted, or a schema only the command serves; the others: invalid input.
 */
export type PackageErrorCode = Exclude<ErrorCode, "output">;

/** What every function throws for invalid input (an `Error`; match it with `instanceof` or `isBackendTargetsError`). */
export class BackendTargetsError extends Error {
  private constructor();
  readonly name: "BackendTargetsError";
  /** A stable kind: "unknown-field", "missing-field", "wrong-type", "unknown-variant", ... */
  readonly code: PackageErrorCode;
  /** Where: a path such as "capsules[3].trustLevel"; "" for the whole value. */
  readonly path: string;
  /** For an unknown spelling: the valid spellings, in order. */
  readonly expected?: string[];
}

/** Whether `value` is a `BackendTargetsError` (also one thrown by another copy of the package, or in another realm). */
export function isBackendTargetsError(value: unknown): value is BackendTargetsError;
"#;

#[wasm_bindgen(start, private)]
fn install_panic_recovery() {
    // A panic traps and would poison the instance; schedule a fresh instance
    // for the next call instead. (No input is known to panic: this is the
    // second line of defence.)
    std::panic::set_hook(Box::new(|_| instance_ends(false)));
}

/// The instance is about to trap (a panic, or an allocation its memory
/// cannot hold): the glue starts a fresh one for the next call, and the JS
/// half tells the entry that called (which answers a failed allocation with
/// a `BackendTargetsError`) and the probes waiting in this instance (which
/// start again in the next).
fn instance_ends(out_of_memory: bool) {
    instance_lost(out_of_memory);
    wasm_bindgen::handler::schedule_reinit();
}

/// talc (smaller than the default dlmalloc by 2.6 KB gzip, and fast at the
/// planner's many small allocations), with a hook: an allocation that fails
/// ends the instance as a panic does. Without it, the allocation's trap left
/// the memory full of what the interrupted call held, and every later call
/// failed too. build.rs caps the memory at 2 GiB, so talc never meets the
/// growth to exactly 4 GiB whose end address a 32-bit pointer cannot hold
/// (BENCHMARKS.md, "The allocator"): an allocation past the cap fails cleanly.
struct Allocator(talc::wasm::WasmDynamicTalc);

#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: Allocator = Allocator(talc::wasm::new_wasm_dynamic_allocator());

// SAFETY: every method forwards its arguments to talc's, under the same
// contract the caller met; a failed allocation returns talc's null after a
// call to JS that takes nothing and allocates nothing in the module.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        checked(unsafe { self.0.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        checked(unsafe { self.0.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` (`ptr` from this
        // allocator with `layout`), passed on.
        checked(unsafe { self.0.realloc(ptr, layout, new_size) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { self.0.dealloc(ptr, layout) }
    }
}

/// `pointer`, after ending the instance when it is null (a failed allocation).
fn checked(pointer: *mut u8) -> *mut u8 {
    if pointer.is_null() {
        instance_ends(true);
    }
    pointer
}

/// The `Error` thrown to JavaScript.
pub(crate) fn js_error(mut error: Error) -> JsValue {
    if let Some(kind) = take_unrepresentable()
        && error.code == ErrorCode::WrongType
    {
        error.message = format!("{} ({kind} was given, which JSON cannot represent)", error.message);
    }
    let js = js_sys::Error::new(&error.one_line());
    js.set_name("BackendTargetsError");
    let object: &JsValue = js.as_ref();
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(object, &JsValue::from_str(key), &value);
    };
    set("code", JsValue::from_str(error.code.as_str()));
    set("path", JsValue::from_str(&error.path));
    if !error.expected.is_empty() {
        let expected: Array = error.expected.iter().map(|s| JsValue::from_str(s)).collect();
        set("expected", expected.into());
    }
    js.into()
}

#[wasm_bindgen(module = "/src/boundary.js")]
extern "C" {
    /// `JSON.stringify` with a replacer that turns functions, symbols, BigInts
    /// and non-finite numbers into null: a string, or `undefined` where JSON
    /// has no text; the bytes counted so far (a number) once the text would
    /// take more than `max_bytes`.
    #[wasm_bindgen(js_name = jsonText, catch)]
    fn stringify(value: &JsValue, max_bytes: f64) -> Result<JsValue, JsValue>;
    /// The instance is about to trap (see `instance_ends`).
    #[wasm_bindgen(js_name = instanceLost)]
    fn instance_lost(out_of_memory: bool);
    /// What the last `stringify` turned into null ("a function", ...), once.
    #[wasm_bindgen(js_name = takeUnrepresentable)]
    fn take_unrepresentable() -> Option<String>;
    /// The UTF-16 index of the first lone surrogate in `text`, or -1.
    #[wasm_bindgen(js_name = loneSurrogate)]
    fn lone_surrogate(text: &JsString) -> i32;
    /// `TextEncoder.encodeInto(text, into).written`.
    #[wasm_bindgen(js_name = encodeInto)]
    fn encode_into(text: &JsString, into: &Uint8Array) -> u32;
}

/// A JS string's text; `None` when `value` is not a string.
///
/// wasm-bindgen's glue copies a string into the module one UTF-16 unit at a
/// time in JavaScript (for its ASCII part): 15 % of a 1,000-capsule
/// `planJson`. `TextEncoder.encodeInto` writes it in one native call.
pub(crate) fn string_from_js(value: &JsValue) -> Option<String> {
    let text: &JsString = value.dyn_ref()?;
    let units = text.length() as usize;
    // UTF-8 cannot carry a lone surrogate: `text_from_js` refuses it first.
    // Room for ASCII (a byte per UTF-16 unit) first; when that runs out, the
    // worst case (3 bytes per unit), as wasm-bindgen's glue would grow to.
    let worst = units.checked_mul(3).and_then(|bytes| bytes.checked_add(4));
    for capacity in [units.checked_add(4), worst].into_iter().flatten() {
        let mut bytes = Vec::<u8>::with_capacity(capacity);
        // SAFETY: the view covers the vector's spare capacity, and no code of
        // the module runs (nothing can allocate or grow the memory) while
        // JavaScript writes through it.
        let view = unsafe { Uint8Array::view_mut_raw(bytes.as_mut_ptr(), capacity) };
        let written = (encode_into(text, &view) as usize).min(capacity);
        // encodeInto stops early only when the next character (at most
        // 4 bytes) does not fit: with 4 bytes to spare, it wrote everything.
        if capacity - written >= 4 {
            // SAFETY: encodeInto initialised the first `written` bytes.
            unsafe { bytes.set_len(written) };
            return String::from_utf8(bytes).ok();
        }
    }
    value.as_string()
}

/// A JS string as request text, refused (not changed) when it holds a lone
/// surrogate or has more UTF-16 units than `max_bytes` (each is at least a
/// byte of UTF-8), before it is copied.
#[cfg(feature = "planner-exports")]
pub(crate) fn text_from_js(value: &JsValue, max_bytes: usize) -> Result<Option<String>, Error> {
    let Some(text) = value.dyn_ref::<JsString>() else { return Ok(None) };
    check_text(text, max_bytes)?;
    Ok(string_from_js(value))
}

/// [`text_from_js`]'s checks, without the copy.
fn check_text(text: &JsString, max_bytes: usize) -> Result<(), Error> {
    Limits::check("", "requestBytes", "UTF-16 units", text.length() as usize, max_bytes)?;
    let at = lone_surrogate(text);
    if at >= 0 {
        let message = format!("the text has a lone surrogate at UTF-16 index {at}, which is not Unicode text");
        return Err(Error::new(ErrorCode::InvalidJson, "", message));
    }
    Ok(())
}

/// A JS value's JSON text as [`json_text`] makes it (the same replacer, bound
/// and errors), left in JavaScript: `None` for `undefined` (and `null`, when
/// `absent_ok`).
fn js_json_text(value: &JsValue, absent_ok: bool, max_bytes: usize) -> Result<Option<JsValue>, Error> {
    if value.is_undefined() || (absent_ok && value.is_null()) {
        return Ok(None);
    }
    if let Some(text) = value.dyn_ref::<JsString>() {
        // A string is taken as JSON text (e.g. a request read from a file).
        check_text(text, max_bytes)?;
        return Ok(Some(value.clone()));
    }
    // A function, symbol or BigInt inside the value becomes null (see
    // `boundary.js`), so that the reader refuses it with its exact path.
    let not_json = || Error::new(ErrorCode::WrongType, "", "the value cannot be represented as JSON");
    let text = stringify(value, max_bytes as f64).map_err(|_| not_json())?;
    if let Some(at_least) = text.as_f64() {
        Limits::check("", "requestBytes", "bytes or more as JSON text", at_least as usize, max_bytes)?;
    }
    let checked = text.dyn_ref::<JsString>().ok_or_else(not_json)?;
    check_text(checked, max_bytes)?;
    Ok(Some(text))
}

/// A JS value as JSON text, of at most `max_bytes` (a request's
/// `requestBytes`): refused before it is copied into the module, and an
/// object after JSON.stringify has written about as much of it as the limit
/// allows, never all of it. `None` for `undefined` (and `null`, when
/// `absent_ok`).
pub(crate) fn json_text(value: &JsValue, absent_ok: bool, max_bytes: usize) -> Result<Option<String>, Error> {
    // The text is copied into the module once it has passed every check.
    Ok(js_json_text(value, absent_ok, max_bytes)?.and_then(|text| string_from_js(&text)))
}

/// Parses compact JSON produced by the core into a JS value.
pub(crate) fn to_js(text: &str) -> JsValue {
    // The core's own output is always valid JSON.
    JSON::parse(text).unwrap_or(JsValue::NULL)
}
