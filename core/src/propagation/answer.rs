//! The answer of a served request: [`Answer`], the one place that decides
//! which of the outgoing operations made inside a request sets the headers
//! the request answers its caller with.

use crate::outcomes::action::Ending;
use crate::outcomes::decision::Decision;

use super::outgoing::{answer_headers, answers_do_not_retry};
use super::{HeaderList, Protocol};

/// The endings of the outgoing operations made while serving one request,
/// accumulated into the headers of that request's answer. A host keeps one
/// per request served (in its ambient context), hands it every outgoing
/// operation's [`Ending`] ([`record`](Answer::record)), and writes
/// [`headers`](Answer::headers) on the answer.
///
/// The rule: **the last give-up decides**. An operation that gave up sets
/// the answer to what its ending says ([`answers_do_not_retry`]: "do not
/// retry" after overload or an exhausted retry budget, nothing otherwise),
/// replacing what an earlier give-up set: the request answers with the state
/// of the dependency it last failed to reach. Any other ending (a success, a
/// reconcile, a restart) leaves the answer as it is: a later success does not
/// undo an earlier overload the request still answers for. Before any
/// give-up, the answer has no headers.
///
/// ```
/// use retryplan::{propagation::{Answer, Protocol}, Driver, DriverOptions, OperationOptions, Policy};
/// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
/// let mut driver = Driver::new(&policy, 0, OperationOptions::new(1), DriverOptions::default()).unwrap();
/// driver.poll_action(0).unwrap();
/// // The next hop says "do not retry": this operation gives up server_declined_retry.
/// driver.handle_response(10, 1, None, 503, |name| (name == "retryplan-retryable").then_some("?0"), 0).unwrap();
/// driver.poll_action(10).unwrap();
/// let mut answer = Answer::new();
/// answer.record(&driver.ended().unwrap());
/// assert_eq!(answer.headers(Protocol::Http).get("retryplan-retryable"), Some("?0"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Answer {
    do_not_retry: bool,
}

impl Answer {
    /// The answer of a request whose outgoing operations have not given up: no headers.
    #[must_use]
    pub const fn new() -> Answer {
        Answer { do_not_retry: false }
    }

    /// An outgoing operation made while serving the request ended with
    /// `ending`: a give-up decides the answer, anything else leaves it.
    pub fn record(&mut self, ending: &Ending) {
        if matches!(ending.decision, Decision::GaveUp { .. }) {
            self.do_not_retry =
                answers_do_not_retry(&ending.decision, ending.last_result.as_ref().map(|last| &last.outcome));
        }
    }

    /// Whether the answer tells the caller not to retry.
    #[must_use]
    pub const fn do_not_retry(&self) -> bool {
        self.do_not_retry
    }

    /// The answer's headers for a caller speaking `protocol`: "do not retry"
    /// (`retryplan-retryable: ?0`, or gRPC's `grpc-retry-pushback-ms: -1`),
    /// or none.
    #[must_use]
    pub fn headers(&self, protocol: Protocol) -> HeaderList {
        answer_headers(protocol, self.do_not_retry)
    }
}
