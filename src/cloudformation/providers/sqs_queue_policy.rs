//! `AWS::SQS::QueuePolicy` over the SQS core: sets the `Policy` attribute of each queue in
//! `Queues` (queue URLs) to `PolicyDocument` (an object or JSON text). Ref and physical id are
//! a generated id `<stack>-<LogicalId>-<RANDOM>`; GetAtt `Id`. Every property changes in
//! place: a queue dropped from `Queues`, and every queue when the resource is deleted, loses
//! its policy (the attribute is cleared, as SetQueueAttributes with an empty Policy does). A
//! queue that does not exist fails the resource with SQS's message.

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::sqs::{self, Sqs};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The properties the registry schema allows.
const KNOWN: &[&str] = &["PolicyDocument", "Queues"];

fn handler_error(err: sqs::Error) -> ProviderError {
    let code = match &err {
        sqs::Error::QueueDoesNotExist => HandlerErrorCode::NotFound,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// `AWS::SQS::QueuePolicy`.
#[derive(Clone, Debug)]
pub struct QueuePolicyProvider {
    sqs: Sqs,
}

impl QueuePolicyProvider {
    /// A provider over `sqs`.
    pub fn new(sqs: Sqs) -> QueuePolicyProvider {
        QueuePolicyProvider { sqs }
    }

    fn inputs(
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<(String, Vec<String>), ProviderError> {
        schema::known(cx, properties, KNOWN)?;
        schema::required(cx, properties, &["PolicyDocument", "Queues"])?;
        let document =
            schema::document(cx, properties, "PolicyDocument", true)?.unwrap_or_default();
        let queues = schema::strings(cx, properties, "Queues")?;
        Ok((document, queues))
    }

    /// Sets `Policy` = `document` on the queue `url` names (an empty document clears it).
    fn set(&self, cx: &ProviderContext<'_>, url: &str, document: &str) -> Result<(), sqs::Error> {
        let arn = self.sqs.resolve_url(cx.scope, url)?;
        let mut attributes = IndexMap::new();
        attributes.insert("Policy".to_string(), document.to_string());
        self.sqs.set_queue_attributes(&arn, &attributes)
    }

    /// Clears the policy of `url`'s queue; a queue that is gone is not an error.
    fn clear(&self, cx: &ProviderContext<'_>, url: &str) -> Result<(), ProviderError> {
        match self.set(cx, url, "") {
            Ok(()) | Err(sqs::Error::QueueDoesNotExist) | Err(sqs::Error::InvalidAddress(_)) => {
                Ok(())
            }
            Err(e) => Err(handler_error(e)),
        }
    }
}

impl ResourceProvider for QueuePolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (document, queues) = Self::inputs(cx, properties)?;
        for (i, url) in queues.iter().enumerate() {
            if let Err(e) = self.set(cx, url, &document) {
                for done in &queues[..i] {
                    let _ = self.clear(cx, done);
                }
                return Err(handler_error(e));
            }
        }
        Ok(schema::identified(&cx.generated_name(128, "")))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (document, queues) = Self::inputs(cx, properties)?;
        let before = schema::strings(cx, current.properties, "Queues").unwrap_or_default();
        for gone in before.iter().filter(|q| !queues.contains(q)) {
            self.clear(cx, gone)?;
        }
        for url in &queues {
            self.set(cx, url, &document).map_err(handler_error)?;
        }
        Ok(schema::identified(current.physical_id))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        for url in schema::strings(cx, current.properties, "Queues").unwrap_or_default() {
            self.clear(cx, &url)?;
        }
        Ok(())
    }
}
