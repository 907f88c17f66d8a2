package dev.locksmith.micronaut.app;

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
 * pre-destroy), for {@link CuratorProviderTest}.
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

  /** Records when the context destroys the application's client, and whether it was started. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfCurator extends DestructionOrder.Recorder<CuratorFramework> {
    OfCurator(DestructionOrder order) {
      super(order, "CuratorFramework");
    }
  }
}
