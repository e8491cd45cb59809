//! The CloudFormation wire against AWS's recorded answers (`../shared/reference/fixtures/
//! cfn_xml/`): every operation with a fixture is called over HTTP with a raw awsQuery form,
//! and the elements of the answer must appear in the fixture, in the fixture's order (a member
//! the fixture has may be absent from ours, as AWS leaves out absent optional members; nothing
//! may be added or reordered). Result elements of empty outputs and bare responses included.

use std::collections::BTreeMap;
use std::path::PathBuf;

use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::json;

use crate::fixtures::{Form, Stacks};
use crate::support::Emulator;

/// The fixtures directory, or None (with a note) when this checkout has no shared reference
/// beside it; `CUMULO_REQUIRE_CORPUS=1` (CI) makes its absence a failure.
fn fixtures() -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/fixtures/cfn_xml");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CUMULO_REQUIRE_CORPUS").is_none(),
        "CUMULO_REQUIRE_CORPUS is set but {} is absent",
        dir.display()
    );
    eprintln!("skipping: {} is absent", dir.display());
    None
}

/// An XML element: its name and children (text ignored).
struct Element {
    name: String,
    children: Vec<Element>,
}

fn parse(xml: &str) -> Element {
    let mut reader = Reader::from_str(xml);
    let mut stack = vec![Element {
        name: String::new(),
        children: Vec::new(),
    }];
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => stack.push(Element {
                name: String::from_utf8_lossy(e.name().as_ref()).into_owned(),
                children: Vec::new(),
            }),
            Ok(Event::Empty(e)) => {
                let leaf = Element {
                    name: String::from_utf8_lossy(e.name().as_ref()).into_owned(),
                    children: Vec::new(),
                };
                stack.last_mut().expect("parent").children.push(leaf);
            }
            Ok(Event::End(_)) => {
                let done = stack.pop().expect("element");
                stack.last_mut().expect("parent").children.push(done);
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not XML ({e}): {xml}"),
        }
    }
    stack.pop().expect("document")
}

/// The child names of an element, repeated `member`s read as one.
fn child_names(e: &Element) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in &e.children {
        if names.last() != Some(&c.name) {
            names.push(c.name.clone());
        }
    }
    names
}

/// Per element path, the order of its children over every instance (an instance's child
/// missing from the order so far goes after its predecessor).
fn orders(e: &Element, path: &str, out: &mut BTreeMap<String, Vec<String>>) {
    let order = out.entry(path.to_string()).or_default();
    let mut after: Option<usize> = None;
    for name in child_names(e) {
        match order.iter().position(|n| *n == name) {
            Some(i) => after = Some(i),
            None => {
                let at = after.map_or(0, |i| i + 1);
                order.insert(at, name);
                after = Some(at);
            }
        }
    }
    for c in &e.children {
        orders(c, &format!("{path}/{}", c.name), out);
    }
}

/// Every element of `ours` is in the fixture's order for its path (`theirs`).
fn fits(ours: &Element, path: &str, theirs: &BTreeMap<String, Vec<String>>) -> Result<(), String> {
    let order = theirs
        .get(path)
        .ok_or_else(|| format!("{path} is not in the fixture"))?;
    let mut at = 0;
    for name in child_names(ours) {
        match order[at..].iter().position(|t| *t == name) {
            Some(i) => at += i + 1,
            None if order.contains(&name) => {
                return Err(format!("{path}/{name} is out of the fixture's order"))
            }
            None => return Err(format!("{path}/{name} is not in the fixture")),
        }
    }
    for c in &ours.children {
        fits(c, &format!("{path}/{}", c.name), theirs)?;
    }
    Ok(())
}

/// Whether our answer `ours` has the shape of the fixture `theirs`.
fn same_shape(ours: &str, theirs: &str) -> Result<(), String> {
    let mut order = BTreeMap::new();
    orders(&parse(theirs), "", &mut order);
    fits(&parse(ours), "", &order)
}

/// A template with a parameter, a NoEcho parameter, an exported output and a queue whose
/// VisibilityTimeout changes in place.
const TEMPLATE: &str = include_str!("../templates/cfn_wire.yaml");
/// A stack importing the export of `TEMPLATE`'s stack.
const IMPORTER: &str = include_str!("../templates/cfn_wire_importer.yaml");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_fixtures_shape() {
    let Some(dir) = fixtures() else { return };
    let emu = Emulator::start().await;
    let stacks = Stacks::new(&emu).await;
    let body = TEMPLATE.to_string();
    let form = Form::new(&emu);
    let mut answers: BTreeMap<&str, String> = BTreeMap::new();
    answers.insert(
        "ValidateTemplate",
        form.ok("ValidateTemplate", &[("TemplateBody", &body)])
            .await,
    );
    answers.insert(
        "CreateStack",
        form.ok(
            "CreateStack",
            &[
                ("StackName", "my-stack"),
                ("TemplateBody", &body),
                ("Parameters.member.1.ParameterKey", "Env"),
                ("Parameters.member.1.ParameterValue", "dev"),
                ("Tags.member.1.Key", "team"),
                ("Tags.member.1.Value", "a"),
            ],
        )
        .await,
    );
    for (op, args) in [
        ("DescribeStacks", vec![("StackName", "my-stack")]),
        ("DescribeStackEvents", vec![("StackName", "my-stack")]),
        (
            "DescribeStackResource",
            vec![("StackName", "my-stack"), ("LogicalResourceId", "Queue")],
        ),
        ("DescribeStackResources", vec![("StackName", "my-stack")]),
        ("ListStackResources", vec![("StackName", "my-stack")]),
        ("ListStacks", vec![]),
        ("GetTemplate", vec![("StackName", "my-stack")]),
        ("GetTemplateSummary", vec![("StackName", "my-stack")]),
        ("ListExports", vec![]),
    ] {
        answers.insert(op, form.ok(op, &args).await);
    }
    stacks.create("importer", IMPORTER, &[]).await;
    answers.insert(
        "ListImports",
        form.ok("ListImports", &[("ExportName", "my-stack-QueueUrl")])
            .await,
    );
    let changed = body.replace("VisibilityTimeout: 30", "VisibilityTimeout: 31");
    answers.insert(
        "CreateChangeSet",
        form.ok(
            "CreateChangeSet",
            &[
                ("StackName", "my-stack"),
                ("ChangeSetName", "cs"),
                ("TemplateBody", &changed),
                ("Parameters.member.1.ParameterKey", "Env"),
                ("Parameters.member.1.UsePreviousValue", "true"),
            ],
        )
        .await,
    );
    for (op, args) in [
        (
            "DescribeChangeSet",
            vec![("StackName", "my-stack"), ("ChangeSetName", "cs")],
        ),
        ("ListChangeSets", vec![("StackName", "my-stack")]),
        (
            "ExecuteChangeSet",
            vec![("StackName", "my-stack"), ("ChangeSetName", "cs")],
        ),
        (
            "DeleteChangeSet",
            vec![("StackName", "my-stack"), ("ChangeSetName", "cs")],
        ),
    ] {
        answers.insert(op, form.ok(op, &args).await);
    }
    // UpdateStack fails in place and its restore fails: UPDATE_ROLLBACK_FAILED, then
    // ContinueUpdateRollback.
    stacks
        .fault(json!({"stack_name": "my-stack", "logical_id": "Queue", "operation": "update", "message": "no"}))
        .await;
    stacks
        .fault(json!({"stack_name": "my-stack", "logical_id": "Queue", "operation": "restore", "message": "no"}))
        .await;
    let back = body.replace("VisibilityTimeout: 30", "VisibilityTimeout: 32");
    answers.insert(
        "UpdateStack",
        form.ok(
            "UpdateStack",
            &[
                ("StackName", "my-stack"),
                ("TemplateBody", &back),
                ("Parameters.member.1.ParameterKey", "Env"),
                ("Parameters.member.1.UsePreviousValue", "true"),
            ],
        )
        .await,
    );
    answers.insert(
        "ContinueUpdateRollback",
        form.ok("ContinueUpdateRollback", &[("StackName", "my-stack")])
            .await,
    );
    // An update held by a fault, cancelled.
    stacks
        .fault(json!({"stack_name": "my-stack", "logical_id": "Queue", "operation": "update", "hold_seconds": 30}))
        .await;
    form.ok(
        "UpdateStack",
        &[
            ("StackName", "my-stack"),
            ("TemplateBody", &back),
            ("Parameters.member.1.ParameterKey", "Env"),
            ("Parameters.member.1.UsePreviousValue", "true"),
        ],
    )
    .await;
    answers.insert(
        "CancelUpdateStack",
        form.ok("CancelUpdateStack", &[("StackName", "my-stack")])
            .await,
    );
    stacks.delete("importer").await;
    answers.insert(
        "DeleteStack",
        form.ok("DeleteStack", &[("StackName", "my-stack")]).await,
    );
    let mut problems = Vec::new();
    for (op, ours) in &answers {
        let path = dir.join(format!("{op}.xml"));
        let mut fixture = std::fs::read_to_string(&path).expect("read fixture");
        if *op == "GetTemplateSummary" {
            // The example leaves out DeclaredTransforms, which the model places before
            // ResourceIdentifierSummaries (aws-contract.md §2.5) and ValidateTemplate's
            // fixture shows empty.
            fixture = fixture.replace(
                "<ResourceIdentifierSummaries>",
                "<DeclaredTransforms/><ResourceIdentifierSummaries>",
            );
        }
        if let Err(e) = same_shape(ours, &fixture) {
            problems.push(format!("{op}: {e}\n  ours: {ours}"));
        }
    }
    let mut missing: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            let op = name.strip_suffix(".xml")?.to_string();
            (!answers.contains_key(op.as_str())).then_some(op)
        })
        .collect();
    missing.sort();
    assert!(missing.is_empty(), "fixtures without a check: {missing:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
