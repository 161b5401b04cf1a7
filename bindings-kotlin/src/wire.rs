//! The driver's hot path for Kotlin: the core's one wire encoding
//! (`retryplan::wire`, `Driver::exchange`: 8 input words, 15 output words)
//! carried as two `long[]` through one C function bound by JNA's direct
//! mapping (`dev/retryplan/Wire.kt`), and the core's tables of that encoding
//! (`wire_tables`), from which the Kotlin side builds its constants once at
//! load. Nothing here encodes anything: the words are the core's.
//!
//! A driver is found by its uniffi handle in the table of live drivers
//! (`hot::Registry`), so a stale handle answers `NOT_LIVE`, never freed
//! memory. A refused record answers `FAILED` and changes nothing; the Kotlin
//! side then repeats it on uniffi's typed `Driver.exchange`, which raises the
//! typed exception.
#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use retryplan as rp;
use retryplan::value::Named;
use retryplan::wire::{self, ActionKind, EndingKind, InputKind, OutcomeKind};

use crate::driver::Driver;
use crate::hot::{Registry, BAD_BUFFER, DONE, FAILED, NOT_LIVE, PANICKED};
use crate::lock;

/// Live drivers.
pub(crate) static DRIVERS: Registry<Driver> = Registry::new();

/// `Driver::exchange` on the driver `handle`: reads `input_len` words at
/// `input`, writes the 15 output words into `out` (which must be `long[15]`).
#[no_mangle]
pub extern "C" fn retryplan_kotlin_driver_exchange(
    handle: u64,
    input: *const i64,
    input_len: i32,
    out: *mut i64,
    out_len: i32,
) -> i32 {
    let (Ok(input_len), true) = (usize::try_from(input_len), usize::try_from(out_len).ok() == Some(wire::OUTPUT_WORDS))
    else {
        return BAD_BUFFER;
    };
    if input.is_null() || out.is_null() {
        return BAD_BUFFER;
    }
    let run = || {
        let Some(driver) = DRIVERS.live(handle) else { return NOT_LIVE };
        // SAFETY: JNA's direct mapping passes each Java `long[]` as a pointer to
        // its elements (jlong is i64, suitably aligned), valid for the lengths
        // the Kotlin side passes (its arrays' sizes) and used by nothing else
        // until this call returns; the two arrays are distinct.
        let (words, record) =
            unsafe { (std::slice::from_raw_parts(input, input_len), &mut *out.cast::<[i64; wire::OUTPUT_WORDS]>()) };
        let answer = lock(&driver.0).exchange(words, record);
        answer.map_or(FAILED, |()| DONE)
    };
    // Unwinding into the JVM would abort the process: report a panic instead.
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(PANICKED)
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
    /// A gRPC pushback that says "do not retry" (`outcome_delay_ms`).
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
    /// `InputKind` names, in wire order.
    pub input_kinds: Vec<String>,
    /// `OutcomeKind` names, in wire order.
    pub outcome_kinds: Vec<String>,
    /// `ActionKind` names, in wire order.
    pub action_kinds: Vec<String>,
    /// `EndingKind` names, in wire order.
    pub ending_kinds: Vec<String>,
    /// `outcome_code` of a `failure` outcome.
    pub failures: Vec<rp::Failure>,
    /// `outcome_code` of an `application` outcome.
    pub verdicts: Vec<rp::Verdict>,
    /// `outcome_code` of a `transport` outcome.
    pub transport_failures: Vec<rp::TransportFailure>,
    /// `outcome_code` of a `grpc_status` outcome.
    pub grpc_codes: Vec<rp::GrpcCode>,
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
        input_kinds: kinds::<InputKind>(),
        outcome_kinds: kinds::<OutcomeKind>(),
        action_kinds: kinds::<ActionKind>(),
        ending_kinds: kinds::<EndingKind>(),
        failures: rp::Failure::ALL.to_vec(),
        verdicts: <rp::Verdict as Named>::ALL.to_vec(),
        transport_failures: rp::TransportFailure::ALL.to_vec(),
        grpc_codes: rp::GrpcCode::ALL.to_vec(),
        abort_reasons: rp::AbortReason::ALL.to_vec(),
        give_up_reasons: rp::GiveUpReason::ALL.to_vec(),
        receipts: <rp::Receipt as Named>::ALL.to_vec(),
        helds: <rp::Held as Named>::ALL.to_vec(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::driver::DriverOptions;
    use crate::operation::OperationOptions;
    use crate::policy::Policy;

    #[test]
    fn the_c_path_answers_as_the_core_until_the_driver_is_dropped() {
        let policy =
            Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#.to_owned())
                .unwrap();
        let options = OperationOptions { seed: Some(7), ..OperationOptions::default() };
        let driver = Driver::new(policy, 0, options, DriverOptions::default()).unwrap();
        let handle = Arc::as_ptr(&driver) as u64;
        let mut out = [0i64; wire::OUTPUT_WORDS];
        let len = wire::OUTPUT_WORDS as i32;
        let poll = [InputKind::Poll.word(), 0];
        assert_eq!(retryplan_kotlin_driver_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), DONE);
        assert_eq!(out[wire::output::ACTION_KIND], ActionKind::StartAttempt.word());
        assert_eq!(out[wire::output::ABORT_AT_MS], 300);
        // A refused record changes nothing and says so.
        let late = [InputKind::Result.word(), 10, 9, -1, -1, OutcomeKind::Success.word(), -1, -1];
        assert_eq!(retryplan_kotlin_driver_exchange(handle, late.as_ptr(), 8, out.as_mut_ptr(), len), FAILED);
        assert_eq!(retryplan_kotlin_driver_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), 3), BAD_BUFFER);
        drop(driver);
        assert_eq!(retryplan_kotlin_driver_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), NOT_LIVE);
    }

    #[test]
    fn the_tables_name_every_word() {
        let tables = wire_tables();
        assert_eq!(tables.version, wire::WIRE_VERSION);
        assert_eq!(tables.input_fields.len(), wire::INPUT_WORDS);
        assert_eq!(tables.output_fields.len(), wire::OUTPUT_WORDS);
        assert_eq!(tables.output_fields[wire::output::TOKEN], "token");
        assert_eq!(tables.action_kinds[ActionKind::Release.word() as usize], "release");
        assert_eq!(tables.ending_kinds[EndingKind::GaveUp.word() as usize], "gave_up");
    }
}
