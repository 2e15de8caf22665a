"""grpc_reports.py - the LLM view, diff, card and report against a real foldlined.

Run by run_grpc_suite.sh like grpc_suite.py (same arguments; it reuses that
suite's server and client helpers). The C CLI must print the same bytes and
exit with the same status locally and with --server; an independent Python
client checks the LLM view's fields in the reply against the decoder's
closed form.

Usage: grpc_reports.py FOLDLINED FOLDLINE DATA_DIR STUB_DIR
"""

import os
import sys

import grpc_suite as g  # noqa: E402  (parses the same argv, loads the stubs)
from grpc_suite import check, cli, pb, pb_grpc

DATA = g.DATA
DECODER = os.path.join(DATA, "tiny_decoder.onnx")
TINY, TINY_ONNX = g.TINY, g.TINY_ONNX
TFL, INT8 = os.path.join(DATA, "tiny.tflite"), os.path.join(DATA, "tiny_int8.tflite")


def same(name, args, want_rc=0, files=()):
    """The CLI locally and remotely: same exit status, stdout, stderr (and
    the bytes of each output file named in `files`, written by both)."""
    lrc, lout, lerr = cli(*args)
    lfiles = [open(f, "rb").read() if os.path.exists(f) else None for f in files]
    rrc, rout, rerr = cli(*args, server=same.addr)
    rfiles = [open(f, "rb").read() if os.path.exists(f) else None for f in files]
    check(name, lrc == rrc == want_rc and lout == rout and lerr == rerr and lfiles == rfiles and
          (lout or lfiles or want_rc), "local rc %d remote rc %d: %r %r" % (lrc, rrc, lerr[:300], rerr[:300]))
    return lout


def case_llm_same_output():
    base = ["analyze", DECODER, "--prompt", "8", "--context", "32"]
    out = same("llm_text", base)
    check("llm_text_has_view", b"LLM view  prompt 8, context 32" in out, out[-400:])
    for v in (["--json"], ["--summary"], ["--bind", "batch=4", "--json"], ["--no-llm", "--json"],
              ["--sweep", "batch=1,2"], ["--sweep", "batch=1,2", "--json"],
              ["--sweep", "batch=1,2", "--summary"]):
        same("llm_" + "_".join(a.strip("-") for a in v), base + v)
    same("llm_defaults", ["analyze", DECODER])
    same("llm_bad_context", base[:-1] + ["1"], want_rc=2)


def case_llm_python():
    """The reply's LlmView against the decoder's closed form (the exporter,
    tests/tools/export_tiny_decoder.py): MACs = B*S*(6656 + 64*(P + S)); the
    KV cache holds 2 tensors x 2 layers x 16 floats per token."""
    stub = pb_grpc.CostModelStub(g.grpc.insecure_channel(same.addr))
    graph = open(DECODER, "rb").read()
    rep = stub.Analyze(pb.AnalyzeRequest(graph=graph, options=pb.AnalyzeOptions(
        llm=pb.LlmOptions(enabled=True, prompt=8, context=32))), timeout=30)
    v = rep.llm
    check("py_llm_present", rep.HasField("llm"))
    check("py_llm_roles", (v.seq_symbol, v.past_symbol, v.token_input, list(v.other_symbols),
                           v.kv_inputs) == ("seq", "past", "input_ids", ["batch"], 4), str(v)[:400])
    check("py_llm_prefill", (v.prefill.past, v.prefill.seq, v.prefill.tokens, v.prefill.macs,
                             v.prefill.macs_per_token) ==
          (0, 8, 8, 8 * (6656 + 64 * 8), 6656 + 64 * 8), str(v.prefill))
    check("py_llm_decode", (v.decode.past, v.decode.seq, v.decode.tokens, v.decode.macs,
                            v.decode.macs_per_token) ==
          (31, 1, 1, 6656 + 64 * 32, 6656 + 64 * 32), str(v.decode))
    check("py_llm_kv", (v.decode.kv_bytes, v.kv_bytes_per_token, v.kv_bytes_at_context) ==
          (31 * 2 * 2 * 16 * 4, 256.0, 256.0 * 32), str(v)[-300:])
    check("py_llm_intensity", abs(v.prefill.intensity - v.prefill.flops / v.prefill.bytes) < 1e-12)
    # batch 4: four sequences, the same per-token cost, four times the cache.
    rep4 = stub.Analyze(pb.AnalyzeRequest(graph=graph, options=pb.AnalyzeOptions(
        symbols=[pb.SymbolBinding(name="batch", value=4)],
        llm=pb.LlmOptions(enabled=True, prompt=8, context=32))), timeout=30)
    check("py_llm_batch4", (rep4.llm.prefill.tokens, rep4.llm.prefill.macs_per_token,
                            rep4.llm.kv_bytes_per_token) == (32, 7168.0, 1024.0), str(rep4.llm)[:300])
    # Not asked, or not a decoder: no view.
    off = stub.Analyze(pb.AnalyzeRequest(graph=graph), timeout=30)
    cnn = stub.Analyze(pb.AnalyzeRequest(graph=open(TINY_ONNX, "rb").read(), options=pb.AnalyzeOptions(
        llm=pb.LlmOptions(enabled=True))), timeout=30)
    check("py_llm_absent", not off.HasField("llm") and not cnn.HasField("llm"))
    try:
        stub.Analyze(pb.AnalyzeRequest(graph=graph, options=pb.AnalyzeOptions(
            llm=pb.LlmOptions(enabled=True, context=1))), timeout=30)
        check("py_llm_bad_context", False, "accepted")
    except g.grpc.RpcError as e:
        check("py_llm_bad_context", e.code() == g.grpc.StatusCode.INVALID_ARGUMENT and
              "options.llm" in (e.details() or ""), e.details())


def case_diff():
    b = ["--bind", "input.0=1", "--bind", "N=1"]
    out = same("diff_text", ["diff", TINY, TINY_ONNX] + b)
    check("diff_text_rows", b"FLOPs" in out and b"params" in out, out[:300])
    same("diff_json", ["diff", TINY, TINY_ONNX, "--json"])
    same("diff_profiles", ["diff", TINY, TINY_ONNX] + b + ["--profile", "all", "--json"])
    # FLOPs grow by 2.65 % from the GraphDef to the ONNX model (cli_diff).
    same("diff_gate_exceeded", ["diff", TINY, TINY_ONNX] + b + ["--fail-on", "flops:+2%"], 1)
    same("diff_gate_ok", ["diff", TINY, TINY_ONNX] + b + ["--fail-on", "flops:+3%"], 0)
    same("diff_time_gate", ["diff", TINY, TINY_ONNX] + b +
         ["--profile", "t4", "--fail-on", "time@t4:+1000%"], 0)
    same("diff_int_ops", ["diff", TFL, INT8, "--json"])
    same("diff_unknown_metric", ["diff", TINY, TINY_ONNX, "--fail-on", "latency:+5%"], 2)
    # An unknown profile: usage (2) on both sides; the server's message names
    # the server rather than a local directory.
    args = ["diff", TINY, TINY_ONNX] + b + ["--profile", "nope"]
    lrc, _, lerr = cli(*args)
    rrc, _, rerr = cli(*args, server=same.addr)
    check("diff_unknown_profile", lrc == rrc == 2 and b"'nope'" in lerr and
          b"no profile named 'nope' on this server" in rerr, "%r %r" % (lerr, rerr))


def case_card():
    same("card_md", ["card", TINY, "--bind", "input.0=2", "--profile", "all"])
    out = same("card_json", ["card", TINY_ONNX, "--format", "json", "--profile", "a100-80gb"])
    # The server's profile is named as locally: its file, kind and description.
    check("card_json_profile", b'"file": "a100-80gb.yaml"' in out and b'"kind": "gpu"' in out,
          out[-600:])
    same("card_no_profile", ["card", TINY, "--format", "json"])


def case_report():
    html = os.path.join(g.TMP, "r.html")
    for name, v in (("report_plain", []), ("report_profiles", ["--profile", "all",
                                                                "--bind", "input.0=1"]),
                    ("report_sweep", ["--sweep", "input.0=1,4", "--profile", "t4"])):
        if os.path.exists(html):
            os.unlink(html)
        same(name, ["report", TINY] + v + ["-o", html], files=[html])
    data = open(html, "rb").read()
    check("report_has_roofs", b"<svg" in data and b"t4" in data)
    same("report_onnx", ["report", TINY_ONNX, "--bind", "N=2", "--profile", "epyc-9654", "-o", html],
         files=[html])


def main():
    s = g.Server()
    same.addr = s.addr
    try:
        for case in (case_llm_same_output, case_llm_python, case_diff, case_card, case_report):
            g.run(case)
    finally:
        rc = s.stop()
    check("server_exit_0", rc == 0, s.log_text()[-500:])
    print("%d passed, %d failed" % (g.RESULTS["pass"], g.RESULTS["fail"]))
    return 1 if g.RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
