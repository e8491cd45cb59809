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
//! Everything here is pure and synchronous: no I/O, no clock, no HTTP. Evaluation is bounded
//! (a fuel budget and a nesting cap, [`limits`]). Every message is AWS's text where AWS's is
//! known; `error::msg` lists them with their sources.
//!
//! Decisions where AWS is silent (each has a test in `tests.rs`):
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
//!   it), in template order.
//! - `AllowedPattern` is matched with the `regex` crate; a Java-only pattern it cannot compile
//!   is not enforced.
//! - `Fn::RefAll`, `Fn::ValueOf` and `Fn::ValueOfAll` in rules see no EC2 data (empty lists).

mod cidr;
mod error;
mod eval;
mod foreach;
mod params;
mod parse;
mod resolve;
mod yaml;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::{EvalError, TemplateError};
pub use eval::{EvaluatedOutput, Evaluator};
pub use params::{BoundParameter, BoundParameters, ParameterType, ShownParameter};

/// AWS's template quotas and Cumulo's evaluation budget.
pub mod limits {
    /// Resources per template (CloudFormation quotas).
    pub const MAX_RESOURCES: usize = 500;
    /// Parameters per template.
    pub const MAX_PARAMETERS: usize = 200;
    /// Outputs per template.
    pub const MAX_OUTPUTS: usize = 200;
    /// Mappings per template.
    pub const MAX_MAPPINGS: usize = 200;
    /// Deepest nesting of intrinsic functions evaluated (Cumulo's cap; AWS documents none).
    pub const MAX_DEPTH: usize = 100;
    /// Evaluation steps allowed per evaluation (minijinja-style fuel).
    pub const FUEL: u64 = 2_000_000;
    /// Most elements `Fn::ForEach` may produce in one template.
    pub const MAX_EXPANSION: usize = 10_000;
}

/// The `AWS::LanguageExtensions` transform name.
pub const LANGUAGE_EXTENSIONS: &str = "AWS::LanguageExtensions";

/// A parsed, structurally valid template. Immutable and cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct Template {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    body: String,
    is_json: bool,
    document: Value,
    processed: Value,
    description: Option<String>,
    metadata: Option<Value>,
    transforms: Vec<String>,
    parameters: IndexMap<String, ParameterDecl>,
    mappings: IndexMap<String, Value>,
    conditions: IndexMap<String, Value>,
    rules: IndexMap<String, RuleDecl>,
    resources: IndexMap<String, ResourceDecl>,
    outputs: IndexMap<String, OutputDecl>,
    language_extensions: bool,
}

/// One entry of `Parameters` (user guide "Parameters syntax").
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterDecl {
    /// The logical name.
    pub key: String,
    /// `Type` as written (`String`, `Number`, `List<Number>`, `CommaDelimitedList`,
    /// `AWS::EC2::VPC::Id`, `AWS::SSM::Parameter::Value<String>`, ...).
    pub type_name: String,
    /// `Type`, classified.
    pub parameter_type: ParameterType,
    /// `Default`, as a string (scalars are turned into their text).
    pub default: Option<String>,
    /// `NoEcho` (`true`/`"true"`): the value shows as `****`.
    pub no_echo: bool,
    /// `AllowedValues`, as strings.
    pub allowed_values: Option<Vec<String>>,
    /// `AllowedPattern`: the whole value (every item of a list) must match.
    pub allowed_pattern: Option<String>,
    /// `MinLength` (characters).
    pub min_length: Option<u64>,
    /// `MaxLength` (characters).
    pub max_length: Option<u64>,
    /// `MinValue` (Number types).
    pub min_value: Option<f64>,
    /// `MaxValue` (Number types).
    pub max_value: Option<f64>,
    /// `Description`.
    pub description: Option<String>,
    /// `ConstraintDescription`: replaces the constraint messages.
    pub constraint_description: Option<String>,
}

/// One entry of `Resources`, as declared (before conditions; intrinsics unresolved).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceDecl {
    /// The logical id (`^[a-zA-Z0-9]+$`).
    pub logical_id: String,
    /// `Type`, e.g. `AWS::Scheduler::Schedule`.
    pub type_name: String,
    /// `Properties`: always a JSON object (empty when absent); intrinsics unresolved.
    pub properties: Value,
    /// `DependsOn`, as a list (a single string becomes a one-element list).
    pub depends_on: Vec<String>,
    /// `Condition`: the name of the condition that must hold for the resource to exist.
    pub condition: Option<String>,
    /// `DeletionPolicy`: `Delete` (when absent), `Retain`, `RetainExceptOnCreate` or `Snapshot`.
    /// `Snapshot` is accepted on every type; on a type without snapshot support
    /// ([`crate::cloudformation::registry::ResourceTypeInfo::supports_snapshot`]) AWS ignores it
    /// and deletes the resource (aws/aws-cdk#20668: "cloudformation ignores the snapshot removal
    /// policy if it is not supported by the resource").
    pub deletion_policy: Option<String>,
    /// `UpdateReplacePolicy`: `Delete`, `Retain` or `Snapshot`.
    pub update_replace_policy: Option<String>,
    /// `Metadata`.
    pub metadata: Option<Value>,
    /// `CreationPolicy`.
    pub creation_policy: Option<Value>,
    /// `UpdatePolicy`.
    pub update_policy: Option<Value>,
}

/// One entry of `Outputs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputDecl {
    /// `Value` (intrinsics unresolved).
    pub value: Value,
    /// `Description` (a string or an intrinsic).
    pub description: Option<Value>,
    /// `Export.Name` (a string or an intrinsic).
    pub export_name: Option<Value>,
    /// `Condition`.
    pub condition: Option<String>,
}

/// One entry of `Rules` (user guide "Rules syntax").
#[derive(Clone, Debug, PartialEq)]
pub struct RuleDecl {
    /// `RuleCondition`: when absent the assertions always apply.
    pub rule_condition: Option<Value>,
    /// `Assertions`, in order.
    pub assertions: Vec<AssertionDecl>,
}

/// One assertion of a rule.
#[derive(Clone, Debug, PartialEq)]
pub struct AssertionDecl {
    /// `Assert`: a rule function that must be true.
    pub assert: Value,
    /// `AssertDescription`: the message when it is false.
    pub assert_description: Option<String>,
}

/// One parameter as the request gives it (CreateStack/UpdateStack/CreateChangeSet
/// `Parameters.member.N`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParameterInput {
    /// `ParameterKey`.
    pub key: String,
    /// `ParameterValue` (absent with `UsePreviousValue`).
    pub value: Option<String>,
    /// `UsePreviousValue`: keep the value the stack has.
    pub use_previous_value: bool,
}

/// What the template language needs from the rest of the emulator while binding parameters.
pub trait Environment {
    /// The value of SSM parameter `name` (for `AWS::SSM::Parameter::Value<...>` types), or
    /// `None` when it does not exist.
    fn ssm_parameter(&self, name: &str) -> Option<String>;
}

/// The pseudo parameters of one stack operation (user guide "Pseudo parameters reference").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pseudo {
    /// `AWS::AccountId`, e.g. `000000000000`.
    pub account_id: String,
    /// `AWS::Region`, e.g. `us-east-1`. `AWS::Partition` and `AWS::URLSuffix` derive from it.
    pub region: String,
    /// `AWS::StackName`.
    pub stack_name: String,
    /// `AWS::StackId`: the stack ARN.
    pub stack_id: String,
    /// `AWS::NotificationARNs`.
    pub notification_arns: Vec<String>,
}

impl Pseudo {
    /// `AWS::Partition`: `aws-cn` for `cn-` regions, `aws-us-gov` for `us-gov-`, else `aws`.
    pub fn partition(&self) -> &'static str {
        if self.region.starts_with("cn-") {
            "aws-cn"
        } else if self.region.starts_with("us-gov-") {
            "aws-us-gov"
        } else {
            "aws"
        }
    }

    /// `AWS::URLSuffix`: `amazonaws.com.cn` in China regions, else `amazonaws.com`.
    pub fn url_suffix(&self) -> &'static str {
        if self.region.starts_with("cn-") {
            "amazonaws.com.cn"
        } else {
            "amazonaws.com"
        }
    }

    /// The value of pseudo parameter `name` (`AWS::Region`, ...); `None` for other names and for
    /// `AWS::NoValue`, which is not a value.
    pub fn value(&self, name: &str) -> Option<Value> {
        let s = |v: &str| Some(Value::String(v.to_string()));
        match name {
            "AWS::AccountId" => s(&self.account_id),
            "AWS::Region" => s(&self.region),
            "AWS::StackName" => s(&self.stack_name),
            "AWS::StackId" => s(&self.stack_id),
            "AWS::Partition" => s(self.partition()),
            "AWS::URLSuffix" => s(self.url_suffix()),
            "AWS::NotificationARNs" => Some(Value::Array(
                self.notification_arns
                    .iter()
                    .map(|a| Value::String(a.clone()))
                    .collect(),
            )),
            _ => None,
        }
    }
}

/// The names `Ref` accepts as pseudo parameters.
pub const PSEUDO_PARAMETERS: &[&str] = &[
    "AWS::AccountId",
    "AWS::NoValue",
    "AWS::NotificationARNs",
    "AWS::Partition",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::URLSuffix",
];

/// True when `name` is a pseudo parameter.
pub fn is_pseudo(name: &str) -> bool {
    PSEUDO_PARAMETERS.contains(&name)
}

/// A template resolved against parameter values: what one create or update works from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolved {
    /// Every condition's value, in template order.
    pub conditions: IndexMap<String, bool>,
    /// The resources whose condition holds, after `Fn::ForEach`, in template order.
    pub resources: IndexMap<String, ResourceDecl>,
    /// Creation order: topological (dependencies first), ties in template order. Deletion runs
    /// it backwards.
    pub order: Vec<String>,
    /// Each resource's direct dependencies (Ref, GetAtt, Sub, DependsOn), first-seen order.
    pub dependencies: IndexMap<String, Vec<String>>,
    /// The parameters each resource's properties reference (Ref, Sub), first-seen order: what
    /// a change set's `ChangeSource: ParameterReference` details name.
    pub parameter_references: IndexMap<String, Vec<String>>,
    /// The outputs whose condition holds, after `Fn::ForEach`, in template order.
    pub outputs: IndexMap<String, OutputDecl>,
    /// The processed template (after `AWS::LanguageExtensions`; the document itself otherwise),
    /// what GetTemplate `TemplateStage=Processed` returns.
    pub processed: Value,
}

/// What the engine knows about created resources, asked for while evaluating.
pub trait ResourceValues {
    /// The `Ref` value (physical id, or what the type's Ref returns) of a created resource.
    fn ref_value(&self, logical_id: &str) -> Option<Value>;
    /// `Fn::GetAtt [logical_id, attribute]` of a created resource.
    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value>;
    /// The value another stack exports under `export_name` (`Fn::ImportValue`).
    fn import_value(&self, export_name: &str) -> Option<String>;
}

impl Template {
    /// Parses `body` (JSON when it is a JSON object, YAML otherwise) and checks its structure:
    /// sections, parameters, mappings, conditions, rules, resources, outputs, logical ids,
    /// resource types against the registry, intrinsic shapes, and every reference that does not
    /// depend on parameter values. Errors are AWS's `Template format error: ...` texts.
    pub fn parse(body: &str) -> Result<Template, TemplateError> {
        parse::parse(body).map(|inner| Template {
            inner: Arc::new(inner),
        })
    }

    /// The `Transform` names `body` declares (a name, a list, or `{Name, ...}` objects), read
    /// without parsing or evaluating anything else: the stack operations check the capability
    /// a transform needs before any evaluation (issue 17). A body that does not load is the
    /// parser's error; a malformed `Transform` is left for [`Template::parse`] to refuse.
    pub fn declared_transforms(body: &str) -> Result<Vec<String>, TemplateError> {
        let (document, _) = parse::load(body)?;
        let items: Vec<&Value> = match document.get("Transform") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.iter().collect(),
            Some(v) => vec![v],
        };
        Ok(items
            .into_iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Object(m) => m.get("Name").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .collect())
    }

    /// The body exactly as given (GetTemplate `Original`: YAML stays YAML).
    pub fn body(&self) -> &str {
        &self.inner.body
    }

    /// The template after `AWS::LanguageExtensions` as far as it goes without parameter values
    /// (GetTemplate `Processed`; [`Resolved::processed`] has the full expansion).
    pub fn processed(&self) -> Value {
        self.inner.processed.clone()
    }

    /// The whole document in long form (short-form tags expanded, key order kept).
    pub fn document(&self) -> &Value {
        &self.inner.document
    }

    /// True when the body is JSON.
    pub fn is_json(&self) -> bool {
        self.inner.is_json
    }

    /// `Description`.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    /// `Metadata`.
    pub fn metadata(&self) -> Option<&Value> {
        self.inner.metadata.as_ref()
    }

    /// `Transform`, as a list (only `AWS::LanguageExtensions` gets past [`Template::parse`]).
    pub fn transforms(&self) -> &[String] {
        &self.inner.transforms
    }

    /// `Parameters`, in template order.
    pub fn parameters(&self) -> &IndexMap<String, ParameterDecl> {
        &self.inner.parameters
    }

    /// `Mappings`, in template order (each an object of objects).
    pub fn mappings(&self) -> &IndexMap<String, Value> {
        &self.inner.mappings
    }

    /// `Conditions`, as declared.
    pub fn conditions(&self) -> &IndexMap<String, Value> {
        &self.inner.conditions
    }

    /// `Rules`, as declared.
    pub fn rules(&self) -> &IndexMap<String, RuleDecl> {
        &self.inner.rules
    }

    /// `Resources` as declared (before conditions and `Fn::ForEach`).
    pub fn resources(&self) -> &IndexMap<String, ResourceDecl> {
        &self.inner.resources
    }

    /// `Outputs` as declared (before conditions and `Fn::ForEach`).
    pub fn outputs(&self) -> &IndexMap<String, OutputDecl> {
        &self.inner.outputs
    }

    /// The distinct resource types declared, in first-seen order (GetTemplateSummary
    /// `ResourceTypes`).
    pub fn resource_types(&self) -> Vec<String> {
        let mut types: Vec<String> = Vec::new();
        for res in self.inner.resources.values() {
            if !types.contains(&res.type_name) {
                types.push(res.type_name.clone());
            }
        }
        types
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
