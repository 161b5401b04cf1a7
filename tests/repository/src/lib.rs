//! The repository's checks of the core crate (`retryplan`) that read files
//! outside its package, kept here so the published crate is self-contained
//! (`cargo package -p retryplan` then `cargo test --doc` in it passes):
//! the root README's Rust examples, compiled and run by `cargo test --doc`;
//! the READMEs' paragraphs on compiled forms (see the test below); and the
//! example program `checkout` (examples/rust/checkout.rs).

/// The repository's README, compiled and run by `cargo test --doc` (never
/// built otherwise): its Rust examples cannot drift from the core's API.
/// `scripts/readme_snippets.py check` proves every other block of it is run
/// by some suite or marked as not tested.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadme;

#[cfg(test)]
mod tests {
    /// The form's sizes are on core/src/policy/compiled/form.md only: a
    /// README paragraph about compiled forms states no byte count, so a new
    /// policy field (which changes every form's size) touches no README.
    #[test]
    fn the_readmes_leave_the_forms_size_to_the_form_page() {
        let readmes = [
            ("README.md", include_str!("../../../README.md")),
            ("core/README.md", include_str!("../../../core/README.md")),
            ("cli/README.md", include_str!("../../../cli/README.md")),
        ];
        let mut paragraphs = 0;
        for (name, text) in readmes {
            for paragraph in text.split("\n\n").filter(|p| p.contains("to_compiled") || p.contains("retryplan compile"))
            {
                paragraphs += 1;
                let words: Vec<&str> = paragraph.split_whitespace().collect();
                for pair in words.windows(2) {
                    let [number, unit] = pair else { continue };
                    let figure = number.trim_start_matches('(').chars().all(|c| c.is_ascii_digit() || c == '-');
                    assert!(!(figure && unit.starts_with("bytes")), "{name}: `{number} {unit}` in:\n{paragraph}");
                }
            }
        }
        assert!(paragraphs >= 3, "the READMEs' paragraphs about compiled forms were not found");
    }
}
