//! Reading a [`Decision`] from the core's data tree ([`Value`]): the one
//! reader of a decision a host hands back (JavaScript's `Stats.record`,
//! Python's `Decision.from_dict`), so that every language accepts the same
//! objects and refuses the same ones, in the same words.
//!
//! It accepts what a decision's serialized form writes (serde's, and
//! [`Value::from_serialize`]'s): `type` and the fields of that kind, an
//! optional field absent or `null` (`abort_attempts` absent or `null` is the
//! empty set), a whole number also as a float spelling it (`3.0`: a JS number
//! cannot tell them apart), and the old names of the two renamed fields for
//! one release (issue 28): `server_delay_ms` for `retry_after_ms`,
//! `in_flight` for `running`. serde's `Deserialize` for a decision is this
//! reader too, so Rust callers reading JSON get the same rules. Every refusal
//! is an [`Error::InvalidArgument`] naming the field (its snake_case name,
//! the core's; `decision` for the object as a whole: not an object, or a
//! field its kind does not have) and the rule it breaks. Nothing is clamped
//! and nothing panics.

use crate::config::error::Error;
use crate::config::value::{expected, list, read_error, read_name, Fields, FromValue, Named, Value};
use crate::ground::message::{message, Arg, Rule};
use crate::outcomes::decision::{AttemptSet, Decision, GiveUpReason, RequestId};
use crate::outcomes::decision_kind::DecisionKind;

/// What a refusal blames when no one field of the decision is at fault: the
/// object as a whole (not an object, or a field its kind does not have).
const WHOLE: &str = "decision";

/// The old name of `Wait`'s `retry_after_ms`, read for one release (issue 28).
const RETRY_AFTER_OLD_NAME: &str = "server_delay_ms";

/// The old name of `AwaitOutcome`'s `running`, read for one release (issue 28).
const RUNNING_OLD_NAME: &str = "in_flight";

/// The largest attempt number an [`AttemptSet`] holds.
const MAX_ATTEMPT: u32 = 128;

impl DecisionKind {
    /// The keys a decision of this kind has, `type` first, then its fields in
    /// the order its serialized form writes them.
    fn fields(self) -> &'static [&'static str] {
        match self {
            DecisionKind::StartAttempt => {
                &["type", "attempt", "timeout_ms", "abort_at_ms", "request_id", "remaining_ms", "hedge"]
            }
            DecisionKind::Wait => &["type", "retry", "delay_ms", "until_ms", "retry_after_ms", "remaining_ms"],
            DecisionKind::AwaitOutcome => &["type", "running", "until_ms"],
            DecisionKind::Succeeded => &["type", "attempts", "winner", "abort_attempts"],
            DecisionKind::GaveUp => {
                &["type", "reason", "attempts", "remaining_ms", "refused_delay_ms", "abort_attempts"]
            }
            DecisionKind::Reconcile => &["type", "attempts", "remaining_ms", "abort_attempts"],
            DecisionKind::Restart => &["type", "attempts", "deadline_ms", "remaining_ms", "abort_attempts"],
        }
    }

    /// The old names of its renamed fields, read for one release.
    fn old_names(self) -> &'static [&'static str] {
        match self {
            DecisionKind::Wait => &[RETRY_AFTER_OLD_NAME],
            DecisionKind::AwaitOutcome => &[RUNNING_OLD_NAME],
            _ => &[],
        }
    }
}

impl Decision {
    /// A decision from the core's data tree, as its serialized form writes it
    /// (`{"type": "wait", "retry": 0, "delay_ms": 100, ...}`): what a host
    /// hands back (a JS object, a Python dict) after converting it into a
    /// [`Value`]. The one reader of a decision for every binding: it reads
    /// exactly what [`Value::from_serialize`] writes of a decision (absent
    /// optional fields or `null` for them, whole numbers also as floats
    /// spelling them), and the old names `server_delay_ms` (for
    /// `retry_after_ms`) and `in_flight` (for `running`) for one release.
    ///
    /// ```
    /// use retryplan::config::value::Value;
    /// use retryplan::{Decision, Error};
    ///
    /// let wait = Decision::Wait { retry: 0, delay_ms: 100, until_ms: 100, retry_after_ms: None, remaining_ms: 900 };
    /// let value = Value::from_serialize(&wait).unwrap();
    /// assert_eq!(Decision::from_value(&value), Ok(wait));
    ///
    /// let start = Value::Object(vec![
    ///     ("type".into(), Value::string("start_attempt")),
    ///     ("attempt".into(), Value::unsigned(1)),
    ///     ("timeout_ms".into(), Value::unsigned(500)),
    ///     ("abort_at_ms".into(), Value::unsigned(500)),
    ///     ("request_id".into(), Value::string("12ab")),
    ///     ("remaining_ms".into(), Value::unsigned(900)),
    ///     ("hedge".into(), Value::Bool(false)),
    /// ]);
    /// let error = Decision::from_value(&start).unwrap_err();
    /// assert!(matches!(error, Error::InvalidArgument { field: "request_id", .. }));
    /// assert_eq!(
    ///     error.to_string(),
    ///     "invalid argument `request_id`: expected a request id of 16 hex digits, found the string \"12ab\""
    /// );
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field (snake_case; `decision`
    /// for the object as a whole) and the rule it breaks: not an object, a
    /// missing or unknown `type`, a missing field, a field its kind does not
    /// have or one given twice, a field of the wrong type or out of its
    /// range (a count above `u32::MAX`, a negative or fractional number), an
    /// unknown `reason`, a request id that is not 16 hex digits, an attempt
    /// set that is not a list of attempt numbers in 1..=128, or a renamed
    /// field given under both its names.
    pub fn from_value(value: &Value) -> Result<Decision, Error> {
        read(value).map_err(blaming_a_field)
    }
}

// serde's `Deserialize` for a decision is this reader: any self-describing format's decision is read by
// its rules (its error's text is the reader's).
crate::config::value::deserialize_through_value!(Decision, |value, _| Decision::from_value(value));

/// The decision `value` holds; errors as the configuration reader gives them,
/// at the key's path.
fn read(value: &Value) -> Result<Decision, Error> {
    let Value::Object(entries) = value else { return Err(expected("", Rule::Object, value)) };
    let tag = entries.iter().find(|(key, _)| key == "type").map(|(_, tag)| tag);
    let tag = tag.ok_or_else(|| read_error("type", message!(MissingField, "type")))?;
    let kind = read_name::<DecisionKind>(tag, "type")?;
    let fields = Fields::with_old_names(value, "", kind.fields(), kind.old_names())?;
    let count = |key: &str| fields.required::<u32>(key);
    let ms = |key: &str| fields.required::<u64>(key);
    let aborts = || fields.optional("abort_attempts", read_attempts).map(Option::unwrap_or_default);
    Ok(match kind {
        DecisionKind::StartAttempt => Decision::StartAttempt {
            attempt: count("attempt")?,
            timeout_ms: ms("timeout_ms")?,
            abort_at_ms: ms("abort_at_ms")?,
            request_id: fields.required_with("request_id", read_request_id)?,
            remaining_ms: ms("remaining_ms")?,
            hedge: fields.required("hedge")?,
        },
        DecisionKind::Wait => Decision::Wait {
            retry: count("retry")?,
            delay_ms: ms("delay_ms")?,
            until_ms: ms("until_ms")?,
            retry_after_ms: fields
                .optional(renamed(&fields, "retry_after_ms", RETRY_AFTER_OLD_NAME)?, u64::from_value)?,
            remaining_ms: ms("remaining_ms")?,
        },
        DecisionKind::AwaitOutcome => Decision::AwaitOutcome {
            running: count(renamed(&fields, "running", RUNNING_OLD_NAME)?)?,
            until_ms: ms("until_ms")?,
        },
        DecisionKind::Succeeded => {
            Decision::Succeeded { attempts: count("attempts")?, winner: count("winner")?, abort_attempts: aborts()? }
        }
        DecisionKind::GaveUp => Decision::GaveUp {
            reason: fields.required_with("reason", read_name::<GiveUpReason>)?,
            attempts: count("attempts")?,
            remaining_ms: ms("remaining_ms")?,
            refused_delay_ms: fields.optional("refused_delay_ms", u64::from_value)?,
            abort_attempts: aborts()?,
        },
        DecisionKind::Reconcile => Decision::Reconcile {
            attempts: count("attempts")?,
            remaining_ms: ms("remaining_ms")?,
            abort_attempts: aborts()?,
        },
        DecisionKind::Restart => Decision::Restart {
            attempts: count("attempts")?,
            deadline_ms: ms("deadline_ms")?,
            remaining_ms: ms("remaining_ms")?,
            abort_attempts: aborts()?,
        },
    })
}

/// The key a renamed field is given under: its `name`, or its `old_name`
/// when only that is given; both at once is refused.
fn renamed(fields: &Fields<'_>, name: &'static str, old_name: &'static str) -> Result<&'static str, Error> {
    match (fields.get(name), fields.get(old_name)) {
        (Some(_), Some(_)) => Err(read_error(old_name, message!(BothOldAndNewName, name, old_name))),
        (None, Some(_)) => Ok(old_name),
        _ => Ok(name),
    }
}

/// A request id: a string of exactly 16 hex digits ([`RequestId::from_hex`]).
fn read_request_id(value: &Value, path: &str) -> Result<RequestId, Error> {
    let id = match value {
        Value::String(text) => RequestId::from_hex(text),
        _ => None,
    };
    id.ok_or_else(|| expected(path, Rule::RequestIdDigits, value))
}

/// A list of attempt numbers, each in 1..=128 (one given twice counts once,
/// as `AttemptSet`'s own serde reader counts it).
fn read_attempts(value: &Value, path: &str) -> Result<AttemptSet, Error> {
    let mut set = AttemptSet::EMPTY;
    for attempt in list(value, path, Rule::List, read_attempt)? {
        set.insert(attempt);
    }
    Ok(set)
}

/// An attempt number in 1..=128; anything else is refused naming its place
/// in the list and what it is (`abort_attempts[1] (0) must be a whole number in 1..=128`).
fn read_attempt(value: &Value, path: &str) -> Result<u32, Error> {
    match u32::from_value(value, path) {
        Ok(attempt) if (1..=MAX_ATTEMPT).contains(&attempt) => Ok(attempt),
        _ => {
            let found = match value {
                Value::Number(number) => number.arg(),
                other => Arg::from(other.describe()),
            };
            Err(read_error(path, message!(OutOfRange, alloc::string::String::from(path), found, MAX_ATTEMPT)))
        }
    }
}

/// A reading error at a key's path as the refusal of an argument: the
/// key's own name (every key a decision has is a static name), or
/// [`WHOLE`] for the object as a whole and for a key its kind does not have.
#[cold]
fn blaming_a_field(error: Error) -> Error {
    match error {
        Error::InvalidConfig { field, message, .. } => {
            let key = field.split('[').next().unwrap_or_default();
            let known = DecisionKind::ALL.iter().flat_map(|kind| kind.fields().iter().chain(kind.old_names()));
            let field = match known.copied().find(|name| *name == key) {
                Some(name) if message.rule() != Rule::UnknownField => name,
                _ => WHOLE,
            };
            Error::InvalidArgument { field, rule: message }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;

    use super::{DecisionKind, WHOLE};
    use crate::config::error::Error;
    use crate::config::value::{Named, Value};
    use crate::outcomes::decision::{AttemptSet, Decision, GiveUpReason, RequestId};

    /// One decision of every kind, optional fields given and not, attempt sets empty and not.
    fn every_kind() -> Vec<Decision> {
        let mut aborts = AttemptSet::EMPTY;
        for attempt in [1, 3, 128] {
            aborts.insert(attempt);
        }
        let mut decisions = Vec::new();
        for hedge in [false, true] {
            decisions.push(Decision::StartAttempt {
                attempt: 2,
                timeout_ms: 800,
                abort_at_ms: 123_456_800,
                request_id: RequestId(0x0123_4567_89ab_cdef),
                remaining_ms: 1500,
                hedge,
            });
        }
        decisions.push(Decision::StartAttempt {
            attempt: u32::MAX,
            timeout_ms: u64::MAX,
            abort_at_ms: 0,
            request_id: RequestId(u64::MAX),
            remaining_ms: 0,
            hedge: false,
        });
        for retry_after_ms in [None, Some(0), Some(250)] {
            decisions.push(Decision::Wait { retry: 1, delay_ms: 250, until_ms: 9, retry_after_ms, remaining_ms: 900 });
        }
        decisions.push(Decision::AwaitOutcome { running: 2, until_ms: 9 });
        for abort_attempts in [AttemptSet::EMPTY, aborts] {
            decisions.push(Decision::Succeeded { attempts: 3, winner: 2, abort_attempts });
            for reason in GiveUpReason::ALL {
                for refused_delay_ms in [None, Some(70)] {
                    decisions.push(Decision::GaveUp {
                        reason,
                        attempts: 3,
                        remaining_ms: 0,
                        refused_delay_ms,
                        abort_attempts,
                    });
                }
            }
            decisions.push(Decision::Reconcile { attempts: 1, remaining_ms: 5, abort_attempts });
            decisions.push(Decision::Restart { attempts: 2, deadline_ms: 9, remaining_ms: 5, abort_attempts });
        }
        decisions
    }

    fn tree(decision: &Decision) -> Value {
        Value::from_serialize(decision).unwrap()
    }

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn what_a_decision_writes_reads_back_as_itself_for_every_kind() {
        let decisions = every_kind();
        let kinds: Vec<&str> = decisions.iter().map(Decision::kind).collect();
        for kind in DecisionKind::ALL {
            assert!(kinds.contains(&kind.name()), "no {} among the decisions", kind.name());
        }
        for decision in decisions {
            let value = tree(&decision);
            assert_eq!(Decision::from_value(&value), Ok(decision), "{value:?}");
            // serde's reader is this one: the text reads back as the same decision.
            let text = serde_json::to_string(&decision).unwrap();
            assert_eq!(serde_json::from_str::<Decision>(&text).unwrap(), decision);
            assert_eq!(Decision::from_value(&json(&text)), Ok(decision), "{text}");
        }
    }

    #[test]
    fn the_kinds_are_the_decisions_own_names_and_fields() {
        // Each kind's keys are exactly those its serialized form can write, in that order (optional ones given).
        for decision in every_kind() {
            let Value::Object(fields) = tree(&decision) else { panic!("{decision:?}") };
            let kind = DecisionKind::from_name(decision.kind()).unwrap();
            let written: Vec<&str> = fields.iter().map(|(key, _)| key.as_str()).collect();
            let known: Vec<&str> = kind.fields().iter().copied().filter(|key| written.contains(key)).collect();
            assert_eq!(written, known, "{decision:?}");
        }
        let full = [
            r#"{"type":"wait","retry":0,"delay_ms":5,"until_ms":9,"retry_after_ms":4,"remaining_ms":7}"#,
            r#"{"type":"gave_up","reason":"cancelled","attempts":1,"remaining_ms":0,"refused_delay_ms":4,"abort_attempts":[2]}"#,
        ];
        for text in full {
            let Value::Object(fields) = json(text) else { panic!() };
            let decision = Decision::from_value(&json(text)).unwrap();
            let keys: Vec<&str> = fields.iter().map(|(key, _)| key.as_str()).collect();
            assert_eq!(keys, DecisionKind::from_name(decision.kind()).unwrap().fields());
        }
    }

    #[test]
    fn optional_fields_may_be_null_and_whole_numbers_floats() {
        let wait =
            json(r#"{"type":"wait","retry":0.0,"delay_ms":5,"until_ms":9,"retry_after_ms":null,"remaining_ms":7}"#);
        assert_eq!(
            Decision::from_value(&wait),
            Ok(Decision::Wait { retry: 0, delay_ms: 5, until_ms: 9, retry_after_ms: None, remaining_ms: 7 })
        );
        let ended = json(r#"{"type":"reconcile","attempts":1,"remaining_ms":5,"abort_attempts":null}"#);
        assert_eq!(
            Decision::from_value(&ended),
            Ok(Decision::Reconcile { attempts: 1, remaining_ms: 5, abort_attempts: AttemptSet::EMPTY })
        );
        // An attempt given twice counts once, as `AttemptSet`'s own serde reader counts it.
        let twice = json(r#"{"type":"succeeded","attempts":2,"winner":1,"abort_attempts":[2,2.0]}"#);
        let Ok(Decision::Succeeded { abort_attempts, .. }) = Decision::from_value(&twice) else { panic!() };
        assert_eq!(abort_attempts.iter().collect::<Vec<_>>(), [2]);
        // Upper-case hex digits read as the same id.
        let start = r#"{"type":"start_attempt","attempt":1,"timeout_ms":1,"abort_at_ms":1,"request_id":"0123456789ABCDEF","remaining_ms":1,"hedge":true}"#;
        let Ok(Decision::StartAttempt { request_id, .. }) = Decision::from_value(&json(start)) else { panic!() };
        assert_eq!(request_id, RequestId(0x0123_4567_89ab_cdef));
    }

    #[test]
    fn the_renamed_fields_are_read_under_their_old_names_for_one_release() {
        let old = json(r#"{"type":"wait","retry":0,"delay_ms":5,"until_ms":9,"server_delay_ms":4,"remaining_ms":7}"#);
        assert_eq!(
            Decision::from_value(&old),
            Ok(Decision::Wait { retry: 0, delay_ms: 5, until_ms: 9, retry_after_ms: Some(4), remaining_ms: 7 })
        );
        let old = json(r#"{"type":"await_outcome","in_flight":2,"until_ms":9}"#);
        assert_eq!(Decision::from_value(&old), Ok(Decision::AwaitOutcome { running: 2, until_ms: 9 }));
    }

    /// A decision of `kind` with `fields` (JSON text without braces) after its `type`.
    fn with(kind: &str, fields: &str) -> Value {
        json(&alloc::format!(r#"{{"type":"{kind}"{}{fields}}}"#, if fields.is_empty() { "" } else { "," }))
    }

    const START: &str = r#""attempt":1,"timeout_ms":1,"abort_at_ms":1,"remaining_ms":1,"hedge":false"#;
    const ENDED: &str = r#""attempts":1,"remaining_ms":1"#;

    #[test]
    fn every_bad_decision_is_refused_naming_its_field_and_rule() {
        let id = r#""request_id":"0123456789abcdef""#;
        let cases: Vec<(Value, &str, String)> = alloc::vec![
            // The object as a whole.
            (json("[]"), WHOLE, "expected an object, found a list".into()),
            (json("null"), WHOLE, "expected an object, found null".into()),
            (json(r#""wait""#), WHOLE, "expected an object, found the string \"wait\"".into()),
            (
                with("await_outcome", r#""running":1,"until_ms":1,"runing":1"#),
                WHOLE,
                "unknown field `runing` (did you mean `running`?), expected one of `type`, `running`, `until_ms`"
                    .into(),
            ),
            // A field of another kind is one this kind does not have.
            (
                with("await_outcome", r#""running":1,"until_ms":1,"hedge":true"#),
                WHOLE,
                "unknown field `hedge`, expected one of `type`, `running`, `until_ms`".into(),
            ),
            // The type.
            (json(r#"{"attempts":1}"#), "type", "missing field `type`".into()),
            (
                with("succeded", ""),
                "type",
                "unknown variant `succeded` (did you mean `succeeded`?), expected one of `start_attempt`, `wait`, \
                 `await_outcome`, `succeeded`, `gave_up`, `reconcile`, `restart`"
                    .into(),
            ),
            (
                json(r#"{"type":3}"#),
                "type",
                "expected one of `start_attempt`, `wait`, `await_outcome`, `succeeded`, `gave_up`, `reconcile`, \
                 `restart`, found the number 3"
                    .into(),
            ),
            // Missing, wrong type, out of range.
            (with("start_attempt", START), "request_id", "missing field `request_id`".into()),
            (with("await_outcome", r#""until_ms":1"#), "running", "missing field `running`".into()),
            (
                with("start_attempt", &alloc::format!(r#"{START},{id},"attempt":2"#)),
                "attempt",
                "duplicate field `attempt`".into(),
            ),
            (
                with("await_outcome", r#""running":"two","until_ms":1"#),
                "running",
                "expected a whole number from 0 to 4294967295, found the string \"two\"".into(),
            ),
            (
                with("await_outcome", r#""running":4294967296,"until_ms":1"#),
                "running",
                "expected a whole number from 0 to 4294967295, found the number 4294967296".into(),
            ),
            (
                with("await_outcome", r#""running":1,"until_ms":-1"#),
                "until_ms",
                "expected a whole number of milliseconds, 0 or more, found the number -1".into(),
            ),
            (
                with("await_outcome", r#""running":1.5,"until_ms":1"#),
                "running",
                "expected a whole number from 0 to 4294967295, found the number 1.5".into(),
            ),
            (
                with("wait", r#""retry":0,"delay_ms":1,"until_ms":1,"remaining_ms":1,"retry_after_ms":"1""#),
                "retry_after_ms",
                "expected a whole number of milliseconds, 0 or more, found the string \"1\"".into(),
            ),
            (
                with("gave_up", &alloc::format!(r#"{ENDED},"reason":"cancelled","refused_delay_ms":true"#)),
                "refused_delay_ms",
                "expected a whole number of milliseconds, 0 or more, found the boolean true".into(),
            ),
            (
                with(
                    "start_attempt",
                    &alloc::format!(r#""attempt":1,"timeout_ms":1,"abort_at_ms":1,"remaining_ms":1,"hedge":1,{id}"#)
                ),
                "hedge",
                "expected true or false, found the number 1".into(),
            ),
            // The reason.
            (
                with("gave_up", &alloc::format!(r#"{ENDED},"reason":"bored""#)),
                "reason",
                alloc::format!(
                    "unknown variant `bored`, expected one of {}",
                    GiveUpReason::ALL
                        .iter()
                        .map(|reason| alloc::format!("`{}`", reason.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            (with("gave_up", ENDED), "reason", "missing field `reason`".into()),
            // The request id.
            (
                with("start_attempt", &alloc::format!(r#"{START},"request_id":"0123456789abcde""#)),
                "request_id",
                "expected a request id of 16 hex digits, found the string \"0123456789abcde\"".into(),
            ),
            (
                with("start_attempt", &alloc::format!(r#"{START},"request_id":"0123456789abcdef0""#)),
                "request_id",
                "expected a request id of 16 hex digits, found the string \"0123456789abcdef0\"".into(),
            ),
            (
                with("start_attempt", &alloc::format!(r#"{START},"request_id":"+123456789abcdef""#)),
                "request_id",
                "expected a request id of 16 hex digits, found the string \"+123456789abcdef\"".into(),
            ),
            (
                with("start_attempt", &alloc::format!(r#"{START},"request_id":"0123456789abcdeg""#)),
                "request_id",
                "expected a request id of 16 hex digits, found the string \"0123456789abcdeg\"".into(),
            ),
            (
                with("start_attempt", &alloc::format!(r#"{START},"request_id":81985529216486895"#)),
                "request_id",
                "expected a request id of 16 hex digits, found the number 81985529216486895".into(),
            ),
            // The attempt set.
            (
                with("reconcile", &alloc::format!(r#"{ENDED},"abort_attempts":3"#)),
                "abort_attempts",
                "expected a list, found the number 3".into(),
            ),
            (
                with("reconcile", &alloc::format!(r#"{ENDED},"abort_attempts":[1,0]"#)),
                "abort_attempts",
                "abort_attempts[1] (0) must be a whole number in 1..=128".into(),
            ),
            (
                with("restart", &alloc::format!(r#"{ENDED},"deadline_ms":1,"abort_attempts":[129]"#)),
                "abort_attempts",
                "abort_attempts[0] (129) must be a whole number in 1..=128".into(),
            ),
            (
                with("succeeded", r#""attempts":1,"winner":1,"abort_attempts":[2.5]"#),
                "abort_attempts",
                "abort_attempts[0] (2.5) must be a whole number in 1..=128".into(),
            ),
            (
                with("succeeded", r#""attempts":1,"winner":1,"abort_attempts":["1"]"#),
                "abort_attempts",
                "abort_attempts[0] (the string \"1\") must be a whole number in 1..=128".into(),
            ),
            // A renamed field under both its names.
            (
                with("await_outcome", r#""running":1,"in_flight":1,"until_ms":1"#),
                "in_flight",
                "both `running` and its old name `in_flight` are given; keep `running` only".into(),
            ),
            (
                with(
                    "wait",
                    r#""retry":0,"delay_ms":1,"until_ms":1,"remaining_ms":1,"retry_after_ms":1,"server_delay_ms":1"#
                ),
                "server_delay_ms",
                "both `retry_after_ms` and its old name `server_delay_ms` are given; keep `retry_after_ms` only".into(),
            ),
        ];
        for (value, field, rule) in cases {
            match Decision::from_value(&value) {
                Err(Error::InvalidArgument { field: named, rule: said }) => {
                    assert_eq!((named, said.to_string()), (field, rule.clone()), "{value:?}");
                }
                other => panic!("{value:?}: expected the refusal `{field}`: {rule}, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_huge_key_or_value_is_echoed_as_an_excerpt() {
        let huge = "x".repeat(100_000);
        let key = Value::Object(alloc::vec![("type".into(), Value::string("restart")), (huge.clone(), Value::Null)]);
        let value = Value::Object(alloc::vec![("type".into(), Value::String(huge))]);
        for value in [key, value] {
            let error = Decision::from_value(&value).unwrap_err();
            assert!(error.to_string().len() < 1_000, "{} bytes", error.to_string().len());
        }
    }
}
