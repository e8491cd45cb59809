//! Conditions and rules: `Fn::Equals`, `Fn::And`, `Fn::Or`, `Fn::Not` and `{"Condition": name}`
//! evaluated to booleans, and in Rules also `Fn::Contains`, `Fn::EachMemberEquals` and
//! `Fn::EachMemberIn` (user guide "Condition functions", "Rule functions"). The values they
//! compare come from the interpreter (`eval.rs`) and are charged to the same meter; comparing
//! moves them and copies nothing.

use serde_json::Value;

use super::error::{Block, ErrorKind, Function};
use super::eval::{
    into_text, is_function_key, shape, ConditionLookup, Fail, Scope, R, RULE_FUNCTIONS,
};

impl Scope<'_> {
    /// Evaluates a condition function (`Fn::Equals`, `Fn::And`, `Fn::Or`, `Fn::Not`,
    /// `{"Condition": name}`) to a boolean; in Rules also the rule functions.
    pub fn eval_bool(&self, value: &Value, conds: &dyn ConditionLookup, depth: usize) -> R<bool> {
        self.burn(depth)?;
        let not_boolean = || Fail::from(ErrorKind::ConditionsBoolean);
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
        let result = match name.as_str() {
            "Condition" => match args {
                Value::String(c) => conds.condition(c, "Condition"),
                _ => Err(not_boolean()),
            },
            "Fn::Equals" => self.equals(args, depth),
            "Fn::And" | "Fn::Or" => self.and_or(name == "Fn::And", args, conds, depth),
            "Fn::Not" => match args {
                Value::Array(items) if items.len() == 1 => self
                    .eval_bool(&items[0], conds, depth + 1)
                    .map(|v| !v)
                    .map_err(|f| f.under("0")),
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
        };
        result.map_err(|f| f.under(name))
    }

    fn equals(&self, args: &Value, depth: usize) -> R<bool> {
        let Value::Array(items) = args else {
            return Err(shape(Function::Equals));
        };
        let [a, b] = items.as_slice() else {
            return Err(shape(Function::Equals));
        };
        let a = self.eval(a, depth + 1).map_err(|f| f.under("0"))?;
        let b = self.eval(b, depth + 1).map_err(|f| f.under("1"))?;
        Ok(a.map(normalize) == b.map(normalize))
    }

    fn and_or(
        &self,
        and: bool,
        args: &Value,
        conds: &dyn ConditionLookup,
        depth: usize,
    ) -> R<bool> {
        let items = match args {
            Value::Array(items) if (2..=10).contains(&items.len()) => items,
            _ => return Err(shape(if and { Function::And } else { Function::Or })),
        };
        let mut result = and;
        for (i, item) in items.iter().enumerate() {
            let v = self
                .eval_bool(item, conds, depth + 1)
                .map_err(|f| f.under(&i.to_string()))?;
            if and {
                result &= v;
            } else {
                result |= v;
            }
        }
        Ok(result)
    }

    /// The rule-specific functions (user guide "Rule functions").
    fn rule_function(&self, name: &str, args: &Value, depth: usize) -> R<bool> {
        let function = match name {
            "Fn::Contains" => Function::Contains,
            "Fn::EachMemberEquals" => Function::EachMemberEquals,
            _ => Function::EachMemberIn,
        };
        let Value::Array(items) = args else {
            return Err(shape(function));
        };
        let [a, b] = items.as_slice() else {
            return Err(shape(function));
        };
        let list = |v: &Value| -> R<Vec<Value>> {
            match self.rule_value(v, depth + 1)? {
                Value::Array(items) => Ok(items.into_iter().map(normalize).collect()),
                other => Ok(vec![normalize(other)]),
            }
        };
        match function {
            Function::Contains => {
                let haystack = list(a)?;
                let needle = normalize(self.rule_value(b, depth + 1)?);
                Ok(haystack.contains(&needle))
            }
            Function::EachMemberEquals => {
                let members = list(a)?;
                let value = normalize(self.rule_value(b, depth + 1)?);
                Ok(members.iter().all(|m| *m == value))
            }
            _ => {
                let members = list(a)?;
                let allowed = list(b)?;
                Ok(members.iter().all(|m| allowed.contains(m)))
            }
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

/// Scalars compare as text in conditions (`!Equals [1, "1"]` holds); lists item by item.
fn normalize(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(normalize).collect()),
        v @ (Value::Number(_) | Value::Bool(_)) => into_text(v).map_or(Value::Null, Value::String),
        v => v,
    }
}
