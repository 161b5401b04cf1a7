//! Deadline arithmetic shared by clients and servers: what remains, and whether
//! a request is still worth admitting.

use serde::{Deserialize, Serialize};

/// Time left at `now_ms` before `deadline_ms`, minus `reserve_ms`, saturating at 0.
///
/// This is the number to propagate downstream (e.g. with
/// [`encode_grpc_timeout`](crate::headers::grpc_timeout::encode_grpc_timeout)): a callee that gets
/// more than this would be working for a caller that has already given up.
///
/// ```
/// assert_eq!(retryplan::ground::deadline::remaining_ms(800, 500, 50), 250);
/// assert_eq!(retryplan::ground::deadline::remaining_ms(800, 900, 50), 0);
/// ```
#[must_use]
pub fn remaining_ms(deadline_ms: u64, now_ms: u64, reserve_ms: u64) -> u64 {
    deadline_ms.saturating_sub(now_ms).saturating_sub(reserve_ms)
}

/// The old name of [`remaining_ms`], kept for one release.
#[deprecated(
    note = "renamed `remaining_ms` (\"budget\" names the retry budget only); this alias is removed in the next release"
)]
#[must_use]
pub fn remaining_budget_ms(deadline_ms: u64, now_ms: u64, reserve_ms: u64) -> u64 {
    remaining_ms(deadline_ms, now_ms, reserve_ms)
}

/// A server's verdict on an incoming request with a propagated deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Admission {
    /// Enough time remains: do the work within `remaining_ms`.
    Admit {
        /// Time left for the work.
        remaining_ms: u64,
    },
    /// Too little time remains for the work to be useful: reject at once
    /// (it would only add load for a caller that is about to give up).
    Reject {
        /// Time left.
        remaining_ms: u64,
        /// The least time the work needs.
        minimum_useful_ms: u64,
    },
}

/// Server-side admission: reject when the remaining time (after the
/// reserve) is below the minimum useful time.
///
/// ```
/// use retryplan::ground::deadline::{admit, Admission};
/// assert_eq!(admit(1_000, 900, 0, 150), Admission::Reject { remaining_ms: 100, minimum_useful_ms: 150 });
/// assert_eq!(admit(1_000, 700, 0, 150), Admission::Admit { remaining_ms: 300 });
/// ```
#[must_use]
pub fn admit(deadline_ms: u64, now_ms: u64, reserve_ms: u64, minimum_useful_ms: u64) -> Admission {
    let remaining_ms = remaining_ms(deadline_ms, now_ms, reserve_ms);
    if remaining_ms == 0 || remaining_ms < minimum_useful_ms {
        Admission::Reject { remaining_ms, minimum_useful_ms }
    } else {
        Admission::Admit { remaining_ms }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[allow(deprecated)]
    fn the_old_name_is_the_same_function() {
        for (deadline, now, reserve) in [(800, 500, 50), (800, 900, 50), (u64::MAX, 0, 0)] {
            assert_eq!(super::remaining_budget_ms(deadline, now, reserve), super::remaining_ms(deadline, now, reserve));
        }
        assert_eq!(crate::ground::deadline::remaining_budget_ms(800, 500, 50), 250);
    }
}
