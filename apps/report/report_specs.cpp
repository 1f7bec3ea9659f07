#include "report_specs.hpp"

#include <algorithm>
#include <vector>

namespace variate::cli::report {
namespace {

// A line per chain over `x` and `y` of the data set `data`, coloured by chain.
nlohmann::json lines_by_chain(const char* data, const char* x, const char* y) {
  return nlohmann::json::parse(R"({
    "type": "group",
    "from": {"facet": {"name": "series", "data": ")" +
                               std::string(data) + R"(", "groupby": "chain"}},
    "marks": [{
      "type": "line", "from": {"data": "series"},
      "encode": {"update": {
        "x": {"scale": "x", "field": ")" +
                               std::string(x) + R"("},
        "y": {"scale": "y", "field": ")" +
                               std::string(y) + R"("},
        "stroke": {"scale": "color", "field": "chain"}, "strokeWidth": {"value": 1}, "strokeOpacity": {"value": 0.8}
      }}
    }]
  })");
}

const char* const kChainColor = R"({"name": "color", "type": "ordinal", "range": "category",
                                    "domain": {"signal": "chains"}})";
const char* const kChainLegend = R"({"stroke": "color", "fill": "color", "title": "chain", "orient": "right"})";

nlohmann::json base(int width, int height, const char* title) {
  nlohmann::json spec = nlohmann::json::parse(R"({
    "$schema": "https://vega.github.io/schema/vega/v5.json", "padding": 5, "autosize": "pad",
    "signals": [{"name": "parameter", "value": ""}, {"name": "chains", "value": []}]
  })");
  spec.update({{"width", width}, {"height", height}, {"title", nlohmann::json::parse(title)}});
  return spec;
}

nlohmann::json trace() {
  nlohmann::json spec = base(460, 180, R"({"text": {"signal": "'Trace of ' + parameter"}})");
  spec["data"] = nlohmann::json::parse(R"([{"name": "trace", "values": []}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "linear", "zero": false, "domain": {"data": "trace", "field": "iteration"}, "range": "width"},
    {"name": "y", "type": "linear", "zero": false, "nice": true, "domain": {"data": "trace", "field": "value"},
     "range": "height"}])");
  spec["scales"].push_back(nlohmann::json::parse(kChainColor));
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": "draw"},
                                           {"orient": "left", "scale": "y"}])");
  spec["legends"] = {nlohmann::json::parse(kChainLegend)};
  spec["marks"] = {lines_by_chain("trace", "iteration", "value")};
  return spec;
}

// ArviZ's rank plot: each chain's histogram of ranks in a band of its own, scaled so that the
// tallest bar fills the band, with the height uniform ranks would give as a dashed line.
nlohmann::json rank() {
  nlohmann::json spec = base(460, 180, R"({"text": {"signal": "'Rank plot of ' + parameter"}})");
  spec["data"] = nlohmann::json::parse(R"([{"name": "ranks", "values": []}, {"name": "uniform", "values": []}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "linear", "zero": false, "domain": {"data": "ranks", "fields": ["lo", "hi"]},
     "range": "width"},
    {"name": "y", "type": "linear", "zero": true, "domain": {"data": "ranks", "fields": ["base", "top"]},
     "range": "height"}])");
  spec["scales"].push_back(nlohmann::json::parse(kChainColor));
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": "rank among all chains"}])");
  spec["legends"] = {nlohmann::json::parse(kChainLegend)};
  spec["marks"] = nlohmann::json::parse(R"([
    {"type": "rect", "from": {"data": "ranks"}, "encode": {"update": {
      "x": {"scale": "x", "field": "lo"}, "x2": {"scale": "x", "field": "hi"},
      "y": {"scale": "y", "field": "top"}, "y2": {"scale": "y", "field": "base"},
      "fill": {"scale": "color", "field": "chain"}, "stroke": {"value": "white"}, "strokeWidth": {"value": 0.5}}}},
    {"type": "rule", "from": {"data": "uniform"}, "encode": {"update": {
      "x": {"value": 0}, "x2": {"signal": "width"}, "y": {"scale": "y", "field": "height"},
      "stroke": {"value": "black"}, "strokeDash": {"value": [4, 4]}}}}])");
  return spec;
}

nlohmann::json density() {
  nlohmann::json spec = base(460, 180, R"({"text": {"signal": "'Marginal density of ' + parameter"}})");
  spec["data"] = nlohmann::json::parse(R"([{"name": "density", "values": []}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "linear", "zero": false, "domain": {"data": "density", "field": "x"}, "range": "width"},
    {"name": "y", "type": "linear", "zero": true, "domain": {"data": "density", "field": "y"}, "range": "height"}])");
  spec["scales"].push_back(nlohmann::json::parse(kChainColor));
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": {"signal": "parameter"}},
                                           {"orient": "left", "scale": "y", "title": "density"}])");
  spec["legends"] = {nlohmann::json::parse(kChainLegend)};
  spec["marks"] = {lines_by_chain("density", "x", "y")};
  return spec;
}

// Every pair's scatter plot in one view (one Vega view each would cost each its own dataflow and
// canvas): the points carry their pair's index and labels, and a facet draws each pair in a cell
// of its own scales, divergent draws in red.
nlohmann::json pairs() {
  nlohmann::json spec = nlohmann::json::parse(R"({
    "$schema": "https://vega.github.io/schema/vega/v5.json", "padding": 5, "autosize": "pad",
    "layout": {"columns": 4, "padding": 24, "bounds": "full"},
    "data": [{"name": "points", "values": []}]
  })");
  spec["marks"] = nlohmann::json::parse(R"([{
    "type": "group",
    "from": {"facet": {"name": "cell", "data": "points", "groupby": ["pair", "xlabel", "ylabel"]}},
    "sort": {"field": "datum.pair"},
    "title": {"text": {"signal": "parent.ylabel + ' against ' + parent.xlabel"}, "fontSize": 11},
    "signals": [{"name": "width", "value": 220}, {"name": "height", "value": 220}],
    "encode": {"update": {"width": {"value": 220}, "height": {"value": 220}}},
    "scales": [
      {"name": "x", "type": "linear", "zero": false, "nice": true, "domain": {"data": "cell", "field": "x"},
       "range": "width"},
      {"name": "y", "type": "linear", "zero": false, "nice": true, "domain": {"data": "cell", "field": "y"},
       "range": "height"}],
    "axes": [{"orient": "bottom", "scale": "x", "title": {"signal": "parent.xlabel"}},
             {"orient": "left", "scale": "y", "title": {"signal": "parent.ylabel"}}],
    "marks": [{"type": "symbol", "from": {"data": "cell"}, "encode": {"update": {
      "x": {"scale": "x", "field": "x"}, "y": {"scale": "y", "field": "y"},
      "size": {"signal": "datum.divergent ? 30 : 8"},
      "fill": {"signal": "datum.divergent ? '#e45756' : '#4c78a8'"},
      "fillOpacity": {"signal": "datum.divergent ? 1 : 0.35"}}}}]
  }])");
  return spec;
}

// ArviZ's plot_energy as histograms: the marginal energy E - mean(E) and the transitions
// E_n - E_(n-1). When the second is much narrower than the first, momentum resampling explores the
// energy slowly (low E-BFMI).
nlohmann::json energy() {
  nlohmann::json spec = base(460, 200, R"({"text": {"signal": "'Energy (E-BFMI per chain: ' + ebfmi + ')'"}})");
  spec["signals"] = nlohmann::json::parse(R"([{"name": "ebfmi", "value": ""}])");
  spec["data"] = nlohmann::json::parse(R"([
    {"name": "energy", "values": [],
     "transform": [{"type": "extent", "field": "value", "signal": "range"}]},
    {"name": "bins", "source": "energy", "transform": [
      {"type": "bin", "field": "value", "extent": {"signal": "range"}, "maxbins": 50},
      {"type": "aggregate", "groupby": ["kind", "bin0", "bin1"], "ops": ["count"], "as": ["count"]}]}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "linear", "zero": false, "domain": {"signal": "range"}, "range": "width"},
    {"name": "y", "type": "linear", "zero": true, "domain": {"data": "bins", "field": "count"}, "range": "height"},
    {"name": "color", "type": "ordinal", "range": ["#4c78a8", "#f58518"],
     "domain": ["marginal energy", "energy transition"]}])");
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": "energy minus its mean"},
                                           {"orient": "left", "scale": "y", "title": "draws"}])");
  spec["legends"] = nlohmann::json::parse(R"([{"fill": "color", "orient": "top-right"}])");
  spec["marks"] = nlohmann::json::parse(R"([{"type": "rect", "from": {"data": "bins"}, "encode": {"update": {
    "x": {"scale": "x", "field": "bin0"}, "x2": {"scale": "x", "field": "bin1"},
    "y": {"scale": "y", "field": "count"}, "y2": {"scale": "y", "value": 0},
    "fill": {"scale": "color", "field": "kind"}, "fillOpacity": {"value": 0.55}}}}])");
  return spec;
}

nlohmann::json step_size() {
  nlohmann::json spec = base(220, 160, R"({"text": "Adapted step size per chain"})");
  spec["data"] = nlohmann::json::parse(R"([{"name": "step_size", "values": []}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "band", "padding": 0.2, "domain": {"data": "step_size", "field": "chain"}, "range": "width"},
    {"name": "y", "type": "linear", "zero": true, "nice": true, "domain": {"data": "step_size", "field": "value"},
     "range": "height"}])");
  spec["scales"].push_back(nlohmann::json::parse(kChainColor));
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": "chain"},
                                           {"orient": "left", "scale": "y", "title": "step size"}])");
  spec["marks"] = nlohmann::json::parse(R"([{"type": "rect", "from": {"data": "step_size"}, "encode": {"update": {
    "x": {"scale": "x", "field": "chain"}, "width": {"scale": "x", "band": 1},
    "y": {"scale": "y", "field": "value"}, "y2": {"scale": "y", "value": 0},
    "fill": {"scale": "color", "field": "chain"}}}}])");
  return spec;
}

nlohmann::json tree_depth() {
  nlohmann::json spec = base(300, 160, R"({"text": "Tree depth per chain"})");
  spec["data"] = nlohmann::json::parse(R"([{"name": "tree_depth", "values": [], "transform": [
    {"type": "stack", "groupby": ["depth"], "sort": {"field": "chain"}, "field": "count"}]}])");
  spec["scales"] = nlohmann::json::parse(R"([
    {"name": "x", "type": "band", "padding": 0.2, "domain": {"data": "tree_depth", "field": "depth"},
     "range": "width"},
    {"name": "y", "type": "linear", "zero": true, "nice": true, "domain": {"data": "tree_depth", "field": "y1"},
     "range": "height"}])");
  spec["scales"].push_back(nlohmann::json::parse(kChainColor));
  spec["axes"] = nlohmann::json::parse(R"([{"orient": "bottom", "scale": "x", "title": "tree depth"},
                                           {"orient": "left", "scale": "y", "title": "draws"}])");
  spec["legends"] = {nlohmann::json::parse(kChainLegend)};
  spec["marks"] = nlohmann::json::parse(R"([{"type": "rect", "from": {"data": "tree_depth"}, "encode": {"update": {
    "x": {"scale": "x", "field": "depth"}, "width": {"scale": "x", "band": 1},
    "y": {"scale": "y", "field": "y1"}, "y2": {"scale": "y", "field": "y0"},
    "fill": {"scale": "color", "field": "chain"}}}}])");
  return spec;
}

// Plots side by side in one Vega view, `columns` a row: each plot's specification becomes a group
// mark with its own size, scales, axes, legends and marks, its data sets and signals the view's. One view
// instead of one per plot: each view costs its own dataflow, canvas and start-up.
nlohmann::json side_by_side(const std::vector<nlohmann::json>& plots, int columns) {
  nlohmann::json spec = nlohmann::json::parse(R"({
    "$schema": "https://vega.github.io/schema/vega/v5.json", "padding": 5, "autosize": "pad",
    "signals": [], "data": [], "marks": []
  })");
  spec["layout"] = {{"columns", columns}, {"padding", 24}, {"bounds", "full"}, {"align", "none"}};
  for (const nlohmann::json& plot : plots) {
    for (const auto& signal : plot["signals"])
      if (std::find(spec["signals"].begin(), spec["signals"].end(), signal) == spec["signals"].end())
        spec["signals"].push_back(signal);
    for (const auto& data : plot["data"]) spec["data"].push_back(data);
    // The group's size, and its own width and height signals for what reads them inside it (the
    // scales' ranges "width" and "height"); the encoding is read in the view's scope.
    nlohmann::json group = {{"type", "group"}, {"title", plot["title"]}};
    group["signals"] = {{{"name", "width"}, {"value", plot["width"]}}, {{"name", "height"}, {"value", plot["height"]}}};
    group["encode"]["update"] = {{"width", {{"value", plot["width"]}}}, {"height", {{"value", plot["height"]}}}};
    for (const char* part : {"scales", "axes", "legends", "marks"})
      if (plot.contains(part)) group[part] = plot[part];
    spec["marks"].push_back(group);
  }
  return spec;
}

}  // namespace

nlohmann::json plot_specs() {
  return {{"parameter", side_by_side({trace(), rank(), density()}, 2)},
          {"pairs", pairs()},
          {"energy", energy()},
          {"sampler", side_by_side({step_size(), tree_depth()}, 2)}};
}

}  // namespace variate::cli::report
