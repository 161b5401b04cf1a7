//! "Did you mean": the known name closest to a misspelt one.
//!
//! The configuration reader knows every field and enum name it accepts, and
//! [`profile`](crate::dialects::profiles::profile) every profile name; when an
//! unknown one is refused, the closest known name (by edit distance, a swap of
//! two neighbouring letters counting as one edit) is offered, if it is close
//! enough to be a likely typo. It is on the ground floor so that the errors
//! ([`crate::config::error`]) and the reader ([`crate::config::value`]) both
//! use it; its public path is [`crate::config::value::closest_name`].

use alloc::string::String;
use alloc::vec::Vec;

use crate::ground::message::{message, Arg};

/// The known name closest to `name`, if it is a likely typo of it: at most
/// one edit per four letters of the name (at least one), and never a name
/// that shares nothing with it; first of all, the name in other letter case. Ties go to the earlier name in `known`.
/// Failing that, the one known name that `name` is a whole `_`-separated
/// part of, at its start or end (`ratio` for `retry_ratio`, `window` for
/// `window_ms`).
///
/// ```
/// use retryplan::config::value::closest_name;
/// let known = ["max_attempts", "total_timeout_ms", "jitter"];
/// assert_eq!(closest_name("max_attempt", known), Some("max_attempts"));
/// assert_eq!(closest_name("jiter", known), Some("jitter"));
/// assert_eq!(closest_name("colour", known), None);
/// assert_eq!(closest_name("JITTER", known), Some("jitter"));
/// ```
#[must_use]
pub fn closest_name<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // One copy of the search, not one per caller's iterator type (the wasm download).
    let known: Vec<&'a str> = known.into_iter().collect();
    closest_in(name, &known)
}

/// ` (did you mean `x`?)` (rule [`DidYouMean`](crate::ground::message::Rule::DidYouMean)) when `name`
/// looks like a typo of one of `known`, else nothing: the hint the messages of an unknown name carry.
#[cold]
pub(crate) fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Arg {
    match closest_name(name, known) {
        Some(close) => Arg::from(message!(DidYouMean, String::from(close))),
        None => Arg::from(""),
    }
}

fn closest_in<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    // The name in other letter case (gRPC's `UNAVAILABLE`, a profile `Read`): what was meant, however far
    // its letters are from the known name's by edit distance.
    if let Some(same) = known.iter().copied().find(|candidate| candidate.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    let length = name.chars().count();
    let allowed = 1 + length / 4;
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in known.iter().copied() {
        // The distance is at least the difference in length: skip what cannot be close before
        // computing it (its cost is the product of the lengths; a name may be megabytes long).
        if length.abs_diff(candidate.chars().count()) > allowed {
            continue;
        }
        let distance = edit_distance(name, candidate);
        let rewritten = distance >= length.max(candidate.chars().count());
        if distance <= allowed && !rewritten && best.is_none_or(|(shortest, _)| distance < shortest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate).or_else(|| part_of(name, known))
}

/// The one known name of which `name` is a whole `_`-separated part at
/// either end, as a name written without its unit or qualifier is
/// (`ratio` for `retry_ratio`, `window` for `window_ms`); none when several are.
fn part_of<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if name.len() < 3 {
        return None;
    }
    let mut found = known.iter().copied().filter(|candidate| {
        candidate.strip_suffix(name).is_some_and(|head| head.ends_with('_'))
            || candidate.strip_prefix(name).is_some_and(|tail| tail.starts_with('_'))
    });
    match (found.next(), found.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and swaps of two neighbouring characters each cost one.
fn edit_distance(left: &str, right: &str) -> usize {
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    // Three rows of the classic table: two rows back (for swaps), the last, the current.
    let mut before: Vec<usize> = (0..=right.len()).collect();
    let mut last: Vec<usize> = before.clone();
    for (i, a) in left.iter().enumerate() {
        let mut current = Vec::with_capacity(right.len() + 1);
        current.push(i + 1);
        for (j, b) in right.iter().enumerate() {
            let substitute = last.get(j).copied().unwrap_or(usize::MAX).saturating_add(usize::from(a != b));
            let delete = last.get(j + 1).copied().unwrap_or(usize::MAX).saturating_add(1);
            let insert = current.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            let mut cell = substitute.min(delete).min(insert);
            let swapped = i > 0 && j > 0 && left.get(i - 1) == Some(b) && right.get(j - 1) == Some(a);
            if swapped {
                cell = cell.min(before.get(j - 1).copied().unwrap_or(usize::MAX).saturating_add(1));
            }
            current.push(cell);
        }
        before = core::mem::replace(&mut last, current);
    }
    last.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_swaps_and_lengths_count_one_each() {
        assert_eq!(edit_distance("max_attempts", "max_attempts"), 0);
        assert_eq!(edit_distance("max_attempt", "max_attempts"), 1);
        assert_eq!(edit_distance("max_attmepts", "max_attempts"), 1, "a swap is one edit");
        assert_eq!(edit_distance("fulll", "full"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn only_likely_typos_are_suggested() {
        let known = ["none", "full", "equal", "decorrelated", "proportional"];
        assert_eq!(closest_name("ful", known), Some("full"));
        assert_eq!(closest_name("equall", known), Some("equal"));
        assert_eq!(closest_name("decorelated", known), Some("decorrelated"));
        assert_eq!(closest_name("random", known), None);
        assert_eq!(closest_name("x", ["y", "z"]), None, "replacing every letter is no typo");
        assert_eq!(closest_name("ab", ["ax", "ay"]), Some("ax"), "ties go to the first");
    }

    #[test]
    fn a_name_written_without_its_unit_or_qualifier_is_suggested_when_only_one_fits() {
        let budget = ["kind", "retry_ratio", "min_retries_per_second", "window_ms"];
        assert_eq!(closest_name("ratio", budget), Some("retry_ratio"));
        assert_eq!(closest_name("window", budget), Some("window_ms"));
        assert_eq!(closest_name("ms", ["cap_ms", "base_ms"]), None, "too short to mean one");
        assert_eq!(closest_name("delay", ["delay_ms", "delay_factor"]), None, "two fit: neither is offered");
        assert_eq!(closest_name("atio", budget), None, "a whole part, not a piece of one");
    }

    #[test]
    fn a_huge_name_is_refused_without_computing_its_distances() {
        // Without the length check this takes minutes (50 M x 15 cells and 50 M row allocations per name).
        let huge = "x".repeat(50_000_000);
        assert_eq!(closest_name(&huge, ["max_attempts", "total_timeout_ms"]), None);
        assert_eq!(closest_name("max_attempts_and_more", ["max_attempts"]), None, "too long to be a typo");
    }
}
