//! `AWS::Lambda::Function` and `AWS::Lambda::Permission` over the Lambda store (the
//! CloudFormation resource reference's "Return values"; aws-contract.md §5.3):
//!
//! - Function: Ref and physical id are the FunctionName (generated `<stack>-<LogicalId>-<RANDOM>`
//!   ≤ 64 when absent); GetAtt `Arn` (`arn:aws:lambda:<region>:<account>:function:<name>`) and
//!   `SnapStartResponse`, `SnapStartResponse.ApplyOn`, `SnapStartResponse.OptimizationStatus`.
//!   The schema's checks come first in CloudFormation's words (Code and Role required, Role's
//!   pattern, Timeout ≥ 1, Description ≤ 256, Handler, PackageType), then the Lambda API's
//!   (Timeout ≤ 900, MemorySize 128–32768, Runtime, FunctionName, Runtime/Handler for Zip
//!   packages, a role Lambda can assume). FunctionName, PackageType and TenancyConfig are
//!   createOnly; code, configuration and tags (with the stack's and the system tags) change in
//!   place, a removed property going back to Lambda's default. Properties Cumulo does not model
//!   (VpcConfig, FileSystemConfigs, ImageConfig, LoggingConfig, SnapStart, ...) are accepted and
//!   kept in the stack's record.
//! - Permission: a statement of the function's resource policy. Ref and physical id are its
//!   statement id, generated `<stack>-<LogicalId>-<RANDOM>` (≤ 100); GetAtt `Id`. Every
//!   property is createOnly, so any change replaces it.

use indexmap::IndexMap;
use serde_json::{json, Value};

use crate::services::lambda::{
    self, function_name_of, AddPermissionInput, CodeSource, CreateFunctionInput, Lambda,
};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The function properties the registry schema allows.
const FUNCTION_PROPERTIES: &[&str] = &[
    "Architectures",
    "CapacityProviderConfig",
    "Code",
    "CodeSigningConfigArn",
    "DeadLetterConfig",
    "Description",
    "DurableConfig",
    "Environment",
    "EphemeralStorage",
    "FileSystemConfigs",
    "FunctionName",
    "FunctionScalingConfig",
    "Handler",
    "ImageConfig",
    "KmsKeyArn",
    "Layers",
    "LoggingConfig",
    "MemorySize",
    "PackageType",
    "PublishToLatestPublished",
    "RecursiveLoop",
    "ReservedConcurrentExecutions",
    "Role",
    "Runtime",
    "RuntimeManagementConfig",
    "SnapStart",
    "Tags",
    "TenancyConfig",
    "Timeout",
    "TracingConfig",
    "VpcConfig",
];

/// The permission properties the registry schema allows.
const PERMISSION_PROPERTIES: &[&str] = &[
    "Action",
    "EventSourceToken",
    "FunctionName",
    "FunctionUrlAuthType",
    "InvokedViaFunctionUrl",
    "Principal",
    "PrincipalOrgID",
    "SourceAccount",
    "SourceArn",
];

/// The schema's `Role` pattern.
const ROLE_PATTERN: &str = r"^arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$";

/// Longest statement id.
const MAX_STATEMENT_ID: usize = 100;

fn handler_error(err: lambda::Error) -> ProviderError {
    let code = match &err {
        lambda::Error::ResourceNotFound(_) => HandlerErrorCode::NotFound,
        lambda::Error::ResourceConflict(_) => HandlerErrorCode::AlreadyExists,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// `Code` as the API's FunctionCode.
fn code(cx: &ProviderContext<'_>, properties: &Value) -> Result<CodeSource, ProviderError> {
    let code = properties.get("Code").unwrap_or(&Value::Null);
    if !code.is_object() {
        return Err(schema::wrong_type(cx, "Code", "JSONObject", code));
    }
    if let Some(zip) = schema::string(cx, code, "ZipFile")? {
        return Ok(CodeSource::ZipFile(zip));
    }
    if let Some(uri) = schema::string(cx, code, "ImageUri")? {
        return Ok(CodeSource::ImageUri(uri));
    }
    match (
        schema::string(cx, code, "S3Bucket")?,
        schema::string(cx, code, "S3Key")?,
    ) {
        (Some(bucket), Some(key)) => Ok(CodeSource::S3 {
            bucket,
            key,
            object_version: schema::string(cx, code, "S3ObjectVersion")?,
        }),
        _ => Err(ProviderError::invalid(
            "Please provide a source for function code.",
        )),
    }
}

/// The function's properties as the API's input for `name`, after the schema's checks.
fn function_input(
    cx: &ProviderContext<'_>,
    properties: &Value,
    name: String,
) -> Result<CreateFunctionInput, ProviderError> {
    schema::known(cx, properties, FUNCTION_PROPERTIES)?;
    schema::required(cx, properties, &["Code", "Role"])?;
    let role = schema::string(cx, properties, "Role")?.unwrap_or_default();
    static ROLE_RE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(ROLE_PATTERN).expect("a valid pattern"));
    if !ROLE_RE.is_match(&role) {
        return Err(schema::keyword(cx, "Role", "pattern"));
    }
    let timeout = schema::int(cx, properties, "Timeout")?;
    if timeout.is_some_and(|t| t < 1) {
        return Err(schema::keyword(cx, "Timeout", "minimum"));
    }
    let description = schema::string(cx, properties, "Description")?;
    if let Some(d) = &description {
        if d.chars().count() > 256 {
            return Err(schema::max_length(
                cx,
                "Description",
                256,
                d.chars().count(),
            ));
        }
    }
    let handler = schema::string(cx, properties, "Handler")?;
    if let Some(h) = &handler {
        if h.chars().count() > 128 {
            return Err(schema::max_length(cx, "Handler", 128, h.chars().count()));
        }
        if h.is_empty() || h.chars().any(char::is_whitespace) {
            return Err(schema::keyword(cx, "Handler", "pattern"));
        }
    }
    let package_type = schema::string(cx, properties, "PackageType")?;
    if package_type
        .as_deref()
        .is_some_and(|p| p != "Zip" && p != "Image")
    {
        return Err(schema::keyword(cx, "PackageType", "enum"));
    }
    let environment = match properties
        .get("Environment")
        .and_then(|e| e.get("Variables"))
    {
        None | Some(Value::Null) => Default::default(),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), text)
            })
            .collect(),
        Some(other) => {
            return Err(schema::wrong_type(
                cx,
                "Environment/Variables",
                "JSONObject",
                other,
            ))
        }
    };
    let nested = |key: &str, field: &str| -> Result<Option<String>, ProviderError> {
        match properties.get(key) {
            Some(v) => schema::string(cx, v, field),
            None => Ok(None),
        }
    };
    let ephemeral_storage = match properties.get("EphemeralStorage") {
        Some(v) => schema::int(cx, v, "Size")?,
        None => None,
    };
    Ok(CreateFunctionInput {
        function_name: name,
        runtime: schema::string(cx, properties, "Runtime")?,
        role,
        handler,
        code: code(cx, properties)?,
        description,
        timeout,
        memory_size: schema::int(cx, properties, "MemorySize")?,
        package_type,
        environment,
        architectures: schema::strings(cx, properties, "Architectures")?,
        dead_letter_target_arn: nested("DeadLetterConfig", "TargetArn")?,
        tracing_mode: nested("TracingConfig", "Mode")?,
        layers: schema::strings(cx, properties, "Layers")?,
        kms_key_arn: schema::string(cx, properties, "KmsKeyArn")?,
        ephemeral_storage,
        tags: schema::tags_with_system(cx, properties),
    })
}

/// `AWS::Lambda::Function`.
#[derive(Clone, Debug)]
pub struct FunctionProvider {
    lambda: Lambda,
}

impl FunctionProvider {
    /// A provider over `lambda`.
    pub fn new(lambda: Lambda) -> FunctionProvider {
        FunctionProvider { lambda }
    }

    fn provisioned(f: &lambda::Function, properties: &Value) -> Provisioned {
        let snap_start = properties
            .get("SnapStart")
            .and_then(|s| s.get("ApplyOn"))
            .and_then(Value::as_str)
            .unwrap_or("None");
        let status = if snap_start == "None" { "Off" } else { "On" };
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(f.function_arn.clone()));
        attributes.insert(
            "SnapStartResponse".to_string(),
            json!({"ApplyOn": snap_start, "OptimizationStatus": status}),
        );
        attributes.insert(
            "SnapStartResponse.ApplyOn".to_string(),
            Value::String(snap_start.to_string()),
        );
        attributes.insert(
            "SnapStartResponse.OptimizationStatus".to_string(),
            Value::String(status.to_string()),
        );
        Provisioned {
            physical_id: f.function_name.clone(),
            ref_value: Value::String(f.function_name.clone()),
            attributes,
        }
    }
}

impl ResourceProvider for FunctionProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let name = match schema::string(cx, properties, "FunctionName")? {
            Some(n) if n.is_empty() => return Err(schema::min_length(cx, "FunctionName", 1, 0)),
            Some(n) => n,
            None => cx.generated_name(lambda::MAX_NAME, ""),
        };
        let input = function_input(cx, properties, name.clone())?;
        if self.lambda.get_function(cx.scope, &name).is_ok() {
            return Err(schema::already_exists(cx, &name));
        }
        let f = self
            .lambda
            .create_function(cx.scope, input)
            .map_err(handler_error)?;
        Ok(Self::provisioned(&f, properties))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let name = current.physical_id;
        let input = function_input(cx, properties, name.to_string())?;
        let existing = self
            .lambda
            .get_function(cx.scope, name)
            .map_err(|_| schema::not_found(cx, name))?;
        let tags = input.tags.clone();
        self.lambda
            .update_function(cx.scope, name, input)
            .map_err(handler_error)?;
        let (gone, set) = schema::tag_diff(&existing.tags, &tags);
        if !gone.is_empty() {
            self.lambda
                .untag_resource(cx.scope, name, &gone)
                .map_err(handler_error)?;
        }
        if !set.is_empty() {
            self.lambda
                .tag_resource(cx.scope, name, &set)
                .map_err(handler_error)?;
        }
        let f = self
            .lambda
            .get_function(cx.scope, name)
            .map_err(handler_error)?;
        Ok(Self::provisioned(&f, properties))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.lambda.delete_function(cx.scope, current.physical_id) {
            Ok(()) | Err(lambda::Error::ResourceNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

/// `AWS::Lambda::Permission`.
#[derive(Clone, Debug)]
pub struct PermissionProvider {
    lambda: Lambda,
}

impl PermissionProvider {
    /// A provider over `lambda`.
    pub fn new(lambda: Lambda) -> PermissionProvider {
        PermissionProvider { lambda }
    }
}

impl ResourceProvider for PermissionProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, PERMISSION_PROPERTIES)?;
        schema::required(cx, properties, &["FunctionName", "Action", "Principal"])?;
        let function = schema::string(cx, properties, "FunctionName")?.unwrap_or_default();
        let sid = cx.generated_name(MAX_STATEMENT_ID, "");
        let input = AddPermissionInput {
            statement_id: sid.clone(),
            action: schema::string(cx, properties, "Action")?.unwrap_or_default(),
            principal: schema::string(cx, properties, "Principal")?.unwrap_or_default(),
            source_arn: schema::string(cx, properties, "SourceArn")?,
            source_account: schema::string(cx, properties, "SourceAccount")?,
            principal_org_id: schema::string(cx, properties, "PrincipalOrgID")?,
            event_source_token: schema::string(cx, properties, "EventSourceToken")?,
            function_url_auth_type: schema::string(cx, properties, "FunctionUrlAuthType")?,
        };
        self.lambda
            .add_permission(cx.scope, &function, input)
            .map_err(handler_error)?;
        Ok(schema::identified(&sid))
    }

    /// Every property is createOnly: an update only ever re-affirms the same statement (a
    /// rollback restoring it), so the statement is put back if it went missing.
    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, PERMISSION_PROPERTIES)?;
        let function = schema::string(cx, properties, "FunctionName")?.unwrap_or_default();
        let present = self
            .lambda
            .get_function(cx.scope, &function)
            .map_err(handler_error)?
            .policy
            .iter()
            .any(|s| s.sid == current.physical_id);
        if !present {
            return Err(schema::not_found(cx, current.physical_id));
        }
        Ok(schema::identified(current.physical_id))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        let function = schema::string(cx, current.properties, "FunctionName")
            .ok()
            .flatten()
            .unwrap_or_default();
        match self.lambda.remove_permission(
            cx.scope,
            function_name_of(&function),
            current.physical_id,
        ) {
            Ok(()) | Err(lambda::Error::ResourceNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}
