"""The Vulkan peers' parser (scripts/peers.py) on real outputs of vkpeak and clpeak (the fixtures,
from lavapipe), the adapter's device found in each peer's own list, and the peer column with
the cooperative-matrix split in scripts/side_by_side.py's table. No GPU, no peer binaries."""

import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "peers")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = load("peers")
sbs = load("side_by_side")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def by_key(rows):
    return {r["key"]: r for r in rows}


class RealOutputs(unittest.TestCase):
    """The formats as the real tools printed them (see fixtures/peers/README.md)."""

    def test_clpeak_on_lavapipe(self):
        header, rows = peers.parse_clpeak(fixture("clpeak-lavapipe.txt") + "gpu-check: clpeak "
                                          "exit 0\n", "clpeak a68fbf0")
        self.assertEqual(header["device"], "llvmpipe (LLVM 15.0.6, 256 bits)")
        self.assertEqual(header["exit"], 0)
        rows = by_key(rows)
        self.assertEqual(rows["clpeak/global-bandwidth"]["value"], 1.10)
        self.assertEqual(rows["clpeak/global-bandwidth"]["unit"], "GB/s")
        self.assertIn("float4", rows["clpeak/global-bandwidth"]["what"])
        self.assertEqual(rows["clpeak/global-bandwidth-float"]["value"], 0.45)
        self.assertEqual(rows["clpeak/kernel-latency"]["value"], 226.77)
        self.assertEqual(rows["clpeak/kernel-latency"]["unit"], "us")
        self.assertEqual(rows["clpeak/dispatch-latency"]["value"], 32.12)
        self.assertTrue(all(r["tool"] == "clpeak a68fbf0" for r in rows.values()))

    def test_vkpeak_on_lavapipe(self):
        header, rows = peers.parse_vkpeak(fixture("vkpeak-lavapipe.txt") + "gpu-check: vkpeak "
                                          "exit 0\n")
        self.assertTrue(header["device"].startswith("llvmpipe"), header)
        self.assertIn("llvmpipe", header["driver"])
        rows = by_key(rows)
        self.assertEqual(rows["vkpeak/fp32-vec4"]["status"], "ok")
        self.assertGreater(rows["vkpeak/fp32-vec4"]["value"], 0)
        self.assertEqual(rows["vkpeak/fp32-vec4"]["unit"], "GFLOP/s")
        self.assertEqual(rows["vkpeak/int8-dotprod"]["unit"], "GOP/s")
        # lavapipe has no cooperative matrix: vkpeak prints 0.00, kept as its words.
        matrix = rows["vkpeak/fp16-matrix"]
        self.assertEqual(matrix["status"], "unsupported")
        self.assertIsNone(matrix["value"])
        self.assertIn("fp16-matrix  = 0.00 GFLOPS", matrix["reason"])

    def test_device_lists_as_the_real_tools_print_them(self):
        self.assertEqual(peers.clpeak_devices(fixture("clpeak-devices-lavapipe.txt")),
                         [(0, "llvmpipe (LLVM 15.0.6, 256 bits)")])
        self.assertEqual(peers.vkpeak_devices(fixture("vkpeak-devices-lavapipe.txt")),
                         [(0, "llvmpipe (LLVM 15.0.6, 256 bits)")])


class Statuses(unittest.TestCase):
    def test_a_peer_not_carried_is_a_status_not_a_number(self):
        header, rows = peers.parse_vkpeak("gpu-check: not run: no vkpeak binary carried (none "
                                          "in GPUBENCH_PEERS=x)\n")
        self.assertEqual(header["status"], "not run")
        for r in rows:
            self.assertIsNone(r["value"])
            self.assertEqual(r["status"], "not run")
            self.assertIn("no vkpeak binary carried", r["reason"])

    def test_a_timeout_names_what_was_left(self):
        text = "device       = X\nfp32-vec4    = 10.00 GFLOPS\ngpu-check: vkpeak exit 124\n"
        rows = by_key(peers.parse_vkpeak(text, timeout="60")[1])
        self.assertEqual(rows["vkpeak/fp32-vec4"]["value"], 10.0)
        self.assertEqual(rows["vkpeak/fp16-vec4"]["status"], "absent")
        self.assertIn("timed out (PEERS_TIMEOUT 60 s)", rows["vkpeak/fp16-vec4"]["reason"])

    def test_clpeak_own_words_for_an_unsupported_reading(self):
        text = ("Backend: Vulkan\n  Device 0: D\n\n    Kernel launch latency (US)\n"
                "      dispatch  : [unsupported] Needs VK_EXT_calibrated_timestamps\n"
                "      roundtrip : 14.20\n\ngpu-check: clpeak exit 0\n")
        rows = by_key(peers.parse_clpeak(text)[1])
        self.assertEqual(rows["clpeak/kernel-latency"]["value"], 14.2)
        dispatch = rows["clpeak/dispatch-latency"]
        self.assertEqual(dispatch["status"], "unsupported")
        self.assertIn("Needs VK_EXT_calibrated_timestamps", dispatch["reason"])
        self.assertEqual(rows["clpeak/global-bandwidth"]["status"], "absent")

    def test_missing_files_say_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            doc = peers.parse(tmp)
        self.assertEqual({r["status"] for r in doc["rows"]}, {"not run"})
        self.assertIn("vkpeak.txt missing", doc["tools"]["vkpeak"]["reason"])


class Devices(unittest.TestCase):
    def test_by_name_then_bare_name_then_the_only_one(self):
        two = [(0, "llvmpipe (LLVM 15.0.6, 256 bits)"), (1, "NVIDIA H200")]
        self.assertEqual(peers.pick_device(two, "NVIDIA H200")[0], 1)
        self.assertEqual(peers.pick_device(two, "llvmpipe (LLVM 17.0.0, 256 bits)")[0], 0)
        self.assertEqual(peers.pick_device([(0, "NVIDIA H200")], "llvmpipe (stub)")[0], 0)
        index, why = peers.pick_device(two, "AMD Radeon")
        self.assertIsNone(index)
        self.assertIn("not among its devices", why)


def gpubench_doc():
    def result(rid, median, unit="GFLOP/s"):
        return {"id": rid, "status": "ok", "unit": unit, "role": "kernel", "verified": True,
                "summary": {"median": median}}
    return {"complete": True, "results": [
        result("compute/fma-peak/vec4-f32", 50000.0),
        result("compute/fma-peak/vec4-f16", 52000.0),
        result("stream/read/vec4-f32/1GiB", 4000.0, "GB/s"),
        result("stream/copy/vec4-f32/1GiB", 3900.0, "GB/s"),
        result("launch/round-trip/one-dispatch", 20.0, "us"),
        result("matmul/f32/4096x4096x4096", 40000.0),
        result("matmul/f16/4096x4096x4096", 100000.0),
        result("matmul/f16-coop/4096x4096x4096", 300000.0)]}


def cuda_doc():
    def row(key, value, unit="GFLOP/s"):
        return {"key": key, "status": "ok", "value": value, "unit": unit}
    return {"complete": True, "plan": {"stream_bytes": 1 << 30,
                                       "matmul_shapes": ["4096x4096x4096"]},
            "rows": [row("compute/fma-peak-f32", 60000.0), row("compute/fma-peak-f16x2", 120000.0),
                     row("stream/copy-d2d", 4200.0, "GB/s"), row("launch/round-trip", 8.0, "us"),
                     row("matmul/f16/4096x4096x4096", 600000.0)]}


class Table(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        doubles = os.path.join(HERE, "doubles", "bin")
        self.out = self.tmp.name
        # What the doubles print, saved as the check saves the real tools' output.
        for tool, args in (("vkpeak", ["0", ",".join(peers.VKPEAK_SCENARIOS)]),
                           ("clpeak", peers.CLPEAK_FLAGS + ["--vk-device", "0"])):
            run = subprocess.run([sys.executable, os.path.join(doubles, tool), *args],
                                 capture_output=True, text=True, check=True)
            with open(os.path.join(self.out, f"{tool}.txt"), "w") as f:
                f.write(run.stderr + run.stdout + f"gpu-check: {tool} exit 0\n")

    def table(self, peers_doc, problem=None):
        files = {}
        for name, doc in (("g.json", gpubench_doc()), ("c.json", cuda_doc())):
            files[name] = os.path.join(self.out, name)
            with open(files[name], "w") as f:
                json.dump(doc, f)
        argv = [files["g.json"], files["c.json"]]
        if peers_doc is not None:
            path = os.path.join(self.out, "peers.json")
            with open(path, "w") as f:
                f.write(json.dumps(peers_doc) if isinstance(peers_doc, dict) else peers_doc)
            argv += ["--peers", path]
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            self.assertEqual(sbs.main(argv), 0)
        return buffer.getvalue()

    def line(self, text, label):
        return next(l for l in text.splitlines() if l.startswith(f"| {label} |"))

    def test_peer_columns_and_the_coop_split(self):
        text = self.table(peers.parse(self.out))
        self.assertIn("| Vulkan peer, same card", text)
        self.assertIn("vkpeak fp32-vec4 60500 GFLOP/s, ratio 0.826 (same:",
                      self.line(text, "FMA peak f32 (best form) vs CUDA"))
        self.assertIn("vkpeak fp16-vec4 61000", self.line(text, "FMA peak f16 (best form) vs CUDA"))
        self.assertIn("clpeak global-bandwidth 4290 GB/s, ratio 0.932 (same:",
                      self.line(text, "stream read vs CUDA D2D copy"))
        self.assertIn("(approximate: clpeak reads only",
                      self.line(text, "stream copy vs CUDA D2D copy"))
        self.assertIn("clpeak kernel-latency 14.2 us, ratio 0.71 (same:",
                      self.line(text, "round trip vs CUDA launch + synchronize"))
        coop = self.line(text, "HGEMM 4096x4096x4096, gpubench f16 on cooperative matrices")
        # 300000 / 600000 = 0.5 = (300000 / 520000) x (520000 / 600000)
        self.assertIn("gap split: gpubench / CUDA 0.5 = the kernel (gpubench coop / vkpeak "
                      "fp16-matrix) 0.577 x VK_KHR_cooperative_matrix on this card (vkpeak "
                      "fp16-matrix / CUDA HGEMM) 0.867", coop)
        self.assertTrue(self.line(text, "SGEMM 4096x4096x4096 (TF32 off)").endswith("| - |"))
        self.assertIn("## Vulkan peers on the same adapter", text)
        self.assertIn("| vkpeak/fp64-vec4 | 31000 | GFLOP/s |", text)

    def test_a_missing_peer_is_a_status_in_its_cells(self):
        with open(os.path.join(self.out, "vkpeak.txt"), "w") as f:
            f.write("gpu-check: not run: no vkpeak binary carried (none in GPUBENCH_PEERS=p)\n")
        text = self.table(peers.parse(self.out))
        self.assertIn("vkpeak fp32-vec4: not run: no vkpeak binary carried",
                      self.line(text, "FMA peak f32 (best form) vs CUDA"))
        coop = self.line(text, "HGEMM 4096x4096x4096, gpubench f16 on cooperative matrices")
        self.assertIn("vkpeak fp16-matrix: not run: no vkpeak binary carried (none in "
                      "GPUBENCH_PEERS=p); gap not split: no vkpeak fp16-matrix figure |", coop)
        # clpeak still stands where it ran.
        self.assertIn("clpeak global-bandwidth 4290",
                      self.line(text, "stream read vs CUDA D2D copy"))

    def test_an_unreadable_peers_file_leaves_the_table_standing(self):
        text = self.table("{not json")
        self.assertIn("not run: peers.json is not JSON", text)
        self.assertIn("Not read: peers.json is not JSON", text)

    def test_without_peers_the_table_is_as_before(self):
        text = self.table(None)
        self.assertNotIn("Vulkan peer", text)


if __name__ == "__main__":
    unittest.main()
