// A farm on one machine, every part real: a PostgreSQL server, kilnd
// daemons and `kiln runner --register` runners as processes. Two daemons
// share the queue and run each job once; a daemon killed with SIGKILL
// mid-job is restarted and the job completes with every committed record
// kept; a paused runner is marked lost; a wrong or missing token is refused
// everywhere; a job for a key with no runner waits and says so.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "support/error_of.h"
#include "farm/farm_client.h"
#include "graph/model_builder.h"
#include "ops/workload.h"
#include "processes.h"
#include "support/postgres.h"
#include "support/scratch.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/postgres_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::farm {
namespace {

JobSpec matmul_job(int m, const std::string& key, int64_t trials, int batch = 4) {
  ops::Workload w = ops::parse_workload("matmul:M=" + std::to_string(m) + ",N=32,K=32");
  JobSpec s;
  s.tasks = {{tuning::workload_entry(ops::build_workload(w), w.op, w.str(), ops::workload_flops(w))}};
  s.name = w.str();
  s.tune.target = Target::parse("llvm");
  s.device_key = key;
  s.tune.trials = trials;
  s.tune.batch_size = batch;
  s.tune.timing.repeat = 2;
  s.tune.final_top = 0;
  return s;
}

std::string state_of(FarmClient& c, int64_t id) { return c.job(id)["state"]; }

std::string runner_state(FarmClient& c, const std::string& address) {
  const nlohmann::json status = c.status();
  for (const nlohmann::json& r : status["runners"])
    if (r["address"] == address) return r["state"];
  return "(absent)";
}

// What a shell prints and its exit status.
std::pair<int, std::string> shell(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Farm, TwoDaemonsShareTheQueueAndRunEachJobOnce) {
  const std::string url = testing::fresh_postgres_database("two_daemons");
  FarmProcess a = start_test_kilnd(url), b = start_test_kilnd(url);
  FarmProcess runner = start_runner(a.address, "cpu");
  FarmClient client(b.address);
  std::vector<int64_t> ids;
  for (int m : {8, 16, 24, 40}) ids.push_back(client.submit(matmul_job(m, "cpu", 4))["id"]);
  ASSERT_TRUE(eventually([&] {
    for (int64_t id : ids)
      if (state_of(client, id) != "done") return false;
    return true;
  }, 240)) << client.job(ids.back()).dump();
  auto db = tuning::open_postgres_database(url, tuning::OpenMode::kExisting);
  for (int64_t id : ids) {
    nlohmann::json j = client.job(id);
    EXPECT_EQ(j["attempts"], 1) << j.dump();
    EXPECT_EQ(j["progress"]["trials"], 4) << j.dump();
  }
  EXPECT_EQ(db->num_records(), 16) << "four jobs of four trials, none measured twice";
}

TEST(Farm, ADaemonKilledMidJobIsRestartedAndTheJobCompletesWithEveryRecordKept) {
  const std::string url = testing::fresh_postgres_database("killed_daemon");
  FarmProcess d = start_test_kilnd(url);
  const int port = std::stoi(d.address.substr(d.address.rfind(':') + 1));
  FarmProcess runner = start_runner(d.address, "cpu");
  FarmClient client(d.address);
  const JobSpec spec = matmul_job(48, "cpu", 24, 4);
  const int64_t id = client.submit(spec)["id"];
  auto db = tuning::open_postgres_database(url, tuning::OpenMode::kExisting);
  const std::string key = spec.tasks[0].entry.key, target = Target::parse("llvm").str();
  ASSERT_TRUE(eventually([&] { return db->count_records(key, target) >= 8; }, 120));
  d.child.kill();  // SIGKILL, mid-job
  std::vector<int64_t> committed;
  for (const tuning::TuningRecord& r : db->records_of(key, target)) committed.push_back(r.id);
  ASSERT_GE(committed.size(), 8u);

  FarmProcess again = start_test_kilnd(url, {}, "127.0.0.1:" + std::to_string(port));  // the runner's heartbeats reach it at the same address
  FarmClient client2(again.address);
  ASSERT_TRUE(eventually([&] { return state_of(client2, id) == "done"; }, 180)) << client2.job(id).dump();
  nlohmann::json j = client2.job(id);
  EXPECT_EQ(j["attempts"], 2) << j.dump();
  std::vector<tuning::TuningRecord> now = db->records_of(key, target);
  EXPECT_EQ(now.size(), 24u) << "the job resumed: what was committed counted, nothing measured twice";
  std::set<int64_t> ids;
  for (const tuning::TuningRecord& r : now) ids.insert(r.id);
  for (int64_t c : committed) EXPECT_TRUE(ids.count(c)) << "record " << c << " was lost";
  std::set<std::string> traces;
  for (const tuning::TuningRecord& r : now) traces.insert(r.trace_json);
  EXPECT_EQ(traces.size(), now.size()) << "no trace measured twice";
}

TEST(Farm, APausedRunnerIsMarkedLostAfterTheHeartbeatTimeout) {
  const std::string url = testing::fresh_postgres_database("paused_runner");
  FarmProcess d = start_test_kilnd(url);
  FarmProcess runner = start_runner(d.address, "cpu");
  FarmClient client(d.address);
  ASSERT_TRUE(eventually([&] { return runner_state(client, runner.address) == "alive"; }, 30)) ;
  ::kill(runner.child.pid(), SIGSTOP);
  EXPECT_TRUE(eventually([&] { return runner_state(client, runner.address) == "lost"; }, 10));
  ::kill(runner.child.pid(), SIGCONT);
  EXPECT_TRUE(eventually([&] { return runner_state(client, runner.address) == "alive"; }, 10));
}

TEST(Farm, AWrongOrMissingTokenIsRefusedEverywhere) {
  const std::string url = testing::fresh_postgres_database("tokens");
  const std::string tokens = testing::scratch_path("tokens");
  std::ofstream(tokens) << "# role name token\n"
                           "admin  ops    admin-0123456789abcdef\n"
                           "user   alice  alice-0123456789abcdef\n"
                           "user   bob    bob-0123456789abcdef00\n"
                           "runner farm   runner-0123456789abcdef\n";
  FarmProcess d = start_test_kilnd(url, {"--tokens", tokens});
  rpc::DeviceInfo device;
  device.device_key = "cpu";
  for (const std::string& token : {std::string(), std::string("wrong-0123456789abcdef")}) {
    FarmClient c(d.address, {.token = token});
    const std::vector<std::function<void()>> calls = {
        [&] { c.submit(matmul_job(8, "cpu", 4)); }, [&] { c.jobs(); },          [&] { c.job(1); },
        [&] { c.cancel(1); },                          [&] { c.status(); },        [&] { c.logs(1, 0, false, {}); },
        [&] { c.register_runner("127.0.0.1:1", device); }, [&] { c.heartbeat("127.0.0.1:1"); },
        [&] { c.leave("127.0.0.1:1"); }};
    for (size_t i = 0; i < calls.size(); ++i)
      EXPECT_NE(testing::error_of(calls[i]).find("UNAUTHENTICATED"), std::string::npos) << "call " << i << " with '" << token << "'";
  }
  FarmClient alice(d.address, {.token = "alice-0123456789abcdef"}), bob(d.address, {.token = "bob-0123456789abcdef00"}),
      ops(d.address, {.token = "admin-0123456789abcdef"}), farm_runner(d.address, {.token = "runner-0123456789abcdef"});
  // A job for a key no runner has waits, and says so.
  nlohmann::json j = alice.submit(matmul_job(8, "gpu", 4));
  EXPECT_EQ(j["owner"], "alice");
  EXPECT_EQ(j["state"], "queued");
  EXPECT_NE(j.value("waiting", "").find("no runner of key 'gpu' is live"), std::string::npos) << j.dump();
  const int64_t id = j["id"];
  EXPECT_NE(testing::error_of([&] { bob.cancel(id); }).find("belongs to alice"), std::string::npos);
  EXPECT_NE(testing::error_of([&] { farm_runner.submit(matmul_job(8, "cpu", 4)); }).find("PERMISSION_DENIED"), std::string::npos);
  EXPECT_NE(testing::error_of([&] { alice.register_runner("127.0.0.1:1", device); }).find("PERMISSION_DENIED"), std::string::npos);
  EXPECT_EQ(farm_runner.register_runner("127.0.0.1:1", device).second, 1.5);
  EXPECT_EQ(ops.cancel(id)["state"], "cancelled") << "an admin cancels anyone's job";
  EXPECT_EQ(alice.jobs().size(), 1u);
}

TEST(Farm, ADaemonRefusesToListenOffLoopbackWithoutTokensAndTls) {
  const std::string url = testing::fresh_postgres_database("open");
  auto [code, out] = shell(kilnd_binary() + " --db '" + url + "' --listen 0.0.0.0:0");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("give a --tokens file"), std::string::npos) << out;
  const std::string tokens = testing::scratch_path("tokens2");
  std::ofstream(tokens) << "admin ops admin-0123456789abcdef\n";
  std::tie(code, out) = shell(kilnd_binary() + " --db '" + url + "' --listen 0.0.0.0:0 --tokens " + tokens);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("--tls-cert"), std::string::npos) << out;
  EXPECT_EQ(out.find(url.substr(url.find(':', 13) + 1, url.find('@') - url.find(':', 13) - 1)), std::string::npos)
      << "the password is never printed";
}

TEST(Farm, TheLocalFarmScriptRunsAJobOnARunnerOfEachKey) {
  const std::string state = testing::scratch_path("local-farm");
  const std::string bin = std::filesystem::path(rpc::kiln_binary()).parent_path().string();
  const std::string env = "KILN_BIN=" + bin + " ";
  auto [code, out] = shell(env + KILN_SOURCE_DIR "/scripts/local-farm start " + state + " 0");
  ASSERT_EQ(code, 0) << out;
  const std::string daemon = out.substr(0, out.find('\n'));
  for (const char* key : {"avx2", "avx512"}) {
    const std::string target = std::string(key) == "avx2" ? "'llvm -mattr=-avx512f'" : "llvm";
    auto [c, o] = shell(std::string(KILN_BINARY) + " job submit matmul:M=16,N=16,K=16 --daemon " + daemon + " --key " +
                        key + " --target " + target + " --trials 4 --batch-size 4 --final-top 0 --follow");
    EXPECT_EQ(c, 0) << o;
    EXPECT_NE(o.find("done: 4 trials over 1 task(s)"), std::string::npos) << o;
  }
  auto [c, o] = shell(std::string(KILN_BINARY) + " farm status --json --daemon " + daemon);
  ASSERT_EQ(c, 0) << o;
  const nlohmann::json s = nlohmann::json::parse(o.substr(o.find('{')));
  ASSERT_EQ(s["runners"].size(), 2u) << o;
  for (const nlohmann::json& r : s["runners"]) EXPECT_EQ(r["measured"], 4) << o;
  EXPECT_EQ(shell(KILN_SOURCE_DIR "/scripts/local-farm stop " + state).first, 0);
}

TEST(Farm, AModelJobTunesEveryTaskAndTheModelRunsFromTheFarmsDatabase) {
  const std::string url = testing::fresh_postgres_database("model");
  FarmProcess d = start_test_kilnd(url);
  FarmProcess runner = start_runner(d.address, "cpu");
  graph::testing::ModelBuilder m;  // a Conv + Relu and a second Conv
  m.input("x", {1, 8, 6, 6}).weights("w1", {8, 8, 3, 3}).weights("w2", {8, 8, 3, 3}).output("y");
  graph::testing::set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  graph::testing::set_ints(m.node("Conv", {"a", "w2"}, {"y"}), "pads", {1, 1, 1, 1});
  const std::string model = testing::scratch_path("farm_model.onnx");
  std::ofstream(model, std::ios::binary) << m.bytes();

  auto [code, out] = shell(std::string(KILN_BINARY) + " job submit --model " + model + " --daemon " + d.address +
                           " --key cpu --trials 4 --batch-size 4 --final-top 0 --follow --json");
  ASSERT_EQ(code, 0) << out;
  const nlohmann::json job = nlohmann::json::parse(out.substr(out.rfind("\n{") + 1));
  EXPECT_EQ(job["state"], "done") << out;
  EXPECT_EQ(job["tasks"], 4) << "both convolutions, blocked, and the layout conversions into and out of blocks\n" << out;
  // The task scheduler shared the trials, as kiln tune does: its rounds
  // report the model's estimated latency, and so does the job's end.
  EXPECT_NE(out.find("tasks tuned"), std::string::npos) << out;
  EXPECT_NE(job["message"].get<std::string>().find("4 tuned; model estimate"), std::string::npos) << out;
  auto [rc, ro] = shell(std::string(KILN_BINARY) + " run " + model + " --db '" + url + "' --check --repeat 1 --json");
  ASSERT_EQ(rc, 0) << ro;
  EXPECT_EQ(ro.find("have no tuned record"), std::string::npos) << "every task was tuned on the farm\n" << ro;
  EXPECT_EQ(nlohmann::json::parse(ro.substr(ro.rfind("\n{") + 1))["check"], "ok") << ro;
}

// A self-signed certificate for localhost and 127.0.0.1: {cert, key}.
std::pair<std::string, std::string> self_signed_certificate() {
  const std::string cert = testing::scratch_path("cert.pem"), key = testing::scratch_path("key.pem");
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext "
                          "subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " + key + " -out " + cert + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl failed");
  return {cert, key};
}

TEST(Farm, OffLoopbackEverythingGoesOverTlsWithTokens) {
  const std::string url = testing::fresh_postgres_database("tls");
  const auto [cert, key] = self_signed_certificate();
  const std::string tokens = testing::scratch_path("tls-tokens");
  std::ofstream(tokens) << "user alice alice-0123456789abcdef\nrunner farm runner-0123456789abcdef\n";
  FarmProcess d = start_test_kilnd(url, {"--tokens", tokens, "--tls-cert", cert, "--tls-key", key, "--runner-tls-ca", cert},
                              "0.0.0.0:0");
  // 127.0.0.1 rather than localhost: the certificate names both, and an
  // address needs no name lookup.
  const std::string daemon = "127.0.0.1" + d.address.substr(d.address.rfind(':'));
  FarmProcess runner = start_runner(daemon, "cpu",
                                    {"--listen", "0.0.0.0:0", "--token", "runner-0123456789abcdef", "--tls-cert", cert,
                                     "--tls-key", key, "--tls-ca", cert, "--advertise", "127.0.0.1"});
  FarmClient alice(daemon, {.token = "alice-0123456789abcdef", .tls_ca = cert});
  const int64_t id = alice.submit(matmul_job(8, "cpu", 4))["id"];
  ASSERT_TRUE(eventually([&] { return state_of(alice, id) == "done"; }, 120)) << alice.job(id).dump();
  // Without TLS, the right token gets nowhere.
  FarmClient plain(daemon, {.token = "alice-0123456789abcdef"});
  EXPECT_THROW(plain.jobs(), Error);
}

}  // namespace
}  // namespace kiln::farm
