// Every node kind in the X-macro lists has a factory, prints, and survives
// JSON: a kind added without printer or JSON support fails here.
#include <gtest/gtest.h>

#include "core/json.h"
#include "core/printer.h"
#include "core/structural.h"
#include "samples.h"
#include "tir/printer.h"

namespace kiln {
namespace {

void check_node(const ObjectRef& sample, std::string_view key, const std::string& text) {
  ASSERT_TRUE(sample.defined()) << key << " has no sample";
  EXPECT_EQ(sample.get()->type_key(), key);
  EXPECT_NE(find_node_factory(key), nullptr) << key << " has no registered factory";
  ASSERT_NE(find_node_field_names(key), nullptr) << key << " has no registered field names";
  EXPECT_EQ(find_node_field_names(key)().size(), sample.get()->field_names().size()) << key;
  EXPECT_FALSE(text.empty()) << key << " prints nothing";
  ObjectRef back = load_json(save_json(sample));
  // The sample's free variables come back as new objects.
  EXPECT_TRUE(structural_equal(sample, back, FreeVars::kMap)) << key << " does not round-trip through JSON";
}

TEST(NodeList, EveryExpressionKind) {
#define X(Name, Sym)                               \
  {                                                \
    Expr e = testing::sample_expr(ExprKind::Name); \
    ASSERT_TRUE(e.defined()) << #Name;             \
    EXPECT_EQ(e.kind(), ExprKind::Name);           \
    check_node(e, #Name, to_string(e));            \
  }
  KILN_FOR_EACH_EXPR(X)
#undef X
}

TEST(NodeList, EveryStatementKind) {
#define X(Name)                                        \
  {                                                    \
    Stmt s = testing::sample_stmt(StmtKind::Name);     \
    ASSERT_TRUE(s.defined()) << #Name;                 \
    EXPECT_EQ(s.kind(), StmtKind::Name);               \
    check_node(s, #Name, to_string(s));                \
  }
  KILN_FOR_EACH_STMT(X)
#undef X
}

}  // namespace
}  // namespace kiln
