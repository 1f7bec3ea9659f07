#include "report_page.hpp"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>

#include "report_script.hpp"
#include "report_specs.hpp"
#include "variate/core/error.hpp"

namespace variate::cli::report {
namespace {

constexpr std::size_t kPageRows = 50;  // of the summary table

// The modules the page uses, each after the ones it needs (their define() lists).
constexpr const char* kVegaModules[] = {
    "vega-util",      "vega-canvas",   "vega-time",       "vega-format",          "vega-loader",     "vega-statistics",
    "vega-scale",     "vega-dataflow", "vega-expression", "vega-event-selector",  "vega-scenegraph", "vega-selection",
    "vega-functions", "vega-runtime",  "vega-transforms", "vega-view-transforms", "vega-encode",     "vega-parser",
    "vega-view"};

std::string read_module(const std::filesystem::path& folder, const std::string& module) {
  const std::filesystem::path path = folder / (module + ".min.js");
  std::ifstream in(path, std::ios::binary);
  VARIATE_CHECK(in.good(), "report", "cannot read ", path.string(),
                "; the report inlines Vega from Debian's package libjs-vega (apt-get install libjs-vega)");
  std::ostringstream text;
  text << in.rdbuf();
  VARIATE_CHECK(text.str().find("</script") == std::string::npos, "report", path.string(),
                " holds \"</script\", which would end its <script> element early");
  return text.str();
}

// JSON inside <script>: "</" could end the element, so it is written "<\/" (the same string to JSON).
std::string script_json(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    safe += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') safe += '\\';
  }
  return safe;
}

std::string json_element(const std::string& id, const nlohmann::json& value) {
  return "<script type=\"application/json\" id=\"" + id + "\">" + script_json(value) + "</script>\n";
}

// The page parses on opening only what its first screen shows: "report-data" holds the table's
// first page of rows (the worst) and the plotted parameters' names; the whole table and each
// parameter's plots are in elements of their own, parsed when the reader pages, sorts or filters
// the table or chooses the parameter. So the time to open does not grow with the parameters.
std::string data_elements(const nlohmann::json& data) {
  const nlohmann::json& rows = data["table"]["rows"];
  nlohmann::json first = data;
  first["table"].erase("rows");
  first["table"]["first_rows"] =
      nlohmann::json(rows.begin(), rows.begin() + std::ptrdiff_t(std::min(kPageRows, rows.size())));
  first["table"]["count"] = rows.size();
  first["table"]["page_rows"] = kPageRows;
  first["parameters"] = nlohmann::json::array();
  for (const auto& p : data["parameters"]) first["parameters"].push_back(p["name"]);
  std::string html = json_element("report-data", first) + json_element("report-table", rows);
  for (std::size_t i = 0; i < data["parameters"].size(); ++i)
    html += json_element("report-plots-" + std::to_string(i), data["parameters"][i]);
  return html;
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string body(const std::string& title, const nlohmann::json& data) {
  std::ostringstream html;
  const std::size_t parameters = data["table"]["rows"].size(), plotted = data["parameters"].size();
  html << "<h1>" << escape_html(title) << "</h1>\n<pre id=\"report-errors\" hidden></pre>\n"
       << "<p class=\"files\">" << data["chains"].get<std::size_t>() << " chains x " << data["draws"].get<std::size_t>()
       << " draws from";
  for (const auto& file : data["files"]) html << ' ' << escape_html(file.get<std::string>());
  html << "</p>\n";
  for (const auto& note : data["notes"])
    html << "<p class=\"note\">note: " << escape_html(note.get<std::string>()) << "</p>\n";
  html << "<h2>Sampler</h2>\n<table id=\"sampler-table\"><thead><tr><th>chain</th><th>divergences</th>"
       << "<th>at max tree depth</th><th>E-BFMI</th><th>step size</th></tr></thead><tbody></tbody></table>\n"
       << "<div id=\"sampler-plot\"></div>\n"
       << "<section id=\"parameters\"><h2>Parameters</h2>\n<p>Plots of <select id=\"parameter\"></select> "
       << "<span class=\"note\">(" << plotted << " of " << parameters
       << " parameters, the worst R-hat and ESS first) <span id=\"parameter-note\"></span></span></p>\n"
       << "<div id=\"parameter-plot\"></div></section>\n"
       << "<section id=\"pairs\"><h2>Pairs</h2><p class=\"note\">Divergent transitions in red.</p>"
       << "<div id=\"pair-plots\"></div></section>\n"
       << "<section id=\"energy\"><h2>Energy</h2><div id=\"energy-plot\"></div></section>\n"
       << "<h2>Summary</h2>\n<p class=\"note\">R-hat above " << data["limits"]["rhat"].get<double>()
       << " and ESS below " << data["limits"]["ess"].get<double>()
       << " (100 per chain) are flagged (Vehtari et al. 2021). Click a heading to sort.</p>\n"
       << "<p>Names containing <input id=\"summary-filter\" size=\"16\"> <button id=\"summary-previous\">previous"
       << "</button> <span class=\"note\" id=\"summary-shown\"></span> <button id=\"summary-next\">next</button></p>\n"
       << "<div class=\"table-box\"><table id=\"summary\"><thead><tr></tr></thead><tbody></tbody></table></div>\n";
  return html.str();
}

}  // namespace

std::string report_page(const std::string& title, const nlohmann::json& data,
                        const std::filesystem::path& vega_folder) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     escape_html(title) + "</title>\n<style>" + kPageStyle + "</style>\n<script>" + kModuleLoader +
                     "</script>\n";
  for (const char* module : kVegaModules)
    page += "<script>vegaModuleName = \"" + std::string(module) + "\";\n" + read_module(vega_folder, module) +
            "\n</script>\n";
  page += "</head>\n<body>\n" + body(title, data);
  page += json_element("report-specs", plot_specs()) + data_elements(data);
  page += "<script>" + std::string(kPageScript) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace variate::cli::report
