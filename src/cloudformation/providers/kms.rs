//! `AWS::KMS::Key` and `AWS::KMS::Alias` over the KMS store (the CloudFormation resource
//! reference's "Return values"):
//!
//! - Key: Ref and physical id are the key id (a UUID; `mrk-…` for multi-Region keys); GetAtt
//!   `Arn`, `KeyId`. KeyPolicy (object or JSON text; the default key policy when absent),
//!   Description, Enabled, EnableKeyRotation / RotationPeriodInDays and Tags (the stack's too;
//!   the schema has no system tags) change in place. KeyUsage, KeySpec, MultiRegion and Origin
//!   cannot change: as the resource reference says, such an update fails (whatever the
//!   UpdateReplacePolicy) rather than replacing the key; the failure's wording is Cumulo's.
//!   Deleting schedules the key's deletion after PendingWindowInDays (7–30, default 30): the
//!   key stays, `PendingDeletion`, as in AWS.
//! - Alias: Ref and physical id are the AliasName (createOnly); TargetKeyId changes in place.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::kms::{self, CreateKeyInput, KeyState, Kms, KEY_SPECS, KEY_USAGES};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The key properties the registry schema allows.
const KEY_PROPERTIES: &[&str] = &[
    "BypassPolicyLockoutSafetyCheck",
    "Description",
    "EnableKeyRotation",
    "Enabled",
    "KeyPolicy",
    "KeySpec",
    "KeyUsage",
    "MultiRegion",
    "Origin",
    "PendingWindowInDays",
    "RotationPeriodInDays",
    "Tags",
];

/// The alias properties the registry schema allows.
const ALIAS_PROPERTIES: &[&str] = &["AliasName", "TargetKeyId"];

fn handler_error(err: kms::Error) -> ProviderError {
    let code = match &err {
        kms::Error::NotFound(_) => HandlerErrorCode::NotFound,
        kms::Error::AlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// The key's settings after the schema's checks.
struct KeySettings {
    policy: Option<String>,
    description: Option<String>,
    enabled: bool,
    rotation: bool,
    rotation_period: Option<i64>,
    key_usage: Option<String>,
    key_spec: Option<String>,
    multi_region: bool,
    origin: String,
}

fn key_settings(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<KeySettings, ProviderError> {
    schema::known(cx, properties, KEY_PROPERTIES)?;
    let key_usage = schema::string(cx, properties, "KeyUsage")?;
    if key_usage
        .as_deref()
        .is_some_and(|u| !KEY_USAGES.contains(&u))
    {
        return Err(schema::keyword(cx, "KeyUsage", "enum"));
    }
    let key_spec = schema::string(cx, properties, "KeySpec")?;
    if key_spec.as_deref().is_some_and(|s| !KEY_SPECS.contains(&s)) {
        return Err(schema::keyword(cx, "KeySpec", "enum"));
    }
    let origin = schema::string(cx, properties, "Origin")?;
    if origin
        .as_deref()
        .is_some_and(|o| o != "AWS_KMS" && o != "EXTERNAL")
    {
        return Err(schema::keyword(cx, "Origin", "enum"));
    }
    let description = schema::string(cx, properties, "Description")?;
    if let Some(d) = &description {
        if d.chars().count() > 8192 {
            return Err(schema::max_length(
                cx,
                "Description",
                8192,
                d.chars().count(),
            ));
        }
    }
    let pending_window = schema::int(cx, properties, "PendingWindowInDays")?;
    match pending_window {
        Some(d) if d < 7 => return Err(schema::keyword(cx, "PendingWindowInDays", "minimum")),
        Some(d) if d > 30 => return Err(schema::keyword(cx, "PendingWindowInDays", "maximum")),
        _ => {}
    }
    let rotation_period = schema::int(cx, properties, "RotationPeriodInDays")?;
    match rotation_period {
        Some(d) if d < 90 => return Err(schema::keyword(cx, "RotationPeriodInDays", "minimum")),
        Some(d) if d > 2560 => return Err(schema::keyword(cx, "RotationPeriodInDays", "maximum")),
        _ => {}
    }
    Ok(KeySettings {
        policy: schema::document(cx, properties, "KeyPolicy", true)?,
        description,
        enabled: schema::boolean(cx, properties, "Enabled")?.unwrap_or(true),
        rotation: schema::boolean(cx, properties, "EnableKeyRotation")?.unwrap_or(false),
        rotation_period,
        key_usage,
        key_spec,
        multi_region: schema::boolean(cx, properties, "MultiRegion")?.unwrap_or(false),
        origin: origin.unwrap_or_else(|| "AWS_KMS".to_string()),
    })
}

/// `AWS::KMS::Key`.
#[derive(Clone, Debug)]
pub struct KeyProvider {
    kms: Kms,
}

impl KeyProvider {
    /// A provider over `kms`.
    pub fn new(kms: Kms) -> KeyProvider {
        KeyProvider { kms }
    }

    fn provisioned(key: &kms::Key) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(key.arn.clone()));
        attributes.insert("KeyId".to_string(), Value::String(key.key_id.clone()));
        Provisioned {
            physical_id: key.key_id.clone(),
            ref_value: Value::String(key.key_id.clone()),
            attributes,
        }
    }

    fn settle(
        &self,
        cx: &ProviderContext<'_>,
        key: &kms::Key,
        s: &KeySettings,
    ) -> Result<(), kms::Error> {
        let want_state = if s.enabled {
            KeyState::Enabled
        } else {
            KeyState::Disabled
        };
        if key.key_state != want_state {
            self.kms.set_enabled(cx.scope, &key.key_id, s.enabled)?;
        }
        let period = s.rotation.then(|| s.rotation_period.unwrap_or(365));
        if key.key_rotation_enabled != s.rotation || key.rotation_period_in_days != period {
            self.kms
                .set_key_rotation(cx.scope, &key.key_id, s.rotation, s.rotation_period)?;
        }
        Ok(())
    }
}

impl ResourceProvider for KeyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let s = key_settings(cx, properties)?;
        let key = self
            .kms
            .create_key(
                cx.scope,
                CreateKeyInput {
                    policy: s.policy.clone(),
                    description: s.description.clone(),
                    key_usage: s.key_usage.clone(),
                    key_spec: s.key_spec.clone(),
                    multi_region: s.multi_region,
                    tags: schema::tags(cx, properties),
                },
            )
            .map_err(handler_error)?;
        if let Err(e) = self.settle(cx, &key, &s) {
            let _ = self
                .kms
                .schedule_key_deletion(cx.scope, &key.key_id, Some(7));
            return Err(handler_error(e));
        }
        Ok(Self::provisioned(&key))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let s = key_settings(cx, properties)?;
        if let Ok(old) = key_settings(cx, current.properties) {
            let usage = |x: &KeySettings| {
                x.key_usage
                    .clone()
                    .unwrap_or_else(|| "ENCRYPT_DECRYPT".into())
            };
            let spec = |x: &KeySettings| {
                x.key_spec
                    .clone()
                    .unwrap_or_else(|| "SYMMETRIC_DEFAULT".into())
            };
            let changed = [
                ("KeyUsage", usage(&old) != usage(&s)),
                ("KeySpec", spec(&old) != spec(&s)),
                ("MultiRegion", old.multi_region != s.multi_region),
                ("Origin", old.origin != s.origin),
            ];
            if let Some((key, _)) = changed.iter().find(|(_, c)| *c) {
                return Err(ProviderError::invalid(format!(
                    "{key} cannot be updated: an AWS::KMS::Key keeps its {key} for its whole life."
                )));
            }
        }
        let id = current.physical_id;
        let key = self
            .kms
            .describe_key(cx.scope, id)
            .map_err(|_| schema::not_found(cx, id))?;
        let description = s.description.clone().unwrap_or_default();
        if key.description != description {
            self.kms
                .update_key_description(cx.scope, id, &description)
                .map_err(handler_error)?;
        }
        let policy = s
            .policy
            .clone()
            .unwrap_or_else(|| kms::default_key_policy(&cx.scope.account));
        if key.policy != policy {
            self.kms
                .put_key_policy(cx.scope, id, &policy)
                .map_err(handler_error)?;
        }
        self.settle(cx, &key, &s).map_err(handler_error)?;
        let wanted: BTreeMap<String, String> = schema::tags(cx, properties);
        let (gone, set) = schema::tag_diff(&key.tags, &wanted);
        if !gone.is_empty() {
            self.kms
                .untag_resource(cx.scope, id, &gone)
                .map_err(handler_error)?;
        }
        if !set.is_empty() {
            self.kms
                .tag_resource(cx.scope, id, &set)
                .map_err(handler_error)?;
        }
        let key = self.kms.describe_key(cx.scope, id).map_err(handler_error)?;
        Ok(Self::provisioned(&key))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        let window = schema::int(cx, current.properties, "PendingWindowInDays")
            .ok()
            .flatten();
        match self
            .kms
            .schedule_key_deletion(cx.scope, current.physical_id, window)
        {
            Ok(_) | Err(kms::Error::NotFound(_)) | Err(kms::Error::KmsInvalidState(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

/// `AWS::KMS::Alias`.
#[derive(Clone, Debug)]
pub struct AliasProvider {
    kms: Kms,
}

impl AliasProvider {
    /// A provider over `kms`.
    pub fn new(kms: Kms) -> AliasProvider {
        AliasProvider { kms }
    }

    fn inputs(
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<(String, String), ProviderError> {
        schema::known(cx, properties, ALIAS_PROPERTIES)?;
        schema::required(cx, properties, &["AliasName", "TargetKeyId"])?;
        let name = schema::string(cx, properties, "AliasName")?.unwrap_or_default();
        let len = name.chars().count();
        if len > 256 {
            return Err(schema::max_length(cx, "AliasName", 256, len));
        }
        static ALIAS_RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"^(alias/)[a-zA-Z0-9:/_-]+$").expect("a valid pattern")
        });
        let ok = ALIAS_RE.is_match(&name);
        if !ok {
            return Err(schema::keyword(cx, "AliasName", "pattern"));
        }
        let target = schema::string(cx, properties, "TargetKeyId")?.unwrap_or_default();
        if target.is_empty() {
            return Err(schema::min_length(cx, "TargetKeyId", 1, 0));
        }
        Ok((name, target))
    }

    fn provisioned(name: &str) -> Provisioned {
        Provisioned {
            physical_id: name.to_string(),
            ref_value: Value::String(name.to_string()),
            attributes: IndexMap::new(),
        }
    }
}

impl ResourceProvider for AliasProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (name, target) = Self::inputs(cx, properties)?;
        if self.kms.get_alias(cx.scope, &name).is_ok() {
            return Err(schema::already_exists(cx, &name));
        }
        self.kms
            .create_alias(cx.scope, &name, &target)
            .map_err(handler_error)?;
        Ok(Self::provisioned(&name))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (_, target) = Self::inputs(cx, properties)?;
        let name = current.physical_id;
        match self.kms.update_alias(cx.scope, name, &target) {
            Ok(()) => Ok(Self::provisioned(name)),
            Err(kms::Error::NotFound(m)) if m.starts_with("Alias ") => {
                Err(schema::not_found(cx, name))
            }
            Err(e) => Err(handler_error(e)),
        }
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.kms.delete_alias(cx.scope, current.physical_id) {
            Ok(()) | Err(kms::Error::NotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}
