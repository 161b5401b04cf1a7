//! The discrete-event simulation: a fleet of clients runs a policy against a
//! dependency of finite capacity, in virtual milliseconds.
//!
//! **The simulator makes no retry decision.** Every attempt, wait and give-up
//! (budget and breaker refusals included) comes from a
//! [`retryplan::Operation`] holding the client's [`retryplan::Dependency`]; the
//! simulator only models the world ([`crate::scenario`]) and feeds each
//! operation its outcomes at the right virtual times: events ordered by
//! (virtual ms, insertion order) as a binary heap keyed by (time, sequence)
//! would order them ([`crate::queue`]: a timing wheel in front of such a heap),
//! so equal times keep their order and a seed reproduces a run exactly.
//!
//! Layered retries: in a run with `layers > 1`, each attempt of a layer's
//! operation is one operation of the layer below (with the attempt's abort
//! time as its propagated deadline, unless the scenario says deadlines are
//! not propagated); only the bottom layer calls the dependency. A lower operation that ends without success answers its
//! caller's attempt with a 503.
//!
//! Propagated layers (the `propagated` variant): each lower operation serves
//! its caller's attempt as [`retryplan::propagation`] says, through the wire
//! form itself: the caller's operation writes the attempt's headers
//! ([`Operation::outgoing_headers`]), the lower layer reads them
//! ([`IncomingContext::read`]) and starts with
//! [`OperationOptions::with_incoming`], so its deadline is the attempt's
//! less the policy's `propagation.reserve_ms`, and under `retry_layer`
//! `outermost` it makes one attempt. A lower operation that gives up for
//! overload or its retry budget ([`answers_do_not_retry`]) answers with
//! "do not retry", which reaches the operation as gRPC's pushback of -1
//! (an [`Operation`] takes outcomes, not headers).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use retryplan::engine::stats::Stats;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::propagation::{answers_do_not_retry, IncomingContext, Protocol};
use retryplan::{AttemptResult, Ending, IdempotencyKey};
use retryplan::{Decision, Dependency, DependencyConfig, GiveUpReason, Operation, OperationOptions, Outcome, Policy};

use crate::queue::EventQueue;
use crate::rng::{mix, SplitMix64};
use crate::scenario::{Arrival, Failure, Phase, Scenario, ServiceTime};

const ARRIVAL_STREAM: u64 = 0x4152_5249_5641_4c53; // "ARRIVALS"
const SERVICE_STREAM: u64 = 0x5345_5256_4943_4553; // "SERVICES"
const OPERATION_STREAM: u64 = 0x4f50_4552_4154_494f; // "OPERATIO"

/// What one variant runs: a policy, the controls each client holds, a depth.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The policy every layer runs.
    pub policy: Policy,
    /// The controls each client (and each layer) holds.
    pub dependency: DependencyConfig,
    /// 1 = the client calls the dependency directly.
    pub layers: u32,
    /// Layers below the first serve their caller's attempt as
    /// [`retryplan::propagation`] says (deadline, one retrying layer,
    /// do-not-retry answers), instead of as plain new operations.
    pub propagated: bool,
}

/// Counters for one time bucket.
#[derive(Clone, Debug, Default)]
pub struct Bucket {
    /// Logical operations that arrived.
    pub arrivals: u64,
    /// Decisions of the top-layer (logical) operations, counted by `core`'s [`Stats`].
    pub top: Stats,
    /// Attempts that reached the dependency (bottom layer).
    pub attempts: u64,
    /// Of those, the ones beyond one per logical operation (retries at any layer).
    pub extra_attempts: u64,
    /// Give-ups with `budget_exhausted`, at any layer.
    pub budget_refusals: u64,
    /// Give-ups with `circuit_open`, at any layer.
    pub breaker_refusals: u64,
    /// Give-ups with `no_retry_slot`, at any layer.
    pub retry_slot_refusals: u64,
    /// Requests the dependency shed (queue full).
    pub shed: u64,
    /// Requests served after their client had given up on them (wasted work).
    pub served_late: u64,
    /// Latency of each successful logical operation ending in the bucket (ms).
    pub latencies_ms: Vec<u32>,
}

/// Width (ms) of the slots in which [`Run::attempts_per_slot`] counts
/// attempts: short enough to show retries that arrive together.
pub const SLOT_MS: u64 = 10;

/// The raw result of one run.
#[derive(Clone, Debug)]
pub struct Run {
    /// One per bucket; activity after the last arrival is counted in the last one.
    pub buckets: Vec<Bucket>,
    /// Attempts that reached the dependency in each [`SLOT_MS`] slot from
    /// time 0 (the last slot is the last attempt's).
    pub attempts_per_slot: Vec<u32>,
    /// Virtual time of the last event.
    pub end_ms: u64,
}

/// How an attempt ended, as the world saw it (kept small: events are copied a lot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    Success,
    Unavailable,
    /// A 503 with a Retry-After of this many ms (at most an hour: it fits).
    UnavailableRetryAfter(u32),
    TimedOut,
    /// A restarting dependency refused the connection: the request never left.
    Refused,
    /// The dependency restarted while holding the request: the connection broke.
    Reset,
    /// A lower layer gave up for overload or its retry budget and said "do
    /// not retry" (gRPC's pushback of -1).
    DeclinedRetry,
}

impl Reply {
    fn unavailable(retry_after_ms: Option<u64>) -> Reply {
        match retry_after_ms {
            Some(ms) => Reply::UnavailableRetryAfter(u32::try_from(ms).unwrap_or(u32::MAX)),
            None => Reply::Unavailable,
        }
    }

    fn outcome(self) -> Outcome {
        match self {
            Reply::Success => Outcome::Success,
            Reply::Unavailable => Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None },
            Reply::UnavailableRetryAfter(ms) => {
                Outcome::HttpStatus { status: 503, retry_after_ms: Some(u64::from(ms)), error_code: None }
            }
            Reply::TimedOut => Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: None },
            Reply::Refused => Outcome::Transport { failure: TransportFailure::NotSent, retry_after_ms: None },
            Reply::Reset => Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None },
            Reply::DeclinedRetry => {
                Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::DoNotRetry) }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Arrival,
    Poll,
    Reply(Reply),
}

/// An event; its time is kept by the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Event {
    slot: u32,
    generation: u32,
    attempt: u32,
    kind: Kind,
}

/// Who an operation answers to.
#[derive(Clone, Copy, Debug)]
struct Parent {
    slot: u32,
    generation: u32,
    attempt: u32,
}

#[derive(Debug)]
struct Op {
    operation: Operation,
    layer: u32,
    client: u32,
    parent: Option<Parent>,
    /// Top-level, or started by the first attempt of a pristine operation:
    /// its first attempt is the logical operation's one necessary request.
    pristine: bool,
    started_ms: u64,
    /// The last attempt result taken into account (what a driver keeps for
    /// the ending), for the propagated variant's do-not-retry answer.
    last: Option<AttemptResult>,
}

#[derive(Debug, Default)]
struct Slot {
    generation: u32,
    op: Option<Op>,
}

/// The dependency: FCFS workers and a bounded queue.
#[derive(Debug)]
struct Server {
    /// When each worker is next free.
    workers: BinaryHeap<Reverse<u64>>,
    /// Start times of accepted requests still waiting for a worker (ascending).
    waiting: VecDeque<u64>,
    queue_limit: usize,
    service: ServiceTime,
    rng: SplitMix64,
}

impl Server {
    fn draw_service_ms(&mut self, slowdown: f64) -> u64 {
        let base = match self.service {
            ServiceTime::Constant { ms } => ms as f64,
            ServiceTime::Uniform { min_ms, max_ms } => min_ms as f64 + self.rng.below(max_ms - min_ms + 1) as f64,
            ServiceTime::Exponential { mean_ms } => self.rng.exponential(mean_ms),
        };
        if slowdown == 1.0 && base.fract() == 0.0 {
            return base as u64;
        }
        self.rng.round(base * slowdown)
    }
}

/// One simulation run of one variant.
pub struct Simulation<'a> {
    scenario: &'a Scenario,
    setup: &'a Setup,
    seed: u64,
    events: EventQueue<Event>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// `[layer][client]`: the controls each client holds at each layer.
    dependencies: Vec<Vec<Option<Arc<Dependency>>>>,
    server: Server,
    arrivals: SplitMix64,
    next_arrival_ms: f64,
    operations_created: u64,
    buckets: Vec<Bucket>,
    attempts_per_slot: Vec<u32>,
    bucket_ms: u64,
    /// The bucket `now` falls in (the last one after the arrivals stop), and
    /// when the next one starts: kept as `now` moves, so no division per event.
    current_bucket: usize,
    next_bucket_ms: u64,
    hedging: bool,
    now: u64,
    key: IdempotencyKey,
    /// When each restart phase begins, in order, and how many have emptied the dependency.
    restart_starts: Vec<u64>,
    restarts_applied: usize,
}

/// An engine error during a run: the simulator fed an operation something it
/// refused. It means a bug in the simulator, reported instead of a panic.
#[derive(Debug)]
pub struct SimError(pub String);

impl<'a> Simulation<'a> {
    /// Prepares a run.
    #[must_use]
    pub fn new(scenario: &'a Scenario, setup: &'a Setup, seed: u64) -> Simulation<'a> {
        let config = &scenario.config;
        let dependencies = (0..setup.layers.max(1))
            .map(|_| (0..config.clients).map(|_| crate::file::new_dependency(&setup.dependency)).collect())
            .collect();
        let workers = (0..config.capacity.workers).map(|_| Reverse(0)).collect();
        Simulation {
            scenario,
            setup,
            seed,
            events: EventQueue::new(),
            slots: Vec::new(),
            free: Vec::new(),
            dependencies,
            server: Server {
                workers,
                waiting: VecDeque::new(),
                queue_limit: config.capacity.queue_limit as usize,
                service: config.service_time,
                rng: SplitMix64::new(seed, SERVICE_STREAM),
            },
            arrivals: SplitMix64::new(seed, ARRIVAL_STREAM),
            next_arrival_ms: 0.0,
            operations_created: 0,
            buckets: vec![Bucket::default(); scenario.buckets().max(1)],
            attempts_per_slot: vec![0; usize::try_from(config.duration_ms.div_ceil(SLOT_MS)).unwrap_or(0)],
            bucket_ms: config.bucket_ms.max(1),
            current_bucket: 0,
            next_bucket_ms: config.bucket_ms.max(1),
            hedging: setup.policy.hedging().is_some(),
            now: 0,
            key: IdempotencyKey::from_bits(u128::from(seed)),
            restart_starts: config
                .phases
                .iter()
                .filter_map(|phase| match phase {
                    Phase::Outage { failure: Failure::Restart, from_ms, .. } => Some(*from_ms),
                    _ => None,
                })
                .collect(),
            restarts_applied: 0,
        }
    }

    /// Runs to the end: arrivals until `duration_ms`, then every operation in
    /// flight finishes. `progress` is called with the fraction of virtual
    /// time done, about once per bucket.
    ///
    /// # Errors
    /// [`SimError`] when the engine refuses an event (a simulator bug).
    pub fn run(mut self, progress: &mut dyn FnMut(f64)) -> Result<Run, SimError> {
        self.push(0, 0, 0, 0, Kind::Arrival);
        let duration = self.scenario.config.duration_ms.max(1);
        while let Some((time, event)) = self.events.pop() {
            self.now = time;
            if self.now >= self.next_bucket_ms {
                let index = usize::try_from(self.now / self.bucket_ms).unwrap_or(usize::MAX);
                self.current_bucket = index.min(self.buckets.len() - 1);
                self.next_bucket_ms = (self.now / self.bucket_ms + 1).saturating_mul(self.bucket_ms);
                progress((self.now as f64 / duration as f64).min(1.0));
            }
            match event.kind {
                Kind::Arrival => self.arrive()?,
                Kind::Poll => {
                    let now = self.now;
                    if let Some(op) = self.live_op(event.slot, event.generation) {
                        if !op.operation.is_ended() {
                            let decision = op.operation.poll(now).map_err(engine_error)?;
                            self.handle(event.slot, decision)?;
                        }
                    }
                }
                Kind::Reply(reply) => self.reply(event.slot, event.generation, event.attempt, reply.outcome())?,
            }
        }
        progress(1.0);
        Ok(Run { buckets: self.buckets, attempts_per_slot: self.attempts_per_slot, end_ms: self.now })
    }

    fn push(&mut self, time: u64, slot: u32, generation: u32, attempt: u32, kind: Kind) {
        self.events.push(time, Event { slot, generation, attempt, kind });
    }

    fn bucket(&mut self) -> &mut Bucket {
        &mut self.buckets[self.current_bucket]
    }

    fn live_op(&mut self, slot: u32, generation: u32) -> Option<&mut Op> {
        self.slots.get_mut(slot as usize).filter(|s| s.generation == generation).and_then(|s| s.op.as_mut())
    }

    fn phase_at(&self, time: u64) -> Option<&'a Phase> {
        let phases: &'a [Phase] = &self.scenario.config.phases;
        phases.iter().find(|phase| {
            let (from, to) = phase.window();
            from <= time && time < to
        })
    }

    fn arrive(&mut self) -> Result<(), SimError> {
        let config = &self.scenario.config;
        let clients = config.clients;
        match config.arrival {
            Arrival::Poisson => {
                let client = self.arrivals.below(u64::from(clients)) as u32;
                self.start_operation(0, client, None, Start::Top)?;
                self.next_arrival_ms += self.arrivals.exponential(1000.0 / config.arrivals_per_second);
            }
            Arrival::Synchronized => {
                for client in 0..clients {
                    self.start_operation(0, client, None, Start::Top)?;
                }
                self.next_arrival_ms += 1000.0 * f64::from(clients) / config.arrivals_per_second;
            }
        }
        // Whole-ms virtual time: several arrivals may share a millisecond.
        let next = self.next_arrival_ms as u64; // truncation: the floor of a positive time
        if next < config.duration_ms {
            self.push(next.max(self.now), 0, 0, 0, Kind::Arrival);
        }
        Ok(())
    }

    /// Starts an operation at `layer` for `client`, as `start` says.
    fn start_operation(
        &mut self,
        layer: u32,
        client: u32,
        parent: Option<(Parent, bool)>,
        start: Start,
    ) -> Result<(), SimError> {
        if layer == 0 {
            self.bucket().arrivals += 1;
        }
        let seed = mix(self.seed, OPERATION_STREAM, self.operations_created);
        self.operations_created += 1;
        // The simulated dependency never reads the key; sharing one avoids
        // formatting a fresh UUID-like key for every simulated operation.
        let mut options = OperationOptions::new(seed).with_idempotency_key(self.key.clone());
        match start {
            Start::Top | Start::Below { deadline_ms: None } => {}
            Start::Below { deadline_ms: Some(deadline_ms) } => options = options.with_deadline_ms(deadline_ms),
            Start::Serving(incoming) => options = options.with_incoming(&self.setup.policy, &incoming),
        }
        let dependency = self.dependencies.get(layer as usize).and_then(|layer| layer.get(client as usize));
        if let Some(dependency) = dependency.cloned().flatten() {
            options = options.with_dependency(dependency);
        }
        let operation = Operation::new(&self.setup.policy, self.now, options);
        let op = Op {
            operation,
            layer,
            client,
            parent: parent.map(|(parent, _)| parent),
            pristine: parent.is_none_or(|(_, pristine)| pristine),
            started_ms: self.now,
            last: None,
        };
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let entry = &mut self.slots[slot as usize];
        entry.op = Some(op);
        let generation = entry.generation;
        let now = self.now;
        let decision = match self.live_op(slot, generation) {
            Some(op) => op.operation.poll(now).map_err(engine_error)?,
            None => return Ok(()),
        };
        self.handle(slot, decision)
    }

    /// Carries out one decision of the operation in `slot`.
    fn handle(&mut self, slot: u32, decision: Decision) -> Result<(), SimError> {
        let Some(entry) = self.slots.get(slot as usize) else { return Ok(()) };
        let generation = entry.generation;
        let Some(op) = entry.op.as_ref() else { return Ok(()) };
        let (layer, client, pristine) = (op.layer, op.client, op.pristine);
        let bottom = layer + 1 >= self.setup.layers.max(1);
        if layer == 0 {
            self.bucket().top.record(&decision);
        }
        match decision {
            Decision::StartAttempt { attempt, abort_at_ms, .. } => {
                let extra = !(attempt == 1 && pristine);
                if bottom {
                    let bucket = self.bucket();
                    bucket.attempts += 1;
                    bucket.extra_attempts += u64::from(extra);
                    let index = usize::try_from(self.now / SLOT_MS).unwrap_or(usize::MAX);
                    if index >= self.attempts_per_slot.len() {
                        self.attempts_per_slot.resize(index.saturating_add(1), 0);
                    }
                    if let Some(count) = self.attempts_per_slot.get_mut(index) {
                        *count = count.saturating_add(1);
                    }
                    self.call_dependency(slot, generation, attempt, abort_at_ms);
                } else {
                    // The layer below runs one operation for this attempt, with
                    // the attempt's abort time as its deadline. If it has not
                    // answered by then, the attempt times out.
                    self.push(abort_at_ms, slot, generation, attempt, Kind::Reply(Reply::TimedOut));
                    let parent = Parent { slot, generation, attempt };
                    let start = if self.setup.propagated {
                        Start::Serving(self.serving(slot, generation, attempt)?)
                    } else {
                        Start::Below { deadline_ms: self.scenario.config.propagate_deadline.then_some(abort_at_ms) }
                    };
                    self.start_operation(layer + 1, client, Some((parent, !extra)), start)?;
                }
                if self.hedging {
                    let now = self.now;
                    if let Some(op) = self.live_op(slot, generation) {
                        if !op.operation.is_ended() {
                            let next = op.operation.poll(now).map_err(engine_error)?;
                            return self.handle(slot, next);
                        }
                    }
                }
                Ok(())
            }
            Decision::Wait { until_ms, .. } => {
                self.push(until_ms, slot, generation, 0, Kind::Poll);
                Ok(())
            }
            Decision::AwaitOutcome { until_ms, .. } => {
                // Without hedging the pending reply (or its timeout) is already
                // scheduled; with hedging the next hedge may be due before it.
                if self.hedging {
                    self.push(until_ms.max(self.now), slot, generation, 0, Kind::Poll);
                }
                Ok(())
            }
            Decision::GaveUp { reason, .. } => {
                let bucket = self.bucket();
                match reason {
                    GiveUpReason::BudgetExhausted => bucket.budget_refusals += 1,
                    GiveUpReason::CircuitOpen => bucket.breaker_refusals += 1,
                    GiveUpReason::NoRetrySlot => bucket.retry_slot_refusals += 1,
                    _ => {}
                }
                let last_result = self.slots.get(slot as usize).and_then(|entry| entry.op.as_ref()?.last);
                let ending = Ending { decision, last_result, result: None, malformed_status: None };
                let reply = if self.setup.propagated
                    && answers_do_not_retry(&ending.decision, ending.last_result.as_ref().map(|last| &last.outcome))
                {
                    Reply::DeclinedRetry
                } else {
                    Reply::Unavailable
                };
                self.end(slot, reply);
                Ok(())
            }
            Decision::Succeeded { .. } => {
                self.end(slot, Reply::Success);
                Ok(())
            }
            Decision::Reconcile { .. } | Decision::Restart { .. } => {
                self.end(slot, Reply::Unavailable);
                Ok(())
            }
        }
    }

    /// What the operation in `slot` tells the next hop about `attempt`, read
    /// there as a served request is read: the propagated variant's hop.
    fn serving(&self, slot: u32, generation: u32, attempt: u32) -> Result<IncomingContext, SimError> {
        let op = self
            .slots
            .get(slot as usize)
            .filter(|entry| entry.generation == generation)
            .and_then(|entry| entry.op.as_ref())
            .ok_or_else(|| SimError(format!("no live operation in slot {slot}")))?;
        let headers = op.operation.outgoing_headers(attempt, self.now, Protocol::Http).map_err(engine_error)?;
        let lookup = |name: &str| headers.get(name);
        IncomingContext::read(&self.setup.policy, self.now, lookup).map_err(engine_error)
    }

    /// An operation ended with `reply` for its caller: record it (top
    /// layer) or answer the caller's attempt.
    fn end(&mut self, slot: u32, reply: Reply) {
        let succeeded = reply == Reply::Success;
        let Some(entry) = self.slots.get_mut(slot as usize) else { return };
        let Some(op) = entry.op.take() else { return };
        entry.generation = entry.generation.wrapping_add(1);
        self.free.push(slot);
        match op.parent {
            None => {
                if succeeded {
                    let latency = u32::try_from(self.now - op.started_ms).unwrap_or(u32::MAX);
                    self.bucket().latencies_ms.push(latency);
                }
            }
            Some(parent) => {
                self.push(self.now, parent.slot, parent.generation, parent.attempt, Kind::Reply(reply));
            }
        }
    }

    /// Delivers an attempt's result, unless the attempt is no longer running
    /// (it timed out first, or its operation ended).
    fn reply(&mut self, slot: u32, generation: u32, attempt: u32, outcome: Outcome) -> Result<(), SimError> {
        let now = self.now;
        let Some(op) = self.live_op(slot, generation) else { return Ok(()) };
        if op.operation.is_ended() || !op.operation.running_attempts().contains(attempt) {
            return Ok(());
        }
        let decision = op.operation.on_outcome(now, attempt, &outcome).map_err(engine_error)?;
        op.last = Some(AttemptResult { attempt, outcome });
        self.handle(slot, decision)
    }

    /// The bottom layer's attempt reaches the dependency: decide (as the
    /// world) when and how it is answered, and schedule that one reply.
    fn call_dependency(&mut self, slot: u32, generation: u32, attempt: u32, abort_at_ms: u64) {
        let now = self.now;
        let network = self.scenario.config.network_ms;
        let reply_at =
            |reply: Reply, at: u64| if at <= abort_at_ms { (reply, at) } else { (Reply::TimedOut, abort_at_ms) };
        self.apply_restarts(now);
        let (reply, at) = match self.phase_at(now) {
            Some(Phase::Outage { failure: Failure::Unavailable, retry_after_ms, .. }) => {
                reply_at(Reply::unavailable(*retry_after_ms), now + network)
            }
            Some(Phase::Outage { failure: Failure::Restart, .. }) => reply_at(Reply::Refused, now + network),
            _ => {
                let server = &mut self.server;
                while server.waiting.front().is_some_and(|start| *start <= now) {
                    server.waiting.pop_front();
                }
                let free_at = server.workers.peek().map_or(now, |worker| worker.0);
                let mut start = free_at.max(now);
                if let Some(Phase::Outage { failure: Failure::Timeout, to_ms, .. }) = self.phase_at(start) {
                    // A stalled dependency: requests wait until the stall ends.
                    start = *to_ms;
                }
                if start > now && self.server.waiting.len() >= self.server.queue_limit {
                    self.bucket().shed += 1;
                    reply_at(Reply::Unavailable, now + network)
                } else {
                    let slowdown = match self.phase_at(start) {
                        Some(Phase::Brownout { slowdown, .. }) => *slowdown,
                        _ => 1.0,
                    };
                    let server = &mut self.server;
                    let mut finish = start + server.draw_service_ms(slowdown);
                    if start > now {
                        server.waiting.push_back(start);
                    }
                    let answer = match self.phase_at(finish) {
                        Some(Phase::Outage { failure: Failure::Unavailable, retry_after_ms, .. }) => {
                            Reply::unavailable(*retry_after_ms)
                        }
                        Some(Phase::Outage { failure: Failure::Timeout, to_ms, .. }) => {
                            // Caught by a stall mid-service: it finishes when the stall ends.
                            finish = *to_ms;
                            Reply::Success
                        }
                        _ => Reply::Success,
                    };
                    if let Some(mut worker) = self.server.workers.peek_mut() {
                        worker.0 = finish;
                    }
                    let respond_at = finish + network;
                    if let Some(restart_ms) = self.next_restart_after(now).filter(|restart_ms| finish > *restart_ms) {
                        // Still held (waiting or being served) when the dependency restarts.
                        reply_at(Reply::Reset, restart_ms + network)
                    } else if respond_at <= abort_at_ms {
                        (answer, respond_at)
                    } else {
                        self.bucket().served_late += 1;
                        (Reply::TimedOut, abort_at_ms)
                    }
                }
            }
        };
        self.push(at.max(now), slot, generation, attempt, Kind::Reply(reply));
    }
}

impl Simulation<'_> {
    /// Empties the dependency once for each restart that has begun by `now`.
    fn apply_restarts(&mut self, now: u64) {
        while let Some(restart_ms) = self.restart_starts.get(self.restarts_applied).copied() {
            if restart_ms > now {
                break;
            }
            self.restarts_applied += 1;
            self.server.waiting.clear();
            let workers = self.server.workers.len();
            self.server.workers = (0..workers).map(|_| Reverse(0)).collect();
        }
    }

    /// When the next restart after `now` begins.
    fn next_restart_after(&self, now: u64) -> Option<u64> {
        self.restart_starts.iter().copied().find(|start| *start > now)
    }
}

/// How an operation starts.
#[derive(Clone, Debug)]
enum Start {
    /// A logical operation, on its own.
    Top,
    /// A lower layer's operation for its caller's attempt, with that
    /// attempt's abort time as its deadline or none.
    Below { deadline_ms: Option<u64> },
    /// A lower layer's operation serving its caller's attempt as
    /// propagation says (the `propagated` variant).
    Serving(IncomingContext),
}

fn engine_error(error: retryplan::Error) -> SimError {
    SimError(format!("the engine refused an event ({}): {error}", error.code()))
}
