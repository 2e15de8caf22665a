#!/usr/bin/env python3
"""Validates foldline JSON documents against the JSON Schema `foldline schema`
prints (draft 2020-12, with Debian's python3-jsonschema).

usage: validate_json.py SCHEMA DEF FILE...
  DEF is the document kind: record, summary, sweep, diff, card (a $defs name).
Prints one line per invalid file (the first errors, with their JSON path)
and exits 1 when any is invalid; 0 when all are valid.
"""
import json
import sys

import jsonschema


def main():
    schema_path, kind, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    if kind not in schema["$defs"]:
        print("no document kind %r in the schema" % kind)
        return 2
    # The schema itself, narrowed to one kind of document (its $defs stay
    # reachable as #/$defs/...).
    one = dict(schema)
    del one["anyOf"]
    one["$ref"] = "#/$defs/" + kind
    validator = jsonschema.Draft202012Validator(one)
    whole = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors and not whole.is_valid(doc):
            errors = list(whole.iter_errors(doc))
        if errors:
            bad += 1
            for e in errors[:3]:
                where = "/".join(str(p) for p in e.absolute_path)
                print("%s: %s: %s" % (path, where or "(document)", e.message[:300]))
    print("%d of %d %s document(s) valid" % (len(files) - bad, len(files), kind))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
