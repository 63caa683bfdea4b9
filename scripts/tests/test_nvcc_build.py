"""scripts/cuda_launch.cu built by NVIDIA's real nvcc, where one can be had without a GPU: from
PATH, /usr/local/cuda/bin or site-packages, else PyPI's wheels installed into a cache folder
(GPUBENCH_NVCC_CACHE, default <repo>/target/nvcc-pypi). The build for the H200's sm_90 must
compile with no register spills, and the program, run where there is no driver, must still
answer in JSON: a status that is not ok and a reason (the shape cuda_reference.py parses).

Skipped, with the reason, where no nvcc can be found or installed (no network, no pip) or there
is no host C++ compiler. The test doubles' nvcc (scripts/tests/doubles/bin) is never taken for
the real one: it is refused by its place and by what `nvcc --version` says.
"""

import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
REPO = os.path.dirname(SCRIPTS)
DOUBLES = os.path.join(HERE, "doubles")
SOURCE = os.path.join(SCRIPTS, "cuda_launch.cu")
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
    """PyPI's nvcc in the cache, installed there first where it is not (None, why) on failure."""
    if os.path.exists(os.path.join(CACHE, INSTALLED)):
        found = pypi_nvcc_in(CACHE)
        if found:
            return found, None
    if importlib.util.find_spec("pip") is None:
        return None, "no pip to install nvidia-cuda-nvcc with"
    # Into a fresh folder, renamed into place once complete: an interrupted install never
    # passes for a cache.
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
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


class RealNvcc(unittest.TestCase):
    def test_cuda_launch_builds_for_sm_90_without_spills_and_answers_in_json(self):
        if not (shutil.which("g++") or shutil.which("c++")):
            self.skipTest("no host C++ compiler for nvcc")
        nvcc, why = find_real_nvcc()
        if nvcc is None:
            self.skipTest(why)
        self.assertTrue(is_real_nvcc(nvcc), nvcc)
        with tempfile.TemporaryDirectory() as tmp:
            binary = os.path.join(tmp, "cuda_launch")
            # The same command line cuda_reference.py uses (with PyPI's -I/-L), verbose ptxas.
            command = ref.nvcc_command(nvcc, SOURCE, binary, "sm_90", extra=("-Xptxas", "-v"))
            self.assertEqual(command[0], nvcc, "the nvcc found is the one that builds")
            build = subprocess.run(command, capture_output=True, text=True, timeout=300)
            self.assertEqual(build.returncode, 0, f"{' '.join(command)}\n{build.stderr}")
            report = build.stdout + build.stderr
            self.assertIn("for 'sm_90'", report, report)
            spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
            self.assertTrue(spills, f"no ptxas report: {report}")
            self.assertEqual({s for pair in spills for s in pair}, {"0"}, report)
            # Without a driver the program still answers in JSON (and exits nonzero).
            run = subprocess.run([binary, "10", "10"], capture_output=True, text=True,
                                 timeout=120)
            data = json.loads(run.stdout)
            if data["status"] == "ok":  # a machine with a driver and a GPU
                self.assertIn("graph_gpu_us_per_kernel", data)
            else:
                self.assertNotEqual(run.returncode, 0)
                self.assertTrue(data.get("reason"), data)


if __name__ == "__main__":
    unittest.main()
