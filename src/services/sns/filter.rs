//! SNS subscription filter policies (SNS developer guide, "Amazon SNS message filtering"):
//! does a message pass a subscription's `FilterPolicy`? Pure.
//!
//! A policy is a JSON object; every key must match (AND) and a key matches when any of its
//! conditions does (OR). Conditions: a string or number (exact), `null`, `{"prefix"}`,
//! `{"suffix"}`, `{"equals-ignore-case"}`, `{"anything-but": v | [v] | {"prefix"}}`,
//! `{"numeric": [op, n, ...]}`, `{"exists": bool}`. With `FilterPolicyScope=MessageAttributes`
//! keys name message attributes (a `String.Array` attribute matches when any element does);
//! with `MessageBody` the policy nests like the JSON body it filters.

use serde_json::Value;

use super::model::PublishAttribute;

/// Where a policy looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The message attributes (the default).
    MessageAttributes,
    /// The message body, parsed as JSON.
    MessageBody,
}

/// True when the message passes `policy` (a parsed FilterPolicy). An unparsable body never
/// passes a body-scoped policy.
pub fn matches(
    policy: &Value,
    scope: Scope,
    attributes: &[(String, PublishAttribute)],
    body: &str,
) -> bool {
    match scope {
        Scope::MessageAttributes => {
            let Some(map) = policy.as_object() else {
                return false;
            };
            map.iter().all(|(key, conditions)| {
                let value = attributes
                    .iter()
                    .find(|(n, _)| n == key)
                    .map(|(_, a)| attribute_values(a));
                key_matches(conditions, value.as_deref())
            })
        }
        Scope::MessageBody => match serde_json::from_str::<Value>(body) {
            Ok(doc) => body_matches(policy, &doc),
            Err(_) => false,
        },
    }
}

fn attribute_values(a: &PublishAttribute) -> Vec<Value> {
    let text = a.string_value.clone().unwrap_or_default();
    if a.data_type.starts_with("String.Array") {
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(items)) => items,
            _ => vec![],
        }
    } else if a.data_type.starts_with("Number") {
        match text.trim().parse::<f64>() {
            Ok(n) => vec![serde_json::json!(n)],
            Err(_) => vec![],
        }
    } else if a.data_type.starts_with("Binary") {
        vec![]
    } else {
        vec![Value::String(text)]
    }
}

fn body_matches(policy: &Value, doc: &Value) -> bool {
    let Some(map) = policy.as_object() else {
        return false;
    };
    map.iter().all(|(key, sub)| {
        let field = doc.get(key);
        if sub.is_object() {
            match field {
                Some(inner) if inner.is_object() => body_matches(sub, inner),
                _ => false,
            }
        } else {
            let values = match field {
                None => None,
                Some(Value::Array(items)) => Some(items.clone()),
                Some(v) => Some(vec![v.clone()]),
            };
            key_matches(sub, values.as_deref())
        }
    })
}

/// `conditions` (an array, or one condition) against the key's values (`None`: key absent).
fn key_matches(conditions: &Value, values: Option<&[Value]>) -> bool {
    let list: Vec<&Value> = match conditions {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    list.iter().any(|c| condition_matches(c, values))
}

fn as_number(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn condition_matches(condition: &Value, values: Option<&[Value]>) -> bool {
    match condition {
        Value::Object(op) => {
            if let Some(exists) = op.get("exists").and_then(Value::as_bool) {
                return exists == values.is_some();
            }
            let Some(values) = values else {
                return false;
            };
            values.iter().any(|v| operator_matches(op, v))
        }
        Value::Null => values.is_some_and(|vs| vs.iter().any(Value::is_null)),
        exact => values.is_some_and(|vs| vs.iter().any(|v| equal(exact, v))),
    }
}

fn equal(want: &Value, got: &Value) -> bool {
    match (as_number(want), as_number(got)) {
        (Some(a), Some(b)) => a == b,
        _ => want == got,
    }
}

fn operator_matches(op: &serde_json::Map<String, Value>, v: &Value) -> bool {
    let text = v.as_str();
    if let Some(p) = op.get("prefix").and_then(Value::as_str) {
        return text.is_some_and(|t| t.starts_with(p));
    }
    if let Some(s) = op.get("suffix").and_then(Value::as_str) {
        return text.is_some_and(|t| t.ends_with(s));
    }
    if let Some(e) = op.get("equals-ignore-case").and_then(Value::as_str) {
        return text.is_some_and(|t| t.eq_ignore_ascii_case(e));
    }
    if let Some(but) = op.get("anything-but") {
        return match but {
            Value::Array(items) => !items.iter().any(|i| equal(i, v)),
            Value::Object(inner) => {
                if let Some(p) = inner.get("prefix").and_then(Value::as_str) {
                    text.is_some_and(|t| !t.starts_with(p))
                } else if let Some(s) = inner.get("suffix").and_then(Value::as_str) {
                    text.is_some_and(|t| !t.ends_with(s))
                } else {
                    false
                }
            }
            single => !equal(single, v),
        };
    }
    if let Some(Value::Array(terms)) = op.get("numeric") {
        let Some(n) = as_number(v) else {
            return false;
        };
        return terms.chunks(2).all(|pair| match pair {
            [Value::String(cmp), bound] => match as_number(bound) {
                Some(b) => match cmp.as_str() {
                    "=" => n == b,
                    "<" => n < b,
                    "<=" => n <= b,
                    ">" => n > b,
                    ">=" => n >= b,
                    _ => false,
                },
                None => false,
            },
            _ => false,
        });
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attr(data_type: &str, value: &str) -> PublishAttribute {
        PublishAttribute {
            data_type: data_type.to_string(),
            string_value: Some(value.to_string()),
            binary_value: None,
        }
    }

    #[test]
    fn attribute_policies() {
        let attrs = vec![
            ("store".to_string(), attr("String", "example_corp")),
            ("price".to_string(), attr("Number", "210.75")),
            (
                "colors".to_string(),
                attr("String.Array", r#"["red","blue"]"#),
            ),
        ];
        let check = |policy: Value| matches(&policy, Scope::MessageAttributes, &attrs, "");
        for (policy, want) in [
            (json!({"store": ["example_corp"]}), true),
            (json!({"store": ["other"]}), false),
            (json!({"store": [{"prefix": "example"}]}), true),
            (json!({"store": [{"suffix": "corp"}]}), true),
            (
                json!({"store": [{"equals-ignore-case": "EXAMPLE_CORP"}]}),
                true,
            ),
            (
                json!({"store": [{"anything-but": ["example_corp"]}]}),
                false,
            ),
            (json!({"store": [{"anything-but": {"prefix": "x"}}]}), true),
            (json!({"price": [{"numeric": [">", 200, "<=", 300]}]}), true),
            (json!({"price": [{"numeric": ["<", 100]}]}), false),
            (json!({"price": [210.75]}), true),
            (json!({"colors": ["blue"]}), true),
            (json!({"colors": ["green"]}), false),
            (json!({"missing": [{"exists": false}]}), true),
            (json!({"missing": [{"exists": true}]}), false),
            (json!({"missing": ["x"]}), false),
            (json!({"store": ["example_corp"], "price": [1]}), false),
        ] {
            assert_eq!(check(policy.clone()), want, "{policy}");
        }
    }

    #[test]
    fn body_policies() {
        let body = r#"{"order":{"type":"book","total":12},"tags":["a","b"]}"#;
        let check = |policy: Value| matches(&policy, Scope::MessageBody, &[], body);
        assert!(check(json!({"order": {"type": ["book"]}})));
        assert!(!check(json!({"order": {"type": ["dvd"]}})));
        assert!(check(
            json!({"order": {"total": [{"numeric": [">=", 10]}]}})
        ));
        assert!(check(json!({"tags": ["b"]})));
        assert!(!matches(
            &json!({"a": ["b"]}),
            Scope::MessageBody,
            &[],
            "not json"
        ));
    }
}
