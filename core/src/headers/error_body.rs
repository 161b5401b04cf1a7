//! The error code in an AWS error body, read only where the protocols put it
//! (botocore's `parsers.py`, smithy-rs's `json_errors.rs`,
//! `rest_xml_wrapped_errors.rs`, `rest_xml_unwrapped_errors.rs`,
//! `ec2_query_errors.rs`):
//!
//! - JSON (awsJson 1.0/1.1, restJson1): the first member of the top-level
//!   object that is there: `code`, else `Code`, else `__type`; one that is
//!   no string holds no code (botocore reads the first present, whatever it
//!   holds). Members of nested objects and arrays are never read; a repeated
//!   member counts as its last value (as a JSON reader keeps it). A name or value holding a backslash escape
//!   is not read (no error code and no code member's name has one).
//! - XML: the `<Code>` child of a root `<Error>` (S3, restXml unwrapped); or
//!   of the root's `<Error>` child (awsQuery, restXml wrapped
//!   `<ErrorResponse><Error>`); or of the first `<Error>` in the root's
//!   `<Errors>` child (EC2 `<Response><Errors><Error>`). Text in comments,
//!   CDATA sections of other elements and attribute values is never read;
//!   a code holding a character reference (`&amp;`) is none (no code has one).
//!
//! A body that is not well-formed (in the small sense checked here: strings,
//! brackets and tags balanced, nothing after the end) has no code, as a
//! failed parse gives the SDKs none. Each reader is one pass over the body,
//! its memory linear in the nesting depth at most.

use alloc::vec::Vec;

/// The code members of a JSON error body, most preferred first.
const JSON_CODE_MEMBERS: [&str; 3] = ["code", "Code", "__type"];

/// The raw error code of a JSON error body, or `None` (see the module notes).
pub(crate) fn json_error_code(body: &str) -> Option<&str> {
    let mut json = Json { bytes: body.as_bytes(), at: 0 };
    let mut found: [Option<&str>; JSON_CODE_MEMBERS.len()] = [None, None, None];
    json.skip_whitespace();
    json.expect(b'{')?;
    json.skip_whitespace();
    if json.peek() == Some(b'}') {
        json.at += 1;
    } else {
        loop {
            json.skip_whitespace();
            let key = json.string()?;
            json.skip_whitespace();
            json.expect(b':')?;
            json.skip_whitespace();
            let slot = key.ok().and_then(|key| {
                JSON_CODE_MEMBERS
                    .iter()
                    .zip(found.iter_mut())
                    .find_map(|(member, slot)| (*member == key).then_some(slot))
            });
            if json.peek() == Some(b'"') {
                let value = json.string()?;
                if let (Some(slot), Ok(value)) = (slot, value) {
                    *slot = Some(value);
                }
            } else {
                json.skip_value()?;
                // A code member that is no string (`"code": 5`) is there, with no code: botocore's search ends at
                // the first member present.
                if let Some(slot) = slot {
                    *slot = Some("");
                }
            }
            json.skip_whitespace();
            match json.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
    }
    json.skip_whitespace();
    if json.at != json.bytes.len() {
        return None;
    }
    found.into_iter().flatten().next()
}

struct Json<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Json<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A string: its text, or `Err(())` when it holds an escape (no error
    /// code or code member name does, so such a string is skipped, not
    /// read); `None` when it is not a valid string.
    fn string(&mut self) -> Option<Result<&'a str, ()>> {
        self.expect(b'"')?;
        let start = self.at;
        let mut escaped = false;
        loop {
            match self.next()? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.next()?;
                }
                byte if byte < 0x20 => return None,
                _ => {}
            }
        }
        let text = core::str::from_utf8(self.bytes.get(start..self.at - 1)?).ok()?;
        Some(if escaped { Err(()) } else { Ok(text) })
    }

    /// Skips one value that is not a string at the top of the call (a
    /// number, a literal, an object or an array, nested to any depth),
    /// without recursion.
    fn skip_value(&mut self) -> Option<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.skip_whitespace();
            match self.peek()? {
                b'"' => {
                    let _ = self.string()?;
                }
                bracket @ (b'{' | b'[') => {
                    self.at += 1;
                    open.push(if bracket == b'{' { b'}' } else { b']' });
                    continue;
                }
                bracket @ (b'}' | b']') => {
                    if open.pop()? != bracket {
                        return None;
                    }
                    self.at += 1;
                }
                b',' | b':' if !open.is_empty() => {
                    self.at += 1;
                    continue;
                }
                byte if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'+' || byte == b'.' => {
                    while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) {
                        self.at += 1;
                    }
                }
                _ => return None,
            }
            if open.is_empty() {
                return Some(());
            }
        }
    }
}

/// The raw error code of an XML error body, or `None` (see the module notes).
pub(crate) fn xml_error_code(body: &str) -> Option<&str> {
    let mut xml = Xml { text: body, at: 0 };
    // The names of the open elements, the root first.
    let mut path: Vec<&str> = Vec::new();
    let mut seen_root = false;
    // The `<Code>` being read: its depth, and its text so far: one piece of
    // text or CDATA (`Err` once it holds an element, a reference or a second
    // piece: then it is no code).
    let mut reading: Option<(usize, Result<&str, ()>)> = None;
    let mut code: Option<Result<&str, ()>> = None;
    while let Some(token) = xml.token()? {
        match token {
            XmlToken::Text(text) | XmlToken::CData(text) if path.is_empty() => {
                if !text.trim_ascii().is_empty() {
                    return None;
                }
            }
            XmlToken::Text(text) | XmlToken::CData(text) => {
                if let Some((_, value)) = reading.as_mut() {
                    // A reference (`&amp;`) is in no error code: such a code is none.
                    *value = match *value {
                        Ok("") if !text.contains('&') => Ok(text),
                        _ => Err(()),
                    };
                }
            }
            XmlToken::Open { name, closed } => {
                if path.is_empty() && seen_root {
                    return None;
                }
                seen_root = true;
                if let Some((_, value)) = reading.as_mut() {
                    *value = Err(());
                }
                path.push(name);
                if code.is_none() && reading.is_none() && is_code_position(&path) {
                    reading = Some((path.len(), Ok("")));
                }
                if closed {
                    close(&mut path, &mut reading, &mut code, name)?;
                }
            }
            XmlToken::Close(name) => close(&mut path, &mut reading, &mut code, name)?,
        }
    }
    (seen_root && path.is_empty()).then_some(())?;
    code?.ok().filter(|text| !text.is_empty())
}

/// Closes the innermost element, which must be `name`; the code is kept
/// when the element closed is the `<Code>` being read (a code that is none
/// is kept too: no later one is read).
fn close<'a>(
    path: &mut Vec<&'a str>,
    reading: &mut Option<(usize, Result<&'a str, ()>)>,
    code: &mut Option<Result<&'a str, ()>>,
    name: &str,
) -> Option<()> {
    let depth = path.len();
    if path.pop()? != name {
        return None;
    }
    if let Some((code_depth, value)) = *reading {
        if code_depth == depth {
            *code = Some(value);
            *reading = None;
        }
    }
    Some(())
}

/// True when the open elements end at an error's `<Code>`.
fn is_code_position(path: &[&str]) -> bool {
    match path {
        ["Error", "Code"] => true,
        [root, "Error", "Code"] | [root, "Errors", "Error", "Code"] => *root != "Error",
        _ => false,
    }
}

enum XmlToken<'a> {
    Text(&'a str),
    CData(&'a str),
    Open { name: &'a str, closed: bool },
    Close(&'a str),
}

struct Xml<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Xml<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// The text up to `end`, the cursor moved past it; `None` when `end`
    /// never comes.
    fn until(&mut self, end: &str) -> Option<&'a str> {
        let rest = self.rest();
        let found = rest.find(end)?;
        self.at += found + end.len();
        rest.get(..found)
    }

    /// The next token: `Ok`-like `Some(None)` at the end of the body, `None`
    /// when the body is not well-formed. Declarations, processing
    /// instructions and comments are skipped; a DOCTYPE is refused (no AWS
    /// error body has one).
    fn token(&mut self) -> Option<Option<XmlToken<'a>>> {
        loop {
            let rest = self.rest();
            if rest.is_empty() {
                return Some(None);
            }
            if !rest.starts_with('<') {
                let end = rest.find('<').unwrap_or(rest.len());
                self.at += end;
                return Some(Some(XmlToken::Text(rest.get(..end)?)));
            }
            if rest.starts_with("<?") {
                self.until("?>")?;
            } else if rest.starts_with("<!--") {
                self.at += "<!--".len();
                self.until("-->")?;
            } else if rest.starts_with("<![CDATA[") {
                self.at += "<![CDATA[".len();
                return Some(Some(XmlToken::CData(self.until("]]>")?)));
            } else if rest.starts_with("<!") {
                return None;
            } else if rest.starts_with("</") {
                self.at += "</".len();
                let name = self.until(">")?.trim_ascii_end();
                return Some(Some(XmlToken::Close(name)));
            } else {
                self.at += "<".len();
                return self.open_tag().map(Some);
            }
        }
    }

    /// A start tag after its `<`: its name, and whether it closes itself.
    /// Attribute values may hold `>` inside their quotes.
    fn open_tag(&mut self) -> Option<XmlToken<'a>> {
        let rest = self.rest();
        let name_end = rest.find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')?;
        let name = rest.get(..name_end)?;
        if name.is_empty() {
            return None;
        }
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for (offset, c) in rest.char_indices().skip(name_end) {
            match quote {
                Some(open) if c == open => quote = None,
                Some(_) => {}
                None if c == '"' || c == '\'' => quote = Some(c),
                None if c == '<' => return None,
                None if c == '>' => {
                    self.at += offset + 1;
                    return Some(XmlToken::Open { name, closed: previous == '/' });
                }
                None => {}
            }
            previous = c;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reads_top_level_members_only() {
        let code = json_error_code;
        assert_eq!(code(r#"{"code":"ValidationError","detail":{"__type":"Throttling"}}"#), Some("ValidationError"));
        assert_eq!(code(r#"{"errors":[{"code":"Throttling"}],"code":"ValidationError"}"#), Some("ValidationError"));
        assert_eq!(code(r#"{"message":"{\"code\":\"Throttling\"}"}"#), None);
        assert_eq!(code(r#"{"detail":{"code":"Throttling"}}"#), None);
        assert_eq!(code(r#"{"__type":"A","code":"B"}"#), Some("B"));
        assert_eq!(code(r#"{"code":"A","code":"B"}"#), Some("B"), "the last of a repeated member");
        assert_eq!(code(r#"{"code":"Thr\u006fttling"}"#), None, "a value with an escape is not read");
        assert_eq!(code(r#"{"message":"a \"quoted\" word","code":"X"}"#), Some("X"), "escapes are skipped over");
        assert_eq!(code(r#"{"code":"Throttling"} trailing"#), None);
        assert_eq!(code(r#"{"a":[1,{"b":[true,null,-1.5e3]}],"code":"X"}"#), Some("X"));
        assert_eq!(code(r#"{"a":[1},"code":"X"}"#), None, "mismatched brackets");
        assert_eq!(code(r#"{"code":"X""#), None);
        assert_eq!(code(&"[".repeat(100_000)), None);
        let deep = alloc::format!("{{\"a\":{}{},\"code\":\"X\"}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(json_error_code(&deep), Some("X"));
    }

    #[test]
    fn xml_reads_documented_positions_only() {
        let code = xml_error_code;
        assert_eq!(code("<Error><Code>SlowDown</Code></Error>"), Some("SlowDown"));
        assert_eq!(code("<ErrorResponse><Error><Code>Throttling</Code></Error></ErrorResponse>"), Some("Throttling"));
        assert_eq!(
            code("<Response><Errors><Error><Code>RequestLimitExceeded</Code></Error></Errors><RequestID>x</RequestID></Response>"),
            Some("RequestLimitExceeded")
        );
        assert_eq!(
            code("<Error><Message><![CDATA[<Code>Throttling</Code>]]></Message><Code>ValidationError</Code></Error>"),
            Some("ValidationError")
        );
        assert_eq!(code("<Error><Message><Code>Throttling</Code></Message></Error>"), None);
        assert_eq!(code("<Error><!-- <Code>Throttling</Code> --><Code>A</Code></Error>"), Some("A"));
        assert_eq!(code(r#"<Error note="<Code>Throttling</Code>"><Code>A</Code></Error>"#), Some("A"));
        assert_eq!(code("<Error><Code><![CDATA[SlowDown]]></Code></Error>"), Some("SlowDown"));
        assert_eq!(code("<Error><Code>&#83;lowDown</Code></Error>"), None);
        assert_eq!(code("<Error><Code>SlowDown</Code>"), None, "not closed");
        assert_eq!(code("<Error><Code>SlowDown</Error></Code>"), None, "crossed tags");
        assert_eq!(code("<Error><Code>A</Code></Error><Error><Code>B</Code></Error>"), None, "two roots");
        assert_eq!(code("<Error><Code><b>A</b></Code></Error>"), None, "a code holding an element");
        assert_eq!(code("<Error><Code>A</Code><Code>B</Code></Error>"), Some("A"));
        assert_eq!(code("<!DOCTYPE x [<!ENTITY e 'Throttling'>]><Error><Code>&e;</Code></Error>"), None);
        assert_eq!(code("<Error><Error><Code>Throttling</Code></Error></Error>"), None);
    }
}
