// The pieces of the _kiln extension module, one per area of the library,
// each adding its classes and functions to the module (module.cpp calls
// them in order: later pieces use the types earlier ones registered).
//
// The bindings hold no logic of their own: they convert between Python
// objects and the library's types and call the library's public headers,
// the same calls the command line makes (tools/).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "core/dtype.h"

namespace kiln::py {

namespace pyb = pybind11;

void bind_errors(pyb::module_& m);
void bind_ir(pyb::module_& m);
void bind_te(pyb::module_& m);
void bind_schedule(pyb::module_& m);
void bind_kernel(pyb::module_& m);
void bind_tune(pyb::module_& m);
void bind_database(pyb::module_& m);
void bind_model(pyb::module_& m);
void bind_farm(pyb::module_& m);

// A dtype as Python names it: "float32", numpy's dtype objects and types
// (anything whose str() or `.name` is a dtype name kiln knows). Throws
// TypeError naming what it got.
DataType to_dtype(pyb::handle h);

}  // namespace kiln::py
