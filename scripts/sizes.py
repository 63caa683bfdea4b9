"""gpubench's size labels, as its ids spell them (units::format_size), for the GPU check's scripts:
the reference keys CUDA's rows by them and the table finds gpubench's rows by them, so there is
one spelling."""

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


def size_label(nbytes):
    """4KiB, 16MiB, 1GiB, and 1.5MiB for a size that is not a whole number of its largest unit
    (the memory sweep's 1.5 x 2^k points); bytes below 1 KiB."""
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if nbytes >= scale:
            if nbytes % scale == 0:
                return f"{nbytes // scale}{unit}"
            return f"{nbytes / scale:.2f}".rstrip("0").rstrip(".") + unit
    return f"{nbytes}B"
