// Data-parallel training on MPI ranks (label `mpi`, 2 ranks under mpirun; main is in mpi_test.cpp):
// ranks end with the parameters of a thread mesh of the same size, bit for bit, and with the
// one-device run's to rounding; a checkpoint written on the ranks resumes on one device; a batch
// that does not split and a rank that fails stop every rank with one error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "support/data_parallel_cases.hpp"
#include "support/expect_error.hpp"
#include "support/mesh_testing.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/data_parallel.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::distribute {
namespace {

#if VARIATE_TEST_MPI

using testing::bitwise_equal;
using testing::within_deadline;
using testing::data_parallel::Data;
using testing::data_parallel::kExamples;
using testing::data_parallel::options;
using testing::data_parallel::Replica;
using testing::data_parallel::train_on_one_device;

std::vector<Tensor> train_on(Mesh& mesh, const nn::TrainOptions& o) {
  return testing::data_parallel::train_on_mesh(mesh, o);
}

void expect_close(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    const std::vector<double> av = a[t].to_vector<double>(), bv = b[t].to_vector<double>();
    for (std::size_t i = 0; i < av.size(); ++i) EXPECT_NEAR(av[i], bv[i], tol * (1 + std::abs(bv[i])));
  }
}

// A folder every rank names alike: rank 0's process id, sent to the others.
std::filesystem::path shared_scratch(Mesh& mesh) {
  const auto pids = within_deadline([&] {
    return mesh.run([] {
      std::array<double, 1> pid = {axis_index("data") == 0 ? double(::getpid()) : 0.0};
      psum_in_place(pid, "data", "rank 0's pid");
      return pid[0];
    });
  });
  return std::filesystem::temp_directory_path() / ("variate_data_parallel_mpi_" + std::to_string(long(pids[0])));
}

class DataParallelThreadsPerRank : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Mpi, DataParallelThreadsPerRank, ::testing::Values(1, 3));

TEST_P(DataParallelThreadsPerRank, RanksEqualAThreadMeshBitwiseAndOneDeviceToRounding) {
  Mesh mesh = Mesh::mpi("data", GetParam());
  const std::vector<Tensor> on_ranks = train_on(mesh, options());
  Mesh threads(mesh.size(), "data");
  const std::vector<Tensor> on_threads = train_on(threads, options());
  for (std::size_t i = 0; i < on_ranks.size(); ++i) EXPECT_TRUE(bitwise_equal(on_ranks[i], on_threads[i]));
  expect_close(on_ranks, train_on_one_device(options()), 1e-10);
}

TEST(DataParallelMpi, ACheckpointWrittenOnTheRanksResumesOnOneDevice) {
  Mesh mesh = Mesh::mpi("data");
  const std::filesystem::path dir = shared_scratch(mesh);
  if (mesh.first_local_device() == 0) std::filesystem::create_directories(dir);
  nn::TrainOptions o = options(2);
  o.checkpoint = dir / "ranks.ckpt";
  // Rank 0 creates the folder before its device writes, at the end of the run; the other ranks only
  // read the checkpoint after the run.
  train_on(mesh, o);
  // Each rank resumes from a copy of its own, which its one-device run then rewrites.
  const std::filesystem::path mine = dir / ("rank" + std::to_string(mesh.first_local_device()) + ".ckpt");
  std::filesystem::copy_file(o.checkpoint, mine);
  o.checkpoint = mine;
  o.epochs = 3;
  Mesh one(1, "data");
  expect_close(train_on(one, o), train_on_one_device(options(3)), 1e-10);
  // Every rank has read the checkpoint before rank 0 removes it.
  within_deadline([&] { mesh.run([] { psum(Tensor(0.0), "data"); }); });
  if (mesh.first_local_device() == 0) std::filesystem::remove_all(dir);
}

TEST(DataParallelMpi, ABatchThatDoesNotSplitIsAnErrorOnEveryRank) {
  Mesh mesh = Mesh::mpi("data");
  if (mesh.size() != 2) GTEST_SKIP() << "needs 2 ranks (run under mpirun -np 2)";
  nn::TrainOptions o = options();
  o.batch_size = 5;
  EXPECT_ERROR(train_on(mesh, o),
               "distribute::train_data_parallel: the global batch of 5 examples does not split evenly over the 2 "
               "devices of axis 'data'");
}

TEST(DataParallelMpi, ARankThatFailsStopsEveryRank) {
  Mesh mesh = Mesh::mpi("data");
  if (mesh.size() != 2) GTEST_SKIP() << "needs 2 ranks (run under mpirun -np 2)";
  const Data data;
  const std::string message = within_deadline([&] {
    return testing::error_of([&] {
      mesh.run([&] {
        Replica replica;
        int calls = 0;
        const ShardLoss loss = [&](const BatchShard& s) {
          if (axis_index("data") == 1 && ++calls == 4) throw Error("my_loss: bad shard on rank 1");
          return replica.shard_loss(data, s.examples, s.global_size());
        };
        train_data_parallel(replica.adam, kExamples, random::Key(65), loss, options(), "data");
      });
    });
  });
  EXPECT_EQ(message, "Mesh::run: device 1 of 2 (axis 'data') failed: my_loss: bad shard on rank 1");
}

#endif

}  // namespace
}  // namespace variate::distribute
