"""The device behind the torch, cupy and pynvml test doubles: a virtual H200 that does no work.

cuda_reference.py times work two ways, and the double answers both deterministically and fast:

- CUDA events (torch.cuda.Event, cupy.cuda.Event) read a virtual stream clock. Every operation
  advances it by a cost from fixed rates: a device operation by max(launch cost, work / rate)
  (back to back, tiny kernels are bound by the launch rate, large ones by the device), a copy
  across the link by latency + bytes / bandwidth. The launch cost of 10 us keeps the reference's
  calibration loops (a sample of 20 ms of virtual time) to a couple of thousand Python calls.
- The host clock (time.perf_counter around calls ended by torch.cuda.synchronize or a stream's
  synchronize) is real: those waits sleep for the virtual time queued since the last wait, so a
  host-timed transfer reads close to the modelled bandwidth. Event waits return at once (their
  readings are virtual), so event-timed loops cost only their Python calls.

Nothing here is a measurement; the rates are H200-like round figures, named below.
"""

import time

# Device operations (bytes read + written per second, FLOP per second).
LAUNCH_US = 10.0
D2D_MEMCPY_BPS = 3.9e12
COPY_KERNEL_BPS = 4.0e12
TRIAD_KERNEL_BPS = 4.1e12
FMA_F32_FLOPS = 60e12
FMA_F16X2_FLOPS = 120e12
SGEMM_FLOPS = 50e12
HGEMM_FLOPS = 700e12
# Copies across the link: fixed cost, then bytes per second one way.
LINK_LATENCY_US = 8.0
LINK_BPS = {("h2d", True): 55e9, ("d2h", True): 52e9, ("h2d", False): 22e9,
            ("d2h", False): 18e9}
# The empty kernel: GPU time per launch in a raw loop, and per node of a replayed graph.
EMPTY_KERNEL_US = 2.2
GRAPH_NODE_US = 0.9
# A host wait never sleeps longer than this (the virtual time of a burst can be large).
MAX_WAIT_S = 0.05

# What the card says of itself (torch's device properties, NVML).
NAME = "NVIDIA H200 (CUDA test double)"
SMS = 132
MEMORY_BYTES = 141 * (1 << 30)
CAPABILITY = (9, 0)


class Device:
    """The virtual stream: its clock in microseconds, and how much of it the host has not
    waited for."""

    def __init__(self):
        self.clock_us = 0.0
        self.unwaited_us = 0.0

    def run(self, us):
        self.clock_us += us
        self.unwaited_us += us

    def device_op(self, work, rate):
        """A kernel or device-side copy of `work` bytes or FLOP at `rate` per second."""
        self.run(max(LAUNCH_US, work / rate * 1e6))

    def link_copy(self, nbytes, direction, pinned):
        self.run(LINK_LATENCY_US + nbytes / LINK_BPS[(direction, pinned)] * 1e6)

    def host_wait(self):
        """The host blocks until the stream is idle: waits for what was queued since, spinning
        below a millisecond (a sleep that short lasts tens of microseconds too long)."""
        wait = min(self.unwaited_us * 1e-6, MAX_WAIT_S)
        self.unwaited_us = 0.0
        if wait >= 1e-3:
            time.sleep(wait)
            return
        until = time.perf_counter() + wait
        while time.perf_counter() < until:
            pass

    def event_wait(self):
        self.unwaited_us = 0.0


DEVICE = Device()


class Event:
    """A point on the virtual stream clock."""

    def __init__(self, *args, **kwargs):
        self.at_us = None

    def record(self, *args):
        self.at_us = DEVICE.clock_us

    def synchronize(self):
        DEVICE.event_wait()

    def elapsed_time(self, end):
        """Milliseconds from this event to end (torch's name; cupy's get_elapsed_time)."""
        return (end.at_us - self.at_us) / 1e3


class DType:
    """A tensor element type: its size, and the relative error a GEMM in it leaves."""

    def __init__(self, name, itemsize, gemm_error):
        self.name, self.itemsize, self.gemm_error = name, itemsize, gemm_error

    def __repr__(self):
        return f"torch.{self.name}"


FLOAT16 = DType("float16", 2, 4e-4)
FLOAT32 = DType("float32", 4, 3e-7)
FLOAT64 = DType("float64", 8, 0.0)


class Array:
    """A tensor (torch) or array (cupy) without its elements: its shape and type, where it lives,
    and two numbers that stand for its values: `magnitude` (the largest element's size) and
    `error` (relative to magnitude, what a computation left). The reference's checks compare two
    results and take the largest difference: the difference of two equal results is the larger
    error, so a check reads that error, as it would on a card that computes right."""

    def __init__(self, shape, dtype=FLOAT32, device="cuda", magnitude=1.0, error=0.0,
                 pinned=False):
        self.shape = tuple(shape)
        self.dtype, self.device = dtype, device
        self.magnitude, self.error, self.pinned = magnitude, error, pinned

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self):
        return self.numel * self.dtype.itemsize

    def like(self, **changes):
        fields = dict(shape=self.shape, dtype=self.dtype, device=self.device,
                      magnitude=self.magnitude, error=self.error, pinned=self.pinned)
        fields.update(changes)
        return type(self)(**fields)

    def __getitem__(self, index):
        if not isinstance(index, slice) or not self.shape:
            raise TypeError("the test double slices the first dimension only")
        rows = len(range(*index.indices(self.shape[0])))
        return self.like(shape=(rows,) + self.shape[1:])

    def __sub__(self, other):
        return self.like(magnitude=max(self.magnitude * self.error,
                                       other.magnitude * other.error), error=0.0)

    def __add__(self, other):
        return self.like(magnitude=self.magnitude + other.magnitude,
                         error=max(self.error, other.error))

    def __mul__(self, scalar):
        return self.like(magnitude=self.magnitude * abs(float(scalar)))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self.like(shape=(), magnitude=self.magnitude / other.magnitude, error=0.0)

    def abs(self):
        return self.like()

    def max(self):
        return self.like(shape=())

    def __float__(self):
        return float(self.magnitude)
