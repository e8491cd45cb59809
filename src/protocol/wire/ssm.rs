//! SSM Parameter Store on the wire: awsJson 1.1 (`X-Amz-Target: AmazonSSM.<Operation>`,
//! botocore `ssm/2014-11-06`). Each handler decodes the JSON input, calls one
//! `crate::services::ssm` operation and encodes the output; timestamps are epoch seconds.

use std::collections::BTreeMap;

use axum::response::Response;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::coral::{self, Violations};
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::json::{decode, operation as target_operation};
use crate::protocol::{ok_response, AwsRequest};
use crate::services::ssm::{
    self, ParameterFilter, ParameterMetadata, ParameterValue, PutParameterInput,
};
use crate::time::epoch_seconds;

/// How SSM errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Json {
    type_prefix: "",
    content_type: "application/x-amz-json-1.1",
};

const CONTENT_TYPE: &str = "application/x-amz-json-1.1";

impl From<ssm::Error> for WireError {
    fn from(err: ssm::Error) -> WireError {
        WireError::bad_request(err.code(), err.message())
    }
}

super::operations! {
    /// The Parameter Store operations Cumulo serves.
    PutParameter,
    GetParameter,
    GetParameters,
    GetParametersByPath,
    DeleteParameter,
    DeleteParameters,
    DescribeParameters,
    GetParameterHistory,
    AddTagsToResource,
    RemoveTagsFromResource,
    ListTagsForResource,
}

/// Routes `X-Amz-Target: AmazonSSM.<Operation>` to an operation.
fn route(req: &AwsRequest) -> Result<Operation, WireError> {
    let name = target_operation(req, "AmazonSSM");
    if name.is_empty() {
        return Err(WireError::bad_request(
            "UnknownOperationException",
            "The request names no operation: send X-Amz-Target: AmazonSSM.<Operation>",
        ));
    }
    Operation::from_name(&name)
        .ok_or_else(|| WireError::not_implemented("SSM", &name, "UnknownOperationException"))
}

/// Handles one SSM request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let answer = match route(&req) {
        Ok(op) => dispatch(app, &req, op).await,
        Err(err) => Err(err),
    };
    match answer {
        Ok(body) => ok_response(CONTENT_TYPE, body.to_string(), &req.request_id),
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

/// The required members of an input, in its model's member order: their values, or one Coral
/// message listing every missing one.
fn required<'a, const N: usize>(
    members: [(&str, &'a Option<String>); N],
) -> Result<[&'a str; N], WireError> {
    let mut v = Violations::default();
    let values = members.map(|(path, value)| v.required(path, value.as_deref()));
    v.finish()
        .map_err(|e| WireError::from(ssm::Error::from(e)))?;
    Ok(values.map(Option::unwrap_or_default))
}

fn parameter_json(p: &ParameterValue) -> Value {
    let mut out = Map::new();
    out.insert("Name".into(), json!(p.name));
    out.insert("Type".into(), json!(p.parameter_type.as_str()));
    out.insert("Value".into(), json!(p.value));
    out.insert("Version".into(), json!(p.version));
    if let Some(s) = &p.selector {
        out.insert("Selector".into(), json!(s));
    }
    out.insert(
        "LastModifiedDate".into(),
        json!(epoch_seconds(p.last_modified)),
    );
    out.insert("ARN".into(), json!(p.arn));
    out.insert("DataType".into(), json!(p.data_type));
    Value::Object(out)
}

fn metadata_json(m: &ParameterMetadata, account: &str, with_value: bool) -> Value {
    let v = &m.version;
    let mut out = Map::new();
    out.insert("Name".into(), json!(m.name));
    if !with_value {
        out.insert("ARN".into(), json!(m.arn));
    }
    out.insert("Type".into(), json!(v.parameter_type.as_str()));
    if let Some(k) = &v.key_id {
        out.insert("KeyId".into(), json!(k));
    }
    out.insert(
        "LastModifiedDate".into(),
        json!(epoch_seconds(v.last_modified)),
    );
    out.insert(
        "LastModifiedUser".into(),
        json!(format!("arn:aws:iam::{account}:root")),
    );
    if let Some(d) = &v.description {
        out.insert("Description".into(), json!(d));
    }
    if with_value {
        out.insert("Value".into(), json!(v.value));
    }
    if let Some(p) = &v.allowed_pattern {
        out.insert("AllowedPattern".into(), json!(p));
    }
    out.insert("Version".into(), json!(v.version));
    if with_value {
        out.insert("Labels".into(), json!([]));
    }
    out.insert("Tier".into(), json!(v.tier));
    out.insert("Policies".into(), json!([]));
    out.insert("DataType".into(), json!(v.data_type));
    Value::Object(out)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WireTag {
    key: Option<String>,
    value: Option<String>,
}

fn tag_map(tags: Option<Vec<WireTag>>) -> BTreeMap<String, String> {
    tags.unwrap_or_default()
        .into_iter()
        .map(|t| (t.key.unwrap_or_default(), t.value.unwrap_or_default()))
        .collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutInput {
    name: Option<String>,
    description: Option<String>,
    value: Option<String>,
    #[serde(rename = "Type")]
    parameter_type: Option<String>,
    key_id: Option<String>,
    overwrite: Option<bool>,
    allowed_pattern: Option<String>,
    tags: Option<Vec<WireTag>>,
    tier: Option<String>,
    data_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GetInput {
    name: Option<String>,
    with_decryption: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GetManyInput {
    names: Option<Vec<String>>,
    with_decryption: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ByPathInput {
    path: Option<String>,
    recursive: Option<bool>,
    with_decryption: Option<bool>,
    max_results: Option<i64>,
    next_token: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WireFilter {
    key: Option<String>,
    option: Option<String>,
    values: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DescribeInput {
    filters: Option<Vec<WireFilter>>,
    parameter_filters: Option<Vec<WireFilter>>,
    max_results: Option<i64>,
    next_token: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TagsInput {
    resource_type: Option<String>,
    resource_id: Option<String>,
    tags: Option<Vec<WireTag>>,
    tag_keys: Option<Vec<String>>,
}

fn parameter_resource(input: &TagsInput) -> Result<&str, WireError> {
    let [kind, id] = required([
        ("resourceType", &input.resource_type),
        ("resourceId", &input.resource_id),
    ])?;
    if kind != "Parameter" {
        return Err(WireError::bad_request(
            "InvalidResourceType",
            "The resource type is not valid. Cumulo's parameter store supports ResourceType Parameter.",
        ));
    }
    Ok(id)
}

impl Operation {
    /// Whether the operation reads only (its answer needs no storage commit).
    fn is_read(self) -> bool {
        matches!(
            self,
            Operation::GetParameter
                | Operation::GetParameters
                | Operation::GetParametersByPath
                | Operation::DescribeParameters
                | Operation::GetParameterHistory
                | Operation::ListTagsForResource
        )
    }
}

async fn dispatch(app: &App, req: &AwsRequest, op: Operation) -> Result<Value, WireError> {
    if op.is_read() {
        return read_operation(app, req, op);
    }
    let out = write_operation(app, req, op)?;
    app.storage.sync().await;
    Ok(out)
}

/// The operations that read parameters and tags.
fn read_operation(app: &App, req: &AwsRequest, op: Operation) -> Result<Value, WireError> {
    let ssm = &app.ssm;
    let scope = &req.scope;
    match op {
        Operation::GetParameter => {
            let input: GetInput = decode(req)?;
            let p = ssm.read_parameter(
                scope,
                required([("name", &input.name)])?[0],
                input.with_decryption.unwrap_or(false),
            )?;
            Ok(json!({ "Parameter": parameter_json(&p) }))
        }
        Operation::GetParameters => {
            let input: GetManyInput = decode(req)?;
            let Some(names) = input.names else {
                let null = coral::single(None, "names", "Member must not be null");
                return Err(ssm::Error::from(null).into());
            };
            let (found, invalid) =
                ssm.get_parameters(scope, &names, input.with_decryption.unwrap_or(false))?;
            Ok(json!({
                "Parameters": found.iter().map(parameter_json).collect::<Vec<_>>(),
                "InvalidParameters": invalid,
            }))
        }
        Operation::GetParametersByPath => {
            let input: ByPathInput = decode(req)?;
            let (found, token) = ssm.get_parameters_by_path(
                scope,
                required([("path", &input.path)])?[0],
                input.recursive.unwrap_or(false),
                input.with_decryption.unwrap_or(false),
                input.max_results,
                input.next_token.as_deref(),
            )?;
            let mut out = Map::new();
            out.insert(
                "Parameters".into(),
                json!(found.iter().map(parameter_json).collect::<Vec<_>>()),
            );
            if let Some(t) = token {
                out.insert("NextToken".into(), json!(t));
            }
            Ok(Value::Object(out))
        }
        Operation::DescribeParameters => {
            let input: DescribeInput = decode(req)?;
            let mut filters: Vec<ParameterFilter> = Vec::new();
            for f in input.filters.unwrap_or_default() {
                filters.push(ParameterFilter {
                    key: f.key.unwrap_or_default(),
                    option: None,
                    values: f.values.unwrap_or_default(),
                });
            }
            for f in input.parameter_filters.unwrap_or_default() {
                filters.push(ParameterFilter {
                    key: f.key.unwrap_or_default(),
                    option: f.option,
                    values: f.values.unwrap_or_default(),
                });
            }
            let (items, token) = ssm.describe_parameters(
                scope,
                &filters,
                input.max_results,
                input.next_token.as_deref(),
            )?;
            let mut out = Map::new();
            out.insert(
                "Parameters".into(),
                json!(items
                    .iter()
                    .map(|m| metadata_json(m, &scope.account, false))
                    .collect::<Vec<_>>()),
            );
            if let Some(t) = token {
                out.insert("NextToken".into(), json!(t));
            }
            Ok(Value::Object(out))
        }
        Operation::GetParameterHistory => {
            let input: GetInput = decode(req)?;
            let history =
                ssm.get_parameter_history(scope, required([("name", &input.name)])?[0])?;
            Ok(json!({
                "Parameters": history
                    .iter()
                    .map(|m| metadata_json(m, &scope.account, true))
                    .collect::<Vec<_>>(),
            }))
        }
        Operation::ListTagsForResource => {
            let input: TagsInput = decode(req)?;
            let name = parameter_resource(&input)?;
            let param = ssm
                .get_parameter(scope, name)
                .ok_or_else(|| WireError::from(ssm::Error::ParameterNotFound(name.to_string())))?;
            Ok(json!({
                "TagList": param
                    .tags
                    .iter()
                    .map(|(k, v)| json!({ "Key": k, "Value": v }))
                    .collect::<Vec<_>>(),
            }))
        }
        _ => Err(WireError::not_implemented(
            "SSM",
            op.name(),
            "UnknownOperationException",
        )),
    }
}

/// The operations that change parameters and tags.
fn write_operation(app: &App, req: &AwsRequest, op: Operation) -> Result<Value, WireError> {
    let ssm = &app.ssm;
    let scope = &req.scope;
    let out = match op {
        Operation::PutParameter => {
            let input: PutInput = decode(req)?;
            let [name, value] = required([("name", &input.name), ("value", &input.value)])?;
            let (version, tier) = ssm.put_parameter(
                scope,
                PutParameterInput {
                    name: name.to_string(),
                    value: value.to_string(),
                    parameter_type: input.parameter_type,
                    overwrite: input.overwrite.unwrap_or(false),
                    description: input.description,
                    allowed_pattern: input.allowed_pattern,
                    key_id: input.key_id,
                    tier: input.tier,
                    data_type: input.data_type,
                    tags: tag_map(input.tags),
                },
            )?;
            json!({ "Version": version, "Tier": tier })
        }
        Operation::DeleteParameter => {
            let input: GetInput = decode(req)?;
            ssm.delete_parameter(scope, required([("name", &input.name)])?[0])?;
            json!({})
        }
        Operation::DeleteParameters => {
            let input: GetManyInput = decode(req)?;
            let (deleted, invalid) =
                ssm.delete_parameters(scope, &input.names.unwrap_or_default())?;
            json!({ "DeletedParameters": deleted, "InvalidParameters": invalid })
        }
        Operation::AddTagsToResource => {
            let input: TagsInput = decode(req)?;
            let name = parameter_resource(&input)?.to_string();
            ssm.add_tags(scope, &name, &tag_map(input.tags))?;
            json!({})
        }
        Operation::RemoveTagsFromResource => {
            let input: TagsInput = decode(req)?;
            let name = parameter_resource(&input)?.to_string();
            ssm.remove_tags(scope, &name, &input.tag_keys.unwrap_or_default())?;
            json!({})
        }
        _ => {
            return Err(WireError::not_implemented(
                "SSM",
                op.name(),
                "UnknownOperationException",
            ))
        }
    };
    Ok(out)
}
