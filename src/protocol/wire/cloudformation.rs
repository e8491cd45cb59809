//! CloudFormation on the wire (awsQuery, aws-contract.md §2), in the Scheduler wire's shape:
//! [`decode::route`] turns the form into one [`Operation`] with its typed input (one decode per
//! operation), [`call`] hands it to one `CloudFormation` method and keeps what it answers as an
//! [`Answer`], and [`encode::encode`] writes the `<{Op}Response>` document (one encoder per
//! answer, byte for byte as the fixtures in `../shared/reference/fixtures/cfn_xml/`).
//! `From<cloudformation::Error> for WireError` maps the core's errors. No stack logic here.

mod decode;
mod encode;

use axum::response::Response;

use crate::app::App;
use crate::cloudformation::model::{
    CreateChangeSetInput, CreateStackInput, DeleteStackInput, ExecuteChangeSetInput, Export, Page,
    ResourceChange, StackSummary, TemplateOutput, TemplateSource, TemplateSummary,
    UpdateStackInput,
};
use crate::cloudformation::{
    self, ChangeSetRecord, CloudFormation, ResourceRecord, StackEvents, StackId, StackRecord,
    StackResourceView,
};
use crate::ids::Scope;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::{ok_response, AwsRequest};

/// The service's XML namespace.
pub const XMLNS: &str = "http://cloudformation.amazonaws.com/doc/2010-05-15/";

/// How CloudFormation errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Query { xmlns: XMLNS };

impl From<cloudformation::Error> for WireError {
    fn from(err: cloudformation::Error) -> Self {
        use axum::http::StatusCode;
        let status = match err {
            cloudformation::Error::ChangeSetNotFound(_) => StatusCode::NOT_FOUND,
            _ => StatusCode::BAD_REQUEST,
        };
        WireError::new(err.code(), err.message(), status)
    }
}

/// The operations Cumulo serves, each with its decoded input: those that change state and
/// those that only read (answered without waiting for the durable store).
#[derive(Debug)]
enum Operation {
    Change(Box<Change>),
    Read(Read),
    List(List),
}

impl From<Change> for Operation {
    fn from(op: Change) -> Operation {
        Operation::Change(Box::new(op))
    }
}

impl From<Read> for Operation {
    fn from(op: Read) -> Operation {
        Operation::Read(op)
    }
}

impl From<List> for Operation {
    fn from(op: List) -> Operation {
        Operation::List(op)
    }
}

/// The operations that change stacks or change sets.
#[derive(Debug)]
enum Change {
    CreateStack(CreateStackInput),
    UpdateStack(UpdateStackInput),
    DeleteStack(DeleteStackInput),
    CreateChangeSet(CreateChangeSetInput),
    ExecuteChangeSet(ExecuteChangeSetInput),
    DeleteChangeSet {
        change_set_name: String,
        stack_name: Option<String>,
    },
    ContinueUpdateRollback {
        stack_name: String,
        resources_to_skip: Vec<String>,
    },
    CancelUpdateStack {
        stack_name: String,
    },
    RollbackStack {
        stack_name: String,
    },
    UpdateTerminationProtection {
        stack_name: String,
        enable: bool,
    },
    SetStackPolicy {
        stack_name: String,
        body: Option<String>,
        url: Option<String>,
    },
}

/// The operations that read one thing.
#[derive(Debug)]
enum Read {
    DescribeStacks {
        stack_name: Option<String>,
        next_token: Option<String>,
    },
    DescribeStackEvents {
        stack_name: String,
        next_token: Option<String>,
    },
    DescribeStackResource {
        stack_name: String,
        logical_id: String,
    },
    DescribeStackResources {
        stack_name: Option<String>,
        logical_id: Option<String>,
        physical_id: Option<String>,
    },
    GetTemplate {
        stack_name: Option<String>,
        change_set_name: Option<String>,
        stage: Option<String>,
    },
    GetTemplateSummary {
        source: TemplateSource,
        stack_name: Option<String>,
        stack_set_name: Option<String>,
    },
    ValidateTemplate(TemplateSource),
    DescribeChangeSet {
        change_set_name: String,
        include_values: bool,
        stack_name: Option<String>,
        next_token: Option<String>,
    },
    GetStackPolicy {
        stack_name: String,
    },
}

/// The operations that list (paged); named as AWS names them.
#[derive(Debug)]
#[allow(clippy::enum_variant_names)]
enum List {
    ListStackResources {
        stack_name: String,
        next_token: Option<String>,
    },
    ListStacks {
        status_filter: Vec<String>,
        next_token: Option<String>,
    },
    ListChangeSets {
        stack_name: String,
        next_token: Option<String>,
    },
    ListExports {
        next_token: Option<String>,
    },
    ListImports {
        export_name: String,
        next_token: Option<String>,
    },
}

/// What an operation answered, before encoding.
enum Answer {
    /// No Result element (DeleteStack, CancelUpdateStack, SetStackPolicy).
    Bare,
    /// An empty Result element (ExecuteChangeSet, DeleteChangeSet, ContinueUpdateRollback).
    Empty,
    /// `StackId` (CreateStack, UpdateStack, RollbackStack, UpdateTerminationProtection).
    StackId(StackId),
    Stacks(Page<StackRecord>),
    Events(StackEvents),
    ResourceDetail(StackResourceView),
    Resources(Vec<StackResourceView>),
    ResourceSummaries(Page<ResourceRecord>),
    StackSummaries(Page<StackSummary>),
    Template(TemplateOutput),
    /// GetTemplateSummary (`full`) or ValidateTemplate.
    Summary {
        summary: TemplateSummary,
        full: bool,
    },
    ChangeSetCreated {
        id: String,
        stack_id: StackId,
    },
    ChangeSet {
        record: ChangeSetRecord,
        changes: Page<ResourceChange>,
        include_values: bool,
    },
    ChangeSets(Page<ChangeSetRecord>),
    Exports(Page<Export>),
    Imports(Page<String>),
    StackPolicy(Option<String>),
}

/// Handles one CloudFormation request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let form = req.form();
    let action = form.action().unwrap_or("").to_string();
    let (answer, mutating) = match decode::route(&action, &form) {
        Ok(Operation::Change(op)) => (change(&app.cloudformation, &req.scope, *op).await, true),
        Ok(Operation::Read(op)) => (read(&app.cloudformation, &req.scope, op), false),
        Ok(Operation::List(op)) => (list(&app.cloudformation, &req.scope, op), false),
        Err(e) => (Err(e), true),
    };
    if mutating {
        // What a mutating operation stored is durable before it is answered.
        app.storage.sync().await;
    }
    match answer {
        Ok(answer) => ok_response(
            "text/xml",
            encode::encode(&action, &answer, &req.request_id),
            &req.request_id,
        ),
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

/// Hands a changing operation to its one `CloudFormation` method.
async fn change(cfn: &CloudFormation, scope: &Scope, op: Change) -> Result<Answer, WireError> {
    use Change as C;
    let answer = match op {
        C::CreateStack(input) => Answer::StackId(cfn.create_stack(scope, input).await?),
        C::UpdateStack(input) => Answer::StackId(cfn.update_stack(scope, input).await?),
        C::DeleteStack(input) => {
            cfn.delete_stack(scope, input).await?;
            Answer::Bare
        }
        C::CreateChangeSet(input) => {
            let (id, stack_id) = cfn.create_change_set(scope, input).await?;
            Answer::ChangeSetCreated { id, stack_id }
        }
        C::ExecuteChangeSet(input) => {
            cfn.execute_change_set(scope, input).await?;
            Answer::Empty
        }
        C::DeleteChangeSet {
            change_set_name,
            stack_name,
        } => {
            cfn.delete_change_set(scope, &change_set_name, stack_name.as_deref())?;
            Answer::Empty
        }
        C::ContinueUpdateRollback {
            stack_name,
            resources_to_skip,
        } => {
            cfn.continue_update_rollback(scope, &stack_name, resources_to_skip)
                .await?;
            Answer::Empty
        }
        C::CancelUpdateStack { stack_name } => {
            cfn.cancel_update_stack(scope, &stack_name).await?;
            Answer::Bare
        }
        C::RollbackStack { stack_name } => {
            Answer::StackId(cfn.rollback_stack(scope, &stack_name).await?)
        }
        C::UpdateTerminationProtection { stack_name, enable } => {
            Answer::StackId(cfn.update_termination_protection(scope, &stack_name, enable)?)
        }
        C::SetStackPolicy {
            stack_name,
            body,
            url,
        } => {
            cfn.set_stack_policy(scope, &stack_name, body.as_deref(), url.as_deref())?;
            Answer::Bare
        }
    };
    Ok(answer)
}

/// Hands a read to its one `CloudFormation` method.
fn read(cfn: &CloudFormation, scope: &Scope, op: Read) -> Result<Answer, WireError> {
    use Read as R;
    let answer = match op {
        R::DescribeStacks {
            stack_name,
            next_token,
        } => Answer::Stacks(cfn.describe_stacks(
            scope,
            stack_name.as_deref(),
            next_token.as_deref(),
        )?),
        R::DescribeStackEvents {
            stack_name,
            next_token,
        } => {
            Answer::Events(cfn.describe_stack_events(scope, &stack_name, next_token.as_deref())?)
        }
        R::DescribeStackResource {
            stack_name,
            logical_id,
        } => {
            Answer::ResourceDetail(cfn.describe_stack_resource(scope, &stack_name, &logical_id)?)
        }
        R::DescribeStackResources {
            stack_name,
            logical_id,
            physical_id,
        } => Answer::Resources(cfn.describe_stack_resources(
            scope,
            stack_name.as_deref(),
            logical_id.as_deref(),
            physical_id.as_deref(),
        )?),
        R::GetTemplate {
            stack_name,
            change_set_name,
            stage,
        } => Answer::Template(cfn.get_template(
            scope,
            stack_name.as_deref(),
            change_set_name.as_deref(),
            stage.as_deref(),
        )?),
        R::GetTemplateSummary {
            source,
            stack_name,
            stack_set_name,
        } => Answer::Summary {
            summary: cfn.get_template_summary(
                scope,
                source,
                stack_name.as_deref(),
                stack_set_name.as_deref(),
            )?,
            full: true,
        },
        R::ValidateTemplate(source) => Answer::Summary {
            summary: cfn.validate_template(scope, source)?,
            full: false,
        },
        R::DescribeChangeSet {
            change_set_name,
            include_values,
            stack_name,
            next_token,
        } => {
            let (record, changes) = cfn.describe_change_set(
                scope,
                &change_set_name,
                stack_name.as_deref(),
                next_token.as_deref(),
            )?;
            Answer::ChangeSet {
                record,
                changes,
                include_values,
            }
        }
        R::GetStackPolicy { stack_name } => {
            Answer::StackPolicy(cfn.get_stack_policy(scope, &stack_name)?)
        }
    };
    Ok(answer)
}

/// Hands a list to its one `CloudFormation` method.
fn list(cfn: &CloudFormation, scope: &Scope, op: List) -> Result<Answer, WireError> {
    use List as L;
    let answer = match op {
        L::ListStackResources {
            stack_name,
            next_token,
        } => Answer::ResourceSummaries(cfn.list_stack_resources(
            scope,
            &stack_name,
            next_token.as_deref(),
        )?),
        L::ListStacks {
            status_filter,
            next_token,
        } => {
            Answer::StackSummaries(cfn.list_stacks(scope, &status_filter, next_token.as_deref())?)
        }
        L::ListChangeSets {
            stack_name,
            next_token,
        } => Answer::ChangeSets(cfn.list_change_sets(scope, &stack_name, next_token.as_deref())?),
        L::ListExports { next_token } => {
            Answer::Exports(cfn.list_exports(scope, next_token.as_deref())?)
        }
        L::ListImports {
            export_name,
            next_token,
        } => Answer::Imports(cfn.list_imports(scope, &export_name, next_token.as_deref())?),
    };
    Ok(answer)
}
