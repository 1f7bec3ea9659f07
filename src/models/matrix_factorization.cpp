// Bayesian matrix factorization of a binary watch matrix (the MovieLens case of TFP's distributed
// inference notebook): users, their embeddings and biases sharded over the mesh, movies replicated.
// Its data: `watched`, users x movies of 0 and 1, whose entry names (if any) title the movies. A
// built-in model, and a model plugin as it stands (`variate build`).
#include <algorithm>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {
namespace {

constexpr std::int64_t kEmbedding = 20;  // D, as in the notebook
constexpr int kShown = 5;                // movies listed per user

// For one user: how often each movie was the highest-scoring unwatched movie over the draws.
struct TopPicks {
  std::string who;
  std::int64_t user = 0, watched = 0;
  std::vector<char> seen;  // per movie: already watched
  std::map<std::int64_t, std::int64_t> counts;
};

// For the most and the least active user, how often each unwatched movie was the top pick across
// the posterior draws.
class Recommendations final : public PosteriorReport {
 public:
  // `watched` is the f64 (users, movies) matrix of 0 and 1.
  Recommendations(const Tensor& watched, std::vector<std::string> titles) : titles_(std::move(titles)) {
    const std::int64_t users = watched.dim(0), movies = watched.dim(1);
    const double* cells = watched.data<double>();
    std::vector<std::int64_t> activity(std::size_t(users), 0);
    for (std::int64_t u = 0; u < users; ++u)
      for (std::int64_t m = 0; m < movies; ++m) activity[std::size_t(u)] += cells[u * movies + m] != 0;
    const auto [least, most] = std::minmax_element(activity.begin(), activity.end());
    for (auto [who, it] : {std::pair{"most", most}, std::pair{"least", least}}) {
      TopPicks t;
      t.who = who;
      t.user = it - activity.begin();
      t.watched = *it;
      t.seen.assign(std::size_t(movies), 0);
      for (std::int64_t m = 0; m < movies; ++m) t.seen[std::size_t(m)] = cells[t.user * movies + m] != 0;
      users_.push_back(std::move(t));
    }
  }

  // Threaded chains deliver their draws concurrently.
  void add_draw(const tracing::Values& draw) override {
    std::lock_guard lock(mutex_);
    const Tensor u = cast(draw.at("u"), DType::f64), v = cast(draw.at("v"), DType::f64);
    const Tensor b = cast(draw.at("b_movie"), DType::f64);
    const std::int64_t movies = v.dim(0), k = v.dim(1);
    for (TopPicks& t : users_) {
      // The user's bias is the same for every movie, so it does not change the ranking.
      const double* row = u.data<double>() + t.user * k;
      std::int64_t best = -1;
      double best_score = 0;
      for (std::int64_t m = 0; m < movies; ++m) {
        if (t.seen[std::size_t(m)]) continue;
        double score = b.data<double>()[m];
        for (std::int64_t j = 0; j < k; ++j) score += row[j] * v.data<double>()[m * k + j];
        if (best < 0 || score > best_score) best = m, best_score = score;
      }
      if (best >= 0) ++t.counts[best];
    }
    ++draws_;
  }

  void print(std::ostream& out) const override {
    std::lock_guard lock(mutex_);
    out << "\nrecommendations: how often each unwatched movie was the top pick over " << draws_ << " posterior draws\n";
    for (const TopPicks& t : users_) {
      out << "  the " << t.who << " active user (user " << t.user + 1 << ", " << t.watched << " movies watched):\n";
      std::vector<std::pair<std::int64_t, std::int64_t>> ranked(t.counts.begin(), t.counts.end());
      std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
      for (std::size_t i = 0; i < ranked.size() && i < std::size_t(kShown); ++i)
        out << "    " << std::fixed << std::setprecision(1) << std::setw(5)
            << 100.0 * double(ranked[i].second) / double(std::max<std::int64_t>(draws_, 1)) << "%  "
            << title(ranked[i].first) << '\n'
            << std::defaultfloat;
      if (ranked.size() > std::size_t(kShown))
        out << "    (" << ranked.size() - std::size_t(kShown) << " other movies were top picks less often)\n";
    }
  }

 private:
  std::string title(std::int64_t movie) const {
    return titles_.empty() ? "movie " + std::to_string(movie + 1) : titles_[std::size_t(movie)];
  }

  std::vector<std::string> titles_;
  std::vector<TopPicks> users_;
  std::int64_t draws_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace

Definition matrix_factorization(const ModelData& data) {
  const Tensor watched = data.matrix("watched");
  const std::int64_t users = watched.dim(0), movies = watched.dim(1);
  const Tensor cells = cast(watched, DType::f64);  // for the checks and the report
  const double* cell = cells.data<double>();
  std::int64_t watches = 0;
  for (std::int64_t i = 0; i < users * movies; ++i) {
    if (cell[i] != 0 && cell[i] != 1)
      detail::fail(data.source(), ": variable 'watched' has ", cell[i], " at position ", i + 1,
                   "; expected 0 (not watched) or 1 (watched)");
    watches += cell[i] == 1;
  }
  const std::vector<std::string>& titles = data.entry_names("watched");
  if (!titles.empty() && std::int64_t(titles.size()) != movies)
    detail::fail(data.source(), ": variable 'watched' names ", titles.size(), " movies but has ", movies, " columns");
  const DType dtype = data.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype);

  Definition m;
  std::ostringstream description;
  description << "matrix factorization: U ~ Normal(0, 1) [" << users << " x " << kEmbedding << "] and b_user [" << users
              << "] sharded by user, V ~ Normal(0, 1) [" << movies << " x " << kEmbedding << "], b_movie [" << movies
              << "], watched ~ Bernoulli(logits = U V^T + b_user + b_movie)";
  m.description = description.str();
  std::ostringstream summary;
  summary << users << " users x " << movies << " movies, " << watches << " watched";
  m.data_summary = summary.str();
  m.program = [watched = distribute::ShardedData(watched, "data"), zero, one, users, movies] {
    const std::int64_t mine = distribute::shard_range(users, "data").size();
    auto v = Normal(zero, one, "v", {movies, kEmbedding});
    auto b_movie = Normal(zero, one, "b_movie", {movies});
    auto u = Sharded(std::make_shared<dist::Normal>(zero, one), "data", "u", {mine, kEmbedding});
    auto b_user = Sharded(std::make_shared<dist::Normal>(zero, one), "data", "b_user", {mine});
    // U V^T + b_user + b_movie as one product of factors with two more columns, [u, b_user, 1] times
    // [v, 1, b_movie]^T: the same sum, made in the product's pass over the (users, movies) logits
    // rather than in two more passes of broadcast adds, and the biases' gradients come out of the
    // backward products rather than two reductions over the logits' cotangent. Right-aligned for a
    // leading chain dimension: u (C, users, D), v (C, movies, D), biases (C, users) and (C, movies).
    const Tensor user_bias = expand_dims(b_user, -1), movie_bias = expand_dims(b_movie, -1);
    const Tensor user_factors = concat({u, user_bias, Tensor::ones(user_bias.shape(), user_bias.dtype())}, -1);
    const Tensor movie_factors = concat({v, Tensor::ones(movie_bias.shape(), movie_bias.dtype()), movie_bias}, -1);
    const Tensor logits = matmul(user_factors, movie_factors, false, true);
    tracing::Condition observed({{"watched", watched.local()}});
    Sharded(std::make_shared<dist::Bernoulli>(dist::Bernoulli::from_logits(logits)), "data", "watched");
  };
  m.saved_sites = {"b_movie", "b_user"};
  m.unsaved = "the embeddings u and v are identified only up to a rotation, so their draws are not summarized";
  for (std::int64_t j = 1; j <= std::min<std::int64_t>(movies, 6); ++j)
    m.main_parameters.push_back("b_movie." + std::to_string(j));
  m.report = std::make_shared<Recommendations>(cells, titles);
  return m;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::matrix_factorization)
