//! Body → [`Inner`]: format detection (JSON when the body opens with `{`, YAML otherwise), the
//! document's shape, and the declared sections turned into typed declarations. It checks each
//! section on its own; the checks across sections (references, the graph, `Fn::ForEach`) run
//! after it (`Template::parse` calls `resolve::check_document` or `foreach::process_static`), and
//! those that need parameter values run in `resolve`. It imports neither of them.
//!
//! Decisions where AWS is silent are marked "chosen" in `error::msg` or here.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{msg, TemplateError};
use super::limits;
use super::model::{AssertionDecl, Inner, OutputDecl, ResourceDecl, RuleDecl, LANGUAGE_EXTENSIONS};
use super::params::{parse_parameter, ParameterDecl};
use super::yaml::{self, YamlError};

const SECTIONS: &[&str] = &[
    "AWSTemplateFormatVersion",
    "Description",
    "Metadata",
    "Parameters",
    "Rules",
    "Mappings",
    "Conditions",
    "Transform",
    "Resources",
    "Outputs",
    "Hooks",
];

const RESOURCE_KEYS: &[&str] = &[
    "Type",
    "Properties",
    "Metadata",
    "CreationPolicy",
    "UpdatePolicy",
    "Condition",
    "DependsOn",
    "DeletionPolicy",
    "UpdateReplacePolicy",
];

/// DeletionPolicy values (user guide "DeletionPolicy attribute").
pub(crate) const DELETION_POLICIES: &[&str] =
    &["Delete", "Retain", "RetainExceptOnCreate", "Snapshot"];
/// UpdateReplacePolicy values (user guide "UpdateReplacePolicy attribute").
pub(crate) const UPDATE_REPLACE_POLICIES: &[&str] = &["Delete", "Retain", "Snapshot"];

/// Reads the body into a document: JSON when it is a JSON object, YAML otherwise.
pub(crate) fn load(body: &str) -> Result<(Value, bool), TemplateError> {
    if body.trim_start().starts_with('{') {
        // A body that opens with `{` is JSON (as CloudFormation reads it: a broken one gets the
        // JSON message, never a YAML reading).
        return serde_json::from_str::<Value>(body)
            .map(|doc| (doc, true))
            .map_err(|err| {
                // AWS (contract §6.4): `JSON not well-formed. (line 1, column 25)`.
                TemplateError::format(format!(
                    "JSON not well-formed. (line {}, column {})",
                    err.line(),
                    err.column()
                ))
            });
    }
    match yaml::load(body) {
        Ok(doc) => Ok((doc, false)),
        // AWS (contract §6.4): `YAML not well-formed. (line L, column C)`.
        Err(YamlError::NotWellFormed { line, column }) => Err(TemplateError::format(format!(
            "YAML not well-formed. (line {line}, column {column})"
        ))),
        // Chosen (the user guide lists aliases as unsupported).
        Err(YamlError::Alias { line, column }) => Err(TemplateError::format(format!(
            "YAML aliases are not allowed in CloudFormation templates (line {line}, column {column})"
        ))),
    }
}

pub(crate) fn parse(body: &str) -> Result<Inner, TemplateError> {
    let (document, is_json) = load(body)?;
    let Value::Object(top) = &document else {
        // AWS (recorded, a macro returning a non-object: `Template format error: unsupported
        // structure.`).
        return Err(TemplateError::format("unsupported structure."));
    };
    // A transform Cumulo cannot run is named first: its template may use sections and types
    // only the transform knows (SAM's `Globals`, `AWS::Serverless::*`).
    let transforms = parse_transforms(top.get("Transform"))?;
    let language_extensions = transforms.iter().any(|t| t == LANGUAGE_EXTENSIONS);
    refuse_macros(&document)?;
    check_nulls(&document, &mut String::new())?;

    let unknown: Vec<&str> = top
        .keys()
        .map(String::as_str)
        .filter(|k| !SECTIONS.contains(k))
        .collect();
    if !unknown.is_empty() {
        // AWS (widely reported).
        return Err(TemplateError::format(format!(
            "Invalid template property or properties [{}]",
            unknown.join(", ")
        )));
    }

    if let Some(version) = top.get("AWSTemplateFormatVersion") {
        if version.as_str() != Some("2010-09-09") {
            // Eucalyptus's AWS-compatible text (AWS's own is unrecorded).
            return Err(TemplateError::format(
                "unsupported value for AWSTemplateFormatVersion.",
            ));
        }
    }

    let description = match top.get("Description") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        // Chosen.
        Some(_) => {
            return Err(TemplateError::format(
                "Every Description member must be a string.",
            ))
        }
    };
    let metadata = top.get("Metadata").cloned();

    let parameters = parse_parameters(top.get("Parameters"))?;
    let mappings = parse_mappings(top.get("Mappings"))?;
    let conditions = parse_conditions(top.get("Conditions"), language_extensions)?;
    let rules = parse_rules(top.get("Rules"))?;
    let resources = parse_resources(top.get("Resources"), language_extensions)?;
    let outputs = parse_outputs(top.get("Outputs"), language_extensions)?;

    Ok(Inner {
        body: body.to_string(),
        is_json,
        processed: document.clone(),
        document,
        description,
        metadata,
        transforms,
        parameters,
        mappings,
        conditions,
        rules,
        resources,
        outputs,
        language_extensions,
    })
}

/// AWS: `[/Outputs/MyOutput/Value] 'null' values are not allowed in templates` (contract §6.3).
fn check_nulls(value: &Value, path: &mut String) -> Result<(), TemplateError> {
    match value {
        Value::Null => Err(TemplateError::new(format!(
            "[{path}] 'null' values are not allowed in templates"
        ))),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                check_nulls(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (k, v) in map {
                let len = path.len();
                path.push('/');
                path.push_str(k);
                check_nulls(v, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `Transform`: a name, a list of names, or `{Name, Parameters}` objects. Only
/// `AWS::LanguageExtensions` is expanded; any other transform is refused here (decision,
/// spec README: "Transforms other than AWS::LanguageExtensions are refused with a clear error").
fn parse_transforms(value: Option<&Value>) -> Result<Vec<String>, TemplateError> {
    let items: Vec<&Value> = match value {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v) => vec![v],
    };
    let mut names = Vec::new();
    for item in items {
        let name = match item {
            Value::String(s) => s.clone(),
            Value::Object(m) => match m.get("Name") {
                Some(Value::String(s)) => s.clone(),
                _ => {
                    return Err(TemplateError::format(
                        "Every Transform member must contain a Name.",
                    ))
                }
            },
            _ => {
                return Err(TemplateError::format(
                    "Transform must be a string or a list of strings.",
                ))
            }
        };
        if name != LANGUAGE_EXTENSIONS {
            return Err(msg::unsupported_transform(&name));
        }
        names.push(name);
    }
    Ok(names)
}

/// `Fn::Transform` anywhere (a macro call) is refused like a top-level transform.
fn refuse_macros(value: &Value) -> Result<(), TemplateError> {
    match value {
        Value::Object(map) => {
            if let Some(args) = map.get("Fn::Transform") {
                let name = args
                    .get("Name")
                    .and_then(Value::as_str)
                    .unwrap_or("Fn::Transform");
                return Err(msg::unsupported_transform(name));
            }
            map.values().try_for_each(refuse_macros)
        }
        Value::Array(items) => items.iter().try_for_each(refuse_macros),
        _ => Ok(()),
    }
}

fn section<'a>(
    value: Option<&'a Value>,
    name: &str,
) -> Result<Option<&'a Map<String, Value>>, TemplateError> {
    match value {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        // Chosen, in the wording of `Any Resources member must be an object.`.
        Some(_) => Err(TemplateError::format(format!(
            "The {name} section must be an object."
        ))),
    }
}

/// Logical ids and parameter names: `^[a-zA-Z0-9]+$` (contract §6.1).
pub(crate) fn is_alphanumeric(name: &str) -> bool {
    !name.is_empty() && name.len() <= 255 && name.chars().all(|c| c.is_ascii_alphanumeric())
}

fn parse_parameters(
    value: Option<&Value>,
) -> Result<IndexMap<String, ParameterDecl>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Parameters")? else {
        return Ok(out);
    };
    if map.len() > limits::MAX_PARAMETERS {
        // Chosen.
        return Err(TemplateError::format(format!(
            "Parameter count {} is greater than the maximum of {}",
            map.len(),
            limits::MAX_PARAMETERS
        )));
    }
    for (key, decl) in map {
        if !is_alphanumeric(key) {
            // AWS (contract §6.1).
            return Err(TemplateError::format(format!(
                "Parameter name {key} is non alphanumeric."
            )));
        }
        out.insert(key.clone(), parse_parameter(key, decl)?);
    }
    Ok(out)
}

fn parse_mappings(value: Option<&Value>) -> Result<IndexMap<String, Value>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Mappings")? else {
        return Ok(out);
    };
    if map.len() > limits::MAX_MAPPINGS {
        return Err(TemplateError::format(format!(
            "Mapping count {} is greater than the maximum of {}",
            map.len(),
            limits::MAX_MAPPINGS
        )));
    }
    for (name, mapping) in map {
        // AWS (contract §6.2): `Every Mappings member A must be a map`.
        let Value::Object(keys) = mapping else {
            return Err(TemplateError::format(format!(
                "Every Mappings member {name} must be a map"
            )));
        };
        for (key, attributes) in keys {
            let Value::Object(attributes) = attributes else {
                return Err(TemplateError::format(format!(
                    "Every Mappings member {key} must be a map"
                )));
            };
            for value in attributes.values() {
                let ok = match value {
                    Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                    Value::Array(items) => items
                        .iter()
                        .all(|i| matches!(i, Value::String(_) | Value::Number(_) | Value::Bool(_))),
                    _ => false,
                };
                if !ok {
                    // AWS (contract §6.2).
                    return Err(TemplateError::format(
                        "Every Mappings attribute must be a String or a List.",
                    ));
                }
            }
        }
        out.insert(name.clone(), mapping.clone());
    }
    Ok(out)
}

fn parse_conditions(
    value: Option<&Value>,
    language_extensions: bool,
) -> Result<IndexMap<String, Value>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Conditions")? else {
        return Ok(out);
    };
    for (name, cond) in map {
        if language_extensions && name.starts_with("Fn::ForEach::") {
            out.insert(name.clone(), cond.clone());
            continue;
        }
        if !cond.is_object() {
            // Chosen, in the wording of `Any Resources member must be an object.`.
            return Err(TemplateError::format(format!(
                "Every Conditions member must be an object: {name}"
            )));
        }
        out.insert(name.clone(), cond.clone());
    }
    Ok(out)
}

fn parse_rules(value: Option<&Value>) -> Result<IndexMap<String, RuleDecl>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Rules")? else {
        return Ok(out);
    };
    for (name, rule) in map {
        // Chosen messages, in the Resources wording.
        let Value::Object(rule) = rule else {
            return Err(TemplateError::format(format!(
                "Every Rules member must be an object: {name}"
            )));
        };
        for key in rule.keys() {
            if key != "RuleCondition" && key != "Assertions" {
                return Err(TemplateError::format(format!(
                    "Invalid rule property '{key}' in rule {name}"
                )));
            }
        }
        let Some(Value::Array(items)) = rule.get("Assertions") else {
            return Err(TemplateError::format(format!(
                "Every Rules member must contain an Assertions list: {name}"
            )));
        };
        let mut assertions = Vec::new();
        for item in items {
            let Some(assert) = item.get("Assert") else {
                return Err(TemplateError::format(format!(
                    "Every Assertions member must contain an Assert object: {name}"
                )));
            };
            let assert_description = match item.get("AssertDescription") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    return Err(TemplateError::format(format!(
                        "Every AssertDescription must be a string: {name}"
                    )))
                }
            };
            assertions.push(AssertionDecl {
                assert: assert.clone(),
                assert_description,
            });
        }
        out.insert(
            name.clone(),
            RuleDecl {
                rule_condition: rule.get("RuleCondition").cloned(),
                assertions,
            },
        );
    }
    Ok(out)
}

fn parse_resources(
    value: Option<&Value>,
    language_extensions: bool,
) -> Result<IndexMap<String, ResourceDecl>, TemplateError> {
    let Some(map) = section(value, "Resources")? else {
        // AWS (contract §6.4).
        return Err(TemplateError::format(
            "At least one Resources member must be defined.",
        ));
    };
    if map.is_empty() {
        return Err(TemplateError::format(
            "At least one Resources member must be defined.",
        ));
    }
    let mut out = IndexMap::new();
    for (id, decl) in map {
        if language_extensions && id.starts_with("Fn::ForEach::") {
            continue;
        }
        out.insert(id.clone(), parse_resource(id, decl, language_extensions)?);
    }
    if out.len() > limits::MAX_RESOURCES {
        // Chosen.
        return Err(TemplateError::format(format!(
            "Resource count {} is greater than the maximum of {}",
            out.len(),
            limits::MAX_RESOURCES
        )));
    }
    Ok(out)
}

/// One `Resources` member; also used for members `Fn::ForEach` produces.
pub(crate) fn parse_resource(
    id: &str,
    decl: &Value,
    language_extensions: bool,
) -> Result<ResourceDecl, TemplateError> {
    if !is_alphanumeric(id) {
        // AWS (contract §6.1).
        return Err(TemplateError::format(format!(
            "Resource name {id} is non alphanumeric."
        )));
    }
    let Value::Object(decl) = decl else {
        // AWS (recorded).
        return Err(TemplateError::format(
            "Any Resources member must be an object.",
        ));
    };
    let Some(Value::String(type_name)) = decl.get("Type") else {
        // AWS (contract §6.4).
        return Err(TemplateError::format(format!(
            "[/Resources/{id}] Every Resources object must contain a Type member."
        )));
    };
    for key in decl.keys() {
        if !RESOURCE_KEYS.contains(&key.as_str()) {
            // AWS (contract §6.3).
            return Err(TemplateError::new(format!(
                "Invalid template resource property '{key}'"
            )));
        }
    }
    let properties = match decl.get("Properties") {
        None => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        // Chosen.
        Some(_) => {
            return Err(TemplateError::format(format!(
                "[/Resources/{id}/Properties] Every Properties member must be an object."
            )))
        }
    };
    let depends_on = match decl.get("DependsOn") {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        // AWS (reported).
        Some(_) => {
            return Err(TemplateError::format(
                "DependsOn must be a string or list of strings.",
            ))
        }
    };
    let condition = condition_name(decl.get("Condition"))?;
    let deletion_policy = policy(
        decl.get("DeletionPolicy"),
        "DeletionPolicy",
        DELETION_POLICIES,
        id,
        language_extensions,
    )?;
    let update_replace_policy = policy(
        decl.get("UpdateReplacePolicy"),
        "UpdateReplacePolicy",
        UPDATE_REPLACE_POLICIES,
        id,
        language_extensions,
    )?;
    Ok(ResourceDecl {
        logical_id: id.to_string(),
        type_name: type_name.clone(),
        properties,
        depends_on,
        condition,
        deletion_policy,
        update_replace_policy,
        metadata: decl.get("Metadata").cloned(),
        creation_policy: decl.get("CreationPolicy").cloned(),
        update_policy: decl.get("UpdatePolicy").cloned(),
    })
}

/// The `Condition` attribute of a resource or output.
fn condition_name(value: Option<&Value>) -> Result<Option<String>, TemplateError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        // AWS (reported).
        Some(_) => Err(TemplateError::format(
            "Every Condition member must be a string.",
        )),
    }
}

/// A DeletionPolicy or UpdateReplacePolicy. Under `AWS::LanguageExtensions` it may be an
/// intrinsic (kept as its JSON text and evaluated by `resolve`).
fn policy(
    value: Option<&Value>,
    attribute: &str,
    allowed: &[&str],
    id: &str,
    language_extensions: bool,
) -> Result<Option<String>, TemplateError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => check_policy(s, attribute, allowed, id).map(|()| Some(s.clone())),
        Some(v @ Value::Object(_)) if language_extensions => Ok(Some(v.to_string())),
        Some(_) => Err(policy_error(attribute, id)),
    }
}

/// Checks a policy value against its attribute's allowed values.
pub(crate) fn check_policy(
    value: &str,
    attribute: &str,
    allowed: &[&str],
    id: &str,
) -> Result<(), TemplateError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(policy_error(attribute, id))
    }
}

/// Chosen (AWS's text is unrecorded).
fn policy_error(attribute: &str, id: &str) -> TemplateError {
    TemplateError::format(format!(
        "[/Resources/{id}/{attribute}] {attribute} must be one of the supported values"
    ))
}

fn parse_outputs(
    value: Option<&Value>,
    language_extensions: bool,
) -> Result<IndexMap<String, OutputDecl>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Outputs")? else {
        return Ok(out);
    };
    for (key, decl) in map {
        if language_extensions && key.starts_with("Fn::ForEach::") {
            continue;
        }
        out.insert(key.clone(), parse_output(key, decl)?);
    }
    if out.len() > limits::MAX_OUTPUTS {
        // Chosen.
        return Err(TemplateError::format(format!(
            "Output count {} is greater than the maximum of {}",
            out.len(),
            limits::MAX_OUTPUTS
        )));
    }
    Ok(out)
}

/// One `Outputs` member; also used for members `Fn::ForEach` produces.
pub(crate) fn parse_output(key: &str, decl: &Value) -> Result<OutputDecl, TemplateError> {
    if !is_alphanumeric(key) {
        // Chosen, in the wording of the resource-name message.
        return Err(TemplateError::format(format!(
            "Output name {key} is non alphanumeric."
        )));
    }
    let Value::Object(decl) = decl else {
        return Err(TemplateError::format(
            "Every Outputs member must contain a Value object",
        ));
    };
    for k in decl.keys() {
        if !matches!(k.as_str(), "Value" | "Description" | "Export" | "Condition") {
            // Chosen, in the wording of the resource-property message.
            return Err(TemplateError::format(format!(
                "Invalid template output property '{k}'"
            )));
        }
    }
    let Some(value) = decl.get("Value") else {
        // AWS (contract §6.3).
        return Err(TemplateError::format(
            "Every Outputs member must contain a Value object",
        ));
    };
    let export_name = match decl.get("Export") {
        None => None,
        Some(Value::Object(export)) => match export.get("Name") {
            Some(name) => Some(name.clone()),
            // Chosen.
            None => {
                return Err(TemplateError::format(format!(
                    "[/Outputs/{key}/Export] Every Export member must contain a Name"
                )))
            }
        },
        Some(_) => {
            return Err(TemplateError::format(format!(
                "[/Outputs/{key}/Export] Every Export member must contain a Name"
            )))
        }
    };
    let condition = condition_name(decl.get("Condition"))?;
    Ok(OutputDecl {
        value: value.clone(),
        description: decl.get("Description").cloned(),
        export_name,
        condition,
    })
}
