#include "profiler/torch_routes.h"

#include "models/model_zoo.h"
#include "profiler/cupti_activity.h"
#include "profiler/op_recorder.h"
#include "profiler/origin_info.h"
#include "profiler/profile_assembly.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/headeronly/version.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <sys/stat.h>
#include <functional>
#include <iostream>

namespace ak::profiler {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

at::ScalarType scalar_type(const std::string& dtype) {
    if (dtype == "fp16") return at::kHalf;
    if (dtype == "bf16") return at::kBFloat16;
    if (dtype == "fp32") return at::kFloat;
    if (dtype == "fp64") return at::kDouble;
    if (dtype == "int64") return at::kLong;
    if (dtype == "int32") return at::kInt;
    if (dtype == "int8") return at::kChar;
    if (dtype == "uint8") return at::kByte;
    if (dtype == "bool") return at::kBool;
    throw Error(ErrorKind::Usage, "unknown dtype '" + dtype + "'");
}

// The message of a LibTorch exception without its C++ backtrace.
std::string torch_message(const std::exception& e) {
    if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
    return e.what();
}

// RecordFunction callbacks belong to start-up, before any op runs; registered disabled, they cost nothing.
void install_recorder(bool torchscript_modules) { OpRecorder::install(torchscript_modules); }

void require_torch_gpu() {
    require_gpu_driver();
    if (!at::hasCUDA() || c10::cuda::device_count() < 1)
        throw Error(ErrorKind::Gpu, "no GPU: LibTorch cannot use CUDA here (the CUDA runtime found no usable device)");
}

// Warm-up, unprofiled iterations (the overhead's baseline), then the measured iterations with CUPTI and
// the op recorder on, each bracketed by CUDA events and the host clock.
profile::Profile measure(const std::function<void()>& step, const ProfilerOptions& o, profile::Origin origin) {
    const auto sync = [] { c10::cuda::device_synchronize(); };
    for (int i = 0; i < o.warmup; ++i) {
        step();
        sync();
    }
    std::vector<double> unprofiled;
    for (int i = 0; i < o.iterations; ++i) {
        const auto t0 = Clock::now();
        step();
        sync();
        unprofiled.push_back(ms_between(t0, Clock::now()));
    }

    const InputCapture inputs = input_capture_from_environment();
    CuptiActivity::start(attribution_from_environment());
    // One profiled iteration whose kernels are not kept: CUPTI's and the callbacks' first-use costs. With
    // InputCapture::Once its ops, recorded with their inputs, are the template of the measured iterations.
    (void)OpRecorder::take();
    OpRecorder::set_iteration(inputs == InputCapture::Once ? o.iterations : -1);
    OpRecorder::enable(inputs != InputCapture::None);
    step();
    sync();
    OpRecorder::set_iteration(-1);
    CuptiActivity::flush();
    (void)CuptiActivity::take();
    const std::vector<profile::OpCall> template_ops = OpRecorder::take();
    OpRecorder::enable(inputs == InputCapture::Every);

    std::vector<IterationWindow> windows;
    std::vector<double> profiled;
    const auto stream = at::cuda::getCurrentCUDAStream();
    for (int i = 0; i < o.iterations; ++i) {
        at::cuda::CUDAEvent begin(cudaEventDefault), end(cudaEventDefault);
        IterationWindow w;
        w.index = i;
        OpRecorder::set_iteration(i);
        w.begin_ns = CuptiActivity::timestamp_ns();
        const auto t0 = Clock::now();
        begin.record(stream);
        step();
        end.record(stream);
        sync();
        w.wall_ms = ms_between(t0, Clock::now());
        w.end_ns = CuptiActivity::timestamp_ns();
        OpRecorder::set_iteration(-1);
        w.event_ms = begin.elapsed_time(end);
        profiled.push_back(w.wall_ms);
        windows.push_back(w);
    }
    OpRecorder::disable();
    CuptiActivity::stop();

    profile::Profile p;
    origin.warmup_iterations = o.warmup;
    origin.measured_iterations = o.iterations;
    origin.torch_version = TORCH_VERSION;
    fill_machine_facts(origin);
    p.origin = std::move(origin);
    ActivityData data = CuptiActivity::take();
    std::vector<profile::OpCall> ops = OpRecorder::take();
    int unmatched = 0;
    if (inputs == InputCapture::Once) unmatched = copy_template_inputs(ops, template_ops);
    std::cerr << "autokernel-profiler: CUPTI delivered " << data.kernels.size() << " kernels, " << data.memory.size()
              << " memory records, " << data.op_of_correlation.size() << " op correlations (" << data.dropped
              << " dropped); " << ops.size() << " op calls recorded\n";
    assemble_profile(p, std::move(data), std::move(ops), windows);
    p.overhead = profile::Overhead{median(profiled), median(unprofiled)};
    // profile.json keeps the medians; the spread of both goes to the log.
    const auto spread = [](const std::vector<double>& v) {
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        return std::to_string(median(v)) + " ms (" + std::to_string(*lo) + "-" + std::to_string(*hi) + ")";
    };
    std::cerr << "autokernel-profiler: iteration wall time, median (min-max) of " << o.iterations << ": unprofiled "
              << spread(unprofiled) << ", profiled " << spread(profiled) << "\n";
    if (p.kernels.empty()) p.warnings.push_back("no kernel was recorded in the measured iterations");
    if (unmatched > 0)
        p.warnings.push_back(std::to_string(unmatched) + " measured iteration(s) ran other ops than the one whose inputs were "
                                                         "recorded; their ops carry no input shapes (AK_PROFILER_RECORD_INPUTS=every records them all)");
    return p;
}

}  // namespace

profile::Profile profile_builtin_model(const ProfilerOptions& o) {
    require_torch_gpu();
    install_recorder(false);
    models::ModelOptions mo;
    mo.batch = o.batch;
    mo.seq = o.seq;
    mo.dtype = scalar_type(o.dtype);
    mo.mode = o.mode == "training" ? models::Mode::Training : models::Mode::Inference;
    mo.device = c10::Device(c10::kCUDA, 0);
    std::unique_ptr<models::Model> model;
    models::Batch batch;
    try {
        model = models::make_model(o.model, mo);
        batch = model->example_batch();
        c10::cuda::device_synchronize();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(ErrorKind::Gpu, "cannot build model " + o.model + " (batch " + std::to_string(o.batch) + ", seq " +
                                        std::to_string(o.seq) + ", " + o.dtype + "): " + torch_message(e));
    }
    std::cerr << "autokernel-profiler: " << o.model << " (" << model->parameter_count() / 1e6 << " M parameters), batch "
              << o.batch << ", seq " << o.seq << ", " << o.dtype << ", " << o.mode << "\n";
    const auto step = [&] { model->run_iteration(batch); };
    try {
        step();  // the first call reports shape and memory problems before anything is measured
        c10::cuda::device_synchronize();
    } catch (const std::exception& e) {
        throw Error(ErrorKind::Gpu, "model " + o.model + " failed: " + torch_message(e));
    }
    profile::Origin origin;
    origin.kind = profile::SourceKind::BuiltinModel;
    origin.model = o.model;
    origin.batch = o.batch;
    origin.seq = o.seq;
    origin.dtype = o.dtype;
    origin.mode = o.mode;
    return measure(step, o, origin);
}

profile::Profile profile_torchscript(const ProfilerOptions& o) {
    // stat, not std::filesystem: libtorch.so exports its own std::filesystem functions (command_route.cpp).
    struct stat st {};
    if (::stat(o.torchscript.c_str(), &st) != 0) throw Error(ErrorKind::NotFound, o.torchscript + ": no such file");
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::BadFormat, o.torchscript + " is not a regular file");
    torch::jit::Module module;
    try {
        module = torch::jit::load(o.torchscript, c10::Device(c10::kCPU));
    } catch (const std::exception& e) {
        std::string why = torch_message(e);
        if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
        throw Error(ErrorKind::BadFormat, o.torchscript + " is not a TorchScript file (torch::jit::load: " + why +
                                              "); save one with torch.jit.trace(model, inputs).save(path) or torch.jit.script");
    }
    require_torch_gpu();
    install_recorder(true);
    const c10::Device cuda(c10::kCUDA, 0);
    module.eval();
    module.to(cuda);
    if (o.dtype_given) module.to(scalar_type(o.dtype));
    std::vector<c10::IValue> inputs;
    std::string specs;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    for (const auto& spec : o.inputs) {
        const at::ScalarType t = scalar_type(spec.dtype);
        const auto cpu = at::TensorOptions().dtype(t);
        at::Tensor x;
        if (is_integer_dtype(spec.dtype))
            x = at::randint(spec.low, spec.high, spec.sizes, gen, cpu);
        else if (spec.dtype == "bool")
            x = at::randint(0, 2, spec.sizes, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
        else
            x = at::randn(spec.sizes, gen, at::TensorOptions().dtype(at::kFloat)).to(t);
        inputs.emplace_back(x.to(cuda));
        specs += (specs.empty() ? "" : " ") + spec.text;
    }
    const auto step = [&] {
        torch::NoGradGuard no_grad;
        module.forward(inputs);
    };
    try {
        step();
        c10::cuda::device_synchronize();
    } catch (const std::exception& e) {
        throw Error(ErrorKind::Usage, "the model in " + o.torchscript + " rejected the inputs " + specs + ":\n" + torch_message(e));
    }
    profile::Origin origin;
    origin.kind = profile::SourceKind::TorchScript;
    origin.model = o.torchscript;
    for (const auto& spec : o.inputs) origin.inputs.push_back(spec.text);
    origin.dtype = o.dtype_given ? o.dtype : "";
    origin.mode = "inference";
    return measure(step, o, origin);
}

}  // namespace ak::profiler
