//! The methods generator's one definition: each exported class of a family
//! (the shared controls, which every binding writes; the engine's `Operation`,
//! which Python's and Kotlin's writers write, and `Driver`, which JS's writes
//! too: [`ENGINE`], [`DRIVER`]; the `Policy`'s methods whose logic is the
//! core's, which Kotlin's writes: [`POLICY`]), its constructors,
//! methods, the kind of each argument and result, and its doc, from which
//! `methods_python` (pyo3 and the `_native.pyi` section), `methods_kotlin`
//! (uniffi) and `methods_js` (wasm exports and JS classes) write each
//! binding's export file. A kind says how a value crosses (a clock reading,
//! a count, a grant handed back once); each binding's generator says how its
//! language spells that kind, so a method here is one entry, written once.
//!
//! A method calls the core method of the same name on the class's core
//! object (`call` when it differs), or what its `through` says (an object the
//! core object lends, a core function given it); the generator reads the
//! definition against the core's signatures and the compiler of each binding
//! checks the call.

use std::path::Path;

use crate::docs::type_name;

/// How an argument crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A clock reading in ms (Python: `now` seconds or `now_ms`; Kotlin: `now_ms`).
    Now,
    /// A flag, false when left out.
    Flag(&'static str),
    /// A count (`u32` in the core; refused below 0 or above its range).
    Count(&'static str),
    /// A grant of class `class` handed back: taken (a second use is the core's
    /// `invalid_argument` naming it); `optional` when a first attempt has none.
    Grant { name: &'static str, class: &'static str, optional: bool },
    /// The class's configuration (Python: one dict or keyword arguments;
    /// Kotlin: its generated record), read by the core's one reader.
    Config,
    /// The class's configuration as JSON text (Python's `text`, Kotlin's `json`).
    Json,
    /// A compiled form (`compile_*`): bytes.
    Compiled,
    /// An object of the binding's class `class`, lent to the core's call
    /// (`&`); required.
    Instance { name: &'static str, class: &'static str },
    /// The options a new operation starts with (Python: the keywords `seed`,
    /// `idempotency_key`, `deadline`/`deadline_ms`, `dependency`).
    Options,
    /// The options a driver starts with beside an operation's (Python: the
    /// positional `concurrency` after `now`, the keywords `method`,
    /// `idempotent`, `request_idempotency_key`, `stats`, `record_events`,
    /// `returns_responses`, `one_shot_body`, `incoming`), read by the binding's
    /// `start`, which builds the core's object.
    Hosting,
    /// An object of the binding's class `class`, its core value copied into
    /// the call; required.
    Value { name: &'static str, class: &'static str },
    /// The host's handle `token` to the result it holds, and what it holds
    /// (`held`: a value by default); both optional, `held` refused without a
    /// token: two of the core's arguments.
    HeldToken,
    /// The host's handle `token` to the response it holds, optional.
    Token,
    /// A response as the platform received it (its status and headers): two
    /// of the core's arguments.
    Response,
    /// A wall-clock reading in ms (Python: `now_unix` seconds or `now_unix_ms`).
    NowUnix,
    /// The protocol a hop speaks (Python: `protocol`, `http` when left out).
    Protocol,
    /// A wire record in: a sequence of words.
    Words,
    /// A time span or an offset in ms (`u64`), named.
    Ms(&'static str),
    /// A time span or an offset in ms, named, or none (`Option<u64>`).
    OptionalMs(&'static str),
}

/// How a result crosses, and whether the core's call can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// Nothing; the core's call cannot fail.
    Unit,
    /// Nothing, or the core's error.
    UnitOrError,
    /// A flag, or the core's error.
    BoolOrError,
    /// A count (`u32`).
    Count,
    /// A number of grants out (`usize`).
    Outstanding,
    /// A grant of this class, or none when refused.
    Grant(&'static str),
    /// The state as the core serializes it (Python: a JSON-shaped dict;
    /// Kotlin: this generated record).
    Snapshot(&'static str),
    /// A dependency's control of this class, or none when it has none.
    Control(&'static str),
    /// A decision, or the core's error; the core's call steps its object (`&mut self`).
    DecisionOrError,
    /// A clock reading or a time span in ms (`u64`).
    Ms,
    /// A clock reading in ms, or none (`Option<u64>`).
    OptionalMs,
    /// A flag (`bool`).
    Bool,
    /// Text: the core's value of this type, displayed.
    Text(&'static str),
    /// Attempt numbers, ascending (`AttemptSet`).
    Attempts,
    /// A copy of the core's value the binding's class of this name holds (`&` it in the core).
    Object(&'static str),
    /// Nothing; the core's call steps its object (`&mut self`) and cannot fail.
    Steps,
    /// The driver's next action, or the core's error; the call steps its object.
    ActionOrError,
    /// The driver's receipt of a result, or the core's error; the call steps its object.
    ReceiptOrError,
    /// Headers by name, or the core's error (`HeaderList`).
    HeadersOrError,
    /// Headers by name (`HeaderList`).
    Headers,
    /// The oldest recorded event not yet read, or none; the call steps its object.
    Event,
    /// A wire record out: the core fills the output record, one more of its
    /// arguments, or refuses the input (its error); the call steps its object.
    Record,
    /// A compiled form: bytes (`Vec<u8>`).
    Compiled,
    /// Time spans in ms, in order, or the core's error (`Vec<u64>`).
    SpansOrError,
    /// The core's value of this type, as the binding's value of that name (`into`).
    Value(&'static str),
    /// The core's value of this type, as the binding's value of that name, or the core's error.
    ValueOrError(&'static str),
}

/// One exported method.
#[derive(Clone, Copy, Debug)]
pub struct Method {
    pub name: &'static str,
    pub doc: &'static str,
    pub args: &'static [Arg],
    pub ret: Ret,
    /// A property (Python) rather than a call; Kotlin calls it either way.
    pub getter: bool,
    /// The core method, when its name differs.
    pub call: Option<&'static str>,
    /// A deprecated alias kept for one release: the method is the core's
    /// `call` under its old name, and warns.
    pub deprecated: bool,
    /// What the call goes through, when not the core object's own method.
    pub through: Option<Through>,
}

impl Method {
    /// The definition's doc as one binding spells what every binding's doc shares: "or `nothing`" for the
    /// definition's "or none", and the binding's names of the clock readings (`now`, `now_unix`) when the method
    /// takes them. Each writer then adds its own language's words.
    pub fn doc_spelt(&self, nothing: &str, now: &str, now_unix: &str) -> String {
        let mut text = self.doc.replace(", or none", &format!(", or {nothing}"));
        if self.args.contains(&Arg::Now) {
            text = text.replace("`now`", &format!("`{now}`"));
        }
        if self.args.contains(&Arg::NowUnix) {
            text = text.replace("`now_unix`", &format!("`{now_unix}`"));
        }
        text
    }
}

/// What a method's call goes through.
#[derive(Clone, Copy, Debug)]
pub enum Through {
    /// The binding's own function of this name on its class (`self.hand_in`),
    /// which picks the core's call (checked against `call`).
    Binding(&'static str),
    /// An object the core object lends (`accessor`, returning `&core`, the
    /// core type defined in `source`), whose method is called.
    Lent { accessor: &'static str, core: &'static str, source: &'static str },
    /// The core's free function at `path` (from the crate's root), defined in
    /// `source`, given the class's core object (`&`) first.
    Function { path: &'static str, source: &'static str },
}

/// What a class is.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// The controls of one dependency (`Dependency`), holding `Arc<rp::Dependency>`.
    Bundle,
    /// A control (`core`), on its own or a dependency's (read by `field`).
    Control { core: &'static str, field: &'static str },
    /// A grant (`core`) a control hands out, with the one fact it carries,
    /// kept beside its cell.
    Grant { core: &'static str, fact: Option<Fact> },
    /// An engine object (`core`) the class holds alone and steps: one caller
    /// at a time, never shared between threads. Its `__repr__` is the
    /// binding's (`repr`, beside the generated class). `boxed`: held in a
    /// `Box` (a driver is a few KB, moved once instead of at every step of
    /// making its Python object), and shown as Python shows any object.
    Engine { core: &'static str, boxed: bool },
    /// An immutable core value (`core`) the class holds, shared by any number
    /// of threads without a lock.
    Value { core: &'static str },
}

/// The one fact a grant carries: its name, doc, the core method reading it
/// and the core's type of it (`u32` or `bool`).
#[derive(Clone, Copy, Debug)]
pub struct Fact {
    pub name: &'static str,
    pub doc: &'static str,
    pub call: &'static str,
    pub ty: &'static str,
}

/// One exported class.
#[derive(Clone, Copy, Debug)]
pub struct Class {
    pub name: &'static str,
    pub doc: &'static str,
    pub shape: Shape,
    /// The core's files defining the methods of its core type.
    pub sources: &'static [&'static str],
    /// The configuration kind (`rp::config::error::ConfigKind::*`, `rp::*Config`) of `Arg::Config`.
    pub config: Option<&'static str>,
    /// Constructors: the first is the class's own (`new`), the others static.
    pub constructors: &'static [Method],
    pub methods: &'static [Method],
}

pub(crate) const fn method(name: &'static str, doc: &'static str, args: &'static [Arg], ret: Ret) -> Method {
    Method { name, doc, args, ret, getter: false, call: None, deprecated: false, through: None }
}

pub(crate) const fn getter(name: &'static str, doc: &'static str, ret: Ret) -> Method {
    Method { name, doc, args: &[], ret, getter: true, call: None, deprecated: false, through: None }
}

/// A constructor: it returns its class (`ret` is not read).
const fn constructor(name: &'static str, doc: &'static str, args: &'static [Arg]) -> Method {
    method(name, doc, args, Ret::Unit)
}

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
            constructor("new", "Validates the configuration (every violation is reported).", &[Arg::Config]),
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

/// A family of classes this definition holds beside the shared controls
/// (which every binding writes), and which bindings write it: a binding whose
/// flag is off keeps its glue of these classes by hand (its writer has no
/// kinds for them yet).
#[derive(Clone, Copy, Debug)]
pub struct Family {
    pub classes: &'static [Class],
    /// Python's writer writes it (`methods_python`, `methods_python_stub`).
    pub python: bool,
    /// Kotlin's writer writes it (`methods_kotlin_engine`).
    pub kotlin: bool,
    /// JS's writer writes it (`methods_js_engine`: the `Driver` class's methods).
    pub js: bool,
}

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
                ..method(
                    "handle_response",
                    "Hands in the HTTP response attempt `attempt` received, read by the core: `status` exactly as \
                     the platform gave it (any number; outside 100..=599 the core reads it as \
                     `Failure::MalformedResponse`), its `headers`, Retry-After read as the policy says against the \
                     wall clock `now_unix`. Held as a value under `token` when one is given. `Receipt::Accepted` or \
                     `Receipt::Discarded`.",
                    &[Arg::Now, Arg::Count("attempt"), Arg::Response, Arg::NowUnix, Arg::Token],
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
/// worst-case timeline). Kotlin's writer writes them; each binding keeps its
/// constructors (its own readers of a configuration: records, dicts, files,
/// JS objects) and the methods that only convert to its own record types by
/// hand, and Python and JS keep the whole class by hand for now.
pub const POLICY: Family = Family {
    python: false,
    kotlin: true,
    js: false,
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
                    Ret::Value("Timeline"),
                )
            },
        ],
    }],
};

/// The class named `name` in `classes`.
pub fn class_named<'a>(classes: &'a [Class], name: &str) -> Result<&'a Class, String> {
    classes.iter().find(|class| class.name == name).ok_or_else(|| format!("no class {name} in the definition"))
}

/// The fact a grant's object keeps beside its cell (the same Rust in every
/// binding): its field line, and its initializer read from the core's `grant`.
pub fn kept_fact(fact: Option<Fact>) -> (String, String) {
    match fact {
        Some(Fact { name, ty, call, .. }) => (format!("    {name}: {ty},\n"), format!("{name}: grant.{call}(), ")),
        None => (String::new(), String::new()),
    }
}

/// The core type a class crosses as.
fn core_of(class: &Class) -> &'static str {
    match class.shape {
        Shape::Bundle => class.name,
        Shape::Control { core, .. }
        | Shape::Grant { core, .. }
        | Shape::Engine { core, .. }
        | Shape::Value { core } => core,
    }
}

/// The methods of the core type `core` in its files `sources`: each one's
/// name, number of arguments and result type.
fn core_methods(root: &Path, core: &str, sources: &[&str]) -> Result<Vec<(String, usize, String)>, String> {
    let mut methods = Vec::new();
    for source in sources {
        let text = std::fs::read_to_string(root.join(source)).map_err(|e| format!("{source}: {e}"))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{source}: {e}"))?;
        let functions = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Impl(block) if block.trait_.is_none() && type_name(&block.self_ty) == core => Some(block),
                _ => None,
            })
            .flat_map(|block| block.items.iter())
            .filter_map(|item| if let syn::ImplItem::Fn(function) = item { Some(function) } else { None });
        for function in functions {
            let inputs = function.sig.inputs.iter().filter(|input| matches!(input, syn::FnArg::Typed(_))).count();
            let returned = match &function.sig.output {
                syn::ReturnType::Default => "()".to_owned(),
                syn::ReturnType::Type(_, ty) => type_name(ty),
            };
            methods.push((function.sig.ident.to_string(), inputs, returned));
        }
    }
    Ok(methods)
}

/// The core's free function at `path` (its last segment is its name) in `source`: its number of arguments and
/// result type.
fn core_function(root: &Path, path: &str, source: &str) -> Result<(usize, String), String> {
    let name = path.rsplit("::").next().unwrap_or(path);
    let text = std::fs::read_to_string(root.join(source)).map_err(|e| format!("{source}: {e}"))?;
    let file = syn::parse_file(&text).map_err(|e| format!("{source}: {e}"))?;
    let function = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Fn(function) if function.sig.ident == name => Some(function),
            _ => None,
        })
        .ok_or_else(|| format!("no `fn {name}` in {source}"))?;
    let returned = match &function.sig.output {
        syn::ReturnType::Default => "()".to_owned(),
        syn::ReturnType::Type(_, ty) => type_name(ty),
    };
    Ok((function.sig.inputs.len(), returned))
}

/// How many of the core's arguments an argument is.
fn core_arguments(arg: &Arg) -> usize {
    match arg {
        Arg::HeldToken | Arg::Response => 2,
        _ => 1,
    }
}

/// Each method's kinds read against the core's own signature (the method of
/// the class's core type in its `sources`, or of the object it lends): a
/// definition that drifts from the core stops the generator, naming the
/// method, before a binding fails to build.
pub fn check(root: &Path, classes: &[Class]) -> Result<(), String> {
    for class in classes {
        let own = (core_of(class), class.sources);
        let own_methods = core_methods(root, own.0, own.1)?;
        let signature = |(core, sources): (&str, &[&str]), name: &str| -> Result<(usize, String), String> {
            let lent;
            let methods = if core == own.0 {
                &own_methods
            } else {
                lent = core_methods(root, core, sources)?;
                &lent
            };
            let (_, inputs, returned) = methods
                .iter()
                .find(|(function, ..)| function == name)
                .ok_or_else(|| format!("{}.{name}: no `{core}::{name}` in {}", class.name, sources.join(", ")))?;
            Ok((*inputs, returned.clone()))
        };
        let core = own.0;
        if let Shape::Grant { fact: Some(fact), .. } = class.shape {
            let (_, returned) = signature(own, fact.call)?;
            if returned != fact.ty {
                return Err(format!(
                    "{}.{}: the core's `{core}::{}` returns `{returned}`",
                    class.name, fact.name, fact.call
                ));
            }
        }
        for method in class.methods {
            let call = method.call.unwrap_or(method.name);
            let lent_source;
            let (core, sources): (&str, &[&str]) = match method.through {
                Some(Through::Lent { core, source, .. }) => {
                    lent_source = [source];
                    (core, &lent_source)
                }
                _ => own,
            };
            // The core's free function is given the object first: one argument the definition does not list.
            let (called, given_first, (inputs, returned)) = match method.through {
                Some(Through::Function { path, source }) => {
                    (format!("`{path}` (given the {} first)", class.name), 1, core_function(root, path, source)?)
                }
                _ => (format!("`{core}::{call}`"), 0, signature((core, sources), call)?),
            };
            let crosses =
                |name: &str| -> Result<String, String> { Ok(core_of(class_named(classes, name)?).to_owned()) };
            let fits = match method.ret {
                Ret::Unit | Ret::Steps => returned == "()",
                // `()` is no path: `type_name` spells it `?`.
                Ret::UnitOrError | Ret::Record => returned.starts_with("Result<?"),
                Ret::BoolOrError => returned.starts_with("Result<bool"),
                Ret::Count => returned == "u32",
                Ret::Outstanding => returned == "usize",
                Ret::Grant(grant) => returned == format!("Option<{}>", crosses(grant)?),
                Ret::Snapshot(_) => returned.ends_with("Snapshot"),
                Ret::Control(control) => returned == format!("Option<&{}>", crosses(control)?),
                Ret::DecisionOrError => returned == "Result<Decision, Error>",
                Ret::Ms => returned == "u64",
                Ret::OptionalMs => returned == "Option<u64>",
                Ret::Bool => returned == "bool",
                Ret::Text(ty) => returned == ty || returned == format!("&{ty}"),
                Ret::Attempts => returned == "AttemptSet",
                Ret::Object(ty) => returned == format!("&{ty}"),
                Ret::ActionOrError => returned == "Result<Action, Error>",
                Ret::ReceiptOrError => returned == "Result<Receipt, Error>",
                Ret::HeadersOrError => returned == "Result<HeaderList, Error>",
                Ret::Headers => returned == "HeaderList",
                Ret::Event => returned == "Option<Event>",
                Ret::Compiled => returned == "Vec<u8>",
                Ret::SpansOrError => returned == "Result<Vec<u64>, Error>",
                Ret::Value(ty) => returned == ty,
                Ret::ValueOrError(ty) => returned == format!("Result<{ty}, Error>"),
            };
            // A record out is filled in place: one more of the core's arguments.
            let args = method.args.iter().map(core_arguments).sum::<usize>()
                + usize::from(method.ret == Ret::Record)
                + given_first;
            if inputs != args || !fits {
                return Err(format!(
                    "{}.{}: the core's {called} takes {inputs} arguments and returns `{returned}`, \
                     not the {args} arguments and {:?} the definition says",
                    class.name, method.name, method.ret
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `CONTROLS` with `method` added to the class `name`.
    pub(crate) fn with_method(name: &str, method: Method) -> Vec<Class> {
        let mut classes = CONTROLS.to_vec();
        let class = classes.iter_mut().find(|class| class.name == name).unwrap();
        let mut methods = class.methods.to_vec();
        methods.push(method);
        class.methods = Box::leak(methods.into_boxed_slice());
        classes
    }

    /// A definition that says another kind than the core's signature is stopped, naming the method.
    #[test]
    fn a_definition_that_drifts_from_the_core_is_named() {
        let root = crate::workspace_root();
        check(&root, &CONTROLS).unwrap();
        let classes = with_method("RetrySlots", getter("in_use", "Slots in use.", Ret::Outstanding));
        let error = check(&root, &classes).unwrap_err();
        assert!(
            error.contains("RetrySlots.in_use: the core's `RetrySlots::in_use` takes 0 arguments and returns `u32`"),
            "{error}"
        );
        let classes = with_method("RetryBudget", method("on_retry", "No such call.", &[Arg::Now], Ret::Unit));
        assert!(check(&root, &classes).unwrap_err().contains("no `RetryBudget::on_retry`"));
    }

    /// The policy's family is read against the core: its own methods, an object it lends, and the core's free
    /// functions given the policy first (one argument the definition does not list); a definition that drifts
    /// from a function's signature, or names a function the core does not have, is named.
    #[test]
    fn a_policy_function_that_drifts_from_the_core_is_named() {
        let root = crate::workspace_root();
        check(&root, POLICY.classes).unwrap();
        let with = |added: Method| {
            let mut classes = POLICY.classes.to_vec();
            classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
            classes
        };
        let explain = Some(Through::Function { path: "explain", source: "core/src/tools/timeline.rs" });
        let classes = with(Method {
            through: explain,
            ..method("explain_again", "No deadline.", &[Arg::Ms("first_attempt_at_ms")], Ret::Value("Timeline"))
        });
        let error = check(&root, &classes).unwrap_err();
        assert!(
            error.contains(
                "Policy.explain_again: the core's `explain` (given the Policy first) takes 3 arguments and returns \
                 `Timeline`, not the 2 arguments"
            ),
            "{error}"
        );
        let missing =
            Some(Through::Function { path: "tools::timeline::explain_all", source: "core/src/tools/timeline.rs" });
        let classes =
            with(Method { through: missing, ..method("explain_all", "None such.", &[], Ret::Value("Timeline")) });
        assert!(check(&root, &classes).unwrap_err().contains("no `fn explain_all` in core/src/tools/timeline.rs"));
    }
}
