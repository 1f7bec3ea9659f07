#include "report_script.hpp"

namespace variate::cli::report {

const char* const kModuleLoader = R"js(
"use strict";
var vegaModules = {}, vegaModuleName = "";
function reportFailed(message) {
  document.documentElement.setAttribute("data-report", "error");
  var box = document.getElementById("report-errors");
  if (box) { box.hidden = false; box.textContent += message + "\n"; }
  else { window.reportPendingErrors = (window.reportPendingErrors || []).concat([message]); }
}
window.onerror = function (message, source, line) { reportFailed(message + " (line " + line + ")"); };
window.onunhandledrejection = function (event) { reportFailed("unhandled: " + event.reason); };
// The UMD builds call define(dependencies, factory) when define.amd is set.
function define(dependencies, factory) {
  var exports = {};
  factory.apply(null, dependencies.map(function (name) {
    if (name === "exports") return exports;
    if (name === "vega-selections") name = "vega-selection";  // Debian names the file in the singular
    if (!(name in vegaModules)) throw new Error(vegaModuleName + " needs " + name + ", which is not loaded");
    return vegaModules[name];
  }));
  vegaModules[vegaModuleName] = exports;
}
define.amd = true;
)js";

const char* const kPageScript = R"js(
"use strict";
(function () {
  // As the vega package's index: every module's exports in one namespace, transforms registered.
  var vega = Object.assign.apply(null, [{}].concat(Object.values(vegaModules)));
  Object.assign(vega.transforms, vegaModules["vega-transforms"], vegaModules["vega-view-transforms"],
                vegaModules["vega-encode"]);
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var specs = JSON.parse(document.getElementById("report-specs").textContent);
  var chains = data.files.map(function (_, c) { return c + 1; });
  var views = {};
  (window.reportPendingErrors || []).forEach(reportFailed);

  function element(tag, text, className) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  }
  function format(x) {
    if (x === null) return "\u2014";
    if (typeof x !== "number") return x;
    return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(2) : String(+x.toPrecision(4));
  }
  function makeView(name, container, signals) {
    var view = new vega.View(vega.parse(specs[name]), {renderer: "canvas", container: container, hover: true});
    if ("chains" in (signals || {})) view.signal("chains", chains);
    Object.keys(signals || {}).forEach(function (s) { if (s !== "chains") view.signal(s, signals[s]); });
    return view;
  }
  function show(view, sets) {
    Object.keys(sets).forEach(function (name) { view.data(name, sets[name]); });
    return view.runAsync();
  }

  // The summary table's cells flagged as Vehtari et al. (2021) flag them.
  function flagged(column, value) {
    if (value === null) return false;
    if (column === "R_hat") return value > data.limits.rhat;
    if (column === "ESS_bulk" || column === "ESS_tail") return value < data.limits.ess;
    return false;
  }
  // The summary table, a page of rows at a time. The page's data holds the first page (the worst
  // rows); the whole table is parsed from its own element only when the reader pages, sorts or
  // filters, so that the page opens as fast for thousands of parameters as for ten.
  var columns = data.table.columns, pageRows = data.table.page_rows, allRows = null;
  var ordered = null;  // the rows sorted or filtered as asked; null: all rows, worst first
  var sortColumn = -1, ascending = true, page = 0, filter = document.getElementById("summary-filter");
  var previous = document.getElementById("summary-previous"), next = document.getElementById("summary-next");
  function tableRows() {
    if (!allRows) allRows = JSON.parse(document.getElementById("report-table").textContent);
    return allRows;
  }
  function drawTable() {
    var count = ordered ? ordered.length : data.table.count;
    var pages = Math.max(1, Math.ceil(count / pageRows));
    page = Math.min(Math.max(page, 0), pages - 1);
    var start = page * pageRows;
    var rows = ordered ? ordered.slice(start, start + pageRows) :
        start === 0 ? data.table.first_rows : tableRows().slice(start, start + pageRows);
    document.getElementById("summary-shown").textContent =
        count === 0 ? "no rows" : "rows " + (start + 1) + "\u2013" + (start + rows.length) + " of " + count;
    previous.disabled = page === 0;
    next.disabled = page === pages - 1;
    document.querySelector("#summary tbody").innerHTML = rows.map(function (row) {
      return "<tr>" + row.map(function (value, j) {
        var text = j === 0 ? String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;") : format(value);
        return "<td" + (flagged(columns[j], value) ? " class=\"flag\"" : "") + ">" + text + "</td>";
      }).join("") + "</tr>";
    }).join("");
  }
  function compare(a, b) {
    var x = a[sortColumn], y = b[sortColumn];
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * (ascending ? 1 : -1);
  }
  // Sorting and filtering start from the whole table in its worst-first order (sort is stable).
  function reorder() {
    var wanted = filter.value;
    if (sortColumn < 0 && !wanted) {
      ordered = null;
    } else {
      ordered = wanted ? tableRows().filter(function (row) { return String(row[0]).indexOf(wanted) >= 0; }) :
                         tableRows().slice();
      if (sortColumn >= 0) ordered.sort(compare);
    }
    page = 0;
    drawTable();
  }
  var head = document.querySelector("#summary thead tr");
  var headings = columns.map(function (name, j) {
    var th = head.appendChild(element("th", name));
    th.onclick = function () {
      ascending = sortColumn === j ? !ascending : true;
      sortColumn = j;
      headings.forEach(function (h, k) { h.textContent = columns[k] + (k === j ? (ascending ? " \u25b2" : " \u25bc") : ""); });
      reorder();
    };
    return th;
  });
  filter.oninput = reorder;
  previous.onclick = function () { --page; drawTable(); };
  next.onclick = function () { ++page; drawTable(); };
  drawTable();

  // The views are drawn when their place on the page first comes near the screen: opening draws
  // only the ones it shows, the others as the reader scrolls to them. Their boxes hold their
  // height meanwhile (the style's min-height), so that the ones below stay below the fold.
  var waiting = {}, drawn = [], opening = true;
  function drawView(id) {
    var draw = waiting[id];
    delete waiting[id];
    var done = Promise.resolve().then(draw).then(function () {
      drawn.push(id);
      document.documentElement.setAttribute("data-drawn", drawn.join(" "));
    });
    done.catch(function (error) { reportFailed(String(error)); });
    return done;
  }
  function markRendered(draws) {
    Promise.all(draws).then(function () {
      if (document.documentElement.getAttribute("data-report") === "error") return;
      document.documentElement.setAttribute("data-report", "rendered");
      document.documentElement.setAttribute("data-render-ms", String(Math.round(performance.now())));
    }, function () {});
  }
  var observer = new IntersectionObserver(function (entries) {
    var now = [];
    entries.forEach(function (entry) {
      if (!entry.isIntersecting || !(entry.target.id in waiting)) return;
      observer.unobserve(entry.target);
      now.push(drawView(entry.target.id));
    });
    if (opening) markRendered(now);
    opening = false;
  }, {rootMargin: "100px"});
  function whenVisible(id, draw) {
    waiting[id] = draw;
    observer.observe(document.getElementById(id));
  }

  // One parameter's trace, rank and density plots, switched by the chooser; each parameter's data
  // is parsed from its own element when it is first shown.
  var chooser = document.getElementById("parameter"), plots = {};
  data.parameters.forEach(function (name, i) { chooser.appendChild(element("option", name)).value = String(i); });
  function showParameter(i) {
    if (!(i in plots)) plots[i] = JSON.parse(document.getElementById("report-plots-" + i).textContent);
    var p = plots[i], name = data.parameters[i];
    views.parameter.signal("parameter", name);
    var trace = [];
    p.trace.forEach(function (values, c) {
      values.forEach(function (v, i) { trace.push({chain: c + 1, iteration: i * p.step + 1, value: v}); });
    });
    var ranks = [], uniform = [];
    if (p.rank) {
      var top = Math.max.apply(null, p.rank.counts.map(function (c) { return Math.max.apply(null, c); }));
      p.rank.counts.forEach(function (counts, c) {
        var base = p.rank.counts.length - 1 - c;  // chain 1 on top, as ArviZ
        counts.forEach(function (n, b) {
          ranks.push({chain: c + 1, lo: p.rank.edges[b], hi: p.rank.edges[b + 1], base: base, top: base + 0.9 * n / top});
        });
        uniform.push({height: base + 0.9 * p.rank.expected / top});
      });
    }
    var density = [];
    if (p.density) p.density.y.forEach(function (ys, c) {
      ys.forEach(function (y, i) { density.push({chain: c + 1, x: p.density.x[i], y: y}); });
    });
    document.getElementById("parameter-note").textContent =
        p.rank ? (p.density ? "" : "constant draws: no density") : "non-finite draws: no rank plot or density";
    return show(views.parameter, {trace: trace, ranks: ranks, uniform: uniform, density: density});
  }
  chooser.onchange = function () { if (views.parameter) showParameter(Number(chooser.value)); };
  if (data.parameters.length > 0) {
    whenVisible("parameter-plot", function () {
      views.parameter = makeView("parameter", "#parameter-plot", {chains: true, parameter: ""});
      return showParameter(Number(chooser.value));
    });
  } else {
    document.getElementById("parameters").hidden = true;
  }

  // Pairs: a scatter plot per pair, divergent draws in red, all in one view.
  if (data.pairs) {
    var names = data.pairs.names, cells = names.length * (names.length - 1) / 2;
    document.getElementById("pair-plots").style.minHeight = 290 * Math.ceil(cells / 4) + "px";
    whenVisible("pair-plots", function () {
      var points = [], pair = 0;
      for (var a = 0; a < names.length; ++a) for (var b = a + 1; b < names.length; ++b, ++pair) {
        data.pairs.divergent.forEach(function (d, i) {
          points.push({pair: pair, xlabel: names[a], ylabel: names[b], x: data.pairs.values[a][i],
                       y: data.pairs.values[b][i], divergent: d});
        });
      }
      points.sort(function (p, q) { return p.divergent - q.divergent; });  // divergent drawn last, on top
      return show(makeView("pairs", "#pair-plots"), {points: points});
    });
  } else {
    document.getElementById("pairs").hidden = true;
  }

  if (data.energy) {
    whenVisible("energy-plot", function () {
      var energy = data.energy.marginal.map(function (v) { return {kind: "marginal energy", value: v}; })
          .concat(data.energy.transition.map(function (v) { return {kind: "energy transition", value: v}; }));
      return show(makeView("energy", "#energy-plot", {ebfmi: data.energy.ebfmi.map(format).join(", ")}),
                  {energy: energy});
    });
  } else {
    document.getElementById("energy").hidden = true;
  }

  // The sampler's health per chain, flagged as CmdStan's diagnose: any divergence, any transition
  // at the maximum tree depth, E-BFMI below 0.3.
  var s = data.sampler;
  var health = document.querySelector("#sampler-table tbody");
  chains.forEach(function (chain, c) {
    var tr = health.appendChild(element("tr"));
    tr.appendChild(element("td", String(chain)));
    var cells = [[s.divergences[c], s.divergences[c] > 0], [s.max_treedepth_hits[c], s.max_treedepth_hits[c] > 0],
                 [s.ebfmi[c], s.ebfmi[c] !== null && s.ebfmi[c] < 0.3], [s.step_sizes[c], false]];
    cells.forEach(function (cell) {
      tr.appendChild(element("td", cell[0] === undefined ? "\u2014" : format(cell[0]), cell[1] ? "flag" : ""));
    });
  });
  if (s.step_sizes.length > 0 || s.tree_depth) whenVisible("sampler-plot", function () {
    var depths = [];
    if (s.tree_depth) s.tree_depth.counts.forEach(function (counts, c) {
      counts.forEach(function (n, d) { depths.push({chain: c + 1, depth: d, count: n}); });
    });
    return show(makeView("sampler", "#sampler-plot", {chains: true}),
                {step_size: s.step_sizes.map(function (v, c) { return {chain: c + 1, value: v}; }), tree_depth: depths});
  });
  if (Object.keys(waiting).length === 0) markRendered([]);  // no plots: the observer has nothing to report
})();
)js";

const char* const kPageStyle = R"css(
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.files, .note { color: #555; font-size: 0.9em; }
#report-errors { color: #b00; background: #fee; padding: 0.5em; white-space: pre-wrap; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #ddd; }
td:first-child, th:first-child { text-align: left; }
th { cursor: pointer; background: #f3f3f3; position: sticky; top: 0; }
td.flag { background: #f8d0d0; font-weight: bold; }
.table-box { max-height: 30em; overflow-y: auto; display: inline-block; }
button { font-size: 0.85em; }
#sampler-plot { min-height: 215px; }
#parameter-plot { min-height: 510px; }
#energy-plot { min-height: 265px; }
)css";

}  // namespace variate::cli::report
