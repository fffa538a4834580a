#pragma once
// What the loop needs from the GPU engine: one evaluation (compile + five stages + timing).
// Production uses ClientEvaluator (a persistent child process); tests plug in a scripted evaluator.
#include "engine/evaluation_protocol.h"

#include <memory>

namespace ak {

class EvaluatorClient;

class Evaluator {
public:
    virtual ~Evaluator() = default;
    // Never throws for candidate faults: they come back as verdicts.
    virtual EvaluationResult evaluate(const EvaluationRequest& request) = 0;
};

// Runs evaluations in the isolated evaluator worker (engine/evaluator_client.h).
class ClientEvaluator : public Evaluator {
public:
    explicit ClientEvaluator(std::shared_ptr<EvaluatorClient> client);
    EvaluationResult evaluate(const EvaluationRequest& request) override;

private:
    std::shared_ptr<EvaluatorClient> client_;
};

}  // namespace ak
