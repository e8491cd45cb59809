//! Intrinsic-function evaluation: one interpreter used three ways — statically while resolving
//! (parameters known, resources not: anything needing a resource is `Unknown`, every error found
//! is a synchronous ValidationError), for conditions and rules, and at execution time through
//! [`Evaluator`] with the engine's [`ResourceValues`].
//!
//! `AWS::NoValue` is `None`: it removes the enclosing property or list element. Numbers and
//! booleans in property values pass through as JSON numbers and booleans (the provider coerces,
//! as CloudFormation's handlers do); where a string is expected (Fn::Join, Fn::Sub, keys of
//! Fn::FindInMap, ...) scalars are taken as their text. Evaluation is bounded by a fuel budget
//! and a nesting cap ([`super::limits`]).

use std::cell::Cell;

use base64::Engine as _;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{Block, Budget, ErrorKind, EvalError, Function, TemplateError};
use super::model::{is_pseudo, Inner, Pseudo, Resolved, ResourceDecl, ResourceValues, Template};
use super::params::scalar_text;
use super::params::BoundParameters;
use super::{cidr, limits};
use crate::cloudformation::registry;

/// Why an evaluation stopped.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A real error, with AWS's text.
    Error(TemplateError),
    /// The value depends on something not known yet (a resource, an export).
    Unknown,
}

impl From<TemplateError> for Fail {
    fn from(err: TemplateError) -> Fail {
        Fail::Error(err)
    }
}

impl From<ErrorKind> for Fail {
    fn from(kind: ErrorKind) -> Fail {
        Fail::Error(kind.into())
    }
}

impl Fail {
    /// The failure with `segment` put in front of its error's path (unwinding out of a key,
    /// a list index or a function).
    pub(crate) fn under(self, segment: &str) -> Fail {
        match self {
            Fail::Error(err) => Fail::Error(err.under_key(segment)),
            unknown => unknown,
        }
    }
}

pub(crate) type R<T> = Result<T, Fail>;

/// Looks conditions up by name while evaluating `Fn::If` and `{"Condition": name}`.
pub(crate) trait ConditionLookup {
    /// The value of condition `name`; `function` names the caller for the error message.
    fn condition(&self, name: &str, function: &str) -> R<bool>;
}

impl ConditionLookup for IndexMap<String, bool> {
    fn condition(&self, name: &str, function: &str) -> R<bool> {
        self.get(name)
            .copied()
            .ok_or_else(|| unresolved_condition(name, function))
    }
}

/// Everything an evaluation can see.
pub(crate) struct Scope<'a> {
    pub inner: &'a Inner,
    /// The resources that exist (declared ones statically, the resolved set at execution).
    pub resources: &'a IndexMap<String, ResourceDecl>,
    pub params: Option<&'a BoundParameters>,
    pub pseudo: Option<&'a Pseudo>,
    pub conditions: Option<&'a dyn ConditionLookup>,
    pub values: Option<&'a dyn ResourceValues>,
    pub block: Block,
    /// The output being evaluated (its GetAtt attributes are checked at execution, §6.2).
    pub output_key: Option<&'a str>,
    fuel: Cell<u64>,
}

const CONDITION_FUNCTIONS: &[&str] = &["Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not"];
const RULE_FUNCTIONS: &[&str] = &[
    "Fn::Contains",
    "Fn::EachMemberEquals",
    "Fn::EachMemberIn",
    "Fn::RefAll",
    "Fn::ValueOf",
    "Fn::ValueOfAll",
];

/// True when `key` names an intrinsic function the evaluator dispatches on.
pub(crate) fn is_function_key(key: &str) -> bool {
    key == "Ref" || key.starts_with("Fn::")
}

impl<'a> Scope<'a> {
    pub fn new(
        inner: &'a Inner,
        resources: &'a IndexMap<String, ResourceDecl>,
        block: Block,
    ) -> Scope<'a> {
        Scope {
            inner,
            resources,
            params: None,
            pseudo: None,
            conditions: None,
            values: None,
            block,
            output_key: None,
            fuel: Cell::new(limits::FUEL),
        }
    }

    fn burn(&self, depth: usize) -> R<()> {
        let fuel = self.fuel.get();
        if fuel == 0 || depth > limits::MAX_DEPTH {
            let budget = if fuel == 0 {
                Budget::Steps
            } else {
                Budget::Depth
            };
            return Err(Fail::Error(ErrorKind::Budget(budget).into()));
        }
        self.fuel.set(fuel - 1);
        Ok(())
    }

    /// Evaluates `value`; `None` is `AWS::NoValue`.
    pub fn eval(&self, value: &Value, depth: usize) -> R<Option<Value>> {
        self.burn(depth)?;
        match value {
            Value::Object(map) => {
                if map.len() == 1 {
                    if let Some((key, args)) = map.iter().next() {
                        if is_function_key(key) {
                            return self.call(key, args, depth + 1).map_err(|f| f.under(key));
                        }
                    }
                }
                let mut out = Map::new();
                let mut unknown = false;
                for (k, v) in map {
                    match self.eval(v, depth + 1) {
                        Ok(Some(v)) => {
                            out.insert(k.clone(), v);
                        }
                        Ok(None) => {}
                        Err(Fail::Unknown) => unknown = true,
                        Err(err) => return Err(err.under(k)),
                    }
                }
                if unknown {
                    return Err(Fail::Unknown);
                }
                Ok(Some(Value::Object(out)))
            }
            Value::Array(items) => Ok(Some(Value::Array(self.eval_items(items, depth)?))),
            other => Ok(Some(other.clone())),
        }
    }

    /// Evaluates every item (an error anywhere wins over an unknown), dropping NoValues.
    fn eval_items(&self, items: &[Value], depth: usize) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        let mut unknown = false;
        for (i, item) in items.iter().enumerate() {
            match self.eval(item, depth + 1) {
                Ok(Some(v)) => out.push(v),
                Ok(None) => {}
                Err(Fail::Unknown) => unknown = true,
                Err(err) => return Err(err.under(&i.to_string())),
            }
        }
        if unknown {
            return Err(Fail::Unknown);
        }
        Ok(out)
    }

    /// Evaluates `value` and requires a scalar; `shape` is the error for anything else.
    fn eval_text(&self, value: &Value, depth: usize, function: Function) -> R<String> {
        match self.eval(value, depth)? {
            Some(v) => scalar_text(&v).ok_or_else(|| shape(function)),
            None => Err(shape(function)),
        }
    }

    /// Evaluates `value` and requires a list of scalars (as texts).
    fn eval_text_list(&self, value: &Value, depth: usize, function: Function) -> R<Vec<String>> {
        match self.eval(value, depth)? {
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| scalar_text(i).ok_or_else(|| shape(function)))
                .collect(),
            _ => Err(shape(function)),
        }
    }

    fn call(&self, name: &str, args: &Value, depth: usize) -> R<Option<Value>> {
        let le = self.inner.language_extensions;
        match name {
            "Ref" => self.ref_(args),
            "Fn::GetAtt" => self.get_att(args, depth),
            "Fn::Sub" => self.sub(args, depth).map(|s| Some(Value::String(s))),
            "Fn::Join" => self.join(args, depth).map(|s| Some(Value::String(s))),
            "Fn::Select" => self.select(args, depth),
            "Fn::Split" => self.split(args, depth),
            "Fn::If" => self.if_(args, depth),
            "Fn::FindInMap" => self.find_in_map(args, depth),
            "Fn::Base64" => {
                let text = self.eval_text(args, depth, Function::Base64)?;
                Ok(Some(Value::String(
                    base64::engine::general_purpose::STANDARD.encode(text.as_bytes()),
                )))
            }
            "Fn::GetAZs" => {
                let region = self.eval_text(args, depth, Function::GetAzs)?;
                let region = if region.is_empty() {
                    self.pseudo.ok_or(Fail::Unknown)?.region.clone()
                } else {
                    region
                };
                Ok(Some(Value::Array(
                    registry::availability_zones(&region)
                        .into_iter()
                        .map(Value::String)
                        .collect(),
                )))
            }
            "Fn::Cidr" => self.cidr(args, depth),
            "Fn::ImportValue" => self.import_value(args, depth),
            "Fn::Length" if le => match self.eval(args, depth)? {
                Some(Value::Array(items)) => Ok(Some(Value::from(items.len()))),
                _ => Err(shape(Function::Length)),
            },
            "Fn::ToJsonString" if le => match self.eval(args, depth)? {
                Some(v @ (Value::Object(_) | Value::Array(_))) => {
                    Ok(Some(Value::String(v.to_string())))
                }
                // Chosen.
                _ => Err(shape(Function::ToJsonString)),
            },
            "Fn::Transform" => {
                let name = args
                    .get("Name")
                    .and_then(Value::as_str)
                    .unwrap_or("Fn::Transform");
                Err(Fail::Error(
                    ErrorKind::UnsupportedTransform(name.to_string()).into(),
                ))
            }
            _ if CONDITION_FUNCTIONS.contains(&name) || RULE_FUNCTIONS.contains(&name) => {
                // Chosen: condition and rule functions belong to Conditions, Rules and Fn::If.
                Err(Fail::Error(
                    ErrorKind::ConditionFunctionOutside(name.to_string()).into(),
                ))
            }
            _ => Err(Fail::Error(
                ErrorKind::UnsupportedFunction {
                    name: name.to_string(),
                    language_extensions: le,
                }
                .into(),
            )),
        }
    }

    fn unresolved(&self, name: &str) -> Fail {
        Fail::Error(
            ErrorKind::Unresolved {
                names: vec![name.to_string()],
                block: self.block,
            }
            .into(),
        )
    }

    /// `Ref`: parameter, pseudo parameter, or resource.
    fn ref_(&self, args: &Value) -> R<Option<Value>> {
        let Value::String(name) = args else {
            return Err(shape(Function::Ref));
        };
        if name == "AWS::NoValue" {
            return Ok(None);
        }
        if is_pseudo(name) {
            return self
                .pseudo
                .ok_or(Fail::Unknown)?
                .value(name)
                .map(Some)
                .ok_or(Fail::Unknown);
        }
        if self.inner.parameters.contains_key(name) {
            let params = self.params.ok_or(Fail::Unknown)?;
            return params.ref_value(name).map(Some).ok_or(Fail::Unknown);
        }
        if self.resources.contains_key(name)
            && matches!(self.block, Block::Resources | Block::Outputs)
        {
            let values = self.values.ok_or(Fail::Unknown)?;
            return values
                .ref_value(name)
                .map(Some)
                .ok_or_else(|| self.unresolved(name));
        }
        Err(self.unresolved(name))
    }

    /// The `[resource, attribute]` of a GetAtt argument (list form, or `"A.B"` split at the
    /// first dot).
    fn get_att_parts(&self, args: &Value, depth: usize) -> R<(String, String)> {
        match args {
            Value::String(s) => match s.split_once('.') {
                Some((res, att)) if !res.is_empty() && !att.is_empty() => {
                    Ok((res.to_string(), att.to_string()))
                }
                _ => Err(shape(Function::GetAtt)),
            },
            Value::Array(items) if items.len() == 2 => {
                let Value::String(res) = &items[0] else {
                    return Err(shape(Function::GetAtt));
                };
                let att = self.eval_text(&items[1], depth, Function::GetAtt)?;
                if res.is_empty() || att.is_empty() {
                    return Err(shape(Function::GetAtt));
                }
                Ok((res.clone(), att))
            }
            _ => Err(shape(Function::GetAtt)),
        }
    }

    fn get_att(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let (res, att) = self.get_att_parts(args, depth)?;
        self.attribute(&res, &att).map(Some)
    }

    fn attribute(&self, res: &str, att: &str) -> R<Value> {
        let Some(decl) = self.resources.get(res) else {
            if self.inner.resources.contains_key(res) {
                return Err(self.unresolved(res));
            }
            return Err(Fail::Error(
                ErrorKind::GetAttUndefined(res.to_string()).into(),
            ));
        };
        let values = self.values.ok_or(Fail::Unknown)?;
        if let Some(key) = self.output_key {
            if let Some(info) = registry::resource_type(&decl.type_name) {
                if !info.supports_attribute(att) {
                    // AWS (recorded, LS engine/test_attributes): reported when the output is
                    // evaluated, not when the template is validated.
                    return Err(Fail::Error(
                        ErrorKind::OutputGetAttAttribute {
                            output: key.to_string(),
                            type_name: decl.type_name.clone(),
                            attribute: att.to_string(),
                        }
                        .into(),
                    ));
                }
            }
        }
        values.attribute(res, att).ok_or_else(|| {
            Fail::Error(
                ErrorKind::GetAttAttribute {
                    resource: res.to_string(),
                    attribute: att.to_string(),
                }
                .into(),
            )
        })
    }

    fn sub(&self, args: &Value, depth: usize) -> R<String> {
        let (template, vars) = match args {
            Value::String(s) => (s.as_str(), None),
            Value::Array(items) if items.len() == 2 => match (&items[0], &items[1]) {
                (Value::String(s), Value::Object(vars)) => (s.as_str(), Some(vars)),
                _ => return Err(shape(Function::Sub)),
            },
            _ => return Err(shape(Function::Sub)),
        };
        let mut local: IndexMap<&str, String> = IndexMap::new();
        let mut unknown = false;
        if let Some(vars) = vars {
            for (k, v) in vars {
                match self.eval(v, depth + 1) {
                    Ok(Some(v)) => match scalar_text(&v) {
                        Some(text) => {
                            local.insert(k.as_str(), text);
                        }
                        None => return Err(Fail::Error(sub_not_string(k))),
                    },
                    Ok(None) => return Err(Fail::Error(sub_not_string(k))),
                    Err(Fail::Unknown) => unknown = true,
                    Err(err) => return Err(err),
                }
            }
        }
        let mut out = String::with_capacity(template.len());
        for piece in parse_sub(template)? {
            match piece {
                SubPiece::Text(t) => out.push_str(&t),
                SubPiece::Var(name) => {
                    if let Some(v) = local.get(name.as_str()) {
                        out.push_str(v);
                        continue;
                    }
                    if vars.is_some_and(|m| m.contains_key(&name)) {
                        continue; // Its value is unknown; `unknown` is already set.
                    }
                    match self.sub_var(&name) {
                        Ok(text) => out.push_str(&text),
                        Err(Fail::Unknown) => unknown = true,
                        Err(err) => return Err(err),
                    }
                }
            }
        }
        if unknown {
            return Err(Fail::Unknown);
        }
        Ok(out)
    }

    /// A `${Name}` or `${Resource.Attribute}` of Fn::Sub outside its variable map.
    fn sub_var(&self, name: &str) -> R<String> {
        let dotted = name.split_once('.').filter(|(res, _)| {
            self.resources.contains_key(*res) || self.inner.resources.contains_key(*res)
        });
        let value =
            if let (Some((res, att)), false) = (dotted, self.inner.parameters.contains_key(name)) {
                self.attribute(res, att)?
            } else {
                match self.ref_(&Value::String(name.to_string()))? {
                    Some(v) => v,
                    None => return Err(Fail::Error(sub_not_string(name))),
                }
            };
        scalar_text(&value).ok_or_else(|| Fail::Error(sub_not_string(name)))
    }

    fn join(&self, args: &Value, depth: usize) -> R<String> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Join));
        };
        if items.len() != 2 {
            return Err(shape(Function::Join));
        }
        let delimiter = match &items[0] {
            Value::String(s) => s.clone(),
            _ => return Err(shape(Function::Join)),
        };
        let parts = self.eval_text_list(&items[1], depth, Function::Join)?;
        Ok(parts.join(&delimiter))
    }

    fn select(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Select));
        };
        if items.len() != 2 {
            return Err(shape(Function::Select));
        }
        let index_text = self.eval_text(&items[0], depth, Function::Select)?;
        let list = match self.eval(&items[1], depth)? {
            Some(Value::Array(list)) => list,
            _ => return Err(shape(Function::Select)),
        };
        let index: usize = index_text
            .trim()
            .parse()
            .map_err(|_| Fail::Error(ErrorKind::SelectIndex(index_text.clone()).into()))?;
        list.get(index)
            .cloned()
            .map(Some)
            .ok_or_else(|| Fail::Error(ErrorKind::SelectIndex(index.to_string()).into()))
    }

    fn split(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Split));
        };
        if items.len() != 2 {
            return Err(shape(Function::Split));
        }
        let delimiter = match &items[0] {
            Value::String(s) if !s.is_empty() => s.clone(),
            _ => return Err(shape(Function::Split)),
        };
        let text = self.eval_text(&items[1], depth, Function::Split)?;
        Ok(Some(Value::Array(
            text.split(delimiter.as_str())
                .map(|s| Value::String(s.to_string()))
                .collect(),
        )))
    }

    fn if_(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::If));
        };
        let [cond, yes, no] = items.as_slice() else {
            return Err(shape(Function::If));
        };
        let Value::String(cond) = cond else {
            return Err(shape(Function::If));
        };
        let conditions = self.conditions.ok_or(Fail::Unknown)?;
        let branch = if conditions.condition(cond, "Fn::If")? {
            yes
        } else {
            no
        };
        self.eval(branch, depth)
    }

    fn find_in_map(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::FindInMap));
        };
        let (keys, default) = match items.len() {
            3 => (&items[..], None),
            4 if self.inner.language_extensions => match &items[3] {
                Value::Object(m) if m.len() == 1 && m.contains_key("DefaultValue") => {
                    (&items[..3], m.get("DefaultValue"))
                }
                _ => return Err(shape(Function::FindInMap)),
            },
            _ => return Err(shape(Function::FindInMap)),
        };
        let map_name = self.eval_text(&keys[0], depth, Function::FindInMap)?;
        let top = self.eval_text(&keys[1], depth, Function::FindInMap)?;
        let second = self.eval_text(&keys[2], depth, Function::FindInMap)?;
        let found = self
            .inner
            .mappings
            .get(&map_name)
            .and_then(|m| m.get(&top))
            .and_then(|m| m.get(&second));
        match (found, default) {
            (Some(v), _) => Ok(Some(v.clone())),
            (None, Some(default)) => self.eval(default, depth),
            (None, None) => Err(Fail::Error(
                ErrorKind::MappingMissing {
                    map: map_name,
                    top,
                    second,
                }
                .into(),
            )),
        }
    }

    fn cidr(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Cidr));
        };
        if items.len() != 3 {
            return Err(shape(Function::Cidr));
        }
        let block = self.eval_text(&items[0], depth, Function::Cidr)?;
        let count = self.eval_text(&items[1], depth, Function::Cidr)?;
        let bits = self.eval_text(&items[2], depth, Function::Cidr)?;
        let list = cidr::cidr(&block, &count, &bits)?;
        Ok(Some(Value::Array(
            list.into_iter().map(Value::String).collect(),
        )))
    }

    fn import_value(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let name = self.eval_text(args, depth, Function::ImportValue)?;
        let values = self.values.ok_or(Fail::Unknown)?;
        match values.import_value(&name) {
            Some(v) => Ok(Some(Value::String(v))),
            None => Err(Fail::Error(ErrorKind::ExportMissing(name).into())),
        }
    }

    /// Evaluates a condition function (`Fn::Equals`, `Fn::And`, `Fn::Or`, `Fn::Not`,
    /// `{"Condition": name}`) to a boolean; in Rules also the rule functions.
    pub fn eval_bool(&self, value: &Value, conds: &dyn ConditionLookup, depth: usize) -> R<bool> {
        self.burn(depth)?;
        let not_boolean = || Fail::Error(ErrorKind::ConditionsBoolean.into());
        let Value::Object(map) = value else {
            return match value {
                Value::Bool(b) => Ok(*b),
                Value::String(s) if s == "true" => Ok(true),
                Value::String(s) if s == "false" => Ok(false),
                _ => Err(not_boolean()),
            };
        };
        let Some((name, args)) = map.iter().next().filter(|_| map.len() == 1) else {
            return Err(not_boolean());
        };
        match name.as_str() {
            "Condition" => match args {
                Value::String(c) => conds.condition(c, "Condition"),
                _ => Err(not_boolean()),
            },
            "Fn::Equals" => {
                let Value::Array(items) = args else {
                    return Err(shape(Function::Equals));
                };
                let [a, b] = items.as_slice() else {
                    return Err(shape(Function::Equals));
                };
                let a = self.eval(a, depth + 1)?;
                let b = self.eval(b, depth + 1)?;
                Ok(normalize(a) == normalize(b))
            }
            "Fn::And" | "Fn::Or" => {
                let items = match args {
                    Value::Array(items) if (2..=10).contains(&items.len()) => items,
                    _ => {
                        return Err(shape(if name == "Fn::And" {
                            Function::And
                        } else {
                            Function::Or
                        }))
                    }
                };
                let and = name == "Fn::And";
                let mut result = and;
                for item in items {
                    let v = self.eval_bool(item, conds, depth + 1)?;
                    if and {
                        result &= v;
                    } else {
                        result |= v;
                    }
                }
                Ok(result)
            }
            "Fn::Not" => match args {
                Value::Array(items) if items.len() == 1 => {
                    Ok(!self.eval_bool(&items[0], conds, depth + 1)?)
                }
                _ => Err(shape(Function::Not)),
            },
            _ if self.block == Block::Rules && RULE_FUNCTIONS.contains(&name.as_str()) => {
                self.rule_function(name, args, depth)
            }
            _ if is_function_key(name) => match self.call(name, args, depth + 1)? {
                Some(Value::Bool(b)) => Ok(b),
                Some(Value::String(s)) if s == "true" => Ok(true),
                Some(Value::String(s)) if s == "false" => Ok(false),
                _ => Err(not_boolean()),
            },
            _ => Err(not_boolean()),
        }
    }

    /// The rule-specific functions (user guide "Rule functions").
    fn rule_function(&self, name: &str, args: &Value, depth: usize) -> R<bool> {
        let function = match name {
            "Fn::Contains" => Function::Contains,
            "Fn::EachMemberEquals" => Function::EachMemberEquals,
            _ => Function::EachMemberIn,
        };
        let shape = || shape(function);
        let Value::Array(items) = args else {
            return Err(shape());
        };
        let [a, b] = items.as_slice() else {
            return Err(shape());
        };
        let list = |v: &Value| -> R<Vec<Value>> {
            match self.rule_value(v, depth + 1)? {
                Value::Array(items) => Ok(items.into_iter().map(normalize_value).collect()),
                other => Ok(vec![normalize_value(other)]),
            }
        };
        match name {
            "Fn::Contains" => {
                let haystack = list(a)?;
                let needle = normalize_value(self.rule_value(b, depth + 1)?);
                Ok(haystack.contains(&needle))
            }
            "Fn::EachMemberEquals" => {
                let members = list(a)?;
                let value = normalize_value(self.rule_value(b, depth + 1)?);
                Ok(members.iter().all(|m| *m == value))
            }
            "Fn::EachMemberIn" => {
                let members = list(a)?;
                let allowed = list(b)?;
                Ok(members.iter().all(|m| allowed.contains(m)))
            }
            _ => Err(shape()),
        }
    }

    /// A value inside a rule function: intrinsics plus `Fn::RefAll`, `Fn::ValueOf` and
    /// `Fn::ValueOfAll`, which need EC2 data Cumulo does not have (they give empty lists).
    fn rule_value(&self, value: &Value, depth: usize) -> R<Value> {
        if let Value::Object(map) = value {
            if map.len() == 1 {
                if let Some((name, _)) = map.iter().next() {
                    if matches!(name.as_str(), "Fn::RefAll" | "Fn::ValueOfAll") {
                        return Ok(Value::Array(Vec::new()));
                    }
                    if name == "Fn::ValueOf" {
                        return Ok(Value::String(String::new()));
                    }
                }
            }
        }
        Ok(self.eval(value, depth)?.unwrap_or(Value::Null))
    }
}

/// Scalars compare as text in conditions (`!Equals [1, "1"]` holds).
fn normalize(value: Option<Value>) -> Option<Value> {
    value.map(normalize_value)
}

fn normalize_value(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(normalize_value).collect()),
        v => match scalar_text(&v) {
            Some(s) => Value::String(s),
            None => v,
        },
    }
}

/// A Fn::Sub variable that is a list or a map.
fn sub_not_string(name: &str) -> TemplateError {
    ErrorKind::SubNotString(name.to_string()).into()
}

/// The shape error of `function`.
fn shape(function: Function) -> Fail {
    Fail::Error(ErrorKind::Shape(function).into())
}

/// A condition name that is not declared, used by `function`.
pub(crate) fn unresolved_condition(name: &str, function: &str) -> Fail {
    Fail::Error(
        ErrorKind::UnresolvedCondition {
            name: name.to_string(),
            function: function.to_string(),
        }
        .into(),
    )
}

/// A piece of a Fn::Sub template string.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SubPiece {
    Text(String),
    Var(String),
}

/// Splits a Fn::Sub string into literal text and `${Var}` references; `${!Literal}` is the
/// literal `${Literal}`, and a `${` with no closing brace is literal text.
pub(crate) fn parse_sub(template: &str) -> Result<Vec<SubPiece>, TemplateError> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        text.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            text.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        if let Some(literal) = inner.strip_prefix('!') {
            text.push_str("${");
            text.push_str(literal);
            text.push('}');
        } else {
            let name = inner.trim();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':'))
            {
                return Err(ErrorKind::SubVariableName.into());
            }
            if !text.is_empty() {
                pieces.push(SubPiece::Text(std::mem::take(&mut text)));
            }
            pieces.push(SubPiece::Var(name.to_string()));
        }
        rest = &after[end + 1..];
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(SubPiece::Text(text));
    }
    Ok(pieces)
}

/// An output, evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvaluatedOutput {
    /// `OutputKey`.
    pub key: String,
    /// `OutputValue`: a list becomes its comma-joined items, a map its JSON text.
    pub value: String,
    /// `Description`, evaluated.
    pub description: Option<String>,
    /// `ExportName`, evaluated.
    pub export_name: Option<String>,
}

/// Evaluates intrinsics at execution time against created resources.
pub struct Evaluator<'a> {
    template: &'a Template,
    params: &'a BoundParameters,
    pseudo: &'a Pseudo,
    resolved: &'a Resolved,
    values: &'a dyn ResourceValues,
}

impl std::fmt::Debug for Evaluator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluator").finish_non_exhaustive()
    }
}

impl<'a> Evaluator<'a> {
    /// An evaluator for one stack operation.
    pub fn new(
        template: &'a Template,
        params: &'a BoundParameters,
        pseudo: &'a Pseudo,
        resolved: &'a Resolved,
        values: &'a dyn ResourceValues,
    ) -> Evaluator<'a> {
        Evaluator {
            template,
            params,
            pseudo,
            resolved,
            values,
        }
    }

    fn scope(&self, block: Block) -> Scope<'_> {
        let mut scope = Scope::new(&self.template.inner, &self.resolved.resources, block);
        scope.params = Some(self.params);
        scope.pseudo = Some(self.pseudo);
        scope.conditions = Some(&self.resolved.conditions);
        scope.values = Some(self.values);
        scope
    }

    fn run(scope: &Scope<'_>, value: &Value) -> Result<Option<Value>, EvalError> {
        match scope.eval(value, 0) {
            Ok(v) => Ok(v),
            Err(Fail::Error(err)) => Err(err.into()),
            // Every value is known at execution time; an unknown means a reference to a
            // resource the engine has not created.
            Err(Fail::Unknown) => Err(ErrorKind::NotAvailable.into()),
        }
    }

    /// Evaluates `value` as a resource property (an `AWS::NoValue` result is `null`).
    pub fn evaluate(&self, value: &Value) -> Result<Value, EvalError> {
        Ok(Self::run(&self.scope(Block::Resources), value)?.unwrap_or(Value::Null))
    }

    /// The resource's `Properties`, evaluated: a JSON object without intrinsics.
    pub fn resource_properties(&self, logical_id: &str) -> Result<Value, EvalError> {
        let decl = self.resolved.resources.get(logical_id).ok_or_else(|| {
            EvalError::from(ErrorKind::ResourceNotInStack(logical_id.to_string()))
        })?;
        match Self::run(&self.scope(Block::Resources), &decl.properties)? {
            Some(v @ Value::Object(_)) => Ok(v),
            _ => Ok(Value::Object(Map::new())),
        }
    }

    /// The output `key`, evaluated.
    pub fn output(&self, key: &str) -> Result<EvaluatedOutput, EvalError> {
        let decl = self
            .resolved
            .outputs
            .get(key)
            .ok_or_else(|| EvalError::from(ErrorKind::OutputNotInStack(key.to_string())))?;
        let mut scope = self.scope(Block::Outputs);
        scope.output_key = Some(key);
        let value = Self::run(&scope, &decl.value)?;
        scope.output_key = None;
        let text = |v: Option<&Value>| -> Result<Option<String>, EvalError> {
            match v {
                None => Ok(None),
                Some(v) => Ok(Self::run(&scope, v)?.map(|v| output_text(&v))),
            }
        };
        Ok(EvaluatedOutput {
            key: key.to_string(),
            value: value.map(|v| output_text(&v)).unwrap_or_default(),
            description: text(decl.description.as_ref())?,
            export_name: text(decl.export_name.as_ref())?,
        })
    }
}

/// How DescribeStacks shows an output value: a list's items comma-joined, a map as JSON.
fn output_text(value: &Value) -> String {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|i| scalar_text(i).unwrap_or_else(|| i.to_string()))
            .collect::<Vec<_>>()
            .join(","),
        v => scalar_text(v).unwrap_or_else(|| v.to_string()),
    }
}
