"""scripts/gpu-check.sh --rehearsal end to end, with a stub gpubench (stub_gpubench.py: a few
results, short sleeps) and the CUDA test doubles: the archive and what it holds, the flags each
tool got, and a SIGTERM (or SIGINT) to the script at several moments, each leaving the archive
with a partial table and exit 143 (130). No GPU; a few seconds a run."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

from polling import read_json, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))


def signals_as_from_a_terminal():
    """SIGINT and SIGTERM at their defaults in the script, as a terminal starts it, even where
    these tests were started in the background with them ignored: bash cannot trap a signal
    that was ignored when it started, and the signal tests would then see none arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
SCRIPT = os.path.join(os.path.dirname(HERE), "gpu-check.sh")
STUB = os.path.join(HERE, "stub_gpubench.py")
BANNER = "REHEARSAL: software adapter and CUDA test doubles, not measurements"


class Rehearsal(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.out = os.path.join(self.tmp.name, "check")
        self.stub_log = os.path.join(self.tmp.name, "stub.log")
        # The stub through a wrapper: it runs whatever the file's mode bits in the checkout are.
        self.gpubench = os.path.join(self.tmp.name, "gpubench")
        with open(self.gpubench, "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "{STUB}" "$@"\n')
        os.chmod(self.gpubench, 0o755)

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GPUBENCH_", "CUDA_", "GPU_DOUBLES_", "STUB_GPUBENCH_",
                                    "VK_", "GPU_CHECK_"))}
        env.update(STUB_GPUBENCH_LOG=self.stub_log, STUB_GPUBENCH_SLEEP="0.05")
        env.update(extra)
        return env

    def start(self, rehearsal=True, **env):
        mode = ["--rehearsal"] if rehearsal else []
        proc = subprocess.Popen(["bash", SCRIPT, *mode, self.out, self.gpubench],
                                env=self.env(**env), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=signals_as_from_a_terminal)

        def stop():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        self.addCleanup(stop)
        return proc

    def finish(self, proc, timeout=60):
        stdout, stderr = proc.communicate(timeout=timeout)
        return proc.returncode, stdout, stderr

    def archive(self):
        """name -> bytes of every file in OUTDIR/gpu-check.tar.gz."""
        path = os.path.join(self.out, "gpu-check.tar.gz")
        self.assertTrue(os.path.exists(path), "no archive")
        with tarfile.open(path) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}

    def stub_calls(self, command):
        if not os.path.exists(self.stub_log):
            return []
        with open(self.stub_log) as f:
            return [c for c in map(json.loads, f) if c and c[0] == command]

    def check_marked(self, files, stderr):
        """The rehearsal says what it is, in the table, the log, and the archive's wall time."""
        table = files["side-by-side.md"].decode()
        self.assertTrue(table.startswith(f"**{BANNER}**\n"), table[:200])
        log = files["check.log"].decode()
        self.assertIn(BANNER, log)
        self.assertRegex(log, r"gpu-check: wall time \d+ s")
        self.assertRegex(stderr, r"gpu-check: wall time \d+ s")
        return table

    def test_the_whole_check_leaves_one_archive_with_both_sides(self):
        proc = self.start(GPUBENCH_COOP="off")
        code, stdout, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        files = self.archive()
        for name in ("side-by-side.md", "side-by-side.json", "gpubench.json", "cuda.json",
                     "check.log", "gpubench.html", "doctor.json", "adapters.json",
                     "nvidia-smi.csv", "cuda.err", "gpubench.txt"):
            self.assertIn(name, files)
        self.assertTrue(any(n.startswith("baselines/") for n in files), sorted(files))
        self.assertNotIn("gpu-check.tar.gz", files)
        # Each step's time here beside the card's prediction, and the prediction before it all.
        budget = files["budget.md"].decode()
        for step in ("start-up", "cuda-reference", "gpubench"):
            self.assertRegex(budget, rf"\| {step} \| \d+ \| \d+ \|")
        self.assertRegex(budget, r"\| total \| \d+ \| \d+ \(budget 450\) \|")
        self.assertRegex(files["check.log"].decode(), r"predicted \d+ s of the 450 s budget")
        self.assertIn("budget.json", files)
        table = self.check_marked(files, stderr)
        self.assertEqual(stdout, table, "the table is printed too")
        self.assertNotIn("INCOMPLETE", table)
        self.assertNotIn("not measured", table)
        self.assertIn("NVIDIA H200 (test double)", files["nvidia-smi.csv"].decode())
        # Rows pair: the stub's 128x128x128 matmul beside the double's, at the same shape.
        self.assertRegex(table, r"\| SGEMM 128x128x128 \(TF32 off\) \| 40 \| \d+ \| GFLOP/s \|")
        self.assertRegex(table, r"\| best H2D path at 4MiB vs CUDA pinned \| 3 \| [\d.]+ \|")
        self.assertIn("left out transfer/h2d-staging-copy/bytes/4MiB: crosses_link false", table)
        # Launch rows paired dependent with dependent, independent with a graph with no edges.
        self.assertRegex(table, r"\| GPU gap, independent dispatches, vs CUDA graph with no edges "
                                r"\| 0\.9 \| 0\.45 \| us \| 0\.5 \|")
        self.assertRegex(table, r"\| GPU gap per dispatch vs CUDA graph node \(both a chain\) "
                                r"\| 3 \| 0\.9 \|")
        # The datapath rows beside CUDA's twin, in their own section, labelled so.
        self.assertIn("## Data path: a capability difference, not a like-for-like ratio", table)
        self.assertRegex(table, r"\| datapath balanced serial \| 900 \| [\d.]+ \| us \| "
                                r"[\d.]+ \(capability\) \|")
        self.assertRegex(table, r"\| datapath balanced overlap-2 \| 700 \| [\d.]+ \| us \|")
        cuda = json.loads(files["cuda.json"])
        self.assertTrue(cuda["complete"])
        self.assertEqual(cuda["plan"]["stream_bytes"], 16 << 20)
        # gpubench's quick-profile shapes in its order: the largest square first.
        self.assertEqual(cuda["plan"]["matmul_shapes"], [
            "256x256x256", "128x128x128", "64x256x256", "8x256x256", "1x256x256"])
        self.assertEqual(cuda["plan"]["transfer_sizes"], [4096 * 4**i for i in range(6)])
        self.assertTrue(json.loads(files["gpubench.json"])["complete"])
        self.check_memory(files, table, cuda)
        # gpubench was asked for the software adapter, quick, matmul last, and no vendor; then
        # for the memory suite on its own, with the same adapter flags.
        run, memory_run = self.stub_calls("run")
        self.assertEqual(memory_run[memory_run.index("--suite") + 1], "memory")
        self.assertEqual(memory_run[memory_run.index("--expect-type") + 1], "cpu")
        self.assertEqual(memory_run[memory_run.index("--profile") + 1], "quick")
        self.assertEqual(memory_run[memory_run.index("--adapter") + 1],
                         run[run.index("--adapter") + 1])
        self.assertEqual(run[run.index("--expect-type") + 1], "cpu")
        self.assertNotIn("--expect-vendor", run)
        self.assertEqual(run[run.index("--profile") + 1], "quick")
        self.assertEqual(run[run.index("--suite") + 1],
                         "stream,compute,transfer,launch,roofline,datapath,matmul")
        self.assertEqual(run[run.index("--stream-size") + 1], "16MiB")
        for flag in ("--save-baseline", "--force", "--html", "--no-coop-matrix"):
            self.assertIn(flag, run)

    def test_a_large_bar_card_says_h2d_through_the_copy_engine_is_out_of_reach(self):
        code, stdout, stderr = self.finish(self.start(STUB_GPUBENCH_LARGE_BAR="1"))
        self.assertEqual(code, 0, stderr)
        self.assertIn("H2D through the copy engine is not reachable through wgpu on this card",
                      stdout)
        self.assertRegex(stdout, r"\| host write \(no copy engine\) at 4MiB vs CUDA SM pull from "
                                 r"pinned memory \| 12 \| [\d.]+ \| GB/s \| [\d.]+ \|")

    def test_a_plan_predicted_over_the_budget_is_refused_before_the_window(self):
        with open(os.path.join(os.path.dirname(HERE), "check-plan-h200.json")) as f:
            plan = json.load(f)
        plan["costs"]["candidate_s"]["value"] = 1.0  # every tuning candidate 8x slower
        inflated = os.path.join(self.tmp.name, "plan.json")
        with open(inflated, "w") as f:
            json.dump(plan, f)
        code, _, stderr = self.finish(self.start(GPU_CHECK_PLAN=inflated))
        self.assertEqual(code, 4, stderr)
        self.assertIn("over the 450 s budget", stderr)
        self.assertIn("refused before the window starts", stderr)
        # Nothing started: no adapter listed, no tool run.
        self.assertEqual(self.stub_calls("list") + self.stub_calls("run"), [])
        self.assertFalse(os.path.exists(os.path.join(self.out, "adapters.json")))

    def test_step_timeouts_over_540_s_are_refused_before_the_window(self):
        code, _, stderr = self.finish(self.start(rehearsal=False, GPUBENCH_TIMEOUT="400"))
        self.assertEqual(code, 5, stderr)
        self.assertIn("the step timeouts add up to", stderr)
        self.assertEqual(self.stub_calls("list"), [])

    def test_the_vulkan_peers_stand_beside_their_rows(self):
        # The peers' doubles (tests/doubles/bin) run where the rehearsal finds peers by default,
        # on the adapter found in their own device lists, between CUDA's side and gpubench's.
        proc = self.start()
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        files = self.archive()
        for name in ("vkpeak.txt", "clpeak.txt", "vkpeak-devices.txt", "clpeak-devices.txt",
                     "peers.json"):
            self.assertIn(name, files)
        self.assertIn("fp16-matrix  = 520000.00 GFLOPS", files["vkpeak.txt"].decode())
        self.assertIn("gpu-check: clpeak exit 0", files["clpeak.txt"].decode())
        table = self.check_marked(files, stderr)
        self.assertIn("| Vulkan peer, same card", table)
        self.assertRegex(table, r"\| FMA peak f32 \(best form\) vs CUDA \| 120 \|.*\| vkpeak "
                                r"fp32-vec4 60500 GFLOP/s, ratio [\d.e-]+ \(same:")
        self.assertRegex(table, r"\| stream read vs CUDA D2D copy \| 14 \|.*\| clpeak "
                                r"global-bandwidth 4290 GB/s, ratio [\d.e-]+ \(same:")
        self.assertRegex(table, r"\| round trip vs CUDA launch \+ synchronize \| 60 \|.*\| "
                                r"clpeak kernel-latency 14.2 us")
        self.assertRegex(table, r"\| HGEMM 128x128x128, gpubench f16 on cooperative matrices "
                                r"\| 45 \|.*gap split: gpubench / CUDA [\d.e-]+ = the kernel")
        self.assertIn("## Vulkan peers on the same adapter", table)
        log = files["check.log"].decode()
        self.assertLess(log.index("cuda reference exit"), log.index("vkpeak exit 0"))
        self.assertLess(log.index("clpeak exit 0"), log.index("gpubench exit"))

    def test_peers_not_carried_are_a_status_and_the_check_goes_on(self):
        empty = os.path.join(self.tmp.name, "no-peers")
        os.mkdir(empty)
        proc = self.start(GPUBENCH_PEERS=empty)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        table = self.archive()["side-by-side.md"].decode()
        self.assertIn("vkpeak fp32-vec4: not run: no vkpeak binary carried", table)
        self.assertIn("clpeak global-bandwidth: not run: no clpeak binary carried", table)
        self.assertRegex(table, r"\| SGEMM 128x128x128 \(TF32 off\) \| 40 \|")

    def test_sigterm_during_vkpeak(self):
        proc = self.start(GPU_DOUBLES_VKPEAK_SLEEP="30")
        raw = os.path.join(self.out, "vkpeak.txt")

        def started():
            try:
                with open(raw) as f:
                    return "device       =" in f.read()
            except OSError:
                return False
        wait_for(started, what="vkpeak's device line")
        proc.send_signal(signal.SIGTERM)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 143, stderr)
        files = self.archive()
        table = self.check_marked(files, stderr)
        self.assertIn("vkpeak fp32-vec4: absent: not measured: vkpeak was stopped by the check's "
                      "SIGTERM", table)
        self.assertIn("clpeak global-bandwidth: not run: the check was stopped before clpeak "
                      "(SIGTERM)", table)
        self.assertEqual(self.stub_calls("run"), [], "gpubench must not start after the stop")

    def check_memory(self, files, table, cuda):
        """The memory step's file is archived and its rows stand beside the CUDA doubles' in a
        section of their own, at the card's sweep (4 KiB to 512 MiB) on CUDA's side."""
        self.assertTrue(json.loads(files["gpubench-memory.json"])["complete"])
        self.assertIn("gpubench-memory.txt", files)
        self.assertEqual(len(cuda["plan"]["memory_sizes"]), 35)
        self.assertEqual(cuda["plan"]["memory_sizes"][-1], 512 << 20)
        section = table[table.index("## Memory hierarchy"):]
        self.assertRegex(section, r"\| read bandwidth at 4KiB \| 9 \| 25000 \| GB/s \|")
        self.assertRegex(section, r"\| latency, one thread at 1.5MiB \| 160 \| 200 \| ns \| "
                                  r"1.25 \|")
        self.assertRegex(section, r"\| level-1 bandwidth \(4KiB to 8KiB\) \| 9 \| 25000 \|")
        self.assertIn("| shared memory read-vec4 | 9.1 | 30000 | GB/s |", section)
        self.assertIn("| atomicAdd storage-one | 0.13 | 400 | GIOP/s |", section)
        self.assertIn("both compilers may fold", section)
        self.assertNotIn("not measured", section)

    def test_the_real_mode_never_takes_a_software_adapter(self):
        # Even one that claims NVIDIA's vendor id: the real mode wants a discrete adapter, and
        # the cpu rule lives only in the rehearsal's branch.
        proc = self.start(rehearsal=False, STUB_GPUBENCH_VENDOR_ID="0x10de")
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 3, stderr)
        self.assertIn("no discrete Vulkan adapter of vendor 0x10de", stderr)
        for never in ("cuda.json", "gpubench.json", "gpubench.html", "side-by-side.md"):
            self.assertFalse(os.path.exists(os.path.join(self.out, never)), never)
        self.assertEqual(self.stub_calls("run") + self.stub_calls("doctor"), [])
        # What comes back from the machine says why.
        files = self.archive()
        self.assertIn("stopping before any measurement", files["check.log"].decode())
        self.assertNotIn(BANNER, files["check.log"].decode())

    def test_the_real_mode_runs_the_real_flags_on_an_nvidia_discrete_adapter(self):
        # The real mode's whole path, on the stub posing as an NVIDIA discrete adapter, with the
        # real (torch-less) reference: what each tool is asked for.
        if importlib.util.find_spec("torch") is not None:
            self.skipTest("torch is installed here: the reference would really measure")
        proc = self.start(rehearsal=False, STUB_GPUBENCH_VENDOR_ID="0x10de",
                          STUB_GPUBENCH_DEVICE_TYPE="discrete")
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        run, memory_run = self.stub_calls("run")
        for flags in (run, memory_run):
            self.assertEqual(flags[flags.index("--expect-vendor") + 1], "0x10de")
            self.assertEqual(flags[flags.index("--max-time") + 1], "2")
        self.assertEqual(memory_run[memory_run.index("--suite") + 1], "memory")
        self.assertEqual(run[run.index("--expect-vendor") + 1], "0x10de")
        self.assertEqual(run[run.index("--expect-type") + 1], "discrete")
        self.assertEqual(run[run.index("--profile") + 1], "default")
        self.assertEqual(run[run.index("--stream-size") + 1], "1GiB")
        self.assertEqual(run[run.index("--max-time") + 1], "2")
        self.assertEqual(run[run.index("--suite") + 1],
                         "stream,compute,transfer,launch,roofline,datapath,matmul")
        for flag in ("--force", "--no-coop-matrix"):
            self.assertNotIn(flag, run)
        files = self.archive()
        table = files["side-by-side.md"].decode()
        self.assertFalse(table.startswith("**REHEARSAL"))
        self.assertNotIn("REHEARSAL", files["check.log"].decode())
        self.assertIn("not measured: no CUDA", table)
        self.assertRegex(table[table.index("## Memory hierarchy"):],
                         r"\| shared memory read-vec4 \| [\d.]+ \| not measured: no CUDA")
        cuda = json.loads(files["cuda.json"])
        self.assertTrue(cuda["complete"])
        self.assertEqual(cuda["plan"]["stream_bytes"], 1 << 30)

    def test_sigterm_during_the_cuda_reference(self):
        # The nvcc double holds the reference in its launch section, four sections saved.
        proc = self.start(GPU_DOUBLES_NVCC_SLEEP="30")
        cuda = os.path.join(self.out, "cuda.json")
        wait_for(lambda: (read_json(cuda) or {}).get("section_running") == "launch",
                 what="the reference's launch section")
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 143, stderr)
        files = self.archive()
        table = self.check_marked(files, stderr)
        self.assertIn("CUDA reference INCOMPLETE: interrupted by SIGTERM during launch; "
                      "sections done: stream, compute, matmul, transfer", table)
        self.assertIn("| round trip vs CUDA launch + synchronize | not measured: gpubench.json "
                      "missing | CUDA reference interrupted (SIGTERM) before this section |",
                      table)
        self.assertRegex(table, r"\| SGEMM 128x128x128 \(TF32 off\) \| not measured: "
                                r"gpubench.json missing \| \d+ \|")
        self.assertNotIn("gpubench.json", files)
        self.assertEqual(self.stub_calls("run"), [], "gpubench must not start after the stop")
        self.assertIn("SIGTERM: forwarded to the running step", files["check.log"].decode())
        # The peers come after CUDA's side: not run, and the table says why.
        self.assertIn("vkpeak fp32-vec4: not run: the check was stopped before vkpeak (SIGTERM)",
                      table)

    def test_sigterm_during_the_gpubench_run(self):
        proc = self.start(STUB_GPUBENCH_SLEEP="0.3")
        results = os.path.join(self.out, "gpubench.json")
        wait_for(lambda: len((read_json(results) or {}).get("results") or []) >= 4,
                 what="four gpubench results")
        proc.send_signal(signal.SIGTERM)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 143, stderr)
        files = self.archive()
        table = self.check_marked(files, stderr)
        saved = json.loads(files["gpubench.json"])
        self.assertFalse(saved["complete"])
        self.assertIn('gpubench results INCOMPLETE ("complete": false', table)
        self.assertRegex(table, r"\| stream copy vs CUDA D2D copy \| 11 \| \d+ \|")
        self.assertRegex(table, r"\| SGEMM 128x128x128 \(TF32 off\) \| gpubench run stopped "
                                r"before this result \| \d+ \|")
        self.assertTrue(json.loads(files["cuda.json"])["complete"])
        self.assertNotIn("--no-coop-matrix", self.stub_calls("run")[0])

    def test_sigterm_during_the_memory_step_keeps_the_main_run_and_the_memory_rows_so_far(self):
        proc = self.start(STUB_GPUBENCH_SLEEP="0.1")
        memory = os.path.join(self.out, "gpubench-memory.json")
        wait_for(lambda: len((read_json(memory) or {}).get("results") or []) >= 4,
                 what="four memory results")
        proc.send_signal(signal.SIGTERM)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 143, stderr)
        files = self.archive()
        table = self.check_marked(files, stderr)
        self.assertTrue(json.loads(files["gpubench.json"])["complete"])
        self.assertFalse(json.loads(files["gpubench-memory.json"])["complete"])
        section = table[table.index("## Memory hierarchy"):]
        self.assertIn('gpubench memory results INCOMPLETE ("complete": false', section)
        self.assertRegex(section, r"\| read bandwidth at 4KiB \| 9 \| 25000 \|")
        self.assertIn("| atomicAdd storage-one | gpubench run stopped before this result | 400 |",
                      section)

    def test_the_memory_step_has_its_own_time_cap(self):
        # Past GPUBENCH_MEMORY_TIMEOUT the step is stopped (exit 124), keeps what it saved, and
        # the check goes on to its table as after any step.
        proc = self.start(STUB_GPUBENCH_SLEEP="0.2", GPUBENCH_MEMORY_TIMEOUT="1")
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        self.assertIn("gpubench memory exit 124", stderr)
        files = self.archive()
        saved = json.loads(files["gpubench-memory.json"])
        self.assertFalse(saved["complete"])
        self.assertLess(len(saved["results"]), 10)
        self.assertTrue(json.loads(files["gpubench.json"])["complete"])

    def test_a_step_that_ignores_the_signal_is_killed_after_the_grace_period(self):
        proc = self.start(STUB_GPUBENCH_SLEEP="0.3", STUB_GPUBENCH_IGNORE_SIGNALS="1",
                          GPU_CHECK_GRACE="0.5")
        results = os.path.join(self.out, "gpubench.json")
        wait_for(lambda: len((read_json(results) or {}).get("results") or []) >= 2,
                 what="two gpubench results")
        proc.send_signal(signal.SIGTERM)
        code, _, stderr = self.finish(proc, timeout=20)
        self.assertEqual(code, 143, stderr)
        self.assertIn("gpubench exit 137", stderr)
        table = self.archive()["side-by-side.md"].decode()
        self.assertIn("gpubench results INCOMPLETE", table)
        self.assertRegex(table, r"\| stream copy vs CUDA D2D copy \| 11 \| \d+ \|")

    def test_sigint_during_the_gpubench_run(self):
        proc = self.start(STUB_GPUBENCH_SLEEP="0.3")
        results = os.path.join(self.out, "gpubench.json")
        wait_for(lambda: len((read_json(results) or {}).get("results") or []) >= 2,
                 what="two gpubench results")
        proc.send_signal(signal.SIGINT)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 130, stderr)
        table = self.archive()["side-by-side.md"].decode()
        self.assertIn("gpubench results INCOMPLETE", table)

    def test_a_fifo_as_the_nominal_file_never_holds_the_check(self):
        # side_by_side.py opens its inputs without blocking and reads regular files only: a
        # FIFO given as the nominal file (nobody will ever write it) is said to be unreadable,
        # and the table and the archive are finished as always.
        fifo = os.path.join(self.tmp.name, "nominal.json")
        os.mkfifo(fifo)
        proc = self.start(GPUBENCH_NOMINAL=fifo)
        code, _, stderr = self.finish(proc)
        self.assertEqual(code, 0, stderr)
        table = self.archive()["side-by-side.md"].decode()
        self.assertIn("nominal.json unreadable: not a regular file", table)


if __name__ == "__main__":
    unittest.main()
