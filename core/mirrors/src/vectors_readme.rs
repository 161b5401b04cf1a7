//! `tests/conformance/README.md`: the case count of each vector file in its
//! table of files (the last cell of a row naming `file.json`, which `lint.py`
//! checks), counted from the file, so a case added to a vector file touches
//! that file alone.

use std::fs;
use std::path::Path;

use crate::output::Output;

pub const README: &str = "tests/conformance/README.md";

pub fn output(root: &Path) -> Result<Output, String> {
    let dir = root.join("tests/conformance");
    let text = fs::read_to_string(root.join(README)).map_err(|e| format!("{README}: {e}"))?;
    let count = |name: &str| -> Result<usize, String> {
        let path = dir.join(name);
        let file = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(&file).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(value.get("cases").and_then(serde_json::Value::as_array).map_or(0, Vec::len))
    };
    Ok(Output { path: README, text: with_counts(&text, count)? })
}

/// `text` with the last cell of every row `| \`name.json\` | ... | N |` set to `count(name)`.
fn with_counts(text: &str, count: impl Fn(&str) -> Result<usize, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let name = body.strip_prefix("| `").and_then(|rest| rest.split_once("` |")).map(|(name, _)| name);
        let last = body.strip_suffix(" |").and_then(|rest| rest.rsplit_once("| "));
        match (name, last) {
            (Some(name), Some((head, cell)))
                if name.ends_with(".json") && !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_digit()) =>
            {
                out.push_str(&format!("{head}| {} |", count(name)?));
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_count_cell_of_a_file_row_changes() {
        let text = "| file | what | cases |\n|---|---|---|\n| `a.json` | x | y | 3 |\n| `b.md` | z | 4 |\nprose 5 |\n";
        let out = with_counts(text, |name| Ok(if name == "a.json" { 7 } else { 0 })).unwrap();
        assert_eq!(
            out,
            "| file | what | cases |\n|---|---|---|\n| `a.json` | x | y | 7 |\n| `b.md` | z | 4 |\nprose 5 |\n"
        );
    }
}
