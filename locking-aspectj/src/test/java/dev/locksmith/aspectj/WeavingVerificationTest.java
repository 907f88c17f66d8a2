package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.processing.LockedMethodIndexer;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every method listed in a {@code META-INF/locksmith/locked-methods} index must be intercepted:
 * {@code use(...)}, the engine's creation from settings at the first locked call and {@code
 * verifyWeaving()} refuse to go on otherwise. The failing classes here are compiled by plain javac
 * (with the index processor) into a temporary directory and seen through the context class loader.
 */
class WeavingVerificationTest {
  private static final String UNWOVEN =
      """
      package fixture;

      import dev.locksmith.annotation.DistributedLock;

      public class Unwoven {
        @DistributedLock(name = "unwoven")
        public void run(String tenant) {}

        @DistributedLock(name = "unwoven.tick")
        public static void tick() {}
      }
      """;

  private static final String API =
      """
      package fixture;

      import dev.locksmith.annotation.DistributedLock;

      public interface Api {
        @DistributedLock(name = "pay")
        void pay(long cents);
      }
      """;

  private static final String PAYMENTS =
      """
      package fixture;

      public class Payments implements Api {
        @Override
        public void pay(long cents) {}
      }
      """;

  private static final String BASE =
      """
      package fixture;

      import dev.locksmith.annotation.DistributedLock;

      public class Base {
        @DistributedLock(name = "base")
        public void run() {}
      }
      """;

  private static final String SUB =
      """
      package fixture;

      public class Sub extends Base {
        @Override
        public void run() {}
      }
      """;

  private static final String DEEP =
      """
      package fixture;

      import dev.locksmith.annotation.DistributedLock;
      import java.lang.annotation.ElementType;
      import java.lang.annotation.Retention;
      import java.lang.annotation.RetentionPolicy;
      import java.lang.annotation.Target;

      public class Deep {
        @Retention(RetentionPolicy.RUNTIME)
        @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
        @DistributedLock(name = "deep")
        @interface Level1 {}

        @Retention(RetentionPolicy.RUNTIME)
        @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
        @Level1
        @interface Level2 {}

        @Retention(RetentionPolicy.RUNTIME)
        @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
        @Level2
        @interface Level3 {}

        @Level3
        public void job() {}
      }
      """;

  @TempDir Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    AspectLocksmith.reset();
    System.clearProperty("locksmith.url");
    for (AutoCloseable closeable : open) {
      closeable.close();
    }
  }

  @Test
  void theClassesAjcWoveForTheseTestsPass() throws Exception {
    long listed = listedIn(getClass().getClassLoader().getResource(LockedMethodIndexer.INDEX));

    assertThat(listed).as("methods listed in target/test-classes").isGreaterThan(20);
    assertThat(AspectLocksmith.verifyWeaving()).isEqualTo(listed);
  }

  @Test
  void useRefusesTheEngineWhileAListedClassIsNotWoven() throws Exception {
    Locksmith first = engine();
    AspectLocksmith.use(first);
    ClassLoader fixtures = compile(Map.of("fixture.Unwoven", UNWOVEN));
    Locksmith second = engine();

    assertThatThrownBy(() -> ContextLoader.use(fixtures, second))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(
            "@DistributedLock on fixture.Unwoven.run(String) has no effect: fixture.Unwoven was"
                + " not woven with dev.locksmith.aspectj.DistributedLockAspect")
        .hasMessageContaining("fixture.Unwoven.tick() has no effect")
        .hasMessageContaining("<aspectLibraries>")
        .hasMessageContaining("-javaagent:aspectjweaver.jar");
    assertThat(AspectLocksmith.engine()).as("the engine set before").isSameAs(first);
  }

  @Test
  void theFirstLockedCallFailsWhileAListedClassIsNotWoven() throws Exception {
    System.setProperty("locksmith.url", "mem:");
    ClassLoader fixtures = compile(Map.of("fixture.Unwoven", UNWOVEN));
    Jobs jobs = new Jobs();

    assertThatThrownBy(() -> ContextLoader.with(fixtures, jobs::plain))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("fixture.Unwoven.run(String) has no effect");
    assertThat(jobs.runs).as("the locked method did not run").hasValue(0);

    assertThat(jobs.plain().lockId())
        .as("without the unwoven class in sight, the engine starts")
        .isEqualTo("jobs.plain");
  }

  @Test
  void anAnnotationOnAnInterfaceMethodIsReportedAsSuch() throws Exception {
    URLClassLoader fixtures = compile(Map.of("fixture.Api", API, "fixture.Payments", PAYMENTS));

    assertThatThrownBy(() -> ContextLoader.with(fixtures, AspectLocksmith::verifyWeaving))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(
            "@DistributedLock on interface method fixture.Api.pay(long) does not reach"
                + " fixture.Payments.pay(long): AspectJ matches only annotations on the method that"
                + " has the body (an execution join point does not inherit method annotations)")
        .hasMessageContaining("Put @DistributedLock on fixture.Payments.pay(long) itself")
        .hasMessageNotContaining("aspectLibraries")
        .hasMessageNotContaining("was not woven");

    AspectLocksmith.use(engine());
    Class<?> payments = Class.forName("fixture.Payments", false, fixtures);
    assertThatThrownBy(() -> AspectLocksmith.validate(payments))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("interface method fixture.Api.pay(long) does not reach")
        .hasMessageNotContaining("aspectLibraries");
  }

  @Test
  void anInterfaceMethodImplementedByAnInheritedMethodIsReported() throws Exception {
    // The method with the body is declared by a class that does not implement the interface.
    URLClassLoader fixtures =
        compile(
            Map.of(
                "fixture.Api",
                API,
                "fixture.PlainBase",
                """
                package fixture;

                public class PlainBase {
                  public void pay(long cents) {}
                }
                """,
                "fixture.Impl",
                """
                package fixture;

                public class Impl extends PlainBase implements Api {}
                """,
                "fixture.Handler",
                """
                package fixture;

                import dev.locksmith.annotation.DistributedLock;

                public interface Handler<T> {
                  @DistributedLock(name = "handle")
                  void handle(T item);
                }
                """,
                "fixture.PlainHandling",
                """
                package fixture;

                public class PlainHandling {
                  public void handle(String item) {}

                  public void handle(Integer item) {}
                }
                """,
                "fixture.Orders",
                """
                package fixture;

                public class Orders extends PlainHandling implements Handler<String> {}
                """,
                "fixture.AbstractBase",
                """
                package fixture;

                public abstract class AbstractBase {
                  public abstract void pay(long cents);
                }
                """,
                "fixture.AbstractImpl",
                """
                package fixture;

                public abstract class AbstractImpl extends AbstractBase implements Api {}
                """));

    AspectLocksmith.use(engine());
    Class<?> impl = Class.forName("fixture.Impl", false, fixtures);
    assertThatThrownBy(() -> AspectLocksmith.validate(impl))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(
            "@DistributedLock on interface method fixture.Api.pay(long) does not reach"
                + " fixture.PlainBase.pay(long), which implements it for fixture.Impl")
        .hasMessageContaining("Put @DistributedLock on fixture.PlainBase.pay(long) itself");

    Class<?> orders = Class.forName("fixture.Orders", false, fixtures);
    assertThatThrownBy(() -> AspectLocksmith.validate(orders))
        .as("through a generic interface")
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(
            "@DistributedLock on interface method fixture.Handler.handle(Object) does not reach"
                + " fixture.PlainHandling.handle(String), which implements it for fixture.Orders")
        .hasMessageNotContaining("handle(Integer)");

    assertThatThrownBy(() -> ContextLoader.with(fixtures, AspectLocksmith::verifyWeaving))
        .as("the compiler's index lists the classes, though none of their own members is locked")
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("2 @DistributedLock methods would run unlocked")
        .hasMessageContaining(
            "does not reach fixture.PlainBase.pay(long), which implements it for fixture.Impl")
        .hasMessageContaining(
            "does not reach fixture.PlainHandling.handle(String), which implements it for"
                + " fixture.Orders");

    Class<?> abstractImpl = Class.forName("fixture.AbstractImpl", false, fixtures);
    assertThat(AspectLocksmith.validate(abstractImpl))
        .as("no body to lock: the concrete class's override is checked where it is")
        .isZero();
  }

  @Test
  void verifyWeavingListsEveryMethodThatWouldRunUnlocked() throws Exception {
    ClassLoader fixtures =
        compile(
            Map.of(
                "fixture.Unwoven", UNWOVEN,
                "fixture.Base", BASE,
                "fixture.Sub", SUB,
                "fixture.Deep", DEEP));

    assertThatThrownBy(() -> ContextLoader.with(fixtures, AspectLocksmith::verifyWeaving))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("5 @DistributedLock methods would run unlocked")
        .hasMessageContaining("fixture.Unwoven.run(String) has no effect")
        .hasMessageContaining("fixture.Unwoven.tick() has no effect")
        .hasMessageContaining("fixture.Base.run() has no effect")
        .hasMessageContaining(
            "@DistributedLock on the overridden method fixture.Base.run() does not reach"
                + " fixture.Sub.run()")
        .hasMessageContaining(
            "(fixture.Base.run() itself is locked only when called through super)")
        .hasMessageContaining(
            "Put @DistributedLock on fixture.Sub.run() itself, with the attributes of the one on"
                + " fixture.Base.run() and its name spelt out (name = \"base\"): a bare annotation"
                + " names the lock Sub.run, another lock")
        .hasMessageContaining(
            "@DistributedLock reaches fixture.Deep.job() through 3 levels of meta-annotation")
        .hasMessageContaining("<aspectLibraries>");
  }

  /**
   * A listed class that loads but whose methods cannot be read (another method's signature names a
   * type missing from the class path, an optional dependency left out) would fail every locked
   * call; the check says so, naming the class and the missing type, instead of letting a raw {@code
   * NoClassDefFoundError} escape {@code verifyWeaving}, {@code use} and {@code validate}.
   */
  @Test
  void aListedClassWhoseMethodsCannotBeReadIsReportedNamingTheMissingType() throws Exception {
    URLClassLoader fixtures =
        compile(
            Map.of(
                "fixture.Optional",
                "package fixture; public class Optional {}",
                "fixture.UsesOptional",
                """
                package fixture;

                import dev.locksmith.annotation.DistributedLock;

                public class UsesOptional {
                  @DistributedLock(name = "uses-optional")
                  public void run() {}

                  public void export(Optional optional) {}
                }
                """));
    java.nio.file.Files.delete(dir.resolve("classes/fixture/Optional.class"));
    Class<?> type = Class.forName("fixture.UsesOptional", false, fixtures);

    assertThatThrownBy(() -> ContextLoader.with(fixtures, AspectLocksmith::verifyWeaving))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("fixture.UsesOptional")
        .hasMessageContaining("fixture/Optional");
    AspectLocksmith.use(engine());
    assertThatThrownBy(() -> AspectLocksmith.validate(type))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("fixture.UsesOptional")
        .hasMessageContaining("fixture/Optional");
  }

  private URLClassLoader compile(Map<String, String> sources) throws IOException {
    URLClassLoader loader = Javac.compile(dir.resolve("classes"), sources);
    open.add(loader);
    return loader;
  }

  private Locksmith engine() {
    Locksmith engine =
        Locksmith.builder()
            .settings(LocksmithSettings.from(Map.of("locksmith.url", "mem:")))
            .build();
    open.add(engine);
    return engine;
  }

  private static long listedIn(URL index) throws IOException {
    try (InputStream in = Objects.requireNonNull(index, "index").openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .filter(line -> !line.isBlank() && !line.startsWith("#"))
          .count();
    }
  }
}
