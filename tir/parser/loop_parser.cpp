// Loops (docs/ir_text.md, Loops):
//
//   for i in range(64):                       serial from zero
//   for i in range(2, 66):                    serial, min 2, extent 64
//   for i in T.parallel(64):                  T.serial/parallel/vectorized/unroll/thread_binding,
//   for t in T.thread_binding(32, thread="threadIdx.x", annotations={...}, dtype="int64"):
//   for i, j, k in T.grid(64, 16, 32):       nested serial loops from zero
//
// A loop is built as written: its variable has the type of the extent unless
// `dtype=` says otherwise, and its bounds are not cast to that type.
#include <string>

#include "tir/parser/diagnostic.h"
#include "tir/parser/nodes.h"
#include "tir/parser/stmt_parser.h"

namespace kiln::parser {

namespace {

// What a loop header says about one loop.
struct LoopHead {
  Expr min, extent;
  ForKind kind = ForKind::kSerial;
  std::string thread_tag;
  Annotations annotations;
  DataType var_type;
};

constexpr ForKind kKinds[] = {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled,
                              ForKind::kThreadBinding};

Stmt make_loop(const Var& v, const LoopHead& h, Stmt body) {
  auto n = std::make_shared<ForNode>();
  n->loop_var = v;
  n->min = h.min;
  n->extent = h.extent;
  n->for_kind = h.kind;
  n->body = std::move(body);
  n->thread_tag = h.thread_tag;
  n->annotations = h.annotations;
  return finish_stmt(std::move(n));
}

// `64` or `2, 66` inside range(...) and T.<kind>(...): min and extent.
void parse_loop_range(ExprParser& exprs, TokenCursor& in, LoopHead& h) {
  size_t begin = in.pos();
  const Token& at = in.peek();
  Expr first = exprs.parse_index("a loop bound");
  size_t end = in.pos();
  if (!first.dtype().is_scalar()) error_at(at, "loop bounds must be scalars");
  // A second positional argument is the stop; `, thread=` starts the keywords.
  bool keyword_next = in.peek(1).kind == TokenKind::kName && in.peek(2).is_op("=");
  if (in.at_op(",") && !keyword_next) {
    in.next();
    h.min = first;
    h.extent = exprs.parse_extent_after(first, begin, end);
  } else {
    h.min = int_imm(first.dtype(), 0);
    h.extent = first;
  }
  if (!h.extent.dtype().is_scalar()) error_at(at, "loop bounds must be scalars");
}

}  // namespace

Stmt StmtParser::parse_for() {
  in_.expect_name("for", "");
  std::vector<const Token*> vars;
  do vars.push_back(&in_.expect_identifier("as a loop variable"));
  while (in_.accept_op(","));
  in_.expect_name("in", "after the loop variables");
  const Token& iter = in_.peek();

  std::vector<LoopHead> heads;
  if (in_.accept_name("range")) {
    in_.expect_op("(", "after 'range'");
    LoopHead h;
    parse_loop_range(exprs_, in_, h);
    in_.expect_op(")", "after the bounds of range");
    h.var_type = h.extent.dtype();
    heads.push_back(h);
  } else if (in_.at_t("grid")) {
    in_.expect_t("grid", "");
    in_.expect_op("(", "after 'T.grid'");
    while (!in_.at_op(")")) {
      LoopHead h;
      const Token& at = in_.peek();
      h.extent = exprs_.parse_index("a loop extent");
      if (!h.extent.dtype().is_scalar()) error_at(at, "loop bounds must be scalars");
      h.min = int_imm(h.extent.dtype(), 0);
      h.var_type = h.extent.dtype();
      heads.push_back(h);
      if (!in_.accept_op(",")) break;
    }
    in_.expect_op(")", "after the extents of T.grid");
    if (heads.size() != vars.size())
      error_at(iter, "T.grid has " + std::to_string(heads.size()) + " extents for " + std::to_string(vars.size()) +
                         " loop variables");
  } else if (in_.peek().is_name("T") && in_.peek(1).is_op(".")) {
    const Token& fn = in_.peek(2);
    const ForKind* kind = nullptr;
    for (const ForKind& k : kKinds)
      if (fn.text == for_kind_name(k)) kind = &k;
    if (!kind)
      error_at(fn, "unknown loop kind 'T." + fn.text +
                       "'; expected T.serial, T.parallel, T.vectorized, T.unroll, T.thread_binding or T.grid");
    in_.expect_t(fn.text, "");
    in_.expect_op("(", "after the loop kind");
    LoopHead h;
    h.kind = *kind;
    parse_loop_range(exprs_, in_, h);
    // Keywords, in the order the printer writes them.
    if (in_.at_op(",") && in_.peek(1).is_name("thread")) {
      in_.next();
      in_.expect_keyword("thread", "");
      h.thread_tag = in_.expect_string("as the thread tag").text;
    }
    if (in_.at_op(",") && in_.peek(1).is_name("annotations")) {
      in_.next();
      in_.expect_keyword("annotations", "");
      h.annotations = exprs_.parse_annotations();
    }
    h.var_type = exprs_.parse_bound_dtype(h.extent);
    in_.expect_op(")", "after the loop bounds and keywords");
    if (h.kind == ForKind::kThreadBinding && h.thread_tag.empty())
      error_at(fn, "T.thread_binding needs thread=\"...\"");
    heads.push_back(h);
  } else {
    in_.fail_expected("range, T.grid or a loop kind such as T.parallel", "after 'in'");
  }
  if (heads.size() == 1 && vars.size() != 1)
    error_at(iter, "this loop binds one variable, not " + std::to_string(vars.size()) + "; use T.grid for a nest");

  ScopeGuard scope(names_);
  std::vector<Var> loop_vars;
  for (size_t i = 0; i < vars.size(); ++i) loop_vars.push_back(names_.bind_var(*vars[i], heads[i].var_type));
  Stmt body = parse_body("after the loop header");
  for (size_t i = heads.size(); i-- > 0;) body = make_loop(loop_vars[i], heads[i], std::move(body));
  return body;
}

}  // namespace kiln::parser
