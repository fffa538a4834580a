#pragma once
// A case's input tensors together with how they share storage (fused_mlp's w_gate and w_up are views of
// w_gate_up), so that a working copy has the same structure and can be refreshed from another set of
// the same structure by one copy per storage. The timing loop (verified_timing.h) keeps the pointers a
// candidate sees fixed while their contents change.
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace ak::eval {

class AliasedInputs {
public:
    AliasedInputs() = default;
    explicit AliasedInputs(std::vector<at::Tensor> tensors);

    // New storages with the same views and the same contents (asynchronous copies).
    AliasedInputs clone() const;
    // Copies `from`'s contents into these storages (asynchronous). Throws Error(Internal) unless `from` has
    // the same structure (storage count and sizes).
    void load(const AliasedInputs& from) const;

    // Pristine contents for the timing loop: `head`'s storages, each followed by `slack_bytes` more bytes
    // taken from `tail` (same structure; repeated when a storage is shorter), so that shifted() can show
    // the tensors at many positions inside data of the same kind.
    static AliasedInputs with_slack(const AliasedInputs& head, const AliasedInputs& tail, std::int64_t slack_bytes);
    // The same tensors seen `byte_offsets[s]` bytes further into storage s (multiples of 16, at most
    // slack_bytes()): views, no copy. An input refreshed from a randomly shifted view has new contents of
    // the same distribution every time, so nothing a kernel remembers about earlier contents applies.
    AliasedInputs shifted(const std::vector<std::int64_t>& byte_offsets) const;
    std::int64_t slack_bytes() const { return slack_; }

    const std::vector<at::Tensor>& tensors() const { return tensors_; }
    std::size_t storage_count() const { return storages_.size(); }
    // Bytes of all distinct storages.
    std::int64_t bytes() const;

private:
    std::vector<at::Tensor> tensors_;
    std::vector<at::Tensor> storages_;  // a flat uint8 tensor over each distinct storage, in first-use order
    std::vector<std::size_t> storage_of_;  // tensors_[i] lives in storages_[storage_of_[i]]
    std::vector<at::Tensor> extended_;     // with_slack: the whole storages (storages_ are their heads)
    std::int64_t slack_ = 0;
};

}  // namespace ak::eval
