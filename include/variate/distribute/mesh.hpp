#pragma once
// A mesh of thread devices with one named axis (layer 6, DESIGN.md "distribute (SPMD)").
//
// One program runs on every device of the mesh at once (SPMD, as jax.pmap / shard_map and TFP's
// experimental.distribute use it): the program asks which device it is with axis_index(axis) and
// combines values across devices with the collectives of distribute/collectives.hpp.
//
//   distribute::Mesh mesh(4, "data");
//   std::vector<Tensor> totals = mesh.run([&] {
//     const int i = distribute::axis_index("data");
//     Tensor local = shard_of(data, i);                 // this device's part
//     return distribute::psum(sum(local), "data");     // the same total on every device
//   });
//
// Devices are threads of one persistent pool; each sets its OpenMP thread count to its share of the
// cores, so kernels inside a device do not oversubscribe the machine.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace variate::distribute {

/// The hardware's core count (at least 1): the default number of devices of a Mesh.
int default_device_count();

/// Devices (threads) along one named axis. Not copyable; destroying it joins its threads.
class Mesh {
 public:
  explicit Mesh(int num_devices = default_device_count(), std::string axis = "data");
  /// A mesh of default_device_count() devices along `axis`.
  explicit Mesh(std::string axis) : Mesh(default_device_count(), std::move(axis)) {}
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  int size() const;
  const std::string& axis() const;
  /// The OpenMP thread count each device runs its kernels with: max(1, cores / size()).
  int threads_per_device() const;

  /// Runs fn() once on every device concurrently and returns when all have finished: a
  /// std::vector of the results (by value) in device order, or nothing when fn returns void. fn is called
  /// from several threads at once, so it must not modify shared state without synchronization.
  ///
  /// If fn throws on some device, the collectives the other devices wait in are aborted (they do
  /// not hang) and run throws one error: the one of the lowest device index that failed, with its
  /// message prefixed by "Mesh::run: device <i> of <n> (axis '<axis>') failed: ". It is a
  /// variate::Error when the device's exception was one, a std::runtime_error otherwise; the
  /// original exception is nested in it (std::rethrow_if_nested). Runs of one mesh are serialized;
  /// calling run from inside a run throws.
  template <class F>
  auto run(F&& fn) {
    using R = std::remove_cvref_t<std::invoke_result_t<F&>>;
    if constexpr (std::is_void_v<R>) {
      run_each([&fn](int) { fn(); });
    } else {
      std::vector<std::optional<R>> slots(static_cast<std::size_t>(size()));  // optional: no vector<bool> races
      run_each([&fn, &slots](int device) { slots[std::size_t(device)].emplace(fn()); });
      std::vector<R> results;
      results.reserve(slots.size());
      for (auto& r : slots) results.push_back(std::move(*r));
      return results;
    }
  }

  /// Runs body(device_index) once on every device; what run is built on.
  void run_each(const std::function<void(int)>& body);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// This device's index along `axis` (0 .. axis_size - 1). Throws variate::Error naming the axis and
/// the known axes when called outside Mesh::run or with an axis the running mesh does not have.
int axis_index(std::string_view axis);
/// The number of devices along `axis`; throws as axis_index does.
int axis_size(std::string_view axis);

}  // namespace variate::distribute
