#!/usr/bin/env python3
"""CUDA's own figures for the quantities gpubench measures, at gpubench's sizes, as the reference
its Vulkan figures are held against on an NVIDIA card.

Each row names the gpubench quantity it stands beside (`key`), its value and unit, what it counts,
how it was measured, and NVML's readings (SM and memory clock, power, temperature, utilisation,
clock-event reasons) sampled at 20 Hz while it ran. A row that could not be measured has a status
and a reason instead of a number.

  stream      D2D copy (cudaMemcpy D2D), a copy kernel and a triad kernel (a = b + s*c), bytes
              read + written, at gpubench's --stream-size
  compute     FMA peak, f32 (scalar FFMA) and f16 (half2 HFMA2), 2 FLOP per lane per FMA
  matmul      cuBLAS SGEMM with TF32 off, and HGEMM (tensor cores), at gpubench's default shapes
              (M = 1..512 against 4096 x 4096 among them); a plain-f16 (non-tensor) GEMM is
              reported as not available with the reason
  transfer    H2D and D2H from pageable and from pinned memory at gpubench's sweep sizes; at
              the largest, H2D without the copy engine: a kernel pulling mapped pinned host
              memory into device memory (beside gpubench's host write on a large-BAR card)
  launch      an empty kernel: raw launch loop and CUDA graph replay (GPU us per launch; the
              graph a chain, and a graph of as many nodes with no edges), and the round trip (launch + cudaStreamSynchronize, host us), from scripts/cuda_launch.cu
              built with nvcc for the card's own compute capability (nvcc from PATH, then
              /usr/local/cuda/bin, then PyPI's nvidia-cuda-nvcc in site-packages); where nvcc is
              missing, fails, times out or its program does not answer in JSON, CuPy's launch
              path and graph capture, each row labelled so and saying why (`nvcc_failure`)
  datapath    gpubench's datapath requests (its built-in workloads: the same bytes, seed, kernel
              arithmetic and exact check) from scripts/cuda_datapath.cu, built the same way:
              each stage alone, the serial path's latency percentiles, and two requests in
              flight on two streams, all from pinned host memory. Every row is labelled a
              capability difference (`comparison`, `caveat`): wgpu has one queue and no pinned
              host memory, so these are what CUDA's extra capabilities reach, not a like-for-like
              figure. Where nvcc is missing or its program gives no figures, one `datapath` row
              with the status and the reason (there is no fallback)

  memory      gpubench's memory suite from scripts/cuda_memory.cu, built the same way, at its
              working-set sizes (4 KiB to 512 MiB at 2^k and 1.5 x 2^k on an NVIDIA card): read
              bandwidth (the same 1 MiB windows per block of 256, float4 loads in 32-thread
              chunks, the same grids), dependent-load latency (one thread, then one warp on the
              vector path, chasing a random cycle of 64-byte nodes), shared-memory bandwidth
              (16 KiB tile, float4 per lane, and the bank-conflict stride sweep) and atomicAdd
              throughput on gpubench's six targets, keyed like gpubench's ids. The program has
              its own time cap (CUDA_MEMORY_TIMEOUT, default 60 s): rows it did not reach say
              not-measured. Where nvcc is missing or its program gives no figures, one `memory`
              row with the status and the reason (no fallback)

Units as in gpubench: GB/s = 1e9 B/s, GFLOP/s = 1e9 FLOP/s, microseconds, GIOP/s = 1e9
atomicAdds/s, ns per load.

Usage: python3 scripts/cuda_reference.py [--quick] [--stream-bytes N] [--matmul-shapes MxNxK,...]
                                         [--transfer-sizes N,...] [--memory-sizes N,...]
                                         [--only SECTION,...] [--plan] [--out FILE]
--plan prints what would be measured, as JSON, without importing torch (tests use it to check the
sizes against gpubench's own).

--out FILE writes the document to FILE (atomically: FILE.tmp, then a rename) at the start (the
plan and the device, no rows), after every section and at the end, so a run that is stopped keeps
every finished section; without it the document is printed on stdout at the end. SIGTERM or
SIGINT writes what is finished with "complete": false and "interrupted": "SIGTERM" (or
"SIGINT") and exits 143 (130); a document that ran to its end has "complete": true. A run killed
outright (SIGKILL) leaves the last saved document, "complete": false and no "interrupted".
"""

import argparse
import glob
import json
import os
import shutil
import signal
import site
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sizes import GIB, KIB, MIB, size_label  # noqa: E402  (beside this file: gpubench's labels)

# gpubench's default-profile matmul shapes on a hardware adapter (matmul::profile_shapes), in
# its order: the squares largest first (the headline before anything a time limit could cut),
# then M = 512 down to 1 against N = K = 4096. A test holds this list to gpubench's.
DEFAULT_MATMUL_SHAPES = [
    (4096, 4096, 4096),
    (2048, 2048, 2048),
    (1024, 1024, 1024),
    (512, 4096, 4096),
    (64, 4096, 4096),
    (8, 4096, 4096),
    (1, 4096, 4096),
]
# The quick plan's: one square and two batch shapes.
QUICK_MATMUL_SHAPES = [(1024, 1024, 1024), (1, 4096, 4096), (8, 4096, 4096)]
# gpubench's transfer sweep outside the quick profile: 4 KiB x 4^i up to 256 MiB.
DEFAULT_TRANSFER_SIZES = [4 * KIB * 4**i for i in range(9)]
# The stream array size gpu-check.sh passes to gpubench too (--stream-size 1GiB).
DEFAULT_STREAM_BYTES = 1 * GIB


def working_sets(top):
    """gpubench's memory sweep (memory::working_sets): 4 KiB to top at 2^k and 1.5 x 2^k bytes."""
    sizes, size = [], 4 * KIB
    while size <= top:
        sizes.append(size)
        if size + size // 2 <= top:
            sizes.append(size + size // 2)
        size *= 2
    return sizes


# gpubench's memory sweep on an NVIDIA card: to four times the last-level cache its table assumes
# for NVIDIA (memory::llc, 128 MiB), 512 MiB, in every profile (a GPU's quick profile sweeps as
# far). A test holds this list to gpubench's own SweepPlan for an H200.
DEFAULT_MEMORY_SIZES = working_sets(4 * 128 * MIB)
SECTIONS = ["stream", "compute", "matmul", "transfer", "launch", "datapath", "memory"]

CLOCK_EVENT_REASONS = {
    0x1: "gpu-idle",
    0x2: "applications-clocks-setting",
    0x4: "sw-power-cap",
    0x8: "hw-slowdown",
    0x10: "sync-boost",
    0x20: "sw-thermal-slowdown",
    0x40: "hw-thermal-slowdown",
    0x80: "hw-power-brake-slowdown",
    0x100: "display-clock-setting",
}


def parse_shape(text):
    """'MxNxK' -> (M, N, K), every dimension positive."""
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"shape '{text}': expected MxNxK with positive integers")
    return tuple(int(p) for p in parts)


def summary(values):
    """Median, min, max and count of a list of numbers."""
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def row(key, value, unit, counts, method, **extra):
    """One measured figure."""
    out = {"key": key, "status": "ok", "value": value, "unit": unit, "counts": counts,
           "method": method}
    out.update(extra)
    return out


def not_measured(key, status, reason):
    """A figure that has no number, with why."""
    return {"key": key, "status": status, "reason": reason}


def clock_event_reasons(nvml, handle):
    """The current clock event (throttle) reasons: pynvml 12 names the call
    nvmlDeviceGetCurrentClocksEventReasons, older releases only ...ThrottleReasons."""
    read = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
    if read is None:
        read = nvml.nvmlDeviceGetCurrentClocksThrottleReasons
    return read(handle)


class Telemetry:
    """NVML readings sampled in a background thread while one measurement runs."""

    def __init__(self):
        self.handle = None
        self.reason = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as error:  # NVML absent or refusing: the figures still stand
            self.reason = f"NVML unavailable: {error}"

    def device(self):
        """What NVML says of the card, read once."""
        if self.handle is None:
            return {"status": "unavailable", "reason": self.reason}
        n, h = self.nvml, self.handle
        info = {"status": "ok"}
        readers = {
            "name": lambda: n.nvmlDeviceGetName(h),
            "driver": lambda: n.nvmlSystemGetDriverVersion(),
            "max_sm_clock_mhz": lambda: n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_SM),
            "max_memory_clock_mhz": lambda: n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_MEM),
            "power_limit_w": lambda: n.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0,
            "pcie_gen_current": lambda: n.nvmlDeviceGetCurrPcieLinkGeneration(h),
            "pcie_gen_max": lambda: n.nvmlDeviceGetMaxPcieLinkGeneration(h),
            "pcie_width_current": lambda: n.nvmlDeviceGetCurrPcieLinkWidth(h),
            "pcie_width_max": lambda: n.nvmlDeviceGetMaxPcieLinkWidth(h),
            "pci_bus_id": lambda: n.nvmlDeviceGetPciInfo(h).busId,
        }
        for name, read in readers.items():
            try:
                value = read()
                info[name] = value.decode() if isinstance(value, bytes) else value
            except Exception as error:
                info[name] = f"unavailable: {error}"
        return info

    def reading(self):
        """One sample of the quantities that move."""
        n, h = self.nvml, self.handle
        sample = {}
        for name, read in (
            ("sm_clock_mhz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM)),
            ("memory_clock_mhz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM)),
            ("power_w", lambda: n.nvmlDeviceGetPowerUsage(h) / 1000.0),
            ("temperature_c", lambda: n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)),
            ("utilisation_pct", lambda: n.nvmlDeviceGetUtilizationRates(h).gpu),
            ("reasons", lambda: clock_event_reasons(n, h)),
        ):
            try:
                sample[name] = read()
            except Exception:
                pass
        return sample

    def during(self, measure):
        """Runs measure() while sampling; returns (its result, the readings' summary)."""
        if self.handle is None:
            return measure(), {"status": "unavailable", "reason": self.reason}
        samples, stop = [], threading.Event()

        def sampler():
            while not stop.is_set():
                samples.append(self.reading())
                stop.wait(0.05)

        thread = threading.Thread(target=sampler, daemon=True)
        thread.start()
        try:
            result = measure()
        finally:
            stop.set()
            thread.join()
        return result, summarise_readings(samples)


def summarise_readings(samples):
    """min/median/max of each quantity, and every clock-event reason seen."""
    out = {"status": "ok", "samples": len(samples)}
    for name in ("sm_clock_mhz", "memory_clock_mhz", "power_w", "temperature_c",
                 "utilisation_pct"):
        values = [s[name] for s in samples if name in s]
        if values:
            out[name] = {k: v for k, v in summary(values).items() if k != "n"}
    mask = 0
    for s in samples:
        mask |= s.get("reasons", 0)
    out["clock_event_reasons"] = [name for bit, name in CLOCK_EVENT_REASONS.items() if mask & bit]
    return out


class Cuda:
    """The timing primitives, over torch's CUDA events."""

    def __init__(self):
        import torch

        self.torch = torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")

    def sync(self):
        self.torch.cuda.synchronize()

    def event_ms(self, fn, repeat):
        """GPU milliseconds of `repeat` back-to-back calls of fn, between two events."""
        torch = self.torch
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)

    def timed(self, fn, samples=15, target_ms=20.0, max_repeat=1 << 16):
        """Median milliseconds per call: warm up, calibrate a repeat count so a sample lasts about
        target_ms, then take `samples` samples."""
        fn()
        self.sync()
        repeat = 1
        while repeat < max_repeat:
            ms = self.event_ms(fn, repeat)
            if ms >= target_ms / 4:
                repeat = max(1, min(max_repeat, int(repeat * target_ms / max(ms, 1e-6))))
                break
            repeat *= 4
        per_call = [self.event_ms(fn, repeat) / repeat for _ in range(samples)]
        return summary(per_call), repeat

    def host_timed(self, fn, samples=15, target_ms=20.0, max_repeat=1 << 14):
        """Median milliseconds per call on the host clock, from the call until the device has
        finished (synchronize), calibrated like timed()."""
        def sample(repeat):
            t0 = time.perf_counter()
            for _ in range(repeat):
                fn()
            self.sync()
            return (time.perf_counter() - t0) * 1e3

        fn()
        self.sync()
        repeat = 1
        while repeat < max_repeat and sample(repeat) < target_ms / 4:
            repeat *= 4
        per_call = [sample(repeat) / repeat for _ in range(samples)]
        return summary(per_call), repeat


def gbs(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


COPY_SRC = r"""
extern "C" __global__ void copy4(const float4* __restrict__ a, float4* __restrict__ c, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) c[i] = a[i];
}
extern "C" __global__ void triad4(float4* __restrict__ a, const float4* __restrict__ b,
                                  const float4* __restrict__ c, float s, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 x = b[i], y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
    }
}
"""


def stream_rows(cuda, telemetry, nbytes):
    """D2D memcpy, a copy kernel and a triad kernel over arrays of nbytes each."""
    import cupy

    torch = cuda.torch
    n = nbytes // 4
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty_like(a)
    label = size_label(nbytes)
    rows = []
    stats, tele = telemetry.during(lambda: cuda.timed(lambda: c.copy_(a)))
    rows.append(row("stream/copy-d2d", gbs(2 * nbytes, stats[0]["median"]), "GB/s",
                    "bytes read + written", "torch copy_ (cudaMemcpyAsync D2D), CUDA events",
                    bytes=nbytes, size=label, ms=stats[0], repeat=stats[1], telemetry=tele))
    module = cupy.RawModule(code=COPY_SRC)
    copy4, triad4 = module.get_function("copy4"), module.get_function("triad4")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    grid, block, n4 = (sms * 8,), (256,), cupy.uint64(n // 4)
    ca, cb, cc = (cupy.from_dlpack(t) for t in (a, b, c))

    def kernel(fn, args):
        return lambda: fn(grid, block, args)

    for key, fn, args, moved, what in (
        ("stream/copy-kernel", copy4, (ca, cc, n4), 2 * nbytes, "c[i] = a[i], float4"),
        ("stream/triad-kernel", triad4, (cc, ca, cb, cupy.float32(3.0), n4), 3 * nbytes,
         "a[i] = b[i] + s*c[i], float4"),
    ):
        stats, tele = telemetry.during(lambda: cuda.timed(kernel(fn, args)))
        rows.append(row(key, gbs(moved, stats[0]["median"]), "GB/s", "bytes read + written",
                        f"CUDA kernel ({what}, grid-stride, {grid[0]}x{block[0]}), CUDA events",
                        bytes=nbytes, size=label, ms=stats[0], repeat=stats[1], telemetry=tele))
    # The largest error either way: a signed max lets values that are too small pass.
    check = cupy.abs(cc[:1024] - (ca[:1024] + 3.0 * cb[:1024])).max()
    if float(check) > 1e-5:
        rows[-1] = not_measured("stream/triad-kernel", "failed", "triad output wrong")
    return rows


FMA_SRC = r"""
#include <cuda_fp16.h>
extern "C" __global__ void fma_f32(float* out, float m, float a, int iters) {
    float x[8];
    for (int j = 0; j < 8; ++j) x[j] = threadIdx.x * 1e-6f + j;
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int s = 0; s < 16; ++s) {
            #pragma unroll
            for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], m, a);
        }
    }
    float sum = 0.f;
    for (int j = 0; j < 8; ++j) sum += x[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
extern "C" __global__ void fma_f16x2(float* out, float m, float a, int iters) {
    __half2 x[8];
    __half2 hm = __float2half2_rn(m), ha = __float2half2_rn(a);
    for (int j = 0; j < 8; ++j) x[j] = __float2half2_rn(j * 0.125f);
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int s = 0; s < 16; ++s) {
            #pragma unroll
            for (int j = 0; j < 8; ++j) x[j] = __hfma2(x[j], hm, ha);
        }
    }
    float sum = 0.f;
    for (int j = 0; j < 8; ++j) sum += __low2float(x[j]) + __high2float(x[j]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
"""


def compute_rows(cuda, telemetry):
    """FMA peak: 8 independent chains of 16 FMAs per iteration per thread, f32 and half2."""
    import cupy

    torch = cuda.torch
    module = cupy.RawModule(code=FMA_SRC, options=("-std=c++17",))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    grid, block, iters = sms * 16, 256, 2048
    out = cupy.empty(grid * block, dtype=cupy.float32)
    rows = []
    for key, name, lanes in (("compute/fma-peak-f32", "fma_f32", 1),
                             ("compute/fma-peak-f16x2", "fma_f16x2", 2)):
        fn = module.get_function(name)
        launch = lambda fn=fn: fn((grid,), (block,),
                                  (out, cupy.float32(0.999), cupy.float32(0.001),
                                   cupy.int32(iters)))
        stats, tele = telemetry.during(lambda: cuda.timed(launch))
        if not bool(cupy.isfinite(out).all()):
            rows.append(not_measured(key, "failed", "FMA output is not finite"))
            continue
        flops = 2 * lanes * 8 * 16 * iters * grid * block
        rows.append(row(key, flops / (stats[0]["median"] * 1e-3) / 1e9, "GFLOP/s",
                        "2 FLOP per FMA per lane", f"CUDA kernel {name}, {grid}x{block}, "
                        f"{iters} iterations x 16 x 8 chains, CUDA events",
                        ms=stats[0], repeat=stats[1], telemetry=tele))
    return rows


def matmul_rows(cuda, telemetry, shapes):
    """cuBLAS SGEMM (TF32 off) and HGEMM at each shape, C = A x B row-major."""
    torch = cuda.torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for m, n, k in shapes:
        label = f"{m}x{n}x{k}"
        for precision, dtype, method in (
            ("f32", torch.float32, "cuBLAS SGEMM through torch.matmul, TF32 off"),
            ("f16", torch.float16, "cuBLAS HGEMM through torch.matmul (tensor cores)"),
        ):
            a = torch.rand(m, k, device="cuda", dtype=dtype)
            b = torch.rand(k, n, device="cuda", dtype=dtype)
            stats, tele = telemetry.during(lambda: cuda.timed(lambda: torch.matmul(a, b)))
            c = torch.matmul(a, b)
            ref = torch.matmul(a[:4].double(), b.double())
            err = float((c[:4].double() - ref).abs().max() / ref.abs().max())
            key = f"matmul/{precision}/{label}"
            if err > (1e-4 if precision == "f32" else 1e-2):
                rows.append(not_measured(key, "failed", f"relative error {err:.2e}"))
                continue
            rows.append(row(key, 2 * m * n * k / (stats[0]["median"] * 1e-3) / 1e9, "GFLOP/s",
                            "2*M*N*K FLOP per product", method + ", CUDA events",
                            shape=label, ms=stats[0], repeat=stats[1], max_rel_error=err,
                            telemetry=tele))
        rows.append(not_measured(
            f"matmul/f16-plain/{label}", "not-available",
            "cuBLAS runs f16 GEMM on tensor cores on this architecture and has no plain-f16 "
            "path; compare gpubench's f16 matmul without cooperative matrices with its own f32 "
            "and with compute/fma-peak-f16x2 instead"))
    return rows


def transfer_rows(cuda, telemetry, sizes):
    """H2D and D2H from pageable and pinned host memory: the host clock from the call until the
    copy is done (as gpubench's transfer suite), GPU events beside it."""
    torch = cuda.torch
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        dev = torch.empty(n, device="cuda")
        for pinned in (False, True):
            host = torch.rand(n)
            if pinned:
                host = host.pin_memory()
            kind = "pinned" if pinned else "pageable"
            for direction, fn in (
                ("h2d", lambda: dev.copy_(host, non_blocking=pinned)),
                ("d2h", lambda: host.copy_(dev, non_blocking=pinned)),
            ):
                (host_stats, repeat), tele = telemetry.during(
                    lambda: cuda.host_timed(fn, samples=9, target_ms=10.0))
                gpu_stats, _ = cuda.timed(fn, samples=5, target_ms=10.0)
                rows.append(row(
                    f"transfer/{direction}-{kind}/{size_label(nbytes)}",
                    gbs(nbytes, host_stats["median"]), "GB/s", "bytes copied",
                    f"torch copy_ ({kind} host memory), host clock to completion",
                    bytes=nbytes, ms=host_stats, repeat=repeat,
                    gpu_events_gbs=gbs(nbytes, gpu_stats["median"]), telemetry=tele))
    try:
        rows.append(sm_pull_row(cuda, telemetry, max(sizes)))
    except Exception as error:
        rows.append(not_measured(f"transfer/h2d-sm-pull/{size_label(max(sizes))}", "failed",
                                 f"{type(error).__name__}: {error}"))
    return rows


PULL_SRC = r"""
extern "C" __global__ void pull4(const float4* __restrict__ host, float4* __restrict__ dev,
                                 size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) dev[i] = host[i];
}
"""


def sm_pull_row(cuda, telemetry, nbytes):
    """Host to device without the copy engine: a kernel whose SMs load mapped pinned host memory
    over the link and store it in device memory (the path NVIDIA's nvbandwidth calls
    host_to_device_memcpy_sm). It stands beside gpubench's host write, the other copy-engine-free
    path: there the host pushes the bytes into a BAR mapping, here the SMs pull them."""
    import cupy

    runtime = cupy.cuda.runtime
    n4 = nbytes // 16
    host = runtime.hostAlloc(nbytes, runtime.hostAllocMapped)
    try:
        # The device's address of the mapped buffer (CuPy has no cudaHostGetDevicePointer;
        # the pointer's attributes carry it, equal to the host address under UVA).
        view = runtime.pointerGetAttributes(host).devicePointer
        pattern = fill_pattern(host, nbytes)
        dev = cupy.empty(nbytes // 4, dtype=cupy.float32)
        kernel = cupy.RawKernel(PULL_SRC, "pull4")
        blocks = 4 * cuda.torch.cuda.get_device_properties(0).multi_processor_count

        def pull():
            kernel((blocks,), (256,), (cupy.uint64(view), dev, cupy.uint64(n4)))

        (stats, repeat), tele = telemetry.during(
            lambda: cuda.timed(pull, samples=9, target_ms=10.0))
        if not pattern(dev):
            return not_measured(f"transfer/h2d-sm-pull/{size_label(nbytes)}", "failed",
                                "the pulled bytes differ from the host's")
    finally:
        runtime.freeHost(host)
    return row(f"transfer/h2d-sm-pull/{size_label(nbytes)}", gbs(nbytes, stats["median"]),
               "GB/s", "bytes moved from host memory to device memory",
               "a kernel (4 blocks per SM, 256 threads, 16 B per load) copying mapped pinned "
               "host memory (cudaHostAllocMapped) into device memory, no copy engine, CUDA "
               "events", bytes=nbytes, ms=stats, repeat=repeat, telemetry=tele)


def fill_pattern(host, nbytes):
    """Writes a known float pattern into the pinned buffer at `host` and returns the check of a
    device array against it (every 4097th word and the last, as float32)."""
    import ctypes

    import cupy

    words = nbytes // 4
    data = (ctypes.c_float * words).from_address(host)
    picks = sorted(set(range(0, words, 4097)) | {words - 1})
    for i in picks:
        data[i] = float(i % 65521)

    def check(dev):
        got = cupy.asnumpy(dev[cupy.asarray(picks)])
        return all(float(g) == float(i % 65521) for g, i in zip(got, picks))

    return check


# How long nvcc may build a program, and how long cuda_launch.cu's and cuda_datapath.cu's
# programs may run (seconds; the environment can shorten them, as the rehearsal and the tests
# do).
NVCC_TIMEOUT_S = float(os.environ.get("CUDA_NVCC_TIMEOUT", "120"))
LAUNCH_PROGRAM_TIMEOUT_S = float(os.environ.get("CUDA_LAUNCH_TIMEOUT", "120"))
DATAPATH_PROGRAM_TIMEOUT_S = float(os.environ.get("CUDA_DATAPATH_TIMEOUT", "120"))
# cuda_memory.cu's own time cap (it stops starting rows then and says which it did not reach),
# and the margin past it before its process is killed (start-up, allocation, the last row).
MEMORY_CAP_S = float(os.environ.get("CUDA_MEMORY_TIMEOUT", "60"))
MEMORY_KILL_MARGIN_S = 20.0
NVCC_MISSING = ("nvcc not found (PATH, /usr/local/cuda/bin, site-packages nvidia/cuda_nvcc or "
                "nvidia/cu*: pip install nvidia-cuda-nvcc)")
# How much of nvcc's (or the program's) stderr a row keeps: the end, where the error is.
STDERR_TAIL = 800

# The child processes running now (nvcc, the launch program), so that a SIGTERM or SIGINT
# handler can stop them before it exits instead of leaving them orphaned.
CHILDREN = set()


def run_child(command, timeout):
    """subprocess.run(command, capture_output, text) with the child kept in CHILDREN while it
    runs; raises subprocess.TimeoutExpired (the child killed) past timeout."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    CHILDREN.add(proc)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    finally:
        CHILDREN.discard(proc)
    return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)


def python_package_dirs():
    """The folders pip installs packages into for this interpreter (site-packages, the user's
    site-packages, and sys.path's own entries, for a --target folder on PYTHONPATH)."""
    dirs = []
    try:
        dirs += site.getsitepackages()
    except AttributeError:  # some virtual environments' site module lacks it
        pass
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    dirs += [p for p in sys.path if p]
    seen, out = set(), []
    for d in dirs:
        d = os.path.abspath(d)
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def find_nvcc():
    """nvcc: PATH, then /usr/local/cuda/bin, then PyPI's nvidia-cuda-nvcc in site-packages
    (CUDA 12's wheels put it in nvidia/cuda_nvcc/bin, CUDA 13's in nvidia/cu13/bin); None where
    there is none. A machine with torch from PyPI often has no CUDA toolkit but can have the
    wheel."""
    found = shutil.which("nvcc")
    if found:
        return found
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        return "/usr/local/cuda/bin/nvcc"
    for root in python_package_dirs():
        for pattern in ("nvidia/cuda_nvcc/bin/nvcc", "nvidia/cu[0-9]*/bin/nvcc"):
            for candidate in sorted(glob.glob(os.path.join(root, pattern)), reverse=True):
                if os.access(candidate, os.X_OK):
                    return candidate
    return None


def pypi_cuda_flags(nvcc):
    """The -I and link flags PyPI's nvcc needs: its nvcc.profile looks for the runtime's headers
    and libraries in a toolkit's layout (targets/<arch>/include) that the wheels do not have.
    CUDA 13's wheels put nvcc and the runtime (nvidia-cuda-runtime) in one tree, nvidia/cu13;
    CUDA 12's in nvidia/cuda_nvcc and nvidia/cuda_runtime. One tree only, nvcc's own first, so
    that two CUDA releases' headers are never mixed. Empty for any other nvcc."""
    bin_dir = os.path.dirname(os.path.abspath(nvcc))
    package = os.path.dirname(bin_dir)
    nvidia = os.path.dirname(package)
    if os.path.basename(nvidia) != "nvidia" or os.path.basename(bin_dir) != "bin":
        return []
    roots = [r for r in (package, os.path.join(nvidia, "cuda_runtime")) if os.path.isdir(r)]
    flags = []
    include = next((os.path.join(r, "include") for r in roots
                    if os.path.exists(os.path.join(r, "include", "cuda_runtime.h"))), None)
    if include:
        flags += ["-I", include]
    for root in roots:
        lib = os.path.join(root, "lib")
        if os.path.exists(os.path.join(lib, "libcudart_static.a")):
            return flags + ["-L", lib]  # nvcc's default, the static runtime
        shared = sorted(glob.glob(os.path.join(lib, "libcudart.so.*")))
        if shared:
            # The wheel has only the versioned shared library (no libcudart.so for -lcudart):
            # link it by path, and find it there at run time.
            return flags + ["-cudart", "none", "-Xlinker", shared[-1],
                            "-Xlinker", f"-rpath={lib}"]
    return flags


def nvcc_command(nvcc, source, binary, arch, extra=()):
    """The build of cuda_launch.cu for one architecture (sm_90 for an H200)."""
    return [nvcc, "-O2", f"-arch={arch}", *extra, *pypi_cuda_flags(nvcc), "-o", binary, source]


def tail(text, limit=STDERR_TAIL):
    """The end of a tool's output, where its error is."""
    text = (text or "").strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def device_arch(cuda):
    """sm_XY for the device's own compute capability."""
    major, minor = cuda.torch.cuda.get_device_capability(0)
    return f"sm_{major}{minor}"


def nvcc_program(telemetry, nvcc, arch, source, args, timeout):
    """scripts/<source> built by nvcc for arch and run with args, NVML sampled while it runs:
    (its JSON object, telemetry, None) where it printed one with status ok, else (None, None,
    why): the build failed or timed out, the program did not start, timed out, printed no JSON
    or reported a failure (as it does where there is no driver). args and timeout may instead
    be one function giving both, called once the build is done (a cap that counts the build)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), source)
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, os.path.splitext(source)[0])
        why = build_program(nvcc, arch, path, binary)
        if why:
            return None, None, why
        if callable(args):
            args, timeout = args()
        try:
            proc, tele = telemetry.during(lambda: run_child([binary, *args], timeout))
        except subprocess.TimeoutExpired:
            return None, None, f"the nvcc-built program timed out after {timeout:g} s"
        except OSError as error:
            return None, None, f"the nvcc-built program did not start: {error}"
    data, why = program_answer(proc)
    return data, (tele if data is not None else None), why


def build_program(nvcc, arch, source, binary):
    """Builds source into binary: None, or why it was not built."""
    command = nvcc_command(nvcc, source, binary, arch)
    try:
        build = run_child(command, NVCC_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{nvcc} -arch={arch} timed out after {NVCC_TIMEOUT_S:g} s"
    except OSError as error:
        return f"{nvcc} did not start: {error}"
    if build.returncode != 0:
        return (f"{nvcc} -arch={arch} failed (exit {build.returncode}): "
                f"{tail(build.stderr or build.stdout)}")
    return None


def program_answer(proc):
    """(the object an nvcc-built program printed, None) where its status is ok, else (None, why).
    The programs print one JSON object, also when they fail (status and reason); anything else
    (a crash, a loader error) is kept as text rather than raised."""
    try:
        data = json.loads(proc.stdout)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError:
        return None, (f"the nvcc-built program (exit {proc.returncode}) printed no JSON: "
                      f"stdout {tail(proc.stdout, 200)!r}, stderr {tail(proc.stderr)!r}")
    if data.get("status") != "ok":
        return None, (f"the nvcc-built program reported {data.get('status')!r} "
                      f"(exit {proc.returncode}): {data.get('reason') or tail(proc.stderr)}")
    return data, None


def nvcc_launch_rows(telemetry, nvcc, arch, launches, trips):
    """The launch costs from cuda_launch.cu built by nvcc: (rows, None), or (None, why) where the
    build or the program did not give figures, for the CuPy path to stand in."""
    data, tele, why = nvcc_program(telemetry, nvcc, arch, "cuda_launch.cu",
                                   [str(launches), str(trips)], LAUNCH_PROGRAM_TIMEOUT_S)
    if data is None:
        return None, why
    method = (f"scripts/cuda_launch.cu (nvcc -O2 -arch={arch}), empty kernel <<<1,1>>>, "
              f"{launches} per burst")
    trip = data["round_trip_us"]
    return [
        row("launch/raw-loop", data["raw_loop_gpu_us_per_launch"], "us",
            "GPU time per launch", method + ", CUDA events", telemetry=tele, nvcc=nvcc,
            host_us_per_launch_call=data["raw_loop_host_us_per_launch"]),
        row("launch/graph", data["graph_gpu_us_per_kernel"], "us", "GPU time per kernel node",
            method + ", captured once into a CUDA graph from one stream (a chain: each node "
            "after the one before) and replayed, CUDA events", telemetry=tele, nvcc=nvcc),
        row("launch/graph-independent", data["graph_independent_gpu_us_per_kernel"], "us",
            "GPU time per kernel node",
            method + ", as many nodes in a CUDA graph with no edges (none waits for another), "
            "replayed, CUDA events", telemetry=tele, nvcc=nvcc),
        row("launch/round-trip", trip["p50"], "us", "one launch + cudaStreamSynchronize",
            method + ", host clock (steady_clock), median", percentiles=trip, telemetry=tele,
            nvcc=nvcc),
    ], None


def launch_rows(cuda, telemetry, quick):
    """The empty-kernel launch costs: from the nvcc-built program where nvcc builds it for this
    device and it answers, else from CuPy, each row saying why nvcc's figures are not there."""
    launches, trips = (2000, 300) if quick else (10000, 2000)
    nvcc = find_nvcc()
    if nvcc is None:
        why = NVCC_MISSING
    else:
        rows, why = nvcc_launch_rows(telemetry, nvcc, device_arch(cuda), launches, trips)
        if rows is not None:
            return rows
    print(f"launch: {why}; CuPy's launch path instead", file=sys.stderr, flush=True)
    try:
        rows = cupy_launch_rows(telemetry, launches, trips)
    except Exception as error:
        return [not_measured("launch", "failed", f"nvcc: {why}; CuPy: "
                                                 f"{type(error).__name__}: {error}")]
    for r in rows:
        r["nvcc_failure"] = why
    return rows


def cupy_launch_rows(telemetry, launches, trips):
    """Without nvcc's figures: CuPy's launch path (Python in the loop: an upper bound) and graph
    replay."""
    import cupy

    kernel = cupy.RawKernel('extern "C" __global__ void empty() {}', "empty")
    stream = cupy.cuda.Stream(non_blocking=True)

    def burst():
        with stream:
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            for _ in range(launches):
                kernel((1,), (1,), ())
            end.record()
            end.synchronize()
            return cupy.cuda.get_elapsed_time(start, end) * 1e3 / launches

    burst()
    raw, tele = telemetry.during(lambda: statistics.median(burst() for _ in range(5)))
    with stream:
        stream.begin_capture()
        for _ in range(launches):
            kernel((1,), (1,), ())
        graph = stream.end_capture()
        graph.launch()
        stream.synchronize()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        graph.launch()
        end.record()
        end.synchronize()
        per_node = cupy.cuda.get_elapsed_time(start, end) * 1e3 / launches
        samples = []
        for _ in range(trips):
            t0 = time.perf_counter()
            kernel((1,), (1,), ())
            stream.synchronize()
            samples.append((time.perf_counter() - t0) * 1e6)
    method = "CuPy RawKernel (no figures from nvcc: Python in the launch loop)"
    return [
        row("launch/raw-loop", raw, "us", "GPU time per launch", method, telemetry=tele),
        row("launch/graph", per_node, "us", "GPU time per kernel node",
            method + ", CUDA graph replay", telemetry=tele),
        row("launch/round-trip", statistics.median(samples), "us",
            "one launch + synchronize", method + ", host clock", telemetry=tele),
        not_measured("launch/graph-independent", "not-measured",
                     "a graph with no edges is built by the nvcc program only; CuPy's stream "
                     "capture makes a chain"),
    ]


# gpubench's built-in datapath workloads (datapath::request::builtins): name, input bytes,
# output bytes, FMA steps of each chain. A test holds this list to gpubench's.
DATAPATH_WORKLOADS = [
    ("transfer-bound", 8 * MIB, 64 * KIB, 4),
    ("compute-bound", 64 * KIB, 64 * KIB, 4096),
    ("balanced", 4 * MIB, MIB, 64),
]
# gpubench's default seed (SuiteOptions::new): the same seed gives the same input bytes.
DATAPATH_SEED = 0x5EED
# Serial requests and overlapped samples (16 requests each), as gpubench's datapath suite takes
# them in its default and quick profiles: p99 from 100 requests, p95 from 20.
DATAPATH_COUNTS = {False: (200, 8), True: (100, 5)}
DATAPATH_STAGES = ["prepare", "h2d", "compute", "d2h", "check"]
# What every datapath row says it is, beside gpubench's datapath rows.
DATAPATH_COMPARISON = "capability difference"
DATAPATH_CAVEAT = ("a capability difference, not a like-for-like ratio: CUDA moves the same "
                   "requests with pinned host memory (cudaHostAlloc) and two streams, which wgpu "
                   "does not offer (one queue; the host writes and reads mapped staging buffers)")
DATAPATH_COUNTS_TEXT = {
    "prepare": "host time to write one request's input into pinned memory",
    "h2d": "one request's cudaMemcpyAsync from pinned memory to the device",
    "compute": "one request's kernel (the suite's FMA arithmetic, built by nvcc)",
    "d2h": "one request's cudaMemcpyAsync from the device into pinned memory",
    "check": "host time to check one request's output (4096 sampled words)",
}


def datapath_plan(quick):
    """The datapath twin's requests and counts."""
    serial, samples = DATAPATH_COUNTS[quick]
    return {
        "workloads": [{"name": n, "input_bytes": i, "output_bytes": o, "steps": s}
                      for n, i, o, s in DATAPATH_WORKLOADS],
        "seed": DATAPATH_SEED, "serial_requests": serial, "overlap_samples": samples,
    }


def datapath_args(plan):
    """cuda_datapath.cu's command line: SEED SERIAL SAMPLES NAME:IN:OUT:STEPS ..."""
    return [str(plan["seed"]), str(plan["serial_requests"]), str(plan["overlap_samples"])] + [
        f"{w['name']}:{w['input_bytes']}:{w['output_bytes']}:{w['steps']}"
        for w in plan["workloads"]]


def datapath_keys(name):
    """The row keys of one workload, as side_by_side.py pairs them with gpubench's ids."""
    return ([f"datapath/{name}/stage/{s}" for s in DATAPATH_STAGES]
            + [f"datapath/{name}/serial", f"datapath/{name}/overlap-2-streams"])


def datapath_rows(cuda, telemetry, plan):
    """The datapath suite's requests through cuda_datapath.cu (pinned memory, two streams), built
    by nvcc for the device; where nvcc is missing or its program gives no figures, one row under
    the section's name with the status and the reason (there is no other way to measure them)."""
    nvcc = find_nvcc()
    if nvcc is None:
        return [not_measured("datapath", "not-available", NVCC_MISSING)]
    arch = device_arch(cuda)
    data, tele, why = nvcc_program(telemetry, nvcc, arch, "cuda_datapath.cu",
                                   datapath_args(plan), DATAPATH_PROGRAM_TIMEOUT_S)
    if data is None:
        return [not_measured("datapath", "failed", why)]
    method = (f"scripts/cuda_datapath.cu (nvcc -O2 -arch={arch}), pinned host memory, "
              f"{data.get('streams', 2)} streams")
    rows = []
    for workload in data.get("workloads") or []:
        rows += workload_rows(workload, method, telemetry=tele, nvcc=nvcc)
    return rows


def labelled(key, value, counts, method, **extra):
    """A datapath row: microseconds, labelled as the capability difference it is."""
    return row(key, value, "us", counts, method, comparison=DATAPATH_COMPARISON,
               caveat=DATAPATH_CAVEAT, **extra)


def failed_rows(keys, reason):
    """Every row of keys, failed with reason (never a zero)."""
    return [dict(not_measured(k, "failed", reason), comparison=DATAPATH_COMPARISON)
            for k in keys]


def workload_rows(workload, method, **extra):
    """One workload's rows: its five stages, the serial path, two requests on two streams."""
    name = workload["name"]
    keys = datapath_keys(name)
    if workload.get("status") != "ok":
        return failed_rows(keys, workload.get("reason") or "no reason given")
    params = {k: workload.get(k) for k in ("input_bytes", "output_bytes", "steps", "flops")}
    return (stage_rows(name, workload.get("stages") or {}, method, params, extra)
            + [serial_row(keys[-2], workload.get("serial") or {}, method, params, extra),
               overlap_row(keys[-1], workload.get("overlap") or {}, method, params, extra)])


def stage_rows(name, stages, method, params, extra):
    """Each stage alone: CUDA events for the copies and the kernel, the host clock for the rest;
    the check stage fails where the output it re-checked had changed."""
    rows = []
    for stage in DATAPATH_STAGES:
        key = f"datapath/{name}/stage/{stage}"
        timed = stages.get(stage)
        if timed is None:
            rows += failed_rows([key], "the program reported no time for this stage")
        elif stage == "check" and stages.get("check_failure"):
            rows += failed_rows([key], stages["check_failure"])
        else:
            clock = "host clock" if timed.get("clock") == "host" else "CUDA events"
            rows.append(labelled(key, timed["us"], DATAPATH_COUNTS_TEXT[stage],
                                 f"{method}, {clock}, median of calibrated samples",
                                 stage=stage, reps=timed.get("reps"), **params, **extra))
    return rows


def serial_row(key, serial, method, params, extra):
    """One request at a time: the median of its end-to-end spans, percentiles beside."""
    if serial.get("status") != "ok":
        return failed_rows([key], serial.get("reason") or "no serial figures")[0]
    latency = serial["latency_us"]
    return labelled(key, latency["p50"], "one request end to end (prepare to check), one at "
                    "a time", f"{method}, one stream, host clock (steady_clock) per request",
                    percentiles=latency, requests_per_s=serial.get("requests_per_s"),
                    in_flight=1, **params, **extra)


def overlap_row(key, overlap, method, params, extra):
    """Two requests in flight on two streams: the steady interval, each request's latency, and
    overlap achieved beside the ideal."""
    if overlap.get("status") != "ok":
        return failed_rows([key], overlap.get("reason") or "no overlapped figures")[0]
    return labelled(
        key, overlap["interval_us"], "steady interval between request completions, two in "
        "flight", f"{method}, one stream per request in flight (the next upload beside the "
        "current kernel), host clock from the first completion over the next 16 (the last "
        "request drains untimed)",
        percentiles=overlap["latency_us"], requests_per_s=overlap.get("requests_per_s"),
        in_flight=overlap.get("in_flight"), streams=overlap.get("streams"),
        overlap_achieved=overlap.get("overlap_achieved"),
        overlap_ideal=overlap.get("overlap_ideal"), slowest_stage=overlap.get("slowest_stage"),
        bound=overlap.get("bound", overlap.get("slowest_stage")), **params, **extra)


# The memory section: what each of cuda_memory.cu's rows counts, keyed like gpubench's ids.
MEMORY_COUNTS = {
    "read": "bytes read + per-thread sums written, per second, from a working set of this size "
            "(1 MiB windows per block of 256): gpubench's count",
    "latency": "ns per dependent 4-byte load, one thread following a random cycle through the "
               "working set in 64-byte nodes",
    "latency-lanes": "ns per dependent 4-byte load, the 32 lanes of one warp following the cycle "
                     "together, every lane the same address through a per-lane index (the "
                     "vector path)",
}
MEMORY_HOW = {
    "read": "read_window as memory.wgsl: {blocks} blocks of 256, 1 MiB window each, float4 "
            "loads in 32-thread chunks, four in flight",
    "latency": "chase as memory.wgsl: one thread, 65536 dependent loads a launch, each launch "
               "going on round the cycle",
    "latency-lanes": "chase_lanes as memory.wgsl: one warp, index p + (lane & zero_mask), "
                     "65536 dependent loads a launch",
}


def memory_cap_s():
    """cuda_memory.cu's time cap: MEMORY_CAP_S, shortened so the program and its kill margin end
    before CUDA_REFERENCE_DEADLINE (seconds since the epoch: when the check stops this whole
    reference), since the program prints its rows only when it ends and a stop before that
    would lose every one; at least 1 s."""
    deadline = os.environ.get("CUDA_REFERENCE_DEADLINE")
    cap = MEMORY_CAP_S
    if deadline:
        try:
            cap = min(cap, float(deadline) - time.time() - MEMORY_KILL_MARGIN_S)
        except ValueError:
            pass
    return max(1.0, cap)


def memory_rows(cuda, telemetry, sizes):
    """gpubench's memory suite from cuda_memory.cu, built by nvcc for the device and run under
    its own time cap; where nvcc is missing or its program gives no figures, one row under the
    section's name with the status and the reason (there is no other way to measure them)."""
    nvcc = find_nvcc()
    if nvcc is None:
        return [not_measured("memory", "not-available", NVCC_MISSING)]
    arch = device_arch(cuda)

    def args_after_build():
        cap = memory_cap_s()
        return [f"{cap:g}"] + [str(b) for b in sizes], cap + MEMORY_KILL_MARGIN_S

    data, tele, why = nvcc_program(telemetry, nvcc, arch, "cuda_memory.cu", args_after_build,
                                   None)
    if data is None:
        return [not_measured("memory", "failed", why)]
    method = (f"scripts/cuda_memory.cu (nvcc -O2 -arch={arch}), CUDA events, median of "
              f"{data.get('samples', 5)} samples of >= {data.get('sample_ms', 2.0):g} ms each "
              f"after a warm-up, output checked")
    extra = {"telemetry": tele, "nvcc": nvcc, "time_cap_s": data.get("cap_s")}
    rows = [workgroup_row(entry, method, extra) for entry in data.get("workgroup") or []]
    rows += [atomic_row(entry, method, extra) for entry in data.get("atomics") or []]
    for kind, field in (("read", "read"), ("latency", "latency"),
                        ("latency-lanes", "latency_lanes")):
        rows += [sweep_row(kind, entry, method, extra) for entry in data.get(field) or []]
    return rows


def program_row(key, entry, value_field, unit, counts, method, extra, **params):
    """One of cuda_memory.cu's entries as a row: its figure, or its status and reason (a wrong
    output, or a row the time cap left unmeasured) with no number."""
    if entry.get("status") != "ok":
        return dict(not_measured(key, entry.get("status") or "failed",
                                 entry.get("reason") or "no reason given"), **params)
    timing = {k: entry.get(k) for k in ("ms", "reps", "samples")}
    return row(key, entry[value_field], unit, counts, method, **params, **timing, **extra)


def sweep_row(kind, entry, method, extra):
    """A working-set row: memory/read/<size>, memory/latency/<size> or
    memory/latency-lanes/<size>."""
    nbytes = entry.get("bytes", 0)
    how = MEMORY_HOW[kind].format(blocks=entry.get("blocks"))
    value_field, unit = ("gbs", "GB/s") if kind == "read" else ("ns", "ns")
    params = {"bytes": nbytes, "size": size_label(nbytes)}
    if kind == "read":
        params["blocks"] = entry.get("blocks")
    return program_row(f"memory/{kind}/{size_label(nbytes)}", entry, value_field, unit,
                       MEMORY_COUNTS[kind], f"{method}; {how}", extra, **params)


def workgroup_row(entry, method, extra):
    """memory/workgroup/read-vec4 or memory/workgroup/stride-<s>: shared-memory bytes loaded per
    second from a 16 KiB tile, its fill not counted."""
    name = entry.get("name", "?")
    if name == "read-vec4":
        counts = ("shared-memory bytes read per second, 16 B per lane, consecutive lanes "
                  "consecutive (conflict-free); the tile's fill from global memory not counted")
    else:
        stride = int(name.split("-")[-1])
        ways = max(sum(1 for lane in range(32) if lane * stride % 32 == bank)
                   for bank in range(32))
        counts = (f"shared-memory bytes read per second, 4 B per lane at a {stride}-word stride "
                  f"({ways}-way bank conflict with 32 banks); the fill not counted")
    how = (f"{method}; as memory_shared.wgsl: {entry.get('blocks')} blocks of 256, a 16 KiB "
           f"tile, 256 trips of four independent loads a quarter-tile apart")
    return program_row(f"memory/workgroup/{name}", entry, "gbs", "GB/s", counts, how, extra)


def atomic_row(entry, method, extra):
    """memory/atomic-add/<target>: atomicAdds per second, one per atomicAdd written."""
    target = entry.get("target", "?")
    aggregation = entry.get("aggregation")
    where = "a global word" if target.startswith("storage") else "a shared-memory word"
    if aggregation == "may-fold":
        how = ("one address in every lane, so the compiler may fold a warp's adds into one "
               "atomic: aggregated atomics")
    elif "lane-indexed" in target:
        how = "addressed per lane (lane & zero_mask, 0 at run time): no folding, true contention"
    else:
        how = "each thread its own word (uncontended)"
    counts = (f"atomicAdds per second (GIOP/s, one per atomicAdd written) to {where}, {how}; "
              f"old values unused")
    return program_row(f"memory/atomic-add/{target}", entry, "giops", "GIOP/s", counts,
                       f"{method}; as memory_shared.wgsl: {entry.get('blocks')} blocks of 256, "
                       f"64 atomicAdds a thread", extra, aggregation=aggregation)


def plan_from(args):
    """What this invocation measures: the sections and their sizes."""
    quick = args.quick
    return {
        "sections": args.only or SECTIONS,
        "stream_bytes": args.stream_bytes or (256 * MIB if quick else DEFAULT_STREAM_BYTES),
        "matmul_shapes": [f"{m}x{n}x{k}" for m, n, k in (
            args.matmul_shapes or (QUICK_MATMUL_SHAPES if quick else DEFAULT_MATMUL_SHAPES))],
        "transfer_sizes": args.transfer_sizes or (
            DEFAULT_TRANSFER_SIZES[:7] if quick else DEFAULT_TRANSFER_SIZES),
        "datapath": datapath_plan(quick),
        "memory_sizes": args.memory_sizes or DEFAULT_MEMORY_SIZES,
        "quick": quick,
    }


class Sink:
    """Where the document goes: FILE, rewritten atomically at every save (a reader, or a run
    stopped halfway, never sees half a file), or stdout once at the end without --out."""

    def __init__(self, path):
        self.path = path

    def save(self, doc, final=False):
        if self.path is None:
            if final:
                sys.stdout.write(json.dumps(doc, indent=2) + "\n")
                sys.stdout.flush()
            return
        tmp = f"{self.path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, self.path)


class NoSink:
    """measure() called without a sink (the tests): nothing written."""

    def save(self, doc, final=False):
        pass


class Progress:
    """The document as far as it is finished. Every change builds a new dict and stores it in one
    assignment, so the signal handler (which runs between two bytecodes of the main thread) always
    sees a consistent document: a section's rows appear together with its name in
    sections_done, never halfway."""

    def __init__(self, sink, doc):
        self.sink = sink
        self.doc = doc

    def commit(self, **changes):
        self.doc = {**self.doc, **changes}
        self.sink.save(self.doc)


# The run in progress, for the signal handler; None outside main().
PROGRESS = None


def on_signal(signum, _frame):
    """SIGTERM / SIGINT: stop the child processes, save what is finished, marked incomplete, and
    exit 128 + the signal's number without unwinding (torch's teardown can block on a device that
    is still busy, and every finished section is already in the document)."""
    name = signal.Signals(signum).name
    for child in list(CHILDREN):
        try:
            child.kill()
        except OSError:
            pass
    if PROGRESS is not None:
        doc = {**PROGRESS.doc, "complete": False, "interrupted": name}
        try:
            PROGRESS.sink.save(doc, final=True)
        except OSError as error:
            print(f"cannot save the document: {error}", file=sys.stderr)
        running = doc.get("section_running")
        print(f"interrupted by {name}" + (f" during {running}" if running else "")
              + f"; sections done: {', '.join(doc.get('sections_done', [])) or 'none'}",
              file=sys.stderr, flush=True)
    os._exit(128 + signum)


def measure(plan, sink=None):
    """Every section of the plan; a section that fails leaves its reason and the others run. The
    document is saved through sink at the start, after every section and at the end."""
    global PROGRESS
    sink = sink or NoSink()
    progress = PROGRESS = Progress(sink, {
        "tool": "cuda_reference.py", "plan": plan, "status": "running", "complete": False,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sections_done": [], "rows": []})
    progress.commit()
    telemetry = Telemetry()
    progress.commit(nvml=telemetry.device())
    try:
        cuda = Cuda()
    except Exception as error:
        progress.commit(status="failed", reason=f"no CUDA: {error}")
        return finish(progress)
    torch = cuda.torch
    props = torch.cuda.get_device_properties(0)
    progress.commit(status="ok", device=props.name, torch=torch.__version__,
                    cuda=torch.version.cuda, sms=props.multi_processor_count,
                    memory_gib=props.total_memory / GIB)
    shapes = [parse_shape(s) for s in plan["matmul_shapes"]]
    work = {
        "stream": lambda: stream_rows(cuda, telemetry, plan["stream_bytes"]),
        "compute": lambda: compute_rows(cuda, telemetry),
        "matmul": lambda: matmul_rows(cuda, telemetry, shapes),
        "transfer": lambda: transfer_rows(cuda, telemetry, plan["transfer_sizes"]),
        "launch": lambda: launch_rows(cuda, telemetry, plan["quick"]),
        "datapath": lambda: datapath_rows(cuda, telemetry,
                                          plan.get("datapath") or datapath_plan(plan["quick"])),
        "memory": lambda: memory_rows(cuda, telemetry,
                                      plan.get("memory_sizes") or DEFAULT_MEMORY_SIZES),
    }
    for section in plan["sections"]:
        progress.commit(section_running=section)
        started = time.perf_counter()
        try:
            rows = work[section]()
        except Exception as error:
            rows = [not_measured(section, "failed", f"{type(error).__name__}: {error}")]
        seconds = round(time.perf_counter() - started, 2)
        doc = progress.doc
        progress.commit(rows=doc["rows"] + rows,
                        sections_done=doc["sections_done"] + [section],
                        seconds={**doc.get("seconds", {}), section: seconds},
                        section_running=None)
        print(f"{section}: {seconds} s", file=sys.stderr, flush=True)
    return finish(progress)


def finish(progress):
    """The end of the run: complete, saved (printed without --out); the final document."""
    doc = {k: v for k, v in progress.doc.items() if k != "section_running"}
    doc["complete"] = True
    doc["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    progress.doc = doc
    progress.sink.save(doc, final=True)
    return doc


def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a first look")
    parser.add_argument("--stream-bytes", type=int, help="bytes per stream array")
    parser.add_argument("--matmul-shapes", type=lambda t: [parse_shape(s) for s in t.split(",")])
    parser.add_argument("--transfer-sizes", type=lambda t: [int(s) for s in t.split(",")])
    parser.add_argument("--memory-sizes", type=lambda t: [int(s) for s in t.split(",")],
                        help="the memory section's working sets, bytes (gpubench's sweep)")
    parser.add_argument("--only", type=lambda t: t.split(","), help=",".join(SECTIONS))
    parser.add_argument("--plan", action="store_true", help="print the plan and stop")
    parser.add_argument("--out", help="write the document here, after every section "
                                      "(atomically), instead of stdout at the end")
    args = parser.parse_args(argv)
    unknown = set(args.only or []) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s) {sorted(unknown)}: use {','.join(SECTIONS)}")
    return args


def main(argv=None):
    args = arguments(sys.argv[1:] if argv is None else argv)
    plan = plan_from(args)
    if args.plan:
        print(json.dumps(plan, indent=2))
        return 0
    # Before torch's import, which takes seconds: a stop at any moment keeps the document.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    result = measure(plan, Sink(args.out))
    return 0 if result["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
