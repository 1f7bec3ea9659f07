#pragma once
// Programs with Sharded sites and their values, shared by the thread-device tests
// (tests/distribute/sharded_test.cpp) and the MPI tests (mpi_test.cpp): each is compared with the
// same program unsharded (STYLE.md, "Sharded equals unsharded").
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::testing::sharded {

using distribute::shard;
using distribute::shard_range;
using tracing::Values;

// A model with its data, and values of its latent and observed sites: `replicated` for the
// replicated sites, `sharded` for the sharded ones (whole; each device takes its rows).
struct Case {
  std::string name;
  std::function<void()> program;
  Values replicated, sharded;
};

// n x d features and 0/1 labels from a fixed key.
inline Tensor features(std::int64_t n, std::int64_t d, std::uint64_t seed) {
  return random::normal(random::Key(seed), Shape{n, d});
}
inline Tensor labels(std::int64_t n, std::uint64_t seed) {
  return random::bernoulli(random::Key(seed), Tensor::scalar(0.4), Shape{n});
}

inline DistributionPtr normal(Tensor loc, Tensor scale) { return std::make_shared<dist::Normal>(loc, scale); }
inline DistributionPtr bernoulli_logits(Tensor logits) {
  return std::make_shared<dist::Bernoulli>(dist::Bernoulli::from_logits(logits));
}

// Logistic regression with the data split over the devices (11 rows: ragged on 2-4 devices).
inline Case sharded_data() {
  const Tensor x = features(11, 3, 1);
  return {"data only",
          [x] {
            auto w = Normal(Tensor::zeros(Shape{3}), 1.0, "w");
            auto alpha = Normal(0.0, 2.0, "alpha");
            Sharded(bernoulli_logits(matmul(shard(x, "data"), w) + alpha), "data", "y");
          },
          {{"w", Tensor::from(std::vector<double>{0.3, -0.7, 1.1}, Shape{3})}, {"alpha", Tensor::scalar(-0.2)}},
          {{"y", labels(11, 2)}}};
}

// A hierarchical model with a local latent per row: z_i ~ N(mu, sigma), y_i ~ N(z_i, 1).
inline Case sharded_latents() {
  return {"local latents",
          [] {
            auto mu = Normal(0.0, 10.0, "mu");
            auto sigma = HalfNormal(1.0, "sigma");
            auto z = Sharded(normal(mu, sigma), "data", "z", {shard_range(7, "data").size()});
            Sharded(normal(z, 1.0), "data", "y");
          },
          {{"mu", Tensor::scalar(0.4)}, {"sigma", Tensor::scalar(1.3)}},
          {{"z", random::normal(random::Key(3), Shape{7})}, {"y", random::normal(random::Key(4), Shape{7})}}};
}

// Matrix factorization as in MovieLens: users (and their embeddings and biases) sharded, movie
// embeddings and biases replicated; logits = U V^T + b_user + b_movie.
inline Case movielens_style() {
  const std::int64_t users = 5, movies = 4, k = 2;
  const Tensor watched = random::bernoulli(random::Key(5), Tensor::scalar(0.5), Shape{users, movies});
  return {"matrix factorization",
          [] {
            const std::int64_t mine = shard_range(users, "data").size();
            auto v = Normal(Tensor::zeros(Shape{movies, k}), 1.0, "v");
            auto b_movie = Normal(Tensor::zeros(Shape{movies}), 1.0, "b_movie");
            auto u = Sharded(normal(Tensor::zeros(Shape{k}), 1.0), "data", "u", {mine});
            auto b_user = Sharded(normal(0.0, 1.0), "data", "b_user", {mine});
            const Tensor logits = matmul(u, v, false, true) + expand_dims(b_user, -1) + expand_dims(b_movie, -2);
            Sharded(bernoulli_logits(logits), "data", "watched");
          },
          {{"v", random::normal(random::Key(6), Shape{movies, k})},
           {"b_movie", random::normal(random::Key(7), Shape{movies})}},
          {{"u", random::normal(random::Key(8), Shape{users, k})},
           {"b_user", random::normal(random::Key(9), Shape{users})},
           {"watched", watched}}};
}

inline std::vector<Case> cases() { return {sharded_data(), sharded_latents(), movielens_style()}; }

// Programs that call collectives themselves (distribute/sharded_program.hpp): mu ~ N(0, 1) and t
// replicated, z (7 rows) and y sharded, with a replicated statistic s of z made by a collective
// (by the same local op outside a mesh): z ~ N(mu, 1), y ~ N(z - s / 7, 1), t ~ N(s, 1).
constexpr std::int64_t statistic_rows = 7;

inline Case with_statistic(std::string name, std::function<Tensor(const Tensor&)> statistic) {
  return {std::move(name),
          [statistic] {
            auto mu = Normal(0.0, 1.0, "mu");
            auto z = Sharded(normal(mu, 1.0), "data", "z", {shard_range(statistic_rows, "data").size()});
            const Tensor s = statistic(z);
            Sharded(normal(z - s / double(statistic_rows), 1.0), "data", "y");
            Normal(s, 1.0, "t");
          },
          {{"mu", Tensor::scalar(0.3)}, {"t", Tensor::scalar(1.5)}},
          {{"z", random::normal(random::Key(21), Shape{statistic_rows})},
           {"y", random::normal(random::Key(22), Shape{statistic_rows})}}};
}

// Whether the program runs split over a mesh; outside one it is the unsharded program.
inline bool split() { return distribute::running_axis() != nullptr; }

// The statistic made by psum, pmean, pmax and all_gather.
inline std::vector<Case> collective_cases() {
  using namespace distribute;
  const Tensor weights = random::normal(random::Key(23), Shape{statistic_rows});
  return {
      with_statistic("psum", [](const Tensor& z) { return split() ? psum(sum(z), "data") : sum(z); }),
      with_statistic(
          "pmean",
          [](const Tensor& z) { return split() ? pmean(sum(z), "data") * double(axis_size("data")) : sum(z); }),
      with_statistic("pmax", [](const Tensor& z) { return split() ? pmax(max(z), "data") : max(z); }),
      with_statistic("all_gather",
                     [weights](const Tensor& z) { return sum((split() ? all_gather(z, "data") : z) * weights); }),
  };
}

// The log joint and its gradient with respect to the values named in `names`, in that order.
struct LogJointAndGrad {
  Tensor value;
  std::vector<Tensor> grads;
};

inline LogJointAndGrad log_joint_and_grad(const Case& c, const Values& values, const std::vector<std::string>& names,
                                          int batch_ndims = 0) {
  auto log_joint = tracing::make_log_joint(c.program, batch_ndims);
  std::vector<Tensor> inputs, grads(names.size()), scratch;
  for (const auto& n : names) inputs.push_back(values.at(n));
  LogJointAndGrad out;
  out.value = value_and_grad(
      [&](std::span<const Tensor> xs) {
        Values v = values;  // the values not in `names` enter as constants
        for (std::size_t i = 0; i < names.size(); ++i) v[names[i]] = xs[i];
        const Tensor lp = log_joint(v);
        return batch_ndims == 0 ? lp : sum(lp);
      },
      inputs, grads, scratch);
  out.grads = grads;
  return out;
}

inline Values all_values(const Case& c) {
  Values v = c.replicated;
  v.insert(c.sharded.begin(), c.sharded.end());
  return v;
}

inline std::vector<std::string> names_of(const Values& v) {
  std::vector<std::string> out;
  for (const auto& [n, x] : v) out.push_back(n);
  return out;
}

inline void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const Tensor g = prim::cast(got, DType::f64), w = prim::cast(want, DType::f64);
  for (std::int64_t i = 0; i < w.numel(); ++i)
    EXPECT_NEAR(g.data<double>()[i], w.data<double>()[i], 1e-12 * (1 + std::abs(w.data<double>()[i])))
        << what << " [" << i << "]";
}

}  // namespace variate::testing::sharded
