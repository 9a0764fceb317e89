#include "tir/analysis/workload_key.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/structural.h"
#include "tir/functor.h"
#include "tir/schedule/block_util.h"

namespace kiln {
namespace {

// Renames blocks b0, b1, ... in the order their visits finish.
class CanonicalBlockNames : public StmtMutator {
 public:
  Stmt visit_Block(const BlockNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::visit_Block(op, self);
    BlockFields f = fields_of(s.as<BlockNode>());
    f.name = "b" + std::to_string(next_++);
    return block(std::move(f));
  }

 private:
  int next_ = 0;
};

}  // namespace

PrimFunc canonical_workload(const PrimFunc& f) {
  Stmt body = CanonicalBlockNames().mutate(f.body());
  return PrimFunc("main", f.params(), body, f->attrs);
}

std::string workload_key(const PrimFunc& f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "v%d-%016llx", kWorkloadKeyVersion,
                static_cast<unsigned long long>(structural_hash(canonical_workload(f))));
  return buf;
}

bool is_workload_key(const std::string& s) {
  std::string prefix = "v";
  prefix += std::to_string(kWorkloadKeyVersion);
  prefix += '-';
  if (s.size() != prefix.size() + 16 || s.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(prefix.size()), s.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace kiln
