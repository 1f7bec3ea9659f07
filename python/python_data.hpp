#pragma once
// Data given from Python as a dict of numpy arrays (or anything numpy.asarray takes: numbers,
// nested lists) turned into the variables a model reads, checked as the CmdStan JSON reader checks
// its files, so that a model sees the same data whichever way it came.
#include <pybind11/pybind11.h>

#include "variate/data/data_file.hpp"

namespace variate::python {

/// Names every variable that is not numeric (strings, objects, booleans, ragged lists) or holds a
/// NaN or an infinity, with the 0-based position of the first bad value.
data::DataFile data_from_dict(const pybind11::dict& data);

}  // namespace variate::python
