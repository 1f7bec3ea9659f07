#pragma once
// The neural-network layer in one include: modules, layers, a recurrent layer, MADE, checkpoints,
// optimizers and schedules, L-BFGS, the training loop.
#include "variate/autodiff/nn_ops.hpp"
#include "variate/nn/attention.hpp"
#include "variate/nn/checkpoint.hpp"
#include "variate/nn/functional.hpp"
#include "variate/nn/init.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/lbfgs.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/made.hpp"
#include "variate/nn/module.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/recurrent.hpp"
#include "variate/nn/schedule.hpp"
#include "variate/nn/sequential.hpp"
#include "variate/nn/train.hpp"
