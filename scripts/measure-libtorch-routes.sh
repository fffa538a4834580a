#!/usr/bin/env bash
# measures Debian libtorch-dev route vs PyPI route
set -x
exec > /tmp/ltm/measure.log 2>&1
df -B1 --output=used / | tail -1 > used_before
s=$(date +%s.%N)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libtorch-dev
e=$(date +%s.%N); echo "DEBIAN_INSTALL_S $(echo "$e - $s" | bc)"
df -B1 --output=used / | tail -1 > used_after
echo "DEBIAN_DISK_BYTES $(( $(cat used_after) - $(cat used_before) ))"
dpkg -l | grep -i torch
mkdir -p deb && cp /tmp/tt/main.cpp deb/ && cat > deb/CMakeLists.txt <<'EOC'
cmake_minimum_required(VERSION 3.25)
project(tt CXX)
find_package(Torch REQUIRED)
add_executable(tt main.cpp)
target_link_libraries(tt ${TORCH_LIBRARIES})
EOC
sed -i 's/at::rms_norm(x, {8}, w, 1e-6)/x * at::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * w/' deb/main.cpp
for i in 1 2; do
s=$(date +%s.%N); cmake -S deb -B deb/b$i -G Ninja -DCMAKE_PREFIX_PATH=/usr/lib/x86_64-linux-gnu/cmake/Torch >/dev/null && ninja -C deb/b$i >/dev/null; e=$(date +%s.%N)
echo "DEBIAN_BUILD_S $(echo "$e - $s" | bc)"
s=$(date +%s.%N); cmake -S /tmp/tt -B /tmp/tt/b$i -G Ninja -DCMAKE_PREFIX_PATH=/work/main/.venv/lib/python3.11/site-packages/torch/share/cmake >/dev/null && ninja -C /tmp/tt/b$i >/dev/null; e=$(date +%s.%N)
echo "PYPI_BUILD_S $(echo "$e - $s" | bc)"
done
./deb/b1/tt; echo "rms_norm available in 1.13? $(grep -c 'rms_norm' /usr/include/ATen/Functions.h 2>/dev/null || grep -rl 'rms_norm' /usr/include/ATen/ops 2>/dev/null | head -1)"
grep -rl "scaled_dot_product_attention" /usr/include/ATen/ops/ 2>/dev/null | head -2
uptime
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq libtorch-dev >/dev/null; apt-get autoremove -y -qq >/dev/null
df -B1 --output=used / | tail -1
echo DONE
