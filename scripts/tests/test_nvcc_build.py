"""scripts/cuda_launch.cu, scripts/cuda_datapath.cu and scripts/cuda_memory.cu built by NVIDIA's
real nvcc, where one can
be had without a GPU: from PATH, /usr/local/cuda/bin or site-packages, else PyPI's wheels
installed into a cache folder (GPUBENCH_NVCC_CACHE, default <repo>/target/nvcc-pypi). The build
for the H200's sm_90 must compile with no register spills, and each program, run where there is
no driver, must still answer in JSON: a status that is not ok and a reason (the shape
cuda_reference.py parses). The datapath program's kernel arithmetic, run on the host by its
--self-test, must match its prediction word for word on gpubench's own workloads, and the
prediction must match the datapath suite's (reference.rs, restated here).

Skipped, with the reason, where no nvcc can be found or installed (no network, no pip) or there
is no host C++ compiler. The test doubles' nvcc (scripts/tests/doubles/bin) is never taken for
the real one: it is refused by its place and by what `nvcc --version` says.
"""

import fcntl
import glob
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
REPO = os.path.dirname(SCRIPTS)
DOUBLES = os.path.join(HERE, "doubles")
SOURCE = os.path.join(SCRIPTS, "cuda_launch.cu")
DATAPATH_SOURCE = os.path.join(SCRIPTS, "cuda_datapath.cu")
MEMORY_SOURCE = os.path.join(SCRIPTS, "cuda_memory.cu")
CACHE = os.environ.get("GPUBENCH_NVCC_CACHE") or os.path.join(REPO, "target", "nvcc-pypi")
# nvcc and the runtime's headers, pinned to one release together with the wheels nvcc depends
# on: unpinned, pip takes the newest nvidia-nvvm, whose cicc writes PTX that the 13.0 ptxas
# refuses ("Unsupported .version 9.5; current version is '9.0'").
WHEELS = ["nvidia-cuda-nvcc==13.0.*", "nvidia-cuda-runtime==13.0.*", "nvidia-nvvm==13.0.*",
          "nvidia-cuda-crt==13.0.*"]
INSTALL_TIMEOUT_S = 180
INSTALLED = ".installed"


def load_reference():
    spec = importlib.util.spec_from_file_location("cuda_reference",
                                                  os.path.join(SCRIPTS, "cuda_reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = load_reference()


def is_real_nvcc(path):
    """NVIDIA's nvcc, not the test double (nor anything else called nvcc)."""
    if not path or os.path.realpath(path).startswith(os.path.realpath(DOUBLES) + os.sep):
        return False
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Cuda compilation tools" in version


def pypi_nvcc_in(root):
    for pattern in ("nvidia/cu[0-9]*/bin/nvcc", "nvidia/cuda_nvcc/bin/nvcc"):
        for candidate in sorted(glob.glob(os.path.join(root, pattern)), reverse=True):
            if is_real_nvcc(candidate):
                return candidate
    return None


def installed_nvcc():
    """PyPI's nvcc in the cache, installed there first where it is not (None, why) on failure.
    One process at a time: the tests run in several at once (run_all.py), and a second install
    would replace the cache under the first one's compile."""
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
    with open(CACHE + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return install_unless_cached()


def install_unless_cached():
    """installed_nvcc's work, under its lock."""
    if os.path.exists(os.path.join(CACHE, INSTALLED)):
        found = pypi_nvcc_in(CACHE)
        if found:
            return found, None
    if importlib.util.find_spec("pip") is None:
        return None, "no pip to install nvidia-cuda-nvcc with"
    # Into a fresh folder, renamed into place once complete: an interrupted install never
    # passes for a cache.
    staging = tempfile.mkdtemp(prefix="nvcc-pypi.", dir=os.path.dirname(CACHE))
    os.chmod(staging, 0o755)
    try:
        install = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-input",
             "--disable-pip-version-check", "--target", staging, *WHEELS],
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if install.returncode != 0:
            return None, f"pip install {' '.join(WHEELS)} failed: {ref.tail(install.stderr, 400)}"
        open(os.path.join(staging, INSTALLED), "w").close()
        shutil.rmtree(CACHE, ignore_errors=True)
        os.replace(staging, CACHE)
    except subprocess.TimeoutExpired:
        return None, f"pip install did not finish in {INSTALL_TIMEOUT_S} s"
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    found = pypi_nvcc_in(CACHE)
    return (found, None) if found else (None, f"no working nvcc in {CACHE} after pip install")


def find_real_nvcc():
    """(path, None) or (None, why): PATH, /usr/local/cuda/bin, site-packages, then the cache."""
    for candidate in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and os.path.exists(candidate) and is_real_nvcc(candidate):
            return candidate, None
    for root in ref.python_package_dirs():
        found = pypi_nvcc_in(root)
        if found:
            return found, None
    return installed_nvcc()


def splitmix(state):
    """reference.rs's splitmix64: (the next state, its output)."""
    mask = (1 << 64) - 1
    state = (state + 0x9E3779B97F4A7C15) & mask
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return state, z ^ (z >> 31)


def salt(k):
    return (splitmix(k ^ 0x9E3779B97F4A7C15)[1] & 0xFFFFFFFF) | 1


def suite_prediction(input_bytes, output_bytes, steps, seed, t, request):
    """Output word t of request number `request`, as the datapath suite's reference.rs predicts
    it: the xor fold of the word's share of the seeded, salted input, xored with the bits of
    the exact sum of its four chains."""
    state, base = seed, []
    for _ in range(input_bytes // 4):
        state, value = splitmix(state)
        base.append(value & 0xFFFFFFFF)
    groups, n_out = input_bytes // 16, output_bytes // 4
    h = 0
    for g in range(t, groups, n_out):
        salted = salt(request) if g < n_out else 0
        h ^= base[4 * g] ^ salted ^ base[4 * g + 1] ^ base[4 * g + 2] ^ base[4 * g + 3]
    chains = [-1.5 + ((h >> (8 * c)) & 255) / 1024 + steps / 1024 for c in range(4)]
    bits = struct.unpack("<I", struct.pack("<f", (chains[0] + chains[1])
                                           + (chains[2] + chains[3])))[0]
    return h ^ bits


class RealNvcc(unittest.TestCase):
    def build(self, source, tmp):
        """source built for sm_90 as cuda_reference.py builds it (verbose ptxas): the binary,
        after checking the build made no register spills."""
        if not (shutil.which("g++") or shutil.which("c++")):
            self.skipTest("no host C++ compiler for nvcc")
        nvcc, why = find_real_nvcc()
        if nvcc is None:
            self.skipTest(why)
        self.assertTrue(is_real_nvcc(nvcc), nvcc)
        binary = os.path.join(tmp, os.path.splitext(os.path.basename(source))[0])
        # The same command line cuda_reference.py uses (with PyPI's -I/-L), verbose ptxas.
        command = ref.nvcc_command(nvcc, source, binary, "sm_90", extra=("-Xptxas", "-v"))
        self.assertEqual(command[0], nvcc, "the nvcc found is the one that builds")
        build = subprocess.run(command, capture_output=True, text=True, timeout=300)
        self.assertEqual(build.returncode, 0, f"{' '.join(command)}\n{build.stderr}")
        report = build.stdout + build.stderr
        self.assertIn("for 'sm_90'", report, report)
        spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
        self.assertTrue(spills, f"no ptxas report: {report}")
        self.assertEqual({s for pair in spills for s in pair}, {"0"}, report)
        return binary

    def answer(self, command):
        """The program's JSON, and whether it ran on a GPU; without a driver it must fail in
        JSON, with a reason and a nonzero exit."""
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        data = json.loads(run.stdout)
        if data["status"] != "ok":
            self.assertNotEqual(run.returncode, 0)
            self.assertTrue(data.get("reason"), data)
        return data

    def test_cuda_launch_builds_for_sm_90_without_spills_and_answers_in_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            binary = self.build(SOURCE, tmp)
            data = self.answer([binary, "10", "10"])
            if data["status"] == "ok":  # a machine with a driver and a GPU
                self.assertIn("graph_gpu_us_per_kernel", data)

    def test_cuda_datapath_builds_for_sm_90_without_spills_and_answers_in_json(self):
        plan = ref.datapath_plan(quick=True)
        with tempfile.TemporaryDirectory() as tmp:
            binary = self.build(DATAPATH_SOURCE, tmp)
            data = self.answer([binary, *ref.datapath_args(plan)])
            if data["status"] == "ok":  # a machine with a driver and a GPU
                names = [w["name"] for w in data["workloads"]]
                self.assertEqual(names, [w["name"] for w in plan["workloads"]])
                for workload in data["workloads"]:
                    self.assertEqual(workload["status"], "ok", workload)
                    self.assertEqual(workload["serial"]["latency_us"]["n"], 100)
                    self.assertIsNotNone(workload["serial"]["latency_us"]["p99"])
                    self.assertIsNone(workload["overlap"]["latency_us"]["p99"], "n = 80")
            else:
                self.assertIn("CUDA", data["reason"])
            # A bad workload is refused in JSON too, before any CUDA call.
            bad = self.answer([binary, "1", "1", "1", "x:20:4:4"])
            self.assertEqual(bad["status"], "failed")
            self.assertIn("multiple of 16", bad["reason"])

    def test_cuda_memory_builds_for_sm_90_without_spills_and_answers_in_json(self):
        sizes = [4096, 1536 << 10]
        with tempfile.TemporaryDirectory() as tmp:
            binary = self.build(MEMORY_SOURCE, tmp)
            data = self.answer([binary, "30", *map(str, sizes)])
            if data["status"] == "ok":  # a machine with a driver and a GPU
                for field in ("read", "latency", "latency_lanes"):
                    self.assertEqual([e["bytes"] for e in data[field]], sizes, field)
                    for entry in data[field]:
                        self.assertEqual(entry["status"], "ok", entry)
                self.assertEqual([e["name"] for e in data["workgroup"]][:2],
                                 ["read-vec4", "stride-1"])
                self.assertEqual(len(data["atomics"]), 6)
                for entry in data["workgroup"] + data["atomics"]:
                    self.assertEqual(entry["status"], "ok", entry)
            else:
                self.assertIn("CUDA", data["reason"])
            # A bad size or time cap is refused in JSON too, before any CUDA call.
            bad = self.answer([binary, "30", "4000"])
            self.assertEqual(bad["status"], "failed")
            self.assertIn("multiple of 2048", bad["reason"])
            self.assertIn("time cap", self.answer([binary, "0", "4096"])["reason"])

    def test_the_datapath_kernel_arithmetic_is_the_suites_prediction(self):
        # gpubench's workloads, then ragged shares (odd and even, and words with none) as the
        # suite's own reference test takes them.
        plan = ref.datapath_plan(quick=True)
        small = [("ragged", 37 * 16, 8 * 4, 4), ("square", 8 * 16, 8 * 4, 100),
                 ("sparse", 4 * 16, 16 * 4, 8)]
        workloads = ref.datapath_args(plan)[3:] + [f"{n}:{i}:{o}:{s}" for n, i, o, s in small]
        with tempfile.TemporaryDirectory() as tmp:
            binary = self.build(DATAPATH_SOURCE, tmp)
            run = subprocess.run([binary, "--self-test", str(plan["seed"]), *workloads],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        results = {r["name"]: r for r in json.loads(run.stdout)["self_test"]}
        for name, result in results.items():
            self.assertEqual(result["wrong_words"], 0, result)
        # Another request's answer is caught in every workload, the transfer-bound one (whose
        # shares are all 32 groups, an even number) included.
        for name in ("transfer-bound", "compute-bound", "balanced", "ragged", "square", "sparse"):
            self.assertEqual(results[name]["other_answers_caught"], 3, name)
        for name, n_in, n_out, steps in small:
            want = [suite_prediction(n_in, n_out, steps, plan["seed"], t, 0)
                    for t in range(min(4, n_out // 4))]
            self.assertEqual(results[name]["first_words"], want, name)


if __name__ == "__main__":
    unittest.main()
