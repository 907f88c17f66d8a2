package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real child JVMs contending for one lock through the shared test Redis. */
class RedisMultiProcessTest {
  @TempDir Path work;

  @Test
  void fourJvmsNeverOverlapAndSeeIncreasingTokens() throws Exception {
    MultiProcessHarness.Result result =
        MultiProcessHarness.run(RedisTests.sharedUrl(), 4, 25, work);
    assertThat(result.violations()).isEmpty();
    assertThat(result.counter()).isEqualTo(100);
  }
}
