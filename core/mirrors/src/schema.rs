//! The configuration shapes of `tests/conformance/schema.json`: its
//! `$defs`, resolved into a small tree each language writes out.

use serde_json::{Map, Value};

/// A value's shape, as far as the mirrors need it.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// An integer; `long` when its maximum is above `u32::MAX` (a time in ms), else a count.
    Integer {
        long: bool,
    },
    Number,
    Boolean,
    /// `const: true` (written only when true).
    True,
    String,
    /// One of these strings (`enum`, or a `const` string).
    Names(Vec<String>),
    Array(Box<Shape>),
    Object(Object),
    /// `oneOf` the shapes.
    OneOf(Vec<Shape>),
    /// Anything (a shape the schema leaves open).
    Any,
}

/// An object's properties, in the schema's order, which of them are
/// required, and its `description` (a doc of the object as one variant of a `oneOf`).
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub properties: Vec<Property>,
    pub required: Vec<String>,
    pub description: Option<String>,
}

/// One property: its `description` documents the field, its `title` the
/// shape when a language names it (a named type), `deprecated` an old name.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub name: String,
    pub shape: Shape,
    pub description: Option<String>,
    pub title: Option<String>,
    pub deprecated: bool,
    /// The JSON Schema `default`: what an absent property means, when the
    /// type has one value for it (an empty list, false, the default name).
    pub default: Option<Value>,
}

pub struct Schema {
    defs: Map<String, Value>,
}

impl Schema {
    pub fn parse(text: &str) -> Result<Schema, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let defs = value.get("$defs").and_then(Value::as_object).ok_or("no $defs object")?.clone();
        Ok(Schema { defs })
    }

    /// The shape of `$defs.<name>`.
    pub fn def(&self, name: &str) -> Result<Shape, String> {
        let value = self.defs.get(name).ok_or_else(|| format!("no $defs.{name}"))?;
        self.shape(value)
    }

    /// The `title` of `$defs.<name>`: the doc of the type a language names after it.
    pub fn def_title(&self, name: &str) -> Option<String> {
        text(self.defs.get(name)?, "title")
    }

    fn shape(&self, value: &Value) -> Result<Shape, String> {
        if let Some(reference) = value.get("$ref").and_then(Value::as_str) {
            let name = reference.strip_prefix("#/$defs/").ok_or_else(|| format!("unsupported $ref {reference}"))?;
            return self.def(name);
        }
        if let Some(variants) = value.get("oneOf").and_then(Value::as_array) {
            return variants.iter().map(|variant| self.shape(variant)).collect::<Result<_, _>>().map(Shape::OneOf);
        }
        if let Some(names) = value.get("enum").and_then(Value::as_array) {
            return names
                .iter()
                .map(|name| name.as_str().map(str::to_owned).ok_or_else(|| format!("a non-string enum: {value}")))
                .collect::<Result<_, _>>()
                .map(Shape::Names);
        }
        match value.get("const") {
            Some(Value::String(name)) => return Ok(Shape::Names(vec![name.clone()])),
            Some(Value::Bool(true)) => return Ok(Shape::True),
            Some(other) => return Err(format!("unsupported const {other}")),
            None => {}
        }
        match value.get("type").and_then(Value::as_str) {
            Some("integer") => {
                let maximum = value.get("maximum").and_then(Value::as_u64).unwrap_or(0);
                Ok(Shape::Integer { long: maximum > u64::from(u32::MAX) })
            }
            Some("number") => Ok(Shape::Number),
            Some("boolean") => Ok(Shape::Boolean),
            Some("string") => Ok(Shape::String),
            Some("array") => {
                let items = value.get("items").ok_or_else(|| format!("an array without items: {value}"))?;
                Ok(Shape::Array(Box::new(self.shape(items)?)))
            }
            Some("object") => {
                let properties = value.get("properties").and_then(Value::as_object);
                let properties = properties
                    .into_iter()
                    .flatten()
                    .map(|(name, property)| {
                        Ok(Property {
                            name: name.clone(),
                            shape: self.shape(property)?,
                            description: text(property, "description"),
                            title: text(property, "title"),
                            deprecated: property.get("deprecated") == Some(&Value::Bool(true)),
                            default: property.get("default").cloned(),
                        })
                    })
                    .collect::<Result<_, String>>()?;
                let required = value.get("required").and_then(Value::as_array).into_iter().flatten();
                let required = required.filter_map(Value::as_str).map(str::to_owned).collect();
                Ok(Shape::Object(Object { properties, required, description: text(value, "description") }))
            }
            _ => Ok(Shape::Any),
        }
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Which names a set of names stands for, by the core's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameSet<'a> {
    /// Exactly a table's names.
    Table(&'a crate::tables::Table),
    /// Some of the names of the smallest table holding them all (one only).
    Within(&'a crate::tables::Table),
    /// The names of no table: the schema's own list.
    Listed,
}

/// What `names` are, by `tables`. The schema lists only the names a
/// configuration is written with (`"mode": ["a6", "replace"]`, the default
/// `floor` left out), so a set within a table is that table's, narrowed.
pub fn name_set<'a>(names: &[String], tables: &'a [crate::tables::Table]) -> NameSet<'a> {
    let holding: Vec<&crate::tables::Table> =
        tables.iter().filter(|table| names.iter().all(|name| table.variants.iter().any(|v| &v.name == name))).collect();
    let Some(smallest) = holding.iter().map(|table| table.variants.len()).min() else { return NameSet::Listed };
    match holding.iter().filter(|table| table.variants.len() == smallest).collect::<Vec<_>>().as_slice() {
        [only] if only.variants.len() == names.len() => NameSet::Table(only),
        [only] => NameSet::Within(only),
        _ => NameSet::Listed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_consts_and_one_ofs_resolve() {
        let schema = Schema::parse(
            r##"{"$defs": {"uint": {"type": "integer"}, "c": {"type": "object", "properties": {
                "n": {"$ref": "#/$defs/uint", "description": "A count."},
                "k": {"const": "lenient"}, "t": {"const": true},
                "o": {"oneOf": [{"type": "object", "properties": {"x": {"type": "number"}}}, {"enum": ["a", "b"]}]}}}}}"##,
        )
        .unwrap();
        let Shape::Object(object) = schema.def("c").unwrap() else { panic!("not an object") };
        let shapes: Vec<&Shape> = object.properties.iter().map(|p| &p.shape).collect();
        assert_eq!(shapes[0], &Shape::Integer { long: false });
        assert_eq!(object.properties[0].description.as_deref(), Some("A count."));
        assert_eq!(shapes[1], &Shape::Names(vec!["lenient".into()]));
        assert_eq!(shapes[2], &Shape::True);
        assert!(matches!(shapes[3], Shape::OneOf(v) if v.len() == 2));
        assert!(schema.def("missing").is_err());
    }
}
