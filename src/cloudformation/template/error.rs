//! The errors of the template language: [`TemplateError`] (a synchronous `ValidationError` of
//! CreateStack, UpdateStack, CreateChangeSet and ValidateTemplate) and [`EvalError`] (the
//! failure reason of a resource or output evaluated while a stack operation executes).
//!
//! Each carries an [`ErrorKind`] (what went wrong, with the names the message needs) and the
//! [`TemplatePath`] it concerns (`Resources/Q/Properties/Tags/0/Fn::Sub`). Callers branch on the
//! kind; the AWS message is rendered from kind and path by `Display` (`messages.rs`, the only
//! place the texts are written) and is never matched on. Neither type knows HTTP.

use std::fmt;

/// The template section a reference was found in: AWS words unresolved references per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The Resources section.
    Resources,
    /// The Outputs section.
    Outputs,
    /// The Conditions section (and condition functions).
    Conditions,
    /// Rules (assertions and rule conditions).
    Rules,
}

/// An intrinsic or condition function, named in shape errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `Ref`.
    Ref,
    /// `Fn::Base64`.
    Base64,
    /// `Fn::Cidr`.
    Cidr,
    /// `Fn::FindInMap`.
    FindInMap,
    /// `Fn::GetAtt`.
    GetAtt,
    /// `Fn::GetAZs`.
    GetAzs,
    /// `Fn::If`.
    If,
    /// `Fn::ImportValue`.
    ImportValue,
    /// `Fn::Join`.
    Join,
    /// `Fn::Length`.
    Length,
    /// `Fn::Select`.
    Select,
    /// `Fn::Split`.
    Split,
    /// `Fn::Sub`.
    Sub,
    /// `Fn::ToJsonString`.
    ToJsonString,
    /// `Fn::Equals`.
    Equals,
    /// `Fn::And`.
    And,
    /// `Fn::Or`.
    Or,
    /// `Fn::Not`.
    Not,
    /// `Fn::Contains` (rules).
    Contains,
    /// `Fn::EachMemberEquals` (rules).
    EachMemberEquals,
    /// `Fn::EachMemberIn` (rules).
    EachMemberIn,
}

impl Function {
    /// The name as written in templates (`Fn::Join`).
    pub fn name(self) -> &'static str {
        match self {
            Function::Ref => "Ref",
            Function::Base64 => "Fn::Base64",
            Function::Cidr => "Fn::Cidr",
            Function::FindInMap => "Fn::FindInMap",
            Function::GetAtt => "Fn::GetAtt",
            Function::GetAzs => "Fn::GetAZs",
            Function::If => "Fn::If",
            Function::ImportValue => "Fn::ImportValue",
            Function::Join => "Fn::Join",
            Function::Length => "Fn::Length",
            Function::Select => "Fn::Select",
            Function::Split => "Fn::Split",
            Function::Sub => "Fn::Sub",
            Function::ToJsonString => "Fn::ToJsonString",
            Function::Equals => "Fn::Equals",
            Function::And => "Fn::And",
            Function::Or => "Fn::Or",
            Function::Not => "Fn::Not",
            Function::Contains => "Fn::Contains",
            Function::EachMemberEquals => "Fn::EachMemberEquals",
            Function::EachMemberIn => "Fn::EachMemberIn",
        }
    }
}

/// A declaration whose logical name must be alphanumeric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A `Parameters` member.
    Parameter,
    /// A `Resources` member.
    Resource,
    /// An `Outputs` member.
    Output,
}

/// A template quota (CloudFormation user guide, "Understand CloudFormation quotas").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quota {
    /// Resources per template (500).
    Resources,
    /// Parameters per template (200).
    Parameters,
    /// Outputs per template (200).
    Outputs,
    /// Mappings per template (200).
    Mappings,
}

/// Which constraint of a parameter declaration a value breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// `AllowedValues`.
    AllowedValues,
    /// `AllowedPattern` (the pattern as declared).
    AllowedPattern(String),
    /// `MinLength`.
    MinLength(u64),
    /// `MaxLength`.
    MaxLength(u64),
    /// `MinValue` (as printed: `5`, not `5.0`).
    MinValue(String),
    /// `MaxValue` (as printed).
    MaxValue(String),
}

/// Why `Fn::Cidr`'s arguments cannot make subnets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CidrProblem {
    /// The block is not `address/prefix`.
    Block(String),
    /// The count is not 1 to 256.
    Count,
    /// cidrBits is not 1 to the address width (32 or 128).
    Bits(u32),
    /// Subnets of that many host bits do not fit the block.
    NoRoom {
        /// cidrBits.
        bits: u32,
        /// The block as given.
        block: String,
    },
    /// That many subnets do not fit the block.
    TooMany {
        /// The count.
        count: u32,
        /// cidrBits.
        bits: u32,
        /// The block as given.
        block: String,
    },
}

/// A budget of evaluation (`limits`) that ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Intrinsic functions nested deeper than `limits::MAX_DEPTH`.
    Depth,
    /// More evaluation steps than `limits::FUEL`.
    Steps,
    /// More bytes produced by one evaluation than `limits::EVALUATION_BYTES`.
    Bytes,
    /// More bytes produced over one stack operation's executions than
    /// `limits::OPERATION_BYTES`.
    OperationBytes,
}

/// What went wrong. One variant per message; `Display` on [`TemplateError`] renders AWS's text
/// (or Cumulo's chosen one, marked in `messages.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    // ----- reading the body
    /// The body opens with `{` but is not JSON.
    JsonNotWellFormed {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// The body is not YAML.
    YamlNotWellFormed {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A YAML alias (`*name`).
    YamlAlias {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// The document is not a map.
    UnsupportedStructure,
    /// A `null` anywhere (the path says where).
    NullValue,

    // ----- top-level sections
    /// Top-level keys that are not sections.
    InvalidSections(Vec<String>),
    /// `AWSTemplateFormatVersion` other than `2010-09-09`.
    UnsupportedFormatVersion,
    /// `Description` is not a string.
    DescriptionNotString,
    /// `Description` is longer than `limits::MAX_DESCRIPTION_BYTES`.
    DescriptionTooLong {
        /// The quota in bytes.
        max: usize,
    },
    /// A section that must be a map is not.
    SectionNotObject(String),
    /// A `Transform` entry object without `Name`.
    TransformWithoutName,
    /// `Transform` is neither a name nor a list.
    TransformShape,
    /// A transform or macro Cumulo does not run.
    UnsupportedTransform(String),
    /// More declarations than a quota allows.
    Quota {
        /// Which quota.
        quota: Quota,
        /// How many the template declares.
        count: usize,
        /// The quota.
        max: usize,
    },
    /// A logical name that is not `^[a-zA-Z0-9]+$` (or longer than 255 characters).
    NonAlphanumeric {
        /// What is named.
        what: Named,
        /// The name.
        name: String,
    },

    // ----- Parameters
    /// A `Parameters` member that is not a map.
    ParameterNotObject,
    /// An unknown key in a parameter declaration.
    InvalidParameterProperty(String),
    /// A parameter without `Type`.
    ParameterWithoutType,
    /// A `Type` CloudFormation does not know.
    UnrecognizedParameterType(String),
    /// A declaration member (`Default`, `Description`, ...) that must be a string.
    MemberNotString(String),
    /// A declaration member (`MinValue`, ...) that must be a number.
    MemberNotNumber(String),
    /// A declaration member (`MinLength`, ...) that must be a non-negative integer.
    MemberNotCount(String),
    /// `AllowedValues` is not a list.
    AllowedValuesNotList,
    /// An `AllowedValues` item is not a scalar.
    AllowedValueNotString,

    // ----- Mappings, Conditions, Rules
    /// A mapping (or a mapping's key) that is not a map.
    MappingNotMap(String),
    /// A mapping attribute that is neither a scalar nor a list of scalars.
    MappingAttributeShape,
    /// A `Conditions` member that is not a map.
    ConditionNotObject(String),
    /// A `Rules` member that is not a map.
    RuleNotObject(String),
    /// An unknown key in a rule.
    InvalidRuleProperty {
        /// The key.
        key: String,
        /// The rule.
        rule: String,
    },
    /// A rule without an `Assertions` list.
    RuleWithoutAssertions(String),
    /// An assertion without `Assert`.
    AssertionWithoutAssert(String),
    /// An `AssertDescription` that is not a string.
    AssertDescriptionNotString(String),

    // ----- Resources and Outputs
    /// No resources.
    NoResources,
    /// A `Resources` member that is not a map.
    ResourceNotObject,
    /// A resource without `Type` (the path names it).
    ResourceWithoutType,
    /// An unknown resource attribute key.
    InvalidResourceProperty(String),
    /// `Properties` is not a map (the path names it).
    PropertiesNotObject,
    /// `DependsOn` is neither a name nor a list of names.
    DependsOnShape,
    /// `Condition` is not a string.
    ConditionNotString,
    /// A DeletionPolicy or UpdateReplacePolicy value that is not allowed (the path names it).
    UnsupportedPolicy(String),
    /// An output without `Value` (or not a map).
    OutputWithoutValue,
    /// An unknown key in an output.
    InvalidOutputProperty(String),
    /// `Export` without `Name` (the path names it).
    ExportWithoutName,
    /// Resource types the registry does not know.
    UnrecognizedResourceTypes(Vec<String>),

    // ----- parameter values
    /// Parameters given to a template that declares none.
    ParametersNotExpected,
    /// Parameters given that the template does not declare.
    ParametersNotInTemplate(Vec<String>),
    /// `UsePreviousValue` for a parameter the previous template did not have.
    NoPreviousValue(String),
    /// Parameters without a value or a default.
    ParametersMissing(Vec<String>),
    /// A Number parameter whose value is not a number.
    ParameterNotNumber(String),
    /// A value that breaks a declared constraint; `description` is the ConstraintDescription,
    /// which replaces the message.
    ParameterConstraint {
        /// The parameter.
        key: String,
        /// The constraint broken.
        constraint: Constraint,
        /// `ConstraintDescription`.
        description: Option<String>,
    },
    /// A value larger than `limits::MAX_PARAMETER_VALUE_BYTES`.
    ParameterValueTooLarge {
        /// The parameter.
        key: String,
        /// The quota in bytes.
        max: usize,
    },
    /// SSM parameters that do not exist.
    SsmParametersUnfetched(Vec<String>),

    // ----- references, conditions and the graph
    /// Names that resolve to nothing in `block`.
    Unresolved {
        /// The names, first-seen order.
        names: Vec<String>,
        /// Where they were used.
        block: Block,
    },
    /// Resources on a dependency cycle and those depending on it, template order.
    CircularResources(Vec<String>),
    /// Conditions on a cycle, template order.
    CircularConditions(Vec<String>),
    /// A condition name that is not declared.
    UnresolvedCondition {
        /// The name.
        name: String,
        /// Where it was used (`Fn::If`, `Condition`, `Resources`, `Outputs`).
        function: String,
    },
    /// A condition that is not a boolean operation on parameters and conditions.
    ConditionsBoolean,
    /// A condition or rule function outside Conditions, Rules and `Fn::If`.
    ConditionFunctionOutside(String),
    /// A rule assertion that does not hold.
    AssertionFailed {
        /// The rule.
        rule: String,
        /// Its `AssertDescription`.
        description: Option<String>,
    },

    // ----- intrinsic functions
    /// A function name CloudFormation does not know (or one needing `AWS::LanguageExtensions`).
    UnsupportedFunction {
        /// The name.
        name: String,
        /// Whether the template declares `AWS::LanguageExtensions`.
        language_extensions: bool,
    },
    /// A function's arguments do not have its shape.
    Shape(Function),
    /// `Fn::GetAtt` of a resource that is not declared.
    GetAttUndefined(String),
    /// `Fn::GetAtt` of an attribute the resource type does not have.
    GetAttAttribute {
        /// The resource.
        resource: String,
        /// The attribute.
        attribute: String,
    },
    /// An output's `Fn::GetAtt` of an attribute the type does not have (found at execution).
    OutputGetAttAttribute {
        /// The output.
        output: String,
        /// The resource type.
        type_name: String,
        /// The attribute.
        attribute: String,
    },
    /// `Fn::ImportValue` whose name depends on a resource, an import or `Fn::GetAZs`.
    ImportValueDependsOnResource,
    /// No export of that name (at execution).
    ExportMissing(String),
    /// `Fn::Select` out of range (or not a number).
    SelectIndex(String),
    /// `Fn::FindInMap` of keys that are not in the mapping.
    MappingMissing {
        /// The mapping.
        map: String,
        /// The top-level key.
        top: String,
        /// The second-level key.
        second: String,
    },
    /// A `${...}` in `Fn::Sub` that is not a variable name.
    SubVariableName,
    /// A `Fn::Sub` variable that is a list or a map.
    SubNotString(String),
    /// `Fn::Cidr` arguments that make no subnets.
    Cidr(CidrProblem),

    // ----- Fn::ForEach (AWS::LanguageExtensions)
    /// A loop that is not `[identifier, collection, {key: fragment}]`.
    ForEachShape(String),
    /// A loop producing a key its object already has.
    ForEachDuplicateKey {
        /// The loop (`Fn::ForEach::Name`).
        name: String,
        /// The key.
        key: String,
    },
    /// A collection that is not a list of strings.
    ForEachCollection,
    /// The processed template is larger than AWS processes (`limits::MAX_TEMPLATE_BYTES`), or a
    /// loop makes more than `limits::MAX_EXPANSION` copies.
    TransformationDataLimit,

    // ----- budgets
    /// One intrinsic function's value is larger than `limits::MAX_VALUE_BYTES`.
    ValueTooLarge {
        /// The function.
        function: Function,
        /// The limit in bytes.
        max: usize,
    },
    /// An evaluation budget ran out.
    Budget(Budget),

    // ----- execution
    /// A value the engine cannot give yet (a resource not created).
    NotAvailable,
    /// A resource the resolved template does not have.
    ResourceNotInStack(String),
    /// An output the resolved template does not have.
    OutputNotInStack(String),
}

/// Where in the template an error is: the keys and list indices from the document's root
/// (`Resources/Q/Properties/Tags/0/Fn::Sub`). Empty when the error concerns the whole template.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplatePath(Vec<String>);

impl TemplatePath {
    /// The segments, root first.
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// True when the error concerns the whole template.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for TemplatePath {
    /// The segments joined with `/` (`Resources/Q/Properties`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("/"))
    }
}

/// A template or parameter problem found before anything is created. `Display` is AWS's
/// message; the wire layer sends it as a `ValidationError` (HTTP 400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    kind: ErrorKind,
    path: TemplatePath,
}

impl std::error::Error for TemplateError {}

impl TemplateError {
    /// An error of `kind` concerning the whole template (callers add the path as it unwinds).
    pub fn new(kind: ErrorKind) -> TemplateError {
        TemplateError {
            kind,
            path: TemplatePath::default(),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Where: the template path the error concerns (empty for the whole template).
    pub fn path(&self) -> &TemplatePath {
        &self.path
    }

    /// The error with `segments` put in front of its path (the caller's position).
    pub fn under<S: AsRef<str>>(mut self, segments: &[S]) -> TemplateError {
        if !segments.is_empty() {
            let mut path: Vec<String> = segments.iter().map(|s| s.as_ref().to_string()).collect();
            path.append(&mut self.path.0);
            self.path.0 = path;
        }
        self
    }

    /// The error with one segment put in front of its path.
    pub fn under_key(self, segment: &str) -> TemplateError {
        self.under(&[segment])
    }
}

impl From<ErrorKind> for TemplateError {
    fn from(kind: ErrorKind) -> TemplateError {
        TemplateError::new(kind)
    }
}

/// A failure while evaluating a resource's properties or an output during execution.
/// `Display` is the reason the stack event carries (for example `No export named X found.`);
/// the engine appends AWS's ` Rollback requested by user.` where AWS does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError(TemplateError);

impl std::error::Error for EvalError {}

impl EvalError {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        self.0.kind()
    }

    /// Where (the resource's or output's path).
    pub fn path(&self) -> &TemplatePath {
        self.0.path()
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<TemplateError> for EvalError {
    fn from(err: TemplateError) -> EvalError {
        EvalError(err)
    }
}

impl From<ErrorKind> for EvalError {
    fn from(kind: ErrorKind) -> EvalError {
        EvalError(TemplateError::new(kind))
    }
}

impl From<EvalError> for TemplateError {
    fn from(err: EvalError) -> TemplateError {
        err.0
    }
}
