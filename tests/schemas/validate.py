#!/usr/bin/env python3
"""Every command's --format=json output validates against its schema in docs/schemas/.

Runs the real binary on shipped samples (one instance and several, the host, an accelerator and
a target under emulation where it matters, a check that fails) and validates each document with
Debian's python3-jsonschema (draft 2020-12). Also checks that each schema rejects a document
with its version changed, so that a schema that accepts anything fails the test.

usage: validate.py ISAMAP SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

isamap, source = sys.argv[1], sys.argv[2]
samples = os.path.join(source, "samples")
schemas = os.path.join(source, "docs", "schemas")
scratch = tempfile.mkdtemp(prefix="isamap-schemas-")
gemm = os.path.join(samples, "gemm.isam")
broken = os.path.join(scratch, "broken.isam")
with open(broken, "w") as f:
    f.write("kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i] + C[i];\n}\ninstance x = k<4>;\n")

# (schema, arguments, expected exit code)
runs = [
    ("check", ["check", broken], 1),
    ("check", ["check", gemm], 0),
    ("map", ["map", gemm, "--instance", "gemm_small", "-t", "x86_avx512"], 0),
    ("map", ["map", broken, "-t", "host"], 1),  # diagnostics only: not a map document
    ("schedule", ["schedule", gemm, "--instance", "gemm_small", "-t", "host", "--check"], 0),
    ("schedule", ["schedule", os.path.join(samples, "mlp.isam"), "-t", "systolic16"], 0),
    ("run", ["run", gemm, "--instance", "gemm_small", "--interpret"], 0),
    ("run", ["run", gemm, "--instance", "gemm_small", "-t", "host", "--check"], 0),
    ("run", ["run", gemm, "--instance", "gemm_small", "-t", "systolic16", "--check"], 0),
    ("run", ["run", os.path.join(samples, "lstm.isam"), "--kernel", "lstm_cell", "-D", "B=2",
             "-D", "I=3", "-D", "H=4", "--interpret"], 0),  # two outputs
    ("run", ["run", os.path.join(samples, "conv2d.isam"), "--interpret", "--instance",
             "conv_small"], 0),
    ("tune", ["tune", gemm, "--instance", "gemm_small", "-t", "host", "--trials", "2",
              "--db", os.path.join(scratch, "db.json")], 0),
    ("targets", ["targets"], 0),
    ("compile", ["compile", gemm, "--instance", "gemm_small", "-t", "host", "--emit=obj", "-o",
                 os.path.join(scratch, "g.o")], 0),
    ("dump-ir", ["dump-ir", gemm, "--instance", "gemm_small"], 0),
]

failures = 0
for schema_name, args, want in runs:
    with open(os.path.join(schemas, schema_name + ".schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    command = [isamap] + args + ["--format=json"]
    done = subprocess.run(command, capture_output=True, text=True)
    label = " ".join(args[:2])
    if done.returncode != want:
        print(f"FAIL {label}: exit {done.returncode}, expected {want}\n{done.stderr}")
        failures += 1
        continue
    document = json.loads(done.stdout)
    # A command that stops on errors in its input prints the diagnostics document.
    if want == 1 and schema_name != "check":
        schema_name = "check"
        with open(os.path.join(schemas, "check.schema.json")) as f:
            schema = json.load(f)
    try:
        jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as e:
        print(f"FAIL {label}: {e.message} at {list(e.absolute_path)}")
        failures += 1
        continue
    wrong = dict(document, version=2)
    if jsonschema.Draft202012Validator(schema).is_valid(wrong):
        print(f"FAIL {label}: the {schema_name} schema accepts version 2")
        failures += 1
        continue
    print(f"ok   {label} ({schema_name})")

shutil.rmtree(scratch, ignore_errors=True)
print(f"{len(runs) - failures} of {len(runs)} documents valid")
sys.exit(1 if failures else 0)
