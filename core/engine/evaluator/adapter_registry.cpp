// adapter_for() and make_adapter(): the table of the nine kernel-type adapters (adapters/*.cpp).
#include "engine/evaluator/adapters/adapters.h"
#include "engine/evaluator/kernel_adapter.h"
#include "util/error.h"

#include <array>
#include <memory>

namespace ak::eval {

std::unique_ptr<KernelAdapter> make_adapter(KernelType type) {
    switch (type) {
    case KernelType::Matmul: return make_matmul_adapter();
    case KernelType::Softmax: return make_softmax_adapter();
    case KernelType::LayerNorm: return make_layernorm_adapter();
    case KernelType::RmsNorm: return make_rmsnorm_adapter();
    case KernelType::FlashAttention: return make_flash_attention_adapter();
    case KernelType::FusedMlp: return make_fused_mlp_adapter();
    case KernelType::CrossEntropy: return make_cross_entropy_adapter();
    case KernelType::RotaryEmbedding: return make_rotary_embedding_adapter();
    case KernelType::Reduce: return make_reduce_adapter();
    }
    throw Error(ErrorKind::Internal, "make_adapter: unknown kernel type " + std::to_string(int(type)));
}

const KernelAdapter& adapter_for(KernelType type) {
    // Built once, on first use (thread-safe static initialisation), and kept for the process' life.
    static const auto table = [] {
        std::array<std::unique_ptr<KernelAdapter>, 9> t;
        for (KernelType k : all_kernel_types()) {
            auto adapter = make_adapter(k);
            if (!adapter) throw Error(ErrorKind::Internal, "make_adapter returned nothing for " + std::string(to_string(k)));
            if (adapter->type() != k)
                throw Error(ErrorKind::Internal, "the adapter made for " + std::string(to_string(k)) + " reports type " +
                                                     std::string(to_string(adapter->type())));
            t.at(std::size_t(k)) = std::move(adapter);
        }
        return t;
    }();
    const std::size_t index = std::size_t(type);
    if (index >= table.size()) throw Error(ErrorKind::Internal, "adapter_for: unknown kernel type " + std::to_string(int(type)));
    return *table[index];
}

}  // namespace ak::eval
