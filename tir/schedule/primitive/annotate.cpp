// annotate: attach a key and value to a loop or block, for later passes
// (e.g. "pragma_auto_unroll_max_step" -> 64, read by lowering) or for the
// search's own bookkeeping. Setting a key again replaces its value.
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

Expr ann_expr(const AnnValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return int_imm(DataType::Int(32), *i);
  return string_imm(std::get<std::string>(v));
}

}  // namespace

void Schedule::annotate(LoopRV loop, const std::string& key, const AnnValue& value) {
  Stmt l = loop_stmt(loop, "annotate");
  if (key.empty()) throw BadArgumentError("annotate", "empty annotation key");
  const auto* op = l.as<ForNode>();
  Annotations ann = op->annotations;
  ann[key] = ann_expr(value);
  Stmt nl = for_loop(op->loop_var, op->min, op->extent, op->for_kind, op->body, op->thread_tag, ann);
  update(func_.with_body(replace_stmt(func_.body(), l, nl)), "annotate");
  record(inst::annotate, {loop.rv()}, {key, replay::ann_json(value)}, {});
}

void Schedule::annotate(BlockRV block, const std::string& key, const AnnValue& value) {
  Stmt r = block_stmt(block, "annotate");
  if (key.empty()) throw BadArgumentError("annotate", "empty annotation key");
  const auto* realize = r.as<BlockRealizeNode>();
  const BlockNode* b = block_of(r);
  BlockFields fields = fields_of(b);
  fields.annotations[key] = ann_expr(value);
  Stmt nr = block_realize(realize->iter_values, realize->predicate, kiln::block(std::move(fields)));
  update(func_.with_body(replace_stmt(func_.body(), r, nr)), "annotate");
  record(inst::annotate, {block.rv()}, {key, replay::ann_json(value)}, {});
}

namespace inst {
const InstructionKind annotate{"annotate", false,
                               [](Schedule& sch, const std::vector<InstInput>& in, const nlohmann::json& attrs,
                                  const nlohmann::json&) {
                                 replay::expect_inputs(in, 1);
                                 const std::string key = replay::attr_string(attrs, 0);
                                 if (attrs.size() < 2) throw BadArgumentError("replay", "missing attribute 1");
                                 AnnValue v = replay::ann_value(attrs[1]);
                                 const RV* rv = std::get_if<RV>(&in[0]);
                                 if (rv && rv->kind == RVKind::kLoop) sch.annotate(replay::loop(in, 0), key, v);
                                 else sch.annotate(replay::block(in, 0), key, v);
                                 return std::vector<RV>{};
                               }};
}  // namespace inst
}  // namespace kiln
