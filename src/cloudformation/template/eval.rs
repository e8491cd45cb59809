//! Intrinsic-function evaluation: one interpreter used three ways — statically while resolving
//! (parameters known, resources not: anything needing a resource is `Unknown`, every error found
//! is a synchronous ValidationError), for conditions and rules (`condition.rs`), and at
//! execution time through `Evaluator` (`evaluator.rs`) with the engine's [`ResourceValues`].
//!
//! `AWS::NoValue` is `None`: it removes the enclosing property or list element. Numbers and
//! booleans in property values pass through as JSON numbers and booleans (the provider coerces,
//! as CloudFormation's handlers do); where a string is expected (Fn::Join, Fn::Sub, keys of
//! Fn::FindInMap, ...) scalars are taken as their text.
//!
//! Evaluation is bounded (`budget.rs`): every step and every value made is charged to the
//! scope's [`Meter`], and each function's result is checked against the largest value one
//! function may make before its memory is taken. Errors carry the path of the value that
//! failed (keys, list indices and function names, added as they unwind).

use base64::Engine as _;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::budget::{measure, CappedWriter, Meter, Size};
use super::cidr;
use super::error::{Block, ErrorKind, Function, TemplateError};
use super::limits;
use super::model::{is_pseudo, Inner, Pseudo, ResourceDecl, ResourceValues};
use super::params::BoundParameters;
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

/// Everything an evaluation can see, and the meter it charges.
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
    pub meter: &'a Meter,
}

pub(crate) const CONDITION_FUNCTIONS: &[&str] = &["Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not"];
pub(crate) const RULE_FUNCTIONS: &[&str] = &[
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

/// A scalar's text, taking a string without copying it; `None` for lists, maps and null.
pub(crate) fn into_text(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl<'a> Scope<'a> {
    /// A scope over `resources` in `block`, charging `meter`; the caller sets what else it sees.
    pub fn new(
        inner: &'a Inner,
        resources: &'a IndexMap<String, ResourceDecl>,
        block: Block,
        meter: &'a Meter,
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
            meter,
        }
    }

    /// One step at `depth`.
    pub(crate) fn burn(&self, depth: usize) -> R<()> {
        Ok(self.meter.step(depth)?)
    }

    /// Charges a value the scope takes from outside the template (a parameter, a mapping, the
    /// engine), checked as `function`'s result.
    fn take(&self, function: Function, value: Value) -> R<Value> {
        self.meter.produce_value(function, &value)?;
        Ok(value)
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
                self.meter.charge(Size { text: 2, nodes: 1 })?;
                let mut out = Map::new();
                let mut unknown = false;
                for (k, v) in map {
                    match self.eval(v, depth + 1) {
                        Ok(Some(v)) => {
                            self.meter.charge(Size::string(k.len()))?;
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
            Value::Array(items) => {
                self.meter.charge(Size { text: 2, nodes: 1 })?;
                Ok(Some(Value::Array(self.eval_items(items, depth)?)))
            }
            scalar => {
                self.meter.charge(measure(scalar))?;
                Ok(Some(scalar.clone()))
            }
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

    /// Evaluates `value` and requires a scalar; anything else is `function`'s shape error.
    fn eval_text(&self, value: &Value, depth: usize, function: Function) -> R<String> {
        match self.eval(value, depth)? {
            Some(v) => into_text(v).ok_or_else(|| shape(function)),
            None => Err(shape(function)),
        }
    }

    /// Evaluates `value` and requires a list of scalars (as texts).
    fn eval_text_list(&self, value: &Value, depth: usize, function: Function) -> R<Vec<String>> {
        match self.eval(value, depth)? {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|i| into_text(i).ok_or_else(|| shape(function)))
                .collect(),
            _ => Err(shape(function)),
        }
    }

    pub(crate) fn call(&self, name: &str, args: &Value, depth: usize) -> R<Option<Value>> {
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
            "Fn::Base64" => self.base64(args, depth),
            "Fn::GetAZs" => self.get_azs(args, depth),
            "Fn::Cidr" => self.cidr(args, depth),
            "Fn::ImportValue" => self.import_value(args, depth),
            "Fn::Length" if le => match self.eval(args, depth)? {
                Some(Value::Array(items)) => Ok(Some(Value::from(items.len()))),
                _ => Err(shape(Function::Length)),
            },
            "Fn::ToJsonString" if le => self.to_json_string(args, depth),
            "Fn::Transform" => {
                let name = args
                    .get("Name")
                    .and_then(Value::as_str)
                    .unwrap_or("Fn::Transform");
                Err(ErrorKind::UnsupportedTransform(name.to_string()).into())
            }
            _ if CONDITION_FUNCTIONS.contains(&name) || RULE_FUNCTIONS.contains(&name) => {
                Err(ErrorKind::ConditionFunctionOutside(name.to_string()).into())
            }
            _ => Err(ErrorKind::UnsupportedFunction {
                name: name.to_string(),
                language_extensions: le,
            }
            .into()),
        }
    }

    fn unresolved(&self, name: &str) -> Fail {
        ErrorKind::Unresolved {
            names: vec![name.to_string()],
            block: self.block,
        }
        .into()
    }

    /// `Ref`: parameter, pseudo parameter, or resource.
    fn ref_(&self, args: &Value) -> R<Option<Value>> {
        let Value::String(name) = args else {
            return Err(shape(Function::Ref));
        };
        if name == "AWS::NoValue" {
            return Ok(None);
        }
        let value = if is_pseudo(name) {
            self.pseudo
                .ok_or(Fail::Unknown)?
                .value(name)
                .ok_or(Fail::Unknown)?
        } else if self.inner.parameters.contains_key(name) {
            let params = self.params.ok_or(Fail::Unknown)?;
            params.ref_value(name).ok_or(Fail::Unknown)?
        } else if self.resources.contains_key(name)
            && matches!(self.block, Block::Resources | Block::Outputs)
        {
            let values = self.values.ok_or(Fail::Unknown)?;
            values
                .ref_value(name)
                .ok_or_else(|| self.unresolved(name))?
        } else {
            return Err(self.unresolved(name));
        };
        self.take(Function::Ref, value).map(Some)
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
            return Err(ErrorKind::GetAttUndefined(res.to_string()).into());
        };
        let values = self.values.ok_or(Fail::Unknown)?;
        if let Some(key) = self.output_key {
            if let Some(info) = registry::resource_type(&decl.type_name) {
                if !info.supports_attribute(att) {
                    // Reported when the output is evaluated, not when the template is
                    // validated (recorded, LS engine/test_attributes).
                    return Err(ErrorKind::OutputGetAttAttribute {
                        output: key.to_string(),
                        type_name: decl.type_name.clone(),
                        attribute: att.to_string(),
                    }
                    .into());
                }
            }
        }
        let value = values.attribute(res, att).ok_or_else(|| {
            Fail::from(ErrorKind::GetAttAttribute {
                resource: res.to_string(),
                attribute: att.to_string(),
            })
        })?;
        self.take(Function::GetAtt, value)
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
                    Ok(Some(v)) => match into_text(v) {
                        Some(text) => {
                            local.insert(k.as_str(), text);
                        }
                        None => return Err(sub_not_string(k)),
                    },
                    Ok(None) => return Err(sub_not_string(k)),
                    Err(Fail::Unknown) => unknown = true,
                    Err(err) => return Err(err.under(k).under("1")),
                }
            }
        }
        let mut out = String::with_capacity(template.len().min(limits::MAX_VALUE_BYTES));
        let push = |out: &mut String, text: &str| -> R<()> {
            // Refused before the text is copied: `${v}${v}` nested cannot double past the limit.
            if out.len() + text.len() > limits::MAX_VALUE_BYTES {
                return Err(ErrorKind::ValueTooLarge {
                    function: Function::Sub,
                    max: limits::MAX_VALUE_BYTES,
                }
                .into());
            }
            out.push_str(text);
            Ok(())
        };
        for piece in parse_sub(template)? {
            match piece {
                SubPiece::Text(t) => push(&mut out, &t)?,
                SubPiece::Var(name) => {
                    if let Some(v) = local.get(name.as_str()) {
                        push(&mut out, v)?;
                        continue;
                    }
                    if vars.is_some_and(|m| m.contains_key(&name)) {
                        continue; // Its value is unknown; `unknown` is already set.
                    }
                    match self.sub_var(&name) {
                        Ok(text) => push(&mut out, &text)?,
                        Err(Fail::Unknown) => unknown = true,
                        Err(err) => return Err(err),
                    }
                }
            }
        }
        if unknown {
            return Err(Fail::Unknown);
        }
        self.meter.produce_string(Function::Sub, out.len())?;
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
                    None => return Err(sub_not_string(name)),
                }
            };
        into_text(value).ok_or_else(|| sub_not_string(name))
    }

    fn join(&self, args: &Value, depth: usize) -> R<String> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Join));
        };
        if items.len() != 2 {
            return Err(shape(Function::Join));
        }
        let Value::String(delimiter) = &items[0] else {
            return Err(shape(Function::Join));
        };
        let parts = self.eval_text_list(&items[1], depth, Function::Join)?;
        let len = parts.iter().map(String::len).sum::<usize>()
            + delimiter.len() * parts.len().saturating_sub(1);
        self.meter.produce_string(Function::Join, len)?;
        Ok(parts.join(delimiter))
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
            .map_err(|_| Fail::from(ErrorKind::SelectIndex(index_text.clone())))?;
        // The item is moved out of the list: selecting copies nothing.
        list.into_iter()
            .nth(index)
            .map(Some)
            .ok_or_else(|| ErrorKind::SelectIndex(index.to_string()).into())
    }

    fn split(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Split));
        };
        if items.len() != 2 {
            return Err(shape(Function::Split));
        }
        let delimiter = match &items[0] {
            Value::String(s) if !s.is_empty() => s.as_str(),
            _ => return Err(shape(Function::Split)),
        };
        let text = self.eval_text(&items[1], depth, Function::Split)?;
        // Counted before the list is made: many delimiters make many (small) values.
        let pieces = text.matches(delimiter).count() as u64 + 1;
        let bytes = (text.len() - (pieces as usize - 1) * delimiter.len()) as u64;
        let size = Size {
            text: 2 + bytes + 3 * pieces - 1,
            nodes: 1 + pieces,
        };
        self.meter.produce(Function::Split, size.text, size)?;
        Ok(Some(Value::Array(
            text.split(delimiter)
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
            (Some(v), _) => {
                // Charged before the copy: a large attribute found many times.
                self.meter.produce_value(Function::FindInMap, v)?;
                Ok(Some(v.clone()))
            }
            (None, Some(default)) => self.eval(default, depth),
            (None, None) => Err(ErrorKind::MappingMissing {
                map: map_name,
                top,
                second,
            }
            .into()),
        }
    }

    fn base64(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let text = self.eval_text(args, depth, Function::Base64)?;
        // Each level adds a third: refused before the encoding is made.
        self.meter
            .produce_string(Function::Base64, text.len().div_ceil(3) * 4)?;
        Ok(Some(Value::String(
            base64::engine::general_purpose::STANDARD.encode(text.as_bytes()),
        )))
    }

    fn get_azs(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let region = self.eval_text(args, depth, Function::GetAzs)?;
        let region = if region.is_empty() {
            self.pseudo.ok_or(Fail::Unknown)?.region.clone()
        } else {
            region
        };
        let zones = Value::Array(
            registry::availability_zones(&region)
                .into_iter()
                .map(Value::String)
                .collect(),
        );
        self.take(Function::GetAzs, zones).map(Some)
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
        // At most 256 subnets (cidr.rs), each under 50 bytes.
        let list = cidr::cidr(&block, &count, &bits)?;
        let list = Value::Array(list.into_iter().map(Value::String).collect());
        self.take(Function::Cidr, list).map(Some)
    }

    fn import_value(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let name = self.eval_text(args, depth, Function::ImportValue)?;
        let values = self.values.ok_or(Fail::Unknown)?;
        match values.import_value(&name) {
            Some(v) => self.take(Function::ImportValue, Value::String(v)).map(Some),
            None => Err(ErrorKind::ExportMissing(name).into()),
        }
    }

    fn to_json_string(&self, args: &Value, depth: usize) -> R<Option<Value>> {
        let value = match self.eval(args, depth)? {
            Some(v @ (Value::Object(_) | Value::Array(_))) => v,
            _ => return Err(shape(Function::ToJsonString)),
        };
        // Escaping doubles backslashes and quotes at every level: the text is written into a
        // writer that refuses past the limit, so it is never built whole.
        let too_large = || {
            Fail::from(ErrorKind::ValueTooLarge {
                function: Function::ToJsonString,
                max: limits::MAX_VALUE_BYTES,
            })
        };
        let mut writer = CappedWriter::new(limits::MAX_VALUE_BYTES);
        serde_json::to_writer(&mut writer, &value).map_err(|_| too_large())?;
        let text = String::from_utf8(writer.into_inner()).map_err(|_| too_large())?;
        self.meter
            .produce_string(Function::ToJsonString, text.len())?;
        Ok(Some(Value::String(text)))
    }
}

/// A Fn::Sub variable that is a list or a map.
fn sub_not_string(name: &str) -> Fail {
    ErrorKind::SubNotString(name.to_string()).into()
}

/// The shape error of `function`.
pub(crate) fn shape(function: Function) -> Fail {
    ErrorKind::Shape(function).into()
}

/// A condition name that is not declared, used by `function`.
pub(crate) fn unresolved_condition(name: &str, function: &str) -> Fail {
    ErrorKind::UnresolvedCondition {
        name: name.to_string(),
        function: function.to_string(),
    }
    .into()
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
