#!/usr/bin/env bash
# Measures the two LibTorch routes for machines without torch (see docs/libtorch-choice.md):
# PyPI's torch wheel in a scratch venv vs Debian's libtorch-dev. Installs and then removes libtorch-dev.
# Run as root on Debian 12. Prints one line per measurement.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
used() { df -B1 --output=used / | tail -1; }

mk_project() {  # $1 dir, $2 expression for the norm
  mkdir -p "$1"
  cat > "$1/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.25)
project(tt CXX)
find_package(Torch REQUIRED)
add_executable(tt main.cpp)
target_link_libraries(tt ${TORCH_LIBRARIES})
EOC
  printf '#include <ATen/ATen.h>\n#include <iostream>\nint main(){auto x=at::randn({4,8});auto w=at::rand({8});auto y=%s;std::cout<<y.sum().item<float>()<<"\\n";}\n' "$2" > "$1/main.cpp"
}

# PyPI
b=$(used); s=$(now)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-deps torch==2.11.0 nvidia-cusparselt-cu13==0.8.0 nvidia-nvshmem-cu13==3.4.5 nvidia-cufile==1.20.0.107
echo "pypi install_s $(echo "$(now) - $s" | bc) disk_bytes $(( $(used) - b ))"
prefix=$(ls -d "$work"/venv/lib/python3*/site-packages/torch/share/cmake)
mk_project "$work/pypi" 'at::rms_norm(x, {8}, w, 1e-6)'

# Debian
b=$(used); s=$(now)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libtorch-dev >/dev/null
echo "debian install_s $(echo "$(now) - $s" | bc) disk_bytes $(( $(used) - b ))"
mk_project "$work/deb" 'x * at::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * w'   # 1.13 has no at::rms_norm

for i in 1 2; do
  s=$(now); cmake -S "$work/deb" -B "$work/deb/b$i" -G Ninja >/dev/null && ninja -C "$work/deb/b$i" >/dev/null
  echo "debian build_s $(echo "$(now) - $s" | bc)"
  s=$(now); cmake -S "$work/pypi" -B "$work/pypi/b$i" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null && ninja -C "$work/pypi/b$i" >/dev/null
  echo "pypi build_s $(echo "$(now) - $s" | bc)"
done
"$work/pypi/b1/tt" >/dev/null && echo "pypi program runs"
"$work/deb/b1/tt" >/dev/null && echo "debian program runs"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq libtorch-dev >/dev/null && apt-get autoremove -y -qq >/dev/null
