"""Unit tests of the GPU-check scripts' pure parts: they run without torch, CUDA or a GPU."""

import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

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
        # The table spells them as the reference does (one function, scripts/sizes.py).
        self.assertEqual(sbs.size_label(1536 << 10), "1.5MiB")

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
        # A file without crosses_link: the staging copy (faster, but maybe VRAM to VRAM) is left
        # out of the best H2D path.
        h2d = rows["best H2D path at 256MiB vs CUDA pinned"]
        self.assertEqual(h2d["gpubench_id"], "transfer/h2d-write-buffer/bytes/256MiB")
        self.assertAlmostEqual(h2d["ratio"], 0.4)
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

    def test_results_measured_at_idle_clocks_are_listed(self):
        gpubench, cuda = self.docs()
        text = sbs.markdown(sbs.build(gpubench, cuda, {}), gpubench, cuda, {})
        self.assertIn("measured at idle clocks (warning idle-clock): 0", text)
        copy = next(r for r in gpubench["results"] if r["id"].startswith("stream/copy/"))
        copy["warnings"] = [{"kind": "outliers", "message": "x"},
                            {"kind": "idle-clock", "message": "345 of 1980 MHz", "figure": 17.4}]
        text = sbs.markdown(sbs.build(gpubench, cuda, {}), gpubench, cuda, {})
        self.assertIn(f"measured at idle clocks (warning idle-clock): 1 ({copy['id']})", text)

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
            # One side missing: the table from the other, its cells saying why; exit 0.
            out = io.StringIO()
            with redirect_stdout(out):
                code = sbs.main([os.path.join(tmp, "absent.json"), paths["c"]])
            self.assertEqual(code, 0)
            self.assertIn("| stream copy vs CUDA D2D copy | not measured: absent.json missing "
                          "| 4300 |", out.getvalue())
            # Neither side: exit 2, no table.
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                code = sbs.main([os.path.join(tmp, "absent.json"), os.path.join(tmp, "none")])
            self.assertEqual(code, 2)
            self.assertEqual(out.getvalue(), "")


def datapath_result(rid, median, n=None, status="ok", reason=None):
    """A gpubench datapath result, with its latency percentiles where n is given."""
    result = gpubench_result(rid, median, "us", status=status, reason=reason)
    if n is not None:
        result["latency"] = {"p50_us": median, "p95_us": median * 1.2, "p99_us": median * 1.5,
                             "max_us": median * 2, "n": n}
    return result


def program_workload(name="balanced", **changes):
    """One workload as cuda_datapath.cu prints it."""
    workload = {
        "name": name, "input_bytes": 4 << 20, "output_bytes": 1 << 20, "steps": 64,
        "flops": 134217728, "verified_words": 262144, "status": "ok",
        "stages": {s: {"us": us, "reps": 10, "clock": clock} for s, us, clock in (
            ("prepare", 300.0, "host"), ("h2d", 90.0, "cuda-events"),
            ("compute", 12.0, "cuda-events"), ("d2h", 25.0, "cuda-events"),
            ("check", 5.0, "host"))},
        "serial": {"status": "ok", "requests_per_s": 2000.0,
                   "latency_us": {"n": 200, "p50": 500.0, "p95": 560.0, "p99": 700.0,
                                  "max": 900.0}},
        "overlap": {"status": "ok", "streams": 2, "in_flight": 2, "samples": 8,
                    "requests_per_sample": 16, "interval_us": 320.0, "requests_per_s": 3125.0,
                    "overlap_achieved": 1.56, "overlap_ideal": 1.67, "slowest_stage": "prepare",
                    "slowest_stage_us": 300.0,
                    "latency_us": {"n": 10, "p50": 640.0, "p95": None, "p99": None,
                                   "max": 800.0}},
    }
    workload.update(changes)
    return workload


class DatapathRows(unittest.TestCase):
    """cuda_reference.py's datapath rows from the program's answer, without torch or nvcc."""

    def test_every_row_is_keyed_to_gpubench_and_labelled(self):
        rows = ref.workload_rows(program_workload(), "method")
        self.assertEqual([r["key"] for r in rows], ref.datapath_keys("balanced"))
        for r in rows:
            self.assertEqual((r["status"], r["unit"]), ("ok", "us"))
            self.assertEqual(r["comparison"], ref.DATAPATH_COMPARISON)
            self.assertIn("not a like-for-like ratio", r["caveat"])
        by_key = {r["key"]: r for r in rows}
        self.assertEqual(by_key["datapath/balanced/stage/h2d"]["value"], 90.0)
        self.assertIn("CUDA events", by_key["datapath/balanced/stage/h2d"]["method"])
        self.assertIn("host clock", by_key["datapath/balanced/stage/check"]["method"])
        self.assertEqual(by_key["datapath/balanced/serial"]["value"], 500.0)
        overlap = by_key["datapath/balanced/overlap-2-streams"]
        self.assertEqual(overlap["value"], 320.0)
        # Too few requests for a p95: kept as null, never made a number.
        self.assertIsNone(overlap["percentiles"]["p95"])
        self.assertEqual((overlap["overlap_achieved"], overlap["overlap_ideal"]), (1.56, 1.67))

    def test_failures_are_rows_with_reasons_never_zeros(self):
        rows = ref.workload_rows(program_workload(status="failed", reason="request 0 returned "
                                                  "a wrong answer"), "method")
        self.assertEqual([r["key"] for r in rows], ref.datapath_keys("balanced"))
        for r in rows:
            self.assertEqual(r["status"], "failed")
            self.assertNotIn("value", r)
            self.assertIn("wrong answer", r["reason"])
        workload = program_workload()
        workload["stages"]["check_failure"] = "the output changed: word 3"
        workload["serial"] = {"status": "failed", "reason": "request 9 returned a wrong answer"}
        by_key = {r["key"]: r for r in ref.workload_rows(workload, "method")}
        self.assertEqual(by_key["datapath/balanced/stage/check"]["status"], "failed")
        self.assertEqual(by_key["datapath/balanced/serial"]["status"], "failed")
        self.assertNotIn("value", by_key["datapath/balanced/serial"])
        self.assertEqual(by_key["datapath/balanced/stage/h2d"]["status"], "ok")

    def test_without_nvcc_the_section_is_one_row_saying_so(self):
        saved = ref.find_nvcc
        try:
            ref.find_nvcc = lambda: None
            rows = ref.datapath_rows(None, None, ref.datapath_plan(quick=True))
        finally:
            ref.find_nvcc = saved
        self.assertEqual(rows, [{"key": "datapath", "status": "not-available",
                                 "reason": ref.NVCC_MISSING}])

    def test_the_program_is_asked_for_gpubench_requests(self):
        plan = ref.datapath_plan(quick=False)
        self.assertEqual(ref.datapath_args(plan), [
            str(0x5EED), "200", "8", "transfer-bound:8388608:65536:4",
            "compute-bound:65536:65536:4096", "balanced:4194304:1048576:64"])
        self.assertEqual(ref.datapath_plan(quick=True)["serial_requests"], 100)
        self.assertIn("datapath", ref.plan_from(ref.arguments([]))["sections"])


class DatapathSideBySide(unittest.TestCase):
    """The datapath pairs: their own section, labelled a capability difference."""

    def docs(self):
        gpubench = {"results": [
            datapath_result("datapath/balanced/stage/h2d", 180.0),
            datapath_result("datapath/balanced/serial", 1000.0, n=200),
            datapath_result("datapath/balanced/overlap-2", 640.0, n=16),
            datapath_result("datapath/balanced/stage/compute", 1.0, status="failed",
                            reason="wrong output"),
        ]}
        rows = ref.workload_rows(program_workload(), "method")
        cuda = {"device": "NVIDIA H200", "plan": {"datapath": ref.datapath_plan(False)},
                "sections_done": ["datapath"], "complete": True, "rows": rows}
        return gpubench, cuda

    def pairs(self, table):
        return {r["label"]: r for r in table.capability}

    def test_pairs_are_a_capability_difference_with_no_plain_ratio(self):
        gpubench, cuda = self.docs()
        table = sbs.build(gpubench, cuda, {})
        pairs = self.pairs(table)
        overlap = pairs["datapath balanced overlap-2"]
        self.assertEqual(overlap["gpubench_id"], "datapath/balanced/overlap-2")
        self.assertEqual(overlap["cuda_key"], "datapath/balanced/overlap-2-streams")
        self.assertEqual(overlap["comparison"], "capability difference")
        self.assertIsNone(overlap["ratio"])
        self.assertAlmostEqual(overlap["capability_ratio"], 2.0)
        self.assertEqual(overlap["p95_us"], {"gpubench": "n/a (n = 16)",
                                             "cuda": "n/a (n = 10)"})
        serial = pairs["datapath balanced serial"]
        self.assertAlmostEqual(serial["p95_us"]["gpubench"], 1200.0)
        self.assertEqual(serial["p95_us"]["cuda"], 560.0)
        self.assertAlmostEqual(pairs["datapath balanced stage/h2d"]["capability_ratio"], 2.0)
        # Every workload of either side, each with its seven pairs; none among the like-for-like
        # rows, where a ratio meets a target.
        self.assertEqual(len(table.capability), 3 * 7)
        self.assertFalse(any(r["gpubench_id"].startswith("datapath/") for r in table.rows))

    def test_the_markdown_says_capability_difference_and_never_a_bare_ratio(self):
        gpubench, cuda = self.docs()
        table = sbs.build(gpubench, cuda, {})
        text = sbs.markdown(table, gpubench, cuda, {})
        section = text[text.index("## Data path"):]
        self.assertIn("a capability difference, not a like-for-like ratio", section)
        self.assertIn("pinned host memory", section)
        self.assertIn("| datapath balanced serial | 1000 | 500 | us | 2 (capability) | "
                      "1200 / 560 |", section)
        self.assertIn("| datapath balanced overlap-2 | 640 | 320 | us | 2 (capability) | "
                      "n/a (n = 16) / n/a (n = 10) |", section)
        self.assertIn("overlap 1.56x of ideal 1.67x (prepare bounds)", section)
        self.assertIn("failed: wrong output", section)
        self.assertNotIn("% of CUDA", text)

    def test_a_stage_h2d_that_stays_on_the_card_is_not_called_an_upload(self):
        """An H200's large BAR: gpubench's stage/h2d records crosses_link false (its staging is
        device memory), so its pair says it is a copy inside the card, not an upload, with no
        time ratio beside CUDA's upload; prepare's pair says its writes cross the link."""
        gpubench, cuda = self.docs()
        h2d = gpubench["results"][0]
        h2d["params"] = {"staging_memory": "resizable-bar", "crosses_link": False,
                         "crosses_link_why": "the staging buffer is resizable-bar memory: the "
                                             "copy may never leave the device"}
        prepare = datapath_result("datapath/balanced/stage/prepare", 600.0)
        prepare["params"] = {"staging_memory": "resizable-bar", "crosses_link": True,
                             "crosses_link_why": "the host writes through the BAR into device "
                                                 "memory"}
        gpubench["results"].append(prepare)
        table = sbs.build(gpubench, cuda, {})
        pairs = self.pairs(table)
        pair = pairs["datapath balanced stage/h2d"]
        self.assertIs(pair["crosses_link"], False)
        self.assertIsNone(pair["capability_ratio"])
        self.assertEqual(pair["note"],
                         "gpubench: a copy inside the card, not an upload (crosses_link false: "
                         "the staging buffer is resizable-bar memory: the copy may never leave "
                         "the device) / CUDA: cudaMemcpyAsync from pinned memory")
        self.assertNotIn("upload: a copy", pair["note"])
        self.assertIn("datapath balanced stage/h2d: gpubench's row is a copy inside the card, "
                      "not an upload (crosses_link false", "\n".join(table.notes))
        written = pairs["datapath balanced stage/prepare"]
        self.assertIs(written["crosses_link"], True)
        self.assertAlmostEqual(written["capability_ratio"], 2.0)
        self.assertIn("gpubench: the host's writes cross the link", written["note"])
        text = sbs.markdown(table, gpubench, cuda, {})
        section = text[text.index("## Data path"):]
        self.assertIn("| datapath balanced stage/h2d | 180 | 90 | us | - (not across the link) |",
                      section)
        self.assertIn("- note: datapath balanced stage/h2d: gpubench's row is a copy inside the "
                      "card", text)

    def test_a_stage_h2d_that_crosses_the_link_keeps_its_ratio_and_says_so(self):
        gpubench, cuda = self.docs()
        gpubench["results"][0]["params"] = {
            "staging_memory": "host", "crosses_link": True,
            "crosses_link_why": "the staging buffer is host memory"}
        table = sbs.build(gpubench, cuda, {})
        pair = self.pairs(table)["datapath balanced stage/h2d"]
        self.assertAlmostEqual(pair["capability_ratio"], 2.0)
        self.assertIn("gpubench: an upload: the copy reads host memory across the link "
                      "(crosses_link true: the staging buffer is host memory)", pair["note"])
        self.assertFalse(any("stage/h2d" in n for n in table.notes))

    def test_a_stage_h2d_without_crosses_link_keeps_its_ratio_and_says_it_is_not_known(self):
        # A results file from before the param, or a placement the adapter did not tell.
        gpubench, cuda = self.docs()
        table = sbs.build(gpubench, cuda, {})
        pairs = self.pairs(table)
        pair = pairs["datapath balanced stage/h2d"]
        self.assertIsNone(pair["crosses_link"])
        self.assertAlmostEqual(pair["capability_ratio"], 2.0)
        self.assertIn("not recorded (no crosses_link)", pair["note"])
        # A pair with no gpubench row at all says nothing of gpubench's copy.
        self.assertNotIn("crosses_link", pairs["datapath compute-bound stage/h2d"]["note"])

    def test_a_datapath_section_that_failed_says_why_in_its_cells(self):
        gpubench, cuda = self.docs()
        cuda["rows"] = [ref.not_measured("datapath", "not-available", ref.NVCC_MISSING)]
        table = sbs.build(gpubench, cuda, {})
        serial = self.pairs(table)["datapath balanced serial"]
        self.assertIsNone(serial["cuda"])
        self.assertIsNone(serial["capability_ratio"])
        self.assertIn("not measured: datapath not-available: nvcc not found", serial["cuda_why"])

    def test_workloads_come_from_gpubench_ids_without_a_cuda_plan(self):
        gpubench, _ = self.docs()
        table = sbs.build(gpubench, None, {}, cuda_problem="cuda.json missing")
        labels = [r["label"] for r in table.capability]
        self.assertEqual(len(labels), 7)
        self.assertEqual(table.capability[0]["cuda_why"], "not measured: cuda.json missing")

    def test_the_json_output_carries_the_pairs_and_the_caveat(self):
        gpubench, cuda = self.docs()
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, doc in (("g", gpubench), ("c", cuda)):
                paths.append(os.path.join(tmp, f"{name}.json"))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            with redirect_stdout(io.StringIO()):
                sbs.main(paths + ["--json", os.path.join(tmp, "o.json")])
            with open(os.path.join(tmp, "o.json")) as f:
                out = json.load(f)
        self.assertEqual(len(out["capability_rows"]), 21)
        self.assertIn("not a like-for-like ratio", out["capability_caveat"])


def transfer(rid, median, crosses=None, why=None):
    """A transfer result, with the crosses_link param where given (newer gpubench)."""
    result = gpubench_result(rid, median)
    if crosses is not None:
        result["params"] = {"crosses_link": crosses}
    if why:
        result["params"]["crosses_link_why"] = why
    return result


class PartialSides(unittest.TestCase):
    """A side missing, empty, unreadable or saved part-way: the table from whatever exists."""

    def docs(self):
        return SideBySide.docs(self)

    def by_label(self, table):
        return {r["label"]: r for r in table.rows}

    def test_files_that_cannot_be_read_say_why_in_a_few_words(self):
        with tempfile.TemporaryDirectory() as tmp:
            def path(name, text=None):
                p = os.path.join(tmp, name)
                if text is not None:
                    with open(p, "w") as f:
                        f.write(text)
                return p

            self.assertEqual(sbs.load(path("cuda.json")), (None, "cuda.json missing"))
            self.assertEqual(sbs.load(path("e.json", "  \n")), (None, "e.json empty"))
            doc, why = sbs.load(path("cut.json", '{"rows": [{"key": "st'))
            self.assertIsNone(doc)
            self.assertTrue(why.startswith("cut.json is not JSON (cut short?)"), why)
            self.assertEqual(sbs.load(path("list.json", "[1]")),
                             (None, "list.json is not a JSON object"))
            os.mkdir(path("dir.json"))
            doc, why = sbs.load(path("dir.json"))
            self.assertTrue(why.startswith("dir.json unreadable"), why)
            self.assertEqual(sbs.load(path("ok.json", '{"a": 1}')), ({"a": 1}, None))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "FIFOs are a POSIX thing")
    def test_a_fifo_or_an_endless_device_is_refused_without_hanging_or_reading_it_all(self):
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, "cuda.json")
            os.mkfifo(fifo)
            doc, why = sbs.load(fifo)
            self.assertIsNone(doc)
            self.assertIn("not a regular file", why)
        doc, why = sbs.load("/dev/zero")
        self.assertIsNone(doc)
        self.assertIn("not a regular file", why)
        with tempfile.TemporaryDirectory() as tmp:
            big = os.path.join(tmp, "big.json")
            with open(big, "wb") as f:
                f.write(b" " * 2048)
            text_limit = sbs.read_bounded(big, limit=4096)
            self.assertEqual(len(text_limit), 2048)
            with self.assertRaises(OSError):
                sbs.read_bounded(big, limit=1024)

    def test_a_missing_cuda_side_leaves_its_cells_saying_so(self):
        gpubench, _ = self.docs()
        table = sbs.build(gpubench, None, {}, cuda_problem="cuda.json missing")
        rows = self.by_label(table)
        self.assertEqual(rows["stream copy vs CUDA D2D copy"]["cuda_why"],
                         "not measured: cuda.json missing")
        text = sbs.markdown(table, gpubench, None, {})
        self.assertIn("| stream copy vs CUDA D2D copy | 4000 | not measured: cuda.json missing |",
                      text)
        self.assertIn("CUDA reference NOT READ (cuda.json missing)", text)
        # The sizes come from gpubench's own ids where there is no CUDA plan.
        self.assertIn("SGEMM 1024x1024x1024 (TF32 off)", rows)
        self.assertIn("best H2D path at 256MiB vs CUDA pinned", rows)

    def test_sizes_are_read_back_from_gpubench_ids(self):
        ours = sbs.gpubench_index({"results": [
            gpubench_result("stream/copy/vec4-f32/16MiB", 1.0),
            gpubench_result("matmul/f32/128x128x128", 1.0),
            gpubench_result("matmul/f16/128x128x128", 1.0),
            gpubench_result("matmul/f32/1x256x256", 1.0),
            gpubench_result("transfer/h2d-write-buffer/bytes/4KiB", 1.0),
            gpubench_result("transfer/d2h-map-read/bytes/4MiB", 1.0),
            gpubench_result("transfer/h2d-write-buffer/fit", 1.0),
        ]})
        self.assertEqual(sbs.plan_from_results(ours), {
            "stream_bytes": 16 << 20, "matmul_shapes": ["128x128x128", "1x256x256"],
            "transfer_sizes": [4096, 4 << 20]})
        self.assertEqual(sbs.label_bytes("4KiB"), 4096)
        self.assertIsNone(sbs.label_bytes("fit"))

    def test_a_cuda_file_saved_part_way_names_the_sections_it_never_finished(self):
        gpubench, cuda = self.docs()
        cuda.update(complete=False, interrupted="SIGTERM", sections_done=["stream"],
                    section_running="compute")
        cuda["rows"] = [r for r in cuda["rows"] if r["key"].startswith("stream/")]
        table = sbs.build(gpubench, cuda, {})
        rows = self.by_label(table)
        self.assertAlmostEqual(rows["stream copy vs CUDA D2D copy"]["ratio"], 4000 / 4300)
        self.assertEqual(rows["SGEMM 1024x1024x1024 (TF32 off)"]["cuda_why"],
                         "CUDA reference interrupted (SIGTERM) before this section")
        # A key of a finished section that is simply absent is no interruption.
        self.assertIsNone(rows["stream copy vs CUDA copy kernel"]["cuda_why"])
        text = sbs.markdown(table, gpubench, cuda, {})
        self.assertIn("CUDA reference INCOMPLETE: interrupted by SIGTERM during compute; "
                      "sections done: stream", text)
        self.assertIn("| SGEMM 1024x1024x1024 (TF32 off) | 30000 | CUDA reference interrupted "
                      "(SIGTERM) before this section |", text)

    def test_a_cuda_file_killed_outright_says_no_end_was_saved(self):
        gpubench, cuda = self.docs()
        cuda.update(complete=False, sections_done=["stream", "matmul"])
        cuda["rows"] = [r for r in cuda["rows"] if not r["key"].startswith("launch/")]
        rows = self.by_label(sbs.build(gpubench, cuda, {}))
        self.assertEqual(rows["round trip vs CUDA launch + synchronize"]["cuda_why"],
                         "CUDA reference stopped (no end saved: killed or timed out) before "
                         "this section")

    def test_a_reference_without_cuda_says_so_in_every_cell(self):
        gpubench, _ = self.docs()
        cuda = {"plan": {"stream_bytes": 1 << 30, "matmul_shapes": [], "transfer_sizes": [4096]},
                "status": "failed", "reason": "no CUDA: No module named 'torch'",
                "complete": True, "rows": []}
        rows = self.by_label(sbs.build(gpubench, cuda, {}))
        self.assertEqual(rows["stream copy vs CUDA D2D copy"]["cuda_why"],
                         "not measured: no CUDA: No module named 'torch'")

    def test_a_cuda_section_that_failed_whole_says_why_in_its_cells(self):
        gpubench, cuda = self.docs()
        cuda["rows"] = [r for r in cuda["rows"] if not r["key"].startswith("launch/")] + [
            {"key": "launch", "status": "failed", "reason": "nvcc: x; CuPy: ImportError: y"}]
        rows = self.by_label(sbs.build(gpubench, cuda, {}))
        self.assertEqual(rows["round trip vs CUDA launch + synchronize"]["cuda_why"],
                         "not measured: launch failed: nvcc: x; CuPy: ImportError: y")

    def test_a_gpubench_file_saved_part_way_is_used_and_flagged(self):
        gpubench, cuda = self.docs()
        gpubench["complete"] = False
        table = sbs.build(gpubench, cuda, {})
        rows = self.by_label(table)
        self.assertAlmostEqual(rows["stream copy vs CUDA D2D copy"]["ratio"], 4000 / 4300)
        self.assertEqual(rows["dispatch in a pass vs CUDA graph node (both a chain)"]["gpubench_why"],
                         "gpubench run stopped before this result")
        text = sbs.markdown(table, gpubench, cuda, {})
        self.assertIn('gpubench results INCOMPLETE ("complete": false', text)
        self.assertIn("8 results saved", text)
        # A complete file flags nothing.
        gpubench["complete"] = True
        self.assertNotIn("INCOMPLETE", sbs.markdown(sbs.build(gpubench, cuda, {}), gpubench,
                                                    cuda, {}))

    def test_command_line_with_one_side_and_an_unreadable_nominal_file(self):
        gpubench, cuda = self.docs()
        with tempfile.TemporaryDirectory() as tmp:
            g = os.path.join(tmp, "gpubench.json")
            with open(g, "w") as f:
                json.dump(gpubench, f)
            with open(os.path.join(tmp, "cuda.json"), "w") as f:
                f.write("")
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = sbs.main([g, os.path.join(tmp, "cuda.json"), "--nominal",
                                 os.path.join(tmp, "nominal.json"), "--banner", "REHEARSAL: x",
                                 "--json", os.path.join(tmp, "o.json")])
            self.assertEqual(code, 0)
            text = out.getvalue()
            self.assertTrue(text.startswith("**REHEARSAL: x**\n\n# gpubench (Vulkan) beside CUDA"))
            self.assertIn("not measured: cuda.json empty", text)
            self.assertIn("nominal.json not read: nominal.json missing", text)
            with open(os.path.join(tmp, "o.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["inputs"]["CUDA"], {"read": False, "problem": "cuda.json empty",
                                                     "complete": False,
                                                     "flag": "NOT READ (cuda.json empty)"})
            self.assertTrue(doc["inputs"]["gpubench"]["read"])


class BestHostToDevicePath(unittest.TestCase):
    """The best H2D path stands beside CUDA's pinned and pageable copies only where its bytes
    really cross the link."""

    cuda = {"plan": {"stream_bytes": 1 << 30, "matmul_shapes": [],
                     "transfer_sizes": [4096, 256 << 20]},
            "rows": [cuda_row("transfer/h2d-pinned/256MiB", 50.0),
                     cuda_row("transfer/h2d-pageable/256MiB", 25.0),
                     cuda_row("transfer/d2h-pinned/256MiB", 50.0)]}

    def rows(self, results):
        table = sbs.build({"results": results}, self.cuda, {})
        return table, {r["label"]: r for r in table.rows}

    def test_only_results_that_cross_the_link_are_chosen(self):
        table, rows = self.rows([
            transfer("transfer/h2d-staging-copy/bytes/256MiB", 400.0, crosses=False),
            transfer("transfer/h2d-host-write/bytes/256MiB", 300.0, crosses=False),
            transfer("transfer/h2d-write-buffer/bytes/256MiB", 20.0, crosses=True),
            transfer("transfer/h2d-mapped-staging/bytes/256MiB", 30.0, crosses=True),
            transfer("transfer/h2d-zero-copy/bytes/256MiB", 90.0),  # no param: left out too
            transfer("transfer/h2d-mapped-staging/bytes/4KiB", 1.0, crosses=True),
        ])
        pinned = rows["best H2D path at 256MiB vs CUDA pinned"]
        self.assertEqual(pinned["gpubench_id"], "transfer/h2d-mapped-staging/bytes/256MiB")
        self.assertAlmostEqual(pinned["ratio"], 0.6)
        self.assertEqual(rows["best H2D path at 256MiB vs CUDA pageable"]["gpubench_id"],
                         "transfer/h2d-mapped-staging/bytes/256MiB")
        self.assertIn("h2d-staging-copy, h2d-host-write, h2d-zero-copy", pinned["note"])
        notes = "\n".join(table.notes)
        self.assertIn("left out transfer/h2d-staging-copy/bytes/256MiB: crosses_link false", notes)
        self.assertIn("left out transfer/h2d-zero-copy/bytes/256MiB: no crosses_link param",
                      notes)
        self.assertNotIn("4KiB", notes)  # only the size the rows stand at
        text = sbs.markdown(table, {"results": []}, self.cuda, {})
        self.assertIn("- note: best H2D path at 256MiB: left out "
                      "transfer/h2d-host-write/bytes/256MiB: crosses_link false", text)

    def test_older_files_leave_out_the_staging_copy_and_the_host_write(self):
        table, rows = self.rows([
            transfer("transfer/h2d-staging-copy/bytes/256MiB", 400.0),
            transfer("transfer/h2d-host-write/bytes/256MiB", 300.0),
            transfer("transfer/h2d-write-buffer/bytes/256MiB", 20.0),
            transfer("transfer/h2d-mapped-staging/bytes/256MiB", 30.0),
        ])
        self.assertEqual(rows["best H2D path at 256MiB vs CUDA pinned"]["gpubench_id"],
                         "transfer/h2d-mapped-staging/bytes/256MiB")
        notes = "\n".join(table.notes)
        self.assertIn("transfer/h2d-staging-copy/bytes/256MiB: results file without "
                      "crosses_link (older gpubench)", notes)
        self.assertIn("VRAM-to-VRAM", notes)
        self.assertIn("transfer/h2d-host-write/bytes/256MiB", notes)

    def test_d2h_leaves_out_only_what_is_marked_as_not_crossing(self):
        table, rows = self.rows([
            transfer("transfer/h2d-write-buffer/bytes/256MiB", 20.0, crosses=True),
            transfer("transfer/d2h-readback-copy/bytes/256MiB", 300.0, crosses=False,
                     why="the readback buffer is device memory"),
            transfer("transfer/d2h-map-read/bytes/256MiB", 25.0),
        ])
        d2h = rows["best D2H path at 256MiB vs CUDA pinned"]
        self.assertEqual(d2h["gpubench_id"], "transfer/d2h-map-read/bytes/256MiB")
        self.assertAlmostEqual(d2h["ratio"], 0.5)
        # gpubench's own words for why, where it records them.
        self.assertEqual(table.notes, [
            "best D2H path at 256MiB: left out transfer/d2h-readback-copy/bytes/256MiB: "
            "crosses_link false: the readback buffer is device memory"])

    def test_no_path_that_crosses_the_link_leaves_the_row_without_a_figure(self):
        table, rows = self.rows([
            transfer("transfer/h2d-staging-copy/bytes/256MiB", 400.0, crosses=False)])
        pinned = rows["best H2D path at 256MiB vs CUDA pinned"]
        self.assertEqual(pinned["gpubench_id"], "transfer/h2d-*/bytes/256MiB")
        self.assertIsNone(pinned["ratio"])
        self.assertEqual(len(table.notes), 2)
        self.assertIn(sbs.NO_COPY_ENGINE, table.notes[1])

    def test_a_large_bar_card_pairs_the_host_write_with_cuda_sm_pull(self):
        """On a large-BAR card every gpubench H2D path stays in device memory: the table says the
        copy engine is out of wgpu's reach and pairs the host write with CUDA's SM pull."""
        cuda = {**self.cuda, "rows": self.cuda["rows"] + [
            cuda_row("transfer/h2d-sm-pull/256MiB", 40.0)]}
        table = sbs.build({"results": [
            transfer("transfer/h2d-staging-copy/bytes/256MiB", 900.0, crosses=False),
            transfer("transfer/h2d-host-write/bytes/256MiB", 30.0, crosses=False),
        ]}, cuda, {})
        rows = {r["label"]: r for r in table.rows}
        pair = rows["host write (no copy engine) at 256MiB vs CUDA SM pull from pinned memory"]
        self.assertEqual(pair["gpubench_id"], "transfer/h2d-host-write/bytes/256MiB")
        self.assertAlmostEqual(pair["ratio"], 0.75)
        self.assertIn(sbs.NO_COPY_ENGINE, pair["note"])
        self.assertIsNone(rows["best H2D path at 256MiB vs CUDA pinned"]["ratio"])
        text = sbs.markdown(table, {"results": []}, cuda, {})
        self.assertIn(sbs.NO_COPY_ENGINE, text)
        # Where a path does cross the link, no such row and no such statement.
        crossing = sbs.build({"results": [
            transfer("transfer/h2d-write-buffer/bytes/256MiB", 20.0, crosses=True),
            transfer("transfer/h2d-host-write/bytes/256MiB", 30.0, crosses=False),
        ]}, cuda, {})
        self.assertFalse(any("SM pull" in r["label"] for r in crossing.rows))
        self.assertNotIn(sbs.NO_COPY_ENGINE, "\n".join(crossing.notes))

    def test_launch_rows_pair_a_chain_with_a_chain_and_independent_with_no_edges(self):
        pairs = {mine: ref for _, mine, ref in sbs.LAUNCH}
        self.assertEqual(pairs["launch/gpu-gap-independent/per-dispatch"],
                         "launch/graph-independent")
        self.assertEqual(pairs["launch/gpu-gap/per-dispatch"], "launch/graph")
        self.assertNotIn("launch/graph", [ref for _, mine, ref in sbs.LAUNCH
                                          if "independent" in mine])
        table = sbs.build({"results": [
            gpubench_result("launch/gpu-gap-independent/per-dispatch", 0.9, "us")]},
            {"rows": [cuda_row("launch/graph", 0.9, "us"),
                      cuda_row("launch/graph-independent", 0.45, "us")]}, {})
        row = {r["label"]: r for r in table.rows}[
            "GPU gap, independent dispatches, vs CUDA graph with no edges"]
        self.assertAlmostEqual(row["ratio"], 0.5)


class ReferenceFiles(unittest.TestCase):
    """cuda_reference.py's document writing and its nvcc lookup, without torch."""

    def test_the_memory_program_ends_before_the_reference_is_stopped(self):
        """Its rows are printed when it ends: its cap leaves its kill margin before the deadline
        gpu-check.sh gives the reference, and is never below 1 s."""
        import time
        saved = os.environ.get("CUDA_REFERENCE_DEADLINE")
        self.addCleanup(lambda: os.environ.pop("CUDA_REFERENCE_DEADLINE", None) if saved is None
                        else os.environ.update(CUDA_REFERENCE_DEADLINE=saved))
        os.environ.pop("CUDA_REFERENCE_DEADLINE", None)
        self.assertEqual(ref.memory_cap_s(), ref.MEMORY_CAP_S)
        os.environ["CUDA_REFERENCE_DEADLINE"] = str(time.time() + 40)
        cap = ref.memory_cap_s()
        self.assertLessEqual(cap, 40 - ref.MEMORY_KILL_MARGIN_S)
        self.assertGreater(cap, 40 - ref.MEMORY_KILL_MARGIN_S - 2)
        os.environ["CUDA_REFERENCE_DEADLINE"] = str(time.time() - 5)
        self.assertEqual(ref.memory_cap_s(), 1.0)
        os.environ["CUDA_REFERENCE_DEADLINE"] = "soon"
        self.assertEqual(ref.memory_cap_s(), ref.MEMORY_CAP_S)

    def test_the_document_is_replaced_whole_and_no_temporary_stays(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cuda.json")
            sink = ref.Sink(path)
            sink.save({"rows": [1]})
            sink.save({"rows": [1, 2]})
            with open(path) as f:
                self.assertEqual(json.load(f), {"rows": [1, 2]})
            self.assertEqual(os.listdir(tmp), ["cuda.json"])

    def test_without_torch_the_saved_document_is_complete_with_its_reason(self):
        if importlib.util.find_spec("torch") is not None:
            self.skipTest("torch is installed here")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cuda.json")
            result = ref.measure(ref.plan_from(ref.arguments(["--quick"])), ref.Sink(path))
            with open(path) as f:
                saved = json.load(f)
            self.assertEqual(saved, result)
            self.assertTrue(saved["complete"])
            self.assertEqual(saved["sections_done"], [])
            self.assertNotIn("section_running", saved)

    def test_pypi_nvcc_gets_the_runtime_wheels_headers_and_library(self):
        with tempfile.TemporaryDirectory() as tmp:
            def touch(*parts):
                p = os.path.join(tmp, *parts)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, "w").close()
                return p

            # CUDA 13's wheels: one tree, nvidia/cu13, with the static runtime.
            nvcc13 = touch("a", "nvidia", "cu13", "bin", "nvcc")
            touch("a", "nvidia", "cu13", "include", "cuda_runtime.h")
            touch("a", "nvidia", "cu13", "lib", "libcudart_static.a")
            root = os.path.join(tmp, "a", "nvidia", "cu13")
            self.assertEqual(ref.pypi_cuda_flags(nvcc13),
                             ["-I", os.path.join(root, "include"), "-L", os.path.join(root, "lib")])
            # CUDA 12's: nvcc and the runtime in two packages, the runtime only shared.
            nvcc12 = touch("b", "nvidia", "cuda_nvcc", "bin", "nvcc")
            touch("b", "nvidia", "cuda_runtime", "include", "cuda_runtime.h")
            so = touch("b", "nvidia", "cuda_runtime", "lib", "libcudart.so.12")
            runtime = os.path.join(tmp, "b", "nvidia", "cuda_runtime")
            self.assertEqual(ref.pypi_cuda_flags(nvcc12), [
                "-I", os.path.join(runtime, "include"), "-cudart", "none", "-Xlinker", so,
                "-Xlinker", f"-rpath={os.path.join(runtime, 'lib')}"])
            # A toolkit's nvcc finds its own.
            self.assertEqual(ref.pypi_cuda_flags("/usr/local/cuda/bin/nvcc"), [])
            command = ref.nvcc_command(nvcc13, "x.cu", "x", "sm_90")
            self.assertEqual(command[:3], [nvcc13, "-O2", "-arch=sm_90"])
            self.assertEqual(command[-3:], ["-o", "x", "x.cu"])

    def test_nvcc_is_looked_for_in_site_packages_after_path(self):
        if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
            self.skipTest("/usr/local/cuda/bin/nvcc exists here and comes first")
        with tempfile.TemporaryDirectory() as tmp:
            nvcc = os.path.join(tmp, "nvidia", "cu13", "bin", "nvcc")
            os.makedirs(os.path.dirname(nvcc))
            with open(nvcc, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(nvcc, 0o755)
            saved = ref.shutil.which, ref.python_package_dirs
            try:
                ref.shutil.which = lambda name: None
                ref.python_package_dirs = lambda: [tmp]
                self.assertEqual(ref.find_nvcc(), nvcc)
                ref.python_package_dirs = lambda: []
                self.assertIsNone(ref.find_nvcc())
                ref.shutil.which = lambda name: "/somewhere/nvcc"
                self.assertEqual(ref.find_nvcc(), "/somewhere/nvcc")
            finally:
                ref.shutil.which, ref.python_package_dirs = saved

    def test_tails_keep_the_end(self):
        self.assertEqual(ref.tail("short\n"), "short")
        self.assertEqual(ref.tail("x" * 10 + "the error", limit=9), "...the error")


if __name__ == "__main__":
    unittest.main()
