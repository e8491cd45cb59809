//! Optional request authentication for shared emulators (`CUMULO_AUTH=sigv4`, README
//! "Authentication"): every AWS request must carry a valid Signature Version 4 made with a key
//! of `CUMULO_AUTH_KEYS` ([`keys`]), verified by [`sigv4`]; its account is the key's. Cumulo's
//! own `/_cumulo/` endpoints stay open (they are not AWS APIs and carry no signature).
//!
//! Skew is measured against the emulator's clock in `system` mode. In `manual` mode it is not
//! checked (a signer's wall time has no relation to a test's manual time), nor is a presigned
//! URL's expiry; signatures, keys and payload hashes still are.
//!
//! This module maps a refusal to each protocol's codes and texts (IAM/STS and the common
//! errors of the API references for awsQuery; the Coral `...Exception` names for awsJson and
//! restJson; S3's error list for restXml). It must not know any operation.

pub mod keys;
pub mod sigv4;

use http::StatusCode;

use super::error::WireError;
use super::route::Service;
use crate::clock::{Clock, ClockMode};
use crate::config::Auth;
use sigv4::AuthFailure;

/// Checks `req` for `service` under `auth`: `Ok(None)` when authentication is off,
/// `Ok(Some(account))` for a verified request, else the error to answer in the service's
/// protocol.
pub fn check(
    auth: &Auth,
    clock: &Clock,
    req: sigv4::Request<'_>,
    service: &Service,
) -> Result<Option<String>, WireError> {
    let Auth::SigV4(keys) = auth else {
        return Ok(None);
    };
    let now = (clock.mode() == ClockMode::System).then(|| clock.now());
    let is_s3 = *service == Service::S3;
    match sigv4::verify(req, is_s3, keys, now) {
        Ok(signed) => Ok(Some(signed.account_id)),
        Err(failure) => {
            tracing::info!(
                service = service.name(),
                ?failure,
                "request refused: signature"
            );
            Err(wire_error(&failure, service))
        }
    }
}

/// The family of error codes a service answers authentication failures with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    /// awsQuery services (CloudFormation, SNS): `InvalidClientTokenId`, `SignatureDoesNotMatch`…
    Query,
    /// SQS: the awsJson names with the query codes in `x-amzn-query-error` (it is
    /// query-compatible), 403 like its query protocol.
    Sqs,
    /// awsJson (SSM): `UnrecognizedClientException`, `InvalidSignatureException`…, 400.
    Json,
    /// restJson (Scheduler and any other): the same names, 403.
    RestJson,
    /// S3: `InvalidAccessKeyId`, `SignatureDoesNotMatch`, `RequestTimeTooSkewed`…
    S3,
}

fn family(service: &Service) -> Family {
    match service {
        Service::CloudFormation | Service::Sns => Family::Query,
        Service::Sqs => Family::Sqs,
        Service::Ssm => Family::Json,
        Service::S3 => Family::S3,
        Service::Scheduler | Service::Other(_) => Family::RestJson,
    }
}

const SIGNATURE_MISMATCH: &str = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";
const INVALID_TOKEN: &str = "The security token included in the request is invalid.";

/// The code, status and message of `failure` for `service` (see the module doc).
pub fn wire_error(failure: &AuthFailure, service: &Service) -> WireError {
    let family = family(service);
    // (awsQuery code, JSON code, S3 code)
    let (query, json, s3, message): (&str, &str, &str, String) = match failure {
        AuthFailure::Missing => (
            "MissingAuthenticationToken",
            "MissingAuthenticationTokenException",
            "AccessDenied",
            if family == Family::S3 {
                "Access Denied".into()
            } else if family == Family::Query {
                "Request is missing Authentication Token".into()
            } else {
                "Missing Authentication Token".into()
            },
        ),
        AuthFailure::Incomplete(text) => (
            "IncompleteSignature",
            "IncompleteSignatureException",
            "AuthorizationHeaderMalformed",
            if family == Family::S3 {
                format!("The authorization header is malformed; {text}")
            } else {
                text.clone()
            },
        ),
        AuthFailure::UnknownKey(_) => (
            "InvalidClientTokenId",
            "UnrecognizedClientException",
            "InvalidAccessKeyId",
            if family == Family::S3 {
                "The AWS Access Key Id you provided does not exist in our records.".into()
            } else {
                INVALID_TOKEN.into()
            },
        ),
        AuthFailure::Mismatch {
            canonical_request,
            string_to_sign,
        } => (
            "SignatureDoesNotMatch",
            "InvalidSignatureException",
            "SignatureDoesNotMatch",
            if family == Family::S3 {
                "The request signature we calculated does not match the signature you provided. Check your key and signing method.".into()
            } else {
                format!("{SIGNATURE_MISMATCH}\n\nThe Canonical String for this request should have been\n'{canonical_request}'\n\nThe String-to-Sign should have been\n'{string_to_sign}'\n")
            },
        ),
        AuthFailure::Skewed {
            request_time,
            now,
            minutes,
        } => {
            let stamp = |t: chrono::DateTime<chrono::Utc>| t.format("%Y%m%dT%H%M%SZ").to_string();
            let skew = chrono::Duration::minutes(*minutes);
            let text = if request_time < now {
                format!(
                    "Signature expired: {} is now earlier than {} ({} - {minutes} min.)",
                    stamp(*request_time),
                    stamp(*now - skew),
                    stamp(*now)
                )
            } else {
                format!(
                    "Signature not yet current: {} is still later than {} ({} + {minutes} min.)",
                    stamp(*request_time),
                    stamp(*now + skew),
                    stamp(*now)
                )
            };
            (
                "SignatureDoesNotMatch",
                "InvalidSignatureException",
                "RequestTimeTooSkewed",
                if family == Family::S3 {
                    "The difference between the request time and the current time is too large."
                        .into()
                } else {
                    text
                },
            )
        }
        AuthFailure::Expired => (
            "SignatureDoesNotMatch",
            "InvalidSignatureException",
            "AccessDenied",
            if family == Family::S3 {
                "Request has expired".into()
            } else {
                "Signature expired: the presigned request is past its X-Amz-Expires.".into()
            },
        ),
        AuthFailure::PayloadMismatch => (
            "SignatureDoesNotMatch",
            "InvalidSignatureException",
            "XAmzContentSHA256Mismatch",
            if family == Family::S3 {
                "The provided 'x-amz-content-sha256' header does not match what was computed."
                    .into()
            } else {
                format!("{SIGNATURE_MISMATCH} The payload hash does not match the body.")
            },
        ),
    };
    let incomplete = matches!(failure, AuthFailure::Incomplete(_));
    let payload = matches!(failure, AuthFailure::PayloadMismatch);
    match family {
        Family::S3 => {
            let status = if incomplete || payload {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::FORBIDDEN
            };
            WireError::new(s3, message, status)
        }
        Family::Query => {
            let status = if incomplete {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::FORBIDDEN
            };
            WireError::new(query, message, status)
        }
        Family::Sqs => {
            let status = if incomplete {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::FORBIDDEN
            };
            WireError::new(json, message, status).with_query_error(query)
        }
        Family::Json => WireError::new(
            json,
            message,
            if matches!(failure, AuthFailure::Missing) {
                StatusCode::FORBIDDEN
            } else {
                StatusCode::BAD_REQUEST
            },
        ),
        Family::RestJson => WireError::new(
            json,
            message,
            if incomplete {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::FORBIDDEN
            },
        ),
    }
}
