// A farm's processes started by this process, on this machine: kilnd
// daemons and `kiln runner --register` runners as children (they die with
// it), each ready once it says where it listens. What the farm's tests and
// bench/ build their farms from; scripts/local-farm does the same from a
// shell.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/temp_dir.h"
#include "rpc/process/child_process.h"

namespace kiln::farm {

struct FarmProcess {
  // A runner's work folder, made for it where the caller named none: it
  // goes after the child (declared first, destroyed last), so that a
  // runner killed before it could clean up leaves nothing behind.
  std::unique_ptr<TempDir> workdir;
  rpc::ChildProcess child;
  std::string address;  // where it listens
};

// The kilnd executable: $KILND_BINARY if set, else "kilnd" beside kiln's.
std::string kilnd_binary();

// A PostgreSQL server of this process's own, started by
// scripts/local-postgres (`script`, its path) in a new temporary state
// directory; stopped and removed with this object, by the process that made
// it only (a forked child exits through the destructor too).
class LocalPostgres {
 public:
  explicit LocalPostgres(const std::string& script);
  ~LocalPostgres();
  LocalPostgres(const LocalPostgres&) = delete;
  LocalPostgres& operator=(const LocalPostgres&) = delete;
  // The URL of its database "kiln" (it holds a password).
  const std::string& url() const { return url_; }

 private:
  std::string script_, state_, url_;
  int owner_ = 0;
};

// Creates database `name` on the server of `server_url` (a postgresql://
// URL of any of its databases) and returns its URL.
std::string create_postgres_database(const std::string& server_url, const std::string& name);

// kilnd --db url --listen listen, then `extra`. Throws kiln::Error with
// what it printed when it does not start.
FarmProcess start_kilnd(const std::string& url, const std::vector<std::string>& extra = {},
                        const std::string& listen = "127.0.0.1:0");

// kiln runner --key key --register daemon (listening on 127.0.0.1:0 unless
// `extra` says --listen; working in a temporary folder of this process's,
// removed with the FarmProcess, unless `extra` says --workdir), then
// `extra`.
FarmProcess start_runner(const std::string& daemon, const std::string& key, const std::vector<std::string>& extra = {});

}  // namespace kiln::farm
