//! The telemetry vocabulary of `retryplan::telemetry` (metric names, units,
//! descriptions, attribute keys, the give-up event's name, and for the two
//! hosts that read signals as tagged tuples the signal kinds' names), for
//! every language that reports to OpenTelemetry: Python's
//! `bindings-python/python/retryplan/_telemetry_names.py`, JS's
//! `bindings-js/lib/generated/telemetry.js` and Kotlin's
//! `bindings-kotlin/kotlin/main/dev/retryplan/Telemetry.kt`. Which signals a
//! decision produces is not mirrored: each binding asks the core
//! (`telemetry::signals`; Kotlin's `telemetrySignals(event)`, whose records
//! are uniffi's sealed classes, so Kotlin needs no signal kind names).

use retryplan::config::value::Named;
use retryplan::telemetry::{Attribute, Metric, SignalKind};

use crate::output::{Output, HEADER};

pub const PYTHON: &str = "bindings-python/python/retryplan/_telemetry_names.py";
pub const JS: &str = "bindings-js/lib/generated/telemetry.js";
pub const KOTLIN: &str = "bindings-kotlin/kotlin/main/dev/retryplan/Telemetry.kt";

/// A string literal Python, JS and Kotlin read the same way (the table's text is plain ASCII without quotes).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn outputs() -> Vec<Output> {
    vec![python(), js(), kotlin()]
}

fn constants() -> [(&'static str, &'static str, &'static str); 6] {
    use retryplan::telemetry::{
        ABORTED_ERROR_TYPE, GIVE_UP_EVENT, OTHER_ERROR_TYPE, OTHER_METHOD, OTHER_METHOD_SPAN_NAME, SCOPE_NAME,
    };
    [
        ("SCOPE_NAME", SCOPE_NAME, "The instrumentation scope every helper reports under."),
        ("GIVE_UP_EVENT", GIVE_UP_EVENT, "The span event of a give-up."),
        ("ABORTED_ERROR_TYPE", ABORTED_ERROR_TYPE, "`error.type` of an attempt the ending aborts."),
        ("OTHER_ERROR_TYPE", OTHER_ERROR_TYPE, "`error.type` of an application failure that raised nothing."),
        ("OTHER_METHOD", OTHER_METHOD, "`http.request.method` of a method not in KNOWN_HTTP_METHODS."),
        ("OTHER_METHOD_SPAN_NAME", OTHER_METHOD_SPAN_NAME, "The span name of an HTTP attempt of such a method."),
    ]
}

/// Each signal kind as a constant: its name (`SIGNAL_GAVE_UP`), its value (the core's name) and the kind.
fn signal_kinds() -> Vec<(String, &'static str, SignalKind)> {
    SignalKind::ALL.iter().map(|kind| (format!("SIGNAL_{}", shouting(kind.name())), kind.name(), *kind)).collect()
}

fn python() -> Output {
    let mut text = format!(
        "# {HEADER}\n\"\"\"The telemetry vocabulary of the core (core/src/driver/telemetry): metric names, units, \
         descriptions and attribute keys.\"\"\"\n\nfrom __future__ import annotations\n\n"
    );
    for (name, value, doc) in constants() {
        text.push_str(&format!("{name} = {}\n\"\"\"{doc}\"\"\"\n", quoted(value)));
    }
    for (name, value, kind) in signal_kinds() {
        text.push_str(&format!(
            "{name} = {}\n\"\"\"The tag of the core's ``{kind:?}`` signal (its ``SignalKind``).\"\"\"\n",
            quoted(value)
        ));
    }
    let methods: Vec<String> = retryplan::telemetry::KNOWN_HTTP_METHODS.iter().map(|m| quoted(m)).collect();
    text.push_str(&format!(
        "KNOWN_HTTP_METHODS = frozenset({{{}}})\n\"\"\"The methods the semantic conventions call known.\"\"\"\n",
        methods.join(", ")
    ));
    text.push_str("\nATTRIBUTES = {\n");
    for attribute in Attribute::ALL {
        text.push_str(&format!("    {}: {},\n", quoted(attribute.name()), quoted(attribute.key())));
    }
    text.push_str("}\n\"\"\"Every attribute key, by the core's name of it.\"\"\"\n\nMETRICS = (\n");
    for metric in Metric::ALL {
        let attribute = metric.attribute().map_or_else(|| "None".to_owned(), |attribute| quoted(attribute.key()));
        text.push_str(&format!(
            "    ({}, {}, {}, {}, {}),\n",
            quoted(metric.name()),
            quoted(metric.otel_name()),
            quoted(metric.unit()),
            quoted(metric.description()),
            attribute
        ));
    }
    text.push_str(
        ")\n\"\"\"Every counter: (the core's name, instrument name, unit, description, the attribute key of its \
         data points or None).\"\"\"\n",
    );
    Output { path: PYTHON, text }
}

fn js() -> Output {
    let mut text = format!("// {HEADER}\n// The telemetry vocabulary of the core (retryplan::telemetry).\n\n");
    for (name, value, doc) in constants() {
        text.push_str(&format!("/** {doc} */\nexport const {name} = {};\n", quoted(value)));
    }
    for (name, value, kind) in signal_kinds() {
        let doc = format!("The tag of a `Signal::{kind:?}` (the core's `SignalKind`).");
        text.push_str(&format!("/** {doc} */\nexport const {name} = {};\n", quoted(value)));
    }
    let methods: Vec<String> = retryplan::telemetry::KNOWN_HTTP_METHODS.iter().map(|m| quoted(m)).collect();
    text.push_str(&format!(
        "/** The methods the semantic conventions call known. */\nexport const KNOWN_HTTP_METHODS = Object.freeze(new Set([{}]));\n",
        methods.join(", ")
    ));
    text.push_str(
        "\n/** Every attribute key, by the core's name of it. */\nexport const ATTRIBUTES = Object.freeze({\n",
    );
    for attribute in Attribute::ALL {
        text.push_str(&format!("  {}: {},\n", attribute.name(), quoted(attribute.key())));
    }
    text.push_str(
        "});\n\n/** Every counter: the core's name, instrument name, unit, description, the attribute key of its \
         data points or null. */\nexport const METRICS = Object.freeze([\n",
    );
    for metric in Metric::ALL {
        let attribute = metric.attribute().map_or_else(|| "null".to_owned(), |attribute| quoted(attribute.key()));
        text.push_str(&format!(
            "  Object.freeze({{ name: {}, otelName: {}, unit: {}, description: {}, attribute: {} }}),\n",
            quoted(metric.name()),
            quoted(metric.otel_name()),
            quoted(metric.unit()),
            quoted(metric.description()),
            attribute
        ));
    }
    text.push_str("]);\n");
    Output { path: JS, text }
}

/// A Kotlin string literal (a `$` would start a template).
fn kotlin_quoted(text: &str) -> String {
    quoted(text).replace('$', "\\$")
}

/// `give_ups` as Kotlin spells a constant: `GIVE_UPS`.
fn shouting(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// A variant's Rust ident (its `Debug`) as uniffi names the Kotlin enum entry: `GiveUps` is `GIVE_UPS`.
fn entry(variant: impl std::fmt::Debug) -> String {
    let mut out = String::new();
    for (index, c) in format!("{variant:?}").chars().enumerate() {
        if c.is_ascii_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

fn kotlin() -> Output {
    let mut text = format!(
        "// {HEADER}\npackage dev.retryplan\n\n/**\n * The telemetry vocabulary of the core (`retryplan::telemetry`): metric names, units,\n \
         * descriptions and attribute keys. Which signals an [Event] produces is the core's too:\n \
         * [telemetrySignals] (the mapping: core/src/compatibility/telemetry.md).\n */\nobject Telemetry {{\n"
    );
    for (name, value, doc) in constants() {
        text.push_str(&format!("    /** {doc} */\n    const val {name} = {}\n\n", kotlin_quoted(value)));
    }
    let methods: Vec<String> = retryplan::telemetry::KNOWN_HTTP_METHODS.iter().map(|m| kotlin_quoted(m)).collect();
    text.push_str(&format!(
        "    /** The methods the semantic conventions call known. */\n    val KNOWN_HTTP_METHODS: Set<String> = setOf({})\n\n",
        methods.join(", ")
    ));
    text.push_str("    /** Every attribute key (the core's `Attribute`). */\n    object Attributes {\n");
    for attribute in Attribute::ALL {
        text.push_str(&format!(
            "        /** {} */\n        const val {} = {}\n",
            attribute.description(),
            shouting(attribute.name()),
            kotlin_quoted(attribute.key())
        ));
    }
    text.push_str("    }\n\n    /** Every counter, by the core's [Metric], in the core's order. */\n    val METRICS: Map<Metric, TelemetryMetric> = linkedMapOf(\n");
    for metric in Metric::ALL {
        let attribute =
            metric.attribute().map_or_else(|| "null".to_owned(), |attribute| kotlin_quoted(attribute.key()));
        text.push_str(&format!(
            "        Metric.{} to TelemetryMetric({}, {}, {}, {}),\n",
            entry(metric),
            kotlin_quoted(metric.otel_name()),
            kotlin_quoted(metric.unit()),
            kotlin_quoted(metric.description()),
            attribute
        ));
    }
    text.push_str(
        "    )\n\n    /** The counter [metric] names. */\n    fun metric(metric: Metric): TelemetryMetric = METRICS.getValue(metric)\n\n    \
         /** `retryplan.give_up.reason` of each [GiveUpReason]: the core's name of it. */\n    \
         val GIVE_UP_REASONS: Map<GiveUpReason, String> = linkedMapOf(\n",
    );
    for reason in retryplan::GiveUpReason::ALL {
        text.push_str(&format!("        GiveUpReason.{} to {},\n", entry(reason), kotlin_quoted(reason.name())));
    }
    text.push_str(
        "    )\n\n    /** The core's name of [reason], as `retryplan.give_up.reason` says it. */\n    \
         fun giveUpReason(reason: GiveUpReason): String = GIVE_UP_REASONS.getValue(reason)\n}\n\n\
         /**\n * One counter: its instrument [name], [unit] and [description], and [attribute], the key of\n \
         * its data points' one attribute (null: it has none).\n */\n\
         data class TelemetryMetric(val name: String, val unit: String, val description: String, val attribute: String?)\n",
    );
    Output { path: KOTLIN, text }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_metric_and_key_is_written_in_every_language() {
        for output in super::outputs() {
            for metric in retryplan::telemetry::Metric::ALL {
                assert!(output.text.contains(metric.otel_name()), "{}: {metric:?}", output.path);
            }
            for attribute in retryplan::telemetry::Attribute::ALL {
                assert!(output.text.contains(attribute.key()), "{}: {attribute:?}", output.path);
            }
        }
    }

    #[test]
    fn the_hosts_that_read_tagged_signals_get_every_kind_by_the_cores_name() {
        use retryplan::config::value::Named;
        for output in [super::python(), super::js()] {
            for kind in retryplan::telemetry::SignalKind::ALL {
                let constant = format!("SIGNAL_{} = \"{}\"", kind.name().to_ascii_uppercase(), kind.name());
                assert!(output.text.contains(&constant), "{}: {constant}", output.path);
            }
        }
    }
}
