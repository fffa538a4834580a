# Finds every third-party dependency once, so subdirectories only link targets.
# libgit2: pkg-config where it exists (Debian), otherwise a plain library search under
# CMAKE_PREFIX_PATH (the GPU machine has no libgit2 and maybe no pkg-config: scripts/fetch-gpu-deps.sh
# unpacks Debian's packages into .deps/root, which is then given as a prefix).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(LIBGIT2 QUIET IMPORTED_TARGET libgit2)
endif()
if(NOT TARGET PkgConfig::LIBGIT2)
  find_path(AK_LIBGIT2_INCLUDE git2.h)
  find_library(AK_LIBGIT2_LIBRARY NAMES git2 libgit2.so.1.5)
  if(NOT AK_LIBGIT2_INCLUDE OR NOT AK_LIBGIT2_LIBRARY)
    message(FATAL_ERROR "libgit2 not found. On Debian run scripts/setup.sh (installs libgit2-dev); elsewhere pass "
                        "-DCMAKE_PREFIX_PATH=<prefix with include/git2.h and lib/libgit2.so>.")
  endif()
  add_library(PkgConfig::LIBGIT2 UNKNOWN IMPORTED)
  set_target_properties(PkgConfig::LIBGIT2 PROPERTIES IMPORTED_LOCATION ${AK_LIBGIT2_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${AK_LIBGIT2_INCLUDE})
endif()
find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)

# CUDA toolkit: NVRTC compiles candidates, CUPTI profiles, cuda.h describes the driver API.
# libcuda itself is never linked: core/gpu/cuda_driver.cpp dlopens it, so every binary starts
# on a machine without a driver.
find_package(CUDAToolkit REQUIRED)
if(NOT TARGET CUDA::nvrtc)
  message(FATAL_ERROR "The CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR} has no NVRTC. Install the CUDA 13 toolkit "
                      "(scripts/setup.sh checks for it) or point CUDAToolkit_ROOT at it.")
endif()

# libcurl: the LLM agent talks to OpenAI-compatible endpoints.
find_package(CURL QUIET)

# LibTorch lives only in the evaluator process.
set(AK_HAVE_EVALUATOR OFF)
if(NOT AK_BUILD_EVALUATOR STREQUAL "OFF")
  # We compile no CUDA with nvcc (candidates go through NVRTC), so spare TorchConfig its GPU-arch probe,
  # which try_run()s nvcc and fails under CMAKE_CXX_STANDARD 20 on a machine without a GPU.
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "9.0")
  endif()
  find_package(Torch QUIET)
  if(Torch_FOUND)
    set(AK_HAVE_EVALUATOR ON)
  elseif(AK_BUILD_EVALUATOR STREQUAL "ON")
    message(FATAL_ERROR "AK_BUILD_EVALUATOR=ON but LibTorch was not found. Run scripts/setup.sh, or pass "
                        "-DCMAKE_PREFIX_PATH=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')")
  endif()
endif()

if(AK_BUILD_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets PrintSupport Concurrent Test LinguistTools)
  find_package(QCustomPlotQt6 REQUIRED)
  # KSyntaxHighlighting: the KF6 build when present, otherwise our small built-in highlighter.
  find_package(KF6SyntaxHighlighting QUIET)
  if(KF6SyntaxHighlighting_FOUND)
    set(AK_HIGHLIGHTER "KF6SyntaxHighlighting ${KF6SyntaxHighlighting_VERSION}")
  else()
    set(AK_HIGHLIGHTER "built-in")
  endif()
else()
  set(AK_HIGHLIGHTER "none (no GUI)")
endif()

if(AK_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# Versions every binary reports with --version.
execute_process(COMMAND git describe --always --dirty WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE AK_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
