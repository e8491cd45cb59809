//! The YAML loader: a template body → a `serde_json::Value` in which every short-form tag is
//! already its long form (`!Ref X` → `{"Ref": "X"}`, `!GetAtt A.B` → `{"Fn::GetAtt": ["A",
//! "B"]}`, `!Sub s` → `{"Fn::Sub": s}`), with key order kept. It is the only module that knows
//! the YAML library (`yaml-rust2`'s event parser), so the library can be swapped here alone.
//!
//! Scalars follow CloudFormation's YAML 1.1 reading (the AWS CLI maintainers: "CloudFormation
//! treats unquoted values that are YAML 1.1 native booleans as booleans", aws/aws-cli#5257;
//! measured by users: `YES`/`NO` tags became `"true"`/`"false"`, ASFHyP3/hyp3#2061):
//! - `~`, `null`, `Null`, `NULL` and the empty plain scalar are `null`;
//! - `yes|no|on|off|true|false` in lower, Capitalised or UPPER case are booleans;
//! - a plain scalar YAML 1.1 reads as a number stays a JSON number only when the number prints
//!   back as the same text (`42`, `-3`, `1.5`); otherwise its text is kept as a string, so
//!   `1.10`, `012345678901`, `0x1F`, `1_000` and `+5` reach a string-typed property unchanged
//!   (CloudFormation hands property values to handlers as strings in most places);
//! - dates (`2012-10-17`) and sexagesimal forms stay strings (the CloudFormation user guide
//!   lists the timestamp type as unsupported);
//! - quoted, literal and folded scalars, and scalars under a short-form tag, are strings.
//!
//! Aliases, unknown tags, complex keys and documents nested deeper than [`MAX_DEPTH`] are
//! refused; every failure carries the 1-based line and column of the offending node.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The deepest nesting of collections accepted (serde_json's own recursion limit is 128).
pub const MAX_DEPTH: usize = 128;

/// Why a YAML body was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum YamlError {
    /// Not well-formed YAML (syntax, unknown tag, complex key, too deep) at 1-based line/column.
    NotWellFormed {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// An alias (`*name`) was used: CloudFormation does not support aliases.
    Alias {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

fn at(mark: &Marker) -> (usize, usize) {
    (mark.line().max(1), mark.col() + 1)
}

fn not_well_formed(mark: &Marker) -> YamlError {
    let (line, column) = at(mark);
    YamlError::NotWellFormed { line, column }
}

/// A collection being built.
enum Frame {
    Seq {
        items: Vec<Value>,
        tag: Option<Tag>,
        mark: Marker,
    },
    Map {
        map: Map<String, Value>,
        key: Option<String>,
        tag: Option<Tag>,
        mark: Marker,
    },
}

/// Loads the first document of `body`. An empty stream or document is `null`.
pub fn load(body: &str) -> Result<Value, YamlError> {
    let mut parser = Parser::new_from_str(body);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Value> = None;
    let mut documents = 0usize;
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|err| not_well_formed(err.marker()))?;
        match event {
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(not_well_formed(&mark));
                }
            }
            Event::Alias(_) => {
                let (line, column) = at(&mark);
                return Err(YamlError::Alias { line, column });
            }
            Event::Scalar(text, style, _anchor, tag) => {
                let is_key = matches!(stack.last(), Some(Frame::Map { key: None, .. }));
                if is_key {
                    if tag.is_some() {
                        return Err(not_well_formed(&mark));
                    }
                    if let Some(Frame::Map { key, .. }) = stack.last_mut() {
                        *key = Some(text);
                    }
                    continue;
                }
                let value = scalar(text, style, tag.as_ref(), &mark)?;
                push(&mut stack, &mut root, value, &mark)?;
            }
            Event::SequenceStart(_anchor, tag) => {
                enter(&stack, &mark)?;
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    tag,
                    mark,
                });
            }
            Event::MappingStart(_anchor, tag) => {
                enter(&stack, &mark)?;
                stack.push(Frame::Map {
                    map: Map::new(),
                    key: None,
                    tag,
                    mark,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let frame = stack.pop().ok_or_else(|| not_well_formed(&mark))?;
                let (value, tag, start) = match frame {
                    Frame::Seq { items, tag, mark } => (Value::Array(items), tag, mark),
                    Frame::Map { map, tag, mark, .. } => (Value::Object(map), tag, mark),
                };
                let value = apply_tag(value, tag.as_ref(), &start)?;
                push(&mut stack, &mut root, value, &start)?;
            }
        }
    }
    Ok(root.unwrap_or(Value::Null))
}

/// Refuses a collection that starts as a mapping key (a complex key) or nests too deeply.
fn enter(stack: &[Frame], mark: &Marker) -> Result<(), YamlError> {
    if matches!(stack.last(), Some(Frame::Map { key: None, .. })) || stack.len() >= MAX_DEPTH {
        return Err(not_well_formed(mark));
    }
    Ok(())
}

fn push(
    stack: &mut [Frame],
    root: &mut Option<Value>,
    value: Value,
    mark: &Marker,
) -> Result<(), YamlError> {
    match stack.last_mut() {
        None => {
            if root.is_some() {
                return Err(not_well_formed(mark));
            }
            *root = Some(value);
        }
        Some(Frame::Seq { items, .. }) => items.push(value),
        Some(Frame::Map { map, key, .. }) => {
            let Some(k) = key.take() else {
                return Err(not_well_formed(mark));
            };
            // A repeated key keeps its first position and takes the last value, as the JSON
            // reader does.
            map.insert(k, value);
        }
    }
    Ok(())
}

/// The long form a short-form tag stands for: `Ref`, `Condition`, or `Fn::<Name>`.
fn intrinsic_key(suffix: &str) -> Option<String> {
    const FUNCTIONS: &[&str] = &[
        "Base64",
        "Cidr",
        "FindInMap",
        "GetAtt",
        "GetAZs",
        "ImportValue",
        "Join",
        "Select",
        "Split",
        "Sub",
        "Transform",
        "And",
        "Equals",
        "If",
        "Not",
        "Or",
        "Length",
        "ToJsonString",
        "Contains",
        "EachMemberEquals",
        "EachMemberIn",
        "RefAll",
        "ValueOf",
        "ValueOfAll",
    ];
    match suffix {
        "Ref" | "Condition" => Some(suffix.to_string()),
        _ if FUNCTIONS.contains(&suffix) => Some(format!("Fn::{suffix}")),
        _ => None,
    }
}

fn is_local(tag: &Tag) -> bool {
    tag.handle == "!"
}

fn is_core(tag: &Tag) -> bool {
    tag.handle == "tag:yaml.org,2002:"
}

/// Wraps a collection in the intrinsic its tag names (`!Join [...]`), or checks a core tag.
fn apply_tag(value: Value, tag: Option<&Tag>, mark: &Marker) -> Result<Value, YamlError> {
    let Some(tag) = tag else {
        return Ok(value);
    };
    if is_core(tag) {
        return match (tag.suffix.as_str(), &value) {
            ("seq", Value::Array(_)) | ("map", Value::Object(_)) => Ok(value),
            _ => Err(not_well_formed(mark)),
        };
    }
    if !is_local(tag) {
        return Err(not_well_formed(mark));
    }
    let key = intrinsic_key(&tag.suffix).ok_or_else(|| not_well_formed(mark))?;
    let mut map = Map::new();
    map.insert(key, value);
    Ok(Value::Object(map))
}

/// One scalar node: resolved by YAML 1.1 rules when plain and untagged, a string otherwise.
fn scalar(
    text: String,
    style: TScalarStyle,
    tag: Option<&Tag>,
    mark: &Marker,
) -> Result<Value, YamlError> {
    let Some(tag) = tag else {
        return Ok(if style == TScalarStyle::Plain {
            resolve_plain(text)
        } else {
            Value::String(text)
        });
    };
    if is_core(tag) {
        return match tag.suffix.as_str() {
            "str" => Ok(Value::String(text)),
            "null" => Ok(Value::Null),
            "bool" => match resolve_plain(text) {
                value @ Value::Bool(_) => Ok(value),
                _ => Err(not_well_formed(mark)),
            },
            "int" | "float" => match resolve_plain(text.clone()) {
                Value::Number(n) => Ok(Value::Number(n)),
                Value::String(s) if number_text(&s) => Ok(Value::String(s)),
                _ => Err(not_well_formed(mark)),
            },
            _ => Err(not_well_formed(mark)),
        };
    }
    if !is_local(tag) {
        return Err(not_well_formed(mark));
    }
    let key = intrinsic_key(&tag.suffix).ok_or_else(|| not_well_formed(mark))?;
    let value = if key == "Fn::GetAtt" {
        // `!GetAtt A.B.C` splits at the first dot only (B20): ["A", "B.C"].
        match text.split_once('.') {
            Some((res, attr)) => Value::Array(vec![
                Value::String(res.to_string()),
                Value::String(attr.to_string()),
            ]),
            None => Value::String(text),
        }
    } else {
        Value::String(text)
    };
    let mut map = Map::new();
    map.insert(key, value);
    Ok(Value::Object(map))
}

/// YAML 1.1 plain-scalar resolution (PyYAML's SafeLoader, which cfn-lint and the AWS CLI use),
/// without timestamps and sexagesimal numbers.
pub(crate) fn resolve_plain(text: String) -> Value {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    if number_text(&text) {
        if let Some(n) = canonical_number(&text) {
            return Value::Number(n);
        }
    }
    Value::String(text)
}

/// The number `text` is, when it prints back as exactly `text`.
fn canonical_number(text: &str) -> Option<Number> {
    let n = if text.contains('.') {
        Number::from_f64(text.parse::<f64>().ok()?)?
    } else if let Ok(i) = text.parse::<i64>() {
        Number::from(i)
    } else {
        Number::from(text.parse::<u64>().ok()?)
    };
    (n.to_string() == text).then_some(n)
}

/// True when YAML 1.1 reads `text` as an int or a float (decimal, octal, hex, binary, with
/// underscores and signs; floats need a dot).
fn number_text(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let digits =
        |s: &str, ok: fn(char) -> bool| !s.is_empty() && s.chars().all(|c| ok(c) || c == '_');
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return digits(hex, |c| c.is_ascii_hexdigit());
    }
    if let Some(bin) = unsigned.strip_prefix("0b") {
        return digits(bin, |c| c == '0' || c == '1');
    }
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    if let Some((int, rest)) = unsigned.split_once('.') {
        let (frac, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let int_ok = if int.is_empty() {
            // `.5` needs a digit right after the dot.
            frac.starts_with(|c: char| c.is_ascii_digit())
        } else {
            int.starts_with(|c: char| c.is_ascii_digit()) && digits(int, |c| c.is_ascii_digit())
        };
        let frac_ok = frac.chars().all(|c| c.is_ascii_digit() || c == '_');
        let exp_ok = match exp {
            None => true,
            Some(e) => {
                let e = e.strip_prefix(['-', '+']);
                matches!(e, Some(d) if !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            }
        };
        return int_ok && frac_ok && exp_ok;
    }
    if unsigned == "0" {
        return true;
    }
    if let Some(oct) = unsigned.strip_prefix('0') {
        return digits(oct, |c| ('0'..='7').contains(&c));
    }
    unsigned.starts_with(|c: char| c.is_ascii_digit()) && digits(unsigned, |c| c.is_ascii_digit())
}
