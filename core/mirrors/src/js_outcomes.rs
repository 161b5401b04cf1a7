//! JavaScript: `bindings-js/lib/generated/outcomes.js`, the outcome words
//! (`retryplan::wire::encode_outcome`) read back as the outcome object every
//! language gives, and a driver's finish and events (`Ending`, `Event`, their
//! `AttemptResult`) read from the decision record and a last result written
//! after it, as the wasm writes them (`bindings-js/src/wire.rs`).
//!
//! Nothing of the shapes is written here: each outcome kind's sample (every
//! number distinct, every `Option` `Some`) is both serialized (its keys in the
//! core's order; optional ones are those absent from the sample with `None`s)
//! and encoded (its words); each key is found by its value among the words
//! (a name by its place in its table, a pushback by the delay word), an
//! `error_code` (text, not on the wire) from its own argument. The finish's
//! and event's keys are read the same way from samples of the core's structs,
//! and each other action's from its sample's output record (`encode_action`):
//! a number by its word, a name by its table, the request id by its two
//! halves, a flag by the bit that a sample without it clears.

use retryplan::config::value::{camel_case, Named, Number, Value};
use retryplan::dialects::aws::ErrorCode;
use retryplan::driver::{AbortReason, AttemptPlan};
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::outcomes::decision::AttemptSet;
use retryplan::outcomes::decision::RequestId;
use retryplan::wire::{
    self, encode_action, encode_outcome, ActionKind, OutcomeKind, DECISION_WORDS, NONE, OUTPUT_WORDS,
    PUSHBACK_DO_NOT_RETRY,
};
use retryplan::{Action, AttemptResult, Decision, Ending, EndingResult, Event, Failure, Held, Outcome, Verdict};

use crate::output::{Output, HEADER};

pub const OUTCOMES: &str = "bindings-js/lib/generated/outcomes.js";

/// Where the binding writes a last result after the decision record: its
/// attempt (-1 for none), then its outcome's three words, then an event's time.
const RESULT_AT: usize = DECISION_WORDS;
const AT_MS_AT: usize = RESULT_AT + 4;

/// A sample outcome of `kind`, its options `Some` (`full`) or `None`; none for `failure`, never written.
fn sample(kind: OutcomeKind, full: bool) -> Result<Option<Outcome>, String> {
    let some = |value: u64| full.then_some(value);
    Ok(Some(match kind {
        OutcomeKind::Success => Outcome::Success,
        OutcomeKind::HttpStatus => {
            let code = ErrorCode::new("Throttling").map_err(|e| format!("{e:?}"))?;
            Outcome::HttpStatus { status: 503, retry_after_ms: some(104), error_code: full.then_some(code) }
        }
        OutcomeKind::GrpcStatus => {
            Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: some(104).map(Pushback::RetryAfterMs) }
        }
        OutcomeKind::Transport => Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: some(104) },
        OutcomeKind::Application => Outcome::Application { verdict: Verdict::ALL[Verdict::ALL.len() - 1] },
        OutcomeKind::Cancelled => Outcome::Cancelled,
        OutcomeKind::Failure => return Ok(None),
    }))
}

/// The keys and values of `value` serialized (without a `type`).
fn fields(value: Result<Value, retryplan::Error>) -> Result<Vec<(String, Value)>, String> {
    match value.map_err(|e| format!("{e:?}"))? {
        Value::Object(fields) => Ok(fields.into_iter().filter(|(key, _)| key != "type").collect()),
        other => Err(format!("serialized as {other:?}, not an object")),
    }
}

/// The JS name table whose member `name` is at `code`, by the tables an outcome's code indexes.
fn table_of(name: &str, code: i64) -> Option<&'static str> {
    let at = usize::try_from(code).ok()?;
    let number = u32::try_from(code).ok()?;
    if GrpcCode::from_number(number).map(GrpcCode::name) == Some(name) {
        Some("GRPC_CODES")
    } else if TransportFailure::ALL.get(at).map(|failure| failure.name()) == Some(name) {
        Some("TRANSPORT_FAILURES")
    } else if Verdict::ALL.get(at).map(|verdict| verdict.name()) == Some(name) {
        Some("VERDICTS")
    } else {
        None
    }
}

/// The JS expression of `key` (sample value `value`) from the words `[kind, code, delay]`
/// (`code`, `delay` in JS), and the condition it is present under when it is optional.
fn expression(key: &str, value: &Value, words: [i64; 3], optional: bool) -> Result<(String, String), String> {
    let [_, code, delay] = words;
    let number = |value: &Value| match value {
        Value::Number(Number::Unsigned(n)) => i64::try_from(*n).ok(),
        _ => None,
    };
    let read = match value {
        _ if key == "error_code" => return Ok((String::from("errorCode"), String::from("errorCode !== undefined"))),
        Value::String(name) => {
            let table = table_of(name, code).ok_or(format!("{key}: {name} is no name at its code {code}"))?;
            format!("{table}[code]")
        }
        Value::Object(inner)
            if inner.len() == 1 && inner[0].0 == "retry_after_ms" && number(&inner[0].1) == Some(delay) =>
        {
            match Value::from_serialize(&Pushback::DoNotRetry) {
                Ok(Value::String(text)) => {
                    format!("delay === {PUSHBACK_DO_NOT_RETRY} ? '{text}' : {{ {}: delay }}", camel_case(&inner[0].0))
                }
                _ => return Err(format!("{key}: `do_not_retry` is not serialized as a name")),
            }
        }
        other if number(other) == Some(code) && code != delay => String::from("code"),
        other if number(other) == Some(delay) => String::from("delay"),
        other => return Err(format!("{key}: {other:?} is in no word of {words:?}")),
    };
    let condition = if !optional {
        String::new()
    } else if read.contains("delay") {
        format!("delay !== {NONE}")
    } else {
        return Err(format!("{key}: optional, but not read from the delay word"));
    };
    Ok((read, condition))
}

/// `const name = {required};` then `if (condition) name.key = read;` for each optional entry, in order.
fn build(name: &str, entries: &[(String, String, String)], indent: &str) -> Result<String, String> {
    let required: Vec<String> =
        entries.iter().filter(|(_, _, when)| when.is_empty()).map(|(key, read, _)| format!("{key}: {read}")).collect();
    let first_optional = entries.iter().position(|(_, _, when)| !when.is_empty()).unwrap_or(entries.len());
    if entries[first_optional..].iter().any(|(_, _, when)| when.is_empty()) {
        return Err(format!("{name}: a required key after an optional one"));
    }
    let mut text = format!("{indent}const {name} = {{ {} }};\n", required.join(", "));
    for (key, read, when) in &entries[first_optional..] {
        text.push_str(&format!("{indent}if ({when}) {name}.{key} = {read};\n"));
    }
    Ok(text)
}

/// Keys of a struct's sample with its options `Some` (`full`) and `None` (`bare`): (camelCase key, optional).
fn keys(
    full: Result<Value, retryplan::Error>,
    bare: Result<Value, retryplan::Error>,
) -> Result<Vec<(String, String, bool)>, String> {
    let present: Vec<String> = fields(bare)?.into_iter().map(|(key, _)| key).collect();
    Ok(fields(full)?.into_iter().map(|(key, _)| (key.clone(), camel_case(&key), !present.contains(&key))).collect())
}

/// The entries of a struct from `read` (snake_case key to its expression and its condition when optional).
fn entries(
    keys: Vec<(String, String, bool)>,
    read: impl Fn(&str) -> Option<(&'static str, &'static str)>,
) -> Result<Vec<(String, String, String)>, String> {
    keys.into_iter()
        .map(|(key, camel, optional)| {
            let (expression, when) = read(&key).ok_or(format!("{key}: no reading of it"))?;
            if optional == when.is_empty() {
                return Err(format!("{key}: optional is {optional}, its reading says otherwise"));
            }
            Ok((camel, String::from(expression), String::from(when)))
        })
        .collect()
}

fn outcome_function() -> Result<String, String> {
    let mut text = String::from(
        "/** The outcome its words hold (`encode_outcome`'s), and an `http_status`'s `errorCode` (text: not a word). */\n\
         export function outcomeOf(kind, code, delay, errorCode) {\n  switch (kind) {\n",
    );
    for kind in OutcomeKind::ALL {
        let (Some(full), Some(bare)) = (sample(*kind, true)?, sample(*kind, false)?) else { continue };
        let words = encode_outcome(&full);
        if words[0] != kind.word() {
            return Err(format!("{}: written as kind {}", kind.name(), words[0]));
        }
        let present: Vec<String> = fields(Value::from_serialize(&bare))?.into_iter().map(|(key, _)| key).collect();
        let mut list = vec![(String::from("type"), format!("'{}'", kind.name()), String::new())];
        for (key, value) in fields(Value::from_serialize(&full))? {
            let (read, when) = expression(&key, &value, words, !present.contains(&key))?;
            list.push((camel_case(&key), read, when));
        }
        text.push_str(&format!("    case {}: {{ // {}\n", kind.word(), kind.name()));
        text.push_str(&build("outcome", &list, "      ")?);
        text.push_str("      return outcome;\n    }\n");
    }
    text.push_str(
        "    default:\n      throw new Error(`retryplan: the wasm sent outcome kind ${kind}, which this host does not \
         know: reinstall the package`);\n  }\n}\n",
    );
    Ok(text)
}

/// Each action but the finish, every number distinct, its flags set; then
/// samples that each clear one flag (read by [`flag_bit`]).
fn action_samples() -> [Action; 6] {
    let plan = AttemptPlan {
        attempt: 101,
        timeout_ms: 102,
        abort_at_ms: 103,
        request_id: RequestId(104 << 32 | 105),
        remaining_ms: 106,
        hedge: true,
        send_idempotency_key: true,
    };
    [
        Action::StartAttempt(plan),
        Action::AbortAttempt { attempt: 101, reason: AbortReason::ALL[AbortReason::ALL.len() - 1] },
        Action::Sleep { until_ms: 102 },
        Action::Release { token: 103 },
        Action::StartAttempt(AttemptPlan { hedge: false, ..plan }),
        Action::StartAttempt(AttemptPlan { send_idempotency_key: false, ..plan }),
    ]
}

/// The output record `encode_action` writes for `action`.
fn action_words(action: &Action) -> [i64; OUTPUT_WORDS] {
    let (mut out, mut decision) = ([NONE; OUTPUT_WORDS], [NONE; DECISION_WORDS]);
    encode_action(action, &mut out, &mut decision);
    out
}

/// The word and bit that flag `key` of `action` sets: what a sample without it (of the same kind) clears.
fn flag_bit(action: &Action, key: &str) -> Result<(usize, i64), String> {
    let set = action_words(action);
    let samples = action_samples();
    let cleared = samples
        .iter()
        .filter(|other| other.kind() == action.kind())
        .find(|other| {
            fields(Value::from_serialize(other))
                .is_ok_and(|fields| fields.iter().any(|(name, value)| name == key && *value == Value::Bool(false)))
        })
        .ok_or(format!("{key}: no sample clears it"))?;
    let cleared = action_words(cleared);
    let differs: Vec<usize> = (0..OUTPUT_WORDS).filter(|at| set[*at] != cleared[*at]).collect();
    match differs[..] {
        [at] if (set[at] - cleared[at]).count_ones() == 1 => Ok((at, set[at] - cleared[at])),
        _ => Err(format!("{key}: clearing it changes words {differs:?}")),
    }
}

/// The JS expression of `key` (sample value `value`) of `action` read from its output record `out`.
fn action_expression(action: &Action, key: &str, value: &Value) -> Result<String, String> {
    let out = action_words(action);
    let kind_at = wire::output::ACTION_KIND;
    let word_of = |number: i64| {
        let found: Vec<usize> = (0..OUTPUT_WORDS).filter(|at| *at != kind_at && out[*at] == number).collect();
        match found[..] {
            [at] => Ok(at),
            _ => Err(format!("{key}: {number} is in words {found:?}, not one")),
        }
    };
    Ok(match value {
        Value::Bool(true) => {
            let (at, bit) = flag_bit(action, key)?;
            format!("(out[{at}] & {bit}) !== 0")
        }
        Value::Number(Number::Unsigned(number)) => {
            format!("out[{}]", word_of(i64::try_from(*number).map_err(|e| format!("{key}: {e}"))?)?)
        }
        Value::String(text) => match action {
            Action::StartAttempt(plan) if *text == plan.request_id.to_string() => {
                let id = plan.request_id.0;
                format!(
                    "requestIdText(out[{}], out[{}])",
                    word_of((id >> 32) as i64)?,
                    word_of((id & 0xffff_ffff) as i64)?
                )
            }
            _ => {
                let index = AbortReason::ALL.iter().position(|reason| reason.name() == text);
                let index = index.ok_or(format!("{key}: {text} is no abort reason"))?;
                format!("NAMES.abortReasons[out[{}]]", word_of(index as i64)?)
            }
        },
        other => return Err(format!("{key}: {other:?} is read from no word")),
    })
}

/// `actionOf`: each action but the finish, spelt from its output record.
fn action_function() -> Result<String, String> {
    let mut text = String::from(
        "/** A driver's action other than a finish, from its output record `out`. */\n\
         export function actionOf(out) {\n  switch (out[KIND]) {\n",
    );
    for kind in ActionKind::ALL.iter().filter(|kind| **kind != ActionKind::Finish) {
        let samples = action_samples();
        let action = samples.iter().find(|action| action.kind() == *kind).ok_or(format!("{kind:?}: no sample"))?;
        let mut list = vec![(String::from("type"), format!("'{}'", kind.name()), String::new())];
        for (key, value) in fields(Value::from_serialize(action))? {
            list.push((camel_case(&key), action_expression(action, &key, &value)?, String::new()));
        }
        text.push_str(&format!("    case {}: {{ // {}\n", kind.word(), kind.name()));
        text.push_str(&build("action", &list, "      ")?);
        text.push_str("      return action;\n    }\n");
    }
    text.push_str(
        "    default:\n      throw new Error(`retryplan: the wasm sent action kind ${out[KIND]}, which this host does \
         not spell: reinstall the package`);\n  }\n}\n",
    );
    Ok(text)
}

/// Array items, one line of at most about 100 characters each, indented (the array's brackets around them).
fn wrapped(items: &[String]) -> String {
    let mut lines = vec![String::new()];
    for item in items {
        let line = lines.last_mut().filter(|line| line.len() + item.len() < 96);
        match line {
            Some(line) => line.push_str(&format!(" {item},")),
            None => lines.push(format!(" {item},")),
        }
    }
    lines.into_iter().filter(|line| !line.is_empty()).map(|line| format!("\n {line}")).collect::<String>() + "\n"
}

pub fn output() -> Result<Output, String> {
    let grpc: Vec<String> =
        (0..=16).map_while(GrpcCode::from_number).map(|code| format!("'{}'", code.name())).collect();
    if grpc.len() != 17 {
        return Err(String::from("the gRPC codes are not numbered 0..=16"));
    }
    let failures: Vec<String> = Failure::ALL
        .iter()
        .map(|failure| {
            format!(
                "  [{}], // {}\n",
                encode_outcome(&failure.outcome()).map(|w| w.to_string()).join(", "),
                failure.name()
            )
        })
        .collect();
    let result = AttemptResult { attempt: 3, outcome: Outcome::Success };
    let ending = |full: bool| Ending {
        decision: Decision::Reconcile { attempts: 3, remaining_ms: 0, abort_attempts: AttemptSet::EMPTY },
        last_result: full.then_some(result),
        result: full.then_some(EndingResult { token: 4, returned: true, readable_until_ms: None, held: Held::Value }),
        malformed_status: None,
    };
    let event = |full: bool| Event { at_ms: 5, decision: ending(false).decision, after: full.then_some(result) };
    let result_keys = keys(Value::from_serialize(&result), Value::from_serialize(&result))?;
    let result_entries = entries(result_keys, |key| match key {
        "attempt" => Some(("w[ATTEMPT]", "")),
        "outcome" => Some(("outcomeOf(w[ATTEMPT + 1], w[ATTEMPT + 2], w[ATTEMPT + 3], errorCode)", "")),
        _ => None,
    })?;
    let token = wire::output::TOKEN;
    let finish_entries =
        entries(keys(Value::from_serialize(&ending(true)), Value::from_serialize(&ending(false)))?, |key| match key {
            "decision" => Some(("decisionOf(w)", "")),
            "last_result" => Some(("resultOf(w, errorCode)", "w[ATTEMPT] !== -1")),
            "result" => Some(("endingResultOf(out)", "out[TOKEN] !== -1")),
            _ => None,
        })?;
    let result_fields = keys(
        Value::from_serialize(&EndingResult {
            token: 4,
            returned: true,
            readable_until_ms: Some(5),
            held: Held::Value,
        }),
        Value::from_serialize(&EndingResult { token: 4, returned: false, readable_until_ms: None, held: Held::Error }),
    )?;
    if result_fields.iter().map(|(_, camel, _)| camel.as_str()).collect::<Vec<_>>()
        != ["token", "returned", "readableUntilMs"]
    {
        return Err(format!("EndingResult's keys are {result_fields:?}"));
    }
    let event_entries =
        entries(keys(Value::from_serialize(&event(true)), Value::from_serialize(&event(false)))?, |key| match key {
            "at_ms" => Some(("w[AT_MS]", "")),
            "decision" => Some(("decisionOf(w)", "")),
            "after" => Some(("resultOf(w, errorCode)", "w[ATTEMPT] !== -1")),
            _ => None,
        })?;
    let mut finish = vec![(String::from("type"), String::from("'finish'"), String::new())];
    finish.extend(finish_entries);
    Ok(Output {
        path: OUTCOMES,
        text: format!(
            "// {HEADER}\n\
             // The outcome words (retryplan::wire::encode_outcome) as the outcome object of every\n\
             // language, and a driver's finish and events read from the decision record and the\n\
             // last result the wasm writes after it (src/wire.rs), and its other actions from the\n\
             // output record, keys in the core's order.\n\
             import {{ requestIdText }} from '../words.js';\n\
             import {{ decisionOf }} from './decisions.js';\n\
             import {{ NAMES }} from './wire.js';\n\n\
             /** gRPC codes by number. */\n\
             const GRPC_CODES = [{}];\n\
             /** `TransportFailure`s and `Verdict`s by their number: the wire's tables. */\n\
             const {{ transportFailures: TRANSPORT_FAILURES, verdicts: VERDICTS }} = NAMES;\n\n\
             /** The outcome words of each failure of the vocabulary (`Failure::ALL` order). */\n\
             export const FAILURE_OUTCOMES = [\n{}];\n\n\
             {}\n\
             /** Where the last result lies after the decision record: its attempt (-1: none), its outcome's words. */\n\
             export const ATTEMPT = {RESULT_AT};\n\
             /** Where an event's time lies. */\n\
             const AT_MS = {AT_MS_AT};\n\
             /** The output record's `token` and `ending` words, and the `ending` bit of a result returned. */\n\
             const [TOKEN, ENDING, ENDING_RETURNS] = [{token}, {}, {}];\n\
             /** The output record's word a finish writes its returned value's readable-until time in. */\n\
             const READABLE_UNTIL_MS = {};\n\
             /** The output record's action kind. */\n\
             const KIND = {};\n\n\
             {}\n\
             /** The attempt result the record `w` holds after its decision. */\n\
             export function resultOf(w, errorCode) {{\n{}  return result;\n}}\n\n\
             /** A finish's result (`Ending::result`), from its output record `out`. */\n\
             function endingResultOf(out) {{\n  \
             const result = {{ token: out[TOKEN], returned: (out[ENDING] & ENDING_RETURNS) !== 0 }};\n  \
             if (out[READABLE_UNTIL_MS] !== -1) result.readableUntilMs = out[READABLE_UNTIL_MS];\n  \
             return result;\n}}\n\n\
             /** A driver's finish: its output record `out`, and the record `w` of its decision and last result. */\n\
             export function finishOf(out, w, errorCode) {{\n{}  return action;\n}}\n\n\
             /** A driver's event: the record `w` of its decision, the result it followed, and its time. */\n\
             export function eventOf(w, errorCode) {{\n{}  return event;\n}}\n",
            wrapped(&grpc),
            failures.concat(),
            outcome_function()?,
            wire::output::ENDING,
            wire::ENDING_RETURNS,
            wire::output::ABORT_AT_MS,
            wire::output::ACTION_KIND,
            action_function()?,
            build("result", &result_entries, "  ")?,
            build("action", &finish, "  ")?,
            build("event", &event_entries, "  ")?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every outcome kind the core writes is a case reading each of its keys; the failures' words are the core's.
    #[test]
    fn every_outcome_kind_and_key_is_read() {
        let text = output().unwrap().text;
        for kind in OutcomeKind::ALL.iter().filter(|kind| **kind != OutcomeKind::Failure) {
            assert!(text.contains(&format!("case {}: {{ // {}", kind.word(), kind.name())), "{kind:?}");
        }
        assert!(text.contains("if (delay !== -1) outcome.retryAfterMs = delay;"), "{text}");
        assert!(text.contains("pushback = delay === -2 ? 'do_not_retry' : { retryAfterMs: delay };"), "{text}");
        assert!(text.contains("if (errorCode !== undefined) outcome.errorCode = errorCode;"), "{text}");
        assert!(text.contains("const action = { type: 'finish', decision: decisionOf(w) };"), "{text}");
        assert!(!text.contains("case 4: {"), "failure is never written");
    }

    /// Every action but the finish is a case of `actionOf`, each key read from the word `encode_action` writes it in.
    #[test]
    fn every_action_but_the_finish_is_spelt_from_its_output_record() {
        let text = output().unwrap().text;
        for kind in ActionKind::ALL.iter().filter(|kind| **kind != ActionKind::Finish) {
            assert!(text.contains(&format!("case {}: {{ // {}", kind.word(), kind.name())), "{kind:?}");
        }
        let (id_high, id_low) = (wire::output::REQUEST_ID_HIGH, wire::output::REQUEST_ID_LOW);
        assert!(text.contains(&format!("requestId: requestIdText(out[{id_high}], out[{id_low}])")), "{text}");
        let flags = wire::output::FLAGS;
        assert!(text.contains(&format!("hedge: (out[{flags}] & {}) !== 0", wire::FLAG_HEDGE)), "{text}");
        let key = wire::FLAG_SEND_IDEMPOTENCY_KEY;
        assert!(text.contains(&format!("sendIdempotencyKey: (out[{flags}] & {key}) !== 0")), "{text}");
        let reason = wire::output::REASON;
        assert!(text.contains(&format!("reason: NAMES.abortReasons[out[{reason}]]")), "{text}");
        assert!(text.contains(&format!("untilMs: out[{}]", wire::output::UNTIL_MS)), "{text}");
        assert!(text.contains(&format!("token: out[{}]", wire::output::TOKEN)), "{text}");
    }
}
