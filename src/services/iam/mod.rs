//! IAM: roles, their inline policies and attached managed policies, and customer managed
//! policies, stored so that CloudFormation's `AWS::IAM::Role` / `AWS::IAM::Policy` /
//! `AWS::IAM::ManagedPolicy` answer what AWS answers (ARNs, `AROA…` role ids, `Ref`/`GetAtt`).
//! Nothing is enforced: no request is ever authorised against these policies.
//!
//! IAM is global: everything is keyed by account only. Role and policy names are unique per
//! account regardless of case, as in AWS. Follows the IAM API Reference (2010-05-08);
//! no wire yet (an `iam` request is an unknown service).

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use error::Error;

use crate::clock::Clock;
use crate::coral::Violations;
use crate::ids::IdGen;
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of roles, keyed `account/lower-case name`.
pub const ROLES_TABLE: &str = "iam_roles";
/// Store table of customer managed policies, keyed by ARN.
pub const POLICIES_TABLE: &str = "iam_policies";
/// Most tags an IAM role or policy may carry.
pub const MAX_TAGS: usize = 50;
/// Most managed policies attached to one role (the default quota).
pub const MAX_ATTACHED_POLICIES: usize = 20;

/// A role (IAM `Role` shape).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    /// Owner account.
    pub account: String,
    /// `RoleName` (1–64 of `[\w+=,.@-]`).
    pub role_name: String,
    /// `Path` (default `/`).
    pub path: String,
    /// `arn:aws:iam::<account>:role<path><name>`.
    pub arn: String,
    /// `RoleId`: `AROA` + 17 upper-case alphanumerics.
    pub role_id: String,
    /// The trust policy, JSON text as given.
    pub assume_role_policy_document: String,
    /// `Description`, when set.
    pub description: Option<String>,
    /// `MaxSessionDuration` in seconds, 3600–43200 (default 3600).
    pub max_session_duration: i64,
    /// `PermissionsBoundary` policy ARN, when set.
    pub permissions_boundary: Option<String>,
    /// Inline policies: name → JSON document.
    pub policies: BTreeMap<String, String>,
    /// Attached managed policy ARNs, in attach order.
    pub managed_policy_arns: Vec<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// `CreateDate` (UTC).
    pub create_date: DateTime<Utc>,
}

/// CreateRole input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateRoleInput {
    /// `RoleName`.
    pub role_name: String,
    /// `Path` (default `/`).
    pub path: Option<String>,
    /// `AssumeRolePolicyDocument` (JSON text).
    pub assume_role_policy_document: String,
    /// `Description` (at most 1000 characters).
    pub description: Option<String>,
    /// `MaxSessionDuration` (3600–43200, default 3600).
    pub max_session_duration: Option<i64>,
    /// `PermissionsBoundary` (a policy ARN).
    pub permissions_boundary: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// A customer managed policy (IAM `Policy` shape).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManagedPolicy {
    /// Owner account.
    pub account: String,
    /// `PolicyName`.
    pub policy_name: String,
    /// `Path` (default `/`).
    pub path: String,
    /// `arn:aws:iam::<account>:policy<path><name>`.
    pub arn: String,
    /// `PolicyId`: `ANPA` + 17 upper-case alphanumerics.
    pub policy_id: String,
    /// The document (JSON text) of the default version.
    pub policy_document: String,
    /// `Description`, when set.
    pub description: Option<String>,
    /// `DefaultVersionId` (`v1`, then `v2`, … as versions are created).
    pub default_version_id: String,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// `CreateDate` (UTC).
    pub create_date: DateTime<Utc>,
    /// `UpdateDate` (UTC).
    pub update_date: DateTime<Utc>,
}

/// CreatePolicy input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreatePolicyInput {
    /// `PolicyName` (1–128 of `[\w+=,.@-]`).
    pub policy_name: String,
    /// `Path` (default `/`).
    pub path: Option<String>,
    /// `PolicyDocument` (JSON text).
    pub policy_document: String,
    /// `Description`.
    pub description: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    /// `(account, lower-case role name)` → role.
    roles: BTreeMap<(String, String), Role>,
    /// ARN → customer managed policy.
    policies: BTreeMap<String, ManagedPolicy>,
}

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the IAM store. Clones share one state.
#[derive(Clone)]
pub struct Iam {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Iam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iam").finish_non_exhaustive()
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_+=,.@-".contains(c)
}

fn check_name(name: &str, member: &str, max: usize) -> Result<(), Error> {
    let mut v = Violations::default();
    entity_name(&mut v, name, member, max);
    Ok(v.finish()?)
}

/// A role or policy name: pattern `[\w+=,.@-]+`, then length `1..=max` (AWS's order).
fn entity_name(v: &mut Violations, name: &str, member: &str, max: usize) {
    let ok = !name.is_empty() && name.chars().all(is_name_char);
    v.pattern(member, name, ok, "[\\w+=,.@-]+");
    v.length(member, name, 1, Some(max));
}

fn check_path(path: &str) -> Result<(), Error> {
    let ok = path.starts_with('/')
        && path.ends_with('/')
        && path.len() <= 512
        && path.chars().all(|c| ('\u{21}'..='\u{7e}').contains(&c));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(
            "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.".to_string(),
        ))
    }
}

/// A policy document must be a JSON object (CloudFormation passes objects, serialised by the
/// provider).
fn check_document(doc: &str) -> Result<(), Error> {
    match serde_json::from_str::<serde_json::Value>(doc) {
        Ok(v) if v.is_object() => Ok(()),
        Ok(_) => Err(Error::MalformedPolicyDocument(
            "Syntax errors in policy.".to_string(),
        )),
        Err(_) => Err(Error::MalformedPolicyDocument(
            "This policy contains invalid Json".to_string(),
        )),
    }
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), Error> {
    if tags.len() > MAX_TAGS {
        return Err(Error::LimitExceeded(format!(
            "The number of tags has reached the maximum limit of {MAX_TAGS}."
        )));
    }
    let mut v = Violations::default();
    for (key, value) in tags {
        v.length("tags.member.key", key, 1, Some(128));
        v.length("tags.member.value", value, 0, Some(256));
    }
    Ok(v.finish()?)
}

/// True for an AWS managed policy ARN (`arn:aws:iam::aws:policy/...`), which always exists.
pub fn is_aws_managed(policy_arn: &str) -> bool {
    policy_arn
        .split(':')
        .nth(4)
        .is_some_and(|account| account == "aws")
        && policy_arn.contains(":policy/")
}

impl Iam {
    /// An IAM with the roles and policies `storage` holds (none in memory).
    pub fn new(clock: Clock, ids: IdGen, storage: Storage) -> Iam {
        let state = State {
            roles: storage
                .load::<Role>(ROLES_TABLE)
                .into_iter()
                .map(|(_, r)| ((r.account.clone(), r.role_name.to_lowercase()), r))
                .collect(),
            policies: storage
                .load::<ManagedPolicy>(POLICIES_TABLE)
                .into_iter()
                .collect(),
        };
        Iam {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                state: Mutex::new(state),
            }),
        }
    }

    fn put_role(&self, role: &Role) {
        self.shared.storage.put(
            ROLES_TABLE,
            &format!("{}/{}", role.account, role.role_name.to_lowercase()),
            role,
        );
    }

    /// Deletes every role and policy.
    pub fn reset(&self) {
        let mut state = lock(&self.shared.state);
        state.roles.clear();
        state.policies.clear();
    }

    /// CreateRole. Errors: `EntityAlreadyExists` "Role with name X already exists." (names
    /// compare without case), `ValidationError` for the name, description or
    /// MaxSessionDuration (3600–43200), `InvalidInput` for a bad path, `MalformedPolicyDocument`.
    pub fn create_role(&self, account: &str, input: CreateRoleInput) -> Result<Role, Error> {
        // Coral's checks of CreateRoleRequest, in its member order, all reported at once.
        let mut v = Violations::default();
        entity_name(&mut v, &input.role_name, "roleName", 64);
        if let Some(d) = &input.description {
            v.length("description", d, 0, Some(1000));
        }
        if let Some(m) = input.max_session_duration {
            v.range("maxSessionDuration", m, 3600, 43_200);
        }
        v.finish()?;
        let path = input.path.unwrap_or_else(|| "/".to_string());
        check_path(&path)?;
        check_document(&input.assume_role_policy_document)?;
        let max_session_duration = input.max_session_duration.unwrap_or(3600);
        check_tags(&input.tags)?;
        let key = (account.to_string(), input.role_name.to_lowercase());
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        if state.roles.contains_key(&key) {
            return Err(Error::EntityAlreadyExists(format!(
                "Role with name {} already exists.",
                input.role_name
            )));
        }
        let role = Role {
            account: account.to_string(),
            arn: format!("arn:aws:iam::{account}:role{path}{}", input.role_name),
            role_name: input.role_name,
            path,
            role_id: format!("AROA{}", self.shared.ids.upper_alnum(17)),
            assume_role_policy_document: input.assume_role_policy_document,
            description: input.description,
            max_session_duration,
            permissions_boundary: input.permissions_boundary,
            policies: BTreeMap::new(),
            managed_policy_arns: Vec::new(),
            tags: input.tags,
            create_date: now,
        };
        self.put_role(&role);
        state.roles.insert(key, role.clone());
        Ok(role)
    }

    fn with_role<T>(
        &self,
        account: &str,
        role_name: &str,
        f: impl FnOnce(&mut Role) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let key = (account.to_string(), role_name.to_lowercase());
        let mut state = lock(&self.shared.state);
        let role = state
            .roles
            .get_mut(&key)
            .ok_or_else(|| Error::no_such_role(role_name))?;
        let before = role.clone();
        let out = f(role)?;
        if *role != before {
            self.put_role(role);
        }
        Ok(out)
    }

    /// GetRole.
    pub fn get_role(&self, account: &str, role_name: &str) -> Result<Role, Error> {
        self.with_role(account, role_name, |r| Ok(r.clone()))
    }

    /// ListRoles: roles whose path starts with `path_prefix` (default `/`), by name.
    pub fn list_roles(&self, account: &str, path_prefix: Option<&str>) -> Vec<Role> {
        let prefix = path_prefix.unwrap_or("/");
        lock(&self.shared.state)
            .roles
            .iter()
            .filter(|((a, _), r)| a == account && r.path.starts_with(prefix))
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// DeleteRole. As AWS: `DeleteConflict` while inline policies remain ("Cannot delete
    /// entity, must delete policies first.") or managed policies are attached ("Cannot delete
    /// entity, must detach all policies first.").
    pub fn delete_role(&self, account: &str, role_name: &str) -> Result<(), Error> {
        let key = (account.to_string(), role_name.to_lowercase());
        let mut state = lock(&self.shared.state);
        let role = state
            .roles
            .get(&key)
            .ok_or_else(|| Error::no_such_role(role_name))?;
        if !role.policies.is_empty() {
            return Err(Error::DeleteConflict(
                "Cannot delete entity, must delete policies first.".to_string(),
            ));
        }
        if !role.managed_policy_arns.is_empty() {
            return Err(Error::DeleteConflict(
                "Cannot delete entity, must detach all policies first.".to_string(),
            ));
        }
        state.roles.remove(&key);
        self.shared
            .storage
            .delete(ROLES_TABLE, &format!("{}/{}", key.0, key.1));
        Ok(())
    }

    /// UpdateRole: Description and/or MaxSessionDuration.
    pub fn update_role(
        &self,
        account: &str,
        role_name: &str,
        description: Option<String>,
        max_session_duration: Option<i64>,
    ) -> Result<(), Error> {
        if let Some(m) = max_session_duration {
            let mut v = Violations::default();
            v.range("maxSessionDuration", m, 3600, 43_200);
            v.finish()?;
        }
        self.with_role(account, role_name, |r| {
            if let Some(d) = description {
                r.description = Some(d);
            }
            if let Some(m) = max_session_duration {
                r.max_session_duration = m;
            }
            Ok(())
        })
    }

    /// UpdateAssumeRolePolicy.
    pub fn update_assume_role_policy(
        &self,
        account: &str,
        role_name: &str,
        document: &str,
    ) -> Result<(), Error> {
        check_document(document)?;
        self.with_role(account, role_name, |r| {
            r.assume_role_policy_document = document.to_string();
            Ok(())
        })
    }

    /// PutRolePolicy: adds or replaces an inline policy.
    pub fn put_role_policy(
        &self,
        account: &str,
        role_name: &str,
        policy_name: &str,
        document: &str,
    ) -> Result<(), Error> {
        check_name(policy_name, "policyName", 128)?;
        check_document(document)?;
        self.with_role(account, role_name, |r| {
            r.policies
                .insert(policy_name.to_string(), document.to_string());
            Ok(())
        })
    }

    /// GetRolePolicy: the inline policy's document.
    pub fn get_role_policy(
        &self,
        account: &str,
        role_name: &str,
        policy_name: &str,
    ) -> Result<String, Error> {
        self.with_role(account, role_name, |r| {
            r.policies.get(policy_name).cloned().ok_or_else(|| {
                Error::NoSuchEntity(format!(
                    "The role policy with name {policy_name} cannot be found."
                ))
            })
        })
    }

    /// DeleteRolePolicy.
    pub fn delete_role_policy(
        &self,
        account: &str,
        role_name: &str,
        policy_name: &str,
    ) -> Result<(), Error> {
        self.with_role(account, role_name, |r| {
            r.policies.remove(policy_name).map(|_| ()).ok_or_else(|| {
                Error::NoSuchEntity(format!(
                    "The role policy with name {policy_name} cannot be found."
                ))
            })
        })
    }

    /// ListRolePolicies: inline policy names, sorted.
    pub fn list_role_policies(&self, account: &str, role_name: &str) -> Result<Vec<String>, Error> {
        self.with_role(account, role_name, |r| {
            Ok(r.policies.keys().cloned().collect())
        })
    }

    /// AttachRolePolicy: a customer managed policy of this account or any AWS managed policy
    /// (`arn:aws:iam::aws:policy/...`, assumed to exist). Attaching twice is a no-op.
    pub fn attach_role_policy(
        &self,
        account: &str,
        role_name: &str,
        policy_arn: &str,
    ) -> Result<(), Error> {
        let key = (account.to_string(), role_name.to_lowercase());
        let mut state = lock(&self.shared.state);
        if !state.roles.contains_key(&key) {
            return Err(Error::no_such_role(role_name));
        }
        if !is_aws_managed(policy_arn) && !state.policies.contains_key(policy_arn) {
            return Err(Error::NoSuchEntity(format!(
                "Policy {policy_arn} does not exist or is not attachable."
            )));
        }
        let role = state
            .roles
            .get_mut(&key)
            .ok_or_else(|| Error::no_such_role(role_name))?;
        if role.managed_policy_arns.iter().any(|a| a == policy_arn) {
            return Ok(());
        }
        if role.managed_policy_arns.len() >= MAX_ATTACHED_POLICIES {
            return Err(Error::LimitExceeded(format!(
                "Cannot exceed quota for PoliciesPerRole: {MAX_ATTACHED_POLICIES}"
            )));
        }
        role.managed_policy_arns.push(policy_arn.to_string());
        self.put_role(role);
        Ok(())
    }

    /// DetachRolePolicy: `NoSuchEntity` "Policy <arn> was not found." when not attached.
    pub fn detach_role_policy(
        &self,
        account: &str,
        role_name: &str,
        policy_arn: &str,
    ) -> Result<(), Error> {
        self.with_role(account, role_name, |r| {
            let before = r.managed_policy_arns.len();
            r.managed_policy_arns.retain(|a| a != policy_arn);
            if r.managed_policy_arns.len() == before {
                return Err(Error::NoSuchEntity(format!(
                    "Policy {policy_arn} was not found."
                )));
            }
            Ok(())
        })
    }

    /// ListAttachedRolePolicies: the attached policy ARNs, in attach order.
    pub fn list_attached_role_policies(
        &self,
        account: &str,
        role_name: &str,
    ) -> Result<Vec<String>, Error> {
        self.with_role(account, role_name, |r| Ok(r.managed_policy_arns.clone()))
    }

    /// TagRole: adds or replaces tags (at most 50 in all).
    pub fn tag_role(
        &self,
        account: &str,
        role_name: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        check_tags(tags)?;
        self.with_role(account, role_name, |r| {
            let mut merged = r.tags.clone();
            merged.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
            check_tags(&merged)?;
            r.tags = merged;
            Ok(())
        })
    }

    /// UntagRole.
    pub fn untag_role(&self, account: &str, role_name: &str, keys: &[String]) -> Result<(), Error> {
        self.with_role(account, role_name, |r| {
            for k in keys {
                r.tags.remove(k);
            }
            Ok(())
        })
    }

    /// CreatePolicy. `EntityAlreadyExists` "A policy called X already exists. Duplicate names
    /// are not allowed."
    pub fn create_policy(
        &self,
        account: &str,
        input: CreatePolicyInput,
    ) -> Result<ManagedPolicy, Error> {
        check_name(&input.policy_name, "policyName", 128)?;
        let path = input.path.unwrap_or_else(|| "/".to_string());
        check_path(&path)?;
        check_document(&input.policy_document)?;
        check_tags(&input.tags)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let lower = input.policy_name.to_lowercase();
        let exists = state
            .policies
            .values()
            .any(|p| p.account == account && p.policy_name.to_lowercase() == lower);
        if exists {
            return Err(Error::EntityAlreadyExists(format!(
                "A policy called {} already exists. Duplicate names are not allowed.",
                input.policy_name
            )));
        }
        let policy = ManagedPolicy {
            account: account.to_string(),
            arn: format!("arn:aws:iam::{account}:policy{path}{}", input.policy_name),
            policy_name: input.policy_name,
            path,
            policy_id: format!("ANPA{}", self.shared.ids.upper_alnum(17)),
            policy_document: input.policy_document,
            description: input.description,
            default_version_id: "v1".to_string(),
            tags: input.tags,
            create_date: now,
            update_date: now,
        };
        self.shared
            .storage
            .put(POLICIES_TABLE, &policy.arn, &policy);
        state.policies.insert(policy.arn.clone(), policy.clone());
        Ok(policy)
    }

    /// GetPolicy: `NoSuchEntity` "Policy <arn> does not exist or is not attachable."
    pub fn get_policy(&self, policy_arn: &str) -> Result<ManagedPolicy, Error> {
        lock(&self.shared.state)
            .policies
            .get(policy_arn)
            .cloned()
            .ok_or_else(|| {
                Error::NoSuchEntity(format!(
                    "Policy {policy_arn} does not exist or is not attachable."
                ))
            })
    }

    /// CreatePolicyVersion with SetAsDefault: replaces the document and moves the default
    /// version on (`v2`, `v3`, ...).
    pub fn update_policy_document(&self, policy_arn: &str, document: &str) -> Result<(), Error> {
        check_document(document)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let policy = state.policies.get_mut(policy_arn).ok_or_else(|| {
            Error::NoSuchEntity(format!(
                "Policy {policy_arn} does not exist or is not attachable."
            ))
        })?;
        let n: u32 = policy
            .default_version_id
            .trim_start_matches('v')
            .parse()
            .unwrap_or(1);
        policy.default_version_id = format!("v{}", n + 1);
        policy.policy_document = document.to_string();
        policy.update_date = now;
        self.shared
            .storage
            .put(POLICIES_TABLE, policy_arn, &*policy);
        Ok(())
    }

    /// How many roles a managed policy is attached to (`AttachmentCount`).
    pub fn attachment_count(&self, policy_arn: &str) -> usize {
        lock(&self.shared.state)
            .roles
            .values()
            .filter(|r| r.managed_policy_arns.iter().any(|a| a == policy_arn))
            .count()
    }

    /// DeletePolicy: `DeleteConflict` "Cannot delete a policy attached to entities." while
    /// attached.
    pub fn delete_policy(&self, policy_arn: &str) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        if !state.policies.contains_key(policy_arn) {
            return Err(Error::NoSuchEntity(format!(
                "Policy {policy_arn} does not exist or is not attachable."
            )));
        }
        let attached = state
            .roles
            .values()
            .any(|r| r.managed_policy_arns.iter().any(|a| a == policy_arn));
        if attached {
            return Err(Error::DeleteConflict(
                "Cannot delete a policy attached to entities.".to_string(),
            ));
        }
        state.policies.remove(policy_arn);
        self.shared.storage.delete(POLICIES_TABLE, policy_arn);
        Ok(())
    }

    /// ListPolicies (Scope=Local): this account's customer managed policies, by ARN.
    pub fn list_policies(&self, account: &str) -> Vec<ManagedPolicy> {
        lock(&self.shared.state)
            .policies
            .values()
            .filter(|p| p.account == account)
            .cloned()
            .collect()
    }
}
