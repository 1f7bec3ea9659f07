#pragma once
// The only code that calls MPI: start-up and shut-down of the MPI library, and the two exchanges
// an MPI mesh needs, an all-gather of byte strings and one of buffers whose sizes every rank
// knows. Everything above it (mpi_rank.hpp) is plain C++, so a build without MPI compiles the same
// protocol and only this file's stubs throw.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace variate::distribute::detail {

/// Whether the library was built with MPI (CMake option VARIATE_MPI and MPI found).
bool mpi_built();

/// Every rank's bytes of one all_gather_bytes call, in rank order: rank r's bytes are
/// bytes[offsets[r] .. offsets[r + 1]).
struct GatheredBytes {
  std::vector<char> bytes;
  std::vector<std::size_t> offsets;
};

/// A duplicate of MPI_COMM_WORLD, so that a mesh's traffic never matches other messages of the
/// program. Creating the first one initializes MPI (MPI_Init_thread asking for
/// MPI_THREAD_SERIALIZED: one thread at a time calls MPI, which a mutex here guarantees), and MPI
/// is finalized at exit when this library initialized it. Without MPI, construction throws
/// variate::Error "<op>: built without MPI ...".
class MpiTransport {
 public:
  explicit MpiTransport(const char* op);
  ~MpiTransport();
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// The number of ranks on this rank's machine (they share its cores).
  int ranks_on_node() const { return ranks_on_node_; }

  /// Collective over the ranks: MPI_Allgather of the byte counts, then MPI_Allgatherv of the
  /// bytes. Throws variate::Error on every rank alike when the total exceeds MPI's int counts.
  GatheredBytes all_gather_bytes(const std::vector<char>& mine);

  /// Collective over the ranks, once every rank knows every rank's buffer sizes: this rank's
  /// buffers `mine`, in order, go to every other rank, and rank r's k-th buffer arrives in
  /// theirs[r][k] (theirs[rank()] is ignored). Point-to-point messages between the buffers
  /// themselves, so large tensors are not copied into and out of byte strings.
  void all_gather_into(std::span<const std::span<const char>> mine,
                       std::span<const std::vector<std::span<char>>> theirs);

 private:
  struct Comm;
  std::unique_ptr<Comm> comm_;
  int rank_ = 0;
  int ranks_ = 1;
  int ranks_on_node_ = 1;
};

}  // namespace variate::distribute::detail
