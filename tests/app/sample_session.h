#pragma once
// A small real session for the app tests, recorded through the ak::Session API:
//
//   #0 rmsnorm  baseline   BLOCK 256, VEC 1
//   #1 softmax  baseline
//   #2 rmsnorm  kept       BLOCK 256 -> 512          speed-up 1.40
//   #3 rmsnorm  reverted   adds #pragma unroll 4     speed-up 1.35
//   #4 softmax  failed     FAIL (max |err| 3.1e-2)
//   #5 rmsnorm  kept       VEC 1 -> 4                speed-up 2.10   <- the best kept experiment
//   #6 softmax  kept       online softmax            speed-up 1.20
//
// #2 and #5 carry per-shape timing trailers (4096x4096 and 4096x8192 bf16, see rmsnormTimings in the
// .cpp); the others were recorded without them ("not recorded").
//
// recordExtra() appends one more (what the live-follow test's "other process" does).
#include "session/experiment.h"

#include <QString>

#include <filesystem>
#include <string>

namespace ak::test {

inline constexpr int kSampleExperimentCount = 7;
inline constexpr int kBestKeptExperiment = 5;

std::string rmsnormSource(int block, int vec, bool unroll);
std::string softmaxSource(bool online);

// Creates the session in `dir` (which must not exist or be empty).
void createSampleSession(const std::filesystem::path& dir);

// Records experiment number kSampleExperimentCount + k (rmsnorm, reverted) with a writable Session.
ak::Experiment recordExtra(const std::filesystem::path& dir, int k);

// A folder with session.json and an initialised git repository but no experiment at all.
void createEmptySession(const std::filesystem::path& dir);

// Overwrites field `field` (0-based column) of line `lineNumber` (1-based, header = line 1) of
// results.tsv with raw bytes `value`.
void setResultsField(const std::filesystem::path& dir, int lineNumber, int field, const std::string& value);

inline std::filesystem::path toPath(const QString& dir) { return std::filesystem::path(dir.toStdString()); }

}  // namespace ak::test
