#include "variate/distribute/fused_psum.hpp"

#include <cstdint>
#include <cstring>

#include "distribute/communicator.hpp"
#include "variate/core/error.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::distribute {
namespace {

// out = flats[0][at..] + flats[1][at..] + ..., added in device order as psum adds, so the result is
// psum's bit for bit; written straight into the tensor the caller keeps.
template <class T>
void sum_range(std::span<const Tensor> flats, std::int64_t at, Tensor& out) {
  T* o = static_cast<T*>(out.raw());
  const std::int64_t n = out.numel();
  const T* first = static_cast<const T*>(flats[0].raw()) + at;
  std::memcpy(o, first, std::size_t(n) * sizeof(T));
  for (std::size_t d = 1; d < flats.size(); ++d) {
    const T* x = static_cast<const T*>(flats[d].raw()) + at;
    for (std::int64_t i = 0; i < n; ++i) o[i] += x[i];
  }
}

}  // namespace

void psum_fused(std::span<Tensor> tensors, std::string_view axis) {
  const char* op = "psum_fused";
  if (tensors.empty()) return;
  const DType dtype = tensors[0].defined() ? tensors[0].dtype() : DType::f64;
  detail::Communicator& comm = detail::communicator(op, axis);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    VARIATE_CHECK(t.defined(), op, "tensor ", i, " is undefined");
    VARIATE_CHECK(is_floating(t.dtype()) && t.dtype() == dtype, op, "tensor ", i, " has dtype ", t.dtype(),
                  " but tensor 0 has ", dtype, "; every tensor must have the same floating dtype");
    total += t.numel();
  }
  if (comm.size() == 1) return;               // each tensor is its own sum: no copies
  not_replayable("psum_fused over devices");  // it reads the other devices' buffers
  Tensor flat = Tensor::empty(Shape{total}, dtype);
  char* in = static_cast<char*>(flat.raw());
  for (const Tensor& t : tensors) {
    std::memcpy(in, t.raw(), t.nbytes());
    in += t.nbytes();
  }
  // The exchange shares the devices' buffers rather than copying them; each is fresh and none is
  // written again, and they stay valid until this device's next exchange.
  const std::span<const Tensor> flats = comm.exchange(op, flat);
  // Every device compares the same buffers, so all throw alike (none reads past a shorter one).
  for (std::size_t d = 1; d < flats.size(); ++d)
    VARIATE_CHECK(flats[d].numel() == flats[0].numel() && flats[d].dtype() == flats[0].dtype(), op, "over axis '",
                  comm.axis(), "', device ", d, " passes ", flats[d].numel(), " elements of ", flats[d].dtype(),
                  " but device 0 passes ", flats[0].numel(), " of ", flats[0].dtype(),
                  "; every device must pass the same shapes and dtype");
  std::int64_t at = 0;
  for (Tensor& t : tensors) {
    // A fresh tensor rather than a write into t: t may share its storage with a parameter or with
    // the tape's adjoints.
    Tensor summed = Tensor::empty(t.shape(), dtype);
    if (dtype == DType::f32)
      sum_range<float>(flats, at, summed);
    else
      sum_range<double>(flats, at, summed);
    at += t.numel();
    t = std::move(summed);
  }
}

}  // namespace variate::distribute
