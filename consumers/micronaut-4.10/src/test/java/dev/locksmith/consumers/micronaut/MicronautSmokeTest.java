package dev.locksmith.consumers.micronaut;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Micronaut integration over {@code mem:}: the concurrent call is skipped. */
@MicronautTest
@Property(name = "locksmith.url", value = "mem:consumer")
class MicronautSmokeTest {
  @Inject Settlement settlement;

  @Test
  void theSecondConcurrentCallIsSkipped() throws Exception {
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
    assertTrue(settlement.awaitEntered());
    try {
      assertNull(settlement.settle("acc-7"), "skipped while held");
    } finally {
      settlement.release();
    }
    assertEquals("settled acc-7", first.get(10, TimeUnit.SECONDS));
  }
}
