//! Server guidance (HTTP Retry-After and the other guidance headers, gRPC
//! pushback, a transport failure's `retry_after_ms`): a floor for the next delay (or, in modes `a6` and `replace`,
//! the delay itself), bounded by the policy's `server_guidance` section.
//!
//! In order: a per-status rule (`server_guidance.statuses`) replaces
//! `honor`, `cap_ms` and `above_cap` for its HTTP status. When `honor` is
//! false the guidance is ignored. A pushback that says "do not retry" refuses
//! the retry. A requested wait above `cap_ms` is clamped to the cap or
//! refuses the retry, as `above_cap` says. Whatever remains is a floor: the
//! jittered delay is raised to it, never drawn below it; with
//! `max_above_backoff_ms` it raises the delay at most that far above the
//! drawn backoff `t` (`clamp(guidance, t, t + max_above_backoff_ms)`), for
//! every status, after the cap (guidance the cap refuses is never rescued by
//! the bound). The bound needs mode `floor`: under `a6` and `replace` the
//! guidance is the wait and no backoff is drawn, so the policy refuses it.

use crate::headers::retry_after::Pushback;
use crate::outcomes::classify::Outcome;
use crate::policy::{AboveCap, ServerGuidance};

/// What the retry after in an outcome (the wait the server asked for, or
/// its pushback) means under a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryAfterWait {
    /// No guidance (or the policy ignores it).
    None,
    /// Wait at least this long.
    AtLeastMs(u64),
    /// The server said not to retry.
    DoNotRetry,
    /// The server asked for more than the cap, and the policy gives up there.
    AboveCap {
        /// What the server asked for.
        requested_ms: u64,
    },
}

impl ServerGuidance {
    /// Applies the policy's guidance rules to what the server said in `outcome`.
    pub(crate) fn apply(&self, outcome: &Outcome) -> RetryAfterWait {
        let (honor, cap_ms, above_cap) = match *outcome {
            Outcome::HttpStatus { status, .. } => self
                .statuses
                .get(status)
                .map_or((self.honor, self.cap_ms, self.above_cap), |rule| (rule.honor, rule.cap_ms, rule.above_cap)),
            _ => (self.honor, self.cap_ms, self.above_cap),
        };
        if !honor {
            return RetryAfterWait::None;
        }
        let requested_ms = match *outcome {
            Outcome::HttpStatus { retry_after_ms: Some(ms), .. }
            | Outcome::Transport { retry_after_ms: Some(ms), .. }
            | Outcome::GrpcStatus { pushback: Some(Pushback::RetryAfterMs(ms)), .. } => ms,
            Outcome::GrpcStatus { pushback: Some(Pushback::DoNotRetry), .. } => return RetryAfterWait::DoNotRetry,
            _ => return RetryAfterWait::None,
        };
        match above_cap {
            _ if requested_ms <= cap_ms => RetryAfterWait::AtLeastMs(requested_ms),
            AboveCap::Clamp => RetryAfterWait::AtLeastMs(cap_ms),
            AboveCap::GiveUp => RetryAfterWait::AboveCap { requested_ms },
        }
    }

    /// The honored guidance bounded above by the drawn backoff plus
    /// `max_above_backoff_ms`, when the policy sets it.
    pub(crate) fn bound_above_backoff(&self, server_ms: u64, backoff_ms: u64) -> u64 {
        match self.max_above_backoff_ms {
            Some(above_ms) => server_ms.min(backoff_ms.saturating_add(above_ms)),
            None => server_ms,
        }
    }
}
