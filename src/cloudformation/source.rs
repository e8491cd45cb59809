//! Where a template's text comes from: `TemplateBody` (at most 51,200 bytes), `TemplateURL`
//! (an object of Cumulo's own S3, at most 1,000,000 bytes), or the stack's current template
//! (`UsePreviousTemplate`), with AWS's messages for each refusal (aws-contract.md §1.5). Also
//! the SSM environment `AWS::SSM::Parameter::Value<...>` parameters are resolved in.

use crate::ids::Scope;
use crate::services::s3::S3;
use crate::services::ssm::Ssm;

use super::model::TemplateSource;
use super::template::Environment;
use super::Error;

/// Largest TemplateBody (bytes).
pub const MAX_BODY_BYTES: usize = 51_200;
/// Largest template fetched from a TemplateURL (bytes).
pub const MAX_URL_BYTES: usize = 1_000_000;

/// The template text of a request. `previous` is the stack's current template (UpdateStack and
/// UPDATE change sets), used with `UsePreviousTemplate`.
pub fn template_text(
    s3: &S3,
    source: &TemplateSource,
    previous: Option<&str>,
) -> Result<String, Error> {
    match (&source.body, &source.url, source.use_previous) {
        (None, None, true) => previous.map(str::to_string).ok_or_else(|| {
            Error::validation("UsePreviousTemplate can only be used with an existing stack.")
        }),
        (Some(_), _, true) | (_, Some(_), true) => Err(Error::validation(
            "You cannot specify both usePreviousTemplate and Template Body/Template URL",
        )),
        (Some(_), Some(_), false) => Err(Error::validation(
            "You cannot specify both TemplateURL and TemplateBody",
        )),
        (Some(body), None, false) => {
            if body.len() > MAX_BODY_BYTES {
                return Err(Error::validation(format!(
                    "1 validation error detected: Value '{body}' at 'templateBody' failed to satisfy constraint: Member must have length less than or equal to {MAX_BODY_BYTES}"
                )));
            }
            Ok(body.clone())
        }
        (None, Some(url), false) => fetch_url(s3, url),
        (None, None, false) => Err(Error::validation(
            "Either Template URL or Template Body must be specified.",
        )),
    }
}

/// Splits an S3 URL into (bucket, key). Accepted forms: path style on any host
/// (`http://127.0.0.1:4566/<bucket>/<key>`, `https://s3.<region>.amazonaws.com/<bucket>/<key>`,
/// `https://s3.amazonaws.com/<bucket>/<key>`) and virtual-hosted AWS style
/// (`https://<bucket>.s3.amazonaws.com/<key>`, `https://<bucket>.s3.<region>.amazonaws.com/<key>`).
/// A `?versionId=` query is ignored.
pub fn parse_s3_url(url: &str) -> Result<(String, String), Error> {
    let unsupported = || Error::validation("TemplateURL must be a supported URL.");
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(unsupported)?;
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = rest.split_once('/').ok_or_else(unsupported)?;
    let host = host.split(':').next().unwrap_or(host);
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .map(|c| c.into_owned())
            .map_err(|_| unsupported())
    };
    if host.ends_with(".amazonaws.com") && !host.starts_with("s3.") && !host.starts_with("s3-") {
        // Virtual-hosted style: <bucket>.s3[.<region>].amazonaws.com/<key>
        let bucket = host
            .split(".s3")
            .next()
            .filter(|b| !b.is_empty())
            .ok_or_else(|| {
                Error::validation(format!(
                    "S3 error: Domain name specified in {host} is not a valid S3 domain"
                ))
            })?;
        if path.is_empty() {
            return Err(unsupported());
        }
        return Ok((bucket.to_string(), decode(path)?));
    }
    let (bucket, key) = path.split_once('/').ok_or_else(unsupported)?;
    if bucket.is_empty() || key.is_empty() {
        return Err(unsupported());
    }
    Ok((bucket.to_string(), decode(key)?))
}

/// The text of the S3 object a URL names.
pub fn fetch_url(s3: &S3, url: &str) -> Result<String, Error> {
    let (bucket, key) = parse_s3_url(url)?;
    let bytes = s3
        .get_object(&bucket, &key)
        .map_err(|e| Error::validation(format!("S3 error: {e}")))?;
    if bytes.len() > MAX_URL_BYTES {
        return Err(Error::validation(format!(
            "Template may not exceed {MAX_URL_BYTES} bytes in size."
        )));
    }
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::validation("Template format error: unsupported encoding (not UTF-8)"))
}

/// Resolves `AWS::SSM::Parameter::Value<...>` parameters from Cumulo's SSM.
pub struct SsmEnvironment<'a> {
    ssm: &'a Ssm,
    scope: &'a Scope,
}

impl<'a> SsmEnvironment<'a> {
    /// The parameters of `scope`.
    pub fn new(ssm: &'a Ssm, scope: &'a Scope) -> SsmEnvironment<'a> {
        SsmEnvironment { ssm, scope }
    }
}

impl Environment for SsmEnvironment<'_> {
    fn ssm_parameter(&self, name: &str) -> Option<String> {
        self.ssm
            .get_parameter(self.scope, name)
            .map(|p| p.value().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_urls_of_every_supported_form() {
        let ok = [
            (
                "http://127.0.0.1:4566/b/pfx/t.template",
                ("b", "pfx/t.template"),
            ),
            (
                "http://localhost:4566/b/t.yaml?versionId=3",
                ("b", "t.yaml"),
            ),
            ("https://b.s3.amazonaws.com/dir/t.json", ("b", "dir/t.json")),
            (
                "https://b.s3.eu-west-1.amazonaws.com/t.json",
                ("b", "t.json"),
            ),
            (
                "https://s3.us-east-1.amazonaws.com/b/t.json",
                ("b", "t.json"),
            ),
            ("https://s3.amazonaws.com/b/a%20b.json", ("b", "a b.json")),
        ];
        for (url, (bucket, key)) in ok {
            assert_eq!(
                parse_s3_url(url).unwrap(),
                (bucket.to_string(), key.to_string()),
                "{url}"
            );
        }
        for bad in [
            "ftp://x/y/z",
            "http://host/",
            "http://host/bucket-only",
            "nonsense",
        ] {
            assert_eq!(
                parse_s3_url(bad).unwrap_err().message(),
                "TemplateURL must be a supported URL.",
                "{bad}"
            );
        }
    }

    #[test]
    fn body_limits_and_missing_sources_are_refused() {
        let s3 = S3::new(
            crate::clock::Clock::new(crate::clock::ClockMode::Manual),
            crate::storage::Storage::memory(),
        );
        let none = TemplateSource::default();
        assert_eq!(
            template_text(&s3, &none, None).unwrap_err().message(),
            "Either Template URL or Template Body must be specified."
        );
        let big = TemplateSource {
            body: Some("x".repeat(MAX_BODY_BYTES + 1)),
            ..Default::default()
        };
        let err = template_text(&s3, &big, None).unwrap_err();
        assert!(err.message().ends_with(
            "at 'templateBody' failed to satisfy constraint: Member must have length less than or equal to 51200"
        ));
        let previous = TemplateSource {
            use_previous: true,
            ..Default::default()
        };
        assert_eq!(template_text(&s3, &previous, Some("T")).unwrap(), "T");
        assert!(template_text(&s3, &previous, None).is_err());
    }
}
