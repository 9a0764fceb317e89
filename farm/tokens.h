// Who may do what on a farm: the tokens a kilnd accepts, each with a name
// and a role, read from a file only the daemon's user can read:
//
//   # ROLE   NAME    TOKEN
//   admin    ops     9c1f...      cancels anyone's job, does anything
//   user     alice   4e7a...      submits jobs, cancels her own
//   runner   farm    b20d...      registers runners; the daemon dials runners with it
//
// A daemon without a tokens file serves loopback only, and everyone there
// is "local", an admin.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kiln::farm {

struct Caller {
  std::string name;
  std::string role;  // "admin", "user" or "runner"
  bool admin() const { return role == "admin"; }
};

class Tokens {
 public:
  // Throws kiln::Error naming the file and line of anything malformed (an
  // unknown role, a missing field, a token shorter than 16 characters, or
  // one given twice).
  static Tokens load(const std::string& path);
  static Tokens from_text(const std::string& text, const std::string& origin);

  bool empty() const { return entries_.empty(); }
  // The caller a token belongs to; nullopt for an unknown or empty one.
  std::optional<Caller> find(const std::string& token) const;
  // The token runners are dialled with: the first of role "runner"; "" when none.
  std::string runner_token() const;

 private:
  struct Entry {
    Caller caller;
    std::string token;
  };
  std::vector<Entry> entries_;
};

}  // namespace kiln::farm
