#pragma once
// The CPU implementation of the kernel table. Methods are defined across the files of this folder,
// one family of kernels per file.
#include "variate/tensor/backend.hpp"

namespace variate::cpu {

class CpuBackend final : public Backend {
 public:
  detail::Storage* allocate_storage(std::size_t bytes) override;
  void release_storage(detail::Storage* s) override;
  std::int64_t system_allocations() const override;

  void fill(Tensor& out, double value) override;
  void copy(const Tensor& x, Tensor& out) override;
  void cast(const Tensor& x, Tensor& out) override;
  void unary(UnaryOp op, const Tensor& x, Tensor& out) override;
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override;
  void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) override;
  void betainc(const Tensor& a, const Tensor& b, const Tensor& x, Tensor& out) override;
  void broadcast_to(const Tensor& x, Tensor& out) override;

  void reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) override;
  void argmax(const Tensor& x, int axis, Tensor& out) override;
  void cumsum(const Tensor& x, int axis, bool reverse, Tensor& out) override;
  void linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint, Tensor& out) override;
  void sort(const Tensor& x, int axis, bool descending, Tensor* values, Tensor* indices) override;

  void matmul(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& out) override;

  void permute(const Tensor& x, std::span<const int> perm, Tensor& out) override;
  void slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override;
  void slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) override;
  void concat(std::span<const Tensor> xs, int axis, Tensor& out) override;
  void gather(const Tensor& x, int axis, const Tensor& index, Tensor& out) override;
  void scatter_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) override;
  void take(const Tensor& x, int axis, const Tensor& index, Tensor& out) override;
  void take_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) override;

  void bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y, Tensor& log_lik,
                           Tensor& grad_w, Tensor& grad_alpha) override;
  void normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma, const Tensor& y,
                     Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha, Tensor& grad_sigma) override;
  void categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, Tensor& log_lik,
                             Tensor& grad_w, Tensor& grad_b) override;

  bool cholesky(const Tensor& x, Tensor& out) override;
  void triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, Tensor& out) override;
  void cholesky_backward(const Tensor& l, const Tensor& l_grad, Tensor& out) override;
};

/// Element counts above which element-wise kernels split work across threads.
inline constexpr std::int64_t kParallelGrain = 1 << 15;

}  // namespace variate::cpu
