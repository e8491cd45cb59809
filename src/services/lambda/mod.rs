//! AWS Lambda functions and their resource policies, stored so that `AWS::Lambda::Function`
//! and `AWS::Lambda::Permission` answer what AWS answers (name, `arn:aws:lambda:<region>:
//! <account>:function:<name>`, configuration, code hash, policy statements). Nothing runs: the
//! scheduler's dispatcher records Lambda deliveries without calling this store, and there is no
//! wire protocol (a `lambda` request is an unknown service). Follows the AWS Lambda API
//! Reference (2015-03-31) for ranges, patterns and messages.
//!
//! Functions are keyed by (scope, name). A function's execution role must exist in the IAM store
//! and trust `lambda.amazonaws.com` when it belongs to the function's account (Lambda assumes
//! it at creation); roles of other accounts are taken on trust.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, Mutex};

use base64::Engine;
use chrono::{DateTime, Utc};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub use error::Error;

use crate::clock::Clock;
use crate::coral::Violations;
use crate::ids::{IdGen, Scope};
use crate::services::iam::{self, Iam};
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of functions, keyed `account/region/name`.
pub const FUNCTIONS_TABLE: &str = "lambda_functions";
/// Most tags on a function.
pub const MAX_TAGS: usize = 50;
/// Longest function name (the ARN forms may be longer).
pub const MAX_NAME: usize = 64;
/// Longest `Timeout`, in seconds.
pub const MAX_TIMEOUT: i64 = 900;
/// `MemorySize` range, in MB (the API model's range).
pub const MEMORY_RANGE: (i64, i64) = (128, 32_768);

/// The `Runtime` values the API model lists, in its order.
pub const RUNTIMES: &[&str] = &[
    "nodejs",
    "nodejs4.3",
    "nodejs6.10",
    "nodejs8.10",
    "nodejs10.x",
    "nodejs12.x",
    "nodejs14.x",
    "nodejs16.x",
    "java8",
    "java8.al2",
    "java11",
    "python2.7",
    "python3.6",
    "python3.7",
    "python3.8",
    "python3.9",
    "dotnetcore1.0",
    "dotnetcore2.0",
    "dotnetcore2.1",
    "dotnetcore3.1",
    "dotnet6",
    "dotnet8",
    "nodejs4.3-edge",
    "go1.x",
    "ruby2.5",
    "ruby2.7",
    "provided",
    "provided.al2",
    "nodejs18.x",
    "python3.10",
    "java17",
    "ruby3.2",
    "ruby3.3",
    "ruby3.4",
    "python3.11",
    "nodejs20.x",
    "provided.al2023",
    "python3.12",
    "java21",
    "python3.13",
    "nodejs22.x",
    "nodejs24.x",
    "python3.14",
    "java25",
    "dotnet10",
    "ruby4.0",
];

/// The `Role` pattern of the API model.
const ROLE_PATTERN: &str = r"arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+";

/// Where a function's code comes from (`FunctionCode`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CodeSource {
    /// `ZipFile`: the deployment package (CloudFormation's inline source text).
    ZipFile(String),
    /// `S3Bucket`, `S3Key`, `S3ObjectVersion`.
    S3 {
        /// Bucket.
        bucket: String,
        /// Key.
        key: String,
        /// Object version, when given.
        object_version: Option<String>,
    },
    /// `ImageUri` (package type `Image`).
    ImageUri(String),
}

impl CodeSource {
    /// The bytes the code hash and size are computed over.
    fn bytes(&self) -> Vec<u8> {
        match self {
            CodeSource::ZipFile(text) => text.as_bytes().to_vec(),
            CodeSource::S3 {
                bucket,
                key,
                object_version,
            } => format!(
                "s3://{bucket}/{key}?{}",
                object_version.as_deref().unwrap_or("")
            )
            .into_bytes(),
            CodeSource::ImageUri(uri) => uri.as_bytes().to_vec(),
        }
    }
}

/// A resource-policy statement added by AddPermission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyStatement {
    /// `Sid` (StatementId).
    pub sid: String,
    /// `Action`, e.g. `lambda:InvokeFunction`.
    pub action: String,
    /// `Principal`: a service (`scheduler.amazonaws.com`), an account id, or an ARN.
    pub principal: String,
    /// `SourceArn`.
    pub source_arn: Option<String>,
    /// `SourceAccount`.
    pub source_account: Option<String>,
    /// `PrincipalOrgID`.
    pub principal_org_id: Option<String>,
    /// `EventSourceToken`.
    pub event_source_token: Option<String>,
    /// `FunctionUrlAuthType`.
    pub function_url_auth_type: Option<String>,
}

/// A function (the `FunctionConfiguration` shape, plus code, tags and policy).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// `FunctionName`.
    pub function_name: String,
    /// `FunctionArn`: `arn:aws:lambda:<region>:<account>:function:<name>`.
    pub function_arn: String,
    /// `Runtime` (none for images).
    pub runtime: Option<String>,
    /// `Role`: the execution role ARN.
    pub role: String,
    /// `Handler` (none for images).
    pub handler: Option<String>,
    /// `Description` (0–256 characters).
    pub description: String,
    /// `Timeout` in seconds (1–900, default 3).
    pub timeout: i64,
    /// `MemorySize` in MB (default 128).
    pub memory_size: i64,
    /// `PackageType`: `Zip` or `Image`.
    pub package_type: String,
    /// The code.
    pub code: CodeSource,
    /// `CodeSha256`: base64 SHA-256 of the package.
    pub code_sha256: String,
    /// `CodeSize` in bytes.
    pub code_size: i64,
    /// `Environment.Variables`.
    pub environment: BTreeMap<String, String>,
    /// `Architectures` (default `x86_64`).
    pub architectures: Vec<String>,
    /// `DeadLetterConfig.TargetArn`.
    pub dead_letter_target_arn: Option<String>,
    /// `TracingConfig.Mode` (default `PassThrough`).
    pub tracing_mode: String,
    /// `Layers` (ARNs).
    pub layers: Vec<String>,
    /// `KMSKeyArn`.
    pub kms_key_arn: Option<String>,
    /// `EphemeralStorage.Size` in MB (default 512).
    pub ephemeral_storage: i64,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// `LastModified` (UTC).
    pub last_modified: DateTime<Utc>,
    /// `RevisionId`: a UUID, new at every change.
    pub revision_id: String,
    /// The resource policy's statements, in the order added.
    pub policy: Vec<PolicyStatement>,
}

/// CreateFunction input (also the full configuration an update sets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateFunctionInput {
    /// `FunctionName`.
    pub function_name: String,
    /// `Runtime`.
    pub runtime: Option<String>,
    /// `Role`.
    pub role: String,
    /// `Handler`.
    pub handler: Option<String>,
    /// `Code`.
    pub code: CodeSource,
    /// `Description`.
    pub description: Option<String>,
    /// `Timeout` (default 3).
    pub timeout: Option<i64>,
    /// `MemorySize` (default 128).
    pub memory_size: Option<i64>,
    /// `PackageType` (default `Zip`).
    pub package_type: Option<String>,
    /// `Environment.Variables`.
    pub environment: BTreeMap<String, String>,
    /// `Architectures`.
    pub architectures: Vec<String>,
    /// `DeadLetterConfig.TargetArn`.
    pub dead_letter_target_arn: Option<String>,
    /// `TracingConfig.Mode`.
    pub tracing_mode: Option<String>,
    /// `Layers`.
    pub layers: Vec<String>,
    /// `KMSKeyArn`.
    pub kms_key_arn: Option<String>,
    /// `EphemeralStorage.Size` (512–10240).
    pub ephemeral_storage: Option<i64>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// AddPermission input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddPermissionInput {
    /// `StatementId` (1–100 of `[a-zA-Z0-9-_]`).
    pub statement_id: String,
    /// `Action` (`lambda:<Action>`, `lambda:*` or `*`).
    pub action: String,
    /// `Principal`.
    pub principal: String,
    /// `SourceArn`.
    pub source_arn: Option<String>,
    /// `SourceAccount` (12 digits).
    pub source_account: Option<String>,
    /// `PrincipalOrgID`.
    pub principal_org_id: Option<String>,
    /// `EventSourceToken`.
    pub event_source_token: Option<String>,
    /// `FunctionUrlAuthType` (`NONE` or `AWS_IAM`).
    pub function_url_auth_type: Option<String>,
}

#[derive(Default)]
struct State {
    functions: BTreeMap<(Scope, String), Function>,
}

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    iam: Iam,
    state: Mutex<State>,
}

/// Handle to the Lambda store. Clones share one state.
#[derive(Clone)]
pub struct Lambda {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Lambda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lambda").finish_non_exhaustive()
    }
}

fn store_key(scope: &Scope, name: &str) -> String {
    format!("{}/{}/{name}", scope.account, scope.region)
}

/// `arn:aws:lambda:<region>:<account>:function:<name>`.
pub fn function_arn(scope: &Scope, name: &str) -> String {
    scope.arn("lambda", &format!("function:{name}"))
}

/// The function name a `FunctionName` parameter names: a name, an ARN
/// (`arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`) or a partial ARN
/// (`<account>:function:<name>`).
pub fn function_name_of(name_or_arn: &str) -> &str {
    match name_or_arn.split_once("function:") {
        Some((_, rest)) => rest.split(':').next().unwrap_or(rest),
        None => name_or_arn,
    }
}

fn whole(pattern: &str) -> Regex {
    Regex::new(&format!("^(?:{pattern})$")).expect("a valid built-in pattern")
}

static ROLE_RE: LazyLock<Regex> = LazyLock::new(|| whole(ROLE_PATTERN));
static ACTION_RE: LazyLock<Regex> = LazyLock::new(|| whole(ACTION_PATTERN));
static ACCOUNT_RE: LazyLock<Regex> = LazyLock::new(|| whole(r"\d{12}"));

/// `FunctionName`'s model pattern (names, ARNs and partial ARNs).
const FUNCTION_NAME_PATTERN: &str = "(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?";
/// AddPermission's `Action` pattern.
const ACTION_PATTERN: &str = r"(lambda:[*]|lambda:[a-zA-Z]+|[*])";

/// The Coral checks of CreateFunction / UpdateFunctionConfiguration members, every violation
/// reported at once.
fn check_configuration(input: &CreateFunctionInput, verb: &str) -> Result<(), Error> {
    let mut v = Violations::default();
    let name = &input.function_name;
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    v.pattern("functionName", name, name_ok, FUNCTION_NAME_PATTERN);
    v.length("functionName", name, 1, Some(MAX_NAME));
    if let Some(runtime) = &input.runtime {
        v.one_of("runtime", runtime, RUNTIMES);
    }
    v.pattern(
        "role",
        &input.role,
        ROLE_RE.is_match(&input.role),
        ROLE_PATTERN,
    );
    if let Some(handler) = &input.handler {
        let ok = !handler.chars().any(char::is_whitespace);
        v.pattern("handler", handler, ok, "[^\\s]+");
        v.length("handler", handler, 0, Some(128));
    }
    if let Some(d) = &input.description {
        v.length("description", d, 0, Some(256));
    }
    if let Some(t) = input.timeout {
        v.range("timeout", t, 1, MAX_TIMEOUT);
    }
    if let Some(m) = input.memory_size {
        v.range("memorySize", m, MEMORY_RANGE.0, MEMORY_RANGE.1);
    }
    if let Some(p) = &input.package_type {
        v.one_of("packageType", p, &["Zip", "Image"]);
    }
    if let Some(mode) = &input.tracing_mode {
        v.one_of("tracingConfig.mode", mode, &["Active", "PassThrough"]);
    }
    v.each_one_of("architectures", &input.architectures, &["x86_64", "arm64"]);
    if input.architectures.len() > 1 {
        v.list_length(
            "architectures",
            &format!("[{}]", input.architectures.join(", ")),
            input.architectures.len(),
            1,
            1,
        );
    }
    if let Some(s) = input.ephemeral_storage {
        v.range("ephemeralStorage.size", s, 512, 10_240);
    }
    v.finish()?;
    if input.tags.len() > MAX_TAGS {
        return Err(Error::InvalidParameterValue(format!(
            "Number of tags exceeds resource tag limit ({MAX_TAGS})."
        )));
    }
    let image = input.package_type.as_deref() == Some("Image");
    match (&input.code, image) {
        (CodeSource::ImageUri(_), false) => {
            return Err(Error::InvalidParameterValue(format!(
                "Please don't provide ImageUri when {verb} a function with packageType Zip."
            )))
        }
        (CodeSource::ImageUri(_), true) => {}
        (_, true) => {
            return Err(Error::InvalidParameterValue(format!(
                "Please provide ImageUri when {verb} a function with packageType Image."
            )))
        }
        (_, false) => {
            if input.runtime.is_none() || input.handler.is_none() {
                return Err(Error::InvalidParameterValue(
                    "Runtime and Handler are mandatory parameters for functions created with deployment packages.".to_string(),
                ));
            }
        }
    }
    Ok(())
}

fn code_hash(code: &CodeSource) -> (String, i64) {
    let bytes = code.bytes();
    let digest = Sha256::digest(&bytes);
    (
        base64::engine::general_purpose::STANDARD.encode(digest),
        bytes.len() as i64,
    )
}

impl Lambda {
    /// A store with the functions `storage` holds (none in memory); execution roles are looked
    /// up in `iam`.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage, iam: Iam) -> Lambda {
        let functions = storage
            .load::<Function>(FUNCTIONS_TABLE)
            .into_iter()
            .map(|(_, f)| {
                (
                    (
                        Scope::new(f.account.clone(), f.region.clone()),
                        f.function_name.clone(),
                    ),
                    f,
                )
            })
            .collect();
        Lambda {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                iam,
                state: Mutex::new(State { functions }),
            }),
        }
    }

    fn put(&self, f: &Function) {
        let scope = Scope::new(f.account.clone(), f.region.clone());
        self.shared
            .storage
            .put(FUNCTIONS_TABLE, &store_key(&scope, &f.function_name), f);
    }

    /// Deletes every function.
    pub fn reset(&self) {
        lock(&self.shared.state).functions.clear();
    }

    /// Lambda assumes the execution role at creation: a role of this account must exist and
    /// trust `lambda.amazonaws.com` (`InvalidParameterValueException` "The role defined for
    /// the function cannot be assumed by Lambda.").
    fn check_role(&self, scope: &Scope, role_arn: &str) -> Result<(), Error> {
        let account = role_arn.split(':').nth(4).unwrap_or_default();
        if account != scope.account {
            return Ok(());
        }
        let name = role_arn.rsplit('/').next().unwrap_or_default();
        let assumable = match self.shared.iam.get_role(account, name) {
            Ok(role) => {
                role.arn == role_arn
                    && role
                        .assume_role_policy_document
                        .contains("lambda.amazonaws.com")
            }
            Err(iam::Error::NoSuchEntity(_)) => false,
            Err(_) => false,
        };
        if assumable {
            Ok(())
        } else {
            Err(Error::InvalidParameterValue(
                "The role defined for the function cannot be assumed by Lambda.".to_string(),
            ))
        }
    }

    /// CreateFunction. Errors: `ValidationException` (Coral) for name, runtime, role pattern,
    /// handler, description, timeout (1–900), memory (128–32768), package type, storage,
    /// tracing and architectures; `InvalidParameterValueException` for missing Runtime/Handler
    /// of a Zip package, an ImageUri mismatch, too many tags, or a role Lambda cannot assume;
    /// `ResourceConflictException` "Function already exist: <name>".
    pub fn create_function(
        &self,
        scope: &Scope,
        input: CreateFunctionInput,
    ) -> Result<Function, Error> {
        check_configuration(&input, "creating")?;
        self.check_role(scope, &input.role)?;
        let (code_sha256, code_size) = code_hash(&input.code);
        let now = self.shared.clock.now();
        let key = (scope.clone(), input.function_name.clone());
        let mut state = lock(&self.shared.state);
        if state.functions.contains_key(&key) {
            return Err(Error::ResourceConflict(format!(
                "Function already exist: {}",
                input.function_name
            )));
        }
        let f = Function {
            account: scope.account.clone(),
            region: scope.region.clone(),
            function_arn: function_arn(scope, &input.function_name),
            function_name: input.function_name,
            runtime: input.runtime,
            role: input.role,
            handler: input.handler,
            description: input.description.unwrap_or_default(),
            timeout: input.timeout.unwrap_or(3),
            memory_size: input.memory_size.unwrap_or(128),
            package_type: input.package_type.unwrap_or_else(|| "Zip".to_string()),
            code: input.code,
            code_sha256,
            code_size,
            environment: input.environment,
            architectures: if input.architectures.is_empty() {
                vec!["x86_64".to_string()]
            } else {
                input.architectures
            },
            dead_letter_target_arn: input.dead_letter_target_arn,
            tracing_mode: input
                .tracing_mode
                .unwrap_or_else(|| "PassThrough".to_string()),
            layers: input.layers,
            kms_key_arn: input.kms_key_arn,
            ephemeral_storage: input.ephemeral_storage.unwrap_or(512),
            tags: input.tags,
            last_modified: now,
            revision_id: self.shared.ids.uuid(),
            policy: Vec::new(),
        };
        self.put(&f);
        state.functions.insert(key, f.clone());
        Ok(f)
    }

    fn not_found(scope: &Scope, name: &str) -> Error {
        Error::ResourceNotFound(format!("Function not found: {}", function_arn(scope, name)))
    }

    fn with_function<T>(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        f: impl FnOnce(&mut Function) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let name = function_name_of(name_or_arn);
        let mut state = lock(&self.shared.state);
        let func = state
            .functions
            .get_mut(&(scope.clone(), name.to_string()))
            .ok_or_else(|| Self::not_found(scope, name))?;
        let before = func.clone();
        let out = f(func)?;
        if *func != before {
            func.revision_id = self.shared.ids.uuid();
            func.last_modified = self.shared.clock.now();
            self.put(func);
        }
        Ok(out)
    }

    /// GetFunction (`ResourceNotFoundException` "Function not found: <arn>").
    pub fn get_function(&self, scope: &Scope, name_or_arn: &str) -> Result<Function, Error> {
        self.with_function(scope, name_or_arn, |f| Ok(f.clone()))
    }

    /// ListFunctions of `scope`, by name.
    pub fn list_functions(&self, scope: &Scope) -> Vec<Function> {
        lock(&self.shared.state)
            .functions
            .iter()
            .filter(|((s, _), _)| s == scope)
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// UpdateFunctionConfiguration and UpdateFunctionCode together: the function becomes
    /// `input` (name and package type kept), checked as at creation; tags are not touched.
    pub fn update_function(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        input: CreateFunctionInput,
    ) -> Result<Function, Error> {
        let name = function_name_of(name_or_arn).to_string();
        let current = self.get_function(scope, &name)?;
        let input = CreateFunctionInput {
            function_name: name.clone(),
            package_type: Some(current.package_type.clone()),
            tags: BTreeMap::new(),
            ..input
        };
        check_configuration(&input, "updating")?;
        if input.role != current.role {
            self.check_role(scope, &input.role)?;
        }
        let (code_sha256, code_size) = code_hash(&input.code);
        self.with_function(scope, &name, |f| {
            f.runtime = input.runtime;
            f.role = input.role;
            f.handler = input.handler;
            f.description = input.description.unwrap_or_default();
            f.timeout = input.timeout.unwrap_or(3);
            f.memory_size = input.memory_size.unwrap_or(128);
            f.code = input.code;
            f.code_sha256 = code_sha256;
            f.code_size = code_size;
            f.environment = input.environment;
            if !input.architectures.is_empty() {
                f.architectures = input.architectures;
            }
            f.dead_letter_target_arn = input.dead_letter_target_arn;
            f.tracing_mode = input
                .tracing_mode
                .unwrap_or_else(|| "PassThrough".to_string());
            f.layers = input.layers;
            f.kms_key_arn = input.kms_key_arn;
            f.ephemeral_storage = input.ephemeral_storage.unwrap_or(512);
            Ok(())
        })?;
        self.get_function(scope, &name)
    }

    /// DeleteFunction (`ResourceNotFoundException` when absent).
    pub fn delete_function(&self, scope: &Scope, name_or_arn: &str) -> Result<(), Error> {
        let name = function_name_of(name_or_arn);
        let mut state = lock(&self.shared.state);
        if state
            .functions
            .remove(&(scope.clone(), name.to_string()))
            .is_none()
        {
            return Err(Self::not_found(scope, name));
        }
        self.shared
            .storage
            .delete(FUNCTIONS_TABLE, &store_key(scope, name));
        Ok(())
    }

    /// TagResource on a function.
    pub fn tag_resource(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        self.with_function(scope, name_or_arn, |f| {
            let mut merged = f.tags.clone();
            merged.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
            if merged.len() > MAX_TAGS {
                return Err(Error::InvalidParameterValue(format!(
                    "Number of tags exceeds resource tag limit ({MAX_TAGS})."
                )));
            }
            f.tags = merged;
            Ok(())
        })
    }

    /// UntagResource on a function.
    pub fn untag_resource(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        keys: &[String],
    ) -> Result<(), Error> {
        self.with_function(scope, name_or_arn, |f| {
            for k in keys {
                f.tags.remove(k);
            }
            Ok(())
        })
    }

    /// AddPermission: adds a statement to the function's resource policy; returns the
    /// statement as JSON text. Errors: `ValidationException` (Coral) for the statement id,
    /// action, principal and source account; `ResourceConflictException` for a statement id
    /// in use; `ResourceNotFoundException` for the function.
    pub fn add_permission(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        input: AddPermissionInput,
    ) -> Result<String, Error> {
        let sid = &input.statement_id;
        let mut v = Violations::default();
        let sid_ok = !sid.is_empty()
            && sid
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        v.pattern("statementId", sid, sid_ok, "([a-zA-Z0-9-_]+)");
        v.length("statementId", sid, 1, Some(100));
        v.pattern(
            "action",
            &input.action,
            ACTION_RE.is_match(&input.action),
            ACTION_PATTERN,
        );
        let principal_ok =
            !input.principal.is_empty() && !input.principal.chars().any(char::is_whitespace);
        v.pattern("principal", &input.principal, principal_ok, "[^\\s]+");
        if let Some(a) = &input.source_account {
            v.pattern("sourceAccount", a, ACCOUNT_RE.is_match(a), "\\d{12}");
        }
        if let Some(t) = &input.function_url_auth_type {
            v.one_of("functionUrlAuthType", t, &["NONE", "AWS_IAM"]);
        }
        v.finish()?;
        self.with_function(scope, name_or_arn, |f| {
            if f.policy.iter().any(|s| s.sid == input.statement_id) {
                return Err(Error::ResourceConflict(
                    "The statement id (sid) provided already exists. Please provide a new statement id, or remove the existing statement.".to_string(),
                ));
            }
            let statement = PolicyStatement {
                sid: input.statement_id,
                action: input.action,
                principal: input.principal,
                source_arn: input.source_arn,
                source_account: input.source_account,
                principal_org_id: input.principal_org_id,
                event_source_token: input.event_source_token,
                function_url_auth_type: input.function_url_auth_type,
            };
            let text = statement_json(&statement, f).to_string();
            f.policy.push(statement);
            Ok(text)
        })
    }

    /// RemovePermission (`ResourceNotFoundException` "Statement <sid> is not found in
    /// resource policy." or for the function).
    pub fn remove_permission(
        &self,
        scope: &Scope,
        name_or_arn: &str,
        statement_id: &str,
    ) -> Result<(), Error> {
        self.with_function(scope, name_or_arn, |f| {
            let before = f.policy.len();
            f.policy.retain(|s| s.sid != statement_id);
            if f.policy.len() == before {
                return Err(Error::ResourceNotFound(format!(
                    "Statement {statement_id} is not found in resource policy."
                )));
            }
            Ok(())
        })
    }

    /// GetPolicy: the resource policy as JSON text (`ResourceNotFoundException` "The resource
    /// you requested does not exist." when it has no statement).
    pub fn get_policy(&self, scope: &Scope, name_or_arn: &str) -> Result<String, Error> {
        self.with_function(scope, name_or_arn, |f| {
            if f.policy.is_empty() {
                return Err(Error::ResourceNotFound(
                    "The resource you requested does not exist.".to_string(),
                ));
            }
            let statements: Vec<Value> = f.policy.iter().map(|s| statement_json(s, f)).collect();
            Ok(
                json!({"Version": "2012-10-17", "Id": "default", "Statement": statements})
                    .to_string(),
            )
        })
    }
}

/// A statement as GetPolicy shows it: a service principal as `{"Service": ...}`, an account
/// id as its root ARN, conditions for SourceArn / SourceAccount / PrincipalOrgID.
fn statement_json(s: &PolicyStatement, f: &Function) -> Value {
    let principal = if s.principal.ends_with(".amazonaws.com") {
        json!({"Service": s.principal})
    } else if s.principal.len() == 12 && s.principal.bytes().all(|b| b.is_ascii_digit()) {
        json!({"AWS": format!("arn:aws:iam::{}:root", s.principal)})
    } else {
        json!({"AWS": s.principal})
    };
    let mut statement = json!({
        "Sid": s.sid,
        "Effect": "Allow",
        "Principal": principal,
        "Action": s.action,
        "Resource": f.function_arn,
    });
    let mut condition = serde_json::Map::new();
    if let Some(arn) = &s.source_arn {
        condition.insert("ArnLike".into(), json!({"AWS:SourceArn": arn}));
    }
    let mut equals = serde_json::Map::new();
    if let Some(a) = &s.source_account {
        equals.insert("AWS:SourceAccount".into(), json!(a));
    }
    if let Some(o) = &s.principal_org_id {
        equals.insert("aws:PrincipalOrgID".into(), json!(o));
    }
    if let Some(t) = &s.event_source_token {
        equals.insert("lambda:EventSourceToken".into(), json!(t));
    }
    if let Some(t) = &s.function_url_auth_type {
        equals.insert("lambda:FunctionUrlAuthType".into(), json!(t));
    }
    if !equals.is_empty() {
        condition.insert("StringEquals".into(), Value::Object(equals));
    }
    if !condition.is_empty() {
        statement["Condition"] = Value::Object(condition);
    }
    statement
}
