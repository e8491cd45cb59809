//! `AWS::CloudFormation::WaitConditionHandle` and `AWS::CloudFormation::WaitCondition`: no
//! physical resource behind either.
//!
//! - WaitConditionHandle: Ref and physical id are a presigned-URL-like string, the shape AWS
//!   gives (`https://cloudformation-waitcondition-<region>.s3.amazonaws.com/<stack id,
//!   escaped>/<LogicalId>?X-Amz-Algorithm=AWS4-HMAC-SHA256&...&X-Amz-Signature=<hex>`); GetAtt
//!   `Id` the same. Nothing listens at that URL.
//! - WaitCondition: nothing can signal a handle in Cumulo, so a wait condition completes at
//!   once, as if it had received its `Count` signals with no data (Cumulo's decision; AWS would
//!   wait up to `Timeout` seconds and fail without signals). Ref and physical id are
//!   `<stack id>/<LogicalId>`; GetAtt `Data` is `{}` (the JSON object of signal data AWS
//!   builds) and `Id` the physical id. `Count` must be an integer ≥ 1 and `Timeout` a whole
//!   number of seconds up to 43200, as the resource reference says.

use indexmap::IndexMap;
use serde_json::Value;

use super::schema;
use super::{Current, ProviderContext, ProviderError, Provisioned, ResourceProvider};

/// Longest wait, in seconds (12 hours).
const MAX_TIMEOUT: i64 = 43_200;

/// `AWS::CloudFormation::WaitConditionHandle`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitConditionHandleProvider;

impl WaitConditionHandleProvider {
    /// The presigned-URL-like handle of `cx`'s resource, dated now, signed with random hex.
    fn url(cx: &ProviderContext<'_>) -> String {
        let now = cx.clock.now();
        let date = now.format("%Y%m%d");
        let stamp = now.format("%Y%m%dT%H%M%SZ");
        let stack = cx.stack_id.replace(':', "%3A");
        format!(
            "https://cloudformation-waitcondition-{region}.s3.amazonaws.com/{stack}/{logical}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date={stamp}&X-Amz-SignedHeaders=host&X-Amz-Expires=86399&X-Amz-Credential=AKIA{key}%2F{date}%2F{region}%2Fs3%2Faws4_request&X-Amz-Signature={signature}",
            region = cx.scope.region,
            logical = cx.logical_id,
            key = cx.ids.upper_alnum(16),
            signature = cx.ids.hex(64),
        )
    }
}

impl ResourceProvider for WaitConditionHandleProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, &[])?;
        Ok(schema::identified(&Self::url(cx)))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, &[])?;
        Ok(schema::identified(current.physical_id))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        _current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        Ok(())
    }
}

/// `AWS::CloudFormation::WaitCondition`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitConditionProvider;

impl WaitConditionProvider {
    fn check(cx: &ProviderContext<'_>, properties: &Value) -> Result<(), ProviderError> {
        schema::known(cx, properties, &["Count", "Handle", "Timeout"])?;
        if schema::int(cx, properties, "Count")?.is_some_and(|n| n < 1) {
            return Err(schema::keyword(cx, "Count", "minimum"));
        }
        schema::string(cx, properties, "Handle")?;
        if let Some(t) = schema::string(cx, properties, "Timeout")? {
            match t.trim().parse::<i64>() {
                Ok(n) if (1..=MAX_TIMEOUT).contains(&n) => {}
                _ => {
                    return Err(ProviderError::invalid(format!(
                        "Timeout must be a whole number of seconds from 1 to {MAX_TIMEOUT}, not {t}"
                    )))
                }
            }
        }
        Ok(())
    }

    fn provisioned(id: &str) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Data".to_string(), Value::String("{}".to_string()));
        attributes.insert("Id".to_string(), Value::String(id.to_string()));
        Provisioned {
            physical_id: id.to_string(),
            ref_value: Value::String(id.to_string()),
            attributes,
        }
    }
}

impl ResourceProvider for WaitConditionProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        Self::check(cx, properties)?;
        Ok(Self::provisioned(&format!(
            "{}/{}",
            cx.stack_id, cx.logical_id
        )))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        Self::check(cx, properties)?;
        Ok(schema::identified(current.physical_id))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        _current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        Ok(())
    }
}
