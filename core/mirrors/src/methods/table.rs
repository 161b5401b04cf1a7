//! The definition itself: the shared controls ([`CONTROLS`]) and the
//! families [`ENGINE`], [`DRIVER`] and [`POLICY`], each class with its
//! constructors, methods, kinds and docs.

use super::{constructor, getter, method, Arg, Class, Fact, Family, Method, Ret, Shape, Through};

const CHARGE: Arg = Arg::Grant { name: "charge", class: "RetryCharge", optional: true };
const POLICY_INSTANCE: Arg = Arg::Instance { name: "policy", class: "Policy" };
const PERMIT: Arg = Arg::Grant { name: "permit", class: "BreakerPermit", optional: false };

/// The doc of `compile_dependency`, the free function both bindings export beside the controls.
pub const COMPILE_DEPENDENCY: &str = "A dependency's configuration, validated, as its compiled form: what \
     `Dependency.from_compiled` (in any language) builds the controls from.";

/// The shared controls, in the order each binding writes them.
pub const CONTROLS: [Class; 7] = [
    Class {
        name: "Dependency",
        sources: &["core/src/controls/dependency.rs"],
        doc: "The shared controls of one downstream dependency (retry budget, circuit breaker, retry slots): \
              pass it to every operation that calls that dependency, from any thread.",
        shape: Shape::Bundle,
        config: Some("Dependency"),
        constructors: &[
            constructor(
                "new",
                "Validates the configuration: every rule it breaks is reported at once, once each of its values \
                 could be read (a value of the wrong type or sign stops the reading there, naming it).",
                &[Arg::Config],
            ),
            constructor("from_json", "Reads and validates the configuration from JSON text.", &[Arg::Json]),
            constructor(
                "from_compiled",
                "New controls (full budget, closed breaker) from a compiled form (`compile_dependency`, \
                 `retryplan compile --dependency`, or any language's).",
                &[Arg::Compiled],
            ),
        ],
        methods: &[
            method(
                "snapshot",
                "The state of every control at `now`.",
                &[Arg::Now],
                Ret::Snapshot("DependencySnapshot"),
            ),
            getter(
                "budget",
                "The retry budget, or none: the one every operation naming this dependency shares.",
                Ret::Control("RetryBudget"),
            ),
            getter("breaker", "The circuit breaker, or none.", Ret::Control("CircuitBreaker")),
            getter("retry_slots", "The retry slots, or none.", Ret::Control("RetrySlots")),
        ],
    },
    Class {
        name: "RetryCharge",
        sources: &["core/src/controls/budget/mod.rs"],
        doc: "What a granted retry cost; hand it back once, with the retry's success (refunded) or failure \
              (spent). Only `try_retry` makes one; a second use is refused.",
        shape: Shape::Grant {
            core: "RetryCharge",
            fact: Some(Fact {
                name: "cost",
                doc: "Units charged (quota model; 0 for the others).",
                call: "cost",
                ty: "u32",
            }),
        },
        config: None,
        constructors: &[],
        methods: &[],
    },
    Class {
        name: "RetryBudget",
        sources: &["core/src/controls/budget/mod.rs"],
        doc: "A retry budget (token bucket, ratio or quota) shared by many operations and threads, on its own \
              or a dependency's.",
        shape: Shape::Control { core: "RetryBudget", field: "budget" },
        config: Some("Budget"),
        constructors: &[constructor("new", "Validates the configuration.", &[Arg::Config])],
        methods: &[
            method("on_request", "Counts an original request (a first attempt) made at `now`.", &[Arg::Now], Ret::Unit),
            method(
                "try_retry",
                "Asks to dispatch a retry (or hedge) now: a charge when granted, none when refused.",
                &[Arg::Now, Arg::Flag("after_timeout")],
                Ret::Grant("RetryCharge"),
            ),
            method(
                "on_success",
                "An attempt succeeded (with the charge of the retry that made it, if any: refunded).",
                &[Arg::Now, CHARGE],
                Ret::UnitOrError,
            ),
            method(
                "on_failure",
                "An attempt failed (with the charge of the retry that made it, if any: it stays spent).",
                &[Arg::Now, CHARGE],
                Ret::UnitOrError,
            ),
            method(
                "spend",
                "Settles a charge whose retry ended with neither a success nor a retryable failure (cancelled, \
                 aborted): its cost stays spent.",
                &[Arg::Grant { name: "charge", class: "RetryCharge", optional: false }],
                Ret::UnitOrError,
            ),
            getter("charges_outstanding", "Charges granted and not yet settled.", Ret::Outstanding),
            method(
                "acquire",
                "Takes `amount` units from a quota, as the AWS SDKs' raw `acquire` (for a host that mirrors \
                 botocore's own bookkeeping; a retry loop uses `try_retry` and its charge): true when taken, \
                 false when fewer are left (nothing is taken).",
                &[Arg::Count("amount")],
                Ret::BoolOrError,
            ),
            method(
                "release",
                "Gives `amount` units back to a quota, never above its capacity (the AWS SDKs' raw `release`).",
                &[Arg::Count("amount")],
                Ret::UnitOrError,
            ),
            method("snapshot", "The budget's state at `now`.", &[Arg::Now], Ret::Snapshot("BudgetSnapshot")),
        ],
    },
    Class {
        name: "BreakerPermit",
        sources: &["core/src/controls/breaker/mod.rs"],
        doc: "Admission granted by a circuit breaker's `try_acquire`; hand it back once, with the result or as \
              a release (a second use is refused).",
        shape: Shape::Grant {
            core: "BreakerPermit",
            fact: Some(Fact {
                name: "probe",
                doc: "True when this admission is a half-open probe.",
                call: "is_probe",
                ty: "bool",
            }),
        },
        config: None,
        constructors: &[],
        methods: &[],
    },
    Class {
        name: "CircuitBreaker",
        sources: &["core/src/controls/breaker/mod.rs"],
        doc: "A circuit breaker (consecutive failures or failure ratio) shared by many operations and threads, \
              on its own or a dependency's.",
        shape: Shape::Control { core: "CircuitBreaker", field: "breaker" },
        config: Some("Breaker"),
        constructors: &[constructor("new", "Validates the configuration.", &[Arg::Config])],
        methods: &[
            method(
                "try_acquire",
                "Asks to send an attempt at `now`: a permit, or none while the breaker refuses.",
                &[Arg::Now],
                Ret::Grant("BreakerPermit"),
            ),
            method("on_success", "The attempt admitted by `permit` succeeded.", &[Arg::Now, PERMIT], Ret::UnitOrError),
            method("on_failure", "The attempt admitted by `permit` failed.", &[Arg::Now, PERMIT], Ret::UnitOrError),
            method(
                "release",
                "The attempt admitted by `permit` ended without a result that counts (never sent, cancelled).",
                &[PERMIT],
                Ret::UnitOrError,
            ),
            getter("permits_outstanding", "Permits granted and not yet settled.", Ret::Outstanding),
            method("snapshot", "The breaker's state at `now`.", &[Arg::Now], Ret::Snapshot("BreakerSnapshot")),
        ],
    },
    Class {
        name: "RetrySlot",
        sources: &["core/src/controls/retry_slots.rs"],
        doc: "One slot of a `RetrySlots`; give it back once, with `release`, to the slots that granted it (a \
              second use is refused). Only `try_acquire` makes one.",
        shape: Shape::Grant { core: "RetrySlot", fact: None },
        config: None,
        constructors: &[],
        methods: &[],
    },
    Class {
        name: "RetrySlots",
        sources: &["core/src/controls/retry_slots.rs"],
        doc: "Retry slots: how many retries and hedges may run at once, on their own or a dependency's.",
        shape: Shape::Control { core: "RetrySlots", field: "retry_slots" },
        config: None,
        constructors: &[constructor(
            "new",
            "`capacity` slots (0 refuses every retry and hedge).",
            &[Arg::Count("capacity")],
        )],
        methods: &[
            method("try_acquire", "Takes a slot; none when all are taken.", &[], Ret::Grant("RetrySlot")),
            method(
                "release",
                "Gives a slot back (once, to the slots that granted it).",
                &[Arg::Grant { name: "slot", class: "RetrySlot", optional: false }],
                Ret::UnitOrError,
            ),
            getter("in_use", "Slots in use now.", Ret::Count),
            getter("capacity", "How many slots there are.", Ret::Count),
        ],
    },
];

/// The engine's classes a host steps itself: `Operation`, one decision per event.
pub const ENGINE: Family = Family {
    python: true,
    kotlin: true,
    js: true,
    classes: &[Class {
        name: "Operation",
        sources: &["core/src/engine/operation/mod.rs"],
        doc: "The state machine of one logical operation: events in, one Decision out per call. Raises only on \
              misuse (an event after the end, an outcome for an attempt that is not running, a value that cannot \
              be represented).",
        shape: Shape::Engine { core: "Operation", boxed: false },
        config: None,
        constructors: &[constructor(
            "new",
            "Starts an operation of `policy` at `now`; without a seed, seed and key are drawn from the OS.",
            &[POLICY_INSTANCE, Arg::Now, Arg::Options],
        )],
        methods: &[
            method(
                "poll",
                "The current decision: start an attempt, keep waiting, or await the running attempt.",
                &[Arg::Now],
                Ret::DecisionOrError,
            ),
            method(
                "on_outcome",
                "Reports how attempt `attempt` ended (for an HTTP response, `Outcome::from_http`) and returns the \
                 next decision.",
                &[Arg::Now, Arg::Count("attempt"), Arg::Instance { name: "outcome", class: "Outcome" }],
                Ret::DecisionOrError,
            ),
            method(
                "cancel",
                "The caller abandons the operation: it gives up (`cancelled`), listing the running attempts to abort.",
                &[Arg::Now],
                Ret::DecisionOrError,
            ),
            method(
                "next_wakeup_ms",
                "When to poll next, in ms on the caller's clock, or none once ended.",
                &[],
                Ret::OptionalMs,
            ),
            method(
                "remaining_ms",
                "Time left at `now` before the deadline, after the response reserve, in ms (saturating at 0).",
                &[Arg::Now],
                Ret::Ms,
            ),
            Method {
                call: Some("remaining_ms"),
                deprecated: true,
                ..method(
                    "remaining_budget_ms",
                    "Deprecated alias of `remaining_ms` for one release (\"budget\" names the retry budget only).",
                    &[Arg::Now],
                    Ret::Ms,
                )
            },
            method(
                "request_id",
                "The request id attempt `attempt` (1-based) gets (16 lowercase hex digits).",
                &[Arg::Count("attempt")],
                Ret::Text("RequestId"),
            ),
            getter(
                "idempotency_key",
                "The stable idempotency key of every attempt (the operation id).",
                Ret::Text("IdempotencyKey"),
            ),
            getter("deadline_ms", "The deadline in ms: min(start + total_timeout_ms, the caller's deadline).", Ret::Ms),
            getter("started_at_ms", "When the operation started, in ms.", Ret::Ms),
            getter("attempts_started", "Attempts started so far.", Ret::Count),
            getter("running_attempts", "The attempts running now (hedging can run several), ascending.", Ret::Attempts),
            getter("is_ended", "True once an ending was returned.", Ret::Bool),
            getter("policy", "The policy this operation runs.", Ret::Object("Policy")),
        ],
    }],
};

/// The operation a driver lends (`Driver::operation`), whose facts it shows.
const OPERATION_OF_DRIVER: Option<Through> =
    Some(Through::Lent { accessor: "operation", core: "Operation", source: "core/src/engine/operation/mod.rs" });

/// The driver's class a host loop steps: results in, one action out per poll.
pub const DRIVER: Family = Family {
    python: true,
    kotlin: true,
    js: true,
    classes: &[Class {
        name: "Driver",
        sources: &["core/src/driver/mod.rs", "core/src/driver/propagation.rs", "core/src/driver/wire/mod.rs"],
        doc: "The host loop of one operation: results in, one action out per poll. Every helper is an adapter \
              from its runtime to this loop: start each `AttemptPlan`, abort each `AbortAttempt`, sleep until each \
              `Sleep` (waking for results), and return or raise at the `Ending`. Raises only on misuse.",
        shape: Shape::Engine { core: "Driver", boxed: true },
        config: None,
        constructors: &[constructor(
            "new",
            "Starts the operation of `policy` at `now`, run as the driver's options say; without a seed, seed \
             and key are drawn from the OS. A policy that hedges is refused (`Error::Unsupported`, field \
             `hedging`) when the attempts run one at a time (`Concurrency::Sequential`).",
            &[POLICY_INSTANCE, Arg::Now, Arg::Options, Arg::Hosting],
        )],
        methods: &[
            method(
                "poll_action",
                "What to do now: an `AttemptPlan` to start, an `AbortAttempt`, a `Sleep` or the `Ending`.",
                &[Arg::Now],
                Ret::ActionOrError,
            ),
            Method {
                call: Some("handle_result_with_token"),
                through: Some(Through::Binding("hand_in")),
                ..method(
                    "handle_result",
                    "Hands in how attempt `attempt` ended: `Receipt::Accepted`, or `Receipt::Discarded` (dispose of \
                     what it carried). With a `token` (the host's handle to what it holds, `held` `Held::Value` \
                     (default) or `Held::Error`) the driver says later what becomes of it: a `Release` action, or \
                     the `Ending::result`.",
                    &[
                        Arg::Now,
                        Arg::Count("attempt"),
                        Arg::Value { name: "outcome", class: "Outcome" },
                        Arg::HeldToken,
                    ],
                    Ret::ReceiptOrError,
                )
            },
            Method {
                through: Some(Through::Binding("hand_in_response")),
                call: Some("handle_response_after_redirects"),
                ..method(
                    "handle_response",
                    "Hands in the HTTP response attempt `attempt` received, read by the core: `status` exactly as \
                     the platform gave it (any number; outside 100..=599, or an interim 1xx but 101, the core \
                     reads it as `Failure::MalformedResponse`), its `headers`, Retry-After read as the policy says against the \
                     wall clock `now_unix`. Held as a value under `token` when one is given. `redirected`: the \
                     client followed at least one redirect inside the attempt to get it (its retryable failure is \
                     then ambiguous: an earlier hop may have processed the request). `Receipt::Accepted` or \
                     `Receipt::Discarded`.",
                    &[
                        Arg::Now,
                        Arg::Count("attempt"),
                        Arg::Response,
                        Arg::NowUnix,
                        Arg::Token,
                        Arg::Flag("redirected"),
                    ],
                    Ret::ReceiptOrError,
                )
            },
            method(
                "exchange",
                "One wire exchange (the core's wire encoding, `crate::driver::wire`): an input record (poll, result \
                 or cancel) in, the output record (the receipt and the next action) out. A record that breaks the \
                 encoding's rules is refused with `Error::InvalidArgument` naming the word; nothing changes then.",
                &[Arg::Words],
                Ret::Record,
            ),
            method(
                "outgoing_headers",
                "The request headers of running attempt `attempt` sent at `now` to a next hop speaking `protocol`: \
                 the attempt's remaining time, its number, the key, whether a layer above retries. The core \
                 computes them; `Error::AttemptNotRunning` when `attempt` is not running.",
                &[Arg::Count("attempt"), Arg::Now, Arg::Protocol],
                Ret::HeadersOrError,
            ),
            method(
                "answer_headers",
                "The headers of the answer this layer gives its own caller once the operation has ended, for \
                 `protocol`: \"do not retry\" after overload or an exhausted budget, else none (and none before \
                 the end).",
                &[Arg::Protocol],
                Ret::Headers,
            ),
            method(
                "handle_cancel",
                "The caller abandons the operation: it gives up (`cancelled`), running attempts are aborted.",
                &[Arg::Now],
                Ret::Steps,
            ),
            method(
                "handle_timer_end",
                "The timer the host armed for the last `Sleep` ran out (it was not woken early), the clock at `now`; \
                 the host polls next. A clock that did not move through the wait is refused (`Error::InvalidArgument` \
                 naming `clock`): the wait would never end by it.",
                &[Arg::Now],
                Ret::StepsOrError,
            ),
            method(
                "poll_event",
                "The oldest recorded `Event` not yet read (only with `DriverOptions::record_events`), or none.",
                &[],
                Ret::Event,
            ),
            getter(
                "idempotency_key",
                "The operation's idempotency key (the same on every attempt).",
                Ret::Text("IdempotencyKey"),
            ),
            Method {
                through: OPERATION_OF_DRIVER,
                ..getter(
                    "deadline_ms",
                    "The deadline in ms: min(start + total_timeout_ms, the caller's deadline).",
                    Ret::Ms,
                )
            },
            Method {
                through: OPERATION_OF_DRIVER,
                ..getter("attempts_started", "Attempts started so far.", Ret::Count)
            },
            Method {
                through: OPERATION_OF_DRIVER,
                ..getter("running_attempts", "The attempts running now, ascending.", Ret::Attempts)
            },
            getter("is_ended", "True once the operation has ended.", Ret::Bool),
        ],
    }],
};

/// A function of the core the policy's methods call, given the policy.
const fn of_policy(path: &'static str, source: &'static str) -> Option<Through> {
    Some(Through::Function { path, source })
}

/// A validated policy's methods whose logic is the core's: what a policy sends,
/// its forms, and what it computes (classification, ceilings, redelivery, the
/// worst-case timeline). Kotlin's writer writes them, and JS's those calling
/// a core function (its tools entry: `methods_js_tools`, which names what JS
/// keeps by hand); each binding keeps its constructors (its own readers of a
/// configuration: records, dicts, files, JS objects) and the methods that only
/// convert to its own record types by hand, and Python keeps the whole class
/// by hand for now.
pub const POLICY: Family = Family {
    python: false,
    kotlin: true,
    js: true,
    classes: &[Class {
        name: "Policy",
        sources: &["core/src/policy/validated.rs", "core/src/policy/compiled/mod.rs", "core/src/outcomes/http.rs"],
        doc: "A validated, immutable policy. Share one across threads freely.",
        shape: Shape::Value { core: "Policy" },
        config: None,
        constructors: &[],
        methods: &[
            getter(
                "sends_idempotency_key",
                "True when requests carry the idempotency key header (keyed and unsafe operations).",
                Ret::Bool,
            ),
            Method {
                through: Some(Through::Lent {
                    accessor: "to_config",
                    core: "PolicyConfig",
                    source: "core/src/policy/read.rs",
                }),
                ..method("to_json", "The configuration as pretty-printed JSON.", &[], Ret::Text("String"))
            },
            method(
                "to_compiled",
                "The policy's compiled form: versioned, checksummed bytes that `Policy.from_compiled` (in any \
                 language) reads back as this policy.",
                &[],
                Ret::Compiled,
            ),
            Method {
                through: of_policy("outcomes::classify::classify", "core/src/outcomes/classify.rs"),
                ..method(
                    "classify",
                    "What an outcome means under this policy.",
                    &[Arg::Instance { name: "outcome", class: "Outcome" }],
                    Ret::ValueOrError("Class"),
                )
            },
            Method {
                through: of_policy("engine::backoff::backoff_ceilings_ms", "core/src/engine/backoff/mod.rs"),
                ..method(
                    "backoff_ceilings_ms",
                    "The backoff ceilings of the first `retries` retries (retry 0 = the first retry).",
                    &[Arg::Count("retries")],
                    Ret::SpansOrError,
                )
            },
            Method {
                through: of_policy("engine::redelivery::redeliver", "core/src/engine/redelivery.rs"),
                ..method(
                    "redeliver",
                    "What to do with a queue message whose delivery number `attempts` (1 for the first) ended \
                     with `outcome`, first seen at `first_seen_ms`.",
                    &[
                        Arg::Count("attempts"),
                        Arg::Ms("first_seen_ms"),
                        Arg::Now,
                        Arg::Instance { name: "outcome", class: "Outcome" },
                    ],
                    Ret::ValueOrError("Redelivery"),
                )
            },
            Method {
                through: of_policy("explain", "core/src/tools/timeline.rs"),
                ..method(
                    "explain",
                    "The worst-case timeline against the deadline `deadline_ms` after the start, or none for the \
                     total timeout alone, when the first attempt starts `first_attempt_at_ms` in.",
                    &[Arg::OptionalMs("deadline_ms"), Arg::Ms("first_attempt_at_ms")],
                    Ret::ValueOrError("Timeline"),
                )
            },
        ],
    }],
};
