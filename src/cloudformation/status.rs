//! The CloudFormation lifecycle as state machines: AWS's 23 `StackStatus` values, 28
//! `ResourceStatus` values and the change-set `Status` / `ExecutionStatus` enums
//! (aws-contract.md §3.1), each with one transition function naming every legal edge
//! (aws-contract.md §3.2, §3.3). Pure: no store, no clock. The engine moves stacks and resources
//! only through [`StackStatus::transition`] and [`ResourceStatus::transition`], so an edge AWS
//! never takes is a bug caught here, not a status a client sees.

use serde::{Deserialize, Serialize};

/// Generates an enum whose variants display (and serialise) as AWS's SCREAMING_SNAKE names.
macro_rules! aws_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant,)+
        }

        impl $name {
            /// Every value, in the model's order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The AWS wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Parses the AWS wire name.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

aws_enum! {
    /// A stack's status (`StackStatus`, 23 values).
    StackStatus {
        /// Creating resources.
        CreateInProgress = "CREATE_IN_PROGRESS",
        /// A create failed with rollback disabled.
        CreateFailed = "CREATE_FAILED",
        /// Created.
        CreateComplete = "CREATE_COMPLETE",
        /// Deleting what a failed create made.
        RollbackInProgress = "ROLLBACK_IN_PROGRESS",
        /// A create rollback could not delete a resource.
        RollbackFailed = "ROLLBACK_FAILED",
        /// A failed create was rolled back; only DeleteStack is allowed.
        RollbackComplete = "ROLLBACK_COMPLETE",
        /// Deleting.
        DeleteInProgress = "DELETE_IN_PROGRESS",
        /// A delete could not delete a resource.
        DeleteFailed = "DELETE_FAILED",
        /// Deleted (kept, listed by id).
        DeleteComplete = "DELETE_COMPLETE",
        /// Updating resources.
        UpdateInProgress = "UPDATE_IN_PROGRESS",
        /// Deleting replaced and removed resources after a successful update.
        UpdateCompleteCleanupInProgress = "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
        /// Updated.
        UpdateComplete = "UPDATE_COMPLETE",
        /// An update failed with rollback disabled.
        UpdateFailed = "UPDATE_FAILED",
        /// Restoring the resources a failed update changed.
        UpdateRollbackInProgress = "UPDATE_ROLLBACK_IN_PROGRESS",
        /// A restore failed; ContinueUpdateRollback or DeleteStack recovers.
        UpdateRollbackFailed = "UPDATE_ROLLBACK_FAILED",
        /// Deleting what the failed update created.
        UpdateRollbackCompleteCleanupInProgress = "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
        /// A failed update was rolled back.
        UpdateRollbackComplete = "UPDATE_ROLLBACK_COMPLETE",
        /// Created by a CREATE change set that was not executed yet.
        ReviewInProgress = "REVIEW_IN_PROGRESS",
        /// Importing resources.
        ImportInProgress = "IMPORT_IN_PROGRESS",
        /// Imported.
        ImportComplete = "IMPORT_COMPLETE",
        /// Rolling back an import.
        ImportRollbackInProgress = "IMPORT_ROLLBACK_IN_PROGRESS",
        /// An import rollback failed.
        ImportRollbackFailed = "IMPORT_ROLLBACK_FAILED",
        /// An import was rolled back.
        ImportRollbackComplete = "IMPORT_ROLLBACK_COMPLETE",
    }
}

aws_enum! {
    /// A resource's status, as resources and stack events carry it (`ResourceStatus`, 28 values).
    ResourceStatus {
        /// Being created.
        CreateInProgress = "CREATE_IN_PROGRESS",
        /// Creation failed.
        CreateFailed = "CREATE_FAILED",
        /// Created.
        CreateComplete = "CREATE_COMPLETE",
        /// Being deleted.
        DeleteInProgress = "DELETE_IN_PROGRESS",
        /// Deletion failed.
        DeleteFailed = "DELETE_FAILED",
        /// Deleted.
        DeleteComplete = "DELETE_COMPLETE",
        /// Left in place (DeletionPolicy Retain, RetainResources, UpdateReplacePolicy Retain).
        DeleteSkipped = "DELETE_SKIPPED",
        /// Being updated (also while being restored by a rollback).
        UpdateInProgress = "UPDATE_IN_PROGRESS",
        /// Update failed.
        UpdateFailed = "UPDATE_FAILED",
        /// Updated.
        UpdateComplete = "UPDATE_COMPLETE",
        /// Import failed.
        ImportFailed = "IMPORT_FAILED",
        /// Imported.
        ImportComplete = "IMPORT_COMPLETE",
        /// Being imported.
        ImportInProgress = "IMPORT_IN_PROGRESS",
        /// Import being rolled back.
        ImportRollbackInProgress = "IMPORT_ROLLBACK_IN_PROGRESS",
        /// Import rollback failed.
        ImportRollbackFailed = "IMPORT_ROLLBACK_FAILED",
        /// Import rolled back.
        ImportRollbackComplete = "IMPORT_ROLLBACK_COMPLETE",
        /// Export failed.
        ExportFailed = "EXPORT_FAILED",
        /// Exported.
        ExportComplete = "EXPORT_COMPLETE",
        /// Being exported.
        ExportInProgress = "EXPORT_IN_PROGRESS",
        /// Export being rolled back.
        ExportRollbackInProgress = "EXPORT_ROLLBACK_IN_PROGRESS",
        /// Export rollback failed.
        ExportRollbackFailed = "EXPORT_ROLLBACK_FAILED",
        /// Export rolled back.
        ExportRollbackComplete = "EXPORT_ROLLBACK_COMPLETE",
        /// A nested stack's update rollback (nested stacks only).
        UpdateRollbackInProgress = "UPDATE_ROLLBACK_IN_PROGRESS",
        /// A nested stack's update rollback completed.
        UpdateRollbackComplete = "UPDATE_ROLLBACK_COMPLETE",
        /// A nested stack's update rollback failed.
        UpdateRollbackFailed = "UPDATE_ROLLBACK_FAILED",
        /// A nested stack's create rollback.
        RollbackInProgress = "ROLLBACK_IN_PROGRESS",
        /// A nested stack's create rollback completed.
        RollbackComplete = "ROLLBACK_COMPLETE",
        /// A nested stack's create rollback failed.
        RollbackFailed = "ROLLBACK_FAILED",
    }
}

aws_enum! {
    /// A change set's `Status` (`ChangeSetStatus`).
    ChangeSetStatus {
        /// Queued.
        CreatePending = "CREATE_PENDING",
        /// Being computed.
        CreateInProgress = "CREATE_IN_PROGRESS",
        /// Computed.
        CreateComplete = "CREATE_COMPLETE",
        /// Deletion queued.
        DeletePending = "DELETE_PENDING",
        /// Being deleted.
        DeleteInProgress = "DELETE_IN_PROGRESS",
        /// Deleted.
        DeleteComplete = "DELETE_COMPLETE",
        /// Deletion failed.
        DeleteFailed = "DELETE_FAILED",
        /// Could not be computed (StatusReason says why), also "no changes".
        Failed = "FAILED",
    }
}

aws_enum! {
    /// A change set's `ExecutionStatus`.
    ExecutionStatus {
        /// Not executable (still being created, or FAILED).
        Unavailable = "UNAVAILABLE",
        /// Ready to execute.
        Available = "AVAILABLE",
        /// Executing.
        ExecuteInProgress = "EXECUTE_IN_PROGRESS",
        /// Executed.
        ExecuteComplete = "EXECUTE_COMPLETE",
        /// Execution failed.
        ExecuteFailed = "EXECUTE_FAILED",
        /// The stack changed underneath it.
        Obsolete = "OBSOLETE",
    }
}

/// An edge the state machine does not have (an engine bug, never a client error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal {kind} transition {from} -> {to}")]
pub struct IllegalTransition {
    /// `stack`, `resource`, `change set` or `execution`.
    pub kind: &'static str,
    /// The current status.
    pub from: &'static str,
    /// The requested status.
    pub to: &'static str,
}

impl StackStatus {
    /// The statuses a stack may start in: `REVIEW_IN_PROGRESS` (CreateChangeSet CREATE) and
    /// `CREATE_IN_PROGRESS` (CreateStack).
    pub fn is_initial(self) -> bool {
        matches!(
            self,
            StackStatus::ReviewInProgress | StackStatus::CreateInProgress
        )
    }

    /// True for every `*_IN_PROGRESS` status (an operation is running, or, for
    /// `REVIEW_IN_PROGRESS`, the stack exists only as a CREATE change set).
    pub fn is_in_progress(self) -> bool {
        self.as_str().ends_with("_IN_PROGRESS")
    }

    /// True when UpdateStack / an UPDATE change set may start from here.
    pub fn is_updatable(self) -> bool {
        self.transition(StackStatus::UpdateInProgress).is_ok()
    }

    /// True when DeleteStack may start from here.
    pub fn is_deletable(self) -> bool {
        self.transition(StackStatus::DeleteInProgress).is_ok()
            || self == StackStatus::ReviewInProgress
    }

    /// The one transition function: `Ok(to)` when AWS moves a stack from `self` to `to`
    /// (aws-contract.md §3.2), else the illegal edge.
    pub fn transition(self, to: StackStatus) -> Result<StackStatus, IllegalTransition> {
        use StackStatus as S;
        let legal = match self {
            S::ReviewInProgress => matches!(
                to,
                S::CreateInProgress | S::DeleteComplete | S::ImportInProgress
            ),
            S::CreateInProgress => matches!(
                to,
                S::CreateComplete | S::CreateFailed | S::RollbackInProgress | S::DeleteInProgress
            ),
            S::CreateFailed => matches!(
                to,
                S::UpdateInProgress | S::RollbackInProgress | S::DeleteInProgress
            ),
            S::RollbackInProgress => matches!(to, S::RollbackComplete | S::RollbackFailed),
            S::RollbackComplete | S::RollbackFailed | S::DeleteFailed => to == S::DeleteInProgress,
            // DeleteStack of a stack whose export is imported goes back to where it was: any
            // status a stack with published exports can be deleted from.
            S::DeleteInProgress => matches!(
                to,
                S::DeleteComplete
                    | S::DeleteFailed
                    | S::CreateComplete
                    | S::UpdateComplete
                    | S::UpdateRollbackComplete
                    | S::ImportComplete
                    | S::ImportRollbackComplete
                    | S::UpdateFailed
                    | S::UpdateRollbackFailed
            ),
            S::DeleteComplete => false,
            S::UpdateInProgress => matches!(
                to,
                S::UpdateCompleteCleanupInProgress | S::UpdateRollbackInProgress | S::UpdateFailed
            ),
            S::UpdateCompleteCleanupInProgress => to == S::UpdateComplete,
            S::UpdateFailed => matches!(
                to,
                S::UpdateInProgress | S::UpdateRollbackInProgress | S::DeleteInProgress
            ),
            S::UpdateRollbackInProgress => matches!(
                to,
                S::UpdateRollbackCompleteCleanupInProgress | S::UpdateRollbackFailed
            ),
            S::UpdateRollbackCompleteCleanupInProgress => to == S::UpdateRollbackComplete,
            S::UpdateRollbackFailed => {
                matches!(to, S::UpdateRollbackInProgress | S::DeleteInProgress)
            }
            S::CreateComplete
            | S::UpdateComplete
            | S::UpdateRollbackComplete
            | S::ImportComplete
            | S::ImportRollbackComplete => matches!(
                to,
                S::UpdateInProgress | S::DeleteInProgress | S::ImportInProgress
            ),
            S::ImportInProgress => matches!(to, S::ImportComplete | S::ImportRollbackInProgress),
            S::ImportRollbackInProgress => {
                matches!(to, S::ImportRollbackComplete | S::ImportRollbackFailed)
            }
            S::ImportRollbackFailed => to == S::DeleteInProgress,
        };
        if legal {
            Ok(to)
        } else {
            Err(IllegalTransition {
                kind: "stack",
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

impl ResourceStatus {
    /// True for statuses that mean the physical resource is (or may be) there.
    pub fn is_initial(self) -> bool {
        matches!(
            self,
            ResourceStatus::CreateInProgress | ResourceStatus::ImportInProgress
        )
    }

    /// True for `*_FAILED`.
    pub fn is_failed(self) -> bool {
        self.as_str().ends_with("_FAILED")
    }

    /// The `*_FAILED` status an interrupted `*_IN_PROGRESS` step ends in (a restart cut the
    /// operation short); `None` for every other status.
    pub fn interrupted(self) -> Option<ResourceStatus> {
        use ResourceStatus as R;
        let failed = match self {
            R::CreateInProgress => R::CreateFailed,
            R::UpdateInProgress => R::UpdateFailed,
            R::DeleteInProgress => R::DeleteFailed,
            R::ImportInProgress => R::ImportFailed,
            R::ImportRollbackInProgress => R::ImportRollbackFailed,
            R::ExportInProgress => R::ExportFailed,
            R::ExportRollbackInProgress => R::ExportRollbackFailed,
            R::UpdateRollbackInProgress => R::UpdateRollbackFailed,
            R::RollbackInProgress => R::RollbackFailed,
            _ => return None,
        };
        self.transition(failed).ok()
    }

    /// The one transition function for a resource (aws-contract.md §3.3): `Ok(to)` for every
    /// edge a resource takes through create, in-place update, replacement, restore, delete,
    /// DeletionPolicy/RetainResources skips and ContinueUpdateRollback skips.
    pub fn transition(self, to: ResourceStatus) -> Result<ResourceStatus, IllegalTransition> {
        use ResourceStatus as R;
        let legal = match self {
            R::CreateInProgress => matches!(to, R::CreateComplete | R::CreateFailed),
            // A failed create is retried by a later update, or deleted by the rollback.
            R::CreateFailed => matches!(
                to,
                R::CreateInProgress | R::DeleteInProgress | R::DeleteSkipped
            ),
            R::CreateComplete | R::UpdateComplete | R::ImportComplete => matches!(
                to,
                R::UpdateInProgress | R::DeleteInProgress | R::DeleteSkipped
            ),
            R::UpdateInProgress => matches!(to, R::UpdateComplete | R::UpdateFailed),
            // Restored by a rollback, skipped by ContinueUpdateRollback, or deleted.
            R::UpdateFailed => matches!(
                to,
                R::UpdateInProgress | R::UpdateComplete | R::DeleteInProgress | R::DeleteSkipped
            ),
            R::DeleteInProgress => matches!(to, R::DeleteComplete | R::DeleteFailed),
            R::DeleteFailed => matches!(
                to,
                R::DeleteInProgress | R::DeleteSkipped | R::UpdateInProgress
            ),
            R::DeleteComplete | R::DeleteSkipped => false,
            R::ImportInProgress => matches!(to, R::ImportComplete | R::ImportFailed),
            R::ImportFailed => matches!(to, R::ImportRollbackInProgress | R::DeleteInProgress),
            R::ImportRollbackInProgress => {
                matches!(to, R::ImportRollbackComplete | R::ImportRollbackFailed)
            }
            R::ImportRollbackComplete | R::ImportRollbackFailed => to == R::DeleteInProgress,
            R::ExportInProgress => matches!(to, R::ExportComplete | R::ExportFailed),
            R::ExportFailed => to == R::ExportRollbackInProgress,
            R::ExportRollbackInProgress => {
                matches!(to, R::ExportRollbackComplete | R::ExportRollbackFailed)
            }
            R::ExportComplete | R::ExportRollbackComplete | R::ExportRollbackFailed => false,
            R::UpdateRollbackInProgress => {
                matches!(to, R::UpdateRollbackComplete | R::UpdateRollbackFailed)
            }
            R::UpdateRollbackComplete => matches!(to, R::UpdateInProgress | R::DeleteInProgress),
            R::UpdateRollbackFailed => {
                matches!(to, R::UpdateRollbackInProgress | R::DeleteInProgress)
            }
            R::RollbackInProgress => matches!(to, R::RollbackComplete | R::RollbackFailed),
            R::RollbackComplete | R::RollbackFailed => to == R::DeleteInProgress,
        };
        if legal {
            Ok(to)
        } else {
            Err(IllegalTransition {
                kind: "resource",
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

impl ChangeSetStatus {
    /// The change-set `Status` machine (aws-contract.md §3.4).
    pub fn transition(self, to: ChangeSetStatus) -> Result<ChangeSetStatus, IllegalTransition> {
        use ChangeSetStatus as C;
        let legal = match self {
            C::CreatePending => matches!(to, C::CreateInProgress | C::Failed),
            C::CreateInProgress => matches!(to, C::CreateComplete | C::Failed),
            C::CreateComplete | C::Failed => to == C::DeletePending,
            C::DeletePending => to == C::DeleteInProgress,
            C::DeleteInProgress => matches!(to, C::DeleteComplete | C::DeleteFailed),
            C::DeleteComplete => false,
            C::DeleteFailed => to == C::DeletePending,
        };
        if legal {
            Ok(to)
        } else {
            Err(IllegalTransition {
                kind: "change set",
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

impl ExecutionStatus {
    /// The change-set `ExecutionStatus` machine (aws-contract.md §3.4).
    pub fn transition(self, to: ExecutionStatus) -> Result<ExecutionStatus, IllegalTransition> {
        use ExecutionStatus as E;
        let legal = match self {
            E::Unavailable => matches!(to, E::Available),
            E::Available => matches!(to, E::ExecuteInProgress | E::Obsolete),
            E::ExecuteInProgress => matches!(to, E::ExecuteComplete | E::ExecuteFailed),
            E::ExecuteComplete | E::ExecuteFailed | E::Obsolete => false,
        };
        if legal {
            Ok(to)
        } else {
            Err(IllegalTransition {
                kind: "execution",
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

#[cfg(test)]
mod tests;
