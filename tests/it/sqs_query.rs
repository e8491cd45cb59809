//! SQS's older protocol, awsQuery, spoken by a real client: boto3 1.28.80 / botocore 1.31.80,
//! the last botocore whose SQS model is `"protocol": "query"` (`scripts/test` installs it into
//! `.venv-query`). botocore checks every MD5 SQS answers, parses the XML with the model's
//! flattened shapes and maps the query error codes to its modeled exceptions, so this drives
//! the decode and encode of every operation the JSON tests cover.

use std::path::PathBuf;
use std::process::Command;

use crate::support::Emulator;

/// The python of the query-protocol botocore (`CUMULO_QUERY_PYTHON`, else `.venv-query`).
fn query_python() -> PathBuf {
    let path = std::env::var_os("CUMULO_QUERY_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv-query/bin/python")
        });
    assert!(
        path.is_file(),
        "no query-protocol botocore at {}: run ./scripts/test (it installs boto3==1.28.80 into .venv-query) or set CUMULO_QUERY_PYTHON",
        path.display()
    );
    path
}

async fn run(emu: &Emulator, script: &str) -> String {
    let (python, endpoint, script) = (query_python(), emu.endpoint.clone(), script.to_string());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(&python)
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", std::env::var_os("HOME").unwrap_or_default())
            .env("AWS_ENDPOINT_URL", &endpoint)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_CONFIG_FILE", "/dev/null")
            .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
            .env("AWS_MAX_ATTEMPTS", "1")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("PYTHONWARNINGS", "ignore")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .expect("run python")
    })
    .await
    .expect("python ran");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "the query-protocol client failed:\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

#[tokio::test]
async fn an_older_botocore_speaks_the_query_protocol_end_to_end() {
    let emu = Emulator::start().await;
    let out = run(
        &emu,
        r#"
import boto3, botocore
assert botocore.__version__ == "1.31.80", botocore.__version__
sqs = boto3.client("sqs")
assert sqs.meta.service_model.protocol == "query"
url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "45"}, tags={"team": "a"})["QueueUrl"]
print("url", url.endswith("/000000000000/jobs"))
print("same", sqs.get_queue_url(QueueName="jobs")["QueueUrl"] == url)
attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
print("attrs", attrs["VisibilityTimeout"], attrs["QueueArn"])
sqs.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "0", "MaximumMessageSize": "2048"})
print("set", sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MaximumMessageSize"])["Attributes"])
sent = sqs.send_message(QueueUrl=url, MessageBody="hello <&> world", MessageAttributes={
    "s": {"DataType": "String", "StringValue": "v"},
    "b": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
    "n": {"DataType": "Number", "StringValue": "7"}})
print("sent", sorted(sent))
batch = sqs.send_message_batch(QueueUrl=url, Entries=[
    {"Id": "one", "MessageBody": "b1"},
    {"Id": "two", "MessageBody": "b2", "MessageAttributes": {"k": {"DataType": "String", "StringValue": "x"}}},
    {"Id": "bad", "MessageBody": "b3", "DelaySeconds": 901}])
print("batch", sorted(e["Id"] for e in batch["Successful"]), [(f["Id"], f["Code"], f["SenderFault"]) for f in batch.get("Failed", [])])
got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], MessageAttributeNames=["All"])["Messages"]
first = [m for m in got if m["Body"].startswith("hello")][0]
print("received", len(got), first["Body"], sorted(first["MessageAttributes"]), first["MessageAttributes"]["b"]["BinaryValue"], first["Attributes"]["ApproximateReceiveCount"])
sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
vis = sqs.change_message_visibility_batch(QueueUrl=url, Entries=[{"Id": "v", "ReceiptHandle": got[1]["ReceiptHandle"], "VisibilityTimeout": 0}])
print("visibility", [e["Id"] for e in vis["Successful"]])
deleted = sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": f"d{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)] + [{"Id": "gone", "ReceiptHandle": "nope"}])
print("deleted", sorted(e["Id"] for e in deleted["Successful"]), [(f["Id"], f["Code"]) for f in deleted["Failed"]])
again = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
print("empty", "Messages" not in again)
sqs.send_message(QueueUrl=url, MessageBody="last")
m = sqs.receive_message(QueueUrl=url)["Messages"][0]
sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
sqs.tag_queue(QueueUrl=url, Tags={"env": "test"})
sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
print("tags", sqs.list_queue_tags(QueueUrl=url)["Tags"])
dlq = sqs.create_queue(QueueName="jobs-dlq")["QueueUrl"]
print("list", [u.rsplit("/", 1)[1] for u in sqs.list_queues(QueueNamePrefix="jobs")["QueueUrls"]])
sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": '{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:jobs-dlq","maxReceiveCount":"3"}'})
print("sources", sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [url], sqs.list_dead_letter_source_queues(QueueUrl=url).get("queueUrls", []))
sqs.purge_queue(QueueUrl=url)
for call in (lambda: sqs.get_queue_url(QueueName="missing"),
             lambda: sqs.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=901),
             lambda: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Bogus"])):
    try:
        call()
        print("no error")
    except sqs.exceptions.QueueDoesNotExist as e:
        print("QueueDoesNotExist", e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"])
    except botocore.exceptions.ClientError as e:
        print("error", e.response["Error"]["Code"], e.response["Error"]["Type"])
sqs.delete_queue(QueueUrl=url)
try:
    sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
except sqs.exceptions.QueueDoesNotExist:
    print("deleted queue is gone")
"#,
    )
    .await;
    let expected = "url True
same True
attrs 45 arn:aws:sqs:us-east-1:000000000000:jobs
set {'MaximumMessageSize': '2048'}
sent ['MD5OfMessageAttributes', 'MD5OfMessageBody', 'MessageId', 'ResponseMetadata']
batch ['one', 'two'] [('bad', 'InvalidParameterValue', True)]
received 3 hello <&> world ['b', 'n', 's'] b'\\x00\\x01' 1
visibility ['v']
deleted ['d0', 'd1', 'd2'] [('gone', 'ReceiptHandleIsInvalid')]
empty True
tags {'env': 'test'}
list ['jobs', 'jobs-dlq']
sources True []
QueueDoesNotExist AWS.SimpleQueueService.NonExistentQueue 400
error InvalidParameterValue Sender
error InvalidAttributeName Sender
deleted queue is gone
";
    assert_eq!(out, expected);
}
