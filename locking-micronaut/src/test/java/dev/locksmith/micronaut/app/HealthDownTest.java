package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The health indicator turns DOWN once a locked call finds the lock server gone, and UP again when
 * a server answers on the same port.
 */
class HealthDownTest {

  @Test
  void healthIsDownWhileTheProviderCannotBeReachedAndUpWhenItIsBack() throws Exception {
    LockServer server = LockServer.builder().port(LoopbackPorts.free()).build();
    int port = server.start();
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", "tcp://127.0.0.1:" + port), "none")) {
      Locksmith locksmith = context.getBean(Locksmith.class);
      assertThat(HealthChecks.locksmith(context).getStatus()).isEqualTo(HealthStatus.UP);

      server.close();
      server.awaitTermination();
      assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("health")))
          .isInstanceOf(LockProviderException.class);

      assertThat(HealthChecks.assertDefaultDown(context)).containsKey("since");

      server = LockServer.builder().port(port).build();
      server.start();
      HealthChecks.awaitUp(context);
    } finally {
      server.close();
    }
  }
}
