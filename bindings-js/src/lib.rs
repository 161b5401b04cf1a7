//! The JavaScript binding of `retryplan`, compiled to wasm with wasm-bindgen.
//!
//! It converts types and errors and nothing else: every decision, default and
//! rule is the core's. JS numbers (f64) carry times at the boundary (never
//! `bigint`); a time is floored, and a value that is not a finite number in
//! `0..=2^53-1` (or not a number at all: nothing is coerced) is a
//! `RetryplanError` with code `invalid_argument`. Results are plain objects
//! keyed in camelCase, with snake_case string values, as the `.d.ts`
//! describes: decisions, actions, finishes, events and outcomes spelt by
//! `lib/records.js` (through the generated readers of `lib/generated/`) from
//! the core's wire records, which this crate stores in wasm memory.
//!
//! The exported functions all start with `_`: they are the internals of the
//! classes and functions of `lib/*.js`, which check every argument's type and
//! range and pass numbers, strings and handles (see `objects`); a value that
//! came through them is taken as it is (a number is cast, never refused). A
//! configuration object is read here, by the core's one reader; an outcome
//! object by `lib/outcomes.js`, into the core's wire words.
//!
//! Natively this crate is empty, so `cargo test --workspace` never calls a JS import.
#![cfg(target_arch = "wasm32")]
#![no_std]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::sync::atomic::{AtomicBool, Ordering};

use js_sys::Array;
#[cfg(feature = "config")]
use js_sys::JsString;
use retryplan as rp;
#[cfg(feature = "messages")]
use rp::ground::message::{Arg, Message};
use rp::Error;
use wasm_bindgen::prelude::*;

mod args;
#[cfg(feature = "controls")]
mod controls;
#[cfg(feature = "config")]
mod data;
#[cfg(feature = "tools")]
mod dialects;
mod driver;
#[rustfmt::skip]
mod functions_default_generated;
#[cfg(feature = "tools")]
#[rustfmt::skip]
mod functions_generated;
mod objects;
mod operation;
mod outcomes;
mod policy;
mod propagation;
#[cfg(feature = "config")]
mod telemetry;
#[cfg(feature = "tools")]
mod tools;
mod wire;

/// The global allocator: a small free list instead of dlmalloc (about 3 KB less
/// of the gzipped download), which records running out of memory (see
/// [`trapped`]). The engine allocates only when reading configurations and
/// building messages, never per decision.
#[cfg(target_feature = "atomics")]
compile_error!("the single-threaded allocator and globals below are unsound with wasm threads (atomics)");

struct Allocator(lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator>);

/// Set when the module traps: out of memory, or a panic (a bug). Either
/// aborts the call in the middle, leaving the object it ran on borrowed for
/// good and whatever it held (a retry slot, a breaker probe) unreleased.
static TRAPPED: AtomicBool = AtomicBool::new(false);

// SAFETY: every call is forwarded unchanged to the inner allocator; the only
// addition is a flag store when it returns null.
#[allow(unsafe_code)] // denied workspace-wide: see the SAFETY comment above
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = self.0.alloc(layout);
        if pointer.is_null() {
            TRAPPED.store(true, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        self.0.dealloc(pointer, layout);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = self.0.realloc(pointer, layout, new_size);
        if moved.is_null() {
            TRAPPED.store(true, Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
#[allow(unsafe_code)]
// SAFETY: wasm32-unknown-unknown without the atomics feature has one thread, the
// only case `AssumeSingleThreaded` is sound for.
static ALLOCATOR: Allocator =
    Allocator(unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) });

/// A panic (a bug: the binding denies unwrap, expect and indexing) marks the
/// module as trapped and traps at once. The smallest panic path there is: the
/// panic's message is never read, so no formatting code is linked (see the
/// size table in README.md).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    TRAPPED.store(true, Ordering::Relaxed);
    core::arch::wasm32::unreachable()
}

/// A value the module keeps between calls. The module has one thread (see the
/// `atomics` check above), so sharing it is sound.
pub(crate) struct Global<T>(pub(crate) T);

// SAFETY: wasm32-unknown-unknown without the atomics feature has one thread.
#[allow(unsafe_code)] // denied workspace-wide: see the SAFETY comment above
unsafe impl<T> Sync for Global<T> {}

/// True once the module has trapped (a `WebAssembly.RuntimeError` was thrown:
/// out of memory, or a bug): its objects may be left unusable and what they
/// held unreleased, so load the module again. Inputs are bounded so that no
/// argument can make it run out of memory.
#[wasm_bindgen(js_name = wasmTrapped)]
pub fn trapped() -> bool {
    TRAPPED.load(Ordering::Relaxed)
}

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    /// A core error: its code, its field (an argument, a field path, a
    /// header, a policy section), and its message as data (see `message_js`).
    #[wasm_bindgen(js_name = coreError)]
    fn core_error(code: &str, field: Option<&str>, message: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = addViolation)]
    fn add_violation(error: &JsValue, field: &str, message: JsValue);
    /// A typed field of a core error (`running`, `known`), as the core gave it.
    #[wasm_bindgen(js_name = addDetail)]
    fn add_detail(error: &JsValue, key: &str, value: JsValue);
    /// An error of the binding's own (`invalid_argument`, or with `config`
    /// `invalid_config` naming that configuration, `words` how the core's
    /// message names it) at `field`: the key of its rule in
    /// `lib/messages.js` and up to two values the words name.
    #[wasm_bindgen(js_name = bindingError)]
    fn binding_error(
        config: Option<&str>,
        words: Option<&str>,
        field: &str,
        rule: &str,
        a: &JsValue,
        b: &JsValue,
    ) -> JsValue;
    /// A refused compiled form: the index of its message in the generated
    /// `COMPILED_FORM.MESSAGES` (see [`compiled_error`]), the kind expected
    /// and the values its template names after it.
    #[wasm_bindgen(js_name = compiledFormError)]
    fn compiled_form_error(message: u32, expected: &str, a: &JsValue, b: &JsValue) -> JsValue;
    /// False when the string holds a lone surrogate.
    #[cfg(feature = "config")]
    #[wasm_bindgen(js_name = isWellFormed)]
    fn is_well_formed(text: &JsString) -> bool;
}

/// The largest integer a JS number holds exactly, as the core's `MAX_MS`.
#[cfg(any(feature = "messages", feature = "tools"))]
const MAX_SAFE: f64 = rp::policy::MAX_MS as f64;

/// A message as data for `lib/messages.js` to compose: `[rule index,
/// ...values]`, a value being a string, a number (a bigint beyond 2^53), an
/// array of names (strings), a message, or an array of messages.
#[cfg(feature = "messages")]
fn message_js(message: &Message) -> JsValue {
    let array = Array::new();
    array.push(&JsValue::from(message.rule().index()));
    for arg in message.args() {
        array.push(&arg_js(arg));
    }
    array.into()
}

#[cfg(feature = "messages")]
fn arg_js(arg: &Arg) -> JsValue {
    match arg {
        Arg::Text(text) => JsValue::from_str(text),
        Arg::Unsigned(number) if *number as f64 <= MAX_SAFE => JsValue::from_f64(*number as f64),
        Arg::Unsigned(number) => JsValue::from(*number),
        Arg::Signed(number) if (*number as f64).abs() <= MAX_SAFE => JsValue::from_f64(*number as f64),
        Arg::Signed(number) => JsValue::from(*number),
        Arg::Float(number) => JsValue::from_f64(*number),
        Arg::Names(names) => names.iter().map(|name| JsValue::from_str(name)).collect::<Array>().into(),
        Arg::Message(message) => message_js(message),
        Arg::Messages(messages) => messages.iter().map(message_js).collect::<Array>().into(),
        _ => JsValue::UNDEFINED,
    }
}

/// A core error as a `RetryplanError` (a real `Error` subclass with `.code`,
/// and `.blame` from the core's table in `lib/rules.js`), its message composed
/// by `lib/messages.js`, its typed fields (`config`; `attempt` and `running`;
/// `profile` and `known`), the lists as arrays.
fn js_error(error: Error) -> JsValue {
    // Exhaustive on purpose: a new core error must be mapped here.
    let field = match &error {
        Error::InvalidConfig { field, .. } => Some(&**field),
        Error::InvalidArgument { field, .. } | Error::Unsupported { field, .. } => Some(*field),
        Error::InvalidHeader(header) => Some(header.header()),
        Error::InvalidRequestHeader(header) => Some(header.header()),
        Error::ConfigViolations { .. }
        | Error::UnknownProfile { .. }
        | Error::OperationEnded
        | Error::AttemptNotRunning { .. }
        | Error::EntropyUnavailable { .. } => None,
    };
    #[cfg(feature = "messages")]
    let message = message_js(&error.message());
    #[cfg(not(feature = "messages"))]
    let message = JsValue::UNDEFINED;
    let value = core_error(error.code(), field, message);
    if let Error::InvalidConfig { config, .. } | Error::ConfigViolations { config, .. } = &error {
        add_detail(&value, "config", JsValue::from_str(config.name()));
    }
    match &error {
        Error::ConfigViolations { violations, .. } => {
            for violation in violations {
                #[cfg(feature = "messages")]
                let message = message_js(&violation.message);
                #[cfg(not(feature = "messages"))]
                let message = JsValue::UNDEFINED;
                add_violation(&value, &violation.field, message);
            }
        }
        Error::AttemptNotRunning { attempt, running } => {
            add_detail(&value, "attempt", JsValue::from(*attempt));
            add_detail(
                &value,
                "running",
                running.iter().map(|attempt| JsValue::from(*attempt)).collect::<Array>().into(),
            );
        }
        Error::UnknownProfile { profile, known } => {
            add_detail(&value, "profile", JsValue::from_str(profile));
            add_detail(&value, "known", known.iter().map(|name| JsValue::from_str(name)).collect::<Array>().into());
        }
        _ => {}
    }
    value
}

/// A header error as a `RetryplanError`.
fn header_error(error: rp::headers::retry_after::HeaderError) -> JsValue {
    js_error(error.into())
}

/// A refused compiled form as a `RetryplanError` with the core's code, its
/// message composed by `lib/convert.js` from the core's own text (generated
/// into `COMPILED_FORM`: this numbers its messages in that order), `config`
/// naming the kind expected. The core composes these messages with
/// `core::fmt`, which the default entry does not link.
fn compiled_error(error: rp::CompiledFormError) -> JsValue {
    use rp::policy::compiled::Damage;
    use rp::CompiledFormError as Refused;
    let number = |value: usize| JsValue::from_f64(value as f64);
    let none = JsValue::UNDEFINED;
    let (message, expected, a, b) = match error {
        Refused::NotCompiled { expected, len } => (0, expected, number(len), none),
        Refused::Version { expected, found, supported } => {
            (1, expected, JsValue::from(found), JsValue::from(supported))
        }
        Refused::Damaged { expected, damage: Damage::Checksum } => (2, expected, none.clone(), none),
        Refused::Damaged { expected, damage: Damage::Unreadable { offset } } => (3, expected, number(offset), none),
        Refused::Kind { expected, found: Some(found) } => (4, expected, JsValue::from_str(found.name()), none),
        Refused::Kind { expected, found: None } => (5, expected, none.clone(), none),
        // A refusal newer than this binding (the enum is non-exhaustive): its code as its text.
        other => return core_error(other.code(), None, JsValue::from_str(other.code())),
    };
    compiled_form_error(message, expected.name(), &a, &b)
}

/// An `invalid_argument` error of the binding's own: `rule` is the key of its
/// words in `lib/messages.js` (`BINDING`).
fn invalid(name: &str, rule: &str) -> JsValue {
    binding_error(None, None, name, rule, &JsValue::UNDEFINED, &JsValue::UNDEFINED)
}

/// [`invalid`] naming the values `a` and `b`.
fn invalid_with(name: &str, rule: &str, a: &JsValue, b: &JsValue) -> JsValue {
    binding_error(None, None, name, rule, a, b)
}

/// A u64 from the core as a JS number (exact up to 2^53-1, the core's `MAX_MS`).
fn num(value: u64) -> f64 {
    value as f64
}

/// A value or the error as one value, for the internal methods that
/// `lib/*.js` calls: a `Result<JsValue, JsValue>` return goes through
/// wasm-bindgen's externref table (an allocation in wasm and a second call to
/// free it from JS), a plain `JsValue` does not. Values are plain objects or
/// strings, errors `RetryplanError`s, so JS tells them apart and throws the error.
fn either(result: Result<JsValue, JsValue>) -> JsValue {
    result.unwrap_or_else(|error| error)
}
