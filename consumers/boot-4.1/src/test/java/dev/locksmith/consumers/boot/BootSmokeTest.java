package dev.locksmith.consumers.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Locksmith;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The starter's auto-configuration over {@code mem:}: the concurrent call is skipped. */
@SpringBootTest(properties = "locksmith.url=mem:consumer")
class BootSmokeTest {
  @Autowired Settlement settlement;
  @Autowired Locksmith locksmith;

  @Test
  void theSecondConcurrentCallIsSkipped() throws Exception {
    assertThat(locksmith.providers()).containsKey("");
    CompletableFuture<String> first =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return settlement.settle("acc-7");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            });
    assertThat(settlement.awaitEntered()).isTrue();
    try {
      assertThat(settlement.settle("acc-7")).as("skipped while held").isNull();
    } finally {
      settlement.release();
    }
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("settled acc-7");
  }
}
