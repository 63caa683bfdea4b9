"""A test double of torch, for scripts/gpu-check.sh --rehearsal: exactly what
scripts/cuda_reference.py calls, on the virtual device of _gpu_double (no work is done; event
times follow fixed rates, host waits sleep for the virtual time). Not a measurement."""

import types

import _gpu_double as gpu

__version__ = "0.0-test-double"
version = types.SimpleNamespace(cuda="12.8 (test double)")
float16, float32, float64 = gpu.FLOAT16, gpu.FLOAT32, gpu.FLOAT64
backends = types.SimpleNamespace(
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
    cudnn=types.SimpleNamespace(allow_tf32=True))


class Tensor(gpu.Array):
    """torch.Tensor's few methods the reference uses."""

    def copy_(self, src, non_blocking=False):
        if self.device == "cuda" and src.device == "cuda":
            gpu.DEVICE.device_op(2 * self.nbytes, gpu.D2D_MEMCPY_BPS)
        elif self.device == "cuda":
            gpu.DEVICE.link_copy(self.nbytes, "h2d", src.pinned)
        else:
            gpu.DEVICE.link_copy(self.nbytes, "d2h", self.pinned)
        return self

    def pin_memory(self):
        return self.like(pinned=True)

    def double(self):
        return self.like(dtype=float64)

    def __dlpack__(self, stream=None):
        return self


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def rand(*size, device="cpu", dtype=float32):
    return Tensor(_shape(size), dtype, str(device), magnitude=1.0)


def empty(*size, device="cpu", dtype=float32):
    return Tensor(_shape(size), dtype, str(device), magnitude=0.0)


def empty_like(other):
    return other.like(magnitude=0.0)


def matmul(a, b):
    """C = A x B: the GEMM's time on the virtual clock; C's elements are sums of k products of
    values in [0, 1), k/4 on average, with the type's rounding error."""
    m, k = a.shape
    n = b.shape[1]
    rate = gpu.HGEMM_FLOPS if a.dtype is float16 else gpu.SGEMM_FLOPS
    gpu.DEVICE.device_op(2 * m * n * k, rate)
    return Tensor((m, n), a.dtype, a.device, magnitude=a.magnitude * b.magnitude * k / 4,
                  error=a.dtype.gemm_error)


class _Cuda(types.ModuleType):
    """torch.cuda."""

    Event = gpu.Event

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def synchronize():
        gpu.DEVICE.host_wait()

    @staticmethod
    def get_device_properties(index):
        return types.SimpleNamespace(name=gpu.NAME, multi_processor_count=gpu.SMS,
                                     total_memory=gpu.MEMORY_BYTES)

    @staticmethod
    def get_device_capability(index):
        return gpu.CAPABILITY


cuda = _Cuda("torch.cuda")
