//! Which service a request is for, and on whose behalf (aws-contract.md §2.1).
//!
//! Order: the SigV4 credential scope (`Credential=<key>/<date>/<region>/<service>/aws4_request`,
//! in the `Authorization` header or a presigned `X-Amz-Credential` query parameter); then
//! `X-Amz-Target` (`AmazonSQS.*`, `AmazonSSM.*`); then a form `Action=` (CloudFormation, SNS or
//! SQS action names); then the REST path (`/schedules`, `/schedule-groups`, `/tags/`). The account is
//! the access key when it is 12 digits, else `000000000000`; the region defaults to `us-east-1`.

use axum::http::{HeaderMap, Method, Uri};

use crate::ids::{Scope, DEFAULT_REGION};

/// An AWS service Cumulo may be asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Service {
    /// CloudFormation (awsQuery).
    CloudFormation,
    /// EventBridge Scheduler (restJson1).
    Scheduler,
    /// SQS (awsJson1.0).
    Sqs,
    /// SNS (awsQuery).
    Sns,
    /// SSM Parameter Store (awsJson1.1).
    Ssm,
    /// S3, path style (restXml).
    S3,
    /// Any other signing name, kept for the error message.
    Other(String),
}

impl Service {
    /// The service's signing name.
    pub fn name(&self) -> &str {
        match self {
            Service::CloudFormation => "cloudformation",
            Service::Scheduler => "scheduler",
            Service::Sqs => "sqs",
            Service::Sns => "sns",
            Service::Ssm => "ssm",
            Service::S3 => "s3",
            Service::Other(name) => name,
        }
    }

    fn from_signing_name(name: &str) -> Service {
        match name {
            "cloudformation" => Service::CloudFormation,
            "scheduler" => Service::Scheduler,
            "sqs" => Service::Sqs,
            "sns" => Service::Sns,
            "ssm" => Service::Ssm,
            "s3" => Service::S3,
            other => Service::Other(other.to_string()),
        }
    }
}

/// The SigV4 credential scope of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credential {
    /// Access key id.
    pub access_key: String,
    /// Region of the scope.
    pub region: String,
    /// Signing name of the scope.
    pub service: String,
}

/// Parses `Credential=AKID/20240101/us-east-1/scheduler/aws4_request` out of an
/// `Authorization` header value or an `X-Amz-Credential` value.
pub fn parse_credential(text: &str) -> Option<Credential> {
    let start = text
        .find("Credential=")
        .map(|i| i + "Credential=".len())
        .unwrap_or(0);
    let rest = &text[start..];
    let scope = rest.split([',', ' ', '&']).next()?;
    let mut parts = scope.split('/');
    let access_key = parts.next()?.to_string();
    let _date = parts.next()?;
    let region = parts.next()?.to_string();
    let service = parts.next()?.to_string();
    (parts.next()? == "aws4_request").then_some(Credential {
        access_key,
        region,
        service,
    })
}

/// CloudFormation actions, for requests that carry no credential scope.
const CFN_ACTION_HINTS: &[&str] = &[
    "Stack",
    "ChangeSet",
    "Template",
    "Export",
    "Import",
    "StackSet",
];
/// SNS actions, likewise.
const SNS_ACTIONS: &[&str] = &[
    "CreateTopic",
    "DeleteTopic",
    "ListTopics",
    "Publish",
    "PublishBatch",
    "Subscribe",
    "Unsubscribe",
    "ListSubscriptions",
    "ListSubscriptionsByTopic",
    "GetTopicAttributes",
    "SetTopicAttributes",
    "GetSubscriptionAttributes",
    "SetSubscriptionAttributes",
    "ConfirmSubscription",
];

/// SQS actions (its awsQuery protocol), likewise.
const SQS_ACTIONS: &[&str] = &[
    "CreateQueue",
    "GetQueueUrl",
    "DeleteQueue",
    "GetQueueAttributes",
    "SetQueueAttributes",
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
    "PurgeQueue",
    "ListQueues",
    "ListDeadLetterSourceQueues",
    "TagQueue",
    "UntagQueue",
    "ListQueueTags",
];

/// Who a request is for: the service and the scope its state lives in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routed {
    /// The service.
    pub service: Service,
    /// Account and region.
    pub scope: Scope,
    /// True when the service is the one the request's SigV4 credential scope names (evidence
    /// that stands whatever the body's type).
    pub signed: bool,
}

/// Routes one request (see the module doc for the order of evidence).
pub fn route(
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    form_action: Option<&str>,
) -> Option<Routed> {
    let credential = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_credential)
        .or_else(|| {
            let query = uri.query()?;
            form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "X-Amz-Credential")
                .and_then(|(_, v)| parse_credential(&v))
        });
    let target = headers.get("x-amz-target").and_then(|v| v.to_str().ok());
    let scope = match &credential {
        Some(c) => Scope::new(
            Scope::account_for_access_key(&c.access_key),
            c.region.clone(),
        ),
        None => Scope::new(crate::ids::DEFAULT_ACCOUNT, DEFAULT_REGION),
    };
    let by_target = target.and_then(|t| {
        let prefix = t.split('.').next()?;
        match prefix {
            "AmazonSQS" => Some(Service::Sqs),
            "AmazonSSM" => Some(Service::Ssm),
            _ => None,
        }
    });
    let by_credential = credential
        .as_ref()
        .map(|c| Service::from_signing_name(&c.service));
    let signed = by_target.is_none() && by_credential.is_some();
    let service = by_target
        .or(by_credential)
        .or_else(|| {
            let action = form_action?;
            if SNS_ACTIONS.contains(&action) {
                Some(Service::Sns)
            } else if SQS_ACTIONS.contains(&action) {
                Some(Service::Sqs)
            } else if CFN_ACTION_HINTS.iter().any(|h| action.contains(h)) {
                Some(Service::CloudFormation)
            } else {
                None
            }
        })
        .or_else(|| {
            let path = uri.path();
            let rest_json = path == "/schedules"
                || path.starts_with("/schedules/")
                || path == "/schedule-groups"
                || path.starts_with("/schedule-groups/")
                || path.starts_with("/tags/");
            if rest_json {
                Some(Service::Scheduler)
            } else if *method != Method::POST || form_action.is_none() {
                Some(Service::S3)
            } else {
                None
            }
        })?;
    Some(Routed {
        service,
        scope,
        signed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn credential_scope_names_service_region_and_account() {
        let h = headers(&[(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=123456789012/20240101/eu-west-1/scheduler/aws4_request, SignedHeaders=host, Signature=abc",
        )]);
        let r = route(&Method::GET, &"/schedules".parse().unwrap(), &h, None).unwrap();
        assert_eq!(r.service, Service::Scheduler);
        assert_eq!(r.scope, Scope::new("123456789012", "eu-west-1"));
    }

    #[test]
    fn target_header_beats_the_scope_and_test_keys_use_the_default_account() {
        let h = headers(&[
            ("authorization", "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=abc"),
            ("x-amz-target", "AmazonSQS.SendMessage"),
        ]);
        let r = route(&Method::POST, &"/".parse().unwrap(), &h, None).unwrap();
        assert_eq!(r.service, Service::Sqs);
        assert_eq!(r.scope.account, "000000000000");
    }

    #[test]
    fn unsigned_requests_route_by_action_or_path() {
        let h = HeaderMap::new();
        let cfn = route(
            &Method::POST,
            &"/".parse().unwrap(),
            &h,
            Some("DescribeStacks"),
        )
        .unwrap();
        assert_eq!(cfn.service, Service::CloudFormation);
        let sns = route(&Method::POST, &"/".parse().unwrap(), &h, Some("Publish")).unwrap();
        assert_eq!(sns.service, Service::Sns);
        let sched = route(
            &Method::GET,
            &"/schedule-groups/x".parse().unwrap(),
            &h,
            None,
        )
        .unwrap();
        assert_eq!(sched.service, Service::Scheduler);
    }
}
