//! SSM Parameter Store: String, StringList and SecureString parameters with versions, per
//! account and region. Read by `AWS::SSM::Parameter::Value<...>` template parameters, backend
//! of `AWS::SSM::Parameter`. Follows the Systems Manager API Reference (2014-11-06,
//! PutParameter, GetParameter(s), GetParametersByPath, DeleteParameter(s),
//! DescribeParameters, GetParameterHistory); knows nothing of HTTP.
//!
//! Names are kept as given (with or without a leading `/`); the ARN is
//! `arn:aws:ssm:<region>:<account>:parameter/<name without its leading slash>`. A name may
//! also be given as that ARN, and read with a `:<version>` selector. SecureString values are
//! not encrypted: without WithDecryption they read back as an opaque base64 token.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use error::Error;

use crate::clock::Clock;
use crate::coral::{self, Violations};
use crate::ids::Scope;
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of parameters, keyed `account/region/name`.
pub const PARAMETERS_TABLE: &str = "ssm_parameters";
/// Deepest parameter hierarchy.
pub const MAX_LEVELS: usize = 15;
/// Versions kept per parameter (AWS keeps 100).
pub const MAX_VERSIONS: usize = 100;
/// The default key of SecureString parameters.
pub const DEFAULT_KEY_ID: &str = "alias/aws/ssm";

/// A parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParameterType {
    /// `String`.
    String,
    /// `StringList`: comma-separated values.
    StringList,
    /// `SecureString`.
    SecureString,
}

impl ParameterType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterType::String => "String",
            ParameterType::StringList => "StringList",
            ParameterType::SecureString => "SecureString",
        }
    }

    /// Parses `String` / `StringList` / `SecureString`.
    pub fn parse(s: &str) -> Result<ParameterType, Error> {
        match s {
            "String" => Ok(ParameterType::String),
            "StringList" => Ok(ParameterType::StringList),
            "SecureString" => Ok(ParameterType::SecureString),
            other => Err(coral::single(Some(other), "type", TYPE_ENUM).into()),
        }
    }
}

/// The `type` enum constraint as Coral prints it.
const TYPE_ENUM: &str = "Member must satisfy enum value set: [SecureString, StringList, String]";

/// One version of a parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterVersion {
    /// 1, 2, ...
    pub version: i64,
    /// Type of this version.
    pub parameter_type: ParameterType,
    /// The value (plain text, also for SecureString).
    pub value: String,
    /// `Description`.
    pub description: Option<String>,
    /// `AllowedPattern`.
    pub allowed_pattern: Option<String>,
    /// `KeyId` (SecureString).
    pub key_id: Option<String>,
    /// `Tier`: `Standard` or `Advanced`.
    pub tier: String,
    /// `DataType`: `text`, `aws:ec2:image` or `aws:ssm:integration`.
    pub data_type: String,
    /// `LastModifiedDate` (UTC).
    pub last_modified: DateTime<Utc>,
}

/// A parameter: its name, ARN and every kept version (the last is current).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    /// The name as given.
    pub name: String,
    /// `arn:aws:ssm:<region>:<account>:parameter/<name>`.
    pub arn: String,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// Versions, oldest first (never empty).
    pub versions: Vec<ParameterVersion>,
}

impl Parameter {
    /// The current version.
    pub fn current(&self) -> &ParameterVersion {
        self.versions
            .last()
            .expect("a stored parameter has at least one version")
    }

    /// The current value.
    pub fn value(&self) -> &str {
        &self.current().value
    }

    /// The current version number.
    pub fn version(&self) -> i64 {
        self.current().version
    }
}

/// PutParameter input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PutParameterInput {
    /// `Name` (or the parameter's ARN).
    pub name: String,
    /// `Value` (1–4096 characters, 8192 for Advanced).
    pub value: String,
    /// `Type` (required to create; kept on overwrite when absent).
    pub parameter_type: Option<String>,
    /// `Overwrite`.
    pub overwrite: bool,
    /// `Description`.
    pub description: Option<String>,
    /// `AllowedPattern` (a regular expression the value must match).
    pub allowed_pattern: Option<String>,
    /// `KeyId` (SecureString; default `alias/aws/ssm`).
    pub key_id: Option<String>,
    /// `Tier` (`Standard`, `Advanced`, `Intelligent-Tiering`).
    pub tier: Option<String>,
    /// `DataType` (default `text`).
    pub data_type: Option<String>,
    /// `Tags` (creation only; not with Overwrite).
    pub tags: BTreeMap<String, String>,
}

/// A parameter read at one version, as GetParameter answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterValue {
    /// The name as stored (the selector, if any, in `selector`).
    pub name: String,
    /// The ARN.
    pub arn: String,
    /// Type.
    pub parameter_type: ParameterType,
    /// The value: plain, or for SecureString without decryption an opaque token.
    pub value: String,
    /// Version.
    pub version: i64,
    /// `:<version>` when the request named one.
    pub selector: Option<String>,
    /// `LastModifiedDate`.
    pub last_modified: DateTime<Utc>,
    /// `DataType`.
    pub data_type: String,
}

/// One line of DescribeParameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterMetadata {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Current version.
    pub version: ParameterVersion,
}

/// A DescribeParameters filter (`ParameterFilters`; the legacy `Filters` map onto it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParameterFilter {
    /// `Name`, `Type`, `KeyId`, `Path`, `Tier`, `DataType`, or `tag:<key>`.
    pub key: String,
    /// `Equals` (default), `BeginsWith`, `Contains`; for Path `OneLevel` (default) or
    /// `Recursive`.
    pub option: Option<String>,
    /// Values (any may match).
    pub values: Vec<String>,
}

#[derive(Default)]
struct State {
    /// `(scope, name)` → parameter.
    parameters: BTreeMap<(Scope, String), Parameter>,
}

struct Shared {
    clock: Clock,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the parameter store. Clones share one state.
#[derive(Clone)]
pub struct Ssm {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Ssm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ssm").finish_non_exhaustive()
    }
}

/// The parameter ARN for `name` in `scope`.
pub fn parameter_arn(scope: &Scope, name: &str) -> String {
    scope.arn(
        "ssm",
        &format!("parameter/{}", name.trim_start_matches('/')),
    )
}

/// A request's name split into the stored name and a `:<version>` selector. An ARN gives its
/// resource part; `from_arn` says so, since `parameter/a/b` names `/a/b` (or `a/b`).
fn split_selector(name: &str) -> (String, Option<String>, bool) {
    let (name, from_arn) = match name.strip_prefix("arn:") {
        Some(_) => match name.split_once(":parameter/") {
            Some((_, rest)) => (rest.to_string(), true),
            None => (name.to_string(), false),
        },
        None => (name.to_string(), false),
    };
    match name.rsplit_once(':') {
        Some((base, sel)) if !sel.is_empty() => (base.to_string(), Some(sel.to_string()), from_arn),
        _ => (name, None, from_arn),
    }
}

/// The stored key a request's name refers to, if such a parameter exists (an ARN's resource
/// part is tried with its leading slash first).
fn lookup(state: &State, scope: &Scope, name: &str) -> Option<(String, Option<String>)> {
    let (base, selector, from_arn) = split_selector(name);
    let mut candidates = Vec::new();
    if from_arn {
        candidates.push(format!("/{base}"));
    }
    candidates.push(base);
    candidates
        .into_iter()
        .find(|c| state.parameters.contains_key(&(scope.clone(), c.clone())))
        .map(|c| (c, selector))
}

fn check_name(name: &str) -> Result<(), Error> {
    let invalid = || {
        Error::Validation(
            "Parameter name: can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). If formed as a path, it can consist of sub-paths divided by slash symbol; each sub-path can be formed as a mix of letters, numbers and the following 3 symbols .-_".to_string(),
        )
    };
    let mut v = Violations::default();
    v.length("name", name, 1, Some(2048));
    v.finish()?;
    let first = name.trim_start_matches('/').to_ascii_lowercase();
    if first.starts_with("aws") || first.starts_with("ssm") {
        return Err(invalid());
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/'))
    {
        return Err(invalid());
    }
    if name.contains('/') && !name.starts_with('/') {
        return Err(Error::Validation(
            "Parameter name must be a fully qualified name.".to_string(),
        ));
    }
    if name.contains("//") || (name.len() > 1 && name.ends_with('/')) {
        return Err(invalid());
    }
    let levels = name.trim_start_matches('/').split('/').count();
    if levels > MAX_LEVELS {
        return Err(Error::HierarchyLevelLimitExceeded(format!(
            "A hierarchy can have a maximum of {MAX_LEVELS} levels. For more information, see Requirements and Constraints for Parameter Names in the AWS Systems Manager User Guide."
        )));
    }
    Ok(())
}

fn encrypted_token(version: &ParameterVersion) -> String {
    let key = version.key_id.as_deref().unwrap_or(DEFAULT_KEY_ID);
    base64::engine::general_purpose::STANDARD.encode(format!("cumulo:kms:{key}:{}", version.value))
}

fn read(
    param: &Parameter,
    version: &ParameterVersion,
    decrypt: bool,
    selector: Option<String>,
) -> ParameterValue {
    let value = if version.parameter_type == ParameterType::SecureString && !decrypt {
        encrypted_token(version)
    } else {
        version.value.clone()
    };
    ParameterValue {
        name: match &selector {
            Some(s) => format!("{}:{s}", param.name),
            None => param.name.clone(),
        },
        arn: param.arn.clone(),
        parameter_type: version.parameter_type,
        value,
        version: version.version,
        selector: selector.map(|s| format!(":{s}")),
        last_modified: version.last_modified,
        data_type: version.data_type.clone(),
    }
}

fn page<T>(
    items: Vec<T>,
    max: usize,
    next_token: Option<&str>,
) -> Result<(Vec<T>, Option<String>), Error> {
    let start = match next_token.filter(|t| !t.is_empty()) {
        None => 0,
        Some(t) => t
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= items.len())
            .ok_or_else(|| {
                Error::InvalidNextToken("The specified token is not valid.".to_string())
            })?,
    };
    let end = (start + max).min(items.len());
    let token = (end < items.len()).then(|| end.to_string());
    Ok((
        items.into_iter().skip(start).take(end - start).collect(),
        token,
    ))
}

impl Ssm {
    /// A parameter store with the parameters `storage` holds (none in memory).
    pub fn new(clock: Clock, storage: Storage) -> Ssm {
        let mut state = State::default();
        for (key, param) in storage.load::<Parameter>(PARAMETERS_TABLE) {
            let mut parts = key.splitn(3, '/');
            if let (Some(account), Some(region), Some(_)) =
                (parts.next(), parts.next(), parts.next())
            {
                if !param.versions.is_empty() {
                    state
                        .parameters
                        .insert((Scope::new(account, region), param.name.clone()), param);
                }
            }
        }
        Ssm {
            shared: Arc::new(Shared {
                clock,
                storage,
                state: Mutex::new(state),
            }),
        }
    }

    fn store_key(scope: &Scope, name: &str) -> String {
        format!("{}/{}/{name}", scope.account, scope.region)
    }

    /// Deletes every parameter.
    pub fn reset(&self) {
        lock(&self.shared.state).parameters.clear();
    }

    /// PutParameter: creates version 1, or with `overwrite` the next version. Returns
    /// `(version, tier)`. Errors: `ParameterAlreadyExists`, `ValidationException` (name, type,
    /// value length, tags with overwrite), `ParameterPatternMismatchException`,
    /// `HierarchyLevelLimitExceededException`.
    pub fn put_parameter(
        &self,
        scope: &Scope,
        input: PutParameterInput,
    ) -> Result<(i64, String), Error> {
        let (name, _, from_arn) = split_selector(&input.name);
        let name = match lookup(&lock(&self.shared.state), scope, &input.name) {
            Some((existing, _)) => existing,
            None if from_arn => format!("/{name}"),
            None => name,
        };
        // Coral's checks of PutParameterRequest, in its member order, all reported at once.
        let mut v = Violations::default();
        v.length("name", &name, 1, Some(2048));
        v.length("value", &input.value, 1, None);
        if let Some(t) = &input.parameter_type {
            v.one_of("type", t, &["SecureString", "StringList", "String"]);
        }
        if let Some(t) = &input.tier {
            v.one_of("tier", t, &["Advanced", "Intelligent-Tiering", "Standard"]);
        }
        v.finish()?;
        check_name(&name)?;
        let parameter_type = input
            .parameter_type
            .as_deref()
            .map(ParameterType::parse)
            .transpose()?;
        let tier = input.tier.clone().unwrap_or_else(|| "Standard".to_string());
        let max_len =
            match tier.as_str() {
                "Standard" => 4096,
                "Advanced" | "Intelligent-Tiering" => 8192,
                other => return Err(coral::single(
                    Some(other),
                    "tier",
                    "Member must satisfy enum value set: [Advanced, Intelligent-Tiering, Standard]",
                )
                .into()),
            };
        let tier = if tier == "Intelligent-Tiering" {
            if input.value.chars().count() > 4096 {
                "Advanced"
            } else {
                "Standard"
            }
            .to_string()
        } else {
            tier
        };
        if input.value.chars().count() > max_len {
            return Err(Error::Validation(format!(
                "{tier} tier parameters support a maximum parameter value of {max_len} characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html"
            )));
        }
        let data_type = input
            .data_type
            .clone()
            .unwrap_or_else(|| "text".to_string());
        if !matches!(
            data_type.as_str(),
            "text" | "aws:ec2:image" | "aws:ssm:integration"
        ) {
            return Err(Error::Validation(format!(
                "The following data type is not supported: {data_type} (Data type names are all lowercase.)"
            )));
        }
        if let Some(pattern) = &input.allowed_pattern {
            let re = regex::Regex::new(pattern).map_err(|_| {
                Error::Validation(format!(
                    "Parameter AllowedPattern {pattern} is not a valid regular expression."
                ))
            })?;
            if !re.is_match(&input.value) {
                return Err(Error::ParameterPatternMismatch(format!(
                    "Parameter value, cannot be validated against allowedPattern: {pattern}"
                )));
            }
        }
        if input.overwrite && !input.tags.is_empty() {
            return Err(Error::Validation(
                "Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or RemoveTagsFromResource.".to_string(),
            ));
        }
        let now = self.shared.clock.now();
        let key = (scope.clone(), name.clone());
        let mut state = lock(&self.shared.state);
        let existing = state.parameters.get_mut(&key);
        match existing {
            Some(_) if !input.overwrite => Err(Error::ParameterAlreadyExists),
            Some(param) => {
                let prev = param.current().clone();
                let parameter_type = parameter_type.unwrap_or(prev.parameter_type);
                let version = ParameterVersion {
                    version: prev.version + 1,
                    parameter_type,
                    value: input.value,
                    description: input.description.or(prev.description),
                    allowed_pattern: input.allowed_pattern.or(prev.allowed_pattern),
                    key_id: (parameter_type == ParameterType::SecureString).then(|| {
                        input
                            .key_id
                            .or(prev.key_id)
                            .unwrap_or_else(|| DEFAULT_KEY_ID.to_string())
                    }),
                    tier: tier.clone(),
                    data_type,
                    last_modified: now,
                };
                let n = version.version;
                param.versions.push(version);
                if param.versions.len() > MAX_VERSIONS {
                    param.versions.remove(0);
                }
                self.shared
                    .storage
                    .put(PARAMETERS_TABLE, &Self::store_key(scope, &name), &*param);
                Ok((n, tier))
            }
            None => {
                let parameter_type = parameter_type.ok_or_else(|| {
                    Error::Validation(
                        "A parameter type is required when you create a parameter.".to_string(),
                    )
                })?;
                let param = Parameter {
                    arn: parameter_arn(scope, &name),
                    name: name.clone(),
                    tags: input.tags,
                    versions: vec![ParameterVersion {
                        version: 1,
                        parameter_type,
                        value: input.value,
                        description: input.description,
                        allowed_pattern: input.allowed_pattern,
                        key_id: (parameter_type == ParameterType::SecureString)
                            .then(|| input.key_id.unwrap_or_else(|| DEFAULT_KEY_ID.to_string())),
                        tier: tier.clone(),
                        data_type,
                        last_modified: now,
                    }],
                };
                self.shared
                    .storage
                    .put(PARAMETERS_TABLE, &Self::store_key(scope, &name), &param);
                state.parameters.insert(key, param);
                Ok((1, tier))
            }
        }
    }

    /// The stored parameter `name` (a name or an ARN) in `scope`, if any (the CloudFormation
    /// `AWS::SSM::Parameter::Value<...>` resolution).
    pub fn get_parameter(&self, scope: &Scope, name: &str) -> Option<Parameter> {
        let state = lock(&self.shared.state);
        let (key, _) = lookup(&state, scope, name)?;
        state.parameters.get(&(scope.clone(), key)).cloned()
    }

    /// GetParameter as the API answers it: a `name[:version]` (or ARN) read with or without
    /// decryption. `ParameterNotFound` / `ParameterVersionNotFound` otherwise.
    pub fn read_parameter(
        &self,
        scope: &Scope,
        name: &str,
        with_decryption: bool,
    ) -> Result<ParameterValue, Error> {
        let state = lock(&self.shared.state);
        let (base, selector) = lookup(&state, scope, name)
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        let param = state
            .parameters
            .get(&(scope.clone(), base.clone()))
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        match selector {
            None => Ok(read(param, param.current(), with_decryption, None)),
            Some(sel) => {
                let wanted: i64 = sel.parse().map_err(|_| {
                    Error::ParameterVersionNotFound(format!(
                        "Systems Manager could not find version {sel} of {base}. Verify the version and try again."
                    ))
                })?;
                let version = param
                    .versions
                    .iter()
                    .find(|v| v.version == wanted)
                    .ok_or_else(|| {
                        Error::ParameterVersionNotFound(format!(
                            "Systems Manager could not find version {wanted} of {base}. Verify the version and try again."
                        ))
                    })?;
                Ok(read(param, version, with_decryption, Some(sel)))
            }
        }
    }

    /// GetParameters: the found parameters (in request order, each once) and the names not
    /// found (`InvalidParameters`). At most 10 names.
    pub fn get_parameters(
        &self,
        scope: &Scope,
        names: &[String],
        with_decryption: bool,
    ) -> Result<(Vec<ParameterValue>, Vec<String>), Error> {
        let mut v = Violations::default();
        v.list_length(
            "names",
            &format!("[{}]", names.join(", ")),
            names.len(),
            1,
            10,
        );
        v.finish()?;
        let mut found = Vec::new();
        let mut invalid = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for n in names {
            if !seen.insert(n.clone()) {
                continue;
            }
            match self.read_parameter(scope, n, with_decryption) {
                Ok(v) => found.push(v),
                Err(_) => invalid.push(n.clone()),
            }
        }
        Ok((found, invalid))
    }

    /// GetParametersByPath: parameters under `path` (`/a/b`), direct children only unless
    /// `recursive`, in name order, `max_results` (1–10, default 10) a page.
    pub fn get_parameters_by_path(
        &self,
        scope: &Scope,
        path: &str,
        recursive: bool,
        with_decryption: bool,
        max_results: Option<i64>,
        next_token: Option<&str>,
    ) -> Result<(Vec<ParameterValue>, Option<String>), Error> {
        let max = match max_results {
            None => 10,
            Some(n @ 1..=10) => n as usize,
            Some(n) => {
                let mut v = Violations::default();
                v.range("maxResults", n, 1, 10);
                v.finish()?;
                10
            }
        };
        if !path.starts_with('/') {
            return Err(Error::Validation(
                "The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward slash \"/\". It can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not allowed. All sub-paths, if specified, must use the forward slash symbol \"/\". Valid example: /get/parameters2-/by1./path0_.".to_string(),
            ));
        }
        let prefix = if path.ends_with('/') {
            path.to_string()
        } else {
            format!("{path}/")
        };
        let state = lock(&self.shared.state);
        let items: Vec<ParameterValue> = state
            .parameters
            .iter()
            .filter(|((s, name), _)| {
                s == scope
                    && name
                        .strip_prefix(&prefix)
                        .is_some_and(|rest| !rest.is_empty() && (recursive || !rest.contains('/')))
            })
            .map(|(_, p)| read(p, p.current(), with_decryption, None))
            .collect();
        page(items, max, next_token)
    }

    /// DeleteParameter (`ParameterNotFound` when absent).
    pub fn delete_parameter(&self, scope: &Scope, name: &str) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let (base, _) = lookup(&state, scope, name)
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        state.parameters.remove(&(scope.clone(), base.clone()));
        self.shared
            .storage
            .delete(PARAMETERS_TABLE, &Self::store_key(scope, &base));
        Ok(())
    }

    /// DeleteParameters: `(deleted, invalid)`, at most 10 names.
    pub fn delete_parameters(
        &self,
        scope: &Scope,
        names: &[String],
    ) -> Result<(Vec<String>, Vec<String>), Error> {
        let mut v = Violations::default();
        v.list_length(
            "names",
            &format!("[{}]", names.join(", ")),
            names.len(),
            1,
            10,
        );
        v.finish()?;
        let mut deleted = Vec::new();
        let mut invalid = Vec::new();
        for n in names {
            match self.delete_parameter(scope, n) {
                Ok(()) => deleted.push(n.clone()),
                Err(_) => invalid.push(n.clone()),
            }
        }
        Ok((deleted, invalid))
    }

    /// GetParameterHistory: every kept version, oldest first.
    pub fn get_parameter_history(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Result<Vec<ParameterMetadata>, Error> {
        let state = lock(&self.shared.state);
        let (base, _) = lookup(&state, scope, name)
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        let param = state
            .parameters
            .get(&(scope.clone(), base))
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        Ok(param
            .versions
            .iter()
            .map(|v| ParameterMetadata {
                name: param.name.clone(),
                arn: param.arn.clone(),
                version: v.clone(),
            })
            .collect())
    }

    /// DescribeParameters: metadata of the parameters passing every filter, in name order,
    /// `max_results` (1–50, default 10) a page.
    pub fn describe_parameters(
        &self,
        scope: &Scope,
        filters: &[ParameterFilter],
        max_results: Option<i64>,
        next_token: Option<&str>,
    ) -> Result<(Vec<ParameterMetadata>, Option<String>), Error> {
        let max = match max_results {
            None => 10,
            Some(n @ 1..=50) => n as usize,
            Some(n) => {
                let mut v = Violations::default();
                v.range("maxResults", n, 1, 50);
                v.finish()?;
                50
            }
        };
        for f in filters {
            let known = matches!(
                f.key.as_str(),
                "Name" | "Type" | "KeyId" | "Path" | "Tier" | "DataType" | "Label"
            ) || f.key.starts_with("tag:");
            if !known {
                return Err(Error::InvalidFilterKey(format!(
                    "The following filter key is not valid: {}. Valid filter keys include: [Path, Name, Type, KeyId, Tier, DataType, Label].",
                    f.key
                )));
            }
        }
        let state = lock(&self.shared.state);
        let items: Vec<ParameterMetadata> = state
            .parameters
            .iter()
            .filter(|((s, _), p)| s == scope && filters.iter().all(|f| filter_matches(f, p)))
            .map(|(_, p)| ParameterMetadata {
                name: p.name.clone(),
                arn: p.arn.clone(),
                version: p.current().clone(),
            })
            .collect();
        page(items, max, next_token)
    }

    /// AddTagsToResource on a parameter.
    pub fn add_tags(
        &self,
        scope: &Scope,
        name: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let (base, _) = lookup(&state, scope, name)
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        let param = state
            .parameters
            .get_mut(&(scope.clone(), base.clone()))
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        param
            .tags
            .extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.shared
            .storage
            .put(PARAMETERS_TABLE, &Self::store_key(scope, &base), &*param);
        Ok(())
    }

    /// RemoveTagsFromResource on a parameter.
    pub fn remove_tags(&self, scope: &Scope, name: &str, keys: &[String]) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let (base, _) = lookup(&state, scope, name)
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        let param = state
            .parameters
            .get_mut(&(scope.clone(), base.clone()))
            .ok_or_else(|| Error::ParameterNotFound(name.to_string()))?;
        for k in keys {
            param.tags.remove(k);
        }
        self.shared
            .storage
            .put(PARAMETERS_TABLE, &Self::store_key(scope, &base), &*param);
        Ok(())
    }
}

fn filter_matches(f: &ParameterFilter, p: &Parameter) -> bool {
    let cur = p.current();
    let option = f.option.as_deref();
    let text_matches = |value: &str| {
        f.values.iter().any(|want| match option {
            Some("BeginsWith") => value.starts_with(want.as_str()),
            Some("Contains") => value.contains(want.as_str()),
            _ => value == want,
        })
    };
    match f.key.as_str() {
        "Name" => {
            let bare = p.name.trim_start_matches('/');
            f.values.iter().any(|want| {
                let want_bare = want.trim_start_matches('/');
                match option {
                    Some("BeginsWith") => bare.starts_with(want_bare),
                    Some("Contains") => p.name.contains(want.as_str()),
                    _ => bare == want_bare,
                }
            })
        }
        "Type" => text_matches(cur.parameter_type.as_str()),
        "KeyId" => cur.key_id.as_deref().is_some_and(text_matches),
        "Tier" => text_matches(&cur.tier),
        "DataType" => text_matches(&cur.data_type),
        "Path" => f.values.iter().any(|path| {
            let prefix = if path.ends_with('/') {
                path.clone()
            } else {
                format!("{path}/")
            };
            p.name.strip_prefix(&prefix).is_some_and(|rest| {
                !rest.is_empty() && (option == Some("Recursive") || !rest.contains('/'))
            })
        }),
        key => match key.strip_prefix("tag:") {
            Some(tag) => p
                .tags
                .get(tag)
                .is_some_and(|v| f.values.is_empty() || f.values.contains(v)),
            None => false,
        },
    }
}
