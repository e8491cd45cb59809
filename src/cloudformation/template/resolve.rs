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

use super::error::{msg, Block, TemplateError};
use super::eval::{is_function_key, parse_sub, ConditionLookup, Fail, Scope, SubPiece, R};
use super::foreach::{self, Sections};
use super::graph::NameGraph;
use super::limits;
use super::model::{is_pseudo, Inner, OutputDecl, Pseudo, Resolved, ResourceDecl};
use super::params::BoundParameters;
use super::parse::{check_policy, DELETION_POLICIES, UPDATE_REPLACE_POLICIES};
use crate::cloudformation::registry;

/// A reference found in a value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reference {
    /// `Ref name` or `${name}`.
    Ref(String),
    /// `Fn::GetAtt [resource, attribute]` or `${resource.attribute}`; the attribute is `None`
    /// when it is computed.
    GetAtt(String, Option<String>),
}

/// Collects references in `value`, checking intrinsic shapes on the way. `conditions`, when
/// known, prunes the branch of `Fn::If` not taken; `defined` lists the condition names.
struct Collector<'a> {
    inner: &'a Inner,
    /// Every declared resource (conditions or not).
    declared: &'a IndexMap<String, ResourceDecl>,
    defined: &'a IndexMap<String, Value>,
    conditions: Option<&'a IndexMap<String, bool>>,
    refs: Vec<Reference>,
    /// How many `Fn::If` branches enclose the walk when the condition is unknown.
    unknown_if_depth: usize,
    /// The indices in `refs` of the references found at `unknown_if_depth == 0`: those
    /// every resolution keeps, whatever the parameter values.
    certain: Vec<usize>,
    steps: u64,
}

impl<'a> Collector<'a> {
    fn new(
        inner: &'a Inner,
        declared: &'a IndexMap<String, ResourceDecl>,
        defined: &'a IndexMap<String, Value>,
        conditions: Option<&'a IndexMap<String, bool>>,
    ) -> Collector<'a> {
        Collector {
            inner,
            declared,
            defined,
            conditions,
            refs: Vec::new(),
            unknown_if_depth: 0,
            certain: Vec::new(),
            steps: 0,
        }
    }

    /// Records a reference (see `certain`).
    fn push(&mut self, reference: Reference) {
        if self.unknown_if_depth == 0 {
            self.certain.push(self.refs.len());
        }
        self.refs.push(reference);
    }

    fn walk(&mut self, value: &Value, depth: usize) -> Result<(), TemplateError> {
        self.steps += 1;
        if depth > limits::MAX_DEPTH || self.steps > limits::FUEL {
            return Err(msg::budget());
        }
        match value {
            Value::Array(items) => items.iter().try_for_each(|i| self.walk(i, depth + 1)),
            Value::Object(map) => {
                if map.len() == 1 {
                    if let Some((key, args)) = map.iter().next() {
                        if is_function_key(key) {
                            return self.function(key, args, depth + 1);
                        }
                    }
                }
                map.values().try_for_each(|v| self.walk(v, depth + 1))
            }
            _ => Ok(()),
        }
    }

    fn function(&mut self, name: &str, args: &Value, depth: usize) -> Result<(), TemplateError> {
        let le = self.inner.language_extensions;
        match name {
            "Ref" => match args {
                Value::String(s) => {
                    self.push(Reference::Ref(s.clone()));
                    Ok(())
                }
                _ => Err(msg::ref_shape()),
            },
            "Fn::GetAtt" => match args {
                Value::String(s) => match s.split_once('.') {
                    Some((r, a)) if !r.is_empty() && !a.is_empty() => {
                        self.push(Reference::GetAtt(r.to_string(), Some(a.to_string())));
                        Ok(())
                    }
                    _ => Err(msg::getatt_shape()),
                },
                Value::Array(items) if items.len() == 2 => {
                    let Value::String(res) = &items[0] else {
                        return Err(msg::getatt_shape());
                    };
                    let attr = match &items[1] {
                        Value::String(a) => Some(a.clone()),
                        Value::Object(_) => {
                            self.walk(&items[1], depth)?;
                            None
                        }
                        _ => return Err(msg::getatt_shape()),
                    };
                    if res.is_empty() || attr.as_deref() == Some("") {
                        return Err(msg::getatt_shape());
                    }
                    self.push(Reference::GetAtt(res.clone(), attr));
                    Ok(())
                }
                _ => Err(msg::getatt_shape()),
            },
            "Fn::Sub" => {
                let (template, vars) = match args {
                    Value::String(s) => (s, None),
                    Value::Array(items) if items.len() == 2 => match (&items[0], &items[1]) {
                        (Value::String(s), Value::Object(vars)) => (s, Some(vars)),
                        _ => return Err(msg::sub_shape()),
                    },
                    _ => return Err(msg::sub_shape()),
                };
                if let Some(vars) = vars {
                    vars.values().try_for_each(|v| self.walk(v, depth))?;
                }
                for piece in parse_sub(template)? {
                    if let SubPiece::Var(var) = piece {
                        if vars.is_some_and(|m| m.contains_key(&var)) {
                            continue;
                        }
                        match var.split_once('.') {
                            // `${Resource.Attribute}` of a declared resource is a GetAtt; any
                            // other name is unresolved as written (contract §6.2).
                            Some((res, att))
                                if !self.inner.parameters.contains_key(&var)
                                    && self.declared.contains_key(res) =>
                            {
                                self.push(Reference::GetAtt(res.to_string(), Some(att.to_string())))
                            }
                            _ => self.push(Reference::Ref(var)),
                        }
                    }
                }
                Ok(())
            }
            "Fn::If" => {
                let Value::Array(items) = args else {
                    return Err(msg::if_shape());
                };
                let [Value::String(cond), yes, no] = items.as_slice() else {
                    return Err(msg::if_shape());
                };
                if !self.defined.contains_key(cond) {
                    return Err(msg::unresolved_condition(cond, "Fn::If"));
                }
                match self.conditions.and_then(|c| c.get(cond)) {
                    Some(true) => self.walk(yes, depth),
                    Some(false) => self.walk(no, depth),
                    None => {
                        self.unknown_if_depth += 1;
                        let walked = self.walk(yes, depth).and_then(|()| self.walk(no, depth));
                        self.unknown_if_depth -= 1;
                        walked
                    }
                }
            }
            "Fn::ImportValue" => {
                let before = self.refs.len();
                self.walk(args, depth)?;
                let depends_on_resource = self.refs[before..].iter().any(|r| match r {
                    Reference::Ref(n) => self.inner_is_resource(n),
                    Reference::GetAtt(..) => true,
                });
                if depends_on_resource
                    || contains_function(args, &["Fn::ImportValue", "Fn::GetAZs"])
                {
                    // Reported AWS text.
                    return Err(TemplateError::template(
                        "the attribute in Fn::ImportValue must not depend on any resources, imported values, or Fn::GetAZs",
                    ));
                }
                Ok(())
            }
            "Fn::Join" => match args {
                Value::Array(items) if items.len() == 2 && items[0].is_string() => {
                    self.walk(&items[1], depth)
                }
                _ => Err(msg::join_shape()),
            },
            "Fn::Select" => match args {
                Value::Array(items) if items.len() == 2 => self.walk(args, depth),
                _ => Err(msg::select_shape()),
            },
            "Fn::Split" => match args {
                Value::Array(items) if items.len() == 2 && items[0].is_string() => {
                    self.walk(&items[1], depth)
                }
                _ => Err(msg::split_shape()),
            },
            "Fn::FindInMap" => match args {
                Value::Array(items) if items.len() == 3 || (le && items.len() == 4) => {
                    self.walk(args, depth)
                }
                _ => Err(msg::find_in_map_shape()),
            },
            "Fn::Cidr" => match args {
                Value::Array(items) if items.len() == 3 => self.walk(args, depth),
                _ => Err(msg::cidr_shape()),
            },
            "Fn::Base64" | "Fn::GetAZs" => self.walk(args, depth),
            "Fn::Length" | "Fn::ToJsonString" if le => self.walk(args, depth),
            "Fn::Equals"
            | "Fn::And"
            | "Fn::Or"
            | "Fn::Not"
            | "Fn::Contains"
            | "Fn::EachMemberEquals"
            | "Fn::EachMemberIn"
            | "Fn::RefAll"
            | "Fn::ValueOf"
            | "Fn::ValueOfAll" => self.walk(args, depth),
            _ => Err(msg::unsupported_function(name, le)),
        }
    }

    fn inner_is_resource(&self, name: &str) -> bool {
        self.declared.contains_key(name)
    }
}

/// True when `value` contains a call to one of `names`.
fn contains_function(value: &Value, names: &[&str]) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| names.contains(&k.as_str()) || contains_function(v, names)),
        Value::Array(items) => items.iter().any(|i| contains_function(i, names)),
        _ => false,
    }
}

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
    // Resource types: every declared one, conditions or not.
    let mut unknown_types: Vec<&str> = Vec::new();
    for res in sections.resources.values() {
        if registry::resource_type(&res.type_name).is_none()
            && !unknown_types.contains(&res.type_name.as_str())
        {
            unknown_types.push(&res.type_name);
        }
    }
    if !unknown_types.is_empty() {
        // AWS (reported, contract §6.4): every unknown type listed.
        return Err(TemplateError::format(format!(
            "Unrecognized resource types: [{}]",
            unknown_types.join(", ")
        )));
    }

    check_condition_definitions(inner, &sections.conditions)?;
    for res in sections.resources.values() {
        if let Some(c) = &res.condition {
            if !sections.conditions.contains_key(c) {
                // Chosen, in the wording of the Fn::If message.
                return Err(msg::unresolved_condition(c, "Resources"));
            }
        }
    }
    for out in sections.outputs.values() {
        if let Some(c) = &out.condition {
            if !sections.conditions.contains_key(c) {
                return Err(msg::unresolved_condition(c, "Outputs"));
            }
        }
    }

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

    // Resources block.
    let mut dependencies: IndexMap<String, Vec<String>> = IndexMap::new();
    // Without condition values: the dependencies outside `Fn::If` branches, which hold for
    // every parameter value (a cycle through them fails every CreateStack).
    let mut certain_dependencies: IndexMap<String, Vec<String>> = IndexMap::new();
    let mut parameter_references: IndexMap<String, Vec<String>> = IndexMap::new();
    let mut unresolved: Vec<String> = Vec::new();
    let mut attribute_error: Option<TemplateError> = None;
    for (id, res) in &active {
        let mut collector =
            Collector::new(inner, &sections.resources, &sections.conditions, conditions);
        collector.walk(&res.properties, 0)?;
        if let Some(m) = &res.metadata {
            collector.walk(m, 0)?;
        }
        let mut deps: Vec<String> = Vec::new();
        let mut params: Vec<String> = Vec::new();
        let add = |dep: &str, deps: &mut Vec<String>| {
            if !deps.iter().any(|d| d == dep) {
                deps.push(dep.to_string());
            }
        };
        for reference in &collector.refs {
            match reference {
                Reference::Ref(name) => {
                    if inner.parameters.contains_key(name) {
                        add(name, &mut params);
                        continue;
                    }
                    if is_pseudo(name) {
                        continue;
                    }
                    if active.contains_key(name) {
                        add(name, &mut deps);
                    } else if !unresolved.contains(name) {
                        unresolved.push(name.clone());
                    }
                }
                Reference::GetAtt(target, attr) => {
                    if active.contains_key(target) {
                        add(target, &mut deps);
                        if let (Some(attr), None) = (attr, &attribute_error) {
                            let ty = &active[target.as_str()].type_name;
                            if registry::resource_type(ty)
                                .is_some_and(|info| !info.supports_attribute(attr))
                            {
                                attribute_error = Some(msg::getatt_attribute(target, attr));
                            }
                        }
                    } else if sections.resources.contains_key(target) {
                        if !unresolved.contains(target) {
                            unresolved.push(target.clone());
                        }
                    } else {
                        return Err(msg::getatt_undefined(target));
                    }
                }
            }
        }
        for dep in &res.depends_on {
            if active.contains_key(dep) {
                add(dep, &mut deps);
            } else if !unresolved.contains(dep) {
                unresolved.push(dep.clone());
            }
        }
        if conditions.is_none() {
            let mut certain: Vec<String> = Vec::new();
            for &i in &collector.certain {
                let target = match &collector.refs[i] {
                    Reference::Ref(name) => name,
                    Reference::GetAtt(target, _) => target,
                };
                if active.contains_key(target) {
                    add(target, &mut certain);
                }
            }
            for dep in &res.depends_on {
                if active.contains_key(dep) {
                    add(dep, &mut certain);
                }
            }
            certain_dependencies.insert(id.clone(), certain);
        }
        dependencies.insert(id.clone(), deps);
        parameter_references.insert(id.clone(), params);
    }
    if !unresolved.is_empty() {
        return Err(msg::unresolved(&unresolved, Block::Resources));
    }
    if let Some(err) = attribute_error {
        return Err(err);
    }
    if conditions.is_none() {
        // ValidateTemplate runs the dependency-graph check too (contract §6.3, §6.4).
        topological_order(&active, &certain_dependencies)?;
    }

    // Outputs block: attributes are checked when the output is evaluated (§6.2).
    let mut unresolved: Vec<String> = Vec::new();
    for out in outputs.values() {
        let mut collector =
            Collector::new(inner, &sections.resources, &sections.conditions, conditions);
        collector.walk(&out.value, 0)?;
        if let Some(d) = &out.description {
            collector.walk(d, 0)?;
        }
        if let Some(e) = &out.export_name {
            collector.walk(e, 0)?;
        }
        for reference in &collector.refs {
            let name = match reference {
                Reference::Ref(name) => {
                    if is_pseudo(name) || inner.parameters.contains_key(name) {
                        continue;
                    }
                    name
                }
                Reference::GetAtt(target, _) => {
                    if !sections.resources.contains_key(target) {
                        return Err(msg::getatt_undefined(target));
                    }
                    target
                }
            };
            if !active.contains_key(name) && !unresolved.contains(name) {
                unresolved.push(name.clone());
            }
        }
    }
    if !unresolved.is_empty() {
        return Err(msg::unresolved(&unresolved, Block::Outputs));
    }
    Ok(Checked {
        active,
        dependencies,
        parameter_references,
        outputs,
    })
}

/// Conditions may use parameters, pseudo parameters, mappings and other conditions only.
fn check_condition_definitions(
    inner: &Inner,
    defs: &IndexMap<String, Value>,
) -> Result<(), TemplateError> {
    for body in defs.values() {
        let mut collector = Collector::new(inner, &inner.resources, defs, None);
        collector.walk(body, 0)?;
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
            // AWS (widely reported).
            return Err(msg::unresolved(&bad, Block::Conditions));
        }
        for name in condition_names(body) {
            if !defs.contains_key(&name) {
                return Err(msg::unresolved_condition(&name, "Condition"));
            }
        }
    }
    if let Some(cycle) = condition_cycle(defs) {
        // The message evaluation gives (ConditionValues), so ValidateTemplate says it too.
        return Err(TemplateError::format(format!(
            "Circular dependency between conditions: [{}]",
            cycle.join(", ")
        )));
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
            return Err(Fail::Error(msg::unresolved_condition(name, function)));
        };
        if self.visiting.borrow().iter().any(|n| n == name) {
            let cycle = self.visiting.borrow().clone();
            // Chosen, in the wording of the resources message.
            return Err(Fail::Error(TemplateError::format(format!(
                "Circular dependency between conditions: [{}]",
                cycle.join(", ")
            ))));
        }
        self.visiting.borrow_mut().push(name.to_string());
        let value = self.scope.eval_bool(body, self, 0);
        self.visiting.borrow_mut().pop();
        let value = value?;
        self.memo.borrow_mut().insert(name.to_string(), value);
        Ok(value)
    }
}

fn fail(f: Fail) -> TemplateError {
    match f {
        Fail::Error(e) => e,
        // Conditions and rules see parameters only; an unknown here means a reference the
        // checks above already refuse.
        Fail::Unknown => TemplateError::format(
            "Conditions can only be boolean operations on parameters and other conditions",
        ),
    }
}

struct NoConditions;

impl ConditionLookup for NoConditions {
    fn condition(&self, name: &str, function: &str) -> R<bool> {
        Err(Fail::Error(msg::unresolved_condition(name, function)))
    }
}

/// See [`super::Template::resolve`].
pub(crate) fn resolve(
    inner: &Inner,
    params: &BoundParameters,
    pseudo: &Pseudo,
) -> Result<Resolved, TemplateError> {
    let none: IndexMap<String, ResourceDecl> = IndexMap::new();

    // Rules first: they validate the parameter values (user guide "Rules syntax").
    let mut rule_scope = Scope::new(inner, &none, Block::Rules);
    rule_scope.params = Some(params);
    rule_scope.pseudo = Some(pseudo);
    for (name, rule) in &inner.rules {
        let applies = match &rule.rule_condition {
            None => true,
            Some(c) => rule_scope.eval_bool(c, &NoConditions, 0).map_err(fail)?,
        };
        if !applies {
            continue;
        }
        for assertion in &rule.assertions {
            if !rule_scope
                .eval_bool(&assertion.assert, &NoConditions, 0)
                .map_err(fail)?
            {
                return Err(msg::assertion(
                    name,
                    assertion.assert_description.as_deref(),
                ));
            }
        }
    }

    let sections = foreach::expand(inner, params, pseudo)?;

    // Conditions.
    let mut cond_scope = Scope::new(inner, &none, Block::Conditions);
    cond_scope.params = Some(params);
    cond_scope.pseudo = Some(pseudo);
    check_condition_definitions(inner, &sections.conditions)?;
    let lookup = ConditionValues {
        scope: &cond_scope,
        defs: &sections.conditions,
        memo: RefCell::new(HashMap::new()),
        visiting: RefCell::new(Vec::new()),
    };
    let mut conditions: IndexMap<String, bool> = IndexMap::new();
    for name in sections.conditions.keys() {
        let value = lookup.condition(name, "Condition").map_err(fail)?;
        conditions.insert(name.clone(), value);
    }

    let checked = check_sections(inner, &sections, Some(&conditions))?;

    // Static evaluation: everything that needs no created resource is evaluated now, so its
    // errors (a missing mapping key, an out-of-range Fn::Select) are synchronous.
    let mut active = checked.active;
    {
        let mut scope = Scope::new(inner, &active, Block::Resources);
        scope.params = Some(params);
        scope.pseudo = Some(pseudo);
        scope.conditions = Some(&conditions);
        for res in active.values() {
            probe(&scope, &res.properties)?;
        }
        scope.block = Block::Outputs;
        for out in checked.outputs.values() {
            probe(&scope, &out.value)?;
            if let Some(d) = &out.description {
                probe(&scope, d)?;
            }
            if let Some(e) = &out.export_name {
                probe(&scope, e)?;
            }
        }
    }

    // DeletionPolicy / UpdateReplacePolicy given as intrinsics (AWS::LanguageExtensions).
    if inner.language_extensions {
        let snapshot = active.clone();
        let mut scope = Scope::new(inner, &snapshot, Block::Resources);
        scope.params = Some(params);
        scope.pseudo = Some(pseudo);
        scope.conditions = Some(&conditions);
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
                let expr: Value = serde_json::from_str(text)
                    .map_err(|_| TemplateError::format(format!("[/Resources/{id}/{attribute}] {attribute} must be one of the supported values")))?;
                let value = match scope.eval(&expr, 0) {
                    Ok(Some(Value::String(s))) => s,
                    Ok(None) => {
                        *slot = None;
                        continue;
                    }
                    Ok(_) | Err(Fail::Unknown) => String::new(),
                    Err(Fail::Error(e)) => return Err(e),
                };
                check_policy(&value, attribute, allowed, id)?;
                *slot = Some(value);
            }
        }
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
    })
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
        Err(blocked) => Err(msg::circular(
            &blocked.into_iter().map(str::to_string).collect::<Vec<_>>(),
        )),
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
