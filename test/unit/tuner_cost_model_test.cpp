// The evolutionary search's cost model: trained on measurements, it ranks
// programs it has not seen by their speed.
#include <catch2/catch.hpp>
#include <random>

#include "tuner/cost_model.h"

using namespace tirc;

TEST_CASE("the cost model ranks unseen programs by speed", "[tuner][cost_model]") {
  CostModel model;
  CHECK(!model.trained());
  CHECK(model.predict({{1, 2, 3}}) == std::vector<double>{0});
  // Latency grows with feature 0 and does not depend on feature 1 (noise).
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0, 1);
  for (int i = 0; i < 200; ++i) {
    float x = u(rng), noise = u(rng);
    model.add({x, noise}, 1e-3 * (1 + 4 * x));
  }
  model.add({0.5f, 0.5f}, 0);         // not a latency: ignored
  model.add({0.5f, 0.5f}, INFINITY);  // neither
  CHECK(model.size() == 200);
  model.train();
  CHECK(model.trained());
  std::vector<double> p = model.predict({{0.05f, 0.3f}, {0.5f, 0.9f}, {0.95f, 0.1f}});
  REQUIRE(p.size() == 3);
  CHECK(p[0] > p[1]);
  CHECK(p[1] > p[2]);
  // Feature vectors of different lengths are refused with a message.
  CHECK_THROWS_WITH(model.predict({{1, 2}, {1}}), Catch::Contains("different lengths"));
}
