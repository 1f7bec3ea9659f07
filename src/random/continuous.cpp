// Parameter-free continuous samplers: uniform, normal, exponential.
#include <type_traits>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"

namespace variate::random {

namespace {

template <class Draw>
Tensor draw_standard(const char* op, Key key, const Shape& shape, DType dtype, Draw draw) {
  VARIATE_CHECK(dtype == DType::f32 || dtype == DType::f64, op, "dtype must be f32 or f64, got ", dtype);
  Tensor out = Tensor::empty(shape, dtype);
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      y[i] = draw(s, T{});
    });
  });
  return out;
}

}  // namespace

Tensor uniform(Key key, const Shape& shape, DType dtype) {
  return draw_standard("uniform", key, shape, dtype, [](detail::Stream& s, auto t) {
    // Rounding a 53-bit double to float could give 1, so f32 draws use their own 24 bits.
    if constexpr (std::is_same_v<decltype(t), float>)
      return s.uniform_float();
    else
      return s.uniform();
  });
}

Tensor normal(Key key, const Shape& shape, DType dtype) {
  return draw_standard("normal", key, shape, dtype, [](detail::Stream& s, auto t) { return decltype(t)(s.normal()); });
}

Tensor exponential(Key key, const Shape& shape, DType dtype) {
  return draw_standard("exponential", key, shape, dtype,
                       [](detail::Stream& s, auto t) { return decltype(t)(s.exponential()); });
}

}  // namespace variate::random
