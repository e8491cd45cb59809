//! The change-set operations: CreateChangeSet (UPDATE with the same preparation as UpdateStack;
//! CREATE making the REVIEW_IN_PROGRESS stack), DescribeChangeSet, ExecuteChangeSet,
//! DeleteChangeSet and ListChangeSets. Change sets are computed at once (never CREATE_PENDING
//! on the wire); their statuses change only through the store's lifecycle methods.

use std::sync::Arc;

use crate::ids::Scope;

use super::control::OperationControl;
use super::engine::Operation;
use super::error::messages::*;
use super::error::Error;
use super::id::StackId;
use super::model::{
    ChangeAction, ChangeSetType, CreateChangeSetInput, ExecuteChangeSetInput, OnFailure, Page,
    ResourceChange,
};
use super::plan::{self, Plan};
use super::prepare::{
    check_new_stack_name, internal, is_plain_name, PendingUpdate, PrepareInput, Prepared, Purpose,
    UpdateRequest, UpdateTarget,
};
use super::shared::StackRef;
use super::status::{ChangeSetStatus, ExecutionStatus, StackStatus};
use super::store::{self, ChangeSetOutcome, ChangeSetRecord, StackRecord};
use super::template::{BoundParameters, Pseudo};
use super::{CloudFormation, PAGE_SIZE};

/// The stack a change set is for.
enum Target {
    /// An UPDATE change set: the stack as UpdateStack would find it.
    Update(UpdateTarget),
    /// A CREATE change set: the stack it makes (or the REVIEW_IN_PROGRESS one it adds to).
    Create {
        stack_id: StackId,
        stack_name: String,
        /// No stack of that name yet: the change set makes it.
        new_stack: bool,
    },
}

impl Target {
    fn stack_id(&self) -> &StackId {
        match self {
            Target::Update(t) => &t.stack_id,
            Target::Create { stack_id, .. } => stack_id,
        }
    }

    fn stack_name(&self) -> &str {
        match self {
            Target::Update(t) => &t.stack_name,
            Target::Create { stack_name, .. } => stack_name,
        }
    }
}

/// A computed change set, ready to store.
struct Computed {
    body: String,
    prepared: Prepared,
    plan: Plan,
}

/// A change set found for ExecuteChangeSet, with the stack's state then.
struct Found {
    record: ChangeSetRecord,
    template: Option<super::template::Template>,
    plan: Option<Arc<Plan>>,
    stack_status: StackStatus,
    stack_busy: bool,
}

fn already_exists(input: &CreateChangeSetInput) -> Error {
    Error::validation(format!(
        "Stack [{}] already exists and cannot be created again with the changeSet [{}].",
        input.stack_name, input.change_set_name
    ))
}

fn not_executable(record: &ChangeSetRecord, execution: ExecutionStatus) -> Error {
    Error::InvalidChangeSetStatus(format!(
        "ChangeSet [{}] cannot be executed in its current execution status of [{}]",
        record.change_set_id, execution
    ))
}

impl CloudFormation {
    /// CreateChangeSet: template errors, parameter errors and missing capabilities are
    /// synchronous errors; otherwise the change set is computed at once (CREATE_COMPLETE /
    /// AVAILABLE, or FAILED / UNAVAILABLE with "no changes"). A CREATE change set makes the stack
    /// (REVIEW_IN_PROGRESS). Answers (change-set id, stack id).
    pub async fn create_change_set(
        &self,
        scope: &Scope,
        input: CreateChangeSetInput,
    ) -> Result<(String, StackId), Error> {
        if !is_plain_name(&input.change_set_name) || input.change_set_name.len() > 128 {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{}' at 'changeSetName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*",
                input.change_set_name
            )));
        }
        let target = self.change_set_target(scope, &input)?;
        self.check_name_free(scope, target.stack_id(), &input.change_set_name)?;
        let computed = self.compute_change_set(scope, &target, &input)?;
        let change_set_id = scope.arn(
            "cloudformation",
            &format!(
                "changeSet/{}/{}",
                input.change_set_name,
                self.deps().ids.uuid()
            ),
        );
        self.store_change_set(scope, &target, &input, change_set_id.clone(), computed)?;
        Ok((change_set_id, target.stack_id().clone()))
    }

    /// The stack a CreateChangeSet is for, refused as AWS refuses it.
    fn change_set_target(
        &self,
        scope: &Scope,
        input: &CreateChangeSetInput,
    ) -> Result<Target, Error> {
        if input.change_set_type == ChangeSetType::Update {
            // The same lookup and refusals as UpdateStack.
            return Ok(Target::Update(self.updatable(scope, &input.stack_name)?));
        }
        let existing = {
            let state = self.shared.lock();
            state
                .region_ref(scope)
                .and_then(|r| r.find(&input.stack_name))
                .map(|s| {
                    (
                        s.stack_id().clone(),
                        s.record.stack_name.clone(),
                        s.status(),
                    )
                })
        };
        match existing {
            Some((stack_id, stack_name, StackStatus::ReviewInProgress)) => Ok(Target::Create {
                stack_id,
                stack_name,
                new_stack: false,
            }),
            Some(_) => Err(already_exists(input)),
            None if input.stack_name.starts_with("arn:") => Err(already_exists(input)),
            None => {
                check_new_stack_name(&input.stack_name)?;
                Ok(Target::Create {
                    stack_id: self.new_stack_id(scope, &input.stack_name),
                    stack_name: input.stack_name.clone(),
                    new_stack: true,
                })
            }
        }
    }

    /// A name is taken while a change set of that name can still be executed; the name of an
    /// executed, failed or obsolete one may be used again (the CLI names its change sets after
    /// the current second).
    fn check_name_free(&self, scope: &Scope, stack_id: &StackId, name: &str) -> Result<(), Error> {
        let state = self.shared.lock();
        let taken = state.region_ref(scope).is_some_and(|r| {
            r.change_sets().values().any(|cs| {
                &cs.record.stack_id == stack_id
                    && cs.record.change_set_name == name
                    && cs.record.execution_status() == ExecutionStatus::Available
            })
        });
        if taken {
            return Err(Error::AlreadyExists(format!(
                "ChangeSet [{name}] already exists"
            )));
        }
        Ok(())
    }

    /// The template prepared and planned: an UPDATE as UpdateStack prepares it, a CREATE as one
    /// Add per resource.
    fn compute_change_set(
        &self,
        scope: &Scope,
        target: &Target,
        input: &CreateChangeSetInput,
    ) -> Result<Computed, Error> {
        if let Target::Update(update) = target {
            let prepared = self.prepare_update(
                scope,
                update,
                UpdateRequest {
                    template: &input.template,
                    parameters: &input.parameters,
                    capabilities: &input.capabilities,
                    resource_types: input.resource_types.as_deref(),
                    notification_arns: input.notification_arns.as_deref(),
                    tags: input.tags.as_deref(),
                    purpose: Purpose::ChangeSet,
                },
            )?;
            return Ok(Computed {
                body: prepared.body,
                prepared: prepared.prepared,
                plan: prepared.plan,
            });
        }
        let body = self.template_text(&input.template, None)?;
        self.check_before_parse(&body, &input.capabilities, Purpose::ChangeSet)?;
        let template = self.parse(&body)?;
        let notification_arns = input.notification_arns.clone().unwrap_or_default();
        let prepared = self.prepare(
            scope,
            template,
            PrepareInput {
                stack_name: target.stack_name(),
                stack_id: target.stack_id(),
                parameters: &input.parameters,
                previous: None,
                capabilities: &input.capabilities,
                notification_arns: &notification_arns,
                resource_types: input.resource_types.as_deref(),
            },
        )?;
        let plan = plan::plan_create(&prepared.resolved);
        Ok(Computed {
            body,
            prepared,
            plan,
        })
    }

    /// Stores the computed change set (and, for a new CREATE, its REVIEW_IN_PROGRESS stack).
    fn store_change_set(
        &self,
        scope: &Scope,
        target: &Target,
        input: &CreateChangeSetInput,
        change_set_id: String,
        computed: Computed,
    ) -> Result<(), Error> {
        let now = self.deps().clock.now();
        let (stack_id, stack_name) = (target.stack_id(), target.stack_name());
        let outcome = if computed.plan.is_empty() {
            ChangeSetOutcome::Failed(NO_CHANGES.to_string())
        } else {
            ChangeSetOutcome::Computed
        };
        let mut record = ChangeSetRecord::new(
            change_set_id,
            &input.change_set_name,
            (stack_id, stack_name),
            input.change_set_type,
            now,
        );
        record.description = input.description.clone();
        record.template_body = computed.body;
        record.bound_parameters = serde_json::to_value(&computed.prepared.params).ok();
        record.parameters = computed.prepared.shown.clone();
        record.capabilities = input.capabilities.clone();
        record.tags = input.tags.clone();
        record.notification_arns = input.notification_arns.clone();
        record.rollback_configuration = input.rollback_configuration.clone().unwrap_or_default();
        record.role_arn = input.role_arn.clone();
        record.on_stack_failure = input.on_stack_failure;
        record.include_nested_stacks = input.include_nested_stacks;
        record.changes = computed.plan.changes.clone();
        let mut state = self.shared.lock();
        let region = state.region(scope);
        if let Target::Create {
            new_stack: true, ..
        } = target
        {
            if region.find(stack_name).is_some() {
                return Err(already_exists(input));
            }
            let mut stack = StackRecord::new(stack_id.clone(), stack_name, now);
            stack.tags = input.tags.clone().unwrap_or_default();
            region
                .open_stack(
                    stack,
                    None,
                    StackStatus::ReviewInProgress,
                    Some(USER_INITIATED.to_string()),
                    now,
                )
                .map_err(internal)?;
        }
        region
            .add_change_set(
                record,
                Some(computed.prepared.template),
                Some(Arc::new(computed.plan)),
                outcome,
            )
            .map_err(internal)
    }

    /// Finds a change set as DescribeChangeSet / ExecuteChangeSet / DeleteChangeSet do.
    fn find_change_set<'a>(
        region: Option<&'a store::Region>,
        name: &str,
        stack_name: Option<&str>,
    ) -> Result<&'a store::ChangeSetEntry, Error> {
        let stack_id = match stack_name {
            Some(s) => Some(
                region
                    .and_then(|r| r.find_id(s))
                    .ok_or_else(|| Error::validation(stack_does_not_exist(s)))?,
            ),
            None => None,
        };
        if stack_id.is_none() && !name.starts_with("arn:") {
            return Err(Error::validation(
                "StackName must be specified if ChangeSetName is not specified as an ARN.",
            ));
        }
        region
            .and_then(|r| r.find_change_set(name, stack_id.map(StackId::as_str)))
            .ok_or_else(|| Error::ChangeSetNotFound(change_set_does_not_exist(name)))
    }

    /// DescribeChangeSet: the change set and one page of its changes.
    pub fn describe_change_set(
        &self,
        scope: &Scope,
        change_set_name: &str,
        stack_name: Option<&str>,
        next_token: Option<&str>,
    ) -> Result<(ChangeSetRecord, Page<ResourceChange>), Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = Self::find_change_set(state.region_ref(scope), change_set_name, stack_name)?;
        let page = store::paginate(&entry.record.changes, offset, PAGE_SIZE);
        Ok((entry.record.clone(), page))
    }

    /// ExecuteChangeSet: runs a CREATE (the stack leaves REVIEW_IN_PROGRESS) or UPDATE change
    /// set; answers once the stack is terminal (or held by a fault).
    pub async fn execute_change_set(
        &self,
        scope: &Scope,
        input: ExecuteChangeSetInput,
    ) -> Result<(), Error> {
        let found = self.executable(scope, &input)?;
        let record = &found.record;
        // A change set without NotificationARNs keeps the stack's (AWS::NotificationARNs too).
        let notification_arns = match &record.notification_arns {
            Some(a) => a.clone(),
            None => self.current(scope, &record.stack_id, |r| r.notification_arns.clone()),
        };
        let prepared = self.reprepare(scope, &found, &notification_arns)?;
        // The change set's own record says what it modifies (the cached plan is not durable).
        let plan = found.plan.as_deref().cloned().unwrap_or_else(|| Plan {
            changes: record.changes.clone(),
            modified: record
                .changes
                .iter()
                .filter(|c| c.action == ChangeAction::Modify)
                .map(|c| c.logical_id.clone())
                .collect(),
            other_changes: true,
        });
        if record.change_set_type == ChangeSetType::Create {
            if found.stack_status != StackStatus::ReviewInProgress || found.stack_busy {
                return Err(not_executable(record, ExecutionStatus::Obsolete));
            }
            return self.execute_create(scope, record, prepared, input).await;
        }
        let update = PendingUpdate {
            body: record.template_body.clone(),
            prepared,
            plan,
            capabilities: record.capabilities.clone(),
            tags: match &record.tags {
                Some(t) => t.clone(),
                None => self.current(scope, &record.stack_id, |r| r.tags.clone()),
            },
            notification_arns,
            disable_rollback: input.disable_rollback.unwrap_or(false)
                || record.on_stack_failure == Some(OnFailure::DoNothing),
            change_set_id: Some(record.change_set_id.clone()),
            stack_policy: None,
            rollback_configuration: Some(record.rollback_configuration.clone()),
            role_arn: record.role_arn.clone(),
        };
        let control = self.begin_update(scope, &record.stack_id, update)?;
        control.settled().await;
        Ok(())
    }

    /// The change set ExecuteChangeSet names, if it can be executed (AWS's texts).
    fn executable(&self, scope: &Scope, input: &ExecuteChangeSetInput) -> Result<Found, Error> {
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        let entry =
            Self::find_change_set(region, &input.change_set_name, input.stack_name.as_deref())?;
        let r = &entry.record;
        if r.status() != ChangeSetStatus::CreateComplete {
            return Err(Error::InvalidChangeSetStatus(format!(
                "ChangeSet [{}] cannot be executed in its current status of [{}]",
                r.change_set_id,
                r.status()
            )));
        }
        if r.execution_status() != ExecutionStatus::Available {
            return Err(not_executable(r, r.execution_status()));
        }
        let stack = region
            .and_then(|reg| reg.stack(r.stack_id.as_str()))
            .ok_or_else(|| Error::validation(stack_does_not_exist(&r.stack_name)))?;
        Ok(Found {
            record: r.clone(),
            template: entry.template.clone(),
            plan: entry.plan.clone(),
            stack_status: stack.status(),
            stack_busy: stack.operation().is_some(),
        })
    }

    /// The change set's template, bound again to its parameters and resolved for execution.
    fn reprepare(
        &self,
        scope: &Scope,
        found: &Found,
        notification_arns: &[String],
    ) -> Result<Prepared, Error> {
        let record = &found.record;
        let template = match &found.template {
            Some(t) => t.clone(),
            None => self.parse(&record.template_body)?,
        };
        let params: BoundParameters = record
            .bound_parameters
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or_else(|| Error::validation("the change set's parameters cannot be read"))?;
        let pseudo = Pseudo {
            account_id: scope.account.clone(),
            region: scope.region.clone(),
            stack_name: record.stack_name.clone(),
            stack_id: record.stack_id.to_string(),
            notification_arns: notification_arns.to_vec(),
        };
        let resolved = Arc::new(
            template
                .resolve(&params, &pseudo)
                .map_err(|e| Error::validation(e.to_string()))?,
        );
        Ok(Prepared {
            template,
            shown: record.parameters.clone(),
            params,
            resolved,
            pseudo,
        })
    }

    /// A value of the stack `stack_id`'s record (default when it is gone).
    fn current<T: Default>(
        &self,
        scope: &Scope,
        stack_id: &StackId,
        read: impl FnOnce(&StackRecord) -> T,
    ) -> T {
        let state = self.shared.lock();
        state
            .region_ref(scope)
            .and_then(|r| r.stack(stack_id.as_str()))
            .map(|s| read(&s.record))
            .unwrap_or_default()
    }

    /// Executes a CREATE change set: the REVIEW_IN_PROGRESS stack takes the change set's
    /// settings and goes CREATE_IN_PROGRESS.
    async fn execute_create(
        &self,
        scope: &Scope,
        record: &ChangeSetRecord,
        prepared: Prepared,
        input: ExecuteChangeSetInput,
    ) -> Result<(), Error> {
        let on_failure = if input.disable_rollback == Some(true) {
            OnFailure::DoNothing
        } else {
            record.on_stack_failure.unwrap_or(OnFailure::Rollback)
        };
        let retain_except_on_create = input.retain_except_on_create.unwrap_or(false);
        let control = self.begin_create_from(
            scope,
            record,
            &prepared,
            on_failure,
            retain_except_on_create,
        )?;
        self.start(
            StackRef {
                scope: scope.clone(),
                stack_id: record.stack_id.clone(),
                stack_name: record.stack_name.clone(),
            },
            control.clone(),
            Operation::Create {
                exec: prepared.into_exec(),
                on_failure,
                change_set_id: Some(record.change_set_id.clone()),
            },
        );
        control.settled().await;
        Ok(())
    }

    /// The REVIEW_IN_PROGRESS stack of a CREATE change set goes CREATE_IN_PROGRESS with the
    /// change set's settings; the change set EXECUTE_IN_PROGRESS, the stack's others deleted.
    fn begin_create_from(
        &self,
        scope: &Scope,
        record: &ChangeSetRecord,
        prepared: &Prepared,
        on_failure: OnFailure,
        retain_except_on_create: bool,
    ) -> Result<Arc<OperationControl>, Error> {
        let now = self.deps().clock.now();
        let control = Arc::new(OperationControl::new());
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let Some(entry) = region.stack_mut(record.stack_id.as_str()) else {
            return Err(Error::validation(stack_does_not_exist(&record.stack_name)));
        };
        if entry.status() != StackStatus::ReviewInProgress || entry.operation().is_some() {
            return Err(not_executable(record, ExecutionStatus::Obsolete));
        }
        let r = &mut entry.record;
        r.change_set_id = Some(record.change_set_id.clone());
        r.template_body = record.template_body.clone();
        r.description = prepared.template.description().map(str::to_string);
        r.bound_parameters = record.bound_parameters.clone();
        r.parameters = record.parameters.clone();
        r.capabilities = record.capabilities.clone();
        r.tags = record.tags.clone().unwrap_or_default();
        r.notification_arns = record.notification_arns.clone().unwrap_or_default();
        r.disable_rollback = on_failure == OnFailure::DoNothing;
        r.rollback_configuration = record.rollback_configuration.clone();
        r.role_arn = record.role_arn.clone();
        r.retain_except_on_create = retain_except_on_create;
        entry.template = Some(prepared.template.clone());
        entry
            .set_status(
                StackStatus::CreateInProgress,
                Some(USER_INITIATED.to_string()),
                now,
            )
            .map_err(internal)?;
        entry.record.last_updated_time = entry.last_event_time();
        entry.save();
        entry.begin_operation(control.clone());
        region
            .set_execution_status(&record.change_set_id, ExecutionStatus::ExecuteInProgress)
            .map_err(internal)?;
        // The stack's other change sets are deleted (ExecuteChangeSet documentation).
        region.drop_change_sets(&record.stack_id, Some(&record.change_set_id));
        Ok(control)
    }

    /// DeleteChangeSet (also allowed after execution); a change set being executed is refused.
    /// A change-set *name* the existing stack does not have answers 200, as AWS does (the CDK
    /// deletes `cdk-deploy-change-set` before every deploy and does not catch an error); an
    /// unknown stack or change-set ARN is still an error.
    pub fn delete_change_set(
        &self,
        scope: &Scope,
        change_set_name: &str,
        stack_name: Option<&str>,
    ) -> Result<(), Error> {
        let mut state = self.shared.lock();
        let found = Self::find_change_set(state.region_ref(scope), change_set_name, stack_name);
        let id = match found {
            Ok(entry) => {
                if entry.record.execution_status() == ExecutionStatus::ExecuteInProgress {
                    return Err(Error::InvalidChangeSetStatus(
                        "An operation on this ChangeSet is currently in progress.  Please attempt this operation again later.".to_string(),
                    ));
                }
                entry.record.change_set_id.clone()
            }
            Err(Error::ChangeSetNotFound(_)) if !change_set_name.starts_with("arn:") => {
                return Ok(())
            }
            Err(e) => return Err(e),
        };
        state.region(scope).remove_change_set(&id);
        Ok(())
    }

    /// ListChangeSets: the stack's change sets that were not executed.
    pub fn list_change_sets(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<ChangeSetRecord>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        let stack_id = region
            .and_then(|r| r.find_id(stack_name))
            .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
        let all: Vec<ChangeSetRecord> = region
            .map(|r| {
                r.change_sets()
                    .values()
                    .filter(|cs| {
                        &cs.record.stack_id == stack_id
                            && !matches!(
                                cs.record.execution_status(),
                                ExecutionStatus::ExecuteInProgress
                                    | ExecutionStatus::ExecuteComplete
                                    | ExecutionStatus::ExecuteFailed
                            )
                    })
                    .map(|cs| cs.record.clone())
                    .collect()
            })
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }
}
