//! The simulated world: arrivals, a dependency of finite capacity, and a
//! timeline of trouble. Only the world is modelled here; every retry decision
//! comes from `retryplan::Operation`.
//!
//! ```json
//! "scenario": {
//!   "duration_ms": 120000,          // arrivals stop here; operations in flight finish
//!   "bucket_ms": 1000,              // width of one reported time bucket
//!   "arrivals_per_second": 2000,    // new logical operations per second, fleet-wide
//!   "arrival": "poisson",           // or "synchronized": every client fires at the same instants
//!   "clients": 20,                  // client processes; each holds its own dependency controls
//!   "capacity": {"workers": 64, "queue_limit": 2048},
//!   "service_time": {"kind": "exponential", "mean_ms": 20},
//!   "network_ms": 2,                // added to every response
//!   "layers": 3,                    // depth of the `layered` variant
//!   "propagate_deadline": true,     // layered: lower layers inherit the attempt's abort time
//!   "phases": [
//!     {"kind": "outage", "from_ms": 20000, "to_ms": 20300, "failure": "timeout"},
//!     {"kind": "outage", "from_ms": 20300, "to_ms": 20310, "failure": "restart"},
//!     {"kind": "outage", "from_ms": 30000, "to_ms": 60000, "failure": "unavailable"},
//!     {"kind": "brownout", "from_ms": 80000, "to_ms": 90000, "slowdown": 4}
//!   ]
//! }
//! ```
//!
//! The dependency has `workers` servers, each serving one request at a time
//! in arrival order (FCFS), and a queue of at most `queue_limit` waiting
//! requests; a request arriving at a full queue is shed at once with a 503.
//! The server never learns that a client gave up: a request that waits past
//! its client's timeout is still served, which is wasted work (`served_late`).
//! Outside the phases the dependency is healthy. An `unavailable` outage
//! answers every request (and every response due during it) with a 503 at
//! once (optionally with `retry_after_ms`), using no capacity. A `timeout`
//! outage is a stall: the workers stop, requests pile up in the queue (up to
//! `queue_limit`, then they are shed) and are served only after the stall, so
//! the clients' attempts time out. A `restart` outage drops everything the
//! dependency holds at `from_ms`: every request waiting or being served
//! fails at that instant with a broken connection (ambiguous: it may have
//! been processed), so their clients retry together, and until `to_ms` new
//! connections are refused at once (the request never left: safe to
//! repeat). A `brownout` multiplies service times by `slowdown`.
//! After the last phase the dependency is healthy again; the report says
//! whether the fleet recovered or stayed overloaded (metastable failure).

use retryplan::config::error::Violation;
use retryplan::config::value::{closest_name, join, Value};
use retryplan::tools::check;
use serde::{Deserialize, Serialize};

use crate::problem::Problem;

/// The longest scenario accepted: one day of virtual time.
pub const MAX_DURATION_MS: u64 = 86_400_000;
/// The most buckets a report may have.
pub const MAX_BUCKETS: u64 = 100_000;
/// The most logical operations one variant may simulate: about 330 bytes
/// each while in flight, so even a run that holds every one of them at once
/// (a stall longer than the arrivals) stays under 1 GB. 50 000 000 passed
/// `check` and then failed to allocate (issue 29).
pub const MAX_OPERATIONS: f64 = 2_000_000.0;
/// The most attempts one variant may make at the dependency: its operations
/// times the attempts each may send (`max_attempts`, or
/// `max_attempts^layers` for the layered variant). About 15 million
/// attempts a second are simulated, so a run stays within seconds; 2 layers
/// of 100 attempts ran 6e8 attempts in 40 s and 2.4 GB (issue 29).
pub const MAX_ATTEMPTS: f64 = 50_000_000.0;
/// The most attempts one operation may send, all layers together.
pub const MAX_ATTEMPTS_PER_OPERATION: u64 = 100_000;
/// The deepest layered variant.
pub const MAX_LAYERS: u32 = 6;

/// The scenario's whole-number fields with a rule of their own, by their
/// path in the scenario: the range [`check`] enforces, which the reader
/// states too for what is no `u32` at all (-1, 2^32, a string), as the
/// core's readers do for a policy's `max_attempts`: one field, one rule.
/// `capacity.queue_limit` has none (any `u32` is a queue's length), so it
/// keeps the `u32`'s range.
const WHOLE_NUMBER_RULES: [(&str, u32, u32); 3] =
    [("clients", 1, 100_000), ("capacity.workers", 1, 1_000_000), ("layers", 1, MAX_LAYERS)];

/// The rule of the whole number at `field` (a path in the scenario), in
/// words, when `value` (as written: `0`, `-1`, `the string "3"`) breaks it;
/// `None` when the field has no rule of its own or `value` keeps it.
fn whole_number_rule(field: &str, value: &str) -> Option<String> {
    let (_, min, max) = WHOLE_NUMBER_RULES.iter().find(|(name, ..)| *name == field)?;
    let kept = value.parse::<u32>().is_ok_and(|number| (*min..=*max).contains(&number));
    (!kept).then(|| format!("scenario.{field} ({value}) must be a whole number in {min}..={max}"))
}

/// How arrivals are spread in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Independent arrivals (exponential gaps) at the given rate.
    #[default]
    Poisson,
    /// Every client starts an operation at the same instants (a shared timer,
    /// a cron job, a reconnect after a deploy): the worst case for retry
    /// synchronization.
    Synchronized,
}

/// The dependency's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capacity {
    /// Requests served at once.
    pub workers: u32,
    /// Requests that may wait for a worker; more are shed with a 503.
    pub queue_limit: u32,
}

/// How long a healthy worker takes for one request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServiceTime {
    /// Always `ms`.
    Constant {
        /// The service time.
        ms: u64,
    },
    /// Uniform in `[min_ms, max_ms]`.
    Uniform {
        /// Shortest.
        min_ms: u64,
        /// Longest.
        max_ms: u64,
    },
    /// Exponentially distributed with this mean (rounded to whole ms without bias).
    Exponential {
        /// The mean.
        mean_ms: f64,
    },
}

impl ServiceTime {
    /// The mean service time in ms.
    #[must_use]
    pub fn mean_ms(&self) -> f64 {
        match *self {
            ServiceTime::Constant { ms } => ms as f64,
            ServiceTime::Uniform { min_ms, max_ms } => (min_ms + max_ms) as f64 / 2.0,
            ServiceTime::Exponential { mean_ms } => mean_ms,
        }
    }
}

/// What a failing dependency answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// HTTP 503 at once.
    Unavailable,
    /// A stall: no answer until the phase ends; the client's attempt times out.
    Timeout,
    /// A restart: at the phase's start every request the dependency holds
    /// (waiting or being served) fails at once with a broken connection;
    /// until its end new connections are refused.
    Restart,
}

impl Failure {
    /// The name a plan writes (`"failure": "timeout"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Failure::Unavailable => "unavailable",
            Failure::Timeout => "timeout",
            Failure::Restart => "restart",
        }
    }
}

/// One period of trouble.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Phase {
    /// The dependency fails every request.
    Outage {
        /// Start, ms from the beginning.
        from_ms: u64,
        /// End (exclusive).
        to_ms: u64,
        /// How it fails.
        failure: Failure,
        /// A Retry-After sent with each 503, in ms.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// The dependency is slower.
    Brownout {
        /// Start, ms from the beginning.
        from_ms: u64,
        /// End (exclusive).
        to_ms: u64,
        /// Service times are multiplied by this, in [1, 1000].
        slowdown: f64,
    },
}

impl Phase {
    /// `[from_ms, to_ms)`.
    #[must_use]
    pub fn window(&self) -> (u64, u64) {
        match *self {
            Phase::Outage { from_ms, to_ms, .. } | Phase::Brownout { from_ms, to_ms, .. } => (from_ms, to_ms),
        }
    }

    /// `outage` or `brownout`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Phase::Outage { .. } => "outage",
            Phase::Brownout { .. } => "brownout",
        }
    }
}

fn default_bucket_ms() -> u64 {
    1_000
}
fn default_clients() -> u32 {
    1
}
fn default_layers() -> u32 {
    3
}
fn default_true() -> bool {
    true
}

/// The scenario as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Arrivals stop at this time (ms); operations in flight then finish.
    pub duration_ms: u64,
    /// Width of one reported bucket (ms).
    #[serde(default = "default_bucket_ms")]
    pub bucket_ms: u64,
    /// New logical operations per second, across all clients.
    pub arrivals_per_second: f64,
    /// How arrivals are spread.
    #[serde(default)]
    pub arrival: Arrival,
    /// Client processes, each with its own dependency controls.
    #[serde(default = "default_clients")]
    pub clients: u32,
    /// The dependency's capacity.
    pub capacity: Capacity,
    /// Healthy service time.
    pub service_time: ServiceTime,
    /// Added to every response (ms).
    #[serde(default)]
    pub network_ms: u64,
    /// Depth of the `layered` variant (each layer runs the policy; each
    /// attempt of a layer is one operation of the layer below).
    #[serde(default = "default_layers")]
    pub layers: u32,
    /// In the `layered` variant, whether a layer's operation gets its
    /// caller's attempt abort time as its deadline (`true`, the rule "no
    /// layer mints time"), or only its own budget (`false`, as in stacks that
    /// do not propagate deadlines: a lower layer keeps retrying after its
    /// caller has given up).
    #[serde(default = "default_true")]
    pub propagate_deadline: bool,
    /// Trouble, in time order, not overlapping.
    #[serde(default)]
    pub phases: Vec<Phase>,
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// As written (and checked).
    #[serde(flatten)]
    pub config: ScenarioConfig,
}

impl Scenario {
    /// Number of buckets in a report.
    #[must_use]
    pub fn buckets(&self) -> usize {
        usize::try_from(self.config.duration_ms.div_ceil(self.config.bucket_ms)).unwrap_or(usize::MAX)
    }

    /// When the last phase ends (0 without phases).
    #[must_use]
    pub fn trigger_end_ms(&self) -> u64 {
        self.config.phases.iter().map(|phase| phase.window().1).max().unwrap_or(0)
    }

    /// When the first phase starts.
    #[must_use]
    pub fn trigger_start_ms(&self) -> Option<u64> {
        self.config.phases.iter().map(|phase| phase.window().0).min()
    }

    /// The window the chart shows at 10 ms resolution: from 100 ms before
    /// the first restart to 400 ms after it, where the requests it broke come
    /// back (together, without jitter): `(restart, from, to)` in ms. `None`
    /// without a restart.
    #[must_use]
    pub fn zoom_window(&self) -> Option<(u64, u64, u64)> {
        let restart = self.config.phases.iter().find_map(|phase| match *phase {
            Phase::Outage { failure: Failure::Restart, from_ms, .. } => Some(from_ms),
            _ => None,
        })?;
        Some((restart, restart.saturating_sub(100), restart.saturating_add(400).min(self.config.duration_ms)))
    }

    /// Healthy throughput of the dependency, requests per second.
    #[must_use]
    pub fn capacity_per_second(&self) -> f64 {
        let mean = self.config.service_time.mean_ms().max(0.001);
        f64::from(self.config.capacity.workers) * 1000.0 / mean
    }
}

/// Reads and checks a scenario, reporting every problem at once, each with
/// its field (`scenario.`...): the core's [`check::read_all`] reads on past a
/// structural problem (leaving that field out), then the rules below run on
/// what was read.
pub fn read(value: &Value) -> Result<Scenario, Vec<Problem>> {
    let read = check::read_all(value, read_config);
    let mut problems = read.problems.clone();
    if let Some(config) = &read.value {
        problems.extend(read.unless_left_out(check(config)));
    }
    match read.value {
        Some(config) if problems.is_empty() => Ok(Scenario { config }),
        _ => Err(problems
            .into_iter()
            .map(|problem| {
                let field =
                    if problem.field.is_empty() { "scenario".to_owned() } else { join("scenario", &problem.field) };
                Problem::new(field, problem.message)
            })
            .collect()),
    }
}

/// The strict reader: the first problem, with its path inside the scenario.
fn read_config(value: &Value) -> Result<ScenarioConfig, Violation> {
    if let Some(field) = repeated_key(value, "") {
        return Err(Violation { field, message: "this key appears more than once in its object".into() });
    }
    let json = serde_json::to_value(value)
        .map_err(|error| Violation { field: String::new(), message: error.to_string().into() })?;
    serde_path_to_error::deserialize::<_, ScenarioConfig>(json.clone()).map_err(|error| {
        let mut path = error.path().to_string();
        let serde_message = error.inner().to_string();
        if let Some(field) = field_in_tagged(&json, error.path(), &serde_message) {
            path = join(&path, &field);
        }
        // serde reads an object (a struct, a tagged phase) from a list too,
        // item by item, and then reports a length or a missing field: the
        // list is what is wrong.
        let a_list_for_an_object = (serde_message.starts_with("invalid length")
            || serde_message.starts_with("missing field"))
            && node_at(&mut json.clone(), error.path()).is_some_and(|node| node.is_array());
        // A tagged object read from a list takes its first item for the tag.
        let tag_from_a_list = serde_message.ends_with("expected variant identifier")
            && matches!(error.path().iter().next_back(), Some(serde_path_to_error::Segment::Seq { .. }));
        if tag_from_a_list {
            let field = path.rsplit_once('[').map_or(String::new(), |(list, _)| list.to_owned());
            return Violation { field, message: "expected an object, found a list".into() };
        }
        let path = if path == "." { String::new() } else { path };
        if a_list_for_an_object {
            let path = error.path().to_string();
            let field = if path == "." { String::new() } else { path };
            return Violation { field, message: "expected an object, found a list".into() };
        }
        let message = in_words(&with_suggestion(serde_message), &path);
        // serde names the object that lacks a field; the core's readers name the
        // field itself, which is also what `check::read_all` recognises as its own
        // doing once it left that field out (the `kind` of a misspelt variant).
        let field = match missing_field(&message) {
            Some(name) => join(&path, name),
            None => path,
        };
        Violation { field, message: message.into() }
    })
}

/// The field of an internally tagged object (`service_time`, a phase) that
/// serde's error `message` at `path` is about: serde reads such an object
/// whole and names only the object. The object is read in order, so the
/// field is the first whose object, cut after it, fails as the whole does.
/// `None` when `path` is not such an object or the error is about the object
/// itself (a missing field).
fn field_in_tagged(json: &serde_json::Value, path: &serde_path_to_error::Path, message: &str) -> Option<String> {
    if message.starts_with("missing field") {
        return None;
    }
    let mut whole = json.clone();
    let fields = node_at(&mut whole, path)?.as_object()?.clone();
    fields.get("kind")?;
    let mut cut = serde_json::Map::new();
    for (key, value) in fields {
        cut.insert(key.clone(), value);
        if key == "kind" {
            continue;
        }
        *node_at(&mut whole, path)? = serde_json::Value::Object(cut.clone());
        let fails_the_same = serde_path_to_error::deserialize::<_, ScenarioConfig>(whole.clone())
            .is_err_and(|error| error.path().to_string() == path.to_string() && error.inner().to_string() == message);
        if fails_the_same {
            return Some(key);
        }
    }
    None
}

/// The node of `json` at `path`.
fn node_at<'a>(json: &'a mut serde_json::Value, path: &serde_path_to_error::Path) -> Option<&'a mut serde_json::Value> {
    path.iter().try_fold(json, |node, segment| match segment {
        serde_path_to_error::Segment::Map { key } => node.get_mut(key),
        serde_path_to_error::Segment::Seq { index } => node.get_mut(index),
        _ => None,
    })
}

/// serde's "invalid value: integer `-5`, expected u64" (or "invalid type:
/// string \"x\", expected struct Capacity") at `path` in the words the
/// core's readers use ("expected a whole number of milliseconds, 0 or more,
/// found the number -5", "expected an object, found the string \"x\""):
/// never a Rust type's name. A message in other words is kept as it is.
fn in_words(message: &str, path: &str) -> String {
    let Some(rest) = message.strip_prefix("invalid ") else { return message.to_owned() };
    let Some((found, expected)) = rest.split_once(", expected ") else { return message.to_owned() };
    let name = path.rsplit('.').next().unwrap_or(path);
    let limit = match expected {
        "u64" if name.ends_with("_ms") || name == "ms" => "a whole number of milliseconds, 0 or more".to_owned(),
        "u64" => "a whole number, 0 or more".to_owned(),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "f64" => "a number".to_owned(),
        "a boolean" | "a string" => expected.to_owned(),
        "a sequence" => "a list".to_owned(),
        // `struct Capacity`, `internally tagged enum ServiceTime`, `struct ScenarioConfig`: an object.
        _ if expected.starts_with("struct ") || expected.contains("enum ") || expected == "a map" => {
            "an object".to_owned()
        }
        _ => return message.to_owned(),
    };
    let found = found.trim_start_matches("type: ").trim_start_matches("value: ");
    let found_words = match found.split_once(' ') {
        Some(("integer" | "floating", value)) => {
            format!("the number {}", value.trim_start_matches("point ").trim_matches('`'))
        }
        Some(("string", value)) => format!("the string {value}"),
        Some(("boolean", value)) => format!("the boolean {}", value.trim_matches('`')),
        None if found == "sequence" => "a list".to_owned(),
        None if found == "map" => "an object".to_owned(),
        None if found == "null" => "null".to_owned(),
        Some(("unit", "value")) => "null".to_owned(),
        _ => found.to_owned(),
    };
    // A field with a rule of its own states it, the value as its rule's violation shows it.
    let value = found_words.strip_prefix("the number ").unwrap_or(&found_words);
    match whole_number_rule(path, value) {
        Some(rule) if expected == "u32" => rule,
        _ => format!("expected {limit}, found {found_words}"),
    }
}

/// The field serde's "missing field `x`" names.
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.split('`').next()
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or variant), with
/// the closest expected name offered.
fn with_suggestion(message: String) -> String {
    if !(message.starts_with("unknown field") || message.starts_with("unknown variant")) {
        return message;
    }
    // The names are the backquoted words: the unknown one first, then the expected ones.
    let names: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    let Some((unknown, expected)) = names.split_first() else { return message };
    match closest_name(unknown, expected.iter().copied()) {
        Some(name) => message.replacen(&format!("`{unknown}`"), &format!("`{unknown}` (did you mean `{name}`?)"), 1),
        None => match failure_named_as_phase(unknown, expected) {
            Some(hint) => format!("{message}: {hint}"),
            None => message,
        },
    }
}

/// The report and the chart name an outage by how it fails (a stall, a
/// restart): written as a phase's `kind`, the phase it is.
fn failure_named_as_phase(unknown: &str, expected: &[&str]) -> Option<String> {
    if !expected.contains(&"outage") {
        return None;
    }
    let failure = match unknown {
        "stall" | "stalled" | "hang" | "timeout" => "timeout",
        "restart" | "reset" => "restart",
        "unavailable" | "503" => "unavailable",
        _ => return None,
    };
    Some(format!("a {unknown} is written `{{\"kind\": \"outage\", \"failure\": \"{failure}\", ...}}`"))
}

/// The path of the first key repeated within one object, anywhere in `tree`.
pub(crate) fn repeated_key(tree: &Value, path: &str) -> Option<String> {
    match tree {
        Value::Object(fields) => {
            // The keys seen so far in this object: an ordered set, so an
            // object of n keys costs n log n, not n^2.
            let mut seen = std::collections::BTreeSet::new();
            fields.iter().find_map(|(key, item)| {
                let field = join(path, key);
                if seen.insert(key.as_str()) {
                    repeated_key(item, &field)
                } else {
                    Some(field)
                }
            })
        }
        Value::List(items) => {
            items.iter().enumerate().find_map(|(index, item)| repeated_key(item, &format!("{path}[{index}]")))
        }
        _ => None,
    }
}

/// The work bound of a plan: the scenario run with a policy of
/// `max_attempts` (at `policy_field`) must fit [`MAX_ATTEMPTS_PER_OPERATION`]
/// and [`MAX_ATTEMPTS`], counting the layered variant's `max_attempts^layers`
/// attempts per operation. `check` and `simulate` refuse alike what breaks
/// it, before anything runs.
#[must_use]
pub fn workload_problems(config: &ScenarioConfig, max_attempts: u32, policy_field: &str) -> Vec<Problem> {
    let layers = config.layers;
    let Some(per_operation) =
        u64::from(max_attempts).checked_pow(layers).filter(|most| *most <= MAX_ATTEMPTS_PER_OPERATION)
    else {
        return vec![Problem::new(
            "scenario.layers",
            format!(
                "scenario.layers: {layers} layers of max_attempts {max_attempts} ({policy_field}) could send {max_attempts}^{layers} attempts per operation; at most {MAX_ATTEMPTS_PER_OPERATION} are simulated"
            ),
        )];
    };
    let operations = (config.arrivals_per_second * config.duration_ms as f64 / 1000.0).ceil();
    let attempts = operations * per_operation as f64;
    if attempts > MAX_ATTEMPTS {
        return vec![Problem::new(
            "scenario.arrivals_per_second",
            format!(
                "scenario.arrivals_per_second ({}) over duration_ms ({}) makes {operations:.0} operations of up to {per_operation} attempts each (max_attempts {max_attempts} of {policy_field}, {layers} layer(s)): {attempts:.0} attempts; at most {MAX_ATTEMPTS:.0} per variant (the simulator's work bound)",
                config.arrivals_per_second, config.duration_ms
            ),
        )];
    }
    Vec::new()
}

/// The scenario's rules; fields are paths inside the scenario.
fn check(c: &ScenarioConfig) -> Vec<Violation> {
    let mut problems = Vec::new();
    let mut fail =
        |field: &str, message: String| problems.push(Violation { field: field.to_owned(), message: message.into() });
    if !(1..=MAX_DURATION_MS).contains(&c.duration_ms) {
        fail(
            "duration_ms",
            format!(
                "scenario.duration_ms ({}) must be a whole number in 1..={MAX_DURATION_MS} (one day)",
                c.duration_ms
            ),
        );
    }
    if c.bucket_ms == 0 || c.bucket_ms > c.duration_ms.max(1) {
        fail(
            "bucket_ms",
            format!(
                "scenario.bucket_ms ({}) must be a whole number in 1..=duration_ms ({})",
                c.bucket_ms, c.duration_ms
            ),
        );
    } else if c.duration_ms.div_ceil(c.bucket_ms) > MAX_BUCKETS {
        fail(
            "bucket_ms",
            format!(
                "scenario.bucket_ms ({}) makes {} buckets; at most {MAX_BUCKETS} are reported",
                c.bucket_ms,
                c.duration_ms.div_ceil(c.bucket_ms)
            ),
        );
    }
    if !(c.arrivals_per_second.is_finite() && c.arrivals_per_second > 0.0) {
        fail(
            "arrivals_per_second",
            format!("scenario.arrivals_per_second ({}) must be a number > 0", c.arrivals_per_second),
        );
    } else {
        let operations = c.arrivals_per_second * c.duration_ms as f64 / 1000.0;
        if operations > MAX_OPERATIONS {
            fail(
                "arrivals_per_second",
                format!(
                    "scenario.arrivals_per_second ({}) over duration_ms ({}) makes {operations:.0} operations; at most {MAX_OPERATIONS:.0} per run (the simulator's memory bound)",
                    c.arrivals_per_second, c.duration_ms
                ),
            );
        }
    }
    for (field, value) in [("clients", c.clients), ("capacity.workers", c.capacity.workers)] {
        if let Some(rule) = whole_number_rule(field, &value.to_string()) {
            fail(field, rule);
        }
    }
    let hour = 3_600_000;
    match c.service_time {
        ServiceTime::Constant { ms } if ms > hour => {
            fail("service_time.ms", format!("scenario.service_time.ms ({ms}) must be <= {hour} (one hour)"));
        }
        ServiceTime::Uniform { min_ms, max_ms } if min_ms > max_ms || max_ms > hour => fail(
            "service_time.max_ms",
            format!("scenario.service_time.max_ms ({max_ms}) must be >= min_ms ({min_ms}) and <= {hour} (one hour)"),
        ),
        ServiceTime::Exponential { mean_ms } if !(mean_ms.is_finite() && mean_ms > 0.0 && mean_ms <= hour as f64) => {
            fail(
                "service_time.mean_ms",
                format!("scenario.service_time.mean_ms ({mean_ms}) must be a number in (0, {hour}]"),
            );
        }
        _ => {}
    }
    if c.network_ms > hour {
        fail("network_ms", format!("scenario.network_ms ({}) must be <= {hour} (one hour)", c.network_ms));
    }
    if let Some(rule) = whole_number_rule("layers", &c.layers.to_string()) {
        fail("layers", rule);
    }
    let mut previous_end = 0;
    for (index, phase) in c.phases.iter().enumerate() {
        let (from_ms, to_ms) = phase.window();
        let field = format!("phases[{index}]");
        if from_ms >= to_ms {
            fail(&format!("{field}.to_ms"), format!("scenario.{field}.to_ms ({to_ms}) must be > from_ms ({from_ms})"));
        }
        if to_ms > c.duration_ms {
            fail(
                &format!("{field}.to_ms"),
                format!("scenario.{field}.to_ms ({to_ms}) must be <= duration_ms ({}): the scenario would end during the {}", c.duration_ms, phase.kind()),
            );
        }
        if from_ms < previous_end {
            fail(
                &format!("{field}.from_ms"),
                format!("scenario.{field}.from_ms ({from_ms}) must be >= the previous phase's to_ms ({previous_end}): phases are in time order and do not overlap"),
            );
        }
        previous_end = previous_end.max(to_ms);
        match *phase {
            Phase::Brownout { slowdown, .. } if !(slowdown.is_finite() && (1.0..=1000.0).contains(&slowdown)) => fail(
                &format!("{field}.slowdown"),
                // Past 1e16 a float's digits are noise: 1e308, not 309 digits.
                format!(
                    "scenario.{field}.slowdown ({}) must be a number in [1, 1000]",
                    if slowdown.abs() < 1e16 { format!("{slowdown}") } else { format!("{slowdown:e}") }
                ),
            ),
            Phase::Outage { failure: failure @ (Failure::Timeout | Failure::Restart), retry_after_ms: Some(_), .. } => fail(
                &format!("{field}.retry_after_ms"),
                format!(
                    "scenario.{field}.retry_after_ms is read only with failure unavailable (a 503 carries it): failure {} sends no response, so it would be ignored",
                    failure.name()
                ),
            ),
            Phase::Outage { retry_after_ms: Some(ms), .. } if ms > hour => fail(
                &format!("{field}.retry_after_ms"),
                format!("scenario.{field}.retry_after_ms ({ms}) must be <= {hour} (one hour)"),
            ),
            _ => {}
        }
    }
    problems
}
