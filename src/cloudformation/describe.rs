//! The read operations: DescribeStacks, DescribeStackEvents, DescribeStackResource(s),
//! ListStackResources, ListStacks, GetTemplate, GetTemplateSummary, ValidateTemplate,
//! ListExports and ListImports, and the template summary they share. Reads only: nothing here
//! changes the store.

use indexmap::IndexMap;
use serde_json::Value;

use crate::ids::Scope;

use super::error::messages::*;
use super::error::Error;
use super::id::StackId;
use super::model::{
    Export, Page, ParameterDeclaration, StackSummary, TemplateOutput, TemplateSource,
    TemplateSummary,
};
use super::registry;
use super::status::StackStatus;
use super::store::{
    self, ResourceRecord, StackEntry, StackEventRecord, StackRecord, StackResourceView,
};
use super::template::Template;
use super::{CloudFormation, PAGE_SIZE};

/// DescribeStackEvents output: one page of events (newest first) and the stack they belong to.
#[derive(Clone, Debug)]
pub struct StackEvents {
    /// Stack id.
    pub stack_id: StackId,
    /// Stack name.
    pub stack_name: String,
    /// The events, newest first.
    pub page: Page<StackEventRecord>,
}

impl CloudFormation {
    /// DescribeStacks: one stack (by name: live only; by id: deleted too), or every live stack,
    /// newest first.
    pub fn describe_stacks(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        next_token: Option<&str>,
    ) -> Result<Page<StackRecord>, Error> {
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        if let Some(name) = stack_name {
            let entry = region
                .and_then(|r| r.find(name))
                .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?;
            return Ok(Page {
                items: vec![entry.record.clone()],
                next_token: None,
            });
        }
        let offset = store::page_offset(next_token)?;
        let all: Vec<&StackEntry> = region
            .map(|r| {
                r.stacks()
                    .values()
                    .rev()
                    .filter(|s| s.status() != StackStatus::DeleteComplete)
                    .collect()
            })
            .unwrap_or_default();
        let page = store::paginate(&all, offset, PAGE_SIZE);
        Ok(Page {
            items: page.items.iter().map(|s| s.record.clone()).collect(),
            next_token: page.next_token,
        })
    }

    /// DescribeStackEvents: the stack's events, newest first, 100 a page.
    pub fn describe_stack_events(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<StackEvents, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
        let total = entry.events().len();
        let start = offset.min(total);
        let end = (offset + PAGE_SIZE).min(total);
        let items: Vec<StackEventRecord> = entry.events()[..total - start]
            .iter()
            .rev()
            .take(end - start)
            .cloned()
            .collect();
        Ok(StackEvents {
            stack_id: entry.record.stack_id.clone(),
            stack_name: entry.record.stack_name.clone(),
            page: Page {
                items,
                next_token: (end < total).then(|| format!("cumulo-{end}")),
            },
        })
    }

    /// DescribeStackResource: one resource of a stack.
    pub fn describe_stack_resource(
        &self,
        scope: &Scope,
        stack_name: &str,
        logical_id: &str,
    ) -> Result<StackResourceView, Error> {
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        let resource = entry.resources().get(logical_id).ok_or_else(|| {
            Error::validation(format!(
                "Resource {logical_id} does not exist for stack {}",
                entry.record.stack_name
            ))
        })?;
        Ok(StackResourceView {
            stack_name: entry.record.stack_name.clone(),
            stack_id: entry.record.stack_id.clone(),
            resource: resource.clone(),
        })
    }

    /// DescribeStackResources: a stack's resources (optionally one logical id), or the stack
    /// owning a physical id.
    pub fn describe_stack_resources(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        logical_id: Option<&str>,
        physical_id: Option<&str>,
    ) -> Result<Vec<StackResourceView>, Error> {
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        let entry = match (stack_name, physical_id) {
            (Some(name), _) => region
                .and_then(|r| r.find(name))
                .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?,
            (None, Some(physical)) => region
                .and_then(|r| {
                    r.stacks().values().rev().find(|s| {
                        s.resources()
                            .values()
                            .any(|res| res.physical_id.as_ref().is_some_and(|p| p == physical))
                    })
                })
                .ok_or_else(|| Error::validation(format!("Stack for {physical} does not exist")))?,
            (None, None) => {
                return Err(Error::validation(
                    "Either StackName or PhysicalResourceId must be specified.",
                ))
            }
        };
        Ok(entry
            .resources()
            .values()
            .filter(|r| logical_id.is_none_or(|l| r.logical_id == l))
            .map(|r| StackResourceView {
                stack_name: entry.record.stack_name.clone(),
                stack_id: entry.record.stack_id.clone(),
                resource: r.clone(),
            })
            .collect())
    }

    /// ListStackResources: a stack's resources, 100 a page.
    pub fn list_stack_resources(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<ResourceRecord>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        let all: Vec<&ResourceRecord> = entry.resources().values().collect();
        let page = store::paginate(&all, offset, PAGE_SIZE);
        Ok(Page {
            items: page.items.into_iter().cloned().collect(),
            next_token: page.next_token,
        })
    }

    /// ListStacks: every stack (deleted ones too), newest first, filtered by status.
    pub fn list_stacks(
        &self,
        scope: &Scope,
        status_filter: &[String],
        next_token: Option<&str>,
    ) -> Result<Page<StackSummary>, Error> {
        let mut filter = Vec::new();
        for s in status_filter {
            let status = StackStatus::parse(s).ok_or_else(|| {
                Error::validation(format!(
                    "1 validation error detected: Value '[{s}]' at 'stackStatusFilter' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [{}]]",
                    StackStatus::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            filter.push(status);
        }
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let all: Vec<StackSummary> = state
            .region_ref(scope)
            .map(|r| {
                r.stacks()
                    .values()
                    .rev()
                    .filter(|s| filter.is_empty() || filter.contains(&s.status()))
                    .map(|s| StackSummary {
                        stack_id: s.record.stack_id.clone(),
                        stack_name: s.record.stack_name.clone(),
                        template_description: s.record.description.clone(),
                        creation_time: s.record.creation_time,
                        last_updated_time: s.record.last_updated_time,
                        deletion_time: s.record.deletion_time,
                        status: s.status(),
                        status_reason: s.record.status_reason().map(str::to_string),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }

    /// GetTemplate: a stack's (or change set's) template, Original (as sent: YAML stays YAML)
    /// or Processed (after AWS::LanguageExtensions, as JSON).
    pub fn get_template(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        change_set_name: Option<&str>,
        stage: Option<&str>,
    ) -> Result<TemplateOutput, Error> {
        let processed = match stage {
            None | Some("Original") => false,
            Some("Processed") => true,
            Some(other) => {
                return Err(Error::validation(format!(
                    "1 validation error detected: Value '{other}' at 'templateStage' failed to satisfy constraint: Member must satisfy enum value set: [Original, Processed]"
                )))
            }
        };
        let body = {
            let state = self.shared.lock();
            let region = state.region_ref(scope);
            match change_set_name {
                Some(cs_name) => {
                    let stack_id = match stack_name {
                        Some(n) => Some(
                            region
                                .and_then(|r| r.find_id(n))
                                .ok_or_else(|| Error::validation(stack_does_not_exist(n)))?
                                .to_string(),
                        ),
                        None => None,
                    };
                    if stack_id.is_none() && !cs_name.starts_with("arn:") {
                        return Err(Error::validation(
                            "StackName must be specified if ChangeSetName is not specified as an ARN.",
                        ));
                    }
                    region
                        .and_then(|r| r.find_change_set(cs_name, stack_id.as_deref()))
                        .ok_or_else(|| {
                            Error::ChangeSetNotFound(change_set_does_not_exist(cs_name))
                        })?
                        .record
                        .template_body
                        .clone()
                }
                None => {
                    let name = stack_name.ok_or_else(|| {
                        Error::validation(
                            "StackName is required if ChangeSetName is not specified.",
                        )
                    })?;
                    region
                        .and_then(|r| r.find(name))
                        .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?
                        .record
                        .template_body
                        .clone()
                }
            }
        };
        let body = if processed && !body.is_empty() {
            let template = self.parse(&body)?;
            serde_json::to_string(&template.processed()).unwrap_or(body)
        } else {
            body
        };
        Ok(TemplateOutput {
            body,
            stages_available: vec!["Original".into(), "Processed".into()],
        })
    }

    /// GetTemplateSummary of a template (body or URL) or of a stack's template.
    pub fn get_template_summary(
        &self,
        scope: &Scope,
        source: TemplateSource,
        stack_name: Option<&str>,
        stack_set_name: Option<&str>,
    ) -> Result<TemplateSummary, Error> {
        if stack_set_name.is_some() {
            return Err(Error::NotImplemented(
                "Cumulo does not implement stack sets".to_string(),
            ));
        }
        let given = [
            source.body.is_some(),
            source.url.is_some(),
            stack_name.is_some(),
        ]
        .iter()
        .filter(|g| **g)
        .count();
        if given != 1 {
            return Err(Error::validation(
                "Exactly one of TemplateBody, TemplateUrl, StackName or StackSetName must be specified.",
            ));
        }
        let template = match stack_name {
            Some(name) => {
                let state = self.shared.lock();
                let entry = state
                    .region_ref(scope)
                    .and_then(|r| r.find(name))
                    .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?;
                if entry.status() == StackStatus::ReviewInProgress {
                    return Err(Error::validation(
                        "GetTemplateSummary cannot be called on REVIEW_IN_PROGRESS stacks.",
                    ));
                }
                self.stack_template(entry)?
            }
            None => self.parse(&self.template_text(&source, None)?)?,
        };
        Ok(summarize(&template))
    }

    /// ValidateTemplate: parses and statically checks a template; answers its parameters,
    /// description, capabilities (with the reason) and declared transforms.
    pub fn validate_template(
        &self,
        scope: &Scope,
        source: TemplateSource,
    ) -> Result<TemplateSummary, Error> {
        let _ = scope;
        let body = self.template_text(&source, None)?;
        Ok(summarize(&self.parse(&body)?))
    }

    /// ListExports: every export of the region.
    pub fn list_exports(
        &self,
        scope: &Scope,
        next_token: Option<&str>,
    ) -> Result<Page<Export>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let all: Vec<Export> = state
            .region_ref(scope)
            .map(|r| r.exports().values().cloned().collect())
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }

    /// ListImports: names of the stacks importing an export.
    pub fn list_imports(
        &self,
        scope: &Scope,
        export_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<String>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        if region.is_none_or(|r| !r.exports().contains_key(export_name)) {
            return Err(Error::validation(format!(
                "Export '{export_name}' is not imported by any stack."
            )));
        }
        let importers = region
            .map(|r| r.importers(export_name, None))
            .unwrap_or_default();
        if importers.is_empty() {
            return Err(Error::validation(format!(
                "Export '{export_name}' is not imported by any stack."
            )));
        }
        Ok(store::paginate(&importers, offset, PAGE_SIZE))
    }
}

/// The IAM resource types that need a capability, and the property naming each (which makes
/// the capability CAPABILITY_NAMED_IAM).
const IAM_TYPES: &[(&str, &str)] = &[
    ("AWS::IAM::Role", "RoleName"),
    ("AWS::IAM::User", "UserName"),
    ("AWS::IAM::Group", "GroupName"),
    ("AWS::IAM::ManagedPolicy", "ManagedPolicyName"),
    ("AWS::IAM::InstanceProfile", "InstanceProfileName"),
    ("AWS::IAM::Policy", ""),
    ("AWS::IAM::AccessKey", ""),
    ("AWS::IAM::UserToGroupAddition", ""),
];

/// The capabilities a template needs whatever its parameters (ValidateTemplate,
/// GetTemplateSummary): CAPABILITY_IAM or CAPABILITY_NAMED_IAM for IAM resources,
/// CAPABILITY_AUTO_EXPAND for transforms; with the resource types (or transforms) that need
/// them, for `CapabilitiesReason`.
fn static_capabilities(template: &Template) -> (Vec<String>, Vec<String>) {
    let mut types: Vec<String> = Vec::new();
    let mut named = false;
    for decl in template.resources().values() {
        if let Some((t, name_property)) = IAM_TYPES.iter().find(|(t, _)| *t == decl.type_name) {
            if !types.iter().any(|x| x == t) {
                types.push(t.to_string());
            }
            named |= !name_property.is_empty() && decl.properties.get(*name_property).is_some();
        }
    }
    let mut caps = Vec::new();
    if !types.is_empty() {
        caps.push(
            if named {
                "CAPABILITY_NAMED_IAM"
            } else {
                "CAPABILITY_IAM"
            }
            .to_string(),
        );
    }
    if !template.transforms().is_empty() {
        caps.push("CAPABILITY_AUTO_EXPAND".to_string());
        if types.is_empty() {
            types = template.transforms().to_vec();
        }
    }
    (caps, types)
}

/// GetTemplateSummary / ValidateTemplate of a parsed template.
fn summarize(template: &Template) -> TemplateSummary {
    let mut types: Vec<String> = Vec::new();
    let mut by_type: IndexMap<String, Vec<String>> = IndexMap::new();
    for decl in template.resources().values() {
        if !types.contains(&decl.type_name) {
            types.push(decl.type_name.clone());
        }
        by_type
            .entry(decl.type_name.clone())
            .or_default()
            .push(decl.logical_id.clone());
    }
    let (capabilities, reasons) = static_capabilities(template);
    let capabilities_reason = (!capabilities.is_empty()).then(|| {
        format!(
            "The following resource(s) require capabilities: [{}]",
            reasons.join(", ")
        )
    });
    TemplateSummary {
        parameters: template
            .parameters()
            .iter()
            .map(|(key, p)| ParameterDeclaration {
                key: key.clone(),
                default_value: p.default.clone(),
                parameter_type: p.type_name.clone(),
                no_echo: p.no_echo,
                description: p.description.clone(),
                allowed_values: p.allowed_values.clone().unwrap_or_default(),
            })
            .collect(),
        description: template.description().map(str::to_string),
        capabilities,
        capabilities_reason,
        resource_types: types,
        version: template
            .document()
            .get("AWSTemplateFormatVersion")
            .and_then(Value::as_str)
            .map(str::to_string),
        metadata: template.metadata().map(|m| m.to_string()),
        declared_transforms: template.transforms().to_vec(),
        resource_identifier_summaries: by_type
            .into_iter()
            .filter_map(|(kind, ids)| {
                let info = registry::resource_type(&kind)?;
                let identifiers: Vec<String> = info
                    .primary_identifier
                    .iter()
                    .map(|p| p.strip_prefix("/properties/").unwrap_or(p).to_string())
                    .collect();
                Some((kind, ids, identifiers))
            })
            .collect(),
    }
}
