#!/usr/bin/env python3
"""A stand-in for the gpubench binary, for the tests of scripts/gpu-check.sh: the few commands
the script runs, answered in a fraction of a second, with gpubench's file formats in miniature.

  list [--json]        one adapter: a Vulkan software adapter (device_type cpu), as lavapipe
  doctor --json        a small checklist
  run ... --out F      a few results per suite, in --suite order, F rewritten (atomically) after
                       each with "complete": false and a short sleep between; at the end
                       "complete": true, the --html report and, with --save-baseline, a
                       baseline in --baseline-dir. SIGTERM or SIGINT: F keeps what was written
                       and the stub exits 143 (130), as gpubench does.

It refuses, as gpubench does (exit 1), an --expect-type or --expect-vendor its adapter does not
match. Environment: STUB_GPUBENCH_SLEEP (seconds between results, default 0.05),
STUB_GPUBENCH_LOG (a file each invocation's arguments are appended to, one JSON list a line),
STUB_GPUBENCH_VENDOR_ID (the adapter's PCI vendor, default lavapipe's 0x10005; NVIDIA's 0x10de
shows that the real mode refuses a cpu adapter whatever its vendor), STUB_GPUBENCH_DEVICE_TYPE
(default cpu; discrete, with NVIDIA's vendor, lets the real mode through),
STUB_GPUBENCH_IGNORE_SIGNALS (set: `run` ignores SIGTERM and SIGINT, as a hung run would),
STUB_GPUBENCH_LARGE_BAR (set: no H2D result crosses the link, as on a large-BAR card).
"""

import json
import os
import signal
import sys
import time

ADAPTER = {
    "index": 0, "name": "llvmpipe (stub)",
    "vendor_id": int(os.environ.get("STUB_GPUBENCH_VENDOR_ID", "0x10005"), 0), "device_id": 0,
    "device_type": os.environ.get("STUB_GPUBENCH_DEVICE_TYPE", "cpu"), "driver": "llvmpipe",
    "driver_info": "stub gpubench",
    "backend": "vulkan", "software": True,
}


def option(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv else default


def results_for(suite, stream_size):
    """(id, unit, median, params) of the stub's results in one suite."""
    if suite == "stream":
        return [(f"stream/{kind}/vec4-f32/{stream_size}", "GB/s", value, {})
                for kind, value in (("copy", 11.0), ("triad", 10.5), ("read", 14.0))]
    if suite == "compute":
        return [("compute/fma-peak/vec4-f32", "GFLOP/s", 120.0, {}),
                ("compute/fma-peak/vec4-f16", "GFLOP/s", 60.0, {})]
    if suite == "transfer" and os.environ.get("STUB_GPUBENCH_LARGE_BAR"):
        # A large-BAR card: every H2D path stays in device memory.
        why = "the staging buffer is device-local and host-visible (a large BAR)"
        return [("transfer/h2d-write-buffer/bytes/4MiB", "GB/s", 30.0, {
                    "crosses_link": False, "crosses_link_why": why}),
                ("transfer/h2d-host-write/bytes/4MiB", "GB/s", 12.0, {
                    "crosses_link": False, "crosses_link_why": why}),
                ("transfer/d2h-map-read/bytes/4MiB", "GB/s", 2.5, {"crosses_link": True})]
    if suite == "transfer":
        # The staging copy is the fastest and does not cross the link: the table must leave it
        # out of the best H2D path.
        return [("transfer/h2d-write-buffer/bytes/4MiB", "GB/s", 3.0, {"crosses_link": True}),
                ("transfer/h2d-staging-copy/bytes/4MiB", "GB/s", 9.0, {
                    "crosses_link": False, "crosses_link_why": "the staging buffer is "
                    "resizable-bar memory: the copy may never leave the device"}),
                ("transfer/d2h-map-read/bytes/4MiB", "GB/s", 2.5, {"crosses_link": True})]
    if suite == "launch":
        return [("launch/round-trip/one-dispatch", "us", 60.0, {}),
                ("launch/dispatch-in-pass/per-dispatch", "us", 4.0, {}),
                ("launch/gpu-gap/per-dispatch", "us", 3.0, {}),
                ("launch/gpu-gap-independent/per-dispatch", "us", 0.9, {})]
    if suite == "roofline":
        return [("roofline/fma-per-byte/1", "GFLOP/s", 5.0, {})]
    if suite == "datapath":
        return [("datapath/balanced/stage/h2d", "us", 400.0, {"stage": "h2d"}),
                ("datapath/balanced/serial", "us", 900.0, {"flow": "serial"}),
                ("datapath/balanced/overlap-2", "us", 700.0, {"flow": "overlap-2"})]
    if suite == "memory":
        return memory_results()
    if suite == "matmul":
        return [("matmul/f32/128x128x128", "GFLOP/s", 40.0, {}),
                ("matmul/f16/128x128x128", "GFLOP/s", 30.0, {}),
                ("matmul/f16-coop/128x128x128", "GFLOP/s", 45.0, {"coop": True})]
    return []


def memory_results():
    """The memory suite in miniature: its three curves at four working sets (one a 1.5 x 2^k
    point), a level and the plateau beyond it, the tile reads and the six atomic targets."""
    out = []
    for nbytes, gbs, ns in ((4096, 9.0, 7.0), (6144, 9.0, 7.2), (8192, 8.8, 7.1),
                            (1536 << 10, 5.0, 160.0)):
        label = f"{nbytes >> 10}KiB" if nbytes < 1 << 20 else "1.5MiB"
        for kind, kernel, unit, value in (("read", "read", "GB/s", gbs),
                                          ("latency", "chase", "ns", ns),
                                          ("latency-lanes", "chase-lanes", "ns", ns + 4)):
            out.append((f"memory/{kind}/{label}", unit, value,
                        {"kernel": kernel, "working_set_bytes": nbytes}))
    level = {"first_bytes": 4096, "last_bytes": 8192, "points": 3}
    beyond = {"first_bytes": 1536 << 10, "last_bytes": 1536 << 10, "points": 1}
    out += [("memory/level-1/size", "KiB", 8.0, level),
            ("memory/level-1/bandwidth", "GB/s", 9.0, level),
            ("memory/level-1/latency", "ns", 7.1, level),
            ("memory/beyond-caches/bandwidth", "GB/s", 5.0, beyond),
            ("memory/workgroup/read-vec4", "GB/s", 9.1, {"kernel": "workgroup"}),
            ("memory/workgroup/stride-32", "GB/s", 5.9, {"kernel": "workgroup"})]
    for target, giops in (("storage-one", 0.13), ("storage-each", 0.35),
                          ("workgroup-one", 0.35), ("workgroup-each", 0.35),
                          ("storage-one-lane-indexed", 0.12),
                          ("workgroup-one-lane-indexed", 0.3)):
        out.append((f"memory/atomic-add/{target}", "GIOP/s", giops, {"kernel": "atomic"}))
    return out


def write(path, doc):
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    os.replace(tmp, path)


def run(argv):
    wanted_type = option(argv, "--expect-type")
    wanted_vendor = option(argv, "--expect-vendor")
    if wanted_vendor is not None:
        wanted_vendor = {"nvidia": 0x10de, "amd": 0x1002, "intel": 0x8086}.get(
            wanted_vendor, None) or int(wanted_vendor, 0)
    if (wanted_type and ADAPTER["device_type"] not in wanted_type.split(",")) or (
            wanted_vendor is not None and wanted_vendor != ADAPTER["vendor_id"]):
        print("error: the adapter llvmpipe (stub) is not what was expected", file=sys.stderr)
        return 1
    out = option(argv, "--out")
    suites = option(argv, "--suite", "stream,compute,transfer,launch,roofline,datapath,matmul").split(",")
    stream_size = option(argv, "--stream-size", "16MiB")
    pause = float(os.environ.get("STUB_GPUBENCH_SLEEP", "0.05"))
    doc = {"schema_version": 2, "tool": {"name": "gpubench", "version": "stub"},
           "machine": {"adapter": ADAPTER, "software_adapter": True},
           "config": {"profile": option(argv, "--profile", "default"), "suites": suites},
           "started_at": "2026-01-01T00:00:00Z", "finished_at": None, "complete": False,
           "results": []}

    def stop(signum, _frame):
        write(out, doc)
        print(f"interrupted by {signal.Signals(signum).name}: finished results kept",
              file=sys.stderr, flush=True)
        os._exit(128 + signum)

    if os.environ.get("STUB_GPUBENCH_IGNORE_SIGNALS"):
        # A run that hangs (a device that never answers): only SIGKILL ends it.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
    write(out, doc)
    for suite in suites:
        for rid, unit, median, params in results_for(suite, stream_size):
            if "--no-coop-matrix" in argv and "f16-coop" in rid:
                continue
            time.sleep(pause)
            result = {"id": rid, "suite": suite, "params": params, "unit": unit,
                      "higher_is_better": unit != "us", "role": "kernel", "status": "ok",
                      "verified": True, "summary": {"median": median}}
            # One assignment: the handler never sees a half-built document.
            doc = {**doc, "results": doc["results"] + [result]}
            write(out, doc)
            print(f"{rid}: {median} {unit}", flush=True)
    doc = {**doc, "complete": True, "finished_at": "2026-01-01T00:00:01Z"}
    write(out, doc)
    if option(argv, "--html"):
        with open(option(argv, "--html"), "w", encoding="utf-8") as f:
            f.write("<html><body>stub gpubench report</body></html>\n")
    if "--save-baseline" in argv:
        folder = option(argv, "--baseline-dir", "baselines")
        os.makedirs(folder, exist_ok=True)
        write(os.path.join(folder, "vulkan-10005-0000-llvmpipe-stub-quick.json"), doc)
    return 0


def main(argv):
    log = os.environ.get("STUB_GPUBENCH_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(argv) + "\n")
    command = argv[0] if argv else ""
    if command == "list":
        if "--json" in argv:
            print(json.dumps([ADAPTER], indent=2))
        else:
            print("0  vulkan  cpu  llvmpipe (stub)")
        return 0
    if command == "doctor":
        print(json.dumps({"adapter": ADAPTER["name"], "checks": [
            {"name": "software-adapter", "status": "warn", "detail": "a software adapter"}]}))
        return 0
    if command == "run":
        return run(argv[1:])
    print(f"stub gpubench: unknown command {command!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
