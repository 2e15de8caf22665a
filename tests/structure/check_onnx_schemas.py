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

With --contrib, the com.microsoft rows are checked instead, against ONNX
Runtime's docs/ContribOperators.md (a checkout of the onnxruntime
repository; no CTest runs this, the file is not here): each operator has
one version, and the same three rules hold, with variadic inputs as ONNX's
(heterogeneous ones too); a fixed n_outputs must also reach the operator's
largest output count. CONTRIB_KNOWN lists where a row follows ONNX
Runtime's kernel rather than the schema, with the reason; they are printed,
not failures. Rows wider than the schema are listed, not failures either.
Rows of operators the file does not document are listed as unchecked, and
so are the documented operators with no row.

Exit 0 when every checked row fits, 1 otherwise, 77 when the onnx package is
missing (the test is then skipped, visibly).

Usage: check_onnx_schemas.py SOURCE_DIR [--changelog PATH | --contrib PATH]
"""
import glob
import os
import re
import sys

ROW = (r'FL_OP\((\w+),\s*"{}::(\w+)",\s*\w+,\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),'
       r'\s*([^,]+?),\s*\w+\)')
FIRST_OPSET = 7  # older opsets are read with opset 7's definitions (onnx.c)
# com.microsoft rows that follow ONNX Runtime's kernel where its schema (and
# so ContribOperators.md) says otherwise: {op: (min_inputs, why)}.
CONTRIB_KNOWN = {
    "QLinearConcat": (5, "the kernel takes Y_scale, Y_zero_point and a (tensor, scale, zero "
                         "point) triple per tensor, 2 + 3k inputs; the schema's variadic "
                         "admits 3"),
}


class Schema:
    """One version of an operator: since_version, input counts (max None:
    any), and per formal input whether it is optional / variadic."""

    def __init__(self, since, min_in, max_in, optional, variadic, deprecated=False, max_out=None):
        self.since, self.min_in, self.max_in = since, min_in, max_in
        self.optional, self.variadic, self.deprecated = optional, variadic, deprecated
        self.max_out = max_out  # ContribOperators.md only: None for any number


def read_rows(src, domain="onnx"):
    """{op: (min_inputs, max_inputs, marks, path, n_outputs)} of one domain."""
    rows, row = {}, re.compile(ROW.format(re.escape(domain)))
    for path in sorted(glob.glob(os.path.join(src, "src", "ops", "**", "*.def"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in row.finditer(text):
            marks = {int(x) for x in re.findall(r"FL_OPF_OPTIONAL_IN\((\d+)\)", m.group(6))}
            rows[m.group(2)] = (int(m.group(3)), int(m.group(4)), marks,
                                os.path.relpath(path, src), int(m.group(5)))
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


def formal_params(body, section):
    """A doc section '#### Inputs (a - b)' (or '#### Inputs' for a fixed
    count) with one '<dt><tt>name</tt> (optional|variadic...) : T</dt>' line
    per formal parameter: (min, max (None: any), optional, variadic)."""
    m = re.search(r"^#### " + section + r"(?: \((\d+) - (\d+|&#8734;)\))?\s*$(.*?)(?=^####|\Z)",
                  body, flags=re.M | re.S)
    optional, variadic = [], []
    if m:
        for dt in re.findall(r"<dt><tt>[^<]*</tt>([^:]*):", m.group(3)):
            optional.append("optional" in dt)
            variadic.append("variadic" in dt)
    if m and m.group(1):
        lo = int(m.group(1))
        hi = None if m.group(2) == "&#8734;" else int(m.group(2))
    else:
        lo = hi = len(optional)
    return lo, hi, optional, variadic


def schemas_from_changelog(path):
    """The ai.onnx sections of Changelog.md: '### <a name="Op-N"></a>**Op-N**'
    headings and their inputs (formal_params)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.split("# ai.onnx.preview.training", 1)[0].split("# ai.onnx.ml", 1)[0]
    out = {}
    parts = re.split(r'^### <a name="([A-Za-z0-9_]+)-(\d+)"></a>', text, flags=re.M)
    for name, since, body in zip(parts[1::3], parts[2::3], parts[3::3]):
        min_in, max_in, optional, variadic = formal_params(body, "Inputs")
        deprecated = "This version of the operator has been deprecated" in body
        out.setdefault(name, []).append(
            Schema(int(since), min_in, max_in, optional, variadic, deprecated))
    return out


def schemas_from_contrib(path):
    """ContribOperators.md's com.microsoft sections: '### <a
    name="com.microsoft.Op"></a>...' headings (experimental ones too), their
    inputs and outputs (formal_params); one version each."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = {}
    parts = re.split(r'^### (?:<sub>experimental</sub> )?<a name="com\.microsoft\.(\w+)"></a>',
                     text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        min_in, max_in, optional, variadic = formal_params(body, "Inputs")
        max_out = formal_params(body, "Outputs")[1]
        out[name] = [Schema(1, min_in, max_in, optional, variadic, max_out=max_out)]
    return out


def in_force(versions, opset):
    best = None
    for s in versions:
        if s.since <= opset and (best is None or s.since > best.since):
            best = s
    return best


def check(rows, schemas, last_opset, domain="onnx", first_opset=FIRST_OPSET):
    errors, unchecked, checked = [], [], 0
    for name, (min_in, max_in, marks, path, _) in sorted(rows.items()):
        versions = schemas.get(name)
        if not versions or name.startswith("_"):
            unchecked.append(name)
            continue
        checked += 1
        where = f"{path}: {domain}::{name}"
        justified = set()
        for opset in range(first_opset, last_opset + 1):
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
            if s.variadic and s.variadic[-1]:  # the variadic run goes on past the formals
                justified |= set(range(len(s.variadic), max(marks, default=0) + 1))
        for i in sorted(marks):
            if i >= min_in:
                errors.append(f"{where}: FL_OPF_OPTIONAL_IN({i}) marks an input at or past "
                              f"min_inputs {min_in}")
            elif i not in justified:
                errors.append(f"{where}: FL_OPF_OPTIONAL_IN({i}) marks an input no modelled "
                              f"version declares optional or variadic")
    return errors, unchecked, checked


def check_contrib(src, path):
    """The com.microsoft rows against ContribOperators.md (--contrib)."""
    rows, schemas = read_rows(src, "com.microsoft"), schemas_from_contrib(path)
    for name, (min_in, why) in CONTRIB_KNOWN.items():
        if name in schemas:
            schemas[name][0].min_in = min_in
            print(f"known: com.microsoft::{name} min_inputs {min_in}: {why}")
    errors, unchecked, checked = check(rows, schemas, 1, "com.microsoft", 1)
    for name, (_, _, _, where, n_out) in sorted(rows.items()):
        s = schemas.get(name, [None])[0]
        if s and n_out >= 0 and (s.max_out is None or n_out < s.max_out):
            want = "any number" if s.max_out is None else str(s.max_out)
            errors.append(f"{where}: com.microsoft::{name}: n_outputs {n_out}, but the schema "
                          f"allows {want}")
    wider = [f"{where}: com.microsoft::{name}: inputs {lo}..{'any' if hi < 0 else hi}, the schema's "
             f"{s.min_in}..{'any' if s.max_in is None else s.max_in}"
             for name, (lo, hi, _, where, _) in sorted(rows.items())
             for s in schemas.get(name, [])[:1]
             if lo < s.min_in or (s.max_in is not None and (hi < 0 or hi > s.max_in))]
    no_row = sorted(set(schemas) - set(rows))
    print(f"{checked} com.microsoft rows checked against {path}; {len(unchecked)} not documented "
          f"there: {' '.join(unchecked)}")
    print(f"{len(no_row)} documented operators have no row: {' '.join(no_row)}")
    for w in wider:
        print(f"wider than the schema (not a failure): {w}")
    for e in errors:
        print(e)
    print(f"{len(errors)} mismatches")
    return 1 if errors else 0


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] not in ("--changelog", "--contrib")):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = argv[1]
    if len(argv) == 4 and argv[2] == "--contrib":
        return check_contrib(src, argv[3])
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
