#pragma once
// Which cases the five correctness stages run, and the seed of each. Pure C++ (no LibTorch).
//
//   1 smoke        the type's smoke shape, every requested dtype
//   2 sweep        the correctness shapes (the request's, else the type's sweep set) x every dtype,
//                  plus every timed shape in the timing dtype (a kernel is never timed at a shape
//                  where it was not checked)
//   3 adversarial  hard-but-finite inputs (InputKind::Adversarial) on the first two correctness
//                  shapes x every dtype
//   4 determinism  run 3 times on identical inputs, the outputs bitwise identical: the largest
//                  correctness shape x every dtype, plus in the timing dtype the smoke shape (a small
//                  grid) and the largest timing shape (a race that only shows on large grids or long
//                  rows is caught where the kernel is timed)
//   5 edge         the type's edge sizes (not powers of two; short rows of 1, 2, 7, 33, 63, 127
//                  columns and odd row counts for the row types) x every dtype
// Every case draws fresh inputs from its own seed: case_seed(request seed, stage, case index).
#include "engine/evaluation_protocol.h"
#include "engine/kernel_type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ak::eval {

struct CheckCase {
    CheckStage stage = CheckStage::Smoke;
    Shape shape;
    DType dtype = DType::fp16;
    bool adversarial = false;
    int runs = 1;            // 3 in the determinism stage
    int index = 0;           // position within its stage
    std::uint64_t seed = 0;  // case_seed(base, stage, index)
};

struct CheckPlanInput {
    KernelType type = KernelType::Softmax;
    std::vector<DType> dtypes;               // correctness dtypes (kernel dtypes only)
    std::vector<Shape> correctness_shapes;   // empty: the type's sweep set
    std::vector<Shape> timing_shapes;        // checked in the sweep stage in timing_dtype
    DType timing_dtype = DType::fp16;
    std::uint64_t seed = 1;
};

// The cases in the order they run. Throws Error(Usage) for an empty dtype list or a dtype kernels
// are not compiled in.
std::vector<CheckCase> plan_checks(const CheckPlanInput& input);

// The cheaper plan a reference candidate (the loop's current best, re-timed beside the candidate) gets
// before it is timed: the smoke shape and every timing shape, in the timing dtype.
std::vector<CheckCase> plan_reference_checks(const CheckPlanInput& input);

// A well-mixed 64-bit seed (splitmix64 finaliser) from the request seed, the stage and the case index;
// never 0.
std::uint64_t case_seed(std::uint64_t base, CheckStage stage, int index);

// A random non-zero seed (std::random_device) for requests without one.
std::uint64_t random_seed();

// "[3, 17]" for flat index 3 * cols + 17 in `shape`; "[0]" for a scalar (empty shape).
std::string index_text(std::int64_t flat_index, const std::vector<std::int64_t>& shape);

// Number of elements of `shape` (product of its dims; attention's causal flag is not a dim, so callers
// pass real tensor shapes here).
std::int64_t element_count(const std::vector<std::int64_t>& shape);

}  // namespace ak::eval
