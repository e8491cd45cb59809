//! Body → [`Inner`]: format detection (JSON when the body opens with `{`, YAML otherwise), the
//! document's shape, and the declared sections turned into typed declarations. It checks each
//! section on its own; the checks across sections (references, the graph, `Fn::ForEach`) run
//! after it (`Template::parse` calls `resolve::check_document` or `foreach::process_static`), and
//! those that need parameter values run in `resolve`. It imports neither of them.
//!
//! Decisions where AWS is silent are marked "chosen" in `error::msg` or here.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{ErrorKind, Named, Quota, TemplateError};
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
                ErrorKind::JsonNotWellFormed {
                    line: err.line(),
                    column: err.column(),
                }
                .into()
            });
    }
    match yaml::load(body) {
        Ok(doc) => Ok((doc, false)),
        Err(YamlError::NotWellFormed { line, column }) => {
            Err(ErrorKind::YamlNotWellFormed { line, column }.into())
        }
        Err(YamlError::Alias { line, column }) => Err(ErrorKind::YamlAlias { line, column }.into()),
    }
}

/// The checks of a loaded document that evaluate nothing, in the order AWS reports them: the
/// document is a map, its transforms (a transform Cumulo cannot run is named first: its
/// template may use sections and types only the transform knows, SAM's `Globals` and
/// `AWS::Serverless::*`), macros, nulls, section names, the format version and the
/// description. Returns the top-level map and the transforms.
pub(crate) fn outline(
    document: &Value,
) -> Result<(&Map<String, Value>, Vec<String>), TemplateError> {
    let Value::Object(top) = document else {
        return Err(ErrorKind::UnsupportedStructure.into());
    };
    let transforms = parse_transforms(top.get("Transform"))?;
    refuse_macros(document)?;
    check_nulls(document, &mut Vec::new())?;

    let unknown: Vec<String> = top
        .keys()
        .filter(|k| !SECTIONS.contains(&k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(ErrorKind::InvalidSections(unknown).into());
    }
    if let Some(version) = top.get("AWSTemplateFormatVersion") {
        if version.as_str() != Some("2010-09-09") {
            return Err(ErrorKind::UnsupportedFormatVersion.into());
        }
    }
    match top.get("Description") {
        None => {}
        Some(Value::String(s)) if s.len() > limits::MAX_DESCRIPTION_BYTES => {
            return Err(ErrorKind::DescriptionTooLong {
                max: limits::MAX_DESCRIPTION_BYTES,
            }
            .into())
        }
        Some(Value::String(_)) => {}
        Some(_) => return Err(ErrorKind::DescriptionNotString.into()),
    }
    Ok((top, transforms))
}

pub(crate) fn parse(body: &str) -> Result<Inner, TemplateError> {
    let (document, is_json) = load(body)?;
    let (top, transforms) = outline(&document)?;
    let language_extensions = transforms.iter().any(|t| t == LANGUAGE_EXTENSIONS);
    let description = top
        .get("Description")
        .and_then(Value::as_str)
        .map(str::to_string);
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
fn check_nulls(value: &Value, path: &mut Vec<String>) -> Result<(), TemplateError> {
    match value {
        Value::Null => Err(TemplateError::new(ErrorKind::NullValue).under(path)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                check_nulls(item, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(k.clone());
                check_nulls(v, path)?;
                path.pop();
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
                _ => return Err(ErrorKind::TransformWithoutName.into()),
            },
            _ => return Err(ErrorKind::TransformShape.into()),
        };
        if name != LANGUAGE_EXTENSIONS {
            return Err(ErrorKind::UnsupportedTransform(name).into());
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
                return Err(ErrorKind::UnsupportedTransform(name.to_string()).into());
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
        Some(_) => Err(ErrorKind::SectionNotObject(name.to_string()).into()),
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
        return Err(quota(Quota::Parameters, map.len(), limits::MAX_PARAMETERS));
    }
    for (key, decl) in map {
        if !is_alphanumeric(key) {
            return Err(non_alphanumeric(Named::Parameter, key));
        }
        let decl =
            parse_parameter(key, decl).map_err(|e| e.under(&["Parameters", key.as_str()]))?;
        out.insert(key.clone(), decl);
    }
    Ok(out)
}

fn parse_mappings(value: Option<&Value>) -> Result<IndexMap<String, Value>, TemplateError> {
    let mut out = IndexMap::new();
    let Some(map) = section(value, "Mappings")? else {
        return Ok(out);
    };
    if map.len() > limits::MAX_MAPPINGS {
        return Err(quota(Quota::Mappings, map.len(), limits::MAX_MAPPINGS));
    }
    for (name, mapping) in map {
        let at = |e: TemplateError| e.under(&["Mappings", name.as_str()]);
        let Value::Object(keys) = mapping else {
            return Err(at(ErrorKind::MappingNotMap(name.clone()).into()));
        };
        for (key, attributes) in keys {
            let Value::Object(attributes) = attributes else {
                return Err(at(ErrorKind::MappingNotMap(key.clone()).into()));
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
                    return Err(at(ErrorKind::MappingAttributeShape.into()));
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
            return Err(
                TemplateError::new(ErrorKind::ConditionNotObject(name.clone()))
                    .under(&["Conditions", name.as_str()]),
            );
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
        let rule = parse_rule(name, rule).map_err(|e| e.under(&["Rules", name.as_str()]))?;
        out.insert(name.clone(), rule);
    }
    Ok(out)
}

fn parse_rule(name: &str, rule: &Value) -> Result<RuleDecl, TemplateError> {
    let Value::Object(rule) = rule else {
        return Err(ErrorKind::RuleNotObject(name.to_string()).into());
    };
    for key in rule.keys() {
        if key != "RuleCondition" && key != "Assertions" {
            return Err(ErrorKind::InvalidRuleProperty {
                key: key.clone(),
                rule: name.to_string(),
            }
            .into());
        }
    }
    let Some(Value::Array(items)) = rule.get("Assertions") else {
        return Err(ErrorKind::RuleWithoutAssertions(name.to_string()).into());
    };
    let mut assertions = Vec::new();
    for item in items {
        let Some(assert) = item.get("Assert") else {
            return Err(ErrorKind::AssertionWithoutAssert(name.to_string()).into());
        };
        let assert_description = match item.get("AssertDescription") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(ErrorKind::AssertDescriptionNotString(name.to_string()).into()),
        };
        assertions.push(AssertionDecl {
            assert: assert.clone(),
            assert_description,
        });
    }
    Ok(RuleDecl {
        rule_condition: rule.get("RuleCondition").cloned(),
        assertions,
    })
}

fn parse_resources(
    value: Option<&Value>,
    language_extensions: bool,
) -> Result<IndexMap<String, ResourceDecl>, TemplateError> {
    let map = match section(value, "Resources")? {
        Some(map) if !map.is_empty() => map,
        _ => return Err(ErrorKind::NoResources.into()),
    };
    let mut out = IndexMap::new();
    for (id, decl) in map {
        if language_extensions && id.starts_with("Fn::ForEach::") {
            continue;
        }
        out.insert(id.clone(), parse_resource(id, decl, language_extensions)?);
    }
    check_resource_count(out.len())?;
    Ok(out)
}

/// The resources quota (500), on the declared resources and again after `Fn::ForEach`.
pub(crate) fn check_resource_count(count: usize) -> Result<(), TemplateError> {
    if count > limits::MAX_RESOURCES {
        return Err(quota(Quota::Resources, count, limits::MAX_RESOURCES));
    }
    Ok(())
}

fn quota(quota: Quota, count: usize, max: usize) -> TemplateError {
    ErrorKind::Quota { quota, count, max }.into()
}

fn non_alphanumeric(what: Named, name: &str) -> TemplateError {
    ErrorKind::NonAlphanumeric {
        what,
        name: name.to_string(),
    }
    .into()
}

/// One `Resources` member; also used for members `Fn::ForEach` produces. Errors are under
/// `Resources/<id>`.
pub(crate) fn parse_resource(
    id: &str,
    decl: &Value,
    language_extensions: bool,
) -> Result<ResourceDecl, TemplateError> {
    resource_decl(id, decl, language_extensions).map_err(|e| e.under(&["Resources", id]))
}

fn resource_decl(
    id: &str,
    decl: &Value,
    language_extensions: bool,
) -> Result<ResourceDecl, TemplateError> {
    if !is_alphanumeric(id) {
        return Err(non_alphanumeric(Named::Resource, id));
    }
    let Value::Object(decl) = decl else {
        return Err(ErrorKind::ResourceNotObject.into());
    };
    let Some(Value::String(type_name)) = decl.get("Type") else {
        return Err(ErrorKind::ResourceWithoutType.into());
    };
    for key in decl.keys() {
        if !RESOURCE_KEYS.contains(&key.as_str()) {
            return Err(ErrorKind::InvalidResourceProperty(key.clone()).into());
        }
    }
    let properties = match decl.get("Properties") {
        None => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(TemplateError::new(ErrorKind::PropertiesNotObject).under_key("Properties"))
        }
    };
    let depends_on = match decl.get("DependsOn") {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        Some(_) => return Err(ErrorKind::DependsOnShape.into()),
    };
    let condition = condition_name(decl.get("Condition"))?;
    let deletion_policy = policy(
        decl.get("DeletionPolicy"),
        "DeletionPolicy",
        DELETION_POLICIES,
        language_extensions,
    )?;
    let update_replace_policy = policy(
        decl.get("UpdateReplacePolicy"),
        "UpdateReplacePolicy",
        UPDATE_REPLACE_POLICIES,
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
        Some(_) => Err(TemplateError::new(ErrorKind::ConditionNotString).under_key("Condition")),
    }
}

/// A DeletionPolicy or UpdateReplacePolicy. Under `AWS::LanguageExtensions` it may be an
/// intrinsic (kept as its JSON text and evaluated by `resolve`).
fn policy(
    value: Option<&Value>,
    attribute: &str,
    allowed: &[&str],
    language_extensions: bool,
) -> Result<Option<String>, TemplateError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => check_policy(s, attribute, allowed).map(|()| Some(s.clone())),
        Some(v @ Value::Object(_)) if language_extensions => Ok(Some(v.to_string())),
        Some(_) => Err(policy_error(attribute)),
    }
}

/// Checks a policy value against its attribute's allowed values; the error is under
/// `<attribute>` (the caller adds `Resources/<id>`).
pub(crate) fn check_policy(
    value: &str,
    attribute: &str,
    allowed: &[&str],
) -> Result<(), TemplateError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(policy_error(attribute))
    }
}

/// The policy error, under `<attribute>`.
pub(crate) fn policy_error(attribute: &str) -> TemplateError {
    TemplateError::new(ErrorKind::UnsupportedPolicy(attribute.to_string())).under_key(attribute)
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
    check_output_count(out.len())?;
    Ok(out)
}

/// The outputs quota (200), on the declared outputs and again after `Fn::ForEach`.
pub(crate) fn check_output_count(count: usize) -> Result<(), TemplateError> {
    if count > limits::MAX_OUTPUTS {
        return Err(quota(Quota::Outputs, count, limits::MAX_OUTPUTS));
    }
    Ok(())
}

/// One `Outputs` member; also used for members `Fn::ForEach` produces. Errors are under
/// `Outputs/<key>`.
pub(crate) fn parse_output(key: &str, decl: &Value) -> Result<OutputDecl, TemplateError> {
    output_decl(key, decl).map_err(|e| e.under(&["Outputs", key]))
}

fn output_decl(key: &str, decl: &Value) -> Result<OutputDecl, TemplateError> {
    if !is_alphanumeric(key) {
        return Err(non_alphanumeric(Named::Output, key));
    }
    let Value::Object(decl) = decl else {
        return Err(ErrorKind::OutputWithoutValue.into());
    };
    for k in decl.keys() {
        if !matches!(k.as_str(), "Value" | "Description" | "Export" | "Condition") {
            return Err(ErrorKind::InvalidOutputProperty(k.clone()).into());
        }
    }
    let Some(value) = decl.get("Value") else {
        return Err(ErrorKind::OutputWithoutValue.into());
    };
    let export_name = match decl.get("Export") {
        None => None,
        Some(Value::Object(export)) if export.contains_key("Name") => export.get("Name").cloned(),
        Some(_) => return Err(TemplateError::new(ErrorKind::ExportWithoutName).under_key("Export")),
    };
    let condition = condition_name(decl.get("Condition"))?;
    Ok(OutputDecl {
        value: value.clone(),
        description: decl.get("Description").cloned(),
        export_name,
        condition,
    })
}
