// JSON forms of the model specs (see model_specs_json.hpp).
#include "cells/model_specs_json.hpp"

namespace allocstress {

void to_json(nlohmann::json& j, const CrossThreadSpec& s) {
  j = {{"remote_share", s.remote_share}, {"queue_capacity", s.queue_capacity}, {"rounds", s.rounds}};
}
void from_json(const nlohmann::json& j, CrossThreadSpec& s) {
  s.remote_share = j.at("remote_share").get<double>();
  s.queue_capacity = j.at("queue_capacity").get<std::uint64_t>();
  s.rounds = j.at("rounds").get<std::uint64_t>();
}

void to_json(nlohmann::json& j, const LifetimeModelSpec& s) {
  j = {{"lifetime", std::string(to_string(s.shape))}, {"live_bytes", s.live_bytes}};
}
void from_json(const nlohmann::json& j, LifetimeModelSpec& s) {
  s.shape = parse_lifetime_shape(j.at("lifetime").get<std::string>());
  s.live_bytes = j.at("live_bytes").get<std::uint64_t>();
}

void to_json(nlohmann::json& j, const PhaseSpec& s) {
  j = {{"live_bytes", s.live_bytes},
       {"drop_share", s.drop_share},
       {"peaks", s.peaks},
       {"pause_ms", s.pause_ms},
       {"drop_order", std::string(to_string(s.drop_order))}};
}
void from_json(const nlohmann::json& j, PhaseSpec& s) {
  s.live_bytes = j.at("live_bytes").get<std::uint64_t>();
  s.drop_share = j.at("drop_share").get<double>();
  s.peaks = j.at("peaks").get<unsigned>();
  s.pause_ms = j.at("pause_ms").get<std::uint64_t>();
  s.drop_order = parse_phase_drop_order(j.at("drop_order").get<std::string>());
}

void to_json(nlohmann::json& j, const FalseSharingSpec& s) {
  j = {{"object_size", s.object_size}, {"objects", s.objects}, {"writes", s.writes}, {"rounds", s.rounds}};
}
void from_json(const nlohmann::json& j, FalseSharingSpec& s) {
  s.object_size = j.at("object_size").get<std::uint64_t>();
  s.objects = j.at("objects").get<std::uint64_t>();
  s.writes = j.at("writes").get<std::uint64_t>();
  s.rounds = j.at("rounds").get<std::uint64_t>();
}

}  // namespace allocstress
