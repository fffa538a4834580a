#include "session/shape_timing.h"

#include "session/bundled_session.h"
#include "session/commit_trailers.h"
#include "session/session.h"
#include "test_support.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ak;
using namespace ak::testing;

namespace {

ShapeTiming rms_4k() {
    ShapeTiming t;
    t.shape = "4096x4096";
    t.dtype = "fp16";
    t.median_us = 40.2;
    t.iqr_us = 0.31;
    t.samples = 200;
    t.baseline_name = "at::rms_norm";
    t.baseline_median_us = 57.2;
    t.baseline_iqr_us = 0.4;
    t.speedup = 57.2 / 40.2;
    t.gb_s = 3342.1;
    t.pct_peak = 69.6;
    t.pct_copy_ceiling = 90.5;
    t.bound = "memory";
    return t;
}

ShapeTiming flash_causal() {
    ShapeTiming t;
    t.shape = "2x32x1024x64 causal";  // a space inside the value
    t.dtype = "bf16";
    t.median_us = 118.0;
    t.baseline_name = "sdpa (cuDNN) 100%";  // space and percent sign
    t.baseline_median_us = 90.0;
    t.speedup = 90.0 / 118.0;
    t.tflops = 310.25;
    t.pct_gemm_ceiling = 48.0;
    t.bound = "compute";
    return t;
}

bool any_problem_contains(const RecordedTimings& r, const std::string& part) {
    return std::any_of(r.problems.begin(), r.problems.end(),
                       [&](const std::string& p) { return p.find(part) != std::string::npos; });
}

std::string all_problems(const RecordedTimings& r) {
    std::string text;
    for (const auto& p : r.problems) text += p + "\n";
    return text;
}

}  // namespace

TEST(ShapeTiming, TrailersRoundTripEveryFieldIncludingSpacesAndPercentSigns) {
    const std::vector<ShapeTiming> shapes{rms_4k(), flash_causal()};
    const std::string trailers = format_timing_trailers(shapes);
    EXPECT_EQ(trailers.substr(0, trailers.find('\n')), "Autokernel-Timing-Shapes: 2");
    EXPECT_NE(trailers.find("shape=2x32x1024x64%20causal"), std::string::npos) << trailers;
    EXPECT_NE(trailers.find("baseline=sdpa%20(cuDNN)%20100%25"), std::string::npos) << trailers;
    const RecordedTimings back = parse_timing_trailers("exp 3 (rmsnorm): x\n\n" + trailers);
    EXPECT_TRUE(back.recorded);
    EXPECT_TRUE(back.problems.empty()) << all_problems(back);
    ASSERT_EQ(back.shapes.size(), 2u);
    EXPECT_EQ(back.shapes[0], shapes[0]);
    EXPECT_EQ(back.shapes[1], shapes[1]);
}

TEST(ShapeTiming, EmptyListIsRecordedWithNoShapes) {
    const RecordedTimings back = parse_timing_trailers(format_timing_trailers({}));
    EXPECT_TRUE(back.recorded);
    EXPECT_TRUE(back.shapes.empty());
    EXPECT_TRUE(back.problems.empty()) << all_problems(back);
}

TEST(ShapeTiming, MessageWithoutTrailersIsNotRecorded) {
    Experiment e;
    e.kernel_type = "rmsnorm";
    e.commit = std::string(40, 'c');
    const RecordedTimings back = parse_timing_trailers(format_experiment_message(e));
    EXPECT_FALSE(back.recorded);
    EXPECT_TRUE(back.shapes.empty());
    EXPECT_TRUE(back.problems.empty());
    EXPECT_FALSE(parse_timing_trailers("").recorded);
}

TEST(ShapeTiming, ExperimentTrailersStillParseWithTimingTrailersAppended) {
    Experiment e;
    e.kernel_type = "rmsnorm";
    e.latency_us = 40.2;
    e.commit = std::string(40, 'c');
    const std::string message = format_experiment_message(e) + format_timing_trailers({rms_4k()});
    EXPECT_EQ(parse_experiment_message(message, e.commit), e);
}

TEST(ShapeTiming, MalformedNumberIsReportedAndTheRestOfTheLineKept) {
    std::string message = format_timing_trailers({rms_4k()});
    message.replace(message.find("us=40.2"), 7, "us=fast");
    const RecordedTimings back = parse_timing_trailers(message);
    ASSERT_EQ(back.shapes.size(), 1u);
    EXPECT_FALSE(back.shapes[0].median_us);
    EXPECT_EQ(back.shapes[0].baseline_median_us, 57.2);
    EXPECT_TRUE(any_problem_contains(back, "us=fast is not a number")) << all_problems(back);
    EXPECT_TRUE(any_problem_contains(back, "Autokernel-Timing line 1")) << all_problems(back);
}

TEST(ShapeTiming, LineWithoutShapeIsSkippedAndCountMismatchReported) {
    const std::string message = format_timing_trailers({rms_4k(), flash_causal()});
    std::string damaged = message;
    damaged.replace(damaged.find("shape=4096x4096 "), 16, "");
    RecordedTimings back = parse_timing_trailers(damaged);
    ASSERT_EQ(back.shapes.size(), 1u);
    EXPECT_EQ(back.shapes[0].shape, "2x32x1024x64 causal");
    EXPECT_TRUE(any_problem_contains(back, "has no shape")) << all_problems(back);

    // A truncated message: the second line is gone.
    const std::string truncated = message.substr(0, message.rfind("Autokernel-Timing:"));
    back = parse_timing_trailers(truncated);
    EXPECT_EQ(back.shapes.size(), 1u);
    EXPECT_TRUE(any_problem_contains(back, "says 2 but 1")) << all_problems(back);
}

TEST(ShapeTiming, BrokenEscapesBadCountsAndGarbageNeverThrow) {
    for (const std::string& message :
         {std::string("Autokernel-Timing-Shapes: many\n"), std::string("Autokernel-Timing: shape=4%G dtype=fp16\n"),
          std::string("Autokernel-Timing: shape=4096% dtype=fp16\n"), std::string("Autokernel-Timing: ==== x y\n"),
          std::string("Autokernel-Timing:\n"), std::string("Autokernel-Timing-Shapes: -3\n"),
          std::string("Autokernel-Timing: shape=a dtype=fp16 samples=-1\n"), std::string("\xff\xfe:\x01")}) {
        RecordedTimings back;
        EXPECT_NO_THROW(back = parse_timing_trailers(message)) << message;
        if (message.find("Autokernel-") != std::string::npos) {
            EXPECT_TRUE(back.recorded) << message;
            EXPECT_FALSE(back.problems.empty()) << message;
        }
    }
    const RecordedTimings missing_count = parse_timing_trailers("Autokernel-Timing: shape=1x1 dtype=fp32 us=1\n");
    EXPECT_TRUE(missing_count.recorded);
    EXPECT_EQ(missing_count.shapes.size(), 1u);
    EXPECT_TRUE(any_problem_contains(missing_count, "Autokernel-Timing-Shapes is missing")) << all_problems(missing_count);
}

TEST(ShapeTiming, UnknownKeysFromANewerVersionAreIgnored) {
    const RecordedTimings back =
        parse_timing_trailers("Autokernel-Timing-Shapes: 1\nAutokernel-Timing: shape=8x8 dtype=fp16 us=2 energy_j=0.1\n");
    ASSERT_EQ(back.shapes.size(), 1u);
    EXPECT_EQ(back.shapes[0].median_us, 2.0);
    EXPECT_TRUE(back.problems.empty()) << all_problems(back);
}

TEST(ShapeTiming, SessionRecordsTimingsInTheCommitAndReadsThemBack) {
    TempDir dir;
    Session s = Session::create(dir / "s", test_info(), {{kernel_entry("rms", "rmsnorm"), source_for("rms", 0)}});
    NewExperiment timed = new_experiment("rms", source_for("rms", 1), Outcome::Kept, 40.2, "timed");
    timed.timings = std::vector<ShapeTiming>{rms_4k(), flash_causal()};
    const Experiment a = s.record(timed);
    NewExperiment failed = new_experiment("rms", source_for("rms", 2), Outcome::Failed, std::nullopt, "failed");
    failed.timings = std::vector<ShapeTiming>{};
    const Experiment b = s.record(failed);
    const Experiment c = s.record(new_experiment("rms", source_for("rms", 3), Outcome::Reverted, 41.0, "no timings"));

    const Session reopened = Session::open(dir / "s", {.read_only = true});
    const auto& all = reopened.experiments();
    ASSERT_EQ(all.size(), 4u);
    const RecordedTimings ta = reopened.timings_of(all[static_cast<std::size_t>(a.number)]);
    EXPECT_TRUE(ta.recorded);
    ASSERT_EQ(ta.shapes.size(), 2u);
    EXPECT_EQ(ta.shapes[0], rms_4k());
    EXPECT_EQ(ta.shapes[1], flash_causal());
    const RecordedTimings tb = reopened.timings_of(all[static_cast<std::size_t>(b.number)]);
    EXPECT_TRUE(tb.recorded);
    EXPECT_TRUE(tb.shapes.empty());
    EXPECT_FALSE(reopened.timings_of(all[static_cast<std::size_t>(c.number)]).recorded);
    EXPECT_FALSE(reopened.timings_of(all[0]).recorded) << "the baseline of create() carries no timings";
    // The results.tsv rows are unchanged by the trailers, and repair rebuilds them identically.
    EXPECT_EQ(all[static_cast<std::size_t>(a.number)].latency_us, 40.2);
    Experiment missing = all[0];
    missing.commit = std::string(40, 'e');
    EXPECT_THROW((void)reopened.timings_of(missing), Error);
}

// The bundled demo was recorded before these trailers existed: every commit reads cleanly (today as
// "not recorded"), none throws.
TEST(ShapeTiming, DemoSessionCommitsReadWithoutProblems) {
    TempDir cache;
    const auto dir = materialize_bundled_session(AK_DEMO_SESSION_DIR, cache.path());
    const Session demo = Session::open(dir, {.read_only = true});
    ASSERT_FALSE(demo.experiments().empty());
    for (std::size_t i = 0; i < demo.experiments().size(); i += 37) {
        RecordedTimings t;
        EXPECT_NO_THROW(t = demo.timings_of(demo.experiments()[i])) << "experiment " << i;
        EXPECT_TRUE(t.problems.empty()) << "experiment " << i << ": " << all_problems(t);
    }
}
