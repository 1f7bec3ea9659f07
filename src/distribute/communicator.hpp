#pragma once
// The communicator interface the collectives are built on (STYLE.md, "Sharding": one interface
// with thread, MPI and single-device implementations). Thread devices implement it in mesh.cpp;
// on an MPI mesh their exchanges go through the rank protocol of mpi_rank.hpp.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "variate/tensor/tensor.hpp"

namespace variate::distribute::detail {

/// One device's endpoint on one mesh axis.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int index() const = 0;
  virtual int size() const = 0;
  virtual const std::string& axis() const = 0;
  /// Every device's `x`, in device order. All devices of the axis call it at the same point of
  /// their programs with the same `op` (a string literal); a mismatch, or a device that returned
  /// without calling it, throws variate::Error on every device, and a failure elsewhere aborts it.
  /// The tensors stay valid until this device's next exchange.
  virtual std::span<const Tensor> exchange(const char* op, const Tensor& x) = 0;
};

/// Thrown in a device waiting in a collective when another device has failed. Mesh::run reports
/// the failed device's own error, never these.
class Aborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The communicator of `axis` on the calling thread. Throws variate::Error naming `op`, the axis
/// and the known axes when no mesh runs on this thread or it has no such axis.
Communicator& communicator(const char* op, std::string_view axis);

}  // namespace variate::distribute::detail
