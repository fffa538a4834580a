// The bundled demo session (resources/demo-session, recorded on an H200) opens as an ordinary session
// once materialized, with every experiment reachable in git.
#include "session/bundled_session.h"
#include "session/session.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const char* name) {
    const fs::path d = fs::temp_directory_path() / (std::string(name) + "-" + std::to_string(std::random_device{}()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(BundledSession, TheDemoSessionMaterializesAndOpensWithEveryExperimentInGit) {
    const fs::path bundle = AK_DEMO_SESSION_DIR;
    ASSERT_TRUE(ak::is_bundled_session(bundle)) << bundle;
    const fs::path cache = fresh_dir("ak-bundle-cache");
    const fs::path copy = ak::materialize_bundled_session(bundle, cache);
    EXPECT_TRUE(fs::is_directory(copy / ".git"));
    EXPECT_FALSE(fs::exists(copy / "dot-git"));

    const ak::Session s = ak::Session::open(copy, ak::OpenOptions{.read_only = true});
    ASSERT_GE(s.experiments().size(), 100u);
    EXPECT_EQ(s.info().gpu, "NVIDIA H200");
    int kept = 0;
    for (const ak::Experiment& e : s.experiments()) {
        EXPECT_EQ(e.number, &e - s.experiments().data());
        kept += e.outcome == ak::Outcome::Kept;
        // Every experiment's source is in git, kept or not.
        EXPECT_FALSE(s.source_of(e).empty()) << "experiment " << e.number;
    }
    EXPECT_GE(kept, 3);
    EXPECT_TRUE(s.warnings().empty()) << s.warnings().front();

    // A second call reuses the copy instead of copying again.
    EXPECT_EQ(ak::materialize_bundled_session(bundle, cache), copy);
    fs::remove_all(cache);
}

TEST(BundledSession, ABundleWithoutTheEmptyFoldersGitDoesNotTrackStillOpens) {
    // A clone of this repository has no empty folders: dot-git/refs is missing there.
    const fs::path work = fresh_dir("ak-bundle-clone");
    const fs::path bundle = work / "demo-session";
    fs::copy(AK_DEMO_SESSION_DIR, bundle, fs::copy_options::recursive);
    fs::remove_all(bundle / "dot-git" / "refs");
    ASSERT_FALSE(fs::exists(bundle / "dot-git" / "refs"));
    const fs::path copy = ak::materialize_bundled_session(bundle, work / "cache");
    EXPECT_GE(ak::Session::open(copy, ak::OpenOptions{.read_only = true}).experiments().size(), 100u);
    // A copy cached by an earlier version without those folders is mended when reused.
    fs::remove_all(copy / ".git" / "refs");
    EXPECT_EQ(ak::materialize_bundled_session(bundle, work / "cache"), copy);
    EXPECT_GE(ak::Session::open(copy, ak::OpenOptions{.read_only = true}).experiments().size(), 100u);
    fs::remove_all(work);
}

TEST(BundledSession, TheModelSessionHasEveryKernelOfItsProfileSearchedAndVerified) {
    // resources/model-session: llama-160m profiled, made into a session, searched and verified on an H200
    // (scripts/gpu-jobs/verify.sh, bundled with scripts/bundle-session.sh).
    const fs::path bundle = AK_MODEL_SESSION_DIR;
    if (!fs::exists(bundle)) GTEST_SKIP() << "this checkout has no " << bundle;
    ASSERT_TRUE(ak::is_bundled_session(bundle)) << bundle;
    EXPECT_TRUE(fs::is_regular_file(bundle / "profile.json"));
    EXPECT_TRUE(fs::is_regular_file(bundle / "verify.json"));
    const fs::path cache = fresh_dir("ak-model-bundle-cache");
    const ak::Session s = ak::Session::open(ak::materialize_bundled_session(bundle, cache),
                                            ak::OpenOptions{.read_only = true});
    ASSERT_TRUE(s.info().profile.has_value());
    EXPECT_EQ(s.info().gpu, "NVIDIA H200");
    EXPECT_EQ(s.info().gpu_compute_capability, "9.0");
    ASSERT_GE(s.info().kernels.size(), 5u);
    for (const ak::KernelEntry& k : s.info().kernels) {
        // Every kernel was timed in the loop: its starter measured and at least one more experiment.
        int timed = 0;
        for (const ak::Experiment& e : s.experiments())
            if (e.kernel_file == ak::Session::kernel_file_of(k.name) && e.latency_us) ++timed;
        EXPECT_GE(timed, 2) << k.name;
    }
    EXPECT_TRUE(s.warnings().empty()) << s.warnings().front();
    fs::remove_all(cache);
}

TEST(BundledSession, AFolderThatIsNotABundleIsRefusedByName) {
    const fs::path d = fresh_dir("ak-not-bundle");
    try {
        ak::materialize_bundled_session(d, d / "cache");
        FAIL() << "expected an error";
    } catch (const ak::Error& e) {
        EXPECT_EQ(e.kind(), ak::ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find(d.string()), std::string::npos) << e.what();
    }
    fs::remove_all(d);
}
