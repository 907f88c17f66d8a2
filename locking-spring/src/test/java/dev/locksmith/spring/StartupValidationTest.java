package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import dev.locksmith.spring.other.OtherPackageJob;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mockito.Mockito;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;

/** Each mistake in a {@code @DistributedLock} stops the context, naming bean, method, attribute. */
class StartupValidationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withPropertyValues("locksmith.url=mem:validation");

  /** One mistake: the bean that makes it and what the failure must say. */
  static Stream<Arguments> mistakes() {
    return Stream.of(
        mistake("bad key expression", BadKey.class, "badKey", "attribute key"),
        mistake("bad duration", BadTtl.class, "badTtl", "attribute ttl", "ten seconds"),
        mistake(
            "unknown provider",
            UnknownProvider.class,
            "unknownProvider",
            "attribute provider",
            "'nope'"),
        mistake(
            "unresolvable placeholder",
            MissingPlaceholder.class,
            "missingPlaceholder",
            "attribute name",
            "no.such.name"),
        mistake(
            "SKIP on a primitive", SkipOnPrimitive.class, "skipOnPrimitive", "attribute onBusy"),
        mistake(
            "a lazy result the proxy cannot hold",
            LazyPublisher.class,
            "lazyPublisher",
            "returns a reactive SubmissionPublisher"),
        mistake(
            "final method that a proxy cannot intercept",
            FinalMethod.class,
            "finalMethod",
            "would run without a lock",
            "final"),
        // Spring calls these on the bean itself, not through the proxy: they ran unlocked.
        mistake(
            "@PostConstruct method",
            LockedPostConstruct.class,
            "lockedPostConstruct",
            "would run without a lock",
            "init or destroy callback"),
        mistake(
            "@PreDestroy method",
            LockedPreDestroy.class,
            "lockedPreDestroy",
            "would run without a lock",
            "init or destroy callback"));
  }

  @Test
  void lockedInitAndDestroyCallbacksNamedOtherwiseStopTheContext() {
    runner
        .withBean("initialized", LockedAfterPropertiesSet.class)
        .run(
            context ->
                assertStartupFailure(context)
                    .contains(
                        LockedAfterPropertiesSet.class.getName() + ".afterPropertiesSet()",
                        "init or destroy callback"));
    runner
        .withBean(
            "withInitMethod",
            GoodJob.class,
            GoodJob::new,
            definition -> definition.setInitMethodName("run"))
        .run(
            context ->
                assertStartupFailure(context)
                    .contains("Bean 'withInitMethod'", "init or destroy callback"));
  }

  @Test
  void aLockedPostConstructIsRefusedBeforeSpringRunsIt() {
    PostConstructRuns.count.set(0);
    runner
        .withBean("countingPostConstruct", PostConstructRuns.class)
        .run(
            context -> {
              assertStartupFailure(context).contains("init or destroy callback");
              // It used to run once, unlocked, on every node before the context failed.
              assertThat(PostConstructRuns.count).hasValue(0);
            });
  }

  /** Counts the runs of its locked {@code @PostConstruct}. */
  public static class PostConstructRuns {
    static final AtomicInteger count = new AtomicInteger();

    @jakarta.annotation.PostConstruct
    @DistributedLock
    public void run() {
      count.incrementAndGet();
    }
  }

  private static Arguments mistake(
      String what, Class<?> beanType, String beanName, String... fragments) {
    return Arguments.of(what, beanType, beanName, fragments);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mistakes")
  void eachMistakeStopsTheContextNamingBeanMethodAndAttribute(
      String what, Class<?> beanType, String beanName, String[] fragments) {
    runner
        .withBean(beanName, beanType)
        .run(
            context ->
                assertStartupFailure(context)
                    .contains("Bean '" + beanName + "'", beanType.getName() + ".run(")
                    .contains(fragments));
  }

  @Test
  void aRedissonPrefixTheProviderRefusesNamesTheProperty() {
    // Lazy: the client connects on its first command, and none is sent before the refusal.
    Config config = new Config().setLazyInitialization(true);
    config.useSingleServer().setAddress("redis://127.0.0.1:1");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
        .withBean(
            RedissonClient.class,
            () -> Redisson.create(config),
            definition -> definition.setDestroyMethodName("shutdown"))
        .withPropertyValues("locksmith.redisson.prefix={app}")
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable cause = context.getStartupFailure();
              while (!(cause instanceof LockConfigurationException) && cause.getCause() != null) {
                cause = cause.getCause();
              }
              assertThat(cause).isInstanceOf(LockConfigurationException.class);
              assertThat(cause.getMessage()).startsWith("locksmith.redisson.prefix: ");
            });
  }

  /** The message of the context's start-up failure, which must be a configuration error. */
  private static AbstractStringAssert<?> assertStartupFailure(
      AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    // Refused at start-up, or while Spring creates the bean (then wrapped in its exception).
    Throwable failure = context.getStartupFailure();
    while (!(failure instanceof LockConfigurationException) && failure.getCause() != null) {
      failure = failure.getCause();
    }
    assertThat(failure).isInstanceOf(LockConfigurationException.class);
    return assertThat(failure.getMessage());
  }

  @Test
  void goodBeansStart() {
    runner.withBean("good", Good.class).run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aLockedBeanCreatedBeforeTheProxyCreatorStopsTheContext() {
    runner
        .withUserConfiguration(JobsBesideAFactoryPostProcessor.class)
        .run(
            context ->
                assertStartupFailure(context)
                    .contains(
                        "Bean '",
                        JobsBesideAFactoryPostProcessor.class.getName() + ".sweep(",
                        "would run without a lock",
                        "make that @Bean method static"));
  }

  @Test
  void aLockedInstanceRegisteredAsItIsStopsTheContext() {
    runner
        .withInitializer(
            context -> context.getBeanFactory().registerSingleton("readyMade", new Good()))
        .run(
            context ->
                assertStartupFailure(context)
                    .contains(
                        "Bean 'readyMade'",
                        Good.class.getName() + ".run(",
                        "would run without a lock",
                        "registered as it is (registerSingleton)",
                        "@Bean"));
  }

  @Test
  void aTestDoubleRegisteredAsItIsIsLeftAlone() {
    // Mockito's default mock maker mocks the class itself, without a subclass.
    runner
        .withBean("good", Good.class)
        .withInitializer(
            context -> {
              context.getBeanFactory().registerSingleton("subclass", new Good() {});
              context.getBeanFactory().registerSingleton("mock", Mockito.mock(Good.class));
              context.getBeanFactory().registerSingleton("spy", Mockito.spy(new Good()));
            })
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void theSameJobsBesideAStaticFactoryPostProcessorAreLocked() {
    runner
        .withUserConfiguration(JobsBesideAStaticFactoryPostProcessor.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Object jobs = context.getBean(JobsBesideAStaticFactoryPostProcessor.class);
              assertThat(jobs).isInstanceOf(Advised.class);
              assertThat(((Advised) jobs).getAdvisors())
                  .hasAtLeastOneElementOfType(LockAdvisor.class);
            });
  }

  @Test
  void aPackagePrivateLockedMethodInheritedFromAnotherPackageStopsTheContext() {
    // The proxy, a subclass in this package, cannot override it: its package's callers ran it
    // unlocked.
    runner
        .withBean("inherited", InheritsFromAnotherPackage.class)
        .run(
            context ->
                assertStartupFailure(context)
                    .contains(
                        "Bean 'inherited'",
                        OtherPackageJob.class.getName() + ".run()",
                        "would run without a lock",
                        "package-private in " + OtherPackageJob.class.getName()));
  }

  /** In this package; its locked method is inherited from another. */
  public static class InheritsFromAnotherPackage extends OtherPackageJob {}

  @Test
  void aLazyOrPrototypeBeanOfAClassUnknownAtStartUpIsCheckedWhenItIsMade() {
    runner
        .withUserConfiguration(JobsMadeLater.class)
        .run(
            context -> {
              // Their @Bean methods return an interface: the class is known once they are made.
              assertThat(context).hasNotFailed();
              assertRefusedWhenMade(
                  context,
                  "lazyFinal",
                  FinalMethodJob.class.getName() + ".run(",
                  "would run without a lock");
              assertRefusedWhenMade(context, "prototypeBadTtl", "attribute ttl");
              assertRefusedWhenMade(
                  context,
                  "lazyPostConstruct",
                  PostConstructJob.class.getName() + ".run(",
                  "init or destroy callback");
              assertThat(context.getBean("lazyGood")).isInstanceOf(Advised.class);
            });
  }

  private static void assertRefusedWhenMade(
      AssertableApplicationContext context, String bean, String... fragments) {
    assertThatThrownBy(() -> context.getBean(bean))
        .isInstanceOf(BeanCreationException.class)
        .cause()
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Bean '" + bean + "'")
        .message()
        .contains(fragments);
  }

  /** Beans made after start-up, whose {@code @Bean} methods declare only an interface. */
  @Configuration(proxyBeanMethods = false)
  public static class JobsMadeLater {
    @Bean
    @Lazy
    Runnable lazyFinal() {
      return new FinalMethodJob();
    }

    @Bean
    @Scope("prototype")
    Runnable prototypeBadTtl() {
      return new BadTtlJob();
    }

    @Bean
    @Lazy
    Runnable lazyPostConstruct() {
      return new PostConstructJob();
    }

    @Bean
    @Lazy
    Runnable lazyGood() {
      return new GoodJob();
    }
  }

  /** A final method, which a proxy cannot intercept. */
  public static class FinalMethodJob implements Runnable {
    @DistributedLock
    @Override
    public final void run() {}
  }

  /** A locked {@code @PostConstruct}, which Spring calls on the bean itself. */
  public static class PostConstructJob implements Runnable {
    @jakarta.annotation.PostConstruct
    @DistributedLock
    @Override
    public void run() {}
  }

  /** An invalid duration. */
  public static class BadTtlJob implements Runnable {
    @DistributedLock(ttl = "ten seconds")
    @Override
    public void run() {}
  }

  /** Valid. */
  public static class GoodJob implements Runnable {
    @DistributedLock
    @Override
    public void run() {}
  }

  /**
   * Locked jobs in a configuration class that also declares a factory post-processor through an
   * instance method: Spring creates the class to call that method, before any bean post-processor
   * exists, so no proxy is ever put around it (Spring only logs that it is "not eligible").
   */
  @Configuration(proxyBeanMethods = false)
  public static class JobsBesideAFactoryPostProcessor {
    @DistributedLock(onBusy = OnBusy.FAIL)
    public void sweep() {}

    @Bean
    BeanFactoryPostProcessor nothingToChange() {
      return factory -> {};
    }
  }

  /** The same, with the post-processor's {@code @Bean} method static, as Spring advises. */
  @Configuration(proxyBeanMethods = false)
  public static class JobsBesideAStaticFactoryPostProcessor {
    @DistributedLock(onBusy = OnBusy.FAIL)
    public void sweep() {}

    @Bean
    static BeanFactoryPostProcessor nothingToChange() {
      return factory -> {};
    }
  }

  /** Invalid SpEL. */
  public static class LockedPostConstruct {
    @jakarta.annotation.PostConstruct
    @DistributedLock
    public void run() {}
  }

  public static class LockedPreDestroy {
    @jakarta.annotation.PreDestroy
    @DistributedLock
    public void run() {}
  }

  public static class LockedAfterPropertiesSet
      implements org.springframework.beans.factory.InitializingBean {
    @DistributedLock
    @Override
    public void afterPropertiesSet() {}
  }

  public static class FinalMethod {
    @dev.locksmith.annotation.DistributedLock
    public final void run() {}
  }

  public static class BadKey {
    @DistributedLock(key = "#id +")
    public void run(String id) {}
  }

  /** Invalid duration. */
  public static class BadTtl {
    @DistributedLock(ttl = "ten seconds")
    public void run() {}
  }

  /** Provider name not configured. */
  public static class UnknownProvider {
    @DistributedLock(provider = "nope")
    public void run() {}
  }

  /** Placeholder without a value. */
  public static class MissingPlaceholder {
    @DistributedLock(name = "${no.such.name}")
    public void run() {}
  }

  /** SKIP has nothing to return for an int. */
  public static class SkipOnPrimitive {
    @DistributedLock(onBusy = OnBusy.SKIP)
    public int run() {
      return 1;
    }
  }

  /** A JDK publisher, whose work runs when it is subscribed to, after the call returned. */
  public static class LazyPublisher {
    @DistributedLock
    public java.util.concurrent.SubmissionPublisher<String> run() {
      return new java.util.concurrent.SubmissionPublisher<>();
    }
  }

  /** Valid. */
  public static class Good {
    @DistributedLock(key = "#id", ttl = "5s")
    public void run(String id) {}
  }
}
