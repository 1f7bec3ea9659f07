#pragma once
// A mesh of devices with one named axis (layer 6, DESIGN.md "distribute (SPMD)"): the threads of
// this process, or the threads of several MPI ranks (Mesh::mpi) running the same program.
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
//
// The same program runs on MPI ranks (launched with `mpirun -np <ranks> ./program`):
//
//   distribute::Mesh mesh = distribute::launched_with_mpi() ? distribute::Mesh::mpi("data")
//                                                           : distribute::Mesh(4, "data");
//   auto totals = mesh.run(program);  // this process's devices' results
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

/// True when the library was built with MPI and this process was started by an MPI launcher
/// (mpirun) with more than one rank: the test for choosing Mesh::mpi. Reads the launcher's
/// environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE) and does not initialize MPI.
bool launched_with_mpi();

/// Devices along one named axis: threads of this process, or threads of MPI ranks (Mesh::mpi).
/// Not copyable; destroying it joins its threads. Movable; a moved-from mesh may only be assigned
/// to or destroyed.
class Mesh {
 public:
  /// A mesh of `num_devices` thread devices of this process.
  explicit Mesh(int num_devices = default_device_count(), std::string axis = "data");
  /// A mesh of default_device_count() devices along `axis`.
  explicit Mesh(std::string axis) : Mesh(default_device_count(), std::move(axis)) {}

  /// A mesh over all MPI ranks of MPI_COMM_WORLD (every rank must call it at the same point): each
  /// rank runs `threads_per_rank` devices, and device index = rank * threads_per_rank + thread, so
  /// size() = ranks * threads_per_rank. The first call initializes MPI (MPI_Init_thread with
  /// MPI_THREAD_SERIALIZED, unless the program did) and MPI is finalized at exit. Collectives
  /// exchange locally between a rank's threads and across ranks through one thread per rank; their
  /// results are the same, bitwise, as on a thread mesh of the same size. Runs of MPI meshes must
  /// be made in the same order on every rank, one at a time. Outside mpirun it is a mesh of one
  /// rank. Throws variate::Error ("built without MPI") when the library was built without MPI.
  static Mesh mpi(std::string axis = "data", int threads_per_rank = 1);

  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;
  Mesh(Mesh&& other) noexcept;
  Mesh& operator=(Mesh&& other) noexcept;

  /// The number of devices of the whole mesh (all ranks).
  int size() const;
  /// The global index of this process's first device: 0 on a thread mesh, rank * threads_per_rank
  /// on an MPI mesh.
  int first_local_device() const;
  /// The devices this process runs: size() on a thread mesh, threads_per_rank on an MPI mesh.
  int local_device_count() const;
  const std::string& axis() const;
  /// The OpenMP thread count each device runs its kernels with: max(1, cores / devices on this
  /// machine), where an MPI mesh counts the devices of every rank on the machine.
  int threads_per_device() const;

  /// Runs fn() once on every device of this process concurrently and returns when all have
  /// finished: a std::vector of the results (by value) of this process's devices in device order
  /// (results[i] is device first_local_device() + i; on a thread mesh that is every device), or
  /// nothing when fn returns void. fn is called from several threads at once, so it must not
  /// modify shared state without synchronization. On an MPI mesh every rank calls run with the
  /// same program; the calling thread does the exchanges with the other ranks.
  ///
  /// If fn throws on some device, the collectives the other devices wait in are aborted (they do
  /// not hang) and run throws one error: the one of the lowest device index that failed, with its
  /// message prefixed by "Mesh::run: device <i> of <n> (axis '<axis>') failed: ". On a thread mesh
  /// it is a variate::Error when the device's exception was one, a std::runtime_error otherwise; on
  /// an MPI mesh it is a variate::Error on every rank. The original exception is nested in it
  /// (std::rethrow_if_nested; on other ranks than the failing device's, a variate::Error with its
  /// message). Runs of one mesh are serialized; calling run from inside a run throws.
  template <class F>
  auto run(F&& fn) {
    using R = std::remove_cvref_t<std::invoke_result_t<F&>>;
    if constexpr (std::is_void_v<R>) {
      run_each([&fn](int) { fn(); });
    } else {
      // optional: no vector<bool> races
      std::vector<std::optional<R>> slots(static_cast<std::size_t>(local_device_count()));
      const int first = first_local_device();
      run_each([&fn, &slots, first](int device) { slots[std::size_t(device - first)].emplace(fn()); });
      std::vector<R> results;
      results.reserve(slots.size());
      for (auto& r : slots) results.push_back(std::move(*r));
      return results;
    }
  }

  /// Runs body(device_index) once on every device of this process, with the global device
  /// index; what run is built on.
  void run_each(const std::function<void(int)>& body);

  struct Impl;

 private:
  explicit Mesh(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// This device's index along `axis` (0 .. axis_size - 1; on an MPI mesh the global index). Throws variate::Error naming
/// the axis and the known axes when called outside Mesh::run or with an axis the running mesh does not have.
int axis_index(std::string_view axis);
/// The number of devices along `axis` (of all ranks on an MPI mesh); throws as axis_index does.
int axis_size(std::string_view axis);
/// The axis of the mesh running on this thread, or null outside Mesh::run (a program that works
/// both inside and outside a mesh asks this first).
const std::string* running_axis();

}  // namespace variate::distribute
