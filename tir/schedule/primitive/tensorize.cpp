// tensorize: a loop nest computed by a tensor intrinsic (tir/tensor_intrin.h).
//
//   for j_1 in range(16):                     sch.tensorize(j_1, "x86_vnni_u8s8s32_16x4")
//     for k_1 in range(4):             ->     for j_1 in range(16), annotations={"kiln.tensorize": ...}:
//       with T.block("C"): ...                  for k_1 in range(4):
//                                                 with T.block("C"): ...
//
// The nest under the loop must compute what the intrinsic's description
// does (match_tensor_intrin): as many loops of the same extents, one block
// without init or predicate, the same expression over its operands, each
// operand at the intrinsic's strides along the loops. Then only the
// annotation changes: the nest stays, so the interpreter runs it element
// by element and every test can check a tensorized program, while the code
// generator emits the intrinsic's instructions for it. Whether the target
// has them is the code generator's question, not the schedule's.
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/replay.h"
#include "tir/tensor_intrin.h"

namespace kiln {

void Schedule::tensorize(LoopRV loop, const std::string& intrin) {
  const char* const P = "tensorize";
  const Stmt l = loop_stmt(loop, P);
  const TensorIntrin* t = find_tensor_intrin(intrin);
  if (!t) throw NotFoundError(P, "no tensor intrinsic '" + intrin + "' (known: " + tensor_intrin_names() + ")");
  const std::string& name = l.as<ForNode>()->loop_var->name;
  for (Stmt s = l; const auto* f = s.as<ForNode>(); s = f->body)
    if (f->for_kind != ForKind::kSerial)
      throw TensorizeMismatchError(P, "loop '" + f->loop_var->name + "' under '" + name + "' is not serial (" +
                                          for_kind_name(f->for_kind) + ")");
  std::variant<TensorIntrinMatch, std::string> m = match_tensor_intrin(l, *t);
  if (const auto* why = std::get_if<std::string>(&m))
    throw TensorizeMismatchError(P, "loop '" + name + "' is not " + intrin + ": " + *why);
  set_loop_annotation(loop, kTensorizeAnn, string_imm(intrin));
  record(inst::tensorize, {loop.rv()}, TensorizeAttrs{intrin}, {});
}

namespace inst {
const InstructionKind tensorize{
    .name = "tensorize",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      sch.tensorize(replay::loop(in, 0), replay::attrs<TensorizeAttrs>(attrs, "tensorize").intrin);
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<TensorizeAttrs>};
}  // namespace inst
}  // namespace kiln
