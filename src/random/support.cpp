#include "random/support.hpp"

#include "variate/tensor/prim.hpp"

namespace variate::random::detail {

Tensor parameter_values(const char* op, const char* role, const Tensor& p) {
  VARIATE_CHECK(p.defined(), op, role, " is an undefined tensor");
  VARIATE_CHECK(p.device().kind == DeviceKind::cpu, op, role, " is on ", p.device(), "; samplers run on the CPU");
  return prim::cast(p, DType::f64);
}

void check_broadcasts(const char* op, const char* role, const Shape& batch, const Shape& shape) {
  bool ok = batch.rank() <= shape.rank();
  for (int i = 1; ok && i <= batch.rank(); ++i) {
    const std::int64_t d = batch[batch.rank() - i];
    ok = d == 1 || d == shape[shape.rank() - i];
  }
  VARIATE_CHECK(ok, op, role, " with batch shape ", batch, " does not broadcast to the sample shape ", shape);
}

Tensor broadcast_values(const char* op, const char* role, const Tensor& values, const Shape& shape) {
  check_broadcasts(op, role, values.shape(), shape);
  return prim::broadcast_to(values, shape);
}

Tensor batch_rows(const char* op, const char* role, const Shape& batch, const Shape& shape) {
  check_broadcasts(op, role, batch, shape);
  return prim::broadcast_to(Tensor::arange(batch.numel()).view(batch), shape);
}

Shape with_event(const char* op, const Shape& shape, std::int64_t k) {
  VARIATE_CHECK(shape.rank() < kMaxRank, op, "sample shape ", shape,
                " leaves no room for the event dimension (at most ", kMaxRank, " dims)");
  Shape out = shape;
  out.push_back(k);
  return out;
}

}  // namespace variate::random::detail
