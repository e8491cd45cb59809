//! EventBridge Scheduler on the wire: restJson1 as botocore and the AWS SDKs speak it
//! (`../shared/reference/aws-contract.md` §4.1, Appendix B).
//!
//! Each request is routed by method and *raw* path (the `{ResourceArn}` label of the tag
//! operations arrives fully percent-encoded, `/` as `%2F`, so the path is split before the one
//! label is decoded), decoded into a core input (`crate::scheduler::model`), handed to one
//! `Scheduler` method, and its result encoded: JSON bodies with PascalCase members, timestamps
//! as epoch seconds, errors as `x-amzn-ErrorType: <Code>` with `{"Message": ...}`. Mutations wait
//! for `Storage::sync` before answering. No validation here beyond JSON well-formedness: the
//! core checks every member so the CloudFormation provider gets the same answers.

use std::borrow::Cow;

use axum::http::Method;
use axum::response::Response;
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use crate::app::App;
use crate::ids::Scope;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::{ok_response, AwsRequest};
use crate::scheduler::{self as core, Error as CoreError};
use crate::time::{epoch_seconds, from_epoch_seconds, parse_rfc3339};

/// How Scheduler errors are encoded.
pub const PROTOCOL: Protocol = Protocol::RestJson;

impl From<CoreError> for WireError {
    fn from(err: CoreError) -> Self {
        use axum::http::StatusCode;
        let status = match &err {
            CoreError::Validation(_) => StatusCode::BAD_REQUEST,
            CoreError::ResourceNotFound(_) => StatusCode::NOT_FOUND,
            CoreError::Conflict(_) => StatusCode::CONFLICT,
            CoreError::ServiceQuotaExceeded(_) => StatusCode::PAYMENT_REQUIRED,
            CoreError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let mut wire = WireError::new(err.code(), err.message(), status);
        wire.sender_fault = status.is_client_error();
        wire
    }
}

/// The 12 operations, with their URI label decoded.
#[derive(Debug, PartialEq, Eq)]
enum Operation {
    CreateSchedule(String),
    GetSchedule(String),
    UpdateSchedule(String),
    DeleteSchedule(String),
    ListSchedules,
    CreateScheduleGroup(String),
    GetScheduleGroup(String),
    DeleteScheduleGroup(String),
    ListScheduleGroups,
    TagResource(String),
    UntagResource(String),
    ListTagsForResource(String),
}

fn decode_label(raw: &str) -> Result<String, WireError> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map(Cow::into_owned)
        .map_err(|_| {
            WireError::validation_exception(format!("The URI label '{raw}' is not valid UTF-8."))
        })
}

/// Routes `method` + raw `path` (percent-encoding intact) to an operation.
fn route(method: &Method, path: &str) -> Result<Option<Operation>, WireError> {
    let label = |prefix: &str| -> Option<&str> {
        path.strip_prefix(prefix).filter(|rest| !rest.contains('/'))
    };
    let op = if path == "/schedules" {
        (*method == Method::GET).then_some(Operation::ListSchedules)
    } else if let Some(raw) = label("/schedules/") {
        let name = decode_label(raw)?;
        match *method {
            Method::POST => Some(Operation::CreateSchedule(name)),
            Method::GET => Some(Operation::GetSchedule(name)),
            Method::PUT => Some(Operation::UpdateSchedule(name)),
            Method::DELETE => Some(Operation::DeleteSchedule(name)),
            _ => None,
        }
    } else if path == "/schedule-groups" {
        (*method == Method::GET).then_some(Operation::ListScheduleGroups)
    } else if let Some(raw) = label("/schedule-groups/") {
        let name = decode_label(raw)?;
        match *method {
            Method::POST => Some(Operation::CreateScheduleGroup(name)),
            Method::GET => Some(Operation::GetScheduleGroup(name)),
            Method::DELETE => Some(Operation::DeleteScheduleGroup(name)),
            _ => None,
        }
    } else if let Some(raw) = label("/tags/") {
        let arn = decode_label(raw)?;
        match *method {
            Method::POST => Some(Operation::TagResource(arn)),
            Method::GET => Some(Operation::ListTagsForResource(arn)),
            Method::DELETE => Some(Operation::UntagResource(arn)),
            _ => None,
        }
    } else {
        None
    };
    Ok(op)
}

/// The decoded query string: every (name, value) pair in order.
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(raw: &str) -> Query {
        Query(
            form_urlencoded::parse(raw.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    fn get(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    fn all(&self, name: &str) -> Option<Vec<String>> {
        let values: Vec<String> = self
            .0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect();
        (!values.is_empty()).then_some(values)
    }

    fn int(&self, name: &str) -> Result<Option<i64>, WireError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v.trim().parse::<i64>().map(Some).map_err(|_| {
                WireError::bad_request(
                    "SerializationException",
                    format!("Unable to parse the {name} query parameter '{v}' as an integer."),
                )
            }),
        }
    }
}

fn body<T: DeserializeOwned + Default>(req: &AwsRequest) -> Result<T, WireError> {
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(&req.body).map_err(|e| {
        WireError::bad_request(
            "SerializationException",
            format!("The request body could not be read as JSON: {e}"),
        )
    })
}

/// Handles one Scheduler request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    match dispatch(app, &req).await {
        Ok(resp) => resp,
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

async fn dispatch(app: &App, req: &AwsRequest) -> Result<Response, WireError> {
    let Some(op) = route(&req.method, req.uri.path())? else {
        return Err(WireError::not_implemented(
            "Scheduler",
            &format!("{} {}", req.method, req.uri.path()),
            "UnknownOperationException",
        ));
    };
    let scheduler = &app.scheduler;
    let scope = &req.scope;
    let query = Query::parse(req.url_query());
    let (json, mutated) = match op {
        Operation::CreateSchedule(name) => {
            let input = body::<ScheduleBody>(req)?.into_input(name);
            let arn = scheduler.create_schedule(scope, input)?;
            (to_json(&ScheduleArnOut { schedule_arn: &arn }), true)
        }
        Operation::UpdateSchedule(name) => {
            let input = body::<ScheduleBody>(req)?.into_input(name);
            let arn = scheduler.update_schedule(scope, input)?;
            (to_json(&ScheduleArnOut { schedule_arn: &arn }), true)
        }
        Operation::GetSchedule(name) => {
            let group = query.get("groupName");
            let schedule = scheduler.get_schedule(scope, group.as_deref(), &name)?;
            (to_json(&ScheduleOut::new(scope, &schedule)), false)
        }
        Operation::DeleteSchedule(name) => {
            let group = query.get("groupName");
            let token = query.get("clientToken");
            scheduler.delete_schedule(scope, group.as_deref(), &name, token.as_deref())?;
            ("{}".to_string(), true)
        }
        Operation::ListSchedules => {
            let input = core::ListSchedulesInput {
                group_name: query.get("ScheduleGroup"),
                name_prefix: query.get("NamePrefix"),
                state: query.get("State"),
                max_results: query.int("MaxResults")?,
                next_token: query.get("NextToken"),
            };
            let page = scheduler.list_schedules(scope, input)?;
            let out = ListSchedulesOut {
                next_token: page.next_token.as_deref(),
                schedules: page
                    .schedules
                    .iter()
                    .map(|s| ScheduleSummaryOut::new(scope, s))
                    .collect(),
            };
            (to_json(&out), false)
        }
        Operation::CreateScheduleGroup(name) => {
            let b = body::<CreateGroupBody>(req)?;
            let input = core::CreateScheduleGroupInput {
                name,
                tags: b
                    .tags
                    .map(|t| t.into_iter().map(TagIo::into_input).collect()),
                client_token: b.client_token,
            };
            let arn = scheduler.create_schedule_group(scope, input)?;
            (
                to_json(&ScheduleGroupArnOut {
                    schedule_group_arn: &arn,
                }),
                true,
            )
        }
        Operation::GetScheduleGroup(name) => {
            let group = scheduler.get_schedule_group(scope, &name)?;
            (to_json(&ScheduleGroupOut::new(scope, &group)), false)
        }
        Operation::DeleteScheduleGroup(name) => {
            let token = query.get("clientToken");
            scheduler.delete_schedule_group(scope, &name, token.as_deref())?;
            ("{}".to_string(), true)
        }
        Operation::ListScheduleGroups => {
            let input = core::ListScheduleGroupsInput {
                name_prefix: query.get("NamePrefix"),
                max_results: query.int("MaxResults")?,
                next_token: query.get("NextToken"),
            };
            let page = scheduler.list_schedule_groups(scope, input)?;
            let out = ListScheduleGroupsOut {
                next_token: page.next_token.as_deref(),
                schedule_groups: page
                    .schedule_groups
                    .iter()
                    .map(|g| ScheduleGroupOut::new(scope, g))
                    .collect(),
            };
            (to_json(&out), false)
        }
        Operation::TagResource(arn) => {
            let b = body::<TagResourceBody>(req)?;
            let tags = b
                .tags
                .map(|t| t.into_iter().map(TagIo::into_input).collect());
            scheduler.tag_resource(scope, &arn, tags)?;
            ("{}".to_string(), true)
        }
        Operation::UntagResource(arn) => {
            scheduler.untag_resource(scope, &arn, query.all("TagKeys"))?;
            ("{}".to_string(), true)
        }
        Operation::ListTagsForResource(arn) => {
            let tags = scheduler.list_tags_for_resource(scope, &arn)?;
            let out = TagsOut {
                tags: tags
                    .into_iter()
                    .map(|t| TagIo {
                        key: Some(t.key),
                        value: Some(t.value),
                    })
                    .collect(),
            };
            (to_json(&out), false)
        }
    };
    if mutated {
        app.storage.sync().await;
    }
    Ok(ok_response("application/json", json, &req.request_id))
}

fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string())
}

// ------------------------------------------------------------------------------------------
// Timestamps: epoch seconds (botocore sends integers; floats and ISO strings are accepted too)
// ------------------------------------------------------------------------------------------

fn de_timestamp<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(f64),
        Text(String),
    }
    let raw: Option<Raw> = Option::deserialize(d)?;
    let parsed = match raw {
        None => return Ok(None),
        Some(Raw::Number(n)) => from_epoch_seconds(n),
        Some(Raw::Text(t)) => t
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(from_epoch_seconds)
            .or_else(|| parse_rfc3339(&t)),
    };
    parsed
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom("a timestamp must be epoch seconds or ISO 8601"))
}

fn ts(t: DateTime<Utc>) -> f64 {
    epoch_seconds(t)
}

// ------------------------------------------------------------------------------------------
// Request bodies
// ------------------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleBody {
    action_after_completion: Option<String>,
    client_token: Option<String>,
    description: Option<String>,
    #[serde(default, deserialize_with = "de_timestamp")]
    end_date: Option<DateTime<Utc>>,
    flexible_time_window: Option<FlexibleTimeWindowIo>,
    group_name: Option<String>,
    kms_key_arn: Option<String>,
    schedule_expression: Option<String>,
    schedule_expression_timezone: Option<String>,
    #[serde(default, deserialize_with = "de_timestamp")]
    start_date: Option<DateTime<Utc>>,
    state: Option<String>,
    target: Option<TargetIo>,
}

impl ScheduleBody {
    fn into_input(self, name: String) -> core::ScheduleInput {
        core::ScheduleInput {
            name,
            group_name: self.group_name,
            schedule_expression: self.schedule_expression,
            schedule_expression_timezone: self.schedule_expression_timezone,
            description: self.description,
            start_date: self.start_date,
            end_date: self.end_date,
            state: self.state,
            action_after_completion: self.action_after_completion,
            flexible_time_window: self.flexible_time_window.map(|w| {
                core::FlexibleTimeWindowInput {
                    mode: w.mode,
                    maximum_window_in_minutes: w.maximum_window_in_minutes,
                }
            }),
            kms_key_arn: self.kms_key_arn,
            target: self.target.map(TargetIo::into_input),
            client_token: self.client_token,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct CreateGroupBody {
    client_token: Option<String>,
    tags: Option<Vec<TagIo>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TagResourceBody {
    tags: Option<Vec<TagIo>>,
}

// ------------------------------------------------------------------------------------------
// Shapes used both ways
// ------------------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct TagIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

impl TagIo {
    fn into_input(self) -> core::TagInput {
        core::TagInput {
            key: self.key,
            value: self.value,
        }
    }
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct FlexibleTimeWindowIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum_window_in_minutes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct TargetIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dead_letter_config: Option<DeadLetterConfigIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ecs_parameters: Option<EcsParametersIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event_bridge_parameters: Option<EventBridgeParametersIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kinesis_parameters: Option<KinesisParametersIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_policy: Option<RetryPolicyIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sage_maker_pipeline_parameters: Option<SageMakerPipelineParametersIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sqs_parameters: Option<SqsParametersIo>,
}

impl TargetIo {
    fn into_input(self) -> core::TargetInput {
        core::TargetInput {
            arn: self.arn,
            role_arn: self.role_arn,
            input: self.input,
            retry_policy: self.retry_policy.map(|r| core::RetryPolicyInput {
                maximum_event_age_in_seconds: r.maximum_event_age_in_seconds,
                maximum_retry_attempts: r.maximum_retry_attempts,
            }),
            dead_letter_config: self
                .dead_letter_config
                .map(|d| core::DeadLetterConfig { arn: d.arn }),
            sqs_parameters: self.sqs_parameters.map(|p| core::SqsParameters {
                message_group_id: p.message_group_id,
            }),
            event_bridge_parameters: self.event_bridge_parameters.map(|p| {
                core::EventBridgeParametersInput {
                    detail_type: p.detail_type,
                    source: p.source,
                }
            }),
            kinesis_parameters: self
                .kinesis_parameters
                .map(|p| core::KinesisParametersInput {
                    partition_key: p.partition_key,
                }),
            sage_maker_pipeline_parameters: self.sage_maker_pipeline_parameters.map(|p| {
                core::SageMakerPipelineParameters {
                    pipeline_parameter_list: p.pipeline_parameter_list.map(|list| {
                        list.into_iter()
                            .map(|i| core::SageMakerPipelineParameter {
                                name: i.name,
                                value: i.value,
                            })
                            .collect()
                    }),
                }
            }),
            ecs_parameters: self.ecs_parameters.map(EcsParametersIo::into_core),
        }
    }

    fn from_core(t: &core::Target) -> TargetIo {
        TargetIo {
            arn: Some(t.arn.clone()),
            dead_letter_config: t
                .dead_letter_config
                .as_ref()
                .map(|d| DeadLetterConfigIo { arn: d.arn.clone() }),
            ecs_parameters: t.ecs_parameters.as_deref().map(EcsParametersIo::from_core),
            event_bridge_parameters: t.event_bridge_parameters.as_ref().map(|p| {
                EventBridgeParametersIo {
                    detail_type: Some(p.detail_type.clone()),
                    source: Some(p.source.clone()),
                }
            }),
            input: t.input.clone(),
            kinesis_parameters: t.kinesis_parameters.as_ref().map(|p| KinesisParametersIo {
                partition_key: Some(p.partition_key.clone()),
            }),
            retry_policy: Some(RetryPolicyIo {
                maximum_event_age_in_seconds: Some(i64::from(
                    t.retry_policy.maximum_event_age_in_seconds,
                )),
                maximum_retry_attempts: Some(i64::from(t.retry_policy.maximum_retry_attempts)),
            }),
            role_arn: Some(t.role_arn.clone()),
            sage_maker_pipeline_parameters: t.sage_maker_pipeline_parameters.as_ref().map(|p| {
                SageMakerPipelineParametersIo {
                    pipeline_parameter_list: p.pipeline_parameter_list.as_ref().map(|list| {
                        list.iter()
                            .map(|i| SageMakerPipelineParameterIo {
                                name: i.name.clone(),
                                value: i.value.clone(),
                            })
                            .collect()
                    }),
                }
            }),
            sqs_parameters: t.sqs_parameters.as_ref().map(|p| SqsParametersIo {
                message_group_id: p.message_group_id.clone(),
            }),
        }
    }
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct RetryPolicyIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum_event_age_in_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum_retry_attempts: Option<i64>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct DeadLetterConfigIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    arn: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct SqsParametersIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    message_group_id: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EventBridgeParametersIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    detail_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct KinesisParametersIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    partition_key: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct SageMakerPipelineParametersIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    pipeline_parameter_list: Option<Vec<SageMakerPipelineParameterIo>>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct SageMakerPipelineParameterIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

/// `EcsParameters`: PascalCase members, except the lower-case members of its nested shapes
/// (`awsvpcConfiguration`, `capacityProvider`, `base`, `weight`, `type`, `expression`, `field`).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EcsParametersIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_provider_strategy: Option<Vec<CapacityProviderStrategyItemIo>>,
    #[serde(
        rename = "EnableECSManagedTags",
        skip_serializing_if = "Option::is_none"
    )]
    enable_ecs_managed_tags: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enable_execute_command: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    launch_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_configuration: Option<NetworkConfigurationIo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placement_constraints: Option<Vec<PlacementConstraintIo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placement_strategy: Option<Vec<PlacementStrategyIo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    platform_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    propagate_tags: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<IndexMap<String, String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_definition_arn: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct NetworkConfigurationIo {
    #[serde(
        rename = "awsvpcConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    awsvpc_configuration: Option<AwsVpcConfigurationIo>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
struct AwsVpcConfigurationIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    assign_public_ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    security_groups: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subnets: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct CapacityProviderStrategyItemIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<i64>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct PlacementConstraintIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    expression: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct PlacementStrategyIo {
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
}

impl EcsParametersIo {
    fn into_core(self) -> core::EcsParameters {
        core::EcsParameters {
            task_definition_arn: self.task_definition_arn,
            task_count: self.task_count,
            launch_type: self.launch_type,
            network_configuration: self
                .network_configuration
                .map(|n| core::NetworkConfiguration {
                    awsvpc_configuration: n.awsvpc_configuration.map(|a| {
                        core::AwsVpcConfiguration {
                            subnets: a.subnets,
                            security_groups: a.security_groups,
                            assign_public_ip: a.assign_public_ip,
                        }
                    }),
                }),
            platform_version: self.platform_version,
            group: self.group,
            capacity_provider_strategy: self.capacity_provider_strategy.map(|list| {
                list.into_iter()
                    .map(|c| core::CapacityProviderStrategyItem {
                        capacity_provider: c.capacity_provider,
                        base: c.base,
                        weight: c.weight,
                    })
                    .collect()
            }),
            enable_ecs_managed_tags: self.enable_ecs_managed_tags,
            enable_execute_command: self.enable_execute_command,
            placement_constraints: self.placement_constraints.map(|list| {
                list.into_iter()
                    .map(|c| core::PlacementConstraint {
                        r#type: c.kind,
                        expression: c.expression,
                    })
                    .collect()
            }),
            placement_strategy: self.placement_strategy.map(|list| {
                list.into_iter()
                    .map(|s| core::PlacementStrategy {
                        r#type: s.kind,
                        field: s.field,
                    })
                    .collect()
            }),
            propagate_tags: self.propagate_tags,
            reference_id: self.reference_id,
            tags: self
                .tags
                .map(|maps| maps.into_iter().map(|m| m.into_iter().collect()).collect()),
        }
    }

    fn from_core(e: &core::EcsParameters) -> EcsParametersIo {
        EcsParametersIo {
            capacity_provider_strategy: e.capacity_provider_strategy.as_ref().map(|list| {
                list.iter()
                    .map(|c| CapacityProviderStrategyItemIo {
                        base: c.base,
                        capacity_provider: c.capacity_provider.clone(),
                        weight: c.weight,
                    })
                    .collect()
            }),
            enable_ecs_managed_tags: e.enable_ecs_managed_tags,
            enable_execute_command: e.enable_execute_command,
            group: e.group.clone(),
            launch_type: e.launch_type.clone(),
            network_configuration: e.network_configuration.as_ref().map(|n| {
                NetworkConfigurationIo {
                    awsvpc_configuration: n.awsvpc_configuration.as_ref().map(|a| {
                        AwsVpcConfigurationIo {
                            assign_public_ip: a.assign_public_ip.clone(),
                            security_groups: a.security_groups.clone(),
                            subnets: a.subnets.clone(),
                        }
                    }),
                }
            }),
            placement_constraints: e.placement_constraints.as_ref().map(|list| {
                list.iter()
                    .map(|c| PlacementConstraintIo {
                        expression: c.expression.clone(),
                        kind: c.r#type.clone(),
                    })
                    .collect()
            }),
            placement_strategy: e.placement_strategy.as_ref().map(|list| {
                list.iter()
                    .map(|s| PlacementStrategyIo {
                        field: s.field.clone(),
                        kind: s.r#type.clone(),
                    })
                    .collect()
            }),
            platform_version: e.platform_version.clone(),
            propagate_tags: e.propagate_tags.clone(),
            reference_id: e.reference_id.clone(),
            tags: e
                .tags
                .as_ref()
                .map(|maps| maps.iter().map(|m| m.iter().cloned().collect()).collect()),
            task_count: e.task_count,
            task_definition_arn: e.task_definition_arn.clone(),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Responses
// ------------------------------------------------------------------------------------------

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleArnOut<'a> {
    schedule_arn: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleGroupArnOut<'a> {
    schedule_group_arn: &'a str,
}

/// GetScheduleOutput: unset optional members are omitted.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleOut<'a> {
    action_after_completion: &'static str,
    arn: String,
    creation_date: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_date: Option<f64>,
    flexible_time_window: FlexibleTimeWindowIo,
    group_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    kms_key_arn: Option<&'a str>,
    last_modification_date: f64,
    name: &'a str,
    schedule_expression: &'a str,
    schedule_expression_timezone: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_date: Option<f64>,
    state: &'static str,
    target: TargetIo,
}

impl<'a> ScheduleOut<'a> {
    fn new(scope: &Scope, s: &'a core::Schedule) -> ScheduleOut<'a> {
        ScheduleOut {
            action_after_completion: s.action_after_completion.as_str(),
            arn: s.arn(scope),
            creation_date: ts(s.creation_date),
            description: s.description.as_deref(),
            end_date: s.end_date.map(ts),
            flexible_time_window: FlexibleTimeWindowIo {
                maximum_window_in_minutes: s
                    .flexible_time_window
                    .maximum_window_in_minutes
                    .map(i64::from),
                mode: Some(s.flexible_time_window.mode.as_str().to_string()),
            },
            group_name: &s.group_name,
            kms_key_arn: s.kms_key_arn.as_deref(),
            last_modification_date: ts(s.last_modification_date),
            name: &s.name,
            schedule_expression: &s.schedule_expression,
            schedule_expression_timezone: s.schedule_expression_timezone(),
            start_date: s.start_date.map(ts),
            state: s.state.as_str(),
            target: TargetIo::from_core(&s.target),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct TargetSummaryOut<'a> {
    arn: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleSummaryOut<'a> {
    arn: String,
    creation_date: f64,
    group_name: &'a str,
    last_modification_date: f64,
    name: &'a str,
    state: &'static str,
    target: TargetSummaryOut<'a>,
}

impl<'a> ScheduleSummaryOut<'a> {
    fn new(scope: &Scope, s: &'a core::Schedule) -> ScheduleSummaryOut<'a> {
        ScheduleSummaryOut {
            arn: s.arn(scope),
            creation_date: ts(s.creation_date),
            group_name: &s.group_name,
            last_modification_date: ts(s.last_modification_date),
            name: &s.name,
            state: s.state.as_str(),
            target: TargetSummaryOut { arn: &s.target.arn },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ListSchedulesOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    next_token: Option<&'a str>,
    schedules: Vec<ScheduleSummaryOut<'a>>,
}

/// GetScheduleOutput and ScheduleGroupSummary: the `default` group has no dates.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ScheduleGroupOut<'a> {
    arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    creation_date: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_modification_date: Option<f64>,
    name: &'a str,
    state: &'static str,
}

impl<'a> ScheduleGroupOut<'a> {
    fn new(scope: &Scope, g: &'a core::ScheduleGroup) -> ScheduleGroupOut<'a> {
        ScheduleGroupOut {
            arn: g.arn(scope),
            creation_date: g.creation_date.map(ts),
            last_modification_date: g.last_modification_date.map(ts),
            name: &g.name,
            state: g.state.as_str(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct ListScheduleGroupsOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    next_token: Option<&'a str>,
    schedule_groups: Vec<ScheduleGroupOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct TagsOut {
    tags: Vec<TagIo>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_match_the_raw_path_and_decode_only_the_label() {
        let tag_path =
            "/tags/arn%3Aaws%3Ascheduler%3Aus-east-1%3A000000000000%3Aschedule-group%2Fg1";
        assert_eq!(
            route(&Method::POST, tag_path).unwrap(),
            Some(Operation::TagResource(
                "arn:aws:scheduler:us-east-1:000000000000:schedule-group/g1".into()
            ))
        );
        assert_eq!(
            route(&Method::GET, "/schedules/a.b-c_d").unwrap(),
            Some(Operation::GetSchedule("a.b-c_d".into()))
        );
        assert_eq!(
            route(&Method::GET, "/schedules").unwrap(),
            Some(Operation::ListSchedules)
        );
        assert_eq!(
            route(&Method::DELETE, "/schedule-groups/g1").unwrap(),
            Some(Operation::DeleteScheduleGroup("g1".into()))
        );
        assert_eq!(route(&Method::PUT, "/schedule-groups/g1").unwrap(), None);
        assert_eq!(route(&Method::GET, "/schedules/a/b").unwrap(), None);
        assert_eq!(route(&Method::POST, "/schedules").unwrap(), None);
        assert!(route(&Method::GET, "/schedules/%FF").is_err());
    }

    #[test]
    fn core_errors_map_to_the_models_codes_and_statuses() {
        for (err, code, status, sender) in [
            (
                CoreError::Validation("m".into()),
                "ValidationException",
                400,
                true,
            ),
            (
                CoreError::ResourceNotFound("m".into()),
                "ResourceNotFoundException",
                404,
                true,
            ),
            (
                CoreError::Conflict("m".into()),
                "ConflictException",
                409,
                true,
            ),
            (
                CoreError::ServiceQuotaExceeded("m".into()),
                "ServiceQuotaExceededException",
                402,
                true,
            ),
            (
                CoreError::Internal("m".into()),
                "InternalServerException",
                500,
                false,
            ),
        ] {
            let wire = WireError::from(err);
            assert_eq!(
                (wire.code.as_str(), wire.status.as_u16(), wire.sender_fault),
                (code, status, sender)
            );
            assert_eq!(wire.message, "m");
        }
    }

    #[test]
    fn query_integers_must_be_integers() {
        let q = Query::parse("MaxResults=abc&TagKeys=a&TagKeys=b%2Fc");
        let err = q.int("MaxResults").unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.status.as_u16()),
            ("SerializationException", 400)
        );
        assert_eq!(q.all("TagKeys"), Some(vec!["a".into(), "b/c".into()]));
        assert_eq!(q.all("Other"), None);
    }

    #[test]
    fn timestamps_are_read_from_numbers_and_iso_strings() {
        let b: ScheduleBody =
            serde_json::from_str(r#"{"StartDate": 1893456000, "EndDate": "2030-01-02T00:00:00Z"}"#)
                .unwrap();
        assert_eq!(b.start_date.map(|t| t.timestamp()), Some(1_893_456_000));
        assert_eq!(b.end_date.map(|t| t.timestamp()), Some(1_893_542_400));
        assert!(serde_json::from_str::<ScheduleBody>(r#"{"StartDate": "soon"}"#).is_err());
    }
}
