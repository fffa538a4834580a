#include "engine/evaluator/launcher.h"

#include "engine/evaluator/cuda_check.h"
#include "gpu/cuda_driver.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <sstream>

namespace ak::eval {

namespace {

const CudaDriver& cu() { return cuda_driver(); }

int device_attribute(CUdevice device, CUdevice_attribute attribute, const char* name) {
    int value = 0;
    check_cu(cu().cuDeviceGetAttribute(&value, attribute, device), std::string("cuDeviceGetAttribute(") + name + ")");
    return value;
}

int function_attribute(CUfunction f, CUfunction_attribute attribute, const std::string& what) {
    int value = 0;
    check_cu(cu().cuFuncGetAttribute(&value, attribute, f), "cuFuncGetAttribute(" + what + ")");
    return value;
}

// cuFuncGetParamInfo (CUDA 12.4+) is not in the shared driver table: look it up in the libcuda that is
// already loaded. Null when the driver is older; the parameter check is then skipped.
using FuncGetParamInfo = CUresult (*)(CUfunction, size_t, size_t*, size_t*);
FuncGetParamInfo func_get_param_info() {
    static const FuncGetParamInfo fn = [] () -> FuncGetParamInfo {
        const std::string& path = cu().status().library_path;
        void* handle = dlopen(path.empty() ? "libcuda.so.1" : path.c_str(), RTLD_NOW | RTLD_NOLOAD);
        if (!handle) return nullptr;
        return reinterpret_cast<FuncGetParamInfo>(dlsym(handle, "cuFuncGetParamInfo"));
    }();
    return fn;
}

const char* args_struct_name(KernelType t) {
    switch (t) {
    case KernelType::Matmul: return "ak_matmul_args";
    case KernelType::Softmax: return "ak_softmax_args";
    case KernelType::LayerNorm: return "ak_layernorm_args";
    case KernelType::RmsNorm: return "ak_rmsnorm_args";
    case KernelType::FlashAttention: return "ak_flash_attention_args";
    case KernelType::FusedMlp: return "ak_fused_mlp_args";
    case KernelType::CrossEntropy: return "ak_cross_entropy_args";
    case KernelType::RotaryEmbedding: return "ak_rotary_args";
    case KernelType::Reduce: return "ak_reduce_args";
    }
    return "?";
}

int element_bytes(at::ScalarType t) { return static_cast<int>(c10::elementSize(t)); }

CUtensorMapDataType tma_data_type(at::ScalarType t) {
    switch (t) {
    case at::kHalf: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case at::kBFloat16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case at::kFloat: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    default: throw LaunchError(std::string("TMA: unsupported element type ") + c10::toString(t));
    }
}

CUtensorMapSwizzle tma_swizzle(int s) {
    switch (s) {
    case AK_SWIZZLE_32B: return CU_TENSOR_MAP_SWIZZLE_32B;
    case AK_SWIZZLE_64B: return CU_TENSOR_MAP_SWIZZLE_64B;
    case AK_SWIZZLE_128B: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
    }
}

std::string dims_text(const std::array<unsigned, 3>& d) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

}  // namespace

ArgsLayout args_layout(KernelType t) {
    switch (t) {
    case KernelType::Matmul: return {sizeof(ak_matmul_args), 3};
    case KernelType::Softmax: return {sizeof(ak_softmax_args), 0};
    case KernelType::LayerNorm: return {sizeof(ak_layernorm_args), 0};
    case KernelType::RmsNorm: return {sizeof(ak_rmsnorm_args), 0};
    case KernelType::FlashAttention: return {sizeof(ak_flash_attention_args), 3};
    case KernelType::FusedMlp: return {sizeof(ak_fused_mlp_args), 3};
    case KernelType::CrossEntropy: return {sizeof(ak_cross_entropy_args), 0};
    case KernelType::RotaryEmbedding: return {sizeof(ak_rotary_args), 0};
    case KernelType::Reduce: return {sizeof(ak_reduce_args), 0};
    }
    throw Error(ErrorKind::Internal, "args_layout: unknown kernel type");
}

static_assert(sizeof(ak_stage) == 26 * sizeof(int), "ak_stage layout changed: update the launcher");
static_assert(offsetof(ak_matmul_args, tma) == 0 && offsetof(ak_flash_attention_args, tma) == 0 &&
                  offsetof(ak_fused_mlp_args, tma) == 0,
              "the launcher expects the tensor maps at offset 0");
static_assert(sizeof(ak_matmul_args) <= kArgsCapacity && sizeof(ak_flash_attention_args) <= kArgsCapacity &&
                  sizeof(ak_fused_mlp_args) <= kArgsCapacity,
              "argument struct larger than kArgsCapacity");
static_assert(sizeof(ak_tensor_map) == sizeof(CUtensorMap), "ak_tensor_map must match CUtensorMap");

at::ScalarType scalar_type(DType d) {
    switch (d) {
    case DType::fp16: return at::kHalf;
    case DType::bf16: return at::kBFloat16;
    case DType::fp32: return at::kFloat;
    default: throw Error(ErrorKind::Usage, "kernels are compiled in fp16, bf16 or fp32, not " + std::string(to_string(d)));
    }
}

DType kernel_dtype(at::ScalarType t) {
    switch (t) {
    case at::kHalf: return DType::fp16;
    case at::kBFloat16: return DType::bf16;
    case at::kFloat: return DType::fp32;
    default: throw Error(ErrorKind::Usage, std::string("no kernel dtype for ") + c10::toString(t));
    }
}

DeviceLimits query_device_limits(CUdevice device) {
    cu().require();
    DeviceLimits d;
    d.cc_major = device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
    d.cc_minor = device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
    d.sm_count = device_attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
    d.max_threads_per_block = device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    d.max_block_dims = {device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"),
                        device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"),
                        device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z")};
    d.max_grid_dims = {device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"),
                       device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"),
                       device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z")};
    d.max_shared_per_block =
        device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK");
    d.max_shared_per_block_optin = device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                                    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
    d.cluster_launch = d.cc_major >= 9 &&
                       device_attribute(device, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "CLUSTER_LAUNCH") != 0;
    d.l2_bytes = device_attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
    return d;
}

GridInputs grid_inputs(const KernelAdapter& adapter, const Problem& p) {
    GridInputs g;
    g.rows = adapter.rows(p);
    g.tiles_m = adapter.tiles_m(p);
    g.tiles_n = adapter.tiles_n(p);
    g.tiles_batch = adapter.tiles_batch(p);
    return g;
}

CandidateModule::CandidateModule(const std::string& cubin, const KernelAdapter& adapter, at::ScalarType dtype,
                                 const DeviceLimits& device)
    : adapter_(adapter), dtype_(dtype), device_(device), layout_(args_layout(adapter.type())) {
    cu().require();
    check_cu(cu().cuModuleLoadData(&module_, cubin.data()), "cuModuleLoadData (loading the candidate's cubin)");
    try {
        // ---- read ak_launch0..3
        std::vector<ak_stage> slots(AK_MAX_STAGES);
        std::vector<std::string> problems;
        for (int i = 0; i < AK_MAX_STAGES; ++i) {
            std::memset(&slots[i], 0, sizeof(ak_stage));
            const std::string symbol = launch_symbol(i);
            CUdeviceptr ptr = 0;
            std::size_t bytes = 0;
            const CUresult r = cu().cuModuleGetGlobal(&ptr, &bytes, module_, symbol.c_str());
            if (r == CUDA_ERROR_NOT_FOUND) continue;
            check_cu(r, "cuModuleGetGlobal(" + symbol + ")");
            if (bytes != sizeof(ak_stage)) {
                problems.push_back(symbol + " is " + std::to_string(bytes) + " bytes, but ak_stage is " +
                                   std::to_string(sizeof(ak_stage)) + " bytes: declare it as AK_LAUNCH(" +
                                   std::to_string(i) + ") = {...} with the contract.cuh of this version");
                continue;
            }
            check_cu(cu().cuMemcpyDtoH(&slots[i], ptr, sizeof(ak_stage)), "reading " + symbol + " (cuMemcpyDtoH)");
        }
        throw_if_problems(problems);
        throw_if_problems(sequence_problems(slots));

        // ---- entry points, then the full per-stage checks
        for (int i = 0; i < AK_MAX_STAGES; ++i) {
            const ak_stage& s = slots[i];
            const std::string name = kernel_symbol(i);
            CUfunction f = nullptr;
            const CUresult r = cu().cuModuleGetFunction(&f, module_, name.c_str());
            if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND) check_cu(r, "cuModuleGetFunction(" + name + ")");
            const bool found = r == CUDA_SUCCESS;
            if (s.kind == AK_STAGE_NONE) {
                if (found)
                    problems.push_back(name + " exists but " + launch_symbol(i) +
                                       " does not declare a stage: add AK_LAUNCH(" + std::to_string(i) + ") = {...}");
                continue;
            }
            stages_.push_back(s);
            if (s.kind != AK_STAGE_KERNEL) {
                auto p = stage_problems(s, i, device_, nullptr, element_bytes(dtype_), layout_.tma_count);
                problems.insert(problems.end(), p.begin(), p.end());
                continue;
            }
            if (!found) {
                problems.push_back(launch_symbol(i) + " declares a kernel stage, but the module has no entry point " + name +
                                   " (declare it extern \"C\" __global__ void " + name + "(const " +
                                   args_struct_name(adapter_.type()) + " args))");
                continue;
            }
            LoadedFunction lf;
            lf.stage = i;
            lf.name = name;
            lf.function = f;
            lf.limits.max_threads_per_block = function_attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, name);
            lf.limits.static_shared_bytes = function_attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, name);
            lf.limits.registers = function_attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, name);
            lf.limits.local_bytes = function_attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, name);
            auto p = stage_problems(s, i, device_, &lf.limits, element_bytes(dtype_), layout_.tma_count);
            problems.insert(problems.end(), p.begin(), p.end());

            // The single parameter must be the type's argument struct, by value.
            if (auto info = func_get_param_info()) {
                std::size_t offset = 0, size = 0;
                const CUresult r0 = info(f, 0, &offset, &size);
                if (r0 == CUDA_SUCCESS && size != layout_.size) {
                    problems.push_back(name + " takes a first parameter of " + std::to_string(size) + " bytes, but " +
                                       args_struct_name(adapter_.type()) + " is " + std::to_string(layout_.size) +
                                       " bytes: the kernel must take (const " + args_struct_name(adapter_.type()) +
                                       " args) by value as its only parameter");
                } else if (r0 == CUDA_ERROR_INVALID_VALUE) {
                    problems.push_back(name + " takes no parameter: it must take (const " +
                                       args_struct_name(adapter_.type()) + " args) by value");
                } else if (r0 == CUDA_SUCCESS && info(f, 1, &offset, &size) == CUDA_SUCCESS) {
                    problems.push_back(name + " takes more than one parameter: it must take (const " +
                                       args_struct_name(adapter_.type()) + " args) by value as its only parameter");
                } else if (r0 != CUDA_SUCCESS && r0 != CUDA_ERROR_INVALID_VALUE) {
                    check_cu(r0, "cuFuncGetParamInfo(" + name + ")");
                }
            }
            functions_.push_back(lf);
        }
        throw_if_problems(problems);

        // ---- function attributes the stages need
        for (const auto& lf : functions_) {
            const ak_stage& s = slots[lf.stage];
            if (s.dynamic_smem_bytes > 0)
                check_cu(cu().cuFuncSetAttribute(lf.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 s.dynamic_smem_bytes),
                         "cuFuncSetAttribute(" + lf.name + ", MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                             std::to_string(s.dynamic_smem_bytes) + ")");
            const long cluster_blocks = long(std::max(s.cluster_x, 1)) * std::max(s.cluster_y, 1) * std::max(s.cluster_z, 1);
            if (cluster_blocks > 8)
                check_cu(cu().cuFuncSetAttribute(lf.function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                         "cuFuncSetAttribute(" + lf.name + ", NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
        }
    } catch (...) {
        cu().cuModuleUnload(module_);
        module_ = nullptr;
        throw;
    }
}

CandidateModule::~CandidateModule() {
    // A module cannot be unloaded from a broken context; ignore the result (the worker exits then).
    if (module_) cu().cuModuleUnload(module_);
}

std::int64_t reserved_workspace_bytes(KernelType type, const Problem& p) {
    if (type != KernelType::FusedMlp) return 0;
    if (p.shape.dims.size() != 3) throw Error(ErrorKind::Usage, "fused_mlp shapes are M x D x F, got " + to_string(p.shape));
    const std::int64_t m = p.shape.dims[0], f = p.shape.dims[2];
    return 3 * m * f * std::int64_t(c10::elementSize(p.dtype));
}

WorkspaceLayout CandidateModule::workspace_layout(const Problem& p) const {
    WorkspaceLayout w;
    w.reserved = reserved_workspace_bytes(adapter_.type(), p);
    w.declared_offset = (w.reserved + 255) / 256 * 256;
    w.declared = eval::workspace_bytes(stages_, adapter_.rows(p));
    w.kept_zero = w.declared > 0 && workspace_kept_zero(stages_);
    return w;
}

std::string CandidateModule::describe() const {
    std::string out;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
        if (i) out += "; ";
        out += describe_stage(stages_[i], int(i));
    }
    return out;
}

PreparedLaunch CandidateModule::prepare(const Problem& p, const CaseTensors& t) const {
    PreparedLaunch launch;
    launch.problem = p;
    launch.tensors = t;
    const WorkspaceLayout ws = workspace_layout(p);
    if (ws.total() > 0) {
        if (!t.workspace.defined() || std::int64_t(t.workspace.nbytes()) < ws.total())
            throw Error(ErrorKind::Internal, "harness: the workspace of " +
                                                 std::to_string(t.workspace.defined() ? t.workspace.nbytes() : 0) +
                                                 " bytes is smaller than the " + std::to_string(ws.total()) +
                                                 " bytes the type and the stages need");
        if (ws.declared > 0 && !ws.kept_zero) {
            launch.zero_start = reinterpret_cast<CUdeviceptr>(t.workspace.data_ptr()) + CUdeviceptr(ws.declared_offset);
            launch.zero_bytes = std::size_t(ws.declared);
        }
    }
    const GridInputs sizes = grid_inputs(adapter_, p);
    std::size_t next_function = 0;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
        const ak_stage& s = stages_[i];
        PreparedLaunch::Step step;
        step.stage = int(i);
        step.kind = s.kind;
        step.library_op = s.library_op;
        if (s.kind == AK_STAGE_LIBRARY) {
            launch.steps.push_back(step);
            continue;
        }
        const LoadedFunction& lf = functions_.at(next_function++);
        step.function = lf.function;
        step.dims = launch_dims(s, int(i), sizes, device_);
        std::memset(step.args.data(), 0, step.args.size());
        adapter_.fill_args(step.args.data(), layout_.size, p, t);

        // TMA maps declared by this stage.
        for (int op = 0; op < 3 && op < layout_.tma_count; ++op) {
            const int box_rows = s.tma_box_rows[op], box_cols = s.tma_box_cols[op];
            if (box_rows == 0 && box_cols == 0) continue;
            const std::string what = launch_symbol(int(i)) + " TMA operand " + std::to_string(op);
            void* base = nullptr;
            std::int64_t rows = 0, cols = 0;
            if (!adapter_.tma_operand(op, p, t, &base, &rows, &cols))
                throw LaunchError(what + ": the " + std::string(to_string(adapter_.type())) +
                                  " adapter offers no tensor for this operand");
            const std::int64_t row_bytes = cols * element_bytes(dtype_);
            // No TMA map can describe rows whose pitch is not a multiple of 16 bytes (edge sizes such as
            // K = 4097) or a misaligned base: the map stays all zero and the kernel takes its non-TMA
            // path (it can tell from the sizes: cols * sizeof(ak_t) % 16 != 0).
            if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || row_bytes % 16 != 0) continue;
            cu().need(reinterpret_cast<const void*>(cu().cuTensorMapEncodeTiled), "cuTensorMapEncodeTiled");
            cuuint64_t global_dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
            cuuint64_t global_strides[1] = {cuuint64_t(row_bytes)};
            cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
            cuuint32_t element_strides[2] = {1, 1};
            auto* map = reinterpret_cast<CUtensorMap*>(step.args.data() + op * sizeof(CUtensorMap));
            const CUresult r = cu().cuTensorMapEncodeTiled(
                map, tma_data_type(dtype_), 2, base, global_dims, global_strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, tma_swizzle(s.tma_swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            if (r != CUDA_SUCCESS) {
                if (is_sticky_cuda_error(r)) check_cu(r, "cuTensorMapEncodeTiled");
                throw LaunchError(what + ": cuTensorMapEncodeTiled failed: " + describe_cu_result(r) + " (tensor " +
                                  std::to_string(rows) + "x" + std::to_string(cols) + ", box " + std::to_string(box_rows) +
                                  "x" + std::to_string(box_cols) + ", swizzle " + std::to_string(s.tma_swizzle) + ")");
            }
        }
        launch.steps.push_back(step);
    }
    return launch;
}

void CandidateModule::enqueue(const PreparedLaunch& launch, CUstream stream) const {
    if (launch.zero_bytes > 0)
        check_cu(cu().cuMemsetD8Async(launch.zero_start, 0, launch.zero_bytes, stream), "zeroing the workspace (cuMemsetD8Async)");
    for (const auto& step : launch.steps) {
        if (step.kind == AK_STAGE_LIBRARY) {
            try {
                adapter_.library_stage(step.library_op, launch.problem, launch.tensors);
            } catch (const StickyCudaError&) {
                throw;
            } catch (const Error& e) {
                throw LaunchError(launch_symbol(step.stage) + " (library op " + std::to_string(step.library_op) + "): " + e.what());
            }
            continue;
        }
        void* params[] = {const_cast<unsigned char*>(step.args.data())};
        const LaunchDims& d = step.dims;
        CUresult r;
        if (d.has_cluster) {
            cu().need(reinterpret_cast<const void*>(cu().cuLaunchKernelEx), "cuLaunchKernelEx");
            CUlaunchAttribute attribute{};
            attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attribute.value.clusterDim.x = d.cluster[0];
            attribute.value.clusterDim.y = d.cluster[1];
            attribute.value.clusterDim.z = d.cluster[2];
            CUlaunchConfig config{};
            config.gridDimX = d.grid[0];
            config.gridDimY = d.grid[1];
            config.gridDimZ = d.grid[2];
            config.blockDimX = d.block[0];
            config.blockDimY = d.block[1];
            config.blockDimZ = d.block[2];
            config.sharedMemBytes = unsigned(d.dynamic_smem_bytes);
            config.hStream = stream;
            config.attrs = &attribute;
            config.numAttrs = 1;
            r = cu().cuLaunchKernelEx(&config, step.function, params, nullptr);
        } else {
            r = cu().cuLaunchKernel(step.function, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2],
                                    unsigned(d.dynamic_smem_bytes), stream, params, nullptr);
        }
        if (r != CUDA_SUCCESS) {
            const std::string what = "launching " + kernel_symbol(step.stage) + " (grid " + dims_text(d.grid) + ", block " +
                                     dims_text(d.block) + (d.has_cluster ? ", cluster " + dims_text(d.cluster) : std::string()) +
                                     ", " + std::to_string(d.dynamic_smem_bytes) + " B dynamic smem)";
            if (is_sticky_cuda_error(r)) check_cu(r, what);
            throw LaunchError(what + " failed: " + describe_cu_result(r));
        }
    }
}

void CandidateModule::launch(const Problem& p, const CaseTensors& t, CUstream stream) const { enqueue(prepare(p, t), stream); }

}  // namespace ak::eval
