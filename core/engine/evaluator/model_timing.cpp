#include "engine/evaluator/model_timing.h"

#include "engine/evaluator/cuda_check.h"
#include "engine/evaluator/timing.h"
#include "gpu/cuda_driver.h"
#include "util/error.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <array>
#include <memory>

namespace ak::eval {

namespace {

constexpr int kImpls = 3;  // unmodified, control (unmodified again), substituted

// The six orders of the three implementations; sample i runs them in order i % 6.
constexpr std::array<std::array<int, kImpls>, 6> kOrders{{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}};

CUstream current_stream() { return reinterpret_cast<CUstream>(at::cuda::getCurrentCUDAStream().stream()); }

VerifyLatency latency_of(const std::vector<double>& ms) {
    std::vector<double> us;
    us.reserve(ms.size());
    for (double v : ms) us.push_back(v * 1000.0);
    const TimingStats t = summarize(std::move(us));
    VerifyLatency l;
    l.median_ms = t.median_us / 1000.0;
    l.q1_ms = t.q1_us / 1000.0;
    l.q3_ms = t.q3_us / 1000.0;
    l.iqr_ms = t.iqr_us / 1000.0;
    l.samples = t.samples;
    return l;
}

struct Events {
    CUevent start = nullptr, end = nullptr;
    Events() {
        check_cu(cuda_driver().cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
        check_cu(cuda_driver().cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate");
    }
    ~Events() {
        cuda_driver().cuEventDestroy(start);
        cuda_driver().cuEventDestroy(end);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
};

// One implementation's way of running a pass in one mode.
using PassFn = std::function<void(int impl)>;

// Samples of every implementation, interleaved; returns milliseconds per pass, per implementation.
std::array<std::vector<double>, kImpls> interleave(const PassFn& pass, const ModelTimingCalls& calls, bool toggle_substitution,
                                                   int samples, int warmup, int passes, L2Flusher& flusher, const std::string& what) {
    Events ev;
    const auto& cu = cuda_driver();
    auto sample = [&](int impl) {
        if (toggle_substitution && calls.enter) calls.enter(impl);
        const CUstream s = current_stream();
        flusher.flush(s);
        check_cu(cu.cuStreamSynchronize(s), "cuStreamSynchronize before a sample (" + what + ")");
        check_cu(cu.cuEventRecord(ev.start, s), "cuEventRecord (" + what + ")");
        for (int p = 0; p < passes; ++p) pass(impl);
        check_cu(cu.cuEventRecord(ev.end, s), "cuEventRecord (" + what + ")");
        check_cu(cu.cuEventSynchronize(ev.end), what);
        if (toggle_substitution && calls.leave) calls.leave();
        float ms = 0;
        check_cu(cu.event_elapsed_ms(&ms, ev.start, ev.end), "cuEventElapsedTime (" + what + ")");
        return double(ms) / double(passes);
    };
    for (int w = 0; w < warmup; ++w)
        for (int impl : kOrders[std::size_t(w) % kOrders.size()]) (void)sample(impl);
    std::array<std::vector<double>, kImpls> out;
    for (int i = 0; i < samples; ++i)
        for (int impl : kOrders[std::size_t(i) % kOrders.size()]) out[std::size_t(impl)].push_back(sample(impl));
    return out;
}

VerifyTiming summarise(const std::string& mode, int passes, const std::array<std::vector<double>, kImpls>& ms) {
    VerifyTiming t;
    t.mode = mode;
    t.measured = true;
    t.passes_per_sample = passes;
    t.unmodified = latency_of(ms[0]);
    t.control = latency_of(ms[1]);
    t.substituted = latency_of(ms[2]);
    t.control_ratio = paired_ratio(ms[0], ms[1]);
    t.speedup = paired_ratio(ms[0], ms[2]);
    return t;
}

// One probe sample of impl 0 with one pass: the pass time that chooses the passes per sample.
double probe_ms(const PassFn& pass, const ModelTimingCalls& calls, bool toggle, L2Flusher& flusher) {
    auto one = interleave(pass, calls, toggle, 1, 0, 1, flusher, "probe");
    return one[0].front();
}

std::string first_line(std::string s) {
    if (auto cut = s.find('\n'); cut != std::string::npos) s.resize(cut);
    return s;
}

// Ends a capture left open by an exception on the current stream, so the stream works again.
void abandon_capture() {
    cudaStream_t s = at::cuda::getCurrentCUDAStream().stream();
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
        cudaGraph_t g = nullptr;
        (void)cudaStreamEndCapture(s, &g);
        if (g) (void)cudaGraphDestroy(g);
    }
    (void)cudaGetLastError();
}

// One mode's measurement: passes per sample from a probe, then the interleaved samples, summarised.
// `toggle_substitution`: the pass runs eagerly, so substitution is switched per model (graphs carry it).
VerifyTiming timed_interleaved(const std::string& mode, const std::string& what, const PassFn& pass, bool toggle_substitution,
                               const ModelTimingCalls& calls, const ModelTimingPlan& plan, L2Flusher& flusher) {
    const int passes = verify_passes_per_sample(probe_ms(pass, calls, toggle_substitution, flusher), plan.target_sample_ms,
                                                plan.passes_per_sample);
    if (calls.progress)
        calls.progress("timing " + what + ": " + std::to_string(plan.samples) + " samples of " + std::to_string(passes) +
                       " passes per model, interleaved");
    const auto ms = interleave(pass, calls, toggle_substitution, plan.samples, plan.warmup, passes, flusher, "verify " + what);
    return summarise(mode, passes, ms);
}

VerifyTiming graph_timing(const ModelTimingCalls& calls, const ModelTimingPlan& plan, L2Flusher& flusher) {
    VerifyTiming failed;
    failed.mode = "graph";
    // Capture needs a stream other than the legacy default one; ATen's kernels and ours follow the guard.
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false);
    c10::cuda::CUDAStreamGuard guard(side);
    std::array<std::unique_ptr<at::cuda::CUDAGraph>, kImpls> graphs;
    for (int impl = 0; impl < kImpls; ++impl) {
        const char* name = impl == 0 ? "unmodified" : impl == 1 ? "control (unmodified again)" : "with our kernels";
        if (calls.progress) calls.progress(std::string("capturing the forward pass in a CUDA graph: ") + name);
        try {
            if (calls.enter) calls.enter(impl);
            // One eager pass on this stream first: cuBLAS workspaces, lazily loaded modules, cached weights.
            calls.forward(impl);
            check_cu(cuda_driver().cuStreamSynchronize(current_stream()), "cuStreamSynchronize before a capture");
            auto g = std::make_unique<at::cuda::CUDAGraph>();
            g->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
            try {
                calls.forward(impl);
                g->capture_end();
            } catch (...) {
                abandon_capture();
                throw;
            }
            if (calls.leave) calls.leave();
            graphs[std::size_t(impl)] = std::move(g);
        } catch (const c10::Error& e) {
            if (calls.leave) calls.leave();
            failed.reason = std::string("capturing the ") + name + " forward pass failed: " + first_line(e.what_without_backtrace());
            return failed;
        } catch (const StickyCudaError&) {
            throw;
        } catch (const std::exception& e) {
            if (calls.leave) calls.leave();
            failed.reason = std::string("capturing the ") + name + " forward pass failed: " + first_line(e.what());
            return failed;
        }
    }
    const PassFn replay = [&](int impl) { graphs[std::size_t(impl)]->replay(); };
    return timed_interleaved("graph", "graph replays", replay, false, calls, plan, flusher);
}

VerifyTiming eager_timing(const ModelTimingCalls& calls, const ModelTimingPlan& plan, L2Flusher& flusher) {
    const PassFn pass = [&](int impl) { calls.forward(impl); };
    return timed_interleaved("eager", "eager passes", pass, true, calls, plan, flusher);
}

}  // namespace

std::vector<VerifyTiming> time_model_passes(const ModelTimingCalls& calls, const ModelTimingPlan& plan, L2Flusher& flusher) {
    if (!calls.forward) throw Error(ErrorKind::Internal, "model timing without a forward pass");
    std::vector<VerifyTiming> out;
    if (plan.graphs) {
        out.push_back(graph_timing(calls, plan, flusher));
    } else {
        VerifyTiming off;
        off.mode = "graph";
        off.reason = "not requested (--no-graphs)";
        out.push_back(off);
    }
    out.push_back(eager_timing(calls, plan, flusher));
    return out;
}

}  // namespace ak::eval
