package dev.locksmith.consumers.plain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.consumers.Settlement;
import dev.locksmith.consumers.SettlementSmoke;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
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
        assertThat(AspectLocksmith.validate(Settlement.class)).isEqualTo(1);
        SettlementSmoke.theSecondConcurrentCallIsSkipped(new Settlement());
      } finally {
        AspectLocksmith.reset(engine);
        engine.close();
      }
    }
  }
}
