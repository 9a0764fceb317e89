#include "rpc/convert.h"

#include <algorithm>

#include "core/error.h"

namespace kiln::rpc {

proto::ErrorKind to_proto(ErrorKind k) {
  switch (k) {
    case ErrorKind::kNone: return proto::NONE;
    case ErrorKind::kInstantiation: return proto::INSTANTIATION;
    case ErrorKind::kLowering: return proto::LOWERING;
    case ErrorKind::kCompile: return proto::COMPILE;
    case ErrorKind::kBuildTimeout: return proto::BUILD_TIMEOUT;
    case ErrorKind::kRuntimeError: return proto::RUNTIME_ERROR;
    case ErrorKind::kTimeout: return proto::TIMEOUT;
    case ErrorKind::kWrongAnswer: return proto::WRONG_ANSWER;
    case ErrorKind::kUnsupportedTarget: return proto::UNSUPPORTED_TARGET;
    case ErrorKind::kInternal: return proto::INTERNAL;
  }
  return proto::RUNTIME_ERROR;
}

ErrorKind from_proto(proto::ErrorKind k) {
  switch (k) {
    case proto::NONE: return ErrorKind::kNone;
    case proto::INSTANTIATION: return ErrorKind::kInstantiation;
    case proto::LOWERING: return ErrorKind::kLowering;
    case proto::COMPILE: return ErrorKind::kCompile;
    case proto::BUILD_TIMEOUT: return ErrorKind::kBuildTimeout;
    case proto::RUNTIME_ERROR: return ErrorKind::kRuntimeError;
    case proto::TIMEOUT: return ErrorKind::kTimeout;
    case proto::WRONG_ANSWER: return ErrorKind::kWrongAnswer;
    case proto::UNSUPPORTED_TARGET: return ErrorKind::kUnsupportedTarget;
    case proto::INTERNAL: note_internal_error(); return ErrorKind::kInternal;
    default: return ErrorKind::kRuntimeError;  // a kind from a newer peer
  }
}

void to_proto(const ArgSpec& s, proto::TensorSpec* out) {
  out->set_name(s.name);
  out->set_dtype(s.dtype.str());
  for (int64_t d : s.shape) out->add_shape(d);
  out->set_is_output(s.is_output);
}

ArgSpec from_proto(const proto::TensorSpec& s) {
  ArgSpec a{s.name(), DataType::parse(s.dtype()), {s.shape().begin(), s.shape().end()}, s.is_output()};
  for (int64_t d : a.shape)
    if (d < 0) KILN_USER_ERROR() << "argument " << a.name << " has a negative extent " << d;
  return a;
}

void to_proto(const ArtifactPrepack& p, proto::Prepack* out) {
  out->set_param(p.param);
  out->set_kernel_name(p.kernel_name);
  to_proto(p.packed, out->mutable_packed());
}

ArtifactPrepack from_proto(const proto::Prepack& p) {
  if (p.param() < 0) KILN_USER_ERROR() << "pack '" << p.kernel_name() << "' names a negative parameter " << p.param();
  return ArtifactPrepack{p.param(), p.kernel_name(), from_proto(p.packed())};
}

void to_proto(const Artifact& a, proto::Artifact* out) {
  out->set_format(a.format);
  out->set_data(a.data);
  out->set_kernel_name(a.kernel_name);
  out->set_target(a.target);
  for (const ArtifactPrepack& p : a.prepacks) to_proto(p, out->add_prepacks());
}

Artifact from_proto(const proto::Artifact& a) {
  Artifact out{a.format(), a.data(), a.kernel_name(), a.target(), {}};
  for (const proto::Prepack& p : a.prepacks()) out.prepacks.push_back(from_proto(p));
  return out;
}

void to_proto(const TimingConfig& t, proto::TimingConfig* out) {
  out->set_warmup(t.warmup);
  out->set_number(t.number);
  out->set_repeat(t.repeat);
  out->set_min_repeat_ms(t.min_repeat_ms);
  out->set_flush_cache(t.flush_cache);
  out->set_timeout_ms(t.timeout_ms);
  out->set_threads(t.threads);
  out->set_seed(t.seed);
  out->set_slow_factor(t.slow_factor);
  out->set_best_known_s(t.best_known_s);
  for (int i : t.cold_args) out->add_cold_args(i);
  out->set_warmup_ms(t.warmup_ms);
  out->set_cold_sweep_bytes(t.cold_sweep_bytes);
}

TimingConfig from_proto(const proto::TimingConfig& t) {
  TimingConfig c;
  c.warmup = t.warmup();
  c.number = std::max(1, t.number());  // 0: unset
  c.repeat = t.repeat();
  c.min_repeat_ms = t.min_repeat_ms();
  c.flush_cache = t.flush_cache();
  c.timeout_ms = t.timeout_ms();
  c.threads = t.threads();
  c.seed = t.seed();
  c.slow_factor = t.slow_factor();
  c.best_known_s = t.best_known_s();
  c.cold_args.assign(t.cold_args().begin(), t.cold_args().end());
  c.warmup_ms = t.warmup_ms();
  c.cold_sweep_bytes = t.cold_sweep_bytes();
  return c;
}

proto::MeasureRequest to_proto(const MeasureBatch& b) {
  proto::MeasureRequest r;
  r.set_protocol_version(kProtocolVersion);
  to_proto(b.timing, r.mutable_timing());
  for (const ReferenceProgram& ref : b.references) {
    proto::Reference* p = r.add_references();
    p->set_id(ref.id);
    to_proto(ref.artifact, p->mutable_artifact());
    p->set_expected_output(ref.expected_output);
  }
  for (const MeasureInput& c : b.candidates) {
    proto::Candidate* p = r.add_candidates();
    p->set_id(c.id);
    to_proto(c.artifact, p->mutable_artifact());
    for (const ArgSpec& s : c.args) to_proto(s, p->add_args());
    p->set_reference_id(c.reference_id);
    p->set_tolerance(c.tolerance);
  }
  return r;
}

MeasureResult from_proto(const proto::MeasureResult& r) {
  MeasureResult m;
  m.id = r.candidate_id();
  m.error = from_proto(r.error_kind());
  m.message = r.error_message();
  m.times_s.assign(r.times_s().begin(), r.times_s().end());
  m.number = r.number();
  m.max_rel_err = r.max_rel_err();
  m.runner_ms = r.runner_ms();
  m.screened = r.screened();
  return m;
}

void to_proto(const DeviceInfo& d, proto::InfoReply* out) {
  out->set_kiln_version(d.kiln_version);
  out->set_device_key(d.device_key);
  out->set_cpu_model(d.cpu_model);
  out->set_cpu_name(d.cpu_name);
  for (const std::string& f : d.isa_features) out->add_isa_features(f);
  for (const std::string& g : d.gpus) out->add_gpus(g);
  out->set_num_cores(d.num_cores);
  for (const std::string& t : d.targets) out->add_targets(t);
}

DeviceInfo from_proto(const proto::InfoReply& r) {
  DeviceInfo d;
  d.kiln_version = r.kiln_version();
  d.device_key = r.device_key();
  d.cpu_model = r.cpu_model();
  d.cpu_name = r.cpu_name();
  d.isa_features.assign(r.isa_features().begin(), r.isa_features().end());
  d.gpus.assign(r.gpus().begin(), r.gpus().end());
  d.num_cores = r.num_cores();
  d.targets.assign(r.targets().begin(), r.targets().end());
  return d;
}

}  // namespace kiln::rpc
