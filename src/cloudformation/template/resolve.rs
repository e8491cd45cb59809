//! Resolution: rules, conditions, `Fn::ForEach`, the set of resources and outputs that exist,
//! every reference (Ref, Fn::GetAtt, Fn::Sub, DependsOn), resource types and GetAtt attributes
//! against the registry, a static evaluation of everything that does not need a created
//! resource, and the dependency graph with its creation order (aws-contract.md §6.2, §6.3).
//!
//! `check_document` runs the parameter-independent part at parse time (ValidateTemplate);
//! `resolve` runs everything with parameter values. Errors are synchronous ValidationErrors.

use std::cell::RefCell;
use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value;

use super::budget::Meter;
use super::error::{Block, ErrorKind, TemplateError};
use super::eval::{ConditionLookup, Fail, Scope, R};
use super::foreach::{self, Sections};
use super::graph::NameGraph;
use super::model::{is_pseudo, Inner, OutputDecl, Pseudo, Resolved, ResourceDecl};
use super::params::BoundParameters;
use super::parse::{check_policy, policy_error, DELETION_POLICIES, UPDATE_REPLACE_POLICIES};
use super::refs::{unresolved_condition, Collector, Reference};
use crate::cloudformation::registry;

/// The parameter-independent checks, run by `Template::parse` (no `Fn::ForEach` present).
pub(crate) fn check_document(inner: &Inner) -> Result<(), TemplateError> {
    let sections = Sections {
        conditions: inner.conditions.clone(),
        resources: inner.resources.clone(),
        outputs: inner.outputs.clone(),
        processed: Value::Null,
    };
    check_sections(inner, &sections, None)?;
    Ok(())
}

/// The parameter-independent checks of already expanded sections (`Fn::ForEach` at parse time).
pub(crate) fn check_sections_static(
    inner: &Inner,
    sections: &Sections,
) -> Result<(), TemplateError> {
    check_sections(inner, sections, None).map(|_| ())
}

/// What the checks produce when conditions are known.
struct Checked {
    active: IndexMap<String, ResourceDecl>,
    dependencies: IndexMap<String, Vec<String>>,
    parameter_references: IndexMap<String, Vec<String>>,
    outputs: IndexMap<String, OutputDecl>,
}

fn check_sections(
    inner: &Inner,
    sections: &Sections,
    conditions: Option<&IndexMap<String, bool>>,
) -> Result<Checked, TemplateError> {
    check_declarations(inner, sections)?;
    let holds = |c: &Option<String>| match (c, conditions) {
        (Some(c), Some(values)) => values.get(c).copied().unwrap_or(false),
        _ => true,
    };
    let active: IndexMap<String, ResourceDecl> = sections
        .resources
        .iter()
        .filter(|(_, r)| holds(&r.condition))
        .map(|(k, r)| (k.clone(), r.clone()))
        .collect();
    let outputs: IndexMap<String, OutputDecl> = sections
        .outputs
        .iter()
        .filter(|(_, o)| holds(&o.condition))
        .map(|(k, o)| (k.clone(), o.clone()))
        .collect();

    let mut refs = ResourceReferences {
        inner,
        sections,
        active: &active,
        conditions,
        unresolved: Vec::new(),
        attribute_error: None,
        dependencies: IndexMap::new(),
        certain_dependencies: IndexMap::new(),
        parameter_references: IndexMap::new(),
    };
    for (id, res) in &active {
        refs.resource(id, res)?;
    }
    if !refs.unresolved.is_empty() {
        return Err(unresolved(refs.unresolved, Block::Resources).under_key("Resources"));
    }
    if let Some(err) = refs.attribute_error {
        return Err(err);
    }
    if conditions.is_none() {
        // ValidateTemplate runs the dependency-graph check too (contract §6.3, §6.4).
        topological_order(&active, &refs.certain_dependencies)?;
    }
    let (dependencies, parameter_references) = (refs.dependencies, refs.parameter_references);
    check_output_references(inner, sections, &active, &outputs, conditions)?;
    Ok(Checked {
        active,
        dependencies,
        parameter_references,
        outputs,
    })
}

/// The declarations' own checks: every resource type is in the registry (conditions or not),
/// the conditions' definitions, and the condition names resources and outputs use.
fn check_declarations(inner: &Inner, sections: &Sections) -> Result<(), TemplateError> {
    let mut unknown_types: Vec<&str> = Vec::new();
    for res in sections.resources.values() {
        if registry::resource_type(&res.type_name).is_none()
            && !unknown_types.contains(&res.type_name.as_str())
        {
            unknown_types.push(&res.type_name);
        }
    }
    if !unknown_types.is_empty() {
        let types = unknown_types.into_iter().map(str::to_string).collect();
        return Err(ErrorKind::UnrecognizedResourceTypes(types).into());
    }
    check_condition_definitions(inner, &sections.conditions)?;
    let named = sections
        .resources
        .iter()
        .map(|(id, r)| ("Resources", id, &r.condition))
        .chain(
            sections
                .outputs
                .iter()
                .map(|(key, o)| ("Outputs", key, &o.condition)),
        );
    for (section, name, condition) in named {
        if let Some(c) = condition {
            if !sections.conditions.contains_key(c) {
                return Err(unresolved_condition(c, section).under(&[
                    section,
                    name.as_str(),
                    "Condition",
                ]));
            }
        }
    }
    Ok(())
}

/// The Resources block's references, resource by resource: dependencies, parameters used,
/// names that resolve to nothing (all of them, first-seen order) and the first attribute the
/// target's type does not have.
struct ResourceReferences<'a> {
    inner: &'a Inner,
    sections: &'a Sections,
    active: &'a IndexMap<String, ResourceDecl>,
    conditions: Option<&'a IndexMap<String, bool>>,
    unresolved: Vec<String>,
    attribute_error: Option<TemplateError>,
    dependencies: IndexMap<String, Vec<String>>,
    /// Without condition values: the dependencies outside `Fn::If` branches, which hold for
    /// every parameter value (a cycle through them fails every CreateStack).
    certain_dependencies: IndexMap<String, Vec<String>>,
    parameter_references: IndexMap<String, Vec<String>>,
}

/// Adds `name` to `list` unless it is there.
fn add(name: &str, list: &mut Vec<String>) {
    if !list.iter().any(|d| d == name) {
        list.push(name.to_string());
    }
}

impl ResourceReferences<'_> {
    fn resource(&mut self, id: &str, res: &ResourceDecl) -> Result<(), TemplateError> {
        let sections = self.sections;
        let mut collector = Collector::new(
            self.inner,
            &sections.resources,
            &sections.conditions,
            self.conditions,
        );
        let at = |e: TemplateError, part: &str| e.under(&["Resources", id, part]);
        collector
            .walk(&res.properties, 0)
            .map_err(|e| at(e, "Properties"))?;
        if let Some(m) = &res.metadata {
            collector.walk(m, 0).map_err(|e| at(e, "Metadata"))?;
        }
        let mut deps: Vec<String> = Vec::new();
        let mut params: Vec<String> = Vec::new();
        for reference in &collector.refs {
            match reference {
                Reference::Ref(name) if self.inner.parameters.contains_key(name) => {
                    add(name, &mut params)
                }
                Reference::Ref(name) if is_pseudo(name) => {}
                Reference::Ref(name) if self.active.contains_key(name) => add(name, &mut deps),
                Reference::Ref(name) => add(name, &mut self.unresolved),
                Reference::GetAtt(target, attr) if self.active.contains_key(target) => {
                    add(target, &mut deps);
                    self.check_attribute(id, target, attr.as_deref());
                }
                Reference::GetAtt(target, _) if sections.resources.contains_key(target) => {
                    add(target, &mut self.unresolved)
                }
                Reference::GetAtt(target, _) => {
                    return Err(
                        TemplateError::new(ErrorKind::GetAttUndefined(target.clone()))
                            .under(&["Resources", id]),
                    );
                }
            }
        }
        for dep in &res.depends_on {
            if self.active.contains_key(dep) {
                add(dep, &mut deps);
            } else {
                add(dep, &mut self.unresolved);
            }
        }
        if self.conditions.is_none() {
            let mut certain: Vec<String> = Vec::new();
            for &i in &collector.certain {
                let target = match &collector.refs[i] {
                    Reference::Ref(name) => name,
                    Reference::GetAtt(target, _) => target,
                };
                if self.active.contains_key(target) {
                    add(target, &mut certain);
                }
            }
            for dep in &res.depends_on {
                if self.active.contains_key(dep) {
                    add(dep, &mut certain);
                }
            }
            self.certain_dependencies.insert(id.to_string(), certain);
        }
        self.dependencies.insert(id.to_string(), deps);
        self.parameter_references.insert(id.to_string(), params);
        Ok(())
    }

    /// Remembers the first `Fn::GetAtt` of an attribute `target`'s type does not have.
    fn check_attribute(&mut self, id: &str, target: &str, attr: Option<&str>) {
        let (Some(attr), None) = (attr, &self.attribute_error) else {
            return;
        };
        let ty = &self.active[target].type_name;
        if registry::resource_type(ty).is_some_and(|info| !info.supports_attribute(attr)) {
            self.attribute_error = Some(
                TemplateError::new(ErrorKind::GetAttAttribute {
                    resource: target.to_string(),
                    attribute: attr.to_string(),
                })
                .under(&["Resources", id]),
            );
        }
    }
}

/// The Outputs block's references; attributes are checked when the output is evaluated
/// (contract §6.2).
fn check_output_references(
    inner: &Inner,
    sections: &Sections,
    active: &IndexMap<String, ResourceDecl>,
    outputs: &IndexMap<String, OutputDecl>,
    conditions: Option<&IndexMap<String, bool>>,
) -> Result<(), TemplateError> {
    let mut unresolved_names: Vec<String> = Vec::new();
    for (key, out) in outputs {
        let mut collector =
            Collector::new(inner, &sections.resources, &sections.conditions, conditions);
        let at = |e: TemplateError, part: &str| e.under(&["Outputs", key.as_str(), part]);
        collector.walk(&out.value, 0).map_err(|e| at(e, "Value"))?;
        if let Some(d) = &out.description {
            collector.walk(d, 0).map_err(|e| at(e, "Description"))?;
        }
        if let Some(e) = &out.export_name {
            collector
                .walk(e, 0)
                .map_err(|err| at(err.under_key("Name"), "Export"))?;
        }
        for reference in &collector.refs {
            let name = match reference {
                Reference::Ref(name) if is_pseudo(name) || inner.parameters.contains_key(name) => {
                    continue
                }
                Reference::Ref(name) => name,
                Reference::GetAtt(target, _) if !sections.resources.contains_key(target) => {
                    return Err(
                        TemplateError::new(ErrorKind::GetAttUndefined(target.clone()))
                            .under(&["Outputs", key.as_str()]),
                    );
                }
                Reference::GetAtt(target, _) => target,
            };
            if !active.contains_key(name) {
                add(name, &mut unresolved_names);
            }
        }
    }
    if !unresolved_names.is_empty() {
        return Err(unresolved(unresolved_names, Block::Outputs).under_key("Outputs"));
    }
    Ok(())
}

/// Conditions may use parameters, pseudo parameters, mappings and other conditions only.
fn check_condition_definitions(
    inner: &Inner,
    defs: &IndexMap<String, Value>,
) -> Result<(), TemplateError> {
    for (cond, body) in defs {
        let mut collector = Collector::new(inner, &inner.resources, defs, None);
        collector
            .walk(body, 0)
            .map_err(|e| e.under(&["Conditions", cond.as_str()]))?;
        let mut bad: Vec<String> = Vec::new();
        for reference in collector.refs {
            let name = match reference {
                Reference::Ref(name) => name,
                Reference::GetAtt(res, _) => res,
            };
            if name != "AWS::NoValue" && (is_pseudo(&name) || inner.parameters.contains_key(&name))
            {
                continue;
            }
            if !bad.contains(&name) {
                bad.push(name);
            }
        }
        if !bad.is_empty() {
            return Err(unresolved(bad, Block::Conditions).under(&["Conditions", cond.as_str()]));
        }
        for name in condition_names(body) {
            if !defs.contains_key(&name) {
                return Err(
                    unresolved_condition(&name, "Condition").under(&["Conditions", cond.as_str()])
                );
            }
        }
    }
    if let Some(cycle) = condition_cycle(defs) {
        // The message evaluation gives (ConditionValues), so ValidateTemplate says it too.
        return Err(
            TemplateError::new(ErrorKind::CircularConditions(cycle)).under_key("Conditions")
        );
    }
    Ok(())
}

/// The conditions on a cycle of `{"Condition": name}` references, in template order, or `None`.
fn condition_cycle(defs: &IndexMap<String, Value>) -> Option<Vec<String>> {
    let needs: IndexMap<String, Vec<String>> = defs
        .iter()
        .map(|(name, body)| (name.clone(), condition_names(body)))
        .collect();
    let members = NameGraph::new(defs.keys().map(String::as_str), &needs).cycle_members();
    (!members.is_empty()).then(|| members.into_iter().map(str::to_string).collect())
}

/// The `{"Condition": name}` references in a condition body.
fn condition_names(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let (1, Some(Value::String(name))) = (map.len(), map.get("Condition")) {
                    out.push(name.clone());
                    continue;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    out
}

/// Conditions, evaluated on demand and remembered; a condition that needs itself is an error.
struct ConditionValues<'a> {
    scope: &'a Scope<'a>,
    defs: &'a IndexMap<String, Value>,
    memo: RefCell<HashMap<String, bool>>,
    visiting: RefCell<Vec<String>>,
}

impl ConditionLookup for ConditionValues<'_> {
    fn condition(&self, name: &str, function: &str) -> R<bool> {
        if let Some(v) = self.memo.borrow().get(name) {
            return Ok(*v);
        }
        let Some(body) = self.defs.get(name) else {
            return Err(Fail::Error(unresolved_condition(name, function)));
        };
        if self.visiting.borrow().iter().any(|n| n == name) {
            let cycle = self.visiting.borrow().clone();
            return Err(ErrorKind::CircularConditions(cycle).into());
        }
        self.visiting.borrow_mut().push(name.to_string());
        let value = self.scope.eval_bool(body, self, 0);
        self.visiting.borrow_mut().pop();
        let value = value?;
        self.memo.borrow_mut().insert(name.to_string(), value);
        Ok(value)
    }
}

/// Names used in `block` that resolve to nothing.
fn unresolved(names: Vec<String>, block: Block) -> TemplateError {
    ErrorKind::Unresolved { names, block }.into()
}

fn fail(f: Fail) -> TemplateError {
    match f {
        Fail::Error(e) => e,
        // Conditions and rules see parameters only; an unknown here means a reference the
        // checks above already refuse.
        Fail::Unknown => ErrorKind::ConditionsBoolean.into(),
    }
}

struct NoConditions;

impl ConditionLookup for NoConditions {
    fn condition(&self, name: &str, function: &str) -> R<bool> {
        Err(Fail::Error(unresolved_condition(name, function)))
    }
}

/// See [`super::Template::resolve`].
pub(crate) fn resolve(
    inner: &Inner,
    params: &BoundParameters,
    pseudo: &Pseudo,
) -> Result<Resolved, TemplateError> {
    // One budget for everything this resolution evaluates (limits::EVALUATION_BYTES).
    let meter = Meter::default();
    let none: IndexMap<String, ResourceDecl> = IndexMap::new();
    let values = Values {
        inner,
        params,
        pseudo,
        meter: &meter,
    };

    // Rules first: they validate the parameter values (user guide "Rules syntax").
    check_rules(inner, &values.scope(&none, Block::Rules))?;

    let sections = foreach::expand(inner, params, pseudo, &meter)?;

    // Conditions.
    check_condition_definitions(inner, &sections.conditions)?;
    let cond_scope = values.scope(&none, Block::Conditions);
    let lookup = ConditionValues {
        scope: &cond_scope,
        defs: &sections.conditions,
        memo: RefCell::new(HashMap::new()),
        visiting: RefCell::new(Vec::new()),
    };
    let mut conditions: IndexMap<String, bool> = IndexMap::new();
    for name in sections.conditions.keys() {
        let value = lookup
            .condition(name, "Condition")
            .map_err(|f| fail(f).under(&["Conditions", name.as_str()]))?;
        conditions.insert(name.clone(), value);
    }

    let checked = check_sections(inner, &sections, Some(&conditions))?;
    let mut active = checked.active;
    {
        let mut static_scope = values.scope(&active, Block::Resources);
        static_scope.conditions = Some(&conditions);
        probe_all(&mut static_scope, &active, &checked.outputs)?;
    }
    if inner.language_extensions {
        let snapshot = active.clone();
        let mut policy_scope = values.scope(&snapshot, Block::Resources);
        policy_scope.conditions = Some(&conditions);
        resolve_policies(&policy_scope, &mut active)?;
    }

    let order = topological_order(&active, &checked.dependencies)?;
    Ok(Resolved {
        conditions,
        resources: active,
        order,
        dependencies: checked.dependencies,
        parameter_references: checked.parameter_references,
        outputs: checked.outputs,
        processed: sections.processed,
        meter: Default::default(),
    })
}

/// What every scope of one resolution sees.
struct Values<'a> {
    inner: &'a Inner,
    params: &'a BoundParameters,
    pseudo: &'a Pseudo,
    meter: &'a Meter,
}

impl<'a> Values<'a> {
    fn scope(&self, resources: &'a IndexMap<String, ResourceDecl>, block: Block) -> Scope<'a> {
        let mut scope = Scope::new(self.inner, resources, block, self.meter);
        scope.params = Some(self.params);
        scope.pseudo = Some(self.pseudo);
        scope
    }
}

/// Every rule whose RuleCondition holds must have its assertions hold.
fn check_rules(inner: &Inner, scope: &Scope<'_>) -> Result<(), TemplateError> {
    for (name, rule) in &inner.rules {
        let applies = match &rule.rule_condition {
            None => true,
            Some(c) => scope
                .eval_bool(c, &NoConditions, 0)
                .map_err(|f| fail(f).under(&["Rules", name.as_str(), "RuleCondition"]))?,
        };
        if !applies {
            continue;
        }
        for assertion in &rule.assertions {
            if !scope
                .eval_bool(&assertion.assert, &NoConditions, 0)
                .map_err(|f| fail(f).under(&["Rules", name.as_str(), "Assertions"]))?
            {
                return Err(ErrorKind::AssertionFailed {
                    rule: name.clone(),
                    description: assertion.assert_description.clone(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// Static evaluation: everything that needs no created resource is evaluated now, so its
/// errors (a missing mapping key, an out-of-range Fn::Select, a value over its limit) are
/// synchronous. All of it is charged to the resolution's meter.
fn probe_all(
    scope: &mut Scope<'_>,
    active: &IndexMap<String, ResourceDecl>,
    outputs: &IndexMap<String, OutputDecl>,
) -> Result<(), TemplateError> {
    scope.block = Block::Resources;
    for (id, res) in active {
        probe(scope, &res.properties)
            .map_err(|e| e.under(&["Resources", id.as_str(), "Properties"]))?;
    }
    scope.block = Block::Outputs;
    for (key, out) in outputs {
        let at = |e: TemplateError, part: &[&str]| e.under(part).under(&["Outputs", key.as_str()]);
        probe(scope, &out.value).map_err(|e| at(e, &["Value"]))?;
        if let Some(d) = &out.description {
            probe(scope, d).map_err(|e| at(e, &["Description"]))?;
        }
        if let Some(e) = &out.export_name {
            probe(scope, e).map_err(|err| at(err, &["Export", "Name"]))?;
        }
    }
    Ok(())
}

/// DeletionPolicy / UpdateReplacePolicy given as intrinsics (AWS::LanguageExtensions),
/// evaluated into their values.
fn resolve_policies(
    scope: &Scope<'_>,
    active: &mut IndexMap<String, ResourceDecl>,
) -> Result<(), TemplateError> {
    for (id, res) in active.iter_mut() {
        for (slot, attribute, allowed) in [
            (
                &mut res.deletion_policy,
                "DeletionPolicy",
                DELETION_POLICIES,
            ),
            (
                &mut res.update_replace_policy,
                "UpdateReplacePolicy",
                UPDATE_REPLACE_POLICIES,
            ),
        ] {
            let Some(text) = slot.as_ref().filter(|t| t.starts_with('{')) else {
                continue;
            };
            let at = |e: TemplateError| e.under(&["Resources", id.as_str()]);
            let expr: Value =
                serde_json::from_str(text).map_err(|_| at(policy_error(attribute)))?;
            let value = match scope.eval(&expr, 0) {
                Ok(Some(Value::String(s))) => s,
                Ok(None) => {
                    *slot = None;
                    continue;
                }
                Ok(_) | Err(Fail::Unknown) => String::new(),
                Err(Fail::Error(e)) => return Err(at(e.under_key(attribute))),
            };
            check_policy(&value, attribute, allowed).map_err(at)?;
            *slot = Some(value);
        }
    }
    Ok(())
}

fn probe(scope: &Scope<'_>, value: &Value) -> Result<(), TemplateError> {
    match scope.eval(value, 0) {
        Ok(_) | Err(Fail::Unknown) => Ok(()),
        Err(Fail::Error(e)) => Err(e),
    }
}

/// The creation order of `resources` (see [`NameGraph::order`]); a cycle is AWS's
/// `Circular dependency between resources: [...]` naming the cycles and what depends on them.
fn topological_order(
    resources: &IndexMap<String, ResourceDecl>,
    deps: &IndexMap<String, Vec<String>>,
) -> Result<Vec<String>, TemplateError> {
    let graph = NameGraph::new(resources.keys().map(String::as_str), deps);
    match graph.order() {
        Ok(order) => Ok(order.into_iter().map(str::to_string).collect()),
        Err(blocked) => Err(ErrorKind::CircularResources(
            blocked.into_iter().map(str::to_string).collect(),
        )
        .into()),
    }
}

/// IAM types that need CAPABILITY_IAM, and the property that makes each a named resource
/// (CreateStack `Capabilities` in the API reference).
const IAM_TYPES: &[(&str, Option<&str>)] = &[
    ("AWS::IAM::AccessKey", None),
    ("AWS::IAM::Group", Some("GroupName")),
    ("AWS::IAM::InstanceProfile", Some("InstanceProfileName")),
    ("AWS::IAM::ManagedPolicy", Some("ManagedPolicyName")),
    ("AWS::IAM::Policy", None),
    ("AWS::IAM::Role", Some("RoleName")),
    ("AWS::IAM::User", Some("UserName")),
    ("AWS::IAM::UserToGroupAddition", None),
];

/// The capabilities and the resource types that need them.
pub(crate) fn required_capabilities(
    inner: &Inner,
    resolved: &Resolved,
) -> (Vec<&'static str>, Vec<String>) {
    let mut iam = false;
    let mut named = false;
    let mut types: Vec<String> = Vec::new();
    for res in resolved.resources.values() {
        let Some((_, name_property)) = IAM_TYPES.iter().find(|(t, _)| *t == res.type_name) else {
            continue;
        };
        iam = true;
        if !types.contains(&res.type_name) {
            types.push(res.type_name.clone());
        }
        if let Some(prop) = name_property {
            if let Some(v) = res.properties.get(*prop) {
                if sets_a_name(v, &resolved.conditions) {
                    named = true;
                }
            }
        }
    }
    let mut caps = Vec::new();
    if named {
        caps.push("CAPABILITY_NAMED_IAM");
    } else if iam {
        caps.push("CAPABILITY_IAM");
    }
    if !inner.transforms.is_empty() {
        caps.push("CAPABILITY_AUTO_EXPAND");
    }
    (caps, types)
}

/// False only for a name that resolves to `AWS::NoValue` (directly or through Fn::If).
fn sets_a_name(value: &Value, conditions: &IndexMap<String, bool>) -> bool {
    let Value::Object(map) = value else {
        return true;
    };
    if map.len() != 1 {
        return true;
    }
    if let Some(Value::String(r)) = map.get("Ref") {
        return r != "AWS::NoValue";
    }
    if let Some(Value::Array(items)) = map.get("Fn::If") {
        if let [Value::String(c), yes, no] = items.as_slice() {
            return match conditions.get(c) {
                Some(true) => sets_a_name(yes, conditions),
                Some(false) => sets_a_name(no, conditions),
                None => true,
            };
        }
    }
    true
}
