package dev.locksmith.benchmarks.report;

import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The round trip of Redis itself on this machine: {@code redis-benchmark} with one connection
 * ({@code -c 1}) sending {@value #REQUESTS} {@code GET}s to a {@code redis-server} of its own on
 * loopback; its p50 is the floor any Redis client pays per command. A lock that waits for two
 * replies costs at least two of it.
 */
final class RedisRoundTrip {
  private static final Logger LOG = LoggerFactory.getLogger(RedisRoundTrip.class);
  static final int REQUESTS = 20_000;
  private static final long BOUND_SECONDS = 60;

  private RedisRoundTrip() {}

  /**
   * The p50 in microseconds, or empty when {@code redis-benchmark} is not on the PATH or failed.
   */
  static OptionalDouble p50Micros() {
    try (RedisServerProcess redis = TestRedis.startDedicated()) {
      Process process =
          new ProcessBuilder(
                  List.of(
                      "redis-benchmark",
                      "-h",
                      "127.0.0.1",
                      "-p",
                      Integer.toString(redis.port()),
                      "-c",
                      "1",
                      "-n",
                      Integer.toString(REQUESTS),
                      "-t",
                      "get",
                      "--csv"))
              .redirectErrorStream(true)
              .start();
      if (!process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        LOG.warn("redis-benchmark did not finish within {} s", BOUND_SECONDS);
        return OptionalDouble.empty();
      }
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      OptionalDouble p50 = parseP50Micros(output);
      LOG.info("redis-benchmark -c 1 GET p50: {} us", p50);
      return p50;
    } catch (IOException e) {
      LOG.warn("redis-benchmark did not run ({}); its round trip is not reported", e.getMessage());
      return OptionalDouble.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalDouble.empty();
    }
  }

  /**
   * The {@code p50_latency_ms} column of {@code redis-benchmark --csv}'s {@code GET} row, in
   * microseconds.
   */
  static OptionalDouble parseP50Micros(String csv) {
    List<String> lines = csv.lines().map(String::strip).toList();
    int column = -1;
    for (String line : lines) {
      List<String> cells = List.of(line.replace("\"", "").split(","));
      if (cells.contains("p50_latency_ms")) {
        column = cells.indexOf("p50_latency_ms");
      } else if (column >= 0
          && cells.size() > column
          && cells.get(0).toUpperCase(Locale.ROOT).equals("GET")) {
        return OptionalDouble.of(Double.parseDouble(cells.get(column)) * 1000);
      }
    }
    return OptionalDouble.empty();
  }
}
