#pragma once
// The n-d array every layer works on: run-time dtype, device and shape; row-major, contiguous
// storage shared by reference count. Copying a Tensor copies the handle, not the data.
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/core/error.hpp"
#include "variate/core/shape.hpp"

namespace variate {

namespace detail {
/// A reference-counted block of device memory. Created by the device's backend allocator, which
/// recycles blocks, so steady-state loops make no heap allocation.
struct Storage {
  std::atomic<std::int64_t> refs{1};
  std::atomic<std::uint64_t> writes{0};  // see Tensor::write_count
  void* data = nullptr;
  std::size_t bytes = 0;
  Device device;
};
Storage* allocate_storage(std::size_t bytes, Device device);
void release_storage(Storage* s);

/// The kernel recording active on this thread (tensor/replay.hpp), if any: host code that touches a
/// tensor's elements reports it, since a replay would not run that code again.
struct RecordingState;
extern constinit thread_local RecordingState* t_recording;
void note_host_access(const Storage* s, bool write);
}  // namespace detail

/// Identity of a tensor on the autodiff tape (see autodiff/tape.hpp). The tensor layer only stores
/// it: a tensor whose epoch is not the active tape's is a constant.
struct TapeRef {
  std::uint32_t epoch = 0;
  std::int32_t slot = -1;
};

/// An n-d array with run-time dtype, device and shape; row-major, contiguous, its storage shared by
/// reference count (copying a Tensor copies the handle, not the data).
class Tensor {
 public:
  Tensor() = default;
  /// A rank-0 f64 tensor, so that numbers can be passed where tensors are expected:
  /// Normal(0.0, 1.0).
  Tensor(double value);  // NOLINT(google-explicit-constructor): deliberate, as in NumPy and JAX
  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  /// Uninitialized storage.
  static Tensor empty(const Shape& shape, DType dtype = DType::f64, Device device = {});
  static Tensor full(const Shape& shape, double value, DType dtype = DType::f64, Device device = {});
  static Tensor zeros(const Shape& shape, DType dtype = DType::f64, Device device = {});
  static Tensor ones(const Shape& shape, DType dtype = DType::f64, Device device = {});
  /// A rank-0 tensor.
  static Tensor scalar(double value, DType dtype = DType::f64);
  /// Copies `values` (any of bool/i32/i64/float/double) into a tensor of `shape` and its dtype.
  template <class T>
  static Tensor from(std::span<const T> values, const Shape& shape);
  template <class T>
  static Tensor from(const std::vector<T>& values, const Shape& shape) {
    return from(std::span<const T>(values.data(), values.size()), shape);
  }
  /// A vector tensor of the values (rank 1): Tensor::from(std::vector<double>{...}).
  template <class T>
  static Tensor from(const std::vector<T>& values) {
    return from(std::span<const T>(values.data(), values.size()), Shape{std::int64_t(values.size())});
  }
  /// A vector tensor from a list: Tensor::vec({1.0, 2.0}).
  static Tensor vec(std::initializer_list<double> values, DType dtype = DType::f64);
  /// 0, 1, ..., n-1.
  static Tensor arange(std::int64_t n, DType dtype = DType::i64);

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  std::int64_t dim(int axis) const { return shape_.dim(axis); }
  std::int64_t numel() const { return shape_.numel(); }
  std::size_t nbytes() const { return std::size_t(numel()) * itemsize(dtype_); }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_ ? storage_->device : Device{}; }

  /// Typed access to the elements; throws if T does not match the dtype.
  template <class T>
  T* data() {
    check_dtype(dtype_of<T>::value);
    return static_cast<T*>(raw());
  }
  template <class T>
  const T* data() const {
    check_dtype(dtype_of<T>::value);
    return static_cast<const T*>(raw());
  }
  void* raw() {
    watch_host_access(true);
    mark_written();
    return storage_->data;
  }
  const void* raw() const {
    watch_host_access(false);
    return storage_->data;
  }

  /// The single element of a one-element tensor, as double.
  double item() const;
  /// Element `i` of the flattened tensor, as double (for tests and printing; not for hot loops).
  double at(std::int64_t i) const;
  /// All elements converted to T.
  template <class T>
  std::vector<T> to_vector() const;
  /// Elements NumPy-style, one index per leading axis (negative from the end), the other axes kept:
  /// `x(i, j)` of a matrix is a rank-0 tensor, `x(i)` its row i. Differentiable: it is the autodiff
  /// layer's index(x, {i, j}) (declared in autodiff/ops.hpp, where it is defined with its rule), so
  /// a model indexes data and computed tensors alike. Throws naming the axis for an index out of range.
  template <class... Index>
  requires(std::is_integral_v<Index>&&...) Tensor operator()(Index... i) const { return element({std::int64_t(i)...}); }
  Tensor element(std::initializer_list<std::int64_t> indices) const;

  /// A tensor sharing this one's storage with another shape of the same element count.
  Tensor view(const Shape& shape) const;
  /// A deep copy with its own storage.
  Tensor clone() const;

  /// How many times the elements were handed out for writing (non-const data() or raw()), on
  /// any tensor sharing this one's storage. A kernel that keeps a derived copy of an input (the
  /// GLM's panels of x) compares it to see whether the input changed, as PyTorch's version counter;
  /// so a pointer from data() may be written through only until the tensor is next used, unless
  /// the writer calls mark_written after writing.
  std::uint64_t write_count() const { return storage_ ? storage_->writes.load(std::memory_order_relaxed) : 0; }
  /// Counts a write made through a pointer taken earlier (as a kernel replay's bound kernels do).
  void mark_written() { storage_->writes.fetch_add(1, std::memory_order_relaxed); }
  /// How many tensors share this one's storage (0 when undefined).
  std::int64_t use_count() const { return storage_ ? storage_->refs.load(std::memory_order_relaxed) : 0; }

  TapeRef tape_ref() const { return tape_ref_; }
  void set_tape_ref(TapeRef ref) { tape_ref_ = ref; }

 private:
  void check_dtype(DType expected) const {
    if (storage_ == nullptr || dtype_ != expected) [[unlikely]]
      fail_dtype(expected);
  }
  [[noreturn]] void fail_dtype(DType expected) const;
  void watch_host_access(bool write) const {
    if (detail::t_recording != nullptr) [[unlikely]]
      detail::note_host_access(storage_, write);
  }

  detail::Storage* storage_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::f64;
  TapeRef tape_ref_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

/// Calls fn(T{}) with T the C++ type of `dtype`.
template <class Fn>
decltype(auto) dispatch_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::boolean: return fn(bool{});
    case DType::i32: return fn(std::int32_t{});
    case DType::i64: return fn(std::int64_t{});
    case DType::f32: return fn(float{});
    case DType::f64: break;
  }
  return fn(double{});
}

}  // namespace variate
