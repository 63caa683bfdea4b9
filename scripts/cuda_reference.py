#!/usr/bin/env python3
"""The same quantities gpubench measures, measured through CUDA (PyTorch), as the reference a
user would otherwise pick: device-to-device copy bandwidth (bytes read + written), f32 matmul
with TF32 off (cuBLAS SGEMM), f16 matmul on tensor cores, host-to-device bandwidth from pageable
and from pinned memory, and kernel launch cost (CUDA events around a storm of tiny kernels) and
round trip (launch + synchronize, host clock).

Prints one JSON object. Units as in gpubench: GB/s = 1e9 B/s, GFLOP/s, microseconds.
Usage: python3 scripts/cuda_reference.py [--quick]
"""

import json
import statistics
import sys
import time

import torch


def timed(fn, iterations, warmup=3):
    """Median milliseconds per call of fn over CUDA events, after warm-up."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copy_bandwidth(gib):
    n = int(gib * 2**30) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src), 20)
    return {"bytes": 4 * n, "ms": ms, "gbs_read_plus_written": 2 * 4 * n / (ms * 1e-3) / 1e9}


def matmul(size, dtype, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    a = torch.rand(size, size, device="cuda", dtype=dtype)
    b = torch.rand(size, size, device="cuda", dtype=dtype)
    ms = timed(lambda: torch.matmul(a, b), 10)
    return {"size": size, "dtype": str(dtype), "tf32": tf32, "ms": ms,
            "gflops": 2 * size**3 / (ms * 1e-3) / 1e9}


def host_to_device(mib, pinned):
    n = mib * 2**20 // 4
    host = torch.rand(n)
    if pinned:
        host = host.pin_memory()
    dev = torch.empty(n, device="cuda")
    ms = timed(lambda: dev.copy_(host, non_blocking=pinned), 10)
    return {"bytes": 4 * n, "pinned": pinned, "ms": ms, "gbs": 4 * n / (ms * 1e-3) / 1e9}


def launch(storm, round_trips):
    x = torch.zeros(1, device="cuda")

    def burst():
        for _ in range(storm):
            x.add_(1.0)

    per_launch_us = timed(burst, 10) * 1e3 / storm
    samples = []
    for _ in range(round_trips):
        t0 = time.perf_counter()
        x.add_(1.0)
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    pct = lambda p: samples[min(len(samples) - 1, int(p / 100 * len(samples)))]
    return {"per_launch_us_gpu": per_launch_us, "round_trip_us": {
        "p50": pct(50), "p95": pct(95), "p99": pct(99), "max": samples[-1], "n": len(samples)}}


def main():
    quick = "--quick" in sys.argv
    props = torch.cuda.get_device_properties(0)
    result = {
        "device": props.name,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "memory_gib": props.total_memory / 2**30,
        "copy": copy_bandwidth(0.25 if quick else 2),
        "sgemm_tf32_off": matmul(2048 if quick else 8192, torch.float32, False),
        "hgemm": matmul(2048 if quick else 8192, torch.float16, False),
        "h2d_pageable": host_to_device(64 if quick else 1024, False),
        "h2d_pinned": host_to_device(64 if quick else 1024, True),
        "launch": launch(1000, 200 if quick else 2000),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
