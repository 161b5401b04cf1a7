//! [`DecisionKind`]: which [`Decision`] a decision is, and its one list of
//! names. [`Decision::kind`] spells it, the reader of a decision a host hands
//! back ([`Decision::from_value`]) reads `type` by it, and the wire numbers a
//! decision record's kind by its place in [`DecisionKind::ALL`]
//! (`retryplan::wire::DecisionKind` is this type).

use crate::ground::named::Named;
use crate::outcomes::decision::Decision;

/// Which [`Decision`] a decision is (its `type` in JSON, its kind word on the
/// wire).
///
/// ```
/// use retryplan::wire::DecisionKind;
/// use retryplan::Decision;
///
/// let wait = Decision::Wait { retry: 0, delay_ms: 100, until_ms: 100, retry_after_ms: None, remaining_ms: 900 };
/// assert_eq!(DecisionKind::of(&wait), DecisionKind::Wait);
/// assert_eq!((wait.kind(), DecisionKind::Wait.word()), ("wait", 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionKind {
    /// [`Decision::StartAttempt`].
    StartAttempt,
    /// [`Decision::Wait`].
    Wait,
    /// [`Decision::AwaitOutcome`].
    AwaitOutcome,
    /// [`Decision::Succeeded`].
    Succeeded,
    /// [`Decision::GaveUp`].
    GaveUp,
    /// [`Decision::Reconcile`].
    Reconcile,
    /// [`Decision::Restart`].
    Restart,
}

impl Named for DecisionKind {
    const ALL: &'static [Self] = &[
        DecisionKind::StartAttempt,
        DecisionKind::Wait,
        DecisionKind::AwaitOutcome,
        DecisionKind::Succeeded,
        DecisionKind::GaveUp,
        DecisionKind::Reconcile,
        DecisionKind::Restart,
    ];

    fn name(self) -> &'static str {
        match self {
            DecisionKind::StartAttempt => "start_attempt",
            DecisionKind::Wait => "wait",
            DecisionKind::AwaitOutcome => "await_outcome",
            DecisionKind::Succeeded => "succeeded",
            DecisionKind::GaveUp => "gave_up",
            DecisionKind::Reconcile => "reconcile",
            DecisionKind::Restart => "restart",
        }
    }
}

impl DecisionKind {
    /// The kind of `decision`.
    #[must_use]
    pub fn of(decision: &Decision) -> DecisionKind {
        match decision {
            Decision::StartAttempt { .. } => DecisionKind::StartAttempt,
            Decision::Wait { .. } => DecisionKind::Wait,
            Decision::AwaitOutcome { .. } => DecisionKind::AwaitOutcome,
            Decision::Succeeded { .. } => DecisionKind::Succeeded,
            Decision::GaveUp { .. } => DecisionKind::GaveUp,
            Decision::Reconcile { .. } => DecisionKind::Reconcile,
            Decision::Restart { .. } => DecisionKind::Restart,
        }
    }

    /// Its number on the wire (its place in `ALL`).
    #[must_use]
    pub fn word(self) -> i64 {
        self as i64
    }
}

impl Decision {
    /// The snake_case name of the decision's kind, as in JSON's `type`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        DecisionKind::of(self).name()
    }
}
