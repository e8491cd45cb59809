//! The stack settings operations: UpdateTerminationProtection, SetStackPolicy and
//! GetStackPolicy. They change records, never statuses; stack policies are stored, not
//! enforced.

use serde_json::Value;

use crate::ids::Scope;

use super::error::messages::*;
use super::error::Error;
use super::id::StackId;
use super::source;
use super::status::StackStatus;
use super::CloudFormation;

impl CloudFormation {
    /// UpdateTerminationProtection: answers the StackId.
    pub fn update_termination_protection(
        &self,
        scope: &Scope,
        stack_name: &str,
        enable: bool,
    ) -> Result<StackId, Error> {
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let id = region
            .find_id(stack_name)
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?
            .clone();
        let entry = region
            .stack_mut(id.as_str())
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        if entry.status() == StackStatus::DeleteComplete {
            return Err(Error::validation(stack_id_does_not_exist(stack_name)));
        }
        entry.record.enable_termination_protection = enable;
        entry.save();
        Ok(id)
    }

    /// SetStackPolicy: stores the policy (Cumulo does not enforce stack policies).
    pub fn set_stack_policy(
        &self,
        scope: &Scope,
        stack_name: &str,
        body: Option<&str>,
        url: Option<&str>,
    ) -> Result<(), Error> {
        let body = match (body, url) {
            (Some(_), Some(_)) => {
                return Err(Error::validation(
                    "You cannot specify both StackPolicyURL and StackPolicyBody",
                ))
            }
            (Some(b), None) => b.to_string(),
            (None, Some(u)) => source::fetch_url(&self.deps().s3, u)?,
            (None, None) => {
                return Err(Error::validation(
                    "Either StackPolicyBody or StackPolicyURL must be specified.",
                ))
            }
        };
        if serde_json::from_str::<Value>(&body).is_err() {
            return Err(Error::validation(
                "Error validating stack policy: Invalid stack policy",
            ));
        }
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let id = region
            .find_id(stack_name)
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?
            .clone();
        let entry = region
            .stack_mut(id.as_str())
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        entry.record.stack_policy_body = Some(body);
        entry.save();
        Ok(())
    }

    /// GetStackPolicy: the stored policy, if any.
    pub fn get_stack_policy(
        &self,
        scope: &Scope,
        stack_name: &str,
    ) -> Result<Option<String>, Error> {
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        Ok(entry.record.stack_policy_body.clone())
    }
}
