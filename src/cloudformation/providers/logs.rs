//! `AWS::Logs::LogGroup` over the log group store (the CloudFormation resource reference's
//! "Return values"): Ref and physical id are the LogGroupName (generated
//! `<stack>-<LogicalId>-<RANDOM>` ≤ 512 when absent); GetAtt `Arn`
//! (`arn:aws:logs:<region>:<account>:log-group:<name>:*`). The schema's checks come first in
//! CloudFormation's words (`#/RetentionInDays: failed validation constraint for keyword
//! [enum]`, the name's and KMS key's patterns and lengths). LogGroupName is createOnly;
//! RetentionInDays (removed: never expire), KmsKeyId, DataProtectionPolicy and Tags (with the
//! stack's and the system tags) change in place; LogGroupClass is fixed at creation (the API
//! cannot change it). A log group whose name exists outside the stack is never adopted
//! (AWS: `Resource of type 'AWS::Logs::LogGroup' with identifier '<name>' already exists.`).

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::logs::{self, CreateLogGroupInput, Logs, RETENTION_DAYS};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The properties the registry schema allows.
const KNOWN: &[&str] = &[
    "BearerTokenAuthenticationEnabled",
    "DataProtectionPolicy",
    "DeletionProtectionEnabled",
    "FieldIndexPolicies",
    "KmsKeyId",
    "LogGroupClass",
    "LogGroupName",
    "ResourcePolicyDocument",
    "RetentionInDays",
    "Tags",
];

/// Longest log group name.
const MAX_NAME: usize = 512;

fn handler_error(err: logs::Error) -> ProviderError {
    let code = match &err {
        logs::Error::ResourceAlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        logs::Error::ResourceNotFound(_) => HandlerErrorCode::NotFound,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// What the schema checks of the mutable properties: (retention, KMS key, data protection
/// policy as JSON text).
type Mutable = (Option<i64>, Option<String>, Option<String>);

fn mutable(cx: &ProviderContext<'_>, properties: &Value) -> Result<Mutable, ProviderError> {
    schema::known(cx, properties, KNOWN)?;
    let retention = schema::int(cx, properties, "RetentionInDays")?;
    if retention.is_some_and(|d| !RETENTION_DAYS.contains(&d)) {
        return Err(schema::keyword(cx, "RetentionInDays", "enum"));
    }
    let kms = schema::string(cx, properties, "KmsKeyId")?;
    if let Some(k) = &kms {
        if k.chars().count() > 256 {
            return Err(schema::max_length(cx, "KmsKeyId", 256, k.chars().count()));
        }
        let ok = regex::Regex::new(r"^arn:[a-z0-9-]+:kms:[a-z0-9-]+:\d{12}:(key|alias)/.+$")
            .is_ok_and(|re| re.is_match(k));
        if !ok {
            return Err(schema::keyword(cx, "KmsKeyId", "pattern"));
        }
    }
    let policy = schema::document(cx, properties, "DataProtectionPolicy", false)?;
    Ok((retention, kms, policy))
}

/// `AWS::Logs::LogGroup`.
#[derive(Clone, Debug)]
pub struct LogGroupProvider {
    logs: Logs,
}

impl LogGroupProvider {
    /// A provider over `logs`.
    pub fn new(logs: Logs) -> LogGroupProvider {
        LogGroupProvider { logs }
    }

    fn provisioned(group: &logs::LogGroup) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(group.arn()));
        Provisioned {
            physical_id: group.log_group_name.clone(),
            ref_value: Value::String(group.log_group_name.clone()),
            attributes,
        }
    }
}

impl ResourceProvider for LogGroupProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (retention, kms_key_id, policy) = mutable(cx, properties)?;
        let name = match schema::string(cx, properties, "LogGroupName")? {
            Some(n) => {
                let len = n.chars().count();
                if len == 0 {
                    return Err(schema::min_length(cx, "LogGroupName", 1, 0));
                }
                if len > MAX_NAME {
                    return Err(schema::max_length(cx, "LogGroupName", MAX_NAME, len));
                }
                if logs::check_log_group_name(&n).is_err() {
                    return Err(schema::keyword(cx, "LogGroupName", "pattern"));
                }
                n
            }
            None => cx.generated_name(MAX_NAME, ""),
        };
        let class = schema::string(cx, properties, "LogGroupClass")?;
        if class
            .as_deref()
            .is_some_and(|c| !logs::LOG_GROUP_CLASSES.contains(&c))
        {
            return Err(schema::keyword(cx, "LogGroupClass", "enum"));
        }
        if self.logs.describe_log_group(cx.scope, &name).is_ok() {
            return Err(schema::already_exists(cx, &name));
        }
        let group = self
            .logs
            .create_log_group(
                cx.scope,
                CreateLogGroupInput {
                    log_group_name: name.clone(),
                    kms_key_id,
                    log_group_class: class,
                    tags: schema::tags_with_system(cx, properties),
                },
            )
            .map_err(handler_error)?;
        let rest = retention
            .map(|d| self.logs.put_retention_policy(cx.scope, &name, d))
            .transpose()
            .and_then(|_| {
                policy
                    .as_deref()
                    .map(|p| {
                        self.logs
                            .set_data_protection_policy(cx.scope, &name, Some(p))
                    })
                    .transpose()
            });
        if let Err(e) = rest {
            let _ = self.logs.delete_log_group(cx.scope, &name);
            return Err(handler_error(e));
        }
        let group = self
            .logs
            .describe_log_group(cx.scope, &group.log_group_name)
            .map_err(handler_error)?;
        Ok(Self::provisioned(&group))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (retention, kms_key_id, policy) = mutable(cx, properties)?;
        let name = current.physical_id;
        let group = self
            .logs
            .describe_log_group(cx.scope, name)
            .map_err(|_| schema::not_found(cx, name))?;
        if group.retention_in_days != retention {
            match retention {
                Some(d) => self.logs.put_retention_policy(cx.scope, name, d),
                None => self.logs.delete_retention_policy(cx.scope, name),
            }
            .map_err(handler_error)?;
        }
        if group.kms_key_id != kms_key_id {
            self.logs
                .set_kms_key(cx.scope, name, kms_key_id.as_deref())
                .map_err(handler_error)?;
        }
        if group.data_protection_policy != policy {
            self.logs
                .set_data_protection_policy(cx.scope, name, policy.as_deref())
                .map_err(handler_error)?;
        }
        let (gone, set) = schema::tag_diff(&group.tags, &schema::tags_with_system(cx, properties));
        if !gone.is_empty() {
            self.logs
                .untag_log_group(cx.scope, name, &gone)
                .map_err(handler_error)?;
        }
        if !set.is_empty() {
            self.logs
                .tag_log_group(cx.scope, name, &set)
                .map_err(handler_error)?;
        }
        let group = self
            .logs
            .describe_log_group(cx.scope, name)
            .map_err(handler_error)?;
        Ok(Self::provisioned(&group))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.logs.delete_log_group(cx.scope, current.physical_id) {
            Ok(()) | Err(logs::Error::ResourceNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}
