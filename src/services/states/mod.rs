//! AWS Step Functions state machines, stored so that `AWS::StepFunctions::StateMachine`
//! answers what AWS answers (`arn:aws:states:<region>:<account>:stateMachine:<name>`, name,
//! revision id, definition, role, type, tags). Nothing executes, and there is no wire protocol
//! (a `states` request is an unknown service). Follows the AWS Step Functions API Reference
//! (2016-11-23): the definition is checked as far as its JSON shape (`StartAt`, `States`, the
//! start state present), with the service's `Invalid State Machine Definition` wording.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::Error;

use crate::clock::Clock;
use crate::coral::Violations;
use crate::ids::{IdGen, Scope};
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of state machines, keyed by ARN.
pub const STATE_MACHINES_TABLE: &str = "states_state_machines";
/// Most tags on a state machine.
pub const MAX_TAGS: usize = 50;

/// A state machine (the DescribeStateMachine shape, plus tags).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateMachine {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// `name` (1–80 characters, no whitespace or `< > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /`).
    pub name: String,
    /// `stateMachineArn`.
    pub arn: String,
    /// `definition` (Amazon States Language, JSON text).
    pub definition: String,
    /// `roleArn`.
    pub role_arn: String,
    /// `type`: `STANDARD` or `EXPRESS`.
    pub r#type: String,
    /// `loggingConfiguration` as JSON text, when set.
    pub logging_configuration: Option<String>,
    /// `tracingConfiguration.enabled`.
    pub tracing_enabled: bool,
    /// `revisionId`: a UUID, new at every update.
    pub revision_id: String,
    /// `creationDate` (UTC).
    pub creation_date: DateTime<Utc>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// CreateStateMachine input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateStateMachineInput {
    /// `name`.
    pub name: String,
    /// `definition`.
    pub definition: String,
    /// `roleArn`.
    pub role_arn: String,
    /// `type` (default `STANDARD`).
    pub r#type: Option<String>,
    /// `loggingConfiguration` (JSON text).
    pub logging_configuration: Option<String>,
    /// `tracingConfiguration.enabled`.
    pub tracing_enabled: bool,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// UpdateStateMachine input: what is `Some` changes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateStateMachineInput {
    /// `definition`.
    pub definition: Option<String>,
    /// `roleArn`.
    pub role_arn: Option<String>,
    /// `loggingConfiguration` (JSON text; `Some(None)` clears it).
    pub logging_configuration: Option<Option<String>>,
    /// `tracingConfiguration.enabled`.
    pub tracing_enabled: Option<bool>,
}

#[derive(Default)]
struct State {
    machines: BTreeMap<String, StateMachine>,
}

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the state machine store. Clones share one state.
#[derive(Clone)]
pub struct States {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("States").finish_non_exhaustive()
    }
}

/// `arn:aws:states:<region>:<account>:stateMachine:<name>`.
pub fn state_machine_arn(scope: &Scope, name: &str) -> String {
    scope.arn("states", &format!("stateMachine:{name}"))
}

fn invalid_definition(detail: &str) -> Error {
    Error::InvalidDefinition(format!("Invalid State Machine Definition: '{detail}'"))
}

/// Checks a definition as far as its shape: JSON object, `StartAt` and `States` present,
/// `States` a non-empty object naming the start state, each state with a `Type` of the
/// language.
pub fn check_definition(definition: &str) -> Result<(), Error> {
    let doc: Value = serde_json::from_str(definition)
        .map_err(|e| invalid_definition(&format!("INVALID_JSON_DESCRIPTION: {e}")))?;
    let Some(map) = doc.as_object() else {
        return Err(invalid_definition(
            "SCHEMA_VALIDATION_FAILED: Expected value of type: Object at /",
        ));
    };
    let missing: Vec<&str> = ["StartAt", "States"]
        .into_iter()
        .filter(|k| !map.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(invalid_definition(&format!(
            "SCHEMA_VALIDATION_FAILED: These fields are required: [{}] at /",
            missing.join(", ")
        )));
    }
    let Some(states) = map.get("States").and_then(Value::as_object) else {
        return Err(invalid_definition(
            "SCHEMA_VALIDATION_FAILED: Expected value of type: Object at /States",
        ));
    };
    if states.is_empty() {
        return Err(invalid_definition(
            "SCHEMA_VALIDATION_FAILED: Value cannot be empty at /States",
        ));
    }
    let start = map
        .get("StartAt")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !states.contains_key(start) {
        return Err(invalid_definition(&format!(
            "MISSING_TRANSITION_TARGET: Missing 'Next' target: {start} at /StartAt"
        )));
    }
    const TYPES: &[&str] = &[
        "Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map",
    ];
    for (name, state) in states {
        match state.get("Type").and_then(Value::as_str) {
            Some(t) if TYPES.contains(&t) => {}
            Some(_) => {
                return Err(invalid_definition(&format!(
                    "SCHEMA_VALIDATION_FAILED: The field 'Type' should have one of these values: [{}] at /States/{name}/Type",
                    TYPES.join(", ")
                )))
            }
            None => {
                return Err(invalid_definition(&format!(
                    "SCHEMA_VALIDATION_FAILED: These fields are required: [Type] at /States/{name}"
                )))
            }
        }
    }
    Ok(())
}

/// Checks a state machine name: 1–80 characters, none of whitespace, control characters or
/// `< > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /` (`InvalidName` "Invalid Name: '<name>'").
pub fn check_name(name: &str) -> Result<(), Error> {
    let mut v = Violations::default();
    v.length("name", name, 1, Some(80));
    v.finish()?;
    let bad = name
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "<>{}[]?*\"#%\\^|~`$&,;:/".contains(c));
    if bad {
        return Err(Error::InvalidName(format!("Invalid Name: '{name}'")));
    }
    Ok(())
}

/// Checks a role ARN (`InvalidArn`): an ARN, of an IAM role.
fn check_role_arn(arn: &str) -> Result<(), Error> {
    if !arn.starts_with("arn:") {
        return Err(Error::InvalidArn(format!(
            "Invalid Arn: 'Invalid ARN prefix: {arn}'"
        )));
    }
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    if parts.len() != 6 || parts[2] != "iam" || !parts[5].starts_with("role/") {
        return Err(Error::InvalidArn(format!(
            "Invalid Arn: 'Resource type not valid in this context: {}'",
            parts.get(5).copied().unwrap_or(arn)
        )));
    }
    Ok(())
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), Error> {
    if tags.len() > MAX_TAGS {
        return Err(Error::TooManyTags(
            "The number of tags has exceeded the maximum allowed.".to_string(),
        ));
    }
    Ok(())
}

impl States {
    /// A store with the state machines `storage` holds (none in memory).
    pub fn new(clock: Clock, ids: IdGen, storage: Storage) -> States {
        let machines = storage
            .load::<StateMachine>(STATE_MACHINES_TABLE)
            .into_iter()
            .collect();
        States {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                state: Mutex::new(State { machines }),
            }),
        }
    }

    fn put(&self, m: &StateMachine) {
        self.shared.storage.put(STATE_MACHINES_TABLE, &m.arn, m);
    }

    /// Deletes every state machine.
    pub fn reset(&self) {
        lock(&self.shared.state).machines.clear();
    }

    /// CreateStateMachine. Errors: `InvalidName`, `ValidationException` (name length, type),
    /// `InvalidDefinition`, `InvalidArn` (role), `TooManyTags`, `StateMachineAlreadyExists`
    /// "State Machine Already Exists: '<arn>'" (for a different definition or role; the same
    /// request again answers the existing machine, as AWS does).
    pub fn create_state_machine(
        &self,
        scope: &Scope,
        input: CreateStateMachineInput,
    ) -> Result<StateMachine, Error> {
        // Coral's checks of CreateStateMachineInput, all reported at once.
        let mut v = Violations::default();
        v.length("name", &input.name, 1, Some(80));
        if let Some(kind) = &input.r#type {
            v.one_of("type", kind, &["STANDARD", "EXPRESS"]);
        }
        v.finish()?;
        check_name(&input.name)?;
        let kind = input.r#type.unwrap_or_else(|| "STANDARD".to_string());
        check_definition(&input.definition)?;
        check_role_arn(&input.role_arn)?;
        check_tags(&input.tags)?;
        let arn = state_machine_arn(scope, &input.name);
        let mut state = lock(&self.shared.state);
        if let Some(existing) = state.machines.get(&arn) {
            if existing.definition == input.definition
                && existing.role_arn == input.role_arn
                && existing.r#type == kind
            {
                return Ok(existing.clone());
            }
            return Err(Error::StateMachineAlreadyExists(format!(
                "State Machine Already Exists: '{arn}'"
            )));
        }
        let machine = StateMachine {
            account: scope.account.clone(),
            region: scope.region.clone(),
            name: input.name,
            arn: arn.clone(),
            definition: input.definition,
            role_arn: input.role_arn,
            r#type: kind,
            logging_configuration: input.logging_configuration,
            tracing_enabled: input.tracing_enabled,
            revision_id: self.shared.ids.uuid(),
            creation_date: self.shared.clock.now(),
            tags: input.tags,
        };
        self.put(&machine);
        state.machines.insert(arn, machine.clone());
        Ok(machine)
    }

    fn with_machine<T>(
        &self,
        arn: &str,
        f: impl FnOnce(&mut StateMachine) -> Result<T, Error>,
    ) -> Result<T, Error> {
        if !arn.starts_with("arn:") {
            return Err(Error::InvalidArn(format!(
                "Invalid Arn: 'Invalid ARN prefix: {arn}'"
            )));
        }
        let mut state = lock(&self.shared.state);
        let m = state.machines.get_mut(arn).ok_or_else(|| {
            Error::StateMachineDoesNotExist(format!("State Machine Does Not Exist: '{arn}'"))
        })?;
        let before = m.clone();
        let out = f(m)?;
        if *m != before {
            self.put(m);
        }
        Ok(out)
    }

    /// DescribeStateMachine (`StateMachineDoesNotExist` "State Machine Does Not Exist:
    /// '<arn>'", `InvalidArn`).
    pub fn describe_state_machine(&self, arn: &str) -> Result<StateMachine, Error> {
        self.with_machine(arn, |m| Ok(m.clone()))
    }

    /// UpdateStateMachine: changes what `input` gives; a new revision id when anything
    /// changed. Returns the machine.
    pub fn update_state_machine(
        &self,
        arn: &str,
        input: UpdateStateMachineInput,
    ) -> Result<StateMachine, Error> {
        if let Some(d) = &input.definition {
            check_definition(d)?;
        }
        if let Some(r) = &input.role_arn {
            check_role_arn(r)?;
        }
        let revision = self.shared.ids.uuid();
        self.with_machine(arn, |m| {
            let before = m.clone();
            if let Some(d) = input.definition {
                m.definition = d;
            }
            if let Some(r) = input.role_arn {
                m.role_arn = r;
            }
            if let Some(l) = input.logging_configuration {
                m.logging_configuration = l;
            }
            if let Some(t) = input.tracing_enabled {
                m.tracing_enabled = t;
            }
            if *m != before {
                m.revision_id = revision;
            }
            Ok(m.clone())
        })
    }

    /// DeleteStateMachine. Deleting a machine that does not exist succeeds (AWS answers 200).
    pub fn delete_state_machine(&self, arn: &str) -> Result<(), Error> {
        if !arn.starts_with("arn:") {
            return Err(Error::InvalidArn(format!(
                "Invalid Arn: 'Invalid ARN prefix: {arn}'"
            )));
        }
        let mut state = lock(&self.shared.state);
        if state.machines.remove(arn).is_some() {
            self.shared.storage.delete(STATE_MACHINES_TABLE, arn);
        }
        Ok(())
    }

    /// ListStateMachines of `scope`, by ARN.
    pub fn list_state_machines(&self, scope: &Scope) -> Vec<StateMachine> {
        lock(&self.shared.state)
            .machines
            .values()
            .filter(|m| m.account == scope.account && m.region == scope.region)
            .cloned()
            .collect()
    }

    /// TagResource on a state machine.
    pub fn tag_resource(&self, arn: &str, tags: &BTreeMap<String, String>) -> Result<(), Error> {
        self.with_machine(arn, |m| {
            let mut merged = m.tags.clone();
            merged.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
            check_tags(&merged)?;
            m.tags = merged;
            Ok(())
        })
    }

    /// UntagResource on a state machine.
    pub fn untag_resource(&self, arn: &str, keys: &[String]) -> Result<(), Error> {
        self.with_machine(arn, |m| {
            for k in keys {
                m.tags.remove(k);
            }
            Ok(())
        })
    }
}
