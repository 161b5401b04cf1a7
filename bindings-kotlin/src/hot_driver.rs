//! The Kotlin hot path of `Driver` (see `hot.rs` for why and how): `poll_action`,
//! `handle_result` / `handle_failure`, `handle_cancel` and `poll_event` as C
//! functions with primitive arguments that write their answer into a `long[16]`
//! (`dev/retryplan/Driver.kt` reads it). Same conversions and core calls as
//! the uniffi methods, so the typed answers are the same.
//!
//! Layouts (`NONE` = -1 for an absent value):
//! - action: `[0, attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge, send_key]`,
//!   `[1, attempt, abort reason]`, `[2, until_ms]`, or
//!   `[3, the ending decision (8 words, as hot.rs encodes a decision), last attempt or NONE, its outcome (4 words)]`;
//! - event: `[1, at_ms, decision (8 words), after attempt or NONE, its outcome (4 words)]`, `[0]` for none;
//! - outcome: `[kind, code, guidance, guidance_ms]` as `retryplan_kotlin_on_outcome` takes it.
//!
//! An HTTP outcome carrying a service error code (a string) cannot be written:
//! the call answers [`TYPED`] and the Kotlin side takes uniffi's path (a
//! finish answers the same on every poll; an event is kept for the typed
//! `poll_event`).
// `#[no_mangle]` counts as unsafe code; these functions hold no `unsafe` block
// (the one write into the caller's array is `hot::answer_into`'s).
#![allow(unsafe_code)]

use retryplan as rp;
use retryplan::{AbortReason, Failure, GrpcCode, Receipt, TransportFailure};

use crate::driver::Driver;
use crate::hot::{
    answer_into, answer_status, encode, outcome, Registry, DONE, FAILED, NONE, VERDICTS, WORDS as DECISION_WORDS,
};
use crate::{clock_in, count_out, lock, long_out, u32_in};

/// Longs in an action or an event.
pub const WORDS: usize = 16;
/// The answer needs uniffi's typed path (nothing changed, or the event was kept for it).
pub const TYPED: i32 = 5;
/// `handle_result`: the result was discarded (`DONE` means accepted).
pub const DISCARDED: i32 = 6;
/// The outcome kind of a failure named in the vocabulary (its code is the `Failure` ordinal).
const FAILURE_KIND: i32 = 6;

/// Live drivers.
pub(crate) static DRIVERS: Registry<Driver> = Registry::new();

/// `Driver.pollAction(now_ms)`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_driver_poll(handle: u64, now_ms: i64, out: *mut i64, len: i32) -> i32 {
    answer_into(&DRIVERS, handle, out, len, |driver| {
        let now_ms = clock_in("now_ms", now_ms).map_err(|_| FAILED)?;
        action_words(&driver.action(now_ms)).ok_or(TYPED)
    })
}

/// `Driver.handleResult(now_ms, attempt, outcome)` with the outcome as
/// `retryplan_kotlin_on_outcome` takes it, or `Driver.handleFailure` with
/// `kind` 6 and the failure's ordinal as `code`: [`DONE`] for accepted,
/// [`DISCARDED`], or [`FAILED`] (nothing changed).
#[no_mangle]
pub extern "C" fn retryplan_kotlin_driver_result(
    handle: u64,
    now_ms: i64,
    attempt: i32,
    kind: i32,
    code: i32,
    guidance: i32,
    guidance_ms: i64,
) -> i32 {
    answer_status(&DRIVERS, handle, |driver| {
        let outcome = if kind == FAILURE_KIND {
            usize::try_from(code).ok().and_then(|index| Failure::ALL.get(index)).map(|failure| failure.outcome())
        } else {
            outcome(kind, code, guidance, guidance_ms).and_then(|outcome| rp::Outcome::try_from(outcome).ok())
        };
        let (Some(outcome), Ok(now_ms), Ok(attempt)) =
            (outcome, clock_in("now_ms", now_ms), u32_in("attempt", attempt))
        else {
            return FAILED;
        };
        match driver.result(now_ms, attempt, outcome) {
            Ok(Receipt::Accepted) => DONE,
            Ok(Receipt::Discarded) => DISCARDED,
            Err(_) => FAILED,
        }
    })
}

/// `Driver.handleCancel(now_ms)`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_driver_cancel(handle: u64, now_ms: i64) -> i32 {
    answer_status(&DRIVERS, handle, |driver| match clock_in("now_ms", now_ms) {
        Ok(now_ms) => {
            driver.cancel(now_ms);
            DONE
        }
        Err(_) => FAILED,
    })
}

/// `Driver.pollEvent()`.
#[no_mangle]
pub extern "C" fn retryplan_kotlin_driver_event(handle: u64, out: *mut i64, len: i32) -> i32 {
    answer_into(&DRIVERS, handle, out, len, |driver| {
        let mut state = lock(&driver.0);
        if state.stashed_event.is_some() {
            return Err(TYPED);
        }
        let Some(event) = state.driver.poll_event() else { return Ok([0; WORDS]) };
        event_words(&event).ok_or_else(|| {
            state.stashed_event = Some(event);
            TYPED
        })
    })
}

/// An outcome as `[kind, code, guidance, guidance_ms]`; `None` for an HTTP
/// outcome with a service error code.
fn outcome_words(outcome: &rp::Outcome) -> Option<[i64; 4]> {
    let index = |position: Option<usize>| position.and_then(|index| i64::try_from(index).ok());
    Some(match outcome {
        rp::Outcome::Success => [0, 0, 0, 0],
        rp::Outcome::HttpStatus { status, retry_after_ms, error_code: None } => match retry_after_ms {
            Some(ms) => [1, i64::from(*status), 1, long_out(*ms)],
            None => [1, i64::from(*status), 0, 0],
        },
        rp::Outcome::HttpStatus { error_code: Some(_), .. } => return None,
        rp::Outcome::GrpcStatus { code, pushback } => {
            let code = index(GrpcCode::ALL.iter().position(|known| known == code))?;
            match pushback {
                None => [2, code, 0, 0],
                Some(rp::Pushback::RetryAfterMs(ms)) => [2, code, 1, long_out(*ms)],
                Some(rp::Pushback::DoNotRetry) => [2, code, 2, 0],
            }
        }
        rp::Outcome::Transport { failure } => {
            [3, index(TransportFailure::ALL.iter().position(|known| known == failure))?, 0, 0]
        }
        rp::Outcome::Application { verdict } => [4, index(VERDICTS.iter().position(|known| known == verdict))?, 0, 0],
        rp::Outcome::Cancelled => [5, 0, 0, 0],
    })
}

/// An attempt result as `[attempt, outcome (4 words)]`, all `NONE`-led when absent.
fn result_words(result: Option<&rp::AttemptResult>) -> Option<[i64; 5]> {
    let Some(result) = result else { return Some([NONE, 0, 0, 0, 0]) };
    let [kind, code, guidance, guidance_ms] = outcome_words(&result.outcome)?;
    Some([i64::from(count_out(result.attempt)), kind, code, guidance, guidance_ms])
}

/// The Kotlin enum's ordinal of an abort reason (its order in `lib.rs`).
fn abort_index(reason: AbortReason) -> i64 {
    match reason {
        AbortReason::TimedOut => 0,
        AbortReason::LostRace => 1,
        AbortReason::Cancelled => 2,
        AbortReason::OperationEnded => 3,
    }
}

/// `head`, then `decision`'s words, then `result`'s, padded to [`WORDS`].
fn with_decision(head: &[i64], decision: &rp::Decision, result: Option<&rp::AttemptResult>) -> Option<[i64; WORDS]> {
    let mut words = [0; WORDS];
    let (decision, result) = (encode(decision), result_words(result)?);
    let parts = head.iter().chain(decision.iter()).chain(result.iter()).copied();
    for (word, value) in words.iter_mut().zip(parts) {
        *word = value;
    }
    Some(words)
}

fn action_words(action: &rp::Action) -> Option<[i64; WORDS]> {
    let mut words = [0; WORDS];
    let head: &[i64] = match *action {
        rp::Action::StartAttempt(plan) => &[
            0,
            i64::from(count_out(plan.attempt)),
            long_out(plan.timeout_ms),
            long_out(plan.abort_at_ms),
            // Bit for bit: the request id is 64 random bits, printed as 16 hex digits in Kotlin.
            plan.request_id.0 as i64,
            long_out(plan.remaining_budget_ms),
            i64::from(plan.hedge),
            i64::from(plan.send_idempotency_key),
        ],
        rp::Action::AbortAttempt { attempt, reason } => &[1, i64::from(count_out(attempt)), abort_index(reason)],
        rp::Action::Sleep { until_ms } => &[2, long_out(until_ms)],
        rp::Action::Release { token } => &[4, long_out(token)],
        rp::Action::Finish(ending) => return with_decision(&[3], &ending.decision, ending.last_result.as_ref()),
    };
    for (word, value) in words.iter_mut().zip(head) {
        *word = *value;
    }
    Some(words)
}

fn event_words(event: &rp::Event) -> Option<[i64; WORDS]> {
    with_decision(&[1, long_out(event.at_ms)], &event.decision, event.after.as_ref())
}

// The decision takes eight words in both layouts.
const _: () = assert!(DECISION_WORDS == 8 && 2 + DECISION_WORDS + 5 <= WORDS);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::driver::{Action, DriverOptions};
    use crate::hot::NOT_LIVE;
    use crate::operation::OperationOptions;
    use crate::policy::Policy;

    fn driver(json: &str) -> Arc<Driver> {
        let policy = Policy::from_json(json.to_owned()).unwrap();
        let options = OperationOptions { seed: Some(7), ..OperationOptions::default() };
        let driver_options = DriverOptions { record_events: true, ..DriverOptions::default() };
        Driver::new(policy, 0, options, driver_options).unwrap()
    }

    #[test]
    fn the_hot_path_answers_as_the_typed_one_until_the_driver_is_dropped() {
        let policy = r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#;
        let (hot, typed) = (driver(policy), driver(policy));
        let handle = Arc::as_ptr(&hot) as u64;
        let mut out = [0i64; WORDS];
        assert_eq!(retryplan_kotlin_driver_poll(handle, 0, out.as_mut_ptr(), WORDS as i32), DONE);
        let Action::StartAttempt { plan } = typed.poll_action(0).unwrap() else { panic!("a start") };
        assert_eq!(out[..4], [0, 1, plan.timeout_ms, plan.abort_at_ms]);
        assert_eq!(format!("{:016x}", out[4]), plan.request_id);
        // 503 at 120 ms: accepted, then a sleep, as on the typed path.
        assert_eq!(retryplan_kotlin_driver_result(handle, 120, 1, 1, 503, 0, 0), DONE);
        let unavailable = crate::decision::Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
        assert_eq!(typed.handle_result(120, 1, unavailable).unwrap(), Receipt::Accepted);
        assert_eq!(retryplan_kotlin_driver_poll(handle, 120, out.as_mut_ptr(), WORDS as i32), DONE);
        let Action::Sleep { until_ms } = typed.poll_action(120).unwrap() else { panic!("a sleep") };
        assert_eq!(out[..2], [2, until_ms]);
        // Events: the start, then the wait after the 503, with the result that led to it.
        assert_eq!(retryplan_kotlin_driver_event(handle, out.as_mut_ptr(), WORDS as i32), DONE);
        assert_eq!((out[0], out[2], out[10]), (1, 0, NONE));
        assert_eq!(retryplan_kotlin_driver_event(handle, out.as_mut_ptr(), WORDS as i32), DONE);
        assert_eq!((out[0], out[1], out[2], out[10..14].to_vec()), (1, 120, 1, vec![1, 1, 503, 0]));
        // A failure by its ordinal, an unknown one refused, a late result for a finished attempt refused.
        assert_eq!(retryplan_kotlin_driver_result(handle, 130, 1, FAILURE_KIND, 99, 0, 0), FAILED);
        assert_eq!(retryplan_kotlin_driver_result(handle, 130, 9, 0, 0, 0, 0), FAILED);
        assert_eq!(retryplan_kotlin_driver_cancel(handle, 140), DONE);
        assert_eq!(retryplan_kotlin_driver_poll(handle, 140, out.as_mut_ptr(), WORDS as i32), DONE);
        assert_eq!(out[..3], [3, 4, crate::hot::reason_index(rp::GiveUpReason::Cancelled)]);
        assert_eq!(out[9..14], [1, 1, 503, 0, 0]);
        drop(hot);
        assert_eq!(retryplan_kotlin_driver_poll(handle, 150, out.as_mut_ptr(), WORDS as i32), NOT_LIVE);
    }

    #[test]
    fn an_error_code_takes_the_typed_path_and_the_event_is_kept_for_it() {
        let hot = driver(r#"{"max_attempts": 1}"#);
        let handle = Arc::as_ptr(&hot) as u64;
        let mut out = [0i64; WORDS];
        assert_eq!(retryplan_kotlin_driver_poll(handle, 0, out.as_mut_ptr(), WORDS as i32), DONE);
        let slow_down = crate::decision::Outcome::HttpStatus {
            status: 503,
            retry_after_ms: None,
            error_code: Some("SlowDown".to_owned()),
        };
        assert_eq!(hot.handle_result(10, 1, slow_down).unwrap(), Receipt::Accepted);
        assert_eq!(retryplan_kotlin_driver_poll(handle, 10, out.as_mut_ptr(), WORDS as i32), TYPED);
        assert!(matches!(hot.poll_action(10).unwrap(), Action::Finish { .. }));
        assert_eq!(retryplan_kotlin_driver_event(handle, out.as_mut_ptr(), WORDS as i32), DONE); // the start
        assert_eq!(retryplan_kotlin_driver_event(handle, out.as_mut_ptr(), WORDS as i32), TYPED);
        let kept = hot.poll_event().unwrap();
        assert_eq!(kept.after.unwrap().attempt, 1);
        assert_eq!(retryplan_kotlin_driver_event(handle, out.as_mut_ptr(), WORDS as i32), DONE);
        assert_eq!(out[0], 0);
    }
}
