"""The memory hierarchy's side of the GPU check, without a GPU: cuda_reference.py's memory plan
(gpubench's sweep and labels) and how cuda_memory.cu's answer becomes rows, and the pairs
memory_pairs.py builds from a gpubench memory results file beside a CUDA document."""

import importlib.util
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
KIB, MIB = 1 << 10, 1 << 20


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = load("cuda_reference")
sbs = load("side_by_side")
pairs = load("memory_pairs")


def result(rid, median, unit, **params):
    """A gpubench result as its results file holds it."""
    return {"id": rid, "status": "ok", "unit": unit, "role": "kernel", "verified": True,
            "params": params, "summary": {"median": median}}


def cuda_row(key, value, unit, nbytes=None):
    row = {"key": key, "status": "ok", "value": value, "unit": unit,
           "telemetry": {"sm_clock_mhz": {"median": 1980}}}
    if nbytes is not None:
        row["bytes"] = nbytes
    return row


def memory_doc():
    """gpubench's memory file: reads and chases at 4, 6, 8 and 1536 KiB, a level over the
    first three, the plateau beyond, the tile read and two atomic targets."""
    results = []
    for nbytes, label, gbs, ns in ((4 * KIB, "4KiB", 20000.0, 40.0), (6 * KIB, "6KiB", 21000.0, 41.0),
                                   (8 * KIB, "8KiB", 19000.0, 39.0),
                                   (1536 * KIB, "1.5MiB", 9000.0, 250.0)):
        results.append(result(f"memory/read/{label}", gbs, "GB/s", kernel="read",
                              working_set_bytes=nbytes))
        results.append(result(f"memory/latency/{label}", ns, "ns", kernel="chase",
                              working_set_bytes=nbytes))
    level = {"first_bytes": 4 * KIB, "last_bytes": 8 * KIB}
    results += [result("memory/level-1/size", 8.0, "KiB", **level),
                result("memory/level-1/bandwidth", 20000.0, "GB/s", **level),
                result("memory/level-1/latency", 40.0, "ns", **level),
                result("memory/beyond-caches/bandwidth", 9000.0, "GB/s",
                       first_bytes=1536 * KIB, last_bytes=1536 * KIB),
                result("memory/workgroup/read-vec4", 25000.0, "GB/s", kernel="workgroup"),
                result("memory/atomic-add/storage-one", 300.0, "GIOP/s", kernel="atomic"),
                result("memory/atomic-add/storage-one-lane-indexed", 1.5, "GIOP/s",
                       kernel="atomic")]
    return {"complete": True, "results": results}


def cuda_doc():
    """The reference's memory section at 4 KiB to 12 KiB and 1.5 MiB (12 KiB: CUDA only)."""
    sizes = [4 * KIB, 6 * KIB, 8 * KIB, 12 * KIB, 1536 * KIB]
    rows = []
    for nbytes, gbs, ns in zip(sizes, (25000.0, 24000.0, 23000.0, 22000.0, 10000.0),
                               (30.0, 31.0, 32.0, 33.0, 200.0)):
        label = ref.size_label(nbytes)
        rows.append(cuda_row(f"memory/read/{label}", gbs, "GB/s", nbytes))
        rows.append(cuda_row(f"memory/latency/{label}", ns, "ns", nbytes))
    rows += [cuda_row("memory/workgroup/read-vec4", 30000.0, "GB/s"),
             cuda_row("memory/atomic-add/storage-one", 400.0, "GIOP/s"),
             cuda_row("memory/atomic-add/storage-one-lane-indexed", 1.6, "GIOP/s")]
    return {"complete": True, "plan": {"sections": ["memory"], "memory_sizes": sizes},
            "rows": rows}


class MemoryPlan(unittest.TestCase):
    def test_the_sweep_is_gpubenchs_with_its_labels(self):
        self.assertEqual(ref.working_sets(64 * KIB), [k * KIB for k in
                                                      (4, 6, 8, 12, 16, 24, 32, 48, 64)])
        sizes = ref.DEFAULT_MEMORY_SIZES
        self.assertEqual((sizes[0], sizes[-1], len(sizes)), (4 * KIB, 512 * MIB, 35))
        self.assertEqual(ref.size_label(1536 * KIB), "1.5MiB")
        self.assertEqual(ref.size_label(384 * MIB), "384MiB")
        self.assertEqual(pairs.size_label(1536 * KIB), "1.5MiB")

    def test_quick_keeps_the_cards_sweep_and_the_flag_overrides_it(self):
        # A GPU sweeps to four times its cache in every profile.
        quick = ref.plan_from(ref.arguments(["--quick"]))
        self.assertEqual(quick["memory_sizes"], ref.DEFAULT_MEMORY_SIZES)
        self.assertIn("memory", quick["sections"])
        given = ref.plan_from(ref.arguments(["--memory-sizes", "4096,1572864"]))
        self.assertEqual(given["memory_sizes"], [4096, 1572864])


class MemoryRows(unittest.TestCase):
    """cuda_memory.cu's entries as rows."""

    def test_a_working_set_row_is_keyed_like_gpubench_and_says_what_it_counts(self):
        entry = {"bytes": 1536 * KIB, "blocks": 1024, "status": "ok", "gbs": 9000.0, "ms": 0.2,
                 "reps": 10, "samples": 5}
        row = ref.sweep_row("read", entry, "m", {"telemetry": None})
        self.assertEqual(row["key"], "memory/read/1.5MiB")
        self.assertEqual((row["value"], row["unit"], row["bytes"]), (9000.0, "GB/s", 1536 * KIB))
        self.assertIn("sums written", row["counts"])
        self.assertIn("1024 blocks", row["method"])
        lat = ref.sweep_row("latency", {"bytes": 4096, "status": "ok", "ns": 30.0}, "m", {})
        self.assertEqual((lat["key"], lat["unit"]), ("memory/latency/4KiB", "ns"))

    def test_a_failed_or_unreached_row_keeps_its_status_and_reason_and_no_number(self):
        capped = {"bytes": 512 * MIB, "status": "not-measured",
                  "reason": "the time cap of 60.0 s was reached (60.2 s elapsed)"}
        row = ref.sweep_row("latency-lanes", capped, "m", {})
        self.assertEqual((row["key"], row["status"]), ("memory/latency-lanes/512MiB",
                                                      "not-measured"))
        self.assertIn("time cap", row["reason"])
        self.assertNotIn("value", row)
        wrong = ref.atomic_row({"target": "storage-each", "status": "failed",
                                "reason": "word 3 holds 1"}, "m", {})
        self.assertEqual(wrong["status"], "failed")
        self.assertNotIn("value", wrong)

    def test_stride_and_atomic_rows_name_their_conflict_and_aggregation(self):
        stride = ref.workgroup_row({"name": "stride-32", "status": "ok", "gbs": 900.0}, "m", {})
        self.assertIn("32-way bank conflict", stride["counts"])
        odd = ref.workgroup_row({"name": "stride-33", "status": "ok", "gbs": 27000.0}, "m", {})
        self.assertIn("1-way", odd["counts"])
        folded = ref.atomic_row({"target": "workgroup-one", "aggregation": "may-fold",
                                 "status": "ok", "giops": 900.0}, "m", {})
        self.assertEqual((folded["key"], folded["aggregation"]),
                         ("memory/atomic-add/workgroup-one", "may-fold"))
        self.assertIn("aggregated atomics", folded["counts"])


class MemoryPairs(unittest.TestCase):
    def build(self, memory=None, cuda=None, problem=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gpubench-memory.json")
            if memory is not None:
                with open(path, "w") as f:
                    json.dump(memory, f)
            table = pairs.build(sbs, path, {"results": []}, cuda, problem)
        return table, {r["label"]: r for r in table.rows}

    def test_sizes_both_sides_hold_pair_by_bytes_with_time_ratios_inverted(self):
        table, rows = self.build(memory_doc(), cuda_doc())
        read = rows["read bandwidth at 1.5MiB"]
        self.assertEqual((read["gpubench_id"], read["cuda_key"]),
                         ("memory/read/1.5MiB", "memory/read/1.5MiB"))
        self.assertAlmostEqual(read["ratio"], 0.9)
        self.assertIsNone(read["target"])
        # Latency: CUDA / gpubench (above 1: gpubench faster).
        self.assertAlmostEqual(rows["latency, one thread at 4KiB"]["ratio"], 30.0 / 40.0)
        # 12 KiB is CUDA's only: no pair.
        self.assertFalse([label for label in rows if "12KiB" in label])

    def test_levels_stand_beside_cudas_curve_over_the_same_sizes(self):
        _, rows = self.build(memory_doc(), cuda_doc())
        level = rows["level-1 bandwidth (4KiB to 8KiB)"]
        self.assertEqual(level["cuda"], 24000.0, "the median of CUDA's 4, 6 and 8 KiB")
        self.assertAlmostEqual(level["ratio"], 20000.0 / 24000.0)
        self.assertIn("detected size 8 KiB", level["note"])
        self.assertEqual(rows["level-1 latency (4KiB to 8KiB)"]["cuda"], 31.0)
        beyond = rows["beyond-caches bandwidth (1.5MiB to 1.5MiB)"]
        self.assertEqual(beyond["cuda"], 10000.0)
        self.assertIn("beyond its caches", beyond["note"])

    def test_a_level_whose_size_the_sweep_did_not_resolve_says_why(self):
        reason = "not resolved by this sweep: the level's plateau runs to the sweep's largest"
        size = {"id": "memory/level-2/size", "status": "skipped", "reason": reason,
                "summary": None}
        words = pairs.level_words({"memory/level-2/size": size}, "level-2")
        self.assertEqual(words, f"level-2, size {reason}")
        self.assertEqual(pairs.level_words({}, "level-3"), "level-3 (no size row)")

    def test_the_folded_atomics_say_both_compilers_may_fold(self):
        _, rows = self.build(memory_doc(), cuda_doc())
        folded = rows["atomicAdd storage-one"]
        self.assertAlmostEqual(folded["ratio"], 0.75)
        self.assertIn("both compilers may fold", folded["note"])
        self.assertIsNone(rows["atomicAdd storage-one-lane-indexed"]["note"])
        self.assertAlmostEqual(rows["shared memory read-vec4"]["ratio"], 25000.0 / 30000.0)

    def test_a_missing_side_says_why_in_its_cells(self):
        table, rows = self.build(None, cuda_doc())
        self.assertEqual(rows["atomicAdd storage-one"]["gpubench_why"],
                         "not measured: gpubench-memory.json missing")
        self.assertTrue(any("no working set held by both sides" in n for n in table.notes))
        failed = {"complete": True, "plan": {"sections": ["memory"],
                                             "memory_sizes": [4 * KIB]},
                  "rows": [{"key": "memory", "status": "failed", "reason": "nvcc failed"}]}
        _, rows = self.build(memory_doc(), failed)
        self.assertEqual(rows["read bandwidth at 4KiB"]["cuda_why"],
                         "not measured: memory failed: nvcc failed")

    def test_an_old_check_without_memory_has_no_section(self):
        self.assertIsNone(pairs.build(sbs, None, {"results": []}, {"rows": []}))
        self.assertEqual(pairs.markdown(sbs, None), "")

    def test_the_command_line_prints_the_section_and_writes_its_rows(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            for name, doc in (("g", {"results": []}), ("c", cuda_doc()), ("m", memory_doc())):
                paths[name] = os.path.join(tmp, f"{name}.json")
                with open(paths[name], "w") as f:
                    json.dump(doc, f)
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                code = sbs.main([paths["g"], paths["c"], "--memory", paths["m"], "--json",
                                 os.path.join(tmp, "o.json")])
            self.assertEqual(code, 0)
            with open(os.path.join(tmp, "o.json")) as f:
                written = json.load(f)
        text = out.getvalue()
        self.assertIn(pairs.HEADING, text)
        self.assertIn("| read bandwidth at 1.5MiB | 9000 | 10000 | GB/s | 0.9 | - / 1980 |", text)
        labels = [r["label"] for r in written["memory_rows"]]
        self.assertIn("level-1 latency (4KiB to 8KiB)", labels)


if __name__ == "__main__":
    unittest.main()
