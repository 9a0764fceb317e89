#include "tir/schedule/instruction.h"

namespace kiln {

const InstructionKind* find_instruction_kind(std::string_view name) {
  static const InstructionKind* const kinds[] = {
#define X(n) &inst::n,
      KILN_FOR_EACH_INSTRUCTION(X)
#undef X
  };
  for (const InstructionKind* k : kinds)
    if (k->name == name) return k;
  return nullptr;
}

}  // namespace kiln
