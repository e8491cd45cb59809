//! AWS Signature Version 4 verification (IAM user guide, "Create a signed AWS API request";
//! S3 API reference, "Authenticating Requests (AWS Signature Version 4)"): the canonical
//! request, the string to sign, the signing key, and the comparison with what the client sent,
//! for the `Authorization` header and for presigned query parameters, with S3's payload forms
//! (`UNSIGNED-PAYLOAD`, a hex SHA-256 checked against the body, and signed `aws-chunked`
//! streaming bodies whose chunk signatures are checked one by one).
//!
//! Pure: the caller passes the instant to check skew against (or none) and the keys. Knows no
//! wire shapes: failures are [`AuthFailure`] values, mapped to each protocol's codes by the
//! parent module.

use chrono::{DateTime, NaiveDateTime, Utc};
use hmac::{Hmac, Mac};
use http::{HeaderMap, Method, Uri};
use sha2::{Digest, Sha256};

use crate::config::AccessKey;

const ALGORITHM: &str = "AWS4-HMAC-SHA256";
const STREAMING_SIGNED: &str = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
const STREAMING_SIGNED_TRAILER: &str = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// The most a presigned URL may live (`X-Amz-Expires`, seconds): seven days.
pub const MAX_PRESIGNED_EXPIRES: i64 = 604_800;

/// Why a request's signature was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthFailure {
    /// Neither an `Authorization` header nor presigned query parameters.
    Missing,
    /// The signature's parts are malformed or incomplete (the message says which).
    Incomplete(String),
    /// The access key id is not in the key file.
    UnknownKey(String),
    /// The signature differs from the one computed with the key's secret.
    Mismatch {
        /// The canonical request Cumulo computed.
        canonical_request: String,
        /// The string to sign Cumulo computed.
        string_to_sign: String,
    },
    /// The request's time is outside the allowed skew of the emulator's clock.
    Skewed {
        /// The request's `X-Amz-Date`.
        request_time: DateTime<Utc>,
        /// The emulator's clock.
        now: DateTime<Utc>,
        /// The skew allowed, in minutes.
        minutes: i64,
    },
    /// A presigned URL past `X-Amz-Date` + `X-Amz-Expires`.
    Expired,
    /// S3: the body's SHA-256 differs from `x-amz-content-sha256`.
    PayloadMismatch,
}

/// What a verified request was signed with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    /// The access key id.
    pub access_key_id: String,
    /// The account of that key.
    pub account_id: String,
}

/// The request as it arrived.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// Method.
    pub method: &'a Method,
    /// The URI as sent (path and query not decoded).
    pub uri: &'a Uri,
    /// Headers.
    pub headers: &'a HeaderMap,
    /// The whole body.
    pub body: &'a [u8],
}

/// The signature's parts, from the header or the query.
struct Parts {
    access_key_id: String,
    scope_date: String,
    region: String,
    service: String,
    signed_headers: Vec<String>,
    signature: String,
    amz_date: String,
    /// Presigned: `X-Amz-Expires` in seconds.
    expires: Option<i64>,
}

/// Verifies `req`, signed for the signing name `service` (S3's rules when it is `s3`), against
/// `keys`; `now` is the instant skew is measured from (`None`: not checked). The skew allowed
/// is 15 minutes for S3 and 5 minutes for the other services, as they answer.
pub fn verify(
    req: Request<'_>,
    service_is_s3: bool,
    keys: &std::collections::BTreeMap<String, AccessKey>,
    now: Option<DateTime<Utc>>,
) -> Result<Signed, AuthFailure> {
    let parts = signature_parts(req)?;
    let key = keys
        .get(&parts.access_key_id)
        .ok_or_else(|| AuthFailure::UnknownKey(parts.access_key_id.clone()))?;
    let request_time = NaiveDateTime::parse_from_str(&parts.amz_date, "%Y%m%dT%H%M%SZ")
        .map(|t| t.and_utc())
        .map_err(|_| {
            AuthFailure::Incomplete(format!(
                "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"; got '{}'",
                parts.amz_date
            ))
        })?;
    if !parts.amz_date.starts_with(&parts.scope_date) {
        return Err(AuthFailure::Incomplete(format!(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '{}' != '{}', from '{}'.",
            parts.scope_date,
            &parts.amz_date[..parts.amz_date.len().min(8)],
            parts.amz_date
        )));
    }
    if let Some(now) = now {
        check_time(&parts, request_time, now, service_is_s3)?;
    }
    let payload_hash = payload_hash(req, &parts, service_is_s3)?;
    let canonical_request = canonical_request(req, &parts, &payload_hash, service_is_s3);
    let scope = format!(
        "{}/{}/{}/aws4_request",
        parts.scope_date, parts.region, parts.service
    );
    let string_to_sign = format!(
        "{ALGORITHM}\n{}\n{scope}\n{}",
        parts.amz_date,
        hex_sha256(canonical_request.as_bytes())
    );
    let signing_key = signing_key(key, &parts);
    let expected = hex::encode(hmac(&signing_key, string_to_sign.as_bytes()));
    if !constant_time_eq(expected.as_bytes(), parts.signature.as_bytes()) {
        return Err(AuthFailure::Mismatch {
            canonical_request,
            string_to_sign,
        });
    }
    if payload_hash == STREAMING_SIGNED || payload_hash == STREAMING_SIGNED_TRAILER {
        verify_chunks(req.body, &signing_key, &parts.amz_date, &scope, &expected)?;
    }
    Ok(Signed {
        access_key_id: parts.access_key_id,
        account_id: key.account_id.clone(),
    })
}

/// Header time within the skew, or a presigned URL within its lifetime.
fn check_time(
    parts: &Parts,
    request_time: DateTime<Utc>,
    now: DateTime<Utc>,
    service_is_s3: bool,
) -> Result<(), AuthFailure> {
    let minutes = if service_is_s3 { 15 } else { 5 };
    let skew = chrono::Duration::minutes(minutes);
    match parts.expires {
        Some(expires) => {
            if request_time - skew > now {
                return Err(AuthFailure::Skewed {
                    request_time,
                    now,
                    minutes,
                });
            }
            if now > request_time + chrono::Duration::seconds(expires) {
                return Err(AuthFailure::Expired);
            }
        }
        None => {
            if (request_time - now).abs() > skew {
                return Err(AuthFailure::Skewed {
                    request_time,
                    now,
                    minutes,
                });
            }
        }
    }
    Ok(())
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The query's pairs, percent-decoded.
fn query_pairs(uri: &Uri) -> Vec<(String, String)> {
    form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn signature_parts(req: Request<'_>) -> Result<Parts, AuthFailure> {
    if let Some(auth) = header(req.headers, "authorization") {
        return header_parts(auth, req.headers);
    }
    let query = query_pairs(req.uri);
    if query.iter().any(|(k, _)| k == "X-Amz-Algorithm") {
        return query_parts(&query);
    }
    Err(AuthFailure::Missing)
}

/// `AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request, SignedHeaders=a;b,
/// Signature=hex`.
fn header_parts(auth: &str, headers: &HeaderMap) -> Result<Parts, AuthFailure> {
    let incomplete = |what: &str| {
        AuthFailure::Incomplete(format!(
            "Authorization header requires '{what}' parameter. Authorization={auth}"
        ))
    };
    let Some(rest) = auth.strip_prefix(ALGORITHM) else {
        let algorithm = auth.split_whitespace().next().unwrap_or("");
        return Err(AuthFailure::Incomplete(format!(
            "Unsupported AWS 'algorithm': '{algorithm}'"
        )));
    };
    let mut credential = None;
    let mut signed_headers = None;
    let mut signature = None;
    for item in rest.split(',') {
        let item = item.trim();
        if let Some(v) = item.strip_prefix("Credential=") {
            credential = Some(v);
        } else if let Some(v) = item.strip_prefix("SignedHeaders=") {
            signed_headers = Some(v);
        } else if let Some(v) = item.strip_prefix("Signature=") {
            signature = Some(v);
        }
    }
    let credential = credential.ok_or_else(|| incomplete("Credential"))?;
    let signed_headers = signed_headers.ok_or_else(|| incomplete("SignedHeaders"))?;
    let signature = signature.ok_or_else(|| incomplete("Signature"))?;
    let amz_date = header(headers, "x-amz-date")
        .map(str::to_string)
        .or_else(|| http_date(header(headers, "date")?))
        .ok_or_else(|| incomplete("X-Amz-Date"))?;
    let (access_key_id, scope_date, region, service) = credential_scope(credential)?;
    Ok(Parts {
        access_key_id,
        scope_date,
        region,
        service,
        signed_headers: signed_headers.split(';').map(str::to_string).collect(),
        signature: signature.to_string(),
        amz_date,
        expires: None,
    })
}

/// A `Date` header (RFC 1123) in the ISO 8601 basic form signatures use.
fn http_date(text: &str) -> Option<String> {
    DateTime::parse_from_rfc2822(text)
        .ok()
        .map(|t| t.with_timezone(&Utc).format("%Y%m%dT%H%M%SZ").to_string())
}

/// `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
/// `X-Amz-SignedHeaders`, `X-Amz-Signature`.
fn query_parts(query: &[(String, String)]) -> Result<Parts, AuthFailure> {
    let get = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let missing = |name: &str| {
        AuthFailure::Incomplete(format!(
            "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters; {name} is missing."
        ))
    };
    let algorithm = get("X-Amz-Algorithm").unwrap_or("");
    if algorithm != ALGORITHM {
        return Err(AuthFailure::Incomplete(format!(
            "X-Amz-Algorithm only supports \"{ALGORITHM}\"; got '{algorithm}'"
        )));
    }
    let credential = get("X-Amz-Credential").ok_or_else(|| missing("X-Amz-Credential"))?;
    let signature = get("X-Amz-Signature").ok_or_else(|| missing("X-Amz-Signature"))?;
    let amz_date = get("X-Amz-Date").ok_or_else(|| missing("X-Amz-Date"))?;
    let signed_headers =
        get("X-Amz-SignedHeaders").ok_or_else(|| missing("X-Amz-SignedHeaders"))?;
    let expires = get("X-Amz-Expires").ok_or_else(|| missing("X-Amz-Expires"))?;
    let expires = expires
        .parse::<i64>()
        .ok()
        .filter(|e| (0..=MAX_PRESIGNED_EXPIRES).contains(e))
        .ok_or_else(|| {
            AuthFailure::Incomplete(format!(
                "X-Amz-Expires must be a number of seconds from 0 to {MAX_PRESIGNED_EXPIRES}; got '{expires}'"
            ))
        })?;
    let (access_key_id, scope_date, region, service) = credential_scope(credential)?;
    Ok(Parts {
        access_key_id,
        scope_date,
        region,
        service,
        signed_headers: signed_headers.split(';').map(str::to_string).collect(),
        signature: signature.to_string(),
        amz_date: amz_date.to_string(),
        expires: Some(expires),
    })
}

/// `AKID/yyyymmdd/region/service/aws4_request` → its four parts.
fn credential_scope(credential: &str) -> Result<(String, String, String, String), AuthFailure> {
    let parts: Vec<&str> = credential.split('/').collect();
    match parts.as_slice() {
        [key, date, region, service, "aws4_request"] if !key.is_empty() && date.len() == 8 => Ok((
            key.to_string(),
            date.to_string(),
            region.to_string(),
            service.to_string(),
        )),
        _ => Err(AuthFailure::Incomplete(format!(
            "Credential should be scoped to a valid region, date, service and terminated by 'aws4_request'; got '{credential}'"
        ))),
    }
}

/// The payload hash the signature covers: S3's `x-amz-content-sha256` (checked against the
/// body when it is a hash), `UNSIGNED-PAYLOAD` for a presigned S3 URL, else the body's SHA-256.
fn payload_hash(
    req: Request<'_>,
    parts: &Parts,
    service_is_s3: bool,
) -> Result<String, AuthFailure> {
    let declared = header(req.headers, "x-amz-content-sha256");
    let Some(declared) = declared else {
        if service_is_s3 && parts.expires.is_some() {
            return Ok("UNSIGNED-PAYLOAD".into());
        }
        if service_is_s3 {
            return Err(AuthFailure::Incomplete(
                "Missing required header for this request: x-amz-content-sha256".into(),
            ));
        }
        return Ok(hex_sha256(req.body));
    };
    let is_hash = declared.len() == 64 && declared.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hash {
        if !declared.eq_ignore_ascii_case(&hex_sha256(req.body)) {
            return Err(AuthFailure::PayloadMismatch);
        }
    } else if !(declared == "UNSIGNED-PAYLOAD" || declared.starts_with("STREAMING-")) {
        return Err(AuthFailure::Incomplete(format!(
            "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-..., or a valid sha256 value; got '{declared}'"
        )));
    }
    Ok(declared.to_string())
}

/// The canonical request: method, URI, query, headers, signed header names, payload hash.
fn canonical_request(
    req: Request<'_>,
    parts: &Parts,
    payload_hash: &str,
    service_is_s3: bool,
) -> String {
    let path = req.uri.path();
    let uri = if path.is_empty() {
        "/".to_string()
    } else if service_is_s3 {
        path.to_string()
    } else {
        // Every service but S3 signs the path encoded once more (`%` becomes `%25`).
        encode(&normalize(path), false)
    };
    let mut query: Vec<(String, String)> = query_pairs(req.uri)
        .into_iter()
        .filter(|(k, _)| k != "X-Amz-Signature")
        .map(|(k, v)| (encode(&k, true), encode(&v, true)))
        .collect();
    query.sort();
    let query = query
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let mut headers = String::new();
    for name in &parts.signed_headers {
        let values: Vec<String> = req
            .headers
            .get_all(name.as_str())
            .iter()
            .map(|v| collapse_spaces(&String::from_utf8_lossy(v.as_bytes())))
            .collect();
        headers.push_str(name);
        headers.push(':');
        headers.push_str(&values.join(","));
        headers.push('\n');
    }
    format!(
        "{}\n{uri}\n{query}\n{headers}\n{}\n{payload_hash}",
        req.method,
        parts.signed_headers.join(";")
    )
}

/// Removes `.` and `..` segments (the SDKs sign the normalized path for every service but S3).
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        if matches!(*segment, "." | "..") && i + 1 == segments.len() {
            out.push("");
        }
    }
    format!("/{}", out.join("/"))
}

/// AWS's URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` as `%XX` (upper-case hex), and `/`
/// too when `slash` is set (query names and values).
fn encode(text: &str, slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~')
            || (b == b'/' && !slash);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Trims a header value and collapses runs of spaces to one.
fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn hex_sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
fn signing_key(key: &AccessKey, parts: &Parts) -> Vec<u8> {
    let k_date = hmac(
        format!("AWS4{}", key.secret_access_key).as_bytes(),
        parts.scope_date.as_bytes(),
    );
    let k_region = hmac(&k_date, parts.region.as_bytes());
    let k_service = hmac(&k_region, parts.service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks every chunk signature of a signed `aws-chunked` body: chunk k signs
/// `AWS4-HMAC-SHA256-PAYLOAD\n<date>\n<scope>\n<signature k-1>\n<sha256("")>\n<sha256(data)>`,
/// chunk 0 chaining from the seed (header) signature; the final chunk is empty.
fn verify_chunks(
    body: &[u8],
    signing_key: &[u8],
    amz_date: &str,
    scope: &str,
    seed: &str,
) -> Result<(), AuthFailure> {
    let malformed = || AuthFailure::Incomplete("The aws-chunked body is malformed.".into());
    let mut previous = seed.to_string();
    let mut rest = body;
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(malformed)?;
        let line = std::str::from_utf8(&rest[..line_end]).map_err(|_| malformed())?;
        let (size, signature) = line.split_once(";chunk-signature=").ok_or_else(malformed)?;
        let size = usize::from_str_radix(size, 16).map_err(|_| malformed())?;
        let data_start = line_end + 2;
        let data = rest
            .get(data_start..data_start.checked_add(size).ok_or_else(malformed)?)
            .ok_or_else(malformed)?;
        let string_to_sign = format!(
            "AWS4-HMAC-SHA256-PAYLOAD\n{amz_date}\n{scope}\n{previous}\n{EMPTY_SHA256}\n{}",
            hex_sha256(data)
        );
        let expected = hex::encode(hmac(signing_key, string_to_sign.as_bytes()));
        if !constant_time_eq(expected.as_bytes(), signature.as_bytes()) {
            return Err(AuthFailure::Mismatch {
                canonical_request: String::new(),
                string_to_sign,
            });
        }
        if size == 0 {
            return Ok(());
        }
        previous = expected;
        rest = rest
            .get(data_start + size..)
            .and_then(|r| r.strip_prefix(b"\r\n"))
            .ok_or_else(malformed)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The IAM user guide's worked example ("Example: GET request with the Authorization
    /// header" for IAM ListUsers, 2015-08-30, key AKIDEXAMPLE).
    #[test]
    fn the_documented_example_verifies() {
        let mut keys = std::collections::BTreeMap::new();
        keys.insert(
            "AKIDEXAMPLE".to_string(),
            AccessKey {
                secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
                account_id: "123456789012".into(),
            },
        );
        let mut headers = HeaderMap::new();
        headers.insert("host", "iam.amazonaws.com".parse().unwrap());
        headers.insert(
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8"
                .parse()
                .unwrap(),
        );
        headers.insert("x-amz-date", "20150830T123600Z".parse().unwrap());
        headers.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
                .parse()
                .unwrap(),
        );
        let uri: Uri = "/?Action=ListUsers&Version=2010-05-08".parse().unwrap();
        let req = Request {
            method: &Method::GET,
            uri: &uri,
            headers: &headers,
            body: b"",
        };
        let signed = verify(req, false, &keys, None).expect("verifies");
        assert_eq!(signed.account_id, "123456789012");
        let mut wrong = keys.clone();
        wrong.get_mut("AKIDEXAMPLE").unwrap().secret_access_key = "other".into();
        match verify(req, false, &wrong, None) {
            Err(AuthFailure::Mismatch { canonical_request, .. }) => assert_eq!(
                canonical_request,
                "GET\n/\nAction=ListUsers&Version=2010-05-08\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\nhost:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_are_encoded_twice_except_for_s3() {
        assert_eq!(encode("/tags/arn%3Aaws", false), "/tags/arn%253Aaws");
        assert_eq!(encode("a b/c~", true), "a%20b%2Fc~");
        assert_eq!(normalize("/a/./b/../c"), "/a/c");
        assert_eq!(normalize("/"), "/");
    }
}
