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

void Schedule::set_loop_annotation(LoopRV loop, const std::string& key, Expr value) {
  Stmt l = loop_stmt(loop, "annotate");
  if (key.empty()) throw BadArgumentError("annotate", "empty annotation key");
  const auto* op = l.as<ForNode>();
  Annotations ann = op->annotations;
  ann[key] = std::move(value);
  Stmt nl = for_loop(op->loop_var, op->min, op->extent, op->for_kind, op->body, op->thread_tag, ann);
  update(func_.with_body(replace_stmt(func_.body(), l, nl)), "annotate");
}

void Schedule::annotate(LoopRV loop, const std::string& key, const AnnValue& value) {
  set_loop_annotation(loop, key, ann_expr(value));
  record(inst::annotate, {loop.rv()}, AnnotateAttrs{key, value}, {});
}

void Schedule::annotate(LoopRV loop, const std::string& key, ExprRV value) {
  set_loop_annotation(loop, key, int_imm(DataType::Int(32), this->value(value)));
  record(inst::annotate, {loop.rv(), value.rv()}, AnnotateAttrs{key, std::nullopt}, {});
}

void Schedule::set_block_annotation(BlockRV block, const std::string& key, Expr value) {
  Stmt r = block_stmt(block, "annotate");
  if (key.empty()) throw BadArgumentError("annotate", "empty annotation key");
  const auto* realize = r.as<BlockRealizeNode>();
  const BlockNode* b = block_of(r);
  BlockFields fields = fields_of(b);
  fields.annotations[key] = std::move(value);
  Stmt nr = block_realize(realize->iter_values, realize->predicate, kiln::block(std::move(fields)));
  update(func_.with_body(replace_stmt(func_.body(), r, nr)), "annotate");
}

void Schedule::annotate(BlockRV block, const std::string& key, const AnnValue& value) {
  set_block_annotation(block, key, ann_expr(value));
  record(inst::annotate, {block.rv()}, AnnotateAttrs{key, value}, {});
}

void Schedule::annotate(BlockRV block, const std::string& key, ExprRV value) {
  set_block_annotation(block, key, int_imm(DataType::Int(32), this->value(value)));
  record(inst::annotate, {block.rv(), value.rv()}, AnnotateAttrs{key, std::nullopt}, {});
}

namespace inst {
const InstructionKind annotate{
    .name = "annotate",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      const AnnotateAttrs& a = replay::attrs<AnnotateAttrs>(attrs, "annotate");
      const RV* target = in.empty() ? nullptr : std::get_if<RV>(&in[0]);
      const bool on_loop = target && target->kind == RVKind::kLoop;
      if (!a.value) {  // a loop or block, and a sampled value
        replay::expect_inputs(in, 2);
        if (on_loop) sch.annotate(replay::loop(in, 0), a.key, replay::expr(in, 1));
        else sch.annotate(replay::block(in, 0), a.key, replay::expr(in, 1));
      } else {
        replay::expect_inputs(in, 1);
        if (on_loop) sch.annotate(replay::loop(in, 0), a.key, *a.value);
        else sch.annotate(replay::block(in, 0), a.key, *a.value);
      }
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<AnnotateAttrs>};
}  // namespace inst
}  // namespace kiln
