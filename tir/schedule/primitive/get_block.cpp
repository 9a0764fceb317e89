// get_block, get_loops, get_child_blocks: handles to what is already there.
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {

BlockRV Schedule::get_block(const std::string& name) {
  if (!locate_block(func_.body(), name)) {
    std::string known;
    for (const std::string& n : block_names(func_.body())) known += (known.empty() ? "" : ", ") + n;
    throw NotFoundError("get_block", "no block named '" + name + "' (blocks: " + known + ")");
  }
  BlockRV rv = make_block_rv(name);
  record(inst::get_block, {}, BlockNameAttrs{name}, {rv.rv()});
  return rv;
}

std::vector<LoopRV> Schedule::get_loops(BlockRV block) {
  auto loc = locate_block(func_.body(), block_name(block));
  if (!loc) throw NotFoundError("get_loops", "block '" + block_name(block) + "' is no longer in the function");
  std::vector<LoopRV> out;
  for (const Stmt& l : enclosing_loops(*loc)) out.push_back(make_loop_rv(l.as<ForNode>()->loop_var));
  record(inst::get_loops, {block.rv()}, NoAttrs{}, replay::rvs(out));
  return out;
}

std::vector<BlockRV> Schedule::child_blocks(const Stmt& under) {
  std::vector<BlockRV> out;
  for (const Stmt& r : child_block_realizes(under)) out.push_back(make_block_rv(block_of(r)->name));
  return out;
}

std::vector<BlockRV> Schedule::get_child_blocks(BlockRV block) {
  Stmt realize = block_stmt(block, "get_child_blocks");
  std::vector<BlockRV> out = child_blocks(block_of(realize)->body);
  record(inst::get_child_blocks, {block.rv()}, NoAttrs{}, replay::rvs(out));
  return out;
}

std::vector<BlockRV> Schedule::get_child_blocks(LoopRV loop) {
  Stmt l = loop_stmt(loop, "get_child_blocks");
  std::vector<BlockRV> out = child_blocks(l.as<ForNode>()->body);
  record(inst::get_child_blocks, {loop.rv()}, NoAttrs{}, replay::rvs(out));
  return out;
}

namespace inst {

const InstructionKind get_block{
    .name = "get_block",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 0);
      return std::vector<RV>{sch.get_block(replay::attrs<BlockNameAttrs>(attrs, "get_block").name).rv()};
    },
    .read_attrs = attrs_from_json<BlockNameAttrs>};

const InstructionKind get_loops{"get_loops", false, [](Schedule& sch, const std::vector<InstInput>& in,
                                                       const InstAttrs&, const Decision&) {
                                  replay::expect_inputs(in, 1);
                                  return replay::rvs(sch.get_loops(replay::block(in, 0)));
                                }};

const InstructionKind get_child_blocks{
    "get_child_blocks", false,
    [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&, const Decision&) {
      replay::expect_inputs(in, 1);
      const RV* rv = std::get_if<RV>(&in[0]);
      if (rv && rv->kind == RVKind::kLoop) return replay::rvs(sch.get_child_blocks(replay::loop(in, 0)));
      return replay::rvs(sch.get_child_blocks(replay::block(in, 0)));
    }};

}  // namespace inst
}  // namespace kiln
