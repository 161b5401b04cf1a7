//! The shared controls of a dependency, and each control on its own: the
//! wasm exports are generated from the methods definition
//! (`controls_generated.rs`, by core/mirrors; `lib/controls.js` calls them),
//! and this file keeps what they call.

use alloc::sync::Arc;

use retryplan as rp;
use wasm_bindgen::prelude::*;

#[cfg(feature = "config")]
use crate::data::config_value;
use crate::objects::{self, Control, Object};
use crate::policy::handle_js;
use crate::{compiled_error, either, js_error};

include!("controls_generated.rs");

/// The dependency `handle` names, or the "freed" error.
pub(crate) fn dependency(handle: u32) -> Result<Arc<rp::Dependency>, JsValue> {
    objects::dependency(handle)?.ok_or_else(|| objects::freed("dependency"))
}

/// A dependency made from its configuration, kept: its handle.
#[cfg(feature = "tools")]
pub(crate) fn keep_dependency_config(config: &rp::DependencyConfig) -> Result<u32, JsValue> {
    objects::insert(Object::Dependency(rp::Dependency::new(config).map_err(js_error)?))
}

/// Runs `use_control` on the control `handle` names: `pick` finds it in the
/// object (`name`, its kind, for the error of a stale or foreign handle),
/// `shared` in a dependency.
fn control<C, T>(
    handle: u32,
    name: &'static str,
    pick: fn(&Object) -> Option<&Control<C>>,
    shared: fn(&rp::Dependency) -> Option<&C>,
    use_control: impl FnOnce(&C) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    objects::with(handle, name, |object| use_control(pick(object).ok_or_else(|| objects::freed(name))?.get(shared)?))
}

/// The grant `handle` names, taken: a second take is the core's
/// `invalid_argument` naming the grant, a freed or foreign handle
/// `invalid_argument` too.
fn take<T: rp::config::grant::Grant>(
    handle: u32,
    cell: impl FnOnce(&Object) -> Option<&rp::config::grant::GrantCell<T>>,
) -> Result<T, JsValue> {
    objects::with(handle, T::ARGUMENT, |object| {
        cell(object).ok_or_else(|| objects::freed(T::ARGUMENT))?.take().map_err(js_error)
    })
}
