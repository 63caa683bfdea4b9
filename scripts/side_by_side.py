#!/usr/bin/env python3
"""gpubench's results beside CUDA's reference figures for the same quantities on the same card:
each pair as a ratio, the datasheet (nominal) figure as a third column, the SM clock NVML saw
beside both, and the targets met or missed.

  python3 scripts/side_by_side.py GPUBENCH.json CUDA.json [--nominal NOMINAL.json] [--json OUT]
                                  [--banner TEXT] [--peers PEERS.json]
                                  [--memory GPUBENCH-MEMORY.json]

GPUBENCH.json is a `gpubench run` results file, CUDA.json what scripts/cuda_reference.py wrote.
NOMINAL.json, when given, is an object with any of memory_bandwidth_gbs, fp32_gflops,
fp16_gflops, fp16_tensor_gflops and pcie_gbs (GB/s = 1e9 B/s, GFLOP/s = 1e9 FLOP/s) and a
source. Without it the figures come from the results file itself: the datasheet row gpubench
matched to the adapter (data/nominal-gpus.json) and the nominal one-way bandwidth of the PCIe
link it read. --banner puts a line above everything (the rehearsal's "not measurements").
--peers adds a column with the Vulkan peer (vkpeak or clpeak, scripts/peers.py's peers.json) on
the rows that have one, the split of the cooperative-matrix row's gap, and the peers' own rows
(scripts/peer_columns.py: which pairing is the same quantity and which approximate).

--memory names gpubench's memory suite results (gpu-check.sh runs that suite as a step of its
own): their pairs with cuda_reference.py's memory section follow in a section of their own
(memory_pairs.py).

The table is built from whichever side could be read: a check that was stopped, or whose one side
failed, still shows the other. A side that is missing, empty or not JSON has its cells say so
("not measured: cuda.json missing"); a file saved part-way ("complete": false: both tools save
after every result or section) is used, flagged in the header, and the cells it never reached say
so ("CUDA reference interrupted (SIGTERM) before this section"). Prints Markdown; exit 0 when at
least one side was read, 2 when neither could be.

The datapath suite's rows stand beside cuda_reference.py's datapath twin (the same requests with
pinned host memory and two streams) in a section of their own, each pair labelled a capability
difference: wgpu has one queue and no pinned host memory, so the pair shows what those
capabilities buy, never "gpubench is x% of CUDA". Their time ratio (gpubench / CUDA) sits in a
column named so, with p95 latencies beside it ("n/a (n = N)" where too few requests state one).
Where gpubench's stage/h2d (or stage/d2h) row records crosses_link false (a large BAR puts wgpu's
staging in device memory), its pair says it is a copy inside the card, not an upload, and keeps
no time ratio; stage/prepare's pair says where the host's writes cross the link.

The best H2D path is chosen among the results whose bytes cross the link (the `crosses_link`
param gpubench records); a results file from before that param leaves out h2d-staging-copy and
h2d-host-write, which can time a VRAM-to-VRAM copy (a large BAR) or a host memcpy. The table says
which results were left out and why.
"""

import argparse
import json
import os
import stat
import re
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_pairs  # noqa: E402  (the memory hierarchy's pairs: a section of their own)
import peer_columns  # noqa: E402  (beside this file; the Vulkan peers' column)
from sizes import size_label  # noqa: E402  (gpubench's size labels)

# (label, gpubench id template, CUDA key template, nominal key, target: gpubench / CUDA >= this)
# {size} is the stream array size, {shape} each matmul shape both files hold.
STREAM = [
    ("stream copy vs CUDA D2D copy", "stream/copy/vec4-f32/{size}", "stream/copy-d2d",
     "memory_bandwidth_gbs", 0.9),
    ("stream triad vs CUDA D2D copy", "stream/triad/vec4-f32/{size}", "stream/copy-d2d",
     "memory_bandwidth_gbs", 0.9),
    ("stream copy vs CUDA copy kernel", "stream/copy/vec4-f32/{size}", "stream/copy-kernel",
     "memory_bandwidth_gbs", None),
    ("stream triad vs CUDA triad kernel", "stream/triad/vec4-f32/{size}", "stream/triad-kernel",
     "memory_bandwidth_gbs", None),
    ("stream read vs CUDA D2D copy", "stream/read/vec4-f32/{size}", "stream/copy-d2d",
     "memory_bandwidth_gbs", None),
]
MATMUL = [
    ("SGEMM {shape} (TF32 off)", "matmul/f32/{shape}", "matmul/f32/{shape}", "fp32_gflops", 0.5),
    ("HGEMM {shape}, gpubench f16", "matmul/f16/{shape}", "matmul/f16/{shape}",
     "fp16_tensor_gflops", None),
    ("HGEMM {shape}, gpubench f16 on cooperative matrices", "matmul/f16-coop/{shape}",
     "matmul/f16/{shape}", "fp16_tensor_gflops", None),
]

# gpubench's datapath rows beside cuda_reference.py's datapath twin, per workload: (gpubench row,
# CUDA row, how the two paths differ). CUDA moves the same requests (bytes, kernel arithmetic,
# exact check) with pinned host memory and two streams, which wgpu does not have: every pair is
# a capability difference, shown as such and never as "gpubench is x% of CUDA".
DATAPATH = [
    ("stage/prepare", "stage/prepare",
     "the host writes the input: into a mapped staging buffer / into pinned memory"),
    ("stage/h2d", "stage/h2d",
     "upload: a copy from the staging buffer / cudaMemcpyAsync from pinned memory"),
    ("stage/compute", "stage/compute",
     "the same kernel arithmetic: WGSL through Vulkan / CUDA C++ through nvcc"),
    ("stage/d2h", "stage/d2h",
     "download: a copy into a mappable buffer / cudaMemcpyAsync into pinned memory"),
    ("stage/check", "stage/check", "the same sampled check: of a mapped buffer / of pinned memory"),
    ("serial", "serial",
     "one request at a time: a submit and a map on one queue / one stream and an event wait"),
    ("overlap-2", "overlap-2-streams",
     "two requests in flight: one queue / two streams (an upload beside a kernel)"),
]
# gpubench's launch rows beside CUDA's, dependent with dependent: gpubench's dispatches in a pass
# share a buffer, so each waits on a barrier for the one before, as the nodes of a graph captured
# from one stream (and a raw loop on one stream) wait for theirs; gpu-gap-independent's dispatches
# share nothing, as a graph with no edges. (label, gpubench id, CUDA key)
LAUNCH = [
    ("dispatch in a pass vs CUDA graph node (both a chain)",
     "launch/dispatch-in-pass/per-dispatch", "launch/graph"),
    ("dispatch in a pass vs CUDA raw launch loop (both a chain)",
     "launch/dispatch-in-pass/per-dispatch", "launch/raw-loop"),
    ("GPU gap per dispatch vs CUDA graph node (both a chain)", "launch/gpu-gap/per-dispatch",
     "launch/graph"),
    ("GPU gap, independent dispatches, vs CUDA graph with no edges",
     "launch/gpu-gap-independent/per-dispatch", "launch/graph-independent"),
    ("round trip vs CUDA launch + synchronize", "launch/round-trip/one-dispatch",
     "launch/round-trip"),
    ("round trip (spin) vs CUDA launch + synchronize",
     "launch/round-trip-spin/one-dispatch", "launch/round-trip"),
]
CAPABILITY = "capability difference"
CAPABILITY_CAVEAT = (
    "CUDA's side moves the same requests as gpubench's datapath suite (the same bytes, seed, "
    "kernel arithmetic and exact check) with pinned host memory (cudaHostAlloc) and two streams. "
    "wgpu has one queue and no pinned host memory: the host writes and reads mapped staging "
    "buffers. So each pair shows what those capabilities buy on this card, a capability "
    "difference, not a like-for-like ratio and not a measure of gpubench's efficiency.")

# The largest input read, as gpubench's own reader bounds a results file.
MAX_INPUT_BYTES = 256 << 20


def read_bounded(path, limit=MAX_INPUT_BYTES):
    """The text of the regular file at `path`, at most `limit` bytes: opened without blocking
    (a FIFO never hangs the check), refused unless it is a regular file (checked on the open
    file), and read one byte past the limit at most (an endless device is cut off)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(0, "not a regular file (a FIFO, device or directory)")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(0, f"larger than {limit >> 20} MiB")
    return data.decode("utf-8-sig", errors="replace")


def load(path):
    """(document, None) or (None, why not), the why in a few words naming the file: a side that
    cannot be read leaves its cells saying so instead of stopping the table."""
    name = os.path.basename(path)
    try:
        text = read_bounded(path)
    except FileNotFoundError:
        return None, f"{name} missing"
    except OSError as error:
        return None, f"{name} unreadable: {error.strerror or error}"
    if not text.strip():
        return None, f"{name} empty"
    try:
        doc = json.loads(text)
    except ValueError as error:
        return None, f"{name} is not JSON (cut short?): {error}"
    if not isinstance(doc, dict):
        return None, f"{name} is not a JSON object"
    return doc, None


def section_of(cuda_key):
    """The cuda_reference.py section a row key belongs to: its first part."""
    return cuda_key.split("/", 1)[0]


class Side:
    """One input as read: its document, or why there is none; whether it ran to its end; and,
    for a figure it does not hold, the words its cell shows instead."""

    def __init__(self, tool, doc, problem=None):
        self.tool, self.doc, self.problem = tool, doc, problem

    @property
    def read(self):
        return self.doc is not None

    @property
    def complete(self):
        """False only where the file says so: files from before the flag ran to their end."""
        return self.read and self.doc.get("complete") is not False

    def why_missing(self, key):
        """Why the figure at key is not there, when it is for a reason of the whole file (not
        read, stopped before it); None when the file simply lacks it."""
        if not self.read:
            return f"not measured: {self.problem}"
        doc = self.doc
        if self.tool == "CUDA":
            if doc.get("status") == "failed" and doc.get("reason"):
                return f"not measured: {doc['reason']}"
            # A section that failed as a whole leaves one row under the section's own name.
            failed = next((r for r in doc.get("rows") or [] if r.get("key") == section_of(key)
                           and r.get("status") != "ok"), None)
            if failed:
                return f"not measured: {section_of(key)} {failed.get('status')}: " \
                       f"{failed.get('reason')}"
            if self.complete or section_of(key) in (doc.get("sections_done") or []):
                return None
            if doc.get("interrupted"):
                return f"CUDA reference interrupted ({doc['interrupted']}) before this section"
            return "CUDA reference stopped (no end saved: killed or timed out) before this section"
        if not self.complete:
            return "gpubench run stopped before this result"
        return None

    def header(self):
        """The header line's note on this side: not read, or saved part-way."""
        if not self.read:
            return f"NOT READ ({self.problem})"
        if self.complete:
            return None
        doc = self.doc
        if self.tool == "CUDA":
            how = (f"interrupted by {doc['interrupted']}" if doc.get("interrupted")
                   else "stopped with no end saved (killed or timed out)")
            running = doc.get("section_running")
            done = ", ".join(doc.get("sections_done") or []) or "none"
            return (f"INCOMPLETE: {how}" + (f" during {running}" if running else "")
                    + f"; sections done: {done}")
        return (f"INCOMPLETE (\"complete\": false: stopped, or still running): "
                f"{len(doc.get('results') or [])} results saved")


def nominal_from_results(doc):
    """The nominal figures a gpubench results file recorded (datasheet row, PCIe link)."""
    tele = (doc or {}).get("telemetry") or {}
    row = tele.get("nominal") or {}
    link = tele.get("link") or {}
    out = {}
    if row.get("memory_bandwidth_gbs"):
        out["memory_bandwidth_gbs"] = row["memory_bandwidth_gbs"]
    for ours, theirs in (("fp32_gflops", "fp32_tflops"), ("fp16_gflops", "fp16_tflops"),
                         ("fp16_tensor_gflops", "fp16_tensor_tflops")):
        if row.get(theirs):
            out[ours] = row[theirs] * 1000.0
    if link.get("max_nominal_gbs"):
        out["pcie_gbs"] = link["max_nominal_gbs"]
    sources = [row["source"]] if row.get("source") else []
    if out.get("pcie_gbs"):
        sources.append("PCIe link from sysfs, nominal one-way bandwidth after encoding")
    if sources:
        out["source"] = "; ".join(sources)
    return out


def gpubench_index(doc):
    """id -> result, for every result."""
    return {r["id"]: r for r in (doc or {}).get("results") or [] if "id" in r}


def gpubench_value(result):
    """The median of an ok result, else None."""
    if result is None or result.get("status") != "ok":
        return None
    return (result.get("summary") or {}).get("median")


def gpubench_clock(result):
    """The SM clock's median during the result, where the results file recorded telemetry."""
    tele = (result or {}).get("telemetry") or {}
    for key in ("sm_clock_mhz", "graphics_clock_mhz", "sm_clock"):
        value = tele.get(key)
        if isinstance(value, dict) and "median" in value:
            return value["median"]
    return None


def gpubench_p95(result):
    """gpubench's p95 latency (us) where enough requests state one; else 'n/a (n = N)', or None
    where the result has no latency."""
    latency = (result or {}).get("latency") or {}
    n = latency.get("n")
    if n is None:
        return None
    return latency.get("p95_us") if n >= MIN_N_P95 else f"n/a (n = {n})"


def cuda_p95(row):
    """The CUDA row's p95 latency (us), 'n/a (n = N)' where its program stated none (too few
    requests), or None where the row has no percentiles."""
    latency = (row or {}).get("percentiles") or {}
    if "n" not in latency:
        return None
    p95 = latency.get("p95")
    return p95 if p95 is not None and latency["n"] >= MIN_N_P95 else f"n/a (n = {latency['n']})"


# Fewest requests a p95 is stated from (gpubench's MIN_N_P95).
MIN_N_P95 = 20


def cuda_index(doc):
    return {r["key"]: r for r in (doc or {}).get("rows") or [] if "key" in r}


def cuda_clock(row):
    clock = ((row or {}).get("telemetry") or {}).get("sm_clock_mhz") or {}
    return clock.get("median")


def label_bytes(label):
    """size_label's inverse: '4MiB' -> 4194304; None for anything else."""
    match = re.fullmatch(r"(\d+)(GiB|MiB|KiB|B)", label)
    if not match:
        return None
    scale = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10, "B": 1}[match.group(2)]
    return int(match.group(1)) * scale


def plan_from_results(ours):
    """The sizes to pair, from gpubench's result ids, where there is no CUDA plan to read them
    from (the reference never started, or its file is lost): the stream size, the matmul shapes
    and the transfer sizes, in the order they ran."""
    plan = {"matmul_shapes": [], "transfer_sizes": []}
    for rid in ours:
        parts = rid.split("/")
        if parts[0] == "stream" and len(parts) == 4 and "stream_bytes" not in plan:
            size = label_bytes(parts[3])
            if size:
                plan["stream_bytes"] = size
        elif parts[0] == "matmul" and len(parts) == 3 and re.fullmatch(r"\d+x\d+x\d+",
                                                                        parts[2]):
            if parts[2] not in plan["matmul_shapes"]:
                plan["matmul_shapes"].append(parts[2])
        elif parts[0] == "transfer" and len(parts) == 4 and parts[2] == "bytes":
            size = label_bytes(parts[3])
            if size and size not in plan["transfer_sizes"]:
                plan["transfer_sizes"].append(size)
    return plan


class Table:
    """The rows of the side-by-side comparison and the checks made along the way."""

    def __init__(self, ours, theirs, nominal, gpubench_side=None, cuda_side=None):
        self.ours, self.theirs, self.nominal = ours, theirs, nominal
        self.gpubench_side = gpubench_side or Side("gpubench", {})
        self.cuda_side = cuda_side or Side("CUDA", {})
        self.rows, self.above_nominal, self.notes = [], [], []
        # The datapath pairs: a capability difference, kept apart from the like-for-like rows.
        self.capability = []

    def add(self, label, ours_id, cuda_key, nominal_key, target, higher_is_better=True,
            note=None):
        mine = self.ours.get(ours_id)
        ref = self.theirs.get(cuda_key)
        a = gpubench_value(mine)
        b = ref.get("value") if ref and ref.get("status") == "ok" else None
        nominal = self.nominal.get(nominal_key) if nominal_key else None
        ratio = None
        if a is not None and b:
            ratio = a / b if higher_is_better else b / a
        for who, name, value in (("gpubench", ours_id, a), ("CUDA", cuda_key, b)):
            line = f"{who} {name}: {value:.4g} > nominal {nominal:.4g}" if (
                nominal and value is not None and higher_is_better and value > nominal) else None
            if line and line not in self.above_nominal:
                self.above_nominal.append(line)
        self.rows.append({
            **self.both_sides(label, (ours_id, mine, a), (cuda_key, ref, b)),
            "unit": (mine or {}).get("unit") or (ref or {}).get("unit"),
            "ratio": ratio, "target": target, "nominal": nominal,
            "met": None if ratio is None or target is None else ratio >= target,
            "sm_clock_mhz": {"gpubench": gpubench_clock(mine), "cuda": cuda_clock(ref)},
            "note": note,
        })

    def both_sides(self, label, ours, theirs):
        """What every pair says of its two sides, each given as (id or key, row, value): the
        names, values, statuses and reasons, and why a side has no row at all."""
        (ours_id, mine, a), (cuda_key, ref, b) = ours, theirs
        return {
            "label": label, "gpubench_id": ours_id, "cuda_key": cuda_key,
            "gpubench": a, "gpubench_status": (mine or {}).get("status", "absent"),
            "gpubench_reason": (mine or {}).get("reason"),
            "gpubench_why": None if mine else self.gpubench_side.why_missing(ours_id),
            "cuda": b, "cuda_status": (ref or {}).get("status", "absent"),
            "cuda_reason": (ref or {}).get("reason"),
            "cuda_why": None if ref else self.cuda_side.why_missing(cuda_key),
        }

    def add_capability(self, label, ours_id, cuda_key, how):
        """A datapath pair: both times, labelled a capability difference. Its ratio column stays
        empty (no target, no "x% of CUDA"); `capability_ratio` holds gpubench's time over CUDA's
        (above 1: CUDA's pinned, two-stream path is faster), shown only beside the caveat."""
        mine, ref = self.ours.get(ours_id), self.theirs.get(cuda_key)
        a = gpubench_value(mine)
        b = ref.get("value") if ref and ref.get("status") == "ok" else None
        self.capability.append({
            **self.both_sides(label, (ours_id, mine, a), (cuda_key, ref, b)),
            "unit": (mine or {}).get("unit") or (ref or {}).get("unit") or "us",
            "comparison": CAPABILITY, "ratio": None,
            "capability_ratio": a / b if a is not None and b else None,
            "p95_us": {"gpubench": gpubench_p95(mine), "cuda": cuda_p95(ref)},
            "overlap": overlap_of(ref), "note": how,
        })

    def own_ratio(self, label, numerator_id, denominator_id, target):
        """gpubench against itself (f16 over f32): the ratio alone, its parts in the notes."""
        a = gpubench_value(self.ours.get(numerator_id))
        b = gpubench_value(self.ours.get(denominator_id))
        ratio = a / b if a is not None and b else None
        why = None
        if ratio is None:
            why = next((w for w in (self.gpubench_side.why_missing(i)
                                    for i in (numerator_id, denominator_id)
                                    if i not in self.ours) if w), None)
        self.rows.append({
            "label": label, "gpubench_id": f"{numerator_id} / {denominator_id}",
            "cuda_key": None, "gpubench": ratio, "cuda": None, "unit": "ratio", "ratio": ratio,
            "target": target, "nominal": None, "gpubench_status": "ok" if ratio else "absent",
            "gpubench_why": why, "cuda_status": "own", "cuda_why": None,
            "met": None if ratio is None else ratio >= target,
            "sm_clock_mhz": {}, "note": f"{fmt(a)} / {fmt(b)} GFLOP/s",
        })


def overlap_of(row):
    """'overlap 1.8x of ideal 2.1x' from a CUDA overlapped row, else None."""
    row = row or {}
    if row.get("overlap_achieved") is None or row.get("overlap_ideal") is None:
        return None
    return (f"overlap {row['overlap_achieved']:.2f}x of ideal {row['overlap_ideal']:.2f}x "
            f"({row.get('bound') or row.get('slowest_stage', '?')} bounds)")


def datapath_workloads(ours, cuda_plan):
    """The datapath workloads either side holds, CUDA's plan first, then gpubench's ids."""
    names = [w.get("name") for w in (cuda_plan.get("datapath") or {}).get("workloads") or []]
    for rid in ours:
        parts = rid.split("/")
        if parts[0] == "datapath" and len(parts) >= 3 and parts[1] not in names:
            names.append(parts[1])
    return [n for n in names if n]


# The datapath stages whose bytes may or may not cross the host-device link, by gpubench's own
# `crosses_link` on the row (recorded from where the buffer the stage touches lives, as for the
# transfer rows): (what the gpubench side is where it crosses, where it does not, and whether a
# time ratio with CUDA's side still stands where it does not). CUDA's copies always cross (pinned
# host memory); on a discrete card with a large BAR, wgpu's write-mapped staging is device
# memory, so gpubench's stage/h2d is a copy inside the card and prepare's writes are the upload.
DATAPATH_LINK = {
    "stage/prepare": ("the host's writes cross the link (staging in device memory, behind the "
                      "BAR): they are gpubench's upload", "the host's writes stay in host memory",
                      True),
    "stage/h2d": ("an upload: the copy reads host memory across the link",
                  "a copy inside the card, not an upload", False),
    "stage/d2h": ("a download: the copy writes host memory across the link",
                  "a copy inside the card, not a download", False),
}
# Where gpubench's row does not say (a results file from before the param, or a placement the
# adapter did not tell): what its stage/h2d may be.
DATAPATH_LINK_UNKNOWN = (
    "whether gpubench's copy crosses the link is not recorded (no crosses_link): behind a large "
    "BAR the staging buffer is device memory, the copy stays on the card and prepare's writes "
    "cross the link")


def datapath_link(table, stage, row):
    """What gpubench's datapath `stage` row (stage/prepare, ...) says of the link, on its pair
    `row`: where the row records crosses_link false for a copy, the pair says it is a copy inside
    the card, keeps no time ratio (CUDA's side crosses the link) and says why in the notes, as
    the transfer rows left out of the H2D pairs do."""
    if stage not in DATAPATH_LINK:
        return
    mine = table.ours.get(row["gpubench_id"])
    params = (mine or {}).get("params") or {}
    crosses = params.get("crosses_link")
    across, within, ratio_stands = DATAPATH_LINK[stage]
    row["crosses_link"] = crosses if isinstance(crosses, bool) else None
    if not isinstance(crosses, bool):
        if mine and stage == "stage/h2d":
            row["note"] = f"{row['note']}; {DATAPATH_LINK_UNKNOWN}"
        return
    why = params.get("crosses_link_why")
    said = f"crosses_link {str(crosses).lower()}" + (f": {why}" if why else "")
    if crosses or ratio_stands:
        row["note"] = f"{row['note']}; gpubench: {across if crosses else within} ({said})"
    else:
        # The pair's "upload: ... / cudaMemcpyAsync ..." would call gpubench's side an upload.
        cuda_how = row["note"].split(" / ", 1)[-1]
        row["note"] = f"gpubench: {within} ({said}) / CUDA: {cuda_how}"
        row["capability_ratio"] = None
        row["ratio_withheld"] = "not across the link"
        table.notes.append(f"{row['label']}: gpubench's row is {within} ({said}); CUDA's "
                           "copy crosses the link from pinned memory, so the pair has no time "
                           "ratio")


def add_datapath(table, ours, plan):
    """Each workload's datapath pairs, labelled a capability difference; a stage row whose bytes
    gpubench says do not cross the link is labelled so (`datapath_link`)."""
    for name in datapath_workloads(ours, plan):
        for mine, ref, how in DATAPATH:
            table.add_capability(f"datapath {name} {mine}", f"datapath/{name}/{mine}",
                                 f"datapath/{name}/{ref}", how)
            datapath_link(table, mine, table.capability[-1])


# Transfer paths a results file from before `crosses_link` may hold whose timed bytes need not
# cross the link: what each can time instead.
NOT_ACROSS_THE_LINK = {
    "h2d-staging-copy": "a copy between two device-side buffers: with a large BAR (ReBAR) the "
                        "staging buffer can be in VRAM, a VRAM-to-VRAM copy",
    "h2d-host-write": "the host's memcpy into a mapped buffer: host memory bandwidth, or writes "
                      "into a BAR, not a timed transfer to device memory",
}


def link_paths(ours, direction, suffix):
    """The transfer results at one size that may stand for a host-device transfer: (eligible
    ids, [(excluded id, why)]). Where the file records `crosses_link`, H2D takes only results
    with crosses_link true (and D2H leaves out any with it false); a file from before the param
    leaves out the H2D paths of NOT_ACROSS_THE_LINK."""
    marked = any("crosses_link" in (r.get("params") or {})
                 for rid, r in ours.items() if rid.startswith("transfer/"))
    eligible, excluded = [], []
    for rid, result in ours.items():
        if not (rid.startswith(f"transfer/{direction}-") and rid.endswith(suffix)):
            continue
        params = result.get("params") or {}
        crosses = params.get("crosses_link")
        # gpubench says why alongside (crosses_link_why); the generic words where it does not.
        why = params.get("crosses_link_why") or (
            "the timed bytes do not move from host memory to device memory over the bus"
            if direction == "h2d" else "the timed bytes do not cross the bus")
        if marked and direction == "h2d" and crosses is not True:
            excluded.append((rid, f"crosses_link false: {why}" if crosses is False
                             else "no crosses_link param in a file that records it"))
        elif marked and crosses is False:
            excluded.append((rid, f"crosses_link false: {why}"))
        elif not marked and direction == "h2d" and any(
                f"/{path}/" in rid for path in NOT_ACROSS_THE_LINK):
            path = next(p for p in NOT_ACROSS_THE_LINK if f"/{p}/" in rid)
            excluded.append((rid, f"results file without crosses_link (older gpubench): "
                                  f"{path} can be {NOT_ACROSS_THE_LINK[path]}"))
        else:
            eligible.append(rid)
    return eligible, excluded


# Where every H2D path gpubench timed stays on the device's side of the link (a large BAR puts
# wgpu's upload staging in device memory), what the table says in the H2D rows' place.
NO_COPY_ENGINE = "H2D through the copy engine is not reachable through wgpu on this card"


def add_without_copy_engine(table, largest):
    """The H2D comparison left where no gpubench path crosses the link: the statement, and
    gpubench's host write (the host's stores into a BAR mapping of device memory) beside CUDA's
    copy-engine-free path (SMs pulling mapped pinned host memory). Both move the bytes from host
    to device memory without the copy engine, one pushed by the CPU, one pulled by the GPU: a
    pairing of paths, not of the link's best figure."""
    table.notes.append(f"{NO_COPY_ENGINE}: none of gpubench's H2D paths moves its bytes across "
                       "the link (each says why above); on a discrete card with a large BAR, "
                       "wgpu's upload staging is device-local and host-visible, so its copies "
                       "run inside device memory and its host writes go through the BAR")
    table.add(f"host write (no copy engine) at {largest} vs CUDA SM pull from pinned memory",
              f"transfer/h2d-host-write/bytes/{largest}",
              f"transfer/h2d-sm-pull/{largest}", "pcie_gbs", None,
              note=f"{NO_COPY_ENGINE}; both paths avoid it: the host pushes / the SMs pull")


def best_of(ours, prefix, suffix, among=None):
    """The id of the fastest ok result whose id starts with prefix and ends with suffix (of the
    ids in among, when given)."""
    best = None
    for rid, result in ours.items():
        value = gpubench_value(result)
        if among is not None and rid not in among:
            continue
        if rid.startswith(prefix) and rid.endswith(suffix) and value is not None:
            if best is None or value > best[1]:
                best = (rid, value)
    return best[0] if best else f"{prefix}*{suffix}"


def build(gpubench, cuda, nominal, gpubench_problem=None, cuda_problem=None):
    """The table from both documents; either may be None (with its problem), and then its cells
    say why they are empty."""
    gpubench_side = Side("gpubench", gpubench, gpubench_problem or "gpubench results not given")
    cuda_side = Side("CUDA", cuda, cuda_problem or "CUDA reference not given")
    ours, theirs = gpubench_index(gpubench), cuda_index(cuda)
    table = Table(ours, theirs, nominal, gpubench_side, cuda_side)
    plan = (cuda or {}).get("plan") or plan_from_results(ours)
    size = size_label(plan.get("stream_bytes", 0))
    for label, mine, ref, nom, target in STREAM:
        table.add(label, mine.format(size=size), ref, nom, target)
    for precision, ref in (("f32", "compute/fma-peak-f32"), ("f16", "compute/fma-peak-f16x2")):
        best = best_of(ours, "compute/fma-peak/", f"-{precision}")
        table.add(f"FMA peak {precision} (best form) vs CUDA", best, ref,
                  f"{precision}_gflops", None)
    for shape in plan.get("matmul_shapes", []):
        for label, mine, ref, nom, target in MATMUL:
            if "coop" in mine and mine.format(shape=shape) not in ours:
                continue
            table.add(label.format(shape=shape), mine.format(shape=shape),
                      ref.format(shape=shape), nom, target)
        table.own_ratio(f"own f16 / own f32 at {shape}", f"matmul/f16/{shape}",
                        f"matmul/f32/{shape}", 1.5)
    sizes = plan.get("transfer_sizes") or [0]
    largest = size_label(max(sizes))
    for direction in ("h2d", "d2h"):
        suffix = f"/bytes/{largest}"
        eligible, excluded = link_paths(ours, direction, suffix)
        best = best_of(ours, f"transfer/{direction}-", suffix, among=set(eligible))
        note = None
        if excluded:
            note = "left out: " + ", ".join(rid.split("/")[1] for rid, _ in excluded) + \
                " (not across the link: see the notes)"
            for rid, why in excluded:
                table.notes.append(f"best {direction.upper()} path at {largest}: left out "
                                   f"{rid}: {why}")
        table.add(f"best {direction.upper()} path at {largest} vs CUDA pinned", best,
                  f"transfer/{direction}-pinned/{largest}", "pcie_gbs",
                  0.7 if direction == "h2d" else None, note=note)
        table.add(f"best {direction.upper()} path at {largest} vs CUDA pageable", best,
                  f"transfer/{direction}-pageable/{largest}", "pcie_gbs", None, note=note)
        if direction == "h2d" and not eligible and excluded:
            add_without_copy_engine(table, largest)
    for label, mine, ref in LAUNCH:
        table.add(label, mine, ref, None, None, higher_is_better=False)
    add_datapath(table, ours, plan)
    launch = [theirs[k] for k in ("launch/raw-loop", "launch/graph", "launch/round-trip")
              if k in theirs]
    if launch and launch[0].get("nvcc_failure"):
        table.notes.append(f"CUDA launch figures from CuPy, not the nvcc-built program: "
                           f"{launch[0]['nvcc_failure']}")
    return table


def fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def cell(value, why):
    """A figure, or where it is missing for a reason of its whole file, that reason."""
    if value is None and why:
        return why
    return fmt(value)


def status_note(row, side):
    status = row.get(f"{side}_status")
    if status in ("ok", "own") or (status == "absent" and row.get(f"{side}_why")):
        return ""
    reason = row.get(f"{side}_reason")
    return f"{status}" + (f": {reason}" if reason else "")


def markdown(table, gpubench, cuda, nominal, banner=None, peers=None, peers_problem=None):
    gpubench, cuda = gpubench or {}, cuda or {}
    machine = gpubench.get("machine", {})
    adapter = machine.get("adapter", {}) if isinstance(machine, dict) else {}
    flags = {side.tool: side.header() for side in (table.gpubench_side, table.cuda_side)}
    peered = peers is not None or peers_problem is not None
    out = [f"**{banner}**", ""] if banner else []
    out += [
        "# gpubench (Vulkan) beside CUDA",
        "",
        f"- gpubench adapter: {adapter.get('name', '?')} ({adapter.get('driver_info', '?')}), "
        f"backend {adapter.get('backend', '?')}"
        + (f"; gpubench results {flags['gpubench']}" if flags["gpubench"] else ""),
        f"- CUDA reference: {cuda.get('device', '?')}, torch {cuda.get('torch', '?')}, "
        f"CUDA {cuda.get('cuda', '?')}; NVML: {json.dumps(cuda.get('nvml', {}))}"
        + (f"; CUDA reference {flags['CUDA']}" if flags["CUDA"] else ""),
        f"- nominal figures: {nominal.get('source', 'none given')}",
        "",
        "Ratio: gpubench / CUDA for rates; CUDA / gpubench for times (above 1: gpubench faster). "
        "Targets are on the ratio.",
        "",
        "| quantity | gpubench | CUDA | unit | ratio | target | nominal | SM MHz gpubench / CUDA "
        "| notes |" + (f" {peer_columns.HEADER} |" if peered else ""),
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if peered else ""),
    ]
    for r in table.rows:
        target = "-" if r["target"] is None else (
            f">= {r['target']:g} ({'met' if r['met'] else 'missed'})" if r["met"] is not None
            else f">= {r['target']:g} (no figure)")
        clocks = r.get("sm_clock_mhz") or {}
        notes = "; ".join(n for n in (status_note(r, "gpubench"), status_note(r, "cuda"),
                                      r.get("note")) if n)
        out.append(
            f"| {r['label']} | {cell(r['gpubench'], r.get('gpubench_why'))} | "
            f"{cell(r['cuda'], r.get('cuda_why'))} | {r['unit'] or '-'} | "
            f"{fmt(r['ratio'])} | {target} | {fmt(r['nominal'])} | "
            f"{fmt(clocks.get('gpubench'))} / {fmt(clocks.get('cuda'))} | {notes} |"
            + (f" {peer_columns.cell(r)} |" if peered else ""))
    out += capability_markdown(table.capability)
    unverified = [rid for rid, res in gpubench_index(gpubench).items()
                  if res.get("status") == "ok" and res.get("role", "kernel") == "kernel"
                  and not res.get("verified")]
    failed = [rid for rid, res in gpubench_index(gpubench).items()
              if res.get("status") == "failed"]
    idle = idle_clock_rows(gpubench)
    out += [
        "",
        f"- gpubench results ok but not verified (kernels): {len(unverified)}"
        + (f" ({', '.join(unverified[:8])})" if unverified else ""),
        f"- gpubench results failed: {len(failed)}" + (f" ({', '.join(failed[:8])})"
                                                      if failed else ""),
        f"- gpubench results measured at idle clocks (warning idle-clock): {len(idle)}"
        + (f" ({', '.join(idle[:8])})" if idle else ""),
        f"- figures above nominal: {len(table.above_nominal)}"
        + "".join(f"\n  - {line}" for line in table.above_nominal),
    ]
    out += [f"- note: {line}" for line in table.notes]
    if peered:
        out += peer_columns.section(peers, peers_problem)
    return "\n".join(out) + "\n"


def idle_clock_rows(gpubench):
    """Ids of gpubench's results whose samples ran at the card's idle clocks: the warm-up did
    not bring the card out of idle, so the figure is the idle clock's (gpubench marks them)."""
    return [rid for rid, res in gpubench_index(gpubench).items()
            if any(w.get("kind") == "idle-clock" for w in res.get("warnings") or []
                   if isinstance(w, dict))]


def capability_markdown(rows):
    """The datapath pairs, under a heading and a caveat that say they are a capability
    difference; the time ratio stands only in a column named so."""
    if not rows:
        return []
    out = [
        "",
        "## Data path: a capability difference, not a like-for-like ratio",
        "",
        CAPABILITY_CAVEAT,
        "",
        "| datapath row | gpubench (wgpu: one queue, mapped staging) | CUDA (pinned memory, two "
        "streams) | unit | gpubench time / CUDA time (capability difference) | p95 gpubench / "
        "CUDA | how the paths differ; notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        p95 = r.get("p95_us") or {}
        notes = "; ".join(n for n in (r.get("note"), r.get("overlap"),
                                      status_note(r, "gpubench"), status_note(r, "cuda")) if n)
        ratio = r.get("capability_ratio")
        shown = (f"- ({r['ratio_withheld']})" if r.get("ratio_withheld") else
                 "-" if ratio is None else fmt(ratio) + " (capability)")
        out.append(
            f"| {r['label']} | {cell(r['gpubench'], r.get('gpubench_why'))} | "
            f"{cell(r['cuda'], r.get('cuda_why'))} | {r['unit']} | {shown} | "
            f"{p95_cell(p95.get('gpubench'))} / {p95_cell(p95.get('cuda'))} | {notes} |")
    return out


def p95_cell(value):
    """A p95 figure, its 'n/a (n = N)', or '-'."""
    return value if isinstance(value, str) else fmt(value)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpubench")
    parser.add_argument("cuda")
    parser.add_argument("--nominal")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--banner", help="a line above everything, in bold")
    parser.add_argument("--peers", help="peers.json (scripts/peers.py): the Vulkan peer column")
    parser.add_argument("--memory", help="gpubench's memory suite results (its own step's file)")
    args = parser.parse_args(argv)
    gpubench, gpubench_problem = load(args.gpubench)
    cuda, cuda_problem = load(args.cuda)
    if gpubench is None and cuda is None:
        print(f"error: neither side could be read: {gpubench_problem}; {cuda_problem}",
              file=sys.stderr)
        return 2
    nominal = nominal_from_results(gpubench)
    if args.nominal:
        given, problem = load(args.nominal)
        if given is None:
            # The nominal column is context, not a measurement: the table stands without it.
            print(f"warning: nominal figures not read ({problem}); those of the results file "
                  f"instead", file=sys.stderr)
            nominal = dict(nominal, source=f"{nominal.get('source', 'none')} ({args.nominal} "
                                           f"not read: {problem})")
        else:
            nominal = given
    table = build(gpubench, cuda, nominal, gpubench_problem, cuda_problem)
    peers, peers_problem = load(args.peers) if args.peers else (None, None)
    if args.peers:
        peer_columns.attach(table, peers, peers_problem)
    this = types.SimpleNamespace(**globals())  # this module, as memory_pairs takes it
    memory = memory_pairs.build(this, args.memory, gpubench, cuda, cuda_problem)
    sys.stdout.write(markdown(table, gpubench, cuda, nominal, args.banner, peers, peers_problem)
                     + memory_pairs.markdown(this, memory))
    if args.json_out:
        sides = {side.tool: {"read": side.read, "problem": side.problem if not side.read
                             else None, "complete": side.complete, "flag": side.header()}
                 for side in (table.gpubench_side, table.cuda_side)}
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"banner": args.banner, "inputs": sides, "rows": table.rows,
                       "capability_rows": table.capability,
                       "capability_caveat": CAPABILITY_CAVEAT,
                       "memory_rows": memory.rows if memory else [],
                       "above_nominal": table.above_nominal, "notes": table.notes,
                       "peers": peers}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
