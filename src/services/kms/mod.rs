//! AWS KMS keys and aliases, stored so that `AWS::KMS::Key` and `AWS::KMS::Alias` answer what
//! AWS answers (a UUID key id, `arn:aws:kms:<region>:<account>:key/<id>`, key state, policy,
//! aliases). No cryptography and no wire protocol: a `kms` request is an unknown service.
//! Follows the AWS KMS API Reference (2014-11-01).
//!
//! Keys and aliases are keyed by (scope, id) and (scope, alias name). A deleted key is not
//! removed: ScheduleKeyDeletion puts it in `PendingDeletion` with its deletion date, as AWS
//! does (the key is unusable but still described) — it never leaves that state, because no
//! deletion task runs.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

pub use error::Error;

use crate::clock::Clock;
use crate::coral::Violations;
use crate::ids::{IdGen, Scope};
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of keys, keyed `account/region/key id`.
pub const KEYS_TABLE: &str = "kms_keys";
/// Store table of aliases, keyed `account/region/alias name`.
pub const ALIASES_TABLE: &str = "kms_aliases";
/// Most tags on a key.
pub const MAX_TAGS: usize = 50;

/// The `KeyUsage` values.
pub const KEY_USAGES: &[&str] = &[
    "SIGN_VERIFY",
    "ENCRYPT_DECRYPT",
    "GENERATE_VERIFY_MAC",
    "KEY_AGREEMENT",
];

/// The `KeySpec` values.
pub const KEY_SPECS: &[&str] = &[
    "RSA_2048",
    "RSA_3072",
    "RSA_4096",
    "ECC_NIST_P256",
    "ECC_NIST_P384",
    "ECC_NIST_P521",
    "ECC_SECG_P256K1",
    "SYMMETRIC_DEFAULT",
    "HMAC_224",
    "HMAC_256",
    "HMAC_384",
    "HMAC_512",
    "SM2",
    "ML_DSA_44",
    "ML_DSA_65",
    "ML_DSA_87",
    "ECC_NIST_EDWARDS25519",
];

/// A key's state (`KeyState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyState {
    /// `Enabled`.
    Enabled,
    /// `Disabled`.
    Disabled,
    /// `PendingDeletion`.
    PendingDeletion,
}

impl KeyState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Enabled => "Enabled",
            KeyState::Disabled => "Disabled",
            KeyState::PendingDeletion => "PendingDeletion",
        }
    }
}

/// A KMS key (the `KeyMetadata` shape plus its policy, rotation and tags).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// `KeyId`: a UUID.
    pub key_id: String,
    /// `Arn`: `arn:aws:kms:<region>:<account>:key/<key id>`.
    pub arn: String,
    /// `Description` (0–8192 characters).
    pub description: String,
    /// `KeyUsage` (default `ENCRYPT_DECRYPT`).
    pub key_usage: String,
    /// `KeySpec` (default `SYMMETRIC_DEFAULT`).
    pub key_spec: String,
    /// `Origin` (`AWS_KMS`).
    pub origin: String,
    /// `MultiRegion`.
    pub multi_region: bool,
    /// The key policy (JSON text).
    pub policy: String,
    /// `KeyState`.
    pub key_state: KeyState,
    /// Automatic rotation (GetKeyRotationStatus).
    pub key_rotation_enabled: bool,
    /// `RotationPeriodInDays` when rotation is enabled (default 365).
    pub rotation_period_in_days: Option<i64>,
    /// `CreationDate` (UTC).
    pub creation_date: DateTime<Utc>,
    /// `DeletionDate` (UTC) while pending deletion.
    pub deletion_date: Option<DateTime<Utc>>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// An alias (the `AliasListEntry` shape).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// `AliasName`: `alias/<name>`.
    pub alias_name: String,
    /// `AliasArn`: `arn:aws:kms:<region>:<account>:<alias name>`.
    pub alias_arn: String,
    /// `TargetKeyId`: the key id it points to.
    pub target_key_id: String,
    /// `CreationDate` (UTC).
    pub creation_date: DateTime<Utc>,
}

/// CreateKey input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateKeyInput {
    /// `Policy` (JSON text; the default key policy when absent).
    pub policy: Option<String>,
    /// `Description`.
    pub description: Option<String>,
    /// `KeyUsage`.
    pub key_usage: Option<String>,
    /// `KeySpec`.
    pub key_spec: Option<String>,
    /// `MultiRegion`.
    pub multi_region: bool,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    keys: BTreeMap<(Scope, String), Key>,
    aliases: BTreeMap<(Scope, String), Alias>,
}

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the KMS store. Clones share one state.
#[derive(Clone)]
pub struct Kms {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Kms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kms").finish_non_exhaustive()
    }
}

fn store_key(account: &str, region: &str, id: &str) -> String {
    format!("{account}/{region}/{id}")
}

/// The key policy AWS gives a key created without one: the account root may do anything.
pub fn default_key_policy(account: &str) -> String {
    serde_json::json!({
        "Version": "2012-10-17",
        "Id": "key-default-1",
        "Statement": [{
            "Sid": "Enable IAM User Permissions",
            "Effect": "Allow",
            "Principal": {"AWS": format!("arn:aws:iam::{account}:root")},
            "Action": "kms:*",
            "Resource": "*"
        }]
    })
    .to_string()
}

fn check_policy(policy: &str) -> Result<(), Error> {
    match serde_json::from_str::<serde_json::Value>(policy) {
        Ok(v) if v.is_object() => Ok(()),
        _ => Err(Error::MalformedPolicyDocument(
            "The policy is not valid JSON.".to_string(),
        )),
    }
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), Error> {
    if tags.len() > MAX_TAGS {
        return Err(Error::Tag("Too many tags".to_string()));
    }
    for (k, v) in tags {
        if k.is_empty() || k.chars().count() > 128 || v.chars().count() > 256 {
            return Err(Error::Tag(format!("Tag {k} is not valid")));
        }
    }
    Ok(())
}

/// Checks an `AliasName`: `alias/` then `[a-zA-Z0-9:/_-]+`, at most 256 characters.
pub fn check_alias_name(name: &str) -> Result<(), Error> {
    let mut v = Violations::default();
    let chars_ok = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ":/_-".contains(c));
    v.pattern(
        "aliasName",
        name,
        chars_ok && !name.is_empty(),
        "^[a-zA-Z0-9:/_-]+$",
    );
    v.length("aliasName", name, 1, Some(256));
    v.finish()?;
    if !name.starts_with("alias/") || name.len() == "alias/".len() {
        return Err(Error::Validation(
            "Alias must start with the prefix \"alias/\". Please see https://docs.aws.amazon.com/kms/latest/developerguide/kms-alias.html".to_string(),
        ));
    }
    if name.starts_with("alias/aws/") {
        return Err(Error::NotAuthorized(
            "Cannot create alias with prefix 'alias/aws/'".to_string(),
        ));
    }
    Ok(())
}

impl Kms {
    /// A store with the keys and aliases `storage` holds (none in memory).
    pub fn new(clock: Clock, ids: IdGen, storage: Storage) -> Kms {
        let keys = storage
            .load::<Key>(KEYS_TABLE)
            .into_iter()
            .map(|(_, k)| {
                (
                    (
                        Scope::new(k.account.clone(), k.region.clone()),
                        k.key_id.clone(),
                    ),
                    k,
                )
            })
            .collect();
        let aliases = storage
            .load::<Alias>(ALIASES_TABLE)
            .into_iter()
            .map(|(_, a)| {
                (
                    (
                        Scope::new(a.account.clone(), a.region.clone()),
                        a.alias_name.clone(),
                    ),
                    a,
                )
            })
            .collect();
        Kms {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                state: Mutex::new(State { keys, aliases }),
            }),
        }
    }

    fn put_key(&self, key: &Key) {
        self.shared.storage.put(
            KEYS_TABLE,
            &store_key(&key.account, &key.region, &key.key_id),
            key,
        );
    }

    fn put_alias(&self, alias: &Alias) {
        self.shared.storage.put(
            ALIASES_TABLE,
            &store_key(&alias.account, &alias.region, &alias.alias_name),
            alias,
        );
    }

    /// Deletes every key and alias.
    pub fn reset(&self) {
        let mut state = lock(&self.shared.state);
        state.keys.clear();
        state.aliases.clear();
    }

    /// CreateKey. Errors: `ValidationException` for KeyUsage, KeySpec, their combination or
    /// the description; `MalformedPolicyDocumentException` for a policy that is not a JSON
    /// object; `TagException`.
    pub fn create_key(&self, scope: &Scope, input: CreateKeyInput) -> Result<Key, Error> {
        // Coral's checks, in CreateKeyRequest's member order, all reported at once.
        let mut v = Violations::default();
        if let Some(policy) = &input.policy {
            v.length("policy", policy, 1, Some(131_072));
        }
        if let Some(d) = &input.description {
            v.length("description", d, 0, Some(8192));
        }
        if let Some(usage) = &input.key_usage {
            v.one_of("keyUsage", usage, KEY_USAGES);
        }
        if let Some(spec) = &input.key_spec {
            v.one_of("keySpec", spec, KEY_SPECS);
        }
        v.finish()?;
        let key_usage = input
            .key_usage
            .unwrap_or_else(|| "ENCRYPT_DECRYPT".to_string());
        let key_spec = input
            .key_spec
            .unwrap_or_else(|| "SYMMETRIC_DEFAULT".to_string());
        let fits = match key_usage.as_str() {
            "ENCRYPT_DECRYPT" => {
                key_spec == "SYMMETRIC_DEFAULT" || key_spec.starts_with("RSA_") || key_spec == "SM2"
            }
            "GENERATE_VERIFY_MAC" => key_spec.starts_with("HMAC_"),
            "SIGN_VERIFY" => {
                key_spec.starts_with("RSA_")
                    || key_spec.starts_with("ECC_")
                    || key_spec.starts_with("ML_DSA_")
                    || key_spec == "SM2"
            }
            _ => key_spec.starts_with("ECC_NIST_P") || key_spec == "SM2",
        };
        if !fits {
            return Err(Error::Validation(format!(
                "KeyUsage {key_usage} is not compatible with KeySpec {key_spec}"
            )));
        }
        let description = input.description.unwrap_or_default();
        let policy = input
            .policy
            .unwrap_or_else(|| default_key_policy(&scope.account));
        check_policy(&policy)?;
        check_tags(&input.tags)?;
        let uuid = self.shared.ids.uuid();
        let key_id = if input.multi_region {
            format!("mrk-{}", uuid.replace('-', ""))
        } else {
            uuid
        };
        let key = Key {
            account: scope.account.clone(),
            region: scope.region.clone(),
            arn: scope.arn("kms", &format!("key/{key_id}")),
            key_id,
            description,
            key_usage,
            key_spec,
            origin: "AWS_KMS".to_string(),
            multi_region: input.multi_region,
            policy,
            key_state: KeyState::Enabled,
            key_rotation_enabled: false,
            rotation_period_in_days: None,
            creation_date: self.shared.clock.now(),
            deletion_date: None,
            tags: input.tags,
        };
        let mut state = lock(&self.shared.state);
        self.put_key(&key);
        state
            .keys
            .insert((scope.clone(), key.key_id.clone()), key.clone());
        Ok(key)
    }

    /// The key id a `KeyId` names: a key id, a key ARN, an alias name or an alias ARN.
    fn resolve(state: &State, scope: &Scope, key: &str) -> Result<String, Error> {
        let alias_name = if key.starts_with("alias/") {
            Some(key.to_string())
        } else {
            key.strip_prefix(&scope.arn("kms", ""))
                .filter(|rest| rest.starts_with("alias/"))
                .map(str::to_string)
        };
        if let Some(name) = alias_name {
            return state
                .aliases
                .get(&(scope.clone(), name.clone()))
                .map(|a| a.target_key_id.clone())
                .ok_or_else(|| {
                    Error::NotFound(format!("Alias {} is not found.", scope.arn("kms", &name)))
                });
        }
        let id = key.rsplit_once(":key/").map_or(key, |(_, id)| id);
        if state.keys.contains_key(&(scope.clone(), id.to_string())) {
            Ok(id.to_string())
        } else if key.starts_with("arn:")
            || uuid::Uuid::parse_str(id).is_ok()
            || id.starts_with("mrk-")
        {
            Err(Error::NotFound(format!(
                "Key '{}' does not exist",
                scope.arn("kms", &format!("key/{id}"))
            )))
        } else {
            Err(Error::NotFound(format!("Invalid keyId '{key}'")))
        }
    }

    fn with_key<T>(
        &self,
        scope: &Scope,
        key: &str,
        f: impl FnOnce(&mut Key) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut state = lock(&self.shared.state);
        let id = Self::resolve(&state, scope, key)?;
        let k = state
            .keys
            .get_mut(&(scope.clone(), id))
            .ok_or_else(|| Error::NotFound(format!("Invalid keyId '{key}'")))?;
        let before = k.clone();
        let out = f(k)?;
        if *k != before {
            self.put_key(k);
        }
        Ok(out)
    }

    /// DescribeKey: `NotFoundException` "Key '<arn>' does not exist", "Invalid keyId '<id>'"
    /// or "Alias <arn> is not found.".
    pub fn describe_key(&self, scope: &Scope, key: &str) -> Result<Key, Error> {
        self.with_key(scope, key, |k| Ok(k.clone()))
    }

    fn pending(k: &Key) -> Result<(), Error> {
        if k.key_state == KeyState::PendingDeletion {
            return Err(Error::KmsInvalidState(format!(
                "{} is pending deletion.",
                k.arn
            )));
        }
        Ok(())
    }

    /// UpdateKeyDescription.
    pub fn update_key_description(
        &self,
        scope: &Scope,
        key: &str,
        description: &str,
    ) -> Result<(), Error> {
        let mut v = Violations::default();
        v.length("description", description, 0, Some(8192));
        v.finish()?;
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            k.description = description.to_string();
            Ok(())
        })
    }

    /// PutKeyPolicy (policy name `default`).
    pub fn put_key_policy(&self, scope: &Scope, key: &str, policy: &str) -> Result<(), Error> {
        check_policy(policy)?;
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            k.policy = policy.to_string();
            Ok(())
        })
    }

    /// EnableKey (`true`) or DisableKey (`false`).
    pub fn set_enabled(&self, scope: &Scope, key: &str, enabled: bool) -> Result<(), Error> {
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            k.key_state = if enabled {
                KeyState::Enabled
            } else {
                KeyState::Disabled
            };
            Ok(())
        })
    }

    /// EnableKeyRotation (with a period, 90–2560 days, default 365) or DisableKeyRotation.
    /// Only symmetric encryption keys rotate (`UnsupportedOperationException` otherwise).
    pub fn set_key_rotation(
        &self,
        scope: &Scope,
        key: &str,
        enabled: bool,
        period_in_days: Option<i64>,
    ) -> Result<(), Error> {
        if let Some(p) = period_in_days {
            let mut v = Violations::default();
            v.range("rotationPeriodInDays", p, 90, 2560);
            v.finish()?;
        }
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            if enabled && k.key_spec != "SYMMETRIC_DEFAULT" {
                return Err(Error::UnsupportedOperation(format!(
                    "{} key usage and key spec are not supported for this operation.",
                    k.arn
                )));
            }
            k.key_rotation_enabled = enabled;
            k.rotation_period_in_days = enabled.then(|| period_in_days.unwrap_or(365));
            Ok(())
        })
    }

    /// ScheduleKeyDeletion: the key goes to `PendingDeletion` with `DeletionDate` = now +
    /// `pending_window_in_days` (7–30, default 30). Returns the deletion date.
    pub fn schedule_key_deletion(
        &self,
        scope: &Scope,
        key: &str,
        pending_window_in_days: Option<i64>,
    ) -> Result<DateTime<Utc>, Error> {
        let days = pending_window_in_days.unwrap_or(30);
        let mut v = Violations::default();
        v.range("pendingWindowInDays", days, 7, 30);
        v.finish()?;
        let now = self.shared.clock.now();
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            let at = now + Duration::days(days);
            k.key_state = KeyState::PendingDeletion;
            k.deletion_date = Some(at);
            Ok(at)
        })
    }

    /// TagResource on a key.
    pub fn tag_resource(
        &self,
        scope: &Scope,
        key: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            let mut merged = k.tags.clone();
            merged.extend(tags.iter().map(|(a, b)| (a.clone(), b.clone())));
            check_tags(&merged)?;
            k.tags = merged;
            Ok(())
        })
    }

    /// UntagResource on a key.
    pub fn untag_resource(&self, scope: &Scope, key: &str, keys: &[String]) -> Result<(), Error> {
        self.with_key(scope, key, |k| {
            Self::pending(k)?;
            for t in keys {
                k.tags.remove(t);
            }
            Ok(())
        })
    }

    /// CreateAlias. Errors: the name checks of [`check_alias_name`], `AlreadyExistsException`
    /// "An alias with the name <arn> already exists", `NotFoundException` for the target,
    /// `KMSInvalidStateException` for a key pending deletion.
    pub fn create_alias(
        &self,
        scope: &Scope,
        alias_name: &str,
        target_key_id: &str,
    ) -> Result<Alias, Error> {
        check_alias_name(alias_name)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let alias_arn = scope.arn("kms", alias_name);
        if state
            .aliases
            .contains_key(&(scope.clone(), alias_name.to_string()))
        {
            return Err(Error::AlreadyExists(format!(
                "An alias with the name {alias_arn} already exists"
            )));
        }
        let id = Self::resolve(&state, scope, target_key_id)?;
        if let Some(k) = state.keys.get(&(scope.clone(), id.clone())) {
            Self::pending(k)?;
        }
        let alias = Alias {
            account: scope.account.clone(),
            region: scope.region.clone(),
            alias_name: alias_name.to_string(),
            alias_arn,
            target_key_id: id,
            creation_date: now,
        };
        self.put_alias(&alias);
        state
            .aliases
            .insert((scope.clone(), alias_name.to_string()), alias.clone());
        Ok(alias)
    }

    fn alias_not_found(scope: &Scope, alias_name: &str) -> Error {
        Error::NotFound(format!(
            "Alias {} is not found.",
            scope.arn("kms", alias_name)
        ))
    }

    /// The alias `alias_name` (`NotFoundException` "Alias <arn> is not found.").
    pub fn get_alias(&self, scope: &Scope, alias_name: &str) -> Result<Alias, Error> {
        lock(&self.shared.state)
            .aliases
            .get(&(scope.clone(), alias_name.to_string()))
            .cloned()
            .ok_or_else(|| Self::alias_not_found(scope, alias_name))
    }

    /// UpdateAlias: points the alias at another key.
    pub fn update_alias(
        &self,
        scope: &Scope,
        alias_name: &str,
        target_key_id: &str,
    ) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let id = Self::resolve(&state, scope, target_key_id)?;
        if let Some(k) = state.keys.get(&(scope.clone(), id.clone())) {
            Self::pending(k)?;
        }
        let alias = state
            .aliases
            .get_mut(&(scope.clone(), alias_name.to_string()))
            .ok_or_else(|| Self::alias_not_found(scope, alias_name))?;
        alias.target_key_id = id;
        let alias = alias.clone();
        self.put_alias(&alias);
        Ok(())
    }

    /// DeleteAlias (`NotFoundException` when absent).
    pub fn delete_alias(&self, scope: &Scope, alias_name: &str) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        if state
            .aliases
            .remove(&(scope.clone(), alias_name.to_string()))
            .is_none()
        {
            return Err(Self::alias_not_found(scope, alias_name));
        }
        self.shared.storage.delete(
            ALIASES_TABLE,
            &store_key(&scope.account, &scope.region, alias_name),
        );
        Ok(())
    }

    /// ListAliases of `scope`, by name.
    pub fn list_aliases(&self, scope: &Scope) -> Vec<Alias> {
        lock(&self.shared.state)
            .aliases
            .iter()
            .filter(|((s, _), _)| s == scope)
            .map(|(_, a)| a.clone())
            .collect()
    }
}
