"""A test double of pynvml, for scripts/gpu-check.sh --rehearsal: the NVML calls
scripts/cuda_reference.py makes, answering with fixed H200-like readings. Not a measurement."""

import types

import _gpu_double as gpu

NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_TEMPERATURE_GPU = 0
_HANDLE = object()


def nvmlInit():  # noqa: N802 - NVML's names
    pass


def nvmlDeviceGetHandleByIndex(index):  # noqa: N802
    if index != 0:
        raise RuntimeError("the test double has one device")
    return _HANDLE


def nvmlDeviceGetName(handle):  # noqa: N802
    return gpu.NAME


def nvmlSystemGetDriverVersion():  # noqa: N802
    return "570.00 (test double)"


def nvmlDeviceGetMaxClockInfo(handle, clock):  # noqa: N802
    return 1980 if clock == NVML_CLOCK_SM else 3201


def nvmlDeviceGetClockInfo(handle, clock):  # noqa: N802
    return 1980 if clock == NVML_CLOCK_SM else 3201


def nvmlDeviceGetEnforcedPowerLimit(handle):  # noqa: N802
    return 700_000  # mW


def nvmlDeviceGetPowerUsage(handle):  # noqa: N802
    return 450_000  # mW


def nvmlDeviceGetTemperature(handle, sensor):  # noqa: N802
    return 41


def nvmlDeviceGetUtilizationRates(handle):  # noqa: N802
    return types.SimpleNamespace(gpu=100, memory=60)


def nvmlDeviceGetCurrentClocksEventReasons(handle):  # noqa: N802
    return 0


def nvmlDeviceGetCurrPcieLinkGeneration(handle):  # noqa: N802
    return 5


def nvmlDeviceGetMaxPcieLinkGeneration(handle):  # noqa: N802
    return 5


def nvmlDeviceGetCurrPcieLinkWidth(handle):  # noqa: N802
    return 16


def nvmlDeviceGetMaxPcieLinkWidth(handle):  # noqa: N802
    return 16


def nvmlDeviceGetPciInfo(handle):  # noqa: N802
    return types.SimpleNamespace(busId=b"00000000:19:00.0")
