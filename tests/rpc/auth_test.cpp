// Who may make a runner run code: on loopback and unix sockets anyone on
// the machine; elsewhere only a client with the token.
#include <gtest/gtest.h>


#include "core/error.h"
#include "support/faulty_artifacts.h"
#include "support/scratch.h"
#include "ops/workload.h"
#include "rpc/runner/server.h"
#include "rpc/runner_client.h"

namespace kiln::testing {
namespace {

rpc::RunnerOptions with_token(const std::string& token) {
  rpc::RunnerOptions o;
  o.token = token;
  o.kiln = KILN_BINARY;
  o.workdir = testing::scratch_path("runner");
  return o;
}

TEST(RunnerAuth, LocalAddressesAreLocal) {
  EXPECT_TRUE(rpc::is_local_address("unix:/tmp/x.sock"));
  EXPECT_TRUE(rpc::is_local_address("127.0.0.1:9190"));
  EXPECT_TRUE(rpc::is_local_address("localhost:0"));
  EXPECT_TRUE(rpc::is_local_address("[::1]:9190"));
  EXPECT_FALSE(rpc::is_local_address("0.0.0.0:9190"));
  EXPECT_FALSE(rpc::is_local_address("[::]:9190"));
  EXPECT_FALSE(rpc::is_local_address("devbox:9190"));
}

TEST(RunnerAuth, ListeningOffLoopbackNeedsAToken) {
  try {
    rpc::RunnerServer server("0.0.0.0:0", with_token(""));
    FAIL() << "listened on every interface without a token";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--token"), std::string::npos) << e.what();
  }
}

TEST(RunnerAuth, ListeningOffLoopbackNeedsTlsBesideTheToken) {
  try {
    rpc::RunnerServer server("0.0.0.0:0", with_token("s3cret"));
    FAIL() << "listened on every interface with a token sent in the clear";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tls-cert"), std::string::npos) << e.what();
  }
}

TEST(RunnerAuth, AWrongOrMissingTokenIsRefusedAndTheRightOneAccepted) {
  rpc::RunnerServer server("127.0.0.1:0", with_token("s3cret"));
  ASSERT_NE(server.address(), "127.0.0.1:0");
  for (const std::string& token : {std::string(), std::string("wrong"), std::string("s3cret-but-longer")}) {
    auto client = rpc::connect_remote_runner(server.address(), token);
    try {
      client->info();
      FAIL() << "token '" << token << "' accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("UNAUTHENTICATED"), std::string::npos) << e.what();
    }
    // A measurement request is refused before anything of it runs: this
    // candidate would kill its worker if it were loaded.
    PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=4"));
    rpc::MeasureBatch b;
    b.candidates = {candidate(0, f, faulty_artifact(f, Target::host(), Fault::kSegfault))};
    b.candidates[0].reference_id.clear();
    EXPECT_THROW(client->measure(b), Error);
  }
  auto client = rpc::connect_remote_runner(server.address(), "s3cret");
  EXPECT_EQ(client->info().targets.front(), Target::host().str());
  PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=4"));
  rpc::MeasureBatch b;
  b.references = {reference(f, Target::host())};
  b.candidates = {candidate(0, f, default_artifact(f, Target::host()))};
  EXPECT_TRUE(client->measure(b).front().ok());
}

TEST(RunnerAuth, AnotherProtocolVersionIsRefused) {
  rpc::RunnerServer server("127.0.0.1:0", with_token(""));
  auto stub = rpc::proto::Runner::NewStub(grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  rpc::proto::InfoRequest req;
  req.set_protocol_version(999);
  rpc::proto::InfoReply reply;
  grpc::Status s = stub->Info(&ctx, req, &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("999"), std::string::npos) << s.error_message();
}

}  // namespace
}  // namespace kiln::testing
