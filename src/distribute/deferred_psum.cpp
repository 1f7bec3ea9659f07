#include "variate/distribute/deferred_psum.hpp"

#include <array>

#include "variate/core/error.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::distribute {

namespace {
thread_local int deferred_depth = 0;
}  // namespace

DeferredPsumScope::DeferredPsumScope() { ++deferred_depth; }
DeferredPsumScope::~DeferredPsumScope() { --deferred_depth; }

bool psum_deferred() { return deferred_depth > 0; }

std::pair<Tensor, Tensor> psum_value_and_gradient(const Tensor& value, const Tensor& gradient, std::int64_t replicated,
                                                  std::string_view axis) {
  const char* op = "psum_value_and_gradient";
  VARIATE_CHECK(value.defined() && gradient.defined() && value.rank() <= 1 && gradient.rank() == value.rank() + 1 &&
                    (value.rank() == 0 || value.dim(0) == gradient.dim(0)) && value.dtype() == gradient.dtype(),
                op,
                "expected a value of shape [] or [batch] and a gradient of shape [dimension] or [batch, dimension] "
                "of the same dtype, got ",
                value.shape(), " (", value.dtype(), ") and ", gradient.shape(), " (", gradient.dtype(), ")");
  const int last = gradient.rank() - 1;
  const std::int64_t dimension = gradient.dim(last);
  VARIATE_CHECK(replicated >= 0 && replicated <= dimension, op, "expected 0 <= replicated <= ", dimension, ", got ",
                replicated);
  const Tensor column = prim::expand_dims(value, last);  // [1] or [batch, 1]
  const std::array<Tensor, 2> parts{column, prim::slice(gradient, last, 0, replicated)};
  const Tensor summed = psum(prim::concat(parts, last), axis);
  const Tensor total = prim::reshape(prim::slice(summed, last, 0, 1), value.shape());
  const Tensor replicated_part = prim::slice(summed, last, 1, 1 + replicated);
  if (replicated == dimension) return {total, replicated_part};
  const std::array<Tensor, 2> coordinates{replicated_part, prim::slice(gradient, last, replicated, dimension)};
  return {total, prim::concat(coordinates, last)};
}

}  // namespace variate::distribute
