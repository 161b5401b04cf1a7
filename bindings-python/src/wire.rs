//! The core's one wire encoding (`retryplan::wire`), exposed as it is: its
//! tables (`wire_tables()`, read once at load by `retryplan._wire`, which
//! checks the version); `Driver.exchange` (`driver.rs`) carries the records. No word position or kind number
//! is written here or in Python: each comes from the core's tables.

use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict, PyTuple};
use retryplan::config::value::Named;
use retryplan::ground::codes::TransportFailure;
use retryplan::wire::{self, ActionKind, EndingKind, InputKind, OutcomeKind};
use retryplan::{AbortReason, Failure, GiveUpReason, Held, Receipt, Verdict};

/// The names of a kind table, in wire order (a name's number is its place).
fn names<'py, T: Named>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, T::ALL.iter().map(|value| value.name()))
}

/// The core's wire tables: `version`, `none`, `pushback_do_not_retry`, `max_word`, `flag_hedge`,
/// `flag_send_idempotency_key`, `ending_returns`, the `input` and `output` word positions by field name,
/// and each kind table's names in wire order (`input_kinds`, `outcome_kinds`, `action_kinds`,
/// `ending_kinds`, `failures`, `verdicts`, `transport_failures`, `abort_reasons`, `give_up_reasons`,
/// `receipts`, `held`).
#[pyfunction]
pub(crate) fn wire_tables(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let tables = PyDict::new(py);
    tables.set_item("version", wire::wire_version())?;
    tables.set_item("none", wire::NONE)?;
    tables.set_item("pushback_do_not_retry", wire::PUSHBACK_DO_NOT_RETRY)?;
    tables.set_item("max_word", wire::MAX_WORD)?;
    tables.set_item("flag_hedge", wire::FLAG_HEDGE)?;
    tables.set_item("flag_send_idempotency_key", wire::FLAG_SEND_IDEMPOTENCY_KEY)?;
    tables.set_item("ending_returns", wire::ENDING_RETURNS)?;
    tables.set_item("input", wire::input::FIELDS.iter().copied().into_py_dict(py)?)?;
    tables.set_item("output", wire::output::FIELDS.iter().copied().into_py_dict(py)?)?;
    tables.set_item("input_kinds", names::<InputKind>(py)?)?;
    tables.set_item("outcome_kinds", names::<OutcomeKind>(py)?)?;
    tables.set_item("action_kinds", names::<ActionKind>(py)?)?;
    tables.set_item("ending_kinds", names::<EndingKind>(py)?)?;
    tables.set_item("failures", names::<Failure>(py)?)?;
    tables.set_item("verdicts", names::<Verdict>(py)?)?;
    tables.set_item("transport_failures", names::<TransportFailure>(py)?)?;
    tables.set_item("abort_reasons", names::<AbortReason>(py)?)?;
    tables.set_item("give_up_reasons", names::<GiveUpReason>(py)?)?;
    tables.set_item("receipts", names::<Receipt>(py)?)?;
    tables.set_item("held", names::<Held>(py)?)?;
    Ok(tables)
}
