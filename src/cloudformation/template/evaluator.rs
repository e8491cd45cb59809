//! [`Evaluator`]: the execution-time face of the interpreter. The engine asks it for one
//! resource's properties or one output at a time, with the values of the resources created so
//! far ([`ResourceValues`]).
//!
//! Each call is one evaluation with its own meter (steps, nesting,
//! [`super::limits::EVALUATION_BYTES`]); what it returns (the values the engine keeps) is also
//! charged to the operation's meter in [`Resolved`], so one stack operation's evaluations
//! together stay under [`super::limits::OPERATION_BYTES`] however many resources amplify values
//! they only learn at execution. Errors carry the resource's or output's path.

use serde_json::{Map, Value};

use super::budget::{measure, Meter, Size};
use super::error::{Block, ErrorKind, EvalError, TemplateError};
use super::eval::{into_text, Fail, Scope};
use super::model::{Pseudo, Resolved, ResourceValues, Template};
use super::params::BoundParameters;

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
    /// An evaluator for one stack operation. Evaluators made from the same `resolved` share its
    /// operation budget ([`super::limits::OPERATION_BYTES`]).
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

    fn scope<'s>(&'s self, block: Block, meter: &'s Meter) -> Scope<'s> {
        let mut scope = Scope::new(&self.template.inner, &self.resolved.resources, block, meter);
        scope.params = Some(self.params);
        scope.pseudo = Some(self.pseudo);
        scope.conditions = Some(&self.resolved.conditions);
        scope.values = Some(self.values);
        scope
    }

    fn run(scope: &Scope<'_>, value: &Value) -> Result<Option<Value>, TemplateError> {
        match scope.eval(value, 0) {
            Ok(v) => Ok(v),
            Err(Fail::Error(err)) => Err(err),
            // Every value is known at execution time; an unknown means a reference to a
            // resource the engine has not created.
            Err(Fail::Unknown) => Err(ErrorKind::NotAvailable.into()),
        }
    }

    /// Charges a kept value of `size` to the operation.
    fn keep(&self, size: Size) -> Result<(), TemplateError> {
        self.resolved.meter.charge(size)
    }

    /// Evaluates `value` as a resource property (an `AWS::NoValue` result is `null`).
    pub fn evaluate(&self, value: &Value) -> Result<Value, EvalError> {
        let meter = Meter::default();
        let value = Self::run(&self.scope(Block::Resources, &meter), value)?.unwrap_or(Value::Null);
        self.keep(measure(&value))?;
        Ok(value)
    }

    /// The resource's `Properties`, evaluated: a JSON object without intrinsics.
    pub fn resource_properties(&self, logical_id: &str) -> Result<Value, EvalError> {
        let decl = self.resolved.resources.get(logical_id).ok_or_else(|| {
            EvalError::from(ErrorKind::ResourceNotInStack(logical_id.to_string()))
        })?;
        let meter = Meter::default();
        let evaluated = Self::run(&self.scope(Block::Resources, &meter), &decl.properties)
            .and_then(|v| {
                let v = match v {
                    Some(v @ Value::Object(_)) => v,
                    _ => Value::Object(Map::new()),
                };
                self.keep(measure(&v))?;
                Ok(v)
            });
        evaluated.map_err(|e| e.under(&["Resources", logical_id, "Properties"]).into())
    }

    /// The output `key`, evaluated.
    pub fn output(&self, key: &str) -> Result<EvaluatedOutput, EvalError> {
        let decl = self
            .resolved
            .outputs
            .get(key)
            .ok_or_else(|| EvalError::from(ErrorKind::OutputNotInStack(key.to_string())))?;
        let at = |e: TemplateError, part: &[&str]| -> EvalError {
            e.under(part).under(&["Outputs", key]).into()
        };
        let meter = Meter::default();
        let mut scope = self.scope(Block::Outputs, &meter);
        scope.output_key = Some(key);
        let value = Self::run(&scope, &decl.value).map_err(|e| at(e, &["Value"]))?;
        scope.output_key = None;
        let text = |v: Option<&Value>, part: &[&str]| -> Result<Option<String>, EvalError> {
            match v {
                None => Ok(None),
                Some(v) => Ok(Self::run(&scope, v)
                    .map_err(|e| at(e, part))?
                    .map(output_text)),
            }
        };
        let out = EvaluatedOutput {
            key: key.to_string(),
            value: value.map(output_text).unwrap_or_default(),
            description: text(decl.description.as_ref(), &["Description"])?,
            export_name: text(decl.export_name.as_ref(), &["Export", "Name"])?,
        };
        let kept = out.value.len()
            + out.description.as_ref().map_or(0, String::len)
            + out.export_name.as_ref().map_or(0, String::len);
        self.keep(Size::string(kept)).map_err(|e| at(e, &[]))?;
        Ok(out)
    }
}

/// How DescribeStacks shows an output value: a list's items comma-joined, a map as JSON.
fn output_text(value: Value) -> String {
    match value {
        Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                v @ (Value::Array(_) | Value::Object(_) | Value::Null) => v.to_string(),
                v => into_text(v).unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join(","),
        v @ (Value::Object(_) | Value::Null) => v.to_string(),
        v => into_text(v).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::output_text;

    #[test]
    fn outputs_show_lists_comma_joined_and_maps_as_json() {
        assert_eq!(output_text(json!(["a", 1, true])), "a,1,true");
        assert_eq!(output_text(json!({"k": "v"})), r#"{"k":"v"}"#);
        assert_eq!(output_text(json!(5)), "5");
    }
}
