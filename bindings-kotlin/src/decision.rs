//! Outcomes in, decisions out: mirrors of the core types with `i64` milliseconds.

use retryplan as rp;
use retryplan::{GiveUpReason, GrpcCode, TransportFailure, Verdict};

use crate::{count_out, invalid, long_out, ms_in, opt_ms_in, status_in, u32_in, Result, RetryplanError};

/// The `grpc-retry-pushback-ms` trailer, read by `parseGrpcPushback`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Pushback {
    /// Retry no sooner than this many milliseconds from now.
    RetryAfterMs { ms: i64 },
    /// The server asks not to retry.
    DoNotRetry,
}

impl From<rp::Pushback> for Pushback {
    fn from(pushback: rp::Pushback) -> Self {
        match pushback {
            rp::Pushback::RetryAfterMs(ms) => Pushback::RetryAfterMs { ms: long_out(ms) },
            rp::Pushback::DoNotRetry => Pushback::DoNotRetry,
        }
    }
}

/// What the caller saw when an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Outcome {
    /// The attempt succeeded.
    Success,
    /// An HTTP response arrived; `retry_after_ms` is Retry-After already in ms from now.
    HttpStatus {
        status: i32,
        #[uniffi(default)]
        retry_after_ms: Option<i64>,
        /// The service's error code (AWS: "SlowDown"), 1 to 64 visible ASCII characters.
        #[uniffi(default)]
        error_code: Option<String>,
    },
    /// A gRPC status arrived, with the pushback trailer if any.
    GrpcStatus {
        code: GrpcCode,
        #[uniffi(default)]
        pushback: Option<Pushback>,
    },
    /// The transport failed; `retry_after_ms` is a wait the server asked for
    /// with the failure (applied as a Retry-After is).
    Transport {
        failure: TransportFailure,
        #[uniffi(default)]
        retry_after_ms: Option<i64>,
    },
    /// The application judged the result itself.
    Application { verdict: Verdict },
    /// The caller abandoned the attempt and the operation.
    Cancelled,
}

impl TryFrom<Outcome> for rp::Outcome {
    type Error = RetryplanError;
    fn try_from(outcome: Outcome) -> Result<Self> {
        Ok(match outcome {
            Outcome::Success => rp::Outcome::Success,
            Outcome::HttpStatus { status, retry_after_ms, error_code } => rp::Outcome::HttpStatus {
                status: status_in("status", status)?,
                retry_after_ms: opt_ms_in("retry_after_ms", retry_after_ms)?,
                error_code: error_code.map(|code| rp::aws::ErrorCode::new(&code)).transpose()?,
            },
            Outcome::GrpcStatus { code, pushback } => rp::Outcome::GrpcStatus {
                code,
                pushback: match pushback {
                    None => None,
                    Some(Pushback::DoNotRetry) => Some(rp::Pushback::DoNotRetry),
                    Some(Pushback::RetryAfterMs { ms }) => Some(rp::Pushback::RetryAfterMs(ms_in("pushback", ms)?)),
                },
            },
            Outcome::Transport { failure, retry_after_ms } => {
                rp::Outcome::Transport { failure, retry_after_ms: opt_ms_in("retry_after_ms", retry_after_ms)? }
            }
            Outcome::Application { verdict } => rp::Outcome::Application { verdict },
            Outcome::Cancelled => rp::Outcome::Cancelled,
        })
    }
}

impl From<rp::Outcome> for Outcome {
    fn from(outcome: rp::Outcome) -> Self {
        match outcome {
            rp::Outcome::Success => Outcome::Success,
            rp::Outcome::HttpStatus { status, retry_after_ms, error_code } => Outcome::HttpStatus {
                status: status.into(),
                retry_after_ms: retry_after_ms.map(long_out),
                error_code: error_code.map(|code| code.as_str().to_owned()),
            },
            rp::Outcome::GrpcStatus { code, pushback } => {
                Outcome::GrpcStatus { code, pushback: pushback.map(Pushback::from) }
            }
            rp::Outcome::Transport { failure, retry_after_ms } => {
                Outcome::Transport { failure, retry_after_ms: retry_after_ms.map(long_out) }
            }
            rp::Outcome::Application { verdict } => Outcome::Application { verdict },
            rp::Outcome::Cancelled => Outcome::Cancelled,
        }
    }
}

/// An HTTP response as an outcome, its guidance headers read the one way every
/// binding reads them (the core's `Outcome::from_http`): `retry_after` and
/// `retry_after_ms` are the raw header values, if present; `now_unix_ms` is
/// the wall clock, for the date form of Retry-After.
#[uniffi::export]
pub fn outcome_from_http(
    status: i32,
    retry_after: Option<String>,
    retry_after_ms: Option<String>,
    now_unix_ms: i64,
) -> Result<Outcome> {
    let status = status_in("status", status)?;
    let now_unix_ms = ms_in("now_unix_ms", now_unix_ms)?;
    Ok(rp::Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now_unix_ms).into())
}

/// An HTTP response as an outcome: `status` and the response's headers
/// (names in any case; a repeated header's lines joined by ", "), read the
/// core's one way: the first guidance header that asks for a wait wins
/// (retry-after-ms, x-ms-retry-after-ms, x-amz-retry-after, Retry-After read
/// as `reading` says, RateLimit with RateLimit-Policy, RateLimit-Reset,
/// X-RateLimit-Reset). A status outside
/// 100..=599 is a lost connection (the server's fault).
#[uniffi::export]
pub fn outcome_from_http_response(
    status: i32,
    headers: std::collections::HashMap<String, String>,
    now_unix_ms: i64,
    reading: rp::RetryAfterReading,
) -> Result<Outcome> {
    let status = u16::try_from(status)
        .map_err(|_| crate::invalid("status", format!("must be a whole number in 0..=65535, got {status}")))?;
    let now_unix_ms = ms_in("now_unix_ms", now_unix_ms)?;
    let lookup =
        |name: &str| headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str());
    Ok(rp::Outcome::from_http_response_with(status, lookup, now_unix_ms, reading).into())
}

/// What the caller must do now. All times are absolute ms on the caller's clock.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Decision {
    /// Start attempt `attempt` now (a hedge beside a running one when `hedge`);
    /// abort it at `abort_at_ms`; then report its outcome.
    StartAttempt {
        attempt: i32,
        timeout_ms: i64,
        abort_at_ms: i64,
        request_id: String,
        remaining_budget_ms: i64,
        hedge: bool,
    },
    /// Sleep until `until_ms` (cancellably), then poll.
    Wait { retry: i32, delay_ms: i64, until_ms: i64, server_delay_ms: Option<i64>, remaining_budget_ms: i64 },
    /// An attempt is running: report its outcome; poll again at `until_ms` at the latest.
    AwaitOutcome { in_flight: i32, until_ms: i64 },
    /// Ended: attempt `winner` succeeded. Abort the attempts in `abort_attempts`.
    Succeeded { attempts: i32, winner: i32, abort_attempts: Vec<i32> },
    /// Ended: the operation gave up; `reason` says why. Abort `abort_attempts`.
    GaveUp {
        reason: GiveUpReason,
        attempts: i32,
        remaining_budget_ms: i64,
        refused_delay_ms: Option<i64>,
        abort_attempts: Vec<i32>,
    },
    /// Ended: an unsafe write may have happened; look it up by the idempotency key, never repeat it.
    Reconcile { attempts: i32, remaining_budget_ms: i64, abort_attempts: Vec<i32> },
    /// Ended: a conflict; re-read, recompute, start a new operation with `deadline_ms` as its deadline.
    Restart { attempts: i32, deadline_ms: i64, remaining_budget_ms: i64, abort_attempts: Vec<i32> },
}

/// The whole message of the typed ending a helper throws for `decision`, the
/// core's (`Decision::ending_message_after`), the same in every language:
/// `operation` names the operation as its helper knows it (the block's name,
/// an HTTP request's method and URL), `idempotency_key` is its key, and
/// `last_outcome` is how the last attempt the core took into account ended:
/// when it is the verdict every helper gives an error nothing classified
/// (`unknownErrorVerdict()`), the core adds its hint naming `outcomeOfError`
/// (`unknownErrorHint()`). Null for a decision that is not a typed ending
/// (`GaveUp`, `Reconcile`, `Restart`).
#[uniffi::export(default(last_outcome = None))]
pub fn ending_message(
    decision: Decision,
    operation: String,
    idempotency_key: String,
    last_outcome: Option<Outcome>,
) -> Result<Option<String>> {
    let decision = rp::Decision::try_from(decision)?;
    let last_outcome = last_outcome.map(rp::Outcome::try_from).transpose()?;
    let message = decision.ending_message_after(last_outcome, &operation, &idempotency_key, ERROR_HOOK);
    Ok(message.map(|message| message.to_string()))
}

/// How the helpers' parameter that classifies errors is named (`retrying`'s,
/// the HTTP helpers'): what the core's hint after an unknown error names.
pub(crate) const ERROR_HOOK: &str = "outcomeOfError";

/// Attempt numbers out, ascending.
pub(crate) fn attempts_out(set: rp::AttemptSet) -> Vec<i32> {
    set.iter().map(count_out).collect()
}

fn attempts_in(attempts: Vec<i32>) -> Result<rp::AttemptSet> {
    let mut set = rp::AttemptSet::EMPTY;
    for attempt in attempts {
        match u32::try_from(attempt) {
            Ok(number @ 1..=128) => set.insert(number),
            _ => return Err(invalid("abort_attempts", format!("attempt numbers are 1..=128, got {attempt}"))),
        }
    }
    Ok(set)
}

impl From<rp::Decision> for Decision {
    fn from(decision: rp::Decision) -> Self {
        match decision {
            rp::Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => {
                Decision::StartAttempt {
                    attempt: count_out(attempt),
                    timeout_ms: long_out(timeout_ms),
                    abort_at_ms: long_out(abort_at_ms),
                    request_id: request_id.to_string(),
                    remaining_budget_ms: long_out(remaining_budget_ms),
                    hedge,
                }
            }
            rp::Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms } => Decision::Wait {
                retry: count_out(retry),
                delay_ms: long_out(delay_ms),
                until_ms: long_out(until_ms),
                server_delay_ms: server_delay_ms.map(long_out),
                remaining_budget_ms: long_out(remaining_budget_ms),
            },
            rp::Decision::AwaitOutcome { in_flight, until_ms } => {
                Decision::AwaitOutcome { in_flight: count_out(in_flight), until_ms: long_out(until_ms) }
            }
            rp::Decision::Succeeded { attempts, winner, abort_attempts } => Decision::Succeeded {
                attempts: count_out(attempts),
                winner: count_out(winner),
                abort_attempts: attempts_out(abort_attempts),
            },
            rp::Decision::GaveUp { reason, attempts, remaining_budget_ms, refused_delay_ms, abort_attempts } => {
                Decision::GaveUp {
                    reason,
                    attempts: count_out(attempts),
                    remaining_budget_ms: long_out(remaining_budget_ms),
                    refused_delay_ms: refused_delay_ms.map(long_out),
                    abort_attempts: attempts_out(abort_attempts),
                }
            }
            rp::Decision::Reconcile { attempts, remaining_budget_ms, abort_attempts } => Decision::Reconcile {
                attempts: count_out(attempts),
                remaining_budget_ms: long_out(remaining_budget_ms),
                abort_attempts: attempts_out(abort_attempts),
            },
            rp::Decision::Restart { attempts, deadline_ms, remaining_budget_ms, abort_attempts } => Decision::Restart {
                attempts: count_out(attempts),
                deadline_ms: long_out(deadline_ms),
                remaining_budget_ms: long_out(remaining_budget_ms),
                abort_attempts: attempts_out(abort_attempts),
            },
        }
    }
}

impl TryFrom<Decision> for rp::Decision {
    type Error = RetryplanError;
    fn try_from(decision: Decision) -> Result<Self> {
        let count = |value| u32_in("attempts", value);
        Ok(match decision {
            Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => {
                let id = u64::from_str_radix(&request_id, 16)
                    .ok()
                    .filter(|_| request_id.len() == 16)
                    .ok_or_else(|| invalid("request_id", format!("must be 16 hex digits, got {request_id:?}")))?;
                rp::Decision::StartAttempt {
                    attempt: count(attempt)?,
                    timeout_ms: ms_in("timeout_ms", timeout_ms)?,
                    abort_at_ms: ms_in("abort_at_ms", abort_at_ms)?,
                    request_id: rp::RequestId(id),
                    remaining_budget_ms: ms_in("remaining_budget_ms", remaining_budget_ms)?,
                    hedge,
                }
            }
            Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms } => rp::Decision::Wait {
                retry: count(retry)?,
                delay_ms: ms_in("delay_ms", delay_ms)?,
                until_ms: ms_in("until_ms", until_ms)?,
                server_delay_ms: opt_ms_in("server_delay_ms", server_delay_ms)?,
                remaining_budget_ms: ms_in("remaining_budget_ms", remaining_budget_ms)?,
            },
            Decision::AwaitOutcome { in_flight, until_ms } => {
                rp::Decision::AwaitOutcome { in_flight: count(in_flight)?, until_ms: ms_in("until_ms", until_ms)? }
            }
            Decision::Succeeded { attempts, winner, abort_attempts } => rp::Decision::Succeeded {
                attempts: count(attempts)?,
                winner: count(winner)?,
                abort_attempts: attempts_in(abort_attempts)?,
            },
            Decision::GaveUp { reason, attempts, remaining_budget_ms, refused_delay_ms, abort_attempts } => {
                rp::Decision::GaveUp {
                    reason,
                    attempts: count(attempts)?,
                    remaining_budget_ms: ms_in("remaining_budget_ms", remaining_budget_ms)?,
                    refused_delay_ms: opt_ms_in("refused_delay_ms", refused_delay_ms)?,
                    abort_attempts: attempts_in(abort_attempts)?,
                }
            }
            Decision::Reconcile { attempts, remaining_budget_ms, abort_attempts } => rp::Decision::Reconcile {
                attempts: count(attempts)?,
                remaining_budget_ms: ms_in("remaining_budget_ms", remaining_budget_ms)?,
                abort_attempts: attempts_in(abort_attempts)?,
            },
            Decision::Restart { attempts, deadline_ms, remaining_budget_ms, abort_attempts } => rp::Decision::Restart {
                attempts: count(attempts)?,
                deadline_ms: ms_in("deadline_ms", deadline_ms)?,
                remaining_budget_ms: ms_in("remaining_budget_ms", remaining_budget_ms)?,
                abort_attempts: attempts_in(abort_attempts)?,
            },
        })
    }
}
