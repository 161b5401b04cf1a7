//! Every binding's files from the methods definition (`methods`): Python's
//! (`methods_python`), Kotlin's (`methods_kotlin`, and `methods_kotlin_engine`
//! for a family whose `kotlin` flag is on) and JS's (`methods_js`, and
//! `methods_js_engine` for the engine's and the driver's families, their `js`
//! flags on; the policy's family: Kotlin's engine writer, and
//! `methods_js_tools` for JS's tools entry, with the controls' snapshots), once the definition is read
//! against the core.

use std::path::Path;

use crate::methods::{check, CONTROLS, DRIVER, ENGINE, POLICY};
use crate::output::Output;

/// Every binding's files from the definition, and its section of the Python
/// stub spliced into the stub among `outputs` (`python_records` writes it),
/// once the definition is read against the core's own signatures under `root`.
pub fn extend(root: &Path, outputs: &mut Vec<Output>) -> Result<(), String> {
    check(root, &CONTROLS)?;
    check(root, ENGINE.classes)?;
    check(root, DRIVER.classes)?;
    check(root, POLICY.classes)?;
    let stub = outputs
        .iter_mut()
        .find(|output| output.path == crate::python_records::NATIVE_STUB)
        .ok_or_else(|| format!("{}: not among the outputs", crate::python_records::NATIVE_STUB))?;
    let section = crate::methods_python_stub::stub(&CONTROLS)?;
    stub.text = crate::python_records::splice(&stub.text, crate::methods_python_stub::STUB_SECTION, &section)?;
    let section = crate::methods_python_stub::stub(ENGINE.classes)?;
    stub.text = crate::python_records::splice(&stub.text, crate::methods_python_stub::ENGINE_STUB_SECTION, &section)?;
    let section = crate::methods_python_stub::stub(DRIVER.classes)?;
    stub.text = crate::python_records::splice(&stub.text, crate::methods_python_stub::DRIVER_STUB_SECTION, &section)?;
    outputs.push(crate::methods_python::output(&CONTROLS)?);
    outputs.push(crate::methods_python::engine_output(&ENGINE)?);
    outputs.push(crate::methods_python::driver_output(&DRIVER)?);
    outputs.push(crate::methods_kotlin::output(&CONTROLS)?);
    outputs.push(crate::methods_kotlin_engine::engine_output(&ENGINE)?);
    outputs.push(crate::methods_kotlin_engine::driver_output(&DRIVER)?);
    outputs.push(crate::methods_kotlin_engine::policy_output(&POLICY)?);
    outputs.extend(crate::methods_js::outputs(&CONTROLS)?);
    outputs.push(crate::methods_js_engine::operation_output(root, &ENGINE)?);
    outputs.push(crate::methods_js_engine::driver_output(root, &DRIVER)?);
    outputs.extend(crate::methods_js_tools::outputs(root, &CONTROLS, &POLICY)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::methods::tests::with_method;
    use crate::methods::{getter, method, Arg, Class, Ret, CONTROLS, ENGINE};

    /// A method added to the definition is one entry, and reaches every
    /// binding's export file and the Python stub.
    #[test]
    fn a_new_method_reaches_every_binding() {
        let classes = with_method(
            "RetryBudget",
            method(
                "would_retry",
                "Whether a retry would be granted now, taking nothing.",
                &[Arg::Now, Arg::Flag("after_timeout")],
                Ret::BoolOrError,
            ),
        );
        let python = crate::methods_python::output(&classes).unwrap().text;
        assert!(
            python.contains(
                "    #[pyo3(signature = (now = None, after_timeout = false, *, now_ms = None))]\n    \
                 fn would_retry(&self, now: Arg, after_timeout: bool, now_ms: Arg) -> Res<bool> {\n        \
                 Ok(self.control()?.would_retry(NOW.read(now, now_ms)?, after_timeout)?)\n    }\n"
            ),
            "{python}"
        );
        let stub = crate::methods_python_stub::stub(&classes).unwrap();
        assert!(
            stub.contains("    def would_retry(self, now: float, after_timeout: bool = False) -> bool:\n"),
            "{stub}"
        );
        assert!(stub.contains("    def would_retry(self, *, after_timeout: bool = False, now_ms: int) -> bool: ...\n"));
        let kotlin = crate::methods_kotlin::output(&classes).unwrap().text;
        assert!(
            kotlin.contains(
                "    pub fn would_retry(&self, now_ms: i64, after_timeout: bool) -> Result<bool> {\n        \
                 let now_ms = ms_in(\"now_ms\", now_ms)?;\n        let control = self.control()?;\n        \
                 Ok(control.would_retry(now_ms, after_timeout)?)\n    }\n"
            ),
            "{kotlin}"
        );
        let [rust, js] = crate::methods_js::outputs(&classes).unwrap().map(|output| output.text);
        assert!(
            rust.contains(
                "#[wasm_bindgen(js_name = _budgetWouldRetry)]\npub fn budget_would_retry(handle: u32, now_ms: f64, \
                 after_timeout: bool) -> JsValue {\n    either(budget(handle, |control| control.would_retry(now_ms as u64, \
                 after_timeout).map(JsValue::from_bool).map_err(js_error)))\n}\n"
            ),
            "{rust}"
        );
        assert!(
            js.contains(
                "  wouldRetry(nowMs, afterTimeout) {\n    return decided(_budgetWouldRetry(handle(this), \
                 ms('nowMs', nowMs), flag('afterTimeout', afterTimeout) ?? false));\n  }\n"
            ),
            "{js}"
        );
        assert!(js.contains("  _budgetTryRetry,\n  _budgetWouldRetry,\n  _chargeCost,\n"), "{js}");
    }

    /// JS merges the methods handing a grant back into one export per
    /// class: a new one is the next `which` of it, not an export of its own.
    #[test]
    fn a_method_handing_a_grant_back_joins_the_settle_export_in_js() {
        const CHARGE: Arg = Arg::Grant { name: "charge", class: "RetryCharge", optional: false };
        let classes =
            with_method("RetryBudget", method("forfeit", "Gives a charge up.", &[Arg::Now, CHARGE], Ret::UnitOrError));
        let [rust, js] = crate::methods_js::outputs(&classes).unwrap().map(|output| output.text);
        assert!(rust.contains("                2 => control.spend(grant.ok_or_else(|| objects::freed(\"charge\"))?),\n                _ => control.forfeit(now_ms, grant.ok_or_else(|| objects::freed(\"charge\"))?),\n"), "{rust}");
        assert!(!rust.contains("_budgetForfeit"), "{rust}");
        assert!(
            js.contains("  forfeit(nowMs, charge) {\n    decided(_budgetSettle(handle(this), ms('nowMs', nowMs), handleOf('charge', charge, RetryCharge), 3));\n  }\n"),
            "{js}"
        );
    }

    /// A kind a binding cannot spell where it is used stops the generator, naming the method.
    #[test]
    fn an_argument_a_binding_cannot_take_is_named() {
        let classes = with_method("RetrySlots", method("reload", "Reads JSON.", &[Arg::Json], Ret::UnitOrError));
        assert!(crate::methods_python::output(&classes).unwrap_err().contains("reload"));
        assert!(crate::methods_kotlin::output(&classes).unwrap_err().contains("reload"));
        assert!(crate::methods_js::outputs(&classes).unwrap_err().contains("reload"));
        let classes = with_method("RetrySlots", getter("owner", "Its budget.", Ret::Control("RetrySlot")));
        assert!(crate::methods_kotlin::output(&classes).unwrap_err().contains("RetrySlot is not a control"));
        assert!(crate::methods_js::outputs(&classes).unwrap_err().contains("RetrySlot is not a control"));
    }

    /// A grant handed back after a defaulted argument defaults too in Python
    /// (and is required by the binding, naming it), positional otherwise.
    #[test]
    fn a_required_grant_after_a_clock_reading_is_checked_by_the_binding() {
        let python = crate::methods_python::output(&CONTROLS).unwrap().text;
        assert!(python.contains("take_grant::<PyBreakerPermit>(\"permit\", permit)?"), "{python}");
        assert!(python.contains("take_grant::<PyRetrySlot>(\"slot\", Some(slot))?"), "{python}");
    }

    /// The engine's `Operation` with `method` added.
    fn operation_with(method: crate::methods::Method) -> Vec<Class> {
        let mut classes = ENGINE.classes.to_vec();
        classes[0].methods = Box::leak([classes[0].methods, &[method]].concat().into_boxed_slice());
        classes
    }

    /// A method added to the engine's family is one entry: it reaches the pyo3 class (stepping the core's
    /// object, required arguments after the clock reading named by the binding) and the stub, and the
    /// definition is read against the core's `Operation`.
    #[test]
    fn a_new_engine_method_reaches_the_python_class_and_the_stub() {
        const OUTCOME: Arg = Arg::Instance { name: "outcome", class: "Outcome" };
        let classes = operation_with(method(
            "on_outcome_again",
            "Reports an outcome once more.",
            &[Arg::Now, Arg::Count("attempt"), OUTCOME],
            Ret::DecisionOrError,
        ));
        let family = crate::methods::Family { classes: Box::leak(classes.clone().into_boxed_slice()), ..ENGINE };
        let python = crate::methods_python::engine_output(&family).unwrap().text;
        assert!(
            python.contains(
                "    #[pyo3(signature = (now = None, attempt = None, outcome = None, *, now_ms = None))]\n    \
                 fn on_outcome_again(\n        &mut self,\n        py: Python<'_>,\n        now: Arg,\n        \
                 attempt: Arg,\n        outcome: Arg,\n        now_ms: Arg,\n    ) -> Res<Py<PyAny>> {\n        let now = NOW.read(now, now_ms)?;\n        \
                 let attempt = u32_arg(\"attempt\", given(\"attempt\", attempt)?)?;\n        \
                 let outcome = &class_arg::<PyOutcome>(\"outcome\", given(\"outcome\", outcome)?)?.inner;\n        \
                 Ok(decision_to_py(py, self.inner.on_outcome_again(now, attempt, outcome)?)?)\n    }\n"
            ),
            "{python}"
        );
        let stub = crate::methods_python_stub::stub(&classes).unwrap();
        assert!(
            stub.contains("    def on_outcome_again(self, now: float, attempt: int, outcome: Outcome) -> Decision:\n")
        );
        assert!(stub.contains(
            "    def on_outcome_again(self, *, attempt: int, outcome: Outcome, now_ms: int) -> Decision: ...\n"
        ));
        let root = crate::workspace_root();
        assert!(super::check(&root, &classes).unwrap_err().contains("no `Operation::on_outcome_again`"));
        let classes = operation_with(getter("started_at_ms", "A count, it says.", Ret::Count));
        assert!(super::check(&root, &classes).unwrap_err().contains("Operation.started_at_ms"));
    }

    /// The engine's family is written for Python, Kotlin and JS (its `kotlin` and `js` flags on) by their
    /// engine writers: the controls writers of JS and Kotlin refuse it, naming the class, rather than write a
    /// class their glue does not have.
    #[test]
    fn the_engine_family_is_written_for_every_binding() {
        assert!(crate::methods_kotlin::output(ENGINE.classes).unwrap_err().contains("Operation"));
        let kotlin = crate::methods_kotlin_engine::engine_output(&ENGINE).unwrap().text;
        assert!(kotlin.contains("#[uniffi::export]\nimpl Operation {\n"), "{kotlin}");
        assert!(!kotlin.contains("remaining_budget_ms"), "{kotlin}");
        assert!(crate::methods_js::outputs(ENGINE.classes).unwrap_err().contains("Operation"));
        let js = crate::methods_js_engine::operation_output(&crate::workspace_root(), &ENGINE).unwrap().text;
        assert!(js.contains("  remainingBudgetMs(nowMs) {\n    return this.remainingMs(nowMs);\n  }\n"), "{js}");
        let python = crate::methods_python::engine_output(&ENGINE).unwrap().text;
        assert!(python
            .contains("#[pyclass(module = \"retryplan\", name = \"Operation\")]\npub(crate) struct PyOperation {\n"));
        assert!(python.contains(
            "PyErr::warn(py, &category, c\"retryplan: Operation.remaining_budget_ms is renamed Operation.remaining_ms\", 1)?;"
        ));
    }

    /// The driver's getters read the operation the core's driver lends, and a call through the binding's own
    /// function is read against the core's call it picks (a token and what it holds: two of its arguments):
    /// a definition that drifts from either is named. JS's writer refuses the class, and Kotlin's controls
    /// writer; Kotlin's engine writer writes it, calling the same binding function.
    #[test]
    fn the_driver_is_read_against_the_core_through_what_it_calls() {
        use crate::methods::{Method, Through, DRIVER};
        let root = crate::workspace_root();
        super::check(&root, DRIVER.classes).unwrap();
        let with = |method: Method| {
            let mut classes = DRIVER.classes.to_vec();
            classes[0].methods = Box::leak([classes[0].methods, &[method]].concat().into_boxed_slice());
            classes
        };
        let lent =
            Some(Through::Lent { accessor: "operation", core: "Operation", source: ENGINE.classes[0].sources[0] });
        let classes = with(Method { through: lent, ..getter("started_at_ms", "A count, it says.", Ret::Count) });
        let error = super::check(&root, &classes).unwrap_err();
        assert!(error.contains("Driver.started_at_ms: the core's `Operation::started_at_ms`"), "{error}");
        let classes = with(Method {
            call: Some("handle_result_with_token"),
            through: Some(Through::Binding("hand_in")),
            ..method("hand_in_again", "No token.", &[Arg::Now, Arg::Count("attempt")], Ret::ReceiptOrError)
        });
        let error = super::check(&root, &classes).unwrap_err();
        assert!(error.contains("takes 5 arguments and returns `Result<Receipt, Error>`, not the 2"), "{error}");
        assert!(crate::methods_kotlin::output(DRIVER.classes).unwrap_err().contains("Driver"));
        assert!(crate::methods_js::outputs(DRIVER.classes).unwrap_err().contains("Driver"));
        let python = crate::methods_python::driver_output(&DRIVER).unwrap().text;
        assert!(python.contains("Ok(receipt_to_py(py, self.hand_in(now, attempt, outcome, token)?))"), "{python}");
        assert!(python.contains("Ok(self.inner.operation().deadline_ms())"), "{python}");
        let kotlin = crate::methods_kotlin_engine::driver_output(&DRIVER).unwrap().text;
        assert!(kotlin.contains("Ok(self.hand_in(now_ms, attempt, outcome, token, held)?)"), "{kotlin}");
        assert!(kotlin.contains("long_out(lock(&self.0).operation().deadline_ms())"), "{kotlin}");
    }

    /// A method added to the driver's family is one entry: it reaches Python's class and Kotlin's block (its
    /// arguments read before the lock, its value converted), not one binding alone.
    #[test]
    fn a_new_driver_method_reaches_python_and_kotlin() {
        use crate::methods::{Family, DRIVER};
        let mut classes = DRIVER.classes.to_vec();
        let added = method("remaining_ms", "Time left at `now`, in ms.", &[Arg::Now, Arg::Count("attempt")], Ret::Ms);
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..DRIVER };
        let python = crate::methods_python::driver_output(&family).unwrap().text;
        assert!(
            python.contains("    fn remaining_ms(&self, now: Arg, attempt: Arg, now_ms: Arg) -> Res<u64> {\n"),
            "{python}"
        );
        let kotlin = crate::methods_kotlin_engine::driver_output(&family).unwrap().text;
        assert!(
            kotlin.contains(
                "    /// Time left at `nowMs`, in ms.\n    pub fn remaining_ms(&self, now_ms: i64, attempt: i32) -> Result<i64> {\n        \
                 let now_ms = ms_in(\"now_ms\", now_ms)?;\n        let attempt = u32_in(\"attempt\", attempt)?;\n        \
                 Ok(long_out(lock(&self.0).remaining_ms(now_ms, attempt)))\n    }\n"
            ),
            "{kotlin}"
        );
    }
}
