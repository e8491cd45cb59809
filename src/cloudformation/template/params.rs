//! Template parameters: the `Parameters` declarations, their types, and binding the request's
//! values to them (defaults, `UsePreviousValue`, constraints, SSM parameter types), with AWS's
//! messages (aws-contract.md §2.4, §6.3; user guide "Parameters syntax").
//!
//! Pure: SSM values come through [`Environment`]. AWS-specific types (`AWS::EC2::VPC::Id`, ...)
//! are accepted as strings; Cumulo does not check that the named EC2 objects exist.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{Constraint, ErrorKind, TemplateError};
use super::limits;

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

/// The AWS-specific parameter types (user guide "Supported AWS-specific parameter types").
const AWS_TYPES: &[&str] = &[
    "AWS::EC2::AvailabilityZone::Name",
    "AWS::EC2::Image::Id",
    "AWS::EC2::Instance::Id",
    "AWS::EC2::KeyPair::KeyName",
    "AWS::EC2::SecurityGroup::GroupName",
    "AWS::EC2::SecurityGroup::Id",
    "AWS::EC2::Subnet::Id",
    "AWS::EC2::VPC::Id",
    "AWS::EC2::Volume::Id",
    "AWS::Route53::HostedZone::Id",
];

/// A parameter's `Type`, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParameterType {
    /// `String`.
    String,
    /// `Number`: validated as a number, referenced as a string.
    Number,
    /// `List<Number>`: comma-separated numbers, referenced as a list of strings.
    ListNumber,
    /// `CommaDelimitedList` (and `List<String>`): referenced as a list of trimmed strings.
    CommaDelimitedList,
    /// An AWS-specific type such as `AWS::EC2::VPC::Id` (a string).
    Aws(String),
    /// `List<AWS-specific type>` (a list of strings).
    ListAws(String),
    /// `AWS::SSM::Parameter::Name`: the name of an SSM parameter (a string, not resolved).
    SsmName,
    /// `AWS::SSM::Parameter::Value<T>`: the value is an SSM parameter name whose current value
    /// (read through [`Environment`]) is the parameter's resolved value, of type `T`.
    SsmValue(Box<ParameterType>),
}

impl ParameterType {
    /// Classifies a `Type` string; `None` when CloudFormation does not know it.
    pub fn parse(name: &str) -> Option<ParameterType> {
        Some(match name {
            "String" => ParameterType::String,
            "Number" => ParameterType::Number,
            "List<Number>" => ParameterType::ListNumber,
            "CommaDelimitedList" | "List<String>" => ParameterType::CommaDelimitedList,
            "AWS::SSM::Parameter::Name" => ParameterType::SsmName,
            _ if AWS_TYPES.contains(&name) => ParameterType::Aws(name.to_string()),
            _ => {
                if let Some(inner) = name
                    .strip_prefix("AWS::SSM::Parameter::Value<")
                    .and_then(|r| r.strip_suffix('>'))
                {
                    let inner = ParameterType::parse(inner)?;
                    if matches!(inner, ParameterType::SsmValue(_)) {
                        return None;
                    }
                    return Some(ParameterType::SsmValue(Box::new(inner)));
                }
                let inner = name.strip_prefix("List<")?.strip_suffix('>')?;
                if AWS_TYPES.contains(&inner) && inner != "AWS::EC2::KeyPair::KeyName" {
                    ParameterType::ListAws(inner.to_string())
                } else {
                    return None;
                }
            }
        })
    }

    /// True when `Ref` gives a list.
    pub fn is_list(&self) -> bool {
        match self {
            ParameterType::ListNumber
            | ParameterType::CommaDelimitedList
            | ParameterType::ListAws(_) => true,
            ParameterType::SsmValue(inner) => inner.is_list(),
            _ => false,
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, ParameterType::Number)
    }

    fn is_number_list(&self) -> bool {
        matches!(self, ParameterType::ListNumber)
    }
}

const PARAMETER_KEYS: &[&str] = &[
    "Type",
    "Default",
    "NoEcho",
    "AllowedValues",
    "AllowedPattern",
    "MinLength",
    "MaxLength",
    "MinValue",
    "MaxValue",
    "Description",
    "ConstraintDescription",
];

/// A scalar's text (`true`, `5`, `abc`); `None` for lists, maps and null.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses one `Parameters` member.
pub(crate) fn parse_parameter(key: &str, decl: &Value) -> Result<ParameterDecl, TemplateError> {
    let Value::Object(decl) = decl else {
        // Chosen, in the wording of `Any Resources member must be an object.`.
        return Err(ErrorKind::ParameterNotObject.into());
    };
    for k in decl.keys() {
        if !PARAMETER_KEYS.contains(&k.as_str()) {
            return Err(ErrorKind::InvalidParameterProperty(k.clone()).into());
        }
    }
    let Some(type_value) = decl.get("Type") else {
        return Err(ErrorKind::ParameterWithoutType.into());
    };
    let type_name = scalar_text(type_value).unwrap_or_default();
    let Some(parameter_type) = ParameterType::parse(&type_name) else {
        return Err(ErrorKind::UnrecognizedParameterType(type_name).into());
    };
    let default = match decl.get("Default") {
        None => None,
        Some(Value::Array(items)) => {
            // A list default for a list type: the comma-joined text (decision).
            let texts: Option<Vec<String>> = items.iter().map(scalar_text).collect();
            match texts {
                Some(texts) => Some(texts.join(",")),
                None => return Err(ErrorKind::MemberNotString("Default".into()).into()),
            }
        }
        Some(v) => match scalar_text(v) {
            Some(s) => Some(s),
            None => return Err(ErrorKind::MemberNotString("Default".into()).into()),
        },
    };
    let allowed_values = match decl.get("AllowedValues") {
        None => None,
        Some(Value::Array(items)) => {
            let texts: Option<Vec<String>> = items.iter().map(scalar_text).collect();
            match texts {
                Some(texts) => Some(texts),
                None => return Err(ErrorKind::AllowedValueNotString.into()),
            }
        }
        Some(_) => return Err(ErrorKind::AllowedValuesNotList.into()),
    };
    let text = |name: &str| -> Result<Option<String>, TemplateError> {
        match decl.get(name) {
            None => Ok(None),
            Some(v) => scalar_text(v)
                .map(Some)
                .ok_or_else(|| ErrorKind::MemberNotString(name.into()).into()),
        }
    };
    let number = |name: &str| -> Result<Option<f64>, TemplateError> {
        match text(name)? {
            None => Ok(None),
            Some(s) => parse_number(&s)
                .map(Some)
                .ok_or_else(|| ErrorKind::MemberNotNumber(name.into()).into()),
        }
    };
    let count = |name: &str| -> Result<Option<u64>, TemplateError> {
        match number(name)? {
            None => Ok(None),
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(Some(n as u64)),
            Some(_) => Err(ErrorKind::MemberNotCount(name.into()).into()),
        }
    };
    let no_echo = match text("NoEcho")? {
        None => false,
        Some(s) => s.eq_ignore_ascii_case("true"),
    };
    Ok(ParameterDecl {
        key: key.to_string(),
        type_name,
        parameter_type,
        default,
        no_echo,
        allowed_values,
        allowed_pattern: text("AllowedPattern")?,
        min_length: count("MinLength")?,
        max_length: count("MaxLength")?,
        min_value: number("MinValue")?,
        max_value: number("MaxValue")?,
        description: text("Description")?,
        constraint_description: text("ConstraintDescription")?,
    })
}

/// A number as CloudFormation reads a Number parameter (decimal, optional sign, fraction and
/// exponent; no `inf`/`NaN`).
fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) {
        return None;
    }
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// One bound parameter, as stored with the stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundParameter {
    /// `ParameterKey`.
    pub key: String,
    /// `ParameterValue` as given (for SSM value types: the SSM parameter name).
    pub value: String,
    /// `ResolvedValue`: the SSM parameter's value for `AWS::SSM::Parameter::Value<...>` types.
    pub resolved_value: Option<String>,
    /// `NoEcho`: shown as `****`.
    pub no_echo: bool,
    /// True when `Ref` gives a list.
    pub list: bool,
}

impl BoundParameter {
    /// What `Ref` returns: a string, or for list types a list of trimmed strings (the user
    /// guide: "each member string is space trimmed").
    pub fn ref_value(&self) -> Value {
        let text = self.resolved_value.as_deref().unwrap_or(&self.value);
        if self.list {
            Value::Array(
                text.split(',')
                    .map(|s| Value::String(s.trim().to_string()))
                    .collect(),
            )
        } else {
            Value::String(text.to_string())
        }
    }
}

/// A parameter as DescribeStacks and DescribeChangeSet show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownParameter {
    /// `ParameterKey`.
    pub key: String,
    /// `ParameterValue`, `****` for NoEcho.
    pub value: String,
    /// `ResolvedValue` (SSM types), `****` for NoEcho.
    pub resolved_value: Option<String>,
}

/// The parameter values of one stack operation, in template order. Stored with the stack (it
/// holds NoEcho values in clear: only [`BoundParameters::shown`] masks them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundParameters {
    values: IndexMap<String, BoundParameter>,
}

impl BoundParameters {
    /// The parameter `key`.
    pub fn get(&self, key: &str) -> Option<&BoundParameter> {
        self.values.get(key)
    }

    /// Every parameter, in template order.
    pub fn iter(&self) -> impl Iterator<Item = &BoundParameter> {
        self.values.values()
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// What `Ref <key>` gives, or `None` when there is no such parameter.
    pub fn ref_value(&self, key: &str) -> Option<Value> {
        self.values.get(key).map(BoundParameter::ref_value)
    }

    /// The parameters as DescribeStacks shows them: NoEcho values (and their resolved values)
    /// masked as `****`.
    pub fn shown(&self) -> Vec<ShownParameter> {
        self.values
            .values()
            .map(|p| ShownParameter {
                key: p.key.clone(),
                value: if p.no_echo {
                    "****".into()
                } else {
                    p.value.clone()
                },
                resolved_value: p.resolved_value.as_ref().map(|v| {
                    if p.no_echo {
                        "****".into()
                    } else {
                        v.clone()
                    }
                }),
            })
            .collect()
    }
}

/// Binds `given` to `decls`; see [`super::Template::bind_parameters`].
pub(crate) fn bind(
    decls: &IndexMap<String, ParameterDecl>,
    given: &[ParameterInput],
    previous: Option<&BoundParameters>,
    env: &dyn Environment,
) -> Result<BoundParameters, TemplateError> {
    if decls.is_empty() && !given.is_empty() {
        return Err(ErrorKind::ParametersNotExpected.into());
    }
    let mut unknown: Vec<String> = Vec::new();
    for input in given {
        if !decls.contains_key(&input.key) && !unknown.contains(&input.key) {
            unknown.push(input.key.clone());
        }
    }
    if !unknown.is_empty() {
        return Err(ErrorKind::ParametersNotInTemplate(unknown).into());
    }

    let mut chosen: Vec<(&ParameterDecl, String)> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for (key, decl) in decls {
        let input = given.iter().rev().find(|i| &i.key == key);
        let value = match input {
            Some(i) if i.use_previous_value => match previous.and_then(|p| p.get(key)) {
                Some(prev) => Some(prev.value.clone()),
                None => return Err(ErrorKind::NoPreviousValue(key.clone()).into()),
            },
            Some(ParameterInput { value: Some(v), .. }) => Some(v.clone()),
            _ => decl.default.clone(),
        };
        match value {
            Some(v) => chosen.push((decl, v)),
            None => missing.push(key.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(ErrorKind::ParametersMissing(missing).into());
    }

    let mut values = IndexMap::new();
    let mut unfetched: Vec<String> = Vec::new();
    for (decl, value) in chosen {
        if value.len() > limits::MAX_PARAMETER_VALUE_BYTES {
            return Err(ErrorKind::ParameterValueTooLarge {
                key: decl.key.clone(),
                max: limits::MAX_PARAMETER_VALUE_BYTES,
            }
            .into());
        }
        check_value(decl, &value)?;
        let resolved_value = match &decl.parameter_type {
            ParameterType::SsmValue(inner) => match env.ssm_parameter(&value) {
                Some(resolved) => {
                    if (inner.is_number() && parse_number(&resolved).is_none())
                        || (inner.is_number_list()
                            && resolved.split(',').any(|i| parse_number(i).is_none()))
                    {
                        return Err(ErrorKind::ParameterNotNumber(decl.key.clone()).into());
                    }
                    Some(resolved)
                }
                None => {
                    unfetched.push(value.clone());
                    None
                }
            },
            _ => None,
        };
        values.insert(
            decl.key.clone(),
            BoundParameter {
                key: decl.key.clone(),
                value,
                resolved_value,
                no_echo: decl.no_echo,
                list: decl.parameter_type.is_list(),
            },
        );
    }
    if !unfetched.is_empty() {
        return Err(ErrorKind::SsmParametersUnfetched(unfetched).into());
    }
    Ok(BoundParameters { values })
}

/// The value's constraint checks, in the order: type, AllowedValues, AllowedPattern, lengths,
/// range. ConstraintDescription replaces every constraint message (not the type's).
fn check_value(decl: &ParameterDecl, value: &str) -> Result<(), TemplateError> {
    let key = &decl.key;
    let ty = match &decl.parameter_type {
        // SSM value types are checked on their resolved value; their given value is a name.
        ParameterType::SsmValue(_) => return Ok(()),
        ty => ty,
    };
    let items: Vec<&str> = if ty.is_list() {
        value.split(',').map(str::trim).collect()
    } else {
        vec![value]
    };
    let numeric = ty.is_number() || ty.is_number_list();
    if numeric && items.iter().any(|i| parse_number(i).is_none()) {
        return Err(ErrorKind::ParameterNotNumber(key.clone()).into());
    }
    let constraint = |constraint: Constraint| -> TemplateError {
        ErrorKind::ParameterConstraint {
            key: key.clone(),
            constraint,
            description: decl.constraint_description.clone(),
        }
        .into()
    };
    if let Some(allowed) = &decl.allowed_values {
        if items.iter().any(|i| !allowed.iter().any(|a| a == i)) {
            return Err(constraint(Constraint::AllowedValues));
        }
    }
    if let Some(pattern) = &decl.allowed_pattern {
        // AllowedPattern is a Java regular expression matched against the whole value; one the
        // regex crate cannot compile (look-around, backreferences) is not enforced (decision).
        if let Ok(re) = regex::Regex::new(&format!("^(?:{pattern})$")) {
            if items.iter().any(|i| !re.is_match(i)) {
                return Err(constraint(Constraint::AllowedPattern(pattern.clone())));
            }
        }
    }
    let length = value.chars().count() as u64;
    if let Some(min) = decl.min_length {
        if length < min {
            return Err(constraint(Constraint::MinLength(min)));
        }
    }
    if let Some(max) = decl.max_length {
        if length > max {
            return Err(constraint(Constraint::MaxLength(max)));
        }
    }
    if ty.is_number() || ty.is_number_list() {
        for item in &items {
            let n = parse_number(item).unwrap_or_default();
            if let Some(min) = decl.min_value {
                if n < min {
                    return Err(constraint(Constraint::MinValue(number_text(min))));
                }
            }
            if let Some(max) = decl.max_value {
                if n > max {
                    return Err(constraint(Constraint::MaxValue(number_text(max))));
                }
            }
        }
    }
    Ok(())
}

/// `5` rather than `5.0` for whole numbers.
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}
