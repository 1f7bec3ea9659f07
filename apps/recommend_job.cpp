#include "recommend_job.hpp"

#include <iomanip>
#include <nlohmann/json.hpp>

#include "factor_draws.hpp"
#include "recommend.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

// The data the run read, checked against its draws.
data::WatchData run_data(const RecommendJobOptions& o, const FactorRun& run) {
  data::WatchData w = data::load_movielens_100k(o.data.empty() ? run.data : o.data);
  VARIATE_CHECK(w.num_users == run.all_users && w.num_movies == run.draws.movies, "recommend", "the data ",
                quote_input(o.data.empty() ? run.data : o.data), " has ", w.num_users, " users and ", w.num_movies,
                " movies, the run's draws ", run.all_users, " and ", run.draws.movies,
                "; expected the data the run read (pass it with --data)");
  return w;
}

// GroupLens' splits pair <name>.base with <name>.test.
std::string withheld_file(const std::string& data) {
  std::string path = data.ends_with(".gz") ? data.substr(0, data.size() - 3) : data;
  VARIATE_CHECK(path.ends_with(".base"), "recommend", "--evaluate: the run read ", quote_input(data),
                ", which withholds nothing. Sample with --data <ml-100k folder>/ua.base (GroupLens' split that "
                "withholds 10 ratings per user in ua.test), or name the withheld ratings with --test");
  return path.substr(0, path.size() - 5) + ".test";
}

int print_recommendations(const RecommendJobOptions& o, std::ostream& out) {
  const FactorRun run = read_factor_run(o.dir, o.user - 1);
  const data::WatchData w = run_data(o, run);
  std::vector<char> excluded(std::size_t(w.num_movies), 0);
  std::int64_t rated = 0;
  for (const data::Watch& x : w.watches)
    if (x.user == o.user - 1) ++rated, excluded[std::size_t(x.movie)] = o.exclude_rated;
  const std::vector<Recommendation> top = recommend(run.draws, 0, excluded, o.top, o.interval);

  const int percent = int(std::lround(100 * o.interval));
  out << "user " << o.user << " (" << rated << " movies rated): the top " << o.top << " of "
      << (o.exclude_rated ? "the unrated movies" : "all movies") << " by the posterior mean of P(watch), over "
      << run.draws.count << " draws\n"
      << " rank  movie  P(watch)  " << std::setw(2) << percent << "% interval     P(in top " << o.top << ")  title\n";
  nlohmann::ordered_json movies = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < top.size(); ++i) {
    const Recommendation& r = top[i];
    const std::string& title = w.titles[std::size_t(r.movie)];
    out << std::fixed << std::setprecision(3) << std::setw(5) << i + 1 << std::setw(7) << r.movie + 1 << std::setw(10)
        << r.mean << "  [" << r.lower << ", " << r.upper << "]" << std::setw(13) << r.in_top << "  " << title << '\n'
        << std::defaultfloat;
    movies.push_back({{"rank", i + 1},
                      {"movie", r.movie + 1},
                      {"title", title},
                      {"mean", r.mean},
                      {"lower", r.lower},
                      {"upper", r.upper},
                      {"in_top", r.in_top}});
  }
  if (!o.json.empty())
    write_file("recommend", o.json, [&](std::ostream& f) {
      f << nlohmann::ordered_json{{"user", o.user},
                                  {"top", o.top},
                                  {"exclude_rated", o.exclude_rated},
                                  {"interval", o.interval},
                                  {"draws", run.draws.count},
                                  {"movies", movies}}
               .dump(2)
        << '\n';
    });
  return 0;
}

nlohmann::ordered_json to_json(const HeldOutScores& s) {
  return {{"log_likelihood", s.log_likelihood}, {"auc_watched", s.auc_watched}, {"auc_liked", s.auc_liked}};
}

int print_evaluation(const RecommendJobOptions& o, std::ostream& out) {
  const FactorRun run = read_factor_run(o.dir, std::nullopt);
  const data::WatchData w = run_data(o, run);
  const std::string test = o.test.empty() ? withheld_file(o.data.empty() ? run.data : o.data) : o.test;
  const HeldOutEvaluation e = evaluate_held_out(run.draws, w, data::read_movielens_ratings(test, w.num_movies));
  out << "held-out evaluation on the " << e.withheld << " ratings of " << test << " (" << e.liked
      << " of 4 or 5 stars), over " << e.draws << " draws\n"
      << "                                          posterior predictive   plug-in posterior means\n";
  const auto row = [&](const char* name, double HeldOutScores::*field) {
    out << std::left << std::setw(42) << name << std::right << std::fixed << std::setprecision(4) << std::setw(20)
        << e.posterior.*field << std::setw(26) << e.point.*field << '\n'
        << std::defaultfloat;
  };
  row("log P(watched) per withheld rating", &HeldOutScores::log_likelihood);
  row("AUC, withheld vs unwatched movies", &HeldOutScores::auc_watched);
  row("AUC, liked (4-5 stars) vs not, withheld", &HeldOutScores::auc_liked);
  if (!o.json.empty())
    write_file("recommend", o.json, [&](std::ostream& f) {
      f << nlohmann::ordered_json{{"test", test},
                                  {"withheld", e.withheld},
                                  {"liked", e.liked},
                                  {"unwatched", e.unwatched},
                                  {"draws", e.draws},
                                  {"posterior", to_json(e.posterior)},
                                  {"point", to_json(e.point)}}
               .dump(2)
        << '\n';
    });
  return 0;
}

}  // namespace

int run_recommend_job(const RecommendJobOptions& o, std::ostream& out) {
  VARIATE_CHECK(o.evaluate != (o.user > 0), "recommend", "give either --user ID (a user's recommendations) or ",
                "--evaluate (the held-out evaluation)", o.evaluate ? ", not both" : "");
  VARIATE_CHECK(o.evaluate || o.test.empty(), "recommend", "--test applies to --evaluate only");
  return o.evaluate ? print_evaluation(o, out) : print_recommendations(o, out);
}

}  // namespace variate::cli
