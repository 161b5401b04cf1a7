//! A serde serializer that builds a [`Value`] (what `serde_json::to_value`
//! does, without JSON): bindings turn timelines and snapshots into host objects
//! with it.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::ser::{self, Serialize};

use super::{Number, Value};

/// Why a value could not become a tree (only maps with non-string keys).
#[derive(Debug)]
pub(crate) struct SerializeError(String);

impl fmt::Display for SerializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for SerializeError {}

impl ser::Error for SerializeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        SerializeError(message.to_string())
    }
}

type Result<T> = core::result::Result<T, SerializeError>;

/// Serializes into a [`Value`].
pub(crate) struct ValueSerializer;

/// A list being built.
pub(crate) struct ListBuilder {
    items: Vec<Value>,
    /// The variant name of a tuple variant (`{"name": [..]}`), if any.
    variant: Option<&'static str>,
}

/// An object being built.
pub(crate) struct ObjectState {
    fields: Vec<(String, Value)>,
    /// The key whose value comes next (maps only).
    key: Option<String>,
    /// The variant name of a struct variant (`{"name": {..}}`), if any.
    variant: Option<&'static str>,
}

fn wrap(variant: Option<&'static str>, value: Value) -> Value {
    match variant {
        Some(name) => Value::Object(alloc::vec![(name.to_owned(), value)]),
        None => value,
    }
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = SerializeError;
    type SerializeSeq = ListBuilder;
    type SerializeTuple = ListBuilder;
    type SerializeTupleStruct = ListBuilder;
    type SerializeTupleVariant = ListBuilder;
    type SerializeMap = ObjectState;
    type SerializeStruct = ObjectState;
    type SerializeStructVariant = ObjectState;

    fn serialize_bool(self, value: bool) -> Result<Value> {
        Ok(Value::Bool(value))
    }
    fn serialize_i8(self, value: i8) -> Result<Value> {
        self.serialize_i64(i64::from(value))
    }
    fn serialize_i16(self, value: i16) -> Result<Value> {
        self.serialize_i64(i64::from(value))
    }
    fn serialize_i32(self, value: i32) -> Result<Value> {
        self.serialize_i64(i64::from(value))
    }
    fn serialize_i64(self, value: i64) -> Result<Value> {
        Ok(Value::Number(u64::try_from(value).map_or(Number::Negative(value), Number::Unsigned)))
    }
    fn serialize_u8(self, value: u8) -> Result<Value> {
        self.serialize_u64(u64::from(value))
    }
    fn serialize_u16(self, value: u16) -> Result<Value> {
        self.serialize_u64(u64::from(value))
    }
    fn serialize_u32(self, value: u32) -> Result<Value> {
        self.serialize_u64(u64::from(value))
    }
    fn serialize_u64(self, value: u64) -> Result<Value> {
        Ok(Value::unsigned(value))
    }
    fn serialize_f32(self, value: f32) -> Result<Value> {
        self.serialize_f64(f64::from(value))
    }
    fn serialize_f64(self, value: f64) -> Result<Value> {
        Ok(Value::float(value))
    }
    fn serialize_char(self, value: char) -> Result<Value> {
        Ok(Value::String(value.to_string()))
    }
    fn serialize_str(self, value: &str) -> Result<Value> {
        Ok(Value::string(value))
    }
    fn serialize_bytes(self, value: &[u8]) -> Result<Value> {
        Ok(Value::List(value.iter().map(|byte| Value::unsigned(u64::from(*byte))).collect()))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Value> {
        Ok(Value::string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<Value> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value> {
        Ok(wrap(Some(variant), value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<ListBuilder> {
        Ok(ListBuilder { items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<ListBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<ListBuilder> {
        Ok(ListBuilder { items: Vec::with_capacity(len), variant: Some(variant) })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<ObjectState> {
        Ok(ObjectState { fields: Vec::with_capacity(len.unwrap_or(0)), key: None, variant: None })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<ObjectState> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<ObjectState> {
        Ok(ObjectState { fields: Vec::with_capacity(len), key: None, variant: Some(variant) })
    }
}

impl ListBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.items.push(value.serialize(ValueSerializer)?);
        Ok(())
    }

    fn finish(self) -> Value {
        wrap(self.variant, Value::List(self.items))
    }
}

/// The four list-like serde traits all push an element.
macro_rules! list_traits {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for ListBuilder {
            type Ok = Value;
            type Error = SerializeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Value> {
                Ok(self.finish())
            }
        }
    )*};
}

list_traits!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ObjectState {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        self.fields.push((key.to_owned(), value.serialize(ValueSerializer)?));
        Ok(())
    }

    fn finish(self) -> Value {
        wrap(self.variant, Value::Object(self.fields))
    }
}

impl ser::SerializeMap for ObjectState {
    type Ok = Value;
    type Error = SerializeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        match key.serialize(ValueSerializer)? {
            Value::String(key) => {
                self.key = Some(key);
                Ok(())
            }
            _ => Err(ser::Error::custom("map keys must be strings")),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self.key.take().ok_or_else(|| ser::Error::custom("a map value came before its key"))?;
        self.field(&key, value)
    }
    fn end(self) -> Result<Value> {
        Ok(self.finish())
    }
}

/// Structs and struct variants both add a named field.
macro_rules! struct_traits {
    ($($trait:ident),*) => {$(
        impl ser::$trait for ObjectState {
            type Ok = Value;
            type Error = SerializeError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.field(key, value)
            }
            fn end(self) -> Result<Value> {
                Ok(self.finish())
            }
        }
    )*};
}

struct_traits!(SerializeStruct, SerializeStructVariant);
