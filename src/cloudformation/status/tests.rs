//! Edge tables for the status machines: every legal edge is listed with AWS's names, and every
//! pair not listed must be refused.

use super::*;

/// `FROM -> TO, TO, ...` lines; every pair not listed is illegal.
const STACK_EDGES: &str = "
REVIEW_IN_PROGRESS -> CREATE_IN_PROGRESS, DELETE_COMPLETE, IMPORT_IN_PROGRESS
CREATE_IN_PROGRESS -> CREATE_COMPLETE, CREATE_FAILED, ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
CREATE_FAILED -> UPDATE_IN_PROGRESS, ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
CREATE_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, IMPORT_IN_PROGRESS
ROLLBACK_IN_PROGRESS -> ROLLBACK_COMPLETE, ROLLBACK_FAILED
ROLLBACK_FAILED -> DELETE_IN_PROGRESS
ROLLBACK_COMPLETE -> DELETE_IN_PROGRESS
DELETE_IN_PROGRESS -> DELETE_COMPLETE, DELETE_FAILED, CREATE_COMPLETE, UPDATE_COMPLETE, UPDATE_ROLLBACK_COMPLETE, IMPORT_COMPLETE, IMPORT_ROLLBACK_COMPLETE, UPDATE_FAILED, UPDATE_ROLLBACK_FAILED
DELETE_FAILED -> DELETE_IN_PROGRESS
DELETE_COMPLETE ->
UPDATE_IN_PROGRESS -> UPDATE_COMPLETE_CLEANUP_IN_PROGRESS, UPDATE_ROLLBACK_IN_PROGRESS, UPDATE_FAILED
UPDATE_COMPLETE_CLEANUP_IN_PROGRESS -> UPDATE_COMPLETE
UPDATE_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, IMPORT_IN_PROGRESS
UPDATE_FAILED -> UPDATE_IN_PROGRESS, UPDATE_ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
UPDATE_ROLLBACK_IN_PROGRESS -> UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS, UPDATE_ROLLBACK_FAILED
UPDATE_ROLLBACK_FAILED -> UPDATE_ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS -> UPDATE_ROLLBACK_COMPLETE
UPDATE_ROLLBACK_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, IMPORT_IN_PROGRESS
IMPORT_IN_PROGRESS -> IMPORT_COMPLETE, IMPORT_ROLLBACK_IN_PROGRESS
IMPORT_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, IMPORT_IN_PROGRESS
IMPORT_ROLLBACK_IN_PROGRESS -> IMPORT_ROLLBACK_COMPLETE, IMPORT_ROLLBACK_FAILED
IMPORT_ROLLBACK_FAILED -> DELETE_IN_PROGRESS
IMPORT_ROLLBACK_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, IMPORT_IN_PROGRESS
";

const RESOURCE_EDGES: &str = "
CREATE_IN_PROGRESS -> CREATE_COMPLETE, CREATE_FAILED
CREATE_FAILED -> CREATE_IN_PROGRESS, DELETE_IN_PROGRESS, DELETE_SKIPPED
CREATE_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, DELETE_SKIPPED
DELETE_IN_PROGRESS -> DELETE_COMPLETE, DELETE_FAILED
DELETE_FAILED -> DELETE_IN_PROGRESS, DELETE_SKIPPED, UPDATE_IN_PROGRESS
DELETE_COMPLETE ->
DELETE_SKIPPED ->
UPDATE_IN_PROGRESS -> UPDATE_COMPLETE, UPDATE_FAILED
UPDATE_FAILED -> UPDATE_IN_PROGRESS, UPDATE_COMPLETE, DELETE_IN_PROGRESS, DELETE_SKIPPED
UPDATE_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, DELETE_SKIPPED
IMPORT_FAILED -> IMPORT_ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
IMPORT_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS, DELETE_SKIPPED
IMPORT_IN_PROGRESS -> IMPORT_COMPLETE, IMPORT_FAILED
IMPORT_ROLLBACK_IN_PROGRESS -> IMPORT_ROLLBACK_COMPLETE, IMPORT_ROLLBACK_FAILED
IMPORT_ROLLBACK_FAILED -> DELETE_IN_PROGRESS
IMPORT_ROLLBACK_COMPLETE -> DELETE_IN_PROGRESS
EXPORT_FAILED -> EXPORT_ROLLBACK_IN_PROGRESS
EXPORT_COMPLETE ->
EXPORT_IN_PROGRESS -> EXPORT_COMPLETE, EXPORT_FAILED
EXPORT_ROLLBACK_IN_PROGRESS -> EXPORT_ROLLBACK_COMPLETE, EXPORT_ROLLBACK_FAILED
EXPORT_ROLLBACK_FAILED ->
EXPORT_ROLLBACK_COMPLETE ->
UPDATE_ROLLBACK_IN_PROGRESS -> UPDATE_ROLLBACK_COMPLETE, UPDATE_ROLLBACK_FAILED
UPDATE_ROLLBACK_COMPLETE -> UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS
UPDATE_ROLLBACK_FAILED -> UPDATE_ROLLBACK_IN_PROGRESS, DELETE_IN_PROGRESS
ROLLBACK_IN_PROGRESS -> ROLLBACK_COMPLETE, ROLLBACK_FAILED
ROLLBACK_COMPLETE -> DELETE_IN_PROGRESS
ROLLBACK_FAILED -> DELETE_IN_PROGRESS
";

const CHANGE_SET_EDGES: &str = "
CREATE_PENDING -> CREATE_IN_PROGRESS, FAILED
CREATE_IN_PROGRESS -> CREATE_COMPLETE, FAILED
CREATE_COMPLETE -> DELETE_PENDING
DELETE_PENDING -> DELETE_IN_PROGRESS
DELETE_IN_PROGRESS -> DELETE_COMPLETE, DELETE_FAILED
DELETE_COMPLETE ->
DELETE_FAILED -> DELETE_PENDING
FAILED -> DELETE_PENDING
";

const EXECUTION_EDGES: &str = "
UNAVAILABLE -> AVAILABLE
AVAILABLE -> EXECUTE_IN_PROGRESS, OBSOLETE
EXECUTE_IN_PROGRESS -> EXECUTE_COMPLETE, EXECUTE_FAILED
EXECUTE_COMPLETE ->
EXECUTE_FAILED ->
OBSOLETE ->
";

/// Parses an edge table into (from, to) pairs, checking every `from` appears exactly once.
fn edges(table: &str, all: &[&str]) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for line in table.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (from, tos) = line.split_once("->").expect("a line is FROM -> TOS");
        let from = from.trim().to_string();
        assert!(all.contains(&from.as_str()), "unknown status {from}");
        assert!(!seen.contains(&from), "{from} listed twice");
        seen.push(from.clone());
        for to in tos.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            assert!(all.contains(&to), "unknown status {to}");
            out.push((from.clone(), to.to_string()));
        }
    }
    assert_eq!(seen.len(), all.len(), "every status needs a line");
    out
}

fn check_machine<T: Copy + std::fmt::Display>(
    table: &str,
    all: &[T],
    parse: fn(&str) -> Option<T>,
    transition: fn(T, T) -> Result<T, IllegalTransition>,
) {
    let names: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let legal = edges(table, &name_refs);
    for from in all {
        for to in all {
            let pair = (from.to_string(), to.to_string());
            let expected = legal.contains(&pair);
            let got = transition(*from, *to);
            assert_eq!(
                got.is_ok(),
                expected,
                "{} -> {}: expected {}",
                pair.0,
                pair.1,
                if expected { "legal" } else { "illegal" }
            );
        }
        assert!(parse(&from.to_string()).is_some());
    }
}

#[test]
fn enums_have_the_models_value_counts() {
    assert_eq!(StackStatus::ALL.len(), 23);
    assert_eq!(ResourceStatus::ALL.len(), 28);
    assert_eq!(ChangeSetStatus::ALL.len(), 8);
    assert_eq!(ExecutionStatus::ALL.len(), 6);
    assert_eq!(
        StackStatus::UpdateRollbackCompleteCleanupInProgress.to_string(),
        "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS"
    );
    assert_eq!(
        serde_json::to_string(&ResourceStatus::DeleteSkipped).unwrap(),
        "\"DELETE_SKIPPED\""
    );
    assert_eq!(StackStatus::parse("NOPE"), None);
}

#[test]
fn stack_status_edges() {
    check_machine(
        STACK_EDGES,
        StackStatus::ALL,
        StackStatus::parse,
        StackStatus::transition,
    );
}

#[test]
fn resource_status_edges() {
    check_machine(
        RESOURCE_EDGES,
        ResourceStatus::ALL,
        ResourceStatus::parse,
        ResourceStatus::transition,
    );
}

#[test]
fn change_set_status_edges() {
    check_machine(
        CHANGE_SET_EDGES,
        ChangeSetStatus::ALL,
        ChangeSetStatus::parse,
        ChangeSetStatus::transition,
    );
    check_machine(
        EXECUTION_EDGES,
        ExecutionStatus::ALL,
        ExecutionStatus::parse,
        ExecutionStatus::transition,
    );
}

#[test]
fn updatable_and_deletable_states_follow_the_edges() {
    use StackStatus as S;
    let updatable: Vec<S> = S::ALL
        .iter()
        .copied()
        .filter(|s| s.is_updatable())
        .collect();
    assert_eq!(
        updatable,
        vec![
            S::CreateFailed,
            S::CreateComplete,
            S::UpdateComplete,
            S::UpdateFailed,
            S::UpdateRollbackComplete,
            S::ImportComplete,
            S::ImportRollbackComplete
        ]
    );
    for s in [
        S::RollbackComplete,
        S::UpdateRollbackFailed,
        S::UpdateInProgress,
        S::DeleteComplete,
        S::ReviewInProgress,
    ] {
        assert!(!s.is_updatable(), "{s}");
    }
    assert!(S::ReviewInProgress.is_deletable());
    assert!(S::RollbackComplete.is_deletable());
    assert!(!S::UpdateInProgress.is_deletable());
    assert!(!S::DeleteComplete.is_deletable());
    assert!(S::UpdateCompleteCleanupInProgress.is_in_progress());
    assert!(!S::UpdateComplete.is_in_progress());
}

#[test]
fn every_in_progress_resource_status_has_a_legal_interrupted_status() {
    for status in ResourceStatus::ALL.iter().copied() {
        let in_progress = status.as_str().ends_with("_IN_PROGRESS");
        match status.interrupted() {
            Some(failed) => {
                assert!(in_progress, "{status}");
                assert_eq!(
                    failed.as_str(),
                    status.as_str().replace("_IN_PROGRESS", "_FAILED"),
                    "{status}"
                );
                assert_eq!(status.transition(failed), Ok(failed), "{status}");
            }
            None => assert!(!in_progress, "{status} has no interrupted status"),
        }
    }
}
