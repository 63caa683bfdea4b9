"""Unit tests of the GPU-check scripts' pure parts: they run without torch, CUDA or a GPU."""

import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = load("cuda_reference")
sbs = load("side_by_side")


def gpubench_result(rid, median, unit="GB/s", status="ok", verified=True, reason=None):
    return {"id": rid, "status": status, "unit": unit, "role": "kernel", "verified": verified,
            "reason": reason, "summary": {"median": median} if status == "ok" else None}


def cuda_row(key, value, unit="GB/s", clock=None):
    row = {"key": key, "status": "ok", "value": value, "unit": unit}
    if clock:
        row["telemetry"] = {"sm_clock_mhz": {"median": clock}}
    return row


class ReferencePlan(unittest.TestCase):
    def test_shapes_parse_and_refuse_bad_ones(self):
        self.assertEqual(ref.parse_shape("1x4096x4096"), (1, 4096, 4096))
        for bad in ("1x2", "0x4x4", "ax4x4", "1x2x3x4"):
            with self.assertRaises(Exception):
                ref.parse_shape(bad)

    def test_clock_event_reasons_work_with_old_and_new_pynvml(self):
        class New:
            def nvmlDeviceGetCurrentClocksEventReasons(self, handle):
                return ("new", handle)

        class Old:
            def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle):
                return ("old", handle)

        self.assertEqual(ref.clock_event_reasons(New(), 7), ("new", 7))
        self.assertEqual(ref.clock_event_reasons(Old(), 7), ("old", 7))

    def test_size_labels_match_gpubench(self):
        self.assertEqual(ref.size_label(4096), "4KiB")
        self.assertEqual(ref.size_label(256 << 20), "256MiB")
        self.assertEqual(ref.size_label(1 << 30), "1GiB")
        self.assertEqual(ref.size_label(1000), "1000B")

    def test_quick_plan_is_a_subset_of_the_full_one(self):
        full = ref.plan_from(ref.arguments([]))
        quick = ref.plan_from(ref.arguments(["--quick"]))
        self.assertTrue(set(quick["matmul_shapes"]) < set(full["matmul_shapes"]))
        self.assertTrue(set(quick["transfer_sizes"]) < set(full["transfer_sizes"]))
        self.assertEqual(full["stream_bytes"], 1 << 30)
        only = ref.plan_from(ref.arguments(["--only", "launch,stream"]))
        self.assertEqual(only["sections"], ["launch", "stream"])

    def test_readings_summarise_and_name_every_reason_seen(self):
        samples = [
            {"sm_clock_mhz": 1980, "power_w": 600.0, "reasons": 0x0},
            {"sm_clock_mhz": 1500, "power_w": 700.0, "reasons": 0x4},
            {"sm_clock_mhz": 1755, "power_w": 650.0, "reasons": 0x40},
        ]
        out = ref.summarise_readings(samples)
        self.assertEqual(out["sm_clock_mhz"], {"median": 1755, "min": 1500, "max": 1980})
        self.assertEqual(out["clock_event_reasons"], ["sw-power-cap", "hw-thermal-slowdown"])
        self.assertNotIn("temperature_c", out)

    def test_without_torch_the_result_is_a_failure_with_its_reason(self):
        if importlib.util.find_spec("torch") is not None:
            self.skipTest("torch is installed here")
        result = ref.measure(ref.plan_from(ref.arguments(["--quick"])))
        self.assertEqual(result["status"], "failed")
        self.assertIn("no CUDA", result["reason"])
        self.assertEqual(result["rows"], [])


class SideBySide(unittest.TestCase):
    def docs(self):
        gpubench = {"machine": {"adapter": {"name": "NVIDIA H200", "backend": "vulkan"}},
                    "results": [
                        gpubench_result("stream/copy/vec4-f32/1GiB", 4000.0),
                        gpubench_result("stream/triad/vec4-f32/1GiB", 3000.0),
                        gpubench_result("matmul/f32/1024x1024x1024", 30000.0, "GFLOP/s"),
                        gpubench_result("matmul/f16/1024x1024x1024", 60000.0, "GFLOP/s"),
                        gpubench_result("transfer/h2d-staging-copy/bytes/256MiB", 40.0),
                        gpubench_result("transfer/h2d-write-buffer/bytes/256MiB", 20.0),
                        gpubench_result("launch/round-trip/one-dispatch", 20.0, "us"),
                        gpubench_result("compute/fma-peak/vec4-f32", 1.0, "GFLOP/s",
                                        status="failed", reason="wrong output"),
                    ]}
        cuda = {"device": "NVIDIA H200", "plan": {"stream_bytes": 1 << 30,
                                                   "matmul_shapes": ["1024x1024x1024"],
                                                   "transfer_sizes": [4096, 256 << 20]},
                "rows": [cuda_row("stream/copy-d2d", 4300.0, clock=1980),
                         cuda_row("matmul/f32/1024x1024x1024", 50000.0, "GFLOP/s"),
                         cuda_row("transfer/h2d-pinned/256MiB", 50.0),
                         cuda_row("launch/round-trip", 10.0, "us")]}
        return gpubench, cuda

    def by_label(self, table):
        return {r["label"]: r for r in table.rows}

    def test_ratios_targets_and_clocks(self):
        gpubench, cuda = self.docs()
        rows = self.by_label(sbs.build(gpubench, cuda, {}))
        copy = rows["stream copy vs CUDA D2D copy"]
        self.assertAlmostEqual(copy["ratio"], 4000 / 4300)
        self.assertTrue(copy["met"])
        self.assertEqual(copy["sm_clock_mhz"]["cuda"], 1980)
        self.assertFalse(rows["stream triad vs CUDA D2D copy"]["met"])
        self.assertAlmostEqual(rows["SGEMM 1024x1024x1024 (TF32 off)"]["ratio"], 0.6)
        self.assertTrue(rows["own f16 / own f32 at 1024x1024x1024"]["met"])
        h2d = rows["best H2D path at 256MiB vs CUDA pinned"]
        self.assertEqual(h2d["gpubench_id"], "transfer/h2d-staging-copy/bytes/256MiB")
        self.assertAlmostEqual(h2d["ratio"], 0.8)
        # Times: CUDA / gpubench, so below 1 means gpubench is slower.
        self.assertAlmostEqual(rows["round trip vs CUDA launch + synchronize"]["ratio"], 0.5)

    def test_missing_and_failed_figures_have_no_ratio_and_say_why(self):
        gpubench, cuda = self.docs()
        table = sbs.build(gpubench, cuda, {})
        rows = self.by_label(table)
        fma = rows["FMA peak f32 (best form) vs CUDA"]
        self.assertIsNone(fma["ratio"])
        self.assertIsNone(rows["stream copy vs CUDA copy kernel"]["ratio"])
        text = sbs.markdown(table, gpubench, cuda, {})
        self.assertIn("| stream copy vs CUDA copy kernel | 4000 | - |", text)
        self.assertIn("gpubench results failed: 1 (compute/fma-peak/vec4-f32)", text)
        self.assertNotIn("0.00", text)

    def test_figures_above_nominal_are_listed(self):
        gpubench, cuda = self.docs()
        table = sbs.build(gpubench, cuda, {"memory_bandwidth_gbs": 4100.0, "source": "sheet"})
        self.assertEqual(len(table.above_nominal), 1)
        self.assertIn("CUDA stream/copy-d2d: 4300", table.above_nominal[0])

    def test_nominal_figures_come_from_the_results_file(self):
        gpubench, _ = self.docs()
        gpubench["telemetry"] = {
            "nominal": {"memory_bandwidth_gbs": 4800, "fp32_tflops": 67, "source": "sheet"},
            "link": {"max_nominal_gbs": 63.0},
        }
        nominal = sbs.nominal_from_results(gpubench)
        self.assertEqual(nominal["memory_bandwidth_gbs"], 4800)
        self.assertEqual(nominal["fp32_gflops"], 67000.0)
        self.assertEqual(nominal["pcie_gbs"], 63.0)
        self.assertIn("sheet", nominal["source"])
        self.assertEqual(sbs.nominal_from_results({"results": []}), {})

    def test_command_line_writes_markdown_and_json(self):
        gpubench, cuda = self.docs()
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            for name, doc in (("g", gpubench), ("c", cuda)):
                paths[name] = os.path.join(tmp, f"{name}.json")
                with open(paths[name], "w") as f:
                    json.dump(doc, f)
            out = io.StringIO()
            with redirect_stdout(out):
                code = sbs.main([paths["g"], paths["c"], "--json", os.path.join(tmp, "o.json")])
            self.assertEqual(code, 0)
            self.assertIn("# gpubench (Vulkan) beside CUDA", out.getvalue())
            with open(os.path.join(tmp, "o.json")) as f:
                self.assertTrue(json.load(f)["rows"])
            with self.assertRaises(SystemExit) as stop:
                with redirect_stdout(io.StringIO()):
                    sbs.main([os.path.join(tmp, "absent.json"), paths["c"]])
            self.assertEqual(stop.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
