#!/usr/bin/env python3
"""The Vulkan peers of the GPU check: vkpeak and clpeak, run by scripts/gpu-check.sh on the adapter
gpubench measures, read here into rows (peers.json) and paired with the side-by-side table's rows.

  python3 scripts/peers.py scenarios              vkpeak's scenarios the check runs, comma-separated
  python3 scripts/peers.py device TOOL LISTING ADAPTERS.json INDEX
                        the peer's device index for gpubench's adapter (exit 1: why not, on stdout)
  python3 scripts/peers.py parse OUTDIR [--json OUT]   OUTDIR's raw outputs as peers.json

Why peers beside CUDA: CUDA's figure says what the card does; a same-API peer (Vulkan on the same
driver) says what Vulkan lets a program reach there. A gap to CUDA that the peer shares is the
API's or the driver's; a gap the peer does not share is gpubench's own.

What the check leaves in OUTDIR (gpu-check.sh writes the `gpu-check:` lines, never the peers):
  vkpeak.txt, clpeak.txt          the peer's stdout and stderr, then `gpu-check: TOOL exit N`; or,
                                  where it did not run, only `gpu-check: not run: WHY`
  vkpeak-devices.txt, clpeak-devices.txt   the peer's own device list (how the index was picked)
  peers-versions.txt              the carried folder's VERSIONS file, where it had one: one line
                                  a tool, `vkpeak <commit> ...`, `clpeak <commit> ...`

The formats read are those of vkpeak 74f5285 and clpeak a68fbf0 (v2.1.2), from their sources and
from real runs on lavapipe (scripts/tests/fixtures/peers). vkpeak prints `NAME = VALUE UNIT` on
stdout and its device on stderr; for a scenario the device cannot run (no fp64, no cooperative
matrix, ...) it measures nothing and prints 0.00, its only word for "unsupported" (vkpeak.cpp
returns 0 before measuring). clpeak prints an indented report: a test header `NAME (UNIT)`, then
`reading : VALUE` or `reading : [status] reason`; a test it cannot run is left out.
"""

import argparse
import json
import os
import re
import sys

# vkpeak's scenarios the check runs (vkpeak's own names): the vec4 peaks, fp64, int8 dot
# products, the f16 cooperative-matrix peak, and the host-device copies.
VKPEAK_SCENARIOS = ["fp32-vec4", "fp16-vec4", "fp64-vec4", "int8-dotprod", "fp16-matrix",
                    "copy-h2d", "copy-d2h"]
VKPEAK_WHAT = {
    "fp32-vec4": "f32 FMA peak, vec4 FMA chains in registers (2 FLOP per FMA)",
    "fp16-vec4": "f16 FMA peak, vec4 FMA chains in registers (2 FLOP per FMA)",
    "fp64-vec4": "f64 FMA peak, vec4 FMA chains in registers (2 FLOP per FMA)",
    "int8-dotprod": "int8 dot products (VK_KHR_shader_integer_dot_product), 2 OP per MAC",
    "fp16-matrix": "f16 cooperative-matrix MMA peak in registers (no loads), at the first shape "
                   "the driver lists, f16 accumulation where listed, else f32",
    "copy-h2d": "host to device copy through ncnn's staging allocator, up to 512 MiB, best of 10",
    "copy-d2h": "device to host copy through ncnn's staging allocator, up to 512 MiB, best of 10",
}
UNITS = {"GFLOPS": "GFLOP/s", "GIOPS": "GOP/s", "GBPS": "GB/s", "US": "us"}
# clpeak's tests the check runs (its flags) and the rows read from them: (row key, test header,
# reading, what). The bandwidth row is the float4 reading: the same width as gpubench's vec4-f32
# stream read.
CLPEAK_FLAGS = ["--vulkan", "--global-memory-bandwidth", "--kernel-launch-latency"]
CLPEAK_ROWS = [
    ("clpeak/global-bandwidth", "Global memory bandwidth", "float4",
     "read bandwidth, float4 loads (16 per invocation, one float written per 16 read) of up to "
     "512 MiB; only the bytes read are counted"),
    ("clpeak/global-bandwidth-float", "Global memory bandwidth", "float",
     "read bandwidth, scalar float loads"),
    ("clpeak/global-bandwidth-float2", "Global memory bandwidth", "float2",
     "read bandwidth, float2 loads"),
    ("clpeak/kernel-latency", "Kernel launch latency", "roundtrip",
     "round trip of one 1x1x1 dispatch: vkQueueSubmit of a pre-recorded command buffer, then "
     "vkQueueWaitIdle, host clock, mean of 2000"),
    ("clpeak/dispatch-latency", "Kernel launch latency", "dispatch",
     "submit to kernel start (VK_EXT_calibrated_timestamps), mean"),
]
CHECK_LINE = re.compile(r"^gpu-check: (.*)$")


def read_text(path):
    """The file's text, or None where it does not exist (a peer that never ran)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def check_notes(text):
    """What gpu-check.sh wrote into a raw output: (why it did not run or None, exit code or None,
    the peer's own lines)."""
    not_run, code, own = None, None, []
    for line in text.splitlines():
        match = CHECK_LINE.match(line)
        if not match:
            own.append(line)
            continue
        note = match.group(1)
        if note.startswith("not run: "):
            not_run = note[len("not run: "):]
        exit_match = re.search(r" exit (\d+)", note)
        if exit_match:
            code = int(exit_match.group(1))
    return not_run, code, own


def stopped_reason(tool, code, own, timeout=None):
    """Why a figure the peer should have printed is absent, from its exit code and last words."""
    if code == 124 or code == 137:
        return f"not measured: {tool} timed out" + (f" (PEERS_TIMEOUT {timeout} s)" if timeout
                                                    else "") + " before printing it"
    if code in (130, 143):
        return f"not measured: {tool} was stopped by the check's SIG" + \
            ("INT" if code == 130 else "TERM") + " before printing it"
    last = next((line.strip() for line in reversed(own) if line.strip()), "")
    if code not in (None, 0):
        return f"not measured: {tool} exited {code} before printing it" + (
            f" (its last words: {last!r})" if last else "")
    return f"not measured: {tool} printed no line for it"


def versions(outdir):
    """tool -> the VERSIONS line the carried folder had for it (commit and flags)."""
    text = read_text(os.path.join(outdir, "peers-versions.txt")) or ""
    found = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 1)
        if parts and parts[0] in ("vkpeak", "clpeak"):
            found[parts[0]] = line.strip()
    return found


def row(key, value, unit, what, tool, status="ok", reason=None):
    return {"key": key, "value": value, "unit": unit, "what": what, "tool": tool,
            "status": status, "reason": reason}


def parse_vkpeak(text, tool="vkpeak", timeout=None):
    """(header, rows) from vkpeak's output: the device and driver it named, and one row per
    scenario the check runs. A 0.00 keeps vkpeak's own line as the reason."""
    header = {"tool": tool}
    if text is None:
        return dict(header, status="not run", reason="vkpeak.txt missing: the check stopped "
                    "before the peers, or is older than them"), \
            [row(f"vkpeak/{s}", None, None, VKPEAK_WHAT[s], tool, "not run",
                 "vkpeak.txt missing") for s in VKPEAK_SCENARIOS]
    not_run, code, own = check_notes(text)
    figures = {}
    for line in own:
        match = re.match(r"^(device|driver)\s+= (.*)$", line)
        if match:
            header[match.group(1)] = match.group(2).strip()
        match = re.match(r"^([a-z0-9]+-[a-z0-9]+)\s*= ([0-9.]+) (GFLOPS|GIOPS|GBPS)\s*$", line)
        if match:
            figures[match.group(1)] = (float(match.group(2)), match.group(3), line.strip())
    header.update(exit=code, status="not run" if not_run else "ran", reason=not_run)
    rows = []
    for name in VKPEAK_SCENARIOS + [n for n in figures if n not in VKPEAK_SCENARIOS]:
        what = VKPEAK_WHAT.get(name, f"vkpeak scenario {name}")
        if not_run:
            rows.append(row(f"vkpeak/{name}", None, None, what, tool, "not run", not_run))
        elif name not in figures:
            rows.append(row(f"vkpeak/{name}", None, None, what, tool, "absent",
                            stopped_reason("vkpeak", code, own, timeout)))
        else:
            value, unit, line = figures[name]
            if value == 0:
                rows.append(row(f"vkpeak/{name}", None, UNITS[unit], what, tool, "unsupported",
                                f"vkpeak printed \"{line}\": vkpeak measures nothing and prints "
                                f"0 where the device lacks what the scenario needs"))
            else:
                rows.append(row(f"vkpeak/{name}", value, UNITS[unit], what, tool))
    return header, rows


def clpeak_readings(lines):
    """{(test header, reading): (value or None, '[status] reason' or None)} and the device line
    from clpeak's text report."""
    readings, device, test = {}, None, None
    for line in lines:
        match = re.match(r"^\s+Device \d+: (.*)$", line)
        if match:
            device = match.group(1).strip()
            continue
        match = re.match(r"^\s+(\S.*?) \(([A-Z]+)\)\s*$", line)
        if match:
            test = match.group(1)
            continue
        match = re.match(r"^\s+(\S+)\s+: (?:([0-9.]+)|(\[\w+\].*))\s*$", line)
        if match and test:
            value = float(match.group(2)) if match.group(2) else None
            readings[(test, match.group(1))] = (value, match.group(3))
    return readings, device


def parse_clpeak(text, tool="clpeak", timeout=None):
    """(header, rows) from clpeak's report: the device it ran on and the rows of CLPEAK_ROWS.
    A reading clpeak marked ([unsupported] ...) keeps clpeak's words as the reason."""
    header = {"tool": tool}
    units = {"Global memory bandwidth": "GB/s", "Kernel launch latency": "us"}
    if text is None:
        return dict(header, status="not run", reason="clpeak.txt missing: the check stopped "
                    "before the peers, or is older than them"), \
            [row(k, None, units[t], w, tool, "not run", "clpeak.txt missing")
             for k, t, _, w in CLPEAK_ROWS]
    not_run, code, own = check_notes(text)
    readings, device = clpeak_readings(own)
    header.update(device=device, exit=code, status="not run" if not_run else "ran",
                  reason=not_run)
    rows = []
    for key, test, reading, what in CLPEAK_ROWS:
        value, words = readings.get((test, reading), (None, None))
        if not_run:
            rows.append(row(key, None, units[test], what, tool, "not run", not_run))
        elif value is not None:
            rows.append(row(key, value, units[test], what, tool))
        elif words:
            rows.append(row(key, None, units[test], what, tool, "unsupported",
                            f"clpeak printed \"{reading} : {words}\""))
        else:
            rows.append(row(key, None, units[test], what, tool, "absent",
                            stopped_reason("clpeak", code, own, timeout)))
    return header, rows


def parse(outdir, timeout=None):
    """peers.json's document from the raw outputs in outdir."""
    known = versions(outdir)
    tools, rows = {}, []
    clpeak_version = re.search(r"clpeak version: (\S+)",
                               read_text(os.path.join(outdir, "clpeak-devices.txt")) or "")
    names = {
        "vkpeak": known.get("vkpeak", "vkpeak (commit not recorded: no VERSIONS file in the "
                                      "peers folder)"),
        "clpeak": known.get("clpeak") or (f"clpeak {clpeak_version.group(1)}" if clpeak_version
                                          else "clpeak (version not recorded)"),
    }
    for name, reader in (("vkpeak", parse_vkpeak), ("clpeak", parse_clpeak)):
        header, own_rows = reader(read_text(os.path.join(outdir, f"{name}.txt")), names[name],
                                  timeout)
        tools[name] = header
        rows += own_rows
    return {"tools": tools, "rows": rows}


def vkpeak_devices(text):
    """[(index, name)] from vkpeak's answer to a device index it does not have."""
    return [(int(m.group(1)), m.group(2).strip())
            for m in re.finditer(r"^(\d+) = (.*)$", text or "", re.M)]


def clpeak_devices(text):
    """[(index, name)] from `clpeak --list-devices --vulkan`."""
    return [(int(m.group(1)), m.group(2).strip())
            for m in re.finditer(r"^\s*Vulkan Device (\d+): (.*?)(?: \[\w+\])?\s*$", text or "",
                                 re.M)]


def bare(name):
    """A device name without its parenthesised tail: lavapipe puts its LLVM version there."""
    return re.sub(r"\s*\(.*\)\s*$", "", name).strip().lower()


def pick_device(devices, adapter_name):
    """(index, how) of gpubench's adapter among a peer's devices: the same name, else the same
    name without its parenthesised tail, else the only device; (None, why) otherwise. Names,
    because each tool numbers devices its own way (wgpu lists every backend's adapters; the peers
    list Vulkan's physical devices)."""
    for index, name in devices:
        if name == adapter_name:
            return index, f"the same name, {name!r}"
    matches = [(i, n) for i, n in devices if bare(n) == bare(adapter_name or "")]
    if len(matches) == 1:
        return matches[0][0], f"the same name before its parentheses, {matches[0][1]!r}"
    if len(devices) == 1:
        return devices[0][0], f"the only device it lists, {devices[0][1]!r}"
    return None, (f"gpubench's adapter {adapter_name!r} is not among its devices "
                  f"{[n for _, n in devices]}")


def adapter_name(adapters_path, index):
    """The name gpubench gave the adapter at index in `gpubench list --json`."""
    try:
        with open(adapters_path, encoding="utf-8") as f:
            adapters = json.load(f)
    except (OSError, ValueError):
        return None
    return next((a.get("name") for a in adapters if str(a.get("index")) == str(index)), None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("scenarios")
    device = sub.add_parser("device")
    for name in ("tool", "listing", "adapters", "index"):
        device.add_argument(name)
    parsed = sub.add_parser("parse")
    parsed.add_argument("outdir")
    parsed.add_argument("--json", dest="json_out")
    parsed.add_argument("--timeout", help="PEERS_TIMEOUT, named where a peer ran out of it")
    args = parser.parse_args(argv)
    if args.command == "scenarios":
        print(",".join(VKPEAK_SCENARIOS))
        return 0
    if args.command == "device":
        listing = read_text(args.listing) or ""
        devices = (vkpeak_devices if args.tool == "vkpeak" else clpeak_devices)(listing)
        index, how = pick_device(devices, adapter_name(args.adapters, args.index))
        if index is None:
            # On stdout: the check writes it into the peer's raw output as the reason.
            print(f"{args.tool} cannot find gpubench's adapter: {how}")
            return 1
        print(f"{args.tool}: device {index}: {how}", file=sys.stderr)
        print(index)
        return 0
    doc = parse(args.outdir, args.timeout)
    text = json.dumps(doc, indent=2)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
