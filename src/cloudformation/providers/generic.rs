//! The placeholder provider: a resource type Cumulo does not emulate, stored without a physical
//! resource behind it when `CUMULO_CFN_UNSUPPORTED=placeholder` (and for the metadata-only
//! types `AWS::CDK::Metadata` and `AWS::CloudFormation::WaitConditionHandle`). Its physical id
//! (also its Ref) is the value of the type's primary-identifier property when the template sets
//! it (`LogGroupName` of a log group), else a generated name; every GetAtt attribute the
//! registry lists answers something plausible (`Arn` an ARN of the type, others the id).

use indexmap::IndexMap;
use serde_json::Value;

use super::super::registry;
use super::{Current, ProviderContext, ProviderError, Provisioned, ResourceProvider};

/// Stores nothing; answers ids and attributes derived from the properties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Placeholder;

impl Placeholder {
    fn provisioned(cx: &ProviderContext<'_>, physical_id: String) -> Provisioned {
        let mut attributes = IndexMap::new();
        if let Some(info) = registry::resource_type(cx.type_name) {
            let mut parts = cx.type_name.split("::").skip(1);
            let service = parts.next().unwrap_or_default().to_ascii_lowercase();
            let kind = parts.next().unwrap_or_default().to_ascii_lowercase();
            for attribute in info.attributes.iter().filter(|a| !a.contains('*')) {
                let value = if attribute.ends_with("Arn") {
                    cx.scope.arn(&service, &format!("{kind}/{physical_id}"))
                } else {
                    physical_id.clone()
                };
                attributes.insert(attribute.to_string(), Value::String(value));
            }
        }
        Provisioned {
            ref_value: Value::String(physical_id.clone()),
            physical_id,
            attributes,
        }
    }
}

impl ResourceProvider for Placeholder {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let named = registry::resource_type(cx.type_name)
            .and_then(|info| info.primary_identifier.first())
            .map(|p| p.strip_prefix("/properties/").unwrap_or(p))
            .and_then(|p| properties.get(p))
            .and_then(Value::as_str)
            .map(str::to_string);
        let name = named.unwrap_or_else(|| cx.generated_name(128, ""));
        Ok(Self::provisioned(cx, name))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        _properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        Ok(Self::provisioned(cx, current.physical_id.to_string()))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        _current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        Ok(())
    }
}
