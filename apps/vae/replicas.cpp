#include "replicas.hpp"

#include "variate/autodiff/ops.hpp"
#include "variate/distribute/data_parallel.hpp"

namespace variate::cli::vae {

struct Replicas::Replica {
  Replica(const Architecture& architecture, PosteriorKind posterior, random::Key init_key, double learning_rate,
          const FlowLayout& layout)
      : vae(architecture, posterior, init_key, layout),
        params(vae),
        adam(params, learning_rate, {.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-4}) {}
  Vae vae;
  nn::Parameters params;
  nn::Adam adam;
};

Replicas::Replicas(int devices, const Architecture& architecture, PosteriorKind posterior, random::Key init_key,
                   double learning_rate, const FlowLayout& layout)
    : mesh_(devices, "data") {
  for (int d = 0; d < devices; ++d)
    replicas_.push_back(std::make_unique<Replica>(architecture, posterior, init_key, learning_rate, layout));
}

Replicas::~Replicas() = default;

const Vae& Replicas::vae() const { return replicas_[0]->vae; }
std::int64_t Replicas::parameter_count() const { return replicas_[0]->params.count(); }

nn::TrainResult Replicas::train(const Tensor& images, const Bound& bound, random::Key key,
                                const nn::TrainOptions& options) {
  const random::Key binarize_key = random::fold_in(key, "binarize"), bound_key = random::fold_in(key, "bound");
  const bool one_device = mesh_.size() == 1;
  const auto results = mesh_.run([&] {
    Replica& r = *replicas_[std::size_t(distribute::axis_index("data"))];
    const distribute::ShardLoss loss = [&](const distribute::BatchShard& shard) {
      if (shard.examples.empty()) return Tensor::zeros(Shape{}, r.vae.architecture.dtype);
      const std::int64_t step = r.adam.steps_taken(), size = std::int64_t(shard.examples.size());
      const Tensor rows = Tensor::from(shard.global, Shape{shard.global_size()});
      const Tensor all = binarize(take(images, rows), random::fold_in(binarize_key, std::uint64_t(step)));
      const Tensor x = one_device ? all : slice(all, 0, shard.offset, shard.offset + size);
      random::Key noise = random::fold_in(bound_key, std::uint64_t(step));
      if (!one_device) noise = random::fold_in(noise, std::uint64_t(shard.offset));
      return -minibatch_bound(r.vae, x, bound, noise).surrogate / double(shard.global_size());
    };
    return distribute::train_data_parallel(r.adam, images.dim(0), key, loss, options, "data");
  });
  return results[0];
}

}  // namespace variate::cli::vae
