//! JavaScript: `bindings-js/lib/generated/decisions.js`, the decision record
//! (`retryplan::wire::encode_decision`) read back as the decision object
//! every language gives (the core's serde shape, keys in camelCase).
//!
//! Nothing of the mapping is written here: for each decision kind, a sample
//! decision (every number distinct) is both serialized (the keys, in the
//! core's order, and which of them are optional: absent when `None`) and
//! encoded (the words); each key is then found by its value among the
//! record's words. A request id is its field's `_high` and `_low` words, a
//! flag its `FLAG_` bit of `flags`, a give-up reason its index, a set of
//! attempts the four `aborts_` words. A key the record does not carry fails
//! the generation.

use retryplan::config::value::{camel_case, Named, Number, Value};
use retryplan::outcomes::decision::{AttemptSet, RequestId};
use retryplan::wire::{self, DecisionKind, DECISION_WORDS};
use retryplan::{Decision, GiveUpReason};

use crate::output::{Output, HEADER};

pub const DECISIONS: &str = "bindings-js/lib/generated/decisions.js";

/// A sample of each kind, with its `Option`s `Some` (`full`) or `None`, every number distinct.
fn sample(kind: DecisionKind, full: bool) -> Decision {
    let mut aborts = AttemptSet::EMPTY;
    aborts.insert(2);
    aborts.insert(70);
    let some = |value: u64| full.then_some(value);
    let reason = GiveUpReason::BodyNotReplayable;
    let id = RequestId(0x0000_0099_0000_0098);
    match kind {
        DecisionKind::StartAttempt => Decision::StartAttempt {
            attempt: 101,
            timeout_ms: 102,
            abort_at_ms: 103,
            request_id: id,
            remaining_ms: 104,
            hedge: true,
        },
        DecisionKind::Wait => {
            Decision::Wait { retry: 101, delay_ms: 102, until_ms: 103, retry_after_ms: some(104), remaining_ms: 105 }
        }
        DecisionKind::AwaitOutcome => Decision::AwaitOutcome { running: 101, until_ms: 102 },
        DecisionKind::Succeeded => Decision::Succeeded { attempts: 101, winner: 102, abort_attempts: aborts },
        DecisionKind::GaveUp => Decision::GaveUp {
            reason,
            attempts: 101,
            remaining_ms: 102,
            refused_delay_ms: some(103),
            abort_attempts: aborts,
        },
        DecisionKind::Reconcile => Decision::Reconcile { attempts: 101, remaining_ms: 102, abort_attempts: aborts },
        DecisionKind::Restart => {
            Decision::Restart { attempts: 101, deadline_ms: 102, remaining_ms: 103, abort_attempts: aborts }
        }
    }
}

/// Where the decision record carries one key of a decision, for each host to spell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Word {
    /// A number, in the word at this place.
    Number(usize),
    /// A flag: the `flags` word at this place, and its `FLAG_` bit (named).
    Flag { flags: usize, bit: i64, name: &'static str },
    /// A `GiveUpReason`: its number in the core's table, in this word.
    GiveUpReason(usize),
    /// A request id: its `_high` and `_low` words.
    RequestId { high: usize, low: usize },
    /// A set of attempts: the four `aborts_` words, in order.
    Attempts([usize; 4]),
}

/// Where the record carries `key` (whose sample value is `value`), found among the record's `words`.
fn locate(key: &str, value: &Value, words: &[i64; DECISION_WORDS]) -> Result<Word, String> {
    let found = |word: i64| -> Result<usize, String> {
        let mut places = words.iter().enumerate().filter(|(_, w)| **w == word).map(|(at, _)| at);
        match (places.next(), places.next()) {
            (Some(at), None) => Ok(at),
            _ => Err(format!("{key}: {word} is not in exactly one word of the record")),
        }
    };
    match value {
        Value::Number(Number::Unsigned(number)) => {
            Ok(Word::Number(found(i64::try_from(*number).map_err(|e| e.to_string())?)?))
        }
        Value::Bool(true) => {
            let (bit, name) = match key {
                "hedge" => (wire::FLAG_HEDGE, "FLAG_HEDGE"),
                other => return Err(format!("{other}: no FLAG_ bit for this flag")),
            };
            let flags = at("flags")?;
            if words[flags] & bit == 0 {
                return Err(format!("{key}: its bit is not set in flags"));
            }
            Ok(Word::Flag { flags, bit, name })
        }
        Value::String(text) if GiveUpReason::from_name(text).is_some() => {
            let index = GiveUpReason::ALL.iter().position(|reason| reason.name() == text).unwrap_or(0);
            Ok(Word::GiveUpReason(found(index as i64)?))
        }
        Value::String(text) => {
            let (high, low) = (at(&format!("{key}_high"))?, at(&format!("{key}_low"))?);
            if format!("{:08x}{:08x}", words[high], words[low]) != *text {
                return Err(format!("{key}: {text} is not its _high and _low words"));
            }
            Ok(Word::RequestId { high, low })
        }
        Value::List(_) => {
            let aborts: Vec<usize> = wire::decision::FIELDS
                .iter()
                .filter(|(name, _)| name.starts_with("aborts_"))
                .map(|(_, at)| *at)
                .collect();
            let aborts: [usize; 4] = aborts.try_into().map_err(|_| format!("{key}: not the four aborts_ words"))?;
            if words[at("aborts_1")?] != 0b10 || words[at("aborts_65")?] != 1 << 5 {
                return Err(format!("{key}: not the four aborts_ words"));
            }
            Ok(Word::Attempts(aborts))
        }
        other => Err(format!("{key}: no word for {other:?}")),
    }
}

/// The JS expression reading a key carried at `word` from the record `w`.
fn expression(word: Word) -> String {
    match word {
        Word::Number(at) => format!("w[{at}]"),
        Word::Flag { flags, bit, name } => format!("(w[{flags}] & {bit}) !== 0 /* {name} */"),
        Word::GiveUpReason(at) => format!("GIVE_UP_REASONS[w[{at}]]"),
        Word::RequestId { high, low } => format!("requestIdText(w[{high}], w[{low}])"),
        Word::Attempts(aborts) => {
            format!("attemptList({})", aborts.map(|at| format!("w[{at}]")).join(", "))
        }
    }
}

/// Each key of a decision kind with its word(s), and the place of its optional key: [`layout`].
pub(crate) type Layout = (Vec<(String, Word)>, Option<usize>);

/// How the decision record carries a decision of `kind`: each key the core
/// serializes (its serde name, in the core's order) with its word(s), and
/// the place among them of the one optional key (absent when `None`), if any.
pub(crate) fn layout(kind: DecisionKind) -> Result<Layout, String> {
    let full = sample(kind, true);
    let mut words = [wire::NONE; DECISION_WORDS];
    wire::encode_decision(&full, &mut words);
    let present: Vec<String> = fields(&sample(kind, false))?.into_iter().map(|(key, _)| key).collect();
    let (mut keys, mut optional) = (Vec::new(), None);
    for (key, value) in fields(&full)? {
        let word = locate(&key, &value, &words)?;
        if !present.contains(&key) && !matches!(value, Value::List(_)) {
            if optional.is_some() {
                return Err(format!("{}: more than one optional field", kind.name()));
            }
            optional = Some(keys.len());
        }
        keys.push((key, word));
    }
    Ok((keys, optional))
}

/// The record's word position of the field named `name`.
pub(crate) fn at(name: &str) -> Result<usize, String> {
    wire::decision::FIELDS.iter().find(|(field, _)| *field == name).map(|(_, at)| *at).ok_or(format!("no field {name}"))
}

/// The keys and values of a decision as the core serializes it (without its `type`).
fn fields(decision: &Decision) -> Result<Vec<(String, Value)>, String> {
    match Value::from_serialize(decision).map_err(|e| format!("{e:?}"))? {
        Value::Object(fields) => Ok(fields.into_iter().filter(|(key, _)| key != "type").collect()),
        other => Err(format!("a decision serialized as {other:?}")),
    }
}

/// An object literal of `entries`, indented by `indent`.
fn literal(entries: &[String], indent: &str) -> String {
    format!("{{\n{}{indent}}}", entries.iter().map(|entry| format!("{indent}  {entry},\n")).collect::<String>())
}

pub fn output() -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n\
         // The decision record (retryplan::wire::encode_decision) as the decision object of\n\
         // every language: the core's keys in its order (camelCase), `abortAttempts` always\n\
         // an array. lib/records.js reads the wasm's record through it.\n\
         import {{ attemptList, requestIdText }} from '../words.js';\n\
         import {{ NAMES }} from './wire.js';\n\n\
         /** `GiveUpReason`s by their number. */\n\
         const GIVE_UP_REASONS = NAMES.giveUpReasons;\n\n\
         /** The decision the decision record `w` (its words) holds. */\n\
         export function decisionOf(w) {{\n  switch (w[{kind}]) {{\n",
        kind = at("decision_kind")?
    );
    for (index, kind) in DecisionKind::ALL.iter().enumerate() {
        let (keys, optional) = layout(*kind)?;
        let mut entries = vec![format!("type: '{}'", kind.name())];
        entries.extend(keys.iter().map(|(key, word)| format!("{}: {}", camel_case(key), expression(*word))));
        // The optional key's entry follows `type`.
        let optional = optional.and_then(|place| Some((place + 1, expression(keys.get(place)?.1))));
        text.push_str(&format!("    case {index}: // {}\n", kind.name()));
        match optional {
            None => text.push_str(&format!("      return {};\n", literal(&entries, "      "))),
            Some((place, read)) => {
                let mut without = entries.clone();
                without.remove(place);
                text.push_str(&format!(
                    "      return {read} === {} // NONE\n        ? {}\n        : {};\n",
                    wire::NONE,
                    literal(&without, "        "),
                    literal(&entries, "        ")
                ));
            }
        }
    }
    // A kind this host does not know: the wasm is of another version than the JS.
    text.push_str(&format!(
        "    default:\n      throw new Error(`retryplan: the wasm sent decision kind ${{w[{}]}}, which this host does not know: \
         reinstall the package`);\n  }}\n}}\n",
        at("decision_kind")?
    ));
    Ok(Output { path: DECISIONS, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind is a case, and every key the core serializes for it is read, optional ones with and without.
    #[test]
    fn every_kind_and_key_of_the_core_is_read() {
        let text = output().unwrap().text;
        for (index, kind) in DecisionKind::ALL.iter().enumerate() {
            let case = format!("    case {index}: // {}\n", kind.name());
            let start = text.find(&case).unwrap_or_else(|| panic!("{case}"));
            let body = &text[start
                ..text[start + case.len()..].find("    case ").map_or(text.len(), |end| start + case.len() + end)];
            for (key, _) in fields(&sample(*kind, true)).unwrap() {
                assert!(body.contains(&format!("  {}: ", camel_case(&key))), "{key} in {body}");
            }
        }
        assert!(text.contains("? {\n          type: 'wait',"), "{text}");
    }
}
