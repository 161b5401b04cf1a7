//! Where in JSON text a value is, as a field path: what names a number the
//! JSON parser itself refuses (`1e400`, beyond an `f64`), which no field
//! reader ever sees. A host that parses the text itself (JS's `JSON.parse`
//! reads it as `Infinity`) hands the reader that value, and the reader names
//! its field; this names the same field for text the core parses.

use alloc::string::String;
use alloc::vec::Vec;

use super::{item, join};
use crate::ground::text::EXCERPT_CHARS;

/// One open container of the text, outermost first.
enum Open {
    /// An object: the key of the member being read (from its `:` on), if any.
    Object { key: Option<String>, in_value: bool },
    /// A list: the index of the item being read.
    List { index: usize },
}

/// The field path (`retry_on.http_statuses[1]`, `""` at the top level) of
/// the value holding byte `at` of `text`, text that is valid JSON up to
/// there (the parser stopped at or after `at`). A key or a structural
/// character is read as the container's own path.
pub(super) fn path_at(text: &str, at: usize) -> String {
    let bytes = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut index = 0;
    while index <= at {
        let Some(&byte) = bytes.get(index) else { break };
        match byte {
            b'{' => open.push(Open::Object { key: None, in_value: false }),
            b'[' => open.push(Open::List { index: 0 }),
            b'}' | b']' => {
                open.pop();
            }
            b':' => {
                if let Some(Open::Object { in_value, .. }) = open.last_mut() {
                    *in_value = true;
                }
            }
            b',' => match open.last_mut() {
                Some(Open::Object { key, in_value }) => {
                    *key = None;
                    *in_value = false;
                }
                Some(Open::List { index }) => *index = index.saturating_add(1),
                None => {}
            },
            b'"' => {
                let end = string_end(bytes, index);
                if end >= at {
                    break;
                }
                if let Some(Open::Object { key, in_value: false }) = open.last_mut() {
                    // Valid JSON up to here, so the key decodes; its raw text otherwise.
                    let raw = text.get(index..=end).unwrap_or_default();
                    *key = Some(serde_json::from_str(raw).unwrap_or_else(|_| String::from(raw.trim_matches('"'))));
                }
                index = end;
            }
            byte if byte.is_ascii_whitespace() => {}
            // A number or a literal: a run up to the next delimiter.
            _ => {
                let mut end = index;
                while bytes.get(end.saturating_add(1)).is_some_and(|next| !b",:]} \t\r\n".contains(next)) {
                    end = end.saturating_add(1);
                }
                if end >= at {
                    break;
                }
                index = end;
            }
        }
        index = index.saturating_add(1);
    }
    let mut path = String::new();
    for container in &open {
        let inner = match container {
            // A key longer than any configuration's field name is none of them: the value is named by the object
            // holding it, as it would be were the key unknown.
            Open::Object { key: Some(key), in_value: true } if key.chars().count() <= EXCERPT_CHARS => join(&path, key),
            Open::Object { .. } => break,
            Open::List { index } => item(&path, *index),
        };
        // A path is bounded as every error's field is: deeper than that, the value is named by where it stops.
        if inner.len() > MAX_PATH_BYTES {
            break;
        }
        path = inner;
    }
    path
}

/// The longest path named (a configuration's own are a few dozen bytes).
const MAX_PATH_BYTES: usize = 256;

/// The index of the `"` closing the string that opens at `start` (the text's
/// last index when it is not closed).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut index = start.saturating_add(1);
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'\\' => index = index.saturating_add(2),
            b'"' => return index,
            _ => index = index.saturating_add(1),
        }
    }
    bytes.len().saturating_sub(1)
}

/// The byte index of `line` (1-based) and `column` (bytes into the line) as
/// serde_json reports a position: the byte after the last one it read.
pub(super) fn offset(text: &str, line: usize, column: usize) -> usize {
    let start = if line <= 1 {
        0
    } else {
        text.bytes()
            .enumerate()
            .filter(|(_, byte)| *byte == b'\n')
            .nth(line.saturating_sub(2))
            .map_or(text.len(), |(newline, _)| newline.saturating_add(1))
    };
    start.saturating_add(column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of the first `X` in `text` (the marker stands for the value).
    fn at_marker(text: &str) -> String {
        path_at(text, text.find('X').unwrap())
    }

    #[test]
    fn a_value_is_named_by_its_keys_and_indexes() {
        assert_eq!(at_marker(r#"{"retry_on": {"http_statuses": [500, X]}}"#), "retry_on.http_statuses[1]");
        assert_eq!(at_marker(r#"{"a": [1, {"b": 2}], "c": {"d": [[0], [1, X]]}}"#), "c.d[1][1]");
        assert_eq!(at_marker(r#"{"a, \"b\": [": {"c]": X}}"#), r#"a, "b": [.c]"#);
        assert_eq!(at_marker("{\n  \"backoff\" :\n  {\"cap_ms\":   X }\n}"), "backoff.cap_ms");
        assert_eq!(at_marker("X"), "");
        // A key, or an object between members, is the object's own path.
        assert_eq!(at_marker(r#"{"a": {"X": 1}}"#), "a");
        assert_eq!(at_marker(r#"{"a": {"b": 1, X}}"#), "a");
    }

    /// A key longer than any field name, or a path past its bound, stops the path there (the fuzzer's input: a
    /// 600-character key, a 667-byte field).
    #[test]
    fn a_path_is_bounded_and_takes_no_key_longer_than_a_field_name() {
        let long = "k".repeat(EXCERPT_CHARS + 1);
        assert_eq!(at_marker(&alloc::format!(r#"{{"a": {{"{long}": [X]}}}}"#)), "a");
        let name = "k".repeat(EXCERPT_CHARS);
        assert_eq!(at_marker(&alloc::format!(r#"{{"{name}": X}}"#)), name);
        let deep = alloc::format!("{}X{}", alloc::format!(r#"{{"{name}": "#).repeat(8), "}".repeat(8));
        let path = at_marker(&deep);
        assert!(path.len() <= MAX_PATH_BYTES && path.starts_with(&name), "{path}");
    }

    #[test]
    fn a_number_beyond_an_f64_is_named_at_its_field_and_bad_syntax_at_the_top_level() {
        use crate::config::error::Error;
        use crate::config::value::Value;
        let field = |text: &str| match Value::from_json(text) {
            Err(Error::InvalidConfig { field, .. }) => String::from(&*field),
            other => panic!("{other:?}"),
        };
        assert_eq!(field(r#"{"retry_on": {"http_statuses": [500, -1e400]}}"#), "retry_on.http_statuses[1]");
        assert_eq!(field("{\n  \"backoff\": {\n    \"cap_ms\": 1e999\n  }\n}"), "backoff.cap_ms");
        assert_eq!(
            field(&alloc::format!(r#"{{"jitter": {{"kind": "proportional", "ratio": 1{}}}}}"#, "0".repeat(400))),
            "jitter.ratio"
        );
        assert_eq!(field("[1e400]"), "[0]");
        assert_eq!(field("1e400"), "");
        assert_eq!(field(r#"{"retry_on": {"http_statuses": [500,]}}"#), "");
        assert_eq!(field(r#"{"backoff": {"cap_ms": }}"#), "");
    }

    #[test]
    fn a_position_is_the_byte_after_the_last_one_read() {
        let text = "{\n  \"a\": [1e400]\n}";
        assert_eq!(offset(text, 2, 13), text.find(']').unwrap());
        assert_eq!(offset(text, 1, 1), 1);
        assert_eq!(offset(text, 9, 0), text.len());
    }
}
