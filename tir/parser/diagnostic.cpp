#include "tir/parser/diagnostic.h"

#include "core/error.h"

namespace kiln::parser {

void error_at(int line, int column, const std::string& message) {
  KILN_USER_ERROR() << "line " << line << ", column " << column << ": " << message;
}

}  // namespace kiln::parser
