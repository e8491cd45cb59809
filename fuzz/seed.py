#!/usr/bin/env python3
"""Builds fuzz/corpus/<target>/ (not committed) from what the repository and ../shared hold:

- template: templates/*, the shared template corpus (../shared/corpus), the SAM translator's
  inputs (../shared/sam/input) and benches/templates;
- wire: the recorded wire requests (../shared/reference/fixtures/wire/*.log) rewritten into the
  wire target's format (`METHOD TARGET`, headers, empty line, body);
- every target: the small seed set committed in fuzz/seeds/<target>/.

    python3 fuzz/seed.py            # idempotent; files are named by content hash
"""

import glob
import hashlib
import json
import os
import urllib.parse

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
TARGETS = ["template", "schedule_expression", "sns_filter_policy", "wire"]
SIGNED = "AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/{}/aws4_request, SignedHeaders=host, Signature=0"


def put(target: str, data: bytes) -> None:
    out = os.path.join(FUZZ, "corpus", target)
    os.makedirs(out, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def templates() -> int:
    n = 0
    patterns = [os.path.join(ROOT, "templates", "*"), os.path.join(ROOT, "benches", "templates", "*"),
                os.path.join(SHARED, "corpus", "**", "*.yaml"), os.path.join(SHARED, "corpus", "**", "*.yml"),
                os.path.join(SHARED, "corpus", "**", "*.json"), os.path.join(SHARED, "sam", "input", "*")]
    for pattern in patterns:
        for path in glob.glob(pattern, recursive=True):
            if os.path.isfile(path) and os.path.getsize(path) < 64 * 1024:
                with open(path, "rb") as f:
                    put("template", f.read())
                n += 1
    return n


def wire_requests() -> int:
    n = 0
    for path in glob.glob(os.path.join(SHARED, "reference", "fixtures", "wire", "*.log")):
        with open(path, encoding="utf-8", errors="replace") as f:
            blocks = f.read().split("=== ")[1:]
        for block in blocks:
            lines = block.split("\n")
            method_target = lines[0].strip()
            headers, body = [], b""
            for line in lines[1:]:
                if line.startswith("BODY: "):
                    body = line[6:].encode()
                elif line.startswith("FORM: "):
                    try:
                        body = urllib.parse.urlencode(json.loads(line[6:])).encode()
                    except (ValueError, TypeError):
                        body = b""
                elif ":" in line:
                    headers.append(line.strip())
            service = "cloudformation"
            if "schedule" in method_target or "/tags/" in method_target:
                service = "scheduler"
            elif "s3" in os.path.basename(path) and "Action" not in body.decode(errors="replace"):
                service = "s3"
            headers.append("Authorization: " + SIGNED.format(service))
            head = "\n".join([method_target] + headers)
            put("wire", head.encode() + b"\n\n" + body)
            n += 1
    return n


def committed() -> int:
    n = 0
    for target in TARGETS:
        for path in glob.glob(os.path.join(FUZZ, "seeds", target, "*")):
            with open(path, "rb") as f:
                put(target, f.read())
            n += 1
    return n


if __name__ == "__main__":
    print(f"templates: {templates()}, wire requests: {wire_requests()}, committed seeds: {committed()}")
