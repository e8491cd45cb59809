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
        static KMS_ARN_RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"^arn:[a-z0-9-]+:kms:[a-z0-9-]+:\d{12}:(key|alias)/.+$")
                .expect("a valid pattern")
        });
        let ok = KMS_ARN_RE.is_match(k);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::cloudformation::model::Tag;
    use crate::ids::{IdGen, Scope};
    use crate::storage::Storage;
    use serde_json::json;

    fn run(f: impl FnOnce(&LogGroupProvider, &ProviderContext<'_>)) {
        let scope = Scope::default_scope();
        let ids = IdGen::seeded(9);
        let clock = Clock::new(crate::clock::ClockMode::Manual);
        let stack_tags = [Tag {
            key: "team".into(),
            value: "ops".into(),
        }];
        let cx = ProviderContext {
            scope: &scope,
            stack_name: "logs",
            stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/logs/1",
            logical_id: "Group",
            type_name: "AWS::Logs::LogGroup",
            stack_tags: &stack_tags,
            ids: &ids,
            clock: &clock,
        };
        let provider = LogGroupProvider::new(Logs::new(clock.clone(), Storage::memory()));
        f(&provider, &cx);
    }

    fn current<'a>(made: &'a Provisioned, properties: &'a Value) -> Current<'a> {
        Current {
            physical_id: &made.physical_id,
            properties,
            attributes: &made.attributes,
        }
    }

    #[test]
    fn create_update_and_delete_a_log_group() {
        run(|p, cx| {
            let props = json!({"LogGroupName": "/app/one", "RetentionInDays": 7, "Tags": [{"Key": "a", "Value": "b"}]});
            let made = p.create(cx, &props).unwrap();
            assert_eq!(made.physical_id, "/app/one");
            assert_eq!(made.ref_value, json!("/app/one"));
            assert_eq!(
                made.attributes["Arn"],
                json!("arn:aws:logs:us-east-1:000000000000:log-group:/app/one:*")
            );
            let group = p.logs.describe_log_group(cx.scope, "/app/one").unwrap();
            assert_eq!(group.retention_in_days, Some(7));
            assert_eq!(group.tags["a"], "b");
            assert_eq!(group.tags["team"], "ops");
            assert_eq!(group.tags["aws:cloudformation:logical-id"], "Group");

            let new = json!({"LogGroupName": "/app/one", "RetentionInDays": "30", "KmsKeyId": "arn:aws:kms:us-east-1:000000000000:key/k"});
            let updated = p.update(cx, &current(&made, &props), &new).unwrap();
            assert_eq!(updated, made);
            let group = p.logs.describe_log_group(cx.scope, "/app/one").unwrap();
            assert_eq!(group.retention_in_days, Some(30));
            assert!(group.kms_key_id.is_some());
            assert!(!group.tags.contains_key("a"));
            let bare = json!({"LogGroupName": "/app/one"});
            p.update(cx, &current(&made, &new), &bare).unwrap();
            let group = p.logs.describe_log_group(cx.scope, "/app/one").unwrap();
            assert_eq!((group.retention_in_days, group.kms_key_id), (None, None));

            p.delete(cx, &current(&made, &bare)).unwrap();
            assert!(p.logs.describe_log_group(cx.scope, "/app/one").is_err());
            p.delete(cx, &current(&made, &bare)).unwrap();
            assert_eq!(
                p.update(cx, &current(&made, &bare), &bare)
                    .unwrap_err()
                    .code,
                HandlerErrorCode::NotFound
            );
        });
    }

    #[test]
    fn generated_names_and_existing_groups() {
        run(|p, cx| {
            let made = p.create(cx, &json!({})).unwrap();
            assert!(
                made.physical_id.starts_with("logs-Group-"),
                "{}",
                made.physical_id
            );
            let err = p
                .create(cx, &json!({"LogGroupName": made.physical_id}))
                .unwrap_err();
            assert_eq!(err.code, HandlerErrorCode::AlreadyExists);
            assert_eq!(
                err.message,
                format!(
                    "Resource of type 'AWS::Logs::LogGroup' with identifier '{}' already exists.",
                    made.physical_id
                )
            );
        });
    }

    #[test]
    fn invalid_properties_are_refused_in_cloudformations_words() {
        run(|p, cx| {
            let prefix = "Properties validation failed for resource Group with message: ";
            let cases = [
                (
                    json!({"RetentionInDays": 2}),
                    "#/RetentionInDays: failed validation constraint for keyword [enum]",
                ),
                (
                    json!({"RetentionInDays": "often"}),
                    "#/RetentionInDays: expected type: Integer, found: String",
                ),
                (
                    json!({"LogGroupName": "has space"}),
                    "#/LogGroupName: failed validation constraint for keyword [pattern]",
                ),
                (
                    json!({"LogGroupName": ""}),
                    "#/LogGroupName: expected minLength: 1, actual: 0",
                ),
                (
                    json!({"LogGroupName": "x".repeat(513)}),
                    "#/LogGroupName: expected maxLength: 512, actual: 513",
                ),
                (
                    json!({"KmsKeyId": "my-key"}),
                    "#/KmsKeyId: failed validation constraint for keyword [pattern]",
                ),
                (
                    json!({"LogGroupClass": "COLD"}),
                    "#/LogGroupClass: failed validation constraint for keyword [enum]",
                ),
                (
                    json!({"DataProtectionPolicy": "text"}),
                    "#/DataProtectionPolicy: expected type: JSONObject, found: String",
                ),
                (
                    json!({"Retention": 7}),
                    "#: extraneous key [Retention] is not permitted",
                ),
            ];
            for (props, detail) in cases {
                let err = p.create(cx, &props).unwrap_err();
                assert_eq!(err.message, format!("{prefix}{detail}"), "{props}");
                assert_eq!(err.code, HandlerErrorCode::InvalidRequest);
            }
            assert!(p.logs.describe_log_groups(cx.scope, None).is_empty());
        });
    }
}
