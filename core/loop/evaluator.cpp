#include "loop/evaluator.h"

#include "engine/evaluator_client.h"
#include "util/error.h"

namespace ak {

ClientEvaluator::ClientEvaluator(std::shared_ptr<EvaluatorClient> client) : client_(std::move(client)) {
    if (!client_) throw Error(ErrorKind::Internal, "ClientEvaluator needs an evaluator client");
}

EvaluationResult ClientEvaluator::evaluate(const EvaluationRequest& request) { return client_->evaluate(request); }

}  // namespace ak
