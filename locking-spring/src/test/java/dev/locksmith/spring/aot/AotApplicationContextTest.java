package dev.locksmith.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.spring.EnableDistributedLocking;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.DecoratingProxy;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

/**
 * Processes an application ahead of time as Spring Boot's AOT plugins do, compiles the generated
 * code, and runs the application from it: the context starts without configuration-class parsing,
 * the advisor proxies the bean, a SpEL key reads a parameter by name, and a second concurrent call
 * is skipped while the first holds the {@code mem:} lock.
 */
@CompileWithForkedClassLoader
class AotApplicationContextTest {
  private static final String URL = "mem:aot-context";

  @Test
  void anAnnotatedMethodLocksInAContextStartedFromGeneratedCode() {
    startFromGeneratedCode(
        App.class,
        generation ->
            assertThat(
                    RuntimeHintsPredicates.proxies()
                        .forInterfaces(
                            Transfers.class,
                            SpringProxy.class,
                            Advised.class,
                            DecoratingProxy.class))
                .accepts(generation.getRuntimeHints()),
        AotApplicationContextTest::runConcurrentCalls);
  }

  @Test
  void aClassProxyIsGeneratedAheadOfTime() {
    startFromGeneratedCode(
        ClassProxyApp.class,
        generation -> {
          assertThat(generation.getGeneratedFiles().getGeneratedFiles(GeneratedFiles.Kind.CLASS))
              .as("the CGLIB subclass of the locked bean, written at build time")
              .anySatisfy(
                  (path, content) ->
                      assertThat(path)
                          .contains(Reports.class.getName().replace('.', '/') + "$$SpringCGLIB$$"));
          assertThat(
                  RuntimeHintsPredicates.reflection()
                      .onMethodInvocation(
                          ReflectionUtils.findMethod(Reports.class, "run", String.class)))
              .accepts(generation.getRuntimeHints());
        },
        context -> {
          Reports reports = context.getBean(Reports.class);
          assertThat(AopUtils.isCglibProxy(reports)).isTrue();
          assertThat(reports.run("2026-12-01")).isEqualTo("report:2026-12-01");
        });
  }

  /**
   * Processes {@code app} ahead of time, lets {@code generated} check what the processing wrote,
   * compiles it, and calls {@code started} with a context refreshed from the generated initializer
   * (no configuration-class parsing).
   */
  private static void startFromGeneratedCode(
      Class<?> app,
      Consumer<TestGenerationContext> generated,
      Consumer<GenericApplicationContext> started) {
    AnnotationConfigApplicationContext source = new AnnotationConfigApplicationContext();
    withLocksmithUrl(source);
    source.register(app);
    TestGenerationContext generation = new TestGenerationContext();
    ClassName initializerName =
        new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
    generation.writeGeneratedContent();
    generated.accept(generation);

    TestCompiler.forSystem()
        .with(generation)
        .compile(
            compiled -> {
              @SuppressWarnings("unchecked")
              ApplicationContextInitializer<GenericApplicationContext> initializer =
                  compiled.getInstance(
                      ApplicationContextInitializer.class, initializerName.reflectionName());
              try (GenericApplicationContext context = new GenericApplicationContext()) {
                withLocksmithUrl(context);
                initializer.initialize(context);
                context.refresh();
                started.accept(context);
              }
            });
  }

  private static void runConcurrentCalls(GenericApplicationContext context) {
    Transfers transfers = context.getBean(Transfers.class);
    assertThat(AopUtils.isJdkDynamicProxy(transfers)).isTrue();
    TransferService service =
        (TransferService) Objects.requireNonNull(AopProxyUtils.getSingletonTarget(transfers));
    CompletableFuture<@Nullable String> first =
        CompletableFuture.supplyAsync(() -> transfers.transfer("acc-42"));
    try {
      assertThat(service.entered.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(service.heldLockId.get()).isEqualTo("transfer:acc-42");
      assertThat(
              context
                  .getBean(Locksmith.class)
                  .providers()
                  .get("")
                  .status("transfer:acc-42")
                  .currentHolder())
          .isPresent();

      assertThat(transfers.transfer("acc-42")).as("the concurrent call is skipped").isNull();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } finally {
      service.release.countDown();
    }
    assertThat(first.orTimeout(10, TimeUnit.SECONDS).join()).isEqualTo("done acc-42");
    assertThat(service.calls).hasValue(1);
  }

  private static void withLocksmithUrl(GenericApplicationContext context) {
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("test", Map.of("locksmith.url", URL)));
  }

  /** The application: {@code @EnableDistributedLocking} and one locked bean. */
  @Configuration(proxyBeanMethods = false)
  @EnableDistributedLocking
  static class App {
    @Bean
    TransferService transfers() {
      return new TransferService();
    }
  }

  /** An application whose proxies subclass the bean class, as Spring Boot's are by default. */
  @Configuration(proxyBeanMethods = false)
  @EnableDistributedLocking(proxyTargetClass = true)
  static class ClassProxyApp {
    @Bean
    Reports reports() {
      return new Reports();
    }
  }

  /** A locked bean without interfaces; returns the lock id it held. */
  static class Reports {
    @DistributedLock(name = "report", key = "#day")
    public String run(String day) {
      return Locks.current().lockId();
    }
  }

  /** The interface the lock proxy implements. */
  public interface Transfers {
    /** Moves money out of an account; {@code null} when skipped. */
    @Nullable String transfer(String accountId);
  }

  /** Holds the lock until the test lets it go. */
  static final class TransferService implements Transfers {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicReference<@Nullable String> heldLockId = new AtomicReference<>();
    final AtomicInteger calls = new AtomicInteger();

    @Override
    @DistributedLock(name = "transfer", key = "#accountId", onBusy = OnBusy.SKIP)
    public @Nullable String transfer(String accountId) {
      calls.incrementAndGet();
      heldLockId.set(Locks.current().lockId());
      entered.countDown();
      try {
        if (!release.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("The test did not release the call");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return "done " + accountId;
    }
  }
}
