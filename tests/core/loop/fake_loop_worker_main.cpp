// A stand-in for autokernel-evaluator for `autokernel run` tests on machines without a GPU: it speaks
// the evaluation protocol and "measures" candidates from their comment lines, like the tests'
// ScriptedEvaluator (loop_test_support.h). Sources without such lines (the shipped starters) pass at
// 100 us. AK_FAKE_DELAY_MS makes every evaluation take that long.
#include "engine/evaluation_protocol.h"
#include "loop_test_support.h"

#include <cstdlib>
#include <iostream>
#include <string>

int main() {
    ak::testing::ScriptedEvaluator evaluator;
    if (const char* d = std::getenv("AK_FAKE_DELAY_MS"))
        evaluator.set_delay(std::chrono::milliseconds(ak::parse_int(d).value_or(0)));
    std::string line;
    while (std::getline(std::cin, line)) {
        const ak::EvaluationRequest request = ak::decode_request(line);
        ak::EvaluationResult result;
        if (request.op == ak::RequestOp::Evaluate) {
            result = evaluator.evaluate(request);
        } else {
            result.verdict = ak::Verdict::Pass;
            result.device = "fake GPU";
        }
        result.id = request.id;
        std::cout << ak::encode_result(result) << '\n' << std::flush;
    }
    return 0;
}
