//! `AWS::IAM::Policy` and `AWS::IAM::ManagedPolicy` over the IAM store (the CloudFormation
//! resource reference's "Return values"):
//!
//! - Policy: an inline policy `PolicyName` / `PolicyDocument` put on each of `Roles`. Ref and
//!   physical id are a generated id in CloudFormation's short form for this type,
//!   `<stack≤5>-<LogicalId≤4>-<RANDOM>` (23 characters, as a LocalStack recording against AWS
//!   shows: `stack-fnSe-3OZPF82JL41D`); GetAtt `Id`. Every property changes in place (a new
//!   PolicyName moves the policy; roles dropped lose it). At least one of Groups, Roles, Users
//!   must be given.
//! - ManagedPolicy: a customer managed policy attached to each of `Roles`. Ref and physical id
//!   are the policy ARN; GetAtt `PolicyArn`, `PolicyId`, `AttachmentCount`, `CreateDate`,
//!   `DefaultVersionId`, `IsAttachable`, `PermissionsBoundaryUsageCount`, `UpdateDate`. A
//!   generated name is `<stack>-<LogicalId>-<RANDOM>` (≤ 128). ManagedPolicyName, Description
//!   and Path are createOnly; a new PolicyDocument is a new default version.
//!
//! Cumulo's IAM has no users or groups: `Users` and `Groups` are accepted and kept in the
//! stack's record only (a deliberate difference: AWS would check they exist). Both types need
//! CAPABILITY_IAM, which the template module's `required_capabilities` enforces.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::iam::{self, CreatePolicyInput, Iam};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The AWS::IAM::Policy properties the registry schema allows.
const POLICY_PROPERTIES: &[&str] = &["Groups", "PolicyDocument", "PolicyName", "Roles", "Users"];

/// The AWS::IAM::ManagedPolicy properties the registry schema allows.
const MANAGED_POLICY_PROPERTIES: &[&str] = &[
    "Description",
    "Groups",
    "ManagedPolicyName",
    "Path",
    "PolicyDocument",
    "Roles",
    "Users",
];

/// Length of the generated id of an AWS::IAM::Policy.
const POLICY_ID_LEN: usize = 23;

fn handler_error(err: iam::Error) -> ProviderError {
    let code = match &err {
        iam::Error::EntityAlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        iam::Error::NoSuchEntity(_) => HandlerErrorCode::NotFound,
        iam::Error::LimitExceeded(_) => HandlerErrorCode::ServiceLimitExceeded,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// The entities a policy is for.
struct Targets {
    roles: Vec<String>,
    users: Vec<String>,
    groups: Vec<String>,
}

impl Targets {
    fn read(cx: &ProviderContext<'_>, properties: &Value) -> Result<Targets, ProviderError> {
        Ok(Targets {
            roles: schema::strings(cx, properties, "Roles")?,
            users: schema::strings(cx, properties, "Users")?,
            groups: schema::strings(cx, properties, "Groups")?,
        })
    }

    fn is_empty(&self) -> bool {
        self.roles.is_empty() && self.users.is_empty() && self.groups.is_empty()
    }
}

/// `AWS::IAM::Policy`.
#[derive(Clone, Debug)]
pub struct PolicyProvider {
    iam: Iam,
}

impl PolicyProvider {
    /// A provider over `iam`.
    pub fn new(iam: Iam) -> PolicyProvider {
        PolicyProvider { iam }
    }

    fn inputs(
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<(String, String, Targets), ProviderError> {
        schema::known(cx, properties, POLICY_PROPERTIES)?;
        schema::required(cx, properties, &["PolicyDocument", "PolicyName"])?;
        let name = schema::string(cx, properties, "PolicyName")?.unwrap_or_default();
        let document =
            schema::document(cx, properties, "PolicyDocument", true)?.unwrap_or_default();
        let targets = Targets::read(cx, properties)?;
        if targets.is_empty() {
            return Err(ProviderError::invalid(
                "At least one of [Groups,Roles,Users] must be non-empty.",
            ));
        }
        Ok((name, document, targets))
    }

    /// Removes inline policy `name` from `role`; a role or policy already gone is fine.
    fn remove(&self, account: &str, role: &str, name: &str) -> Result<(), ProviderError> {
        match self.iam.delete_role_policy(account, role, name) {
            Ok(()) | Err(iam::Error::NoSuchEntity(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

impl ResourceProvider for PolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (name, document, targets) = Self::inputs(cx, properties)?;
        let account = cx.scope.account.as_str();
        for (i, role) in targets.roles.iter().enumerate() {
            if let Err(e) = self.iam.put_role_policy(account, role, &name, &document) {
                for done in &targets.roles[..i] {
                    let _ = self.remove(account, done, &name);
                }
                return Err(handler_error(e));
            }
        }
        Ok(schema::identified(&cx.generated_name(POLICY_ID_LEN, "")))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (name, document, targets) = Self::inputs(cx, properties)?;
        let account = cx.scope.account.as_str();
        let old_name = schema::string(cx, current.properties, "PolicyName")
            .ok()
            .flatten()
            .unwrap_or_default();
        let old_roles = schema::strings(cx, current.properties, "Roles").unwrap_or_default();
        for role in &old_roles {
            if old_name != name || !targets.roles.contains(role) {
                self.remove(account, role, &old_name)?;
            }
        }
        for role in &targets.roles {
            self.iam
                .put_role_policy(account, role, &name, &document)
                .map_err(handler_error)?;
        }
        Ok(schema::identified(current.physical_id))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        let name = schema::string(cx, current.properties, "PolicyName")
            .ok()
            .flatten()
            .unwrap_or_default();
        for role in schema::strings(cx, current.properties, "Roles").unwrap_or_default() {
            self.remove(&cx.scope.account, &role, &name)?;
        }
        Ok(())
    }
}

/// `AWS::IAM::ManagedPolicy`.
#[derive(Clone, Debug)]
pub struct ManagedPolicyProvider {
    iam: Iam,
}

impl ManagedPolicyProvider {
    /// A provider over `iam`.
    pub fn new(iam: Iam) -> ManagedPolicyProvider {
        ManagedPolicyProvider { iam }
    }

    fn provisioned(&self, arn: &str) -> Result<Provisioned, ProviderError> {
        let policy = self.iam.get_policy(arn).map_err(handler_error)?;
        let mut attributes = IndexMap::new();
        attributes.insert("PolicyArn".to_string(), Value::String(policy.arn.clone()));
        attributes.insert(
            "PolicyId".to_string(),
            Value::String(policy.policy_id.clone()),
        );
        attributes.insert(
            "AttachmentCount".to_string(),
            Value::from(self.iam.attachment_count(arn)),
        );
        attributes.insert(
            "CreateDate".to_string(),
            Value::String(crate::time::iso_millis(policy.create_date)),
        );
        attributes.insert(
            "DefaultVersionId".to_string(),
            Value::String(policy.default_version_id.clone()),
        );
        attributes.insert("IsAttachable".to_string(), Value::Bool(true));
        attributes.insert("PermissionsBoundaryUsageCount".to_string(), Value::from(0));
        attributes.insert(
            "UpdateDate".to_string(),
            Value::String(crate::time::iso_millis(policy.update_date)),
        );
        Ok(Provisioned {
            physical_id: policy.arn.clone(),
            ref_value: Value::String(policy.arn),
            attributes,
        })
    }

    fn detach(&self, account: &str, role: &str, arn: &str) -> Result<(), ProviderError> {
        match self.iam.detach_role_policy(account, role, arn) {
            Ok(()) | Err(iam::Error::NoSuchEntity(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

impl ResourceProvider for ManagedPolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, MANAGED_POLICY_PROPERTIES)?;
        schema::required(cx, properties, &["PolicyDocument"])?;
        let account = cx.scope.account.as_str();
        let name = match schema::string(cx, properties, "ManagedPolicyName")? {
            Some(n) => n,
            None => cx.generated_name(128, ""),
        };
        let document =
            schema::document(cx, properties, "PolicyDocument", true)?.unwrap_or_default();
        let targets = Targets::read(cx, properties)?;
        let policy = self
            .iam
            .create_policy(
                account,
                CreatePolicyInput {
                    policy_name: name,
                    path: schema::string(cx, properties, "Path")?,
                    policy_document: document,
                    description: schema::string(cx, properties, "Description")?,
                    tags: Default::default(),
                },
            )
            .map_err(handler_error)?;
        for (i, role) in targets.roles.iter().enumerate() {
            if let Err(e) = self.iam.attach_role_policy(account, role, &policy.arn) {
                for done in &targets.roles[..i] {
                    let _ = self.detach(account, done, &policy.arn);
                }
                let _ = self.iam.delete_policy(&policy.arn);
                return Err(handler_error(e));
            }
        }
        self.provisioned(&policy.arn)
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, MANAGED_POLICY_PROPERTIES)?;
        schema::required(cx, properties, &["PolicyDocument"])?;
        let account = cx.scope.account.as_str();
        let arn = current.physical_id;
        let policy = self
            .iam
            .get_policy(arn)
            .map_err(|_| schema::not_found(cx, arn))?;
        let document =
            schema::document(cx, properties, "PolicyDocument", true)?.unwrap_or_default();
        if document != policy.policy_document {
            self.iam
                .update_policy_document(arn, &document)
                .map_err(handler_error)?;
        }
        let wanted: BTreeSet<String> = Targets::read(cx, properties)?.roles.into_iter().collect();
        let before: BTreeSet<String> = schema::strings(cx, current.properties, "Roles")
            .unwrap_or_default()
            .into_iter()
            .collect();
        for role in before.difference(&wanted) {
            self.detach(account, role, arn)?;
        }
        for role in &wanted {
            self.iam
                .attach_role_policy(account, role, arn)
                .map_err(handler_error)?;
        }
        self.provisioned(arn)
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        let arn = current.physical_id;
        for role in schema::strings(cx, current.properties, "Roles").unwrap_or_default() {
            self.detach(&cx.scope.account, &role, arn)?;
        }
        match self.iam.delete_policy(arn) {
            Ok(()) | Err(iam::Error::NoSuchEntity(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}
