package dev.locksmith.consumers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The smoke check every consumer project runs on its {@link Settlement}, however it wired it. */
public final class SettlementSmoke {
  private SettlementSmoke() {}

  /**
   * Calls {@code settle("acc-7")} twice at once: the first call holds the lock until released, the
   * second returns {@code null} (skipped) meanwhile; then the first returns its result.
   *
   * @param settlement the bean, as the application sees it (the proxy, where there is one)
   * @throws Exception when the first call fails or is not done within 10 s
   */
  public static void theSecondConcurrentCallIsSkipped(Settlement settlement) throws Exception {
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
