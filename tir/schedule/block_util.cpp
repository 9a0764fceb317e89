#include "tir/schedule/block_util.h"

#include <set>

#include "tir/analysis/access_region.h"
#include "tir/buffer_rewrite.h"
#include "tir/functor.h"
#include "tir/schedule/error.h"
#include "tir/schedule/locate.h"

namespace kiln {

BlockFields fields_of(const BlockNode* b) {
  return BlockFields{b->name, b->iter_vars, b->reads, b->writes, b->init, b->body, b->alloc_buffers, b->annotations};
}

Stmt block_with_regions(BlockFields f) {
  Stmt draft = block(f);
  auto [reads, writes] = block_access_regions(draft);
  f.reads = std::move(reads);
  f.writes = std::move(writes);
  return block(std::move(f));
}

std::vector<Var> loop_vars(const std::vector<Stmt>& loops) {
  std::vector<Var> vars;
  for (const Stmt& l : loops) vars.push_back(l.as<ForNode>()->loop_var);
  return vars;
}

std::string unique_block_name(const Stmt& root, const std::string& base) {
  std::vector<std::string> names = block_names(root);
  std::set<std::string> taken(names.begin(), names.end());
  if (!taken.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string n = base + "_" + std::to_string(i);
    if (!taken.count(n)) return n;
  }
}

}  // namespace kiln

namespace kiln {

Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to) { return rewrite_buffer(s, {from, to}); }

Stmt redeclare_buffer(const Stmt& s, const Buffer& from, const Buffer& to) {
  return rewrite_buffer(s, {from, to, nullptr, /*allocations=*/true});
}

const BlockNode* enclosing_block(const Located& loc, Stmt* block_stmt) {
  for (auto it = loc.ancestors.rbegin(); it != loc.ancestors.rend(); ++it) {
    if (const auto* b = it->as<BlockNode>()) {
      if (block_stmt) *block_stmt = *it;
      return b;
    }
  }
  return nullptr;
}

Stmt top_of_nest(const Located& loc) {
  std::vector<Stmt> loops = enclosing_loops(loc);
  return loops.empty() ? loc.stmt : loops.front();
}

std::string block_accessing(const Stmt& s, const Buffer& buf, bool writes, const BlockNode* except) {
  std::string name;
  for_each_block(s, [&](const BlockNode* b) {
    if (b == except || !name.empty()) return;
    for (const BufferRegion& r : writes ? b->writes : b->reads)
      if (r.buffer().same_as(buf)) name = b->name;
  });
  return name;
}

Buffer region_buffer(const char* primitive, const BlockNode* b, bool is_write, int index) {
  const auto& regions = is_write ? b->writes : b->reads;
  if (index < 0 || index >= static_cast<int>(regions.size()))
    throw BadArgumentError(primitive, "block '" + b->name + "' has " + std::to_string(regions.size()) +
                                          (is_write ? " written" : " read") + " buffers, no buffer " +
                                          std::to_string(index));
  return regions[index].buffer();
}

bool is_param(const PrimFunc& f, const Buffer& buf) {
  for (const Buffer& p : f.params())
    if (p.same_as(buf)) return true;
  return false;
}

void check_storage_scope(const char* primitive, const std::string& scope) {
  if (scope != "global" && scope != "local" && scope != "shared")
    throw BadArgumentError(primitive, "unknown storage scope '" + scope + "' (expected global, local or shared)");
}

std::vector<Stmt> stmts_of(const Stmt& body) {
  if (const auto* s = body.as<SeqStmtNode>()) return s->seq;
  return {body};
}

Stmt block_with_body(const Stmt& b, Stmt body, std::vector<Buffer> alloc_buffers) {
  BlockFields f = fields_of(b.as<BlockNode>());
  f.body = std::move(body);
  f.alloc_buffers = std::move(alloc_buffers);
  return block(std::move(f));
}

bool is_data_parallel(const Stmt& loop, std::string* why) {
  const auto* op = loop.as<ForNode>();
  for (const Stmt& r : child_block_realizes(op->body)) {
    const auto* realize = r.as<BlockRealizeNode>();
    const BlockNode* b = block_of(r);
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i].is_reduce() && uses_var(realize->iter_values[i], op->loop_var)) {
        if (why)
          *why = "loop '" + op->loop_var.name() + "' is bound to reduction axis '" + b->iter_vars[i].var().name() +
                 "' of block '" + b->name + "'";
        return false;
      }
    }
  }
  return true;
}

}  // namespace kiln
