//! Injected failures (`/_cumulo/faults`, `../shared/spec/extensions.md` "Faults").
//!
//! A rule names any of `stack_name`, `logical_id`, `resource_type`, `operation` (a stack step)
//! or `target_arn` (a scheduler delivery); it matches a step only when every field it names
//! matches. Each match uses up one of `count` failures. The stack engine asks
//! [`Faults::match_resource_step`] before each provider call; the dispatcher asks
//! [`Faults::match_delivery`] before each delivery attempt.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::lock;
use serde::{Deserialize, Serialize};

/// The stack step a rule can fail. Mapping (extensions.md): creating a resource (also a
/// replacement's new physical resource) is `Create`; changing one in place, and a schedule's
/// group move as a whole, is `Update`; deleting one (removal, cleanup, deleting what a failed
/// update created) is `Delete`; putting a changed resource back during a rollback is `Restore`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultOperation {
    /// Creating a physical resource.
    Create,
    /// Changing one in place (or moving a schedule between groups).
    Update,
    /// Deleting one.
    Delete,
    /// Putting one back during a rollback.
    Restore,
}

/// The longest `hold_seconds` a rule may ask for (wall-clock seconds).
pub const MAX_HOLD_SECONDS: f64 = 60.0;

/// A rule as posted to `POST /_cumulo/faults` (unknown fields are refused).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRuleInput {
    /// Stack name the step must belong to.
    pub stack_name: Option<String>,
    /// Logical id of the resource.
    pub logical_id: Option<String>,
    /// Resource type, e.g. `AWS::Scheduler::Schedule`.
    pub resource_type: Option<String>,
    /// `create`, `update`, `delete` or `restore`.
    pub operation: Option<String>,
    /// Target ARN of a scheduler delivery.
    pub target_arn: Option<String>,
    /// How many matching calls fail (default 1, at least 1).
    pub count: Option<i64>,
    /// Failure reason shown in the stack event or the invocation's error; without it a rule
    /// with `hold_seconds` only delays the step.
    pub message: Option<String>,
    /// Wall-clock seconds to hold the matching step before it proceeds or fails (0–60).
    pub hold_seconds: Option<f64>,
}

/// A stored rule, as `GET /_cumulo/faults` lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FaultRule {
    /// Opaque id (`DELETE /_cumulo/faults/{id}`).
    pub id: String,
    /// Failures left; a rule at 0 no longer matches.
    pub remaining: i64,
    /// Stack name filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_name: Option<String>,
    /// Logical id filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_id: Option<String>,
    /// Resource type filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// Step filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<FaultOperation>,
    /// Delivery target filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_arn: Option<String>,
    /// The count the rule was created with.
    pub count: i64,
    /// Failure reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Hold before proceeding or failing, in wall-clock seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_seconds: Option<f64>,
}

/// A stack step about to run, as the engine describes it to [`Faults::match_resource_step`].
#[derive(Clone, Copy, Debug)]
pub struct ResourceStep<'a> {
    /// Stack name.
    pub stack_name: &'a str,
    /// Logical id.
    pub logical_id: &'a str,
    /// Resource type.
    pub resource_type: &'a str,
    /// The step.
    pub operation: FaultOperation,
}

/// What a matching rule asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultHit {
    /// Fail with this reason (after the hold), or proceed when `None`.
    pub message: Option<String>,
    /// Wall-clock time to hold the step first.
    pub hold: Option<Duration>,
}

/// Why a rule was refused (HTTP 400 `ValidationException`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct FaultRuleError(pub String);

/// The rule store. Clone it freely; clones share the rules.
#[derive(Clone, Default, Debug)]
pub struct Faults {
    rules: Arc<Mutex<Vec<FaultRule>>>,
}

impl FaultRuleInput {
    /// Validates the input into a rule with the given id.
    pub fn into_rule(self, id: String) -> Result<FaultRule, FaultRuleError> {
        let operation = match self.operation.as_deref() {
            None => None,
            Some("create") => Some(FaultOperation::Create),
            Some("update") => Some(FaultOperation::Update),
            Some("delete") => Some(FaultOperation::Delete),
            Some("restore") => Some(FaultOperation::Restore),
            Some(other) => {
                return Err(FaultRuleError(format!(
                    "operation '{other}' is not one of create, update, delete, restore"
                )))
            }
        };
        let count = self.count.unwrap_or(1);
        if count < 1 {
            return Err(FaultRuleError(format!(
                "count must be at least 1, got {count}"
            )));
        }
        if let Some(hold) = self.hold_seconds {
            if !(0.0..=MAX_HOLD_SECONDS).contains(&hold) {
                return Err(FaultRuleError(format!(
                    "hold_seconds must be between 0 and {MAX_HOLD_SECONDS}, got {hold}"
                )));
            }
        }
        if operation.is_some() && self.target_arn.is_some() {
            return Err(FaultRuleError(
                "a rule names either a stack step (operation) or a delivery (target_arn), not both"
                    .into(),
            ));
        }
        if self.message.is_none() && self.hold_seconds.is_none() {
            return Err(FaultRuleError(
                "a rule needs a message (to fail) or hold_seconds (to hold)".into(),
            ));
        }
        Ok(FaultRule {
            id,
            remaining: count,
            stack_name: self.stack_name,
            logical_id: self.logical_id,
            resource_type: self.resource_type,
            operation,
            target_arn: self.target_arn,
            count,
            message: self.message,
            hold_seconds: self.hold_seconds,
        })
    }
}

fn field_matches(rule: &Option<String>, value: Option<&str>) -> bool {
    match rule {
        None => true,
        Some(want) => value == Some(want.as_str()),
    }
}

impl FaultRule {
    fn hit(&self) -> FaultHit {
        FaultHit {
            message: self.message.clone(),
            hold: self.hold_seconds.map(Duration::from_secs_f64),
        }
    }
}

impl Faults {
    /// Stores a rule.
    pub fn add(&self, rule: FaultRule) {
        lock(&self.rules).push(rule);
    }

    /// Every rule, oldest first.
    pub fn list(&self) -> Vec<FaultRule> {
        lock(&self.rules).clone()
    }

    /// Deletes one rule; false when no rule has that id.
    pub fn remove(&self, id: &str) -> bool {
        let mut rules = lock(&self.rules);
        let before = rules.len();
        rules.retain(|r| r.id != id);
        rules.len() != before
    }

    /// Deletes every rule.
    pub fn clear(&self) {
        lock(&self.rules).clear();
    }

    /// The first live rule matching a stack step, with one failure used up.
    pub fn match_resource_step(&self, step: &ResourceStep<'_>) -> Option<FaultHit> {
        let mut rules = lock(&self.rules);
        let rule = rules.iter_mut().find(|r| {
            r.remaining > 0
                && r.target_arn.is_none()
                && field_matches(&r.stack_name, Some(step.stack_name))
                && field_matches(&r.logical_id, Some(step.logical_id))
                && field_matches(&r.resource_type, Some(step.resource_type))
                && r.operation.is_none_or(|op| op == step.operation)
        })?;
        rule.remaining -= 1;
        Some(rule.hit())
    }

    /// The first live rule matching a delivery to `target_arn`, with one failure used up.
    /// Rules naming a stack step never match a delivery.
    pub fn match_delivery(&self, target_arn: &str) -> Option<FaultHit> {
        let mut rules = lock(&self.rules);
        let rule = rules.iter_mut().find(|r| {
            r.remaining > 0
                && r.stack_name.is_none()
                && r.logical_id.is_none()
                && r.resource_type.is_none()
                && r.operation.is_none()
                && field_matches(&r.target_arn, Some(target_arn))
        })?;
        rule.remaining -= 1;
        Some(rule.hit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(input: FaultRuleInput) -> FaultRule {
        input.into_rule("r1".into()).unwrap()
    }

    #[test]
    fn a_rule_matches_only_when_every_named_field_matches() {
        let faults = Faults::default();
        faults.add(rule(FaultRuleInput {
            stack_name: Some("s".into()),
            logical_id: Some("Nightly".into()),
            operation: Some("update".into()),
            count: Some(2),
            message: Some("injected".into()),
            ..Default::default()
        }));
        let step = |logical_id, operation| ResourceStep {
            stack_name: "s",
            logical_id,
            resource_type: "AWS::Scheduler::Schedule",
            operation,
        };
        assert_eq!(
            faults.match_resource_step(&step("Other", FaultOperation::Update)),
            None
        );
        assert_eq!(
            faults.match_resource_step(&step("Nightly", FaultOperation::Delete)),
            None
        );
        assert!(faults
            .match_delivery("arn:aws:sqs:us-east-1:000000000000:q")
            .is_none());
        let hit = faults
            .match_resource_step(&step("Nightly", FaultOperation::Update))
            .unwrap();
        assert_eq!(hit.message.as_deref(), Some("injected"));
        assert!(faults
            .match_resource_step(&step("Nightly", FaultOperation::Update))
            .is_some());
        assert!(faults
            .match_resource_step(&step("Nightly", FaultOperation::Update))
            .is_none());
        assert_eq!(faults.list()[0].remaining, 0);
    }

    #[test]
    fn invalid_rules_are_refused() {
        let bad_op = FaultRuleInput {
            operation: Some("explode".into()),
            message: Some("x".into()),
            ..Default::default()
        };
        assert!(bad_op.into_rule("1".into()).is_err());
        let bad_count = FaultRuleInput {
            count: Some(0),
            message: Some("x".into()),
            ..Default::default()
        };
        assert!(bad_count.into_rule("1".into()).is_err());
        let long_hold = FaultRuleInput {
            hold_seconds: Some(61.0),
            ..Default::default()
        };
        assert!(long_hold.into_rule("1".into()).is_err());
        let nothing = FaultRuleInput {
            stack_name: Some("s".into()),
            ..Default::default()
        };
        assert!(nothing.into_rule("1".into()).is_err());
    }
}
