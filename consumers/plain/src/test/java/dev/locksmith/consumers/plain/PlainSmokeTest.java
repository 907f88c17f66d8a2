package dev.locksmith.consumers.plain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A woven method over a TCP lock server started in this JVM: the concurrent call is skipped. */
class PlainSmokeTest {

  @Test
  void theSecondConcurrentCallIsSkipped() throws Exception {
    try (LockServer server = LockServer.builder().bind("127.0.0.1").port(0).build()) {
      int port = server.start();
      Locksmith engine =
          Locksmith.builder()
              .defaultProvider(LockProviders.create("tcp://127.0.0.1:" + port))
              .build();
      AspectLocksmith.use(engine);
      try {
        Settlement settlement = new Settlement();
        assertThat(AspectLocksmith.validate(Settlement.class)).isEqualTo(1);
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
      } finally {
        AspectLocksmith.reset(engine);
        engine.close();
      }
    }
  }
}
