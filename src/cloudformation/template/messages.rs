//! The texts: `Display` for [`TemplateError`], rendering each [`ErrorKind`] (and, where AWS
//! prints one, its path) as AWS words it. This is the only place a message is written.
//!
//! Sources, noted on each arm: "AWS" = aws-contract.md quoting real AWS output or a public
//! report (cited), "recorded" = the aws-recorded snapshots, "chosen" = not found anywhere,
//! picked to read like AWS's neighbouring messages (listed in `docs/cloudformation.md`).

use std::fmt;

use super::error::{
    Block, Budget, CidrProblem, Constraint, ErrorKind, Function, Named, Quota, TemplateError,
    TemplatePath,
};
use super::limits;

/// `Template format error: ` (AWS's prefix of structural errors).
const FORMAT: &str = "Template format error: ";
/// `Template error: ` (AWS's prefix of intrinsic-function errors).
const TEMPLATE: &str = "Template error: ";

/// `[/A/B] ` for a non-empty path (AWS's location prefix), else nothing.
struct Where<'a>(&'a TemplatePath);

impl fmt::Display for Where<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "[/{}] ", self.0)
        }
    }
}

/// `[/A/B/Fn::X] ` for a non-empty path cut after its first function: where the expression
/// begins (a path 100 functions deep stays readable; [`TemplateError::path`] has all of it).
struct Outermost<'a>(&'a TemplatePath);

impl fmt::Display for Outermost<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let segments = self.0.segments();
        if segments.is_empty() {
            return Ok(());
        }
        let end = segments
            .iter()
            .position(|s| s == "Ref" || s.starts_with("Fn::"))
            .map_or(segments.len(), |i| i + 1);
        write!(f, "[/{}] ", segments[..end].join("/"))
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = Where(self.path());
        match self.kind() {
            // AWS (contract §6.4): `JSON not well-formed. (line 1, column 25)`.
            ErrorKind::JsonNotWellFormed { line, column } => write!(
                f,
                "{FORMAT}JSON not well-formed. (line {line}, column {column})"
            ),
            // AWS (contract §6.4).
            ErrorKind::YamlNotWellFormed { line, column } => write!(
                f,
                "{FORMAT}YAML not well-formed. (line {line}, column {column})"
            ),
            // Chosen (the user guide lists aliases as unsupported).
            ErrorKind::YamlAlias { line, column } => write!(
                f,
                "{FORMAT}YAML aliases are not allowed in CloudFormation templates (line {line}, column {column})"
            ),
            // Recorded (a macro returning a non-object).
            ErrorKind::UnsupportedStructure => write!(f, "{FORMAT}unsupported structure."),
            // AWS (contract §6.3): `[/Outputs/MyOutput/Value] 'null' values are not allowed in
            // templates`, without the prefix.
            ErrorKind::NullValue => {
                write!(f, "[/{}] 'null' values are not allowed in templates", self.path())
            }
            ErrorKind::ValueTooLarge { .. } | ErrorKind::Budget(_) => {
                render_budget(f, self.kind(), &Outermost(self.path()))
            }
            other => render_sections(f, other, &at),
        }
    }
}

fn list(names: &[String]) -> String {
    names.join(", ")
}

/// Top-level sections, quotas and names.
fn render_sections(f: &mut fmt::Formatter<'_>, kind: &ErrorKind, at: &Where<'_>) -> fmt::Result {
    match kind {
        // AWS (widely reported).
        ErrorKind::InvalidSections(names) => write!(
            f,
            "{FORMAT}Invalid template property or properties [{}]",
            list(names)
        ),
        // Eucalyptus's AWS-compatible text (AWS's own is unrecorded).
        ErrorKind::UnsupportedFormatVersion => {
            write!(f, "{FORMAT}unsupported value for AWSTemplateFormatVersion.")
        }
        // Chosen.
        ErrorKind::DescriptionNotString => {
            write!(f, "{FORMAT}Every Description member must be a string.")
        }
        // AWS (reported: zalando-stups/senza#319).
        ErrorKind::DescriptionTooLong { max } => {
            write!(f, "{FORMAT}'Description' length is greater than {max}.")
        }
        // Chosen, in the wording of `Any Resources member must be an object.`.
        ErrorKind::SectionNotObject(name) => {
            write!(f, "{FORMAT}The {name} section must be an object.")
        }
        // Chosen.
        ErrorKind::TransformWithoutName => {
            write!(f, "{FORMAT}Every Transform member must contain a Name.")
        }
        // Chosen.
        ErrorKind::TransformShape => write!(
            f,
            "{FORMAT}Transform must be a string or a list of strings."
        ),
        // Chosen: Cumulo runs no macros, so a transform it cannot expand is refused before any
        // stack or change set exists.
        ErrorKind::UnsupportedTransform(name) => write!(
            f,
            "{FORMAT}Transform {name} is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"
        ),
        ErrorKind::Quota { quota, count, max } => match quota {
            // AWS (reported: aws-amplify/amplify-cli#151, #185).
            Quota::Resources => write!(
                f,
                "{FORMAT}Number of resources, {count}, is greater than maximum allowed, {max}"
            ),
            // AWS (reported: aditmalik-synechron/serverless-nested-stack#5).
            Quota::Outputs => write!(
                f,
                "{FORMAT}Outputs count {count} is greater than max allowed {max}"
            ),
            // Chosen, in the Outputs wording.
            Quota::Parameters => write!(
                f,
                "{FORMAT}Parameters count {count} is greater than max allowed {max}"
            ),
            // Chosen, in the Outputs wording.
            Quota::Mappings => write!(
                f,
                "{FORMAT}Mappings count {count} is greater than max allowed {max}"
            ),
        },
        // AWS (contract §6.1) for parameters and resources; chosen for outputs.
        ErrorKind::NonAlphanumeric { what, name } => {
            let what = match what {
                Named::Parameter => "Parameter",
                Named::Resource => "Resource",
                Named::Output => "Output",
            };
            write!(f, "{FORMAT}{what} name {name} is non alphanumeric.")
        }
        other => render_declarations(f, other, at),
    }
}

/// Parameters, Mappings, Conditions and Rules declarations.
fn render_declarations(
    f: &mut fmt::Formatter<'_>,
    kind: &ErrorKind,
    at: &Where<'_>,
) -> fmt::Result {
    match kind {
        // Chosen, in the wording of `Any Resources member must be an object.`.
        ErrorKind::ParameterNotObject => {
            write!(f, "{FORMAT}Any Parameters member must be an object.")
        }
        // AWS (reported).
        ErrorKind::InvalidParameterProperty(key) => {
            write!(f, "{FORMAT}Invalid template parameter property '{key}'")
        }
        // AWS (contract §6.3).
        ErrorKind::ParameterWithoutType => write!(
            f,
            "{FORMAT}Every Parameters object must contain a Type member."
        ),
        // Reported (Eucalyptus's AWS-compatible text).
        ErrorKind::UnrecognizedParameterType(name) => {
            write!(f, "{FORMAT}Unrecognized parameter type: {name}")
        }
        // Chosen.
        ErrorKind::MemberNotString(name) => {
            write!(f, "{FORMAT}Every {name} member must be a string.")
        }
        // Chosen.
        ErrorKind::MemberNotNumber(name) => {
            write!(f, "{FORMAT}Every {name} member must be a number.")
        }
        // Chosen.
        ErrorKind::MemberNotCount(name) => write!(
            f,
            "{FORMAT}Every {name} member must be a non-negative integer."
        ),
        // AWS (contract §6.3).
        ErrorKind::AllowedValuesNotList => {
            write!(f, "{FORMAT}Every AllowedValues member must be a list.")
        }
        // Chosen.
        ErrorKind::AllowedValueNotString => {
            write!(f, "{FORMAT}Every AllowedValues value must be a string.")
        }
        // AWS (contract §6.2): `Every Mappings member A must be a map`.
        ErrorKind::MappingNotMap(name) => {
            write!(f, "{FORMAT}Every Mappings member {name} must be a map")
        }
        // AWS (contract §6.2).
        ErrorKind::MappingAttributeShape => write!(
            f,
            "{FORMAT}Every Mappings attribute must be a String or a List."
        ),
        // Chosen, in the wording of `Any Resources member must be an object.`.
        ErrorKind::ConditionNotObject(name) => write!(
            f,
            "{FORMAT}Every Conditions member must be an object: {name}"
        ),
        // Chosen messages, in the Resources wording.
        ErrorKind::RuleNotObject(name) => {
            write!(f, "{FORMAT}Every Rules member must be an object: {name}")
        }
        ErrorKind::InvalidRuleProperty { key, rule } => {
            write!(f, "{FORMAT}Invalid rule property '{key}' in rule {rule}")
        }
        ErrorKind::RuleWithoutAssertions(rule) => write!(
            f,
            "{FORMAT}Every Rules member must contain an Assertions list: {rule}"
        ),
        ErrorKind::AssertionWithoutAssert(rule) => write!(
            f,
            "{FORMAT}Every Assertions member must contain an Assert object: {rule}"
        ),
        ErrorKind::AssertDescriptionNotString(rule) => write!(
            f,
            "{FORMAT}Every AssertDescription must be a string: {rule}"
        ),
        other => render_resources(f, other, at),
    }
}

/// Resources and Outputs declarations.
fn render_resources(f: &mut fmt::Formatter<'_>, kind: &ErrorKind, at: &Where<'_>) -> fmt::Result {
    match kind {
        // AWS (contract §6.4).
        ErrorKind::NoResources => {
            write!(f, "{FORMAT}At least one Resources member must be defined.")
        }
        // Recorded.
        ErrorKind::ResourceNotObject => {
            write!(f, "{FORMAT}Any Resources member must be an object.")
        }
        // AWS (contract §6.4): `[/Resources/A] Every Resources object must contain a Type member.`
        ErrorKind::ResourceWithoutType => write!(
            f,
            "{FORMAT}{at}Every Resources object must contain a Type member."
        ),
        // AWS (contract §6.3), without the prefix.
        ErrorKind::InvalidResourceProperty(key) => {
            write!(f, "Invalid template resource property '{key}'")
        }
        // Chosen.
        ErrorKind::PropertiesNotObject => {
            write!(f, "{FORMAT}{at}Every Properties member must be an object.")
        }
        // AWS (reported).
        ErrorKind::DependsOnShape => {
            write!(f, "{FORMAT}DependsOn must be a string or list of strings.")
        }
        // AWS (reported).
        ErrorKind::ConditionNotString => {
            write!(f, "{FORMAT}Every Condition member must be a string.")
        }
        // Chosen (AWS's text is unrecorded).
        ErrorKind::UnsupportedPolicy(attribute) => write!(
            f,
            "{FORMAT}{at}{attribute} must be one of the supported values"
        ),
        // AWS (contract §6.3).
        ErrorKind::OutputWithoutValue => write!(
            f,
            "{FORMAT}Every Outputs member must contain a Value object"
        ),
        // Chosen, in the wording of the resource-property message.
        ErrorKind::InvalidOutputProperty(key) => {
            write!(f, "{FORMAT}Invalid template output property '{key}'")
        }
        // Chosen.
        ErrorKind::ExportWithoutName => {
            write!(f, "{FORMAT}{at}Every Export member must contain a Name")
        }
        // AWS (reported, contract §6.4): every unknown type listed.
        ErrorKind::UnrecognizedResourceTypes(types) => {
            write!(f, "{FORMAT}Unrecognized resource types: [{}]", list(types))
        }
        other => render_values(f, other),
    }
}

/// Parameter values.
fn render_values(f: &mut fmt::Formatter<'_>, kind: &ErrorKind) -> fmt::Result {
    match kind {
        // AWS (reported, contract §2.4).
        ErrorKind::ParametersNotExpected => write!(
            f,
            "Parameter values specified for a template which does not require them."
        ),
        // AWS (contract §2.4).
        ErrorKind::ParametersNotInTemplate(names) => write!(
            f,
            "Parameters: [{}] do not exist in the template",
            list(names)
        ),
        // Unverified (contract §2.4; several emulators agree).
        ErrorKind::NoPreviousValue(key) => write!(
            f,
            "Invalid input for parameter key {key}. Cannot specify usePreviousValue as true for a parameter key not in the previous template"
        ),
        // Recorded: `Parameters: [Input] must have values`.
        ErrorKind::ParametersMissing(names) => {
            write!(f, "Parameters: [{}] must have values", list(names))
        }
        // AWS (contract §2.4).
        ErrorKind::ParameterNotNumber(key) => write!(f, "Parameter '{key}' must be a number."),
        ErrorKind::ParameterConstraint {
            key,
            constraint,
            description,
        } => match (description, constraint) {
            // AWS (reported, contract §2.4).
            (Some(desc), _) => write!(f, "Parameter {key} failed to satisfy constraint: {desc}"),
            // AWS (reported; acceptance test_cfn_deploy).
            (None, Constraint::AllowedValues) => {
                write!(f, "Parameter '{key}' must be one of AllowedValues")
            }
            // AWS (measured by another emulator, contract §2.4).
            (None, Constraint::AllowedPattern(p)) => {
                write!(f, "Parameter '{key}' must match pattern {p}")
            }
            // Unverified (contract §2.4), the four below.
            (None, Constraint::MinLength(n)) => {
                write!(f, "Parameter '{key}' must contain at least {n} characters")
            }
            (None, Constraint::MaxLength(n)) => {
                write!(f, "Parameter '{key}' must contain at most {n} characters")
            }
            (None, Constraint::MinValue(n)) => {
                write!(f, "Parameter '{key}' must be a number not less than {n}")
            }
            (None, Constraint::MaxValue(n)) => {
                write!(f, "Parameter '{key}' must be a number not greater than {n}")
            }
        },
        // Chosen (the quota is AWS's: "Parameter value: 4,096 bytes").
        ErrorKind::ParameterValueTooLarge { key, max } => write!(
            f,
            "Parameter '{key}' must not be longer than {max} bytes"
        ),
        // AWS (contract §2.4).
        ErrorKind::SsmParametersUnfetched(names) => write!(
            f,
            "Unable to fetch parameters [{}] from parameter store for this account.",
            names.join(",")
        ),
        other => render_references(f, other),
    }
}

/// References, conditions and rules.
fn render_references(f: &mut fmt::Formatter<'_>, kind: &ErrorKind) -> fmt::Result {
    match kind {
        // AWS (contract §6.2, §6.3; acceptance `bad_unresolved_ref`).
        ErrorKind::Unresolved { names, block } => {
            let names = list(names);
            match block {
                // AWS (LS engine/test_conditions): no prefix in the Outputs variant.
                Block::Outputs => write!(
                    f,
                    "Unresolved resource dependencies [{names}] in the Outputs block of the template"
                ),
                // AWS (widely reported).
                Block::Conditions => write!(
                    f,
                    "{FORMAT}Unresolved dependencies [{names}]. Cannot reference resources in the Conditions block of the template"
                ),
                // Chosen, in the Conditions wording.
                Block::Rules => write!(
                    f,
                    "{FORMAT}Unresolved dependencies [{names}]. Cannot reference resources in the Rules block of the template"
                ),
                Block::Resources => write!(
                    f,
                    "{FORMAT}Unresolved resource dependencies [{names}] in the Resources block of the template"
                ),
            }
        }
        // AWS (reported; contract §6.3).
        ErrorKind::CircularResources(names) => write!(
            f,
            "Circular dependency between resources: [{}]",
            list(names)
        ),
        // Chosen, in the wording of the resources message.
        ErrorKind::CircularConditions(names) => write!(
            f,
            "{FORMAT}Circular dependency between conditions: [{}]",
            list(names)
        ),
        // AWS (contract §6.2).
        ErrorKind::UnresolvedCondition { name, function } => write!(
            f,
            "{TEMPLATE}unresolved condition dependency {name} in {function}"
        ),
        // AWS (widely reported).
        ErrorKind::ConditionsBoolean => write!(
            f,
            "{FORMAT}Conditions can only be boolean operations on parameters and other conditions"
        ),
        // Chosen: condition and rule functions belong to Conditions, Rules and Fn::If.
        ErrorKind::ConditionFunctionOutside(name) => write!(
            f,
            "{TEMPLATE}{name} can only be used in the Conditions and Rules sections"
        ),
        // AWS (reported): the AssertDescription; without one, chosen.
        ErrorKind::AssertionFailed { rule, description } => match description {
            Some(text) => f.write_str(text),
            None => write!(f, "{TEMPLATE}Assertion failed for rule {rule}."),
        },
        other => render_functions(f, other),
    }
}

/// Intrinsic functions.
fn render_functions(f: &mut fmt::Formatter<'_>, kind: &ErrorKind) -> fmt::Result {
    match kind {
        // AWS (a widely quoted message; the function list as AWS prints it).
        ErrorKind::UnsupportedFunction {
            name,
            language_extensions,
        } => {
            let mut names = vec![
                "Fn::Base64",
                "Fn::GetAtt",
                "Fn::GetAZs",
                "Fn::ImportValue",
                "Fn::Join",
                "Fn::Split",
                "Fn::FindInMap",
                "Fn::Select",
                "Ref",
                "Fn::Equals",
                "Fn::If",
                "Fn::Not",
                "Condition",
                "Fn::And",
                "Fn::Or",
                "Fn::Contains",
                "Fn::EachMemberEquals",
                "Fn::EachMemberIn",
                "Fn::ValueOf",
                "Fn::ValueOfAll",
                "Fn::RefAll",
                "Fn::Sub",
                "Fn::Cidr",
            ];
            if *language_extensions {
                names.extend(["Fn::Length", "Fn::ToJsonString", "Fn::ForEach"]);
            }
            write!(
                f,
                "{FORMAT}Encountered unsupported function: {name} Supported functions are: [{}]",
                names.join(", ")
            )
        }
        ErrorKind::Shape(function) => write!(f, "{TEMPLATE}{}", shape(*function)),
        // AWS (contract §6.2).
        ErrorKind::GetAttUndefined(resource) => write!(
            f,
            "{TEMPLATE}instance of Fn::GetAtt references undefined resource {resource}"
        ),
        // AWS (contract §6.2; acceptance `bad_getatt_attribute`).
        ErrorKind::GetAttAttribute {
            resource,
            attribute,
        } => write!(
            f,
            "{TEMPLATE}resource {resource} does not support attribute type {attribute} in Fn::GetAtt"
        ),
        // Recorded (LS engine/test_attributes): reported when the output is evaluated.
        ErrorKind::OutputGetAttAttribute {
            output,
            type_name,
            attribute,
        } => write!(
            f,
            "[Error] /Outputs/{output}/Value/Fn::GetAtt: Resource type {type_name} does not support attribute {{{attribute}}}."
        ),
        // AWS (reported).
        ErrorKind::ImportValueDependsOnResource => write!(
            f,
            "{TEMPLATE}the attribute in Fn::ImportValue must not depend on any resources, imported values, or Fn::GetAZs"
        ),
        // AWS (reported; LS snapshot): an execution failure, never a synchronous error.
        ErrorKind::ExportMissing(name) => write!(f, "No export named {name} found."),
        // AWS (contract §6.2).
        ErrorKind::SelectIndex(index) => write!(
            f,
            "{TEMPLATE}Fn::Select cannot select nonexistent value at index {index}"
        ),
        // AWS (contract §6.2).
        ErrorKind::MappingMissing { map, top, second } => write!(
            f,
            "{TEMPLATE}Unable to get mapping for {map}::{top}::{second}"
        ),
        // AWS (reported).
        ErrorKind::SubVariableName => write!(
            f,
            "{TEMPLATE}variable names in Fn::Sub syntax must contain only alphanumeric characters, underscores, periods, and colons"
        ),
        // AWS (reported): a variable that is a list or a map.
        ErrorKind::SubNotString(name) => write!(
            f,
            "{TEMPLATE}variable {name} in Fn::Sub expression does not resolve to a string"
        ),
        ErrorKind::Cidr(problem) => write!(f, "{TEMPLATE}Fn::Cidr {}", cidr(problem)),
        other => render_expansion(f, other),
    }
}

/// `Fn::ForEach` and execution.
fn render_expansion(f: &mut fmt::Formatter<'_>, kind: &ErrorKind) -> fmt::Result {
    match kind {
        // Chosen (AWS's is unrecorded).
        ErrorKind::ForEachShape(name) => write!(
            f,
            "{FORMAT}{name} requires a list of three elements: an identifier, a collection and a map of output keys to fragments"
        ),
        // Chosen.
        ErrorKind::ForEachDuplicateKey { name, key } => write!(
            f,
            "{FORMAT}{name} produces the key {key}, which is already defined"
        ),
        // Chosen.
        ErrorKind::ForEachCollection => write!(
            f,
            "{FORMAT}Fn::ForEach collections must be lists of strings"
        ),
        // AWS (the user guide, "Troubleshoot the processed template": a transform whose
        // processed template is over the size CloudFormation processes).
        ErrorKind::TransformationDataLimit => f.write_str("Transformation data limit exceeded"),
        // Chosen.
        ErrorKind::NotAvailable => write!(
            f,
            "{TEMPLATE}a referenced resource or value is not available yet"
        ),
        // Chosen.
        ErrorKind::ResourceNotInStack(id) => write!(f, "Resource {id} is not part of the stack"),
        // Chosen.
        ErrorKind::OutputNotInStack(key) => write!(f, "Output {key} is not part of the stack"),
        // The kinds rendered by the callers above never reach here.
        other => write!(f, "{other:?}"),
    }
}

/// The shape message of each function (after `Template error: `).
fn shape(function: Function) -> String {
    match function {
        // AWS (contract §6.2), the four below.
        Function::GetAtt => "every Fn::GetAtt object requires two non-empty parameters, the resource name and the resource attribute".into(),
        Function::Join => "every Fn::Join object requires two parameters, (1) a string delimiter and (2) a list of strings to be joined or a function that returns a list of strings (such as Fn::GetAZs) to be joined.".into(),
        Function::Split => "every Fn::Split object requires two parameters, (1) a string delimiter and (2) a string to be split or a function that returns a string to be split.".into(),
        Function::Select => "Fn::Select requires a list argument with two elements: an integer index and a list".into(),
        // AWS (contract §6.3).
        Function::Equals => "every Fn::Equals object requires a list of 2 string parameters.".into(),
        // Chosen, in the Fn::Equals wording.
        Function::And | Function::Or => format!(
            "every {} object requires a list of at least 2 and at most 10 boolean parameters.",
            function.name()
        ),
        Function::Not => "every Fn::Not object requires a list of 1 boolean parameter.".into(),
        Function::If => "every Fn::If object requires three parameters, (1) a condition name, (2) a value to use when it is true and (3) a value to use when it is false.".into(),
        // Chosen, in the Fn::Join wording.
        Function::FindInMap => "every Fn::FindInMap object requires three parameters, the map name, map key and the attribute for return value".into(),
        Function::Sub => "One or more Fn::Sub intrinsic functions don't specify expected arguments. Specify a string as first argument, and an optional second argument to specify a mapping of values to replace in the string".into(),
        // Chosen, the rest.
        Function::Ref => "every Ref object requires a single string parameter.".into(),
        Function::Base64 => "every Fn::Base64 object requires a string parameter.".into(),
        Function::GetAzs => "every Fn::GetAZs object requires a string parameter (a region name or an empty string).".into(),
        Function::Cidr => "every Fn::Cidr object requires three parameters, (1) an IP address block in CIDR notation, (2) the number of subnets to generate and (3) the number of subnet bits.".into(),
        Function::ImportValue => "every Fn::ImportValue object requires a string parameter: the name of an exported output value.".into(),
        Function::Length => "every Fn::Length object requires a list or a function that returns a list.".into(),
        Function::ToJsonString => "every Fn::ToJsonString object requires a map or a list.".into(),
        Function::Contains | Function::EachMemberEquals | Function::EachMemberIn => format!(
            "every {} object requires a list of 2 parameters.",
            function.name()
        ),
    }
}

/// `Fn::Cidr`'s problems (chosen; AWS's texts are unrecorded).
fn cidr(problem: &CidrProblem) -> String {
    match problem {
        CidrProblem::Block(block) => {
            format!("requires an IP address block in CIDR notation, got {block}")
        }
        CidrProblem::Count => "count must be a number from 1 to 256".into(),
        CidrProblem::Bits(width) => format!("cidrBits must be a number from 1 to {width}"),
        CidrProblem::NoRoom { bits, block } => {
            format!("cannot make subnets of {bits} host bits in {block}")
        }
        CidrProblem::TooMany { count, bits, block } => {
            format!("cannot make {count} subnets of {bits} host bits in {block}")
        }
    }
}

/// Cumulo's limits on evaluation (chosen texts; `limits` has the figures and their sources).
fn render_budget(f: &mut fmt::Formatter<'_>, kind: &ErrorKind, at: &Outermost<'_>) -> fmt::Result {
    match kind {
        // Chosen: Cumulo's limit on one function's value (limits::MAX_VALUE_BYTES).
        ErrorKind::ValueTooLarge { function, max } => write!(
            f,
            "{TEMPLATE}{at}{} produces a value larger than the maximum of {max} bytes",
            function.name()
        ),
        // Chosen: Cumulo's evaluation budgets (limits).
        ErrorKind::Budget(budget) => match budget {
            Budget::Depth => write!(
                f,
                "{FORMAT}{at}intrinsic functions are nested more than {} levels deep",
                limits::MAX_DEPTH
            ),
            Budget::Steps => write!(
                f,
                "{FORMAT}{at}the template's intrinsic functions take more than {} evaluation steps",
                limits::FUEL
            ),
            Budget::Bytes => write!(
                f,
                "{TEMPLATE}{at}evaluating the template produces more than {} bytes",
                limits::EVALUATION_BYTES
            ),
            Budget::OperationBytes => write!(
                f,
                "{TEMPLATE}{at}evaluating the template for this stack operation produces more than {} bytes",
                limits::OPERATION_BYTES
            ),
        },
        other => write!(f, "{other:?}"),
    }
}
