//! The core's doc text read for the Rust it names, the part every binding's
//! spelling of it shares (`python_prose`, `kotlin_prose`, `js_prose`): a
//! doc's code spans, each read as a Rust path, a generic type or a call, and
//! what the core itself says of a path (an integer type's bound, a module's
//! source file). What each language writes for what it reads is its
//! [`Spelling`].

use std::path::Path;

/// How one language spells what a code span of the core's docs names.
pub(crate) trait Spelling {
    /// What comes before and after the spelt `T` of `Option<T>`.
    const OPTION: [&'static str; 2];
    /// What comes before and after the spelt `T` of `Vec<T>`.
    const LIST: [&'static str; 2];
    /// The language's name for the core's free function `name`, when it is another.
    fn function(&self, name: &str) -> Option<String>;
    /// The language's own name for the path `segments` (`owner::last` its last two), when it has one: a renamed
    /// item, an enum's variant, an error.
    fn named(&self, segments: &[&str], owner: &str, last: &str) -> Option<String>;
    /// An integer type's bound as the language writes the number.
    fn bound(&self, bound: Bound) -> String;
    /// A Rust scalar type (`u64`), when the language names it otherwise.
    fn scalar(&self, ty: &str) -> Option<&'static str>;
    /// A segment of any other path, its leading modules left out: its `first` (a type), or one after (a method,
    /// a field, a variant).
    fn segment(&self, first: bool, segment: &str) -> String;
    /// What the language says in words, not as code, for the code span `code` (an item it has no name for, a
    /// bare Rust type), when it does.
    fn words(&self, _code: &str) -> Option<String> {
        None
    }
}

/// An integer type's bound: `0`, `2^n - 1` or `-2^n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// An unsigned type's `MIN`.
    Zero,
    /// `MAX`: 2 to this power, less one.
    PowerLessOne(u32),
    /// A signed type's `MIN`: minus 2 to this power.
    NegativePower(u32),
}

/// `text`, a doc of the core (markdown, code in single backticks), with each code span that spells a Rust item
/// or type spelt by `spelling` (one it says in words: those words, without the backticks); any other text as it
/// is.
pub(crate) fn respell(text: &str, spelling: &impl Spelling) -> String {
    let mut out = String::with_capacity(text.len());
    let parts: Vec<&str> = text.split('`').collect();
    let mut in_words = false;
    for (index, part) in parts.iter().enumerate() {
        let closed = index % 2 == 1 && index + 1 < parts.len();
        let words = closed.then(|| spelling.words(part)).flatten();
        if index > 0 && words.is_none() && !in_words {
            out.push('`');
        }
        in_words = words.is_some();
        match words.or_else(|| (index % 2 == 1).then(|| code(part, spelling)).flatten()) {
            Some(spelt) => out.push_str(&spelt),
            None => out.push_str(part),
        }
    }
    out
}

/// The spelling of the code span `code`, when it spells Rust: `Some(x)` as `x`, a generic type, a path (a call's
/// `()` kept; a constructor `T::new` as the call `T()`).
fn code(code: &str, spelling: &impl Spelling) -> Option<String> {
    if let Some(inner) = code.strip_prefix("Some(").and_then(|rest| rest.strip_suffix(')')) {
        return Some(self::code(inner, spelling).unwrap_or_else(|| inner.to_owned()));
    }
    if code.contains('<') {
        return generic(code, spelling);
    }
    let (path, call) = code.strip_suffix("()").map_or((code, ""), |path| (path, "()"));
    let segments: Vec<&str> = path.split("::").collect();
    if !segments.iter().all(|segment| is_ident(segment)) {
        return None;
    }
    if let [name] = segments[..] {
        return spelling.function(name).map(|spelt| format!("{spelt}{call}"));
    }
    if let Some(spelt) = named_path(&segments, spelling) {
        return Some(spelt);
    }
    let start = segments.iter().position(|segment| !is_module(segment)).unwrap_or(segments.len() - 1);
    if let [ty, "new"] = segments[start..] {
        return Some(format!("{ty}()"));
    }
    let spelt: Vec<String> =
        segments[start..].iter().enumerate().map(|(index, segment)| spelling.segment(index == 0, segment)).collect();
    Some(format!("{}{call}", spelt.join(".")))
}

/// The spelling of the path `segments` when it names what the language names (a bound, a name of its own, a
/// module: its source file), else None.
fn named_path(segments: &[&str], spelling: &impl Spelling) -> Option<String> {
    let [.., owner, last] = segments else { return None };
    if let Some(bound) = integer_bound(owner, last) {
        return Some(spelling.bound(bound));
    }
    if let Some(spelt) = spelling.named(segments, owner, last) {
        return Some(spelt);
    }
    if segments.iter().all(|segment| is_module(segment)) {
        let inner: Vec<&str> = segments.iter().copied().skip_while(|segment| is_crate(segment)).collect();
        return Some(module_file(&inner).unwrap_or_else(|| inner.join(".")));
    }
    None
}

/// `u64::MAX` (`2^64 - 1`), `i64::MIN` (`-2^63`), ... (None for anything else).
pub(crate) fn integer_bound(ty: &str, bound: &str) -> Option<Bound> {
    let (signed, bits) = (ty.starts_with('i'), ty.get(1..)?.parse::<u32>().ok()?);
    if !matches!(ty.chars().next(), Some('i' | 'u')) || ![8, 16, 32, 64, 128].contains(&bits) {
        return None;
    }
    match (bound, signed) {
        ("MAX", false) => Some(Bound::PowerLessOne(bits)),
        ("MAX", true) => Some(Bound::PowerLessOne(bits - 1)),
        ("MIN", false) => Some(Bound::Zero),
        ("MIN", true) => Some(Bound::NegativePower(bits - 1)),
        _ => None,
    }
}

/// The core's source file of the module path `inner` (`outcomes::http`, from `crate::outcomes::http`), when
/// there is one.
fn module_file(inner: &[&str]) -> Option<String> {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let module = format!("src/{}", inner.join("/"));
    [format!("{module}.rs"), format!("{module}/mod.rs")]
        .into_iter()
        .find(|file| core.join(file).is_file())
        .map(|file| format!("core/{file}"))
}

/// A Rust type with generics as the language spells it (`Option<u64>`), when it is one.
fn generic<S: Spelling>(code: &str, spelling: &S) -> Option<String> {
    let (outer, inner) = code.trim().strip_suffix('>')?.split_once('<')?;
    let inner = generic(inner, spelling).unwrap_or_else(|| {
        let inner = inner.trim();
        spelling.scalar(inner).map_or_else(|| inner.to_owned(), str::to_owned)
    });
    let [before, after] = match outer {
        "Option" => S::OPTION,
        "Vec" => S::LIST,
        _ => return None,
    };
    Some(format!("{before}{inner}{after}"))
}

/// A Rust ident (one segment of a path).
fn is_ident(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `crate`, `retryplan`, `self`, `super`: a path's start that no binding shows.
pub(crate) fn is_crate(segment: &str) -> bool {
    matches!(segment, "crate" | "retryplan" | "self" | "super")
}

/// A module's name: lowercase (a function's too, which never comes first in a path).
pub(crate) fn is_module(segment: &str) -> bool {
    segment.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// An UpperCamelCase ident (a type or a variant, not a CONSTANT).
pub(crate) fn is_camel(segment: &str) -> bool {
    segment.starts_with(|c: char| c.is_ascii_uppercase()) && segment.chars().any(|c| c.is_ascii_lowercase())
}

/// A Rust ident in snake_case (`RetryAfterMs` -> `retry_after_ms`), as serde's `rename_all = "snake_case"` writes it.
pub(crate) fn snake(ident: &str) -> String {
    let mut name = String::new();
    for (index, letter) in ident.chars().enumerate() {
        if letter.is_uppercase() && index > 0 {
            name.push('_');
        }
        name.push(letter.to_ascii_lowercase());
    }
    name
}

/// A snake_case code in UpperCamelCase, as its `Error` variant is named (`config_violations` ->
/// `ConfigViolations`).
pub(crate) fn camel(code: &str) -> String {
    code.split('_').map(|word| word[..1].to_uppercase() + &word[1..]).collect()
}

/// Checks for a language's spelling (its tests call them): what it writes for each Rust code span, and what it
/// leaves as it is.
#[cfg(test)]
pub(crate) mod checks {
    /// `spell` writes each case's code span (`rust`) as the language's (`spelt`), in a sentence.
    pub(crate) fn reads(spell: fn(&str) -> String, cases: &[(&str, &str)]) {
        for (rust, spelt) in cases {
            assert_eq!(spell(&format!("See `{rust}`.")), format!("See `{spelt}`."), "{rust}");
        }
    }

    /// `spell` leaves text that names no Rust (the texts every language leaves, and `more`) as it is, reads a
    /// module of no file as a path with dots, and reads what it wrote from `rust` the same the second time (a
    /// writer may pass a doc through twice).
    pub(crate) fn leaves(spell: fn(&str) -> String, more: &[&str], rust: &str) {
        let texts = ["1..=4, and a::b outside code.", "`[1-9][0-9]*`, `\"strict\"`, `None`", "An odd ` backtick"];
        for text in texts.iter().chain(more) {
            assert_eq!(spell(text), *text);
        }
        assert_eq!(spell("`retryplan::no_such::module`"), "`no_such.module`");
        let once = spell(rust);
        assert_eq!(spell(&once), once);
    }
}
