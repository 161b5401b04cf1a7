//! The Kotlin hot path: `Operation.poll`, `onOutcome` and `cancel` as three C
//! functions with primitive arguments that write the decision into a `long[8]`
//! the caller passes (JNA direct mapping, `dev/retryplan/HotPath.kt`).
//!
//! uniffi's generated call costs tens of microseconds through JNA: a call-status
//! `Structure` per call, a handle clone through a second call, the decision in a
//! `RustBuffer` freed by a third (the request id as text), the outcome in a
//! buffer of its own. These skip all of it and convert exactly as the uniffi
//! methods do (the same `ms_in`/`u32_in`/`status_in` checks, the same core
//! calls), so the Kotlin answer is the same `Decision`; Swift keeps uniffi's
//! path, which costs nothing comparable there.
//!
//! No handle is dereferenced: an operation is found by its uniffi handle in a
//! table of live operations (weak references, filled by `Operation::new` and
//! emptied by its `Drop`), so a stale or invented handle finds nothing and
//! answers [`NOT_LIVE`], never freed memory. The only `unsafe` is the write into
//! the caller's array.
//!
//! Any error answers [`FAILED`] and changes nothing (the core's rule for every
//! error); the Kotlin side then repeats the call on uniffi's path, which raises
//! the typed exception.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, PoisonError, RwLock, Weak};

use retryplan as rp;
use retryplan::{GiveUpReason, GrpcCode, TransportFailure, Verdict};

use crate::decision::{Outcome, Pushback};
use crate::operation::Operation;
use crate::{clock_in, long_out, u32_in, Result};

/// The decision was written into the caller's array.
pub const DONE: i32 = 0;
/// The core refused the call (bad argument, attempt not running, ended): nothing changed.
pub const FAILED: i32 = 1;
/// The handle is not a live operation of this library.
pub const NOT_LIVE: i32 = 2;
/// The caller's array is not `long[WORDS]`.
pub const BAD_BUFFER: i32 = 3;
/// A panic was caught (the core is built to have none).
pub const PANICKED: i32 = 4;

/// Longs in a decision: `[kind, five fields, the attempts to abort as two 64-bit words]`.
pub const WORDS: usize = 8;

/// An absent optional value (every value written is >= 0).
pub(crate) const NONE: i64 = -1;

/// Live objects of one type by their uniffi handle (the address `Arc::into_raw`
/// gives, which is `Arc::as_ptr`). Weak, so the table never keeps one alive.
pub(crate) struct Registry<T>(RwLock<BTreeMap<usize, Weak<T>>>);

impl<T> Registry<T> {
    pub(crate) const fn new() -> Registry<T> {
        Registry(RwLock::new(BTreeMap::new()))
    }

    /// Records a new object; its constructor calls it before handing the `Arc` to uniffi.
    pub(crate) fn register(&self, object: &Arc<T>) {
        let key = Arc::as_ptr(object) as usize;
        self.0.write().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::downgrade(object));
    }

    /// Forgets an object being dropped (its address may be reused once it is freed).
    pub(crate) fn unregister(&self, object: &T) {
        let key = std::ptr::from_ref(object) as usize;
        self.0.write().unwrap_or_else(PoisonError::into_inner).remove(&key);
    }

    pub(crate) fn live(&self, handle: u64) -> Option<Arc<T>> {
        let key = usize::try_from(handle).ok()?;
        self.0.read().unwrap_or_else(PoisonError::into_inner).get(&key)?.upgrade()
    }
}

/// Live operations.
pub(crate) static OPERATIONS: Registry<Operation> = Registry::new();

/// Runs `decide` on the object `handle` of `registry` and writes the `N` words
/// it answers into `out`, which must be `long[N]`. `decide` answers a status
/// other than [`DONE`] when there is nothing to write.
pub(crate) fn answer_into<T, const N: usize>(
    registry: &Registry<T>,
    handle: u64,
    out: *mut i64,
    len: i32,
    decide: impl FnOnce(&T) -> std::result::Result<[i64; N], i32>,
) -> i32 {
    if out.is_null() || usize::try_from(len).ok() != Some(N) {
        return BAD_BUFFER;
    }
    let run = || {
        let Some(object) = registry.live(handle) else { return NOT_LIVE };
        let words = match decide(&object) {
            Ok(words) => words,
            Err(status) => return status,
        };
        // SAFETY: `out` is not null and points to `len == N` i64s: JNA's direct
        // mapping passes a Java `long[]` as a pointer to its elements (jlong is
        // i64, suitably aligned), valid and used by nothing else until this call
        // returns; the Kotlin side always passes a `LongArray` of its own.
        let out = unsafe { std::slice::from_raw_parts_mut(out, N) };
        out.copy_from_slice(&words);
        DONE
    };
    // Unwinding into the JVM would abort the process: report a panic instead.
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(PANICKED)
}

/// Runs `decide` on the operation `handle` and writes its decision into `out`.
fn answer(handle: u64, out: *mut i64, len: i32, decide: impl FnOnce(&Operation) -> Result<rp::Decision>) -> i32 {
    answer_into(&OPERATIONS, handle, out, len, |operation| decide(operation).map(|d| encode(&d)).map_err(|_| FAILED))
}

/// `Operation.poll(now_ms)`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_poll(handle: u64, now_ms: i64, out: *mut i64, len: i32) -> i32 {
    answer(handle, out, len, |operation| operation.decide_poll(clock_in("now_ms", now_ms)?))
}

/// `Operation.cancel(now_ms)`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_cancel(handle: u64, now_ms: i64, out: *mut i64, len: i32) -> i32 {
    answer(handle, out, len, |operation| operation.decide_cancel(clock_in("now_ms", now_ms)?))
}

/// `Operation.onOutcome(now_ms, attempt, outcome)`, the outcome as `kind`
/// (0 success, 1 HTTP status, 2 gRPC status, 3 transport, 4 application,
/// 5 cancelled), `code` (the status, or the Kotlin enum's ordinal), and the
/// guidance (`guidance` 0 none, 1 `guidance_ms` from now, 2 do not retry).
#[no_mangle]
#[allow(clippy::too_many_arguments)] // primitives on purpose: nothing to allocate or free
pub extern "C" fn retryplan_kotlin_on_outcome(
    handle: u64,
    now_ms: i64,
    attempt: i32,
    kind: i32,
    code: i32,
    guidance: i32,
    guidance_ms: i64,
    out: *mut i64,
    len: i32,
) -> i32 {
    answer(handle, out, len, |operation| {
        let outcome = outcome(kind, code, guidance, guidance_ms).ok_or_else(|| {
            crate::invalid("outcome", format!("no outcome has kind {kind}, code {code}, guidance {guidance}"))
        })?;
        operation.decide_outcome(clock_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, outcome.try_into()?)
    })
}

/// The outcome the Kotlin side encoded, as the uniffi type (converted to the
/// core's by the same `TryFrom` as uniffi's path); `None` for an encoding
/// Kotlin never sends.
pub(crate) fn outcome(kind: i32, code: i32, guidance: i32, guidance_ms: i64) -> Option<Outcome> {
    let index = usize::try_from(code).ok();
    Some(match kind {
        0 => Outcome::Success,
        // An HTTP status with a service error code (a string) takes uniffi's path instead.
        1 => Outcome::HttpStatus {
            status: code,
            retry_after_ms: match guidance {
                0 => None,
                1 => Some(guidance_ms),
                _ => return None,
            },
            error_code: None,
        },
        2 => Outcome::GrpcStatus {
            code: *GrpcCode::ALL.get(index?)?,
            pushback: match guidance {
                0 => None,
                1 => Some(Pushback::RetryAfterMs { ms: guidance_ms }),
                2 => Some(Pushback::DoNotRetry),
                _ => return None,
            },
        },
        3 => Outcome::Transport {
            failure: *TransportFailure::ALL.get(index?)?,
            retry_after_ms: match guidance {
                0 => None,
                1 => Some(guidance_ms),
                _ => return None,
            },
        },
        4 => Outcome::Application { verdict: *VERDICTS.get(index?)? },
        5 => Outcome::Cancelled,
        _ => return None,
    })
}

/// The verdicts in the order uniffi declares them (`lib.rs`): the Kotlin enum's
/// ordinals. (`GrpcCode::ALL` and `TransportFailure::ALL` are in that order too.)
pub(crate) const VERDICTS: [Verdict; 4] =
    [Verdict::Retryable, Verdict::NotRetryable, Verdict::Conflict, Verdict::Ambiguous];

/// The Kotlin enum's ordinal of a give-up reason (its order in `lib.rs`).
pub(crate) fn reason_index(reason: GiveUpReason) -> i64 {
    match reason {
        GiveUpReason::AttemptsExhausted => 0,
        GiveUpReason::DeadlineInsufficient => 1,
        GiveUpReason::RetryAfterExceedsBudget => 2,
        GiveUpReason::RetryAfterAboveCap => 3,
        GiveUpReason::ServerDeclinedRetry => 4,
        GiveUpReason::NotRetryable => 5,
        GiveUpReason::Cancelled => 6,
        GiveUpReason::BudgetExhausted => 7,
        GiveUpReason::CircuitOpen => 8,
        GiveUpReason::NoRetrySlot => 9,
        GiveUpReason::BodyNotReplayable => 10,
    }
}

fn opt(value: Option<u64>) -> i64 {
    value.map_or(NONE, long_out)
}

/// Attempts 1..=64 in the first word, 65..=128 in the second (bit `n - 1` for attempt `n`).
fn attempt_words(set: rp::AttemptSet) -> [i64; 2] {
    let mut words = [0u64; 2];
    for attempt in set.iter() {
        let bit = attempt.saturating_sub(1);
        if let Some(word) = words.get_mut((bit / 64) as usize) {
            *word |= 1 << (bit % 64);
        }
    }
    // Bit for bit: the Kotlin side reads them as unsigned words.
    words.map(|word| word as i64)
}

/// A decision as `[kind, fields..., abort words]`; the layout is read by `HotPath.kt`.
pub(crate) fn encode(decision: &rp::Decision) -> [i64; WORDS] {
    let count = |value: u32| i64::from(crate::count_out(value));
    let with_aborts = |head: [i64; 6], set: rp::AttemptSet| {
        let [low, high] = attempt_words(set);
        [head[0], head[1], head[2], head[3], head[4], head[5], low, high]
    };
    match *decision {
        rp::Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => [
            0,
            count(attempt),
            long_out(timeout_ms),
            long_out(abort_at_ms),
            // Bit for bit: the request id is 64 random bits, printed as 16 hex digits in Kotlin.
            request_id.0 as i64,
            long_out(remaining_budget_ms),
            i64::from(hedge),
            0,
        ],
        rp::Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms } => [
            1,
            count(retry),
            long_out(delay_ms),
            long_out(until_ms),
            opt(server_delay_ms),
            long_out(remaining_budget_ms),
            0,
            0,
        ],
        rp::Decision::AwaitOutcome { in_flight, until_ms } => [2, count(in_flight), long_out(until_ms), 0, 0, 0, 0, 0],
        rp::Decision::Succeeded { attempts, winner, abort_attempts } => {
            with_aborts([3, count(attempts), count(winner), 0, 0, 0], abort_attempts)
        }
        rp::Decision::GaveUp { reason, attempts, remaining_budget_ms, refused_delay_ms, abort_attempts } => {
            with_aborts(
                [4, reason_index(reason), count(attempts), long_out(remaining_budget_ms), opt(refused_delay_ms), 0],
                abort_attempts,
            )
        }
        rp::Decision::Reconcile { attempts, remaining_budget_ms, abort_attempts } => {
            with_aborts([5, count(attempts), long_out(remaining_budget_ms), 0, 0, 0], abort_attempts)
        }
        rp::Decision::Restart { attempts, deadline_ms, remaining_budget_ms, abort_attempts } => with_aborts(
            [6, count(attempts), long_out(deadline_ms), long_out(remaining_budget_ms), 0, 0],
            abort_attempts,
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::decision::Decision;
    use crate::operation::OperationOptions;
    use crate::policy::Policy;

    #[test]
    fn a_live_operation_answers_as_uniffi_does_until_it_is_dropped() {
        let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#.to_owned()).unwrap();
        let options = || OperationOptions { seed: Some(5), ..OperationOptions::default() };
        let operation = Operation::new(Arc::clone(&policy), 0, options()).unwrap();
        let twin = Operation::new(policy, 0, options()).unwrap();
        let handle = Arc::as_ptr(&operation) as u64;
        let mut out = [0i64; WORDS];
        assert_eq!(retryplan_kotlin_poll(handle, 10, out.as_mut_ptr(), WORDS as i32), DONE);
        let Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } =
            twin.poll(10).unwrap()
        else {
            panic!("the first poll starts an attempt")
        };
        let expected = [0, attempt.into(), timeout_ms, abort_at_ms, 0, remaining_budget_ms, i64::from(hedge), 0];
        assert_eq!([&out[..4], &out[5..]].concat(), [&expected[..4], &expected[5..]].concat());
        assert_eq!(format!("{:016x}", out[4]), request_id);
        // 503 then a retry: the same answers as the twin on uniffi's path.
        let fast = retryplan_kotlin_on_outcome(handle, 20, 1, 1, 503, 1, 1500, out.as_mut_ptr(), WORDS as i32);
        let slow = twin
            .on_outcome(20, 1, Outcome::HttpStatus { status: 503, retry_after_ms: Some(1500), error_code: None })
            .unwrap();
        assert_eq!(fast, DONE);
        let Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms } = slow else { panic!() };
        assert_eq!(out[..6], [1, retry.into(), delay_ms, until_ms, server_delay_ms.unwrap(), remaining_budget_ms]);
        // An error changes nothing and says so.
        assert_eq!(retryplan_kotlin_on_outcome(handle, 30, 1, 0, 0, 0, 0, out.as_mut_ptr(), WORDS as i32), FAILED);
        assert_eq!(retryplan_kotlin_poll(handle, -1, out.as_mut_ptr(), WORDS as i32), FAILED);
        assert_eq!(retryplan_kotlin_cancel(handle, 40, out.as_mut_ptr(), WORDS as i32), DONE);
        assert_eq!(out[..3], [4, reason_index(GiveUpReason::Cancelled), 1]);
        drop(operation);
        assert_eq!(retryplan_kotlin_poll(handle, 50, out.as_mut_ptr(), WORDS as i32), NOT_LIVE);
    }

    #[test]
    fn every_give_up_reason_has_its_uniffi_ordinal() {
        // uniffi writes an enum as its 1-based variant index: the Kotlin ordinal plus one.
        use crate::UniFfiTag;
        use uniffi::Lower;
        for reason in GiveUpReason::ALL {
            let mut buf = Vec::new();
            <GiveUpReason as Lower<UniFfiTag>>::write(reason, &mut buf);
            assert_eq!(buf, (reason_index(reason) as i32 + 1).to_be_bytes(), "{reason:?}");
        }
    }

    #[test]
    fn every_outcome_code_is_the_uniffi_ordinal() {
        use crate::UniFfiTag;
        use uniffi::Lower;
        let ordinal = |buf: Vec<u8>| i32::from_be_bytes(buf.try_into().unwrap()) - 1;
        for (index, code) in GrpcCode::ALL.into_iter().enumerate() {
            let mut buf = Vec::new();
            <GrpcCode as Lower<UniFfiTag>>::write(code, &mut buf);
            assert_eq!(ordinal(buf), index as i32);
        }
        for (index, failure) in TransportFailure::ALL.into_iter().enumerate() {
            let mut buf = Vec::new();
            <TransportFailure as Lower<UniFfiTag>>::write(failure, &mut buf);
            assert_eq!(ordinal(buf), index as i32);
        }
        for (index, verdict) in VERDICTS.into_iter().enumerate() {
            let mut buf = Vec::new();
            <Verdict as Lower<UniFfiTag>>::write(verdict, &mut buf);
            assert_eq!(ordinal(buf), index as i32);
        }
    }

    #[test]
    fn encodings_kotlin_never_sends_are_refused() {
        assert_eq!(outcome(9, 0, 0, 0), None);
        assert_eq!(outcome(2, 17, 0, 0), None);
        assert_eq!(outcome(2, -1, 0, 0), None);
        assert_eq!(outcome(1, 503, 7, 0), None);
        assert_eq!(
            outcome(1, 503, 1, 250),
            Some(Outcome::HttpStatus { status: 503, retry_after_ms: Some(250), error_code: None })
        );
    }

    #[test]
    fn abort_words_hold_attempts_one_to_one_hundred_twenty_eight() {
        let mut set = rp::AttemptSet::EMPTY;
        for attempt in [1, 64, 65, 128] {
            set.insert(attempt);
        }
        assert_eq!(attempt_words(set), [1 | i64::MIN, 1 | i64::MIN]);
        let decision = rp::Decision::Succeeded { attempts: 3, winner: 2, abort_attempts: set };
        assert_eq!(encode(&decision), [3, 3, 2, 0, 0, 0, 1 | i64::MIN, 1 | i64::MIN]);
        // The uniffi record lists the same attempts.
        let Decision::Succeeded { abort_attempts, .. } = Decision::from(decision) else { panic!() };
        assert_eq!(abort_attempts, vec![1, 64, 65, 128]);
    }

    #[test]
    fn a_handle_that_is_not_live_finds_nothing() {
        let mut out = [0i64; WORDS];
        assert_eq!(retryplan_kotlin_poll(8, 0, out.as_mut_ptr(), WORDS as i32), NOT_LIVE);
        assert_eq!(retryplan_kotlin_poll(8, 0, out.as_mut_ptr(), 3), BAD_BUFFER);
        assert_eq!(retryplan_kotlin_poll(8, 0, std::ptr::null_mut(), WORDS as i32), BAD_BUFFER);
    }
}
