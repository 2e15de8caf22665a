#!/usr/bin/env python3
"""The registry's ai.onnx rows against ONNX's own operator schemas (CTest
`onnx_schemas`), read from the onnx Python package (Debian's python3-onnx).

A row (src/ops/**/*.def) states the input counts the ONNX importer accepts,
min_inputs..max_inputs (max -1: any), and marks FL_OPF_OPTIONAL_IN(i) the
inputs below min_inputs that may be absent (an empty name); the importer
refuses every other empty name below min_inputs (src/import/onnx.c). For
each opset the importer models that the package defines (7 up to the
package's newest), the schema in force at that opset must fit the row:

1. The row accepts every count the schema does: min_inputs <= the schema's
   minimum, and max_inputs is -1 or >= its maximum (a variadic schema needs
   -1). A row narrower than the schema refuses valid nodes.
2. Every input below min_inputs that the schema declares optional is marked.
3. Every marked input is optional or variadic in the schema at some modelled
   opset, and lies below min_inputs (past it every input may be absent
   already).

Rows wider than every schema the package knows are not failures: opsets
past the package's newest changed some operators (ReduceMean's axes became
an input in opset 18, Pad gained axes), and the rows cover those too. Rows
of operators the package does not define are listed as unchecked. With
--changelog, ONNX's docs/Changelog.md (a checkout of the onnx repository)
supplies the schemas instead, every opset up to the importer's newest.

Exit 0 when every checked row fits, 1 otherwise, 77 when the onnx package is
missing (the test is then skipped, visibly).

Usage: check_onnx_schemas.py SOURCE_DIR [--changelog PATH]
"""
import glob
import os
import re
import sys

ROW = re.compile(r'FL_OP\((\w+),\s*"onnx::(\w+)",\s*\w+,\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),'
                 r'\s*([^,]+?),\s*\w+\)')
FIRST_OPSET = 7  # older opsets are read with opset 7's definitions (onnx.c)


class Schema:
    """One version of an operator: since_version, input counts (max None:
    any), and per formal input whether it is optional / variadic."""

    def __init__(self, since, min_in, max_in, optional, variadic, deprecated=False):
        self.since, self.min_in, self.max_in = since, min_in, max_in
        self.optional, self.variadic, self.deprecated = optional, variadic, deprecated


def read_rows(src):
    rows = {}
    for path in sorted(glob.glob(os.path.join(src, "src", "ops", "**", "*.def"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in ROW.finditer(text):
            marks = {int(x) for x in re.findall(r"FL_OPF_OPTIONAL_IN\((\d+)\)", m.group(6))}
            rows[m.group(2)] = (int(m.group(3)), int(m.group(4)), marks,
                                os.path.relpath(path, src))
    return rows


def max_opset(src):
    with open(os.path.join(src, "src", "import", "onnx.c"), encoding="utf-8") as f:
        m = re.search(r"#define FL_ONNX_MAX_OPSET (\d+)", f.read())
    return int(m.group(1))


def schemas_from_package():
    try:
        from onnx import defs
    except ImportError:
        return None, 0
    opt = defs.OpSchema.FormalParameterOption
    out = {}
    for s in defs.get_all_schemas_with_history():
        if s.domain not in ("", "ai.onnx"):
            continue
        max_in = None if s.max_input >= 2**31 - 1 else s.max_input
        optional = [fi.option == opt.Optional for fi in s.inputs]
        variadic = [fi.option == opt.Variadic for fi in s.inputs]
        out.setdefault(s.name, []).append(
            Schema(s.since_version, s.min_input, max_in, optional, variadic, s.deprecated))
    return out, defs.onnx_opset_version()


def schemas_from_changelog(path):
    """The ai.onnx sections of Changelog.md: '### <a name="Op-N"></a>**Op-N**'
    headings, '#### Inputs (a - b)' (or '#### Inputs' for a fixed count), and
    one '<dt><tt>name</tt> (optional|variadic...) : T</dt>' line per input."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.split("# ai.onnx.preview.training", 1)[0].split("# ai.onnx.ml", 1)[0]
    out = {}
    parts = re.split(r'^### <a name="([A-Za-z0-9_]+)-(\d+)"></a>', text, flags=re.M)
    for name, since, body in zip(parts[1::3], parts[2::3], parts[3::3]):
        m = re.search(r"^#### Inputs(?: \((\d+) - (\d+|&#8734;)\))?\s*$(.*?)(?=^####|\Z)", body,
                      flags=re.M | re.S)
        optional, variadic = [], []
        if m:
            for dt in re.findall(r"<dt><tt>[^<]*</tt>([^:]*):", m.group(3)):
                optional.append("optional" in dt)
                variadic.append("variadic" in dt)
        if m and m.group(1):
            min_in = int(m.group(1))
            max_in = None if m.group(2) == "&#8734;" else int(m.group(2))
        else:
            min_in = max_in = len(optional)
        deprecated = "This version of the operator has been deprecated" in body
        out.setdefault(name, []).append(
            Schema(int(since), min_in, max_in, optional, variadic, deprecated))
    return out


def in_force(versions, opset):
    best = None
    for s in versions:
        if s.since <= opset and (best is None or s.since > best.since):
            best = s
    return best


def check(rows, schemas, last_opset):
    errors, unchecked, checked = [], [], 0
    for name, (min_in, max_in, marks, path) in sorted(rows.items()):
        versions = schemas.get(name)
        if not versions or name.startswith("_"):
            unchecked.append(name)
            continue
        checked += 1
        where = f"{path}: onnx::{name}"
        justified = set()
        for opset in range(FIRST_OPSET, last_opset + 1):
            s = in_force(versions, opset)
            if s is None or s.deprecated:
                continue
            tag = f"{where} (opset {opset}, {name}-{s.since})"
            if min_in > s.min_in:
                errors.append(f"{tag}: min_inputs {min_in}, but the schema accepts {s.min_in}")
            if max_in >= 0 and (s.max_in is None or max_in < s.max_in):
                want = "any number" if s.max_in is None else str(s.max_in)
                errors.append(f"{tag}: max_inputs {max_in}, but the schema accepts {want}")
            for i in range(min(min_in, len(s.optional))):
                if s.optional[i] and i not in marks:
                    errors.append(f"{tag}: input {i} is optional in the schema but not marked "
                                  f"FL_OPF_OPTIONAL_IN({i})")
            justified |= {i for i in range(len(s.optional)) if s.optional[i] or s.variadic[i]}
        for i in sorted(marks):
            if i >= min_in:
                errors.append(f"{where}: FL_OPF_OPTIONAL_IN({i}) marks an input at or past "
                              f"min_inputs {min_in}")
            elif i not in justified:
                errors.append(f"{where}: FL_OPF_OPTIONAL_IN({i}) marks an input no modelled "
                              f"version declares optional or variadic")
    return errors, unchecked, checked


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--changelog"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = argv[1]
    rows = read_rows(src)
    if len(argv) == 4:
        schemas, last, source = schemas_from_changelog(argv[3]), max_opset(src), argv[3]
    else:
        schemas, package_last = schemas_from_package()
        if schemas is None:
            print("SKIP onnx_schemas: the onnx Python package (python3-onnx) is not installed")
            return 77
        last, source = min(package_last, max_opset(src)), "the onnx package"
    errors, unchecked, checked = check(rows, schemas, last)
    print(f"{checked} ai.onnx rows checked against {source}, opsets {FIRST_OPSET}..{last}; "
          f"{len(unchecked)} not defined there: {' '.join(unchecked)}")
    for e in errors:
        print(e)
    print(f"{len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
