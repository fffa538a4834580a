# Finds every third-party dependency once, so subdirectories only link targets.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2)
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
