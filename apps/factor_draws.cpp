#include "factor_draws.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/data/output_folder.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/models/builtin.hpp"

namespace variate::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModel = "movielens";

// A Stan column name "site.i.j" split into its site and 1-based indices; no indices for "lp__".
struct ColumnName {
  std::string_view site;
  std::vector<std::int64_t> index;
};

ColumnName parse_column(std::string_view name) {
  ColumnName c;
  const auto dot = name.find('.');
  c.site = name.substr(0, dot);
  for (std::size_t start = dot; start != std::string_view::npos;) {
    const auto end = name.find('.', start + 1);
    const std::string_view field = name.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
    std::int64_t i = 0;
    const auto [end_of_number, error] = std::from_chars(field.data(), field.data() + field.size(), i);
    if (error != std::errc() || end_of_number != field.data() + field.size()) i = -1;  // outside every range
    c.index.push_back(i);
    start = end;
  }
  return c;
}

std::vector<std::string> chain_files(const std::string& dir) {
  VARIATE_CHECK(fs::is_directory(dir), "recommend", "no folder ", quote_input(dir),
                "; expected the output folder of `variate sample --model movielens --save-all`");
  std::vector<std::pair<int, std::string>> numbered;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (data::is_chain_file(name, kModel))
      numbered.emplace_back(std::stoi(name.substr(std::string(kModel).size() + 1)), e.path().string());
  }
  VARIATE_CHECK(!numbered.empty(), "recommend", "no MovieLens draws in ", quote_input(dir),
                ": expected chain files movielens-1.csv, ... written by `variate sample --model movielens --save-all`");
  std::sort(numbered.begin(), numbered.end());
  std::vector<std::string> files;
  for (auto& [chain, path] : numbered) files.push_back(std::move(path));
  return files;
}

// The sizes of U, V and the biases from a file's column names.
void read_sizes(const data::StanCsv& csv, FactorDraws& d) {
  bool has_u = false;
  for (const std::string& name : csv.header) {
    const ColumnName c = parse_column(name);
    if (c.site == "b_user") ++d.users;
    if (c.site == "b_movie") ++d.movies;
    if (c.site == "u") has_u = true;
    if (c.site == "v" && c.index.size() == 2) d.rank = std::max(d.rank, c.index[1]);
  }
  VARIATE_CHECK(has_u && d.rank > 0 && d.users > 0 && d.movies > 0, "recommend", csv.path,
                " has no columns of the embeddings u and v (or of the biases): the run did not write every latent. "
                "Rerun `variate sample --model movielens --save-all` (add --thin N to keep the files small; with "
                "--devices, use --sharded-draws gather)");
}

// Where one column's values go: its array, that array's values per draw and the column's offset
// within a draw's part.
struct Destination {
  std::vector<double>* array;
  std::int64_t per_draw, offset;
};

// Appends `csv`'s draws to `d`, whose sizes are set; `user` >= 0: only that user's rows were read.
void append_draws(const data::StanCsv& csv, std::int64_t user, FactorDraws& d) {
  const std::int64_t users = user >= 0 ? 1 : d.users;
  const std::int64_t u_size = users * d.rank, v_size = d.movies * d.rank;
  std::vector<Destination> to;
  std::set<std::pair<const std::vector<double>*, std::int64_t>> seen;
  for (const std::string& name : csv.columns) {
    const ColumnName c = parse_column(name);
    const std::size_t dims = c.site == "u" || c.site == "v" ? 2 : 1;
    const bool in_range =
        c.index.size() == dims && c.index[0] >= 1 && (dims == 1 || (c.index[1] >= 1 && c.index[1] <= d.rank));
    VARIATE_CHECK(in_range, "recommend", csv.path, ": column ", quote_input(name), " is not an element of ", c.site,
                  "; expected ",
                  dims == 2 ? "<site>.<row>.<column> with columns 1.." + std::to_string(d.rank) : "<site>.<index>");
    const std::int64_t i = user >= 0 ? 0 : c.index[0] - 1;  // the user's row
    if (c.site == "u") to.push_back({&d.u, u_size, i * d.rank + c.index[1] - 1});
    if (c.site == "v") to.push_back({&d.v, v_size, (c.index[0] - 1) * d.rank + c.index[1] - 1});
    if (c.site == "b_user") to.push_back({&d.b_user, users, i});
    if (c.site == "b_movie") to.push_back({&d.b_movie, d.movies, c.index[0] - 1});
    VARIATE_CHECK(to.back().offset < to.back().per_draw, "recommend", csv.path, ": column ", quote_input(name),
                  " is beyond the ", d.users, " users and ", d.movies, " movies of the run");
    VARIATE_CHECK(seen.emplace(to.back().array, to.back().offset).second, "recommend", csv.path, ": column ",
                  quote_input(name), " appears twice");
  }
  VARIATE_CHECK(std::int64_t(to.size()) == u_size + v_size + users + d.movies, "recommend", csv.path, " has ",
                to.size(), " columns of u, v, b_user and b_movie", user >= 0 ? " for the user" : "", ", expected ",
                u_size + v_size + users + d.movies, " (", users, " users and ", d.movies, " movies in ", d.rank,
                " dimensions, as in the first file)");
  const std::size_t rows = csv.draws.size();
  for (auto [array, per_draw, offset] : to)
    array->resize(std::size_t(d.count + std::int64_t(rows)) * std::size_t(per_draw));
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int64_t s = d.count + std::int64_t(r);
    for (std::size_t j = 0; j < to.size(); ++j)
      (*to[j].array)[std::size_t(s * to[j].per_draw + to[j].offset)] = csv.draws[r][j];
  }
  d.count += std::int64_t(rows);
}

}  // namespace

double FactorDraws::logit(std::int64_t s, std::int64_t i, std::int64_t m) const {
  const double* row = u.data() + (s * users + i) * rank;
  const double* column = v.data() + (s * movies + m) * rank;
  double sum = b_user[std::size_t(s * users + i)] + b_movie[std::size_t(s * movies + m)];
  for (std::int64_t k = 0; k < rank; ++k) sum += row[k] * column[k];
  return sum;
}

FactorDraws FactorDraws::means() const {
  FactorDraws m;
  m.count = 1, m.users = users, m.movies = movies, m.rank = rank;
  const auto average = [&](const std::vector<double>& all, std::vector<double>& mean) {
    const std::size_t per_draw = all.size() / std::size_t(count);
    mean.assign(per_draw, 0.0);
    for (std::size_t i = 0; i < all.size(); ++i) mean[i % per_draw] += all[i];
    for (double& x : mean) x /= double(count);
  };
  average(u, m.u), average(v, m.v), average(b_user, m.b_user), average(b_movie, m.b_movie);
  return m;
}

FactorRun read_factor_run(const std::string& dir, std::optional<std::int64_t> user) {
  FactorRun run;
  const std::string u_prefix = user ? "u." + std::to_string(*user + 1) + "." : "u.";
  const std::string b_user = "b_user." + std::to_string(user ? *user + 1 : 0);
  const auto keep = [&](std::string_view name) {
    return name.starts_with("v.") || name.starts_with("b_movie.") || name.starts_with(u_prefix) ||
           (user ? name == b_user : name.starts_with("b_user."));
  };
  for (const std::string& path : chain_files(dir)) {
    const data::StanCsv csv = data::read_stan_csv(path, keep);
    const std::string* model = csv.config_value("model");
    VARIATE_CHECK(model && *model == kModel, "recommend", path, " holds draws of model ",
                  model ? quote_input(*model) : std::string("(none named)"), "; expected movielens");
    if (run.draws.rank == 0) {
      read_sizes(csv, run.draws);
      run.all_users = run.draws.users;
      VARIATE_CHECK(!user || (*user >= 0 && *user < run.all_users), "recommend", "--user ", user ? *user + 1 : 0,
                    ": no such user; the run's users are 1..", run.all_users);
      if (user) run.draws.users = 1;
      const std::string* data = csv.config_value("file");
      // Runs before the default folder was recorded say "(embedded)".
      run.data = !data || *data == "(embedded)" ? models::find_builtin_model(kModel)->default_folder : *data;
      run.model = *model;
    }
    append_draws(csv, user ? *user : -1, run.draws);
  }
  VARIATE_CHECK(run.draws.count > 0, "recommend", "the chain files in ", quote_input(dir), " hold no draws");
  return run;
}

}  // namespace variate::cli
