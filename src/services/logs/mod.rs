//! CloudWatch Logs log groups, stored so that `AWS::Logs::LogGroup` answers what AWS answers
//! (name, `arn:aws:logs:<region>:<account>:log-group:<name>:*`, retention, KMS key, class,
//! tags). No log events, streams or wire protocol: a `logs` request is an unknown service.
//! Follows the CloudWatch Logs API Reference (2014-03-28) for names, ranges and messages.
//!
//! Log groups are keyed by (scope, name); names are case-sensitive as in AWS.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use error::Error;

use crate::clock::Clock;
use crate::coral::{self, Violations};
use crate::ids::Scope;
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of log groups, keyed `account/region/name`.
pub const LOG_GROUPS_TABLE: &str = "logs_log_groups";

/// The values `retentionInDays` accepts (PutRetentionPolicy), in AWS's order.
pub const RETENTION_DAYS: &[i64] = &[
    1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922,
    3288, 3653,
];

/// The log group classes (`logGroupClass`).
pub const LOG_GROUP_CLASSES: &[&str] = &["STANDARD", "INFREQUENT_ACCESS", "DELIVERY"];

/// Most tags on a log group.
pub const MAX_TAGS: usize = 50;

/// A log group (the `LogGroup` shape of DescribeLogGroups).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogGroup {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// `logGroupName` (1–512 of `[.\-_/#A-Za-z0-9]`).
    pub log_group_name: String,
    /// `creationTime` (UTC; the API shows epoch milliseconds).
    pub creation_time: DateTime<Utc>,
    /// `retentionInDays`, when a retention policy is set (else events never expire).
    pub retention_in_days: Option<i64>,
    /// `kmsKeyId`: the KMS key ARN, when associated.
    pub kms_key_id: Option<String>,
    /// `logGroupClass` (default `STANDARD`).
    pub log_group_class: String,
    /// `dataProtectionPolicy` (JSON text), when set.
    pub data_protection_policy: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

impl LogGroup {
    /// `arn:aws:logs:<region>:<account>:log-group:<name>:*` (the `arn` member, and
    /// CloudFormation's `Fn::GetAtt Arn`).
    pub fn arn(&self) -> String {
        format!("{}:*", self.log_group_arn())
    }

    /// `arn:aws:logs:<region>:<account>:log-group:<name>` (the `logGroupArn` member).
    pub fn log_group_arn(&self) -> String {
        format!(
            "arn:aws:logs:{}:{}:log-group:{}",
            self.region, self.account, self.log_group_name
        )
    }
}

/// CreateLogGroup input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateLogGroupInput {
    /// `logGroupName`.
    pub log_group_name: String,
    /// `kmsKeyId` (a KMS key ARN, at most 256 characters).
    pub kms_key_id: Option<String>,
    /// `logGroupClass` (`STANDARD`, `INFREQUENT_ACCESS`, `DELIVERY`; default `STANDARD`).
    pub log_group_class: Option<String>,
    /// `tags` (at most 50).
    pub tags: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    groups: BTreeMap<(Scope, String), LogGroup>,
}

struct Shared {
    clock: Clock,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the log group store. Clones share one state.
#[derive(Clone)]
pub struct Logs {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Logs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logs").finish_non_exhaustive()
    }
}

fn store_key(scope: &Scope, name: &str) -> String {
    format!("{}/{}/{name}", scope.account, scope.region)
}

/// Checks a `logGroupName` (length 1–512, pattern `[\.\-_/#A-Za-z0-9]+`), Coral wording.
pub fn check_log_group_name(name: &str) -> Result<(), Error> {
    let mut v = Violations::default();
    log_group_name(&mut v, name);
    Ok(v.finish()?)
}

/// The `logGroupName` constraints, pattern before length (AWS's order).
fn log_group_name(v: &mut Violations, name: &str) {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_/#".contains(c));
    v.pattern("logGroupName", name, ok, "[\\.\\-_/#A-Za-z0-9]+");
    v.length("logGroupName", name, 1, Some(512));
}

/// Checks a `retentionInDays` value against [`RETENTION_DAYS`].
pub fn check_retention(days: i64) -> Result<(), Error> {
    if RETENTION_DAYS.contains(&days) {
        return Ok(());
    }
    let set: Vec<String> = RETENTION_DAYS.iter().map(i64::to_string).collect();
    Err(coral::single(
        Some(&days.to_string()),
        "retentionInDays",
        &format!("Member must satisfy enum value set: [{}]", set.join(", ")),
    )
    .into())
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), Error> {
    if tags.len() > MAX_TAGS {
        return Err(coral::single(
            Some(&format!("{tags:?}")),
            "tags",
            &format!("Member must have length less than or equal to {MAX_TAGS}"),
        )
        .into());
    }
    for (k, v) in tags {
        if k.is_empty() || k.chars().count() > 128 {
            return Err(Error::InvalidParameter(format!(
                "Invalid tag key: {k}. Tag keys must be 1-128 characters long."
            )));
        }
        if v.chars().count() > 256 {
            return Err(Error::InvalidParameter(format!(
                "Invalid tag value: {v}. Tag values must be 0-256 characters long."
            )));
        }
    }
    Ok(())
}

impl Logs {
    /// A store with the log groups `storage` holds (none in memory).
    pub fn new(clock: Clock, storage: Storage) -> Logs {
        let groups = storage
            .load::<LogGroup>(LOG_GROUPS_TABLE)
            .into_iter()
            .map(|(_, g)| {
                (
                    (
                        Scope::new(g.account.clone(), g.region.clone()),
                        g.log_group_name.clone(),
                    ),
                    g,
                )
            })
            .collect();
        Logs {
            shared: Arc::new(Shared {
                clock,
                storage,
                state: Mutex::new(State { groups }),
            }),
        }
    }

    fn put(&self, group: &LogGroup) {
        let scope = Scope::new(group.account.clone(), group.region.clone());
        self.shared.storage.put(
            LOG_GROUPS_TABLE,
            &store_key(&scope, &group.log_group_name),
            group,
        );
    }

    /// Deletes every log group.
    pub fn reset(&self) {
        lock(&self.shared.state).groups.clear();
    }

    /// CreateLogGroup. Errors: `ResourceAlreadyExistsException` "The specified log group
    /// already exists", `ValidationException` for the name, class or tag count,
    /// `InvalidParameterException` for a tag or a KMS key that is not an ARN.
    pub fn create_log_group(
        &self,
        scope: &Scope,
        input: CreateLogGroupInput,
    ) -> Result<LogGroup, Error> {
        // Coral's checks of CreateLogGroupRequest, all reported at once.
        let mut v = Violations::default();
        log_group_name(&mut v, &input.log_group_name);
        if let Some(key) = &input.kms_key_id {
            v.length("kmsKeyId", key, 0, Some(256));
        }
        if let Some(class) = &input.log_group_class {
            v.one_of("logGroupClass", class, LOG_GROUP_CLASSES);
        }
        v.finish()?;
        let class = input
            .log_group_class
            .unwrap_or_else(|| "STANDARD".to_string());
        if let Some(key) = &input.kms_key_id {
            check_kms_key(key)?;
        }
        check_tags(&input.tags)?;
        let now = self.shared.clock.now();
        let key = (scope.clone(), input.log_group_name.clone());
        let mut state = lock(&self.shared.state);
        if state.groups.contains_key(&key) {
            return Err(Error::ResourceAlreadyExists(
                "The specified log group already exists".to_string(),
            ));
        }
        let group = LogGroup {
            account: scope.account.clone(),
            region: scope.region.clone(),
            log_group_name: input.log_group_name,
            creation_time: now,
            retention_in_days: None,
            kms_key_id: input.kms_key_id,
            log_group_class: class,
            data_protection_policy: None,
            tags: input.tags,
        };
        self.put(&group);
        state.groups.insert(key, group.clone());
        Ok(group)
    }

    fn with_group<T>(
        &self,
        scope: &Scope,
        name: &str,
        f: impl FnOnce(&mut LogGroup) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut state = lock(&self.shared.state);
        let group = state
            .groups
            .get_mut(&(scope.clone(), name.to_string()))
            .ok_or_else(Error::log_group_not_found)?;
        let before = group.clone();
        let out = f(group)?;
        if *group != before {
            self.put(group);
        }
        Ok(out)
    }

    /// The log group `name` (`ResourceNotFoundException` "The specified log group does not
    /// exist.").
    pub fn describe_log_group(&self, scope: &Scope, name: &str) -> Result<LogGroup, Error> {
        self.with_group(scope, name, |g| Ok(g.clone()))
    }

    /// DescribeLogGroups: the log groups of `scope` whose name starts with `prefix`, by name.
    pub fn describe_log_groups(&self, scope: &Scope, prefix: Option<&str>) -> Vec<LogGroup> {
        lock(&self.shared.state)
            .groups
            .iter()
            .filter(|((s, name), _)| s == scope && name.starts_with(prefix.unwrap_or("")))
            .map(|(_, g)| g.clone())
            .collect()
    }

    /// DeleteLogGroup (`ResourceNotFoundException` when absent).
    pub fn delete_log_group(&self, scope: &Scope, name: &str) -> Result<(), Error> {
        let key = (scope.clone(), name.to_string());
        let mut state = lock(&self.shared.state);
        if state.groups.remove(&key).is_none() {
            return Err(Error::log_group_not_found());
        }
        self.shared
            .storage
            .delete(LOG_GROUPS_TABLE, &store_key(scope, name));
        Ok(())
    }

    /// PutRetentionPolicy: `retentionInDays` must be one of [`RETENTION_DAYS`].
    pub fn put_retention_policy(&self, scope: &Scope, name: &str, days: i64) -> Result<(), Error> {
        check_retention(days)?;
        self.with_group(scope, name, |g| {
            g.retention_in_days = Some(days);
            Ok(())
        })
    }

    /// DeleteRetentionPolicy: events never expire again.
    pub fn delete_retention_policy(&self, scope: &Scope, name: &str) -> Result<(), Error> {
        self.with_group(scope, name, |g| {
            g.retention_in_days = None;
            Ok(())
        })
    }

    /// AssociateKmsKey (`Some`) or DisassociateKmsKey (`None`).
    pub fn set_kms_key(
        &self,
        scope: &Scope,
        name: &str,
        kms_key_id: Option<&str>,
    ) -> Result<(), Error> {
        if let Some(key) = kms_key_id {
            check_kms_key(key)?;
        }
        self.with_group(scope, name, |g| {
            g.kms_key_id = kms_key_id.map(str::to_string);
            Ok(())
        })
    }

    /// PutDataProtectionPolicy (`Some`, JSON text) or DeleteDataProtectionPolicy (`None`).
    pub fn set_data_protection_policy(
        &self,
        scope: &Scope,
        name: &str,
        policy: Option<&str>,
    ) -> Result<(), Error> {
        if let Some(text) = policy {
            if !serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.is_object()) {
                return Err(Error::InvalidParameter(
                    "Invalid data protection policy document: the policy is not valid JSON"
                        .to_string(),
                ));
            }
        }
        self.with_group(scope, name, |g| {
            g.data_protection_policy = policy.map(str::to_string);
            Ok(())
        })
    }

    /// TagLogGroup: adds or replaces tags (at most 50 in all).
    pub fn tag_log_group(
        &self,
        scope: &Scope,
        name: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        check_tags(tags)?;
        self.with_group(scope, name, |g| {
            let mut merged = g.tags.clone();
            merged.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
            check_tags(&merged)?;
            g.tags = merged;
            Ok(())
        })
    }

    /// UntagLogGroup.
    pub fn untag_log_group(&self, scope: &Scope, name: &str, keys: &[String]) -> Result<(), Error> {
        self.with_group(scope, name, |g| {
            for k in keys {
                g.tags.remove(k);
            }
            Ok(())
        })
    }
}

/// A `kmsKeyId` must be a KMS key ARN of at most 256 characters.
fn check_kms_key(key: &str) -> Result<(), Error> {
    let mut v = Violations::default();
    v.length("kmsKeyId", key, 0, Some(256));
    v.finish()?;
    if !(key.starts_with("arn:") && key.contains(":kms:")) {
        return Err(Error::InvalidParameter(format!(
            "Specified KMS key ARN is not valid: {key}"
        )));
    }
    Ok(())
}
