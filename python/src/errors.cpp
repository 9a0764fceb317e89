// kiln's errors as Python exceptions:
//
//   KilnError (RuntimeError)        kiln::Error: bad input, named (a workload,
//                                   a trace, a database, a model)
//     ScheduleError                 a primitive that cannot run; .kind is the
//                                   class ("FactorError"), .primitive its name
//       FactorError, ...            one subclass per kind (tir/schedule/error.h)
//     TraceError                    a trace that does not fit; .instruction
//   InternalError (RuntimeError)    a bug in kiln, never the caller's fault
//
// so `except kiln.FactorError` catches what a C++ caller catches as
// kiln::FactorError, and the message is the library's own.
#include <pybind11/pybind11.h>

#include <map>

#include "core/error.h"
#include "python/src/bindings.h"
#include "tir/schedule/error.h"
#include "tir/schedule/trace.h"

namespace kiln::py {
namespace {

struct Classes {
  pyb::object kiln_error, internal_error, schedule_error, trace_error;
  std::map<ScheduleErrorKind, pyb::object> by_kind;
};

// Leaked on purpose: the classes live as long as the interpreter, and
// nothing may run Python code from a static destructor at exit.
Classes& classes() {
  static Classes* c = new Classes();
  return *c;
}

void raise(const pyb::object& cls, const char* what, std::initializer_list<std::pair<const char*, pyb::object>> attrs) {
  pyb::object e = cls(what);
  for (const auto& [k, v] : attrs) e.attr(k) = v;
  PyErr_SetObject(cls.ptr(), e.ptr());
}

}  // namespace

void bind_errors(pyb::module_& m) {
  Classes& c = classes();
  auto make = [&](const char* name, PyObject* base, const char* doc) {
    pyb::object cls = pyb::reinterpret_steal<pyb::object>(
        PyErr_NewExceptionWithDoc((std::string("kiln.") + name).c_str(), doc, base, nullptr));
    m.attr(name) = cls;
    return cls;
  };
  c.kiln_error = make("KilnError", PyExc_RuntimeError, "An error in what kiln was given; the message names it.");
  c.internal_error = make("InternalError", PyExc_RuntimeError, "A bug in kiln (an internal check failed).");
  c.schedule_error = make("ScheduleError", c.kiln_error.ptr(),
                          "A schedule primitive that cannot run. .kind: its class name; .primitive: the primitive.");
  c.trace_error = make("TraceError", c.kiln_error.ptr(),
                       "A trace that does not apply. .instruction: its index; .kind: the schedule error's kind.");
#define X(Name)                                                                                 \
  c.by_kind[ScheduleErrorKind::k##Name] =                                                       \
      make(#Name "Error", c.schedule_error.ptr(), "A ScheduleError of kind " #Name "Error.");
  KILN_FOR_EACH_SCHEDULE_ERROR(X)
#undef X

  pyb::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    Classes& c = classes();
    try {
      std::rethrow_exception(p);
    } catch (const ScheduleError& e) {
      raise(c.by_kind.at(e.kind()), e.what(),
            {{"kind", pyb::str(schedule_error_name(e.kind()))}, {"primitive", pyb::str(e.primitive())}});
    } catch (const TraceError& e) {
      raise(c.trace_error, e.what(),
            {{"kind", pyb::str(schedule_error_name(e.kind()))}, {"instruction", pyb::int_(e.instruction())}});
    } catch (const Error& e) {
      raise(c.kiln_error, e.what(), {});
    } catch (const InternalError& e) {
      raise(c.internal_error, e.what(), {});
    }
  });
}

}  // namespace kiln::py
