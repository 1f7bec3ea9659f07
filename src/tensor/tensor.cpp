#include "variate/tensor/tensor.hpp"

#include <cstring>
#include <ostream>

#include "variate/tensor/backend.hpp"

namespace variate {

namespace detail {
Storage* allocate_storage(std::size_t bytes, Device device) { return backend(device).allocate_storage(bytes); }
void release_storage(Storage* s) {
  if (s->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) backend(s->device).release_storage(s);
}
}  // namespace detail

Tensor::Tensor(double value) : Tensor(scalar(value)) {}

Tensor::Tensor(const Tensor& o) : storage_(o.storage_), shape_(o.shape_), dtype_(o.dtype_), tape_ref_(o.tape_ref_) {
  if (storage_) storage_->refs.fetch_add(1, std::memory_order_relaxed);
}

Tensor::Tensor(Tensor&& o) noexcept : storage_(o.storage_), shape_(o.shape_), dtype_(o.dtype_), tape_ref_(o.tape_ref_) {
  o.storage_ = nullptr;
}

Tensor& Tensor::operator=(const Tensor& o) {
  if (this != &o) {
    Tensor copy(o);
    *this = std::move(copy);
  }
  return *this;
}

Tensor& Tensor::operator=(Tensor&& o) noexcept {
  if (this != &o) {
    if (storage_) detail::release_storage(storage_);
    storage_ = o.storage_;
    shape_ = o.shape_;
    dtype_ = o.dtype_;
    tape_ref_ = o.tape_ref_;
    o.storage_ = nullptr;
  }
  return *this;
}

Tensor::~Tensor() {
  if (storage_) detail::release_storage(storage_);
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  Tensor t;
  t.storage_ = detail::allocate_storage(std::size_t(shape.numel()) * itemsize(dtype), device);
  t.shape_ = shape;
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  backend(device).fill(t, value);
  return t;
}
Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0.0, dtype, device); }
Tensor Tensor::ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }
Tensor Tensor::scalar(double value, DType dtype) { return full(Shape{}, value, dtype); }

template <class T>
Tensor Tensor::from(std::span<const T> values, const Shape& shape) {
  VARIATE_CHECK(std::int64_t(values.size()) == shape.numel(), "Tensor::from", values.size(),
                " values cannot fill shape ", shape, " (", shape.numel(), " elements expected)");
  Tensor t = empty(shape, dtype_of<T>::value);
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
  return t;
}
template Tensor Tensor::from<bool>(std::span<const bool>, const Shape&);
template Tensor Tensor::from<std::int32_t>(std::span<const std::int32_t>, const Shape&);
template Tensor Tensor::from<std::int64_t>(std::span<const std::int64_t>, const Shape&);
template Tensor Tensor::from<float>(std::span<const float>, const Shape&);
template Tensor Tensor::from<double>(std::span<const double>, const Shape&);

Tensor Tensor::vec(std::initializer_list<double> values, DType dtype) {
  Tensor t = empty(Shape{std::int64_t(values.size())}, dtype);
  dispatch_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* out = t.data<T>();
    for (double v : values) *out++ = static_cast<T>(v);
  });
  return t;
}

Tensor Tensor::arange(std::int64_t n, DType dtype) {
  Tensor t = empty(Shape{n}, dtype);
  dispatch_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* out = t.data<T>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(i);
  });
  return t;
}

double Tensor::item() const {
  VARIATE_CHECK(defined() && numel() == 1, "Tensor::item", "expected a tensor with one element, got shape ", shape_);
  return at(0);
}

double Tensor::at(std::int64_t i) const {
  VARIATE_CHECK(defined() && i >= 0 && i < numel(), "Tensor::at", "index ", i, " is out of range for shape ", shape_);
  VARIATE_CHECK(device().kind == DeviceKind::cpu, "Tensor::at", "element access needs a cpu tensor, got ", device());
  return dispatch_dtype(dtype_, [&](auto zero) {
    using T = decltype(zero);
    return static_cast<double>(static_cast<const T*>(raw())[i]);
  });
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  std::vector<T> out(static_cast<std::size_t>(numel()));
  for (std::int64_t i = 0; i < numel(); ++i) out[std::size_t(i)] = static_cast<T>(at(i));
  return out;
}
template std::vector<bool> Tensor::to_vector<bool>() const;
template std::vector<std::int32_t> Tensor::to_vector<std::int32_t>() const;
template std::vector<std::int64_t> Tensor::to_vector<std::int64_t>() const;
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;

Tensor Tensor::view(const Shape& shape) const {
  VARIATE_CHECK(defined() && shape.numel() == numel(), "reshape", "cannot view a tensor of shape ", shape_, " (",
                numel(), " elements) as shape ", shape, " (", shape.numel(), " elements)");
  Tensor t(*this);
  t.shape_ = shape;
  t.tape_ref_ = {};  // a view is a new value for autodiff (autodiff::reshape records it)
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_, device());
  if (numel() > 0) backend(device()).copy(*this, t);
  return t;
}

void Tensor::fail_dtype(DType expected) const {
  VARIATE_CHECK(defined(), "Tensor::data", "the tensor is undefined");
  variate::detail::fail("Tensor::data: requested ", expected, " elements from a tensor of dtype ", dtype_);
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  if (!t.defined()) return out << "Tensor(undefined)";
  out << "Tensor(" << t.dtype() << ", shape=" << t.shape() << ", [";
  const std::int64_t n = t.numel(), shown = n > 20 ? 20 : n;
  for (std::int64_t i = 0; i < shown; ++i) out << (i ? ", " : "") << t.at(i);
  if (n > shown) out << ", ...";
  return out << "])";
}

}  // namespace variate
