#pragma once
// ceilings.json in a session folder: the GPU's measured copy and GEMM ceilings, in the format
// `autokernel ceilings --json` prints (engine/evaluation_protocol encode_ceilings), so
//
//   autokernel ceilings --json > <session>/ceilings.json
//
// on the session's GPU gives the GUI's roofline measured roofs when the open profile has none. Not
// committed (like results.tsv and verify.json): it describes the machine, not an experiment.
// Qt-free, LibTorch-free (the GUI reads it).
#include "analysis/measured_ceilings.h"

#include <filesystem>
#include <optional>

namespace ak {

std::filesystem::path session_ceilings_path(const std::filesystem::path& session_dir);

// nullopt when the session has no ceilings.json. Throws Error(BadFormat) naming the file and the field
// for one that cannot be read as ceilings, Error(Io) when it cannot be read at all.
std::optional<MeasuredCeilings> read_session_ceilings(const std::filesystem::path& session_dir);

}  // namespace ak
