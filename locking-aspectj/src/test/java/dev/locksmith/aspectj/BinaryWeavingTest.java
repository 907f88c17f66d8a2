package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.processing.LockedMethodIndexer;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.aspectj.bridge.IMessage;
import org.aspectj.bridge.MessageHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binary weaving as this module's README shows it: javac (with the index processor) compiles, then
 * ajc weaves the class files in place. The weaving check fails before and passes after, and the
 * woven method runs under its lock.
 */
class BinaryWeavingTest {
  private static final String SETTLEMENT =
      """
      package fixture;

      import dev.locksmith.annotation.DistributedLock;
      import dev.locksmith.core.Locks;

      public class Settlement {
        @DistributedLock(name = "settle", key = "#tenant")
        public String settle(String tenant) {
          return Locks.current().lockId();
        }

        @DistributedLock(name = "close")
        public static String close() {
          return Locks.current().lockId();
        }
      }
      """;

  /** An around aspect of the application's own, such as a timing or transaction aspect. */
  private static final String TIMING =
      """
      package fixture;

      import org.aspectj.lang.ProceedingJoinPoint;
      import org.aspectj.lang.annotation.Around;
      import org.aspectj.lang.annotation.Aspect;

      @Aspect
      public class Timing {
        @Around("execution(* fixture.Settlement.*(..))")
        public Object time(ProceedingJoinPoint call) throws Throwable {
          return call.proceed();
        }
      }
      """;

  @TempDir Path dir;

  @AfterEach
  void tearDown() {
    AspectLocksmith.reset();
  }

  @Test
  void classesWovenAfterJavacPassTheCheckAndRunUnderTheirLocks() throws Exception {
    Path classes = dir.resolve("classes");
    try (URLClassLoader plain = Javac.compile(classes, Map.of("fixture.Settlement", SETTLEMENT))) {
      assertThatThrownBy(() -> ContextLoader.with(plain, AspectLocksmith::verifyWeaving))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("fixture.Settlement was not woven");
    }

    weaveInPlace(classes);

    assertThat(classes.resolve(LockedMethodIndexer.INDEX))
        .as("ajc left javac's index in place")
        .isRegularFile();
    try (URLClassLoader woven =
            new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        Locksmith engine =
            Locksmith.builder()
                .settings(LocksmithSettings.from(Map.of("locksmith.url", "mem:")))
                .build()) {
      ContextLoader.use(woven, engine);
      assertThat(ContextLoader.with(woven, AspectLocksmith::verifyWeaving))
          .isEqualTo(AspectLocksmith.verifyWeaving() + 2);

      Class<?> settlement = Class.forName("fixture.Settlement", true, woven);
      Object instance = settlement.getConstructor().newInstance();
      Method settle = settlement.getMethod("settle", String.class);
      assertThat(settle.invoke(instance, "acme")).isEqualTo("settle:acme");
      assertThat(settlement.getMethod("close").invoke(null)).isEqualTo("close");
    }
  }

  @Test
  void classesWovenOnlyWithAnotherAroundAspectFailTheCheck() throws Exception {
    Path classes = dir.resolve("classes");
    Javac.compile(classes, Map.of("fixture.Settlement", SETTLEMENT, "fixture.Timing", TIMING))
        .close();

    weaveInPlace(classes, List.of());

    try (URLClassLoader woven =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      assertThat(Class.forName("fixture.Settlement", false, woven).getDeclaredMethods())
          .extracting(Method::getName)
          .as("woven with the timing aspect")
          .anyMatch(name -> name.startsWith("settle_aroundBody"));
      assertThatThrownBy(() -> ContextLoader.with(woven, AspectLocksmith::verifyWeaving))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining(
              "fixture.Settlement was not woven with " + DistributedLockAspect.class.getName());
    }
  }

  /** {@code ajc -inpath classes -aspectpath <this module's classes> -d classes}. */
  private static void weaveInPlace(Path classes) throws Exception {
    String aspectPath =
        Path.of(
                DistributedLockAspect.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI())
            .toString();
    weaveInPlace(classes, List.of("-aspectpath", aspectPath));
  }

  /** {@code ajc -inpath classes <aspect options> -d classes}. */
  private static void weaveInPlace(Path classes, List<String> aspectOptions) {
    List<String> options =
        new ArrayList<>(
            List.of(
                "-17",
                "-classpath",
                System.getProperty("java.class.path") + File.pathSeparator + classes,
                "-inpath",
                classes.toString()));
    options.addAll(aspectOptions);
    options.addAll(List.of("-d", classes.toString()));
    MessageHandler messages = new MessageHandler();
    new org.aspectj.tools.ajc.Main().run(options.toArray(String[]::new), messages);
    assertThat(messages.getMessages(IMessage.ERROR, true))
        .as("ajc errors: %s", List.of(messages.getMessages(IMessage.WARNING, true)))
        .isEmpty();
  }
}
