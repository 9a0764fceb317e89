#include "tir/stmt.h"

namespace kiln {

// The generated members of every statement node (core/object.h).
KILN_DEFINE_NODE(BufferStoreNode);
KILN_DEFINE_NODE(ForNode);
KILN_DEFINE_NODE(SeqStmtNode);
KILN_DEFINE_NODE(IfThenElseNode);
KILN_DEFINE_NODE(LetStmtNode);
KILN_DEFINE_NODE(AllocateNode);
KILN_DEFINE_NODE(EvaluateNode);
KILN_DEFINE_NODE(BarrierNode);
KILN_DEFINE_NODE(PrefetchNode);
KILN_DEFINE_NODE(BufferRegionNode);
KILN_DEFINE_NODE(BlockNode);
KILN_DEFINE_NODE(BlockRealizeNode);
KILN_DEFINE_NODE(PrimFuncNode);
KILN_DEFINE_NODE(IRModuleNode);

const char* stmt_kind_name(StmtKind k) {
  switch (k) {
#define X(Name) \
  case StmtKind::Name: return #Name;
    KILN_FOR_EACH_STMT(X)
#undef X
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unroll";
    case ForKind::kThreadBinding: return "thread_binding";
  }
  return "?";
}

ForKind for_kind_from_name(const std::string& s) {
  for (ForKind k : {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled,
                    ForKind::kThreadBinding})
    if (s == for_kind_name(k)) return k;
  KILN_USER_ERROR() << "unknown loop kind '" << s << "'";
}

void BufferStoreNode::validate() const {
  if (!buffer.defined() || !value.defined()) KILN_USER_ERROR() << "store without buffer or value";
  if (value.dtype().element_of() != buffer.dtype())
    KILN_USER_ERROR() << "store of " << value.dtype().str() << " into " << buffer.name() << " of "
                      << buffer.dtype().str();
}

void ForNode::validate() const {
  if (!loop_var.defined() || !min.defined() || !extent.defined() || !body.defined())
    KILN_USER_ERROR() << "loop with a missing part";
  if (for_kind == ForKind::kThreadBinding && thread_tag.empty())
    KILN_USER_ERROR() << "thread-bound loop " << loop_var.name() << " has no thread tag";
}

void BlockRealizeNode::validate() const {
  const auto* b = block.as<BlockNode>();
  if (!b) KILN_USER_ERROR() << "block realize without a block";
  if (b->iter_vars.size() != iter_values.size())
    KILN_USER_ERROR() << "block " << b->name << " has " << b->iter_vars.size() << " iter vars but "
                      << iter_values.size() << " values";
}

namespace {
template <typename N>
std::shared_ptr<N> node() {
  return std::make_shared<N>();
}
}  // namespace

Stmt buffer_store(Buffer buffer, Expr value, std::vector<Expr> indices) {
  auto n = node<BufferStoreNode>();
  if (value.dtype().element_of() != buffer.dtype()) value = cast(buffer.dtype().with_lanes(value.dtype().lanes()), value);
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  n->validate();
  return Stmt(std::move(n));
}

Stmt for_loop(Var v, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag,
              Annotations annotations) {
  auto n = node<ForNode>();
  if (min.dtype() != v.dtype()) min = cast(v.dtype(), min);
  if (extent.dtype() != v.dtype()) extent = cast(v.dtype(), extent);
  n->loop_var = std::move(v);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->for_kind = kind;
  n->body = std::move(body);
  n->thread_tag = std::move(thread_tag);
  n->annotations = std::move(annotations);
  n->validate();
  return Stmt(std::move(n));
}

Stmt seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s.defined() || is_no_op(s)) continue;
    if (const auto* q = s.as<SeqStmtNode>()) {
      for (const Stmt& t : q->seq) flat.push_back(t);
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return no_op();
  if (flat.size() == 1) return flat[0];
  auto n = node<SeqStmtNode>();
  n->seq = std::move(flat);
  return Stmt(std::move(n));
}

Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case) {
  auto n = node<IfThenElseNode>();
  n->condition = std::move(cond);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  return Stmt(std::move(n));
}

Stmt let_stmt(Var v, Expr value, Stmt body) {
  KILN_ICHECK(v.dtype() == value.dtype()) << "let " << v.name();
  auto n = node<LetStmtNode>();
  n->var = std::move(v);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt allocate(Buffer buffer, Stmt body) {
  auto n = node<AllocateNode>();
  n->buffer = std::move(buffer);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt evaluate(Expr value) {
  auto n = node<EvaluateNode>();
  n->value = std::move(value);
  return Stmt(std::move(n));
}

Stmt barrier(std::string scope) {
  auto n = node<BarrierNode>();
  n->scope = std::move(scope);
  return Stmt(std::move(n));
}

Stmt prefetch(Buffer buffer, std::vector<Expr> indices) {
  auto n = node<PrefetchNode>();
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  return Stmt(std::move(n));
}

Stmt no_op() { return evaluate(Expr(0)); }

bool is_no_op(const Stmt& s) {
  if (!s.defined()) return true;
  if (const auto* e = s.as<EvaluateNode>()) return e->value.as<IntImmNode>() != nullptr;
  if (const auto* q = s.as<SeqStmtNode>()) return q->seq.empty();
  return false;
}

Stmt block(BlockFields f) {
  auto n = node<BlockNode>();
  n->name = std::move(f.name);
  n->iter_vars = std::move(f.iter_vars);
  n->reads = std::move(f.reads);
  n->writes = std::move(f.writes);
  n->init = std::move(f.init);
  n->body = std::move(f.body);
  n->alloc_buffers = std::move(f.alloc_buffers);
  n->annotations = std::move(f.annotations);
  return Stmt(std::move(n));
}

Stmt with_loop_body(const Stmt& loop, Stmt body) {
  return with_loop_body(loop, loop.as<ForNode>()->for_kind, std::move(body));
}

Stmt with_loop_body(const Stmt& loop, ForKind kind, Stmt body) {
  const ForNode* op = loop.as<ForNode>();
  KILN_ICHECK(op) << "with_loop_body needs a For, got " << stmt_kind_name(loop.kind());
  if (kind == op->for_kind && body.same_as(op->body)) return loop;
  return for_loop(op->loop_var, op->min, op->extent, kind, std::move(body), op->thread_tag, op->annotations);
}

Stmt block_realize(std::vector<Expr> iter_values, Expr predicate, Stmt block) {
  auto n = node<BlockRealizeNode>();
  n->iter_values = std::move(iter_values);
  n->predicate = predicate.defined() ? std::move(predicate) : int_imm(DataType::Bool(), 1);
  n->block = std::move(block);
  n->validate();
  return Stmt(std::move(n));
}

BufferRegion::BufferRegion(Buffer buffer, std::vector<Range> region) {
  auto n = node<BufferRegionNode>();
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  ptr_ = std::move(n);
}

BufferRegion BufferRegion::full(const Buffer& buffer) {
  std::vector<Range> r;
  for (const Expr& e : buffer.shape()) r.push_back(Range::from_extent(e));
  return BufferRegion(buffer, std::move(r));
}

PrimFunc::PrimFunc(std::string name, std::vector<Buffer> params, Stmt body, Annotations attrs) {
  auto n = node<PrimFuncNode>();
  n->name = std::move(name);
  n->params = std::move(params);
  n->body = std::move(body);
  n->attrs = std::move(attrs);
  ptr_ = std::move(n);
}

PrimFunc PrimFunc::with_body(Stmt body) const {
  if (body.same_as((*this)->body)) return *this;
  auto n = std::make_shared<PrimFuncNode>(**this);
  n->body = std::move(body);
  return PrimFunc(ObjectPtr(std::move(n)));
}

IRModule::IRModule(std::map<std::string, PrimFunc> functions) {
  auto n = node<IRModuleNode>();
  n->functions = std::move(functions);
  ptr_ = std::move(n);
}

PrimFunc IRModule::main() const {
  const auto& fs = (*this)->functions;
  if (fs.size() != 1) KILN_USER_ERROR() << "module has " << fs.size() << " functions, expected one";
  return fs.begin()->second;
}

PrimFunc IRModule::lookup(const std::string& name) const {
  auto it = (*this)->functions.find(name);
  if (it == (*this)->functions.end()) KILN_USER_ERROR() << "module has no function '" << name << "'";
  return it->second;
}

IRModule IRModule::with_function(const PrimFunc& f) const {
  auto fs = (*this)->functions;
  fs[f.name()] = f;
  return IRModule(std::move(fs));
}

}  // namespace kiln
