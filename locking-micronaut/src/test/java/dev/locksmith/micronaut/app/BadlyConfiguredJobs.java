package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.micronaut.app.other.OtherPackageJob;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

/** One mistake per environment, for {@link BadConfigurationTest}. */
final class BadlyConfiguredJobs {
  private BadlyConfiguredJobs() {}

  @Singleton
  @Requires(env = "bad-key")
  static class UnknownParameter {
    @DistributedLock(key = "#acount")
    void transfer(String account) {}
  }

  @Singleton
  @Requires(env = "bad-ttl")
  static class BadTtl {
    @DistributedLock(ttl = "soon")
    void run() {}
  }

  /** Sees the engine that the failed start-up made. */
  @Singleton
  @Requires(env = {"bad-ttl", "factory-interface"})
  static class EngineWatcher implements LockListener {
    static final AtomicReference<Locksmith> ENGINE = new AtomicReference<>();

    @Override
    public void attached(Locksmith engine) {
      ENGINE.set(engine);
    }
  }

  /** A default method with a ttl that is not a duration. */
  interface BadTtlDefault {
    @DistributedLock(name = "bad-default", ttl = "soon")
    default void nightly() {}
  }

  @Singleton
  @Requires(env = "bad-default")
  static class InheritsBadTtl implements BadTtlDefault {}

  @Singleton
  @Requires(env = "bad-provider")
  static class UnknownProvider {
    @DistributedLock(provider = "nowhere")
    void run() {}
  }

  @Singleton
  @Requires(env = "bad-skip")
  static class SkipWithPrimitive {
    @DistributedLock(onBusy = OnBusy.SKIP)
    int count() {
      return 1;
    }
  }

  @Singleton
  @Requires(env = "bad-future")
  static class PlainFuture {
    @DistributedLock
    Future<String> later() {
      throw new UnsupportedOperationException();
    }
  }

  @Singleton
  @Requires(env = "bad-flow-publisher")
  static class FlowPublisher {
    @DistributedLock
    Flow.Publisher<String> feed() {
      throw new UnsupportedOperationException();
    }
  }

  interface Billing {
    @DistributedLock(name = "billing")
    void charge();
  }

  @Singleton
  @Requires(env = "bad-interface")
  static class AnnotatedOnTheInterface implements Billing {
    @Override
    public void charge() {}
  }

  /** Knows nothing of {@link Billing}, whose method its own implements for a subclass. */
  static class PlainBilling {
    public void charge() {}
  }

  @Singleton
  @Requires(env = "bad-inherited-body")
  static class BillsWithAnInheritedBody extends PlainBilling implements Billing {}

  interface Handler<T> {
    @DistributedLock(name = "handler")
    void handle(T item);
  }

  @Singleton
  @Requires(env = "bad-generic-interface")
  static class AnnotatedOnTheGenericInterface implements Handler<String> {
    @Override
    public void handle(String item) {}
  }

  @Singleton
  @Requires(env = "no-provider")
  static class NeedsDefault {
    @DistributedLock
    void run() {}
  }

  /** Its proxy, in this package, cannot override the inherited package-private method. */
  @Singleton
  @Requires(env = "bad-package-private")
  static class InheritsFromAnotherPackage extends OtherPackageJob {}

  @Singleton
  @Requires(env = "bad-static")
  static class StaticMethod {
    @DistributedLock
    static void run() {}

    void start() {
      run();
    }
  }

  /** Intercepted as a bean of its own, and made once more, unadvised, by {@link SweeperFactory}. */
  @Singleton
  @Requires(env = "factory-made")
  static class Sweeper {
    @DistributedLock
    void sweep() {}
  }

  @Factory
  @Requires(env = "factory-made")
  static class SweeperFactory {
    @Singleton
    @Named("nightly")
    Sweeper nightlySweeper() {
      return new Sweeper();
    }
  }

  /** What a factory declares to return: the locked method is the implementation's. */
  interface Sweeps {
    void sweep();
  }

  /** Not a bean of its own: made by {@link SweepsFactory} only. */
  static class SweepsImpl implements Sweeps {
    @DistributedLock
    @Override
    public void sweep() {}
  }

  @Factory
  @Requires(env = "factory-interface")
  static class SweepsFactory {
    /** Made once the engine is, as a bean that needs it would be. */
    @Context
    Sweeps sweeps(Locksmith engine) {
      return new SweepsImpl();
    }
  }

  @Factory
  @Requires(env = "provider-bean")
  static class ProviderBean {
    @Singleton
    LockProvider memory() {
      return dev.locksmith.core.LockProviders.create("mem:bean");
    }
  }
}
