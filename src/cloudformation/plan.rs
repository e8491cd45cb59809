//! Change-set planning, pure and synchronous: what executing a template does to a stack, as
//! DescribeChangeSet shows it (aws-contract.md §3.4). A CREATE is one `Add` per resource. An
//! UPDATE diffs the stack's resolved resources against the new template: `Add`, `Modify`
//! (Replacement `True` when a createOnly property of the registry changes, `Conditional` when
//! such a property is only known after apply, else `False`; details per changed property with
//! their ChangeSource and Evaluation) and `Remove` (PolicyAction `Delete` or `Retain`).
//! No store, no providers' side effects: the provider is only asked how it would update.

use std::collections::{BTreeSet, HashSet};

use indexmap::IndexMap;
use serde_json::Value;

use super::id::LogicalId;
use super::model::{ChangeAction, ChangeDetail, ResourceChange};
use super::providers::UpdateKind;
use super::registry;
use super::store::ResourceRecord;
use super::template::{Resolved, ResourceDecl, ResourceValues};

mod values;

pub use super::model::Plan;
pub use values::{PlanValues, KNOWN_AFTER_APPLY};

/// The top-level property names a type's registry schema lists as createOnly.
pub fn create_only_properties(type_name: &str) -> Vec<&'static str> {
    registry::resource_type(type_name)
        .map(|info| {
            info.create_only
                .iter()
                .map(|p| {
                    let p = p.strip_prefix("/properties/").unwrap_or(p);
                    p.split('/').next().unwrap_or(p)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// True when a createOnly property differs between `old` and `new` resolved properties.
pub fn create_only_changed(type_name: &str, old: &Value, new: &Value) -> bool {
    create_only_properties(type_name)
        .into_iter()
        .any(|p| old.get(p) != new.get(p))
}

/// A CREATE change set: one Add per resource, in creation order.
pub fn plan_create(resolved: &Resolved) -> Plan {
    let changes = resolved
        .order
        .iter()
        .filter_map(|id| resolved.resources.get(id))
        .map(|decl| ResourceChange {
            action: ChangeAction::Add,
            logical_id: LogicalId::from(&decl.logical_id),
            physical_id: None,
            resource_type: decl.type_name.clone(),
            replacement: None,
            policy_action: None,
            scope: Vec::new(),
            details: Vec::new(),
            before_context: None,
            after_context: None,
        })
        .collect();
    Plan {
        changes,
        modified: BTreeSet::new(),
        other_changes: true,
    }
}

/// What an UPDATE plan is computed from.
pub(crate) struct UpdateInputs<'a> {
    /// The stack's resources now.
    pub current: &'a IndexMap<LogicalId, ResourceRecord>,
    /// The current template's resource declarations (raw, for telling a changed expression
    /// from a changed input), when known.
    pub old_declarations: Option<&'a IndexMap<String, ResourceDecl>>,
    /// The new template, resolved.
    pub resolved: &'a Resolved,
    /// Parameters whose value changes.
    pub changed_parameters: &'a HashSet<String>,
    /// How a resource type would carry out a change of properties (the provider's
    /// `update_kind`): type name, old and new properties, whether a createOnly property changed.
    pub update_kind: &'a dyn Fn(&str, &Value, &Value, bool) -> UpdateKind,
}

/// An UPDATE change set: diffs `inputs.current` against the new template. `evaluate` gives a
/// resource's new resolved properties against the values it is handed.
pub(crate) fn plan_update(
    inputs: &UpdateInputs<'_>,
    mut values: PlanValues<'_>,
    evaluate: &dyn Fn(&str, &dyn ResourceValues) -> Result<Value, String>,
) -> Plan {
    let mut plan = Plan::default();
    for logical_id in &inputs.resolved.order {
        let Some(decl) = inputs.resolved.resources.get(logical_id) else {
            continue;
        };
        let old = inputs.current.get(logical_id.as_str()).filter(|r| r.exists);
        let Some(old) = old else {
            values.unknown_ref.insert(logical_id.clone());
            values.unknown_attributes.insert(logical_id.clone());
            plan.changes.push(ResourceChange {
                action: ChangeAction::Add,
                logical_id: LogicalId::from(logical_id),
                physical_id: None,
                resource_type: decl.type_name.clone(),
                replacement: None,
                policy_action: None,
                scope: Vec::new(),
                details: Vec::new(),
                before_context: None,
                after_context: evaluate(logical_id, &values)
                    .ok()
                    .map(|p| serde_json::json!({ "Properties": p }).to_string()),
            });
            continue;
        };
        let new_props = evaluate(logical_id, &values);
        let change = modify(inputs, &values, old, decl, new_props.as_ref().ok());
        let Some((change, kind)) = change else {
            continue;
        };
        match kind {
            Some(UpdateKind::Replace) => {
                values.unknown_ref.insert(logical_id.clone());
                values.unknown_attributes.insert(logical_id.clone());
            }
            Some(UpdateKind::Move) => {
                values.unknown_attributes.insert(logical_id.clone());
            }
            _ => {}
        }
        plan.modified.insert(LogicalId::from(logical_id));
        plan.changes.push(change);
    }
    for (logical_id, old) in inputs.current.iter().rev() {
        if inputs.resolved.resources.contains_key(logical_id.as_str()) || !old.exists {
            continue;
        }
        plan.changes.push(ResourceChange {
            action: ChangeAction::Remove,
            logical_id: logical_id.clone(),
            physical_id: old.physical_id.clone(),
            resource_type: old.type_name.clone(),
            replacement: None,
            policy_action: Some(
                if old.retained_on_delete() {
                    "Retain"
                } else {
                    "Delete"
                }
                .to_string(),
            ),
            scope: Vec::new(),
            details: Vec::new(),
            before_context: Some(serde_json::json!({ "Properties": old.properties }).to_string()),
            after_context: None,
        });
    }
    plan
}

/// The Modify change of one resource, with how the provider would carry it out; `None` when
/// nothing changes. `new_props` is `None` when the new properties cannot be evaluated yet.
fn modify(
    inputs: &UpdateInputs<'_>,
    values: &PlanValues<'_>,
    old: &ResourceRecord,
    decl: &ResourceDecl,
    new_props: Option<&Value>,
) -> Option<(ResourceChange, Option<UpdateKind>)> {
    let empty = Value::Object(Default::default());
    let create_only = create_only_properties(&old.type_name);
    let mut scope = Vec::new();
    let mut details = Vec::new();
    let mut kind = None;
    let mut replacement = "False";
    let changed_keys: Vec<String> = match new_props {
        Some(new) => property_names(&old.properties, new)
            .into_iter()
            .filter(|k| old.properties.get(k) != new.get(k))
            .collect(),
        None => Vec::new(),
    };
    if !changed_keys.is_empty() || new_props.is_none() {
        scope.push("Properties".to_string());
        let new = new_props.unwrap_or(&empty);
        let how = replacement_of(inputs, old, new_props, &changed_keys, &create_only);
        (kind, replacement) = (Some(how.0), how.1);
        let old_raw = inputs
            .old_declarations
            .and_then(|d| d.get(old.logical_id.as_str()))
            .map(|d| &d.properties);
        for key in &changed_keys {
            let recreation = if create_only.contains(&key.as_str()) {
                "Always"
            } else {
                "Never"
            };
            details.extend(property_details(
                inputs,
                values,
                key,
                recreation,
                old_raw.and_then(|p| p.get(key)),
                decl.properties.get(key),
                new.get(key),
            ));
        }
    }
    for detail in attribute_details(old, decl) {
        scope.push(detail.attribute.clone());
        details.push(detail);
    }
    if scope.is_empty() {
        return None;
    }
    let policy_action = (replacement != "False").then(|| {
        match old.update_replace_policy.as_deref() {
            Some("Retain") => "ReplaceAndRetain",
            Some("Snapshot") => "ReplaceAndSnapshot",
            _ => "ReplaceAndDelete",
        }
        .to_string()
    });
    Some((
        ResourceChange {
            action: ChangeAction::Modify,
            logical_id: old.logical_id.clone(),
            physical_id: old.physical_id.clone(),
            resource_type: old.type_name.clone(),
            replacement: Some(replacement.to_string()),
            policy_action,
            scope,
            details,
            before_context: Some(serde_json::json!({ "Properties": old.properties }).to_string()),
            after_context: new_props.map(|p| serde_json::json!({ "Properties": p }).to_string()),
        },
        kind,
    ))
}

/// How a change of properties is carried out, and its `Replacement`: a createOnly property
/// whose new value is known changes statically (the resource is replaced: `True`); one known
/// only after apply changes dynamically (it may be: `Conditional`), as the API reference words
/// ResourceChange.Replacement. With nothing known of the new properties (`new_props` None), a
/// type with createOnly properties may be replaced.
fn replacement_of(
    inputs: &UpdateInputs<'_>,
    old: &ResourceRecord,
    new_props: Option<&Value>,
    changed_keys: &[String],
    create_only: &[&str],
) -> (UpdateKind, &'static str) {
    let Some(new) = new_props else {
        return if create_only.is_empty() {
            (UpdateKind::InPlace, "False")
        } else {
            (UpdateKind::Replace, "Conditional")
        };
    };
    let unknown = |k: &str| {
        new.get(k)
            .is_some_and(|v| v.to_string().contains(KNOWN_AFTER_APPLY))
    };
    let static_create_only = changed_keys
        .iter()
        .any(|k| create_only.contains(&k.as_str()) && !unknown(k));
    let dynamic_create_only = changed_keys
        .iter()
        .any(|k| create_only.contains(&k.as_str()) && unknown(k));
    let kind = (inputs.update_kind)(
        &old.type_name,
        &old.properties,
        new,
        static_create_only || dynamic_create_only,
    );
    let replacement = match kind {
        UpdateKind::Replace if static_create_only || !dynamic_create_only => "True",
        UpdateKind::Replace => "Conditional",
        _ => "False",
    };
    (kind, replacement)
}

/// The Metadata, DeletionPolicy and UpdateReplacePolicy changes of a resource.
fn attribute_details(old: &ResourceRecord, decl: &ResourceDecl) -> Vec<ChangeDetail> {
    [
        ("Metadata", decl.metadata != old.metadata),
        (
            "DeletionPolicy",
            decl.deletion_policy != old.deletion_policy,
        ),
        (
            "UpdateReplacePolicy",
            decl.update_replace_policy != old.update_replace_policy,
        ),
    ]
    .into_iter()
    .filter(|(_, differs)| *differs)
    .map(|(attribute, _)| ChangeDetail {
        attribute: attribute.to_string(),
        name: None,
        requires_recreation: Some("Never".to_string()),
        evaluation: "Static".to_string(),
        change_source: "DirectModification".to_string(),
        causing_entity: None,
    })
    .collect()
}

/// Every property name of `old` and `new`, `old`'s first.
fn property_names(old: &Value, new: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for v in [old, new] {
        if let Some(map) = v.as_object() {
            for k in map.keys() {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
        }
    }
    names
}

/// The details of one changed property: a changed expression is DirectModification/Static;
/// a value that changes because of a parameter or a changed resource is the cause (Static)
/// plus DirectModification/Dynamic, as AWS records them.
fn property_details(
    inputs: &UpdateInputs<'_>,
    values: &PlanValues<'_>,
    key: &str,
    recreation: &str,
    old_raw: Option<&Value>,
    new_raw: Option<&Value>,
    new_value: Option<&Value>,
) -> Vec<ChangeDetail> {
    let detail = |evaluation: &str, source: &str, cause: Option<String>| ChangeDetail {
        attribute: "Properties".to_string(),
        name: Some(key.to_string()),
        requires_recreation: Some(recreation.to_string()),
        evaluation: evaluation.to_string(),
        change_source: source.to_string(),
        causing_entity: cause,
    };
    let unknown = new_value.is_some_and(|v| v.to_string().contains(KNOWN_AFTER_APPLY));
    let expression_changed = inputs.old_declarations.is_none() || old_raw != new_raw;
    let mut refs = Vec::new();
    if let Some(raw) = new_raw {
        references(raw, &mut refs);
    }
    if unknown {
        let mut out = vec![detail("Dynamic", "DirectModification", None)];
        for r in &refs {
            match r {
                Reference::Ref(id) if values.unknown_ref.contains(id) => {
                    out.push(detail("Static", "ResourceReference", Some(id.clone())))
                }
                Reference::GetAtt(id, attr) if values.unknown_attributes.contains(id) => out.push(
                    detail("Static", "ResourceAttribute", Some(format!("{id}.{attr}"))),
                ),
                _ => {}
            }
        }
        return out;
    }
    if expression_changed {
        return vec![detail("Static", "DirectModification", None)];
    }
    let params: Vec<String> = refs
        .iter()
        .filter_map(|r| match r {
            Reference::Ref(name) if inputs.changed_parameters.contains(name) => Some(name.clone()),
            _ => None,
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut out: Vec<ChangeDetail> = params
        .into_iter()
        .map(|p| detail("Static", "ParameterReference", Some(p)))
        .collect();
    out.push(detail("Dynamic", "DirectModification", None));
    out
}

/// A reference found in a raw (unresolved) template value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reference {
    /// `Ref X`, or `${X}` in `Fn::Sub`.
    Ref(String),
    /// `Fn::GetAtt [X, A]`, or `${X.A}` in `Fn::Sub`.
    GetAtt(String, String),
}

/// Collects the references of a raw value (depth-bounded by the template's own limits).
pub(crate) fn references(value: &Value, out: &mut Vec<Reference>) {
    match value {
        Value::Object(map) if map.len() == 1 => {
            let (k, v) = map.iter().next().expect("one entry");
            match (k.as_str(), v) {
                ("Ref", Value::String(name)) => out.push(Reference::Ref(name.clone())),
                ("Fn::GetAtt", Value::Array(parts)) if parts.len() == 2 => {
                    if let (Some(id), Some(attr)) = (parts[0].as_str(), parts[1].as_str()) {
                        out.push(Reference::GetAtt(id.to_string(), attr.to_string()));
                    }
                }
                ("Fn::GetAtt", Value::String(dotted)) => {
                    if let Some((id, attr)) = dotted.split_once('.') {
                        out.push(Reference::GetAtt(id.to_string(), attr.to_string()));
                    }
                }
                ("Fn::Sub", Value::String(text)) => sub_references(text, &HashSet::new(), out),
                ("Fn::Sub", Value::Array(parts)) => {
                    let vars: HashSet<String> = parts
                        .get(1)
                        .and_then(Value::as_object)
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default();
                    if let Some(text) = parts.first().and_then(Value::as_str) {
                        sub_references(text, &vars, out);
                    }
                    if let Some(m) = parts.get(1) {
                        references(m, out);
                    }
                }
                _ => references(v, out),
            }
        }
        Value::Object(map) => map.values().for_each(|v| references(v, out)),
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

/// The `${X}` / `${X.A}` variables of a `Fn::Sub` string (`${!X}` is literal text).
fn sub_references(text: &str, local: &HashSet<String>, out: &mut Vec<Reference>) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let var = &after[..end];
        rest = &after[end + 1..];
        if var.starts_with('!') || local.contains(var) {
            continue;
        }
        match var.split_once('.') {
            Some((id, attr)) if !id.contains("::") => {
                out.push(Reference::GetAtt(id.to_string(), attr.to_string()))
            }
            _ => out.push(Reference::Ref(var.to_string())),
        }
    }
}

#[cfg(test)]
mod tests;
