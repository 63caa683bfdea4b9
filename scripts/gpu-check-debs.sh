#!/usr/bin/env bash
# Downloads (does not install) the Debian packages a bare NVIDIA machine needs for Vulkan, into
# DIR (default .gl), for gpu-check.sh's GPUBENCH_VULKAN_DEBS: the loader, glvnd's dispatch
# libraries, and the X client libraries that NVIDIA's ICD (libGLX_nvidia.so.0) links against even
# when nothing is displayed (libX11, libXext, libxcb and theirs), plus vulkaninfo for diagnosis.
#
#   scripts/gpu-check-debs.sh [DIR]
#
# Run it on a Debian or Ubuntu machine of the same release family as the target's; amd64 only.
set -euo pipefail
dir=${1:-.gl}
packages="libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2
    libx11-6 libx11-data libxext6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0
    vulkan-tools libwayland-client0 libffi8"
mkdir -p "$dir" /tmp/gpubench-apt-amd64/partial
opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gpubench-apt-amd64)
apt-get "${opts[@]}" update -qq
(cd "$dir" && apt-get "${opts[@]}" download $packages)
# apt names files with the epoch as %3a and versions with +: plain names only, so every tool that
# carries the folder (and dpkg -x, which reads the package, not its name) takes them as they are.
for f in "$dir"/*.deb; do
    plain=$(basename "$f" | sed 's/%3a/_/g; s/+/_/g')
    [ "$plain" = "$(basename "$f")" ] || mv "$f" "$dir/$plain"
done
ls "$dir"/*.deb | wc -l
