#include "engine/evaluator/worker.h"

#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/evaluation.h"
#include "engine/evaluator/gpu_session.h"
#include "engine/evaluator/verify_run.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>
#include <unistd.h>

namespace ak::eval {

namespace {

// LibTorch messages carry a C++ backtrace; keep the first line(s) that say what happened.
std::string torch_message(const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    const auto cut = msg.find("\nException raised from");
    if (cut != std::string::npos) msg.resize(cut);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return msg;
}

std::string format_number(double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

}  // namespace

EvaluationResult crash_result(std::uint64_t id, std::string detail, bool exiting) {
    EvaluationResult r;
    r.id = id;
    r.verdict = Verdict::Crash;
    r.detail = std::move(detail);
    r.worker_exiting = exiting;
    r.worker_pid = int(::getpid());
    return r;
}

Worker::Worker() {
    if (!disable_tf32()) std::cerr << "autokernel-evaluator: warning: LibTorch still reports TF32 enabled\n";
    try {
        gpu_ = std::make_unique<GpuSession>(0);
    } catch (const StickyCudaError& e) {
        no_gpu_reason_ = std::string("no GPU: the CUDA context failed at start-up: ") + e.what();
    } catch (const c10::Error& e) {
        no_gpu_reason_ = "no GPU: LibTorch could not initialise CUDA: " + torch_message(e);
    } catch (const std::exception& e) {
        no_gpu_reason_ = e.what();
        if (no_gpu_reason_.rfind("no GPU", 0) != 0) no_gpu_reason_ = "no GPU: " + no_gpu_reason_;
    }
    if (!gpu_) {
        exit_code_ = 2;
        std::cerr << "autokernel-evaluator: " << no_gpu_reason_ << "\n";
    }
}

Worker::~Worker() = default;

EvaluationResult Worker::dispatch(const EvaluationRequest& req, const std::function<void(const ProgressEvent&)>& progress) {
    auto report = [&](const std::string& stage, const std::string& message) {
        if (progress) progress(ProgressEvent{req.id, stage, message});
    };
    EvaluationResult r;
    r.id = req.id;
    r.device = gpu_->description().name;
    switch (req.op) {
    case RequestOp::Ping:
        r.verdict = Verdict::Pass;
        r.detail = "ready: " + gpu_->description().name;
        return r;
    case RequestOp::Device:
        r.verdict = Verdict::Pass;
        r.device_info = gpu_->description();
        r.detail = gpu_->description().name + ", compute capability " + std::to_string(gpu_->description().cc_major) + "." +
                   std::to_string(gpu_->description().cc_minor) + ", " + std::to_string(gpu_->description().sm_count) + " SMs";
        return r;
    case RequestOp::Ceilings: {
        const auto& c = gpu_->ceilings().measure_all([&](const std::string& what) { report("ceilings", what); });
        r.verdict = Verdict::Pass;
        r.ceilings = c;
        std::string d;
        for (const auto& [bytes, gb_s] : c.copy_gb_s)
            d += (d.empty() ? "copy " : ", ") + format_number(double(bytes) / double(1 << 20), "%.0f") + " MiB " +
                 format_number(gb_s, "%.0f") + " GB/s";
        for (const auto& [dtype, tflops] : c.gemm_tflops)
            d += "; GEMM " + std::string(to_string(dtype)) + " " + format_number(tflops, "%.1f") + " TFLOP/s";
        r.detail = d + " (cached in " + gpu_->ceilings().cache_path().string() + ")";
        return r;
    }
    case RequestOp::Evaluate:
        return evaluate_request(req, *gpu_, report);
    case RequestOp::Verify:
        return verify_request(req, *gpu_, report);
    }
    throw Error(ErrorKind::Usage, "unknown op");
}

EvaluationResult Worker::handle(const EvaluationRequest& req, const std::function<void(const ProgressEvent&)>& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](EvaluationResult r) {
        r.id = req.id;
        r.worker_pid = int(::getpid());
        if (gpu_ && r.device.empty()) r.device = gpu_->description().name;
        if (r.wall_ms <= 0)
            r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return r;
    };
    if (!gpu_) return finish(crash_result(req.id, no_gpu_reason_, true));

    auto sticky = [&](const StickyCudaError& e) {
        exit_code_ = 3;
        return finish(crash_result(req.id, std::string("CUDA error ") + e.what(), true));
    };
    // After an unexpected failure: is the context still usable? If not, this is a sticky error.
    auto after_failure = [&](std::string detail) {
        try {
            require_healthy_context("the request after: " + detail);
        } catch (const StickyCudaError& e) {
            return sticky(e);
        }
        return finish(crash_result(req.id, std::move(detail), false));
    };

    try {
        return finish(dispatch(req, progress));
    } catch (const StickyCudaError& e) {
        return sticky(e);
    } catch (const c10::OutOfMemoryError& e) {
        c10::cuda::CUDACachingAllocator::emptyCache();
        return after_failure("out of memory: " + torch_message(e));
    } catch (const c10::Error& e) {
        return after_failure("LibTorch error: " + torch_message(e));
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Usage) return after_failure(std::string(e.what()).rfind("bad request", 0) == 0 ? e.what() : std::string("bad request: ") + e.what());
        return after_failure(e.what());
    } catch (const std::bad_alloc&) {
        return after_failure("out of host memory");
    } catch (const std::exception& e) {
        return after_failure(std::string("internal error: ") + e.what());
    }
}

}  // namespace ak::eval
