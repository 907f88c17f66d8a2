package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * The application's {@link CuratorFramework} (started on {@code test.zk}, closed by its own bean's
 * pre-destroy), a meter registry and a locked job, for {@link CuratorProviderTest}.
 */
@Factory
@Requires(env = "curator")
class CuratorBeans {

  @Singleton
  @Bean(preDestroy = "close")
  CuratorFramework curatorFramework(@Value("${test.zk}") String connect) {
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(2_000)
            .retryPolicy(new RetryOneTime(100))
            .build();
    client.start();
    return client;
  }

  @Singleton
  SimpleMeterRegistry simpleMeterRegistry() {
    return new SimpleMeterRegistry();
  }

  /** A job locked on the default provider. */
  @Singleton
  @Requires(env = "curator")
  static class CuratorJob {
    @DistributedLock(name = "zk-job", key = "#day", onBusy = OnBusy.FAIL)
    long run(String day, Gate gate) {
      gate.pass();
      return Locks.current().fencingToken();
    }
  }

  /** Records when the context destroys the application's client, and whether it was started. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfCurator extends DestructionOrder.Recorder<CuratorFramework> {
    OfCurator(DestructionOrder order) {
      super(order, "CuratorFramework");
    }
  }
}
