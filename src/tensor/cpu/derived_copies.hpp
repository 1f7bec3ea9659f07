#pragma once
// A kernel's own layout of a constant input (the GLMs' design matrix), made once and reused while the
// input is unchanged: a sampler's thousands of gradients share one.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "variate/tensor/tensor.hpp"

namespace variate::cpu {

/// Keeps `Derived` values made from tensors. A value is kept while its tensor lives elsewhere (the
/// tensor's storage is held, so its address identifies it) and its elements are not handed out for
/// writing again (Tensor::write_count). At most `kept` are kept, the least recently used going first.
template <class Derived>
class DerivedCopies {
 public:
  explicit DerivedCopies(std::size_t kept) : kept_(kept) {}

  /// The value made from x, by `make(x)` when none is kept.
  template <class Make>
  Derived get(const Tensor& x, Make&& make) {
    std::lock_guard lock(mutex_);
    // A value whose tensor only this cache still holds is of no further use.
    std::erase_if(copies_, [](const Copy& c) { return c.source.use_count() == 1; });
    for (auto it = copies_.begin(); it != copies_.end(); ++it) {
      if (!same_tensor(it->source, x)) continue;
      if (it->writes == x.write_count()) {
        std::rotate(it, it + 1, copies_.end());  // most recently used last
        return copies_.back().derived;
      }
      copies_.erase(it);  // x was written since
      break;
    }
    if (copies_.size() == kept_) copies_.erase(copies_.begin());
    const std::uint64_t writes = x.write_count();  // read first: a write landing during make() shows next time
    copies_.push_back({x, make(x), writes});
    return copies_.back().derived;
  }

 private:
  struct Copy {
    Tensor source;
    Derived derived;
    std::uint64_t writes;
  };
  static bool same_tensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.raw() == b.raw();
  }
  std::size_t kept_;
  std::mutex mutex_;
  std::vector<Copy> copies_;
};

}  // namespace variate::cpu
