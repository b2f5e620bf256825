#!/usr/bin/env python3
"""`isamap check --format=sarif` writes logs that the SARIF 2.1.0 schema accepts.

The published schema is not packaged by Debian, but its object model is: the Go package
golang-github-haya14busa-go-sarif-dev is generated from the published schema by quicktype, one
struct per schema definition with its properties' JSON names and types, `omitempty` on the
optional ones and one string type per enumeration. This script turns those structs back into a
JSON Schema (every object closed to unknown properties, as the published schema's are, except
property bags), then validates the logs of `check` on files with errors, notes, fix-its, several
files, a clean file and a `--require-instructions` failure. Two tampered logs (a misspelt
property, an unknown level) must be rejected, so that a schema which accepts anything fails.

What quicktype drops is not checked here: numeric minimums, uniqueness, URI formats. The
CheckCli tests check the regions' 1-based numbers and the rule indices.

usage: sarif.py ISAMAP [SARIF_GO]
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema

isamap = sys.argv[1]
model = sys.argv[2] if len(sys.argv) > 2 else \
    "/usr/share/gocode/src/github.com/haya14busa/go-sarif/sarif/sarif.go"
if not os.path.exists(model):
    print(f"FAIL: {model} is missing: install golang-github-haya14busa-go-sarif-dev "
          "(scripts/install-deps.sh)")
    sys.exit(1)

SCALARS = {"string": {"type": "string"}, "int64": {"type": "integer"},
           "float64": {"type": "number"}, "bool": {"type": "boolean"}}


def go_type(name):
    """The JSON Schema of a Go field type as quicktype writes them."""
    name = name.lstrip("*")
    if name.startswith("[]"):
        return {"type": "array", "items": go_type(name[2:])}
    if name.startswith("map[string]"):
        return {"type": "object", "additionalProperties": go_type(name[len("map[string]"):])}
    if name in SCALARS:
        return SCALARS[name]
    if not re.fullmatch(r"[A-Z]\w*", name):
        raise ValueError(f"unexpected Go type {name!r} in {model}")
    return {"$ref": f"#/$defs/{name}"}


def schema_from_go(text):
    defs = {}
    for name, body in re.findall(r"^type (\w+) struct \{\n(.*?)^\}", text, re.M | re.S):
        properties, required = {}, []
        for field_type, tag in re.findall(r"^\t\w+\s+(\S+)\s+`json:\"([^\"]+)\"`", body, re.M):
            json_name, *flags = tag.split(",")
            properties[json_name] = go_type(field_type)
            if "omitempty" not in flags:
                required.append(json_name)
        defs[name] = {"type": "object", "properties": properties, "required": required,
                      "additionalProperties": name == "PropertyBag"}
    enums = {}
    for value_type, value in re.findall(r"^\t\w+ (\w+) = \"([^\"]*)\"$", text, re.M):
        enums.setdefault(value_type, []).append(value)
    for name in re.findall(r"^type (\w+) string$", text, re.M):
        defs[name] = {"type": "string", "enum": enums[name]}
    if "Sarif" not in defs or "Result" not in defs or "Level" not in defs:
        raise ValueError(f"{model} does not hold the SARIF object model")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": "#/$defs/Sarif", "$defs": defs}


with open(model) as f:
    schema = schema_from_go(f.read())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

scratch = tempfile.mkdtemp(prefix="isamap-sarif-")


def source(name, text):
    path = os.path.join(scratch, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# An unknown function (suggestion), a misspelt schedule item (a fix-it), an unknown tensor.
fixable = source("fixable.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N], C: f32[N]) {\n"
                 "  B[i] = rlu(A[i]);\n  schedule { paralel: i; }\n  C[i] = A[i] + D[i];\n}\n")
# A redefinition: the error has a note at the first definition (a related location).
noted = source("noted.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n"
               "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n")
clean = source("clean.isam", "kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n")
scalar = source("scalar.isam", "kernel expo<N>(X: f32[N]) -> (Y: f32[N]) {\n"
                "  Y[i] = floor(X[i]);\n}\ninstance f = expo<37>;\n")

# (label, arguments, expected exit code, a property every log of the kind must show)
runs = [
    ("errors and fix-its", [fixable], 1, "fixes"),
    ("notes", [noted], 1, "relatedLocations"),
    ("several files", [fixable, noted, clean], 1, "relatedLocations"),
    ("clean", [clean], 0, None),
    ("--require-instructions", ["--target", "x86_avx512", "--require-instructions", scalar], 1,
     "locations"),
]

failures = 0
logs = []
for label, args, want, shows in runs:
    done = subprocess.run([isamap, "check", "--format=sarif"] + args, capture_output=True,
                          text=True)
    if done.returncode != want:
        print(f"FAIL {label}: exit {done.returncode}, expected {want}\n{done.stderr}")
        failures += 1
        continue
    log = json.loads(done.stdout)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    if errors:
        for e in errors[:5]:
            print(f"FAIL {label}: {e.message} at {list(e.absolute_path)}")
        failures += 1
        continue
    if shows and shows not in json.dumps(log):
        print(f"FAIL {label}: the log shows no {shows}, so this run checks less than it says")
        failures += 1
        continue
    logs.append(log)
    print(f"ok   {label}")

# The derived schema must reject what the published one rejects.
if logs:
    misspelt = copy.deepcopy(logs[0])
    result = misspelt["runs"][0]["results"][0]
    result["ruleID"] = result.pop("ruleId")
    wrong_level = copy.deepcopy(logs[0])
    wrong_level["runs"][0]["results"][0]["level"] = "fatal"
    for label, log in [("a misspelt property", misspelt), ("an unknown level", wrong_level)]:
        if validator.is_valid(log):
            print(f"FAIL: the schema accepts a log with {label}")
            failures += 1

print(f"{len(runs) - failures} of {len(runs)} logs valid")
sys.exit(1 if failures else 0)
