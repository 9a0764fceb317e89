#include "graph/conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "graph/unsupported.h"

namespace kiln::graph {

namespace fs = std::filesystem;

std::string compare_output(const NDArray& got, const NDArray& want, size_t k, double rtol, double atol) {
  std::ostringstream why;
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    why << "output " << k << " is " << got.dtype().str() << " of " << got.numel() << " elements, expected "
        << want.dtype().str() << " of " << want.numel();
    return why.str();
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.get(i), w = want.get(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
      why << "output " << k << " element " << i << " is " << g << ", expected " << w;
      return why.str();
    }
  }
  return "";
}


const char* status_name(TestCaseResult::Status s) {
  switch (s) {
    case TestCaseResult::kPass: return "pass";
    case TestCaseResult::kFail: return "fail";
    case TestCaseResult::kUnsupported: return "unsupported";
  }
  return "?";
}

TestCaseResult run_test_case(const std::string& dir, double rtol, double atol, const GraphExecutor& run) {
  TestCaseResult r;
  r.name = fs::path(dir).filename().string();
  try {
    std::vector<fs::path> sets;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) KILN_USER_ERROR() << "no test_data_set_* folder";
    const std::vector<std::string> names = onnx_input_names((fs::path(dir) / "model.onnx").string());
    for (const fs::path& set : sets) {
      // The data set's values of inputs that nodes read as parameters
      // (shapes, starts, pads, bounds) are bound at import: a static graph.
      std::vector<NDArray> data = read_numbered_tensors(set.string(), "input");
      if (data.size() != names.size())
        KILN_USER_ERROR() << set.filename().string() << " gives " << data.size() << " inputs for " << names.size();
      ImportOptions options;
      for (size_t i = 0; i < names.size(); ++i)
        options.input_values[names[i]] = std::make_shared<const NDArray>(data[i].copy());
      Graph g = import_onnx_file((fs::path(dir) / "model.onnx").string(), options);
      std::vector<NDArray> inputs;
      for (int id : g.inputs)
        for (size_t i = 0; i < names.size(); ++i)
          if (names[i] == g.value(id).name) inputs.push_back(std::move(data[i]));
      const std::vector<NDArray> want = read_numbered_tensors(set.string(), "output");
      const std::vector<NDArray> got = run ? run(g, inputs) : run_reference(g, inputs);
      if (got.size() != want.size())
        KILN_USER_ERROR() << "the graph has " << got.size() << " outputs, the data set " << want.size();
      for (size_t k = 0; k < got.size(); ++k)
        if (std::string why = compare_output(got[k], want[k], k, rtol, atol); !why.empty()) {
          r.detail = set.filename().string() + ": " + why;
          return r;
        }
    }
    r.status = TestCaseResult::kPass;
  } catch (const UnsupportedError& e) {
    r.detail = e.what();
    r.status = TestCaseResult::kUnsupported;
  } catch (const Error& e) {
    r.detail = e.what();
  } catch (const std::exception& e) {
    r.detail = std::string("internal error: ") + e.what();
  }
  return r;
}

std::vector<std::string> test_case_dirs(const std::string& root) {
  std::vector<std::string> out;
  if (!fs::is_directory(root)) KILN_USER_ERROR() << "no test data folder '" << root << "'";
  for (const fs::directory_entry& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kiln::graph
