//! The core's one wire encoding (`retryplan::wire`) for Kotlin: an input
//! record in, the next record out (`Driver::exchange`: the next action;
//! `Operation::exchange`: the decision), carried as two `long[]` through one
//! C function bound by JNA's direct mapping (`dev/retryplan/Wire.kt`),
//! and the core's tables of that encoding (`wire_tables`, at run time; the
//! Kotlin side's constants are generated from them by `core/mirrors`).
//! Nothing here encodes anything: the words are the core's.
//!
//! An object is found by its uniffi handle in a table of live objects
//! (`crate::live::Registry`), so a stale handle answers [`NOT_LIVE`], never freed
//! memory. A refused record answers [`FAILED`] and changes nothing; the
//! Kotlin side then repeats the call on uniffi's typed path, which raises the
//! typed exception.
#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use retryplan as rp;
use retryplan::config::value::Named;
use retryplan::wire::{self, ActionKind, DecisionKind, EndingKind, InputKind, OutcomeKind};

use crate::driver::{Driver, DriverOptions, DRIVERS};
use crate::lock;
use crate::operation::{Operation, OperationOptions, OPERATIONS};
use crate::policy::POLICIES;

/// The output record was written.
pub const DONE: i32 = 0;
/// The core refused the record (bad word, attempt not running, ended): nothing changed.
pub const FAILED: i32 = 1;
/// The handle is not a live object of this library.
pub const NOT_LIVE: i32 = 2;
/// An array is null or not of its record's length.
pub const BAD_BUFFER: i32 = 3;
/// A panic was caught (the core is built to have none).
pub const PANICKED: i32 = 4;

/// One step of the core's wire on the live object `handle`: reads
/// `input_len` words at `input` (an input record) and writes the answer into
/// `out`: a driver's next action (`Driver::exchange`, `long[15]`), an
/// operation's decision (`Operation::exchange`, `long[19]`).
#[no_mangle]
pub extern "C" fn retryplan_kotlin_exchange(
    handle: u64,
    input: *const i64,
    input_len: i32,
    out: *mut i64,
    out_len: i32,
) -> i32 {
    let (Ok(input_len), Ok(out_len)) = (usize::try_from(input_len), usize::try_from(out_len)) else {
        return BAD_BUFFER;
    };
    if input.is_null() || out.is_null() {
        return BAD_BUFFER;
    }
    let run = || {
        // SAFETY: JNA's direct mapping passes each Java `long[]` as a pointer to
        // its elements (jlong is i64, suitably aligned), valid for the lengths
        // the Kotlin side passes (its arrays' sizes) and used by nothing else
        // until this call returns; the two arrays are distinct.
        let (words, out) =
            unsafe { (std::slice::from_raw_parts(input, input_len), std::slice::from_raw_parts_mut(out, out_len)) };
        let answer = match live(handle) {
            Some(Live::Driver(driver)) => out.try_into().map(|record| lock(&driver.0).exchange(words, record)),
            Some(Live::Operation(operation)) => out.try_into().map(|record| lock(&operation.0).exchange(words, record)),
            None => return NOT_LIVE,
        };
        let Ok(answer) = answer else { return BAD_BUFFER };
        answer.map_or(FAILED, |()| DONE)
    };
    // Unwinding into the JVM would abort the process: report a panic instead.
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(PANICKED)
}

/// A live engine object the wire steps, by its handle.
enum Live {
    Driver(Arc<Driver>),
    Operation(Arc<Operation>),
}

fn live(handle: u64) -> Option<Live> {
    DRIVERS.live(handle).map(Live::Driver).or_else(|| OPERATIONS.live(handle).map(Live::Operation))
}

/// `Operation(policy, now_ms, options)` (`driver` 0) or `Driver(...)` with
/// default driver options (`driver` 1; 2 recording events), without uniffi's
/// buffers: options of a seed (when `seeded`) and a deadline (-1 for none)
/// alone. The new object's handle, owned by the caller (`retryplan_kotlin_free`);
/// 0 when it was not made (a stale policy, a value the core refuses): the
/// Kotlin side then makes it on uniffi's path, which raises why.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_new(
    policy: u64,
    now_ms: i64,
    seed: i64,
    seeded: i32,
    deadline_ms: i64,
    driver: i32,
) -> u64 {
    let make = || {
        let policy = POLICIES.live(policy)?;
        let deadline_ms = (deadline_ms != wire::NONE).then_some(deadline_ms);
        let options =
            OperationOptions { seed: (seeded != 0).then_some(seed), deadline_ms, ..OperationOptions::default() };
        let handle = if driver == 0 {
            Arc::into_raw(Operation::new(policy, now_ms, options).ok()?).cast::<()>()
        } else {
            let driver_options = DriverOptions { record_events: driver == 2, ..DriverOptions::default() };
            Arc::into_raw(Driver::new(policy, now_ms, options, driver_options).ok()?).cast::<()>()
        };
        Some(handle as u64)
    };
    catch_unwind(make).ok().flatten().unwrap_or(0)
}

/// `retryplan::wire::WIRE_VERSION`, which the Kotlin side's generated `WireWords.VERSION` must equal.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_wire_version() -> i64 {
    wire::wire_version()
}

/// Another reference to the live driver or operation `handle` (for uniffi's typed object), or 0.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_clone(handle: u64) -> u64 {
    let run = || match live(handle) {
        Some(Live::Driver(driver)) => Arc::into_raw(driver) as u64,
        Some(Live::Operation(operation)) => Arc::into_raw(operation) as u64,
        None => 0,
    };
    catch_unwind(run).unwrap_or(0)
}

/// Drops the caller's reference to the live driver or operation `handle`
/// (one `retryplan_kotlin_new` or `retryplan_kotlin_clone` made): 0, or
/// `NOT_LIVE`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_free(handle: u64) -> i32 {
    fn free<T>(object: Arc<T>) -> i32 {
        // SAFETY: the caller owns one strong reference to this live object (its
        // handle is `Arc::into_raw` of it) and gives it up; `object` keeps it
        // alive until this returns.
        unsafe { Arc::decrement_strong_count(Arc::as_ptr(&object)) };
        DONE
    }
    let run = || match live(handle) {
        Some(Live::Driver(driver)) => free(driver),
        Some(Live::Operation(operation)) => free(operation),
        None => NOT_LIVE,
    };
    catch_unwind(run).unwrap_or(PANICKED)
}

/// Copies the live driver or operation `handle`'s idempotency key (ASCII, at most 255
/// bytes) into `out` (`byte[len]`): its length, or -1.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_key(handle: u64, out: *mut u8, len: i32) -> i32 {
    let Ok(len) = usize::try_from(len) else { return -1 };
    if out.is_null() {
        return -1;
    }
    let run = || {
        let key = match live(handle)? {
            Live::Driver(driver) => lock(&driver.0).idempotency_key().clone(),
            Live::Operation(operation) => lock(&operation.0).idempotency_key().clone(),
        };
        let key = key.as_str().as_bytes();
        // SAFETY: JNA's direct mapping passes the Java `byte[]` as a pointer to
        // its `len` elements, used by nothing else until this call returns.
        let out = unsafe { std::slice::from_raw_parts_mut(out, len) };
        out.get_mut(..key.len())?.copy_from_slice(key);
        i32::try_from(key.len()).ok()
    };
    catch_unwind(AssertUnwindSafe(run)).ok().flatten().unwrap_or(-1)
}

/// The core's tables of the wire encoding, for the host to build its
/// constants from at load (nothing of the encoding is written in Kotlin):
/// word positions by field name, kind numbers by kind name, and the
/// vocabulary tables as the binding's enums in wire order (a member's number
/// is its place in the list).
#[derive(Clone, Debug, uniffi::Record)]
pub struct WireTables {
    /// `retryplan::wire::WIRE_VERSION`: the host refuses to run on another.
    pub version: i64,
    /// The absent word (-1).
    pub none: i64,
    /// A gRPC pushback that says "do not retry" (`outcome_retry_after_ms`).
    pub pushback_do_not_retry: i64,
    /// `flags` bit of a hedge.
    pub flag_hedge: i64,
    /// `flags` bit: send the idempotency key.
    pub flag_send_idempotency_key: i64,
    /// `ending` bit: the ending returns the token's value.
    pub ending_returns: i64,
    /// The input record's fields, in word order.
    pub input_fields: Vec<String>,
    /// The output record's fields, in word order.
    pub output_fields: Vec<String>,
    /// The decision record's fields (an operation's answer), in word order.
    pub decision_fields: Vec<String>,
    /// `InputKind` names, in wire order.
    pub input_kinds: Vec<String>,
    /// `OutcomeKind` names, in wire order.
    pub outcome_kinds: Vec<String>,
    /// `ActionKind` names, in wire order.
    pub action_kinds: Vec<String>,
    /// `EndingKind` names, in wire order.
    pub ending_kinds: Vec<String>,
    /// `DecisionKind` names, in wire order.
    pub decision_kinds: Vec<String>,
    /// `outcome_code` of a `failure` outcome.
    pub failures: Vec<rp::Failure>,
    /// `outcome_code` of an `application` outcome.
    pub verdicts: Vec<rp::Verdict>,
    /// `outcome_code` of a `transport` outcome.
    pub transport_failures: Vec<rp::ground::codes::TransportFailure>,
    /// `outcome_code` of a `grpc_status` outcome.
    pub grpc_codes: Vec<rp::ground::codes::GrpcCode>,
    /// `reason` of an `abort_attempt`.
    pub abort_reasons: Vec<rp::AbortReason>,
    /// `reason` of a `gave_up` finish.
    pub give_up_reasons: Vec<rp::GiveUpReason>,
    /// `receipt`.
    pub receipts: Vec<rp::Receipt>,
    /// `held`.
    pub helds: Vec<rp::Held>,
}

/// The fields in word order (the core lists each with its word).
fn fields(table: &[(&str, usize)]) -> Vec<String> {
    let mut sorted = table.to_vec();
    sorted.sort_by_key(|(_, word)| *word);
    sorted.into_iter().map(|(name, _)| name.to_owned()).collect()
}

/// A kind table's names in wire order: the core's `Named` table, each
/// member's number on the wire being its place there.
fn kinds<K: Named>() -> Vec<String> {
    K::ALL.iter().map(|kind| kind.name().to_owned()).collect()
}

/// The core's tables of the wire encoding (see [`WireTables`]).
///
/// Deprecated: no binding reads it any more (Kotlin's constants are generated
/// from the core's tables by `core/mirrors`); it is removed in the next
/// release. The tables are fixed for a wire version: `core/src/driver/wire.md`.
/// Kotlin marks it `@Deprecated` (build.sh); uniffi gives Swift no deprecation
/// attribute, so this note in its doc comment is Swift's notice.
#[uniffi::export]
pub fn wire_tables() -> WireTables {
    WireTables {
        version: wire::wire_version(),
        none: wire::NONE,
        pushback_do_not_retry: wire::PUSHBACK_DO_NOT_RETRY,
        flag_hedge: wire::FLAG_HEDGE,
        flag_send_idempotency_key: wire::FLAG_SEND_IDEMPOTENCY_KEY,
        ending_returns: wire::ENDING_RETURNS,
        input_fields: fields(wire::input::FIELDS),
        output_fields: fields(wire::output::FIELDS),
        decision_fields: fields(wire::decision::FIELDS),
        input_kinds: kinds::<InputKind>(),
        outcome_kinds: kinds::<OutcomeKind>(),
        action_kinds: kinds::<ActionKind>(),
        ending_kinds: kinds::<EndingKind>(),
        decision_kinds: kinds::<DecisionKind>(),
        failures: rp::Failure::ALL.to_vec(),
        verdicts: <rp::Verdict as Named>::ALL.to_vec(),
        transport_failures: rp::ground::codes::TransportFailure::ALL.to_vec(),
        grpc_codes: rp::ground::codes::GrpcCode::ALL.to_vec(),
        abort_reasons: rp::AbortReason::ALL.to_vec(),
        give_up_reasons: rp::GiveUpReason::ALL.to_vec(),
        receipts: <rp::Receipt as Named>::ALL.to_vec(),
        helds: <rp::Held as Named>::ALL.to_vec(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[path = "tests/wire.rs"]
mod tests;
