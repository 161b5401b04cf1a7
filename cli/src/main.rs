//! `retryplan`: check a policy file, explain its worst case, simulate a fleet,
//! compile a policy.
//!
//! Exit codes: 0 ok; 1 the file is invalid (every problem printed with its
//! field and rule), or `explain --strict` found warnings; 2 usage or I/O
//! error; 3 internal error (a bug: the engine refused an event from the
//! simulator).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use retryplan_cli::file::{self, FileError, Plan, Selection};
use retryplan_cli::simulate::{self, VariantName};
use retryplan_cli::{chart, compile, explain, report};

#[derive(Parser)]
#[command(name = "retryplan", version, about = "See what a retry policy does before an outage does it.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Every numeric option takes a leading `-` as its value
// (`allow_negative_numbers`), so `--deadline-ms -5` is refused as an invalid
// value of `--deadline-ms`, not as an unknown argument `-5`.
#[derive(Subcommand)]
enum Command {
    /// Validate a policy file; print every problem with its field and rule.
    Check {
        /// A policy, or a plan with policy/profiles/dependency/scenario.
        file: String,
        /// Check only this profile of the file's `profiles` (default: all).
        #[arg(long)]
        profile: Option<String>,
    },
    /// Print the policy's worst-case timeline against its deadline.
    Explain {
        /// A policy, or a plan with policy/profiles/dependency/scenario.
        file: String,
        /// Use this profile of the file's `profiles`.
        #[arg(long)]
        profile: Option<String>,
        /// A caller's deadline, ms from the operation's start (default: the policy's total timeout).
        #[arg(long, allow_negative_numbers = true, value_parser = ms)]
        deadline_ms: Option<u64>,
        /// Time spent before the first attempt (queueing, connecting), ms.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = ms)]
        first_attempt_at_ms: u64,
        /// Print the timeline as JSON.
        #[arg(long)]
        json: bool,
        /// Exit with 1 when the timeline has warnings (for CI).
        #[arg(long)]
        strict: bool,
    },
    /// Validate a policy (as `check` does) and write its compiled form, which a
    /// runtime loads (Policy::from_compiled) without reading JSON. Default: one
    /// line of base64 text on stdout (RFC 4648 section 4: the standard alphabet
    /// A-Z a-z 0-9 + /, padded with =).
    Compile {
        /// A policy, or a plan with policy/profiles/dependency/scenario.
        file: String,
        /// Compile this profile of the file's `profiles` (default: its `policy`).
        #[arg(long)]
        profile: Option<String>,
        /// Write the raw bytes to this file instead of base64 text to stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Compile the plan's `dependency` (budget, breaker, retry slots) instead of its policy.
        #[arg(long, conflicts_with = "profile")]
        dependency: bool,
    },
    /// Simulate a fleet running the policy through the file's scenario.
    Simulate {
        /// A plan with a `scenario` (see examples/checkout.json).
        file: String,
        /// Use this profile of the file's `profiles`.
        #[arg(long)]
        profile: Option<String>,
        /// Seed of the world and of every operation: same seed, same run.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        seed: u64,
        /// Print the full report (every bucket of every variant) as JSON.
        #[arg(long)]
        json: bool,
        /// Where to write the SVG chart (default: beside FILE, with the extension .svg); its directory must exist.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Do not write the chart.
        #[arg(long, conflicts_with = "svg")]
        no_svg: bool,
        /// Variants to compare, comma-separated: as-written, no-jitter, no-budget, layered, propagated.
        #[arg(long, value_delimiter = ',', default_value = "as-written,no-jitter,no-budget,layered,propagated")]
        variants: Vec<String>,
    },
}

/// A time in ms for an option: a whole number no clock reading passes
/// (`MAX_MS`, 2^53 - 1, as every binding and the core refuse past it), in
/// the core's words; clap names the option and exits with 2.
fn ms(text: &str) -> Result<u64, String> {
    text.parse::<u64>().ok().filter(|ms| *ms <= retryplan::ground::units::MAX_MS).ok_or_else(|| {
        format!("must be a whole number of milliseconds in 0..=2^53 - 1 ({})", retryplan::ground::units::MAX_MS)
    })
}

/// Writes to stderr, as [`out`] writes to stdout: a closed pipe
/// (`2>&1 | head -c1`) ends the messages quietly rather than panicking as
/// `eprintln!` does; any other failure to write a message has nowhere to be
/// told, and the exit code says what happened.
fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes()).and_then(|()| stderr.flush());
}

/// [`err`] with `format!`'s arguments and a newline, as `eprintln!`.
macro_rules! errln {
    ($($arg:tt)*) => { err(&format!("{}\n", format_args!($($arg)*))) };
}

/// Writes to stdout. A closed pipe (`| head -c1`) is the reader saying it has
/// seen enough: the output ends quietly, with no message, and the command
/// finishes as it would have (as `print!` would not: it panics). Any other
/// write error (a full disk: `> /dev/full`) is printed and the command exits
/// with 2, as `compile --out` does for a file it cannot write.
fn out(text: &str) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            errln!("retryplan: cannot write to stdout: {error}");
            Err(ExitCode::from(USAGE))
        }
        _ => Ok(()),
    }
}

const INVALID: u8 = 1;
const USAGE: u8 = 2;
const INTERNAL: u8 = 3;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return not_a_command(&error),
    };
    match cli.command {
        Command::Check { file, profile } => check(&file, profile.as_deref()),
        Command::Explain { file, profile, deadline_ms, first_attempt_at_ms, json, strict } => {
            explain(&file, profile.as_deref(), deadline_ms, first_attempt_at_ms, json, strict)
        }
        Command::Compile { file, profile, out, dependency } => {
            compile(&file, profile.as_deref(), out.as_deref(), dependency)
        }
        Command::Simulate { file, profile, seed, json, svg, no_svg, variants } => {
            let svg = (!no_svg).then(|| svg.unwrap_or_else(|| chart_beside(&file)));
            simulate(&file, profile.as_deref(), seed, json, svg, &variants)
        }
    }
}

/// What clap answers instead of a command. Help and the version go to stdout
/// through [`out`], so a failure to write them is told and exits with 2 (as
/// GNU tools do; clap's own `exit` ignores it: `--help > /dev/full` exited 0),
/// and a closed pipe ends them quietly. A usage error goes to stderr, exit 2.
fn not_a_command(error: &clap::Error) -> ExitCode {
    let text = error.render().to_string();
    if error.use_stderr() {
        err(&text);
        return ExitCode::from(USAGE);
    }
    match out(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// The default chart path: the plan file's own path with the extension
/// `.svg` (`examples/checkout.json` -> `examples/checkout.svg`), never the
/// plan file itself.
fn chart_beside(file: &str) -> PathBuf {
    let path = Path::new(file);
    let beside = path.with_extension("svg");
    if beside == path {
        PathBuf::from(format!("{file}.chart.svg"))
    } else {
        beside
    }
}

/// Whether `output` names the file `input` (the same file by another path
/// too: `./plan.json`, a link). A file that does not exist yet is never the
/// input.
fn same_file(output: &Path, input: &Path) -> bool {
    match (std::fs::canonicalize(output), std::fs::canonicalize(input)) {
        (Ok(output), Ok(input)) => output == input,
        _ => false,
    }
}

/// Prints a file error and returns its exit code.
fn fail(path: &str, error: &FileError) -> ExitCode {
    match error {
        FileError::Io(message) => {
            errln!("retryplan: {message}");
            ExitCode::from(USAGE)
        }
        FileError::Usage(message) => {
            errln!("retryplan: {path}: {message}");
            ExitCode::from(USAGE)
        }
        FileError::Invalid(problems) => {
            err(&problem_list(path, problems));
            ExitCode::from(INVALID)
        }
    }
}

fn problem_list(path: &str, problems: &[file::Problem]) -> String {
    let noun = if problems.len() == 1 { "problem" } else { "problems" };
    let mut text = format!("{path}: invalid, {} {noun}\n", problems.len());
    for problem in problems {
        text.push_str(&format!("  {}\n", problem.line()));
    }
    text
}

fn load(path: &str, profile: Option<&str>, all_profiles: bool) -> Result<Plan, ExitCode> {
    let text = file::read(path).map_err(|error| fail(path, &error))?;
    file::load(&text, &Selection { profile, all_profiles }).map_err(|error| fail(path, &error))
}

fn check(path: &str, profile: Option<&str>) -> ExitCode {
    let text = match file::read(path) {
        Ok(text) => text,
        Err(error) => return fail(path, &error),
    };
    match file::load(&text, &Selection { profile, all_profiles: profile.is_none() }) {
        Ok(plan) => {
            let mut text = format!("{path}: ok ({})\n", plan.sections.join(", "));
            if !plan.warnings.is_empty() {
                let noun = if plan.warnings.len() == 1 { "warning" } else { "warnings" };
                text.push_str(&format!("{} {noun}:\n", plan.warnings.len()));
                for warning in &plan.warnings {
                    text.push_str(&format!("  {}\n", warning.line()));
                }
            }
            out(&text).err().unwrap_or(ExitCode::SUCCESS)
        }
        Err(FileError::Invalid(problems)) => {
            // The problems are the command's output here.
            out(&problem_list(path, &problems)).err().unwrap_or(ExitCode::from(INVALID))
        }
        Err(error) => fail(path, &error),
    }
}

fn compile(path: &str, profile: Option<&str>, out_path: Option<&Path>, dependency: bool) -> ExitCode {
    let plan = match load(path, profile, false) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    if dependency && !plan.sections.iter().any(|section| section == "dependency") {
        // A valid file without the section asked for: a usage error, as an unknown profile is.
        let message =
            "compile --dependency needs a `dependency` section (budget, breaker, retry_slots), and the file has none";
        return fail(path, &FileError::Usage(message.to_owned()));
    }
    if !plan.warnings.is_empty() {
        let noun = if plan.warnings.len() == 1 { "warning" } else { "warnings" };
        let mut text = format!("{path}: {} {noun} (compiled anyway):\n", plan.warnings.len());
        for warning in &plan.warnings {
            text.push_str(&format!("  {}\n", warning.line()));
        }
        err(&text);
    }
    if let Some(out_path) = out_path.filter(|out_path| same_file(out_path, Path::new(path))) {
        errln!(
            "retryplan: compile --out {} is the file being compiled: it would be overwritten; write the compiled form elsewhere",
            out_path.display()
        );
        return ExitCode::from(USAGE);
    }
    let (what, form) = if dependency {
        // Validated by `load` already: compiling a valid configuration cannot fail.
        match plan.dependency_config.to_compiled() {
            Ok(form) => ("dependency", form),
            Err(error) => {
                errln!("retryplan: internal error: {error}");
                return ExitCode::from(INTERNAL);
            }
        }
    } else {
        (plan.policy_source.as_str(), plan.policy.to_compiled())
    };
    match out_path {
        None => {
            if let Err(code) = out(&format!("{}\n", compile::base64(&form))) {
                return code;
            }
        }
        Some(out_path) => {
            if let Err(error) = std::fs::write(out_path, &form) {
                errln!("retryplan: cannot write {}: {error}", out_path.display());
                return ExitCode::from(USAGE);
            }
            errln!("{path}: {what} compiled, {} bytes written to {}", form.len(), out_path.display());
        }
    }
    ExitCode::SUCCESS
}

fn explain(
    path: &str,
    profile: Option<&str>,
    deadline_ms: Option<u64>,
    first_at: u64,
    json: bool,
    strict: bool,
) -> ExitCode {
    let plan = match load(path, profile, false) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    // The options are in range already (`ms`); the core refuses the same.
    let timeline = match explain::timeline(&plan, deadline_ms, first_at) {
        Ok(timeline) => timeline,
        Err(error) => {
            errln!("retryplan: {error}");
            return ExitCode::from(USAGE);
        }
    };
    let text = if json {
        match serde_json::to_string_pretty(&timeline) {
            Ok(text) => format!("{text}\n"),
            Err(error) => {
                errln!("retryplan: cannot write JSON: {error}");
                return ExitCode::from(INTERNAL);
            }
        }
    } else {
        let source =
            if plan.policy_source == "policy" { path.to_owned() } else { format!("{path} ({})", plan.policy_source) };
        explain::render_policy(&source, &plan.policy, &timeline)
    };
    if let Err(code) = out(&text) {
        return code;
    }
    if strict && !timeline.warnings.is_empty() {
        let count = timeline.warnings.len();
        let noun = if count == 1 { "warning" } else { "warnings" };
        errln!("retryplan: {path}: {count} {noun}, and --strict fails on warnings");
        return ExitCode::from(INVALID);
    }
    ExitCode::SUCCESS
}

fn simulate(
    path: &str,
    profile: Option<&str>,
    seed: u64,
    json: bool,
    svg: Option<PathBuf>,
    variant_names: &[String],
) -> ExitCode {
    let mut names = Vec::new();
    for text in variant_names {
        match VariantName::parse(text.trim()) {
            Some(name) if !names.contains(&name) => names.push(name),
            Some(_) => {}
            None => {
                let known: Vec<&str> = VariantName::ALL.iter().map(|variant| variant.name()).collect();
                errln!("retryplan: unknown variant `{text}` (known: {})", known.join(", "));
                return ExitCode::from(USAGE);
            }
        }
    }
    // Refused before the run rather than after it, as `compile --out` refuses
    // a path whose directory is missing (no directory is created), and as
    // the default chart path is never the plan file itself (`chart_beside`).
    if let Some(svg_path) = svg.as_deref().filter(|svg_path| same_file(svg_path, Path::new(path))) {
        errln!(
            "retryplan: simulate --svg {} is the plan file: the chart would overwrite it; write the chart elsewhere",
            svg_path.display()
        );
        return ExitCode::from(USAGE);
    }
    if let Some(svg_path) = &svg {
        if let Some(parent) = svg_path.parent().filter(|parent| !parent.as_os_str().is_empty() && !parent.is_dir()) {
            errln!("retryplan: cannot write the chart to {}: no directory {}", svg_path.display(), parent.display());
            return ExitCode::from(USAGE);
        }
    }
    let plan = match load(path, profile, false) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    let Some(scenario) = plan.scenario.clone() else {
        err(&problem_list(
            path,
            &[file::Problem {
                field: "scenario".to_owned(),
                message: "simulate needs a `scenario` (arrivals, capacity, phases): see examples/checkout.json"
                    .to_owned(),
            }],
        ));
        return ExitCode::from(INVALID);
    };
    let variants = match simulate::variants(&plan, &scenario, &names) {
        Ok(variants) => variants,
        Err(message) => {
            errln!("{path}: invalid, 1 problem\n  {message}");
            return ExitCode::from(INVALID);
        }
    };

    let started = Instant::now();
    let show_progress = std::io::stderr().is_terminal();
    let count = variants.len();
    let mut last_shown = Instant::now();
    let mut progress = |index: usize, done: f64| {
        if show_progress && (last_shown.elapsed().as_millis() >= 200 || done >= 1.0) {
            last_shown = Instant::now();
            let name = variants.get(index).map_or("", |variant| variant.name.name());
            err(&format!("\rsimulating {name} ({}/{count}): {:>3.0}%   ", index + 1, done * 100.0));
        }
    };
    let result = simulate::run(&plan, &scenario, &variants, seed, &mut progress);
    if show_progress {
        err(&format!("\r{:60}\r", ""));
    }
    let result = match result {
        Ok(result) => result,
        Err(error) => {
            errln!("retryplan: internal error: {}", error.0);
            return ExitCode::from(INTERNAL);
        }
    };
    let elapsed = started.elapsed().as_secs_f64();
    let attempts: u64 = result.variants.iter().map(|variant| variant.summary.attempts).sum();
    let operations: u64 = result.variants.iter().map(|variant| variant.summary.operations).sum();
    let noun = if result.variants.len() == 1 { "variant" } else { "variants" };
    errln!(
        "simulated {} {noun} of this scenario ({operations} operations, {attempts} attempts at the dependency) in {elapsed:.2} s of wall time: {:.1} M attempts/s on this machine now, every one decided by the core (the simulator alone, on a fixed workload: cargo bench -p retryplan-cli)",
        result.variants.len(),
        attempts as f64 / elapsed.max(1e-9) / 1e6
    );

    let text = if json {
        match serde_json::to_string_pretty(&result) {
            Ok(text) => format!("{text}\n"),
            Err(error) => {
                errln!("retryplan: cannot write JSON: {error}");
                return ExitCode::from(INTERNAL);
            }
        }
    } else {
        report::table(&scenario, seed, &result.variants)
    };
    if let Err(code) = out(&text) {
        return code;
    }
    if let Some(svg_path) = svg {
        let written = chart::svg(path, &scenario, seed, &result.variants)
            .and_then(|text| std::fs::write(&svg_path, text).map_err(|error| error.to_string()));
        match written {
            Ok(()) => errln!("chart written to {}", svg_path.display()),
            Err(error) => {
                errln!("retryplan: cannot write the chart to {}: {error}", svg_path.display());
                return ExitCode::from(USAGE);
            }
        }
    }
    ExitCode::SUCCESS
}
