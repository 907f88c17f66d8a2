package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real child JVMs contending for one lock, or making transfers over two keys at once, through the
 * shared test Redis.
 */
class RedisMultiProcessTest {
  @TempDir Path work;

  @Test
  void fourJvmsNeverOverlapAndSeeIncreasingTokens() throws Exception {
    MultiProcessHarness.Result result =
        MultiProcessHarness.run(RedisTests.sharedUrl(), 4, 25, work);
    assertThat(result.violations()).isEmpty();
    assertThat(result.counter()).isEqualTo(100);
  }

  @Test
  void transfersOverTwoKeysInFourJvmsNeverDeadlockOrOverlap() throws Exception {
    TransferHarness.Result result =
        TransferHarness.run(RedisTests.sharedUrl(), work.resolve("transfers"));
    System.out.println("redis: " + result.figures());
    assertThat(result.violations()).isEmpty();
    assertThat(result.transfers()).isEqualTo(120);
  }
}
