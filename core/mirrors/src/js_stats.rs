//! JavaScript: the `Stats` counters (the `u64` fields of
//! `retryplan::engine::stats::Stats`, read from core/src/engine/stats.rs as
//! Python's are, `python_records`), written into the two places the JS
//! binding lists them, each a marked section of a hand-written file: the
//! wasm side's array of the counters `_statsCounts` sends
//! (`bindings-js/src/policy.rs`) and the names `lib/stats.js` gives them, in
//! the same order (camelCase, as every JS key).

use std::path::Path;

use retryplan::config::value::camel_case;

use crate::docs::{self, Field};
use crate::output::{splice_section, Output};
use crate::python_records::WIDTH;

pub const POLICY_RS: &str = "bindings-js/src/policy.rs";
pub const STATS_JS: &str = "bindings-js/lib/stats.js";
const SECTION: &str = "the Stats counters (core/src/engine/stats.rs)";

/// `bindings-js/src/policy.rs` and `lib/stats.js` under `root`, their Stats sections written from the core's struct.
pub fn outputs(root: &Path) -> Result<Vec<Output>, String> {
    let stats = docs::struct_record(&root.join("core/src/engine/stats.rs"), "Stats")?;
    let counters: Vec<&Field> = stats.fields.iter().filter(|field| field.ty == "u64").collect();
    let read = |path: &str| std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"));
    Ok(vec![
        Output {
            path: POLICY_RS,
            text: splice_section(&read(POLICY_RS)?, POLICY_RS, "//", SECTION, &rust(&counters))?,
        },
        Output { path: STATS_JS, text: splice_section(&read(STATS_JS)?, STATS_JS, "//", SECTION, &js(&counters))? },
    ])
}

/// The wasm side: how many counters, and a `Stats`'s counters in field order.
fn rust(counters: &[&Field]) -> String {
    let fields: Vec<String> = counters.iter().map(|field| format!("stats.{}", field.name)).collect();
    format!(
        "/// The counters of the core's `Stats` that `_statsCounts` sends before the give-ups.\n\
         const STATS_FIELDS: usize = {};\n\n\
         /// The `u64` counters of `stats`, in the order of the core's `Stats` fields.\n\
         fn stats_fields(stats: &rp::engine::stats::Stats) -> [u64; STATS_FIELDS] {{\n{}}}\n",
        counters.len(),
        array("    [", &fields, "]")
    )
}

/// The JS side: the counters' names, in the same order.
fn js(counters: &[&Field]) -> String {
    let names: Vec<String> = counters.iter().map(|field| format!("'{}'", camel_case(&field.name))).collect();
    array("const COUNTERS = [", &names, "];")
}

/// `items` between `open` and `close` as rustfmt and Biome write them: on one line while it fits in
/// [`WIDTH`] columns, else one item a line (a trailing comma after each).
fn array(open: &str, items: &[String], close: &str) -> String {
    let line = format!("{open}{}{close}\n", items.join(", "));
    if line.len() <= WIDTH + 1 {
        return line;
    }
    let indent = " ".repeat(open.len() - open.trim_start().len());
    let items: Vec<String> = items.iter().map(|item| format!("{indent}    {item},\n")).collect();
    format!("{open}\n{}{indent}{close}\n", items.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter added to the core's `Stats` reaches both lists, in field order; a field that is not a
    /// counter (`gave_up`, by reason) reaches neither.
    #[test]
    fn a_new_counter_reaches_the_wasm_side_and_the_names() {
        let root = crate::workspace_root();
        let mut stats = docs::struct_record(&root.join("core/src/engine/stats.rs"), "Stats").unwrap();
        stats.fields.push(Field { name: "hedges_won".into(), ty: "u64".into(), doc: "Hedges that won.".into() });
        let counters: Vec<&Field> = stats.fields.iter().filter(|field| field.ty == "u64").collect();
        let (rust, js) = (rust(&counters), js(&counters));
        assert!(rust.contains("const STATS_FIELDS: usize = 8;\n"));
        assert!(rust.contains("        stats.restarts,\n        stats.hedges_won,\n    ]\n"));
        assert!(js.ends_with("'restarts', 'hedgesWon'];\n"));
        assert_eq!(array("    [", &["a".into(), "b".into()], "]"), "    [a, b]\n");
        assert!(!rust.contains("gave_up") && !js.contains("gaveUp"));
    }
}
