//! `AWS::LanguageExtensions`' `Fn::ForEach` (user guide "Fn::ForEach"): every
//! `Fn::ForEach::<LoopName>: [Identifier, Collection, {OutputKey: Fragment}]` entry of an object
//! in the Conditions, Resources and Outputs sections (resource properties included, nested loops
//! included) is replaced by one copy of its fragment per collection item.
//!
//! In each copy, `${Identifier}` in any string or key becomes the item, `&{Identifier}` the item
//! without its non-alphanumeric characters, and `{"Ref": "Identifier"}` the item itself. The
//! collection is a list, or an intrinsic giving one (`Ref` of a list parameter, `Fn::Split`,
//! `Fn::FindInMap`, ...).
//!
//! Expansion is bounded: at most [`limits::MAX_EXPANSION`] copies, and the processed sections at
//! most [`limits::MAX_TEMPLATE_BYTES`] of compact JSON (AWS: "Fn::ForEach ... does not change the
//! quotas, which apply to the resultant template"), each copy's size taken before it is made;
//! over either, `Transformation data limit exceeded` (AWS's text for a transform that produces
//! too much). The collection's evaluation is charged to the caller's meter.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::budget::{measure, Meter};
use super::error::{Block, Budget, ErrorKind, TemplateError};
use super::eval::{into_text, Fail, Scope};
use super::limits;
use super::model::{Inner, OutputDecl, Pseudo, ResourceDecl};
use super::params::BoundParameters;
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
    ErrorKind::ForEachShape(name.to_string()).into()
}

struct Expander<'a> {
    scope: Scope<'a>,
    /// Copies of fragments made so far ([`limits::MAX_EXPANSION`]).
    copies: usize,
    /// Bytes of processed template left ([`limits::MAX_TEMPLATE_BYTES`], compact JSON).
    bytes_left: u64,
}

impl Expander<'_> {
    /// Takes `bytes` of the processed template's allowance, before they are made.
    fn take(&mut self, bytes: u64) -> Result<(), Fail> {
        if bytes > self.bytes_left {
            self.bytes_left = 0;
            return Err(ErrorKind::TransformationDataLimit.into());
        }
        self.bytes_left -= bytes;
        Ok(())
    }

    /// `value` with every `Fn::ForEach::` key expanded (depth-first, inner loops after outer).
    fn value(&mut self, value: &Value, depth: usize) -> Result<Value, Fail> {
        if depth > limits::MAX_DEPTH {
            return Err(ErrorKind::Budget(Budget::Depth).into());
        }
        match value {
            Value::Object(map) => Ok(Value::Object(self.map(map, depth)?)),
            Value::Array(items) => {
                self.take(2 + items.len() as u64)?;
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|i| self.value(i, depth + 1))
                        .collect::<Result<_, _>>()?,
                ))
            }
            v => {
                self.take(measure(v).text + 1)?;
                Ok(v.clone())
            }
        }
    }

    fn map(&mut self, map: &Map<String, Value>, depth: usize) -> Result<Map<String, Value>, Fail> {
        self.take(2)?;
        let mut out = Map::new();
        for (key, v) in map {
            if !key.starts_with(PREFIX) {
                self.take(key.len() as u64 + 3)?;
                let v = self.value(v, depth + 1).map_err(|f| f.under(key))?;
                out.insert(key.clone(), v);
                continue;
            }
            for (k, fragment) in self.expand(key, v, depth).map_err(|f| f.under(key))? {
                if out.contains_key(&k) {
                    return Err(ErrorKind::ForEachDuplicateKey {
                        name: key.clone(),
                        key: k,
                    }
                    .into());
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
        let items: Vec<String> = match self.scope.eval(collection, 0).map_err(|f| f.under("1"))? {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|i| into_text(i).ok_or_else(|| shape(name)))
                .collect::<Result<_, _>>()?,
            _ => return Err(shape(name)),
        };
        let mut out = Vec::new();
        for item in &items {
            let subst = Substitution::new(id, item);
            for (key, fragment) in template {
                self.copies += 1;
                if self.copies > limits::MAX_EXPANSION {
                    return Err(ErrorKind::TransformationDataLimit.into());
                }
                let key = self.text(&subst, key)?;
                let fragment = self.substitute(&subst, fragment)?;
                // Loops inside the copy (nested Fn::ForEach) expand with the item bound; the
                // copy's own bytes were taken by `substitute`, so they are given back first.
                self.bytes_left += measure(&fragment).text;
                let fragment = self.value(&fragment, depth + 1)?;
                out.push((key, fragment));
            }
        }
        Ok(out)
    }

    /// `text` with the identifier substituted, its size taken before it is made.
    fn text(&mut self, subst: &Substitution<'_>, text: &str) -> Result<String, Fail> {
        let (len, changes) = subst.len(text);
        self.take(len as u64 + 2)?;
        Ok(if changes {
            subst.apply(text)
        } else {
            text.to_string()
        })
    }

    /// A copy of `value` with the identifier substituted (`{"Ref": id}` becomes the item).
    fn substitute(&mut self, subst: &Substitution<'_>, value: &Value) -> Result<Value, Fail> {
        Ok(match value {
            Value::String(s) => Value::String(self.text(subst, s)?),
            Value::Array(items) => {
                self.take(2 + items.len() as u64)?;
                Value::Array(
                    items
                        .iter()
                        .map(|i| self.substitute(subst, i))
                        .collect::<Result<_, _>>()?,
                )
            }
            Value::Object(map) => {
                if map.len() == 1 && map.get("Ref").and_then(Value::as_str) == Some(subst.id) {
                    self.take(subst.item.len() as u64 + 2)?;
                    return Ok(Value::String(subst.item.to_string()));
                }
                self.take(2)?;
                let mut out = Map::new();
                for (k, v) in map {
                    let k = self.text(subst, k)?;
                    self.take(1)?;
                    out.insert(k, self.substitute(subst, v)?);
                }
                Value::Object(out)
            }
            v => {
                self.take(measure(v).text + 1)?;
                v.clone()
            }
        })
    }
}

/// One item bound to a loop's identifier: `${id}` becomes the item, `&{id}` the item without
/// its non-alphanumeric characters.
struct Substitution<'a> {
    id: &'a str,
    item: &'a str,
    dollar: String,
    amp: String,
    bare: String,
}

impl<'a> Substitution<'a> {
    fn new(id: &'a str, item: &'a str) -> Substitution<'a> {
        Substitution {
            id,
            item,
            dollar: format!("${{{id}}}"),
            amp: format!("&{{{id}}}"),
            bare: item.chars().filter(|c| c.is_ascii_alphanumeric()).collect(),
        }
    }

    /// The length `text` has once substituted, and whether it changes.
    fn len(&self, text: &str) -> (usize, bool) {
        if !text.contains('{') {
            return (text.len(), false);
        }
        let dollars = text.matches(self.dollar.as_str()).count();
        let amps = text.matches(self.amp.as_str()).count();
        let len = text.len() - dollars * self.dollar.len() - amps * self.amp.len()
            + dollars * self.item.len()
            + amps * self.bare.len();
        (len, dollars + amps > 0)
    }

    fn apply(&self, text: &str) -> String {
        text.replace(self.dollar.as_str(), self.item)
            .replace(self.amp.as_str(), &self.bare)
    }
}

/// Expands the three sections of the document; `Unknown` when a collection needs parameters
/// that are not given.
fn expand_document(
    inner: &Inner,
    params: Option<&BoundParameters>,
    pseudo: Option<&Pseudo>,
    meter: &Meter,
) -> Result<Option<Sections>, TemplateError> {
    let none: IndexMap<String, ResourceDecl> = IndexMap::new();
    let mut scope = Scope::new(inner, &none, Block::Resources, meter);
    scope.params = params;
    scope.pseudo = pseudo;
    let mut expander = Expander {
        scope,
        copies: 0,
        bytes_left: limits::MAX_TEMPLATE_BYTES as u64,
    };
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
                Err(Fail::Error(e)) => return Err(e.under_key(section)),
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
    expand_document(inner, None, None, &Meter::default())
}

/// The sections with every `Fn::ForEach` expanded against parameter values.
pub(crate) fn expand(
    inner: &Inner,
    params: &BoundParameters,
    pseudo: &Pseudo,
    meter: &Meter,
) -> Result<Sections, TemplateError> {
    if !inner.language_extensions {
        return Ok(Sections {
            conditions: inner.conditions.clone(),
            resources: inner.resources.clone(),
            outputs: inner.outputs.clone(),
            processed: inner.document.clone(),
        });
    }
    expand_document(inner, Some(params), Some(pseudo), meter)?
        .ok_or_else(|| ErrorKind::ForEachCollection.into())
}
