//! The CloudFormation template language: parsing JSON and YAML templates, binding parameters,
//! resolving conditions, rules, `Fn::ForEach` and the dependency graph, and evaluating
//! intrinsic functions into plain JSON (aws-contract.md §6; the CloudFormation user guide's
//! "Template anatomy" and "Intrinsic function reference").
//!
//! This module is the interface between the template language and the stack engine:
//! - [`Template::parse`] reads a body (JSON, or YAML with every short-form tag turned into its
//!   long form, key order kept) and checks everything that does not need parameter values;
//! - [`Template::bind_parameters`] turns the request's parameters into [`BoundParameters`];
//! - [`Template::resolve`] evaluates rules and conditions, expands `Fn::ForEach`, keeps the
//!   resources and outputs whose condition holds, checks every reference, and orders the
//!   resources ([`Resolved`]);
//! - [`Evaluator`] turns a resource's properties or an output into plain JSON at execution time,
//!   asking the engine for physical ids, attributes and exports through [`ResourceValues`].
//!
//! - [`Template::outline`] runs only the checks that evaluate nothing (for capability checks
//!   that must come first).
//!
//! Layout, in dependency order (each file imports only those before it; `mod.rs` only
//! re-exports and orchestrates): `limits` (quotas and budgets), `error` (kinds and paths),
//! `messages` (every text), `budget` (meters), `yaml`, `cidr`, `params` (declarations and
//! binding), `model` (the template, declarations, [`Resolved`]), `parse` (body →
//! declarations), `eval` and `condition` (the interpreter), `evaluator` ([`Evaluator`]), `refs`
//! (references, without evaluating), `foreach` (`Fn::ForEach`), `graph` (petgraph dependency
//! graphs), `resolve` (references, conditions, rules, the graph).
//!
//! Everything here is pure and synchronous: no I/O, no clock, no HTTP. Evaluation is bounded
//! in steps, nesting and bytes (`budget.rs`, [`limits`]): a template cannot make a request
//! cost more than about its budget. Errors are a [`ErrorKind`] (to branch on) and a
//! [`TemplatePath`]; the message, AWS's text where AWS's is known, is rendered by
//! `messages.rs`, which marks each text's source.
//!
//! Decisions where AWS is silent (each has a test under `tests/`):
//! - YAML scalars are read as CloudFormation's YAML 1.1 does (`yes`/`off` are booleans), and a
//!   number keeps its text unless it prints back identically (`1.10` stays `"1.10"`); see
//!   `yaml.rs`. A body opening with `{` is JSON.
//! - Property values keep their JSON types (numbers, booleans) when they reach a provider;
//!   wherever a string is needed, a scalar's text is used (`true`, `5`).
//! - Transforms other than `AWS::LanguageExtensions` and `Fn::Transform` macros are refused at
//!   parse time, naming the transform (spec README "Decisions").
//! - Parameter-independent reference errors are reported by `parse` (so ValidateTemplate sees
//!   them); the rest by `resolve`. Within a block, undefined GetAtt targets are reported first,
//!   then unresolved names (all of them, first-seen order), then attribute errors.
//! - A cycle is reported with every resource left unordered (the cycle and what depends on
//!   it), in template order; a condition cycle with the conditions on it, in template order.
//! - Cumulo's own evaluation limits where AWS documents none (`limits.rs`).
//! - `AllowedPattern` is matched with the `regex` crate; a Java-only pattern it cannot compile
//!   is not enforced.
//! - `Fn::RefAll`, `Fn::ValueOf` and `Fn::ValueOfAll` in rules see no EC2 data (empty lists).

mod budget;
mod cidr;
mod condition;
mod error;
mod eval;
mod evaluator;
mod foreach;
mod graph;
pub mod limits;
mod messages;
mod model;
mod params;
mod parse;
mod refs;
mod resolve;
mod yaml;

#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use budget::OperationMeter;
pub use error::{
    Block, Budget, CidrProblem, Constraint, ErrorKind, EvalError, Function, Named, Quota,
    TemplateError, TemplatePath,
};
pub use evaluator::{EvaluatedOutput, Evaluator};
pub use model::{
    is_pseudo, AssertionDecl, OutputDecl, Pseudo, Resolved, ResourceDecl, ResourceValues, RuleDecl,
    Template, LANGUAGE_EXTENSIONS, PSEUDO_PARAMETERS,
};
pub use params::{
    BoundParameter, BoundParameters, Environment, ParameterDecl, ParameterInput, ParameterType,
    ShownParameter,
};

/// What the cheap checks of a template body find ([`Template::outline`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outline {
    /// `Transform`, as a list of names (only `AWS::LanguageExtensions` gets past the checks).
    pub transforms: Vec<String>,
}

impl Outline {
    /// True when the template has a transform: CreateStack and UpdateStack need
    /// `CAPABILITY_AUTO_EXPAND` (API reference, CreateStack `Capabilities`); CreateChangeSet does
    /// not ("doesn't apply to creating change sets").
    pub fn requires_auto_expand(&self) -> bool {
        !self.transforms.is_empty()
    }
}

impl Template {
    /// The checks of `body` that evaluate nothing, for callers that must run cheap checks
    /// (capabilities, section names) before any evaluation (issue 17.1): the body is read
    /// (JSON or YAML, AWS's `not well-formed` errors), its top level is a map whose keys are
    /// sections, transforms are ones Cumulo runs, no `Fn::Transform` macro and no `null`
    /// appear, `AWSTemplateFormatVersion` and `Description` are valid. Costs one read of the
    /// body (linear; the body is at most 1,000,000 bytes, `source.rs`); [`Template::parse`]
    /// repeats these checks and reads the body again. Errors are the ones `parse` gives first.
    pub fn outline(body: &str) -> Result<Outline, TemplateError> {
        let (document, _) = parse::load(body)?;
        let (_, transforms) = parse::outline(&document)?;
        Ok(Outline { transforms })
    }

    /// Parses `body` (JSON when it is a JSON object, YAML otherwise) and checks its structure:
    /// sections, parameters, mappings, conditions, rules, resources, outputs, logical ids,
    /// resource types against the registry, intrinsic shapes, and every reference that does not
    /// depend on parameter values. Errors are AWS's `Template format error: ...` texts.
    pub fn parse(body: &str) -> Result<Template, TemplateError> {
        let mut inner = parse::parse(body)?;
        if inner.language_extensions {
            // What can be expanded without parameter values is; references are checked once the
            // values are known (resolve).
            if let Some(sections) = foreach::process_static(&inner)? {
                resolve::check_sections_static(&inner, &sections)?;
                inner.processed = sections.processed;
            }
        } else {
            resolve::check_document(&inner)?;
        }
        Ok(Template {
            inner: Arc::new(inner),
        })
    }

    /// Binds the request's parameters: defaults, `UsePreviousValue` (from `previous`), type
    /// checks, AllowedValues, AllowedPattern, lengths and ranges, and SSM parameter types
    /// through `env`. Errors carry AWS's messages (contract §2.4, §6.3).
    pub fn bind_parameters(
        &self,
        given: &[ParameterInput],
        previous: Option<&BoundParameters>,
        env: &dyn Environment,
    ) -> Result<BoundParameters, TemplateError> {
        params::bind(&self.inner.parameters, given, previous, env)
    }

    /// Resolves the template against bound parameters and pseudo parameters: rules, conditions,
    /// `Fn::ForEach`, the resources and outputs that exist, every reference, and the dependency
    /// graph with its creation order. Errors are synchronous ValidationErrors.
    pub fn resolve(
        &self,
        params: &BoundParameters,
        pseudo: &Pseudo,
    ) -> Result<Resolved, TemplateError> {
        resolve::resolve(&self.inner, params, pseudo)
    }

    /// The capabilities the resolved resources need: `CAPABILITY_IAM` for IAM resources,
    /// `CAPABILITY_NAMED_IAM` instead when one of them sets its name, `CAPABILITY_AUTO_EXPAND`
    /// when the template has a transform (user guide, CreateStack `Capabilities`).
    pub fn required_capabilities(&self, resolved: &Resolved) -> Vec<&'static str> {
        resolve::required_capabilities(&self.inner, resolved).0
    }

    /// ValidateTemplate's `CapabilitiesReason`: `The following resource(s) require
    /// capabilities: [AWS::IAM::Role]`, or `None` when no capability is needed.
    pub fn capabilities_reason(&self, resolved: &Resolved) -> Option<String> {
        let (caps, types) = resolve::required_capabilities(&self.inner, resolved);
        if caps.is_empty() {
            return None;
        }
        if types.is_empty() {
            return Some(format!(
                "The following resource(s) require capabilities: [{}]",
                self.inner.transforms.join(", ")
            ));
        }
        Some(format!(
            "The following resource(s) require capabilities: [{}]",
            types.join(", ")
        ))
    }
}
