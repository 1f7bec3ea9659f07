#include "variate/distributions/sample.hpp"

#include <vector>

namespace variate::dist {
namespace {

// Called in every base-initializer argument: their order of evaluation is unspecified.
const Distribution& checked(const DistributionPtr& base) {
  VARIATE_CHECK(base != nullptr, "Sample", "the base distribution is null");
  return *base;
}

Shape concat_shapes(const Shape& a, const Shape& b) {
  Shape s = a;
  for (auto d : b) s.push_back(d);
  return s;
}

// The axes 0..n-1 of a tensor, rearranged: the block [first, first + count) moves to `to`.
std::vector<int> move_block(int n, int first, int count, int to) {
  std::vector<int> rest, block;
  for (int i = 0; i < n; ++i) (i >= first && i < first + count ? block : rest).push_back(i);
  rest.insert(rest.begin() + to, block.begin(), block.end());
  return rest;
}

}  // namespace

Sample::Sample(DistributionPtr base, Shape sample_shape)
    : Distribution(checked(base).batch_shape(), concat_shapes(sample_shape, checked(base).event_shape()),
                   checked(base).dtype()),
      base_(std::move(base)),
      sample_shape_(sample_shape) {
  for (auto d : sample_shape_)
    VARIATE_CHECK(d >= 0, "Sample", "sample_shape must have non-negative dimensions, got ", sample_shape_);
}

Tensor Sample::sample(random::Key key, const Shape& sample_shape) const {
  // Draws come as sample_shape + iid + batch + event; the iid axes move behind the batch axes.
  const Tensor draws = base_->sample(key, concat_shapes(sample_shape, sample_shape_));
  return permute(draws, move_block(draws.rank(), sample_shape.rank(), sample_shape_.rank(),
                                   sample_shape.rank() + batch_shape().rank()));
}

Tensor Sample::log_prob(const Tensor& value) const {
  const int iid = sample_shape_.rank(), event = base_->event_shape().rank();
  const int lead = value.rank() - iid - event;
  const Shape trailing = event_shape();
  VARIATE_CHECK(lead >= 0 && Shape(value.shape().dims().last(std::size_t(iid + event))) == trailing, "Sample",
                "expected values whose trailing shape is ", trailing, " (sample_shape ", sample_shape_, " + the base ",
                base_->name(), "'s event shape ", base_->event_shape(), "), got shape ", value.shape());
  // Broadcast the leading axes against the batch first, so that after the iid axes move to the
  // front the rest still lines up with the base's batch shape.
  const Shape leading = broadcast_shapes("Sample", Shape(value.shape().dims().first(std::size_t(lead))), batch_shape());
  const Shape full = concat_shapes(leading, trailing);
  const Tensor x = value.shape() == full ? value : broadcast_to(value, full);
  const Tensor lp = base_->log_prob(permute(x, move_block(x.rank(), leading.rank(), iid, 0)));
  std::vector<int> iid_axes;
  for (int i = 0; i < iid; ++i) iid_axes.push_back(i);
  return iid == 0 ? lp : sum(lp, iid_axes);
}

Tensor Sample::repeat(const Tensor& x) const {
  Shape with_ones = batch_shape();
  for (int i = 0; i < sample_shape_.rank(); ++i) with_ones.push_back(1);
  for (auto d : base_->event_shape()) with_ones.push_back(d);
  const Tensor full = broadcast_to(x, concat_shapes(batch_shape(), base_->event_shape()));
  return broadcast_to(reshape(full, with_ones.dims()), concat_shapes(batch_shape(), event_shape()));
}

Tensor Sample::mean() const { return repeat(base_->mean()); }
Tensor Sample::variance() const { return repeat(base_->variance()); }

}  // namespace variate::dist
