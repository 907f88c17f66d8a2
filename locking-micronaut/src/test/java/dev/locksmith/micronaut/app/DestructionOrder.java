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

  /** Records, under one name, each bean of type {@code T} the context destroys. */
  abstract static class Recorder<T> implements BeanPreDestroyEventListener<T> {
    private final DestructionOrder order;
    private final String name;

    Recorder(DestructionOrder order, String name) {
      this.order = order;
      this.name = name;
    }

    @Override
    public T onPreDestroy(BeanPreDestroyEvent<T> event) {
      order.destroyed.add(name);
      return event.getBean();
    }
  }

  /** Records the engine. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfEngine extends Recorder<Locksmith> {
    OfEngine(DestructionOrder order) {
      super(order, "Locksmith");
    }
  }

  /** Records provider beans. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfProviders extends Recorder<LockProvider> {
    OfProviders(DestructionOrder order) {
      super(order, "LockProvider");
    }
  }

  /** Records the application's client. */
  @Singleton
  @Requires(env = "destruction-order")
  static final class OfClient extends Recorder<RedissonClient> {
    OfClient(DestructionOrder order) {
      super(order, "RedissonClient");
    }
  }
}
