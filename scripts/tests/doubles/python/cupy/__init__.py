"""A test double of CuPy, for scripts/gpu-check.sh --rehearsal: exactly what
scripts/cuda_reference.py calls (raw kernels by name, dlpack views of torch's tensors, a stream
with graph capture, events, mapped pinned host memory), on the virtual device of _gpu_double. A
kernel's cost comes from its name and arguments; its outputs read as right, except the SM pull's,
which reads the real host buffer it was given (so a pattern the reference writes checks).
Not a measurement."""

import ctypes
import os
import types

import _gpu_double as gpu

# Scalar types: the reference wraps kernel arguments in them and names a dtype with float32.
uint64 = int
int32 = int
float32 = float


class ndarray(gpu.Array):
    def __getitem__(self, index):
        # Indexing by a list of indices (the SM pull's check): the array and the indices, for
        # asnumpy to read.
        if isinstance(index, list):
            return (self, index)
        return super().__getitem__(index)


def from_dlpack(tensor):
    return ndarray(tensor.shape, tensor.dtype, "cuda", tensor.magnitude, tensor.error)


def empty(n, dtype=float32):
    return ndarray((n,), gpu.FLOAT32, "cuda", magnitude=0.0)


def abs(array):  # noqa: A001 - CuPy's name
    return array.abs()


class _AllFinite:
    def all(self):
        return True


def isfinite(array):
    return _AllFinite()


def _kernel_cost(name, grid, block, args):
    """The kernel's time on the virtual clock, from what it is and its arguments."""
    threads = grid[0] * block[0]
    if name == "copy4":
        gpu.DEVICE.device_op(2 * 16 * args[2], gpu.COPY_KERNEL_BPS)
    elif name == "triad4":
        gpu.DEVICE.device_op(3 * 16 * args[4], gpu.TRIAD_KERNEL_BPS)
    elif name in ("fma_f32", "fma_f16x2"):
        lanes, rate = (1, gpu.FMA_F32_FLOPS) if name == "fma_f32" else (2, gpu.FMA_F16X2_FLOPS)
        gpu.DEVICE.device_op(2 * lanes * 8 * 16 * args[3] * threads, rate)
    elif name == "pull4":
        host, dev, n4 = args
        # GPU_DOUBLES_PULL=lost: the kernel writes nothing (what the reference's check catches).
        if os.environ.get("GPU_DOUBLES_PULL") != "lost":
            dev.pulled_from = _MAPPED[host]
        gpu.DEVICE.link_copy(16 * n4, "h2d", True)
    elif name == "empty":
        gpu.DEVICE.run(gpu.EMPTY_KERNEL_US)
    else:
        raise NotImplementedError(f"the test double has no kernel {name!r}")


class _Function:
    def __init__(self, name):
        self.name = name

    def __call__(self, grid, block, args):
        capture = cuda._capturing
        if capture is not None:
            capture.append(self.name)
        else:
            _kernel_cost(self.name, grid, block, args)


class RawModule:
    def __init__(self, code, options=()):
        self.code = code

    def get_function(self, name):
        if f" {name}(" not in self.code:
            raise KeyError(f"no kernel {name} in the module")
        return _Function(name)


def RawKernel(code, name):  # noqa: N802 - CuPy's name
    return RawModule(code).get_function(name)


class _Graph:
    def __init__(self, nodes):
        self.nodes = nodes

    def launch(self):
        gpu.DEVICE.run(len(self.nodes) * gpu.GRAPH_NODE_US)


class _Stream:
    def __init__(self, non_blocking=False):
        self.nodes = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def begin_capture(self):
        self.nodes = []
        cuda._capturing = self.nodes

    def end_capture(self):
        graph, self.nodes, cuda._capturing = _Graph(self.nodes), None, None
        return graph

    def synchronize(self):
        gpu.DEVICE.host_wait()


def _get_elapsed_time(start, end):
    return start.elapsed_time(end)


cuda = types.SimpleNamespace(Stream=_Stream, Event=gpu.Event, get_elapsed_time=_get_elapsed_time,
                             _capturing=None)


# Mapped pinned host memory: real buffers, so the reference's ctypes writes land somewhere; the
# device pointer of a buffer is its own address.
_MAPPED = {}


def _host_alloc(nbytes, flags):
    buffer = ctypes.create_string_buffer(nbytes)
    address = ctypes.addressof(buffer)
    _MAPPED[address] = buffer
    return address


def _free_host(address):
    _MAPPED.pop(address)


def asarray(values):
    return list(values)


def asnumpy(picked):
    """An array indexed by a list of word indices: the words of the host buffer it was pulled
    from, as float32, or zeros where nothing was pulled into it."""
    array, indices = picked
    source = getattr(array, "pulled_from", None)
    if source is None:
        return [0.0] * len(indices)
    words = (ctypes.c_float * (len(source) // 4)).from_buffer(source)
    return [words[i] for i in indices]


def _pointer_attributes(address):
    """CuPy's PointerAttributes of a mapped buffer: its device address is its host address."""
    if address not in _MAPPED:
        raise RuntimeError("cudaErrorInvalidValue (test double): not a mapped buffer")
    return types.SimpleNamespace(devicePointer=address, hostPointer=address)


runtime = types.SimpleNamespace(hostAlloc=_host_alloc, hostAllocMapped=2,
                                pointerGetAttributes=_pointer_attributes, freeHost=_free_host)
cuda.runtime = runtime
