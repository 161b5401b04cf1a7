//! The telemetry vocabulary, decided once: which spans, span events and
//! metrics a driver's decisions produce, and under which names.
//!
//! Every helper that reports to OpenTelemetry (Python through
//! `opentelemetry-api`, JavaScript through `@opentelemetry/api`, Kotlin
//! through its observation hook) reads each recorded [`Event`] through
//! [`signals`] and only calls its platform's API with what comes out: the
//! names, units, descriptions and attribute keys are the tables below
//! ([`Metric::ALL`], [`Attribute::ALL`], [`GIVE_UP_EVENT`]), generated into
//! every language by `core/mirrors` (`telemetry.rs`), never written twice.
//!
//! # The mapping
//!
//! | the driver's event | signals, in this order |
//! |---|---|
//! | `StartAttempt { attempt, hedge }` | after the signals of its result, if it has one (a retry started at once: [`Metric::Retries`] + 1 unless a hedge), [`Signal::AttemptStarted`]: a span for the attempt (`retryplan.attempt`; on an HTTP client span `http.request.resend_count` = `attempt - 1` from the second attempt on, hedges included); [`Metric::Attempts`] + 1 with `retryplan.attempt.kind` = `first`, `retry` or `hedge` |
//! | any event with a result (`after`) | first, for a give-up, the [`Signal::GaveUp`] span event on that attempt's span; then [`Signal::AttemptEnded`]: its span ends with `http.response.status_code` (HTTP) and, when it failed, `error.type` ([`ErrorType`]) |
//! | `Wait` | [`Metric::Retries`] + 1 (a retry scheduled) |
//! | `AwaitOutcome` | nothing more |
//! | `GaveUp { reason }` | the [`GIVE_UP_EVENT`] span event (`retryplan.give_up.reason`, `retryplan.operation.attempts`) on the last attempt's span when a result led to it, else on the span the operation runs under; [`Metric::GiveUps`] + 1 by `retryplan.give_up.reason`; [`Metric::BudgetRefusals`] + 1 for `budget_exhausted`, [`Metric::BreakerRefusals`] + 1 for `circuit_open` |
//! | every ending | each attempt it aborts ends its span with `error.type` = `cancelled`; [`Metric::Operations`] + 1 by `retryplan.operation.ending` (`succeeded`, `gave_up`, `reconcile`, `restart`) |
//!
//! # Following the semantic conventions
//!
//! Where the OpenTelemetry semantic conventions speak, they are followed to
//! the letter: an HTTP helper makes one `CLIENT` span per attempt sent over
//! the wire (none encompassing them), named by its method, with
//! `http.request.resend_count` on every resent attempt (the ordinal of the
//! resend: attempt 2 carries 1), `http.response.status_code` when a response
//! arrived, and `error.type` when the attempt failed: the status code as a
//! string for a status of 400 and above, the fully qualified type of the
//! exception the attempt raised, or the core's low-cardinality identifier
//! ([`ErrorType`]). The span status is `Error` exactly when `error.type` is
//! set. Metric names are namespaced (`retryplan.`), pluralised because each
//! counts discrete instances with a curly-brace annotation unit
//! (`{attempt}`), never suffixed `_total`.
//!
//! Deliberate deviations and limits (each on the compatibility page,
//! [`crate::compatibility::telemetry`], with the whole mapping):
//! - a redirect the HTTP client follows is a new operation of the helper
//!   (its first attempt): its span has no `http.request.resend_count`,
//!   although the conventions count a redirect as a resend;
//! - a transport failure's `error.type` is its transport class
//!   (`not_sent`, `connection_lost`, `timed_out`), not the platform's
//!   exception type: the core keeps the class, not the exception;
//! - a hedge the budget or breaker refuses is not started and produces no
//!   decision: only a refusal that ends the operation is counted.

use alloc::vec::Vec;

use crate::ground::codes::TransportFailure;
use crate::outcomes::action::Event;
use crate::outcomes::classify::Outcome;
use crate::outcomes::decision::{Decision, GiveUpReason};

/// The instrumentation scope every helper reports under.
pub const SCOPE_NAME: &str = "retryplan";

/// The span event of a give-up (attributes [`Attribute::GiveUpReason`] and
/// [`Attribute::OperationAttempts`]).
pub const GIVE_UP_EVENT: &str = "retryplan.give_up";

/// What `error.type` says of an attempt the ending aborts (a hedge that lost,
/// or every running attempt when the caller cancels).
pub const ABORTED_ERROR_TYPE: &str = "cancelled";

/// The semantic conventions' fallback `error.type` (an application failure
/// that raised nothing: a value the helper's hook judged a failure).
pub const OTHER_ERROR_TYPE: &str = "_OTHER";

/// The HTTP methods the semantic conventions call known (RFC 9110's, RFC
/// 5789's `PATCH` and RFC 10008's `QUERY`): a span of another method is
/// named `HTTP` and its `http.request.method` is [`OTHER_METHOD`].
pub const KNOWN_HTTP_METHODS: [&str; 10] =
    ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"];

/// `http.request.method` of a method not in [`KNOWN_HTTP_METHODS`].
pub const OTHER_METHOD: &str = "_OTHER";

/// The span name of an HTTP attempt whose method is not known.
pub const OTHER_METHOD_SPAN_NAME: &str = "HTTP";

/// A kind of OpenTelemetry instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instrument {
    /// A monotonic sum, added to by 1 per occurrence.
    Counter,
}

impl crate::ground::named::Named for Instrument {
    const ALL: &'static [Self] = &[Instrument::Counter];
    fn name(self) -> &'static str {
        match self {
            Instrument::Counter => "counter",
        }
    }
}

/// Which spans an attribute belongs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carrier {
    /// Every attempt span (HTTP client spans and function helpers' spans).
    AttemptSpan,
    /// HTTP client attempt spans only (a semantic-conventions HTTP attribute).
    HttpSpan,
    /// The give-up span event.
    GiveUpEvent,
    /// Metric data points.
    Metric,
}

impl crate::ground::named::Named for Carrier {
    const ALL: &'static [Self] = &[Carrier::AttemptSpan, Carrier::HttpSpan, Carrier::GiveUpEvent, Carrier::Metric];
    fn name(self) -> &'static str {
        match self {
            Carrier::AttemptSpan => "attempt_span",
            Carrier::HttpSpan => "http_span",
            Carrier::GiveUpEvent => "give_up_event",
            Carrier::Metric => "metric",
        }
    }
}

/// An attribute key the helpers write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// `http.request.resend_count` (semantic conventions, stable): the
    /// ordinal of the resend, set from the second attempt on.
    HttpRequestResendCount,
    /// `http.response.status_code` (semantic conventions, stable).
    HttpResponseStatusCode,
    /// `error.type` (semantic conventions, stable): the class of error an
    /// attempt ended with.
    ErrorType,
    /// `retryplan.attempt`: the attempt's number, 1 for the first.
    Attempt,
    /// `retryplan.attempt.kind`: `first`, `retry` or `hedge`.
    AttemptKind,
    /// `retryplan.give_up.reason`: why the operation gave up.
    GiveUpReason,
    /// `retryplan.operation.attempts`: attempts the operation made.
    OperationAttempts,
    /// `retryplan.operation.ending`: how the operation ended.
    OperationEnding,
}

impl Attribute {
    /// Every key, in declaration order.
    pub const ALL: [Attribute; 8] = [
        Attribute::HttpRequestResendCount,
        Attribute::HttpResponseStatusCode,
        Attribute::ErrorType,
        Attribute::Attempt,
        Attribute::AttemptKind,
        Attribute::GiveUpReason,
        Attribute::OperationAttempts,
        Attribute::OperationEnding,
    ];

    /// The key as OpenTelemetry spells it.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Attribute::HttpRequestResendCount => "http.request.resend_count",
            Attribute::HttpResponseStatusCode => "http.response.status_code",
            Attribute::ErrorType => "error.type",
            Attribute::Attempt => "retryplan.attempt",
            Attribute::AttemptKind => "retryplan.attempt.kind",
            Attribute::GiveUpReason => "retryplan.give_up.reason",
            Attribute::OperationAttempts => "retryplan.operation.attempts",
            Attribute::OperationEnding => "retryplan.operation.ending",
        }
    }

    /// True when the semantic conventions define the key (and so its
    /// meaning): followed to the letter.
    #[must_use]
    pub fn is_semantic_convention(self) -> bool {
        matches!(self, Attribute::HttpRequestResendCount | Attribute::HttpResponseStatusCode | Attribute::ErrorType)
    }

    /// Where it is written.
    #[must_use]
    pub fn carriers(self) -> &'static [Carrier] {
        match self {
            Attribute::HttpRequestResendCount | Attribute::HttpResponseStatusCode => &[Carrier::HttpSpan],
            Attribute::ErrorType | Attribute::Attempt => &[Carrier::AttemptSpan],
            Attribute::AttemptKind | Attribute::OperationEnding => &[Carrier::Metric],
            Attribute::GiveUpReason => &[Carrier::GiveUpEvent, Carrier::Metric],
            Attribute::OperationAttempts => &[Carrier::GiveUpEvent],
        }
    }

    /// What it says, for documentation.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Attribute::HttpRequestResendCount => "The ordinal number of the resend: attempt n of a request carries n - 1, from the second attempt on.",
            Attribute::HttpResponseStatusCode => "The HTTP status of the attempt's response, when one arrived.",
            Attribute::ErrorType => "The class of error the attempt ended with: the status code (400 and above), the raised exception's type, or the core's identifier.",
            Attribute::Attempt => "The attempt's number, 1 for the first.",
            Attribute::AttemptKind => "Why the attempt started: first, retry or hedge.",
            Attribute::GiveUpReason => "Why the operation gave up (the core's GiveUpReason name).",
            Attribute::OperationAttempts => "How many attempts the operation made.",
            Attribute::OperationEnding => "How the operation ended: succeeded, gave_up, reconcile or restart.",
        }
    }
}

impl crate::ground::named::Named for Attribute {
    const ALL: &'static [Self] = &Attribute::ALL;
    fn name(self) -> &'static str {
        match self {
            Attribute::HttpRequestResendCount => "http_request_resend_count",
            Attribute::HttpResponseStatusCode => "http_response_status_code",
            Attribute::ErrorType => "error_type",
            Attribute::Attempt => "attempt",
            Attribute::AttemptKind => "attempt_kind",
            Attribute::GiveUpReason => "give_up_reason",
            Attribute::OperationAttempts => "operation_attempts",
            Attribute::OperationEnding => "operation_ending",
        }
    }
}

/// A metric the helpers record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Attempts started, by kind.
    Attempts,
    /// Retries scheduled (each wait before another attempt).
    Retries,
    /// Operations that gave up, by reason.
    GiveUps,
    /// Retries the dependency's retry budget refused (the operation gave up).
    BudgetRefusals,
    /// Attempts the dependency's circuit breaker refused (the operation gave up).
    BreakerRefusals,
    /// Operations ended, by how.
    Operations,
}

impl Metric {
    /// Every metric, in declaration order.
    pub const ALL: [Metric; 6] = [
        Metric::Attempts,
        Metric::Retries,
        Metric::GiveUps,
        Metric::BudgetRefusals,
        Metric::BreakerRefusals,
        Metric::Operations,
    ];

    /// The instrument's name.
    #[must_use]
    pub fn otel_name(self) -> &'static str {
        match self {
            Metric::Attempts => "retryplan.attempts",
            Metric::Retries => "retryplan.retries",
            Metric::GiveUps => "retryplan.give_ups",
            Metric::BudgetRefusals => "retryplan.budget.refusals",
            Metric::BreakerRefusals => "retryplan.breaker.refusals",
            Metric::Operations => "retryplan.operations",
        }
    }

    /// The instrument's kind.
    #[must_use]
    pub fn instrument(self) -> Instrument {
        Instrument::Counter
    }

    /// The unit (UCUM; a curly-brace annotation for a count of things).
    #[must_use]
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Attempts => "{attempt}",
            Metric::Retries => "{retry}",
            Metric::GiveUps | Metric::Operations => "{operation}",
            Metric::BudgetRefusals | Metric::BreakerRefusals => "{refusal}",
        }
    }

    /// The instrument's description.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Metric::Attempts => "Attempts started, by kind (first, retry, hedge).",
            Metric::Retries => "Retries scheduled: each wait before another attempt.",
            Metric::GiveUps => "Operations that gave up, by reason.",
            Metric::BudgetRefusals => "Retries the dependency's retry budget refused.",
            Metric::BreakerRefusals => "Attempts the dependency's open circuit breaker refused.",
            Metric::Operations => "Operations ended, by how they ended.",
        }
    }

    /// The attribute its data points carry, if any.
    #[must_use]
    pub fn attribute(self) -> Option<Attribute> {
        match self {
            Metric::Attempts => Some(Attribute::AttemptKind),
            Metric::GiveUps => Some(Attribute::GiveUpReason),
            Metric::Operations => Some(Attribute::OperationEnding),
            Metric::Retries | Metric::BudgetRefusals | Metric::BreakerRefusals => None,
        }
    }
}

impl crate::ground::named::Named for Metric {
    const ALL: &'static [Self] = &Metric::ALL;
    fn name(self) -> &'static str {
        match self {
            Metric::Attempts => "attempts",
            Metric::Retries => "retries",
            Metric::GiveUps => "give_ups",
            Metric::BudgetRefusals => "budget_refusals",
            Metric::BreakerRefusals => "breaker_refusals",
            Metric::Operations => "operations",
        }
    }
}

/// What `error.type` says of an attempt that ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// A response with a status of 400 and above: the status as a string.
    Status(u16),
    /// The core's low-cardinality identifier.
    Named(&'static str),
    /// The application's failure: the fully qualified type of what the
    /// attempt raised, or [`OTHER_ERROR_TYPE`] when it raised nothing (a
    /// value the helper's hook judged a failure).
    Raised,
}

impl ErrorType {
    /// What `error.type` says of an attempt that ended with `outcome`
    /// (`None`: it did not fail).
    #[must_use]
    pub fn of(outcome: &Outcome) -> Option<ErrorType> {
        match *outcome {
            Outcome::Success => None,
            Outcome::HttpStatus { status, .. } => (status >= 400).then_some(ErrorType::Status(status)),
            Outcome::GrpcStatus { code, .. } => {
                (code != crate::ground::codes::GrpcCode::Ok).then_some(ErrorType::Named(code.name()))
            }
            Outcome::Transport { failure, .. } => Some(ErrorType::Named(match failure {
                TransportFailure::NotSent => "not_sent",
                TransportFailure::ConnectionLost => "connection_lost",
                TransportFailure::TimedOut => "timed_out",
            })),
            Outcome::Application { .. } => Some(ErrorType::Raised),
            Outcome::Cancelled => Some(ErrorType::Named(ABORTED_ERROR_TYPE)),
        }
    }
}

/// Why an attempt started, as `retryplan.attempt.kind` says it.
#[must_use]
pub fn attempt_kind(attempt: u32, hedge: bool) -> &'static str {
    match (attempt, hedge) {
        (1, _) => "first",
        (_, true) => "hedge",
        (_, false) => "retry",
    }
}

/// One thing a helper reports for an event, in the order [`signals`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Start the attempt's span (`retryplan.attempt`; on an HTTP client span
    /// `http.request.resend_count` when `resend_count` is set).
    AttemptStarted {
        /// The attempt's number.
        attempt: u32,
        /// `attempt - 1` from the second attempt on, else `None`.
        resend_count: Option<u32>,
        /// True for a hedge.
        hedge: bool,
    },
    /// End the attempt's span.
    AttemptEnded {
        /// The attempt's number.
        attempt: u32,
        /// The response's status, when a response arrived.
        status_code: Option<u16>,
        /// `error.type`, when it failed (the span status is then `Error`).
        error_type: Option<ErrorType>,
    },
    /// Add the [`GIVE_UP_EVENT`] span event.
    GaveUp {
        /// The attempt whose span carries it (its result led to the give-up);
        /// `None`: the span the operation runs under.
        on_attempt: Option<u32>,
        /// Why.
        reason: GiveUpReason,
        /// Attempts made.
        attempts: u32,
    },
    /// Add 1 to a counter, with the metric's attribute set to `value`.
    Count {
        /// The counter.
        metric: Metric,
        /// The value of [`Metric::attribute`], when it has one.
        value: Option<&'static str>,
    },
}

impl Signal {
    /// Which of the four signals this is.
    #[must_use]
    pub fn kind(self) -> SignalKind {
        match self {
            Signal::AttemptStarted { .. } => SignalKind::AttemptStarted,
            Signal::AttemptEnded { .. } => SignalKind::AttemptEnded,
            Signal::GaveUp { .. } => SignalKind::GaveUp,
            Signal::Count { .. } => SignalKind::Count,
        }
    }
}

/// Which [`Signal`] a binding hands its host: the tag its host's reporter
/// (Python's `otel.py`, JS's `otel.js`) reads first, by the names generated
/// into every language by `core/mirrors` (`telemetry.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignalKind {
    /// [`Signal::AttemptStarted`]: start the attempt's span.
    AttemptStarted,
    /// [`Signal::AttemptEnded`]: end the attempt's span.
    AttemptEnded,
    /// [`Signal::GaveUp`]: add the give-up span event.
    GaveUp,
    /// [`Signal::Count`]: add 1 to a counter.
    Count,
}

impl crate::ground::named::Named for SignalKind {
    const ALL: &'static [Self] =
        &[SignalKind::AttemptStarted, SignalKind::AttemptEnded, SignalKind::GaveUp, SignalKind::Count];
    fn name(self) -> &'static str {
        match self {
            SignalKind::AttemptStarted => "attempt_started",
            SignalKind::AttemptEnded => "attempt_ended",
            SignalKind::GaveUp => "gave_up",
            SignalKind::Count => "count",
        }
    }
}

/// The ending's name as `retryplan.operation.ending` says it.
fn ending_name(decision: &Decision) -> Option<&'static str> {
    decision.is_final().then(|| decision.kind())
}

/// The signals one recorded [`Event`] produces, in the order to report them
/// (the mapping: the [module documentation](self), and the compatibility
/// page `telemetry.md`).
#[must_use]
pub fn signals(event: &Event) -> Vec<Signal> {
    let mut out = Vec::new();
    let decision = &event.decision;
    if let Decision::GaveUp { reason, attempts, .. } = *decision {
        out.push(Signal::GaveUp { on_attempt: event.after.map(|after| after.attempt), reason, attempts });
    }
    if let Some(after) = event.after {
        let status_code = match after.outcome {
            Outcome::HttpStatus { status, .. } => Some(status),
            _ => None,
        };
        out.push(Signal::AttemptEnded {
            attempt: after.attempt,
            status_code,
            error_type: ErrorType::of(&after.outcome),
        });
    }
    if let Decision::StartAttempt { attempt, hedge, .. } = *decision {
        if event.after.is_some() && !hedge {
            // A retry started at once after the result (its wait had passed, or
            // `immediate_first_retry`): scheduled without a `Wait` of its own.
            out.push(Signal::Count { metric: Metric::Retries, value: None });
        }
        let resend_count = attempt.checked_sub(1).filter(|resends| *resends > 0);
        out.push(Signal::AttemptStarted { attempt, resend_count, hedge });
        out.push(Signal::Count { metric: Metric::Attempts, value: Some(attempt_kind(attempt, hedge)) });
        return out;
    }
    let aborted = match decision {
        Decision::Succeeded { abort_attempts, .. }
        | Decision::GaveUp { abort_attempts, .. }
        | Decision::Reconcile { abort_attempts, .. }
        | Decision::Restart { abort_attempts, .. } => *abort_attempts,
        _ => crate::outcomes::decision::AttemptSet::EMPTY,
    };
    for attempt in aborted.iter() {
        let error_type = Some(ErrorType::Named(ABORTED_ERROR_TYPE));
        out.push(Signal::AttemptEnded { attempt, status_code: None, error_type });
    }
    match *decision {
        Decision::Wait { .. } => out.push(Signal::Count { metric: Metric::Retries, value: None }),
        Decision::GaveUp { reason, .. } => {
            out.push(Signal::Count { metric: Metric::GiveUps, value: Some(reason.name()) });
            let refusal = match reason {
                GiveUpReason::BudgetExhausted => Some(Metric::BudgetRefusals),
                GiveUpReason::CircuitOpen => Some(Metric::BreakerRefusals),
                _ => None,
            };
            out.extend(refusal.map(|metric| Signal::Count { metric, value: None }));
        }
        _ => {}
    }
    if let Some(ending) = ending_name(decision) {
        out.push(Signal::Count { metric: Metric::Operations, value: Some(ending) });
    }
    out
}

#[cfg(test)]
mod tests;
