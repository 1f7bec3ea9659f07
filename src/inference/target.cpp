#include "variate/inference/target.hpp"

#include "variate/autodiff/transforms.hpp"

namespace variate::inference {

Target make_target(const Unconstrained& space, DType dtype) {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "make_target", "expected dtype f64 or f32, got ",
                name(dtype));
  Target target;
  target.dimension = space.dimension();
  target.shard_axis = space.shard_axis();
  target.replicated_dimension = space.replicated_dimension();
  target.evaluate = [&space, dtype, d = space.dimension()](std::span<const double> positions, std::int64_t batch,
                                                            std::span<double> log_density, std::span<double> gradient) {
    VARIATE_CHECK(batch >= 1 && std::int64_t(positions.size()) == batch * d &&
                      std::int64_t(log_density.size()) == batch && gradient.size() == positions.size(),
                  "Target::evaluate", "expected ", batch, " positions of dimension ", d, ", got ", positions.size(),
                  " numbers, ", log_density.size(), " log densities and ", gradient.size(), " gradient entries");
    // A single position stays rank 1, so the model sees no batch dimension at all.
    const Shape shape = batch == 1 ? Shape{d} : Shape{batch, d};
    const Tensor flat = prim::cast(Tensor::from(positions, shape), dtype);
    auto result = vjp([&space](const Tensor& x) { return space.log_density(x); },
                      Tensor::ones(batch == 1 ? Shape{} : Shape{batch}, dtype), flat);
    const Tensor lp = prim::cast(result.value, DType::f64);
    const Tensor g = prim::cast(result.grads[0], DType::f64);
    std::copy_n(lp.data<double>(), batch, log_density.data());
    std::copy_n(g.data<double>(), batch * d, gradient.data());
  };
  return target;
}

}  // namespace variate::inference
