#include "engine/evaluator/aliased_inputs.h"

#include "util/error.h"

#include <algorithm>
#include <map>

namespace ak::eval {

namespace {

// A flat uint8 tensor over all of `t`'s storage.
at::Tensor storage_bytes(const at::Tensor& t) {
    const auto nbytes = std::int64_t(t.storage().nbytes());
    return at::empty({0}, at::TensorOptions().dtype(at::kByte).device(t.device())).set_(t.storage(), 0, {nbytes}, {1});
}

}  // namespace

AliasedInputs::AliasedInputs(std::vector<at::Tensor> tensors) : tensors_(std::move(tensors)) {
    std::map<const void*, std::size_t> index;
    for (const auto& t : tensors_) {
        const void* key = t.storage().unsafeGetStorageImpl();
        auto [it, inserted] = index.emplace(key, storages_.size());
        if (inserted) storages_.push_back(storage_bytes(t));
        storage_of_.push_back(it->second);
    }
}

AliasedInputs AliasedInputs::clone() const {
    AliasedInputs c;
    c.storage_of_ = storage_of_;
    for (const auto& s : storages_) c.storages_.push_back(s.clone());
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const at::Tensor& t = tensors_[i];
        c.tensors_.push_back(at::empty({0}, t.options())
                                 .set_(c.storages_[storage_of_[i]].storage(), t.storage_offset(), t.sizes(), t.strides()));
    }
    return c;
}

void AliasedInputs::load(const AliasedInputs& from) const {
    if (from.storages_.size() != storages_.size())
        throw Error(ErrorKind::Internal, "AliasedInputs::load: " + std::to_string(from.storages_.size()) + " storages into " +
                                             std::to_string(storages_.size()));
    for (std::size_t i = 0; i < storages_.size(); ++i) {
        if (from.storages_[i].numel() != storages_[i].numel())
            throw Error(ErrorKind::Internal, "AliasedInputs::load: storage " + std::to_string(i) + " has " +
                                                 std::to_string(from.storages_[i].numel()) + " bytes, not " +
                                                 std::to_string(storages_[i].numel()));
        storages_[i].copy_(from.storages_[i], /*non_blocking=*/true);
    }
}

AliasedInputs AliasedInputs::with_slack(const AliasedInputs& head, const AliasedInputs& tail, std::int64_t slack) {
    if (tail.storages_.size() != head.storages_.size())
        throw Error(ErrorKind::Internal, "AliasedInputs::with_slack: the tail has another structure");
    if (slack < 0 || slack % 16 != 0) throw Error(ErrorKind::Internal, "AliasedInputs::with_slack: slack must be a multiple of 16");
    AliasedInputs a;
    a.storage_of_ = head.storage_of_;
    a.slack_ = slack;
    for (std::size_t i = 0; i < head.storages_.size(); ++i) {
        const at::Tensor& h = head.storages_[i];
        const at::Tensor& t = tail.storages_[i];
        const std::int64_t n = h.numel();
        at::Tensor ext = at::empty({n + slack}, h.options());
        ext.narrow(0, 0, n).copy_(h);
        for (std::int64_t done = 0; done < slack && t.numel() > 0;) {
            const std::int64_t take = std::min(slack - done, t.numel());
            ext.narrow(0, n + done, take).copy_(t.narrow(0, 0, take));
            done += take;
        }
        a.extended_.push_back(ext);
        a.storages_.push_back(ext.narrow(0, 0, n));
    }
    for (std::size_t i = 0; i < head.tensors_.size(); ++i) {
        const at::Tensor& t = head.tensors_[i];
        a.tensors_.push_back(at::empty({0}, t.options())
                                 .set_(a.extended_[a.storage_of_[i]].storage(), t.storage_offset(), t.sizes(), t.strides()));
    }
    return a;
}

AliasedInputs AliasedInputs::shifted(const std::vector<std::int64_t>& offsets) const {
    if (offsets.size() != storages_.size() || extended_.size() != storages_.size())
        throw Error(ErrorKind::Internal, "AliasedInputs::shifted: needs one offset per storage of a with_slack() set");
    AliasedInputs a;
    a.storage_of_ = storage_of_;
    for (std::size_t i = 0; i < storages_.size(); ++i) {
        if (offsets[i] < 0 || offsets[i] > slack_ || offsets[i] % 16 != 0)
            throw Error(ErrorKind::Internal, "AliasedInputs::shifted: offset " + std::to_string(offsets[i]) +
                                                 " is not a multiple of 16 within the slack of " + std::to_string(slack_));
        a.storages_.push_back(extended_[i].narrow(0, offsets[i], storages_[i].numel()));
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const at::Tensor& t = tensors_[i];
        const std::int64_t element = std::int64_t(t.element_size());
        const std::int64_t shift = offsets[storage_of_[i]];
        a.tensors_.push_back(at::empty({0}, t.options())
                                 .set_(extended_[storage_of_[i]].storage(), t.storage_offset() + shift / element, t.sizes(),
                                       t.strides()));
    }
    return a;
}

std::int64_t AliasedInputs::bytes() const {
    std::int64_t n = 0;
    for (const auto& s : storages_) n += s.numel();
    return n;
}

}  // namespace ak::eval
