//! The methods generator's one definition: each exported class of a family
//! (the shared controls, which every binding writes; the engine's `Operation`,
//! which Python's and Kotlin's writers write, and `Driver`, which JS's writes
//! too: [`ENGINE`], [`DRIVER`]; the `Policy`'s methods whose logic is the
//! core's, which Kotlin's and JS's tools entry write: [`POLICY`]), its constructors,
//! methods, the kind of each argument and result, and its doc, from which
//! `methods_python` (pyo3 and the `_native.pyi` section), `methods_kotlin`
//! (uniffi) and `methods_js` (wasm exports and JS classes) write each
//! binding's export file. A kind says how a value crosses (a clock reading,
//! a count, a grant handed back once); each binding's generator says how its
//! language spells that kind, so a method here is one entry, written once.
//!
//! A method calls the core method of the same name on the class's core
//! object (`call` when it differs), or what its `through` says (an object the
//! core object lends, a core function given it); the generator reads the
//! definition against the core's signatures and the compiler of each binding
//! checks the call.

mod check;
mod table;

pub use check::check;
pub use table::{COMPILE_DEPENDENCY, CONTROLS, DRIVER, ENGINE, POLICY};

/// How an argument crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A clock reading in ms (Python: `now` seconds or `now_ms`; Kotlin: `now_ms`).
    Now,
    /// A flag, false when left out.
    Flag(&'static str),
    /// A count (`u32` in the core; refused below 0 or above its range).
    Count(&'static str),
    /// A grant of class `class` handed back: taken (a second use is the core's
    /// `invalid_argument` naming it); `optional` when a first attempt has none.
    Grant { name: &'static str, class: &'static str, optional: bool },
    /// The class's configuration (Python: one dict or keyword arguments;
    /// Kotlin: its generated record), read by the core's one reader.
    Config,
    /// The class's configuration as JSON text (Python's `text`, Kotlin's `json`).
    Json,
    /// A compiled form (`compile_*`): bytes.
    Compiled,
    /// An object of the binding's class `class`, lent to the core's call
    /// (`&`); required.
    Instance { name: &'static str, class: &'static str },
    /// The options a new operation starts with (Python: the keywords `seed`,
    /// `idempotency_key`, `deadline`/`deadline_ms`, `dependency`).
    Options,
    /// The options a driver starts with beside an operation's (Python: the
    /// positional `concurrency` after `now`, the keywords `method`,
    /// `idempotent`, `request_idempotency_key`, `stats`, `record_events`,
    /// `returns_responses`, `one_shot_body`, `incoming`), read by the binding's
    /// `start`, which builds the core's object.
    Hosting,
    /// An object of the binding's class `class`, its core value copied into
    /// the call; required.
    Value { name: &'static str, class: &'static str },
    /// The host's handle `token` to the result it holds, and what it holds
    /// (`held`: a value by default); both optional, `held` refused without a
    /// token: two of the core's arguments.
    HeldToken,
    /// The host's handle `token` to the response it holds, optional.
    Token,
    /// A response as the platform received it (its status and headers): two
    /// of the core's arguments.
    Response,
    /// A wall-clock reading in ms (Python: `now_unix` seconds or `now_unix_ms`).
    NowUnix,
    /// The protocol a hop speaks (Python: `protocol`, `http` when left out).
    Protocol,
    /// A wire record in: a sequence of words.
    Words,
    /// A time span or an offset in ms (`u64`), named.
    Ms(&'static str),
    /// A time span or an offset in ms, named, or none (`Option<u64>`).
    OptionalMs(&'static str),
}

/// How a result crosses, and whether the core's call can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// Nothing; the core's call cannot fail.
    Unit,
    /// Nothing, or the core's error.
    UnitOrError,
    /// A flag, or the core's error.
    BoolOrError,
    /// A count (`u32`).
    Count,
    /// A number of grants out (`usize`).
    Outstanding,
    /// A grant of this class, or none when refused.
    Grant(&'static str),
    /// The state as the core serializes it (Python: a JSON-shaped dict;
    /// Kotlin: this generated record).
    Snapshot(&'static str),
    /// A dependency's control of this class, or none when it has none.
    Control(&'static str),
    /// A decision, or the core's error; the core's call steps its object (`&mut self`).
    DecisionOrError,
    /// A clock reading or a time span in ms (`u64`).
    Ms,
    /// A clock reading in ms, or none (`Option<u64>`).
    OptionalMs,
    /// A flag (`bool`).
    Bool,
    /// Text: the core's value of this type, displayed.
    Text(&'static str),
    /// Attempt numbers, ascending (`AttemptSet`).
    Attempts,
    /// A copy of the core's value the binding's class of this name holds (`&` it in the core).
    Object(&'static str),
    /// Nothing; the core's call steps its object (`&mut self`) and cannot fail.
    Steps,
    /// Nothing, or the core's error; the core's call steps its object (`&mut self`).
    StepsOrError,
    /// The driver's next action, or the core's error; the call steps its object.
    ActionOrError,
    /// The driver's receipt of a result, or the core's error; the call steps its object.
    ReceiptOrError,
    /// Headers by name, or the core's error (`HeaderList`).
    HeadersOrError,
    /// Headers by name (`HeaderList`).
    Headers,
    /// The oldest recorded event not yet read, or none; the call steps its object.
    Event,
    /// A wire record out: the core fills the output record, one more of its
    /// arguments, or refuses the input (its error); the call steps its object.
    Record,
    /// A compiled form: bytes (`Vec<u8>`).
    Compiled,
    /// Time spans in ms, in order, or the core's error (`Vec<u64>`).
    SpansOrError,
    /// The core's value of this type, as the binding's value of that name, or the core's error.
    ValueOrError(&'static str),
}

/// One exported method.
#[derive(Clone, Copy, Debug)]
pub struct Method {
    pub name: &'static str,
    pub doc: &'static str,
    pub args: &'static [Arg],
    pub ret: Ret,
    /// A property (Python) rather than a call; Kotlin calls it either way.
    pub getter: bool,
    /// The core method, when its name differs.
    pub call: Option<&'static str>,
    /// A deprecated alias kept for one release: the method is the core's
    /// `call` under its old name, and warns.
    pub deprecated: bool,
    /// What the call goes through, when not the core object's own method.
    pub through: Option<Through>,
}

impl Method {
    /// The definition's doc as one binding spells what every binding's doc shares: "or `nothing`" for the
    /// definition's "or none", and the binding's names of the clock readings (`now`, `now_unix`) when the method
    /// takes them. Each writer then adds its own language's words.
    pub fn doc_spelt(&self, nothing: &str, now: &str, now_unix: &str) -> String {
        let mut text = self.doc.replace(", or none", &format!(", or {nothing}"));
        if self.args.contains(&Arg::Now) {
            text = text.replace("`now`", &format!("`{now}`"));
        }
        if self.args.contains(&Arg::NowUnix) {
            text = text.replace("`now_unix`", &format!("`{now_unix}`"));
        }
        text
    }
}

/// What a method's call goes through.
#[derive(Clone, Copy, Debug)]
pub enum Through {
    /// The binding's own function of this name on its class (`self.hand_in`),
    /// which picks the core's call (checked against `call`).
    Binding(&'static str),
    /// An object the core object lends (`accessor`, returning `&core`, the
    /// core type defined in `source`), whose method is called.
    Lent { accessor: &'static str, core: &'static str, source: &'static str },
    /// The core's free function at `path` (from the crate's root), defined in
    /// `source`, given the class's core object (`&`) first.
    Function { path: &'static str, source: &'static str },
}

/// What a class is.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// The controls of one dependency (`Dependency`), holding `Arc<rp::Dependency>`.
    Bundle,
    /// A control (`core`), on its own or a dependency's (read by `field`).
    Control { core: &'static str, field: &'static str },
    /// A grant (`core`) a control hands out, with the one fact it carries,
    /// kept beside its cell.
    Grant { core: &'static str, fact: Option<Fact> },
    /// An engine object (`core`) the class holds alone and steps: one caller
    /// at a time, never shared between threads. Its `__repr__` is the
    /// binding's (`repr`, beside the generated class). `boxed`: held in a
    /// `Box` (a driver is a few KB, moved once instead of at every step of
    /// making its Python object), and shown as Python shows any object.
    Engine { core: &'static str, boxed: bool },
    /// An immutable core value (`core`) the class holds, shared by any number
    /// of threads without a lock.
    Value { core: &'static str },
}

/// The one fact a grant carries: its name, doc, the core method reading it
/// and the core's type of it (`u32` or `bool`).
#[derive(Clone, Copy, Debug)]
pub struct Fact {
    pub name: &'static str,
    pub doc: &'static str,
    pub call: &'static str,
    pub ty: &'static str,
}

/// One exported class.
#[derive(Clone, Copy, Debug)]
pub struct Class {
    pub name: &'static str,
    pub doc: &'static str,
    pub shape: Shape,
    /// The core's files defining the methods of its core type.
    pub sources: &'static [&'static str],
    /// The configuration kind (`rp::config::error::ConfigKind::*`, `rp::*Config`) of `Arg::Config`.
    pub config: Option<&'static str>,
    /// Constructors: the first is the class's own (`new`), the others static.
    pub constructors: &'static [Method],
    pub methods: &'static [Method],
}

pub(crate) const fn method(name: &'static str, doc: &'static str, args: &'static [Arg], ret: Ret) -> Method {
    Method { name, doc, args, ret, getter: false, call: None, deprecated: false, through: None }
}

pub(crate) const fn getter(name: &'static str, doc: &'static str, ret: Ret) -> Method {
    Method { name, doc, args: &[], ret, getter: true, call: None, deprecated: false, through: None }
}

/// A constructor: it returns its class (`ret` is not read).
const fn constructor(name: &'static str, doc: &'static str, args: &'static [Arg]) -> Method {
    method(name, doc, args, Ret::Unit)
}

/// A family of classes this definition holds beside the shared controls
/// (which every binding writes), and which bindings write it: a binding whose
/// flag is off keeps its glue of these classes by hand (its writer has no
/// kinds for them yet).
#[derive(Clone, Copy, Debug)]
pub struct Family {
    pub classes: &'static [Class],
    /// Python's writer writes it (`methods_python`, `methods_python_stub`).
    pub python: bool,
    /// Kotlin's writer writes it (`methods_kotlin_engine`).
    pub kotlin: bool,
    /// JS's writer writes it (`methods_js_engine`: the `Driver`'s and the `Operation`'s methods;
    /// `methods_js_tools`: the `Policy`'s, in the tools entry).
    pub js: bool,
}

/// The class named `name` in `classes`.
pub fn class_named<'a>(classes: &'a [Class], name: &str) -> Result<&'a Class, String> {
    classes.iter().find(|class| class.name == name).ok_or_else(|| format!("no class {name} in the definition"))
}

/// The fact a grant's object keeps beside its cell (the same Rust in every
/// binding): its field line, and its initializer read from the core's `grant`.
pub fn kept_fact(fact: Option<Fact>) -> (String, String) {
    match fact {
        Some(Fact { name, ty, call, .. }) => (format!("    {name}: {ty},\n"), format!("{name}: grant.{call}(), ")),
        None => (String::new(), String::new()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `CONTROLS` with `method` added to the class `name`.
    pub(crate) fn with_method(name: &str, method: Method) -> Vec<Class> {
        let mut classes = CONTROLS.to_vec();
        let class = classes.iter_mut().find(|class| class.name == name).unwrap();
        let mut methods = class.methods.to_vec();
        methods.push(method);
        class.methods = Box::leak(methods.into_boxed_slice());
        classes
    }

    /// A definition that says another kind than the core's signature is stopped, naming the method.
    #[test]
    fn a_definition_that_drifts_from_the_core_is_named() {
        let root = crate::workspace_root();
        check(&root, &CONTROLS).unwrap();
        let classes = with_method("RetrySlots", getter("in_use", "Slots in use.", Ret::Outstanding));
        let error = check(&root, &classes).unwrap_err();
        assert!(
            error.contains("RetrySlots.in_use: the core's `RetrySlots::in_use` takes 0 arguments and returns `u32`"),
            "{error}"
        );
        let classes = with_method("RetryBudget", method("on_retry", "No such call.", &[Arg::Now], Ret::Unit));
        assert!(check(&root, &classes).unwrap_err().contains("no `RetryBudget::on_retry`"));
    }

    /// The policy's family is read against the core: its own methods, an object it lends, and the core's free
    /// functions given the policy first (one argument the definition does not list); a definition that drifts
    /// from a function's signature, or names a function the core does not have, is named.
    #[test]
    fn a_policy_function_that_drifts_from_the_core_is_named() {
        let root = crate::workspace_root();
        check(&root, POLICY.classes).unwrap();
        let with = |added: Method| {
            let mut classes = POLICY.classes.to_vec();
            classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
            classes
        };
        let explain = Some(Through::Function { path: "explain", source: "core/src/tools/timeline.rs" });
        let classes = with(Method {
            through: explain,
            ..method("explain_again", "No deadline.", &[Arg::Ms("first_attempt_at_ms")], Ret::ValueOrError("Timeline"))
        });
        let error = check(&root, &classes).unwrap_err();
        assert!(
            error.contains(
                "Policy.explain_again: the core's `explain` (given the Policy first) takes 3 arguments and returns \
                 `Result<Timeline, Error>`, not the 2 arguments"
            ),
            "{error}"
        );
        let missing =
            Some(Through::Function { path: "tools::timeline::explain_all", source: "core/src/tools/timeline.rs" });
        let classes = with(Method {
            through: missing,
            ..method("explain_all", "None such.", &[], Ret::ValueOrError("Timeline"))
        });
        assert!(check(&root, &classes).unwrap_err().contains("no `fn explain_all` in core/src/tools/timeline.rs"));
    }
}
