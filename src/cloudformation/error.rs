//! `cloudformation::Error`: why a CloudFormation *request* was refused, one variant per AWS error
//! shape, each carrying AWS's message (aws-contract.md §2.3–§2.4). A resource that fails while a
//! stack operation runs is not an `Error`: it becomes a `*_FAILED` event and drives a rollback.
//! No HTTP here: `protocol::wire::cloudformation` maps each variant to its code and status.

/// An error of a CloudFormation operation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ValidationError` (400): bad input, unknown stack, wrong state, template errors.
    #[error("{0}")]
    Validation(String),
    /// `AlreadyExistsException` (400), e.g. `Stack [<name>] already exists`.
    #[error("{0}")]
    AlreadyExists(String),
    /// `InsufficientCapabilitiesException` (400), e.g. `Requires capabilities : [CAPABILITY_IAM]`.
    #[error("{0}")]
    InsufficientCapabilities(String),
    /// `ChangeSetNotFound` (404), e.g. `ChangeSet [<name>] does not exist`.
    #[error("{0}")]
    ChangeSetNotFound(String),
    /// `InvalidChangeSetStatus` (400), e.g. `ChangeSet [<arn>] cannot be executed in its current
    /// status of [FAILED]`.
    #[error("{0}")]
    InvalidChangeSetStatus(String),
    /// `LimitExceededException` (400): a quota (stacks, exports, change sets).
    #[error("{0}")]
    LimitExceeded(String),
    /// `TokenAlreadyExistsException` (400): a ClientRequestToken reused for another operation.
    #[error("{0}")]
    TokenAlreadyExists(String),
    /// An operation this emulator does not implement (400 `InvalidAction`, never a 500).
    #[error("{0}")]
    NotImplemented(String),
}

impl Error {
    /// A `ValidationError` with `message`.
    pub fn validation(message: impl Into<String>) -> Error {
        Error::Validation(message.into())
    }

    /// The message AWS sends.
    pub fn message(&self) -> &str {
        match self {
            Error::Validation(m)
            | Error::AlreadyExists(m)
            | Error::InsufficientCapabilities(m)
            | Error::ChangeSetNotFound(m)
            | Error::InvalidChangeSetStatus(m)
            | Error::LimitExceeded(m)
            | Error::TokenAlreadyExists(m)
            | Error::NotImplemented(m) => m,
        }
    }

    /// The wire code (not always the shape name: `ChangeSetNotFound`, `InvalidChangeSetStatus`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Validation(_) => "ValidationError",
            Error::AlreadyExists(_) => "AlreadyExistsException",
            Error::InsufficientCapabilities(_) => "InsufficientCapabilitiesException",
            Error::ChangeSetNotFound(_) => "ChangeSetNotFound",
            Error::InvalidChangeSetStatus(_) => "InvalidChangeSetStatus",
            Error::LimitExceeded(_) => "LimitExceededException",
            Error::TokenAlreadyExists(_) => "TokenAlreadyExistsException",
            Error::NotImplemented(_) => "InvalidAction",
        }
    }
}

/// The messages AWS uses in more than one place (aws-contract.md §2.4).
pub mod messages {
    /// DescribeStacks, GetTemplate, ... of an unknown (or deleted, by name) stack.
    pub fn stack_id_does_not_exist(name: &str) -> String {
        format!("Stack with id {name} does not exist")
    }

    /// DescribeStackEvents, DescribeChangeSet, DeleteChangeSet, ... of an unknown stack.
    pub fn stack_does_not_exist(name: &str) -> String {
        format!("Stack [{name}] does not exist")
    }

    /// An update (UpdateStack, UPDATE change set) in a state that refuses it.
    pub fn cannot_be_updated(stack_id: &str, status: &str) -> String {
        format!("Stack:{stack_id} is in {status} state and can not be updated.")
    }

    /// A change set that does not exist (or was deleted).
    pub fn change_set_does_not_exist(name: &str) -> String {
        format!("ChangeSet [{name}] does not exist")
    }

    /// The StatusReason of a change set without changes (the CLI matches its first sentence).
    pub const NO_CHANGES: &str = "The submitted information didn't contain changes. Submit different information to create a change set.";

    /// UpdateStack without changes.
    pub const NO_UPDATES: &str = "No updates are to be performed.";

    /// The `StackStatusReason` / event reason of a user-started operation.
    pub const USER_INITIATED: &str = "User Initiated";
}
