//! Structured Field Values (RFC 9651, which obsoletes RFC 8941): the List
//! parser, as the RateLimit fields need it.
//!
//! A List is members separated by commas with optional whitespace; a member
//! is an Item (a bare item with `;key=value` parameters) or an Inner List
//! (`(a b);p`). Several field lines of a List field are joined with `", "`
//! before parsing (RFC 9651 section 4.2, RFC 9110 section 5.3). Any syntax
//! error fails the whole field, as the RFC requires; a failure carries no
//! detail because callers ignore a malformed field as a whole.

use alloc::string::String;
use alloc::vec::Vec;

/// A bare item.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum BareItem {
    /// `-?[0-9]{1,15}`.
    Integer(i64),
    /// `-?[0-9]{1,12}\.[0-9]{1,3}`, kept as thousandths.
    Decimal(i64),
    /// A quoted string, unescaped.
    String(String),
    /// A token (`*` or a letter, then token characters, `:` and `/`).
    Token(String),
    /// `:base64:`; the bytes are not needed, only that they were well formed.
    ByteSequence,
    /// `?0` or `?1`.
    Boolean(bool),
    /// `@` and an integer (RFC 9651).
    Date(i64),
    /// `%"..."` with percent-encoded UTF-8 (RFC 9651).
    DisplayString(String),
}

/// A bare item or inner list with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    /// The item, or `None` for an inner list (its contents are not needed).
    pub(crate) item: Option<BareItem>,
    /// Parameters in order of first appearance; a repeated key keeps its last value.
    pub(crate) parameters: Vec<(String, BareItem)>,
}

impl Member {
    /// The value of parameter `key`, if present.
    pub(crate) fn parameter(&self, key: &str) -> Option<&BareItem> {
        self.parameters.iter().find(|(name, _)| name == key).map(|(_, value)| value)
    }
}

/// Why parsing stopped; no detail is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Invalid;

type Parsed<T> = Result<T, Invalid>;

struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let matched = self.peek() == Some(byte);
        if matched {
            self.at += 1;
        }
        matched
    }

    fn skip_sp(&mut self) {
        while self.eat(b' ') {}
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }
}

/// The most members a List may have: RFC 9651's minimum a parser must
/// support (section 3.1), and the most read, so that a reader looking up
/// members of one list in another stays linear in the field's length.
pub(crate) const MAX_LIST_MEMBERS: usize = 1024;

/// The most parameters one item may have: RFC 9651's minimum a parser must
/// support (section 3.1.2), and the most read, so that finding a repeated key
/// among them (a scan per key) stays linear in the field's length.
pub(crate) const MAX_PARAMETERS: usize = 256;

/// Parses a List field value (all field lines joined with `", "`). A list of
/// more than [`MAX_LIST_MEMBERS`] members, or an item of more than
/// [`MAX_PARAMETERS`] parameters, does not parse (RFC 9651 asks parsers to
/// support at least those; a field past them fails as any malformed one).
pub(crate) fn parse_list(value: &str) -> Parsed<Vec<Member>> {
    let mut input = Input { bytes: value.as_bytes(), at: 0 };
    input.skip_sp();
    let mut members = Vec::new();
    while !input.is_empty() {
        if members.len() == MAX_LIST_MEMBERS {
            return Err(Invalid);
        }
        members.push(member(&mut input)?);
        input.skip_ows();
        if input.is_empty() {
            break;
        }
        if !input.eat(b',') {
            return Err(Invalid);
        }
        input.skip_ows();
        if input.is_empty() {
            return Err(Invalid);
        }
    }
    Ok(members)
}

fn member(input: &mut Input<'_>) -> Parsed<Member> {
    let item = if input.eat(b'(') {
        loop {
            input.skip_sp();
            if input.eat(b')') {
                break;
            }
            bare_item(input)?;
            parameters(input)?;
            if !matches!(input.peek(), Some(b' ' | b')')) {
                return Err(Invalid);
            }
        }
        None
    } else {
        Some(bare_item(input)?)
    };
    Ok(Member { item, parameters: parameters(input)? })
}

fn parameters(input: &mut Input<'_>) -> Parsed<Vec<(String, BareItem)>> {
    let mut parameters: Vec<(String, BareItem)> = Vec::new();
    while input.eat(b';') {
        input.skip_sp();
        let name = key(input)?;
        let value = if input.eat(b'=') { bare_item(input)? } else { BareItem::Boolean(true) };
        let full = parameters.len() == MAX_PARAMETERS;
        match parameters.iter_mut().find(|(existing, _)| *existing == name) {
            Some(slot) => slot.1 = value,
            None if full => return Err(Invalid),
            None => parameters.push((name, value)),
        }
    }
    Ok(parameters)
}

fn key(input: &mut Input<'_>) -> Parsed<String> {
    let mut name = String::new();
    match input.next() {
        Some(first @ (b'a'..=b'z' | b'*')) => name.push(char::from(first)),
        _ => return Err(Invalid),
    }
    while let Some(byte @ (b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*')) = input.peek() {
        name.push(char::from(byte));
        input.at += 1;
    }
    Ok(name)
}

fn bare_item(input: &mut Input<'_>) -> Parsed<BareItem> {
    match input.peek() {
        Some(b'-' | b'0'..=b'9') => number(input),
        Some(b'"') => string(input).map(BareItem::String),
        Some(b':') => byte_sequence(input),
        Some(b'?') => {
            input.at += 1;
            match input.next() {
                Some(b'0') => Ok(BareItem::Boolean(false)),
                Some(b'1') => Ok(BareItem::Boolean(true)),
                _ => Err(Invalid),
            }
        }
        Some(b'@') => {
            input.at += 1;
            match number(input)? {
                BareItem::Integer(seconds) => Ok(BareItem::Date(seconds)),
                _ => Err(Invalid),
            }
        }
        Some(b'%') => display_string(input),
        Some(b'a'..=b'z' | b'A'..=b'Z' | b'*') => Ok(BareItem::Token(token(input))),
        _ => Err(Invalid),
    }
}

/// Reads ASCII digits into `(value, count)`, failing past `max` digits.
fn digits(input: &mut Input<'_>, max: u32) -> Parsed<(i64, u32)> {
    let (mut value, mut count) = (0i64, 0u32);
    while let Some(byte @ b'0'..=b'9') = input.peek() {
        input.at += 1;
        count += 1;
        if count > max {
            return Err(Invalid);
        }
        value = value * 10 + i64::from(byte - b'0');
    }
    Ok((value, count))
}

fn number(input: &mut Input<'_>) -> Parsed<BareItem> {
    let sign = if input.eat(b'-') { -1 } else { 1 };
    let (integer, integer_digits) = digits(input, 15)?;
    if integer_digits == 0 {
        return Err(Invalid);
    }
    if !input.eat(b'.') {
        return Ok(BareItem::Integer(sign * integer));
    }
    if integer_digits > 12 {
        return Err(Invalid);
    }
    let (fraction, fraction_digits) = digits(input, 3)?;
    if fraction_digits == 0 {
        return Err(Invalid);
    }
    let thousandths = fraction * 10_i64.pow(3 - fraction_digits);
    Ok(BareItem::Decimal(sign * (integer * 1000 + thousandths)))
}

fn string(input: &mut Input<'_>) -> Parsed<String> {
    input.at += 1;
    let mut text = String::new();
    loop {
        match input.next() {
            Some(b'\\') => match input.next() {
                Some(escaped @ (b'"' | b'\\')) => text.push(char::from(escaped)),
                _ => return Err(Invalid),
            },
            Some(b'"') => return Ok(text),
            Some(byte @ 0x20..=0x7e) => text.push(char::from(byte)),
            _ => return Err(Invalid),
        }
    }
}

fn token(input: &mut Input<'_>) -> String {
    let mut text = String::new();
    while let Some(byte) = input.peek() {
        let tchar = byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&byte);
        if !tchar {
            break;
        }
        text.push(char::from(byte));
        input.at += 1;
    }
    text
}

/// A Byte Sequence (RFC 9651 §4.2.7): base64 between colons, which must decode ("if base64 decoding fails,
/// parsers MUST fail parsing"): `=` only as the padding at its end, and no length a decoder cannot read (one
/// character past a group of four, or padding that does not complete the group). Padding left out and non-zero pad
/// bits are accepted, as the RFC asks of parsers. The bytes are not kept: nothing here reads them.
fn byte_sequence(input: &mut Input<'_>) -> Parsed<BareItem> {
    input.at += 1;
    let (mut characters, mut padding) = (0_usize, 0_usize);
    loop {
        match input.next() {
            Some(b':') => break,
            Some(b'=') => padding += 1,
            Some(byte) if padding == 0 && (byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/')) => {
                characters += 1;
            }
            _ => return Err(Invalid),
        }
    }
    let decodes = match padding {
        0 => characters % 4 != 1,
        1 | 2 => characters % 4 != 1 && (characters + padding) % 4 == 0,
        _ => false,
    };
    if decodes {
        Ok(BareItem::ByteSequence)
    } else {
        Err(Invalid)
    }
}

fn display_string(input: &mut Input<'_>) -> Parsed<BareItem> {
    input.at += 1;
    if !input.eat(b'"') {
        return Err(Invalid);
    }
    let mut bytes = Vec::new();
    loop {
        match input.next() {
            Some(b'%') => {
                let high = hex_digit(input.next())?;
                let low = hex_digit(input.next())?;
                bytes.push(high * 16 + low);
            }
            Some(b'"') => {
                return String::from_utf8(bytes).map(BareItem::DisplayString).map_err(|_| Invalid);
            }
            Some(byte @ 0x20..=0x7e) => bytes.push(byte),
            _ => return Err(Invalid),
        }
    }
}

/// A lower-case hex digit (RFC 9651 requires lower case in display strings).
fn hex_digit(byte: Option<u8>) -> Parsed<u8> {
    match byte {
        Some(digit @ b'0'..=b'9') => Ok(digit - b'0'),
        Some(letter @ b'a'..=b'f') => Ok(letter - b'a' + 10),
        _ => Err(Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(value: &str) -> Vec<Option<BareItem>> {
        parse_list(value).unwrap().into_iter().map(|member| member.item).collect()
    }

    #[test]
    fn lists_of_items_with_parameters() {
        let list = parse_list(r#""default";r=50;t=30, "daily";r=0;t=3600"#).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].item, Some(BareItem::String("default".into())));
        assert_eq!(list[0].parameter("r"), Some(&BareItem::Integer(50)));
        assert_eq!(list[1].parameter("t"), Some(&BareItem::Integer(3600)));
        assert_eq!(list[1].parameter("pk"), None);
        let keyed = parse_list(r#""peruser";q=100;w=60;pk=:cHsdsRa894==:;qu="content-bytes""#).unwrap();
        assert_eq!(keyed[0].parameter("pk"), Some(&BareItem::ByteSequence));
        assert_eq!(keyed[0].parameter("qu"), Some(&BareItem::String("content-bytes".into())));
        assert_eq!(parse_list("").unwrap(), Vec::new());
        assert_eq!(parse_list("   ").unwrap(), Vec::new());
    }

    #[test]
    fn bare_item_kinds() {
        assert_eq!(
            items(r#"-7, 1.5, "a\"b", tok/en:x, ?0, @1659578233, %"f%c3%bc", (1 2);p"#),
            [
                Some(BareItem::Integer(-7)),
                Some(BareItem::Decimal(1500)),
                Some(BareItem::String("a\"b".into())),
                Some(BareItem::Token("tok/en:x".into())),
                Some(BareItem::Boolean(false)),
                Some(BareItem::Date(1_659_578_233)),
                Some(BareItem::DisplayString("fü".into())),
                None,
            ]
        );
        // Repeated parameter keys keep the last value; a bare key is true.
        let list = parse_list("a;x=1;x=2;y").unwrap();
        assert_eq!(list[0].parameters, [("x".into(), BareItem::Integer(2)), ("y".into(), BareItem::Boolean(true))]);
    }

    #[test]
    fn rfc_9651_minimums_are_the_limits() {
        let members = |count: usize| vec!["a"; count].join(", ");
        assert_eq!(parse_list(&members(MAX_LIST_MEMBERS)).map(|list| list.len()), Ok(MAX_LIST_MEMBERS));
        assert_eq!(parse_list(&members(MAX_LIST_MEMBERS + 1)), Err(Invalid));
        let parameters = |count: usize| (0..count).map(|index| format!(";k{index}")).collect::<String>();
        let full = parse_list(&format!("a{}", parameters(MAX_PARAMETERS))).unwrap();
        assert_eq!(full[0].parameters.len(), MAX_PARAMETERS);
        assert_eq!(parse_list(&format!("a{}", parameters(MAX_PARAMETERS + 1))), Err(Invalid));
        // A repeated key is no new parameter.
        let repeated = format!("a{};k0=1", parameters(MAX_PARAMETERS));
        assert_eq!(parse_list(&repeated).unwrap()[0].parameter("k0"), Some(&BareItem::Integer(1)));
    }

    #[test]
    fn malformed_lists() {
        for bad in [
            "a,",
            ",a",
            "a,,b",
            "a b",
            "1234567890123456",
            "1234567890123.5",
            "1.2345",
            "1.",
            "-",
            "\"unterminated",
            "\"bad\\escape\"",
            ":not base64!:",
            ":=aGVsbG8=:",
            ":a=GVsbG8=:",
            ":a:",
            ":abcde:",
            ":YQ=:",
            ":YQ=YQ==:",
            ":====:",
            ":=:",
            "?2",
            "a;X=1",
            "a;=1",
            "(1 2",
            "(1,2)",
            "%\"%C3%BC\"",
            "limit=10, remaining=0",
            "\u{e9}",
        ] {
            assert_eq!(parse_list(bad), Err(Invalid), "{bad:?}");
        }
    }
}

/// The httpwg's own test suite of RFC 9651 (github.com/httpwg/structured-field-tests), run against this parser
/// when a checkout of it is named by `RETRYPLAN_SF_TESTS` (not vendored: `cargo test -p retryplan --lib
/// httpwg_suite -- --ignored` with the variable set). Every `list` test (valid and `must_fail`), and every `item`
/// test as a list of one member (a `must_fail` one unless a comma would make it two, or it is empty or ends in
/// whitespace, which a list allows), must read as the suite expects (1,152 of them at its commit 1e280c3).
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
mod httpwg_suite {
    use super::*;
    use serde_json::Value as Json;

    /// A bare item as the suite writes it (`{"__type": "token", "value": ...}` for the types JSON lacks).
    fn bare(json: &Json) -> Option<BareItem> {
        Some(match json {
            Json::Bool(value) => BareItem::Boolean(*value),
            Json::String(value) => BareItem::String(value.clone()),
            Json::Number(number) if number.is_i64() => BareItem::Integer(number.as_i64()?),
            Json::Number(number) => BareItem::Decimal((number.as_f64()? * 1000.0).round() as i64),
            Json::Object(typed) => match typed.get("__type")?.as_str()? {
                "token" => BareItem::Token(typed.get("value")?.as_str()?.into()),
                "binary" => BareItem::ByteSequence,
                "date" => BareItem::Date(typed.get("value")?.as_i64()?),
                "displaystring" => BareItem::DisplayString(typed.get("value")?.as_str()?.into()),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Whether `member` is the suite's `[item or inner list, [[key, value], ...]]` (an inner list's contents are
    /// not kept, so only that it is one is compared).
    fn matches(member: &Member, expected: &Json) -> bool {
        let item = match &expected[0] {
            Json::Array(_) => member.item.is_none(),
            item => member.item == bare(item),
        };
        let expected_parameters = expected[1].as_array().into_iter().flatten();
        let parameters: Vec<_> = expected_parameters.map(|p| (p[0].as_str().map(String::from), bare(&p[1]))).collect();
        let read: Vec<_> =
            member.parameters.iter().map(|(key, value)| (Some(key.clone()), Some(value.clone()))).collect();
        item && parameters == read
    }

    #[test]
    #[ignore = "needs a checkout of httpwg/structured-field-tests named by RETRYPLAN_SF_TESTS"]
    fn httpwg_structured_field_tests() {
        let dir = std::env::var("RETRYPLAN_SF_TESTS").expect("RETRYPLAN_SF_TESTS names the suite's checkout");
        let (mut ran, mut failures) = (0, Vec::new());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let Ok(Json::Array(tests)) = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
            else {
                continue;
            };
            for test in tests {
                let raw: Vec<&str> = test["raw"].as_array().into_iter().flatten().filter_map(Json::as_str).collect();
                let (joined, must_fail) = (raw.join(", "), test["must_fail"].as_bool().unwrap_or(false));
                let expected = match (test["header_type"].as_str(), must_fail) {
                    (Some("list"), _) => test["expected"].as_array().cloned().unwrap_or_default(),
                    (Some("item"), false) => vec![test["expected"].clone()],
                    // An item that must fail fails as a list of one member too, unless a comma makes it two, or it is
                    // empty or ends in whitespace (a list may: an empty one, OWS after its last member).
                    (Some("item"), true)
                        if !joined.contains(',') && !joined.is_empty() && joined.trim_end() == joined =>
                    {
                        Vec::new()
                    }
                    _ => continue,
                };
                ran += 1;
                let read = parse_list(&joined);
                let agrees = match &read {
                    Err(_) => must_fail,
                    Ok(members) => {
                        !must_fail
                            && members.len() == expected.len()
                            && members.iter().zip(&expected).all(|(member, want)| matches(member, want))
                    }
                };
                if !agrees {
                    failures.push(format!("{} {}: {joined:?} read {read:?}", path.display(), test["name"]));
                }
            }
        }
        assert!(ran > 0, "no test of the suite in {dir}");
        assert!(failures.is_empty(), "{} of {ran} disagree:\n{}", failures.len(), failures.join("\n"));
    }
}
