//! `AWS::StepFunctions::StateMachine` over the state machine store (the CloudFormation resource
//! reference's "Return values"): Ref and physical id are the state machine ARN; GetAtt `Arn`,
//! `Name`, `StateMachineRevisionId`. The definition is `DefinitionString` (text) or
//! `Definition` (an object, serialised), with each `${key}` of `DefinitionSubstitutions`
//! replaced by its value; `DefinitionS3Location` is refused (Cumulo's S3 is not read for
//! definitions). A generated name is `<LogicalId>-<RANDOM>` (≤ 80: CloudFormation names state
//! machines without the stack name). StateMachineName and StateMachineType are createOnly;
//! definition, role, logging, tracing and tags (with the stack's and the system tags) change
//! in place, each change a new revision id.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::states::{self, CreateStateMachineInput, States, UpdateStateMachineInput};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The properties the registry schema allows.
const KNOWN: &[&str] = &[
    "Definition",
    "DefinitionS3Location",
    "DefinitionString",
    "DefinitionSubstitutions",
    "EncryptionConfiguration",
    "LoggingConfiguration",
    "RoleArn",
    "StateMachineName",
    "StateMachineType",
    "Tags",
    "TracingConfiguration",
];

/// Longest state machine name.
const MAX_NAME: usize = 80;

fn handler_error(err: states::Error) -> ProviderError {
    let code = match &err {
        states::Error::StateMachineAlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        states::Error::StateMachineDoesNotExist(_) => HandlerErrorCode::NotFound,
        states::Error::TooManyTags(_) => HandlerErrorCode::ServiceLimitExceeded,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// The definition text: DefinitionString or Definition, substitutions applied.
fn definition(cx: &ProviderContext<'_>, properties: &Value) -> Result<String, ProviderError> {
    let given = ["Definition", "DefinitionString", "DefinitionS3Location"]
        .into_iter()
        .filter(|k| properties.get(*k).is_some_and(|v| !v.is_null()))
        .count();
    if given != 1 {
        // everit's oneOf wording (unverified against AWS for this type).
        return Err(schema::failed(
            cx,
            &format!("#: {given} subschemas matched instead of one"),
        ));
    }
    if properties.get("DefinitionS3Location").is_some() {
        return Err(ProviderError::invalid(
            "Cumulo does not read state machine definitions from S3: use Definition or DefinitionString",
        ));
    }
    let mut text = match properties.get("Definition") {
        Some(v @ Value::Object(_)) => v.to_string(),
        Some(other) => return Err(schema::wrong_type(cx, "Definition", "JSONObject", other)),
        None => {
            let text = schema::string(cx, properties, "DefinitionString")?.unwrap_or_default();
            if text.is_empty() {
                return Err(schema::min_length(cx, "DefinitionString", 1, 0));
            }
            text
        }
    };
    match properties.get("DefinitionSubstitutions") {
        None | Some(Value::Null) => {}
        Some(Value::Object(subs)) => {
            for (key, value) in subs {
                let with = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(schema::wrong_type(
                            cx,
                            &format!("DefinitionSubstitutions/{key}"),
                            "String",
                            other,
                        ))
                    }
                };
                text = text.replace(&format!("${{{key}}}"), &with);
            }
        }
        Some(other) => {
            return Err(schema::wrong_type(
                cx,
                "DefinitionSubstitutions",
                "JSONObject",
                other,
            ))
        }
    }
    Ok(text)
}

/// `TracingConfiguration.Enabled`.
fn tracing(cx: &ProviderContext<'_>, properties: &Value) -> Result<bool, ProviderError> {
    match properties.get("TracingConfiguration") {
        Some(t) => Ok(schema::boolean(cx, t, "Enabled")?.unwrap_or(false)),
        None => Ok(false),
    }
}

/// `AWS::StepFunctions::StateMachine`.
#[derive(Clone, Debug)]
pub struct StateMachineProvider {
    states: States,
}

impl StateMachineProvider {
    /// A provider over `states`.
    pub fn new(states: States) -> StateMachineProvider {
        StateMachineProvider { states }
    }

    fn provisioned(m: &states::StateMachine) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(m.arn.clone()));
        attributes.insert("Name".to_string(), Value::String(m.name.clone()));
        attributes.insert(
            "StateMachineRevisionId".to_string(),
            Value::String(m.revision_id.clone()),
        );
        Provisioned {
            physical_id: m.arn.clone(),
            ref_value: Value::String(m.arn.clone()),
            attributes,
        }
    }

    fn common(
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<(String, String, Option<String>, bool), ProviderError> {
        schema::known(cx, properties, KNOWN)?;
        schema::required(cx, properties, &["RoleArn"])?;
        let role = schema::string(cx, properties, "RoleArn")?.unwrap_or_default();
        if role.is_empty() {
            return Err(schema::min_length(cx, "RoleArn", 1, 0));
        }
        if role.chars().count() > 256 {
            return Err(schema::max_length(cx, "RoleArn", 256, role.chars().count()));
        }
        let logging = match properties.get("LoggingConfiguration") {
            None | Some(Value::Null) => None,
            Some(v @ Value::Object(_)) => Some(v.to_string()),
            Some(other) => {
                return Err(schema::wrong_type(
                    cx,
                    "LoggingConfiguration",
                    "JSONObject",
                    other,
                ))
            }
        };
        Ok((
            definition(cx, properties)?,
            role,
            logging,
            tracing(cx, properties)?,
        ))
    }
}

impl ResourceProvider for StateMachineProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (definition, role_arn, logging_configuration, tracing_enabled) =
            Self::common(cx, properties)?;
        let kind = schema::string(cx, properties, "StateMachineType")?;
        if kind
            .as_deref()
            .is_some_and(|k| k != "STANDARD" && k != "EXPRESS")
        {
            return Err(schema::keyword(cx, "StateMachineType", "enum"));
        }
        let name = match schema::string(cx, properties, "StateMachineName")? {
            Some(n) if n.chars().count() > MAX_NAME => {
                return Err(schema::max_length(
                    cx,
                    "StateMachineName",
                    MAX_NAME,
                    n.chars().count(),
                ))
            }
            Some(n) => n,
            None => {
                let random = cx.ids.alnum(12);
                let logical: String = cx.logical_id.chars().take(MAX_NAME - 13).collect();
                format!("{logical}-{random}")
            }
        };
        let arn = states::state_machine_arn(cx.scope, &name);
        if self.states.describe_state_machine(&arn).is_ok() {
            return Err(schema::already_exists(cx, &arn));
        }
        let m = self
            .states
            .create_state_machine(
                cx.scope,
                CreateStateMachineInput {
                    name,
                    definition,
                    role_arn,
                    r#type: kind,
                    logging_configuration,
                    tracing_enabled,
                    tags: schema::tags_with_system(cx, properties),
                },
            )
            .map_err(handler_error)?;
        Ok(Self::provisioned(&m))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (definition, role_arn, logging, tracing_enabled) = Self::common(cx, properties)?;
        let arn = current.physical_id;
        let existing = self
            .states
            .describe_state_machine(arn)
            .map_err(|_| schema::not_found(cx, arn))?;
        let m = self
            .states
            .update_state_machine(
                arn,
                UpdateStateMachineInput {
                    definition: Some(definition),
                    role_arn: Some(role_arn),
                    logging_configuration: Some(logging),
                    tracing_enabled: Some(tracing_enabled),
                },
            )
            .map_err(handler_error)?;
        let wanted: BTreeMap<String, String> = schema::tags_with_system(cx, properties);
        let (gone, set) = schema::tag_diff(&existing.tags, &wanted);
        if !gone.is_empty() {
            self.states
                .untag_resource(arn, &gone)
                .map_err(handler_error)?;
        }
        if !set.is_empty() {
            self.states.tag_resource(arn, &set).map_err(handler_error)?;
        }
        Ok(Self::provisioned(&m))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        self.states
            .delete_state_machine(current.physical_id)
            .map_err(handler_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::ids::{IdGen, Scope};
    use serde_json::json;

    #[test]
    fn definitions_come_from_either_property_with_substitutions() {
        let scope = Scope::default_scope();
        let ids = IdGen::seeded(1);
        let clock = Clock::new(crate::clock::ClockMode::Manual);
        let cx = ProviderContext {
            scope: &scope,
            stack_name: "s",
            stack_id: "id",
            logical_id: "Flow",
            type_name: "AWS::StepFunctions::StateMachine",
            stack_tags: &[],
            ids: &ids,
            clock: &clock,
        };
        let text = json!({
            "DefinitionString": "{\"StartAt\":\"${first}\",\"Timeout\":${secs}}",
            "DefinitionSubstitutions": {"first": "A", "secs": 30}
        });
        assert_eq!(
            definition(&cx, &text).unwrap(),
            "{\"StartAt\":\"A\",\"Timeout\":30}"
        );
        let object = json!({
            "Definition": {"StartAt": "${first}"},
            "DefinitionSubstitutions": {"first": "B"}
        });
        assert_eq!(definition(&cx, &object).unwrap(), "{\"StartAt\":\"B\"}");
        let none = json!({});
        assert!(definition(&cx, &none)
            .unwrap_err()
            .message
            .ends_with("#: 0 subschemas matched instead of one"));
        let both = json!({"Definition": {}, "DefinitionString": "{}"});
        assert!(definition(&cx, &both).is_err());
        let s3 = json!({"DefinitionS3Location": {"Bucket": "b", "Key": "k"}});
        assert!(definition(&cx, &s3).is_err());
        let bad = json!({"DefinitionString": "{}", "DefinitionSubstitutions": {"a": [1]}});
        assert!(definition(&cx, &bad).is_err());
    }
}
