//! `AWS::LanguageExtensions`' `Fn::ForEach` (user guide "Fn::ForEach"): every
//! `Fn::ForEach::<LoopName>: [Identifier, Collection, {OutputKey: Fragment}]` entry of an object
//! in the Conditions, Resources and Outputs sections (resource properties included, nested loops
//! included) is replaced by one copy of its fragment per collection item.
//!
//! In each copy, `${Identifier}` in any string or key becomes the item, `&{Identifier}` the item
//! without its non-alphanumeric characters, and `{"Ref": "Identifier"}` the item itself. The
//! collection is a list, or an intrinsic giving one (`Ref` of a list parameter, `Fn::Split`,
//! `Fn::FindInMap`, ...). Expansion is bounded ([`super::limits::MAX_EXPANSION`] entries).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{Block, Budget, ErrorKind, TemplateError};
use super::eval::{Fail, Scope};
use super::limits;
use super::model::{Inner, OutputDecl, Pseudo, ResourceDecl};
use super::params::{scalar_text, BoundParameters};
use super::parse::{check_output_count, check_resource_count, parse_output, parse_resource};

/// The sections resolution works on: the declared ones, or `Fn::ForEach`'s expansion.
pub(crate) struct Sections {
    pub conditions: IndexMap<String, Value>,
    pub resources: IndexMap<String, ResourceDecl>,
    pub outputs: IndexMap<String, OutputDecl>,
    pub processed: Value,
}

const PREFIX: &str = "Fn::ForEach::";

fn shape(name: &str) -> Fail {
    Fail::Error(ErrorKind::ForEachShape(name.to_string()).into())
}

struct Expander<'a> {
    scope: Scope<'a>,
    produced: usize,
}

impl Expander<'_> {
    /// `value` with every `Fn::ForEach::` key expanded (depth-first, inner loops after outer).
    fn value(&mut self, value: &Value, depth: usize) -> Result<Value, Fail> {
        if depth > limits::MAX_DEPTH {
            return Err(Fail::Error(ErrorKind::Budget(Budget::Depth).into()));
        }
        match value {
            Value::Object(map) => Ok(Value::Object(self.map(map, depth)?)),
            Value::Array(items) => Ok(Value::Array(
                items
                    .iter()
                    .map(|i| self.value(i, depth + 1))
                    .collect::<Result<_, _>>()?,
            )),
            v => Ok(v.clone()),
        }
    }

    fn map(&mut self, map: &Map<String, Value>, depth: usize) -> Result<Map<String, Value>, Fail> {
        let mut out = Map::new();
        for (key, v) in map {
            if !key.starts_with(PREFIX) {
                out.insert(key.clone(), self.value(v, depth + 1)?);
                continue;
            }
            for (k, fragment) in self.expand(key, v, depth)? {
                if out.contains_key(&k) {
                    return Err(Fail::Error(
                        ErrorKind::ForEachDuplicateKey {
                            name: key.clone(),
                            key: k,
                        }
                        .into(),
                    ));
                }
                out.insert(k, fragment);
            }
        }
        Ok(out)
    }

    /// One loop's output entries.
    fn expand(
        &mut self,
        name: &str,
        args: &Value,
        depth: usize,
    ) -> Result<Vec<(String, Value)>, Fail> {
        let Value::Array(parts) = args else {
            return Err(shape(name));
        };
        let [Value::String(id), collection, Value::Object(template)] = parts.as_slice() else {
            return Err(shape(name));
        };
        let items: Vec<String> = match self.scope.eval(collection, 0)? {
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| scalar_text(i).ok_or_else(|| shape(name)))
                .collect::<Result<_, _>>()?,
            _ => return Err(shape(name)),
        };
        let mut out = Vec::new();
        for item in &items {
            for (key, fragment) in template {
                self.produced += 1;
                if self.produced > limits::MAX_EXPANSION {
                    return Err(Fail::Error(ErrorKind::TransformationDataLimit.into()));
                }
                let key = substitute_text(key, id, item);
                let fragment = substitute(fragment, id, item);
                // Loops inside the copy (nested Fn::ForEach) expand with the item bound.
                let fragment = self.value(&fragment, depth + 1)?;
                out.push((key, fragment));
            }
        }
        Ok(out)
    }
}

/// `${id}` → item, `&{id}` → item without non-alphanumerics.
fn substitute_text(text: &str, id: &str, item: &str) -> String {
    if !text.contains('{') {
        return text.to_string();
    }
    let bare: String = item.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    text.replace(&format!("${{{id}}}"), item)
        .replace(&format!("&{{{id}}}"), &bare)
}

fn substitute(value: &Value, id: &str, item: &str) -> Value {
    match value {
        Value::String(s) => Value::String(substitute_text(s, id, item)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| substitute(i, id, item)).collect())
        }
        Value::Object(map) => {
            if map.len() == 1 && map.get("Ref").and_then(Value::as_str) == Some(id) {
                return Value::String(item.to_string());
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (substitute_text(k, id, item), substitute(v, id, item)))
                    .collect(),
            )
        }
        v => v.clone(),
    }
}

/// Expands the three sections of the document; `Unknown` when a collection needs parameters
/// that are not given.
fn expand_document(
    inner: &Inner,
    params: Option<&BoundParameters>,
    pseudo: Option<&Pseudo>,
) -> Result<Option<Sections>, TemplateError> {
    let none: IndexMap<String, ResourceDecl> = IndexMap::new();
    let mut scope = Scope::new(inner, &none, Block::Resources);
    scope.params = params;
    scope.pseudo = pseudo;
    let mut expander = Expander { scope, produced: 0 };
    let Value::Object(top) = &inner.document else {
        return Ok(None);
    };
    let mut processed = top.clone();
    for section in ["Conditions", "Resources", "Outputs"] {
        if let Some(v) = top.get(section) {
            match expander.value(v, 0) {
                Ok(v) => {
                    processed.insert(section.to_string(), v);
                }
                Err(Fail::Unknown) => return Ok(None),
                Err(Fail::Error(e)) => return Err(e),
            }
        }
    }
    processed.remove("Transform");
    let section = |name: &str| -> Map<String, Value> {
        match processed.get(name) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        }
    };
    let mut resources = IndexMap::new();
    for (id, decl) in section("Resources") {
        resources.insert(id.clone(), parse_resource(&id, &decl, true)?);
    }
    check_resource_count(resources.len())?;
    let mut outputs = IndexMap::new();
    for (key, decl) in section("Outputs") {
        outputs.insert(key.clone(), parse_output(&key, &decl)?);
    }
    check_output_count(outputs.len())?;
    let conditions: IndexMap<String, Value> = section("Conditions").into_iter().collect();
    Ok(Some(Sections {
        conditions,
        resources,
        outputs,
        processed: Value::Object(processed),
    }))
}

/// The parse-time expansion: the expanded sections when every loop's collection is known
/// without parameter values, `None` otherwise (the caller checks them like a template without
/// loops).
pub(crate) fn process_static(inner: &Inner) -> Result<Option<Sections>, TemplateError> {
    expand_document(inner, None, None)
}

/// The sections with every `Fn::ForEach` expanded against parameter values.
pub(crate) fn expand(
    inner: &Inner,
    params: &BoundParameters,
    pseudo: &Pseudo,
) -> Result<Sections, TemplateError> {
    if !inner.language_extensions {
        return Ok(Sections {
            conditions: inner.conditions.clone(),
            resources: inner.resources.clone(),
            outputs: inner.outputs.clone(),
            processed: inner.document.clone(),
        });
    }
    expand_document(inner, Some(params), Some(pseudo))?
        .ok_or_else(|| ErrorKind::ForEachCollection.into())
}
