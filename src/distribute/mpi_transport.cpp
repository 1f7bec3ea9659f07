// MPI start-up, shut-down and the exchanges of MPI meshes; stubs that throw when the library
// is built without MPI (VARIATE_HAVE_MPI is set by CMake when it finds MPI).
#include "distribute/mpi_transport.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

#include "variate/core/error.hpp"
#include "variate/distribute/mesh.hpp"

#ifdef VARIATE_HAVE_MPI
#include <mpi.h>
#endif

namespace variate::distribute {
namespace detail {
#ifdef VARIATE_HAVE_MPI

namespace {

// The world size a launcher announces in the environment before MPI is initialized: Open MPI's
// mpirun sets OMPI_COMM_WORLD_SIZE, MPICH's Hydra and Slurm's PMI set PMI_SIZE.
int launcher_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 0;
}

// MPI_THREAD_SERIALIZED lets any thread call MPI, one at a time: every call below holds this.
std::mutex& mpi_mutex() {
  static std::mutex m;
  return m;
}

void finalize_at_exit() {
  std::lock_guard lock(mpi_mutex());
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// Initializes MPI once (unless the program already did); called with mpi_mutex held.
void ensure_initialized(const char* op) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  VARIATE_CHECK(!finalized, op, "MPI has already been finalized; create MPI meshes before MPI_Finalize");
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    // Objects destroyed at exit after this registration (MPI meshes in statics) still free their
    // communicators before MPI_Finalize; atexit runs in reverse order of registration.
    std::atexit(finalize_at_exit);
  } else {
    MPI_Query_thread(&provided);
  }
  VARIATE_CHECK(provided >= MPI_THREAD_SERIALIZED, op, "the MPI library provides thread level ", provided,
                " but an MPI mesh needs MPI_THREAD_SERIALIZED (device threads run while one thread calls MPI)");
}

}  // namespace

bool mpi_built() { return true; }

struct MpiTransport::Comm {
  MPI_Comm comm = MPI_COMM_NULL;
};

MpiTransport::MpiTransport(const char* op) : comm_(std::make_unique<Comm>()) {
  std::lock_guard lock(mpi_mutex());
  ensure_initialized(op);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_->comm);
  MPI_Comm_rank(comm_->comm, &rank_);
  MPI_Comm_size(comm_->comm, &ranks_);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &ranks_on_node_);
  MPI_Comm_free(&node);
}

MpiTransport::~MpiTransport() {
  std::lock_guard lock(mpi_mutex());
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_->comm != MPI_COMM_NULL) MPI_Comm_free(&comm_->comm);
}

GatheredBytes MpiTransport::all_gather_bytes(const std::vector<char>& mine) {
  std::lock_guard lock(mpi_mutex());
  // MPI's default error handler aborts the whole job on a communication error, so a broken
  // connection ends every rank instead of leaving some waiting.
  const std::int64_t my_count = std::int64_t(mine.size());
  std::vector<std::int64_t> counts(std::size_t(ranks_), 0);
  MPI_Allgather(&my_count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_->comm);
  GatheredBytes out;
  out.offsets.assign(std::size_t(ranks_) + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) out.offsets[r + 1] = out.offsets[r] + std::size_t(counts[r]);
  // Every rank sees the same counts, so every rank throws here alike (no rank is left waiting).
  VARIATE_CHECK(out.offsets.back() <= std::size_t(INT_MAX), "Mesh (MPI exchange)", "the ranks' contributions total ",
                out.offsets.back(), " bytes, more than MPI_Allgatherv's limit of ", INT_MAX,
                " bytes; exchange smaller tensors");
  std::vector<int> int_counts(counts.size()), displacements(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    int_counts[r] = int(counts[r]);
    displacements[r] = int(out.offsets[r]);
  }
  out.bytes.resize(out.offsets.back());
  MPI_Allgatherv(mine.data(), int(my_count), MPI_BYTE, out.bytes.data(), int_counts.data(), displacements.data(),
                 MPI_BYTE, comm_->comm);
  return out;
}

void MpiTransport::all_gather_into(std::span<const std::span<const char>> mine,
                                   std::span<const std::vector<std::span<char>>> theirs) {
  std::lock_guard lock(mpi_mutex());
  // MPI counts are ints, so a buffer goes in pieces of at most 1 GiB. Messages between two ranks on
  // one communicator and tag arrive in the order they were sent (MPI's non-overtaking rule), so
  // receives posted in the senders' order match them piece by piece; both sides cut alike.
  constexpr std::size_t kPiece = std::size_t(1) << 30;
  std::vector<MPI_Request> requests;
  for (int r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    for (const std::span<char> buffer : theirs[std::size_t(r)])
      for (std::size_t at = 0; at < buffer.size(); at += kPiece) {
        requests.emplace_back();
        MPI_Irecv(buffer.data() + at, int(std::min(kPiece, buffer.size() - at)), MPI_BYTE, r, 0, comm_->comm,
                  &requests.back());
      }
  }
  for (int r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    for (const std::span<const char> buffer : mine)
      for (std::size_t at = 0; at < buffer.size(); at += kPiece) {
        requests.emplace_back();
        MPI_Isend(buffer.data() + at, int(std::min(kPiece, buffer.size() - at)), MPI_BYTE, r, 0, comm_->comm,
                  &requests.back());
      }
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace detail

bool launched_with_mpi() {
  {
    std::lock_guard lock(detail::mpi_mutex());
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
      int size = 1;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      return size > 1;
    }
  }
  return detail::launcher_world_size() > 1;
}

#else  // built without MPI

bool mpi_built() { return false; }

struct MpiTransport::Comm {};

MpiTransport::MpiTransport(const char* op) {
  ::variate::detail::fail(op,
                          ": variate was built without MPI (configure with MPI installed, e.g. Debian's "
                          "openmpi-bin and libopenmpi-dev, and -DVARIATE_MPI=ON), so MPI ranks are not available");
}

MpiTransport::~MpiTransport() = default;

GatheredBytes MpiTransport::all_gather_bytes(const std::vector<char>&) {
  ::variate::detail::fail("Mesh (MPI exchange): variate was built without MPI");
}

void MpiTransport::all_gather_into(std::span<const std::span<const char>>,
                                   std::span<const std::vector<std::span<char>>>) {
  ::variate::detail::fail("Mesh (MPI exchange): variate was built without MPI");
}

}  // namespace detail

// Without MPI there are no ranks to be one of, whatever the launcher says.
bool launched_with_mpi() { return false; }

#endif

}  // namespace variate::distribute
