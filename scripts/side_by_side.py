#!/usr/bin/env python3
"""gpubench's results beside CUDA's reference figures for the same quantities on the same card:
each pair as a ratio, the datasheet (nominal) figure as a third column, the SM clock NVML saw
beside both, and the targets met or missed.

  python3 scripts/side_by_side.py GPUBENCH.json CUDA.json [--nominal NOMINAL.json] [--json OUT]

GPUBENCH.json is a `gpubench run` results file, CUDA.json what scripts/cuda_reference.py printed.
NOMINAL.json, when given, is an object with any of memory_bandwidth_gbs, fp32_gflops,
fp16_gflops, fp16_tensor_gflops and pcie_gbs (GB/s = 1e9 B/s, GFLOP/s = 1e9 FLOP/s) and a
source. Without it the figures come from the results file itself: the datasheet row gpubench
matched to the adapter (data/nominal-gpus.json) and the nominal one-way bandwidth of the PCIe
link it read. Prints Markdown; exit 2 when an input cannot be read.
"""

import argparse
import json
import sys

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


def load(path, what):
    try:
        with open(path, encoding="utf-8-sig") as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        print(f"error: cannot read the {what} file {path}: {error}", file=sys.stderr)
        sys.exit(2)


def nominal_from_results(doc):
    """The nominal figures a gpubench results file recorded (datasheet row, PCIe link)."""
    tele = doc.get("telemetry") or {}
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
    return {r["id"]: r for r in doc.get("results", [])}


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


def cuda_index(doc):
    return {r["key"]: r for r in doc.get("rows", []) if "key" in r}


def cuda_clock(row):
    clock = ((row or {}).get("telemetry") or {}).get("sm_clock_mhz") or {}
    return clock.get("median")


def size_label(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return f"{nbytes}B"


class Table:
    """The rows of the side-by-side comparison and the checks made along the way."""

    def __init__(self, ours, theirs, nominal):
        self.ours, self.theirs, self.nominal = ours, theirs, nominal
        self.rows, self.above_nominal = [], []

    def add(self, label, ours_id, cuda_key, nominal_key, target, higher_is_better=True):
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
            "label": label, "gpubench_id": ours_id, "cuda_key": cuda_key,
            "gpubench": a, "gpubench_status": (mine or {}).get("status", "absent"),
            "gpubench_reason": (mine or {}).get("reason"),
            "cuda": b, "cuda_status": (ref or {}).get("status", "absent"),
            "cuda_reason": (ref or {}).get("reason"),
            "unit": (mine or {}).get("unit") or (ref or {}).get("unit"),
            "ratio": ratio, "target": target, "nominal": nominal,
            "met": None if ratio is None or target is None else ratio >= target,
            "sm_clock_mhz": {"gpubench": gpubench_clock(mine), "cuda": cuda_clock(ref)},
        })

    def own_ratio(self, label, numerator_id, denominator_id, target):
        """gpubench against itself (f16 over f32): the ratio alone, its parts in the notes."""
        a = gpubench_value(self.ours.get(numerator_id))
        b = gpubench_value(self.ours.get(denominator_id))
        ratio = a / b if a is not None and b else None
        self.rows.append({
            "label": label, "gpubench_id": f"{numerator_id} / {denominator_id}",
            "cuda_key": None, "gpubench": ratio, "cuda": None, "unit": "ratio", "ratio": ratio,
            "target": target, "nominal": None, "gpubench_status": "ok" if ratio else "absent",
            "cuda_status": "own", "met": None if ratio is None else ratio >= target,
            "sm_clock_mhz": {}, "note": f"{fmt(a)} / {fmt(b)} GFLOP/s",
        })


def best_of(ours, prefix, suffix):
    """The id of the fastest ok result whose id starts with prefix and ends with suffix."""
    best = None
    for rid, result in ours.items():
        value = gpubench_value(result)
        if rid.startswith(prefix) and rid.endswith(suffix) and value is not None:
            if best is None or value > best[1]:
                best = (rid, value)
    return best[0] if best else f"{prefix}*{suffix}"


def build(gpubench, cuda, nominal):
    ours, theirs = gpubench_index(gpubench), cuda_index(cuda)
    table = Table(ours, theirs, nominal)
    plan = cuda.get("plan", {})
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
        best = best_of(ours, f"transfer/{direction}-", f"/bytes/{largest}")
        table.add(f"best {direction.upper()} path at {largest} vs CUDA pinned", best,
                  f"transfer/{direction}-pinned/{largest}", "pcie_gbs",
                  0.7 if direction == "h2d" else None)
        table.add(f"best {direction.upper()} path at {largest} vs CUDA pageable", best,
                  f"transfer/{direction}-pageable/{largest}", "pcie_gbs", None)
    for label, mine, ref in (
        ("dispatch in a pass vs CUDA graph node", "launch/dispatch-in-pass/per-dispatch",
         "launch/graph"),
        ("dispatch in a pass vs CUDA raw launch loop", "launch/dispatch-in-pass/per-dispatch",
         "launch/raw-loop"),
        ("GPU gap per dispatch vs CUDA graph node", "launch/gpu-gap/per-dispatch",
         "launch/graph"),
        ("GPU gap, independent dispatches, vs CUDA graph node",
         "launch/gpu-gap-independent/per-dispatch", "launch/graph"),
        ("round trip vs CUDA launch + synchronize", "launch/round-trip/one-dispatch",
         "launch/round-trip"),
        ("round trip (spin) vs CUDA launch + synchronize",
         "launch/round-trip-spin/one-dispatch", "launch/round-trip"),
    ):
        table.add(label, mine, ref, None, None, higher_is_better=False)
    return table


def fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def status_note(row, side):
    status = row.get(f"{side}_status")
    if status in ("ok", "own"):
        return ""
    reason = row.get(f"{side}_reason")
    return f"{status}" + (f": {reason}" if reason else "")


def markdown(table, gpubench, cuda, nominal):
    machine = gpubench.get("machine", {})
    adapter = machine.get("adapter", {}) if isinstance(machine, dict) else {}
    out = [
        "# gpubench (Vulkan) beside CUDA",
        "",
        f"- gpubench adapter: {adapter.get('name', '?')} ({adapter.get('driver_info', '?')}), "
        f"backend {adapter.get('backend', '?')}",
        f"- CUDA reference: {cuda.get('device', '?')}, torch {cuda.get('torch', '?')}, "
        f"CUDA {cuda.get('cuda', '?')}; NVML: {json.dumps(cuda.get('nvml', {}))}",
        f"- nominal figures: {nominal.get('source', 'none given')}",
        "",
        "Ratio: gpubench / CUDA for rates; CUDA / gpubench for times (above 1: gpubench faster). "
        "Targets are on the ratio.",
        "",
        "| quantity | gpubench | CUDA | unit | ratio | target | nominal | SM MHz gpubench / CUDA "
        "| notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.rows:
        target = "-" if r["target"] is None else (
            f">= {r['target']:g} ({'met' if r['met'] else 'missed'})" if r["met"] is not None
            else f">= {r['target']:g} (no figure)")
        clocks = r.get("sm_clock_mhz") or {}
        notes = "; ".join(n for n in (status_note(r, "gpubench"), status_note(r, "cuda"),
                                      r.get("note")) if n)
        out.append(
            f"| {r['label']} | {fmt(r['gpubench'])} | {fmt(r['cuda'])} | {r['unit'] or '-'} | "
            f"{fmt(r['ratio'])} | {target} | {fmt(r['nominal'])} | "
            f"{fmt(clocks.get('gpubench'))} / {fmt(clocks.get('cuda'))} | {notes} |")
    unverified = [rid for rid, res in gpubench_index(gpubench).items()
                  if res.get("status") == "ok" and res.get("role", "kernel") == "kernel"
                  and not res.get("verified")]
    failed = [rid for rid, res in gpubench_index(gpubench).items()
              if res.get("status") == "failed"]
    out += [
        "",
        f"- gpubench results ok but not verified (kernels): {len(unverified)}"
        + (f" ({', '.join(unverified[:8])})" if unverified else ""),
        f"- gpubench results failed: {len(failed)}" + (f" ({', '.join(failed[:8])})"
                                                      if failed else ""),
        f"- figures above nominal: {len(table.above_nominal)}"
        + "".join(f"\n  - {line}" for line in table.above_nominal),
    ]
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpubench")
    parser.add_argument("cuda")
    parser.add_argument("--nominal")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args(argv)
    gpubench = load(args.gpubench, "gpubench results")
    cuda = load(args.cuda, "CUDA reference")
    nominal = (load(args.nominal, "nominal figures") if args.nominal
               else nominal_from_results(gpubench))
    table = build(gpubench, cuda, nominal)
    sys.stdout.write(markdown(table, gpubench, cuda, nominal))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"rows": table.rows, "above_nominal": table.above_nominal}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
