//! What CloudFormation checks against a resource type's registry schema before it calls the
//! handler, in its words, for the providers of this directory: extraneous and missing keys,
//! types, and the constraint keywords whose messages it scrubs of values
//! (`#/RetentionInDays: failed validation constraint for keyword [enum]`; the
//! `cloudformation-resource-schema` validator keeps everit's text only for the "safe" keywords
//! `required`, `additionalProperties`, `minLength`, `maxLength`, `type`, ...). Also the
//! handler-contract messages shared by every provider ("already exists", "not found") and the
//! tag sets CloudFormation applies. Pure functions over resolved properties; no service calls.

use std::collections::BTreeMap;

use serde_json::Value;

use indexmap::IndexMap;

use super::{props, HandlerErrorCode, ProviderContext, ProviderError, Provisioned};

/// `Properties validation failed for resource <logical id> with message: <detail>`.
pub fn failed(cx: &ProviderContext<'_>, detail: &str) -> ProviderError {
    ProviderError::invalid(format!(
        "Properties validation failed for resource {} with message: {detail}",
        cx.logical_id
    ))
}

/// Refuses properties the schema does not have (`additionalProperties: false`).
pub fn known(
    cx: &ProviderContext<'_>,
    properties: &Value,
    known: &[&str],
) -> Result<(), ProviderError> {
    if let Some(map) = properties.as_object() {
        let extra: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if !extra.is_empty() {
            return Err(failed(
                cx,
                &format!("#: extraneous key [{}] is not permitted", extra.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Refuses a template without the schema's required properties (the first missing one).
pub fn required(
    cx: &ProviderContext<'_>,
    properties: &Value,
    keys: &[&str],
) -> Result<(), ProviderError> {
    for key in keys {
        if properties.get(*key).is_none_or(Value::is_null) {
            return Err(failed(cx, &format!("#: required key [{key}] not found")));
        }
    }
    Ok(())
}

/// `#/<pointer>: failed validation constraint for keyword [<keyword>]` (enum, pattern,
/// minimum, maximum: the scrubbed keywords).
pub fn keyword(cx: &ProviderContext<'_>, pointer: &str, keyword: &str) -> ProviderError {
    failed(
        cx,
        &format!("#/{pointer}: failed validation constraint for keyword [{keyword}]"),
    )
}

/// `#/<pointer>: expected maxLength: <max>, actual: <n>`.
pub fn max_length(
    cx: &ProviderContext<'_>,
    pointer: &str,
    max: usize,
    actual: usize,
) -> ProviderError {
    failed(
        cx,
        &format!("#/{pointer}: expected maxLength: {max}, actual: {actual}"),
    )
}

/// `#/<pointer>: expected minLength: <min>, actual: <n>`.
pub fn min_length(
    cx: &ProviderContext<'_>,
    pointer: &str,
    min: usize,
    actual: usize,
) -> ProviderError {
    failed(
        cx,
        &format!("#/{pointer}: expected minLength: {min}, actual: {actual}"),
    )
}

/// The JSON type name everit reports (`String`, `Integer`, `Boolean`, `JSONObject`,
/// `JSONArray`, `Number`, `null`).
fn found(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "Integer",
        Value::Number(_) => "Number",
        Value::String(_) => "String",
        Value::Array(_) => "JSONArray",
        Value::Object(_) => "JSONObject",
    }
}

/// `#/<pointer>: expected type: <expected>, found: <found>`.
pub fn wrong_type(
    cx: &ProviderContext<'_>,
    pointer: &str,
    expected: &str,
    value: &Value,
) -> ProviderError {
    failed(
        cx,
        &format!(
            "#/{pointer}: expected type: {expected}, found: {}",
            found(value)
        ),
    )
}

/// A string property; numbers and booleans become their text (CloudFormation passes scalars
/// as strings), objects and lists are a type error.
pub fn string(
    cx: &ProviderContext<'_>,
    properties: &Value,
    key: &str,
) -> Result<Option<String>, ProviderError> {
    match properties.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(other) => Err(wrong_type(cx, key, "String", other)),
    }
}

/// An integer property (a number or a numeric string).
pub fn int(
    cx: &ProviderContext<'_>,
    properties: &Value,
    key: &str,
) -> Result<Option<i64>, ProviderError> {
    props::int(properties, key).map_err(|_| {
        wrong_type(
            cx,
            key,
            "Integer",
            properties.get(key).unwrap_or(&Value::Null),
        )
    })
}

/// A boolean property (a boolean or `"true"`/`"false"`).
pub fn boolean(
    cx: &ProviderContext<'_>,
    properties: &Value,
    key: &str,
) -> Result<Option<bool>, ProviderError> {
    props::boolean(properties, key).map_err(|_| {
        wrong_type(
            cx,
            key,
            "Boolean",
            properties.get(key).unwrap_or(&Value::Null),
        )
    })
}

/// A list of strings (`Roles`, `Queues`, `Topics`, ...); absent is empty.
pub fn strings(
    cx: &ProviderContext<'_>,
    properties: &Value,
    key: &str,
) -> Result<Vec<String>, ProviderError> {
    match properties.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(wrong_type(cx, &format!("{key}/{i}"), "String", other)),
            })
            .collect(),
        Some(other) => Err(wrong_type(cx, key, "JSONArray", other)),
    }
}

/// A JSON document property given as an object (or, where the schema allows it, as JSON text),
/// as compact JSON text.
pub fn document(
    cx: &ProviderContext<'_>,
    properties: &Value,
    key: &str,
    text_allowed: bool,
) -> Result<Option<String>, ProviderError> {
    match properties.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(_)) => Ok(properties.get(key).map(Value::to_string)),
        Some(Value::String(s)) if text_allowed => Ok(Some(s.clone())),
        Some(other) => Err(wrong_type(cx, key, "JSONObject", other)),
    }
}

/// `Resource of type '<type>' with identifier '<id>' already exists.` (AlreadyExists): a
/// resource the stack would create is already there and is never adopted.
pub fn already_exists(cx: &ProviderContext<'_>, id: &str) -> ProviderError {
    ProviderError::new(
        HandlerErrorCode::AlreadyExists,
        format!(
            "Resource of type '{}' with identifier '{id}' already exists.",
            cx.type_name
        ),
    )
}

/// `Resource of type '<type>' with identifier '<id>' was not found.` (NotFound): the physical
/// resource an update acts on is gone.
pub fn not_found(cx: &ProviderContext<'_>, id: &str) -> ProviderError {
    ProviderError::new(
        HandlerErrorCode::NotFound,
        format!(
            "Resource of type '{}' with identifier '{id}' was not found.",
            cx.type_name
        ),
    )
}

/// A resource whose physical id, Ref and GetAtt `Id` are all `id` (policies, permissions,
/// wait condition handles: types whose primary identifier is a read-only `Id`).
pub fn identified(id: &str) -> Provisioned {
    let mut attributes = IndexMap::new();
    attributes.insert("Id".to_string(), Value::String(id.to_string()));
    Provisioned {
        physical_id: id.to_string(),
        ref_value: Value::String(id.to_string()),
        attributes,
    }
}

/// The stack's tags, then the template's `Tags` list (the template wins on a shared key).
pub fn tags(cx: &ProviderContext<'_>, properties: &Value) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = cx
        .stack_tags
        .iter()
        .map(|t| (t.key.clone(), t.value.clone()))
        .collect();
    out.extend(props::tags(properties));
    out
}

/// [`tags`] plus the `aws:cloudformation:*` system tags, for types whose schema has
/// `cloudFormationSystemTags` (aws-contract.md §5.2).
pub fn tags_with_system(cx: &ProviderContext<'_>, properties: &Value) -> BTreeMap<String, String> {
    let mut out = tags(cx, properties);
    for t in cx.system_and_stack_tags() {
        if t.key.starts_with("aws:cloudformation:") {
            out.insert(t.key, t.value);
        }
    }
    out
}

/// What to remove and what to set to go from the `current` tags to `wanted`.
pub fn tag_diff(
    current: &BTreeMap<String, String>,
    wanted: &BTreeMap<String, String>,
) -> (Vec<String>, BTreeMap<String, String>) {
    let gone = current
        .keys()
        .filter(|k| !wanted.contains_key(*k))
        .cloned()
        .collect();
    let set = wanted
        .iter()
        .filter(|(k, v)| current.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (gone, set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::cloudformation::model::Tag;
    use crate::ids::{IdGen, Scope};
    use serde_json::json;

    fn with_cx(f: impl FnOnce(&ProviderContext<'_>)) {
        let scope = Scope::default_scope();
        let ids = IdGen::seeded(1);
        let clock = Clock::new(crate::clock::ClockMode::Manual);
        let stack_tags = [Tag {
            key: "team".into(),
            value: "ops".into(),
        }];
        let cx = ProviderContext {
            scope: &scope,
            stack_name: "s",
            stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1",
            logical_id: "Res",
            type_name: "AWS::Logs::LogGroup",
            stack_tags: &stack_tags,
            ids: &ids,
            clock: &clock,
        };
        f(&cx);
    }

    #[test]
    fn messages_read_as_cloudformations() {
        with_cx(|cx| {
            let p = json!({"A": 1, "B": {"x": 1}, "C": ["a", 2, {}], "Z": true});
            assert_eq!(
                known(cx, &p, &["A", "B", "C"]).unwrap_err().message,
                "Properties validation failed for resource Res with message: #: extraneous key [Z] is not permitted"
            );
            assert_eq!(
                required(cx, &p, &["A", "Q"]).unwrap_err().message,
                "Properties validation failed for resource Res with message: #: required key [Q] not found"
            );
            assert_eq!(
                keyword(cx, "RetentionInDays", "enum").message,
                "Properties validation failed for resource Res with message: #/RetentionInDays: failed validation constraint for keyword [enum]"
            );
            assert_eq!(
                max_length(cx, "Name", 5, 9).message,
                "Properties validation failed for resource Res with message: #/Name: expected maxLength: 5, actual: 9"
            );
            assert_eq!(
                min_length(cx, "Name", 1, 0).message,
                "Properties validation failed for resource Res with message: #/Name: expected minLength: 1, actual: 0"
            );
            assert_eq!(
                string(cx, &p, "B").unwrap_err().message,
                "Properties validation failed for resource Res with message: #/B: expected type: String, found: JSONObject"
            );
            assert_eq!(string(cx, &p, "A").unwrap(), Some("1".into()));
            assert_eq!(
                strings(cx, &p, "C").unwrap_err().message,
                "Properties validation failed for resource Res with message: #/C/2: expected type: String, found: JSONObject"
            );
            assert_eq!(
                int(cx, &json!({"N": "x"}), "N").unwrap_err().message,
                "Properties validation failed for resource Res with message: #/N: expected type: Integer, found: String"
            );
            assert_eq!(
                boolean(cx, &json!({"N": 3}), "N").unwrap_err().message,
                "Properties validation failed for resource Res with message: #/N: expected type: Boolean, found: Integer"
            );
            assert_eq!(
                document(cx, &json!({"D": "{}"}), "D", false).unwrap_err().message,
                "Properties validation failed for resource Res with message: #/D: expected type: JSONObject, found: String"
            );
            assert_eq!(
                document(cx, &json!({"D": {"a": 1}}), "D", false).unwrap(),
                Some(r#"{"a":1}"#.into())
            );
            assert_eq!(
                already_exists(cx, "g").message,
                "Resource of type 'AWS::Logs::LogGroup' with identifier 'g' already exists."
            );
            assert_eq!(
                already_exists(cx, "g").code,
                HandlerErrorCode::AlreadyExists
            );
            assert_eq!(not_found(cx, "g").code, HandlerErrorCode::NotFound);
        });
    }

    #[test]
    fn tags_merge_stack_template_and_system_tags() {
        with_cx(|cx| {
            let p = json!({"Tags": [{"Key": "team", "Value": "dev"}, {"Key": "a", "Value": "b"}]});
            let plain = tags(cx, &p);
            assert_eq!(plain.get("team").map(String::as_str), Some("dev"));
            assert_eq!(plain.len(), 2);
            let all = tags_with_system(cx, &p);
            assert_eq!(all.len(), 5);
            assert_eq!(
                all.get("aws:cloudformation:logical-id").map(String::as_str),
                Some("Res")
            );
            let (gone, set) = tag_diff(&all, &plain);
            assert_eq!(gone.len(), 3);
            assert!(set.is_empty());
        });
    }
}
