// Writes tests/fixtures/profile/gpt2-synthetic.json (the synthetic GPT-2 profile) to the path given,
// and, with --kernels N, a profile of N kernels (the GUI's and the reader's size benchmarks).
#include "profile/profile_json.h"
#include "synthetic_profile.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unordered_map>

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--read") {  // times reading a profile
        const auto start = std::chrono::steady_clock::now();
        const ak::profile::Profile p = ak::profile::read_profile_json(argv[2]);
        const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::cout << "read " << p.kernels.size() << " kernels, " << p.ops.size() << " ops in " << ms << " ms\n";
        return 0;
    }
    if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--kernels")) {
        std::cerr << "usage: make_profile_fixture OUT.json [--kernels N] | --read FILE.json\n";
        return 64;
    }
    ak::profile::Profile p = ak::profile::testing::synthetic_gpt2_profile();
    if (argc == 4) {
        // Repeat the measured iterations until there are N kernels (shifting the timestamps).
        const std::size_t n = std::strtoull(argv[3], nullptr, 10);
        const ak::profile::Profile one = p;
        const std::uint64_t span = one.iterations.back().gpu_end_ns - one.iterations.front().gpu_start_ns + 400000;
        std::uint64_t next_id = one.ops.back().id + 1;
        for (int round = 1; p.kernels.size() < n; ++round) {
            std::unordered_map<std::uint64_t, std::uint64_t> ids;
            for (ak::profile::OpCall op : one.ops) {
                ids[op.id] = next_id;
                op.id = next_id++;
                p.ops.push_back(std::move(op));
            }
            for (ak::profile::KernelRecord k : one.kernels) {
                if (p.kernels.size() >= n) break;
                k.start_ns += span * round;
                k.end_ns += span * round;
                k.op_id = ids.at(*k.op_id);
                p.kernels.push_back(std::move(k));
            }
        }
        p.iterations.clear();
        p.memory.clear();
    }
    ak::profile::write_profile_json(p, argv[1]);
    std::cout << "wrote " << argv[1] << ": " << p.kernels.size() << " kernels, " << p.ops.size() << " ops\n";
    return 0;
}
