//! `AWS::SSM::Parameter` over the SSM core, so that `AWS::SSM::Parameter::Value<...>`
//! template parameters of later stacks read what a stack wrote (the CloudFormation resource
//! reference's "Return values"): Ref and physical id are the parameter Name; GetAtt `Type`,
//! `Value`. A generated name is `CFN-<LogicalId>-<RANDOM>` (CloudFormation's prefix for this
//! type, without the stack name). Name is createOnly; Value, Type, Description,
//! AllowedPattern, Tier, DataType and Tags (a map, with the stack's and the system tags) change
//! in place, each update a new parameter version. `Type` is `String` or `StringList`
//! (CloudFormation does not create SecureString parameters). A parameter whose name exists
//! outside the stack is never adopted.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::ssm::{self, PutParameterInput, Ssm};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The properties the registry schema allows.
const KNOWN: &[&str] = &[
    "AllowedPattern",
    "DataType",
    "Description",
    "Name",
    "Policies",
    "Tags",
    "Tier",
    "Type",
    "Value",
];

fn handler_error(err: ssm::Error) -> ProviderError {
    let code = match &err {
        ssm::Error::ParameterNotFound(_) => HandlerErrorCode::NotFound,
        ssm::Error::ParameterAlreadyExists => HandlerErrorCode::AlreadyExists,
        ssm::Error::HierarchyLevelLimitExceeded(_) => HandlerErrorCode::ServiceLimitExceeded,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.message())
}

/// The template's `Tags` map, then the stack's and the system tags.
fn tags(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<BTreeMap<String, String>, ProviderError> {
    let mut out = schema::tags_with_system(cx, &Value::Null);
    match properties.get("Tags") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.insert(k.clone(), text);
            }
        }
        Some(other) => return Err(schema::wrong_type(cx, "Tags", "JSONObject", other)),
    }
    Ok(out)
}

/// The properties as PutParameter input for `name` (tags aside), after the schema's checks.
fn input(
    cx: &ProviderContext<'_>,
    properties: &Value,
    name: String,
) -> Result<PutParameterInput, ProviderError> {
    schema::known(cx, properties, KNOWN)?;
    schema::required(cx, properties, &["Type", "Value"])?;
    let kind = schema::string(cx, properties, "Type")?.unwrap_or_default();
    if kind != "String" && kind != "StringList" {
        return Err(schema::keyword(cx, "Type", "enum"));
    }
    let tier = schema::string(cx, properties, "Tier")?;
    if tier
        .as_deref()
        .is_some_and(|t| !matches!(t, "Standard" | "Advanced" | "Intelligent-Tiering"))
    {
        return Err(schema::keyword(cx, "Tier", "enum"));
    }
    let data_type = schema::string(cx, properties, "DataType")?;
    if data_type
        .as_deref()
        .is_some_and(|d| !matches!(d, "text" | "aws:ec2:image"))
    {
        return Err(schema::keyword(cx, "DataType", "enum"));
    }
    Ok(PutParameterInput {
        name,
        value: schema::string(cx, properties, "Value")?.unwrap_or_default(),
        parameter_type: Some(kind),
        overwrite: false,
        description: schema::string(cx, properties, "Description")?,
        allowed_pattern: schema::string(cx, properties, "AllowedPattern")?,
        key_id: None,
        tier,
        data_type,
        tags: BTreeMap::new(),
    })
}

/// `AWS::SSM::Parameter`.
#[derive(Clone, Debug)]
pub struct ParameterProvider {
    ssm: Ssm,
}

impl ParameterProvider {
    /// A provider over `ssm`.
    pub fn new(ssm: Ssm) -> ParameterProvider {
        ParameterProvider { ssm }
    }

    fn provisioned(
        &self,
        cx: &ProviderContext<'_>,
        name: &str,
    ) -> Result<Provisioned, ProviderError> {
        let p = self
            .ssm
            .get_parameter(cx.scope, name)
            .ok_or_else(|| schema::not_found(cx, name))?;
        let mut attributes = IndexMap::new();
        attributes.insert(
            "Type".to_string(),
            Value::String(p.current().parameter_type.as_str().to_string()),
        );
        attributes.insert("Value".to_string(), Value::String(p.value().to_string()));
        Ok(Provisioned {
            physical_id: p.name.clone(),
            ref_value: Value::String(p.name),
            attributes,
        })
    }
}

impl ResourceProvider for ParameterProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let name = match schema::string(cx, properties, "Name")? {
            Some(n) => n,
            None => {
                let logical: String = cx.logical_id.chars().take(40).collect();
                format!("CFN-{logical}-{}", cx.ids.alnum(12))
            }
        };
        let mut put = input(cx, properties, name.clone())?;
        if self.ssm.get_parameter(cx.scope, &name).is_some() {
            return Err(schema::already_exists(cx, &name));
        }
        put.tags = tags(cx, properties)?;
        self.ssm
            .put_parameter(cx.scope, put)
            .map_err(handler_error)?;
        self.provisioned(cx, &name)
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let name = current.physical_id;
        let existing = self
            .ssm
            .get_parameter(cx.scope, name)
            .ok_or_else(|| schema::not_found(cx, name))?;
        let mut put = input(cx, properties, name.to_string())?;
        put.overwrite = true;
        self.ssm
            .put_parameter(cx.scope, put)
            .map_err(handler_error)?;
        let (gone, set) = schema::tag_diff(&existing.tags, &tags(cx, properties)?);
        if !gone.is_empty() {
            self.ssm
                .remove_tags(cx.scope, name, &gone)
                .map_err(handler_error)?;
        }
        if !set.is_empty() {
            self.ssm
                .add_tags(cx.scope, name, &set)
                .map_err(handler_error)?;
        }
        self.provisioned(cx, name)
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.ssm.delete_parameter(cx.scope, current.physical_id) {
            Ok(()) | Err(ssm::Error::ParameterNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}
