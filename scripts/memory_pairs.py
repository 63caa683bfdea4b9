"""The memory hierarchy pairs of the side-by-side table: gpubench's memory suite (its own results
file, gpubench-memory.json, since the suite runs as a step of its own with its own time cap)
beside cuda_reference.py's memory section (scripts/cuda_memory.cu: the same kernels, grids and
counts through CUDA). side_by_side.py builds them with build() and prints them with markdown(),
as a section of their own.

The pairs, each with gpubench / CUDA for rates and CUDA / gpubench for times (above 1: gpubench
faster), and no target:
  - per working set both sides hold (matched by bytes, not by label): read bandwidth, latency
    (one thread) and latency on the vector path (one warp);
  - each level gpubench derived (memory/level-k, beyond-caches, latency-level-k,
    latency-beyond-caches: bandwidth and latency) beside the CUDA curve over the same working
    sets, the level's first to last (the median of CUDA's rows there: gpubench's level figure is
    the median of the same sizes' best samples);
  - shared-memory reads (the conflict-free vec4 form and the stride sweep) and atomicAdd
    throughput on the six targets; the folded ones (storage-one, workgroup-one) say that both
    compilers may fold a warp's adds into one atomic (aggregation), so their ratio compares two
    compilers' folding as much as two memories.

This module takes side_by_side.py's module as an argument (its Table, Side, load and cell
formatting) rather than importing it, so either can be loaded on its own.
"""

import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sizes import size_label  # noqa: E402  (beside this file: gpubench's size labels)

# The per-working-set curves: (id kind, gpubench kernel param, words, higher is better).
CURVES = [
    ("read", "read", "read bandwidth", True),
    ("latency", "chase", "latency, one thread", False),
    ("latency-lanes", "chase-lanes", "latency, one warp (vector path)", False),
]
# gpubench's derived level rows whose figure a CUDA curve can stand beside.
LEVEL_ID = re.compile(
    r"memory/((?:latency-)?level-\d+|(?:latency-)?beyond-caches)/(bandwidth|latency)")
ATOMIC_TARGETS = ["storage-one", "storage-each", "workgroup-one", "workgroup-each",
                  "storage-one-lane-indexed", "workgroup-one-lane-indexed"]
STRIDES = [1, 2, 4, 8, 16, 32, 33]
FOLDED = ("aggregated atomics: one address in every lane, so both compilers may fold a warp's "
          "adds into one atomic (gpubench's WGSL through the Vulkan driver, CUDA's C++ through "
          "nvcc and ptxas); the ratio compares their folding as much as the memory. "
          "{twin} is the unfolded contention")
HEADING = "## Memory hierarchy: gpubench's memory suite beside cuda_memory.cu"
ABOUT = (
    "CUDA's side runs the memory suite's own kernels through nvcc (scripts/cuda_memory.cu: the "
    "same 1 MiB read windows, grids and counts, the same pointer chase over 64-byte nodes, the "
    "same 16 KiB tile reads and atomicAdd targets) at the same working sets. Ratio: gpubench / "
    "CUDA for bandwidth and GIOP/s, CUDA / gpubench for latency (above 1: gpubench faster). A "
    "level row holds gpubench's derived level beside the median of CUDA's curve over the "
    "level's own working sets.")


def gpubench_memory(sbs, memory_path, gpubench_doc):
    """(document, problem, its memory results by id): the memory file's; without the flag, the
    main results file's memory rows where it holds any (a run of every suite at once)."""
    if memory_path:
        doc, problem = sbs.load(memory_path)
    else:
        doc, problem = gpubench_doc, "gpubench memory results not given (--memory)"
    ours = {rid: r for rid, r in sbs.gpubench_index(doc).items() if rid.startswith("memory/")}
    return doc, problem, ours


def gpubench_sweep(ours):
    """(id kind, bytes) -> id of gpubench's per-working-set rows."""
    kinds = {kernel: kind for kind, kernel, _, _ in CURVES}
    out = {}
    for rid, result in ours.items():
        params = result.get("params") or {}
        kind = kinds.get(params.get("kernel"))
        if kind and isinstance(params.get("working_set_bytes"), int):
            out[(kind, params["working_set_bytes"])] = rid
    return out


def cuda_sweep(cuda_doc, theirs):
    """(id kind, bytes) -> key of the CUDA rows of each working set the reference planned or
    reported (a planned one it never reached keeps gpubench's key form)."""
    out = {}
    planned = ((cuda_doc or {}).get("plan") or {}).get("memory_sizes") or []
    for kind, _, _, _ in CURVES:
        for nbytes in planned:
            out[(kind, nbytes)] = f"memory/{kind}/{size_label(nbytes)}"
    for key, row in theirs.items():
        kind = key.split("/")[1] if key.count("/") == 2 else None
        if key.startswith("memory/") and kind in {c[0] for c in CURVES} and "bytes" in row:
            out[(kind, row["bytes"])] = key
    return out


def build(sbs, memory_path, gpubench_doc, cuda_doc, cuda_problem=None):
    """The memory pairs as a side_by_side Table of their own, or None where neither side holds
    or was asked for memory figures (a check from before the memory step)."""
    doc, problem, ours = gpubench_memory(sbs, memory_path, gpubench_doc)
    theirs = sbs.cuda_index(cuda_doc)
    cuda_memory = any(k == "memory" or k.startswith("memory/") for k in theirs) or (
        "memory" in (((cuda_doc or {}).get("plan") or {}).get("sections") or []))
    if not (memory_path or ours or cuda_memory):
        return None
    gpubench_side = sbs.Side("gpubench", doc, problem or "gpubench memory results not read")
    cuda_side = sbs.Side("CUDA", cuda_doc, cuda_problem or "CUDA reference not given")
    table = sbs.Table(ours, theirs, {}, gpubench_side, cuda_side)
    add_sweep(table, gpubench_sweep(ours), cuda_sweep(cuda_doc, theirs))
    add_levels(table, ours, cuda_sweep(cuda_doc, theirs))
    add_workgroup(table, ours, theirs)
    add_atomics(table)
    return table


def add_sweep(table, mine, ref):
    """Each working set both sides hold: read bandwidth and the two latencies."""
    both = sorted({b for _, b in mine} & {b for _, b in ref})
    if not both:
        table.notes.append(
            f"memory sweep: no working set held by both sides (gpubench {len(mine)} rows, CUDA "
            f"{len(ref)} planned or reported), so no per-size pairs")
    for nbytes in both:
        for kind, _, words, higher in CURVES:
            ours_id = mine.get((kind, nbytes), f"memory/{kind}/{size_label(nbytes)}")
            table.add(f"{words} at {size_label(nbytes)}", ours_id, ref[(kind, nbytes)], None,
                      None, higher_is_better=higher)


def add_levels(table, ours, ref):
    """gpubench's derived levels beside CUDA's curve over the level's own working sets."""
    for rid, result in ours.items():
        match = LEVEL_ID.fullmatch(rid)
        params = (result or {}).get("params") or {}
        if not match or "first_bytes" not in params or "last_bytes" not in params:
            continue
        name, word = match.groups()
        kind = "read" if word == "bandwidth" else "latency"
        first, last = params["first_bytes"], params["last_bytes"]
        span = f"{size_label(first)} to {size_label(last)}"
        key = f"memory/{kind}/median {span}"
        values = [table.theirs[k].get("value") for (c, b), k in sorted(ref.items())
                  if c == kind and first <= b <= last and k in table.theirs
                  and table.theirs[k].get("status") == "ok"]
        if values:
            table.theirs[key] = {"key": key, "status": "ok", "value": statistics.median(values),
                                 "unit": "GB/s" if kind == "read" else "ns"}
        rows = f"{len(values)} {kind} row" + ("" if len(values) == 1 else "s")
        note = (f"gpubench: {level_words(ours, name)}, the median of each size's best sample; "
                f"CUDA: the median of its {rows} from {span}")
        table.add(f"{name} {word} ({span})", rid, key, None, None,
                  higher_is_better=word == "bandwidth", note=note)


def level_words(ours, name):
    """What gpubench's level is: its detected size (KiB) where it has one, the reason where
    its size is not resolved (the sweep ended inside it), else the plateau beyond the
    caches."""
    size = ours.get(f"memory/{name}/size")
    median = ((size or {}).get("summary") or {}).get("median")
    if median is not None:
        return f"{name}, detected size {median:g} KiB"
    if size and size.get("status") == "skipped":
        return f"{name}, size {size.get('reason') or 'not resolved'}"
    return "the plateau beyond its caches" if "beyond" in name else f"{name} (no size row)"


def add_workgroup(table, ours, theirs):
    """Shared-memory reads: the conflict-free vec4 form, then the stride sweep."""
    for name in ["read-vec4"] + [f"stride-{s}" for s in STRIDES]:
        rid = f"memory/workgroup/{name}"
        if name != "read-vec4" and rid not in ours and rid not in theirs:
            continue
        table.add(f"shared memory {name}", rid, rid, None, None)


def add_atomics(table):
    """atomicAdd throughput on the six targets; the folded ones say what they compare."""
    for target in ATOMIC_TARGETS:
        rid = f"memory/atomic-add/{target}"
        note = None
        if target in ("storage-one", "workgroup-one"):
            note = FOLDED.format(twin=f"{target}-lane-indexed")
        table.add(f"atomicAdd {target}", rid, rid, None, None, note=note)


def markdown(sbs, table):
    """The section's Markdown: its heading, what it compares, its rows and notes ('' without a
    table)."""
    if table is None:
        return ""
    side = table.gpubench_side.header()
    out = ["", HEADING, "", ABOUT + (f" gpubench memory results {side}." if side else ""), "",
           "| quantity | gpubench | CUDA | unit | ratio | SM MHz gpubench / CUDA | notes |",
           "|---|---|---|---|---|---|---|"]
    for r in table.rows:
        clocks = r.get("sm_clock_mhz") or {}
        notes = "; ".join(n for n in (sbs.status_note(r, "gpubench"),
                                      sbs.status_note(r, "cuda"), r.get("note")) if n)
        out.append(
            f"| {r['label']} | {sbs.cell(r['gpubench'], r.get('gpubench_why'))} | "
            f"{sbs.cell(r['cuda'], r.get('cuda_why'))} | {r['unit'] or '-'} | "
            f"{sbs.fmt(r['ratio'])} | {sbs.fmt(clocks.get('gpubench'))} / "
            f"{sbs.fmt(clocks.get('cuda'))} | {notes} |")
    out += [f"- note: {line}" for line in table.notes]
    return "\n".join(out) + "\n"
