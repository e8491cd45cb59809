//! `s3::Error`: the S3 error codes Cumulo's subset can return, with the messages S3 sends
//! (Amazon S3 API Reference, "Error responses"). No HTTP here.

/// An error of an S3 operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `NoSuchBucket` (404).
    #[error("The specified bucket does not exist")]
    NoSuchBucket(String),
    /// `NoSuchKey` (404).
    #[error("The specified key does not exist.")]
    NoSuchKey(String),
    /// `BucketAlreadyOwnedByYou` (409): outside us-east-1, creating a bucket you own.
    #[error("Your previous request to create the named bucket succeeded and you already own it.")]
    BucketAlreadyOwnedByYou(String),
    /// `BucketAlreadyExists` (409): the name belongs to another account.
    #[error("The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.")]
    BucketAlreadyExists(String),
    /// `BucketNotEmpty` (409).
    #[error("The bucket you tried to delete is not empty")]
    BucketNotEmpty(String),
    /// `InvalidBucketName` (400).
    #[error("The specified bucket is not valid.")]
    InvalidBucketName(String),
    /// `InvalidLocationConstraint` (400).
    #[error("The specified location-constraint is not valid")]
    InvalidLocationConstraint,
    /// `IllegalLocationConstraintException` (400).
    #[error("{0}")]
    IllegalLocationConstraint(String),
    /// `BadDigest` (400): Content-MD5 does not match the body.
    #[error("The Content-MD5 you specified did not match what we received.")]
    BadDigest,
    /// `InvalidDigest` (400): Content-MD5 is not base64 of 16 bytes.
    #[error("The Content-MD5 you specified was invalid.")]
    InvalidDigest,
    /// `InvalidRange` (416).
    #[error("The requested range is not satisfiable")]
    InvalidRange,
    /// `InvalidArgument` (400).
    #[error("{0}")]
    InvalidArgument(String),
    /// `MalformedXML` (400).
    #[error(
        "The XML you provided was not well-formed or did not validate against our published schema"
    )]
    MalformedXml,
}

impl Error {
    /// The S3 error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NoSuchBucket(_) => "NoSuchBucket",
            Error::NoSuchKey(_) => "NoSuchKey",
            Error::BucketAlreadyOwnedByYou(_) => "BucketAlreadyOwnedByYou",
            Error::BucketAlreadyExists(_) => "BucketAlreadyExists",
            Error::BucketNotEmpty(_) => "BucketNotEmpty",
            Error::InvalidBucketName(_) => "InvalidBucketName",
            Error::InvalidLocationConstraint => "InvalidLocationConstraint",
            Error::IllegalLocationConstraint(_) => "IllegalLocationConstraintException",
            Error::BadDigest => "BadDigest",
            Error::InvalidDigest => "InvalidDigest",
            Error::InvalidRange => "InvalidRange",
            Error::InvalidArgument(_) => "InvalidArgument",
            Error::MalformedXml => "MalformedXML",
        }
    }

    /// The message.
    pub fn message(&self) -> String {
        self.to_string()
    }
}
