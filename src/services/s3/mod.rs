//! S3, path style: buckets and objects, enough for `aws cloudformation deploy --s3-bucket`
//! (HEAD then PUT of the template, aws-contract.md §1.5), `TemplateURL` reads, and everyday
//! `aws s3` use (mb, ls, cp, rm, rb). Buckets are global, keyed by name, and remember their
//! owner account and region. Follows the Amazon S3 API Reference; knows nothing of HTTP.
//!
//! Objects live in memory (templates are at most 1 MB); each change is also written to the
//! store as base64 JSON.

mod error;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

pub use error::Error;

use crate::clock::Clock;
use crate::ids::Scope;
use crate::storage::Storage;
use crate::sync::lock;

/// Store table of buckets (without objects), keyed by name.
pub const BUCKETS_TABLE: &str = "s3_buckets";
/// Store table of objects, keyed `bucket/key`.
pub const OBJECTS_TABLE: &str = "s3_objects";
/// The content type S3 gives an object stored without one.
pub const DEFAULT_CONTENT_TYPE: &str = "binary/octet-stream";

mod base64_bytes {
    //! Serde of object bodies as base64 text.
    use base64::Engine;
    use bytes::Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(Bytes::from)
            .map_err(serde::de::Error::custom)
    }
}

/// A bucket as stored (its objects are kept beside it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    /// The bucket name.
    pub name: String,
    /// Owner account.
    pub account: String,
    /// Region (the LocationConstraint, `us-east-1` when none).
    pub region: String,
    /// `CreationDate` (UTC).
    pub created: DateTime<Utc>,
}

/// An object: body and metadata.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    /// The key.
    pub key: String,
    /// The body.
    #[serde(with = "base64_bytes")]
    pub body: Bytes,
    /// `"<hex md5>"` (quoted, as S3 sends it).
    pub etag: String,
    /// `Content-Type` (default `binary/octet-stream`).
    pub content_type: String,
    /// `Content-Encoding`, if given (minus the `aws-chunked` transfer coding).
    pub content_encoding: Option<String>,
    /// `Cache-Control`, if given.
    pub cache_control: Option<String>,
    /// `Content-Disposition`, if given.
    pub content_disposition: Option<String>,
    /// User metadata (`x-amz-meta-<name>`), names lower-cased.
    pub metadata: BTreeMap<String, String>,
    /// Checksums the client sent (`crc32` → base64 value), echoed back.
    pub checksums: BTreeMap<String, String>,
    /// `Last-Modified` (UTC).
    pub last_modified: DateTime<Utc>,
}

impl Object {
    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.body.len()
    }
}

/// PutObject input (bucket and key aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PutObjectInput {
    /// The body.
    pub body: Bytes,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Content-Encoding`.
    pub content_encoding: Option<String>,
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `Content-Disposition`.
    pub content_disposition: Option<String>,
    /// `Content-MD5` (base64), checked against the body.
    pub content_md5: Option<String>,
    /// User metadata.
    pub metadata: BTreeMap<String, String>,
    /// Client checksums (`crc32`, `crc32c`, `sha1`, `sha256`, `crc64nvme` → base64), stored
    /// and echoed, not verified.
    pub checksums: BTreeMap<String, String>,
}

/// ListObjectsV2 / ListObjects input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListObjectsInput {
    /// Only keys starting with this.
    pub prefix: Option<String>,
    /// Group keys up to the next delimiter into CommonPrefixes.
    pub delimiter: Option<String>,
    /// Page size (0–1000, default 1000).
    pub max_keys: Option<i64>,
    /// Start after this key (StartAfter, ContinuationToken's key, or Marker).
    pub after: Option<String>,
}

/// A page of ListObjects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListObjectsOutput {
    /// Objects, in key order.
    pub contents: Vec<Object>,
    /// Common prefixes (with a delimiter).
    pub common_prefixes: Vec<String>,
    /// More keys remain.
    pub is_truncated: bool,
    /// The last key or prefix of this page (for the next token / NextMarker).
    pub last: Option<String>,
    /// The page size used.
    pub max_keys: usize,
}

#[derive(Default)]
struct State {
    buckets: BTreeMap<String, Bucket>,
    objects: BTreeMap<String, BTreeMap<String, Object>>,
}

struct Shared {
    clock: Clock,
    storage: Storage,
    state: Mutex<State>,
}

/// Handle to the S3 core. Clones share one state.
#[derive(Clone)]
pub struct S3 {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for S3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3").finish_non_exhaustive()
    }
}

/// S3's bucket naming rules (general purpose buckets): 3–63 of lower-case letters, digits,
/// `.` and `-`, starting and ending with a letter or digit, no `..`, not an IP address.
pub fn valid_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'.' || *b == b'-')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && !name.contains("..")
        && name.parse::<std::net::Ipv4Addr>().is_err()
}

/// `(bucket, key)` of an object URL CloudFormation may be given as TemplateURL: path style on
/// any host (Cumulo's own endpoint, `s3.amazonaws.com`, `s3.<region>.amazonaws.com`,
/// `s3-<region>.amazonaws.com`) or virtual-hosted (`<bucket>.s3[.<region>].amazonaws.com`).
/// The key is percent-decoded; a `?versionId=` query is ignored.
pub fn parse_object_url(url: &str) -> Option<(String, String)> {
    let (_, rest) = url.split_once("://")?;
    let rest = rest.split(['?', '#']).next()?;
    let (host, path) = rest.split_once('/')?;
    let host = host.split(':').next()?.to_ascii_lowercase();
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .ok()
            .map(|c| c.into_owned())
    };
    let virtual_bucket = host
        .strip_suffix(".amazonaws.com")
        .and_then(|h| {
            let (bucket, rest) = h.split_once(".s3")?;
            (rest.is_empty() || rest.starts_with('.') || rest.starts_with('-'))
                .then(|| bucket.to_string())
        })
        .filter(|b| !b.is_empty());
    match virtual_bucket {
        Some(bucket) => {
            let key = decode(path)?;
            (!key.is_empty()).then_some((bucket, key))
        }
        None => {
            let (bucket, key) = path.split_once('/')?;
            let key = decode(key)?;
            (!bucket.is_empty() && !key.is_empty()).then(|| (bucket.to_string(), key))
        }
    }
}

/// `"<hex md5>"` of a body.
pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", hex::encode(Md5::digest(body)))
}

impl S3 {
    /// An S3 with the buckets and objects `storage` holds (none in memory).
    pub fn new(clock: Clock, storage: Storage) -> S3 {
        let mut state = State::default();
        for (name, bucket) in storage.load::<Bucket>(BUCKETS_TABLE) {
            state.objects.insert(name.clone(), BTreeMap::new());
            state.buckets.insert(name, bucket);
        }
        for (key, object) in storage.load::<Object>(OBJECTS_TABLE) {
            if let Some((bucket, _)) = key.split_once('/') {
                if let Some(objects) = state.objects.get_mut(bucket) {
                    objects.insert(object.key.clone(), object);
                }
            }
        }
        S3 {
            shared: Arc::new(Shared {
                clock,
                storage,
                state: Mutex::new(state),
            }),
        }
    }

    /// Deletes every bucket and object.
    pub fn reset(&self) {
        let mut state = lock(&self.shared.state);
        state.buckets.clear();
        state.objects.clear();
    }

    /// CreateBucket from `scope` (its region is the endpoint's). `location` is the
    /// LocationConstraint: none (or empty) means us-east-1, and must then be asked of
    /// us-east-1; a constraint must name the request's region. Re-creating a bucket you own
    /// succeeds in us-east-1 and is `BucketAlreadyOwnedByYou` elsewhere (AWS's legacy rule).
    pub fn create_bucket(
        &self,
        scope: &Scope,
        name: &str,
        location: Option<&str>,
    ) -> Result<Bucket, Error> {
        if !valid_bucket_name(name) {
            return Err(Error::InvalidBucketName(name.to_string()));
        }
        let region = match location.filter(|l| !l.is_empty()) {
            None => {
                if scope.region != "us-east-1" {
                    return Err(Error::IllegalLocationConstraint(
                        "The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.".to_string(),
                    ));
                }
                "us-east-1".to_string()
            }
            Some("us-east-1") => return Err(Error::InvalidLocationConstraint),
            Some("EU") => "eu-west-1".to_string(),
            Some(l) => {
                if l != scope.region {
                    return Err(Error::IllegalLocationConstraint(format!(
                        "The {l} location constraint is incompatible for the region specific endpoint this request was sent to."
                    )));
                }
                l.to_string()
            }
        };
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        if let Some(existing) = state.buckets.get(name) {
            if existing.account != scope.account {
                return Err(Error::BucketAlreadyExists(name.to_string()));
            }
            if region == "us-east-1" && existing.region == "us-east-1" {
                return Ok(existing.clone());
            }
            return Err(Error::BucketAlreadyOwnedByYou(name.to_string()));
        }
        let bucket = Bucket {
            name: name.to_string(),
            account: scope.account.clone(),
            region,
            created: now,
        };
        self.shared.storage.put(BUCKETS_TABLE, name, &bucket);
        state.buckets.insert(name.to_string(), bucket.clone());
        state.objects.insert(name.to_string(), BTreeMap::new());
        Ok(bucket)
    }

    /// HeadBucket / GetBucketLocation: the bucket (`NoSuchBucket` otherwise).
    pub fn head_bucket(&self, name: &str) -> Result<Bucket, Error> {
        lock(&self.shared.state)
            .buckets
            .get(name)
            .cloned()
            .ok_or_else(|| Error::NoSuchBucket(name.to_string()))
    }

    /// ListBuckets: the account's buckets, by name.
    pub fn list_buckets(&self, account: &str) -> Vec<Bucket> {
        lock(&self.shared.state)
            .buckets
            .values()
            .filter(|b| b.account == account)
            .cloned()
            .collect()
    }

    /// DeleteBucket: `BucketNotEmpty` while it holds objects.
    pub fn delete_bucket(&self, name: &str) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        if !state.buckets.contains_key(name) {
            return Err(Error::NoSuchBucket(name.to_string()));
        }
        if state.objects.get(name).is_some_and(|o| !o.is_empty()) {
            return Err(Error::BucketNotEmpty(name.to_string()));
        }
        state.buckets.remove(name);
        state.objects.remove(name);
        self.shared.storage.delete(BUCKETS_TABLE, name);
        Ok(())
    }

    /// PutObject: stores the body (replacing any object at the key) and returns it; the ETag
    /// is the quoted hex MD5. A Content-MD5 that does not match is `BadDigest`.
    pub fn put_object(
        &self,
        bucket: &str,
        key: &str,
        input: PutObjectInput,
    ) -> Result<Object, Error> {
        if key.is_empty() {
            return Err(Error::InvalidArgument("Key must not be empty".to_string()));
        }
        let digest = Md5::digest(&input.body);
        if let Some(given) = &input.content_md5 {
            use base64::Engine;
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(given.trim())
                .ok()
                .filter(|d| d.len() == 16)
                .ok_or(Error::InvalidDigest)?;
            if decoded.as_slice() != digest.as_slice() {
                return Err(Error::BadDigest);
            }
        }
        let now = self.shared.clock.now();
        let object = Object {
            key: key.to_string(),
            etag: format!("\"{}\"", hex::encode(digest)),
            body: input.body,
            content_type: input
                .content_type
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_string()),
            content_encoding: input.content_encoding.filter(|c| !c.is_empty()),
            cache_control: input.cache_control,
            content_disposition: input.content_disposition,
            metadata: input.metadata,
            checksums: input.checksums,
            last_modified: now,
        };
        let mut state = lock(&self.shared.state);
        let objects = state
            .objects
            .get_mut(bucket)
            .ok_or_else(|| Error::NoSuchBucket(bucket.to_string()))?;
        self.shared
            .storage
            .put(OBJECTS_TABLE, &format!("{bucket}/{key}"), &object);
        objects.insert(key.to_string(), object.clone());
        Ok(object)
    }

    /// HeadObject / GetObject: the object (`NoSuchBucket`, `NoSuchKey`).
    pub fn object(&self, bucket: &str, key: &str) -> Result<Object, Error> {
        let state = lock(&self.shared.state);
        let objects = state
            .objects
            .get(bucket)
            .ok_or_else(|| Error::NoSuchBucket(bucket.to_string()))?;
        objects
            .get(key)
            .cloned()
            .ok_or_else(|| Error::NoSuchKey(key.to_string()))
    }

    /// The body of an object (CloudFormation's TemplateURL).
    pub fn get_object(&self, bucket: &str, key: &str) -> Result<Bytes, Error> {
        self.object(bucket, key).map(|o| o.body)
    }

    /// DeleteObject: succeeds whether or not the key exists (`NoSuchBucket` for a missing
    /// bucket).
    pub fn delete_object(&self, bucket: &str, key: &str) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let objects = state
            .objects
            .get_mut(bucket)
            .ok_or_else(|| Error::NoSuchBucket(bucket.to_string()))?;
        if objects.remove(key).is_some() {
            self.shared
                .storage
                .delete(OBJECTS_TABLE, &format!("{bucket}/{key}"));
        }
        Ok(())
    }

    /// ListObjectsV2 / ListObjects: keys after `after` matching `prefix`, grouped by
    /// `delimiter`, at most `max_keys` (keys and prefixes together).
    pub fn list_objects(
        &self,
        bucket: &str,
        input: &ListObjectsInput,
    ) -> Result<ListObjectsOutput, Error> {
        let max_keys = match input.max_keys {
            None => 1000,
            Some(n) if n < 0 => {
                return Err(Error::InvalidArgument(
                    "Argument maxKeys must be an integer between 0 and 2147483647".to_string(),
                ))
            }
            Some(n) => (n as usize).min(1000),
        };
        let prefix = input.prefix.clone().unwrap_or_default();
        let delimiter = input.delimiter.clone().filter(|d| !d.is_empty());
        let state = lock(&self.shared.state);
        let objects = state
            .objects
            .get(bucket)
            .ok_or_else(|| Error::NoSuchBucket(bucket.to_string()))?;
        let mut out = ListObjectsOutput {
            max_keys,
            ..ListObjectsOutput::default()
        };
        let start = input.after.clone().unwrap_or_default();
        let mut count = 0;
        let candidates = objects
            .range::<str, _>((
                std::ops::Bound::Excluded(start.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .filter(|(k, _)| k.starts_with(&prefix));
        for (key, object) in candidates {
            let group = delimiter.as_ref().and_then(|d| {
                key[prefix.len()..]
                    .find(d.as_str())
                    .map(|i| key[..prefix.len() + i + d.len()].to_string())
            });
            if let Some(p) = &group {
                if out.common_prefixes.last() == Some(p) {
                    continue;
                }
                if p.as_str() <= start.as_str() && start.starts_with(p.as_str()) {
                    continue;
                }
            }
            if count == max_keys {
                out.is_truncated = true;
                break;
            }
            count += 1;
            match group {
                Some(p) => {
                    out.last = Some(p.clone());
                    out.common_prefixes.push(p);
                }
                None => {
                    out.last = Some(key.clone());
                    out.contents.push(object.clone());
                }
            }
        }
        Ok(out)
    }
}
