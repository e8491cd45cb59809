//! `AWS::IAM::Role` over the IAM store (aws-contract.md §5.3): the role with its inline
//! `Policies`, attached `ManagedPolicyArns` and tags (the template's and the stack's). Ref is
//! the RoleName (generated `<stack>-<LogicalId>-<RANDOM>` ≤ 64 when absent); GetAtt `Arn`
//! (`arn:aws:iam::<account>:role<path><name>`) and `RoleId`. RoleName and Path are createOnly;
//! everything else is updated in place. A role whose name exists outside the stack is never
//! adopted (the store refuses the name: `Role with name X already exists.`).

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::iam::{self, CreateRoleInput, Iam};

use super::props::{self, string};
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The properties the registry schema allows.
const KNOWN: &[&str] = &[
    "AssumeRolePolicyDocument",
    "Description",
    "ManagedPolicyArns",
    "MaxSessionDuration",
    "Path",
    "PermissionsBoundary",
    "Policies",
    "RoleName",
    "Tags",
];

fn handler_error(err: iam::Error) -> ProviderError {
    let code = match &err {
        iam::Error::EntityAlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        iam::Error::NoSuchEntity(_) => HandlerErrorCode::NotFound,
        iam::Error::LimitExceeded(_) => HandlerErrorCode::ServiceLimitExceeded,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// A policy document given as an object or as JSON text, as JSON text.
fn document(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// `Policies` as name → document.
fn inline_policies(properties: &Value) -> Result<BTreeMap<String, String>, ProviderError> {
    let mut out = BTreeMap::new();
    for p in properties
        .get("Policies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = string(p, "PolicyName").ok_or_else(|| {
            ProviderError::invalid(
                "Properties validation failed for resource with message: #/Policies: required key [PolicyName] not found",
            )
        })?;
        let doc = document(p.get("PolicyDocument")).ok_or_else(|| {
            ProviderError::invalid(
                "Properties validation failed for resource with message: #/Policies: required key [PolicyDocument] not found",
            )
        })?;
        out.insert(name, doc);
    }
    Ok(out)
}

fn managed_policies(properties: &Value) -> Vec<String> {
    properties
        .get("ManagedPolicyArns")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `AWS::IAM::Role`.
#[derive(Clone, Debug)]
pub struct RoleProvider {
    iam: Iam,
}

impl RoleProvider {
    /// A provider over `iam`.
    pub fn new(iam: Iam) -> RoleProvider {
        RoleProvider { iam }
    }

    fn provisioned(role: iam::Role) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(role.arn.clone()));
        attributes.insert("RoleId".to_string(), Value::String(role.role_id.clone()));
        Provisioned {
            physical_id: role.role_name.clone(),
            ref_value: Value::String(role.role_name),
            attributes,
        }
    }

    fn tags(cx: &ProviderContext<'_>, properties: &Value) -> BTreeMap<String, String> {
        let mut tags: BTreeMap<String, String> = cx
            .stack_tags
            .iter()
            .map(|t| (t.key.clone(), t.value.clone()))
            .collect();
        tags.extend(props::tags(properties));
        tags
    }

    /// Puts the inline and managed policies of `properties` on the role (creation).
    fn attach(&self, account: &str, name: &str, properties: &Value) -> Result<(), ProviderError> {
        for (policy, doc) in inline_policies(properties)? {
            self.iam
                .put_role_policy(account, name, &policy, &doc)
                .map_err(handler_error)?;
        }
        for arn in managed_policies(properties) {
            self.iam
                .attach_role_policy(account, name, &arn)
                .map_err(handler_error)?;
        }
        Ok(())
    }

    /// Removes a role with whatever policies it has (delete, and cleanup of a failed create).
    fn remove(&self, account: &str, name: &str) -> Result<(), iam::Error> {
        let role = match self.iam.get_role(account, name) {
            Ok(r) => r,
            Err(iam::Error::NoSuchEntity(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        for policy in role.policies.keys() {
            self.iam.delete_role_policy(account, name, policy)?;
        }
        for arn in &role.managed_policy_arns {
            self.iam.detach_role_policy(account, name, arn)?;
        }
        match self.iam.delete_role(account, name) {
            Ok(()) | Err(iam::Error::NoSuchEntity(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

impl ResourceProvider for RoleProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties)?;
        let account = cx.scope.account.as_str();
        let name = string(properties, "RoleName").unwrap_or_else(|| cx.generated_name(64, ""));
        let trust = document(properties.get("AssumeRolePolicyDocument")).ok_or_else(|| {
            ProviderError::invalid(format!(
                "Properties validation failed for resource {} with message: #: required key [AssumeRolePolicyDocument] not found",
                cx.logical_id
            ))
        })?;
        let input = CreateRoleInput {
            role_name: name.clone(),
            path: string(properties, "Path"),
            assume_role_policy_document: trust,
            description: string(properties, "Description"),
            max_session_duration: props::int(properties, "MaxSessionDuration")?,
            permissions_boundary: string(properties, "PermissionsBoundary"),
            tags: Self::tags(cx, properties),
        };
        self.iam
            .create_role(account, input)
            .map_err(handler_error)?;
        if let Err(e) = self.attach(account, &name, properties) {
            let _ = self.remove(account, &name);
            return Err(e);
        }
        let role = self.iam.get_role(account, &name).map_err(handler_error)?;
        Ok(Self::provisioned(role))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties)?;
        let account = cx.scope.account.as_str();
        let name = current.physical_id;
        let role = self.iam.get_role(account, name).map_err(handler_error)?;
        if let Some(trust) = document(properties.get("AssumeRolePolicyDocument")) {
            if trust != role.assume_role_policy_document {
                self.iam
                    .update_assume_role_policy(account, name, &trust)
                    .map_err(handler_error)?;
            }
        }
        self.iam
            .update_role(
                account,
                name,
                Some(string(properties, "Description").unwrap_or_default()),
                Some(props::int(properties, "MaxSessionDuration")?.unwrap_or(3600)),
            )
            .map_err(handler_error)?;
        let wanted = inline_policies(properties)?;
        for policy in role.policies.keys().filter(|p| !wanted.contains_key(*p)) {
            self.iam
                .delete_role_policy(account, name, policy)
                .map_err(handler_error)?;
        }
        for (policy, doc) in &wanted {
            if role.policies.get(policy) != Some(doc) {
                self.iam
                    .put_role_policy(account, name, policy, doc)
                    .map_err(handler_error)?;
            }
        }
        let managed: BTreeSet<String> = managed_policies(properties).into_iter().collect();
        for arn in role
            .managed_policy_arns
            .iter()
            .filter(|a| !managed.contains(*a))
        {
            self.iam
                .detach_role_policy(account, name, arn)
                .map_err(handler_error)?;
        }
        for arn in managed
            .iter()
            .filter(|a| !role.managed_policy_arns.contains(a))
        {
            self.iam
                .attach_role_policy(account, name, arn)
                .map_err(handler_error)?;
        }
        let tags = Self::tags(cx, properties);
        let gone: Vec<String> = role
            .tags
            .keys()
            .filter(|k| !tags.contains_key(*k))
            .cloned()
            .collect();
        if !gone.is_empty() {
            self.iam
                .untag_role(account, name, &gone)
                .map_err(handler_error)?;
        }
        if !tags.is_empty() {
            self.iam
                .tag_role(account, name, &tags)
                .map_err(handler_error)?;
        }
        let role = self.iam.get_role(account, name).map_err(handler_error)?;
        Ok(Self::provisioned(role))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        self.remove(&cx.scope.account, current.physical_id)
            .map_err(handler_error)
    }
}

fn check_known(cx: &ProviderContext<'_>, properties: &Value) -> Result<(), ProviderError> {
    if let Some(map) = properties.as_object() {
        let extra: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !KNOWN.contains(k))
            .collect();
        if !extra.is_empty() {
            return Err(ProviderError::invalid(format!(
                "Properties validation failed for resource {} with message: #: extraneous key [{}] is not permitted",
                cx.logical_id,
                extra.join(", ")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn policies_are_read_as_objects_or_text() {
        let props = json!({
            "Policies": [
                {"PolicyName": "a", "PolicyDocument": {"Version": "2012-10-17"}},
                {"PolicyName": "b", "PolicyDocument": "{\"Version\":\"2012-10-17\"}"}
            ],
            "ManagedPolicyArns": ["arn:aws:iam::aws:policy/ReadOnlyAccess"]
        });
        let p = inline_policies(&props).unwrap();
        assert_eq!(p["a"], r#"{"Version":"2012-10-17"}"#);
        assert_eq!(p["b"], r#"{"Version":"2012-10-17"}"#);
        assert_eq!(managed_policies(&props).len(), 1);
        let missing = json!({"Policies": [{"PolicyName": "a"}]});
        assert!(inline_policies(&missing).is_err());
    }
}
