package dev.locksmith.micronaut.app;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanPreDestroyEvent;
import io.micronaut.context.event.BeanPreDestroyEventListener;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.redisson.api.RedissonClient;

/** Records the order in which the context destroys the engine, providers and Redisson client. */
@Singleton
@Requires(env = "destruction-order")
class DestructionOrder {
  final List<String> destroyed = new CopyOnWriteArrayList<>();

  /** Records the engine. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfEngine implements BeanPreDestroyEventListener<Locksmith> {
    private final DestructionOrder order;

    OfEngine(DestructionOrder order) {
      this.order = order;
    }

    @Override
    public Locksmith onPreDestroy(BeanPreDestroyEvent<Locksmith> event) {
      order.destroyed.add("Locksmith");
      return event.getBean();
    }
  }

  /** Records provider beans. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfProviders implements BeanPreDestroyEventListener<LockProvider> {
    private final DestructionOrder order;

    OfProviders(DestructionOrder order) {
      this.order = order;
    }

    @Override
    public LockProvider onPreDestroy(BeanPreDestroyEvent<LockProvider> event) {
      order.destroyed.add("LockProvider");
      return event.getBean();
    }
  }

  /** Records the application's client, noting whether the engine was already closed. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfClient implements BeanPreDestroyEventListener<RedissonClient> {
    private final DestructionOrder order;

    OfClient(DestructionOrder order) {
      this.order = order;
    }

    @Override
    public RedissonClient onPreDestroy(BeanPreDestroyEvent<RedissonClient> event) {
      order.destroyed.add("RedissonClient");
      return event.getBean();
    }
  }
}
