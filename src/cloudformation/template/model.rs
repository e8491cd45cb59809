//! The parsed template and what resolving it gives: [`Template`] (immutable, shared), its
//! declarations (resources, outputs, rules), the pseudo parameters of one operation,
//! [`Resolved`], and the [`ResourceValues`] the engine answers while evaluating. Plain data and
//! accessors: parsing, binding and resolving live in their own modules, so this one imports
//! none of them but `params` (the parameter declarations it holds).

use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::budget::OperationMeter;
use super::params::ParameterDecl;

/// The `AWS::LanguageExtensions` transform name.
pub const LANGUAGE_EXTENSIONS: &str = "AWS::LanguageExtensions";

/// A parsed, structurally valid template. Immutable and cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct Template {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) body: String,
    pub(crate) is_json: bool,
    pub(crate) document: Value,
    pub(crate) processed: Value,
    pub(crate) description: Option<String>,
    pub(crate) metadata: Option<Value>,
    pub(crate) transforms: Vec<String>,
    pub(crate) parameters: IndexMap<String, ParameterDecl>,
    pub(crate) mappings: IndexMap<String, Value>,
    pub(crate) conditions: IndexMap<String, Value>,
    pub(crate) rules: IndexMap<String, RuleDecl>,
    pub(crate) resources: IndexMap<String, ResourceDecl>,
    pub(crate) outputs: IndexMap<String, OutputDecl>,
    pub(crate) language_extensions: bool,
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
    /// What the execution-time evaluations of this operation have produced so far (every
    /// [`super::Evaluator`] made from this value charges it; not stored).
    #[serde(skip)]
    pub meter: OperationMeter,
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
}
