package dev.locksmith.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisRoundTripTest {

  @Test
  void readsTheGetRowsP50InMicroseconds() {
    String csv =
        """
        "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms"
        "GET","7701.19","0.120","0.024","0.031","0.095"
        """;

    assertThat(RedisRoundTrip.parseP50Micros(csv).getAsDouble()).isEqualTo(31.0, within());
  }

  @Test
  void noGetRowIsNoFigure() {
    assertThat(RedisRoundTrip.parseP50Micros("Could not connect to Redis at 127.0.0.1:1"))
        .isEmpty();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
