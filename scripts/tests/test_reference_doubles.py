"""cuda_reference.py run whole, as a child process, on the CUDA test doubles of
scripts/tests/doubles (torch, cupy, pynvml on PYTHONPATH; nvcc first on PATH): the document it
saves as it goes, a stop by SIGTERM or SIGINT in the middle of a section, the launch section's
fallbacks to CuPy when nvcc fails in each way it can, the datapath section's rows (keyed to
gpubench's, labelled a capability difference) and the memory section's (keyed to gpubench's
memory ids at its sweep, under their own time cap) or, where nvcc gives no figures, each
section's one row with the status and the reason. No GPU, no torch: a second or two each."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from polling import read_json, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
DOUBLES = os.path.join(HERE, "doubles")
REFERENCE = os.path.join(SCRIPTS, "cuda_reference.py")


def doubles_env(**extra):
    """The environment of a reference run on the doubles (and none of the knobs leaking in)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPU_DOUBLES_", "CUDA_NVCC_", "CUDA_LAUNCH_", "CUDA_DATAPATH_",
                                "CUDA_MEMORY_"))}
    env["PATH"] = os.path.join(DOUBLES, "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(DOUBLES, "python")
    env.update(extra)
    return env


def ref_keys(name):
    """The datapath row keys of one workload, as side_by_side.py pairs them."""
    return ([f"datapath/{name}/stage/{s}" for s in ("prepare", "h2d", "compute", "d2h", "check")]
            + [f"datapath/{name}/serial", f"datapath/{name}/overlap-2-streams"])


class ReferenceOnDoubles(unittest.TestCase):
    def run_reference(self, *args, timeout=60, **env):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cuda.json")
            log = os.path.join(tmp, "nvcc.log")
            proc = subprocess.run(
                [sys.executable, REFERENCE, "--quick", "--out", out, *args],
                env=doubles_env(GPU_DOUBLES_NVCC_LOG=log, **env), capture_output=True,
                text=True, timeout=timeout)
            calls = []
            if os.path.exists(log):
                with open(log) as f:
                    calls = [json.loads(line) for line in f]
            return proc, read_json(out), calls

    def test_a_run_saves_a_complete_document_and_builds_for_the_device(self):
        proc, doc, calls = self.run_reference("--stream-bytes", str(16 << 20), "--only",
                                              "stream,compute,launch")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, "", "with --out the document goes to the file only")
        self.assertTrue(doc["complete"])
        self.assertNotIn("interrupted", doc)
        self.assertEqual(doc["sections_done"], ["stream", "compute", "launch"])
        self.assertEqual(doc["device"], "NVIDIA H200 (CUDA test double)")
        keys = [r["key"] for r in doc["rows"]]
        self.assertIn("stream/copy-d2d", keys)
        self.assertIn("compute/fma-peak-f16x2", keys)
        self.assertTrue(all(r["status"] == "ok" for r in doc["rows"]), doc["rows"])
        launch = {r["key"]: r for r in doc["rows"] if r["key"].startswith("launch/")}
        self.assertEqual(set(launch), {"launch/raw-loop", "launch/graph", "launch/round-trip",
                                       "launch/graph-independent"})
        self.assertIn("-arch=sm_90", launch["launch/graph"]["method"])
        self.assertIn("no edges", launch["launch/graph-independent"]["method"])
        self.assertIn("a chain", launch["launch/graph"]["method"])
        self.assertNotIn("nvcc_failure", launch["launch/graph"])
        self.assertEqual(launch["launch/round-trip"]["percentiles"]["n"], 300)
        # The nvcc on PATH was asked for the device's own architecture (9.0: sm_90).
        self.assertEqual(len(calls), 1)
        self.assertIn("-arch=sm_90", calls[0])

    def test_h2d_without_the_copy_engine_is_pulled_by_a_kernel_and_checked(self):
        proc, doc, _ = self.run_reference("--only", "transfer", "--transfer-sizes", "4096,65536")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = {r["key"]: r for r in doc["rows"]}
        pull = rows["transfer/h2d-sm-pull/64KiB"]
        self.assertEqual(pull["status"], "ok")
        self.assertIn("no copy engine", pull["method"])
        self.assertNotIn("transfer/h2d-sm-pull/4KiB", rows, "only at the largest size")
        # Bytes that never arrive fail the row: a status and a reason, no figure.
        proc, doc, _ = self.run_reference("--only", "transfer", "--transfer-sizes", "65536",
                                          GPU_DOUBLES_PULL="lost")
        [lost] = [r for r in doc["rows"] if r["key"] == "transfer/h2d-sm-pull/64KiB"]
        self.assertEqual(lost["status"], "failed")
        self.assertNotIn("value", lost)
        self.assertIn("differ", lost["reason"])

    def test_without_out_the_document_is_printed_at_the_end(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([sys.executable, REFERENCE, "--quick", "--only", "compute"],
                                  env=doubles_env(), capture_output=True, text=True, timeout=60,
                                  cwd=tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            doc = json.loads(proc.stdout)
            self.assertTrue(doc["complete"])
            self.assertEqual(os.listdir(tmp), [])

    def fallback(self, **env):
        """The launch section's rows when nvcc does not give figures: CuPy's, each with why."""
        proc, doc, _ = self.run_reference("--only", "launch", **env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = doc["rows"]
        self.assertEqual([r["key"] for r in rows],
                         ["launch/raw-loop", "launch/graph", "launch/round-trip",
                          "launch/graph-independent"])
        *measured, independent = rows
        for r in measured:
            self.assertEqual(r["status"], "ok")
            self.assertIn("CuPy RawKernel", r["method"])
        # No graph without edges from CuPy: a status and its reason, never a number.
        self.assertEqual(independent["status"], "not-measured")
        self.assertNotIn("value", independent)
        self.assertIn("no edges", independent["reason"])
        reasons = {r["nvcc_failure"] for r in rows}
        self.assertEqual(len(reasons), 1)
        return reasons.pop()

    def test_a_failed_build_falls_back_to_cupy_keeping_nvccs_error(self):
        why = self.fallback(GPU_DOUBLES_NVCC="fail")
        self.assertIn("-arch=sm_90 failed (exit 2)", why)
        self.assertIn("cuda_runtime.h: No such file or directory", why)

    def test_a_program_that_prints_no_json_falls_back_to_cupy(self):
        why = self.fallback(GPU_DOUBLES_NVCC="garbage")
        self.assertIn("printed no JSON", why)
        self.assertIn("Segmentation fault", why)

    def test_a_program_that_reports_a_failure_falls_back_to_cupy(self):
        why = self.fallback(GPU_DOUBLES_NVCC="refuses")
        self.assertIn("reported 'failed'", why)
        self.assertIn("driver version is insufficient", why)

    def test_a_build_that_times_out_falls_back_to_cupy(self):
        started = time.monotonic()
        why = self.fallback(GPU_DOUBLES_NVCC_SLEEP="30", CUDA_NVCC_TIMEOUT="0.3")
        self.assertIn("timed out after 0.3 s", why)
        self.assertLess(time.monotonic() - started, 15)

    def datapath(self, **env):
        """The datapath section's rows and nvcc's invocations."""
        proc, doc, calls = self.run_reference("--only", "datapath", **env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(doc["sections_done"], ["datapath"])
        return doc["rows"], calls

    def test_the_datapath_rows_are_keyed_to_gpubench_and_labelled_a_capability_difference(self):
        rows, calls = self.datapath()
        keys = [r["key"] for r in rows]
        want = [k for name in ("transfer-bound", "compute-bound", "balanced")
                for k in ref_keys(name)]
        self.assertEqual(keys, want)
        for r in rows:
            self.assertEqual(r["status"], "ok", r)
            self.assertEqual(r["unit"], "us")
            self.assertGreater(r["value"], 0)
            self.assertEqual(r["comparison"], "capability difference")
            self.assertIn("not a like-for-like ratio", r["caveat"])
            self.assertIn("pinned host memory", r["caveat"])
            self.assertIn("cuda_datapath.cu (nvcc -O2 -arch=sm_90)", r["method"])
        by_key = {r["key"]: r for r in rows}
        # The quick profile's counts: 100 serial requests state a p99; 5 x 16 overlapped ones
        # only a p95 (null, never a number, below 100).
        serial = by_key["datapath/balanced/serial"]["percentiles"]
        self.assertEqual(serial["n"], 100)
        self.assertIsNotNone(serial["p99"])
        overlap = by_key["datapath/balanced/overlap-2-streams"]
        self.assertEqual(overlap["percentiles"]["n"], 80)
        self.assertIsNone(overlap["percentiles"]["p99"])
        self.assertEqual((overlap["streams"], overlap["in_flight"]), (2, 2))
        self.assertIn("overlap_ideal", overlap)
        self.assertEqual(by_key["datapath/compute-bound/stage/compute"]["flops"],
                         16384 * 4 * 4096 * 2)
        # Built once, for the device, and asked for gpubench's requests.
        [call] = calls
        self.assertIn("-arch=sm_90", call)
        self.assertTrue(call[-1].endswith("cuda_datapath.cu"), call)

    def test_a_wrong_answer_fails_its_row_and_leaves_no_figure(self):
        rows, _ = self.datapath(GPU_DOUBLES_NVCC="wrong")
        failed = [r for r in rows if r["status"] != "ok"]
        self.assertEqual([r["key"] for r in failed], ["datapath/compute-bound/overlap-2-streams"])
        self.assertIn("wrong answer", failed[0]["reason"])
        self.assertNotIn("value", failed[0])
        self.assertEqual(failed[0]["comparison"], "capability difference")

    def test_without_figures_from_nvcc_one_datapath_row_says_why(self):
        for mode, says in (("fail", "-arch=sm_90 failed (exit 2)"),
                           ("garbage", "printed no JSON"),
                           ("refuses", "reported 'failed'")):
            rows, _ = self.datapath(GPU_DOUBLES_NVCC=mode)
            self.assertEqual(len(rows), 1, mode)
            self.assertEqual(rows[0]["key"], "datapath")
            self.assertEqual(rows[0]["status"], "failed")
            self.assertIn(says, rows[0]["reason"])
            self.assertNotIn("value", rows[0])

    def test_a_datapath_program_that_runs_too_long_is_stopped(self):
        rows, _ = self.datapath(CUDA_DATAPATH_TIMEOUT="0.001")
        self.assertEqual([r["key"] for r in rows], ["datapath"])
        self.assertIn("timed out after 0.001 s", rows[0]["reason"])

    def memory(self, *args, **env):
        """The memory section's rows by key, and nvcc's invocations."""
        proc, doc, calls = self.run_reference("--only", "memory", *args, **env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(doc["sections_done"], ["memory"])
        return {r["key"]: r for r in doc["rows"]}, doc, calls

    def test_the_memory_rows_are_keyed_to_gpubench_at_its_sweep(self):
        rows, doc, calls = self.memory()
        sizes = doc["plan"]["memory_sizes"]
        self.assertEqual((sizes[0], sizes[-1], len(sizes)), (4096, 512 << 20, 35))
        for kind in ("read", "latency", "latency-lanes"):
            for label in ("4KiB", "6KiB", "1.5MiB", "512MiB"):
                self.assertIn(f"memory/{kind}/{label}", rows)
        self.assertEqual(len(rows), 3 * 35 + 8 + 6)
        for r in rows.values():
            self.assertEqual(r["status"], "ok", r)
            self.assertIn("cuda_memory.cu (nvcc -O2 -arch=sm_90)", r["method"])
            self.assertEqual(r["telemetry"]["status"], "ok")
        # The double's levels: L1 to 256 KiB, L2 to 50 MiB, HBM beyond.
        read = [rows[f"memory/read/{s}"]["value"] for s in ("256KiB", "48MiB", "64MiB")]
        self.assertEqual(read, [25000.0, 10000.0, 4000.0])
        self.assertEqual(rows["memory/latency/512MiB"]["unit"], "ns")
        self.assertEqual(rows["memory/latency/512MiB"]["value"], 500.0)
        self.assertEqual(rows["memory/workgroup/stride-32"]["value"], 27000.0 / 32)
        self.assertEqual(rows["memory/atomic-add/storage-one"]["aggregation"], "may-fold")
        self.assertEqual(rows["memory/atomic-add/storage-one-lane-indexed"]["aggregation"],
                         "per-lane")
        [call] = calls
        self.assertIn("-arch=sm_90", call)
        self.assertTrue(call[-1].endswith("cuda_memory.cu"), call)

    def test_the_memory_sizes_can_be_given(self):
        rows, doc, _ = self.memory("--memory-sizes", "4096,1572864")
        self.assertEqual(doc["plan"]["memory_sizes"], [4096, 1572864])
        self.assertEqual(sorted(k for k in rows if k.startswith("memory/read/")),
                         ["memory/read/1.5MiB", "memory/read/4KiB"])

    def test_rows_past_the_memory_time_cap_are_not_measured_with_the_reason(self):
        rows, _, _ = self.memory(CUDA_MEMORY_TIMEOUT="3")
        self.assertEqual(rows["memory/read/512MiB"]["status"], "ok")
        late = rows["memory/latency-lanes/512MiB"]
        self.assertEqual(late["status"], "not-measured")
        self.assertIn("the time cap of 3.0 s was reached", late["reason"])
        self.assertNotIn("value", late)
        self.assertEqual(late["bytes"], 512 << 20)

    def test_a_chase_off_its_cycle_fails_its_row(self):
        rows, _, _ = self.memory(GPU_DOUBLES_NVCC="wrong")
        failed = [k for k, r in rows.items() if r["status"] != "ok"]
        self.assertEqual(failed, ["memory/latency/8KiB"])
        self.assertIn("the chase ended at word", rows["memory/latency/8KiB"]["reason"])
        self.assertNotIn("value", rows["memory/latency/8KiB"])

    def test_without_figures_from_nvcc_one_memory_row_says_why(self):
        for mode, says in (("fail", "-arch=sm_90 failed (exit 2)"),
                           ("garbage", "printed no JSON"),
                           ("refuses", "reported 'failed'")):
            rows, _, _ = self.memory(GPU_DOUBLES_NVCC=mode)
            self.assertEqual(list(rows), ["memory"], mode)
            self.assertEqual(rows["memory"]["status"], "failed")
            self.assertIn(says, rows["memory"]["reason"])
            self.assertNotIn("value", rows["memory"])

    def interrupt(self, signum):
        """Stops a run during its launch section (nvcc held in its build) with signum."""
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cuda.json")
            proc = subprocess.Popen(
                [sys.executable, REFERENCE, "--quick", "--only", "stream,launch", "--out", out],
                env=doubles_env(GPU_DOUBLES_NVCC_SLEEP="30"), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True)
            try:
                wait_for(lambda: (read_json(out) or {}).get("section_running") == "launch",
                         what="the launch section")
                time.sleep(0.2)  # nvcc started
                proc.send_signal(signum)
                _, stderr = proc.communicate(timeout=20)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            return proc.returncode, read_json(out), stderr

    def test_sigterm_saves_the_finished_sections_marked_incomplete(self):
        code, doc, stderr = self.interrupt(signal.SIGTERM)
        self.assertEqual(code, 143, stderr)
        self.assertFalse(doc["complete"])
        self.assertEqual(doc["interrupted"], "SIGTERM")
        self.assertEqual(doc["sections_done"], ["stream"])
        self.assertEqual(doc["section_running"], "launch")
        self.assertEqual({r["key"].split("/")[0] for r in doc["rows"]}, {"stream"})
        self.assertIn("interrupted by SIGTERM during launch", stderr)

    def test_sigint_is_saved_the_same_way(self):
        code, doc, _ = self.interrupt(signal.SIGINT)
        self.assertEqual(code, 130)
        self.assertEqual(doc["interrupted"], "SIGINT")
        self.assertFalse(doc["complete"])


if __name__ == "__main__":
    unittest.main()
