//! The references a value makes (Ref, Fn::GetAtt, Fn::Sub variables), collected by walking it
//! without evaluating anything, with every intrinsic function's shape checked on the way. The
//! parse-time checks and `resolve` build the dependency graph and find unresolved names from
//! what it collects. Errors carry the path of the offending function inside the walked value.

use indexmap::IndexMap;
use serde_json::Value;

use super::error::{Budget, ErrorKind, Function, TemplateError};
use super::eval::{is_function_key, parse_sub, SubPiece};
use super::limits;
use super::model::{Inner, ResourceDecl};

/// The shape error of `function`.
fn shape(function: Function) -> TemplateError {
    ErrorKind::Shape(function).into()
}

/// A condition name that is not declared, used by `function`.
pub(crate) fn unresolved_condition(name: &str, function: &str) -> TemplateError {
    ErrorKind::UnresolvedCondition {
        name: name.to_string(),
        function: function.to_string(),
    }
    .into()
}

/// A reference found in a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reference {
    /// `Ref name` or `${name}`.
    Ref(String),
    /// `Fn::GetAtt [resource, attribute]` or `${resource.attribute}`; the attribute is `None`
    /// when it is computed.
    GetAtt(String, Option<String>),
}

/// Collects references in `value`, checking intrinsic shapes on the way. `conditions`, when
/// known, prunes the branch of `Fn::If` not taken; `defined` lists the condition names.
pub(crate) struct Collector<'a> {
    inner: &'a Inner,
    /// Every declared resource (conditions or not).
    declared: &'a IndexMap<String, ResourceDecl>,
    defined: &'a IndexMap<String, Value>,
    conditions: Option<&'a IndexMap<String, bool>>,
    pub refs: Vec<Reference>,
    /// How many `Fn::If` branches enclose the walk when the condition is unknown.
    unknown_if_depth: usize,
    /// The indices in `refs` of the references found at `unknown_if_depth == 0`: those
    /// every resolution keeps, whatever the parameter values.
    pub certain: Vec<usize>,
    steps: u64,
}

impl<'a> Collector<'a> {
    pub fn new(
        inner: &'a Inner,
        declared: &'a IndexMap<String, ResourceDecl>,
        defined: &'a IndexMap<String, Value>,
        conditions: Option<&'a IndexMap<String, bool>>,
    ) -> Collector<'a> {
        Collector {
            inner,
            declared,
            defined,
            conditions,
            refs: Vec::new(),
            unknown_if_depth: 0,
            certain: Vec::new(),
            steps: 0,
        }
    }

    /// Records a reference (see `certain`).
    fn push(&mut self, reference: Reference) {
        if self.unknown_if_depth == 0 {
            self.certain.push(self.refs.len());
        }
        self.refs.push(reference);
    }

    pub fn walk(&mut self, value: &Value, depth: usize) -> Result<(), TemplateError> {
        self.steps += 1;
        if depth > limits::MAX_DEPTH || self.steps > limits::FUEL {
            let budget = if self.steps > limits::FUEL {
                Budget::Steps
            } else {
                Budget::Depth
            };
            return Err(ErrorKind::Budget(budget).into());
        }
        match value {
            Value::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| {
                self.walk(item, depth + 1)
                    .map_err(|e| e.under_key(&i.to_string()))
            }),
            Value::Object(map) => {
                if map.len() == 1 {
                    if let Some((key, args)) = map.iter().next() {
                        if is_function_key(key) {
                            return self
                                .function(key, args, depth + 1)
                                .map_err(|e| e.under_key(key));
                        }
                    }
                }
                map.iter()
                    .try_for_each(|(k, v)| self.walk(v, depth + 1).map_err(|e| e.under_key(k)))
            }
            _ => Ok(()),
        }
    }

    fn function(&mut self, name: &str, args: &Value, depth: usize) -> Result<(), TemplateError> {
        let le = self.inner.language_extensions;
        match name {
            "Ref" => match args {
                Value::String(s) => {
                    self.push(Reference::Ref(s.clone()));
                    Ok(())
                }
                _ => Err(shape(Function::Ref)),
            },
            "Fn::GetAtt" => self.get_att(args, depth),
            "Fn::Sub" => self.sub(args, depth),
            "Fn::If" => self.if_(args, depth),
            "Fn::ImportValue" => self.import_value(args, depth),
            "Fn::Join" => match args {
                Value::Array(items) if items.len() == 2 && items[0].is_string() => {
                    self.walk(&items[1], depth)
                }
                _ => Err(shape(Function::Join)),
            },
            "Fn::Select" => match args {
                Value::Array(items) if items.len() == 2 => self.walk(args, depth),
                _ => Err(shape(Function::Select)),
            },
            "Fn::Split" => match args {
                Value::Array(items) if items.len() == 2 && items[0].is_string() => {
                    self.walk(&items[1], depth)
                }
                _ => Err(shape(Function::Split)),
            },
            "Fn::FindInMap" => match args {
                Value::Array(items) if items.len() == 3 || (le && items.len() == 4) => {
                    self.walk(args, depth)
                }
                _ => Err(shape(Function::FindInMap)),
            },
            "Fn::Cidr" => match args {
                Value::Array(items) if items.len() == 3 => self.walk(args, depth),
                _ => Err(shape(Function::Cidr)),
            },
            "Fn::Base64" | "Fn::GetAZs" => self.walk(args, depth),
            "Fn::Length" | "Fn::ToJsonString" if le => self.walk(args, depth),
            "Fn::Equals"
            | "Fn::And"
            | "Fn::Or"
            | "Fn::Not"
            | "Fn::Contains"
            | "Fn::EachMemberEquals"
            | "Fn::EachMemberIn"
            | "Fn::RefAll"
            | "Fn::ValueOf"
            | "Fn::ValueOfAll" => self.walk(args, depth),
            _ => Err(ErrorKind::UnsupportedFunction {
                name: name.to_string(),
                language_extensions: le,
            }
            .into()),
        }
    }

    /// `Fn::GetAtt [resource, attribute]` or `"resource.attribute"`.
    fn get_att(&mut self, args: &Value, depth: usize) -> Result<(), TemplateError> {
        match args {
            Value::String(s) => match s.split_once('.') {
                Some((r, a)) if !r.is_empty() && !a.is_empty() => {
                    self.push(Reference::GetAtt(r.to_string(), Some(a.to_string())));
                    Ok(())
                }
                _ => Err(shape(Function::GetAtt)),
            },
            Value::Array(items) if items.len() == 2 => {
                let Value::String(res) = &items[0] else {
                    return Err(shape(Function::GetAtt));
                };
                let attr = match &items[1] {
                    Value::String(a) => Some(a.clone()),
                    Value::Object(_) => {
                        self.walk(&items[1], depth)?;
                        None
                    }
                    _ => return Err(shape(Function::GetAtt)),
                };
                if res.is_empty() || attr.as_deref() == Some("") {
                    return Err(shape(Function::GetAtt));
                }
                self.push(Reference::GetAtt(res.clone(), attr));
                Ok(())
            }
            _ => Err(shape(Function::GetAtt)),
        }
    }

    /// `Fn::Sub`: its variables' values are walked, its `${...}` names are references.
    fn sub(&mut self, args: &Value, depth: usize) -> Result<(), TemplateError> {
        let (template, vars) = match args {
            Value::String(s) => (s, None),
            Value::Array(items) if items.len() == 2 => match (&items[0], &items[1]) {
                (Value::String(s), Value::Object(vars)) => (s, Some(vars)),
                _ => return Err(shape(Function::Sub)),
            },
            _ => return Err(shape(Function::Sub)),
        };
        if let Some(vars) = vars {
            vars.values().try_for_each(|v| self.walk(v, depth))?;
        }
        for piece in parse_sub(template)? {
            if let SubPiece::Var(var) = piece {
                if vars.is_some_and(|m| m.contains_key(&var)) {
                    continue;
                }
                match var.split_once('.') {
                    // `${Resource.Attribute}` of a declared resource is a GetAtt; any
                    // other name is unresolved as written (contract §6.2).
                    Some((res, att))
                        if !self.inner.parameters.contains_key(&var)
                            && self.declared.contains_key(res) =>
                    {
                        self.push(Reference::GetAtt(res.to_string(), Some(att.to_string())))
                    }
                    _ => self.push(Reference::Ref(var)),
                }
            }
        }
        Ok(())
    }

    /// `Fn::If`: the branch taken when the condition is known, both otherwise.
    fn if_(&mut self, args: &Value, depth: usize) -> Result<(), TemplateError> {
        let Value::Array(items) = args else {
            return Err(shape(Function::If));
        };
        let [Value::String(cond), yes, no] = items.as_slice() else {
            return Err(shape(Function::If));
        };
        if !self.defined.contains_key(cond) {
            return Err(unresolved_condition(cond, "Fn::If"));
        }
        match self.conditions.and_then(|c| c.get(cond)) {
            Some(true) => self.walk(yes, depth),
            Some(false) => self.walk(no, depth),
            None => {
                self.unknown_if_depth += 1;
                let walked = self.walk(yes, depth).and_then(|()| self.walk(no, depth));
                self.unknown_if_depth -= 1;
                walked
            }
        }
    }

    /// `Fn::ImportValue`: its name must not depend on resources, imports or `Fn::GetAZs`.
    fn import_value(&mut self, args: &Value, depth: usize) -> Result<(), TemplateError> {
        let before = self.refs.len();
        self.walk(args, depth)?;
        let depends_on_resource = self.refs[before..].iter().any(|r| match r {
            Reference::Ref(n) => self.inner_is_resource(n),
            Reference::GetAtt(..) => true,
        });
        if depends_on_resource || contains_function(args, &["Fn::ImportValue", "Fn::GetAZs"]) {
            return Err(ErrorKind::ImportValueDependsOnResource.into());
        }
        Ok(())
    }

    fn inner_is_resource(&self, name: &str) -> bool {
        self.declared.contains_key(name)
    }
}

/// True when `value` contains a call to one of `names`.
fn contains_function(value: &Value, names: &[&str]) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| names.contains(&k.as_str()) || contains_function(v, names)),
        Value::Array(items) => items.iter().any(|i| contains_function(i, names)),
        _ => false,
    }
}
