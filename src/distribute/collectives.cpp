// Collectives and their backward rules (the semantics are in distribute/collectives.hpp and
// docs/distribute.md). Each device reduces every device's contribution itself, in device order,
// so results are bitwise identical everywhere; the cost is (n - 1) element-wise ops per device,
// small next to the model for the reductions these are used for (log densities, gradients).
#include "variate/distribute/collectives.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "distribute/communicator.hpp"
#include "distribute/sharded_program.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/tensor/prim.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::distribute {

using autodiff::BackwardContext;
using autodiff::record;
using detail::Communicator;

namespace {

void check_defined(const char* op, const Communicator& comm, const Tensor& x) {
  VARIATE_CHECK(x.defined(), op, "device ", comm.index(), " of axis '", comm.axis(), "' passed an undefined tensor");
}

// Throws the same message on every device when the devices' tensors differ in dtype or rank, or in
// a dimension other than `free_dim` (-1: none may differ).
void check_same(const char* op, const Communicator& comm, std::span<const Tensor> xs, int free_dim) {
  const Tensor& first = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    bool same = x.dtype() == first.dtype() && x.rank() == first.rank();
    for (int d = 0; same && d < x.rank(); ++d) same = d == free_dim || x.dim(d) == first.dim(d);
    if (same) continue;
    if (free_dim < 0)
      ::variate::detail::fail(op, ": over axis '", comm.axis(), "', device ", i, " passed a tensor of shape ",
                              x.shape(), " (", x.dtype(), ") but device 0 passed ", first.shape(), " (", first.dtype(),
                              "); every device must pass the same shape and dtype");
    ::variate::detail::fail(op, ": over axis '", comm.axis(), "', device ", i, " passed a tensor of shape ", x.shape(),
                            " (", x.dtype(), ") but device 0 passed ", first.shape(), " (", first.dtype(),
                            "); the devices' tensors must agree in dtype and in every dimension but ", free_dim);
  }
}

// The element-wise sum of every device's x, added in device order. Kept in a kernel replay as one
// step: the communicator is looked up again at each replay, so a replay outside the mesh's run
// fails as an evaluation there would.
Tensor sum_over_devices(const char* op, Communicator& comm, const Tensor& x) {
  check_defined(op, comm, x);
  return replayable_collective({x}, [op, x, axis = comm.axis()]() {
    Communicator& c = detail::communicator(op, axis);
    // A copy: a thread device reads the others' tensors after the barrier, and in a kernel replay
    // x's block is rewritten by this device's next replay, which may start before they have.
    const std::span<const Tensor> xs = c.exchange(op, x.clone());
    check_same(op, c, xs, -1);
    if (xs.size() == 1) return autodiff::stop_gradient(xs[0]);
    Tensor total = prim::add(xs[0], xs[1]);
    for (std::size_t i = 2; i < xs.size(); ++i) total = prim::add(total, xs[i]);
    return total;
  });
}

void check_transfers(const Communicator& comm, std::span<const Transfer> transfers) {
  const int n = comm.size();
  std::vector<char> sends(std::size_t(n), 0), receives(std::size_t(n), 0);
  for (const Transfer& t : transfers) {
    VARIATE_CHECK(t.source >= 0 && t.source < n && t.destination >= 0 && t.destination < n, "ppermute", "over axis '",
                  comm.axis(), "' of ", n, " devices, the transfer ", t.source, " -> ", t.destination,
                  " names a device outside 0..", n - 1);
    VARIATE_CHECK(!sends[std::size_t(t.source)]++, "ppermute", "over axis '", comm.axis(), "', device ", t.source,
                  " is the source of two transfers; each device sends at most one tensor");
    VARIATE_CHECK(!receives[std::size_t(t.destination)]++, "ppermute", "over axis '", comm.axis(), "', device ",
                  t.destination, " is the destination of two transfers; each device receives at most one tensor");
  }
}

// The device that sends to `device` (-1: none), and the one `device` sends to (-1: none).
int source_of(std::span<const Transfer> transfers, int device) {
  for (const Transfer& t : transfers)
    if (t.destination == device) return t.source;
  return -1;
}
int destination_of(std::span<const Transfer> transfers, int device) {
  for (const Transfer& t : transfers)
    if (t.source == device) return t.destination;
  return -1;
}

// autodiff::record, but whenever a tape is active, even when x is a constant here: every device's
// sweep must reach a rule that communicates, a device that only receives included (its output is
// tracked; the constant input gets no cotangent).
template <class Rule>
Tensor record_on_every_device(Tensor out, const Tensor& x, Rule&& rule) {
  autodiff::detail::Tape* tape = autodiff::detail::active_tape();
  if (tape == nullptr) return autodiff::record(std::move(out), {x}, {}, std::forward<Rule>(rule));
  using R = std::decay_t<Rule>;
  void* mem = autodiff::detail::arena_allocate(tape, sizeof(R), alignof(R));
  new (mem) R(std::forward<Rule>(rule));
  return autodiff::detail::push_node(tape, std::move(out), std::span<const Tensor>(&x, 1), {}, mem,
                                     &autodiff::detail::invoke_rule<R>, &autodiff::detail::destroy_rule<R>, typeid(R),
                                     autodiff::SecondOrder::unsupported);
}

// What this device receives among the exchanged tensors: a copy of device `from`'s (the exchanged
// ones are only valid until the next exchange), or zeros shaped like `own` when nothing is sent to it.
Tensor received(std::span<const Tensor> xs, int from, const Tensor& own) {
  if (from < 0) return Tensor::zeros(own.shape(), own.dtype(), own.device());
  return xs[std::size_t(from)].clone();
}

thread_local int sharded_program_depth = 0;

// Identity forward; backward, the psum of the devices' cotangents.
Tensor broadcast(Communicator& comm, const Tensor& x) {
  check_defined("pbroadcast", comm, x);
  // The communicator outlives the tape: tapes are thread-local and a device's tape scopes close
  // before its run's function returns.
  Communicator* c = &comm;
  return record(autodiff::stop_gradient(x), {x}, {}, [c](const BackwardContext& ctx) {
    ctx.add(0, sum_over_devices("pbroadcast (backward psum)", *c, ctx.grad()));
  });
}

// A collective's replicated result as the program goes on with it: inside a sharded program it
// enters through pbroadcast, as a replicated site's value does (distribute/sharded_program.hpp).
Tensor entering_program(Communicator& comm, Tensor result) {
  if (sharded_program_depth == 0 || !autodiff::detail::is_tracked(result)) return result;
  return broadcast(comm, result);
}

// The result is replicated: its cotangent, the same on every device, is the cotangent of the one
// quantity it stands for, and flows to each device's summand unchanged.
Tensor sum_passing_cotangent(Communicator& comm, const Tensor& x) {
  return record(sum_over_devices("psum", comm, x), {x}, {}, [](const BackwardContext& ctx) { ctx.add(0, ctx.grad()); });
}

}  // namespace

namespace detail {

ShardedProgramScope::ShardedProgramScope() { ++sharded_program_depth; }
ShardedProgramScope::~ShardedProgramScope() { --sharded_program_depth; }

Tensor broadcast_entering_value(const Tensor& x, std::string_view axis) {
  return broadcast(communicator("pbroadcast", axis), x);
}

Tensor psum_of_terms(const Tensor& x, std::string_view axis) {
  return sum_passing_cotangent(communicator("psum", axis), x);
}

}  // namespace detail

Tensor ppermute(const Tensor& x, std::string_view axis, std::span<const Transfer> transfers) {
  Communicator& comm = detail::communicator("ppermute", axis);
  not_replayable("ppermute over devices");  // the result is another device's tensor
  check_defined("ppermute", comm, x);
  check_transfers(comm, transfers);
  const int from = source_of(transfers, comm.index()), to = destination_of(transfers, comm.index());
  Tensor y = received(comm.exchange("ppermute", x), from, x);
  // The transpose: the cotangent of a sent tensor is the one its destination holds for what it
  // received. Every device exchanges, so that the sweeps meet, whether or not it sent anything.
  Communicator* c = &comm;
  return record_on_every_device(std::move(y), x, [c, to](const BackwardContext& ctx) {
    const std::span<const Tensor> cotangents = c->exchange("ppermute (backward)", ctx.grad());
    if (to < 0)
      ctx.add(0, Tensor::zeros(ctx.input_shape(0), ctx.grad().dtype(), ctx.grad().device()));
    else
      ctx.add(0, cotangents[std::size_t(to)].clone());
  });
}

Tensor psum(const Tensor& x, std::string_view axis) {
  Communicator& comm = detail::communicator("psum", axis);
  return entering_program(comm, sum_passing_cotangent(comm, x));
}

Tensor pmean(const Tensor& x, std::string_view axis) {
  Communicator& comm = detail::communicator("pmean", axis);
  check_defined("pmean", comm, x);
  const Tensor xf = is_floating(x.dtype()) ? x : prim::cast(x, float_type(x.dtype()));
  const double n = comm.size();
  Tensor mean = prim::binary(BinaryOp::div, sum_over_devices("pmean", comm, xf), n);
  return entering_program(comm, record(mean, {x}, {}, [n](const BackwardContext& ctx) {
                            ctx.add(0, prim::binary(BinaryOp::div, ctx.grad(), n));
                          }));
}

Tensor pmax(const Tensor& x, std::string_view axis) {
  Communicator& comm = detail::communicator("pmax", axis);
  not_replayable("pmax over devices");  // its kernels read the other devices' tensors
  check_defined("pmax", comm, x);
  const std::span<const Tensor> xs = comm.exchange("pmax", x);
  check_same("pmax", comm, xs, -1);
  Tensor y = autodiff::stop_gradient(xs[0]);
  for (std::size_t i = 1; i < xs.size(); ++i) y = prim::binary(BinaryOp::maximum, y, xs[i]);
  if (!autodiff::detail::is_tracked(x)) return y;
  // This device's share of each element's cotangent: 1 / (number of devices attaining the
  // maximum) where it attains it, else 0. Counted from the exchanged tensors, so the backward pass
  // needs no communication. (A NaN maximum is attained by no device: share 0.)
  Tensor ties = prim::cast(prim::binary(BinaryOp::eq, xs[0], y), x.dtype());
  for (std::size_t i = 1; i < xs.size(); ++i)
    ties = prim::add(ties, prim::cast(prim::binary(BinaryOp::eq, xs[i], y), x.dtype()));
  const Tensor mine = prim::cast(prim::binary(BinaryOp::eq, x, y), x.dtype());
  const Tensor share = prim::div(mine, prim::binary(BinaryOp::maximum, ties, 1.0));
  return entering_program(comm, record(y, {x}, {share}, [](const BackwardContext& ctx) {
                            ctx.add(0, prim::mul(ctx.grad(), ctx.saved(0)));
                          }));
}

Tensor pbroadcast(const Tensor& x, std::string_view axis) {
  Communicator& comm = detail::communicator("pbroadcast", axis);
  VARIATE_CHECK(sharded_program_depth == 0, "pbroadcast",
                "called inside a sharded program (a log joint on a mesh), where replicated values are broadcast "
                "where they enter: latent sites by the log joint, the results of psum, pmean, pmax and all_gather by "
                "those collectives; another pbroadcast would count their gradients once per device");
  // Each device's cotangent is the part of the gradient from its own terms; the replicated value's
  // gradient is their sum, which every device gets.
  return broadcast(comm, x);
}

Tensor all_gather(const Tensor& x, std::string_view axis, int dim) {
  Communicator& comm = detail::communicator("all_gather", axis);
  not_replayable("all_gather over devices");  // its concatenation reads the other devices' tensors
  check_defined("all_gather", comm, x);
  const std::span<const Tensor> xs = comm.exchange("all_gather", x);
  VARIATE_CHECK(xs[0].rank() >= 1, "all_gather", "over axis '", comm.axis(),
                "', device 0 passed a scalar; all_gather concatenates along a dimension (reshape scalars to [1])");
  const int d = normalize_axis("all_gather", dim, xs[0].rank());
  check_same("all_gather", comm, xs, d);
  std::int64_t start = 0;
  for (int i = 0; i < comm.index(); ++i) start += xs[std::size_t(i)].dim(d);
  const std::int64_t stop = start + x.dim(d);
  // The gathered tensor is replicated, so this device's part of its cotangent is the gradient of
  // its shard, as in the unsharded concatenation.
  return entering_program(comm, record(prim::concat(xs, d), {x}, {}, [d, start, stop](const BackwardContext& ctx) {
                            ctx.add(0, prim::slice(ctx.grad(), d, start, stop));
                          }));
}

void psum_in_place(std::span<double> values, std::string_view axis, const char* what) {
  if (values.empty()) return;
  Communicator& comm = detail::communicator(what, axis);
  const Tensor x = Tensor::from(std::span<const double>(values), Shape{std::int64_t(values.size())});
  const Tensor total = sum_over_devices(what, comm, x);
  std::copy_n(total.data<double>(), values.size(), values.data());
}

void check_replicated(std::uint64_t value, std::string_view axis, const char* what) {
  Communicator& comm = detail::communicator(what, axis);
  const Tensor mine = Tensor::from(std::vector<std::int64_t>{std::int64_t(value)}, Shape{1});
  const std::span<const Tensor> all = comm.exchange(what, mine);
  const auto value_of = [&](std::size_t i) { return std::uint64_t(all[i].data<std::int64_t>()[0]); };
  for (std::size_t i = 1; i < all.size(); ++i)
    if (value_of(i) != value_of(0)) {
      std::ostringstream out;
      out << what << ": device " << i << " of axis '" << comm.axis() << "' holds 0x" << std::hex << value_of(i)
          << " but device 0 holds 0x" << value_of(0) << "; every device must hold the same";
      throw Error(out.str());
    }
}

}  // namespace variate::distribute
