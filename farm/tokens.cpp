#include "farm/tokens.h"

#include <sstream>

#include "core/error.h"
#include "core/file.h"
#include "rpc/grpc_util.h"

namespace kiln::farm {

Tokens Tokens::load(const std::string& path) {
  return from_text(read_file(path, "the tokens file"), path);
}

Tokens Tokens::from_text(const std::string& text, const std::string& origin) {
  Tokens t;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string role, name, token, extra;
    if (!(words >> role)) continue;
    if (!(words >> name >> token) || (words >> extra))
      KILN_USER_ERROR() << origin << ":" << n << ": expected ROLE NAME TOKEN";
    if (role != "admin" && role != "user" && role != "runner")
      KILN_USER_ERROR() << origin << ":" << n << ": unknown role '" << role << "' (admin, user or runner)";
    if (token.size() < 16) KILN_USER_ERROR() << origin << ":" << n << ": the token of " << name << " is shorter than 16 characters";
    for (const Entry& e : t.entries_)
      if (e.token == token) KILN_USER_ERROR() << origin << ":" << n << ": the token of " << name << " is also " << e.caller.name << "'s";
    t.entries_.push_back({{name, role}, token});
  }
  return t;
}

std::optional<Caller> Tokens::find(const std::string& token) const {
  if (token.empty()) return std::nullopt;
  std::optional<Caller> found;
  for (const Entry& e : entries_)  // every entry compared: timing says nothing
    if (rpc::same_secret(token, e.token)) found = e.caller;
  return found;
}

std::string Tokens::runner_token() const {
  for (const Entry& e : entries_)
    if (e.caller.role == "runner") return e.token;
  return "";
}

}  // namespace kiln::farm
