#include "image_transformer.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <numbers>
#include <optional>
#include <sstream>

#include "../write_file.hpp"
#include "figures.hpp"
#include "image_batches.hpp"
#include "learning_rate.hpp"
#include "replicas.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/autoregressive_bernoulli.hpp"
#include "variate/tracing/random_variable.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";
constexpr std::int64_t kEvalChunk = 100;  // test images per forward pass
const nn::AdamOptions kAdam{.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8};

using Network = nn::AutoregressiveTransformer;

class ImageTransformerTrainer final : public Trainer {
 public:
  ImageTransformerTrainer(const TrainJobOptions& o, const Tensor& images, std::int64_t image_cols, random::Key key)
      : o_(o),
        images_(images),
        key_(key),
        replicas_(
            o.devices,
            [&] {
              return std::make_unique<Network>(image_transformer_options(o, images.dim(1), image_cols, images.dtype()),
                                               random::fold_in(key, "init"));
            },
            learning_rate_schedule(o, images.dim(0)), kAdam) {}

  std::string describe() const override {
    const Network::Options& n = replicas_.model().options;
    std::ostringstream s;
    s << "Image Transformer over " << n.length << " pixels: " << n.layers << " layers, embedding " << n.embed_dim
      << ", " << n.num_heads << " heads, ";
    if (n.block_length > 0 && n.block_length < n.length)
      s << "local attention in blocks of " << n.block_length << " pixels";
    else
      s << "causal attention over the whole image";
    s << ", " << replicas_.parameter_count() << " parameters, " << o_.precision << "; exact log-likelihood, Adam (lr "
      << o_.learning_rate << describe_schedule(o_) << ", eps 1e-8), batch " << o_.batch;
    if (replicas_.devices() > 1) s << " over " << replicas_.devices() << " devices (data parallel)";
    return s.str();
  }

  bool writer() const override { return replicas_.writer(); }

  nn::TrainResult train(const nn::TrainOptions& options) override {
    const random::Key binarize_key = random::fold_in(key_, "binarize");
    const Replicas<Network>::Loss loss = [&](const Network& net, const distribute::BatchShard& shard,
                                             std::int64_t step) {
      if (shard.examples.empty()) return Tensor::zeros(Shape{}, net.dtype());
      const Tensor x = binarized_shard(images_, shard, random::fold_in(binarize_key, std::uint64_t(step)));
      return -sum(image_log_likelihoods(net, x)) / double(shard.global_size());
    };
    return replicas_.train(images_.dim(0), key_, loss, options);
  }

  // Exact: the log-likelihood of every image, kEvalChunk images per forward pass.
  MeanAndError test_bound(const Tensor& images, std::int64_t epoch) override {
    std::vector<double> values;
    for (std::int64_t first = 0; first < images.dim(0); first += kEvalChunk) {
      const Tensor x = slice(images, 0, first, std::min(images.dim(0), first + kEvalChunk));
      for (double v : cast(image_log_likelihoods(replicas_.model(), x), DType::f64).to_vector<double>())
        values.push_back(v);
    }
    last_score_ = {epoch, mean_and_error(values)};
    return last_score_->second;
  }

  std::vector<std::filesystem::path> write_figures(const std::filesystem::path& dir, const Tensor&,
                                                   std::int64_t image_rows, std::int64_t image_cols) override {
    const dist::AutoregressiveBernoulli law(replicas_.model());
    const Tensor samples = law.sample(random::fold_in(key_, "samples"), Shape{100});
    write_image_grid(dir / "samples.png", samples, image_rows, image_cols, 10);
    return {dir / "samples.png"};
  }

  void report_test_nll(const std::filesystem::path& dir, const Tensor& images, std::int64_t epochs, std::ostream& out,
                       std::ostream&) override {
    const auto start = std::chrono::steady_clock::now();
    const MeanAndError log_lik =
        last_score_ && last_score_->first == epochs ? last_score_->second : test_bound(images, epochs);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double nll = -log_lik.mean, bits = nll / (double(images.dim(1)) * std::numbers::ln2);
    out << "test NLL (exact, " << images.dim(0) << " test images): " << std::fixed << std::setprecision(2) << nll
        << " +- " << log_lik.standard_error << " nats per image, " << std::setprecision(4) << bits
        << " bits per dimension" << std::defaultfloat << std::setprecision(6) << "\n";
    write_file(kJob, (dir / "test_nll.json").string(), [&](std::ostream& file) {
      file << std::setprecision(10) << "{\"epochs\": " << epochs << ", \"images\": " << images.dim(0)
           << ", \"nll\": " << nll << ", \"standard_error\": " << log_lik.standard_error
           << ", \"bits_per_dim\": " << bits << ", \"seconds\": " << seconds << "}\n";
    });
  }

 private:
  const TrainJobOptions& o_;
  Tensor images_;
  random::Key key_;
  Replicas<Network> replicas_;
  std::optional<std::pair<std::int64_t, MeanAndError>> last_score_;  // the epoch scored last, and its score
};

}  // namespace

tracing::Program image_model_program(const nn::AutoregressiveTransformer& network, const Tensor& x) {
  return [&network, x] {
    tracing::Condition data({{"x", x}});
    RandomVariable(std::make_shared<const dist::AutoregressiveBernoulli>(network), "x", Shape{x.dim(0)});
  };
}

Tensor image_log_likelihoods(const nn::AutoregressiveTransformer& network, const Tensor& x) {
  tracing::LogJoint log_joint(tracing::LogJoint::LeadingDims{1});
  tracing::run_program(image_model_program(network, x));
  return log_joint.value();
}

nn::AutoregressiveTransformer::Options image_transformer_options(const TrainJobOptions& o, std::int64_t pixels,
                                                                 std::int64_t image_cols, DType dtype) {
  return {.length = pixels,
          .embed_dim = o.embed_dim,
          .layers = o.layers,
          .num_heads = o.heads,
          .block_length = o.block_length > 0 ? o.block_length : 2 * image_cols,
          .dtype = dtype};
}

std::unique_ptr<Trainer> make_image_transformer_trainer(const TrainJobOptions& o, const Tensor& images,
                                                        std::int64_t image_cols, random::Key key) {
  return std::make_unique<ImageTransformerTrainer>(o, images, image_cols, key);
}

}  // namespace variate::cli::vae
