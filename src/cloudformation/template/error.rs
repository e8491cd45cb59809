//! The two error types of the template language and the constructors of every AWS message
//! they carry, so each text is written once (aws-contract.md §2.4, §6).
//!
//! [`TemplateError`] is a synchronous `ValidationError` of CreateStack, UpdateStack,
//! CreateChangeSet and ValidateTemplate; [`EvalError`] is the failure reason of a resource or
//! output evaluated while a stack operation executes. Neither knows HTTP.

use std::fmt;

/// A template or parameter problem found before anything is created. `Display` is AWS's exact
/// message; the wire layer sends it as a `ValidationError` (HTTP 400).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TemplateError {
    message: String,
}

impl TemplateError {
    /// An error with `message` as its whole text.
    pub fn new(message: impl Into<String>) -> TemplateError {
        TemplateError {
            message: message.into(),
        }
    }

    /// `Template format error: <detail>`.
    pub fn format(detail: impl fmt::Display) -> TemplateError {
        TemplateError::new(format!("Template format error: {detail}"))
    }

    /// `Template error: <detail>`.
    pub fn template(detail: impl fmt::Display) -> TemplateError {
        TemplateError::new(format!("Template error: {detail}"))
    }

    /// The message, as AWS words it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A failure while evaluating a resource's properties or an output during execution.
/// `Display` is the reason the stack event carries (for example `No export named X found.`);
/// the engine appends AWS's ` Rollback requested by user.` where AWS does.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    message: String,
}

impl EvalError {
    /// An error with `message` as its whole text.
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<TemplateError> for EvalError {
    fn from(err: TemplateError) -> EvalError {
        EvalError::new(err.message)
    }
}

impl From<EvalError> for TemplateError {
    fn from(err: EvalError) -> TemplateError {
        TemplateError::new(err.message)
    }
}

/// Where a reference was found: AWS words unresolved references per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// The Resources section.
    Resources,
    /// The Outputs section.
    Outputs,
    /// The Conditions section (and condition functions).
    Conditions,
    /// Rules (assertions and rule conditions).
    Rules,
}

/// The texts, one function each. Sources: "recorded" = aws-recorded snapshots, "AWS" =
/// aws-contract.md quoting real AWS output or public reports, "chosen" = not found anywhere,
/// picked to read like AWS's neighbouring messages.
pub(crate) mod msg {
    use super::{Block, TemplateError};

    /// AWS (contract §6.2, §6.3; acceptance `bad_unresolved_ref`). The Outputs variant has no
    /// `Template format error:` prefix (AWS, LS engine/test_conditions).
    pub fn unresolved(names: &[String], block: Block) -> TemplateError {
        let list = names.join(", ");
        match block {
            Block::Outputs => TemplateError::new(format!(
                "Unresolved resource dependencies [{list}] in the Outputs block of the template"
            )),
            // AWS (widely reported): a Ref to a resource or unknown name inside Conditions.
            Block::Conditions => TemplateError::format(format!(
                "Unresolved dependencies [{list}]. Cannot reference resources in the Conditions block of the template"
            )),
            // Chosen, in the Conditions wording.
            Block::Rules => TemplateError::format(format!(
                "Unresolved dependencies [{list}]. Cannot reference resources in the Rules block of the template"
            )),
            Block::Resources => TemplateError::format(format!(
                "Unresolved resource dependencies [{list}] in the Resources block of the template"
            )),
        }
    }

    /// AWS (reported; contract §6.3). `names` lists the resources left in or behind the cycle.
    pub fn circular(names: &[String]) -> TemplateError {
        TemplateError::new(format!(
            "Circular dependency between resources: [{}]",
            names.join(", ")
        ))
    }

    /// AWS (contract §6.2).
    pub fn getatt_undefined(resource: &str) -> TemplateError {
        TemplateError::template(format!(
            "instance of Fn::GetAtt references undefined resource {resource}"
        ))
    }

    /// AWS (contract §6.2; acceptance `bad_getatt_attribute`).
    pub fn getatt_attribute(resource: &str, attribute: &str) -> TemplateError {
        TemplateError::template(format!(
            "resource {resource} does not support attribute type {attribute} in Fn::GetAtt"
        ))
    }

    /// AWS (contract §6.2).
    pub fn getatt_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::GetAtt object requires two non-empty parameters, the resource name and the resource attribute",
        )
    }

    /// AWS (contract §6.2).
    pub fn join_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::Join object requires two parameters, (1) a string delimiter and (2) a list of strings to be joined or a function that returns a list of strings (such as Fn::GetAZs) to be joined.",
        )
    }

    /// AWS (contract §6.2).
    pub fn split_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::Split object requires two parameters, (1) a string delimiter and (2) a string to be split or a function that returns a string to be split.",
        )
    }

    /// AWS (contract §6.2).
    pub fn select_shape() -> TemplateError {
        TemplateError::template(
            "Fn::Select requires a list argument with two elements: an integer index and a list",
        )
    }

    /// AWS (contract §6.2).
    pub fn select_range(index: impl std::fmt::Display) -> TemplateError {
        TemplateError::template(format!(
            "Fn::Select cannot select nonexistent value at index {index}"
        ))
    }

    /// AWS (contract §6.3).
    pub fn equals_shape() -> TemplateError {
        TemplateError::template("every Fn::Equals object requires a list of 2 string parameters.")
    }

    /// Chosen, in the Fn::Equals wording.
    pub fn and_or_shape(function: &str) -> TemplateError {
        TemplateError::template(format!(
            "every {function} object requires a list of at least 2 and at most 10 boolean parameters."
        ))
    }

    /// Chosen, in the Fn::Equals wording.
    pub fn not_shape() -> TemplateError {
        TemplateError::template("every Fn::Not object requires a list of 1 boolean parameter.")
    }

    /// Chosen, in the Fn::Equals wording.
    pub fn if_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::If object requires three parameters, (1) a condition name, (2) a value to use when it is true and (3) a value to use when it is false.",
        )
    }

    /// AWS (contract §6.2).
    pub fn unresolved_condition(name: &str, function: &str) -> TemplateError {
        TemplateError::template(format!(
            "unresolved condition dependency {name} in {function}"
        ))
    }

    /// AWS (contract §6.2).
    pub fn mapping_missing(map: &str, top: &str, second: &str) -> TemplateError {
        TemplateError::template(format!("Unable to get mapping for {map}::{top}::{second}"))
    }

    /// Chosen, in the Fn::Join wording.
    pub fn find_in_map_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::FindInMap object requires three parameters, the map name, map key and the attribute for return value",
        )
    }

    /// Chosen, in the Fn::Join wording.
    pub fn sub_shape() -> TemplateError {
        TemplateError::template(
            "One or more Fn::Sub intrinsic functions don't specify expected arguments. Specify a string as first argument, and an optional second argument to specify a mapping of values to replace in the string",
        )
    }

    /// Chosen.
    pub fn ref_shape() -> TemplateError {
        TemplateError::template("every Ref object requires a single string parameter.")
    }

    /// Chosen.
    pub fn base64_shape() -> TemplateError {
        TemplateError::template("every Fn::Base64 object requires a string parameter.")
    }

    /// Chosen.
    pub fn get_azs_shape() -> TemplateError {
        TemplateError::template("every Fn::GetAZs object requires a string parameter (a region name or an empty string).")
    }

    /// Chosen.
    pub fn cidr_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::Cidr object requires three parameters, (1) an IP address block in CIDR notation, (2) the number of subnets to generate and (3) the number of subnet bits.",
        )
    }

    /// Chosen.
    pub fn import_value_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::ImportValue object requires a string parameter: the name of an exported output value.",
        )
    }

    /// Chosen.
    pub fn length_shape() -> TemplateError {
        TemplateError::template(
            "every Fn::Length object requires a list or a function that returns a list.",
        )
    }

    /// AWS (a widely quoted message; the function list as AWS prints it).
    pub fn unsupported_function(name: &str, language_extensions: bool) -> TemplateError {
        let mut list = vec![
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
        if language_extensions {
            list.extend(["Fn::Length", "Fn::ToJsonString", "Fn::ForEach"]);
        }
        TemplateError::format(format!(
            "Encountered unsupported function: {name} Supported functions are: [{}]",
            list.join(", ")
        ))
    }

    /// Chosen: the evaluation budget ran out (minijinja's fuel; AWS documents no figure).
    pub fn budget() -> TemplateError {
        TemplateError::format(
            "the template's intrinsic functions are nested too deeply or expand too far",
        )
    }

    /// Chosen: Cumulo does not run macros, so a transform it cannot expand is refused before any
    /// stack or change set exists.
    pub fn unsupported_transform(name: &str) -> TemplateError {
        TemplateError::format(format!(
            "Transform {name} is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"
        ))
    }

    /// AWS (reported): a failing rule assertion. AWS's text is the AssertDescription; when
    /// none is given, `Template validation error: Assertion failed for rule <name>` (chosen).
    pub fn assertion(rule: &str, description: Option<&str>) -> TemplateError {
        match description {
            Some(text) => TemplateError::new(text.to_string()),
            None => {
                TemplateError::new(format!("Template error: Assertion failed for rule {rule}."))
            }
        }
    }
}
