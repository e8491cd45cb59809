//! S3 on the wire: restXml, path style (`/<bucket>/<key>`), signing name `s3`. Routes by method,
//! path and sub-resource query, calls one `crate::services::s3` operation, and answers with S3's
//! status codes, headers and XML (`http://s3.amazonaws.com/doc/2006-03-01/`). HEAD errors
//! carry no body. `aws-chunked` upload bodies (`STREAMING-*` payloads) are decoded.
//!
//! Served: ListBuckets, CreateBucket, HeadBucket, GetBucketLocation, DeleteBucket,
//! ListObjects(V2), DeleteObjects, PutObject, CopyObject, HeadObject, GetObject (with a single
//! byte range), DeleteObject. Anything else is a 400 `NotImplemented` naming it.

use std::collections::BTreeMap;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::xml::{is_xml_text, XmlWriter};
use crate::protocol::AwsRequest;
use crate::services::s3::{self, ListObjectsInput, Object, PutObjectInput};
use crate::time::iso_millis;

/// How S3 errors are encoded.
pub const PROTOCOL: Protocol = Protocol::RestXml;

const XMLNS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// Bucket sub-resources Cumulo does not serve (answered NotImplemented, never mistaken for a
/// plain bucket call).
const UNSUPPORTED_SUBRESOURCES: &[&str] = &[
    "acl",
    "accelerate",
    "analytics",
    "cors",
    "encryption",
    "intelligent-tiering",
    "inventory",
    "lifecycle",
    "logging",
    "metrics",
    "notification",
    "object-lock",
    "ownershipControls",
    "policy",
    "policyStatus",
    "publicAccessBlock",
    "replication",
    "requestPayment",
    "tagging",
    "versioning",
    "versions",
    "website",
    "uploads",
    "uploadId",
    "partNumber",
    "retention",
    "legal-hold",
    "torrent",
    "restore",
    "select",
    "attributes",
];

impl From<s3::Error> for WireError {
    fn from(err: s3::Error) -> WireError {
        use s3::Error as E;
        let status = match err {
            E::NoSuchBucket(_) | E::NoSuchKey(_) => StatusCode::NOT_FOUND,
            E::BucketAlreadyOwnedByYou(_) | E::BucketAlreadyExists(_) | E::BucketNotEmpty(_) => {
                StatusCode::CONFLICT
            }
            E::InvalidRange => StatusCode::RANGE_NOT_SATISFIABLE,
            _ => StatusCode::BAD_REQUEST,
        };
        WireError::new(err.code(), err.message(), status)
    }
}

/// Handles one S3 request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let head = req.method == Method::HEAD;
    match dispatch(app, &req).await {
        Ok(resp) => resp,
        Err(err) if head => {
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = err.status;
            set_request_id(resp.headers_mut(), &req.request_id);
            resp
        }
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

fn set_request_id(headers: &mut HeaderMap, request_id: &str) {
    if let Ok(v) = HeaderValue::from_str(request_id) {
        headers.insert("x-amz-request-id", v.clone());
        headers.insert("x-amzn-requestid", v);
    }
}

fn response(status: StatusCode, body: impl Into<Body>, request_id: &str) -> Response {
    let mut resp = Response::new(body.into());
    *resp.status_mut() = status;
    set_request_id(resp.headers_mut(), request_id);
    resp
}

fn xml_response(xml: String, request_id: &str) -> Response {
    let mut resp = response(StatusCode::OK, xml, request_id);
    resp.headers_mut()
        .insert("content-type", HeaderValue::from_static("application/xml"));
    resp
}

fn header(resp: &mut Response, name: &'static str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        resp.headers_mut().insert(name, v);
    }
}

fn req_header<'a>(req: &'a AwsRequest, name: &str) -> Option<&'a str> {
    req.headers.get(name).and_then(|v| v.to_str().ok())
}

fn http_date(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn not_implemented(what: &str) -> WireError {
    WireError::not_implemented("S3", what, "NotImplemented")
}

/// The canonical user id S3 shows as Owner: a stable 64-hex id per account.
fn owner_id(account: &str) -> String {
    hex::encode(Sha256::digest(
        format!("cumulo-s3-owner-{account}").as_bytes(),
    ))
}

/// Decodes an `aws-chunked` body: `<hex size>[;ext]\r\n<data>\r\n` ... `0\r\n<trailers>\r\n\r\n`.
/// Returns the payload and the trailing headers.
fn decode_aws_chunked(body: &[u8]) -> Option<(Vec<u8>, BTreeMap<String, String>)> {
    let mut out = Vec::with_capacity(body.len());
    let mut trailers = BTreeMap::new();
    let mut rest = body;
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size_text = line.split(';').next()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            for line in std::str::from_utf8(rest).ok()?.split("\r\n") {
                if let Some((k, v)) = line.split_once(':') {
                    trailers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            return Some((out, trailers));
        }
        if rest.len() < size.checked_add(2)? {
            return None;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// Percent-encodes a key for `encoding-type=url` listings (unreserved characters and `/` kept).
fn url_encode(key: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(key, KEEP).to_string()
}

/// The S3 operations Cumulo serves, with the bucket and key they address (decoded).
#[derive(Debug, PartialEq, Eq)]
enum Operation {
    ListBuckets,
    CreateBucket(String),
    HeadBucket(String),
    GetBucketLocation(String),
    DeleteBucket(String),
    ListObjects(String),
    ListObjectsV2(String),
    DeleteObjects(String),
    PutObject(String, String),
    /// Bucket, key and the `x-amz-copy-source` header as sent.
    CopyObject(String, String, String),
    GetObject(String, String),
    HeadObject(String, String),
    DeleteObject(String, String),
}

fn decode_segment(raw: &str) -> Result<String, WireError> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map(|c| c.into_owned())
        .map_err(|_| WireError::bad_request("InvalidURI", "Couldn't parse the specified URI."))
}

/// Routes method, raw path (`/<bucket>/<key>`), sub-resource query and the copy-source header
/// to an operation; a sub-resource or method Cumulo does not serve is `NotImplemented`.
fn route(
    method: &Method,
    path: &str,
    query: &BTreeMap<String, String>,
    copy_source: Option<&str>,
) -> Result<Operation, WireError> {
    let raw = path.trim_start_matches('/');
    let (bucket_raw, key_raw) = raw.split_once('/').unwrap_or((raw, ""));
    let bucket = decode_segment(bucket_raw)?;
    let key = decode_segment(key_raw)?;
    if let Some(sub) = UNSUPPORTED_SUBRESOURCES
        .iter()
        .find(|s| query.contains_key(**s))
    {
        return Err(not_implemented(&format!("{method} ?{sub}")));
    }
    let op = if bucket.is_empty() {
        (*method == Method::GET).then_some(Operation::ListBuckets)
    } else if key.is_empty() {
        match *method {
            Method::PUT => Some(Operation::CreateBucket(bucket)),
            Method::HEAD => Some(Operation::HeadBucket(bucket)),
            Method::DELETE => Some(Operation::DeleteBucket(bucket)),
            Method::POST if query.contains_key("delete") => Some(Operation::DeleteObjects(bucket)),
            Method::GET if query.contains_key("location") => {
                Some(Operation::GetBucketLocation(bucket))
            }
            Method::GET if query.get("list-type").map(String::as_str) == Some("2") => {
                Some(Operation::ListObjectsV2(bucket))
            }
            Method::GET => Some(Operation::ListObjects(bucket)),
            _ => None,
        }
    } else {
        match (method.clone(), copy_source) {
            (Method::PUT, Some(source)) => {
                Some(Operation::CopyObject(bucket, key, source.to_string()))
            }
            (Method::PUT, None) => Some(Operation::PutObject(bucket, key)),
            (Method::GET, _) => Some(Operation::GetObject(bucket, key)),
            (Method::HEAD, _) => Some(Operation::HeadObject(bucket, key)),
            (Method::DELETE, _) => Some(Operation::DeleteObject(bucket, key)),
            _ => None,
        }
    };
    op.ok_or_else(|| {
        let shape = match (raw.is_empty(), key_raw.is_empty()) {
            (true, _) => "/",
            (false, true) => "/<bucket>",
            (false, false) => "/<bucket>/<key>",
        };
        not_implemented(&format!("{method} {shape}"))
    })
}

async fn dispatch(app: &App, req: &AwsRequest) -> Result<Response, WireError> {
    let rid = &req.request_id;
    let query: BTreeMap<String, String> = form_urlencoded::parse(req.url_query().as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let op = route(
        &req.method,
        req.uri.path(),
        &query,
        req_header(req, "x-amz-copy-source"),
    )?;
    let s3 = &app.s3;
    match op {
        Operation::ListBuckets => Ok(xml_response(list_buckets_xml(app, req), rid)),
        Operation::CreateBucket(bucket) => {
            let location = create_bucket_configuration(&req.body)?;
            s3.create_bucket(&req.scope, &bucket, location.as_deref())?;
            app.storage.sync().await;
            let mut resp = response(StatusCode::OK, Body::empty(), rid);
            header(&mut resp, "location", &format!("/{bucket}"));
            Ok(resp)
        }
        Operation::HeadBucket(bucket) => {
            let b = s3.head_bucket(&bucket)?;
            let mut resp = response(StatusCode::OK, Body::empty(), rid);
            header(&mut resp, "x-amz-bucket-region", &b.region);
            Ok(resp)
        }
        Operation::GetBucketLocation(bucket) => {
            let b = s3.head_bucket(&bucket)?;
            Ok(xml_response(location_xml(&b.region), rid))
        }
        Operation::DeleteBucket(bucket) => {
            s3.delete_bucket(&bucket)?;
            app.storage.sync().await;
            Ok(response(StatusCode::NO_CONTENT, Body::empty(), rid))
        }
        Operation::ListObjects(bucket) => list_objects(app, req, &bucket, &query, false),
        Operation::ListObjectsV2(bucket) => list_objects(app, req, &bucket, &query, true),
        Operation::DeleteObjects(bucket) => {
            let input = DeleteObjectsInput::decode(&req.body)?;
            s3.head_bucket(&bucket)?;
            let mut w = XmlWriter::root("DeleteResult", Some(XMLNS));
            for key in &input.keys {
                s3.delete_object(&bucket, key)?;
                if !input.quiet {
                    w.open("Deleted").elem("Key", key).close("Deleted");
                }
            }
            app.storage.sync().await;
            Ok(xml_response(w.finish_root(), rid))
        }
        Operation::PutObject(bucket, key) => put_object(app, req, &bucket, &key).await,
        Operation::CopyObject(bucket, key, source) => {
            copy_object(app, req, &bucket, &key, &source).await
        }
        Operation::GetObject(bucket, key) | Operation::HeadObject(bucket, key) => {
            let object = s3.object(&bucket, &key)?;
            object_response(req, &object)
        }
        Operation::DeleteObject(bucket, key) => {
            s3.delete_object(&bucket, &key)?;
            app.storage.sync().await;
            Ok(response(StatusCode::NO_CONTENT, Body::empty(), rid))
        }
    }
}

/// ListAllMyBucketsResult.
fn list_buckets_xml(app: &App, req: &AwsRequest) -> String {
    let mut w = XmlWriter::root("ListAllMyBucketsResult", Some(XMLNS));
    w.open("Owner")
        .elem("ID", &owner_id(&req.scope.account))
        .elem("DisplayName", "cumulo")
        .close("Owner");
    w.open("Buckets");
    for b in app.s3.list_buckets(&req.scope.account) {
        w.open("Bucket")
            .elem("Name", &b.name)
            .elem("CreationDate", &iso_millis(b.created))
            .elem("BucketRegion", &b.region)
            .close("Bucket");
    }
    w.close("Buckets");
    w.finish_root()
}

/// GetBucketLocation's `LocationConstraint`: empty for us-east-1, as S3 answers.
fn location_xml(region: &str) -> String {
    if region == "us-east-1" {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint xmlns=\"{XMLNS}\"/>"
        )
    } else {
        let mut w = XmlWriter::root("LocationConstraint", Some(XMLNS));
        w.text(region);
        w.finish_root()
    }
}

/// A request body's elements as `(name, text)` pairs in document order (an element's text is
/// its character data, entities and character references resolved), with the root element's
/// name. A DTD (`<!DOCTYPE …>`, where entity-expansion bombs live), an entity other than XML's
/// five, or anything that is not well-formed XML is `MalformedXML`, as S3 answers it.
fn xml_elements(body: &[u8]) -> Result<(String, Vec<(String, String)>), WireError> {
    use quick_xml::events::Event;
    let malformed = || WireError::from(s3::Error::MalformedXml);
    let mut reader = quick_xml::Reader::from_reader(body);
    let mut buf = Vec::new();
    let mut open: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    let mut root = None;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|_| malformed())?;
        match event {
            // A second root element.
            Event::Start(_) | Event::Empty(_) if open.is_empty() && root.is_some() => {
                return Err(malformed());
            }
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                root.get_or_insert_with(|| name.clone());
                open.push((name, String::new()));
            }
            Event::Empty(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                root.get_or_insert_with(|| name.clone());
                out.push((name, String::new()));
            }
            Event::End(_) => {
                let element = open.pop().ok_or_else(malformed)?;
                out.push(element);
            }
            Event::Text(t) => {
                let text = t.decode().map_err(|_| malformed())?;
                match open.last_mut() {
                    Some((_, body)) => body.push_str(&text),
                    None if text.trim().is_empty() => {}
                    None => return Err(malformed()),
                }
            }
            Event::CData(t) => {
                let text = t.decode().map_err(|_| malformed())?;
                open.last_mut().ok_or_else(malformed)?.1.push_str(&text);
            }
            Event::GeneralRef(r) => {
                let c = if r.is_char_ref() {
                    r.resolve_char_ref().ok().flatten().ok_or_else(malformed)?
                } else {
                    match r.as_ref() {
                        b"amp" => '&',
                        b"lt" => '<',
                        b"gt" => '>',
                        b"quot" => '"',
                        b"apos" => '\'',
                        _ => return Err(malformed()),
                    }
                };
                open.last_mut().ok_or_else(malformed)?.1.push(c);
            }
            Event::DocType(_) => return Err(malformed()),
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
        buf.clear();
    }
    match root {
        Some(root) if open.is_empty() => Ok((root, out)),
        _ => Err(malformed()),
    }
}

/// CreateBucket's optional `CreateBucketConfiguration` body: its `LocationConstraint`.
fn create_bucket_configuration(body: &[u8]) -> Result<Option<String>, WireError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let (root, elements) = xml_elements(body)?;
    if root != "CreateBucketConfiguration" {
        return Err(s3::Error::MalformedXml.into());
    }
    Ok(elements
        .into_iter()
        .find(|(name, _)| name == "LocationConstraint")
        .map(|(_, text)| text))
}

/// DeleteObjects' `<Delete>` body.
struct DeleteObjectsInput {
    keys: Vec<String>,
    quiet: bool,
}

impl DeleteObjectsInput {
    fn decode(body: &[u8]) -> Result<DeleteObjectsInput, WireError> {
        let (root, elements) = xml_elements(body)?;
        if root != "Delete" {
            return Err(s3::Error::MalformedXml.into());
        }
        let mut input = DeleteObjectsInput {
            keys: Vec::new(),
            quiet: false,
        };
        for (name, text) in elements {
            match name.as_str() {
                "Key" => input.keys.push(text),
                "Quiet" => input.quiet = text.trim() == "true",
                _ => {}
            }
        }
        Ok(input)
    }
}

async fn put_object(
    app: &App,
    req: &AwsRequest,
    bucket: &str,
    key: &str,
) -> Result<Response, WireError> {
    let input = put_object_input(req)?;
    let object = app.s3.put_object(bucket, key, input)?;
    app.storage.sync().await;
    let mut resp = response(StatusCode::OK, Body::empty(), &req.request_id);
    header(&mut resp, "etag", &object.etag);
    header(
        &mut resp,
        "x-amz-server-side-encryption",
        req_header(req, "x-amz-server-side-encryption").unwrap_or("AES256"),
    );
    for (alg, v) in &object.checksums {
        if let Ok(name) =
            axum::http::HeaderName::from_bytes(format!("x-amz-checksum-{alg}").as_bytes())
        {
            if let Ok(v) = HeaderValue::from_str(v) {
                resp.headers_mut().insert(name, v);
            }
        }
    }
    Ok(resp)
}

/// PutObject's input: the body (an `aws-chunked` one decoded, its checksum trailers kept),
/// metadata and checksum headers.
fn put_object_input(req: &AwsRequest) -> Result<PutObjectInput, WireError> {
    let streaming = req_header(req, "x-amz-content-sha256")
        .is_some_and(|v| v.starts_with("STREAMING-"))
        || req_header(req, "content-encoding").is_some_and(|v| v.contains("aws-chunked"));
    let mut checksums = BTreeMap::new();
    let body = if streaming {
        let (payload, trailers) = decode_aws_chunked(&req.body).ok_or_else(|| {
            WireError::bad_request("IncompleteBody", "The request body terminated unexpectedly")
        })?;
        for (k, v) in trailers {
            if let Some(alg) = k.strip_prefix("x-amz-checksum-") {
                checksums.insert(alg.to_string(), v);
            }
        }
        Bytes::from(payload)
    } else {
        req.body.clone()
    };
    let mut metadata = BTreeMap::new();
    for (name, value) in &req.headers {
        let name = name.as_str();
        if let Some(meta) = name.strip_prefix("x-amz-meta-") {
            if let Ok(v) = value.to_str() {
                metadata.insert(meta.to_string(), v.to_string());
            }
        }
        if let Some(alg) = name.strip_prefix("x-amz-checksum-") {
            if alg != "type" && alg != "algorithm" {
                if let Ok(v) = value.to_str() {
                    checksums.insert(alg.to_string(), v.to_string());
                }
            }
        }
    }
    let content_encoding = req_header(req, "content-encoding").map(|v| {
        v.split(',')
            .map(str::trim)
            .filter(|c| *c != "aws-chunked")
            .collect::<Vec<_>>()
            .join(",")
    });
    Ok(PutObjectInput {
        body,
        content_type: req_header(req, "content-type").map(str::to_string),
        content_encoding,
        cache_control: req_header(req, "cache-control").map(str::to_string),
        content_disposition: req_header(req, "content-disposition").map(str::to_string),
        content_md5: req_header(req, "content-md5").map(str::to_string),
        metadata,
        checksums,
    })
}

fn object_headers(resp: &mut Response, object: &Object) {
    header(resp, "etag", &object.etag);
    header(resp, "last-modified", &http_date(object.last_modified));
    header(resp, "content-type", &object.content_type);
    header(resp, "accept-ranges", "bytes");
    header(resp, "x-amz-server-side-encryption", "AES256");
    if let Some(v) = &object.content_encoding {
        if !v.is_empty() {
            header(resp, "content-encoding", v);
        }
    }
    if let Some(v) = &object.cache_control {
        header(resp, "cache-control", v);
    }
    if let Some(v) = &object.content_disposition {
        header(resp, "content-disposition", v);
    }
    for (k, v) in &object.metadata {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(format!("x-amz-meta-{k}").as_bytes()),
            HeaderValue::from_str(v),
        ) {
            resp.headers_mut().insert(name, value);
        }
    }
}

/// `bytes=a-b`, `bytes=a-` or `bytes=-n` against `len`: the inclusive range, `None` for no
/// (or an unparsable) range header, as S3 ignores those.
fn byte_range(spec: &str, len: usize) -> Option<Result<(usize, usize), s3::Error>> {
    let spec = spec.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let range = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: usize = n.parse().ok()?;
            if n == 0 || len == 0 {
                return Some(Err(s3::Error::InvalidRange));
            }
            (len.saturating_sub(n), len - 1)
        }
        (a, "") => (a.parse().ok()?, len.saturating_sub(1)),
        (a, b) => {
            let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
            if b < a {
                return None;
            }
            (a, b.min(len.saturating_sub(1)))
        }
    };
    if range.0 >= len {
        return Some(Err(s3::Error::InvalidRange));
    }
    Some(Ok(range))
}

fn object_response(req: &AwsRequest, object: &Object) -> Result<Response, WireError> {
    let rid = &req.request_id;
    let head = req.method == Method::HEAD;
    let range = req_header(req, "range")
        .and_then(|r| byte_range(r, object.size()))
        .transpose()?;
    let (status, body) = match range {
        Some((a, b)) => (StatusCode::PARTIAL_CONTENT, object.body.slice(a..=b)),
        None => (StatusCode::OK, object.body.clone()),
    };
    let length = body.len();
    let mut resp = response(
        status,
        if head {
            Body::empty()
        } else {
            Body::from(body)
        },
        rid,
    );
    object_headers(&mut resp, object);
    header(&mut resp, "content-length", &length.to_string());
    if let Some((a, b)) = range {
        header(
            &mut resp,
            "content-range",
            &format!("bytes {a}-{b}/{}", object.size()),
        );
    }
    Ok(resp)
}

async fn copy_object(
    app: &App,
    req: &AwsRequest,
    bucket: &str,
    key: &str,
    source: &str,
) -> Result<Response, WireError> {
    let source = percent_encoding::percent_decode_str(source.trim_start_matches('/'))
        .decode_utf8_lossy()
        .into_owned();
    let source = source.split('?').next().unwrap_or_default().to_string();
    let (src_bucket, src_key) = source.split_once('/').ok_or_else(|| {
        WireError::from(s3::Error::InvalidArgument(
            "Copy Source must mention the source bucket and key: sourcebucket/sourcekey"
                .to_string(),
        ))
    })?;
    let original = app.s3.object(src_bucket, src_key)?;
    let replace = req_header(req, "x-amz-metadata-directive") == Some("REPLACE");
    let mut metadata = original.metadata.clone();
    let mut content_type = Some(original.content_type.clone());
    if replace {
        metadata.clear();
        for (name, value) in &req.headers {
            if let (Some(meta), Ok(v)) = (name.as_str().strip_prefix("x-amz-meta-"), value.to_str())
            {
                metadata.insert(meta.to_string(), v.to_string());
            }
        }
        content_type = req_header(req, "content-type").map(str::to_string);
    }
    let copied = app.s3.put_object(
        bucket,
        key,
        PutObjectInput {
            body: original.body.clone(),
            content_type,
            content_encoding: original.content_encoding.clone(),
            cache_control: original.cache_control.clone(),
            content_disposition: original.content_disposition.clone(),
            content_md5: None,
            metadata,
            checksums: BTreeMap::new(),
        },
    )?;
    app.storage.sync().await;
    let mut w = XmlWriter::root("CopyObjectResult", Some(XMLNS));
    w.elem("LastModified", &iso_millis(copied.last_modified))
        .elem("ETag", &copied.etag);
    Ok(xml_response(w.finish_root(), &req.request_id))
}

/// Whether every key, prefix and marker a listing would echo can be written in XML 1.0.
fn listing_is_xml_text(
    input: &ListObjectsInput,
    out: &s3::ListObjectsOutput,
    query: &BTreeMap<String, String>,
) -> bool {
    let echoed = [
        input.prefix.as_deref(),
        input.delimiter.as_deref(),
        query.get("marker").map(String::as_str),
        query.get("start-after").map(String::as_str),
        out.last.as_deref(),
    ];
    echoed.into_iter().flatten().all(is_xml_text)
        && out.contents.iter().all(|o| is_xml_text(&o.key))
        && out.common_prefixes.iter().all(|p| is_xml_text(p))
}

fn list_objects(
    app: &App,
    req: &AwsRequest,
    bucket: &str,
    query: &BTreeMap<String, String>,
    v2: bool,
) -> Result<Response, WireError> {
    let asked_url = query.get("encoding-type").map(String::as_str) == Some("url");
    let max_keys = match query.get("max-keys") {
        None => None,
        Some(v) => Some(v.parse::<i64>().map_err(|_| {
            WireError::from(s3::Error::InvalidArgument(
                "Provided max-keys not an integer or within integer range".to_string(),
            ))
        })?),
    };
    let token = query.get("continuation-token").filter(|t| !t.is_empty());
    let after = if v2 {
        match token {
            Some(t) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(t)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .ok_or_else(|| {
                        WireError::from(s3::Error::InvalidArgument(
                            "The continuation token provided is incorrect".to_string(),
                        ))
                    })?,
            ),
            None => query.get("start-after").cloned(),
        }
    } else {
        query.get("marker").cloned()
    };
    let input = ListObjectsInput {
        prefix: query.get("prefix").cloned(),
        delimiter: query.get("delimiter").cloned(),
        max_keys,
        after,
    };
    let out = app.s3.list_objects(bucket, &input)?;
    // A key XML 1.0 cannot carry (a C0 control) is answered URL-encoded, with
    // `<EncodingType>url</EncodingType>` saying so, even when the client did not ask: AWS writes
    // it as `&#x1;`, which no SDK parses; this way every SDK parses the listing and the key
    // can be recovered.
    let url_encoded = asked_url || !listing_is_xml_text(&input, &out, query);
    let enc = |s: &str| {
        if url_encoded {
            url_encode(s)
        } else {
            s.to_string()
        }
    };
    let mut w = XmlWriter::root("ListBucketResult", Some(XMLNS));
    w.elem("Name", bucket);
    w.elem("Prefix", &enc(input.prefix.as_deref().unwrap_or("")));
    if v2 {
        w.elem(
            "KeyCount",
            &(out.contents.len() + out.common_prefixes.len()).to_string(),
        );
    } else {
        w.elem(
            "Marker",
            &enc(query.get("marker").map(String::as_str).unwrap_or("")),
        );
    }
    w.elem("MaxKeys", &out.max_keys.to_string());
    if let Some(d) = input.delimiter.as_deref().filter(|d| !d.is_empty()) {
        w.elem("Delimiter", &enc(d));
    }
    if url_encoded {
        w.elem("EncodingType", "url");
    }
    w.bool_elem("IsTruncated", out.is_truncated);
    if v2 {
        if let Some(t) = token {
            w.elem("ContinuationToken", t);
        }
        if let Some(s) = query.get("start-after") {
            w.elem("StartAfter", &enc(s));
        }
        if out.is_truncated {
            if let Some(last) = &out.last {
                w.elem(
                    "NextContinuationToken",
                    &base64::engine::general_purpose::STANDARD.encode(last),
                );
            }
        }
    } else if out.is_truncated && input.delimiter.is_some() {
        if let Some(last) = &out.last {
            w.elem("NextMarker", &enc(last));
        }
    }
    for o in &out.contents {
        w.open("Contents")
            .elem("Key", &enc(&o.key))
            .elem("LastModified", &iso_millis(o.last_modified))
            .elem("ETag", &o.etag)
            .elem("Size", &o.size().to_string());
        if !v2 {
            w.open("Owner")
                .elem("ID", &owner_id(&req.scope.account))
                .elem("DisplayName", "cumulo")
                .close("Owner");
        }
        w.elem("StorageClass", "STANDARD").close("Contents");
    }
    for p in &out.common_prefixes {
        w.open("CommonPrefixes")
            .elem("Prefix", &enc(p))
            .close("CommonPrefixes");
    }
    Ok(xml_response(w.finish_root(), &req.request_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_chunked_bodies_decode_with_trailers() {
        let body = b"5;chunk-signature=abc\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";
        let (payload, trailers) = decode_aws_chunked(body).unwrap();
        assert_eq!(payload, b"hello world");
        assert_eq!(trailers["x-amz-checksum-crc32"], "DUoRhQ==");
        assert!(decode_aws_chunked(b"zz\r\n").is_none());
        assert!(decode_aws_chunked(b"10\r\nshort\r\n").is_none());
        assert!(decode_aws_chunked(b"ffffffffffffffff\r\nx\r\n").is_none());
    }

    #[test]
    fn byte_ranges() {
        assert_eq!(byte_range("bytes=0-4", 10), Some(Ok((0, 4))));
        assert_eq!(byte_range("bytes=5-", 10), Some(Ok((5, 9))));
        assert_eq!(byte_range("bytes=-3", 10), Some(Ok((7, 9))));
        assert_eq!(byte_range("bytes=8-100", 10), Some(Ok((8, 9))));
        assert_eq!(
            byte_range("bytes=10-", 10),
            Some(Err(s3::Error::InvalidRange))
        );
        assert_eq!(byte_range("lines=1-2", 10), None);
        assert_eq!(byte_range("bytes=5-1", 10), None);
    }

    #[test]
    fn routes_by_method_path_query_and_copy_source() {
        let q = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let none = q(&[]);
        let r = |m: Method, p: &str, query: &BTreeMap<String, String>, copy: Option<&str>| {
            route(&m, p, query, copy).map_err(|e| e.code)
        };
        assert_eq!(r(Method::GET, "/", &none, None), Ok(Operation::ListBuckets));
        assert_eq!(
            r(Method::GET, "/b", &q(&[("list-type", "2")]), None),
            Ok(Operation::ListObjectsV2("b".into()))
        );
        assert_eq!(
            r(Method::GET, "/b", &q(&[("location", "")]), None),
            Ok(Operation::GetBucketLocation("b".into()))
        );
        assert_eq!(
            r(Method::POST, "/b", &q(&[("delete", "")]), None),
            Ok(Operation::DeleteObjects("b".into()))
        );
        assert_eq!(
            r(Method::PUT, "/b/a%20b/c", &none, Some("/s/k")),
            Ok(Operation::CopyObject(
                "b".into(),
                "a b/c".into(),
                "/s/k".into()
            ))
        );
        assert_eq!(
            r(Method::HEAD, "/b/k", &none, None),
            Ok(Operation::HeadObject("b".into(), "k".into()))
        );
        assert_eq!(
            r(Method::GET, "/b", &q(&[("versioning", "")]), None),
            Err("NotImplemented".to_string())
        );
        assert_eq!(
            r(Method::POST, "/", &none, None),
            Err("NotImplemented".to_string())
        );
        assert_eq!(
            r(Method::GET, "/b/%FF", &none, None),
            Err("InvalidURI".to_string())
        );
    }

    #[test]
    fn request_bodies_refuse_dtds_entities_and_broken_xml() {
        let laughs = br#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><Delete><Object><Key>&b;</Key></Object></Delete>"#;
        for body in [
            &laughs[..],
            b"<Delete><Object><Key>&a;</Key></Object></Delete>",
            b"<Delete><Object><Key>k</Object></Delete>",
            b"<Delete></Delete><Delete></Delete>",
            b"not xml",
            b"",
        ] {
            let err = DeleteObjectsInput::decode(body).err().map(|e| e.code);
            assert_eq!(
                err.as_deref(),
                Some("MalformedXML"),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        let ok = DeleteObjectsInput::decode(
            b"<?xml version=\"1.0\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Object><Key>a&amp;b&#x41;</Key></Object><Object><Key><![CDATA[<c>]]></Key></Object><Quiet>true</Quiet></Delete>",
        )
        .unwrap();
        assert_eq!(ok.keys, ["a&bA", "<c>"]);
        assert!(ok.quiet);
        assert_eq!(
            create_bucket_configuration(b"<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>").unwrap(),
            Some("eu-west-1".to_string())
        );
        assert!(create_bucket_configuration(b"<Other/>").is_err());
        assert_eq!(create_bucket_configuration(b"  ").unwrap(), None);
    }

    #[test]
    fn url_encoding_keeps_slashes() {
        assert_eq!(url_encode("a b/c+d"), "a%20b/c%2Bd");
    }
}
