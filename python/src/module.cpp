// _kiln: the extension module the `kiln` package wraps (python/kiln/).
#include "python/src/bindings.h"

#include "core/version.h"

PYBIND11_MODULE(_kiln, m) {
  m.doc() = "kiln's compiler, tuner and runtime, as the kiln package uses them (see kiln/__init__.py)";
  using namespace kiln::py;
  bind_errors(m);
  bind_ir(m);
  bind_te(m);
  bind_schedule(m);
  bind_kernel(m);
  bind_tune(m);
  bind_database(m);
  bind_model(m);
  bind_farm(m);
  m.attr("__version__") = kiln::kiln_version();
}
