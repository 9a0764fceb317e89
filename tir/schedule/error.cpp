#include "tir/schedule/error.h"

namespace kiln {

const char* schedule_error_name(ScheduleErrorKind k) {
  switch (k) {
#define X(Name) \
  case ScheduleErrorKind::k##Name: return #Name "Error";
    KILN_FOR_EACH_SCHEDULE_ERROR(X)
#undef X
    case ScheduleErrorKind::kOther: return "Error";
  }
  return "Error";
}

}  // namespace kiln
