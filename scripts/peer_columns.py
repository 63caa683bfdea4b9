"""The Vulkan peer column of scripts/side_by_side.py's table, and the split of the cooperative-
matrix row's gap: which vkpeak or clpeak figure (peers.json, scripts/peers.py) stands beside
which gpubench row, and how closely the two measure the same thing.

Why a separate module: side_by_side.py pairs gpubench with CUDA; this pairs it with a program
through the same API on the same card, whose rules (what each peer times) are the peers' own.
A pairing is "same" where both time the same quantity the same way, "approximate" where they
differ in a way the note names; rows with no Vulkan peer keep "-".
"""

import re

# (gpubench id pattern, peer row, pairing, what differs). The first pattern that matches wins.
PAIRS = [
    (r"^compute/fma-peak/.*-f32$", "vkpeak/fp32-vec4", "same",
     "both FMA chains in registers, 2 FLOP per FMA"),
    (r"^compute/fma-peak/.*-f16$", "vkpeak/fp16-vec4", "same",
     "both FMA chains in registers, 2 FLOP per FMA"),
    (r"^stream/read/", "clpeak/global-bandwidth", "same",
     "both a read stream far past the caches, bytes read counted (clpeak: float4, up to 512 MiB)"),
    (r"^stream/(copy|triad)/", "clpeak/global-bandwidth", "approximate",
     "clpeak reads only (one float written per 16 read); this row reads and writes"),
    (r"^launch/round-trip/one-dispatch$", "clpeak/kernel-latency", "same",
     "both submit one dispatch and block until done; clpeak resubmits a pre-recorded command "
     "buffer (vkQueueWaitIdle), wgpu records one each time"),
    (r"^launch/round-trip-spin/", "clpeak/kernel-latency", "approximate",
     "clpeak blocks in vkQueueWaitIdle; this row spins"),
    (r"^transfer/h2d-", "vkpeak/copy-h2d", "approximate",
     "vkpeak times ncnn's upload (its staging allocator) of up to 512 MiB, best of 10"),
    (r"^transfer/d2h-", "vkpeak/copy-d2h", "approximate",
     "vkpeak times ncnn's download (its staging allocator) of up to 512 MiB, best of 10"),
    (r"^matmul/f16-coop/", "vkpeak/fp16-matrix", "split",
     "vkpeak's is an MMA peak with no loads, f16 accumulation where the driver lists it; "
     "gpubench and CUDA run whole GEMMs accumulating in f32"),
]
HEADER = "Vulkan peer, same card (ratio read as the CUDA one)"


def rows_by_key(peers):
    return {r["key"]: r for r in (peers or {}).get("rows") or [] if "key" in r}


def pairing(gpubench_id):
    """(peer key, pairing, what differs) for a gpubench id, or None."""
    for pattern, key, how, note in PAIRS:
        if gpubench_id and re.search(pattern, gpubench_id):
            return key, how, note
    return None


def peer_ratio(mine, peer, higher_is_better):
    """gpubench over the peer for rates, the peer over gpubench for times (above 1: gpubench
    better), as the CUDA ratio is read."""
    if mine is None or not peer:
        return None
    return mine / peer if higher_is_better else peer / mine


def coop_split(row, peer):
    """The sentence splitting the cooperative-matrix row's gap to CUDA into the kernel's part and
    the extension's part, or why it cannot be split."""
    g, c, v = row.get("gpubench"), row.get("cuda"), (peer or {}).get("value")
    missing = [name for name, value in (("gpubench coop", g), ("CUDA HGEMM", c),
                                        ("vkpeak fp16-matrix", v)) if not value]
    if missing:
        # The peer's own reason is already in the cell, before this sentence.
        return f"gap not split: no {', no '.join(missing)} figure"
    return (f"gap split: gpubench / CUDA {g / c:.3g} = the kernel (gpubench coop / vkpeak "
            f"fp16-matrix) {g / v:.3g} x VK_KHR_cooperative_matrix on this card (vkpeak "
            f"fp16-matrix / CUDA HGEMM) {v / c:.3g}; vkpeak's is a peak with no loads, so the "
            f"second factor is the most a Vulkan GEMM could reach and the first includes what "
            f"any GEMM loses to its loads")


def attach(table, peers, problem=None):
    """Puts each paired row's peer figure in row['peer'] (and the coop row's split); where the
    peers file could not be read, every paired row says why."""
    by_key = rows_by_key(peers)
    for row in table.rows:
        found = pairing(row.get("gpubench_id"))
        if not found:
            continue
        key, how, note = found
        peer = by_key.get(key)
        higher = row.get("unit") != "us"
        entry = {"key": key, "pairing": how, "note": note,
                 "value": (peer or {}).get("value"), "unit": (peer or {}).get("unit"),
                 "status": (peer or {}).get("status", "absent"),
                 "reason": (peer or {}).get("reason") if peer else (
                     f"not run: {problem}" if problem else f"no {key} row in peers.json"),
                 "ratio": peer_ratio(row.get("gpubench"), (peer or {}).get("value"), higher)}
        if how == "split":
            entry["split"] = coop_split(row, peer)
        row["peer"] = entry


def fmt(value):
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def cell(row):
    """The peer column's cell: the figure, its ratio and the pairing, or the peer's status."""
    peer = row.get("peer")
    if not peer:
        return "-"
    name = peer["key"].replace("/", " ")
    if peer["value"] is None:
        text = f"{name}: {peer['status']}: {peer['reason']}"
    else:
        ratio = f", ratio {fmt(peer['ratio'])}" if peer.get("ratio") is not None else ""
        text = f"{name} {fmt(peer['value'])} {peer['unit']}{ratio} ({peer['pairing']}: " \
               f"{peer['note']})"
    if peer.get("split"):
        text += f"; {peer['split']}"
    return text.replace("|", "/")


def section(peers, problem=None):
    """Every peer row under its own heading: the figures with no gpubench row to stand beside
    (fp64, int8) are seen too, each with what it measures and the tool that printed it."""
    out = ["", "## Vulkan peers on the same adapter", ""]
    if peers is None:
        return out + [f"Not read: {problem}."]
    for name, tool in (peers.get("tools") or {}).items():
        out.append(f"- {tool.get('tool', name)}: device {tool.get('device') or '?'}"
                   + (f", driver {tool['driver']}" if tool.get("driver") else "")
                   + f"; {tool.get('status')}" + (f" ({tool['reason']})" if tool.get("reason")
                                                  else "")
                   + (f"; exit {tool['exit']}" if tool.get("exit") is not None else ""))
    out += ["", "| peer row | value | unit | what | status |", "|---|---|---|---|---|"]
    for r in peers.get("rows") or []:
        value = "-" if r.get("value") is None else fmt(r["value"])
        status = r["status"] + (f": {r['reason']}" if r.get("reason") else "")
        out.append(f"| {r['key']} | {value} | {r.get('unit') or '-'} | {r['what']} | "
                   f"{status.replace('|', '/')} |")
    return out
